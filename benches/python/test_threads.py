"""pytest-benchmark of thread scaling: the ladder's `generate` into four u64
columns on 1, 2 and 4 threads, per native engine (compare the rows of one
group; the ratio is only meaningful with that many idle cores).

    pytest benches/python/test_threads.py --benchmark-only
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ladder  # noqa: E402

ROWS = int(os.environ.get("POLYDAT_BENCH_ROWS", "1000000"))
THREADS = (1, 2, 4)


@pytest.mark.parametrize("threads", THREADS)
@pytest.mark.parametrize("engine", ["p2", "p3", "mixed"])
def test_thread_scaling(benchmark, engine: str, threads: int) -> None:  # type: ignore[no-untyped-def]
    benchmark.group = f"threads: {engine}, {ROWS:,} rows"
    run = ladder.polydat_runner(engine, threads)
    want = ladder.numpy_ladder(ROWS)
    got = benchmark(run, ROWS)
    for column in ladder.OUTPUTS:
        assert np.array_equal(got[column], want[column]), column
