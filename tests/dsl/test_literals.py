"""`true`/`false` are bool literals; `none`/`null`/`None`/`NULL` are reserved.

Before, ``true`` and ``false`` were ordinary names: ``if true { 1 } else { 2 }``
made ``true`` an inferred input fixed at 0 and gave 2 on every row.
"""

from __future__ import annotations

import pytest

from dsl_helpers import core_ops, core_tree, ops, output_types, producer, tree
from polydat import dsl
from polydat.dsl import ast, parse


def test_true_and_false_parse_as_bool_literals() -> None:
    (binding,) = parse("x := true").statements
    assert isinstance(binding, ast.Binding)
    assert binding.value == ast.BoolLit(True, ast.Span(1, 6))
    (binding,) = parse("x := f(false, a: true)").statements
    assert [arg.value for arg in binding.value.args] == [ast.BoolLit(False, ast.Span(1, 8)), ast.BoolLit(True, ast.Span(1, 18))]


def test_a_bool_literal_is_a_bool_constant_not_an_input(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind("x := if true { 1 } else { 2 }\ny := false")
    assert bound.input_names == ()
    assert bound.inferred_inputs == ()
    cond = bound.ir["nodes"][producer(bound, "x")["args"][0]["wire"]["node"]["node"]]
    assert cond == {"op": "__lit", "args": [{"const": {"bool": True}}], "span": {"line": 1, "col": 9}}
    assert producer(bound, "y")["args"] == [{"const": {"bool": False}}]
    assert output_types(bound) == {"x": "u64", "y": "bool"}


@pytest.mark.parametrize(
    "expr, expected_ops, out_type",
    [
        ("true && c", ["__lit", "__lit", "u64_ne", "u64_and"], "u64"),
        ("!true", ["__lit", "__lit", "u64_eq"], "u64"),
        ("true == false", ["__lit", "__lit", "u64_eq"], "u64"),
        ("true != c", ["__lit", "u64_ne"], "u64"),
        ("true == 1.5", ["__lit", "__lit", "f64_eq"], "u64"),
        ("if c > 1 { true } else { false }", ["__lit", "u64_gt", "__lit", "__lit", "select_u64"], "bool"),
        ("if true { 1.5 } else { c }", ["__lit", "__lit", "select_f64"], "f64"),
        ('if true { "a" } else { false }', ["__lit", "__lit", "__lit", "select_str"], "str"),
        ("true as f64", ["__lit"], "f64"),
    ],
)
def test_bools_in_operators_and_if(bind, expr: str, expected_ops: list[str], out_type: str) -> None:  # type: ignore[no-untyped-def]
    bound = bind(f"input c\nx := {expr}")
    assert core_ops(bound) == expected_ops
    assert output_types(bound)["x"] == out_type


@pytest.mark.parametrize("expr", ["true + 1", "true < c", "true & c", "-true"])
def test_a_bool_is_not_a_number_in_arithmetic(compile_error, expr: str) -> None:  # type: ignore[no-untyped-def]
    err = compile_error(f"input c\nx := {expr}")
    assert "bool" in err.message


def test_bool_literals_everywhere_a_literal_goes(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind(
        "extern on: bool = true\nextern n: u64 = false\nshared s: bool := false\nk := [true, 1]\n"
        "m(flag: u64) -> (out) := { out := flag + 1 }\nv := m(true)\nw := \"{true}\""
    )
    defaults = {i["name"]: i["default"] for i in bound.ir["inputs"] if not i.get("cell")}
    assert defaults == {"on": {"bool": True}, "n": {"bool": False}}  # as written: the core types it (u64 0)
    assert producer(bound, "s")["args"] == [{"const": {"bool": False}}]
    assert producer(bound, "k")["args"] == [{"const": {"str": "true, 1"}}]
    assert core_tree(bound, "v") == ("u64_add", 1, 1)
    assert tree(bound, "w") == ("printf", ("const", "{}"), True)


def test_bool_literals_cannot_be_bound_or_called(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error("true := 1")
    assert err.message == "'true' is a bool literal and cannot be bound or declared"
    assert (err.line, err.col) == (1, 1)
    err = compile_error("input false")
    assert err.message == "'false' is a bool literal and cannot be bound or declared"
    err = compile_error("x := true(1)")
    assert err.message == "'true' is a bool literal and cannot be called"


@pytest.mark.parametrize("word", ["none", "null", "None", "NULL"])
def test_reading_an_absent_value_word_is_an_error_at_its_span(compile_error, word: str) -> None:  # type: ignore[no-untyped-def]
    err = compile_error(f"input c\nx := default_or(c, {word})")
    assert err.message == f"'{word}' is not a value"
    assert (err.line, err.col) == (2, 20)
    assert "extern without a default" in err.hint and "default_or(x, fallback)" in err.hint
    # ... and it is never an inferred input.
    assert [d for d in dsl.check(f"x := {word}") if d.severity == "warning"] == []


@pytest.mark.parametrize("word", ["none", "null", "None", "NULL"])
def test_absent_value_words_cannot_be_declared(compile_error, word: str) -> None:  # type: ignore[no-untyped-def]
    for source in (f"{word} := 1", f"input {word}", f"extern {word}: u64"):
        err = compile_error(source)
        assert err.message == f"'{word}' is reserved and cannot be bound or declared", source


def test_absent_value_words_in_a_module_body(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error("m(a) -> (b) := { b := default_or(a, null) }\ninput c\nx := m(c)")
    assert err.message == "'null' is not a value"
    assert (err.line, err.col) == (1, 37)
    err = compile_error("m(none) -> (b) := { b := 1 }\nx := m(1)")
    assert err.message == "'none' is reserved and cannot name a parameter"
