"""Large numpy columns are numpy's own arrays, filled in place by the core:
the same values, dtypes and masks as the columns the core allocates (small
runs and Arrow), on any thread count."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ALL_TYPES, ALL_TYPES_INPUTS, NULLS

import polydat

ROWS = 70_003  # over the size from which numpy allocates the columns


def same(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal dtypes and bit-identical rows (NaNs included)."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype == object:
        return a.tolist() == b.tolist()
    return np.array_equal(np.ascontiguousarray(a).view(np.uint8), np.ascontiguousarray(b).view(np.uint8))


@pytest.mark.parametrize("threads", [1, 3])
def test_large_columns_equal_the_columns_the_core_allocates(threads: int):
    prog = polydat.compile(ALL_TYPES.read_text())
    big = prog.generate(range(ROWS), inputs=ALL_TYPES_INPUTS, threads=threads)
    small = prog.generate(range(ROWS - 1000, ROWS), inputs=ALL_TYPES_INPUTS)
    table = prog.generate(range(ROWS), inputs=ALL_TYPES_INPUTS, format="arrow")
    assert set(big) == set(small) == set(table.column_names)
    for name, column in big.items():
        assert same(column[ROWS - 1000 :], small[name]), name
        if column.dtype != object:
            assert same(column, table.column(name).to_numpy()), name


def test_large_columns_with_absent_rows_are_masked_arrays_of_their_dtype():
    prog = polydat.compile(NULLS)
    none = {"tag": None, "n": None, "x": None, "b": None}
    cols = prog.generate(range(ROWS), inputs=none, threads=2)
    for name, dtype in (("maybe_n", np.uint64), ("maybe_x", np.float64), ("maybe_b", np.bool_)):
        assert isinstance(cols[name], np.ma.MaskedArray) and cols[name].dtype == dtype, name
        assert cols[name].mask.all() and len(cols[name]) == ROWS, name
    assert not isinstance(cols["h"], np.ma.MaskedArray) and cols["h"].dtype == np.uint64


def test_a_kernels_generate_fills_the_same_columns_as_the_programs():
    """Kernel.generate (rows from a kernel's state) takes the same path."""
    prog = polydat.compile(ALL_TYPES.read_text())
    kernel = prog.kernel()
    from_program = prog.generate(range(ROWS), inputs=ALL_TYPES_INPUTS, threads=2)
    from_kernel = kernel.generate(range(ROWS), inputs=ALL_TYPES_INPUTS, threads=2)
    for name, column in from_program.items():
        assert same(column, from_kernel[name]), name
    prog = polydat.compile(NULLS)
    none = {"tag": None, "n": None, "x": None, "b": None}
    cols = prog.kernel().generate(range(ROWS), inputs=none)
    assert isinstance(cols["maybe_n"], np.ma.MaskedArray) and cols["maybe_n"].mask.all()
