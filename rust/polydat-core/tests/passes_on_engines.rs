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
