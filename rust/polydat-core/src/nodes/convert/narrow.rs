//! The conversions of the narrow integer types `u16`, `i16`, `u8` and
//! `i8`, on the rules `u32` and `i32` follow: every lossless integer
//! widening and every integer to `f64`, `str`, `bool`, `bytes` and `json`
//! (and `bool` to each) is a class-A adapter; every other integer to
//! integer is a class-B cast whose value must fit its target (one outside
//! the target's range fails the evaluation, on every engine), and `str`
//! and `bytes` read into each by an explicit cast. Arithmetic is not
//! defined over them, as over `u32` and `i32`: convert first.
//!
//! A narrow integer travels in one slot word as `u32`/`i32` do: an unsigned
//! one zero-extended, a signed one sign-extended. So a conversion between
//! integers never changes the word of a value that fits; its native form
//! is the word itself, after a range check for a cast.

use super::{exactly, out_of_range, read_text, SAME_WORD};
use crate::node::by_bytes::to_text;
use crate::node::kit::{map1, str_map, to_ref, try_map1, Scalar};
use crate::node::kit_text::{bytes_map, JsonText};
use crate::node::lower::{ICmp, Lower, NVal};
use crate::node::{wire, BuildCtx, NodeDef, Outputs, Ty};
use crate::types::PortType::{self, Bool, Bytes, Json, Str, F64, I16, I32, I64, I8, U16, U32, U64, U8};
use crate::value::push_display;

/// The native form of an integer cast from `F` to `T` (for a pair where
/// not every value fits): the rule is called (and fails) when the word is
/// outside `T`'s range, read as `F` reads it; otherwise the word is the
/// result. A signed word is shifted by `-min` first, so one unsigned
/// comparison against the span of the range tests both ends.
fn lower_fitting<F: Scalar, T: Scalar>(l: &mut dyn Lower, _: &BuildCtx<'_>, x: &[NVal]) -> Option<Vec<NVal>> {
    let (lo, hi) = T::TYPE.integer_range()?;
    let over = if F::TYPE.is_signed_integer() {
        let offset = l.iconst((lo as i64 as u64).wrapping_neg());
        let shifted = l.iadd(x[0], offset);
        let span = l.iconst((hi - lo) as u64);
        l.icmp(ICmp::Gt, shifted, span)
    } else {
        let max = l.iconst(hi as u64);
        l.icmp(ICmp::Gt, x[0], max)
    };
    l.call_rule_if(over);
    Some(vec![x[0]])
}

/// The native form of an integer widened to f64: by the word as an i64
/// for a signed integer, as a u64 for an unsigned one.
fn lower_to_f64<F: Scalar>(l: &mut dyn Lower, _: &BuildCtx<'_>, x: &[NVal]) -> Option<Vec<NVal>> {
    Some(vec![match F::TYPE.is_signed_integer() {
        true => l.i64_to_f64(x[0]),
        false => l.u64_to_f64(x[0]),
    }])
}

/// The native form of an integer's truth: the word is not 0.
fn lower_nonzero(l: &mut dyn Lower, _: &BuildCtx<'_>, x: &[NVal]) -> Option<Vec<NVal>> {
    let zero = l.iconst(0);
    Some(vec![l.icmp(ICmp::Ne, x[0], zero)])
}

/// A lossless integer widening `__<from>_to_<to>` (class A).
macro_rules! widening {
    ($id:ident, $f:ident $F:ident => $t:ident $T:ident) => {
        /// A class-A integer widening (see its `name` and `doc` fields).
        pub const $id: NodeDef = NodeDef {
            name: concat!("__", stringify!($f), "_to_", stringify!($t)),
            category: "adapter",
            doc: concat!("Automatic adapter ", stringify!($F), " -> ", stringify!($T), "."),
            params: &[wire("input", $F)],
            outputs: Outputs::One($T),
            build: |_| Ok(map1(|x: $f| -> $t { x.into() })),
            lower: SAME_WORD,
            ..NodeDef::BASE
        };
    };
}

/// A range-checked integer cast `__<from>_to_<to>` (class B).
macro_rules! fitting {
    ($id:ident, $f:ident $F:ident => $t:ident $T:ident) => {
        /// A class-B integer cast (see its `name` and `doc` fields).
        pub const $id: NodeDef = NodeDef {
            name: concat!("__", stringify!($f), "_to_", stringify!($t)),
            category: "adapter",
            doc: concat!(
                "Cast ",
                stringify!($f),
                " -> ",
                stringify!($t),
                " (a value outside ",
                stringify!($t),
                "'s range fails)."
            ),
            params: &[wire("input", $F)],
            outputs: Outputs::One($T),
            build: |_| Ok(try_map1(|x: $f| <$t>::try_from(x).map_err(|_| out_of_range(x, stringify!($t))))),
            lower: Some(lower_fitting::<$f, $t>),
            ..NodeDef::BASE
        };
    };
}

/// The conversions of one narrow integer type besides integer to integer:
/// to f64, str, bool, bytes and json and from bool (class A), and from str
/// and bytes (class B).
macro_rules! narrow_family {
    ($t:ident $T:ident, $bytes:literal: $to_f64:ident, $to_str:ident, $to_bool:ident, $to_bytes:ident, $to_json:ident,
     $from_bool:ident, $from_str:ident, $from_bytes:ident) => {
        /// Automatic adapter to f64 (exact).
        pub const $to_f64: NodeDef = NodeDef {
            name: concat!("__", stringify!($t), "_to_f64"),
            category: "adapter",
            doc: concat!("Automatic adapter ", stringify!($T), " -> F64."),
            params: &[wire("input", $T)],
            outputs: Outputs::One(F64),
            build: |_| Ok(map1(|x: $t| -> f64 { x.into() })),
            lower: Some(lower_to_f64::<$t>),
            ..NodeDef::BASE
        };
        /// Automatic adapter to str: the decimal text.
        pub const $to_str: NodeDef = NodeDef {
            name: concat!("__", stringify!($t), "_to_str"),
            category: "adapter",
            doc: concat!("Automatic adapter ", stringify!($T), " -> Str."),
            params: &[wire("input", $T)],
            outputs: Outputs::One(Str),
            build: |_| Ok(to_text(|x: $t, out: &mut String| push_display(out, &x.into_value()))),
            ..NodeDef::BASE
        };
        /// Automatic adapter to bool: a nonzero test.
        pub const $to_bool: NodeDef = NodeDef {
            name: concat!("__", stringify!($t), "_to_bool"),
            category: "adapter",
            doc: concat!("Automatic adapter ", stringify!($T), " -> Bool."),
            params: &[wire("input", $T)],
            outputs: Outputs::One(Bool),
            build: |_| Ok(map1(|x: $t| x != 0)),
            lower: Some(lower_nonzero),
            ..NodeDef::BASE
        };
        /// Automatic adapter to bytes: little-endian.
        pub const $to_bytes: NodeDef = NodeDef {
            name: concat!("__", stringify!($t), "_to_bytes"),
            category: "adapter",
            doc: concat!("Automatic adapter ", stringify!($T), " -> Bytes."),
            params: &[wire("input", $T)],
            outputs: Outputs::One(Bytes),
            build: |_| Ok(to_ref(|x: $t| x.to_le_bytes().to_vec())),
            ..NodeDef::BASE
        };
        /// Automatic adapter to json: the number.
        pub const $to_json: NodeDef = NodeDef {
            name: concat!("__", stringify!($t), "_to_json"),
            category: "adapter",
            doc: concat!("Automatic adapter ", stringify!($T), " -> Json."),
            params: &[wire("input", $T)],
            outputs: Outputs::One(Json),
            build: |_| Ok(to_ref(|x: $t| JsonText(x.to_string()))),
            ..NodeDef::BASE
        };
        /// Automatic adapter from bool: 1 or 0.
        pub const $from_bool: NodeDef = NodeDef {
            name: concat!("__bool_to_", stringify!($t)),
            category: "adapter",
            doc: concat!("Automatic adapter Bool -> ", stringify!($T), "."),
            params: &[wire("input", Bool)],
            outputs: Outputs::One($T),
            build: |_| Ok(map1(|x: bool| -> $t { x.into() })),
            lower: SAME_WORD,
            ..NodeDef::BASE
        };
        /// Cast from str: trims and parses.
        pub const $from_str: NodeDef = NodeDef {
            name: concat!("__str_to_", stringify!($t)),
            category: "adapter",
            doc: concat!(
                "Cast str -> ",
                stringify!($t),
                ": trims and parses; a malformed value or one out of range fails the evaluation."
            ),
            params: &[wire("input", Str)],
            outputs: Outputs::One($T),
            build: |_| {
                Ok(str_map(|s| {
                    read_text(s, "a whole number", concat!("__str_to_", stringify!($t)), |raw| {
                        raw.parse::<$t>().map_err(|e| e.to_string())
                    })
                }))
            },
            ..NodeDef::BASE
        };
        /// Cast from bytes: exactly its width, little-endian.
        pub const $from_bytes: NodeDef = NodeDef {
            name: concat!("__bytes_to_", stringify!($t)),
            category: "adapter",
            doc: concat!("Cast bytes -> ", stringify!($t), ": exactly ", $bytes, " little-endian byte(s)."),
            params: &[wire("input", Bytes)],
            outputs: Outputs::One($T),
            build: |_| Ok(bytes_map(|b| exactly::<$bytes>(b, stringify!($t)).map(<$t>::from_le_bytes))),
            ..NodeDef::BASE
        };
    };
}

widening!(U16_TO_U64, u16 U16 => u64 U64);
widening!(U16_TO_I64, u16 U16 => i64 I64);
widening!(U16_TO_U32, u16 U16 => u32 U32);
widening!(U16_TO_I32, u16 U16 => i32 I32);
widening!(I16_TO_I64, i16 I16 => i64 I64);
widening!(I16_TO_I32, i16 I16 => i32 I32);
widening!(U8_TO_U64, u8 U8 => u64 U64);
widening!(U8_TO_I64, u8 U8 => i64 I64);
widening!(U8_TO_U32, u8 U8 => u32 U32);
widening!(U8_TO_I32, u8 U8 => i32 I32);
widening!(U8_TO_U16, u8 U8 => u16 U16);
widening!(U8_TO_I16, u8 U8 => i16 I16);
widening!(I8_TO_I64, i8 I8 => i64 I64);
widening!(I8_TO_I32, i8 I8 => i32 I32);
widening!(I8_TO_I16, i8 I8 => i16 I16);

fitting!(U64_TO_U16, u64 U64 => u16 U16);
fitting!(U64_TO_I16, u64 U64 => i16 I16);
fitting!(U64_TO_U8, u64 U64 => u8 U8);
fitting!(U64_TO_I8, u64 U64 => i8 I8);
fitting!(I64_TO_U16, i64 I64 => u16 U16);
fitting!(I64_TO_I16, i64 I64 => i16 I16);
fitting!(I64_TO_U8, i64 I64 => u8 U8);
fitting!(I64_TO_I8, i64 I64 => i8 I8);
fitting!(U32_TO_U16, u32 U32 => u16 U16);
fitting!(U32_TO_I16, u32 U32 => i16 I16);
fitting!(U32_TO_U8, u32 U32 => u8 U8);
fitting!(U32_TO_I8, u32 U32 => i8 I8);
fitting!(I32_TO_U16, i32 I32 => u16 U16);
fitting!(I32_TO_I16, i32 I32 => i16 I16);
fitting!(I32_TO_U8, i32 I32 => u8 U8);
fitting!(I32_TO_I8, i32 I32 => i8 I8);
fitting!(U16_TO_I16, u16 U16 => i16 I16);
fitting!(U16_TO_U8, u16 U16 => u8 U8);
fitting!(U16_TO_I8, u16 U16 => i8 I8);
fitting!(I16_TO_U64, i16 I16 => u64 U64);
fitting!(I16_TO_U32, i16 I16 => u32 U32);
fitting!(I16_TO_U16, i16 I16 => u16 U16);
fitting!(I16_TO_U8, i16 I16 => u8 U8);
fitting!(I16_TO_I8, i16 I16 => i8 I8);
fitting!(U8_TO_I8, u8 U8 => i8 I8);
fitting!(I8_TO_U64, i8 I8 => u64 U64);
fitting!(I8_TO_U32, i8 I8 => u32 U32);
fitting!(I8_TO_U16, i8 I8 => u16 U16);
fitting!(I8_TO_U8, i8 I8 => u8 U8);

narrow_family!(u16 U16, 2: U16_TO_F64, U16_TO_STR, U16_TO_BOOL, U16_TO_BYTES, U16_TO_JSON,
    BOOL_TO_U16, STR_TO_U16, BYTES_TO_U16);
narrow_family!(i16 I16, 2: I16_TO_F64, I16_TO_STR, I16_TO_BOOL, I16_TO_BYTES, I16_TO_JSON,
    BOOL_TO_I16, STR_TO_I16, BYTES_TO_I16);
narrow_family!(u8 U8, 1: U8_TO_F64, U8_TO_STR, U8_TO_BOOL, U8_TO_BYTES, U8_TO_JSON,
    BOOL_TO_U8, STR_TO_U8, BYTES_TO_U8);
narrow_family!(i8 I8, 1: I8_TO_F64, I8_TO_STR, I8_TO_BOOL, I8_TO_BYTES, I8_TO_JSON,
    BOOL_TO_I8, STR_TO_I8, BYTES_TO_I8);

/// The class-A adapters of the narrow integer types (see the module doc).
pub const ADAPTERS: &[NodeDef] = &[
    U16_TO_U64,
    U16_TO_I64,
    U16_TO_U32,
    U16_TO_I32,
    I16_TO_I64,
    I16_TO_I32,
    U8_TO_U64,
    U8_TO_I64,
    U8_TO_U32,
    U8_TO_I32,
    U8_TO_U16,
    U8_TO_I16,
    I8_TO_I64,
    I8_TO_I32,
    I8_TO_I16,
    U16_TO_F64,
    U16_TO_STR,
    U16_TO_BOOL,
    U16_TO_BYTES,
    U16_TO_JSON,
    BOOL_TO_U16,
    I16_TO_F64,
    I16_TO_STR,
    I16_TO_BOOL,
    I16_TO_BYTES,
    I16_TO_JSON,
    BOOL_TO_I16,
    U8_TO_F64,
    U8_TO_STR,
    U8_TO_BOOL,
    U8_TO_BYTES,
    U8_TO_JSON,
    BOOL_TO_U8,
    I8_TO_F64,
    I8_TO_STR,
    I8_TO_BOOL,
    I8_TO_BYTES,
    I8_TO_JSON,
    BOOL_TO_I8,
];

/// The class-B casts of the narrow integer types (see the module doc).
pub const CASTS: &[NodeDef] = &[
    U64_TO_U16,
    U64_TO_I16,
    U64_TO_U8,
    U64_TO_I8,
    I64_TO_U16,
    I64_TO_I16,
    I64_TO_U8,
    I64_TO_I8,
    U32_TO_U16,
    U32_TO_I16,
    U32_TO_U8,
    U32_TO_I8,
    I32_TO_U16,
    I32_TO_I16,
    I32_TO_U8,
    I32_TO_I8,
    U16_TO_I16,
    U16_TO_U8,
    U16_TO_I8,
    I16_TO_U64,
    I16_TO_U32,
    I16_TO_U16,
    I16_TO_U8,
    I16_TO_I8,
    U8_TO_I8,
    I8_TO_U64,
    I8_TO_U32,
    I8_TO_U16,
    I8_TO_U8,
    STR_TO_U16,
    BYTES_TO_U16,
    STR_TO_I16,
    BYTES_TO_I16,
    STR_TO_U8,
    BYTES_TO_U8,
    STR_TO_I8,
    BYTES_TO_I8,
];

/// The class-A adapter of this module converting `from` into `to`, if any.
pub fn auto_adapter(from: PortType, to: PortType) -> Option<&'static NodeDef> {
    converting(ADAPTERS, from, to)
}

/// The class-B cast of this module converting `from` into `to`, if any.
pub fn cast_node(from: PortType, to: PortType) -> Option<&'static NodeDef> {
    converting(CASTS, from, to)
}

/// The node of `nodes` whose one wire takes `from` and whose output is `to`.
pub(super) fn converting(nodes: &'static [NodeDef], from: PortType, to: PortType) -> Option<&'static NodeDef> {
    nodes.iter().find(|def| def.params[0].ty == Ty::Is(from) && matches!(def.outputs, Outputs::One(t) if t == to))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::{eval1, eval_err};
    use crate::value::Value;

    #[test]
    fn narrowing_casts_fail_at_the_edges_of_their_target() {
        assert!(eval1(&U64_TO_U8, &[], &[Value::U64(255)]).same(&Value::U8(255)));
        assert!(eval_err(&U64_TO_U8, &[], &[Value::U64(256)]).contains("value 256 does not fit in u8"));
        assert!(eval1(&I64_TO_I8, &[], &[Value::I64(-128)]).same(&Value::I8(-128)));
        assert!(eval_err(&I64_TO_I8, &[], &[Value::I64(-129)]).contains("value -129 does not fit in i8"));
        assert!(eval_err(&I8_TO_U8, &[], &[Value::I8(-1)]).contains("does not fit in u8"));
        assert!(eval1(&U16_TO_I16, &[], &[Value::U16(32767)]).same(&Value::I16(32767)));
        assert!(eval_err(&U16_TO_I16, &[], &[Value::U16(32768)]).contains("does not fit in i16"));
        assert!(eval1(&I8_TO_I64, &[], &[Value::I8(-5)]).same(&Value::I64(-5)));
    }

    #[test]
    fn every_pair_of_integer_types_converts_one_way() {
        let ints = PortType::ALL.into_iter().filter(|t| t.integer_range().is_some());
        for from in ints.clone() {
            for to in ints.clone().filter(|&to| to != from) {
                let narrow = |t: PortType| matches!(t, U16 | I16 | U8 | I8);
                if !(narrow(from) || narrow(to)) {
                    continue;
                }
                let (a, c) = (auto_adapter(from, to).is_some(), cast_node(from, to).is_some());
                assert!(a != c, "{from} -> {to}: adapter {a}, cast {c}");
                let (lo, hi) = (from.integer_range().unwrap(), to.integer_range().unwrap());
                assert_eq!(a, hi.0 <= lo.0 && lo.1 <= hi.1, "{from} -> {to} is class A exactly when lossless");
            }
        }
    }

    #[test]
    fn reads_take_exact_widths_and_whole_numbers() {
        assert!(eval1(&BYTES_TO_I16, &[], &[Value::Bytes(vec![0xff, 0xff].into())]).same(&Value::I16(-1)));
        assert!(eval_err(&BYTES_TO_U8, &[], &[Value::Bytes(vec![1, 2].into())]).contains("takes 1"));
        assert!(eval1(&STR_TO_U8, &[], &[Value::str(" 200 ")]).same(&Value::U8(200)));
        assert!(eval_err(&STR_TO_I8, &[], &[Value::str("128")]).contains("is not a whole number"));
        assert!(eval1(&U8_TO_STR, &[], &[Value::U8(7)]).same(&Value::str("7")));
        assert!(eval1(&I8_TO_F64, &[], &[Value::I8(-3)]).same(&Value::F64(-3.0)));
        assert!(eval1(&BOOL_TO_I16, &[], &[Value::Bool(true)]).same(&Value::I16(1)));
    }
}
