"""Upstream's round-number nodes, at the values upstream's tests state."""

from __future__ import annotations

import math

import pytest

from .node_values import values_everywhere

# (node, x, upstream's value)
SNAPS = [
    ("floor_base10", 1732.234, 1000.0),
    ("ceiling_base10", 1732.0, 10000.0),
    ("closest_base10", 1732.0, 1000.0),
    ("closest_base10", 6000.0, 10000.0),
    ("floor_base10", 1000.0, 1000.0),
    ("ceiling_base10", 1000.0, 1000.0),
    ("floor_decade", 2734.0, 2000.0),
    ("ceiling_decade", 2734.0, 3000.0),
    ("closest_decade", 2734.0, 3000.0),
    ("floor_decade", 1732.0, 1000.0),
    ("closest_decade", 1732.0, 2000.0),
    ("ceiling_decade", 1732.0, 2000.0),
    ("floor_fibonacci", 1732.0, 1597.0),
    ("ceiling_fibonacci", 1732.0, 2584.0),
    ("closest_fibonacci", 1732.0, 1597.0),
    ("floor_fibonacci", 0.5, 0.0),
    ("floor_fibonacci", 1597.0, 1597.0),
    ("ceiling_fibonacci", 1597.0, 1597.0),
    ("floor_binomial", 1732.0, 1024.0),
    ("ceiling_binomial", 1732.0, 2048.0),
    ("closest_binomial", 1732.0, 2048.0),
    ("floor_binomial", 1024.0, 1024.0),
    ("ceiling_binomial", 1024.0, 1024.0),
    ("floor_base10", 0.0, 0.0),
    ("floor_base10", -5.0, 0.0),
    ("ceiling_binomial", -1.0, 0.0),
    ("closest_fibonacci", 0.0, 0.0),
    ("closest_decade", -1000.0, 0.0),
    ("floor_base10", math.inf, 0.0),
    ("floor_binomial", math.nan, 0.0),
]


@pytest.mark.parametrize("node", sorted({s[0] for s in SNAPS}))
def test_snaps_give_upstreams_values_on_every_engine(node: str) -> None:
    cases = [(x, want) for name, x, want in SNAPS if name == node]
    source = f"input a: u64\nextern x: f64 = 0.0\nout := {node}(x)\n"
    got = values_everywhere(source, "out", [{"x": x} for x, _ in cases])
    assert got == [want for _, want in cases]


def test_floor_base10_keeps_fractional_powers() -> None:
    (got,) = values_everywhere("input a: u64\nextern x: f64 = 0.0\nout := floor_base10(x)\n", "out", [{"x": 0.5}])
    assert abs(got - 0.1) < 1e-12


# (node, x, interval, upstream's value)
INTERVALS = [
    ("round_floor", 1732.0, 500.0, 1500.0),
    ("round_ceiling", 1732.0, 500.0, 2000.0),
    ("round_nearest", 1732.0, 500.0, 1500.0),
    ("round_nearest", 1700.0, 500.0, 1500.0),
    ("round_floor", 1732.0, 0.0, 1732.0),
    ("round_nearest", 1732.0, -5.0, 1732.0),
    ("round_ceiling", 1732.0, math.inf, 1732.0),
    ("round_floor", 1732.0, math.nan, 1732.0),
]


@pytest.mark.parametrize("node", sorted({s[0] for s in INTERVALS}))
def test_interval_rounders_give_upstreams_values_on_every_engine(node: str) -> None:
    cases = [(x, i, want) for name, x, i, want in INTERVALS if name == node]
    source = f"input a: u64\nextern x: f64 = 0.0\nextern y: f64 = 1.0\nout := {node}(x, y)\n"
    got = values_everywhere(source, "out", [{"x": x, "y": i} for x, i, _ in cases])
    assert got == [want for _, _, want in cases]
