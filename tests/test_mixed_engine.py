"""The mixed engine on the programs the project ships: every per-cycle
numeric step with a native form runs natively, and every other step is
reported with its true reason; the mixed engine agrees with P1 on them."""

from __future__ import annotations

from pathlib import Path

import pytest

import polydat
import polydat.testing as pt

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted(
    [*ROOT.glob("examples/**/*.polydat"), *ROOT.glob("benches/scenarios/*.polydat"), *ROOT.glob("benches/columns/*.polydat")]
)


def _mixed(path: Path) -> polydat.Program:
    return polydat.compile(path.read_text(), path=str(path), engine="mixed")


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_native_step_of_a_shipped_program_runs_natively_or_has_its_true_reason(path: Path) -> None:
    doc = _mixed(path).explain_data()
    engine, steps = doc["engine"], doc["steps"]
    native = {s for segment in engine["native_segments"] for s in segment}
    reasons = {entry["step"]: entry["reason"] for entry in engine["interpreted"]}
    assert native.isdisjoint(reasons), "a step is native or has a reason, not both"
    for step in steps:
        i = step["index"]
        eligible = (
            step["scalar"]
            and step["native_form"]
            and step["lifecycle"] == "dynamic"
            and not step["capture"]
            and not step["volatile"]
            and not step["side_channel"]
        )
        if eligible:
            assert i in native, f"step {i} ({step['op']}) can run natively: {reasons.get(i)} / {engine['plan']}"
            continue
        reason = reasons.get(i)
        assert reason is not None, f"step {i} ({step['op']}) is neither native nor explained"
        true_reason = {
            "runs once (constant or scope-init)": step["lifecycle"] != "dynamic" or step["capture"],
            "nondeterministic, volatile or a side channel": step["volatile"] or step["side_channel"],
            "by-reference values or a None-accepting node": not step["scalar"],
            "its node has no native form": not step["native_form"],
        }
        assert true_reason.get(reason), f"step {i} ({step['op']}): {reason!r} is not its reason ({step})"


def test_a_string_binding_does_not_leave_a_numeric_program_without_segments() -> None:
    # Before: adding `key` dropped the segment count from 1 to 0 and every
    # step was reported as "its node has no native form".
    numeric = "input cycle: u64\nuser_id := mod(hash(cycle), 1000000)\nbucket := mod(hash(user_id), 64)\n"
    for source in (numeric, numeric + 'key := "user:{user_id}"\n'):
        doc = polydat.compile(source, engine="mixed").explain_data()["engine"]
        assert len(doc["native_segments"]) == 1, doc["plan"]
        assert all(e["reason"] != "its node has no native form" for e in doc["interpreted"]), doc


def test_explain_says_how_generate_runs_on_the_mixed_engine() -> None:
    plan = polydat.compile("input cycle: u64\nx := hash(cycle)", engine="mixed").explain_data()["engine"]["plan"]
    assert "`generate` runs the native row loop when every step its columns need is scalar" in plan, plan


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_mixed_engine_agrees_with_p1_on_a_shipped_program(path: Path) -> None:
    # The program's path finds the modules beside it.
    engines = [
        pt.EngineSpec(name, {"engine": name, "path": str(path)}, reported=name)
        for name in ("p1", "mixed")
    ]
    pt.assert_engines_agree(path.read_text(), [*range(0, 40), *pt.U64_CORNERS], engines=engines, allow_refused=False)
