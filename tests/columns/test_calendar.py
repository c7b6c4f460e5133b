"""``timestamp`` and ``date`` port types: a program asks for them with a cast;
Arrow gets ``timestamp[ms, tz=UTC]``/``date32``, numpy ``datetime64``, text ISO dates."""

from __future__ import annotations

import datetime
import io
import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import polydat
from polydat import cli

SOURCE = """
input cycle: u64
extern start: date = "1992-01-01"
ms := 694224000000 + mod(hash(cycle), 220000000000)
at := ms as timestamp
day := at as date
first := start
back := at as i64
offset := mod(hash(cycle), 3000) as date
label := "on {day} at {at}"
"""


@pytest.fixture(scope="module")
def prog() -> polydat.Program:
    return polydat.compile(SOURCE)


def test_casts_make_timestamps_and_dates(prog: polydat.Program):
    assert prog.outputs == {"ms": "u64", "at": "timestamp", "day": "date", "first": "date", "back": "i64",
                            "offset": "date", "label": "str"}
    k = prog.kernel()
    k.set_inputs(0)
    row = k.eval()
    assert row["at"] == np.datetime64(850882607535, "ms") and row["back"] == 850882607535
    assert row["day"] == np.datetime64("1996-12-18") and row["first"] == np.datetime64("1992-01-01")
    assert row["label"] == "on 1996-12-18 at 1996-12-18T04:16:47.535Z"
    with pytest.raises(polydat.CompileError, match="cannot cast f64 to timestamp"):
        polydat.compile("input cycle: u64\nx := to_f64(cycle) as timestamp\n")


def test_arrow_and_numpy_columns_are_typed(prog: polydat.Program):
    table = prog.generate(range(100), format="arrow", threads=2)
    assert table.schema.field("at").type == pa.timestamp("ms", tz="UTC")
    assert table.schema.field("day").type == pa.date32() and table.schema.field("offset").type == pa.date32()
    cols = prog.generate(range(100))
    assert cols["at"].dtype == np.dtype("datetime64[ms]") and cols["day"].dtype == np.dtype("datetime64[D]")
    assert cols["at"].astype(np.int64).tolist() == cols["ms"].astype(np.int64).tolist()
    assert table.column("at").cast(pa.int64()).to_pylist() == cols["ms"].astype(np.int64).tolist()
    assert table.column("day").to_pylist() == [d.astype(datetime.date) for d in cols["day"]]
    assert table.column("offset").to_pylist() == [d.astype(datetime.date) for d in cols["offset"]]
    assert max(table.column("offset").to_pylist()) < datetime.date(1970, 1, 1) + datetime.timedelta(days=3000)


def test_every_engine_gives_the_same_calendar_columns(prog: polydat.Program):
    want = prog.generate(range(500), format="arrow")
    for engine in polydat._core.engines():
        other = polydat.compile(SOURCE, engine=engine.split("/")[0],
                                provenance=engine.split("/")[1] if "/" in engine else "auto")
        assert other.generate(range(500), format="arrow", threads=2).equals(want), engine


def test_text_is_iso(prog: polydat.Program):
    plan = cli.RunPlan(prog, range(2), ["at", "day", "first"], {}, "cycle", "csv", 1, "never")
    out = io.BytesIO()
    cli.write_rows(plan, out)
    assert out.getvalue() == (
        b"cycle,at,day,first\n0,1996-12-18T04:16:47.535Z,1996-12-18,1992-01-01\n"
        b"1,1998-12-12T01:07:02.465Z,1998-12-12,1992-01-01\n"
    )
    plan = cli.RunPlan(prog, range(1), ["at", "day"], {"start": None}, None, "jsonl", 1, "never")
    out = io.BytesIO()
    cli.write_rows(plan, out)
    assert json.loads(out.getvalue()) == {"at": "1996-12-18T04:16:47.535Z", "day": "1996-12-18"}


def test_parquet_keeps_the_calendar_types(prog: polydat.Program, tmp_path):
    plan = cli.RunPlan(prog, range(1000), ["at", "day"], {"start": None}, "cycle", "parquet", 2, "never")
    with open(tmp_path / "t.parquet", "wb") as out:
        cli.write_parquet(plan, out)
    schema = pq.read_schema(tmp_path / "t.parquet")
    assert schema.field("at").type == pa.timestamp("ms", tz="UTC") and schema.field("day").type == pa.date32()


def test_hosts_write_dates_as_integers_iso_text_or_datetimes(prog: polydat.Program):
    k = prog.kernel()
    k.set_inputs(0)
    for value, day in [
        (datetime.date(2000, 2, 29), "2000-02-29"),
        (np.datetime64("2003-04-05"), "2003-04-05"),
        (datetime.datetime(2001, 1, 1, tzinfo=datetime.timezone.utc), "2001-01-01"),
        (11_000, "2000-02-13"),
        (prog.parse_input("start", "1999-12-31"), "1999-12-31"),
    ]:
        k.set("start", value)
        assert k.pull("first") == np.datetime64(day), value
    with pytest.raises(polydat.WriteError):
        k.set("start", datetime.datetime(2001, 1, 1, 12, 0))
    with pytest.raises(polydat.WriteError):
        k.set("start", "1999-12-31")  # text is read only by parse_input / --set
    assert prog.parse_input("start", "8035") == np.datetime64("1992-01-01")
    with pytest.raises(polydat.PolydatError, match="ISO date"):
        prog.parse_input("start", "1999-02-30")
    ts = polydat.compile("input cycle: u64\nextern t: timestamp = 0\nout := t\n").kernel()
    ts.set_inputs(0)
    ts.set("t", datetime.datetime(1970, 1, 1, 0, 0, 1, 500_000))
    assert ts.pull("out") == np.datetime64(1500, "ms")


def test_the_command_line_sets_and_writes_dates(tmp_path):
    src = tmp_path / "d.polydat"
    src.write_text(SOURCE)
    out = tmp_path / "d.csv"
    argv = ["run", str(src), "--cycles", "2", "--outputs", "first,day", "--set", "start=2024-02-29", "-o", str(out)]
    assert cli.main(argv) == 0
    assert out.read_text().splitlines() == ["cycle,first,day", "0,2024-02-29,1996-12-18", "1,2024-02-29,1998-12-12"]
