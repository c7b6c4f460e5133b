//! Probability family: hash-driven coins and uniform choice among constant
//! strings. These nodes hash their input themselves.

use crate::node::by_bytes::{pick_str, table_pick, StrTable};
use crate::node::kit::{map1, map2, map3, value_fn};
use crate::node::lower::{FCmp, FOp, Lower, NVal};
use crate::node::{konst, many, wire, wire_any, BuildCtx, NodeDef, NodeError, Outputs, Samples, Testing, Variadic};
use crate::nodes::hash::lower_splitmix64;
use crate::nodes::hash::splitmix64;
use crate::types::PortType::{Str, F64, U64};
use crate::value::Value;
use std::sync::Arc;
use strength_reduce::StrengthReducedU64;

/// `h / 2^64`: a hash as a probability in [0, 1].
#[inline]
fn probability_of(h: u64) -> f64 {
    h as f64 / TWO_TO_64
}

/// 2^64 as f64 (`u64::MAX as f64` rounds up to it).
const TWO_TO_64: f64 = u64::MAX as f64 + 1.0;

/// The native form of `probability_of(splitmix64(x)) < p`, `p` the node's
/// first constant: 1 or 0.
fn lower_hit(l: &mut dyn Lower, c: &BuildCtx<'_>, x: NVal) -> NVal {
    let h = lower_splitmix64(l, x);
    let drawn = l.u64_to_f64(h);
    let scale = l.fconst(TWO_TO_64);
    let probability = l.fop(FOp::Div, drawn, scale);
    let p = l.fconst(c.f64(0));
    l.fcmp(FCmp::Lt, probability, p)
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
            // Upstream's text for this node's bad p.
            return Err(format!("unfair_coin probability p must be in [0.0, 1.0], got {p}"));
        }
        Ok(map1(move |x: u64| u64::from(probability_of(splitmix64(x)) < p)))
    },
    lower: Some(|l, c, x| Some(vec![lower_hit(l, c, x[0])])),
    testing: Testing { samples: &[("p", Samples::F64(&[0.3, 0.0, 0.1, 0.5, 0.9, 1.0]))], ..Testing::BASE },
    ..NodeDef::BASE
};

/// `maybe`: `value`, or absent (`None`) with probability `p`, per key.
///
/// The row is absent exactly when `unfair_coin(key, p)` is 1 (hash(key) /
/// 2^64 < p), so the same key is absent under every engine and output
/// format (a null in Arrow, Parquet and pandas, an empty CSV field, JSON
/// `null`). An absent `value` or `key` gives an absent row as well (the
/// `None` rule); the node's value keeps `value`'s type.
pub const MAYBE: NodeDef = NodeDef {
    name: "maybe",
    category: "probability",
    doc: "value, or absent (None) with probability p, deterministic per key: absent exactly when unfair_coin(key, p) is 1 (hash(key) / 2^64 < p).",
    params: &[wire_any("value"), konst("p", F64), wire("key", U64)],
    outputs: Outputs::SameAsWire(0),
    makes_none: true,
    build: |c| {
        let p = c.f64(0);
        if !(0.0..=1.0).contains(&p) {
            return Err(format!("maybe: p must be in [0, 1], got {p}"));
        }
        Ok(value_fn(move |args, outs| {
            let key = match args.get(1) {
                Value::U64(k) => *k,
                other => return Err(NodeError::new(format!("maybe: key must be a u64, got {other:?}"))),
            };
            outs[0] = if probability_of(splitmix64(key)) < p { Value::None } else { args.get(0).clone() };
            Ok(())
        }))
    },
    testing: Testing { samples: &[("p", Samples::F64(&[0.3, 0.0, 0.5, 1.0]))], ..Testing::BASE },
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
        let values = c.strings(0);
        if values.is_empty() {
            // Upstream builds and its body asserts on every evaluation.
            return Ok(value_fn(|_, _| Err(NodeError::new(ONE_OF_EMPTY))));
        }
        let n = StrengthReducedU64::new(values.len() as u64);
        Ok(pick_str(StrTable::new(values), move |x| (splitmix64(x) % n) as usize))
    },
    warns: |c| c.tail(0).is_empty().then(|| "no values to choose from, so every evaluation of this node fails".into()),
    testing: Testing {
        samples: &[("values", Samples::Str(&["red", "green", "blue", "é", ""]))],
        variadic: Some(Variadic { min: 1, max: 4, last_only: None }),
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// The name of [`PICK_TEXT`].
pub const PICK_TEXT_OP: &str = "__pick_text";

/// `__pick_text`: string number `index` of its strings. The compiler writes
/// it ([`crate::compile::picks`]): a `one_of`, or a `select_str` over
/// literal strings, carries its pick as an index computed by native code,
/// and `generate` copies the strings of a batch of indexes at once.
pub const PICK_TEXT: NodeDef = NodeDef {
    name: PICK_TEXT_OP,
    category: "probability",
    doc: "String number index (from 0) of the given strings; an index past them fails (compiler-synthesized: a pick among literal strings, carried as its index).",
    params: &[wire("index", U64), many(konst("values", Str))],
    outputs: Outputs::One(Str),
    build: |c| {
        let values = c.strings(0);
        Ok(table_pick(StrTable::new(values)))
    },
    ..NodeDef::BASE
};

/// `chance`: the bits of 1.0 with probability p (hash(x) / 2^64 < p), else the bits of 0.0.
pub const CHANCE: NodeDef = NodeDef {
    name: "chance",
    category: "probability",
    doc: "The f64 bit pattern of 1.0 with probability p (hash(x) / 2^64 < p), else that of 0.0, as a u64.",
    params: &[wire("input", U64), konst("p", F64)],
    build: |c| {
        let p = c.f64(0);
        if !(0.0..=1.0).contains(&p) {
            return Err(format!("p must be in [0, 1], got {p}"));
        }
        Ok(map1(move |x: u64| if probability_of(splitmix64(x)) < p { 1.0f64.to_bits() } else { 0.0f64.to_bits() }))
    },
    lower: Some(|l, c, x| {
        let hit = lower_hit(l, c, x[0]);
        let (one, zero) = (l.fconst(1.0), l.fconst(0.0));
        Some(vec![l.select(hit, one, zero)])
    }),
    testing: Testing { samples: &[("p", Samples::F64(&[0.3, 0.0, 0.5, 1.0]))], ..Testing::BASE },
    ..NodeDef::BASE
};

/// `select`: if_true when cond is nonzero, else if_false (u64; both evaluated).
pub const SELECT: NodeDef = NodeDef {
    name: "select",
    category: "probability",
    doc: "if_true when cond is nonzero, else if_false (u64 wires; both are evaluated).",
    params: &[wire("cond", U64), wire("if_true", U64), wire("if_false", U64)],
    build: |_| Ok(map3(|c: u64, a: u64, b: u64| if c != 0 { a } else { b })),
    lower: Some(|l, _, v| Some(vec![l.select(v[0], v[1], v[2])])),
    ..NodeDef::BASE
};

/// `blend`: a * (1 - mix) + b * mix over f64 values carried as u64 bits.
pub const BLEND: NodeDef = NodeDef {
    name: "blend",
    category: "probability",
    doc: "a * (1 - mix) + b * mix, where a, b and the result are f64 bit patterns carried as u64.",
    params: &[wire("a", U64), wire("b", U64), konst("mix", F64)],
    build: |c| {
        let mix = c.f64(0);
        if !(0.0..=1.0).contains(&mix) {
            return Err(format!("mix must be in [0, 1], got {mix}"));
        }
        Ok(map2(move |a: u64, b: u64| {
            let v = f64::from_bits(a) * (1.0 - mix) + f64::from_bits(b) * mix;
            // The result travels as bits: the NaN policy applies to it too.
            crate::node::kit::canonical_f64_bits(v.to_bits())
        }))
    },
    testing: Testing { samples: &[("mix", Samples::F64(&[0.3, 0.0, 0.5, 1.0]))], ..Testing::BASE },
    ..NodeDef::BASE
};

/// A parsed `one_of_weighted` spec: values and cumulative weights (last exactly 1.0).
struct WeightedTable {
    values: Vec<Arc<str>>,
    cumulative: Vec<f64>,
}

/// Parses `"v:w,v:w"` (or `;`) as upstream: every entry `value:weight`
/// with a positive weight, at least one entry.
fn parse_one_of_weighted(spec: &str) -> Result<WeightedTable, String> {
    let (mut values, mut weights) = (Vec::new(), Vec::new());
    for elem in spec.split([';', ',']).map(str::trim).filter(|e| !e.is_empty()) {
        let Some((value, weight)) = elem.split_once(':') else {
            return Err(format!("one_of_weighted: expected 'value:weight', got '{elem}'"));
        };
        let w: f64 = weight.parse().map_err(|e| format!("one_of_weighted: invalid weight: {e:?}"))?;
        // `!(w > 0.0)` so that a NaN weight is refused, as upstream's assert does.
        if w.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
            return Err(format!("one_of_weighted: weight must be positive, got {w}"));
        }
        values.push(Arc::from(value));
        weights.push(w);
    }
    if values.is_empty() {
        return Err("one_of_weighted: spec must be non-empty".into());
    }
    let total: f64 = weights.iter().fold(0.0, |a, w| a + w);
    if total.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        return Err("one_of_weighted: total weight must be > 0".into());
    }
    let mut running = 0.0;
    let mut cumulative: Vec<f64> = weights
        .iter()
        .map(|w| {
            running += w / total;
            running
        })
        .collect();
    *cumulative.last_mut().expect("non-empty") = 1.0;
    Ok(WeightedTable { values, cumulative })
}

/// `one_of_weighted`: a value of `"v:w,v:w"` chosen by weight: the first cumulative share >= hash(x) / 2^64.
pub const ONE_OF_WEIGHTED: NodeDef = NodeDef {
    name: "one_of_weighted",
    category: "probability",
    doc:
        "A value of the spec \"value:weight,...\" chosen with probability proportional to its weight (hashes x itself).",
    params: &[wire("input", U64), konst("spec", Str)],
    outputs: Outputs::One(Str),
    build: |c| {
        let WeightedTable { values, cumulative } = parse_one_of_weighted(c.str(0))?;
        let last = values.len() - 1;
        Ok(pick_str(StrTable::new(values), move |x| {
            let unit = probability_of(splitmix64(x));
            // The cumulative shares are finite and sorted: the partition point is upstream's binary search.
            cumulative.partition_point(|&c| c < unit).min(last)
        }))
    },
    testing: Testing {
        samples: &[("spec", Samples::Str(&["red:60,blue:30,green:10", "only:1", "a:1;b:2;é:3"]))],
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// The probability family.
pub const NODES: &[NodeDef] =
    &[FAIR_COIN, UNFAIR_COIN, MAYBE, ONE_OF, PICK_TEXT, CHANCE, SELECT, BLEND, ONE_OF_WEIGHTED];

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
    fn maybe_is_absent_exactly_where_the_unfair_coin_fires() {
        let maybe = |p: f64, v: Value, key: u64| eval1(&MAYBE, &[Value::F64(p)], &[v, Value::U64(key)]);
        let mut absent = 0;
        for key in 0..10_000u64 {
            let out = maybe(0.2, Value::str("x"), key);
            assert_eq!(out.is_none(), coin(0.2, key) == 1, "key {key}");
            if !out.is_none() {
                assert!(out.same(&Value::str("x")), "a present row is the value itself");
            }
            absent += u64::from(out.is_none());
        }
        assert!((1_850..2_150).contains(&absent), "{absent}");
        for key in [0, 1, u64::MAX] {
            assert!(maybe(0.0, Value::U64(7), key).same(&Value::U64(7)), "p = 0 never drops a row");
            assert!(maybe(1.0, Value::U64(7), key).is_none(), "p = 1 drops every row");
        }
        assert_eq!(build_err(&MAYBE, &[Value::F64(1.5)], &[U64, U64]), "maybe: p must be in [0, 1], got 1.5");
    }

    #[test]
    fn unfair_coin_refuses_bad_p() {
        for p in [-0.1, 1.5, f64::NAN, f64::INFINITY] {
            let text = format!("unfair_coin probability p must be in [0.0, 1.0], got {p}");
            assert_eq!(build_err(&UNFAIR_COIN, &[Value::F64(p)], &[U64]), text);
        }
        // Upstream's wording, word for word.
        assert_eq!(
            build_err(&UNFAIR_COIN, &[Value::F64(1.5)], &[U64]),
            "unfair_coin probability p must be in [0.0, 1.0], got 1.5"
        );
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

    #[test]
    fn chance_returns_float_bits() {
        let c = |p: f64, x: u64| eval1(&CHANCE, &[Value::F64(p)], &[Value::U64(x)]).as_u64().unwrap();
        for x in 0..50 {
            assert_eq!(c(0.0, x), 0.0f64.to_bits());
            assert_eq!(c(1.0, x), 1.0f64.to_bits());
            let want = if probability_of(splitmix64(x)) < 0.3 { 1.0f64 } else { 0.0 };
            assert_eq!(c(0.3, x), want.to_bits());
        }
        assert_eq!(build_err(&CHANCE, &[Value::F64(1.5)], &[U64]), "p must be in [0, 1], got 1.5");
    }

    #[test]
    fn select_and_blend() {
        let s = |c: u64| eval1(&SELECT, &[], &[Value::U64(c), Value::U64(100), Value::U64(200)]).as_u64().unwrap();
        assert_eq!((s(1), s(0), s(999)), (100, 200, 100));
        let b = |mix: f64, a: f64, bb: f64| {
            let v = eval1(&BLEND, &[Value::F64(mix)], &[Value::U64(a.to_bits()), Value::U64(bb.to_bits())]);
            f64::from_bits(v.as_u64().unwrap())
        };
        assert_eq!(b(0.0, 10.0, 20.0), 10.0);
        assert_eq!(b(1.0, 10.0, 20.0), 20.0);
        assert_eq!(b(0.5, 10.0, 20.0), 15.0);
        assert_eq!(b(0.25, 0.0, 100.0), 25.0);
        assert_eq!(b(0.5, f64::INFINITY, f64::NEG_INFINITY).to_bits(), crate::node::kit::CANONICAL_NAN_F64);
        assert_eq!(build_err(&BLEND, &[Value::F64(-0.1)], &[U64, U64]), "mix must be in [0, 1], got -0.1");
    }

    #[test]
    fn one_of_weighted_follows_the_cumulative_shares() {
        let spec = [Value::str("heavy:90,light:10")];
        let mut heavy = 0;
        for x in 0..10_000u64 {
            let v = eval1(&ONE_OF_WEIGHTED, &spec, &[Value::U64(x)]);
            let want = if probability_of(splitmix64(x)) <= 0.9 { "heavy" } else { "light" };
            assert_eq!(v.as_str(), Some(want));
            heavy += u64::from(want == "heavy");
        }
        assert!((8_800..9_200).contains(&heavy), "{heavy}");
        let only = eval1(&ONE_OF_WEIGHTED, &[Value::str("only:1")], &[Value::U64(u64::MAX)]);
        assert_eq!(only.as_str(), Some("only"));
        let semi = eval1(&ONE_OF_WEIGHTED, &[Value::str(" x:50 ; y:50 ;")], &[Value::U64(3)]);
        assert!(matches!(semi.as_str(), Some("x" | "y")));
    }

    #[test]
    fn one_of_weighted_refusals_are_upstreams() {
        let err = |spec: &str| build_err(&ONE_OF_WEIGHTED, &[Value::str(spec)], &[U64]);
        assert_eq!(err(""), "one_of_weighted: spec must be non-empty");
        assert_eq!(err("noweight"), "one_of_weighted: expected 'value:weight', got 'noweight'");
        assert_eq!(err("a:x"), "one_of_weighted: invalid weight: ParseFloatError { kind: Invalid }");
        assert_eq!(err("a:0"), "one_of_weighted: weight must be positive, got 0");
        assert_eq!(err("a:NaN"), "one_of_weighted: weight must be positive, got NaN");
    }
}
