"""Lexer: numbers, SI suffixes, strings and escapes, comments, positions."""

from __future__ import annotations

import pytest

from polydat.dsl.diagnostics import SourceFile
from polydat.errors import CompileError
from polydat.dsl.lexer import Lexer, TokenKind, tokenize


def kinds_values(text: str) -> list[tuple[TokenKind, object]]:
    return [(t.kind, t.value if t.kind is not TokenKind.OP else t.text) for t in tokenize(text)[:-1]]


def one(text: str) -> tuple[TokenKind, object]:
    tokens = tokenize(text)
    assert len(tokens) == 2, tokens
    return tokens[0].kind, tokens[0].value


@pytest.mark.parametrize(
    "text, value",
    [
        ("0", 0),
        ("42", 42),
        ("1710000000000", 1710000000000),
        ("0xFF", 255),
        ("0Xff", 255),
        ("0xFFFFFFFFFFFFFFFF", 2**64 - 1),
        ("18446744073709551615", 2**64 - 1),
    ],
)
def test_integers(text: str, value: int) -> None:
    assert one(text) == (TokenKind.INT, value)


@pytest.mark.parametrize(
    "text, value",
    [
        ("1.0", 1.0),
        ("3.14", 3.14),
        ("1e10", 1e10),
        ("1E10", 1e10),
        ("2.5e3", 2500.0),
        ("3.14e-2", 0.0314),
        ("3E+5", 3e5),
        ("1e-300", 1e-300),
    ],
)
def test_floats(text: str, value: float) -> None:
    kind, got = one(text)
    assert kind is TokenKind.FLOAT and got == value


def test_float_needs_digit_after_point() -> None:
    assert kinds_values("1.") == [(TokenKind.INT, 1), (TokenKind.OP, ".")]
    assert kinds_values(".5") == [(TokenKind.OP, "."), (TokenKind.INT, 5)]


def test_exponent_without_digits_is_an_identifier() -> None:
    assert kinds_values("1e") == [(TokenKind.INT, 1), (TokenKind.IDENT, "e")]


def test_no_underscore_separators() -> None:
    assert kinds_values("1_000") == [(TokenKind.INT, 1), (TokenKind.IDENT, "_000")]


@pytest.mark.parametrize(
    "text, kind, value",
    [
        ("1K", TokenKind.INT, 1000),
        ("1M", TokenKind.INT, 10**6),
        ("1G", TokenKind.INT, 10**9),
        ("1T", TokenKind.INT, 10**12),
        ("1P", TokenKind.INT, 10**15),
        ("1Ki", TokenKind.INT, 1024),
        ("2Mi", TokenKind.INT, 2 * 2**20),
        ("1Gi", TokenKind.INT, 2**30),
        ("1Ti", TokenKind.INT, 2**40),
        ("1Pi", TokenKind.INT, 2**50),
        ("1.5K", TokenKind.INT, 1500),
        ("1.5G", TokenKind.INT, 1_500_000_000),
        ("5m", TokenKind.FLOAT, 0.005),
        ("3u", TokenKind.FLOAT, 3 / 1e6),
        ("7n", TokenKind.FLOAT, 7 / 1e9),
        ("1.5m", TokenKind.FLOAT, 1.5 / 1000),
        ("0.0001K", TokenKind.FLOAT, 0.0001 * 1000.0),
        ("1000m", TokenKind.FLOAT, 1.0),
        ("2000.0m", TokenKind.INT, 2),
    ],
)
def test_si_suffixes(text: str, kind: TokenKind, value: object) -> None:
    assert one(text) == (kind, value)


def test_si_suffix_only_when_not_followed_by_identifier_chars() -> None:
    assert kinds_values("1Kilometers") == [(TokenKind.INT, 1), (TokenKind.IDENT, "Kilometers")]
    assert kinds_values("5min") == [(TokenKind.INT, 5), (TokenKind.IDENT, "min")]
    assert kinds_values("2Kix") == [(TokenKind.INT, 2), (TokenKind.IDENT, "Kix")]


def test_si_suffix_followed_by_operator() -> None:
    assert kinds_values("4K+1") == [(TokenKind.INT, 4000), (TokenKind.OP, "+"), (TokenKind.INT, 1)]


@pytest.mark.parametrize(
    "text",
    ["18446744073709551616", "0x10000000000000000", "20000P", "99999999999999999999999"],
)
def test_integer_overflow_is_a_diagnostic(text: str) -> None:
    with pytest.raises(CompileError) as info:
        tokenize(f"x := {text}")
    err = info.value
    assert err.message == f"integer literal {text} does not fit in u64"
    assert (err.line, err.col) == (1, 6)
    assert "18446744073709551615" in (err.hint or "")


def test_hex_needs_digits() -> None:
    with pytest.raises(CompileError) as info:
        tokenize("x := 0x")
    assert info.value.message == "hex literal needs at least one digit after '0x'"


def test_float_overflow_is_a_diagnostic() -> None:
    with pytest.raises(CompileError) as info:
        tokenize("x := 1e999")
    assert "out of range" in info.value.message


@pytest.mark.parametrize(
    "text, decoded",
    [
        (r'"plain"', "plain"),
        (r"'single'", "single"),
        (r'"a\nb"', "a\nb"),
        (r'"a\tb"', "a\tb"),
        (r'"back\\slash"', "back\\slash"),
        (r'"say \"hi\""', 'say "hi"'),
        (r"'it\'s'", "it's"),
        (r'"keep \x and \r"', "keep \\x and \\r"),
        (r"'other \"quote\"'", 'other \\"quote\\"'),
        (r'"don\'t"', "don\\'t"),
        ('"multi\nline"', "multi\nline"),
        ('""', ""),
    ],
)
def test_strings_and_escapes(text: str, decoded: str) -> None:
    assert one(text) == (TokenKind.STRING, decoded)


def test_unterminated_string() -> None:
    with pytest.raises(CompileError) as info:
        tokenize('x := "abc')
    err = info.value
    assert err.message == "unterminated string literal"
    assert (err.line, err.col) == (1, 6)
    assert err.hint == 'close the string with "'


def test_comments_are_skipped() -> None:
    text = """# hash comment
a // line comment
/* block
   comment */ b /* inline */ c
/// doc comment
d"""
    assert [t.text for t in tokenize(text)[:-1]] == ["a", "b", "c", "d"]


def test_block_comments_do_not_nest() -> None:
    assert [t.text for t in tokenize("/* a /* b */ c */")[:-1]] == ["c", "*", "/"]


def test_unterminated_block_comment() -> None:
    with pytest.raises(CompileError) as info:
        tokenize("a /* never closed")
    assert info.value.message == "unterminated block comment"
    assert (info.value.line, info.value.col) == (1, 3)


def test_doc_comments_attach_to_the_next_token() -> None:
    tokens = tokenize("/// first\n/// second\nx := 1\ny := 2")
    assert tokens[0].doc == "first\nsecond"
    assert tokens[3].doc is None


def test_operators_longest_match() -> None:
    text = ":= -> ** << >> <= >= == != && || + - * / % & | ^ ! < > = : , . ( ) [ ] { }"
    assert [t.text for t in tokenize(text)[:-1]] == text.split()


def test_slash_is_division_unless_a_comment() -> None:
    assert [t.text for t in tokenize("a / b // c")[:-1]] == ["a", "/", "b"]


def test_positions_are_one_based_lines_and_columns() -> None:
    tokens = tokenize("a := 1\n  bb := 22")
    assert [(t.text, t.span.line, t.span.col) for t in tokens[:-1]] == [
        ("a", 1, 1), (":=", 1, 3), ("1", 1, 6), ("bb", 2, 3), (":=", 2, 6), ("22", 2, 9),
    ]


def test_unexpected_character() -> None:
    with pytest.raises(CompileError) as info:
        tokenize("x := 1;")
    err = info.value
    assert err.message == "unexpected character ';'"
    assert (err.line, err.col) == (1, 7)
    assert err.hint == "statements need no terminator; remove the ';'"


def test_unexpected_non_ascii_character() -> None:
    with pytest.raises(CompileError) as info:
        tokenize("x := π")
    assert info.value.message == "unexpected character 'π'"
    assert "ASCII" in (info.value.hint or "")


def test_fragment_lexing_maps_positions_back_to_the_source() -> None:
    file = SourceFile('x := "{a + b}"')
    offsets = tuple(range(7, 12))
    tokens = Lexer(file, "a + b", offsets).tokenize()
    assert [(t.text, t.span.col) for t in tokens[:-1]] == [("a", 8), ("+", 10), ("b", 12)]
