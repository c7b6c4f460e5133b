"""What a workload run writes: only inside ``-o DIR`` (a phase name is a
table name, never a path), and every phase's table or none of them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from polydat.workload import Phase, Workload, WorkloadError


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "polydat.cli", *args], capture_output=True, text=True, timeout=300, cwd=cwd
    )


def workload_text(phase: str) -> str:
    return f"phases:\n  {phase}:\n    cycles: 3\n    bindings: |\n      x := cycle\n"


@pytest.mark.parametrize(
    "name",
    ['"../precious"', '"/ABSOLUTE/precious"', '"sub/table"', '"sub\\\\table"', '".."', '"."', '""'],
    ids=["parent", "absolute", "separator", "backslash", "dotdot", "dot", "empty"],
)
def test_a_phase_name_that_is_a_path_is_refused_at_load_time(tmp_path: Path, name: str) -> None:
    (tmp_path / "precious.csv").write_text("keep me\n")
    absolute = tmp_path / "abs"
    absolute.mkdir()
    text = workload_text(name.replace("/ABSOLUTE", str(absolute)))
    (tmp_path / "w.yaml").write_text(text)
    with pytest.raises(WorkloadError) as info:
        Workload.load(tmp_path / "w.yaml")
    assert "phase name" in str(info.value) and "w.yaml:2:" in str(info.value), str(info.value)
    out = tmp_path / "out"
    r = cli("run", str(tmp_path / "w.yaml"), "-o", str(out), cwd=tmp_path)
    assert r.returncode == 1 and "phase name" in r.stderr, r.stderr
    assert (tmp_path / "precious.csv").read_text() == "keep me\n"
    assert list(absolute.iterdir()) == []
    assert not out.exists() or list(out.iterdir()) == []


def test_a_phase_made_in_python_with_a_path_for_a_name_is_refused(tmp_path: Path) -> None:
    with pytest.raises(WorkloadError, match="phase name"):
        Phase("../precious")
    with pytest.raises(WorkloadError, match="phase name"):
        Workload.from_dict({"phases": [{"name": "a/b", "cycles": 1}]})


TWO_PHASES = """\
params:
  version: 1
  runs: 1
phases:
  first:
    cycles: 3
    bindings: |
      x := cycle + version
  second:
    for_each: "i in 0..{runs}"
    cycles: 1000
    bindings: |
      y := cycle
"""


def test_sigterm_during_a_workload_leaves_every_old_table(tmp_path: Path) -> None:
    import signal
    import time

    (tmp_path / "w.yaml").write_text(TWO_PHASES)
    out = tmp_path / "out"
    r = cli("run", str(tmp_path / "w.yaml"), "-o", str(out))
    assert r.returncode == 0, r.stderr
    old = {p.name: p.read_text() for p in out.iterdir()}
    assert sorted(old) == ["first.csv", "second.csv"]
    run = subprocess.Popen(
        [sys.executable, "-m", "polydat.cli", "run", str(tmp_path / "w.yaml"), "-o", str(out)]
        + ["-p", "version=2", "-p", "runs=100000"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        # Wait until the second table is being written (its temporary file exists).
        while not any(p.name.startswith(".second.csv.") for p in out.iterdir()):
            assert run.poll() is None, run.communicate()
            time.sleep(0.01)
        run.send_signal(signal.SIGTERM)
        _, err = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 128 + signal.SIGTERM, err
    assert {p.name: p.read_text() for p in out.iterdir()} == old, "no new table, no temporary file"


def test_a_finished_workload_replaces_every_table(tmp_path: Path) -> None:
    (tmp_path / "w.yaml").write_text(TWO_PHASES)
    out = tmp_path / "out"
    for version in ("1", "2"):
        r = cli("run", str(tmp_path / "w.yaml"), "-o", str(out), "-p", f"version={version}")
        assert r.returncode == 0, r.stderr
    assert (out / "first.csv").read_text() == "x\n2\n3\n4\n"
    assert sorted(p.name for p in out.iterdir()) == ["first.csv", "second.csv"]


TWO_TABLES = """
phases:
  first:
    cycles: 20000
    bindings: |
      a := cycle
      t := "row {cycle}"
  second:
    cycles: 30
    bindings: |
      b := cycle * 2
"""


def _whole(w: Workload, phase: str, fmt: str, tmp_path: Path) -> bytes:
    alone = tmp_path / f"alone-{phase}.{fmt}"
    with open(alone, "wb") as f:
        w.write(phase, f, fmt)
    return alone.read_bytes()


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet", "arrow"])
def test_tables_written_one_after_another_into_one_file_follow_each_other(tmp_path: Path, fmt: str) -> None:
    """The core appends text to a regular file through a descriptor of its
    own; the caller's file object must then continue after those bytes,
    not overwrite them from where it stood."""
    (tmp_path / "w.yaml").write_text(TWO_TABLES)
    w = Workload.load(tmp_path / "w.yaml")
    both = tmp_path / f"both.{fmt}"
    with open(both, "wb") as f:
        f.write(b"HEAD\n")
        assert w.write("first", f, fmt) == 20000
        assert w.write("second", f, fmt) == 30
        f.write(b"TAIL\n")
    expected = b"HEAD\n" + _whole(w, "first", fmt, tmp_path) + _whole(w, "second", fmt, tmp_path) + b"TAIL\n"
    assert both.read_bytes() == expected


def test_a_file_object_inside_its_file_is_written_where_it_stands(tmp_path: Path) -> None:
    """Appending is not writing at the position of a file object that stands
    before the file's end: such a file is written through the file object."""
    (tmp_path / "w.yaml").write_text(TWO_TABLES)
    w = Workload.load(tmp_path / "w.yaml")
    text = _whole(w, "first", "csv", tmp_path)
    target = tmp_path / "inside.csv"
    target.write_bytes(b"x" * (len(text) + 100))
    with open(target, "r+b") as f:
        f.seek(10)
        w.write("first", f, "csv")
        assert f.tell() == 10 + len(text)
    assert target.read_bytes() == b"x" * 10 + text + b"x" * 90



WALKED = """phases:
  region:
    for_each: "(key, name) in (0, 1, 2), (A, B, C)"
    bindings: |
      r_key := key as i64
      r_size := (key + 1) as i32
      r_day := "1992-01-01" as date + key
    emit: [r_key, name, r_size, r_day]
"""


def test_a_walked_phase_writes_its_declared_types_and_required_fields_to_parquet(tmp_path: Path) -> None:
    """A phase whose scopes are walked one by one (for_each over a list) writes
    each column as its declared type, and a column no row can hold None in as
    required, as a phase the core runs whole does (issue 43 item 2)."""
    import pyarrow.parquet as pq

    (tmp_path / "w.yaml").write_text(WALKED)
    r = cli("run", str(tmp_path / "w.yaml"), "-o", str(tmp_path / "out"), "--format", "parquet")
    assert r.returncode == 0, r.stderr
    schema = pq.read_schema(tmp_path / "out" / "region.parquet")
    assert [(f.name, str(f.type), f.nullable) for f in schema] == [
        ("r_key", "int64", False), ("name", "string", False), ("r_size", "int32", False),
        ("r_day", "date32[day]", False),
    ]


def test_decimals_of_at_most_18_digits_are_stored_in_parquet_as_integers(tmp_path: Path) -> None:
    import decimal
    import inspect

    pq = pytest.importorskip("pyarrow.parquet")
    if "store_decimal_as_integer" not in inspect.signature(pq.ParquetWriter.__init__).parameters:
        pytest.skip("this pyarrow stores every decimal as a fixed-length byte array")
    (tmp_path / "w.yaml").write_text(
        "phases:\n"
        "  money:\n"
        "    cycles: 3000\n"
        "    bindings: |\n"
        "      small := (cycle as decimal(13, 0)) * 0.01d\n"
        "      wide := (cycle as decimal(30, 0)) * 0.01d\n"
        "    emit: [small, wide]\n"
    )
    with open(tmp_path / "money.parquet", "wb") as f:
        Workload.load(tmp_path / "w.yaml").write("money", f, "parquet")
    meta = pq.ParquetFile(tmp_path / "money.parquet").metadata
    physical = {meta.schema.column(i).name: meta.schema.column(i).physical_type for i in range(meta.num_columns)}
    assert physical == {"small": "INT64", "wide": "FIXED_LEN_BYTE_ARRAY"}
    table = pq.read_table(tmp_path / "money.parquet")
    assert [table.schema.field(n).type.scale for n in ("small", "wide")] == [2, 2]
    assert table.column("small").to_pylist()[-2:] == [decimal.Decimal("29.98"), decimal.Decimal("29.99")]
    assert table.column("small").to_pylist() == table.column("wide").to_pylist()
