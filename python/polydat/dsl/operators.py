"""Operators, ``if`` and casts, lowered to the core's generic operator nodes.

The frontend does not type operators: ``a - b`` becomes ``__sub(a, b)``,
``if c { a } else { b }`` becomes ``__if(c, a, b)`` and ``x as T`` becomes
``__cast(x, "T")``; the core's desugaring stage (``compile/desugar.rs``)
picks the library node the operand types call for (``u64_sub``,
``i64_sub``, ``f64_sub``, ``select_str`` ...), fits a literal operand to the
other operand's type, and reports a type error at the operator. A ``+``
spine is one ``__add`` whose inner additions are ``__add_part`` nodes, so the
core sees the whole spine (one ``str_concat`` of every operand when one is a
string, upstream's flattening) and still types each numeric ``+`` at its own
position.
"""

from __future__ import annotations

from . import ast
from .irbuild import Port, const_arg
from .lowering import CAST_OP, LoweringCore, Plan, Scope, Value

#: The core's generic node of each binary operator.
BINARY_OPS = {
    "+": "__add", "-": "__sub", "*": "__mul", "/": "__div", "%": "__mod", "**": "__pow",
    "&": "__bitand", "|": "__bitor", "^": "__bitxor", "<<": "__shl", ">>": "__shr",
    "==": "__eq", "!=": "__ne", "<": "__lt", ">": "__gt", "<=": "__le", ">=": "__ge",
    "&&": "__and", "||": "__or",
}
#: The operators whose zero divisor fails the row under ``pragma strict_values``.
DIVISIONS = ("/", "%")
STRICT_VALUES_MARK = "strict_values"
"""The last argument of a ``__div``/``__mod`` lowered under ``pragma
strict_values`` (the core's ``desugar::STRICT_VALUES_MARK``): a zero divisor
on its wire fails the row instead of giving 0."""
#: The core's generic node of each prefix operator.
UNARY_OPS = {"-": "__neg", "!": "__not"}
IF_OP = "__if"
SPINE_PART_OP = "__add_part"
"""An inner ``+`` of a spine: typed by the core with the spine's top ``__add``."""


class OperatorLowering(LoweringCore):
    """Lowering of binary/unary operators, casts and ``if``."""

    def _plan_sum(self, expr: ast.BinOp, scope: Scope) -> Plan:
        """A ``+`` spine: every leaf lowered first, then the additions, the top one last."""
        postfix: list[ast.BinOp | None] = []  # None marks "next leaf", a BinOp marks "add the top two"
        leaves: list[ast.Expr] = []
        stack: list[tuple[ast.Expr, bool]] = [(expr, False)]
        while stack:
            node, expanded = stack.pop()
            if isinstance(node, ast.BinOp) and node.op == "+":
                if expanded:
                    postfix.append(node)
                else:
                    stack.append((node, True))
                    stack.append((node.right, False))
                    stack.append((node.left, False))
            else:
                postfix.append(None)
                leaves.append(node)
        return Plan(leaves, lambda values: self._finish_sum(expr, postfix, values, scope))

    def _finish_sum(self, top: ast.BinOp, postfix: list[ast.BinOp | None], values: list[Value],
                    scope: Scope) -> Value:
        ports = [v.single(scope, "an operand of '+'") for v in values]
        stack: list[Port] = []
        leaf = iter(ports)
        for op in postfix:
            if op is None:
                stack.append(next(leaf))
                continue
            right = stack.pop()
            left = stack.pop()
            node = BINARY_OPS["+"] if op is top else SPINE_PART_OP
            stack.append(self._operator(node, [left, right], op.span, scope, "'+'"))
        return Value((stack[0],), top.span, "'+'")

    def _operator(self, op: str, ports: list[Port], span: ast.Span, scope: Scope, producer: str,
                  marks: tuple[str, ...] = ()) -> Port:
        args = [p.arg() for p in ports] + [const_arg({"str": mark}) for mark in marks]
        return self._emit(op, args, ["any"], span, scope, ports, producer).ports[0]

    def _binary(self, expr: ast.BinOp, a: Value, b: Value, scope: Scope) -> Value:
        op = expr.op
        left = a.single(scope, f"an operand of '{op}'")
        right = b.single(scope, f"an operand of '{op}'")
        marks = (STRICT_VALUES_MARK,) if op in DIVISIONS and self.strict_values else ()
        port = self._operator(BINARY_OPS[op], [left, right], expr.span, scope, f"operator '{op}'", marks)
        return Value((port,), expr.span, f"operator '{op}'")

    def _unary(self, expr: ast.UnaryOp, value: Value, scope: Scope) -> Value:
        port = value.single(scope, f"the operand of '{expr.op}'")
        result = self._operator(UNARY_OPS[expr.op], [port], expr.span, scope, f"operator '{expr.op}'")
        return Value((result,), expr.span, f"operator '{expr.op}'")

    def _cast(self, expr: ast.Cast, value: Value, scope: Scope) -> Value:
        port = value.single(scope, "cast")
        target = self._type(expr.type_name, expr.type_span, scope.file)
        if port.type == target:
            return Value((port,), expr.span, value.producer)
        return self._emit(
            CAST_OP, [port.arg(), const_arg({"str": target})], [target], expr.span, scope, [port], f"'as {target}'"
        )

    def _select(self, expr: ast.IfExpr, values: list[Value], scope: Scope) -> Value:
        cond = values[0].single(scope, "an if condition")
        a = values[1].single(scope, "an if branch")
        b = values[2].single(scope, "an if branch")
        return Value((self._operator(IF_OP, [cond, a, b], expr.span, scope, "'if'"),), expr.span, "'if'")
