"""Declarations and free-name inference of a program's top level.

:class:`Declarations` collects inputs, externs and binding names in source
order (a name declared twice, or a reserved word, is reported; the clashing
binding target is left unowned), then infers inputs from the names read but
never bound: each becomes a u64 coordinate reported as a warning at its first
use, with the core's did-you-mean (an error when binding is strict), or an
extern when an outer scope provides it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import ast, corerules
from .ast import Span
from ..errors import CompileError, Diagnostic
from .catalog import Catalog
from .diagnostics import Report, SourceFile
from .lexer import ABSENT_WORDS, RESERVED_WORDS
from .lowering import FAILED, LoweringCore, Scope, literal_of


class Declarations(LoweringCore):
    """The declaration pass and free-name inference (a mixin of the binder)."""

    #: At most this many candidate names are sent to the core for the
    #: suggestions of inferred inputs in one program (a program reading
    #: thousands of free names gets its first suggestions, not a quadratic bind).
    SUGGESTION_BUDGET = 200_000

    catalog: Catalog
    report: Report
    outer: Mapping[str, str]
    outer_coordinates: frozenset[str]
    _inferred_externs: set[str]
    _default_spans: dict[str, Span]
    strict: bool

    def _declarations(
        self, program: ast.Program, scope: Scope, owner: dict[str, int]
    ) -> tuple[list[tuple[str, str, Span]], list[tuple[str, str, Span, dict[str, Any] | None]]]:
        """Declared coordinates and externs; reports names declared twice or reserved.

        ``owner`` is filled with the index (in ``program.bindings``) of the
        binding that binds each name; a binding target that clashes is left
        unowned, and a declaration that fails leaves its name failed.
        """
        file = scope.file
        report = self.report
        declared: dict[str, tuple[str, Span]] = {}

        def declare(name: str, what: str, span: Span) -> bool:
            if name in RESERVED_WORDS:
                report.add(reserved_error(file, name, span))
                return False
            if name in declared:
                prior_what, prior_span = declared[name]
                report.add(file.diagnostic(
                    f"'{name}' is already {prior_what}",
                    span,
                    f"first declared at {prior_span}; every name is bound once",
                ))
                return False
            declared[name] = (what, span)
            return True

        coordinates: list[tuple[str, str, Span]] = []
        externs: list[tuple[str, str, Span, dict[str, Any] | None]] = []
        failed = scope.env  # only failed names so far
        index = -1
        for statement in program.statements:
            if type(statement) is ast.Binding:
                index += 1
                for target in statement.targets:
                    name = target.name
                    if name not in declared and name not in RESERVED_WORDS:  # the usual case, inline
                        declared[name] = ("bound", target.span)
                        if name not in failed:
                            owner[name] = index
                        continue
                    if statement.tuple_form and name == "_":
                        continue
                    if not declare(name, "bound", target.span):
                        scope.disowned.add(id(target))
                    elif name not in failed:
                        owner[name] = index
            elif isinstance(statement, ast.InputDecl):
                if self._repeated_input(statement, declared, coordinates, file):
                    continue
                if not declare(statement.name, "declared as an input", statement.span):
                    continue
                scope.origins[statement.name] = "an input"
                try:
                    type_ = self._input_type(statement, file)
                except CompileError as err:
                    report.extend(err.diagnostics)
                    scope.env[statement.name] = FAILED
                    continue
                coordinates.append((statement.name, type_, statement.span))
            elif isinstance(statement, ast.ExternDecl):
                if not declare(statement.name, "declared as an extern", statement.span):
                    continue
                scope.origins[statement.name] = "an extern"
                try:
                    type_ = self._type(statement.type_name, statement.type_span, file)
                except CompileError as err:
                    report.extend(err.diagnostics)
                    scope.env[statement.name] = FAILED
                    continue
                try:
                    default = self._extern_default(statement, type_, file)
                except CompileError as err:  # the extern still exists, without its default
                    report.extend(err.diagnostics)
                    default = None
                externs.append((statement.name, type_, statement.span, default))
        return coordinates, externs

    def _input_type(self, decl: ast.InputDecl, file: SourceFile) -> str:
        """The declared type of an input (u64 when unannotated)."""
        if decl.type_name is None:
            return "u64"
        return self._type(decl.type_name, decl.type_span or decl.span, file)

    def _repeated_input(
        self,
        decl: ast.InputDecl,
        declared: dict[str, tuple[str, Span]],
        coordinates: list[tuple[str, str, Span]],
        file: SourceFile,
    ) -> bool:
        """Whether ``decl`` repeats an input already declared with the same type.

        Upstream takes a second declaration of an input as a no-op (the slot
        exists already); here it is a warning when it repeats the first one's
        type, and the usual "already declared" error otherwise (a second type
        would be silently ignored).
        """
        prior = declared.get(decl.name)
        if prior is None or prior[0] != "declared as an input":
            return False
        first = next((c for c in coordinates if c[0] == decl.name), None)
        try:
            type_ = self._input_type(decl, file)
        except CompileError:
            return False
        if first is None or first[1] != type_:
            return False
        self.report.add(file.diagnostic(
            f"'{decl.name}' is declared as an input twice; the second declaration repeats the first",
            decl.span, f"first declared at {prior[1]}; remove one of them", severity="warning",
        ))
        return True

    def _extern_default(self, decl: ast.ExternDecl, type_: str, file: SourceFile) -> dict[str, Any] | None:
        default = decl.default
        if default is None:
            return None
        literal = literal_of(default)
        if literal is None:
            raise file.error(
                f"the default of extern '{decl.name}' must be a literal",
                ast.expr_span(default),
                "extern defaults are fixed values; compute derived values in a binding",
            )
        # The core types the default for the declared type, and refuses it there.
        self._default_spans[decl.name] = ast.expr_span(default)
        return literal.const()

    def _free_names(
        self,
        reads: list[list[ast.Name]],
        owner: dict[str, int],
        scope: Scope,
        coordinates: list[tuple[str, str, Span]],
        externs: list[tuple[str, str, Span, dict[str, Any] | None]],
    ) -> list[str]:
        """Append inferred inputs (names read, never bound) in order of first use.

        Each inferred coordinate is reported as a warning (an error when
        strict) at its first use; the inferred coordinates' names are returned.
        """
        known = set(owner)
        known.update(name for name, _, _ in coordinates)
        known.update(name for name, _, _, _ in externs)
        known.update(scope.env)  # failed declarations and statements that did not parse
        known.update(ABSENT_WORDS)  # reported at each read
        # Upstream's rule: a program that declares any input declares them all,
        # so a name nothing binds is an error there rather than a new input.
        declares_inputs = bool(coordinates)
        inferred: list[str] = []
        inferred_externs: list[tuple[str, str, Span, dict[str, Any] | None]] = []
        suggestions = corerules.NameIndex(
            self.catalog.names,
            self.SUGGESTION_BUDGET,
            declared=lambda: [*owner, *(name for name, _, _ in coordinates), *(name for name, _, _, _ in externs),
                              *self.outer, *scope.modules],
        )
        for refs in reads:
            for ref in refs:
                name = ref.name
                if name in known:
                    continue
                known.add(name)
                if name in self.outer:
                    try:
                        type_ = self._type(self.outer[name], ref.span, scope.file)
                    except CompileError as err:
                        self.report.extend(err.diagnostics)
                        scope.env[name] = FAILED
                        continue
                    inferred_externs.append((name, type_, ref.span, None))
                    self._inferred_externs.add(name)
                    scope.origins[name] = "an extern"
                    continue
                if name in self.outer_coordinates:
                    # A coordinate of the enclosing scope: the child has one of its own.
                    coordinates.append((name, "u64", ref.span))
                    scope.origins[name] = "an input"
                    inferred.append(name)
                    continue
                guess = suggestions.closest(name)
                if declares_inputs:
                    hint = (f"did you mean '{guess}'?" if guess else
                            f"'{name}' is not declared: add `input {name}: <type>`, or define it as a binding")
                    self.report.add(scope.file.diagnostic(
                        f"undefined wire reference: '{name}' (this program declares its inputs, so none is inferred)",
                        ref.span, hint,
                    ))
                    scope.env[name] = FAILED
                    continue
                if self.strict:
                    hint = f"did you mean '{guess}'?" if guess else f"declare it (`input {name}`) or bind it"
                    self.report.add(scope.file.diagnostic(
                        f"'{name}' is not bound or declared (strict mode infers no inputs)", ref.span, hint
                    ))
                    scope.env[name] = FAILED
                    continue
                hint = f"did you mean '{guess}'?" if guess else f"declare it (`input {name}`) to make the input explicit"
                self.report.add(scope.file.diagnostic(
                    f"'{name}' is not bound or declared, so it becomes an input", ref.span, hint, severity="warning"
                ))
                coordinates.append((name, "u64", ref.span))
                scope.origins[name] = "an input"
                inferred.append(name)
        externs.extend(inferred_externs)
        return inferred


def reserved_error(file: SourceFile, name: str, span: Span) -> Diagnostic:
    if name in ABSENT_WORDS:
        return file.diagnostic(f"'{name}' is reserved and cannot be bound or declared", span,
                               "Polydat has no absent-value literal; pick another name")
    return file.diagnostic(f"'{name}' is a bool literal and cannot be bound or declared", span,
                           "pick another name")
