"""`check` reports every error of a file, not only the first; `bind` raises them together."""

from __future__ import annotations

import pytest

from polydat import dsl
from polydat.errors import CompileError


def errors(catalog, source: str, **options) -> list[tuple[int, int, str]]:  # type: ignore[no-untyped-def]
    return [(d.line, d.col, d.message) for d in dsl.check(source, catalog=catalog, **options) if d.severity == "error"]


def test_every_binder_error_is_reported_in_source_order(catalog) -> None:  # type: ignore[no-untyped-def]
    source = (
        "input c\n"
        "a := hsah(c)\n"              # unknown node
        "b := a + 1\n"                # reads a failed name: no second error
        "d := hsah2(c, c)\n"          # another unknown node
        "e := unit_interval(c) as u64\n"
        "f := b + d + e\n"            # reads three failed names: nothing
        "g := hash(c)\n"
        "g := 2\n"                    # bound twice
        "h := 'x' - 1\n"
    )
    import polydat

    every = [
        (2, 6, "unknown node 'hsah'"),
        (4, 6, "unknown node 'hsah2'"),
        (5, 23, "cannot cast f64 to u64 with 'as'"),
        (8, 1, "'g' is already bound"),
        (9, 10, "operator '-' is not defined for str and u64"),
    ]
    # The frontend's own errors; the typing errors (the cast, the operator) are the core's.
    assert errors(catalog, source) == [every[0], every[1], every[3]]
    assert [(d.line, d.col, d.message) for d in polydat.check(source) if d.severity == "error"] == every
    with pytest.raises(CompileError) as info:
        polydat.compile(source)
    assert [(d.line, d.col, d.message) for d in info.value.diagnostics] == every
    assert info.value.message == "unknown node 'hsah'"
    assert str(info.value).count(":error:") == 5


def test_a_constant_position_takes_constant_expressions_and_refuses_others() -> None:
    import polydat

    ok = polydat.compile("input c\nconst users := 1000\nd := mod(c, users * 10)")
    k = ok.kernel()
    k.set_inputs(123456)
    assert k.pull("d") == 123456 % 10000
    diagnostics = polydat.check("input c\nd := mod(c, c)")
    assert [d.message for d in diagnostics] == [
        "parameter `modulus` of `mod` must be a constant expression, but it reads input 'c'"
    ]
    assert "mod_wire" in (diagnostics[0].hint or "")


def test_declaration_errors_and_cycles_do_not_stop_the_binder(catalog) -> None:  # type: ignore[no-untyped-def]
    source = (
        "input a: u46\n"
        "extern e: f64 = \"x\"\n"
        "p := q\nq := p\n"
        "r := a + e + p\n"
        "s := hsah(1)\n"
    )
    import polydat

    assert [m for _, _, m in errors(catalog, source)] == [
        "unknown type 'u46'",
        "cycle between bindings: p -> q -> p",
        "unknown node 'hsah'",
    ]
    # The default is typed by the core, which reports it with the frontend's errors.
    assert [d.message for d in polydat.check(source) if d.severity == "error"] == [
        "unknown type 'u46'",
        "extern 'e' is declared f64 but its default is a string literal \"x\"",
        "cycle between bindings: p -> q -> p",
        "unknown node 'hsah'",
    ]


def test_module_body_errors_are_reported_once_each(catalog) -> None:  # type: ignore[no-untyped-def]
    source = (
        "m(a) -> (y, z) := { y := hsah(a)\nz := a +* 2 }\n"
        "input c\n(p, q) := m(c)\n(s, t) := m(c)\nu := bad(c)\n"
    )
    # A module whose body does not parse is reported once; its calls fail quietly.
    assert [m for _, _, m in errors(catalog, source)] == ["expected an expression but found '*'", "unknown node 'bad'"]
    source = "m(a) -> (y, z) := { y := hsah(a)\nz := to_u64(a) }\ninput c\n(p, q) := m(c)\n(s, t) := m(c)\nu := bad(c)\n"
    assert [m for _, _, m in errors(catalog, source)] == [
        "unknown node 'hsah'", "unknown node 'to_u64'", "unknown node 'bad'",
    ]


def test_parse_errors_recover_at_the_next_statement(catalog) -> None:  # type: ignore[no-untyped-def]
    source = (
        "input c\n"
        "a := hash(\n"                # never closed: the next line starts a statement
        "b := (c +\n"
        "d := hsah(c)\n"              # a binder error after two parse errors
        "e := a + b + d\n"            # reads names whose statements failed
        "f := 1 2\n"
        "g := hash(c)\n"
    )
    assert errors(catalog, source) == [
        (3, 3, "expected ',' or ')' but found ':='"),
        (4, 3, "expected ')' but found ':='"),
        (4, 6, "unknown node 'hsah'"),
        (6, 8, "a bare expression is not a statement"),
    ]


def test_a_broken_module_definition_is_skipped_whole(catalog) -> None:  # type: ignore[no-untyped-def]
    source = "m(a) -> (y) := {\n  y := a +\n}\ninput c\nx := m(c)\nz := hsah(c)\n"
    assert [m for _, _, m in errors(catalog, source)] == [
        "expected an expression but found '}'", "unknown node 'hsah'",
    ]


def test_lexical_errors_do_not_stop_the_file(catalog) -> None:  # type: ignore[no-untyped-def]
    source = "input c\na := 1 ; 2\nb := 99999999999999999999999\nd := b + a\ne := hsah(c)\nf := 'open"
    assert [m for _, _, m in errors(catalog, source)] == [
        "unexpected character ';'",
        "integer literal 99999999999999999999999 does not fit in u64",
        "unknown node 'hsah'",
        "unterminated string literal",
    ]


def test_parse_raises_every_syntax_error() -> None:
    with pytest.raises(CompileError) as info:
        dsl.parse("a := (\nb := )\nc := 1")
    assert [d.line for d in info.value.diagnostics] == [2, 2]
