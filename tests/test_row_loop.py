"""generate's native row loop against P1: constants loaded before the loop,
seeded adds folded into one invariant sum, the rows counted up to 0 — at
coordinates that wrap past 2**64, with and without a unit step, with more
constants than the loop loads and more columns than registers."""

from __future__ import annotations

import numpy as np
import pytest

import polydat
from polydat import _core

NATIVE = [e for e in ("p3", "mixed") if any(name.startswith(e) for name in _core.engines())]

SEEDED = """
input cycle: u64
input seed: u64
input other: u64
a := hash(u64_add(cycle, seed))
b := hash(u64_add(seed, cycle))
c := hash(u64_add(u64_add(cycle, seed), other))
d := u64_add(u64_add(other, cycle), 12345678901234)
e := mod(hash(u64_xor(cycle, other)), 10000000)
f := u64_mul(u64_add(cycle, 9000000000000000000), 11400714819323198485)
"""

# Twelve distinct 64-bit constants and twelve columns: more than the loop
# loads before it, and more columns than it has registers.
MANY = "input cycle: u64\n" + "".join(
    f"k{i} := u64_mul(u64_add(cycle, {0x9E3779B97F4A7C15 + i * 0x1234567890ABCDEF & (2**64 - 1)}), {0xBF58476D1CE4E5B9 ^ (i << 40)})\n"
    for i in range(12)
)

SPANS = [
    range(0, 5000),
    range(2**64 - 2500, 2**64),
    range(2**63 - 7, 2**63 + 4000),
    range(2**64 - 9000, 2**64, 3),
    range(5, 6),
]


@pytest.mark.skipif(not NATIVE, reason="no native engine on this machine")
@pytest.mark.parametrize("engine", NATIVE)
@pytest.mark.parametrize("source", [SEEDED, MANY], ids=["seeded", "many"])
@pytest.mark.parametrize("span", SPANS, ids=lambda r: f"{r.start}+{len(r)}x{r.step}")
def test_the_row_loop_gives_p1s_rows(engine: str, source: str, span: range) -> None:
    fixed = {"seed": 2**64 - 3, "other": 0x8000_0000_0000_0001} if "seed" in source else {}
    native = polydat.compile(source, engine=engine)
    reference = polydat.compile(source, engine="p1")
    want = reference.generate(span, inputs=fixed)
    got = native.generate(span, inputs=fixed)
    assert set(got) == set(want)
    for name in want:
        np.testing.assert_array_equal(got[name], want[name], err_msg=f"{engine}: {name} over {span}")
    # The same rows into columns the caller owns.
    out = {name: np.zeros(len(span), np.uint64) for name in want}
    native.generate(span, inputs=fixed, out=out)
    for name in want:
        np.testing.assert_array_equal(out[name], want[name], err_msg=f"{engine} out=: {name} over {span}")


@pytest.mark.skipif(not NATIVE, reason="no native engine on this machine")
@pytest.mark.parametrize("engine", NATIVE)
@pytest.mark.parametrize(
    "fixed",
    [
        {"seed": 17, "other": 99},
        {"seed": 2**64 - 3, "other": 0x8000_0000_0000_0001},  # an immediate that sign-extends; a wide word
        {"seed": 2**31, "other": 2**31 - 1},  # just past, and at, the widest immediate
        {"seed": 2**64 - 2**31, "other": 0},
    ],
    ids=["small", "negative-wide", "imm32-edge", "imm32-low"],
)
def test_a_loop_specialised_on_the_calls_inputs_gives_p1s_rows(engine: str, fixed: dict[str, int]) -> None:
    """Past 2**23 rows asked for with the same `inputs=` (the core's
    SPECIALISE_AFTER_ROWS), over calls of a million rows each, `generate`
    compiles them into the loop as constants; its rows stay P1's, for
    these inputs and then for others (the general loop again)."""
    native = polydat.compile(SEEDED, engine=engine)
    reference = polydat.compile(SEEDED, engine="p1")
    batch = 1 << 20
    out = {name: np.zeros(batch, np.uint64) for name in "abcdef"}
    for k in range((1 << 23) // batch + 2):  # the general loop, then the specialised one
        native.generate(range(k * batch, (k + 1) * batch), inputs=fixed, out=out)
        if k in (0, (1 << 23) // batch + 1):
            for span in (range(0, 2000), range(batch - 2000, batch)):
                rows = range(k * batch + span.start, k * batch + span.stop)
                want = reference.generate(rows, inputs=fixed)
                for name in want:
                    np.testing.assert_array_equal(out[name][span.start : span.stop], want[name], err_msg=f"{name} {rows}")
    for span, inputs in ((SPANS[1], fixed), (SPANS[2], fixed), (SPANS[1], {**fixed, "seed": fixed["seed"] ^ 1})):
        want = reference.generate(span, inputs=inputs)
        got = native.generate(span, inputs=inputs)
        for name in want:
            np.testing.assert_array_equal(got[name], want[name], err_msg=f"{name} over {span} with {inputs}")
