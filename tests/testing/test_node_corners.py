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


def _f64_nodes() -> list[str]:
    """Library nodes with an f64 output (the NaN policy's subjects)."""
    out = []
    for node in pt.library_nodes():
        ports = node["outputs"].get("ports") or []
        if any(t == "f64" for _, t in ports):
            out.append(node["name"])
    return out


F64_NODES = _f64_nodes()


@pytest.mark.parametrize("node", F64_NODES)
def test_nan_results_are_canonical_on_every_engine(node: str) -> None:
    # The language's NaN policy: a NaN a node computes is the canonical quiet
    # NaN (0x7ff8000000000000), whatever the sign or payload of the NaNs it
    # read and whatever order the hardware combined them in.
    case = pt.node_case(node)
    table = pt.outcomes(case.source, case.steps, engines=MATRIX)
    bad = [
        (name, o.where(), hex(o.outcome.data))
        for name, run in table.items()
        for o in run.observations
        if o.action == "pull" and o.outcome.kind == "f64"
        and (o.outcome.data >> 52) & 0x7FF == 0x7FF and o.outcome.data & ((1 << 52) - 1)
        and o.outcome.data != pt.CANONICAL_NAN_BITS
    ]
    assert not bad, bad[:5]


def test_nan_corners_reach_every_f64_argument_position() -> None:
    nans = {0x7FF8000000000000, 0xFFF8000000000000, 0x7FF80000DEADBEEF, 0xFFF800000000BAD1}
    assert nans <= {pt.f64_bits(v) for v in pt.F64_CORNERS}
    case = pt.node_case("f64_add")
    pairs = {
        (pt.f64_bits(s.write["x"]), pt.f64_bits(s.write["y"]))
        for s in case.steps if isinstance(s.write, dict) and "x" in s.write and "y" in s.write
    }
    assert {(a, b) for a in nans for b in nans} <= pairs, "every NaN meets every NaN in both positions"
    assert len(F64_NODES) > 20
