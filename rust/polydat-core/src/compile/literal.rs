//! The typing of literals: the one rule by which a literal the frontend
//! wrote (an integer, a float, a string, a bool) becomes a value of the type
//! a slot declares — a node's construction constant, an extern's default, a
//! module parameter, an annotated binding, or the other operand of an
//! operator. A literal that does not fit is a [`Misfit`]: how it reads
//! (`an integer literal -1`) and what to write instead, for the caller to
//! put in its own words (`parameter 'k' of 'mod' expects a u64 literal, got
//! an integer literal -1`).

use crate::calendar;
use crate::decimal::{rescale_units, Decimal};
use crate::ir::ConstIr;
use crate::nodes::convert::parse_text;
use crate::types::PortType::{
    self, Bool, Bytes, Date, Json, Str, Timestamp, F32, F64, I16, I32, I64, I8, U16, U32, U64, U8,
};
use crate::value::Value;
use std::sync::Arc;

/// Why a literal does not fit a type: the literal as a message names it,
/// and a hint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Misfit {
    /// The literal, with its article (`a float literal 1.5`).
    pub got: String,
    /// What to write instead.
    pub hint: String,
}

/// A literal, with its article, as messages name it: `an integer literal 5`,
/// `a float literal 1.5`, `a string literal "x"` (cut at 24 characters),
/// `a bool literal true`.
pub fn describe(c: &ConstIr) -> String {
    match c {
        ConstIr::Int(v) => format!("an integer literal {v}"),
        ConstIr::U64(v) => format!("an integer literal {v}"),
        ConstIr::I64(v) => format!("an integer literal {v}"),
        ConstIr::F64(bits) => format!("a float literal {}", Value::F64(f64::from_bits(*bits)).display_text()),
        ConstIr::Bool(b) => format!("a bool literal {b}"),
        ConstIr::Str(s) if s.chars().count() <= 24 => format!("a string literal \"{s}\""),
        ConstIr::Str(s) => format!("a string literal \"{}...\"", s.chars().take(21).collect::<String>()),
        ConstIr::Decimal(text) => format!("a decimal literal {text}d"),
    }
}

/// The integer a literal is, when it is one.
fn integer(c: &ConstIr) -> Option<i128> {
    match c {
        ConstIr::Int(v) => Some(*v),
        ConstIr::U64(v) => Some(i128::from(*v)),
        ConstIr::I64(v) => Some(i128::from(*v)),
        _ => None,
    }
}

/// The value of a literal in a slot that takes any type: an integer is a
/// `u64`, or an `i64` when negative ([`crate::ir::integer_literal_type`]);
/// `Err` names the type it does not fit.
pub fn natural(c: &ConstIr) -> Result<Value, String> {
    if let ConstIr::Decimal(text) = c {
        return Decimal::parse_literal(text).map(Value::Decimal);
    }
    let Some(v) = integer(c) else { return Ok(c.to_value()) };
    match ConstIr::integer(v) {
        Some(typed) => Ok(typed.to_value()),
        None => Err(format!("integer literal {v} does not fit in {}", if v < 0 { "i64" } else { "u64" })),
    }
}

/// `c` as a value of `ty`, without loss, or why it is not one.
pub fn fit(c: &ConstIr, ty: PortType) -> Result<Value, Misfit> {
    let misfit = |hint: String| Misfit { got: describe(c), hint };
    let range = ty.integer_range();
    match (c, ty) {
        (_, PortType::Decimal(d)) => fit_decimal(c, d).map(Value::Decimal).map_err(misfit),
        (ConstIr::Decimal(_), _) => {
            Err(misfit(format!("a decimal literal fills a decimal slot; convert it with `as {ty}`")))
        }
        (ConstIr::Bool(b), Bool) => Ok(Value::Bool(*b)),
        (ConstIr::Bool(b), _) if range.is_some() => {
            Ok(Value::integer_of(ty, i128::from(*b)).expect("0 and 1 fit every integer type"))
        }
        (ConstIr::Bool(_), _) => Err(misfit(format!("a {ty} slot needs a {ty} value"))),
        (_, PortType::U128 | PortType::I128) => {
            let Some(v) = integer(c) else {
                return Err(misfit(match c {
                    ConstIr::F64(_) => format!("a {ty} constant needs an integer literal"),
                    _ => format!("write the number without quotes, or convert text with `\"...\" as {ty}`"),
                }));
            };
            crate::wide::AnyInt::Fits(v)
                .to_type(ty)
                .ok_or_else(|| misfit(format!("{ty} is unsigned; negative values do not fit")))
        }
        (_, U64 | U32 | I64 | I32 | U16 | I16 | U8 | I8) => {
            let Some(v) = integer(c) else {
                return Err(misfit(match c {
                    ConstIr::F64(_) => format!("a {ty} constant needs an integer literal"),
                    _ => "write the number without quotes".to_string(),
                }));
            };
            let (low, high) = range.expect("an integer type");
            if let Some(value) = Value::integer_of(ty, v) {
                Ok(value)
            } else if v < 0 && low == 0 {
                Err(misfit(format!("{ty} is unsigned; negative values do not fit")))
            } else {
                Err(misfit(format!("{v} is outside the range of {ty} ({low} to {high})")))
            }
        }
        (_, F64 | F32 | PortType::F16) => {
            let x = match (integer(c), c) {
                (Some(v), _) => v as f64,
                (None, ConstIr::F64(bits)) => f64::from_bits(*bits),
                _ => return Err(misfit("write the number without quotes".to_string())),
            };
            if ty == F64 {
                return Ok(Value::F64(x));
            }
            if ty == PortType::F16 {
                let narrow = crate::value::f16_nearest(x);
                return if narrow.to_f64() == x || x.is_nan() {
                    Ok(Value::F16(narrow))
                } else {
                    Err(misfit(format!(
                        "{} has no exact f16 value; write `{0} as f16` to round it",
                        Value::F64(x).display_text()
                    )))
                };
            }
            let narrow = x as f32;
            if f64::from(narrow) == x || x.is_nan() {
                Ok(Value::F32(narrow))
            } else {
                Err(misfit(format!("{} has no exact f32 value", Value::F64(x).display_text())))
            }
        }
        (_, Bool) => match integer(c) {
            Some(v @ (0 | 1)) => Ok(Value::Bool(v == 1)),
            _ => Err(misfit("a bool constant is written true, false, 1 or 0".to_string())),
        },
        (ConstIr::Str(s), Str) => Ok(Value::Str(Arc::from(s.as_str()))),
        (ConstIr::Str(s), Json) => match serde_json::from_str::<serde_json::Value>(s) {
            Ok(_) => Ok(Value::Json(Arc::from(s.as_str()))),
            Err(e) => Err(misfit(format!("a json constant is JSON text: {e}"))),
        },
        (ConstIr::Str(s), PortType::Vector(t)) => {
            crate::vector::parse(t, s).map_err(|e| misfit(format!("a {ty} constant is a JSON array: {e}")))
        }
        (_, PortType::Vector(_)) => {
            Err(misfit(format!("a {ty} constant is a JSON array in a string, e.g. \"[1, 2, 3]\"")))
        }
        (_, Str | Json | Bytes) => {
            let shown = match integer(c) {
                Some(v) => v.to_string(),
                None => c.to_value().display_text(),
            };
            Err(misfit(format!("write it as a string, e.g. \"{shown}\"")))
        }
        (_, Timestamp | Date) => {
            let unit = if ty == Timestamp { "milliseconds since 1970-01-01" } else { "days since 1970-01-01" };
            let wrong = || misfit(format!("a {ty} is {unit} or ISO text, e.g. \"1992-01-01\""));
            let text = match (integer(c), c) {
                (Some(v), _)
                    if ty == Timestamp && i64::try_from(v).is_ok_and(|ms| calendar::timestamp_millis(ms).is_err()) =>
                {
                    return Err(misfit(calendar::NAT_REFUSED.to_string()))
                }
                (Some(v), _) if i64::try_from(v).is_ok() => v.to_string(),
                (Some(v), _) => return Err(misfit(format!("{v} is outside the range of {ty}"))),
                (None, ConstIr::Str(s)) => s.clone(),
                _ => return Err(wrong()),
            };
            parse_text(&text, ty).map_err(|_| wrong())
        }
    }
}

/// Literal `c` as a value of `decimal(p, s)` `d`, exactly, or the hint for
/// its misfit: a decimal literal or a float literal (by its shortest text)
/// whose digits `d` holds, an integer that fits, or decimal text in quotes.
fn fit_decimal(c: &ConstIr, d: crate::types::DecimalType) -> Result<Decimal, String> {
    if let Some(v) = integer(c) {
        return Decimal::from_int(v, d);
    }
    let literal = match c {
        ConstIr::Str(text) => Decimal::parse_literal(text)?,
        _ => decimal_of(c)?,
    };
    let units = rescale_units(literal.units(), literal.ty().scale, d.scale)
        .filter(|&u| rescale_units(u, d.scale, literal.ty().scale) == Some(literal.units()))
        .ok_or_else(|| format!("decimal({},{}) keeps {} digit(s) after the point", d.precision, d.scale, d.scale))?;
    Decimal::new(units, d)
}

/// A number literal as the narrowest decimal holding it as written: an
/// integer at scale 0, a float by its shortest text, a decimal literal as
/// itself; `Err` for any other literal. A literal beside a decimal operand
/// takes part as this (`1 - discount`: `1` is `decimal(1,0)`), so the
/// operator's scale rules see its own digits.
pub fn decimal_of(c: &ConstIr) -> Result<Decimal, String> {
    let text = match c {
        ConstIr::Decimal(text) => text.clone(),
        ConstIr::F64(bits) if f64::from_bits(*bits).is_finite() => format!("{}", f64::from_bits(*bits)),
        _ => match integer(c) {
            Some(v) => v.to_string(),
            None => return Err("a decimal(p, s) constant is a number, e.g. 12.34d".to_string()),
        },
    };
    Decimal::parse_literal(&text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hint(c: ConstIr, ty: PortType) -> String {
        fit(&c, ty).expect_err("a misfit").hint
    }

    #[test]
    fn nat_fits_no_timestamp() {
        let misfit = fit(&ConstIr::Int(i128::from(i64::MIN)), Timestamp).unwrap_err();
        assert_eq!(misfit.hint, calendar::NAT_REFUSED);
        assert!(fit(&ConstIr::Int(i128::from(i64::MIN) + 1), Timestamp).is_ok());
    }

    #[test]
    fn literals_fit_the_slots_they_can_fill() {
        assert!(fit(&ConstIr::Int(5), I64).unwrap().same(&Value::I64(5)));
        assert!(fit(&ConstIr::Int(-5), F64).unwrap().same(&Value::F64(-5.0)));
        assert!(fit(&ConstIr::Bool(true), U32).unwrap().same(&Value::U32(1)));
        assert!(fit(&ConstIr::Int(1), Bool).unwrap().same(&Value::Bool(true)));
        assert!(fit(&ConstIr::F64(0.5f64.to_bits()), F32).unwrap().same(&Value::F32(0.5)));
        assert!(fit(&ConstIr::Str("[1]".into()), Json).is_ok());
        assert!(fit(&ConstIr::Str("1992-01-02".into()), Date).unwrap().same(&Value::Date(8036)));
    }

    #[test]
    fn decimal_literals_fit_exactly_or_not_at_all() {
        let d15_2 = PortType::from_keyword("decimal(15,2)").unwrap();
        assert_eq!(fit(&ConstIr::Decimal("1.5".into()), d15_2).unwrap().display_text(), "1.50");
        assert_eq!(fit(&ConstIr::Int(-3), d15_2).unwrap().display_text(), "-3.00");
        assert_eq!(fit(&ConstIr::F64(0.25f64.to_bits()), d15_2).unwrap().display_text(), "0.25");
        assert!(hint(ConstIr::Decimal("0.125".into()), d15_2).contains("keeps 2 digit(s)"));
        assert!(hint(ConstIr::Int(10i128.pow(14)), d15_2).contains("does not fit decimal(15,2)"));
        assert!(hint(ConstIr::Decimal("1.5".into()), F64).contains("as f64"));
        assert_eq!(natural(&ConstIr::Decimal("12.30".into())).unwrap().port_type().unwrap().keyword(), "decimal(4,2)");
    }

    #[test]
    fn a_misfit_says_what_the_literal_is_and_what_to_write() {
        let m = fit(&ConstIr::Int(-1), U64).unwrap_err();
        assert_eq!(m.got, "an integer literal -1");
        assert_eq!(m.hint, "u64 is unsigned; negative values do not fit");
        assert_eq!(
            hint(ConstIr::Int(1 << 40), I32),
            format!("{} is outside the range of i32 (-2147483648 to 2147483647)", 1u64 << 40)
        );
        assert_eq!(hint(ConstIr::F64(1.5f64.to_bits()), U64), "a u64 constant needs an integer literal");
        assert_eq!(hint(ConstIr::Str("x".into()), F64), "write the number without quotes");
        assert_eq!(hint(ConstIr::Int(5), Str), "write it as a string, e.g. \"5\"");
        assert_eq!(hint(ConstIr::Int(2), Bool), "a bool constant is written true, false, 1 or 0");
        assert_eq!(hint(ConstIr::Bool(true), F64), "a f64 slot needs a f64 value");
        assert_eq!(describe(&ConstIr::Str("a".repeat(30))), format!("a string literal \"{}...\"", "a".repeat(21)));
        assert_eq!(describe(&ConstIr::F64(1.5f64.to_bits())), "a float literal 1.5");
    }

    #[test]
    fn an_integer_in_an_untyped_slot_is_u64_or_when_negative_i64() {
        assert!(natural(&ConstIr::Int(7)).unwrap().same(&Value::U64(7)));
        assert!(natural(&ConstIr::Int(-7)).unwrap().same(&Value::I64(-7)));
        assert_eq!(
            natural(&ConstIr::Int(-(1 << 70))).unwrap_err(),
            format!("integer literal {} does not fit in i64", -(1i128 << 70))
        );
    }
}
