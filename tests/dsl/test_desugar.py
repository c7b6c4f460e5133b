"""Type-directed desugaring of operators, if, casts and unary forms."""

from __future__ import annotations

import pytest

from dsl_helpers import core_tree, f64_bits, ops, output_types, producer

PRELUDE = """
input u: u64
input v: u64
extern f: f64 = 0.5
extern g: f64 = 1.5
extern s: str = "s"
extern t: str = "t"
extern i: i64 = -1
extern b: bool = true
"""


def result_op(bind, expression: str) -> str:  # type: ignore[no-untyped-def]
    tree = core_tree(bind(PRELUDE + f"r := {expression}"), "r")
    return tree[0] if isinstance(tree, tuple) else "__lit"


@pytest.mark.parametrize(
    "expression, op",
    [
        ("u + v", "u64_add"),
        ("u - v", "u64_sub"),
        ("u * v", "u64_mul"),
        ("u / v", "u64_div"),
        ("u % v", "u64_mod"),
        ("f + g", "f64_add"),
        ("u + f", "f64_add"),
        ("f - u", "f64_sub"),
        ("u * f", "f64_mul"),
        ("f / u", "f64_div"),
        ("f % g", "f64_mod"),
        ("s + t", "str_concat"),
        ("s + u", "str_concat"),
        ("f + s", "str_concat"),
        ("u ** v", "pow"),
        ("f ** u", "pow"),
        ("u & v", "u64_and"),
        ("u | v", "u64_or"),
        ("u ^ v", "u64_xor"),
        ("u << v", "u64_shl"),
        ("u >> v", "u64_shr"),
        ("u == v", "u64_eq"),
        ("u != v", "u64_ne"),
        ("u == f", "f64_eq"),
        ("f != g", "f64_ne"),
        ("s == t", "str_eq"),
        ("s != u", "str_ne"),
        ("f == s", "str_eq"),
        ("u < v", "u64_lt"),
        ("u > v", "u64_gt"),
        ("u <= v", "u64_le"),
        ("u >= v", "u64_ge"),
        ("f < u", "f64_lt"),
        ("u > g", "f64_gt"),
        ("f <= g", "f64_le"),
        ("f >= g", "f64_ge"),
        ("u && v", "u64_and"),
        ("u || f", "u64_or"),
        ("!u", "u64_not"),
        ("-u", "f64_sub"),
        ("-f", "f64_sub"),
    ],
)
def test_operator_table(bind, expression: str, op: str) -> None:  # type: ignore[no-untyped-def]
    assert result_op(bind, expression) == op


def test_mixed_u64_side_is_passed_as_is(bind) -> None:  # type: ignore[no-untyped-def]
    assert core_tree(bind(PRELUDE + "r := u * f"), "r") == ("f64_mul", "u", "f")


def test_literals_in_operators_become_literal_nodes(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind(PRELUDE + "r := u + 1\nq := u * 0.5")
    assert core_tree(bound, "r") == ("u64_add", "u", 1)
    assert core_tree(bound, "q") == ("f64_mul", "u", 0.5)
    lit = bound.ir["nodes"][producer(bound, "q")["args"][1]["wire"]["node"]["node"]]
    assert lit == {"op": "__lit", "args": [{"const": {"f64": f64_bits(0.5)}}], "span": {"line": 11, "col": 10}}


def test_logical_operators_reduce_each_side_to_truthiness(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind(PRELUDE + "r := u && v\nq := f || u")
    assert core_tree(bound, "r") == ("u64_and", ("u64_ne", "u", 0), ("u64_ne", "v", 0))
    assert core_tree(bound, "q") == ("u64_or", ("f64_ne", "f", 0), ("u64_ne", "u", 0))


def test_unary_minus_is_f64_sub_from_zero(bind) -> None:  # type: ignore[no-untyped-def]
    assert core_tree(bind(PRELUDE + "r := -u"), "r") == ("f64_sub", 0.0, "u")


def test_negated_literal_is_an_f64_constant(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind(PRELUDE + "r := -5\nz := -0.0")
    assert core_tree(bound, "r") == -5.0
    assert output_types(bound)["r"] == "f64"
    assert producer(bound, "z")["args"][0]["const"] == {"f64": f64_bits(-0.0)}


def test_string_plus_flattens_the_whole_spine(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind(PRELUDE + 'r := u + v + s + "x"\nq := "a" + (u + v)')
    assert core_tree(bound, "r") == ("str_concat", "u", "v", "s", "x")
    assert core_tree(bound, "q") == ("str_concat", "a", "u", "v")
    assert ops(bound).count("u64_add") == 0


def test_numeric_plus_chain_keeps_per_node_types(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind(PRELUDE + "r := u + v + f + u")
    assert core_tree(bound, "r") == ("f64_add", ("f64_add", ("u64_add", "u", "v"), "f"), "u")
    assert output_types(bound)["r"] == "f64"


def test_comparisons_yield_u64(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind(PRELUDE + "p := f < g\nq := s == t\nr := u && f")
    assert [output_types(bound)[n] for n in "pqr"] == ["u64", "u64", "u64"]


def test_pow_is_f64(bind) -> None:  # type: ignore[no-untyped-def]
    assert output_types(bind(PRELUDE + "r := u ** 2"))["r"] == "f64"


@pytest.mark.parametrize(
    "expression, message",
    [
        ("f & u", "bitwise operator '&' needs u64 operands, got f64 and u64"),
        ("u << f", "bitwise operator '<<' needs u64 operands, got u64 and f64"),
        ("!f", "operator '!' needs a u64 operand, got f64"),
        ("s < t", "comparison operator `<` is not supported for String operands; only `==` and `!=` are defined on strings"),
        ("s >= u", "comparison operator `>=` is not supported for String operands; only `==` and `!=` are defined on strings"),
        ("s - t", "operator '-' is not defined for str and str"),
        ("s * u", "operator '*' is not defined for str and u64"),
        ("i + u", "operator '+' is not defined for i64 and u64"),
        ("b * f", "operator '*' is not defined for bool and f64"),
        ("i == u", "operator '==' is not defined for i64 and u64"),
        ("i ** s", "operator '**' is not defined for i64 and str"),
        ("i & u", "operator '&' is not defined for i64 and u64"),
        ("-s", "unary '-' is not defined for str"),
        ("s && u", "logical operator '&&' needs numeric operands, got str"),
    ],
)
def test_operator_type_errors(compile_error, expression: str, message: str) -> None:  # type: ignore[no-untyped-def]
    err = compile_error(PRELUDE + f"r := {expression}")
    assert err.message == message
    assert err.line == 10
    assert err.hint


def test_operator_error_points_at_the_operator(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error(PRELUDE + "r := f &  u")
    assert (err.line, err.col) == (10, 8)
    assert "round_to_u64" in err.hint


# -- i64 and literals that take the other operand's type ---------------------


@pytest.mark.parametrize(
    "expression, tree, type_",
    [
        ("i - 20000", ("i64_sub", "i", 20000), "i64"),
        ("20000 - i", ("i64_sub", 20000, "i"), "i64"),
        ("i * i", ("i64_mul", "i", "i"), "i64"),
        ("i / 7", ("i64_div", "i", 7), "i64"),
        ("i % 7", ("i64_mod", "i", 7), "i64"),
        ("i < 3", ("i64_lt", "i", 3), "u64"),
        ("i == -1", ("f64_eq", "i", -1.0), "u64"),
        ("-i", ("i64_sub", 0, "i"), "i64"),
        ("i + f", ("f64_add", "i", "f"), "f64"),
        ("f + 1", ("f64_add", "f", 1.0), "f64"),
        ("u + 1.5", ("f64_add", "u", 1.5), "f64"),
        ("if u > 2 { i } else { 7 }", ("select_i64", ("u64_gt", "u", 2), "i", 7), "i64"),
    ],
)
def test_i64_operators_and_literal_fitting(bind, expression: str, tree: object, type_: str) -> None:  # type: ignore[no-untyped-def]
    bound = bind(PRELUDE + f"r := {expression}")
    assert core_tree(bound, "r") == tree
    assert output_types(bound)["r"] == type_


def test_a_fitted_literal_takes_its_new_type_in_place(bind) -> None:  # type: ignore[no-untyped-def]
    """The literal node is retyped, not copied: the resolved graph holds one literal."""
    import json

    from dsl_helpers import core_program

    nodes = json.loads(core_program(bind(PRELUDE + "r := i - 20000")).explain_json())["resolved"]["nodes"]
    assert [(n["op"], n["consts"]) for n in nodes] == [("__lit", ["20000"]), ("i64_sub", [])]


def test_u64_and_i64_do_not_mix_without_a_cast(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error(PRELUDE + "r := i - u")
    assert err.message == "operator '-' is not defined for i64 and u64"
    assert err.hint == "u64 and i64 do not mix: convert one side first, e.g. `x as i64` or `y as u64`"


# -- if ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "expression, op, type_",
    [
        ("if(u, v, 1)", "select_u64", "u64"),
        ("if(u, f, 1)", "select_f64", "f64"),
        ("if(u, 1, g)", "select_f64", "f64"),
        ("if(u, s, 1)", "select_str", "str"),
        ("if(u, f, s)", "select_str", "str"),
        ("if u { 1 } else { 2 }", "select_u64", "u64"),
        ("if u > 1 { f } else { 2 }", "select_f64", "f64"),
        ("if u { s } else if v { 1 } else { 2.5 }", "select_str", "str"),
    ],
)
def test_if_selects_by_branch_type(bind, expression: str, op: str, type_: str) -> None:  # type: ignore[no-untyped-def]
    bound = bind(PRELUDE + f"r := {expression}")
    assert core_tree(bound, "r")[0] == op
    assert output_types(bound)["r"] == type_


def test_if_block_desugars_to_nested_selects(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind(PRELUDE + "r := if u { 1 } else if v { 2 } else { 3 }")
    assert core_tree(bound, "r") == ("select_u64", "u", 1, ("select_u64", "v", 2, 3))


def test_if_with_incompatible_branches(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error(PRELUDE + "r := if(u, i, f)")
    assert err.message == "if branches have incompatible types i64 and f64"
    assert (err.line, err.col) == (10, 6)


def test_if_with_wrong_argument_count(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error(PRELUDE + "r := if(u, 1)")
    assert err.message == "'if' takes exactly three positional arguments, got 2"


# -- casts ------------------------------------------------------------------


def test_cast_emits_cast_node(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind(PRELUDE + "r := u as f64\nq := s as u64\np := u as String")
    node = producer(bound, "r")
    assert node["op"] == "__cast"
    assert node["args"] == [{"wire": {"input": 0}}, {"const": {"str": "f64"}}]
    assert node["span"] == {"line": 10, "col": 8}
    assert output_types(bound) == {"r": "f64", "q": "u64", "p": "str"}


def test_cast_to_same_type_is_a_passthrough(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind(PRELUDE + "r := u as u64")
    assert bound.ir["nodes"] == []
    assert bound.ir["outputs"][0]["wire"] == {"input": 0}


def test_casts_chain(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind(PRELUDE + "r := u as f64 as str")
    assert core_tree(bound, "r", adapters=True) == ("__f64_to_str", ("__u64_to_f64", "u"))


def test_as_binds_tighter_than_binary_operators(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind(PRELUDE + "r := u + v as f64")
    assert core_tree(bound, "r", adapters=True) == ("f64_add", ("__u64_to_f64", "u"), ("__u64_to_f64", "v"))


@pytest.mark.parametrize("target", ["u64", "i64", "u32"])
def test_f64_as_integer_is_an_error(compile_error, target: str) -> None:  # type: ignore[no-untyped-def]
    err = compile_error(PRELUDE + f"r := f as {target}")
    assert err.message == f"cannot cast f64 to {target} with 'as'"
    assert (err.line, err.col) == (10, 8)
    for name in ("f64_to_u64", "round_to_u64", "floor_to_u64", "ceil_to_u64"):
        assert name in err.hint


def test_cast_to_unknown_type(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error(PRELUDE + "r := u as u63")
    assert err.message == "unknown type 'u63'"
    assert err.hint == "did you mean 'u64'?"
    assert (err.line, err.col) == (10, 11)


def test_cast_to_unsupported_type(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error(PRELUDE + "r := u as vec_f16")
    assert err.message == "type 'vec_f16' is not supported yet"
