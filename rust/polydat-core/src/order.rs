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

use crate::nodes::pcg::pcg_seek;

/// The strategies [`positions`] knows.
pub const STRATEGIES: &[&str] = &["lex", "reverse_lex", "halton", "shuffle"];

/// Upstream's strategy names the grammar accepts but this release does not
/// implement (each is refused with a message naming what is supported).
pub const UNSUPPORTED: &[&str] = &["diagonal", "antidiagonal", "extrema", "shells", "sobol", "lhs"];

/// The seed `shuffle` starts from when none is authored (the space's size is added).
const SHUFFLE_SEED: u64 = 0xD1CE_5EED_C0FF_EE42;

/// The bases of the Halton sequence, one per axis (axes past the last reuse it).
const PRIMES: [u64; 16] = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53];

/// Positions into the space of `axes` (row-major, axis 0 slowest) that
/// `strategy` emits, in order, at most `count` of them (all when `None`).
/// `seed` is the authored `seed=` of a seeded strategy (`shuffle`);
/// any other strategy refuses one.
pub fn positions(strategy: &str, axes: &[u64], count: Option<u64>, seed: Option<u64>) -> Result<Vec<u64>, String> {
    if seed.is_some() && strategy != "shuffle" {
        return Err(format!("order '{strategy}' takes no seed (only shuffle does)"));
    }
    let total =
        axes.iter().try_fold(1u64, |a, &b| a.checked_mul(b)).ok_or("the comprehension has too many tuples to order")?;
    let n = count.map_or(total, |c| c.min(total));
    let cap = |n: u64| usize::try_from(n).map_err(|_| "the comprehension has too many tuples to order".to_string());
    match strategy {
        "lex" => Ok((0..n).collect()),
        "reverse_lex" => Ok((0..n).map(|i| total - 1 - i).collect()),
        "halton" => halton(axes, n, cap(n)?),
        "shuffle" => shuffle(total, n, cap(n)?, seed.unwrap_or(SHUFFLE_SEED).wrapping_add(total)),
        other if UNSUPPORTED.contains(&other) => {
            Err(format!("order '{other}' is not supported in this release; supported: {}", STRATEGIES.join(", ")))
        }
        other => Err(format!(
            "unknown order strategy '{other}'; the strategies are {}, {}",
            STRATEGIES.join(", "),
            UNSUPPORTED.join(", ")
        )),
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

/// The first `n` distinct lattice positions the Halton points 1, 2, ...
/// land on (a point's coordinate `f` on an axis of `size` is
/// `floor(f * size)`); gives up after `max(8n, 256)` points, as upstream.
fn halton(axes: &[u64], n: u64, room: usize) -> Result<Vec<u64>, String> {
    if axes.is_empty() || n == 0 {
        return Ok(Vec::new());
    }
    let mut out = Vec::with_capacity(room.min(1 << 20));
    let mut seen = std::collections::HashSet::new();
    let max_attempts = n.saturating_mul(8).max(256);
    let mut i = 1u64;
    while (out.len() as u64) < n && i <= max_attempts {
        let mut flat = 0u64;
        for (k, &size) in axes.iter().enumerate() {
            let f = radical_inverse(i, PRIMES[k.min(PRIMES.len() - 1)]);
            let coordinate = ((f * size as f64).floor() as u64).min(size.saturating_sub(1));
            flat = flat * size + coordinate;
        }
        if seen.insert(flat) {
            out.push(flat);
        }
        i += 1;
    }
    Ok(out)
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
/// (holding only the displaced slots).
fn shuffle(total: u64, n: u64, room: usize, seed: u64) -> Result<Vec<u64>, String> {
    let mut draws = Draws { seed, position: 0 };
    if n == 0 {
        return Ok(Vec::new());
    }
    if n == total {
        let mut all: Vec<u64> = (0..total).collect();
        for i in (1..all.len()).rev() {
            let j = draws.bounded(i as u64 + 1) as usize;
            all.swap(i, j);
        }
        return Ok(all);
    }
    let mut displaced = std::collections::HashMap::new();
    let mut out = Vec::with_capacity(room);
    for i in 0..n {
        let last = total - i - 1;
        let j = draws.bounded(total - i);
        out.push(displaced.get(&j).copied().unwrap_or(j));
        let tail = displaced.remove(&last).unwrap_or(last);
        if j != last {
            displaced.insert(j, tail);
        }
    }
    Ok(out)
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
        assert!(positions("sobol", &[3], None, None).unwrap_err().contains("not supported"));
        assert!(positions("zigzag", &[3], None, None).unwrap_err().contains("unknown order strategy"));
        assert!(positions("lex", &[3], None, Some(1)).unwrap_err().contains("takes no seed"));
    }
}
