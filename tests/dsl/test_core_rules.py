"""One source of truth: conversions, output types and suggestions come from the core.

The frontend used to keep its own table of implicit widenings, which had
drifted from the core's adapters: a module parameter typed ``json`` given a
u64 passed the binder and then failed in Rust ("cannot cast u64 to json").
"""

from __future__ import annotations

import importlib
import json

import pytest

import polydat
from polydat.dsl import corerules, types
from polydat.errors import CompileError

from dsl_helpers import output_types

core = importlib.import_module("polydat._core")
TYPES = ["u64", "i64", "u32", "i32", "f64", "f32", "bool", "str", "bytes", "json"]


def test_the_frontend_keeps_no_copy_of_the_conversion_table() -> None:
    """The core converts and refuses every typed value (operators, casts, declarations): the
    frontend keeps no table of conversions and asks the core none."""
    for name in ("IMPLICIT_WIDENINGS", "implicitly_converts", "INTEGER_TYPES", "FLOAT_TYPES"):
        assert not hasattr(types, name), name
    for name in ("converts_implicitly", "casts", "conversion_hint", "output_types"):
        assert not hasattr(corerules, name), name
    assert not hasattr(core, "output_types")


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
    bound = bind("extern e: u64 = 1\nshared x: bytes := hash(e)")
    assert output_types(bound) == {"x": "bytes"}


def test_a_cast_the_core_cannot_do_is_reported_at_the_as(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error("input c\nx := unit_interval(c) as date")
    assert err.message == "cannot cast f64 to date"
    assert (err.line, err.col) == (2, 23)


class _CountingCore:
    """A stand-in for the extension that counts the calls made through it."""

    def __init__(self, real: object) -> None:
        self.real = real
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> object:
        value = getattr(self.real, name)
        if not callable(value) or isinstance(value, type):
            return value

        def counted(*args: object, **kwargs: object) -> object:
            self.calls.append(name)
            return value(*args, **kwargs)

        return counted


def test_binding_asks_the_core_nothing_and_the_core_types_the_outputs(
    bind, monkeypatch: pytest.MonkeyPatch  # type: ignore[no-untyped-def]
) -> None:
    source = (
        "input c\nextern n: i64 = 5\n(a, b, d) := mixed_radix(c, 10, 10, 0)\n"
        "f := default_or(unit_interval(c), 0.5)\nm := n - 20000\nk := if a > 3 { f } else { 1 }\n"
        "s := \"x\" + a + 1\nt := hash(c) + 1 + 2\nextern g: f64 = 1.5\nshared z := g * 2.0"
    )
    bind(source)  # the catalog and the type spellings are read once per process, before counting
    counting = _CountingCore(core)
    monkeypatch.setattr(corerules, "_core", lambda: counting)
    bound = bind(source)
    assert counting.calls == []
    assert output_types(bound) == {
        "a": "u64", "b": "u64", "d": "u64", "f": "f64", "m": "i64", "k": "f64", "s": "str", "t": "u64", "z": "f64",
    }


def test_the_frontend_types_every_node_like_the_core(catalog) -> None:  # type: ignore[no-untyped-def]
    """No Python output-typing rule is left: the lowering module has none to drift."""
    from polydat.dsl import lowering

    source = open(lowering.__file__, encoding="utf-8").read()
    for marker in ("same_as_wire", "per_variadic_const", "const_type"):
        assert marker not in source, marker


# Each rule below has one home in the core; the frontend asks ``_core`` and
# keeps no copy. The values are at the edges where a copy would drift.


def test_float_display_is_the_cores() -> None:
    assert not hasattr(types, "rust_f64_display")
    edges = {1e21: "1000000000000000000000", 1e-7: "0.0000001", -0.0: "-0", 1.0: "1", 0.1 + 0.2: "0.30000000000000004",
             float("inf"): "inf", float("-inf"): "-inf", float("nan"): "NaN"}
    for value, text in edges.items():
        assert core.f64_display(value) == text, value
        assert corerules.f64_display(value) == text, value
    err = polydat.check("extern n: u64 = 1e21")[0]
    assert err.message == "extern 'n' is declared u64 but its default is a float literal 1000000000000000000000"


def test_integer_literal_typing_is_the_cores(root_kernel) -> None:  # type: ignore[no-untyped-def]
    cases = {-1: "i64", 0: "u64", 2**63 - 1: "u64", 2**63: "u64", 2**64 - 1: "u64", -(2**63): "i64",
             2**64: None, -(2**63) - 1: None, 2**200: None}
    for value, ty in cases.items():
        assert core.int_literal_type(value, value) == ty, value
        assert corerules.int_literal_type(value) == ty, value
    assert corerules.int_literal_type(-1, 2**63) is None, "a negative value makes the set i64"
    # In source (a literal the frontend writes as it is: the core types it) ...
    values = polydat.compile("m(p) -> (v) := { v := p }\na := m(-1)\nb := m(9223372036854775808)").outputs
    assert values == {"a": "i64", "b": "u64"}
    # ... in comprehension values ...
    kid = next(root_kernel.for_each("a in -1, 5, b in 9223372036854775808, c in -3..2", "one := 1"))
    assert kid.program.input_types == {"a": "i64", "b": "u64", "c": "i64"}
    for values in ("-1, 9223372036854775808", "-1..=9223372036854775808"):
        with pytest.raises(CompileError, match="the values of 'a' do not fit in i64"):
            next(root_kernel.for_each(f"a in {values}", "one := 1"))


def test_workload_parameters_are_typed_by_the_core(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from polydat.workload import Workload, WorkloadError

    path = tmp_path / "w.yaml"
    path.write_text("params: {n: -3, m: 9223372036854775808}\nphases:\n  t:\n    cycles: 1\n    bindings: 'x := n\n      y := m'\n")
    table = Workload.load(path).table("t")
    assert table.column("x").to_pylist() == [-3] and str(table.column("x").type) == "int64"
    assert table.column("y").to_pylist() == [2**63] and str(table.column("y").type) == "uint64"
    for value in (2**64, -(2**63) - 1):
        with pytest.raises(WorkloadError, match=f"param 'n' = {value} does not fit in 64 bits"):
            Workload.load(path).with_params(n=value)
    assert Workload.load(path).with_params(n=-(2**63)).table("t").column("x").to_pylist() == [-(2**63)]


@pytest.fixture
def root_kernel() -> polydat.Kernel:
    return polydat.compile("const n := 3").kernel()


def test_type_spellings_are_the_cores(compile_error) -> None:  # type: ignore[no-untyped-def]
    assert not hasattr(types, "TYPE_KEYWORDS")
    assert corerules.type_keywords() == dict(core.type_keywords())
    assert corerules.canonical_type("String") == "str" and corerules.canonical_type("Json") == "json"
    assert corerules.canonical_type("u128") == "u128" and corerules.canonical_type("f16") == "f16"
    assert corerules.canonical_type("vec_f16") is None
    err = compile_error("input c: bogus")
    assert err.hint == (
        "types are: u64 i64 u32 i32 u16 i16 u8 i8 u128 i128 f64 f32 f16 bool str bytes json timestamp date"
        " vec_i32 vec_i64 vec_f64"
    )


def test_printf_placeholders_are_counted_by_the_core() -> None:
    from polydat.testing.overrides import placeholder_count

    for fmt, count in {"{} {{}} {:05}": 2, "no holes": 0, "{{{}}}": 1, "{} {": 2, "}{}": 1}.items():
        assert core.printf_placeholders(fmt) == count, fmt
        assert placeholder_count(fmt) == count, fmt


def test_the_suggestion_limit_is_the_cores() -> None:
    assert not hasattr(corerules, "_MAX_SUGGESTION_EDITS")
    for name, limit in {"a": 1, "abc": 1, "abcd": 1, "abcde": 1, "abcdef": 2, "abcdefg": 3, "a" * 40: 3, "ééé": 1}.items():
        assert core.suggestion_limit(name) == limit, name
        assert corerules.suggestion_limit(name) == limit, name
    # A name of at most five letters takes a suggestion 1 edit away, never 2 (`iban` is not `atan`).
    assert corerules.suggest("hahs", ["hash"]) == "hash"
    assert corerules.suggest("abcd", ["abcx"]) == "abcx"
    assert corerules.suggest("abcd", ["abxy"]) is None
    index = corerules.NameIndex(lambda: ["abcx", "axyz"], budget=10)
    assert index.closest("abcd") == "abcx"


def test_argument_matching_and_its_wording_are_the_cores() -> None:
    matched = core.match_arguments([("a", False, False), ("b", False, False)], ["b", None], "'f'", "f(a, b)")
    assert matched == ([1, 0], [], [], None)
    too_many = core.match_arguments([("x", False, False)], [None, None], "'hash'", "hash(x)")
    assert too_many[3] == (1, "'hash' takes 1 argument but 2 were given", "signature: hash(x)")
    # The compiler's resolve pass words a raw IR call the same way as the frontend.
    ir = {"inputs": [{"name": "c", "type": "u64", "kind": "coordinate"}],
          "nodes": [{"op": "hash", "args": [{"wire": {"input": 0}}, {"wire": {"input": 0}}]},
                    {"op": "mod", "args": [{"wire": {"input": 0}}]}],
          "outputs": [{"name": "h", "wire": {"node": {"node": 0, "port": 0}}},
                      {"name": "m", "wire": {"node": {"node": 1, "port": 0}}}]}
    with pytest.raises(CompileError) as info:
        core.Program.compile(json.dumps(ir))
    messages = [d.message for d in info.value.diagnostics]
    assert "'hash' takes 1 argument but 2 were given" in messages
    assert "missing argument 'modulus' for 'mod'" in messages


def test_conversion_hints_are_the_cores(compile_error) -> None:  # type: ignore[no-untyped-def]
    rounding = core.conversion_hint("f64", "u64")
    assert rounding.startswith("choose how to round") and "round_to_u64" in rounding
    assert compile_error("input c\nx := unit_interval(c) as u64").hint == rounding
    assert compile_error("input c\nx := !unit_interval(c)").hint == rounding
    assert core.conversion_hint("f64", "date") == "there is no conversion from f64 to date"
    # The core's cast pass gives the same hint to a raw IR cast.
    ir = {"inputs": [{"name": "c", "type": "u64", "kind": "coordinate"}],
          "nodes": [{"op": "unit_interval", "args": [{"wire": {"input": 0}}]},
                    {"op": "__cast", "args": [{"wire": {"node": {"node": 0, "port": 0}}}, {"const": {"str": "u64"}}]}],
          "outputs": [{"name": "x", "wire": {"node": {"node": 1, "port": 0}}}]}
    with pytest.raises(CompileError) as info:
        core.Program.compile(json.dumps(ir))
    assert info.value.diagnostics[0].hint == rounding


def test_a_divisor_that_is_not_constant_gets_the_nodes_own_hint(compile_error) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(CompileError) as info:
        polydat.compile("input c\nk := hash(c)\ny := div(c, k)")
    assert "must be a constant expression" in str(info.value)
    assert info.value.diagnostics[0].hint == "use `div_wire` to take the divisor from a wire"
