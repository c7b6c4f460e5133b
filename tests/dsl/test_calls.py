"""Calls: argument matching, constants vs wires, defaults, variadics, output typing."""

from __future__ import annotations

import pytest

from dsl_helpers import core_tree, f64_bits, ops, producer, tree, output_types


def test_literal_in_const_position_is_a_const_arg(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind("input cycle\nid := mod(hash(cycle), 1000000)")
    node = producer(bound, "id")
    assert node["op"] == "mod"
    assert node["args"][1] == {"const": {"int": 1000000}}  # as written: the core types it
    assert ops(bound) == ["hash", "mod"]


def test_literal_in_wire_position_is_a_literal_node(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind("input cycle\nx := u64_add(cycle, 7)")
    assert tree(bound, "x") == ("u64_add", "cycle", 7)
    assert ops(bound) == ["__lit", "u64_add"]


def test_named_arguments(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind("input cycle\na := mod(cycle, modulus: 10)\nb := mod(modulus: 10, input: cycle)\nc := mod(modulus: 10, cycle)")
    for name in "abc":
        assert producer(bound, name)["args"] == [{"wire": {"input": 0}}, {"const": {"int": 10}}]


def test_int_literal_into_f64_const_converts(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind("input cycle\nx := hash_interval(cycle, 1, 10)")
    assert core_tree(bound, "x") == ("hash_interval", "cycle", ("const", 1.0), ("const", 10.0))


def test_negative_literal_in_const_position(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind("input cycle\nx := hash_interval(cycle, -1.5, -2)")
    assert core_tree(bound, "x") == ("hash_interval", "cycle", ("const", -1.5), ("const", -2.0))


def test_omitted_trailing_defaults_are_left_to_the_core(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind("input cycle\nx := format_u64(cycle)\ny := format_u64(cycle, 16)")
    assert producer(bound, "x")["args"] == [{"wire": {"input": 0}}]
    assert producer(bound, "y")["args"] == [{"wire": {"input": 0}}, {"const": {"int": 16}}]


def test_skipped_middle_default_is_filled(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind("input cycle\nx := lerp(unit_interval(cycle), b: 5.0)")
    args = producer(bound, "x")["args"]
    assert args[1:] == [{"const": {"f64": 0}}, {"const": {"f64": f64_bits(5.0)}}]


def test_variadic_constants_and_per_variadic_outputs(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind("input cycle\n(a, b, c) := mixed_radix(cycle, 100, 1000, 0)")
    node = bound.ir["nodes"][0]
    assert node["args"] == [{"wire": {"input": 0}}] + [{"const": {"int": v}} for v in (100, 1000, 0)]
    assert [o["wire"] for o in bound.ir["outputs"]] == [
        {"node": {"node": 0, "port": p}} for p in range(3)
    ]
    assert output_types(bound) == {"a": "u64", "b": "u64", "c": "u64"}


def test_variadic_wires(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind('input cycle\ns := str_concat(cycle, "-", 2.5)')
    assert tree(bound, "s") == ("str_concat", "cycle", "-", 2.5)


def test_variadic_string_constants(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind("input cycle\nc := one_of(cycle, 'red', \"green\")")
    assert producer(bound, "c")["args"][1:] == [{"const": {"str": "red"}}, {"const": {"str": "green"}}]


def test_same_as_wire_output_type(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind("extern f: f64 = 1\nx := default_or(f, 2.0)")
    assert output_types(bound)["x"] == "f64"


def test_literal_output_types(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind("a := 5\nb := 2.5\nc := 'x'\nd := -3")
    assert output_types(bound) == {"a": "u64", "b": "f64", "c": "str", "d": "f64"}


def test_alias_resolves_to_the_node(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind("input cycle\nh := splitmix64(cycle)")
    assert producer(bound, "h")["op"] == "hash"


def test_a_constant_binding_fills_a_const_position() -> None:
    import polydat

    k = polydat.compile("input cycle\nn := 10\nx := mod(cycle, n)").kernel()
    k.set_inputs(1234)
    assert k.pull("x") == 4


def test_non_literal_in_div_const_position_mentions_div_wire() -> None:
    import polydat

    with pytest.raises(polydat.CompileError) as info:
        polydat.compile("input cycle\nx := div(cycle, cycle)")
    assert "div_wire" in (info.value.hint or "")


def test_non_constant_in_other_const_position() -> None:
    import polydat

    with pytest.raises(polydat.CompileError) as info:
        polydat.compile("input cycle\nx := format_u64(cycle, cycle + 1)")
    assert info.value.message == (
        "parameter `radix` of `format_u64` must be a constant expression, but it reads input 'cycle'"
    )
    assert "construction constants are fixed when the node is built" in (info.value.hint or "")


@pytest.mark.parametrize(
    "call, message",
    [
        ("mod(cycle, 1.5)", "parameter 'modulus' of 'mod' expects a u64 literal, got a float literal 1.5"),
        ("mod(cycle, -1)", "parameter 'modulus' of 'mod' expects a u64 literal, got an integer literal -1"),
        ("mod(cycle, 'x')", "parameter 'modulus' of 'mod' expects a u64 literal, got a string literal \"x\""),
        ("one_of(cycle, 1)", "parameter 'values' of 'one_of' expects a str literal, got an integer literal 1"),
    ],
)
def test_literal_type_mismatch_in_const_position(compile_error, call: str, message: str) -> None:  # type: ignore[no-untyped-def]
    err = compile_error(f"input cycle\nx := {call}")
    assert err.message == message
    assert (err.line, err.col) == (2, len("x := ") + call.index(", ") + 3)
    assert err.hint


def test_missing_argument(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error("input cycle\nx := mod(cycle)")
    assert err.message == "missing argument 'modulus' for 'mod'"
    assert (err.line, err.col) == (2, 6)
    assert err.hint.startswith("signature: mod(")


def test_too_many_arguments(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error("input cycle\nx := hash(cycle, 2)")
    assert err.message == "'hash' takes 1 argument but 2 were given"
    assert (err.line, err.col) == (2, 18)


def test_unknown_named_argument(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error("input cycle\nx := mod(cycle, modulo: 3)")
    assert err.message == "'mod' has no parameter named 'modulo'"
    assert err.hint == "did you mean 'modulus'?"
    assert (err.line, err.col) == (2, 17)


def test_argument_given_twice(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error("input cycle\nx := mod(cycle, input: cycle, modulus: 2)")
    assert err.message == "parameter 'input' of 'mod' is given twice"


def test_unknown_node_with_suggestion(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error("input cycle\nx := hsah(cycle)")
    assert err.message == "unknown node 'hsah'"
    assert err.hint == "did you mean 'hash'?"
    assert (err.line, err.col) == (2, 6)
    assert str(err) == (
        "2:6:error: unknown node 'hsah'\n"
        "  | x := hsah(cycle)\n"
        "  |      ^\n"
        "  = hint: did you mean 'hash'?"
    )


def test_unknown_node_suggests_modules_too(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error("m_scaled(a) -> (o) := { o := a }\ninput cycle\nx := m_scaledd(cycle)")
    assert err.hint == "did you mean 'm_scaled'?"


def test_unknown_node_without_suggestion(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error("input cycle\nx := completely_unrelated_thing(cycle)")
    assert err.message == "unknown node 'completely_unrelated_thing'"
    assert "library path" in err.hint


def test_calling_a_value(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error("input cycle\ny := 1\nx := y(cycle)")
    assert err.message == "'y' is a value, not a node or module; it cannot be called"


def test_multi_output_call_in_an_expression(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error("input cycle\nx := hash(mixed_radix(cycle, 10, 0))")
    assert err.message == "'mixed_radix' has 2 outputs and cannot be an argument of 'hash'"
    assert (err.line, err.col) == (2, 11)
    assert err.hint == "bind its outputs with a tuple: (v0, v1) := ..."


def test_multi_output_call_bound_to_one_name(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error("input cycle\nx := mixed_radix(cycle, 10, 0)")
    assert err.message == "'mixed_radix' has 2 outputs and cannot be bound to 'x'"


def test_single_output_of_multi_port_node_in_expression(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind("input cycle\nx := hash(mixed_radix(cycle, 10))")
    assert tree(bound, "x") == ("hash", ("mixed_radix", "cycle", ("const", 10)))


def test_array_literal_binds_to_rendered_text(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind("xs := [25, 50, 1.0, 2.5, 'a', -3, load]")
    assert tree(bound, "xs") == "25, 50, 1.0, 2.5, a, -3, load"
    assert bound.input_names == ()


def test_array_literal_as_argument_is_an_error(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error("input cycle\nx := one_of(cycle, [1, 2])")
    assert err.message == "an array literal cannot be passed as an argument"
    assert (err.line, err.col) == (2, 20)


def test_array_literal_in_an_operator_is_an_error(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error("x := [1] + 2")
    assert err.message == "an array literal can only be bound directly to a name"
