"""Binder: a parsed program to the graph IR.

What it does, in order:

1. Declarations. Inputs, externs, bindings and module definitions are
   collected in source order; a name declared twice is an error.
2. Free-name inference. A name that is read but never bound becomes a
   coordinate input (u64), after the declared ones, in order of first use (or
   an extern, when the caller says an outer scope provides it). Each inferred
   input is reported as a warning (an error with ``strict=True``).
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

Binding goes on after a statement fails: the error is recorded in the
:class:`~polydat.dsl.diagnostics.Report`, the names the statement binds are
marked failed (their readers fail quietly instead of cascading), and every
error of the file is raised at the end as one ``CompileError``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import ast
from .ast import Span
from .calls import CallLowering
from .catalog import Catalog
from .declarations import Declarations, reserved_error
from .diagnostics import Report, SourceFile
from .irbuild import GraphBuilder, Port, input_wire, node_wire
from .lexer import RESERVED_WORDS
from .lowering import (
    CAPTURE_OP,
    FAILED,
    LITERAL_OP,
    UNTYPED,
    AlreadyReported,
    LiteralEntry,
    Plan,
    Scope,
    Value,
    literal_const,
    literal_of,
    render_array,
)
from .modules import DEFAULT_LOCALE, ModuleLoader, directory_of, locale_names, module_table
from .operators import OperatorLowering
from .tile import TileLowering
from .ordering import dependency_order
from .types import f64_bits
from ..errors import CompileError, Diagnostic

__all__ = ["Binder", "BoundProgram", "LiteralEntry", "Scope", "Value", "literal_of", "render_array", "LITERAL_OP"]


@dataclass(frozen=True)
class BoundProgram:
    """A program bound to the graph IR.

    ``ir`` is the JSON-serialisable ``GraphIr`` dict; ``input_names`` are in
    IR order (coordinates first, then externs); ``output_names`` are the
    outputs in source order (the core types them when it compiles); ``spans`` maps every
    input and output name to where it was declared (or first used);
    ``internal_wires`` maps the prefixed internal names of inlined module
    bindings (``__m0_pos``) to their IR wires; ``docs`` holds ``///`` doc
    comments by binding name; ``warnings`` are the warning diagnostics (one
    per inferred input), in source order; ``inferred_inputs`` names the
    coordinates inferred from free names, in IR order.
    """

    ir: dict[str, Any]
    source: str
    path: str | None
    input_names: tuple[str, ...]
    input_types: dict[str, str]
    output_names: tuple[str, ...]
    spans: dict[str, Span]
    program: ast.Program
    internal_wires: dict[str, dict[str, Any]] = field(default_factory=dict)
    docs: dict[str, str] = field(default_factory=dict)
    warnings: tuple[Diagnostic, ...] = ()
    inferred_inputs: tuple[str, ...] = ()
    traversals: tuple[ast.ForStmt, ...] = ()
    """The program's ``for`` statements (their bodies are bound as child programs)."""
    comprehensions: tuple[Any, ...] = ()
    """Each traversal's comprehension, a producer it names resolved."""
    producers: dict[str, Any] = field(default_factory=dict)
    """The program's ``for`` producers by name (their resolved comprehensions)."""
    pragmas: tuple[str, ...] = ()
    """The ``pragma`` names of the program (and of the scopes around a ``for`` body)."""
    strict_value_spans: frozenset[tuple[int, int]] = frozenset()
    """Where the nodes lowered under ``pragma strict_values`` are: a
    constant that makes one of them fail on every evaluation is an error."""
    strict: bool = False
    """Free names are errors (``strict=True`` or ``pragma strict``)."""
    strict_types: bool = False
    """Implicit coercions are refused (``pragma strict`` or ``pragma strict_types``)."""

    @property
    def coordinate_names(self) -> tuple[str, ...]:
        """Names of the coordinate inputs (the ``set_inputs`` prefix)."""
        return tuple(i["name"] for i in self.ir["inputs"] if i["kind"] == "coordinate")

    def ir_json(self) -> str:
        """The IR as JSON text (the form the Rust core reads)."""
        import json

        return json.dumps(self.ir, separators=(",", ":"))


class Binder(Declarations, OperatorLowering, CallLowering, TileLowering):
    """Binds one program (and the modules it calls) against a catalog.

    ``report`` collects every diagnostic; :meth:`bind` raises the errors
    together at the end. ``strict=True`` makes an inferred input an error.
    """

    def __init__(
        self,
        catalog: Catalog,
        *,
        library_path: Any = (),
        outer: Mapping[str, str] | None = None,
        source_path: str | None = None,
        strict: bool = False,
        outer_coordinates: Any = (),
        pragmas: Sequence[str] = (),
    ):
        self.catalog = catalog
        self.loader = ModuleLoader(library_path, exclude=source_path)
        self.outer = dict(outer or {})
        self.outer_coordinates = frozenset(outer_coordinates)
        self.strict = strict
        self._entry_strict = strict
        self.strict_types = False
        self.strict_values = False
        self._strict_marks: dict[int, bool] = {}
        self._warned_pragmas: set[Any] = set()
        self.pragmas: list[str] = []
        self.locale = DEFAULT_LOCALE
        self._inferred_externs: set[str] = set()
        self._default_spans: dict[str, Span] = {}
        for name in pragmas:
            self._pragma(name)
        self.report = Report(source_path)
        self.graph = GraphBuilder()
        self.spans: dict[str, Span] = {}
        self.docs: dict[str, str] = {}
        self.internal_wires: dict[str, dict[str, Any]] = {}
        self._module_count = 0
        self._active_modules: list[tuple[str | None, str]] = []
        self._wire_only_nodes: dict[str, bool] = {}
        self._flat_nodes: dict[str, Any] = {}
        self.producers: dict[str, Any] = {}
        self.tiles: dict[str, Any] = {}

    def bind(self, program: ast.Program, *, partial: bool = False) -> BoundProgram:
        """Bind ``program``; raises one CompileError carrying every error found.

        ``partial=True`` raises nothing: the program returned holds what
        bound (the statements in error and their readers are left out), and
        the errors are on :attr:`report`. ``check`` hands it to the core, so
        the core's errors in the rest of the file are found too.
        """
        report = self.report
        report.path = program.path
        file = SourceFile(program.source, program.path)
        try:
            modules = module_table(program, file)
        except CompileError as err:  # a duplicate definition: the first one is used
            report.extend(err.diagnostics)
            modules = {}
            for definition in program.modules:
                modules.setdefault(definition.name, definition)
        report.extend(program.parse_warnings)
        for pragma in program.pragmas:
            self._pragma(pragma.name, pragma.span, file, pragma.value)
        scope = Scope(file, {}, modules, directory_of(program.path), failed_modules=program.unparsed_modules,
                      locale=self.locale)
        for name in program.unparsed_names:
            scope.env[name] = FAILED
        owner: dict[str, int] = {}
        coordinates, externs = self._declarations(program, scope, owner)
        bindings = program.bindings
        reads = [ast.names_read(binding.value) for binding in bindings]
        inferred = self._free_names(reads, owner, scope, coordinates, externs)
        free = set(inferred)
        for name, type_, span in coordinates:
            index = self.graph.add_input(name, type_, "coordinate", span)
            if name in free:
                self.graph.inputs[index]["inferred"] = True
            scope.env[name] = Port(input_wire(index), type_, index)
            self.spans[name] = span
        for name, type_, span, default in externs:
            index = self.graph.add_input(name, type_, "extern", span, default, self._default_spans.get(name))
            if name in self._inferred_externs:
                self.graph.inputs[index]["inferred"] = True
            scope.env[name] = Port(input_wire(index), type_, None)
            self.spans[name] = span
        produced = self._bind_bindings(bindings, scope, check_names=False, reads=reads, owner=owner)
        comprehensions = self._traversal_comprehensions(program, scope, file)
        if not partial:
            report.raise_errors()
        output_names: list[str] = []
        outputs = self.graph.outputs
        for name, port, modifiers, span in produced:
            outputs.append({"name": name, "wire": port.wire, "modifiers": list(modifiers),
                            "span": {"line": span.line, "col": span.col}})
            output_names.append(name)
        ir = self.graph.to_json()
        return BoundProgram(
            ir=ir,
            source=program.source,
            path=program.path,
            input_names=tuple(i["name"] for i in ir["inputs"]),
            input_types={i["name"]: i.get("type", UNTYPED) for i in ir["inputs"]},
            output_names=tuple(output_names),
            spans=dict(self.spans),
            program=program,
            internal_wires=dict(self.internal_wires),
            docs=dict(self.docs),
            warnings=tuple(report.warnings),
            inferred_inputs=tuple(n for n in inferred if n not in self.outer_coordinates),
            traversals=program.traversals,
            comprehensions=comprehensions,
            producers=dict(self.producers),
            pragmas=tuple(self.pragmas),
            strict_value_spans=frozenset(
                (n["span"]["line"], n["span"]["col"]) for i, n in enumerate(ir["nodes"]) if self._strict_marks.get(i)
            ),
            strict=self.strict,
            strict_types=self.strict_types,
        )

    #: The pragmas the compiler knows.
    KNOWN_PRAGMAS = ("strict", "strict_types", "strict_values", "locale")

    def _pragma(self, name: str, span: Span | None = None, file: SourceFile | None = None,
                value: str | None = None) -> None:
        """Applies ``pragma name`` (an unknown one is a warning, as upstream).
        ``pragma locale "de_DE"`` sets the locale the shipped library's
        modules resolve in; it is kept among the pragma names as
        ``locale=de_DE`` (the form scopes inside the program are handed)."""
        if name.startswith("locale="):
            name, value = "locale", name.partition("=")[2]
        if name == "locale":
            self._locale_pragma(value, span, file)
            return
        if name in self.pragmas:
            return
        self.pragmas.append(name)
        if name == "strict":
            self.strict = self.strict_types = self.strict_values = True
        elif name == "strict_types":
            self.strict_types = True
        elif name == "strict_values":
            self.strict_values = True
        elif file is not None and span is not None and (file.path, span, name) not in self._warned_pragmas:
            from . import corerules

            self._warned_pragmas.add((file.path, span, name))
            guess = corerules.suggest(name, list(self.KNOWN_PRAGMAS))
            hint = f"did you mean '{guess}'?" if guess else f"known pragmas: {', '.join(self.KNOWN_PRAGMAS)}"
            self.report.add(file.diagnostic(f"unknown pragma '{name}'", span, hint, severity="warning"))

    def _locale_pragma(self, value: str | None, span: Span | None, file: SourceFile | None) -> None:
        """``pragma locale "de_DE"``: an unknown or missing locale is an error naming the bundled ones."""
        locales = locale_names()
        if value in locales:
            self.pragmas = [p for p in self.pragmas if not p.startswith("locale=")] + [f"locale={value}"]
            self.locale = value
            return
        if value is None:
            message, hint = "pragma locale needs a locale", 'write e.g. `pragma locale "de_DE"`'
        else:
            from . import corerules

            guess = corerules.suggest(value, locales)
            message = f"unknown locale '{value}'"
            hint = (f"did you mean '{guess}'? " if guess else "") + f"the bundled locales are {', '.join(locales)}"
        if file is not None and span is not None:  # (a scope's inherited locale was checked where it was written)
            self.report.add(file.diagnostic(message, span, hint))

    def _module_pragmas(self, pragmas: Sequence[ast.Pragma], file: SourceFile) -> tuple[Any, ...]:
        """Enters a module body's pragma scope (its own pragmas and no
        others); returns the state :meth:`_restore_pragmas` puts back."""
        saved = (self.strict, self.strict_types, self.strict_values, self.pragmas, self.locale)
        self.strict, self.strict_types, self.strict_values, self.pragmas = self._entry_strict, False, False, []
        for pragma in pragmas:
            self._pragma(pragma.name, pragma.span, file, pragma.value)
        return saved

    def _restore_pragmas(self, saved: tuple[Any, ...]) -> None:
        self.strict, self.strict_types, self.strict_values, self.pragmas, self.locale = saved

    def _mark_strict_values(self, start: int) -> None:
        """The nodes emitted since ``start`` (not yet marked by a module body
        of their own) belong to a scope with or without ``strict_values``."""
        marks = self._strict_marks
        for index in range(start, len(self.graph.nodes)):
            marks.setdefault(index, self.strict_values)

    def _bind_bindings(
        self, bindings: Sequence[ast.Binding], scope: Scope, check_names: bool,
        reads: list[list[ast.Name]] | None = None, owner: dict[str, int] | None = None,
    ) -> list[tuple[str, Port, tuple[str, ...], Span]]:
        """Lower ``bindings`` in dependency order; returns their named ports in source order.

        ``owner`` (name -> index of the binding that binds it) is computed
        here unless the caller has it. A binding that fails is reported and
        its names are marked failed; the others are bound all the same.
        """
        if owner is None:
            owner = {}
            for index, binding in enumerate(bindings):
                for target in binding.targets:
                    if binding.tuple_form and target.name == "_":
                        continue
                    if check_names and not self._check_new_name(target, owner, bindings, scope):
                        scope.disowned.add(id(target))
                        continue
                    if id(target) in scope.disowned or target.name in scope.env:
                        continue
                    owner.setdefault(target.name, index)
        scope.names.update(owner, scope.env)
        if reads is None:
            reads = [ast.names_read(binding.value) for binding in bindings]
        order, failed = dependency_order(bindings, reads, owner, self.report, scope.file)
        for index in failed:
            self._fail_targets(bindings[index], scope, owner, index)
        in_source_order = type(order) is range  # then the ports are collected as they come
        named: list[tuple[str, Port, tuple[str, ...], Span]] = []
        produced: dict[int, list[tuple[str, Port, tuple[str, ...], Span]]] = {}
        top_level = scope.module is None
        for index in order:
            if index in failed:
                continue
            binding = bindings[index]
            if top_level:
                self.report.anchor = binding.span
            start = len(self.graph.nodes)
            try:
                ports = self._bind_one(binding, scope, owner, index)
                self._mark_strict_values(start)
            except AlreadyReported:
                self._fail_targets(binding, scope, owner, index)
                continue
            except CompileError as err:
                self.report.extend(err.diagnostics)
                self._fail_targets(binding, scope, owner, index)
                continue
            if in_source_order:
                named.extend(ports)
            else:
                produced[index] = ports
        if not in_source_order:
            for index in sorted(produced):
                named.extend(produced[index])
        return named

    @staticmethod
    def _fail_targets(binding: ast.Binding, scope: Scope, owner: dict[str, int], index: int) -> None:
        for target in binding.targets:
            if owner.get(target.name) == index:
                scope.env[target.name] = FAILED

    def _check_new_name(
        self, target: ast.Target, owner: dict[str, int], bindings: Sequence[ast.Binding], scope: Scope
    ) -> bool:
        """Whether a module-body binding may bind ``target`` (else the clash is reported)."""
        file = scope.file
        if target.name in RESERVED_WORDS:
            self.report.add(reserved_error(file, target.name, target.span))
            return False
        if target.name in owner:
            first = next(t for t in bindings[owner[target.name]].targets if t.name == target.name)
            self.report.add(file.diagnostic(f"'{target.name}' is already bound", target.span,
                                            f"first bound at {first.span}"))
            return False
        if target.name in scope.env:
            origin = scope.origins.get(target.name, "declared")
            self.report.add(file.diagnostic(f"'{target.name}' is already {origin}", target.span))
            return False
        return True

    def _traversal_comprehensions(self, program: ast.Program, scope: Scope, file: SourceFile) -> tuple[Any, ...]:
        """Each ``for`` statement's comprehension, a producer it names
        resolved; names it reads that nothing binds are reported."""
        resolved = []
        for traversal in program.traversals:
            try:
                comprehension = self._resolve_producer(traversal.comprehension, file)
            except CompileError as err:
                self.report.extend(err.diagnostics)
                resolved.append(traversal.comprehension)
                continue
            self._check_comprehension_names(comprehension, scope, file)
            resolved.append(comprehension)
        return tuple(resolved)

    def _resolve_producer(self, comprehension: Any, file: SourceFile) -> Any:
        """A comprehension naming a producer (``for sweep ...``), resolved
        against the producers bound in this scope."""
        if comprehension.base is None:
            return comprehension
        base = self.producers.get(comprehension.base)
        if base is None:
            span = Span(comprehension.base_line, comprehension.base_col)
            known = sorted(self.producers)
            from . import corerules

            guess = corerules.suggest(comprehension.base, known) if known else None
            hint = f"did you mean '{guess}'?" if guess else (
                f"producers here: {', '.join(known)}" if known else "bind one first: `sweep := for k in 1..4`"
            )
            raise file.error(f"no producer named '{comprehension.base}' is bound in this scope", span, hint)
        return comprehension.derive(base)

    def _check_comprehension_names(self, comprehension: Any, scope: Scope, file: SourceFile) -> None:
        """A name a comprehension reads that nothing binds (a ``{name}``, or
        a bare word in a predicate) is an error, as upstream 0.6.0's V3: it
        would read None and silently keep or drop every tuple."""
        from .predicate import Predicate

        bound = set(scope.env) | scope.names | set(self.outer) | set(self.outer_coordinates)
        own = set(comprehension.names)
        seen: set[str] = set()
        reads = [(ref.name, Span(ref.line, ref.col)) for ref in comprehension.refs()]
        for where in comprehension.wheres:
            try:
                predicate = Predicate(where.text)
            except CompileError as err:
                self.report.add(file.diagnostic(f"in the where predicate: {err.message}", Span(where.line, where.col)))
                continue
            for word in predicate.bare_words:
                if word not in own and word not in bound and word not in seen:
                    seen.add(word)
                    self._unbound_comprehension_name(
                        word, Span(where.line, where.col), file,
                        f"a string is quoted (\"{word}\"); a name is written {{{word}}}",
                    )
            reads += [(name, Span(where.line, where.col)) for name in predicate.reads()]
        for name, span in reads:
            if name in own or name in bound or name in seen:
                continue
            seen.add(name)
            self._unbound_comprehension_name(name, span, file, None)

    def _unbound_comprehension_name(self, name: str, span: Span, file: SourceFile, hint: str | None) -> None:
        if hint is None:
            from . import corerules

            guess = corerules.suggest(name, [n for n in self.report_names() if n != name])
            hint = f"did you mean '{guess}'?" if guess else "bind it in this scope or an outer one"
        self.report.add(file.diagnostic(f"'{name}' is bound nowhere (read by the comprehension)", span, hint))

    def report_names(self) -> list[str]:
        """Names a "did you mean" may suggest: outputs, inputs and outer names bound so far."""
        return list(self.spans) + list(self.outer)

    def _bind_producer(self, binding: ast.Binding, scope: Scope, owner: dict[str, int],
                       index: int) -> list[tuple[str, Port, tuple[str, ...], Span]]:
        """``name := for <comprehension>``: a const ``str`` wire holding the
        (resolved) comprehension text; traversals and derivations in this
        scope read its comprehension at compile time."""
        file = scope.file
        expr = binding.value
        assert isinstance(expr, ast.ForExpr)
        if binding.tuple_form or binding.type_name is not None:
            raise file.error("a `for` producer binds one name", binding.span, "write `sweep := for k in 1..4`")
        if "volatile" in binding.modifiers or "shared" in binding.modifiers:
            raise file.error("a `for` producer is const; it takes no 'shared' or 'volatile'", binding.span)
        comprehension = self._resolve_producer(expr.comprehension, file)
        self._check_comprehension_names(comprehension, scope, file)
        return self._publish_producer(binding, scope, owner, index, comprehension, expr.span)

    def _publish_producer(self, binding: ast.Binding, scope: Scope, owner: dict[str, int], index: int,
                          comprehension: Any, span: Span) -> list[tuple[str, Port, tuple[str, ...], Span]]:
        """Binds a producer as upstream lowers one, ``name := streamer("<text>")``
        (a constant ``str``); traversals and derivations in this scope read
        its comprehension at compile time."""
        target = binding.targets[0]
        from .comprehension import canonical_text

        call = ast.Call("streamer", (ast.Arg(ast.StrLit(canonical_text(comprehension.text), span)),), span)
        port = self._lower(call, scope).single(scope, f"bound to '{target.name}'")
        named = self._publish(binding, target, port, scope, owner, index, binding.modifiers)
        if named:
            self.producers[target.name] = comprehension
        return named

    def _streamer_comprehension(self, call: ast.Call, file: SourceFile) -> Any:
        """The comprehension of ``streamer("<text or payload>")`` written as
        a binding's value (upstream's producer, called by name), or None
        when the call's argument is not one string literal."""
        from . import comprehension as comprehensions
        from . import corerules
        from .. import errors

        if len(call.args) != 1 or call.args[0].name is not None or type(call.args[0].value) is not ast.StrLit:
            return None
        literal = call.args[0].value
        assert isinstance(literal, ast.StrLit)
        try:
            return comprehensions.parse_text(corerules.streamer_text(literal.value), file.path)
        except CompileError as err:
            raise file.error(f"streamer: {err.message}", literal.span, err.hint) from None
        except errors.PolydatError as err:
            raise file.error(str(err), literal.span) from None

    def _publish(self, binding: ast.Binding, target: ast.Target, port: Port, scope: Scope, owner: dict[str, int],
                 index: int, modifiers: tuple[str, ...]) -> list[tuple[str, Port, tuple[str, ...], Span]]:
        """Binds ``target`` to ``port`` when this binding owns the name: an
        internal wire in a module body, else a named output (returned)."""
        if owner.get(target.name) != index:
            return []
        scope.env[target.name] = port
        if scope.module is not None:
            self.internal_wires[scope.prefix + target.name] = port.wire
            return []
        self.spans[target.name] = target.span
        if binding.doc:
            self.docs[target.name] = binding.doc
        return [(target.name, port, modifiers, target.span)]

    def _bind_one(self, binding: ast.Binding, scope: Scope, owner: dict[str, int],
                  index: int) -> list[tuple[str, Port, tuple[str, ...], Span]]:
        """Lower one binding; its names it owns (not a clashing duplicate) are bound."""
        if type(binding.value) is ast.ForExpr:
            return self._bind_producer(binding, scope, owner, index)
        if type(binding.value) is ast.TileExpr:
            return self._bind_tile(binding, scope, owner, index)
        if (type(binding.value) is ast.Call and binding.value.func == "streamer"  # type: ignore[attr-defined]
                and "streamer" not in scope.modules):
            streamed = self._streamer_comprehension(binding.value, scope.file)  # type: ignore[arg-type]
            if streamed is not None and not binding.tuple_form and binding.type_name is None:
                self._check_comprehension_names(streamed, scope, scope.file)
                return self._publish_producer(binding, scope, owner, index, streamed, binding.value.span)
        if not binding.modifiers and binding.type_name is None and not binding.tuple_form:
            # `name := value`, the usual binding.
            target = binding.targets[0]
            port = self._flat_port(binding.value, scope) if type(binding.value) is ast.Call else None  # type: ignore
            if port is None:
                value = self._lower(binding.value, scope)
                port = value.ports[0] if len(value.ports) == 1 else value.single(scope, f"bound to '{target.name}'")
            return self._publish(binding, target, port, scope, owner, index, ())
        file = scope.file
        if scope.module is not None and (set(binding.modifiers) - {"const"} or binding.type_name):
            raise file.error(
                f"modifiers other than const are not allowed inside module '{scope.module}'",
                binding.span,
                "apply shared/volatile to the binding that calls the module",
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
            elif len(value.ports) == 1:
                ports = [(binding.targets[0], value.ports[0])]
            else:
                ports = [(binding.targets[0], value.single(scope, f"bound to '{binding.targets[0].name}'"))]
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
            if "const" in binding.modifiers and isinstance(binding.value, ast.Name):
                port = self._capture(port, target.span)
            if owner.get(target.name) != index:
                continue
            scope.env[target.name] = port
            if scope.module is None:
                self.spans[target.name] = target.span
                if binding.doc:
                    self.docs[target.name] = binding.doc
                produced.append((target.name, port, binding.modifiers, target.span))
                if "shared" in binding.modifiers:
                    # The binding's cell: later reads of the name read the cell's
                    # slot; the bound value is the cell's starting value.
                    # Its type is the value's: the core types the slot from the binding.
                    cell = self.graph.add_input(target.name, port.type, "extern", target.span)
                    self.graph.inputs[cell]["cell"] = True
                    if port.type == UNTYPED:
                        del self.graph.inputs[cell]["type"]
                    scope.env[target.name] = Port(input_wire(cell), port.type, None)
            else:
                self.internal_wires[scope.prefix + target.name] = port.wire
        return produced

    def _capture(self, port: Port, span: Span) -> Port:
        """A node of its own for ``const c := name``: readers of ``c`` must read
        the captured value, not the live binding or input it names."""
        node = self.graph.add_node(CAPTURE_OP, [port.arg()], span)
        return Port(node_wire(node, 0), port.type, None)

    def _annotated_value(self, binding: ast.Binding, scope: Scope) -> Port:
        """``shared x: T := value``: the value, converted to the pinned cell type."""
        file = scope.file
        target = binding.targets[0]
        type_ = self._type(binding.type_name or "", binding.type_span or binding.span, file)
        literal = literal_of(binding.value)
        if literal is not None:  # the core fits the literal to the type, or says why it does not fit
            port = self._literal_port(literal.const(), ast.expr_span(binding.value), scope)
            return self._coerce(port, type_, ast.expr_span(binding.value), f"'{target.name}' is declared {type_}", scope)
        value = self._lower(binding.value, scope)
        port = value.single(scope, f"bound to '{target.name}'")
        return self._coerce(port, type_, value.span, f"'{target.name}' is declared {type_}", scope)

    def _lower(self, root: ast.Expr, scope: Scope) -> Value:
        """Lower ``root`` to IR nodes (children first) with an explicit work stack.

        Leaves (names and literals) are lowered where they are met; only
        compound expressions get a :class:`Plan` and a place on the stack.
        """
        leaf = self._leaf(root, scope)
        if leaf is not None:
            return leaf
        if type(root) is ast.Call:
            flat = self._flat_call(root, scope)  # type: ignore[arg-type]
            if flat is not None:
                return flat
        root_plan = self._plan(root, scope, True)
        children = root_plan.children
        for child in children:
            if type(child) not in _LEAVES:
                break
        else:  # a call of names and literals (the usual binding): no stack needed
            return root_plan.finish([self._leaf(child, scope) for child in children])  # type: ignore[misc]
        results: list[Value] = []
        work: list[tuple[ast.Expr, Plan | None]] = [(root, root_plan)]
        for child in reversed(children):
            work.append((child, None))
        while work:
            expr, plan = work.pop()
            if plan is None:
                leaf = self._leaf(expr, scope)
                if leaf is not None:
                    results.append(leaf)
                    continue
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

    def _leaf(self, expr: ast.Expr, scope: Scope) -> Value | None:
        """The value of a name or literal leaf; None for any other expression."""
        kind = type(expr)
        if kind is ast.Name:
            return self._name_value(expr, scope)  # type: ignore[arg-type]
        if kind in _LEAF_LITERALS:
            return self._literal_value(literal_const(expr), expr.span, scope)  # type: ignore[arg-type]
        return None

    def _plan(self, expr: ast.Expr, scope: Scope, is_root: bool) -> Plan:
        kind = type(expr)
        if kind is ast.Call:
            return self._plan_call(expr, scope)  # type: ignore[arg-type]
        if kind is ast.BinOp:
            if expr.op == "+":  # type: ignore[union-attr]
                return self._plan_sum(expr, scope)  # type: ignore[arg-type]
            return Plan((expr.left, expr.right), lambda v: self._binary(expr, v[0], v[1], scope))  # type: ignore
        if kind is ast.UnaryOp:
            operand = expr.operand  # type: ignore[union-attr]
            if expr.op == "-" and type(operand) in (ast.IntLit, ast.FloatLit):  # type: ignore[union-attr]
                # A negated number is an f64 constant (upstream folds it the same way).
                negative = {"f64": f64_bits(-float(operand.value))}  # type: ignore[union-attr]
                return Plan((), lambda _: self._literal_value(negative, expr.span, scope))
            if expr.op == "-" and type(operand) is ast.DecimalLit:  # type: ignore[union-attr]
                negated = {"decimal": "-" + operand.value}  # type: ignore[union-attr]
                return Plan((), lambda _: self._literal_value(negated, expr.span, scope))
            return Plan((operand,), lambda v: self._unary(expr, v[0], scope))  # type: ignore[arg-type]
        if kind is ast.Cast:
            return Plan((expr.operand,), lambda v: self._cast(expr, v[0], scope))  # type: ignore
        if kind is ast.IfExpr:
            return Plan((expr.cond, expr.then, expr.otherwise), lambda v: self._select(expr, v, scope))  # type: ignore
        if kind is ast.ArrayLit:
            if not is_root:
                raise scope.file.error(
                    "an array literal can only be bound directly to a name",
                    expr.span,
                    "bind it first (`values := [1, 2, 3]` binds the text \"1, 2, 3\"); "
                    "for a list, parse its JSON text: `str_to_vec_i32(\"[{values}]\")`",
                )
            text = render_array(expr.elements)  # type: ignore[union-attr]
            return Plan((), lambda _: self._literal_value({"str": text}, expr.span, scope))
        raise AssertionError(f"unhandled expression {expr!r}")


_LEAF_LITERALS = frozenset({ast.IntLit, ast.FloatLit, ast.DecimalLit, ast.StrLit, ast.BoolLit})
_LEAVES = _LEAF_LITERALS | {ast.Name}
