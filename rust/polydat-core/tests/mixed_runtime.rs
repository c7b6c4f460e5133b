//! The mixed engine: which steps become native segments and why the others
//! run by their node's rule; segmented programs give P1's values, `None` and
//! failures (naming the member node) on the ladder, on random programs and
//! with externs upstream, and a read never runs a member it does not need.

mod common;

use polydat_core::compile::sketch;
use polydat_core::compile::{compile, CompileOptions};
use polydat_core::engine::mixed;
use polydat_core::engine::p1::P1Kernel;
use polydat_core::engine::{describe, new_kernel, EngineKind, Kernel};
use polydat_core::program::segmentation::Interpreted;
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
    let seg = mixed::segments(&p);
    assert_eq!(seg.segments.len(), 1, "{seg:?}");
    assert_eq!(seg.segments[0].len(), p.steps.len(), "every ladder step is native-eligible");
    let mut k = new_kernel(&p, EngineKind::Mixed);
    let mut oracle = P1Kernel::new(p.clone());
    for cycle in [0u64, 1, 2, 42, 1 << 40, u64::MAX] {
        for (i, v) in [cycle, 17, 99].into_iter().enumerate() {
            k.write_u64(i, v).unwrap();
            oracle.write_u64(i, v).unwrap();
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
    let seg = mixed::segments(&p);
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
        k.write_u64(0, cycle).unwrap();
        oracle.write_u64(0, cycle).unwrap();
        agree(k.as_mut(), &mut oracle, &format!("cycle {cycle}"));
    }
    // An absent extern: the segment runs its members' rules, so `b` and `c`
    // are `None` while `h` and `a` keep their values, as on P1.
    let width = p.input("width").unwrap();
    for cycle in [0u64, 9] {
        k.write(width, Value::None).unwrap();
        oracle.write(width, Value::None).unwrap();
        k.write_u64(0, cycle).unwrap();
        oracle.write_u64(0, cycle).unwrap();
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
    assert_eq!(mixed::segments(&p).segments.len(), 1, "{:?}", mixed::segments(&p));
    let mut k = new_kernel(&p, EngineKind::Mixed);
    let mut oracle = P1Kernel::new(p.clone());
    let unused = p.input("unused").unwrap();
    k.write(unused, Value::None).unwrap();
    oracle.write(unused, Value::None).unwrap();
    k.write_u64(0, 5).unwrap();
    oracle.write_u64(0, 5).unwrap();
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
    assert_eq!(mixed::segments(&p).segments.len(), 1, "{:?}", mixed::segments(&p));
    let mut k = new_kernel(&p, EngineKind::Mixed);
    let mut oracle = P1Kernel::new(p.clone());
    let out = p.output("out").unwrap();
    for i in 0..1000u64 {
        let cycle = if i % 2 == 0 { 0 } else { i };
        k.write_u64(0, cycle).unwrap();
        oracle.write_u64(0, cycle).unwrap();
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
fn a_read_never_runs_a_segment_member_the_pulled_value_does_not_need() {
    // `d` may fail and sits in the segment beside `h`; reading `h` (alone,
    // on a fresh kernel, and after `out` failed) must not fail because of it.
    let p = program(
        "input cycle: u64
h := hash(cycle)
h2 := hash(h)
d := mod_wire(h2, cycle)
out := u64_add(d, h2)",
    );
    let seg = mixed::segments(&p);
    let d = p.steps.iter().position(|st| st.def.name == "mod_wire").unwrap();
    assert_eq!(seg.interpreted[d], None, "a member that may fail is native too: {seg:?}");
    assert_eq!(seg.segments.len(), 1, "{seg:?}");
    let (h, out) = (p.output("h").unwrap(), p.output("out").unwrap());
    let mut k = new_kernel(&p, EngineKind::Mixed);
    let mut oracle = P1Kernel::new(p.clone());
    k.write_u64(0, 0).unwrap();
    oracle.write_u64(0, 0).unwrap();
    assert!(k.pull(h).is_ok(), "a fresh read of h");
    agree(k.as_mut(), &mut oracle, "cycle 0");
    assert_eq!(k.pull(out).unwrap_err().node, "mod_wire");
    assert!(k.pull(h).is_ok(), "h after out failed");
    k.write_u64(0, 0).unwrap();
    assert_eq!(k.eval().unwrap_err().node, "mod_wire", "eval reads out too");
}

#[test]
fn a_read_never_evaluates_an_input_of_a_segment_only_another_value_needs() {
    // Found by the long random-program profile: `two` and `pick` share a
    // segment whose other input `n` (a string parse that fails on "") only
    // `pick` needs; reading `two` must not evaluate it.
    let p = program(
        "input cycle: u64
extern es: str = \"\"
two := u64_add(cycle, cycle)
n := __str_to_u64(es)
pick := select_u64(two, cycle, n)",
    );
    let seg = mixed::segments(&p);
    let pick = p.steps.iter().position(|st| st.def.name == "select_u64").unwrap();
    assert_eq!(seg.interpreted[pick], None, "{seg:?}");
    let mut k = new_kernel(&p, EngineKind::Mixed);
    let mut oracle = P1Kernel::new(p.clone());
    k.write_u64(0, 0).unwrap();
    assert_eq!(k.pull(p.output("two").unwrap()).unwrap().as_u64(), Some(0), "a fresh read of two");
    for cycle in [0, 3] {
        k.write_u64(0, cycle).unwrap();
        oracle.write_u64(0, cycle).unwrap();
        agree(k.as_mut(), &mut oracle, &format!("cycle {cycle}"));
    }
}

#[test]
fn a_string_binding_leaves_the_numeric_steps_native() {
    // Issue: one string binding used to leave no segment at all (placing a
    // segment at its last member broke the order, and the error was
    // reported as "its node has no native form" for every step).
    let p = program(
        "input cycle: u64
user_id := mod(hash(cycle), 1000)
key := printf(\"user:%d\", user_id)
bucket := mod(hash(user_id), 64)",
    );
    let plan = describe(&p, EngineKind::Mixed);
    let native: Vec<&str> = plan.native_segments.iter().flatten().map(|&s| p.steps[s as usize].def.name).collect();
    assert!(native.len() >= 2 && native.iter().all(|n| *n != "printf"), "{native:?} / {}", plan.plan);
    for &(s, why) in &plan.interpreted {
        assert_eq!(p.steps[s as usize].def.name, "printf", "only the string step is not native: {why}");
    }
    let mut k = new_kernel(&p, EngineKind::Mixed);
    let mut oracle = P1Kernel::new(p.clone());
    for cycle in [0u64, 5, u64::MAX] {
        k.write_u64(0, cycle).unwrap();
        oracle.write_u64(0, cycle).unwrap();
        agree(k.as_mut(), &mut oracle, &format!("cycle {cycle}"));
    }
}

#[test]
fn random_programs_agree_with_p1_on_mixed() {
    let mut segmented = 0;
    for seed in 0..30 {
        let p = common::random_dag(seed, 40 + 5 * seed as usize);
        segmented += mixed::segments(&p).segments.len();
        let mut oracle = P1Kernel::new(p.clone());
        let mut k = new_kernel(&p, EngineKind::Mixed);
        for cycle in [0u64, 1, 7, 1 << 33, u64::MAX] {
            for i in 0..p.coord_count {
                k.write_u64(i, cycle.wrapping_add(i as u64)).unwrap();
                oracle.write_u64(i, cycle.wrapping_add(i as u64)).unwrap();
            }
            agree(k.as_mut(), &mut oracle, &format!("seed {seed} cycle {cycle}"));
        }
    }
    assert!(segmented >= 30, "every random program forms a segment ({segmented})");
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
    let seg = mixed::segments(&p);
    let step = |name: &str| p.steps.iter().position(|st| st.feeds.iter().any(|f| f == name)).unwrap() as u32;
    let holding = |s: u32| seg.segments.iter().position(|m| m.contains(&s));
    if let (Some(x), Some(y)) = (holding(step("a2")), holding(step("b"))) {
        assert_ne!(x, y, "{seg:?}");
    }
    let mut k = new_kernel(&p, EngineKind::Mixed);
    let mut oracle = P1Kernel::new(p.clone());
    for cycle in [0u64, 3, u64::MAX] {
        k.write_u64(0, cycle).unwrap();
        oracle.write_u64(0, cycle).unwrap();
        agree(k.as_mut(), &mut oracle, &format!("cycle {cycle}"));
    }
}
