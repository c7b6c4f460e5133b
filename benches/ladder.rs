//! Criterion: P1 per-cycle cost on the engine-ladder graph, beside the
//! hand-written function, in the same run. One iteration = one cycle: write the
//! three inputs, read the four outputs.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use polydat_core::engine::{new_kernel, EngineKind};

#[path = "ladder_ir.rs"]
mod ladder_ir;
use ladder_ir::*;

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

    let mut kernel = new_kernel(&program, EngineKind::P1);
    let mut cycle = 1u64;
    group.bench_function("p1", |b| {
        b.iter(|| {
            cycle = cycle.wrapping_add(1);
            kernel.write_u64(0, cycle);
            kernel.write_u64(1, TENANT_SEED);
            kernel.write_u64(2, OPERATION_SEED);
            for &o in &outs {
                black_box(kernel.pull_slot(o).unwrap());
            }
        })
    });

    // Sanity: the engine computes what the hand-written function computes.
    for cyc in [0, 1, 42, u64::MAX] {
        kernel.write_u64(0, cyc);
        let got: Vec<u64> = outs.iter().map(|&o| kernel.pull(o).unwrap().as_u64().unwrap()).collect();
        assert_eq!(got, ladder_by_hand(cyc, TENANT_SEED, OPERATION_SEED));
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(std::time::Duration::from_secs(1)).measurement_time(std::time::Duration::from_secs(3));
    targets = ladder
}
criterion_main!(benches);
