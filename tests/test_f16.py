"""The `f16` port type (IEEE binary16, issue 47 §2): exact widenings to f32
and f64, narrowing casts that round to nearest and refuse a finite value past
f16's range (as `f64 as f32` does), text and bytes both ways, Python writes
rounded to the nearest f16, and the type kept in every output format, on
every engine."""

from __future__ import annotations

import json
import math
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

import polydat
import polydat.testing as pt
from polydat import CompileError, _core
from polydat.errors import EvalError, WriteError

CASTS = """
input cycle: u64
extern shift: f64 = 0.0
h := ((cycle as f64) - shift) / 3.0
x := h as f16
y := x as f64
z := (h as f32) as f16
s := x as str
b := x as bytes
back := b as f16
parsed := s as f16
small := ((cycle % 256) as u8) as f16
wide := z as f32
"""


def f16(value: float) -> float:
    """``value`` rounded to the nearest f16 (numpy's IEEE conversion)."""
    return float(np.float16(value))


def test_the_core_knows_the_type_and_its_conversions() -> None:
    assert "f16" in {word for word, _ in _core.type_keywords()}
    implicit, explicit = set(_core.conversions(True)), set(_core.conversions(False))
    for pair in [("f16", "f32"), ("f16", "f64"), ("u8", "f16"), ("i8", "f16"), ("f16", "str"), ("f16", "bytes")]:
        assert pair in implicit, pair
    for pair in [("f64", "f16"), ("f32", "f16"), ("str", "f16"), ("bytes", "f16")]:
        assert pair in explicit - implicit, pair
    assert ("u16", "f16") not in explicit, "u16 has values an f16 does not hold"
    assert ("f16", "u64") not in explicit, "a float never becomes an integer by `as`"


def test_casts_round_to_nearest_and_read_back_on_every_engine() -> None:
    names = ["x", "y", "z", "s", "b", "back", "parsed", "small"]
    want = None
    for engine in polydat.program.engine_names():
        got = polydat.compile(CASTS, engine=engine).generate(range(0, 300), names)
        assert got["x"].dtype == np.float16 and got["y"].dtype == np.float64
        if want is None:
            want = got
            expected = np.array([c / 3.0 for c in range(300)]).astype(np.float16)
            assert (got["x"] == expected).all()
            assert (got["y"] == expected.astype(np.float64)).all(), "f16 -> f64 is exact"
            assert list(got["s"][:4]) == ["0", "0.3333", "0.6665", "1"]
            assert got["b"][1] == struct.pack("<e", 1 / 3)
            assert (got["back"] == got["x"]).all() and (got["parsed"] == got["x"]).all()
            assert got["small"][255] == 255.0 and got["small"][256] == 0.0
        for n in names:
            assert (np.asarray(got[n]) == np.asarray(want[n])).all(), (engine, n)


def test_every_engine_agrees_including_the_mixed_one() -> None:
    steps = [0, 1, 2, 3, 100, 255, 256, 196_607, 196_608]
    pt.assert_engines_agree(CASTS, steps, engines=pt.engines(include_variants=True))
    pt.assert_engines_agree(CASTS, [{"shift": -1e5, "cycle": 7}], engines=pt.engines(include_variants=True))


@pytest.mark.parametrize(("value", "expected"), [(0.1, 0.0999755859375), (2049.0, 2048.0), (2051.0, 2052.0),
                                                  (65519.0, 65504.0), (-65504.0, -65504.0), (1e-8, 0.0)])
def test_a_narrowing_cast_rounds_to_nearest_even(value: float, expected: float) -> None:
    kernel = polydat.compile("input cycle: u64\nextern v: f64 = 0.0\ny := v as f16\n").kernel()
    kernel.set("v", value)
    assert kernel.eval()["y"] == expected == f16(value)


@pytest.mark.parametrize("past", [65520.0, -1e6, 1e300])
def test_a_cast_past_the_range_fails_naming_the_value(past: float) -> None:
    for source in ("v as f16", "(v as f32) as f16"):
        kernel = polydat.compile(f"input cycle: u64\nextern v: f64 = 0.0\ny := {source}\n").kernel()
        kernel.set("v", past)
        with pytest.raises(EvalError, match="does not fit in f(16|32)"):
            kernel.eval()


def test_infinities_and_nan_pass_through_a_cast() -> None:
    kernel = polydat.compile("input cycle: u64\nextern v: f64 = 0.0\ny := v as f16\n").kernel()
    for v in (math.inf, -math.inf):
        kernel.set("v", v)
        assert kernel.eval()["y"] == v
    kernel.set("v", math.nan)
    assert math.isnan(kernel.eval()["y"])


def test_text_and_bytes_casts_refuse_what_is_not_an_f16() -> None:
    kernel = polydat.compile("input cycle: u64\nextern t: str = \"1\"\ny := t as f16\n").kernel()
    kernel.set("t", " 0.5 ")
    assert kernel.eval()["y"] == 0.5
    for bad in ("abc", "1e5"):
        kernel.set("t", bad)
        with pytest.raises(EvalError):
            kernel.eval()
    kernel = polydat.compile("input cycle: u64\ny := (cycle as bytes) as f16\n").kernel()
    with pytest.raises(EvalError, match="8 bytes cannot be read as f16, which takes 2"):
        kernel.eval()


def test_operators_and_integer_casts_are_refused_as_over_f32() -> None:
    with pytest.raises(CompileError, match="operator '\\+' is not defined for f16 and f64"):
        polydat.compile("input cycle: u64\nx := (cycle as u8) as f16\ny := x + 1.0\n")
    with pytest.raises(CompileError, match="choose how to round"):
        polydat.compile("input cycle: u64\nx := (cycle as u8) as f16\ny := x as u64\n")
    y = polydat.compile("input cycle: u64\nx := (cycle as u8) as f16\ny := (x as f64) + 0.5\n").kernel()
    y.set_inputs(3)
    assert y.eval()["y"] == 3.5


def test_python_writes_round_to_nearest_and_refuse_past_the_range() -> None:
    kernel = polydat.compile("extern v: f16 = 0.5\ninput cycle: u64\nx := v\n").kernel()
    assert kernel.eval()["x"] == 0.5
    for value in (0.1, 1 / 3, 65519.0, -2.5, 3, True):
        kernel.set("v", value)
        assert kernel.eval()["x"] == f16(value)
    kernel.set("v", math.inf)
    assert kernel.eval()["x"] == math.inf
    for past in (65520.0, -70000.0, 1e300):
        with pytest.raises(WriteError, match="input 'v' is f16.*f16 holds finite values from -65504 to 65504"):
            kernel.set("v", past)


def test_a_default_must_be_an_exact_f16() -> None:
    assert polydat.compile("extern v: f16 = 65504\ninput cycle: u64\nx := v\n").kernel().eval()["x"] == 65504.0
    with pytest.raises(CompileError, match="0.1 has no exact f16 value"):
        polydat.compile("extern v: f16 = 0.1\ninput cycle: u64\nx := v\n")


def test_arrow_columns_are_float16() -> None:
    table = polydat.compile(CASTS).generate(range(0, 4), ["x", "small"], format="arrow")
    assert [str(f.type) for f in table.schema] == ["halffloat", "halffloat"]
    assert table.column("x").to_pylist() == [f16(c / 3) for c in range(4)]


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "polydat.cli", *args], capture_output=True, text=True, timeout=120)


def test_csv_jsonl_and_parquet_keep_the_values(tmp_path: Path) -> None:
    src = tmp_path / "half.polydat"
    src.write_text("input cycle: u64\nx := ((cycle as f64) / 3.0 - 0.5) as f16\n")
    r = run_cli("run", str(src), "--cycles", "0..4")
    assert r.returncode == 0, r.stderr
    # The shortest text that reads back to the same f16.
    assert r.stdout.splitlines() == ["cycle,x", "0,-0.5", "1,-0.1666", "2,0.1666", "3,0.5"]
    for line, c in zip(r.stdout.splitlines()[1:], range(4)):
        assert f16(float(line.split(",")[1])) == f16(c / 3 - 0.5)
    r = run_cli("run", str(src), "--cycles", "0..2", "--format", "jsonl")
    assert [json.loads(line)["x"] for line in r.stdout.splitlines()] == [-0.5, -0.1666]
    out = tmp_path / "rows.parquet"
    r = run_cli("run", str(src), "--cycles", "0..4", "--format", "parquet", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert str(pq.ParquetFile(out).schema.column(1).logical_type) == "Float16"
    assert pq.read_table(out).column("x").to_pylist() == [f16(c / 3 - 0.5) for c in range(4)]


def test_set_text_rounds_and_refuses_past_the_range(tmp_path: Path) -> None:
    src = tmp_path / "half.polydat"
    src.write_text("extern v: f16 = 0\ninput cycle: u64\nx := v\n")
    assert run_cli("run", str(src), "--cycles", "1", "--set", "v=0.1").stdout.splitlines() == ["cycle,x", "0,0.1"]
    r = run_cli("run", str(src), "--cycles", "1", "--set", "v=1e5")
    assert r.returncode != 0 and "does not fit in f16" in r.stderr


def test_the_random_program_generator_draws_f16() -> None:
    from polydat.testing.fuzz.programs import program

    assert any("f16" in program(seed).types for seed in range(60))


def test_hypothesis_draws_f16_values() -> None:
    from hypothesis import given

    from polydat.hypothesis import values

    @given(values("f16"))
    def check(v: float) -> None:
        assert math.isnan(v) or f16(v) == v

    check()


def test_interpolation_and_if_carry_f16_on_every_engine() -> None:
    src = (
        'input cycle: u64\nx := ((cycle as f64) / 3.0) as f16\ng := "v={x}"\n'
        "c := if cycle % 2 == 0 { x } else { (cycle as u8) as f16 }\n"
    )
    for engine in polydat.program.engine_names():
        got = polydat.compile(src, engine=engine).generate(range(0, 4), ["g", "c"])
        assert list(got["g"]) == ["v=0", "v=0.3333", "v=0.6665", "v=1"], engine
        assert got["c"].dtype == np.float16 and list(got["c"]) == [0.0, 1.0, f16(2 / 3), 3.0], engine
