//! Distribution family: inverse-CDF sampling of a unit value u (clamped to
//! [0, 1]).
//!
//! A continuous distribution samples upstream's table: its quantile function
//! at 1001 points p = i / 1000, built once per node instance, interpolated
//! linearly. The two end intervals of the table (u below 0.001 or above
//! 0.999) take the quantile function itself ([`Quantile`]): there upstream's
//! table cuts an unbounded tail at the 0.1% quantile, a point mass of a
//! thousandth of the rows (every normal sample past ±3.09σ at exactly
//! ±3.09σ), and draws a straight line through the steep end of a bounded
//! one. `dist_uniform`, `dist_empirical` and `lut_sample` are their tables.
//!
//! Poisson, binomial and geometric return the exact inverse of their CDF,
//! the smallest k with CDF(k) >= u ([`Discrete`], the geometric closed
//! form): an integer of the support. Upstream interpolates these tables too,
//! which in the last interval spreads values over the whole far tail
//! (`dist_poisson(u, 3.0)` put 0.08% of the rows in 13..25, fifty times its
//! mass). The values of the table points are upstream's.
//!
//! `dist_zipf` is upstream's own: its table of ranks, interpolated
//! ([`zipf_table`]). A sample between two table points is a fraction
//! (49.31 between ranks 49 and 50), and below u = 0.001 it climbs from the
//! table's entry 0; `zipf_sample` rounds it, as upstream's module does.

use crate::node::kit::map1;
use crate::node::{konst, wire, BuildCtx, NodeDef, NodeEval, Outputs, Samples, Testing};
use crate::types::PortType::{Str, F64, U64};
use std::sync::Arc;

/// Table intervals: entries sit at p = i / RESOLUTION for i in 0..=RESOLUTION.
pub const RESOLUTION: usize = 1000;

/// Largest `n` accepted by `dist_zipf` (its table costs O(n) to build).
pub const ZIPF_MAX_N: u64 = 100_000_000;

/// An inverse-CDF lookup table of `RESOLUTION + 1` finite entries.
pub struct Lut(Box<[f64]>);

impl Lut {
    /// Tabulates `f(p)` at p = i / RESOLUTION, then replaces every non-finite
    /// entry by its nearest finite neighbour (the one before it, or for a
    /// leading run, the first finite entry); all non-finite gives all 0.0.
    pub fn from_fn(mut f: impl FnMut(f64) -> f64) -> Lut {
        Lut::from_entries((0..=RESOLUTION).map(|i| f(i as f64 / RESOLUTION as f64)).collect())
    }

    /// A table from its `RESOLUTION + 1` entries, sanitized as in [`Lut::from_fn`].
    pub fn from_entries(t: Vec<f64>) -> Lut {
        assert_eq!(t.len(), RESOLUTION + 1, "a lookup table has RESOLUTION + 1 entries");
        Lut::from_values(t)
    }

    /// A table of any length of at least 2 (`dist_empirical`, `lut_sample`),
    /// sanitized as in [`Lut::from_fn`]; sampling spreads [0, 1] evenly over it.
    pub fn from_values(mut t: Vec<f64>) -> Lut {
        assert!(t.len() >= 2, "a lookup table has at least 2 entries");
        let mut last = None;
        for v in t.iter_mut() {
            match (v.is_finite(), last) {
                (true, _) => last = Some(*v),
                (false, Some(prev)) => *v = prev,
                (false, None) => {}
            }
        }
        let first = t.iter().copied().find(|v| v.is_finite()).unwrap_or(0.0);
        for v in t.iter_mut().take_while(|v| !v.is_finite()) {
            *v = first;
        }
        Lut(t.into_boxed_slice())
    }

    /// The interpolated value at u (clamped to [0, 1]; u = 1 gives the last entry).
    #[inline]
    pub fn sample(&self, u: f64) -> f64 {
        let last = self.0.len() - 1;
        let pos = u.clamp(0.0, 1.0) * last as f64;
        let i = (pos as usize).min(last - 1);
        let frac = pos - i as f64;
        self.0[i] * (1.0 - frac) + self.0[i + 1] * frac
    }

    /// The table entries.
    pub fn entries(&self) -> &[f64] {
        &self.0
    }
}

/// The standard normal quantile Φ⁻¹(p) as upstream computes it: the rational
/// approximation of Abramowitz & Stegun 26.2.23 (absolute error below
/// 4.5e-4), with the same constants and the same order of operations, so
/// tables agree with upstream's bit for bit. p <= 0 gives -inf, p >= 1 +inf.
#[allow(clippy::excessive_precision)]
pub fn probit(p: f64) -> f64 {
    if p <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if p >= 1.0 {
        return f64::INFINITY;
    }
    let t = if p < 0.5 { (-2.0 * p.ln()).sqrt() } else { (-2.0 * (1.0 - p).ln()).sqrt() };
    const C0: f64 = 2.515517;
    const C1: f64 = 0.802853;
    const C2: f64 = 0.010328;
    const D1: f64 = 1.432788;
    const D2: f64 = 0.189269;
    const D3: f64 = 0.001308;
    let r = t - (C0 + C1 * t + C2 * t * t) / (1.0 + D1 * t + D2 * t * t + D3 * t * t * t);
    if p < 0.5 {
        -r
    } else {
        r
    }
}

/// Wraps a table as a sampling node.
fn sampler(lut: Lut) -> Box<dyn NodeEval> {
    map1(move |u: f64| lut.sample(u))
}

/// The smallest probability a tail is evaluated at (u = 0 reads it).
const TAIL_LOW: f64 = f64::MIN_POSITIVE;

/// The largest probability a tail is evaluated at (u = 1 reads it): the
/// largest f64 below 1.
const TAIL_HIGH: f64 = 1.0 - f64::EPSILON / 2.0;

/// A continuous inverse CDF: upstream's table between the 0.1% quantiles,
/// and in the end intervals (u below 1 / RESOLUTION or above
/// 1 - 1 / RESOLUTION) the quantile function itself, evaluated at u (clamped
/// to [`TAIL_LOW`], [`TAIL_HIGH`]). An end is where a quantile function is
/// unbounded (the table cut the normal at ±3.09σ, a point mass of a
/// thousandth of the rows) or steepest (the table spread Beta(2, 5)'s top
/// 0.1% evenly over [0.82, 1]), so a straight line between two entries is
/// no sample of it there. A tail value that is not finite (nonsense
/// parameters) falls back to the table's end entry.
pub struct Quantile {
    lut: Lut,
    exact: Arc<dyn Fn(f64) -> f64 + Send + Sync>,
}

impl Quantile {
    /// The sampler of quantile function `f`.
    pub fn new(f: impl Fn(f64) -> f64 + Send + Sync + 'static) -> Quantile {
        Quantile { lut: Lut::from_fn(&f), exact: Arc::new(f) }
    }

    /// The sample for unit value u (NaN gives NaN).
    #[inline]
    pub fn sample(&self, u: f64) -> f64 {
        const EDGE: f64 = 1.0 / RESOLUTION as f64;
        if u < EDGE {
            return self.tail(u.max(TAIL_LOW), 0);
        }
        if u > 1.0 - EDGE {
            return self.tail(u.min(TAIL_HIGH), RESOLUTION);
        }
        self.lut.sample(u)
    }

    fn tail(&self, p: f64, end: usize) -> f64 {
        let v = (self.exact)(p);
        if v.is_finite() {
            v
        } else {
            self.lut.entries()[end]
        }
    }
}

/// Wraps a continuous inverse CDF as a sampling node.
fn continuous(f: impl Fn(f64) -> f64 + Send + Sync + 'static) -> Box<dyn NodeEval> {
    let quantile = Quantile::new(f);
    map1(move |u: f64| quantile.sample(u))
}

/// An exact discrete inverse CDF over the integers `first..first + cdf.len()`:
/// the sample for u is the smallest k with CDF(k) >= u (u clamped to [0, 1];
/// past the last entry, which rounding may leave just below 1, the last k).
pub struct Discrete {
    first: u64,
    cdf: Box<[f64]>,
}

impl Discrete {
    /// The CDF of the weights `w` of `first, first + 1, ...` (any positive
    /// scale: they are normalized by their sum, accumulated in order).
    pub fn from_weights(first: u64, weights: &[f64]) -> Discrete {
        let total: f64 = weights.iter().sum();
        let mut cumulative = 0.0;
        let cdf = weights
            .iter()
            .map(|w| {
                cumulative += w / total;
                cumulative
            })
            .collect();
        Discrete { first, cdf }
    }

    /// A distribution of all its mass on `k`.
    pub fn point(k: u64) -> Discrete {
        Discrete { first: k, cdf: Box::new([1.0]) }
    }

    /// The sample for unit value u (NaN gives NaN).
    #[inline]
    pub fn sample(&self, u: f64) -> f64 {
        if u.is_nan() {
            return f64::NAN;
        }
        let i = self.cdf.partition_point(|&c| c < u).min(self.cdf.len() - 1);
        (self.first + i as u64) as f64
    }

    /// The smallest and largest value the sampler gives.
    pub fn support(&self) -> (u64, u64) {
        (self.first, self.first + self.cdf.len() as u64 - 1)
    }
}

/// Wraps a discrete inverse CDF as a sampling node.
fn discrete(d: Discrete) -> Box<dyn NodeEval> {
    map1(move |u: f64| d.sample(u))
}

/// Weights below this fraction of the mode's are left out of a discrete
/// table: their whole mass is far below what a 53-bit u can resolve.
const NEGLIGIBLE: f64 = 1e-22;

/// The table of a unimodal distribution over `0..=last`, from the weight 1
/// at `mode` outward: `up(k)` is w(k + 1) / w(k), `down(k)` is w(k - 1) / w(k);
/// each side stops where the weight falls below [`NEGLIGIBLE`] (or at 0 and
/// `last`). Refused past [`DISCRETE_MAX_ENTRIES`] entries.
fn from_mode(
    name: &str,
    mode: u64,
    last: u64,
    up: impl Fn(u64) -> f64,
    down: impl Fn(u64) -> f64,
) -> Result<Discrete, String> {
    let too_many = || {
        format!("{name}: the CDF table would hold more than {DISCRETE_MAX_ENTRIES} entries (at most {DISCRETE_MAX_ENTRIES})")
    };
    let mut below = Vec::new();
    let (mut k, mut w) = (mode, 1.0f64);
    while k > 0 {
        w *= down(k);
        if w.is_nan() || w < NEGLIGIBLE {
            break;
        }
        k -= 1;
        below.push(w);
        if below.len() as u64 > DISCRETE_MAX_ENTRIES {
            return Err(too_many());
        }
    }
    let first = k;
    below.reverse();
    below.push(1.0);
    let (mut k, mut w) = (mode, 1.0f64);
    while k < last {
        w *= up(k);
        if w.is_nan() || w < NEGLIGIBLE {
            break;
        }
        k += 1;
        below.push(w);
        if below.len() as u64 > DISCRETE_MAX_ENTRIES {
            return Err(too_many());
        }
    }
    Ok(Discrete::from_weights(first, &below))
}

/// The Poisson(lambda) table (a `lambda` that is not positive puts all mass
/// on 0, as Poisson(0) does; upstream refuses no lambda either).
pub fn poisson_table(lambda: f64) -> Result<Discrete, String> {
    if lambda.is_nan() || lambda <= 0.0 {
        return Ok(Discrete::point(0));
    }
    // The table spans about 21 standard deviations: refuse at once what it cannot hold.
    if 21.0 * lambda.sqrt() > DISCRETE_MAX_ENTRIES as f64 {
        return Err(format!("dist_poisson: lambda {lambda} needs a CDF table of more than {DISCRETE_MAX_ENTRIES} entries (at most {DISCRETE_MAX_ENTRIES})"));
    }
    let mode = lambda.floor() as u64;
    from_mode("dist_poisson", mode, u64::MAX, |k| lambda / (k + 1) as f64, |k| k as f64 / lambda)
}

/// The Binomial(trials, prob) table (a `prob` at or below 0, or NaN, puts
/// all mass on 0; at or above 1, on `trials`).
pub fn binomial_table(trials: u64, prob: f64) -> Result<Discrete, String> {
    if prob.is_nan() || prob <= 0.0 || trials == 0 {
        return Ok(Discrete::point(0));
    }
    if prob >= 1.0 {
        return Ok(Discrete::point(trials));
    }
    let n = trials as f64;
    // The table spans about 21 standard deviations: refuse at once what it cannot hold.
    if 21.0 * (n * prob * (1.0 - prob)).sqrt() > DISCRETE_MAX_ENTRIES as f64 {
        return Err(format!("dist_binomial: {trials} trials need a CDF table of more than {DISCRETE_MAX_ENTRIES} entries (at most {DISCRETE_MAX_ENTRIES})"));
    }
    let odds = prob / (1.0 - prob);
    let mode = (((n + 1.0) * prob).floor() as u64).min(trials);
    from_mode(
        "dist_binomial",
        mode,
        trials,
        |k| (n - k as f64) / (k + 1) as f64 * odds,
        |k| k as f64 / (n - k as f64 + 1.0) / odds,
    )
}

/// Upstream's Zipf(n, s) table: weights 1 / k^s over their plain sum,
/// accumulated in rank order into a CDF (CDF(0) = 0), and entry i the rank
/// upstream's binary search over that CDF gives at p = i / RESOLUTION: the
/// first rank k with CDF(k) >= p, kept as is when CDF(k) equals p (so entry
/// 0 is rank 0) and otherwise clamped to 1..=n (n past the last CDF value).
/// Sampling interpolates between entries as every table does, so a sample
/// is a rank only at the table points: unit_interval(hash(0)) = 0.8833 over
/// Zipf(100, 1.07) is 49.31, between the entries 49 and 50.
///
/// The CDF is walked once and never stored (a table of n = 10^8 ranks costs
/// no memory beyond its 1001 entries). Where several ranks share a CDF value
/// equal to a table point (a CDF that stops growing), the entry is the first
/// of them; upstream's binary search may return any of them. A CDF that holds
/// a NaN is refused with upstream's failure text: its search panics there.
pub fn zipf_table(n: u64, exponent: f64) -> Result<Lut, String> {
    let weight = |k: u64| 1.0 / (k as f64).powf(exponent);
    let harmonic: f64 = (1..=n).map(weight).fold(0.0, |a, w| a + w);
    let point = |i: usize| i as f64 / RESOLUTION as f64;
    let mut entries = vec![n as f64; RESOLUTION + 1];
    // CDF(0) = 0 answers p = 0 exactly: rank 0.
    entries[0] = 0.0;
    let mut next = 1;
    let mut cumulative = 0.0f64;
    for k in 1..=n {
        cumulative += weight(k) / harmonic;
        while next <= RESOLUTION && cumulative >= point(next) {
            entries[next] = k as f64;
            next += 1;
        }
    }
    if cumulative.is_nan() {
        return Err(ZIPF_NAN.to_string());
    }
    Ok(Lut::from_entries(entries))
}

// Upstream validates none of these constants: a table over nonsense
// parameters is built all the same (non-finite entries become 0.0 or their
// finite neighbours), and so it is here.

fn build_normal(c: &BuildCtx<'_>) -> Result<Box<dyn NodeEval>, String> {
    let (mean, sd) = (c.f64(0), c.f64(1));
    Ok(continuous(move |p| mean + sd * probit(p)))
}

fn build_exponential(c: &BuildCtx<'_>) -> Result<Box<dyn NodeEval>, String> {
    let rate = c.f64(0);
    Ok(continuous(move |p| -(1.0 - p).ln() / rate))
}

/// `dist_normal`: Normal(mean, stddev) sample for a unit input u (A&S 26.2.23 quantiles).
pub const DIST_NORMAL: NodeDef = NodeDef {
    name: "dist_normal",
    aliases: &["icd_normal"],
    category: "distribution",
    doc: "Normal(mean, stddev) sample for a unit input u (A&S 26.2.23 quantiles: a 1001-point table, the quantile itself past the 0.1% quantiles).",
    params: &[wire("input", F64), konst("mean", F64), konst("stddev", F64)],
    outputs: Outputs::One(F64),
    build: build_normal,
    testing: Testing {
        samples: &[("mean", Samples::F64(&[0.0, -3.5, 100.0])), ("stddev", Samples::F64(&[1.0, 0.0, 0.25, 10.0]))],
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// The complementary error function erfc(x) (Chebyshev fit of Numerical
/// Recipes' `erfcc`: relative error below 1.2e-7 everywhere).
#[allow(clippy::excessive_precision)]
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.26551223
        + t * (1.00002368
            + t * (0.37409196
                + t * (0.09678418
                    + t * (-0.18628806
                        + t * (0.27886807
                            + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
    let r = t * poly.exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

/// The standard normal CDF Φ(z), accurate in relative terms deep into the
/// lower tail (Φ(-30) is about 5e-198, not 0).
pub fn normal_cdf(z: f64) -> f64 {
    0.5 * erfc(-z / std::f64::consts::SQRT_2)
}

/// The standard normal quantile Φ⁻¹(p) to about seven significant digits:
/// Acklam's rational approximation, then one Halley step against
/// [`normal_cdf`]. p <= 0 gives -inf, p >= 1 +inf.
#[allow(clippy::excessive_precision)]
pub fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969683028665376e+01,
        2.209460984245205e+02,
        -2.759285104469687e+02,
        1.383577518672690e+02,
        -3.066479806614716e+01,
        2.506628277459239e+00,
    ];
    const B: [f64; 5] = [
        -5.447609879822406e+01,
        1.615858368580409e+02,
        -1.556989798598866e+02,
        6.680131188771972e+01,
        -1.328068155288572e+01,
    ];
    const C: [f64; 6] = [
        -7.784894002430293e-03,
        -3.223964580411365e-01,
        -2.400758277161838e+00,
        -2.549671010115603e+00,
        4.374664141464968e+00,
        2.938163982698783e+00,
    ];
    const D: [f64; 4] = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00];
    const LOW: f64 = 0.02425;
    if p.is_nan() {
        return f64::NAN;
    }
    if p <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if p >= 1.0 {
        return f64::INFINITY;
    }
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    let x = if p < LOW {
        tail((-2.0 * p.ln()).sqrt())
    } else if p <= 1.0 - LOW {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    } else {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    };
    let e = normal_cdf(x) - p;
    let u = e * (2.0 * std::f64::consts::PI).sqrt() * (x * x / 2.0).exp();
    let refined = x - u / (1.0 + x * u / 2.0);
    if refined.is_finite() {
        refined
    } else {
        x
    }
}

/// A sample of Normal(mean, stddev) truncated to [min, max] for a unit
/// input u: the inverse CDF of the truncated distribution, Φ⁻¹(Φ(α) + u
/// (Φ(β) - Φ(α))) with α, β the bounds in standard units. An interval
/// above the mean is sampled as its mirror below it, where Φ keeps its
/// precision; an interval too far out for Φ to tell its ends apart gives
/// its end nearest the mean. A stddev that is not positive gives the mean
/// (within the bounds).
pub fn truncated_normal(u: f64, mean: f64, stddev: f64, min: f64, max: f64) -> f64 {
    if !(stddev > 0.0 && stddev.is_finite()) {
        return mean.clamp(min, max);
    }
    let (a, b) = ((min - mean) / stddev, (max - mean) / stddev);
    let (mirrored, a, b, u) = if a > 0.0 { (true, -b, -a, 1.0 - u) } else { (false, a, b, u) };
    let (pa, pb) = (normal_cdf(a), normal_cdf(b));
    let p = pa + u.clamp(0.0, 1.0) * (pb - pa);
    let z = if pb > pa && p > 0.0 { normal_quantile(p).clamp(a, b) } else { b };
    let z = if mirrored { -z } else { z };
    (mean + stddev * z).clamp(min, max)
}

/// `dist_normal_truncated`: Normal(mean, stddev) restricted to [min, max], sampled by its inverse CDF.
pub const DIST_NORMAL_TRUNCATED: NodeDef = NodeDef {
    name: "dist_normal_truncated",
    category: "distribution",
    doc: "Normal(mean, stddev) truncated to [min, max] for a unit input u: the truncated distribution's inverse CDF (no mass piles on a bound, as clamping would).",
    params: &[wire("input", F64), konst("mean", F64), konst("stddev", F64), konst("min", F64), konst("max", F64)],
    outputs: Outputs::One(F64),
    build: |c| {
        let (mean, stddev, min, max) = (c.f64(0), c.f64(1), c.f64(2), c.f64(3));
        if min.is_nan() || max.is_nan() || min > max {
            return Err(format!("dist_normal_truncated: min ({min}) must be <= max ({max})"));
        }
        Ok(map1(move |u: f64| truncated_normal(u, mean, stddev, min, max)))
    },
    testing: Testing {
        samples: &[
            ("mean", Samples::F64(&[0.0, 35.0, -3.5])),
            ("stddev", Samples::F64(&[1.0, 12.0, 0.0])),
            ("min", Samples::F64(&[-1.0, 0.0, -100.0])),
            ("max", Samples::F64(&[2.0, 90.0, 100.0])),
        ],
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `dist_exponential`: Exponential(rate) sample for a unit input u: -ln(1 - u) / rate.
pub const DIST_EXPONENTIAL: NodeDef = NodeDef {
    name: "dist_exponential",
    aliases: &["icd_exponential"],
    category: "distribution",
    doc: "Exponential(rate) sample for a unit input u: -ln(1 - u) / rate.",
    params: &[wire("input", F64), konst("rate", F64)],
    outputs: Outputs::One(F64),
    build: build_exponential,
    testing: Testing { samples: &[("rate", Samples::F64(&[1.0, 0.5, 3.0]))], ..Testing::BASE },
    ..NodeDef::BASE
};

/// `dist_uniform`: Uniform(min, max) sample for a unit input u.
pub const DIST_UNIFORM: NodeDef = NodeDef {
    name: "dist_uniform",
    category: "distribution",
    doc: "Uniform(min, max) sample for a unit input u.",
    params: &[wire("input", F64), konst("min", F64), konst("max", F64)],
    outputs: Outputs::One(F64),
    build: |c| {
        let (lo, hi) = (c.f64(0), c.f64(1));
        Ok(sampler(Lut::from_fn(|p| lo + p * (hi - lo))))
    },
    testing: Testing {
        samples: &[("min", Samples::F64(&[-1.0, 0.0, 10.0])), ("max", Samples::F64(&[10.0, 100.0, 1e6]))],
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `dist_pareto`: Pareto(scale, shape) sample for a unit input u: scale / (1 - u)^(1/shape).
pub const DIST_PARETO: NodeDef = NodeDef {
    name: "dist_pareto",
    category: "distribution",
    doc: "Pareto(scale, shape) sample for a unit input u: scale / (1 - u)^(1/shape).",
    params: &[wire("input", F64), konst("scale", F64), konst("shape", F64)],
    outputs: Outputs::One(F64),
    build: |c| {
        let (scale, shape) = (c.f64(0), c.f64(1));
        Ok(continuous(move |p| scale / (1.0 - p).powf(1.0 / shape)))
    },
    testing: Testing {
        samples: &[("scale", Samples::F64(&[1.0, 2.5])), ("shape", Samples::F64(&[1.0, 0.5, 3.0]))],
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// Upstream's construction failure when a Zipf CDF holds a NaN (its binary
/// search unwraps `partial_cmp`).
const ZIPF_NAN: &str = "called `Option::unwrap()` on a `None` value";

/// `dist_zipf`: Zipf(n, exponent) sample for a unit input u: upstream's interpolated rank table.
pub const DIST_ZIPF: NodeDef = NodeDef {
    name: "dist_zipf",
    category: "distribution",
    doc: "Zipf(n, exponent) sample for a unit input u, weights 1/k^exponent over ranks 1..=n: a 1001-point table of the rank at p = i/1000 (the first with CDF >= p), interpolated linearly, so a sample between two table points is a fraction (round it for a rank: `zipf_sample`); 0 when n is 0.",
    params: &[wire("input", F64), konst("n", U64), konst("exponent", F64)],
    outputs: Outputs::One(F64),
    build: |c| {
        let n = c.u64(0);
        // Upstream only refuses an n no machine could hold; this project
        // bounds the O(n) build (a deliberate divergence).
        if n > ZIPF_MAX_N {
            return Err(format!("dist_zipf: n must be in 0..={ZIPF_MAX_N}, got {n}"));
        }
        Ok(sampler(zipf_table(n, c.f64(1))?))
    },
    testing: Testing {
        samples: &[
            ("n", Samples::U64(&[100, 1, 2, 10, 1000, 100000])),
            ("exponent", Samples::F64(&[1.0, 0.5, 1.5, 2.0])),
        ],
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// Lanczos ln Γ(x) (g = 7, nine coefficients) as upstream computes it,
/// with the reflection formula below 0.5.
#[allow(clippy::excessive_precision)]
pub fn ln_gamma(x: f64) -> f64 {
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.5203681218851,
        -1259.1392167224028,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507343278686905,
        -0.13857109526572012,
        9.984_369_578_019_572e-6,
        1.5056327351493116e-7,
    ];
    if x < 0.5 {
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut sum = C[0];
    for (i, &c) in C[1..].iter().enumerate() {
        sum += c / (x + i as f64 + 1.0);
    }
    let t = x + 7.0 + 0.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (t.ln() * (x + 0.5)) - t + sum.ln()
}

/// The regularized incomplete beta I_x(a, b) by upstream's series, with
/// its symmetry flip for x past the mean (taken at most once: a second
/// flip, which rounding could ask for, would only recurse forever).
pub fn regularized_beta(x: f64, a: f64, b: f64) -> f64 {
    regularized_beta_inner(x, a, b, true)
}

fn regularized_beta_inner(x: f64, a: f64, b: f64, may_flip: bool) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    if may_flip && x > (a + 1.0) / (a + b + 2.0) {
        return 1.0 - regularized_beta_inner(1.0 - x, b, a, false);
    }
    let ln_prefix = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln();
    let prefix = ln_prefix.exp();
    let (mut sum, mut term) = (0.0, 1.0);
    for n in 0..300 {
        sum += term;
        term *= x * (a + b + n as f64) / (a + 1.0 + n as f64);
        if term.abs() < 1e-15 * sum.abs() {
            break;
        }
    }
    (prefix * sum / a).clamp(0.0, 1.0)
}

/// The inverse of I_x(a, b) in x: 100 bisection steps over [0, 1].
pub fn inv_regularized_beta(p: f64, a: f64, b: f64) -> f64 {
    if p <= 0.0 {
        return 0.0;
    }
    if p >= 1.0 {
        return 1.0;
    }
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..100 {
        let mid = (lo + hi) / 2.0;
        if regularized_beta(mid, a, b) < p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo + hi) / 2.0
}

/// The regularized lower incomplete gamma P(a, x) by upstream's series
/// (1.0 past a + 50).
pub fn regularized_gamma_p(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x > a + 50.0 {
        return 1.0;
    }
    let (mut sum, mut term) = (1.0 / a, 1.0 / a);
    for n in 1..300 {
        term *= x / (a + n as f64);
        sum += term;
        if term.abs() < 1e-14 * sum.abs() {
            break;
        }
    }
    (a * x.ln() - x - ln_gamma(a)).exp() * sum
}

/// The inverse of P(a, x) in x: bracket by doubling from max(a, 1), then
/// 100 bisection steps.
pub fn inv_regularized_gamma_p(p: f64, a: f64) -> f64 {
    if p <= 0.0 {
        return 0.0;
    }
    if p >= 1.0 {
        return f64::INFINITY;
    }
    let mut hi = a.max(1.0);
    while regularized_gamma_p(a, hi) < p {
        hi *= 2.0;
    }
    let mut lo = 0.0f64;
    for _ in 0..100 {
        let mid = (lo + hi) / 2.0;
        if regularized_gamma_p(a, mid) < p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo + hi) / 2.0
}

/// Largest table a discrete CDF (`dist_poisson`, `dist_binomial`) may build.
pub const DISCRETE_MAX_ENTRIES: u64 = 10_000_000;

/// Parses a list of numbers separated by spaces, commas or semicolons.
fn parse_points(spec: &str, what: &str) -> Result<Vec<f64>, String> {
    spec.split([' ', ',', ';'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<f64>().map_err(|e| format!("invalid {what}: {e:?}")))
        .collect()
}

/// Declares a distribution over a unit input with `f64` constant parameters,
/// each listed with its sample values (see [`Testing::samples`]).
macro_rules! dist_node {
    ($id:ident, $name:literal, $doc:literal, [$($p:literal: $samples:expr),*], |$c:ident| $body:expr) => {
        /// A distribution node (see its `name` and `doc` fields).
        pub const $id: NodeDef = NodeDef {
            name: $name,
            category: "distribution",
            doc: $doc,
            params: &[wire("input", F64), $(konst($p, F64)),*],
            outputs: Outputs::One(F64),
            build: |$c| $body,
            testing: Testing { samples: &[$(($p, Samples::F64(&$samples))),*], ..Testing::BASE },
            ..NodeDef::BASE
        };
    };
}

dist_node!(
    DIST_LOGNORMAL,
    "dist_lognormal",
    "LogNormal(mean, stddev) sample for a unit input u: exp(mean + stddev * probit(u)).",
    ["mean": [0.0, 1.0, -1.0], "stddev": [1.0, 0.5, 0.0]],
    |c| {
        let (mean, sd) = (c.f64(0), c.f64(1));
        Ok(continuous(move |p| (mean + sd * probit(p)).exp()))
    }
);
dist_node!(
    DIST_WEIBULL,
    "dist_weibull",
    "Weibull(shape, scale) sample for a unit input u: scale * (-ln(1 - u))^(1/shape).",
    ["shape": [2.0, 1.0, 0.5], "scale": [1.0, 3.0]],
    |c| {
        let (shape, scale) = (c.f64(0), c.f64(1));
        Ok(continuous(move |p| scale * (-(1.0 - p).ln()).powf(1.0 / shape)))
    }
);
dist_node!(
    DIST_CAUCHY,
    "dist_cauchy",
    "Cauchy(location, scale) sample for a unit input u: location + scale * tan(pi (u - 1/2)).",
    ["location": [0.0, 5.0], "scale": [1.0, 0.5]],
    |c| {
        let (loc, scale) = (c.f64(0), c.f64(1));
        Ok(continuous(move |p| loc + scale * (std::f64::consts::PI * (p - 0.5)).tan()))
    }
);
dist_node!(
    DIST_LAPLACE,
    "dist_laplace",
    "Laplace(location, scale) sample for a unit input u (the two-sided exponential quantile).",
    ["location": [0.0, 5.0], "scale": [1.0, 2.0]],
    |c| {
        let (loc, scale) = (c.f64(0), c.f64(1));
        let quantile = move |p: f64| {
            if p <= 0.5 {
                loc + scale * (2.0 * p).ln()
            } else {
                loc - scale * (2.0 * (1.0 - p)).ln()
            }
        };
        Ok(continuous(quantile))
    }
);
dist_node!(
    DIST_BETA,
    "dist_beta",
    "Beta(alpha, beta) sample for a unit input u: the inverse regularized incomplete beta, by bisection.",
    ["alpha": [2.0, 0.5, 1.0], "beta": [5.0, 2.0, 1.0]],
    |c| {
        let (a, b) = (c.f64(0), c.f64(1));
        Ok(continuous(move |p| inv_regularized_beta(p, a, b)))
    }
);
dist_node!(DIST_GAMMA, "dist_gamma", "Gamma(shape, scale) sample for a unit input u: scale times the inverse regularized lower incomplete gamma, by bisection.", ["shape": [2.0, 0.5, 5.0], "scale": [1.0, 2.0]], |c| {
    let (shape, scale) = (c.f64(0), c.f64(1));
    Ok(continuous(move |p| scale * inv_regularized_gamma_p(p, shape)))
});
dist_node!(
    DIST_POISSON,
    "dist_poisson",
    "Poisson(lambda) count for a unit input u: the smallest k with CDF(k) >= u (an integer-valued f64).",
    ["lambda": [5.0, 0.5, 100.0]],
    |c| { Ok(discrete(poisson_table(c.f64(0))?)) }
);
dist_node!(
    DIST_GEOMETRIC,
    "dist_geometric",
    "Geometric(prob) trial count (from 1) for a unit input u: ceil(ln(1 - u) / ln(1 - prob)), at least 1 (u = 1 reads the largest f64 below 1).",
    ["prob": [0.5, 0.1, 0.9]],
    |c| {
        let ln_q = (-c.f64(0)).ln_1p();
        Ok(map1(move |u: f64| {
            if u.is_nan() {
                return f64::NAN;
            }
            let k = ((-u.clamp(0.0, TAIL_HIGH)).ln_1p() / ln_q).ceil();
            // A prob outside (0, 1] (upstream refuses none) gives 1.
            if k.is_finite() {
                k.max(1.0)
            } else {
                1.0
            }
        }))
    }
);

/// `dist_binomial`: Binomial(trials, prob) successes for a unit input u.
pub const DIST_BINOMIAL: NodeDef = NodeDef {
    name: "dist_binomial",
    category: "distribution",
    doc: "Binomial(trials, prob) success count for a unit input u: the smallest k with CDF(k) >= u (an integer-valued f64).",
    params: &[wire("input", F64), konst("trials", U64), konst("prob", F64)],
    outputs: Outputs::One(F64),
    build: |c| Ok(discrete(binomial_table(c.u64(0), c.f64(1))?)),
    testing: Testing {
        samples: &[("trials", Samples::U64(&[20, 1, 100])), ("prob", Samples::F64(&[0.5, 0.1, 0.9]))],
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `dist_empirical`: a sample of the empirical distribution of the given data points (sorted, interpolated).
pub const DIST_EMPIRICAL: NodeDef = NodeDef {
    name: "dist_empirical",
    category: "distribution",
    doc: "A sample of the empirical distribution of the data points in spec (\"1.0 2.5 7\"): the sorted points as the table, u spread evenly over it.",
    params: &[wire("input", F64), konst("spec", Str)],
    outputs: Outputs::One(F64),
    build: |c| {
        let mut values = parse_points(c.str(0), "empirical data point")?;
        if values.len() < 2 {
            return Err("empirical distribution needs at least 2 data points".into());
        }
        // Upstream sorts with NaN comparing equal to everything, which is
        // no order at all; a NaN point is refused here (a divergence).
        if values.iter().any(|v| v.is_nan()) {
            return Err("dist_empirical: a NaN data point has no place in the order".into());
        }
        values.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
        Ok(sampler(Lut::from_values(values)))
    },
    testing: Testing { samples: &[("spec", Samples::Str(&["1.0 2.5 7", "0,10", "-1;0;1;2"]))], ..Testing::BASE },
    ..NodeDef::BASE
};

/// `lut_sample`: the interpolated value at u of a table of values, spread evenly over [0, 1].
pub const LUT_SAMPLE: NodeDef = NodeDef {
    name: "lut_sample",
    category: "distribution",
    doc: "The value at u (clamped to [0, 1]) of the table \"v0 v1 ... vn\" spread evenly over [0, 1], interpolated linearly (non-finite entries take their neighbours).",
    params: &[wire("input", F64), konst("values", Str)],
    outputs: Outputs::One(F64),
    build: |c| {
        let values = parse_points(c.str(0), "table value")?;
        if values.len() < 2 {
            return Err("lut_sample: the table needs at least 2 values".into());
        }
        Ok(sampler(Lut::from_values(values)))
    },
    testing: Testing { samples: &[("values", Samples::Str(&["0 1 4 9", "10 0", "1,2,3"]))], ..Testing::BASE },
    ..NodeDef::BASE
};

/// The distribution family.
pub const NODES: &[NodeDef] = &[
    DIST_NORMAL,
    DIST_NORMAL_TRUNCATED,
    DIST_EXPONENTIAL,
    DIST_UNIFORM,
    DIST_PARETO,
    DIST_ZIPF,
    DIST_LOGNORMAL,
    DIST_WEIBULL,
    DIST_CAUCHY,
    DIST_LAPLACE,
    DIST_BETA,
    DIST_GAMMA,
    DIST_POISSON,
    DIST_BINOMIAL,
    DIST_GEOMETRIC,
    DIST_EMPIRICAL,
    LUT_SAMPLE,
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::{build_err, eval1};
    use crate::value::Value;

    fn sample(def: &NodeDef, consts: &[Value], u: f64) -> f64 {
        eval1(def, consts, &[Value::F64(u)]).as_f64().unwrap()
    }

    fn f(v: f64) -> Value {
        Value::F64(v)
    }

    #[test]
    fn the_normal_cdf_and_quantile_agree_with_reference_values() {
        // References: Python's statistics.NormalDist.
        for (z, want) in [(-1.0, 0.15865525393145707), (-5.0, 2.8665157186802404e-07), (0.5, 0.6914624612740131)] {
            assert!((normal_cdf(z) - want).abs() < want * 2e-7, "cdf({z}) = {}", normal_cdf(z));
        }
        assert!(normal_cdf(-30.0) > 0.0, "the lower tail keeps its precision");
        for (p, want) in [
            (1e-10, -6.361340902404056),
            (0.001, -3.090232306167813),
            (0.3, -0.5244005127080407),
            (0.9999, 3.7190164854557084),
        ] {
            assert!((normal_quantile(p) - want).abs() < 1e-6, "quantile({p}) = {}", normal_quantile(p));
        }
        assert_eq!((normal_quantile(0.0), normal_quantile(1.0)), (f64::NEG_INFINITY, f64::INFINITY));
    }

    #[test]
    fn the_truncated_normal_stays_in_its_bounds_without_piling_on_them() {
        let consts = [f(35.0), f(12.0), f(18.0), f(90.0)];
        let n = 200_000u64;
        let mut at_min = 0u64;
        let mut next = 0u64;
        for i in 0..n {
            let v = sample(&DIST_NORMAL_TRUNCATED, &consts, (i as f64 + 0.5) / n as f64);
            assert!((18.0..=90.0).contains(&v), "{v}");
            at_min += u64::from(v.round() == 18.0);
            next += u64::from(v.round() == 19.0);
        }
        // Exact shares (NormalDist): 0.68% round to 18, 1.48% to 19; a clamp put 7.8% on 18.
        assert!((at_min as f64 / n as f64 - 0.006809).abs() < 3e-4, "{at_min}");
        assert!((next as f64 / n as f64 - 0.014832).abs() < 3e-4, "{next}");
        assert_eq!(sample(&DIST_NORMAL_TRUNCATED, &consts, 0.0), 18.0);
        assert_eq!(sample(&DIST_NORMAL_TRUNCATED, &consts, 1.0), 90.0);
        let far = [f(0.0), f(1.0), f(50.0), f(60.0)];
        let v = sample(&DIST_NORMAL_TRUNCATED, &far, 0.5);
        assert!(
            (50.0..=60.0).contains(&v) && v < 50.1,
            "an interval far above the mean is sampled near its lower end: {v}"
        );
        assert_eq!(
            sample(&DIST_NORMAL_TRUNCATED, &[f(5.0), f(0.0), f(0.0), f(3.0)], 0.4),
            3.0,
            "stddev 0: the mean, bounded"
        );
        assert_eq!(
            build_err(&DIST_NORMAL_TRUNCATED, &[f(0.0), f(1.0), f(2.0), f(1.0)], &[F64]),
            "dist_normal_truncated: min (2) must be <= max (1)"
        );
    }

    #[test]
    fn probit_is_upstreams_abramowitz_stegun_approximation() {
        // Upstream numeric/special.rs: A&S 26.2.23; values computed by its formula.
        assert_eq!(probit(0.001), -3.090522225780171);
        assert_eq!(probit(0.025), -1.96039491692534);
        assert_eq!(probit(0.975), 1.9603949169253396);
        assert_eq!(probit(0.5).to_bits(), 0xbe7b_1d20_3a00_0000, "not exactly 0: p < 0.5 is false at 0.5");
        // Upstream's own checks (absolute error below 4.5e-4, 1e-3 at 1.96).
        assert!((probit(0.975) - 1.96).abs() < 1e-3);
        assert!((probit(0.25) + probit(0.75)).abs() < 1e-3);
        assert_eq!((probit(0.0), probit(-1.0)), (f64::NEG_INFINITY, f64::NEG_INFINITY));
        assert_eq!((probit(1.0), probit(2.0)), (f64::INFINITY, f64::INFINITY));
        assert!(probit(f64::NAN).is_nan());
    }

    #[test]
    fn lut_sanitizes_and_interpolates() {
        let lut = Lut::from_fn(|p| if p < 0.5 { f64::NEG_INFINITY } else { p });
        assert!(lut.entries().iter().all(|v| v.is_finite()));
        assert_eq!(lut.sample(0.0), 0.5, "a leading run takes the first finite entry");
        let lut = Lut::from_fn(|p| if p > 0.5 { f64::NAN } else { p });
        assert_eq!(lut.sample(1.0), 0.5, "a trailing run takes the last finite entry");
        assert!(Lut::from_fn(|_| f64::NAN).entries().iter().all(|&v| v == 0.0));
        let lut = Lut::from_fn(|p| p * 10.0);
        assert_eq!(lut.entries().len(), RESOLUTION + 1);
        assert_eq!((lut.sample(-5.0), lut.sample(1.0), lut.sample(7.0)), (0.0, 10.0, 10.0));
        assert!((lut.sample(0.00025) - 0.0025).abs() < 1e-15);
        assert!(lut.sample(f64::NAN).is_nan());
    }

    #[test]
    fn normal_table_samples_match_upstream_bits() {
        let n = |u: f64| sample(&DIST_NORMAL, &[f(0.0), f(1.0)], u).to_bits();
        assert_eq!(n(0.5), 0xbe7b_1d20_3a00_0000);
        assert_eq!(n(0.001), 0xc008_b963_b77a_4bb3, "the 0.1% quantile is the table's");
        assert_eq!(n(0.999), 0x4008_b963_b77a_4bb3);
        assert_eq!(n(0.975), 0x3fff_5dc7_0f77_0606);
        assert_eq!(n(0.123456), 0xbff2_8713_a564_545d, "interpolated");
        assert_eq!(n(0.25), 0xbfe5_92f5_1a79_bdb4);
        let shifted = sample(&DIST_NORMAL, &[f(10.0), f(2.0)], 0.975);
        assert_eq!(shifted.to_bits(), 0x402b_d771_c3dd_c182);
        assert_eq!(sample(&DIST_NORMAL, &[f(3.0), f(0.0)], 0.0), 3.0);
        assert_eq!(lookup_alias("icd_normal"), "dist_normal");
    }

    #[test]
    fn end_intervals_are_the_quantile_function_not_a_table_line() {
        // Upstream's table gives every u past 0.999 the 0.999 quantile (3.09σ):
        // here the tail is probit itself, so it keeps going.
        let n = |u: f64| sample(&DIST_NORMAL, &[f(0.0), f(1.0)], u);
        assert_eq!(n(0.9995), probit(0.9995));
        assert_eq!(n(0.9999), probit(0.9999));
        assert!(n(0.9999) > 3.7 && n(0.9999) < 3.8, "{}", n(0.9999));
        assert_eq!(n(0.0001), probit(0.0001));
        assert_eq!(n(1.0), probit(TAIL_HIGH));
        assert_eq!(n(0.0), probit(f64::MIN_POSITIVE));
        assert!(n(1.0) > 8.0 && n(0.0) < -37.0);
        // Continuous at the seams: the table's end entries are the quantiles there.
        assert_eq!(n(0.999), probit(0.999));
        assert_eq!(n(0.001), probit(0.001));
        let e = |u: f64| sample(&DIST_EXPONENTIAL, &[f(1.0)], u);
        assert_eq!(e(0.99999), -(1.0f64 - 0.99999).ln());
        assert!((e(0.99999) - 11.5129).abs() < 1e-3);
        // Bounded ends are the quantile function too (Beta(2, 5)'s steep top end).
        assert_eq!(e(0.0), -(1.0 - f64::MIN_POSITIVE).ln());
        assert_eq!(sample(&DIST_LOGNORMAL, &[f(0.0), f(1.0)], 0.0), probit(f64::MIN_POSITIVE).exp());
        let b = |u: f64| sample(&DIST_BETA, &[f(2.0), f(5.0)], u);
        assert_eq!(b(0.9999), inv_regularized_beta(0.9999, 2.0, 5.0));
        assert!(b(0.9999) < 0.93, "the table's straight line gave {}", 0.8186 + 0.9 * (1.0 - 0.8186));
        // The Cauchy's table ends are finite (tan(±π/2) in f64) but not its tails.
        let c = |u: f64| sample(&DIST_CAUCHY, &[f(0.0), f(1.0)], u);
        assert!((c(0.0005) + 1.0 / (std::f64::consts::PI * 0.0005).tan()).abs() < 1e-6);
        // A tail that is not finite (nonsense parameters) takes the table's end.
        assert_eq!(sample(&DIST_EXPONENTIAL, &[f(0.0)], 0.9999), 0.0);
        assert!(n(f64::NAN).is_nan());
    }

    #[test]
    fn constants_are_not_validated_as_upstream() {
        // A negative stddev mirrors the table; non-finite tables sanitize to 0.0.
        let m = sample(&DIST_NORMAL, &[f(0.0), f(-1.0)], 0.975);
        assert_eq!(m, -sample(&DIST_NORMAL, &[f(0.0), f(1.0)], 0.975));
        assert_eq!(sample(&DIST_NORMAL, &[f(f64::NAN), f(1.0)], 0.3), 0.0);
        assert_eq!(sample(&DIST_EXPONENTIAL, &[f(0.0)], 0.5), 0.0, "rate 0: every entry is non-finite");
        let u = |x: f64| sample(&DIST_UNIFORM, &[f(1.0), f(0.0)], x);
        assert_eq!((u(0.0), u(1.0)), (1.0, 0.0), "min > max runs backwards");
        assert_eq!(sample(&DIST_PARETO, &[f(-2.0), f(1.0)], 0.5), -4.0);
        assert_eq!(sample(&DIST_ZIPF, &[Value::U64(0), f(1.0)], 0.5), 0.0, "n = 0 is all zeros");
    }

    fn lookup_alias(name: &str) -> &'static str {
        crate::nodes::lookup(name).unwrap().name
    }

    #[test]
    fn exponential_uniform_pareto_tables() {
        let e = |u: f64| sample(&DIST_EXPONENTIAL, &[f(2.0)], u);
        assert_eq!(e(0.0), 0.0);
        assert_eq!(e(0.5), -(0.5f64).ln() / 2.0);
        assert_eq!(e(0.999), -(1.0 - 0.999f64).ln() / 2.0);
        assert_eq!(e(1.0), -(1.0 - TAIL_HIGH).ln() / 2.0, "the tail is not cut");
        assert_eq!(lookup_alias("icd_exponential"), "dist_exponential");
        let u = |x: f64| sample(&DIST_UNIFORM, &[f(-1.0), f(3.0)], x);
        assert_eq!((u(0.0), u(0.5), u(1.0), u(2.0)), (-1.0, 1.0, 3.0, 3.0));
        let p = |x: f64| sample(&DIST_PARETO, &[f(2.0), f(1.0)], x);
        assert_eq!(p(0.0), 2.0);
        assert_eq!(p(0.5), 4.0);
        assert_eq!(p(0.999), 2.0 / (1.0 - 0.999f64));
        assert_eq!(p(1.0), 2.0 / (1.0 - TAIL_HIGH), "the tail is not cut");
    }

    #[test]
    fn zipf_samples_upstreams_interpolated_rank_table() {
        let z = |consts: &[Value], u: f64| sample(&DIST_ZIPF, consts, u);
        let z100 = [Value::U64(100), f(1.07)];
        // Upstream's value at cycle 0 of `dist_zipf(unit_interval(hash(cycle)), 100, 1.07)`:
        // between the table's ranks 49 and 50 (the exact inverse CDF is rank 49).
        assert_eq!(z(&z100, 0.8833108082136427), 49.31080821364276);
        // Entry 0 is rank 0 (CDF(0) = 0 answers p = 0), so the first interval
        // climbs from 0 to 1, as upstream's table does.
        assert_eq!(z(&z100, 0.0), 0.0);
        assert!((z(&z100, 0.000344) - 0.344).abs() < 1e-12);
        assert_eq!(z(&z100, 1.0), 100.0);
        assert_eq!(z(&z100, 7.0), 100.0, "u is clamped");
        assert!(z(&z100, f64::NAN).is_nan());
        // H = 11/6; CDF = [6/11, 9/11, 1]: the table holds 1 up to p = 0.545,
        // 2 up to 0.818, then 3; between two points it interpolates.
        let z3 = [Value::U64(3), f(1.0)];
        let table = zipf_table(3, 1.0).unwrap();
        assert_eq!((table.entries()[1], table.entries()[545], table.entries()[546]), (1.0, 1.0, 2.0));
        assert_eq!((table.entries()[818], table.entries()[819], table.entries()[1000]), (2.0, 3.0, 3.0));
        assert_eq!((z(&z3, 0.3), z(&z3, 0.7), z(&z3, 0.9)), (1.0, 2.0, 3.0));
        assert!((z(&z3, 0.5455) - 1.5).abs() < 1e-9);
        assert_eq!(z(&[Value::U64(1), f(1.0)], 0.7), 1.0);
        assert_eq!(z(&[Value::U64(0), f(1.0)], 0.7), 0.0, "n = 0 is all zeros, as upstream's clamp gives");
        assert_eq!(z(&[Value::U64(10), f(0.0)], 0.5), 5.0, "s = 0 is uniform");
        assert!(build_err(&DIST_ZIPF, &[Value::U64(ZIPF_MAX_N + 1), f(1.0)], &[F64]).contains("0..="));
        // A NaN CDF stops upstream's binary search (it unwraps `partial_cmp`).
        assert_eq!(build_err(&DIST_ZIPF, &[Value::U64(5), f(f64::NAN)], &[F64]), ZIPF_NAN);
        assert_eq!(z(&[Value::U64(5), f(f64::INFINITY)], 0.5), 1.0, "s = inf puts all mass on rank 1");
    }

    #[test]
    fn special_functions_are_upstreams() {
        // Upstream special.rs checks.
        for n in 1..10u32 {
            let fact: f64 = (1..n).map(f64::from).product();
            assert!((ln_gamma(f64::from(n)) - fact.ln()).abs() < 1e-9, "n={n}");
        }
        assert!((ln_gamma(0.5) - std::f64::consts::PI.sqrt().ln()).abs() < 1e-9);
        assert!((regularized_beta(0.5, 2.0, 2.0) - 0.5).abs() < 1e-9);
        for p in [0.05, 0.25, 0.5, 0.75, 0.95] {
            let x = inv_regularized_beta(p, 2.0, 5.0);
            assert!((regularized_beta(x, 2.0, 5.0) - p).abs() < 1e-9, "p={p}");
            let g = inv_regularized_gamma_p(p, 2.5);
            assert!((regularized_gamma_p(2.5, g) - p).abs() < 1e-9, "p={p}");
        }
        assert!((regularized_gamma_p(1.0, 1.0) - (1.0 - (-1.0f64).exp())).abs() < 1e-9);
        assert_eq!((inv_regularized_gamma_p(0.0, 2.0), inv_regularized_gamma_p(1.0, 2.0)), (0.0, f64::INFINITY));
        // Nonsense parameters end (no endless bracket or recursion).
        for (a, b) in [(f64::NAN, 1.0), (-5.0, 1.0), (1.0, -5.0), (0.0, 0.0), (f64::INFINITY, 2.0)] {
            let _ = inv_regularized_beta(0.3, a, b);
            let _ = inv_regularized_gamma_p(0.3, a);
        }
    }

    /// The node built once, as a sampling function.
    fn built(def: &NodeDef, consts: &[Value]) -> impl Fn(f64) -> f64 {
        let node = (def.build)(&crate::node::BuildCtx { consts, wire_types: &[F64] }).unwrap();
        move |u| {
            let mut out = [Value::None];
            node.eval(&crate::node::Args::new(&[Value::F64(u)], &[0]), &mut out).unwrap();
            out[0].as_f64().unwrap()
        }
    }

    #[test]
    fn continuous_tables_follow_upstreams_tests() {
        let t = std::time::Instant::now();
        let beta25 = built(&DIST_BETA, &[f(2.0), f(5.0)]);
        let gamma21 = built(&DIST_GAMMA, &[f(2.0), f(1.0)]);
        let weibull = built(&DIST_WEIBULL, &[f(2.0), f(1.0)]);
        assert!(t.elapsed().as_secs() < 20, "tables build quickly: {:?}", t.elapsed());
        let s2 = |d: &NodeDef, a: f64, b: f64, u: f64| sample(d, &[f(a), f(b)], u);
        assert!((s2(&DIST_LOGNORMAL, 0.0, 1.0, 0.5) - 1.0).abs() < 0.01);
        assert!((s2(&DIST_CAUCHY, 0.0, 1.0, 0.5)).abs() < 0.1);
        assert!((s2(&DIST_CAUCHY, 0.0, 1.0, 0.25) + s2(&DIST_CAUCHY, 0.0, 1.0, 0.75)).abs() < 0.1);
        assert!((s2(&DIST_LAPLACE, 5.0, 2.0, 0.5) - 5.0).abs() < 0.1);
        assert!((0..=1000).all(|i| (0.0..=1.0).contains(&beta25(i as f64 / 1000.0))));
        assert!((s2(&DIST_BETA, 2.0, 2.0, 0.5) - 0.5).abs() < 0.1);
        assert!((1..1000).all(|i| gamma21(i as f64 / 1000.0) > 0.0));
        assert!((s2(&DIST_GAMMA, 3.0, 2.0, 0.5) - 5.0).abs() < 1.5);
        assert!((1..1000).all(|i| weibull(i as f64 / 1000.0) >= 0.0));
        // Weibull(1, scale) is the exponential with rate 1/scale.
        let e = sample(&DIST_EXPONENTIAL, &[f(0.5)], 0.3);
        assert!((s2(&DIST_WEIBULL, 1.0, 2.0, 0.3) - e).abs() < 1e-12);
    }

    #[test]
    fn discrete_samples_are_the_exact_inverse_cdf() {
        let p = |l: f64, u: f64| sample(&DIST_POISSON, &[f(l)], u);
        // Poisson(3): CDF(9) = 0.99890, CDF(10) = 0.99971, CDF(11) = 0.999928.
        assert_eq!((p(3.0, 0.0), p(3.0, 0.0497), p(3.0, 0.0498), p(3.0, 0.5)), (0.0, 0.0, 1.0, 3.0));
        assert_eq!((p(3.0, 0.999), p(3.0, 0.9999), p(3.0, 0.99995)), (10.0, 11.0, 12.0));
        assert!(p(3.0, 1.0) >= 20.0 && p(3.0, 1.0) <= 30.0, "u = 1 is the table's last count: {}", p(3.0, 1.0));
        assert_eq!(p(5.0, 0.5), 5.0);
        // Large lambdas (exp(-lambda) underflows upstream's table to all zeros).
        assert_eq!(p(1000.0, 0.5), 1000.0);
        assert!((p(1e6, 0.975) - (1e6 + 1.96e3)).abs() < 5.0, "{}", p(1e6, 0.975));
        assert_eq!((p(0.0, 0.7), p(-1.0, 0.7)), (0.0, 0.0), "lambda 0: all mass on 0");
        assert!(p(f64::NAN, 0.5).is_finite());
        assert!(p(3.0, f64::NAN).is_nan());
        assert!(build_err(&DIST_POISSON, &[f(1e12)], &[F64]).contains("at most 10000000"));
        assert!(build_err(&DIST_POISSON, &[f(f64::INFINITY)], &[F64]).contains("at most"));
        let table = poisson_table(3.0).unwrap();
        assert_eq!(table.support().0, 0);

        let b = |n: u64, q: f64, u: f64| sample(&DIST_BINOMIAL, &[Value::U64(n), f(q)], u);
        assert_eq!((b(20, 0.5, 0.0), b(20, 0.5, 0.5), b(20, 0.5, 1.0)), (0.0, 10.0, 20.0));
        assert_eq!((b(1, 0.3, 0.7), b(1, 0.3, 0.71)), (0.0, 1.0));
        assert_eq!((b(10, 0.0, 0.9), b(10, 1.0, 0.1), b(0, 0.5, 0.9)), (0.0, 10.0, 0.0));
        assert_eq!(b(10_000, 0.5, 0.5), 5000.0, "(1 - p)^n underflows upstream's table");
        assert!(build_err(&DIST_BINOMIAL, &[Value::U64(u64::MAX), f(0.5)], &[F64]).contains("at most"));

        let g = |q: f64, u: f64| sample(&DIST_GEOMETRIC, &[f(q)], u);
        assert_eq!((g(0.5, 0.0), g(0.5, 0.5), g(0.5, 0.5001), g(0.5, 0.75), g(0.5, 0.7501)), (1.0, 1.0, 2.0, 2.0, 3.0));
        assert_eq!(g(0.5, 1.0), 53.0, "u = 1 reads the largest f64 below 1: 2^-53");
        assert_eq!((g(1.0, 0.9), g(0.0, 0.9), g(f64::NAN, 0.9)), (1.0, 1.0, 1.0));
        assert!(g(0.5, f64::NAN).is_nan());
    }

    /// Every sampler over a fine even grid of u (the midpoints of 200,000
    /// strata): its smallest and largest value, mean, and whether every
    /// value is an integer.
    fn profile(def: &NodeDef, consts: &[Value]) -> (f64, f64, f64, bool) {
        let node = built(def, consts);
        let n = 200_000;
        let (mut lo, mut hi, mut sum, mut integral) = (f64::INFINITY, f64::NEG_INFINITY, 0.0, true);
        for i in 0..n {
            let v = node((i as f64 + 0.5) / n as f64);
            lo = lo.min(v);
            hi = hi.max(v);
            sum += v;
            integral &= v.fract() == 0.0;
        }
        (lo, hi, sum / n as f64, integral)
    }

    #[test]
    fn every_sampler_keeps_its_range_and_mean() {
        let close = |what: &str, got: f64, want: f64, tolerance: f64| {
            assert!((got - want).abs() <= tolerance * want.abs().max(1.0), "{what}: mean {got}, want {want}");
        };
        let (lo, hi, mean, _) = profile(&DIST_NORMAL, &[f(10.0), f(2.0)]);
        close("normal", mean, 10.0, 1e-3);
        assert!(lo < 10.0 - 2.0 * 4.0 && hi > 10.0 + 2.0 * 4.0, "tails past 4σ: {lo} {hi}");
        let (lo, _, mean, _) = profile(&DIST_EXPONENTIAL, &[f(2.0)]);
        close("exponential", mean, 0.5, 2e-3);
        assert!(lo >= 0.0);
        let (lo, hi, mean, _) = profile(&DIST_UNIFORM, &[f(-1.0), f(3.0)]);
        close("uniform", mean, 1.0, 1e-6);
        assert!(lo >= -1.0 && hi <= 3.0);
        let (lo, _, mean, _) = profile(&DIST_PARETO, &[f(2.0), f(3.0)]);
        close("pareto", mean, 3.0 * 2.0 / 2.0, 5e-3);
        assert!(lo >= 2.0);
        let (lo, _, mean, _) = profile(&DIST_LOGNORMAL, &[f(0.0), f(0.5)]);
        close("lognormal", mean, (0.125f64).exp(), 2e-3);
        assert!(lo > 0.0);
        let (lo, _, mean, _) = profile(&DIST_WEIBULL, &[f(2.0), f(1.0)]);
        close("weibull", mean, std::f64::consts::PI.sqrt() / 2.0, 2e-3);
        assert!(lo >= 0.0);
        let c = built(&DIST_CAUCHY, &[f(5.0), f(2.0)]);
        close("cauchy median", c(0.5), 5.0, 1e-9);
        close("cauchy quartile", c(0.75), 7.0, 1e-3);
        let (_, _, mean, _) = profile(&DIST_LAPLACE, &[f(5.0), f(2.0)]);
        close("laplace", mean, 5.0, 1e-3);
        let (lo, hi, mean, _) = profile(&DIST_BETA, &[f(2.0), f(5.0)]);
        close("beta", mean, 2.0 / 7.0, 1e-3);
        assert!(lo >= 0.0 && hi <= 1.0);
        let (lo, _, mean, _) = profile(&DIST_GAMMA, &[f(3.0), f(2.0)]);
        close("gamma", mean, 6.0, 2e-3);
        assert!(lo >= 0.0);

        let (lo, _, mean, integral) = profile(&DIST_POISSON, &[f(3.0)]);
        close("poisson", mean, 3.0, 1e-3);
        assert!(lo == 0.0 && integral);
        let (lo, hi, mean, integral) = profile(&DIST_BINOMIAL, &[Value::U64(20), f(0.3)]);
        close("binomial", mean, 6.0, 1e-3);
        assert!(lo >= 0.0 && hi <= 20.0 && integral);
        let (lo, _, mean, integral) = profile(&DIST_GEOMETRIC, &[f(0.25)]);
        close("geometric", mean, 4.0, 1e-3);
        assert!(lo == 1.0 && integral);
        // Zipf samples its interpolated rank table: fractions, from 0 (the
        // table's entry 0) to n, the mean within a rank of the exact one.
        let (lo, hi, mean, integral) = profile(&DIST_ZIPF, &[Value::U64(100), f(1.07)]);
        let h = |e: f64| (1..=100).map(|k| (k as f64).powf(-e)).sum::<f64>();
        close("zipf", mean, h(0.07) / h(1.07), 0.1);
        assert!(lo >= 0.0 && lo < 1.0 && hi <= 100.0 && !integral);

        let (lo, hi, mean, _) = profile(&DIST_EMPIRICAL, &[Value::str("4 1 2 3")]);
        close("empirical", mean, 2.5, 1e-6);
        assert!(lo >= 1.0 && hi <= 4.0);
        let (_, _, mean, _) = profile(&LUT_SAMPLE, &[Value::str("0 1 4")]);
        close("lut_sample", mean, 1.5, 1e-6);
    }

    #[test]
    fn empirical_and_lut_tables() {
        let e = |spec: &str, u: f64| sample(&DIST_EMPIRICAL, &[Value::str(spec)], u);
        assert_eq!((e("10 0 5", 0.0), e("10 0 5", 0.5), e("10 0 5", 1.0)), (0.0, 5.0, 10.0), "sorted");
        assert_eq!(e("0,5;10", 0.25), 2.5);
        let l = |spec: &str, u: f64| sample(&LUT_SAMPLE, &[Value::str(spec)], u);
        assert_eq!((l("10 0 5", 0.0), l("10 0 5", 0.5), l("10 0 5", 1.0)), (10.0, 0.0, 5.0), "in order");
        assert_eq!(l("0 inf 4", 0.5), 0.0, "a non-finite entry takes its neighbour");
        let err = |d: &NodeDef, spec: &str| build_err(d, &[Value::str(spec)], &[F64]);
        assert_eq!(err(&DIST_EMPIRICAL, "1"), "empirical distribution needs at least 2 data points");
        assert_eq!(err(&DIST_EMPIRICAL, "1 x"), "invalid empirical data point: ParseFloatError { kind: Invalid }");
        assert!(err(&DIST_EMPIRICAL, "1 NaN").contains("NaN"));
        assert!(err(&LUT_SAMPLE, "").contains("at least 2"));
    }
}
