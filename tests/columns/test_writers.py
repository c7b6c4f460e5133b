"""``polydat run``'s writers: CSV and JSONL bytes as pinned (the core encodes
them exactly as the old Python writers did), Parquet typed by the declared
types, memory bounded by the batch, generation on ``--threads`` workers."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import ALL_TYPES, ALL_TYPES_INPUTS, ALL_TYPES_SETS, DATA, EXAMPLE, NULLS
from hypothesis import given, settings
from hypothesis import strategies as st
from legacy_text import csv_text, jsonl_text, numpy_column

import polydat
from polydat import cli

from core_hooks import hooks


def run(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "polydat", *args], capture_output=True, timeout=300)


PINNED = [
    ("all_types.csv", [str(ALL_TYPES), "--cycles", "0..300", *ALL_TYPES_SETS]),
    ("all_types.jsonl", [str(ALL_TYPES), "--cycles", "0..300", *ALL_TYPES_SETS, "--format", "jsonl"]),
    ("all_types_word.csv", [str(ALL_TYPES), "--cycles", "0..100", *ALL_TYPES_SETS, "--outputs", "word",
                            "--no-coordinate"]),
    ("users.csv", [str(EXAMPLE), "--cycles", "1000..1500"]),
    ("users.jsonl", [str(EXAMPLE), "--cycles", "1000..1500", "--format", "jsonl"]),
]


@pytest.mark.parametrize("threads", ["1", "3"])
@pytest.mark.parametrize(("pinned", "args"), PINNED, ids=[p for p, _ in PINNED])
def test_text_output_is_byte_for_byte_the_pinned_output(pinned: str, args: list[str], threads: str):
    """The files under tests/data were written by the Python writers before
    the core encoded text; the bytes must not change."""
    r = run("run", *args, "--threads", threads)
    assert r.returncode == 0, r.stderr
    assert r.stdout == (DATA / pinned).read_bytes()


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_batch_boundaries_do_not_show_in_the_text(fmt: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    monkeypatch.setattr(cli, "BATCH_ROWS", 7)
    out = tmp_path / f"rows.{fmt}"
    args = ["run", str(ALL_TYPES), "--cycles", "0..300", *ALL_TYPES_SETS, "--format", fmt, "-o", str(out)]
    assert cli.main([*args, "--threads", "2", "--progress", "never"]) == 0
    assert out.read_bytes() == (DATA / f"all_types.{fmt}").read_bytes()


# Every declared type, with absent rows, through the core's encoder and the old Python writer.
VALUES = {
    "u64": st.integers(0, 2**64 - 1),
    "i64": st.integers(-(2**63), 2**63 - 1),
    "u32": st.integers(0, 2**32 - 1),
    "i32": st.integers(-(2**31), 2**31 - 1),
    "f64": st.floats(allow_nan=True, allow_infinity=True),
    "f32": st.floats(width=32, allow_nan=False),
    "bool": st.booleans(),
    # (texts around the 32-byte block CSV copies short texts in, and the bytes it quotes for)
    "str": st.text(st.one_of(st.sampled_from(',"\n a'), st.characters(exclude_categories=("Cs",))), max_size=40),
    "bytes": st.binary(max_size=8),
}


@pytest.mark.parametrize("type_name", list(VALUES))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_the_core_encodes_every_type_as_the_old_writers_did(type_name: str, data: st.DataObject):
    values = data.draw(st.lists(st.one_of(st.none(), VALUES[type_name]), max_size=12), label="values")
    column = numpy_column(type_name, values)
    for fmt, legacy in (("csv", csv_text), ("jsonl", jsonl_text)):
        got = hooks._encode_column(type_name, "v", values, fmt)
        assert got == legacy({"v": column}), (fmt, values)


def test_csv_quoting_and_float_corners_as_python_writes_them():
    values = ["", "a,b", 'q"x', "two\nlines", "cr\ronly", " lead", "é😀", None]
    assert hooks._encode_column("str", "s", values, "csv") == csv_text({"s": numpy_column("str", values)})
    text = hooks._encode_column("str", "s", values, "csv")
    assert text.startswith(b's\n""\n') and text.endswith(b'\n""\n'), "a lone empty or absent field is \"\""
    floats = [0.0, -0.0, 1e16, 1e-5, 1e-4, 123.0, float("nan"), float("inf"), -float("inf"), 5e-324]
    assert hooks._encode_column("f64", "x", floats, "csv") == (
        b"x\n0.0\n-0.0\n1e+16\n1e-05\n0.0001\n123.0\nnan\ninf\n-inf\n5e-324\n"
    )
    assert hooks._encode_column("f64", "x", floats[6:9], "jsonl") == (
        b'{"x": "NaN"}\n{"x": "Infinity"}\n{"x": "-Infinity"}\n'
    )


def plan(prog: polydat.Program, cycles: range, inputs: dict[str, object], fmt: str) -> cli.RunPlan:
    return cli.RunPlan(prog, cycles, list(prog.outputs), inputs, "cycle", fmt, 2, "never")


def test_absent_values_in_text_as_before():
    prog = polydat.compile(NULLS)
    none = {"tag": None, "n": None, "x": None, "b": None}
    for fmt, legacy in (("csv", csv_text), ("jsonl", jsonl_text)):
        out = io.BytesIO()
        assert cli.write_rows(plan(prog, range(4, 9), none, fmt), out) == 5
        cols = {"cycle": np.arange(4, 9, dtype=np.uint64), **prog.generate(range(4, 9), inputs=none)}
        assert out.getvalue() == legacy(cols)
    out = io.BytesIO()
    cli.write_rows(plan(prog, range(2), none, "csv"), out)
    assert out.getvalue().splitlines()[1] == b"0,16294208416658607535,untagged,,,,"


def test_parquet_has_the_declared_types_and_an_all_null_column(tmp_path: Path):
    prog = polydat.compile(NULLS)
    inputs = {"tag": None, "n": None, "x": 2.5, "b": None}
    with open(tmp_path / "nulls.parquet", "wb") as out:
        assert cli.write_parquet(plan(prog, range(100_000), inputs, "parquet"), out) == 100_000
    table = pq.read_table(tmp_path / "nulls.parquet")
    assert table.schema.field("cycle").type == pa.uint64()
    assert table.schema.field("maybe_n").type == pa.uint64() and table.column("maybe_n").null_count == 100_000
    assert table.schema.field("maybe_tag").type == pa.string() and table.column("maybe_tag").null_count == 100_000
    assert table.schema.field("maybe_b").type == pa.bool_() and table.column("maybe_b").null_count == 100_000
    assert table.column("maybe_x").to_pylist() == [2.5] * 100_000
    assert pq.ParquetFile(tmp_path / "nulls.parquet").metadata.num_row_groups == 2, "a row group per batch"


def test_parquet_from_the_command_line_reads_back_with_every_declared_type(tmp_path: Path):
    out = tmp_path / "all.parquet"
    r = run("run", str(ALL_TYPES), "--cycles", "0..300", *ALL_TYPES_SETS, "--format", "parquet", "-o", str(out),
            "--threads", "2")
    assert r.returncode == 0, r.stderr
    table = pq.read_table(out)
    prog = polydat.compile_file(ALL_TYPES)
    expected = prog.generate(range(300), inputs=ALL_TYPES_INPUTS, format="arrow")
    assert table.schema.field("cycle").type == pa.uint64()
    fields = [(f.name, f.type, f.metadata) for f in table.drop_columns(["cycle"]).schema]
    assert fields == [(f.name, f.type, f.metadata) for f in expected.schema], "types and the json mark as declared"
    assert not [f.name for f in table.schema if f.nullable], "no row can be None: every field required, json too"
    for name in expected.column_names:
        got, want = table.column(name).to_pylist(), expected.column(name).to_pylist()
        assert [str(v) for v in got] == [str(v) for v in want], name
    empty = tmp_path / "empty.parquet"
    assert run("run", str(EXAMPLE), "--cycles", "0", "--format", "parquet", "-o", str(empty)).returncode == 0
    assert pq.read_table(empty).num_rows == 0 and pq.read_schema(empty).field("label").type == pa.string()


def test_the_writers_stream_with_bounded_memory(tmp_path: Path):
    """A 3M-row CSV run keeps its resident memory near that of a tiny run:
    the rows are never all in memory."""
    script = (
        "import resource, sys\n"
        "from polydat.cli import main\n"
        "code = main(sys.argv[1:])\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
        "sys.exit(code)\n"
    )

    def peak_kib(cycles: str) -> int:
        r = subprocess.run(
            [sys.executable, "-c", script, "run", str(EXAMPLE), "--cycles", cycles, "-o", str(tmp_path / "o.csv"),
             "--threads", "2", "--progress", "never"],
            capture_output=True, text=True, timeout=600,
        )
        assert r.returncode == 0, r.stderr
        return int(r.stdout.split()[-1])

    small, large = peak_kib("1000"), peak_kib("3M")
    assert (tmp_path / "o.csv").stat().st_size > 150_000_000
    assert large - small < 120_000, f"peak RSS grew by {large - small} KiB for 3M rows"


def _parquet_encodings(batches: list[pa.RecordBatch], path: Path) -> dict[str, tuple[str, ...]]:
    """Writes ``batches`` with the writer the CLI and workloads use, checks
    they read back equal, and returns each column's encodings."""
    from polydat.stream import write_parquet_batches

    with open(path, "wb") as out:
        rows = sum(b.num_rows for b in batches)
        assert write_parquet_batches(out, [(b, b.num_rows) for b in batches], lambda: batches[0].schema) == rows
    assert pq.read_table(path).equals(pa.Table.from_batches(batches))
    meta = pq.ParquetFile(path).metadata
    return {meta.schema.column(i).name: meta.row_group(0).column(i).encodings for i in range(meta.num_columns)}


def test_parquet_encodes_each_column_by_how_its_first_rows_vary(tmp_path: Path) -> None:
    rows = 4096
    mixed = np.random.default_rng(7).integers(0, 2**64 - 1, rows, dtype=np.uint64, endpoint=True)
    batch = pa.record_batch({
        "few": pa.array([float(i % 50) for i in range(rows)]),  # 50 values: dictionary
        "key": pa.array(range(rows), pa.uint64()),  # close to one another: delta
        "day": pa.array([19000 + (i * 7919) % 2500 for i in range(rows)], pa.date32()),  # a few thousand days: delta
        "hashed": pa.array(mixed),  # full-width values: plain
        "price": pa.array([i * 0.37 for i in range(rows)]),  # floats that do not repeat: plain
        "gaps": pa.array([None if i % 3 == 0 else i for i in range(rows)], pa.int64()),  # nulls: never delta
        "flag": pa.array([i % 2 == 0 for i in range(rows)]),  # a bool is bits already
        "word": pa.array([f"w{i % 300}" for i in range(rows)]),  # text that repeats: dictionary
        "name": pa.array([f"n{i}" for i in range(rows)]),  # text that does not: plain
    })
    encoded = _parquet_encodings([batch, batch], tmp_path / "numbers.parquet")
    assert "RLE_DICTIONARY" in encoded["few"] and "RLE_DICTIONARY" in encoded["word"], encoded
    assert "DELTA_BINARY_PACKED" in encoded["key"] and "DELTA_BINARY_PACKED" in encoded["day"], encoded
    for plain in ("hashed", "price", "gaps", "flag", "name"):
        assert "RLE_DICTIONARY" not in encoded[plain] and "DELTA_BINARY_PACKED" not in encoded[plain], encoded
    # A first batch too short to judge: its numbers stay plain.
    encoded = _parquet_encodings([batch.slice(0, 100)], tmp_path / "short.parquet")
    assert not any("DELTA_BINARY_PACKED" in e or "RLE_DICTIONARY" in e for c, e in encoded.items() if c not in ("word", "name"))


def test_parquet_writing_leaves_pandas_unimported(tmp_path: Path) -> None:
    """Choosing the columns' encodings reads the sampled rows' buffers with
    numpy: pyarrow's ``to_numpy`` would import pandas when it is installed,
    a quarter of a second of CPU for every ``polydat run``."""
    pytest.importorskip("pandas")
    source = tmp_path / "dated.polydat"
    source.write_text("input cycle: u64\nday := (19000 + cycle % 400) as date\nkey := cycle * 3\nx := to_f64(cycle % 7)\n")
    code = (
        "import sys\nfrom polydat import cli\n"
        f"assert cli.main(['run', {str(source)!r}, '--cycles', '5000', '--format', 'parquet', "
        f"'-o', {str(tmp_path / 'dated.parquet')!r}, '--progress', 'never']) == 0\n"
        "print('pandas' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False", done.stdout + done.stderr
    assert pq.read_metadata(tmp_path / "dated.parquet").num_rows == 5000


def test_a_json_column_leaves_the_other_parquet_columns_as_they_are(tmp_path: Path) -> None:
    # issue 44 item 17: one json output made every column optional and sent
    # the picks as plain strings; nullability and encoding are per column.
    source = tmp_path / "p.polydat"
    common = 'input cycle\nid := cycle\ncolor := one_of(cycle, "red", "green", "blue")\nname := "n{cycle}"\n'
    source.write_text(common + "doc := to_json(cycle)\n")
    prog = polydat.compile_file(source)
    with_json, without = tmp_path / "with.parquet", tmp_path / "without.parquet"
    for outputs, path in (("id,color,name,doc", with_json), ("id,color,name", without)):
        r = run("run", str(source), "--cycles", "5000", "--outputs", outputs, "-o", str(path))
        assert r.returncode == 0, r.stderr

    def columns(path: Path) -> dict[str, tuple[bool, tuple[str, ...]]]:
        meta = pq.ParquetFile(path).metadata
        return {meta.schema.column(i).name: (meta.schema.column(i).max_definition_level == 0,
                                             meta.row_group(0).column(i).encodings) for i in range(meta.num_columns)}

    plain = columns(without)
    assert all(required for required, _ in plain.values()), "no row of these can be None"
    assert {k: v for k, v in columns(with_json).items() if k != "doc"} == plain
    back = pq.read_table(with_json)
    assert back.schema.field("doc").metadata == {b"polydat.type": b"json"}, "the json column is still marked"
    assert back.schema.field("color").type == pa.string() and not back.schema.field("color").nullable
    assert back.drop_columns(["cycle"]).cast(prog.arrow_schema(["id", "color", "name", "doc"])).equals(
        prog.generate(range(5000), outputs=["id", "color", "name", "doc"], format="arrow")
    )
