"""The narrow integer port types `u8`, `i8`, `u16`, `i16` (issue 47 §2):
declared, cast at the edges of their ranges, written from Python with a
range check, and typed in every output format, on every engine."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import polydat
import polydat.testing as pt
from polydat import CompileError, _core
from polydat.errors import EvalError, WriteError

NARROW = {"u8": (0, 255), "i8": (-128, 127), "u16": (0, 65535), "i16": (-32768, 32767)}

EDGES = """
input cycle: u64
extern shift: i64 = 0
wide := cycle as i64 - shift
a := cycle as u8
b := wide as i8
c := cycle as u16
d := wide as i16
e := a as u64
f := b as f64
g := "{a}/{b}/{c}/{d}"
h := (c as u8) as i16
k := (d as i8) as i32
"""


def test_the_core_knows_each_type_and_its_casts() -> None:
    keywords = {word for word, _ in _core.type_keywords()}
    implicit, explicit = set(_core.conversions(True)), set(_core.conversions(False))
    for t in NARROW:
        assert t in keywords
        assert (t, "f64") in implicit and (t, "str") in implicit and ("bool", t) in implicit
        assert ("u64", t) in explicit and ("i64", t) in explicit and ("str", t) in explicit
        assert ("u64", t) not in implicit, "a narrowing is never implicit"
    assert ("u8", "u16") in implicit and ("i8", "i16") in implicit and ("u16", "i32") in implicit
    assert ("u8", "i8") in explicit - implicit and ("i16", "u16") in explicit - implicit


@pytest.mark.parametrize(
    ("expr", "value"),
    [("255 as u8", 255), ("-128 as i8", -128), ("65535 as u16", 65535), ("-32768 as i16", -32768),
     ("127 as i8", 127), ("0 as u8", 0)],
)
def test_casts_keep_the_edges_of_each_range(expr: str, value: int) -> None:
    ty = expr.split(" as ")[1]
    kernel = polydat.compile(f"input cycle: u64\nextern v: i64 = 0\ny := v as {ty}\n").kernel()
    kernel.set("v", value)
    assert kernel.eval()["y"] == value


@pytest.mark.parametrize(("ty", "past"), [("u8", 256), ("u8", -1), ("i8", 128), ("i8", -129),
                                          ("u16", 65536), ("i16", -32769)])
def test_a_cast_past_the_range_fails_naming_the_value_and_type(ty: str, past: int) -> None:
    kernel = polydat.compile(f"input cycle: u64\nextern v: i64 = 0\ny := v as {ty}\n").kernel()
    kernel.set("v", past)
    with pytest.raises(EvalError, match=f"value {past} does not fit in {ty}"):
        kernel.eval()


def test_every_engine_agrees_at_the_edges() -> None:
    steps = [0, 1, 127, 128, 255, 256, 32767, 32768, 65535, 65536]
    pt.assert_engines_agree(EDGES, steps, engines=pt.engines(include_variants=True))
    shifted = [{"shift": 128, "cycle": 0}, {"shift": 129, "cycle": 0}, {"shift": 300, "cycle": 0}]
    pt.assert_engines_agree(EDGES, shifted, engines=pt.engines(include_variants=True))


def test_operators_are_refused_as_over_u32() -> None:
    for t in NARROW:
        with pytest.raises(CompileError, match=f"operator '\\+' is not defined for {t} and {t}"):
            polydat.compile(f"input cycle: u64\nx := cycle as {t}\ny := x + x\n")


def test_declared_values_fit_their_range() -> None:
    for t, (lo, hi) in NARROW.items():
        polydat.compile(f"extern v: {t} = {hi}\ninput cycle: u64\nx := v\n")
        with pytest.raises(CompileError, match=f"outside the range of {t} \\({lo} to {hi}\\)"):
            polydat.compile(f"extern v: {t} = {hi + 1}\ninput cycle: u64\nx := v\n")


@pytest.mark.parametrize("ty", sorted(NARROW))
def test_a_write_out_of_range_is_refused_naming_the_input_and_range(ty: str) -> None:
    lo, hi = NARROW[ty]
    kernel = polydat.compile(f"extern v: {ty} = 0\ninput cycle: u64\nx := v\n").kernel()
    kernel.set("v", hi)
    assert kernel.eval()["x"] == hi
    for bad in (lo - 1, hi + 1):
        with pytest.raises(WriteError, match=f"input 'v' is {ty}.*{ty} holds {lo} to {hi}"):
            kernel.set("v", bad)


def test_numpy_and_arrow_columns_take_the_declared_width() -> None:
    program = polydat.compile(EDGES)
    columns = program.generate(range(0, 128), ["a", "b", "c", "d"])
    assert [str(columns[n].dtype) for n in "abcd"] == ["uint8", "int8", "uint16", "int16"]
    assert columns["a"][127] == 127 and columns["b"][127] == 127 and columns["d"][5] == 5
    table = program.generate(range(0, 3), ["a", "b", "c", "d"], format="arrow")
    assert [str(f.type) for f in table.schema] == ["uint8", "int8", "uint16", "int16"]


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "polydat.cli", *args], capture_output=True, text=True, timeout=120)


def test_csv_and_parquet_keep_the_values_and_types(tmp_path: Path) -> None:
    src = tmp_path / "narrow.polydat"
    src.write_text("input cycle: u64\nb := (cycle as i64 - 128) as i8\nc := cycle as u16\n")
    r = run_cli("run", str(src), "--cycles", "0..3")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["cycle,b,c", "0,-128,0", "1,-127,1", "2,-126,2"]
    out = tmp_path / "rows.parquet"
    r = run_cli("run", str(src), "--cycles", "0..3", "--format", "parquet", "-o", str(out))
    assert r.returncode == 0, r.stderr
    schema = pq.ParquetFile(out).schema
    assert [str(schema.column(i).logical_type) for i in (1, 2)] == [
        "Int(bitWidth=8, isSigned=true)", "Int(bitWidth=16, isSigned=false)",
    ]
    assert pq.read_table(out).column("b").to_pylist() == [-128, -127, -126]


def test_set_text_is_range_checked(tmp_path: Path) -> None:
    src = tmp_path / "narrow.polydat"
    src.write_text("extern v: u8 = 0\ninput cycle: u64\nx := v\n")
    assert run_cli("run", str(src), "--cycles", "1", "--set", "v=255").stdout.splitlines() == ["cycle,x", "0,255"]
    r = run_cli("run", str(src), "--cycles", "1", "--set", "v=256")
    assert r.returncode != 0 and "0..=255" in r.stderr


def test_the_random_program_generator_draws_the_narrow_types() -> None:
    from polydat.testing.fuzz.programs import program

    drawn: set[str] = set()
    for seed in range(60):
        drawn |= set(program(seed).types) & set(NARROW)
    assert drawn == set(NARROW)


def test_generated_columns_agree_on_every_engine_row_loops_included() -> None:
    """200k rows: enough for the native engine's row loop, which stores 2- and
    1-byte rows beside a bool's byte."""
    from polydat.program import engine_names

    src = (
        "input cycle: u64\na := (cycle % 200) as u8\nb := ((cycle % 200) as i64 - 100) as i8\n"
        "c := (cycle % 60000) as u16\nd := ((cycle % 60000) as i64 - 30000) as i16\nt := cycle as bool\n"
    )
    names = ["a", "b", "c", "d", "t"]
    want = None
    for engine in engine_names():
        got = polydat.compile(src, engine=engine).generate(range(0, 200_000), names)
        if want is None:
            want = got
            assert got["b"][0] == -100 and got["d"][59_999] == 29_999 and got["a"][199] == 199
        for n in names:
            assert got[n].dtype == want[n].dtype and (got[n] == want[n]).all(), (engine, n)
