//! Distribution family: inverse-CDF sampling through a 1001-point lookup table
//! built once per node instance. Each node maps a unit value u (clamped to
//! [0, 1]) to a sample by linear interpolation between table entries.

use crate::node::kit::map1;
use crate::node::{konst, wire, BuildCtx, NodeDef, NodeEval, Outputs};
use crate::types::PortType::{F64, U64};

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
    pub fn from_entries(mut t: Vec<f64>) -> Lut {
        assert_eq!(t.len(), RESOLUTION + 1, "a lookup table has RESOLUTION + 1 entries");
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
        let pos = u.clamp(0.0, 1.0) * RESOLUTION as f64;
        let i = (pos as usize).min(RESOLUTION - 1);
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

/// The distribution family.
pub const NODES: &[NodeDef] = &[DIST_NORMAL, DIST_EXPONENTIAL, DIST_UNIFORM, DIST_PARETO, DIST_ZIPF];

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
}
