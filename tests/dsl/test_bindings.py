"""Bindings, modifiers, tuples, inputs, externs, free names, ordering and cycles."""

from __future__ import annotations

import json

import pytest

from dsl_helpers import core_ops, core_tree, f64_bits, ops, output, output_types, producer, tree
from polydat.dsl import parse
from polydat.errors import CompileError


def test_minimal_program_ir(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind("input cycle: u64\nhashed := hash(cycle)\nuser_id := mod(hashed, 1000000)")
    assert bound.ir == {
        "inputs": [{"name": "cycle", "type": "u64", "kind": "coordinate", "default": None, "span": {"line": 1, "col": 7}}],
        "nodes": [
            {"op": "hash", "args": [{"wire": {"input": 0}}], "span": {"line": 2, "col": 11}},
            {"op": "mod", "args": [{"wire": {"node": {"node": 0, "port": 0}}}, {"const": {"int": 1000000}}],
             "span": {"line": 3, "col": 12}, "arg_spans": [None, {"line": 3, "col": 24}]},
        ],
        "outputs": [
            {"name": "hashed", "wire": {"node": {"node": 0, "port": 0}}, "modifiers": [], "span": {"line": 2, "col": 1}},
            {"name": "user_id", "wire": {"node": {"node": 1, "port": 0}}, "modifiers": [], "span": {"line": 3, "col": 1}},
        ],
    }
    assert json.loads(bound.ir_json()) == bound.ir
    assert bound.input_names == ("cycle",)
    assert output_types(bound) == {"hashed": "u64", "user_id": "u64"}
    assert bound.spans["user_id"].line == 3 and bound.spans["cycle"].col == 7
    assert bound.source.startswith("input cycle")


def test_bindings_may_be_used_before_definition(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind("input cycle\nb := hash(a)\na := hash(cycle)")
    assert [o["name"] for o in bound.ir["outputs"]] == ["b", "a"]
    assert tree(bound, "b") == ("hash", ("hash", "cycle"))
    assert len(bound.ir["nodes"]) == 2


def test_nodes_are_in_dependency_order(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind("input c\nz := y + x\ny := x * 2\nx := hash(c)")
    for index, node in enumerate(bound.ir["nodes"]):
        for arg in node["args"]:
            if "wire" in arg and "node" in arg["wire"]:
                assert arg["wire"]["node"]["node"] < index


def test_alias_and_literal_bindings_are_outputs(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind("input cycle\nx := 5\ny := x\nz := cycle")
    assert output(bound, "x")["wire"] == {"node": {"node": 0, "port": 0}}
    assert output(bound, "y")["wire"] == output(bound, "x")["wire"]
    assert output(bound, "z")["wire"] == {"input": 0}
    assert ops(bound) == ["__lit"]


def test_modifiers_reach_the_ir(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind(
        "input cycle\nconst base := 42\nconst seed := hash(base)\nshared budget := 100\n"
        "volatile attempt := mod(hash(cycle), 8)\nshared volatile both := 1"
    )
    mods = {o["name"]: o["modifiers"] for o in bound.ir["outputs"]}
    assert mods == {
        "base": ["const"], "seed": ["const"], "budget": ["shared"], "attempt": ["volatile"],
        "both": ["shared", "volatile"],
    }


def test_const_may_not_read_a_coordinate(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error("input cycle\nh := hash(cycle)\nconst k := mod(h, 10)")
    assert err.message == "const binding 'k' depends on coordinate input 'cycle'"
    assert (err.line, err.col) == (3, 7)
    assert "coordinates" in err.hint


def test_const_may_read_externs(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind("extern seed: u64 = 7\nconst k := hash(seed)")
    assert output(bound, "k")["modifiers"] == ["const"]


@pytest.mark.parametrize(
    "source, message, col",
    [
        ("const volatile x := 1", "'const' and 'volatile' cannot be combined", 7),
        ("volatile const x := 1", "'const' and 'volatile' cannot be combined", 10),
        ("shared const x := 1", "'shared' and 'const' cannot be combined", 8),
        ("const shared x := 1", "'shared' and 'const' cannot be combined", 7),
        ("const const x := 1", "duplicate modifier 'const'", 7),
        ("volatile shared volatile x := 1", "duplicate modifier 'volatile'", 17),
    ],
)
def test_modifier_rejections(compile_error, source: str, message: str, col: int) -> None:  # type: ignore[no-untyped-def]
    err = compile_error(source)
    assert err.message == message
    assert (err.line, err.col) == (1, col)
    assert err.hint


def test_type_annotation_only_on_shared(compile_error) -> None:  # type: ignore[no-untyped-def]
    for source in ("x: f64 := 1", "const x: f64 := 1"):
        err = compile_error(source)
        assert err.message == "a type annotation ('x: f64') is only allowed on a 'shared' binding"
        assert "extern x: f64" in err.hint


def test_shared_annotation_pins_the_type(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind("shared total: f64 := 0\nshared name: str := 'x'\nextern e: u64 = 3\nshared wide: f64 := e")
    assert core_tree(bound, "__seed_total") == 0.0  # the literal 0, typed f64 by the core
    assert output_types(bound) == {"total": "f64", "name": "str", "wide": "f64"}
    assert tree(bound, "wide") == ("__coerce", "e", ("const", "f64"), ("const", "'wide' is declared f64"))


def test_shared_annotation_mismatch(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error("shared n: u64 := 1.5")
    assert err.message == "'n' is declared u64 but its value is a float literal 1.5"
    err = compile_error("extern f: f64 = 1\nshared n: u64 := f")
    assert err.message == "'n' is declared u64 but the value is f64"
    assert "round_to_u64" in err.hint


def test_tuple_destructuring(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind("input cycle\n(tenant, device) := mixed_radix(cycle, 100, 0)\nt := hash(tenant)")
    assert [o["name"] for o in bound.ir["outputs"]] == ["tenant", "device", "t"]
    assert output(bound, "device")["wire"] == {"node": {"node": 0, "port": 1}}


def test_tuple_may_bind_fewer_names_and_discard_with_underscore(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind("input cycle\n(a, _, c) := mixed_radix(cycle, 2, 3, 0)\n(d) := hash(cycle)\n(_, _, e) := mixed_radix(cycle, 2, 3, 0)")
    assert [o["name"] for o in bound.ir["outputs"]] == ["a", "c", "d", "e"]
    assert output(bound, "c")["wire"] == {"node": {"node": 0, "port": 2}}


def test_tuple_with_too_many_targets(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error("input cycle\n(a, b, c) := mixed_radix(cycle, 10, 0)")
    assert err.message == "too many names: 'mixed_radix' has 2 outputs but 3 names are bound"
    assert (err.line, err.col) == (2, 8)
    err = compile_error("input cycle\n(a, b) := hash(cycle)")
    assert err.message == "too many names: 'hash' has 1 output but 2 names are bound"


def test_tuple_with_modifiers(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind("input cycle\nvolatile (a, b) := mixed_radix(cycle, 10, 0)")
    assert [o["modifiers"] for o in bound.ir["outputs"]] == [["volatile"], ["volatile"]]


def test_redefinition_is_an_error(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error("x := 1\ny := 2\nx := 3")
    assert err.message == "'x' is already bound"
    assert (err.line, err.col) == (3, 1)
    assert err.hint == "first declared at 1:1; every name is bound once"


def test_binding_an_input_name_is_an_error(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error("input cycle\ncycle := 3")
    assert err.message == "'cycle' is already declared as an input"
    err = compile_error("extern e: u64\n(a, e) := mixed_radix(a, 2, 0)")
    assert [d.message for d in err.diagnostics] == ["binding 'a' depends on itself", "'e' is already declared as an extern"]
    err = compile_error("input a\ninput (b, a: f64)")  # the same type again is a warning (test_inferred_inputs)
    assert err.message == "'a' is already declared as an input"
    assert (err.line, err.col) == (2, 11)


def test_bare_expression_is_not_a_statement(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error("input cycle\nhash(cycle)")
    assert err.message == "a bare expression is not a statement"
    assert (err.line, err.col) == (2, 1)
    assert err.hint == "bind it to a name: `name := ...`"
    err = compile_error("x := 1\n1 + 2")
    assert err.message == "a bare expression is not a statement"


def test_free_names_become_coordinates_in_order_of_first_use(bind) -> None:  # type: ignore[no-untyped-def]
    # A program that declares no input infers them (one that declares any does not: test_inferred_inputs).
    bound = bind(
        "extern region: str = 'eu'\n"
        "a := hash(zeta) + alpha\nb := mod(beta, 3) + zeta\nc := delta"
    )
    assert bound.input_names == ("zeta", "alpha", "beta", "delta", "region")
    inputs = bound.ir["inputs"]
    assert [i["kind"] for i in inputs] == ["coordinate"] * 4 + ["extern"]
    assert [i["type"] for i in inputs] == ["u64"] * 4 + ["str"]
    assert inputs[0]["span"] == {"line": 2, "col": 11}
    assert bound.coordinate_names == ("zeta", "alpha", "beta", "delta")


def test_free_name_first_use_follows_statement_order_not_dependency_order(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind("b := hash(second) + a\na := hash(first)")
    assert bound.input_names == ("second", "first")


def test_node_name_without_call_is_a_free_input(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind("x := hash")
    assert bound.input_names == ("hash",)


def test_outer_names_become_externs(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind("x := hash(cycle) + scale\nlabel := \"{region}\"", outer={"scale": "u64", "region": "str"})
    assert [(i["name"], i["kind"], i["type"]) for i in bound.ir["inputs"]] == [
        ("cycle", "coordinate", "u64"), ("scale", "extern", "u64"), ("region", "extern", "str"),
    ]


def test_externs_with_defaults(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind(
        'extern region: str = "us-east"\nextern scale: u64 = 10\nextern ratio: f64 = 2\n'
        "extern offset: f64 = -1.5\nextern delta: i64 = -3\nextern on: bool = true\nextern unset: u64\n"
        "extern hexy: u64 = 0xFF\nextern si: u64 = 4K"
    )
    defaults = {i["name"]: i["default"] for i in bound.ir["inputs"]}
    assert defaults == {  # as written: the core types each for its declaration
        "region": {"str": "us-east"},
        "scale": {"int": 10},
        "ratio": {"int": 2},
        "offset": {"f64": f64_bits(-1.5)},
        "delta": {"int": -3},
        "on": {"bool": True},
        "unset": None,
        "hexy": {"int": 255},
        "si": {"int": 4000},
    }
    assert all(i["kind"] == "extern" for i in bound.ir["inputs"])
    import polydat

    values = polydat.compile(bound.source).kernel().input_values()
    assert values == {
        "region": "us-east", "scale": 10, "ratio": 2.0, "offset": -1.5, "delta": -3, "on": True, "unset": None,
        "hexy": 255, "si": 4000,
    }
    assert [type(values[n]) for n in ("ratio", "delta")] == [float, int]


@pytest.mark.parametrize(
    "decl, message",
    [
        ("extern n: u64 = 1.5", "extern 'n' is declared u64 but its default is a float literal 1.5"),
        ("extern n: u64 = -1", "extern 'n' is declared u64 but its default is an integer literal -1"),
        ('extern n: f64 = "x"', "extern 'n' is declared f64 but its default is a string literal \"x\""),
        ("extern n: str = 5", "extern 'n' is declared str but its default is an integer literal 5"),
        ("extern n: u64 = hash(1)", "the default of extern 'n' must be a literal"),
        ('extern n: u64 = "{x}"', "the default of extern 'n' must be a literal"),
    ],
)
def test_extern_default_errors(compile_error, decl: str, message: str) -> None:  # type: ignore[no-untyped-def]
    err = compile_error(decl)
    assert err.message == message
    assert (err.line, err.col) == (1, 17)


def test_extern_needs_a_type(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error("extern region")
    assert err.message == "expected ':' and a type but found end of input"
    assert err.hint == "externs are typed: `extern region: u64 = 0`"


def test_extern_with_unknown_type(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error("extern region: string")
    assert err.message == "unknown type 'string'"
    assert err.hint == "did you mean 'String'?"


def test_input_types(bind, compile_error) -> None:  # type: ignore[no-untyped-def]
    bound = bind("input (a: u64, b)\ninput c: f64")
    assert [i["type"] for i in bound.ir["inputs"]] == ["u64", "u64", "f64"]
    err = compile_error("input a: u63")
    assert (err.message, err.hint) == ("unknown type 'u63'", "did you mean 'u64'?")


def test_empty_input_tuple(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error("input ()")
    assert err.message == "'input ()' declares no inputs"


def test_cycle_between_bindings(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error("input c\na := hash(b)\nb := hash(d)\nd := a + c")
    assert err.message == "cycle between bindings: a -> b -> d -> a"
    assert (err.line, err.col) == (2, 1)
    assert err.hint


def test_self_reference(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error("x := x + 1")
    assert err.message == "binding 'x' depends on itself"
    assert (err.line, err.col) == (1, 1)


def test_cycle_through_a_tuple_binding(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error("(a, b) := mixed_radix(c, 2, 0)\nc := hash(b)")
    assert err.message == "cycle between bindings: b -> c -> b"
    assert (err.line, err.col) == (1, 2)


def test_docs_are_collected(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind("/// The hashed cycle.\nh := hash(cycle)")
    assert bound.docs == {"h": "The hashed cycle."}


def test_two_thousand_statement_chain(bind) -> None:  # type: ignore[no-untyped-def]
    lines = ["input cycle", "x0 := hash(cycle)"]
    lines += [f"x{i} := hash(x{i - 1}) + {i}" for i in range(1, 2500)]
    bound = bind("\n".join(lines))
    assert len(bound.ir["outputs"]) == 2500
    assert len(bound.ir["nodes"]) == 1 + 3 * 2499


def test_two_thousand_statement_chain_written_backwards(bind) -> None:  # type: ignore[no-untyped-def]
    lines = [f"x{i} := hash(x{i + 1})" for i in range(2500)]
    bound = bind("\n".join(lines))
    assert bound.input_names == ("x2500",)
    assert [o["name"] for o in bound.ir["outputs"]][:2] == ["x0", "x1"]
    assert output(bound, "x2499")["wire"] == {"node": {"node": 0, "port": 0}}


def test_long_operator_chains_bind(bind) -> None:  # type: ignore[no-untyped-def]
    terms = " + ".join(f"v{i % 50}" for i in range(6000))
    power = " ** ".join(["f"] * 3000)
    concat = " + ".join(['"a"'] * 3000)
    bound = bind(f"extern f: f64\ns := {terms}\np := {power}\nc := {concat}")
    assert producer(bound, "s")["op"] == "__add"
    assert producer(bound, "p")["op"] == "__pow"
    assert sum(node["op"] == "__add_part" for node in bound.ir["nodes"]) == 5998 + 2998
    assert core_ops(bound).count("u64_add") == 5999
    assert core_ops(bound).count("pow") == 2999
    assert core_ops(bound).count("str_concat") == 1  # one concatenation of every operand


def test_deeply_nested_expressions_bind(bind) -> None:  # type: ignore[no-untyped-def]
    depth = 2500
    bound = bind("x := " + "hash(" * depth + "cycle" + ")" * depth + "\ny := " + "(" * depth + "cycle" + ")" * depth)
    assert len(bound.ir["nodes"]) == depth
    assert output(bound, "y")["wire"] == {"input": 0}


def test_parse_returns_statements_in_order() -> None:
    program = parse("input a\nextern b: u64\nc := a\nm(p) -> (q) := { q := p }")
    assert [type(s).__name__ for s in program.statements] == ["InputDecl", "ExternDecl", "Binding", "ModuleDef"]
    with pytest.raises(CompileError):
        parse("x := ")
