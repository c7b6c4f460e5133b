"""polydat.hypothesis: rows equal generate's, inputs drawn within their
declared types, clear errors for bad names, cycles that shrink."""

from __future__ import annotations

import datetime
import math
from decimal import Decimal

import pytest
from hypothesis import find, given, settings
from hypothesis import strategies as st

import polydat
from polydat.errors import ArgumentError
from polydat.hypothesis import ANY, programs, rows, values
from polydat.testing import strategies

EVERY_TYPE = """\
input cycle: u64
extern u: u64
extern i: i64
extern w: u32
extern n: i32
extern f: f64
extern g: f32
extern b: bool
extern s: str
extern y: bytes
extern j: json
extern d: date
extern t: timestamp
extern m: decimal(15, 2)
"""
COPIES = "".join(f"{name}_out := {name}\n" for name in "uiwnfgbsyjdtm")
PROGRAM = polydat.compile(EVERY_TYPE + COPIES)


def same(a: object, b: object) -> bool:
    return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))


@settings(max_examples=150, deadline=None)
@given(rows(PROGRAM, inputs=ANY))
def test_inputs_drawn_within_their_declared_types_are_written_as_drawn(row: dict[str, object]) -> None:
    for name in "uiwnfgbsyjdtm":
        assert same(row[name], row[f"{name}_out"]), name
    assert isinstance(row["d"], datetime.date) and isinstance(row["m"], Decimal)


@settings(max_examples=30, deadline=None)
@given(rows(PROGRAM, outputs=["s_out", "m_out"], cycles=(5, 9), inputs={"s": st.sampled_from(["a", "é"]), "m": 3}))
def test_a_row_holds_the_coordinate_the_given_inputs_and_the_outputs(row: dict[str, object]) -> None:
    assert list(row) == ["cycle", "s", "m", "s_out", "m_out"]
    assert 5 <= row["cycle"] < 9  # type: ignore[operator]
    assert row["m_out"] == Decimal("3.00") and row["s_out"] in ("a", "é")
    columns = PROGRAM.generate(range(row["cycle"], row["cycle"] + 1), outputs=list(row),  # type: ignore[operator]
                               inputs={"s": row["s"], "m": 3})
    assert row == {name: array.tolist()[0] for name, array in columns.items()}


def test_cycles_shrink_toward_the_first_of_the_range() -> None:
    found = find(rows("input cycle: u64\nx := cycle * 2\n", cycles=range(10**6, 10**12, 3)), lambda r: r["x"] > 0)
    assert found == {"cycle": 10**6, "x": 2 * 10**6}


def test_every_u64_cycle_can_be_drawn() -> None:
    found = find(rows("input cycle: u64\nx := cycle\n"), lambda r: r["cycle"] > 2**63)
    assert found["cycle"] == 2**63 + 1


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: rows(PROGRAM, outputs=["nope"]), "no output or input named 'nope'"),
        (lambda: rows(PROGRAM, inputs={"zz": 1}), "no input named 'zz'; the inputs are: u, i, "),
        (lambda: rows(PROGRAM, inputs={"cycle": 1}), "'cycle' is the coordinate the rows sweep"),
        (lambda: rows(PROGRAM, inputs=[1]), "inputs must be a mapping"),
        (lambda: rows(PROGRAM, cycles=range(4, 4)), "no cycle to draw from"),
        (lambda: rows(PROGRAM, coordinate="u"), "'u' is not a coordinate"),
        (lambda: rows(42), "rows takes a polydat.Program or program text, not int"),  # type: ignore[arg-type]
        (lambda: values("list<u64>"), "no strategy draws values of type 'list<u64>'"),
    ],
)
def test_bad_arguments_are_argument_errors_when_the_strategy_is_made(call: object, message: str) -> None:
    with pytest.raises(ArgumentError, match=message.replace("(", r"\(")):
        call()  # type: ignore[operator]


def test_programs_is_the_strategy_polydat_testing_uses() -> None:
    assert programs is strategies.programs
