"""The assertion nodes (`is_positive`, `in_range`, `is_one_of`) at the edges
of what they let through, on every engine: native code checks inline and
calls the rule when the check fails (the rule then fails with its own
message), so a check that lets a bad value through shows here as engines
that disagree."""

from __future__ import annotations

import polydat
import polydat.testing as pt

ASSERTS = """
input cycle
a := is_positive(cycle)
b := in_range(cycle, 10, 20)
c := is_one_of(cycle, 3, 10, 20, 18446744073709551615)
"""

EDGES = (0, 1, 2, 3, 9, 10, 11, 19, 20, 21, 2**63, 2**64 - 2, 2**64 - 1)


def test_asserts_pass_and_fail_at_their_edges_alike_on_every_engine() -> None:
    kernel = polydat.compile(ASSERTS).kernel()
    passed = {name: [] for name in "abc"}
    for x in EDGES:
        kernel.set_inputs(cycle=x)
        for name in "abc":
            try:
                assert kernel.pull(name) == x
                passed[name].append(x)
            except polydat.EvalError:
                pass
    assert passed == {
        "a": [x for x in EDGES if x > 0],
        "b": [10, 11, 19, 20],
        "c": [3, 10, 20, 2**64 - 1],
    }
    pt.assert_engines_agree(ASSERTS, [pt.Step({"cycle": x}) for x in EDGES], engines=pt.engines(include_variants=True))
