//! The node library and its catalog. Each family file defines its nodes as
//! `NodeDef` constants and lists them in its `NODES`; the catalog below is the
//! only other place a node is named.

pub mod arith;
pub mod assert;
pub mod bitwise;
pub mod bytes;
pub mod calendar_arith;
pub mod compare;
pub mod context;
pub mod convert;
pub mod cursor;
pub mod datafile;
pub mod datetime;
pub mod decimal;
pub mod diagnostic;
pub mod dist;
pub mod distinct;
pub mod emit;
pub mod entries;
pub mod fixed;
pub mod format;
pub mod hash;
pub mod iban;
pub mod json;
pub mod lerp;
pub mod lfsr;
pub mod locale;
pub mod luhn;
pub mod math;
pub mod network;
pub mod noise;
pub mod partition;
pub mod pcg;
pub mod probability;
pub mod pseudo_text;
pub mod real_data;
pub mod regex;
pub mod register;
pub mod round;
pub mod signed;
pub mod stability;
pub mod streamer;
pub mod string;
pub mod tile;
pub mod vec_set;
pub mod vector;
pub mod weighted;
pub mod wide;

use crate::node::{Lit, NodeDef, Samples, Testing};
use serde_json::{json, Value as J};
use std::collections::HashMap;
use std::sync::OnceLock;

/// Every family of the library, in catalog order.
const FAMILIES: &[&[NodeDef]] = &[
    hash::NODES,
    convert::NODES,
    convert::narrow::ADAPTERS,
    convert::narrow::CASTS,
    convert::float16::ADAPTERS,
    convert::float16::CASTS,
    diagnostic::NODES,
    arith::NODES,
    bitwise::NODES,
    compare::NODES,
    signed::NODES,
    wide::NODES,
    lerp::NODES,
    math::NODES,
    probability::NODES,
    pcg::NODES,
    distinct::NODES,
    weighted::NODES,
    string::NODES,
    format::NODES,
    dist::NODES,
    assert::NODES,
    context::NODES,
    datetime::NODES,
    decimal::NODES,
    calendar_arith::NODES,
    bytes::NODES,
    json::NODES,
    regex::NODES,
    real_data::NODES,
    entries::NODES,
    locale::NODES,
    iban::NODES,
    luhn::NODES,
    network::NODES,
    pseudo_text::NODES,
    cursor::NODES,
    emit::NODES,
    round::NODES,
    noise::NODES,
    fixed::NODES,
    lfsr::NODES,
    partition::NODES,
    datafile::NODES,
    stability::NODES,
    vector::NODES,
    vec_set::NODES,
    register::NODES,
    streamer::NODES,
    tile::NODES,
];

fn index() -> &'static (Vec<&'static NodeDef>, HashMap<&'static str, &'static NodeDef>) {
    static INDEX: OnceLock<(Vec<&'static NodeDef>, HashMap<&'static str, &'static NodeDef>)> = OnceLock::new();
    INDEX.get_or_init(|| {
        let all: Vec<&'static NodeDef> = FAMILIES.iter().flat_map(|f| f.iter()).collect();
        let mut by_name = HashMap::new();
        for def in &all {
            for name in std::iter::once(&def.name).chain(def.aliases) {
                let prior = by_name.insert(*name, *def);
                assert!(prior.is_none(), "node name `{name}` registered twice");
            }
        }
        (all, by_name)
    })
}

/// Every node of the library (aliases not repeated).
pub fn catalog() -> &'static [&'static NodeDef] {
    &index().0
}

/// The node registered under `name` (or one of its aliases).
pub fn lookup(name: &str) -> Option<&'static NodeDef> {
    index().1.get(name).copied()
}

/// Nodes the library no longer has, each with what a program writes instead
/// (the hint of the unknown-node error for a program that still calls one).
/// Upstream removed these in 0.6.0; a wall clock captured per build made
/// rows depend on when a kernel was built.
pub const REMOVED: &[(&str, &str)] = &[
    (
        "session_start_millis",
        "session_start_millis() was removed (as upstream removed it in 0.6.0): capture the clock once per kernel with `const session_start := current_epoch_millis()`, and read it in a child scope through `extern session_start: u64`",
    ),
    (
        "elapsed_millis",
        "elapsed_millis() was removed (as upstream removed it in 0.6.0): with `const session_start := current_epoch_millis()`, write `volatile elapsed := current_epoch_millis() - session_start`",
    ),
];

/// What a program writes instead of `name`, when `name` is a removed node ([`REMOVED`]).
pub fn removed_hint(name: &str) -> Option<&'static str> {
    REMOVED.iter().find(|(removed, _)| *removed == name).map(|(_, hint)| *hint)
}

/// The closest public node name to `name`, if one is reasonably close.
pub fn suggest(name: &str) -> Option<&'static str> {
    crate::suggest::closest(name, index().1.keys().copied())
}

#[cfg(test)]
pub(crate) mod testing {
    //! Helpers for node unit tests: build a node from constants and evaluate it.
    use crate::node::{Args, BuildCtx, NodeDef, NodeError, Outputs, ParamKind};
    use crate::types::PortType;
    use crate::value::Value;

    fn output_count(def: &NodeDef, consts: &[Value]) -> usize {
        match def.outputs {
            Outputs::Named(list) => list.len(),
            Outputs::PerVariadicConst(_) => {
                let fixed = def.const_params().filter(|p| !p.variadic).count();
                consts.len().saturating_sub(fixed)
            }
            _ => 1,
        }
    }

    /// Builds `def` with `consts` (missing trailing defaults filled) and evaluates it on `wires`.
    pub fn eval(def: &NodeDef, consts: &[Value], wires: &[Value]) -> Result<Vec<Value>, NodeError> {
        let mut all = consts.to_vec();
        let const_params: Vec<_> = def.params.iter().filter(|p| p.kind == ParamKind::Const).collect();
        for p in const_params.iter().skip(all.len()) {
            if let Some(d) = p.default {
                all.push(d.to_value());
            }
        }
        let types: Vec<PortType> = wires.iter().map(|v| v.port_type().unwrap_or(PortType::U64)).collect();
        let node = (def.build)(&BuildCtx { consts: &all, wire_types: &types }).map_err(NodeError::new)?;
        let index: Vec<u32> = (0..wires.len() as u32).collect();
        let mut outs = vec![Value::None; output_count(def, &all)];
        node.eval(&Args::new(wires, &index), &mut outs)?;
        Ok(outs)
    }

    /// Like [`eval`] for single-output nodes that must succeed.
    pub fn eval1(def: &NodeDef, consts: &[Value], wires: &[Value]) -> Value {
        eval(def, consts, wires).unwrap_or_else(|e| panic!("{} failed: {}", def.name, e.message())).remove(0)
    }

    /// The failure message of an evaluation that must fail.
    pub fn eval_err(def: &NodeDef, consts: &[Value], wires: &[Value]) -> String {
        match eval(def, consts, wires) {
            Ok(v) => panic!("{} should fail, gave {:?}", def.name, v),
            Err(e) => e.message().into(),
        }
    }

    /// Builds `def` with `consts` (defaults filled) for wires of `types` and
    /// runs its by-bytes form on `args` twice: into an empty text sink, and
    /// into one already holding `before`. Gives what each run added, and
    /// whether the form says it [appends](crate::node::by_bytes::BytesEval::appends).
    pub fn bytes_twice(
        def: &NodeDef,
        consts: &[Value],
        types: &[PortType],
        args: &[crate::node::by_bytes::Arg<'_>],
        before: &str,
    ) -> (String, Result<String, NodeError>, bool) {
        use crate::node::by_bytes::Sink;
        let mut all = consts.to_vec();
        let const_params: Vec<_> = def.params.iter().filter(|p| p.kind == ParamKind::Const).collect();
        for p in const_params.iter().skip(all.len()) {
            if let Some(d) = p.default {
                all.push(d.to_value());
            }
        }
        let node = (def.build)(&BuildCtx { consts: &all, wire_types: types }).expect("the node builds");
        let form = node.bytes_form().expect("a by-bytes form");
        let mut alone = String::new();
        form.eval_bytes(args, Sink::Text(&mut alone)).unwrap_or_else(|e| panic!("{}: {}", def.name, e.message()));
        let mut after = before.to_string();
        let second = form.eval_bytes(args, Sink::Text(&mut after)).map(|()| after[before.len()..].to_string());
        assert!(after.starts_with(before), "{} changed what its sink held", def.name);
        (alone, second, form.appends())
    }

    /// The construction error of a build that must fail.
    pub fn build_err(def: &NodeDef, consts: &[Value], wire_types: &[PortType]) -> String {
        match (def.build)(&BuildCtx { consts, wire_types }) {
            Ok(_) => panic!("{} should refuse these constants", def.name),
            Err(e) => e,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_names_are_unique_and_resolvable() {
        for def in catalog() {
            assert!(std::ptr::eq(lookup(def.name).unwrap(), *def));
            assert!(!def.doc.is_empty(), "{} has no doc line", def.name);
        }
        assert_eq!(lookup("splitmix64").unwrap().name, "hash");
    }

    #[test]
    fn parameter_names_are_upstreams() {
        // Named arguments written for upstream must resolve here.
        let sig = |n: &str| lookup(n).unwrap().signature();
        assert_eq!(sig("mod"), "mod(input: u64, modulus: const u64) -> u64");
        assert_eq!(sig("add"), "add(input: u64, addend: const u64) -> u64");
        assert_eq!(sig("mul"), "mul(input: u64, factor: const u64) -> u64");
        assert_eq!(sig("div_wire"), "div_wire(input: u64, divisor: u64) -> u64");
        assert_eq!(sig("pow"), "pow(base: f64, exponent: f64) -> f64");
        let names = |n: &str| lookup(n).unwrap().params.iter().map(|p| p.name).collect::<Vec<_>>();
        assert_eq!(names("dist_zipf"), ["input", "n", "exponent"]);
        assert_eq!(names("printf"), ["format", "parts"]);
        assert_eq!(names("sum"), ["values"]);
        assert_eq!(names("default_or"), ["value", "fallback"]);
    }

    #[test]
    fn forms_that_append_write_the_same_value_after_earlier_text() {
        use crate::node::by_bytes::Arg;
        use crate::node::limit::DEFAULT_MAX_VALUE_BYTES;
        use crate::types::PortType::{self, Str, U64};
        use crate::value::Value;
        let text = |s: &str| Value::str(s);
        /// A node, its constants, its wire types and the arguments it runs on.
        type Case<'a> = (&'a NodeDef, Vec<Value>, Vec<PortType>, Vec<Arg<'a>>);
        let cases: Vec<Case<'_>> = vec![
            (
                &format::PRINTF,
                vec![text("a={:05} {:>6}|{:x}")],
                vec![U64, Str, U64],
                vec![Arg::Word(42), Arg::Text("é"), Arg::Word(255)],
            ),
            (&format::PRINTF, vec![text("{:.3}")], vec![PortType::F64], vec![Arg::Word(1.5f64.to_bits())]),
            (&string::STR_CONCAT, vec![], vec![Str, U64], vec![Arg::Text("id-"), Arg::Word(7)]),
            (&probability::ONE_OF, vec![text("red"), text("green")], vec![U64], vec![Arg::Word(3)]),
            (&probability::PICK_TEXT, vec![text("red"), text("green")], vec![U64], vec![Arg::Word(1)]),
            (&string::CHAR_BUF, vec![text("a-f")], vec![U64, U64], vec![Arg::Word(9), Arg::Word(12)]),
            (&format::ZERO_PAD_U64, vec![Value::U64(8)], vec![U64], vec![Arg::Word(123)]),
            (&format::FORMAT_U64, vec![Value::U64(16)], vec![U64], vec![Arg::Word(255)]),
            (&datetime::TO_DATE, vec![], vec![U64], vec![Arg::Word(1_700_000_000_000)]),
            (&real_data::FULL_NAMES, vec![], vec![U64], vec![Arg::Word(5)]),
            (&real_data::LOREM_SENTENCE, vec![], vec![U64], vec![Arg::Word(5)]),
            (&string::STR_UPPER, vec![], vec![Str], vec![Arg::Text("MiXed é")]),
            (&string::NUMBER_TO_WORDS, vec![], vec![U64], vec![Arg::Word(1234)]),
            (&bytes::URL_ENCODE, vec![], vec![Str], vec![Arg::Text("a b&c")]),
            (&compare::SELECT_STR, vec![], vec![U64, Str, Str], vec![Arg::Word(1), Arg::Text("yes"), Arg::Text("no")]),
        ];
        // Earlier text longer than one value may be: only the new value counts.
        let long = "x".repeat(DEFAULT_MAX_VALUE_BYTES + 1);
        for (def, consts, types, args) in &cases {
            for before in ["", "earlier rows ", &long[..]] {
                let (alone, second, appends) = testing::bytes_twice(def, consts, types, args, before);
                assert!(appends, "{} should append", def.name);
                let second =
                    second.unwrap_or_else(|e| panic!("{} after {} bytes: {}", def.name, before.len(), e.message()));
                assert_eq!(second, alone, "{}", def.name);
            }
        }
    }

    #[test]
    fn testing_metadata_fits_the_signature() {
        use crate::node::{ParamKind, Ty};
        use crate::types::PortType;
        let sample_type = |s: &Samples| match s {
            Samples::U64(_) => Ty::Is(PortType::U64),
            Samples::F64(_) => Ty::Is(PortType::F64),
            Samples::Str(_) => Ty::Is(PortType::Str),
        };
        for def in catalog() {
            let (name, t) = (def.name, &def.testing);
            for (param, samples) in t.samples {
                let spec = def.const_params().find(|p| p.name == *param);
                let spec = spec.unwrap_or_else(|| panic!("{name}: samples for `{param}`, not a constant parameter"));
                assert!(!samples.is_empty(), "{name}: no samples for `{param}`");
                assert_eq!(spec.ty, sample_type(samples), "{name}: samples of `{param}` of another type");
            }
            let variadic = def.params.iter().find(|p| p.variadic);
            if let Some(bounds) = t.variadic {
                let spec = variadic.unwrap_or_else(|| panic!("{name}: variadic bounds without a variadic parameter"));
                assert!(bounds.min <= bounds.max, "{name}: variadic bounds out of order");
                if let Some(last) = bounds.last_only {
                    assert_eq!(spec.kind, ParamKind::Const, "{name}: last-only values for wires");
                    assert_eq!(spec.ty, sample_type(&last), "{name}: last-only values of another type");
                }
            }
            if let Some(rule) = t.wires_from {
                assert!(
                    variadic.is_some_and(|p| p.kind == ParamKind::Wire),
                    "{name}: a wire count without variadic wires"
                );
                let spec = def.const_params().find(|p| p.name == rule.param);
                assert!(
                    spec.is_some_and(|p| p.ty == Ty::Is(PortType::Str)),
                    "{name}: `{}` is no string constant",
                    rule.param
                );
            }
            if let Some(call) = t.corner_call {
                assert!(call.contains(&format!("{name}(")), "{name}: its corner call does not call it: {call}");
            }
        }
    }

    #[test]
    fn wire_counts_follow_the_deciding_constant() {
        let count = |def: &NodeDef, value: &str| (def.testing.wires_from.expect("a wire count rule").count)(value);
        assert_eq!(count(&format::PRINTF, "v={} w={}"), 2);
        assert_eq!(count(&format::PRINTF, "{{{}}}"), 1);
        assert_eq!(
            count(
                &tile::TILE_RENDER,
                r#"{"ops": [{"Branch": {"cond": {"Wire": 0}, "then": [{"Hole": {"Wire": 2}}]}}]}"#
            ),
            3
        );
        assert_eq!(count(&tile::TILE_RENDER, r#"{"ops": [{"Static": "constant"}]}"#), 0);
        assert_eq!(count(&tile::TILE_RENDER, "not a skeleton"), 0);
    }

    #[test]
    fn node_names_are_suggested() {
        assert_eq!(suggest("hsah"), Some("hash"));
        assert_eq!(suggest("completely_unrelated_name"), None);
    }
}

/// A literal as the catalog writes it: `{"u64": 7}`, `{"f64": <bits>}`,
/// `{"str": "..."}` or `{"bool": true}`.
fn lit_json(lit: Lit) -> J {
    match lit {
        Lit::U64(v) => json!({"u64": v}),
        Lit::F64(v) => json!({"f64": v.to_bits()}),
        Lit::Str(s) => json!({"str": s}),
        Lit::Bool(b) => json!({"bool": b}),
    }
}

/// A node's testing metadata as the catalog writes it (see
/// [`crate::node::testing`]): `samples` as `[name, [literal...]]` pairs in
/// declaration order, `variadic` as `{"min", "max", "last_only": [literal...]}`
/// or null, `wires_from` the name of the constant that decides the variadic
/// wire count (or null), `corner_call`, `random` and `fallible`.
fn testing_json(t: &Testing) -> J {
    let literals = |s: &Samples| s.lits().into_iter().map(lit_json).collect::<Vec<_>>();
    json!({
        "samples": t.samples.iter().map(|(name, s)| json!([name, literals(s)])).collect::<Vec<_>>(),
        "variadic": t.variadic.map_or(J::Null, |v| json!({
            "min": v.min,
            "max": v.max,
            "last_only": v.last_only.as_ref().map(literals).unwrap_or_default(),
        })),
        "wires_from": t.wires_from.map(|w| w.param),
        "corner_call": t.corner_call,
        "random": t.random,
        "fallible": t.fallible,
    })
}

/// The catalog as JSON, for the frontend (name resolution, desugaring, hints)
/// and for `polydat nodes`.
pub fn catalog_json() -> String {
    use crate::node::{Outputs, ParamKind};
    let nodes: Vec<J> = catalog()
        .iter()
        .map(|d| {
            let params: Vec<J> = d
                .params
                .iter()
                .map(|p| {
                    json!({
                        "name": p.name,
                        "kind": if p.kind == ParamKind::Wire { "wire" } else { "const" },
                        "type": p.ty.name(),
                        "default": p.default.map_or(J::Null, lit_json),
                        "variadic": p.variadic,
                    })
                })
                .collect();
            let outputs = match d.outputs {
                Outputs::One(t) => json!({"kind": "fixed", "ports": [["out", t.keyword()]]}),
                Outputs::Named(list) => json!({
                    "kind": "fixed",
                    "ports": list.iter().map(|(n, t)| json!([n, t.keyword()])).collect::<Vec<_>>(),
                }),
                Outputs::SameAsWire(i) => json!({"kind": "same_as_wire", "index": i}),
                // Index -1: the last wire argument.
                Outputs::SameAsLastWire => json!({"kind": "same_as_wire", "index": -1}),
                Outputs::PerVariadicConst(t) => json!({"kind": "per_variadic_const", "type": t.keyword()}),
                Outputs::ConstType(i) => json!({"kind": "const_type", "index": i}),
                Outputs::Rule(_) => json!({"kind": "rule", "type": "decimal"}),
            };
            json!({
                "name": d.name,
                "aliases": d.aliases,
                "category": d.category,
                "doc": d.doc,
                "signature": d.signature(),
                "purity": d.purity.name(),
                "accepts_none": d.accepts_none,
                "without_input": d.without_input,
                "native": d.runs_natively(),
                "params": params,
                "outputs": outputs,
                "testing": testing_json(&d.testing),
            })
        })
        .collect();
    serde_json::to_string(&nodes).expect("catalog serialises")
}
