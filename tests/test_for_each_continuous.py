"""Continuous sources in comprehensions (`x in 0.0..1.0`, `x in normal(0, 1)`,
`x in exponential(1) on 0.0..1.0`): sampled by an order with a count, alone
or beside discrete clauses, with upstream's draws where its worked examples
give them, its verdicts on orders that cannot sample, and clear errors, on
every surface that opens a comprehension."""

from __future__ import annotations

import itertools
import math
import time
from pathlib import Path

import pytest

import polydat
from polydat import CompileError
from polydat.dsl.formatter import format_source
from polydat.workload import Workload

ENGINES = ["p1", "p2", "p3", "mixed"]
TOP = math.nextafter(1.0, 0.0)  # the last float inside 0.0..1.0


@pytest.fixture(scope="module")
def root() -> polydat.Kernel:
    return polydat.compile(
        'extern lo: f64 = 2.0\nextern sd: f64 = 2.0\nextern unset: f64\nextern r: str = "0.0..1.0"'
    ).kernel()


def tuples(kernel: polydat.Kernel, comprehension: str) -> list[tuple[object, ...]]:
    return [tuple(k.iteration.values()) for k in kernel.for_each(comprehension, "one := 1")]


def xs(kernel: polydat.Kernel, comprehension: str) -> list[float]:
    return [t[0] for t in tuples(kernel, comprehension)]  # type: ignore[misc]


def unit(f: float) -> float:
    """A point of the unit interval as a 53-bit fraction (how draws carry it)."""
    return math.floor(f * 2.0**53) / 2.0**53


def test_halton_draws_the_radical_inverses(root: polydat.Kernel) -> None:
    assert xs(root, "x in 0.0..1.0 order halton/4") == [0.5, 0.25, 0.75, 0.125]
    assert xs(root, "x in 10.0..20.0 order sobol/3") == [15.0, 17.5, 12.5]
    # Two continuous axes: bases 2 and 3.
    assert tuples(root, "x in 0.0..1.0, y in 0.0..1.0 order halton/2") == [(0.5, unit(1 / 3)), (0.25, unit(2 / 3))]


def test_extrema_takes_the_corners_of_a_box_and_a_hybrid(root: polydat.Kernel) -> None:
    # Upstream's worked examples: an interval's ends (the upper one of a.. b the last float inside).
    top_x = math.nextafter(4.0, 0.0)
    assert tuples(root, "x in 2.0..4.0, y in 0.0..1.0 order extrema/1") == [
        (2.0, 0.0), (2.0, TOP), (top_x, 0.0), (top_x, TOP),
    ]
    assert tuples(root, "theta in 0.0..1.0, k in 1,2,4,8 order extrema/1") == [
        (0.0, 1), (0.0, 8), (TOP, 1), (TOP, 8),
    ]
    assert tuples(root, "x in 0.0..=1.0 order extrema/1") == [(0.0,), (1.0,)]


def test_a_hybrid_samples_both_kinds_of_axis(root: polydat.Kernel) -> None:
    seen = tuples(root, "k in 1,2,4,8, theta in 0.0..1.0 order lhs/8")
    assert len(seen) == 8 and all(k in (1, 2, 4, 8) and 0.0 <= t < 1.0 for k, t in seen)  # type: ignore[operator]
    # A Latin hypercube: one draw in each eighth of the interval.
    assert sorted(int(t * 8) for _, t in seen) == list(range(8))  # type: ignore[operator]
    # The discrete axes come first in the sampling layout: k takes base 2, theta base 3.
    assert tuples(root, "theta in 0.0..1.0, k in 1,2,4,8 order halton/3") == [
        (unit(1 / 3), 4), (unit(2 / 3), 2), (unit(1 / 9), 8),
    ]
    for strategy in ("halton/6", "sobol/6", "shuffle/6"):
        seen = tuples(root, f"k in 1,2,4,8, theta in 0.0..1.0 order {strategy}")
        assert len(seen) == 6 and all(k in (1, 2, 4, 8) and 0.0 <= t < 1.0 for k, t in seen), strategy  # type: ignore[operator]


def test_shuffle_and_lhs_draw_inside_the_box(root: polydat.Kernel) -> None:
    seen = tuples(root, "x in 2.0..4.0, y in 10.0..20.0 order shuffle/16")
    assert len(seen) == 16 and all(2.0 <= x < 4.0 and 10.0 <= y < 20.0 for x, y in seen)  # type: ignore[operator]
    seen = tuples(root, "x in 2.0..4.0, y in 10.0..20.0 order lhs/5")
    assert sorted(int((x - 2.0) / 2.0 * 5) for x, _ in seen) == [0, 1, 2, 3, 4]  # type: ignore[operator]
    assert sorted(int((y - 10.0) / 10.0 * 5) for _, y in seen) == [0, 1, 2, 3, 4]  # type: ignore[operator]


def test_the_authored_seed_selects_the_draws(root: polydat.Kernel) -> None:
    default = tuples(root, "x in 0.0..1.0, y in 0.0..1.0 order lhs/5")
    seeded = tuples(root, "x in 0.0..1.0, y in 0.0..1.0 order lhs(seed=42, n=5)")
    assert len(seeded) == 5 and seeded != default
    assert seeded == tuples(root, "x in 0.0..1.0, y in 0.0..1.0 order lhs(seed=42, n=5)")
    assert xs(root, "x in 0.0..1.0 order shuffle(seed=7, n=3)") != xs(root, "x in 0.0..1.0 order shuffle/3")
    # Every open draws the same values.
    assert default == tuples(root, "x in 0.0..1.0, y in 0.0..1.0 order lhs/5")


def test_a_named_measure_draws_by_its_inverse_cdf(root: polydat.Kernel) -> None:
    drawn = xs(root, "x in normal(10, 2) order halton/256")
    mean = sum(drawn) / 256
    sd = math.sqrt(sum((x - mean) ** 2 for x in drawn) / 256)
    assert abs(mean - 10.0) < 0.2 and abs(sd - 2.0) < 0.2, (mean, sd)
    # The first base-2 Halton point is 1/2: the median, to the quantile's accuracy.
    assert abs(drawn[0] - 10.0) < 1e-3
    # Parameters may be references; none takes the standard ones.
    assert xs(root, "x in normal(10, {sd}) order halton/3") == drawn[:3]
    assert xs(root, "x in gamma() order sobol/4") == xs(root, "x in gamma(1, 1) order sobol/4")
    for source, lo, hi in [
        ("exponential(2)", 0.0, math.inf), ("pareto(3, 2)", 3.0, math.inf), ("beta(2, 5)", 0.0, 1.0),
        ("log_normal(0, 0.5)", 0.0, math.inf), ("gamma(2, 1.5)", 0.0, math.inf), ("uniform01()", 0.0, 1.0),
    ]:
        values = xs(root, f"x in {source} order sobol/32")
        assert len(values) == 32 and all(lo <= x <= hi and math.isfinite(x) for x in values), source


def test_a_measure_on_an_interval_is_restricted_to_it(root: polydat.Kernel) -> None:
    drawn = xs(root, "x in exponential(1) on 0.0..1.0 order halton/64")
    assert all(0.0 <= x < 1.0 for x in drawn)
    # Exponential(1) keeps its shape: F(0.5) / F(1) = 0.62, about 40 of 64 below the midpoint.
    assert 36 <= sum(x < 0.5 for x in drawn) <= 44
    # u = 1/2 maps to F⁻¹(u · F(1)).
    assert drawn[0] == pytest.approx(-math.log(1 - 0.5 * (1 - math.exp(-1))), abs=1e-12)
    assert xs(root, "x in exponential(1) on {lo}..3.0 order extrema/1") == [2.0, math.nextafter(3.0, 0.0)]


def test_a_where_before_the_order_filters_the_draws(root: polydat.Kernel) -> None:
    # Upstream's example: the first passing points of the sequence.
    seen = tuples(root, "x in 0.0..1.0, y in 0.0..1.0 where {x} > 0.5 order halton/4")
    every = tuples(root, "x in 0.0..1.0, y in 0.0..1.0 order halton/16")
    assert seen == [t for t in every if t[0] > 0.5][:4]  # type: ignore[operator]
    # Too few pass a round: the order draws again with twice the count (lhs redraws whole).
    rare = tuples(root, "x in 0.0..1.0 where {x} > 0.9 order lhs/4")
    assert len(rare) == 4 and all(x > 0.9 for (x,) in rare)  # type: ignore[operator]
    # After the order, stages take the draws: a where, another order.
    assert xs(root, "x in 0.0..1.0 order halton/4 where {x} < 0.5") == [0.25, 0.125]
    assert xs(root, "x in 0.0..1.0 order halton/4 order reverse_lex") == [0.125, 0.75, 0.25, 0.5]


def test_a_reference_that_reads_none_gives_no_draw(root: polydat.Kernel) -> None:
    assert tuples(root, "x in normal(0, {unset}) order halton/3") == []


@pytest.mark.parametrize(
    "comprehension, message, col",
    [
        ("x in 0.0..1.0", "a continuous source has no finite set of tuples to iterate", 6),
        ("x in 0.0..1.0 where {x} > 0.5", "no finite set of tuples to iterate", 6),
        ("x in 0.0..1.0 order halton", "order 'halton' needs a count", 21),
        ("x in 0.0..1.0 order extrema", "order 'extrema' needs a count", 21),
        ("x in 0.0..1.0 order lex/3", "order 'lex' does not sample a continuous source", 21),
        ("k in 1..3, x in 0.0..1.0 order diagonal/3", "'diagonal' does not accept a continuous source", 32),
        ("x in 0.0..1.0 order antidiagonal/3", "'antidiagonal' does not accept a continuous source", 21),
        ("x in 0.0..1.0 order shells/3", "'shells' does not accept a continuous source", 21),
        ("x in 0.0..1.0 order reverse_lex/3", "'reverse_lex' does not accept a continuous source", 21),
        ("x in 0.0..1.0 order halton(seed=1, n=2)", "takes no seed", 21),
        ("x in normal(0, -1) order halton/3", "stddev must be positive, got -1", 6),
        ("x in normal(1) order halton/3", "normal takes 2 parameters (mean, stddev); found 1", 6),
        ("x in gamma(0, 1) order halton/3", "shape must be positive", 6),
        ("x in normal(a) order halton/3", "normal: expected a number, got 'a'", 13),
        ("x in normal(0, 1) on 3 order halton/3", "expected an interval after 'on'", 19),
        ("x in exponential(1) on -2.0..-1.0 order halton/3", "has no mass on -2..-1", 6),
        ("x in 1.0..0.0 order halton/3", "the interval 1..0 is empty", 6),
        ("x in 1, 0.5..1.5 order halton/3", "0.5..1.5 is a continuous source, which is a clause's only source", 9),
        ("x in {r} order halton/2", "'r' holds '0.0..1.0', a continuous source", 6),
        ("x in [1, normal(0, 1)] order halton/3", "normal(...) is a continuous source", 10),
        ("(a, b) in 0.0..1.0, 1..3 order halton/3", "zips discrete sources, and this one is continuous", 11),
        ("[for x in 0.0..1.0, for x in 1.0..2.0] order halton/2", "a union's members are discrete", 11),
        ("x in " + ", ".join(f"x{i} in 0.0..1.0" for i in range(14))[6:] + " order sobol/2",
         "'sobol' orders at most 13 clauses", 0),
    ],
)
def test_refusals_point_at_their_cause(root: polydat.Kernel, comprehension: str, message: str, col: int) -> None:
    with pytest.raises(CompileError) as info:
        tuples(root, comprehension)
    assert message in info.value.message
    if col:
        assert (info.value.diagnostic.line, info.value.diagnostic.col) == (1, col)


PROGRAM = """input cycle
for k in 1,2,4,8, theta in 0.0..1.0 order halton/3 {
    px := k
    py := theta * 2.0
}
drawn := for x in exponential(1) on 0.0..1.0 where {x} > 0.2 order sobol/3
for drawn {
    input cycle
    twice := x + x
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_for_bodies_run_the_draws_on_every_engine(engine: str) -> None:
    kernel = polydat.compile(PROGRAM, engine=engine).kernel()
    assert [(a.pull("px"), a.pull("py")) for a in kernel.traverse(0)] == [
        (4, 2 * unit(1 / 3)), (2, 2 * unit(2 / 3)), (8, 2 * unit(1 / 9)),
    ]
    producer = tuples(kernel, kernel.pull("drawn"))
    assert len(producer) == 3 and all(x > 0.2 for (x,) in producer)  # type: ignore[operator]
    assert [a.pull("twice") for a in kernel.traverse(1)] == [2 * x for (x,) in producer]  # type: ignore[operator]


def test_errors_in_programs_point_at_their_place() -> None:
    with pytest.raises(CompileError) as info:
        polydat.compile("input cycle\nfor x in normal(0, 1) order shells/4 {\n    v := x\n}").kernel()
    assert "'shells' does not accept a continuous source" in info.value.message
    assert (info.value.diagnostic.line, info.value.diagnostic.col) == (2, 29)


def test_workloads_sample_continuous_sources(tmp_path: Path) -> None:
    path = tmp_path / "w.yaml"
    path.write_text(
        "phases:\n"
        "  sampled:\n"
        "    for_each: 'x in 0.0..1.0, k in 1,2 order halton/4'\n"
        "    bindings: |\n      v := x * 4.0\n"
        "    emit: [k, v]\n"
    )
    rows = Workload.load(path).table("sampled").to_pylist()
    assert rows == [{"k": 2, "v": 4 * unit(1 / 3)}, {"k": 1, "v": 4 * unit(2 / 3)},
                    {"k": 2, "v": 4 * unit(1 / 9)}, {"k": 1, "v": 4 * unit(4 / 9)}]


def test_fmt_keeps_the_continuous_forms() -> None:
    source = "drawn := for x in exponential(1) on 0.0..1.0, y in 0.0..=1.0 order lhs(seed=3, n=4)\n"
    assert format_source(source) == source
    spaced = "for  x in normal(0, 1) order halton/2 {\n    v := x\n}\n"
    assert format_source(spaced) == "for x in normal(0, 1) order halton/2 {\n    v := x\n}\n"


def test_a_filtered_sequence_dispenses_its_draws_as_they_pass(root: polydat.Kernel) -> None:
    # Halton's and Sobol's longer rounds go on from the shorter ones: nothing is held.
    started = time.perf_counter()
    first = itertools.islice(root.for_each("x in 0.0..1.0 where {x} > 0.5 order halton/1000000000", "one := 1"), 3)
    assert [c.iteration["x"] for c in first] == [0.75, 0.625, 0.875]
    assert time.perf_counter() - started < 5
    # A round of lhs or shuffle starts over, so its passing draws are held: a bounded count.
    with pytest.raises(CompileError) as info:
        tuples(root, "x in 0.0..1.0 where {x} > 0.5 order shuffle/20000000")
    assert "must then be held at once" in info.value.message
    assert info.value.diagnostic.col == 37


def test_derivations_and_tile_projections_take_the_draws() -> None:
    kernel = polydat.compile(
        "drawn := for x in 0.0..1.0 order halton/4\n"
        "low := for drawn where {x} < 0.5 order reverse_lex\n"
        "tile t : text := <<<@for x in 0.0..1.0 order sobol/3 {${x};}>>>\n"
    ).kernel()
    assert tuples(kernel, kernel.pull("low")) == [(0.125,), (0.25,)]
    assert kernel.pull("t") == "0.5;0.75;0.25;"
    # A producer may leave the sampling to a derivation; traversed as it is, it is refused.
    kernel = polydat.compile(
        "input cycle\nbase := for x in 0.0..1.0, k in 1,2\nfor base order halton/3 {\n    v := x\n}\n"
    ).kernel()
    assert [(a.pull("v"), a.iteration["k"]) for a in kernel.traverse(0)] == [
        (unit(1 / 3), 2), (unit(2 / 3), 1), (unit(1 / 9), 2),
    ]
    with pytest.raises(CompileError) as info:
        tuples(kernel, kernel.pull("base"))
    assert "no finite set of tuples to iterate" in info.value.message
