"""One source of truth: conversions, output types and suggestions come from the core.

The frontend used to keep its own table of implicit widenings, which had
drifted from the core's adapters: a module parameter typed ``json`` given a
u64 passed the binder and then failed in Rust ("cannot cast u64 to json").
"""

from __future__ import annotations

import importlib
import itertools
import json

import pytest

import polydat
from polydat.dsl import corerules, types
from polydat.errors import CompileError

core = importlib.import_module("polydat._core")
TYPES = ["u64", "i64", "u32", "i32", "f64", "f32", "bool", "str", "bytes", "json"]


def test_the_frontend_keeps_no_copy_of_the_conversion_table() -> None:
    assert not hasattr(types, "IMPLICIT_WIDENINGS") and not hasattr(types, "implicitly_converts")
    implicit = set(core.conversions(implicit=True))
    explicit = set(core.conversions(implicit=False))
    for a, b in itertools.product(TYPES, TYPES):
        assert corerules.converts_implicitly(a, b) == (a == b or (a, b) in implicit), (a, b)
        assert corerules.casts(a, b) == (a == b or (a, b) in explicit), (a, b)


def test_a_json_module_parameter_refuses_a_u64_in_the_binder(bind, compile_error) -> None:  # type: ignore[no-untyped-def]
    source = "m(a: json) -> (b) := { b := a }\ninput c\nx := m(unit_interval(c))"
    err = compile_error(source)
    assert err.message == "argument 'a' of module 'm' expects json but the value is f64"
    assert (err.line, err.col) == (3, 8)
    assert err.hint == "convert it explicitly, e.g. `... as json`", "f64 -> json is a cast, never implicit"
    # ... and through the whole pipeline it is the frontend's error, not the core's.
    with pytest.raises(CompileError) as info:
        polydat.compile(source)
    assert "cannot cast" not in str(info.value)


def test_shared_annotation_follows_the_core_adapters(bind, compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error("input c\nshared x: date := unit_interval(c)")
    assert err.message == "'x' is declared date but the value is f64"
    assert err.hint == "there is no conversion from f64 to date"
    # u64 -> bytes is an adapter of the core, so it is accepted.
    bound = bind("input c\nshared x: bytes := hash(c)")
    assert bound.output_types["x"] == "bytes"


def test_a_cast_the_core_cannot_do_is_reported_at_the_as(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error("input c\nx := unit_interval(c) as date")
    assert err.message == "cannot cast f64 to date"
    assert (err.line, err.col) == (2, 23)


def test_output_types_are_asked_of_the_core(bind, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    asked: list[tuple[str, list[str], str]] = []
    real = core.output_types

    def spy(op: str, wire_types: list[str], consts_json: str) -> list[str]:
        asked.append((op, wire_types, consts_json))
        return real(op, wire_types, consts_json)

    monkeypatch.setattr(core, "output_types", spy)
    monkeypatch.setattr(corerules, "_OUTPUT_TYPES", {})
    bound = bind("input c\n(a, b, d) := mixed_radix(c, 10, 10, 0)\nf := default_or(unit_interval(c), 0.5)")
    assert bound.output_types == {"a": "u64", "b": "u64", "d": "u64", "f": "f64"}
    ops = [op for op, _, _ in asked]
    assert "mixed_radix" in ops and "default_or" in ops and "__lit" in ops
    (radix,) = [a for a in asked if a[0] == "mixed_radix"]
    assert json.loads(radix[2]) == [{"u64": 10}, {"u64": 10}, {"u64": 0}]
    # One question per (op, wire types, constant kinds): a second identical call is cached.
    before = len(asked)
    bind("input c\n(a, b, d) := mixed_radix(c, 7, 7, 0)")
    assert [a for a in asked[before:] if a[0] == "mixed_radix"] == []


def test_the_frontend_types_every_node_like_the_core(catalog) -> None:  # type: ignore[no-untyped-def]
    """No Python output-typing rule is left: the lowering module has none to drift."""
    from polydat.dsl import lowering

    source = open(lowering.__file__, encoding="utf-8").read()
    for marker in ("same_as_wire", "per_variadic_const", "const_type"):
        assert marker not in source, marker
