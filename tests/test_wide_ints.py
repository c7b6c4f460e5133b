"""The 128-bit integer port types `u128` and `i128` (issue 47 §2): declared,
computed with the 64-bit operators' rules (wrapping `+ - *`, total `/ %`),
cast at the edges of their ranges, written from Python with a range check,
and carried in every output format, on every engine."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import polydat
import polydat.testing as pt
from polydat import CompileError, _core
from polydat.errors import EvalError, PolydatError, WriteError

U128_MAX = 2**128 - 1
I128_MIN, I128_MAX = -(2**127), 2**127 - 1

EDGES = f"""
input cycle: u64
extern u: u128 = 0
extern s: i128 = 0
top := "{U128_MAX}" as u128
sum := u + top
product := u * u
diff := s - ("{I128_MAX}" as i128)
neg := -s
quotient := s / ("-1" as i128)
rest := u % (cycle as u128)
lt := s < 0
widened := u + cycle
text := "{{u}}|{{s}}"
half := (u / 2) as f64
low := (u % ("18446744073709551616" as u128)) as u64
"""

U128_CORNERS = [0, 1, 2**64 - 1, 2**64, 2**127, U128_MAX]
I128_CORNERS = [0, -1, 1, I128_MIN, I128_MAX, -(2**64)]


def test_the_core_knows_each_type_and_its_casts() -> None:
    keywords = {word for word, _ in _core.type_keywords()}
    implicit, explicit = set(_core.conversions(True)), set(_core.conversions(False))
    assert {"u128", "i128"} <= keywords
    for t in ("u128", "i128"):
        assert (t, "f64") in implicit and (t, "str") in implicit and (t, "bytes") in implicit
        assert ("bool", t) in implicit and ("u64", t) in implicit and ("u8", t) in implicit
        assert (t, "u64") in explicit - implicit, "a narrowing is never implicit"
        assert ("str", t) in explicit and ("bytes", t) in explicit
        assert ("f64", t) not in explicit, "a float becomes an integer only by a named rounding"
    assert ("i64", "i128") in implicit and ("i64", "u128") in explicit - implicit
    assert ("u128", "i128") in explicit - implicit and ("i128", "u128") in explicit - implicit


def test_arithmetic_wraps_and_divides_as_the_64_bit_operators_do() -> None:
    kernel = polydat.compile(EDGES).kernel()
    kernel.set("u", U128_MAX)
    kernel.set("s", I128_MIN)
    row = kernel.eval()
    assert row["top"] == U128_MAX and row["sum"] == U128_MAX - 1 and row["product"] == 1
    assert row["diff"] == 1, "i128::MIN - i128::MAX wraps to 1"
    assert row["neg"] == I128_MIN and row["quotient"] == I128_MIN, "the one overflowing negation wraps"
    assert row["rest"] == 0, "a zero divisor gives 0, as over u64"
    assert row["lt"] == 1 and row["widened"] == U128_MAX
    assert row["text"] == f"{U128_MAX}|{I128_MIN}"
    assert row["half"] == float(U128_MAX // 2) and row["low"] == 2**64 - 1


def test_every_engine_agrees_at_the_corners() -> None:
    steps = [{"u": u, "s": s, "cycle": c} for u in U128_CORNERS for s in I128_CORNERS[:3] for c in (0, 3)]
    steps += [{"u": 5, "s": s, "cycle": 7} for s in I128_CORNERS]
    pt.assert_engines_agree(EDGES, steps, engines=pt.engines(include_variants=True))


def test_zero_divisors_fail_under_strict_values() -> None:
    src = "pragma strict_values\ninput cycle: u64\nextern d: u128 = 1\nq := (cycle as u128) / d\n"
    kernel = polydat.compile(src).kernel()
    kernel.set("d", 0)
    with pytest.raises(EvalError, match="the divisor of '/' is 0"):
        kernel.eval()


@pytest.mark.parametrize(
    ("expr", "text", "message"),
    [
        ("(t as u128) as u64", str(U128_MAX), f"value {U128_MAX} does not fit in u64"),
        ("(t as u128) as i128", str(U128_MAX), f"value {U128_MAX} does not fit in i128"),
        ("(t as i128) as u128", "-1", "value -1 does not fit in u128"),
        ("(t as i128) as i8", "-129", "value -129 does not fit in i8"),
        ("(t as i64) as u128", "-1", "value -1 does not fit in u128"),
        ("t as u128", str(U128_MAX + 1), "__str_to_u128: number too large"),
        ("t as i128", "12x", "is not a whole number"),
    ],
)
def test_a_cast_that_does_not_fit_fails_naming_the_value_and_type(expr: str, text: str, message: str) -> None:
    kernel = polydat.compile(f'input cycle: u64\nextern t: str = "0"\ny := {expr}\n').kernel()
    kernel.set("t", text)
    with pytest.raises(EvalError, match=message):
        kernel.eval()
    # The same cast of a constant fails while compiling, at the cast.
    with pytest.raises(CompileError, match=message):
        polydat.compile(f'input cycle: u64\ny := {expr.replace("t", json.dumps(text))}\n')


def test_bytes_are_read_only_at_16() -> None:
    kernel = polydat.compile("input cycle: u64\ny := (cycle as bytes) as u128\n").kernel()
    with pytest.raises(EvalError, match="8 bytes cannot be read as u128, which takes 16"):
        kernel.eval()


def test_casts_keep_the_edges_of_each_range() -> None:
    src = (
        f'input cycle: u64\na := ("{U128_MAX}" as u128) as str\nb := ("{I128_MIN}" as i128) as str\n'
        f'c := ("{2**64 - 1}" as u128) as u64\nd := ("{I128_MAX}" as i128) as u128\n'
        'e := ("-128" as i128) as i8\nf := (cycle as i64 - 5) as i128\ng := (("-2" as i128) as bytes) as i128\n'
    )
    row = polydat.compile(src).kernel().eval()
    assert row == {"a": str(U128_MAX), "b": str(I128_MIN), "c": 2**64 - 1, "d": I128_MAX, "e": -128, "f": -5,
                   "g": -2}


def test_literals_fit_beside_a_wide_operand_and_a_giant_one_says_how_to_write_it() -> None:
    row = polydat.compile("input cycle: u64\nextern s: i128 = -3\nx := s * 1000 + 18446744073709551615\n").kernel().eval()
    assert row["x"] == 2**64 - 1 - 3000
    with pytest.raises(CompileError, match='"18446744073709551616" as u128'):
        polydat.compile("input cycle: u64\nx := 18446744073709551616\n")
    with pytest.raises(CompileError, match="u128 is unsigned; negative values do not fit"):
        polydat.compile("input cycle: u64\nextern u: u128 = -1\nx := u\n")


def test_mixing_needs_a_lossless_widening() -> None:
    polydat.compile("input cycle: u64\nextern u: u128 = 0\nx := u + cycle\ny := u + (cycle as u8)\n")
    with pytest.raises(CompileError, match="operator '\\+' is not defined for u128 and i64"):
        polydat.compile("input cycle: u64\nextern u: u128 = 0\nx := u + (cycle as i64)\n")
    with pytest.raises(CompileError, match="operator '\\+' is not defined for u128 and i128"):
        polydat.compile("input cycle: u64\nextern u: u128 = 0\nextern s: i128 = 0\nx := u + s\n")
    with pytest.raises(CompileError, match="cannot cast f64 to u128 with 'as'"):
        polydat.compile("input cycle: u64\nx := (cycle as f64) as u128\n")


@pytest.mark.parametrize(("ty", "lo", "hi"), [("u128", 0, U128_MAX), ("i128", I128_MIN, I128_MAX)])
def test_a_python_int_is_range_checked(ty: str, lo: int, hi: int) -> None:
    kernel = polydat.compile(f"extern v: {ty} = 0\ninput cycle: u64\nx := v\n").kernel()
    for good in (lo, hi, 0):
        kernel.set("v", good)
        assert kernel.eval()["x"] == good
    inside = hi + 1 if ty == "i128" else lo - 1  # a value of the other 128-bit type
    with pytest.raises(WriteError, match=f"input 'v' is {ty}.*{ty} holds {lo} to {hi}"):
        kernel.set("v", inside)
    for outside in (hi + 1, 2**200) if ty == "u128" else (lo - 1, 2**200):
        with pytest.raises(PolydatError, match=f"the integer {outside} is outside every integer type"):
            kernel.set("v", outside)
    with pytest.raises(PolydatError, match="the integer of 2001 bits is outside every integer type"):
        kernel.set("v", 2**2000)
    with pytest.raises(WriteError, match=f"input 'v' is {ty}"):
        kernel.set("v", 1.5)


def test_a_wide_python_int_into_a_u64_slot_names_the_u64_range() -> None:
    kernel = polydat.compile("extern v: u64 = 0\ninput cycle: u64\nx := v\n").kernel()
    with pytest.raises(WriteError, match="u64 holds 0 to 18446744073709551615"):
        kernel.set("v", 2**64)


SRC_COLUMNS = f'input cycle: u64\nu := (cycle as u128) * ("{2**100}" as u128) + cycle\ns := (cycle as i128) - ("{2**127 - 1}" as i128)\n'


def test_numpy_columns_are_object_arrays_of_python_ints() -> None:
    columns = polydat.compile(SRC_COLUMNS).generate(range(0, 3), ["u", "s"])
    assert str(columns["u"].dtype) == "object" and str(columns["s"].dtype) == "object"
    assert list(columns["u"]) == [c * 2**100 + c for c in range(3)]
    assert list(columns["s"]) == [c - I128_MAX for c in range(3)]
    assert all(type(v) is int for v in columns["u"])


def test_arrow_columns_are_16_little_endian_bytes_named_in_the_metadata() -> None:
    table = polydat.compile(SRC_COLUMNS).generate(range(0, 3), ["u", "s"], format="arrow")
    assert [str(f.type) for f in table.schema] == ["fixed_size_binary[16]", "fixed_size_binary[16]"]
    assert [f.metadata[b"polydat.type"] for f in table.schema] == [b"u128", b"i128"]
    u = [int.from_bytes(b, "little") for b in table.column("u").to_pylist()]
    s = [int.from_bytes(b, "little", signed=True) for b in table.column("s").to_pylist()]
    assert u == [c * 2**100 + c for c in range(3)] and s == [c - I128_MAX for c in range(3)]


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "polydat.cli", *args], capture_output=True, text=True, timeout=120)


def test_csv_json_and_parquet_keep_every_digit(tmp_path: Path) -> None:
    src = tmp_path / "wide.polydat"
    src.write_text(f'input cycle: u64\nu := ("{U128_MAX}" as u128) - cycle\ns := ("{I128_MIN}" as i128) + cycle\n')
    r = run_cli("run", str(src), "--cycles", "0..2")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["cycle,u,s", f"0,{U128_MAX},{I128_MIN}", f"1,{U128_MAX - 1},{I128_MIN + 1}"]
    r = run_cli("run", str(src), "--cycles", "0..1", "--format", "jsonl")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout.splitlines()[0]) == {"cycle": 0, "u": U128_MAX, "s": I128_MIN}
    out = tmp_path / "rows.parquet"
    r = run_cli("run", str(src), "--cycles", "0..2", "--format", "parquet", "-o", str(out))
    assert r.returncode == 0, r.stderr
    table = pq.read_table(out)
    assert str(table.schema.field("u").type) == "fixed_size_binary[16]"
    assert [int.from_bytes(b, "little") for b in table.column("u").to_pylist()] == [U128_MAX, U128_MAX - 1]


def test_set_text_is_range_checked(tmp_path: Path) -> None:
    src = tmp_path / "wide.polydat"
    src.write_text("extern v: u128 = 0\ninput cycle: u64\nx := v\n")
    r = run_cli("run", str(src), "--cycles", "1", "--set", f"v={U128_MAX}")
    assert r.stdout.splitlines() == ["cycle,x", f"0,{U128_MAX}"], r.stderr
    r = run_cli("run", str(src), "--cycles", "1", "--set", "v=-1")
    assert r.returncode != 0 and "0..=2^128-1" in r.stderr


def test_the_random_program_generator_draws_the_wide_types() -> None:
    from polydat.testing.fuzz.programs import program

    drawn: set[str] = set()
    for seed in range(60):
        drawn |= set(program(seed).types) & {"u128", "i128"}
    assert drawn == {"u128", "i128"}


def test_generated_columns_agree_on_every_engine() -> None:
    from polydat.program import engine_names

    src = f'input cycle: u64\na := (cycle as u128) * ("{2**90 + 7}" as u128)\nb := (cycle as i128) * ("-{2**80}" as i128) / 3\n'
    want = None
    for engine in engine_names():
        got = polydat.compile(src, engine=engine).generate(range(0, 5000), ["a", "b"])
        if want is None:
            want = got
            assert got["a"][4999] == (4999 * (2**90 + 7)) % 2**128
            assert got["b"][4999] == -((4999 * 2**80) // 3)
        for n in ("a", "b"):
            assert list(got[n]) == list(want[n]), (engine, n)


def test_wrapping_holds_for_drawn_values() -> None:
    from hypothesis import given, settings

    import polydat.hypothesis as ph

    kernel = polydat.compile("extern v: u128 = 0\nextern w: i128 = 0\ninput cycle: u64\nx := v + 1\ny := w - 1\n").kernel()

    @settings(max_examples=60, deadline=None)
    @given(ph.values("u128"), ph.values("i128"))
    def holds(v: int, w: int) -> None:
        kernel.set("v", v)
        kernel.set("w", w)
        row = kernel.eval()
        assert row["x"] == (v + 1) % 2**128
        assert row["y"] == (w - 1 - I128_MIN) % 2**128 + I128_MIN

    holds()


def test_choices_constants_and_emitted_rows_carry_them_on_every_engine() -> None:
    src = f"""
input cycle: u64
extern u: u128 = 7
const k := "{U128_MAX}" as u128
pick := if cycle % 2 == 0 {{ u * k }} else {{ k - u }}
sign := if u > 100 {{ "-1" as i128 }} else {{ (cycle as i128) }}
back := (pick as bytes) as u128
__row := emit_row("jsonl", "pick,sign", pick, sign)
"""
    steps = [{"u": u, "cycle": c} for u in (0, 7, 101, U128_MAX) for c in (0, 1)]
    pt.assert_engines_agree(src, steps, engines=pt.engines(include_variants=True))
    kernel = polydat.compile(src).kernel()
    kernel.set("u", 3)
    row = kernel.eval()
    assert row["pick"] == (3 * U128_MAX) % 2**128 and row["sign"] == 0 and row["back"] == row["pick"]
