//! Conversions: the literal node, explicit numeric conversions, and the
//! automatic (class A) widening adapters the compiler inserts on typed wires.

use crate::calendar::timestamp_millis;
use crate::node::by_bytes::to_text;
use crate::node::kit::{map1, str_map, to_ref, try_map1, value_to_slot, Days, Millis, SlotEval};
use crate::node::kit_text::{bytes_map, try_to_ref, JsonText};
use crate::node::lower::{FCmp, FOp, ICmp, Lower, LowerFn, NVal};
use crate::node::{
    konst_or, wire, wire_any, Args, BuildCtx, Lit, NodeDef, NodeError, NodeEval, Outputs, ParamKind, ParamSpec,
    Samples, Testing, Ty,
};
use crate::nodes::datetime::{parse_iso_millis, push_date_text, push_timestamp_text};
use crate::types::PortType::{
    self, Bool, Bytes, Date, Decimal, Json, Str, Timestamp, Vector, F32, F64, I16, I32, I64, I8, U16, U32, U64, U8,
};
use crate::value::push_display;
use crate::value::Value;

pub mod float16;
pub mod narrow;

/// A literal in a wire position: an anonymous constant node.
struct Literal {
    value: Value,
    slot: Option<u64>,
}

impl NodeEval for Literal {
    fn eval(&self, _args: &Args<'_>, outs: &mut [Value]) -> Result<(), NodeError> {
        outs[0] = self.value.clone();
        Ok(())
    }
    fn slot_form(&self) -> Option<&dyn SlotEval> {
        self.slot.is_some().then_some(self as &dyn SlotEval)
    }
    fn slot_step(
        self: std::sync::Arc<Self>,
        _ins: &[usize],
        out: usize,
        _outs: usize,
    ) -> Option<crate::node::kit::SlotStep> {
        let word = self.slot?;
        Some(Box::new(move |buf: &mut [u64]| {
            buf[out] = word;
            Ok(())
        }))
    }
}

impl SlotEval for Literal {
    fn eval_slots(&self, _ins: &[u64], outs: &mut [u64]) -> Result<(), NodeError> {
        outs[0] = self.slot.unwrap_or(0);
        Ok(())
    }
}

/// Name of the literal node.
pub const LITERAL_OP: &str = "__lit";

/// `__lit`: A constant value (compiler-synthesized for literals in wire positions).
pub const LITERAL: NodeDef = NodeDef {
    name: LITERAL_OP,
    category: "convert",
    doc: "A constant value (compiler-synthesized for literals in wire positions).",
    params: &[ParamSpec { name: "value", kind: ParamKind::Const, ty: Ty::Any, default: None, variadic: false }],
    outputs: Outputs::ConstType(0),
    build: |c| {
        let value = c.consts[0].clone();
        Ok(Box::new(Literal { slot: value_to_slot(&value), value }))
    },
    lower: Some(|l, c, _| value_to_slot(&c.consts[0]).map(|word| vec![l.iconst(word)])),
    ..NodeDef::BASE
};

/// `to_f64`: x as f64 (rounds to nearest above 2^53).
pub const TO_F64: NodeDef = NodeDef {
    name: "to_f64",
    category: "convert",
    doc: "x as f64 (rounds to nearest above 2^53).",
    params: &[wire("input", U64)],
    outputs: Outputs::One(F64),
    build: |_| Ok(map1(|x: u64| x as f64)),
    lower: Some(|l, _, x| Some(vec![l.u64_to_f64(x[0])])),
    ..NodeDef::BASE
};

/// The native form of a conversion whose source and target share a slot
/// word: a widening (`u32`, `i32` or `bool` to a wider integer), or a cast
/// between an `i64` and a timestamp or an `i32` and a date (both
/// sign-extended).
const SAME_WORD: Option<LowerFn> = Some(|_, _, x| Some(vec![x[0]]));

/// The native form of a float truncated, or floored, to a saturating u64
/// (NaN gives 0): Rust's `x as u64`, which truncates. Below zero, where
/// floor and truncation differ, both give 0.
const LOWER_TRUNCATING: Option<LowerFn> = Some(|l, _, x| Some(vec![l.f64_to_u64(x[0])]));

/// `f64_to_u64`: Truncates toward zero; saturating, NaN gives 0.
pub const F64_TO_U64: NodeDef = NodeDef {
    name: "f64_to_u64",
    category: "convert",
    doc: "Truncates toward zero; saturating, NaN gives 0.",
    params: &[wire("input", F64)],
    build: |_| Ok(map1(|x: f64| x as u64)),
    lower: LOWER_TRUNCATING,
    ..NodeDef::BASE
};

/// The native form of a float rounded half away from zero as a saturating
/// u64: `t = x as u64`, plus one when `x - t >= 0.5` and `t` is not
/// already u64::MAX. Below 2^53 the difference is `x`'s exact fraction;
/// from there up every float is whole (the difference is 0 below 2^64);
/// below zero it is `x` itself, never 0.5 or more; NaN compares false.
const LOWER_ROUNDING: Option<LowerFn> = Some(|l, _, x| {
    let (whole, back) = lower_whole(l, x[0]);
    let fraction = l.fop(FOp::Sub, x[0], back);
    let half = l.fconst(0.5);
    let up = l.fcmp(FCmp::Ge, fraction, half);
    Some(vec![lower_bump(l, whole, up)])
});

/// The native form of a float's ceiling as a saturating u64: `t = x as
/// u64`, plus one when `x` is above `t` (it has a fraction: below zero it
/// never is, from 2^53 up it is whole) and `t` is not already u64::MAX.
fn lower_ceiling(l: &mut dyn Lower, _: &BuildCtx<'_>, x: &[NVal]) -> Option<Vec<NVal>> {
    let (whole, back) = lower_whole(l, x[0]);
    let above = l.fcmp(FCmp::Gt, x[0], back);
    Some(vec![lower_bump(l, whole, above)])
}

/// `x as u64` (truncated, saturating, NaN 0) and that as a float again.
fn lower_whole(l: &mut dyn Lower, x: NVal) -> (NVal, NVal) {
    let whole = l.f64_to_u64(x);
    (whole, l.u64_to_f64(whole))
}

/// `whole + 1` when `bump` (0 or 1) is 1 and `whole` is below u64::MAX.
fn lower_bump(l: &mut dyn Lower, whole: NVal, bump: NVal) -> NVal {
    let max = l.iconst(u64::MAX);
    let room = l.icmp(ICmp::Ne, whole, max);
    let step = l.band(bump, room);
    l.iadd(whole, step)
}

/// `round_to_u64`: Rounds half away from zero; saturating, NaN gives 0.
pub const ROUND_TO_U64: NodeDef = NodeDef {
    name: "round_to_u64",
    category: "convert",
    doc: "Rounds half away from zero; saturating, NaN gives 0.",
    params: &[wire("input", F64)],
    build: |_| Ok(map1(|x: f64| x.round() as u64)),
    lower: LOWER_ROUNDING,
    ..NodeDef::BASE
};

/// `floor_to_u64`: Floor, then saturating conversion; NaN gives 0.
pub const FLOOR_TO_U64: NodeDef = NodeDef {
    name: "floor_to_u64",
    category: "convert",
    doc: "Floor, then saturating conversion; NaN gives 0.",
    params: &[wire("input", F64)],
    build: |_| Ok(map1(|x: f64| x.floor() as u64)),
    lower: LOWER_TRUNCATING,
    ..NodeDef::BASE
};

/// `ceil_to_u64`: Ceiling, then saturating conversion; NaN gives 0.
pub const CEIL_TO_U64: NodeDef = NodeDef {
    name: "ceil_to_u64",
    category: "convert",
    doc: "Ceiling, then saturating conversion; NaN gives 0.",
    params: &[wire("input", F64)],
    build: |_| Ok(map1(|x: f64| x.ceil() as u64)),
    lower: Some(lower_ceiling),
    ..NodeDef::BASE
};

/// `str_to_u64`: The whole number the trimmed string spells, or 0 when it spells none.
pub const STR_TO_U64: NodeDef = NodeDef {
    name: "str_to_u64",
    category: "convert",
    doc: "The whole number the trimmed string spells, or 0 when it spells none.",
    params: &[wire("s", Str)],
    build: |_| Ok(str_map(|s| Ok(s.trim().parse::<u64>().unwrap_or(0)))),
    ..NodeDef::BASE
};

/// Name of the strict string-to-u64 cast node.
pub const STR_TO_U64_CAST_OP: &str = "__str_to_u64";
/// Name of the strict string-to-f64 cast node.
pub const STR_TO_F64_CAST_OP: &str = "__str_to_f64";

/// The failure text of a strict string cast: upstream's coercion diagnostic
/// (its first sentence and its detail line, both in upstream's words, about
/// the trimmed text). Upstream's middle paragraph, advice about its host's
/// scenario `set:` blocks, is left out: this project has no such blocks.
pub(crate) fn coercion_failure(raw: &str, target: &str, detail: &str) -> String {
    format!("value {raw:?} is not {target}.\n\n(coercion detail: {detail})")
}

/// `__str_to_u64`: Cast str -> u64: trims and parses; a malformed value fails the evaluation.
pub const STR_TO_U64_CAST: NodeDef = NodeDef {
    name: STR_TO_U64_CAST_OP,
    category: "adapter",
    doc: "Cast str -> u64: trims and parses; a malformed value fails the evaluation.",
    params: &[wire("input", Str)],
    build: |_| {
        Ok(str_map(|s| {
            let raw = s.trim();
            raw.parse::<u64>()
                .map_err(|e| coercion_failure(raw, "a whole number", &format!("{STR_TO_U64_CAST_OP}: {e}")))
        }))
    },
    ..NodeDef::BASE
};

/// `__str_to_f64`: Cast str -> f64: trims and parses; a malformed value fails the evaluation.
pub const STR_TO_F64_CAST: NodeDef = NodeDef {
    name: STR_TO_F64_CAST_OP,
    category: "adapter",
    doc: "Cast str -> f64: trims and parses; a malformed value fails the evaluation.",
    params: &[wire("input", Str)],
    outputs: Outputs::One(F64),
    build: |_| {
        Ok(str_map(|s| {
            let raw = s.trim();
            raw.parse::<f64>().map_err(|e| coercion_failure(raw, "a number", &format!("{STR_TO_F64_CAST_OP}: {e}")))
        }))
    },
    ..NodeDef::BASE
};

/// Declares a one-wire adapter node `__<from>_to_<to>` whose rule writes
/// text ([`to_text`]: P1 and the by-bytes form from one closure).
macro_rules! text_adapter {
    ($id:ident, $name:literal, $from:ident : $ft:ty, $f:expr) => {
        /// A one-wire adapter node `__<from>_to_str` (see its `name` and `doc` fields).
        pub const $id: NodeDef = NodeDef {
            name: $name,
            category: "adapter",
            doc: concat!("Automatic adapter ", stringify!($from), " -> Str."),
            params: &[wire("input", $from)],
            outputs: Outputs::One(Str),
            build: |_| Ok(to_text($f as fn($ft, &mut String))),
            ..NodeDef::BASE
        };
    };
}

/// Declares a one-wire adapter node `__<from>_to_<to>`.
macro_rules! adapter {
    ($id:ident, $name:literal, $from:ident : $ft:ty => $to:ident, $kit:ident, $f:expr) => {
        adapter!($id, $name, $from: $ft => $to, $kit, $f, lower: None);
    };
    ($id:ident, $name:literal, $from:ident : $ft:ty => $to:ident, $kit:ident, $f:expr, lower: $lower:expr) => {
        /// A one-wire adapter node `__<from>_to_<to>` (see its `name` and `doc` fields).
        pub const $id: NodeDef = NodeDef {
            name: $name,
            category: "adapter",
            doc: concat!("Automatic adapter ", stringify!($from), " -> ", stringify!($to), "."),
            params: &[wire("input", $from)],
            outputs: Outputs::One($to),
            build: |_| Ok($kit($f as fn($ft) -> _)),
            lower: $lower,
            ..NodeDef::BASE
        };
    };
}

adapter!(U64_TO_F64, "__u64_to_f64", U64: u64 => F64, map1, |x| x as f64, lower: Some(|l, _, x| Some(vec![l.u64_to_f64(x[0])])));
adapter!(I64_TO_F64, "__i64_to_f64", I64: i64 => F64, map1, |x| x as f64, lower: Some(|l, _, x| Some(vec![l.i64_to_f64(x[0])])));
adapter!(U32_TO_F64, "__u32_to_f64", U32: u32 => F64, map1, |x| x as f64, lower: Some(|l, _, x| Some(vec![l.u64_to_f64(x[0])])));
adapter!(I32_TO_F64, "__i32_to_f64", I32: i32 => F64, map1, |x| x as f64, lower: Some(|l, _, x| Some(vec![l.i64_to_f64(x[0])])));
adapter!(F32_TO_F64, "__f32_to_f64", F32: f32 => F64, map1, |x| x as f64);
adapter!(U32_TO_U64, "__u32_to_u64", U32: u32 => U64, map1, |x| x as u64, lower: SAME_WORD);
adapter!(U32_TO_I64, "__u32_to_i64", U32: u32 => I64, map1, |x| x as i64, lower: SAME_WORD);
adapter!(I32_TO_I64, "__i32_to_i64", I32: i32 => I64, map1, |x| x as i64, lower: SAME_WORD);
adapter!(BOOL_TO_U64, "__bool_to_u64", Bool: bool => U64, map1, |x| x as u64, lower: SAME_WORD);
adapter!(BOOL_TO_F64, "__bool_to_f64", Bool: bool => F64, map1, |x| if x { 1.0 } else { 0.0 }, lower: Some(|l, _, x| {
    let (one, zero) = (l.fconst(1.0), l.fconst(0.0));
    Some(vec![l.select(x[0], one, zero)])
}));
adapter!(U64_TO_BOOL, "__u64_to_bool", U64: u64 => Bool, map1, |x| x != 0, lower: Some(|l, _, x| {
    let zero = l.iconst(0);
    Some(vec![l.icmp(ICmp::Ne, x[0], zero)])
}));
// Each is `x.to_string()` (the display text), written into the output.
text_adapter!(U64_TO_STR, "__u64_to_str", U64: u64, |x, out| push_display(out, &Value::U64(x)));
text_adapter!(I64_TO_STR, "__i64_to_str", I64: i64, |x, out| push_display(out, &Value::I64(x)));
text_adapter!(U32_TO_STR, "__u32_to_str", U32: u32, |x, out| push_display(out, &Value::U32(x)));
text_adapter!(I32_TO_STR, "__i32_to_str", I32: i32, |x, out| push_display(out, &Value::I32(x)));
text_adapter!(F64_TO_STR, "__f64_to_str", F64: f64, |x, out| push_display(out, &Value::F64(x)));
text_adapter!(F32_TO_STR, "__f32_to_str", F32: f32, |x, out| push_display(out, &Value::F32(x)));
text_adapter!(BOOL_TO_STR, "__bool_to_str", Bool: bool, |x, out| push_display(out, &Value::Bool(x)));
adapter!(U64_TO_BYTES, "__u64_to_bytes", U64: u64 => Bytes, to_ref, |x| x.to_le_bytes().to_vec());
text_adapter!(TIMESTAMP_TO_STR, "__timestamp_to_str", Timestamp: Millis, |x, out| push_timestamp_text(out, x.0));
text_adapter!(DATE_TO_STR, "__date_to_str", Date: Days, |x, out| push_date_text(out, x.0));
adapter!(DATE_TO_TIMESTAMP, "__date_to_timestamp", Date: Days => Timestamp, map1, |x| Millis(
    i64::from(x.0) * MS_PER_DAY
));

// Upstream's remaining class-A adapters: bool to and from every numeric
// (1/0 out, a nonzero test in), JSON text to str, numbers and bool to their
// little-endian bytes, integers and bool to JSON.
adapter!(BOOL_TO_I64, "__bool_to_i64", Bool: bool => I64, map1, |x| x as i64, lower: SAME_WORD);
adapter!(BOOL_TO_U32, "__bool_to_u32", Bool: bool => U32, map1, |x| x as u32, lower: SAME_WORD);
adapter!(BOOL_TO_I32, "__bool_to_i32", Bool: bool => I32, map1, |x| x as i32, lower: SAME_WORD);
adapter!(BOOL_TO_F32, "__bool_to_f32", Bool: bool => F32, map1, |x| if x { 1.0f32 } else { 0.0 });
adapter!(I64_TO_BOOL, "__i64_to_bool", I64: i64 => Bool, map1, |x| x != 0);
adapter!(U32_TO_BOOL, "__u32_to_bool", U32: u32 => Bool, map1, |x| x != 0);
adapter!(I32_TO_BOOL, "__i32_to_bool", I32: i32 => Bool, map1, |x| x != 0);
adapter!(F64_TO_BOOL, "__f64_to_bool", F64: f64 => Bool, map1, |x| x != 0.0);
adapter!(F32_TO_BOOL, "__f32_to_bool", F32: f32 => Bool, map1, |x| x != 0.0);
adapter!(I64_TO_BYTES, "__i64_to_bytes", I64: i64 => Bytes, to_ref, |x| x.to_le_bytes().to_vec());
adapter!(U32_TO_BYTES, "__u32_to_bytes", U32: u32 => Bytes, to_ref, |x| x.to_le_bytes().to_vec());
adapter!(I32_TO_BYTES, "__i32_to_bytes", I32: i32 => Bytes, to_ref, |x| x.to_le_bytes().to_vec());
adapter!(F64_TO_BYTES, "__f64_to_bytes", F64: f64 => Bytes, to_ref, |x| x.to_le_bytes().to_vec());
adapter!(F32_TO_BYTES, "__f32_to_bytes", F32: f32 => Bytes, to_ref, |x| x.to_le_bytes().to_vec());
adapter!(BOOL_TO_BYTES, "__bool_to_bytes", Bool: bool => Bytes, to_ref, |x| vec![u8::from(x)]);
adapter!(U64_TO_JSON, "__u64_to_json", U64: u64 => Json, to_ref, |x| JsonText(x.to_string()));
adapter!(I64_TO_JSON, "__i64_to_json", I64: i64 => Json, to_ref, |x| JsonText(x.to_string()));
adapter!(U32_TO_JSON, "__u32_to_json", U32: u32 => Json, to_ref, |x| JsonText(x.to_string()));
adapter!(I32_TO_JSON, "__i32_to_json", I32: i32 => Json, to_ref, |x| JsonText(x.to_string()));
adapter!(BOOL_TO_JSON, "__bool_to_json", Bool: bool => Json, to_ref, |x| JsonText(x.to_string()));

/// `__json_to_str`: Automatic adapter Json -> Str: the JSON text as it is.
pub const JSON_TO_STR_ADAPTER: NodeDef = NodeDef {
    name: "__json_to_str",
    category: "adapter",
    doc: "Automatic adapter Json -> Str: the JSON text.",
    params: &[wire("input", Json)],
    outputs: Outputs::One(Str),
    build: |_| Ok(str_map(|s| Ok(s.to_string()))),
    ..NodeDef::BASE
};

/// Milliseconds in a day (a `date` is a whole number of them from the epoch).
pub const MS_PER_DAY: i64 = 86_400_000;

/// Declares a one-wire node `__<from>_to_<to>` that only an explicit `as` uses.
macro_rules! cast {
    ($id:ident, $name:literal, $from:ident : $ft:ty => $to:ident, $doc:literal, $f:expr) => {
        cast!($id, $name, $from: $ft => $to, $doc, $f, lower: None);
    };
    ($id:ident, $name:literal, $from:ident : $ft:ty => $to:ident, $doc:literal, $f:expr, lower: $lower:expr) => {
        /// A one-wire cast node `__<from>_to_<to>` (see its `name` and `doc` fields).
        pub const $id: NodeDef = NodeDef {
            name: $name,
            category: "adapter",
            doc: $doc,
            params: &[wire("input", $from)],
            outputs: Outputs::One($to),
            build: |_| Ok(map1($f as fn($ft) -> _)),
            lower: $lower,
            ..NodeDef::BASE
        };
    };
}

/// The native form of a u64 cast that saturates at `MAX`: `min(x, MAX)`, a
/// non-negative value whose slot word is itself.
fn lower_saturating<const MAX: u64>(l: &mut dyn Lower, _: &BuildCtx<'_>, x: &[NVal]) -> Option<Vec<NVal>> {
    let max = l.iconst(MAX);
    let over = l.icmp(ICmp::Gt, x[0], max);
    Some(vec![l.select(over, max, x[0])])
}

cast!(U64_TO_TIMESTAMP, "__u64_to_timestamp", U64: u64 => Timestamp,
    "Cast u64 -> timestamp: epoch milliseconds (saturating at i64::MAX).", |x| Millis(x.min(i64::MAX as u64) as i64),
    lower: Some(lower_saturating::<{ i64::MAX as u64 }>));
cast!(I64_TO_TIMESTAMP, "__i64_to_timestamp", I64: i64 => Timestamp,
    "Cast i64 -> timestamp: epoch milliseconds.", Millis, lower: SAME_WORD);
cast!(TIMESTAMP_TO_I64, "__timestamp_to_i64", Timestamp: Millis => I64,
    "Cast timestamp -> i64: epoch milliseconds.", |x| x.0, lower: SAME_WORD);
cast!(TIMESTAMP_TO_DATE, "__timestamp_to_date", Timestamp: Millis => Date,
"Cast timestamp -> date: the UTC day of the instant (saturating).", |x| Days(
    x.0.div_euclid(MS_PER_DAY).clamp(i32::MIN as i64, i32::MAX as i64) as i32
));
cast!(U64_TO_DATE, "__u64_to_date", U64: u64 => Date,
    "Cast u64 -> date: days since 1970-01-01 (saturating at i32::MAX).", |x| Days(x.min(i32::MAX as u64) as i32),
    lower: Some(lower_saturating::<{ i32::MAX as u64 }>));
cast!(I32_TO_DATE, "__i32_to_date", I32: i32 => Date, "Cast i32 -> date: days since 1970-01-01.", Days,
    lower: SAME_WORD);
cast!(DATE_TO_I32, "__date_to_i32", Date: Days => I32, "Cast date -> i32: days since 1970-01-01.", |x| x.0,
    lower: SAME_WORD);
cast!(DATE_TO_I64, "__date_to_i64", Date: Days => I64, "Cast date -> i64: days since 1970-01-01.",
    |x| i64::from(x.0), lower: SAME_WORD);

// Upstream's class-B conversions, which only an explicit `as` inserts:
// narrowing and cross-sign integers (range-checked: a value that does not fit
// fails the evaluation), f64 to f32 (a finite value past f32's range fails),
// string parsers (trimmed; a bool reads true/false/1/0 in any case), JSON
// extractors and fixed-width byte readers (exact length, little-endian), and
// a float to JSON (a non-finite float fails: JSON has no such number).

/// A value that does not fit the cast's target type.
pub(crate) fn out_of_range(value: impl std::fmt::Display, target: &str) -> String {
    format!("value {value} does not fit in {target}")
}

/// Declares a fallible one-wire cast node over a scalar (with the native
/// form `lower`, or none: the native tier then calls the rule).
macro_rules! try_cast {
    ($id:ident, $name:literal, $from:ident : $ft:ty => $to:ident, $doc:literal, $f:expr) => {
        try_cast!($id, $name, $from: $ft => $to, $doc, $f, lower: None);
    };
    ($id:ident, $name:literal, $from:ident : $ft:ty => $to:ident, $doc:literal, $f:expr, lower: $lower:expr) => {
        /// A one-wire cast node (see its `name` and `doc` fields).
        pub const $id: NodeDef = NodeDef {
            name: $name,
            category: "adapter",
            doc: $doc,
            params: &[wire("input", $from)],
            outputs: Outputs::One($to),
            build: |_| Ok(try_map1($f as fn($ft) -> Result<_, String>)),
            lower: $lower,
            ..NodeDef::BASE
        };
    };
}

/// Declares a one-wire cast node whose input is text (str or JSON) or bytes.
macro_rules! reader_cast {
    ($id:ident, $name:literal, $from:ident => $to:ident, $kit:ident, $doc:literal, $f:expr) => {
        /// A one-wire cast node (see its `name` and `doc` fields).
        pub const $id: NodeDef = NodeDef {
            name: $name,
            category: "adapter",
            doc: $doc,
            params: &[wire("input", $from)],
            outputs: Outputs::One($to),
            build: |_| Ok($kit($f)),
            ..NodeDef::BASE
        };
    };
}

/// The native form of a u64 cast that fails past `MAX` (its rule called
/// then): the value itself otherwise, whose word is the target's (a
/// non-negative value's sign extension is itself).
fn lower_at_most<const MAX: u64>(l: &mut dyn Lower, _: &BuildCtx<'_>, x: &[NVal]) -> Option<Vec<NVal>> {
    let max = l.iconst(MAX);
    let over = l.icmp(ICmp::Gt, x[0], max);
    l.call_rule_if(over);
    Some(vec![x[0]])
}

try_cast!(U64_TO_I64, "__u64_to_i64", U64: u64 => I64, "Cast u64 -> i64 (a value past i64::MAX fails).",
    |x| i64::try_from(x).map_err(|_| out_of_range(x, "i64")), lower: Some(lower_at_most::<{ i64::MAX as u64 }>));
try_cast!(U64_TO_U32, "__u64_to_u32", U64: u64 => U32, "Cast u64 -> u32 (a value past u32::MAX fails).",
    |x| u32::try_from(x).map_err(|_| out_of_range(x, "u32")), lower: Some(lower_at_most::<{ u32::MAX as u64 }>));
try_cast!(U64_TO_I32, "__u64_to_i32", U64: u64 => I32, "Cast u64 -> i32 (a value past i32::MAX fails).",
    |x| i32::try_from(x).map_err(|_| out_of_range(x, "i32")), lower: Some(lower_at_most::<{ i32::MAX as u64 }>));
try_cast!(I64_TO_U64, "__i64_to_u64", I64: i64 => U64, "Cast i64 -> u64 (a negative value fails).",
    |x| u64::try_from(x).map_err(|_| out_of_range(x, "u64")));
try_cast!(I64_TO_U32, "__i64_to_u32", I64: i64 => U32, "Cast i64 -> u32 (a value outside 0..=u32::MAX fails).",
    |x| u32::try_from(x).map_err(|_| out_of_range(x, "u32")));
try_cast!(I64_TO_I32, "__i64_to_i32", I64: i64 => I32, "Cast i64 -> i32 (a value outside i32's range fails).",
    |x| i32::try_from(x).map_err(|_| out_of_range(x, "i32")));
try_cast!(I64_TO_DATE, "__i64_to_date", I64: i64 => Date,
    "Cast i64 -> date: days since 1970-01-01 (a value outside i32's range fails).",
    |x| i32::try_from(x).map(Days).map_err(|_| out_of_range(x, "date")));
try_cast!(U32_TO_I32, "__u32_to_i32", U32: u32 => I32, "Cast u32 -> i32 (a value past i32::MAX fails).",
    |x| i32::try_from(x).map_err(|_| out_of_range(x, "i32")));
try_cast!(I32_TO_U64, "__i32_to_u64", I32: i32 => U64, "Cast i32 -> u64 (a negative value fails).",
    |x| u64::try_from(x).map_err(|_| out_of_range(x, "u64")));
try_cast!(I32_TO_U32, "__i32_to_u32", I32: i32 => U32, "Cast i32 -> u32 (a negative value fails).",
    |x| u32::try_from(x).map_err(|_| out_of_range(x, "u32")));
try_cast!(F64_TO_F32, "__f64_to_f32", F64: f64 => F32, "Cast f64 -> f32: rounds to nearest (a finite value past f32's range fails).",
|x| {
    let y = x as f32;
    if x.is_finite() && !y.is_finite() {
        return Err(out_of_range(x, "f32"));
    }
    Ok(y)
});
/// `__f64_to_json`: Cast f64 -> json: the number (NaN and infinities fail).
pub const F64_TO_JSON: NodeDef = NodeDef {
    name: "__f64_to_json",
    category: "adapter",
    doc: "Cast f64 -> json: the number (NaN and infinities fail).",
    params: &[wire("input", F64)],
    outputs: Outputs::One(Json),
    build: |_| {
        Ok(try_to_ref(|x: f64| {
            if x.is_finite() {
                Ok(JsonText(format!("{x:?}")))
            } else {
                Err(format!("{x} is not a JSON number"))
            }
        }))
    },
    ..NodeDef::BASE
};

/// A trimmed string read as `T` by `parse`, failing in upstream's words.
fn read_text<T>(s: &str, what: &str, node: &str, parse: impl Fn(&str) -> Result<T, String>) -> Result<T, String> {
    let raw = s.trim();
    parse(raw).map_err(|e| coercion_failure(raw, what, &format!("{node}: {e}")))
}

reader_cast!(STR_TO_BOOL_CAST, "__str_to_bool", Str => Bool, str_map,
    "Cast str -> bool: trims; true/false/1/0 in any case; anything else fails the evaluation.",
    |s| read_text(s, "a bool", "__str_to_bool", |raw| read_bool(raw).ok_or_else(|| "expected true, false, 1 or 0".into())));

/// The bool a text spells: `true`/`1` or `false`/`0`, in any case (what an
/// `as bool` cast and a `--set` of a bool both read).
fn read_bool(t: &str) -> Option<bool> {
    match t.to_ascii_lowercase().as_str() {
        "true" | "1" => Some(true),
        "false" | "0" => Some(false),
        _ => None,
    }
}
reader_cast!(STR_TO_I64_CAST, "__str_to_i64", Str => I64, str_map,
    "Cast str -> i64: trims and parses; a malformed value fails the evaluation.",
    |s| read_text(s, "a whole number", "__str_to_i64", |raw| raw.parse::<i64>().map_err(|e| e.to_string())));
reader_cast!(STR_TO_U32_CAST, "__str_to_u32", Str => U32, str_map,
    "Cast str -> u32: trims and parses; a malformed value fails the evaluation.",
    |s| read_text(s, "a whole number", "__str_to_u32", |raw| raw.parse::<u32>().map_err(|e| e.to_string())));
reader_cast!(STR_TO_I32_CAST, "__str_to_i32", Str => I32, str_map,
    "Cast str -> i32: trims and parses; a malformed value fails the evaluation.",
    |s| read_text(s, "a whole number", "__str_to_i32", |raw| raw.parse::<i32>().map_err(|e| e.to_string())));
reader_cast!(STR_TO_DATE_CAST, "__str_to_date", Str => Date, str_map,
"Cast str -> date: trims; days since 1970-01-01 or an ISO date (1992-01-01); anything else fails the evaluation.",
|s| read_text(s, "a date", "__str_to_date", |raw| match parse_text(raw, Date) {
    Ok(Value::Date(days)) => Ok(Days(days)),
    Ok(_) => unreachable!("parse_text reads a date as a date"),
    Err(e) => Err(e),
}));
reader_cast!(STR_TO_TIMESTAMP_CAST, "__str_to_timestamp", Str => Timestamp, str_map,
"Cast str -> timestamp: trims; epoch milliseconds or an ISO date-time (1992-01-01T12:30:00Z); anything else fails the evaluation.",
|s| read_text(s, "a timestamp", "__str_to_timestamp", |raw| match parse_text(raw, Timestamp) {
    Ok(Value::Timestamp(ms)) => Ok(Millis(ms)),
    Ok(_) => unreachable!("parse_text reads a timestamp as a timestamp"),
    Err(e) => Err(e),
}));
reader_cast!(STR_TO_F32_CAST, "__str_to_f32", Str => F32, str_map,
    "Cast str -> f32: trims and parses; a malformed value fails the evaluation.",
    |s| read_text(s, "a number", "__str_to_f32", |raw| raw.parse::<f32>().map_err(|e| e.to_string())));

/// A JSON text read as the scalar `pick` takes from it, failing with `what`.
fn from_json<T>(text: &str, what: &str, pick: impl Fn(&serde_json::Value) -> Option<T>) -> Result<T, String> {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .as_ref()
        .and_then(pick)
        .ok_or_else(|| format!("JSON value {text} is not {what}"))
}

reader_cast!(JSON_TO_U64, "__json_to_u64", Json => U64, str_map,
    "Cast json -> u64: a JSON whole number in range; anything else fails the evaluation.",
    |s| from_json(s, "a u64", serde_json::Value::as_u64));
reader_cast!(JSON_TO_I64, "__json_to_i64", Json => I64, str_map,
    "Cast json -> i64: a JSON whole number in range; anything else fails the evaluation.",
    |s| from_json(s, "an i64", serde_json::Value::as_i64));
reader_cast!(JSON_TO_F64, "__json_to_f64", Json => F64, str_map,
    "Cast json -> f64: a JSON number; anything else fails the evaluation.",
    |s| from_json(s, "a number", serde_json::Value::as_f64));
reader_cast!(JSON_TO_BOOL, "__json_to_bool", Json => Bool, str_map,
    "Cast json -> bool: a JSON true or false; anything else fails the evaluation.",
    |s| from_json(s, "a bool", serde_json::Value::as_bool));

/// `bytes` read as the `N` little-endian bytes of a value, or a failure naming the length.
pub(crate) fn exactly<const N: usize>(b: &[u8], target: &str) -> Result<[u8; N], String> {
    <[u8; N]>::try_from(b).map_err(|_| format!("{} bytes cannot be read as {target}, which takes {N}", b.len()))
}

reader_cast!(BYTES_TO_U64, "__bytes_to_u64", Bytes => U64, bytes_map,
    "Cast bytes -> u64: exactly 8 little-endian bytes.", |b| exactly::<8>(b, "u64").map(u64::from_le_bytes));
reader_cast!(BYTES_TO_I64, "__bytes_to_i64", Bytes => I64, bytes_map,
    "Cast bytes -> i64: exactly 8 little-endian bytes.", |b| exactly::<8>(b, "i64").map(i64::from_le_bytes));
reader_cast!(BYTES_TO_U32, "__bytes_to_u32", Bytes => U32, bytes_map,
    "Cast bytes -> u32: exactly 4 little-endian bytes.", |b| exactly::<4>(b, "u32").map(u32::from_le_bytes));
reader_cast!(BYTES_TO_I32, "__bytes_to_i32", Bytes => I32, bytes_map,
    "Cast bytes -> i32: exactly 4 little-endian bytes.", |b| exactly::<4>(b, "i32").map(i32::from_le_bytes));
reader_cast!(BYTES_TO_F64, "__bytes_to_f64", Bytes => F64, bytes_map,
    "Cast bytes -> f64: exactly 8 little-endian bytes.", |b| exactly::<8>(b, "f64").map(f64::from_le_bytes));
reader_cast!(BYTES_TO_F32, "__bytes_to_f32", Bytes => F32, bytes_map,
    "Cast bytes -> f32: exactly 4 little-endian bytes.", |b| exactly::<4>(b, "f32").map(f32::from_le_bytes));
reader_cast!(BYTES_TO_BOOL, "__bytes_to_bool", Bytes => Bool, bytes_map,
    "Cast bytes -> bool: exactly one byte, nonzero is true.", |b| exactly::<1>(b, "bool").map(|[x]| x != 0));

/// Name of the pass-through node inserted when a `const` binding has no node
/// of its own to capture (it names an input, or a node another binding shares).
pub const CAPTURE_OP: &str = "__const_capture";

/// A pass-through whose only role is to hold a `const` binding's captured value.
pub const CONST_CAPTURE: NodeDef = NodeDef {
    name: CAPTURE_OP,
    category: "compiler",
    doc: "Holds a const binding's value, captured once at scope init.",
    params: &[wire_any("x")],
    outputs: Outputs::SameAsWire(0),
    accepts_none: true,
    build: |c| Ok(Box::new(PassThrough { slot_form: c.wire_types.first().is_some_and(|t| !t.is_ref()) })),
    ..NodeDef::BASE
};

struct PassThrough {
    slot_form: bool,
}

impl NodeEval for PassThrough {
    fn eval(&self, args: &Args<'_>, outs: &mut [Value]) -> Result<(), NodeError> {
        outs[0] = args.get(0).clone();
        Ok(())
    }
    fn slot_form(&self) -> Option<&dyn SlotEval> {
        self.slot_form.then_some(self as &dyn SlotEval)
    }
}

impl SlotEval for PassThrough {
    fn eval_slots(&self, ins: &[u64], outs: &mut [u64]) -> Result<(), NodeError> {
        outs[0] = ins[0];
        Ok(())
    }
}

/// The class-A catalog: the adapter node inserted automatically to convert
/// `from` into `to` on a wire, if there is one. Class A never narrows a range
/// and never fails; as upstream, every integer widens to f64 (rounding above
/// 2^53) and a u64 feeds a bool port as a nonzero test.
pub fn auto_adapter(from: PortType, to: PortType) -> Option<&'static NodeDef> {
    if let Some(def) = narrow::auto_adapter(from, to)
        .or_else(|| float16::auto_adapter(from, to))
        .or_else(|| crate::nodes::wide::auto_adapter(from, to))
    {
        return Some(def);
    }
    Some(match (from, to) {
        (U64, F64) => &U64_TO_F64,
        (I64, F64) => &I64_TO_F64,
        (U32, F64) => &U32_TO_F64,
        (I32, F64) => &I32_TO_F64,
        (F32, F64) => &F32_TO_F64,
        (U32, U64) => &U32_TO_U64,
        (U32, I64) => &U32_TO_I64,
        (I32, I64) => &I32_TO_I64,
        (Bool, U64) => &BOOL_TO_U64,
        (Bool, F64) => &BOOL_TO_F64,
        (U64, Bool) => &U64_TO_BOOL,
        (U64, Str) => &U64_TO_STR,
        (I64, Str) => &I64_TO_STR,
        (U32, Str) => &U32_TO_STR,
        (I32, Str) => &I32_TO_STR,
        (F64, Str) => &F64_TO_STR,
        (F32, Str) => &F32_TO_STR,
        (Bool, Str) => &BOOL_TO_STR,
        (U64, Bytes) => &U64_TO_BYTES,
        (Bool, I64) => &BOOL_TO_I64,
        (Bool, U32) => &BOOL_TO_U32,
        (Bool, I32) => &BOOL_TO_I32,
        (Bool, F32) => &BOOL_TO_F32,
        (I64, Bool) => &I64_TO_BOOL,
        (U32, Bool) => &U32_TO_BOOL,
        (I32, Bool) => &I32_TO_BOOL,
        (F64, Bool) => &F64_TO_BOOL,
        (F32, Bool) => &F32_TO_BOOL,
        (Json, Str) => &JSON_TO_STR_ADAPTER,
        (Decimal(_), Str) => &crate::nodes::decimal::DECIMAL_TO_STR,
        (I64, Bytes) => &I64_TO_BYTES,
        (U32, Bytes) => &U32_TO_BYTES,
        (I32, Bytes) => &I32_TO_BYTES,
        (F64, Bytes) => &F64_TO_BYTES,
        (F32, Bytes) => &F32_TO_BYTES,
        (Bool, Bytes) => &BOOL_TO_BYTES,
        (U64, Json) => &U64_TO_JSON,
        (I64, Json) => &I64_TO_JSON,
        (U32, Json) => &U32_TO_JSON,
        (I32, Json) => &I32_TO_JSON,
        (Bool, Json) => &BOOL_TO_JSON,
        (Timestamp, Str) => &TIMESTAMP_TO_STR,
        (Date, Str) => &DATE_TO_STR,
        (Date, Timestamp) => &DATE_TO_TIMESTAMP,
        _ => return None,
    })
}

/// How to get a `to` from a `from` value the compiler does not convert by
/// itself, the one wording of every "cannot convert" hint: float to integer
/// needs a chosen rounding; a conversion only a cast makes is written with
/// `as`; else there is none.
pub fn conversion_hint(from: PortType, to: PortType) -> String {
    let integer = matches!(to, U64 | I64 | U32 | I32) || to.is_wide_integer();
    if matches!(from, F64 | F32 | PortType::F16) && integer {
        return "choose how to round: f64_to_u64(x) truncates, or use round_to_u64(x), floor_to_u64(x) or ceil_to_u64(x)"
            .to_string();
    }
    match cast_node(from, to) {
        Some(_) => format!("convert it explicitly, e.g. `... as {to}`"),
        None => format!("there is no conversion from {from} to {to}"),
    }
}

/// The node an explicit `x as T` cast uses to turn `from` into `to`: a class-A
/// adapter when there is one, else a strict string parser. Float-to-integer
/// narrowing has none on purpose (it needs `f64_to_u64`, `round_to_u64`, ...).
pub fn cast_node(from: PortType, to: PortType) -> Option<&'static NodeDef> {
    auto_adapter(from, to)
        .or(narrow::cast_node(from, to))
        .or(float16::cast_node(from, to))
        .or(crate::nodes::wide::cast_node(from, to))
        .or(match (from, to) {
            // The target's precision and scale are the node's `type` constant
            // (`cast_wire` gives it).
            (
                U64 | I64 | U32 | I32 | U16 | I16 | U8 | I8 | PortType::U128 | PortType::I128 | F64 | F32 | Decimal(_),
                Decimal(_),
            ) => Some(&crate::nodes::decimal::TO_DECIMAL),
            (Decimal(_), F64) => Some(&crate::nodes::decimal::DECIMAL_TO_F64),
            (Decimal(_), I64) => Some(&crate::nodes::decimal::DECIMAL_TO_I64),
            (Str, U64) => Some(&STR_TO_U64_CAST),
            (Str, F64) => Some(&STR_TO_F64_CAST),
            (Str, Bool) => Some(&STR_TO_BOOL_CAST),
            (Str, I64) => Some(&STR_TO_I64_CAST),
            (Str, U32) => Some(&STR_TO_U32_CAST),
            (Str, I32) => Some(&STR_TO_I32_CAST),
            (Str, F32) => Some(&STR_TO_F32_CAST),
            (Str, Date) => Some(&STR_TO_DATE_CAST),
            (Str, Timestamp) => Some(&STR_TO_TIMESTAMP_CAST),
            (U64, I64) => Some(&U64_TO_I64),
            (U64, U32) => Some(&U64_TO_U32),
            (U64, I32) => Some(&U64_TO_I32),
            (I64, U64) => Some(&I64_TO_U64),
            (I64, U32) => Some(&I64_TO_U32),
            (I64, I32) => Some(&I64_TO_I32),
            (U32, I32) => Some(&U32_TO_I32),
            (I32, U64) => Some(&I32_TO_U64),
            (I32, U32) => Some(&I32_TO_U32),
            (F64, F32) => Some(&F64_TO_F32),
            (F64, Json) => Some(&F64_TO_JSON),
            (Json, U64) => Some(&JSON_TO_U64),
            (Json, I64) => Some(&JSON_TO_I64),
            (Json, F64) => Some(&JSON_TO_F64),
            (Json, Bool) => Some(&JSON_TO_BOOL),
            (Bytes, U64) => Some(&BYTES_TO_U64),
            (Bytes, I64) => Some(&BYTES_TO_I64),
            (Bytes, U32) => Some(&BYTES_TO_U32),
            (Bytes, I32) => Some(&BYTES_TO_I32),
            (Bytes, F64) => Some(&BYTES_TO_F64),
            (Bytes, F32) => Some(&BYTES_TO_F32),
            (Bytes, Bool) => Some(&BYTES_TO_BOOL),
            (U64, Timestamp) => Some(&U64_TO_TIMESTAMP),
            (I64, Timestamp) => Some(&I64_TO_TIMESTAMP),
            (Timestamp, I64) => Some(&TIMESTAMP_TO_I64),
            (Timestamp, Date) => Some(&TIMESTAMP_TO_DATE),
            (U64, Date) => Some(&U64_TO_DATE),
            (I32, Date) => Some(&I32_TO_DATE),
            (Date, I32) => Some(&DATE_TO_I32),
            (I64, Date) => Some(&I64_TO_DATE),
            (Date, I64) => Some(&DATE_TO_I64),
            _ => None,
        })
}

/// `trunc_u64`: Truncates toward zero; saturating (negative to 0, past u64::MAX to u64::MAX), NaN gives 0.
pub const TRUNC_U64: NodeDef = NodeDef {
    name: "trunc_u64",
    category: "convert",
    doc: "Truncates toward zero, saturating (below 0 gives 0, above u64::MAX gives u64::MAX); NaN gives 0.",
    params: &[wire("input", F64)],
    build: |_| Ok(map1(|x: f64| if x.is_nan() { 0 } else { x.trunc().max(0.0).min(u64::MAX as f64) as u64 })),
    lower: LOWER_TRUNCATING,
    ..NodeDef::BASE
};

/// `round_u64`: Rounds half away from zero, saturating; NaN gives 0.
pub const ROUND_U64: NodeDef = NodeDef {
    name: "round_u64",
    category: "convert",
    doc: "Rounds half away from zero, saturating (below 0 gives 0, above u64::MAX gives u64::MAX); NaN gives 0.",
    params: &[wire("input", F64)],
    build: |_| Ok(map1(|x: f64| if x.is_nan() { 0 } else { x.round().max(0.0).min(u64::MAX as f64) as u64 })),
    lower: LOWER_ROUNDING,
    ..NodeDef::BASE
};

/// `discretize`: the bucket of x among `buckets` equal-width bins of [0, range), clamped.
pub const DISCRETIZE: NodeDef = NodeDef {
    name: "discretize",
    category: "convert",
    doc: "The bucket of x among `buckets` equal-width bins of [0, range): floor(clamp(x, 0, range - eps) / range * buckets), at most buckets - 1.",
    params: &[wire("input", F64), konst_or("range", F64, Lit::F64(100.0)), konst_or("buckets", U64, Lit::U64(10))],
    build: |c| {
        let (range, buckets) = (c.f64(0), c.u64(1));
        let hi = range - f64::EPSILON;
        if hi.is_nan() || hi < 0.0 {
            // Upstream clamps with these bounds and `f64::clamp` panics on
            // every evaluation; fail the same way, in Rust's words.
            let msg = format!("min > max, or either was NaN. min = {:?}, max = {hi:?}", 0.0f64);
            return Ok(try_map1(move |_: f64| Err::<u64, _>(msg.clone())));
        }
        Ok(map1(move |x: f64| ((x.clamp(0.0, hi) / range * buckets as f64) as u64).min(buckets.saturating_sub(1))))
    },
    warns: |c| {
        let hi = c.f64(0) - f64::EPSILON;
        (hi.is_nan() || hi < 0.0).then(|| "the range is below f64::EPSILON (or NaN), so every evaluation of this node fails".into())
    },
    testing: Testing {
        samples: &[("range", Samples::F64(&[100.0, 1.0, 0.5, 1e6])), ("buckets", Samples::U64(&[10, 0, 1, 7]))],
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// The conversion family (explicit nodes and adapters).
pub const NODES: &[NodeDef] = &[
    TRUNC_U64,
    ROUND_U64,
    DISCRETIZE,
    LITERAL,
    CONST_CAPTURE,
    TO_F64,
    F64_TO_U64,
    ROUND_TO_U64,
    FLOOR_TO_U64,
    CEIL_TO_U64,
    STR_TO_U64,
    STR_TO_U64_CAST,
    STR_TO_F64_CAST,
    U64_TO_F64,
    I64_TO_F64,
    U32_TO_F64,
    I32_TO_F64,
    F32_TO_F64,
    U32_TO_U64,
    U32_TO_I64,
    I32_TO_I64,
    BOOL_TO_U64,
    BOOL_TO_F64,
    U64_TO_BOOL,
    U64_TO_STR,
    I64_TO_STR,
    U32_TO_STR,
    I32_TO_STR,
    F64_TO_STR,
    F32_TO_STR,
    BOOL_TO_STR,
    U64_TO_BYTES,
    TIMESTAMP_TO_STR,
    DATE_TO_STR,
    DATE_TO_TIMESTAMP,
    U64_TO_TIMESTAMP,
    I64_TO_TIMESTAMP,
    TIMESTAMP_TO_I64,
    TIMESTAMP_TO_DATE,
    U64_TO_DATE,
    I32_TO_DATE,
    DATE_TO_I32,
    DATE_TO_I64,
    I64_TO_DATE,
    BOOL_TO_I64,
    BOOL_TO_U32,
    BOOL_TO_I32,
    BOOL_TO_F32,
    I64_TO_BOOL,
    U32_TO_BOOL,
    I32_TO_BOOL,
    F64_TO_BOOL,
    F32_TO_BOOL,
    JSON_TO_STR_ADAPTER,
    I64_TO_BYTES,
    U32_TO_BYTES,
    I32_TO_BYTES,
    F64_TO_BYTES,
    F32_TO_BYTES,
    BOOL_TO_BYTES,
    U64_TO_JSON,
    I64_TO_JSON,
    U32_TO_JSON,
    I32_TO_JSON,
    BOOL_TO_JSON,
    U64_TO_I64,
    U64_TO_U32,
    U64_TO_I32,
    I64_TO_U64,
    I64_TO_U32,
    I64_TO_I32,
    U32_TO_I32,
    I32_TO_U64,
    I32_TO_U32,
    F64_TO_F32,
    F64_TO_JSON,
    STR_TO_BOOL_CAST,
    STR_TO_I64_CAST,
    STR_TO_U32_CAST,
    STR_TO_I32_CAST,
    STR_TO_F32_CAST,
    STR_TO_DATE_CAST,
    STR_TO_TIMESTAMP_CAST,
    JSON_TO_U64,
    JSON_TO_I64,
    JSON_TO_F64,
    JSON_TO_BOOL,
    BYTES_TO_U64,
    BYTES_TO_I64,
    BYTES_TO_U32,
    BYTES_TO_I32,
    BYTES_TO_F64,
    BYTES_TO_F32,
    BYTES_TO_BOOL,
];

/// Every (from, to) pair the compiler converts on a wire by itself (the
/// class-A catalog, [`auto_adapter`]), for frontends and documentation.
pub fn implicit_conversions() -> Vec<(PortType, PortType)> {
    conversion_pairs(auto_adapter)
}

/// Every (from, to) pair an explicit `x as T` cast accepts ([`cast_node`]).
pub fn cast_conversions() -> Vec<(PortType, PortType)> {
    conversion_pairs(cast_node)
}

fn conversion_pairs(table: fn(PortType, PortType) -> Option<&'static NodeDef>) -> Vec<(PortType, PortType)> {
    let all = PortType::ALL;
    all.iter().flat_map(|&from| all.iter().map(move |&to| (from, to))).filter(|&(f, t)| table(f, t).is_some()).collect()
}

/// Reads `text` as a value of type `ty`, the way a command line spells one
/// (`--set name=value`): integers in decimal or `0x` hex (range-checked),
/// floats as Rust parses them (`inf`, `NaN`, `1e3`), bools as
/// `true`/`false`/`1`/`0` (any case), `str` and `json` as the text itself,
/// `bytes` as the text's UTF-8 bytes, a `timestamp` as epoch milliseconds or
/// ISO text (`1992-01-01T12:30:00Z`, UTC), a `date` as days since 1970-01-01
/// or `YYYY-MM-DD`. Surrounding whitespace is ignored for
/// numbers and bools. The error says what was expected.
pub fn parse_text(text: &str, ty: PortType) -> Result<Value, String> {
    fn int(t: &str) -> Option<i128> {
        let (neg, digits) = match t.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, t.strip_prefix('+').unwrap_or(t)),
        };
        let magnitude = match digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
            Some(hex) => i128::from_str_radix(hex, 16).ok()?,
            None if digits.bytes().all(|b| b.is_ascii_digit()) => digits.parse::<i128>().ok()?,
            None => return None,
        };
        Some(if neg { -magnitude } else { magnitude })
    }
    let t = text.trim();
    let bad = |what: &str| format!("cannot read {text:?} as {ty}: expected {what}");
    let ranged = |lo: i128, hi: i128| {
        int(t).filter(|v| (lo..=hi).contains(v)).ok_or_else(|| bad(&format!("an integer in {lo}..={hi}")))
    };
    Ok(match ty {
        U64 | I64 | U32 | I32 | U16 | I16 | U8 | I8 => {
            let (lo, hi) = ty.integer_range().expect("an integer type has a range");
            Value::integer_of(ty, ranged(lo, hi)?).expect("a value in range is a value of the type")
        }
        PortType::U128 | PortType::I128 => {
            let range = if ty == PortType::U128 { "0..=2^128-1" } else { "-2^127..=2^127-1" };
            crate::wide::parse_any_int(t)
                .and_then(|v| v.to_type(ty))
                .ok_or_else(|| bad(&format!("a decimal integer in {range}")))?
        }
        F64 => Value::F64(t.parse::<f64>().map_err(|_| bad("a number"))?),
        F32 => Value::F32(t.parse::<f32>().map_err(|_| bad("a number"))?),
        PortType::F16 => {
            Value::F16(float16::read_f16(t).map_err(|e| bad(&format!("a number within f16's range ({e})")))?)
        }
        Bool => Value::Bool(read_bool(t).ok_or_else(|| bad("true, false, 1 or 0"))?),
        Str => Value::str(text),
        Json => Value::Json(text.into()),
        Bytes => Value::Bytes(text.as_bytes().into()),
        Vector(v) => crate::vector::parse(v, t).map_err(|e| format!("cannot read {text:?} as {ty}: {e}"))?,
        Timestamp => match int(t) {
            Some(ms) => {
                let ms = i64::try_from(ms).map_err(|_| bad("milliseconds that fit in i64"))?;
                Value::Timestamp(timestamp_millis(ms).map_err(|nat| format!("cannot read {text:?} as {ty}: {nat}"))?)
            }
            None => Value::Timestamp(
                parse_iso_millis(t)
                    .ok_or_else(|| bad("epoch milliseconds or an ISO date-time such as 1992-01-01T12:30:00Z (UTC)"))?,
            ),
        },
        Decimal(d) => {
            let literal =
                crate::decimal::Decimal::parse_literal(t).map_err(|_| bad("a decimal number such as 12.34"))?;
            Value::Decimal(literal.rescale(d).map_err(|e| format!("cannot read {text:?} as {ty}: {e}"))?)
        }
        Date => match int(t) {
            Some(days) => Value::Date(i32::try_from(days).map_err(|_| bad("days that fit in i32"))?),
            None => match parse_iso_millis(t) {
                Some(ms) if ms.rem_euclid(MS_PER_DAY) == 0 && !t.contains([':', 'T', 't']) => {
                    Value::Date(i32::try_from(ms / MS_PER_DAY).map_err(|_| bad("a day that fits in i32"))?)
                }
                _ => return Err(bad("days since 1970-01-01 or an ISO date such as 1992-01-01")),
            },
        },
    })
}

/// `value` is NaT written where a timestamp is converted: a timestamp of
/// [`crate::calendar::NAT`], or that integer given to a timestamp slot
/// ([`crate::calendar::timestamp_millis`] refuses it).
pub fn is_nat(value: &Value, to: PortType) -> bool {
    match value {
        Value::Timestamp(ms) => timestamp_millis(*ms).is_err(),
        Value::I64(ms) => to == Timestamp && timestamp_millis(*ms).is_err(),
        _ => false,
    }
}

/// The boundary catalog: converts a value crossing into a slot of type `to`
/// (a host write, a parent-to-child copy). It admits the lossless numeric
/// widenings, and the conversions that are only safe on a checked value:
/// range-checked narrowings and sign changes, integral floats into integers,
/// integers into floats only when the float holds them exactly, bool from 0
/// or 1, JSON text into a `json` slot when it parses, and a JSON array (or
/// its text) into a list slot (`vec_i32`, ...) when every element fits.
/// Text is otherwise never
/// parsed into a number or a bool here (`"7"` into a u64 slot is refused: read
/// text with [`parse_text`]), and numbers are never rendered into text.
/// `None` passes (it clears a slot); anything else that does not fit is
/// returned as `Err` unchanged.
pub fn boundary_value(value: Value, to: PortType) -> Result<Value, Value> {
    use Value as V;
    if is_nat(&value, to) {
        return Err(value);
    }
    if value.is_none() || value.port_type() == Some(to) {
        return Ok(value);
    }
    if to.is_wide_integer() {
        // Any integer or bool that fits; a float only when it is whole.
        let int = match &value {
            V::F64(x) if x.is_finite() && x.fract() == 0.0 && x.abs() < 2e38 => {
                Some(crate::wide::AnyInt::Fits(*x as i128))
            }
            V::F32(x) if x.is_finite() && x.fract() == 0.0 && x.abs() < 2e38 => {
                Some(crate::wide::AnyInt::Fits(*x as i128))
            }
            other => crate::wide::AnyInt::of(other),
        };
        return int.and_then(|i| i.to_type(to)).ok_or(value);
    }
    let integer = match &value {
        V::U128(b) => i128::try_from(b.as_u128()).ok(),
        V::I128(b) => Some(b.as_i128()),
        other => other.as_integer(),
    };
    let int = match &value {
        _ if integer.is_some() => integer,
        V::Bool(b) => Some(*b as i128),
        V::F64(x) if x.is_finite() && x.fract() == 0.0 && x.abs() < 2e19 => Some(*x as i128),
        V::F32(x) if x.is_finite() && x.fract() == 0.0 && x.abs() < 2e19 => Some(*x as i128),
        _ => None,
    };
    let float = match &value {
        V::F64(x) => Some(*x),
        V::F32(x) => Some(*x as f64),
        V::F16(x) => Some(x.to_f64()),
        // An integer becomes a float only when the float holds it exactly.
        _ => int.filter(|&i| (i as f64) as i128 == i && (i as f64) != 2f64.powi(64)).map(|i| i as f64),
    };
    let converted = match to {
        U64 | I64 | U32 | I32 | U16 | I16 | U8 | I8 => int.and_then(|i| V::integer_of(to, i)),
        PortType::U128 | PortType::I128 => unreachable!("handled above"),
        F64 => float.map(V::F64),
        F32 => float.filter(|f| f.is_nan() || (*f as f32) as f64 == *f).map(|f| V::F32(f as f32)),
        // A host float rounds to the nearest f16 (most decimals have no exact
        // one); a finite value past f16's range is refused, as `as f16` does.
        PortType::F16 => float.and_then(|f| float16::narrow_to_f16(f).ok()).map(V::F16),
        Bool => integer.filter(|i| *i == 0 || *i == 1).map(|i| V::Bool(i == 1)),
        Json => match &value {
            V::Str(text) if serde_json::from_str::<serde_json::Value>(text).is_ok() => Some(V::Json(text.clone())),
            _ => None,
        },
        // A host that writes a number into a string slot has made a mistake
        // worth reporting; wires get their Display adapters from class A instead.
        Str | Bytes => None,
        // A list of its own type passed above; a host's list arrives as a
        // JSON array (a Python list, or its text) and fits when every
        // element does.
        Vector(t) => match &value {
            V::Json(text) | V::Str(text) => crate::vector::parse_host(t, text).ok(),
            _ => None,
        },
        // Epoch milliseconds or days as integers; a date widens to its midnight.
        Timestamp => match &value {
            V::Date(d) => Some(V::Timestamp(i64::from(*d) * MS_PER_DAY)),
            _ => integer.and_then(|i| i64::try_from(i).ok()).map(V::Timestamp),
        },
        // Another decimal when no digit is lost, an integer that fits.
        Decimal(d) => match &value {
            V::Decimal(x) => x.rescale(d).ok().filter(|y| crate::decimal::compare(*x, *y).is_eq()).map(V::Decimal),
            _ => integer.and_then(|i| crate::decimal::Decimal::from_int(i, d).ok()).map(V::Decimal),
        },
        Date => match &value {
            // An instant at a midnight is that day.
            V::Timestamp(ms) if ms.rem_euclid(MS_PER_DAY) == 0 => {
                i32::try_from(ms.div_euclid(MS_PER_DAY)).ok().map(V::Date)
            }
            _ => integer.and_then(|i| i32::try_from(i).ok()).map(V::Date),
        },
    };
    converted.ok_or(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::{eval, eval1, eval_err};

    #[test]
    fn narrowing_conversions_saturate() {
        let f = |d: &NodeDef, x: f64| eval1(d, &[], &[Value::F64(x)]).as_u64().unwrap();
        assert_eq!(f(&F64_TO_U64, -3.7), 0);
        assert_eq!(f(&F64_TO_U64, 3.7), 3);
        assert_eq!(f(&F64_TO_U64, f64::NAN), 0);
        assert_eq!(f(&F64_TO_U64, f64::INFINITY), u64::MAX);
        assert_eq!(f(&ROUND_TO_U64, 2.5), 3);
        assert_eq!(f(&ROUND_TO_U64, 1e30), u64::MAX);
        assert_eq!(f(&FLOOR_TO_U64, 2.9), 2);
        assert_eq!(f(&CEIL_TO_U64, 2.1), 3);
    }

    #[test]
    fn adapters_are_total_and_never_narrow() {
        assert!(eval1(&U64_TO_F64, &[], &[Value::U64(u64::MAX)]).same(&Value::F64(18446744073709551615.0)));
        assert!(eval1(&F64_TO_STR, &[], &[Value::F64(1.0)]).as_str() == Some("1"));
        assert!(eval1(&I32_TO_I64, &[], &[Value::I32(-1)]).same(&Value::I64(-1)));
        assert!(auto_adapter(F64, U64).is_none(), "narrowing is never automatic");
    }

    #[test]
    fn literal_has_scalar_slot_form() {
        let v = eval1(&LITERAL, &[Value::F64(-0.0)], &[]);
        assert!(v.same(&Value::F64(-0.0)));
    }

    #[test]
    fn lenient_string_parse() {
        let f = |s: &str| eval1(&STR_TO_U64, &[], &[Value::str(s)]).as_u64().unwrap();
        assert_eq!(f(" 4242 "), 4242);
        assert_eq!(f("4242x"), 0);
        assert_eq!(f(""), 0);
        assert_eq!(f("-1"), 0);
        assert_eq!(f("18446744073709551615"), u64::MAX);
        assert_eq!(f("18446744073709551616"), 0);
    }

    #[test]
    fn strict_string_casts() {
        let v = eval1(&STR_TO_U64_CAST, &[], &[Value::str("\t17\n")]);
        assert!(v.same(&Value::U64(17)));
        // Upstream library/convert.rs `coercion_diagnostic` wording, about the trimmed text.
        assert_eq!(
            eval_err(&STR_TO_U64_CAST, &[], &[Value::str(" 12x ")]),
            "value \"12x\" is not a whole number.\n\n(coercion detail: __str_to_u64: invalid digit found in string)"
        );
        assert_eq!(
            eval_err(&STR_TO_U64_CAST, &[], &[Value::str("")]),
            "value \"\" is not a whole number.\n\n(coercion detail: __str_to_u64: cannot parse integer from empty string)"
        );
        let v = eval1(&STR_TO_F64_CAST, &[], &[Value::str(" -0.0 ")]);
        assert!(v.same(&Value::F64(-0.0)));
        let v = eval1(&STR_TO_F64_CAST, &[], &[Value::str("inf")]);
        assert!(v.same(&Value::F64(f64::INFINITY)));
        assert_eq!(
            eval_err(&STR_TO_F64_CAST, &[], &[Value::str("one")]),
            "value \"one\" is not a number.\n\n(coercion detail: __str_to_f64: invalid float literal)"
        );
    }

    #[test]
    fn explicit_casts() {
        assert_eq!(cast_node(U64, F64).unwrap().name, "__u64_to_f64");
        assert_eq!(cast_node(Str, U64).unwrap().name, "__str_to_u64");
        assert_eq!(cast_node(Str, F64).unwrap().name, "__str_to_f64");
        assert!(cast_node(F64, U64).is_none(), "f64 as u64 is a compile error");
        assert!(cast_node(F64, I64).is_none(), "every float-to-integer cast needs a chosen rounding");
        assert_eq!(cast_node(Str, Bool).unwrap().name, "__str_to_bool");
    }

    #[test]
    fn upstream_class_b_casts_check_what_they_read() {
        let cast = |from: PortType, to: PortType, v: Value| eval(cast_node(from, to).unwrap(), &[], &[v]);
        let ok = |from: PortType, to: PortType, v: Value| cast(from, to, v).unwrap().remove(0);
        assert!(ok(Str, Bool, Value::str(" True ")).same(&Value::Bool(true)));
        assert!(ok(Str, Bool, Value::str("0")).same(&Value::Bool(false)));
        assert!(cast(Str, Bool, Value::str("yes")).unwrap_err().message().starts_with("value \"yes\" is not a bool."));
        assert!(ok(U64, U32, Value::U64(7)).same(&Value::U32(7)));
        assert_eq!(cast(U64, U32, Value::U64(1 << 32)).unwrap_err().message(), "value 4294967296 does not fit in u32");
        assert!(cast(I64, U64, Value::I64(-1)).is_err());
        assert!(ok(F64, F32, Value::F64(0.5)).same(&Value::F32(0.5)));
        assert!(cast(F64, F32, Value::F64(1e300)).is_err(), "a finite value past f32's range");
        assert!(ok(Json, U64, Value::Json("12".into())).same(&Value::U64(12)));
        assert!(cast(Json, U64, Value::Json("\"12\"".into())).is_err());
        assert!(ok(Bytes, U64, Value::Bytes(7u64.to_le_bytes().to_vec().into())).same(&Value::U64(7)));
        assert!(cast(Bytes, U64, Value::Bytes(vec![1, 2].into())).unwrap_err().message().contains("takes 8"));
        assert!(cast(F64, Json, Value::F64(f64::NAN)).is_err());
        let auto = |from: PortType, to: PortType, v: Value| eval1(auto_adapter(from, to).unwrap(), &[], &[v]);
        assert!(auto(Bool, I64, Value::Bool(true)).same(&Value::I64(1)));
        assert!(auto(F64, Bool, Value::F64(0.0)).same(&Value::Bool(false)));
        assert!(auto(U64, Json, Value::U64(5)).same(&Value::Json("5".into())));
        assert!(auto(Json, Str, Value::Json("[1]".into())).same(&Value::str("[1]")));
        assert!(auto(Bool, Bytes, Value::Bool(true)).same(&Value::Bytes(vec![1].into())));
    }

    #[test]
    fn text_is_read_by_the_slot_type() {
        let ok = |t: &str, ty: PortType| parse_text(t, ty).unwrap();
        assert!(ok(" 42 ", U64).same(&Value::U64(42)));
        assert!(ok("0x10", U64).same(&Value::U64(16)));
        assert!(ok("18446744073709551615", U64).same(&Value::U64(u64::MAX)));
        assert!(parse_text("18446744073709551616", U64).unwrap_err().contains("0..=18446744073709551615"));
        assert!(parse_text("-1", U64).is_err());
        assert!(ok("-1", I64).same(&Value::I64(-1)));
        assert!(parse_text("1.5", U64).is_err(), "no silent truncation");
        assert!(ok("-0.0", F64).same(&Value::F64(-0.0)));
        assert!(ok("TRUE", Bool).same(&Value::Bool(true)));
        assert!(parse_text("yes", Bool).unwrap_err().contains("true, false, 1 or 0"));
        assert!(ok(" eu west ", Str).same(&Value::str(" eu west ")), "strings keep their spaces");
        // 24 of the 128-bit integers: into u128 from 4 unsigned types and
        // bool, into i128 from 8 integer types and bool, and from each of the
        // two into f64, str, bool, bytes and json.
        assert_eq!(
            implicit_conversions().len(),
            44 + narrow::ADAPTERS.len() + float16::ADAPTERS.len() + 24,
            "with decimal to str"
        );
        assert!(ok(" 340282366920938463463374607431768211455 ", PortType::U128).same(&Value::u128(u128::MAX)));
        assert!(ok("-1", PortType::I128).same(&Value::i128(-1)));
        assert!(parse_text("-1", PortType::U128).unwrap_err().contains("0..=2^128-1"));
        assert!(parse_text("1e3", PortType::I128).unwrap_err().contains("cannot read \"1e3\" as i128"));
        assert!(ok("255", U8).same(&Value::U8(255)));
        assert!(parse_text("256", U8).unwrap_err().contains("an integer in 0..=255"));
        assert!(ok("-0x80", I8).same(&Value::I8(-128)));
        assert!(parse_text("-129", I8).unwrap_err().contains("-128..=127"));
        assert!(ok("65535", U16).same(&Value::U16(u16::MAX)));
        assert!(parse_text("32768", I16).unwrap_err().contains("-32768..=32767"));
        assert!(cast_conversions().contains(&(Str, U64)));
        assert!(ok("1992-01-01", Date).same(&Value::Date(8035)));
        assert!(ok("8035", Date).same(&Value::Date(8035)));
        assert!(parse_text("1992-01-01T10:00", Date).is_err(), "a date is a whole day");
        assert!(ok("1992-01-01T00:00:01.5Z", Timestamp).same(&Value::Timestamp(8035 * MS_PER_DAY + 1500)));
        assert!(ok("-5", Timestamp).same(&Value::Timestamp(-5)));
        assert!(parse_text("1992-02-30", Timestamp).unwrap_err().contains("ISO date-time"));
    }

    #[test]
    fn dates_and_timestamps_are_read_from_text_and_i64() {
        let cast = |from: PortType, to: PortType, v: Value| eval(cast_node(from, to).unwrap(), &[], &[v]);
        assert!(cast(Str, Date, Value::str(" 1992-01-01 ")).unwrap()[0].same(&Value::Date(8035)));
        assert!(cast(Str, Date, Value::str("-1")).unwrap()[0].same(&Value::Date(-1)));
        let e = cast(Str, Date, Value::str("1992-02-30")).unwrap_err();
        assert!(e.message().starts_with("value \"1992-02-30\" is not a date."), "{}", e.message());
        assert!(cast(Str, Timestamp, Value::str("1970-01-01T00:00:01Z")).unwrap()[0].same(&Value::Timestamp(1000)));
        assert!(cast(I64, Date, Value::I64(-7305)).unwrap()[0].same(&Value::Date(-7305)));
        assert_eq!(
            cast(I64, Date, Value::I64(1 << 31)).unwrap_err().message(),
            "value 2147483648 does not fit in date"
        );
        assert!(cast(Date, I64, Value::Date(-3)).unwrap()[0].same(&Value::I64(-3)));
    }

    #[test]
    fn calendar_casts_and_boundary_writes() {
        let cast = |from: PortType, to: PortType, v: Value| eval1(cast_node(from, to).unwrap(), &[], &[v]);
        assert!(cast(U64, Timestamp, Value::U64(u64::MAX)).same(&Value::Timestamp(i64::MAX)), "saturates");
        assert!(cast(Timestamp, Date, Value::Timestamp(-1)).same(&Value::Date(-1)), "the UTC day, floored");
        assert!(cast(Date, Timestamp, Value::Date(2)).same(&Value::Timestamp(2 * MS_PER_DAY)));
        assert!(cast(Date, Str, Value::Date(8035)).same(&Value::str("1992-01-01")));
        assert!(cast(Timestamp, Str, Value::Timestamp(0)).same(&Value::str("1970-01-01T00:00:00.000Z")));
        assert!(cast(Timestamp, I64, Value::Timestamp(-7)).same(&Value::I64(-7)));
        assert!(auto_adapter(U64, Timestamp).is_none(), "a number becomes an instant only by an explicit cast");
        assert!(boundary_value(Value::U64(5), Timestamp).unwrap().same(&Value::Timestamp(5)));
        assert!(boundary_value(Value::Date(1), Timestamp).unwrap().same(&Value::Timestamp(MS_PER_DAY)));
        assert!(boundary_value(Value::Timestamp(MS_PER_DAY), Date).unwrap().same(&Value::Date(1)));
        assert!(boundary_value(Value::Timestamp(1), Date).is_err(), "not a midnight");
        assert!(boundary_value(Value::I64(i64::from(i32::MAX) + 1), Date).is_err());
        assert!(boundary_value(Value::str("1992-01-01"), Date).is_err(), "text is never parsed at the boundary");
    }

    #[test]
    fn nat_is_no_timestamp_wherever_one_is_converted() {
        use crate::calendar::{NAT, NAT_REFUSED};
        assert!(boundary_value(Value::Timestamp(NAT), Timestamp).is_err());
        assert!(boundary_value(Value::I64(NAT), Timestamp).is_err());
        assert!(boundary_value(Value::I64(NAT), I64).is_ok(), "only a timestamp refuses it");
        assert!(boundary_value(Value::Timestamp(NAT + 1), Timestamp).is_ok());
        let e = parse_text(&NAT.to_string(), Timestamp).unwrap_err();
        assert!(e.ends_with(NAT_REFUSED), "{e}");
        let e = crate::engine::adapt_boundary("t", Timestamp, Value::Timestamp(NAT)).unwrap_err().to_string();
        assert_eq!(e, format!("input 't' is timestamp, cannot write {NAT_REFUSED}"));
    }

    #[test]
    fn boundary_catalog_checks_what_it_narrows() {
        let ok = |v: Value, t: PortType| boundary_value(v, t).unwrap();
        assert!(ok(Value::U64(7), F64).same(&Value::F64(7.0)));
        assert!(ok(Value::I64(5), U64).same(&Value::U64(5)));
        assert!(boundary_value(Value::I64(-1), U64).is_err(), "sign is checked");
        assert!(boundary_value(Value::U64(1 << 40), U32).is_err(), "range is checked");
        assert!(ok(Value::U64(255), U8).same(&Value::U8(255)));
        assert!(boundary_value(Value::U64(256), U8).is_err());
        assert!(ok(Value::I64(-128), I8).same(&Value::I8(-128)));
        assert!(boundary_value(Value::I64(-129), I8).is_err());
        assert!(ok(Value::I8(-1), I64).same(&Value::I64(-1)));
        assert!(ok(Value::F64(65535.0), U16).same(&Value::U16(u16::MAX)));
        assert!(ok(Value::F64(3.0), U64).same(&Value::U64(3)));
        assert!(boundary_value(Value::F64(3.5), U64).is_err(), "only integral floats become ints");
        assert!(boundary_value(Value::str(" 42 "), U64).is_err(), "text is not parsed into numbers");
        assert!(boundary_value(Value::str("2.5"), F64).is_err());
        assert!(boundary_value(Value::str("true"), Bool).is_err(), "nor into bools");
        assert!(ok(Value::U64(1), Bool).same(&Value::Bool(true)));
        assert!(boundary_value(Value::F64(1.0), Bool).is_err());
        assert!(ok(Value::U64(1 << 53), F64).same(&Value::F64(9007199254740992.0)));
        assert!(boundary_value(Value::U64((1 << 63) + 1), F64).is_err(), "an int an f64 cannot hold is refused");
        assert!(boundary_value(Value::U64(u64::MAX), F64).is_err(), "u64::MAX rounds to 2^64");
        assert!(ok(Value::I64(-(1 << 53)), F64).same(&Value::F64(-9007199254740992.0)));
        assert!(ok(Value::str("{\"a\": [1, 2]}"), Json).same(&Value::Json("{\"a\": [1, 2]}".into())));
        assert!(boundary_value(Value::str("{nope"), Json).is_err(), "json must parse");
        assert!(boundary_value(Value::U64(12), Str).is_err(), "numbers are not silently rendered");
        assert!(ok(Value::None, U64).is_none(), "None clears a slot");
        assert!(boundary_value(Value::F64(0.1), F32).is_err(), "f32 only when exact");
    }

    #[test]
    fn explicit_narrowing_casts_are_upstreams() {
        let f = |d: &NodeDef, x: f64| eval1(d, &[], &[Value::F64(x)]).as_u64().unwrap();
        assert_eq!(f(&TRUNC_U64, 900.9), 900);
        assert_eq!(f(&ROUND_U64, 900.9), 901);
        assert_eq!(f(&ROUND_U64, 2.5), 3, "half away from zero");
        assert_eq!(f(&TRUNC_U64, -5.0), 0);
        assert_eq!(f(&ROUND_U64, f64::NAN), 0);
        assert_eq!(f(&TRUNC_U64, f64::INFINITY), u64::MAX);
        assert_eq!(f(&TRUNC_U64, -0.0), 0);
        assert_eq!(f(&ROUND_U64, 1e300), u64::MAX);
    }

    #[test]
    fn discretize_buckets_and_clamps() {
        let d = |x: f64| eval1(&DISCRETIZE, &[Value::F64(100.0), Value::U64(10)], &[Value::F64(x)]).as_u64().unwrap();
        assert_eq!((d(0.0), d(55.0), d(99.0), d(-5.0), d(200.0)), (0, 5, 9, 0, 9));
        assert_eq!(d(f64::NAN), 0);
        let z = eval1(&DISCRETIZE, &[Value::F64(1.0), Value::U64(0)], &[Value::F64(0.7)]);
        assert!(z.same(&Value::U64(0)), "no buckets: bucket 0");
        assert_eq!(
            eval_err(&DISCRETIZE, &[Value::F64(0.0), Value::U64(10)], &[Value::F64(0.5)]),
            "min > max, or either was NaN. min = 0.0, max = -2.220446049250313e-16"
        );
    }
}
