"""The command line's CSV and JSONL writers as they were before the core
encoded text (Python formatting of every cell), kept as the reference the
core's encoders must match byte for byte."""

from __future__ import annotations

import csv
import io
import json
import math
from typing import Any

import numpy as np


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, bytes):
        return value.hex()
    return value


def _csv_cells(column: Any) -> list[Any]:
    if column.dtype.kind in "uif":
        return column.astype(str).tolist()  # type: ignore[no-any-return]
    return [_cell(v) for v in column.tolist()]


def _json_value(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, bytes):
        return value.hex()
    return value


def csv_text(columns: dict[str, Any]) -> bytes:
    """CSV of ``{name: numpy column}`` (header first), as the old CLI wrote it,
    but for a bare carriage return, quoted as Python's writer quotes it with
    its default line terminator (the old CLI, ending rows with ``\n``, left
    it bare: a reader split the row)."""
    out = []
    for row in [list(columns), *zip(*[_csv_cells(c) for c in columns.values()])]:
        text = io.StringIO()
        csv.writer(text, lineterminator="\r\n").writerow(row)  # "\r\n" makes a "\r" in a field quoted
        out.append(text.getvalue()[:-2] + "\n")
    return "".join(out).encode("utf-8")


def jsonl_text(columns: dict[str, Any]) -> bytes:
    """JSON Lines of ``{name: numpy column}``, as the old CLI wrote it."""
    header = list(columns)
    lines = []
    for row in zip(*[c.tolist() for c in columns.values()]):
        lines.append(json.dumps(dict(zip(header, map(_json_value, row))), allow_nan=False) + "\n")
    return "".join(lines).encode("utf-8")


def numpy_column(type_name: str, values: list[Any]) -> Any:
    """The numpy column ``generate`` returns for ``values`` of a declared type."""
    dtypes = {"u64": np.uint64, "i64": np.int64, "u32": np.uint32, "i32": np.int32, "f64": np.float64,
              "f32": np.float32, "bool": np.bool_}
    if type_name not in dtypes:
        return np.array(values + [0], dtype=object)[:-1]
    dtype = dtypes[type_name]
    mask = [v is None for v in values]
    data = np.array([dtype(0) if v is None else v for v in values], dtype=dtype)
    return np.ma.MaskedArray(data, mask=mask) if any(mask) else data
