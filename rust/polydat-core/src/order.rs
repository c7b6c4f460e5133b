//! Traversal orders: the permutation an `order` clause of a comprehension
//! applies to its tuples.
//!
//! A comprehension's tuples are addressed by position in their natural
//! enumeration: the Cartesian product of its clauses, first clause slowest
//! (row-major over `axes`, one axis per clause). An order chooses positions
//! from that space, in the order it emits them, and a count (`order
//! halton/5`) keeps the first that many. The frontend applies `where`
//! filters and maps positions back to tuples; this module only decides
//! positions, so the same comprehension dispenses the same tuples on every
//! engine and host.
//!
//! The strategies follow upstream polydat's: `lex` (the natural order),
//! `reverse_lex`, `halton` (the K-dimensional Halton sequence over the
//! axes, bases the first K primes, each point discretized to a lattice
//! position, repeats skipped) and `shuffle` (a Fisher–Yates permutation
//! driven by the PCG generator of the `pcg` node, seeded by the authored
//! `seed=` or a fixed default, plus the space's size).
//!
//! An order is walked one position at a time ([`Walk`]), so a host takes
//! the positions it needs in batches and never holds the whole space:
//! `lex` and `reverse_lex` compute each position, `halton` and a drawn
//! `shuffle` keep only what they have emitted. A shuffle of more than
//! [`SHUFFLE_TABLE_MAX`] positions, which would need a table of them all
//! (or that many draws), is the `cycle_walk` bijection of the space
//! instead (a keyed Feistel permutation, computed per position).

use crate::nodes::pcg::{pcg_seek, CycleWalk};
use std::collections::{HashMap, HashSet};
use std::fmt;

/// The strategies [`walk`] knows.
pub const STRATEGIES: &[&str] = &["lex", "reverse_lex", "halton", "shuffle"];

/// Upstream's strategy names the grammar accepts but this release does not
/// implement (each is refused with a message naming what is supported).
pub const UNSUPPORTED: &[&str] = &["diagonal", "antidiagonal", "extrema", "shells", "sobol", "lhs"];

/// The seed `shuffle` starts from when none is authored (the space's size is added).
const SHUFFLE_SEED: u64 = 0xD1CE_5EED_C0FF_EE42;

/// The bases of the Halton sequence, one per axis (axes past the last reuse it).
const PRIMES: [u64; 16] = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53];

/// The most positions a `shuffle` emits by Fisher–Yates (a table of the
/// space, or one draw per position kept); past it, the keyed bijection.
pub const SHUFFLE_TABLE_MAX: u64 = 1 << 26;

/// Why an order cannot be walked.
#[derive(Clone, Debug, PartialEq)]
pub enum OrderError {
    /// The order clause itself is refused (unknown strategy, a seed where
    /// none is taken, a space too large to count); the message says why.
    Refused(String),
    /// The memory `positions` positions need could not be had.
    OutOfMemory {
        /// How many positions were being held.
        positions: u64,
    },
}

impl fmt::Display for OrderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OrderError::Refused(message) => f.write_str(message),
            OrderError::OutOfMemory { positions } => write!(
                f,
                "not enough memory to hold {positions} positions of an order: take them in batches (a for_each or for loop walks them one at a time)"
            ),
        }
    }
}

impl std::error::Error for OrderError {}

/// Positions into the space of `axes` (row-major, axis 0 slowest) that
/// `strategy` emits, in order, at most `count` of them (all when `None`),
/// held in one vector (refused with [`OrderError::OutOfMemory`] when it
/// does not fit). `seed` is the authored `seed=` of a seeded strategy
/// (`shuffle`); any other strategy refuses one.
pub fn positions(strategy: &str, axes: &[u64], count: Option<u64>, seed: Option<u64>) -> Result<Vec<u64>, OrderError> {
    walk(strategy, axes, count, seed)?.into_vec()
}

/// The walk of `strategy` over the space of `axes`, emitting at most
/// `count` positions (see [`positions`] for the arguments).
pub fn walk(strategy: &str, axes: &[u64], count: Option<u64>, seed: Option<u64>) -> Result<Walk, OrderError> {
    let refused = |message: String| OrderError::Refused(message);
    if seed.is_some() && strategy != "shuffle" {
        return Err(refused(format!("order '{strategy}' takes no seed (only shuffle does)")));
    }
    let total = axes
        .iter()
        .try_fold(1u64, |a, &b| a.checked_mul(b))
        .ok_or_else(|| refused("the comprehension has too many tuples to order".into()))?;
    let n = count.map_or(total, |c| c.min(total));
    let order = match strategy {
        "lex" => Order::Lex,
        "reverse_lex" => Order::ReverseLex { total },
        "halton" if axes.is_empty() => Order::Lex,
        "halton" => Order::Halton {
            axes: axes.to_vec(),
            point: 1,
            max_points: n.saturating_mul(8).max(256),
            seen: HashSet::new(),
        },
        "shuffle" => shuffle(total, n, seed.unwrap_or(SHUFFLE_SEED).wrapping_add(total))?,
        other if UNSUPPORTED.contains(&other) => {
            return Err(refused(format!(
                "order '{other}' is not supported in this release; supported: {}",
                STRATEGIES.join(", ")
            )))
        }
        other => {
            return Err(refused(format!(
                "unknown order strategy '{other}'; the strategies are {}, {}",
                STRATEGIES.join(", "),
                UNSUPPORTED.join(", ")
            )))
        }
    };
    // `halton` over no axes emits nothing (as no lattice has a point).
    let left = if strategy == "halton" && axes.is_empty() { 0 } else { n };
    Ok(Walk { order, emitted: 0, left })
}

/// An order being walked: its positions one at a time ([`Walk::next_position`])
/// or in batches ([`Walk::take`]).
pub struct Walk {
    order: Order,
    /// Positions emitted so far.
    emitted: u64,
    /// Positions still to emit at most.
    left: u64,
}

/// What each strategy keeps between positions.
enum Order {
    Lex,
    ReverseLex {
        total: u64,
    },
    /// The next Halton point to try, the last one tried before giving up,
    /// and the lattice positions emitted (repeats are skipped).
    Halton {
        axes: Vec<u64>,
        point: u64,
        max_points: u64,
        seen: HashSet<u64>,
    },
    /// A whole Fisher–Yates shuffle of the space, as its table.
    Table(Vec<u64>),
    /// Draws of a partial Fisher–Yates shuffle, holding only the displaced slots.
    Draws {
        draws: Draws,
        total: u64,
        displaced: HashMap<u64, u64>,
    },
    /// The keyed bijection of a space too large for a table.
    Permuted(CycleWalk),
}

impl Walk {
    /// At most how many positions the walk emits in all (`halton` may stop
    /// short, giving up as upstream does).
    pub fn bound(&self) -> u64 {
        self.emitted + self.left
    }

    /// The next position, `None` once the walk is over.
    pub fn next_position(&mut self) -> Result<Option<u64>, OrderError> {
        if self.left == 0 {
            return Ok(None);
        }
        let i = self.emitted;
        let no_memory = || OrderError::OutOfMemory { positions: i + 1 };
        let position = match &mut self.order {
            Order::Lex => Some(i),
            Order::ReverseLex { total } => Some(*total - 1 - i),
            Order::Table(all) => Some(all[i as usize]),
            Order::Permuted(walk) => Some(walk.apply(i)),
            Order::Draws { draws, total, displaced } => {
                let last = *total - i - 1;
                let j = draws.bounded(*total - i);
                let pick = displaced.get(&j).copied().unwrap_or(j);
                let tail = displaced.remove(&last).unwrap_or(last);
                if j != last {
                    displaced.try_reserve(1).map_err(|_| no_memory())?;
                    displaced.insert(j, tail);
                }
                Some(pick)
            }
            Order::Halton { axes, point, max_points, seen } => loop {
                if *point > *max_points {
                    break None;
                }
                let flat = halton_position(axes, *point);
                *point += 1;
                seen.try_reserve(1).map_err(|_| no_memory())?;
                if seen.insert(flat) {
                    break Some(flat);
                }
            },
        };
        match position {
            Some(_) => (self.emitted, self.left) = (i + 1, self.left - 1),
            None => self.left = 0,
        }
        Ok(position)
    }

    /// Every position left, in one vector ([`OrderError::OutOfMemory`]
    /// when it does not fit, found before any is computed).
    pub fn into_vec(mut self) -> Result<Vec<u64>, OrderError> {
        let mut out = Vec::new();
        let room = usize::try_from(self.left).ok().filter(|&n| out.try_reserve_exact(n).is_ok());
        if room.is_none() {
            return Err(OrderError::OutOfMemory { positions: self.left });
        }
        while let Some(p) = self.next_position()? {
            out.push(p);
        }
        Ok(out)
    }

    /// The next positions, at most `max` of them (fewer only at the end).
    pub fn take(&mut self, max: usize) -> Result<Vec<u64>, OrderError> {
        let wanted = usize::try_from(self.left).unwrap_or(usize::MAX).min(max);
        let mut out = Vec::new();
        out.try_reserve_exact(wanted).map_err(|_| OrderError::OutOfMemory { positions: wanted as u64 })?;
        while out.len() < wanted {
            match self.next_position()? {
                Some(p) => out.push(p),
                None => break,
            }
        }
        Ok(out)
    }
}

/// `phi_b(i)`: `i` written in base `b`, its digits reversed after the point.
fn radical_inverse(mut i: u64, base: u64) -> f64 {
    let (mut result, mut f) = (0.0f64, 1.0 / base as f64);
    while i > 0 {
        result += (i % base) as f64 * f;
        i /= base;
        f /= base as f64;
    }
    result
}

/// The lattice position Halton point `i` lands on (its coordinate `f` on an
/// axis of `size` is `floor(f * size)`); `halton` emits the first `n`
/// distinct ones, giving up after `max(8n, 256)` points, as upstream.
fn halton_position(axes: &[u64], i: u64) -> u64 {
    let mut flat = 0u64;
    for (k, &size) in axes.iter().enumerate() {
        let f = radical_inverse(i, PRIMES[k.min(PRIMES.len() - 1)]);
        let coordinate = ((f * size as f64).floor() as u64).min(size.saturating_sub(1));
        flat = flat * size + coordinate;
    }
    flat
}

/// The PCG stream a seeded strategy draws from (stream 0 of `pcg`).
struct Draws {
    seed: u64,
    position: u64,
}

impl Draws {
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
}

/// A seeded permutation of `0..total`, cut to `n`: a whole Fisher–Yates
/// shuffle when every position is kept, else `n` draws of a partial one
/// (holding only the displaced slots); past [`SHUFFLE_TABLE_MAX`]
/// positions, the `cycle_walk` bijection keyed by the same seed.
fn shuffle(total: u64, n: u64, seed: u64) -> Result<Order, OrderError> {
    let mut draws = Draws { seed, position: 0 };
    if n > SHUFFLE_TABLE_MAX {
        return CycleWalk::new(total, seed, 0).map(Order::Permuted).map_err(OrderError::Refused);
    }
    if n < total || n == 0 {
        return Ok(Order::Draws { draws, total, displaced: HashMap::new() });
    }
    let mut all = Vec::new();
    all.try_reserve_exact(total as usize).map_err(|_| OrderError::OutOfMemory { positions: total })?;
    all.extend(0..total);
    for i in (1..all.len()).rev() {
        let j = draws.bounded(i as u64 + 1) as usize;
        all.swap(i, j);
    }
    Ok(Order::Table(all))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lex_and_reverse_are_prefixes() {
        assert_eq!(positions("lex", &[3, 2], Some(4), None).unwrap(), vec![0, 1, 2, 3]);
        assert_eq!(positions("reverse_lex", &[3, 2], None, None).unwrap(), vec![5, 4, 3, 2, 1, 0]);
        assert_eq!(positions("lex", &[3, 0], None, None).unwrap(), Vec::<u64>::new());
    }

    #[test]
    fn halton_walks_the_lattice_by_radical_inverses() {
        // (phi2(i) * 3, phi3(i) * 3) for i = 1..: (1,1) (0,2) (2,0) (0,1) (1,2).
        assert_eq!(positions("halton", &[3, 3], Some(5), None).unwrap(), vec![4, 2, 6, 1, 5]);
        let all = positions("halton", &[4, 5], None, None).unwrap();
        let mut sorted = all.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..20).collect::<Vec<_>>(), "every position once");
    }

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
        let mut draws = Draws { seed: 7u64.wrapping_add(97), position: 0 };
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
    fn unknown_and_unsupported_strategies_are_refused() {
        assert!(positions("sobol", &[3], None, None).unwrap_err().to_string().contains("not supported"));
        assert!(positions("zigzag", &[3], None, None).unwrap_err().to_string().contains("unknown order strategy"));
        assert!(positions("lex", &[3], None, Some(1)).unwrap_err().to_string().contains("takes no seed"));
    }

    #[test]
    fn a_huge_shuffle_is_walked_in_constant_memory_and_never_tabled() {
        let seed = 7u64.wrapping_add(1_000_000_000_000);
        let mut huge = walk("shuffle", &[1_000_000_000_000], None, Some(7)).unwrap();
        let first = huge.take(1000).unwrap();
        let walk_of = CycleWalk::new(1_000_000_000_000, seed, 0).unwrap();
        assert_eq!(first, (0..1000).map(|i| walk_of.apply(i)).collect::<Vec<_>>());
        assert_eq!(first.iter().collect::<HashSet<_>>().len(), 1000, "no repeats");
        assert_eq!(huge.bound(), 1_000_000_000_000);
        let all = positions("shuffle", &[1_000_000_000_000], None, Some(7));
        assert!(matches!(all, Err(OrderError::OutOfMemory { positions: 1_000_000_000_000 })), "{all:?}");
    }

    #[test]
    fn walks_in_batches_give_what_positions_gives() {
        for (strategy, axes, count, seed) in [
            ("lex", vec![4, 5], Some(7), None),
            ("reverse_lex", vec![9], None, None),
            ("halton", vec![4, 5], None, None),
            ("halton", vec![3, 3], Some(5), None),
            ("shuffle", vec![6, 6], None, Some(3)),
            ("shuffle", vec![97], Some(40), None),
        ] {
            let whole = positions(strategy, &axes, count, seed).unwrap();
            let mut w = walk(strategy, &axes, count, seed).unwrap();
            let mut batched = Vec::new();
            loop {
                let batch = w.take(3).unwrap();
                if batch.is_empty() {
                    break;
                }
                batched.extend(batch);
            }
            assert_eq!(batched, whole, "{strategy} {axes:?}");
        }
        assert_eq!(positions("halton", &[], None, None).unwrap(), Vec::<u64>::new());
    }
}
