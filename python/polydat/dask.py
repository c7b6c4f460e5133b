"""Polydat programs as Dask DataFrames (the ``dask`` extra:
``pip install '.[dask]'`` in a polydat checkout).

:func:`from_program` cuts a range of cycles into ``npartitions`` contiguous
ranges and builds the DataFrame with ``dask.dataframe.from_map``: each
partition is ``Program.generate(part, format="arrow")`` turned into a pandas
DataFrame with Arrow-backed columns (``pandas.ArrowDtype``), so a string
column is never a column of Python objects. The program travels to the
workers as its source and compile options (a :class:`~polydat.Program`
pickles that way and is compiled again where it lands), and every value is a
pure function of its cycle, so partition ``i`` is the same on any worker and
the whole frame equals one serial ``generate`` of the range. The frame's
``meta`` comes from the declared output types; nothing is generated until
the frame is computed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .errors import ArgumentError
from .generate import cycle_range, row_count
from .program import Program, compile

__all__ = ["from_program", "partition_ranges"]


def partition_ranges(cycles: range, npartitions: int) -> list[range]:
    """``cycles`` cut into ``npartitions`` contiguous ranges of near-equal size
    (the first ones one row longer when it does not divide), in order; fewer
    when there are fewer rows than partitions, one empty range for none."""
    if isinstance(npartitions, bool) or not isinstance(npartitions, int) or npartitions < 1:
        raise ArgumentError(f"npartitions must be a positive integer, got {npartitions!r}")
    rows = row_count(cycles)
    n = max(1, min(npartitions, rows))
    bounds = [rows * i // n for i in range(n + 1)]
    return [cycles[bounds[i] : bounds[i + 1]] for i in range(n)]


class _Partition:
    """What each task runs: one partition's rows as a pandas DataFrame with
    Arrow-backed columns. Pickles as the program (source and options), the
    run's arguments and nothing else."""

    def __init__(
        self,
        program: Program,
        outputs: list[str],
        inputs: dict[str, Any],
        coordinate: str | None,
        coordinate_column: str | None,
        threads: int,
        index_by_cycle: bool,
    ):
        self.program = program
        self.outputs = outputs
        self.inputs = inputs
        self.coordinate = coordinate
        self.coordinate_column = coordinate_column
        self.threads = threads
        self.index_by_cycle = index_by_cycle

    def __call__(self, part: range) -> Any:
        import pandas as pd
        import pyarrow as pa

        table = self.program.generate(
            part, outputs=self.outputs, inputs=self.inputs, threads=self.threads, coordinate=self.coordinate,
            format="arrow",
        )
        if self.coordinate_column is not None:
            cycles = pa.array(range(part.start, part.stop, part.step), pa.uint64()) if part else pa.array(
                [], pa.uint64()
            )
            table = table.add_column(0, self.coordinate_column, cycles)
        frame = table.to_pandas(types_mapper=pd.ArrowDtype)
        if self.index_by_cycle:
            frame.index = pd.RangeIndex(part.start, part.stop, part.step)
        return frame


def from_program(
    program_or_source: Program | str,
    cycles: range | int | tuple[int, int],
    npartitions: int = 1,
    outputs: Sequence[str] | None = None,
    *,
    inputs: Mapping[str, Any] | None = None,
    coordinate: str | None = None,
    coordinate_column: bool = True,
    threads: int = 1,
    **compile_options: Any,
) -> Any:
    """A ``dask.dataframe.DataFrame`` of ``outputs`` (all outputs when absent)
    over ``cycles`` in ``npartitions`` partitions.

    ``program_or_source`` is a compiled :class:`~polydat.Program` or DSL
    source (compiled here with ``compile_options``, so errors show at once).
    The coordinate's values are the first column (named after the swept
    coordinate) unless ``coordinate_column=False``; the index is the cycle
    (with known divisions) when every cycle is below 2**63, else each
    partition's row number.
    ``inputs`` fixes other inputs for every partition; ``threads`` is the
    number of worker threads each partition's ``generate`` runs on.
    """
    try:
        import dask.dataframe as dd
        import pandas as pd
    except ImportError:
        raise ImportError(
            "polydat.dask needs dask and pandas: pip install 'dask[dataframe]' distributed pandas pyarrow"
        ) from None
    program = program_or_source if isinstance(program_or_source, Program) else compile(
        program_or_source, **compile_options
    )
    rng = cycle_range(cycles)
    names = list(program.outputs) if outputs is None else list(outputs)
    fixed = dict(inputs or {})
    swept = coordinate or next(iter(program.coordinates), None)
    column = swept if coordinate_column else None
    # The run is checked once here (unknown names, unset inputs, ...), not on the workers.
    program.generate(range(0), outputs=names, inputs=fixed, threads=1, coordinate=coordinate)
    index_by_cycle = rng.stop <= 2**63  # a pandas RangeIndex is int64
    run = _Partition(program, names, fixed, coordinate, column, threads, index_by_cycle)
    schema = program.arrow_schema(names)
    if column is not None:
        import pyarrow as pa

        schema = schema.insert(0, pa.field(column, pa.uint64()))
    meta = schema.empty_table().to_pandas(types_mapper=pd.ArrowDtype)
    parts = partition_ranges(rng, npartitions)
    divisions = None
    if index_by_cycle and all(parts):
        divisions = tuple([p[0] for p in parts] + [parts[-1][-1]])
    return dd.from_map(run, parts, meta=meta, divisions=divisions, label="polydat", enforce_metadata=False)
