//! `shells`: the lattice by concentric shells around its center, outermost
//! first, as upstream polydat orders it.
//!
//! An axis of `s` values has its center at `(s - 1) / 2` (a half value when
//! `s` is even); a multi-index's shell is its Chebyshev (max-norm) distance
//! from the center of the lattice. Shells are emitted from the farthest to
//! the nearest, lexicographically (first axis slowest) within each, and a
//! count keeps that many positions (as upstream's `shells/N` does; only
//! `extrema` counts strata). Over a 5×5 lattice the shells hold 16, 8 and 1
//! points; over one axis of 5 the walk is 0, 4, 1, 3, 2.
//!
//! Distances are kept doubled (`|2·digit - (s - 1)|`), so they are whole
//! numbers however the axes' parities mix. The walk holds one multi-index
//! and steps to the next of its shell, or to the first of the next shell,
//! so a space of any size is walked in constant memory.

use super::flat;

/// The walk over the shells of a lattice.
pub(super) struct Shells {
    axes: Vec<u64>,
    /// The doubled distance of the shell being walked.
    shell: u128,
    /// Each axis's range of digits within the shell, and whether its ends
    /// lie on the shell (at exactly its distance).
    ranges: Vec<ShellRange>,
    /// `reach_after[k]`: whether an axis after `k` has digits on the shell.
    reach_after: Vec<bool>,
    /// The current multi-index (`None` before the first and after the last).
    digits: Option<Vec<u64>>,
    started: bool,
}

/// The digits `lo..=hi` of one axis within a shell; `on_shell`: `lo` and
/// `hi` are at exactly the shell's distance.
#[derive(Clone, Copy)]
struct ShellRange {
    lo: u64,
    hi: u64,
    on_shell: bool,
}

impl Shells {
    /// The walk over `axes` (none of them empty, or the caller emits nothing).
    pub(super) fn new(axes: &[u64]) -> Shells {
        let outermost = axes.iter().map(|&s| u128::from(s.saturating_sub(1))).max().unwrap_or(0);
        Shells {
            axes: axes.to_vec(),
            shell: outermost,
            ranges: Vec::new(),
            reach_after: vec![false; axes.len()],
            digits: None,
            started: false,
        }
    }

    /// The next position, `None` once every shell is walked.
    pub(super) fn next(&mut self) -> Option<u64> {
        if !self.started {
            self.started = true;
            self.digits = self.first_from(self.shell);
        } else if let Some(digits) = self.digits.take() {
            self.digits = self.after(digits).or_else(|| self.first_from(self.shell.checked_sub(1)?));
        }
        self.digits.as_ref().map(|digits| flat(&self.axes, digits))
    }

    /// The first multi-index of the outermost non-empty shell at most
    /// `shell` away, made the shell walked (`None`: no shell is left).
    fn first_from(&mut self, mut shell: u128) -> Option<Vec<u64>> {
        loop {
            if self.enter(shell) {
                let mut digits = vec![0; self.axes.len()];
                self.fill(&mut digits, 0);
                return Some(digits);
            }
            shell = shell.checked_sub(1)?;
        }
    }

    /// Makes `shell` the shell walked; false when it holds no point.
    fn enter(&mut self, shell: u128) -> bool {
        self.shell = shell;
        self.ranges.clear();
        for &size in &self.axes {
            let span = u128::from(size) - 1;
            let range = if shell >= span {
                // The whole axis is within the distance; its ends are on it only at exactly `span`.
                ShellRange { lo: 0, hi: size - 1, on_shell: shell == span }
            } else {
                // |2·d - span| <= shell: d from ceil((span - shell) / 2) to floor((span + shell) / 2).
                let lo = (span - shell).div_ceil(2);
                let hi = (span + shell) / 2;
                if lo > hi {
                    return false;
                }
                ShellRange { lo: lo as u64, hi: hi as u64, on_shell: (span - shell) % 2 == 0 }
            };
            self.ranges.push(range);
        }
        let mut reach = false;
        for k in (0..self.axes.len()).rev() {
            self.reach_after[k] = reach;
            reach |= self.ranges[k].on_shell;
        }
        reach
    }

    fn on_shell(&self, k: usize, digit: u64) -> bool {
        let range = self.ranges[k];
        range.on_shell && (digit == range.lo || digit == range.hi)
    }

    /// Sets the digits from `from` on to the smallest of the shell. The
    /// smallest digit of each axis is its range's start: when neither an
    /// earlier digit nor a later axis is on the shell, that start is.
    fn fill(&self, digits: &mut [u64], from: usize) {
        for (k, digit) in digits.iter_mut().enumerate().skip(from) {
            *digit = self.ranges[k].lo;
        }
    }

    /// The next multi-index of the shell after `digits`, `None` past its last.
    fn after(&self, mut digits: Vec<u64>) -> Option<Vec<u64>> {
        let mut reached = vec![false; digits.len()];
        for k in 1..digits.len() {
            reached[k] = reached[k - 1] || self.on_shell(k - 1, digits[k - 1]);
        }
        for k in (0..digits.len()).rev() {
            let range = self.ranges[k];
            let next = if reached[k] || self.reach_after[k] {
                Some(digits[k] + 1).filter(|&d| d <= range.hi)
            } else {
                // No other digit can be on the shell, so this one is (at the
                // range's start): the only later digit on it is the range's end.
                Some(range.hi).filter(|&d| d > digits[k])
            };
            if let Some(digit) = next {
                digits[k] = digit;
                self.fill(&mut digits, k + 1);
                return Some(digits);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::super::{digits_of, positions};

    fn walked(axes: &[u64], count: Option<u64>) -> Vec<Vec<u64>> {
        positions("shells", axes, count, None).unwrap().into_iter().map(|p| digits_of(axes, p)).collect()
    }

    /// Upstream's rule written out: every multi-index, sorted by doubled
    /// Chebyshev distance from the center, farthest first (then lex).
    fn sorted_by_shell(axes: &[u64]) -> Vec<Vec<u64>> {
        let total: u64 = axes.iter().product();
        let mut all: Vec<Vec<u64>> = (0..total).map(|p| digits_of(axes, p)).collect();
        let distance =
            |d: &Vec<u64>| d.iter().zip(axes).map(|(&v, &s)| (2 * v as i64 - (s as i64 - 1)).abs()).max().unwrap();
        all.sort_by_key(|d| (-distance(d), d.clone()));
        all
    }

    #[test]
    fn upstream_worked_examples() {
        let three = walked(&[3, 3], None);
        assert_eq!(three.len(), 9);
        assert_eq!(three[8], vec![1, 1], "the center is innermost");
        // 5×5 about (2, 2): 16 boundary points, the 8-point ring, the center.
        let five = walked(&[5, 5], None);
        let distance = |d: &Vec<u64>| d.iter().map(|&v| (v as i64 - 2).abs()).max().unwrap();
        let radii: Vec<i64> = five.iter().map(distance).collect();
        assert!(radii.windows(2).all(|w| w[0] >= w[1]), "{radii:?}");
        assert_eq!([2, 1, 0].map(|r| radii.iter().filter(|&&d| d == r).count()), [16, 8, 1]);
        assert!(walked(&[5, 5], Some(4)).iter().all(|d| distance(d) == 2));
        assert_eq!(positions("shells", &[5], None, None).unwrap(), vec![0, 4, 1, 3, 2]);
    }

    #[test]
    fn shells_descend_lexicographic_within() {
        for axes in
            [vec![1], vec![2], vec![6], vec![7], vec![4, 3], vec![2, 2], vec![3, 1, 4], vec![2, 5, 3], vec![6, 4, 2, 3]]
        {
            assert_eq!(walked(&axes, None), sorted_by_shell(&axes), "{axes:?}");
        }
    }

    #[test]
    fn a_count_keeps_positions_not_shells() {
        assert_eq!(walked(&[3, 3], Some(3)), vec![vec![0, 0], vec![0, 1], vec![0, 2]]);
    }

    #[test]
    fn a_huge_lattice_starts_on_its_farthest_shell() {
        // The farthest shell is the first and the last row of the long axis.
        let axes = [1u64 << 40, 1 << 20];
        let mut walk = super::super::walk("shells", &axes, None, None, false).unwrap();
        let first = walk.take((1 << 20) + 2).unwrap();
        let last_row = ((1u64 << 40) - 1) << 20;
        assert_eq!(first[..3], [0, 1, 2]);
        assert_eq!(first[(1 << 20) - 1..], [(1 << 20) - 1, last_row, last_row + 1]);
    }
}
