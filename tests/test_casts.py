"""Casts and adapters: upstream's class A adapters (inserted on wires by
themselves) and class B conversions (an explicit `as` only), checked against
the core's catalog and run on every engine."""

from __future__ import annotations

import pytest

import polydat
import polydat.testing as pt
from polydat import CompileError, _core

INTS = ("u64", "i64", "u32", "i32")
NUMBERS = (*INTS, "f64", "f32")

#: Upstream's class A pairs over this project's types: widenings, every
#: integer to f64, bool to and from every number, numbers/bool/JSON to str,
#: numbers and bool to bytes, integers and bool to JSON.
CLASS_A = {
    ("u32", "u64"), ("u32", "i64"), ("i32", "i64"), ("f32", "f64"),
    *((t, "f64") for t in INTS),
    *((t, "bool") for t in NUMBERS), *(("bool", t) for t in NUMBERS),
    *((t, "str") for t in (*NUMBERS, "bool", "json")),
    *((t, "bytes") for t in (*NUMBERS, "bool")),
    *((t, "json") for t in (*INTS, "bool")),
}

#: Upstream's class B pairs an explicit `as` takes: narrowings and
#: cross-sign integers, f64 to f32, string parsers, JSON extractors, byte
#: readers, a float to JSON.
CLASS_B = {
    ("u64", "i64"), ("u64", "u32"), ("u64", "i32"), ("i64", "u64"), ("i64", "u32"), ("i64", "i32"),
    ("u32", "i32"), ("i32", "u64"), ("i32", "u32"), ("f64", "f32"), ("f64", "json"),
    *(("str", t) for t in (*NUMBERS, "bool")),
    *(("json", t) for t in ("u64", "i64", "f64", "bool")),
    *(("bytes", t) for t in (*NUMBERS, "bool")),
}


def test_the_catalog_holds_upstreams_adapters() -> None:
    implicit = set(_core.conversions(True))
    explicit = set(_core.conversions(False))
    assert CLASS_A <= implicit, sorted(CLASS_A - implicit)
    assert CLASS_B <= explicit, sorted(CLASS_B - explicit)
    assert not (CLASS_B - CLASS_A) & implicit, "class B is never implicit"
    assert ("f64", "u64") not in explicit, "f64 as u64 stays a compile error: pick a rounding node"


CASTS = """
input cycle
extern s: str = " TRUE "
extern n: str = "-42"
extern j: json = "12"
b := s as bool
i := n as i64
u := cycle as u32
w := (cycle as i64) as i32
f := (to_f64(cycle) / 3.0) as f32
jv := j as u64
jf := j as f64
back := (cycle as bytes) as u64
flag := cycle as bool
bi := flag as i64
"""


def test_casts_compute_upstreams_values_on_every_engine() -> None:
    kernel = polydat.compile(CASTS).kernel()
    kernel.set_inputs(cycle=7)
    assert kernel.eval() == {
        "b": True, "i": -42, "u": 7, "w": 7, "f": pytest.approx(7 / 3, rel=1e-6), "jv": 12, "jf": 12.0,
        "back": 7, "flag": True, "bi": 1,
    }
    pt.assert_engines_agree(CASTS, [0, 1, 7, 2**31, 2**32, 2**63, 2**64 - 1])


@pytest.mark.parametrize(
    "source, message",
    [
        ('extern s: str = "yes"\nx := s as bool', 'value "yes" is not a bool.'),
        ('extern s: str = "1.5"\nx := s as i32', 'value "1.5" is not a whole number.'),
        ("input c\nx := (c + 4294967296) as u32", "value 4294967296 does not fit in u32"),
        ('extern j: json = "-1"\nx := j as u64', "JSON value -1 is not a u64"),
        ('extern b: bytes\nx := b as u64', None),
    ],
)
def test_a_value_a_cast_cannot_read_fails_its_evaluation(source: str, message: str | None) -> None:
    kernel = polydat.compile(source).kernel()
    if message is None:
        kernel.set("b", b"\x01\x02")
        message = "2 bytes cannot be read as u64, which takes 8"
    with pytest.raises(polydat.EvalError) as info:
        kernel.pull("x")
    assert message in str(info.value)


def test_float_to_integer_casts_stay_refused() -> None:
    with pytest.raises(CompileError) as info:
        polydat.compile("input c\nx := to_f64(c) as i64")
    assert info.value.message.startswith("cannot cast f64 to i64")


#: The casts between integers, dates and timestamps that never fail: each
#: keeps its value's word or saturates, so P3 computes them in its own code.
CALENDAR_CASTS = """
input cycle
extern n: i64 = -5
extern k: i32 = -3
d := cycle as date
t := cycle as timestamp
nt := n as timestamp
back := nt as i64
kd := k as date
dk := kd as i32
"""


def test_calendar_casts_saturate_alike_on_every_engine() -> None:
    kernel = polydat.compile(CALENDAR_CASTS).kernel()
    kernel.set_inputs(cycle=2**40)
    got = kernel.eval()
    assert str(got["d"]) == "5881580-07-11", "a day count past i32 saturates at the last day"
    assert got["back"] == -5 and got["dk"] == -3
    steps = [
        pt.Step({"cycle": c, "n": n, "k": k})
        for c, n, k in [(0, 0, 0), (2**31 - 1, -1, -(2**31)), (2**31, 2**63 - 1, 2**31 - 1), (2**63, -(2**63), 7),
                        (2**64 - 1, 1, -1)]
    ]
    pt.assert_engines_agree(CALENDAR_CASTS, steps, engines=pt.engines(include_variants=True))


def test_calendar_casts_run_in_native_code() -> None:
    """No helper call: a row loop over them needs no catch."""
    plan = polydat.compile(CALENDAR_CASTS, engine="p3").explain()
    assert "6 of 6 step(s) native on their own" in plan, plan


ROUNDINGS = """
input cycle
extern x: f64 = 0.0
r := round_to_u64(x)
ru := round_u64(x)
f := floor_to_u64(x)
c := ceil_to_u64(x)
t := trunc_u64(x)
"""

#: Floats where rounding to a whole number goes wrong when done carelessly:
#: just below and above a half, halves at the edge of float precision, the
#: largest floats below 2^53 and 2^64, values past u64's range.
ROUNDING_CORNERS = (
    0.49999999999999994, 0.5, 0.5000000000000001, -0.49999999999999994, -0.5, 0.9999999999999999,
    2.5, 3.5, 1e-300, 2.0**52 - 0.5, 2.0**52 + 1, 2.0**53 - 1, 2.0**53, 2.0**63 + 2048,
    18446744073709549568.0, 2.0**64, 1e20, -1e20, 7.25, -7.75,
)


def _reference(x: float) -> dict[str, int]:
    """Exact decimal arithmetic, saturated to u64 (NaN is not among them)."""
    from decimal import ROUND_CEILING, ROUND_DOWN, ROUND_FLOOR, ROUND_HALF_UP, Decimal

    def whole(rounding: str) -> int:
        if x in (float("inf"), float("-inf")):
            return 0 if x < 0 else 2**64 - 1
        return min(max(int(Decimal(x).quantize(Decimal(1), rounding=rounding)), 0), 2**64 - 1)

    half = whole(ROUND_HALF_UP)
    return {"r": half, "ru": half, "f": whole(ROUND_FLOOR), "c": whole(ROUND_CEILING), "t": whole(ROUND_DOWN)}


def test_float_to_whole_number_nodes_round_exactly_on_every_engine() -> None:
    kernel = polydat.compile(ROUNDINGS).kernel()
    for x in ROUNDING_CORNERS:
        kernel.set_inputs(cycle=0, x=x)
        assert kernel.eval() == _reference(x), x
    steps = [pt.Step({"cycle": 0, "x": x}) for x in ROUNDING_CORNERS]
    pt.assert_engines_agree(ROUNDINGS, steps, engines=pt.engines(include_variants=True))
    plan = polydat.compile(ROUNDINGS, engine="p3").explain()
    assert "5 of 5 step(s) native on their own" in plan, plan
