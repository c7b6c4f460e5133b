"""Phases the core runs without a kernel per scope (see
:class:`NativePhase`); any other phase is walked scope by scope
(:mod:`polydat.workload.chain`)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .. import _core
from ..errors import PolydatError
from ..program import compile_source
from .chain import EXTRA_NAMES, ROW_COORDINATE, RUN_BATCH_ROWS, ScopeChain, part_bounds
from .model import Phase, WorkloadError

_COUNT_NAME = re.compile(r"^\s*\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\s*$")
"""A ``cycles`` that is one ``{name}``: a count the core reads per parent."""


@dataclass
class NativePhase:
    """A phase the core runs without a kernel per scope.

    Without ``for_each``: one kernel of the rows program sweeps the cycles
    (``_core.batches`` of a kernel, on ``threads`` workers). With one ``for_each``
    level over a range of numbers (``order in 0..{orders}``, no ``where``):
    the level's bindings and the rows program are compiled as one program
    whose iteration inputs are the level's name, ``ordinal`` and
    ``row_offset``, and the core runs parent after parent on one kernel per
    worker, each parent's rows counted by ``cycles`` (a count, a range, or
    ``{name}`` read per parent) — ``_core.fanout``. The rows are those the
    scope walk gives, in order, on any number of threads."""

    kernel: Any
    columns: list[str]
    coordinate: str | None
    cycles: tuple[int, int] | None = None
    """Without ``for_each``: the (first cycle, rows) of the phase."""
    name: str = ""
    parents: range | None = None
    count: Any = None
    where: str = ""

    @classmethod
    def of(cls, chain: ScopeChain, phase: Phase) -> NativePhase | None:
        """The phase as the core runs it, or None when it needs its scopes
        walked (more levels, a ``where``, a row count the core cannot read, ...)."""
        plan = chain.plan(phase)
        columns = chain.columns(phase)
        if not plan.levels:
            kernel, start, rows = next(chain.runs(phase))
            coordinates = plan.rows_program.coordinates
            if not coordinates:
                return None
            return cls(kernel, columns, coordinates[0], cycles=(start, rows))
        if len(plan.levels) != 1:
            return None
        parsed = plan.levels[0]
        if parsed.stages or parsed.base is not None or len(parsed.clauses) != 1:
            return None
        clause = parsed.clauses[0]
        if len(clause.names) != 1 or len(clause.sources) != 1 or len(clause.sources[0]) != 1:
            return None
        types, _ = chain.open_level(plan, 0, chain.root._core)
        name = clause.names[0]
        if types[name] != "u64":
            return None
        values = parsed._values(clause.sources[0], chain.root._core.value_of, None)
        if not isinstance(values, range):
            return None
        if plan.fixed_cycles is not None:
            count: Any = plan.fixed_cycles
        else:
            match = _COUNT_NAME.match(phase.cycles)
            if match is None:
                return None
            count = match.group(1)
        source = f"{phase.levels[0].bindings}\n{phase.bindings}"
        keep = [name, *columns, *([count] if isinstance(count, str) else [])]
        iteration = [(name, "u64"), *EXTRA_NAMES]
        try:
            program = compile_source(
                source, chain.path, chain.options, outer=chain.root, iteration=iteration, keep=keep,
                coordinates=(ROW_COORDINATE,),
            )
        except PolydatError:
            return None  # a name bound in both scopes, say: walk them
        if any(c != ROW_COORDINATE for c in program.coordinates):
            return None
        if isinstance(count, str):
            kind = program.outputs.get(count) or program.input_types.get(count)
            if kind not in ("u64", "u32", "i64", "i32"):
                return None  # absent, or text (which the walk reads as a count or a range)
        pairs = [(name, values.start if len(values) else 0), ("ordinal", 0), ("row_offset", 0)]
        kernel = program._core.kernel(chain.root._core, pairs)
        if not _core.fanout_supported(kernel):
            return None
        coordinates = program.coordinates
        return cls(
            kernel, columns, coordinates[0] if coordinates else None, name=name, parents=values, count=count,
            where=plan.where,
        )

    def open(self, threads: int, encode: str | None, part: tuple[int, int] | None) -> Any:
        """The core's batch stream of the phase's rows (of part ``part``),
        or None when there are none."""
        if self.parents is None:
            assert self.cycles is not None and self.coordinate is not None
            start, rows = self.cycles
            lo, hi = part_bounds(rows, part)
            if hi == lo:
                return None
            plan = _core.RowPlan(self.coordinate, start + lo, hi - lo, 1, self.columns, [], threads)
            return _core.batches(self.kernel, plan, batch_rows=RUN_BATCH_ROWS, encode=encode)
        lo, hi = part_bounds(len(self.parents), part)
        if hi == lo:
            return None
        iteration = (self.name, "ordinal", "row_offset")
        first, step = self.parents.start, self.parents.step
        count = self.count if isinstance(self.count, str) else tuple(self.count)
        try:
            before = _core.fanout_rows(self.kernel, iteration, first, step, lo, count, threads=threads) if lo else 0
            return _core.fanout(
                self.kernel, iteration, first + lo * step, step, hi - lo, count, self.columns,
                first_ordinal=lo, first_row=before, threads=threads, batch_rows=RUN_BATCH_ROWS, encode=encode,
            )
        except PolydatError as err:
            raise self._error(err) from None

    def stream(self, threads: int, encode: str | None, part: tuple[int, int] | None) -> Iterator[tuple[Any, int]]:
        """(batch, rows) of the phase's rows (see :meth:`~polydat.workload.chain.ScopeChain.stream`)."""
        batches = self.open(threads, encode, part)
        if batches is None:
            return
        try:
            for batch in batches:
                yield batch, batches.rows
        except PolydatError as err:
            raise self._error(err) from None
        finally:
            batches.close()

    def write_text(self, threads: int, encode: str, part: tuple[int, int] | None, path: str) -> int:
        """Appends the phase's rows as ``encode`` text to the file at ``path``
        from the core (no Python object per batch); returns the rows."""
        batches = self.open(threads, encode, part)
        if batches is None:
            return 0
        try:
            return int(batches.write_text(path))
        except PolydatError as err:
            raise self._error(err) from None
        finally:
            batches.close()

    def _error(self, err: PolydatError) -> PolydatError:
        """A bad row count as the workload's error naming the phase; any other error as it is."""
        if type(err) is PolydatError:
            return WorkloadError(f"{self.where}, cycles: {err}")
        return err
