//! The compiler passes seen from outside: hoisting on the P1 runtime (scope
//! init runs once per kernel, const captures ignore later writes), folding,
//! cycle errors, explain data, and a 2000-node program end to end.

use polydat_core::compile::{compile, sketch, CompileOptions};
use polydat_core::engine::p1::P1Kernel;
use polydat_core::engine::{describe, new_kernel, EngineKind, Kernel, Provenance};
use polydat_core::generation::{generate, RowPlan};
use polydat_core::ir::GraphIr;
use polydat_core::nodes::diagnostic::{probe_count, probe_reset};
use polydat_core::nodes::hash::splitmix64;
use polydat_core::program::explain::explain_json;
use polydat_core::{Program, Value};
use std::sync::Arc;

fn program(src: &str) -> Arc<Program> {
    let ir = sketch::parse(src).unwrap_or_else(|e| panic!("{e}"));
    Arc::new(compile(&ir, &CompileOptions::default()).unwrap_or_else(|e| panic!("{e}")))
}

fn pull(k: &mut dyn Kernel, p: &Program, name: &str) -> Value {
    k.pull(p.output(name).unwrap()).unwrap_or_else(|e| panic!("{e}"))
}

fn reset(keys: &[&str]) {
    keys.iter().for_each(|k| probe_reset(k));
}

const CAPTURE: &str = "input cycle: u64
extern seed: u64 = 5
const c := __probe(hash(seed), \"KEY.init\")
d := __probe(u64_add(c, cycle), \"KEY.dyn\")";

#[test]
fn scope_init_runs_once_per_kernel_and_dynamic_once_per_change() {
    let p = program(&CAPTURE.replace("KEY", "once"));
    reset(&["once.init", "once.dyn"]);
    let mut k = new_kernel(&p, EngineKind::P1);
    for cycle in 0..10 {
        k.write_u64(0, cycle).unwrap();
        let d = pull(k.as_mut(), &p, "d");
        assert!(d.same(&Value::U64(splitmix64(5).wrapping_add(cycle))));
        pull(k.as_mut(), &p, "d"); // a second read of the same cycle is cached
    }
    assert_eq!(probe_count("once.init"), 1, "scope init ran once for the kernel");
    assert_eq!(probe_count("once.dyn"), 10, "the dynamic node ran once per cycle");
    let mut k2 = new_kernel(&p, EngineKind::P1);
    pull(k2.as_mut(), &p, "d");
    assert_eq!(probe_count("once.init"), 2, "a second kernel has its own scope init");
}

#[test]
fn a_const_capture_ignores_later_writes_until_init() {
    let p = program(&CAPTURE.replace("KEY", "cap"));
    let mut k = P1Kernel::new(p.clone());
    k.write(1, Value::U64(9)).unwrap(); // before the first read: captured
    assert!(pull(&mut k, &p, "c").same(&Value::U64(splitmix64(9))));
    k.write(1, Value::U64(11)).unwrap(); // after: ignored
    assert!(pull(&mut k, &p, "c").same(&Value::U64(splitmix64(9))));
    k.write_u64(0, 3).unwrap();
    assert!(pull(&mut k, &p, "d").same(&Value::U64(splitmix64(9).wrapping_add(3))));
    k.init().unwrap(); // re-capture from the inputs as they are now
    assert!(pull(&mut k, &p, "c").same(&Value::U64(splitmix64(11))));
    assert!(pull(&mut k, &p, "d").same(&Value::U64(splitmix64(11).wrapping_add(3))));
}

#[test]
fn an_extern_write_reruns_its_dynamic_readers_once() {
    let p = program(
        "input cycle: u64
         extern e: u64 = 1
         v := __probe(hash(e), \"ext.v\")
         w := u64_add(v, cycle)",
    );
    reset(&["ext.v"]);
    let mut k = new_kernel(&p, EngineKind::P1);
    for cycle in 0..5 {
        k.write_u64(0, cycle).unwrap();
        pull(k.as_mut(), &p, "w");
    }
    assert_eq!(probe_count("ext.v"), 1, "cycle writes do not touch v");
    k.write(1, Value::U64(2)).unwrap();
    pull(k.as_mut(), &p, "w");
    pull(k.as_mut(), &p, "w");
    assert_eq!(probe_count("ext.v"), 2, "one extern write, one re-evaluation");
}

#[test]
fn constants_are_folded_at_build_not_per_kernel() {
    probe_reset("fold.p");
    let p = program("input cycle: u64\nk := __probe(hash(7), \"fold.p\")\ny := u64_add(k, cycle)");
    assert_eq!(probe_count("fold.p"), 1, "evaluated once, by the compiler");
    let mut k = new_kernel(&p, EngineKind::P1);
    k.write_u64(0, 1).unwrap();
    assert!(pull(k.as_mut(), &p, "y").same(&Value::U64(splitmix64(7) + 1)));
    assert_eq!(probe_count("fold.p"), 1);
    assert!(p.steps.iter().all(|s| s.def.name != "__probe" && s.def.name != "hash"));
}

#[test]
fn a_failing_constant_is_a_compile_error() {
    let ir = sketch::parse("input cycle: u64\nchecked := in_range(7, 0, 5)").unwrap();
    let Err(err) = compile(&ir, &CompileOptions::default()) else { panic!("compiled") };
    assert!(err.message.contains("in_range"), "{}", err.message);
    assert_eq!(err.span.unwrap().line, 2);
}

#[test]
fn a_cycle_names_its_nodes_and_spans() {
    let ir = GraphIr::from_json(
        r#"{
      "inputs": [{"name": "cycle", "type": "u64", "kind": "coordinate"}],
      "nodes": [
        {"op": "hash", "args": [{"wire": {"input": 0}}], "span": {"line": 2, "col": 6}},
        {"op": "u64_add", "args": [{"wire": {"node": {"node": 0, "port": 0}}}, {"wire": {"node": {"node": 2, "port": 0}}}], "span": {"line": 3, "col": 6}},
        {"op": "hash", "args": [{"wire": {"node": {"node": 1, "port": 0}}}], "span": {"line": 4, "col": 6}},
        {"op": "hash", "args": [{"wire": {"node": {"node": 2, "port": 0}}}], "span": {"line": 5, "col": 6}}
      ],
      "outputs": [
        {"name": "a", "wire": {"node": {"node": 1, "port": 0}}},
        {"name": "b", "wire": {"node": {"node": 2, "port": 0}}},
        {"name": "c", "wire": {"node": {"node": 3, "port": 0}}}
      ]
    }"#,
    )
    .unwrap();
    let Err(err) = compile(&ir, &CompileOptions::default()) else { panic!("compiled") };
    assert!(err.message.starts_with("cycle detected: "), "{}", err.message);
    assert!(
        err.message.contains("`u64_add` ('a') at 3:6") && err.message.contains("`hash` ('b') at 4:6"),
        "{}",
        err.message
    );
    assert!(!err.message.contains("5:6"), "a node downstream of the cycle is not on it: {}", err.message);
}

#[test]
fn explain_json_carries_passes_lifecycles_and_events() {
    let p = program(
        "input cycle: u64
         extern e: u64 = 2
         const c := hash(e)
         k := add(3, 4)
         out := mod(hash(u64_add(cycle, c)), 10)",
    );
    let explain = |kind: EngineKind| explain_json(&p, &describe(&p, kind));
    let doc: serde_json::Value = serde_json::from_str(&explain(EngineKind::P1)).unwrap();
    let passes: Vec<&str> = doc["passes"].as_array().unwrap().iter().map(|p| p["pass"].as_str().unwrap()).collect();
    assert_eq!(
        passes,
        [
            "resolve", "adapters", "captures", "snapshot", "polyfill", "picks", "fusion", "cse", "dce", "toposort",
            "hoist", "fold", "emit", "select"
        ]
    );
    let class = |name: &str| {
        doc["bindings"].as_array().unwrap().iter().find(|b| b["name"] == name).unwrap()["lifecycle"].clone()
    };
    assert_eq!(class("c"), "scope_init");
    assert_eq!(class("k"), "compile_const");
    assert_eq!(class("out"), "dynamic");
    let kinds: Vec<&str> = doc["events"].as_array().unwrap().iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert!(kinds.contains(&"FusionApplied") && kinds.contains(&"ConstantFolded"), "{kinds:?}");
    assert_eq!(doc["engine"]["chosen"], "p1");
    assert!(!doc["resolved"]["nodes"].as_array().unwrap().is_empty());
    let on_p2: serde_json::Value = serde_json::from_str(&explain(EngineKind::P2(Provenance::Pull))).unwrap();
    assert_eq!(on_p2["engine"]["provenance"], "pull");
    let inputs = on_p2["engine"]["heuristic_inputs"].as_array().unwrap();
    assert!(inputs.iter().any(|kv| kv[0] == "output_cone_ratio"), "{inputs:?}");
    assert_eq!(
        p.cycle_steps.len() + p.scope_init_steps.len(),
        p.steps.len(),
        "this program has no dynamic step under a capture"
    );
}

/// A layered program of about `target` nodes: each layer hashes the previous
/// one, mixes in the coordinate, and reduces one value through fusable
/// patterns; every 50th layer is a binding.
fn big_program(target: usize) -> String {
    let mut src =
        String::from("input cycle: u64\nextern seed: u64 = 3\nconst s := hash(seed)\nv0 := u64_xor(cycle, s)\n");
    let mut prev = "v0".to_string();
    let mut layer = 0;
    // 4 IR nodes and 2 literal nodes per layer.
    while (layer + 1) * 6 < target {
        layer += 1;
        let expr = format!("u64_add(u64_mod(hash(u64_xor({prev}, cycle)), 1000003), {layer})");
        let name = format!("v{layer}");
        src.push_str(&format!("{name} := {expr}\n"));
        prev = name;
    }
    src.push_str(&format!("last := lerp(unit_interval(hash({prev})), -1, 1)\n"));
    src
}

#[test]
fn a_2000_node_program_compiles_and_runs() {
    let src = big_program(2000);
    let ir = sketch::parse(&src).unwrap();
    let started = std::time::Instant::now();
    let p = Arc::new(compile(&ir, &CompileOptions::default()).unwrap());
    let wall = started.elapsed();
    let plain = Arc::new(compile(&ir, &CompileOptions { fusion: false, ..CompileOptions::default() }).unwrap());
    eprintln!(
        "2000-node program: {} nodes resolved, {} final ({} fused), compile {} us (stats) / {:?} (wall); unfused {} steps",
        p.stats.nodes_resolved, p.stats.nodes_final, p.stats.fusions, p.stats.compile_micros, wall, plain.steps.len()
    );
    assert!(p.stats.nodes_resolved >= 1990, "{}", p.stats.nodes_resolved);
    let last = p.output("last").unwrap();
    let plan = RowPlan::range(0, 0, 200, 1);
    let fused = generate(&p, EngineKind::P1, &plan, &[last], 1).unwrap();
    let unfused = generate(&plain, EngineKind::P1, &plan, &[plain.output("last").unwrap()], 1).unwrap();
    assert_eq!(format!("{:?}", fused[0]), format!("{:?}", unfused[0]));
    // The deepest output pulled cold on a fresh kernel: no recursion anywhere.
    let mut k = new_kernel(&p, EngineKind::P1);
    k.write_u64(0, u64::MAX).unwrap();
    assert!(k.pull(last).unwrap().as_f64().is_some());
}

#[test]
fn the_typing_passes_report_every_error_in_source_order() {
    // Line 2: an adapter mismatch; 3: a resolve error (a constant parameter
    // fed a wire); 4 reads line 3's failed value (not reported again);
    // 5: another mismatch; 6 is fine.
    let src = "input cycle: u64
a := hash(\"a\")
k := mod(cycle, hash(cycle))
k2 := hash(k)
b := hash(\"b\")
ok := hash(cycle)";
    let ir = sketch::parse(src).unwrap();
    let err = compile(&ir, &CompileOptions::default()).err().expect("refused");
    let all: Vec<(u32, String)> =
        err.clone().into_each().into_iter().map(|e| (e.span.unwrap().line, e.message)).collect();
    assert_eq!(all.iter().map(|(line, _)| *line).collect::<Vec<_>>(), [2, 3, 5], "{all:?}");
    assert!(all[0].1.contains("type mismatch") && all[2].1.contains("type mismatch"), "{all:?}");
    assert!(all[1].1.contains("must be a constant expression"), "{all:?}");
    let shown = err.to_string();
    assert_eq!(shown.matches(":error: ").count(), 3, "{shown}");
}
