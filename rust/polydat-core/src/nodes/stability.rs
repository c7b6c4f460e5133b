//! Stability family: `is_stable`, which reads a window of samples (a
//! `vec_f64` list) and gives
//! its settled level and a steady-state flag. The host keeps the window (it
//! appends each new sample and drops the oldest) and passes it whole, so the
//! node is a pure function of its inputs: both outputs agree on every engine
//! and on every read.

use crate::node::kit::value_fn;
use crate::node::{konst_or, wire, Lit, NodeDef, Outputs, Samples, Testing};
use crate::types::PortType::{Vector, F64, U64};
use crate::types::VectorType;
use crate::value::Value;

/// The median of `samples` (not empty), ordered by `f64::total_cmp`.
fn median(samples: &[f64]) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        0.5 * (sorted[n / 2 - 1] + sorted[n / 2])
    }
}

/// The window's level (its median; 0 for an empty window) and whether it is
/// steady: at least `min_samples` samples whose population standard
/// deviation is within `margin * max(|median|, 1)`.
pub fn settle(samples: &[f64], margin: f64, min_samples: u64) -> (f64, bool) {
    if samples.is_empty() {
        return (0.0, false);
    }
    let level = median(samples);
    let n = samples.len();
    if (n as u64) < min_samples {
        return (level, false);
    }
    let mean = samples.iter().sum::<f64>() / n as f64;
    let variance = samples.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n as f64;
    (level, variance.sqrt() <= margin * level.abs().max(1.0))
}

/// `is_stable`: the median of a window of samples, and 1 when the window is steady.
pub const IS_STABLE: NodeDef = NodeDef {
    name: "is_stable",
    category: "math",
    doc: "Reads a window of samples (a vec_f64 list the host keeps, e.g. str_to_vec_f64 of its JSON text); stable_value is their median (0 for an empty window), stable is 1 when the window holds at least min_samples and their standard deviation is within margin * max(|median|, 1).",
    params: &[wire("samples", Vector(VectorType::F64)), konst_or("margin", F64, Lit::F64(0.05)), konst_or("min_samples", U64, Lit::U64(8))],
    outputs: Outputs::Named(&[("stable_value", F64), ("stable", U64)]),
    build: |c| {
        let (margin, min_samples) = (c.f64(0), c.u64(1));
        Ok(value_fn(move |args, outs| {
            let samples = match args.get(0) {
                Value::Vector(ty, bytes) => crate::vector::floats(*ty, bytes).unwrap_or_default(),
                _ => Vec::new(),
            };
            let (level, steady) = settle(&samples, margin, min_samples);
            outs[0] = Value::F64(level);
            outs[1] = Value::U64(u64::from(steady));
            Ok(())
        }))
    },
    testing: Testing {
        samples: &[("margin", Samples::F64(&[0.05, 0.5, 0.0])), ("min_samples", Samples::U64(&[8, 1, 4]))],
        corner_call: Some("is_stable(str_to_vec_f64(json_array(x, y, y) as str), 0.05, 2)"),
        fallible: true,
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// The family's nodes, in catalog order.
pub const NODES: &[NodeDef] = &[IS_STABLE];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::{Args, BuildCtx, NodeEval};
    use crate::types::PortType;

    fn node(margin: f64, min_samples: u64) -> Box<dyn NodeEval> {
        let consts = [Value::F64(margin), Value::U64(min_samples)];
        (IS_STABLE.build)(&BuildCtx { consts: &consts, wire_types: &[PortType::Vector(VectorType::F64)] }).unwrap()
    }

    fn eval(node: &dyn NodeEval, samples: &str) -> Result<(f64, u64), String> {
        let mut out = [Value::None, Value::None];
        let window = crate::vector::parse(VectorType::F64, samples).map_err(|e| e.to_string())?;
        node.eval(&Args::new(&[window], &[0]), &mut out).map_err(|e| e.message().to_string())?;
        Ok((out[0].as_f64().unwrap(), out[1].as_u64().unwrap()))
    }

    #[test]
    fn a_window_settles_as_upstreams_tests_state() {
        let n = node(0.05, 4);
        assert_eq!(eval(&*n, "[0, 1, 3, 4.5, 5, 5, 5, 5]").unwrap().1, 0, "a window with the ramp is not steady");
        assert_eq!(eval(&*n, "[5, 5, 5, 5, 5, 5, 5, 5]").unwrap(), (5.0, 1));
        assert_eq!(eval(&*n, "[5, 5, 5, 5, 5, 5, 5, 0]").unwrap(), (5.0, 0), "one outlier keeps the median");
        assert_eq!(eval(&*n, "[5, 5, 5]").unwrap(), (5.0, 0), "3 samples < min_samples");
        assert_eq!(eval(&*n, "[5, 5, 5, 5]").unwrap(), (5.0, 1));
        assert_eq!(eval(&*n, "[0, 0, 0, 0, 0, 0, 0, 0]").unwrap(), (0.0, 1), "a level near zero settles");
        let one = node(0.05, 1);
        assert_eq!(eval(&*one, "[]").unwrap(), (0.0, 0), "an empty window");
        assert_eq!(eval(&*one, "[1, 4, 2, 3]").unwrap().0, 2.5, "an even window's median");
        assert_eq!(eval(&*n, "[5, 5, 5, 5]").unwrap(), (5.0, 1), "no history: the same window, the same answer");
    }
}
