"""Shared machinery of expression lowering: values, scopes and node emission.

Lowering turns an expression tree into IR nodes. The pieces every part of it
needs live here: the :class:`Value` an expression lowers to (typed ports), the
:class:`Scope` names resolve in (the top level or one inlined module call),
the :class:`Plan` each expression node is lowered by (its children, then a
combiner), and :class:`LoweringCore`, whose methods emit literal, library and
cast nodes with the right output types and spans.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, cast

from . import ast
from .ast import Span
from .catalog import Catalog, NodeSpec
from . import corerules
from .diagnostics import SourceFile
from .irbuild import GraphBuilder, Port, const_arg, node_wire
from .lexer import ABSENT_WORDS
from .types import (
    UNSUPPORTED_TYPE_KEYWORDS,
    LiteralValue,
    f64_bits,
)

CAST_OP = "__cast"
LITERAL_OP = "__lit"
CAPTURE_OP = "__const_capture"
"""The pass-through node that holds a `const` binding naming another value."""
COERCE_OP = "__coerce"
"""A value given where a type is declared: the core converts it or reports the declaration."""
UNTYPED = "any"
"""The type of a port the frontend does not know: the core types every node output."""


@dataclass(frozen=True, slots=True)
class LiteralEntry:
    """A module parameter bound to a literal argument (usable in constant positions)."""

    literal: LiteralValue
    span: Span


class Failed:
    """The scope entry of a name whose binding or declaration failed (already reported)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "FAILED"


FAILED = Failed()
"""Readers of a failed name fail quietly (:class:`AlreadyReported`) instead of cascading."""


class AlreadyReported(Exception):
    """A lowering stopped at a name that failed earlier; nothing new to report."""


EnvEntry = Port | LiteralEntry | Failed

ABSENT_HINT = (
    "Polydat has no absent-value literal: a value is absent (None) when an extern without a default "
    "is not set, and `default_or(x, fallback)` replaces an absent x"
)


class Value(NamedTuple):
    """The result of lowering an expression: zero or more typed ports."""

    ports: tuple[Port, ...]
    span: Span
    producer: str

    def single(self, scope: Scope, use: str) -> Port:
        """The only port, or a CompileError explaining why there is not exactly one."""
        if len(self.ports) == 1:
            return self.ports[0]
        if not self.ports:
            raise scope.file.error(f"{self.producer} produces no value and cannot be {use}", self.span)
        count = len(self.ports)
        names = ", ".join(f"v{i}" for i in range(count))
        raise scope.file.error(
            f"{self.producer} has {count} outputs and cannot be {use}",
            self.span,
            f"bind its outputs with a tuple: ({names}) := ...",
        )


@dataclass(eq=False)
class Scope:
    """Where names resolve while lowering: the top level or one inlined module call."""

    file: SourceFile
    env: dict[str, EnvEntry]
    modules: dict[str, ast.ModuleDef]
    search_dir: str | None
    origins: dict[str, str] = field(default_factory=dict)
    span_override: Span | None = None
    prefix: str = ""
    module: str | None = None
    literal_ports: dict[str, Port] = field(default_factory=dict)
    #: Every value name of this scope (bound or not yet lowered), for diagnostics.
    names: set[str] = field(default_factory=set)
    #: Modules of this file whose definition did not parse (calls fail quietly).
    failed_modules: frozenset[str] = frozenset()
    #: Binding targets (by id) that clash with an earlier name; they bind nothing.
    disowned: set[int] = field(default_factory=set)
    #: The locale the shipped library's modules are resolved in (``pragma
    #: locale``, or the namespace of the module call this scope inlines).
    locale: str = "en_US"


@dataclass(slots=True)
class Plan:
    """How to lower one expression node: its child expressions, then a combiner."""

    children: Sequence[ast.Expr]
    finish: Callable[[list[Value]], Value]


def literal_of(expr: ast.Expr, env: Mapping[str, EnvEntry] | None = None) -> LiteralValue | None:
    """The compile-time literal ``expr`` denotes, if it is one.

    Literals are numbers, non-interpolated strings, ``true``/``false``, a
    negated number (``-1.5``), and, inside a module, a parameter bound to a
    literal argument.
    """
    kind = type(expr)
    if kind is ast.Name:
        if env is not None:
            entry = env.get(expr.name)  # type: ignore[union-attr]
            if isinstance(entry, LiteralEntry):
                return entry.literal
        return None
    simple = _LITERAL_KINDS.get(kind)
    if simple is not None:
        return LiteralValue(simple, expr.value)  # type: ignore[union-attr, arg-type]
    if kind is ast.UnaryOp and expr.op == "-":  # type: ignore[union-attr]
        inner = expr.operand  # type: ignore[union-attr]
        if type(inner) is ast.IntLit:
            return LiteralValue("int", -inner.value)
        if type(inner) is ast.FloatLit:
            return LiteralValue("float", -inner.value)
        if type(inner) is ast.DecimalLit:
            return LiteralValue("decimal", "-" + inner.value)
    return None


_LITERAL_KINDS: dict[type, str] = {
    ast.IntLit: "int", ast.FloatLit: "float", ast.StrLit: "str", ast.BoolLit: "bool", ast.DecimalLit: "decimal",
}


def literal_const(expr: ast.Expr) -> dict[str, Any] | None:
    """The IR constant of a literal leaf (a number, string or bool), else None."""
    kind = type(expr)
    if kind is ast.IntLit:
        return {"u64": expr.value}  # type: ignore[union-attr]
    if kind is ast.FloatLit:
        return {"f64": f64_bits(expr.value)}  # type: ignore[union-attr, arg-type]
    if kind is ast.StrLit:
        return {"str": expr.value}  # type: ignore[union-attr]
    if kind is ast.BoolLit:
        return {"bool": expr.value}  # type: ignore[union-attr]
    if kind is ast.DecimalLit:
        return {"decimal": expr.value}  # type: ignore[union-attr]
    return None


def literal_type(const: dict[str, Any]) -> str:
    """The type of a literal node of IR constant ``const``: its kind (``{"u64": 5}``
    is a u64); an integer as written (``{"int": -5}``) and a decimal
    (``{"decimal": "12.34"}``) are typed by the core."""
    kind = next(iter(const))
    return UNTYPED if kind == "int" or kind == "decimal" else kind


def render_array(elements: Iterable[ast.Expr]) -> str:
    """The text an array literal binds to (upstream's rendering: ``[25, 50]`` is ``25, 50``)."""

    def element(expr: ast.Expr) -> str:
        prefix = ""
        while isinstance(expr, ast.UnaryOp) and expr.op == "-":
            prefix += "-"
            expr = expr.operand
        if isinstance(expr, ast.IntLit):
            return prefix + str(expr.value)
        if isinstance(expr, ast.FloatLit):
            value = expr.value
            text = f"{value:.1f}" if value.is_integer() else corerules.f64_display(value)
            return prefix + text
        if isinstance(expr, ast.StrLit):
            return prefix + expr.value
        if isinstance(expr, ast.BoolLit):
            return prefix + ("true" if expr.value else "false")
        if isinstance(expr, ast.Name):
            return prefix + expr.name
        return prefix + "?"

    return ", ".join(element(e) for e in elements)


class LoweringCore:
    """Node emission shared by operator, call and binding lowering.

    Subclasses provide :meth:`lower` (an expression to a :class:`Value`) and
    :meth:`bind_bindings` (a block of bindings in dependency order).
    """

    catalog: Catalog
    graph: GraphBuilder
    strict_values: bool
    """``pragma strict_values`` covers the statements being lowered."""

    def _lower(self, root: ast.Expr, scope: Scope) -> Value:
        raise NotImplementedError

    def _bind_bindings(
        self, bindings: Sequence[ast.Binding], scope: Scope, check_names: bool
    ) -> list[tuple[str, Port, tuple[str, ...], Span]]:
        raise NotImplementedError

    def _type(self, word: str, span: Span, file: SourceFile) -> str:
        """The canonical type keyword for ``word`` or a CompileError."""
        try:
            canonical = corerules.canonical_type(word)
        except ValueError as e:
            raise file.error(str(e), span, "a decimal is decimal(precision, scale), 1 <= precision <= 38, scale <= precision") from None
        if canonical is not None:
            return canonical
        spellings = corerules.type_keywords()
        supported = " ".join(dict.fromkeys(spellings.values()))
        if word in UNSUPPORTED_TYPE_KEYWORDS:
            raise file.error(f"type '{word}' is not supported yet", span, f"supported types: {supported}")
        guess = corerules.suggest(word, list(spellings))
        hint = f"did you mean '{guess}'?" if guess else f"types are: {supported}"
        raise file.error(f"unknown type '{word}'", span, hint)

    def _span(self, span: Span, scope: Scope) -> Span:
        return scope.span_override or span

    def _literal_port(self, const: dict[str, Any], span: Span, scope: Scope, type_: str | None = None) -> Port:
        """The port of a new literal node of ``const`` (``type_``: its type, when known)."""
        index = self.graph.add_node(LITERAL_OP, [const_arg(const)], scope.span_override or span)
        return Port(node_wire(index, 0), type_ or literal_type(const), None)

    def _literal_value(self, const: dict[str, Any], span: Span, scope: Scope) -> Value:
        return Value((self._literal_port(const, span, scope),), span, "a literal")

    def _name_value(self, expr: ast.Name, scope: Scope) -> Value:
        entry = scope.env.get(expr.name)
        if entry is FAILED:
            raise AlreadyReported(expr.name)
        if entry is None:
            if expr.name in ABSENT_WORDS:
                raise scope.file.error(f"'{expr.name}' is not a value", expr.span, ABSENT_HINT)
            if scope.module is not None:
                raise scope.file.error(
                    f"'{expr.name}' is not a parameter or binding of module '{scope.module}'",
                    expr.span,
                    f"a module only sees its parameters; pass '{expr.name}' in as an argument",
                )
            raise scope.file.error(f"'{expr.name}' is not defined", expr.span)  # pragma: no cover
        if isinstance(entry, LiteralEntry):
            port = scope.literal_ports.get(expr.name)
            if port is None:
                port = self._literal_port(entry.literal.const(), expr.span, scope)
                scope.literal_ports[expr.name] = port
            return Value((port,), expr.span, f"'{expr.name}'")
        return Value((cast(Port, entry),), expr.span, f"'{expr.name}'")

    def _emit(self, op: str, args: list[dict[str, Any]], types: Sequence[str], span: Span,
              scope: Scope, inputs: Iterable[Port], producer: str,
              arg_spans: list[Span | None] | None = None) -> Value:
        coordinate = None
        for port in inputs:
            if port.coordinate is not None:
                coordinate = port.coordinate
                break
        if scope.span_override is not None:
            arg_spans = None  # an inlined module's errors point at its call
        index = self.graph.add_node(op, args, scope.span_override or span, arg_spans)
        if len(types) == 1:
            return Value((Port(node_wire(index, 0), types[0], coordinate),), span, producer)
        ports = tuple(Port(node_wire(index, i), t, coordinate) for i, t in enumerate(types))
        return Value(ports, span, producer)

    def _output_types(self, spec: NodeSpec, consts: Sequence[dict[str, Any]]) -> list[str]:
        """One untyped port per output of a call of ``spec`` given ``consts``
        (the core types them; the catalog entry says how many there are)."""
        return [UNTYPED] * spec.output_count(len(consts))

    def _coerce(self, port: Port, target: str, span: Span, what: str, scope: Scope,
                literal_lead: str | None = None) -> Port:
        """``port`` as a ``target`` value (``what`` says where the type is declared,
        e.g. ``'n' is declared u64``): the core converts it implicitly, or reports
        ``what`` with the value's type; a literal that does not fit is reported as
        ``literal_lead`` + the literal (default: ``what`` + `` but its value is ``)."""
        if target == UNTYPED or port.type == target:
            return port
        args = [port.arg(), const_arg({"str": target}), const_arg({"str": what})]
        if literal_lead is not None:
            args.append(const_arg({"str": literal_lead}))
        return self._emit(COERCE_OP, args, [target], span, scope, [port], f"'{target}'").ports[0]


