"""A text with a line break, a bare carriage return included, is one CSV
field to every reader: Python's ``csv``, polars and DuckDB. A bare ``\\r``
went unquoted: Python's reader split the row, polars read ``ab`` and DuckDB
refused the file."""

from __future__ import annotations

import csv
import io
import subprocess
import sys
from pathlib import Path

import pytest

TEXTS = ["a\rb", "a\nb", "a\r\nb", "\r", "x,y", 'q"z', "plain", "a" * 40 + "\r" + "b" * 40]


def _written(tmp_path: Path) -> Path:
    """The texts, one a row, written by `polydat run` to a CSV file (each set
    from the command line: `--set 's=a<CR>b'`, as a user gives it)."""
    program = tmp_path / "texts.polydat"
    externs = "".join(f'extern s{i}: str = ""\n' for i in range(len(TEXTS)))
    choice = f"s{len(TEXTS) - 1}"
    for i in range(len(TEXTS) - 2, -1, -1):
        choice = f"if cycle == {i} {{ s{i} }} else {{ {choice} }}"
    program.write_text(f"input cycle\n{externs}v := {choice}\n")
    out = tmp_path / "texts.csv"
    sets = [arg for i, t in enumerate(TEXTS) for arg in ("--set", f"s{i}={t}")]
    done = subprocess.run(
        [sys.executable, "-m", "polydat", "run", str(program), "--cycles", f"0..{len(TEXTS)}", "-o", str(out), *sets],
        capture_output=True, text=True,
    )
    assert done.returncode == 0, done.stderr
    return out


def test_every_reader_reads_each_text_back(tmp_path: Path) -> None:
    out = _written(tmp_path)
    rows = list(csv.reader(io.StringIO(out.read_bytes().decode(), newline="")))
    assert rows == [["cycle", "v"], *([str(i), t] for i, t in enumerate(TEXTS))]
    polars = pytest.importorskip("polars")
    assert polars.read_csv(out)["v"].to_list() == TEXTS
    duckdb = pytest.importorskip("duckdb")
    assert [r[0] for r in duckdb.sql(f"select v from read_csv('{out}') order by cycle").fetchall()] == TEXTS
