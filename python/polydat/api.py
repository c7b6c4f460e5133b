"""The public API: compile a program, make kernels, generate columns.

This layer is thin on purpose: the frontend (``polydat.dsl``) turns source into
graph IR, and the Rust core (``polydat._core``) compiles and runs it.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from . import _core
from .errors import ArgumentError, CompileError, Diagnostic, OutOfMemoryError, PolydatError
from .stream import SEGMENT_ROWS, BatchIterator, Stream

PyValue = Any
"""A value crossing the boundary: int, float, str, bytes, bool or None."""

def _with_source(err: CompileError, source: str, path: str | None) -> CompileError:
    """Re-renders a core compile error with the source line under it (lines
    split by the frontend's one rule, so the line quoted is the one counted)."""
    from .dsl import source_lines

    lines = source_lines(source)
    fixed = []
    for d in err.diagnostics:
        line_text = lines[d.line - 1] if 0 < d.line <= len(lines) else None
        fixed.append(
            Diagnostic(d.message, d.line, d.col, d.hint, d.severity, d.source_line or line_text, d.path or path)
        )
    return CompileError(fixed[0], tuple(fixed[1:]))


MAX_THREADS: int = _core.MAX_THREADS
"""The most worker threads :meth:`Program.generate` starts (the core checks
``threads`` when a run's plan is made)."""

GENERATE_BATCH_ROWS = 1 << 17
"""Rows per record batch (table chunk) of ``generate(format="arrow")``. The
core makes the next batch while this thread takes in the last one, and reuses
its workers' buffers from batch to batch, so a large table comes faster in
chunks of this size than in chunks of a million rows or more."""

ARROW_TYPES = {
    "u64": "uint64",
    "i64": "int64",
    "u32": "uint32",
    "i32": "int32",
    "f64": "double",
    "f32": "float",
    "bool": "bool",
    "str": "string",
    "json": "string",
    "bytes": "binary",
}
"""The Arrow type of each declared type (every field nullable; a ``json``
field's metadata says ``polydat.type: json``)."""


@dataclass(frozen=True)
class CompileOptions:
    """How a program is compiled, besides its source and outer scope (see
    :func:`compile`): made once per compile and kept by the program, which
    compiles its ``for`` bodies and its unpickled copy with the same options
    (a variant is ``dataclasses.replace(options, ...)``)."""

    engine: str = "auto"
    provenance: str = "auto"
    library_path: tuple[str, ...] = ()
    """Module directories searched besides the source file's own."""
    strict: bool = False
    """Refuse implicit coercions and free names nobody provides."""
    strict_names: bool = False
    """Refuse free names nobody provides (without ``strict``'s typing)."""
    outputs: tuple[str, ...] | None = None
    """Keep only these outputs (None: every output)."""
    fusion: bool = True


@dataclass(frozen=True)
class _OuterScope:
    """What a program compiled against an outer scope was compiled against,
    kept to compile it again where it is unpickled: the outer scope's
    manifest (JSON text), the iteration variables and the kept names."""

    manifest: str | None
    iteration: tuple[tuple[str, str], ...]
    keep: tuple[str, ...]


def _pyarrow(what: str) -> Any:
    """pyarrow, or a clear error when it is not installed."""
    try:
        import pyarrow
    except ImportError:
        raise ImportError(
            f"{what} needs pyarrow (pip install pyarrow)"
        ) from None
    return pyarrow


class Program:
    """A compiled, immutable program. Thread-safe: share it, and give each
    thread its own :meth:`kernel`. A program pickles as its source and compile
    options (it is compiled again where it is unpickled), so it can be sent to
    worker processes."""

    def __init__(
        self,
        core: _core.Program,
        source: str,
        path: str | None,
        bound: Any,
        options: CompileOptions,
        outer_kernel: Kernel | None = None,
        outer_scope: _OuterScope | None = None,
    ):
        self._core = core
        self.source = source
        self.path = path
        self._bound = bound
        self._options = options
        self._outer_scope = outer_scope
        self._outer_kernel = outer_kernel
        self._traversal_programs: dict[tuple[int, tuple[tuple[str, str], ...]], Program] = {}

    def __reduce__(self) -> tuple[Any, ...]:
        return (_recompile, (self.source, self.path, self._options, self._outer_scope))

    @functools.cached_property
    def _run_facts(self) -> tuple[bool, tuple[str, ...], tuple[str, ...]]:
        """What every run asks and the program never changes, asked of the
        core once: whether it needs an outer scope, its coordinate inputs,
        and its output names."""
        needs_outer = any(origin in ("outer", "iteration") for _name, origin in self._core.input_origins) or bool(
            self._core.inlined()
        )
        coordinates = tuple(name for name, _ty, kind in self._core.inputs if kind == "coordinate")
        outputs = tuple(name for name, _ty in self._core.outputs if not name.startswith("__"))
        return needs_outer, coordinates, outputs

    @functools.cached_property
    def _emit_outputs(self) -> list[str]:
        """The outputs bound to an ``emit_row`` call (pulled whenever a run collects emitted rows)."""
        ir = self._bound.ir
        found = []
        for output in ir["outputs"]:
            wire = output["wire"].get("node")
            if wire is not None and ir["nodes"][wire["node"]]["op"] == "emit_row":
                found.append(output["name"])
        return found

    @property
    def needs_outer(self) -> bool:
        """True when a kernel of this program must be bound under an outer
        scope (it reads names from one, or is an iteration body)."""
        return self._run_facts[0]

    @property
    def input_origins(self) -> dict[str, str]:
        """{input name: where it comes from}: ``declared``, ``inferred`` (a free
        name that became a coordinate), ``outer`` (auto-extern: an outer
        scope's name), ``iteration`` (an iteration variable) or ``cell`` (a
        ``shared`` binding's cell)."""
        return dict(self._core.input_origins)

    @property
    def inlined(self) -> dict[str, PyValue]:
        """The outer literals inlined into the program as constants, by name."""
        return dict(self._core.inlined())

    def manifest(self) -> list[dict[str, Any]]:
        """What a program compiled against this one may read: one entry per
        name (``name``, ``type``, ``form``: ``{"literal": ...}``, ``copy``,
        ``live``, ``cell`` or ``coordinate``), nearest binding first."""
        return json.loads(self._core.manifest_json())

    @property
    def traversals(self) -> list[str]:
        """The comprehensions of the program's ``for`` statements, in source
        order (activate one with :meth:`Kernel.traverse`)."""
        return [t.text for t in self._bound.traversals]

    def traversal_program(self, index: int, types: Mapping[str, str]) -> Program:
        """The body of ``for`` statement ``index`` compiled as a child program
        whose iteration variables have ``types`` (compiled once per types)."""
        key = (index, tuple(sorted(types.items())))
        cached = self._traversal_programs.get(key)
        if cached is not None:
            return cached
        traversal = self._bound.traversals[index]
        program = _compile_source(
            self.source,
            self.path,
            replace(self._options, outputs=None),
            outer=self,
            iteration=list(types.items()),
            body=(traversal, self._bound.program, self._bound.pragmas),
        )
        self._traversal_programs[key] = program
        return program

    @property
    def engine(self) -> str:
        """What actually runs, e.g. ``"p1"`` or ``"p2/pull"``."""
        return self._core.engine

    @property
    def provenance_analysis(self) -> dict[str, Any]:
        """The figures the P2 provenance heuristic decides from: ``total_nodes``,
        ``max_output_cone``, ``output_cone_ratio``, ``stable_nodes``,
        ``stable_ratio``, the mode ``provenance="auto"`` picks (``choice``) and
        the ``rule`` that decided (available whatever engine runs)."""
        return dict(self._core.provenance_analysis)

    @property
    def inputs(self) -> list[str]:
        """Input names in slot order (coordinates first, then externs)."""
        return [name for name, _ty, _kind in self._core.inputs]

    @property
    def coordinates(self) -> list[str]:
        """The coordinate inputs (written by :meth:`Kernel.set_inputs`)."""
        return list(self._run_facts[1])

    @property
    def input_types(self) -> dict[str, str]:
        """{input name: type name}."""
        return {name: ty for name, ty, _kind in self._core.inputs}

    @property
    def outputs(self) -> dict[str, str]:
        """{output name: type name}, in declaration order."""
        return {name: ty for name, ty in self._core.outputs if not name.startswith("__")}

    @property
    def events(self) -> list[dict[str, Any]]:
        """Compile events: ``{"kind", "message", "line", "col", "severity"}``
        (severity ``warning`` for what :func:`check` reports, else ``info``)."""
        return [
            {"kind": kind, "message": message, "line": line, "col": col, "severity": severity}
            for kind, message, line, col, severity in self._core.events
        ]

    @property
    def warnings(self) -> list[Diagnostic]:
        """What :func:`check` warns about: inferred inputs, externs without a
        default, constants that make a node fail on every evaluation, ..."""
        return _warnings(self)

    @property
    def stats(self) -> dict[str, int]:
        """Node counts before/after the passes and compile time (µs)."""
        return dict(self._core.stats)

    def explain_data(self) -> dict[str, Any]:
        """What :meth:`explain` renders, as data: passes, lifecycle of every
        step and binding, events, engine choice and the resolved graph."""
        return json.loads(self._core.explain_json())

    def explain(self) -> str:
        """A human-readable account of what the compiler did."""
        from .explain import explain

        return explain(self)

    def parse_input(self, name: str, text: str) -> PyValue:
        """``text`` read as a value of input ``name``'s type, the way the command
        line's ``--set name=value`` reads it (decimal or ``0x`` integers,
        range-checked; floats; ``true``/``false``/``1``/``0``; strings as is)."""
        types = self.input_types
        if name not in types:
            from .errors import WriteError

            hint = _core.suggest(name, list(types))
            more = f"; did you mean '{hint}'?" if hint else f"; inputs are: {', '.join(types) or '(none)'}"
            raise WriteError(f"no input named '{name}'{more}", "unknown_input", name)
        return _core.parse_text(text, types[name])

    def kernel(self, outer: Kernel | None = None) -> Kernel:
        """A new kernel: one mutable state over this program. With ``outer``
        (a kernel), the new kernel is a scope bound under that kernel's: every
        name the program reads from the outer scope is bound now, once (a
        literal was inlined at compile time, a const or input is copied, a
        computed output is read live, a ``shared`` binding is a cell both
        ways), and the kernel's consts are evaluated. A program compiled with
        ``outer=`` a kernel binds under that kernel by default. Raises
        :class:`BindError` when binding is refused."""
        if outer is None:
            outer = self._outer_kernel
        if outer is None:
            return Kernel(self, self._core.kernel())
        if not isinstance(outer, Kernel):
            raise ArgumentError(f"outer must be a polydat.Kernel, not {type(outer).__name__}")
        return Kernel(self, self._core.kernel(outer._core), outer=outer)

    def generate(
        self,
        cycles: range | int | tuple[int, int] = 1,
        outputs: Sequence[str] | None = None,
        inputs: Mapping[str, PyValue] | None = None,
        threads: int = 1,
        coordinate: str | None = None,
        format: str = "numpy",
        emitted: bool = False,
        out: Any = None,
    ) -> Any:
        """Evaluates ``outputs`` for every cycle.

        ``cycles`` is a ``range`` (step allowed), an ``(start, stop)`` pair or a
        count. ``outputs`` names outputs (all of them when absent) or inputs.
        ``inputs`` fixes other inputs (coordinates or externs) for the whole
        run; an input the requested columns read (through their cones, or
        the scope-init path) that has no value, neither given nor a default,
        is refused (``WriteError``), one nothing requested reads is not. On
        the native engine, once about eight million rows (over any number of
        calls) have been generated with the same ``inputs``, their values
        are compiled into the row loop as constants. The
        loop runs in Rust without the GIL; ``threads=N`` splits the range
        across N kernels and gives identical columns.

        ``format="numpy"`` (the default) returns ``{name: numpy array}``, each
        of the output's declared dtype; strings, bytes and JSON are object
        arrays (``None`` where a row is absent), and a scalar column with
        absent rows is a ``numpy.ma.MaskedArray`` of its declared dtype whose
        mask marks them. ``format="arrow"`` returns a ``pyarrow.Table`` whose
        columns the core filled in Arrow's layout (no Python object per row;
        absent rows are nulls), typed by the declared types: see
        :data:`ARROW_TYPES`. It needs pyarrow.

        ``emitted=True`` returns ``(result, emitted)``: ``emitted`` is a second
        table of one ``str`` column, ``row``, the rows the program's
        ``emit_row`` bindings emitted during the run, in row order (a numpy
        dict or a ``pyarrow.Table``, as ``format`` says). Every ``emit_row``
        binding runs, whether or not ``outputs`` names it.

        ``out=`` writes the rows into numpy arrays the caller already has,
        and returns them: a dict ``{name: array}`` (its names are the
        outputs when ``outputs`` is not given), or one array for a single
        output. Each array must be one-dimensional, C-contiguous, writable,
        of the output's numpy dtype (``_core.numpy_dtype`` of its type: a
        ``date`` is ``int32`` days, a ``timestamp`` ``int64`` milliseconds)
        and exactly as long as the rows; only scalar outputs can be written
        so. The core's row loop writes the arrays directly, so a loop that
        calls ``generate`` again with the same arrays takes no new memory.
        """
        if self.needs_outer:
            return self._bound_kernel("generate").generate(
                cycles, outputs, inputs, threads, coordinate, format, emitted, out
            )
        return _generate(self, self._core, cycles, outputs, inputs, threads, coordinate, format, emitted, out)

    def iter_batches(
        self,
        cycles: range | int | tuple[int, int] = 1,
        batch_rows: int = 65536,
        outputs: Sequence[str] | None = None,
        inputs: Mapping[str, PyValue] | None = None,
        threads: int = 1,
        coordinate: str | None = None,
        emitted: bool = False,
        reuse: bool = False,
    ) -> Iterator[Any]:
        """Yields the rows of :meth:`generate` as ``pyarrow.RecordBatch`` es of
        ``batch_rows`` rows (the last one may be shorter), in order, with the
        schema of ``generate(format="arrow")``. Memory stays bounded: the core
        generates the next batch (on ``threads`` workers) while the caller
        uses the current one, and holds at most three batches. Ctrl-C stops
        the workers and raises in the loop. Without ``emitted``, the iterator is also an Arrow
        stream (``__arrow_c_stream__``) of the batches it has not yielded
        (see :mod:`polydat.stream`). Needs pyarrow.

        ``reuse=True`` yields ``{name: numpy array}`` instead (scalar outputs
        only), and every batch is written into the same arrays: the arrays
        of a batch are overwritten by the next one (copy what you keep; the
        last batch's arrays are the first rows of the same buffers). No
        memory is taken per batch, and no batch is made ahead.

        ``emitted=True`` yields ``(batch, emitted)`` pairs, ``emitted`` a
        record batch of the rows ``emit_row`` emitted while the batch was
        made (see :meth:`generate`)."""
        if reuse and emitted:
            raise ArgumentError("reuse=True writes numpy arrays of the outputs; emitted=True needs record batches")
        if emitted:
            if self.needs_outer:
                kernel = self._bound_kernel("iter_batches")
                return kernel.iter_batches(cycles, batch_rows, outputs, inputs, threads, coordinate, emitted)
            return _iter_batches(self, self._core, cycles, batch_rows, outputs, inputs, threads, coordinate, emitted)
        if reuse:
            if self.needs_outer:
                return self._bound_kernel("iter_batches").iter_batches(
                    cycles, batch_rows, outputs, inputs, threads, coordinate, reuse=reuse
                )
            return _reused_batches(self, self._core, cycles, batch_rows, outputs, inputs, threads, coordinate)
        return iter(self.stream(cycles, batch_rows, outputs, inputs, threads, coordinate))

    def stream(
        self,
        cycles: range | int | tuple[int, int] = 1,
        batch_rows: int = 65536,
        outputs: Sequence[str] | None = None,
        inputs: Mapping[str, PyValue] | None = None,
        threads: int = 1,
        coordinate: str | None = None,
    ) -> Stream:
        """The rows of :meth:`iter_batches` as a :class:`~polydat.stream.Stream`:
        an Arrow PyCapsule stream (``__arrow_c_stream__``) that DuckDB
        (``duckdb.sql("select ... from s")``), polars (``polars.DataFrame(s)``,
        or ``polars.from_arrow(s)``: one struct Series) and
        ``pyarrow.RecordBatchReader.from_stream(s)`` read batch by batch, in
        bounded memory; each reading (and each ``iter(s)``) is a fresh run of
        the same rows. The arguments are checked now; no row is made until a
        batch is read."""
        if self.needs_outer:
            kernel = self._bound_kernel("stream")
            return kernel.stream(cycles, batch_rows, outputs, inputs, threads, coordinate)
        return _stream(self, self._core, cycles, batch_rows, outputs, inputs, threads, coordinate)

    def _bound_kernel(self, what: str) -> Kernel:
        """The kernel a run of a program that needs an outer scope starts from."""
        if self._outer_kernel is None:
            from .errors import BindError

            names = [n for n, origin in self._core.input_origins if origin in ("outer", "iteration")]
            names += list(self.inlined)
            raise BindError(
                f"this program reads {', '.join(repr(n) for n in names)} from an outer scope: "
                f"bind a kernel first and call its {what} (prog.kernel(outer=k).{what}(...))",
                "needs_outer",
                names[0] if names else "",
            )
        return self.kernel()

    def arrow_schema(self, outputs: Sequence[str] | None = None) -> Any:
        """The ``pyarrow.Schema`` of ``generate(format="arrow")`` for ``outputs``,
        from the declared types (no row is generated)."""
        pa = _pyarrow("arrow_schema")
        names = _names(outputs, "outputs") if outputs is not None else list(self.outputs)
        return pa.schema(self._core.arrow_schema(names))

    def _run_plan(
        self,
        cycles: range | int | tuple[int, int],
        outputs: Sequence[str] | None,
        inputs: Mapping[str, PyValue] | None,
        threads: int,
        coordinate: str | None,
    ) -> _core.RunPlan:
        """The plan of a run, as the core takes it (the core checks ``threads``)."""
        rng = _as_range(cycles)
        _needs_outer, coords, all_outputs = self._run_facts
        coordinate = coordinate or (coords[0] if coords else None)
        if coordinate is None:
            raise ArgumentError("this program has no coordinate input to iterate over")
        names = _names(outputs, "outputs") if outputs is not None else list(all_outputs)
        if inputs is not None and not isinstance(inputs, Mapping):
            raise ArgumentError(f"inputs must be a mapping of input names to values, not {type(inputs).__name__}")
        fixed = list((inputs or {}).items())
        rows = row_count(rng)
        start = rng.start if rows else 0
        return _core.RunPlan(coordinate, start, rows, rng.step, names, fixed, threads)

    def __repr__(self) -> str:
        where = f" path={self.path!r}" if self.path else ""
        return (
            f"<polydat.Program engine={self.engine!r} inputs={self.inputs} outputs={list(self.outputs)}"
            f" nodes={self.stats.get('nodes_final')}{where}>"
        )


def _recompile(source: str, path: str | None, options: CompileOptions, outer: _OuterScope | None) -> Program:
    """Unpickles a :class:`Program`: compiles its source again with its options
    (a program compiled against an outer scope keeps that scope's manifest)."""
    if outer is None:
        return _compile_source(source, path, options)
    return _compile_source(
        source, path, options, outer=_Manifest(outer.manifest), iteration=outer.iteration, keep=outer.keep
    )


class _Manifest:
    """A manifest (its JSON text) standing for an outer scope at compile time."""

    def __init__(self, text: str | None):
        self.text = text


def _as_range(cycles: range | int | tuple[int, int]) -> range:
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


def _names(names: Any, what: str) -> list[str]:
    """A list of names from a list/tuple of strings (a bare string is refused:
    it would read as its characters)."""
    if isinstance(names, str):
        raise ArgumentError(f"{what} must be a list of names, not a string: write {what}=[{names!r}]")
    try:
        listed = list(names)
    except TypeError:
        raise ArgumentError(f"{what} must be a list of names, not {type(names).__name__}") from None
    bad = [n for n in listed if not isinstance(n, str)]
    if bad:
        raise ArgumentError(f"{what} must be names (strings), got {bad[0]!r}")
    return listed


class Kernel:
    """One mutable evaluation state over a program: a scope, root or bound
    under an outer kernel (:meth:`Program.kernel`). Use one kernel per thread
    (programs are shared); kernels of one tree may run on different threads."""

    def __init__(self, program: Program, core: _core.Kernel, outer: Kernel | None = None):
        self.program = program
        self._core = core
        self.outer = outer
        """The kernel this one is bound under (None for a root)."""

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in list(self.input_values().items())[:6])
        more = ", ..." if len(self.program.inputs) > 6 else ""
        return f"<polydat.Kernel engine={self.program.engine!r} inputs({shown}{more})>"

    def set_inputs(self, *values: PyValue, **named: PyValue) -> None:
        """Writes coordinates: positionally (``set_inputs(5)``) or by name
        (``set_inputs(cycle=5, tenant_seed=7)``)."""
        self._core.set_inputs(list(values), list(named.items()))

    def set(self, name: str, value: PyValue) -> None:
        """Writes an extern by name; type-checked (raises WriteError). On a
        ``shared`` slot the value is published to the cell: every scope
        holding the cell sees it at its next read (last write wins)."""
        self._core.set(name, value)

    def pull(self, name: str) -> PyValue:
        """Reads one output, evaluating only what is stale in its cone."""
        return self._core.pull(name)

    def eval(self) -> dict[str, PyValue]:
        """Reads every output (one read): ``{name: value}``."""
        return {k: v for k, v in self._core.eval().items() if not k.startswith("__")}

    def invalidate_all(self) -> None:
        """Makes every step stale (inputs are kept)."""
        self._core.invalidate_all()

    def init(self) -> None:
        """Re-runs scope init: every ``const`` is captured again from the
        current inputs (at the next read). A kernel runs scope init on its own
        at its first read, so call this only to re-capture after writes."""
        self._core.init()

    def input_values(self) -> dict[str, PyValue]:
        """The current value of every input."""
        return dict(self._core.input_values())

    @property
    def engine(self) -> str:
        """The engine the kernel runs on."""
        return self._core.engine

    @property
    def iteration(self) -> dict[str, PyValue]:
        """The iteration values the kernel was bound with ({} for a kernel
        that is no activation of a traversal)."""
        return dict(self._core.iteration())

    @property
    def bindings(self) -> dict[str, str]:
        """{input name: how it is bound}: ``own`` (the host writes it),
        ``copied`` (from the outer scope, once), ``live`` (the outer scope's
        current value at every read), ``cell`` (a shared cell) or ``iteration``."""
        return dict(self._core.bindings())

    @property
    def cells(self) -> list[str]:
        """The shared cells visible in this scope (its own, and those passing through)."""
        return self._core.cells()[0]

    @property
    def transit(self) -> list[str]:
        """The cells this scope only passes through to deeper scopes."""
        return self._core.cells()[1]

    def manifest(self) -> list[dict[str, Any]]:
        """What a program compiled against this kernel may read (see
        :meth:`Program.manifest`), through the whole chain of outer scopes."""
        return json.loads(self._core.manifest_json())

    def value_of(self, name: str) -> PyValue:
        """The current value of ``name`` as this scope sees it: its own output
        or input, else the nearest outer scope's binding of it."""
        return self._core.value_of(name)

    def for_each(
        self,
        comprehension: str,
        body: str | Program,
        *,
        engine: str = "auto",
        path: str | os.PathLike[str] | None = None,
        library_path: Iterable[str | os.PathLike[str]] = (),
        strict: bool = False,
    ) -> Iterator[Kernel]:
        """One child kernel per tuple of ``comprehension``, bound under this
        kernel, with the tuple's names as iteration variables (see
        :mod:`polydat.dsl.comprehension` for the forms: ``k in 1..4``,
        ``1..=4``, lists, words, several clauses as a Cartesian product,
        ``(a, b) in ...`` zips, ``where`` predicates). ``body`` is source,
        compiled once against this kernel, or a program compiled against it
        with those iteration variables. ``{name}`` references are read now;
        the kernels are bound one by one as the iterator advances."""
        from .dsl import comprehension as comprehensions

        if not isinstance(comprehension, str):
            raise ArgumentError(f"the comprehension must be text, not {type(comprehension).__name__}")
        parsed = comprehensions.parse_text(comprehension)
        types, tuples = open_comprehension(parsed, self._core, self.value_of, engine, strict)
        if isinstance(body, Program):
            program = body
        elif isinstance(body, str):
            options = CompileOptions(engine=engine, library_path=_directories(library_path), strict=strict)
            spath = os.fspath(path) if path is not None else None
            program = _compile_source(body, spath, options, outer=self, iteration=list(types.items()))
        else:
            raise ArgumentError(f"body must be source text or a polydat.Program, not {type(body).__name__}")
        return self._activations(types, tuples, program)

    def traverse(self, index: int = 0) -> Iterator[Kernel]:
        """The activations of ``for`` statement ``index`` of this kernel's
        program: one child kernel per tuple (as :meth:`for_each`), running
        the statement's body, compiled once."""
        from .dsl import comprehension as comprehensions

        traversals = self.program._bound.traversals
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(traversals):
            count = len(traversals)
            raise ArgumentError(
                f"traverse({index!r}): the program has {count} for statement{'s' if count != 1 else ''}"
                + (f" (0..{count - 1})" if count else "")
            )
        parsed = self.program._bound.comprehensions[index]
        assert isinstance(parsed, comprehensions.Comprehension)
        engine = self.program._options.engine
        types, tuples = open_comprehension(parsed, self._core, self._lenient_value_of, engine, False)
        program = self.program.traversal_program(index, types)
        return self._activations(types, tuples, program)

    def _lenient_value_of(self, name: str) -> PyValue:
        """:meth:`value_of`, None for a name no scope binds (a traversal
        reads such a name as None: the compile warned about it)."""
        from .errors import UnknownNameError

        try:
            return self._core.value_of(name)
        except UnknownNameError:
            return None

    def _activations(self, types: dict[str, str], tuples: Iterator[tuple[Any, ...]], program: Program) -> Iterator[Kernel]:
        names = list(types)
        for values in tuples:
            yield Kernel(program, program._core.kernel(self._core, list(zip(names, values))), outer=self)

    def generate(
        self,
        cycles: range | int | tuple[int, int] = 1,
        outputs: Sequence[str] | None = None,
        inputs: Mapping[str, PyValue] | None = None,
        threads: int = 1,
        coordinate: str | None = None,
        format: str = "numpy",
        emitted: bool = False,
        out: Any = None,
    ) -> Any:
        """:meth:`Program.generate` from this kernel's state: the rows run on
        kernels of the same scope (its bindings to outer scopes, its current
        inputs), one per thread; ``inputs`` fixes more inputs for the run."""
        return _generate(self.program, self._core, cycles, outputs, inputs, threads, coordinate, format, emitted, out)

    def iter_batches(
        self,
        cycles: range | int | tuple[int, int] = 1,
        batch_rows: int = 65536,
        outputs: Sequence[str] | None = None,
        inputs: Mapping[str, PyValue] | None = None,
        threads: int = 1,
        coordinate: str | None = None,
        emitted: bool = False,
        reuse: bool = False,
    ) -> Iterator[Any]:
        """:meth:`Program.iter_batches` from this kernel's state (see :meth:`generate`)."""
        if reuse and emitted:
            raise ArgumentError("reuse=True writes numpy arrays of the outputs; emitted=True needs record batches")
        if emitted:
            return _iter_batches(self.program, self._core, cycles, batch_rows, outputs, inputs, threads, coordinate,
                                 emitted)
        if reuse:
            return _reused_batches(self.program, self._core, cycles, batch_rows, outputs, inputs, threads, coordinate)
        return iter(self.stream(cycles, batch_rows, outputs, inputs, threads, coordinate))

    def stream(
        self,
        cycles: range | int | tuple[int, int] = 1,
        batch_rows: int = 65536,
        outputs: Sequence[str] | None = None,
        inputs: Mapping[str, PyValue] | None = None,
        threads: int = 1,
        coordinate: str | None = None,
    ) -> Stream:
        """:meth:`Program.stream` from this kernel's state (see :meth:`generate`)."""
        return _stream(self.program, self._core, cycles, batch_rows, outputs, inputs, threads, coordinate)


def _generate(
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
        filled = _core.generate(core, program._run_plan(cycles, names, inputs, threads, coordinate), out=arrays)
        return filled[names[0]] if single else filled
    if format not in ("numpy", "arrow"):
        raise ArgumentError(f"format must be 'numpy' or 'arrow', not {format!r}")
    rows = row_count(_as_range(cycles))
    if rows > SEGMENT_ROWS:
        raise OutOfMemoryError(
            f"not enough memory for {rows} rows: generate a smaller range at a time, or stream them with iter_batches"
        )
    if format == "arrow":
        pa = _pyarrow("generate(format='arrow')")
        stream = batch_stream(program, core, cycles, outputs, inputs, threads, coordinate, GENERATE_BATCH_ROWS,
                              emitted=emitted)
        if not emitted:
            schema = pa.schema(stream.schema)
            return pa.Table.from_batches([pa.record_batch(b) for b in stream], schema=schema)
        items = list(stream)
        schema = stream.schema
        table = pa.Table.from_batches([pa.record_batch(b) for b, _rows in items], schema=pa.schema(schema))
        kept = _names(outputs, "outputs") if outputs is not None else list(program._run_facts[2])
        emitted_rows = [row for _batch, batch_rows in items for row in batch_rows]
        return table.select(kept), pa.table({"row": pa.array(emitted_rows, pa.string())})
    plan = program._run_plan(cycles, outputs, inputs, threads, coordinate)
    if not emitted:
        return _core.generate(core, plan)
    extra = [n for n in program._emit_outputs if n not in plan.outputs]
    columns, emitted_rows = _core.generate(core, plan.with_outputs(plan.outputs + extra), emitted=True)
    import numpy as np

    for name in extra:
        del columns[name]
    table = np.empty(len(emitted_rows), dtype=object)
    table[:] = emitted_rows
    return columns, {"row": table}


def _out_arrays(out: Any, outputs: Sequence[str] | None) -> tuple[list[str], list[Any], bool]:
    """The output names and arrays of ``generate``'s ``out=`` (a dict of
    arrays, or one array for one output), and whether it was one array.
    The arrays themselves are checked by the core."""
    if isinstance(out, Mapping):
        names = list(out)
        if outputs is not None and _names(outputs, "outputs") != names:
            raise ArgumentError(f"out= has arrays for {names}, but outputs= names {list(outputs)}: give the same names")
        if not names:
            raise ArgumentError("out= needs at least one array")
        return names, [out[n] for n in names], False
    if outputs is None:
        raise ArgumentError("out= is one array: name its output (outputs=['name']), or pass {name: array}")
    names = _names(outputs, "outputs")
    if len(names) != 1:
        raise ArgumentError(f"out= is one array, but outputs= names {len(names)} outputs: pass {{name: array}}")
    return names, [out], True


def _reused_batches(
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
    plan = program._run_plan(cycles, outputs, inputs, threads, coordinate)
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


def _iter_batches(
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
    """``iter_batches`` of ``program``'s rows on ``core`` (see :func:`_generate`):
    one stream of the core per segment of the rows (:func:`segments`), the
    first made now (so a bad argument fails at the call)."""
    pa = _pyarrow("iter_batches")
    parts = segments(_as_range(cycles))
    first = next(parts, range(0))
    stream = batch_stream(program, core, first, outputs, inputs, threads, coordinate, batch_rows, emitted=emitted)
    kept = (_names(outputs, "outputs") if outputs is not None else list(program._run_facts[2])) if emitted else []

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


def _stream(
    program: Program,
    core: Any,
    cycles: range | int | tuple[int, int],
    batch_rows: int,
    outputs: Sequence[str] | None,
    inputs: Mapping[str, PyValue] | None,
    threads: int,
    coordinate: str | None,
) -> Stream:
    """``stream`` of ``program``'s rows on ``core`` (see :func:`_generate`),
    its arguments checked now (a zero-row stream of the core is opened)."""
    _pyarrow("stream")
    _check_batch_rows(batch_rows)
    plan = program._run_plan(cycles, outputs, inputs, threads, coordinate)
    stream = Stream(core, plan, batch_rows)
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
    :func:`_generate`): what ``iter_batches`` and ``polydat run`` read.
    ``encode`` ("csv", "jsonl") yields each batch as text; ``cycles_column``
    puts the rows' cycle numbers first under that name; ``emitted`` pulls
    the program's ``emit_row`` bindings too and yields ``(batch, rows)``."""
    _check_batch_rows(batch_rows)
    plan = program._run_plan(cycles, outputs, inputs, threads, coordinate)
    if plan.rows > SEGMENT_ROWS:
        raise ArgumentError(f"one stream runs at most {SEGMENT_ROWS} rows, got {plan.rows}: stream segments() of them")
    # A batch of more rows than the run is the run.
    batch_rows = min(batch_rows, max(plan.rows, 1))
    if emitted:
        plan = plan.with_outputs(plan.outputs + [n for n in program._emit_outputs if n not in plan.outputs])
    return _core.batches(core, plan, batch_rows=batch_rows, encode=encode, cycles_column=cycles_column, emitted=emitted)


def open_comprehension(
    parsed: Any, outer: _core.Kernel, lookup: Any, engine: str, strict: bool
) -> tuple[dict[str, str], Iterator[tuple[Any, ...]]]:
    """Opens comprehension ``parsed`` in the scope of ``outer`` (a core
    kernel): ``lookup`` reads its ``{name}`` references; its ``where``
    predicates and call sources evaluate there. The one way every traversal
    (``Kernel.for_each``, ``Kernel.traverse``, a workload's ``for_each``)
    gets its iteration types and tuples."""

    from .dsl.comprehension import JsonText

    def call(source: Any) -> Any:
        program = _scope_expression(parsed, [source.text], {}, outer, engine, strict, source.line, source.col, "in the source")
        value = program._core.kernel(outer, []).pull("__e0")
        json_typed = dict(program._core.outputs).get("__e0") == "json"
        return JsonText(value) if json_typed and isinstance(value, str) else value

    def typed_lookup(name: str) -> Any:
        # A json value (a partition list) stands for its elements, not its text's tokens.
        value = lookup(name)
        if isinstance(value, str) and name in json_names():
            return JsonText(value)
        return value

    @functools.cache
    def json_names() -> frozenset[str]:
        return frozenset(e["name"] for e in json.loads(outer.manifest_json()) if e["type"] == "json")

    def keep(where: Any, types: dict[str, str]) -> Any:
        return _where_test(parsed, where, outer, lookup, types, engine, strict)

    return parsed.open(typed_lookup, keep, call)


def _scope_expression(
    parsed: Any, texts: Sequence[str], types: Mapping[str, str], outer: Any, engine: str, strict: bool,
    line: int, col: int, where: str,
) -> Program:
    """``texts`` as one program (outputs ``__e0``, ``__e1``, ...) compiled
    against ``outer`` with iteration variables ``types``; a compile error is
    reported at ``line:col`` of the comprehension."""
    source = "\n".join(f"__e{i} := ({text})" for i, text in enumerate(texts))
    # Names must exist (``strict_names``): a name nobody provides would read
    # as a default and silently keep or drop every tuple.
    options = CompileOptions(engine=engine, strict=strict, strict_names=True)
    try:
        return _compile_source(source, None, options, outer=outer, iteration=list(types.items()))
    except CompileError as err:
        raise parsed.error(f"{where}: {err.message}", line, col, err.hint) from None


def _where_test(
    parsed: Any, where: Any, outer: Any, lookup: Any, types: dict[str, str], engine: str, strict: bool
) -> Any:
    """The test of a ``where`` stage over tuples of ``types``: elements read
    from the tuple, else from the scope (None when nothing binds them); the
    predicate's Polydat expressions evaluate in one kernel bound under
    ``outer``, which takes each tuple's values in turn."""
    from .dsl.predicate import Predicate, PredicateError
    from .errors import UnknownNameError

    try:
        predicate = Predicate(where.text)
    except CompileError as err:
        raise parsed.error(f"in the where predicate: {err.message}", where.line, where.col) from None
    names = list(types)
    index = {name: i for i, name in enumerate(names)}
    # A name the scope does not bind is refused now when the lookup refuses
    # it (a host's traversal): it would read None and silently keep or drop
    # every tuple. A `for` statement's lenient lookup reads it as None.
    for name in predicate.reads():
        if name not in index:
            try:
                lookup(name)
            except UnknownNameError as err:
                raise parsed.error(f"in the where predicate: {err}", where.line, where.col, err.hint) from None
    state: dict[str, Any] = {"check": None, "tuple": None}
    program = None
    if predicate.expressions:
        program = _scope_expression(
            parsed, predicate.expressions, types, outer, engine, strict, where.line, where.col, "in the where predicate"
        )

    def element(values: tuple[Any, ...], name: str) -> Any:
        if name in index:
            return values[index[name]]
        try:
            return lookup(name)
        except UnknownNameError:
            return None

    def expression(i: int, values: tuple[Any, ...]) -> Any:
        assert program is not None
        check = state["check"]
        if check is None:
            check = state["check"] = program._core.kernel(outer, list(zip(names, values)))
        elif state["tuple"] != values:
            for name, value in zip(names, values):
                check.set(name, value)
        state["tuple"] = values
        return check.pull(f"__e{i}")

    test = predicate.tester(element, expression)

    def keep(values: tuple[Any, ...]) -> bool:
        try:
            return test(values)
        except PredicateError as err:
            raise parsed.error(f"in the where predicate: {err}", where.line, where.col) from None

    return keep


def compile(
    source: str,
    *,
    engine: str = "auto",
    provenance: str = "auto",
    outer: Any = None,
    path: str | os.PathLike[str] | None = None,
    library_path: Iterable[str | os.PathLike[str]] = (),
    strict: bool = False,
    outputs: Sequence[str] | None = None,
    fusion: bool = True,
    iteration: Mapping[str, str] | None = None,
) -> Program:
    """Compiles DSL ``source`` into a :class:`Program`.

    ``outer`` (a :class:`Kernel` or a :class:`Program`) is the scope the
    program is compiled against: every name the program reads but does not
    bind and the outer scope chain provides becomes a typed extern slot
    (auto-extern), bound when a kernel is made under a kernel of that scope
    (:meth:`Program.kernel`); an outer literal is inlined as a constant.
    ``path`` names the source file (for diagnostics and for finding module
    files beside it); ``library_path`` lists more module directories;
    ``iteration`` ({name: type}) makes the program the body of an iteration
    (:meth:`Kernel.for_each`): those names are iteration variables, bound
    from each tuple.
    ``strict`` refuses implicit coercions and free names nobody provides (an
    error naming the name, with "did you mean"); ``outputs`` keeps only those outputs
    (dead code is dropped); ``fusion=False`` turns Node Fusion off (for
    equivalence checks and debugging). Raises :class:`CompileError` or
    :class:`RefusedError`.
    """
    from . import dsl

    if isinstance(source, (bytes, bytearray)):
        raise ArgumentError("source must be text (str), not bytes: decode it first, e.g. source.decode('utf-8')")
    if not isinstance(source, str):
        raise ArgumentError(f"source must be text (str), not {type(source).__name__}")
    _core.check_request(engine, provenance)
    if outer is not None and not isinstance(outer, (Kernel, Program)):
        raise ArgumentError(f"outer must be a polydat.Kernel or Program, not {type(outer).__name__}")
    spath = os.fspath(path) if path is not None else None
    options = CompileOptions(
        engine=engine,
        provenance=provenance,
        library_path=_directories(library_path),
        strict=strict,
        outputs=tuple(_names(outputs, "outputs")) if outputs is not None else None,
        fusion=fusion,
    )
    if iteration is not None and not isinstance(iteration, Mapping):
        raise ArgumentError("iteration must be a mapping of names to type names, e.g. {'k': 'u64'}")
    return _compile_source(source, spath, options, outer=outer, iteration=list((iteration or {}).items()))


def _compile_source(
    source: str,
    path: str | None,
    options: CompileOptions,
    *,
    outer: Any = None,
    iteration: Sequence[tuple[str, str]] = (),
    keep: Sequence[str] = (),
    body: Any = None,
    coordinates: Sequence[str] = (),
) -> Program:
    """Compiles ``source`` (or the ``for`` body ``body`` = (statement, parent
    AST, pragmas) of it) against ``outer`` (a Kernel, a Program, a
    :class:`_Manifest` or None) with iteration variables ``iteration`` and
    kept names ``keep`` (see :func:`compile`); a free name in
    ``coordinates`` is a coordinate the caller sweeps (not reported)."""
    from . import dsl

    outer_kernel = outer if isinstance(outer, Kernel) else None
    if isinstance(outer, (Kernel, Program)):
        manifest_json: str | None = outer._core.manifest_json()
    elif isinstance(outer, _core.Kernel):
        manifest_json = outer.manifest_json()
    elif isinstance(outer, _Manifest):
        manifest_json = outer.text
    else:
        manifest_json = None
    entries = json.loads(manifest_json) if manifest_json else []
    outer_types = {e["name"]: e["type"] for e in entries if e["form"] != "coordinate"}
    outer_types.update(dict(iteration))
    outer_coordinates = [e["name"] for e in entries if e["form"] == "coordinate" and e["name"] not in outer_types]
    outer_coordinates.extend(c for c in coordinates if c not in outer_types and c not in outer_coordinates)
    strict = options.strict
    libs = list(options.library_path)
    if body is not None:
        traversal, parent_ast, pragmas = body
        bound = dsl.bind_body(
            traversal, parent_ast, outer=outer_types, pragmas=pragmas,
            library_path=libs, strict=strict, outer_coordinates=outer_coordinates,
        )
    else:
        bound = dsl.bind(
            source, path=path, outer=outer_types, library_path=libs, strict=strict,
            outer_coordinates=outer_coordinates,
            core_check=lambda partial: _core_errors(partial, source, path, strict),
        )
    for declared in bound.ir["inputs"]:
        if declared["name"] in coordinates and declared["kind"] == "coordinate":
            declared.pop("inferred", None)  # the caller's own coordinate: as if declared
    try:
        core = _core.Program.compile(
            json.dumps(bound.ir, check_circular=False),  # the IR holds no cycle: skip the per-container check
            engine=options.engine,
            provenance=options.provenance,
            strict=strict or bound.strict_types,
            strict_names=strict or options.strict_names or bound.strict,
            outputs=list(options.outputs) if options.outputs is not None else None,
            fusion=options.fusion,
            outer_json=manifest_json,
            iteration=list(iteration),
            keep=list(keep),
        )
    except CompileError as err:
        raise _with_source(err, source, path) from None
    _check_strict_values(core, bound, source, path)
    scope = None
    if manifest_json is not None or iteration or keep:
        scope = _OuterScope(manifest_json, tuple((n, t) for n, t in iteration), tuple(keep))
    program = Program(core, source, path, bound, options, outer_kernel=outer_kernel, outer_scope=scope)
    if body is None:
        _check_traversals(program)
    return program


def _check_strict_values(core: Any, bound: Any, source: str, path: str | None) -> None:
    """Under ``pragma strict_values`` a constant that makes a node fail on
    every evaluation (the core's node warning) fails the build, for the
    nodes of the scopes the pragma covers."""
    spans = bound.strict_value_spans
    if not spans:
        return
    found = [
        Diagnostic(f"{message} (refused under pragma strict_values)", line, col,
                   "a constant here violates the node's constraint", "error", None, path)
        for kind, message, line, col, _severity in core.events
        if kind == "NodeWarning" and (line, col) in spans
    ]
    if found:
        raise _with_source(CompileError(found[0], tuple(found[1:])), source, path)


def _check_traversals(program: Program) -> None:
    """Compiles now the ``for`` bodies whose iteration types are known
    without reading a name (no ``{name}`` reference), so their errors are
    compile errors of the program."""
    def no_refs(name: str) -> Any:
        raise _HasRefs

    for index, comprehension in enumerate(program._bound.comprehensions):
        try:
            types, _tuples = comprehension.open(no_refs, call=no_refs)
        except _HasRefs:
            continue
        program.traversal_program(index, types)


class _HasRefs(Exception):
    """A comprehension reads a name: its types are known only when it opens."""


def _directories(paths: Any) -> tuple[str, ...]:
    """Module directories: one path (str or PathLike) or an iterable of them."""
    if isinstance(paths, (str, bytes, os.PathLike)):
        return (os.fsdecode(paths),)
    return tuple(os.fsdecode(p) for p in paths)


def compile_file(path: str | os.PathLike[str], **options: Any) -> Program:
    """Reads and compiles a ``.polydat`` file (UTF-8: other bytes are a
    :class:`CompileError` at their place in the file)."""
    from .dsl.diagnostics import read_source

    return compile(read_source(path), path=path, **options)


def check(
    source: str,
    *,
    path: str | os.PathLike[str] | None = None,
    library_path: Iterable[str | os.PathLike[str]] = (),
    strict: bool = False,
) -> list[Diagnostic]:
    """Compiles ``source`` for diagnostics only and returns them: every error
    of every phase (lexer, parser, binder, the core's typing passes), in
    source order, or else the warnings (see :attr:`Program.warnings`). Never
    raises for bad source."""
    from . import dsl

    if not isinstance(source, str):
        return [Diagnostic(f"source must be text (str), not {type(source).__name__}")]
    spath = os.fspath(path) if path is not None else None
    libs = _directories(library_path)

    found = dsl.check(
        source, path=spath, library_path=libs, strict=strict,
        core_check=lambda bound: _core_errors(bound, source, spath, strict),
    )
    if any(d.severity == "error" for d in found):
        return found
    try:
        prog = compile(source, path=spath, library_path=libs, strict=strict)
    except CompileError as err:
        return [*found, *err.diagnostics]
    return prog.warnings


def _core_errors(bound: Any, source: str, path: str | None, strict: bool) -> tuple[Diagnostic, ...]:
    """The core's errors in what the frontend bound from the statements it
    found no error in (its own are already reported): type errors of
    operators, casts and declarations among them."""
    try:
        _core.Program.compile(
            json.dumps(bound.ir), engine="p1", provenance="auto", strict=strict or bound.strict_types,
            strict_names=strict or bound.strict, outputs=None, fusion=True, outer_json=None,
            iteration=[], keep=[],
        )
    except CompileError as err:
        return _with_source(err, source, path).diagnostics
    except PolydatError as err:  # a bug of the core: said beside the frontend's errors, not instead
        return (Diagnostic(f"internal compiler error: {err}", path=path),)
    return ()


def _warnings(prog: Program) -> list[Diagnostic]:
    """The warnings of a compiled program: the frontend's, then the core's
    warning events, each with its source line."""
    from .dsl import source_lines

    found = list(prog._bound.warnings)
    lines = source_lines(prog.source)
    for event in prog.events:
        if event["severity"] != "warning":
            continue
        line = event["line"]
        text = lines[line - 1] if 0 < line <= len(lines) else None
        found.append(Diagnostic(event["message"], line, event["col"], None, "warning", text, prog.path))
    return found


DEFAULT_MAX_VALUE_BYTES = 64 << 20
"""The size limit of one string or byte-string value unless set otherwise."""


def max_value_bytes() -> int:
    """The most bytes one string or byte-string value may hold. A node whose
    result would be longer fails: a CompileError when the value is a
    constant, an EvalError at run time (never a crash)."""
    return _core.max_value_bytes()


def set_max_value_bytes(limit: int) -> None:
    """Sets the size limit of one value for every program of this process
    (the environment variable ``POLYDAT_MAX_VALUE_BYTES`` sets it at import)."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ArgumentError(f"the limit must be a positive number of bytes, got {limit!r}")
    _core.set_max_value_bytes(limit)


def _limit_from_environment() -> None:
    text = os.environ.get("POLYDAT_MAX_VALUE_BYTES", "").strip()
    if not text:
        return
    try:
        set_max_value_bytes(int(text, 0))
    except (ValueError, ArgumentError):
        import warnings

        warnings.warn(f"POLYDAT_MAX_VALUE_BYTES={text!r} is not a positive integer; ignored", stacklevel=2)


_limit_from_environment()


def catalog() -> list[dict[str, Any]]:
    """The node catalog: name, signature, doc, parameters, outputs, purity."""
    return json.loads(_core.catalog_json())
