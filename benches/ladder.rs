//! Criterion: per-cycle cost of every engine on the engine-ladder graph
//! — P1, each P2 and P3 provenance mode, and the mixed engine — beside the hand-written Rust
//! function computing the same four outputs, in the same run.
//! One iteration = one cycle: write the three inputs (cycle bumped, seeds
//! fixed), then read the four outputs as raw words (upstream's loop is
//! `eval` then `get_slot` ×4). Each engine and mode is measured three ways:
//! through the engine-neutral `Box<dyn Kernel>` (what Python drives: three
//! `write_u64`, four `pull_word`), through its row filler prepared once
//! (`Kernel::rows`, rows `*_rows`: the writes and the read as one call), and
//! as its concrete type (no dynamic dispatch: writes and reads, upstream's
//! P1 and P2 rungs; `p3_raw_rows_concrete` is P3 Raw's filler so).

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use polydat_core::engine::compiled::kernel::CompiledRows;
use polydat_core::engine::p1::P1Kernel;
use polydat_core::engine::p2::{self, modes::Mode, P2Kernel, Provenance};
use polydat_core::engine::p3::{self, P3Kernel};
use polydat_core::engine::GenerateError;
use polydat_core::engine::{new_kernel, EngineKind, Kernel};

#[path = "ladder_ir.rs"]
mod ladder_ir;
use ladder_ir::*;

fn concrete<K: Kernel>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    mut kernel: K,
    outs: &[usize],
) {
    let mut cycle = 1u64;
    let mut words = [0u64; 4];
    group.bench_function(format!("{name}_concrete"), |b| {
        b.iter(|| {
            cycle = cycle.wrapping_add(1);
            kernel.write_u64(0, cycle).unwrap();
            kernel.write_u64(1, TENANT_SEED).unwrap();
            kernel.write_u64(2, OPERATION_SEED).unwrap();
            for (word, &out) in words.iter_mut().zip(outs) {
                *word = kernel.pull_word(out).unwrap();
            }
            black_box(&words);
        })
    });
    for cyc in [0, 1, 42, u64::MAX] {
        kernel.write_u64(0, cyc).unwrap();
        kernel.write_u64(1, TENANT_SEED).unwrap();
        kernel.write_u64(2, OPERATION_SEED).unwrap();
        let got: Vec<u64> = outs.iter().map(|&o| kernel.pull_word(o).unwrap()).collect();
        assert_eq!(got, ladder_by_hand(cyc, TENANT_SEED, OPERATION_SEED), "{name}");
    }
}

/// Benchmarks `read` as `name`: per iteration, the three inputs of the next
/// cycle written and the four outputs read in one call. Then checks that it
/// computes what the hand-written function computes.
fn row_reads(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    mut read: impl FnMut(&[u64], &mut [u64]) -> Result<(), GenerateError>,
) {
    let (mut cycle, mut words) = (1u64, [0u64; 4]);
    group.bench_function(name, |b| {
        b.iter(|| {
            cycle = cycle.wrapping_add(1);
            read(&[cycle, TENANT_SEED, OPERATION_SEED], &mut words).unwrap();
            black_box(&words);
        })
    });
    for cyc in [0, 1, 42, u64::MAX] {
        read(&[cyc, TENANT_SEED, OPERATION_SEED], &mut words).unwrap();
        assert_eq!(words, ladder_by_hand(cyc, TENANT_SEED, OPERATION_SEED), "{name}");
    }
}

/// The P2 kernel of mode `M`, as its concrete type.
fn p2_concrete<M: Mode>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    program: &std::sync::Arc<polydat_core::Program>,
    outs: &[usize],
) {
    concrete(group, &format!("p2_{}", M::PROVENANCE.name()), P2Kernel::<M>::new(program), outs);
}

/// The P3 kernel of mode `M`, as its concrete type.
fn p3_concrete<M: Mode>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    program: &std::sync::Arc<polydat_core::Program>,
    outs: &[usize],
) {
    concrete(group, &format!("p3_{}", M::PROVENANCE.name()), P3Kernel::<M>::with_plan(p3::plan(program)), outs);
}

fn ladder(c: &mut Criterion) {
    let program = ladder_program();
    let outs: Vec<usize> = OUTPUTS.iter().map(|n| program.output(n).unwrap()).collect();
    let mut group = c.benchmark_group("ladder");
    group.throughput(Throughput::Elements(1));

    let mut cycle = 1u64;
    group.bench_function("hand_written", |b| {
        b.iter(|| {
            cycle = cycle.wrapping_add(1);
            black_box(ladder_by_hand(black_box(cycle), black_box(TENANT_SEED), black_box(OPERATION_SEED)))
        })
    });

    let kinds = std::iter::once(EngineKind::P1)
        .chain(Provenance::ALL.map(EngineKind::P2))
        .chain(Provenance::ALL.map(EngineKind::P3))
        .chain([EngineKind::Mixed]);
    for kind in kinds {
        let mut kernel: Box<dyn Kernel> = new_kernel(&program, kind);
        let mut cycle = 1u64;
        let mut words = [0u64; 4];
        let name = kind.name().replace('/', "_");
        group.bench_function(&name, |b| {
            b.iter(|| {
                cycle = cycle.wrapping_add(1);
                kernel.write_u64(0, cycle).unwrap();
                kernel.write_u64(1, TENANT_SEED).unwrap();
                kernel.write_u64(2, OPERATION_SEED).unwrap();
                for (word, &out) in words.iter_mut().zip(&outs) {
                    *word = kernel.pull_word(out).unwrap();
                }
                black_box(&words);
            })
        });
        // The same cycle through the row filler, prepared once.
        let mut rows = kernel.rows(&outs).unwrap();
        row_reads(&mut group, &format!("{name}_rows"), |values, words| rows.read_words(values, words));
        drop(rows);
        // Sanity: every engine computes what the hand-written function computes.
        for cyc in [0, 1, 42, u64::MAX] {
            kernel.write_u64(0, cyc).unwrap();
            kernel.write_u64(1, TENANT_SEED).unwrap();
            kernel.write_u64(2, OPERATION_SEED).unwrap();
            let got: Vec<u64> = outs.iter().map(|&o| kernel.pull(o).unwrap().as_u64().unwrap()).collect();
            assert_eq!(got, ladder_by_hand(cyc, TENANT_SEED, OPERATION_SEED), "{}", kind.name());
        }
    }

    concrete(&mut group, "p1", P1Kernel::new(program.clone()), &outs);
    p2_concrete::<p2::modes::Raw>(&mut group, &program, &outs);
    p2_concrete::<p2::modes::Push>(&mut group, &program, &outs);
    p2_concrete::<p2::modes::Pull>(&mut group, &program, &outs);
    p2_concrete::<p2::modes::PushPull>(&mut group, &program, &outs);
    p3_concrete::<p2::modes::Raw>(&mut group, &program, &outs);
    p3_concrete::<p2::modes::Push>(&mut group, &program, &outs);
    p3_concrete::<p2::modes::Pull>(&mut group, &program, &outs);
    p3_concrete::<p2::modes::PushPull>(&mut group, &program, &outs);

    // P3 Raw's row filler as its concrete type: one native call per cycle.
    let mut kernel = P3Kernel::<p2::modes::Raw>::with_plan(p3::plan(&program));
    let mut rows = CompiledRows::new(&mut kernel, &outs);
    row_reads(&mut group, "p3_raw_rows_concrete", |values, words| rows.read(values, words));
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(std::time::Duration::from_secs(1)).measurement_time(std::time::Duration::from_secs(3));
    targets = ladder
}
criterion_main!(benches);
