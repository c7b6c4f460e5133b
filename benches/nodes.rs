//! Criterion: what the engines cost per node and per invalidation, and on
//! string nodes, every engine and provenance mode in one run:
//!
//! * `chain/<n>`: a chain of `n` alternating `hash` and `mod` nodes, one read
//!   of its end per cycle (per-node cost is the slope from 1 to 64).
//! * `guard/hit` and `guard/miss`: a broad output read again with nothing
//!   changed (every mode that tracks provenance skips it), and read after
//!   its one input changed.
//! * `all_dirty`: every one of 64 outputs read after their shared input
//!   changed (Push re-runs every dependent at the write).
//! * `strings/<node>`: interpolation, `one_of`, `format_f64` and a pick
//!   from the bundled first names, read by value.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use polydat_core::compile::{compile, sketch, CompileOptions};
use polydat_core::engine::{new_kernel, EngineKind, Kernel};
use polydat_core::provenance::Provenance;
use polydat_core::Program;
use std::sync::Arc;

fn program(text: &str) -> Arc<Program> {
    let ir = sketch::parse(text).expect("bench program parses");
    Arc::new(compile(&ir, &CompileOptions::default()).expect("bench program compiles"))
}

/// Every engine and mode, by name.
fn kinds() -> Vec<EngineKind> {
    std::iter::once(EngineKind::P1)
        .chain(Provenance::ALL.map(EngineKind::P2))
        .chain(Provenance::ALL.map(EngineKind::P3))
        .chain([EngineKind::Mixed])
        .collect()
}

fn chain(n: usize) -> String {
    let mut text = String::from("input cycle: u64\nv0 := hash(cycle)\n");
    for i in 1..n {
        let line = match i % 2 {
            0 => format!("v{i} := hash(v{})\n", i - 1),
            _ => format!("v{i} := mod(v{}, {})\n", i - 1, 1_000_003 + i),
        };
        text.push_str(&line);
    }
    text
}

/// Times one read of output `out` per iteration, writing the coordinate
/// first with `next(cycle)` (the same value: nothing changed).
fn reads(c: &mut Criterion, group: &str, p: &Arc<Program>, out: usize, next: fn(u64) -> u64) {
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Elements(1));
    for kind in kinds() {
        let mut k: Box<dyn Kernel> = new_kernel(p, kind);
        let mut cycle = 1u64;
        g.bench_function(BenchmarkId::from_parameter(kind.name().replace('/', "_")), |b| {
            b.iter(|| {
                cycle = next(cycle);
                k.write_u64(0, cycle).unwrap();
                black_box(k.pull(out).unwrap());
            })
        });
    }
    g.finish();
}

fn chains(c: &mut Criterion) {
    for n in [1, 4, 16, 64] {
        let p = program(&chain(n));
        let end = p.output(&format!("v{}", n - 1)).unwrap();
        reads(c, &format!("chain/{n}"), &p, end, |c| c.wrapping_add(1));
    }
}

fn invalidation(c: &mut Criterion) {
    let p = program(&chain(64));
    let end = p.output("v63").unwrap();
    reads(c, "guard/hit", &p, end, |c| c);
    reads(c, "guard/miss", &p, end, |c| c.wrapping_add(1));
    // 64 outputs over one input, all read after every write.
    let mut text = String::from("input cycle: u64\nh := hash(cycle)\n");
    (0..64).for_each(|i| text.push_str(&format!("o{i} := mod(h, {})\n", 1000 + i)));
    let p = program(&text);
    let outs: Vec<usize> = (0..64).map(|i| p.output(&format!("o{i}")).unwrap()).collect();
    let mut g = c.benchmark_group("all_dirty");
    g.throughput(Throughput::Elements(1));
    for kind in kinds() {
        let mut k: Box<dyn Kernel> = new_kernel(&p, kind);
        let (mut cycle, mut words) = (1u64, vec![0u64; outs.len()]);
        let mut rows = k.rows(&outs).unwrap();
        g.bench_function(BenchmarkId::from_parameter(kind.name().replace('/', "_")), |b| {
            b.iter(|| {
                cycle = cycle.wrapping_add(1);
                rows.read_words(&[cycle], &mut words).unwrap();
                black_box(&words);
            })
        });
    }
    g.finish();
}

fn strings(c: &mut Criterion) {
    let cases = [
        ("interpolation", "input cycle: u64\nh := hash(cycle)\nout := printf(\"user-{}-{}\", h, cycle)"),
        ("one_of", "input cycle: u64\nh := hash(cycle)\nout := one_of(h, \"red\", \"green\", \"blue\", \"amber\")"),
        ("format_f64", "input cycle: u64\nh := hash(cycle)\nu := unit_interval(h)\nout := format_f64(u, 3)"),
        ("first_names", "input cycle: u64\nh := hash(cycle)\nout := first_names(h)"),
    ];
    for (name, text) in cases {
        let p = program(text);
        let out = p.output("out").unwrap();
        reads(c, &format!("strings/{name}"), &p, out, |c| c.wrapping_add(1));
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(std::time::Duration::from_millis(300)).measurement_time(std::time::Duration::from_secs(1));
    targets = chains, invalidation, strings
}
criterion_main!(benches);
