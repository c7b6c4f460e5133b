"""pytest-benchmark of the orders-shaped table (benches/columns/orders.polydat)
written by `polydat run` to CSV and Parquet, beside `tpchgen-cli` writing
TPC-H `orders` at the same row count. Each case records the child's CPU
seconds (user + system) in `extra_info["cpu_s"]`; the issue's target is on
CPU time. See benches/columns/orders_vs_tpchgen.py for the full-size run.

    pip install tpchgen-cli
    pytest benches/python/test_orders.py --benchmark-only

POLYDAT_BENCH_SF sets the scale factor (default 1: 1.5M rows, as the full
run; at small factors tpchgen-cli's start-up dominates its time).
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BENCHES = Path(__file__).resolve().parents[1]
PROGRAM = BENCHES / "columns" / "orders.polydat"
COLUMNS = "orderkey,custkey,orderstatus,totalprice,orderdate,orderpriority,clerk,shippriority,comment"
SCALE = float(os.environ.get("POLYDAT_BENCH_SF", "1"))
ROWS = int(1_500_000 * SCALE)


def _cpu_of(cmd: list[str]) -> float:
    """Runs `cmd` to completion; its CPU seconds (raises on a failed run)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert done.returncode == 0, f"{' '.join(cmd)} failed: {done.stderr}"
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _timed(benchmark, cmd: list[str]) -> None:  # type: ignore[no-untyped-def]
    cpu: list[float] = []
    benchmark.pedantic(lambda: cpu.append(_cpu_of(cmd)), rounds=3, iterations=1)
    benchmark.extra_info["cpu_s"] = min(cpu)
    benchmark.extra_info["rows"] = ROWS


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_orders_polydat(benchmark, tmp_path: Path, fmt: str) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("pyarrow")
    benchmark.group = f"orders table, {ROWS:,} rows, {fmt}"
    out = tmp_path / f"orders.{fmt}"
    cmd = [sys.executable, "-m", "polydat", "run", str(PROGRAM), "--cycles", str(ROWS), "--outputs", COLUMNS,
           "--no-coordinate", "--format", fmt, "-o", str(out), "--threads", "1", "--progress", "never"]
    _timed(benchmark, cmd)
    if fmt == "csv":
        assert sum(1 for _ in out.open("rb")) == ROWS + 1, "a header and every row"
    else:
        import pyarrow.parquet as pq

        meta = pq.read_metadata(out)
        assert (meta.num_rows, meta.num_columns) == (ROWS, len(COLUMNS.split(",")))


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_orders_tpchgen(benchmark, tmp_path: Path, fmt: str) -> None:  # type: ignore[no-untyped-def]
    tpchgen = shutil.which("tpchgen-cli") or str(Path(sys.executable).with_name("tpchgen-cli"))
    if not Path(tpchgen).exists():
        pytest.skip("tpchgen-cli is not installed (pip install tpchgen-cli)")
    benchmark.group = f"orders table, {ROWS:,} rows, {fmt}"
    cmd = [tpchgen, fmt, "-s", f"{SCALE:g}", "--tables", "orders", "-o", str(tmp_path), "--num-threads", "1",
           "--overwrite", "--no-progress"]
    _timed(benchmark, cmd)
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert written and sum(p.stat().st_size for p in written) > ROWS * 20
