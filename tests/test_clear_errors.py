"""Clear errors (or the right answer) where a raw Python or Rust message
leaked: printf sizes, source files that are not UTF-8, row counts and
ranges past 2**63, a run of no columns, and the command line's runtime
failures (exit 1, one line naming the path)."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from pathlib import Path

import pytest

import polydat
from polydat import ArgumentError, CompileError, OutOfMemoryError, PolydatError

ROWS = "input cycle\nx := cycle\n"


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "polydat", *args], capture_output=True, text=True, timeout=300, cwd=cwd
    )


@pytest.mark.parametrize("spec", ["{:99999999999999999999}", "{:.99999999999999999999}"])
def test_a_printf_size_past_64_bits_is_a_clear_compile_error(spec: str) -> None:
    with pytest.raises(CompileError) as info:
        polydat.compile(f'input cycle\nx := printf("{spec}", cycle)')
    message = info.value.message
    assert "unwrap" not in message and "ParseIntError" not in message, message
    assert "too large" in message and ("width" in message or "precision" in message)


def test_a_source_file_that_is_not_utf8_names_the_file_and_the_place(tmp_path: Path) -> None:
    src = tmp_path / "bad.polydat"
    src.write_bytes(b"input cycle\nx := \"caf\xe9\"\n")
    with pytest.raises(CompileError) as info:
        polydat.compile_file(src)
    err = info.value
    assert (err.line, err.col) == (2, 10) and "UTF-8" in err.message
    assert str(src) in str(err)
    for command in (["run", str(src), "--cycles", "3"], ["check", str(src)]):
        r = cli(*command)
        assert r.returncode == 1, r.stderr
        assert f"{src}:2:10" in r.stderr and "UTF-8" in r.stderr and "Traceback" not in r.stderr


def test_a_workload_file_that_is_not_utf8_is_a_workload_error(tmp_path: Path) -> None:
    from polydat.workload import Workload, WorkloadError

    path = tmp_path / "w.yaml"
    path.write_bytes(b"phases:\n  t\xff:\n    cycles: 1\n")
    with pytest.raises(WorkloadError, match="UTF-8"):
        Workload.load(path)


def test_iter_batches_over_every_cycle_streams() -> None:
    prog = polydat.compile(ROWS)
    batches = prog.iter_batches(range(0, 2**64), batch_rows=4)
    first = next(batches)
    assert first.column("x").to_pylist() == [0, 1, 2, 3]
    tail = prog.iter_batches(range(2**64 - 3, 2**64), batch_rows=2)
    assert [b.column("x").to_pylist() for b in tail] == [[2**64 - 3, 2**64 - 2], [2**64 - 1]]


def test_a_batch_larger_than_the_run_is_the_run() -> None:
    prog = polydat.compile(ROWS)
    (only,) = list(prog.iter_batches(range(5), batch_rows=2**64))
    assert only.column("x").to_pylist() == [0, 1, 2, 3, 4]


def test_generate_of_more_rows_than_memory_is_out_of_memory() -> None:
    prog = polydat.compile(ROWS)
    for rows in (range(0, 2**64), range(0, 2**64, 1), (0, 2**64)):
        with pytest.raises(OutOfMemoryError, match="not enough memory"):
            prog.generate(rows)
    with pytest.raises(ArgumentError):
        prog.generate(range(0, 2**64 + 1))


def test_a_huge_for_each_range_is_iterated_lazily() -> None:
    k = polydat.compile("extern n: u64 = 3").kernel()
    kids = k.for_each("i in 0..18446744073709551615", "v := i")
    assert [c.iteration for c in itertools.islice(kids, 3)] == [{"i": 0}, {"i": 1}, {"i": 2}]
    pairs = k.for_each("i in 0..2, j in 0..18446744073709551615", "v := i + j")
    assert [c.iteration for c in itertools.islice(pairs, 2)] == [{"i": 0, "j": 0}, {"i": 0, "j": 1}]
    with pytest.raises(CompileError, match="different lengths"):
        next(iter(k.for_each("(a, b) in 0..18446744073709551615, 5..18446744073709551615", "v := a")))


def test_a_run_of_no_columns_keeps_its_rows() -> None:
    prog = polydat.compile(ROWS)
    table = prog.generate(range(3), outputs=[], format="arrow")
    assert table.num_rows == 3 and table.num_columns == 0


def test_dask_over_every_cycle_and_with_no_outputs() -> None:
    pytest.importorskip("dask.dataframe")
    from polydat.dask import from_program, partition_ranges

    prog = polydat.compile(ROWS)
    parts = partition_ranges(range(0, 2**64), 4)
    assert [p.start for p in parts] == [0, 2**62, 2**63, 3 * 2**62] and parts[-1].stop == 2**64
    frame = from_program(prog, range(0, 2**64), npartitions=4)
    assert frame.npartitions == 4
    empty = from_program(prog, range(4), outputs=[], coordinate_column=False).compute()
    assert len(empty) == 4 and list(empty.columns) == []
    cycles = from_program(prog, range(4), outputs=[]).compute()
    assert cycles["cycle"].tolist() == [0, 1, 2, 3]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_disk_exits_1_naming_the_path(tmp_path: Path) -> None:
    src = tmp_path / "p.polydat"
    src.write_text(ROWS)
    r = cli("run", str(src), "--cycles", "100000", "-o", "/dev/full")
    assert r.returncode == 1, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "/dev/full" in lines[0] and "No space left" in lines[0], r.stderr


def test_a_missing_directory_or_file_exits_1_naming_the_path(tmp_path: Path) -> None:
    src = tmp_path / "p.polydat"
    src.write_text(ROWS)
    nowhere = tmp_path / "nowhere" / "out.csv"
    for args, path in (
        (["run", str(src), "--cycles", "3", "-o", str(nowhere)], str(nowhere.parent)),
        (["run", str(tmp_path / "missing.polydat"), "--cycles", "3"], str(tmp_path / "missing.polydat")),
        (["check", str(tmp_path / "missing.polydat")], str(tmp_path / "missing.polydat")),
    ):
        r = cli(*args)
        assert r.returncode == 1, (args, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and path in lines[0] and "Traceback" not in r.stderr, r.stderr


def test_usage_errors_still_exit_2(tmp_path: Path) -> None:
    src = tmp_path / "p.polydat"
    src.write_text(ROWS)
    assert cli("run", str(src), "--cycles", "abc").returncode == 2
    assert cli("run", str(src), "--cycles", "3", "-o", str(tmp_path)).returncode == 2


def test_every_one_is_a_polydat_error() -> None:
    assert issubclass(OutOfMemoryError, PolydatError) and issubclass(OutOfMemoryError, MemoryError)
