"""Splitting a string literal into text and ``{expr}`` placeholders.

Rules (upstream-compatible):

* ``{{`` and ``}}`` are printf escapes; they stay verbatim in the format text.
* ``{`` opens a placeholder that ends at the matching ``}``; the scan counts
  ``( [ {`` nesting and skips double-quoted strings (with ``\\`` escapes), so
  ``"{f(\\"}\\")}"`` has one placeholder.
* An unterminated placeholder means the string is not an interpolation at
  all: the caller keeps the literal untouched. So does a placeholder whose body
  is empty or does not parse as one expression (``"{:05}"``), which is how
  hand-written printf formats survive.
* A string without placeholders stays exactly as written, ``{{`` included.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Placeholder:
    """A ``{...}`` body: characters ``start`` to ``end`` (exclusive) of the decoded text."""

    start: int
    end: int


Segment = str | Placeholder


def scan_segments(text: str) -> list[Segment] | None:
    """Literal text pieces and placeholders of ``text``, or None if a ``{`` is never closed."""
    segments: list[Segment] = []
    literal: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "{" and i + 1 < n and text[i + 1] == "{":
            literal.append("{{")
            i += 2
            continue
        if c == "}" and i + 1 < n and text[i + 1] == "}":
            literal.append("}}")
            i += 2
            continue
        if c == "{":
            end = _placeholder_end(text, i + 1)
            if end is None:
                return None
            if literal:
                segments.append("".join(literal))
                literal = []
            segments.append(Placeholder(i + 1, end))
            i = end + 1
            continue
        literal.append(c)
        i += 1
    if literal:
        segments.append("".join(literal))
    return segments


def _placeholder_end(text: str, start: int) -> int | None:
    """Index of the ``}`` closing the placeholder whose body starts at ``start``."""
    depth = 0
    in_string = False
    i = start
    n = len(text)
    while i < n:
        c = text[i]
        if in_string:
            if c == "\\" and i + 1 < n:
                i += 2
                continue
            if c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "([{":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "}":
            if depth == 0:
                return i
            depth -= 1
        i += 1
    return None
