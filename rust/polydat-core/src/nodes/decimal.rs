//! Decimal family: `decimal(p, s)` arithmetic (`+ - *` become
//! `decimal_add`, `decimal_sub`, `decimal_mul`), comparisons, `round`, and
//! the conversions to and from other numbers. Every rule (result types,
//! overflow, rounding) is in [`crate::decimal`]; these nodes apply it. A
//! result with more digits than its type holds fails the row, naming the node.

use crate::decimal::{compare, round_type, Decimal, DecimalOp, IntToDecimal};
use crate::node::by_bytes::{Arg, BytesEval, OutRef, Sink};
use crate::node::kit::value_fn;
use crate::node::{
    konst, konst_or, wire_any, wire_decimal, Args, BuildCtx, Lit, NodeDef, NodeError, NodeEval, Outputs, Testing,
};
use crate::types::{DecimalType, PortType};
use crate::value::Value;
use std::cmp::Ordering;

/// The decimal parameters of wire `i` of a build (the node's params say it is one).
fn wire_decimal_type(c: &BuildCtx<'_>, i: usize) -> Result<DecimalType, String> {
    c.wire_types.get(i).and_then(|t| t.decimal()).ok_or_else(|| {
        format!("expects a decimal, got {}", c.wire_types.get(i).map_or("nothing".into(), |t| t.keyword()))
    })
}

/// The decimal a wire argument holds (the None rule keeps `None` out).
fn arg(v: &Value) -> Result<Decimal, String> {
    Num::of_value(v)?.dec()
}

/// The most wires a decimal-valued node reads.
const MAX_WIRES: usize = 2;

/// A wire value a decimal rule reads: an integer, a float or a decimal
/// (what the None rule lets through), held by value, so neither form builds
/// or drops a `Value` to hand it over.
#[derive(Clone, Copy, Debug)]
enum Num {
    /// Any integer type's value.
    Int(i128),
    /// An `f64` or `f32` value.
    Float(f64),
    /// A decimal.
    Dec(Decimal),
}

impl Num {
    /// The number P1 hands over as `v`.
    fn of_value(v: &Value) -> Result<Num, String> {
        if let Some(int) = v.as_integer() {
            return Ok(Num::Int(int));
        }
        Ok(match v {
            Value::F64(x) => Num::Float(*x),
            Value::F32(x) => Num::Float((*x).into()),
            Value::Decimal(d) => Num::Dec(*d),
            Value::I128(b) => Num::Int(b.as_i128()),
            Value::U128(b) => {
                Num::Int(i128::try_from(b.as_u128()).map_err(|_| format!("{} does not fit any decimal", b.as_u128()))?)
            }
            other => return Err(format!("cannot convert {other} to a decimal")),
        })
    }

    /// The decimal this is (a decimal node's decimal wire).
    #[inline]
    fn dec(self) -> Result<Decimal, String> {
        match self {
            Num::Dec(d) => Ok(d),
            Num::Int(n) => Err(format!("expected a decimal, got {n}")),
            Num::Float(x) => Err(format!("expected a decimal, got {x}")),
        }
    }
}

/// How a compiled kernel's argument of one wire type becomes a [`Num`],
/// decided once when the node is built rather than on every row. A
/// one-slot integer wire is no decimal node's: [`IntToDecimalFn`] converts it.
#[derive(Clone, Copy, Debug)]
enum WireRead {
    /// A decimal of this type: its 16 little-endian bytes.
    Dec(DecimalType),
    /// A 128-bit integer of this type: its 16 bytes.
    Wide(PortType),
    /// An `f64`: its bits.
    F64,
    /// An `f32`: its bits in the word's low half.
    F32,
    /// A type no decimal node reads (the build refuses it first).
    Other(PortType),
}

impl WireRead {
    /// The reader of a wire of type `ty`.
    fn of(ty: PortType) -> WireRead {
        match ty {
            PortType::Decimal(d) => WireRead::Dec(d),
            ty if ty.is_wide_integer() => WireRead::Wide(ty),
            PortType::F64 => WireRead::F64,
            PortType::F32 => WireRead::F32,
            ty => WireRead::Other(ty),
        }
    }

    /// The number a compiled kernel hands over as `arg`: a scalar's slot
    /// word, or a decimal's (or a 128-bit integer's) 16 bytes.
    #[inline]
    fn read(self, arg: Arg<'_>) -> Result<Num, NodeError> {
        Ok(match (self, arg) {
            (WireRead::Dec(d), arg) => Num::Dec(
                Decimal::from_bytes(arg.bytes()?, d)
                    .ok_or_else(|| NodeError::new("internal: a decimal is 16 bytes"))?,
            ),
            (WireRead::Wide(ty), arg) => {
                return Num::of_value(&Value::sixteen_bytes_row(arg.bytes()?, ty)).map_err(NodeError::new)
            }
            (WireRead::F64, Arg::Word(w)) => Num::Float(f64::from_bits(w)),
            (WireRead::F32, Arg::Word(w)) => Num::Float(f32::from_bits(w as u32).into()),
            (WireRead::Other(ty), _) => {
                return Err(NodeError::new(format!("internal: a decimal node was given a {} wire", ty.keyword())))
            }
            (read, _) => {
                return Err(NodeError::new(format!("internal: a decimal node's {read:?} wire is not a slot word")))
            }
        })
    }
}

/// A decimal-valued node from one rule `f` over its wire values, in both
/// forms: P1's, a `Value::Decimal`, and the by-bytes form the compiled
/// engines run, which reads a decimal wire's 16 bytes where they sit and
/// writes the result's 16 bytes straight into the output's buffer (no
/// slot-kit decode and encode).
struct DecimalFn<F> {
    /// How the by-bytes form reads each wire, in wire order (at most
    /// [`MAX_WIRES`]).
    reads: Box<[WireRead]>,
    f: F,
}

/// Wraps `f` as a decimal-valued node over wires of types `wires`.
fn decimal_fn<F>(wires: &[PortType], f: F) -> Box<dyn NodeEval>
where
    F: Fn(&[Num]) -> Result<Decimal, String> + Send + Sync + 'static,
{
    debug_assert!(wires.len() <= MAX_WIRES, "a decimal node reads at most two wires");
    Box::new(DecimalFn { reads: wires.iter().map(|&t| WireRead::of(t)).collect(), f })
}

impl<F: Fn(&[Num]) -> Result<Decimal, String> + Send + Sync> NodeEval for DecimalFn<F> {
    fn eval(&self, args: &Args<'_>, outs: &mut [Value]) -> Result<(), NodeError> {
        let mut ins = [Num::Int(0); MAX_WIRES];
        for (i, slot) in ins.iter_mut().enumerate().take(self.reads.len()) {
            *slot = Num::of_value(args.get(i))?;
        }
        outs[0] = Value::Decimal((self.f)(&ins[..self.reads.len()])?);
        Ok(())
    }
    fn bytes_form(&self) -> Option<&dyn BytesEval> {
        Some(self)
    }
}

impl<F: Fn(&[Num]) -> Result<Decimal, String> + Send + Sync> BytesEval for DecimalFn<F> {
    #[inline]
    fn eval_bytes(&self, args: &[Arg<'_>], out: Sink<'_>) -> Result<(), NodeError> {
        let mut ins = [Num::Int(0); MAX_WIRES];
        for ((slot, &arg), read) in ins.iter_mut().zip(args).zip(self.reads.iter()) {
            *slot = read.read(arg)?;
        }
        let d = (self.f)(&ins[..self.reads.len()])?;
        out.put(OutRef::Bytes(&d.to_bytes()))
    }
    /// The rule only appends the result's 16 bytes.
    fn appends(&self) -> bool {
        true
    }
}

/// `to_decimal` and `__to_decimal_times` over a one-slot integer wire: the
/// conversion's check and scaling decided at build ([`IntToDecimal`]), so
/// the by-bytes form is a compare, a multiply and a 16-byte append.
struct IntToDecimalFn {
    /// True when the wire's slot word is a signed integer (sign-extended).
    signed: bool,
    conversion: IntToDecimal,
}

impl IntToDecimalFn {
    /// The node applying `conversion` to a wire of type `from`, or `None`
    /// when `from` is no one-slot integer.
    fn of(from: PortType, conversion: IntToDecimal) -> Option<Box<dyn NodeEval>> {
        from.integer_range()?;
        Some(Box::new(IntToDecimalFn { signed: from.is_signed_integer(), conversion }))
    }
}

impl NodeEval for IntToDecimalFn {
    fn eval(&self, args: &Args<'_>, outs: &mut [Value]) -> Result<(), NodeError> {
        let n = args
            .get(0)
            .as_integer()
            .ok_or_else(|| NodeError::new(format!("expected an integer, got {}", args.get(0))))?;
        outs[0] = Value::Decimal(self.conversion.apply(n)?);
        Ok(())
    }
    fn bytes_form(&self) -> Option<&dyn BytesEval> {
        Some(self)
    }
}

impl BytesEval for IntToDecimalFn {
    #[inline]
    fn eval_bytes(&self, args: &[Arg<'_>], out: Sink<'_>) -> Result<(), NodeError> {
        let word = args
            .first()
            .copied()
            .ok_or_else(|| NodeError::new("internal: to_decimal reads one wire"))?
            .scalar::<u64>()?;
        // The word is the value as an i64 (sign-extended) or as a u64.
        let n = if self.signed { i128::from(word as i64) } else { i128::from(word) };
        let bytes = self.conversion.units(n)?.to_le_bytes();
        match out {
            Sink::Bytes(out) => out.extend_from_slice(&bytes),
            Sink::Text(_) => return Err(NodeError::new("internal: a decimal was given a text output")),
        }
        Ok(())
    }
    /// The rule only appends the result's 16 bytes.
    fn appends(&self) -> bool {
        true
    }
}

/// The result type of `op` over two decimal wires, or the representative
/// when either is not a decimal (the build refuses such a node).
fn arith_type(op: DecimalOp, types: &[PortType]) -> PortType {
    match (types.first().and_then(|t| t.decimal()), types.get(1).and_then(|t| t.decimal())) {
        (Some(a), Some(b)) => op.result_type(a, b).map_or(PortType::DECIMAL_SAMPLE, PortType::Decimal),
        _ => PortType::DECIMAL_SAMPLE,
    }
}

/// The node of `op`: `a op b` at its result type, failing on overflow.
fn build_arith(op: DecimalOp, c: &BuildCtx<'_>) -> Result<Box<dyn NodeEval>, String> {
    let (a, b) = (wire_decimal_type(c, 0)?, wire_decimal_type(c, 1)?);
    let out = op.result_type(a, b)?;
    Ok(decimal_fn(&[PortType::Decimal(a), PortType::Decimal(b)], move |ins| {
        op.apply(ins[0].dec()?, ins[1].dec()?, out)
    }))
}

/// What the suites know of a decimal node: it can fail (overflow), its
/// corner call (given per node) feeds it decimals made from the suite's u64
/// coordinates, and random programs do not draw it yet.
const TWO_DECIMALS: Testing = Testing { random: false, fallible: true, ..Testing::BASE };

macro_rules! arith {
    ($id:ident, $name:literal, $op:expr, $doc:literal, $call:literal) => {
        #[doc = $doc]
        pub const $id: NodeDef = NodeDef {
            name: $name,
            category: "decimal",
            doc: $doc,
            params: &[wire_decimal("a"), wire_decimal("b")],
            outputs: Outputs::Rule(|_, types| arith_type($op, types)),
            build: |c| build_arith($op, c),
            testing: Testing { corner_call: Some($call), ..TWO_DECIMALS },
            ..NodeDef::BASE
        };
    };
}

arith!(DECIMAL_ADD, "decimal_add", DecimalOp::Add,
    "a + b exactly, at the larger scale with one more whole digit (precision at most 38); fails when the sum has more digits.",
    "decimal_add(a as decimal(20,0), (b as decimal(20,0)) * 0.01d)");
arith!(DECIMAL_SUB, "decimal_sub", DecimalOp::Sub,
    "a - b exactly, at the larger scale with one more whole digit (precision at most 38); fails when the difference has more digits.",
    "decimal_sub(a as decimal(20,0), (b as decimal(20,0)) * 0.01d)");
arith!(
    DECIMAL_MUL,
    "decimal_mul",
    DecimalOp::Mul,
    "a * b exactly, scale s1 + s2 and precision p1 + p2 (at most 38); fails when the product has more digits.",
    "decimal_mul(a as decimal(20,0), (b as decimal(17,0)) * 0.01d)"
);

/// Declares a comparison of two decimals (of any types) answering 0 or 1.
macro_rules! cmp {
    ($id:ident, $name:literal, $doc:literal, |$o:ident| $holds:expr) => {
        #[doc = $doc]
        pub const $id: NodeDef = NodeDef {
            name: $name,
            category: "decimal",
            doc: $doc,
            params: &[wire_decimal("a"), wire_decimal("b")],
            outputs: Outputs::One(PortType::U64),
            build: |c| {
                wire_decimal_type(c, 0)?;
                wire_decimal_type(c, 1)?;
                Ok(value_fn(|args, outs| {
                    let $o = compare(arg(args.get(0))?, arg(args.get(1))?);
                    outs[0] = Value::U64(u64::from($holds));
                    Ok(())
                }))
            },
            testing: Testing {
                corner_call: Some(concat!($name, "(a as decimal(20,0), (b as decimal(20,0)) * 0.01d)")),
                ..TWO_DECIMALS
            },
            ..NodeDef::BASE
        };
    };
}

cmp!(DECIMAL_EQ, "decimal_eq", "1 if a == b (exactly, across scales: 1.5 == 1.50), else 0.", |o| o == Ordering::Equal);
cmp!(DECIMAL_NE, "decimal_ne", "1 if a != b (exactly, across scales), else 0.", |o| o != Ordering::Equal);
cmp!(DECIMAL_LT, "decimal_lt", "1 if a < b (exactly, across scales), else 0.", |o| o == Ordering::Less);
cmp!(DECIMAL_GT, "decimal_gt", "1 if a > b (exactly, across scales), else 0.", |o| o == Ordering::Greater);
cmp!(DECIMAL_LE, "decimal_le", "1 if a <= b (exactly, across scales), else 0.", |o| o != Ordering::Greater);
cmp!(DECIMAL_GE, "decimal_ge", "1 if a >= b (exactly, across scales), else 0.", |o| o != Ordering::Less);

/// The `digits` constant of `decimal_round` as a scale (at most 38).
fn round_digits(consts: &[Value]) -> u8 {
    match consts.first() {
        Some(Value::U64(d)) => (*d).min(38) as u8,
        _ => 0,
    }
}

/// `decimal_round`: x rounded half away from zero to `digits` places.
pub const DECIMAL_ROUND: NodeDef = NodeDef {
    name: "decimal_round",
    aliases: &["round_decimal"],
    category: "decimal",
    doc: "x rounded half away from zero to `digits` places after the point: decimal(p - s + digits + 1, digits) (x's own type when digits >= s).",
    params: &[wire_decimal("x"), konst_or("digits", PortType::U64, Lit::U64(0))],
    outputs: Outputs::Rule(|consts, types| match types.first().and_then(|t| t.decimal()) {
        Some(x) => PortType::Decimal(round_type(x, round_digits(consts))),
        None => PortType::DECIMAL_SAMPLE,
    }),
    build: |c| {
        let x = wire_decimal_type(c, 0)?;
        if c.u64(0) > 38 {
            return Err(format!("digits is {}: a decimal keeps at most 38", c.u64(0)));
        }
        let out = round_type(x, c.u64(0) as u8);
        Ok(decimal_fn(&[PortType::Decimal(x)], move |ins| ins[0].dec()?.rescale(out)))
    },
    testing: Testing { corner_call: Some("decimal_round((a as decimal(20,0)) * 0.001d, 1)"), ..TWO_DECIMALS },
    ..NodeDef::BASE
};

/// The target type a `to_decimal` constant names.
fn target_type(consts: &[Value]) -> Result<DecimalType, String> {
    let text = consts.first().and_then(Value::as_str).unwrap_or("");
    match PortType::parse(text)? {
        Some(PortType::Decimal(d)) => Ok(d),
        _ => Err(format!("type must be a decimal type such as \"decimal(15,2)\", got {text:?}")),
    }
}

/// `value` (an integer, a float or a decimal) as a decimal of type `to`.
fn convert(value: Num, to: DecimalType) -> Result<Decimal, String> {
    match value {
        Num::Int(n) => Decimal::from_int(n, to),
        Num::Float(x) => Decimal::from_f64(x, to),
        Num::Dec(d) => d.rescale(to),
    }
}

/// The type of the value a conversion to decimal reads: an integer, a
/// float or a decimal.
fn converted_wire(c: &BuildCtx<'_>) -> Result<PortType, String> {
    match c.wire_types.first() {
        Some(&t) if t.is_numeric() || t.decimal().is_some() => Ok(t),
        other => Err(format!(
            "converts integers, floats and decimals, not {}",
            other.map_or("nothing".into(), |t| t.keyword())
        )),
    }
}

/// `to_decimal`: what `x as decimal(p, s)` becomes.
pub const TO_DECIMAL: NodeDef = NodeDef {
    name: "to_decimal",
    category: "decimal",
    doc: "value (an integer, a float or a decimal) as the decimal type `type` names: integers exactly, floats and finer decimals rounded half away from zero; fails when the value does not fit (or is NaN or infinite).",
    params: &[wire_any("value"), konst("type", PortType::Str)],
    outputs: Outputs::Rule(|consts, _| target_type(consts).map_or(PortType::DECIMAL_SAMPLE, PortType::Decimal)),
    build: |c| {
        let to = target_type(c.consts)?;
        let from = converted_wire(c)?;
        if let Some(fast) = IntToDecimalFn::of(from, IntToDecimal::new(to, None)?) {
            return Ok(fast);
        }
        Ok(decimal_fn(&[from], move |ins| convert(ins[0], to)))
    },
    testing: Testing {
        corner_call: Some("to_decimal(x, \"decimal(15,2)\")"),
        random: false,
        fallible: true,
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// The factor a `__to_decimal_times` constant writes (decimal literal text).
fn factor_of(consts: &[Value]) -> Result<Decimal, String> {
    Decimal::parse_literal(consts.get(1).and_then(Value::as_str).unwrap_or(""))
}

/// The output type of a `__to_decimal_times` node built with `consts`.
fn times_output(consts: &[Value]) -> Result<DecimalType, String> {
    // The product's type, or why one step would not mean the cast and the multiply.
    IntToDecimal::new(target_type(consts)?, Some(factor_of(consts)?)).map(|c| c.out())
}

/// `__to_decimal_times`: `(value as decimal(p, s)) * factor` in one step.
/// Fusion makes it from a `to_decimal` whose one reader multiplies it by a
/// decimal literal (money as `(cents as decimal(13, 0)) * 0.01d`): the
/// conversion's rule and then the multiply's, with no step, slot or 16-byte
/// copy between them. It is made only where the product cannot overflow,
/// so its one failure is the conversion's, reported as `to_decimal`.
pub const TO_DECIMAL_TIMES: NodeDef = NodeDef {
    name: "__to_decimal_times",
    category: "decimal",
    doc: "(value as the decimal type `type` names) * factor, factor a decimal literal's text: what to_decimal then decimal_mul by that literal give, in one step; the two types' digits sum to at most 38, so only the conversion can fail.",
    params: &[wire_any("value"), konst("type", PortType::Str), konst("factor", PortType::Str)],
    outputs: Outputs::Rule(|consts, _| times_output(consts).map_or(PortType::DECIMAL_SAMPLE, PortType::Decimal)),
    build: |c| {
        let (to, factor) = (target_type(c.consts)?, factor_of(c.consts)?);
        let conversion = IntToDecimal::new(to, Some(factor))?;
        let from = converted_wire(c)?;
        if let Some(fast) = IntToDecimalFn::of(from, conversion) {
            return Ok(fast);
        }
        let out = conversion.out();
        Ok(decimal_fn(&[from], move |ins| DecimalOp::Mul.apply(convert(ins[0], to)?, factor, out)))
    },
    reports_as: Some("to_decimal"),
    testing: Testing {
        corner_call: Some("__to_decimal_times(a, \"decimal(13,0)\", \"0.01\")"),
        random: false,
        fallible: true,
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `decimal_to_f64`: the nearest f64.
pub const DECIMAL_TO_F64: NodeDef = NodeDef {
    name: "decimal_to_f64",
    category: "decimal",
    doc: "x as the nearest f64 (what `x as f64` becomes).",
    params: &[wire_decimal("x")],
    outputs: Outputs::One(PortType::F64),
    build: |c| {
        wire_decimal_type(c, 0)?;
        Ok(value_fn(|args, outs| {
            outs[0] = Value::F64(arg(args.get(0))?.to_f64());
            Ok(())
        }))
    },
    testing: Testing { corner_call: Some("decimal_to_f64((a as decimal(20,0)) * 0.01d)"), ..TWO_DECIMALS },
    ..NodeDef::BASE
};

/// `decimal_to_i64`: rounded half away from zero.
pub const DECIMAL_TO_I64: NodeDef = NodeDef {
    name: "decimal_to_i64",
    category: "decimal",
    doc: "x rounded half away from zero to an i64 (what `x as i64` becomes); fails outside the i64 range.",
    params: &[wire_decimal("x")],
    outputs: Outputs::One(PortType::I64),
    build: |c| {
        wire_decimal_type(c, 0)?;
        Ok(value_fn(|args, outs| {
            let x = arg(args.get(0))?;
            let whole = x.rescale(round_type(x.ty(), 0))?.units();
            outs[0] = Value::I64(i64::try_from(whole).map_err(|_| format!("{x} is outside the range of i64"))?);
            Ok(())
        }))
    },
    testing: Testing { corner_call: Some("decimal_to_i64((a as decimal(20,0)) * 0.5d)"), ..TWO_DECIMALS },
    ..NodeDef::BASE
};

/// `decimal_to_str`: the exact text.
pub const DECIMAL_TO_STR: NodeDef = NodeDef {
    name: "decimal_to_str",
    category: "decimal",
    doc: "x's exact text, every digit of its scale written (901.00): what `x as str` and interpolation write.",
    params: &[wire_decimal("x")],
    outputs: Outputs::One(PortType::Str),
    build: |c| {
        wire_decimal_type(c, 0)?;
        Ok(value_fn(|args, outs| {
            outs[0] = Value::str(arg(args.get(0))?.to_string());
            Ok(())
        }))
    },
    testing: Testing { corner_call: Some("decimal_to_str((a as decimal(20,0)) * 0.01d)"), ..TWO_DECIMALS },
    ..NodeDef::BASE
};

/// The family's nodes, in catalog order.
pub const NODES: &[NodeDef] = &[
    DECIMAL_ADD,
    DECIMAL_SUB,
    DECIMAL_MUL,
    DECIMAL_EQ,
    DECIMAL_NE,
    DECIMAL_LT,
    DECIMAL_GT,
    DECIMAL_LE,
    DECIMAL_GE,
    DECIMAL_ROUND,
    TO_DECIMAL,
    TO_DECIMAL_TIMES,
    DECIMAL_TO_F64,
    DECIMAL_TO_I64,
    DECIMAL_TO_STR,
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::{eval1, eval_err};

    fn d(text: &str) -> Value {
        Value::Decimal(Decimal::parse_literal(text).unwrap())
    }

    #[test]
    fn arithmetic_is_exact_and_overflow_fails() {
        assert_eq!(eval1(&DECIMAL_ADD, &[], &[d("0.10"), d("0.2")]).display_text(), "0.30");
        assert_eq!(eval1(&DECIMAL_MUL, &[], &[d("901.00"), d("0.04")]).display_text(), "36.0400");
        assert_eq!(eval1(&DECIMAL_LT, &[], &[d("1.49"), d("1.5")]).as_u64(), Some(1));
        let big = d(&"9".repeat(38));
        assert!(eval_err(&DECIMAL_ADD, &[], &[big.clone(), big]).contains("overflows decimal(38,0)"));
    }

    #[test]
    fn conversions_round_half_away_from_zero() {
        let to = |v: Value| eval1(&TO_DECIMAL, &[Value::str("decimal(5,1)")], &[v]).display_text();
        assert_eq!(to(Value::F64(-0.25)), "-0.3");
        assert_eq!(to(Value::U64(42)), "42.0");
        assert_eq!(to(d("1.25")), "1.3");
        assert!(eval_err(&TO_DECIMAL, &[Value::str("decimal(5,1)")], &[Value::F64(1e9)]).contains("does not fit"));
        assert_eq!(eval1(&DECIMAL_TO_I64, &[], &[d("-2.5")]).display_text(), "-3");
        assert_eq!(eval1(&DECIMAL_ROUND, &[Value::U64(1)], &[d("2.45")]).display_text(), "2.5");
        assert_eq!(eval1(&DECIMAL_TO_STR, &[], &[d("901.00")]).display_text(), "901.00");
    }
}
