//! Stability family: `is_stable`, which turns a per-cycle signal into a
//! settled level and a steady-state flag. It keeps the most recent
//! `horizon` samples between evaluations (one ring per built node), so its
//! outputs depend on the history of reads: it is nondeterministic.

use crate::node::kit::value_fn;
use crate::node::{konst_or, wire, Lit, NodeDef, Outputs, Purity, Samples, Testing};
use crate::types::PortType::{F64, U64};
use crate::value::Value;
use std::collections::VecDeque;
use std::sync::Mutex;

/// Largest `horizon` (16 Mi samples).
pub const MAX_HORIZON: u64 = 1 << 24;

/// The median of `samples` (not empty; NaNs order as equal, as upstream's sort).
fn median(samples: &VecDeque<f64>) -> f64 {
    let mut sorted: Vec<f64> = samples.iter().copied().collect();
    sorted.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        0.5 * (sorted[n / 2 - 1] + sorted[n / 2])
    }
}

/// Whether `samples` (at least `min_samples` of them) spread by a
/// population standard deviation within `margin * max(|median|, 1)`.
fn steady(samples: &VecDeque<f64>, median: f64, margin: f64, min_samples: u64) -> bool {
    let n = samples.len();
    if (n as u64) < min_samples {
        return false;
    }
    let mean = samples.iter().sum::<f64>() / n as f64;
    let variance = samples.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n as f64;
    variance.sqrt() <= margin * median.abs().max(1.0)
}

/// `is_stable`: the median of the last `horizon` samples, and 1 once they are steady.
pub const IS_STABLE: NodeDef = NodeDef {
    name: "is_stable",
    category: "math",
    doc: "Pushes objective_value onto a ring of the last horizon samples; stable_value is their median, stable is 1 when at least min_samples are held and their standard deviation is within margin * max(|median|, 1).",
    params: &[
        wire("objective_value", F64),
        konst_or("margin", F64, Lit::F64(0.05)),
        konst_or("min_samples", U64, Lit::U64(8)),
        konst_or("horizon", U64, Lit::U64(32)),
    ],
    outputs: Outputs::Named(&[("stable_value", F64), ("stable", U64)]),
    purity: Purity::Nondeterministic,
    build: |c| {
        let (margin, min_samples, horizon) = (c.f64(0), c.u64(1), c.u64(2).max(1));
        if horizon > MAX_HORIZON {
            return Err(format!("is_stable horizon must be at most {MAX_HORIZON}, got {horizon}"));
        }
        let ring = Mutex::new(VecDeque::with_capacity(horizon as usize));
        Ok(value_fn(move |args, outs| {
            let mut ring = ring.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            ring.push_back(args.get(0).as_f64().unwrap_or(0.0));
            while ring.len() as u64 > horizon {
                ring.pop_front();
            }
            let level = median(&ring);
            outs[0] = Value::F64(level);
            outs[1] = Value::U64(u64::from(steady(&ring, level, margin, min_samples)));
            Ok(())
        }))
    },
    testing: Testing {
        samples: &[
            ("margin", Samples::F64(&[0.05, 0.5, 0.0])),
            ("min_samples", Samples::U64(&[8, 1, 4])),
            ("horizon", Samples::U64(&[32, 1, 8])),
        ],
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

    fn node(margin: f64, min_samples: u64, horizon: u64) -> Box<dyn NodeEval> {
        let consts = [Value::F64(margin), Value::U64(min_samples), Value::U64(horizon)];
        (IS_STABLE.build)(&BuildCtx { consts: &consts, wire_types: &[PortType::F64] }).unwrap()
    }

    fn feed(node: &dyn NodeEval, x: f64) -> (f64, u64) {
        let mut out = [Value::None, Value::None];
        node.eval(&Args::new(&[Value::F64(x)], &[0]), &mut out).unwrap();
        (out[0].as_f64().unwrap(), out[1].as_u64().unwrap())
    }

    #[test]
    fn settles_as_upstreams_tests_state() {
        let n = node(0.05, 4, 8);
        for x in [0.0, 1.0, 3.0, 4.5] {
            feed(&*n, x);
        }
        let mut last = (0.0, 0);
        for _ in 0..8 {
            last = feed(&*n, 5.0);
        }
        assert_eq!(last, (5.0, 1), "a steady tail settles at its level");
        assert_eq!(feed(&*n, 0.0), (5.0, 0), "one outlier keeps the median, breaks the steady state");
        let fresh = node(0.05, 4, 8);
        assert_eq!(feed(&*fresh, 5.0).1, 0);
        feed(&*fresh, 5.0);
        assert_eq!(feed(&*fresh, 5.0).1, 0, "3 samples < min_samples");
        assert_eq!(feed(&*fresh, 5.0).1, 1);
        let zero = node(0.05, 4, 8);
        for _ in 0..7 {
            feed(&*zero, 0.0);
        }
        assert_eq!(feed(&*zero, 0.0), (0.0, 1), "a level near zero settles by the absolute floor");
    }
}
