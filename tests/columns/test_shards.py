"""``polydat run --parts N --part I``: contiguous coordinate ranges whose
outputs, concatenated in order (a CSV part's header, which every part has,
kept once), are the unsharded output byte for byte."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import ALL_TYPES, ALL_TYPES_SETS, EXAMPLE

from polydat.cli import main, part_path, part_range


def joined(pieces: list[bytes], fmt: str = "csv") -> bytes:
    """The parts' text in order, the header line every CSV part starts with
    kept only from the first."""
    if fmt != "csv":
        return b"".join(pieces)
    return pieces[0] + b"".join(p.split(b"\n", 1)[1] for p in pieces[1:])


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "polydat", *args], capture_output=True, timeout=300, cwd=cwd)


def test_parts_cover_the_range_in_order():
    for cycles in (range(0, 10), range(5, 6), range(3, 3), range(7, 1000), range(0, 2**64)):
        for parts in (1, 2, 3, 7, 11):
            ranges = [part_range(cycles, parts, i) for i in range(parts)]
            assert ranges[0].start == cycles.start and ranges[-1].stop == cycles.stop
            assert all(a.stop == b.start for a, b in zip(ranges, ranges[1:]))
            sizes = [r.stop - r.start for r in ranges]
            assert max(sizes) - min(sizes) <= 1
    assert part_path("out/rows.csv", 3, 8) == "out/rows-00003-of-00008.csv"
    assert part_path("rows", 0, 1) == "rows-00000-of-00001"


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
@pytest.mark.parametrize("parts", [1, 3, 7, 40])
def test_concatenated_parts_are_the_unsharded_output(fmt: str, parts: int, tmp_path: Path):
    args = ["run", str(ALL_TYPES), "--cycles", "5..37", *ALL_TYPES_SETS, "--format", fmt, "--progress", "never"]
    assert main([*args, "-o", str(tmp_path / f"whole.{fmt}")]) == 0
    assert main([*args, "--parts", str(parts), "--threads", "2", "-o", str(tmp_path / f"rows.{fmt}")]) == 0
    pieces = [(tmp_path / part_path(f"rows.{fmt}", i, parts)).read_bytes() for i in range(parts)]
    assert joined(pieces, fmt) == (tmp_path / f"whole.{fmt}").read_bytes()
    if fmt == "csv":
        assert all(p.startswith(b"cycle,h,u,") for p in pieces), "every part has the header"


def test_one_part_to_standard_output():
    args = ["run", str(EXAMPLE), "--cycles", "0..100"]
    pieces = [run(*args, "--parts", "3", "--part", str(i)).stdout for i in range(3)]
    assert joined(pieces) == run(*args).stdout
    assert pieces[1].split(b"\n")[1].startswith(b"33,")


def test_parts_go_to_files_with_deterministic_names(tmp_path: Path):
    r = run("run", str(EXAMPLE), "--cycles", "0..1000", "--parts", "4", "-o", str(tmp_path / "rows.csv"))
    assert r.returncode == 0, r.stderr
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [f"rows-0000{i}-of-00004.csv" for i in range(4)]
    whole = run("run", str(EXAMPLE), "--cycles", "0..1000").stdout
    assert joined([(tmp_path / n).read_bytes() for n in names]) == whole



def test_one_part_goes_to_exactly_the_path_given(tmp_path: Path):
    """``--part I -o PATH`` writes PATH itself: the part-numbered names are
    for ``--parts N`` writing every part."""
    r = run("run", str(EXAMPLE), "--cycles", "0..1000", "--parts", "4", "-o", str(tmp_path / "rows.csv"))
    assert r.returncode == 0, r.stderr
    one = run("run", str(EXAMPLE), "--cycles", "0..1000", "--parts", "4", "--part", "2", "-o",
              str(tmp_path / "again.csv"))
    assert one.returncode == 0, one.stderr
    assert not (tmp_path / "again-00002-of-00004.csv").exists()
    assert (tmp_path / "again.csv").read_bytes() == (tmp_path / "rows-00002-of-00004.csv").read_bytes()


def test_parquet_parts_read_back_as_the_whole_table(tmp_path: Path):
    r = run("run", str(EXAMPLE), "--cycles", "0..5000", "--parts", "3", "--format", "parquet", "-o",
            str(tmp_path / "rows.parquet"))
    assert r.returncode == 0, r.stderr
    whole = tmp_path / "whole.parquet"
    assert run("run", str(EXAMPLE), "--cycles", "0..5000", "--format", "parquet", "-o", str(whole)).returncode == 0
    parts = [pq.read_table(tmp_path / f"rows-0000{i}-of-00003.parquet") for i in range(3)]
    assert pa.concat_tables(parts).equals(pq.read_table(whole))


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--part", "1"], "--part needs --parts"),
        (["--parts", "3", "--part", "3"], "parts are numbered 0..2"),
        (["--parts", "0"], "at least 1"),
        (["--parts", "2"], "one file per part: give -o PATH"),
        (["--parts", "2", "--part", "-1"], "must be a part number"),
    ],
)
def test_bad_part_requests_are_usage_errors(extra: list[str], message: str):
    r = run("run", str(EXAMPLE), "--cycles", "10", *extra)
    assert r.returncode == 2 and message in r.stderr.decode() and r.stdout == b""
