"""``generate(format="arrow")`` and ``iter_batches``: the core's Arrow-layout
columns, typed by the declared types, in batches, to pyarrow, polars and pandas."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from conftest import ALL_TYPES, ALL_TYPES_INPUTS, EXAMPLE, NULLS

import polydat

ARROW_TYPES = {
    "u64": "uint64",
    "i64": "int64",
    "u32": "uint32",
    "i32": "int32",
    "f64": "double",
    "f32": "float",
    "bool": "bool",
    "str": "string",
    "json": "string",
    "bytes": "binary",
}
"""The Arrow type of each declared type (every field nullable; a ``json``
field's metadata says ``polydat.type: json``)."""


@pytest.fixture(scope="module")
def all_types() -> polydat.Program:
    return polydat.compile_file(ALL_TYPES)


def test_column_types_come_from_the_declared_types(all_types: polydat.Program):
    table = all_types.generate(range(50), inputs=ALL_TYPES_INPUTS, format="arrow")
    assert isinstance(table, pa.Table)
    expected = {name: pa.type_for_alias(ARROW_TYPES[ty]) for name, ty in all_types.outputs.items()}
    assert {f.name: f.type for f in table.schema} == expected
    assert table.schema.field("meta").metadata == {b"polydat.type": b"json"}
    assert table.schema == all_types.arrow_schema()
    # Even a run of no rows has the declared types.
    assert all_types.generate(range(0), inputs=ALL_TYPES_INPUTS, format="arrow").schema == table.schema


def test_arrow_values_equal_the_numpy_columns(all_types: polydat.Program):
    rows = range(3, 700, 3)
    table = all_types.generate(rows, inputs=ALL_TYPES_INPUTS, format="arrow", threads=2)
    cols = all_types.generate(rows, inputs=ALL_TYPES_INPUTS)
    for name in all_types.outputs:
        got, want = table.column(name).to_pylist(), cols[name].tolist()
        if all_types.outputs[name] == "f64":
            assert np.array_equal(np.array(got), np.array(want), equal_nan=True), name
        elif all_types.outputs[name] == "f32":
            assert np.array_equal(np.array(got, np.float32), cols[name]), name
        else:
            assert got == want, name


def test_strings_are_arrow_buffers_not_python_objects():
    prog = polydat.compile_file(EXAMPLE)
    table = prog.generate(range(1000), outputs=["label"], format="arrow")
    chunk = table.column("label").chunk(0)
    validity, offsets, data = chunk.buffers()
    assert validity is None and offsets.size == 4 * 1001
    assert data.to_pybytes().startswith(b"user-607535user-822465")
    assert chunk.to_pylist() == prog.generate(range(1000), outputs=["label"])["label"].tolist()


def test_absent_values_are_nulls_of_the_declared_type():
    prog = polydat.compile(NULLS)
    none = {"tag": None, "n": None, "x": None, "b": None}
    table = prog.generate(range(20), inputs=none, format="arrow")
    assert table.schema.field("maybe_n").type == pa.uint64() and table.column("maybe_n").null_count == 20
    assert table.schema.field("maybe_x").type == pa.float64() and table.column("maybe_x").null_count == 20
    assert table.schema.field("maybe_b").type == pa.bool_() and table.column("maybe_b").null_count == 20
    assert table.schema.field("maybe_tag").type == pa.string() and table.column("maybe_tag").null_count == 20
    assert table.column("label").to_pylist() == ["untagged"] * 20
    # numpy: a scalar column with absent rows stays its dtype, masked; strings hold None.
    cols = prog.generate(range(20), inputs=none)
    assert isinstance(cols["maybe_n"], np.ma.MaskedArray) and cols["maybe_n"].dtype == np.uint64
    assert cols["maybe_n"].mask.all() and cols["maybe_x"].dtype == np.float64 and cols["maybe_b"].dtype == np.bool_
    assert cols["maybe_tag"].dtype == object and cols["maybe_tag"].tolist() == [None] * 20
    # Some rows absent: the validity bitmap marks exactly those.
    some = prog.generate(range(20), inputs={"tag": "t", "n": 7, "x": 0.5, "b": True}, format="arrow")
    assert some.column("maybe_n").null_count == 0 and some.column("maybe_n").to_pylist() == [7] * 20


def test_iter_batches_yields_the_rows_in_order_in_batches_of_the_size_asked():
    prog = polydat.compile_file(EXAMPLE)
    whole = prog.generate(range(5, 1005), format="arrow")
    for threads in (1, 2, 3):
        batches = list(prog.iter_batches(range(5, 1005), batch_rows=128, threads=threads))
        assert all(isinstance(b, pa.RecordBatch) for b in batches)
        assert [b.num_rows for b in batches] == [128] * 7 + [104]
        assert pa.Table.from_batches(batches).equals(whole.combine_chunks()), threads
    stepped = list(prog.iter_batches(range(0, 100, 7), batch_rows=5, outputs=["cycle", "user_id"]))
    assert pa.Table.from_batches(stepped).column("cycle").to_pylist() == list(range(0, 100, 7))
    assert list(prog.iter_batches(range(0))) == []


def test_iter_batches_is_lazy_and_bounded():
    """A stream of 10**12 rows yields its first batches at once: rows are made
    as they are asked for, a few batches ahead at most."""
    prog = polydat.compile_file(EXAMPLE)
    stream = prog.iter_batches(range(10**12), batch_rows=1000, threads=2)
    first = next(stream)
    second = next(stream)
    assert first.num_rows == second.num_rows == 1000
    assert second.column("user_id").to_pylist() == prog.generate(range(1000, 2000))["user_id"].tolist()
    stream.close()


def test_iter_batches_reports_the_failing_row_after_the_good_batches():
    prog = polydat.compile("input cycle: u64\nc := in_range(cycle, 0, 2500)\n")
    stream = prog.iter_batches(range(10_000), batch_rows=1000, threads=2)
    got = [next(stream).num_rows for _ in range(2)]
    assert got == [1000, 1000]
    with pytest.raises(polydat.EvalError, match="in_range: value 2501 outside"):
        for _ in stream:
            pass


def test_generate_arrow_is_chunked_by_batch(monkeypatch: pytest.MonkeyPatch):
    from polydat import generate

    monkeypatch.setattr(generate, "GENERATE_BATCH_ROWS", 300)
    prog = polydat.compile_file(EXAMPLE)
    table = prog.generate(range(1000), format="arrow", threads=2)
    assert table.column("user_id").num_chunks == 4
    assert table.column("user_id").to_pylist() == prog.generate(range(1000))["user_id"].tolist()


def test_format_is_checked_and_pyarrow_is_optional(monkeypatch: pytest.MonkeyPatch):
    import builtins

    prog = polydat.compile_file(EXAMPLE)
    with pytest.raises(polydat.errors.ArgumentError, match="one of 'numpy', 'arrow', 'pandas', 'polars'"):
        prog.generate(range(3), format="excel")
    with pytest.raises(polydat.errors.ArgumentError, match="batch_rows"):
        prog.iter_batches(range(3), batch_rows=0)
    real_import = builtins.__import__

    def no_pyarrow(name: str, *args: object, **kwargs: object) -> object:
        if name == "pyarrow" or name.startswith("pyarrow."):
            raise ImportError("No module named 'pyarrow'")
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", no_pyarrow)
    with pytest.raises(ImportError, match=r"needs pyarrow \(pip install pyarrow"):
        prog.generate(range(3), format="arrow")
    assert prog.generate(range(3))["user_id"].tolist() == [607535, 822465, 348110]


def test_the_core_hands_batches_over_the_pycapsule_interface():
    prog = polydat.compile_file(EXAMPLE)
    from polydat.generate import batch_stream

    stream = batch_stream(prog, prog._core, range(10), ["user_id", "label"], None, 1, None, 4)
    item = next(iter(stream))
    assert hasattr(item, "__arrow_c_array__") and hasattr(stream.schema, "__arrow_c_schema__")
    schema_capsule, array_capsule = item.__arrow_c_array__()
    batch = pa.RecordBatch._import_from_c_capsule(schema_capsule, array_capsule)
    assert batch.column("label").to_pylist() == ["user-607535", "user-822465", "user-348110", "user-139053"]


# --- round trips -------------------------------------------------------------


def rows(values: object) -> list[object]:
    """A column's values with NaN made comparable (NaN equals nothing)."""
    return [("NaN" if isinstance(v, float) and v != v else v) for v in values.to_pylist()]  # type: ignore[attr-defined]


def same(a: object, b: object) -> bool:
    """Same type and the same values, NaN included."""
    return a.type == b.type and rows(a) == rows(b)  # type: ignore[attr-defined]


def test_round_trip_polars(all_types: polydat.Program):
    pl = pytest.importorskip("polars", reason="polars is part of the test extra")
    table = all_types.generate(range(200), inputs=ALL_TYPES_INPUTS, format="arrow")
    frame = pl.from_arrow(table)
    assert frame.schema["h"] == pl.UInt64 and frame.schema["word"] == pl.String
    assert frame.schema["raw"] == pl.Binary and frame.schema["yes"] == pl.Boolean
    assert frame.schema["s32"] == pl.UInt32 and frame.schema["m"] == pl.Int32 and frame.schema["f"] == pl.Float32
    back = frame.to_arrow()
    for name in table.column_names:
        assert same(back.column(name).cast(table.schema.field(name).type), table.column(name)), name
    nulls = polydat.compile(NULLS).generate(range(5), inputs={"tag": None, "n": None, "x": 1.5, "b": None},
                                            format="arrow")
    assert pl.from_arrow(nulls)["maybe_n"].null_count() == 5


def test_round_trip_pandas(all_types: polydat.Program):
    pd = pytest.importorskip("pandas", reason="pandas is part of the test extra")
    table = all_types.generate(range(200), inputs=ALL_TYPES_INPUTS, format="arrow")
    frame = table.to_pandas(types_mapper=pd.ArrowDtype)
    assert all(isinstance(t, pd.ArrowDtype) for t in frame.dtypes)
    assert frame["word"].dtype == pd.ArrowDtype(pa.string()) and frame["h"].dtype == pd.ArrowDtype(pa.uint64())
    back = pa.Table.from_pandas(frame, preserve_index=False)
    for name in table.column_names:
        assert same(back.column(name), table.column(name)), name
    nulls = polydat.compile(NULLS).generate(range(5), inputs={"tag": None, "n": None, "x": None, "b": None},
                                            format="arrow")
    nframe = nulls.to_pandas(types_mapper=pd.ArrowDtype)
    assert nframe["maybe_n"].isna().all() and nframe["maybe_n"].dtype == pd.ArrowDtype(pa.uint64())


def test_round_trip_pyarrow_ipc(all_types: polydat.Program):
    table = all_types.generate(range(300), inputs=ALL_TYPES_INPUTS, format="arrow", threads=2)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    back = pa.ipc.open_stream(sink.getvalue()).read_all()
    assert back.schema == table.schema
    assert all(same(back.column(n), table.column(n)) for n in table.column_names)
