"""The Python benches' quick mode: every baseline computes what polydat
computes (no timing is asserted here; see benches/python)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benches" / "python"))
import ladder  # noqa: E402


def test_every_ladder_runner_agrees_with_p1() -> None:
    ladder.check_agree(ladder.runners(), rows=3000)


def test_the_agreement_check_can_fail() -> None:
    def off_by_one(rows: int) -> dict[str, np.ndarray]:
        columns = ladder.numpy_ladder(rows)
        columns["shard"][rows // 2] += np.uint64(1)
        return columns

    try:
        ladder.check_agree({"broken": off_by_one}, rows=100)
    except AssertionError as err:
        assert "broken: column shard" in str(err)
    else:
        raise AssertionError("a baseline that differs must be refused")


def test_the_string_column_bench_compares_builds_round_by_round() -> None:
    import subprocess

    import pytest

    pytest.importorskip("pyarrow")
    script = Path(__file__).resolve().parents[1] / "benches" / "columns" / "generate_memory.py"
    run = [sys.executable, str(script), "--baseline", sys.executable, "--rows", "3000", "--rounds", "1"]
    out = subprocess.run(run, capture_output=True, text=True, check=True).stdout
    assert out.count("| 1 |") == 2, out
    assert "3 u64 + 2 str: median speed-up" in out and "2 str: median speed-up" in out, out
