"""The zip modes (`(a, b) in zip_truncate(...)`, `zip_cycle(...)`) and union
comprehensions (`[for ..., for ...]`): their tuples (upstream's cases), their
laziness, orders and where predicates over them, every surface (`for`
statements, producers, `Kernel.for_each`, workloads), and clear errors."""

from __future__ import annotations

import itertools
import time
from pathlib import Path

import pytest

import polydat
from polydat import CompileError
from polydat.workload import Workload

U64_MAX = (1 << 64) - 1


@pytest.fixture(scope="module")
def root() -> polydat.Kernel:
    return polydat.compile('extern ks: str = "5,6,7"\nconst n := 3\nconst blank := ""').kernel()


def tuples(kernel: polydat.Kernel, comprehension: str) -> list[tuple[object, ...]]:
    return [tuple(k.iteration.values()) for k in kernel.for_each(comprehension, "one := 1")]


@pytest.mark.parametrize(
    "comprehension, expected",
    [
        # A truncating zip stops at its shortest operand; a cycling one runs
        # to its longest, repeating the shorter ones.
        ("(a, b) in zip_truncate(1..4, 10..20)", [(1, 10), (2, 11), (3, 12)]),
        ("(a, b) in zip_truncate(10..20, 1..4)", [(10, 1), (11, 2), (12, 3)]),
        ("(a, b) in zip_cycle(1..4, 10..17)",
         [(1, 10), (2, 11), (3, 12), (1, 13), (2, 14), (3, 15), (1, 16)]),
        ("(k, c) in zip_cycle(1..5, [10, 20])", [(1, 10), (2, 20), (3, 10), (4, 20)]),
        ("(a, b, c) in zip_cycle([x, y], 1..=3, (true))", [("x", 1, True), ("y", 2, True), ("x", 3, True)]),
        ("(a, b) in zip_truncate(ks, 0..10 step 5)", [(5, 0), (6, 5)]),
        ("(a, b) in zip_cycle({ks}, fib(4))", [(5, 1), (6, 1), (7, 2), (5, 3)]),
        # Operands of one length: every mode gives the strict zip's tuples.
        ("(a, b) in zip_cycle(1..3, [x, y])", [(1, "x"), (2, "y")]),
        ("(a, b) in zip_truncate(1..3, [x, y])", [(1, "x"), (2, "y")]),
        # Stages and other clauses.
        ("(a, b) in zip_cycle(1..5, [10, 20]) where {b} == 20", [(2, 20), (4, 20)]),
        ("(a, b) in zip_cycle(1..5, [10, 20]) order reverse_lex", [(4, 20), (3, 10), (2, 20), (1, 10)]),
        ("p in 1, 2, (a, b) in zip_truncate(7..9, [x])", [(1, 7, "x"), (2, 7, "x")]),
        ("(a, b) in zip_truncate(1..4, 10..20) order reverse_lex", [(3, 12), (2, 11), (1, 10)]),
        ("(a, b) in zip_truncate(10..20, 1..4) order lex/2", [(10, 1), (11, 2)]),
    ],
)
def test_zip_modes(root: polydat.Kernel, comprehension: str, expected: list[tuple[object, ...]]) -> None:
    assert tuples(root, comprehension) == expected


@pytest.mark.parametrize(
    "comprehension",
    [
        # Upstream: an empty operand empties a cycle zip, in any position,
        # inside a Cartesian product, a union or under an order.
        "(k, color) in zip_cycle(1..5, 5..5)",
        "(color, k) in zip_cycle(5..5, 1..5)",
        "(k, color, size) in zip_cycle(1..5, [], [7, 8])",
        "(k, size, color) in zip_cycle(3..9, [7, 8], fib(0))",
        "(k, color) in zip_cycle(1..5, blank)",
        "p in 1, 2, (k, color) in zip_cycle(1..5, 4..4)",
        "[for (k, color) in zip_cycle(1..5, 4..4), for (k, color) in zip_cycle(1..5, 4..4)]",
        "(color, k) in zip_cycle(4..4, 1..5) order shuffle/3",
        "(k, color) in zip_truncate(1..5, [])",
    ],
)
def test_an_empty_operand_empties_a_cycle_zip(root: polydat.Kernel, comprehension: str) -> None:
    assert tuples(root, comprehension) == []


def test_a_zip_reads_a_huge_range_lazily(root: polydat.Kernel) -> None:
    started = time.monotonic()
    assert tuples(root, f"(a, b) in zip_truncate(0..{U64_MAX}, [x, y, z])") == [(0, "x"), (1, "y"), (2, "z")]
    kids = root.for_each(f"(a, b) in zip_cycle(0..{U64_MAX}, [x, y])", "one := 1")
    assert [tuple(k.iteration.values()) for k in itertools.islice(kids, 3)] == [(0, "x"), (1, "y"), (2, "x")]
    ordered = root.for_each(f"(a, b) in zip_cycle(0..{U64_MAX}, [x, y]) order reverse_lex/2", "one := 1")
    assert [tuple(k.iteration.values()) for k in ordered] == [(U64_MAX - 1, "x"), (U64_MAX - 2, "y")]
    assert time.monotonic() - started < 30, "no operand is listed"


def test_an_order_over_a_zip_ranks_its_tuples_as_one_axis(root: polydat.Kernel) -> None:
    for order in ("halton", "shuffle(seed=7)", "reverse_lex/3"):
        zipped = tuples(root, f"(a, b) in zip_cycle(1..5, [10, 20]) order {order}")
        # The same tuples as a strict zip of the cycled operands, in the same order.
        strict = tuples(root, f"(a, b) in (1, 2, 3, 4), (10, 20, 10, 20) order {order}")
        assert zipped == strict, order


@pytest.mark.parametrize(
    "comprehension, expected",
    [
        # Upstream's cases of the bracketed union.
        ("[ for k in 1..4, for k in 10..13 ]", [(1,), (2,), (3,), (10,), (11,), (12,)]),
        ("[ for k in 1..3 where {k} > 1, for k in 10..12 order lex/1, ]", [(2,), (10,)]),
        ("[ for [ for k in 1..2, for k in 3..4 ], for k in 9..9 ]", [(1,), (3,)]),
        ("[ for k in 10, limit in 1, 2, 3, for k in 100, limit in 10, 20, 30 ]",
         [(10, 1), (10, 2), (10, 3), (100, 10), (100, 20), (100, 30)]),
        # The union's own stages apply to all of it.
        ("[for k in 1..4, for k in 10..13] where {k} % 2 == 0", [(2,), (10,), (12,)]),
        ("[for k in 1..4, for k in 10..13] order reverse_lex", [(12,), (11,), (10,), (3,), (2,), (1,)]),
        ("[for k in 1..4, for k in 10..13] order lex/4", [(1,), (2,), (3,), (10,)]),
        ("[for k in 1..10 where {k} % 3 == 0, for k in 20..22] order reverse_lex", [(21,), (20,), (9,), (6,), (3,)]),
        ("[for k in 1..10 order reverse_lex/2, for k in 20..22] where {k} != 9 order reverse_lex",
         [(21,), (20,), (8,)]),
        # Members of other forms: zips, references, words.
        ("[for (a, b) in zip_cycle(1..3, [x]), for (a, b) in (7), (y)]", [(1, "x"), (2, "x"), (7, "y")]),
        ("[for w in load, verify, for w in {ks}]", "mix"),
        ("[for k in {ks}, for k in 0..{n}]", [(5,), (6,), (7,), (0,), (1,), (2,)]),
        ("[for k in 1..3]", [(1,), (2,)]),
        ("[for k in 3..1, for k in 4..1]", []),
    ],
)
def test_unions(root: polydat.Kernel, comprehension: str, expected: object) -> None:
    if expected == "mix":
        with pytest.raises(CompileError, match="different types"):
            tuples(root, comprehension)
        return
    assert tuples(root, comprehension) == expected


@pytest.mark.parametrize("order", ["halton", "halton/3", "shuffle", "shuffle(seed=11)", "reverse_lex/4", "lex/2"])
def test_an_order_over_a_union_walks_its_tuples_in_a_row(root: polydat.Kernel, order: str) -> None:
    """A union's positions are its tuples in a row (upstream's sequential
    index), so an order over it is the order over a list of those tuples."""
    union = tuples(root, f"[for k in 1..4, for k in 10..13, for k in 20..=21] order {order}")
    assert union == tuples(root, f"k in 1, 2, 3, 10, 11, 12, 20, 21 order {order}")
    filtered = tuples(root, f"[for k in 1..4, for k in 10..13] where {{k}} != 2 order {order}")
    assert filtered == tuples(root, f"k in 1, 2, 3, 10, 11, 12 where {{k}} != 2 order {order}")


def test_a_union_is_lazy(root: polydat.Kernel) -> None:
    started = time.monotonic()
    kids = root.for_each(f"[for k in 0..{U64_MAX} where {{k}} % 2 == 1, for k in 1..3]", "one := 1")
    assert [k.iteration["k"] for k in itertools.islice(kids, 3)] == [1, 3, 5]
    ordered = root.for_each(f"[for k in 1..3, for k in 0..{U64_MAX - 2}] order reverse_lex/2", "one := 1")
    assert [k.iteration["k"] for k in ordered] == [U64_MAX - 3, U64_MAX - 4]
    assert time.monotonic() - started < 30, "no member is listed"
    with pytest.raises(CompileError, match="more than an order addresses") as info:
        tuples(root, f"[for k in 1..3, for k in 0..{U64_MAX}] order halton/2")
    assert info.value.diagnostic.col == 57


def test_a_strict_zip_in_a_union_member_still_fails_on_a_mismatch(root: polydat.Kernel) -> None:
    with pytest.raises(CompileError, match=r"different lengths \(k: 3, c: 1\)"):
        tuples(root, "[for (k, c) in (1, 2), (3, 4), for (k, c) in (5, 6, 7), (8)]")


@pytest.mark.parametrize(
    "comprehension, message, col",
    [
        ("k in zip_cycle(1..3, 4..5)", "zip_cycle(...) zips the sources of a tuple clause", 6),
        ("k in zip_truncate(1..3)", "zip_truncate(...) zips the sources of a tuple clause", 6),
        ("(a, b) in zip_cycle(1..3)", "(a, b) zips 2 sources, but zip_cycle(...) gives 1", 1),
        ("(a, b) in zip_truncate(1..3, 1..3, 1..3)", "(a, b) zips 2 sources, but zip_truncate(...) gives 3", 1),
        ("(a, b) in zip_cycle(1..3 4..5)", "expected ',' or ')' in zip_cycle(...), found '4'", 26),
        ("(a, b) in zip_cycle(normal(0, 1), normal(0, 1))", "continuous sources (normal(...))", 21),
        ("(a, b) in (1..5), (1..3)", "have different lengths (a: 4, b: 2)", 1),
        ("[for k in 1..3, for j in 1..3]", "this one gives (j), the first (k)", 21),
        ("[for k in 1..3, for k in 1..3, j in 1..2]", "this one gives (k, j), the first (k)", 21),
        ("[for k in 1..3, j in 1..2, for j in 1..3, k in 1..2]", "this one gives (j, k), the first (k, j)", 32),
        ("[for k in 1..3, for k in 0.5]", "the members of a union give 'k' different types (u64 in the first, f64", 21),
        ("[for k in 1..3, for k in -1]", "different types (u64 in the first, i64 in member 2)", 21),
        ("[k in 1..3, for k in 10..12]", "a union's members are introduced by `for`, found 'k'", 2),
        ("[for k in 1..3", "expected ']' closing the union", 1),
        ("[]", "a union needs at least one member", 1),
        ("[for k in 1..3, for]", "a `for` in a union needs a comprehension after it", 17),
        ("[for k in 1..3 for k in 4..5]", "expected ',' or ']' after the union's member, found 'for'", 16),
        ("[for k in 1..3] k in 1..2", "unexpected 'k' in the comprehension", 17),
        ("[for k in 1..3, k in 2..4]", "'k' is named by two clauses", 6),
    ],
)
def test_bad_zip_and_union_forms(root: polydat.Kernel, comprehension: str, message: str, col: int) -> None:
    with pytest.raises(CompileError) as info:
        tuples(root, comprehension)
    assert message in info.value.message
    assert (info.value.diagnostic.line, info.value.diagnostic.col) == (1, col)


PROGRAM = """\
sweep := for (k, c) in zip_cycle(1..5, [10, 20])
u := for [for k in 1..3, for k in 10..12] where {k} != 2
big := for u order reverse_lex
for (k, c) in zip_truncate(1..5, [10, 20]) {
    s := u64_add(k, c)
}
for [for k in 1..3, for k in 7..9] order reverse_lex {
    t := u64_mul(k, 2)
}
for big {
    z := k
}
"""


def test_for_statements_producers_and_derivations() -> None:
    kernel = polydat.compile(PROGRAM).kernel()
    assert [a.pull("s") for a in kernel.traverse(0)] == [11, 22]
    assert [a.pull("t") for a in kernel.traverse(1)] == [16, 14, 4, 2]
    assert [a.pull("z") for a in kernel.traverse(2)] == [11, 10, 1]
    for producer, expected in (
        ("sweep", [(1, 10), (2, 20), (3, 10), (4, 20)]),
        ("u", [(1,), (10,), (11,)]),
        ("big", [(11,), (10,), (1,)]),
    ):
        # The text a producer holds is a comprehension Kernel.for_each takes.
        assert tuples(kernel, kernel.pull(producer)) == expected, producer


@pytest.mark.parametrize(
    "source, message, line, col",
    [
        ("for [for k in 1..3, for j in 1..3] {\n x := 1\n}", "this one gives (j), the first (k)", 1, 25),
        ("u := for [for k in 1..3, for k in 2.5]\nfor u {\n x := k\n}", "different types", 1, 30),
        ("for (a, b) in zip_cycle(1..3, 1..3, 1..3) {\n x := 1\n}", "zip_cycle(...) gives 3", 1, 5),
        ("x := 1\nu := for [for k in 1..3, for k in {nope}]", "'nope' is bound nowhere", 2, 35),
        ("u := for [for k in 1..3 where {j} > 1, for k in 1..2]", "'j' is bound nowhere", 1, 25),
    ],
)
def test_bad_forms_in_programs_point_at_their_place(source: str, message: str, line: int, col: int) -> None:
    with pytest.raises(CompileError) as info:
        polydat.compile(source).kernel()
    assert message in info.value.message
    assert (info.value.diagnostic.line, info.value.diagnostic.col) == (line, col)


def test_workloads_take_zips_and_unions(tmp_path: Path) -> None:
    path = tmp_path / "w.yaml"
    path.write_text(
        "phases:\n"
        "  zipped:\n"
        "    for_each: '(k, c) in zip_cycle(1..5, [10, 20])'\n"
        "    bindings: |\n      v := u64_add(k, c)\n"
        "    emit: [k, v]\n"
        "  unioned:\n"
        "    for_each: '[for k in 1..3, for k in 7..9] where {k} != 2 order reverse_lex'\n"
        "    bindings: |\n      v := k * 10\n"
        "    emit: [v]\n"
    )
    w = Workload.load(path)
    assert w.table("zipped").to_pylist() == [
        {"k": 1, "v": 11}, {"k": 2, "v": 22}, {"k": 3, "v": 13}, {"k": 4, "v": 24},
    ]
    assert [r["v"] for r in w.table("unioned").to_pylist()] == [80, 70, 10]


def test_a_tile_projection_takes_zips_and_unions() -> None:
    source = (
        'tile a : text := <<<@for (k, c) in zip_cycle(1..4, [x, y]) {${k}${c} }>>>\n'
        'tile b : text := <<<@for [for k in 1..3, for k in 8..9] {${k} }>>>\n'
    )
    kernel = polydat.compile(source).kernel()
    assert kernel.pull("a") == "1x2y3x"
    assert kernel.pull("b") == "128"
