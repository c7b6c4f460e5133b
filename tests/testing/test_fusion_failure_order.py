"""Fusion does not change which failure a read reports (issue 44 item 7).

When two inputs of a node both fail at a row, the read reports the one
evaluated first. Merging identical nodes (with fusion) evaluates a repeated
expression where it first appears; with ``fusion=False`` the copies are kept,
and each is evaluated where its first twin would be, so both compilations
report the same failure on every engine: a pull, ``eval`` and ``generate``.
"""

from __future__ import annotations

from typing import Any

import pytest

import polydat
import polydat.testing as pt
from polydat.testing.canon import Outcome, canonical_failure, without_output_attribution

# `x` reads `b` (a range check) and `a2`, a copy of the earlier `a`: at
# cycle 0 both fail. Fused, `a2` is `a`, evaluated before `b`.
REPEATED_CHECK = """input cycle: u64
a := is_positive(cycle)
b := in_range(cycle, 5, 100)
a2 := is_positive(cycle)
x := b + a2
"""

# Both casts of `n6` fail; fused, each is the cast `n4` made first (k's).
REPEATED_CASTS = """input cycle: u64
input k: u64
n4 := (k as i64) || (cycle as i64)
n6 := (cycle as i64) && (k as i64)
"""

# The `if` reads a copy of `a`, so `a` (its first twin) is evaluated before
# `b` (conditions first) whether or not the copy is merged into it.
CONDITION_COPY = """input cycle: u64
b := in_range(cycle, 5, 100)
a := is_positive(cycle)
x := b + a
y := if is_positive(cycle) > 1 { 1 } else { 2 }
"""

# A pick whose index may run past its one string: merged with the other
# branch's "1" into one table, index 1 picked "1" instead of failing.
PICK_PAST_ITS_TABLE = """input cycle: u64
p := __pick_text(cycle, "")
v := select_str(cycle, p, "1")
"""

# `n12`'s second factor is a cast times a decimal literal, fused into one
# step; at this row the cast fails, and so does `n3`, an earlier output. The
# fused step is evaluated where the cast was, so `eval` reports the cast's
# failure either way (the fused step at the multiply's place came after
# `n3`'s and reported that instead).
DECIMAL_CAST_TIMES_LITERAL = """input cycle: u64
input k: u64
n2 := hash(k)
n3 := (cycle as i32)
n4 := n2 ^ cycle
n7 := n4 <= cycle
n10 := i128_mod((n2 as i128) * (n2 as i128) - (n7 as i128) * (n7 as i128), (n7 as i128) - (n2 as i128) * (n2 as i128))
n12 := decimal_mul((n10 as u64) as decimal(20,0), (n2 as decimal(17,0)) * 0.01d)
"""

CASES = [
    pytest.param(PICK_PAST_ITS_TABLE, {"cycle": 1}, ["v"], id="pick_past_its_table"),
    pytest.param(PICK_PAST_ITS_TABLE, {"cycle": 2**63}, ["v"], id="pick_far_past_its_table"),
    pytest.param(REPEATED_CHECK, {"cycle": 0}, ["x", "a", "b"], id="repeated_check"),
    pytest.param(CONDITION_COPY, {"cycle": 0}, ["x", "y"], id="condition_copy"),
    pytest.param(REPEATED_CASTS, {"cycle": 2**64 - 30, "k": 2**64 - 1}, ["n6", "n4"], id="repeated_casts"),
    pytest.param(DECIMAL_CAST_TIMES_LITERAL, {"cycle": 15379430367583068063, "k": 4294967296}, ["n12", "n3"],
                 id="decimal_cast_times_literal"),
]

ENGINES = [spec for spec in pt.engines(include_fresh=False, include_registered=False)]


def _failure(read: Any) -> Outcome:
    """The failure ``read()`` raises, without the outputs its node is bound
    to (those depend on the merging by design)."""
    try:
        read()
    except polydat.PolydatError as err:
        return without_output_attribution(canonical_failure(err))
    raise AssertionError("the read was expected to fail")


def _failures(spec: pt.EngineSpec, source: str, inputs: dict[str, int], outputs: list[str], fusion: bool) -> dict[str, Outcome]:
    program = polydat.compile(source, fusion=fusion, **dict(spec.options))
    got: dict[str, Outcome] = {}
    for output in outputs:
        kernel = program.kernel()
        kernel.set_inputs(**inputs)
        got[f"pull {output}"] = _failure(lambda: kernel.pull(output))
    kernel = program.kernel()
    kernel.set_inputs(**inputs)
    got["eval"] = _failure(kernel.eval)
    cycle = inputs["cycle"]
    others = {name: value for name, value in inputs.items() if name != "cycle"}
    for output in outputs:
        got[f"generate {output}"] = _failure(
            lambda: program.generate(range(cycle, cycle + 1), outputs=[output], inputs=others, coordinate="cycle"))
    return got


@pytest.mark.parametrize("spec", ENGINES, ids=[spec.name for spec in ENGINES])
@pytest.mark.parametrize(("source", "inputs", "outputs"), CASES)
def test_fused_and_unfused_report_the_same_failure(spec: pt.EngineSpec, source: str, inputs: dict[str, int], outputs: list[str]) -> None:
    fused = _failures(spec, source, inputs, outputs, fusion=True)
    unfused = _failures(spec, source, inputs, outputs, fusion=False)
    assert unfused == fused
