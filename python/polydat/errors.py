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
"""

from __future__ import annotations

from dataclasses import dataclass


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
    """A node failed during evaluation; the kernel stays usable."""

    def __init__(self, message: str, node: str = "", outputs: tuple[str, ...] = (), inputs: tuple[str, ...] = ()):
        super().__init__(message)
        self.node = node
        self.outputs = tuple(outputs)
        self.inputs = tuple(inputs)


class WriteError(PolydatError):
    """A host write was refused; ``kind`` names the reason (``unknown_input``,
    ``type_mismatch``, ``coordinate_slot``, ``const_slot``)."""

    def __init__(self, message: str, kind: str = "", slot: str = ""):
        super().__init__(message)
        self.kind = kind
        self.slot = slot


class RefusedError(PolydatError):
    """An engine or provenance mode cannot run this program (or does not exist)."""

    def __init__(self, message: str, engine: str = ""):
        super().__init__(message)
        self.engine = engine


__all__ = ["PolydatError", "Diagnostic", "CompileError", "EvalError", "WriteError", "RefusedError"]
