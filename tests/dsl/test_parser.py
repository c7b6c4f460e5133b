"""Parser: statements, precedence, associativity, unary and postfix forms."""

from __future__ import annotations

from typing import Any

import pytest

from polydat.dsl import ast, parse
from polydat.errors import CompileError


def expr(text: str) -> ast.Expr:
    program = parse(f"x := {text}")
    (binding,) = program.statements
    assert isinstance(binding, ast.Binding)
    return binding.value


def sexpr(node: ast.Expr) -> Any:
    """A compact rendering: names as strings, numbers as numbers, operators as tuples."""
    if isinstance(node, ast.Name):
        return node.name
    if isinstance(node, (ast.IntLit, ast.FloatLit, ast.StrLit)):
        return node.value
    if isinstance(node, ast.BinOp):
        return (node.op, sexpr(node.left), sexpr(node.right))
    if isinstance(node, ast.UnaryOp):
        return (node.op, sexpr(node.operand))
    if isinstance(node, ast.Cast):
        return ("as", sexpr(node.operand), node.type_name)
    if isinstance(node, ast.Call):
        return (node.func, *[(a.name, sexpr(a.value)) if a.name else sexpr(a.value) for a in node.args])
    if isinstance(node, ast.IfExpr):
        return ("if", sexpr(node.cond), sexpr(node.then), sexpr(node.otherwise))
    if isinstance(node, ast.ArrayLit):
        return ("[]", *[sexpr(e) for e in node.elements])
    raise AssertionError(node)


@pytest.mark.parametrize(
    "text, tree",
    [
        ("a + b * c", ("+", "a", ("*", "b", "c"))),
        ("a * b + c", ("+", ("*", "a", "b"), "c")),
        ("a - b - c", ("-", ("-", "a", "b"), "c")),
        ("a / b % c", ("%", ("/", "a", "b"), "c")),
        ("a ** b ** c", ("**", "a", ("**", "b", "c"))),
        ("a * b ** c", ("*", "a", ("**", "b", "c"))),
        ("a || b && c", ("||", "a", ("&&", "b", "c"))),
        ("a && b || c", ("||", ("&&", "a", "b"), "c")),
        ("a == b && c != d", ("&&", ("==", "a", "b"), ("!=", "c", "d"))),
        ("a < b == c", ("==", ("<", "a", "b"), "c")),
        ("a + b < c * d", ("<", ("+", "a", "b"), ("*", "c", "d"))),
        ("a | b ^ c & d", ("|", "a", ("^", "b", ("&", "c", "d")))),
        ("a & b << c", ("&", "a", ("<<", "b", "c"))),
        ("a << b + c", ("<<", "a", ("+", "b", "c"))),
        ("a >= b | c", (">=", "a", ("|", "b", "c"))),
        ("(a + b) * c", ("*", ("+", "a", "b"), "c")),
        ("-a", ("-", "a")),
        ("-a * b", ("*", ("-", "a"), "b")),
        ("-a ** b", ("**", ("-", "a"), "b")),
        ("a ** -b", ("**", "a", ("-", "b"))),
        ("!a & b", ("&", ("!", "a"), "b")),
        ("- - a", ("-", ("-", "a"))),
        ("a - -b", ("-", "a", ("-", "b"))),
        ("a + b as u64", ("+", "a", ("as", "b", "u64"))),
        ("-x as f64", ("-", ("as", "x", "f64"))),
        ("x as u64 as f64", ("as", ("as", "x", "u64"), "f64")),
        ("f(x) as str", ("as", ("f", "x"), "str")),
        ("(a + b) as u64", ("as", ("+", "a", "b"), "u64")),
        ("a ** b as f64", ("**", "a", ("as", "b", "f64"))),
    ],
)
def test_precedence_and_associativity(text: str, tree: Any) -> None:
    assert sexpr(expr(text)) == tree


def test_operator_spans_point_at_the_operator() -> None:
    node = expr("a + b")
    assert isinstance(node, ast.BinOp)
    assert (node.span.line, node.span.col) == (1, 8)


def test_calls_positional_named_and_empty() -> None:
    assert sexpr(expr("f()")) == ("f",)
    assert sexpr(expr("mod(x, K: 10)")) == ("mod", "x", ("K", 10))
    assert sexpr(expr("g(a, b,)")) == ("g", "a", "b")
    assert sexpr(expr("h(f(g(x)), 2)")) == ("h", ("f", ("g", "x")), 2)


def test_named_argument_called_input() -> None:
    assert sexpr(expr("m(input: cycle)")) == ("m", ("input", "cycle"))


def test_if_call_form() -> None:
    assert sexpr(expr("if(c, 1, 2)")) == ("if", "c", 1, 2)


def test_if_block_form_and_else_if_chain() -> None:
    assert sexpr(expr("if c { 1 } else { 2 }")) == ("if", "c", 1, 2)
    assert sexpr(expr("if a > 1 { x } else if b { y } else { z }")) == (
        "if", (">", "a", 1), "x", ("if", "b", "y", "z")
    )
    assert sexpr(expr("if (c) { 1 } else { 2 }")) == ("if", "c", 1, 2)
    node = expr("if c { 1 } else { 2 }")
    assert isinstance(node, ast.IfExpr) and node.block_form


def test_if_block_inside_an_expression() -> None:
    assert sexpr(expr("1 + if c { 2 } else { 3 } * 4")) == ("+", 1, ("*", ("if", "c", 2, 3), 4))


def test_array_literals() -> None:
    assert sexpr(expr("[]")) == ("[]",)
    assert sexpr(expr("[1, 2.5, 'a', -3]")) == ("[]", 1, 2.5, "a", ("-", 3))


def test_newline_insensitive_statements() -> None:
    program = parse("a := x +\n  y b := 2 c :=\n3")
    assert [s.targets[0].name for s in program.statements] == ["a", "b", "c"]  # type: ignore[union-attr]


def test_destructuring_on_the_next_line_is_not_a_call() -> None:
    program = parse("a := x\n(b, c) := f(a)")
    first, second = program.statements
    assert isinstance(first, ast.Binding) and sexpr(first.value) == "x"
    assert isinstance(second, ast.Binding) and second.tuple_form
    assert [t.name for t in second.targets] == ["b", "c"]


def test_call_parenthesis_on_the_next_line_still_calls() -> None:
    assert sexpr(expr("f\n(1 + 2)")) == ("f", ("+", 1, 2))


def test_input_forms() -> None:
    program = parse("input cycle: u64\ninput (a: u64, b: f64)\ninput plain")
    decls = [(s.name, s.type_name) for s in program.statements]  # type: ignore[union-attr]
    assert decls == [("cycle", "u64"), ("a", "u64"), ("b", "f64"), ("plain", None)]


def test_extern_forms() -> None:
    program = parse("extern region: str = \"us-east\"\nextern scale: u64\nextern t: f64 = -1.5")
    externs = program.statements
    assert [(e.name, e.type_name) for e in externs] == [("region", "str"), ("scale", "u64"), ("t", "f64")]  # type: ignore[union-attr]
    assert sexpr(externs[2].default) == ("-", 1.5)  # type: ignore[union-attr,arg-type]
    assert externs[1].default is None  # type: ignore[union-attr]


def test_modifiers_in_any_order_are_canonicalised() -> None:
    program = parse("volatile shared x := 1\nconst y := 2\nshared total: f64 := 0")
    x, y, total = program.statements
    assert x.modifiers == ("shared", "volatile")  # type: ignore[union-attr]
    assert y.modifiers == ("const",)  # type: ignore[union-attr]
    assert (total.modifiers, total.type_name) == (("shared",), "f64")  # type: ignore[union-attr]


def test_tuple_binding_with_modifiers() -> None:
    (binding,) = parse("const (a, b) := f(1)").statements
    assert isinstance(binding, ast.Binding)
    assert binding.modifiers == ("const",) and binding.tuple_form


def test_module_definition() -> None:
    program = parse(
        """
        sine_wave(input: u64, period: u64) -> (value: f64) := {
            pos := to_f64(input % period)
            per := to_f64(period)
            value := sin((pos / per) * 6.283185307179586)
        }
        """
    )
    (module,) = program.statements
    assert isinstance(module, ast.ModuleDef)
    assert [(p.name, p.type_name) for p in module.params] == [("input", "u64"), ("period", "u64")]
    assert [(p.name, p.type_name) for p in module.outputs] == [("value", "f64")]
    assert [b.targets[0].name for b in module.body] == ["pos", "per", "value"]


def test_module_definition_short_forms() -> None:
    (module,) = parse("m(a, b) -> o := { o := a }").statements
    assert isinstance(module, ast.ModuleDef)
    assert [p.type_name for p in module.params] == [None, None]
    assert [p.name for p in module.outputs] == ["o"]


def test_doc_comments_attach_to_bindings() -> None:
    (binding,) = parse("/// The user id.\nuser_id := 1").statements
    assert isinstance(binding, ast.Binding) and binding.doc == "The user id."


def test_interpolation_desugars_to_printf() -> None:
    assert sexpr(expr('"{tenant}-{seq + 1}"')) == ("printf", "{}-{}", "tenant", ("+", "seq", 1))


def test_interpolated_expression_spans_point_into_the_string() -> None:
    node = expr('"id {a + b}"')
    assert isinstance(node, ast.Call) and node.interpolated
    inner = node.args[1].value
    assert isinstance(inner, ast.BinOp)
    assert (inner.span.line, inner.span.col) == (1, 13)
    assert isinstance(inner.left, ast.Name) and inner.left.span.col == 11


def test_long_left_chain_parses_iteratively() -> None:
    text = " + ".join(f"v{i}" for i in range(20000))
    node = expr(text)
    depth = 0
    while isinstance(node, ast.BinOp):
        node = node.left
        depth += 1
    assert depth == 19999


def test_long_right_associative_chain_parses_iteratively() -> None:
    node = expr(" ** ".join(["a"] * 5000))
    depth = 0
    while isinstance(node, ast.BinOp):
        node = node.right
        depth += 1
    assert depth == 4999


def test_deep_nesting_parses_iteratively() -> None:
    depth = 3000
    assert isinstance(expr("(" * depth + "a" + ")" * depth), ast.Name)
    assert isinstance(expr("f(" * depth + "a" + ")" * depth), ast.Call)
    assert isinstance(expr("-" * depth + "a"), ast.UnaryOp)


def test_many_statements() -> None:
    program = parse("\n".join(f"x{i} := x{i - 1} + 1" for i in range(1, 5001)))
    assert len(program.statements) == 5000


@pytest.mark.parametrize(
    "source, message",
    [
        ("input cycle\ntile something", "expected ':=' before the body of tile 'something' but found end of input"),
        ("input cycle\ncursor something", "expected '=' but found end of input"),
        ("cursor q = hash(1)", "a cursor's constructor is range(start, end)"),
    ],
)
def test_tile_and_cursor_headers(source: str, message: str) -> None:
    with pytest.raises(CompileError) as info:
        parse(source)
    assert info.value.message == message
    assert info.value.hint


def test_a_for_producer_is_a_binding_value() -> None:
    (binding,) = parse("xs := for k in 1..4, w in a, b order halton/3").statements
    assert isinstance(binding.value, ast.ForExpr)
    assert binding.value.text == "k in 1..4, w in a, b order halton/3"
    assert binding.value.comprehension.names == ("k", "w")
    with pytest.raises(CompileError) as info:
        parse("xs := 1 + for k in 1..4")
    assert info.value.message == "a `for` producer compiles only as the whole value of a binding"
    assert (info.value.line, info.value.col) == (1, 11)


def test_field_access_flattens_to_a_wire_name() -> None:
    (binding,) = parse("x := q.cursor.idx + 1").statements
    assert binding.value.left == ast.Name("q__cursor__idx", binding.value.left.span)
    with pytest.raises(CompileError) as info:
        parse("x := q.")
    assert info.value.message == "expected a field name after '.' but found end of input"
