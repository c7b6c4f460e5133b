"""Comprehensions: the header of a ``for`` statement or producer and the
argument of ``Kernel.for_each`` — which tuples a traversal visits, in which
order.

::

    k in 1..4                      # a range, end exclusive: 1, 2, 3
    k in 1..=4                     # end inclusive: 1, 2, 3, 4
    k in 0..10 step 3              # 0, 3, 6, 9 (floats need a step: 0.0..1.0 step 0.25)
    limit in 10,20,30              # a list of numbers
    phase in load,verify           # words (or 'quoted strings') are str values
    region in ["us-east", "eu-west"]   # a bracketed list: each element whole
    w in "a, b; c"                 # a double-quoted string is split on , ; and spaces
    w in 'a, b; c'                 # a single-quoted one is one value
    k in fib(8)                    # named generators: fib fib_until pow2 pow2_until binomial
                                   #   geometric geometric_until linear_starts linear_steps log_steps
    k in {ks}                      # a name of the enclosing scopes, read when the traversal opens
    k in ks                        # the same (a lone bare word is a reference)
                                   # (a str value is read as a list or range: "1,2,3", "0..4")
    k in 1..3, limit in 10,20      # several clauses: their Cartesian product, first clause outermost
    (name, size) in (a, b), (1, 2) # a tuple clause zips its sources: (a, 1), (b, 2)
    (a, b) in zip_truncate(1..4, [x, y])   # stops at the shortest: (1, x), (2, y)
    (a, b) in zip_cycle(1..5, [x, y])      # repeats the shorter to the longest (none if one is empty)
    [for k in 1..3, for k in 7..9] # a union: each member's tuples in turn (members nest and
                                   #   carry their own where/order; the same names in each)
    k in 1..10 where {k} % 3 == 0  # a predicate over the tuple's names (and outer names)
    k in 1..4, j in 1..4 order halton/5   # an order (lex, reverse_lex, diagonal, antidiagonal, extrema,
                                   #   shells, halton, sobol, lhs[(seed=N)], shuffle[(seed=N)]);
                                   #   /N keeps N (extrema: N strata)
    base where {k} > 3 order lex   # a derivation of the producer `base` (for statements and producers)

The value type of each name follows its values: integers are ``u64`` (``i64``
when one is negative), any float makes it ``f64``, ``true``/``false`` are
``bool``, words and strings ``str``. Every error points at its place in the text.

``where`` predicates follow upstream's predicate rules (see
:mod:`polydat.dsl.predicate`); ``order`` positions come from the core
(``polydat_core::order``), a batch at a time, so every host dispenses the
same tuples and a huge space is never held whole. An order after another
(``order shuffle/100 order halton``) ranks what the first dispensed, at most
2^24 of them.

:func:`open_comprehension` opens a parsed comprehension in a scope of the
core (a kernel): its ``{name}`` references, ``where`` predicates and call
sources are read and evaluated there.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import json
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Union

from ..errors import CompileError, Diagnostic
from . import corerules
from .ast import Span
from .diagnostics import SourceFile
from .lexer import Lexer, Token, TokenKind

if TYPE_CHECKING:
    from .. import _core

__all__ = [
    "Comprehension", "Clause", "Range", "Ref", "Generator", "Call", "Where", "Order", "JsonText",
    "parse", "parse_text", "parse_items", "NAMED_GENERATORS",
]


_ORDER_BATCH = 4096
"""Positions of an order asked of the core at a time."""

_HELD_MAX = 1 << 24
"""The most positions a second order over dispensed tuples holds at once."""


@dataclass(frozen=True)
class Ref:
    """``{name}`` (or a lone bare word): a name of the enclosing scopes, read when the traversal opens."""

    name: str
    line: int
    col: int


@dataclass(frozen=True)
class Range:
    """``lo..hi`` (``..=``: inclusive), optionally ``step s``."""

    lo: Union[int, float, Ref]
    hi: Union[int, float, Ref]
    inclusive: bool
    step: Union[int, float, Ref, None]
    line: int
    col: int


@dataclass(frozen=True)
class Generator:
    """A named generator call (``fib(8)``, ``linear_steps(0, 1, 4)``...)."""

    name: str
    args: tuple[Union[int, float, Ref], ...]
    line: int
    col: int


@dataclass(frozen=True)
class Call:
    """Any other call in source position (``partitions("*/4", 100)``): a
    DSL expression evaluated in the enclosing scope when the traversal
    opens; a str value gives its tokens, anything else one value."""

    text: str
    """The expression, ``{name}`` written ``name``."""
    line: int
    col: int


Item = Union[int, float, str, bool, Ref, Range, Generator, Call]


class JsonText(str):
    """A ``json`` value's text (what a call source such as
    ``partitions("*/4", 1000)`` gives): an array stands for its elements,
    an object or other value for itself. Elements that are objects or
    arrays stay ``json`` (a ``for p in partitions(...)`` element is a
    partition, the partition family's JSON form); scalars are values."""


#: How a tuple clause pairs sources of different lengths: ``strict``
#: (``(a, b) in xs, ys``) refuses them, ``truncate`` (``zip_truncate(xs, ys)``)
#: stops at the shortest, ``cycle`` (``zip_cycle(xs, ys)``) repeats the
#: shorter ones up to the longest, and has no tuple when one is empty.
ZIP_MODES = ("strict", "truncate", "cycle")


@dataclass(frozen=True)
class Clause:
    """``name in items`` or ``(a, b) in source_a, source_b`` (a zip;
    ``zip_truncate(...)``/``zip_cycle(...)`` choose its :data:`ZIP_MODES`)."""

    names: tuple[str, ...]
    sources: tuple[tuple[Item, ...], ...]
    """One list of items per name (a single-name clause has one)."""
    line: int
    col: int
    mode: str = "strict"
    """How the sources of a tuple clause pair up (one of :data:`ZIP_MODES`)."""


@dataclass(frozen=True)
class Where:
    """``where <predicate>``: keeps the tuples for which the predicate holds."""

    text: str
    """The predicate as written (``{name}`` references included)."""
    line: int
    col: int


@dataclass(frozen=True)
class Order:
    """``order <strategy>[/count]`` or ``order <strategy>(seed=N)``."""

    strategy: str
    count: int | None
    seed: int | None
    text: str
    line: int
    col: int


Stage = Union[Where, Order]

#: The named generators and their argument names (``n``/``max``: a
#: non-negative integer; anything else: any number).
NAMED_GENERATORS: dict[str, tuple[str, ...]] = {
    "fib": ("n",),
    "fib_until": ("max",),
    "pow2": ("n",),
    "pow2_until": ("max",),
    "binomial": ("n",),
    "geometric": ("start", "factor", "n"),
    "geometric_until": ("start", "factor", "max"),
    "linear_starts": ("start", "end", "n"),
    "linear_steps": ("start", "end", "n"),
    "log_steps": ("start", "end", "n"),
}
_INTEGER_GENERATORS = frozenset({"fib", "fib_until", "pow2", "pow2_until", "binomial"})
#: Upstream's continuous measures (sampled sources); not supported here.
_MEASURES = frozenset({"normal", "exponential", "pareto", "beta", "log_normal", "gamma", "uniform01"})
_U64_MAX = (1 << 64) - 1


@dataclass(frozen=True)
class Comprehension:
    """A parsed comprehension (see the module)."""

    clauses: tuple[Clause, ...]
    stages: tuple[Stage, ...]
    """``where`` and ``order`` clauses, applied in order."""
    text: str
    source_lines: dict[int, str]
    """The source lines the comprehension spans, by line number (for diagnostics)."""
    path: str | None
    base: str | None = None
    """A derivation's producer (``for sweep where ...``): resolved with :meth:`derive`."""
    base_line: int = 0
    """Where the comprehension (or the name of its producer) starts."""
    base_col: int = 0
    members: tuple[Comprehension, ...] = ()
    """A union's members (``[for k in 1..3, for k in 7..9]``), each a
    comprehension of its own with the same names; a union has no clauses.
    Its tuples are the members' tuples, member after member."""

    @property
    def names(self) -> tuple[str, ...]:
        """Every iteration variable, in clause order (a union: its members')."""
        if self.members:
            return self.members[0].names
        return tuple(n for c in self.clauses for n in c.names)

    @property
    def wheres(self) -> tuple[Where, ...]:
        """The ``where`` stages, in order: a union's members' first, then its own."""
        inner = tuple(w for member in self.members for w in member.wheres)
        return inner + tuple(s for s in self.stages if isinstance(s, Where))

    def error(self, message: str, line: int, col: int, hint: str | None = None) -> CompileError:
        """A compile error at ``line:col`` of the comprehension's source."""
        return CompileError(Diagnostic(message, line, col, hint, "error", self.source_lines.get(line), self.path))

    def derive(self, base: Comprehension) -> Comprehension:
        """This derivation applied to the producer ``base``: ``base``'s clauses
        and stages, then this one's stages."""
        text = " ".join(part for part in (base.text, self.text.split(None, 1)[1] if " " in self.text else "") if part)
        lines = dict(base.source_lines)
        lines.update(self.source_lines)
        return replace(base, stages=base.stages + self.stages, text=text, source_lines=lines)

    def refs(self) -> list[Ref]:
        """Every ``{name}`` (and bare-word reference) the sources read, in order."""
        found: list[Ref] = [ref for member in self.members for ref in member.refs()]
        for clause in self.clauses:
            for items in clause.sources:
                for item in items:
                    if isinstance(item, Ref):
                        found.append(item)
                    elif isinstance(item, Range):
                        found.extend(v for v in (item.lo, item.hi, item.step) if isinstance(v, Ref))
                    elif isinstance(item, Generator):
                        found.extend(a for a in item.args if isinstance(a, Ref))
        return found

    def open(
        self,
        lookup: Callable[[str], Any],
        keep: Callable[[Where, dict[str, str]], Callable[[tuple[Any, ...]], bool]] | None = None,
        call: Callable[[Call], Any] | None = None,
    ) -> tuple[dict[str, str], Iterator[tuple[Any, ...]]]:
        """Reads every ``{name}`` (through ``lookup``; a None value yields no
        values) and returns the type of each iteration variable and the
        tuples, in order (lazily where no order needs them all: a large
        product is never built whole). ``keep(where, types)`` makes the test
        of a ``where`` stage; ``call(c)`` evaluates a call source."""
        types, axes = self._axes(lookup, keep, call)
        return types, self._dispense(axes, types, keep)

    def _axes(
        self, lookup: Callable[[str], Any],
        keep: Callable[[Where, dict[str, str]], Callable[[tuple[Any, ...]], bool]] | None,
        call: Callable[[Call], Any] | None,
    ) -> tuple[dict[str, str], list[_Axis]]:
        """The type of each name and the axes whose product (first axis
        outermost) is the space before the stages: one per clause, or one
        for a union (its members' tuples in a row). Every source is read
        now, every operand of a zip included."""
        if self.members:
            return self._union_axis(lookup, keep, call)
        types: dict[str, str] = {}
        axes: list[_Axis] = []
        for clause in self.clauses:
            columns = [self._values(items, lookup, call) for items in clause.sources]
            for k, name in enumerate(clause.names):
                types[name], columns[k] = self._typed(name, columns[k], clause)
            if len(columns) == 1:
                axes.append(_Singles(columns[0]))
                continue
            lengths = [_length(c) for c in columns]
            if clause.mode == "strict" and len(set(lengths)) > 1:
                shown = ", ".join(f"{n}: {size}" for n, size in zip(clause.names, lengths))
                raise self.error(
                    f"the sources zipped by ({', '.join(clause.names)}) have different lengths ({shown})",
                    clause.line,
                    clause.col,
                    "a tuple clause pairs its sources element by element; give them the same length, "
                    "or write zip_truncate(...) to stop at the shortest or zip_cycle(...) to repeat the shorter ones",
                )
            axes.append(_Zipped(columns, clause.mode))
        return types, axes

    def _union_axis(
        self, lookup: Callable[[str], Any],
        keep: Callable[[Where, dict[str, str]], Callable[[tuple[Any, ...]], bool]] | None,
        call: Callable[[Call], Any] | None,
    ) -> tuple[dict[str, str], list[_Axis]]:
        """A union's one axis: each member opened (its sources read now, its
        tuples dispensed lazily), the members' names and types checked alike."""
        types: dict[str, str] | None = None
        parts: list[_Lattice | _Dispensed] = []
        for index, member in enumerate(self.members):
            member_types, axes = member._axes(lookup, keep, call)
            if types is None:
                types = member_types
            elif member_types != types:
                differ = next(n for n in types if types[n] != member_types.get(n))
                raise self.error(
                    f"the members of a union give '{differ}' different types "
                    f"({types[differ]} in the first, {member_types[differ]} in member {index + 1})",
                    member.base_line, member.base_col,
                    "a union's tuples have one shape: give each name values of one type in every member",
                )
            if member.stages:
                parts.append(_Dispensed(member._dispense(axes, member_types, keep), member))
            else:
                parts.append(_Lattice(axes))
        assert types is not None
        return types, [_Union(parts)]

    def _dispense(
        self, axes: list[_Axis], types: dict[str, str],
        keep: Callable[[Where, dict[str, str]], Callable[[tuple[Any, ...]], bool]] | None,
    ) -> Iterator[tuple[Any, ...]]:
        """The tuples after every stage (a generator: nothing runs before the first is asked for)."""
        if not any(isinstance(stage, Order) for stage in self.stages):
            # No order: the tuples in their natural order, each where stage's
            # test applied in turn (no position, so no length, is needed).
            tuples: Iterator[tuple[Any, ...]] = _product(axes)
            for stage in self.stages:
                assert isinstance(stage, Where)
                if keep is None:
                    raise self.error("a where predicate needs a scope to test it", stage.line, stage.col)
                tuples = filter(keep(stage, types), tuples)
            yield from tuples
            return
        lattice_of = _Lattice(axes)
        sizes = lattice_of.sizes
        at = lattice_of.__getitem__
        # The current space: positions into the natural (row-major) one, in
        # dispense order, at most `bound` of them. `lattice` holds while they
        # are the natural space, perhaps filtered by the tests in `keeps` (an
        # order then ranks by natural position) or cut by a count (`cut`).
        total = math.prod(sizes)
        stream: Iterator[int] = iter(range(total))
        bound = total
        lattice, cut = True, False
        keeps: list[Callable[[tuple[Any, ...]], bool]] = []
        for stage in self.stages:
            if isinstance(stage, Where):
                if keep is None:
                    raise self.error("a where predicate needs a scope to test it", stage.line, stage.col)
                test = keep(stage, types)
                stream = _kept(stream, (test,), at)
                keeps.append(test)
                continue
            held = bound
            if stage.strategy == "lex" and stage.seed is None and (lattice or stage.count is None):
                stream = itertools.islice(stream, stage.count)
                bound = min(bound, stage.count) if stage.count is not None else bound
                cut = cut or stage.count is not None
                continue
            ordered: Iterator[int]
            if lattice and not cut:
                # The order over the whole lattice, walked lazily; a position
                # is kept when every where test so far holds for its tuple.
                chosen, emits, limit = self._walk(stage, sizes, filtered=bool(keeps))
                ordered = _kept(chosen, tuple(keeps), at)
            else:
                # An order of what earlier stages dispensed: a part of the
                # lattice a count cut short (ranked by natural position, as
                # the survivors of a where are), or another order's output
                # (ranked as one axis).
                current = self._held(stream, held, stage)
                if lattice:
                    survivors = set(current)
                    chosen, emits, limit = self._walk(stage, sizes, filtered=True)
                    ordered = (p for p in chosen if p in survivors)
                else:
                    chosen, emits, limit = self._walk(stage, [len(current)], filtered=False)
                    ordered = (current[i] for i in chosen)
            # The core's walk applies the order's count, except a count of
            # tuples over filtered positions: that one (`limit`) applies here.
            stream = itertools.islice(ordered, limit)
            bound = emits if limit is None else min(emits, limit)
            lattice, cut, keeps = False, False, []
        for position in stream:
            yield at(position)

    def _walk(self, stage: Order, axes: list[int], filtered: bool) -> tuple[Iterator[int], int, int | None]:
        """The positions ``stage``'s order emits over ``axes``, asked of the
        core a batch at a time (never all at once), at most how many it
        emits, and how many of those passing the where tests before it to
        keep (``None``: all; ``filtered`` says there are such tests)."""
        from .. import _core
        from ..errors import OutOfMemoryError, PolydatError

        if any(size > _U64_MAX for size in axes):
            raise self.error(
                f"this order walks {max(axes)} tuples in a row, more than an order addresses ({_U64_MAX})",
                stage.line, stage.col,
                "order a smaller space (a union's members are one row: order each member instead)",
            )
        try:
            walk = _core.order_walk(stage.strategy, axes, stage.count, stage.seed, filtered)
        except OutOfMemoryError:
            raise
        except PolydatError as err:  # the core's refusal, at the order's place
            raise self.error(str(err), stage.line, stage.col) from None

        def positions() -> Iterator[int]:
            while batch := walk.take(_ORDER_BATCH):
                yield from batch

        return positions(), walk.bound(), walk.survivor_limit()

    def _held(self, stream: Iterator[int], bound: int, stage: Order) -> list[int]:
        """The positions earlier stages dispense, held to be ordered again
        (refused past :data:`_HELD_MAX` of them: they are ranked as a list)."""
        if bound > _HELD_MAX:
            raise self.error(
                f"this order ranks the up to {bound} tuples the earlier stages dispense, "
                f"which must then be held at once (at most {_HELD_MAX})",
                stage.line, stage.col,
                "give the earlier order a count (e.g. order shuffle/1000), or order the whole space once",
            )
        return list(stream)

    def _values(self, items: tuple[Item, ...], lookup: Callable[[str], Any], call: Callable[[Call], Any] | None) -> Sequence[Any]:
        values: list[Any] = []
        for item in items:
            if isinstance(item, Range):
                expanded = self._range(item, lookup)
                if len(items) == 1:
                    return expanded
                values.extend(expanded)
            elif isinstance(item, Ref):
                values.extend(self._ref_values(item, lookup))
            elif isinstance(item, Generator):
                values.extend(self._generate(item, lookup))
            elif isinstance(item, Call):
                if call is None:
                    raise self.error(f"the source {item.text} needs a scope to evaluate it", item.line, item.col)
                values.extend(self._spread(call(item), item.text, item.line, item.col, lookup))
            else:
                values.append(item)
        return values

    def _ref(self, ref: Ref, lookup: Callable[[str], Any]) -> Any:
        from ..errors import UnknownNameError

        try:
            return lookup(ref.name)
        except UnknownNameError as err:
            raise self.error(str(err), ref.line, ref.col) from None

    def _ref_values(self, ref: Ref, lookup: Callable[[str], Any]) -> Sequence[Any]:
        return self._spread(self._ref(ref, lookup), f"'{ref.name}'", ref.line, ref.col, lookup)

    def _spread(self, value: Any, what: str, line: int, col: int, lookup: Callable[[str], Any]) -> Sequence[Any]:
        """The values a source value stands for: None gives none, a str its
        list or range (or its string-comprehension tokens), a scalar itself."""
        if value is None:
            return []
        if isinstance(value, JsonText):
            return _json_elements(value)
        if isinstance(value, str):
            try:
                items = parse_items(value)
            except CompileError:
                return [_literal(t) for t in _tokens(value)]
            try:
                return self._values(items, lookup, None)
            except CompileError as err:
                raise self.error(f"{what} holds {value!r}: {err.message}", line, col) from None
        if isinstance(value, (bool, int, float)):
            return [value]
        raise self.error(f"{what} holds a {type(value).__name__}, not values to iterate", line, col)

    def _bound(self, value: Union[int, float, Ref], lookup: Callable[[str], Any], line: int, col: int,
               what: str = "a range bound") -> int | float | None:
        if isinstance(value, Ref):
            value = self._ref(value, lookup)
            if value is None:
                return None
            if isinstance(value, str):
                try:
                    value = int(value, 0)
                except ValueError:
                    try:
                        value = float(value)
                    except ValueError:
                        raise self.error(f"{what} must be a number, got {value!r}", line, col) from None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.error(f"{what} must be a number, got {value!r}", line, col)
        return value

    def _range(self, rng: Range, lookup: Callable[[str], Any]) -> Sequence[Any]:
        lo, hi = self._bound(rng.lo, lookup, rng.line, rng.col), self._bound(rng.hi, lookup, rng.line, rng.col)
        step = self._bound(rng.step, lookup, rng.line, rng.col) if rng.step is not None else None
        if lo is None or hi is None or (rng.step is not None and step is None):
            return []  # a bound reads None: the source yields nothing
        if all(isinstance(v, int) for v in (lo, hi, step) if v is not None):
            step = 1 if step is None else step
            if step <= 0:
                raise self.error(f"a range step must be positive, got {step}", rng.line, rng.col)
            return range(int(lo), int(hi) + (1 if rng.inclusive else 0), int(step))
        if step is None:
            raise self.error(
                "a float range needs a step", rng.line, rng.col,
                f"write e.g. `{lo}..{hi} step 0.1` (continuous sources are not supported)",
            )
        if not step > 0 or not all(math.isfinite(float(v)) for v in (lo, hi, step)):
            raise self.error("a float range needs finite bounds and a positive step", rng.line, rng.col)
        count = (float(hi) - float(lo)) / float(step)
        n = max(0, math.floor(count + 1e-9) + 1 if rng.inclusive else math.ceil(count - 1e-9))
        if n > 100_000_000:
            raise self.error(f"the float range has {n} values; that is too many", rng.line, rng.col)
        return [float(lo) + i * float(step) for i in range(n)]

    def _generate(self, gen: Generator, lookup: Callable[[str], Any]) -> list[Any]:
        """A named generator's values (upstream's formulas and limits)."""
        params = NAMED_GENERATORS[gen.name]
        if len(gen.args) != len(params):
            count = len(params)
            raise self.error(
                f"{gen.name}({', '.join(params)}): expected {count} argument{'s' if count != 1 else ''}, "
                f"got {len(gen.args)}", gen.line, gen.col,
            )
        args: list[Any] = []
        for param, arg in zip(params, gen.args):
            value = self._bound(arg, lookup, gen.line, gen.col, f"{gen.name}.{param}")
            if value is None:
                return []
            if param in ("n", "max") and (gen.name in _INTEGER_GENERATORS or param == "n"):
                if isinstance(value, float):
                    if not value.is_integer() or value < 0:
                        raise self.error(f"{gen.name}.{param}: expected non-negative integer, got '{value}'", gen.line, gen.col)
                    value = int(value)
                if value < 0:
                    raise self.error(f"{gen.name}.{param}: expected non-negative integer, got '{value}'", gen.line, gen.col)
            args.append(value)
        try:
            return _GENERATORS[gen.name](*args)
        except ValueError as err:
            raise self.error(str(err), gen.line, gen.col) from None

    def _typed(self, name: str, values: Sequence[Any], clause: Clause) -> tuple[str, Sequence[Any]]:
        if isinstance(values, range):
            count = _length(values)
            if not count:
                return "u64", values
            last = values.start + (count - 1) * values.step
            ends = (min(values.start, last), max(values.start, last))
            return self._integer_type(name, *ends, clause), values
        kinds = {_kind(v) for v in values}
        if not kinds:
            return "u64", values
        if kinds == {"bool"}:
            return "bool", values
        if kinds == {"str"}:
            return "str", values
        if kinds == {"json"}:
            return "json", values
        if kinds & {"str", "bool", "json"}:
            raise self.error(
                f"the values of '{name}' mix {' and '.join(sorted(kinds))}",
                clause.line,
                clause.col,
                "give each name values of one kind (numbers, words, or true/false)",
            )
        if "float" in kinds:
            return "f64", [float(v) for v in values]
        return self._integer_type(name, min(values), max(values), clause), values

    def _integer_type(self, name: str, low: int, high: int, clause: Clause) -> str:
        """The type of integer values from ``low`` to ``high``: the core's
        integer literal rule (u64, or i64 once one is negative)."""
        found = corerules.int_literal_type(low, high)
        if found is None:
            wanted = "i64" if low < 0 else "u64"
            raise self.error(f"the values of '{name}' do not fit in {wanted}", clause.line, clause.col)
        return found


def _length(values: Any) -> int:
    """``len(values)``, also for a range past 2**63 values (where ``len``
    overflows) and the tuples of one (:class:`_Singles`, :class:`_Zipped`)."""
    if isinstance(values, (_Singles, _Zipped, _Union)):
        return values.length
    if isinstance(values, range):
        return max(0, -((values.start - values.stop) // values.step))
    return len(values)


def _kept(
    positions: Iterator[int], tests: tuple[Callable[[tuple[Any, ...]], bool], ...],
    at: Callable[[int], tuple[Any, ...]],
) -> Iterator[int]:
    """The positions whose tuple passes every one of ``tests`` (each where
    stage's own test, bound now: a later stage does not replace it)."""
    if not tests:
        return positions
    return (p for p in positions if all(test(at(p)) for test in tests))


def _product(parts: Sequence[Iterable[tuple[Any, ...]]]) -> Iterator[tuple[Any, ...]]:
    """The Cartesian product of ``parts`` (re-iterable), first part
    outermost, each combination's tuples joined into one; lazily, so no part
    (a range of 2**64 values, say) is ever listed."""
    if not parts:
        yield ()
        return
    first, rest = parts[0], parts[1:]
    for head in first:
        for tail in _product(rest):
            yield head + tail


class _Singles:
    """The one-name tuples of a sequence of values (a range stays lazy)."""

    def __init__(self, values: Sequence[Any]):
        self.values = values
        self.length = _length(values)

    def __getitem__(self, i: int) -> tuple[Any, ...]:
        return (self.values[i],)

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return ((v,) for v in self.values)


class _Zipped:
    """The tuples of several sequences, element by element (lazily: a range
    is indexed, never listed), paired as ``mode`` says (:data:`ZIP_MODES`):
    ``strict`` sequences are equally long; ``truncate`` stops at the
    shortest; ``cycle`` runs to the longest, the element ``i`` of a shorter
    one being its ``i mod length``, and has no tuple when one is empty."""

    def __init__(self, columns: Sequence[Sequence[Any]], mode: str = "strict"):
        self.columns = columns
        self.mode = mode
        self.sizes = [_length(c) for c in columns]
        if mode == "cycle":
            self.length = 0 if 0 in self.sizes else max(self.sizes)
        else:
            self.length = min(self.sizes)

    def __getitem__(self, i: int) -> tuple[Any, ...]:
        if self.mode == "cycle":
            return tuple(c[i % size] for c, size in zip(self.columns, self.sizes))
        return tuple(c[i] for c in self.columns)

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        if self.mode == "cycle":
            return (self[i] for i in range(self.length))
        return zip(*self.columns)


class _Lattice:
    """The Cartesian product of axes, first axis outermost: iterated
    lazily, or indexed by a position in row-major order."""

    def __init__(self, axes: Sequence[_Axis]):
        self.axes = axes
        self._sizes: list[int] | None = None

    @property
    def sizes(self) -> list[int]:
        """Each axis's length (a union member holding a where or an order
        dispenses its tuples to count them)."""
        if self._sizes is None:
            self._sizes = [_length(a) for a in self.axes]
        return self._sizes

    @property
    def length(self) -> int:
        return math.prod(self.sizes)

    def __getitem__(self, position: int) -> tuple[Any, ...]:
        parts = []
        for axis, size in zip(reversed(self.axes), reversed(self.sizes)):
            position, index = divmod(position, size)
            parts.append(axis[index])
        return tuple(v for part in reversed(parts) for v in part)

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return _product(self.axes)


class _Dispensed:
    """The tuples a union member with stages (``where``/``order``)
    dispenses: iterated lazily, held (at most :data:`_HELD_MAX`) only when
    an order over the union needs their count or a position."""

    def __init__(self, tuples: Iterator[tuple[Any, ...]], member: Comprehension):
        self.tuples = tuples
        self.member = member
        self._held: list[tuple[Any, ...]] | None = None

    def held(self) -> list[tuple[Any, ...]]:
        if self._held is None:
            held = list(itertools.islice(self.tuples, _HELD_MAX + 1))
            if len(held) > _HELD_MAX:
                raise self.member.error(
                    f"an order over this union ranks its members' tuples, and this member dispenses "
                    f"more than {_HELD_MAX}, which must then be held at once",
                    self.member.base_line, self.member.base_col,
                    "give the member's order a count (e.g. order lex/1000), or order the members one by one",
                )
            self._held = held
        return self._held

    @property
    def length(self) -> int:
        return len(self.held())

    def __getitem__(self, i: int) -> tuple[Any, ...]:
        return self.held()[i]

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        if self._held is not None:
            return iter(self._held)
        return self.tuples


class _Union:
    """A union's tuples: its members' (each a :class:`_Lattice`, or a
    :class:`_Dispensed` member with stages), member after member; one axis
    whose position ``p`` is the ``p``-th tuple of that row."""

    def __init__(self, parts: Sequence[_Lattice | _Dispensed]):
        self.parts = parts
        self._starts: list[int] | None = None

    @property
    def starts(self) -> list[int]:
        """The position of each member's first tuple, then the total."""
        if self._starts is None:
            starts = [0]
            for part in self.parts:
                starts.append(starts[-1] + part.length)
            self._starts = starts
        return self._starts

    @property
    def length(self) -> int:
        return self.starts[-1]

    def __getitem__(self, i: int) -> tuple[Any, ...]:
        starts = self.starts
        member = bisect.bisect_right(starts, i) - 1
        return self.parts[member][i - starts[member]]

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return itertools.chain.from_iterable(self.parts)


_Axis = Union[_Singles, _Zipped, _Union]
"""One axis of a comprehension's space: a clause's values, a zip's, or a union's tuples."""


def _json_elements(text: JsonText) -> list[Any]:
    """The values a JSON source stands for (see :class:`JsonText`)."""
    parsed = json.loads(text)
    items = parsed if isinstance(parsed, list) else [parsed]
    return [
        JsonText(json.dumps(item, separators=(",", ":"), ensure_ascii=False))
        if isinstance(item, (dict, list)) or item is None else item
        for item in items
    ]


def _kind(value: Any) -> str:
    if isinstance(value, JsonText):
        return "json"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    return "str"


def _tokens(text: str) -> list[str]:
    """A string comprehension's tokens: split on runs of commas, semicolons and whitespace."""
    out: list[str] = []
    token: list[str] = []
    for c in text:
        if c in ",;" or c.isspace():
            if token:
                out.append("".join(token))
                token = []
        else:
            token.append(c)
    if token:
        out.append("".join(token))
    return out


def _literal(token: str) -> Any:
    """A string-comprehension token typed as a list element: u64, f64, bool, else str."""
    if token in ("true", "false"):
        return token == "true"
    if token.isdigit():
        value = int(token)
        return value if value <= _U64_MAX else token
    try:
        value_f = float(token)
    except ValueError:
        return token
    return value_f if any(c.isdigit() for c in token) and math.isfinite(value_f) else token


# ----------------------------------------------------------------------------
# Named generators (upstream's formulas, limits and messages)


def _fib(n: int) -> list[int]:
    if n > 93:
        raise ValueError(f"fib({n}): term 94 is past u64::MAX; fib.n is at most 93")
    out, a, b = [], 1, 1
    for _ in range(n):
        out.append(a)
        a, b = b, a + b
    return out


def _fib_until(limit: int) -> list[int]:
    out, a, b = [], 1, 1
    while a <= limit and a <= _U64_MAX:
        out.append(a)
        a, b = b, a + b
    return out


def _pow2(n: int) -> list[int]:
    if n > 64:
        raise ValueError(f"pow2({n}): term 65, 2^64, is past u64::MAX; pow2.n is at most 64")
    return [1 << i for i in range(n)]


def _pow2_until(limit: int) -> list[int]:
    out, v = [], 1
    while v <= limit and v <= _U64_MAX:
        out.append(v)
        v <<= 1
    return out


def _binomial(n: int) -> list[int]:
    row = [math.comb(n, k) for k in range(n + 1)]
    if n > 67:
        k = next(k for k, c in enumerate(row) if c > _U64_MAX)
        raise ValueError(f"binomial({n}): term C({n}, {k}) is past u64::MAX; binomial.n is at most 67")
    return row


def _check_factor(name: str, factor: float, until: bool) -> None:
    if not math.isfinite(factor) or factor <= 0 or (until and factor <= 1):
        need = "greater than 1" if until else "positive"
        raise ValueError(f"{name}.factor: expected a finite number {need}, got '{factor}'")


def _geometric(start: float, factor: float, n: int) -> list[float]:
    _check_factor("geometric", float(factor), False)
    return [float(start) * float(factor) ** i for i in range(n)]


def _geometric_until(start: float, factor: float, limit: float) -> list[float]:
    _check_factor("geometric_until", float(factor), True)
    out: list[float] = []
    if start <= 0:
        return out
    i = 0
    while True:
        term = float(start) * float(factor) ** i
        if term > limit or len(out) > 10_000_000:
            return out
        out.append(term)
        i += 1


def _linear_starts(start: float, end: float, n: int) -> list[float]:
    start, end = float(start), float(end)
    return [start + i * (end - start) / n for i in range(n)]


def _linear_steps(start: float, end: float, n: int) -> list[float]:
    start, end = float(start), float(end)
    if n == 1:
        return [start]
    return [end if i == n - 1 else start + i * (end - start) / (n - 1) for i in range(n)]


def _log_steps(start: float, end: float, n: int) -> list[float]:
    start, end = float(start), float(end)
    if start <= 0 or end <= 0:
        raise ValueError(f"log_steps: start and end must be positive, got {start} and {end}")
    if n == 1:
        return [start]
    lo, hi = math.log(start), math.log(end)
    return [start if i == 0 else end if i == n - 1 else math.exp(lo + i * (hi - lo) / (n - 1)) for i in range(n)]


_GENERATORS: dict[str, Callable[..., list[Any]]] = {
    "fib": _fib,
    "fib_until": _fib_until,
    "pow2": _pow2,
    "pow2_until": _pow2_until,
    "binomial": _binomial,
    "geometric": _geometric,
    "geometric_until": _geometric_until,
    "linear_starts": _linear_starts,
    "linear_steps": _linear_steps,
    "log_steps": _log_steps,
}


# ----------------------------------------------------------------------------
# Opening in a scope


ExpressionCompiler = Callable[[str, Any, Sequence[tuple[str, str]]], Any]
"""Compiles a comprehension's Polydat expressions (its ``where`` predicates'
and call sources', as outputs ``__e0``, ``__e1``, ...): a function of
(source, the core kernel of the scope, iteration variables as (name, type)
pairs) giving the compiled core program, raising :class:`CompileError`.
The host supplies it (:func:`polydat.program.expression_compiler`): the
frontend compiles nothing itself."""


def open_comprehension(
    parsed: Comprehension, outer: _core.Kernel, lookup: Callable[[str], Any], compile_expressions: ExpressionCompiler
) -> tuple[dict[str, str], Iterator[tuple[Any, ...]]]:
    """Opens comprehension ``parsed`` in the scope of ``outer`` (a core
    kernel): ``lookup`` reads its ``{name}`` references; its ``where``
    predicates and call sources evaluate there, compiled by
    ``compile_expressions`` (see :data:`ExpressionCompiler`). The one way
    every traversal (``Kernel.for_each``, ``Kernel.traverse``, a workload's
    ``for_each``) gets its iteration types and tuples."""

    def call(source: Call) -> Any:
        program = _scope_expression(
            parsed, [source.text], {}, outer, compile_expressions, source.line, source.col, "in the source"
        )
        value = program.kernel(outer, []).pull("__e0")
        json_typed = dict(program.outputs).get("__e0") == "json"
        return JsonText(value) if json_typed and isinstance(value, str) else value

    def typed_lookup(name: str) -> Any:
        # A json value (a partition list) stands for its elements, not its text's tokens.
        value = lookup(name)
        if isinstance(value, str) and name in json_names():
            return JsonText(value)
        return value

    @functools.cache
    def json_names() -> frozenset[str]:
        return frozenset(e["name"] for e in json.loads(outer.manifest_json()) if e["type"] == "json")

    def keep(where: Where, types: dict[str, str]) -> Callable[[tuple[Any, ...]], bool]:
        return _where_test(parsed, where, outer, lookup, types, compile_expressions)

    return parsed.open(typed_lookup, keep, call)


def _scope_expression(
    parsed: Comprehension, texts: Sequence[str], types: Mapping[str, str], outer: _core.Kernel,
    compile_expressions: ExpressionCompiler, line: int, col: int, where: str,
) -> _core.Program:
    """``texts`` as one core program (outputs ``__e0``, ``__e1``, ...)
    compiled against ``outer`` with iteration variables ``types``; a compile
    error is reported at ``line:col`` of the comprehension."""
    source = "\n".join(f"__e{i} := ({text})" for i, text in enumerate(texts))
    try:
        return compile_expressions(source, outer, list(types.items()))
    except CompileError as err:
        raise parsed.error(f"{where}: {err.message}", line, col, err.hint) from None


def _where_test(
    parsed: Comprehension, where: Where, outer: _core.Kernel, lookup: Callable[[str], Any], types: dict[str, str],
    compile_expressions: ExpressionCompiler,
) -> Callable[[tuple[Any, ...]], bool]:
    """The test of a ``where`` stage over tuples of ``types``: elements read
    from the tuple, else from the scope (None when nothing binds them); the
    predicate's Polydat expressions evaluate in one kernel bound under
    ``outer``, which takes each tuple's values in turn."""
    from ..errors import UnknownNameError
    from .predicate import Predicate, PredicateError

    try:
        predicate = Predicate(where.text)
    except CompileError as err:
        raise parsed.error(f"in the where predicate: {err.message}", where.line, where.col) from None
    names = list(types)
    index = {name: i for i, name in enumerate(names)}
    # A name the scope does not bind is refused now when the lookup refuses
    # it (a host's traversal): it would read None and silently keep or drop
    # every tuple. A `for` statement's lenient lookup reads it as None.
    for name in predicate.reads():
        if name not in index:
            try:
                lookup(name)
            except UnknownNameError as err:
                raise parsed.error(f"in the where predicate: {err}", where.line, where.col, err.hint) from None
    state: dict[str, Any] = {"check": None, "tuple": None}
    program = None
    if predicate.expressions:
        program = _scope_expression(
            parsed, predicate.expressions, types, outer, compile_expressions, where.line, where.col,
            "in the where predicate",
        )

    def element(values: tuple[Any, ...], name: str) -> Any:
        if name in index:
            return values[index[name]]
        try:
            return lookup(name)
        except UnknownNameError:
            return None

    def expression(i: int, values: tuple[Any, ...]) -> Any:
        assert program is not None
        check = state["check"]
        if check is None:
            check = state["check"] = program.kernel(outer, list(zip(names, values)))
        elif state["tuple"] != values:
            for name, value in zip(names, values):
                check.set(name, value)
        state["tuple"] = values
        return check.pull(f"__e{i}")

    test = predicate.tester(element, expression)

    def keep(values: tuple[Any, ...]) -> bool:
        try:
            return test(values)
        except PredicateError as err:
            raise parsed.error(f"in the where predicate: {err}", where.line, where.col) from None

    return keep


# ----------------------------------------------------------------------------
# Parsing


def parse_text(text: str, path: str | None = None) -> Comprehension:
    """Parses a comprehension given as text (``Kernel.for_each``); errors
    point at their column in ``text``."""
    file = SourceFile(text, path)
    lexer = Lexer(file)
    tokens = lexer.tokenize()
    if lexer.diagnostics:
        raise CompileError(lexer.diagnostics[0], tuple(lexer.diagnostics[1:]))
    return parse(tokens, file, text)


def parse_items(text: str) -> tuple[Item, ...]:
    """The items of a list or range written as text (the value of a
    ``{name}`` reference): ``1,2,3``, ``0..4``, ``a,b``."""
    file = SourceFile(text, None)
    lexer = Lexer(file)
    lexer.fast_lines = False
    tokens = lexer.tokenize()
    if lexer.diagnostics:
        raise CompileError(lexer.diagnostics[0])
    parser = _Parser(tokens, file, text)
    if parser.peek().kind is TokenKind.EOF:
        return ()
    items = parser.items(stop_at_clause=False, allow_reference=False)
    parser.expect_end()
    return tuple(items)


def parse(tokens: Sequence[Token], file: SourceFile, text: str, allow_base: bool = False) -> Comprehension:
    """Parses the comprehension in ``tokens`` (which end with EOF or are the
    header tokens of a ``for``); ``text`` is its source text.
    ``allow_base``: the text may name a producer instead of clauses (a
    traversal over a producer, or a derivation)."""
    parser = _Parser(tokens, file, text)
    return parser.comprehension(allow_base)


class _Parser:
    def __init__(self, tokens: Sequence[Token], file: SourceFile, text: str):
        tokens = list(tokens)
        if not tokens or tokens[-1].kind is not TokenKind.EOF:
            end = tokens[-1] if tokens else None
            eof_offset = (end.offset + len(end.text)) if end else 0
            tokens.append(Token(TokenKind.EOF, "", eof_offset, end.line if end else 1, (end.col + len(end.text)) if end else 1))
        self.tokens = tokens
        self.pos = 0
        self.file = file
        self.text = text
        self.nesting = 0
        """How many union brackets enclose the current position."""

    def peek(self, k: int = 0) -> Token:
        return self.tokens[min(self.pos + k, len(self.tokens) - 1)]

    def advance(self) -> Token:
        token = self.peek()
        self.pos = min(self.pos + 1, len(self.tokens) - 1)
        return token

    def error(self, message: str, token: Token, hint: str | None = None) -> CompileError:
        return self.file.error(message, Span(token.line, token.col), hint)

    def expect_end(self) -> None:
        token = self.peek()
        if token.kind is not TokenKind.EOF:
            raise self.error(f"unexpected {_describe(token)} in the comprehension", token)

    def comprehension(self, allow_base: bool) -> Comprehension:
        start = self.peek()
        if start.kind is TokenKind.EOF:
            raise self.error("a comprehension needs at least one clause", start, "write e.g. `k in 1..4`")
        parsed = self.space(allow_base)
        self.expect_end()
        return parsed

    def space(self, allow_base: bool) -> Comprehension:
        """A clause list (or a union in brackets, or, with ``allow_base``, a
        producer's name), then its ``where`` and ``order`` stages. Inside a
        union's brackets it ends before a ``, for`` or the closing ``]``."""
        start = self.peek()
        base = None
        clauses: list[Clause] = []
        members: tuple[Comprehension, ...] = ()
        after = self.peek(1)
        if start.is_op("["):
            members = self.union()
        elif allow_base and start.kind is TokenKind.IDENT and (
            after.kind is TokenKind.EOF or after.is_word("where", "order")
        ):
            base = self.advance().text
        else:
            clauses.append(self.clause())
            while self.peek().is_op(",") and not self.member_ends(1):
                self.advance()
                clauses.append(self.clause())
        stages: list[Stage] = []
        while True:
            if self.peek().is_word("where"):
                word = self.advance()
                stages.append(Where(self.predicate(word), word.line, word.col))
            elif self.peek().is_word("order"):
                stages.append(self.order(self.advance()))
            else:
                break
        names = [n for c in clauses for n in c.names]
        for i, name in enumerate(names):
            if name in names[:i]:
                raise self.error(f"'{name}' is named by two clauses", start, "each iteration variable is named once")
        end = self.tokens[self.pos - 1]
        text = self.file.text[start.offset : end.offset + len(end.text)] if self.nesting else self.text
        lines = {t.line for t in self.tokens if t.line}
        source_lines = {n: line for n in lines if (line := self.file.line_text(n)) is not None}
        return Comprehension(tuple(clauses), tuple(stages), text, source_lines, self.file.path,
                             base, start.line, start.col, members)

    def member_ends(self, k: int) -> bool:
        """Whether a union member ends before the token ``k`` ahead (a ``,``
        there is followed by the next member's ``for``, or ends the list)."""
        return self.nesting > 0 and (self.peek(k).is_word("for") or self.peek(k).is_op("]"))

    def union(self) -> tuple[Comprehension, ...]:
        """``[for <comprehension>, for <comprehension>, ...]``: a union's
        members (a comma may follow the last); each has the same names, in
        the same order."""
        opening = self.advance()
        self.nesting += 1
        members: list[Comprehension] = []
        while not self.peek().is_op("]"):
            token = self.peek()
            if token.kind is TokenKind.EOF:
                raise self.error("expected ']' closing the union", opening, "a union is written `[for ..., for ...]`")
            if not token.is_word("for"):
                raise self.error(
                    f"a union's members are introduced by `for`, found {_describe(token)}", token,
                    "write e.g. `[for k in 1..3, for k in 10..12]`",
                )
            self.advance()
            if self.peek().is_op(",", "]") or self.peek().kind is TokenKind.EOF:
                raise self.error("a `for` in a union needs a comprehension after it", token,
                                 "write e.g. `[for k in 1..3, for k in 10..12]`")
            member = self.space(allow_base=False)
            if members and member.names != members[0].names:
                raise self.file.error(
                    f"the members of a union give the same names in the same order: this one gives "
                    f"({', '.join(member.names)}), the first ({', '.join(members[0].names)})",
                    Span(member.base_line, member.base_col),
                    "a union's tuples have one shape; name the same variables, in the same order, in every member",
                )
            members.append(member)
            if self.peek().is_op(","):
                self.advance()
            elif not self.peek().is_op("]"):
                token = self.peek()
                if token.kind is TokenKind.EOF:
                    raise self.error("expected ']' closing the union", opening,
                                     "a union is written `[for ..., for ...]`")
                raise self.error(f"expected ',' or ']' after the union's member, found {_describe(token)}", token)
        if not members:
            raise self.error("a union needs at least one member between '[' and ']'", opening,
                             "write e.g. `[for k in 1..3, for k in 10..12]`")
        self.advance()
        self.nesting -= 1
        return tuple(members)

    def clause_starts(self, k: int = 0) -> bool:
        """Whether a clause (``name in`` or ``(a, b) in``) starts ``k`` tokens ahead."""
        if self.peek(k).kind is TokenKind.IDENT and self.peek(k + 1).is_word("in"):
            return True
        if not self.peek(k).is_op("("):
            return False
        j = k + 1
        while self.peek(j).kind is TokenKind.IDENT and self.peek(j + 1).is_op(","):
            j += 2
        return self.peek(j).kind is TokenKind.IDENT and self.peek(j + 1).is_op(")") and self.peek(j + 2).is_word("in")

    def clause(self) -> Clause:
        first = self.peek()
        if first.is_op("("):
            self.advance()
            names = [self.name()]
            while self.peek().is_op(","):
                self.advance()
                names.append(self.name())
            self.expect(")")
            self.expect_in(first)
            if self.peek().is_word("zip_truncate", "zip_cycle") and self.peek(1).is_op("("):
                return self.zip_call(first, names)
            sources = [self.source()]
            while len(sources) < len(names) and self.peek().is_op(",") and not self.clause_starts(1):
                self.advance()
                sources.append(self.source())
            if len(sources) != len(names):
                raise self.error(
                    f"({', '.join(names)}) zips {len(names)} sources, but {len(sources)} "
                    f"{'is' if len(sources) == 1 else 'are'} given",
                    first,
                    f"write `({', '.join(names)}) in {', '.join(f'(...)' for _ in names)}`, one source per name",
                )
            return Clause(tuple(names), tuple(sources), first.line, first.col)
        name = self.name()
        self.expect_in(first)
        return Clause((name,), (tuple(self.items(stop_at_clause=True, allow_reference=True)),), first.line, first.col)

    def zip_call(self, first: Token, names: list[str]) -> Clause:
        """``(a, b) in zip_truncate(xs, ys)`` or ``zip_cycle(xs, ys)``: one
        source per name (a range, a ``[...]`` or ``(...)`` list, a reference,
        a generator or a call)."""
        word = self.advance()
        self.advance()
        sources: list[tuple[Item, ...]] = []
        while True:
            if self.peek().is_op(")") and sources:
                break
            sources.append(self.zip_operand())
            if self.peek().is_op(","):
                self.advance()
                continue
            if not self.peek().is_op(")"):
                raise self.error(f"expected ',' or ')' in {word.text}(...), found {_describe(self.peek())}", self.peek())
            break
        self.advance()
        if len(sources) != len(names):
            raise self.error(
                f"({', '.join(names)}) zips {len(names)} sources, but {word.text}(...) gives {len(sources)}",
                first,
                f"write `({', '.join(names)}) in {word.text}({', '.join('...' for _ in names)})`, one source per name",
            )
        mode = "truncate" if word.text == "zip_truncate" else "cycle"
        return Clause(tuple(names), tuple(sources), first.line, first.col, mode)

    def zip_operand(self) -> tuple[Item, ...]:
        """One source of ``zip_truncate``/``zip_cycle``: a lone bare word is a
        reference (as a clause's source); a list is bracketed or parenthesised."""
        token = self.peek()
        if token.is_op("["):
            return tuple(self.bracket())
        if token.is_op("("):
            return self.source()
        after = self.peek(1)
        if (token.kind is TokenKind.IDENT and after.is_op(",", ")") and token.text not in ("true", "false")):
            self.advance()
            return (Ref(token.text, token.line, token.col),)
        return tuple(self.expand(self.item()))

    def name(self) -> str:
        token = self.peek()
        # `where` and `order` start stages, but a clause may still name a
        # variable so (`order in 0..{orders}`): the next token tells.
        stage_word_as_name = token.text in ("where", "order") and (
            self.peek(1).is_word("in") or self.peek(1).is_op(",", ")")
        )
        if token.kind is not TokenKind.IDENT or token.text == "in" or (
            token.text in ("where", "order") and not stage_word_as_name
        ):
            raise self.error(f"expected a name, found {_describe(token)}", token)
        return self.advance().text

    def expect(self, op: str) -> Token:
        token = self.peek()
        if not token.is_op(op):
            raise self.error(f"expected '{op}', found {_describe(token)}", token)
        return self.advance()

    def expect_in(self, start: Token) -> None:
        token = self.peek()
        if not token.is_word("in"):
            raise self.error(f"expected 'in', found {_describe(token)}", token, "a clause is written `name in values`")
        self.advance()

    def source(self) -> tuple[Item, ...]:
        """One zipped source: a parenthesised list, or a single item (a range, a reference)."""
        if self.peek().is_op("("):
            self.advance()
            items = [self.item()]
            while self.peek().is_op(","):
                self.advance()
                items.append(self.item())
            self.expect(")")
            return tuple(items)
        return tuple(self.expand(self.item()))

    def items(self, stop_at_clause: bool, allow_reference: bool) -> list[Item]:
        first = self.peek()
        if first.is_op("["):
            items = self.bracket()
        else:
            items = self.expand(self.item())
        lone = len(items) == 1 and first.kind is TokenKind.IDENT and isinstance(items[0], str)
        while self.peek().is_op(",") and not (stop_at_clause and self.clause_starts(1)) and not self.member_ends(1):
            lone = False
            self.advance()
            items.extend(self.expand(self.item()))
        if lone and allow_reference and first.text not in ("true", "false"):
            # A lone bare word is a reference to a name of the scope (upstream).
            return [Ref(first.text, first.line, first.col)]
        return items

    def bracket(self) -> list[Item]:
        """``[a, b, ...]``: each element one value, whole (strings are not split)."""
        self.advance()
        items: list[Item] = []
        if self.peek().is_op("]"):
            self.advance()
            return items
        while True:
            items.append(self.item())
            if self.peek().is_op(","):
                self.advance()
                continue
            self.expect("]")
            return items

    def expand(self, item: Item) -> list[Item]:
        """A double-quoted string is a string comprehension: its tokens."""
        token = self.tokens[self.pos - 1]
        if isinstance(item, str) and token.kind is TokenKind.STRING and token.text.startswith('"'):
            return [_literal(t) for t in _tokens(item)]
        return [item]

    def item(self) -> Item:
        token = self.peek()
        if token.kind is TokenKind.IDENT and self.peek(1).is_op("(") and token.text not in ("where", "in", "step", "order"):
            return self.call()
        value = self.scalar()
        if self.peek().is_op(".") and self.peek(1).is_op(".") and self.peek(1).offset == self.peek().offset + 1:
            if isinstance(value, (str, bool)):
                raise self.error(f"a range bound must be a number, got {_describe(token)}", token)
            self.advance()
            self.advance()
            inclusive = False
            if self.peek().is_op("=") and self.peek().offset == self.tokens[self.pos - 1].offset + 1:
                self.advance()
                inclusive = True
            hi_token = self.peek()
            hi = self.scalar()
            if isinstance(hi, (str, bool)):
                raise self.error(f"a range bound must be a number, got {_describe(hi_token)}", hi_token)
            step = None
            if self.peek().is_word("step"):
                self.advance()
                step_token = self.peek()
                step = self.scalar()
                if isinstance(step, (str, bool)):
                    raise self.error(f"a range step must be a number, got {_describe(step_token)}", step_token)
            return Range(value, hi, inclusive, step, token.line, token.col)  # type: ignore[arg-type]
        return value

    def call(self) -> Item:
        """``name(args...)`` in source position."""
        name = self.advance()
        open_paren = self.advance()
        if name.text in _MEASURES:
            raise self.error(
                f"continuous sources ({name.text}(...)) are not supported in this release",
                name,
                "iterate a discrete source: a list, a range with a step, or a generator",
            )
        if name.text in ("zip_truncate", "zip_cycle"):
            raise self.error(
                f"{name.text}(...) zips the sources of a tuple clause", name,
                f"name one variable per source: `(a, b) in {name.text}(xs, ys)`",
            )
        if name.text in NAMED_GENERATORS:
            args: list[Union[int, float, Ref]] = []
            if not self.peek().is_op(")"):
                while True:
                    arg_token = self.peek()
                    arg = self.scalar()
                    if isinstance(arg, (str, bool)):
                        raise self.error(f"{name.text}: expected a number, got {_describe(arg_token)}", arg_token)
                    args.append(arg)
                    if self.peek().is_op(","):
                        self.advance()
                        continue
                    break
            self.expect(")")
            return Generator(name.text, tuple(args), name.line, name.col)
        depth = 1
        while depth:
            token = self.advance()
            if token.kind is TokenKind.EOF:
                raise self.error("expected ')' closing the call", open_paren)
            if token.is_op("("):
                depth += 1
            elif token.is_op(")"):
                depth -= 1
        end = self.tokens[self.pos - 1]
        text = self.file.text[name.offset : end.offset + 1]
        return Call(_strip_refs(text), name.line, name.col)

    def scalar(self) -> Union[int, float, str, bool, Ref]:
        token = self.peek()
        if token.is_op("{"):
            self.advance()
            name = self.peek()
            if name.kind is not TokenKind.IDENT:
                raise self.error("expected a name inside '{...}'", name, "a reference is written `{name}`")
            self.advance()
            self.expect("}")
            return Ref(name.text, token.line, token.col)
        if token.is_op("-"):
            self.advance()
            number = self.peek()
            if number.kind not in (TokenKind.INT, TokenKind.FLOAT):
                raise self.error(f"expected a number after '-', found {_describe(number)}", number)
            self.advance()
            return -number.value  # type: ignore[operator]
        if token.kind in (TokenKind.INT, TokenKind.FLOAT):
            self.advance()
            return token.value  # type: ignore[return-value]
        if token.kind is TokenKind.STRING:
            self.advance()
            return str(token.value)
        if token.kind is TokenKind.IDENT and token.text not in ("where", "in", "step", "order"):
            self.advance()
            return {"true": True, "false": False}.get(token.text, token.text)
        raise self.error(f"expected a value, found {_describe(token)}", token)

    def predicate(self, where: Token) -> str:
        """The predicate's text, up to an ``order`` or ``where`` outside braces."""
        first = self.peek()
        if first.kind is TokenKind.EOF or first.is_word("order", "where"):
            raise self.error("'where' needs a predicate", where, "write e.g. `where {k} > 2`")
        end = first
        depth = 0
        while self.peek().kind is not TokenKind.EOF:
            token = self.peek()
            if depth == 0 and token.is_word("order", "where"):
                break
            if depth == 0 and self.nesting and (token.is_op("]") or (token.is_op(",") and self.member_ends(1))):
                break
            if token.is_op("(", "[", "{"):
                depth += 1
            elif token.is_op(")", "]", "}"):
                depth -= 1
            end = self.advance()
        return self.file.text[first.offset : end.offset + len(end.text)]

    def order(self, word: Token) -> Order:
        """``order NAME``, ``order NAME/N`` or ``order NAME(seed=N)``."""
        name = self.peek()
        if name.kind is not TokenKind.IDENT:
            raise self.error(f"expected an order strategy, found {_describe(name)}", name,
                             "write e.g. `order halton/5`")
        self.advance()
        count = seed = None
        if self.peek().is_op("/"):
            self.advance()
            number = self.peek()
            if number.kind is not TokenKind.INT:
                raise self.error(f"expected a count after '/', found {_describe(number)}", number)
            count = int(self.advance().value)  # type: ignore[arg-type]
        elif self.peek().is_op("("):
            self.advance()
            while not self.peek().is_op(")"):
                key = self.peek()
                if not key.is_word("seed", "n") or not self.peek(1).is_op("="):
                    raise self.error(f"expected `seed=` or `n=` in the order's arguments, found {_describe(key)}", key)
                self.advance()
                self.advance()
                number = self.peek()
                if number.kind is not TokenKind.INT:
                    raise self.error(f"expected an integer, found {_describe(number)}", number)
                value = int(self.advance().value)  # type: ignore[arg-type]
                if key.text == "seed":
                    seed = value
                else:
                    count = value
                if self.peek().is_op(","):
                    self.advance()
            self.advance()
        end = self.tokens[self.pos - 1]
        text = self.file.text[word.offset : end.offset + len(end.text)]
        return Order(name.text, count, seed, text, name.line, name.col)


def _strip_refs(text: str) -> str:
    """``{name}`` written ``name`` (a call source or predicate expression is DSL text)."""
    import re

    return re.sub(r"\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}", r"\1", text)


def _describe(token: Token) -> str:
    if token.kind is TokenKind.EOF:
        return "the end of the comprehension"
    return f"'{token.text}'"
