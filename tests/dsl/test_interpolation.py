"""String interpolation: ``{expr}`` desugars to printf; everything else stays literal."""

from __future__ import annotations

import pytest

from dsl_helpers import producer, tree, output_types
from polydat.dsl.interpolation import Placeholder, scan_segments


def test_simple_interpolation(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind("input cycle\nlabel := \"user-{cycle}\"")
    assert tree(bound, "label") == ("printf", ("const", "user-{}"), "cycle")
    assert output_types(bound)["label"] == "str"


def test_full_expressions_inside_braces(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind('input cycle\nlabel := "{format_u64(hash(cycle), 16)}@{cycle + 1}.example"')
    assert tree(bound, "label") == (
        "printf",
        ("const", "{}@{}.example"),
        ("format_u64", ("hash", "cycle"), ("const", 16)),
        ("__add", "cycle", 1),
    )


def test_single_quoted_strings_interpolate(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind("input a\nx := 'a={a}'")
    assert tree(bound, "x") == ("printf", ("const", "a={}"), "a")


def test_escaped_braces_stay_printf_escapes(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind('input a\nx := "{{{a}}}"')
    assert tree(bound, "x") == ("printf", ("const", "{{{}}}"), "a")


def test_string_without_placeholders_is_kept_verbatim(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind('x := "{{literal}}"\ny := "no braces"')
    assert tree(bound, "x") == "{{literal}}"
    assert tree(bound, "y") == "no braces"


@pytest.mark.parametrize(
    "text",
    ["{:05}", "x={:05}", "{}", "{ }", "{a b}", "{1 +}", "{a}{:x}"],
)
def test_invalid_placeholders_leave_the_literal_untouched(bind, text: str) -> None:  # type: ignore[no-untyped-def]
    bound = bind(f'x := "{text}"')
    assert tree(bound, "x") == text
    assert bound.input_names == ()


@pytest.mark.parametrize("text", ["x{id", "missing close {abc", "{f(1)", "a{{b}} {c"])
def test_an_unclosed_placeholder_is_an_error(compile_error, bind, text: str) -> None:  # type: ignore[no-untyped-def]
    """It silently became the literal text (upstream's reading): `"x{id"` gave `x{id` on every row."""
    err = compile_error(f'input id\nx := "{text}"')
    assert err.message == "a '{' in this string opens a placeholder that is never closed"
    assert (err.line, err.col) == (2, 6)
    assert "'{{'" in err.hint and 'r"' in err.hint
    assert tree(bind('x := r"x{id"'), "x") == "x{id"  # a raw string never interpolates
    assert tree(bind('x := "{"\ny := "a { b"'), "y") == "a { b"  # a brace that starts no expression is text


def test_string_aware_placeholder_scan(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind('input a\nx := "<{one_of(a, \\"}\\", \\"{\\")}>"')
    assert tree(bound, "x") == ("printf", ("const", "<{}>"), ("one_of", "a", ("const", "}"), ("const", "{")))


def test_nested_interpolation(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind("input a\nx := \"[{'<{a}>'}]\"")
    assert tree(bound, "x") == ("printf", ("const", "[{}]"), ("printf", ("const", "<{}>"), "a"))


def test_names_in_placeholders_are_free_names(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind('label := "{tenant}/{region}"')
    assert bound.input_names == ("tenant", "region")


def test_interpolated_errors_point_inside_the_string(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error('input a\nx := "value: {hsah(a)}"')
    assert err.message == "unknown node 'hsah'"
    assert (err.line, err.col) == (2, 15)


def test_interpolation_printf_span_is_the_string(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind('input a\nx := "v{a}"')
    assert producer(bound, "x")["span"] == {"line": 2, "col": 6}


def test_scan_segments() -> None:
    assert scan_segments("a{b}c") == ["a", Placeholder(2, 3), "c"]
    assert scan_segments("{{x}}") == ["{{x}}"]
    assert scan_segments("{f(\"}\")}") == [Placeholder(1, 7)]
    assert scan_segments("open {") is None
    assert scan_segments("a } b") == ["a } b"]
