//! The conversions of `f16` (IEEE binary16, carried in one slot word as its
//! 16 bits). Class-A adapters (inserted on a wire by themselves) are the
//! exact ones: `f16` widens to `f32` and `f64`, the integers whose every
//! value an f16 holds (`u8`, `i8`) widen to `f16`, and an f16 becomes its
//! shortest display text (`str`), its two little-endian bytes, a `bool`
//! (nonzero) and back from one (1 or 0). Class-B casts, written with `as`:
//! `f64` and `f32` narrow to the nearest f16 (ties to even), `str` reads a
//! number the same way, and exactly two bytes read as an f16. As `f64 as
//! f32` does, a narrowing of a finite value past f16's range (a magnitude
//! that rounds beyond 65504) fails the evaluation rather than giving an
//! infinity; NaN and infinities pass through. A float never becomes an
//! integer by `as`; arithmetic over an f16 widens it to f64 first.

use super::narrow::converting;
use super::{exactly, out_of_range, read_text};
use crate::node::by_bytes::to_text;
use crate::node::kit::{map1, str_map, to_ref, try_map1};
use crate::node::kit_text::bytes_map;
use crate::node::{wire, NodeDef, Outputs};
use crate::types::PortType::{self, Bool, Bytes, Str, F16, F32, F64, I8, U8};
use crate::value::{f16_nearest, push_display, Value};
use half::f16;

/// Declares a one-wire node over `f16` values.
macro_rules! f16_node {
    ($id:ident, $name:literal, $from:ident => $to:ident, $doc:literal, $build:expr) => {
        /// A one-wire conversion node (see its `name` and `doc` fields).
        pub const $id: NodeDef = NodeDef {
            name: $name,
            category: "adapter",
            doc: $doc,
            params: &[wire("input", $from)],
            outputs: Outputs::One($to),
            build: |_| Ok($build),
            ..NodeDef::BASE
        };
    };
}

/// `x` rounded to the nearest f16, or why it cannot be: a finite value
/// whose rounding lands past f16's largest finite value (65504).
pub fn narrow_to_f16(x: f64) -> Result<f16, String> {
    let y = f16_nearest(x);
    if x.is_finite() && !y.is_finite() {
        return Err(out_of_range(x, "f16"));
    }
    Ok(y)
}

f16_node!(F16_TO_F64, "__f16_to_f64", F16 => F64, "Automatic adapter F16 -> F64 (exact).",
    map1(|x: f16| x.to_f64()));
f16_node!(F16_TO_F32, "__f16_to_f32", F16 => F32, "Automatic adapter F16 -> F32 (exact).",
    map1(|x: f16| x.to_f32()));
f16_node!(U8_TO_F16, "__u8_to_f16", U8 => F16, "Automatic adapter U8 -> F16 (exact).",
    map1(|x: u8| f16::from_f32(f32::from(x))));
f16_node!(I8_TO_F16, "__i8_to_f16", I8 => F16, "Automatic adapter I8 -> F16 (exact).",
    map1(|x: i8| f16::from_f32(f32::from(x))));
f16_node!(F16_TO_STR, "__f16_to_str", F16 => Str, "Automatic adapter F16 -> Str: the shortest text that reads back to the same f16.",
    to_text((|x, out| push_display(out, &Value::F16(x))) as fn(f16, &mut String)));
f16_node!(F16_TO_BYTES, "__f16_to_bytes", F16 => Bytes, "Automatic adapter F16 -> Bytes: its 2 little-endian bytes.",
    to_ref(|x: f16| x.to_le_bytes().to_vec()));
f16_node!(F16_TO_BOOL, "__f16_to_bool", F16 => Bool, "Automatic adapter F16 -> Bool: nonzero is true.",
    map1(|x: f16| x.to_f32() != 0.0));
f16_node!(BOOL_TO_F16, "__bool_to_f16", Bool => F16, "Automatic adapter Bool -> F16: 1 or 0.",
    map1(|x: bool| if x { f16::ONE } else { f16::ZERO }));

f16_node!(F64_TO_F16, "__f64_to_f16", F64 => F16,
    "Cast f64 -> f16: rounds to nearest, ties to even (a finite value past f16's range fails).",
    try_map1(narrow_to_f16 as fn(f64) -> Result<f16, String>));
f16_node!(F32_TO_F16, "__f32_to_f16", F32 => F16,
    "Cast f32 -> f16: rounds to nearest, ties to even (a finite value past f16's range fails).",
    try_map1((|x: f32| narrow_to_f16(f64::from(x))) as fn(f32) -> Result<f16, String>));
f16_node!(STR_TO_F16_CAST, "__str_to_f16", Str => F16,
    "Cast str -> f16: trims, parses and rounds to nearest; a malformed value, or a finite one past f16's range, fails the evaluation.",
    str_map(|s: &str| read_text(s, "a number", "__str_to_f16", read_f16)));
f16_node!(BYTES_TO_F16, "__bytes_to_f16", Bytes => F16, "Cast bytes -> f16: exactly 2 little-endian bytes.",
    bytes_map(|b: &[u8]| exactly::<2>(b, "f16").map(f16::from_le_bytes)));

/// A trimmed number text read as the nearest f16 (see [`narrow_to_f16`]).
pub fn read_f16(raw: &str) -> Result<f16, String> {
    narrow_to_f16(raw.parse::<f64>().map_err(|e| e.to_string())?)
}

/// The class-A adapters of `f16` (see the module doc).
pub const ADAPTERS: &[NodeDef] =
    &[F16_TO_F64, F16_TO_F32, U8_TO_F16, I8_TO_F16, F16_TO_STR, F16_TO_BYTES, F16_TO_BOOL, BOOL_TO_F16];

/// The class-B casts into `f16` (see the module doc).
pub const CASTS: &[NodeDef] = &[F64_TO_F16, F32_TO_F16, STR_TO_F16_CAST, BYTES_TO_F16];

/// The class-A adapter of this module converting `from` into `to`, if any.
pub fn auto_adapter(from: PortType, to: PortType) -> Option<&'static NodeDef> {
    converting(ADAPTERS, from, to)
}

/// The class-B cast of this module converting `from` into `to`, if any.
pub fn cast_node(from: PortType, to: PortType) -> Option<&'static NodeDef> {
    converting(CASTS, from, to)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::f16_shortest;

    #[test]
    fn narrowing_rounds_to_nearest_even_and_refuses_past_the_range() {
        assert_eq!(narrow_to_f16(0.1).unwrap().to_bits(), 0x2e66);
        // 2049 lies halfway between 2048 and 2050: ties to the even 2048.
        assert_eq!(narrow_to_f16(2049.0).unwrap().to_f64(), 2048.0);
        assert_eq!(narrow_to_f16(2051.0).unwrap().to_f64(), 2052.0);
        assert_eq!(narrow_to_f16(65504.0).unwrap().to_f64(), 65504.0);
        assert_eq!(narrow_to_f16(65519.0).unwrap().to_f64(), 65504.0, "rounds down to the largest");
        assert_eq!(narrow_to_f16(65520.0).unwrap_err(), "value 65520 does not fit in f16");
        assert_eq!(narrow_to_f16(-1e6).unwrap_err(), "value -1000000 does not fit in f16");
        assert!(narrow_to_f16(f64::INFINITY).unwrap().is_infinite());
        assert!(narrow_to_f16(f64::NAN).unwrap().is_nan());
        assert_eq!(narrow_to_f16(1e-8).unwrap().to_bits(), 0, "underflows to zero");
    }

    #[test]
    fn text_is_the_shortest_that_reads_back() {
        for (x, text) in [(0.1, "0.1"), (1.0 / 3.0, "0.3333"), (65504.0, "65500"), (6e-8, "0.00000006"), (-2.5, "-2.5")]
        {
            let h = narrow_to_f16(x).unwrap();
            let mut out = String::new();
            push_display(&mut out, &Value::F16(h));
            assert_eq!(out, text);
            assert_eq!(read_f16(&out).unwrap().to_bits(), h.to_bits(), "{text} reads back");
        }
        // Every finite f16 reads back from its text.
        for bits in 0..=u16::MAX {
            let h = f16::from_bits(bits);
            if h.is_finite() {
                assert_eq!(f16_nearest(f16_shortest(h)).to_bits(), bits);
            }
        }
        assert!(read_f16("abc").is_err());
        assert!(read_f16("1e5").is_err());
    }

    #[test]
    fn the_compiler_finds_each_conversion() {
        assert!(auto_adapter(F16, F64).is_some() && auto_adapter(F16, F32).is_some());
        assert!(auto_adapter(U8, F16).is_some() && auto_adapter(I8, F16).is_some());
        assert!(auto_adapter(F64, F16).is_none(), "narrowing needs `as`");
        assert!(auto_adapter(PortType::U16, F16).is_none(), "u16 is not exact in f16");
        assert!(cast_node(F64, F16).is_some() && cast_node(Str, F16).is_some() && cast_node(Bytes, F16).is_some());
    }
}
