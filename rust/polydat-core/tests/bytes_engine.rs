//! The compiled engines run string steps by their nodes' by-bytes forms
//! (writing scratch entries in place, sweeping, `generate` pushing scratch
//! bytes) and must give P1's values, `None`s and failures exactly: every
//! P2 and P3 mode and the mixed engine against P1 on a program of chained
//! string steps — by-reference inputs from other by-bytes steps and from
//! `str` externs, a `None` extern, a node that accepts `None`, and a by-bytes
//! step that fails on some rows — read one output at a time, all at once,
//! and by `generate`.

use polydat_core::compile::sketch;
use polydat_core::compile::{compile, CompileOptions};
use polydat_core::engine::compiled::plan::Executor;
use polydat_core::engine::{new_kernel, p2, p3, EngineKind, Kernel, Provenance};
use polydat_core::generation::{generate, RowPlan};
use polydat_core::{Program, Value};
use std::sync::Arc;

const STRINGS: &str = r#"input cycle: u64
extern tag: str
extern name: str
h := hash(cycle)
n := mod(h, 1000)
f := unit_interval(h)
pick := one_of(h, "red", "green", "blue")
label := printf("{}-{:05}-{:.3}-{}", pick, n, f, tag)
low := str_lower(label)
up := str_upper(pick)
both := str_concat(low, "/", up, n, f)
named := printf("<{}>", name)
fallback := default_or(name, label)
chosen := select_str(mod(cycle, 2), label, pick)
money := format_f64(f, 2)
pad := zero_pad_u64(n, 6)
day := to_date(mod(h, 253402300799999))
first := first_names_all(h)
full := printf("{} {}", first, last_names(hash(h)))
uuid := hashed_uuid(cycle)
len := select(u64_eq(mod(cycle, 37), 5), 18446744073709551615, mod(cycle, 9))
chars := char_buf(h, "a-z", len)
tail := str_concat(chars, "!")"#;

fn program(src: &str) -> Arc<Program> {
    let ir = sketch::parse(src).unwrap();
    Arc::new(compile(&ir, &CompileOptions::default()).unwrap_or_else(|e| panic!("{e}")))
}

fn compiled() -> Vec<EngineKind> {
    let p2 = Provenance::ALL.into_iter().map(EngineKind::P2);
    let p3 = Provenance::ALL.into_iter().map(EngineKind::P3);
    p2.chain(p3).chain([EngineKind::Mixed]).collect()
}

fn show(r: Result<Value, polydat_core::EvalError>) -> String {
    match r {
        Ok(Value::Str(s)) => format!("Str({s:?})"),
        Ok(Value::F64(x)) => format!("F64({:#x})", x.to_bits()),
        Ok(other) => format!("{other:?}"),
        Err(e) => format!("error: {e}"),
    }
}

#[test]
fn the_plan_runs_string_steps_by_bytes_and_sweeps() {
    let p = program(STRINGS);
    let plan = p2::plan(&p);
    let (_, bytes, _) = plan.shape.step_counts();
    assert!(bytes >= 15, "by-bytes steps: {bytes}");
    // Through the slot kit: only default_or (it accepts None) and the
    // literals (constants: they run once).
    let kit_nodes: Vec<&str> = (0..p.steps.len())
        .filter(|&s| !plan.shape.steps[s].scalar && !plan.shape.steps[s].bytes)
        .map(|s| p.steps[s].def.name)
        .filter(|&n| n != "__lit")
        .collect();
    assert_eq!(kit_nodes, ["default_or"]);
    // default_or keeps the program from sweeping; without it, it sweeps.
    let without = program(&STRINGS.replace("fallback := default_or(name, label)\n", ""));
    assert!(p2::plan(&without).executor.sweeps() && p3::plan(&without).executor.sweeps());
}

#[test]
fn reads_match_p1_on_every_compiled_engine() {
    for src in [STRINGS.to_string(), STRINGS.replace("fallback := default_or(name, label)\n", "")] {
        let p = program(&src);
        let outs: Vec<usize> = (0..p.outputs.len()).filter(|&o| !p.outputs[o].name.starts_with("__")).collect();
        let mut oracle = new_kernel(&p, EngineKind::P1);
        let mut kernels: Vec<(EngineKind, Box<dyn Kernel>)> =
            compiled().into_iter().map(|k| (k, new_kernel(&p, k))).collect();
        let name = p.input("name").unwrap();
        let tag = p.input("tag").unwrap();
        for cycle in 0..300u64 {
            let writes: Vec<(usize, Value)> = match cycle {
                // `tag` is None (no default) until then: label and what reads it are None.
                20 => vec![(tag, Value::str("T"))],
                100 => vec![(name, Value::str("Zoë"))],
                150 => vec![(tag, Value::str("ΣΑΣ"))],
                200 => vec![(name, Value::None)],
                250 => vec![(tag, Value::str(""))],
                _ => vec![],
            };
            let mut want = Vec::new();
            for (i, v) in &writes {
                oracle.write(*i, v.clone()).unwrap();
            }
            oracle.write_u64(0, cycle).unwrap();
            // One output at a time, in a rotating order, then all at once.
            for k in 0..outs.len() {
                let o = outs[(k + cycle as usize) % outs.len()];
                want.push(show(oracle.pull(o)));
            }
            want.push(match oracle.eval() {
                Ok(vs) => vs.into_iter().map(|v| show(Ok(v))).collect::<Vec<_>>().join(","),
                Err(e) => format!("error: {e}"),
            });
            for (kind, kernel) in kernels.iter_mut() {
                for (i, v) in &writes {
                    kernel.write(*i, v.clone()).unwrap();
                }
                kernel.write_u64(0, cycle).unwrap();
                let mut got = Vec::new();
                for k in 0..outs.len() {
                    let o = outs[(k + cycle as usize) % outs.len()];
                    got.push(show(kernel.pull(o)));
                }
                got.push(match kernel.eval() {
                    Ok(vs) => vs.into_iter().map(|v| show(Ok(v))).collect::<Vec<_>>().join(","),
                    Err(e) => format!("error: {e}"),
                });
                assert_eq!(got, want, "{} at cycle {cycle}", kind.name());
            }
        }
    }
}

#[test]
fn generate_matches_p1_and_fails_at_the_same_row() {
    let p = program(&STRINGS.replace("fallback := default_or(name, label)\n", ""));
    let good: Vec<usize> = ["label", "low", "both", "chosen", "money", "pad", "day", "full", "uuid", "n", "f"]
        .map(|o| p.output(o).unwrap())
        .into();
    let (name, tag) = (p.input("name").unwrap(), p.input("tag").unwrap());
    for fixed in
        [vec![(tag, Value::str("T")), (name, Value::str(""))], vec![(tag, Value::str("é")), (name, Value::str("x"))]]
    {
        let mut outs = good.clone();
        outs.push(p.output("named").unwrap());
        let rows = RowPlan { fixed: fixed.clone(), ..RowPlan::range(0, 3, 3 + 5000, 1) };
        let want = generate(&p, EngineKind::P1, &rows, &outs, 1).unwrap();
        for kind in compiled() {
            for threads in [1, 2] {
                let got = generate(&p, kind, &rows, &outs, threads).unwrap();
                for (c, (a, b)) in want.iter().zip(&got).enumerate() {
                    assert_eq!(a.nulls, b.nulls, "{} x{threads}: column {c}'s nulls", kind.name());
                    let same = a.to_values().iter().zip(b.to_values()).all(|(x, y)| x.same(&y));
                    assert!(same && a.len() == b.len(), "{} x{threads}: column {c}", kind.name());
                }
            }
        }
    }
    // A by-bytes step that fails on some rows: the same error, from the same row.
    let outs = vec![p.output("label").unwrap(), p.output("tail").unwrap()];
    let rows =
        RowPlan { fixed: vec![(tag, Value::str("T")), (name, Value::str("n"))], ..RowPlan::range(0, 0, 3000, 1) };
    let want = generate(&p, EngineKind::P1, &rows, &outs, 1).unwrap_err().to_string();
    assert!(want.contains("exceeds the limit") && want.contains("char_buf"), "{want}");
    for kind in compiled() {
        for threads in [1, 2] {
            let got = generate(&p, kind, &rows, &outs, threads).unwrap_err().to_string();
            assert_eq!(got, want, "{} x{threads}", kind.name());
        }
    }
}

/// Text steps that append to their columns run a chunk of rows at a time
/// in the sweep path (over scalar words, and over texts other steps made);
/// a row that leaves the sweep (here one whose `maybe` is absent, in the
/// middle of a chunk) takes the whole chunk back and runs it again with
/// every step in its row, so every column keeps P1's rows, in order, once each.
#[test]
fn text_steps_run_a_chunk_at_a_time_and_a_chunk_left_midway_is_taken_back_whole() {
    let p = program(
        r#"input cycle: u64
h := hash(cycle)
n := mod(h, 1000)
money := format_f64(unit_interval(h), 2)
pad := zero_pad_u64(n, 6)
id := printf("{}-{}", n, cycle)
day := to_date(mod(h, 253402300799999))
both := printf("{}/{}", pad, money)
sometimes := maybe(n, 0.001, cycle)
"#,
    );
    let names = ["money", "pad", "id", "day", "both", "sometimes"];
    let outs: Vec<usize> = names.map(|o| p.output(o).unwrap()).into();
    let rows = RowPlan::range(0, 0, 5000, 1);
    let want = generate(&p, EngineKind::P1, &rows, &outs, 1).unwrap();
    // The rows that leave the sweep (which starts at the second row, in
    // chunks of 1024), none at a chunk's edge.
    assert!(!want[5].nulls.is_empty(), "no absent row");
    assert!(want[5].nulls.iter().all(|&r| r % 1024 > 1), "{:?}", want[5].nulls);
    for kind in compiled() {
        for threads in [1, 2] {
            let got = generate(&p, kind, &rows, &outs, threads).unwrap();
            for (c, (a, b)) in want.iter().zip(&got).enumerate() {
                assert_eq!(a.len(), b.len(), "{} x{threads}: {}'s rows", kind.name(), names[c]);
                assert_eq!(a.nulls, b.nulls, "{} x{threads}: {}'s nulls", kind.name(), names[c]);
                let same = a.to_values().iter().zip(b.to_values()).all(|(x, y)| x.same(&y));
                assert!(same, "{} x{threads}: {}", kind.name(), names[c]);
            }
        }
    }
}
