"""Parser: tokens to :mod:`polydat.dsl.ast`.

Statements are parsed by recursive descent in a loop (no recursion per
statement). Expressions use operator-precedence parsing driven by an explicit
stack of frames: each open ``(``, call, array, or ``if`` block pushes a frame
holding its own operand and operator stacks. Nothing recurses on the Python
stack per nesting level or per operator, so arbitrarily long chains and deep
nesting parse without ``RecursionError``.

Precedence, loosest to tightest (all left-associative except ``**``)::

    ||  &&  == !=  < > <= >=  |  ^  &  << >>  + -  * / %  **  unary - !  postfix as T

A call's ``(`` must follow its name on the same line, unless the parenthesised
text that follows cannot be a destructuring target list (``(a, b) :=``): that
is how ``x := y`` followed by ``(a, b) := f(x)`` on the next line stays two
statements in a newline-insensitive language.

A statement that does not parse is reported and skipped (see
:mod:`polydat.dsl.recovery`); the names it would have bound are kept
(``Program.unparsed_names``) so their readers are not reported again. The
commonest expressions and statements take the fast paths of
:mod:`polydat.dsl.fastpaths`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from . import ast, corerules
from .ast import Span
from .diagnostics import SourceFile
from ..errors import CompileError, Diagnostic
from .fastpaths import continues, line_binding, simple_expression
from .grammar import (
    BINARY_PRECEDENCE,
    MAX_INTERPOLATION_DEPTH,
    MODIFIERS,
    NON_NAME_KEYWORDS,
    NOT_SUPPORTED,
    RIGHT_ASSOCIATIVE,
    SOFT_KEYWORDS,
    UNARY_PRECEDENCE,
)
from .interpolation import Placeholder, scan_segments, unclosed_placeholder
from .lexer import BOOL_WORDS, HARD_KEYWORDS, Comment, Lexer, Token, TokenKind, describe_token, expand_line
from .recovery import Recovery

__all__ = ["Layout", "Parser", "parse_file", "parse_layout", "parse_recovering", "BINARY_PRECEDENCE"]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
"""A name, as a placeholder body's part before a ``:`` format spec."""


@dataclass(slots=True)
class _Pending:
    """An operator waiting on the operator stack."""

    op: str
    precedence: int
    span: Span
    unary: bool


class _Frame:
    """One open construct of an expression being parsed."""

    __slots__ = ("kind", "open_token", "operands", "operators", "name", "name_span", "items", "arg_name",
                 "arg_name_span", "branches", "cond", "if_span")

    def __init__(self, kind: str, open_token: Token | None = None, name: str = "", name_span: Span | None = None,
                 cond: ast.Expr | None = None, if_span: Span | None = None):
        self.kind = kind  # top | paren | call | array | if_cond | if_then | if_else
        self.open_token = open_token
        self.operands: list[ast.Expr] = []
        self.operators: list[_Pending] = []
        # call / array state
        self.name = name
        self.name_span = name_span
        self.items: list[ast.Arg] = []
        self.arg_name: str | None = None
        self.arg_name_span: Span | None = None
        # if-block state: the `if` span, (cond, then) pairs of the else-if chain
        self.branches: list[tuple[ast.Expr, ast.Expr, Span]] = []
        self.cond = cond
        self.if_span = if_span

    def push_operator(self, pending: _Pending) -> None:
        """Reduce what binds at least as tightly, then push ``pending``."""
        operators = self.operators
        if not pending.unary:
            right = pending.op in RIGHT_ASSOCIATIVE
            while operators:
                top = operators[-1]
                if top.precedence > pending.precedence or (top.precedence == pending.precedence and not right):
                    self._apply(operators.pop())
                else:
                    break
        operators.append(pending)

    def finish(self) -> ast.Expr:
        """Reduce every pending operator; the single remaining operand."""
        while self.operators:
            self._apply(self.operators.pop())
        result = self.operands.pop()
        assert not self.operands
        return result

    def _apply(self, pending: _Pending) -> None:
        if pending.unary:
            operand = self.operands.pop()
            self.operands.append(ast.UnaryOp(pending.op, operand, pending.span))
        else:
            right = self.operands.pop()
            left = self.operands.pop()
            self.operands.append(ast.BinOp(pending.op, left, right, pending.span))


class _AlreadyReported(Exception):
    """A statement failed at an ``ERROR`` token, whose lexical error is already reported."""


class Parser(Recovery):
    """Parses one source file (or an interpolated fragment of one)."""

    #: Parse one-operand expressions and calls of one-token operands without the
    #: frame machinery (the same trees, faster; off only to compare the two).
    fast_paths = True

    def __init__(self, file: SourceFile, tokens: list[Token], interpolation_depth: int = 0):
        self.file = file
        # Padded with EOF copies so that peek(1) and peek(2) never index past the end.
        self.tokens = tokens + [tokens[-1]] * _PADDING
        self.pos = 0
        self.depth = interpolation_depth
        self.diagnostics: list[Diagnostic] = []
        self.unparsed_names: set[str] = set()
        self.unparsed_modules: set[str] = set()
        self.warnings: list[Diagnostic] = []
        #: When a dict (:func:`parse_layout`), the source extent of every
        #: statement parsed, by ``id``: (offset of its first character, offset
        #: after its last).
        self.extents: dict[int, tuple[int, int]] | None = None
        #: With :attr:`extents`, the extent of the source statement each
        #: statement came from: statements one source statement yields
        #: (``input (a, b)``, an ``init { ... }`` block, a ``cursor``) share it.
        self.sources: dict[int, tuple[int, int]] = {}

    # -- token access --------------------------------------------------------

    def peek(self, ahead: int = 0) -> Token:
        """The token ``ahead`` (at most 2) positions from the current one (EOF past the end)."""
        return self.tokens[self.pos + ahead]

    def advance(self) -> Token:
        """Consume and return the current token (EOF is never passed)."""
        token = self.tokens[self.pos]
        if token.kind is not _EOF:
            self.pos += 1
        return token

    def error(self, message: str, span: Span, hint: str | None = None) -> Exception:
        """A CompileError at ``span`` in this file."""
        return self.file.error(message, span, hint)

    def expected(self, what: str, token: Token | None = None, hint: str | None = None) -> Exception:
        """``expected WHAT but found TOKEN`` at the token (nothing new at an ``ERROR`` token)."""
        token = token or self.peek()
        if token.kind is TokenKind.ERROR:
            return _AlreadyReported()
        return self.error(f"expected {what} but found {describe_token(token)}", token.span, hint)

    def expect_op(self, op: str, hint: str | None = None) -> Token:
        """Consume the punctuation ``op`` or fail."""
        token = self.peek()
        if not token.is_op(op):
            raise self.expected(f"'{op}'", token, hint)
        return self.advance()

    def expect_name(self, what: str, soft_ok: bool = True) -> Token:
        """Consume an identifier usable as a name (not a hard keyword)."""
        token = self.peek()
        if token.kind is not TokenKind.IDENT or (
            token.text in HARD_KEYWORDS and not (soft_ok and token.text in ("input", "cursor", "over"))
        ):
            raise self.expected(what, token)
        return self.advance()

    # -- program -------------------------------------------------------------

    def parse_program(self) -> list[ast.Statement]:
        """Every statement up to end of input; failures go to :attr:`diagnostics`."""
        statements: list[ast.Statement] = []
        tokens = self.tokens
        extents = self.extents
        while True:
            token = tokens[self.pos]
            if token.kind is _LINE and not continues(tokens[self.pos + 1]):  # the common case, inline
                self.pos += 1
                binding = line_binding(token)
                statements.append(binding)
                if extents is not None:
                    extents[id(binding)] = self.sources[id(binding)] = (token.offset, token.offset + len(token.text))
                continue
            if token.kind is _EOF:
                break
            start = self.pos
            try:
                statements.extend(self.statement(in_module=None))
            except (CompileError, _AlreadyReported) as failure:
                if isinstance(failure, CompileError):
                    self.diagnostics.extend(failure.diagnostics)
                self._note_unparsed(start)
                self.pos = self._resume_point(start)
        return statements

    def statement(self, in_module: str | None) -> list[ast.Statement]:
        """One statement (an ``input (a, b)`` tuple yields several declarations),
        its extent recorded when :attr:`extents` is a dict."""
        extents = self.extents
        if extents is None:
            return self._statement(in_module)
        first = self.tokens[self.pos].offset
        found = self._statement(in_module)
        last = self.tokens[self.pos - 1]
        extent = (first, last.offset + len(last.text))
        sources = self.sources
        for statement in found:
            extents.setdefault(id(statement), extent)  # an init block's bindings keep their own
            sources[id(statement)] = extent
        return found

    def _statement(self, in_module: str | None) -> list[ast.Statement]:
        token = self.tokens[self.pos]
        if token.kind is _LINE:
            if not continues(self.tokens[self.pos + 1]):
                self.pos += 1
                return [line_binding(token)]
            self.tokens[self.pos:self.pos + 1] = expand_line(token)  # the next line continues it
            token = self.tokens[self.pos]
        if token.kind is TokenKind.IDENT:
            word = token.text
            nxt = self.tokens[self.pos + 1]
            if nxt.kind is _OP and nxt.text == ":=" and (word not in HARD_KEYWORDS or word in SOFT_KEYWORDS):
                return [self._simple_binding(token)]
            if word == "input" and not nxt.is_op(":="):
                self._not_in_module(in_module, token, "an input declaration")
                return list(self._input_decl())
            if word == "extern":
                self._not_in_module(in_module, token, "an extern declaration")
                return [self._extern_decl()]
            if word in MODIFIERS:
                return [self._binding_with_modifiers()]
            if word == "pragma" and not nxt.is_op(":="):
                return [self._pragma()]
            if word == "init" and (
                nxt.is_op("{") or (nxt.kind is TokenKind.IDENT and self.tokens[self.pos + 2].is_op("=", ":="))
            ):
                return self._init()
            if word == "for" and not nxt.is_op(":="):
                if in_module is not None:
                    raise self.error(
                        "a `for` traversal statement does not compile inside a module body",
                        token.span,
                        "a module is inlined at each call; traverse in the program (or bind a producer here)",
                    )
                return [self._for_statement()]
            if word == "tile":
                return [self._tile()]
            if word == "cursor" and not nxt.is_op(":="):
                if in_module is not None:
                    raise self.error(f"a cursor is not allowed inside module '{in_module}'", token.span)
                return self._cursor()
            if word in HARD_KEYWORDS and word not in ("input", "cursor", "over"):
                raise self.expected("a statement", token)
            if nxt.is_op(":="):
                return [self._binding(token, (), None)]
            if nxt.is_op(":"):
                return [self._annotated_without_shared(token)]
            if nxt.is_op("(") and self._is_module_def():
                if in_module is not None:
                    raise self.error(
                        f"module definitions cannot be nested (inside module '{in_module}')",
                        token.span,
                        "define the module at the top level of the file",
                    )
                return [self._module_def()]
            if nxt.is_op("="):
                raise self.expected("':='", nxt, "bindings use ':=' (only extern defaults use '=')")
            return [self._bare_expression()]
        if token.is_op("(") and self._anonymous_module_at(self.pos):
            if in_module is not None:
                raise self.error(f"module definitions cannot be nested (inside module '{in_module}')", token.span)
            return [self._module_def(anonymous=True)]
        if token.is_op("(") and (
            self._looks_like_targets(self.pos)
            or (self.peek(1).kind is TokenKind.IDENT and self.peek(2).is_op(","))
        ):
            return [self._tuple_binding((), token)]
        if token.kind in (TokenKind.INT, TokenKind.FLOAT, TokenKind.DECIMAL, TokenKind.STRING) or token.is_op(
            "(", "-", "!", "["
        ):
            return [self._bare_expression()]
        if in_module is not None:
            raise self.expected(f"a statement or '}}' closing module '{in_module}'", token)
        raise self.expected("a statement", token)

    def _pragma(self) -> ast.Pragma:
        self.advance()  # pragma
        name = self.peek()
        if name.kind is not TokenKind.IDENT or name.line != self.tokens[self.pos - 1].line:
            raise self.expected("a pragma name", name, "write e.g. `pragma strict`")
        self.advance()
        value = self.peek()
        if value.kind is TokenKind.STRING and value.line == name.line:
            self.advance()
            return ast.Pragma(name.text, name.span, str(value.value))
        return ast.Pragma(name.text, name.span)

    def _for_statement(self) -> ast.ForStmt:
        """``for <comprehension> { body }``: the header's tokens up to the
        ``{`` that opens the body (on the same line; a ``{name}`` reference
        is part of the header), then the body's statements up to its ``}``."""
        from .comprehension import parse as parse_comprehension

        keyword = self.advance()
        start = self.pos
        depth = 0
        i = start
        while True:
            token = self.tokens[i]
            if token.kind is TokenKind.EOF or token.line != keyword.line:
                last = self.tokens[i - 1]
                raise self.error(
                    "expected '{' opening the body of the for statement",
                    Span(last.line, last.col + len(last.text)),
                    "the body's '{' goes on the line of the `for`: `for k in 1..4 {`",
                )
            if token.is_op("(", "["):
                depth += 1
            elif token.is_op(")", "]"):
                depth -= 1
            elif token.is_op("{") and depth <= 0:
                is_reference = self.tokens[i + 1].kind is TokenKind.IDENT and self.tokens[i + 2].is_op("}")
                if not is_reference:
                    break
                i += 2
            i += 1
        header = self.tokens[start:i]
        if not header:
            raise self.error("a for statement needs a comprehension", keyword.span, "write e.g. `for k in 1..4 { ... }`")
        text = self.file.text[header[0].offset : header[-1].offset + len(header[-1].text)]
        comprehension = parse_comprehension(header, self.file, text, allow_base=True)
        open_brace = self.tokens[i]
        self.pos = i + 1
        body: list[ast.Statement] = []
        while not self.peek().is_op("}"):
            if self.peek().kind is TokenKind.EOF:
                raise self.error(
                    "expected '}' closing the body of the for statement",
                    open_brace.span,
                    "the body opened here is not closed",
                )
            nested = self.peek()
            if nested.kind is TokenKind.IDENT and self.peek(1).is_op("(") and self._is_module_def():
                raise self.error(
                    "modules cannot be defined inside a for body", nested.span, "define the module at the top level"
                )
            for statement in self.statement(in_module=None):
                if isinstance(statement, ast.InputDecl) and statement.name != "cycle":
                    raise self.error(
                        f"a for body may declare no input but `cycle` (it declares '{statement.name}')",
                        statement.span,
                        "the body's values come from its tuple and the scopes around it; "
                        "bind the value, or declare the input outside the for",
                    )
                body.append(statement)
        self.advance()
        return ast.ForStmt(comprehension, text, tuple(body), keyword.span, header[0].span)

    def _producer(self) -> ast.ForExpr:
        """``for <comprehension>`` as a binding's value: the comprehension
        text runs to the end of the line (a producer, or a derivation
        ``for base where ... order ...``)."""
        from .comprehension import parse as parse_comprehension

        keyword = self.advance()
        start = i = self.pos
        while self.tokens[i].kind is not TokenKind.EOF and self.tokens[i].line == keyword.line:
            i += 1
        header = self.tokens[start:i]
        if not header:
            raise self.error("a for producer needs a comprehension", keyword.span, "write e.g. `sweep := for k in 1..4`")
        text = self.file.text[header[0].offset : header[-1].offset + len(header[-1].text)]
        comprehension = parse_comprehension(header, self.file, text, allow_base=True)
        if comprehension.base is not None and not comprehension.stages:
            raise self.error(
                f"`for {comprehension.base}` alone names a producer without deriving from it",
                header[0].span,
                f"a derivation adds a `where` or an `order` (`for {comprehension.base} order lex`); "
                f"traverse it with `for {comprehension.base} {{ ... }}`",
            )
        self.pos = i
        return ast.ForExpr(comprehension, text, keyword.span, header[0].span)

    def _value(self) -> ast.Expr:
        """A binding's value: an expression, a ``for`` producer, or a
        ``polytile(...)`` / ``polytile_json(...)`` tile."""
        token = self.peek()
        if token.is_word("for"):
            return self._producer()
        if token.is_word("polytile", "polytile_json") and self.peek(1).is_op("("):
            return self._polytile()
        return self.expression()

    def _tile(self) -> ast.Binding:
        """``tile name [: json|text|csv] [(options)] := body``."""
        from .tile import ENCODINGS, TileOptions

        keyword = self.advance()
        name = self.expect_name("a tile name")
        encoding = "text"
        if self.peek().is_op(":"):
            self.advance()
            word = self.peek()
            if word.kind is not TokenKind.IDENT or word.text not in ENCODINGS:
                raise self.error(
                    f"unknown tile encoding {describe_token(word)}", word.span, "a tile is json, text or csv"
                )
            encoding = self.advance().text
        options = TileOptions()
        if self.peek().is_op("("):
            options = self._tile_options()
        if not self.peek().is_op(":="):
            raise self.expected(
                f"':=' before the body of tile '{name.text}'", hint=f"a tile binds a wire: `tile {name.text} := ...`"
            )
        self.advance()
        body = self.peek()
        if body.kind is TokenKind.TILE:
            self.advance()
            offsets = body.char_offsets
        elif body.kind is TokenKind.STRING:
            self.advance()
            offsets = body.string_offsets()
        else:
            raise self.expected(
                f"the body of tile '{name.text}'", body,
                "a tile body is a { } or [ ] block, a <<< ... >>> heredoc, or a string",
            )
        return self._tile_binding(name, keyword, encoding, options, str(body.value), offsets)

    def _hole_expression(self, tokens: list[Token]) -> tuple[ast.Expr, Token]:
        """A tile hole's tokens as one expression, and the token after it."""
        parser = Parser(self.file, tokens, 1)
        return parser.expression(), parser.peek()

    def _tile_binding(self, name: Token, first: Token, encoding: str, options: Any, text: str,
                      offsets: Sequence[int] | None) -> ast.Binding:
        from .tile import TileExprParts, parse_template, reads_of

        pieces = parse_template(text, offsets, self.file, options, name.span, self._hole_expression)
        parts = TileExprParts(encoding, options, pieces, tuple(reads_of(pieces)))
        value = ast.TileExpr(parts, name.span)
        return ast.Binding((ast.Target(name.text, name.span),), value, name.span, (), None, None, False, first.doc)

    def _tile_options(self) -> Any:
        """``(delims "<%" "%>", sigil "#", strict, instring)``."""
        from .tile import TileOptions

        self.advance()
        found: dict[str, Any] = {}
        while True:
            word = self.peek()
            if word.is_word("delims"):
                self.advance()
                found["open"], found["close"] = self._option_string("delims"), self._option_string("delims")
            elif word.is_word("sigil"):
                self.advance()
                found["sigil"] = self._option_string("sigil")
            elif word.is_word("strict", "instring"):
                self.advance()
                found[word.text] = True
            else:
                raise self.expected(
                    "a tile option", word, 'options are delims "open" "close", sigil "@", strict, instring'
                )
            if self.peek().is_op(","):
                self.advance()
                continue
            self.expect_op(")")
            return TileOptions(**found)

    def _option_string(self, option: str) -> str:
        token = self.peek()
        if token.kind is not TokenKind.STRING or not token.value:
            raise self.expected(f"a non-empty string after '{option}'", token)
        self.advance()
        return str(token.value)

    def _polytile(self) -> ast.Expr:
        """``polytile(encoding, body, options...)`` / ``polytile_json(body, options...)``
        in a binding's value: rewritten into a tile (its body taken raw)."""
        from .tile import ENCODINGS, TileExprParts, TileOptions, parse_template, reads_of

        call = self.advance()
        self.advance()  # (
        positional: list[Token] = []
        named: dict[str, Any] = {}
        while not self.peek().is_op(")"):
            token = self.peek()
            if token.kind is TokenKind.IDENT and self.peek(1).is_op(":"):
                self.advance()
                self.advance()
                value = self.advance()
                if token.text not in ("open", "close", "sigil", "strict", "instring"):
                    raise self.error(
                        f"{call.text} has no option '{token.text}'", token.span,
                        "options are open, close, sigil, strict and instring",
                    )
                if token.text in ("strict", "instring"):
                    if not value.is_word("true", "false"):
                        raise self.expected("true or false", value)
                    named[token.text] = value.text == "true"
                else:
                    if value.kind is not TokenKind.STRING or not value.value:
                        raise self.expected(f"a non-empty string for '{token.text}'", value)
                    named[token.text] = str(value.value)
            else:
                if token.kind is not TokenKind.STRING:
                    raise self.expected(
                        f"a string argument of {call.text}", token, "the body is taken raw: a string or a heredoc"
                    )
                positional.append(self.advance())
            if self.peek().is_op(","):
                self.advance()
            elif not self.peek().is_op(")"):
                raise self.expected("',' or ')'", self.peek())
        self.advance()
        wanted = 2 if call.text == "polytile" else 1
        if len(positional) != wanted:
            shape = "(encoding, body, ...)" if wanted == 2 else "(body, ...)"
            raise self.error(f"{call.text} takes {shape}, got {len(positional)} positional argument(s)", call.span)
        encoding = str(positional[0].value) if wanted == 2 else "json"
        if encoding not in ENCODINGS:
            raise self.error(f"unknown tile encoding '{encoding}'", positional[0].span, "a tile is json, text or csv")
        body = positional[-1]
        options = TileOptions(**named)
        pieces = parse_template(
            str(body.value), body.string_offsets(), self.file, options, call.span, self._hole_expression
        )
        return ast.TileExpr(TileExprParts(encoding, options, pieces, tuple(reads_of(pieces))), call.span)

    def _init(self) -> list[ast.Statement]:
        """``init name = expr`` (or ``:=``), or an ``init { ... }`` block of
        bindings: const bindings, evaluated once when the scope starts (the
        predecessor language's spelling of ``const``)."""
        keyword = self.advance()
        if not self.peek().is_op("{"):
            name = self.advance()
            if self.peek().is_op("="):
                self.advance()
                value = self._value()
                return [ast.Binding((ast.Target(name.text, name.span),), value, name.span, ("const",), None, None,
                                    False, keyword.doc)]
            return [self._binding(name, ("const",), keyword)]
        open_brace = self.advance()
        found: list[ast.Statement] = []
        while not self.peek().is_op("}"):
            if self.peek().kind is TokenKind.EOF:
                raise self.error("expected '}' closing the init block", open_brace.span, "the block opened here is not closed")
            token = self.peek()
            if token.is_word(*MODIFIERS):
                raise self.error(
                    f"'{token.text}' inside an init block", token.span, "every binding of an init block is const"
                )
            for statement in self.statement(in_module=None):
                if not isinstance(statement, ast.Binding):
                    raise self.error("an init block holds bindings only", statement.span)
                statement.modifiers = ("const",)
                found.append(statement)
        self.advance()
        return found

    def _cursor(self) -> list[ast.Statement]:
        """``cursor name = range(start, end) [over spec]``: a named u64
        ordinal over ``[start, end)``, narrowed by ``over`` to the slice a
        one-range spec (a str) names, or to a partition (a json value from
        ``partitions(...)``). It lowers to bindings: ``name`` (and
        ``name__ordinal``) is the slice's start plus ``cycle``; the
        ``name__cursor__*`` wires (read as ``name.cursor.idx`` ...) hold the
        slice's fields; ``name__cursor`` the slice as a partition (json)."""
        keyword = self.advance()
        name = self.expect_name("a cursor name")
        if not self.peek().is_op("="):
            raise self.expected("'='", hint=f"a cursor is declared `cursor {name.text} = range(0, 1000)`")
        self.advance()
        ctor = self.expression()
        if not (isinstance(ctor, ast.Call) and ctor.func == "range" and len(ctor.args) == 2
                and all(a.name is None for a in ctor.args)):
            raise self.error(
                "a cursor's constructor is range(start, end)",
                ast.expr_span(ctor),
                "dataset cursors (vectordata_base, ...) are not supported in this release",
            )
        over: ast.Expr = ast.StrLit("0..100%", name.span)
        if self.peek().is_word("over"):
            self.advance()
            over = self.expression()
        span, base = name.span, name.text
        fields = ("start_ordinal", "end_ordinal", "start_pct", "end_pct", "idx", "partition_count")
        # An `over` that may make several partitions (a list or recipe spec,
        # a partition list, or a wire that may hold either) leaves the choice
        # to the host: the extern `name__partition` (no default) picks one. A
        # one-range spec and a call other than partitions(...) (partition_at,
        # subdivide_at, ...: one partition) have no choice to make, so a
        # constant one still fails at compile time.
        if isinstance(over, ast.StrLit):
            chooses = not corerules.cursor_spec_is_one_range(over.value)
        else:
            chooses = not isinstance(over, ast.Call) or over.func == "partitions"
        pick: ast.Expr = ast.Name(f"{base}__partition", span) if chooses else ast.IntLit(0, "0", span)
        slice_call = ast.Call(
            "__cursor_slice",
            (ast.Arg(ast.StrLit(base, span)), ast.Arg(over), ctor.args[0], ctor.args[1], ast.Arg(pick)),
            span,
        )

        def bind(target: str, value: ast.Expr) -> ast.Binding:
            return ast.Binding((ast.Target(target, span),), value, span, (), None, None, False, None)

        start = ast.Name(f"{base}__cursor__start_ordinal", span)
        ordinal = ast.Call("u64_add", (ast.Arg(start), ast.Arg(ast.Name("cycle", span))), span)
        targets = (*(f"{base}__cursor__{f}" for f in fields), f"{base}__cursor")
        lowered: list[ast.Statement] = [
            ast.Binding(tuple(ast.Target(t, span) for t in targets), slice_call, span, (), None,
                        None, True, keyword.doc),
            bind(f"{base}__ordinal", ordinal),
            bind(base, ast.Name(f"{base}__ordinal", span)),
        ]
        if chooses:
            lowered.append(ast.ExternDecl(f"{base}__partition", "u64", span, None, span))
        return lowered

    def _not_in_module(self, in_module: str | None, token: Token, what: str) -> None:
        if in_module is not None:
            raise self.error(
                f"{what} is not allowed inside module '{in_module}'",
                token.span,
                "a module's inputs are its parameters",
            )

    def _bare_expression(self) -> ast.Statement:
        start = self.peek()
        expr = self.expression()
        if isinstance(expr, ast.Name):
            raise self.expected(f"':=' after '{expr.name}'", hint="a binding is written `name := expression`")
        raise self.error(
            "a bare expression is not a statement", start.span, "bind it to a name: `name := ...`"
        )

    # -- declarations --------------------------------------------------------

    def _type_name(self, what: str) -> Token:
        """A type: one word, or ``decimal(p, s)``, returned as one token whose
        text is the whole type (``decimal(15,2)``) at the word's position."""
        token = self.peek()
        if token.kind is not TokenKind.IDENT:
            raise self.expected(what, token)
        self.advance()
        if token.text != "decimal" or not self.peek().is_op("("):
            return token
        self.advance()
        numbers = []
        for closing in (",", ")"):
            number = self.peek()
            if number.kind is not TokenKind.INT:
                raise self.expected("a number in decimal(precision, scale)", number,
                                    hint="a decimal type is written decimal(15, 2)")
            self.advance()
            numbers.append(number.text)
            self.expect_op(closing)
        return token._replace(text=f"decimal({numbers[0]},{numbers[1]})")

    def _input_decl(self) -> list[ast.InputDecl]:
        self.advance()  # input
        if self.peek().is_op("("):
            open_token = self.advance()
            if self.peek().is_op(")"):
                raise self.error("'input ()' declares no inputs", open_token.span, "write `input (a: u64, b: u64)`")
            decls = [self._one_input()]
            while self.peek().is_op(","):
                self.advance()
                if self.peek().is_op(")"):
                    break
                decls.append(self._one_input())
            self.expect_op(")")
            return decls
        return [self._one_input()]

    def _one_input(self) -> ast.InputDecl:
        name = self.expect_name("an input name")
        if self.peek().is_op(":"):
            self.advance()
            type_token = self._type_name("a type after ':'")
            return ast.InputDecl(name.text, type_token.text, name.span, type_token.span)
        return ast.InputDecl(name.text, None, name.span)

    def _extern_decl(self) -> ast.ExternDecl:
        self.advance()  # extern
        name = self.expect_name("an extern name")
        if not self.peek().is_op(":"):
            raise self.expected("':' and a type", hint=f"externs are typed: `extern {name.text}: u64 = 0`")
        self.advance()
        type_token = self._type_name("a type after ':'")
        default = None
        if self.peek().is_op("="):
            self.advance()
            default = self.expression()
        elif self.peek().is_op(":="):
            raise self.expected("'='", hint=f"an extern default is written `extern {name.text}: {type_token.text} = value`")
        return ast.ExternDecl(name.text, type_token.text, type_token.span, default, name.span)

    # -- bindings ------------------------------------------------------------

    def _binding_with_modifiers(self) -> ast.Binding:
        first = self.peek()
        modifiers: list[str] = []
        while self.peek().is_word(*MODIFIERS):
            token = self.advance()
            word = token.text
            if word in modifiers:
                raise self.error(f"duplicate modifier '{word}'", token.span, "write each modifier once")
            if {word} | set(modifiers) >= {"const", "volatile"}:
                raise self.error(
                    "'const' and 'volatile' cannot be combined",
                    token.span,
                    "a const is computed once; a volatile is recomputed on every read",
                )
            if {word} | set(modifiers) >= {"const", "shared"}:
                raise self.error(
                    "'shared' and 'const' cannot be combined",
                    token.span,
                    "a const never changes; a shared cell may be written at run time: write `const x := ...` "
                    "for a value fixed for the kernel's life, or `shared x := ...` for a cell (its starting "
                    "value computed once)",
                )
            modifiers.append(word)
        order = tuple(m for m in MODIFIERS if m in modifiers)
        token = self.peek()
        if token.is_op("("):
            if not self._looks_like_targets(self.pos):
                raise self.expected("a list of names to bind", self.peek(1))
            return self._tuple_binding(order, first)
        name = self.expect_name("a binding name after the modifiers")
        type_name = type_span = None
        if self.peek().is_op(":"):
            colon = self.advance()
            type_token = self._type_name("a type after ':'")
            if "shared" not in order:
                raise self._annotation_error(name, type_token, colon)
            type_name, type_span = type_token.text, type_token.span
        return self._binding(name, order, first, type_name, type_span)

    def _annotation_error(self, name: Token, type_token: Token, colon: Token) -> Exception:
        return self.error(
            f"a type annotation ('{name.text}: {type_token.text}') is only allowed on a 'shared' binding",
            colon.span,
            f"for a typed, host-written value declare `extern {name.text}: {type_token.text} = ...`",
        )

    def _annotated_without_shared(self, name: Token) -> ast.Binding:
        self.advance()  # name
        colon = self.advance()
        type_token = self._type_name("a type after ':'")
        raise self._annotation_error(name, type_token, colon)

    def _simple_binding(self, name: Token) -> ast.Binding:
        """``name := expression`` (no modifiers, no annotation), at ``name``."""
        self.pos += 2
        value = self._value()
        span = name.span
        return ast.Binding((ast.Target(name.text, span),), value, span, (), None, None, False, name.doc)

    def _binding(self, name: Token, modifiers: tuple[str, ...], first: Token | None,
                 type_name: str | None = None, type_span: Span | None = None) -> ast.Binding:
        if self.peek() is name:
            self.advance()
        self.expect_op(":=", "a binding is written `name := expression`")
        value = self._value()
        doc = (first or name).doc
        return ast.Binding(
            (ast.Target(name.text, name.span),), value, name.span, modifiers, type_name, type_span, False, doc
        )

    def _tuple_binding(self, modifiers: tuple[str, ...], first: Token) -> ast.Binding:
        self.expect_op("(")
        targets = [self.expect_name("a name to bind")]
        while self.peek().is_op(","):
            self.advance()
            targets.append(self.expect_name("a name to bind"))
        self.expect_op(")")
        self.expect_op(":=")
        value = self.expression()
        return ast.Binding(
            tuple(ast.Target(t.text, t.span) for t in targets),
            value,
            targets[0].span,
            modifiers,
            None,
            None,
            True,
            first.doc,
        )

    # -- modules -------------------------------------------------------------

    def _is_module_def(self) -> bool:
        """Whether ``name ( ... ) ->`` starts here."""
        return self._is_module_def_at(self.pos)

    def _module_def(self, anonymous: bool = False) -> ast.ModuleDef:
        """``name(params) -> (outputs) := { body }``; ``anonymous``: the
        ``(params) -> (outputs) := { body }`` form, named by its file."""
        if anonymous:
            import os

            stem = os.path.splitext(os.path.basename(self.file.path))[0] if self.file.path else ""
            at = self.peek()
            if not stem.isidentifier():
                raise self.error(
                    "an anonymous module is named by its file, and this source has no usable file name",
                    at.span,
                    "give the module a name: `name(p: u64) -> (o: u64) := { ... }`",
                )
            name = at._replace(kind=TokenKind.IDENT, text=stem, value=stem)
        else:
            name = self.advance()
        self.expect_op("(")
        params = self._param_list(")", "a parameter name")
        self.expect_op("->")
        if self.peek().is_op("("):
            self.advance()
            outputs = self._param_list(")", "an output name")
        else:
            outputs = [self._param("an output name")]
        if not outputs:
            raise self.error(f"module '{name.text}' declares no outputs", name.span, "a module returns at least one value")
        self.expect_op(":=", f"a module is written `{name.text}(p: u64) -> (o: u64) := {{ ... }}`")
        self.expect_op("{", "a module body is a block of bindings in braces")
        body: list[ast.Binding] = []
        pragmas: list[ast.Pragma] = []
        while not self.peek().is_op("}"):
            if self.peek().kind is TokenKind.EOF:
                raise self.expected(f"'}}' closing module '{name.text}'")
            for statement in self.statement(in_module=name.text):
                if isinstance(statement, ast.Pragma):
                    pragmas.append(statement)
                    continue
                assert isinstance(statement, ast.Binding)
                body.append(statement)
        self.advance()
        return ast.ModuleDef(name.text, tuple(params), tuple(outputs), tuple(body), name.span, name.doc,
                             tuple(pragmas))

    def _param_list(self, closer: str, what: str) -> list[ast.Param]:
        params: list[ast.Param] = []
        if self.peek().is_op(closer):
            self.advance()
            return params
        params.append(self._param(what))
        while self.peek().is_op(","):
            self.advance()
            if self.peek().is_op(closer):
                break
            params.append(self._param(what))
        self.expect_op(closer)
        return params

    def _param(self, what: str) -> ast.Param:
        name = self.expect_name(what)
        if self.peek().is_op(":"):
            self.advance()
            type_token = self._type_name("a type after ':'")
            return ast.Param(name.text, type_token.text, name.span)
        return ast.Param(name.text, None, name.span)

    # -- expressions ---------------------------------------------------------

    def expression(self) -> ast.Expr:
        """One expression, parsed with an explicit frame stack (no recursion)."""
        if self.fast_paths:
            simple = simple_expression(self.tokens, self.pos)
            if simple is not None:
                self.pos = simple[1]
                return simple[0]
        stack: list[_Frame] = [_Frame("top")]
        want_operand = True
        while True:
            frame = stack[-1]
            token = self.peek()
            if want_operand:
                want_operand = self._operand(stack, token)
                continue
            # Expecting an operator, a postfix cast, or the end of this operand list.
            if token.kind is TokenKind.OP and token.text in BINARY_PRECEDENCE:
                self.advance()
                frame.push_operator(_Pending(token.text, BINARY_PRECEDENCE[token.text], token.span, False))
                want_operand = True
                continue
            if token.is_word("as"):
                self._postfix_cast(frame)
                continue
            result = frame.finish()
            if frame.kind == "top":
                return result
            want_operand = self._close(stack, frame, result, token)

    def _operand(self, stack: list[_Frame], token: Token) -> bool:
        """Handle a token where an operand must start; returns whether an operand is still wanted."""
        frame = stack[-1]
        kind = token.kind
        if kind is TokenKind.INT:
            self.advance()
            frame.operands.append(ast.IntLit(int(token.value), token.text, token.span))  # type: ignore[arg-type]
            return False
        if kind is TokenKind.FLOAT:
            self.advance()
            frame.operands.append(ast.FloatLit(float(token.value), token.text, token.span))  # type: ignore[arg-type]
            return False
        if kind is TokenKind.DECIMAL:
            self.advance()
            frame.operands.append(ast.DecimalLit(str(token.value), token.span))
            return False
        if kind is TokenKind.STRING:
            self.advance()
            frame.operands.append(self._string(token))
            return False
        if kind is TokenKind.OP:
            if token.text in ("-", "!"):
                self.advance()
                frame.push_operator(_Pending(token.text, UNARY_PRECEDENCE, token.span, True))
                return True
            if token.text == "(":
                self.advance()
                stack.append(_Frame("paren", open_token=token))
                return True
            if token.text == "[":
                self.advance()
                if self.peek().is_op("]"):
                    self.advance()
                    frame.operands.append(ast.ArrayLit((), token.span))
                    return False
                stack.append(_Frame("array", open_token=token))
                return True
            raise self.expected("an expression", token)
        if kind is TokenKind.IDENT:
            return self._word_operand(stack, token)
        raise self.expected("an expression", token)

    def _word_operand(self, stack: list[_Frame], token: Token) -> bool:
        frame = stack[-1]
        word = token.text
        if word in NON_NAME_KEYWORDS:
            if word == "for":
                raise self.error(
                    "a `for` producer compiles only as the whole value of a binding",
                    token.span,
                    "bind it first (`sweep := for k in 1..4`) and use the name",
                )
            if word == "tile":
                raise self.error(f"'{word}' {NOT_SUPPORTED}", token.span, _UNSUPPORTED_HINTS.get(word))
            raise self.expected("an expression", token)
        self.advance()
        nxt = self.peek()
        if word in BOOL_WORDS:
            if nxt.is_op("(") and nxt.line == token.line:
                raise self.error(f"'{word}' is a bool literal and cannot be called", token.span)
            frame.operands.append(ast.BoolLit(BOOL_WORDS[word], token.span))
            return False
        if word == "if" and not nxt.is_op("("):
            stack.append(_Frame("if_cond", if_span=token.span))
            return True
        if nxt.is_op("(") and (nxt.line == token.line or not self._looks_like_targets(self.pos)):
            return self._open_call(stack, frame, word, token.span)
        if nxt.is_op(".") and nxt.offset == token.offset + len(word):
            # Field access: `q.cursor.idx` reads the wire `q__cursor__idx`.
            path = [word]
            while self.peek().is_op(".") and self.peek(1).kind is TokenKind.IDENT:
                self.advance()
                path.append(self.advance().text)
            if self.peek().is_op("."):
                raise self.expected("a field name after '.'", self.peek(1))
            after = self.peek()
            if len(path) == 2 and after.is_op("(") and after.line == token.line:
                # A namespaced call: `de_DE.full_name(key)` (a field in a locale).
                return self._open_call(stack, frame, ".".join(path), token.span)
            frame.operands.append(ast.Name("__".join(path), token.span))
            return False
        frame.operands.append(ast.Name(word, token.span))
        return False

    def _open_call(self, stack: list[_Frame], frame: _Frame, name: str, span: Span) -> bool:
        """At the ``(`` after a callee ``name``: an empty call goes straight to
        ``frame``'s operands (False); else a call frame is pushed for its
        arguments (True)."""
        opening = self.advance()
        if self.peek().is_op(")"):
            self.advance()
            frame.operands.append(ast.Call(name, (), span))
            return False
        call = _Frame("call", open_token=opening, name=name, name_span=span)
        stack.append(call)
        self._start_argument(call)
        return True

    def _start_argument(self, frame: _Frame) -> None:
        """At the start of a call argument: consume ``name:`` if it is a named one."""
        token = self.peek()
        if token.kind is TokenKind.IDENT and self.peek(1).is_op(":") and token.text not in NON_NAME_KEYWORDS:
            self.advance()
            self.advance()
            frame.arg_name, frame.arg_name_span = token.text, token.span
        else:
            frame.arg_name, frame.arg_name_span = None, None

    def _postfix_cast(self, frame: _Frame) -> None:
        as_token = self.advance()
        type_token = self._type_name("a type name after 'as'")
        operand = frame.operands.pop()
        frame.operands.append(ast.Cast(operand, type_token.text, type_token.span, as_token.span))

    def _close(self, stack: list[_Frame], frame: _Frame, result: ast.Expr, token: Token) -> bool:
        """An operand list of ``frame`` ended at ``token``; returns whether an operand is wanted next."""
        kind = frame.kind
        if kind == "paren":
            if not token.is_op(")"):
                raise self._unclosed(frame, "')'", token)
            self.advance()
            stack.pop()
            stack[-1].operands.append(result)
            return False
        if kind in ("call", "array"):
            closer = ")" if kind == "call" else "]"
            frame.items.append(ast.Arg(result, frame.arg_name, frame.arg_name_span))
            if token.is_op(","):
                self.advance()
                if not self.peek().is_op(closer):
                    if kind == "call":
                        self._start_argument(frame)
                    return True
                token = self.peek()
            if not token.is_op(closer):
                raise self._unclosed(frame, f"',' or '{closer}'", token)
            self.advance()
            stack.pop()
            if kind == "array":
                stack[-1].operands.append(ast.ArrayLit(tuple(a.value for a in frame.items), frame.open_token.span))  # type: ignore[union-attr]
                return False
            return self._finish_call(stack, frame)
        if kind == "if_cond":
            if not token.is_op("{"):
                raise self.expected(
                    "'{' after the if condition", token, "the block form is `if c { a } else { b }`"
                )
            self.advance()
            frame.cond = result
            frame.kind = "if_then"
            return True
        if kind == "if_then":
            if not token.is_op("}"):
                raise self.expected("'}' closing the if branch", token)
            self.advance()
            assert frame.cond is not None and frame.if_span is not None
            frame.branches.append((frame.cond, result, frame.if_span))
            else_token = self.peek()
            if not else_token.is_word("else"):  # said at the `if`: the next token may be lines below
                if else_token.kind is TokenKind.ERROR:
                    raise _AlreadyReported()
                raise self.error(
                    f"`if` without 'else': expected 'else' after its branch but found {describe_token(else_token)}",
                    frame.if_span,
                    "an if expression always yields a value, so 'else' is required",
                )
            self.advance()
            after = self.peek()
            if after.is_word("if"):
                self.advance()
                frame.kind = "if_cond"
                frame.if_span = after.span
                return True
            if after.is_op("{"):
                self.advance()
                frame.kind = "if_else"
                return True
            raise self.expected("'{' or 'if' after 'else'", after)
        if kind == "if_else":
            if not token.is_op("}"):
                raise self.expected("'}' closing the else branch", token)
            self.advance()
            stack.pop()
            value = result
            for cond, then, span in reversed(frame.branches):
                value = ast.IfExpr(cond, then, value, span, block_form=True)
            stack[-1].operands.append(value)
            return False
        raise AssertionError(f"unknown frame kind {kind}")

    def _finish_call(self, stack: list[_Frame], frame: _Frame) -> bool:
        args = tuple(frame.items)
        span = frame.name_span
        assert span is not None
        if frame.name == "if":
            if len(args) == 1 and args[0].name is None and self.peek().is_op("{"):
                # `if (cond) { a } else { b }`: the parenthesised condition of a block if.
                self.advance()
                stack.append(_Frame("if_then", cond=args[0].value, if_span=span))
                return True
            if len(args) == 3 and all(a.name is None for a in args):
                stack[-1].operands.append(ast.IfExpr(args[0].value, args[1].value, args[2].value, span))
                return False
        stack[-1].operands.append(ast.Call(frame.name, args, span))
        return False

    def _unclosed(self, frame: _Frame, what: str, token: Token) -> Exception:
        opened = frame.open_token
        hint = f"the '{opened.text}' opened at {opened.span} is not closed" if opened else None
        return self.expected(what, token, hint)

    # -- strings -------------------------------------------------------------

    def _string(self, token: Token) -> ast.Expr:
        """A string literal, desugared to ``printf`` when it interpolates ``{expr}``."""
        text = str(token.value)
        if "{" not in text or self.depth >= MAX_INTERPOLATION_DEPTH or token.is_raw_string():
            return ast.StrLit(text, token.span)
        segments = scan_segments(text)
        if segments is None and unclosed_placeholder(text) is not None:
            raise self.error(
                "a '{' in this string opens a placeholder that is never closed",
                token.span,
                "close it with '}', write '{{' for a brace of the text, or use a raw string r\"...\"",
            )
        if segments is None or not any(isinstance(s, Placeholder) for s in segments):
            return ast.StrLit(text, token.span)
        offsets = token.string_offsets()
        pieces: list[str] = []
        args: list[ast.Arg] = [ast.Arg(ast.StrLit("", token.span))]
        for segment in segments:
            if isinstance(segment, str):
                pieces.append(segment)
                continue
            expr = self._placeholder(text, offsets, segment)
            if expr is None:
                self._warn_format_spec(text[segment.start:segment.end], token.span)
                return ast.StrLit(text, token.span)
            pieces.append("{}")
            args.append(ast.Arg(expr))
        args[0] = ast.Arg(ast.StrLit("".join(pieces), token.span))
        return ast.Call("printf", tuple(args), token.span, interpolated=True)

    def _warn_format_spec(self, body: str, span: Span) -> None:
        """Warns when a placeholder kept as text reads like ``{name:spec}``: the
        string stays as written (upstream's rule for ``"{:05}"``), which a
        writer of ``"{id:08}"`` does not expect."""
        name, colon, spec = body.partition(":")
        if colon and _NAME.fullmatch(name.strip()):
            self.warnings.append(self.file.diagnostic(
                f"'{{{body}}}' is kept as text: a placeholder holds one expression, with no format spec",
                span,
                f"to format '{name.strip()}', call a node in the placeholder, e.g. "
                f"'{{zero_pad_u64({name.strip()}, 8)}}', format_f64 or format_datetime; write '{{{{' for a brace of the text",
                severity="warning",
            ))

    def _placeholder(self, text: str, offsets: Sequence[int], hole: Placeholder) -> ast.Expr | None:
        body = text[hole.start:hole.end]
        if not body.strip():
            return None
        lexer = Lexer(self.file, body, offsets[hole.start:hole.end])
        tokens = lexer.tokenize()
        if lexer.diagnostics:
            return None
        try:
            sub = Parser(self.file, tokens, self.depth + 1)
            expr = sub.expression()
            if sub.peek().kind is not TokenKind.EOF:
                return None
            return expr
        except (CompileError, _AlreadyReported):
            return None


_OP = TokenKind.OP
_EOF = TokenKind.EOF
_LINE = TokenKind.LINE
_PADDING = 3  # EOF copies after the last token, so that peek(2) is an index

_UNSUPPORTED_HINTS = {
    "tile": "tiles (templates) are not implemented in this release; use string interpolation",
}


def parse_recovering(file: SourceFile) -> tuple[ast.Program, list[Diagnostic]]:
    """Parse a whole file, skipping statements that fail; returns the program and every error."""
    lexer = Lexer(file)
    tokens = lexer.tokenize()
    parser = Parser(file, tokens)
    statements = parser.parse_program()
    program = ast.Program(
        tuple(statements),
        file.text,
        file.path,
        unparsed_names=frozenset(parser.unparsed_names),
        unparsed_modules=frozenset(parser.unparsed_modules),
        parse_warnings=tuple(parser.warnings),
    )
    diagnostics = sorted(lexer.diagnostics + parser.diagnostics, key=lambda d: (d.line, d.col))
    return program, diagnostics


@dataclass(frozen=True)
class Layout:
    """A parsed file with what the tree leaves out, for the formatter: every
    comment (:class:`~polydat.dsl.lexer.Comment`, source order) and each
    statement's source extent (:attr:`Parser.extents`)."""

    program: ast.Program
    comments: tuple[Comment, ...]
    extents: dict[int, tuple[int, int]]
    sources: dict[int, tuple[int, int]]
    """The extent of the source statement each statement came from (:attr:`Parser.sources`)."""


def parse_layout(file: SourceFile) -> Layout:
    """Parse a whole file keeping its comments and statement extents; raises
    one CompileError carrying every lexical and syntax error, as
    :func:`parse_file` does."""
    lexer = Lexer(file)
    tokens = lexer.tokenize()
    parser = Parser(file, tokens)
    parser.extents = {}
    statements = parser.parse_program()
    diagnostics = sorted(lexer.diagnostics + parser.diagnostics, key=lambda d: (d.line, d.col))
    if diagnostics:
        raise CompileError(diagnostics[0], tuple(diagnostics[1:]))
    program = ast.Program(tuple(statements), file.text, file.path)
    return Layout(program, tuple(lexer.comments), parser.extents, parser.sources)


def parse_file(file: SourceFile) -> ast.Program:
    """Parse a whole source file into a :class:`~polydat.dsl.ast.Program`.

    Raises one CompileError carrying every lexical and syntax error found.
    """
    program, diagnostics = parse_recovering(file)
    if diagnostics:
        raise CompileError(diagnostics[0], tuple(diagnostics[1:]))
    return program
