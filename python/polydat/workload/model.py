"""The workload file's model: the YAML read into a :class:`Workload` of
:class:`Phase` s and :class:`Level` s, checked, with where each text sits in
the file (:class:`TextAt`), so every diagnostic points at the file's own line
and column (see :mod:`polydat.workload`). Running a workload is
:mod:`~polydat.workload.chain`'s and writing its tables
:mod:`~polydat.workload.output`'s; both build on this module, so a
workload imports them when first asked."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import IO, Any

from .. import _core
from ..errors import ArgumentError, CompileError, Diagnostic, PolydatError


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


WORKLOAD_KEYS = ("params", "bindings", "phases", "strict", "description")
"""The keys of a workload file's top-level mapping."""

PHASE_KEYS = ("for_each", "cycles", "bindings", "emit", "description")
"""The keys of a phase."""

LEVEL_KEYS = ("each", "bindings")
"""The keys of a ``for_each`` level written as a mapping."""


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
        from ..dsl.diagnostics import display_line

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


class _YamlNode:
    """A composed YAML node, for looking up where a key's value sits."""

    def __init__(self, node: Any, lines: tuple[str, ...], path: str | None):
        self.node = node
        self.lines = lines
        self.path = path

    def get(self, key: Any) -> _YamlNode | None:
        """The value node of ``key`` (a mapping) or item ``key`` (a sequence)."""
        import yaml

        if isinstance(self.node, yaml.MappingNode):
            for k, v in self.node.value:
                if isinstance(k, yaml.ScalarNode) and k.value == str(key):
                    return _YamlNode(v, self.lines, self.path)
        elif isinstance(self.node, yaml.SequenceNode) and isinstance(key, int) and 0 <= key < len(self.node.value):
            return _YamlNode(self.node.value[key], self.lines, self.path)
        return None

    def key_error(self, key: str, message: str) -> WorkloadError:
        """A :class:`WorkloadError` at ``key`` of this mapping (at the mapping
        itself when the key is not found)."""
        import yaml

        mark = self.node.start_mark
        if isinstance(self.node, yaml.MappingNode):
            mark = next((k.start_mark for k, _ in self.node.value if getattr(k, "value", None) == key), mark)
        return _error_at(mark, message, self.lines, self.path)

    def at(self) -> TextAt:
        """Where this node's value starts (exactly, for a scalar)."""
        found = _text_at(self.node, self.lines, self.path)
        if found is not None:
            return found
        mark = self.node.start_mark
        return TextAt(self.path, mark.line + 1, mark.column, False, False, self.lines)


def _error_at(mark: Any, message: str, lines: tuple[str, ...], path: str | None) -> WorkloadError:
    """A :class:`WorkloadError` at a YAML mark (0-based line and column)."""
    quoted = lines[mark.line] if 0 <= mark.line < len(lines) else None
    return WorkloadError(message, mark.line + 1, mark.column + 1, path, quoted)


def _refuse_duplicate_keys(node: Any, lines: tuple[str, ...], path: str | None) -> None:
    """Raises a :class:`WorkloadError` at the second of two equal keys of any
    mapping under ``node`` (YAML would keep the last one's value and
    silently drop the first: a phase, a param, a phase's bindings)."""
    import yaml

    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, yaml.MappingNode):
            seen: dict[str, Any] = {}
            for key, value in item.value:
                if isinstance(key, yaml.ScalarNode):
                    first = seen.setdefault(key.value, key)
                    if first is not key:
                        raise _error_at(
                            key.start_mark,
                            f"key '{key.value}' appears twice in this mapping (first at line "
                            f"{first.start_mark.line + 1}); YAML would keep only the last",
                            lines, path,
                        )
                stack.append(value)
        elif isinstance(item, yaml.SequenceNode):
            stack.extend(item.value)


def _unknown_key(here: str, key: Any, allowed: Sequence[str], node: _YamlNode | None) -> WorkloadError:
    """The error of a key a workload mapping does not know, at the key when
    its position is known, with the closest known key."""
    from ..dsl.corerules import suggest

    near = suggest(str(key), allowed) if isinstance(key, str) else None
    message = f"unknown key '{key}' ({f'did you mean {near!r}? ' if near else ''}keys: {', '.join(allowed)})"
    if node is not None and node.path:  # the position names the file
        here = "" if here == node.path else here.removeprefix(f"{node.path}: ")
    message = f"{here}: {message}" if here else message
    return node.key_error(str(key), message) if node is not None else WorkloadError(message)


def _at(node: _YamlNode | None, *keys: Any) -> TextAt | None:
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
    columns (``emit``: exactly these; None: the default, see :mod:`polydat.workload`). Its
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
        """Reads a workload YAML file (see :mod:`polydat.workload`)."""
        import yaml

        from ..dsl.diagnostics import read_source

        path = os.fspath(path)
        try:
            text = read_source(path)
        except CompileError as err:  # not UTF-8, not a regular file, too large: at the file
            raise WorkloadError(str(err)) from None
        loader = yaml.SafeLoader(text)
        try:
            node = loader.get_single_node()
            data = loader.construct_document(node) if node is not None else None
        except yaml.YAMLError as err:
            raise WorkloadError(f"{path}: not valid YAML: {err}") from None
        finally:
            loader.dispose()
        lines = tuple(text.split("\n"))
        if node is not None:
            _refuse_duplicate_keys(node, lines, path)
        return cls.from_dict(data, path=path, _node=_YamlNode(node, lines, path) if node is not None else None)

    @classmethod
    def from_dict(cls, data: Any, path: str | None = None, _node: _YamlNode | None = None) -> Workload:
        """A workload from its YAML data (a mapping)."""
        where = path or "workload"
        if not isinstance(data, Mapping):
            raise WorkloadError(f"{where}: a workload is a mapping with params, bindings and phases")
        unknown = [key for key in data if key not in WORKLOAD_KEYS]
        if unknown:
            raise _unknown_key(where, unknown[0], WORKLOAD_KEYS, _node)
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
                from ..dsl.corerules import suggest

                hint = suggest(name, list(params))
                more = f"; did you mean '{hint}'?" if hint else f"; params are: {', '.join(params) or '(none)'}"
                raise ArgumentError(f"no param named '{name}'{more}")
            _check_param(self.path or "workload", name, value)
            params[name] = value
        return replace(self, params=params)

    def parse_param(self, name: str, text: str) -> Any:
        """``text`` read as parameter ``name``'s kind (the command line's ``-p name=value``)."""
        if name not in self.params:
            from ..dsl.corerules import suggest

            hint = suggest(name, list(self.params))
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
        """The compiled chain (a :class:`~polydat.workload.chain.ScopeChain`:
        params kernel, workload kernel, ...), built once."""
        if self._chain is None:
            from .chain import ScopeChain

            self._chain = ScopeChain(self)
        return self._chain

    def columns(self, phase: str | Phase) -> list[str]:
        """The columns of a phase's table (see :mod:`polydat.workload`: ``emit``, or the
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
            return error_diagnostics(err)
        found: list[Diagnostic] = []
        for phase in self.phases:
            try:
                found.extend(chain.compile_phase(phase))
            except PolydatError as err:
                found.extend(error_diagnostics(err))
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
        from ..dsl.corerules import suggest

        hint = suggest(phase, [p.name for p in self.phases])
        raise ArgumentError(f"no phase named '{phase}'" + (f"; did you mean '{hint}'?" if hint else ""))

    def write(
        self,
        phase: str | Phase,
        out: IO[bytes],
        format: str = "csv",
        threads: int = 1,
        part: tuple[int, int] | None = None,
    ) -> int:
        """Writes the table of ``phase`` to ``out`` in ``format``, a name of the
        core's registry of output formats (:func:`polydat.dsl.corerules.formats`):
        CSV (with a header), JSON Lines, Parquet or an Arrow IPC stream
        (``"arrow"``); returns the
        row count. ``part=(i, n)`` writes
        only part ``i`` (from 0) of ``n``: the phase's outermost iteration
        tuples (its cycles, without ``for_each``) cut into ``n`` contiguous
        runs. The parts, in order, hold the table's rows, and each is a
        file of the table by itself (a CSV part has the header, a Parquet
        part the table's schema and nullability): readers take the parts
        as one dataset."""
        from .output import write_phase

        _core.check_threads(threads)
        _check_part(part)
        return write_phase(self.chain(), self._phase(phase), out, format, threads, part)

    def table(self, phase: str | Phase, threads: int = 1) -> Any:
        """The table of ``phase`` as a ``pyarrow.Table``."""
        import pyarrow as pa

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
        """Writes every phase's table to ``out_dir/<phase><extension>`` (the
        format's first file extension: ``users.csv``); returns the files by
        phase name."""
        from ..dsl.corerules import format_named

        fmt = format_named(format) if isinstance(format, str) else None
        extension = fmt.extensions[0] if fmt is not None else f".{format}"  # an unknown one is refused by write
        out_dir = os.fspath(out_dir)
        os.makedirs(out_dir, exist_ok=True)
        written = {}
        for phase in self.phases:
            target = os.path.join(out_dir, f"{phase.name}{extension}")
            with open(target, "wb") as f:
                self.write(phase, f, format, threads)
            written[phase.name] = target
        return written

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
        from ..dsl import corerules

        if corerules.int_literal_type(value) is None:
            raise WorkloadError(f"{where}: param '{name}' = {value} does not fit in 64 bits")


def _text(value: Any, what: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise WorkloadError(f"{what} must be DSL source text (a YAML block: `bindings: |`)")
    return value


def _phase(where: str, name: str, spec: Any, node: _YamlNode | None = None) -> Phase:
    here = f"{where}: phase '{name}'"
    if spec is None:
        spec = {}
    if not isinstance(spec, Mapping):
        raise WorkloadError(f"{here} must be a mapping (for_each, cycles, bindings, emit)")
    unknown = [key for key in spec if key not in PHASE_KEYS]
    if unknown:
        raise _unknown_key(here, unknown[0], PHASE_KEYS, node)
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
                extra = [key for key in entry if key not in LEVEL_KEYS]
                if extra:
                    level_node = node.get("for_each") if node is not None else None
                    if level_node is not None and listed:
                        level_node = level_node.get(i)
                    raise _unknown_key(f"{here}: for_each level {i + 1}", extra[0], LEVEL_KEYS, level_node)
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

def error_diagnostics(err: PolydatError) -> list[Diagnostic]:
    """An error as diagnostics (a workload error is one, at its position when
    known): what :meth:`Workload.check` and ``polydat check`` report."""
    if isinstance(err, CompileError):
        return list(err.diagnostics)
    if isinstance(err, WorkloadError) and err.line:
        return [Diagnostic(err.message, err.line, err.col, None, "error", err.source_line, err.path)]
    return [Diagnostic(str(err))]
