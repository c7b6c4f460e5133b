"""The CLI, run in a subprocess as a user would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "users.polydat"


def polydat(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "polydat.cli", *args], capture_output=True, text=True, cwd=cwd, timeout=120
    )


def test_run_csv_to_stdout():
    r = polydat("run", str(EXAMPLE), "--cycles", "0..5", "--outputs", "user_id,bucket")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "cycle,user_id,bucket"
    assert lines[1:] == ["0,607535,47", "1,822465,1", "2,348110,14", "3,139053,45", "4,603978,10"]


def test_run_jsonl_and_file_output(tmp_path: Path):
    out = tmp_path / "rows.jsonl"
    r = polydat("run", str(EXAMPLE), "--cycles", "3", "--format", "jsonl", "-o", str(out), "--threads", "2")
    assert r.returncode == 0, r.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [row["cycle"] for row in rows] == [0, 1, 2]
    assert rows[0]["label"] == "user-607535"
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".partial")]
    umask = os.umask(0)
    os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~umask, "the file gets ordinary permissions"


def test_failed_run_leaves_no_output_file(tmp_path: Path):
    src = tmp_path / "f.polydat"
    src.write_text("input cycle: u64\nc := in_range(cycle, 0, 5)\n")
    out = tmp_path / "out.csv"
    r = polydat("run", str(src), "--cycles", "0..100", "-o", str(out))
    assert r.returncode == 1
    assert "in_range: value 6 outside [0, 5]" in r.stderr
    assert "Traceback" not in r.stderr
    assert os.listdir(tmp_path) == ["f.polydat"]


def test_check_reports_diagnostics(tmp_path: Path):
    bad = tmp_path / "bad.polydat"
    bad.write_text("input cycle: u64\nx := hsah(cycle)\n")
    r = polydat("check", str(bad))
    assert r.returncode == 1
    assert "2:6:error: unknown node 'hsah'" in r.stderr
    assert "= hint: did you mean 'hash'?" in r.stderr
    ok = polydat("check", str(EXAMPLE))
    assert ok.returncode == 0 and "ok" in ok.stdout


def test_nodes_catalog_and_detail():
    r = polydat("nodes")
    assert r.returncode == 0 and "hash" in r.stdout
    r = polydat("nodes", "mod")
    assert "mod(input: u64, modulus: const u64) -> u64" in r.stdout
    r = polydat("nodes", "hsah")
    assert r.returncode == 2 and "did you mean 'hash'" in r.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["run", "missing.polydat", "--cycles", "0..3"],
        ["run", str(EXAMPLE), "--cycles", "5..1"],
        ["run", str(EXAMPLE), "--cycles", "abc"],
        ["run", str(EXAMPLE), "--cycles", "3", "--outputs", "nope"],
        ["run", str(EXAMPLE), "--cycles", "3", "--engine", "warp"],
    ],
)
def test_bad_invocations_fail_cleanly(args: list[str]):
    r = polydat(*args)
    assert r.returncode in (1, 2)
    assert "Traceback" not in r.stderr and r.stderr.strip()


def test_run_parquet(tmp_path: Path):
    import pyarrow.parquet as pq  # part of the test extra

    out = tmp_path / "rows.parquet"
    r = polydat("run", str(EXAMPLE), "--cycles", "0..70000", "--format", "parquet", "-o", str(out))
    assert r.returncode == 0, r.stderr
    table = pq.read_table(out)
    assert table.num_rows == 70000
    assert table.column("user_id")[:3].to_pylist() == [607535, 822465, 348110]
    assert table.column("label")[0].as_py() == "user-607535"


def test_parquet_needs_a_file():
    r = polydat("run", str(EXAMPLE), "--cycles", "3", "--format", "parquet")
    assert r.returncode == 2 and "needs an output file" in r.stderr


def test_progress_bar_on_request(tmp_path: Path):
    r = polydat("run", str(EXAMPLE), "--cycles", "0..200000", "-o", str(tmp_path / "o.csv"), "--progress", "always")
    assert r.returncode == 0, r.stderr
    assert "rows" in r.stderr and "200k" in r.stderr
    quiet = polydat("run", str(EXAMPLE), "--cycles", "0..10", "--progress", "never")
    assert quiet.stderr == ""


def test_float_text_matches_repr_for_every_float_corner():
    """The core's float text is Python's repr (numpy's str for f32), as the
    old Python writer had it."""
    import numpy as np
    from legacy_text import csv_text, jsonl_text, numpy_column

    from core_hooks import hooks
    from polydat.testing import F64_CORNERS

    rng = np.random.default_rng(7)
    floats = list(F64_CORNERS) + list(rng.standard_normal(2000) * 10.0 ** rng.integers(-30, 30, 2000))
    floats = [float(x) for x in floats] + [None]
    for fmt, legacy in (("csv", csv_text), ("jsonl", jsonl_text)):
        assert hooks._encode_column("f64", "x", floats, fmt) == legacy({"x": numpy_column("f64", floats)})
    ints = [0, 1, 2**63, 2**64 - 1]
    assert hooks._encode_column("u64", "n", ints, "csv") == b"n\n0\n1\n9223372036854775808\n18446744073709551615\n"


def test_the_command_line_starts_no_blas_threads_unless_asked(monkeypatch, capsys):
    # The command line does no linear algebra; a value the user set stands.
    from polydat import cli

    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    assert cli.main(["nodes"]) == 0
    assert os.environ["OPENBLAS_NUM_THREADS"] == "1"
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "3")
    assert cli.main(["nodes"]) == 0
    assert os.environ["OPENBLAS_NUM_THREADS"] == "3"
    capsys.readouterr()
