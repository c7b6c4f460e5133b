//! Distinct picks: `k` different values of `0..n` in uniformly random order
//! (`distinct_pick`), the draw behind "five different colours, in any
//! order" or "a random arrangement of 25 nations".
//!
//! The picks are the first positions of a Fisher–Yates shuffle of `0..n`
//! whose step `j` swaps position `j` with a position drawn uniformly from
//! `j..n` by hashing `(h, j)`. Position `i` of the shuffle is settled at
//! step `i` and never moved again, so the `i`-th pick depends on steps
//! `0..=i` only: asking for picks `0..k` one at a time gives `k` distinct
//! values whatever `k` is, and no call needs to know `k`. A pick is found
//! by following its value back through the earlier swaps, with no table:
//! `i + 1` hashes and no memory.

use crate::node::kit::try_map3;
use crate::node::{wire, NodeDef, Testing};
use crate::nodes::hash::splitmix64;
use crate::types::PortType::U64;

/// The most picks a shuffle gives: the `i`-th pick costs `i + 1` hashes, so
/// a cap keeps one evaluation short whatever the input.
pub const MAX_PICKS: u64 = 1 << 16;

/// The position step `j` of the shuffle seeded by `h` swaps with: uniform
/// in `j..n` (Lemire's multiply-shift over a hash of `(h, j)`).
#[inline]
fn swap_partner(h: u64, j: u64, n: u64) -> u64 {
    let x = splitmix64(h ^ j.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    j + ((u128::from(x) * u128::from(n - j)) >> 64) as u64
}

/// Pick `i` (from 0) of the shuffle of `0..n` seeded by `h`: the value at
/// position `i` once steps `0..=i` have swapped. Traced backwards: it came
/// from position `r_i`, and each earlier step `j` moved the value at `j` or
/// `r_j` to the other one. Fails for an `i` not below `n` (there are only
/// `n` distinct values) or not below [`MAX_PICKS`].
pub fn distinct_pick(h: u64, n: u64, i: u64) -> Result<u64, String> {
    if i >= n {
        return Err(format!("pick {i} of {n} distinct values: i must be below n"));
    }
    if i >= MAX_PICKS {
        return Err(format!("pick {i}: at most {MAX_PICKS} distinct picks (i must be below {MAX_PICKS})"));
    }
    let mut at = swap_partner(h, i, n);
    for j in (0..i).rev() {
        let partner = swap_partner(h, j, n);
        if at == j {
            at = partner;
        } else if at == partner {
            at = j;
        }
    }
    Ok(at)
}

/// `distinct_pick`: value `i` of a uniformly random ordering of `0..n` seeded by `h`.
pub const DISTINCT_PICK: NodeDef = NodeDef {
    name: "distinct_pick",
    category: "permutation",
    doc: "Pick i (from 0) of a uniformly random ordering of 0..n seeded by h: picks 0..k of one h are k distinct values in random order (a Fisher-Yates prefix, so no call needs k; the i-th costs i + 1 hashes). i must be below n and below 65536, else the evaluation fails.",
    params: &[wire("h", U64), wire("n", U64), wire("i", U64)],
    build: |_| Ok(try_map3(distinct_pick)),
    testing: Testing {
        corner_call: Some("distinct_pick(a, 1 + mod(b, 100), mod(c, 5))"),
        fallible: true,
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// The distinct-picks family.
pub const NODES: &[NodeDef] = &[DISTINCT_PICK];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::{eval1, eval_err};
    use crate::value::Value;
    use std::collections::{HashMap, HashSet};

    /// The forward shuffle: the first `k` positions after steps `0..k`.
    fn forward(h: u64, n: u64, k: u64) -> Vec<u64> {
        let mut swapped: HashMap<u64, u64> = HashMap::new();
        let mut out = Vec::new();
        for j in 0..k {
            let r = swap_partner(h, j, n);
            let (vj, vr) = (*swapped.get(&j).unwrap_or(&j), *swapped.get(&r).unwrap_or(&r));
            swapped.insert(j, vr);
            swapped.insert(r, vj);
            out.push(vr);
        }
        out
    }

    #[test]
    fn picks_are_the_prefix_of_a_forward_shuffle() {
        for (h, n, k) in [(1u64, 92u64, 5u64), (7, 5, 5), (u64::MAX, 1000, 40), (0, 1, 1), (3, 2, 2)] {
            let picks: Vec<u64> = (0..k).map(|i| distinct_pick(h, n, i).unwrap()).collect();
            assert_eq!(picks, forward(h, n, k), "h {h} n {n}");
        }
    }

    #[test]
    fn picks_are_distinct_and_a_whole_shuffle_is_a_permutation() {
        for h in 0..200u64 {
            let five: HashSet<u64> = (0..5).map(|i| distinct_pick(h, 92, i).unwrap()).collect();
            assert_eq!(five.len(), 5);
            assert!(five.iter().all(|&v| v < 92));
        }
        let all: HashSet<u64> = (0..25).map(|i| distinct_pick(42, 25, i).unwrap()).collect();
        assert_eq!(all, (0..25).collect());
    }

    #[test]
    fn every_ordering_of_three_is_about_as_likely() {
        // 3 of 3: six orderings, each near 1/6 of 60,000 draws.
        let mut seen: HashMap<Vec<u64>, u32> = HashMap::new();
        for h in 0..60_000u64 {
            let order: Vec<u64> = (0..3).map(|i| distinct_pick(splitmix64(h), 3, i).unwrap()).collect();
            *seen.entry(order).or_default() += 1;
        }
        assert_eq!(seen.len(), 6);
        assert!(seen.values().all(|&c| (9_500..10_500).contains(&c)), "{seen:?}");
        // Later picks are not ordered after earlier ones (the flaw a step along a list has).
        let ascending = (0..10_000u64)
            .filter(|&h| {
                let p: Vec<u64> = (0..5).map(|i| distinct_pick(h, 92, i).unwrap()).collect();
                p.windows(2).all(|w| w[0] < w[1])
            })
            .count();
        assert!(ascending < 200, "{ascending} of 10,000 ascending; 1/120 expected");
    }

    #[test]
    fn a_pick_past_the_values_or_the_cap_fails_with_the_cause() {
        let u = Value::U64;
        assert_eq!(eval1(&DISTINCT_PICK, &[], &[u(9), u(92), u(4)]).as_u64(), distinct_pick(9, 92, 4).ok());
        assert_eq!(
            eval_err(&DISTINCT_PICK, &[], &[u(9), u(5), u(5)]),
            "pick 5 of 5 distinct values: i must be below n"
        );
        assert_eq!(
            eval_err(&DISTINCT_PICK, &[], &[u(9), u(0), u(0)]),
            "pick 0 of 0 distinct values: i must be below n"
        );
        assert_eq!(
            eval_err(&DISTINCT_PICK, &[], &[u(9), u(u64::MAX), u(MAX_PICKS)]),
            "pick 65536: at most 65536 distinct picks (i must be below 65536)"
        );
        assert!(distinct_pick(9, u64::MAX, MAX_PICKS - 1).unwrap() < u64::MAX);
    }
}
