"""Date and timestamp arithmetic in the language (issue 43 §1): `date ± days`,
`timestamp ± ms`, `date - date`, comparisons, and the `i64 ↔ date` casts, so a
date before 1970 is writable. Out-of-range results fail the row with an
EvalError naming the operation, on every engine alike."""

from __future__ import annotations

import datetime
import re
from pathlib import Path

import numpy as np
import pytest

import polydat
import polydat.testing as pt
from polydat import CompileError, EvalError

MATRIX = pt.engines(include_variants=True)


def value(source: str, name: str = "out", **externs: object) -> object:
    kernel = polydat.compile("input cycle: u64\n" + source).kernel()
    for key, v in externs.items():
        kernel.set(key, v)
    return kernel.pull(name)


def test_a_date_moves_by_whole_days_before_1970_too() -> None:
    src = "extern x: u64 = 8035\nbase := (x as i64 - 7305) as date\nout := base + 3"
    assert value(src) == np.datetime64("1972-01-04")
    assert value("extern d: date = \"1992-01-01\"\nout := d - 8036") == np.datetime64("1969-12-31")
    assert value("extern d: date = 8035\nextern n: u64 = 30\nout := n + d") == np.datetime64("1992-01-31")
    assert value("extern d: date = 8035\nextern n: i32 = -1\nout := (d + n) as str") == "1991-12-31"


def test_the_difference_of_two_dates_is_days_and_of_two_timestamps_milliseconds() -> None:
    assert value("extern a: date = \"1998-08-02\"\nextern b: date = \"1992-01-01\"\nout := a - b") == 2405
    assert value("extern a: date = 8035\nout := a - \"1992-01-11\"") == -10
    assert value("extern t: timestamp = 5000\nextern u: timestamp = 7250\nout := t - u") == -2250
    assert value("extern t: timestamp = 0\nout := (t + 90061001) as str") == "1970-01-02T01:01:01.001Z"


def test_dates_and_timestamps_compare() -> None:
    src = "extern a: date = 9297\nout := (a < \"1995-06-17\") + (a >= 9297) + (a == 9297) + (a != a)"
    assert value(src) == 3
    assert value("extern a: date = 1\nextern t: timestamp = 86400000\nout := a == t") == 1, "a date is its midnight"
    assert value("extern t: timestamp = -1\nextern u: timestamp = 0\nout := t < u") == 1


def test_i64_and_date_convert_both_ways() -> None:
    assert value("extern d: date = -3\nout := d as i64") == -3
    with pytest.raises(EvalError, match="value 2147483648 does not fit in date"):
        value("extern n: i64 = 2147483648\nout := n as date")


@pytest.mark.parametrize(
    ("source", "words"),
    [
        ("extern d: date = 2147483647\nout := d + 1",
         "5881580-07-11 + 1 days is outside the range of date (-5877641-06-23 to 5881580-07-11)"),
        ("extern d: date = -2147483648\nextern n: i64 = 1\nout := d - n", "-5877641-06-23 - 1 days is outside"),
        ("extern t: timestamp = 9223372036854775807\nout := t + 1", "+ 1 ms is outside the range of timestamp"),
        ("extern t: timestamp = 9223372036854775807\nextern u: timestamp = -1\nout := t - u",
         "in milliseconds does not fit in i64"),
        ("extern d: date = 1\nextern n: u64 = 18446744073709551615\nout := d + n",
         "value 18446744073709551615 does not fit in i64"),
    ],
)
def test_out_of_range_results_fail_the_row_never_wrap(source: str, words: str) -> None:
    with pytest.raises(EvalError) as info:
        value(source)
    assert words in str(info.value), str(info.value)


@pytest.mark.parametrize(
    ("source", "words"),
    [
        ("extern a: date = 1\nout := a + a", "operator '+' is not defined for date and date"),
        ("extern a: date = 1\nout := a * 2", "operator '*' is not defined for date and u64"),
        ("extern a: date = 1\nout := a + 1.5", "operator '+' cannot read a float literal 1.5 as i64 here"),
        ("extern a: date = 1\nextern f: f64 = 1\nout := a - f", "operator '-' is not defined for date and f64"),
        ("extern a: date = 1\nout := a < \"soon\"", "operator '<' cannot read a string literal \"soon\" as date"),
    ],
)
def test_other_forms_are_compile_errors_that_give_the_rules(source: str, words: str) -> None:
    with pytest.raises(CompileError) as info:
        polydat.compile("input cycle: u64\n" + source)
    assert words in str(info.value), str(info.value)
    assert "a date moves by whole days" in str(info.value) or "literal" in words


CALENDAR_PROGRAM = """input cycle: u64
extern a: u64 = 0
extern b: u64 = 0
d := (a % 4000000000) as i64 - 2000000000
day := d as date
later := day + (b as i64 - 1000)
earlier := later - d
days := later - day
t := (b as i64 * 86400000 - 9000000000000000000) as timestamp
t2 := t + d * 86400000
ms := t2 - t
before := day < later
same := (day as timestamp) == t
"""


def test_every_engine_agrees_on_calendar_arithmetic_at_the_corners() -> None:
    steps = [{"a": a, "b": b} for a, b in pt.corner_grid([pt.U64_CORNERS, pt.U64_CORNERS], limit=400)]
    table = pt.assert_engines_agree(CALENDAR_PROGRAM, steps, engines=MATRIX)
    pulled = [o for o in table.oracle.observations if o.action == "pull"]
    assert any(o.outcome.kind == "error" for o in pulled), "some corners leave the range"
    assert any(o.outcome.kind != "error" for o in pulled)


def test_a_generated_column_of_dates_is_written_as_dates() -> None:
    program = polydat.compile("input cycle: u64\nextern base: date = \"1969-12-30\"\nd := base + cycle")
    table = program.generate(cycles=3, format="arrow")
    assert table.column("d").to_pylist() == [datetime.date(1969, 12, 30), datetime.date(1969, 12, 31),
                                             datetime.date(1970, 1, 1)]


def test_the_operators_page_sample_gives_the_values_its_comments_say() -> None:
    page = (Path(__file__).resolve().parent.parent / "docs" / "operators.md").read_text()
    section = page[page.index("## Dates and timestamps"):]
    block = re.search(r"```polydat\n(.*?)```", section, re.S).group(1)  # type: ignore[union-attr]
    kernel = polydat.compile(block).kernel()
    checked = []
    for line in block.splitlines():
        binding = re.match(r"(\w+) := .*#\s*(\S+)$", line)
        if binding is None:
            continue
        name, expected = binding.groups()
        got = kernel.pull(name)
        shown = got.astype(str) if isinstance(got, np.datetime64) else str(got)
        if name == "noon":
            shown = polydat.compile(block + "\nnoon_text := noon as str").kernel().pull("noon_text")
        assert shown == expected, (name, shown)
        checked.append(name)
    assert checked == ["week_later", "before_1970", "days", "late", "noon"]
