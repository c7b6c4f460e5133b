"""decimal(p, s): exact fixed-point values on every engine and in every output format."""

from __future__ import annotations

import decimal
import io
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import polydat
from polydat.errors import CompileError, EvalError
from polydat.cli import main

ENGINES = ["p1", "p2", "p3", "mixed"]

PRICES = """
input c: u64
price := (c as decimal(15, 2)) * 0.01d + 900.99d
discount := 0.05d
net := price * (1 - discount)
rounded := decimal_round(net, 2)
dear := price > 901.00d
approx := net as f64
label := "p=" + price
"""


def D(text: str) -> decimal.Decimal:
    return decimal.Decimal(text)


@pytest.mark.parametrize("engine", ENGINES)
def test_every_engine_computes_the_same_exact_values(engine: str) -> None:
    table = polydat.compile(PRICES, engine=engine).generate(3, format="arrow")
    assert table.schema.field("price").type == pa.decimal128(18, 4)
    assert table.schema.field("net").type == pa.decimal128(22, 6)
    assert table.schema.field("rounded").type == pa.decimal128(19, 2)
    assert table.column("price").to_pylist() == [D("900.9900"), D("901.0000"), D("901.0100")]
    assert table.column("net").to_pylist() == [D("855.940500"), D("855.950000"), D("855.959500")]
    assert table.column("rounded").to_pylist() == [D("855.94"), D("855.95"), D("855.96")]
    assert table.column("dear").to_pylist() == [0, 0, 1]
    assert table.column("approx").to_pylist() == [855.9405, 855.95, 855.9595]
    assert table.column("label").to_pylist() == ["p=900.9900", "p=901.0000", "p=901.0100"]


def test_numpy_holds_decimal_objects() -> None:
    columns = polydat.compile(PRICES).generate(2, outputs=["rounded"])
    assert columns["rounded"].dtype == object
    assert list(columns["rounded"]) == [D("855.94"), D("855.95")]


@pytest.mark.parametrize(
    ("encode", "lines"),
    [("csv", ["c,x", "0,901.00", "1,902.00"]), ("jsonl", ['{"c": 0, "x": 901.00}', '{"c": 1, "x": 902.00}'])],
)
def test_text_formats_write_every_digit_of_the_scale(tmp_path: Path, encode: str, lines: list[str]) -> None:
    src = tmp_path / "prices.polydat"
    src.write_text("input c: u64\nx := (c as decimal(15, 2)) + 901.00d\n")
    out = tmp_path / f"prices.{encode}"
    assert main(["run", str(src), "--cycles", "2", "--format", encode, "-o", str(out)]) == 0
    assert out.read_text().splitlines() == lines


def test_parquet_stores_decimal_columns() -> None:
    table = polydat.compile(PRICES).generate(2, outputs=["price"], format="arrow")
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    back = pq.read_table(io.BytesIO(buffer.getvalue()))
    assert back.schema.field("price").type == pa.decimal128(18, 4)
    assert back.column("price").to_pylist() == [D("900.9900"), D("901.0000")]


@pytest.mark.parametrize("engine", ENGINES)
def test_overflow_fails_the_row_naming_the_node(engine: str) -> None:
    src = "input c: u64\nx := (c as decimal(3, 0)) * 10d\ny := x as decimal(3, 0)\n"
    program = polydat.compile(src, engine=engine)
    assert program.generate(range(99, 100), format="arrow").column("y").to_pylist() == [D("990")]
    with pytest.raises(EvalError, match="does not fit decimal\\(3,0\\)") as caught:
        program.generate(range(100, 101), format="arrow")
    assert "to_decimal" in str(caught.value)


MONEY = "input c: u64\nmoney := ((c as i64 - 5000) as decimal(4, 0)) * 0.01d\nfee := 0.5d * (c as decimal(13, 0))\n"


@pytest.mark.parametrize("engine", ENGINES)
def test_money_from_cents_is_one_step_with_the_values_and_failures_of_two(engine: str) -> None:
    fused = polydat.compile(MONEY, engine=engine)
    plain = polydat.compile(MONEY, engine=engine, fusion=False)
    ops = [step["op"] for step in fused.explain_data()["steps"]]
    assert ops.count("__to_decimal_times") == 2 and "decimal_mul" not in ops, ops
    rows = range(0, 15000, 2999)
    table = fused.generate(rows, format="arrow")
    assert table.schema.field("money").type == pa.decimal128(6, 2)
    assert table.schema.field("fee").type == pa.decimal128(14, 1)
    assert table.column("money").to_pylist() == [D("-50.00"), D("-20.01"), D("9.98"), D("39.97"), D("69.96"), D("99.95")]
    assert table.column("fee").to_pylist() == [D("0.0"), D("1499.5"), D("2999.0"), D("4498.5"), D("5998.0"), D("7497.5")]
    assert table.equals(plain.generate(rows, format="arrow"))
    failures = []
    for program in (fused, plain):
        with pytest.raises(EvalError) as caught:
            program.generate(range(14999, 15001), format="arrow")
        failures.append(str(caught.value))
    # The failure is the cast's, named as the cast, with its input and row;
    # the fused step feeds `money` itself, which the message then names.
    assert failures[0].startswith("10000 does not fit decimal(4,0)\n  ↳ in node `to_decimal` (output money)")
    assert failures[1].replace("(no declared output)", "(output money)") == failures[0]
    assert "[0]=I64(10000)" in failures[0] and "c=15000" in failures[0]


def test_float_to_decimal_rounds_half_away_from_zero() -> None:
    src = 'input c: u64\nextern x: f64 = 0.0\nd := x as decimal(5, 0)\n'
    program = polydat.compile(src)
    values = [program.generate(1, inputs={"x": v}, format="arrow").column("d")[0].as_py() for v in (2.5, -2.5, 0.4)]
    assert values == [D("3"), D("-3"), D("0")]
    with pytest.raises(EvalError, match="has no decimal value"):
        program.generate(1, inputs={"x": float("nan")}, format="arrow")


def test_a_decimal_input_takes_python_decimals_exactly() -> None:
    program = polydat.compile("input c: u64\nextern x: decimal(15, 2) = 1.50d\ny := x * 2\n")
    assert program.generate(1, format="arrow").column("y")[0].as_py() == D("3.00")
    assert program.generate(1, inputs={"x": D("0.25")}, format="arrow").column("y")[0].as_py() == D("0.50")


@pytest.mark.parametrize(
    ("src", "message"),
    [
        ("x := 1.5d as decimal(39, 2)\n", "precision 39 is out of range"),
        ("x := 1.5d as decimal(3, 4)\n", "scale 4 is larger than its precision 3"),
        ("input c: u64\nx := (c as decimal(15, 2)) / 2d\n", "operator '/' is not defined for decimals"),
        ("input c: u64\nx := (c as decimal(15, 2)) + (c as f64)\n", "operator '\\+' is not defined"),
        ("input c: u64\nd := c as decimal(20, 20)\nx := d * d\n", "scale 40"),
    ],
)
def test_bad_decimal_programs_are_refused_in_words(src: str, message: str) -> None:
    with pytest.raises(CompileError, match=message):
        polydat.compile(src)


def test_the_documented_sample_gives_the_documented_rows() -> None:
    page = (Path(__file__).parent.parent / "docs" / "operators.md").read_text()
    sample = page.split("## Decimals", 1)[1].split("```polydat\n", 1)[1].split("```", 1)[0]
    table = polydat.compile(sample).generate(2, format="arrow")
    rows = [[str(v) for v in row.values()] for row in table.to_pylist()]
    assert rows == [["900.99", "855.9405", "855.94", "0"], ["901.99", "856.8905", "856.89", "1"]]


CHOICES = """
input c: u64
both_literal := if c > 1 { 1.50d } else { 2.25d }
widened := if c > 1 { 1.5d } else { 22.25d }
one_computed := if c > 1 { c as decimal(5, 2) } else { 2.25d }
day := if c > 1 { "2020-01-01" as date } else { ("2020-01-01" as date) + 3 }
instant := if c > 1 { (c * 1000) as timestamp } else { 7 as timestamp }
"""


@pytest.mark.parametrize(
    ("engine", "provenance"),
    [("p1", "auto"), *((e, p) for e in ("p2", "p3") for p in ("pull", "push", "raw")), ("mixed", "auto")],
)
def test_if_chooses_between_decimals_dates_and_timestamps(engine: str, provenance: str) -> None:
    # Two decimal literals chosen on a compiled engine came out 0.00 (arrow)
    # or None (numpy, pull) before a by-bytes decimal result had a byte entry.
    program = polydat.compile(CHOICES, engine=engine, provenance=provenance)
    assert program.outputs["widened"] == "decimal(4,2)"
    table = program.generate(range(0, 3), format="arrow")
    assert table.column("both_literal").to_pylist() == [D("2.25"), D("2.25"), D("1.50")]
    assert table.column("widened").to_pylist() == [D("22.25"), D("22.25"), D("1.50")]
    assert table.column("one_computed").to_pylist() == [D("2.25"), D("2.25"), D("2.00")]
    assert [str(d) for d in table.column("day").to_pylist()] == ["2020-01-04", "2020-01-04", "2020-01-01"]
    assert [t.timestamp() for t in table.column("instant").to_pylist()] == [0.007, 0.007, 2.0]
    alone = polydat.compile("input c: u64\nx := if c > 1 { 1.50d } else { 2.25d }\n", engine=engine,
                            provenance=provenance)
    kernel = alone.kernel()
    kernel.set_inputs(0)
    assert kernel.pull("x") == D("2.25")
    assert alone.generate(range(1, 3), format="arrow").column("x").to_pylist() == [D("2.25"), D("1.50")]


def test_if_refuses_branches_of_two_kinds() -> None:
    with pytest.raises(CompileError, match="incompatible types date and timestamp"):
        polydat.compile('input c: u64\nx := if c > 1 { "2020-01-01" as date } else { 7 as timestamp }\n')


@pytest.mark.parametrize("engine", ENGINES)
def test_null_rows_of_a_decimal_column_leave_the_others_in_place(engine: str) -> None:
    """A decimal column whose every row has a value is read as one run of
    16-byte values; one with null rows, row by row: both give each row its own value."""
    src = "input c: u64\nfull := (c as decimal(13, 0)) * 0.01d\nsome := maybe(full, 0.5, c)\n"
    table = polydat.compile(src, engine=engine).generate(8, format="arrow")
    assert table.column("full").to_pylist() == [D(f"0.0{c}") for c in range(8)]
    some = table.column("some").to_pylist()
    assert some.count(None) in range(1, 8)
    assert all(value is None or value == D(f"0.0{c}") for c, value in enumerate(some))
