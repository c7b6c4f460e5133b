//! Port types: the static type of every wire, input and output.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;

/// The largest precision of a `decimal(p, s)`: 38 digits, the most an i128
/// holds whole (10^38 < 2^127).
pub const DECIMAL_MAX_PRECISION: u8 = 38;

/// The parameters of a `decimal(p, s)`: `precision` significant digits, of
/// which `scale` are after the point (1 <= p <= 38, 0 <= s <= p).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DecimalType {
    /// Significant digits in all (1..=38).
    pub precision: u8,
    /// Digits after the point (0..=precision).
    pub scale: u8,
}

impl DecimalType {
    /// `decimal(precision, scale)`, or why those parameters name no type.
    pub fn new(precision: u32, scale: u32) -> Result<DecimalType, String> {
        if precision == 0 || precision > DECIMAL_MAX_PRECISION as u32 {
            return Err(format!(
                "decimal precision {precision} is out of range: it is 1 to {DECIMAL_MAX_PRECISION} digits"
            ));
        }
        if scale > precision {
            return Err(format!("decimal scale {scale} is larger than its precision {precision}"));
        }
        Ok(DecimalType { precision: precision as u8, scale: scale as u8 })
    }

    /// The whole digits and the scale that hold every value of `self` and
    /// of `other` (the more whole digits, the larger scale; not capped).
    pub(crate) fn digits_holding(self, other: DecimalType) -> (u32, u32) {
        let whole = (self.precision - self.scale).max(other.precision - other.scale);
        (u32::from(whole), u32::from(self.scale.max(other.scale)))
    }

    /// The narrowest decimal type that holds every value of `self` and of
    /// `other` exactly (the larger scale, the more whole digits), or why
    /// there is none within 38 digits.
    pub fn common(self, other: DecimalType) -> Result<DecimalType, String> {
        let (whole, scale) = self.digits_holding(other);
        DecimalType::new(whole + scale, scale).map_err(|e| {
            format!("no decimal type holds both {} and {}: {e}", PortType::Decimal(self), PortType::Decimal(other))
        })
    }
}

/// The static type of a wire. Scalars travel in one 64-bit slot on the compiled
/// engines; `Str`, `Bytes` and `Json` travel as (ptr, len) Ref slot pairs, and
/// so does `Decimal`, whose i128 is the 16 little-endian bytes its pair points
/// at (see [`PortType::is_ref`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PortType {
    /// 64-bit unsigned integer.
    U64,
    /// 64-bit signed integer.
    I64,
    /// 32-bit unsigned integer.
    U32,
    /// 32-bit signed integer.
    I32,
    /// 16-bit unsigned integer.
    U16,
    /// 16-bit signed integer.
    I16,
    /// 8-bit unsigned integer.
    U8,
    /// 8-bit signed integer.
    I8,
    /// 128-bit unsigned integer (by reference: 16 little-endian bytes, see
    /// [`crate::wide`]).
    U128,
    /// 128-bit signed integer (by reference: 16 little-endian bytes, see
    /// [`crate::wide`]).
    I128,
    /// 64-bit IEEE float.
    F64,
    /// 32-bit IEEE float.
    F32,
    /// 16-bit IEEE float (binary16), in one slot as its 16 bits.
    F16,
    /// Boolean.
    Bool,
    /// UTF-8 string (by reference).
    Str,
    /// Byte string (by reference).
    Bytes,
    /// JSON text (by reference).
    Json,
    /// An instant: milliseconds since 1970-01-01T00:00:00Z (UTC, no leap
    /// seconds), in one slot as an i64.
    Timestamp,
    /// A calendar day: days since 1970-01-01 (proleptic Gregorian), in one
    /// slot as an i32.
    Date,
    /// An exact fixed-point number `decimal(p, s)`: an i128 count of
    /// 10^-s units, at most p digits (see [`crate::decimal`]).
    Decimal(DecimalType),
    /// A list `vec_i32`, `vec_i64` or `vec_f64`: its elements' packed
    /// little-endian bytes, by reference (see [`crate::vector`]).
    Vector(VectorType),
}

impl PortType {
    /// Every port type, in declaration order (`decimal` by the one
    /// representative [`PortType::DECIMAL_SAMPLE`], `decimal(15, 2)`).
    pub const ALL: [PortType; 23] = [
        PortType::U64,
        PortType::I64,
        PortType::U32,
        PortType::I32,
        PortType::U16,
        PortType::I16,
        PortType::U8,
        PortType::I8,
        PortType::U128,
        PortType::I128,
        PortType::F64,
        PortType::F32,
        PortType::F16,
        PortType::Bool,
        PortType::Str,
        PortType::Bytes,
        PortType::Json,
        PortType::Timestamp,
        PortType::Date,
        PortType::DECIMAL_SAMPLE,
        PortType::Vector(VectorType::I32),
        PortType::Vector(VectorType::I64),
        PortType::Vector(VectorType::F64),
    ];

    /// The decimal type that stands for the family where one type is
    /// needed (the list of every type, test samples): `decimal(15, 2)`.
    pub const DECIMAL_SAMPLE: PortType = PortType::Decimal(DecimalType { precision: 15, scale: 2 });

    /// The DSL text naming this type (`u64`, `str`, `decimal(15,2)`, ...);
    /// [`PortType::from_keyword`] reads it back.
    pub fn keyword(self) -> Cow<'static, str> {
        match self {
            PortType::Decimal(d) => Cow::Owned(format!("decimal({},{})", d.precision, d.scale)),
            other => Cow::Borrowed(other.family()),
        }
    }

    /// The word naming this type's family: its keyword, and `decimal` for
    /// every `decimal(p, s)`.
    pub fn family(self) -> &'static str {
        match self {
            PortType::U64 => "u64",
            PortType::I64 => "i64",
            PortType::U32 => "u32",
            PortType::I32 => "i32",
            PortType::U16 => "u16",
            PortType::I16 => "i16",
            PortType::U8 => "u8",
            PortType::I8 => "i8",
            PortType::U128 => "u128",
            PortType::I128 => "i128",
            PortType::F64 => "f64",
            PortType::F32 => "f32",
            PortType::F16 => "f16",
            PortType::Bool => "bool",
            PortType::Str => "str",
            PortType::Bytes => "bytes",
            PortType::Json => "json",
            PortType::Timestamp => "timestamp",
            PortType::Date => "date",
            PortType::Decimal(_) => "decimal",
            PortType::Vector(v) => v.keyword(),
        }
    }

    /// The decimal parameters, when this is a `decimal(p, s)`.
    pub fn decimal(self) -> Option<DecimalType> {
        match self {
            PortType::Decimal(d) => Some(d),
            _ => None,
        }
    }

    /// Every spelling of a type a program may write, with the type it names:
    /// each keyword, and the `Str`/`String`/`Json` spellings.
    pub const SPELLINGS: [(&'static str, PortType); 25] = [
        ("u64", PortType::U64),
        ("i64", PortType::I64),
        ("u32", PortType::U32),
        ("i32", PortType::I32),
        ("u16", PortType::U16),
        ("i16", PortType::I16),
        ("u8", PortType::U8),
        ("i8", PortType::I8),
        ("u128", PortType::U128),
        ("i128", PortType::I128),
        ("f64", PortType::F64),
        ("f32", PortType::F32),
        ("f16", PortType::F16),
        ("bool", PortType::Bool),
        ("str", PortType::Str),
        ("Str", PortType::Str),
        ("String", PortType::Str),
        ("bytes", PortType::Bytes),
        ("json", PortType::Json),
        ("Json", PortType::Json),
        ("timestamp", PortType::Timestamp),
        ("date", PortType::Date),
        ("vec_i32", PortType::Vector(VectorType::I32)),
        ("vec_i64", PortType::Vector(VectorType::I64)),
        ("vec_f64", PortType::Vector(VectorType::F64)),
    ];

    /// Parses a DSL type keyword, any spelling of [`PortType::SPELLINGS`] or
    /// `decimal(p, s)` (spaces allowed around the numbers).
    pub fn from_keyword(word: &str) -> Option<PortType> {
        PortType::parse(word).ok().flatten()
    }

    /// Parses a DSL type: `Ok(None)` when `word` names no type, an error
    /// when it is a `decimal(...)` whose parameters are malformed or out of
    /// range (the error says which).
    pub fn parse(word: &str) -> Result<Option<PortType>, String> {
        if let Some(&(_, ty)) = PortType::SPELLINGS.iter().find(|(spelling, _)| *spelling == word) {
            return Ok(Some(ty));
        }
        let Some(inner) = word.strip_prefix("decimal").map(str::trim_start) else { return Ok(None) };
        let Some(inner) = inner.strip_prefix('(').and_then(|r| r.strip_suffix(')')) else { return Ok(None) };
        let number = |text: &str| text.trim().parse::<u32>().ok();
        match inner.split(',').collect::<Vec<_>>().as_slice() {
            [p, s] => match (number(p), number(s)) {
                (Some(p), Some(s)) => DecimalType::new(p, s).map(|d| Some(PortType::Decimal(d))),
                _ => Err(format!(
                    "malformed decimal type '{word}': write decimal(precision, scale), e.g. decimal(15, 2)"
                )),
            },
            _ => Err(format!("malformed decimal type '{word}': write decimal(precision, scale), e.g. decimal(15, 2)")),
        }
    }

    /// True for types carried by reference (Ref slot pairs on compiled
    /// engines). A decimal, a `u128` and an `i128` are: each is 16
    /// little-endian bytes a pair points at ([`PortType::is_sixteen_bytes`]),
    /// so every engine moves it with the by-reference plumbing it already
    /// has (scratch entries, copies in and out, column rows) and needs no
    /// two-word scalar slot. So is a list (its packed elements).
    pub fn is_ref(self) -> bool {
        matches!(self, PortType::Str | PortType::Bytes | PortType::Json | PortType::Vector(_))
            || self.is_sixteen_bytes()
    }

    /// The element type, when this is a list type (`vec_i32`, ...).
    pub fn vector(self) -> Option<VectorType> {
        match self {
            PortType::Vector(v) => Some(v),
            _ => None,
        }
    }

    /// True for the types whose value is 128 bits carried by reference as
    /// 16 little-endian bytes: a decimal (its i128 count of units), `u128`
    /// and `i128`.
    pub fn is_sixteen_bytes(self) -> bool {
        matches!(self, PortType::Decimal(_) | PortType::U128 | PortType::I128)
    }

    /// True for `u128` and `i128`, the integers carried by reference.
    pub fn is_wide_integer(self) -> bool {
        matches!(self, PortType::U128 | PortType::I128)
    }

    /// True for every integer type, one-slot ([`PortType::integer_range`])
    /// or wide ([`PortType::is_wide_integer`]).
    pub fn is_integer(self) -> bool {
        self.integer_range().is_some() || self.is_wide_integer()
    }

    /// True for the types carried as UTF-8 text (`str`, `json`): their
    /// by-reference values live in text buffers, every other by-reference
    /// value (`bytes`, a decimal's 16 bytes, a list's elements) in byte
    /// buffers.
    pub fn is_text(self) -> bool {
        matches!(self, PortType::Str | PortType::Json)
    }

    /// True for the numeric scalar types.
    pub fn is_numeric(self) -> bool {
        self.is_integer() || matches!(self, PortType::F64 | PortType::F32 | PortType::F16)
    }

    /// The least and the greatest value of a one-slot integer type (`u8`
    /// is `(0, 255)`, `i64` is `(i64::MIN, i64::MAX)`), `None` for every
    /// other type, the wide `u128` and `i128` included (their values are
    /// checked by [`crate::wide::AnyInt::to_type`]): the one range every
    /// check of a one-slot integer against its type reads (literals, casts,
    /// host writes, `--set` text).
    pub fn integer_range(self) -> Option<(i128, i128)> {
        Some(match self {
            PortType::U64 => (0, u64::MAX.into()),
            PortType::I64 => (i64::MIN.into(), i64::MAX.into()),
            PortType::U32 => (0, u32::MAX.into()),
            PortType::I32 => (i32::MIN.into(), i32::MAX.into()),
            PortType::U16 => (0, u16::MAX.into()),
            PortType::I16 => (i16::MIN.into(), i16::MAX.into()),
            PortType::U8 => (0, u8::MAX.into()),
            PortType::I8 => (i8::MIN.into(), i8::MAX.into()),
            _ => return None,
        })
    }

    /// True for the integer types whose slot word is sign-extended (`i64`,
    /// `i32`, `i16`, `i8`); an unsigned integer's word is zero-extended.
    pub fn is_signed_integer(self) -> bool {
        matches!(self, PortType::I64 | PortType::I32 | PortType::I16 | PortType::I8)
    }
}

impl fmt::Display for PortType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.keyword())
    }
}

impl Serialize for PortType {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.keyword())
    }
}

impl<'de> Deserialize<'de> for PortType {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<PortType, D::Error> {
        let word = Cow::<'de, str>::deserialize(deserializer)?;
        match PortType::parse(&word) {
            Ok(Some(ty)) => Ok(ty),
            Ok(None) => Err(serde::de::Error::custom(format!("unknown type '{word}'"))),
            Err(e) => Err(serde::de::Error::custom(e)),
        }
    }
}

/// The element type of a list port type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum VectorType {
    /// `vec_i32`: 32-bit signed integers.
    I32,
    /// `vec_i64`: 64-bit signed integers.
    I64,
    /// `vec_f64`: 64-bit IEEE floats.
    F64,
}

impl VectorType {
    /// Every list type, in declaration order.
    pub const ALL: [VectorType; 3] = [VectorType::I32, VectorType::I64, VectorType::F64];

    /// The DSL keyword of the list type (`vec_i32`, ...).
    pub fn keyword(self) -> &'static str {
        match self {
            VectorType::I32 => "vec_i32",
            VectorType::I64 => "vec_i64",
            VectorType::F64 => "vec_f64",
        }
    }

    /// Bytes one element takes in the packed form.
    pub fn width(self) -> usize {
        match self {
            VectorType::I32 => 4,
            VectorType::I64 | VectorType::F64 => 8,
        }
    }

    /// How many elements `bytes` packs, `None` when its length is no whole
    /// number of elements (no list step writes such a value).
    pub fn len_of(self, bytes: &[u8]) -> Option<usize> {
        (bytes.len() % self.width() == 0).then(|| bytes.len() / self.width())
    }
}

impl fmt::Display for VectorType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.keyword())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_round_trip() {
        for t in PortType::ALL {
            assert_eq!(PortType::from_keyword(&t.keyword()), Some(t));
        }
        assert_eq!(PortType::from_keyword("String"), Some(PortType::Str));
        assert_eq!(PortType::from_keyword("u128"), Some(PortType::U128));
        assert_eq!(PortType::from_keyword("f16"), Some(PortType::F16));
    }

    #[test]
    fn narrow_integers_are_keywords_with_their_ranges() {
        for (word, lo, hi) in [("u8", 0, 255), ("i8", -128, 127), ("u16", 0, 65535), ("i16", -32768, 32767)] {
            let ty = PortType::from_keyword(word).unwrap();
            assert_eq!(ty.integer_range(), Some((lo, hi)));
            assert!(ty.is_numeric() && !ty.is_ref());
            assert_eq!(ty.is_signed_integer(), lo < 0);
        }
        assert_eq!(PortType::F64.integer_range(), None);
    }

    #[test]
    fn wide_integers_are_sixteen_bytes_by_reference() {
        for ty in [PortType::U128, PortType::I128] {
            assert!(ty.is_ref() && ty.is_sixteen_bytes() && ty.is_numeric() && ty.is_integer() && !ty.is_text());
            assert_eq!(ty.integer_range(), None);
        }
        assert!(!PortType::U64.is_wide_integer());
    }

    #[test]
    fn decimal_types_parse_and_refuse_out_of_range() {
        let d = PortType::from_keyword("decimal(15, 2)").unwrap();
        assert_eq!(d, PortType::Decimal(DecimalType { precision: 15, scale: 2 }));
        assert_eq!(d.keyword(), "decimal(15,2)");
        assert!(d.is_ref());
        assert!(PortType::parse("decimal(39,2)").unwrap_err().contains("precision 39"));
        assert!(PortType::parse("decimal(5,6)").unwrap_err().contains("scale 6"));
        assert!(PortType::parse("decimal(5)").unwrap_err().contains("malformed"));
        assert_eq!(PortType::parse("decimals"), Ok(None));
        let json = serde_json::to_string(&d).unwrap();
        assert_eq!(serde_json::from_str::<PortType>(&json).unwrap(), d);
    }
}
