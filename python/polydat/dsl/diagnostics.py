"""Source files and diagnostic construction for the DSL frontend.

Every error the frontend raises is a :class:`polydat.errors.CompileError`
carrying one :class:`polydat.errors.Diagnostic` with its line, column, hint,
quoted source line and (for module files) path. This module holds the
:class:`SourceFile` that knows how to quote its lines, plus small helpers that
describe tokens in "expected X but found Y" messages.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field

from ..errors import CompileError, Diagnostic
from .ast import Span

__all__ = ["SourceFile", "CompileError", "Diagnostic", "suggest_name", "edit_distance"]


@dataclass(eq=False)
class SourceFile:
    """One source text (a program or a module file) and its optional path."""

    text: str
    path: str | None = None
    _line_starts: list[int] = field(init=False, repr=False)

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
        if line < 1 or line > len(self._line_starts):
            return None
        start = self._line_starts[line - 1]
        end = self.text.find("\n", start)
        text = self.text[start:] if end == -1 else self.text[start:end]
        return text.rstrip("\r")

    def diagnostic(self, message: str, span: Span | None, hint: str | None = None) -> Diagnostic:
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
            source_line=source_line,
            path=self.path,
        )

    def error(self, message: str, span: Span | None, hint: str | None = None) -> CompileError:
        """A :class:`CompileError` at ``span`` (to be raised by the caller)."""
        return CompileError(self.diagnostic(message, span, hint))


def edit_distance(a: str, b: str) -> int:
    """Edit distance between two names (insert, delete, substitute, or swap two neighbours)."""
    if a == b:
        return 0
    rows = [list(range(len(b) + 1))]
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            row[j] = min(rows[i - 1][j] + 1, row[j - 1] + 1, rows[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], rows[i - 2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]


def suggest_name(name: str, candidates: list[str] | tuple[str, ...] | set[str]) -> str | None:
    """The candidate closest to ``name`` if it is reasonably close, else None.

    The tolerance grows with the name's length (1 edit for short names, up to
    3 for long ones), like the Rust core's suggestion rule; a swap of two
    neighbouring letters counts as one edit. Ties are broken alphabetically so
    the answer is deterministic.
    """
    limit = max(1, min(3, (len(name) + 2) // 3))
    best: tuple[int, str] | None = None
    for candidate in candidates:
        if candidate == name or candidate.startswith("__"):
            continue
        if abs(len(candidate) - len(name)) > limit:
            continue
        distance = edit_distance(name, candidate)
        if distance <= limit and (best is None or (distance, candidate) < best):
            best = (distance, candidate)
    return best[1] if best else None
