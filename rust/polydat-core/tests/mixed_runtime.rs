//! The mixed engine: which steps become native segments and why the others
//! stay interpreted; segmented programs give P1's values, `None` and
//! failures (naming the member node, never the segment) on the ladder, on
//! random programs and with externs upstream.

mod common;

use polydat_core::compile::sketch;
use polydat_core::compile::{compile, CompileOptions};
use polydat_core::engine::mixed::{self, Interpreted};
use polydat_core::engine::p1::P1Kernel;
use polydat_core::engine::{describe, new_kernel, EngineKind, Kernel};
use polydat_core::{Program, Value};
use std::sync::Arc;

fn program(src: &str) -> Arc<Program> {
    let ir = sketch::parse(src).unwrap();
    Arc::new(compile(&ir, &CompileOptions::default()).unwrap_or_else(|e| panic!("{e}")))
}

fn ladder() -> Arc<Program> {
    let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../benches/graphs/ladder.polydat"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    program(&src)
}

/// Pulls every output of `k` and `oracle` and asserts they agree.
fn agree(k: &mut dyn Kernel, oracle: &mut P1Kernel, what: &str) {
    for o in 0..oracle.program().outputs.len() {
        match (k.pull(o), oracle.pull(o)) {
            (Ok(a), Ok(b)) => assert!(a.same(&b), "{what} output {o}: {a} vs {b}"),
            (Err(a), Err(b)) => {
                assert_eq!(a.message, b.message, "{what}");
                assert_eq!(a.node, b.node, "{what}: the member node is named");
            }
            (a, b) => panic!("{what} output {o}: {a:?} vs {b:?}"),
        }
    }
}

#[test]
fn the_ladder_is_one_segment_and_matches_p1() {
    let p = ladder();
    let seg = mixed::segment(&p);
    assert_eq!(seg.segments.len(), 1, "{seg:?}");
    assert_eq!(seg.segments[0].len(), p.steps.len(), "every ladder step is native-eligible");
    let mut k = new_kernel(&p, EngineKind::Mixed);
    assert_eq!(k.program().steps.len(), 1, "the segmented program is one step");
    let mut oracle = P1Kernel::new(p.clone());
    for cycle in [0u64, 1, 2, 42, 1 << 40, u64::MAX] {
        for (i, v) in [cycle, 17, 99].into_iter().enumerate() {
            k.write_u64(i, v);
            oracle.write_u64(i, v);
        }
        agree(k.as_mut(), &mut oracle, &format!("cycle {cycle}"));
    }
    let plan = describe(&p, EngineKind::Mixed);
    assert_eq!(plan.running, "mixed");
    assert_eq!(plan.native_segments, vec![(0..p.steps.len() as u32).collect::<Vec<_>>()]);
    assert!(plan.interpreted.is_empty());
    assert!(plan.plan.starts_with("1 native segment(s)"), "{}", plan.plan);
}

#[test]
fn constants_externs_and_lone_steps_stay_interpreted_with_their_reasons() {
    let p = program(
        "input cycle: u64
extern width: u64 = 10
k := u64_add(3, 4)
h := hash(cycle)
a := mod(h, 100)
b := u64_add(a, width)
c := hash(b)
s := format_u64(a)",
    );
    let seg = mixed::segment(&p);
    let reason = |name: &str| {
        let s = p.steps.iter().position(|st| st.feeds.iter().any(|f| f == name)).unwrap();
        seg.interpreted[s]
    };
    assert_eq!(reason("h"), None, "hash joins the segment");
    assert_eq!(reason("a"), None);
    assert_eq!(reason("b"), None, "an extern joins as a segment input");
    assert_eq!(reason("c"), None);
    assert_eq!(reason("s"), Some(Interpreted::NotScalar), "a string output");
    if let Some(k) = p.steps.iter().position(|st| st.feeds.iter().any(|f| f == "k")) {
        assert_eq!(seg.interpreted[k], Some(Interpreted::NotDynamic), "a constant runs once");
    }
    let mut k = new_kernel(&p, EngineKind::Mixed);
    let mut oracle = P1Kernel::new(p.clone());
    for cycle in [0u64, 5, u64::MAX] {
        k.write_u64(0, cycle);
        oracle.write_u64(0, cycle);
        agree(k.as_mut(), &mut oracle, &format!("cycle {cycle}"));
    }
    // An absent extern: the segment runs its members' rules, so `b` and `c`
    // are `None` while `h` and `a` keep their values, as on P1.
    let width = p.input("width").unwrap();
    for cycle in [0u64, 9] {
        k.write(width, Value::None).unwrap();
        oracle.write(width, Value::None).unwrap();
        k.write_u64(0, cycle);
        oracle.write_u64(0, cycle);
        agree(k.as_mut(), &mut oracle, "width None");
        assert!(k.pull(p.output("c").unwrap()).unwrap().is_none());
        assert!(!k.pull(p.output("a").unwrap()).unwrap().is_none());
        k.write(width, Value::U64(3)).unwrap();
        oracle.write(width, Value::U64(3)).unwrap();
        agree(k.as_mut(), &mut oracle, "width back");
    }
    let plan = describe(&p, EngineKind::Mixed);
    assert!(plan.plan.contains("by-reference"), "{}", plan.plan);
    let named: Vec<&str> = plan.interpreted.iter().map(|&(s, _)| p.steps[s as usize].def.name).collect();
    assert!(named.contains(&"format_u64"), "{named:?}");
}

#[test]
fn a_failure_on_the_none_path_names_the_member_node_too() {
    let p = program(
        "input cycle: u64
extern unused: u64 = 1
extern divisor: u64 = 0
out := u64_add(mod_wire(hash(cycle), divisor), u64_add(cycle, unused))",
    );
    assert_eq!(mixed::segment(&p).segments.len(), 1, "{:?}", mixed::segment(&p));
    let mut k = new_kernel(&p, EngineKind::Mixed);
    let mut oracle = P1Kernel::new(p.clone());
    let unused = p.input("unused").unwrap();
    k.write(unused, Value::None).unwrap();
    oracle.write(unused, Value::None).unwrap();
    k.write_u64(0, 5);
    oracle.write_u64(0, 5);
    let out = p.output("out").unwrap();
    let (a, b) = (k.pull(out).unwrap_err(), oracle.pull(out).unwrap_err());
    assert_eq!(a.node, "mod_wire");
    assert_eq!(a.message, b.message);
    agree(k.as_mut(), &mut oracle, "a None beside a failure");
}

#[test]
fn a_failure_inside_a_segment_names_the_member_node_and_its_inputs() {
    // The division is needed by the only value the segment exposes.
    let p = program(
        "input cycle: u64
out := u64_add(mod_wire(hash(cycle), cycle), 1)",
    );
    assert_eq!(mixed::segment(&p).segments.len(), 1, "{:?}", mixed::segment(&p));
    let mut k = new_kernel(&p, EngineKind::Mixed);
    let mut oracle = P1Kernel::new(p.clone());
    let out = p.output("out").unwrap();
    for i in 0..1000u64 {
        let cycle = if i % 2 == 0 { 0 } else { i };
        k.write_u64(0, cycle);
        oracle.write_u64(0, cycle);
        match (k.pull(out), oracle.pull(out)) {
            (Ok(a), Ok(b)) => assert!(a.same(&b)),
            (Err(a), Err(b)) => {
                assert_eq!(a.node, "mod_wire");
                assert_eq!(a.message, b.message, "same node, outputs and inputs as P1");
            }
            (a, b) => panic!("at {cycle}: {a:?} vs {b:?}"),
        }
    }
}

#[test]
fn a_member_that_may_fail_stays_out_of_segments_whose_other_values_do_not_need_it() {
    // Reading `h` must not fail because `d` (beside it) would.
    let p = program(
        "input cycle: u64
h := hash(cycle)
h2 := hash(h)
d := mod_wire(h2, cycle)
out := u64_add(d, h2)",
    );
    let seg = mixed::segment(&p);
    let d = p.steps.iter().position(|st| st.def.name == "mod_wire").unwrap();
    assert_eq!(seg.interpreted[d], Some(Interpreted::MayFailUnneeded), "{seg:?}");
    assert_eq!(seg.segments.len(), 1, "h and h2 still run natively: {seg:?}");
    let mut k = new_kernel(&p, EngineKind::Mixed);
    let mut oracle = P1Kernel::new(p.clone());
    k.write_u64(0, 0);
    oracle.write_u64(0, 0);
    agree(k.as_mut(), &mut oracle, "cycle 0");
    assert!(k.pull(p.output("h").unwrap()).is_ok());
}

#[test]
fn a_member_reading_a_value_that_may_fail_stays_out_of_segments_whose_other_values_do_not_need_it() {
    // Found by the long random-program profile: `two` and `pick` made one
    // segment, which evaluated its input `n` (a string parse that fails on
    // "") for a read of `two` alone.
    let p = program(
        "input cycle: u64
extern es: str = \"\"
two := u64_add(cycle, cycle)
n := __str_to_u64(es)
pick := select_u64(two, cycle, n)",
    );
    let seg = mixed::segment(&p);
    let pick = p.steps.iter().position(|st| st.def.name == "select_u64").unwrap();
    assert_eq!(seg.interpreted[pick], Some(Interpreted::ReadsMayFailUnneeded), "{seg:?}");
    let mut k = new_kernel(&p, EngineKind::Mixed);
    let mut oracle = P1Kernel::new(p.clone());
    for cycle in [0, 3] {
        k.write_u64(0, cycle);
        oracle.write_u64(0, cycle);
        agree(k.as_mut(), &mut oracle, &format!("cycle {cycle}"));
    }
    k.write_u64(0, 0);
    assert_eq!(k.pull(p.output("two").unwrap()).unwrap().as_u64(), Some(0));
}

#[test]
fn random_programs_agree_with_p1_on_mixed() {
    let mut segmented = 0;
    for seed in 0..30 {
        let p = common::random_dag(seed, 40 + 5 * seed as usize);
        segmented += mixed::segment(&p).segments.len();
        let mut oracle = P1Kernel::new(p.clone());
        let mut k = new_kernel(&p, EngineKind::Mixed);
        for cycle in [0u64, 1, 7, 1 << 33, u64::MAX] {
            for i in 0..p.coord_count {
                k.write_u64(i, cycle.wrapping_add(i as u64));
                oracle.write_u64(i, cycle.wrapping_add(i as u64));
            }
            agree(k.as_mut(), &mut oracle, &format!("seed {seed} cycle {cycle}"));
        }
    }
    assert!(segmented > 30, "random programs do form segments ({segmented})");
}

#[test]
fn segments_stay_convex() {
    // `b` reads `a` (native) through `s` (interpreted: a string round trip):
    // `a` and `b` may not share a segment, or it would read its own output.
    let p = program(
        "input cycle: u64
a := hash(cycle)
a2 := hash(a)
s := format_u64(a2)
n := str_to_u64(s)
b := u64_add(n, a2)
c := hash(b)",
    );
    let seg = mixed::segment(&p);
    let step = |name: &str| p.steps.iter().position(|st| st.feeds.iter().any(|f| f == name)).unwrap() as u32;
    let holding = |s: u32| seg.segments.iter().position(|m| m.contains(&s));
    if let (Some(x), Some(y)) = (holding(step("a2")), holding(step("b"))) {
        assert_ne!(x, y, "{seg:?}");
    }
    let mut k = new_kernel(&p, EngineKind::Mixed);
    let mut oracle = P1Kernel::new(p.clone());
    for cycle in [0u64, 3, u64::MAX] {
        k.write_u64(0, cycle);
        oracle.write_u64(0, cycle);
        agree(k.as_mut(), &mut oracle, &format!("cycle {cycle}"));
    }
}
