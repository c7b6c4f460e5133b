//! Scope chains: auto-extern against an outer manifest, the binding gradient
//! (inlined literal, copy, live output, shared cell, transit, iteration
//! variable), scope-init once per binding, cells across threads, and the
//! same chain on every pairing of parent and child engines agreeing with P1.

use polydat_core::compile::sketch;
use polydat_core::compile::{compile, CompileOptions};
use polydat_core::engine::{EngineKind, Kernel, ENGINE_NAMES};
use polydat_core::ir::{InputKind, InputOrigin};
use polydat_core::program::manifest::{Form, Manifest};
use polydat_core::scope::bind::Scope;
use polydat_core::{BindError, CompileError, PortType, Program, Value, WriteError};
use std::sync::Arc;

fn compiled(src: &str, outer: Option<&Manifest>, iteration: &[(&str, PortType)]) -> Result<Program, CompileError> {
    let ir = sketch::parse(src).unwrap();
    let options = CompileOptions {
        outer: outer.map(|m| Arc::new(m.clone())),
        iteration: iteration.iter().map(|(n, t)| (n.to_string(), *t)).collect(),
        ..CompileOptions::default()
    };
    compile(&ir, &options)
}

fn failure(result: Result<Program, CompileError>) -> CompileError {
    match result {
        Ok(_) => panic!("expected a compile error"),
        Err(e) => e,
    }
}

fn program(src: &str) -> Arc<Program> {
    Arc::new(compiled(src, None, &[]).unwrap_or_else(|e| panic!("{e}")))
}

/// `src` compiled against the manifest of scope `outer`.
fn child_of(src: &str, outer: &Arc<Scope>) -> Arc<Program> {
    Arc::new(compiled(src, Some(&outer.manifest()), &[]).unwrap_or_else(|e| panic!("{e}")))
}

fn root(src: &str) -> Arc<Scope> {
    Scope::root(&program(src), EngineKind::P1).unwrap()
}

fn bind(program: &Arc<Program>, outer: &Arc<Scope>) -> Arc<Scope> {
    Scope::bind(program, EngineKind::P1, outer, Vec::new()).unwrap_or_else(|e| panic!("{e}"))
}

fn pull(scope: &Scope, name: &str) -> Value {
    let mut k = scope.lock();
    let o = scope.program().output(name).unwrap_or_else(|| panic!("no output {name}"));
    k.pull(o).unwrap_or_else(|e| panic!("{e}"))
}

fn set(scope: &Scope, name: &str, value: Value) -> Result<(), WriteError> {
    let mut k = scope.lock();
    polydat_core::engine::set_named(&mut *k, name, value, true)
}

fn u(v: u64) -> Value {
    Value::U64(v)
}

#[test]
fn a_free_name_becomes_an_extern_typed_from_the_outer_manifest() {
    let parent = root("input cycle: u64\nextern region: str = \"eu\"\nlabel := str_concat(region, \"-x\")");
    let child = child_of("free label\nfree cycle\nk := str_concat(label, \"!\")\nh := hash(cycle)", &parent);
    let label = &child.inputs[child.input("label").unwrap()];
    assert_eq!((label.ty, label.kind, label.origin), (PortType::Str, InputKind::Extern, InputOrigin::Outer));
    let cycle = &child.inputs[child.input("cycle").unwrap()];
    assert_eq!(cycle.kind, InputKind::Coordinate, "an outer coordinate is a coordinate of the child's own");
    assert_eq!(child.inputs[0].name, "cycle", "coordinates come first");
    let kid = bind(&child, &parent);
    assert!(pull(&kid, "k").same(&Value::str("eu-x!")));
}

#[test]
fn strict_refuses_a_name_nobody_provides_with_did_you_mean() {
    let parent = root("extern region: str = \"eu\"");
    let ir = sketch::parse("free regoin\nk := str_concat(regoin, \"!\")").unwrap();
    let options =
        CompileOptions { outer: Some(Arc::new(parent.manifest())), strict_names: true, ..CompileOptions::default() };
    let err = failure(compile(&ir, &options));
    assert!(err.message.contains("'regoin' is not bound or declared"), "{}", err.message);
    assert_eq!(err.hint.as_deref(), Some("did you mean 'region'?"));
    assert_eq!(err.span.map(|s| s.line), Some(1));
    // Not strict: the free name stays an inferred coordinate.
    let lax = compile(&ir, &CompileOptions { outer: Some(Arc::new(parent.manifest())), ..CompileOptions::default() })
        .unwrap();
    assert_eq!(lax.inputs[0].kind, InputKind::Coordinate);
}

#[test]
fn an_outer_literal_is_inlined_and_folds_even_into_a_construction_constant() {
    let parent = root("users := 1000\nconst base := 7");
    let m = parent.manifest();
    assert_eq!(m.get("users").unwrap().form, Form::Literal(polydat_core::ir::ConstIr::U64(1000)));
    let child = child_of("input cycle: u64\nfree users\nid := mod(hash(cycle), users)\nu := users", &parent);
    assert!(child.input("users").is_none(), "the literal is inlined: no slot");
    assert_eq!(child.scope.inlined.len(), 1);
    let kid = bind(&child, &parent);
    set(&kid, "cycle", u(3)).unwrap();
    let expected = polydat_core::nodes::hash::splitmix64(3) % 1000;
    assert!(pull(&kid, "id").same(&u(expected)));
    assert!(pull(&kid, "u").same(&u(1000)));
    // Bound under a scope whose literal differs, the program is stale.
    let other = root("users := 5\nconst base := 7");
    let err = Scope::bind(&child, EngineKind::P1, &other, Vec::new()).unwrap_err();
    assert!(matches!(err, BindError::Stale { ref name, .. } if name == "users"), "{err}");
    assert!(err.to_string().contains("1000") && err.to_string().contains('5'), "{err}");
}

#[test]
fn a_const_is_copied_once_and_a_computed_output_is_live() {
    let parent = root("input cycle: u64\nextern seed: u64 = 1\nconst c := hash(seed)\ny := u64_add(cycle, seed)");
    let m = parent.manifest();
    assert_eq!(m.get("c").unwrap().form, Form::Copy);
    assert_eq!(m.get("y").unwrap().form, Form::Live);
    assert_eq!(m.get("cycle").unwrap().form, Form::Coordinate);
    let child = child_of("free c\nfree y\ncc := u64_add(c, 0)\nyy := u64_add(y, 100)", &parent);
    let kid = bind(&child, &parent);
    let c_before = pull(&kid, "cc");
    assert!(c_before.same(&u(polydat_core::nodes::hash::splitmix64(1))));
    assert!(pull(&kid, "yy").same(&u(101)));
    // Live: the child sees the parent's current value at every read.
    set(&parent, "cycle", u(5)).unwrap();
    assert!(pull(&kid, "yy").same(&u(106)));
    // Binding happens once: the parent re-captures its const after a write; the child keeps its copy.
    set(&parent, "seed", u(2)).unwrap();
    parent.lock().invalidate_all();
    assert!(pull(&parent, "c").same(&u(polydat_core::nodes::hash::splitmix64(2))));
    assert!(pull(&kid, "cc").same(&c_before), "the copy was made once, at scope-init");
    assert!(pull(&kid, "yy").same(&u(107)), "live values follow");
    // A live slot cannot be written from the child.
    let err = set(&kid, "y", u(1)).unwrap_err();
    assert_eq!(err.kind(), "bound_slot");
}

#[test]
fn a_childs_consts_are_evaluated_once_at_scope_init() {
    let parent = root("input cycle: u64\ny := u64_add(cycle, 1)");
    let child = child_of("free y\nconst k := __probe(y, \"scopes-const\")\nz := u64_add(k, y)", &parent);
    polydat_core::nodes::diagnostic::probe_reset("scopes-const");
    let kid = bind(&child, &parent);
    assert_eq!(polydat_core::nodes::diagnostic::probe_count("scopes-const"), 1, "at bind");
    for cycle in 0..10 {
        set(&parent, "cycle", u(cycle)).unwrap();
        assert!(pull(&kid, "z").same(&u(1 + cycle + 1)), "k was captured at bind, when y was 1");
    }
    assert_eq!(polydat_core::nodes::diagnostic::probe_count("scopes-const"), 1, "never again per cycle");
}

#[test]
fn a_shared_cell_is_two_way_and_siblings_see_each_others_writes() {
    let parent = root("shared flag: u64 := 0\nseen := u64_add(flag, 10)");
    assert_eq!(parent.manifest().get("flag").unwrap().form, Form::Cell);
    let child = child_of("free flag\ng := u64_add(flag, 100)", &parent);
    let a = bind(&child, &parent);
    let b = bind(&child, &parent);
    assert!(pull(&a, "g").same(&u(100)), "the starting value");
    set(&a, "flag", u(3)).unwrap();
    assert!(pull(&parent, "seen").same(&u(13)), "the owner sees the child's write");
    assert!(pull(&b, "g").same(&u(103)), "a sibling sees it");
    set(&parent, "flag", u(4)).unwrap();
    assert!(pull(&a, "g").same(&u(104)), "last write wins");
    assert!(pull(&b, "g").same(&u(104)));
    // The cell keeps its type: a value that does not fit is refused, and so is clearing it.
    assert_eq!(set(&b, "flag", Value::str("x")).unwrap_err().kind(), "type_mismatch");
    assert_eq!(set(&b, "flag", Value::None).unwrap_err().kind(), "type_mismatch");
    // Also through the kernel's own write (no name lookup in front of it): the cell is untouched.
    let slot = child.input("flag").unwrap();
    assert!(b.lock().write(slot, Value::str("x")).is_err());
    assert!(pull(&parent, "flag").same(&u(4)));
    assert!(pull(&a, "g").same(&u(104)));
}

#[test]
fn a_host_write_before_the_first_read_is_not_overwritten_by_the_starting_value() {
    let top = root(
        "shared s: u64 := 1
t := u64_add(s, 0)",
    );
    set(&top, "s", u(5)).unwrap();
    assert!(pull(&top, "t").same(&u(5)));
    assert!(pull(&top, "s").same(&u(5)));
}

#[test]
fn a_grandchild_receives_a_root_cell_through_a_silent_middle_scope() {
    let top = root("shared total: u64 := 7");
    let middle = bind(&child_of("input cycle: u64\nm := hash(cycle)", &top), &top);
    assert_eq!(middle.transit(), ["total"], "the middle scope passes the cell through");
    let grandchild = bind(&child_of("free total\nt := u64_add(total, 1)", &middle), &middle);
    assert!(pull(&grandchild, "t").same(&u(8)));
    set(&grandchild, "total", u(41)).unwrap();
    assert!(pull(&top, "total").same(&u(41)), "the write reaches the owner");
    assert!(pull(&grandchild, "t").same(&u(42)));
    // A middle scope that binds the name shadows the cell.
    let shadow = bind(&child_of("total := 5", &top), &top);
    assert!(shadow.transit().is_empty());
    let below = bind(&child_of("free total\nt := u64_add(total, 1)", &shadow), &shadow);
    assert!(pull(&below, "t").same(&u(6)));
}

#[test]
fn a_childs_shared_binding_joins_the_outer_cell_of_its_name() {
    let top = root("shared hits: u64 := 1");
    let kid = bind(&child_of("shared hits: u64 := 99\nh := u64_add(hits, 0)", &top), &top);
    assert!(pull(&kid, "h").same(&u(1)), "the cell was written: the child's starting value is not used");
    set(&kid, "hits", u(5)).unwrap();
    assert!(pull(&top, "hits").same(&u(5)));
    // A child's own shared binding with no outer cell is a new cell it owns.
    let own = bind(&child_of("shared mine: u64 := 12\nq := u64_add(mine, 1)", &top), &top);
    assert!(pull(&own, "q").same(&u(13)));
    let deeper = bind(&child_of("free mine\nr := u64_add(mine, 0)", &own), &own);
    assert!(pull(&deeper, "r").same(&u(12)));
}

#[test]
fn a_cells_starting_value_is_computed_once_and_may_not_read_a_coordinate() {
    polydat_core::nodes::diagnostic::probe_reset("scopes-seed");
    let top = root(
        "input cycle: u64\nextern base: u64 = 5\nshared s := __probe(base, \"scopes-seed\")\nx := u64_add(s, cycle)",
    );
    for cycle in 0..5 {
        set(&top, "cycle", u(cycle)).unwrap();
        assert!(pull(&top, "x").same(&u(5 + cycle)));
    }
    assert_eq!(polydat_core::nodes::diagnostic::probe_count("scopes-seed"), 1);
    let err = failure(compiled("input cycle: u64\nshared s := hash(cycle)", None, &[]));
    assert!(err.message.contains("starting value of shared 's'"), "{}", err.message);
}

#[test]
fn iteration_variables_are_bound_from_the_tuple() {
    let parent = root("extern scale: u64 = 10");
    let body = Arc::new(
        compiled(
            "free k\nfree scale\ninput cycle: u64\nv := u64_add(u64_mul(k, scale), cycle)",
            Some(&parent.manifest()),
            &[("k", PortType::U64), ("w", PortType::Str)],
        )
        .unwrap(),
    );
    assert_eq!(body.inputs[body.input("k").unwrap()].origin, InputOrigin::Iteration);
    assert!(body.input("w").is_some(), "an unread iteration variable still gets its slot");
    for k in 0..4 {
        let act = Scope::bind(&body, EngineKind::P1, &parent, vec![("k".into(), u(k)), ("w".into(), Value::str("a"))])
            .unwrap();
        set(&act, "cycle", u(2)).unwrap();
        assert!(pull(&act, "v").same(&u(k * 10 + 2)));
    }
    let missing = Scope::bind(&body, EngineKind::P1, &parent, vec![("k".into(), u(1))]).unwrap_err();
    assert!(matches!(missing, BindError::Iteration { ref name, .. } if name == "w"), "{missing}");
    let wrong =
        Scope::bind(&body, EngineKind::P1, &parent, vec![("k".into(), Value::str("x")), ("w".into(), Value::str("a"))])
            .unwrap_err();
    assert_eq!(wrong.kind(), "from_outer");
    let bound_twice = failure(compiled("k := 1", None, &[("k", PortType::U64)]));
    assert!(bound_twice.message.contains("iteration variable"), "{}", bound_twice.message);
}

#[test]
fn copies_go_through_the_boundary_catalog() {
    let parent = root("extern big: u64 = 1099511627776\nextern small: u64 = 7");
    let fits = child_of("extern small: u32\ns := small", &parent);
    assert!(pull(&bind(&fits, &parent), "s").same(&Value::U32(7)));
    let narrow = child_of("extern big: u32\nb := big", &parent);
    let err = Scope::bind(&narrow, EngineKind::P1, &parent, Vec::new()).unwrap_err();
    assert!(matches!(err, BindError::FromOuter { ref slot, .. } if slot == "big"), "{err}");
    // A declared extern nobody provides keeps its default.
    let own = child_of("extern mine: u64 = 3\nq := mine", &parent);
    assert!(pull(&bind(&own, &parent), "q").same(&u(3)));
}

#[test]
fn binding_needs_what_the_program_was_compiled_against() {
    let parent = root("extern region: str = \"eu\"");
    let child = child_of("free region\nr := str_concat(region, \"!\")", &parent);
    let err = Scope::root(&child, EngineKind::P1).unwrap_err();
    assert!(matches!(err, BindError::NeedsOuter { ref names } if names == &["region".to_string()]), "{err}");
    let elsewhere = root("extern regions: str = \"eu\"");
    let err = Scope::bind(&child, EngineKind::P1, &elsewhere, Vec::new()).unwrap_err();
    assert!(
        matches!(err, BindError::Unbound { ref name, ref hint } if name == "region" && hint.contains("regions")),
        "{err}"
    );
}

#[test]
fn children_on_several_threads_under_one_parent_equal_a_serial_run() {
    let parent = root("shared bonus: u64 := 1000\nextern salt: u64 = 9\nconst base := hash(salt)");
    let child =
        child_of("input cycle: u64\nfree base\nfree bonus\nv := u64_add(hash(u64_xor(cycle, base)), bonus)", &parent);
    let run = |scope: &Arc<Scope>| -> Vec<u64> {
        let mut k = scope.lock();
        let v = scope.program().output("v").unwrap();
        (0..500u64)
            .map(|c| {
                k.write_u64(0, c).unwrap();
                k.pull_word(v).unwrap()
            })
            .collect()
    };
    let serial: Vec<Vec<u64>> = (0..8).map(|_| run(&bind(&child, &parent))).collect();
    let threaded: Vec<Vec<u64>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8).map(|_| s.spawn(|| run(&bind(&child, &parent)))).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(serial, threaded);
    // Writes from several threads into one cell: every one lands, the last wins.
    std::thread::scope(|s| {
        for t in 0..8u64 {
            let (child, parent) = (&child, &parent);
            s.spawn(move || {
                let kid = bind(child, parent);
                for i in 0..100 {
                    set(&kid, "bonus", u(t * 1000 + i)).unwrap();
                }
            });
        }
    });
    let last = pull(&parent, "bonus");
    assert!(matches!(last, Value::U64(v) if v % 1000 == 99), "{last}");
    let kid = bind(&child, &parent);
    set(&kid, "cycle", u(0)).unwrap();
    let base = pull(&parent, "base");
    let Value::U64(base) = base else { panic!() };
    let Value::U64(bonus) = last else { panic!() };
    assert!(pull(&kid, "v").same(&u(polydat_core::nodes::hash::splitmix64(base).wrapping_add(bonus))));
}

/// The chain: a parent with a const, an extern, a live output and a cell;
/// a child reading all of them (writing the cell); a grandchild below.
fn chain_values(parent_kind: EngineKind, child_kind: EngineKind) -> Vec<Value> {
    let parent_program = program(
        "input cycle: u64\nextern salt: u64 = 3\nconst base := hash(salt)\n\
         live := u64_add(hash(cycle), base)\nshared count: u64 := 10\nratio := unit_interval(live)\n\
         name := str_concat(\"p\", \"q\")",
    );
    let parent = Scope::root(&parent_program, parent_kind).unwrap();
    let child_program = child_of(
        "input cycle: u64\nfree base\nfree live\nfree count\nfree ratio\nfree name\n\
         a := u64_add(u64_xor(live, cycle), count)\nb := f64_mul(ratio, 2.0)\n\
         c := str_concat(name, \"!\")\nd := mod(hash(u64_add(base, cycle)), 97)",
        &parent,
    );
    let grand_program = child_of("free a\nfree count\ng := u64_add(a, count)", &parent_of(&child_program, &parent));
    let mut out = Vec::new();
    for pc in [0u64, 7, u64::MAX] {
        set(&parent, "cycle", u(pc)).unwrap();
        let child = Scope::bind(&child_program, child_kind, &parent, Vec::new()).unwrap();
        let grand = Scope::bind(&grand_program, parent_kind, &child, Vec::new()).unwrap();
        for cc in [0u64, 1, 1 << 40] {
            set(&child, "cycle", u(cc)).unwrap();
            for name in ["a", "b", "c", "d"] {
                out.push(pull(&child, name));
            }
            out.push(pull(&grand, "g"));
            set(&child, "count", u(cc % 5 + pc % 3)).unwrap();
            out.push(pull(&parent, "count"));
            out.push(pull(&grand, "g"));
        }
    }
    out
}

/// A scope of `program` under `outer` (for compiling a grandchild against it).
fn parent_of(program: &Arc<Program>, outer: &Arc<Scope>) -> Arc<Scope> {
    bind(program, outer)
}

#[test]
fn the_same_chain_on_every_pairing_of_engines_agrees_with_p1() {
    let oracle = chain_values(EngineKind::P1, EngineKind::P1);
    for parent in ENGINE_NAMES {
        for child in ENGINE_NAMES {
            let values = chain_values(EngineKind::parse(parent).unwrap(), EngineKind::parse(child).unwrap());
            assert_eq!(values.len(), oracle.len());
            for (i, (a, b)) in values.iter().zip(&oracle).enumerate() {
                assert!(a.same(b), "parent {parent}, child {child}, value {i}: {a} vs {b}");
            }
        }
    }
}

#[test]
fn generate_under_a_bound_scope_uses_its_bindings_on_every_thread() {
    use polydat_core::engine::{ColumnSource, KernelMaker, Stop};
    use polydat_core::generation::{Generator, RowPlan};
    let parent = root("shared step: u64 := 3\nextern base: u64 = 100");
    let child = child_of("input cycle: u64\nfree step\nfree base\nv := u64_add(u64_mul(cycle, step), base)", &parent);
    let kid = bind(&child, &parent);
    let preset: Vec<(usize, Value)> =
        (0..child.inputs.len()).filter(|&i| kid.lock().is_bound(i)).map(|i| (i, kid.lock().input_value(i))).collect();
    let columns = |threads: usize| {
        let scope = kid.clone();
        let maker: KernelMaker = Arc::new(move || Box::new(scope.lock().sibling()));
        let plan = RowPlan::range(0, 0, 1000, 1);
        let v = child.output("v").unwrap();
        let sources = [ColumnSource::Output(v), ColumnSource::Input(child.input("base").unwrap())];
        let mut g =
            Generator::with_maker(&child, EngineKind::P1, maker, preset.clone(), &plan, &sources, threads).unwrap();
        g.fill(0, 1000, &Stop::new()).unwrap()
    };
    let one = columns(1);
    let four = columns(4);
    assert_eq!(format!("{:?}", one[0].data), format!("{:?}", four[0].data));
    let polydat_core::columns::ColumnData::U64(values) = &one[0].data else { panic!() };
    assert_eq!(values[10], 10 * 3 + 100);
    let polydat_core::columns::ColumnData::U64(bases) = &one[1].data else { panic!() };
    assert!(bases.iter().all(|&b| b == 100), "an input column of a bound slot is its value");
}
