"""``where`` predicates of comprehensions, with upstream's rules.

A predicate is a boolean expression over a tuple's elements, each written
``{name}``. It groups by the language's precedence table, with membership
beside the ordering comparisons::

    ||   &&   == !=   < <= > >= and {name} in [v1, v2, ...]   arithmetic   unary ! -

Its rules differ from the statement language's operators:

* ``&&`` and ``||`` evaluate left to right and stop at the operand that
  decides (``{n} != 0 && {total} / {n} > 2`` never divides by zero);
* ``!`` negates a truth value (a boolean, or a number: true when non-zero);
* values compare as scalars: numbers with numbers, strings with strings
  (ordered comparisons included), booleans with booleans; a value is never
  equal to a value of another kind, and ordering values of different kinds
  is an error;
* an element the tuple does not bind is read from the scope the traversal
  opens in; a bare word is a name too (``load`` reads as ``{load}``; text
  is quoted: ``{region} == "us-east"``, where ``us-east`` is ``us - east``).
  A name nothing binds is refused when the comprehension is compiled or
  opened (upstream 0.6.0's V3). A comparison, membership,
  negation or expression that reads None is None, ``&&``/``||`` stop at a
  None operand and are None, and a predicate whose value is None keeps no
  tuple.

Arithmetic and calls (``{k} % 3``, ``hash({k})``) are Polydat expressions:
the caller evaluates them (:class:`Predicate.tester`'s ``expression``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Union

from ..errors import CompileError
from .diagnostics import SourceFile
from .grammar import BINARY_PRECEDENCE
from .lexer import Lexer, Token, TokenKind

__all__ = ["Predicate", "PredicateError"]

_RELATIONAL = ("<", "<=", ">", ">=")
_EQUALITY = ("==", "!=")
#: Operators that make an arithmetic expression (evaluated as Polydat).
_ARITHMETIC = frozenset(op for op, p in BINARY_PRECEDENCE.items() if p >= BINARY_PRECEDENCE["|"])
#: The deepest nesting of parentheses and prefix operators a predicate may
#: have (its parser and evaluator recurse once per level).
MAX_NESTING = 100


class PredicateError(Exception):
    """A predicate failed on a tuple (ordering values of different kinds, a
    string used as a truth value, an expression that failed)."""


@dataclass(frozen=True)
class _Node:
    kind: str  # or | and | not | cmp | in | elem | lit | expr
    parts: tuple[Any, ...]


class Predicate:
    """A parsed ``where`` predicate (``text`` as written, at ``line``:``col``)."""

    def __init__(self, text: str):
        self.text = text
        file = SourceFile(text)
        lexer = Lexer(file)
        lexer.fast_lines = False
        tokens = lexer.tokenize()
        if lexer.diagnostics:
            raise CompileError(lexer.diagnostics[0])
        self._tokens = tokens
        self._pos = 0
        self._depth = 0
        self.expressions: list[str] = []
        """The Polydat expressions the predicate evaluates (``{x}`` written ``x``)."""
        self.bare_words: list[str] = []
        """Names written without braces (they read None)."""
        self.tree = self._or()
        if self._peek().kind is not TokenKind.EOF:
            raise self._error(f"unexpected '{self._peek().text}' in the predicate")

    # -- evaluation ----------------------------------------------------------

    def reads(self) -> list[str]:
        """The ``{name}`` elements the predicate reads, in order, once each."""
        found: list[str] = []

        def walk(node: Any) -> None:
            if isinstance(node, _Node):
                if node.kind == "elem" and node.parts[0] not in found:
                    found.append(node.parts[0])
                elif node.kind == "expr":
                    for name in node.parts[1]:
                        if name not in found:
                            found.append(name)
                else:
                    for part in node.parts:
                        walk(part)
            elif isinstance(node, tuple):
                for part in node:
                    walk(part)

        walk(self.tree)
        return found

    def tester(
        self, element: Callable[[tuple[Any, ...], str], Any], expression: Callable[[int, tuple[Any, ...]], Any]
    ) -> Callable[[tuple[Any, ...]], bool]:
        """A test of tuples: ``element(tuple, name)`` reads an element (None
        when nothing binds it); ``expression(i, tuple)`` evaluates
        :attr:`expressions` ``[i]`` for the tuple. Raises
        :class:`PredicateError` when the predicate fails on a tuple."""

        def value(node: _Node, t: tuple[Any, ...]) -> Any:
            kind = node.kind
            if kind == "lit":
                return node.parts[0]
            if kind == "elem":
                return element(t, node.parts[0])
            if kind == "expr":
                return expression(node.parts[0], t)
            if kind == "or" or kind == "and":
                for part in node.parts:
                    v = value(part, t)
                    if v is None:
                        return None
                    if _truth(v) is (kind == "or"):
                        return kind == "or"
                return kind == "and"
            if kind == "not":
                v = value(node.parts[0], t)
                return None if v is None else not _truth(v)
            if kind == "cmp":
                op, a, b = node.parts
                left = value(a, t)
                if left is None:
                    return None
                right = value(b, t)
                if right is None:
                    return None
                return _compare(op, left, right)
            needle = value(node.parts[0], t)
            if needle is None:
                return None
            hit = False
            for item in node.parts[1]:
                v = value(item, t)
                if v is None:
                    return None
                hit = hit or _equal(needle, v)
            return hit

        def test(t: tuple[Any, ...]) -> bool:
            v = value(self.tree, t)
            return v is not None and _truth(v)

        return test

    # -- parsing -------------------------------------------------------------

    def _peek(self, k: int = 0) -> Token:
        return self._tokens[min(self._pos + k, len(self._tokens) - 1)]

    def _advance(self) -> Token:
        token = self._peek()
        self._pos = min(self._pos + 1, len(self._tokens) - 1)
        return token

    def _nested(self, parse: Callable[[], Any]) -> Any:
        """``parse()`` one level deeper (a parenthesis, ``!`` or ``-``),
        refusing a predicate nested deeper than :data:`MAX_NESTING`."""
        if self._depth >= MAX_NESTING:
            raise self._error(f"the predicate nests parentheses and prefix operators deeper than {MAX_NESTING} levels")
        self._depth += 1
        try:
            return parse()
        finally:
            self._depth -= 1

    def _error(self, message: str) -> CompileError:
        from ..errors import Diagnostic

        return CompileError(Diagnostic(message, 1, 1))

    def _or(self) -> Any:
        parts = [self._and()]
        while self._peek().is_op("||"):
            self._advance()
            parts.append(self._and())
        return parts[0] if len(parts) == 1 else _Node("or", tuple(parts))

    def _and(self) -> Any:
        parts = [self._equality()]
        while self._peek().is_op("&&"):
            self._advance()
            parts.append(self._equality())
        return parts[0] if len(parts) == 1 else _Node("and", tuple(parts))

    def _equality(self) -> Any:
        left = self._relational()
        while self._peek().is_op(*_EQUALITY):
            op = self._advance().text
            left = _Node("cmp", (op, left, self._relational()))
        return left

    def _relational(self) -> Any:
        left = self._arithmetic()
        while True:
            if self._peek().is_op(*_RELATIONAL):
                op = self._advance().text
                left = _Node("cmp", (op, left, self._arithmetic()))
            elif self._peek().is_word("in") and self._peek(1).is_op("["):
                self._advance()
                self._advance()
                items = []
                while not self._peek().is_op("]"):
                    if self._peek().kind is TokenKind.EOF:
                        raise self._error("expected ']' closing the membership list")
                    items.append(self._arithmetic())
                    if self._peek().is_op(","):
                        self._advance()
                self._advance()
                left = _Node("in", (left, tuple(items)))
            else:
                return left

    def _arithmetic(self) -> Any:
        start, mark = self._peek(), len(self.expressions)
        first = self._unary()
        if not (self._peek().kind is TokenKind.OP and self._peek().text in _ARITHMETIC):
            return first
        while self._peek().kind is TokenKind.OP and self._peek().text in _ARITHMETIC:
            self._advance()
            self._unary()
        del self.expressions[mark:]  # the whole run is one expression
        return self._expression(start)

    def _unary(self) -> Any:
        token = self._peek()
        if token.is_op("!"):
            self._advance()
            return _Node("not", (self._nested(self._unary),))
        if token.is_op("-"):
            self._advance()
            nxt = self._peek()
            if nxt.kind in (TokenKind.INT, TokenKind.FLOAT):
                self._advance()
                return _Node("lit", (-nxt.value,))  # type: ignore[operator]
            mark = len(self.expressions)
            self._nested(self._unary)
            del self.expressions[mark:]
            return self._expression(token)
        return self._primary()

    def _primary(self) -> Any:
        token = self._advance()
        if token.is_op("{") and self._peek().kind is TokenKind.IDENT and self._peek(1).is_op("}"):
            name = self._advance().text
            self._advance()
            return _Node("elem", (name,))
        if token.kind in (TokenKind.INT, TokenKind.FLOAT, TokenKind.STRING):
            return _Node("lit", (token.value,))
        if token.is_word("true", "false"):
            return _Node("lit", (token.text == "true",))
        if token.is_op("("):
            inner = self._nested(self._or)
            if not self._advance().is_op(")"):
                raise self._error("expected ')' in the predicate")
            return inner
        if token.kind is TokenKind.IDENT:
            if self._peek().is_op("("):
                depth = 0
                while True:
                    t = self._advance()
                    if t.kind is TokenKind.EOF:
                        raise self._error(f"expected ')' closing the call of '{token.text}'")
                    if t.is_op("("):
                        depth += 1
                    elif t.is_op(")"):
                        depth -= 1
                        if depth == 0:
                            break
                return self._expression(token)
            # A bare word is a name, as `{word}` is (text is quoted).
            self.bare_words.append(token.text)
            return _Node("elem", (token.text,))
        raise self._error(f"unexpected '{token.text or 'end'}' in the predicate")

    def _expression(self, start: Token) -> _Node:
        """The tokens from ``start`` to here as one Polydat expression."""
        i = self._tokens.index(start)
        span = self._tokens[i : self._pos]
        names: list[str] = []
        for k, t in enumerate(span):
            if t.kind is not TokenKind.IDENT or t.text in ("true", "false"):
                continue
            braced = k > 0 and span[k - 1].is_op("{") and k + 1 < len(span) and span[k + 1].is_op("}")
            called = k + 1 < len(span) and span[k + 1].is_op("(")
            if braced:
                names.append(t.text)
            elif not called and not (k > 0 and span[k - 1].is_word("as")):
                self.bare_words.append(t.text)
                names.append(t.text)
        end = span[-1]
        text = self.text[start.offset : end.offset + len(end.text)]
        from .comprehension import _strip_refs

        self.expressions.append(_strip_refs(text))
        return _Node("expr", (len(self.expressions) - 1, tuple(names)))


Scalar = Union[int, float, str, bool]


def _kind(v: Scalar) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "str"
    raise PredicateError(f"{v!r} is not a scalar")


def _truth(v: Scalar) -> bool:
    kind = _kind(v)
    if kind == "str":
        raise PredicateError(f"the string {v!r} has no truth value")
    return bool(v)


def _equal(a: Scalar, b: Scalar) -> bool:
    return _kind(a) == _kind(b) and a == b


def _compare(op: str, a: Scalar, b: Scalar) -> bool:
    if op == "==":
        return _equal(a, b)
    if op == "!=":
        return not _equal(a, b)
    if _kind(a) != _kind(b):
        raise PredicateError(f"cannot order {a!r} ({_kind(a)}) and {b!r} ({_kind(b)})")
    if op == "<":
        return a < b  # type: ignore[operator]
    if op == "<=":
        return a <= b  # type: ignore[operator]
    if op == ">":
        return a > b  # type: ignore[operator]
    return a >= b  # type: ignore[operator]
