"""Binder: a parsed program to the graph IR.

What it does, in order:

1. Declarations. Inputs, externs, bindings and module definitions are
   collected in source order; a name declared twice is an error.
2. Free-name inference. A name that is read but never bound becomes a
   coordinate input (u64), after the declared ones, in order of first use (or
   an extern, when the caller says an outer scope provides it).
3. Dependency order. Bindings may be used before they are written; they are
   lowered in topological order (iteratively), and a cycle is an error naming
   the bindings on it.
4. Lowering. Each expression becomes IR nodes, children first, with an
   explicit work stack so deep trees need no recursion. Operators desugar by
   operand type (``u64 + u64`` is ``u64_add``, any f64 gives ``f64_*``, a
   string side makes ``+`` a ``str_concat``, ...). Calls are matched to the
   catalog's parameters: literals fill construction constants, anything else
   is a wire. Module calls are inlined.
5. Outputs. Every named binding (and tuple target) is an output, in source
   order; module internals are not.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import ast
from .ast import Span
from .catalog import Catalog, NodeSpec, ParamSpec
from .diagnostics import SourceFile, suggest_name
from .irbuild import GraphBuilder, Port, const_arg, input_wire, node_wire
from .modules import ModuleLoader, ResolvedModule, directory_of, module_table
from .types import (
    FLOAT_TYPES,
    INTEGER_TYPES,
    TYPE_KEYWORDS,
    UNSUPPORTED_TYPE_KEYWORDS,
    LiteralTypeError,
    LiteralValue,
    canonical_type,
    const_type,
    f64_bits,
    implicitly_converts,
    literal_to_const,
    rust_f64_display,
)

CAST_OP = "__cast"
LITERAL_OP = "__lit"
_ARITHMETIC = {"+": "add", "-": "sub", "*": "mul", "/": "div", "%": "mod"}
_BITWISE = {"&": "u64_and", "|": "u64_or", "^": "u64_xor", "<<": "u64_shl", ">>": "u64_shr"}
_COMPARISON = {"==": "eq", "!=": "ne", "<": "lt", ">": "gt", "<=": "le", ">=": "ge"}
_NUMERIC = frozenset({"u64", "f64"})
_ROUNDING_HINT = (
    "choose how to round: f64_to_u64(x) truncates, or use round_to_u64(x), floor_to_u64(x) or ceil_to_u64(x)"
)
_SUPPORTED_TYPES = "u64 i64 u32 i32 f64 f32 bool str bytes json"


# ----------------------------------------------------------------------------
# Values


@dataclass(frozen=True, slots=True)
class LiteralEntry:
    """A module parameter bound to a literal argument (usable in constant positions)."""

    literal: LiteralValue
    span: Span


EnvEntry = Port | LiteralEntry


@dataclass(frozen=True, slots=True)
class Value:
    """The result of lowering an expression: zero or more typed ports."""

    ports: tuple[Port, ...]
    span: Span
    producer: str

    def single(self, binder: Binder, scope: Scope, use: str) -> Port:
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


@dataclass(slots=True)
class _Plan:
    """How to lower one expression node: its child expressions, then a combiner."""

    children: Sequence[ast.Expr]
    finish: Callable[[list[Value]], Value]


@dataclass(frozen=True)
class BoundProgram:
    """A program bound to the graph IR.

    ``ir`` is the JSON-serialisable ``GraphIr`` dict; ``input_names`` are in
    IR order (coordinates first, then externs); ``output_types`` maps each
    output name to its type keyword, in source order; ``spans`` maps every
    input and output name to where it was declared (or first used);
    ``internal_wires`` maps the prefixed internal names of inlined module
    bindings (``__m0_pos``) to their IR wires; ``docs`` holds ``///`` doc
    comments by binding name.
    """

    ir: dict[str, Any]
    source: str
    path: str | None
    input_names: tuple[str, ...]
    input_types: dict[str, str]
    output_types: dict[str, str]
    spans: dict[str, Span]
    program: ast.Program
    internal_wires: dict[str, dict[str, Any]] = field(default_factory=dict)
    docs: dict[str, str] = field(default_factory=dict)

    @property
    def coordinate_names(self) -> tuple[str, ...]:
        """Names of the coordinate inputs (the ``set_inputs`` prefix)."""
        return tuple(i["name"] for i in self.ir["inputs"] if i["kind"] == "coordinate")

    @property
    def output_names(self) -> tuple[str, ...]:
        """Output names in source order."""
        return tuple(self.output_types)

    def ir_json(self) -> str:
        """The IR as JSON text (the form the Rust core reads)."""
        import json

        return json.dumps(self.ir, separators=(",", ":"))


# ----------------------------------------------------------------------------
# Literal helpers


def literal_of(expr: ast.Expr, env: Mapping[str, EnvEntry] | None = None) -> LiteralValue | None:
    """The compile-time literal ``expr`` denotes, if it is one.

    Literals are numbers, non-interpolated strings, a negated number
    (``-1.5``), and, inside a module, a parameter bound to a literal argument.
    """
    if isinstance(expr, ast.IntLit):
        return LiteralValue("int", expr.value)
    if isinstance(expr, ast.FloatLit):
        return LiteralValue("float", expr.value)
    if isinstance(expr, ast.StrLit):
        return LiteralValue("str", expr.value)
    if isinstance(expr, ast.UnaryOp) and expr.op == "-":
        inner = expr.operand
        if isinstance(inner, ast.IntLit):
            return LiteralValue("int", -inner.value)
        if isinstance(inner, ast.FloatLit):
            return LiteralValue("float", -inner.value)
    if isinstance(expr, ast.Name) and env is not None:
        entry = env.get(expr.name)
        if isinstance(entry, LiteralEntry):
            return entry.literal
    return None


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
            text = f"{value:.1f}" if value.is_integer() else rust_f64_display(value)
            return prefix + text
        if isinstance(expr, ast.StrLit):
            return prefix + expr.value
        if isinstance(expr, ast.Name):
            return prefix + expr.name
        return prefix + "?"

    return ", ".join(element(e) for e in elements)


# ----------------------------------------------------------------------------
# The binder


class Binder:
    """Binds one program (and the modules it calls) against a catalog."""

    #: Module calls may nest this deep (each level costs Python stack frames).
    MAX_MODULE_DEPTH = 40

    def __init__(
        self,
        catalog: Catalog,
        *,
        library_path: Iterable[str | os.PathLike[str]] = (),
        outer: Mapping[str, str] | None = None,
        source_path: str | None = None,
    ):
        self.catalog = catalog
        self.loader = ModuleLoader(library_path, exclude=source_path)
        self.outer = dict(outer or {})
        self.graph = GraphBuilder()
        self.spans: dict[str, Span] = {}
        self.docs: dict[str, str] = {}
        self.internal_wires: dict[str, dict[str, Any]] = {}
        self._module_count = 0
        self._active_modules: list[tuple[str | None, str]] = []

    # -- entry point ---------------------------------------------------------

    def bind(self, program: ast.Program) -> BoundProgram:
        """Bind ``program``; raises CompileError on the first problem found."""
        file = SourceFile(program.source, program.path)
        modules = module_table(program, file)
        scope = Scope(file, {}, modules, directory_of(program.path))
        coordinates, externs = self._declarations(program, scope)
        self._free_names(program, scope, coordinates, externs)
        for name, type_, span in coordinates:
            index = self.graph.add_input(name, type_, "coordinate", span)
            scope.env[name] = Port(input_wire(index), type_, index)
            self.spans[name] = span
        for name, type_, span, default in externs:
            index = self.graph.add_input(name, type_, "extern", span, default)
            scope.env[name] = Port(input_wire(index), type_, None)
            self.spans[name] = span
        bindings = list(program.bindings)
        produced = self._bind_bindings(bindings, scope, check_names=False)
        output_types: dict[str, str] = {}
        for index in range(len(bindings)):
            for name, port, modifiers, span in produced.get(index, ()):
                self.graph.add_output(name, port.wire, modifiers, span)
                output_types[name] = port.type
        ir = self.graph.to_json()
        return BoundProgram(
            ir=ir,
            source=program.source,
            path=program.path,
            input_names=tuple(i["name"] for i in ir["inputs"]),
            input_types={i["name"]: i["type"] for i in ir["inputs"]},
            output_types=output_types,
            spans=dict(self.spans),
            program=program,
            internal_wires=dict(self.internal_wires),
            docs=dict(self.docs),
        )

    # -- declarations --------------------------------------------------------

    def _declarations(
        self, program: ast.Program, scope: Scope
    ) -> tuple[list[tuple[str, str, Span]], list[tuple[str, str, Span, dict[str, Any] | None]]]:
        """Declared coordinates and externs; checks that no name is declared twice."""
        file = scope.file
        declared: dict[str, tuple[str, Span]] = {}

        def declare(name: str, what: str, span: Span) -> None:
            if name in declared:
                prior_what, prior_span = declared[name]
                raise file.error(
                    f"'{name}' is already {prior_what}",
                    span,
                    f"first declared at {prior_span}; every name is bound once",
                )
            declared[name] = (what, span)

        coordinates: list[tuple[str, str, Span]] = []
        externs: list[tuple[str, str, Span, dict[str, Any] | None]] = []
        for statement in program.statements:
            if isinstance(statement, ast.InputDecl):
                declare(statement.name, "declared as an input", statement.span)
                type_ = "u64"
                if statement.type_name is not None:
                    type_ = self._type(statement.type_name, statement.type_span or statement.span, file)
                coordinates.append((statement.name, type_, statement.span))
                scope.origins[statement.name] = "an input"
            elif isinstance(statement, ast.ExternDecl):
                declare(statement.name, "declared as an extern", statement.span)
                type_ = self._type(statement.type_name, statement.type_span, file)
                default = self._extern_default(statement, type_, file)
                externs.append((statement.name, type_, statement.span, default))
                scope.origins[statement.name] = "an extern"
            elif isinstance(statement, ast.Binding):
                for target in statement.targets:
                    if statement.tuple_form and target.name == "_":
                        continue
                    declare(target.name, "bound", target.span)
        return coordinates, externs

    def _extern_default(self, decl: ast.ExternDecl, type_: str, file: SourceFile) -> dict[str, Any] | None:
        default = decl.default
        if default is None:
            return None
        literal = literal_of(default)
        if literal is None and isinstance(default, ast.Name) and default.name in ("true", "false"):
            literal = LiteralValue("bool", default.name == "true")
        if literal is None:
            raise file.error(
                f"the default of extern '{decl.name}' must be a literal",
                ast.expr_span(default),
                "extern defaults are fixed values; compute derived values in a binding",
            )
        try:
            return literal_to_const(literal, type_)
        except LiteralTypeError as exc:
            raise file.error(
                f"extern '{decl.name}' is declared {type_} but its default is {literal.describe()}",
                ast.expr_span(default),
                str(exc),
            ) from None

    def _free_names(
        self,
        program: ast.Program,
        scope: Scope,
        coordinates: list[tuple[str, str, Span]],
        externs: list[tuple[str, str, Span, dict[str, Any] | None]],
    ) -> None:
        """Append inferred inputs (names read, never bound) in order of first use."""
        known = {name for name, _, _ in coordinates} | {name for name, _, _, _ in externs}
        for binding in program.bindings:
            for target in binding.targets:
                known.add(target.name)
        inferred_externs: list[tuple[str, str, Span, dict[str, Any] | None]] = []
        for binding in program.bindings:
            for ref in ast.iter_names(binding.value):
                if ref.name in known:
                    continue
                known.add(ref.name)
                if ref.name in self.outer:
                    type_ = self._type(self.outer[ref.name], ref.span, scope.file)
                    inferred_externs.append((ref.name, type_, ref.span, None))
                    scope.origins[ref.name] = "an extern"
                else:
                    coordinates.append((ref.name, "u64", ref.span))
                    scope.origins[ref.name] = "an input"
        externs.extend(inferred_externs)

    def _type(self, word: str, span: Span, file: SourceFile) -> str:
        """The canonical type keyword for ``word`` or a CompileError."""
        canonical = canonical_type(word)
        if canonical is not None:
            return canonical
        if word in UNSUPPORTED_TYPE_KEYWORDS:
            raise file.error(f"type '{word}' is not supported yet", span, f"supported types: {_SUPPORTED_TYPES}")
        guess = suggest_name(word, list(TYPE_KEYWORDS))
        hint = f"did you mean '{guess}'?" if guess else f"types are: {_SUPPORTED_TYPES}"
        raise file.error(f"unknown type '{word}'", span, hint)

    # -- bindings ------------------------------------------------------------

    def _bind_bindings(
        self, bindings: Sequence[ast.Binding], scope: Scope, check_names: bool
    ) -> dict[int, list[tuple[str, Port, tuple[str, ...], Span]]]:
        """Lower ``bindings`` in dependency order; returns the named ports per binding index."""
        bound: dict[str, int] = {}
        for index, binding in enumerate(bindings):
            for target in binding.targets:
                if binding.tuple_form and target.name == "_":
                    continue
                if check_names:
                    self._check_new_name(target, bound, bindings, scope)
                bound.setdefault(target.name, index)
        scope.names.update(bound, scope.env)
        produced: dict[int, list[tuple[str, Port, tuple[str, ...], Span]]] = {}
        for index in self._dependency_order(bindings, bound, scope.file):
            produced[index] = self._bind_one(bindings[index], scope)
        return produced

    def _check_new_name(
        self, target: ast.Target, bound: dict[str, int], bindings: Sequence[ast.Binding], scope: Scope
    ) -> None:
        if target.name in bound:
            first = next(t for t in bindings[bound[target.name]].targets if t.name == target.name)
            raise scope.file.error(
                f"'{target.name}' is already bound", target.span, f"first bound at {first.span}"
            )
        if target.name in scope.env:
            origin = scope.origins.get(target.name, "declared")
            raise scope.file.error(f"'{target.name}' is already {origin}", target.span)

    def _dependency_order(self, bindings: Sequence[ast.Binding], bound: dict[str, int], file: SourceFile) -> list[int]:
        """Binding indices so that each comes after the bindings it reads (iterative DFS)."""
        count = len(bindings)
        deps: list[list[tuple[int, str]]] = []
        for binding in bindings:
            seen: set[int] = set()
            edges: list[tuple[int, str]] = []
            for ref in ast.iter_names(binding.value):
                index = bound.get(ref.name)
                if index is not None and index not in seen:
                    seen.add(index)
                    edges.append((index, ref.name))
            deps.append(edges)
        state = [0] * count  # 0 unvisited, 1 on the stack, 2 done
        order: list[int] = []
        for root in range(count):
            if state[root]:
                continue
            state[root] = 1
            stack: list[tuple[int, str, Iterable[tuple[int, str]]]] = [
                (root, _display_name(bindings[root]), iter(deps[root]))
            ]
            while stack:
                node, _, edges_left = stack[-1]
                pushed = False
                for dep, via in edges_left:
                    if state[dep] == 0:
                        state[dep] = 1
                        stack.append((dep, via, iter(deps[dep])))
                        pushed = True
                        break
                    if state[dep] == 1:
                        raise self._cycle_error(stack, dep, via, bindings, file)
                if not pushed:
                    state[node] = 2
                    order.append(node)
                    stack.pop()
        return order

    @staticmethod
    def _cycle_error(
        stack: list[tuple[int, str, Iterable[tuple[int, str]]]],
        dep: int,
        via: str,
        bindings: Sequence[ast.Binding],
        file: SourceFile,
    ) -> Exception:
        start = next(i for i, entry in enumerate(stack) if entry[0] == dep)
        names = [entry[1] for entry in stack[start:]]
        names[0] = via
        span = bindings[dep].span
        if len(names) == 1:
            return file.error(
                f"binding '{names[0]}' depends on itself",
                span,
                "a binding cannot read its own value; introduce an input or a different name",
            )
        path = " -> ".join([*names, names[0]])
        return file.error(
            f"cycle between bindings: {path}",
            span,
            "bindings form a dataflow graph; break the cycle with an input or extern",
        )

    def _bind_one(self, binding: ast.Binding, scope: Scope) -> list[tuple[str, Port, tuple[str, ...], Span]]:
        file = scope.file
        if scope.module is not None and (binding.modifiers or binding.type_name):
            raise file.error(
                f"modifiers are not allowed inside module '{scope.module}'",
                binding.span,
                "apply const/shared/volatile to the binding that calls the module",
            )
        if binding.type_name is not None:
            port = self._annotated_value(binding, scope)
            ports: list[tuple[ast.Target, Port]] = [(binding.targets[0], port)]
        else:
            value = self._lower(binding.value, scope)
            if binding.tuple_form:
                targets = binding.targets
                if len(targets) > len(value.ports):
                    have = len(value.ports)
                    raise file.error(
                        f"too many names: {value.producer} has {have} output{'s' if have != 1 else ''}"
                        f" but {len(targets)} names are bound",
                        targets[have].span,
                        f"bind at most {have} name{'s' if have != 1 else ''}",
                    )
                ports = list(zip(targets, value.ports))
            else:
                ports = [(binding.targets[0], value.single(self, scope, f"bound to '{binding.targets[0].name}'"))]
        produced = []
        for target, port in ports:
            if binding.tuple_form and target.name == "_":
                continue
            if "const" in binding.modifiers and port.coordinate is not None:
                coordinate = self.graph.inputs[port.coordinate]["name"]
                raise file.error(
                    f"const binding '{target.name}' depends on coordinate input '{coordinate}'",
                    target.span,
                    "a const is computed once when the kernel starts; it may read externs and other consts "
                    "but not coordinates, which change every cycle",
                )
            scope.env[target.name] = port
            if scope.module is None:
                self.spans[target.name] = target.span
                if binding.doc:
                    self.docs[target.name] = binding.doc
                produced.append((target.name, port, binding.modifiers, target.span))
            else:
                self.internal_wires[scope.prefix + target.name] = port.wire
        return produced

    def _annotated_value(self, binding: ast.Binding, scope: Scope) -> Port:
        """``shared x: T := value``: the value, converted to the pinned cell type."""
        file = scope.file
        target = binding.targets[0]
        type_ = self._type(binding.type_name or "", binding.type_span or binding.span, file)
        literal = literal_of(binding.value)
        if literal is not None:
            try:
                const = literal_to_const(literal, type_)
            except LiteralTypeError as exc:
                raise file.error(
                    f"'{target.name}' is declared {type_} but its value is {literal.describe()}",
                    ast.expr_span(binding.value),
                    str(exc),
                ) from None
            return self._literal_port(const, ast.expr_span(binding.value), scope)
        value = self._lower(binding.value, scope)
        port = value.single(self, scope, f"bound to '{target.name}'")
        return self._coerce(port, type_, value.span, f"'{target.name}' is declared {type_}", scope)

    # -- expression lowering -------------------------------------------------

    def _lower(self, root: ast.Expr, scope: Scope) -> Value:
        """Lower ``root`` to IR nodes (children first) with an explicit work stack."""
        results: list[Value] = []
        work: list[tuple[ast.Expr, _Plan | None]] = [(root, None)]
        while work:
            expr, plan = work.pop()
            if plan is None:
                plan = self._plan(expr, scope, expr is root)
                if plan.children:
                    work.append((expr, plan))
                    for child in reversed(plan.children):
                        work.append((child, None))
                    continue
                results.append(plan.finish([]))
                continue
            count = len(plan.children)
            args = results[len(results) - count:]
            del results[len(results) - count:]
            results.append(plan.finish(args))
        return results[0]

    def _plan(self, expr: ast.Expr, scope: Scope, is_root: bool) -> _Plan:
        if isinstance(expr, ast.UnaryOp) and expr.op == "-" and isinstance(expr.operand, (ast.IntLit, ast.FloatLit)):
            # A negated number is an f64 constant (upstream folds it the same way).
            negative = {"f64": f64_bits(-float(expr.operand.value))}
            return _Plan((), lambda _: self._literal_value(negative, expr.span, scope))
        literal = literal_of(expr)
        if literal is not None:
            const = literal_to_const(literal, "any")
            return _Plan((), lambda _: self._literal_value(const, expr.span, scope))
        if isinstance(expr, ast.Name):
            return _Plan((), lambda _: self._name_value(expr, scope))
        if isinstance(expr, ast.ArrayLit):
            if not is_root:
                raise scope.file.error(
                    "an array literal can only be bound directly to a name",
                    expr.span,
                    "bind it first (`values := [1, 2, 3]`) and convert it where needed (str_to_vec_i32, ...)",
                )
            text = render_array(expr.elements)
            return _Plan((), lambda _: self._literal_value({"str": text}, expr.span, scope))
        if isinstance(expr, ast.BinOp):
            if expr.op == "+":
                return self._plan_sum(expr, scope)
            return _Plan((expr.left, expr.right), lambda v: self._binary(expr, v[0], v[1], scope))
        if isinstance(expr, ast.UnaryOp):
            return _Plan((expr.operand,), lambda v: self._unary(expr, v[0], scope))
        if isinstance(expr, ast.Cast):
            return _Plan((expr.operand,), lambda v: self._cast(expr, v[0], scope))
        if isinstance(expr, ast.IfExpr):
            return _Plan((expr.cond, expr.then, expr.otherwise), lambda v: self._select(expr, v, scope))
        if isinstance(expr, ast.Call):
            return self._plan_call(expr, scope)
        raise AssertionError(f"unhandled expression {expr!r}")

    # -- leaves --------------------------------------------------------------

    def _span(self, span: Span, scope: Scope) -> Span:
        return scope.span_override or span

    def _literal_port(self, const: dict[str, Any], span: Span, scope: Scope) -> Port:
        index = self.graph.add_node(LITERAL_OP, [const_arg(const)], self._span(span, scope))
        return Port(node_wire(index, 0), const_type(const), None)

    def _literal_value(self, const: dict[str, Any], span: Span, scope: Scope) -> Value:
        return Value((self._literal_port(const, span, scope),), span, "a literal")

    def _name_value(self, expr: ast.Name, scope: Scope) -> Value:
        entry = scope.env.get(expr.name)
        if entry is None:
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
                const = literal_to_const(entry.literal, "any")
                port = self._literal_port(const, expr.span, scope)
                scope.literal_ports[expr.name] = port
            return Value((port,), expr.span, f"'{expr.name}'")
        return Value((entry,), expr.span, f"'{expr.name}'")

    # -- nodes ---------------------------------------------------------------

    def _emit(self, op: str, args: list[dict[str, Any]], types: Sequence[str], span: Span,
              scope: Scope, inputs: Iterable[Port], producer: str) -> Value:
        coordinate = next((p.coordinate for p in inputs if p.coordinate is not None), None)
        index = self.graph.add_node(op, args, self._span(span, scope))
        ports = tuple(Port(node_wire(index, i), t, coordinate) for i, t in enumerate(types))
        return Value(ports, span, producer)

    def _emit_library(self, name: str, ports: Sequence[Port], span: Span, scope: Scope, purpose: str) -> Value:
        """Emit catalog node ``name`` over wire ``ports`` (used by operator desugaring)."""
        spec = self.catalog.lookup(name)
        if spec is None:
            raise scope.file.error(
                f"{purpose} needs node '{name}', which this build's catalog does not provide",
                span,
            )
        wire_types = [p.type for p in ports]
        types = self._output_types(spec, wire_types, [], 0)
        return self._emit(spec.name, [p.arg() for p in ports], types, span, scope, ports, f"'{spec.name}'")

    def _output_types(self, spec: NodeSpec, wire_types: Sequence[str], consts: Sequence[dict[str, Any]],
                      variadic_consts: int) -> list[str]:
        outputs = spec.outputs
        if outputs.kind == "fixed":
            return [t for _, t in outputs.ports]
        if outputs.kind == "same_as_wire":
            return [wire_types[outputs.index] if outputs.index < len(wire_types) else "any"]
        if outputs.kind == "per_variadic_const":
            return [outputs.type] * variadic_consts
        if outputs.kind == "const_type":
            return [const_type(consts[outputs.index]) if outputs.index < len(consts) else "any"]
        return ["any"]

    # -- operators -----------------------------------------------------------

    def _plan_sum(self, expr: ast.BinOp, scope: Scope) -> _Plan:
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
        return _Plan(leaves, lambda values: self._finish_sum(expr, postfix, values, scope))

    def _finish_sum(self, top: ast.BinOp, postfix: list[ast.BinOp | None], values: list[Value],
                    scope: Scope) -> Value:
        ports = [v.single(self, scope, "an operand of '+'") for v in values]
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
        if lt in _NUMERIC and rt in _NUMERIC:
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
        else:
            hint = "operators work on u64 and f64 values; convert first, e.g. `x as f64`"
        return scope.file.error(f"operator '{op}' is not defined for {lt} and {rt}", expr.span, hint)

    def _binary(self, expr: ast.BinOp, a: Value, b: Value, scope: Scope) -> Value:
        op = expr.op
        left = a.single(self, scope, f"an operand of '{op}'")
        right = b.single(self, scope, f"an operand of '{op}'")
        lt, rt = left.type, right.type
        if op in _ARITHMETIC:
            return self._arithmetic(expr, left, right, scope)
        if op == "**":
            if lt in _NUMERIC and rt in _NUMERIC:
                return self._emit_library("pow", [left, right], expr.span, scope, "operator '**'")
            raise self._operand_error(expr, lt, rt, scope)
        if op in _BITWISE:
            if lt == rt == "u64":
                return self._emit_library(_BITWISE[op], [left, right], expr.span, scope, f"operator '{op}'")
            if "f64" in (lt, rt):
                raise scope.file.error(
                    f"bitwise operator '{op}' needs u64 operands, got {lt} and {rt}",
                    expr.span,
                    "an f64 is never reinterpreted as bits; " + _ROUNDING_HINT,
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
        if lt in _NUMERIC and rt in _NUMERIC:
            family = "u64" if lt == rt == "u64" else "f64"
            return self._emit_library(f"{family}_{suffix}", [left, right], expr.span, scope, f"operator '{op}'")
        raise self._operand_error(expr, lt, rt, scope)

    def _truthiness(self, expr: ast.BinOp, port: Port, scope: Scope) -> Port:
        """``x != 0`` for one side of ``&&``/``||``."""
        if port.type not in _NUMERIC:
            raise scope.file.error(
                f"logical operator '{expr.op}' needs numeric operands, got {port.type}",
                expr.span,
                "compare explicitly first, e.g. `s != \"\"`",
            )
        zero = self._literal_port({"u64": 0}, expr.span, scope)
        family = "u64" if port.type == "u64" else "f64"
        return self._emit_library(f"{family}_ne", [port, zero], expr.span, scope, f"operator '{expr.op}'").ports[0]

    def _unary(self, expr: ast.UnaryOp, value: Value, scope: Scope) -> Value:
        port = value.single(self, scope, f"the operand of '{expr.op}'")
        if expr.op == "-":
            if port.type not in _NUMERIC:
                raise scope.file.error(
                    f"unary '-' is not defined for {port.type}", expr.span, "negation needs a u64 or f64 value"
                )
            zero = self._literal_port({"f64": 0}, expr.span, scope)
            return self._emit_library("f64_sub", [zero, port], expr.span, scope, "unary '-'")
        if port.type == "u64":
            return self._emit_library("u64_not", [port], expr.span, scope, "operator '!'")
        hint = _ROUNDING_HINT if port.type in FLOAT_TYPES else "'!' is a bitwise not over u64"
        raise scope.file.error(f"operator '!' needs a u64 operand, got {port.type}", expr.span, hint)

    def _cast(self, expr: ast.Cast, value: Value, scope: Scope) -> Value:
        port = value.single(self, scope, "cast")
        target = self._type(expr.type_name, expr.type_span, scope.file)
        if port.type == target:
            return Value((port,), expr.span, value.producer)
        if port.type in FLOAT_TYPES and target in INTEGER_TYPES:
            raise scope.file.error(
                f"cannot cast {port.type} to {target} with 'as'", expr.span, _ROUNDING_HINT
            )
        return self._emit(
            CAST_OP, [port.arg(), const_arg({"str": target})], [target], expr.span, scope, [port], f"'as {target}'"
        )

    def _coerce(self, port: Port, target: str, span: Span, what: str, scope: Scope) -> Port:
        """``port`` as a ``target`` value: unchanged, implicitly widened, or an error."""
        if target == "any" or port.type == target:
            return port
        if port.type == "any" or implicitly_converts(port.type, target):
            return self._emit(
                CAST_OP, [port.arg(), const_arg({"str": target})], [target], span, scope, [port], f"'{target}'"
            ).ports[0]
        hint = _ROUNDING_HINT if port.type in FLOAT_TYPES and target in INTEGER_TYPES else (
            f"convert it explicitly, e.g. `... as {target}`"
        )
        raise scope.file.error(f"{what} but the value is {port.type}", span, hint)

    def _select(self, expr: ast.IfExpr, values: list[Value], scope: Scope) -> Value:
        cond = values[0].single(self, scope, "an if condition")
        a = values[1].single(self, scope, "an if branch")
        b = values[2].single(self, scope, "an if branch")
        types = {a.type, b.type}
        if "str" in types:
            node = "select_str"
        elif types <= _NUMERIC and "f64" in types:
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

    # -- calls ---------------------------------------------------------------

    def _plan_call(self, call: ast.Call, scope: Scope) -> _Plan:
        name = call.func
        if name == "if":
            raise scope.file.error(
                f"'if' takes exactly three positional arguments, got {len(call.args)}",
                call.span,
                "write `if(cond, then, else)` or `if cond { then } else { else }`",
            )
        for arg in call.args:
            if isinstance(arg.value, ast.ArrayLit):
                raise scope.file.error(
                    "an array literal cannot be passed as an argument",
                    arg.value.span,
                    "bind it to a name first: `values := [1, 2, 3]`",
                )
        definition = scope.modules.get(name)
        if definition is not None:
            module = ResolvedModule(definition, scope.file, scope.modules, scope.search_dir)
            return self._plan_module_call(call, module, scope)
        spec = self.catalog.lookup(name)
        if spec is not None:
            return self._plan_node_call(call, spec, scope)
        found = self.loader.find(name, scope.search_dir)
        if found is not None:
            return self._plan_module_call(call, found, scope)
        raise self._unknown_callee(call, scope)

    def _unknown_callee(self, call: ast.Call, scope: Scope) -> Exception:
        name = call.func
        if name in scope.env or name in scope.names:
            return scope.file.error(
                f"'{name}' is a value, not a node or module; it cannot be called", call.span
            )
        if call.interpolated:
            return scope.file.error(
                "string interpolation needs the 'printf' node, which this build's catalog does not provide",
                call.span,
            )
        extra = [*scope.modules, *(n for n in scope.names | set(scope.env) if not n.startswith("__"))]
        guess = self.catalog.suggest(name, extra)
        if guess is not None:
            hint = f"did you mean '{guess}'?"
        else:
            hint = "`polydat nodes` lists the library; modules are found as <name>.polydat beside the source or on the library path"
        return scope.file.error(f"unknown node '{name}'", call.span, hint)

    def _match_arguments(self, call: ast.Call, names: Sequence[str], variadic_last: bool, what: str,
                         signature: str, scope: Scope) -> tuple[dict[int, ast.Arg], list[ast.Arg]]:
        """Assign call arguments to parameter positions (positional in order, or by name)."""
        assigned: dict[int, ast.Arg] = {}
        extra: list[ast.Arg] = []
        variadic_index = len(names) - 1 if variadic_last else None
        cursor = 0
        for arg in call.args:
            if arg.name is not None:
                if arg.name not in names:
                    guess = suggest_name(arg.name, list(names))
                    hint = f"did you mean '{guess}'?" if guess else f"signature: {signature}"
                    raise scope.file.error(
                        f"{what} has no parameter named '{arg.name}'", arg.name_span or call.span, hint
                    )
                index = names.index(arg.name)
                if index == variadic_index:
                    extra.append(arg)
                    continue
                if index in assigned:
                    raise scope.file.error(
                        f"parameter '{arg.name}' of {what} is given twice", arg.name_span or call.span
                    )
                assigned[index] = arg
                continue
            while cursor in assigned and cursor != variadic_index:
                cursor += 1
            if cursor == variadic_index:
                extra.append(arg)
                continue
            if cursor >= len(names):
                count = len(names)
                given = len(call.args)
                raise scope.file.error(
                    f"{what} takes {count} argument{'s' if count != 1 else ''} but {given} were given",
                    ast.expr_span(arg.value),
                    f"signature: {signature}",
                )
            assigned[cursor] = arg
            cursor += 1
        return assigned, extra

    def _plan_node_call(self, call: ast.Call, spec: NodeSpec, scope: Scope) -> _Plan:
        what = f"'{call.func}'"
        params = spec.params
        variadic_last = bool(params) and params[-1].variadic
        assigned, extra = self._match_arguments(
            call, [p.name for p in params], variadic_last, what, spec.signature, scope
        )
        last_given = max([*assigned, *([len(params) - 1] if extra else [])], default=-1)
        # Each IR argument: ("const", ConstIr) or ("wire", child position).
        layout: list[tuple[str, Any]] = []
        children: list[ast.Expr] = []
        variadic_consts = 0
        for index, param in enumerate(params):
            if param.variadic:
                for arg in extra:
                    if param.is_const:
                        layout.append(("const", self._const_argument(arg, param, spec, call, scope)))
                        variadic_consts += 1
                    else:
                        layout.append(("wire", len(children)))
                        children.append(arg.value)
                continue
            arg = assigned.get(index)
            if arg is None:
                if param.default is None:
                    raise scope.file.error(
                        f"missing argument '{param.name}' for {what}", call.span, f"signature: {spec.signature}"
                    )
                if param.is_const:
                    if index < last_given:
                        layout.append(("const", param.default))
                    continue
                layout.append(("default_wire", param.default))
                continue
            if param.is_const:
                layout.append(("const", self._const_argument(arg, param, spec, call, scope)))
            else:
                layout.append(("wire", len(children)))
                children.append(arg.value)

        def finish(values: list[Value]) -> Value:
            ports = [v.single(self, scope, f"an argument of {what}") for v in values]
            args: list[dict[str, Any]] = []
            wire_types: list[str] = []
            consts: list[dict[str, Any]] = []
            inputs: list[Port] = []
            for kind, item in layout:
                if kind == "const":
                    args.append(const_arg(item))
                    consts.append(item)
                elif kind == "wire":
                    port = ports[item]
                    args.append(port.arg())
                    wire_types.append(port.type)
                    inputs.append(port)
                else:
                    port = self._literal_port(item, call.span, scope)
                    args.append(port.arg())
                    wire_types.append(port.type)
            types = self._output_types(spec, wire_types, consts, variadic_consts)
            return self._emit(spec.name, args, types, call.span, scope, inputs, what)

        return _Plan(children, finish)

    def _const_argument(self, arg: ast.Arg, param: ParamSpec, spec: NodeSpec, call: ast.Call,
                        scope: Scope) -> dict[str, Any]:
        """The IR constant for a literal in a construction-constant position."""
        literal = literal_of(arg.value, scope.env)
        span = ast.expr_span(arg.value)
        if literal is None:
            if spec.name in ("mod", "div"):
                hint = (
                    f"'{spec.name}' takes its divisor as a construction constant; "
                    f"use {spec.name}_wire(x, d) to read the divisor from a wire"
                )
            else:
                hint = "construction constants are fixed when the node is built; write a literal value here"
            raise scope.file.error(
                f"parameter '{param.name}' of '{call.func}' must be a literal", span, hint
            )
        try:
            return literal_to_const(literal, param.type)
        except LiteralTypeError as exc:
            raise scope.file.error(
                f"parameter '{param.name}' of '{call.func}' expects a {param.type} literal, got {literal.describe()}",
                span,
                str(exc),
            ) from None

    # -- modules -------------------------------------------------------------

    def _plan_module_call(self, call: ast.Call, module: ResolvedModule, scope: Scope) -> _Plan:
        definition = module.definition
        what = f"module '{definition.name}'"
        params = definition.params
        signature = _module_signature(definition)
        assigned, _ = self._match_arguments(call, [p.name for p in params], False, what, signature, scope)
        entries: list[tuple[str, Any]] = []
        children: list[ast.Expr] = []
        for index, param in enumerate(params):
            arg = assigned.get(index)
            if arg is None:
                raise scope.file.error(
                    f"missing argument '{param.name}' for {what}", call.span, f"signature: {signature}"
                )
            literal = literal_of(arg.value, scope.env)
            if literal is not None:
                entries.append(("literal", LiteralEntry(literal, ast.expr_span(arg.value))))
            else:
                entries.append(("wire", len(children)))
                children.append(arg.value)

        def finish(values: list[Value]) -> Value:
            bound: list[tuple[ast.Param, EnvEntry, Span]] = []
            for param, (kind, item), arg_index in zip(params, entries, range(len(params))):
                arg = assigned[arg_index]
                span = ast.expr_span(arg.value)
                if kind == "literal":
                    bound.append((param, item, span))
                else:
                    port = values[item].single(self, scope, f"an argument of {what}")
                    bound.append((param, port, span))
            return self._inline(module, call, bound, scope)

        return _Plan(children, finish)

    def _inline(self, module: ResolvedModule, call: ast.Call,
                arguments: list[tuple[ast.Param, EnvEntry, Span]], caller: Scope) -> Value:
        """Inline one module call: its body lowered in a fresh scope bound to the arguments."""
        definition = module.definition
        what = f"module '{definition.name}'"
        if module.key in self._active_modules:
            raise caller.file.error(
                f"{what} calls itself; modules are inlined, so recursion is not possible",
                call.span,
            )
        if len(self._active_modules) >= self.MAX_MODULE_DEPTH:
            raise caller.file.error(
                f"module calls nest more than {self.MAX_MODULE_DEPTH} deep", call.span
            )
        prefix = f"__m{self._module_count}_"
        self._module_count += 1
        if caller.span_override is not None:
            override: Span | None = caller.span_override
        else:
            override = None if module.file is caller.file else call.span
        body = Scope(
            file=module.file,
            env={},
            modules=module.modules,
            search_dir=module.search_dir,
            span_override=override,
            prefix=prefix,
            module=definition.name,
        )
        for param, entry, span in arguments:
            body.origins[param.name] = f"a parameter of {what}"
            if param.type_name is None:
                body.env[param.name] = entry
                continue
            type_ = self._type(param.type_name, param.span, module.file)
            if isinstance(entry, LiteralEntry):
                try:
                    literal_to_const(entry.literal, type_)
                except LiteralTypeError as exc:
                    raise caller.file.error(
                        f"argument '{param.name}' of {what} expects {type_}, got {entry.literal.describe()}",
                        span,
                        str(exc),
                    ) from None
                body.env[param.name] = LiteralEntry(entry.literal.with_kind_for(type_), entry.span)
            else:
                body.env[param.name] = self._coerce_argument(entry, type_, span, param, what, caller, body)
        self._active_modules.append(module.key)
        try:
            self._bind_bindings(definition.body, body, check_names=True)
        finally:
            self._active_modules.pop()
        ports: list[Port] = []
        for output in definition.outputs:
            if output.name not in body.env:
                raise module.file.error(
                    f"{what} does not bind its output '{output.name}'",
                    output.span,
                    f"add `{output.name} := ...` to the module body",
                )
            port = self._name_value(ast.Name(output.name, output.span), body).ports[0]
            if output.type_name is not None:
                type_ = self._type(output.type_name, output.span, module.file)
                port = self._coerce(
                    port, type_, output.span, f"output '{output.name}' of {what} is declared {type_}", body
                )
            ports.append(port)
        return Value(tuple(ports), call.span, what)

    def _coerce_argument(self, port: Port, type_: str, span: Span, param: ast.Param, what: str,
                         caller: Scope, body: Scope) -> Port:
        if port.type == type_ or port.type == "any" or implicitly_converts(port.type, type_):
            return self._coerce(port, type_, span, "", body)
        hint = _ROUNDING_HINT if port.type in FLOAT_TYPES and type_ in INTEGER_TYPES else (
            f"convert the argument explicitly, e.g. `... as {type_}`"
        )
        raise caller.file.error(
            f"argument '{param.name}' of {what} expects {type_} but the value is {port.type}", span, hint
        )


def _display_name(binding: ast.Binding) -> str:
    return binding.targets[0].name


def _module_signature(definition: ast.ModuleDef) -> str:
    def fmt(params: Sequence[ast.Param]) -> str:
        return ", ".join(f"{p.name}: {p.type_name}" if p.type_name else p.name for p in params)

    return f"{definition.name}({fmt(definition.params)}) -> ({fmt(definition.outputs)})"
