"""Every library node on every engine at the corner inputs.

One program per node, generated from the catalog (so new nodes join without
edits; constraints live in polydat/testing/overrides.py). Nondeterministic
nodes run on every engine but are compared by type only.
"""

from __future__ import annotations

import pytest

import polydat.testing as pt

NODES = [n["name"] for n in pt.library_nodes()]
MATRIX = pt.engines(include_variants=True)


@pytest.mark.parametrize("node", NODES)
def test_node_agrees_at_corners(node: str) -> None:
    case = pt.node_case(node)
    table = pt.assert_engines_agree(case.source, case.steps, engines=MATRIX)
    oracle = table.oracle
    assert oracle.status == "ok"
    pulled = [o for o in oracle.observations if o.action == "pull"]
    assert len(pulled) >= len(case.steps) - 1
    if not case.deterministic:
        assert all(o.outcome.kind == "nondeterministic" for o in pulled)
        assert set(case.outputs) <= pt.nondeterministic_outputs(case.source)


def test_every_library_node_has_a_corner_program() -> None:
    assert len(NODES) > 50
    for name in NODES:
        case = pt.node_case(name)
        assert f"{name}(" in case.source
        assert case.steps


def test_f64_nodes_see_every_f64_corner() -> None:
    case = pt.node_case("sqrt")
    written = {pt.canonical(s.write["x"]) for s in case.steps if isinstance(s.write, dict) and "x" in s.write}
    assert written == {pt.canonical(v) for v in pt.F64_CORNERS}


def test_u64_pairs_are_the_full_product() -> None:
    case = pt.node_case("u64_sub")
    pairs = {(s.write["a"], s.write["b"]) for s in case.steps if isinstance(s.write, dict)}
    assert len(pairs) == len(pt.U64_CORNERS) ** 2
