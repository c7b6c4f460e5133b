//! Distribution family: inverse-CDF sampling through a 1001-point lookup table
//! built once per node instance. Each node maps a unit value u (clamped to
//! [0, 1]) to a sample by linear interpolation between table entries.

use crate::node::kit::map1;
use crate::node::{konst, konst_or, wire, BuildCtx, Lit, NodeDef, NodeEval, Outputs};
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
    pub fn from_fn(f: impl Fn(f64) -> f64) -> Lut {
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

/// The standard normal quantile Φ⁻¹(p) by Wichura's algorithm AS 241 (PPND16),
/// relative error about 1e-16; -inf at 0, +inf at 1, NaN outside [0, 1].
#[allow(clippy::excessive_precision)]
pub fn probit(p: f64) -> f64 {
    if p.is_nan() || !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p == 0.0 {
        return f64::NEG_INFINITY;
    }
    if p == 1.0 {
        return f64::INFINITY;
    }
    let horner = |coef: &[f64], x: f64| coef.iter().fold(0.0, |acc, &c| acc * x + c);
    let q = p - 0.5;
    if q.abs() <= 0.425 {
        let r = 0.180625 - q * q;
        const A: [f64; 8] = [
            2.5090809287301226727e3,
            3.3430575583588128105e4,
            6.7265770927008700853e4,
            4.5921953931549871457e4,
            1.3731693765509461125e4,
            1.9715909503065514427e3,
            1.3314166789178437745e2,
            3.3871328727963666080e0,
        ];
        const B: [f64; 8] = [
            5.2264952788528545610e3,
            2.8729085735721942674e4,
            3.9307895800092710610e4,
            2.1213794301586595867e4,
            5.3941960214247511077e3,
            6.8718700749205790830e2,
            4.2313330701600911252e1,
            1.0,
        ];
        return q * horner(&A, r) / horner(&B, r);
    }
    let tail = if q < 0.0 { p } else { 1.0 - p };
    let r = (-tail.ln()).sqrt();
    let x = if r <= 5.0 {
        const C: [f64; 8] = [
            7.74545014278341407640e-4,
            2.27238449892691845833e-2,
            2.41780725177450611770e-1,
            1.27045825245236838258e0,
            3.64784832476320460504e0,
            5.76949722146069140550e0,
            4.63033784615654529590e0,
            1.42343711074968357734e0,
        ];
        const D: [f64; 8] = [
            1.05075007164441684324e-9,
            5.47593808499534494600e-4,
            1.51986665636164571966e-2,
            1.48103976427480074590e-1,
            6.89767334985100004550e-1,
            1.67638483018380384940e0,
            2.05319162663775882187e0,
            1.0,
        ];
        let r = r - 1.6;
        horner(&C, r) / horner(&D, r)
    } else {
        const E: [f64; 8] = [
            2.01033439929228813265e-7,
            2.71155556874348757815e-5,
            1.24266094738807843860e-3,
            2.65321895265761230930e-2,
            2.96560571828504891230e-1,
            1.78482653991729133580e0,
            5.46378491116411436990e0,
            6.65790464350110377720e0,
        ];
        const F: [f64; 8] = [
            2.04426310338993978564e-15,
            1.42151175831644588870e-7,
            1.84631831751005468180e-5,
            7.86869131145613259100e-4,
            1.48753612908506148525e-2,
            1.36929880922735805310e-1,
            5.99832206555887937690e-1,
            1.0,
        ];
        let r = r - 5.0;
        horner(&E, r) / horner(&F, r)
    };
    if q < 0.0 {
        -x
    } else {
        x
    }
}

/// Refuses a non-finite constant.
fn finite(node: &str, name: &str, v: f64) -> Result<f64, String> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(format!("{node}: {name} must be finite, got {v:?}"))
    }
}

/// Refuses a constant that is not finite and strictly positive.
fn positive(node: &str, name: &str, v: f64) -> Result<f64, String> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(format!("{node}: {name} must be finite and > 0, got {v:?}"))
    }
}

/// Wraps a table as a sampling node.
fn sampler(lut: Lut) -> Box<dyn NodeEval> {
    map1(move |u: f64| lut.sample(u))
}

fn build_normal(c: &BuildCtx<'_>) -> Result<Box<dyn NodeEval>, String> {
    let mean = finite("dist_normal", "mean", c.f64(0))?;
    let sd = finite("dist_normal", "stddev", c.f64(1))?;
    if sd < 0.0 {
        return Err(format!("dist_normal: stddev must be >= 0, got {sd:?}"));
    }
    Ok(sampler(Lut::from_fn(|p| mean + sd * probit(p))))
}

fn build_exponential(c: &BuildCtx<'_>) -> Result<Box<dyn NodeEval>, String> {
    let rate = positive("dist_exponential", "rate", c.f64(0))?;
    Ok(sampler(Lut::from_fn(|p| -(1.0 - p).ln() / rate)))
}

/// `dist_normal`: Normal(mean, stddev) sample for unit input u (tails cut at the 0.1% quantiles).
pub const DIST_NORMAL: NodeDef = NodeDef {
    name: "dist_normal",
    aliases: &["icd_normal"],
    category: "distribution",
    doc: "Normal(mean, stddev) sample for unit input u (tails cut at the 0.1% quantiles).",
    params: &[wire("u", F64), konst_or("mean", F64, Lit::F64(0.0)), konst_or("stddev", F64, Lit::F64(1.0))],
    outputs: Outputs::One(F64),
    build: build_normal,
    ..NodeDef::BASE
};

/// `dist_exponential`: Exponential(rate) sample for unit input u: -ln(1 - u) / rate.
pub const DIST_EXPONENTIAL: NodeDef = NodeDef {
    name: "dist_exponential",
    aliases: &["icd_exponential"],
    category: "distribution",
    doc: "Exponential(rate) sample for unit input u: -ln(1 - u) / rate.",
    params: &[wire("u", F64), konst_or("rate", F64, Lit::F64(1.0))],
    outputs: Outputs::One(F64),
    build: build_exponential,
    ..NodeDef::BASE
};

/// `dist_uniform`: Uniform(min, max) sample for unit input u.
pub const DIST_UNIFORM: NodeDef = NodeDef {
    name: "dist_uniform",
    category: "distribution",
    doc: "Uniform(min, max) sample for unit input u.",
    params: &[wire("u", F64), konst("min", F64), konst("max", F64)],
    outputs: Outputs::One(F64),
    build: |c| {
        let lo = finite("dist_uniform", "min", c.f64(0))?;
        let hi = finite("dist_uniform", "max", c.f64(1))?;
        if lo > hi {
            return Err(format!("dist_uniform: min ({lo:?}) is greater than max ({hi:?})"));
        }
        Ok(sampler(Lut::from_fn(|p| lo + p * (hi - lo))))
    },
    ..NodeDef::BASE
};

/// `dist_pareto`: Pareto(scale, shape) sample for unit input u: scale / (1 - u)^(1/shape).
pub const DIST_PARETO: NodeDef = NodeDef {
    name: "dist_pareto",
    category: "distribution",
    doc: "Pareto(scale, shape) sample for unit input u: scale / (1 - u)^(1/shape).",
    params: &[wire("u", F64), konst_or("scale", F64, Lit::F64(1.0)), konst_or("shape", F64, Lit::F64(1.0))],
    outputs: Outputs::One(F64),
    build: |c| {
        let scale = positive("dist_pareto", "scale", c.f64(0))?;
        let shape = positive("dist_pareto", "shape", c.f64(1))?;
        Ok(sampler(Lut::from_fn(|p| scale / (1.0 - p).powf(1.0 / shape))))
    },
    ..NodeDef::BASE
};

/// The Zipf(n, s) table: entry i is the smallest rank k in 1..=n whose CDF
/// reaches i / RESOLUTION (n when rounding keeps the CDF just below 1).
fn zipf_table(n: u64, s: f64) -> Lut {
    let weight = |k: u64| 1.0 / (k as f64).powf(s);
    let harmonic: f64 = (1..=n).map(weight).fold(0.0, |a, w| a + w);
    let mut t = vec![n as f64; RESOLUTION + 1];
    let mut i = 0;
    let mut cdf = 0.0;
    for k in 1..=n {
        cdf += weight(k) / harmonic;
        while i <= RESOLUTION && cdf >= i as f64 / RESOLUTION as f64 {
            t[i] = k as f64;
            i += 1;
        }
        if i > RESOLUTION {
            break;
        }
    }
    Lut::from_entries(t)
}

/// `dist_zipf`: Zipf(n, s) rank in 1..=n for unit input u, interpolated between table entries.
pub const DIST_ZIPF: NodeDef = NodeDef {
    name: "dist_zipf",
    category: "distribution",
    doc: "Zipf(n, s) rank in 1..=n for unit input u, interpolated between table entries.",
    params: &[wire("u", F64), konst("n", U64), konst_or("s", F64, Lit::F64(1.0))],
    outputs: Outputs::One(F64),
    build: |c| {
        let n = c.u64(0);
        if n == 0 || n > ZIPF_MAX_N {
            return Err(format!("dist_zipf: n must be in 1..={ZIPF_MAX_N}, got {n}"));
        }
        let s = finite("dist_zipf", "s", c.f64(1))?;
        Ok(sampler(zipf_table(n, s)))
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

    #[test]
    fn probit_matches_high_precision_reference() {
        // Reference quantiles computed with 50-digit arithmetic for these f64 inputs.
        let cases = [
            (0.001, -3.0902323061678136),
            (0.01, -2.326347874040841),
            (0.025, -1.9599639845400543),
            (0.1, -1.2815515655446004),
            (0.3, -0.5244005127080408),
            (0.75, 0.6744897501960817),
            (0.9, 1.2815515655446006),
            (0.975, 1.9599639845400538),
            (0.999, 3.090232306167813),
            (1e-10, -6.361340902404057),
            (1e-300, -37.0470962993612),
        ];
        for (p, want) in cases {
            let got = probit(p);
            assert!(((got - want) / want).abs() < 1e-15, "probit({p}) = {got}, want {want}");
        }
        assert_eq!(probit(0.5), 0.0);
        assert_eq!(probit(0.0), f64::NEG_INFINITY);
        assert_eq!(probit(1.0), f64::INFINITY);
        assert!(probit(f64::NAN).is_nan() && probit(1.5).is_nan() && probit(-0.1).is_nan());
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
    fn normal_table() {
        let n = |u: f64| sample(&DIST_NORMAL, &[], u);
        assert_eq!(n(0.5), 0.0);
        assert_eq!(n(0.0), probit(0.001), "the p = 0 entry takes its finite neighbour");
        assert_eq!(n(1.0), probit(0.999));
        assert_eq!(n(0.0005), probit(0.001));
        let shifted = sample(&DIST_NORMAL, &[Value::F64(10.0), Value::F64(2.0)], 0.975);
        assert!((shifted - (10.0 + 2.0 * 1.959963984540054)).abs() < 1e-12);
        assert_eq!(sample(&DIST_NORMAL, &[Value::F64(3.0), Value::F64(0.0)], 0.0), 3.0);
        assert!(build_err(&DIST_NORMAL, &[Value::F64(0.0), Value::F64(-1.0)], &[F64]).contains(">= 0"));
        assert!(build_err(&DIST_NORMAL, &[Value::F64(f64::NAN), Value::F64(1.0)], &[F64]).contains("finite"));
        assert_eq!(lookup_alias("icd_normal"), "dist_normal");
    }

    fn lookup_alias(name: &str) -> &'static str {
        crate::nodes::lookup(name).unwrap().name
    }

    #[test]
    fn exponential_uniform_pareto_tables() {
        let e = |u: f64| sample(&DIST_EXPONENTIAL, &[Value::F64(2.0)], u);
        assert_eq!(e(0.0), 0.0);
        assert_eq!(e(0.5), -(0.5f64).ln() / 2.0);
        assert_eq!(e(1.0), -(1.0 - 0.999f64).ln() / 2.0, "the infinite tail is cut");
        assert_eq!(lookup_alias("icd_exponential"), "dist_exponential");
        for bad in [0.0, -1.0, f64::INFINITY, f64::NAN] {
            assert!(build_err(&DIST_EXPONENTIAL, &[Value::F64(bad)], &[F64]).contains("> 0"));
        }
        let u = |x: f64| sample(&DIST_UNIFORM, &[Value::F64(-1.0), Value::F64(3.0)], x);
        assert_eq!((u(0.0), u(0.5), u(1.0), u(2.0)), (-1.0, 1.0, 3.0, 3.0));
        assert!(build_err(&DIST_UNIFORM, &[Value::F64(1.0), Value::F64(0.0)], &[F64]).contains("greater"));
        let p = |x: f64| sample(&DIST_PARETO, &[Value::F64(2.0), Value::F64(1.0)], x);
        assert_eq!(p(0.0), 2.0);
        assert_eq!(p(0.5), 4.0);
        assert_eq!(p(1.0), 2.0 / (1.0 - 0.999f64), "the infinite tail is cut");
        assert!(build_err(&DIST_PARETO, &[Value::F64(0.0), Value::F64(1.0)], &[F64]).contains("scale"));
        assert!(build_err(&DIST_PARETO, &[Value::F64(1.0), Value::F64(-2.0)], &[F64]).contains("shape"));
    }

    #[test]
    fn zipf_table_holds_smallest_rank_reaching_p() {
        let lut = zipf_table(3, 1.0);
        // H = 11/6; CDF = 6/11, 9/11, 1.
        let t = lut.entries();
        assert_eq!((t[0], t[545], t[546], t[818], t[819], t[1000]), (1.0, 1.0, 2.0, 2.0, 3.0, 3.0));
        let z = |consts: &[Value], u: f64| sample(&DIST_ZIPF, consts, u);
        assert_eq!(z(&[Value::U64(1)], 0.7), 1.0);
        assert_eq!(z(&[Value::U64(3)], 0.0), 1.0);
        assert_eq!(z(&[Value::U64(3)], 1.0), 3.0);
        assert_eq!(z(&[Value::U64(10), Value::F64(0.0)], 0.5), 5.0, "s = 0 is uniform over ranks");
        assert!(build_err(&DIST_ZIPF, &[Value::U64(0), Value::F64(1.0)], &[F64]).contains("1..="));
        assert!(build_err(&DIST_ZIPF, &[Value::U64(ZIPF_MAX_N + 1), Value::F64(1.0)], &[F64]).contains("1..="));
        assert!(build_err(&DIST_ZIPF, &[Value::U64(5), Value::F64(f64::NAN)], &[F64]).contains("finite"));
    }
}
