"""Tokenizer for Polydat source text.

The language is newline-insensitive: the lexer only produces identifiers,
numbers, strings and punctuation, each with its position; the parser decides
statement boundaries. Keywords are ordinary identifiers here (the parser gives
them meaning by position). Comments (``#``, ``//``, ``///``, ``/* */``) are
not tokens; the text of ``///`` doc comments is attached to the next token,
and every comment is kept with its position in :attr:`Lexer.comments` (for
the formatter, :mod:`polydat.dsl.formatter`).

Numbers follow upstream Polydat exactly: decimal or ``0x`` hex integers (u64),
floats with a digit after the point and/or an exponent, and SI suffixes
(``K M G T P``, ``Ki Mi Gi Ti Pi``, ``m u n``) applied in f64 arithmetic, an
integral non-negative result becoming a u64. An integer too large for u64 is
recognised by its digit count before any conversion, so a 5000-digit literal
costs nothing and is reported like ``18446744073709551616``.

Lexical errors do not stop the lexer: each is recorded in
:attr:`Lexer.diagnostics` and leaves an ``ERROR`` token in its place (the
parser fails that statement without a second message). An unterminated string
or block comment swallows the rest of the text, so lexing stops there. Lines
end at ``\\n`` only (:func:`polydat.dsl.diagnostics.source_lines`).

One regular expression scans the text; positions are counted as it goes, so
lexing is linear in the text. A string literal is found by its quotes
(:func:`string_end`), not by a repeated pattern, and decoded by slices
between its escapes: its cost is a few bytes per character (a backtracking
pattern kept hundreds of bytes of state per character).
"""

from __future__ import annotations

import math
import re
from array import array
from collections.abc import Sequence
from sys import intern
from enum import Enum
from typing import NamedTuple, cast

from ..errors import CompileError, Diagnostic
from .ast import Span
from .diagnostics import SourceFile
from .types import U64_MAX


class TokenKind(Enum):
    """The lexical class of a token."""

    IDENT = "identifier"
    INT = "integer"
    FLOAT = "float"
    DECIMAL = "decimal"
    STRING = "string"
    OP = "operator"
    ERROR = "invalid text"
    LINE = "simple binding line"
    TILE = "tile body"
    EOF = "end of input"


IDENT = TokenKind.IDENT
OP = TokenKind.OP
INT = TokenKind.INT
FLOAT = TokenKind.FLOAT
DECIMAL = TokenKind.DECIMAL
STRING = TokenKind.STRING
ERROR = TokenKind.ERROR
LINE = TokenKind.LINE
TILE = TokenKind.TILE
EOF = TokenKind.EOF


class Token(NamedTuple):
    """One token. ``value`` holds the int/float/decoded string of literals.

    A ``LINE`` token stands for a whole line ``name := f(a, 1)`` (its ``value``
    is the :data:`SIMPLE_LINE` match); see :meth:`Lexer.tokenize` and
    :func:`expand_line`.

    ``offset`` is the character offset in the source; ``line`` and ``col``
    its 1-based position. For strings, ``char_offsets`` maps each decoded
    character to its source offset when escapes make that differ from
    ``offset + 1 + i`` (None otherwise; an ``array('q')`` of 8 bytes a
    character when made by the lexer); use :meth:`string_offsets`.
    """

    kind: TokenKind
    text: str
    offset: int
    line: int
    col: int
    value: int | float | str | None = None
    doc: str | None = None
    char_offsets: Sequence[int] | None = None

    @property
    def span(self) -> Span:
        """The token's position."""
        return _new_token(Span, (self[3], self[4]))

    def is_op(self, *ops: str) -> bool:
        """Whether this is one of the punctuation tokens ``ops``."""
        return self.kind is OP and self.text in ops

    def is_word(self, *words: str) -> bool:
        """Whether this is an identifier spelled as one of ``words``."""
        return self.kind is IDENT and self.text in words

    def is_raw_string(self) -> bool:
        """Whether this is a raw string literal ``r"..."`` (not interpolated)."""
        return self.kind is STRING and self.text[:1] == "r"

    def string_offsets(self) -> Sequence[int]:
        """The source offset of each decoded character of a string token
        (a ``range`` when no escape shifts them: no memory per character)."""
        if self.char_offsets is not None:
            return self.char_offsets
        start = self.offset + 1
        return range(start, start + len(str(self.value)))


_new_token = tuple.__new__


class Comment(NamedTuple):
    """A comment as written (``# ...``, ``// ...``, ``/// ...`` or ``/* ... */``)
    at character ``offset`` of the source, 1-based ``line`` and ``col``."""

    offset: int
    line: int
    col: int
    text: str

#: Words with a fixed meaning at the start of a statement. ``input``, ``cursor``
#: and ``over`` are soft: in expression position they are ordinary names.
HARD_KEYWORDS = frozenset({"const", "input", "extern", "shared", "volatile", "cursor", "over", "pragma", "for", "tile"})

#: ``true`` and ``false`` are bool literals wherever an expression can appear.
BOOL_WORDS = {"true": True, "false": False}

#: Spellings of an absent value. Polydat has no such literal (a value is
#: absent when an extern without a default is unset; ``default_or`` replaces
#: it), so these are reserved: reading or binding one is an error.
ABSENT_WORDS = frozenset({"none", "null", "None", "NULL"})

#: Words that can never name a value.
RESERVED_WORDS = frozenset(BOOL_WORDS) | ABSENT_WORDS

_SI_BINARY = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40, "P": 1 << 50}
_SI_DECIMAL = {"K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15}
_SI_SUBUNIT = {"m": 10**3, "u": 10**6, "n": 10**9}

_U64_MAX_HINT = ("the largest u64 is 18446744073709551615 (0xFFFFFFFFFFFFFFFF); "
                 'a larger u128 or i128 constant is text cast to it, e.g. "18446744073709551616" as u128')
_U64_DIGITS = len(str(U64_MAX))

_SPACE = r"[ \t\r\f\v]"
_NOT_IDENT = r"(?![A-Za-z0-9_])"
# Each match is optional spaces, then one alternative; the group numbers are
# the dispatch keys of Lexer.tokenize (m.lastindex).
_SCANNER = re.compile(
    f"{_SPACE}*(?:"
    + "|".join(
        [
            r"(\n[ \t\r\f\v\n]*)",  # 1 newlines (and the spaces after them)
            r"([A-Za-z_][A-Za-z0-9_]*)",  # 2 identifier
            r"(:=|->|\*\*|<<|>>|<=|>=|==|!=|&&|\|\||[-+*%&|^!<>=:,.()\[\]{}])",  # 3 operator but '/'
            r"(0[xX][0-9a-fA-F]*)",  # 4 hex integer
            r"([0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)"  # 5 decimal number ...
            rf"((?:[KMGTP]i|[KMGTPmund]){_NOT_IDENT})?",  # 6 ... and its SI suffix (or d: a decimal)
            r'(")',  # 7 double-quoted string: its opening quote (see string_end)
            r"(')",  # 8 single-quoted string: its opening quote
            r"(///(?!/)[^\n]*)",  # 9 doc comment
            r"((?://|#)[^\n]*)",  # 10 comment
            r"(/\*(?:[\s\S]*?\*/)?)",  # 11 block comment (just '/*' when unterminated)
            r"(/)",  # 12 division
            r"([^ \t\r\f\v])",  # 13 anything else: an unterminated quote or a stray character
        ]
    )
    + ")"
)
_WORD = r"[A-Za-z_][A-Za-z0-9_]*"
_ARG = rf"(?:{_WORD}|[0-9]{{1,19}})"  # a name or an integer below 10**19 (< 2**64)
#: A whole line ``name := f(arg, ...)`` of names and short integers.
SIMPLE_LINE = re.compile(
    rf"({_WORD})[ \t]*:=[ \t]*({_WORD})[ \t]*\([ \t]*({_ARG}(?:[ \t]*,[ \t]*{_ARG})*)[ \t]*\)[ \t]*(?=\r?\n|\Z)"
)
SIMPLE_ARG = re.compile(_ARG)
#: Words that keep a line off the fast path: keywords, ``if``, ``else``, ``as`` and the bool literals.
_NOT_SIMPLE = (HARD_KEYWORDS - {"input", "cursor", "over"}) | {"if", "else", "as"} | frozenset(BOOL_WORDS)
#: A binding may be named by a soft keyword (``input := ...``) but not by another keyword.
_NOT_SIMPLE_TARGET = HARD_KEYWORDS - {"input", "cursor", "over"}
#: After these words a line may continue the statement, so the next line is lexed token by token.
_OPEN_WORDS = HARD_KEYWORDS | {"if", "else", "as"}
_CLOSING = frozenset({")", "]", "}"})


def _ends_statement(tokens: list[Token]) -> bool:
    """Whether the last token surely ends a statement, so the next line starts one.

    It must be a closing bracket, a literal or a name that is not a keyword:
    after anything else (an operator, ``(``, ``,``, ``const``, ``as`` ...) the
    next line may still belong to the statement. Before the first token, yes.
    """
    if not tokens:
        return True
    last = tokens[-1]
    kind = last.kind
    if kind is IDENT:
        return last.text not in _OPEN_WORDS
    if kind is OP:
        return last.text in _CLOSING
    return kind is INT or kind is FLOAT or kind is DECIMAL or kind is STRING or kind is LINE or kind is TILE
_SURROGATE = re.compile("[\ud800-\udfff]")
_LEADING_SPACE = re.compile(r"[ \t\r\f\v]*")
_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\"}
#: The escapes a string literal decodes, per quote: ``\n``, ``\t``, ``\\`` and
#: the quote. Any other backslash pair stays as written (both characters),
#: and its second character is never a backslash, so scanning for these
#: pairs alone pairs backslashes as a left-to-right reading does.
_DECODED_ESCAPE = {q: re.compile(r"\\[nt\\" + q + "]") for q in "\"'"}


def string_end(text: str, start: int) -> int:
    """The index of the quote closing the string literal whose opening quote
    is ``text[start]``, or -1 when it is never closed: the first same quote
    after it preceded by an even number of backslashes. Each character is
    looked at a bounded number of times, and nothing is kept per character."""
    quote = text[start]
    find = text.find
    i = start + 1
    while True:
        end = find(quote, i)
        if end < 0:
            return -1
        k = end
        while k > start + 1 and text[k - 1] == "\\":
            k -= 1
        if (end - k) % 2 == 0:
            return end
        i = end + 1


class Lexer:
    """Turns a source text (or a slice of it) into tokens.

    ``file`` supplies diagnostics. When lexing a fragment of the file (an
    interpolated ``{expr}``), ``text`` is the fragment and ``offsets`` maps each
    of its characters to the offset in ``file.text`` it came from.
    """

    #: Whether simple binding lines become ``LINE`` tokens (off only to compare with token-by-token lexing).
    fast_lines = True

    def __init__(self, file: SourceFile, text: str | None = None, offsets: Sequence[int] | None = None):
        self.file = file
        self.text = file.text if text is None else text
        self.offsets = offsets
        self.tokens: list[Token] = []
        self.diagnostics: list[Diagnostic] = []
        #: Every comment of the text, in source order (not tokens: the parser never sees them).
        self.comments: list[Comment] = []

    def tokenize(self) -> list[Token]:
        """All tokens of the text, ending with an EOF token (errors in :attr:`diagnostics`).

        A line that is nothing but ``name := f(a, 1)`` (names and integers)
        becomes one ``LINE`` token when the line before it ends a statement
        for sure (a name, literal or closing bracket, not a keyword): the
        parser builds its binding directly. Everything else is scanned token
        by token.
        """
        text = self.text
        tokens = self.tokens
        append = tokens.append
        docs: list[str] = []
        line, line_start = 1, 0
        stopped = False
        lines = self.fast_lines and self.offsets is None  # not for interpolated fragments
        pos = 0
        if lines:  # a simple line first in the text
            lead = _LEADING_SPACE.match(text)
            indent = lead.end() if lead is not None else 0
            simple = SIMPLE_LINE.match(text, indent)
            if simple is not None and self._take_line(simple, 1, 0, docs):
                pos = simple.end()
        restart = True
        tile_pending = False  # after `tile`: the next `:=` on the line captures a raw body
        while restart:
            restart = False
            for m in _SCANNER.finditer(text, pos):
                group = cast(int, m.lastindex)  # every alternative is a group
                start = m.start(group)
                if group == 3 and self.offsets is None and (m.group(3) == "<<" or (tile_pending and m.group(3) == ":=")):
                    captured = self._raw_body(m, tile_pending, line, line_start, docs)
                    tile_pending = False
                    if captured is not None:
                        pos, line, line_start = captured
                        docs = []
                        restart = True
                        break
                if group == 2:
                    word = intern(m.group(2))  # one object per name: less memory, faster lookups
                    if word == "tile":
                        tile_pending = True
                    if docs:
                        doc: str | None = "\n".join(docs)
                        docs = []
                        append(_new_token(Token, (IDENT, word, start, line, start - line_start + 1, word, doc, None)))
                    else:
                        append(_new_token(Token, (IDENT, word, start, line, start - line_start + 1, word, None, None)))
                    continue
                if group == 1:
                    tile_pending = False
                    line += m.group(1).count("\n")
                    line_start = text.rfind("\n", start, m.end()) + 1
                    if lines and _ends_statement(tokens):
                        simple = SIMPLE_LINE.match(text, m.end())
                        if simple is not None and self._take_line(simple, line, line_start, docs):
                            docs = []
                            pos = simple.end()
                            restart = True
                            break
                    continue
                if group == 10:
                    self.comments.append(Comment(start, line, start - line_start + 1, m.group(10)))
                    continue
                if group == 9:
                    self.comments.append(Comment(start, line, start - line_start + 1, m.group(9)))
                    body = m.group(9)[3:]
                    docs.append(body[1:] if body.startswith(" ") else body)
                    continue
                if group == 11:
                    raw = m.group(11)
                    if len(raw) == 2:
                        self._error("unterminated block comment", start, line, start - line_start + 1,
                                    "close it with '*/'")
                        append(self._failed(text[start:], start, line, start - line_start + 1, None))
                        stopped = True
                        break
                    self.comments.append(Comment(start, line, start - line_start + 1, raw))
                    if "\n" in raw:
                        line += raw.count("\n")
                        line_start = text.rfind("\n", start, m.end()) + 1
                    continue
                doc = None
                if docs:
                    doc, docs = "\n".join(docs), []
                if group == 6:  # a number with an SI suffix starts at its digits
                    start = m.start(5)
                col = start - line_start + 1
                if group == 3 or group == 12:
                    append(_new_token(Token, (OP, m.group(group), start, line, col, None, doc, None)))
                elif group == 5 or group == 6:
                    append(self._number(m, start, line, col, doc))
                elif group == 7 or group == 8:
                    end = string_end(text, start)
                    if end < 0:
                        quote = m.group(group)
                        self._error("unterminated string literal", start, line, col,
                                    f"close the string with {quote}")
                        append(self._failed(text[start:], start, line, col, doc))
                        stopped = True
                        break
                    raw = text[start:end + 1]
                    prefix = tokens[-1] if tokens else None
                    if prefix is not None and prefix.kind is IDENT and prefix.text == "r" and prefix.offset + 1 == start:
                        append(self._raw_string(raw, tokens.pop()))
                    else:
                        append(self._string(raw, start, line, col, doc))
                    newlines = text.count("\n", start, end)
                    if newlines:
                        line += newlines
                        line_start = text.rfind("\n", start, end) + 1
                    pos = end + 1  # the scan resumes after the closing quote
                    restart = True
                    break
                elif group == 4:
                    append(self._hex(m.group(4), start, line, col, doc))
                else:  # group 13
                    append(self._unexpected(m.group(13), start, line, col, doc))
        end = len(text)
        if stopped:  # the EOF token sits at the end of the text all the same
            line = text.count("\n") + 1
            line_start = text.rfind("\n") + 1
        append(_new_token(Token, (EOF, "", end, line, end - line_start + 1, None, None, None)))
        if self.offsets is not None:
            self._map_to_source()
        return tokens

    def _raw_body(
        self, m: re.Match[str], after_tile: bool, line: int, line_start: int, docs: list[str]
    ) -> tuple[int, int, int] | None:
        """A body captured raw: a heredoc ``<<< ... >>>`` anywhere (a
        string), or after a tile header's ``:=`` a block ``{ ... }`` /
        ``[ ... ]`` or a heredoc (a ``TILE`` token). Appends the tokens and
        returns (position, line, line start) after them; None when there is
        nothing to capture here."""
        text = self.text
        op = m.group(3)
        start = m.start(3)
        if op == "<<":
            if after_tile or not text.startswith("<<<", start):
                return None
            captured = _capture_raw(text, start)
            if captured is None:
                return None
            body, offsets, end = captured
            col = start - line_start + 1
            doc = "\n".join(docs) if docs else None
            self.tokens.append(_new_token(Token, (STRING, text[start:end], start, line, col, body, doc, offsets)))
        elif op == ":=":
            q = m.end(3)
            while q < len(text) and text[q] in " \t\r\f\v\n":
                q += 1
            if not (text.startswith("<<<", q) or text[q:q + 1] in ("{", "[")):
                return None
            captured = _capture_raw(text, q)
            if captured is None:
                return None
            self.tokens.append(_new_token(Token, (OP, ":=", start, line, start - line_start + 1, None, None, None)))
            body, offsets, end = captured
            body_line = line + text.count("\n", start, q)
            body_start = text.rfind("\n", 0, q) + 1
            self.tokens.append(_new_token(Token, (TILE, text[q:end], q, body_line, q - body_start + 1, body, None, offsets)))
        else:
            return None
        return end, line + text.count("\n", start, end), text.rfind("\n", 0, end) + 1

    def _take_line(self, simple: re.Match[str], line: int, line_start: int, docs: list[str]) -> bool:
        """Append the ``LINE`` token of a simple binding line, unless a word keeps it off the fast path."""
        target, callee, args = simple.groups()
        if target in _NOT_SIMPLE_TARGET or callee in _NOT_SIMPLE:
            return False
        if "," not in args:
            if args in _NOT_SIMPLE:
                return False
        else:
            for word in SIMPLE_ARG.findall(args):
                if word in _NOT_SIMPLE:
                    return False
        start = simple.start()
        doc = "\n".join(docs) if docs else None
        self.tokens.append(_new_token(Token, (LINE, simple.group(), start, line, start - line_start + 1, simple,
                                              doc, None)))
        return True

    # -- errors ---------------------------------------------------------------

    def _error(self, message: str, offset: int, line: int, col: int, hint: str | None = None) -> None:
        if self.offsets is not None:  # a fragment: the caller only needs to know it failed
            span = Span(0, 0)
        else:
            span = Span(line, col)
        self.diagnostics.append(self.file.diagnostic(message, span, hint))

    def _failed(self, text: str, offset: int, line: int, col: int, doc: str | None) -> Token:
        return _new_token(Token, (ERROR, text, offset, line, col, None, doc, None))

    def _unexpected(self, c: str, offset: int, line: int, col: int, doc: str | None) -> Token:
        shown = c if c.isprintable() and not c.isspace() else f"U+{ord(c):04X}"
        hint = None
        if c == ";":
            hint = "statements need no terminator; remove the ';'"
        elif c == "$" or c == "@":
            hint = "template holes belong in tiles, which are not supported yet"
        elif not c.isascii():
            hint = "identifiers and operators are ASCII; non-ASCII text belongs in strings or comments"
        self._error(f"unexpected character '{shown}'", offset, line, col, hint)
        return self._failed(c, offset, line, col, doc)

    # -- strings -------------------------------------------------------------

    def _string(self, raw: str, offset: int, line: int, col: int, doc: str | None) -> Token:
        """A quoted string (``raw`` includes the quotes), its escapes decoded."""
        body = raw[1:-1]
        bad = _SURROGATE.search(body)
        if bad is not None:
            where = offset + 1 + bad.start()
            bad_line = line + body.count("\n", 0, bad.start())
            bad_col = col + 1 + bad.start() if bad_line == line else bad.start() - body.rfind("\n", 0, bad.start())
            self._error(
                f"a string literal cannot hold the lone surrogate U+{ord(bad.group()):04X}",
                where,
                bad_line,
                bad_col,
                "strings are Unicode text; a surrogate is half of a UTF-16 pair, not a character",
            )
            return self._failed(raw, offset, line, col, doc)
        if "\\" not in body:
            return _new_token(Token, (STRING, raw, offset, line, col, body, doc, None))
        # Decoded by slices between the decoded escapes; each decoded
        # character's source offset goes to an array (8 bytes a character).
        pieces: list[str] = []
        offsets = array("q")
        origin = offset + 1
        done = 0
        for escape in _DECODED_ESCAPE[raw[0]].finditer(body):
            at = escape.start()
            if at > done:
                pieces.append(body[done:at])
                offsets.extend(range(origin + done, origin + at))
            nxt = body[at + 1]
            pieces.append(_ESCAPES.get(nxt, nxt))
            offsets.append(origin + at)
            done = at + 2
        pieces.append(body[done:])
        offsets.extend(range(origin + done, origin + len(body)))
        return _new_token(Token, (STRING, raw, offset, line, col, "".join(pieces), doc, offsets))

    def _raw_string(self, raw: str, prefix: Token) -> Token:
        """A raw string ``r"..."`` (``raw`` is its quoted part, right after the
        ``r`` token ``prefix``): its text exactly as written between the
        quotes, no escape decoded (a ``\\`` before the quote still keeps it
        open) and never interpolated (see :meth:`Token.is_raw_string`)."""
        checked = self._string(raw, prefix.offset + 1, prefix.line, prefix.col + 1, prefix.doc)
        if checked.kind is ERROR:
            return checked
        return _new_token(Token, (STRING, "r" + raw, prefix.offset, prefix.line, prefix.col, raw[1:-1], prefix.doc,
                                  None))

    # -- numbers -------------------------------------------------------------

    def _number(self, m: re.Match[str], offset: int, line: int, col: int, doc: str | None) -> Token:
        digits = m.group(5)
        suffix = m.group(6)
        literal = m.group(5) + (suffix or "")
        if suffix == "d":
            if "e" in digits or "E" in digits:
                self._error(f"decimal literal {literal} has an exponent", offset, line, col,
                            "write a decimal literal's digits in full, e.g. 1500.25d")
                return self._failed(literal, offset, line, col, doc)
            return _new_token(Token, (DECIMAL, literal, offset, line, col, digits, doc, None))
        if "." in digits or "e" in digits or "E" in digits:
            return self._float(literal, digits, suffix, offset, line, col, doc)
        significant = digits.lstrip("0") or "0"
        if len(significant) > _U64_DIGITS:  # never convert a giant digit string
            return self._too_big(literal, offset, line, col, doc)
        value = int(significant)
        if value > U64_MAX:
            return self._too_big(literal, offset, line, col, doc)
        if suffix is None:
            return _new_token(Token, (INT, literal, offset, line, col, value, doc, None))
        if suffix in _SI_SUBUNIT:
            scaled_f = float(value) / float(_SI_SUBUNIT[suffix])
            return _new_token(Token, (FLOAT, literal, offset, line, col, scaled_f, doc, None))
        scaled = value * (_SI_BINARY[suffix[0]] if len(suffix) == 2 else _SI_DECIMAL[suffix])
        if scaled > U64_MAX:
            return self._too_big(literal, offset, line, col, doc)
        return _new_token(Token, (INT, literal, offset, line, col, scaled, doc, None))

    def _too_big(self, literal: str, offset: int, line: int, col: int, doc: str | None) -> Token:
        shown = literal if len(literal) <= 40 else f"{literal[:20]}... ({len(literal)} characters)"
        self._error(f"integer literal {shown} does not fit in u64", offset, line, col, _U64_MAX_HINT)
        return self._failed(literal, offset, line, col, doc)

    def _float(self, literal: str, digits: str, suffix: str | None, offset: int, line: int, col: int,
               doc: str | None) -> Token:
        value = float(digits)
        if not math.isinf(value) and suffix is not None:
            if suffix in _SI_SUBUNIT:
                value /= float(_SI_SUBUNIT[suffix])
            else:
                value *= float(_SI_BINARY[suffix[0]] if len(suffix) == 2 else _SI_DECIMAL[suffix])
        if math.isinf(value):
            shown = literal if len(literal) <= 40 else f"{literal[:20]}... ({len(literal)} characters)"
            self._error(f"float literal {shown} is out of range for f64", offset, line, col,
                        "the largest finite f64 is about 1.7976931348623157e308")
            return self._failed(literal, offset, line, col, doc)
        if suffix is not None and value.is_integer() and 0.0 <= value <= 18446744073709551616.0:
            return _new_token(Token, (INT, literal, offset, line, col, min(int(value), U64_MAX), doc, None))
        return _new_token(Token, (FLOAT, literal, offset, line, col, value, doc, None))

    def _hex(self, literal: str, offset: int, line: int, col: int, doc: str | None) -> Token:
        digits = literal[2:]
        if not digits:
            self._error("hex literal needs at least one digit after '0x'", offset, line, col)
            return self._failed(literal, offset, line, col, doc)
        significant = digits.lstrip("0") or "0"
        if len(significant) > 16:
            return self._too_big(literal, offset, line, col, doc)
        return _new_token(Token, (INT, literal, offset, line, col, int(significant, 16), doc, None))

    # -- fragments -----------------------------------------------------------

    def _map_to_source(self) -> None:
        """Re-position the tokens of a fragment at the source offsets they came from."""
        offsets = self.offsets or ()
        locate = self.file.locate

        def source(index: int) -> int:
            if not offsets:
                return 0
            return offsets[index] if index < len(offsets) else offsets[-1] + 1

        mapped = []
        for token in self.tokens:
            where = source(token.offset)
            span = locate(where)
            chars = token.char_offsets
            if token.kind is STRING:
                chars = tuple(source(i) for i in token.string_offsets())
            mapped.append(token._replace(offset=where, line=span.line, col=span.col, char_offsets=chars))
        self.tokens[:] = mapped


def _capture_raw(text: str, q: int) -> tuple[str, tuple[int, ...], int] | None:
    """The raw body starting at ``q``: a heredoc ``<<< ... >>>`` (one newline
    trimmed at each end; its text exact otherwise) or a ``{ ... }`` /
    ``[ ... ]`` block balanced outside double-quoted strings (the common
    leading whitespace of its lines after the first removed). Gives the body,
    the source offset of each of its characters, and the offset after it;
    None when it is not closed (the ordinary lexer then reports the text)."""
    if text.startswith("<<<", q):
        end = text.find(">>>", q + 3)
        if end < 0:
            return None
        lo, hi = q + 3, end
        if text.startswith("\r\n", lo):
            lo += 2
        elif text.startswith("\n", lo):
            lo += 1
        if hi > lo and text[hi - 1] == "\n":
            hi -= 1
            if hi > lo and text[hi - 1] == "\r":
                hi -= 1
        return text[lo:hi], tuple(range(lo, hi)), end + 3
    depth, i, quote = 0, q, False
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == '"':
                quote = False
        elif c == '"':
            quote = True
        elif c in "{[":
            depth += 1
        elif c in "}]":
            depth -= 1
            if depth == 0:
                break
        i += 1
    else:
        return None
    end = i + 1
    lines = text[q:end].split("\n")
    rest = [ln for ln in lines[1:] if ln.strip()]
    indent = min((len(ln) - len(ln.lstrip(" \t")) for ln in rest), default=0)
    body: list[str] = []
    offsets: list[int] = []
    at = q
    for k, ln in enumerate(lines):
        cut = 0 if k == 0 else min(indent, len(ln) - len(ln.lstrip(" \t")))
        if k:
            body.append("\n")
            offsets.append(at - 1)
        body.append(ln[cut:])
        offsets.extend(range(at + cut, at + len(ln)))
        at += len(ln) + 1
    return "".join(body), tuple(offsets), end


def expand_line(token: Token) -> list[Token]:
    """The tokens a ``LINE`` token stands for, at their positions in the source."""
    inner = Lexer(SourceFile(token.text))
    inner.fast_lines = False
    shift, col = token.offset, token.col - 1
    expanded = [
        t._replace(offset=t.offset + shift, line=token.line, col=t.col + col) for t in inner.tokenize()[:-1]
    ]
    expanded[0] = expanded[0]._replace(doc=token.doc)
    return expanded


def tokenize(source: str | SourceFile, path: str | None = None) -> list[Token]:
    """Tokenize a whole source text (raises CompileError carrying every lexical error)."""
    file = source if isinstance(source, SourceFile) else SourceFile(source, path)
    lexer = Lexer(file)
    tokens = lexer.tokenize()
    if lexer.diagnostics:
        raise CompileError(lexer.diagnostics[0], tuple(lexer.diagnostics[1:]))
    return tokens


def describe_token(token: Token) -> str:
    """How a token reads in "expected X but found Y" messages."""
    if token.kind is EOF:
        return "end of input"
    if token.kind is OP:
        return f"'{token.text}'"
    if token.kind is IDENT:
        if token.text in HARD_KEYWORDS:
            return f"keyword '{token.text}'"
        return f"identifier '{token.text}'"
    if token.kind is STRING:
        text = token.text if len(token.text) <= 24 else token.text[:21] + "..."
        return f"string {text}"
    if token.kind is ERROR:
        return "invalid text"
    if token.kind is LINE:  # it reads as the line's first token
        return describe_token(expand_line(token)[0])
    return f"number '{token.text}'"
