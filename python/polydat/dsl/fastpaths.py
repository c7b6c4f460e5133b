"""The parser's fast paths: the most common expressions and statements, built without its frame machinery.

* :func:`simple_expression`: one name or number, or a call of such operands
  (``f(a, 1)``), followed by a token that cannot continue it;
* :func:`line_binding`: the binding a ``LINE`` token (a whole line
  ``name := f(a, 1)``, see :mod:`polydat.dsl.lexer`) stands for.

Both build exactly the trees the general parser builds (a test compares
them); anything else returns None and is left to the general parser.
"""

from __future__ import annotations

import re
from typing import cast

from . import ast
from .ast import Span
from .grammar import BINARY_PRECEDENCE, SPECIAL_WORDS
from .lexer import SIMPLE_ARG, Token, TokenKind

_IDENT = TokenKind.IDENT
_OP = TokenKind.OP
_INT = TokenKind.INT
_FLOAT = TokenKind.FLOAT
_new_span = tuple.__new__


def continues(token: Token) -> bool:
    """Whether ``token``, after an operand, continues the expression (an operator or ``as``)."""
    if token.kind is _OP:
        return token.text in BINARY_PRECEDENCE
    return token.kind is _IDENT and token.text == "as"


def line_binding(token: Token) -> ast.Binding:
    """The binding ``name := f(a, 1)`` a ``LINE`` token stands for (as the general parser builds it)."""
    match = cast("re.Match[str]", token.value)  # a LINE token's value is its line's match
    line = token.line
    to_col = token.col - token.offset  # a source offset on this line + to_col = its column
    target = _new_span(Span, (line, token.col))
    name, callee, text = match.groups()
    regs = match.regs
    if "," in text:
        base = regs[3][0] + to_col
        args = tuple(ast.Arg(_line_operand(arg.group(), line, base + arg.start())) for arg in SIMPLE_ARG.finditer(text))
    else:
        args = (ast.Arg(_line_operand(text, line, regs[3][0] + to_col)),)
    call = ast.Call(callee, args, _new_span(Span, (line, regs[2][0] + to_col)))
    return ast.Binding((ast.Target(name, target),), call, target, (), None, None, False, token.doc)


def _line_operand(text: str, line: int, col: int) -> ast.Expr:
    span = _new_span(Span, (line, col))
    if "0" <= text[0] <= "9":
        return ast.IntLit(int(text), text, span)
    return ast.Name(text, span)


def one_token_operand(token: Token) -> ast.Expr | None:
    """The name or number ``token`` is as a whole operand (None for anything else)."""
    kind = token.kind
    if kind is _IDENT:
        return None if token.text in SPECIAL_WORDS else ast.Name(token.text, token.span)
    if kind is _INT:
        return ast.IntLit(int(token.value), token.text, token.span)  # type: ignore[arg-type]
    if kind is _FLOAT:
        return ast.FloatLit(float(token.value), token.text, token.span)  # type: ignore[arg-type]
    return None


def simple_expression(tokens: list[Token], pos: int) -> tuple[ast.Expr, int] | None:
    """The expression at ``tokens[pos]`` and the position after it, if it is one
    name or number, or a call of such operands (``f(a, 1)``), followed by a
    token that cannot continue it; else None."""
    first = tokens[pos]
    nxt = tokens[pos + 1]
    kind = first.kind
    if kind is _IDENT:
        word = first.text
        if word in SPECIAL_WORDS:
            return None
        if nxt.kind is _OP and nxt.text == "(":
            if nxt.line != first.line:
                return None
            args: list[ast.Arg] = []
            i = pos + 2
            while True:
                token = tokens[i]
                after = tokens[i + 1]
                if after.kind is not _OP or (after.text != "," and after.text != ")"):
                    return None
                operand = one_token_operand(token)
                if operand is None:
                    return None
                args.append(ast.Arg(operand))
                i += 2
                if after.text == ")":
                    break
            if continues(tokens[i]):
                return None
            return ast.Call(word, tuple(args), first.span), i
        if continues(nxt) or (nxt.kind is _OP and (nxt.text == "(" or nxt.text == ".")):
            return None
        return ast.Name(word, first.span), pos + 1
    if (kind is _INT or kind is _FLOAT) and not continues(nxt):
        return one_token_operand(first), pos + 1  # type: ignore[return-value]
    return None
