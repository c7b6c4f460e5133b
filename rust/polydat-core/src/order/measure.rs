//! The measures of continuous sources: how a point of the unit interval,
//! drawn by a sampling order, becomes a value of a continuous clause
//! (`x in 0.0..1.0`, `x in normal(0, 1)`, `x in exponential(1) on 0.0..1.0`).
//!
//! A continuous axis is an interval and a measure on it. The uniform
//! measure (a float range without a step) carries the unit point `u`
//! affinely onto the interval. A named measure carries it through its
//! inverse CDF, restricted to the interval: `u` is placed between the CDF
//! values of the interval's ends and that probability is inverted, so the
//! draws keep the measure's shape inside the interval. A value is never an
//! open end of its interval: one that lands there moves to the next float
//! inside.
//!
//! The named measures are upstream polydat's closed set ([`MEASURES`]),
//! their parameters in [`MeasureName::parameter_names`] order (none: the
//! standard ones, [`MeasureName::default_params`]). The special functions
//! are the node library's (`nodes::dist`), which compute as upstream does;
//! the normal CDF a restricted normal reads is upstream's, through the
//! regularized gamma function.

use super::OrderError;
use crate::nodes::dist::{
    inv_regularized_beta, inv_regularized_gamma_p, probit, regularized_beta, regularized_gamma_p,
};

/// The named measures a continuous source may draw from, as written in a
/// comprehension (`x in normal(0, 1)`).
pub const MEASURES: &[&str] = &["normal", "exponential", "pareto", "beta", "log_normal", "gamma", "uniform01"];

/// A named continuous distribution (one of [`MEASURES`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MeasureName {
    /// Normal(mean, stddev) on the whole line.
    Normal,
    /// Exponential(rate) on `[0, inf)`.
    Exponential,
    /// Pareto(scale, shape) on `[scale, inf)`.
    Pareto,
    /// Beta(alpha, beta) on `[0, 1]`.
    Beta,
    /// LogNormal(mean, stddev of the log) on `(0, inf)`.
    LogNormal,
    /// Gamma(shape, scale) on `[0, inf)`.
    Gamma,
    /// The uniform distribution on `[0, 1]`.
    Uniform01,
}

impl MeasureName {
    /// The measure a comprehension names `text`, or `None`.
    pub fn from_text(text: &str) -> Option<MeasureName> {
        use MeasureName::*;
        [Normal, Exponential, Pareto, Beta, LogNormal, Gamma, Uniform01].into_iter().find(|m| m.text() == text)
    }

    /// The measure's name as a comprehension writes it.
    pub fn text(self) -> &'static str {
        match self {
            MeasureName::Normal => "normal",
            MeasureName::Exponential => "exponential",
            MeasureName::Pareto => "pareto",
            MeasureName::Beta => "beta",
            MeasureName::LogNormal => "log_normal",
            MeasureName::Gamma => "gamma",
            MeasureName::Uniform01 => "uniform01",
        }
    }

    /// The measure's parameters, in the order its call lists them.
    pub fn parameter_names(self) -> &'static [&'static str] {
        match self {
            MeasureName::Normal | MeasureName::LogNormal => &["mean", "stddev"],
            MeasureName::Exponential => &["rate"],
            MeasureName::Pareto => &["scale", "shape"],
            MeasureName::Beta => &["alpha", "beta"],
            MeasureName::Gamma => &["shape", "scale"],
            MeasureName::Uniform01 => &[],
        }
    }

    /// The standard parameters a call without arguments takes.
    pub fn default_params(self) -> &'static [f64] {
        match self {
            MeasureName::Normal | MeasureName::LogNormal => &[0.0, 1.0],
            MeasureName::Exponential => &[1.0],
            MeasureName::Pareto | MeasureName::Beta | MeasureName::Gamma => &[1.0, 1.0],
            MeasureName::Uniform01 => &[],
        }
    }

    /// The parameters the measure draws with: `params`, or the standard
    /// ones when there are none. Refused: a wrong count, a parameter that
    /// is not finite, and (past upstream, which accepts them and draws
    /// nonsense or nothing) a scale, rate or shape that is not positive.
    pub fn resolve_params(self, params: &[f64]) -> Result<Vec<f64>, OrderError> {
        let names = self.parameter_names();
        if params.is_empty() {
            return Ok(self.default_params().to_vec());
        }
        let call = format!("{}({})", self.text(), names.join(", "));
        if params.len() != names.len() {
            return Err(OrderError::Refused(format!(
                "{} takes {} parameter{} ({}); found {}",
                self.text(),
                names.len(),
                if names.len() == 1 { "" } else { "s" },
                names.join(", "),
                params.len()
            )));
        }
        for (name, &value) in names.iter().zip(params) {
            if !value.is_finite() {
                return Err(OrderError::Refused(format!("{call}: {name} must be finite, got {value}")));
            }
            if *name != "mean" && value <= 0.0 {
                return Err(OrderError::Refused(format!("{call}: {name} must be positive, got {value}")));
            }
        }
        Ok(params.to_vec())
    }

    /// The measure's own support under `params` (resolved).
    fn support(self, params: &[f64]) -> Interval {
        let inf = f64::INFINITY;
        let (lo, hi, lo_open, hi_open) = match self {
            MeasureName::Normal => (-inf, inf, true, true),
            MeasureName::Exponential | MeasureName::Gamma => (0.0, inf, false, true),
            MeasureName::Pareto => (params[0], inf, false, true),
            MeasureName::LogNormal => (0.0, inf, true, true),
            MeasureName::Beta | MeasureName::Uniform01 => (0.0, 1.0, false, false),
        };
        Interval { lo, hi, lo_open, hi_open }
    }
}

/// A real interval; an infinite end is always open.
#[derive(Clone, Debug, PartialEq)]
pub struct Interval {
    /// The low end.
    pub lo: f64,
    /// The high end.
    pub hi: f64,
    /// Whether `lo` itself is excluded.
    pub lo_open: bool,
    /// Whether `hi` itself is excluded.
    pub hi_open: bool,
}

impl Interval {
    /// `x` moved off an open end onto the next float inside (an infinite
    /// end has no next float and stays).
    fn inside(&self, x: f64) -> f64 {
        if self.lo_open && x == self.lo && x.is_finite() {
            next_up(x).min(self.hi)
        } else if self.hi_open && x == self.hi && x.is_finite() {
            (-next_up(-x)).max(self.lo)
        } else {
            x
        }
    }
}

/// The measure of a continuous axis.
#[derive(Clone, Debug, PartialEq)]
enum Measure {
    /// Lebesgue measure scaled to the interval.
    Uniform,
    /// A named distribution with its resolved parameters.
    Named(MeasureName, Vec<f64>),
}

/// One continuous axis of a comprehension: its interval and measure.
#[derive(Clone, Debug, PartialEq)]
pub struct ContinuousAxis {
    interval: Interval,
    measure: Measure,
}

impl ContinuousAxis {
    /// The axis of a continuous source: `measure` is `"uniform"` (a float
    /// range without a step, which needs `on`) or one of [`MEASURES`] with
    /// its `params`; `on` is the interval `(lo, hi, inclusive)` written
    /// after it (`lo..hi` excludes `hi`, `lo..=hi` includes it), else the
    /// measure's own support. Refused with the reason: an unknown measure,
    /// bad parameters, an interval that is not finite for the uniform
    /// measure or whose low end is above its high end, and a restricting
    /// interval on which the named measure has no mass.
    pub fn new(measure: &str, params: &[f64], on: Option<(f64, f64, bool)>) -> Result<ContinuousAxis, OrderError> {
        let refused = |message: String| Err(OrderError::Refused(message));
        let interval_of = |(lo, hi, inclusive): (f64, f64, bool)| Interval {
            lo,
            hi,
            lo_open: lo.is_infinite(),
            hi_open: !inclusive || hi.is_infinite(),
        };
        let axis = if measure == "uniform" {
            let Some(on) = on else {
                return refused("a uniform continuous source needs an interval, as in `0.0..1.0`".into());
            };
            if !on.0.is_finite() || !on.1.is_finite() {
                return refused(format!(
                    "the interval {}..{} is not finite, and a uniform measure on it has no total: give it finite ends, or draw from a named measure such as normal(0, 1)",
                    on.0, on.1
                ));
            }
            ContinuousAxis { interval: interval_of(on), measure: Measure::Uniform }
        } else {
            let Some(name) = MeasureName::from_text(measure) else {
                return refused(format!("unknown measure '{measure}'; the measures are {}", MEASURES.join(", ")));
            };
            let params = name.resolve_params(params)?;
            let interval = on.map_or_else(|| name.support(&params), interval_of);
            ContinuousAxis { interval, measure: Measure::Named(name, params) }
        };
        let Interval { lo, hi, lo_open, hi_open } = axis.interval;
        if lo.is_nan() || hi.is_nan() || lo > hi {
            return refused(format!("the interval {lo}..{hi} is empty: its low end is above its high end"));
        }
        if lo == hi && (lo_open || hi_open) {
            return refused(format!(
                "the interval {lo}..{hi} is empty: its high end is excluded (write `{lo}..={hi}` for the one value)"
            ));
        }
        if let (Measure::Named(name, _), Some(f_lo), Some(f_hi)) = (&axis.measure, axis.cdf(lo), axis.cdf(hi)) {
            if lo < hi && f_hi <= f_lo {
                return refused(format!(
                    "{}(...) has no mass on {lo}..{hi}: its support is {}..{}",
                    name.text(),
                    name.support(axis.params()).lo,
                    name.support(axis.params()).hi
                ));
            }
        }
        Ok(axis)
    }

    fn params(&self) -> &[f64] {
        match &self.measure {
            Measure::Named(_, params) => params,
            Measure::Uniform => &[],
        }
    }

    /// The CDF of a named measure at `x` (`None` for the uniform measure,
    /// whose CDF is the interval's).
    fn cdf(&self, x: f64) -> Option<f64> {
        let Measure::Named(name, p) = &self.measure else {
            return None;
        };
        if x.is_nan() {
            return Some(f64::NAN);
        }
        Some(match name {
            MeasureName::Normal => normal_cdf((x - p[0]) / p[1]),
            MeasureName::Exponential if x <= 0.0 => 0.0,
            MeasureName::Exponential => 1.0 - (-p[0] * x).exp(),
            MeasureName::Pareto if x <= p[0] => 0.0,
            MeasureName::Pareto => 1.0 - (p[0] / x).powf(p[1]),
            MeasureName::Beta => regularized_beta(x, p[0], p[1]),
            MeasureName::LogNormal if x <= 0.0 => 0.0,
            MeasureName::LogNormal => normal_cdf((x.ln() - p[0]) / p[1]),
            MeasureName::Gamma if x <= 0.0 => 0.0,
            MeasureName::Gamma => regularized_gamma_p(p[0], x / p[1]),
            MeasureName::Uniform01 => x.clamp(0.0, 1.0),
        })
    }

    /// The quantile of a named measure at `q` in `[0, 1]`.
    fn quantile(name: MeasureName, p: &[f64], q: f64) -> f64 {
        match name {
            MeasureName::Normal => p[0] + p[1] * probit(q),
            MeasureName::Exponential => -(1.0 - q).ln() / p[0],
            MeasureName::Pareto => p[0] / (1.0 - q).powf(1.0 / p[1]),
            MeasureName::Beta => inv_regularized_beta(q, p[0], p[1]),
            MeasureName::LogNormal => (p[0] + p[1] * probit(q)).exp(),
            MeasureName::Gamma => p[1] * inv_regularized_gamma_p(q, p[0]),
            MeasureName::Uniform01 => q.clamp(0.0, 1.0),
        }
    }

    /// The value the unit point `u` in `[0, 1)` stands for on this axis.
    pub fn map_unit(&self, u: f64) -> f64 {
        let iv = &self.interval;
        let x = match &self.measure {
            Measure::Uniform => iv.lo + u * (iv.hi - iv.lo),
            Measure::Named(name, p) => {
                let f_lo = self.cdf(iv.lo).unwrap_or(0.0);
                let f_hi = self.cdf(iv.hi).unwrap_or(1.0);
                let q = Self::quantile(*name, p, f_lo + u * (f_hi - f_lo));
                if q.is_nan() {
                    iv.lo
                } else {
                    q
                }
            }
        };
        iv.inside(x.clamp(iv.lo, iv.hi))
    }

    /// Whether both ends of the interval are finite (`extrema` takes them
    /// as values; a measure on an unbounded support has no such end).
    pub fn is_bounded(&self) -> bool {
        self.interval.lo.is_finite() && self.interval.hi.is_finite()
    }

    /// The value at an end of the interval (the next float inside an open end).
    pub fn endpoint(&self, upper: bool) -> f64 {
        self.interval.inside(if upper { self.interval.hi } else { self.interval.lo })
    }
}

/// The least float above the finite `x` (`f64::next_up`, which this
/// crate's minimum Rust version lacks).
fn next_up(x: f64) -> f64 {
    if x == 0.0 {
        f64::from_bits(1)
    } else if x > 0.0 {
        f64::from_bits(x.to_bits() + 1)
    } else {
        f64::from_bits(x.to_bits() - 1)
    }
}

/// The standard normal CDF as upstream's measures compute it:
/// `½(1 ± P(½, x²/2))` through the regularized lower incomplete gamma.
fn normal_cdf(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x.is_infinite() {
        return if x > 0.0 { 1.0 } else { 0.0 };
    }
    let p = regularized_gamma_p(0.5, x * x / 2.0);
    if x < 0.0 {
        0.5 * (1.0 - p)
    } else {
        0.5 * (1.0 + p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(name: &str, params: &[f64]) -> ContinuousAxis {
        ContinuousAxis::new(name, params, None).unwrap()
    }

    #[test]
    fn the_uniform_measure_is_affine_and_never_returns_an_open_end() {
        let axis = ContinuousAxis::new("uniform", &[], Some((2.0, 4.0, true))).unwrap();
        assert_eq!([0.0, 0.5, 0.25].map(|u| axis.map_unit(u)), [2.0, 3.0, 2.5]);
        assert_eq!(axis.endpoint(true), 4.0);
        let half_open = ContinuousAxis::new("uniform", &[], Some((2.0, 4.0, false))).unwrap();
        assert_eq!(half_open.endpoint(true), f64::from_bits(4.0f64.to_bits() - 1));
        assert_eq!(half_open.endpoint(false), 2.0);
    }

    #[test]
    fn the_next_float_is_one_step_away() {
        assert_eq!(next_up(1.0), 1.0 + f64::EPSILON);
        assert_eq!(-next_up(-1.0), 1.0 - f64::EPSILON / 2.0);
        assert_eq!(next_up(0.0), f64::from_bits(1));
        assert_eq!(next_up(-f64::from_bits(1)), -0.0);
    }

    #[test]
    fn every_named_measure_inverts_its_own_cdf() {
        for (name, params) in [
            ("normal", vec![10.0, 2.0]),
            ("exponential", vec![0.5]),
            ("pareto", vec![2.0, 3.0]),
            ("beta", vec![2.0, 5.0]),
            ("log_normal", vec![0.0, 0.5]),
            ("gamma", vec![2.5, 2.0]),
            ("uniform01", vec![]),
        ] {
            let axis = named(name, &params);
            let Measure::Named(measure, p) = &axis.measure else { unreachable!() };
            for q in [0.05, 0.3, 0.5, 0.8, 0.95] {
                let x = ContinuousAxis::quantile(*measure, p, q);
                let back = axis.cdf(x).unwrap();
                // The probit is the least exact piece (4.5e-4).
                assert!((back - q).abs() < 1e-3, "{name} q={q} x={x} back={back}");
            }
        }
    }

    #[test]
    fn a_named_measure_on_its_support_is_its_quantile() {
        let normal = named("normal", &[0.0, 1.0]);
        assert_eq!(normal.map_unit(0.5), probit(0.5));
        assert_eq!(normal.map_unit(0.975), probit(0.975));
        assert_eq!(named("normal", &[10.0, 2.0]).map_unit(0.5), 10.0 + 2.0 * probit(0.5));
    }

    #[test]
    fn a_named_measure_on_a_narrower_interval_is_restricted_to_it() {
        // Exponential(1) on [0, 1]: u maps to F⁻¹(u · F(1)).
        let axis = ContinuousAxis::new("exponential", &[1.0], Some((0.0, 1.0, true))).unwrap();
        let f1 = 1.0 - (-1.0f64).exp();
        for u in [0.0, 0.25, 0.5, 0.9] {
            let got = axis.map_unit(u);
            assert!((got - -(1.0 - u * f1).ln()).abs() < 1e-12, "u={u} got={got}");
        }
    }

    #[test]
    fn bad_measures_and_intervals_are_refused_with_the_reason() {
        let refused = |m: &str, p: &[f64], on| ContinuousAxis::new(m, p, on).unwrap_err().to_string();
        assert!(refused("normal", &[1.0], None).contains("(mean, stddev); found 1"));
        assert!(refused("normal", &[0.0, -1.0], None).contains("stddev must be positive, got -1"));
        assert!(refused("gamma", &[0.0, 1.0], None).contains("shape must be positive"));
        assert!(refused("normal", &[0.0, f64::NAN], None).contains("must be finite"));
        assert!(refused("weibull", &[], None).contains("unknown measure 'weibull'"));
        assert!(refused("uniform", &[], Some((1.0, 0.0, false))).contains("is empty"));
        assert!(refused("uniform", &[], Some((0.0, 0.0, false))).contains("its high end is excluded"));
        assert!(ContinuousAxis::new("uniform", &[], Some((0.5, 0.5, true))).is_ok(), "0.5..=0.5 holds one value");
        assert!(refused("uniform", &[], Some((0.0, f64::INFINITY, false))).contains("not finite"));
        assert!(refused("exponential", &[1.0], Some((-2.0, -1.0, false))).contains("has no mass on -2..-1"));
        // No arguments: the standard parameters; a Pareto starts at its scale.
        assert_eq!(named("gamma", &[]).params(), &[1.0, 1.0]);
        assert_eq!(named("pareto", &[3.0, 2.0]).endpoint(false), 3.0);
    }
}
