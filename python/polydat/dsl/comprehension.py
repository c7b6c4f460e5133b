"""Comprehensions: the header of a ``for`` statement and the argument of
``Kernel.for_each`` — which tuples a traversal visits.

::

    k in 1..4                      # a range, end exclusive: 1, 2, 3
    k in 1..=4                     # end inclusive: 1, 2, 3, 4
    k in 0..10 step 3              # 0, 3, 6, 9 (floats need a step: 0.0..1.0 step 0.25)
    limit in 10,20,30              # a list of numbers
    phase in load,verify           # words (or 'quoted strings') are str values
    k in {ks}                      # a name of the enclosing scopes, read when the traversal opens
                                   # (a str value is read as a list or range: "1,2,3", "0..4")
    k in 1..3, limit in 10,20      # several clauses: their Cartesian product, first clause outermost
    (name, size) in (a, b), (1, 2) # a tuple clause zips its sources: (a, 1), (b, 2)
    k in 1..10 where {k} % 3 == 0  # a predicate over the tuple's names (and outer names)

The value type of each name follows its values: integers are ``u64`` (``i64``
when one is negative), any float makes it ``f64``, ``true``/``false`` are
``bool``, words and strings ``str``. Every error points at its place in the text.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Union

from ..errors import CompileError, Diagnostic
from .ast import Span
from .diagnostics import SourceFile
from .lexer import Lexer, Token, TokenKind

__all__ = ["Comprehension", "Clause", "Range", "Ref", "parse", "parse_text"]


@dataclass(frozen=True)
class Ref:
    """``{name}``: a name of the enclosing scopes, read when the traversal opens."""

    name: str
    line: int
    col: int


@dataclass(frozen=True)
class Range:
    """``lo..hi`` (``..=``: inclusive), optionally ``step s``."""

    lo: Union[int, float, Ref]
    hi: Union[int, float, Ref]
    inclusive: bool
    step: Union[int, float, Ref, None]
    line: int
    col: int


Item = Union[int, float, str, bool, Ref, Range]


@dataclass(frozen=True)
class Clause:
    """``name in items`` or ``(a, b) in source_a, source_b`` (a zip)."""

    names: tuple[str, ...]
    sources: tuple[tuple[Item, ...], ...]
    """One list of items per name (a single-name clause has one)."""
    line: int
    col: int


@dataclass(frozen=True)
class Comprehension:
    """A parsed comprehension (see the module)."""

    clauses: tuple[Clause, ...]
    where: str | None
    """The predicate as a DSL expression (``{x}`` written ``x``), or None."""
    where_line: int
    where_col: int
    text: str
    source_lines: dict[int, str]
    """The source lines the comprehension spans, by line number (for diagnostics)."""
    path: str | None

    @property
    def names(self) -> tuple[str, ...]:
        """Every iteration variable, in clause order."""
        return tuple(n for c in self.clauses for n in c.names)

    def error(self, message: str, line: int, col: int, hint: str | None = None) -> CompileError:
        """A compile error at ``line:col`` of the comprehension's source."""
        return CompileError(Diagnostic(message, line, col, hint, "error", self.source_lines.get(line), self.path))

    def open(self, lookup: Callable[[str], Any]) -> tuple[dict[str, str], Iterator[tuple[Any, ...]]]:
        """Reads every ``{name}`` (through ``lookup``) and returns the type of
        each iteration variable and the tuples, in order (lazily: a large
        product is never built whole)."""
        types: dict[str, str] = {}
        per_clause: list[Iterable[tuple[Any, ...]]] = []
        for clause in self.clauses:
            columns = [self._values(items, lookup) for items in clause.sources]
            for k, name in enumerate(clause.names):
                types[name], columns[k] = self._typed(name, columns[k], clause)
            if len(columns) == 1:
                per_clause.append(_Singles(columns[0]))
            else:
                lengths = {_length(c) for c in columns}
                if len(lengths) > 1:
                    shown = ", ".join(f"{n}: {_length(c)}" for n, c in zip(clause.names, columns))
                    raise self.error(
                        f"the sources zipped by ({', '.join(clause.names)}) have different lengths ({shown})",
                        clause.line,
                        clause.col,
                        "a tuple clause pairs its sources element by element; give them the same length",
                    )
                per_clause.append(_Zipped(columns))
        return types, _product(per_clause)

    def _values(self, items: tuple[Item, ...], lookup: Callable[[str], Any]) -> Sequence[Any]:
        values: list[Any] = []
        for item in items:
            if isinstance(item, Range):
                expanded = self._range(item, lookup)
                if len(items) == 1:
                    return expanded
                values.extend(expanded)
            elif isinstance(item, Ref):
                values.extend(self._ref_values(item, lookup))
            else:
                values.append(item)
        return values

    def _ref(self, ref: Ref, lookup: Callable[[str], Any]) -> Any:
        from ..errors import UnknownNameError

        try:
            value = lookup(ref.name)
        except UnknownNameError as err:
            raise self.error(str(err), ref.line, ref.col) from None
        if value is None:
            raise self.error(f"'{ref.name}' is None (not set), so it gives no values", ref.line, ref.col)
        return value

    def _ref_values(self, ref: Ref, lookup: Callable[[str], Any]) -> Sequence[Any]:
        value = self._ref(ref, lookup)
        if isinstance(value, str):
            try:
                items = parse_items(value)
            except CompileError as err:
                raise self.error(
                    f"'{ref.name}' holds {value!r}, which is not a list or range: {err.message}", ref.line, ref.col
                ) from None
            return self._values(items, lookup)
        if isinstance(value, (bool, int, float)):
            return [value]
        raise self.error(f"'{ref.name}' holds a {type(value).__name__}, not values to iterate", ref.line, ref.col)

    def _bound(self, value: Union[int, float, Ref], lookup: Callable[[str], Any], rng: Range) -> int | float:
        if isinstance(value, Ref):
            value = self._ref(value, lookup)
            if isinstance(value, str):
                try:
                    value = int(value, 0)
                except ValueError:
                    try:
                        value = float(value)
                    except ValueError:
                        raise self.error(f"a range bound must be a number, got {value!r}", rng.line, rng.col) from None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.error(f"a range bound must be a number, got {value!r}", rng.line, rng.col)
        return value

    def _range(self, rng: Range, lookup: Callable[[str], Any]) -> Sequence[Any]:
        lo, hi = self._bound(rng.lo, lookup, rng), self._bound(rng.hi, lookup, rng)
        step = self._bound(rng.step, lookup, rng) if rng.step is not None else None
        if all(isinstance(v, int) for v in (lo, hi, step) if v is not None):
            step = 1 if step is None else step
            if step <= 0:
                raise self.error(f"a range step must be positive, got {step}", rng.line, rng.col)
            return range(int(lo), int(hi) + (1 if rng.inclusive else 0), int(step))
        if step is None:
            raise self.error(
                "a float range needs a step", rng.line, rng.col, f"write e.g. `{lo}..{hi} step 0.1`"
            )
        if not step > 0 or not all(math.isfinite(float(v)) for v in (lo, hi, step)):
            raise self.error("a float range needs finite bounds and a positive step", rng.line, rng.col)
        count = (float(hi) - float(lo)) / float(step)
        n = max(0, math.floor(count + 1e-9) + 1 if rng.inclusive else math.ceil(count - 1e-9))
        if n > 100_000_000:
            raise self.error(f"the float range has {n} values; that is too many", rng.line, rng.col)
        return [float(lo) + i * float(step) for i in range(n)]

    def _typed(self, name: str, values: Sequence[Any], clause: Clause) -> tuple[str, Sequence[Any]]:
        if isinstance(values, range):
            if values and (values.start < -(2**63) or values[-1] >= 2**64 or (values.start < 0 and values[-1] >= 2**63)):
                kind = "i64" if values.start < 0 else "u64"
                raise self.error(f"the values of '{name}' do not fit in {kind}", clause.line, clause.col)
            return ("i64" if values.start < 0 and values else "u64"), values
        kinds = {_kind(v) for v in values}
        if not kinds:
            return "u64", values
        if kinds == {"bool"}:
            return "bool", values
        if kinds == {"str"}:
            return "str", values
        if "str" in kinds or "bool" in kinds:
            raise self.error(
                f"the values of '{name}' mix {' and '.join(sorted(kinds))}",
                clause.line,
                clause.col,
                "give each name values of one kind (numbers, words, or true/false)",
            )
        if "float" in kinds:
            return "f64", [float(v) for v in values]
        if any(v < 0 for v in values):
            if min(values) < -(2**63) or max(values) >= 2**63:
                raise self.error(f"the values of '{name}' do not fit in i64", clause.line, clause.col)
            return "i64", values
        if max(values) >= 2**64:
            raise self.error(f"the values of '{name}' do not fit in u64", clause.line, clause.col)
        return "u64", values


def _length(values: Sequence[Any]) -> int:
    """``len(values)``, also for a range past 2**63 values (where ``len`` overflows)."""
    if isinstance(values, range):
        return max(0, -((values.start - values.stop) // values.step))
    return len(values)


def _product(parts: Sequence[Iterable[tuple[Any, ...]]]) -> Iterator[tuple[Any, ...]]:
    """The Cartesian product of ``parts`` (re-iterable), first part
    outermost, each combination's tuples joined into one; lazily, so no part
    (a range of 2**64 values, say) is ever listed."""
    if not parts:
        yield ()
        return
    first, rest = parts[0], parts[1:]
    for head in first:
        for tail in _product(rest):
            yield head + tail


class _Singles:
    """The one-name tuples of a sequence of values (a range stays lazy)."""

    def __init__(self, values: Sequence[Any]):
        self.values = values

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return ((v,) for v in self.values)


class _Zipped:
    """The tuples of several equally long sequences, element by element (lazily)."""

    def __init__(self, columns: Sequence[Sequence[Any]]):
        self.columns = columns

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return zip(*self.columns)


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    return "str"


# ----------------------------------------------------------------------------
# Parsing


def parse_text(text: str, path: str | None = None) -> Comprehension:
    """Parses a comprehension given as text (``Kernel.for_each``); errors
    point at their column in ``text``."""
    file = SourceFile(text, path)
    lexer = Lexer(file)
    tokens = lexer.tokenize()
    if lexer.diagnostics:
        raise CompileError(lexer.diagnostics[0], tuple(lexer.diagnostics[1:]))
    return parse(tokens, file, text)


def parse_items(text: str) -> tuple[Item, ...]:
    """The items of a list or range written as text (the value of a
    ``{name}`` reference): ``1,2,3``, ``0..4``, ``a,b``."""
    file = SourceFile(text, None)
    lexer = Lexer(file)
    tokens = lexer.tokenize()
    if lexer.diagnostics:
        raise CompileError(lexer.diagnostics[0])
    parser = _Parser(tokens, file, text)
    if parser.peek().kind is TokenKind.EOF:
        return ()
    items = parser.items(stop_at_clause=False)
    parser.expect_end()
    return tuple(items)


def parse(tokens: Sequence[Token], file: SourceFile, text: str) -> Comprehension:
    """Parses the comprehension in ``tokens`` (which end with EOF or are the
    header tokens of a ``for``); ``text`` is its source text."""
    parser = _Parser(tokens, file, text)
    return parser.comprehension()


_WHERE_REF = re.compile(r"\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}")


class _Parser:
    def __init__(self, tokens: Sequence[Token], file: SourceFile, text: str):
        tokens = list(tokens)
        if not tokens or tokens[-1].kind is not TokenKind.EOF:
            end = tokens[-1] if tokens else None
            eof_offset = (end.offset + len(end.text)) if end else 0
            tokens.append(Token(TokenKind.EOF, "", eof_offset, end.line if end else 1, (end.col + len(end.text)) if end else 1))
        self.tokens = tokens
        self.pos = 0
        self.file = file
        self.text = text

    def peek(self, k: int = 0) -> Token:
        return self.tokens[min(self.pos + k, len(self.tokens) - 1)]

    def advance(self) -> Token:
        token = self.peek()
        self.pos = min(self.pos + 1, len(self.tokens) - 1)
        return token

    def error(self, message: str, token: Token, hint: str | None = None) -> CompileError:
        return self.file.error(message, Span(token.line, token.col), hint)

    def expect_end(self) -> None:
        token = self.peek()
        if token.kind is not TokenKind.EOF:
            raise self.error(f"unexpected {_describe(token)} in the comprehension", token)

    def comprehension(self) -> Comprehension:
        start = self.peek()
        if start.kind is TokenKind.EOF:
            raise self.error("a comprehension needs at least one clause", start, "write e.g. `k in 1..4`")
        clauses = [self.clause()]
        while self.peek().is_op(","):
            self.advance()
            clauses.append(self.clause())
        where, where_line, where_col = None, 0, 0
        if self.peek().is_word("where"):
            word = self.advance()
            where, where_line, where_col = self.predicate(word), word.line, word.col
        if self.peek().is_word("order"):
            raise self.error(
                "'order' strategies are not supported; tuples come in clause order",
                self.peek(),
                "drop the order clause",
            )
        self.expect_end()
        names = [n for c in clauses for n in c.names]
        for i, name in enumerate(names):
            if name in names[:i]:
                raise self.error(f"'{name}' is named by two clauses", start, "each iteration variable is named once")
        lines = {t.line for t in self.tokens if t.line}
        source_lines = {n: text for n in lines if (text := self.file.line_text(n)) is not None}
        return Comprehension(tuple(clauses), where, where_line, where_col, self.text, source_lines, self.file.path)

    def clause_starts(self, k: int = 0) -> bool:
        """Whether a clause (``name in`` or ``(a, b) in``) starts ``k`` tokens ahead."""
        if self.peek(k).kind is TokenKind.IDENT and self.peek(k + 1).is_word("in"):
            return True
        if not self.peek(k).is_op("("):
            return False
        j = k + 1
        while self.peek(j).kind is TokenKind.IDENT and self.peek(j + 1).is_op(","):
            j += 2
        return self.peek(j).kind is TokenKind.IDENT and self.peek(j + 1).is_op(")") and self.peek(j + 2).is_word("in")

    def clause(self) -> Clause:
        first = self.peek()
        if first.is_op("("):
            self.advance()
            names = [self.name()]
            while self.peek().is_op(","):
                self.advance()
                names.append(self.name())
            self.expect(")")
            self.expect_in(first)
            sources = [self.source()]
            while len(sources) < len(names) and self.peek().is_op(",") and not self.clause_starts(1):
                self.advance()
                sources.append(self.source())
            if len(sources) != len(names):
                raise self.error(
                    f"({', '.join(names)}) zips {len(names)} sources, but {len(sources)} "
                    f"{'is' if len(sources) == 1 else 'are'} given",
                    first,
                    f"write `({', '.join(names)}) in {', '.join(f'(...)' for _ in names)}`, one source per name",
                )
            return Clause(tuple(names), tuple(sources), first.line, first.col)
        name = self.name()
        self.expect_in(first)
        return Clause((name,), (tuple(self.items(stop_at_clause=True)),), first.line, first.col)

    def name(self) -> str:
        token = self.peek()
        if token.kind is not TokenKind.IDENT or token.text in ("in", "where"):
            raise self.error(f"expected a name, found {_describe(token)}", token)
        return self.advance().text

    def expect(self, op: str) -> Token:
        token = self.peek()
        if not token.is_op(op):
            raise self.error(f"expected '{op}', found {_describe(token)}", token)
        return self.advance()

    def expect_in(self, start: Token) -> None:
        token = self.peek()
        if not token.is_word("in"):
            raise self.error(f"expected 'in', found {_describe(token)}", token, "a clause is written `name in values`")
        self.advance()

    def source(self) -> tuple[Item, ...]:
        """One zipped source: a parenthesised list, or a single item (a range, a reference)."""
        if self.peek().is_op("("):
            self.advance()
            items = [self.item()]
            while self.peek().is_op(","):
                self.advance()
                items.append(self.item())
            self.expect(")")
            return tuple(items)
        return (self.item(),)

    def items(self, stop_at_clause: bool) -> list[Item]:
        items = [self.item()]
        while self.peek().is_op(",") and not (stop_at_clause and self.clause_starts(1)):
            self.advance()
            items.append(self.item())
        return items

    def item(self) -> Item:
        token = self.peek()
        value = self.scalar()
        if self.peek().is_op(".") and self.peek(1).is_op(".") and self.peek(1).offset == self.peek().offset + 1:
            if isinstance(value, (str, bool)):
                raise self.error(f"a range bound must be a number, got {_describe(token)}", token)
            self.advance()
            self.advance()
            inclusive = False
            if self.peek().is_op("=") and self.peek().offset == self.tokens[self.pos - 1].offset + 1:
                self.advance()
                inclusive = True
            hi_token = self.peek()
            hi = self.scalar()
            if isinstance(hi, (str, bool)):
                raise self.error(f"a range bound must be a number, got {_describe(hi_token)}", hi_token)
            step = None
            if self.peek().is_word("step"):
                self.advance()
                step_token = self.peek()
                step = self.scalar()
                if isinstance(step, (str, bool)):
                    raise self.error(f"a range step must be a number, got {_describe(step_token)}", step_token)
            return Range(value, hi, inclusive, step, token.line, token.col)  # type: ignore[arg-type]
        return value

    def scalar(self) -> Union[int, float, str, bool, Ref]:
        token = self.peek()
        if token.is_op("{"):
            self.advance()
            name = self.peek()
            if name.kind is not TokenKind.IDENT:
                raise self.error("expected a name inside '{...}'", name, "a reference is written `{name}`")
            self.advance()
            self.expect("}")
            return Ref(name.text, token.line, token.col)
        if token.is_op("-"):
            self.advance()
            number = self.peek()
            if number.kind not in (TokenKind.INT, TokenKind.FLOAT):
                raise self.error(f"expected a number after '-', found {_describe(number)}", number)
            self.advance()
            return -number.value  # type: ignore[operator]
        if token.kind in (TokenKind.INT, TokenKind.FLOAT):
            self.advance()
            return token.value  # type: ignore[return-value]
        if token.kind is TokenKind.STRING:
            self.advance()
            return str(token.value)
        if token.kind is TokenKind.IDENT and token.text not in ("where", "in", "step", "order"):
            self.advance()
            return {"true": True, "false": False}.get(token.text, token.text)
        raise self.error(f"expected a value, found {_describe(token)}", token)

    def predicate(self, where: Token) -> str:
        """The rest of the tokens as a DSL expression: ``{x}`` becomes ``x``."""
        first = self.peek()
        if first.kind is TokenKind.EOF:
            raise self.error("'where' needs a predicate", where, "write e.g. `where {k} > 2`")
        end = first
        while self.peek().kind is not TokenKind.EOF and not self.peek().is_word("order"):
            end = self.advance()
        text = self.file.text[first.offset : end.offset + len(end.text)]
        return _WHERE_REF.sub(lambda m: m.group(1), text)


def _describe(token: Token) -> str:
    if token.kind is TokenKind.EOF:
        return "the end of the comprehension"
    return f"'{token.text}'"

