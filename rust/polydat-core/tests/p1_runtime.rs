//! P1 runtime axioms, driven through hand-written graph IR (no frontend):
//! selective invalidation, memoization, volatility, None propagation, failure
//! attribution and recovery, determinism across kernels and threads.

use polydat_core::compile::{compile, CompileOptions};
use polydat_core::engine::{new_kernel, EngineKind};
use polydat_core::generation::{generate, RowPlan};
use polydat_core::ir::GraphIr;
use polydat_core::nodes::diagnostic::{probe_count, probe_reset};
use polydat_core::{Program, Value};
use std::sync::Arc;

fn program(json: &str) -> Arc<Program> {
    let ir = GraphIr::from_json(json).expect("valid IR");
    Arc::new(compile(&ir, &CompileOptions::default()).unwrap_or_else(|e| panic!("{e}")))
}

fn out(p: &Program, name: &str) -> usize {
    p.output(name).unwrap()
}

const README: &str = r#"{
  "inputs": [{"name": "cycle", "type": "u64", "kind": "coordinate"}],
  "nodes": [
    {"op": "hash", "args": [{"wire": {"input": 0}}]},
    {"op": "mod", "args": [{"wire": {"node": {"node": 0, "port": 0}}}, {"const": {"u64": 1000000}}]},
    {"op": "mod", "args": [{"wire": {"node": {"node": 0, "port": 0}}}, {"const": {"u64": 64}}]}
  ],
  "outputs": [
    {"name": "hashed", "wire": {"node": {"node": 0, "port": 0}}},
    {"name": "user_id", "wire": {"node": {"node": 1, "port": 0}}},
    {"name": "bucket", "wire": {"node": {"node": 2, "port": 0}}}
  ]
}"#;

#[test]
fn readme_table() {
    let p = program(README);
    let mut k = new_kernel(&p, EngineKind::P1);
    let expect = [(607535, 47), (822465, 1), (348110, 14), (139053, 45), (603978, 10)];
    for (c, (uid, bucket)) in expect.into_iter().enumerate() {
        k.write_u64(0, c as u64).unwrap();
        assert!(k.pull(out(&p, "user_id")).unwrap().same(&Value::U64(uid)));
        assert!(k.pull(out(&p, "bucket")).unwrap().same(&Value::U64(bucket)));
    }
}

/// `a := probe(k)`, `b := a + cycle`, `o1 := probe(x)`, `o2 := probe(x)`.
fn probes(prefix: &str) -> Arc<Program> {
    program(&format!(
        r#"{{
      "inputs": [
        {{"name": "cycle", "type": "u64", "kind": "coordinate"}},
        {{"name": "x", "type": "u64", "kind": "coordinate"}},
        {{"name": "k", "type": "u64", "kind": "extern", "default": {{"u64": 3}}}}
      ],
      "nodes": [
        {{"op": "__probe", "args": [{{"wire": {{"input": 2}}}}, {{"const": {{"str": "{prefix}a"}}}}]}},
        {{"op": "u64_add", "args": [{{"wire": {{"node": {{"node": 0, "port": 0}}}}}}, {{"wire": {{"input": 0}}}}]}},
        {{"op": "__probe", "args": [{{"wire": {{"input": 1}}}}, {{"const": {{"str": "{prefix}o1"}}}}]}},
        {{"op": "__probe", "args": [{{"wire": {{"input": 1}}}}, {{"const": {{"str": "{prefix}o2"}}}}]}}
      ],
      "outputs": [
        {{"name": "a", "wire": {{"node": {{"node": 0, "port": 0}}}}}},
        {{"name": "b", "wire": {{"node": {{"node": 1, "port": 0}}}}}},
        {{"name": "o1", "wire": {{"node": {{"node": 2, "port": 0}}}}}},
        {{"name": "o2", "wire": {{"node": {{"node": 3, "port": 0}}}}}}
      ]
    }}"#
    ))
}

#[test]
fn a_write_dirties_only_its_dependents() {
    let p = probes("inv.");
    for key in ["inv.a", "inv.o1", "inv.o2"] {
        probe_reset(key);
    }
    let mut k = new_kernel(&p, EngineKind::P1);
    for c in 0..3 {
        k.write_u64(0, c).unwrap();
        assert!(k.pull(out(&p, "b")).unwrap().same(&Value::U64(3 + c)));
    }
    assert_eq!(probe_count("inv.a"), 1, "a does not read cycle");
    k.write(2, Value::U64(10)).unwrap();
    assert!(k.pull(out(&p, "b")).unwrap().same(&Value::U64(12)));
    assert_eq!(probe_count("inv.a"), 2);
    k.write_u64(1, 9).unwrap();
    k.pull(out(&p, "o1")).unwrap();
    assert_eq!((probe_count("inv.o1"), probe_count("inv.o2")), (1, 0), "o2 is in no pulled cone");
    k.pull(out(&p, "o2")).unwrap();
    assert_eq!(probe_count("inv.o2"), 1);
    for _ in 0..5 {
        k.pull(out(&p, "o1")).unwrap();
    }
    assert_eq!(probe_count("inv.o1"), 1, "no write, no re-run");
    k.write_u64(0, 42).unwrap();
    k.pull(out(&p, "o1")).unwrap();
    assert_eq!(probe_count("inv.o1"), 1, "a write outside the cone runs nothing");
    k.invalidate_all();
    k.pull(out(&p, "o1")).unwrap();
    assert_eq!(probe_count("inv.o1"), 2);
}

#[test]
fn failure_is_attributed_and_the_kernel_recovers() {
    let p = program(
        r#"{
      "inputs": [{"name": "cycle", "type": "u64", "kind": "coordinate"}],
      "nodes": [
        {"op": "mod_wire", "args": [{"wire": {"input": 0}}, {"wire": {"input": 0}}]}
      ],
      "outputs": [{"name": "r", "wire": {"node": {"node": 0, "port": 0}}}]
    }"#,
    );
    let mut k = new_kernel(&p, EngineKind::P1);
    k.write_u64(0, 0).unwrap();
    let err = k.pull(0).unwrap_err();
    assert!(err.message.starts_with("attempt to calculate the remainder with a divisor of zero"), "{}", err.message);
    assert!(err.message.contains("↳ in node `mod_wire` (output r) while evaluating `r`"));
    assert!(err.message.contains("↳ inputs: [[0]=U64(0), [1]=U64(0)]"));
    k.write_u64(0, 7).unwrap();
    assert!(k.pull(0).unwrap().same(&Value::U64(0)));
}

#[test]
fn none_propagates_and_default_or_catches_it() {
    let p = program(
        r#"{
      "inputs": [{"name": "e", "type": "u64", "kind": "extern"}],
      "nodes": [
        {"op": "hash", "args": [{"wire": {"input": 0}}]},
        {"op": "__lit", "args": [{"const": {"u64": 5}}]},
        {"op": "default_or", "args": [{"wire": {"node": {"node": 0, "port": 0}}}, {"wire": {"node": {"node": 1, "port": 0}}}]}
      ],
      "outputs": [
        {"name": "h", "wire": {"node": {"node": 0, "port": 0}}},
        {"name": "d", "wire": {"node": {"node": 2, "port": 0}}}
      ]
    }"#,
    );
    let mut k = new_kernel(&p, EngineKind::P1);
    assert!(k.pull(0).unwrap().is_none());
    assert!(k.pull(1).unwrap().same(&Value::U64(5)));
    k.write(0, Value::U64(0)).unwrap();
    assert!(k.pull(1).unwrap().same(&Value::U64(0xe220a8397b1dcdaf)));
}

#[test]
fn wide_programs_track_more_than_64_inputs() {
    let mut inputs = Vec::new();
    let mut args = Vec::new();
    for i in 0..130 {
        inputs.push(format!(r#"{{"name": "i{i}", "type": "u64", "kind": "coordinate"}}"#));
        args.push(format!(r#"{{"wire": {{"input": {i}}}}}"#));
    }
    let json = format!(
        r#"{{"inputs": [{}], "nodes": [
            {{"op": "sum", "args": [{}]}},
            {{"op": "__probe", "args": [{{"wire": {{"input": 129}}}}, {{"const": {{"str": "wide.last"}}}}]}}
          ],
          "outputs": [{{"name": "s", "wire": {{"node": {{"node": 0, "port": 0}}}}}},
                      {{"name": "last", "wire": {{"node": {{"node": 1, "port": 0}}}}}}]}}"#,
        inputs.join(","),
        args.join(",")
    );
    let p = program(&json);
    probe_reset("wide.last");
    let mut k = new_kernel(&p, EngineKind::P1);
    k.write_u64(100, 5).unwrap();
    assert!(k.pull(0).unwrap().same(&Value::U64(5)));
    k.pull(1).unwrap();
    k.write_u64(128, 1).unwrap();
    k.pull(1).unwrap();
    assert_eq!(probe_count("wide.last"), 1, "input 128 is outside the probe's provenance");
    k.write_u64(129, 1).unwrap();
    k.pull(1).unwrap();
    assert_eq!(probe_count("wide.last"), 2);
}

#[test]
fn threads_give_identical_columns() {
    let p = program(README);
    let plan = RowPlan::range(0, 0, 10_001, 3);
    let outs = [0, 1, 2];
    let one = generate(&p, EngineKind::P1, &plan, &outs, 1).unwrap();
    let four = generate(&p, EngineKind::P1, &plan, &outs, 4).unwrap();
    assert_eq!(one[1].len(), plan.rows());
    for (a, b) in one.iter().zip(&four) {
        assert!(a.to_values().iter().zip(b.to_values()).all(|(x, y)| x.same(&y)));
    }
}

#[test]
fn type_errors_point_at_the_node() {
    let ir = GraphIr::from_json(
        r#"{"inputs": [{"name": "s", "type": "str", "kind": "extern"}],
            "nodes": [{"op": "hash", "args": [{"wire": {"input": 0}}], "span": {"line": 4, "col": 9}}],
            "outputs": [{"name": "h", "wire": {"node": {"node": 0, "port": 0}}}]}"#,
    )
    .unwrap();
    let err = compile(&ir, &CompileOptions::default()).err().unwrap();
    assert_eq!(err.span.unwrap().line, 4);
    assert!(err.message.contains("expects u64") && err.message.contains("str"), "{}", err.message);
}
