"""A column whose cone is a small part of the program (one string output of
many) runs that cone's sweep per row: the same rows as P1, on every engine,
and a failure at a row is reported as P1 reports it."""

from __future__ import annotations

import pytest

import polydat

ENGINES = ["p1", "p2", "p3", "mixed", "p2/raw", "p3/raw"]

# `label`'s cone is 3 of the 13 per-cycle steps; `checked` fails from row 2501.
SOURCE = "input cycle: u64\na := hash(cycle)\n" + "".join(
    f"w{i} := hash(a ^ {i + 1})\n" for i in range(8)
) + """label := one_of(a, "red", "green", "blue")
tagged := "t{mod(a, 97)}"
checked := "v{in_range(cycle, 0, 2500)}"
"""


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("output", ["label", "tagged", "w3"])
def test_one_narrow_column_matches_p1(engine: str, output: str) -> None:
    want = polydat.compile(SOURCE, engine="p1").generate(range(5000), outputs=[output])[output].tolist()
    prog = polydat.compile(SOURCE, engine=engine)
    assert prog.generate(range(5000), outputs=[output])[output].tolist() == want
    table = prog.generate(range(5000), outputs=[output], format="arrow", threads=2)
    assert table.column(output).to_pylist() == want


@pytest.mark.parametrize("engine", ENGINES)
def test_a_failing_row_of_a_narrow_column_is_reported_as_p1_reports_it(engine: str) -> None:
    prog = polydat.compile(SOURCE, engine=engine)
    with pytest.raises(polydat.EvalError) as caught:
        prog.generate(range(5000), outputs=["checked"])
    assert caught.value.row == ("cycle", 2501)
    assert "in_range: value 2501 outside" in str(caught.value)
    assert prog.generate(range(2501), outputs=["checked"])["checked"][-1] == "v2500"


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("outputs", [["label", "tagged"], ["w3", "label", "tagged"], ["tagged", "w1", "w2", "w4", "w5"]])
def test_several_columns_sweep_the_steps_they_need_and_match_p1(engine: str, outputs: list[str]) -> None:
    # Rows past 2500 fail `checked`, which none of these columns needs.
    want = polydat.compile(SOURCE, engine="p1").generate(range(5000), outputs=outputs)
    prog = polydat.compile(SOURCE, engine=engine)
    got = prog.generate(range(5000), outputs=outputs)
    assert {k: v.tolist() for k, v in got.items()} == {k: v.tolist() for k, v in want.items()}
    table = prog.generate(range(5000), outputs=outputs, format="arrow", threads=2)
    assert {k: table.column(k).to_pylist() for k in outputs} == {k: v.tolist() for k, v in want.items()}


@pytest.mark.parametrize("engine", ENGINES)
def test_a_failing_row_among_several_columns_is_reported_as_p1_reports_it(engine: str) -> None:
    prog = polydat.compile(SOURCE, engine=engine)
    with pytest.raises(polydat.EvalError) as caught:
        prog.generate(range(5000), outputs=["label", "checked"])
    assert caught.value.row == ("cycle", 2501)
