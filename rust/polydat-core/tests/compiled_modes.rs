//! The compiled layer's runtime behaviour beyond value equivalence, run
//! through P2's closures: what each provenance mode
//! re-runs (observed with `__probe` counts), volatility, forks and Ref-slot
//! ownership, raw-read refusal, engine naming and the automatic selection,
//! `generate` on P2, and every library node running on P2.

mod common;
use common::ReadWords;

use common::{Rng, A, G};
use polydat_core::compile::select::{analyze, select, Request};
use polydat_core::compile::{compile, CompileOptions};
use polydat_core::engine::compiled::plan::Executor;
use polydat_core::engine::p2::{self, Provenance, PullKernel, PushPullKernel, RawKernel, SlotReadError};
use polydat_core::engine::{new_kernel, EngineKind, Kernel, ENGINE_NAMES};
use polydat_core::generation::{generate, RowPlan};
use polydat_core::ir::GraphIr;
use polydat_core::node::{Outputs, ParamKind, Purity, Ty};
use polydat_core::nodes::diagnostic::{probe_count, probe_reset};
use polydat_core::types::PortType;
use polydat_core::{Program, Value};
use std::sync::Arc;

const MODES: [Provenance; 4] = Provenance::ALL;

/// `a := probe(k)`, `b := a + cycle`, `o1 := probe(x)`, `o2 := probe(x)`,
/// `e1 := probe(u64_add(cycle, ek))` with coordinates cycle, x and externs k, ek.
fn probes(prefix: &str) -> Arc<Program> {
    let mut g = G::new();
    let cycle = g.coord("cycle", "u64");
    let x = g.coord("x", "u64");
    let k = g.ext("k", "u64", Some(A::U(3)));
    let ek = g.ext("ek", "u64", Some(A::U(1)));
    let a = g.bind("a", "__probe", &[k, A::S(leak(format!("{prefix}a")))]);
    g.bind("b", "u64_add", &[a, cycle]);
    g.bind("o1", "__probe", &[x, A::S(leak(format!("{prefix}o1")))]);
    g.bind("o2", "__probe", &[x, A::S(leak(format!("{prefix}o2")))]);
    let sum = g.node("u64_add", &[cycle, ek]);
    g.bind("e1", "__probe", &[sum, A::S(leak(format!("{prefix}e1")))]);
    for key in ["a", "o1", "o2", "e1"] {
        probe_reset(&format!("{prefix}{key}"));
    }
    g.build()
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

fn count(prefix: &str, key: &str) -> u64 {
    probe_count(&format!("{prefix}{key}"))
}

#[test]
fn every_mode_memoizes_and_extern_writes_dirty_exactly_their_dependents() {
    for mode in MODES {
        let prefix = format!("rt.memo.{}.", mode.name());
        let p = probes(&prefix);
        let mut k = new_kernel(&p, EngineKind::P2(mode));
        let (b, o1, e1) = (p.output("b").unwrap(), p.output("o1").unwrap(), p.output("e1").unwrap());
        k.write_u64(0, 1).unwrap();
        k.pull(b).unwrap();
        k.pull(o1).unwrap();
        k.pull(e1).unwrap();
        for _ in 0..5 {
            k.pull(b).unwrap();
            k.pull(o1).unwrap();
            k.pull(e1).unwrap();
        }
        assert_eq!(
            (count(&prefix, "a"), count(&prefix, "o1"), count(&prefix, "e1")),
            (1, 1, 1),
            "{mode:?}: no write, no re-run"
        );
        // Extern k feeds only `a`: writing it re-runs a (on the next pull of b) and nothing else.
        k.write(2, Value::U64(10)).unwrap();
        assert!(k.pull(b).unwrap().same(&Value::U64(11)));
        k.pull(o1).unwrap();
        k.pull(e1).unwrap();
        assert_eq!(
            (count(&prefix, "a"), count(&prefix, "o1"), count(&prefix, "e1")),
            (2, 1, 1),
            "{mode:?}: extern write"
        );
        // Extern ek feeds only e1.
        k.write(3, Value::U64(2)).unwrap();
        k.pull(b).unwrap();
        k.pull(e1).unwrap();
        assert_eq!((count(&prefix, "a"), count(&prefix, "e1")), (2, 2), "{mode:?}: second extern write");
        // invalidate_all: everything re-runs once.
        k.invalidate_all();
        k.pull(b).unwrap();
        k.pull(b).unwrap();
        assert_eq!(count(&prefix, "a"), 3, "{mode:?}: invalidate_all");
    }
}

#[test]
fn coordinate_writes_follow_each_mode() {
    for mode in MODES {
        let prefix = format!("rt.coord.{}.", mode.name());
        let p = probes(&prefix);
        let mut k = new_kernel(&p, EngineKind::P2(mode));
        let (b, o1, o2) = (p.output("b").unwrap(), p.output("o1").unwrap(), p.output("o2").unwrap());
        k.write_u64(1, 9).unwrap();
        k.pull(o1).unwrap();
        assert_eq!((count(&prefix, "o1"), count(&prefix, "o2")), (1, 0), "{mode:?}: o2 is in no pulled cone");
        k.pull(o2).unwrap();
        assert_eq!(count(&prefix, "o2"), 1);
        for c in 0..3 {
            k.write_u64(0, c).unwrap();
            assert!(k.pull(b).unwrap().same(&Value::U64(3 + c)));
            k.pull(o1).unwrap();
        }
        // `a` reads no coordinate; o1 reads x only. Raw re-runs every step of a
        // pulled cone after any coordinate write; Pull skips a clean cone
        // (o1) but re-runs all of a dirty one (b's, holding a); push modes
        // re-run only the dependents of the changed input.
        let expect = match mode {
            Provenance::Raw => (3, 4),
            Provenance::Pull => (3, 1),
            Provenance::Push | Provenance::PushPull => (1, 1),
        };
        assert_eq!((count(&prefix, "a"), count(&prefix, "o1")), expect, "{mode:?}: writes outside the cones");
        // Rewriting an equal value is not a change (except on Raw, which does not compare).
        k.write_u64(1, 9).unwrap();
        k.pull(o1).unwrap();
        let expect = if mode == Provenance::Raw { 5 } else { 1 };
        assert_eq!(count(&prefix, "o1"), expect, "{mode:?}: equal rewrite");
    }
}

#[test]
fn volatile_steps_are_never_current() {
    for mode in MODES {
        let prefix = format!("rt.vol.{}.", mode.name());
        let mut g = G::new();
        let cycle = g.coord("cycle", "u64");
        let k = g.ext("k", "u64", Some(A::U(3)));
        let stable = g.bind("stable", "__probe", &[k, A::S(leak(format!("{prefix}stable")))]);
        let c = g.bind("c", "counter", &[A::U(100)]);
        let w = g.bind("w", "u64_add", &[stable, c]);
        g.bind("x", "u64_sub", &[w, c]);
        g.bind("plain", "hash", &[cycle]);
        probe_reset(&format!("{prefix}stable"));
        let p = g.build();
        let mut kern = new_kernel(&p, EngineKind::P2(mode));
        let (wo, xo) = (p.output("w").unwrap(), p.output("x").unwrap());
        let first = kern.pull(wo).unwrap().as_u64().unwrap();
        let second = kern.pull(wo).unwrap().as_u64().unwrap();
        assert_eq!(second, first + 1, "{mode:?}: a volatile step runs on every read");
        assert!(kern.pull(xo).unwrap().same(&Value::U64(3)), "{mode:?}: one value per read for every consumer");
        assert_eq!(count(&prefix, "stable"), 1, "{mode:?}: steps upstream of the volatile one stay cached");
        let all = kern.eval().unwrap();
        assert!(all[p.output("x").unwrap()].same(&Value::U64(3)));
    }
}

fn string_program() -> Arc<Program> {
    let mut g = G::new();
    let cycle = g.coord("cycle", "u64");
    let name = g.ext("name", "str", Some(A::S("ada")));
    let digits = g.node("__u64_to_str", &[cycle]);
    g.bind("label", "str_concat", &[name, digits]);
    g.bind("upper", "str_upper", &[name]);
    g.bind("n", "hash", &[cycle]);
    g.build()
}

#[test]
fn forks_own_their_scratch() {
    let p = string_program();
    let label = p.output("label").unwrap();
    let mut a = PullKernel::new(&p);
    a.write_u64(0, 7).unwrap();
    assert!(a.pull(label).unwrap().same(&Value::str("ada7")));
    let mut b = a.fork();
    assert!(b.pairs_are_own() && a.pairs_are_own(), "a fork re-points every pair at its own scratch");
    // The fork starts current: same value without re-running, from its own bytes.
    assert!(b.pull(label).unwrap().same(&Value::str("ada7")));
    b.write(1, Value::str("grace")).unwrap();
    assert!(b.pull(label).unwrap().same(&Value::str("grace7")));
    assert!(a.pull(label).unwrap().same(&Value::str("ada7")), "the donor is untouched by its fork");
    a.write_u64(0, 12345).unwrap();
    assert!(a.pull(label).unwrap().same(&Value::str("ada12345")));
    assert!(b.pull(label).unwrap().same(&Value::str("grace7")), "the fork is untouched by its donor");
    drop(a);
    assert!(b.pull(label).unwrap().same(&Value::str("grace7")), "a fork outlives its donor");
    let mut c = b.clone();
    c.write_u64(0, 1).unwrap();
    assert!(c.pull(label).unwrap().same(&Value::str("grace1")) && c.pairs_are_own());
}

#[test]
fn raw_reads_refuse_ref_slots() {
    let p = string_program();
    let mut k = RawKernel::new(&p);
    k.write_u64(0, 3).unwrap();
    match k.pull_u64(p.output("label").unwrap()) {
        Err(SlotReadError::Refused(e)) => {
            assert_eq!(e.ty, PortType::Str);
            assert!(e.to_string().contains("'label' is a str Ref slot"), "{e}");
        }
        other => panic!("a raw read of a str output must be refused, got {other:?}"),
    }
    assert_eq!(k.pull_u64(p.output("n").unwrap()), Ok(Some(polydat_core::nodes::hash::splitmix64(3))));
    // A u64 write aimed at a str input is refused (the type mismatch is the
    // error) and never lands in the pair.
    let refused = k.write_u64(1, 99).unwrap_err().to_string();
    assert!(refused.contains("str"), "{refused}");
    assert!(k.pairs_are_own());
    assert!(k.pull(p.output("upper").unwrap()).unwrap().same(&Value::str("ADA")));
}

#[test]
fn a_held_string_survives_later_writes() {
    let p = string_program();
    let mut k = PushPullKernel::new(&p);
    k.write_u64(0, 1).unwrap();
    let held = k.pull(p.output("label").unwrap()).unwrap();
    for c in 2..50 {
        k.write_u64(0, c).unwrap();
        k.eval().unwrap();
    }
    assert!(held.same(&Value::str("ada1")), "reads are owned copies");
}

#[test]
fn engine_names_parse_and_select() {
    assert_eq!(ENGINE_NAMES[..5], ["p1", "p2/raw", "p2/push", "p2/pull", "p2/pushpull"]);
    assert_eq!(ENGINE_NAMES[5..], ["p3/raw", "p3/push", "p3/pull", "p3/pushpull", "mixed"]);
    for name in ENGINE_NAMES {
        assert_eq!(EngineKind::parse(name).unwrap().name(), name);
    }
    let p = string_program();
    let choose = |e: &str, pr: &str, p: &Program| Request::parse(e, pr).map(|r| select(p, r, e, pr).engine);
    let sel = |e: &str, pr: &str| choose(e, pr, &p).map(|k| k.name());
    assert_eq!(sel("p2", "pull"), Ok("p2/pull"));
    assert_eq!(sel("p2", "push"), Ok("p2/push"), "push is available when asked for");
    assert_eq!(sel("p2/raw", "auto"), Ok("p2/raw"));
    assert_eq!(sel("p2/raw", "raw"), Ok("p2/raw"));
    assert!(sel("p2/raw", "pull").is_err());
    assert!(sel("auto", "auto").unwrap().starts_with("p3/"), "string steps by bytes: P3 runs the whole program");
    let boxed = {
        let mut g = G::new();
        let cycle = g.coord("cycle", "u64");
        let e = g.ext("e", "u64", None);
        g.bind("kept", "default_or", &[e, cycle]);
        g.build()
    };
    assert_eq!(
        choose("auto", "auto", &boxed).map(|k| k.name()),
        Ok("mixed"),
        "a None-accepting step: the interpreter hosts native segments"
    );
    let scalar = forest(4, 0, 20);
    let auto = |p: &Program| choose("auto", "auto", p).map(|k| k.name());
    assert_eq!(auto(&scalar), Ok("p3/pull"), "every step native: P3 in the heuristic's mode");
    assert_eq!(sel("auto", "pushpull"), Ok("p3/pushpull"), "an explicit mode runs natively");
    assert_eq!(sel("p1", "auto"), Ok("p1"));
    let refused = choose("p1", "pull", &p).unwrap_err();
    assert_eq!(refused.engine, "p1/pull");
    assert!(choose("p2", "sideways", &p).is_err());
    assert_eq!(sel("p3", "raw"), Ok("p3/raw"));
    assert_eq!(sel("mixed", "auto"), Ok("mixed"));
    assert_eq!(choose("mixed", "raw", &p).unwrap_err().engine, "mixed/raw");
    assert!(choose("p9", "auto", &p).is_err());
    // auto: a broad cone that changes every cycle (`upper`, on an extern, is
    // too small a stable part for the guard to skip anything): Raw.
    assert_eq!(sel("p2", "auto"), Ok("p2/raw"));
    let tiny = forest(1, 0, 4);
    assert_eq!(choose("p2", "auto", &tiny).unwrap().name(), "p2/raw", "tiny and all dirty");
}

/// `roots` independent chains of `depth` steps, one per coordinate, plus
/// `stable` chains over externs.
fn forest(roots: usize, stable: usize, depth: usize) -> Arc<Program> {
    let mut g = G::new();
    let coords: Vec<A> = (0..roots).map(|i| g.coord(&format!("c{i}"), "u64")).collect();
    let params: Vec<A> = (0..stable).map(|i| g.ext(&format!("p{i}"), "u64", Some(A::U(i as u64)))).collect();
    for (r, &src) in coords.iter().chain(&params).enumerate() {
        let mut x = src;
        for d in 0..depth {
            // (hash and add: `mod(hash(x), K)` would fuse into one node.)
            x = if d % 2 == 0 { g.node("hash", &[x]) } else { g.node("add", &[x, A::U(1_000_003)]) };
        }
        g.out(&format!("out{r}"), x);
    }
    g.build()
}

#[test]
fn automatic_selection_follows_the_heuristic() {
    // One chain: the output cone is everything, nothing stable, 40 nodes:
    // the guard would never skip, so Raw.
    let a = analyze(&forest(1, 0, 40));
    assert_eq!((a.total_nodes, a.max_output_cone, a.stable_nodes), (40, 40, 0));
    assert_eq!(a.choice, Provenance::Raw);
    // Four independent roots: cone ratio 0.25 → Pull.
    let a = analyze(&forest(4, 0, 20));
    assert!((a.output_cone_ratio - 0.25).abs() < 1e-9);
    assert_eq!(a.choice, Provenance::Pull);
    // A big cone with stable parts: Pull (PushPull is never picked).
    let mut g = G::new();
    let cycle = g.coord("cycle", "u64");
    let k = g.ext("k", "u64", Some(A::U(1)));
    let mut s = k;
    for _ in 0..20 {
        s = g.node("hash", &[s]);
    }
    let mut x = g.node("u64_add", &[cycle, s]);
    for _ in 0..10 {
        x = g.node("hash", &[x]);
    }
    g.out("out", x);
    let a = analyze(&g.build());
    assert_eq!((a.total_nodes, a.stable_nodes, a.max_output_cone), (31, 20, 31));
    assert_eq!(a.choice, Provenance::Pull);
    // Tiny with a stable part: not Raw (the guard skips the stable half).
    assert_eq!(analyze(&forest(1, 1, 4)).choice, Provenance::Pull);
    // Push and PushPull are never chosen.
    for (r, s, d) in [(1, 0, 3), (3, 3, 10), (1, 5, 30), (6, 0, 30)] {
        assert!(matches!(analyze(&forest(r, s, d)).choice, Provenance::Raw | Provenance::Pull));
    }
}

#[test]
fn generate_on_p2_matches_p1_on_any_thread_count() {
    let p = string_program();
    let plan = RowPlan { fixed: vec![(1, Value::str("zed"))], ..RowPlan::range(0, 5, 20_000, 7) };
    let outs: Vec<usize> = (0..p.outputs.len()).collect();
    let want = generate(&p, EngineKind::P1, &plan, &outs, 1).unwrap();
    for mode in MODES {
        for threads in [1, 3] {
            let got = generate(&p, EngineKind::P2(mode), &plan, &outs, threads).unwrap();
            for (a, b) in want.iter().zip(&got) {
                assert_eq!(a.len(), b.len());
                assert!(a.to_values().iter().zip(b.to_values()).all(|(x, y)| x.same(&y)), "{mode:?} x{threads}");
            }
        }
    }
}

/// Builds a one-node program for catalog entry `def` with wires fed by inputs.
fn one_node_program(def: &polydat_core::node::NodeDef) -> Option<(Arc<Program>, Vec<PortType>)> {
    let mut inputs = Vec::new();
    let mut args = Vec::new();
    let mut types = Vec::new();
    for p in def.params {
        let reps = if p.variadic { 2 } else { 1 };
        for _ in 0..reps {
            match p.kind {
                ParamKind::Wire => {
                    let ty = match p.ty {
                        Ty::Is(t) => t,
                        Ty::Any => PortType::U64,
                        Ty::Decimal => PortType::DECIMAL_SAMPLE,
                    };
                    let i = inputs.len();
                    let kind = if i == 0 && ty == PortType::U64 { "coordinate" } else { "extern" };
                    inputs.push(format!(r#"{{"name": "w{i}", "type": "{}", "kind": "{kind}"}}"#, ty.keyword()));
                    args.push(format!(r#"{{"wire": {{"input": {i}}}}}"#));
                    types.push(ty);
                }
                ParamKind::Const => {
                    let c = match (p.default, p.ty) {
                        (Some(_), _) if !p.variadic => continue,
                        (_, Ty::Is(PortType::F64)) => r#"{"f64": 4602678819172646912}"#.to_string(),
                        (_, Ty::Is(PortType::Str)) => {
                            let n = def.wire_params().count().max(1);
                            format!(r#"{{"str": "v{}"}}"#, "{}".repeat(if def.name == "printf" { n + 1 } else { 1 }))
                        }
                        _ => r#"{"u64": 7}"#.to_string(),
                    };
                    args.push(format!(r#"{{"const": {c}}}"#));
                }
            }
        }
    }
    let outs = match def.outputs {
        Outputs::Named(list) => list.len(),
        Outputs::PerVariadicConst(_) => 2,
        _ => 1,
    };
    let outputs: Vec<String> =
        (0..outs).map(|o| format!(r#"{{"name": "o{o}", "wire": {{"node": {{"node": 0, "port": {o}}}}}}}"#)).collect();
    let json = format!(
        r#"{{"inputs": [{}], "nodes": [{{"op": "{}", "args": [{}]}}], "outputs": [{}]}}"#,
        inputs.join(","),
        def.name,
        args.join(","),
        outputs.join(",")
    );
    let ir = GraphIr::from_json(&json).ok()?;
    Some((Arc::new(compile(&ir, &CompileOptions::default()).ok()?), types))
}

fn value_of(ty: PortType, rng: &mut Rng) -> Value {
    let x = rng.next();
    match ty {
        PortType::U64 => Value::U64([0, 1, 7, 1000, u64::MAX, x][(x % 6) as usize]),
        PortType::I64 => Value::I64(x as i64 >> (x % 60)),
        PortType::U32 => Value::U32(x as u32),
        PortType::I32 => Value::I32(x as i32),
        PortType::U16 => Value::U16(x as u16),
        PortType::I16 => Value::I16(x as i16),
        PortType::U8 => Value::U8(x as u8),
        PortType::I8 => Value::I8(x as i8),
        PortType::U128 => Value::u128([0, 1, u128::MAX, u128::from(x) << 64 | u128::from(x)][(x % 4) as usize]),
        PortType::I128 => Value::i128([0, -1, i128::MIN, i128::MAX, -(i128::from(x) << 70)][(x % 5) as usize]),
        PortType::F64 => Value::F64([0.0, -0.0, 0.5, 1.0, f64::NAN, -3.25, 1e9][(x % 7) as usize]),
        PortType::F32 => Value::F32([0.0f32, 0.5, -2.5][(x % 3) as usize]),
        PortType::F16 => Value::F16(half::f16::from_f32([0.0f32, 0.5, -2.5][(x % 3) as usize])),
        PortType::Bool => Value::Bool(x & 1 == 0),
        PortType::Str => Value::str(["", "12", "abc", "héllo {}", "4000000000"][(x % 5) as usize]),
        PortType::Bytes => Value::Bytes(vec![1u8, 2, 3][..(x % 4) as usize].into()),
        PortType::Json => Value::Json("[1, 2]".into()),
        PortType::Timestamp => Value::Timestamp([0, -1, 1_704_067_200_123, i64::MIN, x as i64][(x % 5) as usize]),
        PortType::Date => Value::Date([0, -1, 8035, i32::MAX, x as i32][(x % 5) as usize]),
        PortType::Decimal(d) => {
            let units = [0, -1, 90_100, 10i128.pow(d.precision as u32) - 1, (x % 1_000_000) as i128][(x % 5) as usize];
            Value::Decimal(polydat_core::decimal::Decimal::new(units, d).expect("fits"))
        }
        PortType::Vector(t) => {
            let text = ["[]", "[3, 9, 14, 20]", "[-1, 7, 7, 0]", "[2147483647, -2147483648]"][(x % 4) as usize];
            polydat_core::vector::parse(t, text).expect("a list of every element type")
        }
    }
}

#[test]
fn every_library_node_runs_on_p2() {
    let mut ran = Vec::new();
    let mut skipped = Vec::new();
    for def in polydat_core::nodes::catalog() {
        let Some((_, types)) = one_node_program(def) else {
            skipped.push(def.name);
            continue;
        };
        // Separate programs per engine so per-instance node state (counters) is not shared.
        let build = || one_node_program(def).unwrap().0;
        // Clocks and random sources differ between kernels; only their shape is compared
        // (a counter is per instance, and each engine has its own program).
        let clock = def.purity == polydat_core::node::Purity::Nondeterministic && def.name != "counter";
        let mut oracle = new_kernel(&build(), EngineKind::P1);
        let mut kernels: Vec<Box<dyn Kernel>> =
            MODES.iter().map(|&m| new_kernel(&build(), EngineKind::P2(m))).collect();
        let mut rng = Rng(def.name.len() as u64);
        for _ in 0..40 {
            for (i, &ty) in types.iter().enumerate() {
                let v = value_of(ty, &mut rng);
                let want = oracle.write(i, v.clone()).map_err(|e| e.to_string());
                for k in kernels.iter_mut() {
                    assert_eq!(k.write(i, v.clone()).map_err(|e| e.to_string()), want);
                }
            }
            let want = oracle.eval().map_err(|e| e.message.clone());
            for (k, mode) in kernels.iter_mut().zip(MODES) {
                let got = k.eval().map_err(|e| e.message.clone());
                match (&want, &got) {
                    (Ok(a), Ok(b)) if clock => assert_eq!(a.len(), b.len()),
                    (Ok(a), Ok(b)) => {
                        assert!(a.iter().zip(b).all(|(x, y)| x.same(y)), "{} on {mode:?}: {a:?} vs {b:?}", def.name)
                    }
                    _ => assert_eq!(got.err(), want.clone().err(), "{} on {mode:?}", def.name),
                }
            }
        }
        assert!(
            def.purity != Purity::Nondeterministic
                || new_kernel(&build(), EngineKind::P2(Provenance::Pull)).eval().is_ok()
        );
        ran.push(def.name);
    }
    assert!(ran.len() >= polydat_core::nodes::catalog().len() * 9 / 10, "ran {} nodes, skipped {skipped:?}", ran.len());
}

/// `ok := hash(cycle)`, `bad := div_wire(cycle, d)` with extern `d` (default 1).
fn ok_and_bad() -> Arc<Program> {
    let mut g = G::new();
    let cycle = g.coord("cycle", "u64");
    let d = g.ext("d", "u64", Some(A::U(1)));
    g.bind("ok", "hash", &[cycle]);
    g.bind("bad", "div_wire", &[cycle, d]);
    g.build()
}

/// The outcome of pulling `out`, as text: the value, or the error message.
fn outcome(k: &mut dyn Kernel, out: usize) -> String {
    match k.pull(out) {
        Ok(v) => format!("{v}"),
        Err(e) => format!("error: {e}"),
    }
}

fn sweep_fallback_on<M: p2::modes::Mode>(name: &str) {
    let p = ok_and_bad();
    let (ok, bad) = (p.output("ok").unwrap(), p.output("bad").unwrap());
    let mut k = p2::P2Kernel::<M>::new(&p);
    let mut p1 = new_kernel(&p, EngineKind::P1);
    assert!(k.plan().executor.sweeps(), "{name}: every step is a pure closure, so the plan sweeps");
    let both = |k: &mut dyn Kernel, p1: &mut dyn Kernel, out: usize, what: &str| {
        assert_eq!(outcome(k, out), outcome(p1, out), "{name}: {what}");
    };
    k.write_u64(0, 5).unwrap();
    p1.write_u64(0, 5).unwrap();
    both(&mut k, p1.as_mut(), ok, "first read");
    assert!(k.swept(), "{name}: the first read swept the whole program");
    both(&mut k, p1.as_mut(), bad, "read after the sweep");
    // An extern write dirties its dependents only; the sweep's values stay.
    k.write_u64(1, 0).unwrap();
    p1.write_u64(1, 0).unwrap();
    assert!(!k.swept(), "{name}: an extern write ends the swept state");
    let step_of = |out: usize| p.outputs[out].step.unwrap() as usize;
    assert!(k.step_is_current(step_of(ok)), "{name}: `ok` does not read `d`: still current");
    assert!(!k.step_is_current(step_of(bad)), "{name}: `bad` reads `d`: stale");
    both(&mut k, p1.as_mut(), ok, "a value outside the written extern's cone");
    both(&mut k, p1.as_mut(), bad, "division by zero, after an extern write");
    // A new coordinate: the sweep fails in `bad`, which `ok` does not read.
    k.write_u64(0, 6).unwrap();
    p1.write_u64(0, 6).unwrap();
    both(&mut k, p1.as_mut(), ok, "a failure outside the pulled cone does not fail the read");
    assert!(!k.swept(), "{name}: a failed sweep leaves reads walking their cones");
    both(&mut k, p1.as_mut(), bad, "the failure itself, attributed as on P1");
    k.write_u64(1, 3).unwrap();
    p1.write_u64(1, 3).unwrap();
    both(&mut k, p1.as_mut(), bad, "recovered after the divisor changes");
    both(&mut k, p1.as_mut(), ok, "still current");
    k.write_u64(0, 7).unwrap();
    p1.write_u64(0, 7).unwrap();
    both(&mut k, p1.as_mut(), bad, "next coordinate");
    assert!(k.swept(), "{name}: sweeping again once nothing fails");
}

#[test]
fn sweeps_fall_back_to_cone_walks_when_a_step_fails() {
    sweep_fallback_on::<p2::modes::Raw>("raw");
    sweep_fallback_on::<p2::modes::Pull>("pull");
}

#[test]
fn extern_writes_after_a_sweep_leave_every_value_exact() {
    // a := hash(cycle); b := a + k; c := hash(a); e := k * 3 (k extern).
    let mut g = G::new();
    let cycle = g.coord("cycle", "u64");
    let k = g.ext("k", "u64", Some(A::U(1)));
    let a = g.bind("a", "hash", &[cycle]);
    g.bind("b", "u64_add", &[a, k]);
    g.bind("c", "hash", &[a]);
    g.bind("e", "u64_mul", &[k, A::U(3)]);
    let p = g.build();
    let outs: Vec<usize> = (0..p.outputs.len()).collect();
    for mode in MODES {
        let mut k2 = new_kernel(&p, EngineKind::P2(mode));
        let mut p1 = new_kernel(&p, EngineKind::P1);
        let mut rng = Rng(7);
        for step in 0..400 {
            let (input, value) = (rng.below(2) as usize, rng.below(4));
            k2.write_u64(input, value).unwrap();
            p1.write_u64(input, value).unwrap();
            // Read one output, or all of them as one row.
            if rng.below(3) == 0 {
                let (mut got, mut want) = (vec![0; outs.len()], vec![0; outs.len()]);
                k2.read_at(&[], &outs, &mut got).unwrap();
                p1.read_at(&[], &outs, &mut want).unwrap();
                assert_eq!(got, want, "{mode:?}: row at step {step}");
            } else {
                let o = rng.below(outs.len() as u64) as usize;
                assert_eq!(k2.pull_word(o).unwrap(), p1.pull_word(o).unwrap(), "{mode:?}: output {o} at step {step}");
            }
        }
    }
}

#[test]
fn a_long_sweep_stays_within_the_stack() {
    // 20 000 threaded steps: a debug build does not turn the tail calls into
    // jumps, so only the cut into short threads keeps the nesting bounded.
    let mut g = G::new();
    let mut wire = g.coord("cycle", "u64");
    for i in 0..20_000u64 {
        wire = if i % 2 == 0 { g.node("hash", &[wire]) } else { g.node("u64_add", &[wire, A::U(i)]) };
    }
    g.out("last", wire);
    let p = g.build();
    assert!(p.steps.len() >= 10_000, "fusion must not fold the chain away: {} steps", p.steps.len());
    let last = p.output("last").unwrap();
    let mut raw = RawKernel::new(&p);
    let mut p1 = new_kernel(&p, EngineKind::P1);
    for cycle in [0, 1, u64::MAX] {
        raw.write_u64(0, cycle).unwrap();
        p1.write_u64(0, cycle).unwrap();
        assert_eq!(raw.pull_word(last).unwrap(), p1.pull_word(last).unwrap());
        assert!(raw.swept(), "the read swept");
    }
}

#[test]
fn twenty_thousand_outputs_reading_one_step_build_and_sweep() {
    // One hash read by 20 000 outputs: each output's cone is found by
    // visiting the cone alone, so building the plan stays linear (it was
    // quadratic: seconds in a debug build), and the schedule weighs each
    // step's consumers only while it is one of the last two run.
    let mut g = G::new();
    let cycle = g.coord("cycle", "u64");
    let h = g.node("hash", &[cycle]);
    for i in 0..20_000u64 {
        let w = g.node("u64_xor", &[h, A::U(i)]);
        g.out(&format!("w{i}"), w);
    }
    let p = g.build();
    assert!(p.cycle_steps.len() > 20_000, "{} per-cycle steps", p.cycle_steps.len());
    let mut raw = RawKernel::new(&p);
    let mut p1 = new_kernel(&p, EngineKind::P1);
    for cycle in [0, 7] {
        raw.write_u64(0, cycle).unwrap();
        p1.write_u64(0, cycle).unwrap();
        for name in ["w0", "w19999"] {
            let o = p.output(name).unwrap();
            assert_eq!(raw.pull_word(o).unwrap(), p1.pull_word(o).unwrap(), "{name}");
        }
    }
}

#[test]
fn pull_runs_selective_cones_as_threads_and_falls_back_on_failure() {
    // ok and bad are selective (one step each of ten); big is broad.
    let mut g = G::new();
    let cycle = g.coord("cycle", "u64");
    let d = g.ext("d", "u64", Some(A::U(1)));
    g.bind("ok", "hash", &[cycle]);
    g.bind("bad", "div_wire", &[cycle, d]);
    let mut wire = cycle;
    for i in 0..8u64 {
        wire = if i % 2 == 0 { g.node("hash", &[wire]) } else { g.node("u64_add", &[wire, A::U(i)]) };
    }
    g.out("big", wire);
    let p = g.build();
    let (ok, bad, big) = (p.output("ok").unwrap(), p.output("bad").unwrap(), p.output("big").unwrap());
    let mut k = PullKernel::new(&p);
    let plan = k.plan().clone();
    assert!(
        plan.executor.cone_thread(&plan.shape, ok).is_some() && plan.executor.cone_thread(&plan.shape, bad).is_some(),
        "selective cones get threads"
    );
    assert!(
        plan.executor.cone_thread(&plan.shape, big).is_none() && plan.broad_cone(big),
        "a broad cone sweeps instead"
    );
    let mut p1 = new_kernel(&p, EngineKind::P1);
    let mut rng = Rng(11);
    for step in 0..300 {
        let (input, value) = (rng.below(2) as usize, rng.below(3));
        k.write_u64(input, value).unwrap();
        p1.write_u64(input, value).unwrap();
        let out = rng.below(3) as usize;
        let out = [ok, bad, big][out];
        assert_eq!(outcome(&mut k, out), outcome(p1.as_mut(), out), "output {out} at step {step}");
    }
}

/// A program `generate` runs in blocks: u64, f64 and bool columns, an extern,
/// a value fixed at scope init, an input passed through, and a row-dependent
/// failure (`div_wire` by `cycle % 1000`, zero once in a thousand rows).
fn block_program() -> Arc<Program> {
    let mut g = G::new();
    let cycle = g.coord("cycle", "u64");
    let k = g.ext("k", "u64", Some(A::U(3)));
    let h = g.bind("h", "hash", &[cycle]);
    g.bind("id", "mod", &[h, A::U(1_000_000)]);
    let u = g.bind("u", "unit_interval", &[h]);
    g.bind("scaled", "f64_mul", &[u, A::F(2.5)]);
    g.bind("small", "u64_lt", &[h, A::U(u64::MAX / 4)]);
    let kk = g.node("hash", &[k]);
    g.out_mod("kk", kk, &["const"]);
    g.bind("mixed", "u64_add", &[h, kk]);
    g.out("cycle_out", cycle);
    let d = g.node("mod", &[cycle, A::U(1000)]);
    g.bind("ratio", "div_wire", &[A::U(1 << 40), d]);
    g.build()
}

#[test]
fn generate_in_blocks_matches_p1_row_for_row() {
    let p = block_program();
    let ok: Vec<usize> = ["id", "scaled", "small", "kk", "mixed", "cycle_out"].map(|n| p.output(n).unwrap()).into();
    assert!(RawKernel::new(&p).plan().block().is_some(), "every per-cycle step has a block form");
    let cases = [
        (RowPlan::range(0, 1, 1001, 1), 1), // 1000 rows: whole blocks and a partial one
        (RowPlan::range(0, 1, 258, 1), 1),  // 257 rows: the first row, then one full block
        (RowPlan { start: u64::MAX - 700, rows: 1500, ..RowPlan::range(0, 0, 1, 1) }, 2), // wraps through u64::MAX
        (RowPlan::range(0, 7, 7 + 13 * 999, 13), 3), // a step, three threads
    ];
    for (plan, threads) in cases {
        let plan = RowPlan { fixed: vec![(1, Value::U64(9))], ..plan };
        let want = generate(&p, EngineKind::P1, &plan, &ok, 1).unwrap();
        for mode in MODES {
            let got = generate(&p, EngineKind::P2(mode), &plan, &ok, threads).unwrap();
            for (a, b) in want.iter().zip(&got) {
                assert_eq!(a.len(), b.len(), "{mode:?}");
                assert!(a.to_values().iter().zip(b.to_values()).all(|(x, y)| x.same(&y)), "{mode:?} x{threads}");
            }
        }
    }
    // A failing row inside a block: the same error as P1, from the same row.
    let ratio = vec![p.output("ratio").unwrap()];
    let plan = RowPlan::range(0, 1, 2500, 1);
    let want = generate(&p, EngineKind::P1, &plan, &ratio, 1).unwrap_err().to_string();
    for mode in MODES {
        let got = generate(&p, EngineKind::P2(mode), &plan, &ratio, 1).unwrap_err().to_string();
        assert_eq!(got, want, "{mode:?}");
        assert!(want.contains("divide by zero") && want.contains("U64(0)"), "{want}");
    }
}

#[test]
fn a_row_read_refuses_none_and_ref_outputs_as_p1_does() {
    // h is None until the extern e is written; up is a string.
    let mut g = G::new();
    let cycle = g.coord("cycle", "u64");
    let e = g.ext("e", "u64", None);
    let s = g.ext("s", "str", Some(A::S("x")));
    g.bind("a", "hash", &[cycle]);
    g.bind("h", "hash", &[e]);
    g.bind("up", "str_upper", &[s]);
    let p = g.build();
    let (a, h, up) = (p.output("a").unwrap(), p.output("h").unwrap(), p.output("up").unwrap());
    for mode in MODES {
        let mut k2 = new_kernel(&p, EngineKind::P2(mode));
        let mut p1 = new_kernel(&p, EngineKind::P1);
        for (k, cyc) in [(0u64, 3u64), (1, 4)] {
            for kernel in [&mut k2, &mut p1] {
                kernel.write_u64(0, cyc).unwrap();
                if k == 1 {
                    kernel.write_u64(1, 9).unwrap();
                }
            }
            for outs in [vec![a], vec![a, h], vec![h, a], vec![a, up], vec![up]] {
                let (mut got, mut want) = ([0u64; 2], [0u64; 2]);
                let r2 = k2.read_at(&[], &outs, &mut got[..outs.len()]).map_err(|e| e.to_string());
                let r1 = p1.read_at(&[], &outs, &mut want[..outs.len()]).map_err(|e| e.to_string());
                assert_eq!(r2, r1, "{mode:?}: {outs:?} after write {k}");
                if r1.is_ok() {
                    assert_eq!(got, want, "{mode:?}: {outs:?}");
                }
            }
        }
    }
}

#[test]
fn auto_runs_p2_on_a_program_too_large_to_compile_natively_at_once() {
    use polydat_core::compile::select::AUTO_NATIVE_MAX_STEPS;
    let mut g = G::new();
    let mut x = g.coord("cycle", "u64");
    for _ in 0..AUTO_NATIVE_MAX_STEPS + 1 {
        x = g.node("hash", &[x]);
    }
    g.out("end", x);
    let big = g.build();
    let sel = select(&big, Request::parse("auto", "auto").unwrap(), "auto", "auto");
    assert_eq!(sel.engine, EngineKind::P2(Provenance::Raw), "{}", sel.reason);
    assert!(sel.reason.contains("more than 4096 steps"), "{}", sel.reason);
    let small = forest(1, 0, 40);
    let sel = select(&small, Request::parse("auto", "auto").unwrap(), "auto", "auto");
    assert_eq!(sel.engine, EngineKind::P3(Provenance::Raw), "{}", sel.reason);
}
