"""Frontend fixes seen through the whole pipeline (``polydat.compile`` / ``polydat.check``)."""

from __future__ import annotations

import pytest

import polydat
from polydat import CompileError


def test_if_true_takes_the_then_branch_on_every_row() -> None:
    prog = polydat.compile("input cycle\nx := if true { 1 } else { 2 }\ny := if false { 1 } else { 2 }\nz := !false && true")
    assert prog.inputs == ["cycle"]
    cols = prog.generate(range(4), outputs=["x", "y", "z"])
    assert list(cols["x"]) == [1, 1, 1, 1]
    assert list(cols["y"]) == [2, 2, 2, 2]
    assert list(cols["z"]) == [1, 1, 1, 1]


def test_a_bool_extern_and_bool_branches_run() -> None:
    k = polydat.compile("input c\nextern on: bool = true\nb := if c > 1 { on } else { false }\ns := \"{b}\"").kernel()
    rows = []
    for c in range(3):
        k.set_inputs(c)
        rows.append((k.pull("b"), k.pull("s")))
    assert rows == [(False, "false"), (False, "false"), (True, "true")]


@pytest.mark.parametrize("digits", [4301, 20000])
def test_a_giant_integer_is_a_compile_error_not_a_value_error(digits: int) -> None:
    source = "input c\nx := " + "9" * digits + "\n"
    with pytest.raises(CompileError) as info:
        polydat.compile(source)
    assert (info.value.line, info.value.col) == (2, 6)
    (diagnostic,) = polydat.check(source)
    assert diagnostic.message.endswith("does not fit in u64")


def test_a_lone_surrogate_is_a_compile_error_at_the_literal() -> None:
    with pytest.raises(CompileError) as info:
        polydat.compile('input c\nx := "a\ud800"')
    assert (info.value.line, info.value.col) == (2, 8)
    assert "surrogate" in info.value.message
    assert "malformed" not in str(info.value)


def test_a_core_error_quotes_the_line_the_lexer_counted() -> None:
    with pytest.raises(CompileError) as info:
        polydat.compile("# a\x0cb\ninput c\nx := unit_interval(c) + c\n", strict=True)
    assert info.value.line == 3
    assert info.value.diagnostic.source_line == "x := unit_interval(c) + c"
