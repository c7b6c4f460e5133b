"""Scope chains from Python: compile(outer=...), Program.kernel(outer=...),
the binding gradient (inlined literal, copy, live output, shared cell,
transit, iteration variable), strict name resolution, threads, and every
pairing of parent and child engines agreeing with P1."""

from __future__ import annotations

import pickle
import threading

import pytest

import polydat
from polydat import ArgumentError, BindError, CompileError, WriteError

PARENT = """
input cycle
extern region: str = "eu"
const users := 1000
const salt := hash(users)
const code := "{region}!"
label := "{region}-{cycle}"
shared hits: u64 := 0
"""


@pytest.fixture
def parent() -> polydat.Kernel:
    return polydat.compile(PARENT).kernel()


def test_a_free_name_becomes_a_typed_extern_of_the_outer_scope(parent: polydat.Kernel) -> None:
    child = polydat.compile('tag := "{label}!"\nh := hits + 1\nr := region', outer=parent)
    assert child.input_origins == {"label": "outer", "hits": "outer", "region": "outer"}
    assert child.input_types == {"label": "str", "hits": "u64", "region": "str"}
    k = child.kernel()
    assert k.bindings == {"label": "live", "hits": "cell", "region": "copied"}
    assert k.eval() == {"tag": "eu-0!", "h": 1, "r": "eu"}
    assert not child.warnings, "names the outer scope provides are not reported"


def test_the_outer_coordinate_is_the_childs_own(parent: polydat.Kernel) -> None:
    child = polydat.compile("x := hash(cycle)", outer=parent)
    assert child.coordinates == ["cycle"]
    assert not child.warnings
    k = child.kernel()
    k.set_inputs(cycle=3)
    parent.set_inputs(cycle=9)
    alone = polydat.compile("input cycle\nx := hash(cycle)").kernel()
    alone.set_inputs(cycle=3)
    assert k.pull("x") == alone.pull("x")
    assert k.input_values()["cycle"] == 3, "coordinates are never bound"


def test_strict_names_an_unresolved_name_with_did_you_mean(parent: polydat.Kernel) -> None:
    with pytest.raises(CompileError) as info:
        polydat.compile("x := regoin", outer=parent, strict=True)
    assert "'regoin'" in info.value.message
    assert info.value.hint == "did you mean 'region'?"
    assert (info.value.line, info.value.col) == (1, 6)
    lax = polydat.compile("x := regoin", outer=parent)
    assert lax.coordinates == ["regoin"]
    assert "region" in str(lax.warnings[0])


def test_an_outer_literal_is_inlined_and_may_fill_a_construction_constant(parent: polydat.Kernel) -> None:
    child = polydat.compile("input cycle\nid := mod(hash(cycle), users)", outer=parent)
    assert child.inlined == {"users": 1000}
    assert "users" not in child.inputs
    k = child.kernel()
    expected = polydat.compile("input cycle\nid := mod(hash(cycle), 1000)").kernel()
    for c in (0, 7, 2**40):
        k.set_inputs(cycle=c)
        expected.set_inputs(cycle=c)
        assert k.pull("id") == expected.pull("id")
    other = polydat.compile(PARENT.replace("1000", "5")).kernel()
    with pytest.raises(BindError) as info:
        child.kernel(outer=other)
    assert info.value.kind == "stale" and info.value.name == "users"


def test_a_const_is_copied_once_and_a_computed_output_is_live() -> None:
    parent = polydat.compile("input cycle\nextern seed: u64 = 1\nconst c := hash(seed)\ny := cycle + seed").kernel()
    child = polydat.compile("cc := c\nyy := y + 100", outer=parent).kernel()
    assert child.bindings == {"c": "copied", "y": "live"}
    before = child.pull("cc")
    assert child.pull("yy") == 101
    parent.set_inputs(cycle=5)
    assert child.pull("yy") == 106, "a live output: the parent's current value"
    parent.set("seed", 2)
    parent.init()
    assert parent.pull("c") != before
    assert child.pull("cc") == before, "a copy is taken once, at scope-init"
    assert child.pull("yy") == 107
    with pytest.raises(WriteError) as info:
        child.set("y", 1)
    assert info.value.kind == "bound_slot"


def test_a_shared_binding_is_a_two_way_cell_seen_by_siblings(parent: polydat.Kernel) -> None:
    program = polydat.compile("g := hits + 100", outer=parent)
    a, b = program.kernel(), program.kernel()
    assert a.pull("g") == 100
    a.set("hits", 3)
    assert parent.pull("hits") == 3
    assert b.pull("g") == 103, "a sibling sees the write"
    parent.set("hits", 4)
    assert a.pull("g") == 104 and b.pull("g") == 104, "last write wins"
    with pytest.raises(WriteError):
        b.set("hits", "many")
    with pytest.raises(WriteError):
        b.set("hits", None)


def test_a_write_invalidates_the_readers_of_the_cell_in_the_owner() -> None:
    owner = polydat.compile("shared budget: f64 := 100\nleft := budget * 2.0\nconst first := budget").kernel()
    assert owner.eval() == {"budget": 100.0, "left": 200.0, "first": 100.0}
    spender = polydat.compile("spend := budget - 1.0", outer=owner).kernel()
    spender.set("budget", 40)
    assert owner.pull("left") == 80.0
    assert owner.pull("first") == 100.0, "a const captured the starting value"


def test_a_grandchild_receives_a_root_cell_through_a_silent_middle_scope() -> None:
    root = polydat.compile("shared total: u64 := 7").kernel()
    middle = polydat.compile("input cycle\nm := hash(cycle)", outer=root).kernel()
    assert middle.transit == ["total"]
    grandchild = polydat.compile("t := total + 1", outer=middle).kernel()
    assert grandchild.pull("t") == 8
    grandchild.set("total", 41)
    assert root.pull("total") == 41
    assert grandchild.pull("t") == 42


def test_shared_with_a_type_pins_the_cell_and_its_starting_value_is_computed_once() -> None:
    root = polydat.compile("extern base: u64 = 5\nshared s: f64 := base\ninput cycle\nx := s + 0.5").kernel()
    assert root.pull("x") == 5.5
    root.set("base", 9)
    assert root.pull("x") == 5.5, "the starting value is taken once"
    with pytest.raises(CompileError) as info:
        polydat.compile("input cycle\nshared s := hash(cycle)")
    assert "starting value of shared 's'" in info.value.message


def test_a_childs_shared_binding_joins_the_outer_cell(parent: polydat.Kernel) -> None:
    child = polydat.compile("shared hits: u64 := 99\nh := hits", outer=parent).kernel()
    assert child.pull("h") == 0, "the outer cell was written: the child's starting value is not used"
    child.set("hits", 5)
    assert parent.pull("hits") == 5


def test_iteration_variables_come_from_each_tuple(parent: polydat.Kernel) -> None:
    kids = list(parent.for_each("k in 1..4", "v := k * 10 + hits"))
    assert [k.iteration for k in kids] == [{"k": 1}, {"k": 2}, {"k": 3}]
    assert [k.pull("v") for k in kids] == [10, 20, 30]
    assert kids[0].bindings["k"] == "iteration"
    assert all(k.outer is parent for k in kids)


def test_children_on_threads_under_one_parent_equal_a_serial_run() -> None:
    parent = polydat.compile("extern salt: u64 = 9\nconst base := hash(salt)\nshared bonus: u64 := 1000").kernel()
    child = polydat.compile("input cycle\nv := hash(cycle ^ base) + bonus", outer=parent)

    def run() -> list[int]:
        k = child.kernel()
        return [int(x) for x in k.generate(range(2000))["v"]]

    serial = [run() for _ in range(4)]
    results: list[list[int]] = [[] for _ in range(4)]

    def work(i: int) -> None:
        results[i] = run()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == serial
    k = child.kernel()
    one = k.generate(range(10_000), threads=1)["v"]
    two = k.generate(range(10_000), threads=2)["v"]
    assert (one == two).all()


ENGINES = polydat._core.engines()


def chain(parent_engine: str, child_engine: str) -> list[object]:
    parent = polydat.compile(
        "input cycle\nextern salt: u64 = 3\nconst base := hash(salt)\nlive := hash(cycle) + base\n"
        "shared count: u64 := 10\nratio := unit_interval(live)\nname := \"p{salt}\"",
        engine=parent_engine,
    ).kernel()
    child_program = polydat.compile(
        "input cycle\na := (live ^ cycle) + count\nb := ratio * 2.0\nc := \"{name}!\"\nd := mod(hash(base + cycle), 97)",
        outer=parent,
        engine=child_engine,
    )
    out: list[object] = []
    for pc in (0, 7, 2**64 - 1):
        parent.set_inputs(cycle=pc)
        child = child_program.kernel()
        grand = polydat.compile("g := a + count", outer=child, engine=parent_engine).kernel()
        for cc in (0, 1, 2**40):
            child.set_inputs(cycle=cc)
            out.extend(child.pull(n) for n in "abcd")
            out.append(grand.pull("g"))
            child.set("count", cc % 5 + pc % 3)
            out.append(parent.pull("count"))
            out.append(grand.pull("g"))
    return out


@pytest.mark.parametrize("parent_engine", ENGINES)
def test_every_pairing_of_parent_and_child_engines_agrees_with_p1(parent_engine: str) -> None:
    oracle = chain("p1", "p1")
    for child_engine in ENGINES:
        assert chain(parent_engine, child_engine) == oracle, (parent_engine, child_engine)


def test_bad_outer_scopes_are_clear_errors(parent: polydat.Kernel) -> None:
    with pytest.raises(ArgumentError):
        polydat.compile("x := 1", outer=42)  # type: ignore[arg-type]
    child = polydat.compile("r := region", outer=parent)
    with pytest.raises(BindError) as info:
        polydat.compile("r := region", outer=polydat.compile(PARENT)).kernel()
    assert info.value.kind == "needs_outer" and info.value.name == "region"
    with pytest.raises(BindError) as info:
        polydat.compile("r := region", outer=polydat.compile(PARENT)).generate(3)
    assert info.value.kind == "needs_outer"
    elsewhere = polydat.compile('extern regions: str = "x"').kernel()
    with pytest.raises(BindError) as info:
        child.kernel(outer=elsewhere)
    assert info.value.kind == "unbound" and "regions" in str(info.value)
    narrow = polydat.compile("extern users: u32\nu := users", outer=polydat.compile("const users := 5000000000").kernel())
    with pytest.raises(BindError) as info:
        narrow.kernel()
    assert info.value.kind == "from_outer"
    with pytest.raises(ArgumentError):
        child.kernel(outer="parent")  # type: ignore[arg-type]


def test_a_failing_const_at_scope_init_is_an_eval_error(parent: polydat.Kernel) -> None:
    child = polydat.compile("const checked := in_range(hits, 5, 9)", outer=parent)
    with pytest.raises(polydat.EvalError) as info:
        child.kernel()
    assert "in_range" in str(info.value)


FAILING_PARENT = "input cycle\nbad := is_positive(cycle)\ngood := cycle + 10\n"


@pytest.mark.parametrize("engine", ENGINES)
def test_a_failing_outer_output_fails_only_the_reads_that_need_it(engine: str) -> None:
    # issue 44 item 6: every read of the child refreshed every live slot, so
    # `y`, which reads nothing outer, failed with the parent's `bad`.
    parent = polydat.compile(FAILING_PARENT, engine=engine).kernel()
    parent.set_inputs(cycle=1)
    child = polydat.compile("input cycle\ny := cycle + 1\nz := bad + 1\ng := good", outer=parent, engine=engine)
    k = child.kernel()
    assert k.bindings == {"cycle": "own", "bad": "live", "good": "live"}
    parent.set_inputs(cycle=0)
    assert k.pull("y") == 1 and k.pull("g") == 10
    assert list(k.generate(range(3), outputs=["y", "g"])["y"]) == [1, 2, 3]
    assert list(k.generate(range(3), outputs=["y"], threads=2)["y"]) == [1, 2, 3]
    with pytest.raises(polydat.EvalError, match="is_positive"):
        k.pull("z")
    parent.set_inputs(cycle=4)
    assert k.pull("z") == 5 and k.eval() == {"y": 1, "z": 5, "g": 14}


def test_binding_under_a_failing_outer_value_the_child_reads_is_a_bind_error() -> None:
    # issue 44 item 6: the failure of an outer value read at binding came out
    # as the outer scope's EvalError.
    parent = polydat.compile(FAILING_PARENT).kernel()
    with pytest.raises(BindError) as info:
        polydat.compile("z := bad + 1", outer=parent).kernel()
    assert info.value.kind == "outer_value" and info.value.name == "bad"
    assert "'bad'" in str(info.value) and "is_positive" in str(info.value)
    assert polydat.compile("input cycle\ny := cycle + good", outer=parent).kernel().pull("y") == 10


def test_a_program_compiled_against_an_outer_scope_pickles_with_its_manifest(parent: polydat.Kernel) -> None:
    child = polydat.compile("input cycle\nid := mod(hash(cycle), users)\nt := label", outer=parent)
    again = pickle.loads(pickle.dumps(child))
    assert again.inlined == {"users": 1000} and again.input_origins == child.input_origins
    k = again.kernel(outer=parent)
    assert k.eval() == child.kernel().eval()


def test_the_manifest_lists_each_name_with_its_form(parent: polydat.Kernel) -> None:
    forms = {e["name"]: e["form"] for e in parent.manifest()}
    assert isinstance(forms["salt"], dict), "folded at compile time: a literal"
    assert forms == {
        "users": {"literal": {"u64": 1000}},
        "salt": {"literal": {"u64": forms["salt"]["literal"]["u64"]}},
        "code": "copy",
        "label": "live",
        "hits": "cell",
        "cycle": "coordinate",
        "region": "copy",
    }
    child = polydat.compile("x := 1", outer=parent).kernel()
    names = [e["name"] for e in child.manifest()]
    assert names[0] == "x" and set(names) == {"x", *forms}
    assert child.value_of("region") == "eu"
    with pytest.raises(polydat.UnknownNameError):
        child.value_of("regoin")


@pytest.mark.parametrize("engine", ENGINES)
def test_a_root_program_with_cells_generates_on_every_engine(engine: str) -> None:
    program = polydat.compile("input cycle\nextern base: u64 = 4\nshared s: u64 := base\nx := s + cycle", engine=engine)
    assert list(program.generate(range(5), outputs=["x"])["x"]) == [4, 5, 6, 7, 8]
    assert list(program.generate(range(3), outputs=["x"], inputs={"base": 10})["x"]) == [10, 11, 12]
    k = program.kernel()
    k.set("s", 100)
    assert list(k.generate(range(3), outputs=["x"])["x"]) == [100, 101, 102], "a kernel's generate keeps its cell"


def test_generate_from_a_bound_kernel_and_from_its_program(parent: polydat.Kernel) -> None:
    parent.set("region", "us")
    child = polydat.compile("input cycle\nt := \"{region}{cycle}\"\nh := hits + cycle", outer=parent)
    cols = child.generate(range(3), outputs=["t", "h", "region"])
    assert list(cols["t"]) == ["us0", "us1", "us2"] and list(cols["region"]) == ["us"] * 3
    assert list(cols["h"]) == [0, 1, 2]
    table = child.kernel().generate(range(4), outputs=["h"], threads=2, format="arrow")
    assert table.column("h").to_pylist() == [0, 1, 2, 3]
    batches = list(child.kernel().iter_batches(range(5), batch_rows=2, outputs=["t"]))
    assert [b.num_rows for b in batches] == [2, 2, 1]
