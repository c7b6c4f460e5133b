//! Fixed-value family: constants as nodes (`const_u64`, `const_f64`,
//! `const_bool`, `const_str`), a choice by index among constant values
//! (`fixed_values_*`, the input taken modulo the list's length), and
//! `coin_flip`, a boolean true below a threshold set by a probability.

use crate::node::by_bytes::{pick_str, StrTable};
use crate::node::kit::{map1, value_fn};
use crate::node::lower::ICmp;
use crate::node::{konst, konst_or, many, wire, BuildCtx, Lit, NodeDef, NodeError, Outputs, Testing, Variadic};
use crate::nodes::convert::LITERAL;
use crate::types::PortType::{Bool, Str, F64, U64};
use std::sync::Arc;

/// Declares a constant node over the literal node's rule and native form.
macro_rules! constant {
    ($id:ident, $name:literal, $doc:literal, $param:expr, $ty:expr) => {
        /// A constant node (see its `name` and `doc` fields).
        pub const $id: NodeDef = NodeDef {
            name: $name,
            category: "fixed",
            doc: $doc,
            params: &[$param],
            outputs: Outputs::One($ty),
            build: |c| (LITERAL.build)(c),
            lower: LITERAL.lower,
            ..NodeDef::BASE
        };
    };
}

constant!(CONST_U64, "const_u64", "The constant value, on every cycle.", konst("value", U64), U64);
constant!(
    CONST_F64,
    "const_f64",
    "The constant value (default 0.0), on every cycle.",
    konst_or("value", F64, Lit::F64(0.0)),
    F64
);
constant!(
    CONST_BOOL,
    "const_bool",
    "The constant value (default false), on every cycle.",
    konst_or("value", Bool, Lit::Bool(false)),
    Bool
);
constant!(
    CONST_STR,
    "const_str",
    "The constant text (default \"\"), on every cycle.",
    konst_or("value", Str, Lit::Str("")),
    Str
);

/// The failure of a `fixed_values_*` node given no values (upstream's words).
fn empty_list(name: &str) -> String {
    format!("{name}: value list must not be empty")
}

/// The warning of a `fixed_values_*` node given no values.
fn warn_empty(c: &BuildCtx<'_>) -> Option<String> {
    c.tail(0).is_empty().then(|| "no values to choose from, so every evaluation of this node fails".into())
}

/// A node whose every evaluation fails with `message`.
fn always_fails(message: String) -> Box<dyn crate::node::NodeEval> {
    value_fn(move |_, _| Err(NodeError::new(message.clone())))
}

/// `fixed_values_u64`: values[input % count].
pub const FIXED_VALUES_U64: NodeDef = NodeDef {
    name: "fixed_values_u64",
    category: "fixed",
    doc: "values[input % count]: a u64 chosen by index (not hashed); with no values every evaluation fails.",
    params: &[wire("input", U64), many(konst("values", U64))],
    build: |c| {
        let values: Arc<[u64]> = c.tail(0).iter().map(|v| v.as_u64().unwrap_or(0)).collect();
        if values.is_empty() {
            return Ok(always_fails(empty_list("fixed_values_u64")));
        }
        Ok(map1(move |x: u64| values[(x % values.len() as u64) as usize]))
    },
    warns: warn_empty,
    testing: Testing { variadic: Some(Variadic { min: 1, max: 4, last_only: None }), ..Testing::BASE },
    ..NodeDef::BASE
};

/// `fixed_values_f64`: values[input % count].
pub const FIXED_VALUES_F64: NodeDef = NodeDef {
    name: "fixed_values_f64",
    category: "fixed",
    doc: "values[input % count]: an f64 chosen by index (not hashed); with no values every evaluation fails.",
    params: &[wire("input", U64), many(konst("values", F64))],
    outputs: Outputs::One(F64),
    build: |c| {
        let values: Arc<[f64]> = c.tail(0).iter().map(|v| v.as_f64().unwrap_or(0.0)).collect();
        if values.is_empty() {
            return Ok(always_fails(empty_list("fixed_values_f64")));
        }
        Ok(map1(move |x: u64| values[(x % values.len() as u64) as usize]))
    },
    warns: warn_empty,
    testing: Testing { variadic: Some(Variadic { min: 1, max: 4, last_only: None }), ..Testing::BASE },
    ..NodeDef::BASE
};

/// `fixed_values_str`: values[input % count].
pub const FIXED_VALUES_STR: NodeDef = NodeDef {
    name: "fixed_values_str",
    category: "fixed",
    doc: "values[input % count]: a string chosen by index (not hashed); with no values every evaluation fails.",
    params: &[wire("input", U64), many(konst("values", Str))],
    outputs: Outputs::One(Str),
    build: |c| {
        let values = c.strings(0);
        if values.is_empty() {
            return Ok(always_fails(empty_list("fixed_values_str")));
        }
        let n = values.len() as u64;
        Ok(pick_str(StrTable::new(values), move |x| (x % n) as usize))
    },
    warns: warn_empty,
    testing: Testing { variadic: Some(Variadic { min: 1, max: 4, last_only: None }), ..Testing::BASE },
    ..NodeDef::BASE
};

/// The threshold below which `coin_flip` answers true: the probability
/// (clamped to [0, 1]) times `u64::MAX`, truncated, as upstream computes it.
pub fn coin_threshold(probability: f64) -> u64 {
    (probability.clamp(0.0, 1.0) * u64::MAX as f64) as u64
}

/// `coin_flip`: true when the (already hashed) input is below probability * u64::MAX.
pub const COIN_FLIP: NodeDef = NodeDef {
    name: "coin_flip",
    category: "probability",
    doc: "true when the input (hash it first) is below probability * u64::MAX (probability clamped to [0, 1]; NaN gives false).",
    params: &[wire("input", U64), konst_or("probability", F64, Lit::F64(0.5))],
    outputs: Outputs::One(Bool),
    build: |c| {
        let threshold = coin_threshold(c.f64(0));
        Ok(map1(move |x: u64| x < threshold))
    },
    lower: Some(|l, c, x| {
        let threshold = l.iconst(coin_threshold(c.f64(0)));
        Some(vec![l.icmp(ICmp::Lt, x[0], threshold)])
    }),
    ..NodeDef::BASE
};

/// The family's nodes, in catalog order.
pub const NODES: &[NodeDef] =
    &[CONST_U64, CONST_F64, CONST_BOOL, CONST_STR, FIXED_VALUES_U64, FIXED_VALUES_F64, FIXED_VALUES_STR, COIN_FLIP];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::{eval1, eval_err};
    use crate::value::Value;

    #[test]
    fn constants_and_lists_as_upstream_documents() {
        assert!(eval1(&CONST_F64, &[Value::F64(2.25)], &[]).same(&Value::F64(2.25)));
        assert!(eval1(&CONST_F64, &[], &[]).same(&Value::F64(0.0)));
        assert!(eval1(&CONST_BOOL, &[Value::Bool(true)], &[]).same(&Value::Bool(true)));
        assert!(eval1(&CONST_BOOL, &[], &[]).same(&Value::Bool(false)));
        assert!(eval1(&CONST_U64, &[Value::U64(7)], &[]).same(&Value::U64(7)));
        assert!(eval1(&CONST_STR, &[], &[]).same(&Value::str("")));
        let u = [Value::U64(10), Value::U64(20), Value::U64(30)];
        for (i, want) in [(0, 10), (1, 20), (2, 30), (3, 10)] {
            assert!(eval1(&FIXED_VALUES_U64, &u, &[Value::U64(i)]).same(&Value::U64(want)));
        }
        let f = [Value::F64(1.1), Value::F64(2.2), Value::F64(3.3)];
        assert!(eval1(&FIXED_VALUES_F64, &f, &[Value::U64(1)]).same(&Value::F64(2.2)));
        let s = [Value::str("alpha"), Value::str("beta"), Value::str("gamma")];
        assert!(eval1(&FIXED_VALUES_STR, &s, &[Value::U64(2)]).same(&Value::str("gamma")));
        assert_eq!(
            eval_err(&FIXED_VALUES_STR, &[], &[Value::U64(2)]),
            "fixed_values_str: value list must not be empty"
        );
    }

    #[test]
    fn coin_flip_thresholds() {
        for i in 0..100 {
            assert!(eval1(&COIN_FLIP, &[Value::F64(1.0)], &[Value::U64(i)]).same(&Value::Bool(true)));
            assert!(eval1(&COIN_FLIP, &[Value::F64(0.0)], &[Value::U64(i)]).same(&Value::Bool(false)));
        }
        assert_eq!(coin_threshold(0.5), 1 << 63);
        assert_eq!(coin_threshold(f64::NAN), 0);
        // u64::MAX as f64 is 2^64, which saturates back to u64::MAX.
        assert_eq!(coin_threshold(2.0), u64::MAX);
        assert!(eval1(&COIN_FLIP, &[Value::F64(1.0)], &[Value::U64(u64::MAX)]).same(&Value::Bool(false)));
    }
}
