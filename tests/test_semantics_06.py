"""Upstream's 0.6.0 semantics (its porting guide), each rule on every engine:
a const is captured once at kernel init and may read externs but never a
coordinate; a volatile re-runs on every read; `shared const` is refused;
`pragma strict_values` fails a constant that violates the port it feeds; the
removed session clocks name their replacement; `is_stable` takes a window;
a scope compiled under a kernel runs on that kernel's engine."""

from __future__ import annotations

import json

import pytest

import polydat
from polydat.errors import CompileError

ENGINES = polydat._core.engines()


def kernel(source: str, engine: str) -> polydat.Kernel:
    return polydat.compile(source, engine=engine).kernel()


@pytest.mark.parametrize("engine", ENGINES)
def test_a_const_reading_an_extern_is_captured_at_init_and_again_only_on_init(engine: str) -> None:
    k = kernel("input cycle\nextern base: u64 = 20\nconst limit := u64_add(base, 32)\nout := cycle + limit", engine)
    k.set_inputs(1)
    assert k.eval() == {"limit": 52, "out": 53}
    k.set("base", 100)
    assert k.eval() == {"limit": 52, "out": 53}, "writing an extern leaves the const as captured"
    k.init()
    assert k.eval() == {"limit": 132, "out": 133}, "init captures it again from the inputs as they are"


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("source", [
    "input cycle\nconst x := hash(cycle)\nout := x",
    "input cycle\ny := hash(cycle)\nconst x := u64_add(y, 1)\nout := x",
])
def test_a_const_reading_a_coordinate_is_refused_on_every_engine(engine: str, source: str) -> None:
    with pytest.raises(CompileError, match="const binding 'x' depends on coordinate input 'cycle'"):
        polydat.compile(source, engine=engine)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("modifiers", ["shared const", "const shared"])
def test_shared_const_is_refused_with_the_two_forms_it_could_mean(engine: str, modifiers: str) -> None:
    with pytest.raises(CompileError, match="'shared' and 'const' cannot be combined") as info:
        polydat.compile(f"input cycle\n{modifiers} x := 3\nout := x", engine=engine)
    assert "`const x := ...`" in str(info.value) and "`shared x := ...`" in str(info.value)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_volatile_reruns_on_every_read_and_a_const_capture_stops_it(engine: str) -> None:
    k = kernel("input cycle\nvolatile v := counter()\nw := v + 100\nconst fixed := counter(7)\nz := hash(cycle)", engine)
    k.set_inputs(1)
    first, second = k.eval(), k.eval()
    assert (first["v"], second["v"]) == (0, 1)
    assert (first["w"], second["w"]) == (100, 101), "downstream of the volatile re-runs too"
    assert first["fixed"] == second["fixed"] == 7, "a const over a volatile is captured once"
    assert k.pull("v") == 2 and k.pull("v") == 3


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("call", ["mod_wire(cycle, 0)", "div_wire(cycle, 0)"])
def test_strict_values_fails_a_constant_that_violates_the_port_it_feeds(engine: str, call: str) -> None:
    with pytest.raises(CompileError, match="every evaluation of this node fails.*strict_values"):
        polydat.compile(f"pragma strict_values\ninput cycle\nout := {call}", engine=engine)
    lax = polydat.compile(f"input cycle\nout := {call}", engine=engine)
    assert any("divisor" in w.message for w in lax.warnings), "without the pragma it is a warning"


@pytest.mark.parametrize("name", ["session_start_millis", "elapsed_millis"])
def test_the_removed_session_clocks_name_their_replacement(name: str) -> None:
    with pytest.raises(CompileError, match=f"unknown node '{name}'") as info:
        polydat.compile(f"input cycle\nout := {name}()")
    assert "const session_start := current_epoch_millis()" in str(info.value)
    assert name not in {n["name"] for n in polydat.catalog()}


@pytest.mark.parametrize("engine", ENGINES)
def test_the_session_clock_replacement_compiles_strict_and_holds(engine: str) -> None:
    source = (
        "pragma strict\ninput cycle\nconst session_start := current_epoch_millis()\n"
        "volatile elapsed := current_epoch_millis() - session_start\nout := cycle + session_start"
    )
    k = kernel(source, engine)
    k.set_inputs(1)
    first = k.eval()
    later = k.eval()
    assert first["session_start"] == later["session_start"] > 1_700_000_000_000
    assert 0 <= first["elapsed"] <= later["elapsed"] < 60_000


@pytest.mark.parametrize("engine", ENGINES)
def test_is_stable_reads_a_window_of_samples(engine: str) -> None:
    k = kernel('extern samples: vec_f64 = "[]"\n(stable_value, stable) := is_stable(samples, 0.05, 4)', engine)
    assert k.eval() == {"stable_value": 0.0, "stable": 0}, "an empty window"
    for window, expected in [
        ("[0, 1, 3, 4.5, 5, 5, 5, 5]", (4.75, 0)),
        ("[5, 5, 5, 5, 5, 5, 5, 5]", (5.0, 1)),
        ("[5, 5, 5, 5, 5, 5, 5, 0]", (5.0, 0)),
        ("[5, 5, 5]", (5.0, 0)),
        ("[1, 4, 2, 3]", (2.5, 0)),
    ]:
        k.set("samples", window)
        got = k.eval()
        k.set("samples", json.loads(window))
        assert k.eval() == got, "a Python list is the same window as its JSON text"
        assert (got["stable_value"], got["stable"]) == expected, window
        assert k.eval() == got, "the node keeps no history: the same window, the same answer"


def test_is_stable_refuses_the_05_horizon_form_and_a_window_that_is_not_numbers() -> None:
    with pytest.raises(CompileError, match="is_stable"):
        polydat.compile("input cycle\n(v, s) := is_stable(cycle as f64, 0.05, 8, 32)")
    k = kernel('extern text: str = "[1, \\"x\\"]"\n(v, s) := is_stable(str_to_vec_f64(text))', "auto")
    with pytest.raises(polydat.EvalError, match=r'str_to_vec_f64: element "x" is not a number in'):
        k.eval()
    k = kernel('extern samples: vec_f64 = "[]"\n(v, s) := is_stable(samples)', "auto")
    with pytest.raises(polydat.PolydatError, match=r'element 1 \("x"\) of .* is not a number'):
        k.set("samples", [1, "x"])


@pytest.mark.parametrize("engine", [e for e in ENGINES if e != "auto"])
def test_a_scope_compiled_under_a_kernel_runs_on_the_parents_engine(engine: str) -> None:
    parent = polydat.compile("input cycle\nx := hash(cycle)", engine=engine)
    child = polydat.compile("y := x + 1", outer=parent.kernel())
    assert child.engine == parent.engine
    explicit = polydat.compile("y := x + 1", outer=parent.kernel(), engine="p1")
    assert explicit.engine == "p1", "an engine the child names wins"


# -- rules of the guide that already held here, proven on every engine --------


@pytest.mark.parametrize("engine", ENGINES)
def test_a_failing_const_fails_init_naming_it(engine: str) -> None:
    k = kernel("input cycle\nextern d: u64 = 0\nconst bad := div_wire(10, d)\nout := cycle + bad", engine)
    k.set_inputs(1)
    with pytest.raises(polydat.EvalError, match="output bad"):
        k.eval()


@pytest.mark.parametrize("engine", ENGINES)
def test_a_const_is_not_writable_and_no_write_converts(engine: str) -> None:
    k = kernel("input cycle\nextern base: u64 = 1\nconst limit := base + 1\nout := cycle + limit", engine)
    with pytest.raises(polydat.WriteError, match="no input named 'limit'"):
        k.set("limit", 5)
    with pytest.raises(polydat.WriteError, match="input 'base' is u64, cannot write str"):
        k.set("base", "10")


@pytest.mark.parametrize("engine", ENGINES)
def test_a_shared_cell_takes_a_computed_start_once(engine: str) -> None:
    k = kernel("input cycle\nshared hits: u64 := hash(7) % 10\nout := hits", engine)
    k.set_inputs(1)
    assert k.eval() == {"hits": 7, "out": 7}


@pytest.mark.parametrize("engine", ENGINES)
def test_a_binder_copy_the_child_cannot_take_fails_binding(engine: str) -> None:
    parent = kernel('const limit := "10"', engine)
    child = polydat.compile("extern limit: u64\nout := limit + 1", engine=engine)
    with pytest.raises(polydat.BindError, match="cannot bind 'limit' \\(u64\\).*gives str"):
        child.kernel(parent)


@pytest.mark.parametrize("engine", ENGINES)
def test_an_unset_extern_answers_for_exactly_its_dependents(engine: str) -> None:
    k = kernel("input cycle\nextern mode: u64\nt := hash(cycle)\na := hash(t)\nb := t * mode", engine)
    k.set_inputs(1)
    reference = kernel("input cycle\na := hash(hash(cycle))", engine)
    reference.set_inputs(1)
    assert k.pull("a") == reference.pull("a"), "an output that does not read the unset extern is served"
    assert k.pull("b") is None


def test_a_strict_zip_whose_sources_end_apart_fails() -> None:
    k = polydat.compile("x := 1").kernel()
    with pytest.raises(CompileError, match="different lengths"):
        list(k.for_each("(a, b) in (x, y, z), 1..3", "v := a"))


def test_a_const_over_a_clock_is_acknowledged_under_strict() -> None:
    program = polydat.compile("pragma strict\nconst session_start := current_epoch_millis()\nout := session_start + 1")
    assert not program.warnings
