"""The abstract syntax tree of a Polydat program.

Every node carries the :class:`Span` (1-based line and column) of the token
that best identifies it: a call's function name, an operator's token, a
binding's (first) target name. Nodes are dataclasses the parser builds and
the binder reads; nothing modifies one after construction (they are not
frozen only because frozen dataclasses cost three times as much to build,
and a program may have millions of nodes). Trees may be arbitrarily deep (a
chain of 5000 ``+`` is a left-nested tree 5000 levels deep), so code walking
them must be iterative (see :func:`iter_subexpressions`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Union


class Span(NamedTuple):
    """A 1-based source position (a tuple, so it orders and hashes as ``(line, col)``)."""

    line: int
    col: int

    def to_ir(self) -> dict[str, int]:
        """The IR (JSON) form ``{"line": l, "col": c}``."""
        return {"line": self.line, "col": self.col}

    def __str__(self) -> str:
        return f"{self.line}:{self.col}"


# ----------------------------------------------------------------------------
# Expressions


@dataclass(slots=True)
class Name:
    """A reference to a binding, input, extern or module parameter."""

    name: str
    span: Span


@dataclass(slots=True)
class IntLit:
    """An integer literal (always a u64; SI-suffixed integral values included)."""

    value: int
    text: str
    span: Span


@dataclass(slots=True)
class FloatLit:
    """A floating-point literal (an f64)."""

    value: float
    text: str
    span: Span


@dataclass(slots=True)
class DecimalLit:
    """A decimal literal ``12.34d``: its digits as written (``"12.34"``); the
    core types it as the narrowest ``decimal(p, s)`` holding them."""

    value: str
    span: Span


@dataclass(slots=True)
class StrLit:
    """A string literal with no interpolation (its escapes already decoded)."""

    value: str
    span: Span


@dataclass(slots=True)
class BoolLit:
    """``true`` or ``false`` (a bool)."""

    value: bool
    span: Span


@dataclass(slots=True)
class ArrayLit:
    """``[e, ...]``: a string-valued literal list (binding position only)."""

    elements: tuple[Expr, ...]
    span: Span


@dataclass(slots=True)
class Arg:
    """One call argument, positional (``name is None``) or named (``name: value``)."""

    value: Expr
    name: str | None = None
    name_span: Span | None = None


@dataclass(slots=True)
class Call:
    """``func(args...)``. ``interpolated`` marks the printf a string desugared to."""

    func: str
    args: tuple[Arg, ...]
    span: Span
    interpolated: bool = False


@dataclass(slots=True)
class BinOp:
    """``left op right``; ``span`` is the operator token's."""

    op: str
    left: Expr
    right: Expr
    span: Span


@dataclass(slots=True)
class UnaryOp:
    """Prefix ``-`` or ``!``; ``span`` is the operator token's."""

    op: str
    operand: Expr
    span: Span


@dataclass(slots=True)
class Cast:
    """``operand as type_name``; ``span`` is the ``as`` keyword's."""

    operand: Expr
    type_name: str
    type_span: Span
    span: Span


@dataclass(slots=True)
class IfExpr:
    """``if(cond, then, else)`` or the block form (desugared to the same node)."""

    cond: Expr
    then: Expr
    otherwise: Expr
    span: Span
    block_form: bool = False


@dataclass(slots=True)
class ForExpr:
    """``for <comprehension>`` as a binding's whole value: a producer (or a
    derivation of one). ``comprehension`` is the parsed text
    (:mod:`polydat.dsl.comprehension`); ``text`` its source text."""

    comprehension: Any
    text: str
    span: Span
    text_span: Span


@dataclass(slots=True)
class TileExpr:
    """A tile (``tile name := body`` or a ``polytile`` call) as a binding's
    whole value; ``parts`` is the parsed template
    (:class:`polydat.dsl.tile.TileExprParts`)."""

    parts: Any
    span: Span


Expr = Union[Name, IntLit, FloatLit, DecimalLit, StrLit, BoolLit, ArrayLit, Call, BinOp, UnaryOp, Cast, IfExpr, ForExpr, TileExpr]
_LITERALS = frozenset({IntLit, FloatLit, DecimalLit, StrLit, BoolLit})


def children(expr: Expr) -> tuple[Expr, ...]:
    """The direct subexpressions of ``expr``, left to right."""
    if isinstance(expr, BinOp):
        return (expr.left, expr.right)
    if isinstance(expr, Call):
        return tuple(arg.value for arg in expr.args)
    if isinstance(expr, UnaryOp):
        return (expr.operand,)
    if isinstance(expr, Cast):
        return (expr.operand,)
    if isinstance(expr, IfExpr):
        return (expr.cond, expr.then, expr.otherwise)
    if isinstance(expr, ArrayLit):
        return expr.elements
    if isinstance(expr, TileExpr):
        return expr.parts.reads
    if isinstance(expr, ForExpr) and expr.comprehension.base is not None:
        # A derivation reads its producer (bound earlier in the same scope).
        base = expr.comprehension
        return (Name(base.base, Span(base.base_line, base.base_col)),)
    return ()


def iter_subexpressions(expr: Expr) -> Iterator[Expr]:
    """Every node of the tree rooted at ``expr`` in source (pre-)order, iteratively."""
    stack: list[Expr] = [expr]
    while stack:
        node = stack.pop()
        yield node
        kids = children(node)
        if kids:
            stack.extend(reversed(kids))


def iter_names(expr: Expr) -> Iterator[Name]:
    """Every :class:`Name` read in ``expr``, left to right.

    Names inside an array literal are not reads: an array renders its elements
    as text (``[load, verify]`` is the string ``"load, verify"``).
    """
    stack: list[Expr] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, Name):
            yield node
        elif not isinstance(node, ArrayLit):
            kids = children(node)
            if kids:
                stack.extend(reversed(kids))


def names_read(expr: Expr) -> list[Name]:
    """The names ``expr`` reads, as :func:`iter_names` yields them (a list, fast for leaves and flat calls)."""
    kind = type(expr)
    if kind is Name:
        return [expr]  # type: ignore[list-item]
    if kind is Call:
        names: list[Name] = []
        for arg in expr.args:  # type: ignore[union-attr]
            value = arg.value
            if type(value) is Name:
                names.append(value)  # type: ignore[arg-type]
            elif type(value) not in _LITERALS:
                return list(iter_names(expr))
        return names
    if kind in _LITERALS:
        return []
    return list(iter_names(expr))


def expr_span(expr: Expr) -> Span:
    """The span of the leftmost token of ``expr`` (where a reader's eye starts)."""
    node = expr
    while True:
        if isinstance(node, BinOp):
            node = node.left
        elif isinstance(node, Cast):
            node = node.operand
        else:
            return node.span


# ----------------------------------------------------------------------------
# Statements


@dataclass(slots=True)
class InputDecl:
    """``input name[: type]`` (the tuple form yields one of these per name)."""

    name: str
    type_name: str | None
    span: Span
    type_span: Span | None = None


@dataclass(slots=True)
class ExternDecl:
    """``extern name: type [= default]``."""

    name: str
    type_name: str
    type_span: Span
    default: Expr | None
    span: Span


@dataclass(slots=True)
class Target:
    """One name bound by a binding (``_`` in a tuple discards that output)."""

    name: str
    span: Span


@dataclass(slots=True)
class Binding:
    """``[modifiers] name[: type] := value`` or ``[modifiers] (a, b) := value``."""

    targets: tuple[Target, ...]
    value: Expr
    span: Span
    modifiers: tuple[str, ...] = ()
    type_name: str | None = None
    type_span: Span | None = None
    tuple_form: bool = False
    doc: str | None = None


@dataclass(slots=True)
class Param:
    """A module parameter or output: ``name[: type]``."""

    name: str
    type_name: str | None
    span: Span


@dataclass(slots=True)
class ModuleDef:
    """``name(params) -> (outputs) := { body }``."""

    name: str
    params: tuple[Param, ...]
    outputs: tuple[Param, ...]
    body: tuple[Binding, ...]
    span: Span
    doc: str | None = None
    pragmas: tuple[Pragma, ...] = ()
    """The body's own pragmas: a module compiles under these and no others."""


@dataclass(slots=True)
class Pragma:
    """``pragma name``: a compile option for this program and the ``for``
    bodies inside it."""

    name: str
    span: Span
    value: str | None = None
    """The pragma's string argument (``pragma locale "de_DE"``), if it has one."""


@dataclass(slots=True)
class ForStmt:
    """``for <comprehension> { body }``: a traversal. The body is compiled
    once as a child program; each tuple of the comprehension activates one
    child kernel with the tuple's names bound as iteration variables.
    ``comprehension`` is the parsed header (:mod:`polydat.comprehension`),
    ``text`` its source text."""

    comprehension: Any
    text: str
    body: tuple["Statement", ...]
    span: Span
    text_span: Span


Statement = Union[InputDecl, ExternDecl, Binding, ModuleDef, Pragma, ForStmt]


@dataclass(frozen=True)
class Program:
    """A parsed source file.

    When some statements did not parse, ``unparsed_names`` holds the names
    they would have bound and ``unparsed_modules`` the modules they would have
    defined, so that the binder does not report their readers a second time.
    """

    statements: tuple[Statement, ...]
    source: str
    path: str | None = None
    bindings: tuple[Binding, ...] = field(default=(), repr=False)
    unparsed_names: frozenset[str] = frozenset()
    unparsed_modules: frozenset[str] = frozenset()
    parse_warnings: tuple[Any, ...] = field(default=(), repr=False)
    """Warnings found while parsing (``Diagnostic``s): the binder reports them."""

    def __post_init__(self) -> None:
        if not self.bindings:
            object.__setattr__(
                self, "bindings", tuple(s for s in self.statements if isinstance(s, Binding))
            )

    @property
    def modules(self) -> tuple[ModuleDef, ...]:
        """The module definitions of this file, in source order."""
        return tuple(s for s in self.statements if isinstance(s, ModuleDef))

    @property
    def traversals(self) -> tuple[ForStmt, ...]:
        """The ``for`` statements at this level, in source order."""
        return tuple(s for s in self.statements if isinstance(s, ForStmt))

    @property
    def pragmas(self) -> tuple[Pragma, ...]:
        """The ``pragma`` lines at this level, in source order."""
        return tuple(s for s in self.statements if isinstance(s, Pragma))
