//! Comparison family: u64, f64 and string comparisons answering 0 or 1, the
//! `select_*` choosers (lazy: see `program::branches`), and `pick`, the dispatch on exactly one true
//! selector.

use crate::node::kit::{map2, map3, pick_wire, str_map2, value_fn};
use crate::node::lower::{FCmp, ICmp};
use crate::node::{many, wire, wire_any, NodeDef, NodeError, Outputs, Testing};
use crate::types::PortType::{self, Bool, Str, F64, U64};
use crate::value::Value;

/// Declares a two-wire comparison over `$t` answering 1 when it holds.
macro_rules! cmp {
    ($id:ident, $name:literal, $ty:ident : $t:ty, $doc:literal, |$a:ident, $b:ident| $body:expr, lower: $op:ident($cc:expr)) => {
        /// A two-wire comparison node answering 1 when it holds, else 0 (see its `name` and `doc` fields).
        pub const $id: NodeDef = NodeDef {
            name: $name,
            category: "compare",
            doc: $doc,
            params: &[wire("a", $ty), wire("b", $ty)],
            build: |_| Ok(map2(|$a: $t, $b: $t| u64::from($body))),
            lower: Some(|l, _, v| Some(vec![l.$op($cc, v[0], v[1])])),
            ..NodeDef::BASE
        };
    };
}

cmp!(U64_EQ, "u64_eq", U64: u64, "1 if a == b, else 0.", |a, b| a == b, lower: icmp(ICmp::Eq));
cmp!(U64_NE, "u64_ne", U64: u64, "1 if a != b, else 0.", |a, b| a != b, lower: icmp(ICmp::Ne));
cmp!(U64_LT, "u64_lt", U64: u64, "1 if a < b, else 0.", |a, b| a < b, lower: icmp(ICmp::Lt));
cmp!(U64_GT, "u64_gt", U64: u64, "1 if a > b, else 0.", |a, b| a > b, lower: icmp(ICmp::Gt));
cmp!(U64_LE, "u64_le", U64: u64, "1 if a <= b, else 0.", |a, b| a <= b, lower: icmp(ICmp::Le));
cmp!(U64_GE, "u64_ge", U64: u64, "1 if a >= b, else 0.", |a, b| a >= b, lower: icmp(ICmp::Ge));
cmp!(F64_EQ, "f64_eq", F64: f64, "1 if a == b under IEEE rules (NaN equals nothing), else 0.", |a, b| a == b, lower: fcmp(FCmp::Eq));
cmp!(F64_NE, "f64_ne", F64: f64, "1 if a != b under IEEE rules (NaN differs from everything), else 0.", |a, b| a != b, lower: fcmp(FCmp::Ne));
cmp!(F64_LT, "f64_lt", F64: f64, "1 if a < b (false for NaN), else 0.", |a, b| a < b, lower: fcmp(FCmp::Lt));
cmp!(F64_GT, "f64_gt", F64: f64, "1 if a > b (false for NaN), else 0.", |a, b| a > b, lower: fcmp(FCmp::Gt));
cmp!(F64_LE, "f64_le", F64: f64, "1 if a <= b (false for NaN), else 0.", |a, b| a <= b, lower: fcmp(FCmp::Le));
cmp!(F64_GE, "f64_ge", F64: f64, "1 if a >= b (false for NaN), else 0.", |a, b| a >= b, lower: fcmp(FCmp::Ge));

/// `str_eq`: 1 if the two strings are identical, else 0.
pub const STR_EQ: NodeDef = NodeDef {
    name: "str_eq",
    category: "compare",
    doc: "1 if the two strings are identical, else 0.",
    params: &[wire("a", Str), wire("b", Str)],
    build: |_| Ok(str_map2(|a: &str, b: &str| (a == b) as u64)),
    ..NodeDef::BASE
};

/// `str_ne`: 1 if the two strings differ, else 0.
pub const STR_NE: NodeDef = NodeDef {
    name: "str_ne",
    category: "compare",
    doc: "1 if the two strings differ, else 0.",
    params: &[wire("a", Str), wire("b", Str)],
    build: |_| Ok(str_map2(|a: &str, b: &str| (a != b) as u64)),
    ..NodeDef::BASE
};

/// `select_u64`: a if cond is nonzero, else b (only the branch taken is evaluated).
pub const SELECT_U64: NodeDef = NodeDef {
    name: "select_u64",
    category: "compare",
    doc: "a if cond is nonzero, else b (only the branch taken is evaluated).",
    params: &[wire("cond", U64), wire("a", U64), wire("b", U64)],
    build: |_| Ok(map3(|c: u64, a: u64, b: u64| if c != 0 { a } else { b })),
    lower: Some(|l, _, v| Some(vec![l.select(v[0], v[1], v[2])])),
    chooses: true,
    ..NodeDef::BASE
};

/// `select_f64`: a if cond is nonzero, else b (only the branch taken is evaluated).
pub const SELECT_F64: NodeDef = NodeDef {
    name: "select_f64",
    category: "compare",
    doc: "a if cond is nonzero, else b (only the branch taken is evaluated).",
    params: &[wire("cond", U64), wire("a", F64), wire("b", F64)],
    outputs: Outputs::One(F64),
    build: |_| Ok(map3(|c: u64, a: f64, b: f64| if c != 0 { a } else { b })),
    lower: Some(|l, _, v| {
        let chosen = l.select(v[0], v[1], v[2]);
        Some(vec![l.canonical(chosen)])
    }),
    chooses: true,
    ..NodeDef::BASE
};

/// `select_str`: a if cond is nonzero, else b (only the branch taken is evaluated; the string is shared, not copied).
pub const SELECT_STR: NodeDef = NodeDef {
    name: "select_str",
    category: "compare",
    doc: "a if cond is nonzero, else b (only the branch taken is evaluated; the string is shared, not copied).",
    params: &[wire("cond", U64), wire("a", Str), wire("b", Str)],
    outputs: Outputs::One(Str),
    build: |_| Ok(pick_wire(|c: u64| if c != 0 { 1 } else { 2 })),
    chooses: true,
    ..NodeDef::BASE
};

/// `select_any`: a if cond is nonzero, else b, for two values of one type
/// the typed choosers do not cover (dates, timestamps, decimals, bytes,
/// json): what `if` becomes over them.
pub const SELECT_ANY: NodeDef = NodeDef {
    name: "select_any",
    category: "compare",
    doc: "a if cond is nonzero, else b, a and b of one type (only the branch taken is evaluated): what `if` becomes over dates, timestamps, decimals, bytes and json.",
    params: &[wire("cond", U64), wire_any("a"), wire_any("b")],
    outputs: Outputs::SameAsLastWire,
    build: |c| {
        let types = c.wire_types;
        if types.len() != 3 || types[1] != types[2] {
            let [a, b] = [1, 2].map(|i| types.get(i).map_or("nothing".into(), |t| t.keyword()));
            return Err(format!("select_any chooses between two values of one type, got {a} and {b}"));
        }
        Ok(pick_wire(|c: u64| if c != 0 { 1 } else { 2 }))
    },
    // A one-slot value (a date, a timestamp) is chosen inline; a value by
    // reference runs as a call into the slot form, which shares the chosen
    // wire's bytes.
    lower: Some(|l, c, v| {
        let inline = c.wire_types.get(1).is_some_and(|t| !t.is_ref() && !matches!(t, F64 | PortType::F32 | PortType::F16));
        inline.then(|| vec![l.select(v[0], v[1], v[2])])
    }),
    testing: Testing { corner_call: Some("select_any(a, b as date, c as date)"), random: false, ..Testing::BASE },
    chooses: true,
    ..NodeDef::BASE
};

/// The advice every `pick` failure ends with (upstream's words).
const PICK_HINT: &str = "\n  hint: did the probe phase that sets these booleans run before this phase? Check scenario-tree DFS order or declare a `detect_*` phase ahead of consumers.";

/// `pick`: the value whose selector is the one true selector.
pub const PICK: NodeDef = NodeDef {
    name: "pick",
    category: "compare",
    doc: "pick(b0, .., bN-1, v0, .., vN-1): the value vi whose selector bi is the one true selector (bools, then values of one type); none or several true fails.",
    params: &[many(wire_any("args"))],
    outputs: Outputs::SameAsLastWire,
    build: |c| {
        let types = c.wire_types;
        if types.is_empty() || types.len() % 2 != 0 {
            return Err(format!(
                "pick takes N bool selectors then N values (N >= 1), an even number of arguments; got {}",
                types.len()
            ));
        }
        let n = types.len() / 2;
        if let Some(i) = types[..n].iter().position(|t| *t != Bool) {
            return Err(format!("pick: selector b{i} must be bool, got {}", types[i]));
        }
        if let Some(i) = (n..types.len()).find(|&i| types[i] != types[n]) {
            return Err(format!(
                "pick: value v{} has type {} but v0 has type {}; all value inputs must share a common type",
                i - n,
                types[i],
                types[n]
            ));
        }
        Ok(value_fn(move |args, outs| {
            let matched: Vec<usize> = (0..n).filter(|&i| matches!(args.get(i), Value::Bool(true))).collect();
            match matched.as_slice() {
                [one] => {
                    outs[0] = args.get(n + one).clone();
                    Ok(())
                }
                [] => Err(NodeError::new(format!(
                    "pick: no selector matched (all N={n} booleans false); workload author guarantees one of {{b0, …, bN-1}} is true at this point{PICK_HINT}"
                ))),
                many => {
                    let positions: Vec<String> = many.iter().map(|i| format!("b{i}")).collect();
                    Err(NodeError::new(format!(
                        "pick: multiple selectors matched (positions {}); selectors must be mutually exclusive{PICK_HINT}",
                        positions.join(", ")
                    )))
                }
            }
        }))
    },
    testing: Testing {
        corner_call: Some("pick(coin_flip(a, 0.5), coin_flip(b, 0.5), s, t)"),
        random: false,
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// The comparison family.
pub const NODES: &[NodeDef] = &[
    U64_EQ, U64_NE, U64_LT, U64_GT, U64_LE, U64_GE, F64_EQ, F64_NE, F64_LT, F64_GT, F64_LE, F64_GE, STR_EQ, STR_NE,
    SELECT_U64, SELECT_F64, SELECT_STR, SELECT_ANY, PICK,
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::eval1;
    use crate::value::Value;

    fn b(def: &NodeDef, a: Value, b: Value) -> u64 {
        eval1(def, &[], &[a, b]).as_u64().unwrap()
    }

    #[test]
    fn u64_comparisons() {
        let (z, m) = (Value::U64(0), Value::U64(u64::MAX));
        let row = |x: &Value, y: &Value| {
            [&U64_EQ, &U64_NE, &U64_LT, &U64_GT, &U64_LE, &U64_GE].map(|d| b(d, x.clone(), y.clone()))
        };
        assert_eq!(row(&z, &m), [0, 1, 1, 0, 1, 0]);
        assert_eq!(row(&m, &z), [0, 1, 0, 1, 0, 1]);
        assert_eq!(row(&m, &m), [1, 0, 0, 0, 1, 1]);
    }

    #[test]
    fn f64_comparisons_follow_ieee() {
        let row = |x: f64, y: f64| {
            [&F64_EQ, &F64_NE, &F64_LT, &F64_GT, &F64_LE, &F64_GE].map(|d| b(d, Value::F64(x), Value::F64(y)))
        };
        assert_eq!(row(f64::NAN, f64::NAN), [0, 1, 0, 0, 0, 0]);
        assert_eq!(row(f64::NAN, 1.0), [0, 1, 0, 0, 0, 0]);
        assert_eq!(row(0.0, -0.0), [1, 0, 0, 0, 1, 1]);
        assert_eq!(row(f64::NEG_INFINITY, f64::INFINITY), [0, 1, 1, 0, 1, 0]);
        assert_eq!(row(1.5, 1.5), [1, 0, 0, 0, 1, 1]);
    }

    #[test]
    fn string_comparisons() {
        assert_eq!(b(&STR_EQ, Value::str("é"), Value::str("é")), 1);
        assert_eq!(b(&STR_EQ, Value::str(""), Value::str(" ")), 0);
        assert_eq!(b(&STR_NE, Value::str("a"), Value::str("A")), 1);
        assert_eq!(b(&STR_NE, Value::str(""), Value::str("")), 0);
    }

    #[test]
    fn selects_take_a_on_nonzero() {
        let s = |c: u64| eval1(&SELECT_U64, &[], &[Value::U64(c), Value::U64(1), Value::U64(2)]);
        assert!(s(0).same(&Value::U64(2)) && s(1).same(&Value::U64(1)) && s(u64::MAX).same(&Value::U64(1)));
        let f = eval1(&SELECT_F64, &[], &[Value::U64(0), Value::F64(1.0), Value::F64(-0.0)]);
        assert!(f.same(&Value::F64(-0.0)));
        let f = eval1(&SELECT_F64, &[], &[Value::U64(7), Value::F64(f64::NAN), Value::F64(0.0)]);
        assert!(f.same(&Value::F64(f64::NAN)));
        let t = eval1(&SELECT_STR, &[], &[Value::U64(2), Value::str("yes"), Value::str("no")]);
        assert_eq!(t.as_str(), Some("yes"));
        let t = eval1(&SELECT_STR, &[], &[Value::U64(0), Value::str("yes"), Value::str("no")]);
        assert_eq!(t.as_str(), Some("no"));
    }

    #[test]
    fn pick_dispatches_on_exactly_one_selector() {
        use crate::nodes::testing::{build_err, eval};
        use crate::types::PortType;
        let b = Value::Bool;
        let words = |xs: &[&str]| xs.iter().map(|x| Value::str(*x)).collect::<Vec<_>>();
        let run = |sel: &[bool], vals: Vec<Value>| {
            let mut args: Vec<Value> = sel.iter().map(|&s| b(s)).collect();
            args.extend(vals);
            eval(&PICK, &[], &args)
        };
        assert!(run(&[true, false], words(&["a", "b"])).unwrap()[0].same(&Value::str("a")));
        assert!(run(&[false, false, true], words(&["x", "y", "z"])).unwrap()[0].same(&Value::str("z")));
        let none = run(&[false, false], words(&["a", "b"])).unwrap_err();
        assert!(none.message().starts_with("pick: no selector matched (all N=2 booleans false)"));
        assert!(none.message().contains("\n  hint: did the probe phase"));
        let both = run(&[true, true], words(&["a", "b"])).unwrap_err();
        assert!(both.message().starts_with("pick: multiple selectors matched (positions b0, b1)"));
        let mixed = build_err(&PICK, &[], &[PortType::Bool, PortType::Bool, PortType::U64, PortType::Str]);
        assert_eq!(mixed, "pick: value v1 has type str but v0 has type u64; all value inputs must share a common type");
        assert!(build_err(&PICK, &[], &[PortType::Bool, PortType::U64, PortType::U64]).contains("even number"));
        assert!(build_err(&PICK, &[], &[PortType::U64, PortType::U64]).contains("selector b0 must be bool"));
        assert_eq!(PICK.output_types(&[], &[PortType::Bool, PortType::F64]), [PortType::F64]);
    }
}
