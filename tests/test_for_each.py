"""Kernel.for_each and the DSL for statement: every comprehension form, the
iteration variables' types, where predicates, {name} references read at open,
nested traversals (grandchildren), pragmas, and clear errors."""

from __future__ import annotations

import itertools

import pytest

import polydat
from polydat import CompileError


@pytest.fixture
def root() -> polydat.Kernel:
    return polydat.compile('extern ks: str = "5,6,7"\nconst n := 3\nextern words: str = "a,b"').kernel()


def tuples(kernel: polydat.Kernel, comprehension: str, body: str = "one := 1") -> list[dict[str, object]]:
    return [k.iteration for k in kernel.for_each(comprehension, body)]


@pytest.mark.parametrize(
    "comprehension, expected",
    [
        ("k in 1..4", [{"k": 1}, {"k": 2}, {"k": 3}]),
        ("k in 1..=4", [{"k": 1}, {"k": 2}, {"k": 3}, {"k": 4}]),
        ("k in 0..10 step 4", [{"k": 0}, {"k": 4}, {"k": 8}]),
        ("k in 10,20,30", [{"k": 10}, {"k": 20}, {"k": 30}]),
        ("w in load,verify", [{"w": "load"}, {"w": "verify"}]),
        ("w in 'a b', \"c\"", [{"w": "a b"}, {"w": "c"}]),
        ("f in 0.0..1.0 step 0.5", [{"f": 0.0}, {"f": 0.5}]),
        ("f in 0.0..=1.0 step 0.5", [{"f": 0.0}, {"f": 0.5}, {"f": 1.0}]),
        ("b in true, false", [{"b": True}, {"b": False}]),
        ("x in -1, 2", [{"x": -1}, {"x": 2}]),
        (
            "k in 1..3, w in x,y",
            [{"k": 1, "w": "x"}, {"k": 1, "w": "y"}, {"k": 2, "w": "x"}, {"k": 2, "w": "y"}],
        ),
        ("(a, b) in (x, y, z), 1..4", [{"a": "x", "b": 1}, {"a": "y", "b": 2}, {"a": "z", "b": 3}]),
        ("k in 1..10 where {k} % 3 == 0", [{"k": 3}, {"k": 6}, {"k": 9}]),
        ("k in 1..4, j in 1..4 where {k} < {j} && {j} != 3", [{"k": 1, "j": 2}]),
        ("k in {ks}", [{"k": 5}, {"k": 6}, {"k": 7}]),
        ("k in 0..{n}", [{"k": 0}, {"k": 1}, {"k": 2}]),
        ("w in {words}, k in {n}", [{"w": "a", "k": 3}, {"w": "b", "k": 3}]),
        ("k in 5..2", []),
    ],
)
def test_comprehension_forms(root: polydat.Kernel, comprehension: str, expected: list[dict[str, object]]) -> None:
    assert tuples(root, comprehension) == expected


def test_iteration_variables_are_typed_by_their_values(root: polydat.Kernel) -> None:
    kid = next(root.for_each("k in 1..2, f in 0.5, w in 'a', b in true, i in -3", "one := 1"))
    assert kid.program.input_types == {"k": "u64", "f": "f64", "w": "str", "b": "bool", "i": "i64"}
    kid = next(root.for_each("f in 1, 2.5", "g := f * 2.0"))
    assert kid.pull("g") == 2.0, "an int among floats is a float"


def test_the_body_reads_iteration_variables_and_outer_names(root: polydat.Kernel) -> None:
    values = [k.pull("v") for k in root.for_each("k in 1..4", 'v := "{k * n}-{words}"')]
    assert values == ["3-a,b", "6-a,b", "9-a,b"]


def test_a_body_compiled_once_serves_every_tuple(root: polydat.Kernel) -> None:
    body = polydat.compile("v := k + n", outer=root, iteration={"k": "u64"}, engine="p2")
    kids = list(root.for_each("k in 1..4", body))
    assert [k.pull("v") for k in kids] == [4, 5, 6]
    assert all(k.program is body for k in kids)
    assert kids[0].engine.startswith("p2")
    wrong = polydat.compile("v := n", outer=root)
    with pytest.raises(polydat.BindError) as info:
        next(root.for_each("k in 1..4", wrong))
    assert info.value.kind == "iteration"


@pytest.mark.parametrize(
    "comprehension, message, col",
    [
        ("k in", "expected a value", 5),
        ("k 1..4", "expected 'in'", 3),
        ("(a, b) in 1..3", "zips 2 sources", 1),
        ("k in 1..4, j in 1..4 order sobol(seed=3)", "order 'sobol' takes no seed (only shuffle and lhs do)", 28),
        ("k in 1..4 order zigzag", "unknown order strategy 'zigzag'", 17),
        ("k in 1..4 order lex(seed=3)", "takes no seed", 17),
        ("k in fib(94)", "fib(94): term 94 is past u64::MAX; fib.n is at most 93", 6),
        ("k in fib(1, 2)", "fib(n): expected 1 argument, got 2", 6),
        ("k in normal(0, 1)", "continuous sources", 6),
        ("k in 1..4 where {k} > 'a'", "in the where predicate: cannot order", 11),
        ("k in 0.0..1.0", "a float range needs a step", 6),
        ("k in a, 1", "mix int and str", 1),
        ("k in 1..4, k in 2", "named by two clauses", 1),
        ("k in 1..4 where", "'where' needs a predicate", 11),
        ("k in {nope}", "no scope of this chain binds 'nope'", 6),
        ("k in {words}..3", "a range bound must be a number", 6),
        ("(a, b) in (1, 2), (3)", "different lengths", 1),
        ("k in 0..3 step 0", "a range step must be positive", 6),
    ],
)
def test_comprehension_errors_point_at_their_column(root: polydat.Kernel, comprehension: str, message: str, col: int) -> None:
    with pytest.raises(CompileError) as info:
        list(root.for_each(comprehension, "one := 1"))
    assert message in info.value.message
    assert (info.value.line, info.value.col) == (1, col)


def test_a_bad_where_predicate_is_reported_at_the_where(root: polydat.Kernel) -> None:
    with pytest.raises(CompileError) as info:
        list(root.for_each("k in 1..4 where hsah(k) > 1", "one := 1"))
    assert info.value.message.startswith("in the where predicate:") and "hsah" in info.value.message
    assert info.value.col == 11


def test_bad_arguments_are_clear(root: polydat.Kernel) -> None:
    with pytest.raises(polydat.ArgumentError):
        root.for_each(42, "x := 1")  # type: ignore[arg-type]
    with pytest.raises(polydat.ArgumentError):
        root.for_each("k in 1..2", 42)  # type: ignore[arg-type]
    with pytest.raises(CompileError):
        root.for_each("k in 1..2", "k := 1")


FOR_PROGRAM = """
input cycle
base := cycle * 100
for k in 1..4, limit in 10,20 {
    f := hash(k)
    g := limit + k + base
}
for w in a,b {
    label := "{w}{base}"
    for i in 0..2 {
        deep := "{label}/{i}"
    }
}
"""


def test_the_for_statement_compiles_its_body_once_and_traverse_activates_it() -> None:
    program = polydat.compile(FOR_PROGRAM)
    assert program.traversals == ["k in 1..4, limit in 10,20", "w in a,b"]
    assert program.outputs == {"base": "u64"}, "a for body's bindings belong to its own scope"
    kernel = program.kernel()
    kernel.set_inputs(cycle=2)
    acts = list(kernel.traverse(0))
    assert [(a.iteration["k"], a.iteration["limit"], a.pull("g")) for a in acts] == [
        (k, limit, limit + k + 200) for k in (1, 2, 3) for limit in (10, 20)
    ]
    assert len({id(a.program) for a in acts}) == 1
    kernel.set_inputs(cycle=3)
    assert acts[0].pull("g") == 311, "the body reads the outer output live"


def test_a_nested_for_is_a_grandchild() -> None:
    kernel = polydat.compile(FOR_PROGRAM).kernel()
    outer = list(kernel.traverse(1))
    assert [a.pull("label") for a in outer] == ["a0", "b0"]
    inner = [g.pull("deep") for a in outer for g in a.traverse(0)]
    assert inner == ["a0/0", "a0/1", "b0/0", "b0/1"]


def test_a_for_body_error_is_a_compile_error_of_the_program() -> None:
    with pytest.raises(CompileError) as info:
        polydat.compile("for k in 1..4 {\n    f := hsah(k)\n}")
    assert (info.value.line, info.value.col) == (2, 10)
    assert info.value.hint == "did you mean 'hash'?"
    with pytest.raises(CompileError) as info:
        polydat.compile("for k in 1..4 {\n    k := 2\n}")
    assert "iteration variable" in info.value.message


def test_a_for_over_a_reference_compiles_when_it_opens() -> None:
    program = polydat.compile('extern sizes: str = "1,2"\nfor s in {sizes} {\n    v := s * 2\n}')
    kernel = program.kernel()
    assert [a.pull("v") for a in kernel.traverse()] == [2, 4]
    kernel.set("sizes", "0.5,1.5")
    assert [a.pull("v") for a in kernel.traverse()] == [1.0, 3.0], "floats: a body compiled for f64"


def test_traverse_refuses_a_missing_for() -> None:
    kernel = polydat.compile("x := 1").kernel()
    with pytest.raises(polydat.ArgumentError) as info:
        kernel.traverse(0)
    assert "0 for statements" in str(info.value)


def test_pragma_strict_and_unknown_pragmas() -> None:
    with pytest.raises(CompileError) as info:
        polydat.compile("pragma strict\nx := hash(cycel)\ninput cycle")
    assert "'cycel'" in info.value.message and info.value.hint == "did you mean 'cycle'?"
    program = polydat.compile("pragma strcit\ninput cycle\nx := hash(cycle)")
    (warning,) = program.warnings
    assert warning.message == "unknown pragma 'strcit'" and warning.hint == "did you mean 'strict'?"
    assert (warning.line, warning.col) == (1, 8)
    assert polydat.compile("pragma strict_values\nx := 1").warnings == [], "strict_values is known"
    with pytest.raises(CompileError) as info:
        polydat.compile("pragma strict_types\ninput c\nx := sin(c)")
    assert "strict" in info.value.message, "strict_types refuses implicit coercions"


def test_a_pragma_reaches_into_for_bodies() -> None:
    with pytest.raises(CompileError) as info:
        polydat.compile("pragma strict\nfor k in 1..3 {\n    v := k + nope\n}")
    assert "'nope'" in info.value.message and info.value.line == 3


def test_for_syntax_errors() -> None:
    with pytest.raises(CompileError) as info:
        polydat.compile("for k in 1..4\nx := 1")
    assert info.value.message == "expected '{' opening the body of the for statement"
    assert (info.value.line, info.value.col) == (1, 14)
    with pytest.raises(CompileError) as info:
        polydat.compile("for k in 1..4 {\n x := 1\n")
    assert "closing the body" in info.value.message
    with pytest.raises(CompileError) as info:
        polydat.compile("for k in 1..4 {\n m(a) -> (b) := { b := a }\n}")
    assert "modules cannot be defined inside a for body" in info.value.message
    diagnostics = polydat.check("for k in 1..4 {\n x := hsah(k)\n}")
    assert [(d.line, d.col) for d in diagnostics if d.severity == "error"] == [(2, 7)]


@pytest.mark.parametrize(
    "comprehension, expected",
    [
        # halton/5 over 3 x 3: points (phi2(i)*3, phi3(i)*3) for i = 1.. are (1,1) (0,2) (2,0) (0,1) (1,2)
        ("k in 1..4, limit in 10, 20, 30 order halton/5",
         [(2, 20), (1, 30), (3, 10), (1, 20), (2, 30)]),
        ("k in 1..6 order reverse_lex/3", [(5,), (4,), (3,)]),
        ("k in 1..6 order lex/2", [(1,), (2,)]),
        ("k in 1..10 where {k} % 2 == 0 order reverse_lex/2", [(8,), (6,)]),
        # Upstream's lattice orders over 3 x 3 (see test_every_upstream_order_dispenses_its_tuples).
        ("k in 1..4, j in 1..4 order diagonal/4", [(1, 1), (1, 2), (2, 1), (1, 3)]),
        ("k in 1..4, j in 1..4 order extrema/1", [(1, 1), (1, 3), (3, 1), (3, 3)]),
        ("r in [\"us-east\", \"eu-west\"]", [("us-east",), ("eu-west",)]),
        ("w in \"a, b; c d\"", [("a",), ("b",), ("c",), ("d",)]),
        ("w in \"1, 2.5\"", [(1.0,), (2.5,)]),
        ("w in 'a, b; c'", [("a, b; c",)]),
        ("k in fib(8)", [(1,), (1,), (2,), (3,), (5,), (8,), (13,), (21,)]),
        ("k in fib_until(50)", [(v,) for v in (1, 1, 2, 3, 5, 8, 13, 21, 34)]),
        ("k in pow2(6)", [(v,) for v in (1, 2, 4, 8, 16, 32)]),
        ("k in pow2_until(100)", [(v,) for v in (1, 2, 4, 8, 16, 32, 64)]),
        ("k in binomial(4)", [(v,) for v in (1, 4, 6, 4, 1)]),
        ("k in geometric(1, 10, 4)", [(v,) for v in (1.0, 10.0, 100.0, 1000.0)]),
        ("k in geometric_until(1, 10, 1000)", [(v,) for v in (1.0, 10.0, 100.0, 1000.0)]),
        ("k in linear_starts(0, 1, 4)", [(v,) for v in (0.0, 0.25, 0.5, 0.75)]),
        ("k in linear_starts(1, 0, 4)", [(v,) for v in (1.0, 0.75, 0.5, 0.25)]),
        ("k in linear_steps(0, 1, 4)", [(v,) for v in (0.0, 1 / 3, 2 / 3, 1.0)]),
        ("k in log_steps(1, 1000, 4)", [(v,) for v in (1.0, 9.999999999999998, 99.99999999999996, 1000.0)]),
        ("k in fib({n})", [(1,), (1,), (2,)]),
        ("k in ks", [(5,), (6,), (7,)]),
        # A stage word names a variable where a clause needs a name.
        ("order in 1..3, where in 7, 8 order lex/3", [(1, 7), (1, 8), (2, 7)]),
        ("(order, x) in (1, 2), (3, 4)", [(1, 3), (2, 4)]),
    ],
)
def test_orders_lists_strings_and_generators(root: polydat.Kernel, comprehension: str, expected: list[tuple[object, ...]]) -> None:
    assert [tuple(t.values()) for t in tuples(root, comprehension)] == expected


GRID = "k in 1..4, j in 1..4"
CORNERS = [(1, 1), (1, 3), (3, 1), (3, 3)]
EDGES = [(1, 2), (2, 1), (2, 3), (3, 2)]


@pytest.mark.parametrize(
    "order, expected",
    [
        # Index sum ascending (descending), lexicographic within a sum.
        ("diagonal", [(1, 1), (1, 2), (2, 1), (1, 3), (2, 2), (3, 1), (2, 3), (3, 2), (3, 3)]),
        ("diagonal/4", [(1, 1), (1, 2), (2, 1), (1, 3)]),
        ("antidiagonal", [(3, 3), (2, 3), (3, 2), (1, 3), (2, 2), (3, 1), (1, 2), (2, 1), (1, 1)]),
        ("antidiagonal/3", [(3, 3), (2, 3), (3, 2)]),
        # Strata by how many digits are strictly inside their axis: /N keeps N whole strata.
        ("extrema", CORNERS + EDGES + [(2, 2)]),
        ("extrema/1", CORNERS),
        ("extrema/2", CORNERS + EDGES),
        ("extrema/3", CORNERS + EDGES + [(2, 2)]),
        ("extrema/0", []),
        # Chebyshev shells around the center, outermost first; /N keeps N tuples.
        ("shells", [(1, 1), (1, 2), (1, 3), (2, 1), (2, 3), (3, 1), (3, 2), (3, 3), (2, 2)]),
        ("shells/3", [(1, 1), (1, 2), (1, 3)]),
        # Sobol points (1/2,1/2) (3/4,1/4) (1/4,3/4) (3/8,3/8: a repeat, skipped) (7/8,7/8) on 3 x 3.
        ("sobol/4", [(2, 2), (3, 1), (1, 3), (3, 3)]),
        # A Latin hypercube of 9 samples: each axis value three times; samples may repeat.
        ("lhs", [(3, 3), (2, 3), (2, 1), (3, 2), (1, 3), (1, 2), (1, 1), (3, 1), (2, 2)]),
        ("lhs(seed=5)", [(2, 1), (1, 2), (2, 3), (3, 2), (1, 3), (1, 1), (3, 3), (2, 1), (3, 2)]),
    ],
)
def test_every_upstream_order_dispenses_its_tuples(root: polydat.Kernel, order: str, expected: list[tuple[int, int]]) -> None:
    assert [tuple(t.values()) for t in tuples(root, f"{GRID} order {order}")] == expected
    # A producer and its traversal dispense the same tuples.
    program = polydat.compile(f"sweep := for {GRID} order {order}\nfor sweep {{\n    v := k * 10 + j\n}}")
    assert [a.pull("v") for a in program.kernel().traverse(0)] == [k * 10 + j for k, j in expected]


def test_the_extrema_strata_of_a_cube_are_8_20_26_27(root: polydat.Kernel) -> None:
    cube = "a in 0..3, b in 0..3, c in 0..3 order extrema"
    assert [len(tuples(root, f"{cube}/{n}")) for n in (1, 2, 3, 4)] == [8, 20, 26, 27]
    assert tuples(root, cube)[-1] == {"a": 1, "b": 1, "c": 1}
    assert tuples(root, "a in 0..2, b in 0..2 order extrema/1") == [
        {"a": 0, "b": 0}, {"a": 0, "b": 1}, {"a": 1, "b": 0}, {"a": 1, "b": 1}
    ], "every point of a 2 x 2 lattice is a corner: one stratum, kept whole"


@pytest.mark.parametrize(
    "comprehension, expected",
    [
        # One clause: diagonal is the natural order, antidiagonal its reverse,
        # extrema the two ends then the rest, shells from the ends inwards.
        ("k in 1..6 order diagonal", [1, 2, 3, 4, 5]),
        ("k in 1..6 order antidiagonal", [5, 4, 3, 2, 1]),
        ("k in 1..6 order extrema", [1, 5, 2, 3, 4]),
        ("k in 1..6 order extrema/1", [1, 5]),
        ("k in 1..6 order shells", [1, 5, 2, 4, 3]),
        ("k in 1..9 order sobol/4", [5, 7, 3, 4]),
        # After a where: the survivors, ranked by their places in the whole space; a count
        # of tuples keeps that many survivors, a count of strata the survivors of that many strata.
        ("k in 1..10 where {k} % 2 == 0 order diagonal/2", [2, 4]),
        ("k in 1..10 where {k} % 2 == 0 order antidiagonal/2", [8, 6]),
        ("k in 1..10 where {k} % 2 == 0 order shells/3", [2, 8, 4]),
        ("k in 1..10 where {k} != 1 order extrema/1", [9]),
        ("k in 1..10 where {k} % 2 == 0 order extrema/1", []),
        ("k in 1..10 where {k} % 2 == 0 order extrema", [2, 4, 6, 8]),
        ("k in 1..10 where {k} > 2 order sobol/3", [5, 7, 3]),
        # An order after an order ranks the first one's tuples as one axis.
        ("k in 1..6 order extrema/1 order reverse_lex", [5, 1]),
        # A lex count's prefix is ranked by natural position, as a where's survivors are.
        ("k in 1..10 order lex/5 order extrema/1", [1]),
        ("k in 1..10 order lex/5 order reverse_lex", [5, 4, 3, 2, 1]),
        ("k in 1..10 order lex/5 order diagonal/2", [1, 2]),
    ],
)
def test_upstream_orders_over_one_clause_and_after_a_where(root: polydat.Kernel, comprehension: str, expected: list[int]) -> None:
    assert [t["k"] for t in tuples(root, comprehension)] == expected


def test_lhs_over_a_filtered_space_keeps_its_count_of_survivors(root: polydat.Kernel) -> None:
    whole = [t["k"] for t in tuples(root, "k in 0..40 order lhs(seed=2)")]
    assert sorted(whole) == list(range(40)), "over one clause, a permutation"
    kept = [t["k"] for t in tuples(root, "k in 0..40 where {k} % 3 == 0 order lhs(seed=2, n=4)")]
    assert kept == [k for k in whole if k % 3 == 0][:4]


def test_sobol_over_more_clauses_than_its_direction_numbers_is_refused(root: polydat.Kernel) -> None:
    clauses = ", ".join(f"v{i} in 0..2" for i in range(14))
    with pytest.raises(CompileError) as info:
        list(root.for_each(f"{clauses} order sobol/3", "one := 1"))
    assert "order 'sobol' orders at most 13 clauses" in info.value.message
    assert info.value.col == len(clauses) + len(" order ") + 1
    assert len(tuples(root, f"{clauses[:-len(', v13 in 0..2')]} order sobol/3")) == 3


@pytest.mark.parametrize(
    "predicate, expected",
    [
        ("{k} in [2, 5, 7] && {k} != 5", [2]),
        ("{k} != 0 && 12 / {k} > 5", [1, 2]),
        ("!({k} > 2)", [1, 2]),
        ("{k} > 2 || {k} == 1", [1, 3, 4, 5]),
        ("{w} == 'c' || {k} == 5", [5]),  # w is an outer name ("b")
        ("{w} == 'b' && {k} < 3", [1, 2]),
        ("{k} != \"2\"", [1, 2, 3, 4, 5]),  # values of different kinds are never equal
        ("{k} == 2.0", [2]),  # numbers compare numerically
        ("{flag} == 1", []),  # a bool is not a number
        ("{flag} && {k} < 3", [1, 2]),
    ],
)
def test_where_predicates_follow_upstream_rules(predicate: str, expected: list[int]) -> None:
    root = polydat.compile('extern w: str = "b"\nextern flag: bool = true').kernel()
    assert [t["k"] for t in tuples(root, f"k in 1..6 where {predicate}")] == expected


def test_a_where_name_nothing_binds_is_refused_by_a_host_traversal() -> None:
    # Upstream reads it as None (no tuple passes); a host's traversal refuses
    # it, as it refuses `k in {nope}`: it would silently drop every tuple.
    root = polydat.compile('extern w: str = "b"').kernel()
    with pytest.raises(polydat.CompileError, match="'nope'"):
        tuples(root, "k in 1..6 where {k} > {nope}")


def test_a_predicate_stops_at_the_operand_that_decides() -> None:
    root = polydat.compile("x := 1").kernel()
    # The division is never evaluated for k = 0 (it would give 0 there, so count the calls instead).
    assert [t["k"] for t in tuples(root, "k in 0..4 where {k} == 0 || {k} > 2")] == [0, 3]
    with pytest.raises(CompileError) as info:
        list(root.for_each("k in 1..3 where {k} && 'x'", "one := 1"))
    assert "has no truth value" in info.value.message


PRODUCERS = """
input cycle
sweep := for k in 1..9, limit in 10, 20, 30
large := for sweep where {k} > 3
ordered := for large order lex/4
for ordered {
    g := u64_add(limit, k)
}
sampled := for k in 1..4, limit in 10, 20, 30 order halton/5
for sampled where {k} != 1 {
    h := u64_add(limit, k)
}
"""


def test_producers_derivations_and_traversals_over_them() -> None:
    program = polydat.compile(PRODUCERS)
    assert program.outputs == {"sweep": "str", "large": "str", "ordered": "str", "sampled": "str"}
    kernel = program.kernel()
    assert kernel.pull("ordered") == "k in 1..9, limit in 10, 20, 30 where {k} > 3 order lex/4"
    assert [a.pull("g") for a in kernel.traverse(0)] == [14, 24, 34, 15]
    assert [a.pull("h") for a in kernel.traverse(1)] == [22, 13, 32]
    # The text a producer holds is a comprehension Kernel.for_each takes.
    assert [a.pull("g") for a in kernel.for_each(kernel.pull("ordered"), "g := u64_add(limit, k)")] == [14, 24, 34, 15]


@pytest.mark.parametrize(
    "source, message, line, col",
    [
        ("x := hash(for k in 1..4)", "a `for` producer compiles only as the whole value of a binding", 1, 11),
        ("sweep := for k in 1..3\nx := for sweep", "`for sweep` alone names a producer without deriving from it", 2, 10),
        ("m(a: u64) -> (b: u64) := {\n  for k in 1..3 { y := 1 }\n  b := a\n}\nz := m(1)",
         "a `for` traversal statement does not compile inside a module body", 2, 3),
        ("for k in 1..3 {\n input foo\n x := foo\n}", "a for body may declare no input but `cycle`", 2, 8),
        ("sweep := for k in 1..3\nfor swep {\n x := 1\n}", "no producer named 'swep' is bound in this scope", 2, 5),
        ("pragma strict\nfor k in 1..4 where {k} > {limit} {\n x := 1\n}", "'limit' is bound nowhere", 2, 15),
        ("shared s := for k in 1..3", "a `for` producer is const", 1, 8),
    ],
)
def test_for_producer_and_traversal_errors(source: str, message: str, line: int, col: int) -> None:
    with pytest.raises(CompileError) as info:
        polydat.compile(source)
    assert message in info.value.message
    assert (info.value.line, info.value.col) == (line, col)


def test_a_name_nothing_binds_is_refused_at_compile() -> None:
    # Upstream 0.6.0 (V3): an unresolved name, a bare word in a predicate included, is a compile error.
    with pytest.raises(CompileError, match="'limit' is bound nowhere") as info:
        polydat.compile("input cycle\nfor k in 1..4 where {k} > {limit} {\n    x := hash(k)\n}")
    assert (info.value.line, info.value.col) == (2, 15)
    with pytest.raises(CompileError) as quoted:
        polydat.compile('for k in 1..4 where {k} == us-east {\n x := 1\n}')
    assert quoted.value.hint == 'a string is quoted ("us"); a name is written {us}'
    assert "'east' is bound nowhere" in str(quoted.value), "us-east is us - east: two names"


def test_a_bare_word_in_a_predicate_is_a_name() -> None:
    program = polydat.compile("load := 2\nfor k in 1..4 where {k} == load {\n    x := k\n}")
    assert [child.eval() for child in program.kernel().traverse(0)] == [{"x": 2}]
    kernel = polydat.compile("load := 3\nx := 1").kernel()
    assert [child.eval()["v"] for child in kernel.for_each("k in 1..4 where {k} < load", "v := k")] == [1, 2]
    with pytest.raises(CompileError, match="no scope of this chain binds 'loud'"):
        list(kernel.for_each("k in 1..4 where {k} == loud", "v := k"))


@pytest.mark.parametrize(
    "comprehension",
    [
        "k in 0..1000000000000 order shuffle",
        "k in 0..1000000000000 order shuffle(seed=3)",
        "k in 0..1000000000000 order halton",
        "k in 0..1000000, j in 0..1000000 order shuffle",
        "k in 0..1000000000000 where {k} % 2 == 0 order shuffle",
        "k in 0..1000000000000 order shuffle/5 order halton",
        "k in 0..1000000, j in 0..1000000 order diagonal",
        "k in 0..1000000, j in 0..1000000 order antidiagonal",
        "k in 0..1000000, j in 0..1000000 order extrema",
        "k in 0..1000000, j in 0..1000000, i in 0..1000000 order extrema/2",
        "k in 0..1000000, j in 0..1000000 order shells",
        "k in 0..1000000, j in 0..1000000 order sobol",
        "k in 0..1000000, j in 0..1000000 order lhs/5",
        "k in 0..1000000000000 where {k} % 2 == 0 order diagonal",
        "k in 0..1000000000000 where {k} % 2 == 0 order shells/9",
        "k in 0..1000000, j in 0..1000000 order extrema/1 order shuffle",
    ],
)
def test_an_order_over_a_huge_range_is_walked_lazily(comprehension: str) -> None:
    # Issue 44 item 16: the order's positions come from the core a batch at
    # a time; no tuple of the space is made before it is dispensed.
    k = polydat.compile("x := 1\n").kernel()
    first = [c.iteration for c in itertools.islice(k.for_each(comprehension, "y := 1"), 4)]
    assert len(first) == 4 and len({tuple(t.values()) for t in first}) == 4
    if "% 2" in comprehension:
        assert all(t["k"] % 2 == 0 for t in first)


def test_an_lhs_of_a_huge_space_is_refused_with_its_bound() -> None:
    # Its sample is drawn whole before the first tuple: past 2^26 strata it is refused.
    k = polydat.compile("x := 1\n").kernel()
    with pytest.raises(polydat.CompileError) as info:
        next(k.for_each("k in 0..1000000, j in 0..1000000 order lhs", "y := 1"))
    assert "would draw 1000000000000 samples over 2 axes" in info.value.message and info.value.col == 40
    assert "give it a smaller count" in info.value.message
    with pytest.raises(polydat.CompileError, match="the `where` before it"):
        next(k.for_each("k in 0..1000000000000 where {k} > 3 order lhs/5", "y := 1"))


def test_ordering_again_a_huge_stratum_is_a_compile_error_not_a_memory_error() -> None:
    # extrema/3 of a 10^18 cube keeps its corners, edges and faces (about 6e12 tuples):
    # ordering them again would hold them all.
    k = polydat.compile("x := 1\n").kernel()
    with pytest.raises(polydat.CompileError) as info:
        next(k.for_each("k in 0..1000000, j in 0..1000000, i in 0..1000000 order extrema/3 order shuffle", "y := 1"))
    assert "give the earlier order a count" in str(info.value)


def test_ordering_again_all_of_a_huge_order_is_a_compile_error_not_a_memory_error() -> None:
    k = polydat.compile("x := 1\n").kernel()
    with pytest.raises(polydat.CompileError) as info:
        next(k.for_each("k in 0..1000000000000 order shuffle order halton/5", "y := 1"))
    assert "give the earlier order a count" in str(info.value) and info.value.col == 43


def test_every_where_stage_keeps_its_own_test() -> None:
    k = polydat.compile("x := 1\n").kernel()
    for text in ("k in 0..10 where {k} % 2 == 0 where {k} > 5", "k in 0..10 where {k} > 5 where {k} % 2 == 0 order lex"):
        assert [c.iteration["k"] for c in k.for_each(text, "y := 1")] == [6, 8], text
