"""An outer `const` read where a value is converted (issue 44 item 9): a
module's `f64` parameter, an annotated binding, an `as` cast. The outer
literal is inlined into the reader, and the reader fits it as it fits a
literal written there (an int given to an f64 converts, the core's rule);
it was refused with "malformed cast/coercion"."""

from __future__ import annotations

from pathlib import Path

import pytest

import polydat
from polydat import CompileError

ROOT = Path(__file__).resolve().parent.parent
SCALE = "scale(x: u64, k: f64) -> (y: f64) := {\n  y := (x as f64) * k\n}\ninput cycle\n"


def run_under(outer_source: str, source: str) -> list[object]:
    outer = polydat.compile(outer_source)
    inner = polydat.compile(source, outer=outer)
    return inner.kernel(outer=outer.kernel()).generate(cycles=3, outputs=["out"], format="arrow").column(
        "out").to_pylist()


@pytest.mark.parametrize("value, expected", [("3", [0.0, 3.0, 6.0]), ("2.5", [0.0, 2.5, 5.0])])
def test_a_module_f64_parameter_takes_an_outer_const(value: str, expected: list[float]) -> None:
    assert run_under(f"const m := {value}\n", SCALE + "out := scale(cycle, m)") == expected


def test_an_outer_const_converts_where_a_type_is_declared_or_cast() -> None:
    assert run_under("const m := 3\n", "input cycle\nout := m as f64") == [3.0, 3.0, 3.0]
    assert run_under("const m := 3\n", "input cycle\nout := m as str") == ["3", "3", "3"]


def test_an_outer_const_that_does_not_fit_is_refused_in_the_declarations_words() -> None:
    with pytest.raises(CompileError) as info:
        run_under("const m := 2.5\n", "half(x: u64) -> (y: u64) := {\n  y := x\n}\ninput cycle\nout := half(m)")
    assert "malformed" not in info.value.message and "2.5" in info.value.message, info.value.message


def test_the_shop_workload_takes_an_int_mean_orders() -> None:
    workload = polydat.Workload.load(str(ROOT / "examples" / "shop" / "shop.yaml")).with_params(users=5, mean_orders=3)
    tables = workload.tables()
    assert tables["orders"].num_rows > 0
    same = polydat.Workload.load(str(ROOT / "examples" / "shop" / "shop.yaml")).with_params(users=5, mean_orders=3.0)
    assert same.tables()["orders"].equals(tables["orders"]), "the int converts to the f64 it names"
    assert set(tables["orders"].column("user_id").to_pylist()) <= set(range(5))
