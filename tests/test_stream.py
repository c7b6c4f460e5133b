"""Streams into the tools people query with: `Program.stream` and the
iterator of `iter_batches` are Arrow PyCapsule streams that DuckDB, polars
and pyarrow read batch by batch; a DuckDB aggregate over 10M streamed rows
runs in bounded memory; `polydat run --format arrow` writes an Arrow IPC
stream to a file or to standard output."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

import polydat

SOURCE = """
input cycle: u64
k := mod(hash(cycle), 10)
v := mod(hash(cycle ^ 7), 1000)
label := "r{cycle}"
"""


def cli(*args: str, **kw: object) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "polydat.cli", *args], capture_output=True, timeout=600, **kw)


def test_a_stream_feeds_duckdb_polars_and_pyarrow() -> None:
    duckdb = pytest.importorskip("duckdb")
    import polars as pl

    prog = polydat.compile(SOURCE)
    stream = prog.stream(range(100_000), batch_rows=4096, outputs=["k", "v", "label"], threads=2)
    want = prog.generate(range(100_000), outputs=["k", "v", "label"], format="arrow")
    got = duckdb.sql("select k, sum(v) as s, count(*) as n from stream group by k order by k").fetchall()
    ks, vs = want.column("k").to_numpy(), want.column("v").to_numpy()
    assert got == [(k, int(vs[ks == k].sum()), int((ks == k).sum())) for k in range(10)]
    frame = pl.DataFrame(stream)
    assert frame.shape == (100_000, 3) and frame["v"].sum() == int(vs.sum())
    assert pl.from_arrow(stream).struct.unnest().equals(frame), "from_arrow: the rows as one struct series"
    assert pa.RecordBatchReader.from_stream(stream).read_all().equals(want)
    assert pa.table(stream).equals(want), "every reading is a fresh run of the same rows"
    assert stream.schema == want.schema and stream.num_rows == 100_000


def test_iter_batches_is_an_arrow_stream_of_the_rows_it_has_not_yielded() -> None:
    prog = polydat.compile(SOURCE)
    it = prog.iter_batches(range(10, 10_010), batch_rows=3000, outputs=["k", "label"])
    first = next(it)
    assert first.num_rows == 3000 and first.column("label")[0].as_py() == "r10"
    rest = pa.RecordBatchReader.from_stream(it).read_all()
    assert rest.num_rows == 7000 and rest.column("label")[0].as_py() == "r3010"
    assert [b.num_rows for b in it] == [3000, 3000, 1000], "the iterator itself did not move"
    it.close()
    with pytest.raises(polydat.ArgumentError, match="closed"):
        it.__arrow_c_stream__()


def test_a_stream_checks_its_arguments_at_once_and_makes_no_row_until_read() -> None:
    prog = polydat.compile(SOURCE)
    with pytest.raises(polydat.UnknownNameError):
        prog.stream(range(10), outputs=["nope"])
    with pytest.raises(polydat.ArgumentError, match="batch_rows"):
        prog.stream(range(10), batch_rows=0)
    stream = prog.stream(range(10**7), batch_rows=1000)
    capsule = stream.__arrow_c_stream__()
    it = prog.iter_batches(range(10**7), batch_rows=1000)
    assert _producers() == 0, "no producer runs for a stream only looked at"
    assert next(it).num_rows == 1000 and _producers() == 1
    del capsule
    it.close()
    assert _producers() == 0, "closing stops the producer"


def _producers() -> int:
    """The batch producer threads of this process."""
    import os

    tasks = Path(f"/proc/{os.getpid()}/task")
    return sum((t / "comm").read_text().strip() == "polydat-batches" for t in tasks.iterdir())


def test_a_text_stream_has_no_arrow_stream() -> None:
    prog = polydat.compile(SOURCE)
    core = polydat._core.batches(prog._core, prog._run_plan(10, ["k"], None, 1, None), encode="csv")
    with pytest.raises(polydat.ArgumentError, match="text"):
        core.__arrow_c_stream__()


# A DuckDB aggregate over 10M streamed rows, in a process of its own so its
# peak RSS is its own. The two u64 columns of 10M rows hold 160 MB.
ROWS = 10_000_000
RSS_BOUND_MB = 100
STREAMED = textwrap.dedent(
    f"""
    import json, sys
    import duckdb, polydat

    def peak_mb():
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024

    prog = polydat.compile({SOURCE!r})
    stream = prog.stream(range({ROWS}), outputs=["k", "v"], threads=2)
    duckdb.sql("set enable_progress_bar = false")  # DuckDB's own start-up, before the baseline
    before = peak_mb()
    rows = duckdb.sql("select k, sum(v), count(*) from stream group by k order by k").fetchall()
    print(json.dumps({{"rows": rows, "before": before, "after": peak_mb()}}))
    """
)


def test_a_duckdb_aggregate_over_10m_streamed_rows_stays_in_bounded_memory() -> None:
    pytest.importorskip("duckdb")
    r = subprocess.run([sys.executable, "-c", STREAMED], capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout.splitlines()[-1])
    prog = polydat.compile(SOURCE)
    sums, counts = np.zeros(10, dtype=np.uint64), np.zeros(10, dtype=np.uint64)
    for first in range(0, ROWS, 1_000_000):
        cols = prog.generate(range(first, first + 1_000_000), outputs=["k", "v"])
        sums += np.bincount(cols["k"], weights=cols["v"], minlength=10).astype(np.uint64)
        counts += np.bincount(cols["k"], minlength=10).astype(np.uint64)
    assert got["rows"] == [[k, int(sums[k]), int(counts[k])] for k in range(10)]
    grew = got["after"] - got["before"]
    assert grew < RSS_BOUND_MB, f"peak RSS grew {grew:.0f} MB over {ROWS:,} rows (the columns hold 160 MB)"


def test_run_writes_an_arrow_ipc_stream_to_a_file_and_to_stdout(tmp_path: Path) -> None:
    program = tmp_path / "p.polydat"
    program.write_text(SOURCE)
    want = polydat.compile(SOURCE).generate(range(5000), outputs=["k", "label"], format="arrow")
    r = cli("run", str(program), "--cycles", "5000", "--outputs", "k,label", "--no-coordinate",
            "--format", "arrow", "-o", str(tmp_path / "rows.arrows"))
    assert r.returncode == 0, r.stderr
    with pa.ipc.open_stream(tmp_path / "rows.arrows") as reader:
        assert reader.read_all().equals(want)
    r = cli("run", str(program), "--cycles", "5000", "--outputs", "k,label", "--no-coordinate",
            "--format", "arrow", "-o", "-")
    assert r.returncode == 0, r.stderr.decode()
    assert pa.ipc.open_stream(r.stdout).read_all().equals(want)
    r = cli("run", str(program), "--cycles", "0", "--format", "arrow", "-o", "-")
    table = pa.ipc.open_stream(r.stdout).read_all()
    assert table.num_rows == 0 and table.column_names == ["cycle", "k", "v", "label"]


def test_a_workload_writes_arrow_ipc_streams(tmp_path: Path) -> None:
    shop = Path(__file__).resolve().parent.parent / "examples" / "shop" / "shop.yaml"
    r = cli("run", str(shop), "-o", str(tmp_path), "-p", "users=50", "--format", "arrow")
    assert r.returncode == 0, r.stderr.decode()
    tables = polydat.Workload.load(shop).with_params(users=50).tables()
    for name, table in tables.items():
        with pa.ipc.open_stream(tmp_path / f"{name}.arrow") as reader:
            assert reader.read_all().equals(table), name
