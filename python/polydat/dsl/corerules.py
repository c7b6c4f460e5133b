"""The Rust core's rules, asked for instead of copied.

The frontend needs answers the core owns, and keeps no Python copy of them
(copies drift):

* :func:`suggest` -- the one "did you mean" rule (``nodes::closest``), and
  :func:`suggestion_limit`, how far a suggestion may be;
* :func:`match_arguments` -- which parameter each argument of a call fills,
  and the wording of every mismatch;
* :func:`type_keywords` / :func:`canonical_type` -- the type spellings;
* :func:`int_literal_type` -- ``u64`` or ``i64`` for integer literals;
* :func:`f64_display` -- how the core displays a float;
* :func:`printf_placeholders` -- how many placeholders a format has;
* :func:`formats` -- the output formats rows are written in (names,
  aliases, file extensions, binary or text, writer), with
  :func:`format_named`, :func:`format_of_extension` and
  :func:`format_written_by` to look one up.
* :func:`catalog_json` -- the node catalog the frontend binds calls against.
* :func:`variadic_wire_count` -- how many wires a constant (``printf``'s
  format) gives a node.

The core is imported on first use, so the frontend modules import without a
built extension. Answers are cached for the process: the core is fixed once
loaded.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType

__all__ = [
    "suggest", "suggestion_limit", "may_suggest", "NameIndex", "match_arguments", "Matching", "type_keywords", "canonical_type",
    "int_literal_type", "f64_display", "printf_placeholders", "variadic_wire_count", "streamer_text", "cursor_spec_is_one_range", "catalog_json",
    "OutputFormat", "formats", "format_named", "format_of_extension", "format_written_by",
]


@lru_cache(maxsize=1)
def _core() -> ModuleType:
    return importlib.import_module("polydat._core")


def suggestion_limit(name: str) -> int:
    """The most edits the core's suggestion for ``name`` may be away from it.

    Candidates whose length differs by more cannot be the answer by edits,
    and only one that contains ``name`` can hold it as a word (the core's
    second rule), so the others are dropped before the core is asked (a
    speed-up only, never a different answer: :func:`may_suggest`).
    """
    limit: int = _core().suggestion_limit(name)
    return limit


def removed_node_hint(name: str) -> str | None:
    """What a program writes instead of ``name`` when ``name`` is a node the
    core removed, else None (the hint of the unknown-node error)."""
    hint: str | None = _core().removed_node_hint(name)
    return hint


def may_suggest(name: str, candidate: str, limit: int) -> bool:
    """A cheap necessary condition for the core to suggest ``candidate`` for
    ``name`` (``limit``: :func:`suggestion_limit`): its length is within the
    edit limit, or it contains ``name`` (which a candidate holding ``name``
    as a word does)."""
    return abs(len(candidate) - len(name)) <= limit or name in candidate


def suggest(name: str, candidates: Iterable[str], preferred: Iterable[str] = (), callee: bool = False) -> str | None:
    """The candidate closest to ``name`` by the core's rule, or None; a close
    name of ``preferred`` (the program's own) wins over ``candidates``.
    ``callee``: ``name`` is called as a node or module, so a candidate
    holding it as a word may answer (``uuid`` finds ``hashed_uuid``)."""
    limit = suggestion_limit(name)
    near = [c for c in candidates if may_suggest(name, c, limit)]
    near_preferred = [c for c in preferred if may_suggest(name, c, limit)]
    if not near and not near_preferred:
        return None
    result: str | None = _core().suggest(name, near, near_preferred, callee)
    return result


class NameIndex:
    """Many suggestion questions over one candidate list, with a bound on the work.

    Two cheap necessary conditions for a candidate to be within the core's
    edit limit prune what is sent to the core: its length differs from the
    name's by at most the limit, and its set of letters by at most twice the
    limit (an edit adds or removes at most one letter of each set); a
    candidate that contains the name is kept too (the core's word rule).
    Candidates are grouped by their set of letters, so a question looks at
    each group once. Once ``budget`` candidates have been sent in all, no more
    suggestions are made (a program reading thousands of unknown names gets
    suggestions for the first ones, not a quadratic compile). The names
    ``declared`` gives (the program's own) are preferred by the core's rule.
    """

    def __init__(
        self,
        candidates: Callable[[], Iterable[str]],
        budget: int,
        declared: Callable[[], Iterable[str]] | None = None,
    ):
        """``candidates`` and ``declared`` are called once, at the first question."""
        self._candidates: Callable[[], Iterable[str]] | None = candidates
        self._declared_names = declared
        self._declared: frozenset[str] = frozenset()
        self._groups: list[tuple[frozenset[str], list[str]]] = []
        self._budget = budget

    def _index(self) -> list[tuple[frozenset[str], list[str]]]:
        """Candidates by their set of letters, built at the first question (most programs ask none)."""
        if self._candidates is not None:
            declared = frozenset(self._declared_names()) if self._declared_names is not None else frozenset()
            groups: dict[frozenset[str], list[str]] = {}
            for name in (*self._candidates(), *declared):
                groups.setdefault(frozenset(name), []).append(name)
            self._groups = list(groups.items())
            self._declared = declared
            self._candidates = None
        return self._groups

    def closest(self, name: str) -> str | None:
        """The candidate closest to ``name`` (the core's rule), or None."""
        size = len(name)
        letters = frozenset(name)
        limit = suggestion_limit(name)
        spread = 2 * limit
        near = {
            candidate
            for group, names in self._index()
            if len(letters ^ group) <= spread or letters <= group
            for candidate in names
            if -limit <= len(candidate) - size <= limit or name in candidate
        }
        if not near or len(near) > self._budget:
            return None
        self._budget -= len(near)
        preferred = sorted(near & self._declared)
        result: str | None = _core().suggest(name, sorted(near - self._declared), preferred)
        return result


#: Per parameter the argument index filling it, the variadic parameter's
#: arguments, the missing parameters as (index, message, hint), and the first
#: mismatch as (argument index, message, hint) -- see :func:`match_arguments`.
Matching = tuple[
    list[int | None], list[int], list[tuple[int, str, str | None]], tuple[int, str, str | None] | None
]


def match_arguments(
    params: Sequence[tuple[str, bool, bool]], args: Sequence[str | None], what: str, signature: str
) -> Matching:
    """The core's argument matching for a call of ``what``.

    ``params``: per parameter (name, variadic, optional); ``args``: per
    argument its name, or None when positional. The messages are the core's,
    worded with ``what`` (``'mod'``, ``module 'm'``) and ``signature``.
    """
    return _match_arguments(tuple(params), tuple(args), what, signature)


@lru_cache(maxsize=4096)
def _match_arguments(
    params: tuple[tuple[str, bool, bool], ...], args: tuple[str | None, ...], what: str, signature: str
) -> Matching:
    """:func:`match_arguments`, asked once per call shape (the answer depends on nothing else)."""
    matching: Matching = _core().match_arguments(list(params), list(args), what, signature)
    return matching


@lru_cache(maxsize=1)
def type_keywords() -> dict[str, str]:
    """Every type spelling a program may write, with the keyword of the type it names."""
    return {str(spelling): str(keyword) for spelling, keyword in _core().type_keywords()}


def canonical_type(word: str) -> str | None:
    """The keyword of the type ``word`` spells, or None when it spells none
    (``decimal(15, 2)`` is ``decimal(15,2)``; ValueError, in the core's words,
    for a decimal whose precision or scale is out of range)."""
    found = type_keywords().get(word)
    if found is not None or not word.startswith("decimal"):
        return found
    keyword: str | None = _core().parse_type(word)
    return keyword


def int_literal_type(low: int, high: int | None = None) -> str | None:
    """``"u64"`` or ``"i64"``: the type of the integer literals from ``low`` to
    ``high`` (``high`` defaults to ``low``: one literal); None when they do not
    all fit that type."""
    found: str | None = _core().int_literal_type(low, low if high is None else high)
    return found


def f64_display(value: float) -> str:
    """``value`` as the core displays an f64 (no exponent; ``1`` for 1.0)."""
    text: str = _core().f64_display(value)
    return text


@lru_cache(maxsize=2)
def conversions(implicit: bool = True) -> tuple[tuple[str, str], ...]:
    """The (source, target) type pairs the core converts: implicitly on a
    mismatched wire (``implicit=True``), or with ``expr as T`` (``False``)."""
    return tuple((str(source), str(target)) for source, target in _core().conversions(implicit))


def printf_placeholders(fmt: str) -> int:
    """The number of placeholders in a ``printf`` format, by the core's reading."""
    count: int = _core().printf_placeholders(fmt)
    return count


def variadic_wire_count(node: str, value: str) -> int | None:
    """How many wires ``node``'s variadic wire parameter takes when the
    constant that decides it holds ``value`` (``printf``: one per
    placeholder), or None when no constant decides it."""
    count: int | None = _core().variadic_wire_count(node, value)
    return count


def streamer_text(spec: str) -> str:
    """The comprehension text a ``streamer(spec)`` call holds (the text, or
    upstream's JSON payload's ``text``); raises ``PolydatError`` with the
    node's message when it holds none."""
    text: str = _core().streamer_text(spec)
    return text


def cursor_spec_is_one_range(spec: str) -> bool:
    """Whether a cursor's ``over`` spec is one range (``0..50%``): one
    partition, so the cursor takes no partition index from the host."""
    return bool(_core().cursor_spec_is_one_range(spec))


@dataclass(frozen=True)
class OutputFormat:
    """One output format of the core's registry (``columns::formats``)."""

    name: str
    """What ``--format`` (and the core's ``encode=``) takes."""
    aliases: tuple[str, ...]
    """Other names it is asked for by."""
    extensions: tuple[str, ...]
    """The file extensions that name it, lowercase with the dot; the first
    is the one a file written in it is named with."""
    about: str
    """What it is, in a few words (for help texts)."""
    binary: bool
    """True for a binary format (never written to a terminal), False for text."""
    writer: str
    """The name of what writes it: ``csv_text`` or ``jsonl_text`` (the core's
    text encoders), ``parquet``, ``arrow_ipc``."""


@lru_cache(maxsize=1)
def formats() -> tuple[OutputFormat, ...]:
    """Every output format, in the order help texts list them."""
    return tuple(
        OutputFormat(
            name=str(f["name"]),
            aliases=tuple(f["aliases"]),
            extensions=tuple(f["extensions"]),
            about=str(f["about"]),
            binary=bool(f["binary"]),
            writer=str(f["writer"]),
        )
        for f in _core().formats()
    )


@lru_cache(maxsize=1)
def _formats_by_name() -> dict[str, OutputFormat]:
    return {name: f for f in formats() for name in (f.name, *f.aliases)}


@lru_cache(maxsize=1)
def _formats_by_extension() -> dict[str, OutputFormat]:
    return {ext: f for f in formats() for ext in f.extensions}


def format_named(name: str) -> OutputFormat | None:
    """The format called ``name`` (its name or an alias), or None."""
    return _formats_by_name().get(name)


def format_of_extension(extension: str) -> OutputFormat | None:
    """The format whose file extension ``extension`` is (``".pq"``, in any
    case), or None: no format has this extension (``".xlsx"``, ``""``)."""
    return _formats_by_extension().get(extension.lower())


def format_written_by(writer: str) -> OutputFormat | None:
    """The format the writer named ``writer`` (:attr:`OutputFormat.writer`) writes, or None."""
    return next((f for f in formats() if f.writer == writer), None)


def catalog_json() -> str:
    """The core's node catalog as JSON text (see :mod:`polydat.dsl.catalog`);
    raises ``ImportError`` when the core is not built."""
    text: str = _core().catalog_json()
    return text
