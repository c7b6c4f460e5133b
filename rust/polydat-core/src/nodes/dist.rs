//! Distribution family: inverse-CDF sampling through a 1001-point lookup table
//! built once per node instance. Each node maps a unit value u (clamped to
//! [0, 1]) to a sample by linear interpolation between table entries.

use crate::node::kit::map1;
use crate::node::{konst, wire, BuildCtx, NodeDef, NodeEval, Outputs};
use crate::types::PortType::{Str, F64, U64};

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

// Upstream validates none of these constants: a table over nonsense
// parameters is built all the same (non-finite entries become 0.0 or their
// finite neighbours), and so it is here.

fn build_normal(c: &BuildCtx<'_>) -> Result<Box<dyn NodeEval>, String> {
    let (mean, sd) = (c.f64(0), c.f64(1));
    Ok(sampler(Lut::from_fn(|p| mean + sd * probit(p))))
}

fn build_exponential(c: &BuildCtx<'_>) -> Result<Box<dyn NodeEval>, String> {
    let rate = c.f64(0);
    Ok(sampler(Lut::from_fn(|p| -(1.0 - p).ln() / rate)))
}

/// `dist_normal`: Normal(mean, stddev) sample for a unit input u (A&S 26.2.23 quantiles; tails cut at the 0.1% quantiles).
pub const DIST_NORMAL: NodeDef = NodeDef {
    name: "dist_normal",
    aliases: &["icd_normal"],
    category: "distribution",
    doc: "Normal(mean, stddev) sample for a unit input u (A&S 26.2.23 quantiles; tails cut at the 0.1% quantiles).",
    params: &[wire("input", F64), konst("mean", F64), konst("stddev", F64)],
    outputs: Outputs::One(F64),
    build: build_normal,
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
        Ok(sampler(Lut::from_fn(|p| scale / (1.0 - p).powf(1.0 / shape))))
    },
    ..NodeDef::BASE
};

/// Upstream's construction failure when a Zipf CDF holds a NaN (its binary
/// search unwraps `partial_cmp`).
const ZIPF_NAN: &str = "called `Option::unwrap()` on a `None` value";

/// The Zipf(n, s) table as upstream builds it: the CDF `[0, c1, ..., cn]`
/// (weights `1 / k^s` over their plain sum, accumulated in rank order), and
/// entry i the binary search of p = i / RESOLUTION in it: an exact hit at
/// index k gives k (so p = 0 gives rank 0), a miss its insertion point
/// clamped to [1, n].
fn zipf_table(n: u64, s: f64) -> Result<Lut, String> {
    let weight = |k: u64| 1.0 / (k as f64).powf(s);
    let harmonic: f64 = (1..=n).map(weight).fold(0.0, |a, w| a + w);
    let mut cdf = Vec::with_capacity(n as usize + 1);
    cdf.push(0.0);
    let mut cumulative = 0.0;
    for k in 1..=n {
        cumulative += weight(k) / harmonic;
        cdf.push(cumulative);
    }
    let mut nan = false;
    let lut = Lut::from_fn(|p| {
        let p = p.clamp(0.0, 1.0);
        let found = cdf.binary_search_by(|v: &f64| {
            v.partial_cmp(&p).unwrap_or_else(|| {
                nan = true;
                std::cmp::Ordering::Equal
            })
        });
        match found {
            Ok(k) => k as f64,
            Err(k) => (k as f64).max(1.0).min(n as f64),
        }
    });
    if nan {
        return Err(ZIPF_NAN.to_string());
    }
    Ok(lut)
}

/// `dist_zipf`: Zipf(n, exponent) rank in 1..=n for a unit input u (0 at u = 0), interpolated between table entries.
pub const DIST_ZIPF: NodeDef = NodeDef {
    name: "dist_zipf",
    category: "distribution",
    doc: "Zipf(n, exponent) rank in 1..=n for a unit input u (0 at u = 0), interpolated between table entries.",
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

/// The inverse of a discrete CDF `[0, c0, c1, ...]` at each p: the index
/// of the first entry >= p (an exact hit: that entry), less one.
fn discrete_table(cdf: &[f64]) -> Lut {
    Lut::from_fn(|p| {
        let p = p.clamp(0.0, 1.0);
        let found = cdf.binary_search_by(|v| v.partial_cmp(&p).unwrap_or(std::cmp::Ordering::Less));
        match found {
            Ok(i) | Err(i) => i.saturating_sub(1) as f64,
        }
    })
}

fn table_size(name: &str, entries: u64) -> Result<(), String> {
    if entries > DISCRETE_MAX_ENTRIES {
        return Err(format!("{name}: the CDF table would hold {entries} entries; at most {DISCRETE_MAX_ENTRIES}"));
    }
    Ok(())
}

/// Parses a list of numbers separated by spaces, commas or semicolons.
fn parse_points(spec: &str, what: &str) -> Result<Vec<f64>, String> {
    spec.split([' ', ',', ';'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<f64>().map_err(|e| format!("invalid {what}: {e:?}")))
        .collect()
}

macro_rules! dist_node {
    ($id:ident, $name:literal, $doc:literal, [$($p:literal),*], |$c:ident| $body:expr) => {
        /// A distribution node (see its `name` and `doc` fields).
        pub const $id: NodeDef = NodeDef {
            name: $name,
            category: "distribution",
            doc: $doc,
            params: &[wire("input", F64), $(konst($p, F64)),*],
            outputs: Outputs::One(F64),
            build: |$c| $body,
            ..NodeDef::BASE
        };
    };
}

dist_node!(
    DIST_LOGNORMAL,
    "dist_lognormal",
    "LogNormal(mean, stddev) sample for a unit input u: exp(mean + stddev * probit(u)).",
    ["mean", "stddev"],
    |c| {
        let (mean, sd) = (c.f64(0), c.f64(1));
        Ok(sampler(Lut::from_fn(|p| (mean + sd * probit(p)).exp())))
    }
);
dist_node!(
    DIST_WEIBULL,
    "dist_weibull",
    "Weibull(shape, scale) sample for a unit input u: scale * (-ln(1 - u))^(1/shape).",
    ["shape", "scale"],
    |c| {
        let (shape, scale) = (c.f64(0), c.f64(1));
        Ok(sampler(Lut::from_fn(|p| scale * (-(1.0 - p).ln()).powf(1.0 / shape))))
    }
);
dist_node!(
    DIST_CAUCHY,
    "dist_cauchy",
    "Cauchy(location, scale) sample for a unit input u: location + scale * tan(pi (u - 1/2)).",
    ["location", "scale"],
    |c| {
        let (loc, scale) = (c.f64(0), c.f64(1));
        Ok(sampler(Lut::from_fn(|p| loc + scale * (std::f64::consts::PI * (p - 0.5)).tan())))
    }
);
dist_node!(
    DIST_LAPLACE,
    "dist_laplace",
    "Laplace(location, scale) sample for a unit input u (the two-sided exponential quantile).",
    ["location", "scale"],
    |c| {
        let (loc, scale) = (c.f64(0), c.f64(1));
        Ok(sampler(Lut::from_fn(|p| {
            if p <= 0.5 {
                loc + scale * (2.0 * p).ln()
            } else {
                loc - scale * (2.0 * (1.0 - p)).ln()
            }
        })))
    }
);
dist_node!(
    DIST_BETA,
    "dist_beta",
    "Beta(alpha, beta) sample for a unit input u: the inverse regularized incomplete beta, by bisection.",
    ["alpha", "beta"],
    |c| {
        let (a, b) = (c.f64(0), c.f64(1));
        Ok(sampler(Lut::from_fn(|p| inv_regularized_beta(p, a, b))))
    }
);
dist_node!(DIST_GAMMA, "dist_gamma", "Gamma(shape, scale) sample for a unit input u: scale times the inverse regularized lower incomplete gamma, by bisection.", ["shape", "scale"], |c| {
    let (shape, scale) = (c.f64(0), c.f64(1));
    Ok(sampler(Lut::from_fn(|p| scale * inv_regularized_gamma_p(p, shape))))
});
dist_node!(DIST_POISSON, "dist_poisson", "Poisson(lambda) count for a unit input u: the CDF up to lambda + 6 sqrt(lambda) + 10, inverted (interpolated between entries).", ["lambda"], |c| {
    let lambda = c.f64(0);
    let upper = (lambda + 6.0 * lambda.sqrt() + 10.0).ceil() as u64;
    table_size("dist_poisson", upper.saturating_add(2))?;
    let mut cdf = Vec::with_capacity(upper as usize + 2);
    cdf.push(0.0);
    let (mut cumulative, mut pmf) = (0.0f64, (-lambda).exp());
    for k in 0..=upper {
        cumulative += pmf;
        cdf.push(cumulative.min(1.0));
        pmf *= lambda / (k + 1) as f64;
    }
    Ok(sampler(discrete_table(&cdf)))
});
dist_node!(
    DIST_GEOMETRIC,
    "dist_geometric",
    "Geometric(prob) trial count (from 1) for a unit input u: ceil(ln(1 - u) / ln(1 - prob)).",
    ["prob"],
    |c| {
        let ln_q = (1.0 - c.f64(0)).ln();
        Ok(sampler(Lut::from_fn(|p| {
            if p <= 0.0 {
                1.0
            } else if p >= 1.0 {
                f64::INFINITY
            } else {
                ((1.0 - p).ln() / ln_q).ceil().max(1.0)
            }
        })))
    }
);

/// `dist_binomial`: Binomial(trials, prob) successes for a unit input u.
pub const DIST_BINOMIAL: NodeDef = NodeDef {
    name: "dist_binomial",
    category: "distribution",
    doc: "Binomial(trials, prob) success count for a unit input u: the CDF over 0..=trials, inverted (interpolated between entries).",
    params: &[wire("input", F64), konst("trials", U64), konst("prob", F64)],
    outputs: Outputs::One(F64),
    build: |c| {
        let (trials, prob) = (c.u64(0), c.f64(1));
        table_size("dist_binomial", trials.saturating_add(2))?;
        let n = trials as usize;
        let mut cdf = Vec::with_capacity(n + 2);
        cdf.push(0.0);
        let mut cumulative = 0.0f64;
        // powi where the exponent fits an i32, as upstream (its bits), powf past it.
        let mut pmf = match i32::try_from(n) {
            Ok(e) => (1.0 - prob).powi(e),
            Err(_) => (1.0 - prob).powf(n as f64),
        };
        for k in 0..=n {
            cumulative += pmf;
            cdf.push(cumulative.min(1.0));
            if k < n {
                pmf *= prob / (1.0 - prob) * ((n - k) as f64) / ((k + 1) as f64);
            }
        }
        Ok(sampler(discrete_table(&cdf)))
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
    ..NodeDef::BASE
};

/// The distribution family.
pub const NODES: &[NodeDef] = &[
    DIST_NORMAL,
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
        assert_eq!(n(0.0), 0xc008_b963_b77a_4bb3, "the p = 0 entry takes its finite neighbour");
        assert_eq!(n(1.0), 0x4008_b963_b77a_4bb3);
        assert_eq!(n(0.975), 0x3fff_5dc7_0f77_0606);
        assert_eq!(n(0.123456), 0xbff2_8713_a564_545d, "interpolated");
        assert_eq!(n(0.25), 0xbfe5_92f5_1a79_bdb4);
        let shifted = sample(&DIST_NORMAL, &[f(10.0), f(2.0)], 0.975);
        assert_eq!(shifted.to_bits(), 0x402b_d771_c3dd_c182);
        assert_eq!(sample(&DIST_NORMAL, &[f(3.0), f(0.0)], 0.0), 3.0);
        assert_eq!(lookup_alias("icd_normal"), "dist_normal");
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
        assert_eq!(e(1.0), -(1.0 - 0.999f64).ln() / 2.0, "the infinite tail is cut");
        assert_eq!(lookup_alias("icd_exponential"), "dist_exponential");
        let u = |x: f64| sample(&DIST_UNIFORM, &[f(-1.0), f(3.0)], x);
        assert_eq!((u(0.0), u(0.5), u(1.0), u(2.0)), (-1.0, 1.0, 3.0, 3.0));
        let p = |x: f64| sample(&DIST_PARETO, &[f(2.0), f(1.0)], x);
        assert_eq!(p(0.0), 2.0);
        assert_eq!(p(0.5), 4.0);
        assert_eq!(p(1.0), 2.0 / (1.0 - 0.999f64), "the infinite tail is cut");
    }

    #[test]
    fn zipf_table_is_upstreams_binary_search() {
        let t = zipf_table(3, 1.0).unwrap();
        let t = t.entries();
        // H = 11/6; CDF = [0, 6/11, 9/11, 1]; p = 0 hits the CDF's 0 exactly: rank 0.
        assert_eq!((t[0], t[1], t[545], t[546], t[818], t[819], t[1000]), (0.0, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0));
        let z = |consts: &[Value], u: f64| sample(&DIST_ZIPF, consts, u);
        let z3 = [Value::U64(3), f(1.0)];
        assert_eq!(z(&z3, 0.0), 0.0);
        assert_eq!(z(&z3, 0.0005), 0.5, "interpolates from the rank-0 entry");
        assert_eq!((z(&z3, 0.3), z(&z3, 0.7), z(&z3, 1.0)), (1.0, 2.0, 3.0));
        assert_eq!(z(&[Value::U64(1), f(1.0)], 0.7), 1.0);
        let z10 = [Value::U64(10), f(0.0)];
        assert_eq!((z(&z10, 0.05), z(&z10, 0.5), z(&z10, 1.0)), (1.0, 5.0, 10.0), "s = 0 is uniform over ranks");
        let z100 = [Value::U64(100), f(1.0)];
        assert_eq!((z(&z100, 0.0005), z(&z100, 0.5), z(&z100, 0.9)), (0.5, 8.0, 60.0));
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
    fn discrete_tables_follow_upstreams_tests() {
        let p = |l: f64, u: f64| sample(&DIST_POISSON, &[f(l)], u);
        assert!((p(5.0, 0.5) - 5.0).abs() < 1.0);
        let p3 = built(&DIST_POISSON, &[f(3.0)]);
        assert!((0..=1000).all(|i| p3(i as f64 / 1000.0) >= 0.0));
        let b = built(&DIST_BINOMIAL, &[Value::U64(20), f(0.5)]);
        assert!((0..=1000).all(|i| (0.0..=20.0).contains(&b(i as f64 / 1000.0))));
        assert!((b(0.5) - 10.0).abs() < 1.5);
        let g = |u: f64| sample(&DIST_GEOMETRIC, &[f(0.5)], u);
        assert!(g(0.001) >= 1.0);
        assert!((g(0.5) - 1.0).abs() < 1.0);
        assert!(g(1.0).is_finite(), "the infinite tail takes its finite neighbour");
        assert!(build_err(&DIST_POISSON, &[f(1e12)], &[F64]).contains("at most 10000000"));
        assert!(build_err(&DIST_BINOMIAL, &[Value::U64(u64::MAX), f(0.5)], &[F64]).contains("at most"));
        assert!(p(f64::NAN, 0.5).is_finite());
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
