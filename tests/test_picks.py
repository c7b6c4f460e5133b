"""Picks among literal strings, carried as their index.

The compiler rewrites ``one_of(x, ..)`` into ``__pick_text(hash_range(x, N), ..)``
and a ``select_str`` whose branches are literal strings or such picks into
one pick whose index is a ``select``: the index is native arithmetic, and
``generate`` copies the strings of a batch of indexes at once. These tests
hold the rewrite to the values the program as written gives (fusion off) —
on every engine and mode, row by row and through ``generate`` on one and two
threads, ``None`` included — check where it must not fire, and that a pick
past its table fails the same way everywhere.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import polydat
import polydat.testing as pt

SOURCE = """
input key: u64
extern flag: u64
h := hash(key)
ship := mod(h, 10000)
receipt := mod(hash(h), 10000)
returnflag := select_str(receipt <= 9298, select_str(hash(h ^ 0x7266) & 1, "R", "A"), "N")
linestatus := select_str(ship > 9298, "O", "F")
mode := one_of(h ^ 0x736d, "REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB")
long := one_of(key, "a string longer than sixteen bytes", "", "é")
same := select_str(key & 1, "A", select_str(key & 2, "A", "B"))
nested := select_str(key & 4, one_of(key, "x", "y"), select_str(key & 8, one_of(h, "p", "q", "r"), "z"))
flagged := select_str(flag, "on", "off")
const fixed := one_of(flag, "u", "v")
frozen := select_str(key & 1, fixed, "w")
"""

OUTPUTS = ["returnflag", "linestatus", "mode", "long", "same", "nested", "flagged", "frozen"]


def _ops(prog: polydat.Program) -> list[str]:
    return [s["op"] for s in prog.explain_data()["steps"]]


def test_picks_among_literals_become_one_pick_each() -> None:
    prog = polydat.compile(SOURCE)
    ops = _ops(prog)
    # Every pick went, except the `const` capture and the select_str whose
    # branch it is (a capture's value is fixed at scope init).
    assert ops.count("one_of") == 1 and ops.count("select_str") == 1, ops
    assert ops.count("__pick_text") == 7, ops
    events = [e["message"] for e in prog.events if e["kind"] == "PickCarriedAsIndex"]
    assert any(m == "select_str over 3 literal string(s) carried as an index into them" for m in events), events
    assert not [e for e in polydat.compile(SOURCE, fusion=False).events if e["kind"] == "PickCarriedAsIndex"]
    assert "__pick_text" not in _ops(polydat.compile(SOURCE, fusion=False))


def test_a_repeated_literal_is_one_string_of_the_merged_pick() -> None:
    prog = polydat.compile('input key: u64\nout := select_str(key & 1, "A", select_str(key & 2, "A", "B"))')
    messages = [e["message"] for e in prog.events if e["kind"] == "PickCarriedAsIndex"]
    assert messages[-1].startswith("select_str over 2 literal string(s)"), messages


@pytest.mark.parametrize("threads", [1, 2])
def test_generate_agrees_with_the_program_as_written(threads: int) -> None:
    for flag in (0, 7):
        inputs = {"flag": flag}
        want = polydat.compile(SOURCE, engine="p1", fusion=False).generate(
            range(20_000), inputs=inputs, outputs=OUTPUTS, format="arrow")
        for engine in ("p1", "p2", "p3", "mixed", "auto"):
            for provenance in ("raw", "pull") if engine in ("p2", "p3") else ("auto",):
                prog = polydat.compile(SOURCE, engine=engine, provenance=provenance)
                got = prog.generate(range(20_000), inputs=inputs, outputs=OUTPUTS, format="arrow", threads=threads)
                assert got.equals(want), f"{engine}/{provenance} x{threads} flag={flag}"


def test_the_command_line_writes_the_picked_strings(tmp_path: Path) -> None:
    program = tmp_path / "picks.polydat"
    program.write_text(SOURCE)
    shown = ["returnflag", "linestatus", "mode", "nested"]
    r = subprocess.run(
        [sys.executable, "-m", "polydat.cli", "run", str(program), "--cycles", "3000", "--set", "flag=1",
         "--outputs", ",".join(shown), "--no-coordinate"],
        capture_output=True, text=True, timeout=120,
    )
    assert r.returncode == 0, r.stderr
    want = polydat.compile(SOURCE, engine="p1", fusion=False).generate(
        range(3000), inputs={"flag": 1}, outputs=shown, format="arrow")
    rows = zip(*(want.column(name).to_pylist() for name in shown))
    assert r.stdout.splitlines() == [",".join(shown)] + [",".join(row) for row in rows]


def test_every_engine_agrees_row_by_row() -> None:
    # `flag` has no value (None) until the first step that writes it.
    steps = [pt.Step(write={"key": k}) for k in pt.U64_CORNERS[:4]]
    steps += [pt.Step(write={"key": k, "flag": f}) for k in pt.U64_CORNERS for f in (0, 1)]
    pt.assert_engines_agree(SOURCE, steps, engines=pt.engines(include_variants=True))


def test_a_pick_past_its_strings_fails_at_its_row_everywhere() -> None:
    source = 'input key: u64\nout := __pick_text(key, "a", "b")'
    failures = set()
    for engine in ("p1", "p2", "p3", "mixed", "auto"):
        prog = polydat.compile(source, engine=engine)
        assert list(prog.generate(range(2), format="arrow").column("out").to_pylist()) == ["a", "b"]
        for threads in (1, 2):
            with pytest.raises(polydat.PolydatError) as err:
                prog.generate(range(5000), threads=threads)
            failures.add(str(err.value).splitlines()[0])
    assert len(failures) == 1, failures
    assert "index 2 is past the table's 2 string(s)" in failures.pop()


def test_a_parquet_writer_takes_picks_as_dictionary_arrays(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    from polydat.stream import parquet_encoding
    from polydat.workload import Workload

    workload = Workload.load(Path(__file__).resolve().parent.parent / "examples" / "tpch" / "tpch.yaml")
    workload = workload.with_params(sf=0.02)
    chain = workload.chain()
    phase = workload._phase("lineitem")
    assert parquet_encoding() == "parquet"
    for threads in (1, 2):
        batches = [pa.record_batch(b) for b, _ in chain.stream(phase, threads, "parquet", None)]
        assert len(batches) > 1
        for batch in batches:
            picked = [f.name for f in batch.schema if pa.types.is_dictionary(f.type)]
            assert picked == ["l_returnflag", "l_linestatus", "l_shipinstruct", "l_shipmode"], picked
            assert batch.schema.field("l_shipmode").type == pa.dictionary(pa.uint8(), pa.string())
            assert not [f.name for f in batch.schema if f.nullable]
        path = tmp_path / f"lineitem{threads}.parquet"
        with open(path, "wb") as out:
            workload.write("lineitem", out, "parquet", threads)
        back = pq.read_table(path)
        want = workload.table("lineitem")
        # Read back as written without dictionaries: plain strings, the same
        # rows; every field required (no row of lineitem can be None).
        assert [(f.name, f.type) for f in back.schema] == [(f.name, f.type) for f in want.schema]
        assert not [f.name for f in back.schema if f.nullable]
        assert back.cast(want.schema).equals(want)
        column = pq.ParquetFile(path).metadata.row_group(0).column(back.schema.get_field_index("l_shipmode"))
        assert "RLE_DICTIONARY" in column.encodings


def test_a_batch_without_dictionaries_is_cast_to_the_first_ones_schema(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    from polydat.stream import write_parquet_batches

    strings = pa.array(["x", "y"])
    first = pa.record_batch({"s": pa.DictionaryArray.from_arrays(pa.array([1, 0, None], pa.uint8()), strings)})
    plain = pa.record_batch({"s": pa.array(["y", None, "x"])})
    path = tmp_path / "mixed.parquet"
    with open(path, "wb") as out:
        rows = write_parquet_batches(out, [(first, 3), (plain, 3)], lambda: pa.schema([pa.field("s", pa.string())]))
    assert rows == 6
    assert pq.read_table(path).column("s").to_pylist() == ["y", "x", None, "y", None, "x"]
    with open(path, "wb") as out:
        assert write_parquet_batches(out, [], lambda: pa.schema([pa.field("s", pa.string())])) == 0
    assert pq.read_table(path).num_rows == 0


def test_the_command_line_writes_parquet_that_reads_back_as_generated(tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    program = tmp_path / "picks.polydat"
    program.write_text(SOURCE)
    out = tmp_path / "picks.parquet"
    r = subprocess.run(
        [sys.executable, "-m", "polydat.cli", "run", str(program), "--cycles", "200000", "--set", "flag=1",
         "--outputs", ",".join(OUTPUTS), "--no-coordinate", "-o", str(out), "--threads", "2"],
        capture_output=True, text=True, timeout=120,
    )
    assert r.returncode == 0, r.stderr
    want = polydat.compile(SOURCE, engine="p1", fusion=False).generate(
        range(200000), inputs={"flag": 1}, outputs=OUTPUTS, format="arrow")
    back = pq.read_table(out)
    # `flag` is set, so no row can be None: every field is required.
    assert [(f.name, f.type, f.nullable) for f in back.schema] == [(f.name, f.type, False) for f in want.schema]
    assert back.cast(want.schema).equals(want)


def test_the_first_of_several_failures_is_the_one_the_program_as_written_reports() -> None:
    # A select_str rewritten into parts keeps its place in the evaluation
    # order: `v4` fails before `v6`, fused or not (found by the random
    # program suite on a release build).
    source = """
input cycle: u64
volatile v4 := partitions(if(cycle, "", ""), 3)
volatile v6 := (type_of(cycle) as u64)
"""
    steps = [pt.Step(write={"cycle": 0}, pulls=("*eval*",), invalidate_all=True)]
    pt.assert_engines_agree(source, steps, engines=pt.engines(include_variants=True))
