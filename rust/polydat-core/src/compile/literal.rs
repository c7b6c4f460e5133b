//! The typing of literals: the one rule by which a literal the frontend
//! wrote (an integer, a float, a string, a bool) becomes a value of the type
//! a slot declares — a node's construction constant, an extern's default, a
//! module parameter, an annotated binding, or the other operand of an
//! operator. A literal that does not fit is a [`Misfit`]: how it reads
//! (`an integer literal -1`) and what to write instead, for the caller to
//! put in its own words (`parameter 'k' of 'mod' expects a u64 literal, got
//! an integer literal -1`).

use crate::calendar;
use crate::ir::ConstIr;
use crate::nodes::convert::parse_text;
use crate::types::PortType::{self, Bool, Bytes, Date, Json, Str, Timestamp, F32, F64, I32, I64, U32, U64};
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
    let Some(v) = integer(c) else { return Ok(c.to_value()) };
    match ConstIr::integer(v) {
        Some(typed) => Ok(typed.to_value()),
        None => Err(format!("integer literal {v} does not fit in {}", if v < 0 { "i64" } else { "u64" })),
    }
}

/// The smallest and largest value of an integer type.
fn integer_range(ty: PortType) -> (i128, i128) {
    match ty {
        U64 => (0, u64::MAX.into()),
        U32 => (0, u32::MAX.into()),
        I64 => (i64::MIN.into(), i64::MAX.into()),
        _ => (i32::MIN.into(), i32::MAX.into()),
    }
}

/// An integer known to lie in `ty`'s range, as a value of `ty`.
fn integer_value(v: i128, ty: PortType) -> Value {
    match ty {
        U64 => Value::U64(v as u64),
        U32 => Value::U32(v as u32),
        I64 => Value::I64(v as i64),
        _ => Value::I32(v as i32),
    }
}

/// `c` as a value of `ty`, without loss, or why it is not one.
pub fn fit(c: &ConstIr, ty: PortType) -> Result<Value, Misfit> {
    let misfit = |hint: String| Misfit { got: describe(c), hint };
    let integer_target = matches!(ty, U64 | U32 | I64 | I32);
    match (c, ty) {
        (ConstIr::Bool(b), Bool) => Ok(Value::Bool(*b)),
        (ConstIr::Bool(b), _) if integer_target => Ok(integer_value(i128::from(*b), ty)),
        (ConstIr::Bool(_), _) => Err(misfit(format!("a {ty} slot needs a {ty} value"))),
        (_, U64 | U32 | I64 | I32) => {
            let Some(v) = integer(c) else {
                return Err(misfit(match c {
                    ConstIr::F64(_) => format!("a {ty} constant needs an integer literal"),
                    _ => "write the number without quotes".to_string(),
                }));
            };
            let (low, high) = integer_range(ty);
            if (low..=high).contains(&v) {
                Ok(integer_value(v, ty))
            } else if v < 0 && low == 0 {
                Err(misfit(format!("{ty} is unsigned; negative values do not fit")))
            } else {
                Err(misfit(format!("{v} is outside the range of {ty} ({low} to {high})")))
            }
        }
        (_, F64 | F32) => {
            let x = match (integer(c), c) {
                (Some(v), _) => v as f64,
                (None, ConstIr::F64(bits)) => f64::from_bits(*bits),
                _ => return Err(misfit("write the number without quotes".to_string())),
            };
            if ty == F64 {
                return Ok(Value::F64(x));
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
