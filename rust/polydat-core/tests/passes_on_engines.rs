//! Passes that rewrite the graph keep every value: a program compiled with
//! and without a rewrite (fusion, polyfills, merging, hoisting) gives the
//! same outputs when run on the engines.

use polydat_core::compile::fusion::{rules_fired, CATALOG};
use polydat_core::compile::polyfill::REGISTRY;
use polydat_core::compile::{compile, sketch, CompileOptions};
use polydat_core::engine::{new_kernel, EngineKind};
use polydat_core::node::NodeDef;
use polydat_core::nodes::hash::splitmix64;
use polydat_core::program::events::EventKind;
use polydat_core::{Program, Value};
use std::sync::Arc;

/// The corner inputs of the equivalence harness, plus a spread of hashed values.
fn corner_u64() -> Vec<u64> {
    let mut v = vec![
        0,
        1,
        2,
        3,
        (1 << 32) - 1,
        1 << 32,
        (1 << 32) + 1,
        (1 << 53) - 1,
        1 << 53,
        (1 << 53) + 1,
        (1 << 63) - 1,
        1 << 63,
        (1 << 63) + 1,
        u64::MAX - 1,
        u64::MAX,
    ];
    v.extend((0..200u64).map(splitmix64));
    v
}

fn build(src: &str, fusion: bool) -> Arc<Program> {
    let ir = sketch::parse(&format!("input x: u64\n{src}")).unwrap();
    Arc::new(compile(&ir, &CompileOptions { fusion, ..CompileOptions::default() }).unwrap())
}

fn outputs_over_corners(p: &Arc<Program>) -> Vec<Result<String, String>> {
    let mut k = new_kernel(p, EngineKind::P1);
    let o = p.output("out").unwrap();
    corner_u64()
        .into_iter()
        .map(|x| {
            k.write_u64(0, x).unwrap();
            k.pull(o).map(|v| format!("{v:?}|{}", bits(&v))).map_err(|e| e.original.clone())
        })
        .collect()
}

fn bits(v: &Value) -> u64 {
    match v {
        Value::F64(f) => f.to_bits(),
        Value::U64(u) => *u,
        _ => 0,
    }
}

#[test]
fn every_rule_is_equivalent_on_its_witnesses() {
    for rule in CATALOG {
        assert!(!rule.witnesses.is_empty(), "{} has no witness", rule.name);
        for w in rule.witnesses {
            let fused = build(w, true);
            let plain = build(w, false);
            assert!(
                rules_fired(&fused).contains(&rule.name),
                "{} did not fire on `{w}`: {:?}",
                rule.name,
                fused.events
            );
            assert!(rules_fired(&plain).is_empty());
            assert!(fused.steps.len() < plain.steps.len(), "{}: fusion did not shrink `{w}`", rule.name);
            assert_eq!(outputs_over_corners(&fused), outputs_over_corners(&plain), "{} on `{w}`", rule.name);
            // NF3: the output's lifecycle class is the same with and without fusion.
            let class = |p: &Program| p.outputs[0].step.map(|s| p.steps[s as usize].lifecycle);
            assert_eq!(class(&fused), class(&plain), "{} changed the lifecycle on `{w}`", rule.name);
        }
    }
}

fn no_fused_nodes(def: &NodeDef) -> bool {
    !REGISTRY.iter().any(|p| p.op == def.name)
}

fn run(p: Program, xs: &[u64]) -> Vec<String> {
    let p = std::sync::Arc::new(p);
    let mut k = new_kernel(&p, EngineKind::P1);
    let o = p.output("out").unwrap();
    xs.iter()
        .map(|&x| {
            k.write_u64(0, x).unwrap();
            format!("{:?}", k.pull(o).map(|v| (format!("{v:?}"), v.as_f64().map(f64::to_bits))))
        })
        .collect()
}

#[test]
fn expansions_compute_what_the_fused_nodes_compute() {
    let xs: Vec<u64> = [0, 1, 1 << 32, (1 << 53) + 1, 1 << 63, u64::MAX].into_iter().chain(0..64).collect();
    for src in [
        "out := hash_range(x, 1000)",
        "out := hash_range(x, 0)",
        "out := hash_interval(x, -3.5, 7.25)",
        "out := scale_range(x, 10, 20)",
    ] {
        let ir = sketch::parse(&format!("input x: u64\n{src}")).unwrap();
        let native = compile(&ir, &CompileOptions::default()).unwrap();
        let opts = CompileOptions { engine_supports: Some(no_fused_nodes), ..CompileOptions::default() };
        let filled = compile(&ir, &opts).unwrap();
        assert!(filled.events.iter().any(|e| e.kind == EventKind::PolyfillApplied), "{src}");
        assert!(filled.steps.iter().all(|s| no_fused_nodes(s.def)), "{src}");
        assert_eq!(run(native, &xs), run(filled, &xs), "{src}");
    }
}

#[test]
fn a_capture_stays_one_when_only_a_live_reader_is_requested() {
    use polydat_core::compile::{compile, CompileOptions};
    use polydat_core::engine::{new_kernel, EngineKind};
    use polydat_core::value::Value;
    use std::sync::Arc;
    // `v` reads the captured `c`; requesting `v` alone drops the binding
    // `c`, which must neither free the capture nor let fusion swallow it
    // (mod(hash(..), 10) fuses into one live hash_range otherwise).
    for reader in ["u64_add(c, 1)", "mod(c, 10)"] {
        let ir = sketch::parse(&format!("extern eu: u64 = 5\nconst c := hash(eu)\nv := {reader}")).unwrap();
        for outputs in [None, Some(vec!["v".to_string()])] {
            let options = CompileOptions { outputs: outputs.clone(), ..CompileOptions::default() };
            let program = Arc::new(compile(&ir, &options).unwrap());
            let mut k = new_kernel(&program, EngineKind::P1);
            let (eu, v) = (program.input("eu").unwrap(), program.output("v").unwrap());
            let before = k.pull(v).unwrap().as_u64();
            k.write(eu, Value::U64(0)).unwrap();
            assert_eq!(k.pull(v).unwrap().as_u64(), before, "{reader} with outputs {outputs:?}");
        }
    }
}

#[test]
fn a_live_reader_never_reads_a_const_capture_on_any_engine() {
    use polydat_core::compile::{compile, CompileOptions};
    use polydat_core::engine::{new_kernel, EngineKind, ENGINE_NAMES};
    use polydat_core::value::Value;
    use std::sync::Arc;
    let ir = sketch::parse("extern eu: u64 = 5\nv1 := u64_add(hash(eu), 1)\nconst v9 := hash(eu)").unwrap();
    let program = Arc::new(compile(&ir, &CompileOptions::default()).unwrap());
    let (eu, v1, v9) = (program.input("eu").unwrap(), program.output("v1").unwrap(), program.output("v9").unwrap());
    let live = |eu_value: u64| Some(splitmix64(eu_value).wrapping_add(1));
    for name in ENGINE_NAMES {
        let mut k = new_kernel(&program, EngineKind::parse(name).unwrap());
        assert_eq!(k.pull(v1).unwrap().as_u64(), live(5), "{name}");
        let captured = k.pull(v9).unwrap().as_u64();
        k.write(eu, Value::U64(0)).unwrap();
        assert_eq!(k.pull(v1).unwrap().as_u64(), live(0), "{name}: v1 follows eu");
        assert_eq!(k.pull(v9).unwrap().as_u64(), captured, "{name}: v9 keeps its capture");
    }
}

/// Every engine's value or failure (its node and original message) for
/// each of `xs` written to `x`.
fn outcomes_on(p: &Arc<Program>, engine: &str, xs: &[u64]) -> Vec<Result<String, (String, String)>> {
    let mut k = new_kernel(p, EngineKind::parse(engine).unwrap());
    let o = p.output("out").unwrap();
    xs.iter()
        .map(|&x| {
            k.write_u64(0, x).unwrap();
            k.pull(o).map(|v| v.display_text()).map_err(|e| (e.node.clone(), e.original.clone()))
        })
        .collect()
}

#[test]
fn a_decimal_cast_times_a_literal_is_one_step_that_fails_as_the_cast_on_every_engine() {
    use polydat_core::engine::ENGINE_NAMES;
    // Money from cents, and a signed amount in both operand orders: the
    // values (negative ones too) and the cast's overflow on every engine are
    // those of the two steps.
    let xs: Vec<u64> = corner_u64()
        .into_iter()
        .chain([9_999_999_999_999, 10_000_000_000_000, 99_999, 99_500, 99_001, 99_000])
        .collect();
    for src in [
        "out := decimal_mul(to_decimal(x, \"decimal(13,0)\"), 0.01d)",
        "out := decimal_mul(0.05d, to_decimal(i64_add(__u64_to_i64(mod(x, 100000)), -99999), \"decimal(4,1)\"))",
    ] {
        let (fused, plain) = (build(src, true), build(src, false));
        assert_eq!(rules_fired(&fused), ["decimal_cast_times_literal"], "{src}");
        assert_eq!(fused.steps.iter().filter(|s| s.def.name.contains("decimal")).count(), 1, "{src}");
        let expected = outcomes_on(&plain, "p1", &xs);
        assert!(expected.iter().any(|o| o.as_ref().is_ok_and(|v| v.starts_with('-') || src.contains("13,0"))));
        let failures: Vec<_> = expected.iter().filter_map(|o| o.as_ref().err()).collect();
        assert!(!failures.is_empty(), "{src}: some corner overflows the cast");
        assert!(failures
            .iter()
            .all(|(node, message)| node == "to_decimal" && message.contains("does not fit decimal(")));
        for engine in ENGINE_NAMES {
            assert_eq!(outcomes_on(&fused, engine, &xs), expected, "{src} on {engine}");
            assert_eq!(outcomes_on(&plain, engine, &xs), expected, "{src} unfused on {engine}");
        }
    }
    // A product that could pass 38 digits keeps its two steps (the multiply
    // could then fail, and must fail as itself).
    let wide = build("out := decimal_mul(to_decimal(x, \"decimal(37,0)\"), 0.01d)", true);
    assert!(rules_fired(&wide).is_empty(), "{:?}", wide.events);
    // Only a literal factor fuses: a product of two casts stays as written.
    let two = build("out := decimal_mul(to_decimal(x, \"decimal(13,0)\"), to_decimal(x, \"decimal(3,2)\"))", true);
    assert!(rules_fired(&two).is_empty());
}
