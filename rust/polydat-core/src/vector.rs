//! Typed integer and float lists: the `vec_i32`, `vec_i64` and `vec_f64`
//! port types.
//!
//! A list travels as the little-endian bytes of its elements, packed
//! (4 bytes an `i32`, 8 an `i64` or `f64`), so every engine moves it with
//! the by-reference plumbing strings and byte strings already use (Ref slot
//! pairs, scratch entries, column rows); the port type says how to read the
//! bytes. The element types are [`crate::types::VectorType`], reading an
//! element and a list's display text (`[1,2,3]`, what an interpolation or
//! a `str` cast shows) are [`crate::value`]'s (re-exported here); this
//! module owns the packing and the JSON array the `str_to_vec_*` parses,
//! literals and host writes read.

pub use crate::types::VectorType;
use crate::value::Value;
pub use crate::value::{list_element as element, push_list_text as push_text};
use std::fmt;
use std::sync::Arc;

/// Packs `i32` elements into a list value.
pub fn from_i32s(elements: &[i32]) -> Value {
    Value::Vector(VectorType::I32, elements.iter().flat_map(|e| e.to_le_bytes()).collect::<Vec<u8>>().into())
}

/// Packs `i64` elements into a list value.
pub fn from_i64s(elements: &[i64]) -> Value {
    Value::Vector(VectorType::I64, elements.iter().flat_map(|e| e.to_le_bytes()).collect::<Vec<u8>>().into())
}

/// Packs `f64` elements into a list value.
pub fn from_f64s(elements: &[f64]) -> Value {
    Value::Vector(VectorType::F64, elements.iter().flat_map(|e| e.to_le_bytes()).collect::<Vec<u8>>().into())
}

/// The list value of type `ty` whose packed bytes are `bytes` (a Ref slot's
/// or a column row's); `None` when the length is no whole number of
/// elements.
pub fn from_row(ty: VectorType, bytes: &[u8]) -> Value {
    match ty.len_of(bytes) {
        Some(_) => Value::Vector(ty, Arc::from(bytes)),
        None => Value::None,
    }
}

/// The integer elements of a packed `vec_i32` or `vec_i64` list, widened to
/// i64 (`None` for a float list or a malformed length).
pub fn integers(ty: VectorType, bytes: &[u8]) -> Option<Vec<i64>> {
    match ty {
        VectorType::I32 => {
            ty.len_of(bytes)?;
            Some(bytes.chunks_exact(4).map(|c| i64::from(i32::from_le_bytes([c[0], c[1], c[2], c[3]]))).collect())
        }
        VectorType::I64 => {
            ty.len_of(bytes)?;
            Some(bytes.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().expect("8-byte chunk"))).collect())
        }
        VectorType::F64 => None,
    }
}

/// The float elements of a packed `vec_f64` list (`None` for an integer
/// list or a malformed length).
pub fn floats(ty: VectorType, bytes: &[u8]) -> Option<Vec<f64>> {
    match ty {
        VectorType::F64 => {
            ty.len_of(bytes)?;
            Some(bytes.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().expect("8-byte chunk"))).collect())
        }
        _ => None,
    }
}

/// What is wrong with a text read as a list (see [`parse`]). Its
/// `Display` is the wording literals and host writes use; the
/// `str_to_vec_*` nodes word it as upstream's nodes do
/// ([`ParseError::node_message`]).
#[derive(Clone, Debug, PartialEq)]
pub enum ParseError {
    /// The text is not JSON.
    NotJson {
        /// The text read (trimmed).
        text: String,
        /// The JSON reader's own words.
        reason: String,
    },
    /// The text is JSON but no array.
    NotArray {
        /// The text read (trimmed).
        text: String,
    },
    /// An element is not a number of the element type (not an integer, or
    /// not a number at all).
    NotOfType {
        /// The text read (trimmed).
        text: String,
        /// The element's index.
        index: usize,
        /// The element as JSON text.
        element: String,
        /// What it should be: "an integer" or "a number".
        want: &'static str,
    },
    /// An integer element lies outside the i32 range (it fits in i64).
    OutOfRange {
        /// The text read (trimmed).
        text: String,
        /// The element's index.
        index: usize,
        /// The element.
        element: i64,
    },
}

impl ParseError {
    /// The failure text of node `node` (`str_to_vec_i32`, ...), worded as
    /// upstream's parse nodes word theirs.
    pub fn node_message(&self, node: &str) -> String {
        match self {
            ParseError::NotJson { text, reason } => format!("{node}: cannot parse {text:?} as a JSON array: {reason}"),
            ParseError::NotArray { text } => format!("{node}: parsed JSON is not an array: {text:?}"),
            ParseError::NotOfType { text, element, want, .. } => {
                format!("{node}: element {element} is not {want} in {text:?}")
            }
            ParseError::OutOfRange { element, .. } => {
                format!("{node}: element {element} is outside i32 [{}, {}]", i32::MIN, i32::MAX)
            }
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::NotJson { text, reason } => write!(f, "cannot read {text:?} as a JSON array: {reason}"),
            ParseError::NotArray { text } => write!(f, "{text:?} is not a JSON array"),
            ParseError::NotOfType { text, index, element, want } => {
                write!(f, "element {index} ({element}) of {text:?} is not {want}")
            }
            ParseError::OutOfRange { text, index, element } => {
                write!(f, "element {index} ({element}) of {text:?} is not an integer in the i32 range")
            }
        }
    }
}

/// Parses `text` as a JSON array whose elements are all of `ty`'s element
/// type (integers in range for the integer lists; any JSON number for
/// `vec_f64`), or says which element, or what about the text, is wrong.
/// Surrounding white space is ignored; an empty array is an empty list.
pub fn parse(ty: VectorType, text: &str) -> Result<Value, ParseError> {
    let trimmed = text.trim();
    let parsed: serde_json::Value = serde_json::from_str(trimmed)
        .map_err(|e| ParseError::NotJson { text: trimmed.to_string(), reason: e.to_string() })?;
    let serde_json::Value::Array(items) = parsed else {
        return Err(ParseError::NotArray { text: trimmed.to_string() });
    };
    let want = if ty == VectorType::F64 { "a number" } else { "an integer" };
    let not_of_type = |index: usize, item: &serde_json::Value| ParseError::NotOfType {
        text: trimmed.to_string(),
        index,
        element: item.to_string(),
        want,
    };
    match ty {
        VectorType::I32 => {
            let mut out = Vec::with_capacity(items.len());
            for (index, item) in items.iter().enumerate() {
                let wide = item.as_i64().ok_or_else(|| not_of_type(index, item))?;
                let narrow = i32::try_from(wide).map_err(|_| ParseError::OutOfRange {
                    text: trimmed.to_string(),
                    index,
                    element: wide,
                })?;
                out.push(narrow);
            }
            Ok(from_i32s(&out))
        }
        VectorType::I64 => {
            let mut out = Vec::with_capacity(items.len());
            for (index, item) in items.iter().enumerate() {
                out.push(item.as_i64().ok_or_else(|| not_of_type(index, item))?);
            }
            Ok(from_i64s(&out))
        }
        VectorType::F64 => {
            let mut out = Vec::with_capacity(items.len());
            for (index, item) in items.iter().enumerate() {
                out.push(item.as_f64().ok_or_else(|| not_of_type(index, item))?);
            }
            Ok(from_f64s(&out))
        }
    }
}

/// [`parse`] for a value a host writes into a list slot: the same, but a
/// `vec_f64` also takes the non-finite elements as Python's `json.dumps`
/// spells them (`NaN`, `Infinity`, `-Infinity`), since a host's list of
/// floats arrives as that text. Any other text fails as [`parse`] says.
pub fn parse_host(ty: VectorType, text: &str) -> Result<Value, ParseError> {
    let strict = parse(ty, text);
    if strict.is_ok() || ty != VectorType::F64 {
        return strict;
    }
    let inner = text.trim().strip_prefix('[').and_then(|t| t.strip_suffix(']'));
    let lenient = inner.and_then(|inner| {
        inner
            .split(',')
            .map(|item| match item.trim() {
                "NaN" => Some(f64::NAN),
                "Infinity" => Some(f64::INFINITY),
                "-Infinity" => Some(f64::NEG_INFINITY),
                number => serde_json::from_str::<serde_json::Number>(number).ok().and_then(|n| n.as_f64()),
            })
            .collect::<Option<Vec<f64>>>()
    });
    match lenient {
        Some(elements) => Ok(from_f64s(&elements)),
        None => strict,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(v: &Value) -> String {
        v.display_text()
    }

    #[test]
    fn lists_parse_from_json_and_render_as_their_elements() {
        assert_eq!(text(&parse(VectorType::I32, " [3, 9, -14] ").unwrap()), "[3,9,-14]");
        assert_eq!(text(&parse(VectorType::I64, "[9007199254740993]").unwrap()), "[9007199254740993]");
        assert_eq!(text(&parse(VectorType::F64, "[0.5, -1, 2e3]").unwrap()), "[0.5,-1,2000]");
        assert_eq!(text(&parse(VectorType::I32, "[]").unwrap()), "[]");
    }

    #[test]
    fn a_bad_list_is_refused_naming_the_element() {
        let e = parse(VectorType::I32, "[1, 2147483648]").unwrap_err().to_string();
        assert!(e.contains("element 1 (2147483648)") && e.contains("i32"), "{e}");
        assert!(parse(VectorType::I64, "[1.5]").unwrap_err().to_string().contains("element 0 (1.5)"));
        assert!(parse(VectorType::I64, "{\"a\": 1}").unwrap_err().to_string().contains("not a JSON array"));
        assert!(parse(VectorType::F64, "[1,").unwrap_err().to_string().contains("cannot read"));
        assert!(parse(VectorType::F64, "[1, \"x\"]").unwrap_err().to_string().contains("element 1 (\"x\")"));
        assert!(parse(VectorType::F64, "[NaN]").is_err(), "JSON has no NaN");
    }

    #[test]
    fn a_host_writes_non_finite_floats_as_python_spells_them() {
        let v = parse_host(VectorType::F64, "[NaN, Infinity, -Infinity, 1.5]").unwrap();
        let Value::Vector(ty, bytes) = v else { panic!() };
        let got = floats(ty, &bytes).unwrap();
        assert!(got[0].is_nan() && got[1] == f64::INFINITY && got[2] == f64::NEG_INFINITY && got[3] == 1.5);
        assert!(parse_host(VectorType::F64, "[NaN, x]").unwrap_err().to_string().contains("cannot read"));
        assert!(parse_host(VectorType::I64, "[NaN]").is_err());
    }

    #[test]
    fn packed_bytes_read_back_element_by_element() {
        let Value::Vector(ty, bytes) = from_i64s(&[-1, 7]) else { panic!() };
        assert_eq!(ty.len_of(&bytes), Some(2));
        assert!(element(ty, &bytes, 1).unwrap().same(&Value::I64(7)));
        assert!(element(ty, &bytes, 2).is_none());
        assert_eq!(integers(ty, &bytes), Some(vec![-1, 7]));
        assert!(from_row(VectorType::I32, &[1, 2, 3]).is_none());
    }
}
