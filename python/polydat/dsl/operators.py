"""Operator, ``if`` and cast desugaring, directed by operand types.

* ``+ - * / %``: ``u64_add`` ... for two u64; ``f64_add`` ... when either side is f64;
  ``+`` with a str side is ``str_concat``.
* ``**``: always ``pow`` (f64).
* ``& | ^ << >>``: ``u64_and/or/xor/shl/shr``; an f64 side is an error.
* ``== !=``: ``str_eq/ne`` if either side is str, else ``f64_eq/ne`` if either is
  f64, else ``u64_eq/ne``. ``< > <= >=``: ``u64_*``/``f64_*``; strings are an error.
* ``&& ||``: ``u64_and``/``u64_or`` of each side reduced to ``side != 0``.
* prefix ``!``: ``u64_not``; prefix ``-``: ``f64_sub(0.0, x)`` (a negated number
  literal is folded to an f64 constant).
* ``if``: ``select_str`` if a branch is str, else ``select_f64`` if one is f64,
  else ``select_u64`` (two bool branches give a bool again).
* A bool (``true``, ``false``, a bool extern) takes part as u64 0/1 in ``==``,
  ``!=``, ``&&``, ``||``, an ``if`` condition or branch, and ``!b`` is the
  logical not ``u64_eq(b, 0)``; arithmetic, ordering and bitwise operators
  refuse a bool (write ``b as u64``). The core's bool adapters do the
  conversion on the wire.
* ``x as T``: a ``__cast`` node the core resolves; a pair the core's cast table
  lacks (``f64 as u64`` among them) is an error here, at the ``as``.

A mixed u64 operand is passed as is; the Rust core inserts the widening
adapter. Other types (i64, bool, ...) on an operator are an error naming both
types. A ``+`` whose spine has any str operand becomes one ``str_concat`` of
every operand of the spine (upstream's flattening).
"""

from __future__ import annotations

from . import ast, corerules
from .irbuild import Port, const_arg
from .lowering import (
    CAST_OP,
    NUMERIC,
    LoweringCore,
    Plan,
    Scope,
    Value,
)
from .types import FLOAT_TYPES, INTEGER_TYPES

_ARITHMETIC = {"+": "add", "-": "sub", "*": "mul", "/": "div", "%": "mod"}
_BITWISE = {"&": "u64_and", "|": "u64_or", "^": "u64_xor", "<<": "u64_shl", ">>": "u64_shr"}
_COMPARISON = {"==": "eq", "!=": "ne", "<": "lt", ">": "gt", "<=": "le", ">=": "ge"}


class OperatorLowering(LoweringCore):
    """Lowering of binary/unary operators, casts and ``if``."""

    def _plan_sum(self, expr: ast.BinOp, scope: Scope) -> Plan:
        """A ``+`` spine: all leaves lowered first, then either one str_concat or a fold of adds."""
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
        if any(p.type == "str" for p in ports):
            # Upstream flattens the whole `+` spine into one concatenation.
            return self._emit_library("str_concat", ports, top.span, scope, "string '+'")
        stack: list[Port] = []
        leaf = iter(ports)
        for op in postfix:
            if op is None:
                stack.append(next(leaf))
            else:
                right = stack.pop()
                left = stack.pop()
                stack.append(self._arithmetic(op, left, right, scope).ports[0])
        return Value((stack[0],), top.span, "'+'")

    def _arithmetic(self, expr: ast.BinOp, left: Port, right: Port, scope: Scope) -> Value:
        op = expr.op
        lt, rt = left.type, right.type
        if lt in NUMERIC and rt in NUMERIC:
            family = "u64" if lt == rt == "u64" else "f64"
            return self._emit_library(f"{family}_{_ARITHMETIC[op]}", [left, right], expr.span, scope, f"operator '{op}'")
        raise self._operand_error(expr, lt, rt, scope)

    def _operand_error(self, expr: ast.BinOp, lt: str, rt: str, scope: Scope) -> Exception:
        op = expr.op
        if "any" in (lt, rt):
            return scope.file.error(
                f"operator '{op}' cannot be applied to a value of unknown type",
                expr.span,
                "cast the operand first, e.g. `x as u64`",
            )
        if "str" in (lt, rt):
            hint = "'+' concatenates strings; other arithmetic needs numbers (convert with `as u64` / `as f64`)"
        elif "bool" in (lt, rt):
            hint = "a bool is not a number here; `b as u64` gives 0 or 1"
        else:
            hint = "operators work on u64 and f64 values; convert first, e.g. `x as f64`"
        return scope.file.error(f"operator '{op}' is not defined for {lt} and {rt}", expr.span, hint)

    def _binary(self, expr: ast.BinOp, a: Value, b: Value, scope: Scope) -> Value:
        op = expr.op
        left = a.single(scope, f"an operand of '{op}'")
        right = b.single(scope, f"an operand of '{op}'")
        lt, rt = left.type, right.type
        if op in _ARITHMETIC:
            return self._arithmetic(expr, left, right, scope)
        if op == "**":
            if lt in NUMERIC and rt in NUMERIC:
                return self._emit_library("pow", [left, right], expr.span, scope, "operator '**'")
            raise self._operand_error(expr, lt, rt, scope)
        if op in _BITWISE:
            if lt == rt == "u64":
                return self._emit_library(_BITWISE[op], [left, right], expr.span, scope, f"operator '{op}'")
            if "f64" in (lt, rt):
                raise scope.file.error(
                    f"bitwise operator '{op}' needs u64 operands, got {lt} and {rt}",
                    expr.span,
                    "an f64 is never reinterpreted as bits; " + corerules.conversion_hint("f64", "u64"),
                )
            raise self._operand_error(expr, lt, rt, scope)
        if op in _COMPARISON:
            return self._compare(expr, left, right, scope)
        if op in ("&&", "||"):
            truth_left = self._truthiness(expr, left, scope)
            truth_right = self._truthiness(expr, right, scope)
            node = "u64_and" if op == "&&" else "u64_or"
            return self._emit_library(node, [truth_left, truth_right], expr.span, scope, f"operator '{op}'")
        raise AssertionError(f"unknown operator {op}")

    def _compare(self, expr: ast.BinOp, left: Port, right: Port, scope: Scope) -> Value:
        op = expr.op
        lt, rt = left.type, right.type
        suffix = _COMPARISON[op]
        if "str" in (lt, rt):
            if op not in ("==", "!="):
                raise scope.file.error(
                    f"ordering comparison '{op}' is not defined for strings",
                    expr.span,
                    "only == and != compare strings",
                )
            return self._emit_library(f"str_{suffix}", [left, right], expr.span, scope, f"operator '{op}'")
        if op in ("==", "!="):
            lt, rt = _as_number(lt), _as_number(rt)
        if lt in NUMERIC and rt in NUMERIC:
            family = "u64" if lt == rt == "u64" else "f64"
            return self._emit_library(f"{family}_{suffix}", [left, right], expr.span, scope, f"operator '{op}'")
        raise self._operand_error(expr, left.type, right.type, scope)

    def _truthiness(self, expr: ast.BinOp, port: Port, scope: Scope) -> Port:
        """``x != 0`` for one side of ``&&``/``||`` (a bool is already 0 or 1)."""
        if port.type == "bool":
            return port
        if port.type not in NUMERIC:
            raise scope.file.error(
                f"logical operator '{expr.op}' needs numeric operands, got {port.type}",
                expr.span,
                "compare explicitly first, e.g. `s != \"\"`",
            )
        zero = self._literal_port({"u64": 0}, expr.span, scope)
        family = "u64" if port.type == "u64" else "f64"
        return self._emit_library(f"{family}_ne", [port, zero], expr.span, scope, f"operator '{expr.op}'").ports[0]

    def _unary(self, expr: ast.UnaryOp, value: Value, scope: Scope) -> Value:
        port = value.single(scope, f"the operand of '{expr.op}'")
        if expr.op == "-":
            if port.type not in NUMERIC:
                raise scope.file.error(
                    f"unary '-' is not defined for {port.type}", expr.span, "negation needs a u64 or f64 value"
                )
            zero = self._literal_port({"f64": 0}, expr.span, scope)
            return self._emit_library("f64_sub", [zero, port], expr.span, scope, "unary '-'")
        if port.type == "u64":
            return self._emit_library("u64_not", [port], expr.span, scope, "operator '!'")
        if port.type == "bool":
            zero = self._literal_port({"u64": 0}, expr.span, scope)
            return self._emit_library("u64_eq", [port, zero], expr.span, scope, "operator '!'")
        hint = corerules.conversion_hint(port.type, "u64") if port.type in FLOAT_TYPES else "'!' is a bitwise not over u64"
        raise scope.file.error(f"operator '!' needs a u64 operand, got {port.type}", expr.span, hint)

    def _cast(self, expr: ast.Cast, value: Value, scope: Scope) -> Value:
        port = value.single(scope, "cast")
        target = self._type(expr.type_name, expr.type_span, scope.file)
        if port.type == target:
            return Value((port,), expr.span, value.producer)
        if port.type in FLOAT_TYPES and target in INTEGER_TYPES:
            raise scope.file.error(
                f"cannot cast {port.type} to {target} with 'as'", expr.span,
                corerules.conversion_hint(port.type, target),
            )
        if port.type != "any" and not corerules.casts(port.type, target):
            raise scope.file.error(
                f"cannot cast {port.type} to {target}", expr.span, corerules.conversion_hint(port.type, target)
            )
        return self._emit(
            CAST_OP, [port.arg(), const_arg({"str": target})], [target], expr.span, scope, [port], f"'as {target}'"
        )

    def _select(self, expr: ast.IfExpr, values: list[Value], scope: Scope) -> Value:
        cond = values[0].single(scope, "an if condition")
        a = values[1].single(scope, "an if branch")
        b = values[2].single(scope, "an if branch")
        if a.type == b.type == "bool":
            chosen = self._emit_library("select_u64", [cond, a, b], expr.span, scope, "'if'").ports[0]
            return self._emit(CAST_OP, [chosen.arg(), const_arg({"str": "bool"})], ["bool"], expr.span, scope,
                              [chosen], "'if'")
        types = {_as_number(a.type), _as_number(b.type)}
        if "str" in types:
            node = "select_str"
        elif types <= NUMERIC and "f64" in types:
            node = "select_f64"
        elif types == {"u64"}:
            node = "select_u64"
        elif a.type == b.type and a.type != "any" and self.catalog.lookup("select") is not None:
            node = "select"
        else:
            raise scope.file.error(
                f"if branches have incompatible types {a.type} and {b.type}",
                expr.span,
                "both branches must be numbers (u64/f64) or one a string; convert a branch with `as`",
            )
        return self._emit_library(node, [cond, a, b], expr.span, scope, "'if'")


def _as_number(type_: str) -> str:
    """The operator family a value joins: a bool is a u64 0/1, anything else itself."""
    return "u64" if type_ == "bool" else type_
