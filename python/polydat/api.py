"""The public API: compile a program, make kernels, generate columns.

This layer is thin on purpose: the frontend (``polydat.dsl``) turns source into
graph IR, and the Rust core (``polydat._core``) compiles and runs it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from . import _core
from .errors import CompileError, Diagnostic, PolydatError

PyValue = Any
"""A value crossing the boundary: int, float, str, bytes, bool or None."""

def _with_source(err: CompileError, source: str, path: str | None) -> CompileError:
    """Re-renders a core compile error with the source line under it."""
    lines = source.splitlines()
    fixed = []
    for d in err.diagnostics:
        line_text = lines[d.line - 1] if 0 < d.line <= len(lines) else None
        fixed.append(
            Diagnostic(d.message, d.line, d.col, d.hint, d.severity, d.source_line or line_text, d.path or path)
        )
    return CompileError(fixed[0], tuple(fixed[1:]))


class Program:
    """A compiled, immutable program. Thread-safe: share it, and give each
    thread its own :meth:`kernel`."""

    def __init__(self, core: _core.Program, source: str, path: str | None, bound: Any):
        self._core = core
        self.source = source
        self.path = path
        self._bound = bound

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
        return [name for name, _ty, kind in self._core.inputs if kind == "coordinate"]

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
        """Compile events: ``{"kind", "message", "line", "col"}``."""
        return [
            {"kind": kind, "message": message, "line": line, "col": col}
            for kind, message, line, col in self._core.events
        ]

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

    def kernel(self) -> Kernel:
        """A new kernel: one mutable state over this program."""
        return Kernel(self, self._core.kernel())

    def generate(
        self,
        cycles: range | int | tuple[int, int] = 1,
        outputs: Sequence[str] | None = None,
        inputs: Mapping[str, PyValue] | None = None,
        threads: int = 1,
        coordinate: str | None = None,
    ) -> dict[str, Any]:
        """Evaluates ``outputs`` for every cycle and returns ``{name: numpy array}``.

        ``cycles`` is a ``range`` (step allowed), an ``(start, stop)`` pair or a
        count. ``inputs`` fixes other inputs (coordinates or externs) for the
        whole run. The loop runs in Rust without the GIL; ``threads=N`` splits
        the range across N kernels and gives identical columns.
        """
        rng = _as_range(cycles)
        if rng.step <= 0:
            raise ValueError("generate needs an increasing range of cycles")
        coords = self.coordinates
        coordinate = coordinate or (coords[0] if coords else None)
        if coordinate is None:
            raise PolydatError("this program has no coordinate input to iterate over")
        names = list(outputs) if outputs is not None else list(self.outputs)
        fixed = list((inputs or {}).items())
        if threads < 1:
            raise ValueError("threads must be >= 1")
        if len(rng) and not (0 <= rng.start and rng[-1] < 2**64):
            raise ValueError("cycles must lie in 0..2**64")
        start = rng.start if len(rng) else 0
        return self._core.generate(coordinate, start, len(rng), rng.step, names, fixed, threads=threads)

    def __repr__(self) -> str:
        return f"<polydat.Program engine={self.engine} inputs={self.inputs} outputs={list(self.outputs)}>"


def _as_range(cycles: range | int | tuple[int, int]) -> range:
    if isinstance(cycles, range):
        return cycles
    if isinstance(cycles, int):
        return range(cycles)
    start, stop = cycles
    return range(start, stop)


class Kernel:
    """One mutable evaluation state over a program. Not thread-safe: use one
    kernel per thread (programs are shared)."""

    def __init__(self, program: Program, core: _core.Kernel):
        self.program = program
        self._core = core

    def set_inputs(self, *values: PyValue, **named: PyValue) -> None:
        """Writes coordinates: positionally (``set_inputs(5)``) or by name
        (``set_inputs(cycle=5, tenant_seed=7)``)."""
        self._core.set_inputs(list(values), list(named.items()))

    def set(self, name: str, value: PyValue) -> None:
        """Writes an extern by name; type-checked (raises WriteError)."""
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
) -> Program:
    """Compiles DSL ``source`` into a :class:`Program`.

    ``path`` names the source file (for diagnostics and for finding module
    files beside it); ``library_path`` lists more module directories;
    ``strict`` refuses implicit coercions; ``outputs`` keeps only those outputs
    (dead code is dropped); ``fusion=False`` turns Node Fusion off (for
    equivalence checks and debugging). Raises :class:`CompileError` or
    :class:`RefusedError`.
    """
    from . import dsl

    _core.check_request(engine, provenance)
    if outer is not None:
        from .errors import RefusedError

        raise RefusedError("outer scopes are not supported yet", engine)
    spath = os.fspath(path) if path is not None else None
    bound = dsl.bind(source, path=spath, library_path=[os.fspath(p) for p in library_path])
    try:
        core = _core.Program.compile(
            json.dumps(bound.ir),
            engine=engine,
            provenance=provenance,
            strict=strict,
            outputs=list(outputs) if outputs is not None else None,
            fusion=fusion,
        )
    except CompileError as err:
        raise _with_source(err, source, spath) from None
    return Program(core, source, spath, bound)


def compile_file(path: str | os.PathLike[str], **options: Any) -> Program:
    """Reads and compiles a ``.polydat`` file."""
    with open(path, encoding="utf-8") as f:
        source = f.read()
    return compile(source, path=path, **options)


def check(
    source: str,
    *,
    path: str | os.PathLike[str] | None = None,
    library_path: Iterable[str | os.PathLike[str]] = (),
    strict: bool = False,
) -> list[Diagnostic]:
    """Compiles ``source`` for diagnostics only; returns them (never raises for bad source)."""
    try:
        compile(source, path=path, library_path=library_path, strict=strict)
    except CompileError as err:
        return list(err.diagnostics)
    return []


def catalog() -> list[dict[str, Any]]:
    """The node catalog: name, signature, doc, parameters, outputs, purity."""
    return json.loads(_core.catalog_json())
