"""Columns that are already there: `generate(..., out=...)` writes the rows
into the caller's numpy arrays (checked: dtype, length, layout, a clear
error otherwise), and `iter_batches(..., reuse=True)` hands back the same
arrays batch after batch."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import NULLS

import polydat

LADDER = """
input cycle: u64
input tenant_seed: u64
input operation_seed: u64
identity := hash(cycle + tenant_seed)
account_id := mod(identity, 10000000)
route := hash(account_id ^ operation_seed)
shard := mod(route, 64)
ratio := to_f64(shard) / 64.0
day := mod(identity, 7000) as date
label := "a{account_id}"
"""
FIXED = {"tenant_seed": 17, "operation_seed": 99}
SCALARS = {"account_id": np.uint64, "shard": np.uint64, "ratio": np.float64, "day": np.int32}


@pytest.mark.parametrize("engine", ["p1", "p2", "p3", "mixed"])
@pytest.mark.parametrize("threads", [1, 2])
def test_generate_writes_into_the_callers_arrays(engine: str, threads: int) -> None:
    prog = polydat.compile(LADDER, engine=engine)
    rows = 5000
    want = prog.generate(range(10, 10 + rows), outputs=list(SCALARS), inputs=FIXED)
    out = {name: np.full(rows, 7, dtype) for name, dtype in SCALARS.items()}
    got = prog.generate(range(10, 10 + rows), inputs=FIXED, threads=threads, out=out)
    assert list(got) == list(SCALARS)
    for name in SCALARS:
        assert got[name] is out[name], "the caller's own array comes back"
        # a date's array holds its days (generate's own column is datetime64[D])
        assert np.array_equal(out[name], want[name].astype(out[name].dtype)), name
    again = prog.generate(range(20, 20 + rows), inputs=FIXED, threads=threads, out=out)
    assert again["shard"] is out["shard"] and np.array_equal(out["shard"][:-10], want["shard"][10:])


def test_one_array_for_one_output_and_a_kernels_generate() -> None:
    prog = polydat.compile(LADDER)
    column = np.zeros(300, np.uint64)
    got = prog.generate(300, outputs=["account_id"], inputs=FIXED, out=column)
    assert got is column and np.array_equal(column, prog.generate(300, outputs=["account_id"], inputs=FIXED)["account_id"])
    shard = np.zeros(300, np.uint64)
    assert prog.kernel().generate(300, inputs=FIXED, out={"shard": shard})["shard"] is shard
    assert np.array_equal(shard, prog.generate(300, outputs=["shard"], inputs=FIXED)["shard"])


@pytest.mark.parametrize(
    "out, outputs, message",
    [
        ({"shard": np.zeros(100, np.int64)}, None, "out['shard']: needs a 1-d numpy uint64 array, got an array of dtype int64"),
        ({"shard": np.zeros(99, np.uint64)}, None, "out['shard']: needs 100 rows, got an array of 99"),
        ({"shard": np.zeros(200, np.uint64)[::2]}, None, "out['shard']: needs a C-contiguous array"),
        ({"shard": np.zeros((100, 1), np.uint64)}, None, "out['shard']: needs a 1-d numpy uint64 array"),
        ({"shard": [0] * 100}, None, "out['shard']: needs a 1-d numpy uint64 array, got a list"),
        ({"label": np.zeros(100, object)}, None, "out['label']: a str output has no numpy array"),
        ({"cycle": np.zeros(100, np.uint64)}, None, "out['cycle']: is an input"),
        ({"shard": np.zeros(100, np.uint64)}, ["ratio"], "out= has arrays for ['shard'], but outputs= names"),
        (np.zeros(100, np.uint64), None, "out= is one array: name its output"),
        (np.zeros(100, np.uint64), ["shard", "ratio"], "out= is one array, but outputs= names 2 outputs"),
        ({}, None, "out= needs at least one array"),
    ],
)
def test_arrays_that_do_not_fit_are_clear_errors(out: object, outputs: list[str] | None, message: str) -> None:
    prog = polydat.compile(LADDER)
    with pytest.raises(polydat.ArgumentError) as info:
        prog.generate(100, outputs=outputs, inputs=FIXED, out=out)
    assert message in str(info.value)


def test_a_read_only_array_and_an_arrow_run_are_refused() -> None:
    prog = polydat.compile(LADDER)
    frozen = np.zeros(100, np.uint64)
    frozen.flags.writeable = False
    with pytest.raises(polydat.ArgumentError, match="out\\['shard'\\]: needs a writable array"):
        prog.generate(100, inputs=FIXED, out={"shard": frozen})
    with pytest.raises(polydat.ArgumentError, match="goes with format='numpy'"):
        prog.generate(100, inputs=FIXED, out={"shard": np.zeros(100, np.uint64)}, format="arrow")


def test_absent_rows_mask_the_callers_array() -> None:
    prog = polydat.compile(NULLS)
    out = {"maybe_n": np.ones(50, np.uint64), "h": np.ones(50, np.uint64)}
    got = prog.generate(50, inputs={"tag": None, "n": None, "x": None, "b": None}, out=out)
    assert isinstance(got["maybe_n"], np.ma.MaskedArray) and got["maybe_n"].mask.all()
    assert np.shares_memory(got["maybe_n"].data, out["maybe_n"]) and got["h"] is out["h"]


@pytest.mark.parametrize("threads", [1, 2])
def test_iter_batches_reuse_hands_back_the_same_arrays(threads: int) -> None:
    prog = polydat.compile(LADDER)
    rows, size = 10_000, 3000
    want = prog.generate(range(rows), outputs=["shard", "ratio"], inputs=FIXED)
    seen, buffers = [], set()
    batches = prog.iter_batches(range(rows), size, outputs=["shard", "ratio"], inputs=FIXED, threads=threads, reuse=True)
    for batch in batches:
        assert list(batch) == ["shard", "ratio"] and batch["ratio"].dtype == np.float64
        buffers.add(batch["shard"].__array_interface__["data"][0])
        seen.append({name: column.copy() for name, column in batch.items()})
    assert len(buffers) == 1, "every batch is written into the same buffer"
    assert [len(b["shard"]) for b in seen] == [3000, 3000, 3000, 1000]
    for name in ("shard", "ratio"):
        assert np.array_equal(np.concatenate([b[name] for b in seen]), want[name])
    it = prog.iter_batches(range(rows), size, outputs=["shard"], inputs=FIXED, reuse=True)
    first = next(it)["shard"]
    kept = first.copy()
    second = next(it)["shard"]
    assert np.shares_memory(first, second) and not np.array_equal(first, kept), "the previous batch is overwritten"


def test_reuse_takes_scalar_outputs_only() -> None:
    prog = polydat.compile(LADDER)
    with pytest.raises(polydat.ArgumentError, match="reuse=True writes numpy arrays of scalar outputs; 'label' is str"):
        prog.iter_batches(100, 10, outputs=["shard", "label"], inputs=FIXED, reuse=True)
