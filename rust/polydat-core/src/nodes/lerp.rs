//! Interpolation family: the u64-to-unit projection, f64 clamping, linear
//! interpolation and its inverse, range remapping and quantization.

use crate::node::kit::{map1, try_map1};
use crate::node::lower::{FCmp, FOp, Lower, NVal};
use crate::node::{konst_or, wire, Lit, NodeDef, Outputs, Samples, Testing};
use crate::nodes::hash::{lower_unit_f64, unit_f64};
use crate::types::PortType::{F64, U64};

/// `unit_interval`: x / u64::MAX as f64 (0 gives 0.0; values near u64::MAX give exactly 1.0).
pub const UNIT_INTERVAL: NodeDef = NodeDef {
    name: "unit_interval",
    category: "lerp",
    doc: "x / u64::MAX as f64 (0 gives 0.0; values near u64::MAX give exactly 1.0).",
    params: &[wire("input", U64)],
    outputs: Outputs::One(F64),
    build: |_| Ok(map1(unit_f64)),
    lower: Some(|l, _, x| Some(vec![lower_unit_f64(l, x[0])])),
    ..NodeDef::BASE
};

/// `clamp_f64`: f64::clamp of x to [min, max] (NaN stays NaN).
pub const CLAMP_F64: NodeDef = NodeDef {
    name: "clamp_f64",
    category: "lerp",
    doc: "f64::clamp of x to [min, max] (NaN stays NaN); bounds with min > max or a NaN fail every evaluation.",
    params: &[wire("input", F64), konst_or("min", F64, Lit::F64(f64::MIN)), konst_or("max", F64, Lit::F64(f64::MAX))],
    outputs: Outputs::One(F64),
    build: |c| {
        let (lo, hi) = (c.f64(0), c.f64(1));
        // Upstream builds with any bounds and `f64::clamp` panics in the
        // body on every evaluation; fail the same way, in Rust's words.
        if lo.is_nan() || hi.is_nan() || lo > hi {
            let msg = format!("min > max, or either was NaN. min = {lo:?}, max = {hi:?}");
            return Ok(try_map1(move |_: f64| Err::<f64, _>(msg.clone())));
        }
        Ok(map1(move |x: f64| x.clamp(lo, hi)))
    },
    warns: |c| {
        let (lo, hi) = (c.f64(0), c.f64(1));
        (lo.is_nan() || hi.is_nan() || lo > hi)
            .then(|| "min is greater than max (or a bound is NaN), so every evaluation of this node fails".into())
    },
    lower: Some(|l, c, x| {
        let (lo, hi) = (c.f64(0), c.f64(1));
        if lo.is_nan() || hi.is_nan() || lo > hi {
            return None;
        }
        Some(vec![lower_clamp(l, x[0], lo, hi)])
    }),
    // Every min sample is below every max sample.
    testing: Testing {
        samples: &[("min", Samples::F64(&[-1.0, -0.0, 0.0, -1e6])), ("max", Samples::F64(&[0.5, 1.0, 1e6]))],
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `lerp`: a + t * (b - a), unclamped.
pub const LERP: NodeDef = NodeDef {
    name: "lerp",
    category: "lerp",
    doc: "a + t * (b - a), unclamped.",
    params: &[wire("t", F64), konst_or("a", F64, Lit::F64(0.0)), konst_or("b", F64, Lit::F64(1.0))],
    outputs: Outputs::One(F64),
    build: |c| {
        let (a, b) = (c.f64(0), c.f64(1));
        Ok(map1(move |t: f64| a + t * (b - a)))
    },
    lower: Some(|l, c, x| {
        let (a, b) = (c.f64(0), c.f64(1));
        let span = l.fconst(b - a);
        let scaled = l.fop(FOp::Mul, x[0], span);
        let a = l.fconst(a);
        Some(vec![l.fop(FOp::Add, a, scaled)])
    }),
    ..NodeDef::BASE
};

/// `scale_range`: min + (x / u64::MAX) * (max - min): a u64 mapped onto [min, max].
pub const SCALE_RANGE: NodeDef = NodeDef {
    name: "scale_range",
    category: "lerp",
    doc: "min + (x / u64::MAX) * (max - min): a u64 mapped onto [min, max].",
    params: &[wire("input", U64), konst_or("min", F64, Lit::F64(0.0)), konst_or("max", F64, Lit::F64(1.0))],
    outputs: Outputs::One(F64),
    build: |c| {
        let (lo, hi) = (c.f64(0), c.f64(1));
        Ok(map1(move |x: u64| lo + unit_f64(x) * (hi - lo)))
    },
    lower: Some(|l, c, x| {
        let (lo, hi) = (c.f64(0), c.f64(1));
        let u = lower_unit_f64(l, x[0]);
        let span = l.fconst(hi - lo);
        let scaled = l.fop(FOp::Mul, u, span);
        let lo = l.fconst(lo);
        Some(vec![l.fop(FOp::Add, lo, scaled)])
    }),
    ..NodeDef::BASE
};

/// `inv_lerp`: (x - a) * (1 / (b - a)) clamped to [0, 1].
pub const INV_LERP: NodeDef = NodeDef {
    name: "inv_lerp",
    category: "lerp",
    doc: "(x - a) * (1 / (b - a)) clamped to [0, 1].",
    params: &[wire("input", F64), konst_or("a", F64, Lit::F64(0.0)), konst_or("b", F64, Lit::F64(1.0))],
    outputs: Outputs::One(F64),
    build: |c| {
        let (a, b) = (c.f64(0), c.f64(1));
        // Upstream multiplies by the reciprocal of the span (not a divide):
        // the result can differ from `(x - a) / (b - a)` in the last bit.
        let inv_span = 1.0 / (b - a);
        Ok(map1(move |x: f64| ((x - a) * inv_span).clamp(0.0, 1.0)))
    },
    lower: Some(|l, c, x| {
        let (a, b) = (c.f64(0), c.f64(1));
        let inv_span = l.fconst(1.0 / (b - a));
        let a = l.fconst(a);
        let offset = l.fop(FOp::Sub, x[0], a);
        let t = l.fop(FOp::Mul, offset, inv_span);
        Some(vec![lower_clamp(l, t, 0.0, 1.0)])
    }),
    ..NodeDef::BASE
};

/// `remap`: x mapped linearly from [in_min, in_max] onto [out_min, out_max], unclamped.
pub const REMAP: NodeDef = NodeDef {
    name: "remap",
    category: "lerp",
    doc: "x mapped linearly from [in_min, in_max] onto [out_min, out_max], unclamped.",
    params: &[
        wire("input", F64),
        konst_or("in_min", F64, Lit::F64(0.0)),
        konst_or("in_max", F64, Lit::F64(1.0)),
        konst_or("out_min", F64, Lit::F64(0.0)),
        konst_or("out_max", F64, Lit::F64(1.0)),
    ],
    outputs: Outputs::One(F64),
    build: |c| {
        let (i0, i1, o0, o1) = (c.f64(0), c.f64(1), c.f64(2), c.f64(3));
        Ok(map1(move |x: f64| o0 + (x - i0) / (i1 - i0) * (o1 - o0)))
    },
    lower: Some(|l, c, x| {
        let (i0, i1, o0, o1) = (c.f64(0), c.f64(1), c.f64(2), c.f64(3));
        let i0v = l.fconst(i0);
        let offset = l.fop(FOp::Sub, x[0], i0v);
        let in_span = l.fconst(i1 - i0);
        let t = l.fop(FOp::Div, offset, in_span);
        let out_span = l.fconst(o1 - o0);
        let scaled = l.fop(FOp::Mul, t, out_span);
        let o0 = l.fconst(o0);
        Some(vec![l.fop(FOp::Add, o0, scaled)])
    }),
    ..NodeDef::BASE
};

/// `quantize`: x snapped to the nearest multiple of step (halves away from zero).
pub const QUANTIZE: NodeDef = NodeDef {
    name: "quantize",
    category: "lerp",
    doc: "x snapped to the nearest multiple of step (halves away from zero).",
    params: &[wire("input", F64), konst_or("step", F64, Lit::F64(1.0))],
    outputs: Outputs::One(F64),
    build: |c| {
        let step = c.f64(0);
        Ok(map1(move |x: f64| (x / step).round() * step))
    },
    testing: Testing { samples: &[("step", Samples::F64(&[1.0, 0.25, 0.1, 10.0, 3.0]))], ..Testing::BASE },
    ..NodeDef::BASE
};

/// `f64::clamp(x, lo, hi)` for `lo <= hi` in native code: two compares, so
/// -0.0 and NaN pass through as the rule passes them (no min/max instructions).
fn lower_clamp(l: &mut dyn Lower, x: NVal, lo: f64, hi: f64) -> NVal {
    let (lo, hi) = (l.fconst(lo), l.fconst(hi));
    let below = l.fcmp(FCmp::Lt, x, lo);
    let raised = l.select(below, lo, x);
    let above = l.fcmp(FCmp::Gt, raised, hi);
    let clamped = l.select(above, hi, raised);
    l.canonical(clamped)
}

/// The interpolation family.
pub const NODES: &[NodeDef] = &[UNIT_INTERVAL, CLAMP_F64, LERP, SCALE_RANGE, INV_LERP, REMAP, QUANTIZE];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::{eval1, eval_err};
    use crate::value::Value;

    fn f(def: &NodeDef, consts: &[f64], x: f64) -> f64 {
        let consts: Vec<Value> = consts.iter().map(|&c| Value::F64(c)).collect();
        eval1(def, &consts, &[Value::F64(x)]).as_f64().unwrap()
    }

    fn fu(def: &NodeDef, consts: &[f64], x: u64) -> f64 {
        let consts: Vec<Value> = consts.iter().map(|&c| Value::F64(c)).collect();
        eval1(def, &consts, &[Value::U64(x)]).as_f64().unwrap()
    }

    #[test]
    fn unit_interval_edges() {
        assert_eq!(fu(&UNIT_INTERVAL, &[], 0).to_bits(), 0.0f64.to_bits());
        assert_eq!(fu(&UNIT_INTERVAL, &[], u64::MAX), 1.0);
        assert_eq!(fu(&UNIT_INTERVAL, &[], u64::MAX - 1000), 1.0, "rounds to exactly 1.0 near the top");
        assert_eq!(fu(&UNIT_INTERVAL, &[], 1 << 63), 0.5);
    }

    #[test]
    fn clamp_f64_keeps_std_semantics() {
        assert_eq!(f(&CLAMP_F64, &[0.0, 1.0], 2.0), 1.0);
        assert_eq!(f(&CLAMP_F64, &[0.0, 1.0], f64::NEG_INFINITY), 0.0);
        assert!(f(&CLAMP_F64, &[0.0, 1.0], f64::NAN).is_nan());
        assert_eq!(f(&CLAMP_F64, &[0.0, 1.0], -0.0).to_bits(), (-0.0f64).to_bits(), "-0.0 is within [0, 1]");
        assert_eq!(f(&CLAMP_F64, &[], f64::INFINITY), f64::MAX, "defaults are the finite extremes");
        assert_eq!(f(&CLAMP_F64, &[], -1e308), -1e308);
    }

    #[test]
    fn clamp_f64_bad_bounds_fail_each_evaluation_in_rusts_words() {
        // Upstream (sampling/icd.rs) builds with any bounds; `f64::clamp` panics in the body.
        let e = eval_err(&CLAMP_F64, &[Value::F64(2.0), Value::F64(1.0)], &[Value::F64(0.5)]);
        assert_eq!(e, "min > max, or either was NaN. min = 2.0, max = 1.0");
        let e = eval_err(&CLAMP_F64, &[Value::F64(f64::NAN), Value::F64(1.0)], &[Value::F64(0.5)]);
        assert_eq!(e, "min > max, or either was NaN. min = NaN, max = 1.0");
        assert_eq!(f(&CLAMP_F64, &[-0.0, 0.0], 5.0), 0.0, "-0.0 <= 0.0 is a valid range");
    }

    #[test]
    fn lerp_and_scale_range() {
        assert_eq!(f(&LERP, &[], 0.25), 0.25);
        assert_eq!(f(&LERP, &[10.0, 20.0], 0.0), 10.0);
        assert_eq!(f(&LERP, &[10.0, 20.0], 1.0), 20.0);
        assert_eq!(f(&LERP, &[10.0, 20.0], 2.0), 30.0, "extrapolates");
        assert!(f(&LERP, &[0.0, 1.0], f64::NAN).is_nan());
        assert_eq!(fu(&SCALE_RANGE, &[10.0, 20.0], 0), 10.0);
        assert_eq!(fu(&SCALE_RANGE, &[10.0, 20.0], u64::MAX), 20.0);
        assert_eq!(fu(&SCALE_RANGE, &[], 1 << 63), 0.5);
    }

    #[test]
    fn inv_lerp_clamps_and_remap_does_not() {
        assert_eq!(f(&INV_LERP, &[10.0, 20.0], 15.0), 0.5);
        assert_eq!(f(&INV_LERP, &[10.0, 20.0], -50.0), 0.0);
        assert_eq!(f(&INV_LERP, &[10.0, 20.0], f64::INFINITY), 1.0);
        assert_eq!(f(&INV_LERP, &[20.0, 10.0], 12.0), 0.8, "reversed ranges work");
        assert!(f(&INV_LERP, &[5.0, 5.0], 5.0).is_nan(), "0/0 stays NaN through clamp");
        assert_eq!(f(&INV_LERP, &[5.0, 5.0], 6.0), 1.0);
        assert_eq!(f(&REMAP, &[32.0, 212.0, 0.0, 100.0], 212.0), 100.0);
        assert_eq!(f(&REMAP, &[32.0, 212.0, 0.0, 100.0], 32.0), 0.0);
        assert_eq!(f(&REMAP, &[0.0, 1.0, 0.0, 10.0], 2.0), 20.0);
        assert_eq!(f(&REMAP, &[], 0.75), 0.75);
    }

    #[test]
    fn inv_lerp_multiplies_by_the_reciprocal_span_as_upstream() {
        // Upstream lerp.rs: t = (input - a) * (1.0 / (b - a)); a divide gives 0.3 here.
        assert_eq!(f(&INV_LERP, &[0.0, 10.0], 3.0).to_bits(), 0x3fd3_3333_3333_3334);
        assert_eq!(f(&INV_LERP, &[32.0, 212.0], 72.0).to_bits(), 0.22222222222222224f64.to_bits());
    }

    #[test]
    fn quantize_rounds_to_step() {
        assert_eq!(f(&QUANTIZE, &[10.0], 15.0), 20.0);
        assert_eq!(f(&QUANTIZE, &[10.0], -15.0), -20.0);
        assert_eq!(f(&QUANTIZE, &[10.0], 14.9), 10.0);
        assert_eq!(f(&QUANTIZE, &[], 2.5), 3.0);
        assert_eq!(f(&QUANTIZE, &[0.25], 1.3), 1.25);
        assert!(f(&QUANTIZE, &[0.0], 1.0).is_nan(), "a zero step is not refused: inf * 0");
    }
}
