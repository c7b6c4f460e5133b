"""Calls: matching arguments to catalog parameters, and inlining user modules.

A call resolves, in order, to a module defined in the calling file (modules
shadow library nodes), a library node (by name or alias), or a module found on
disk (:mod:`polydat.dsl.modules`). For a library node, positional and named
arguments are matched to parameters; a literal (or a module parameter bound
to one) fills a construction constant, anything else is a wire, and a literal
in a wire position becomes a ``__lit`` node. Trailing constants with defaults
may be omitted (the core fills them). A module call is inlined: its body is
lowered in a fresh scope whose parameters are the arguments.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from . import ast
from .ast import Span
from .catalog import NodeSpec, ParamSpec
from .diagnostics import Report
from . import corerules
from .irbuild import Port, const_arg
from .lexer import RESERVED_WORDS
from .lowering import (
    LITERAL_OP,
    UNTYPED,
    AlreadyReported,
    EnvEntry,
    LiteralEntry,
    LoweringCore,
    Plan,
    Scope,
    Value,
    literal_const,
    literal_of,
)
from .modules import ModuleLoader, ResolvedModule, bundled_module_names, is_bundled, locale_names

_LITERALS = frozenset({ast.IntLit, ast.FloatLit, ast.DecimalLit, ast.StrLit, ast.BoolLit})
_UNKNOWN = object()


_CONSTANT_EXPRESSION: dict[str, Any] = {"int": 0}
"""What stands for a constant expression among a call's constants while the
frontend counts them (a ``mixed_radix`` has one output per constant): the
core evaluates the expression itself."""


class CallLowering(LoweringCore):
    """Lowering of node calls and module calls."""

    #: Module calls may nest this deep (each level costs Python stack frames).
    MAX_MODULE_DEPTH = 40

    loader: ModuleLoader
    report: Report
    locale: str
    internal_wires: dict[str, dict[str, Any]]
    _wire_only_nodes: dict[str, bool]
    _flat_nodes: dict[str, NodeSpec | None | object]
    _module_count: int
    _active_modules: list[tuple[str | None, str]]

    def _plan_call(self, call: ast.Call, scope: Scope) -> Plan:
        name = call.func
        if name == "if":
            raise scope.file.error(
                f"'if' takes exactly three positional arguments, got {len(call.args)}",
                call.span,
                "write `if(cond, then, else)` or `if cond { then } else { else }`",
            )
        for arg in call.args:
            if type(arg.value) is ast.ArrayLit:
                raise scope.file.error(
                    "an array literal cannot be passed as an argument",
                    arg.value.span,
                    "bind it to a name first: `values := [1, 2, 3]`",
                )
        if "." in name:
            return self._plan_locale_call(call, scope)
        if name in scope.failed_modules and name not in scope.modules:
            raise AlreadyReported(name)  # its definition did not parse
        locale = scope.locale
        definition = scope.modules.get(name)
        if definition is not None:
            module = ResolvedModule(definition, scope.file, scope.modules, scope.search_dir)
            if is_bundled(module):  # the shipped library calls the locale's modules
                module = self.loader.localized(name, locale) or module
            return self._plan_module_call(call, module, scope, locale)
        spec = self.catalog.lookup(name)
        if spec is not None:
            if spec.without_input is not None and len(call.args) == len(spec.params) - 1 \
                    and all(arg.name is None for arg in call.args):
                # A sampler called without its input: its lookup table.
                spec = self.catalog.lookup(spec.without_input) or spec
            return self._plan_node_call(call, spec, scope)
        found = self.loader.find(name, scope.search_dir)
        if found is None or is_bundled(found):
            found = self.loader.localized(name, locale) or found
        if found is not None:
            self._warn_if_shadowing(call, found, scope)
            return self._plan_module_call(call, found, scope, locale)
        raise self._unknown_callee(call, scope)

    def _plan_locale_call(self, call: ast.Call, scope: Scope) -> Plan:
        """``de_DE.full_name(key)``: the shipped library's module ``full_name``
        in locale ``de_DE`` (the locale's own, else the library's, whose calls
        resolve in that locale too)."""
        locale, _, name = call.func.partition(".")
        locales = locale_names()
        if locale not in locales:
            guess = corerules.suggest(locale, locales)
            hint = f"did you mean '{guess}'? " if guess else ""
            raise scope.file.error(
                f"unknown locale '{locale}' in '{call.func}'", call.span,
                f"{hint}the bundled locales are {', '.join(locales)}",
            )
        found = self.loader.localized(name, locale) or self.loader.bundled(name)
        if found is None:
            raise scope.file.error(
                f"locale {locale} has no field '{name}'", call.span,
                "`polydat fields` lists the fields and their locales",
            )
        return self._plan_module_call(call, found, scope, locale)

    def _warn_if_shadowing(self, call: ast.Call, found: ResolvedModule, scope: Scope) -> None:
        """A warning at ``call`` when the module found on disk is a user's that
        hides a module of the library shipped with the package (both named)."""
        bundled = self.loader.bundled(call.func)
        if bundled is None or bundled.key == found.key or is_bundled(found):
            return
        where = f"{found.file.path}:{found.definition.span}"
        shipped = f"{bundled.file.path}:{bundled.definition.span}"
        self.report.add(scope.file.diagnostic(
            f"module '{call.func}' from {where} shadows the bundled module '{call.func}' ({shipped})",
            call.span,
            "rename the module (or its file) to use the bundled one; `polydat fields` lists the bundled modules",
            severity="warning",
        ))

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
        extra = [
            *scope.modules,
            *bundled_module_names(),
            *(n for n in scope.names | set(scope.env) if not n.startswith("__")),
        ]
        removed = corerules.removed_node_hint(name)
        guess = self.catalog.suggest(name, extra)
        if removed is not None:
            hint = removed
        elif guess is not None:
            hint = f"did you mean '{guess}'?"
        else:
            hint = "`polydat nodes` lists the library; modules are found as <name>.polydat beside the source or on the library path"
        return scope.file.error(f"unknown node '{name}'", call.span, hint)

    def _match_arguments(self, call: ast.Call, params: Sequence[tuple[str, bool, bool]], what: str,
                         signature: str, scope: Scope
                         ) -> tuple[dict[int, ast.Arg], list[ast.Arg], dict[int, tuple[str, str | None]]]:
        """Assign call arguments to parameter positions by the core's rule
        (positional in order, or by name): the arguments per parameter, the
        variadic parameter's arguments, and the missing parameters' messages.
        ``params`` gives per parameter (name, variadic, optional)."""
        given, extra, missing, mismatch = corerules.match_arguments(
            params, [arg.name for arg in call.args], what, signature
        )
        if mismatch is not None:
            at, message, hint = mismatch
            arg = call.args[at]
            span = (arg.name_span or call.span) if arg.name is not None else ast.expr_span(arg.value)
            raise scope.file.error(message, span, hint)
        assigned = {index: call.args[at] for index, at in enumerate(given) if at is not None}
        return assigned, [call.args[at] for at in extra], {index: (m, h) for index, m, h in missing}

    def _plan_node_call(self, call: ast.Call, spec: NodeSpec, scope: Scope) -> Plan:
        params = spec.params
        args = call.args
        if len(args) == len(params) and self._wire_only(spec):
            if all(given.name is None for given in args):
                return self._plan_wire_call(call, spec, scope)
        what = f"'{call.func}'"
        assigned, extra, missing = self._match_arguments(
            call, [(p.name, p.variadic, p.default is not None) for p in params], what, spec.signature, scope
        )
        last_given = max([*assigned, *([len(params) - 1] if extra else [])], default=-1)
        # Each IR argument: ("const", ConstIr) or ("wire", child position).
        layout: list[tuple[str, Any]] = []
        children: list[ast.Expr] = []
        for index, param in enumerate(params):
            if param.variadic:
                for rest in extra:
                    if param.is_const:
                        self._const_layout(rest, param, spec, call, scope, layout, children)
                    else:
                        layout.append(("wire", len(children)))
                        children.append(rest.value)
                continue
            arg = assigned.get(index)
            if arg is None:
                if index in missing:
                    message, hint = missing[index]
                    raise scope.file.error(message, call.span, hint)
                if param.is_const:
                    if index < last_given:
                        layout.append(("const", param.default))
                    continue
                layout.append(("default_wire", param.default))
                continue
            if param.is_const:
                self._const_layout(arg, param, spec, call, scope, layout, children)
            else:
                layout.append(("wire", len(children)))
                children.append(arg.value)

        def finish(values: list[Value]) -> Value:
            ports = [v.single(scope, f"an argument of {what}") for v in values]
            args: list[dict[str, Any]] = []
            consts: list[dict[str, Any]] = []
            inputs: list[Port] = []
            arg_spans: list[Span | None] = []
            for kind, item in layout:
                arg_spans.append(None)
                if kind == "literal":
                    const, arg_spans[-1] = item
                    args.append(const_arg(const))
                    consts.append(const)
                elif kind == "const":
                    args.append(const_arg(item))
                    consts.append(item)
                elif kind == "const_wire":
                    # A constant expression: the core evaluates it by the
                    # nodes' own rules when it builds this node.
                    position, placeholder = item
                    args.append(ports[position].arg())
                    consts.append(placeholder)
                elif kind == "wire":
                    port = ports[item]
                    args.append(port.arg())
                    inputs.append(port)
                else:
                    args.append(self._literal_port(item, call.span, scope).arg())
            types = self._output_types(spec, consts)
            return self._emit(spec.name, args, types, call.span, scope, inputs, what, arg_spans)

        return Plan(children, finish)

    def _flat_call(self, call: ast.Call, scope: Scope) -> Value | None:
        """:meth:`_flat_port` as a :class:`Value` (None when the call does not qualify)."""
        port = self._flat_port(call, scope)
        return None if port is None else Value((port,), call.span, f"'{call.func}'")

    def _flat_port(self, call: ast.Call, scope: Scope) -> Port | None:
        """A call of a one-output, wires-only library node on names and literals, lowered in one step.

        The most common binding (``id := hash(cycle)``), emitted directly into
        the graph. None when the call is anything else (a module, a constant
        parameter, a named argument, an operand that is not a plain wire, a
        node with several outputs ...): the general lowering handles it, with
        its diagnostics. Nothing is emitted before the call is known to qualify.
        """
        name = call.func
        spec = self._flat_nodes.get(name, _UNKNOWN)
        if spec is _UNKNOWN:
            found = self.catalog.lookup(name)
            spec = found if found is not None and self._wire_only(found) else None
            self._flat_nodes[name] = spec
        if spec is None or name in scope.modules or name in scope.failed_modules:
            return None
        args = call.args
        if len(args) != len(spec.params):  # type: ignore[union-attr, attr-defined]
            return None
        env = scope.env
        ports: list[Port | None] = []
        literals = False
        for arg in args:
            if arg.name is not None:
                return None
            value = arg.value
            kind = type(value)
            if kind is ast.Name:
                port = env.get(value.name)  # type: ignore[union-attr]
                if type(port) is not Port:
                    return None
                ports.append(port)  # type: ignore[arg-type]
            elif kind in _LITERALS:
                literals = True
                ports.append(None)
            else:
                return None
        if spec.output_count(0) != 1:  # type: ignore[union-attr, attr-defined]
            return None
        if literals:  # the call qualifies: its literal operands become nodes, in order
            for i, arg in enumerate(args):
                if ports[i] is None:
                    ports[i] = self._literal_port(literal_const(arg.value), arg.value.span, scope)  # type: ignore
        coordinate = None
        for port in ports:
            if port.coordinate is not None:  # type: ignore[union-attr]
                coordinate = port.coordinate  # type: ignore[union-attr]
                break
        nodes = self.graph.nodes
        span = scope.span_override or call.span
        nodes.append({"op": spec.name, "args": [{"wire": p.wire} for p in ports],  # type: ignore
                      "span": {"line": span.line, "col": span.col}})
        return Port({"node": {"node": len(nodes) - 1, "port": 0}}, UNTYPED, coordinate)

    def _wire_only(self, spec: NodeSpec) -> bool:
        """Whether every parameter of ``spec`` is a plain wire (no constant, default or variadic)."""
        known = self._wire_only_nodes.get(spec.name)
        if known is None:
            known = all(p.kind == "wire" and not p.variadic and p.default is None for p in spec.params)
            self._wire_only_nodes[spec.name] = known
        return known

    def _plan_wire_call(self, call: ast.Call, spec: NodeSpec, scope: Scope) -> Plan:
        """A call of a wires-only node with one positional argument per parameter
        (the common case of :meth:`_plan_node_call`, without its argument layout)."""

        def finish(values: list[Value]) -> Value:
            ports = [v.ports[0] if len(v.ports) == 1 else v.single(scope, f"an argument of '{call.func}'")
                     for v in values]
            types = self._output_types(spec, ())
            return self._emit(spec.name, [p.arg() for p in ports], types, call.span, scope, ports,
                              f"'{call.func}'")

        return Plan([a.value for a in call.args], finish)

    def _const_layout(self, arg: ast.Arg, param: ParamSpec, spec: NodeSpec, call: ast.Call, scope: Scope,
                      layout: list[tuple[str, Any]], children: list[ast.Expr]) -> None:
        """Lays out a construction-constant argument: a literal becomes an IR
        constant; any other expression (a ``const`` binding, arithmetic on
        literals) is lowered as a wire that the core evaluates while building
        the node, and refuses with the reason when it is not constant."""
        literal = literal_of(arg.value, scope.env)
        if literal is not None:  # the core fits it to the parameter's type, or refuses it at its span
            layout.append(("literal", (literal.const(), ast.expr_span(arg.value))))
            return
        layout.append(("const_wire", (len(children), _CONSTANT_EXPRESSION)))
        children.append(arg.value)

    def _plan_module_call(self, call: ast.Call, module: ResolvedModule, scope: Scope, locale: str) -> Plan:
        definition = module.definition
        what = f"module '{definition.name}'"
        params = definition.params
        signature = _module_signature(definition)
        assigned, _, missing = self._match_arguments(
            call, [(p.name, False, False) for p in params], what, signature, scope
        )
        entries: list[tuple[str, Any]] = []
        children: list[ast.Expr] = []
        for index, param in enumerate(params):
            arg = assigned.get(index)
            if arg is None:
                message, hint = missing[index]
                raise scope.file.error(message, call.span, hint)
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
                    port = values[item].single(scope, f"an argument of {what}")
                    bound.append((param, port, span))
            return self._inline(module, call, bound, scope, locale)

        return Plan(children, finish)

    def _inline(self, module: ResolvedModule, call: ast.Call,
                arguments: list[tuple[ast.Param, EnvEntry, Span]], caller: Scope, locale: str) -> Value:
        """Inline one module call: its body lowered in a fresh scope bound to
        the arguments, its calls resolved in ``locale``."""
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
            locale=locale,
        )
        for param, entry, span in arguments:
            if param.name in RESERVED_WORDS:
                raise module.file.error(f"'{param.name}' is reserved and cannot name a parameter", param.span)
            body.origins[param.name] = f"a parameter of {what}"
            if param.type_name is None:
                body.env[param.name] = entry
                continue
            type_ = self._type(param.type_name, param.span, module.file)
            if isinstance(entry, LiteralEntry):  # the core fits the literal to the parameter's type
                literal = self._literal_port(entry.literal.const(), span, caller)
                body.env[param.name] = self._coerce(
                    literal, type_, span, f"argument '{param.name}' of {what} expects {type_}", caller,
                    literal_lead=f"argument '{param.name}' of {what} expects {type_}, got ",
                )
            else:
                port = cast(Port, entry)  # not a literal: the port of a wire argument
                body.env[param.name] = self._coerce(
                    port, type_, span, f"argument '{param.name}' of {what} expects {type_}", body
                )
        self._active_modules.append(module.key)
        saved = self._module_pragmas(definition.pragmas, module.file)  # type: ignore[attr-defined]
        if any(pragma.name == "locale" for pragma in definition.pragmas):
            body.locale = self.locale  # the body's own `pragma locale`
        try:
            self._bind_bindings(definition.body, body, check_names=True)
        finally:
            self._restore_pragmas(saved)  # type: ignore[attr-defined]
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


def _module_signature(definition: ast.ModuleDef) -> str:
    def fmt(params: Sequence[ast.Param]) -> str:
        return ", ".join(f"{p.name}: {p.type_name}" if p.type_name else p.name for p in params)

    return f"{definition.name}({fmt(definition.params)}) -> ({fmt(definition.outputs)})"
