"""A ``where`` predicate reads only names that exist (the tuple's names and
the enclosing scopes'): an undefined ``{name}`` is a compile error pointing
at the predicate, never a predicate that silently keeps or drops tuples."""

from __future__ import annotations

from pathlib import Path

import pytest

import polydat
from polydat import CompileError
from polydat.workload import Workload


@pytest.fixture()
def outer() -> polydat.Kernel:
    return polydat.compile("extern n: u64 = 3").kernel()


@pytest.mark.parametrize("where", ["{zz} == 0", "{zz} != 0", "{i} + {nn} > 0"])
def test_an_undefined_name_in_where_is_a_compile_error(outer: polydat.Kernel, where: str) -> None:
    with pytest.raises(CompileError) as info:
        list(outer.for_each(f"i in 0..{{n}} where {where}", "v := i"))
    missing = "zz" if "zz" in where else "nn"
    assert f"'{missing}'" in info.value.message and "where" in info.value.message
    assert (info.value.line, info.value.col) == (1, 13), "at the where keyword"
    if missing == "nn":
        assert info.value.hint == "did you mean 'n'?"


def test_defined_names_still_filter(outer: polydat.Kernel) -> None:
    kept = [k.iteration for k in outer.for_each("i in 0..{n} where {i} == 1", "v := i")]
    assert kept == [{"i": 1}]
    kept = [k.iteration for k in outer.for_each("i in 0..{n} where {n} == 3", "v := i")]
    assert kept == [{"i": 0}, {"i": 1}, {"i": 2}]


def test_an_undefined_name_in_a_workload_where_is_an_error(tmp_path: Path) -> None:
    text = (
        "params:\n  n: 3\nphases:\n  t:\n    for_each: \"i in 0..{n} where {zz} == 0\"\n"
        "    bindings: |\n      v := i\n"
    )
    (tmp_path / "w.yaml").write_text(text)
    with pytest.raises(polydat.PolydatError, match="'zz'"):
        Workload.load(tmp_path / "w.yaml").table("t")


@pytest.mark.parametrize("body", ["{k} > " + "(" * 3000 + "3" + ")" * 3000, "!" * 5000 + "{k}", "-" * 5000 + "{k} > 1"])
def test_a_predicate_nested_past_the_limit_is_a_compile_error(body: str) -> None:
    # the predicate parser recurses per level: past the limit it refuses the
    # predicate, never a RecursionError (found by the long frontend fuzz)
    src = f'input cycle: u64\nsweep := for k in 1..9\nbig := for sweep where {body}\nfor big {{\n    label := "k={{k}}"\n}}\n'
    with pytest.raises(polydat.CompileError, match="deeper than 100 levels"):
        polydat.compile(src)
    deep_enough = 'input cycle: u64\nsweep := for k in 1..9\nbig := for sweep where {k} > ' + "(" * 60 + "3" + ")" * 60
    assert polydat.compile(deep_enough + '\nfor big {\n    label := "k={k}"\n}\n')
