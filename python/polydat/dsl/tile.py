"""Tiles: compiled templates (``tile name [: json|text|csv] [(options)] := body``).

A tile is a skeleton of static text with typed holes bound to wires::

    tile doc : json := {
        "tenant": ${tenant_id},                       # a hole: any expression of the scope
        "device": "${device_id}",                     # inside a JSON string: escaped text
        "ts": ${ts: u64},                             # a declared type (the `as` rule)
        "temp": ${temp_c | .2},                       # a printf format applied first
        "samples": [ @for s in 0..4 { { "n": ${s} } } ],   # a projection (one body per tuple)
        "flag": @if hot { "hot" } @else { "cold" }    # a branch (a u64 or bool condition)
    }
    tile load := <<<
    INSERT INTO t (doc) VALUES ('${doc!}')            # `!`: raw (no escaping); ${doc} of a
    >>>                                               # same-encoding tile splices it

Options: ``delims "<%" "%>"`` (hole delimiters), ``sigil "#"`` (directive
prefix), ``strict`` (no implicit adapters at holes), ``instring`` (the body
starts inside a JSON string). ``name := polytile("json", "...", open: "<%",
close: "%>", sigil: "#", strict: true)`` and ``polytile_json(body, ...)`` are
the same as ``tile`` statements.

This module parses templates (:func:`parse_template`) and lowers a tile
(:class:`TileLowering`, a mixin of the binder) onto the string machinery:
the whole tile is one ``__tile`` node, ``printf`` with an encoder per hole
(``polydat_core``'s format family), so a tile renders at ``printf``'s speed
on every engine. Projections are unrolled at compile time (their
comprehension must be known then); a branch renders its two bodies as
tiles of their own and picks one with ``select_str``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from collections.abc import Sequence
from typing import Any, Callable, Union

from . import ast
from .ast import Span
from .diagnostics import SourceFile
from ..errors import CompileError

__all__ = ["TileOptions", "Hole", "Projection", "Branch", "Piece", "parse_template", "TileLowering", "ENCODINGS"]

#: The encodings a tile may declare (the default is text).
ENCODINGS = ("json", "text", "csv")
_TYPE_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_FORMAT_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.<>^-+#_")
_HEADER_PUNCT = "<>=!+-*/%.,()[]&|?:"


@dataclass(frozen=True)
class TileOptions:
    """A tile's delimiters, sigil and flags."""

    open: str = "${"
    close: str = "}"
    sigil: str = "@"
    strict: bool = False
    instring: bool = False


@dataclass
class Hole:
    """``${expr[: type][| format][!]}``."""

    expr: ast.Expr
    type_name: str | None
    fmt: str | None
    raw: bool
    text: str
    span: Span


@dataclass
class Projection:
    """``@for <comprehension> [sep "x"] { body }``."""

    comprehension: Any
    sep: str | None
    body: list[Piece]
    span: Span


@dataclass
class Branch:
    """``@if cond { body } [@else { body }]``."""

    cond: ast.Expr
    then: list[Piece]
    otherwise: list[Piece] | None
    span: Span


Piece = Union[str, Hole, Projection, Branch]


@dataclass
class TileExprParts:
    """What the parser knows of a tile (the value of :class:`ast.TileExpr`)."""

    encoding: str
    options: TileOptions
    pieces: list[Piece]
    reads: tuple[ast.Name, ...] = field(default=())


ExpressionParser = Callable[[list[Any]], tuple[ast.Expr, Any]]
"""Parses a hole's tokens as one expression: the expression and the token
after it (the DSL parser's, handed in by the parser that reads the tile)."""


def parse_template(body: str, offsets: Sequence[int] | None, file: SourceFile, options: TileOptions,
                   at: Span, parse_expression: ExpressionParser) -> list[Piece]:
    """The pieces of a tile body. ``offsets`` maps each character of ``body``
    to its source offset (None: report everything at ``at``);
    ``parse_expression`` reads the expression of a hole or a condition."""
    parser = _TemplateParser(body, offsets, file, options, at, parse_expression)
    pieces = parser.pieces(in_block=False)
    if parser.pos < len(body):
        raise parser.error("unexpected `}` closing a block that was never opened")
    return pieces


def reads_of(pieces: list[Piece], bound: frozenset[str] = frozenset()) -> list[ast.Name]:
    """The names the tile's holes and conditions read, those its projections bind left out."""
    found: list[ast.Name] = []
    for piece in pieces:
        if isinstance(piece, Hole):
            found.extend(n for n in ast.iter_names(piece.expr) if n.name not in bound)
        elif isinstance(piece, Branch):
            found.extend(n for n in ast.iter_names(piece.cond) if n.name not in bound)
            found.extend(reads_of(piece.then, bound))
            if piece.otherwise is not None:
                found.extend(reads_of(piece.otherwise, bound))
        elif isinstance(piece, Projection):
            found.extend(reads_of(piece.body, bound | frozenset(piece.comprehension.names)))
    return found


class _TemplateParser:
    def __init__(self, body: str, offsets: Sequence[int] | None, file: SourceFile, options: TileOptions, at: Span,
                 parse_expression: ExpressionParser):
        self.parse_expression = parse_expression
        self.text = body
        self.offsets = offsets
        self.file = file
        self.options = options
        self.at = at
        self.pos = 0

    def span(self, index: int) -> Span:
        if self.offsets is None or not self.offsets:
            return self.at
        return self.file.locate(self.offsets[min(index, len(self.offsets) - 1)])

    def error(self, message: str, index: int | None = None, hint: str | None = None) -> CompileError:
        return self.file.error(f"in the tile: {message}", self.span(self.pos if index is None else index), hint)

    def starts(self, s: str) -> bool:
        return self.text.startswith(s, self.pos)

    def pieces(self, in_block: bool) -> list[Piece]:
        opts = self.options
        doubled = opts.open + opts.open
        out: list[Piece] = []
        static: list[str] = []
        depth = 0

        def flush() -> None:
            if static:
                out.append("".join(static))
                static.clear()

        while self.pos < len(self.text):
            if self.starts(doubled):
                self.pos += len(doubled)
                static.append(opts.open)
                continue
            if self.starts(opts.open):
                flush()
                out.append(self.hole())
                continue
            if self.starts(opts.sigil):
                after = self.text[self.pos + len(opts.sigil):]
                if after.startswith("for") and after[3:4].isspace():
                    flush()
                    out.append(self.projection())
                    continue
                if after.startswith("if") and after[2:3].isspace():
                    flush()
                    out.append(self.branch())
                    continue
            c = self.text[self.pos]
            if c == "{":
                depth += 1
            elif c == "}":
                if in_block and depth == 0:
                    break
                depth -= 1
            static.append(c)
            self.pos += 1
        flush()
        return out

    def until_close(self, hole_start: int) -> str:
        """The text up to the close delimiter at bracket depth zero, outside quotes."""
        close = self.options.close
        start = self.pos
        depth, quote = 0, None
        while self.pos < len(self.text):
            c = self.text[self.pos]
            if quote is not None:
                self.pos += 1
                if c == "\\":
                    self.pos += 1
                elif c == quote:
                    quote = None
                continue
            if depth == 0 and self.starts(close):
                inner = self.text[start : self.pos]
                self.pos += len(close)
                return inner
            if c in "\"'":
                quote = c
            elif c in "([{":
                depth += 1
            elif c in ")]}":
                depth -= 1
            self.pos += 1
        raise self.error(f"unterminated hole; expected `{close}`", hole_start)

    def hole(self) -> Hole:
        start = self.pos
        self.pos += len(self.options.open)
        inner_start = self.pos
        inner = self.until_close(start)
        text = inner.strip()
        if not text:
            raise self.error("empty hole", start)
        lead = inner_start + (len(inner) - len(inner.lstrip()))
        body, raw = text, False
        if body.endswith("!"):
            body, raw = body[:-1].rstrip(), True
        fmt = None
        bar = _rfind_top(body, "|")
        if bar is not None and not body[:bar].endswith("|"):
            spec = body[bar + 1 :].strip()
            if spec and all(c in _FORMAT_CHARS for c in spec):
                fmt, body = spec, body[:bar].rstrip()
        type_name = None
        colon = _rfind_top(body, ":")
        if colon is not None:
            word = body[colon + 1 :].strip()
            from . import corerules
            from .types import UNSUPPORTED_TYPE_KEYWORDS

            known = corerules.type_keywords()
            if word in known or word in UNSUPPORTED_TYPE_KEYWORDS:
                type_name, body = word, body[:colon].rstrip()
            elif _TYPE_WORD.fullmatch(word) and not body[:colon].rstrip().endswith((",", "(")):
                raise self.error(
                    f"hole `{text}`: unknown type '{word}'", start,
                    f"types are the port-type keywords ({', '.join(sorted(set(known.values())))})",
                )
        if not body:
            raise self.error(f"hole `{text}` has no expression", start)
        expr = self.expression(body, lead, f"hole `{text}`")
        return Hole(expr, type_name, fmt, raw, text, self.span(start))

    def expression(self, body: str, at: int, what: str) -> ast.Expr:
        """``body`` (starting at index ``at`` of the template) as a Polydat expression."""
        from .lexer import Lexer, TokenKind

        offsets = None
        if self.offsets:
            offsets = tuple(self.offsets[min(at + i, len(self.offsets) - 1)] for i in range(len(body)))
        lexer = Lexer(self.file, body, offsets)
        tokens = lexer.tokenize()
        if lexer.diagnostics:
            first = lexer.diagnostics[0]
            raise self.error(f"{what}: {first.message}", at, first.hint)
        try:
            expr, after = self.parse_expression(tokens)
        except CompileError as err:
            raise self.error(f"{what}: {err.message}", at, err.hint) from None
        except Exception:  # noqa: BLE001 - an already reported lexical error
            raise self.error(f"{what} is not an expression", at) from None
        if after.kind is not TokenKind.EOF:
            raise self.error(f"{what}: unexpected '{after.text}'", at)
        return expr

    def header(self, kind: str, directive: int) -> str:
        """A directive header: the text up to its block's `{` (left unconsumed);
        ``directive`` is where the directive starts (for errors)."""
        start = self.pos
        depth, quote = 0, None
        while self.pos < len(self.text):
            c = self.text[self.pos]
            if quote is not None:
                self.pos += 1
                if c == quote:
                    quote = None
                continue
            if depth == 0 and not self.options.open.startswith("{") and self.starts(self.options.open):
                raise self.error("directive has no `{` block; a hole cannot appear in a directive header", directive)
            if depth == 0 and c == "{":
                match = re.match(r"\{[A-Za-z_][A-Za-z0-9_]*\}", self.text[self.pos :])
                header = self.text[start : self.pos]
                if match is None or not self._placeholder(header, match.end(), kind):
                    return header
            if c in "\"'":
                quote = c
            elif c in "([":
                depth += 1
            elif c in ")]":
                depth -= 1
            self.pos += 1
        raise self.error("directive has no `{` block", directive)

    def _placeholder(self, header: str, length: int, kind: str) -> bool:
        """Whether the `{name}` here continues the header (else it is the block)."""
        before = header[-1:]
        after = self.text[self.pos + length : self.pos + length + 1]
        if (before and before in _HEADER_PUNCT) or (after and after in _HEADER_PUNCT):
            return True
        rest = self.text[self.pos + length :].lstrip()
        if not rest or rest.startswith(self.options.sigil) or rest.startswith(self.options.open):
            return False
        if rest[0] in _HEADER_PUNCT and rest[0] not in "()[]":
            return True
        h = header.strip()
        if kind == "if":
            return not h
        dangling = h.endswith(tuple("<>=!+-*/%&|,(")) or h.endswith(("where", "order", "in", "&&", "||"))
        return not h or dangling

    def block(self) -> list[Piece]:
        if not self.starts("{"):
            raise self.error("expected `{`")
        open_at = self.pos
        self.pos += 1
        body = self.pieces(in_block=True)
        if not self.starts("}"):
            raise self.error("unterminated block; expected `}`", open_at)
        self.pos += 1
        if body and isinstance(body[0], str):
            body[0] = body[0].lstrip()
        if body and isinstance(body[-1], str):
            body[-1] = body[-1].rstrip()
        return [p for p in body if not (isinstance(p, str) and not p)]

    def projection(self) -> Projection:
        start = self.pos
        self.pos += len(self.options.sigil) + 3
        header = self.header("for", start)
        source, sep = _split_sep(header)
        from .comprehension import parse_text

        try:
            comprehension = parse_text(source.strip())
        except CompileError as err:
            raise self.error(f"projection `{source.strip()}`: {err.message}", start, err.hint) from None
        if comprehension.base is not None:
            raise self.error("a projection over a producer is not supported; write its comprehension", start)
        body = self.block()
        return Projection(comprehension, sep, body, self.span(start))

    def branch(self) -> Branch:
        start = self.pos
        self.pos += len(self.options.sigil) + 2
        header_at = self.pos
        header = self.header("if", start)
        cond = self.expression(header.strip(), header_at + (len(header) - len(header.lstrip())),
                               f"branch condition `{header.strip()}`")
        then = self.block()
        save = self.pos
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1
        otherwise = None
        if self.starts(self.options.sigil + "else"):
            self.pos += len(self.options.sigil) + 4
            while self.pos < len(self.text) and self.text[self.pos].isspace():
                self.pos += 1
            otherwise = self.block()
        else:
            self.pos = save
        return Branch(cond, then, otherwise, self.span(start))


def _rfind_top(s: str, needle: str) -> int | None:
    """The index of the last ``needle`` at bracket depth zero, outside quotes."""
    depth, quote, found = 0, None, None
    for i, c in enumerate(s):
        if quote is not None:
            if c == quote:
                quote = None
            continue
        if c in "\"'":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == needle and depth == 0:
            found = i
    return found


def _split_sep(header: str) -> tuple[str, str | None]:
    """A trailing ``sep "text"`` split off a projection header."""
    t = header.replace('\\"', '"').rstrip()
    if t.endswith('"'):
        q = t[:-1]
        open_quote = q.rfind('"')
        if open_quote >= 0 and q[:open_quote].rstrip().endswith(" sep"):
            head = q[:open_quote].rstrip()[:-3].rstrip()
            return head, q[open_quote + 1 :]
    return t, None


# ----------------------------------------------------------------------------
# Lowering


class _Render:
    """The printf format, hole codes and ports of one rendered skeleton."""

    def __init__(self) -> None:
        self.format: list[str] = []
        self.codes: list[str] = []
        self.ports: list[Any] = []
        self.check: list[str] = []
        """The text with a placeholder per hole (the JSON check)."""


class TileLowering:
    """Lowers ``tile`` bindings (mixed into the binder)."""

    tiles: dict[str, Any]

    def _bind_tile(self, binding: ast.Binding, scope: Any, owner: dict[str, int], index: int) -> list[Any]:
        """``tile name := body``: one ``__tile`` node; its port is the tile's ``str`` wire."""
        expr = binding.value
        assert isinstance(expr, ast.TileExpr)
        file = scope.file
        target = binding.targets[0]
        if binding.tuple_form or binding.modifiers or binding.type_name is not None:
            raise file.error("a tile binds one name, with no modifier", binding.span)
        saved = self.strict_types  # type: ignore[has-type]
        if expr.parts.options.strict:
            self.strict_types = True
        try:
            port = self._tile_port(expr, scope, (target.name,))
        finally:
            self.strict_types = saved
        if owner.get(target.name) == index:
            self.tiles[scope.prefix + target.name] = expr
        return self._publish(binding, target, port, scope, owner, index, ())  # type: ignore[attr-defined, no-any-return]

    def _tile_port(self, expr: Any, scope: Any, splicing: tuple[str, ...], pieces: list[Piece] | None = None,
                   instring: bool | None = None) -> Any:
        parts = expr.parts
        render = _Render()
        state = _JsonState(parts.options.instring if instring is None else instring)
        self._render(expr, parts.pieces if pieces is None else pieces, scope, render, state, splicing)
        if parts.encoding == "json" and pieces is None:
            check = "".join(render.check)
            self._check_json(expr, f'"{check}"' if parts.options.instring else check, scope)
        from .irbuild import const_arg

        args = [const_arg({"str": "".join(render.format)}), const_arg({"str": "".join(render.codes)})]
        args += [p.arg() for p in render.ports]
        return self._emit("__tile", args, ["str"], expr.span, scope, render.ports, "a tile").ports[0]  # type: ignore[attr-defined]

    def _render(self, expr: Any, pieces: list[Piece], scope: Any, out: _Render, state: _JsonState,
                splicing: tuple[str, ...]) -> None:
        encoding = expr.parts.encoding
        for k, piece in enumerate(pieces):
            if isinstance(piece, str):
                out.format.append(piece.replace("{", "{{").replace("}", "}}"))
                out.check.append(piece)
                state.feed(piece)
                continue
            if isinstance(piece, Hole):
                # A tile of this encoding at a value position is spliced in;
                # inside a string literal it is text, escaped like any other.
                spliced = None if state.in_string else self._splice(expr, piece, scope, splicing)
                if spliced is not None:
                    self._render(spliced, spliced.parts.pieces, scope, out, state, splicing + (piece.expr.name,))  # type: ignore[union-attr]
                    continue
                port = self._hole_port(piece, scope)
                following = next((p for p in pieces[k + 1 :] if not (isinstance(p, str) and not p.strip())), "")
                code = self._code(encoding, piece.raw, state, following)
                out.format.append("{" + (":" + piece.fmt if piece.fmt else "") + "}")
                out.codes.append(code)
                out.ports.append(port)
                out.check.append({"v": "0", "q": '"k"', "s": "", "p": "0", "c": "x"}[code])
                continue
            if isinstance(piece, Projection):
                self._project(expr, piece, scope, out, state, splicing)
                continue
            # A branch: its bodies rendered as tiles of their own, one picked.
            before = state.in_string
            then = self._tile_port(expr, scope, splicing, piece.then, before)
            other = self._tile_port(expr, scope, splicing, piece.otherwise or [], before)
            cond = self._lower(piece.cond, scope)  # type: ignore[attr-defined]
            from .lowering import Value

            chosen = self._select(  # type: ignore[attr-defined]
                ast.IfExpr(piece.cond, piece.cond, piece.cond, piece.span),
                [cond, Value((then,), piece.span, "a tile branch"), Value((other,), piece.span, "a tile branch")],
                scope,
            ).ports[0]
            out.format.append("{}")
            out.codes.append("p")
            out.ports.append(chosen)
            out.check.append("" if before else "0")

    def _splice(self, expr: Any, hole: Hole, scope: Any, splicing: tuple[str, ...]) -> Any:
        """The tile a bare-name hole names, when it has this tile's encoding (spliced at compile time)."""
        if not isinstance(hole.expr, ast.Name) or hole.raw or hole.fmt or hole.type_name:
            return None
        other = self.tiles.get(scope.prefix + hole.expr.name)
        if other is None or other.parts.encoding != expr.parts.encoding:
            return None
        if hole.expr.name in splicing:
            raise scope.file.error(f"tile '{hole.expr.name}' splices itself", hole.span, "splicing must be acyclic")
        return other

    def _hole_port(self, hole: Hole, scope: Any) -> Any:
        value_expr: ast.Expr = hole.expr
        if hole.type_name is not None:
            value_expr = ast.Cast(hole.expr, hole.type_name, hole.span, hole.span)
        value = self._lower(value_expr, scope)  # type: ignore[attr-defined]
        return value.single(scope, f"used in the tile hole `{hole.text}`")

    @staticmethod
    def _code(encoding: str, raw: bool, state: _JsonState, following: Any) -> str:
        if raw or encoding == "text":
            return "p"
        if encoding == "csv":
            return "c"
        if state.in_string:
            return "s"
        if isinstance(following, str) and following.lstrip().startswith(":"):
            return "q"
        return "v"

    def _project(self, expr: Any, piece: Projection, scope: Any, out: _Render, state: _JsonState,
                 splicing: tuple[str, ...]) -> None:
        """A projection unrolled: its body once per tuple, elements bound as literals."""
        from .lowering import LiteralEntry
        from .predicate import Predicate
        from .types import LiteralValue

        comprehension = piece.comprehension

        def no_scope(name: str) -> Any:
            raise scope.file.error(
                f"a tile projection reads '{name}', which is not known at compile time", piece.span,
                "a projection's comprehension must be fixed when the tile compiles (literal lists, ranges, generators)",
            )

        def keep(where: Any, types: dict[str, str]) -> Any:
            predicate = Predicate(where.text)
            names = list(types)

            def element(values: tuple[Any, ...], name: str) -> Any:
                if name in names:
                    return values[names.index(name)]
                return no_scope(name)

            def expression(i: int, values: tuple[Any, ...]) -> Any:
                raise scope.file.error(
                    "a tile projection's where predicate may only compare elements and literals", piece.span
                )

            return predicate.tester(element, expression)

        types, tuples = comprehension.open(no_scope, keep, lambda c: no_scope(c.text))
        names = list(types)
        sep = piece.sep if piece.sep is not None else ("," if expr.parts.encoding in ("json", "csv") else "")
        saved = {name: (scope.env.get(name), scope.literal_ports.pop(name, None)) for name in names}
        try:
            for i, values in enumerate(tuples):
                if i and sep:
                    out.format.append(sep.replace("{", "{{").replace("}", "}}"))
                    out.check.append(sep)
                    state.feed(sep)
                for name, value in zip(names, values):
                    kind = "bool" if isinstance(value, bool) else "int" if isinstance(value, int) else (
                        "float" if isinstance(value, float) else "str")
                    scope.env[name] = LiteralEntry(LiteralValue(kind, value), piece.span)  # type: ignore[arg-type]
                    scope.literal_ports.pop(name, None)
                self._render(expr, piece.body, scope, out, state, splicing)
        finally:
            for name, (entry, port) in saved.items():
                if entry is None:
                    scope.env.pop(name, None)
                else:
                    scope.env[name] = entry
                scope.literal_ports.pop(name, None)
                if port is not None:
                    scope.literal_ports[name] = port

    @staticmethod
    def _check_json(expr: Any, text: str, scope: Any) -> None:
        """A json tile with a placeholder in every hole must parse as JSON."""
        try:
            json.loads(text)
        except ValueError as err:
            raise scope.file.error(
                f"tile is not valid JSON with 0 in every hole: {err}", expr.span,
                "holes sit at value positions, inside string literals, or at keys",
            ) from None


class _JsonState:
    """Whether a JSON skeleton's text so far ends inside a string literal."""

    def __init__(self, in_string: bool):
        self.in_string = in_string
        self.escape = False

    def feed(self, text: str) -> None:
        for c in text:
            if self.in_string:
                if self.escape:
                    self.escape = False
                elif c == "\\":
                    self.escape = True
                elif c == '"':
                    self.in_string = False
            elif c == '"':
                self.in_string = True
