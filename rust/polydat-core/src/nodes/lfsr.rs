//! LFSR family: the Galois linear-feedback shift register step
//! (`lfsr_step`) and `shuffle`, upstream's bijection of `[min, min + size)`
//! that walks the register from `input % size + 1` until it lands in
//! `1..=size` (rejection sampling). The permutation is a bijection when
//! `feedback` is a maximal-length polynomial for a register at least as wide
//! as `size`; the caller chooses it (different polynomials give different
//! orders).

use crate::node::kit::{map1, try_map1};
use crate::node::{konst, konst_or, wire, Lit, NodeDef, Samples, Testing};
use crate::types::PortType::U64;

/// Most register steps one `shuffle` evaluation takes before it gives up (a
/// feedback polynomial that is not maximal for the range can walk forever;
/// upstream's loop would not return).
pub const MAX_SHUFFLE_STEPS: u32 = 1 << 24;

/// One Galois LFSR step: shift right, and xor in `feedback` when the bit
/// shifted out was 1.
#[inline]
pub fn lfsr_step(register: u64, feedback: u64) -> u64 {
    (register >> 1) ^ ((register & 1).wrapping_neg() & feedback)
}

/// `shuffle`'s rule: `min` for an empty range; otherwise the first register
/// value in `1..=size` after stepping from `input % size + 1`, moved to
/// `[min, min + size)` (wrapping, as upstream's release build does when
/// the register reaches 0).
pub fn shuffle(input: u64, feedback: u64, size: u64, min: u64) -> Result<u64, String> {
    if size == 0 {
        return Ok(min);
    }
    let mut register = input % size + 1;
    for _ in 0..MAX_SHUFFLE_STEPS {
        register = lfsr_step(register, feedback);
        if register <= size {
            return Ok(register.wrapping_sub(1).wrapping_add(min));
        }
    }
    Err(format!(
        "shuffle: no value of the range reached within {MAX_SHUFFLE_STEPS} LFSR steps; feedback {feedback:#x} is not a maximal-length polynomial for a range of {size}"
    ))
}

/// `lfsr_step`: one Galois LFSR step of the input.
pub const LFSR_STEP: NodeDef = NodeDef {
    name: "lfsr_step",
    category: "permutation",
    doc: "One Galois LFSR step: input >> 1, xor feedback when the low bit was 1 (period 2^w - 1 for a maximal w-bit polynomial).",
    params: &[wire("input", U64), konst("feedback", U64)],
    build: |c| {
        let feedback = c.u64(0);
        Ok(map1(move |x: u64| lfsr_step(x, feedback)))
    },
    lower: Some(|l, c, x| {
        let one = l.iconst(1);
        let low = l.band(x[0], one);
        let zero = l.iconst(0);
        let mask = l.isub(zero, low);
        let feedback = l.iconst(c.u64(0));
        let taps = l.band(mask, feedback);
        let shifted = l.ushr_imm(x[0], 1);
        Some(vec![l.bxor(shifted, taps)])
    }),
    ..NodeDef::BASE
};

/// `shuffle`: upstream's LFSR permutation of `[min, min + size)`.
pub const SHUFFLE: NodeDef = NodeDef {
    name: "shuffle",
    category: "permutation",
    doc: "A permutation of [min, min + size) by Galois LFSR walk with rejection (bijective for a maximal-length feedback polynomial as wide as size); min when size is 0.",
    params: &[
        wire("input", U64),
        konst_or("feedback", U64, Lit::U64(0)),
        konst_or("size", U64, Lit::U64(0)),
        konst_or("min", U64, Lit::U64(0)),
    ],
    build: |c| {
        let (feedback, size, min) = (c.u64(0), c.u64(1), c.u64(2));
        Ok(try_map1(move |x: u64| shuffle(x, feedback, size, min)))
    },
    // Maximal-length feedback polynomials (7, 8, 10 bits) or none, so every walk ends quickly.
    testing: Testing {
        samples: &[
            ("feedback", Samples::U64(&[0x60, 0xB8, 0x240, 0])),
            ("size", Samples::U64(&[100, 1, 2, 1000, 0, 50])),
        ],
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// The family's nodes, in catalog order.
pub const NODES: &[NodeDef] = &[SHUFFLE, LFSR_STEP];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::eval1;
    use crate::value::Value;
    use std::collections::HashSet;

    /// Maximal-length Galois feedback polynomials for 6, 8 and 10 bits.
    const WIDTH_6: u64 = 0x30;
    const WIDTH_8: u64 = 0xb8;
    const WIDTH_10: u64 = 0x240;

    #[test]
    fn a_maximal_register_visits_every_nonzero_value() {
        let mut seen = HashSet::new();
        let mut register = 1;
        for _ in 0..255 {
            register = lfsr_step(register, WIDTH_8);
            assert!(register != 0 && seen.insert(register));
        }
        assert_eq!(register, 1, "back to the start after 2^8 - 1 steps");
        let node = eval1(&LFSR_STEP, &[Value::U64(WIDTH_8)], &[Value::U64(1)]);
        assert!(node.same(&Value::U64(WIDTH_8)));
    }

    #[test]
    fn shuffle_permutes_its_range() {
        for (feedback, size, min) in [(WIDTH_6, 50, 0), (WIDTH_6, 31, 0), (WIDTH_8, 20, 100), (WIDTH_10, 1000, 0)] {
            let out: HashSet<u64> = (0..size).map(|i| shuffle(i, feedback, size, min).unwrap()).collect();
            assert_eq!(out.len() as u64, size);
            assert!(out.iter().all(|v| (min..min + size).contains(v)));
        }
        // Inputs past the range are reduced first.
        assert_eq!(shuffle(142, WIDTH_8, 100, 0), shuffle(42, WIDTH_8, 100, 0));
    }

    #[test]
    fn shuffle_edges_are_upstreams() {
        for min in [0, 7, u64::MAX] {
            for input in [0, 1, 42, u64::MAX] {
                assert_eq!(shuffle(input, 0, 0, min), Ok(min), "an empty range answers its floor");
            }
        }
        // feedback 0 only shifts: 43 -> 21, so 20.
        assert_eq!(shuffle(42, 0, 100, 0), Ok(20));
        // Register 1 with feedback 0 steps to 0, which wraps below min.
        assert_eq!(shuffle(0, 0, 5, 0), Ok(u64::MAX));
        let stuck = shuffle(0, 0b110, 1, 0);
        assert!(stuck.is_ok(), "{stuck:?}");
        // From 1 this feedback walks into a cycle of large values, never back in range.
        let message = shuffle(0, (1 << 63) | 3, 1, 0).unwrap_err();
        assert!(message.contains("not a maximal-length polynomial"), "{message}");
    }
}
