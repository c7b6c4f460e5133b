//! Hash family: SplitMix64 `hash`, `xxhash3`, and the fused hash shortcuts.

use crate::node::kit::map1;
use crate::node::lower::{urem_const, FOp, Lower, NVal};
use crate::node::{konst, wire, NodeDef, Outputs};
use crate::types::PortType::{F64, U64};
use strength_reduce::StrengthReducedU64;

/// The SplitMix64 finalizer: the first output of a SplitMix64 generator seeded with `x`.
#[inline]
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// xxh3_64 of the 8 little-endian bytes of `x` (seed 0), computed as XXH3
/// does for an input of exactly 8 bytes (the same steps as
/// [`lower_xxh3_u64`]), with no dispatch on the length.
#[inline]
pub fn xxh3_u64(x: u64) -> u64 {
    let h = x.rotate_left(32) ^ XXH3_BITFLIP_8;
    let h = h ^ h.rotate_left(49) ^ h.rotate_left(24);
    let h = h.wrapping_mul(XXH3_RRMXMX);
    let h = h ^ ((h >> 35) + 8);
    let h = h.wrapping_mul(XXH3_RRMXMX);
    h ^ (h >> 28)
}

/// XXH3's key for 4- to 8-byte inputs with seed 0: secret words 1 and 2 xored.
const XXH3_BITFLIP_8: u64 = 0x1cad_21f7_2c81_017c ^ 0xdb97_9083_e96d_d4de;
/// XXH3's multiplier in its final mix of short inputs.
const XXH3_RRMXMX: u64 = 0x9fb2_1c65_1e98_df25;

/// `x` rotated left by `n` (0 < n < 64) in native code.
fn lower_rotl(l: &mut dyn Lower, x: NVal, n: u32) -> NVal {
    let high = l.ishl_imm(x, n);
    let low = l.ushr_imm(x, 64 - n);
    l.bor(high, low)
}

/// [`xxh3_u64`] in native code: XXH3 for an input of exactly 8 bytes takes
/// its two 32-bit halves swapped, keys them, and mixes them once ("rrmxmx").
pub fn lower_xxh3_u64(l: &mut dyn Lower, x: NVal) -> NVal {
    let swapped = lower_rotl(l, x, 32);
    let key = l.iconst(XXH3_BITFLIP_8);
    let h = l.bxor(swapped, key);
    let (r49, r24) = (lower_rotl(l, h, 49), lower_rotl(l, h, 24));
    let r = l.bxor(r49, r24);
    let h = l.bxor(h, r);
    let m = l.iconst(XXH3_RRMXMX);
    let h = l.imul(h, m);
    let s = l.ushr_imm(h, 35);
    let eight = l.iconst(8);
    let s = l.iadd(s, eight);
    let h = l.bxor(h, s);
    let h = l.imul(h, m);
    let s = l.ushr_imm(h, 28);
    l.bxor(h, s)
}

/// `x as f64 / u64::MAX as f64`, the unit-interval projection used by hash shortcuts.
#[inline]
pub fn unit_f64(x: u64) -> f64 {
    x as f64 / u64::MAX as f64
}

/// [`splitmix64`] in native code.
pub fn lower_splitmix64(l: &mut dyn Lower, x: NVal) -> NVal {
    let golden = l.iconst(0x9e37_79b9_7f4a_7c15);
    let mut z = l.iadd(x, golden);
    for (shift, multiplier) in [(30, 0xbf58_476d_1ce4_e5b9u64), (27, 0x94d0_49bb_1331_11eb)] {
        let s = l.ushr_imm(z, shift);
        let z1 = l.bxor(z, s);
        let m = l.iconst(multiplier);
        z = l.imul(z1, m);
    }
    let s = l.ushr_imm(z, 31);
    l.bxor(z, s)
}

/// [`unit_f64`] in native code: the division by `u64::MAX as f64` (2^64), as the rule divides.
pub fn lower_unit_f64(l: &mut dyn Lower, x: NVal) -> NVal {
    let f = l.u64_to_f64(x);
    let max = l.fconst(u64::MAX as f64);
    l.fop(FOp::Div, f, max)
}

/// `hash`: SplitMix64 finalizer of x (no seed).
pub const HASH: NodeDef = NodeDef {
    name: "hash",
    aliases: &["splitmix64", "scatter"],
    category: "hash",
    doc: "SplitMix64 finalizer of x (no seed).",
    params: &[wire("input", U64)],
    build: |_| Ok(map1(splitmix64)),
    lower: Some(|l, _, x| Some(vec![lower_splitmix64(l, x[0])])),
    ..NodeDef::BASE
};

/// `xxhash3`: xxh3_64 of the 8 little-endian bytes of x.
pub const XXHASH3: NodeDef = NodeDef {
    name: "xxhash3",
    aliases: &["xxh3"],
    category: "hash",
    doc: "xxh3_64 of the 8 little-endian bytes of x.",
    params: &[wire("input", U64)],
    build: |_| Ok(map1(xxh3_u64)),
    lower: Some(|l, _, x| Some(vec![lower_xxh3_u64(l, x[0])])),
    ..NodeDef::BASE
};

/// `hash_range`: hash(x) % max, or 0 when max is 0.
pub const HASH_RANGE: NodeDef = NodeDef {
    name: "hash_range",
    category: "hash",
    doc: "hash(x) % max, or 0 when max is 0.",
    params: &[wire("input", U64), konst("max", U64)],
    build: |c| {
        let max = c.u64(0);
        Ok(if max == 0 {
            map1(|_: u64| 0u64)
        } else if max.is_power_of_two() {
            map1(move |x: u64| splitmix64(x) & (max - 1))
        } else {
            // The fusion target of `mod(hash(x), K)`: as cheap as `mod`'s reduced remainder.
            let max = StrengthReducedU64::new(max);
            map1(move |x: u64| splitmix64(x) % max)
        })
    },
    lower: Some(|l, c, x| {
        let max = c.u64(0);
        if max == 0 {
            return Some(vec![l.iconst(0)]);
        }
        let h = lower_splitmix64(l, x[0]);
        Some(vec![urem_const(l, h, max)])
    }),
    ..NodeDef::BASE
};

/// `hash_interval`: min + (hash(x) / u64::MAX) * (max - min).
pub const HASH_INTERVAL: NodeDef = NodeDef {
    name: "hash_interval",
    category: "hash",
    doc: "min + (hash(x) / u64::MAX) * (max - min).",
    params: &[wire("input", U64), konst("min", F64), konst("max", F64)],
    outputs: Outputs::One(F64),
    build: |c| {
        let (lo, hi) = (c.f64(0), c.f64(1));
        Ok(map1(move |x: u64| lo + unit_f64(splitmix64(x)) * (hi - lo)))
    },
    lower: Some(|l, c, x| {
        let (lo, hi) = (c.f64(0), c.f64(1));
        let h = lower_splitmix64(l, x[0]);
        let u = lower_unit_f64(l, h);
        let span = l.fconst(hi - lo);
        let scaled = l.fop(FOp::Mul, u, span);
        let lo = l.fconst(lo);
        Some(vec![l.fop(FOp::Add, lo, scaled)])
    }),
    ..NodeDef::BASE
};

/// The hash family.
pub const NODES: &[NodeDef] = &[HASH, XXHASH3, HASH_RANGE, HASH_INTERVAL];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xxh3_u64_is_the_librarys_xxh3_of_eight_bytes() {
        let mut x = 0x0123_4567_89ab_cdefu64;
        for edge in [0, 1, u64::MAX, 1 << 63, 0xffff_ffff, 1 << 32] {
            assert_eq!(xxh3_u64(edge), xxhash_rust::xxh3::xxh3_64(&edge.to_le_bytes()), "{edge:#x}");
        }
        for _ in 0..100_000 {
            x = x.wrapping_mul(0x9e37_79b9_7f4a_7c15).wrapping_add(0x632b_e59b_d9b4_e019);
            assert_eq!(xxh3_u64(x), xxhash_rust::xxh3::xxh3_64(&x.to_le_bytes()), "{x:#x}");
        }
    }
    use crate::nodes::testing::eval1;
    use crate::value::Value;

    /// [`xxh3_u64`] written out: XXH3 for an input of exactly 8 bytes takes
    /// its two 32-bit halves swapped, keys them, and mixes them once
    /// ("rrmxmx"); this is the formula the native form emits.
    fn xxh3_u64_formula(x: u64) -> u64 {
        let mut h = x.rotate_left(32) ^ XXH3_BITFLIP_8;
        h ^= h.rotate_left(49) ^ h.rotate_left(24);
        h = h.wrapping_mul(XXH3_RRMXMX);
        h ^= (h >> 35).wrapping_add(8);
        h = h.wrapping_mul(XXH3_RRMXMX);
        h ^ (h >> 28)
    }

    #[test]
    fn the_xxh3_formula_is_the_crate_s_xxh3_of_eight_bytes() {
        let corners = [0, 1, u64::MAX, 1 << 32, (1 << 32) - 1, 1 << 63, 0x8000_0000, 0xdead_beef_cafe_f00d];
        let walk = (0..100_000u64).map(|i| splitmix64(i) >> (i % 64));
        for x in corners.into_iter().chain(walk) {
            assert_eq!(xxh3_u64_formula(x), xxh3_u64(x), "x = {x:#x}");
        }
    }

    #[test]
    fn splitmix_reference_values() {
        assert_eq!(splitmix64(0), 0xe220a8397b1dcdaf);
        assert_eq!(splitmix64(42), 13679457532755275413);
        let readme = [(607535, 47), (822465, 1), (348110, 14), (139053, 45), (603978, 10)];
        for (c, (uid, bucket)) in readme.iter().enumerate() {
            let h = splitmix64(c as u64);
            assert_eq!((h % 1_000_000, h % 64), (*uid, *bucket));
        }
        assert_eq!(splitmix64(u64::MAX), 16490336266968443936, "the increment wraps");
    }

    #[test]
    fn hash_range_zero_max_is_zero() {
        assert!(eval1(&HASH_RANGE, &[Value::U64(0)], &[Value::U64(5)]).same(&Value::U64(0)));
        let v = eval1(&HASH_RANGE, &[Value::U64(1000)], &[Value::U64(0)]);
        assert!(v.same(&Value::U64(splitmix64(0) % 1000)));
    }

    #[test]
    fn hash_range_is_the_remainder_for_every_max() {
        let maxes = (0..64).map(|b| 1u64 << b).chain([3, 1000, u64::MAX]);
        for max in maxes {
            for x in [0, 1, 42, u64::MAX] {
                let v = eval1(&HASH_RANGE, &[Value::U64(max)], &[Value::U64(x)]);
                assert!(v.same(&Value::U64(splitmix64(x) % max)), "hash({x}) % {max}");
            }
        }
    }

    #[test]
    fn hash_interval_maps_into_range() {
        let v = eval1(&HASH_INTERVAL, &[Value::F64(10.0), Value::F64(20.0)], &[Value::U64(0)]);
        let expect = 10.0 + unit_f64(splitmix64(0)) * 10.0;
        assert!(v.same(&Value::F64(expect)));
    }

    #[test]
    fn xxhash3_matches_crate() {
        let v = eval1(&XXHASH3, &[], &[Value::U64(7)]);
        assert!(v.same(&Value::U64(xxhash_rust::xxh3::xxh3_64(&7u64.to_le_bytes()))));
    }
}
