//! The 128-bit integer family: `u128` and `i128` arithmetic and comparisons
//! (the nodes `+ - * / %` and `== != < > <= >=` become over them) and their
//! conversions.
//!
//! The rules are those of their 64-bit siblings: `+ - *` wrap on overflow
//! (as `u64_add` and `i64_add` do), a zero divisor makes `/` and `%` give 0
//! (and fails the `_strict` forms, what `/` and `%` become under `pragma
//! strict_values`), `i128::MIN / -1` wraps to `i128::MIN`.
//!
//! Conversions: every integer whose values all fit (and `bool`) widens into
//! `u128` or `i128` by a class-A adapter; `u128` and `i128` widen to `f64`
//! (rounding to nearest, as every integer does), `str` (the decimal text),
//! `bool` (nonzero), `bytes` (16 little-endian bytes) and `json` (the number,
//! every digit) by class-A adapters. Every other integer to integer is a
//! class-B cast whose value must fit its target (one that does not fails the
//! evaluation, naming the value and the type); `str` and `bytes` read into
//! each by an explicit cast.
//!
//! A 128-bit value travels by reference, as the 16 little-endian bytes of a
//! Ref slot ([`crate::wide`]); these nodes are rules over whole values,
//! which every engine runs through the same value path as the decimal
//! nodes.

use super::arith::zero_divisor_failure;
use super::convert::{coercion_failure, exactly};
use crate::node::by_bytes::{Arg, BytesEval, OutRef, Sink};
use crate::node::kit::value_fn;
use crate::node::{konst, wire, wire_any, Args, BuildCtx, NodeDef, NodeError, NodeEval, Outputs, Testing, Ty};
use crate::types::PortType::{self, Bool, Bytes, Json, Str, F64, I128, U128};
use crate::value::Value;
use crate::wide::{does_not_fit, AnyInt, Bits128};

/// The `u128` wire argument `i`.
fn unsigned(args: &Args<'_>, i: usize) -> Result<u128, NodeError> {
    match args.get(i) {
        Value::U128(b) => Ok(b.as_u128()),
        other => Err(NodeError::new(format!("internal: expected a u128, got {other}"))),
    }
}

/// The `i128` wire argument `i`.
fn signed(args: &Args<'_>, i: usize) -> Result<i128, NodeError> {
    match args.get(i) {
        Value::I128(b) => Ok(b.as_i128()),
        other => Err(NodeError::new(format!("internal: expected an i128, got {other}"))),
    }
}

/// What the suites know of a 128-bit node: its corner call (given per
/// node, over the suite's u64 coordinates widened), and whether it can fail.
const WIDE: Testing = Testing { random: true, ..Testing::BASE };

/// The corner suite's operands of a `u128` node: products of its u64
/// corners, so values past u64 and products that wrap past u128.
macro_rules! u128_operands {
    () => {
        "(a as u128) * (b as u128), (c as u128) * (a as u128) + (b as u128)"
    };
}

/// The corner suite's operands of an `i128` node: signed products of its
/// u64 corners, negative values and both signs' ends among them.
macro_rules! i128_operands {
    () => {
        "(a as i128) * (b as i128) - (c as i128) * (c as i128), (c as i128) - (a as i128) * (b as i128)"
    };
}

/// A two-wire 128-bit arithmetic node over the bits of its operands, in
/// both forms: P1's, over `Value`s, and the by-bytes form the compiled
/// engines run, which reads each operand's 16 bytes where they sit and
/// writes the result's 16 bytes straight into the output's buffer (no
/// `Value` built on the way), as the decimal nodes do.
struct WideArith<F> {
    /// The operands' and the result's type (`u128` or `i128`).
    ty: PortType,
    f: F,
}

impl<F: Fn(Bits128, Bits128) -> Result<Bits128, String> + Send + Sync> NodeEval for WideArith<F> {
    fn eval(&self, args: &Args<'_>, outs: &mut [Value]) -> Result<(), NodeError> {
        let bits = |i: usize| match args.get(i) {
            Value::U128(b) | Value::I128(b) => Ok(*b),
            other => Err(NodeError::new(format!("internal: expected a {}, got {other}", self.ty))),
        };
        let result = (self.f)(bits(0)?, bits(1)?)?;
        outs[0] = if self.ty == U128 { Value::U128(result) } else { Value::I128(result) };
        Ok(())
    }
    fn bytes_form(&self) -> Option<&dyn BytesEval> {
        Some(self)
    }
}

impl<F: Fn(Bits128, Bits128) -> Result<Bits128, String> + Send + Sync> BytesEval for WideArith<F> {
    #[inline]
    fn eval_bytes(&self, args: &[Arg<'_>], out: Sink<'_>) -> Result<(), NodeError> {
        let bits = |i: usize| -> Result<Bits128, NodeError> {
            let arg = args.get(i).ok_or_else(|| NodeError::new("internal: a 128-bit node reads two wires"))?;
            Bits128::from_bytes(arg.bytes()?).ok_or_else(|| NodeError::new("internal: a 128-bit value is 16 bytes"))
        };
        let result = (self.f)(bits(0)?, bits(1)?)?;
        out.put(OutRef::Bytes(&result.to_bytes()))
    }
    /// The rule only appends the result's 16 bytes.
    fn appends(&self) -> bool {
        true
    }
}

/// Declares a two-wire 128-bit arithmetic node: each operand read as `$t`
/// (`$as` of its bits), `$body` the result, stored back as bits by `$of`.
macro_rules! wide_binop {
    ($id:ident, $name:expr, $ty:ident, $as:ident, $of:path, $t:ty, $operands:expr, $doc:literal,
     fallible: $fallible:literal, |$a:ident, $b:ident| $body:expr) => {
        #[doc = concat!("`", $name, "`: ", $doc)]
        pub const $id: NodeDef = NodeDef {
            name: $name,
            category: "arithmetic",
            doc: $doc,
            params: &[wire("a", $ty), wire("b", $ty)],
            outputs: Outputs::One($ty),
            build: |_| {
                Ok(Box::new(WideArith {
                    ty: $ty,
                    f: |a: Bits128, b: Bits128| {
                        let ($a, $b): ($t, $t) = (a.$as(), b.$as());
                        let result: Result<$t, String> = $body;
                        result.map($of)
                    },
                }))
            },
            testing: Testing { corner_call: Some(concat!($name, "(", $operands, ")")), fallible: $fallible, ..WIDE },
            ..NodeDef::BASE
        };
    };
}

/// Declares a two-wire 128-bit comparison answering 1 when it holds.
macro_rules! wide_cmp {
    ($id:ident, $name:expr, $ty:ident, $read:ident, $operands:expr, $doc:literal, |$a:ident, $b:ident| $holds:expr) => {
        #[doc = concat!("`", $name, "`: ", $doc)]
        pub const $id: NodeDef = NodeDef {
            name: $name,
            category: "compare",
            doc: $doc,
            params: &[wire("a", $ty), wire("b", $ty)],
            outputs: Outputs::One(PortType::U64),
            build: |_| {
                Ok(value_fn(|args, outs| {
                    let ($a, $b) = ($read(args, 0)?, $read(args, 1)?);
                    outs[0] = Value::U64(u64::from($holds));
                    Ok(())
                }))
            },
            testing: Testing { corner_call: Some(concat!($name, "(", $operands, ")")), ..WIDE },
            ..NodeDef::BASE
        };
    };
}

/// Declares the arithmetic and comparisons of one 128-bit type.
macro_rules! wide_family {
    ($ty:ident, $read:ident, $as:ident, $of:path, $t:ty, $operands:expr, $word:literal,
     [$add:ident, $sub:ident, $mul:ident, $div:ident, $rem:ident, $div_strict:ident, $rem_strict:ident,
      $eq:ident, $ne:ident, $lt:ident, $gt:ident, $le:ident, $ge:ident]) => {
        wide_binop!($add, concat!($word, "_add"), $ty, $as, $of, $t, $operands, "a + b, wrapping.",
            fallible: false, |a, b| Ok(a.wrapping_add(b)));
        wide_binop!($sub, concat!($word, "_sub"), $ty, $as, $of, $t, $operands, "a - b, wrapping.",
            fallible: false, |a, b| Ok(a.wrapping_sub(b)));
        wide_binop!($mul, concat!($word, "_mul"), $ty, $as, $of, $t, $operands, "a * b, wrapping.",
            fallible: false, |a, b| Ok(a.wrapping_mul(b)));
        wide_binop!($div, concat!($word, "_div"), $ty, $as, $of, $t, $operands,
            "a / b truncated toward zero (wrapping: the least i128 / -1 is itself), or 0 when b is 0.",
            fallible: false, |a, b| Ok(if b == 0 { 0 } else { a.wrapping_div(b) }));
        wide_binop!($rem, concat!($word, "_mod"), $ty, $as, $of, $t, $operands,
            "a % b with the sign of a, or 0 when b is 0.",
            fallible: false, |a, b| Ok(if b == 0 { 0 } else { a.wrapping_rem(b) }));
        wide_binop!($div_strict, concat!($word, "_div_strict"), $ty, $as, $of, $t, $operands,
            "a / b as the total division; a zero b fails the evaluation (`/` under pragma strict_values).",
            fallible: true, |a, b| if b == 0 { Err(zero_divisor_failure("/")) } else { Ok(a.wrapping_div(b)) });
        wide_binop!($rem_strict, concat!($word, "_mod_strict"), $ty, $as, $of, $t, $operands,
            "a % b as the total remainder; a zero b fails the evaluation (`%` under pragma strict_values).",
            fallible: true, |a, b| if b == 0 { Err(zero_divisor_failure("%")) } else { Ok(a.wrapping_rem(b)) });
        wide_cmp!($eq, concat!($word, "_eq"), $ty, $read, $operands, "1 if a == b, else 0.", |a, b| a == b);
        wide_cmp!($ne, concat!($word, "_ne"), $ty, $read, $operands, "1 if a != b, else 0.", |a, b| a != b);
        wide_cmp!($lt, concat!($word, "_lt"), $ty, $read, $operands, "1 if a < b, else 0.", |a, b| a < b);
        wide_cmp!($gt, concat!($word, "_gt"), $ty, $read, $operands, "1 if a > b, else 0.", |a, b| a > b);
        wide_cmp!($le, concat!($word, "_le"), $ty, $read, $operands, "1 if a <= b, else 0.", |a, b| a <= b);
        wide_cmp!($ge, concat!($word, "_ge"), $ty, $read, $operands, "1 if a >= b, else 0.", |a, b| a >= b);
    };
}

wide_family!(
    U128,
    unsigned,
    as_u128,
    Bits128::of_u128,
    u128,
    u128_operands!(),
    "u128",
    [
        U128_ADD,
        U128_SUB,
        U128_MUL,
        U128_DIV,
        U128_MOD,
        U128_DIV_STRICT,
        U128_MOD_STRICT,
        U128_EQ,
        U128_NE,
        U128_LT,
        U128_GT,
        U128_LE,
        U128_GE
    ]
);
wide_family!(
    I128,
    signed,
    as_i128,
    Bits128::of_i128,
    i128,
    i128_operands!(),
    "i128",
    [
        I128_ADD,
        I128_SUB,
        I128_MUL,
        I128_DIV,
        I128_MOD,
        I128_DIV_STRICT,
        I128_MOD_STRICT,
        I128_EQ,
        I128_NE,
        I128_LT,
        I128_GT,
        I128_LE,
        I128_GE
    ]
);

/// The integer wire `0` of a conversion node (any integer type, or bool).
fn integer_arg(args: &Args<'_>) -> Result<Option<AnyInt>, NodeError> {
    let v = args.get(0);
    match AnyInt::of(v) {
        Some(i) => Ok(Some(i)),
        None if v.is_none() => Ok(None),
        None => Err(NodeError::new(format!("internal: expected an integer, got {v}"))),
    }
}

/// Refuses a build whose wire is not of one of `types` (`what` names them).
fn wire_among(c: &BuildCtx<'_>, accepts: fn(PortType) -> bool, what: &str) -> Result<PortType, String> {
    match c.wire_types.first() {
        Some(&t) if accepts(t) => Ok(t),
        other => Err(format!("converts {what}, not {}", other.map_or("nothing".into(), |t| t.keyword()))),
    }
}

/// A node converting any integer (or bool) into integer type `to`, failing
/// with "value V does not fit in T" when it does not fit.
fn integer_into(to: PortType) -> Box<dyn NodeEval> {
    value_fn(move |args, outs| {
        let Some(v) = integer_arg(args)? else { return Ok(()) };
        outs[0] = v.to_type(to).ok_or_else(|| does_not_fit(v, to))?;
        Ok(())
    })
}

/// The conversion of an integer (or bool) of type `from` into 128-bit type
/// `to`, in both forms: P1's over `Value`s, and the by-bytes form, which
/// reads a one-slot integer's word (or a 128-bit value's 16 bytes) and
/// writes the result's 16 bytes into the output's buffer.
struct IntoWide {
    from: PortType,
    to: PortType,
}

impl IntoWide {
    /// `v` as a value of the target type, or the failure naming both.
    fn convert(&self, v: AnyInt) -> Result<Value, NodeError> {
        v.to_type(self.to).ok_or_else(|| NodeError::new(does_not_fit(v, self.to)))
    }
}

impl NodeEval for IntoWide {
    fn eval(&self, args: &Args<'_>, outs: &mut [Value]) -> Result<(), NodeError> {
        let Some(v) = integer_arg(args)? else { return Ok(()) };
        outs[0] = self.convert(v)?;
        Ok(())
    }
    fn bytes_form(&self) -> Option<&dyn BytesEval> {
        Some(self)
    }
}

impl BytesEval for IntoWide {
    #[inline]
    fn eval_bytes(&self, args: &[Arg<'_>], out: Sink<'_>) -> Result<(), NodeError> {
        let arg = *args.first().ok_or_else(|| NodeError::new("internal: a conversion reads one wire"))?;
        let value = match arg {
            Arg::Word(w) => crate::node::slot::slot_to_value(self.from, w),
            arg => Value::sixteen_bytes_row(arg.bytes()?, self.from),
        };
        let v =
            AnyInt::of(&value).ok_or_else(|| NodeError::new(format!("internal: expected an integer, got {value}")))?;
        let bytes = self.convert(v)?.sixteen_bytes().ok_or_else(|| NodeError::new("internal: not a 128-bit value"))?;
        out.put(OutRef::Bytes(&bytes))
    }
    /// The rule only appends the result's 16 bytes.
    fn appends(&self) -> bool {
        true
    }
}

/// True for every integer type and bool (what an integer conversion reads).
fn integer_or_bool(t: PortType) -> bool {
    t.is_integer() || t == Bool
}

/// Declares the conversion of any integer or bool into a 128-bit type.
macro_rules! into_wide {
    ($id:ident, $name:literal, $ty:ident, $doc:literal) => {
        #[doc = concat!("`", $name, "`: ", $doc)]
        pub const $id: NodeDef = NodeDef {
            name: $name,
            category: "adapter",
            doc: $doc,
            params: &[wire_any("input")],
            outputs: Outputs::One($ty),
            build: |c| {
                let from = wire_among(c, integer_or_bool, "integers and bools")?;
                Ok(Box::new(IntoWide { from, to: $ty }))
            },
            testing: Testing { fallible: true, ..WIDE },
            ..NodeDef::BASE
        };
    };
}

into_wide!(TO_U128, "__to_u128", U128,
    "Integer or bool -> u128: an adapter from every unsigned integer and bool, a cast (failing below 0) from a signed one or an i128.");
into_wide!(TO_I128, "__to_i128", I128,
    "Integer or bool -> i128: an adapter from every integer up to 64 bits and bool, a cast (failing above the greatest i128) from a u128.");

/// The one-slot integer type a `__wide_to_int` constant names.
fn target_integer(consts: &[Value]) -> Result<PortType, String> {
    let text = consts.first().and_then(Value::as_str).unwrap_or("");
    match PortType::from_keyword(text) {
        Some(t) if t.integer_range().is_some() => Ok(t),
        _ => Err(format!("type must name an integer type of at most 64 bits such as \"u64\", got {text:?}")),
    }
}

/// `__wide_to_int`: a u128 or i128 cast to a narrower integer type.
pub const WIDE_TO_INT: NodeDef = NodeDef {
    name: "__wide_to_int",
    category: "adapter",
    doc: "Cast u128 or i128 -> the integer type `type` names (u8 to i64): a value outside its range fails.",
    params: &[wire_any("input"), konst("type", Str)],
    outputs: Outputs::Rule(|consts, _| target_integer(consts).unwrap_or(PortType::U64)),
    build: |c| {
        wire_among(c, PortType::is_wide_integer, "u128 and i128 values")?;
        Ok(integer_into(target_integer(c.consts)?))
    },
    testing: Testing { fallible: true, ..WIDE },
    ..NodeDef::BASE
};

/// Declares a class-A conversion of a u128 or i128 into `$to`.
macro_rules! from_wide {
    ($id:ident, $name:literal, $to:ident, $doc:literal, |$v:ident| $body:expr) => {
        #[doc = concat!("`", $name, "`: ", $doc)]
        pub const $id: NodeDef = NodeDef {
            name: $name,
            category: "adapter",
            doc: $doc,
            params: &[wire_any("input")],
            outputs: Outputs::One($to),
            build: |c| {
                wire_among(c, PortType::is_wide_integer, "u128 and i128 values")?;
                Ok(value_fn(|args, outs| {
                    let Some($v) = integer_arg(args)? else { return Ok(()) };
                    outs[0] = $body;
                    Ok(())
                }))
            },
            testing: WIDE,
            ..NodeDef::BASE
        };
    };
}

/// The nearest f64 of an integer of any width (ties to even).
fn nearest_f64(v: AnyInt) -> f64 {
    match v {
        AnyInt::Fits(i) => i as f64,
        AnyInt::Above(u) => u as f64,
    }
}

/// The 16 little-endian bytes of an integer of any width: its two's
/// complement (a u128 above the greatest i128 is its own bits).
fn le_bytes(v: AnyInt) -> [u8; 16] {
    match v {
        AnyInt::Fits(i) => i.to_le_bytes(),
        AnyInt::Above(u) => u.to_le_bytes(),
    }
}

from_wide!(WIDE_TO_F64, "__wide_to_f64", F64, "Automatic adapter u128/i128 -> f64 (nearest, ties to even).", |v| {
    Value::F64(nearest_f64(v))
});
from_wide!(
    WIDE_TO_STR,
    "__wide_to_str",
    Str,
    "Automatic adapter u128/i128 -> str: the decimal text, every digit.",
    |v| Value::str(v.to_string())
);
from_wide!(WIDE_TO_BOOL, "__wide_to_bool", Bool, "Automatic adapter u128/i128 -> bool: a nonzero test.", |v| {
    Value::Bool(v != AnyInt::Fits(0))
});
from_wide!(
    WIDE_TO_BYTES,
    "__wide_to_bytes",
    Bytes,
    "Automatic adapter u128/i128 -> bytes: 16 little-endian bytes.",
    |v| Value::Bytes(le_bytes(v).to_vec().into())
);
from_wide!(
    WIDE_TO_JSON,
    "__wide_to_json",
    Json,
    "Automatic adapter u128/i128 -> json: the number, every digit.",
    |v| Value::Json(v.to_string().into())
);

/// Declares a class-B read of a 128-bit type from `str` or `bytes`.
macro_rules! read_wide {
    ($id:ident, $name:literal, $from:ident => $ty:ident, $doc:literal, |$x:ident| $body:expr) => {
        #[doc = concat!("`", $name, "`: ", $doc)]
        pub const $id: NodeDef = NodeDef {
            name: $name,
            category: "adapter",
            doc: $doc,
            params: &[wire("input", $from)],
            outputs: Outputs::One($ty),
            build: |_| {
                Ok(value_fn(|args, outs| {
                    let $x = args.get(0);
                    if $x.is_none() {
                        return Ok(());
                    }
                    outs[0] = $body?;
                    Ok(())
                }))
            },
            testing: Testing { fallible: true, ..WIDE },
            ..NodeDef::BASE
        };
    };
}

/// `text` read as a whole number of type `to` (trimmed), or upstream's
/// coercion failure naming the node.
fn read_text(text: &str, to: PortType, node: &str) -> Result<Value, String> {
    let raw = text.trim();
    let parsed = if to == U128 {
        raw.parse::<u128>().map(Value::u128).map_err(|e| e.to_string())
    } else {
        raw.parse::<i128>().map(Value::i128).map_err(|e| e.to_string())
    };
    parsed.map_err(|e| coercion_failure(raw, "a whole number", &format!("{node}: {e}")))
}

/// The 16 bytes of a `bytes` value read as type `to`.
fn read_bytes(v: &Value, to: PortType) -> Result<Value, String> {
    let Value::Bytes(b) = v else { return Err(format!("internal: expected bytes, got {v}")) };
    let bytes = exactly::<16>(b, &to.keyword())?;
    Ok(Value::sixteen_bytes_row(&bytes, to))
}

read_wide!(STR_TO_U128, "__str_to_u128", Str => U128,
    "Cast str -> u128: trims and parses; a malformed value or one out of range fails the evaluation.",
    |x| read_text(x.as_str().unwrap_or(""), U128, "__str_to_u128"));
read_wide!(STR_TO_I128, "__str_to_i128", Str => I128,
    "Cast str -> i128: trims and parses; a malformed value or one out of range fails the evaluation.",
    |x| read_text(x.as_str().unwrap_or(""), I128, "__str_to_i128"));
read_wide!(BYTES_TO_U128, "__bytes_to_u128", Bytes => U128, "Cast bytes -> u128: exactly 16 little-endian bytes.",
    |x| read_bytes(x, U128));
read_wide!(BYTES_TO_I128, "__bytes_to_i128", Bytes => I128, "Cast bytes -> i128: exactly 16 little-endian bytes.",
    |x| read_bytes(x, I128));

/// The family's nodes, in catalog order.
pub const NODES: &[NodeDef] = &[
    U128_ADD,
    U128_SUB,
    U128_MUL,
    U128_DIV,
    U128_MOD,
    U128_DIV_STRICT,
    U128_MOD_STRICT,
    U128_EQ,
    U128_NE,
    U128_LT,
    U128_GT,
    U128_LE,
    U128_GE,
    I128_ADD,
    I128_SUB,
    I128_MUL,
    I128_DIV,
    I128_MOD,
    I128_DIV_STRICT,
    I128_MOD_STRICT,
    I128_EQ,
    I128_NE,
    I128_LT,
    I128_GT,
    I128_LE,
    I128_GE,
    TO_U128,
    TO_I128,
    WIDE_TO_INT,
    WIDE_TO_F64,
    WIDE_TO_STR,
    WIDE_TO_BOOL,
    WIDE_TO_BYTES,
    WIDE_TO_JSON,
    STR_TO_U128,
    STR_TO_I128,
    BYTES_TO_U128,
    BYTES_TO_I128,
];

/// True when every value of integer (or bool) type `from` is a value of
/// 128-bit type `to`: what makes the conversion class A.
fn widens_into(from: PortType, to: PortType) -> bool {
    match to {
        U128 => from == Bool || (from.integer_range().is_some() && !from.is_signed_integer()),
        I128 => from == Bool || from.integer_range().is_some(),
        _ => false,
    }
}

/// The class-A adapter of this family converting `from` into `to`, if any
/// (see the module doc).
pub fn auto_adapter(from: PortType, to: PortType) -> Option<&'static NodeDef> {
    if to.is_wide_integer() && widens_into(from, to) {
        return Some(if to == U128 { &TO_U128 } else { &TO_I128 });
    }
    if !from.is_wide_integer() {
        return None;
    }
    Some(match to {
        F64 => &WIDE_TO_F64,
        Str => &WIDE_TO_STR,
        Bool => &WIDE_TO_BOOL,
        Bytes => &WIDE_TO_BYTES,
        Json => &WIDE_TO_JSON,
        _ => return None,
    })
}

/// The class-B cast of this family converting `from` into `to`, if any:
/// the integer conversions class A does not make, and the reads from `str`
/// and `bytes`. A cast into a one-slot integer is [`WIDE_TO_INT`], whose
/// `type` constant names the target ([`needs_type_constant`]).
pub fn cast_node(from: PortType, to: PortType) -> Option<&'static NodeDef> {
    Some(match (from, to) {
        (Str, U128) => &STR_TO_U128,
        (Str, I128) => &STR_TO_I128,
        (Bytes, U128) => &BYTES_TO_U128,
        (Bytes, I128) => &BYTES_TO_I128,
        (f, U128) if f.is_integer() && !widens_into(f, U128) => &TO_U128,
        (f, I128) if f.is_integer() && !widens_into(f, I128) => &TO_I128,
        (f, t) if f.is_wide_integer() && t.integer_range().is_some() => &WIDE_TO_INT,
        _ => return None,
    })
}

/// True for a cast node whose target type travels as its `type` constant.
pub fn needs_type_constant(def: &NodeDef) -> bool {
    def.params.iter().any(|p| p.name == "type" && p.ty == Ty::Is(Str))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::{eval1, eval_err};

    #[test]
    fn arithmetic_wraps_as_the_64_bit_operators_do() {
        let max = Value::u128(u128::MAX);
        assert!(eval1(&U128_ADD, &[], &[max.clone(), Value::u128(1)]).same(&Value::u128(0)));
        assert!(eval1(&U128_MUL, &[], &[max.clone(), max.clone()]).same(&Value::u128(1)));
        assert!(eval1(&I128_SUB, &[], &[Value::i128(i128::MIN), Value::i128(1)]).same(&Value::i128(i128::MAX)));
        assert!(eval1(&I128_DIV, &[], &[Value::i128(i128::MIN), Value::i128(-1)]).same(&Value::i128(i128::MIN)));
        assert!(eval1(&I128_MOD, &[], &[Value::i128(-7), Value::i128(2)]).same(&Value::i128(-1)));
        assert!(eval1(&U128_DIV, &[], &[max.clone(), Value::u128(0)]).same(&Value::u128(0)));
        assert!(eval_err(&U128_DIV_STRICT, &[], &[max.clone(), Value::u128(0)]).contains("the divisor of '/' is 0"));
        assert_eq!(eval1(&U128_GT, &[], &[max, Value::u128(1 << 64)]).as_u64(), Some(1));
        assert_eq!(eval1(&I128_LT, &[], &[Value::i128(-1), Value::i128(0)]).as_u64(), Some(1));
    }

    #[test]
    fn conversions_fit_or_name_the_value_and_type() {
        assert!(eval1(&TO_U128, &[], &[Value::U64(u64::MAX)]).same(&Value::u128(u64::MAX.into())));
        assert!(eval_err(&TO_U128, &[], &[Value::I64(-1)]).contains("value -1 does not fit in u128"));
        let top = Value::u128(u128::MAX);
        assert!(eval_err(&TO_I128, &[], &[top.clone()]).contains(&format!("value {} does not fit in i128", u128::MAX)));
        let to_u64 = [Value::str("u64")];
        assert!(eval_err(&WIDE_TO_INT, &to_u64, &[top.clone()]).contains("does not fit in u64"));
        assert!(eval1(&WIDE_TO_INT, &to_u64, &[Value::u128(7)]).same(&Value::U64(7)));
        assert!(eval1(&WIDE_TO_INT, &[Value::str("i8")], &[Value::i128(-128)]).same(&Value::I8(-128)));
        assert!(eval1(&WIDE_TO_STR, &[], &[top.clone()]).same(&Value::str(u128::MAX.to_string())));
        assert!(eval1(&WIDE_TO_F64, &[], &[top.clone()]).same(&Value::F64(u128::MAX as f64)));
        assert!(eval1(&WIDE_TO_BYTES, &[], &[Value::i128(-1)]).same(&Value::Bytes(vec![0xff; 16].into())));
        assert!(eval1(&BYTES_TO_I128, &[], &[Value::Bytes(vec![0xff; 16].into())]).same(&Value::i128(-1)));
        assert!(eval_err(&BYTES_TO_U128, &[], &[Value::Bytes(vec![1; 8].into())]).contains("takes 16"));
        assert!(eval1(&STR_TO_U128, &[], &[Value::str(" 340282366920938463463374607431768211455 ")]).same(&top));
        assert!(eval_err(&STR_TO_U128, &[], &[Value::str("340282366920938463463374607431768211456")])
            .contains("__str_to_u128"));
        assert!(eval_err(&STR_TO_I128, &[], &[Value::str("12x")]).contains("a whole number"));
    }

    #[test]
    fn every_integer_pair_with_a_wide_end_converts_one_way() {
        let ints = PortType::ALL.into_iter().filter(|t| t.is_integer());
        for from in ints.clone() {
            for to in ints.clone().filter(|&to| to != from && (to.is_wide_integer() || from.is_wide_integer())) {
                let (a, c) = (auto_adapter(from, to).is_some(), cast_node(from, to).is_some());
                assert!(a != c, "{from} -> {to}: adapter {a}, cast {c}");
                let lossless = widens_into(from, to);
                assert_eq!(a, lossless, "{from} -> {to} is class A exactly when lossless");
            }
        }
    }
}
