"""Random comprehensions keep their properties (``polydat.testing.fuzz.comprehensions``):
every engine gives a ``for`` statement's activations the same values; the
statement, a producer traversed by ``for`` and ``Kernel.for_each`` dispense the
same tuples, twice alike; the tuples are the oracle's (the Cartesian product,
zipped and united, filtered, ranked by the order's rule, or for the sampling
orders the documented bounds); continuous draws are finite and inside their
interval; formatting is stable and keeps the values.

The default profile (CI) checks ``QUICK_COUNT`` seeds from ``QUICK_SEED``. The
long profile (``POLYDAT_LONG=1``) checks ``POLYDAT_FUZZ_COMPREHENSIONS`` seeds
(3,000 by default) from ``POLYDAT_FUZZ_SEED`` (printed; random when unset). A
failing seed prints its comprehension and program; rerun it with
``python -m polydat.testing.fuzz.comprehensions --seed N``.
"""

from __future__ import annotations

import os
import random
from dataclasses import replace

import pytest

from polydat.testing.fuzz.comprehensions import (
    Axis,
    FuzzComprehension,
    OrderSpec,
    check,
    check_drawn,
    comprehension,
    expected_tuples,
    oracle_failures,
)

QUICK_SEED = 47_000
QUICK_COUNT = 200
COVERAGE_SEEDS = 600


def _assert_clean(seeds: range) -> None:
    failed = [r for r in (check(seed) for seed in seeds) if r.failures]
    report = "\n\n".join(r.report() for r in failed[:3])
    assert not failed, f"{len(failed)} of {len(seeds)} seeds failed; first:\n{report}"


def test_comprehensions_are_reproducible_from_their_seed() -> None:
    assert comprehension(7).text == comprehension(7).text
    assert comprehension(7).program() == comprehension(7).program()
    assert len({comprehension(seed).text for seed in range(50)}) == 50


def test_the_writer_draws_every_form() -> None:
    """A form the writer stops reaching fails here: every order, zip mode,
    source kind, union, predicate and continuous measure is in the first seeds."""
    texts = [comprehension(seed) for seed in range(COVERAGE_SEEDS)]
    written = " ".join(c.text for c in texts)
    orders = {c.order.strategy for c in texts if c.order}
    assert orders == {"lex", "reverse_lex", "diagonal", "antidiagonal", "extrema", "shells",
                      "halton", "sobol", "lhs", "shuffle"}
    assert {c.order.strategy for c in texts if c.order and c.continuous} == {"halton", "sobol", "lhs", "shuffle",
                                                                             "extrema"}
    for form in ("zip_truncate(", "zip_cycle(", ") in (", "..=", " step ", "fib(", "pow2(", "linear_steps(",
                 "normal(", "exponential(", " on 0.0..", "beta(", "uniform01()", "(seed=", " where ", "/", "[for ",
                 '"', "'", "!(", "&&", "||", " % ", " lim", "} + {", "{lim}", "{picks}", " picks", "true", ";"):
        assert form in written, form
    assert any(c.union for c in texts) and any(c.continuous for c in texts)
    assert {t for c in texts for t in c.types.values()} == {"u64", "i64", "f64", "str", "bool"}
    assert {len(c.axes) for c in texts if not c.union} == {1, 2, 3}


def test_the_oracle_catches_a_wrong_answer() -> None:
    """The properties can fail: a reordered, shortened or foreign answer is caught."""
    drawn = next(c for c in map(comprehension, range(200))
                 if c.order is None and not c.continuous and len(expected_tuples(c) or []) > 2)
    right = expected_tuples(drawn)
    assert right is not None and oracle_failures(drawn, right) == []
    assert oracle_failures(drawn, right[::-1])
    assert oracle_failures(drawn, right[:-1])
    assert oracle_failures(drawn, right + [right[0]])
    sampled = next(c for c in map(comprehension, range(200)) if c.continuous and c.order.strategy == "halton")
    found = check(sampled.seed).tuples
    assert oracle_failures(sampled, found) == []
    assert oracle_failures(sampled, [tuple(float("nan") for _ in row) for row in found])


def test_a_broken_surface_is_reported_with_its_seed_and_program() -> None:
    """A comprehension whose text says other than the writer knows fails the
    oracle, and the report names the seed, the program and how to rerun it."""
    drawn = next(c for c in map(comprehension, range(200))
                 if c.order is None and c.where is None and not c.union and len(expected_tuples(c) or []) > 1)
    broken = replace(drawn, text=drawn.text + " where {" + drawn.names[0] + "} != {" + drawn.names[0] + "}")
    result = check_drawn(broken)
    assert result.tuples == [] and result.failures
    assert f"seed {drawn.seed}" in result.report() and broken.text in result.report()
    assert f"--seed {drawn.seed}" in result.report()


def test_quick_comprehension_fuzz() -> None:
    _assert_clean(range(QUICK_SEED, QUICK_SEED + QUICK_COUNT))


@pytest.mark.long
def test_long_comprehension_fuzz() -> None:
    count = int(os.environ.get("POLYDAT_FUZZ_COMPREHENSIONS", "3000"))
    seed = int(os.environ.get("POLYDAT_FUZZ_SEED", str(random.randrange(2**32))))
    print(f"POLYDAT_FUZZ_SEED={seed} POLYDAT_FUZZ_COMPREHENSIONS={count}")
    _assert_clean(range(seed, seed + count))


def test_extrema_over_an_unbounded_measure_is_refused() -> None:
    # Found by this fuzzer: extrema dispensed -inf and inf (the support's ends of normal(0, 1)).
    import polydat

    kernel = polydat.compile("x := 1").kernel()
    for text in ("x in normal(0, 1) order extrema/1", "x in exponential(1) order extrema/1"):
        with pytest.raises(polydat.CompileError) as info:
            list(kernel.for_each(text, "y := 1"))
        assert "a measure on an unbounded support has none" in info.value.message
    draws = [c.iteration["x"] for c in kernel.for_each("x in exponential(1) on 0.0..5.0 order extrema/1", "y := 1")]
    assert draws and all(0.0 <= x <= 5.0 for x in draws)


def test_an_empty_half_open_interval_is_refused() -> None:
    # Found by this fuzzer: `0.0..0.0` (high end excluded) drew 0.0, outside the interval.
    import polydat

    kernel = polydat.compile("x := 1").kernel()
    with pytest.raises(polydat.CompileError) as info:
        list(kernel.for_each("x in 0.0..0.0 order halton/2", "y := 1"))
    assert "is empty: its high end is excluded" in info.value.message
    assert [c.iteration["x"] for c in kernel.for_each("x in 0.5..=0.5 order halton/2", "y := 1")] == [0.5, 0.5]


def _grid(order: str | None, count: int | None, *lengths: int) -> FuzzComprehension:
    axes = tuple(Axis((f"a{i}",), tuple((v,) for v in range(1, n + 1)), "") for i, n in enumerate(lengths))
    spec = OrderSpec(order, count, None, "") if order else None
    return FuzzComprehension(0, "", tuple(a.names[0] for a in axes), {}, axes, None, spec)


def test_the_oracle_ranks_the_documented_examples() -> None:
    """The oracle's rules give the worked examples of docs/language/traversals.md."""
    assert [r for (r,) in expected_tuples(_grid("shells", None, 5))] == [1, 5, 2, 4, 3]
    assert expected_tuples(_grid("extrema", 1, 3, 3)) == [(1, 1), (1, 3), (3, 1), (3, 3)]
    assert expected_tuples(_grid("diagonal", 4, 3, 3)) == [(1, 1), (1, 2), (2, 1), (1, 3)]
    assert [len(expected_tuples(_grid("extrema", n, 3, 3, 3))) for n in (1, 2, 3, 4)] == [8, 20, 26, 27]
    assert expected_tuples(_grid("reverse_lex", 2, 2, 2)) == [(2, 2), (2, 1)]
    assert expected_tuples(_grid("halton", None, 2)) is None
