//! `extrema`: the lattice by strata of how many axes sit strictly inside
//! their range, as upstream polydat orders it.
//!
//! A digit is *extreme* when it is the first or last value of its axis
//! (every digit of an axis of one or two values is), *interior* otherwise.
//! Stratum `c` holds the multi-indices with exactly `c` interior digits:
//! stratum 0 the corners, 1 the edges, 2 the faces, and so on up to the
//! points inside every axis. The walk emits the strata in that order,
//! lexicographically (first axis slowest) within each, and a count keeps
//! that many whole strata: over a 3×3×3 lattice `extrema/1` keeps the 8
//! corners, `/2` adds the 12 edge midpoints (20), `/3` the 6 face centers
//! (26), `/4` the center (27). A stratum is never split: over a 2×2 lattice
//! every point is a corner, so `extrema/1` keeps all four. Over one axis
//! the strata are its two ends, then the rest in order.
//!
//! The walk holds one multi-index and steps to the next of the same
//! stratum, or to the first of the next, so a space of any size is walked
//! in constant memory (its corners come first however large it is).

use super::flat;

/// The walk over the strata of a lattice.
pub(super) struct Strata {
    axes: Vec<u64>,
    /// `inner_after[k]`: how many axes after `k` have an interior value
    /// (three or more values).
    inner_after: Vec<usize>,
    /// The stratum being walked.
    stratum: usize,
    /// The last stratum emitted (`None`: none is).
    last: Option<usize>,
    /// How many positions each stratum holds, saturating at `u64::MAX`.
    sizes: Vec<u64>,
    /// The current multi-index (`None` before the first and after the last).
    digits: Option<Vec<u64>>,
    started: bool,
}

impl Strata {
    /// The walk over `axes`, keeping the first `strata` strata (all when
    /// `None`).
    pub(super) fn new(axes: &[u64], strata: Option<u64>) -> Strata {
        let mut inner_after = vec![0usize; axes.len()];
        for k in (0..axes.len().saturating_sub(1)).rev() {
            inner_after[k] = inner_after[k + 1] + usize::from(axes[k + 1] >= 3);
        }
        let sizes = stratum_sizes(axes);
        let empty = axes.contains(&0);
        let kept = strata.map_or(sizes.len(), |n| usize::try_from(n).unwrap_or(usize::MAX).min(sizes.len()));
        let last = kept.checked_sub(1).filter(|_| !empty);
        Strata { axes: axes.to_vec(), inner_after, stratum: 0, last, sizes, digits: None, started: false }
    }

    /// How many positions the kept strata hold (saturating).
    pub(super) fn positions(&self) -> u64 {
        self.last.map_or(0, |last| self.sizes[..=last].iter().fold(0u64, |a, &b| a.saturating_add(b)))
    }

    /// The next position, `None` once the kept strata are walked.
    pub(super) fn next(&mut self) -> Option<u64> {
        let last = self.last?;
        if !self.started {
            self.started = true;
            self.digits = Some(self.first_of(0));
        } else if let Some(digits) = self.digits.take() {
            self.digits = self.after(digits, last);
        }
        self.digits.as_ref().map(|digits| flat(&self.axes, digits))
    }

    fn interior(&self, k: usize, digit: u64) -> bool {
        digit != 0 && digit != self.axes[k] - 1
    }

    /// The lexicographically first multi-index of stratum `stratum`.
    fn first_of(&self, stratum: usize) -> Vec<u64> {
        let mut digits = vec![0; self.axes.len()];
        self.fill(&mut digits, 0, stratum);
        digits
    }

    /// Sets the digits from `from` on to the smallest holding `inner` interior ones.
    fn fill(&self, digits: &mut [u64], from: usize, mut inner: usize) {
        for k in from..digits.len() {
            // 0 is the smallest digit; when the later axes cannot hold the
            // interior digits left, this one takes its smallest interior value.
            if inner > self.inner_after[k] {
                digits[k] = 1;
                inner -= 1;
            } else {
                digits[k] = 0;
            }
        }
    }

    /// The multi-index after `digits`: the next of its stratum, else the
    /// first of the next kept stratum, else `None`.
    fn after(&mut self, mut digits: Vec<u64>, last: usize) -> Option<Vec<u64>> {
        let mut inner_suffix = 0usize;
        for k in (0..digits.len()).rev() {
            let inner = inner_suffix + usize::from(self.interior(k, digits[k]));
            if let Some(digit) = self.raised(k, digits[k], inner) {
                digits[k] = digit;
                self.fill(&mut digits, k + 1, inner - usize::from(self.interior(k, digit)));
                return Some(digits);
            }
            inner_suffix = inner;
        }
        if self.stratum >= last {
            return None;
        }
        self.stratum += 1;
        Some(self.first_of(self.stratum))
    }

    /// The smallest digit of axis `k` above `digit` after which the later
    /// axes can still hold the `inner` interior digits this one and they need.
    fn raised(&self, k: usize, digit: u64, inner: usize) -> Option<u64> {
        let size = self.axes[k];
        // The digit now is feasible, so the later axes always hold one
        // interior digit fewer; they may not hold all of them.
        let fits_interior = inner >= 1;
        let fits_extreme = inner <= self.inner_after[k];
        let next = digit + 1;
        if next >= size {
            return None;
        }
        if self.interior(k, next) {
            if fits_interior {
                return Some(next);
            }
            // Skip the interior values: the axis's last value is extreme.
            return fits_extreme.then_some(size - 1);
        }
        fits_extreme.then_some(next)
    }
}

/// How many multi-indices of `axes` hold exactly `c` interior digits, for
/// `c` from 0 to the number of axes with an interior value: the
/// coefficients of the product over the axes of (extremes + interiors·x).
fn stratum_sizes(axes: &[u64]) -> Vec<u64> {
    let mut sizes = vec![1u64];
    for &size in axes {
        let (extremes, interiors) = (size.min(2), size.saturating_sub(2));
        let mut next = vec![0u64; sizes.len() + usize::from(interiors > 0)];
        for (c, &count) in sizes.iter().enumerate() {
            next[c] = next[c].saturating_add(count.saturating_mul(extremes));
            if interiors > 0 {
                next[c + 1] = next[c + 1].saturating_add(count.saturating_mul(interiors));
            }
        }
        sizes = next;
    }
    sizes
}

#[cfg(test)]
mod tests {
    use super::super::{digits_of, positions};

    fn walked(axes: &[u64], strata: Option<u64>) -> Vec<Vec<u64>> {
        positions("extrema", axes, strata, None).unwrap().into_iter().map(|p| digits_of(axes, p)).collect()
    }

    /// Upstream's rule written out: every multi-index, sorted by its
    /// number of interior digits (then lex).
    fn sorted_by_interior_count(axes: &[u64]) -> Vec<Vec<u64>> {
        let total: u64 = axes.iter().product();
        let mut all: Vec<Vec<u64>> = (0..total).map(|p| digits_of(axes, p)).collect();
        let inner = |d: &Vec<u64>| d.iter().zip(axes).filter(|&(&v, &s)| v != 0 && v != s - 1).count();
        all.sort_by_key(|d| (inner(d), d.clone()));
        all
    }

    #[test]
    fn the_3x3x3_strata_are_8_20_26_27() {
        let axes = [3, 3, 3];
        let counts: Vec<usize> = (1..=4).map(|n| walked(&axes, Some(n)).len()).collect();
        assert_eq!(counts, vec![8, 20, 26, 27]);
        assert_eq!(walked(&axes, None).len(), 27);
        assert_eq!(
            walked(&axes, Some(1)),
            vec![
                vec![0, 0, 0],
                vec![0, 0, 2],
                vec![0, 2, 0],
                vec![0, 2, 2],
                vec![2, 0, 0],
                vec![2, 0, 2],
                vec![2, 2, 0],
                vec![2, 2, 2]
            ]
        );
        assert_eq!(walked(&axes, None).last(), Some(&vec![1, 1, 1]));
    }

    #[test]
    fn upstream_worked_examples() {
        // 3×3: corners (4), edges (4), center.
        assert_eq!([Some(1), Some(2), None].map(|n| walked(&[3, 3], n).len()), [4, 8, 9]);
        // Every point of a 2×2 or 2×2×2 lattice is a corner: one stratum, never split.
        for n in 1..=4 {
            assert_eq!(walked(&[2, 2], Some(n)), vec![vec![0, 0], vec![0, 1], vec![1, 0], vec![1, 1]]);
        }
        assert_eq!(walked(&[2, 2, 2], Some(1)).len(), 8);
        assert!(walked(&[2, 2], Some(0)).is_empty());
        // One axis: its ends, then the rest.
        assert_eq!(positions("extrema", &[5], Some(1), None).unwrap(), vec![0, 4]);
        assert_eq!(positions("extrema", &[5], None, None).unwrap(), vec![0, 4, 1, 2, 3]);
        assert_eq!(positions("extrema", &[10], Some(1), None).unwrap(), vec![0, 9]);
    }

    #[test]
    fn strata_ascend_lexicographic_within() {
        for axes in [vec![1], vec![2], vec![6], vec![4, 3], vec![3, 1, 4], vec![2, 5, 3], vec![4, 4, 2, 3]] {
            assert_eq!(walked(&axes, None), sorted_by_interior_count(&axes), "{axes:?}");
        }
    }

    #[test]
    fn the_bound_is_the_kept_strata() {
        assert_eq!(super::stratum_sizes(&[3, 3, 3]), vec![8, 12, 6, 1]);
        assert_eq!(super::stratum_sizes(&[2, 5, 1]), vec![4, 6]);
        let w = super::super::walk("extrema", &[3, 3, 3], Some(2), None, false).unwrap();
        assert_eq!(w.bound(), 20);
        let w = super::super::walk("extrema", &[3, 3, 3], Some(9), None, false).unwrap();
        assert_eq!(w.bound(), 27);
    }
}
