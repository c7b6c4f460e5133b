//! `halton` and `sobol`: low-discrepancy sequences over the unit cube,
//! each point discretized to a lattice position, as upstream polydat
//! walks them.
//!
//! Point `i` (from 1) has one coordinate `f` in `[0, 1)` per axis; on an
//! axis of `s` values it lands on digit `floor(f·s)`. A position already
//! emitted is skipped, and the walk gives up after `max(8n, 256)` points
//! for `n` positions wanted, so it may emit fewer.
//!
//! - Halton: axis `k`'s coordinate is the radical inverse of `i` in the
//!   `k`-th prime base (2, 3, 5, ...; axes past the 16th reuse 53).
//! - Sobol: axis 1 is the base-2 van der Corput sequence, axes 2 to 13 use
//!   the primitive polynomials and initial direction integers of Joe and
//!   Kuo's `new-joe-kuo-6.21201` table; the coordinate of point `i` is the
//!   exclusive-or of the direction numbers selected by the bits of `i`'s
//!   Gray code (`i ^ (i >> 1)`), as 32-bit fractions. A comprehension of
//!   more than [`SOBOL_MAX_AXES`] clauses is refused, as upstream refuses it.

use super::OrderError;
use std::collections::HashSet;

/// The bases of the Halton sequence, one per axis (axes past the last reuse it).
const PRIMES: [u64; 16] = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53];

/// Bits of a Sobol coordinate (and direction numbers per axis).
const SOBOL_BITS: usize = 32;

/// Sobol axes 2 and on: the degree `s` of the primitive polynomial, its
/// inner coefficients `a` (as bits) and the initial direction integers
/// `m_1..m_s` (Joe and Kuo's `new-joe-kuo-6.21201`, dimensions 2 to 13).
const JOE_KUO: [(u32, u32, &[u32]); 12] = [
    (1, 0, &[1]),
    (2, 1, &[1, 3]),
    (3, 1, &[1, 3, 1]),
    (3, 2, &[1, 1, 1]),
    (4, 1, &[1, 1, 3, 3]),
    (4, 4, &[1, 3, 5, 13]),
    (5, 2, &[1, 1, 5, 5, 17]),
    (5, 4, &[1, 1, 5, 5, 5]),
    (5, 7, &[1, 1, 7, 11, 19]),
    (5, 11, &[1, 1, 5, 1, 1]),
    (5, 13, &[1, 1, 1, 3, 11]),
    (5, 14, &[1, 3, 5, 5, 31]),
];

/// The most axes (comprehension clauses) `sobol` orders: its direction
/// numbers cover that many dimensions.
pub const SOBOL_MAX_AXES: usize = JOE_KUO.len() + 1;

/// Which sequence gives the points.
enum Sequence {
    Halton,
    /// The direction numbers `V_1..V_32` of each axis.
    Sobol(Vec<[u32; SOBOL_BITS]>),
}

/// A low-discrepancy walk over a lattice.
pub(super) struct Points {
    axes: Vec<u64>,
    sequence: Sequence,
    /// The next point to try.
    point: u64,
    /// The last point tried before giving up.
    max_points: u64,
    /// The positions emitted (repeats are skipped).
    seen: HashSet<u64>,
}

impl Points {
    /// The Halton walk over `axes` for `n` positions wanted.
    pub(super) fn halton(axes: &[u64], n: u64) -> Points {
        Points::new(axes, n, Sequence::Halton)
    }

    /// The Sobol walk over `axes` for `n` positions wanted (refused past
    /// [`SOBOL_MAX_AXES`] axes).
    pub(super) fn sobol(axes: &[u64], n: u64) -> Result<Points, OrderError> {
        if axes.len() > SOBOL_MAX_AXES {
            return Err(OrderError::Refused(format!(
                "order 'sobol' orders at most {SOBOL_MAX_AXES} clauses (its direction numbers cover {SOBOL_MAX_AXES} dimensions); this comprehension has {}",
                axes.len()
            )));
        }
        let directions = (0..axes.len()).map(direction_numbers).collect();
        Ok(Points::new(axes, n, Sequence::Sobol(directions)))
    }

    fn new(axes: &[u64], n: u64, sequence: Sequence) -> Points {
        Points {
            axes: axes.to_vec(),
            sequence,
            point: 1,
            max_points: n.saturating_mul(8).max(256),
            seen: HashSet::new(),
        }
    }

    /// The next position not emitted yet, `None` once the walk gives up;
    /// `emitted` positions were emitted before it.
    pub(super) fn next(&mut self, emitted: u64) -> Result<Option<u64>, OrderError> {
        while self.point <= self.max_points {
            let flat = self.position(self.point);
            self.point += 1;
            self.seen.try_reserve(1).map_err(|_| OrderError::OutOfMemory { positions: emitted + 1 })?;
            if self.seen.insert(flat) {
                return Ok(Some(flat));
            }
        }
        Ok(None)
    }

    /// The lattice position point `i` lands on.
    fn position(&self, i: u64) -> u64 {
        let mut flat = 0u64;
        for (k, &size) in self.axes.iter().enumerate() {
            let f = match &self.sequence {
                Sequence::Halton => radical_inverse(i, PRIMES[k.min(PRIMES.len() - 1)]),
                Sequence::Sobol(directions) => sobol_coordinate(i, &directions[k]),
            };
            let digit = ((f * size as f64).floor() as u64).min(size.saturating_sub(1));
            flat = flat * size + digit;
        }
        flat
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

/// The direction numbers of Sobol axis `axis` (0-based), as 32-bit
/// fractions: axis 0's are `2^-1, 2^-2, ...`; the others start from their
/// initial direction integers and follow their polynomial's recurrence.
fn direction_numbers(axis: usize) -> [u32; SOBOL_BITS] {
    let mut v = [0u32; SOBOL_BITS];
    if axis == 0 {
        for (i, slot) in v.iter_mut().enumerate() {
            *slot = 1 << (SOBOL_BITS - 1 - i);
        }
        return v;
    }
    let (degree, coefficients, initial) = JOE_KUO[axis - 1];
    let s = degree as usize;
    for i in 0..s {
        v[i] = initial[i] << (SOBOL_BITS - 1 - i);
    }
    for i in s..SOBOL_BITS {
        let mut next = v[i - s] ^ (v[i - s] >> degree);
        for k in 1..s {
            if (coefficients >> (s - 1 - k)) & 1 == 1 {
                next ^= v[i - k];
            }
        }
        v[i] = next;
    }
    v
}

/// Coordinate `i` of a Sobol axis with direction numbers `directions`.
fn sobol_coordinate(i: u64, directions: &[u32; SOBOL_BITS]) -> f64 {
    let mut gray = i ^ (i >> 1);
    let mut x = 0u32;
    for direction in directions {
        if gray == 0 {
            break;
        }
        if gray & 1 == 1 {
            x ^= direction;
        }
        gray >>= 1;
    }
    f64::from(x) / (1u64 << SOBOL_BITS) as f64
}

#[cfg(test)]
mod tests {
    use super::super::positions;
    use super::*;

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
    fn sobol_points_are_the_published_ones() {
        let point = |i: u64, axes: usize| -> Vec<f64> {
            (0..axes).map(|k| sobol_coordinate(i, &direction_numbers(k))).collect::<Vec<_>>()
        };
        // Axis 1: 1/2, 3/4, 1/4, 3/8, 7/8, 5/8, 1/8.
        let one = [0.5, 0.75, 0.25, 0.375, 0.875, 0.625, 0.125];
        for (i, want) in one.iter().enumerate() {
            assert_eq!(point(i as u64 + 1, 1), vec![*want]);
        }
        // Axes 1 and 2: (1/2,1/2) (3/4,1/4) (1/4,3/4) (3/8,3/8) (7/8,7/8) (5/8,1/8) (1/8,5/8).
        let two =
            [(0.5, 0.5), (0.75, 0.25), (0.25, 0.75), (0.375, 0.375), (0.875, 0.875), (0.625, 0.125), (0.125, 0.625)];
        for (i, (x, y)) in two.iter().enumerate() {
            assert_eq!(point(i as u64 + 1, 2), vec![*x, *y]);
        }
        // Axis 3 (polynomial x^2 + x + 1, m = 1, 3): 1/2, 1/4, 3/4.
        assert_eq!([1, 2, 3].map(|i| point(i, 3)[2]), [0.5, 0.25, 0.75]);
    }

    #[test]
    fn sobol_discretizes_its_points_to_the_lattice() {
        // Over 4 × 4 the points above land on (2,2) (3,1) (1,3) (1,1) (3,3) (2,0) (0,2).
        assert_eq!(positions("sobol", &[4, 4], Some(7), None).unwrap(), vec![10, 13, 7, 5, 15, 8, 2]);
        // One axis of 8: the van der Corput points in Gray-code order.
        assert_eq!(positions("sobol", &[8], Some(7), None).unwrap(), vec![4, 6, 2, 3, 7, 5, 1]);
    }

    #[test]
    fn sobol_refuses_more_axes_than_its_directions_cover() {
        assert!(positions("sobol", &[2; SOBOL_MAX_AXES], Some(3), None).is_ok());
        let refused = positions("sobol", &[2; SOBOL_MAX_AXES + 1], Some(3), None).unwrap_err().to_string();
        assert!(refused.contains("at most 13 clauses") && refused.contains("has 14"), "{refused}");
    }
}
