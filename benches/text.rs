//! The text writers over one batch of TPC-H-`lineitem`-shaped columns as
//! `examples/tpch` writes them (65,536 rows: `i64` keys, `decimal(15, 2)`
//! amounts, dates, short texts and comments, some holding a comma): CSV
//! and JSON Lines, bytes per second of text written.
//!
//!     cargo bench -p polydat-core --bench text

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use polydat_core::columns::text::{csv_rows, jsonl_rows};
use polydat_core::columns::Column;
use polydat_core::decimal::Decimal;
use polydat_core::types::{DecimalType, PortType};
use polydat_core::value::Value;

const ROWS: usize = 65_536;

/// A small deterministic mix of a row number (splitmix64's finalizer).
fn mix(i: u64, salt: u64) -> u64 {
    let mut z = i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ salt;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn column(ty: PortType, value: impl Fn(u64) -> Value) -> Column {
    let mut c = Column::new(ty, ROWS).expect("memory");
    let mut parts = c.split(&[ROWS]);
    (0..ROWS as u64).for_each(|i| parts[0].push(&value(i)));
    let done = parts.into_iter().map(|p| p.done()).collect();
    c.absorb(done).expect("memory");
    c
}

fn lineitem() -> Vec<Column> {
    const WORDS: [&str; 16] = [
        "furiously",
        "regular,",
        "ideas",
        "sleep",
        "blithely",
        "final",
        "deposits",
        "beans",
        "quickly",
        "even",
        "accounts",
        "haggle",
        "slyly",
        "bold",
        "packages",
        "nag",
    ];
    let word = |i: u64, salt: u64| WORDS[(mix(i, salt) % 16) as usize];
    let key = |salt: u64| column(PortType::I64, move |i| Value::I64((mix(i, salt) % 6_000_000) as i64));
    let money = DecimalType { precision: 15, scale: 2 };
    let cents = |salt: u64, most: u64| {
        column(PortType::Decimal(money), move |i| {
            Value::Decimal(Decimal::new(i128::from(mix(i, salt) % most), money).expect("in range"))
        })
    };
    let day = |salt: u64| column(PortType::Date, move |i| Value::Date(8035 + (mix(i, salt) % 2500) as i32));
    let pick = |salt: u64, of: &'static [&'static str]| {
        column(PortType::Str, move |i| Value::str(of[(mix(i, salt) % of.len() as u64) as usize]))
    };
    vec![
        key(1),
        key(2),
        key(3),
        column(PortType::I32, |i| Value::I32(1 + (i % 7) as i32)),
        cents(4, 5000),
        cents(5, 10_000_000),
        cents(6, 11),
        cents(7, 9),
        pick(8, &["R", "A", "N"]),
        pick(9, &["O", "F"]),
        day(10),
        day(11),
        day(12),
        pick(13, &["DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"]),
        pick(14, &["REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"]),
        column(PortType::Str, move |i| Value::str(format!("{} {} {}", word(i, 15), word(i, 16), word(i, 17)))),
    ]
}

fn writers(c: &mut Criterion) {
    let columns = lineitem();
    let refs: Vec<&Column> = columns.iter().collect();
    let names: Vec<String> = (0..refs.len()).map(|i| format!("c{i}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut out = Vec::new();
    let mut group = c.benchmark_group("text");
    csv_rows(&refs, &mut out).expect("memory");
    group.throughput(Throughput::Bytes(out.len() as u64));
    group.bench_function("csv_lineitem", |b| {
        b.iter(|| {
            out.clear();
            csv_rows(black_box(&refs), &mut out).expect("memory");
        })
    });
    out.clear();
    jsonl_rows(&names, &refs, &mut out).expect("memory");
    group.throughput(Throughput::Bytes(out.len() as u64));
    group.bench_function("jsonl_lineitem", |b| {
        b.iter(|| {
            out.clear();
            jsonl_rows(&names, black_box(&refs), &mut out).expect("memory");
        })
    });
    group.finish();
}

criterion_group!(benches, writers);
criterion_main!(benches);
