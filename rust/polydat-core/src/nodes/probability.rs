//! Probability family: hash-driven coins and uniform choice among constant
//! strings. These nodes hash their input themselves.

use crate::node::kit::{map1, to_ref, value_fn};
use crate::node::lower::{FCmp, FOp};
use crate::node::{konst, many, wire, NodeDef, NodeError, Outputs};
use crate::nodes::hash::lower_splitmix64;
use crate::nodes::hash::splitmix64;
use crate::types::PortType::{Str, F64, U64};
use std::sync::Arc;

/// `h / 2^64`: a hash as a probability in [0, 1].
#[inline]
fn probability_of(h: u64) -> f64 {
    h as f64 / (u64::MAX as f64 + 1.0)
}

/// `fair_coin`: 0 or 1 with equal odds: the low bit of hash(x).
pub const FAIR_COIN: NodeDef = NodeDef {
    name: "fair_coin",
    category: "probability",
    doc: "0 or 1 with equal odds: the low bit of hash(x).",
    params: &[wire("input", U64)],
    build: |_| Ok(map1(|x: u64| splitmix64(x) & 1)),
    lower: Some(|l, _, x| {
        let h = lower_splitmix64(l, x[0]);
        let one = l.iconst(1);
        Some(vec![l.band(h, one)])
    }),
    ..NodeDef::BASE
};

/// `unfair_coin`: 1 with probability p (hash(x) / 2^64 < p), else 0.
pub const UNFAIR_COIN: NodeDef = NodeDef {
    name: "unfair_coin",
    category: "probability",
    doc: "1 with probability p (hash(x) / 2^64 < p), else 0.",
    params: &[wire("input", U64), konst("p", F64)],
    build: |c| {
        let p = c.f64(0);
        if !(0.0..=1.0).contains(&p) {
            // Upstream's declared RangeF64 { min: 0, max: 1 } constraint text.
            return Err(format!("p must be in [0, 1], got {p}"));
        }
        Ok(map1(move |x: u64| u64::from(probability_of(splitmix64(x)) < p)))
    },
    lower: Some(|l, c, x| {
        let h = lower_splitmix64(l, x[0]);
        let f = l.u64_to_f64(h);
        let scale = l.fconst(u64::MAX as f64 + 1.0);
        let u = l.fop(FOp::Div, f, scale);
        let p = l.fconst(c.f64(0));
        Some(vec![l.fcmp(FCmp::Lt, u, p)])
    }),
    ..NodeDef::BASE
};

/// Upstream's failure text for `one_of` with no values.
pub const ONE_OF_EMPTY: &str = "one_of: values must be non-empty";

/// `one_of`: One of the given strings, chosen by hash(x) % count.
pub const ONE_OF: NodeDef = NodeDef {
    name: "one_of",
    category: "probability",
    doc: "One of the given strings, chosen by hash(x) % count; with no strings every evaluation fails.",
    params: &[wire("input", U64), many(konst("values", Str))],
    outputs: Outputs::One(Str),
    build: |c| {
        let values: Vec<Arc<str>> = c.tail(0).iter().map(|v| Arc::from(v.as_str().unwrap_or(""))).collect();
        if values.is_empty() {
            // Upstream builds and its body asserts on every evaluation.
            return Ok(value_fn(|_, _| Err(NodeError::new(ONE_OF_EMPTY))));
        }
        let n = values.len() as u64;
        Ok(to_ref(move |x: u64| values[(splitmix64(x) % n) as usize].clone()))
    },
    warns: |c| c.tail(0).is_empty().then(|| "no values to choose from, so every evaluation of this node fails".into()),
    ..NodeDef::BASE
};

/// The probability family.
pub const NODES: &[NodeDef] = &[FAIR_COIN, UNFAIR_COIN, ONE_OF];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::{build_err, eval1, eval_err};
    use crate::value::Value;

    fn coin(p: f64, x: u64) -> u64 {
        eval1(&UNFAIR_COIN, &[Value::F64(p)], &[Value::U64(x)]).as_u64().unwrap()
    }

    #[test]
    fn fair_coin_is_low_hash_bit() {
        for x in [0, 1, 2, 42, u64::MAX] {
            let v = eval1(&FAIR_COIN, &[], &[Value::U64(x)]).as_u64().unwrap();
            assert_eq!(v, splitmix64(x) & 1);
        }
        let heads: u64 = (0..10_000).map(|x| eval1(&FAIR_COIN, &[], &[Value::U64(x)]).as_u64().unwrap()).sum();
        assert!((4_800..5_200).contains(&heads), "{heads}");
    }

    #[test]
    fn unfair_coin_edges() {
        for x in [0, 1, u64::MAX] {
            assert_eq!(coin(0.0, x), 0, "p = 0 never fires");
            assert_eq!(coin(1.0, x), 1, "p = 1 always fires");
        }
        // splitmix64(0) / 2^64 is about 0.883.
        assert_eq!(coin(0.88, 0), 0);
        assert_eq!(coin(0.89, 0), 1);
        let hits: u64 = (0..10_000).map(|x| coin(0.25, x)).sum();
        assert!((2_300..2_700).contains(&hits), "{hits}");
    }

    #[test]
    fn unfair_coin_refuses_bad_p() {
        for p in [-0.1, 1.5, f64::NAN, f64::INFINITY] {
            assert_eq!(build_err(&UNFAIR_COIN, &[Value::F64(p)], &[U64]), format!("p must be in [0, 1], got {p}"));
        }
        assert_eq!(build_err(&UNFAIR_COIN, &[Value::F64(1.5)], &[U64]), "p must be in [0, 1], got 1.5");
        assert_eq!(coin(-0.0, 0), 0);
    }

    #[test]
    fn one_of_picks_by_hash() {
        let vals = [Value::str("red"), Value::str("green"), Value::str("blue")];
        for x in [0, 7, u64::MAX] {
            let v = eval1(&ONE_OF, &vals, &[Value::U64(x)]);
            let want = vals[(splitmix64(x) % 3) as usize].as_str();
            assert_eq!(v.as_str(), want);
        }
        let v = eval1(&ONE_OF, &[Value::str("only")], &[Value::U64(u64::MAX)]);
        assert_eq!(v.as_str(), Some("only"));
    }

    #[test]
    fn one_of_without_values_fails_each_evaluation() {
        // Upstream probability.rs: the body asserts "values must be non-empty" on eval.
        assert_eq!(eval_err(&ONE_OF, &[], &[Value::U64(3)]), "one_of: values must be non-empty");
    }
}
