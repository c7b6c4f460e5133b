"""A workload's chain of scopes: params → the workload's bindings → each
phase's iteration scopes → the phase's rows program, compiled scope by scope
and walked here, one kernel per scope (see :mod:`polydat.workload`). A phase
the core can run without a kernel per scope is handed to
:mod:`~polydat.workload.native` (which builds on this module, so it is
imported when first asked)."""

from __future__ import annotations

import json
import re
import struct
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import _core
from ..dsl import BoundProgram, ast, corerules, source_lines
from ..dsl.comprehension import open_comprehension, parse_text
from ..errors import CompileError, Diagnostic, PolydatError
from ..program import CompileOptions, Program, compile_source, expression_compiler
from .model import Level, Phase, TextAt, Workload, WorkloadError

if TYPE_CHECKING:
    from .native import NativePhase


EXTRA_NAMES = (("ordinal", "u64"), ("row_offset", "u64"))
"""The names every iteration scope binds besides its tuple's."""

RUN_BATCH_ROWS = 1 << 16
"""Rows (about) per call into the core while a phase is written."""

RUN_BATCH_RUNS = 4096
"""Iterations at most per call into the core."""

ROW_COORDINATE = "cycle"
"""The input of a phase's rows program: the row number (see :mod:`polydat.workload`)."""

HELPER_PREFIX = "_"
"""Bindings of a rows program whose names start with this are no column by default."""


def _params_program(params: Mapping[str, Any], engine: str, path: str | None) -> Program:
    """The params scope: one unfolded-by-name ``const NAME := <literal>`` per
    parameter (built as IR, so any string is taken as it is)."""
    nodes, outputs, lines = [], [], []
    for name, value in params.items():
        if isinstance(value, bool):
            const: dict[str, Any] = {"bool": value}
        elif isinstance(value, int):
            natural = corerules.int_literal_type(value)
            assert natural is not None, "every param is checked to fit (_check_param)"
            const = {natural: value}
        elif isinstance(value, float):
            const = {"f64": struct.unpack("<Q", struct.pack("<d", value))[0]}
        else:
            const = {"str": value}
        nodes.append({"op": "__lit", "args": [{"const": const}]})
        outputs.append({"name": name, "wire": {"node": {"node": len(nodes) - 1, "port": 0}}, "modifiers": ["const"]})
        lines.append(f"const {name} := {json.dumps(value)}")
    ir = {"inputs": [], "nodes": nodes, "outputs": outputs}
    core = _core.Program.compile(json.dumps(ir), engine=engine)
    source = "\n".join(lines)
    bound = BoundProgram(
        ir=ir,
        source=source,
        path=path,
        input_names=(),
        input_types={},
        output_names=tuple(params),
        spans={},
        program=ast.Program((), source, path),
    )
    return Program(core, source, path, bound, CompileOptions(engine=engine))


_REFERENCE = re.compile(r"\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}")


class PhasePlan:
    """One phase, ready to walk: its levels' comprehensions (parsed once),
    their programs (compiled once per iteration types), the rows program."""

    def __init__(self, chain: ScopeChain, phase: Phase):
        self.phase = phase
        self.where = f"{chain.path or 'workload'}: phase '{phase.name}'"
        self.levels = []
        for level in phase.levels:
            try:
                self.levels.append(parse_text(level.each, chain.path))
            except CompileError as err:
                raise _located(err, level.each_at) from None
        self.names = [n for parsed in self.levels for n in parsed.names]
        self.keep = list(phase.emit) if phase.emit is not None else list(self.names)
        self.level_programs: list[dict[tuple[tuple[str, str], ...], Any]] = [{} for _ in self.levels]
        self.rows_program: Any = None
        self.fixed_cycles = None if _REFERENCE.search(phase.cycles) else self.parse_cycles(phase.cycles, phase.cycles)

    def columns(self, program: Any) -> list[str]:
        """The table's columns (see :mod:`polydat.workload`): ``emit``, or the iteration
        variables and the rows program's bindings but its helpers."""
        if self.phase.emit is not None:
            return list(self.phase.emit)
        own = [o for o in program.outputs if not o.startswith(HELPER_PREFIX) and o not in self.names]
        return self.names + own

    def error(self, message: str) -> WorkloadError:
        """A :class:`WorkloadError` about the phase's ``cycles``, at its position."""
        at = self.phase.cycles_at
        if at is None:
            return WorkloadError(f"{self.where}, {message}")
        return WorkloadError(f"phase '{self.phase.name}', {message}", at.line, at.col + 1, at.path, at.quote(at.line))

    def cycles(self, kernel: Any) -> tuple[int, int]:
        """The (first cycle, rows) of the run of rows kernel ``kernel``."""
        if self.fixed_cycles is not None:
            return self.fixed_cycles
        text = self.phase.cycles

        def value(match: re.Match[str]) -> str:
            name = match.group(1)
            try:
                v = kernel.value_of(name)
            except PolydatError as err:
                raise self.error(f"cycles {text!r}: {err}") from None
            if isinstance(v, bool) or not isinstance(v, (int, str)):
                raise self.error(f"cycles {text!r}: '{name}' is {v!r}, not a count")
            return str(v)

        return self.parse_cycles(_REFERENCE.sub(value, text), text)

    def parse_cycles(self, resolved: str, text: str) -> tuple[int, int]:
        resolved = resolved.strip()
        try:
            if ".." in resolved:
                a, b = resolved.split("..", 1)
                start, stop = int(a, 0), int(b, 0)
            else:
                start, stop = 0, int(resolved, 0)
        except ValueError:
            raise self.error(f"cycles {text!r} is {resolved!r}, not a count or a range A..B") from None
        if start < 0 or stop < start or stop >= 2**64:
            raise self.error(f"cycles {resolved!r} is no valid range")
        return start, stop - start


def _unset_error(program: Any, names: Sequence[str]) -> CompileError:
    """The error for inputs of a scope program nothing in a workload can set
    (positions in the scope's text): at each one's first use, with the hint
    of its inferred-input warning (the "did you mean")."""
    bound = program._bound
    found = []
    for name in names:
        span = bound.spans.get(name)
        line, col = (span.line, span.col) if span is not None else (0, 0)
        if name in bound.inferred_inputs:
            message = f"'{name}' is not bound in this scope or a scope around it, so it has no value"
            hint = next((d.hint for d in bound.warnings if d.message.startswith(f"'{name}' ") and d.hint), "")
            if not hint.startswith("did you mean"):
                hint = f"bind it in a scope of the workload, or make it a param (a phase's rows are numbered by '{ROW_COORDINATE}')"
        else:
            message = f"input '{name}' has no value: in a workload only a rows program's '{ROW_COORDINATE}' is an input"
            hint = "bind it in a scope of the workload, or make it a param"
        text = _line(program.source, line)
        found.append(Diagnostic(message, line, col, hint, "error", text, program.path))
    return CompileError(found[0], tuple(found[1:]))


def _line(source: str, line: int) -> str | None:
    """Line ``line`` (from 1) of ``source``, or None past its lines."""
    lines = source_lines(source)
    return lines[line - 1] if 0 < line <= len(lines) else None


def _located(
    err: CompileError, at: TextAt | None, keep: Sequence[str] = (), emit_at: Sequence[TextAt | None] = ()
) -> CompileError:
    """``err`` at the workload file's own positions: a diagnostic in the
    scope's text through ``at``; one about a kept name (no position in the
    text) at the ``emit`` item that names it (``emit_at``, beside ``keep``)."""
    found = []
    for d in err.diagnostics:
        target = at
        if d.line == 0:
            target = next((e for n, e in zip(keep, emit_at) if e and d.message.startswith(f"'{n}' ")), at)
        found.append(target.diagnostic(d) if target is not None else d)
    return CompileError(found[0], tuple(found[1:]))


@dataclass
class CompiledScope:
    """One compiled scope of the chain: what it is, its program, where its text is."""

    label: str
    program: Any
    at: TextAt | None
    refused: frozenset[str] = frozenset()
    """Inputs refused as unset (their inferred-input warnings became errors)."""

    def warnings(self) -> list[Diagnostic]:
        """The program's warnings at the file's positions."""
        found = [
            d for d in self.program.warnings if not any(d.message.startswith(f"'{n}' ") for n in self.refused)
        ]
        return [self.at.diagnostic(d) for d in found] if self.at is not None else found


class ScopeChain:
    """A workload's compiled scopes and the runs of each phase."""

    def __init__(self, workload: Workload):
        self.workload = workload
        self.path = workload.path
        self.options = CompileOptions(engine=workload.engine, strict=workload.strict)
        self.scopes: list[CompiledScope] = []
        """Every scope compiled so far, in order (``check`` and ``explain`` read them)."""
        params = _params_program(workload.params, workload.engine, self.path)
        self.params_kernel = params.kernel()
        if workload.bindings.strip():
            program = self._compile("workload bindings", workload.bindings, workload.bindings_at, self.params_kernel)
            self.root = program.kernel(self.params_kernel)
        else:
            self.root = self.params_kernel
        self._plans: dict[str, PhasePlan] = {}
        self._native: dict[str, NativePhase | None] = {}
        self._compile_expressions = expression_compiler(workload.engine, workload.strict)

    def plan(self, phase: Phase) -> PhasePlan:
        """The phase's :class:`PhasePlan` (made once)."""
        plan = self._plans.get(phase.name)
        if plan is None:
            plan = self._plans[phase.name] = PhasePlan(self, phase)
        return plan

    def _compile(
        self,
        label: str,
        source: str,
        at: TextAt | None,
        outer: Any,
        iteration: Sequence[tuple[str, str]] = (),
        keep: Sequence[str] = (),
        rows: bool = False,
        emit_at: Sequence[TextAt | None] = (),
    ) -> Any:
        """Compiles one scope's ``source`` (errors at the file's positions)
        and refuses the inputs nothing sets: any input but a rows program's
        ``cycle`` (see :mod:`polydat.workload`)."""
        coordinates = (ROW_COORDINATE,) if rows else ()
        try:
            program = compile_source(
                source, self.path, self.options, outer=outer, iteration=iteration, keep=keep, coordinates=coordinates
            )
        except CompileError as err:
            raise _located(err, at, keep, emit_at) from None
        unset = [name for name in program.coordinates if name not in coordinates]
        scope = CompiledScope(label, program, at, frozenset(unset))
        if unset:
            raise _located(_unset_error(program, unset), at)
        self.scopes.append(scope)
        return program

    def compile_phase(self, phase: Phase) -> list[Diagnostic]:
        """Compiles every scope of ``phase`` along its first iteration (and
        resolves its first row count). When its levels give no tuple with
        these params, the rows program is compiled against the last level's
        program if that level was reached; otherwise a warning says which
        scopes were not checked."""
        plan = self.plan(phase)
        if next(self.runs(phase), None) is not None or plan.rows_program is not None:
            return []
        reached = [programs for programs in plan.level_programs if programs]
        if len(reached) == len(plan.levels) and reached:
            self._compile_rows(plan, next(iter(reached[-1].values())))
            return []
        level = len(reached)
        at = phase.levels[level - 1].each_at if level else None
        message = (
            f"phase '{phase.name}': for_each level {level} gives no tuple with these params, so the scopes "
            "under it were not checked"
        )
        line, col = (at.line, at.col + 1) if at is not None else (0, 0)
        quoted = at.quote(line) if at is not None else None
        return [Diagnostic(message, line, col, "check it with params that give tuples (-p NAME=VALUE)", "warning",
                           quoted, self.path)]

    def _compile_rows(self, plan: PhasePlan, outer: Any) -> None:
        """Compiles the phase's rows program against ``outer`` (a kernel or program of its last scope)."""
        phase = plan.phase
        plan.rows_program = self._compile(
            f"phase '{phase.name}': rows", phase.bindings, phase.bindings_at, outer, (), plan.keep,
            rows=True, emit_at=phase.emit_at,
        )

    def iteration_names(self, phase: Phase) -> list[str]:
        return list(self.plan(phase).names)

    def columns(self, phase: Phase) -> list[str]:
        plan = self.plan(phase)
        first = next(self.runs(phase), None)
        if first is None or plan.rows_program is None:
            return list(phase.emit) if phase.emit is not None else list(plan.names)
        return plan.columns(plan.rows_program)

    def declared_schema(self, phase: Phase, encode: str | None) -> Any:
        """The schema of the phase's batches in ``encode`` as the core
        declares it (the declared types; for ``"parquet"``, the fields no
        row can hold ``None`` in required), from a stream of the whole table
        that makes no row, or, for a phase whose scopes are walked here, a
        batch of no row from its first scope; :meth:`schema` when the phase
        has no row at all. What a file of no row (an empty part) is written
        with, so it reads back as the table's other parts do."""
        import pyarrow as pa

        native = self.native(phase)
        if native is not None:
            batches = native.open(1, encode, None)
            if batches is None:
                return self.schema(phase)
            try:
                return pa.schema(batches.schema)
            finally:
                batches.close()
        first = next(self.runs(phase), None)
        if first is None:
            return self.schema(phase)
        kernel, start, _ = first
        return pa.record_batch(_core.fill_kernel_rows([(kernel, start, 0)], self.columns(phase), encode or "arrow")).schema

    def schema(self, phase: Phase) -> Any:
        import pyarrow as pa

        return pa.schema([pa.field(c, pa.null()) for c in self.columns(phase)])

    def runs(self, phase: Phase, part: tuple[int, int] | None = None) -> Iterator[tuple[Any, int, int]]:
        """Every (rows kernel (a core kernel), first cycle, rows) of the phase,
        in order; with ``part=(i, n)``, those of part ``i`` of ``n`` (see
        :meth:`Workload.write`)."""
        plan = self.plan(phase)
        counters = [0, [0] * len(plan.levels)]
        if plan.levels:
            yield from self._walk(plan, 0, self.root._core, counters, part)
            return
        for kernel, start, rows in self._walk(plan, 0, self.root._core, counters):
            lo, hi = part_bounds(rows, part)
            yield kernel, start + lo, hi - lo

    def _walk(
        self, plan: PhasePlan, level: int, outer: Any, counters: list[Any], part: tuple[int, int] | None = None
    ) -> Iterator[tuple[Any, int, int]]:
        phase = plan.phase
        if level == len(plan.levels):
            if plan.rows_program is None:
                self._compile_rows(plan, outer)
            kernel = plan.rows_program._core.kernel(outer)
            start, rows = plan.cycles(kernel)
            counters[0] += rows
            yield kernel, start, rows
            return
        spec = phase.levels[level]
        types, tuples = self.open_level(plan, level, outer)
        program = self._level_program(plan, level, outer, types)
        bind = program._core.kernel
        names = list(types)
        ordinals = counters[1]
        deeper = level + 1
        chosen = self._passing(tuples, spec)
        lo, hi = 0, None
        if part is not None:
            listed = list(chosen)
            lo, hi = part_bounds(len(listed), part)
            chosen = iter(listed)
        for index, values in enumerate(chosen):
            if hi is not None and index >= hi:
                break
            pairs = [*zip(names, values), ("ordinal", ordinals[level]), ("row_offset", counters[0])]
            ordinals[level] += 1
            runs = self._walk(plan, deeper, bind(outer, pairs), counters)
            if index < lo:  # an earlier part's: walked for the counters only
                for _ in runs:
                    pass
            else:
                yield from runs

    @staticmethod
    def _passing(tuples: Iterator[tuple[Any, ...]], spec: Level) -> Iterator[tuple[Any, ...]]:
        """The tuples that pass the level's `where` stages, a predicate's compile error at the level's place."""
        while True:
            try:
                values = next(tuples)
            except StopIteration:
                return
            except CompileError as err:  # the `where` predicate's
                raise _located(err, spec.each_at) from None
            yield values

    def open_level(self, plan: PhasePlan, level: int, outer: Any) -> tuple[dict[str, str], Iterator[tuple[Any, ...]]]:
        """The types and tuples of level ``level``'s comprehension under ``outer``."""
        parsed = plan.levels[level]
        try:
            return open_comprehension(parsed, outer, outer.value_of, self._compile_expressions)
        except CompileError as err:
            raise _located(err, plan.phase.levels[level].each_at) from None
        except PolydatError as err:
            raise WorkloadError(f"{plan.where}, for_each {parsed.text!r}:\n{err}") from None

    def _level_program(self, plan: PhasePlan, level: int, outer: Any, types: dict[str, str]) -> Any:
        """Level ``level``'s bindings compiled for iteration types ``types`` (once)."""
        key = tuple(types.items())
        program = plan.level_programs[level].get(key)
        if program is None:
            spec = plan.phase.levels[level]
            iteration = [*types.items(), *EXTRA_NAMES]
            label = f"phase '{plan.phase.name}': for_each level {level + 1} ({plan.levels[level].text})"
            # A level without bindings is placed at its comprehension (its empty text has no diagnostic).
            program = self._compile(label, spec.bindings, spec.bindings_at or spec.each_at, outer, iteration)
            plan.level_programs[level][key] = program
        return program

    def batches(
        self, phase: Phase, part: tuple[int, int] | None = None
    ) -> Iterator[tuple[list[tuple[Any, int, int]], int]]:
        """The phase's runs in groups of about :data:`RUN_BATCH_ROWS` rows, as
        (``[(core kernel, start, rows)]``, rows) — what ``fill_kernel_rows`` takes;
        runs of no row are left out."""
        group: list[tuple[Any, int, int]] = []
        rows = 0
        for kernel, start, count in self.runs(phase, part):
            if count == 0:
                continue
            group.append((kernel, start, count))
            rows += count
            if rows >= RUN_BATCH_ROWS or len(group) >= RUN_BATCH_RUNS:
                yield group, rows
                group, rows = [], 0
        if group:
            yield group, rows

    def stream(
        self, phase: Phase, threads: int, encode: str | None, part: tuple[int, int] | None
    ) -> Iterator[tuple[Any, int]]:
        """The rows of the phase (of part ``part``) in order, a batch at a
        time, as (batch, rows): Arrow record batches (``encode=None``) or
        CSV / JSON Lines text. A phase without ``for_each``, or with one
        level ranging over numbers, runs in the core without a kernel per
        scope (:class:`~polydat.workload.native.NativePhase`); any other walks its scopes here."""
        native = self.native(phase)
        if native is not None:
            yield from native.stream(threads, encode, part)
            return
        columns = self.columns(phase)
        for runs, rows in self.batches(phase, part):
            yield _core.fill_kernel_rows(runs, columns, encode or "arrow", threads), rows

    def native(self, phase: Phase) -> NativePhase | None:
        """The phase's rows as the core runs them without a kernel per
        scope, or None when the phase needs its scopes walked one by one."""
        if phase.name not in self._native:
            from .native import NativePhase

            self._native[phase.name] = NativePhase.of(self, phase)
        return self._native[phase.name]


def part_bounds(count: int, part: tuple[int, int] | None) -> tuple[int, int]:
    """The indices ``[lo, hi)`` of part ``i`` of ``n`` of ``count`` items:
    ``count * i // n`` up to ``count * (i + 1) // n`` (everything without a part)."""
    if part is None:
        return 0, count
    i, n = part
    return count * i // n, count * (i + 1) // n
