"""Raw string literals ``r"..."``: no escapes decoded, no ``{...}``
interpolation, so a regular expression keeps its counted repetitions."""

from __future__ import annotations

import pytest

import polydat
from polydat import CompileError
from polydat.dsl.lexer import TokenKind, tokenize


def value(source: str, name: str = "x") -> object:
    return polydat.compile(source).kernel().pull(name)


def test_a_counted_repetition_survives_in_a_raw_string() -> None:
    assert value('x := matches("123", r"^\\d{3}$")') == "123"
    with pytest.raises(CompileError, match="does not match"):
        value('x := matches("12", r"^\\d{3}$")')


def test_a_raw_string_neither_decodes_escapes_nor_interpolates() -> None:
    assert value('y := 7\nx := r"a\\n{y}\\\\b"') == "a\\n{y}\\\\b"
    assert value("x := r'{{1}}'") == "{{1}}"
    assert value('y := 7\nx := "{y}"') == "7", "a plain string still interpolates"


def test_a_raw_string_is_one_token_only_when_the_quote_follows_r() -> None:
    raw = tokenize('r"\\d{2}"')
    assert [t.kind for t in raw] == [TokenKind.STRING, TokenKind.EOF]
    assert raw[0].value == "\\d{2}" and (raw[0].line, raw[0].col) == (1, 1)
    spaced = tokenize('r "x"')
    assert [t.kind for t in spaced[:2]] == [TokenKind.IDENT, TokenKind.STRING]


def test_a_regex_node_reads_a_raw_pattern_in_an_interpolated_string() -> None:
    src = 'code := "ab{mod(7, 10)}"\nx := matches(code, r"^[a-z]{2}\\d$")'
    assert value(src) == "ab7"
