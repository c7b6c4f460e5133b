"""pytest-benchmark of the ladder's `generate` per engine against numpy and
numba (see ladder.py): `pytest benches/python --benchmark-only`.
Set POLYDAT_BENCH_ROWS to change the rows per call (default 1,000,000)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ladder  # noqa: E402

ROWS = int(os.environ.get("POLYDAT_BENCH_ROWS", "1000000"))
RUNNERS = ladder.runners()
ladder.check_agree(RUNNERS)


@pytest.mark.parametrize("name", list(RUNNERS))
def test_ladder_generate(benchmark, name: str) -> None:  # type: ignore[no-untyped-def]
    benchmark.group = f"ladder {ROWS:,} rows"
    columns = benchmark(RUNNERS[name], ROWS)
    assert len(columns["event_token"]) == ROWS
