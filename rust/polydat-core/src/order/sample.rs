//! Sampling a space with a continuous axis: the draws an `order` with a
//! count makes of a comprehension whose clauses include a continuous
//! source (`x in 0.0..1.0`, `x in normal(0, 1)`), as upstream polydat
//! materializes them.
//!
//! Such a space has no finite set of tuples, so only an order that samples
//! walks it, and only with a count: `halton`, `sobol`, `lhs` and `shuffle`
//! draw that many points, `extrema` takes that many strata of the box whose
//! continuous axes are their two ends. A discrete clause beside a
//! continuous one (a hybrid space) is sampled by the same order.
//!
//! A draw gives each axis, in clause order, a digit (the index of a value
//! of a discrete clause) or a value (of a continuous one). The sampling
//! orders lay a draw's axes out discrete ones first, then continuous ones:
//! dimension `k` of a Halton or Sobol point is the `k`-th axis in that
//! layout. A continuous coordinate is a 53-bit fraction `c / 2^53` of the
//! unit interval, which the axis's measure carries onto its interval
//! (`measure.rs`); a discrete one lands on digit `floor(f·s)` of an axis of
//! `s` values. Continuous points are never skipped as repeats.
//!
//! - `halton`, `sobol`: points `1, 2, ...` of the sequence
//!   (`low_discrepancy.rs`);
//! - `shuffle`: the PCG stream of the seeded orders (`seeded.rs`), seeded by
//!   the authored seed (or the shuffle default) plus the count; per draw one
//!   bounded draw per discrete axis, then the top 53 bits of one draw per
//!   continuous axis;
//! - `lhs`: the same stream seeded by the lhs seed plus the count; one
//!   Fisher–Yates permutation of the `n` strata per axis, in layout order,
//!   then per sample and axis: on a continuous axis a jitter `j` (53 bits
//!   of a draw) places it at `(stratum + j) / n`, on a discrete axis of `s`
//!   values the digit is `stratum·s / n` when `s >= n`, else `stratum mod s`;
//! - `extrema`: the strata of the lattice whose continuous axes have two
//!   values, their ends (`extrema.rs`), in clause order.
//!
//! When the host filters the draws (`where` before the order), a sequence
//! order's count applies to the draws that pass: the host tests a round of
//! draws and reports how many passed ([`Sample::redraw`]); when fewer than
//! the count did, the order draws again with twice the count, at most
//! [`SAMPLE_ROUNDS`] times, and the host keeps the first passing draws of
//! the last round.

use super::low_discrepancy::{direction_numbers, radical_inverse, sobol_coordinate, PRIMES, SOBOL_BITS};
use super::measure::ContinuousAxis;
use super::seeded::{Draws, LHS_SEED, LHS_TABLE_MAX, SHUFFLE_SEED};
use super::{check_strategy, extrema, OrderError, SOBOL_MAX_AXES};

/// How many times a filtered sample draws again, doubling its count, when
/// fewer draws than the count pass the host's filters.
pub const SAMPLE_ROUNDS: u32 = 6;

/// The orders that sample a continuous space with a count.
pub const SAMPLING: &[&str] = &["halton", "sobol", "lhs", "shuffle", "extrema"];

/// The scale of a continuous coordinate: a point of `[0, 1)` as a 53-bit fraction.
const UNIT_SCALE: f64 = (1u64 << 53) as f64;

/// One axis of a sampled space, in clause order.
#[derive(Clone, Debug, PartialEq)]
pub enum SampleAxis {
    /// A discrete clause of this many values.
    Discrete(u64),
    /// A continuous clause.
    Continuous(ContinuousAxis),
}

/// What a draw gives one axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Drawn {
    /// The index of a value of a discrete clause.
    Digit(u64),
    /// A value of a continuous clause.
    Value(f64),
}

/// Whether `strategy` (`None`: no order) with `count` and `seed` may
/// sample a space of `axes` axes with a continuous one: the verdicts of
/// [`sample`], without drawing anything.
pub fn check(strategy: Option<&str>, axes: usize, count: Option<u64>, seed: Option<u64>) -> Result<(), OrderError> {
    let refused = |message: String| Err(OrderError::Refused(message));
    let hint = "sample it with an order that draws (halton, sobol, lhs, shuffle or extrema) and a count, as in `order halton/16`";
    let Some(strategy) = strategy else {
        return refused(format!("a continuous source has no finite set of tuples to iterate: {hint}"));
    };
    check_strategy(strategy, seed)?;
    if strategy == "lex" {
        return refused(format!("order 'lex' does not sample a continuous source: {hint}"));
    }
    if !SAMPLING.contains(&strategy) {
        return refused(format!("order '{strategy}' does not accept a continuous source (it walks a lattice): {hint}"));
    }
    if count.is_none() {
        return refused(format!(
            "a continuous source has no finite set of tuples, so order '{strategy}' needs a count: {hint}"
        ));
    }
    if strategy == "sobol" && axes > SOBOL_MAX_AXES {
        return refused(format!(
            "order 'sobol' orders at most {SOBOL_MAX_AXES} clauses (its direction numbers cover {SOBOL_MAX_AXES} dimensions); this comprehension has {axes}"
        ));
    }
    Ok(())
}

/// The sample `strategy` (`None`: the comprehension has no order) draws
/// over `axes` with `count` draws (strata for `extrema`) and the authored
/// `seed`; `filtered` says the host keeps only the draws passing its
/// `where` tests (see the module). Refused, with upstream's verdicts: no
/// order or no count (a continuous space has no finite set of tuples), and
/// an order that does not sample (`lex`, `reverse_lex`, `diagonal`,
/// `antidiagonal`, `shells`).
pub fn sample(
    strategy: Option<&str>,
    axes: Vec<SampleAxis>,
    count: Option<u64>,
    seed: Option<u64>,
    filtered: bool,
) -> Result<Sample, OrderError> {
    check(strategy, axes.len(), count, seed)?;
    let (Some(strategy), Some(count)) = (strategy, count) else {
        unreachable!("check refuses a sample without an order or a count")
    };
    let discrete = axes.iter().filter(|a| matches!(a, SampleAxis::Discrete(_))).count();
    let empty = axes.iter().any(|a| matches!(a, SampleAxis::Discrete(0)));
    let sequence = strategy != "extrema";
    if !sequence && axes.iter().any(|a| matches!(a, SampleAxis::Continuous(m) if !m.is_bounded())) {
        return Err(OrderError::Refused(
            "extrema takes the two ends of each continuous source, and a measure on an unbounded support has \
             none: bound it with `on lo..hi` (as in `exponential(1) on 0.0..5.0`), or sample it with halton, \
             sobol, lhs or shuffle"
                .into(),
        ));
    }
    let mut sample = Sample {
        strategy: strategy.to_string(),
        axes,
        discrete,
        seed,
        count,
        survivor_limit: (filtered && sequence).then_some(count),
        want: count,
        rounds: 0,
        drawn: 0,
        draws: Generator::Empty,
    };
    if !empty {
        sample.draws = sample.generator(count)?;
    }
    Ok(sample)
}

/// A sample being drawn: its draws one at a time ([`Sample::next_draw`]) or
/// in batches ([`Sample::take`]).
pub struct Sample {
    strategy: String,
    axes: Vec<SampleAxis>,
    /// How many of the axes are discrete.
    discrete: usize,
    seed: Option<u64>,
    /// The authored count.
    count: u64,
    survivor_limit: Option<u64>,
    /// The count of the current round.
    want: u64,
    /// Rounds drawn again so far.
    rounds: u32,
    /// Draws of the current round emitted so far.
    drawn: u64,
    draws: Generator,
}

/// What each strategy keeps between draws; `left` draws remain.
enum Generator {
    /// No draw (an empty discrete axis).
    Empty,
    /// Points `next..` of Halton's or Sobol's sequence.
    Points { sobol: Option<Vec<[u32; SOBOL_BITS]>>, next: u64, left: u64 },
    /// Draws of the shuffle stream.
    Shuffle { draws: Draws, left: u64 },
    /// The strata permutations of a Latin hypercube, per layout axis, and
    /// the stream its jitters come from; sample `next` is the next one.
    Lhs { strata: Vec<Vec<u64>>, draws: Draws, next: u64 },
    /// The strata of the box.
    Extrema(extrema::Strata),
}

impl Sample {
    /// The draws of a round of `n`.
    fn generator(&self, n: u64) -> Result<Generator, OrderError> {
        let dims = self.axes.len();
        Ok(match self.strategy.as_str() {
            "halton" => Generator::Points { sobol: None, next: 1, left: n },
            "sobol" => Generator::Points { sobol: Some((0..dims).map(direction_numbers).collect()), next: 1, left: n },
            "shuffle" => {
                Generator::Shuffle { draws: Draws::new(self.seed.unwrap_or(SHUFFLE_SEED).wrapping_add(n)), left: n }
            }
            "lhs" => {
                let strata = n.saturating_mul(dims as u64);
                if strata > LHS_TABLE_MAX {
                    return Err(OrderError::Refused(format!(
                        "order 'lhs' would draw {n} samples over {dims} axes, {strata} strata (at most {LHS_TABLE_MAX}, drawn before the first tuple): give it a smaller count, e.g. order lhs/1000"
                    )));
                }
                let mut draws = Draws::new(self.seed.unwrap_or(LHS_SEED).wrapping_add(n));
                let mut all = Vec::new();
                all.try_reserve_exact(dims).map_err(|_| OrderError::OutOfMemory { positions: strata })?;
                for _ in 0..dims {
                    let mut perm = Vec::new();
                    perm.try_reserve_exact(n as usize).map_err(|_| OrderError::OutOfMemory { positions: strata })?;
                    perm.extend(0..n);
                    draws.shuffle(&mut perm);
                    all.push(perm);
                }
                Generator::Lhs { strata: all, draws, next: 0 }
            }
            "extrema" => Generator::Extrema(extrema::Strata::new(&extrema_lattice(&self.axes), Some(n))),
            other => unreachable!("'{other}' was checked to sample"),
        })
    }

    /// How many of the draws passing the host's filters to keep (`None`:
    /// every draw): a filtered sequence order's count.
    pub fn survivor_limit(&self) -> Option<u64> {
        self.survivor_limit
    }

    /// After the host has taken every draw of a round and `passed` of them
    /// passed its filters: whether it must take a new round (its draws
    /// start over, with twice the count), or keep the first
    /// [`Sample::survivor_limit`] that passed.
    pub fn redraw(&mut self, passed: u64) -> Result<bool, OrderError> {
        let exhausted = self.drawn < self.want;
        if self.survivor_limit.is_none() || passed >= self.count || exhausted || self.rounds >= SAMPLE_ROUNDS {
            return Ok(false);
        }
        let want = self.want.saturating_mul(2);
        if self.strategy == "lhs" && want.saturating_mul(self.axes.len() as u64) > LHS_TABLE_MAX {
            return Ok(false);
        }
        self.rounds += 1;
        if let Generator::Points { left, .. } = &mut self.draws {
            // A sequence's longer round starts with the draws of the shorter
            // one: it goes on from where that one stopped.
            *left += want - self.want;
        } else {
            self.drawn = 0;
            self.draws = self.generator(want)?;
        }
        self.want = want;
        Ok(true)
    }

    /// Whether a new round ([`Sample::redraw`]) starts its draws over
    /// (`lhs` and `shuffle`, whose draws follow the count), rather than
    /// going on with the draws after the previous round's (`halton` and
    /// `sobol`, whose longer rounds begin with the shorter ones' draws): a
    /// host may then dispense the draws that pass as they come.
    pub fn restarts(&self) -> bool {
        !matches!(self.draws, Generator::Points { .. })
    }

    /// The next draw of the round, `None` once it is over (a round that goes
    /// on from the previous one gives only its new draws): one entry per
    /// axis, in clause order.
    pub fn next_draw(&mut self) -> Option<Vec<Drawn>> {
        let codes = self.next_codes()?;
        self.drawn += 1;
        Some(self.realize(&codes))
    }

    /// The next draws of the round, at most `max` of them (fewer only at its end).
    pub fn take(&mut self, max: usize) -> Vec<Vec<Drawn>> {
        let mut out = Vec::new();
        while out.len() < max {
            match self.next_draw() {
                Some(draw) => out.push(draw),
                None => break,
            }
        }
        out
    }

    /// The next multi-index: under a sampling sequence, discrete digits
    /// then continuous 53-bit codes; under `extrema`, digits in clause
    /// order (a continuous axis's 0 or 1 for an end).
    fn next_codes(&mut self) -> Option<Vec<u64>> {
        let sizes = self.layout_sizes();
        let discrete = self.discrete;
        match &mut self.draws {
            Generator::Empty => None,
            Generator::Points { sobol, next, left } => {
                if *left == 0 {
                    return None;
                }
                let i = *next;
                (*next, *left) = (i + 1, *left - 1);
                let codes = (0..sizes.len())
                    .map(|k| {
                        let f = match sobol {
                            Some(directions) => sobol_coordinate(i, &directions[k]),
                            None => radical_inverse(i, PRIMES[k.min(PRIMES.len() - 1)]),
                        };
                        if k < discrete {
                            ((f * sizes[k] as f64).floor() as u64).min(sizes[k].saturating_sub(1))
                        } else {
                            (f * UNIT_SCALE) as u64
                        }
                    })
                    .collect();
                Some(codes)
            }
            Generator::Shuffle { draws, left } => {
                if *left == 0 {
                    return None;
                }
                *left -= 1;
                Some(
                    (0..sizes.len())
                        .map(|k| if k < discrete { draws.bounded(sizes[k]) } else { draws.next() >> 11 })
                        .collect(),
                )
            }
            Generator::Lhs { strata, draws, next } => {
                let n = strata.first().map_or(0, |s| s.len() as u64);
                if *next >= n {
                    return None;
                }
                let i = *next as usize;
                *next += 1;
                Some(
                    (0..sizes.len())
                        .map(|k| {
                            let stratum = strata[k][i];
                            if k >= discrete {
                                let jitter = (draws.next() >> 11) as f64 / UNIT_SCALE;
                                ((stratum as f64 + jitter) / n as f64 * UNIT_SCALE) as u64
                            } else if sizes[k] >= n {
                                (u128::from(stratum) * u128::from(sizes[k]) / u128::from(n)) as u64
                            } else {
                                stratum % sizes[k]
                            }
                        })
                        .collect(),
                )
            }
            Generator::Extrema(strata) => {
                let flat = strata.next()?;
                let lattice = extrema_lattice(&self.axes);
                let mut digits = vec![0; lattice.len()];
                let mut rest = flat;
                for (digit, &size) in digits.iter_mut().zip(&lattice).rev() {
                    (rest, *digit) = (rest / size, rest % size);
                }
                Some(digits)
            }
        }
    }

    /// The sizes of the axes in the sampling layout: discrete axes first
    /// (their sizes), then continuous ones (0).
    fn layout_sizes(&self) -> Vec<u64> {
        let discrete = self.axes.iter().filter_map(|a| match a {
            SampleAxis::Discrete(size) => Some(*size),
            SampleAxis::Continuous(_) => None,
        });
        let continuous = self.axes.iter().filter(|a| matches!(a, SampleAxis::Continuous(_))).map(|_| 0);
        discrete.chain(continuous).collect()
    }

    /// The draw a multi-index stands for, in clause order.
    fn realize(&self, codes: &[u64]) -> Vec<Drawn> {
        let extrema = matches!(self.draws, Generator::Extrema(_));
        let (mut d, mut c) = (0, self.discrete);
        self.axes
            .iter()
            .enumerate()
            .map(|(k, axis)| {
                let code = if extrema {
                    codes[k]
                } else {
                    let slot = if matches!(axis, SampleAxis::Discrete(_)) { &mut d } else { &mut c };
                    *slot += 1;
                    codes[*slot - 1]
                };
                match axis {
                    SampleAxis::Discrete(_) => Drawn::Digit(code),
                    SampleAxis::Continuous(measure) if extrema => Drawn::Value(measure.endpoint(code == 1)),
                    SampleAxis::Continuous(measure) => Drawn::Value(measure.map_unit(code as f64 / UNIT_SCALE)),
                }
            })
            .collect()
    }
}

/// The lattice `extrema` walks over `axes`: each discrete axis's size, 2
/// (its ends) for a continuous one.
fn extrema_lattice(axes: &[SampleAxis]) -> Vec<u64> {
    axes.iter()
        .map(|a| match a {
            SampleAxis::Discrete(size) => *size,
            SampleAxis::Continuous(_) => 2,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uniform(lo: f64, hi: f64) -> SampleAxis {
        SampleAxis::Continuous(ContinuousAxis::new("uniform", &[], Some((lo, hi, false))).unwrap())
    }

    fn named(name: &str, params: &[f64], on: Option<(f64, f64, bool)>) -> SampleAxis {
        SampleAxis::Continuous(ContinuousAxis::new(name, params, on).unwrap())
    }

    fn all(strategy: &str, axes: Vec<SampleAxis>, count: u64, seed: Option<u64>) -> Vec<Vec<Drawn>> {
        let mut s = sample(Some(strategy), axes, Some(count), seed, false).unwrap();
        s.take(usize::MAX)
    }

    fn values(draws: &[Vec<Drawn>], k: usize) -> Vec<f64> {
        draws
            .iter()
            .map(|d| match d[k] {
                Drawn::Value(v) => v,
                Drawn::Digit(v) => v as f64,
            })
            .collect()
    }

    #[test]
    fn extrema_over_a_continuous_box_is_its_corners() {
        // Upstream's worked example: x in 2.0..4.0, y in 0.0..1.0 order extrema/1.
        let got = all("extrema", vec![uniform(2.0, 4.0), uniform(0.0, 1.0)], 1, None);
        let (top_x, top_y) = (f64::from_bits(4.0f64.to_bits() - 1), f64::from_bits(1.0f64.to_bits() - 1));
        let want = [(2.0, 0.0), (2.0, top_y), (top_x, 0.0), (top_x, top_y)];
        assert_eq!(got, want.map(|(x, y)| vec![Drawn::Value(x), Drawn::Value(y)]));
        // A hybrid in clause order: theta in 0.0..1.0, k in 1,2,4,8 gives (0, 1) (0, 8) (top, 1) (top, 8).
        let got = all("extrema", vec![uniform(0.0, 1.0), SampleAxis::Discrete(4)], 1, None);
        let want = [(0.0, 0), (0.0, 3), (top_y, 0), (top_y, 3)];
        assert_eq!(got, want.map(|(t, k)| vec![Drawn::Value(t), Drawn::Digit(k)]));
    }

    #[test]
    fn halton_draws_the_radical_inverses_carried_onto_each_measure() {
        // The first base-2 point is 1/2: the first draw of normal(10, 2) is its median.
        let got = all("halton", vec![named("normal", &[10.0, 2.0], None)], 256, None);
        assert_eq!(got.len(), 256);
        assert_eq!(got[0], vec![Drawn::Value(10.0 + 2.0 * crate::nodes::dist::probit(0.5))]);
        let xs = values(&got, 0);
        let mean = xs.iter().sum::<f64>() / 256.0;
        let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 256.0).sqrt();
        assert!((mean - 10.0).abs() < 0.2 && (sd - 2.0).abs() < 0.2, "mean {mean} sd {sd}");
        // Over 0.0..1.0 and 10.0..20.0: (1/2, 1/3), (1/4, 2/3), (3/4, 1/9).
        let got = all("halton", vec![uniform(0.0, 1.0), uniform(10.0, 20.0)], 3, None);
        let third = |f: f64| 10.0 + (f * UNIT_SCALE) as u64 as f64 / UNIT_SCALE * 10.0;
        assert_eq!(values(&got, 0), vec![0.5, 0.25, 0.75]);
        assert_eq!(values(&got, 1), vec![third(1.0 / 3.0), third(2.0 / 3.0), third(1.0 / 9.0)]);
    }

    #[test]
    fn a_hybrid_lays_its_discrete_axes_out_first() {
        // theta in 0.0..1.0, k in 1,2,4,8 order halton/3: k takes base 2, theta base 3.
        let got = all("halton", vec![uniform(0.0, 1.0), SampleAxis::Discrete(4)], 3, None);
        assert_eq!(values(&got, 1), vec![2.0, 1.0, 3.0]);
        let third = |f: f64| (f * UNIT_SCALE) as u64 as f64 / UNIT_SCALE;
        assert_eq!(values(&got, 0), vec![third(1.0 / 3.0), third(2.0 / 3.0), third(1.0 / 9.0)]);
        // Sobol keeps every point, repeats of a discrete digit included.
        let got = all("sobol", vec![SampleAxis::Discrete(2), uniform(0.0, 1.0)], 6, None);
        assert_eq!(values(&got, 0), vec![1.0, 1.0, 0.0, 0.0, 1.0, 1.0]);
        assert_eq!(values(&got, 1)[..3], [0.5, 0.25, 0.75]);
    }

    #[test]
    fn lhs_puts_one_draw_in_each_stratum_of_each_continuous_axis() {
        let got = all("lhs", vec![uniform(2.0, 4.0), uniform(10.0, 20.0)], 5, None);
        for (k, (lo, width)) in [(0, (2.0, 2.0)), (1, (10.0, 10.0))] {
            let mut bins: Vec<u64> = values(&got, k).iter().map(|v| ((v - lo) / width * 5.0) as u64).collect();
            bins.sort_unstable();
            assert_eq!(bins, vec![0, 1, 2, 3, 4], "axis {k}: {got:?}");
        }
        // The rule written out for k in 4 values, theta in 0.0..1.0, n = 8.
        let mut draws = Draws::new(LHS_SEED.wrapping_add(8));
        let mut perms = [(0..8).collect::<Vec<u64>>(), (0..8).collect()];
        perms.iter_mut().for_each(|p| draws.shuffle(p));
        let want: Vec<Vec<Drawn>> = (0..8)
            .map(|i| {
                let jitter = (draws.next() >> 11) as f64 / UNIT_SCALE;
                let code = ((perms[1][i] as f64 + jitter) / 8.0 * UNIT_SCALE) as u64;
                vec![Drawn::Digit(perms[0][i] % 4), Drawn::Value(code as f64 / UNIT_SCALE)]
            })
            .collect();
        assert_eq!(all("lhs", vec![SampleAxis::Discrete(4), uniform(0.0, 1.0)], 8, None), want);
    }

    #[test]
    fn shuffle_draws_from_the_stream_seeded_by_the_count() {
        let mut draws = Draws::new(SHUFFLE_SEED.wrapping_add(4));
        let want: Vec<Vec<Drawn>> = (0..4)
            .map(|_| {
                let k = draws.bounded(3);
                let code = draws.next() >> 11;
                vec![Drawn::Value(code as f64 / UNIT_SCALE), Drawn::Digit(k)]
            })
            .collect();
        assert_eq!(all("shuffle", vec![uniform(0.0, 1.0), SampleAxis::Discrete(3)], 4, None), want);
        let seeded = all("shuffle", vec![uniform(0.0, 1.0)], 4, Some(42));
        assert_eq!(seeded, all("shuffle", vec![uniform(0.0, 1.0)], 4, Some(42)));
        assert_ne!(seeded, all("shuffle", vec![uniform(0.0, 1.0)], 4, None));
    }

    #[test]
    fn every_named_measure_draws_inside_its_interval() {
        for (name, params, lo, hi) in [
            ("exponential", vec![2.0], 0.0, f64::INFINITY),
            ("pareto", vec![3.0, 2.0], 3.0, f64::INFINITY),
            ("beta", vec![2.0, 5.0], 0.0, 1.0),
            ("log_normal", vec![0.0, 0.5], 0.0, f64::INFINITY),
            ("gamma", vec![2.0, 1.5], 0.0, f64::INFINITY),
            ("uniform01", vec![], 0.0, 1.0),
        ] {
            let xs = values(&all("sobol", vec![named(name, &params, None)], 32, None), 0);
            assert_eq!(xs.len(), 32);
            assert!(xs.iter().all(|x| (lo..=hi).contains(x) && x.is_finite()), "{name}: {xs:?}");
        }
        // Exponential(1) on 0.0..1.0 keeps its shape: about 62% below the midpoint.
        let xs = values(&all("halton", vec![named("exponential", &[1.0], Some((0.0, 1.0, false)))], 64, None), 0);
        let low = xs.iter().filter(|x| **x < 0.5).count();
        assert!((36..=44).contains(&low), "{low} of 64 below the midpoint");
        assert!(xs.iter().all(|x| (0.0..1.0).contains(x)));
    }

    #[test]
    fn orders_that_cannot_sample_and_missing_counts_are_refused() {
        let refused = |strategy: Option<&str>, count: Option<u64>| {
            sample(strategy, vec![uniform(0.0, 1.0)], count, None, false).err().unwrap().to_string()
        };
        assert!(refused(None, None).contains("no finite set of tuples to iterate"));
        assert!(refused(Some("lex"), Some(4)).contains("'lex' does not sample a continuous source"));
        for strategy in ["reverse_lex", "diagonal", "antidiagonal", "shells"] {
            assert!(refused(Some(strategy), Some(4)).contains("does not accept a continuous source"), "{strategy}");
        }
        for strategy in SAMPLING {
            assert!(refused(Some(strategy), None).contains("needs a count"), "{strategy}");
        }
        assert!(sample(Some("halton"), vec![uniform(0.0, 1.0)], Some(2), Some(1), false).is_err());
        let empty = sample(Some("halton"), vec![SampleAxis::Discrete(0), uniform(0.0, 1.0)], Some(4), None, false);
        assert!(empty.unwrap().next_draw().is_none());
    }

    #[test]
    fn a_filtered_sequence_draws_again_with_twice_the_count() {
        let mut s = sample(Some("lhs"), vec![uniform(0.0, 1.0)], Some(4), None, true).unwrap();
        assert_eq!(s.survivor_limit(), Some(4));
        assert_eq!(s.take(100).len(), 4);
        assert!(s.redraw(1).unwrap(), "one of four passed: a round of 8");
        assert_eq!(s.take(100).len(), 8);
        assert!(!s.redraw(4).unwrap(), "enough passed");
        assert!(s.restarts());
        // Halton's longer round goes on from the shorter one's last point.
        let mut s = sample(Some("halton"), vec![uniform(0.0, 1.0)], Some(2), None, true).unwrap();
        assert!(!s.restarts());
        let first: Vec<_> = s.take(100);
        assert!(s.redraw(0).unwrap());
        let more = s.take(100);
        assert_eq!(more.len(), 2);
        let mut whole = first.clone();
        whole.extend(more);
        assert_eq!(whole, all("halton", vec![uniform(0.0, 1.0)], 4, None));
        let mut s = sample(Some("halton"), vec![uniform(0.0, 1.0)], Some(2), None, true).unwrap();
        let mut rounds = 0;
        loop {
            s.take(usize::MAX);
            if !s.redraw(0).unwrap() {
                break;
            }
            rounds += 1;
        }
        assert_eq!(rounds, SAMPLE_ROUNDS);
        // Extrema is no sequence: its strata are tested once.
        let s = sample(Some("extrema"), vec![uniform(0.0, 1.0)], Some(1), None, true).unwrap();
        assert_eq!(s.survivor_limit(), None);
    }
}
