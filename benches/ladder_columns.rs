//! The hand-written Rust baseline of `benches/python/ladder.py`: the ladder's
//! four columns over `--rows` rows computed by a plain loop (the function of
//! `ladder_ir.rs`, built by LLVM at the bench profile's `-O3`), into four
//! `Vec<u64>` columns allocated once and reused for every round (`reused`),
//! and into four columns allocated afresh each round (`fresh`). Prints the
//! best round's ns per row of each as JSON, for the Python bench to read.
//! `--only reused` (or `fresh`) runs one of the two (for instruction counts).
//!
//!     cargo bench -p polydat-core --bench ladder_columns -- --rows 10000000 --rounds 5

use std::hint::black_box;
use std::time::Instant;

#[path = "ladder_ir.rs"]
#[allow(dead_code)]
mod ladder_ir;
use ladder_ir::{ladder_by_hand, OPERATION_SEED, TENANT_SEED};

/// Fills rows `0..columns[0].len()` of the four columns.
#[inline(never)]
fn fill(columns: &mut [Vec<u64>; 4], tenant: u64, operation: u64) {
    let [a, s, p, t] = columns;
    let rows = a.len();
    let (s, p, t) = (&mut s[..rows], &mut p[..rows], &mut t[..rows]);
    for i in 0..rows {
        let [account, shard, payload, token] = ladder_by_hand(i as u64, tenant, operation);
        a[i] = account;
        s[i] = shard;
        p[i] = payload;
        t[i] = token;
    }
}

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn main() {
    let rows = arg("--rows", 10_000_000);
    let rounds = arg("--rounds", 5).max(1);
    let args: Vec<String> = std::env::args().collect();
    let only = args.iter().position(|a| a == "--only").and_then(|i| args.get(i + 1)).cloned().unwrap_or_default();
    let (tenant, operation) = (black_box(TENANT_SEED), black_box(OPERATION_SEED));
    let mut reused: [Vec<u64>; 4] = std::array::from_fn(|_| vec![1u64; rows]);
    let (mut best_reused, mut best_fresh) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..rounds {
        if only != "fresh" {
            let start = Instant::now();
            fill(&mut reused, tenant, operation);
            black_box(&reused);
            best_reused = best_reused.min(start.elapsed().as_secs_f64());
        }
        if only != "reused" {
            let start = Instant::now();
            let mut fresh: [Vec<u64>; 4] = std::array::from_fn(|_| vec![0u64; rows]);
            fill(&mut fresh, tenant, operation);
            black_box(&fresh);
            best_fresh = best_fresh.min(start.elapsed().as_secs_f64());
            drop(fresh);
        }
    }
    if only == "fresh" {
        fill(&mut reused, tenant, operation);
    }
    assert_eq!(
        [reused[0][rows - 1], reused[1][rows - 1], reused[2][rows - 1], reused[3][rows - 1]],
        ladder_by_hand(rows as u64 - 1, TENANT_SEED, OPERATION_SEED)
    );
    let per_row = |s: f64| s / rows as f64 * 1e9;
    println!("{{\"rows\": {rows}, \"reused\": {:.4}, \"fresh\": {:.4}}}", per_row(best_reused), per_row(best_fresh));
}
