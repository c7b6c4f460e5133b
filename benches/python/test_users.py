"""pytest-benchmark of the realistic users record (see bench_users.py):
polydat's `generate` (numpy and Arrow formats, 1 and 2 threads) beside Faker
and Mimesis producing the same eight fields, seeded once, single thread.
Each case records its rows per second in the report's `extra_info`; compare
rows/s, not call times (the libraries run fewer rows per call).

    pytest benches/python/test_users.py --benchmark-only

POLYDAT_BENCH_ROWS sets polydat's rows per call (default 200,000),
POLYDAT_BENCH_LIBRARY_ROWS Faker's and Mimesis's (default 5,000).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_users  # noqa: E402

import polydat  # noqa: E402

ROWS = int(os.environ.get("POLYDAT_BENCH_ROWS", "200000"))
LIBRARY_ROWS = int(os.environ.get("POLYDAT_BENCH_LIBRARY_ROWS", "5000"))
FIELDS = 8
GROUP = "users record (8 fields): compare extra_info rows_per_s"


def best_rate(benchmark, amount: float) -> float | None:  # type: ignore[no-untyped-def]
    """``amount`` per second of the best round, or None when nothing was
    timed (``--benchmark-disable``: the quick mode runs the code once)."""
    stats = benchmark.stats
    return amount / stats.stats.min if stats is not None else None


@pytest.fixture(scope="module")
def program() -> polydat.Program:
    prog = polydat.compile(bench_users.SOURCE)
    prog.generate(range(1000))  # the bundled lists are read at first use
    return prog


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("fmt", ["numpy", "arrow"])
def test_users_polydat(benchmark, program: polydat.Program, fmt: str, threads: int) -> None:  # type: ignore[no-untyped-def]
    if fmt == "arrow":
        pytest.importorskip("pyarrow")
    benchmark.group = GROUP
    table = benchmark(program.generate, range(ROWS), threads=threads, format=fmt)
    columns = table.column_names if fmt == "arrow" else list(table)
    assert len(columns) == FIELDS and len(table[columns[0]]) == ROWS
    benchmark.extra_info["rows_per_s"] = best_rate(benchmark, ROWS)


@pytest.mark.parametrize("library", ["faker", "mimesis"])
def test_users_library(benchmark, library: str) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip(library)
    benchmark.group = GROUP
    make = bench_users.faker_rows if library == "faker" else bench_users.mimesis_rows
    rows = benchmark.pedantic(make, args=(LIBRARY_ROWS,), rounds=3, iterations=1)
    assert len(rows) == LIBRARY_ROWS and all(len(r) == FIELDS for r in rows)
    benchmark.extra_info["rows_per_s"] = best_rate(benchmark, LIBRARY_ROWS)
