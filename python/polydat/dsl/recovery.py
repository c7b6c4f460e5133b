"""Token scanning for the parser: lookahead over the token list, and recovery after a failed statement.

A statement that does not parse is reported and skipped: parsing resumes at
the next line that starts like a statement (``name :=``, a declaration, a
tuple target list, a module definition), or after the closing ``}`` of a
module definition that failed. The names the skipped statement would have
bound are kept so that their readers are not reported again.
"""

from __future__ import annotations

from .grammar import MODIFIERS, SOFT_KEYWORDS
from .lexer import HARD_KEYWORDS, Token, TokenKind

_LINE = TokenKind.LINE


class TokenScanning:
    """Lookahead over the parser's token list (which ends with EOF copies)."""

    tokens: list[Token]

    def _looks_like_targets(self, pos: int) -> bool:
        """Whether tokens at ``pos`` read ``( name, ... ) :=``."""
        tokens = self.tokens
        i = pos + 1
        if i >= len(tokens) or tokens[i].kind is not TokenKind.IDENT:
            return False
        while True:
            if i >= len(tokens) or tokens[i].kind is not TokenKind.IDENT:
                return False
            i += 1
            if i < len(tokens) and tokens[i].is_op(","):
                i += 1
                continue
            break
        return i + 1 < len(tokens) and tokens[i].is_op(")") and tokens[i + 1].is_op(":=")

    def _is_module_def_at(self, start: int) -> bool:
        """Whether ``name ( ... ) ->`` starts at token ``start`` (scans to the matching ')')."""
        close = self._matching_paren(start + 1)
        return close is not None and self.tokens[close + 1].is_op("->")

    def _anonymous_module_at(self, start: int) -> bool:
        """Whether ``( ... ) ->`` starts at token ``start`` (an anonymous module definition)."""
        close = self._matching_paren(start)
        return close is not None and self.tokens[close + 1].is_op("->")

    def _matching_paren(self, open_index: int) -> int | None:
        """The index of the ')' closing the '(' at ``open_index`` (None at end of input)."""
        tokens = self.tokens
        depth = 0
        for i in range(open_index, len(tokens)):
            token = tokens[i]
            if token.kind is TokenKind.OP:
                if token.text == "(":
                    depth += 1
                elif token.text == ")":
                    depth -= 1
                    if depth == 0:
                        return i
        return None



class Recovery(TokenScanning):
    """Where to resume after a failed statement, and what it would have bound."""

    unparsed_names: set[str]
    unparsed_modules: set[str]

    def _at(self, index: int) -> Token:
        """Token ``index``, or EOF past the end."""
        tokens = self.tokens
        return tokens[index] if index < len(tokens) else tokens[-1]

    def _note_unparsed(self, start: int) -> None:
        """Remember what the statement starting at token ``start`` would have bound."""
        at = self._at
        i = start
        while at(i).is_word(*MODIFIERS):
            i += 1
        first = at(i)
        if first.is_word("input", "extern") and not at(i + 1).is_op(":="):
            if at(i + 1).kind is TokenKind.IDENT:
                self.unparsed_names.add(at(i + 1).text)
            elif first.text == "input" and at(i + 1).is_op("("):
                # input (a: T, b, ...): every name after '(' or ',' up to the ')'
                j = i + 1
                while at(j).is_op("(", ",") and at(j + 1).kind is TokenKind.IDENT:
                    self.unparsed_names.add(at(j + 1).text)
                    j += 2
                    if at(j).is_op(":"):
                        j += 2
        elif first.is_word("tile") and at(i + 1).kind is TokenKind.IDENT:
            self.unparsed_names.add(at(i + 1).text)
        elif first.kind is TokenKind.IDENT and at(i + 1).is_op(":=", ":"):
            self.unparsed_names.add(first.text)
        elif first.is_op("(") and self._looks_like_targets(i):
            j = i + 1
            while at(j).kind is TokenKind.IDENT:
                self.unparsed_names.add(at(j).text)
                j += 2 if at(j + 1).is_op(",") else 1
        elif first.kind is TokenKind.IDENT and at(i + 1).is_op("(") and self._is_module_def_at(i):
            self.unparsed_modules.add(first.text)

    def _resume_point(self, start: int) -> int:
        """Where to continue after the statement at ``start`` failed (always past ``start``)."""
        at = self._at
        first = at(start)
        if first.is_word("for"):
            after = self._after_for_body(start)
            if after is not None:
                return after
        if first.kind is TokenKind.IDENT and at(start + 1).is_op("(") and self._is_module_def_at(start):
            after = self._after_module_body(start)
            if after is not None:
                return after
        last = len(self.tokens) - 1
        i = start + 1
        while i < last:
            if at(i).line > at(i - 1).line and self._starts_statement(i):
                return i
            i += 1
        return last

    def _starts_statement(self, i: int) -> bool:
        """Whether the tokens at ``i`` read like the start of a statement."""
        at = self._at
        token = at(i)
        if token.kind is _LINE:
            return True
        if token.is_op("("):
            return self._looks_like_targets(i)
        if token.kind is not TokenKind.IDENT:
            return False
        nxt = at(i + 1)
        if token.text in ("for", "pragma", "tile"):
            return not nxt.is_op(":=")
        if token.text in MODIFIERS or token.text == "extern":
            return nxt.kind is TokenKind.IDENT or nxt.is_op("(")
        if token.text == "input" and not nxt.is_op(":="):
            return nxt.kind is TokenKind.IDENT or nxt.is_op("(")
        if token.text in HARD_KEYWORDS and token.text not in SOFT_KEYWORDS:
            return False
        if nxt.is_op(":="):
            return True
        if nxt.is_op(":"):
            return i + 3 < len(self.tokens) and at(i + 2).kind is TokenKind.IDENT and at(i + 3).is_op(":=")
        return nxt.is_op("(") and self._is_module_def_at(i)

    def _after_for_body(self, start: int) -> int | None:
        """The token after the ``}`` closing the body of the ``for`` at ``start``."""
        at = self._at
        i = start + 1
        while at(i).kind is not TokenKind.EOF and at(i).line == at(start).line:
            if at(i).is_op("{") and not (at(i + 1).kind is TokenKind.IDENT and at(i + 2).is_op("}")):
                break
            i += 1
        if not at(i).is_op("{"):
            return None
        depth = 0
        for j in range(i, len(self.tokens)):
            if at(j).is_op("{"):
                depth += 1
            elif at(j).is_op("}"):
                depth -= 1
                if depth == 0:
                    return j + 1
        return len(self.tokens) - 1

    def _after_module_body(self, start: int) -> int | None:
        """The token after the ``}`` closing the body of the module defined at ``start``."""
        at = self._at
        i = self._matching_paren(start + 1)
        if i is None or not at(i + 1).is_op("->"):
            return None
        i += 2
        if at(i).is_op("("):
            i = self._matching_paren(i)
            if i is None:
                return None
        i += 1
        if not (at(i).is_op(":=") and at(i + 1).is_op("{")):
            return None
        depth = 0
        for j in range(i + 1, len(self.tokens)):
            if at(j).is_op("{"):
                depth += 1
            elif at(j).is_op("}"):
                depth -= 1
                if depth == 0:
                    return j + 1
        return len(self.tokens) - 1
