//! Scope-init cost: binding a child of 20 extern slots under a parent (8
//! copied, 8 read live, 4 shared cells), and a for_each-style run of 10,000
//! bindings of an iteration body (one per tuple, each pulled once), per
//! engine. Each figure is the best of several rounds:
//!
//! ```text
//! cargo bench -p polydat-core --bench scopes
//! ```
//! (`python benches/python/bench_scopes.py` measures the same from Python,
//! comprehension and kernel objects included.)

use polydat_core::compile::{compile, sketch, CompileOptions};
use polydat_core::engine::{EngineKind, Kernel};
use polydat_core::scope::bind::Scope;
use polydat_core::{PortType, Program, Value};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

const PARENT: &str = "input cycle: u64
extern seed: u64 = 7";

fn parent_source() -> String {
    let mut src = PARENT.to_string();
    for i in 0..8 {
        src.push_str(&format!("\nconst c{i} := hash(u64_add(seed, {i}))"));
    }
    for i in 0..8 {
        src.push_str(&format!("\nl{i} := hash(u64_add(cycle, {i}))"));
    }
    for i in 0..4 {
        src.push_str(&format!("\nshared s{i}: u64 := {i}"));
    }
    src
}

fn child_source() -> String {
    let names: Vec<String> = (0..8)
        .map(|i| format!("c{i}"))
        .chain((0..8).map(|i| format!("l{i}")))
        .chain((0..4).map(|i| format!("s{i}")))
        .collect();
    let mut src: String = names.iter().map(|n| format!("free {n}\n")).collect();
    let mut acc = names[0].clone();
    for n in &names[1..] {
        acc = format!("u64_xor({acc}, {n})");
    }
    src.push_str(&format!("input cycle: u64\nall := u64_add({acc}, cycle)\nconst first := u64_add(c0, s0)"));
    src
}

fn program(src: &str, outer: Option<&Scope>, iteration: &[(&str, PortType)]) -> Arc<Program> {
    let ir = sketch::parse(src).unwrap();
    let options = CompileOptions {
        outer: outer.map(|s| Arc::new(s.manifest())),
        iteration: iteration.iter().map(|(n, t)| (n.to_string(), *t)).collect(),
        ..CompileOptions::default()
    };
    Arc::new(compile(&ir, &options).unwrap_or_else(|e| panic!("{e}")))
}

fn best<F: FnMut() -> f64>(rounds: usize, mut f: F) -> f64 {
    (0..rounds).map(|_| f()).fold(f64::MAX, f64::min)
}

fn main() {
    let parent_program = program(&parent_source(), None, &[]);
    for kind in [EngineKind::P1, EngineKind::Mixed, EngineKind::parse("p2/pull").unwrap()] {
        let parent = Scope::root(&parent_program, kind).unwrap();
        let child = program(&child_source(), Some(&parent), &[]);
        let externs = child.inputs.iter().filter(|i| i.kind == polydat_core::ir::InputKind::Extern).count();
        assert_eq!(externs, 20);
        let all = child.output("all").unwrap();
        let binds = 2000;
        let per_bind = best(7, || {
            let started = Instant::now();
            for _ in 0..binds {
                let scope = Scope::bind(&child, kind, &parent, Vec::new()).unwrap();
                black_box(&scope);
            }
            started.elapsed().as_nanos() as f64 / binds as f64 / 1000.0
        });
        let with_pull = best(7, || {
            let started = Instant::now();
            for _ in 0..binds {
                let scope = Scope::bind(&child, kind, &parent, Vec::new()).unwrap();
                black_box(scope.lock().pull(all).unwrap());
            }
            started.elapsed().as_nanos() as f64 / binds as f64 / 1000.0
        });
        // for_each over 10,000 tuples: one binding of the body per tuple.
        let body = program(
            "free k\nfree c0\nfree l0\nfree s0\ninput cycle: u64\nv := u64_add(u64_xor(k, c0), u64_add(l0, s0))",
            Some(&parent),
            &[("k", PortType::U64)],
        );
        let v = body.output("v").unwrap();
        let tuples = 10_000u64;
        let for_each_ms = best(5, || {
            let started = Instant::now();
            for k in 0..tuples {
                let scope = Scope::bind(&body, kind, &parent, vec![("k".into(), Value::U64(k))]).unwrap();
                black_box(scope.lock().pull(v).unwrap());
            }
            started.elapsed().as_secs_f64() * 1000.0
        });
        println!(
            "{:<8} bind 20 externs: {per_bind:6.2} µs ({with_pull:6.2} µs with a pull) | for_each 10,000 tuples: \
             {for_each_ms:7.2} ms ({:5.2} µs/tuple)",
            kind.name(),
            for_each_ms * 1000.0 / tuples as f64
        );
    }
}
