//! The 128-bit integers `u128` and `i128`: their carrier in a [`Value`], and
//! the one rule by which any integer value becomes a value of any integer
//! type (range-checked).
//!
//! A 128-bit integer travels the way a decimal does: by reference, as the
//! 16 little-endian bytes its Ref slot pair points at (see
//! [`crate::types::PortType::is_ref`]). Every engine therefore moves one
//! with the by-reference plumbing it already has (scratch entries, copies
//! in and out, column rows), and no engine needs a two-word scalar slot.

use crate::types::PortType;
use crate::value::Value;

/// The bits of a 128-bit integer, kept as four little-endian 32-bit words
/// so that a [`Value`] holding one stays three machine words (a `u128`
/// field would align the whole enum to 16 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Bits128([u32; 4]);

impl Bits128 {
    /// The bits of `v`.
    pub fn of_u128(v: u128) -> Bits128 {
        Bits128([v as u32, (v >> 32) as u32, (v >> 64) as u32, (v >> 96) as u32])
    }

    /// The two's-complement bits of `v`.
    pub fn of_i128(v: i128) -> Bits128 {
        Bits128::of_u128(v as u128)
    }

    /// The bits read as an unsigned integer.
    pub fn as_u128(self) -> u128 {
        let [a, b, c, d] = self.0.map(u128::from);
        a | b << 32 | c << 64 | d << 96
    }

    /// The bits read as a two's-complement signed integer.
    pub fn as_i128(self) -> i128 {
        self.as_u128() as i128
    }

    /// The 16 little-endian bytes: how the value sits in a Ref slot and a
    /// column row.
    pub fn to_bytes(self) -> [u8; 16] {
        self.as_u128().to_le_bytes()
    }

    /// The bits of 16 little-endian `bytes` (`None` for any other length).
    pub fn from_bytes(bytes: &[u8]) -> Option<Bits128> {
        Some(Bits128::of_u128(u128::from_le_bytes(bytes.try_into().ok()?)))
    }
}

/// The value of an integer of any width, `u8` to `u128`: a `u128` above
/// `i128::MAX` is the only one an `i128` cannot hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnyInt {
    /// Any integer that fits in an i128.
    Fits(i128),
    /// A `u128` above `i128::MAX`.
    Above(u128),
}

impl AnyInt {
    /// The integer a value of any integer type holds (a `bool` is 0 or 1),
    /// `None` for every other value.
    pub fn of(v: &Value) -> Option<AnyInt> {
        if let Some(i) = v.as_integer() {
            return Some(AnyInt::Fits(i));
        }
        Some(match v {
            Value::Bool(b) => AnyInt::Fits(i128::from(*b)),
            Value::I128(b) => AnyInt::Fits(b.as_i128()),
            Value::U128(b) => AnyInt::of_u128(b.as_u128()),
            _ => return None,
        })
    }

    /// The integer `v`.
    pub fn of_u128(v: u128) -> AnyInt {
        i128::try_from(v).map_or(AnyInt::Above(v), AnyInt::Fits)
    }

    /// The value of integer type `ty` (any width, `u128` and `i128`
    /// included) equal to this integer, `None` when it is outside `ty`'s
    /// range or `ty` is no integer type.
    pub fn to_type(self, ty: PortType) -> Option<Value> {
        match (self, ty) {
            (AnyInt::Above(v), PortType::U128) => Some(Value::u128(v)),
            (AnyInt::Above(_), _) => None,
            (AnyInt::Fits(v), PortType::U128) => u128::try_from(v).ok().map(Value::u128),
            (AnyInt::Fits(v), PortType::I128) => Some(Value::i128(v)),
            (AnyInt::Fits(v), _) => Value::integer_of(ty, v),
        }
    }
}

impl std::fmt::Display for AnyInt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnyInt::Fits(v) => write!(f, "{v}"),
            AnyInt::Above(v) => write!(f, "{v}"),
        }
    }
}

/// The words of a failed integer conversion: "value V does not fit in T".
pub fn does_not_fit(v: AnyInt, ty: PortType) -> String {
    format!("value {v} does not fit in {ty}")
}

/// Reads decimal text (optionally signed, surrounding whitespace allowed)
/// as an integer of any width, or `None` when it is no whole number or
/// lies outside both `u128` and `i128`.
pub fn parse_any_int(text: &str) -> Option<AnyInt> {
    let t = text.trim();
    if let Ok(v) = t.parse::<i128>() {
        return Some(AnyInt::Fits(v));
    }
    let digits = t.strip_prefix('+').unwrap_or(t);
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<u128>().ok().map(AnyInt::of_u128)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_round_trip_both_signs() {
        for v in [0u128, 1, u64::MAX as u128 + 1, u128::MAX, 1 << 127] {
            assert_eq!(Bits128::of_u128(v).as_u128(), v);
            assert_eq!(Bits128::from_bytes(&Bits128::of_u128(v).to_bytes()).unwrap().as_u128(), v);
        }
        for v in [i128::MIN, -1, 0, i128::MAX] {
            assert_eq!(Bits128::of_i128(v).as_i128(), v);
        }
        assert_eq!(Bits128::from_bytes(&[0; 15]), None);
    }

    #[test]
    fn any_integer_fits_or_names_its_target() {
        let big = AnyInt::of_u128(u128::MAX);
        assert_eq!(big, AnyInt::Above(u128::MAX));
        assert!(big.to_type(PortType::U128).unwrap().same(&Value::u128(u128::MAX)));
        assert!(big.to_type(PortType::I128).is_none());
        assert!(AnyInt::Fits(-1).to_type(PortType::U128).is_none());
        assert!(AnyInt::Fits(-1).to_type(PortType::I128).unwrap().same(&Value::i128(-1)));
        assert!(AnyInt::Fits(1 << 64).to_type(PortType::U64).is_none());
        assert!(AnyInt::Fits(255).to_type(PortType::U8).unwrap().same(&Value::U8(255)));
        assert_eq!(does_not_fit(big, PortType::U64), format!("value {} does not fit in u64", u128::MAX));
    }

    #[test]
    fn text_reads_every_width() {
        assert_eq!(parse_any_int(" 340282366920938463463374607431768211455 "), Some(AnyInt::Above(u128::MAX)));
        assert_eq!(parse_any_int("-170141183460469231731687303715884105728"), Some(AnyInt::Fits(i128::MIN)));
        assert_eq!(parse_any_int("340282366920938463463374607431768211456"), None);
        assert_eq!(parse_any_int("12x"), None);
        assert_eq!(parse_any_int(""), None);
    }
}
