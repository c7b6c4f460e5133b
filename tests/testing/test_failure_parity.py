"""Failure parity: a failing node gives the same message on every engine.

The message names the node, the outputs it feeds and its input values, and
the kernel stays usable: after a good write the same kernel computes the
right value (the matrix's fresh-kernel engine checks that it is the value a
new kernel gives).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

import polydat
import polydat.testing as pt
from polydat.testing import EVAL, Step


@dataclass(frozen=True)
class Case:
    id: str
    source: str
    bad: Any
    output: str
    first_line: str
    node: str
    inputs: str
    good: Any
    value: Any


CASES = [
    Case("in_range", "input cycle: u64\ndoubled := mul(cycle, 2)\nchecked := in_range(doubled, 0, 5)\n",
         10, "checked", "in_range: value 20 outside [0, 5]", "in_range", "[[0]=U64(20)]", 2, 4),
    Case("is_positive", "input cycle: u64\npos := is_positive(cycle)\n",
         0, "pos", "is_positive(value): value must be > 0, got 0", "is_positive", "[[0]=U64(0)]", 3, 3),
    Case("is_one_of", "input cycle: u64\none := is_one_of(cycle, 1, 2, 3)\n",
         10, "one", "is_one_of: value 10 not in allowed set [1, 2, 3]", "is_one_of", "[[0]=U64(10)]", 2, 2),
    Case("required", "input cycle: u64\nextern r: u64\nreq := required(r, \"r\")\n",
         {"cycle": 1}, "req", "required(r): value was not defined", "required", "[[0]=None]", {"r": 5}, 5),
    Case("mod_wire", "input cycle: u64\nextern d: u64 = 0\nm := mod_wire(cycle, d)\n",
         10, "m", "attempt to calculate the remainder with a divisor of zero", "mod_wire",
         "[[0]=U64(10), [1]=U64(0)]", {"d": 7}, 3),
    Case("str_parse", "input cycle: u64\nextern p: str = \"x\"\nn := \"{p}{cycle}\" as u64\n",
         10, "n", 'value "x10" is not a whole number.', "__str_to_u64", '[[0]=Str("x10")]',
         {"p": "4"}, 410),
]


def _script(case: Case) -> list[Step]:
    return [
        Step(case.bad),
        Step(None, pulls=[case.output, case.output, EVAL]),  # fails again, the same way
        Step(case.good),
        Step(None, pulls=[case.output, EVAL]),
        Step(case.bad),
        Step(case.good, invalidate_all=True),
    ]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_same_failure_on_every_engine(case: Case) -> None:
    table = pt.assert_engines_agree(case.source, _script(case))
    failures = [o.outcome for o in table.oracle.observations if o.outcome.is_error]
    assert failures, "the oracle must fail"
    for name, run in table.items():
        if run.status != "ok":
            continue
        got = [o.outcome for o in run.observations if o.outcome.is_error]
        assert got == failures, name


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_failure_names_node_outputs_inputs(case: Case) -> None:
    for spec in pt.engines():
        try:
            program = spec.compile(case.source)
        except polydat.RefusedError:
            continue
        kernel = program.kernel()
        pt.script.apply_write(kernel, program.coordinates, case.bad)
        with pytest.raises(polydat.EvalError) as caught:
            kernel.pull(case.output)
        err = caught.value
        text = pt.strip_locations(str(err))
        lines = text.splitlines()
        assert lines[0].startswith(case.first_line), (spec.name, text)
        assert f"↳ in node `{case.node}` (output {case.output})" in text, (spec.name, text)
        assert f"↳ inputs: {case.inputs}" in text, (spec.name, text)
        assert err.node == case.node and case.output in err.outputs, spec.name
        # the kernel stays usable and computes the right value after a good write
        pt.script.apply_write(kernel, program.coordinates, case.good)
        assert pt.canonical(kernel.pull(case.output)) == pt.canonical(case.value), spec.name


def test_a_failure_downstream_names_the_failing_node() -> None:
    src = "input cycle: u64\nchecked := in_range(cycle, 0, 5)\nafter := checked + 1\nfine := cycle * 2\n"
    table = pt.assert_engines_agree(src, [Step(9, pulls=["after", "fine", "checked"]), Step(4, pulls=["after"])])
    after = next(o for o in table.oracle.observations if o.target == "after")
    assert "in node `in_range` (output checked)" in after.outcome.data[1]
    assert "while evaluating `after`" in after.outcome.data[1]


def test_constant_folding_failure_is_the_same_compile_error() -> None:
    src = "input cycle: u64\nx := in_range(7, 0, 5)\ny := cycle + x\n"
    table = pt.assert_engines_agree(src, [1], expect_compile=False)
    first = table.oracle.observations[0].outcome
    assert first.is_error and first.data[0] == "CompileError"
    assert "in_range: value 7 outside [0, 5]" in first.data[1]
    assert "panic" not in first.data[1]


def test_the_first_of_two_failures_is_the_first_written_with_or_without_fusion() -> None:
    """A type adapter (here `u64 -> f64` for the comparison) is a node the
    compiler adds; it goes before the node that reads it, so the statements
    are evaluated in the order they were written and the first to fail is
    the one reported, on every engine and with Node Fusion off (a random
    program found that an unfused build evaluated the second statement,
    which needs no adapter, first)."""
    src = (
        "input cycle: u64\n"
        "volatile v0 := div_wire(((cycle as f64) == cycle), cycle)\n"
        'volatile v5 := hash(is_positive(cycle, "a"))\n'
    )
    engines = pt.engines(include_variants=True)
    assert any(e.name == "p1/unfused" for e in engines)
    table = pt.assert_engines_agree(src, [Step(0, pulls=[EVAL], invalidate_all=True)], engines=engines)
    failed = [o.outcome for o in table.oracle.observations if o.outcome.is_error]
    assert failed and "divide by zero" in failed[0].data[1], failed
