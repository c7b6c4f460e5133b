"""Engine disagreements the equivalence harness found, kept as regression tests.

Each test is the minimal program and script from a shrunk random example.
An open bug is ``xfail(strict=True)``: the test starts failing the moment the
engines agree, so whoever fixes it removes the marker.
"""

from __future__ import annotations

import dataclasses

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


MERGED_FAILING_CAST = """\
input cycle: u64
extern es: str = ""
volatile v0 := hash((es as u64))
v1 := (es as u64)
"""


def test_a_failure_in_merged_identical_nodes_agrees_with_the_graph_as_written() -> None:
    # Found by the long random-program profile. With fusion on, the two casts are one node,
    # bound to `v1`, and reading `v0` fails there "(output v1)"; with fusion off (no merging
    # either) `v0`'s own cast fails, bound to no output. The message is otherwise the same.
    unfused = [e for e in pt.engines(include_variants=True) if e.name == "p1/unfused"]
    assert unfused and unfused[0].graph_as_written
    script = [Step(None), Step({"es": ""}), Step({"es": "7"}), Step({"cycle": 3, "es": ""})]
    pt.assert_engines_agree(MERGED_FAILING_CAST, script, engines=pt.engines() + unfused)
    # The outputs named are what differs, and the rest of the message is still compared.
    table = pt.outcomes(MERGED_FAILING_CAST, script, engines=[pt.engines()[0], unfused[0]])
    seen = [o.outcome.data[1] for o in table["p1/unfused"].observations if o.outcome.is_error]
    assert any("(no declared output)" in message for message in seen)
    strict = dataclasses.replace(unfused[0], name="p1/unfused, outputs compared", graph_as_written=False)
    assert pt.outcomes(MERGED_FAILING_CAST, script, engines=[pt.engines()[0], strict]).disagreements()
    other = pt.Outcome("error", ("EvalError", "x\n  ↳ in node `a` (output v1) while evaluating `v0`"))
    moved = pt.Outcome("error", ("EvalError", "x\n  ↳ in node `b` (no declared output) while evaluating `v0`"))
    assert pt.canon.without_output_attribution(other) != pt.canon.without_output_attribution(moved)


SEGMENT_READS_A_FAILING_VALUE = """\
input cycle: u64
extern es: str = ""
volatile v0 := first_names(cycle)
volatile v1 := sin(0.0)
v2 := (cycle + cycle)
const v3 := 0
const v4 := v3
const v5 := v3
v6 := if((cycle + cycle), cycle, (es as u64))
"""


def test_reading_one_value_of_a_native_segment_does_not_evaluate_what_only_another_needs() -> None:
    # Found by the long random-program profile: on mixed, `v2` and `v6`'s select made one
    # segment, which parsed `es` (failing on "") for a read of `v2` alone; P1 reads v2 = 0.
    pt.assert_engines_agree(SEGMENT_READS_A_FAILING_VALUE, [Step((0,), invalidate_all=True), Step({"es": "4"})],
                            engines=pt.engines(include_variants=True))


TWO_FAILING_OPERANDS = """\
input cycle: u64
{first}
{second}
v3 := {expression}
"""


def test_the_failure_reported_is_the_first_failing_step_in_evaluation_order_on_every_engine() -> None:
    # Found by an adversarial pass: with `v3 := v2 && v1`, P1, P2 and P3 failed in `mod`
    # while mixed and auto failed in the string parse (a segment evaluated every input
    # before it ran). Every engine runs a read's steps in the program's evaluation order
    # (source order among independent bindings), fused or not, so each reports the first
    # failing step of that order.
    bindings = {"v1": "v1 := mod(cycle, 0)", "v2": 'v2 := "{cycle}x" as u64', "v4": "v4 := u64_mod(hash(cycle), 0)"}
    matrix = pt.engines() + pt.compiler_variants() + [pt.engine_spec("auto")]
    for first, second in [("v1", "v2"), ("v2", "v1"), ("v4", "v2"), ("v2", "v4")]:
        for expression in ("v2 && v1", "v1 && v2", "v1 + v2", "if(v1, v2, 1)", "v2 + v4"):
            if any(name in expression for name in bindings if name not in (first, second)):
                continue  # an operand bound nowhere is an error in a program that declares its inputs
            source = TWO_FAILING_OPERANDS.format(first=bindings[first], second=bindings[second], expression=expression)
            pt.assert_engines_agree(source, [3, 0, Step(7, pulls=[EVAL])], engines=matrix)
