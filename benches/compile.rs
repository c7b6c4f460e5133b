//! Criterion: compile latency, source IR to a runnable kernel plan, for the
//! ladder and for generated programs of 10 to 20,000 nodes: the passes alone
//! (`compile`), then the passes plus native code for P3 (every step's own
//! function and the per-cycle sweep, what the first P3 kernel waits for) and
//! plus the mixed engine's segmented program.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use polydat_core::compile::{compile, sketch, CompileOptions};
use polydat_core::engine::p3;
use polydat_core::ir::GraphIr;
use std::sync::Arc;

#[path = "ladder_ir.rs"]
#[allow(dead_code)] // the hand-written ladder is for the ladder bench
mod ladder_ir;

/// A program of `nodes` bindings: hashes, adds, xors and modulos by
/// constants over a window of earlier values (every binding an output).
fn generated(nodes: usize) -> GraphIr {
    let mut text = String::from("input cycle: u64\nextern seed: u64 = 7\nv0 := hash(cycle)\n");
    for i in 1..nodes {
        let (a, b) = (i - 1, i / 2);
        let line = match i % 4 {
            0 => format!("v{i} := hash(v{a})\n"),
            1 => format!("v{i} := u64_add(v{a}, v{b})\n"),
            2 => format!("v{i} := u64_xor(v{a}, seed)\n"),
            _ => format!("v{i} := mod(v{a}, {})\n", 1000 + i),
        };
        text.push_str(&line);
    }
    sketch::parse(&text).expect("generated program parses")
}

fn compile_latency(c: &mut Criterion) {
    let options = CompileOptions::default();
    let mut group = c.benchmark_group("compile");
    group.sample_size(10);
    let programs: Vec<(String, GraphIr)> = std::iter::once(("ladder".to_string(), ladder_ir::ladder_ir()))
        .chain([10, 100, 1000, 2000, 20_000].map(|n| (format!("{n}_nodes"), generated(n))))
        .collect();
    for (name, ir) in &programs {
        group.bench_with_input(BenchmarkId::new("passes", name), ir, |b, ir| {
            b.iter(|| black_box(compile(ir, &options).unwrap()))
        });
        group.bench_with_input(BenchmarkId::new("passes_and_p3", name), ir, |b, ir| {
            b.iter(|| {
                let program = Arc::new(compile(ir, &options).unwrap());
                black_box(p3::plan(&program));
            })
        });
        group.bench_with_input(BenchmarkId::new("passes_and_mixed", name), ir, |b, ir| {
            b.iter(|| {
                let program = Arc::new(compile(ir, &options).unwrap());
                black_box(p3::plan_of::<p3::Segments>(&program));
            })
        });
    }
    group.finish();
}

criterion_group!(benches, compile_latency);
criterion_main!(benches);
