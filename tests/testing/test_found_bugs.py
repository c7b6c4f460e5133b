"""Engine disagreements the equivalence harness found, kept as regression tests.

Each test is the minimal program and script from a shrunk random example.
An open bug is ``xfail(strict=True)``: the test starts failing the moment the
engines agree, so whoever fixes it removes the marker.
"""

from __future__ import annotations


import polydat.testing as pt
from polydat.testing import EVAL, Step

CAPTURE_AFTER_FAILED_INIT = """\
input cycle: u64
extern ef: f64
const a := ef + 1.0
const b := required(ef, "b")
"""


def test_capture_after_a_failed_const_init() -> None:
    # step 0: ef is unset, so `b` fails while the consts are captured (`a` captures None);
    # step 1: write the coordinate (same value) and ef, then read everything again
    pt.assert_engines_agree(CAPTURE_AFTER_FAILED_INIT, [Step(0, pulls=[EVAL]), Step({"cycle": 0, "ef": 0.0}, pulls=[EVAL])])


def test_capture_after_a_failed_const_init_without_coordinate_write() -> None:
    pt.assert_engines_agree(CAPTURE_AFTER_FAILED_INIT, [Step(0, pulls=[EVAL]), Step({"ef": 0.0}, pulls=[EVAL])])
