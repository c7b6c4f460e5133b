//! Port types: the static type of every wire, input and output.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The static type of a wire. Scalars travel in one 64-bit slot on the compiled
/// engines; `Str`, `Bytes` and `Json` travel as (ptr, len) Ref slot pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PortType {
    /// 64-bit unsigned integer.
    U64,
    /// 64-bit signed integer.
    I64,
    /// 32-bit unsigned integer.
    U32,
    /// 32-bit signed integer.
    I32,
    /// 64-bit IEEE float.
    F64,
    /// 32-bit IEEE float.
    F32,
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
}

impl PortType {
    /// Every port type, in declaration order.
    pub const ALL: [PortType; 12] = [
        PortType::U64,
        PortType::I64,
        PortType::U32,
        PortType::I32,
        PortType::F64,
        PortType::F32,
        PortType::Bool,
        PortType::Str,
        PortType::Bytes,
        PortType::Json,
        PortType::Timestamp,
        PortType::Date,
    ];

    /// The DSL keyword naming this type (`u64`, `str`, ...).
    pub fn keyword(self) -> &'static str {
        match self {
            PortType::U64 => "u64",
            PortType::I64 => "i64",
            PortType::U32 => "u32",
            PortType::I32 => "i32",
            PortType::F64 => "f64",
            PortType::F32 => "f32",
            PortType::Bool => "bool",
            PortType::Str => "str",
            PortType::Bytes => "bytes",
            PortType::Json => "json",
            PortType::Timestamp => "timestamp",
            PortType::Date => "date",
        }
    }

    /// Every spelling of a type a program may write, with the type it names:
    /// each keyword, and the `Str`/`String`/`Json` spellings.
    pub const SPELLINGS: [(&'static str, PortType); 15] = [
        ("u64", PortType::U64),
        ("i64", PortType::I64),
        ("u32", PortType::U32),
        ("i32", PortType::I32),
        ("f64", PortType::F64),
        ("f32", PortType::F32),
        ("bool", PortType::Bool),
        ("str", PortType::Str),
        ("Str", PortType::Str),
        ("String", PortType::Str),
        ("bytes", PortType::Bytes),
        ("json", PortType::Json),
        ("Json", PortType::Json),
        ("timestamp", PortType::Timestamp),
        ("date", PortType::Date),
    ];

    /// Parses a DSL type keyword, any spelling of [`PortType::SPELLINGS`].
    pub fn from_keyword(word: &str) -> Option<PortType> {
        PortType::SPELLINGS.iter().find(|(spelling, _)| *spelling == word).map(|&(_, ty)| ty)
    }

    /// True for types carried by reference (Ref slot pairs on compiled engines).
    pub fn is_ref(self) -> bool {
        matches!(self, PortType::Str | PortType::Bytes | PortType::Json)
    }

    /// True for the numeric scalar types.
    pub fn is_numeric(self) -> bool {
        matches!(self, PortType::U64 | PortType::I64 | PortType::U32 | PortType::I32 | PortType::F64 | PortType::F32)
    }
}

impl fmt::Display for PortType {
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
            assert_eq!(PortType::from_keyword(t.keyword()), Some(t));
        }
        assert_eq!(PortType::from_keyword("String"), Some(PortType::Str));
        assert_eq!(PortType::from_keyword("u128"), None);
    }
}
