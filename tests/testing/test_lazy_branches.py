"""`if` (and a tile's `@if`) evaluates only the branch it takes, on every engine.

A failure or a `None` in the branch not taken never reaches the row; a step
the taken branch shares with another output, or the condition, still runs
when that output is read, and fails there as it would without the `if`.
Every engine reads the same values and reports the same failure (the
harness compares each engine with the interpreter), for single pulls,
`eval`, and `generate`'s row paths.
"""

from __future__ import annotations

from typing import Any

import pytest

import polydat
import polydat.testing as pt
from polydat.testing import EVAL, Step

CYCLES = range(12)


def _agree(source: str, pulls: list[str]) -> pt.Outcomes:
    script = [Step(c, pulls=pulls) for c in CYCLES] + [Step(c, pulls=[EVAL]) for c in CYCLES]
    return pt.assert_engines_agree(source, script)


def _plain(outcome: pt.Outcome) -> Any:
    """An outcome as a plain value: the value, `None`, or the error's first line."""
    if outcome.is_error:
        return "error: " + str(outcome.data[1]).splitlines()[0]
    return None if outcome.kind == "none" else outcome.data


def _values(table: pt.Outcomes, output: str) -> list[Any]:
    """The oracle's outcomes of the pulls of `output` (`EVAL`: of the evals), plain."""
    if output == EVAL:
        return [_plain(o.outcome) for o in table.oracle.observations if o.action == "eval"]
    return [_plain(o.outcome) for o in table.oracle.observations if o.action == "pull" and o.target == output]


def _failed(values: list[Any]) -> list[bool]:
    return [isinstance(v, str) and v.startswith("error: ") for v in values]


def _generated(source: str, outputs: list[str]) -> dict[str, dict[str, list[Any]]]:
    """Each engine's `generate` of `outputs` over CYCLES, as lists (or the error's first line)."""
    got = {}
    for spec in pt.engines():
        try:
            program = spec.compile(source)
        except polydat.RefusedError:
            continue
        try:
            table = program.generate(cycles=range(len(CYCLES)), outputs=outputs, format="arrow")
            got[spec.name] = {name: table.column(name).to_pylist() for name in outputs}
        except polydat.errors.PolydatError as e:
            got[spec.name] = {"error": [str(e).splitlines()[0]]}
    return got


UNTAKEN_FAILS = "input cycle: u64\nv := if cycle > 5 { is_positive(cycle - 6) + 1 } else { 7 }\n"


def test_a_failure_in_the_branch_not_taken_never_reaches_the_row() -> None:
    table = _agree(UNTAKEN_FAILS, ["v"])
    # cycle 6 takes the failing branch: is_positive(0) fails there, as without the if
    values = _values(table, "v")
    assert values[:6] == [7] * 6 and _failed(values[6:7]) == [True] and values[7:12] == [2, 3, 4, 5, 6], values


def test_generate_skips_the_branch_not_taken_on_every_engine() -> None:
    source = "input cycle: u64\nv := if cycle > 5 { in_range(cycle, 6, 100) } else { 7 }\n"
    want = [7] * 6 + list(range(6, 12))
    got = _generated(source, ["v"])
    assert got and all(cols == {"v": want} for cols in got.values()), got


def test_a_none_in_the_branch_not_taken_never_reaches_the_row() -> None:
    source = "input cycle: u64\nextern e: u64\nv := if cycle > 5 { e + 1 } else { 7 }\n"
    values = _values(_agree(source, ["v"]), "v")
    assert values[:6] == [7] * 6 and values[6:12] == [None] * 6, values


def test_a_step_shared_with_another_output_fails_when_that_output_is_read() -> None:
    source = "input cycle: u64\nx := in_range(cycle, 6, 100)\nv := if cycle > 5 { x } else { 7 }\n"
    table = _agree(source, ["v", "x"])
    assert _values(table, "v") == [7] * 6 + list(range(6, 12))
    assert _failed(_values(table, "x")) == [True] * 6 + [False] * 6
    assert _failed(_values(table, EVAL)) == [True] * 6 + [False] * 6


def test_the_condition_shared_with_a_branch_still_runs() -> None:
    source = "input cycle: u64\nc := cycle > 5\nv := if c { in_range(cycle, 6, 100) } else { c + 7 }\n"
    assert _values(_agree(source, ["v", "c"]), "v") == [7] * 6 + list(range(6, 12))


def test_nested_ifs_evaluate_only_the_branches_taken() -> None:
    source = (
        "input cycle: u64\n"
        "v := if cycle < 3 { 1 } else { if cycle < 6 { in_range(cycle, 3, 5) } else { is_positive(cycle - 9) } }\n"
    )
    table = _agree(source, ["v"])
    values = _values(table, "v")
    assert values[:6] == [1, 1, 1, 3, 4, 5]
    # cycle - 9 wraps below 9; at 9 it is 0, which is_positive refuses
    assert _failed(values[6:12]) == [False, False, False, True, False, False]
    assert values[10:12] == [1, 2]


def test_the_same_expression_in_both_branches_and_a_condition_is_fused_and_still_lazy() -> None:
    source = (
        "input cycle: u64\n"
        "a := if cycle > 5 { is_positive(cycle - 6) } else { 7 }\n"
        "b := if cycle > 6 { is_positive(cycle - 6) } else { 8 }\n"
    )
    table = _agree(source, ["a", "b"])
    a, b = _values(table, "a"), _values(table, "b")
    assert a[:6] == [7] * 6 and b[:7] == [8] * 7 and b[7:12] == [1, 2, 3, 4, 5]


def test_a_none_condition_takes_neither_branch_even_when_both_are_one_expression() -> None:
    # fusion merges the two branches into one step; a `None` condition still takes neither
    source = "input cycle: u64\nextern e: u64\nv := if e { is_positive(cycle - 6) } else { is_positive(cycle - 6) }\n"
    assert _values(_agree(source, ["v"]), "v") == [None] * 12


def test_a_condition_only_a_const_reads_is_not_rerun_by_eval() -> None:
    # the const is computed once (at init, when `es` is None); writing `es`
    # later leaves it as it is, and its condition, which would fail now, does
    # not run for the row on any engine (P1's eval walked every step)
    source = 'input cycle: u64\nextern es: str\nconst v := if is_one_of(es == "", 7, 1) { "x" } else { es }\n'
    script = [Step({"cycle": 0}, pulls=[EVAL]), Step({"es": "abc"}, pulls=[EVAL]), Step({"cycle": 1}, pulls=[EVAL])]
    evals = _values(pt.assert_engines_agree(source, script), EVAL)
    assert not any(_failed(evals)) and [dict(e)["v"].kind for e in evals] == ["none"] * 3, evals


@pytest.mark.parametrize("encoding", ["text", "json"])
def test_a_tile_branch_renders_only_the_body_it_takes(encoding: str) -> None:
    body = '{"v": @if big { ${in_range(cycle, 6, 100)} } @else { "small" }}' if encoding == "json" else (
        "<<<@if big { ${in_range(cycle, 6, 100)} } @else { small }>>>")
    source = f"input cycle: u64\nbig := cycle > 5\ntile t : {encoding} := {body}\n"
    values = _values(_agree(source, ["t"]), "t")
    assert not any(_failed(values)), values
    assert "small" in values[0] and "11" in values[11], values


@pytest.mark.parametrize("shared", ["binding", "fused"])
def test_a_step_a_const_reads_only_in_its_branch_not_taken_does_not_run_at_init(shared: str) -> None:
    # `b` is read by the const's branch not taken and by a per-cycle output:
    # it is not needed at init (the const does not take it), so its failure
    # belongs to the reads of `v5` alone, never to every read of the kernel.
    # Shared through one binding, or fused from two copies of one expression.
    b = "(es as bool) as u64"
    source = (
        'input cycle: u64\nextern es: str = ",1c"\nextern on: bool = true\n'
        + ("b := (es as bool) as u64\n" if shared == "binding" else "")
        + f"const v3 := if on {{ 1 }} else {{ {'b' if shared == 'binding' else b} }}\n"
        + f"v5 := {'b' if shared == 'binding' else b} + cycle\n"
        + "v4 := cycle + 1\n"
    )
    table = _agree(source, ["v4", "v5", "v3"])
    assert _values(table, "v4") == [c + 1 for c in CYCLES]
    assert _values(table, "v3") == [1] * len(CYCLES)
    assert _failed(_values(table, "v5")) == [True] * len(CYCLES)
    got = _generated(source, ["v4", "v3"])
    assert got and all(cols == {"v4": [c + 1 for c in CYCLES], "v3": [1] * len(CYCLES)} for cols in got.values()), got
