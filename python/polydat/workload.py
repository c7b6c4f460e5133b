"""Workloads: scope chains from a YAML file, generating one table per phase.

::

    params:                 # the params scope: one const per parameter (overridable: -p users=500)
      users: 100
    bindings: |             # the workload scope (DSL), under the params
      shop := "polyshop"
    phases:                 # in order; each writes one table
      users:
        cycles: "{users}"   # rows: a count (or A..B), {name} read from the phase's scopes
        bindings: |         # the rows program, one row per cycle
          user_id := cycle
          name := full_name(user_id)
        emit: [user_id, name]
      orders:
        for_each: "user in 0..{users}"   # one iteration scope per tuple (see below)
        bindings: |
          order_count := 1 + mod(hash(user), 4)
          order_id := row_offset + cycle
          _spare := hash(order_id)       # a helper: no column (see "Columns")
        cycles: "{order_count}"
        emit: [order_id, user]

The chain is params → workload bindings → each phase's iteration scopes →
the phase's rows program. ``for_each`` is one comprehension (see
:mod:`polydat.dsl.comprehension`) or a list of levels, each a comprehension
or ``{each: "...", bindings: "..."}`` with bindings of that level's scope;
a level's ``{name}`` references read the enclosing scope. Every iteration
scope also binds ``ordinal`` (the position of its tuple among all the
tuples of its level in the phase, from 0) and ``row_offset`` (the rows the
phase wrote before it), so ids can be globally unique: the rows of a phase
are numbered ``row_offset + cycle``.

Columns. With ``emit``, a phase's columns are exactly the names it lists, in
its order (iteration variables, names of the rows program or of any scope
around it). Without ``emit``, they are the phase's iteration variables (every
level's names, first), then every binding of the rows program in source
order, except helpers: names starting with ``_``. Rows are a pure function of
the parameters, so a table is the same byte for byte on any number of threads.

Names. A name is given a value by a param, a binding of some scope, or an
iteration variable; the rows program's ``cycle`` (the row number) is the one
input of a workload. A name read but bound nowhere becomes an input, as in a
program, and since nothing in a workload can set it, it is refused (a program
would read 0 on every row): an error at its first use, with the "did you
mean" of the inferred-input warning. ``strict: true`` (a top-level key, or
``pragma strict`` in one block) compiles every scope in strict mode. Other
warnings (a module shadowing a bundled one, ...) are what :meth:`Workload.check`
and ``polydat check W.yaml`` report with the errors.

Positions. Every diagnostic points at the YAML file's own line and column: a
``bindings: |`` block's text keeps its lines and indentation, a one-line
value its column, and a name in ``emit:`` its list item.

In the core. A phase without ``for_each``, or with one level over a range of
numbers (``order in 0..{orders}``, no ``where``) whose rows ``cycles`` counts
(a count, ``A..B``, or ``{name}`` of an integer read per parent), runs in the
core with no kernel per scope (see ``_Native``): the same rows, in order, on
any number of threads. ``Workload.write(..., part=(i, n))`` writes part ``i``
of ``n`` of a table (its outermost tuples, or its cycles, cut into ``n``
contiguous runs); the parts, concatenated, are the whole table.
"""

from __future__ import annotations

import json
import os
import re
import struct
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import IO, Any

from .api import open_comprehension
from .errors import ArgumentError, CompileError, Diagnostic, PolydatError
from .stream import appending, parquet_encoding, write_parquet_batches

__all__ = ["Workload", "Phase", "Level", "WorkloadError"]

EXTRA_NAMES = (("ordinal", "u64"), ("row_offset", "u64"))
"""The names every iteration scope binds besides its tuple's."""

RUN_BATCH_ROWS = 1 << 16
"""Rows (about) per call into the core while a phase is written."""

RUN_BATCH_RUNS = 4096
"""Iterations at most per call into the core."""

ROW_COORDINATE = "cycle"
"""The input of a phase's rows program: the row number (see the module)."""

HELPER_PREFIX = "_"
"""Bindings of a rows program whose names start with this are no column by default."""


class WorkloadError(PolydatError):
    """The workload file is malformed; the message names the file, the key
    and, when known, the line and column (``line``, ``col``; 0: unknown)."""

    def __init__(
        self, message: str, line: int = 0, col: int = 0, path: str | None = None, source_line: str | None = None
    ):
        super().__init__(f"{path or 'workload'}:{line}:{col}: {message}" if line else message)
        self.message = message
        self.line = line
        self.col = col
        self.path = path
        self.source_line = source_line


@dataclass(frozen=True)
class TextAt:
    """Where a text value of a workload file sits in the file, so a position
    in the text ((line, col) from 1) becomes the file's own."""

    path: str | None
    line: int
    """The file line (from 1) of the text's first line."""
    col: int
    """The file column (from 0) of the text's first character; of every line in a block."""
    block: bool
    """A literal block (``|``): text line k is file line ``line + k - 1``."""
    exact: bool = True
    """False for a folded or multi-line quoted value: every position maps to its start."""
    lines: tuple[str, ...] = field(default=(), compare=False, repr=False)
    """The file's lines (to quote under a diagnostic)."""

    def locate(self, line: int, col: int) -> tuple[int, int]:
        """The file's (line, col) of the text's (line, col); an unknown
        position (0) is the text's start."""
        if line <= 0:
            return self.line, self.col + 1
        if self.block:
            return self.line + line - 1, self.col + col
        if self.exact and line == 1:
            return self.line, self.col + col
        return self.line, self.col + 1

    def diagnostic(self, d: Diagnostic) -> Diagnostic:
        """``d`` (about this text, or about no file) at the file's own position,
        quoting the file's line; a diagnostic about another file (a module's)
        is returned as it is."""
        if d.path not in (None, self.path):
            return d
        line, col = self.locate(d.line, d.col)
        return replace(d, line=line, col=col, source_line=self.quote(line), path=self.path)

    def quote(self, line: int) -> str | None:
        """The file's line ``line`` (from 1) as a diagnostic quotes it."""
        from .dsl.diagnostics import display_line

        return display_line(self.lines[line - 1]) if 0 < line <= len(self.lines) else None

    def error(self, err: CompileError) -> CompileError:
        """``err`` with every diagnostic at the file's position."""
        found = [self.diagnostic(d) for d in err.diagnostics]
        return CompileError(found[0], tuple(found[1:]))

    def where(self) -> str:
        """``path:line:col`` of the text's start."""
        return f"{self.path or 'workload'}:{self.line}:{self.col + 1}"


def _text_at(node: Any, lines: tuple[str, ...], path: str | None) -> TextAt | None:
    """The :class:`TextAt` of a composed YAML scalar node (None for another node)."""
    import yaml

    if not isinstance(node, yaml.ScalarNode):
        return None
    mark = node.start_mark
    if node.style == "|":
        first = mark.line + 1  # index of the block's first content line
        indent = next((len(ln) - len(ln.lstrip(" ")) for ln in lines[first:] if ln.strip()), 0)
        return TextAt(path, first + 1, indent, True, True, lines)
    quoted = 1 if node.style in ("'", '"') else 0
    exact = node.style != ">" and node.end_mark.line == mark.line
    return TextAt(path, mark.line + 1, mark.column + quoted, False, exact, lines)


class _Node:
    """A composed YAML node, for looking up where a key's value sits."""

    def __init__(self, node: Any, lines: tuple[str, ...], path: str | None):
        self.node = node
        self.lines = lines
        self.path = path

    def get(self, key: Any) -> _Node | None:
        """The value node of ``key`` (a mapping) or item ``key`` (a sequence)."""
        import yaml

        if isinstance(self.node, yaml.MappingNode):
            for k, v in self.node.value:
                if isinstance(k, yaml.ScalarNode) and k.value == str(key):
                    return _Node(v, self.lines, self.path)
        elif isinstance(self.node, yaml.SequenceNode) and isinstance(key, int) and 0 <= key < len(self.node.value):
            return _Node(self.node.value[key], self.lines, self.path)
        return None

    def at(self) -> TextAt:
        """Where this node's value starts (exactly, for a scalar)."""
        found = _text_at(self.node, self.lines, self.path)
        if found is not None:
            return found
        mark = self.node.start_mark
        return TextAt(self.path, mark.line + 1, mark.column, False, False, self.lines)


def _at(node: _Node | None, *keys: Any) -> TextAt | None:
    """Where the value under ``keys`` of ``node`` sits (None: not known)."""
    for key in keys:
        if node is None:
            return None
        node = node.get(key)
    return node.at() if node is not None else None


@dataclass(frozen=True)
class Level:
    """One ``for_each`` level: a comprehension and the bindings of its scope."""

    each: str
    bindings: str = ""
    each_at: TextAt | None = None
    bindings_at: TextAt | None = None


def phase_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a phase, or None. A phase name is a table
    name (its file is ``DIR/NAME.FORMAT``), never a path: it may not be
    empty, hold a path separator (``/``, ``\\``) or a NUL, or be ``.`` or ``..``."""
    if not name:
        return "is empty"
    if "/" in name or "\\" in name or (os.altsep and os.altsep in name):
        return "holds a path separator"
    if name in (".", ".."):
        return "is a path component"
    if "\0" in name:
        return "holds a NUL character"
    return None


def _bad_phase_name(where: str, name: str, problem: str) -> WorkloadError:
    return WorkloadError(
        f"{where}: phase name {name!r} {problem}; a phase name is a table name (its file is "
        "DIR/NAME.FORMAT), not a path"
    )


@dataclass(frozen=True)
class Phase:
    """One phase: its iteration levels, rows program, row count and emitted
    columns (``emit``: exactly these; None: the default, see the module). Its
    name is a table name (:func:`phase_name_problem` says which are not)."""

    name: str
    levels: tuple[Level, ...] = ()
    bindings: str = ""
    cycles: str = "1"
    emit: tuple[str, ...] | None = None
    bindings_at: TextAt | None = None
    cycles_at: TextAt | None = None
    emit_at: tuple[TextAt | None, ...] = ()
    """Where each ``emit`` name is written."""

    def __post_init__(self) -> None:
        problem = phase_name_problem(self.name)
        if problem is not None:
            raise _bad_phase_name("workload", self.name, problem)


@dataclass
class Workload:
    """A workload file: parameters, the workload scope's bindings, phases."""

    params: dict[str, Any]
    bindings: str
    phases: list[Phase]
    path: str | None = None
    engine: str = "auto"
    strict: bool = False
    """Every scope is compiled in strict mode (the YAML key ``strict: true``)."""
    bindings_at: TextAt | None = None
    _chain: Any = field(default=None, init=False, repr=False)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Workload:
        """Reads a workload YAML file (see the module)."""
        import yaml

        path = os.fspath(path)
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except UnicodeDecodeError:
            raise _not_utf8(path) from None
        loader = yaml.SafeLoader(text)
        try:
            node = loader.get_single_node()
            data = loader.construct_document(node) if node is not None else None
        except yaml.YAMLError as err:
            raise WorkloadError(f"{path}: not valid YAML: {err}") from None
        finally:
            loader.dispose()
        lines = tuple(text.split("\n"))
        return cls.from_dict(data, path=path, _node=_Node(node, lines, path) if node is not None else None)

    @classmethod
    def from_dict(cls, data: Any, path: str | None = None, _node: _Node | None = None) -> Workload:
        """A workload from its YAML data (a mapping)."""
        where = path or "workload"
        if not isinstance(data, Mapping):
            raise WorkloadError(f"{where}: a workload is a mapping with params, bindings and phases")
        unknown = sorted(set(data) - {"params", "bindings", "phases", "description", "strict"})
        if unknown:
            raise WorkloadError(f"{where}: unknown key '{unknown[0]}' (keys: params, bindings, phases, strict)")
        params = data.get("params") or {}
        if not isinstance(params, Mapping):
            raise WorkloadError(f"{where}: params must be a mapping of names to values")
        for name, value in params.items():
            _check_param(where, name, value)
        strict = data.get("strict", False)
        if not isinstance(strict, bool):
            raise WorkloadError(f"{where}: strict is true or false")
        bindings = _text(data.get("bindings"), f"{where}: bindings")
        phases_data = data.get("phases")
        if not phases_data:
            raise WorkloadError(f"{where}: a workload needs phases")
        phases_node = _node.get("phases") if _node is not None else None
        if isinstance(phases_data, Mapping):
            items = [(name, spec, phases_node.get(name) if phases_node else None) for name, spec in phases_data.items()]
        elif isinstance(phases_data, list):
            items = []
            for i, entry in enumerate(phases_data):
                if not isinstance(entry, Mapping) or "name" not in entry:
                    raise WorkloadError(f"{where}: phase #{i + 1} needs a name")
                spec = {k: v for k, v in entry.items() if k != "name"}
                items.append((entry["name"], spec, phases_node.get(i) if phases_node else None))
        else:
            raise WorkloadError(f"{where}: phases must be a mapping of phase names to phases")
        for name, _, _ in items:
            problem = phase_name_problem(str(name))
            if problem is not None:
                raise _bad_phase_name(_phase_key_position(path, str(name)) or where, str(name), problem)
        phases = [_phase(where, str(name), spec, node) for name, spec, node in items]
        names = [p.name for p in phases]
        for i, name in enumerate(names):
            if name in names[:i]:
                raise WorkloadError(f"{where}: phase '{name}' is defined twice")
        return cls(dict(params), bindings, phases, path, strict=strict, bindings_at=_at(_node, "bindings"))

    def with_params(self, **values: Any) -> Workload:
        """A copy with some parameters replaced (each keeps its kind)."""
        params = dict(self.params)
        for name, value in values.items():
            if name not in params:
                from . import _core

                hint = _core.suggest(name, list(params))
                more = f"; did you mean '{hint}'?" if hint else f"; params are: {', '.join(params) or '(none)'}"
                raise ArgumentError(f"no param named '{name}'{more}")
            _check_param(self.path or "workload", name, value)
            params[name] = value
        return replace(self, params=params)

    def parse_param(self, name: str, text: str) -> Any:
        """``text`` read as parameter ``name``'s kind (the command line's ``-p name=value``)."""
        if name not in self.params:
            from . import _core

            hint = _core.suggest(name, list(self.params))
            more = f"; did you mean '{hint}'?" if hint else f"; params are: {', '.join(self.params) or '(none)'}"
            raise ArgumentError(f"no param named '{name}'{more}")
        current = self.params[name]
        try:
            if isinstance(current, bool):
                lowered = text.strip().lower()
                if lowered not in ("true", "false", "1", "0"):
                    raise ValueError
                return lowered in ("true", "1")
            if isinstance(current, int):
                return int(text.strip(), 0)
            if isinstance(current, float):
                return float(text)
        except ValueError:
            kind = type(current).__name__
            raise ArgumentError(f"param '{name}' is {kind} ({current!r}); cannot read {text!r} as one") from None
        return text

    # -- the chain ------------------------------------------------------------

    def chain(self) -> Any:
        """The compiled chain: params kernel, workload kernel (built once)."""
        if self._chain is None:
            self._chain = _Chain(self)
        return self._chain

    def columns(self, phase: str | Phase) -> list[str]:
        """The columns of a phase's table (see the module: ``emit``, or the
        iteration variables and the rows program's bindings but its helpers)."""
        return self.chain().columns(self._phase(phase))

    def check(self) -> list[Diagnostic]:
        """Every error and warning of the workload, at the YAML file's
        positions: each scope is compiled (the workload's bindings, then every
        phase's levels and rows program, along the phase's first iteration
        with the current params) and each phase's row count resolved. A phase
        that fails does not stop the others; never raises for a bad workload."""
        try:
            chain = self.chain()
        except PolydatError as err:
            return _diagnostics(err)
        found: list[Diagnostic] = []
        for phase in self.phases:
            try:
                found.extend(chain.compile_phase(phase))
            except PolydatError as err:
                found.extend(_diagnostics(err))
        for scope in chain.scopes:
            found.extend(scope.warnings())
        return found

    def explain(self) -> str:
        """What the compiler did with each scope of the workload (the scopes
        :meth:`check` compiles), one section per scope."""
        return "\n\n".join(
            f"== {label}{f' ({at.where()})' if at is not None else ''} ==\n{program.explain()}"
            for label, program, at in self._scopes()
        )

    def programs(self) -> list[tuple[str, Any]]:
        """The compiled scope programs as ``(label, Program)``, in chain order:
        the workload's bindings, then each phase's levels and rows program
        (those :meth:`explain` describes)."""
        return [(label, program) for label, program, _at in self._scopes()]

    def _scopes(self) -> list[tuple[str, Any, TextAt | None]]:
        chain = self.chain()
        for phase in self.phases:
            chain.compile_phase(phase)
        return [(scope.label, scope.program, scope.at) for scope in chain.scopes]

    def _phase(self, phase: str | Phase) -> Phase:
        if isinstance(phase, Phase):
            return phase
        for p in self.phases:
            if p.name == phase:
                return p
        from . import _core

        hint = _core.suggest(phase, [p.name for p in self.phases])
        raise ArgumentError(f"no phase named '{phase}'" + (f"; did you mean '{hint}'?" if hint else ""))

    def write(
        self,
        phase: str | Phase,
        out: IO[bytes],
        format: str = "csv",
        threads: int = 1,
        part: tuple[int, int] | None = None,
    ) -> int:
        """Writes the table of ``phase`` to ``out`` as CSV (with a header),
        JSON Lines, Parquet or an Arrow IPC stream (``"arrow"``); returns the
        row count. ``part=(i, n)`` writes
        only part ``i`` (from 0) of ``n``: the phase's outermost iteration
        tuples (its cycles, without ``for_each``) cut into ``n`` contiguous
        runs. The parts, in order, hold the table's rows; only part 0 of a
        CSV has the header, so the parts' text, concatenated, is the whole
        table's byte for byte."""
        from . import _core

        _core.check_threads(threads)
        _check_part(part)
        chain = self.chain()
        phase = self._phase(phase)
        columns = chain.columns(phase)
        if format == "parquet":
            encode = parquet_encoding(chain.declared_schema(phase, None))
            batches = chain.stream(phase, threads, encode, part)
            return write_parquet_batches(out, batches, lambda: chain.declared_schema(phase, encode))
        if format == "arrow":
            import pyarrow as pa

            writer = None
            total = 0
            try:
                for produced, rows in chain.stream(phase, threads, None, part):
                    batch = pa.record_batch(produced)
                    if writer is None:
                        writer = pa.ipc.new_stream(out, batch.schema)
                    writer.write_batch(batch)
                    total += rows
                if writer is None:  # no row: a file with the schema
                    writer = pa.ipc.new_stream(out, chain.declared_schema(phase, None))
            finally:
                if writer is not None:
                    writer.close()
            return total
        if format not in ("csv", "jsonl"):
            raise ArgumentError(f"format must be csv, jsonl, parquet or arrow, not {format!r}")
        if format == "csv" and (part is None or part[0] == 0):
            out.write(_core.text_header(columns, "csv"))
        native = chain.native(phase)
        if native is not None:
            with appending(out) as path:
                if path is not None:
                    return native.write_text(threads, format, part, path)
        total = 0
        for text, rows in chain.stream(phase, threads, format, part):
            out.write(text)
            total += rows
        return total

    def table(self, phase: str | Phase, threads: int = 1) -> Any:
        """The table of ``phase`` as a ``pyarrow.Table``."""
        import pyarrow as pa

        from . import _core

        _core.check_threads(threads)
        chain = self.chain()
        phase = self._phase(phase)
        batches = [pa.record_batch(b) for b, _ in chain.stream(phase, threads, None, None)]
        if not batches:
            return chain.declared_schema(phase, None).empty_table()
        return pa.Table.from_batches(batches)

    def tables(self, threads: int = 1) -> dict[str, Any]:
        """Every phase's table, as ``pyarrow.Table`` s by phase name."""
        return {p.name: self.table(p, threads) for p in self.phases}

    def run(self, out_dir: str | os.PathLike[str], format: str = "csv", threads: int = 1) -> dict[str, str]:
        """Writes every phase's table to ``out_dir/<phase>.<format>``; returns
        the files by phase name."""
        out_dir = os.fspath(out_dir)
        os.makedirs(out_dir, exist_ok=True)
        written = {}
        for phase in self.phases:
            target = os.path.join(out_dir, f"{phase.name}.{format}")
            with open(target, "wb") as f:
                self.write(phase, f, format, threads)
            written[phase.name] = target
        return written


def _not_utf8(path: str) -> WorkloadError:
    """The error of a workload file that is not UTF-8 text, at the first bad byte."""
    from .dsl.diagnostics import read_source

    try:
        read_source(path)
    except CompileError as err:
        return WorkloadError(str(err))
    return WorkloadError(f"{path}: not UTF-8 text")


def _phase_key_position(path: str | None, name: str) -> str | None:
    """``PATH:LINE:COL`` of phase ``name``'s name in the workload file at
    ``path`` (its key under ``phases``, or its ``name:`` value in a list),
    or None when it cannot be found."""
    if path is None:
        return None
    import yaml

    try:
        with open(path, encoding="utf-8") as f:
            root = yaml.compose(f)
    except (OSError, yaml.YAMLError):
        return None
    if not isinstance(root, yaml.MappingNode):
        return None
    phases = next((v for k, v in root.value if k.value == "phases"), None)
    nodes: list[Any] = []
    if isinstance(phases, yaml.MappingNode):
        nodes = [k for k, _ in phases.value]
    elif isinstance(phases, yaml.SequenceNode):
        for entry in phases.value:
            if isinstance(entry, yaml.MappingNode):
                nodes += [v for k, v in entry.value if k.value == "name"]
    for node in nodes:
        if isinstance(node, yaml.ScalarNode) and str(node.value) == name:
            return f"{path}:{node.start_mark.line + 1}:{node.start_mark.column + 1}"
    return None


def _check_part(part: Any) -> None:
    """Refuses a ``part`` that is not ``(i, n)`` with ``0 <= i < n``."""
    if part is None:
        return
    ok = isinstance(part, tuple) and len(part) == 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in part)
    if not ok or not 0 <= part[0] < part[1]:
        raise ArgumentError(f"part must be (i, n) with 0 <= i < n, not {part!r}")


def _check_param(where: str, name: Any, value: Any) -> None:
    if not isinstance(name, str) or not name.isidentifier() or name.startswith("__"):
        raise WorkloadError(f"{where}: param name {name!r} is not a valid name")
    if not isinstance(value, (bool, int, float, str)):
        raise WorkloadError(
            f"{where}: param '{name}' is a {type(value).__name__}; params are numbers, strings or booleans"
        )
    if isinstance(value, int) and not isinstance(value, bool):
        from .dsl import corerules

        if corerules.int_literal_type(value) is None:
            raise WorkloadError(f"{where}: param '{name}' = {value} does not fit in 64 bits")


def _text(value: Any, what: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise WorkloadError(f"{what} must be DSL source text (a YAML block: `bindings: |`)")
    return value


def _phase(where: str, name: str, spec: Any, node: _Node | None = None) -> Phase:
    here = f"{where}: phase '{name}'"
    if spec is None:
        spec = {}
    if not isinstance(spec, Mapping):
        raise WorkloadError(f"{here} must be a mapping (for_each, cycles, bindings, emit)")
    unknown = sorted(set(spec) - {"for_each", "cycles", "bindings", "emit", "description"})
    if unknown:
        raise WorkloadError(f"{here}: unknown key '{unknown[0]}' (keys: for_each, cycles, bindings, emit)")
    levels: list[Level] = []
    for_each = spec.get("for_each")
    if for_each is not None:
        listed = isinstance(for_each, list)
        entries = for_each if listed else [for_each]
        for i, entry in enumerate(entries):
            keys: tuple[Any, ...] = ("for_each", i) if listed else ("for_each",)
            if isinstance(entry, str):
                levels.append(Level(entry, each_at=_at(node, *keys)))
            elif isinstance(entry, Mapping) and isinstance(entry.get("each"), str):
                extra = sorted(set(entry) - {"each", "bindings"})
                if extra:
                    raise WorkloadError(f"{here}: for_each level {i + 1} has an unknown key '{extra[0]}'")
                levels.append(Level(
                    entry["each"],
                    _text(entry.get("bindings"), f"{here}: for_each level {i + 1}"),
                    _at(node, *keys, "each"),
                    _at(node, *keys, "bindings"),
                ))
            else:
                raise WorkloadError(
                    f"{here}: for_each is a comprehension, or a list of them (each a string or "
                    "{each: ..., bindings: ...})"
                )
    cycles = spec.get("cycles", 1)
    if isinstance(cycles, bool) or not isinstance(cycles, (int, str)):
        raise WorkloadError(f"{here}: cycles is a count, a range A..B, or text with {{name}} references")
    emit = spec.get("emit")
    emit_at: tuple[TextAt | None, ...] = ()
    if emit is not None:
        if isinstance(emit, str):
            emit_at = tuple(_at(node, "emit") for e in emit.split(",") if e.strip())
            emit = [e.strip() for e in emit.split(",") if e.strip()]
        elif isinstance(emit, list):
            emit_at = tuple(_at(node, "emit", i) for i in range(len(emit)))
        if not isinstance(emit, list) or not all(isinstance(e, str) for e in emit):
            raise WorkloadError(f"{here}: emit is a list of names")
        for i, e in enumerate(emit):
            if e in emit[:i]:
                raise WorkloadError(f"{here}: emit lists '{e}' twice")
        emit = tuple(emit)
    return Phase(
        name,
        tuple(levels),
        _text(spec.get("bindings"), f"{here}: bindings"),
        str(cycles),
        emit,
        _at(node, "bindings"),
        _at(node, "cycles"),
        emit_at,
    )


def _params_program(params: Mapping[str, Any], engine: str, path: str | None) -> Any:
    """The params scope: one unfolded-by-name ``const NAME := <literal>`` per
    parameter (built as IR, so any string is taken as it is)."""
    from . import _core
    from .api import CompileOptions, Program
    from .dsl import BoundProgram, ast, corerules

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


class _Plan:
    """One phase, ready to walk: its levels' comprehensions (parsed once),
    their programs (compiled once per iteration types), the rows program."""

    def __init__(self, chain: _Chain, phase: Phase):
        from .dsl.comprehension import parse_text

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
        """The table's columns (see the module): ``emit``, or the iteration
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
    from .dsl import source_lines

    lines = source_lines(source)
    return lines[line - 1] if 0 < line <= len(lines) else None


def _diagnostics(err: PolydatError) -> list[Diagnostic]:
    """An error as diagnostics (a workload error is one, at its position when known)."""
    if isinstance(err, CompileError):
        return list(err.diagnostics)
    if isinstance(err, WorkloadError) and err.line:
        return [Diagnostic(err.message, err.line, err.col, None, "error", err.source_line, err.path)]
    return [Diagnostic(str(err))]


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
class _Scope:
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


class _Chain:
    """A workload's compiled scopes and the runs of each phase."""

    def __init__(self, workload: Workload):
        self.workload = workload
        self.path = workload.path
        from .api import CompileOptions

        self.options = CompileOptions(engine=workload.engine, strict=workload.strict)
        self.scopes: list[_Scope] = []
        """Every scope compiled so far, in order (``check`` and ``explain`` read them)."""
        params = _params_program(workload.params, workload.engine, self.path)
        self.params_kernel = params.kernel()
        if workload.bindings.strip():
            program = self._compile("workload bindings", workload.bindings, workload.bindings_at, self.params_kernel)
            self.root = program.kernel(self.params_kernel)
        else:
            self.root = self.params_kernel
        self._plans: dict[str, _Plan] = {}
        self._native: dict[str, _Native | None] = {}

    def plan(self, phase: Phase) -> _Plan:
        plan = self._plans.get(phase.name)
        if plan is None:
            plan = self._plans[phase.name] = _Plan(self, phase)
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
        ``cycle`` (see the module)."""
        from .api import _compile_source

        coordinates = (ROW_COORDINATE,) if rows else ()
        try:
            program = _compile_source(
                source, self.path, self.options, outer=outer, iteration=iteration, keep=keep, coordinates=coordinates
            )
        except CompileError as err:
            raise _located(err, at, keep, emit_at) from None
        unset = [name for name in program.coordinates if name not in coordinates]
        scope = _Scope(label, program, at, frozenset(unset))
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

    def _compile_rows(self, plan: _Plan, outer: Any) -> None:
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

        from . import _core

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
        return pa.record_batch(_core.fill_runs([(kernel, start, 0)], self.columns(phase), encode or "arrow")).schema

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
            lo, hi = _part_bounds(rows, part)
            yield kernel, start + lo, hi - lo

    def _walk(
        self, plan: _Plan, level: int, outer: Any, counters: list[Any], part: tuple[int, int] | None = None
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
        types, tuples = self._open(plan, level, outer)
        program = self._level_program(plan, level, outer, types)
        bind = program._core.kernel
        names = list(types)
        ordinals = counters[1]
        deeper = level + 1
        chosen = self._passing(tuples, spec)
        lo, hi = 0, None
        if part is not None:
            listed = list(chosen)
            lo, hi = _part_bounds(len(listed), part)
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

    def _open(self, plan: _Plan, level: int, outer: Any) -> tuple[dict[str, str], Iterator[tuple[Any, ...]]]:
        """The types and tuples of level ``level``'s comprehension under ``outer``."""
        parsed = plan.levels[level]
        try:
            return open_comprehension(parsed, outer, outer.value_of, self.workload.engine, self.workload.strict)
        except CompileError as err:
            raise _located(err, plan.phase.levels[level].each_at) from None
        except PolydatError as err:
            raise WorkloadError(f"{plan.where}, for_each {parsed.text!r}:\n{err}") from None

    def _level_program(self, plan: _Plan, level: int, outer: Any, types: dict[str, str]) -> Any:
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
        (``[(core kernel, start, rows)]``, rows) — what ``fill_runs`` takes;
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
        scope (:class:`_Native`); any other walks its scopes here."""
        from . import _core

        native = self.native(phase)
        if native is not None:
            yield from native.stream(threads, encode, part)
            return
        columns = self.columns(phase)
        for runs, rows in self.batches(phase, part):
            yield _core.fill_runs(runs, columns, encode or "arrow", threads), rows

    def native(self, phase: Phase) -> _Native | None:
        """The phase's rows as the core runs them without a kernel per
        scope, or None when the phase needs its scopes walked one by one."""
        if phase.name not in self._native:
            self._native[phase.name] = _Native.of(self, phase)
        return self._native[phase.name]


def _part_bounds(count: int, part: tuple[int, int] | None) -> tuple[int, int]:
    """The indices ``[lo, hi)`` of part ``i`` of ``n`` of ``count`` items:
    ``count * i // n`` up to ``count * (i + 1) // n`` (everything without a part)."""
    if part is None:
        return 0, count
    i, n = part
    return count * i // n, count * (i + 1) // n


_COUNT_NAME = re.compile(r"^\s*\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\s*$")


@dataclass
class _Native:
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
    def of(cls, chain: _Chain, phase: Phase) -> _Native | None:
        from . import _core
        from .api import _compile_source

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
        types, _ = chain._open(plan, 0, chain.root._core)
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
            program = _compile_source(
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
        from . import _core

        if self.parents is None:
            assert self.cycles is not None and self.coordinate is not None
            start, rows = self.cycles
            lo, hi = _part_bounds(rows, part)
            if hi == lo:
                return None
            plan = _core.RunPlan(self.coordinate, start + lo, hi - lo, 1, self.columns, [], threads)
            return _core.batches(self.kernel, plan, batch_rows=RUN_BATCH_ROWS, encode=encode)
        lo, hi = _part_bounds(len(self.parents), part)
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
        """(batch, rows) of the phase's rows (see :meth:`_Chain.stream`)."""
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
