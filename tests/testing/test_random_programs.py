"""Random well-typed programs agree on every engine.

The fast profile (50 derandomized examples) runs in CI. The long profile
(2000 random examples; ``POLYDAT_LONG_EXAMPLES`` changes it) runs with
``POLYDAT_LONG=1`` or ``pytest -m long``.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import polydat
import polydat.testing as pt

from equiv_profiles import FAST, SLOW


MATRIX = pt.engines(include_variants=True) + [
    pt.generate_variant(e) for e in pt.engines(include_fresh=False, include_registered=False)[1:]
]
"""Every engine, P1 without Node Fusion, and every engine's generate() path."""


def check(example: pt.Example) -> None:
    """Compare every engine; a constant-folding failure must be the same compile error everywhere."""
    try:
        pt.assert_engines_agree(example.source, example.steps, example.pulls, engines=MATRIX)
    except polydat.CompileError as err:
        if "evaluated while compiling" not in str(err):
            raise AssertionError(f"generated program does not compile:\n{err}\n{example}") from None
        pt.assert_engines_agree(example.source, example.steps, example.pulls, engines=MATRIX, expect_compile=False)


@FAST
@given(pt.programs())
def test_random_programs_agree(example: pt.Example) -> None:
    check(example)


@FAST
@given(pt.programs(max_bindings=3, depth=3, max_steps=12))
def test_deep_expressions_agree(example: pt.Example) -> None:
    check(example)


@pytest.mark.long
@SLOW
@given(pt.programs(max_bindings=12, max_steps=16))
def test_random_programs_agree_long(example: pt.Example) -> None:
    check(example)


@FAST
@given(pt.programs(max_bindings=4))
def test_generated_programs_compile(example: pt.Example) -> None:
    program = polydat.compile(example.source, engine="p1")
    assert set(program.outputs) >= {n for s in example.steps for n in (s.pulls or ()) if n != pt.EVAL}


def generated_columns(source: str, engine: str, provenance: str, cycles: range) -> dict[str, object]:
    """Every output of ``source`` over ``cycles`` via ``generate``, canonical row by row (or the failure)."""
    program = polydat.compile(source, engine=engine, provenance=provenance)
    try:
        columns = program.generate(cycles)
    except polydat.PolydatError as err:
        return {"failure": pt.canonical_failure(err)}
    return {name: [pt.canonical(v) for v in column.tolist()] for name, column in columns.items()}


@FAST
@given(pt.programs(max_bindings=6), st.integers(0, 2**64 - 1))
def test_generate_over_blocks_agrees(example: pt.Example, start: int) -> None:
    """P2's generate runs eligible programs in blocks of rows, P3's and mixed's
    through a native row loop; every mode matches P1 over 600 rows."""
    cycles = range(start, min(start + 600, 2**64))
    try:
        want = generated_columns(example.source, "p1", "auto", cycles)
    except polydat.CompileError:
        return  # a constant that fails to fold: covered by test_random_programs_agree
    for engine in ("p2", "p3"):
        for mode in ("raw", "push", "pull", "pushpull"):
            got = generated_columns(example.source, engine, mode, cycles)
            assert got == want, f"{engine}/{mode}\n{example}"
    assert generated_columns(example.source, "mixed", "auto", cycles) == want, f"mixed\n{example}"
