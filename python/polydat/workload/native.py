"""Phases the core runs without a kernel per scope (see
:class:`NativePhase`); any other phase is walked scope by scope
(:mod:`polydat.workload.chain`)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .. import _core
from ..dsl.comprehension import Range, Ref
from ..errors import PolydatError
from ..program import compile_source
from .chain import EXTRA_NAMES, ROW_COORDINATE, RUN_BATCH_ROWS, PhasePlan, ScopeChain, part_bounds
from .model import Phase, WorkloadError

_COUNT_NAME = re.compile(r"^\s*\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\s*$")
"""A ``cycles`` that is one ``{name}``: a count the core reads per parent."""

_PARENT_EXTRA = ("_parent_ordinal", "_parent_row_offset")
"""The iteration inputs a phase of two levels run as one (see
:meth:`NativePhase.of`) takes its parent's ``ordinal`` and ``row_offset``
in: its own ``ordinal`` and ``row_offset`` are the inner level's."""


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
    scope walk gives, in order, on any number of threads.

    Two levels whose inner one is ``k in 0..{n}`` (``n`` bound by the outer
    level, no bindings of its own nor ``where``) over a rows program of one
    row that does not read ``cycle`` are the one level with ``cycles:
    "{n}"``: each inner tuple is one row, so the inner ``k`` is the row's
    ``cycle`` and its ``ordinal`` and ``row_offset`` are the parent's row
    offset plus ``cycle``. They run as that one level (when the outer
    level's bindings do not read the parent's ``ordinal`` or ``row_offset``,
    which the inner level's shadow)."""

    kernel: Any
    columns: list[str]
    coordinate: str | None
    cycles: tuple[int, int] | None = None
    """Without ``for_each``: the (first cycle, rows) of the phase."""
    name: str = ""
    parents: range | None = None
    count: Any = None
    where: str = ""
    extra: tuple[str, str] = ("ordinal", "row_offset")
    """The inputs the core writes each parent's ordinal and row offset into."""

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
        if len(plan.levels) == 2:
            return cls._one_row_per_inner_tuple(chain, phase, plan, columns)
        if len(plan.levels) != 1:
            return None
        level = cls._numbered_level(chain, plan)
        if level is None:
            return None
        name, values = level
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
        extra = (EXTRA_NAMES[0][0], EXTRA_NAMES[1][0])
        return cls._fanout(chain, plan, source, iteration, keep, columns, values, count, extra)

    @staticmethod
    def _numbered_level(chain: ScopeChain, plan: PhasePlan) -> tuple[str, range] | None:
        """The name and values of the phase's first level when it is one
        name over a range of ``u64`` numbers with no ``where`` (what the
        core walks parent by parent), else None."""
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
        return (name, values) if isinstance(values, range) else None

    @classmethod
    def _one_row_per_inner_tuple(
        cls, chain: ScopeChain, phase: Phase, plan: PhasePlan, columns: list[str]
    ) -> NativePhase | None:
        """The phase of two levels whose inner one counts the rows (see the
        class), run as its outer level with ``cycles: "{n}"``, or None."""
        outer = cls._numbered_level(chain, plan)
        inner = plan.levels[1]
        if outer is None or inner.stages or inner.base is not None or len(inner.clauses) != 1:
            return None
        clause = inner.clauses[0]
        if len(clause.names) != 1 or len(clause.sources) != 1 or len(clause.sources[0]) != 1:
            return None
        counted = clause.sources[0][0]
        if not (isinstance(counted, Range) and counted.lo == 0 and isinstance(counted.hi, Ref)
                and not counted.inclusive and counted.step is None):
            return None
        if plan.fixed_cycles is None or plan.fixed_cycles[1] != 1 or plan.rows_program is None:
            return None
        if ROW_COORDINATE in plan.rows_program.coordinates or ROW_COORDINATE in columns:
            return None  # the rows program's own cycle, a constant in the walk
        name, values = outer
        outer_bindings, inner_bindings = phase.levels[0].bindings, phase.levels[1].bindings
        if inner_bindings.strip():
            return None
        try:
            alone = compile_source(outer_bindings, chain.path, chain.options, outer=chain.root, iteration=[(name, "u64")])
        except PolydatError:
            return None
        if alone.coordinates:
            return None  # it reads the parent's ordinal or row_offset (or a name nobody binds)
        count = counted.hi.name
        row_offset = _PARENT_EXTRA[1]
        source = "\n".join([
            outer_bindings,
            f"{clause.names[0]} := {ROW_COORDINATE}",
            *(f"{extra} := {row_offset} + {ROW_COORDINATE}" for extra, _ in EXTRA_NAMES),
            phase.bindings,
        ])
        iteration = [(name, "u64"), *((extra, "u64") for extra in _PARENT_EXTRA)]
        keep = [name, *columns, count]
        return cls._fanout(chain, plan, source, iteration, keep, columns, values, count, _PARENT_EXTRA)

    @classmethod
    def _fanout(
        cls,
        chain: ScopeChain,
        plan: PhasePlan,
        source: str,
        iteration: list[tuple[str, str]],
        keep: list[str],
        columns: list[str],
        values: range,
        count: Any,
        extra: tuple[str, str],
    ) -> NativePhase | None:
        """The phase as one program ``source`` the core runs parent by
        parent (iteration inputs ``iteration``: the level's name, then
        ``extra``, the parent's ordinal and row offset), or None when the
        program does not compile or the core cannot run it so."""
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
            if kind not in ("u64", "u32", "i64", "i32", "u16", "i16", "u8", "i8"):
                return None  # absent, or text (which the walk reads as a count or a range)
        name = iteration[0][0]
        pairs = [(name, values.start if len(values) else 0), (extra[0], 0), (extra[1], 0)]
        kernel = program._core.kernel(chain.root._core, pairs)
        if not _core.fanout_supported(kernel):
            return None
        coordinates = program.coordinates
        return cls(
            kernel, columns, coordinates[0] if coordinates else None, name=name, parents=values, count=count,
            where=plan.where, extra=extra,
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
        iteration = (self.name, *self.extra)
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
