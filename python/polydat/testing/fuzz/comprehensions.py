"""Random comprehensions and the properties every one of them must keep.

:func:`comprehension` turns a seed into a :class:`FuzzComprehension`: the
text of a comprehension of 1 to 3 clauses (integer ranges with or without a
step and ``..=``, lists of integers, words and floats, named generators,
float ranges with a step, tuple clauses zipping in the three modes, unions
whose members name the same variables, ``where`` predicates over the names,
an optional order with a random strategy, count and seed, and continuous
sources, always under a sampling order with a count), together with what
the writer knows of it: every clause's values in order, the predicate as a
Python function, the order. Same seed, same text.

:func:`check` opens it on every surface (a ``for`` statement on every
engine, a producer traversed by a ``for`` and derived from, ``Kernel.for_each``
of the text and of the producer's value, with stages appended, and now and
then a workload phase), and
compares what they dispense with one another and with an oracle written
here from the writer's own values: the Cartesian product, zipped and
united, filtered by the predicate, ranked as the order's documented rule
says (:doc:`docs/language/traversals.md`); it also formats the program
twice. Nothing here asks :mod:`polydat.dsl.comprehension` for an answer.

Usage::

    from polydat.testing.fuzz.comprehensions import check, comprehension

    comprehension(17).text          # the same text for the same seed, always
    check(17).failures              # the properties seed 17 broke

    # one seed again, from a shell:
    #   python -m polydat.testing.fuzz.comprehensions --seed 17
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

__all__ = ["ENGINES", "check_drawn", "oracle_failures", "OrderSpec", "Predicate", "FuzzComprehension", "Axis", "Checked", "comprehension", "check", "expected_tuples", "main"]

ENGINES = ("p1", "p2", "p3", "mixed")
"""The engines a ``for`` statement over each comprehension runs on."""

_NAMES = ("k", "j", "m", "w", "v", "x", "y", "z", "p", "q")
_WORDS = ("load", "verify", "alpha", "red", "green", "west", "east", "tau")
_LATTICE_ORDERS = ("lex", "reverse_lex", "diagonal", "antidiagonal", "shells")
_SAMPLING_ORDERS = ("halton", "sobol", "lhs", "shuffle", "extrema")
_SEEDED_ORDERS = ("lhs", "shuffle")
SCOPE_LIMIT = 4
"""``const lim`` of every program, read as ``{lim}`` by a range."""
SCOPE_PICKS = (3, 5, 8)
"""``extern picks: str = "3,5,8"`` of every program, a list read as ``{picks}`` or ``picks``."""

_MAX_AXIS = 6
"""Most values a discrete clause is written with (its lattice stays small)."""

Value = Any
Row = tuple[Value, ...]


@dataclass(frozen=True)
class Axis:
    """One clause (or a whole union) as the oracle sees it: an axis of the lattice."""

    names: tuple[str, ...]
    rows: tuple[Row, ...] | None
    """The clause's values in order, one row per position; ``None`` for a continuous source."""
    text: str
    interval: tuple[float, float] | None = None
    """Where a continuous source's draws must lie (ends included unless :attr:`open_hi`)."""
    open_hi: bool = False
    """The high end of :attr:`interval` is excluded (``lo..hi``)."""


@dataclass(frozen=True)
class Predicate:
    """A ``where`` as written and as the oracle evaluates it."""

    text: str
    test: Callable[[dict[str, Value]], bool]


@dataclass(frozen=True)
class OrderSpec:
    """``order strategy[/count]`` or ``order strategy(seed=S[, n=N])``."""

    strategy: str
    count: int | None
    seed: int | None
    text: str


@dataclass(frozen=True)
class FuzzComprehension:
    """One drawn comprehension: its text and what the writer knows of it."""

    seed: int
    text: str
    names: tuple[str, ...]
    types: dict[str, str]
    axes: tuple[Axis, ...]
    """The lattice's axes: the clauses, or the one axis of a union."""
    where: Predicate | None
    order: OrderSpec | None
    union: bool = False
    derived: Predicate | None = None
    """The predicate of a derivation of the producer (``sub := for rows where ...``)."""

    @property
    def continuous(self) -> bool:
        return any(axis.rows is None for axis in self.axes)

    def body(self) -> str:
        """A ``for`` body computing from every name of the tuple, typed per name."""
        lines = []
        for name in self.names:
            kind = self.types[name]
            if kind == "u64":
                lines.append(f"h_{name} := hash({name})")
            elif kind == "i64":
                lines.append(f"h_{name} := {name} * 3 - 1")
            elif kind == "f64":
                lines.append(f"h_{name} := {name} * 2.0 + 1.0")
            elif kind == "bool":
                lines.append(f"h_{name} := if {name} {{ 1 }} else {{ 0 }}")
            else:
                lines.append(f'h_{name} := "<{{{name}}}>"')
        lines.append("t := \"" + "/".join("{" + n + "}" for n in self.names) + "\"")
        return "\n".join(lines)

    def outputs(self) -> list[str]:
        return [f"h_{name}" for name in self.names] + ["t"]

    def program(self) -> str:
        """The program the surfaces read: a ``for`` statement, a producer and a ``for`` over it."""
        body = "".join(f"    {line}\n" for line in self.body().splitlines())
        return (
            "input cycle\n"
            f"const lim := {SCOPE_LIMIT}\n"
            f'extern picks: str = "{",".join(map(str, SCOPE_PICKS))}"\n'
            f"rows := for {self.text}\n"
            f"for {self.text} {{\n{body}}}\n"
            f"for rows {{\n{body}}}\n"
            f"for rows order reverse_lex {{\n    one := 1\n}}\n"
            + (f"sub := for rows where {self.derived.text}\n" if self.derived else "")
        )


# ---------------------------------------------------------------- the writer


class _Writer:
    """Draws one comprehension from a seeded generator, keeping every value it writes."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.seed = seed

    # --- values of one kind

    def kind(self, allow_i64: bool = True) -> str:
        kinds = ["u64", "u64", "u64", "str", "f64", "bool"] + (["i64"] if allow_i64 else [])
        return self.rng.choice(kinds)

    def float_value(self) -> float:
        return self.rng.randint(-8, 12) / 4

    def float_text(self, value: float) -> str:
        return repr(float(value))

    def int_source(self, kind: str, *, nonempty: bool = False, lone: bool = False) -> tuple[str, list[int]]:
        """An integer source: a range (step, ``..=``), a list, a generator or a
        name of the scope; ``nonempty`` avoids empty ranges, ``lone`` lists of one."""
        rng = self.rng
        negative = kind == "i64"
        choice = rng.randrange(5 if not negative else 2)
        if choice == 4:
            # A name of the enclosing scope (see SCOPE), read when the traversal opens.
            return rng.choice([
                ("0..{lim}", list(range(SCOPE_LIMIT))),
                ("1..={lim} step 2", list(range(1, SCOPE_LIMIT + 1, 2))),
                ("{picks}", list(SCOPE_PICKS)),
                ("picks", list(SCOPE_PICKS)),
            ])
        if choice == 0:
            lo = rng.randint(-5, 0) if negative else rng.randint(0, 6)
            span = rng.randint(0 if not nonempty else 1, _MAX_AXIS)
            inclusive = rng.random() < 0.4
            step = rng.choice([None, None, 1, 2, 3])
            hi = lo + span - (1 if inclusive else 0)
            if negative and lo >= 0:
                lo = -1
            stop = hi + 1 if inclusive else hi
            values = list(range(lo, stop, step or 1))
            if nonempty and not values:
                return self.int_source(kind, nonempty=nonempty, lone=lone)
            text = f"{lo}..{'=' if inclusive else ''}{hi}" + (f" step {step}" if step else "")
            return text, values
        if choice == 1:
            count = rng.randint(1 if not lone else 2, 4)
            values = [rng.randint(-9 if negative else 0, 40) for _ in range(count)]
            if negative and all(v >= 0 for v in values):
                values[rng.randrange(count)] = -rng.randint(1, 9)
            return ", ".join(str(v) for v in values), values
        if choice == 2:
            n = rng.randint(1, 7)
            values, a, b = [], 1, 1
            for _ in range(n):
                values.append(a)
                a, b = b, a + b
            return f"fib({n})", values
        n = rng.randint(1, 6)
        return f"pow2({n})", [2**i for i in range(n)]

    def float_source(self, *, nonempty: bool = False, lone: bool = False) -> tuple[str, list[float]]:
        rng = self.rng
        choice = rng.randrange(3)
        if choice == 0:
            step = rng.choice([0.25, 0.5, 1.0])
            lo = self.float_value()
            n = rng.randint(1 if nonempty else 0, _MAX_AXIS)
            inclusive = rng.random() < 0.4
            hi = lo + step * (n - 1 if inclusive else n)
            values = []
            i = 0
            while (lo + i * step < hi) or (inclusive and lo + i * step == hi):
                values.append(lo + i * step)
                i += 1
            return f"{self.float_text(lo)}..{'=' if inclusive else ''}{self.float_text(hi)} step {step}", values
        if choice == 1:
            count = rng.randint(1 if not lone else 2, 4)
            values = [self.float_value() for _ in range(count)]
            # An integer among floats is a float: written bare now and then.
            texts = [str(int(v)) if v == int(v) and i and rng.random() < 0.3 else self.float_text(v)
                     for i, v in enumerate(values)]
            return ", ".join(texts), values
        n = rng.randint(2, 5)
        start = rng.randint(-3, 3)
        stride = rng.randint(1, 3)
        return f"linear_steps({start}, {start + stride * (n - 1)}, {n})", [float(start + stride * i) for i in range(n)]

    def word_source(self, *, lone: bool = False) -> tuple[str, list[str]]:
        rng = self.rng
        count = rng.randint(2, 4) if lone or rng.random() < 0.7 else 1
        values = [rng.choice(_WORDS) for _ in range(count)]
        if count == 1:
            return f"'{values[0]}'", values
        if rng.random() < 0.2:
            # A double-quoted string is split on commas, semicolons and blanks.
            separators = [rng.choice([", ", "; ", " ", ",", ";  "]) for _ in values[1:]]
            return '"' + values[0] + "".join(sep + v for sep, v in zip(separators, values[1:])) + '"', values
        if rng.random() < 0.3:
            values = [v + "-" + rng.choice(_WORDS) for v in values]
            return "[" + ", ".join(f'"{v}"' for v in values) + "]", values
        return ", ".join(values), values

    def source(self, kind: str, *, nonempty: bool = False, lone: bool = False) -> tuple[str, list[Value]]:
        if kind in ("u64", "i64"):
            return self.int_source(kind, nonempty=nonempty, lone=lone)
        if kind == "f64":
            return self.float_source(nonempty=nonempty, lone=lone)
        if kind == "bool":
            values = [self.rng.random() < 0.5 for _ in range(self.rng.randint(1, 3))]
            return ", ".join("true" if v else "false" for v in values), values
        return self.word_source(lone=lone)

    def zip_source(self, kind: str, mode: str, length: int | None) -> tuple[str, list[Value]]:
        """A source inside a tuple clause: a range, a generator or a parenthesized list."""
        rng = self.rng
        if length is not None or rng.random() < 0.5:
            n = length if length is not None else rng.randint(2, 5)
            if kind == "u64" and rng.random() < 0.4:
                lo = rng.randint(0, 5)
                return f"{lo}..{lo + n}", list(range(lo, lo + n))
            values = [self.source(kind, nonempty=True)[1][0] for _ in range(n)]
            if kind == "i64" and all(v >= 0 for v in values):
                values[0] = -1
            texts = [f'"{v}"' if kind == "str" and ("-" in v or rng.random() < 0.3) else
                     (self.float_text(v) if kind == "f64" else str(v).lower() if kind == "bool" else str(v))
                     for v in values]
            if mode != "strict" and rng.random() < 0.5:
                return "[" + ", ".join(texts) + "]", values
            return "(" + ", ".join(texts) + ")", values
        if kind == "str":
            return self.zip_source(kind, mode, 2)
        text, values = self.source(kind)
        if "," in text:
            return "(" + text + ")", values
        return text, values

    # --- clauses

    def clause(self, names: Sequence[str], types: dict[str, str], *, in_union: bool) -> Axis:
        rng = self.rng
        if len(names) == 1:
            (name,) = names
            text, values = self.source(types[name], nonempty=in_union)
            if types[name] == "f64":
                values = [float(v) for v in values]
            return Axis((name,), tuple((v,) for v in values), f"{name} in {text}")
        mode = rng.choice(["strict", "truncate", "cycle"])
        if mode == "strict":
            n = rng.randint(2, 4)
            sources = [self.zip_source(types[name], mode, n) for name in names]
        else:
            sources = [self.zip_source(types[name], mode, None) for name in names]
            if in_union:
                while any(not values for _, values in sources):
                    sources = [self.zip_source(types[name], mode, rng.randint(2, 4)) for name in names]
        columns = [[float(v) for v in values] if types[name] == "f64" else values
                   for name, (_, values) in zip(names, sources)]
        if mode == "strict":
            rows = list(zip(*columns, strict=True))
            inner = ", ".join(text for text, _ in sources)
        elif mode == "truncate":
            rows = list(zip(*columns))
            inner = f"zip_truncate({', '.join(text for text, _ in sources)})"
        else:
            longest = max(len(c) for c in columns)
            rows = [] if any(not c for c in columns) else [tuple(c[i % len(c)] for c in columns) for i in range(longest)]
            inner = f"zip_cycle({', '.join(text for text, _ in sources)})"
        return Axis(tuple(names), tuple(rows), f"({', '.join(names)}) in {inner}")

    def continuous_clause(self, name: str) -> Axis:
        rng = self.rng
        choice = rng.randrange(5)
        if choice == 0:
            lo = self.float_value()
            hi = lo + rng.choice([0.0, 0.5, 1.0, 2.5])
            inclusive = rng.random() < 0.5
            if hi == lo and not inclusive:
                hi = lo + 1.0  # `lo..lo` is refused: an empty interval
            return Axis((name,), None, f"{name} in {self.float_text(lo)}..{'=' if inclusive else ''}{self.float_text(hi)}",
                        (lo, hi), open_hi=not inclusive)
        if choice == 1:
            mean, sd = rng.randint(-3, 3), rng.choice([1, 2, 0.5])
            return Axis((name,), None, f"{name} in normal({mean}, {sd})", (-math.inf, math.inf))
        if choice == 2:
            rate = rng.choice([1, 2, 0.5])
            if rng.random() < 0.5:
                return Axis((name,), None, f"{name} in exponential({rate})", (0.0, math.inf))
            hi = rng.choice([1.0, 2.0, 0.5])
            return Axis((name,), None, f"{name} in exponential({rate}) on 0.0..{self.float_text(hi)}", (0.0, hi))
        if choice == 3:
            return Axis((name,), None, f"{name} in beta({rng.randint(1, 4)}, {rng.randint(1, 4)})", (0.0, 1.0))
        return Axis((name,), None, f"{name} in uniform01()", (0.0, 1.0))

    # --- predicates

    def atom(self, name: str, kind: str, values: list[Value], others: dict[str, str]) -> Predicate:
        rng = self.rng
        partner = [n for n, k in others.items() if k == kind and n != name and kind not in ("str", "bool")]
        if partner and rng.random() < 0.3:
            other = rng.choice(partner)
            op = rng.choice(["<", "<=", ">", ">=", "==", "!="])
            return Predicate(f"{{{name}}} {op} {{{other}}}", _compare(op, _read(name), _read(other)))
        if partner and rng.random() < 0.2:
            other = rng.choice(partner)
            pivot = (self.float_value() if kind == "f64" else rng.randint(0, 12))
            op = rng.choice(["<", ">=", "!="])
            text = self.float_text(pivot) if kind == "f64" else str(pivot)
            return Predicate(f"({{{name}}} + {{{other}}}) {op} {text}",
                             _compare(op, _sum(name, other), _constant(pivot)))
        if kind == "u64" and rng.random() < 0.15:
            # A bare word reads the enclosing scope (`lim` is SCOPE_LIMIT).
            op = rng.choice(["<", ">=", "=="])
            return Predicate(f"{{{name}}} {op} lim", _compare(op, _read(name), _constant(SCOPE_LIMIT)))
        if kind == "u64" and rng.random() < 0.4:
            modulus = rng.randint(2, 4)
            rest = rng.randrange(modulus)
            op = rng.choice(["==", "!="])
            return Predicate(f"{{{name}}} % {modulus} {op} {rest}",
                             _compare(op, _modulo(name, modulus), _constant(rest)))
        if kind == "bool":
            op, literal = rng.choice(["==", "!="]), rng.choice(["true", "false"])
            return Predicate(f"{{{name}}} {op} {literal}",
                             _compare(op, _read(name), _constant(literal == "true")))
        if kind == "str":
            word = rng.choice(values) if values and rng.random() < 0.7 else rng.choice(_WORDS)
            op = rng.choice(["==", "!="])
            return Predicate(f'{{{name}}} {op} "{word}"', _compare(op, _read(name), _constant(word)))
        pivot = rng.choice(values) if values and rng.random() < 0.8 else (self.float_value() if kind == "f64" else rng.randint(0, 9))
        if kind == "f64":
            pivot = float(pivot)
            text = self.float_text(pivot)
        else:
            text = str(pivot)
        op = rng.choice(["<", "<=", ">", ">=", "!="])
        return Predicate(f"{{{name}}} {op} {text}", _compare(op, _read(name), _constant(pivot)))

    def predicate(self, types: dict[str, str], values: dict[str, list[Value]]) -> Predicate:
        rng = self.rng
        atoms = [self.atom(name, types[name], values.get(name, []), types)
                 for name in rng.sample(list(types), min(len(types), rng.randint(1, 2)))]
        if len(atoms) == 1:
            pred = atoms[0]
        else:
            joiner = rng.choice(["&&", "||"])
            a, b = atoms
            test = (lambda t: a.test(t) and b.test(t)) if joiner == "&&" else (lambda t: a.test(t) or b.test(t))
            pred = Predicate(f"{a.text} {joiner} {b.text}", test)
        if rng.random() < 0.15:
            inner = pred
            pred = Predicate(f"!({inner.text})", lambda t: not inner.test(t))
        return pred

    # --- orders

    def order(self, *, sampling: bool) -> OrderSpec:
        rng = self.rng
        strategy = rng.choice(_SAMPLING_ORDERS if sampling else _LATTICE_ORDERS + _SAMPLING_ORDERS)
        count = rng.randint(1, 12) if sampling or rng.random() < 0.5 else None
        seed = rng.randint(0, 99) if strategy in _SEEDED_ORDERS and rng.random() < 0.5 else None
        if seed is not None:
            text = f"order {strategy}(seed={seed}" + (f", n={count})" if count is not None else ")")
        else:
            text = f"order {strategy}" + (f"/{count}" if count is not None else "")
        return OrderSpec(strategy, count, seed, text)

    # --- a whole comprehension

    def draw(self) -> FuzzComprehension:
        rng = self.rng
        shape = rng.random()
        if shape < 0.15:
            return self.draw_union()
        continuous = shape > 0.85
        clause_count = rng.randint(1, 3)
        names = list(rng.sample(_NAMES, 3 + clause_count))
        types: dict[str, str] = {}
        axes: list[Axis] = []
        values: dict[str, list[Value]] = {}
        sampled_at = rng.randrange(clause_count) if continuous else -1
        for index in range(clause_count):
            if index == sampled_at:
                name = names.pop()
                types[name] = "f64"
                axis = self.continuous_clause(name)
            else:
                width = 2 if rng.random() < 0.25 else 1
                group = [names.pop() for _ in range(width)]
                for name in group:
                    types[name] = self.kind()
                axis = self.clause(group, types, in_union=False)
                for i, name in enumerate(group):
                    values[name] = [row[i] for row in axis.rows or ()]
            axes.append(axis)
        where = self.predicate(types, values) if rng.random() < 0.4 else None
        order = self.order(sampling=True) if continuous else (self.order(sampling=False) if rng.random() < 0.6 else None)
        unbounded = any(a.interval is not None and math.isinf(a.interval[1]) for a in axes)
        while order is not None and order.strategy == "extrema" and unbounded:
            order = self.order(sampling=True)  # extrema over an unbounded measure is refused: no finite ends
        text = ", ".join(axis.text for axis in axes)
        text += (f" where {where.text}" if where else "") + (f" {order.text}" if order else "")
        derived = self.predicate(types, values) if rng.random() < 0.5 else None
        return FuzzComprehension(self.seed, text, tuple(types), types, tuple(axes), where, order, derived=derived)

    def draw_union(self) -> FuzzComprehension:
        rng = self.rng
        names = rng.sample(_NAMES, rng.randint(1, 2))
        types = {name: self.kind(allow_i64=False) for name in names}
        members: list[tuple[str, list[Row]]] = []
        values: dict[str, list[Value]] = {name: [] for name in names}
        for _ in range(rng.randint(2, 3)):
            if len(names) == 2 and rng.random() < 0.4:
                axes = [self.clause(names, types, in_union=True)]
            else:
                axes = [self.clause([name], types, in_union=True) for name in names]
            rows = _product(axes)
            text = ", ".join(axis.text for axis in axes)
            member_where = None
            if rng.random() < 0.3:
                local = {name: [row[i] for row in rows] for i, name in enumerate(names)}
                member_where = self.predicate(types, local)
                text += f" where {member_where.text}"
            member_order = None
            if rng.random() < 0.25:
                strategy = rng.choice(_LATTICE_ORDERS + ("extrema",))
                count = rng.randint(1, 6) if rng.random() < 0.5 else None
                member_order = OrderSpec(strategy, count, None, f"order {strategy}" + (f"/{count}" if count else ""))
                text += f" {member_order.text}"
            member = FuzzComprehension(self.seed, text, tuple(names), types, tuple(axes), member_where, member_order)
            rows = expected_tuples(member) or []
            for i, name in enumerate(names):
                values[name] += [row[i] for row in rows]
            members.append((f"for {text}", rows))
        trailing = "," if rng.random() < 0.2 else ""
        text = "[" + ", ".join(t for t, _ in members) + trailing + "]"
        axis = Axis(tuple(names), tuple(row for _, rows in members for row in rows), text)
        where = self.predicate(types, values) if rng.random() < 0.3 else None
        order = self.order(sampling=False) if rng.random() < 0.5 else None
        text += (f" where {where.text}" if where else "") + (f" {order.text}" if order else "")
        derived = self.predicate(types, values) if rng.random() < 0.5 else None
        return FuzzComprehension(self.seed, text, tuple(names), types, (axis,), where, order, union=True,
                                 derived=derived)


Term = Callable[[dict[str, Value]], Value]


def _read(name: str) -> Term:
    return lambda t: t[name]


def _constant(value: Value) -> Term:
    return lambda t: value


def _sum(a: str, b: str) -> Term:
    return lambda t: t[a] + t[b]


def _modulo(name: str, modulus: int) -> Term:
    return lambda t: t[name] % modulus


def _compare(op: str, left: Callable[[dict[str, Value]], Value], right: Callable[[dict[str, Value]], Value]
             ) -> Callable[[dict[str, Value]], bool]:
    ops: dict[str, Callable[[Value, Value], bool]] = {
        "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
        ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
    }
    fn = ops[op]
    return lambda t: fn(left(t), right(t))


def comprehension(seed: int) -> FuzzComprehension:
    """The comprehension of ``seed`` (the same text for the same seed)."""
    return _Writer(seed).draw()


# ---------------------------------------------------------------- the oracle


def _product(axes: Sequence[Axis]) -> list[Row]:
    rows: list[Row] = [()]
    for axis in axes:
        rows = [row + extra for row in rows for extra in (axis.rows or ())]
    return rows


def _lattice(drawn: FuzzComprehension) -> list[tuple[Row, tuple[int, ...]]]:
    """Every tuple of the lattice (natural order, first axis slowest) with its indexes."""
    cells: list[tuple[Row, tuple[int, ...]]] = [((), ())]
    for axis in drawn.axes:
        rows = axis.rows or ()
        cells = [(row + extra, index + (i,)) for row, index in cells for i, extra in enumerate(rows)]
    return cells


def expected_tuples(drawn: FuzzComprehension) -> list[Row] | None:
    """The tuples the oracle knows exactly, in order, for a discrete
    comprehension whose order has a documented deterministic rule (none,
    ``lex``, ``reverse_lex``, ``diagonal``, ``antidiagonal``, ``shells``,
    ``extrema``); ``None`` for the others."""
    if drawn.continuous:
        return None
    lengths = [len(axis.rows or ()) for axis in drawn.axes]
    cells = [(row, index) for row, index in _lattice(drawn)
             if drawn.where is None or drawn.where.test(dict(zip(drawn.names, row)))]
    order = drawn.order
    natural = list(range(len(cells)))
    if order is None or order.strategy == "lex":
        ranked = natural
    elif order.strategy == "reverse_lex":
        ranked = natural[::-1]
    elif order.strategy in ("diagonal", "antidiagonal"):
        sign = 1 if order.strategy == "diagonal" else -1
        ranked = sorted(natural, key=lambda i: (sign * sum(cells[i][1]), i))
    elif order.strategy == "shells":
        # Chebyshev distance from the center, doubled to stay integral.
        ranked = sorted(natural, key=lambda i: (-max((abs(2 * x - (n - 1)) for x, n in zip(cells[i][1], lengths)),
                                                     default=0), i))
    elif order.strategy == "extrema":
        def stratum(i: int) -> int:
            return sum(1 for x, n in zip(cells[i][1], lengths) if 0 < x < n - 1)
        ranked = sorted(natural, key=lambda i: (stratum(i), i))
        if order.count is not None:
            return [cells[i][0] for i in ranked if stratum(i) < order.count]
        return [cells[i][0] for i in ranked]
    else:
        return None
    rows = [cells[i][0] for i in ranked]
    return rows if order is None or order.count is None else rows[: order.count]


def _unordered(drawn: FuzzComprehension) -> list[Row]:
    return [row for row, _ in _lattice(drawn)
            if drawn.where is None or drawn.where.test(dict(zip(drawn.names, row)))]


def oracle_failures(drawn: FuzzComprehension, got: list[Row]) -> list[str]:
    """What ``got`` (the tuples a surface dispensed) breaks of the documented rules."""
    failures: list[str] = []
    order = drawn.order
    if drawn.continuous:
        assert order is not None and order.count is not None
        if order.strategy != "extrema" and len(got) > order.count:
            failures.append(f"{len(got)} draws, more than the count {order.count}")
        for row in got:
            env = dict(zip(drawn.names, row))
            for axis in drawn.axes:
                if axis.rows is None:
                    (name,) = axis.names
                    value = env[name]
                    lo, hi = axis.interval or (-math.inf, math.inf)
                    inside = lo <= value < hi if axis.open_hi else lo <= value <= hi
                    if not (isinstance(value, float) and math.isfinite(value) and inside):
                        bracket = ")" if axis.open_hi else "]"
                        failures.append(f"draw {name}={value!r} is not a finite value in [{lo}, {hi}{bracket}")
                elif tuple(env[n] for n in axis.names) not in axis.rows:
                    failures.append(f"{row!r} has a value that {axis.text!r} does not give")
            if drawn.where is not None and not drawn.where.test(env):
                failures.append(f"{row!r} does not pass `where {drawn.where.text}`")
        return failures[:5]
    exact = expected_tuples(drawn)
    if exact is not None:
        if got != exact:
            failures.append(f"tuples {got!r}\n      expected {exact!r}")
        return failures
    assert order is not None
    full = _unordered(drawn)
    counted = Counter(got)
    if order.strategy == "shuffle":
        if order.count is None:
            if counted != Counter(full):
                failures.append(f"shuffle is not a permutation: {got!r} of {full!r}")
        elif len(got) != min(order.count, len(full)) or counted - Counter(full):
            failures.append(f"shuffle/{order.count} gave {got!r} of {full!r}")
    elif order.strategy in ("halton", "sobol"):
        if counted - Counter(full):
            failures.append(f"{order.strategy} gave tuples not in the space (or twice): {got!r} of {full!r}")
        if order.count is not None and len(got) > order.count:
            failures.append(f"{order.strategy}/{order.count} gave {len(got)} tuples")
    elif order.strategy == "lhs":
        outside = [row for row in got if row not in set(full)]
        if outside:
            failures.append(f"lhs gave tuples not in the space: {outside!r} of {full!r}")
        limit = order.count if order.count is not None else len(_lattice(drawn))
        if len(got) > limit:
            failures.append(f"lhs gave {len(got)} tuples, more than {limit}")
    return failures


# ---------------------------------------------------------------- the check


@dataclass
class Checked:
    """What one seed's comprehension did on every surface."""

    drawn: FuzzComprehension
    tuples: list[Row] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def report(self) -> str:
        lines = [f"seed {self.drawn.seed}: {len(self.failures)} failure(s)",
                 f"comprehension: {self.drawn.text}", "program:", self.drawn.program().rstrip()]
        lines += [f"  - {f}" for f in self.failures]
        lines.append(f"rerun: python -m polydat.testing.fuzz.comprehensions --seed {self.drawn.seed}")
        return "\n".join(lines)


def _rows(activations: Any) -> list[Row]:
    return [tuple(a.iteration.values()) for a in activations]


WORKLOAD_EVERY = 8
"""One seed in this many also runs its comprehension as a workload phase's ``for_each``."""


def _workload_failures(drawn: FuzzComprehension, tuples: list[Row]) -> list[str]:
    """A workload phase over the comprehension emits the same tuples as the statement."""
    from polydat.workload import Workload

    spec = {
        "params": {"lim": SCOPE_LIMIT, "picks": ",".join(map(str, SCOPE_PICKS))},
        "phases": {"fuzz": {"for_each": drawn.text, "bindings": "one := 1", "emit": list(drawn.names)}},
    }
    rows = [tuple(row[name] for name in drawn.names) for row in Workload.from_dict(spec).table("fuzz").to_pylist()]
    return [] if rows == tuples else [f"the workload phase emitted {rows!r}, the statement {tuples!r}"]


def check(seed: int, engines: Sequence[str] = ENGINES) -> Checked:
    """Opens the comprehension of ``seed`` on every surface and engine and
    lists every property it breaks (see the module)."""
    drawn = comprehension(seed)
    return check_drawn(drawn, engines)


def check_drawn(drawn: FuzzComprehension, engines: Sequence[str] = ENGINES) -> Checked:
    """:func:`check` of a comprehension already drawn."""
    import polydat
    from polydat.dsl.formatter import format_source

    result = Checked(drawn)
    fail = result.failures.append
    source = drawn.program()
    outputs = drawn.outputs()
    reference: list[tuple[Row, tuple[Value, ...]]] | None = None
    try:
        for engine in engines:
            kernel = polydat.compile(source, engine=engine).kernel()
            kernel.set_inputs(0)
            statement = [(tuple(a.iteration.values()), tuple(a.pull(o) for o in outputs)) for a in kernel.traverse(0)]
            if reference is None:
                reference = statement
                result.tuples = [row for row, _ in statement]
                produced = _rows(kernel.traverse(1))
                if produced != result.tuples:
                    fail(f"the producer's traversal {produced!r} differs from the statement's {result.tuples!r}")
                body = drawn.body()
                backwards = _rows(kernel.traverse(2))
                if backwards != result.tuples[::-1]:
                    fail(f"`for rows order reverse_lex` gave {backwards!r}, not the reverse of {result.tuples!r}")
                if drawn.derived is not None:
                    sub = _rows(kernel.for_each(kernel.pull("sub"), "one := 1"))
                    kept = [row for row in result.tuples if drawn.derived.test(dict(zip(drawn.names, row)))]
                    if sub != kept:
                        fail(f"`sub := for rows where {drawn.derived.text}` gave {sub!r}, not {kept!r}")
                for label, text in (("the comprehension", drawn.text), ("the producer's value", kernel.pull("rows"))):
                    for attempt in range(2):
                        opened = _rows(kernel.for_each(text, body))
                        if opened != result.tuples:
                            fail(f"for_each({label}) opening {attempt + 1} gave {opened!r}, the statement {result.tuples!r}")
                # Stages written after the comprehension act on what it dispenses.
                keep = 1 + drawn.seed % 3
                for stage, want in ((" order reverse_lex", result.tuples[::-1]),
                                    (f" order lex/{keep}", result.tuples[:keep])):
                    staged = _rows(kernel.for_each(drawn.text + stage, "one := 1"))
                    if staged != want:
                        fail(f"for_each(comprehension + {stage.strip()!r}) gave {staged!r}, not {want!r}")
                if drawn.seed % WORKLOAD_EVERY == 0:
                    result.failures += _workload_failures(drawn, result.tuples)
            elif statement != reference:
                fail(f"engine {engine} gave {statement!r}\n      p1 gave {reference!r}")
        formatted = format_source(source)
        if format_source(formatted) != formatted:
            fail(f"formatting twice differs:\n{formatted}\n---\n{format_source(formatted)}")
        kernel = polydat.compile(formatted, engine=engines[0]).kernel()
        kernel.set_inputs(0)
        again = [(tuple(a.iteration.values()), tuple(a.pull(o) for o in outputs)) for a in kernel.traverse(0)]
        if again != reference:
            fail(f"the formatted program gives {again!r}, the program {reference!r}")
    except polydat.PolydatError as err:
        fail(f"refused: {type(err).__name__}: {err}")
        return result
    result.failures += oracle_failures(drawn, result.tuples)
    return result


def main(argv: list[str] | None = None) -> int:
    """``python -m polydat.testing.fuzz.comprehensions --seed N`` (or ``--seeds A:B``)."""
    parser = argparse.ArgumentParser(prog="python -m polydat.testing.fuzz.comprehensions",
                                     description="Checks random comprehensions on every surface and engine.")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--seed", type=int, help="check one seed and print its comprehension and program")
    group.add_argument("--seeds", help="check a range of seeds, START:STOP")
    args = parser.parse_args(argv)
    if args.seed is not None:
        result = check(args.seed)
        print(result.report())
        print("tuples:", result.tuples)
        return 1 if result.failures else 0
    start, _, stop = args.seeds.partition(":")
    failed = [r for r in (check(s) for s in range(int(start), int(stop))) if r.failures]
    for r in failed:
        print(r.report(), end="\n\n")
    print(f"{int(stop) - int(start)} seeds, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
