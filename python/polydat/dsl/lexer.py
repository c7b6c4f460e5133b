"""Tokenizer for Polydat source text.

The language is newline-insensitive: the lexer only produces identifiers,
numbers, strings and punctuation, each with its span; the parser decides
statement boundaries. Keywords are ordinary identifiers here (the parser gives
them meaning by position). Comments (``#``, ``//``, ``///``, ``/* */``) are
skipped; the text of ``///`` doc comments is attached to the next token.

Numbers follow upstream Polydat exactly: decimal or ``0x`` hex integers (u64),
floats with a digit after the point and/or an exponent, and SI suffixes
(``K M G T P``, ``Ki Mi Gi Ti Pi``, ``m u n``) applied in f64 arithmetic, an
integral non-negative result becoming a u64.
"""

from __future__ import annotations

import math
from enum import Enum
from typing import NamedTuple

from .ast import Span
from .diagnostics import SourceFile
from .types import U64_MAX


class TokenKind(Enum):
    """The lexical class of a token."""

    IDENT = "identifier"
    INT = "integer"
    FLOAT = "float"
    STRING = "string"
    OP = "operator"
    EOF = "end of input"


class Token(NamedTuple):
    """One token. ``value`` holds the int/float/decoded string of literals.

    For strings, ``char_offsets`` maps each decoded character to its offset in
    the source (so interpolated expressions report exact positions).
    """

    kind: TokenKind
    text: str
    span: Span
    offset: int
    value: int | float | str | None = None
    doc: str | None = None
    char_offsets: tuple[int, ...] | None = None

    def is_op(self, *ops: str) -> bool:
        """Whether this is one of the punctuation tokens ``ops``."""
        return self.kind is TokenKind.OP and self.text in ops

    def is_word(self, *words: str) -> bool:
        """Whether this is an identifier spelled as one of ``words``."""
        return self.kind is TokenKind.IDENT and self.text in words


#: Words with a fixed meaning at the start of a statement. ``input``, ``cursor``
#: and ``over`` are soft: in expression position they are ordinary names.
HARD_KEYWORDS = frozenset({"const", "input", "extern", "shared", "volatile", "cursor", "over", "pragma", "for", "tile"})

#: Multi-character operators, longest first.
_OPERATORS_2 = (":=", "->", "**", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||")
_OPERATORS_1 = frozenset("+-*/%&|^!<>=:,.()[]{}")

_SI_BINARY = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40, "P": 1 << 50}
_SI_DECIMAL = {"K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15}
_SI_SUBUNIT = {"m": 10**3, "u": 10**6, "n": 10**9}

_U64_MAX_HINT = "the largest u64 is 18446744073709551615 (0xFFFFFFFFFFFFFFFF)"


def _is_ident_start(c: str) -> bool:
    return c == "_" or ("a" <= c <= "z") or ("A" <= c <= "Z")


def _is_ident_char(c: str) -> bool:
    return c == "_" or ("a" <= c <= "z") or ("A" <= c <= "Z") or ("0" <= c <= "9")


def _is_digit(c: str) -> bool:
    return "0" <= c <= "9"


_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


class Lexer:
    """Turns a source text (or a slice of it) into tokens.

    ``file`` supplies diagnostics. When lexing a fragment of the file (an
    interpolated ``{expr}``), ``text`` is the fragment and ``offsets`` maps each
    of its characters to the offset in ``file.text`` it came from.
    """

    def __init__(self, file: SourceFile, text: str | None = None, offsets: tuple[int, ...] | None = None):
        self.file = file
        self.text = file.text if text is None else text
        self.offsets = offsets
        self.pos = 0
        self.tokens: list[Token] = []
        self._doc_lines: list[str] = []

    # -- positions -----------------------------------------------------------

    def _source_offset(self, index: int) -> int:
        if self.offsets is None:
            return index
        if not self.offsets:
            return 0
        if index < len(self.offsets):
            return self.offsets[index]
        return self.offsets[-1] + 1

    def _span(self, index: int) -> Span:
        return self.file.locate(self._source_offset(index))

    def _error(self, message: str, index: int, hint: str | None = None) -> Exception:
        return self.file.error(message, self._span(index), hint)

    # -- driver --------------------------------------------------------------

    def tokenize(self) -> list[Token]:
        """All tokens of the text, ending with an EOF token."""
        text = self.text
        n = len(text)
        while True:
            self._skip_space_and_comments()
            if self.pos >= n:
                break
            c = text[self.pos]
            if _is_digit(c):
                self._number()
            elif _is_ident_start(c):
                self._identifier()
            elif c == '"' or c == "'":
                self._string(c)
            else:
                self._operator(c)
        self.tokens.append(Token(TokenKind.EOF, "", self._span(n), self._source_offset(n)))
        return self.tokens

    def _push(self, kind: TokenKind, start: int, end: int, value: int | float | str | None = None,
              char_offsets: tuple[int, ...] | None = None) -> None:
        doc = "\n".join(self._doc_lines) if self._doc_lines else None
        self._doc_lines = []
        self.tokens.append(
            Token(kind, self.text[start:end], self._span(start), self._source_offset(start), value, doc, char_offsets)
        )

    # -- trivia --------------------------------------------------------------

    def _skip_space_and_comments(self) -> None:
        text = self.text
        n = len(text)
        while self.pos < n:
            c = text[self.pos]
            if c in " \t\r\n\f\v":
                self.pos += 1
            elif c == "#":
                self._skip_to_eol()
            elif c == "/" and self.pos + 1 < n and text[self.pos + 1] == "/":
                start = self.pos
                self._skip_to_eol()
                line = text[start:self.pos]
                if line.startswith("///") and not line.startswith("////"):
                    body = line[3:]
                    self._doc_lines.append(body[1:] if body.startswith(" ") else body)
            elif c == "/" and self.pos + 1 < n and text[self.pos + 1] == "*":
                end = text.find("*/", self.pos + 2)
                if end == -1:
                    raise self._error("unterminated block comment", self.pos, "close it with '*/'")
                self.pos = end + 2
            else:
                return

    def _skip_to_eol(self) -> None:
        end = self.text.find("\n", self.pos)
        self.pos = len(self.text) if end == -1 else end

    # -- words and punctuation -----------------------------------------------

    def _identifier(self) -> None:
        text = self.text
        start = self.pos
        pos = start + 1
        while pos < len(text) and _is_ident_char(text[pos]):
            pos += 1
        self.pos = pos
        self._push(TokenKind.IDENT, start, pos, text[start:pos])

    def _operator(self, c: str) -> None:
        text = self.text
        start = self.pos
        two = text[start:start + 2]
        if two in _OPERATORS_2:
            self.pos += 2
            self._push(TokenKind.OP, start, start + 2)
            return
        if c in _OPERATORS_1:
            self.pos += 1
            self._push(TokenKind.OP, start, start + 1)
            return
        shown = c if c.isprintable() and not c.isspace() else f"U+{ord(c):04X}"
        hint = None
        if c == ";":
            hint = "statements need no terminator; remove the ';'"
        elif c == "$" or c == "@":
            hint = "template holes belong in tiles, which are not supported yet"
        elif not c.isascii():
            hint = "identifiers and operators are ASCII; non-ASCII text belongs in strings or comments"
        raise self._error(f"unexpected character '{shown}'", start, hint)

    # -- strings -------------------------------------------------------------

    def _string(self, quote: str) -> None:
        text = self.text
        n = len(text)
        start = self.pos
        pos = start + 1
        chars: list[str] = []
        offsets: list[int] = []
        while True:
            if pos >= n:
                raise self._error(
                    "unterminated string literal", start, f"close the string with {quote}"
                )
            c = text[pos]
            if c == quote:
                break
            if c == "\\" and pos + 1 < n:
                nxt = text[pos + 1]
                origin = self._source_offset(pos)
                if nxt == "n":
                    chars.append("\n")
                    offsets.append(origin)
                elif nxt == "t":
                    chars.append("\t")
                    offsets.append(origin)
                elif nxt == "\\":
                    chars.append("\\")
                    offsets.append(origin)
                elif nxt == quote:
                    chars.append(quote)
                    offsets.append(origin)
                else:
                    chars.append("\\")
                    offsets.append(origin)
                    chars.append(nxt)
                    offsets.append(self._source_offset(pos + 1))
                pos += 2
                continue
            chars.append(c)
            offsets.append(self._source_offset(pos))
            pos += 1
        self.pos = pos + 1
        self._push(TokenKind.STRING, start, self.pos, "".join(chars), tuple(offsets))

    # -- numbers -------------------------------------------------------------

    def _number(self) -> None:
        text = self.text
        n = len(text)
        start = self.pos
        if text[start] == "0" and start + 1 < n and text[start + 1] in "xX":
            self._hex(start)
            return
        pos = start
        while pos < n and _is_digit(text[pos]):
            pos += 1
        is_float = False
        if pos + 1 < n and text[pos] == "." and _is_digit(text[pos + 1]):
            is_float = True
            pos += 1
            while pos < n and _is_digit(text[pos]):
                pos += 1
        exp_end = self._exponent_end(pos)
        if exp_end is not None:
            is_float = True
            pos = exp_end
        digits = text[start:pos]
        suffix = self._si_suffix(pos)
        end = pos + (len(suffix) if suffix else 0)
        self.pos = end
        if is_float:
            self._push_float(start, end, digits, suffix)
        else:
            self._push_int(start, end, int(digits), suffix)

    def _exponent_end(self, pos: int) -> int | None:
        """The end of an exponent (``e10``, ``E-3``) starting at ``pos``, if there is one."""
        text = self.text
        n = len(text)
        if pos >= n or text[pos] not in "eE":
            return None
        p = pos + 1
        if p < n and text[p] in "+-":
            p += 1
        if p >= n or not _is_digit(text[p]):
            return None
        while p < n and _is_digit(text[p]):
            p += 1
        return p

    def _si_suffix(self, pos: int) -> str | None:
        """The SI suffix at ``pos`` when it is not the start of a longer identifier."""
        text = self.text
        n = len(text)
        if pos >= n:
            return None
        c = text[pos]
        if c in _SI_BINARY and pos + 1 < n and text[pos + 1] == "i":
            if pos + 2 >= n or not _is_ident_char(text[pos + 2]):
                return c + "i"
        if c in _SI_DECIMAL or c in _SI_SUBUNIT:
            if pos + 1 >= n or not _is_ident_char(text[pos + 1]):
                return c
        return None

    def _push_int(self, start: int, end: int, value: int, suffix: str | None) -> None:
        literal = self.text[start:end]
        if value > U64_MAX:
            raise self._error(f"integer literal {literal} does not fit in u64", start, _U64_MAX_HINT)
        if suffix is None:
            self._push(TokenKind.INT, start, end, value)
        elif suffix in _SI_SUBUNIT:
            self._push(TokenKind.FLOAT, start, end, float(value) / float(_SI_SUBUNIT[suffix]))
        else:
            scaled = value * (_SI_BINARY[suffix[0]] if len(suffix) == 2 else _SI_DECIMAL[suffix])
            if scaled > U64_MAX:
                raise self._error(f"integer literal {literal} does not fit in u64", start, _U64_MAX_HINT)
            self._push(TokenKind.INT, start, end, scaled)

    def _push_float(self, start: int, end: int, digits: str, suffix: str | None) -> None:
        literal = self.text[start:end]
        value = float(digits)
        if math.isinf(value):
            raise self._error(f"float literal {literal} is out of range for f64", start,
                              "the largest finite f64 is about 1.7976931348623157e308")
        if suffix is None:
            self._push(TokenKind.FLOAT, start, end, value)
            return
        if suffix in _SI_SUBUNIT:
            value /= float(_SI_SUBUNIT[suffix])
        else:
            value *= float(_SI_BINARY[suffix[0]] if len(suffix) == 2 else _SI_DECIMAL[suffix])
        if math.isinf(value):
            raise self._error(f"float literal {literal} is out of range for f64", start)
        if value.is_integer() and 0.0 <= value <= 18446744073709551616.0:
            self._push(TokenKind.INT, start, end, min(int(value), U64_MAX))
        else:
            self._push(TokenKind.FLOAT, start, end, value)

    def _hex(self, start: int) -> None:
        text = self.text
        pos = start + 2
        while pos < len(text) and text[pos] in _HEX_DIGITS:
            pos += 1
        self.pos = pos
        if pos == start + 2:
            raise self._error("hex literal needs at least one digit after '0x'", start)
        value = int(text[start + 2:pos], 16)
        if value > U64_MAX:
            raise self._error(f"integer literal {text[start:pos]} does not fit in u64", start, _U64_MAX_HINT)
        self._push(TokenKind.INT, start, pos, value)


def tokenize(source: str | SourceFile, path: str | None = None) -> list[Token]:
    """Tokenize a whole source text (raises CompileError on a lexical error)."""
    file = source if isinstance(source, SourceFile) else SourceFile(source, path)
    return Lexer(file).tokenize()


def describe_token(token: Token) -> str:
    """How a token reads in "expected X but found Y" messages."""
    if token.kind is TokenKind.EOF:
        return "end of input"
    if token.kind is TokenKind.OP:
        return f"'{token.text}'"
    if token.kind is TokenKind.IDENT:
        if token.text in HARD_KEYWORDS:
            return f"keyword '{token.text}'"
        return f"identifier '{token.text}'"
    if token.kind is TokenKind.STRING:
        text = token.text if len(token.text) <= 24 else token.text[:21] + "..."
        return f"string {text}"
    return f"number '{token.text}'"
