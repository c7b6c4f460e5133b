"""Syntax constants shared by the parser and its helpers: operator precedence, modifiers, word classes."""

from __future__ import annotations

from .lexer import BOOL_WORDS, HARD_KEYWORDS

#: Binary operator → precedence (higher binds tighter).
BINARY_PRECEDENCE: dict[str, int] = {
    "||": 1,
    "&&": 2,
    "==": 3,
    "!=": 3,
    "<": 4,
    ">": 4,
    "<=": 4,
    ">=": 4,
    "|": 5,
    "^": 6,
    "&": 7,
    "<<": 8,
    ">>": 8,
    "+": 9,
    "-": 9,
    "*": 10,
    "/": 10,
    "%": 10,
    "**": 11,
}
RIGHT_ASSOCIATIVE = frozenset({"**"})
UNARY_PRECEDENCE = 12
MODIFIERS = ("const", "shared", "volatile")
#: Words that can never be a name in expression position.
NON_NAME_KEYWORDS = HARD_KEYWORDS - {"input", "cursor", "over"}
NOT_SUPPORTED = "is not supported yet"
#: Interpolations nest (a string inside ``{...}`` inside a string); beyond this
#: depth the literal is left untouched.
MAX_INTERPOLATION_DEPTH = 16
#: Soft keywords: in expression position (and as binding names) ordinary names.
SOFT_KEYWORDS = ("input", "cursor", "over")
#: Words a one-token operand cannot be: keywords, ``if`` and the bool literals.
SPECIAL_WORDS = NON_NAME_KEYWORDS | {"if"} | frozenset(BOOL_WORDS)
