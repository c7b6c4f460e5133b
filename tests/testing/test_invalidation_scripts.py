"""Write/pull scripts that exercise selective invalidation.

Every provenance mode (raw, push, pull, pushpull) must give the oracle's
answers whatever the order of writes and pulls: repeated values, writes to
inputs outside the pulled cone, pulls of different outputs in turn,
``invalidate_all`` and ``eval`` in between.
"""

from __future__ import annotations

from hypothesis import given

import polydat.testing as pt
from equiv_profiles import FAST
from polydat.testing import EVAL, Step

CONES = """\
input (cycle: u64, seed: u64)
extern region: str = "eu"
extern scale: f64 = 1.0
extern limit: u64
a := hash(cycle)
b := mod(a, 100)
c := hash(seed)
d := "{region}-{b}"
e := unit_interval(c) * scale
f := a + c
volatile g := hash(u64_xor(cycle, seed))
p := __probe(b, "p") + 1
q := default_or(limit, b)
r := if(b > 50, d, region)
"""
OUTPUTS = ["a", "b", "c", "d", "e", "f", "g", "p", "q", "r"]


def test_repeated_values() -> None:
    steps = [Step((5, 7)), Step((5, 7)), Step({"cycle": 5}), Step(5), Step((5, 7), pulls=["b", "b", "d"]),
             Step({"region": "eu"}), Step({"region": "eu"}, pulls=["d"]), Step({"scale": 1.0}, pulls=["e"]),
             Step({"scale": -0.0}, pulls=["e"]), Step({"scale": 0.0}, pulls=["e"]), Step({"scale": -0.0}, pulls=["e"])]
    pt.assert_engines_agree(CONES, steps)


def test_writes_outside_the_pulled_cone() -> None:
    steps = [Step((1, 1), pulls=["b"])]
    for seed in (2, 3, 3, 2**64 - 1):
        steps.append(Step({"seed": seed}, pulls=["b", "d"]))  # seed is outside b's and d's cones
    for region in ("us", "ap", "us"):
        steps.append(Step({"region": region}, pulls=["e", "c"]))  # region is outside e and c
    steps += [Step({"cycle": 9}, pulls=["e"]), Step(None, pulls=["b", "d", "e", "f"])]
    pt.assert_engines_agree(CONES, steps)


def test_pulls_of_different_outputs_in_turn() -> None:
    steps = []
    for i, cycle in enumerate(pt.U64_CORNERS[:20]):
        pulls = [OUTPUTS[i % len(OUTPUTS)], OUTPUTS[(i * 3) % len(OUTPUTS)]]
        steps.append(Step({"cycle": cycle, "seed": cycle ^ 1}, pulls=pulls))
        if i % 4 == 0:
            steps.append(Step(None, pulls=list(reversed(OUTPUTS))))
        if i % 5 == 0:
            steps.append(Step(None, invalidate_all=True, pulls=["f", EVAL]))
    pt.assert_engines_agree(CONES, steps)


def test_externs_unset_then_set_then_unset() -> None:
    steps = [Step(3, pulls=["q"]), Step({"limit": 7}, pulls=["q", "b"]), Step({"limit": None}, pulls=["q"]),
             Step({"limit": 2**64 - 1}, pulls=[EVAL]), Step({"region": None}, pulls=["d", "r"])]
    pt.assert_engines_agree(CONES, steps)


def test_failed_write_leaves_the_kernel_consistent() -> None:
    steps = [Step((1, 2)), Step({"scale": "wide"}), Step({"nope": 1}), Step({"limit": 1.5}), Step(None),
             Step({"cycle": 4})]
    table = pt.assert_engines_agree(CONES, steps)
    writes = [o for o in table.oracle.observations if o.action == "write"]
    assert sum(o.outcome.is_error for o in writes) == 3


@FAST
@given(pt.scripts(["cycle", "seed"], {"region": "str", "scale": "f64", "limit": "u64"}, OUTPUTS, max_steps=16))
def test_random_scripts_over_cones(steps: list[Step]) -> None:
    pt.assert_engines_agree(CONES, steps)


WIDE_INPUTS = 70
WIDE = (
    "input cycle: u64\n"
    + "".join(f"extern e{i}: u64 = {i}\n" for i in range(WIDE_INPUTS))
    + "".join(f"o{i} := hash(e{i}) + cycle\n" for i in range(WIDE_INPUTS))
    + "low := o0 + o1 + o63\nhigh := o64 + o69\nacross := o5 ^ o66\nlabel := \"{e65}-{e2}\"\n"
)
WIDE_OUTPUTS = ["o0", "o1", "o63", "o64", "o65", "o69", "low", "high", "across", "label"]


def test_more_than_64_inputs() -> None:
    steps = [Step(1, pulls=WIDE_OUTPUTS)]
    for name in ("e65", "e3", "e64", "e63", "e0", "e69", "e66"):
        steps.append(Step({name: 1000}, pulls=WIDE_OUTPUTS))
        steps.append(Step({name: 1000}, pulls=["high", "low"]))
    steps += [Step({"e65": 7}, pulls=["label", "o65"]), Step({"e2": 9}, pulls=["label", "o64"]),
              Step(2, pulls=[EVAL]), Step({"e66": 5}, invalidate_all=True, pulls=["across"])]
    pt.assert_engines_agree(WIDE, steps)


@FAST
@given(pt.scripts(["cycle"], {f"e{i}": "u64" for i in (0, 1, 2, 5, 63, 64, 65, 66, 69)}, WIDE_OUTPUTS,
                  max_steps=16))
def test_random_scripts_over_more_than_64_inputs(steps: list[Step]) -> None:
    pt.assert_engines_agree(WIDE, steps, pulls=WIDE_OUTPUTS)
