"""Lexical edge cases that used to escape as Python builtins instead of CompileErrors."""

from __future__ import annotations

import pytest

from polydat import dsl
from polydat.dsl.lexer import TokenKind, tokenize
from polydat.errors import CompileError


@pytest.mark.parametrize("digits", [4301, 5000, 100_000])
def test_a_giant_integer_literal_is_a_compile_error(catalog, digits: int) -> None:  # type: ignore[no-untyped-def]
    source = "input c\nx := " + "7" * digits + " + c\n"
    (diagnostic,) = dsl.check(source, catalog=catalog)
    assert (diagnostic.line, diagnostic.col) == (2, 6)
    assert diagnostic.message == f"integer literal {'7' * 20}... ({digits} characters) does not fit in u64"
    assert "18446744073709551615" in (diagnostic.hint or "")
    with pytest.raises(CompileError):
        dsl.bind(source, catalog=catalog)


@pytest.mark.parametrize("literal", ["1" + "0" * 5000 + "K", "0x" + "f" * 5000, "0" * 5000 + "18446744073709551616"])
def test_other_giant_integers(literal: str) -> None:
    with pytest.raises(CompileError) as info:
        tokenize(f"x := {literal}")
    assert info.value.message.endswith("does not fit in u64")


def test_leading_zeros_do_not_count() -> None:
    ((kind, value),) = [(t.kind, t.value) for t in tokenize("0" * 5000 + "42")[:-1]]
    assert (kind, value) == (TokenKind.INT, 42)
    ((kind, value),) = [(t.kind, t.value) for t in tokenize("0x" + "0" * 5000 + "ff")[:-1]]
    assert (kind, value) == (TokenKind.INT, 255)


def test_a_giant_float_literal_is_fine_or_out_of_range() -> None:
    ((kind, value),) = [(t.kind, t.value) for t in tokenize("1" * 300 + ".5")[:-1]]
    assert kind is TokenKind.FLOAT and value > 1e299
    with pytest.raises(CompileError) as info:
        tokenize("x := " + "1" * 5000 + ".0")
    assert info.value.message == f"float literal {'1' * 20}... (5002 characters) is out of range for f64"


@pytest.mark.parametrize("surrogate", ["\ud800", "\udfff", "\ud83d\ude00"])
def test_a_lone_surrogate_in_a_string_is_a_compile_error(catalog, surrogate: str) -> None:  # type: ignore[no-untyped-def]
    source = f'input c\nx := "ab{surrogate}c"\ny := hsah(c)'
    found = dsl.check(source, catalog=catalog)
    assert [(d.line, d.col) for d in found] == [(2, 9), (3, 6)]
    assert found[0].message == f"a string literal cannot hold the lone surrogate U+{ord(surrogate[0]):04X}"
    assert found[0].source_line == 'x := "ab\ufffd' + ("\ufffd" if len(surrogate) == 2 else "") + 'c"'
    str(found[0]).encode("utf-8")  # the rendered diagnostic is printable


def test_a_surrogate_on_a_later_line_of_a_string() -> None:
    with pytest.raises(CompileError) as info:
        tokenize('x := "a\n  b\ud800"')
    assert (info.value.line, info.value.col) == (2, 4)


LONG = 1 << 18  # characters: plenty to tell bytes from hundreds of bytes per character


@pytest.mark.parametrize(
    "body, bytes_per_char",
    [
        ("abcd", 8),  # no escape: the token's text and value, nothing per character
        ("a\\nb\\\\", 32),  # escapes: decoded by slices, one 8-byte offset per character
        ("\\n", 32),  # nothing but escapes
        ("a\\\"b\\'", 32),  # the quote escaped, the other quote kept as written
    ],
)
def test_a_long_string_literal_costs_a_few_bytes_per_character(catalog, body: str, bytes_per_char: int) -> None:  # type: ignore[no-untyped-def]
    """Lexing (and binding, with one placeholder) a long string literal peaks
    at a small multiple of its length: the string pattern used to keep
    hundreds of bytes of backtracking state per character (10 MB literal,
    3.3 GB)."""
    import tracemalloc

    source = f'input cycle: u64\ns := "{(body * LONG)[:LONG]}{{cycle}}"\n'
    for step in (tokenize, lambda s: dsl.bind(s, catalog=catalog)):
        tracemalloc.start()
        try:
            step(source)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < bytes_per_char * LONG, f"{peak / LONG:.1f} bytes per character"


@pytest.mark.parametrize(
    "text, decoded",
    [
        (r'"a\\"', "a\\"),  # an even run of backslashes before the quote: the quote closes
        (r'"a\\\"b"', 'a\\"b'),  # an odd run: the quote is escaped
        (r'"\\\\"', "\\\\"),
        (r"'\\\''", "\\'"),
        ('"line\\n\none"', "line\n\none"),
    ],
)
def test_a_string_ends_at_the_first_unescaped_quote(text: str, decoded: str) -> None:
    tokens = tokenize(f"{text} x")
    assert [(t.kind, t.value) for t in tokens[:-1]] == [(TokenKind.STRING, decoded), (TokenKind.IDENT, "x")]


def test_each_decoded_character_maps_to_its_source_character() -> None:
    source = 's := "a\\nb\\\\c\\"d\\qe{x}"'
    (token,) = [t for t in tokenize(source) if t.kind is TokenKind.STRING]
    assert token.value == 'a\nb\\c"d\\qe{x}'
    # a, \n (its backslash), b, \\ (the first backslash), c, \" (its backslash), d, the \q kept as written, ...
    assert list(token.string_offsets()) == [6, 7, 9, 10, 12, 13, 15, 16, 17, 18, 19, 20, 21]
