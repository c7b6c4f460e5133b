//! The slot encoding of scalars: how each scalar type is carried in one
//! 64-bit slot word, the language's NaN policy on results, and the
//! conversions between slot words and [`Value`]s. The kits
//! ([`super::kit`]) and the by-bytes forms ([`super::by_bytes`]) build on it.

use crate::types::PortType;
use crate::value::Value;

/// A scalar carried in one 64-bit slot (its slot encoding).
pub trait Scalar: Copy + Send + Sync + 'static {
    /// The port type of this Rust type.
    const TYPE: PortType;
    /// Unpacks a value of this type (`None` for any other variant).
    fn from_value(v: &Value) -> Option<Self>;
    /// Packs into a value.
    fn into_value(self) -> Value;
    /// Stores into an output value: in place when it already holds this type
    /// (the steady state), which avoids rebuilding and copying the whole enum.
    fn store(self, out: &mut Value);
    /// Encodes into a slot: f64 as bits, narrow ints extended, bool 0/1.
    fn to_slot(self) -> u64;
    /// Decodes from a slot.
    fn from_slot(s: u64) -> Self;
    /// The value as a node result, under the language's NaN policy: a NaN
    /// result is the canonical quiet NaN of its type (`0x7ff8000000000000`
    /// for f64, `0x7fc00000` for f32), whatever sign or payload the hardware
    /// and the compiler's operand order produced; every other value, and
    /// every non-float type, is unchanged. Kits apply it to every scalar a
    /// rule returns, so each engine form of a node gives the same bits.
    #[inline(always)]
    fn canonical(self) -> Self {
        self
    }
}

/// The bits of the canonical f64 NaN (see [`Scalar::canonical`]).
pub const CANONICAL_NAN_F64: u64 = 0x7ff8_0000_0000_0000;
/// The bits of the canonical f32 NaN (see [`Scalar::canonical`]).
pub const CANONICAL_NAN_F32: u32 = 0x7fc0_0000;
/// The bits of the canonical f16 NaN (see [`Scalar::canonical`]).
pub const CANONICAL_NAN_F16: u16 = 0x7e00;

/// `v` under the NaN policy ([`Scalar::canonical`]): float values of a
/// `Value` canonicalised in place; other variants untouched.
#[inline]
pub fn canonical_value(v: &mut Value) {
    match v {
        Value::F64(x) => *x = x.canonical(),
        Value::F32(x) => *x = x.canonical(),
        Value::F16(x) => *x = x.canonical(),
        _ => {}
    }
}

macro_rules! scalar {
    ($t:ty, $pt:ident, $var:ident, |$a:ident| $to:expr, |$s:ident| $from:expr) => {
        scalar!($t, $pt, $var, |$a| $to, |$s| $from, canonical: |v| v);
    };
    ($t:ty, $pt:ident, $var:ident, |$a:ident| $to:expr, |$s:ident| $from:expr, canonical: |$v:ident| $canon:expr) => {
        impl Scalar for $t {
            const TYPE: PortType = PortType::$pt;
            #[inline]
            fn from_value(v: &Value) -> Option<Self> {
                match v {
                    Value::$var(x) => Some(*x),
                    _ => None,
                }
            }
            #[inline]
            fn into_value(self) -> Value {
                Value::$var(self)
            }
            #[inline]
            fn store(self, out: &mut Value) {
                match out {
                    Value::$var(x) => *x = self,
                    other => *other = Value::$var(self),
                }
            }
            #[inline]
            fn to_slot(self) -> u64 {
                let $a = self;
                $to
            }
            #[inline]
            fn from_slot($s: u64) -> Self {
                $from
            }
            #[inline(always)]
            fn canonical(self) -> Self {
                let $v = self;
                $canon
            }
        }
    };
}

scalar!(u64, U64, U64, |a| a, |s| s);
scalar!(i64, I64, I64, |a| a as u64, |s| s as i64);
scalar!(u32, U32, U32, |a| a as u64, |s| s as u32);
scalar!(i32, I32, I32, |a| a as i64 as u64, |s| s as i32);
scalar!(u16, U16, U16, |a| a as u64, |s| s as u16);
scalar!(i16, I16, I16, |a| a as i64 as u64, |s| s as i16);
scalar!(u8, U8, U8, |a| a as u64, |s| s as u8);
scalar!(i8, I8, I8, |a| a as i64 as u64, |s| s as i8);
// The NaN test and the choice are made on the bits, as integers: a float-level
// `if x.is_nan() { NAN } else { x }` may be folded to `x` by the optimizer,
// whose float model treats every NaN as interchangeable (a release build did).
scalar!(f64, F64, F64, |a| a.to_bits(), |s| f64::from_bits(s), canonical: |v| {
    f64::from_bits(canonical_f64_bits(v.to_bits()))
});
scalar!(f32, F32, F32, |a| a.to_bits() as u64, |s| f32::from_bits(s as u32), canonical: |v| {
    let bits = v.to_bits();
    f32::from_bits(if bits & 0x7fff_ffff > 0x7f80_0000 { CANONICAL_NAN_F32 } else { bits })
});
scalar!(half::f16, F16, F16, |a| a.to_bits() as u64, |s| half::f16::from_bits(s as u16), canonical: |v| {
    let bits = v.to_bits();
    half::f16::from_bits(if bits & 0x7fff > 0x7c00 { CANONICAL_NAN_F16 } else { bits })
});

/// The bits of an f64 under the NaN policy: any NaN's bits become
/// [`CANONICAL_NAN_F64`], every other value's are unchanged.
#[inline(always)]
pub fn canonical_f64_bits(bits: u64) -> u64 {
    if bits & 0x7fff_ffff_ffff_ffff > 0x7ff0_0000_0000_0000 {
        CANONICAL_NAN_F64
    } else {
        bits
    }
}
scalar!(bool, Bool, Bool, |a| a as u64, |s| s != 0);

/// A `timestamp` in a kit rule: milliseconds since 1970-01-01T00:00:00Z.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Millis(pub i64);

/// A `date` in a kit rule: days since 1970-01-01.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Days(pub i32);

macro_rules! calendar_scalar {
    ($t:ident, $inner:ty, $pt:ident) => {
        impl Scalar for $t {
            const TYPE: PortType = PortType::$pt;
            #[inline]
            fn from_value(v: &Value) -> Option<Self> {
                match v {
                    Value::$pt(x) => Some($t(*x)),
                    _ => None,
                }
            }
            #[inline]
            fn into_value(self) -> Value {
                Value::$pt(self.0)
            }
            #[inline]
            fn store(self, out: &mut Value) {
                match out {
                    Value::$pt(x) => *x = self.0,
                    other => *other = Value::$pt(self.0),
                }
            }
            #[inline]
            fn to_slot(self) -> u64 {
                self.0 as i64 as u64
            }
            #[inline]
            fn from_slot(s: u64) -> Self {
                $t(s as $inner)
            }
        }
    };
}

calendar_scalar!(Millis, i64, Timestamp);
calendar_scalar!(Days, i32, Date);

/// Decodes a slot of port type `ty` into a value (scalars only).
#[inline]
pub fn slot_to_value(ty: PortType, s: u64) -> Value {
    match ty {
        PortType::U64 => Value::U64(s),
        PortType::I64 => Value::I64(s as i64),
        PortType::U32 => Value::U32(s as u32),
        PortType::I32 => Value::I32(s as i32),
        PortType::U16 => Value::U16(s as u16),
        PortType::I16 => Value::I16(s as i16),
        PortType::U8 => Value::U8(s as u8),
        PortType::I8 => Value::I8(s as i8),
        PortType::F64 => Value::F64(f64::from_bits(s)),
        PortType::F32 => Value::F32(f32::from_bits(s as u32)),
        PortType::F16 => Value::F16(half::f16::from_bits(s as u16)),
        PortType::Bool => Value::Bool(s != 0),
        PortType::Timestamp => Value::Timestamp(s as i64),
        PortType::Date => Value::Date(s as i32),
        PortType::Str
        | PortType::Bytes
        | PortType::Json
        | PortType::Decimal(_)
        | PortType::Vector(_)
        | PortType::U128
        | PortType::I128 => Value::None,
    }
}

/// Encodes a scalar value into its slot; `None` for Ref types and `None`.
#[inline]
pub fn value_to_slot(v: &Value) -> Option<u64> {
    Some(match v {
        Value::U64(x) => x.to_slot(),
        Value::I64(x) => x.to_slot(),
        Value::U32(x) => x.to_slot(),
        Value::I32(x) => x.to_slot(),
        Value::U16(x) => x.to_slot(),
        Value::I16(x) => x.to_slot(),
        Value::U8(x) => x.to_slot(),
        Value::I8(x) => x.to_slot(),
        Value::F64(x) => x.to_slot(),
        Value::F32(x) => x.to_slot(),
        Value::F16(x) => x.to_slot(),
        Value::Bool(x) => x.to_slot(),
        Value::Timestamp(x) => Millis(*x).to_slot(),
        Value::Date(x) => Days(*x).to_slot(),
        _ => return None,
    })
}
