"""Source files and diagnostic construction for the DSL frontend.

Every error the frontend raises is a :class:`polydat.errors.CompileError`
carrying one :class:`polydat.errors.Diagnostic` with its line, column, hint,
quoted source line and (for module files) path. This module holds the
:class:`SourceFile` that knows how to quote its lines, plus small helpers that
describe tokens in "expected X but found Y" messages.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field

from ..errors import CompileError, Diagnostic
from .ast import Span

__all__ = ["SourceFile", "CompileError", "Diagnostic", "source_lines", "display_line"]

_SURROGATES = re.compile("[\ud800-\udfff]")


def source_lines(text: str) -> list[str]:
    """The lines of a source text, by the project's one rule.

    A line ends at ``\\n`` and nowhere else (``\\r``, ``\\x0c``, ``\\x85``,
    ``\\u2028`` ... are ordinary characters, as they are to the lexer, which
    counts lines the same way); one ``\\r`` before the ``\\n`` is dropped for
    display. Line ``n`` of a diagnostic is ``source_lines(text)[n - 1]``.
    """
    return [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]


def display_line(line: str) -> str:
    """A source line safe to print: a lone surrogate shows as U+FFFD (same columns)."""
    return _SURROGATES.sub("\ufffd", line) if _SURROGATES.search(line) else line


@dataclass(eq=False)
class SourceFile:
    """One source text (a program or a module file) and its optional path."""

    text: str
    path: str | None = None
    _line_starts: list[int] = field(init=False, repr=False)
    _lines: list[str] | None = field(init=False, repr=False, default=None)

    def __post_init__(self) -> None:
        starts = [0]
        find = self.text.find
        pos = find("\n")
        while pos != -1:
            starts.append(pos + 1)
            pos = find("\n", pos + 1)
        self._line_starts = starts

    def locate(self, offset: int) -> Span:
        """The 1-based line and column of a character offset."""
        offset = max(0, min(offset, len(self.text)))
        index = bisect_right(self._line_starts, offset) - 1
        return Span(index + 1, offset - self._line_starts[index] + 1)

    def line_text(self, line: int) -> str | None:
        """The text of 1-based ``line`` without its newline, or None if out of range."""
        if self._lines is None:
            self._lines = source_lines(self.text)
        if line < 1 or line > len(self._lines):
            return None
        return self._lines[line - 1]

    def diagnostic(
        self, message: str, span: Span | None, hint: str | None = None, severity: str = "error"
    ) -> Diagnostic:
        """A diagnostic at ``span`` quoting this file's line."""
        line, col = (span.line, span.col) if span is not None else (0, 0)
        source_line = self.line_text(line) if line else None
        if source_line is not None:
            # A position past a trailing '\r' (which is not quoted) stays under the line.
            col = min(col, len(source_line) + 1)
        return Diagnostic(
            message=message,
            line=line,
            col=col,
            hint=hint,
            severity=severity,
            source_line=display_line(source_line) if source_line is not None else None,
            path=self.path,
        )

    def error(self, message: str, span: Span | None, hint: str | None = None) -> CompileError:
        """A :class:`CompileError` at ``span`` (to be raised by the caller)."""
        return CompileError(self.diagnostic(message, span, hint))
