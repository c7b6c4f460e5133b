"""`/` and `%` by zero (issue 44 item 10): a literal zero divisor is a
compile error at the literal; a zero divisor on a wire gives 0 (the
documented operator rule) unless `pragma strict_values` covers the
operator, where the row fails naming the operator, on every engine alike."""

from __future__ import annotations

import pytest

import polydat
from polydat import CompileError, EvalError

ENGINES = ["p1", "p2", "p3", "mixed"]


@pytest.mark.parametrize(
    "expression, col",
    [
        ("cycle / 0", 14),
        ("cycle % 0", 14),
        ("(cycle as f64) / 0.0", 23),
        ("(cycle as f64) % 0", 23),
        ("(cycle as i64) / 0", 23),
        ("(cycle as i64) % -0", 23),
        ("cycle / (0)", 15),
    ],
)
def test_a_literal_zero_divisor_is_a_compile_error_at_the_literal(expression: str, col: int) -> None:
    with pytest.raises(CompileError) as info:
        polydat.compile(f"input cycle\nx := {expression}")
    err = info.value
    operator = "/" if " / " in expression else "%"
    assert err.message == f"the divisor of '{operator}' is the literal 0: every row would be 0"
    assert (err.line, err.col) == (2, col), str(err)


def test_a_literal_zero_divisor_in_a_module_body_is_refused_too() -> None:
    with pytest.raises(CompileError, match="divisor of '%' is the literal 0"):
        polydat.compile("m(a: u64) -> (b: u64) := {\n  b := a % 0\n}\ninput cycle\nx := m(cycle)")


WIRE_DIVISORS = {
    "u64": "input cycle\nd := cycle % 2\nq := cycle / d\nr := cycle % d",
    "i64": "input cycle\nd := (cycle % 2) as i64\nq := (cycle as i64) / d\nr := (cycle as i64) % d",
    "f64": "input cycle\nd := (cycle % 2) as f64\nq := (cycle as f64) / d\nr := (cycle as f64) % d",
}


@pytest.mark.parametrize("family", sorted(WIRE_DIVISORS))
@pytest.mark.parametrize("engine", ENGINES)
def test_a_zero_divisor_on_a_wire_gives_zero_without_the_pragma(family: str, engine: str) -> None:
    program = polydat.compile(WIRE_DIVISORS[family], engine=engine)
    table = program.generate(cycles=4, outputs=["q", "r"], format="arrow")
    assert [float(v) for v in table.column("q").to_pylist()] == [0, 1, 0, 3]
    assert [float(v) for v in table.column("r").to_pylist()] == [0, 0, 0, 0]


@pytest.mark.parametrize("output, operator", [("q", "/"), ("r", "%")])
@pytest.mark.parametrize("family", sorted(WIRE_DIVISORS))
@pytest.mark.parametrize("engine", ENGINES)
def test_a_zero_divisor_on_a_wire_fails_the_row_under_strict_values(
    family: str, output: str, operator: str, engine: str
) -> None:
    program = polydat.compile("pragma strict_values\n" + WIRE_DIVISORS[family], engine=engine)
    with pytest.raises(EvalError) as info:
        program.generate(cycles=4, outputs=[output], format="arrow")
    expected = f"the divisor of '{operator}' is 0 (pragma strict_values refuses a division by zero)"
    assert str(info.value).startswith(expected), str(info.value)
    assert info.value.row is not None and info.value.row[1] == 0
    ok = program.generate(cycles=range(1, 2), outputs=[output], format="arrow")
    assert [float(v) for v in ok.column(output).to_pylist()] == [1.0 if operator == "/" else 0.0]


def test_strict_values_is_scoped_to_the_module_that_declares_it() -> None:
    source = (
        "checked(a: u64, n: u64) -> (out: u64) := {\n  pragma strict_values\n  out := a / n\n}\n"
        "input cycle\nd := cycle % 2\nloose := cycle / d\nstrict := checked(cycle, d)"
    )
    program = polydat.compile(source)
    assert program.generate(cycles=1, outputs=["loose"], format="arrow").column("loose").to_pylist() == [0]
    with pytest.raises(EvalError, match=r"the divisor of '/' is 0"):
        program.generate(cycles=1, outputs=["strict"], format="arrow")


def test_a_nonzero_literal_divisor_keeps_its_fast_node_under_strict_values() -> None:
    program = polydat.compile("pragma strict_values\ninput cycle\nx := hash(cycle) % 100")
    assert program.generate(cycles=3, outputs=["x"], format="arrow").column("x").to_pylist() == [
        v % 100 for v in polydat.compile("input cycle\nx := hash(cycle)").generate(
            cycles=3, outputs=["x"], format="arrow").column("x").to_pylist()
    ]
