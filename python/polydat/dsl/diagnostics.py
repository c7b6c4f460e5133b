"""Source files and diagnostic construction for the DSL frontend.

Every problem the frontend finds is a :class:`polydat.errors.Diagnostic` with
its line, column, hint, quoted source line and (for module files) path;
errors are raised together as one :class:`polydat.errors.CompileError`. This
module holds :func:`source_lines` (the one rule for what a line is), the
:class:`SourceFile` that quotes its lines, and the :class:`Report` that
collects a compilation's diagnostics in source order.
"""

from __future__ import annotations

import os
import re
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..errors import CompileError, Diagnostic
from .ast import Span

__all__ = [
    "SourceFile", "Report", "CompileError", "Diagnostic", "source_lines", "display_line", "read_source",
    "read_source_bytes", "MAX_SOURCE_BYTES",
]

_SURROGATES = re.compile("[\ud800-\udfff]")


def source_lines(text: str) -> list[str]:
    """The lines of a source text, by the project's one rule.

    A line ends at ``\\n`` and nowhere else (``\\r``, ``\\x0c``, ``\\x85``,
    ``\\u2028`` ... are ordinary characters, as they are to the lexer, which
    counts lines the same way); one ``\\r`` before the ``\\n`` is dropped for
    display. Line ``n`` of a diagnostic is ``source_lines(text)[n - 1]``.
    """
    return [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]


MAX_SOURCE_BYTES = 16 << 20
"""The largest program or workload source file read: 16 MiB."""


def read_source_bytes(path: str | os.PathLike[str]) -> bytes:
    """The bytes of the source file at ``path`` (a program or a workload),
    the one reader of both. A path that is not a regular file (a directory,
    a FIFO, a device such as ``/dev/zero``) or a file larger than
    :data:`MAX_SOURCE_BYTES` is a :class:`CompileError` naming the file; a
    file that cannot be opened raises its ``OSError``."""
    import stat

    name = os.fspath(path)

    def refused(message: str, hint: str) -> CompileError:
        return CompileError(Diagnostic(message, 0, 0, hint, "error", None, name))

    # Not opened before it is known to be a regular file: opening a FIFO waits for a writer.
    if os.path.exists(name) and not stat.S_ISREG(os.stat(name).st_mode):
        kind = "a directory" if os.path.isdir(name) else "not a regular file"
        raise refused(f"{name} is {kind}: a source is read from a regular file", "give the path of a source file")
    with open(name, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise refused(f"{name} is not a regular file: a source is read from a regular file",
                          "give the path of a source file")
        data = f.read(MAX_SOURCE_BYTES + 1)
    if len(data) > MAX_SOURCE_BYTES:
        raise refused(f"{name} is larger than {MAX_SOURCE_BYTES} bytes, the most a source file may hold",
                      "split the source into modules (use), or generate it smaller")
    return data


def read_source(path: str | os.PathLike[str]) -> str:
    """The text of the source file at ``path``: UTF-8, line ends read as
    Python's text files read them (``\\r\\n`` and ``\\r`` become ``\\n``).
    A byte that is not UTF-8 is a :class:`CompileError` at its line and
    column, naming the file; a file that cannot be read raises its ``OSError``."""
    name = os.fspath(path)
    data = read_source_bytes(name)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        good = _universal_newlines(data[: err.start].decode("utf-8"))
        line = good.count("\n") + 1
        col = len(good) - (good.rfind("\n") + 1) + 1
        shown = _universal_newlines(data.decode("utf-8", errors="replace"))
        raise SourceFile(shown, name).error(
            f"the file is not UTF-8 text: byte 0x{data[err.start]:02x} here does not decode",
            Span(line, col),
            "save the file as UTF-8",
        ) from None
    return _universal_newlines(text)


def _universal_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def display_line(line: str) -> str:
    """A source line safe to print: a lone surrogate shows as U+FFFD (same columns)."""
    return _SURROGATES.sub("\ufffd", line) if _SURROGATES.search(line) else line


@dataclass(eq=False)
class SourceFile:
    """One source text (a program or a module file) and its optional path."""

    text: str
    path: str | None = None
    _line_starts: list[int] | None = field(init=False, repr=False, default=None)
    _lines: list[str] | None = field(init=False, repr=False, default=None)

    def locate(self, offset: int) -> Span:
        """The 1-based line and column of a character offset."""
        starts = self._line_starts
        if starts is None:  # built on first use: the lexer counts lines itself
            starts = [0]
            find = self.text.find
            pos = find("\n")
            while pos != -1:
                starts.append(pos + 1)
                pos = find("\n", pos + 1)
            self._line_starts = starts
        offset = max(0, min(offset, len(self.text)))
        index = bisect_right(starts, offset) - 1
        return Span(index + 1, offset - starts[index] + 1)

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


class Report:
    """The diagnostics of one compilation (errors and warnings), in source order.

    A diagnostic in the program's own file sorts by its position; one in a
    module file sorts at the program statement being bound when it was found
    (:attr:`anchor`). The same diagnostic found twice (a module body called
    from two places) is kept once.
    """

    def __init__(self, path: str | None = None) -> None:
        self.path = path
        self.anchor: Span | None = None
        self._items: list[tuple[int, int, int, Diagnostic]] = []
        self._seen: set[tuple[object, ...]] = set()

    def add(self, diagnostic: Diagnostic) -> None:
        """Record one diagnostic."""
        key = (diagnostic.severity, diagnostic.message, diagnostic.line, diagnostic.col, diagnostic.path,
               diagnostic.hint)
        if key in self._seen:
            return
        self._seen.add(key)
        if diagnostic.path == self.path or self.anchor is None:
            line, col = diagnostic.line, diagnostic.col
        else:
            line, col = self.anchor
        self._items.append((line, col, len(self._items), diagnostic))

    def extend(self, diagnostics: Iterable[Diagnostic]) -> None:
        """Record several diagnostics (e.g. a CompileError's)."""
        for diagnostic in diagnostics:
            self.add(diagnostic)

    def all(self) -> list[Diagnostic]:
        """Every diagnostic, in source order."""
        return [item[3] for item in sorted(self._items)]

    @property
    def errors(self) -> list[Diagnostic]:
        """The errors, in source order."""
        return [d for d in self.all() if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        """The warnings, in source order."""
        return [d for d in self.all() if d.severity != "error"]

    def raise_errors(self) -> None:
        """Raise one CompileError carrying every error, if there is any."""
        errors = self.errors
        if errors:
            raise CompileError(errors[0], tuple(errors[1:]))
