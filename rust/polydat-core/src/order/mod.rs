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
//! The strategies follow upstream polydat's:
//!
//! - `lex`, the natural order, and `reverse_lex`, its reverse;
//! - `diagonal` and `antidiagonal` (`diagonal.rs`): by the sum of the
//!   multi-index, ascending or descending, lexicographic within a sum;
//! - `extrema` (`extrema.rs`): the strata of the lattice by how many axes sit
//!   strictly inside their range (corners first, then edges, faces, ...),
//!   lexicographic within a stratum; its count keeps that many whole strata;
//! - `shells` (`shells.rs`): the shells of the lattice by Chebyshev distance
//!   from its center, outermost first, lexicographic within a shell;
//! - `halton` and `sobol` (`low_discrepancy.rs`): the K-dimensional Halton
//!   sequence (bases the first K primes) or Sobol sequence (Joe–Kuo
//!   direction numbers) over the axes, each point discretized to a lattice
//!   position, repeats skipped;
//! - `shuffle` and `lhs` (`seeded.rs`): a Fisher–Yates permutation of the
//!   positions, or a Latin hypercube sample of the axes, both driven by the
//!   PCG generator of the `pcg` node from the authored `seed=` or a fixed
//!   default.
//!
//! An order is walked one position at a time ([`Walk`]), so a host takes
//! the positions it needs in batches and never holds the whole space:
//! `lex`, `reverse_lex`, `diagonal`, `antidiagonal`, `extrema` and `shells`
//! compute each position from the previous one, `halton`, `sobol` and a
//! drawn `shuffle` keep only what they have emitted. A shuffle of more than
//! [`SHUFFLE_TABLE_MAX`] positions, which would need a table of them all
//! (or that many draws), is the `cycle_walk` bijection of the space
//! instead (a keyed Feistel permutation, computed per position). `lhs`
//! draws its whole sample before the first position, and refuses a sample
//! past [`LHS_TABLE_MAX`] strata.

mod diagonal;
mod extrema;
mod low_discrepancy;
mod seeded;
mod shells;

use std::fmt;

pub use low_discrepancy::SOBOL_MAX_AXES;
pub use seeded::{LHS_TABLE_MAX, SHUFFLE_TABLE_MAX};

/// The strategies [`walk`] knows (upstream's ten).
pub const STRATEGIES: &[&str] =
    &["lex", "reverse_lex", "diagonal", "antidiagonal", "extrema", "shells", "halton", "sobol", "lhs", "shuffle"];

/// The strategies that take an authored `seed=` (the others refuse one).
pub const SEEDED: &[&str] = &["shuffle", "lhs"];

/// The strategies whose count keeps that many whole strata rather than that
/// many positions (`extrema/1` keeps every corner).
pub const COUNTS_STRATA: &[&str] = &["extrema"];

/// Why an order cannot be walked.
#[derive(Clone, Debug, PartialEq)]
pub enum OrderError {
    /// The order clause itself is refused (unknown strategy, a seed where
    /// none is taken, a space too large to count or sample); the message
    /// says why.
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
/// `strategy` emits, in order, cut by `count` (all when `None`), held in one
/// vector (refused with [`OrderError::OutOfMemory`] when it does not fit).
/// `seed` is the authored `seed=` of a seeded strategy ([`SEEDED`]); any
/// other strategy refuses one.
pub fn positions(strategy: &str, axes: &[u64], count: Option<u64>, seed: Option<u64>) -> Result<Vec<u64>, OrderError> {
    walk(strategy, axes, count, seed, false)?.into_vec()
}

/// The walk of `strategy` over the space of `axes` (see [`positions`] for
/// the other arguments).
///
/// `filtered` says the host keeps only the emitted positions whose tuples
/// pass its `where` tests. A count of positions then applies to the
/// survivors, so the walk emits the whole order and
/// [`Walk::survivor_limit`] is the count the host applies after its tests;
/// a count of strata ([`COUNTS_STRATA`]) is a property of the space and
/// still cuts the walk itself.
pub fn walk(
    strategy: &str,
    axes: &[u64],
    count: Option<u64>,
    seed: Option<u64>,
    filtered: bool,
) -> Result<Walk, OrderError> {
    let refused = |message: String| OrderError::Refused(message);
    if !STRATEGIES.contains(&strategy) {
        return Err(refused(format!(
            "unknown order strategy '{strategy}'; the strategies are {}",
            STRATEGIES.join(", ")
        )));
    }
    if seed.is_some() && !SEEDED.contains(&strategy) {
        return Err(refused(format!("order '{strategy}' takes no seed (only {} do)", SEEDED.join(" and "))));
    }
    let total = axes
        .iter()
        .try_fold(1u64, |a, &b| a.checked_mul(b))
        .ok_or_else(|| refused("the comprehension has too many tuples to order".into()))?;
    let counts_strata = COUNTS_STRATA.contains(&strategy);
    let (walk_count, survivor_limit) = if filtered && !counts_strata { (None, count) } else { (count, None) };
    let n = walk_count.map_or(total, |c| c.min(total));
    // Every strategy past the natural order and its reverse treats a space
    // of no axes as a lattice with no point, as upstream does.
    let lattice = if axes.is_empty() { &[0][..] } else { axes };
    let (order, left) = match strategy {
        "lex" => (Order::Lex, n),
        "reverse_lex" => (Order::ReverseLex { total }, n),
        "diagonal" | "antidiagonal" => {
            (Order::IndexSums(diagonal::IndexSums::new(lattice, strategy == "antidiagonal")), n.min(total_of(lattice)))
        }
        "extrema" => {
            let strata = extrema::Strata::new(lattice, walk_count);
            let held = strata.positions();
            (Order::Strata(strata), held)
        }
        "shells" => (Order::Shells(shells::Shells::new(lattice)), n.min(total_of(lattice))),
        "halton" => (Order::Points(low_discrepancy::Points::halton(lattice, n)), n.min(total_of(lattice))),
        "sobol" => (Order::Points(low_discrepancy::Points::sobol(lattice, n)?), n.min(total_of(lattice))),
        "lhs" => {
            let sample = seeded::lhs(lattice, n.min(total_of(lattice)), seed, filtered && count.is_some())?;
            let left = sample.len() as u64;
            (Order::Drawn(seeded::Drawn::Table(sample)), left)
        }
        "shuffle" => (Order::Drawn(seeded::shuffle(total, n, seed)?), n),
        _ => unreachable!("every strategy of STRATEGIES has a walk"),
    };
    Ok(Walk { order, emitted: 0, left, survivor_limit })
}

/// How many positions `axes` hold (the caller checked that they are countable).
fn total_of(axes: &[u64]) -> u64 {
    axes.iter().product()
}

/// An order being walked: its positions one at a time ([`Walk::next_position`])
/// or in batches ([`Walk::take`]).
pub struct Walk {
    order: Order,
    /// Positions emitted so far.
    emitted: u64,
    /// Positions still to emit at most.
    left: u64,
    /// How many of the positions passing the host's filters to keep.
    survivor_limit: Option<u64>,
}

/// What each strategy keeps between positions.
enum Order {
    Lex,
    ReverseLex { total: u64 },
    IndexSums(diagonal::IndexSums),
    Strata(extrema::Strata),
    Shells(shells::Shells),
    Points(low_discrepancy::Points),
    Drawn(seeded::Drawn),
}

impl Walk {
    /// At most how many positions the walk emits in all (`halton` and
    /// `sobol` may stop short, giving up as upstream does).
    pub fn bound(&self) -> u64 {
        self.emitted + self.left
    }

    /// How many of the emitted positions whose tuples pass the host's
    /// filters the host keeps (`None`: every one). Only a walk made for a
    /// filtering host ([`walk`]'s `filtered`) has one: the count of an order
    /// that counts positions, which applies to the survivors.
    pub fn survivor_limit(&self) -> Option<u64> {
        self.survivor_limit
    }

    /// The next position, `None` once the walk is over.
    pub fn next_position(&mut self) -> Result<Option<u64>, OrderError> {
        if self.left == 0 {
            return Ok(None);
        }
        let i = self.emitted;
        let position = match &mut self.order {
            Order::Lex => Some(i),
            Order::ReverseLex { total } => Some(*total - 1 - i),
            Order::IndexSums(sums) => sums.next(),
            Order::Strata(strata) => strata.next(),
            Order::Shells(shells) => shells.next(),
            Order::Points(points) => points.next(i)?,
            Order::Drawn(drawn) => drawn.next(i)?,
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

/// The row-major position of the multi-index `digits` over `axes`.
fn flat(axes: &[u64], digits: &[u64]) -> u64 {
    axes.iter().zip(digits).fold(0, |flat, (&size, &digit)| flat * size + digit)
}

/// The multi-index of the row-major position `position` over `axes` (test helper).
#[cfg(test)]
fn digits_of(axes: &[u64], mut position: u64) -> Vec<u64> {
    let mut digits = vec![0; axes.len()];
    for (digit, &size) in digits.iter_mut().zip(axes).rev() {
        (position, *digit) = (position / size, position % size);
    }
    digits
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn lex_and_reverse_are_prefixes() {
        assert_eq!(positions("lex", &[3, 2], Some(4), None).unwrap(), vec![0, 1, 2, 3]);
        assert_eq!(positions("reverse_lex", &[3, 2], None, None).unwrap(), vec![5, 4, 3, 2, 1, 0]);
        assert_eq!(positions("lex", &[3, 0], None, None).unwrap(), Vec::<u64>::new());
    }

    #[test]
    fn unknown_strategies_and_stray_seeds_are_refused() {
        let unknown = positions("zigzag", &[3], None, None).unwrap_err().to_string();
        assert!(unknown.contains("unknown order strategy 'zigzag'") && unknown.contains("sobol, lhs"), "{unknown}");
        for strategy in ["lex", "halton", "extrema", "sobol"] {
            let seeded = positions(strategy, &[3], None, Some(1)).unwrap_err().to_string();
            assert!(seeded.contains("takes no seed (only shuffle and lhs do)"), "{seeded}");
        }
        assert!(positions("lhs", &[3], None, Some(1)).is_ok());
    }

    #[test]
    fn no_axes_give_no_position_past_the_natural_order() {
        for strategy in STRATEGIES {
            let got = positions(strategy, &[], None, None).unwrap();
            let want = if ["lex", "reverse_lex", "shuffle"].contains(strategy) { vec![0] } else { vec![] };
            assert_eq!(got, want, "{strategy}");
        }
        for strategy in STRATEGIES {
            assert_eq!(positions(strategy, &[4, 0], None, None).unwrap(), Vec::<u64>::new(), "{strategy}");
        }
    }

    #[test]
    fn a_filtering_host_applies_a_count_of_positions_and_the_walk_a_count_of_strata() {
        let tuples = walk("halton", &[4, 4], Some(3), None, true).unwrap();
        assert_eq!((tuples.bound(), tuples.survivor_limit()), (16, Some(3)));
        let unfiltered = walk("halton", &[4, 4], Some(3), None, false).unwrap();
        assert_eq!((unfiltered.bound(), unfiltered.survivor_limit()), (3, None));
        let strata = walk("extrema", &[4, 4], Some(1), None, true).unwrap();
        assert_eq!((strata.bound(), strata.survivor_limit()), (4, None));
        assert_eq!(strata.into_vec().unwrap(), vec![0, 3, 12, 15]);
    }

    #[test]
    fn every_strategy_walks_in_batches_as_it_walks_whole() {
        for (strategy, axes, count, seed) in [
            ("lex", vec![4, 5], Some(7), None),
            ("reverse_lex", vec![9], None, None),
            ("halton", vec![4, 5], None, None),
            ("halton", vec![3, 3], Some(5), None),
            ("sobol", vec![4, 5], None, None),
            ("shuffle", vec![6, 6], None, Some(3)),
            ("shuffle", vec![97], Some(40), None),
            ("diagonal", vec![3, 4, 2], None, None),
            ("antidiagonal", vec![3, 4, 2], Some(10), None),
            ("extrema", vec![4, 3, 5], Some(2), None),
            ("shells", vec![4, 3, 5], None, None),
            ("lhs", vec![5, 7], None, Some(9)),
        ] {
            let whole = positions(strategy, &axes, count, seed).unwrap();
            let mut w = walk(strategy, &axes, count, seed, false).unwrap();
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
    }

    #[test]
    fn the_permuting_strategies_visit_every_position_once() {
        for strategy in ["diagonal", "antidiagonal", "extrema", "shells", "halton", "sobol", "shuffle"] {
            for axes in [vec![1], vec![7], vec![2, 2], vec![3, 4, 2], vec![5, 1, 6], vec![4, 4, 4, 3]] {
                let all = positions(strategy, &axes, None, None).unwrap();
                let mut sorted = all.clone();
                sorted.sort_unstable();
                let total: u64 = axes.iter().product();
                if ["halton", "sobol"].contains(&strategy) {
                    // A low-discrepancy walk gives up after 8 points per position: no repeat.
                    assert_eq!(all.iter().collect::<HashSet<_>>().len(), all.len(), "{strategy} {axes:?}");
                } else {
                    assert_eq!(sorted, (0..total).collect::<Vec<_>>(), "{strategy} {axes:?}");
                }
            }
        }
    }

    #[test]
    fn lattice_orders_over_a_huge_space_are_walked_lazily() {
        let huge = [1_000_000, 1_000_000, 1_000_000];
        for strategy in ["diagonal", "antidiagonal", "extrema", "shells", "halton", "sobol"] {
            let mut w = walk(strategy, &huge, None, None, false).unwrap();
            let first = w.take(1000).unwrap();
            assert_eq!(first.len(), 1000, "{strategy}");
            assert_eq!(first.iter().collect::<HashSet<_>>().len(), 1000, "{strategy}: no repeats");
        }
        let mut corners = walk("extrema", &huge, Some(1), None, false).unwrap();
        assert_eq!(corners.bound(), 8);
        assert_eq!(corners.take(100).unwrap().len(), 8);
    }
}
