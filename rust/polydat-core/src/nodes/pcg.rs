//! Permutation family (and `n_of`, the exact-count selector): the PCG-RXS-M-XS 64/64 generator with O(log n) seek
//! (`pcg`, `pcg_stream`) and bijections of `[0, range)` by cycle walking a
//! balanced Feistel network keyed from the generator (`cycle_walk`). Constants, round function and operation order are upstream's,
//! so sequences and permutations agree with upstream's bit for bit.

use crate::node::kit::{map1, map2};
use crate::node::{konst, konst_or, wire, BuildCtx, Lit, NodeDef, NodeEval, Samples, Testing};
use crate::types::PortType::U64;

/// The LCG multiplier of the 64-bit state.
pub const PCG_MULT: u64 = 6_364_136_223_846_793_005;
/// The RXS-M-XS output multiplier.
const PCG_OUT_MULT: u64 = 12_605_985_483_714_917_081;
/// Feistel rounds of the cycle walk.
pub const FEISTEL_ROUNDS: usize = 6;
/// Upstream's construction failure for a range of 0.
pub const ZERO_RANGE: &str = "CycleWalk range must be > 0";

/// The RXS-M-XS permutation of one LCG state.
#[inline]
pub fn pcg_output(state: u64) -> u64 {
    let shifted = state >> ((state >> 59) + 5);
    let word = (shifted ^ state).wrapping_mul(PCG_OUT_MULT);
    word ^ (word >> 43)
}

/// The generator's output at `position` for initial state `seed` and odd
/// increment `inc`: the LCG advanced `position` steps by squaring its
/// affine map (one multiply-add pair per bit of `position`), then permuted.
#[inline]
pub fn pcg_seek(seed: u64, inc: u64, position: u64) -> u64 {
    let (mut mult, mut plus) = (PCG_MULT, inc);
    let (mut acc_mult, mut acc_plus) = (1u64, 0u64);
    let mut left = position;
    while left != 0 {
        if left & 1 == 1 {
            acc_mult = acc_mult.wrapping_mul(mult);
            acc_plus = acc_plus.wrapping_mul(mult).wrapping_add(plus);
        }
        plus = mult.wrapping_add(1).wrapping_mul(plus);
        mult = mult.wrapping_mul(mult);
        left >>= 1;
    }
    pcg_output(acc_mult.wrapping_mul(seed).wrapping_add(acc_plus))
}

/// The increment of stream `stream`: `2 * stream + 1` (wrapping).
#[inline]
pub fn stream_inc(stream: u64) -> u64 {
    stream.wrapping_mul(2).wrapping_add(1)
}

/// A Feistel bijection of `[0, 4^half_bits)` with its round keys, for
/// cycle-walking into `[0, range)`.
#[derive(Clone, Copy, Debug)]
pub struct CycleWalk {
    range: u64,
    half_bits: u32,
    half_mask: u64,
    keys: [u64; FEISTEL_ROUNDS],
}

impl CycleWalk {
    /// The walk over `[0, range)` for `seed` and `stream` (range 0 refused).
    pub fn new(range: u64, seed: u64, stream: u64) -> Result<CycleWalk, String> {
        if range == 0 {
            return Err(ZERO_RANGE.into());
        }
        // Bits to hold range - 1, rounded up to an even count of at least 2.
        let bits = match range {
            1 => 2,
            _ => {
                let b = 64 - (range - 1).leading_zeros();
                (b + (b & 1)).max(2)
            }
        };
        let half_bits = bits / 2;
        let inc = stream_inc(stream);
        let mut keys = [0u64; FEISTEL_ROUNDS];
        for (i, key) in keys.iter_mut().enumerate() {
            *key = pcg_seek(seed, inc, 1_000_000_000 + i as u64);
        }
        Ok(CycleWalk { range, half_bits, half_mask: (1u64 << half_bits) - 1, keys })
    }

    #[inline]
    fn round(half: u64, key: u64) -> u64 {
        let x = half.wrapping_mul(0x9e37_79b9_7f4a_7c15).wrapping_add(key);
        let x = (x ^ (x >> 32)).wrapping_mul(0xd6e8_feb8_6659_fd93);
        x ^ (x >> 32)
    }

    #[inline]
    fn encrypt(&self, value: u64) -> u64 {
        let (mut left, mut right) = ((value >> self.half_bits) & self.half_mask, value & self.half_mask);
        for &key in &self.keys {
            (left, right) = (right, left ^ (Self::round(right, key) & self.half_mask));
        }
        (left << self.half_bits) | right
    }

    /// The image of `position % range`: the Feistel output, re-encrypted
    /// until it lands in range (the cycle through a value in range
    /// returns to the range, so the walk ends).
    #[inline]
    pub fn apply(&self, position: u64) -> u64 {
        if self.range == 1 {
            return 0;
        }
        let mut v = position % self.range;
        loop {
            v = self.encrypt(v);
            if v < self.range {
                return v;
            }
        }
    }
}

fn build_cycle_walk(range: u64, seed: u64, stream: u64) -> Result<Box<dyn NodeEval>, String> {
    let walk = CycleWalk::new(range, seed, stream)?;
    Ok(map1(move |x: u64| walk.apply(x)))
}

/// `pcg`: PCG-RXS-M-XS output at position `input` of the generator (seed, stream).
pub const PCG: NodeDef = NodeDef {
    name: "pcg",
    category: "permutation",
    doc: "PCG-RXS-M-XS 64/64 output at position `input` (O(log n) seek) of the generator with this seed and stream.",
    params: &[wire("input", U64), konst_or("seed", U64, Lit::U64(0)), konst_or("stream", U64, Lit::U64(0))],
    build: |c| {
        let (seed, inc) = (c.u64(0), stream_inc(c.u64(1)));
        Ok(map1(move |x: u64| pcg_seek(seed, inc, x)))
    },
    ..NodeDef::BASE
};

/// `pcg_stream`: like `pcg`, with the stream a wire.
pub const PCG_STREAM: NodeDef = NodeDef {
    name: "pcg_stream",
    category: "permutation",
    doc: "PCG-RXS-M-XS 64/64 output at position `input` of stream `stream` (a wire) with this seed.",
    params: &[wire("input", U64), wire("stream", U64), konst_or("seed", U64, Lit::U64(0))],
    build: |c| {
        let seed = c.u64(0);
        Ok(map2(move |x: u64, stream: u64| pcg_seek(seed, stream_inc(stream), x)))
    },
    ..NodeDef::BASE
};

fn zero_range_warning(c: &BuildCtx<'_>) -> Option<String> {
    (c.u64(0) == 0).then(|| "the range is 0, so the node cannot be built".into())
}

/// `cycle_walk`: a bijection of [0, range): 6-round Feistel over PCG round keys, cycle-walked into range.
pub const CYCLE_WALK: NodeDef = NodeDef {
    name: "cycle_walk",
    category: "permutation",
    doc: "A bijection of [0, range) (input taken mod range): a 6-round Feistel network keyed by PCG(seed, stream), cycle-walked into range.",
    params: &[
        wire("position", U64),
        konst("range", U64),
        konst_or("seed", U64, Lit::U64(0)),
        konst_or("stream", U64, Lit::U64(0)),
    ],
    build: |c| build_cycle_walk(c.u64(0), c.u64(1), c.u64(2)),
    warns: zero_range_warning,
    testing: Testing { samples: &[("range", Samples::U64(&[100, 1, 2, 1000, 1 << 32, u64::MAX]))], ..Testing::BASE },
    ..NodeDef::BASE
};

/// `n_of`: 1 for exactly n of every m consecutive inputs, which ones chosen by hashing.
pub const N_OF: NodeDef = NodeDef {
    name: "n_of",
    category: "probability",
    doc: "1 for exactly n of every window of m consecutive inputs (the n positions whose hashes rank lowest), else 0.",
    params: &[wire("input", U64), konst("n", U64), konst("m", U64)],
    build: |c| {
        let (n, m) = (c.u64(0), c.u64(1));
        if !(1..=65_536).contains(&m) {
            return Err(format!("m must be in [1, 65536], got {m}"));
        }
        if n > m {
            return Err(format!("n ({n}) must be <= m ({m})"));
        }
        Ok(map1(move |x: u64| n_of_m(x, n, m)))
    },
    testing: Testing {
        samples: &[("n", Samples::U64(&[1, 0])), ("m", Samples::U64(&[10, 1, 7, 100]))],
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// The hash of position `pos` of window `window`, as `n_of` ranks them.
#[inline]
fn window_hash(window: u64, pos: u64) -> u64 {
    crate::nodes::hash::splitmix64(window.wrapping_mul(0x517c_c1b7_2722_0a95) ^ pos.wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

/// Whether `input` is among the `n` of its window of `m` whose hashes are
/// smallest (ties by position): its rank counted against the window.
pub fn n_of_m(input: u64, n: u64, m: u64) -> u64 {
    let (window, pos) = (input / m, input % m);
    let mine = window_hash(window, pos);
    let rank = (0..m)
        .filter(|&i| i != pos)
        .filter(|&i| {
            let other = window_hash(window, i);
            other < mine || (other == mine && i < pos)
        })
        .count() as u64;
    u64::from(rank < n)
}

/// The permutation family.
pub const NODES: &[NodeDef] = &[PCG, PCG_STREAM, CYCLE_WALK, N_OF];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::{build_err, eval1};
    use crate::value::Value;
    use std::collections::HashSet;

    fn u(v: u64) -> Value {
        Value::U64(v)
    }

    fn run(def: &NodeDef, consts: &[u64], x: u64) -> u64 {
        let consts: Vec<Value> = consts.iter().map(|&c| u(c)).collect();
        eval1(def, &consts, &[u(x)]).as_u64().unwrap()
    }

    #[test]
    fn seek_matches_stepping_the_lcg() {
        // Upstream's test: seek(n) equals n sequential LCG steps.
        for (seed, inc, n) in [(77u64, 5u64, 50u64), (0, 1, 0), (u64::MAX, 3, 1000), (42, 1, 1)] {
            let mut state = seed;
            for _ in 0..n {
                state = state.wrapping_mul(PCG_MULT).wrapping_add(inc);
            }
            assert_eq!(pcg_seek(seed, inc, n), pcg_output(state), "seed {seed} inc {inc} n {n}");
        }
    }

    #[test]
    fn pcg_output_values() {
        // RXS-M-XS by hand for state 0 and a few others.
        assert_eq!(pcg_output(0), 0);
        let s = 0x1234_5678_9abc_def0u64;
        let w = ((s >> ((s >> 59) + 5)) ^ s).wrapping_mul(PCG_OUT_MULT);
        assert_eq!(pcg_output(s), (w >> 43) ^ w);
        assert_eq!(pcg_seek(0, 1, 1), pcg_output(1), "state after one step from 0 is inc");
    }

    #[test]
    fn pcg_nodes_agree_with_each_other() {
        for pos in [0u64, 1, 2, 99, u64::MAX] {
            let fixed = run(&PCG, &[42, 5], pos);
            let wired = eval1(&PCG_STREAM, &[u(42)], &[u(pos), u(5)]).as_u64().unwrap();
            assert_eq!(fixed, wired);
            assert_eq!(fixed, pcg_seek(42, 11, pos));
        }
        assert_ne!(run(&PCG, &[42, 0], 50), run(&PCG, &[42, 1], 50), "streams differ");
        assert_ne!(run(&PCG, &[1, 0], 50), run(&PCG, &[2, 0], 50), "seeds differ");
        assert_eq!(stream_inc(u64::MAX), u64::MAX, "2 * stream + 1 wraps");
    }

    #[test]
    fn cycle_walk_is_a_bijection() {
        for (range, seed, stream) in
            [(50u64, 42u64, 0u64), (64, 123, 7), (1, 42, 0), (2, 0, 0), (1000, 9, 3), (3, 1, 1)]
        {
            let seen: HashSet<u64> = (0..range).map(|i| run(&CYCLE_WALK, &[range, seed, stream], i)).collect();
            assert_eq!(seen.len() as u64, range, "range {range}");
            assert!(seen.iter().all(|&v| v < range));
        }
        // Inputs past the range are reduced first.
        assert_eq!(run(&CYCLE_WALK, &[100, 42, 0], 142), run(&CYCLE_WALK, &[100, 42, 0], 42));
        assert_eq!(run(&CYCLE_WALK, &[1, 42, 0], u64::MAX), 0);
        // The widest ranges: 32-bit halves.
        let big = run(&CYCLE_WALK, &[u64::MAX, 0, 0], 12345);
        assert!(big < u64::MAX);
    }

    #[test]
    fn cycle_walk_keys_come_from_the_generator() {
        let w = CycleWalk::new(200, 42, 3).unwrap();
        assert_eq!(w.keys[0], pcg_seek(42, 7, 1_000_000_000));
        assert_eq!(w.keys[5], pcg_seek(42, 7, 1_000_000_005));
        assert_eq!((w.half_bits, w.half_mask), (4, 15), "200 needs 8 bits");
        let w = CycleWalk::new(64, 0, 0).unwrap();
        assert_eq!(w.half_bits, 3, "63 needs 6 bits");
        let w = CycleWalk::new(65, 0, 0).unwrap();
        assert_eq!(w.half_bits, 4, "64 needs 7 bits, rounded up to 8");
    }

    #[test]
    fn zero_range_is_refused_in_upstreams_words() {
        assert_eq!(build_err(&CYCLE_WALK, &[u(0), u(0), u(0)], &[U64]), ZERO_RANGE);
    }

    #[test]
    fn n_of_selects_exactly_n_per_window() {
        for (n, m) in [(3u64, 10u64), (0, 5), (5, 5), (1, 1), (2, 7)] {
            for window in 0..8u64 {
                let count: u64 = (0..m).map(|p| run(&N_OF, &[n, m], window * m + p)).sum();
                assert_eq!(count, n, "n_of({n}, {m}) window {window}");
            }
        }
        let positions: HashSet<u64> =
            (0..20u64).flat_map(|w| (0..10).filter(move |&p| n_of_m(w * 10 + p, 1, 10) == 1)).collect();
        assert!(positions.len() > 1, "not always the first position");
        assert_eq!(n_of_m(u64::MAX, 1, 65_536), n_of_m(u64::MAX, 1, 65_536));
    }

    #[test]
    fn n_of_constants_are_checked_at_build() {
        assert_eq!(build_err(&N_OF, &[u(1), u(0)], &[U64]), "m must be in [1, 65536], got 0");
        assert_eq!(build_err(&N_OF, &[u(1), u(65_537)], &[U64]), "m must be in [1, 65536], got 65537");
        assert_eq!(build_err(&N_OF, &[u(9), u(3)], &[U64]), "n (9) must be <= m (3)");
    }

    #[test]
    fn values_pinned_by_an_independent_implementation() {
        // Computed by a separate (Python) transcription of upstream's
        // pcg_seek, Feistel round and cycle walk, not by this code.
        assert_eq!(run(&PCG, &[42, 0], 0), 7_101_797_662_165_212_071);
        assert_eq!(run(&PCG, &[42, 0], 1), 5_728_613_405_259_621_552);
        assert_eq!(run(&PCG, &[42, 0], 1000), 10_192_857_467_160_334_855);
        assert_eq!(run(&PCG, &[0, 5], u64::MAX), 2_092_226_854_420_137_318);
        let walk: Vec<u64> = [0, 1, 999, 12345].iter().map(|&x| run(&CYCLE_WALK, &[1000, 42, 3], x)).collect();
        assert_eq!(walk, [524, 746, 173, 221]);
        assert_eq!(run(&CYCLE_WALK, &[u64::MAX, 7, 0], 123_456_789), 4_923_132_460_505_812_225);
    }
}
