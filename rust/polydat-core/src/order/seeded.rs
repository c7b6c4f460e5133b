//! `shuffle` and `lhs`: the seeded orders, drawn from the PCG stream of the
//! `pcg` node (stream 0), as upstream polydat draws them.
//!
//! - `shuffle`: a Fisher–Yates permutation of the positions, seeded by the
//!   authored `seed=` (or a fixed default) plus the space's size; a count
//!   keeps the first draws of a partial shuffle. Past
//!   [`SHUFFLE_TABLE_MAX`] positions it is the `cycle_walk` bijection of
//!   the space keyed by the same seed.
//! - `lhs`: a Latin hypercube sample of `n` points (`n` the count, or the
//!   space's size), seeded by the authored `seed=` (or a fixed default)
//!   plus `n`. Each axis's `n` strata are a Fisher–Yates permutation of
//!   `0..n` (the axes drawn one after the other from one stream); sample
//!   `i` takes stratum `p_k[i]` on axis `k`, which on an axis of `s` values
//!   is digit `p·s / n` when `s >= n`, else `p mod s`. Every stratum of
//!   every axis is used once, so the sample covers each axis evenly, and
//!   two samples may land on the same position (upstream emits both). Over
//!   one axis it is a permutation of the axis.

use super::OrderError;
use crate::nodes::pcg::{pcg_seek, CycleWalk};
use std::collections::HashMap;

/// The seed `shuffle` starts from when none is authored (the space's size is added).
const SHUFFLE_SEED: u64 = 0xD1CE_5EED_C0FF_EE42;

/// The seed `lhs` starts from when none is authored (the sample's size is added).
const LHS_SEED: u64 = 0x1A50_4577_3EED_BEEF;

/// The most positions a `shuffle` emits by Fisher–Yates (a table of the
/// space, or one draw per position kept); past it, the keyed bijection.
pub const SHUFFLE_TABLE_MAX: u64 = 1 << 26;

/// The most strata (samples times axes) an `lhs` draws: its sample is
/// drawn whole before the first position, so a larger one is refused.
pub const LHS_TABLE_MAX: u64 = 1 << 26;

/// A seeded order being walked.
pub(super) enum Drawn {
    /// Positions drawn before the walk, in the order they are emitted.
    Table(Vec<u64>),
    /// Draws of a partial Fisher–Yates shuffle, holding only the displaced slots.
    Draws { draws: Draws, total: u64, displaced: HashMap<u64, u64> },
    /// The keyed bijection of a space too large for a table.
    Permuted(CycleWalk),
}

impl Drawn {
    /// Position `i` of the walk (the `i` before it were emitted).
    pub(super) fn next(&mut self, i: u64) -> Result<Option<u64>, OrderError> {
        Ok(Some(match self {
            Drawn::Table(all) => all[i as usize],
            Drawn::Permuted(walk) => walk.apply(i),
            Drawn::Draws { draws, total, displaced } => {
                let last = *total - i - 1;
                let j = draws.bounded(*total - i);
                let pick = displaced.get(&j).copied().unwrap_or(j);
                let tail = displaced.remove(&last).unwrap_or(last);
                if j != last {
                    displaced.try_reserve(1).map_err(|_| OrderError::OutOfMemory { positions: i + 1 })?;
                    displaced.insert(j, tail);
                }
                pick
            }
        }))
    }
}

/// The PCG stream a seeded strategy draws from (stream 0 of `pcg`).
pub(super) struct Draws {
    seed: u64,
    position: u64,
}

impl Draws {
    fn new(seed: u64) -> Draws {
        Draws { seed, position: 0 }
    }

    fn next(&mut self) -> u64 {
        let v = pcg_seek(self.seed, 1, self.position);
        self.position = self.position.wrapping_add(1);
        v
    }

    /// A draw in `0..n` without modulo bias (rejection sampling); 0 when `n` is 0.
    fn bounded(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        let threshold = (u64::MAX - n).wrapping_add(1) % n;
        loop {
            let candidate = self.next();
            if candidate >= threshold {
                return candidate % n;
            }
        }
    }

    /// Fisher–Yates over `slots`, from the last slot down.
    fn shuffle(&mut self, slots: &mut [u64]) {
        for i in (1..slots.len()).rev() {
            let j = self.bounded(i as u64 + 1) as usize;
            slots.swap(i, j);
        }
    }
}

/// A vector of `0..n`, or the memory error for it.
fn identity(n: u64) -> Result<Vec<u64>, OrderError> {
    let mut all = Vec::new();
    usize::try_from(n)
        .ok()
        .filter(|&len| all.try_reserve_exact(len).is_ok())
        .ok_or(OrderError::OutOfMemory { positions: n })?;
    all.extend(0..n);
    Ok(all)
}

/// A seeded permutation of `0..total`, cut to `n`: a whole Fisher–Yates
/// shuffle when every position is kept, else `n` draws of a partial one
/// (holding only the displaced slots); past [`SHUFFLE_TABLE_MAX`]
/// positions, the `cycle_walk` bijection keyed by the same seed.
pub(super) fn shuffle(total: u64, n: u64, seed: Option<u64>) -> Result<Drawn, OrderError> {
    let seed = seed.unwrap_or(SHUFFLE_SEED).wrapping_add(total);
    let mut draws = Draws::new(seed);
    if n > SHUFFLE_TABLE_MAX {
        return CycleWalk::new(total, seed, 0).map(Drawn::Permuted).map_err(OrderError::Refused);
    }
    if n < total || n == 0 {
        return Ok(Drawn::Draws { draws, total, displaced: HashMap::new() });
    }
    let mut all = identity(total)?;
    draws.shuffle(&mut all);
    Ok(Drawn::Table(all))
}

/// The positions of a Latin hypercube sample of `n` points over `axes`
/// (see the module), from the authored `seed` or the default. Refused past
/// [`LHS_TABLE_MAX`] strata; `count_deferred` says a count was authored but
/// applies to the survivors of a `where`, so the whole space is sampled.
pub(super) fn lhs(axes: &[u64], n: u64, seed: Option<u64>, count_deferred: bool) -> Result<Vec<u64>, OrderError> {
    let strata = n.saturating_mul(axes.len() as u64);
    if strata > LHS_TABLE_MAX {
        let why = if count_deferred {
            "; the `where` before it makes it sample the whole space, as its count applies to the tuples that pass"
        } else {
            ""
        };
        return Err(OrderError::Refused(format!(
            "order 'lhs' would draw {n} samples over {} axes, {strata} strata (at most {LHS_TABLE_MAX}, drawn before the first tuple){why}: give it a smaller count, e.g. order lhs/1000",
            axes.len()
        )));
    }
    if n == 0 || axes.is_empty() {
        return Ok(Vec::new());
    }
    let mut draws = Draws::new(seed.unwrap_or(LHS_SEED).wrapping_add(n));
    let mut sample = vec![0u64; n as usize];
    let mut strata = identity(n)?;
    for &size in axes {
        strata.iter_mut().enumerate().for_each(|(i, slot)| *slot = i as u64);
        draws.shuffle(&mut strata);
        for (position, &stratum) in sample.iter_mut().zip(&strata) {
            let digit = if size >= n {
                (u128::from(stratum) * u128::from(size) / u128::from(n)) as u64
            } else {
                stratum % size
            };
            *position = *position * size + digit;
        }
    }
    Ok(sample)
}

#[cfg(test)]
mod tests {
    use super::super::{digits_of, positions, walk, OrderError};
    use super::*;
    use std::collections::{BTreeSet, HashSet};

    #[test]
    fn shuffle_is_a_seeded_permutation() {
        let a = positions("shuffle", &[6, 6], None, None).unwrap();
        let mut sorted = a.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..36).collect::<Vec<_>>());
        assert_eq!(a, positions("shuffle", &[6, 6], None, None).unwrap());
        assert_ne!(a, positions("shuffle", &[6, 6], None, Some(42)).unwrap());
        // A partial draw takes what the whole pool would (step for step).
        let part = positions("shuffle", &[97], Some(40), Some(7)).unwrap();
        let mut draws = Draws::new(7u64.wrapping_add(97));
        let mut pool: Vec<u64> = (0..97).collect();
        let dense: Vec<u64> = (0..40)
            .map(|i| {
                let j = draws.bounded(97 - i) as usize;
                let pick = pool[j];
                let last = pool.len() - 1;
                pool.swap(j, last);
                pool.pop();
                pick
            })
            .collect();
        assert_eq!(part, dense);
    }

    #[test]
    fn a_huge_shuffle_is_walked_in_constant_memory_and_never_tabled() {
        let seed = 7u64.wrapping_add(1_000_000_000_000);
        let mut huge = walk("shuffle", &[1_000_000_000_000], None, Some(7), false).unwrap();
        let first = huge.take(1000).unwrap();
        let walk_of = CycleWalk::new(1_000_000_000_000, seed, 0).unwrap();
        assert_eq!(first, (0..1000).map(|i| walk_of.apply(i)).collect::<Vec<_>>());
        assert_eq!(first.iter().collect::<HashSet<_>>().len(), 1000, "no repeats");
        assert_eq!(huge.bound(), 1_000_000_000_000);
        let all = positions("shuffle", &[1_000_000_000_000], None, Some(7));
        assert!(matches!(all, Err(OrderError::OutOfMemory { positions: 1_000_000_000_000 })), "{all:?}");
    }

    #[test]
    fn lhs_uses_every_stratum_of_every_axis_once() {
        // 10 samples over 10 × 20: axis 0 takes each value once, axis 1 each pair of values once.
        let sample = positions("lhs", &[10, 20], Some(10), None).unwrap();
        assert_eq!(sample.len(), 10);
        let digits: Vec<Vec<u64>> = sample.iter().map(|&p| digits_of(&[10, 20], p)).collect();
        assert_eq!(digits.iter().map(|d| d[0]).collect::<BTreeSet<_>>(), (0..10).collect());
        assert_eq!(digits.iter().map(|d| d[1] / 2).collect::<BTreeSet<_>>(), (0..10).collect());
        // Over one axis, a permutation of it.
        let mut one = positions("lhs", &[12], None, None).unwrap();
        one.sort_unstable();
        assert_eq!(one, (0..12).collect::<Vec<_>>());
    }

    #[test]
    fn lhs_is_the_per_axis_shuffles_drawn_in_turn() {
        // The rule written out for 3 × 5, n = 4: one stream, seed default + n,
        // axis 0's shuffle then axis 1's; digit p·s/n when s >= n, else p mod s.
        let mut draws = Draws::new(LHS_SEED.wrapping_add(4));
        let mut axis0: Vec<u64> = (0..4).collect();
        draws.shuffle(&mut axis0);
        let mut axis1: Vec<u64> = (0..4).collect();
        draws.shuffle(&mut axis1);
        let want: Vec<u64> = (0..4).map(|i| (axis0[i] % 3) * 5 + axis1[i] * 5 / 4).collect();
        assert_eq!(positions("lhs", &[3, 5], Some(4), None).unwrap(), want);
    }

    #[test]
    fn lhs_is_seeded() {
        let default = positions("lhs", &[6, 6], Some(12), None).unwrap();
        let seeded = positions("lhs", &[6, 6], Some(12), Some(42)).unwrap();
        assert_eq!(seeded, positions("lhs", &[6, 6], Some(12), Some(42)).unwrap());
        assert_ne!(seeded, default);
        assert_ne!(seeded, positions("lhs", &[6, 6], Some(12), Some(43)).unwrap());
    }

    #[test]
    fn lhs_refuses_a_sample_past_its_table() {
        let huge = [1_000_000u64, 1_000_000];
        let refused = walk("lhs", &huge, None, None, false).err().unwrap().to_string();
        assert!(refused.contains("would draw 1000000000000 samples over 2 axes"), "{refused}");
        assert!(refused.contains("give it a smaller count"), "{refused}");
        assert_eq!(positions("lhs", &huge, Some(5), Some(1)).unwrap().len(), 5);
        let filtered = walk("lhs", &huge, Some(5), None, true).err().unwrap().to_string();
        assert!(filtered.contains("the `where` before it"), "{filtered}");
    }
}
