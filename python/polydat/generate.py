"""Running a program's rows: the plan of a run, ``generate``'s columns,
batches, streams, and the core's batch streams the command line writes.

:class:`~polydat.program.Program` and :class:`~polydat.program.Kernel` hand
their ``generate``, ``iter_batches`` and ``stream`` over to the functions
here, with the core object the rows run on: the program's own (a root
scope) or a kernel's (its scope: its bindings to outer scopes, its inputs).
A run covers cycles given as a ``range`` (a positive step), a row count or a
``(start, stop)`` pair (:func:`cycle_range`); one run of the core takes at
most :data:`~polydat.stream.SEGMENT_ROWS` rows, so a stream of more is made
of :func:`segments`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from . import _core
from .errors import ArgumentError, OutOfMemoryError
from .program import Program, PyValue, name_list, require_pyarrow
from .stream import SEGMENT_ROWS, Stream


MAX_THREADS: int = _core.MAX_THREADS
"""The most worker threads :meth:`Program.generate` starts (the core checks
``threads`` when a run's plan is made)."""

GENERATE_BATCH_ROWS = 1 << 17
"""Rows per record batch (table chunk) of ``generate(format="arrow")``. The
core makes the next batch while this thread takes in the last one, and reuses
its workers' buffers from batch to batch, so a large table comes faster in
chunks of this size than in chunks of a million rows or more."""


def cycle_range(cycles: range | int | tuple[int, int]) -> range:
    """The rows ``generate`` runs: a ``range`` with a positive step, a count, or a
    ``(start, stop)`` pair; every cycle must fit in u64."""
    if isinstance(cycles, bool) or not isinstance(cycles, (range, int, tuple)):
        raise ArgumentError(
            f"cycles must be a range, a row count or a (start, stop) pair, not {type(cycles).__name__}"
        )
    if isinstance(cycles, range):
        rng = cycles
    elif isinstance(cycles, int):
        if cycles < 0:
            raise ArgumentError(f"a row count must be >= 0, got {cycles}")
        rng = range(cycles)
    else:
        if len(cycles) != 2 or not all(isinstance(c, int) and not isinstance(c, bool) for c in cycles):
            raise ArgumentError(f"cycles as a tuple must be (start, stop) integers, got {cycles!r}")
        rng = range(cycles[0], cycles[1])
    if rng.step <= 0:
        raise ArgumentError(f"generate needs an increasing range of cycles, got step {rng.step}")
    if rng.start < 0 or (row_count(rng) and rng[-1] >= 2**64):
        raise ArgumentError(f"cycles must lie in 0..2**64, got {rng}")
    return rng


def row_count(rng: range) -> int:
    """``len(rng)`` for a range of a positive step, also past 2**63 rows
    (where ``len`` overflows)."""
    return max(0, -((rng.start - rng.stop) // rng.step))


def segments(rng: range) -> Iterator[range]:
    """The rows of ``rng`` (a positive step) in order, as ranges of at most
    :data:`SEGMENT_ROWS` rows each (none for an empty range)."""
    span = SEGMENT_ROWS * rng.step
    for first in range(rng.start, rng.stop, span):
        yield range(first, min(first + span, rng.stop), rng.step)


def _check_batch_rows(batch_rows: Any) -> None:
    """Refuses a ``batch_rows`` that is not a positive integer (a bool is not one)."""
    if isinstance(batch_rows, bool) or not isinstance(batch_rows, int) or batch_rows < 1:
        raise ArgumentError(f"batch_rows must be a positive integer, got {batch_rows!r}")


def run_plan(
    program: Program,
    cycles: range | int | tuple[int, int],
    outputs: Sequence[str] | None,
    inputs: Mapping[str, PyValue] | None,
    threads: int,
    coordinate: str | None,
) -> _core.RowPlan:
    """The plan of a run of ``program``, as the core takes it (the core checks ``threads``)."""
    rng = cycle_range(cycles)
    _needs_outer, coords, all_outputs = program._run_facts
    coordinate = coordinate or (coords[0] if coords else None)
    if coordinate is None:
        raise ArgumentError("this program has no coordinate input to iterate over")
    names = name_list(outputs, "outputs") if outputs is not None else list(all_outputs)
    if inputs is not None and not isinstance(inputs, Mapping):
        raise ArgumentError(f"inputs must be a mapping of input names to values, not {type(inputs).__name__}")
    fixed = list((inputs or {}).items())
    rows = row_count(rng)
    start = rng.start if rows else 0
    return _core.RowPlan(coordinate, start, rows, rng.step, names, fixed, threads)


def generate_columns(
    program: Program,
    core: Any,
    cycles: range | int | tuple[int, int],
    outputs: Sequence[str] | None,
    inputs: Mapping[str, PyValue] | None,
    threads: int,
    coordinate: str | None,
    format: str,
    emitted: bool = False,
    out: Any = None,
) -> Any:
    """``generate`` of ``program``'s rows on ``core`` (a core program, or a
    core kernel whose scope the rows run in): numpy columns or an Arrow table
    (with ``emitted``, and the table of emitted rows); with ``out``, the
    caller's arrays filled."""
    if out is not None:
        if format != "numpy" or emitted:
            raise ArgumentError("out= takes numpy arrays: it goes with format='numpy' and no emitted rows")
        names, arrays, single = _out_arrays(out, outputs)
        filled = _core.generate(core, run_plan(program, cycles, names, inputs, threads, coordinate), out=arrays)
        return filled[names[0]] if single else filled
    if format not in GENERATE_FORMATS:
        listed = ", ".join(repr(f) for f in GENERATE_FORMATS)
        raise ArgumentError(f"format must be one of {listed}, not {format!r}")
    rows = row_count(cycle_range(cycles))
    if rows > SEGMENT_ROWS:
        raise OutOfMemoryError(
            f"not enough memory for {rows} rows: generate a smaller range at a time, or stream them with iter_batches"
        )
    if format in DATAFRAME_FORMATS:
        convert = _dataframe_maker(format)
        result = generate_columns(program, core, cycles, outputs, inputs, threads, coordinate, "arrow", emitted)
        if emitted:
            table, emitted_table = result
            return convert(table), convert(emitted_table)
        return convert(result)
    if format == "arrow":
        pa = require_pyarrow("generate(format='arrow')")
        stream = batch_stream(program, core, cycles, outputs, inputs, threads, coordinate, GENERATE_BATCH_ROWS,
                              emitted=emitted)
        if not emitted:
            schema = pa.schema(stream.schema)
            return pa.Table.from_batches([pa.record_batch(b) for b in stream], schema=schema)
        items = list(stream)
        schema = stream.schema
        table = pa.Table.from_batches([pa.record_batch(b) for b, _rows in items], schema=pa.schema(schema))
        kept = name_list(outputs, "outputs") if outputs is not None else list(program._run_facts[2])
        emitted_rows = [row for _batch, batch_rows in items for row in batch_rows]
        return table.select(kept), pa.table({"row": pa.array(emitted_rows, pa.string())})
    plan = run_plan(program, cycles, outputs, inputs, threads, coordinate)
    if not emitted:
        return _core.generate(core, plan)
    columns, emitted_rows = _core.generate(core, with_emitting(program, plan), emitted=True)
    import numpy as np

    table = np.empty(len(emitted_rows), dtype=object)
    table[:] = emitted_rows
    return {name: columns[name] for name in plan.outputs}, {"row": table}


GENERATE_FORMATS = ("numpy", "arrow", "pandas", "polars")
"""What ``generate(format=...)`` returns: numpy columns, a ``pyarrow.Table``,
or a data frame made from that table (:data:`DATAFRAME_FORMATS`)."""

DATAFRAME_FORMATS = ("pandas", "polars")
"""The formats ``generate`` makes from its Arrow table: a ``pandas.DataFrame``
of Arrow-backed columns (``pd.ArrowDtype``: a ``date`` stays a date, a
``u64`` keeps its width and absent rows are ``<NA>`` in every type) or a
``polars.DataFrame`` (Arrow's own layout: dates are ``Date``, absent rows null)."""


def _dataframe_maker(format: str) -> Any:
    """The conversion of an Arrow table into a data frame of ``format``
    (one of :data:`DATAFRAME_FORMATS`), or a clear error when its package is
    not installed."""
    what = f"generate(format={format!r})"
    require_pyarrow(what)
    try:
        if format == "pandas":
            import pandas

            return lambda table: table.to_pandas(types_mapper=pandas.ArrowDtype)
        import polars

        return polars.from_arrow
    except ImportError:
        raise ImportError(f"{what} needs {format} (pip install {format})") from None


def with_emitting(program: Program, plan: Any) -> Any:
    """``plan`` reading the program's ``emit_row`` bindings first, in the
    order the program declares them, then its own outputs: each row emits
    its rows in that order, whichever outputs the caller asked for (a read
    runs its outputs' cones in turn, so an emitting binding another output
    reads would otherwise run when that output's turn came)."""
    emitting = program._emit_outputs
    return plan.with_outputs(emitting + [name for name in plan.outputs if name not in emitting])


def _out_arrays(out: Any, outputs: Sequence[str] | None) -> tuple[list[str], list[Any], bool]:
    """The output names and arrays of ``generate``'s ``out=`` (a dict of
    arrays, or one array for one output), and whether it was one array.
    The arrays themselves are checked by the core."""
    if isinstance(out, Mapping):
        names = list(out)
        if outputs is not None and name_list(outputs, "outputs") != names:
            raise ArgumentError(f"out= has arrays for {names}, but outputs= names {list(outputs)}: give the same names")
        if not names:
            raise ArgumentError("out= needs at least one array")
        return names, [out[n] for n in names], False
    if outputs is None:
        raise ArgumentError("out= is one array: name its output (outputs=['name']), or pass {name: array}")
    names = name_list(outputs, "outputs")
    if len(names) != 1:
        raise ArgumentError(f"out= is one array, but outputs= names {len(names)} outputs: pass {{name: array}}")
    return names, [out], True


def reused_batches(
    program: Program,
    core: Any,
    cycles: range | int | tuple[int, int],
    batch_rows: int,
    outputs: Sequence[str] | None,
    inputs: Mapping[str, PyValue] | None,
    threads: int,
    coordinate: str | None,
) -> Iterator[dict[str, Any]]:
    """``iter_batches(reuse=True)``: every batch written into the same numpy
    arrays (one per output, allocated here once), yielded as ``{name: array}``."""
    import numpy as np

    _check_batch_rows(batch_rows)
    plan = run_plan(program, cycles, outputs, inputs, threads, coordinate)
    names, rows = plan.outputs, plan.rows
    types = {**program.outputs, **program.input_types}
    dtypes = {name: _core.numpy_dtype(types[name]) for name in names}
    refused = [n for n, d in dtypes.items() if d is None]
    if refused:
        raise ArgumentError(
            f"reuse=True writes numpy arrays of scalar outputs; {refused[0]!r} is {types[refused[0]]}"
        )
    arrays = {name: np.empty(min(batch_rows, rows), dtypes[name]) for name in names}

    def batches() -> Iterator[dict[str, Any]]:
        done = 0
        while done < rows:
            n = min(batch_rows, rows - done)
            views = [arrays[name][:n] for name in names]
            yield _core.generate(core, plan.segment(done, n), out=views)
            done += n

    return batches()


def record_batches(
    program: Program,
    core: Any,
    cycles: range | int | tuple[int, int],
    batch_rows: int,
    outputs: Sequence[str] | None,
    inputs: Mapping[str, PyValue] | None,
    threads: int,
    coordinate: str | None,
    emitted: bool = False,
) -> Iterator[Any]:
    """``iter_batches`` of ``program``'s rows on ``core`` (see :func:`generate_columns`):
    one stream of the core per segment of the rows (:func:`segments`), the
    first made now (so a bad argument fails at the call)."""
    pa = require_pyarrow("iter_batches")
    parts = segments(cycle_range(cycles))
    first = next(parts, range(0))
    stream = batch_stream(program, core, first, outputs, inputs, threads, coordinate, batch_rows, emitted=emitted)
    kept = (name_list(outputs, "outputs") if outputs is not None else list(program._run_facts[2])) if emitted else []

    def item(batch: Any) -> Any:
        if not emitted:
            return pa.record_batch(batch)
        columns, rows = batch
        return pa.record_batch(columns).select(kept), pa.record_batch({"row": pa.array(rows, pa.string())})

    def batches() -> Iterator[Any]:
        current = stream
        while True:
            try:
                for batch in current:
                    yield item(batch)
            finally:
                current.close()
            segment = next(parts, None)
            if segment is None:
                return
            current = batch_stream(program, core, segment, outputs, inputs, threads, coordinate, batch_rows,
                                   emitted=emitted)

    return batches()


def open_stream(
    program: Program,
    core: Any,
    cycles: range | int | tuple[int, int],
    batch_rows: int,
    outputs: Sequence[str] | None,
    inputs: Mapping[str, PyValue] | None,
    threads: int,
    coordinate: str | None,
) -> Stream:
    """``stream`` of ``program``'s rows on ``core`` (see :func:`generate_columns`),
    its arguments checked now (a zero-row stream of the core is opened)."""
    require_pyarrow("stream")
    _check_batch_rows(batch_rows)
    plan = run_plan(program, cycles, outputs, inputs, threads, coordinate)
    stream = Stream(lambda segment, rows: _core.batches(core, segment, batch_rows=rows), plan, batch_rows)
    stream._open(plan.rows).close()
    return stream


def batch_stream(
    program: Program,
    core: Any,
    cycles: range | int | tuple[int, int],
    outputs: Sequence[str] | None,
    inputs: Mapping[str, PyValue] | None,
    threads: int,
    coordinate: str | None,
    batch_rows: int,
    *,
    encode: str | None = None,
    cycles_column: str | None = None,
    emitted: bool = False,
) -> Any:
    """The core's batch stream of a run of ``program`` on ``core`` (see
    :func:`generate_columns`): what ``iter_batches`` and ``polydat run`` read.
    ``encode`` ("csv", "jsonl") yields each batch as text; ``cycles_column``
    puts the rows' cycle numbers first under that name; ``emitted`` pulls
    the program's ``emit_row`` bindings too and yields ``(batch, rows)``."""
    _check_batch_rows(batch_rows)
    plan = run_plan(program, cycles, outputs, inputs, threads, coordinate)
    if plan.rows > SEGMENT_ROWS:
        raise ArgumentError(f"one stream runs at most {SEGMENT_ROWS} rows, got {plan.rows}: stream segments() of them")
    # A batch of more rows than the run is the run.
    batch_rows = min(batch_rows, max(plan.rows, 1))
    if emitted:
        plan = with_emitting(program, plan)
    return _core.batches(core, plan, batch_rows=batch_rows, encode=encode, cycles_column=cycles_column, emitted=emitted)


def text_header(columns: Sequence[str], encode: str) -> bytes:
    """The header of ``encode`` text of ``columns``, which
    :func:`batch_stream`'s text batches leave out: the CSV header line for
    ``"csv"``, nothing for ``"jsonl"``."""
    return _core.text_header(list(columns), encode)


def time_scenario(
    graph: Program,
    driver: Program | None,
    engines: Sequence[str],
    pulls: Sequence[tuple[str, int]],
    cycles: int,
    iters: int,
) -> list[dict[str, Any]]:
    """The core's timing loop of ``polydat bench`` (no GIL held): per kernel
    of ``engines`` (engine/mode names), a warm-up pass, then ``iters``
    passes of ``cycles`` cycles, interleaved (every kernel one pass per
    round); per cycle ``driver`` (when given) writes ``graph``'s inputs and
    one output chosen by the ``pulls`` weights (name, weight) is pulled.
    Per kernel ``{"engine", "total", "driver", "net"}``: ns per cycle of
    each timed pass (``net``: ``total`` less the driver's)."""
    return _core.bench_scenario(
        graph._core, driver._core if driver is not None else None, list(engines), list(pulls), cycles, iters
    )
