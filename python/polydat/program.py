"""Programs and kernels: compile a program, make kernels, and ask the core
what it compiled.

This layer is thin on purpose: the frontend (``polydat.dsl``) turns source into
graph IR, and the Rust core (``polydat._core``) compiles and runs it. Running
rows (``generate``, ``iter_batches``, ``stream``) is :mod:`polydat.generate`'s:
the methods here hand over to it (it imports this module, so they import it
when called).
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from . import _core
from .errors import ArgumentError, CompileError, Diagnostic, PolydatError, WriteError

if TYPE_CHECKING:
    from .stream import Stream

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


def require_pyarrow(what: str) -> Any:
    """pyarrow, or a clear error naming ``what`` needs it when it is not installed."""
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
        program = compile_source(
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
    def library_path(self) -> tuple[str, ...]:
        """The module directories given when the program was compiled
        (``library_path=``; the file's own directory is searched first anyway)."""
        return self._options.library_path

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
            from .dsl.corerules import suggest
            from .errors import WriteError

            hint = suggest(name, list(types))
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
        absent rows are nulls), typed by the declared types (the schema
        :meth:`arrow_schema` gives). It needs pyarrow.
        ``format="pandas"`` returns that table as a ``pandas.DataFrame`` of
        Arrow-backed columns (``pandas.ArrowDtype``: a ``date`` column stays
        ``date32[pyarrow]``, not Python objects; a ``u64`` stays ``uint64``;
        absent rows are ``<NA>``), and ``format="polars"`` as a
        ``polars.DataFrame`` (dates are ``Date``, absent rows null); each
        needs its package.

        ``emitted=True`` returns ``(result, emitted)``: ``emitted`` is a second
        table of one ``str`` column, ``row``, the rows the program's
        ``emit_row`` bindings emitted during the run, in row order (a numpy
        dict, a ``pyarrow.Table`` or a data frame, as ``format`` says). Every ``emit_row``
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
        from .generate import generate_columns

        if self.needs_outer:
            return self._bound_kernel("generate").generate(
                cycles, outputs, inputs, threads, coordinate, format, emitted, out
            )
        return generate_columns(self, self._core, cycles, outputs, inputs, threads, coordinate, format, emitted, out)

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
        from .generate import record_batches, reused_batches

        if reuse and emitted:
            raise ArgumentError("reuse=True writes numpy arrays of the outputs; emitted=True needs record batches")
        if emitted:
            if self.needs_outer:
                kernel = self._bound_kernel("iter_batches")
                return kernel.iter_batches(cycles, batch_rows, outputs, inputs, threads, coordinate, emitted)
            return record_batches(self, self._core, cycles, batch_rows, outputs, inputs, threads, coordinate, emitted)
        if reuse:
            if self.needs_outer:
                return self._bound_kernel("iter_batches").iter_batches(
                    cycles, batch_rows, outputs, inputs, threads, coordinate, reuse=reuse
                )
            return reused_batches(self, self._core, cycles, batch_rows, outputs, inputs, threads, coordinate)
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
        from .generate import open_stream

        if self.needs_outer:
            kernel = self._bound_kernel("stream")
            return kernel.stream(cycles, batch_rows, outputs, inputs, threads, coordinate)
        return open_stream(self, self._core, cycles, batch_rows, outputs, inputs, threads, coordinate)

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
        pa = require_pyarrow("arrow_schema")
        names = name_list(outputs, "outputs") if outputs is not None else list(self.outputs)
        return pa.schema(self._core.arrow_schema(names))

    def _run_plan(
        self,
        cycles: range | int | tuple[int, int],
        outputs: Sequence[str] | None,
        inputs: Mapping[str, PyValue] | None,
        threads: int,
        coordinate: str | None,
    ) -> _core.RowPlan:
        """The plan of a run of this program, as the core takes it (see
        :func:`polydat.generate.run_plan`)."""
        from .generate import run_plan

        return run_plan(self, cycles, outputs, inputs, threads, coordinate)

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
        return compile_source(source, path, options)
    return compile_source(
        source, path, options, outer=_Manifest(outer.manifest), iteration=outer.iteration, keep=outer.keep
    )


class _Manifest:
    """A manifest (its JSON text) standing for an outer scope at compile time."""

    def __init__(self, text: str | None):
        self.text = text


def name_list(names: Any, what: str) -> list[str]:
    """A list of names from a list/tuple of strings (a bare string is refused:
    it would read as its characters); ``what`` names the argument in the error."""
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

    def set_cursor(self, name: str, partition: int) -> None:
        """Picks the partition cursor ``name`` covers, by its index in the
        list its ``over`` value makes (``cursor q = range(0, 1000) over
        "*/4"``: 0..3); writes the extern ``name__partition``. Raises
        WriteError for a cursor whose ``over`` is one range (it has no
        choice to make) or a name that is no cursor."""
        extern = f"{name}__partition"
        if extern not in self.program.inputs:
            raise WriteError(
                f"'{name}' is not a cursor whose `over` makes several partitions "
                f"(no extern '{extern}'); a one-range `over` has no partition to pick",
                kind="unknown_input", slot=extern,
            )
        self._core.set(extern, partition)

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
        compile_expressions = expression_compiler(engine, strict)
        types, tuples = comprehensions.open_comprehension(parsed, self._core, self.value_of, compile_expressions)
        if isinstance(body, Program):
            program = body
        elif isinstance(body, str):
            options = CompileOptions(engine=engine, library_path=_directories(library_path), strict=strict)
            spath = os.fspath(path) if path is not None else None
            program = compile_source(body, spath, options, outer=self, iteration=list(types.items()))
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
        compile_expressions = expression_compiler(engine, False)
        lookup = self._lenient_value_of
        types, tuples = comprehensions.open_comprehension(parsed, self._core, lookup, compile_expressions)
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
        from .generate import generate_columns

        return generate_columns(
            self.program, self._core, cycles, outputs, inputs, threads, coordinate, format, emitted, out
        )

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
        from .generate import record_batches, reused_batches

        if reuse and emitted:
            raise ArgumentError("reuse=True writes numpy arrays of the outputs; emitted=True needs record batches")
        if emitted:
            return record_batches(self.program, self._core, cycles, batch_rows, outputs, inputs, threads, coordinate,
                                  emitted)
        if reuse:
            return reused_batches(self.program, self._core, cycles, batch_rows, outputs, inputs, threads, coordinate)
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
        from .generate import open_stream

        return open_stream(self.program, self._core, cycles, batch_rows, outputs, inputs, threads, coordinate)


def _check_request(engine: Any, provenance: Any) -> None:
    """Refuses an (engine, provenance) request the core does not take, before
    anything is compiled; a pair of names taken once is not asked again (the
    core's answer depends on the names alone)."""
    if isinstance(engine, str) and isinstance(provenance, str):
        _accepted_request(engine, provenance)
    else:
        _core.check_request(engine, provenance)


@functools.lru_cache(maxsize=64)
def _accepted_request(engine: str, provenance: str) -> None:
    """The core's check of a request given by names (a refusal raises and is not kept)."""
    _core.check_request(engine, provenance)


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
    With ``outer`` and no ``engine``/``provenance`` named, the program runs
    on the outer program's engine (a scope tree runs on its parent's engine).
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
    _check_request(engine, provenance)
    if outer is not None and not isinstance(outer, (Kernel, Program)):
        raise ArgumentError(f"outer must be a polydat.Kernel or Program, not {type(outer).__name__}")
    if outer is not None and engine == "auto" and provenance == "auto":
        # A scope tree runs on its parent's engine unless the child names one.
        engine = (outer.program if isinstance(outer, Kernel) else outer).engine
    spath = os.fspath(path) if path is not None else None
    options = CompileOptions(
        engine=engine,
        provenance=provenance,
        library_path=_directories(library_path),
        strict=strict,
        outputs=tuple(name_list(outputs, "outputs")) if outputs is not None else None,
        fusion=fusion,
    )
    if iteration is not None and not isinstance(iteration, Mapping):
        raise ArgumentError("iteration must be a mapping of names to type names, e.g. {'k': 'u64'}")
    try:
        return compile_source(source, spath, options, outer=outer, iteration=list((iteration or {}).items()))
    except CompileError as err:
        named = _file_named_by(source)
        if named is None:
            raise
        raise CompileError(_file_name_as_source(named, source, spath)) from err


def _file_name_as_source(named: str, source: str, path: str | None) -> Diagnostic:
    """The error of a source that is the name of a file (see :func:`_file_named_by`)."""
    return Diagnostic(
        f"the source is the file name {named!r}, not a program: compile takes program text",
        1, 1, f"read and compile the file with polydat.compile_file({named!r})", "error", source, path,
    )


def _file_named_by(source: str) -> str | None:
    """The file ``source`` names when, instead of program text, it is one
    line naming an existing file or ending in a program's or workload's
    extension (the mistake ``compile("users.polydat")``); else None."""
    text = source.strip()
    if not text or "\n" in text:
        return None
    if text.endswith((".polydat", ".yaml", ".yml")) and not any(c.isspace() for c in text):
        return text
    try:
        return text if os.path.isfile(text) else None
    except (OSError, ValueError):  # a NUL byte, a name too long for the system
        return None


def expression_compiler(engine: str, strict: bool) -> Callable[[str, Any, Sequence[tuple[str, str]]], _core.Program]:
    """How a comprehension opened in a scope compiles its Polydat expressions
    (``where`` predicates, call sources; see
    :func:`polydat.dsl.comprehension.open_comprehension`): a function of
    (``source``, the core kernel of the scope, iteration variables as
    (name, type) pairs) giving the compiled core program. Names must exist
    (``strict_names``): a name nobody provides would read as a default and
    silently keep or drop every tuple."""
    options = CompileOptions(engine=engine, strict=strict, strict_names=True)

    def compile_expressions(source: str, outer: Any, iteration: Sequence[tuple[str, str]]) -> _core.Program:
        return compile_source(source, None, options, outer=outer, iteration=iteration)._core

    return compile_expressions


def compile_source(
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
        named = _file_named_by(source)
        return found if named is None else [_file_name_as_source(named, source, spath)]
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


def data_files() -> list[dict[str, Any]]:
    """The bundled data files as the core embeds them: per file its ``name``,
    ``about``, ``source``, ``licence``, ``columns``, ``entries`` (data rows)
    and ``nodes`` (the nodes that pick from it)."""
    return json.loads(_core.data_files_json())


def engine_names() -> list[str]:
    """Every engine/mode name :attr:`Program.engine` can report, P1 first
    (``"p1"``, ``"p2/raw"``, ..., ``"mixed"``)."""
    return list(_core.engines())


def provenance_names() -> list[str]:
    """The provenance modes ``provenance=`` accepts, ``"auto"`` first."""
    return list(_core.provenances())


def core_version() -> str:
    """The version the compiled core was built as (the wheel's: ``polydat.__version__``)."""
    return str(_core.__version__)
