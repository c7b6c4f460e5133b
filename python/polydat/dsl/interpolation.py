"""Splitting a string literal into text and ``{expr}`` placeholders.

Rules (upstream-compatible):

* ``{{`` and ``}}`` are printf escapes; they stay verbatim in the format text.
* ``{`` opens a placeholder that ends at the matching ``}``; the scan counts
  ``( [ {`` nesting and skips double-quoted strings (with ``\\`` escapes), so
  ``"{f(\\"}\\")}"`` has one placeholder.
* An unterminated placeholder that starts an expression (``"x{id"``, a
  name, a number or a call after the ``{``) is an error of the program, where
  upstream keeps the whole literal as text, silently. Any other unclosed
  ``{`` (``"{"``, ``"{ "``) keeps the literal untouched, and so does a
  placeholder whose body is empty or does not parse as one expression
  (``"{:05}"``), which is how hand-written printf formats survive.
* A string without placeholders stays exactly as written, ``{{`` included.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Placeholder:
    """A ``{...}`` body: characters ``start`` to ``end`` (exclusive) of the decoded text."""

    start: int
    end: int


Segment = str | Placeholder

_BRACE = re.compile(r"[{}]")


def scan_segments(text: str) -> list[Segment] | None:
    """Literal text pieces and placeholders of ``text``, or None if a ``{`` is never closed.

    The text between braces is taken by slices, so a long literal costs no
    memory per character."""
    segments: list[Segment] = []
    literal: list[str] = []
    i = 0
    n = len(text)
    while True:
        brace = _BRACE.search(text, i)
        if brace is None:
            literal.append(text[i:])
            break
        j = brace.start()
        c = text[j]
        if j + 1 < n and text[j + 1] == c:  # `{{` or `}}`: printf escapes, kept verbatim
            literal.append(text[i:j + 2])
            i = j + 2
            continue
        if c == "}":
            literal.append(text[i:j + 1])
            i = j + 1
            continue
        end = _placeholder_end(text, j + 1)
        if end is None:
            return None
        literal.append(text[i:j])
        piece = "".join(literal)
        if piece:
            segments.append(piece)
        literal = []
        segments.append(Placeholder(j + 1, end))
        i = end + 1
    piece = "".join(literal)
    if piece:
        segments.append(piece)
    return segments


def unclosed_placeholder(text: str) -> int | None:
    """The index of the first ``{`` of ``text`` that opens a placeholder never
    closed and starts an expression (a letter, digit or ``_`` follows it);
    None when there is none (see the module's rules)."""
    i = 0
    n = len(text)
    while True:
        brace = _BRACE.search(text, i)
        if brace is None:
            return None
        j = brace.start()
        if j + 1 < n and text[j + 1] == text[j]:
            i = j + 2
            continue
        if text[j] == "}":
            i = j + 1
            continue
        end = _placeholder_end(text, j + 1)
        if end is None:
            starts_expression = j + 1 < n and (text[j + 1].isalnum() or text[j + 1] == "_")
            return j if starts_expression else None
        i = end + 1


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
