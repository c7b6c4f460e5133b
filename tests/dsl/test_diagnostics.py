"""Diagnostics: rendered form, positions and hints of the errors the frontend emits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from polydat import dsl
from polydat.dsl import Catalog, check
from polydat.errors import CompileError, Diagnostic


def rendered(catalog: Catalog, source: str, **options: object) -> str:
    """The CompileError of ``source``: the frontend's, or else the core's (which types it)."""
    import polydat

    with pytest.raises(CompileError) as info:
        dsl.bind(source, catalog=catalog, **options)  # type: ignore[arg-type]
        polydat.compile(source, **options)  # type: ignore[arg-type]
    return str(info.value)


# (source, full rendered diagnostic)
CASES: list[tuple[str, str]] = [
    (
        "input cycle\n(a, b := f(cycle)",
        "2:7:error: expected ')' but found ':='\n  | (a, b := f(cycle)\n  |       ^",
    ),
    (
        "x := hash(cycle",
        "1:16:error: expected ',' or ')' but found end of input\n  | x := hash(cycle\n  |                ^\n"
        "  = hint: the '(' opened at 1:10 is not closed",
    ),
    (
        "x := (1 + 2",
        "1:12:error: expected ')' but found end of input\n  | x := (1 + 2\n  |            ^\n"
        "  = hint: the '(' opened at 1:6 is not closed",
    ),
    (
        "x := [1, 2",
        "1:11:error: expected ',' or ']' but found end of input\n  | x := [1, 2\n  |           ^\n"
        "  = hint: the '[' opened at 1:6 is not closed",
    ),
    (
        "x := 1 +",
        "1:9:error: expected an expression but found end of input\n  | x := 1 +\n  |         ^",
    ),
    (
        "x := * 2",
        "1:6:error: expected an expression but found '*'\n  | x := * 2\n  |      ^",
    ),
    (
        "x = 5",
        "1:3:error: expected ':=' but found '='\n  | x = 5\n  |   ^\n"
        "  = hint: bindings use ':=' (only extern defaults use '=')",
    ),
    (
        "x y := 5",
        "1:3:error: expected ':=' after 'x' but found identifier 'y'\n  | x y := 5\n  |   ^\n"
        "  = hint: a binding is written `name := expression`",
    ),
    (
        "input cycle\nhash(cycle)",
        "2:1:error: a bare expression is not a statement\n  | hash(cycle)\n  | ^\n"
        "  = hint: bind it to a name: `name := ...`",
    ),
    (
        ") := 1",
        "1:1:error: expected a statement but found ')'\n  | ) := 1\n  | ^",
    ),
    (
        "const := 1",
        "1:7:error: expected a binding name after the modifiers but found ':='\n  | const := 1\n  |       ^",
    ),
    (
        "const (1) := 2",
        "1:8:error: expected a list of names to bind but found number '1'\n  | const (1) := 2\n  |        ^",
    ),
    (
        "input 5",
        "1:7:error: expected an input name but found number '5'\n  | input 5\n  |       ^",
    ),
    (
        "extern e: u64 := 5",
        "1:15:error: expected '=' but found ':='\n  | extern e: u64 := 5\n  |               ^\n"
        "  = hint: an extern default is written `extern e: u64 = value`",
    ),
    (
        "x := a as 5",
        "1:11:error: expected a type name after 'as' but found number '5'\n  | x := a as 5\n  |           ^",
    ),
    (
        "x := if a 1 else 2",
        "1:11:error: expected '{' after the if condition but found number '1'\n  | x := if a 1 else 2\n  |           ^\n"
        "  = hint: the block form is `if c { a } else { b }`",
    ),
    (
        "x := if a { 1 }",
        "1:6:error: `if` without 'else': expected 'else' after its branch but found end of input\n"
        "  | x := if a { 1 }\n  |      ^\n"
        "  = hint: an if expression always yields a value, so 'else' is required",
    ),
    (
        "x := if a { 1 } else 2",
        "1:22:error: expected '{' or 'if' after 'else' but found number '2'\n  | x := if a { 1 } else 2\n  |                      ^",
    ),
    (
        "x := if a { 1 2 } else { 3 }",
        "1:15:error: expected '}' closing the if branch but found number '2'\n  | x := if a { 1 2 } else { 3 }\n  |               ^",
    ),
    (
        "m(a) -> () := { }",
        "1:1:error: module 'm' declares no outputs\n  | m(a) -> () := { }\n  | ^\n"
        "  = hint: a module returns at least one value",
    ),
    (
        "m(a) -> (b) := { b := a",
        "1:24:error: expected '}' closing module 'm' but found end of input\n  | m(a) -> (b) := { b := a\n  |                        ^",
    ),
    (
        "m(a) -> (b) := { 5 }",
        "1:18:error: a bare expression is not a statement\n  | m(a) -> (b) := { 5 }\n  |                  ^\n"
        "  = hint: bind it to a name: `name := ...`",
    ),
    (
        "m(a) -> (b) := { ) }",
        "1:18:error: expected a statement or '}' closing module 'm' but found ')'\n  | m(a) -> (b) := { ) }\n  |                  ^",
    ),
    (
        "m(a) -> (b) { b := a }",
        "1:13:error: expected ':=' but found '{'\n  | m(a) -> (b) { b := a }\n  |             ^\n"
        "  = hint: a module is written `m(p: u64) -> (o: u64) := { ... }`",
    ),
    (
        "for k 1..4 {\n}",
        "1:7:error: expected 'in', found '1'\n  | for k 1..4 {\n  |       ^\n"
        "  = hint: a clause is written `name in values`",
    ),
    (
        "input cycle\nx := hsah(cycle)",
        "2:6:error: unknown node 'hsah'\n  | x := hsah(cycle)\n  |      ^\n  = hint: did you mean 'hash'?",
    ),
    (
        "extern f: f64\nx := f as u64",
        "2:8:error: cannot cast f64 to u64 with 'as'\n  | x := f as u64\n  |        ^\n"
        "  = hint: choose how to round: f64_to_u64(x) truncates, or use round_to_u64(x), floor_to_u64(x) or ceil_to_u64(x)",
    ),
    (
        "a := b\nb := a",
        "1:1:error: cycle between bindings: a -> b -> a\n  | a := b\n  | ^\n"
        "  = hint: bindings form a dataflow graph; break the cycle with an input or extern",
    ),
    (
        "x := 18446744073709551616",
        "1:6:error: integer literal 18446744073709551616 does not fit in u64\n  | x := 18446744073709551616\n"
        "  |      ^\n  = hint: the largest u64 is 18446744073709551615 (0xFFFFFFFFFFFFFFFF); "
        'a larger u128 or i128 constant is text cast to it, e.g. "18446744073709551616" as u128',
    ),
    (
        "x := 'abc",
        "1:6:error: unterminated string literal\n  | x := 'abc\n  |      ^\n  = hint: close the string with '",
    ),
    (
        "x := 1\n\tx := 2",
        "2:2:error: 'x' is already bound\n  | \tx := 2\n  |  ^\n"
        "  = hint: first declared at 1:1; every name is bound once",
    ),
]


@pytest.mark.parametrize("source, text", CASES, ids=[c[1].split("\n")[0] for c in CASES])
def test_rendered_diagnostics(catalog: Catalog, source: str, text: str) -> None:
    assert rendered(catalog, source) == text


def test_compile_error_carries_line_col_hint_and_source_line(catalog: Catalog) -> None:
    with pytest.raises(CompileError) as info:
        dsl.bind("input cycle\n\nx := hsah(cycle)", catalog=catalog)
    err = info.value
    assert (err.line, err.col, err.hint) == (3, 6, "did you mean 'hash'?")
    assert err.diagnostic.source_line == "x := hsah(cycle)"
    assert err.diagnostic.severity == "error"
    assert err.diagnostic.path is None


def test_path_is_shown_in_diagnostics(catalog: Catalog, tmp_path: Path) -> None:
    text = rendered(catalog, "x := hsah(1)", path=str(tmp_path / "prog.polydat"))
    assert text.startswith(f"{tmp_path / 'prog.polydat'}:1:6:error: unknown node 'hsah'")


def test_errors_for_unusual_catalog_shapes() -> None:
    entries = [
        {"name": "sink", "aliases": [], "params": [{"name": "x", "kind": "wire", "type": "any", "default": None, "variadic": False}],
         "outputs": {"kind": "fixed", "ports": []}},
        {"name": "opaque", "aliases": [], "params": [],
         "outputs": {"kind": "fixed", "ports": [["out", "any"]]}},
        {"name": "u64_add", "aliases": [], "params": [
            {"name": "a", "kind": "wire", "type": "u64", "default": None, "variadic": False},
            {"name": "b", "kind": "wire", "type": "u64", "default": None, "variadic": False}],
         "outputs": {"kind": "fixed", "ports": [["out", "u64"]]}},
    ]
    catalog = Catalog.from_json(json.dumps(entries))
    with pytest.raises(CompileError) as info:
        dsl.bind("x := sink(1)", catalog=catalog)
    assert info.value.message == "'sink' produces no value and cannot be bound to 'x'"
    with pytest.raises(CompileError) as info:
        dsl.bind("x := 'a{1}'", catalog=catalog)
    assert info.value.message == "string interpolation needs the 'printf' node, which this build's catalog does not provide"


def test_check_returns_diagnostics_and_never_raises(catalog: Catalog) -> None:
    assert check("input cycle\nx := hash(cycle)", catalog=catalog) == []
    (diagnostic,) = check("x := hsah(1)", catalog=catalog)
    assert isinstance(diagnostic, Diagnostic)
    assert (diagnostic.line, diagnostic.col, diagnostic.message) == (1, 6, "unknown node 'hsah'")
    (lexical,) = check('x := "open', catalog=catalog)
    assert lexical.message == "unterminated string literal"


def test_check_reports_internal_failures_as_diagnostics(catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    from polydat.dsl import binder

    def explode(self: object, program: object, **options: object) -> None:
        raise ValueError("boom")

    monkeypatch.setattr(binder.Binder, "bind", explode)
    (diagnostic,) = check("x := 1", catalog=catalog)
    assert diagnostic.message == "internal compiler error: ValueError: boom"


def test_a_non_constant_construction_constant_renders_at_its_call() -> None:
    # Constant positions take constant expressions; the core evaluates them
    # and refuses one that reads an input, at the call.
    import polydat

    with pytest.raises(CompileError) as info:
        polydat.compile("input cycle\nx := mod(hash(cycle), cycle)")
    assert str(info.value) == (
        "2:6:error: parameter `modulus` of `mod` must be a constant expression, but it reads input 'cycle'\n"
        "  | x := mod(hash(cycle), cycle)\n"
        "  |      ^\n"
        "  = hint: use `mod_wire` to take the divisor from a wire"
    )
