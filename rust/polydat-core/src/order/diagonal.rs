//! `diagonal` and `antidiagonal`: the lattice by the sum of the
//! multi-index, ascending (from the origin) or descending (from the far
//! corner), lexicographic (first axis slowest) within a sum, as upstream
//! polydat orders them.
//!
//! The walk holds one multi-index and steps to the next of the same sum,
//! or to the first of the next sum, so a space of any size is walked in
//! constant memory. Over one axis `diagonal` is the natural order and
//! `antidiagonal` its reverse.

use super::flat;

/// The walk over the index sums of a lattice.
pub(super) struct IndexSums {
    axes: Vec<u64>,
    /// `rest[k]`: the largest sum the axes after `k` can add.
    rest: Vec<u128>,
    /// The largest sum of all.
    max_sum: u128,
    /// The sum being walked.
    sum: u128,
    descending: bool,
    /// The current multi-index (`None` before the first and after the last).
    digits: Option<Vec<u64>>,
    started: bool,
}

impl IndexSums {
    /// The walk over `axes` (none of them empty, or the caller emits nothing),
    /// sums descending when `descending`.
    pub(super) fn new(axes: &[u64], descending: bool) -> IndexSums {
        let mut rest = vec![0u128; axes.len()];
        for k in (0..axes.len().saturating_sub(1)).rev() {
            rest[k] = rest[k + 1] + u128::from(axes[k + 1].saturating_sub(1));
        }
        let max_sum = axes.first().map_or(0, |&first| rest[0] + u128::from(first.saturating_sub(1)));
        let sum = if descending { max_sum } else { 0 };
        IndexSums { axes: axes.to_vec(), rest, max_sum, sum, descending, digits: None, started: false }
    }

    /// The next position, `None` once every sum is walked.
    pub(super) fn next(&mut self) -> Option<u64> {
        if !self.started {
            self.started = true;
            self.digits = Some(self.first_of(self.sum));
        } else if let Some(digits) = self.digits.take() {
            self.digits = self.after(digits);
        }
        self.digits.as_ref().map(|digits| flat(&self.axes, digits))
    }

    /// The lexicographically first multi-index whose digits sum to `sum`.
    fn first_of(&self, sum: u128) -> Vec<u64> {
        let mut digits = vec![0; self.axes.len()];
        self.fill(&mut digits, 0, sum);
        digits
    }

    /// Sets the digits from `from` on to the smallest that add up to `left`.
    fn fill(&self, digits: &mut [u64], from: usize, mut left: u128) {
        for k in from..digits.len() {
            let digit = left.saturating_sub(self.rest[k]);
            digits[k] = digit as u64;
            left -= digit;
        }
    }

    /// The multi-index after `digits`: the next of its sum, else the first
    /// of the next sum, else `None`.
    fn after(&mut self, mut digits: Vec<u64>) -> Option<Vec<u64>> {
        // The last digit is fixed by the others; walk the rest from the right.
        let mut suffix: u128 = digits.last().map_or(0, |&d| u128::from(d));
        for k in (0..digits.len().saturating_sub(1)).rev() {
            let left = u128::from(digits[k]) + suffix;
            let raised = u128::from(digits[k]) + 1;
            if raised < u128::from(self.axes[k]) && raised <= left {
                digits[k] += 1;
                self.fill(&mut digits, k + 1, left - raised);
                return Some(digits);
            }
            suffix = left;
        }
        let next_sum = if self.descending { self.sum.checked_sub(1) } else { Some(self.sum + 1) };
        self.sum = next_sum.filter(|&s| s <= self.max_sum)?;
        Some(self.first_of(self.sum))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{digits_of, positions};

    fn walked(strategy: &str, axes: &[u64], count: Option<u64>) -> Vec<Vec<u64>> {
        positions(strategy, axes, count, None).unwrap().into_iter().map(|p| digits_of(axes, p)).collect()
    }

    /// Upstream's rule written out: every multi-index, sorted by sum (then lex).
    fn sorted_by_sum(axes: &[u64], descending: bool) -> Vec<Vec<u64>> {
        let total: u64 = axes.iter().product();
        let mut all: Vec<Vec<u64>> = (0..total).map(|p| digits_of(axes, p)).collect();
        all.sort_by_key(|d| {
            let sum: u64 = d.iter().sum();
            (if descending { u64::MAX - sum } else { sum }, d.clone())
        });
        all
    }

    #[test]
    fn upstream_worked_examples() {
        assert_eq!(walked("diagonal", &[2, 2], None), vec![vec![0, 0], vec![0, 1], vec![1, 0], vec![1, 1]]);
        assert_eq!(walked("diagonal", &[3, 3], Some(4)), vec![vec![0, 0], vec![0, 1], vec![1, 0], vec![0, 2]]);
        assert_eq!(walked("antidiagonal", &[2, 2], None), vec![vec![1, 1], vec![0, 1], vec![1, 0], vec![0, 0]]);
        assert_eq!(
            walked("diagonal", &[3, 3, 3], Some(4)),
            vec![vec![0, 0, 0], vec![0, 0, 1], vec![0, 1, 0], vec![1, 0, 0]]
        );
    }

    #[test]
    fn sums_ascend_or_descend_lexicographic_within() {
        for axes in [vec![5], vec![3, 4], vec![2, 5, 3], vec![4, 1, 3, 2], vec![1, 1]] {
            assert_eq!(walked("diagonal", &axes, None), sorted_by_sum(&axes, false), "{axes:?}");
            assert_eq!(walked("antidiagonal", &axes, None), sorted_by_sum(&axes, true), "{axes:?}");
        }
        // One axis: the natural order and its reverse.
        assert_eq!(positions("diagonal", &[5], None, None).unwrap(), vec![0, 1, 2, 3, 4]);
        assert_eq!(positions("antidiagonal", &[5], None, None).unwrap(), vec![4, 3, 2, 1, 0]);
    }

    #[test]
    fn a_huge_lattice_starts_at_its_corner() {
        let axes = [1u64 << 40, 1 << 20];
        assert_eq!(positions("diagonal", &axes, Some(3), None).unwrap(), vec![0, 1, 1 << 20]);
        let far = (1u64 << 60) - 1;
        assert_eq!(positions("antidiagonal", &axes, Some(3), None).unwrap(), vec![far, far - (1 << 20), far - 1]);
    }
}
