//! Assertion family: nodes that pass their value through unchanged and fail
//! the evaluation, with upstream's message text, when a check does not hold.

use crate::node::kit::{try_map1, value_fn};
use crate::node::lower::ICmp;
use crate::node::{
    konst, konst_or, many, wire, wire_any, Lit, NodeDef, NodeError, Outputs, Samples, Testing, Variadic,
};
use crate::types::PortType::{Str, U64};
use crate::value::Value;

/// `is_positive`: Passes x through; fails when x is 0.
pub const IS_POSITIVE: NodeDef = NodeDef {
    name: "is_positive",
    category: "assert",
    doc: "Passes x through; fails when x is 0.",
    params: &[wire("input", U64), konst_or("name", Str, Lit::Str("value"))],
    build: |c| {
        let msg = format!("is_positive({}): value must be > 0, got 0", c.str(0));
        Ok(try_map1(move |x: u64| if x > 0 { Ok(x) } else { Err(msg.clone()) }))
    },
    lower: Some(|l, _, x| {
        let zero = l.iconst(0);
        let fails = l.icmp(ICmp::Eq, x[0], zero);
        l.call_rule_if(fails);
        Some(vec![x[0]])
    }),
    ..NodeDef::BASE
};

/// `in_range`: Passes x through; fails when x is outside [lo, hi] (inclusive).
pub const IN_RANGE: NodeDef = NodeDef {
    name: "in_range",
    category: "assert",
    doc: "Passes x through; fails when x is outside [lo, hi] (inclusive).",
    params: &[wire("input", U64), konst_or("lo", U64, Lit::U64(0)), konst_or("hi", U64, Lit::U64(u64::MAX))],
    build: |c| {
        let (lo, hi) = (c.u64(0), c.u64(1));
        if lo > hi {
            return Err(format!("lo ({lo}) must be <= hi ({hi})"));
        }
        Ok(try_map1(move |x: u64| {
            if (lo..=hi).contains(&x) {
                Ok(x)
            } else {
                Err(format!("in_range: value {x} outside [{lo}, {hi}]"))
            }
        }))
    },
    lower: Some(|l, c, x| {
        let (lo, hi) = (l.iconst(c.u64(0)), l.iconst(c.u64(1)));
        let below = l.icmp(ICmp::Lt, x[0], lo);
        let above = l.icmp(ICmp::Gt, x[0], hi);
        let fails = l.bor(below, above);
        l.call_rule_if(fails);
        Some(vec![x[0]])
    }),
    testing: Testing {
        samples: &[("lo", Samples::U64(&[0, 1, 10, 1000])), ("hi", Samples::U64(&[1000, 1 << 32, u64::MAX]))],
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `is_one_of`: Passes x through; fails when x is not one of the allowed values.
pub const IS_ONE_OF: NodeDef = NodeDef {
    name: "is_one_of",
    category: "assert",
    doc: "Passes x through; fails when x is not one of the allowed values.",
    params: &[wire("input", U64), many(konst("allowed", U64))],
    build: |c| {
        let allowed: Vec<u64> = (0..c.tail(0).len()).map(|i| c.u64(i)).collect();
        if allowed.is_empty() {
            return Err("at least one allowed value required".into());
        }
        let shown = allowed.iter().map(u64::to_string).collect::<Vec<_>>().join(", ");
        Ok(try_map1(move |x: u64| {
            if allowed.contains(&x) {
                Ok(x)
            } else {
                Err(format!("is_one_of: value {x} not in allowed set [{shown}]"))
            }
        }))
    },
    // Up to eight allowed values inline; more run as a call of the rule.
    lower: Some(|l, c, x| {
        let n = c.tail(0).len();
        if n > 8 {
            return None;
        }
        let mut fails = l.iconst(1);
        for i in 0..n {
            let allowed = l.iconst(c.u64(i));
            let other = l.icmp(ICmp::Ne, x[0], allowed);
            fails = l.band(fails, other);
        }
        l.call_rule_if(fails);
        Some(vec![x[0]])
    }),
    testing: Testing {
        samples: &[("allowed", Samples::U64(&[0, 1, 2, 3, 7, 100, 1 << 63]))],
        variadic: Some(Variadic { min: 1, max: 4, last_only: None }),
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `required`: Passes x through; fails when x is absent (None).
pub const REQUIRED: NodeDef = NodeDef {
    name: "required",
    category: "assert",
    doc: "Passes x through; fails when x is absent (None).",
    params: &[wire_any("input"), konst_or("name", Str, Lit::Str("value"))],
    outputs: Outputs::SameAsWire(0),
    accepts_none: true,
    build: |c| {
        let msg = format!("required({}): value was not defined", c.str(0));
        Ok(value_fn(move |args, outs| match args.get(0) {
            Value::None => Err(NodeError::new(msg.clone())),
            v => {
                outs[0] = v.clone();
                Ok(())
            }
        }))
    },
    testing: Testing { corner_call: Some(r#"required(e, "e")"#), ..Testing::BASE },
    ..NodeDef::BASE
};

/// `default_or`: x, or fallback when x is absent (None); both must have the same type.
pub const DEFAULT_OR: NodeDef = NodeDef {
    name: "default_or",
    category: "assert",
    doc: "x, or fallback when x is absent (None); both must have the same type.",
    params: &[wire_any("value"), wire_any("fallback")],
    outputs: Outputs::SameAsWire(0),
    accepts_none: true,
    build: |c| {
        if let [a, b] = c.wire_types {
            if a != b {
                return Err(format!("default_or: value is {a} but fallback is {b}; they must have the same type"));
            }
        }
        Ok(value_fn(|args, outs| {
            let v = args.get(0);
            outs[0] = if v.is_none() { args.get(1).clone() } else { v.clone() };
            Ok(())
        }))
    },
    testing: Testing { corner_call: Some("default_or(e, a)"), ..Testing::BASE },
    ..NodeDef::BASE
};

/// `matches`: Passes the string through; fails when it does not match the regex.
pub const MATCHES: NodeDef = NodeDef {
    name: "matches",
    category: "assert",
    doc: "Passes the string through; fails when it does not match the regex pattern (found anywhere in it; anchor with ^...$).",
    params: &[wire("input", Str), konst("pattern", Str)],
    outputs: Outputs::One(Str),
    build: |c| {
        let pattern = c.str(0).to_string();
        let re = regex::Regex::new(&pattern).map_err(|e| format!("matches: invalid regex {pattern:?}: {e}"))?;
        Ok(value_fn(move |args, outs| {
            let v = args.get(0);
            let s = v.as_str().unwrap_or("");
            if !re.is_match(s) {
                return Err(NodeError::new(format!("matches: value {s:?} does not match pattern {pattern:?}")));
            }
            outs[0] = v.clone();
            Ok(())
        }))
    },
    testing: Testing { samples: &[("pattern", Samples::Str(&[".*", "^h", "[0-9]"]))], ..Testing::BASE },
    ..NodeDef::BASE
};

/// `this_or`: primary, or default when primary is absent (None).
pub const THIS_OR: NodeDef = NodeDef {
    name: "this_or",
    category: "assert",
    doc: "primary, or default when primary is absent (None); the u64 form of default_or.",
    params: &[wire("primary", U64), wire("default", U64)],
    accepts_none: true,
    build: |_| {
        Ok(value_fn(|args, outs| {
            outs[0] = match args.get(0) {
                Value::None => args.get(1).clone(),
                v => v.clone(),
            };
            Ok(())
        }))
    },
    ..NodeDef::BASE
};

/// The assertion family.
pub const NODES: &[NodeDef] = &[IS_POSITIVE, IN_RANGE, IS_ONE_OF, REQUIRED, DEFAULT_OR, MATCHES, THIS_OR];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::{build_err, eval1, eval_err};
    use crate::types::PortType::F64;

    fn u(v: u64) -> Value {
        Value::U64(v)
    }

    #[test]
    fn is_positive_messages() {
        assert!(eval1(&IS_POSITIVE, &[], &[u(u64::MAX)]).same(&u(u64::MAX)));
        assert_eq!(eval_err(&IS_POSITIVE, &[], &[u(0)]), "is_positive(value): value must be > 0, got 0");
        assert_eq!(
            eval_err(&IS_POSITIVE, &[Value::str("batch")], &[u(0)]),
            "is_positive(batch): value must be > 0, got 0"
        );
    }

    #[test]
    fn in_range_is_inclusive() {
        let r = [u(10), u(20)];
        assert!(eval1(&IN_RANGE, &r, &[u(10)]).same(&u(10)));
        assert!(eval1(&IN_RANGE, &r, &[u(20)]).same(&u(20)));
        assert_eq!(eval_err(&IN_RANGE, &r, &[u(21)]), "in_range: value 21 outside [10, 20]");
        assert_eq!(eval_err(&IN_RANGE, &r, &[u(0)]), "in_range: value 0 outside [10, 20]");
        assert!(eval1(&IN_RANGE, &[], &[u(u64::MAX)]).same(&u(u64::MAX)), "defaults admit everything");
        // Upstream param_helpers.rs `in_range_validate` text.
        assert_eq!(build_err(&IN_RANGE, &[u(5), u(4)], &[U64]), "lo (5) must be <= hi (4)");
    }

    #[test]
    fn is_one_of_lists_the_set() {
        let set = [u(1), u(2), u(u64::MAX)];
        assert!(eval1(&IS_ONE_OF, &set, &[u(u64::MAX)]).same(&u(u64::MAX)));
        assert_eq!(
            eval_err(&IS_ONE_OF, &set, &[u(0)]),
            "is_one_of: value 0 not in allowed set [1, 2, 18446744073709551615]"
        );
        assert_eq!(eval_err(&IS_ONE_OF, &[u(7)], &[u(8)]), "is_one_of: value 8 not in allowed set [7]");
        // Upstream param_helpers.rs `is_one_of_validate` text.
        assert_eq!(build_err(&IS_ONE_OF, &[], &[U64]), "at least one allowed value required");
    }

    #[test]
    fn required_rejects_only_none() {
        assert_eq!(eval_err(&REQUIRED, &[], &[Value::None]), "required(value): value was not defined");
        assert_eq!(
            eval_err(&REQUIRED, &[Value::str("user_id")], &[Value::None]),
            "required(user_id): value was not defined"
        );
        assert!(eval1(&REQUIRED, &[], &[u(0)]).same(&u(0)));
        assert_eq!(eval1(&REQUIRED, &[], &[Value::str("")]).as_str(), Some(""));
        assert!(eval1(&REQUIRED, &[], &[Value::F64(f64::NAN)]).same(&Value::F64(f64::NAN)));
    }

    #[test]
    fn default_or_coalesces() {
        assert!(eval1(&DEFAULT_OR, &[], &[Value::None, u(7)]).same(&u(7)));
        assert!(eval1(&DEFAULT_OR, &[], &[u(0), u(7)]).same(&u(0)));
        assert!(eval1(&DEFAULT_OR, &[], &[Value::None, Value::None]).same(&Value::None));
        let s = eval1(&DEFAULT_OR, &[], &[Value::str("a"), Value::str("b")]);
        assert_eq!(s.as_str(), Some("a"));
        assert!(build_err(&DEFAULT_OR, &[], &[U64, F64]).contains("same type"));
    }

    #[test]
    fn matches_passes_or_fails_in_upstreams_words() {
        let pat = [Value::str(r"^\w+@\w+\.\w+$")];
        assert_eq!(eval1(&MATCHES, &pat, &[Value::str("jshook@example.com")]).as_str(), Some("jshook@example.com"));
        assert_eq!(
            eval_err(&MATCHES, &[Value::str(r"^\d+$")], &[Value::str("abc")]),
            r#"matches: value "abc" does not match pattern "^\\d+$""#
        );
        let err = build_err(&MATCHES, &[Value::str("(")], &[Str]);
        assert!(err.starts_with("matches: invalid regex \"(\": regex parse error"), "{err}");
    }

    #[test]
    fn this_or_coalesces() {
        assert!(eval1(&THIS_OR, &[], &[u(7), u(99)]).same(&u(7)));
        assert!(eval1(&THIS_OR, &[], &[Value::None, u(99)]).same(&u(99)));
    }
}
