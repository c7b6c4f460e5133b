"""The polydat exception hierarchy.

``PolydatError`` is the base of every error polydat raises on purpose:

* ``CompileError`` — the source cannot be compiled; carries ``line``, ``col``
  and ``hint``, and its ``str`` is the rendered diagnostic
  (``LINE:COL:error: message``, the source line, a caret, ``= hint: ...``).
* ``EvalError`` — a node failed while evaluating; carries ``node``,
  ``outputs`` and ``inputs`` (the attribution), and its ``str`` is the
  enriched message, identical on every engine.
* ``WriteError`` — a host write was refused (unknown input, wrong type,
  coordinate written by name, ...).
* ``RefusedError`` — an engine or mode cannot run the program, or does not
  exist; never silently substituted.
* ``BindError`` — a kernel could not be bound under its outer scope (a name
  it reads is missing there, a value does not fit, ...).
* ``UnknownNameError`` (also a ``KeyError``) — a read of a name the program
  does not have; ``ArgumentError`` (also a ``ValueError`` and ``TypeError``) —
  a call given the wrong kind of argument; ``InternalError`` — polydat itself
  failed (never expected; report it).
* ``OutOfMemoryError`` (also a ``MemoryError``) — the rows asked for do not
  fit in memory; nothing was kept, and the process goes on (ask for fewer
  rows at a time, or stream them with ``iter_batches``).
* ``ConcurrentUseError`` — an object one consumer reads at a time (the
  iterator of ``iter_batches``) was read from a second thread while the
  first was reading it; give each thread its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class PolydatError(Exception):
    """Base class of every polydat error."""


@dataclass(frozen=True)
class Diagnostic:
    """One compile diagnostic with its position (1-based line and column)."""

    message: str
    line: int = 0
    col: int = 0
    hint: str | None = None
    severity: str = "error"
    source_line: str | None = None
    path: str | None = None

    def render(self) -> str:
        """The upstream form: ``LINE:COL:error: message``, source line, caret, hint."""
        where = f"{self.line}:{self.col}" if self.line else "0:0"
        if self.path:
            where = f"{self.path}:{where}"
        lines = [f"{where}:{self.severity}: {self.message}"]
        if self.source_line is not None and self.line:
            lines.append(f"  | {self.source_line}")
            lines.append("  | " + " " * max(self.col - 1, 0) + "^")
        if self.hint:
            lines.append(f"  = hint: {self.hint}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.render()


class CompileError(PolydatError):
    """The program cannot be compiled. ``str(err)`` is the rendered diagnostic."""

    def __init__(self, diagnostic: Diagnostic, more: tuple[Diagnostic, ...] = ()):
        self.diagnostic = diagnostic
        self.diagnostics = (diagnostic, *more)
        super().__init__(diagnostic.render())

    @property
    def message(self) -> str:
        """The first diagnostic's message, without position or hint."""
        return self.diagnostic.message

    @property
    def line(self) -> int:
        """1-based line of the first diagnostic (0 when unknown)."""
        return self.diagnostic.line

    @property
    def col(self) -> int:
        """1-based column of the first diagnostic (0 when unknown)."""
        return self.diagnostic.col

    @property
    def hint(self) -> str | None:
        """The first diagnostic's hint, e.g. ``did you mean 'hash'?``."""
        return self.diagnostic.hint

    def __str__(self) -> str:
        return "\n".join(d.render() for d in self.diagnostics)


class EvalError(PolydatError):
    """A node failed during evaluation; the kernel stays usable.

    ``node`` is the failing node's name, ``outputs`` the outputs it feeds,
    ``inputs`` its input values (Python values, in wire order), and — for a
    failure inside :meth:`Program.generate` — ``row`` is ``(coordinate,
    value)`` of the failing row and ``cycle`` that value (else ``None``).
    """

    def __init__(
        self,
        message: str,
        node: str = "",
        outputs: tuple[str, ...] = (),
        inputs: tuple[Any, ...] = (),
        row: tuple[str, int] | None = None,
    ):
        super().__init__(message)
        self.node = node
        self.outputs = tuple(outputs)
        self.inputs = tuple(inputs)
        self.row = tuple(row) if row is not None else None
        self.cycle = self.row[1] if self.row is not None else None


class WriteError(PolydatError):
    """A host write was refused; ``kind`` names the reason (``unknown_input``,
    ``type_mismatch``, ``coordinate_slot``, ``const_slot``)."""

    def __init__(self, message: str, kind: str = "", slot: str = ""):
        super().__init__(message)
        self.kind = kind
        self.slot = slot


class BindError(PolydatError):
    """A kernel could not be bound under its outer scope: the outer scope does
    not provide a name the program reads from it (``kind`` ``unbound``), gives
    a value the slot's type refuses (``from_outer``), is not the scope the
    program was compiled against (``stale``), an iteration value is missing or
    unknown (``iteration``), a cell's type differs (``cell_type``), an outer
    output the program reads fails when it is read to bind it
    (``outer_value``; the message holds the outer scope's error), or the
    program needs an outer scope and none was given (``needs_outer``).
    ``name`` is the name concerned."""

    def __init__(self, message: str, kind: str = "", name: str = ""):
        super().__init__(message)
        self.kind = kind
        self.name = name


class UnknownNameError(PolydatError, KeyError):
    """A name that is neither an output nor an input of the program was read
    (``pull``, ``generate(outputs=...)``); the message says "did you mean"."""

    def __init__(self, message: str, name: str = "", hint: str | None = None):
        super().__init__(message)
        self.name = name
        self.hint = hint
        """The closest name, as "did you mean 'x'?" (None: none is close)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class ArgumentError(PolydatError, ValueError, TypeError):
    """A call was given an argument of the wrong kind or out of range (a
    string where a list of names belongs, a negative count, ...)."""


class InternalError(PolydatError):
    """Polydat itself failed (a contained panic, a thread that could not be
    started); the message says what happened. Please report it."""


class OutOfMemoryError(PolydatError, MemoryError):
    """The rows asked for (or their Python objects, or their text) do not fit
    in memory. Both ``except MemoryError`` and ``except PolydatError`` catch
    it; the process and the program stay usable."""


class ConcurrentUseError(PolydatError):
    """An iterator that has one consumer at a time (``iter_batches``'s) was
    read from a second thread while another read was under way. Nothing was
    lost: the first reader goes on; give each thread its own iterator."""


class RefusedError(PolydatError):
    """An engine or provenance mode cannot run this program (or does not exist)."""

    def __init__(self, message: str, engine: str = ""):
        super().__init__(message)
        self.engine = engine


__all__ = [
    "PolydatError",
    "Diagnostic",
    "CompileError",
    "EvalError",
    "WriteError",
    "RefusedError",
    "BindError",
    "UnknownNameError",
    "ArgumentError",
    "InternalError",
    "OutOfMemoryError",
    "ConcurrentUseError",
]
