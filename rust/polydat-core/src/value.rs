//! Runtime values of the P1 interpreter and the host boundary.

use crate::decimal::Decimal;
use crate::types::{PortType, VectorType};
use crate::wide::Bits128;
use std::fmt;
use std::sync::Arc;

/// One value on a wire. `None` is the absent value: it is not a port type, and a
/// node fed `None` yields `None` unless it declares that it accepts it.
#[derive(Clone, Debug, Default)]
pub enum Value {
    /// The absent value (no port type).
    #[default]
    None,
    /// A `u64`.
    U64(u64),
    /// An `i64`.
    I64(i64),
    /// A `u32`.
    U32(u32),
    /// An `i32`.
    I32(i32),
    /// A `u16`.
    U16(u16),
    /// An `i16`.
    I16(i16),
    /// A `u8`.
    U8(u8),
    /// An `i8`.
    I8(i8),
    /// A `u128` (its bits: see [`crate::wide`]).
    U128(Bits128),
    /// An `i128` (its two's-complement bits: see [`crate::wide`]).
    I128(Bits128),
    /// An `f64`.
    F64(f64),
    /// An `f32`.
    F32(f32),
    /// An `f16` (IEEE binary16).
    F16(half::f16),
    /// A `bool`.
    Bool(bool),
    /// A string.
    Str(Arc<str>),
    /// A byte string.
    Bytes(Arc<[u8]>),
    /// JSON, as its text.
    Json(Arc<str>),
    /// A `timestamp`: milliseconds since 1970-01-01T00:00:00Z.
    Timestamp(i64),
    /// A `date`: days since 1970-01-01.
    Date(i32),
    /// A `decimal(p, s)`: its units and its type.
    Decimal(Decimal),
    /// A list (`vec_i32`, `vec_i64`, `vec_f64`): its element type and its
    /// elements' packed little-endian bytes (see [`crate::vector`]).
    Vector(VectorType, Arc<[u8]>),
}

impl Value {
    /// The port type carried, or `None` for the absent value.
    pub fn port_type(&self) -> Option<PortType> {
        Some(match self {
            Value::None => return None,
            Value::U64(_) => PortType::U64,
            Value::I64(_) => PortType::I64,
            Value::U32(_) => PortType::U32,
            Value::I32(_) => PortType::I32,
            Value::U16(_) => PortType::U16,
            Value::I16(_) => PortType::I16,
            Value::U8(_) => PortType::U8,
            Value::I8(_) => PortType::I8,
            Value::U128(_) => PortType::U128,
            Value::I128(_) => PortType::I128,
            Value::F64(_) => PortType::F64,
            Value::F32(_) => PortType::F32,
            Value::F16(_) => PortType::F16,
            Value::Bool(_) => PortType::Bool,
            Value::Str(_) => PortType::Str,
            Value::Bytes(_) => PortType::Bytes,
            Value::Json(_) => PortType::Json,
            Value::Timestamp(_) => PortType::Timestamp,
            Value::Date(_) => PortType::Date,
            Value::Decimal(d) => PortType::Decimal(d.ty()),
            Value::Vector(v, _) => PortType::Vector(*v),
        })
    }

    /// True for the absent value.
    pub fn is_none(&self) -> bool {
        matches!(self, Value::None)
    }

    /// A string value from anything string-like.
    pub fn str(s: impl Into<Arc<str>>) -> Value {
        Value::Str(s.into())
    }

    /// The decimal of type `ty` whose units are the 16 little-endian `bytes`
    /// of a Ref slot or a column row (`None` for any other length, which no
    /// decimal step writes).
    pub fn decimal_row(bytes: &[u8], ty: crate::types::DecimalType) -> Value {
        Decimal::from_bytes(bytes, ty).map_or(Value::None, Value::Decimal)
    }

    /// The `u128` value `v`.
    pub fn u128(v: u128) -> Value {
        Value::U128(Bits128::of_u128(v))
    }

    /// The `i128` value `v`.
    pub fn i128(v: i128) -> Value {
        Value::I128(Bits128::of_i128(v))
    }

    /// The value of type `ty` (one of [`PortType::is_sixteen_bytes`]) held
    /// by the 16 little-endian `bytes` of a Ref slot or a column row:
    /// `None` for any other length (which no step writes) or type.
    pub fn sixteen_bytes_row(bytes: &[u8], ty: PortType) -> Value {
        match ty {
            PortType::Decimal(d) => Value::decimal_row(bytes, d),
            PortType::U128 => Bits128::from_bytes(bytes).map_or(Value::None, Value::U128),
            PortType::I128 => Bits128::from_bytes(bytes).map_or(Value::None, Value::I128),
            _ => Value::None,
        }
    }

    /// The 16 little-endian bytes a decimal, `u128` or `i128` value is
    /// carried as by reference; `None` for every other value.
    pub fn sixteen_bytes(&self) -> Option<[u8; 16]> {
        match self {
            Value::Decimal(d) => Some(d.to_bytes()),
            Value::U128(b) | Value::I128(b) => Some(b.to_bytes()),
            _ => None,
        }
    }

    /// The bytes a string, byte-string, JSON or list value holds (0 for
    /// any other).
    pub fn payload_len(&self) -> usize {
        match self {
            Value::Str(s) | Value::Json(s) => s.len(),
            Value::Bytes(b) | Value::Vector(_, b) => b.len(),
            _ => 0,
        }
    }

    /// The u64 payload, if this is a `U64`.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Value::U64(v) => Some(*v),
            _ => None,
        }
    }

    /// The value of an integer of any width (`u8` to `i64`) as an i128,
    /// `None` for every other value.
    pub fn as_integer(&self) -> Option<i128> {
        Some(match self {
            Value::U64(v) => (*v).into(),
            Value::I64(v) => (*v).into(),
            Value::U32(v) => (*v).into(),
            Value::I32(v) => (*v).into(),
            Value::U16(v) => (*v).into(),
            Value::I16(v) => (*v).into(),
            Value::U8(v) => (*v).into(),
            Value::I8(v) => (*v).into(),
            _ => return None,
        })
    }

    /// The integer value `v` as a value of integer type `ty`, `None` when
    /// `ty` is no integer type or `v` is outside its range
    /// ([`PortType::integer_range`]).
    pub fn integer_of(ty: PortType, v: i128) -> Option<Value> {
        let (lo, hi) = ty.integer_range()?;
        if !(lo..=hi).contains(&v) {
            return None;
        }
        Some(match ty {
            PortType::U64 => Value::U64(v as u64),
            PortType::I64 => Value::I64(v as i64),
            PortType::U32 => Value::U32(v as u32),
            PortType::I32 => Value::I32(v as i32),
            PortType::U16 => Value::U16(v as u16),
            PortType::I16 => Value::I16(v as i16),
            PortType::U8 => Value::U8(v as u8),
            _ => Value::I8(v as i8),
        })
    }

    /// The f64 payload, if this is an `F64`.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::F64(v) => Some(*v),
            _ => None,
        }
    }

    /// The string payload, if this is a `Str` (or `Json` text).
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) | Value::Json(s) => Some(s),
            _ => None,
        }
    }

    /// Bit-exact equality: f64 compared by bits (so -0.0 != 0.0 and NaN == NaN).
    pub fn same(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::F64(a), Value::F64(b)) => a.to_bits() == b.to_bits(),
            (Value::F32(a), Value::F32(b)) => a.to_bits() == b.to_bits(),
            (Value::F16(a), Value::F16(b)) => a.to_bits() == b.to_bits(),
            (Value::None, Value::None) => true,
            (Value::U64(a), Value::U64(b)) => a == b,
            (Value::I64(a), Value::I64(b)) => a == b,
            (Value::U32(a), Value::U32(b)) => a == b,
            (Value::I32(a), Value::I32(b)) => a == b,
            (Value::U16(a), Value::U16(b)) => a == b,
            (Value::I16(a), Value::I16(b)) => a == b,
            (Value::U8(a), Value::U8(b)) => a == b,
            (Value::I8(a), Value::I8(b)) => a == b,
            (Value::U128(a), Value::U128(b)) | (Value::I128(a), Value::I128(b)) => a == b,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Str(a), Value::Str(b)) | (Value::Json(a), Value::Json(b)) => a == b,
            (Value::Bytes(a), Value::Bytes(b)) => a == b,
            (Value::Timestamp(a), Value::Timestamp(b)) => a == b,
            (Value::Date(a), Value::Date(b)) => a == b,
            (Value::Decimal(a), Value::Decimal(b)) => a == b,
            (Value::Vector(ta, a), Value::Vector(tb, b)) => ta == tb && a == b,
            _ => false,
        }
    }

    /// Feeds the value to `state` so that values [`Value::same`] calls equal
    /// hash equally (floats by their bits): a key for grouping constants.
    pub fn hash_same<H: std::hash::Hasher>(&self, state: &mut H) {
        use std::hash::Hash;
        std::mem::discriminant(self).hash(state);
        match self {
            Value::None => {}
            Value::U64(v) => v.hash(state),
            Value::I64(v) | Value::Timestamp(v) => v.hash(state),
            Value::U32(v) => v.hash(state),
            Value::I32(v) | Value::Date(v) => v.hash(state),
            Value::U16(v) => v.hash(state),
            Value::I16(v) => v.hash(state),
            Value::U8(v) => v.hash(state),
            Value::I8(v) => v.hash(state),
            Value::U128(v) | Value::I128(v) => v.hash(state),
            Value::F64(v) => v.to_bits().hash(state),
            Value::F32(v) => v.to_bits().hash(state),
            Value::F16(v) => v.to_bits().hash(state),
            Value::Bool(v) => v.hash(state),
            Value::Str(v) | Value::Json(v) => hash_sample(v.as_bytes(), state),
            Value::Bytes(v) => hash_sample(v, state),
            Value::Decimal(v) => v.hash(state),
            Value::Vector(t, v) => {
                t.hash(state);
                v.hash(state);
            }
        }
    }

    /// The display text used when a value is rendered into a string
    /// (`str_concat`, interpolation, CSV output): u64 decimal, f64 as Rust
    /// prints it, a timestamp as `YYYY-MM-DDThh:mm:ss.mmmZ`, a date as `YYYY-MM-DD`,
    /// a decimal with every digit of its scale (`901.00`).
    pub fn display_text(&self) -> String {
        let mut out = String::new();
        push_display(&mut out, self);
        out
    }
}

/// The element at `index` of a packed list of element type `ty` (see
/// [`crate::vector`]), as a scalar value of the element type (`I32`, `I64`
/// or `F64`); `None` past the end.
pub fn list_element(ty: VectorType, bytes: &[u8], index: usize) -> Option<Value> {
    let w = ty.width();
    let start = index.checked_mul(w)?;
    let chunk = bytes.get(start..start.checked_add(w)?)?;
    Some(match ty {
        VectorType::I32 => Value::I32(i32::from_le_bytes(chunk.try_into().ok()?)),
        VectorType::I64 => Value::I64(i64::from_le_bytes(chunk.try_into().ok()?)),
        VectorType::F64 => Value::F64(f64::from_le_bytes(chunk.try_into().ok()?)),
    })
}

/// Appends the display text of a packed list of element type `ty`: its
/// elements as their scalar display text, comma-separated in brackets
/// (`[3,9,14]`, `[]`, `[0.5,-1]`); a valid JSON array for the integer lists
/// and for float lists of finite elements.
pub fn push_list_text(ty: VectorType, out: &mut String, bytes: &[u8]) {
    out.push('[');
    let mut index = 0;
    while let Some(element) = list_element(ty, bytes, index) {
        if index > 0 {
            out.push(',');
        }
        push_display(out, &element);
        index += 1;
    }
    out.push(']');
}

/// Bytes of a long text or byte string that [`Value::hash_same`] reads:
/// this many at each end (a shorter one is hashed whole).
const HASH_SAMPLE_END: usize = 256;

/// Feeds `bytes` to `state` as [`Value::hash_same`] does: its length and,
/// past `2 × HASH_SAMPLE_END` bytes, only its two ends. Equal bytes hash
/// equally (what a hash key needs; [`Value::same`] still compares every
/// byte), and a constant of many MiB (a text pool) costs a few hundred
/// bytes of hashing instead of a pass over all of it.
fn hash_sample<H: std::hash::Hasher>(bytes: &[u8], state: &mut H) {
    state.write_usize(bytes.len());
    if bytes.len() <= 2 * HASH_SAMPLE_END {
        state.write(bytes);
    } else {
        state.write(&bytes[..HASH_SAMPLE_END]);
        state.write(&bytes[bytes.len() - HASH_SAMPLE_END..]);
    }
}

/// Appends `v`'s display text ([`Value::display_text`]) to `out`.
pub fn push_display(out: &mut String, v: &Value) {
    use std::fmt::Write;
    let mut int = itoa::Buffer::new();
    match v {
        Value::None => {}
        Value::U64(v) => out.push_str(int.format(*v)),
        Value::I64(v) => out.push_str(int.format(*v)),
        Value::U32(v) => out.push_str(int.format(*v)),
        Value::I32(v) => out.push_str(int.format(*v)),
        Value::U16(v) => out.push_str(int.format(*v)),
        Value::I16(v) => out.push_str(int.format(*v)),
        Value::U8(v) => out.push_str(int.format(*v)),
        Value::I8(v) => out.push_str(int.format(*v)),
        Value::U128(v) => out.push_str(int.format(v.as_u128())),
        Value::I128(v) => out.push_str(int.format(v.as_i128())),
        Value::F64(v) => {
            let _ = write!(out, "{v}");
        }
        Value::F32(v) => {
            let _ = write!(out, "{v}");
        }
        Value::F16(v) => {
            let _ = write!(out, "{}", f16_shortest(*v));
        }
        Value::Bool(v) => out.push_str(if *v { "true" } else { "false" }),
        Value::Str(s) | Value::Json(s) => out.push_str(s),
        Value::Bytes(b) => push_hex(out, b),
        Value::Timestamp(ms) => crate::calendar::push_timestamp_text(out, *ms),
        Value::Date(days) => crate::calendar::push_date_text(out, *days),
        Value::Decimal(d) => {
            let _ = write!(out, "{d}");
        }
        Value::Vector(t, bytes) => push_list_text(*t, out, bytes),
    }
}

/// Appends `bytes` as lower-case hex, two digits a byte (written through
/// a buffer a run of bytes at a time, not a character at a time).
pub fn push_hex(out: &mut String, bytes: &[u8]) {
    let mut buf = [0u8; 128];
    for run in bytes.chunks(buf.len() / 2) {
        for (pair, &b) in buf.chunks_exact_mut(2).zip(run) {
            pair.copy_from_slice(&hex_pair(b));
        }
        // Hex digits are ASCII.
        out.push_str(std::str::from_utf8(&buf[..2 * run.len()]).unwrap_or_default());
    }
}

/// The two lower-case hex digits of `b`, the high one first.
#[inline]
pub fn hex_pair(b: u8) -> [u8; 2] {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    [DIGITS[usize::from(b >> 4)], DIGITS[usize::from(b & 15)]]
}

/// The attribution form used in error messages: `U64(5)`, `F64(1.5)`,
/// `Str("abc")` (truncated at 40 characters), `None`.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::None => f.write_str("None"),
            Value::U64(v) => write!(f, "U64({v})"),
            Value::I64(v) => write!(f, "I64({v})"),
            Value::U32(v) => write!(f, "U32({v})"),
            Value::I32(v) => write!(f, "I32({v})"),
            Value::U16(v) => write!(f, "U16({v})"),
            Value::I16(v) => write!(f, "I16({v})"),
            Value::U8(v) => write!(f, "U8({v})"),
            Value::I8(v) => write!(f, "I8({v})"),
            Value::U128(v) => write!(f, "U128({})", v.as_u128()),
            Value::I128(v) => write!(f, "I128({})", v.as_i128()),
            Value::F64(v) => write!(f, "F64({v:?})"),
            Value::F32(v) => write!(f, "F32({v:?})"),
            Value::F16(v) => write!(f, "F16({v:?})"),
            Value::Bool(v) => write!(f, "Bool({v})"),
            Value::Str(s) => {
                let shown: String = s.chars().take(40).collect();
                if shown.len() < s.len() {
                    write!(f, "Str({shown:?}…)")
                } else {
                    write!(f, "Str({shown:?})")
                }
            }
            Value::Bytes(b) => write!(f, "Bytes(len={})", b.len()),
            Value::Json(_) => f.write_str("Json"),
            Value::Timestamp(v) => write!(f, "Timestamp({v})"),
            Value::Date(v) => write!(f, "Date({v})"),
            Value::Decimal(v) => write!(f, "Decimal({v})"),
            Value::Vector(t, b) => write!(f, "{}(len={})", t.keyword(), t.len_of(b).unwrap_or(0)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_is_two_digits_a_byte_past_a_run() {
        let bytes: Vec<u8> = (0..=255u8).chain(0..=255).collect();
        for len in [0, 1, 63, 64, 65, 512] {
            let mut s = String::from("kept ");
            push_hex(&mut s, &bytes[..len]);
            let want: String = bytes[..len].iter().map(|b| format!("{b:02x}")).collect();
            assert_eq!(s, format!("kept {want}"));
        }
    }

    #[test]
    fn same_is_bit_exact() {
        assert!(!Value::F64(0.0).same(&Value::F64(-0.0)));
        assert!(Value::F64(f64::NAN).same(&Value::F64(f64::NAN)));
        assert!(!Value::U64(1).same(&Value::I64(1)));
        assert!(Value::None.same(&Value::None));
    }

    fn digest(v: &Value) -> u64 {
        use std::hash::Hasher;
        let mut state = std::collections::hash_map::DefaultHasher::new();
        v.hash_same(&mut state);
        state.finish()
    }

    #[test]
    fn long_texts_hash_by_their_ends_and_still_compare_whole() {
        let text = "furiously regular deposits ".repeat(1000);
        let mut middle = text.clone().into_bytes();
        middle[text.len() / 2] = b'X';
        let (a, b) = (Value::Str(text.as_str().into()), Value::Str(String::from_utf8(middle).unwrap().into()));
        // Equal values hash equally; the middle is not read...
        assert_eq!(digest(&a), digest(&Value::Str(text.as_str().into())));
        assert_eq!(digest(&a), digest(&b));
        // ...but the two are not the same value,
        assert!(!a.same(&b));
        // and the length and both ends are hashed.
        assert_ne!(digest(&a), digest(&Value::Str(format!("{text}.").into())));
        assert_ne!(digest(&a), digest(&Value::Str(format!(".{}", &text[1..]).into())));
        let short = Value::Str("a short text".into());
        assert_ne!(digest(&short), digest(&Value::Str("a shart text".into())));
    }

    #[test]
    fn a_decimal_keeps_values_three_words() {
        assert_eq!(std::mem::size_of::<Value>(), 24);
        let v = Value::Decimal(Decimal::parse_literal("901.00").unwrap());
        assert_eq!(v.display_text(), "901.00");
        assert_eq!(v.to_string(), "Decimal(901.00)");
    }

    #[test]
    fn wide_integers_keep_values_three_words_and_print_every_digit() {
        assert_eq!(std::mem::size_of::<Value>(), 24);
        assert_eq!(Value::u128(u128::MAX).display_text(), "340282366920938463463374607431768211455");
        assert_eq!(Value::i128(i128::MIN).to_string(), "I128(-170141183460469231731687303715884105728)");
        let row = Value::i128(-2).sixteen_bytes().unwrap();
        assert!(Value::sixteen_bytes_row(&row, PortType::I128).same(&Value::i128(-2)));
        assert!(Value::sixteen_bytes_row(&row, PortType::U128).same(&Value::u128(u128::MAX - 1)));
        assert!(!Value::u128(1).same(&Value::i128(1)));
    }

    #[test]
    fn attribution_form() {
        assert_eq!(Value::U64(20).to_string(), "U64(20)");
        assert_eq!(Value::F64(1.0).to_string(), "F64(1.0)");
        assert_eq!(Value::str("abc").to_string(), "Str(\"abc\")");
        let long = "x".repeat(50);
        assert!(Value::str(long).to_string().ends_with("…)"));
    }
}

/// The f64 holding the shortest decimal that reads back (rounding to
/// nearest, ties to even) to the f16 `x`: its shortest f64 text is the f16's
/// shortest text (`0.1` for the f16 nearest 0.1, where the f16's exact value
/// is 0.0999755859375). Non-finite values and zeros are returned as they are.
pub fn f16_shortest(x: half::f16) -> f64 {
    let exact = x.to_f64();
    if !exact.is_finite() || exact == 0.0 {
        return exact;
    }
    // An f16 needs at most 5 significant digits to be told apart.
    for digits in 1..=5 {
        let text = format!("{:.*e}", digits - 1, exact);
        let candidate: f64 = text.parse().expect("formatted float text parses");
        if f16_nearest(candidate).to_bits() == x.to_bits() {
            return candidate;
        }
    }
    exact
}

/// The f16 nearest `x` (IEEE round to nearest, ties to even): past the
/// largest finite f16 (65504) a value rounds to an infinity, as IEEE
/// conversion does; NaN stays NaN.
pub fn f16_nearest(x: f64) -> half::f16 {
    half::f16::from_f64(x)
}
