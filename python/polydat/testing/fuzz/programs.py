"""Random well-typed programs written from the node catalog.

:func:`program` turns a seed into a :class:`FuzzProgram`: a DSL source that
calls nodes picked from the whole catalog (``polydat.catalog()``, internal
nodes included), wired from coordinates, externs of every port type,
``const`` bindings, literals and earlier bindings, with operators, ``if``,
casts, interpolated strings and tiles among the calls. A node's constants
and argument counts come from its catalog entry's ``testing`` metadata (the
core's ``NodeDef::testing``: samples, variadic bounds, the constant that
decides a wire count, a hand-written corner call whose variables this
module fills); the conversions ``as`` accepts come from the core
(:func:`polydat.dsl.corerules.conversions`). Nothing here reuses the
hypothesis program strategy of :mod:`polydat.testing`, so the two
generators miss different things.

The constructs the known defects (:mod:`.known`) are about are written only
as their entries allow.

Usage::

    from polydat.testing.fuzz.programs import program

    p = program(17)          # the same program for the same seed, always
    print(p.source)
    p.externs                # {name: type}
"""

from __future__ import annotations

import random
import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from ...dsl import corerules
from ..catalog import catalog_entries, const_value

__all__ = ["PORT_TYPES", "FuzzProgram", "Term", "program", "callable_entries", "generated_nodes"]

PORT_TYPES = (
    "u64", "i64", "u32", "i32", "u16", "i16", "u8", "i8", "u128", "i128", "f64", "f32", "f16", "bool", "str", "bytes",
    "json", "date", "timestamp", "vec_i32", "vec_i64", "vec_f64",
)
"""The wire types the generator carries: every type a catalog port has."""

_NUMERIC_FAMILIES = ("u64", "i64", "f64", "u128", "i128")
_DEFAULTABLE = {"u64", "u32", "f64", "f32", "str", "bool", "timestamp", "vec_i32", "vec_i64", "vec_f64"}
"""Extern types whose declaration takes a literal default."""

_TIME_BOUND = 1 << 40
"""Most u64 values cast to dates and timestamps are taken below this, so
most such values are valid instants (the rest, any value, reach NaT and
days out of range)."""
_SIZE_BOUND = 64
"""A size-like wire of a synthesized call is taken modulo this: programs
whose values fit the test machine (running out of memory is the subject of
tests/test_out_of_memory.py)."""

_BUILT_BY_SYNTAX = {
    "__lit": "a literal",
    "__const_capture": "a const binding",
    "__tile": "a tile declaration",
    "__printf_words": "an interpolated string over word-list calls, fused",
    "__pick_entry": "a text map over a word-list call, fused",
    "__pick_either": "an if between two word-list calls, fused",
}
"""Internal nodes the generator reaches through syntax rather than a call."""

_ANY_NARROWED = {("__cursor_slice", "over"): ("str", "json")}
"""`any` parameters whose node takes fewer types than the signature says (the
node's own check refuses the rest at compile time)."""

_TEMPLATE_VARS = {"a": "u64", "b": "u64", "c": "u64", "x": "f64", "y": "f64", "z": "f64", "s": "str", "t": "str", "e": "u64"}
"""The variables of a catalog corner call (``NodeDef::testing``'s ``corner_call``) and their types."""

_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[A-Za-z_][A-Za-z0-9_]*')

_CONST_POOL: dict[str, tuple[Any, ...]] = {
    "u64": (0, 1, 2, 3, 5, 7, 10, 16, 64, 100, 1000, 4096),
    "f64": (0.0, 1.0, -1.0, 0.5, 2.5, -0.0, 0.25, 10.0, 1e6, -3.75, 1e-9),
    "str": ("a", "", "hello", "x y", "é", "日本", "k,v", "A-Z"),
    "bool": (True, False),
}
"""Constants for parameters whose catalog entry lists no samples."""

_DATA_DIR = Path(__file__).resolve().parents[1] / "data"


@dataclass(frozen=True)
class Term:
    """A value a new expression may read: its text (a name or a parenthesized
    expression), its type, and what is known about it."""

    text: str
    type: str
    total: bool = False
    """Never fails and is never None (an `if` branch may read it)."""
    varying: bool = True
    """Depends on a coordinate (not evaluated while compiling)."""
    tainted: bool = False
    """Depends on a nondeterministic node (compared by type only)."""


@dataclass
class FuzzProgram:
    """One generated program and what the oracle needs to drive it."""

    seed: int
    source: str
    coordinates: tuple[str, ...]
    externs: dict[str, str]
    """Every extern: name → type."""
    defaults: frozenset[str]
    """The externs declared with a default."""
    tainted: frozenset[str]
    """Bindings whose values may differ between runs (compared by type)."""
    emits: bool
    """Whether an ``emit_row`` binding is in the program."""
    called: frozenset[str]
    """The catalog nodes the generator called or wrote syntax for."""
    types: frozenset[str] = field(default_factory=frozenset)
    """The port types the program's terms carry."""


@lru_cache(maxsize=1)
def callable_entries() -> tuple[dict[str, Any], ...]:
    """The catalog entries the generator calls by name: every node except
    adapters (reached by casts) and the internals written by syntax."""
    return tuple(
        e for e in catalog_entries()
        if e.get("category") != "adapter" and e["name"] not in _BUILT_BY_SYNTAX
    )


@lru_cache(maxsize=1)
def _explicit_conversions() -> dict[str, tuple[str, ...]]:
    table: dict[str, list[str]] = {}
    for source, target in corerules.conversions(implicit=False):
        table.setdefault(source, []).append(target)
    return {k: tuple(v) for k, v in table.items()}


@lru_cache(maxsize=1)
def _implicit_conversions() -> frozenset[tuple[str, str]]:
    """The (source, target) pairs the core converts implicitly: every value converts."""
    return frozenset(corerules.conversions(implicit=True))


def _filled(value: Any) -> Any:
    if isinstance(value, str):
        return value.replace("{data}", str(_DATA_DIR)).replace("{tmp}", tempfile.gettempdir())
    return value


def literal(value: Any, type_name: str) -> str:
    """``value`` as a DSL literal of ``type_name`` (u64, f64, str or bool)."""
    if type_name == "f64":
        text = repr(float(value))
        return text if any(ch in text for ch in ".e") else text + ".0"
    if type_name == "str":
        escaped = str(value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        return f'"{escaped}"'
    if type_name == "bool":
        return "true" if value else "false"
    return str(int(value))


class _Writer:
    """Writes one program's bindings from a seeded random number generator."""

    def __init__(self, rng: random.Random, size: int):
        self.rng = rng
        self.size = size
        self.lines: list[str] = []
        self.terms: list[Term] = []
        self.counter = 0
        self.called: set[str] = set()
        self.types: set[str] = set()
        self.tainted: set[str] = set()
        self.emits = False
        self.variadic_consts = 0
        """How many variadic constants the last synthesized call took."""

    # -- names and terms -------------------------------------------------------

    def fresh(self, stem: str = "n") -> str:
        self.counter += 1
        return f"{stem}{self.counter}"

    def bind(self, text: str, term: Term, stem: str = "n") -> Term:
        name = self.fresh(stem)
        self.lines.append(f"{name} := {text}")
        bound = Term(name, term.type, term.total, term.varying, term.tainted)
        self.keep(bound)
        return bound

    def keep(self, term: Term) -> None:
        self.terms.append(term)
        self.types.add(term.type)
        if term.tainted:
            self.tainted.add(term.text)

    def pick(self, type_name: str, *, total: bool = False, varying: bool | None = None) -> Term | None:
        found = [
            t for t in self.terms
            if t.type == type_name and (t.total or not total) and (varying is None or t.varying == varying)
        ]
        if not found:
            return None
        # recent terms a little more often: deeper chains
        return found[-1] if self.rng.random() < 0.3 else self.rng.choice(found)

    def operand(self, type_name: str, *, total: bool = False, depth: int = 0) -> Term:
        """A term of ``type_name``: a bound one, a cast of one, or a literal."""
        rng = self.rng
        if type_name == "any":
            type_name = rng.choice(PORT_TYPES)
        roll = rng.random()
        if roll < 0.65:
            found = self.pick(type_name, total=total, varying=True if rng.random() < 0.8 else None)
            if found is not None:
                return found
        if roll < 0.8 and type_name in ("u64", "f64", "str", "bool"):
            return self.literal_term(type_name)
        if type_name.startswith("vec_"):
            return self.list_term(type_name)
        cast = self.cast_to(type_name, total=total, depth=depth)
        if cast is not None:
            return cast
        if type_name in ("u64", "f64", "str", "bool"):
            return self.literal_term(type_name)
        raise AssertionError(f"no way to make a {type_name}")

    def varying_operand(self, type_name: str) -> Term:
        """A term of ``type_name`` that depends on a coordinate (so a failure
        happens while the program runs, not while constants are folded)."""
        found = self.pick(type_name, varying=True)
        if found is None or self.rng.random() < 0.2:
            found = self.cast_to(type_name, total=False, depth=0) or found
        return found or self.operand(type_name)

    def named(self, type_name: str) -> Term:
        """A bound term of ``type_name`` (bound now when only an expression would do)."""
        term = self.operand(type_name)
        return term if term.text.isidentifier() else self.bind(term.text, term)

    def literal_term(self, type_name: str) -> Term:
        rng = self.rng
        if type_name == "u64":
            value: Any = rng.choice((0, 1, 2, 3, 7, 100, 2**32, 2**63, 2**64 - 1, rng.randrange(1000)))
        elif type_name == "f64":
            value = rng.choice((0.0, -0.0, 1.0, -2.5, 0.1, 1e300, -1e-300, rng.uniform(-1e3, 1e3)))
        elif type_name == "str":
            value = rng.choice(("", "a", "abc", "é日", "1", "-7", "3.5", "x y", "true", '{"k": 1}', "YWJj"))
        else:
            value = rng.random() < 0.5
        return Term(literal(value, type_name), type_name, total=True, varying=False)

    def list_term(self, type_name: str) -> Term:
        """A list of ``type_name`` (``vec_i32``, ...) parsed from an
        interpolated JSON array of bound u64 terms taken modulo 100 (so it
        always parses), at most four elements, a repeat among them now and
        then (the set nodes' subject); or its empty literal."""
        rng = self.rng
        if rng.random() < 0.1:
            return Term(f'str_to_{type_name}("[]")', type_name, total=True, varying=False)
        # bound names only: an expression's text may hold quotes
        names = [t for t in self.terms if t.type == "u64" and t.total and t.varying and t.text.isidentifier()]
        parts = [rng.choice(names) if names else Term("cycle", "u64", total=True) for _ in range(rng.randint(1, 4))]
        if rng.random() < 0.3:
            parts.append(rng.choice(parts))
        inner = ", ".join(f"{{{p.text} % 100}}" for p in parts)
        text = f'str_to_{type_name}("[{inner}]")'
        return Term(text, type_name, total=True, varying=True, tainted=any(p.tainted for p in parts))

    def cast_to(self, target: str, *, total: bool, depth: int) -> Term | None:
        """``(source as target)`` for a bound source the core converts to ``target``."""
        rng = self.rng
        if target in ("date", "timestamp") and rng.random() < 0.7:  # else any source: NaT and far days too
            other = "timestamp" if target == "date" else "date"
            found = self.pick(other, total=total, varying=True)
            if found is not None and rng.random() < 0.4:
                return Term(f"({found.text} as {target})", target, found.total, found.varying, found.tainted)
            base = self.pick("u64", total=total, varying=True) or Term("cycle", "u64", total=True)
            bounded = f"({base.text} % {_TIME_BOUND})"
            if rng.random() < 0.3:
                # through the signed type the core also converts from (small values: no NaT)
                signed = "i64" if target == "timestamp" else "i32"
                bounded = f"(({base.text} % 40000) as {signed})"
            return Term(f"({bounded} as {target})", target, base.total, base.varying, base.tainted)
        sources = [s for s, targets in _explicit_conversions().items() if target in targets]
        rng.shuffle(sources)
        for source in sources:
            if total and source in ("str", "bytes", "json"):
                continue  # a parse may fail
            found = self.pick(source, total=total, varying=True)
            if found is not None:
                exact = (source, target) in _implicit_conversions()  # else a value may be out of range
                if total and not exact:
                    continue
                return Term(f"({found.text} as {target})", target, found.total and exact, found.varying, found.tainted)
        if depth < 2 and target == "f32":
            inner = self.pick("f64", total=total, varying=True) or self.cast_to("f64", total=total, depth=depth + 1)
            if inner is None:
                return None
            return Term(f"({inner.text} as f32)", "f32", inner.total, inner.varying, inner.tainted)
        if depth < 2 and target == "f16" and not total:
            inner = self.pick("f64", total=total, varying=True) or self.cast_to("f64", total=total, depth=depth + 1)
            if inner is None:
                return None
            # A finite f64 past f16's range (65504) fails the cast: not total.
            return Term(f"({inner.text} as f16)", "f16", False, inner.varying, inner.tainted)
        if depth < 2:
            base = self.pick("u64", total=total, varying=True) or Term("cycle", "u64", total=True)
            if target in _explicit_conversions().get("u64", ()):
                if total and ("u64", target) not in _implicit_conversions():
                    # a value below 100 fits every type u64 converts to (i8 included)
                    return Term(f"(({base.text} % 100) as {target})", target, base.total, base.varying, base.tainted)
                exact = ("u64", target) in _implicit_conversions()
                return Term(f"({base.text} as {target})", target, base.total and exact, base.varying, base.tainted)
        return None

    # -- constructs ------------------------------------------------------------

    def statement(self, entries: Sequence[Mapping[str, Any]]) -> None:
        rng = self.rng
        roll = rng.random()
        if roll < 0.58:
            self.call(rng.choice(entries))
        elif roll < 0.70:
            self.operator()
        elif roll < 0.76:
            self.conditional()
        elif roll < 0.88:
            self.cast_statement()
        elif roll < 0.93:
            self.interpolation()
        elif roll < 0.96:
            self.tile()
        else:
            self.const_binding()

    def cast_statement(self) -> None:
        """A bound term converted to a type the core converts it to (every pair reachable)."""
        rng = self.rng
        candidates = [t for t in self.terms if t.varying] or self.terms
        source_type = rng.choice(sorted({t.type for t in candidates}))  # types evenly, not terms
        source = rng.choice([t for t in candidates if t.type == source_type])
        targets = _explicit_conversions().get(source.type, ())
        if not targets:
            return
        target = rng.choice(targets)
        if target in ("date", "timestamp") and source.type not in ("date", "timestamp") and rng.random() < 0.7:
            cast = self.cast_to(target, total=False, depth=0)
        else:
            cast = Term(f"({source.text} as {target})", target, False, source.varying, source.tainted)
        if cast is not None:
            self.bind(cast.text, cast)

    def operator(self) -> None:
        rng = self.rng
        if rng.random() < 0.15:
            self.calendar_operator()
            return
        family = rng.choice(_NUMERIC_FAMILIES)
        if rng.random() < 0.12 and family != "u128":  # `-` of a u128 is an f64, `!` is over u64 only
            unary = "-" if family != "u64" else "!"
            a = self.operand(family)
            self.bind(f"{unary}{a.text}", Term("", family, a.total, a.varying, a.tainted))
            return
        ops = ["+", "-", "*", "/", "%", "==", "!=", "<", ">", "<=", ">=", "&&", "||"]
        if family == "u64":
            ops += ["&", "|", "^", "<<", ">>"]
        if family == "f64":
            ops += ["**"]
        op = rng.choice(ops)
        a = self.operand(family)
        b = self.operand(family)
        if op in ("==", "!=", "<", ">", "<=", ">=", "&&", "||"):
            result = "u64"
        else:
            result = "f64" if op == "**" else family
        # integer operators wrap; `/` and `%` by a non-zero divisor never fail
        total = a.total and b.total and (family not in ("i64", "i128") or op not in ("/", "%"))
        self.bind(f"{a.text} {op} {b.text}", Term("", result, total, a.varying or b.varying, a.tainted or b.tainted))

    def calendar_operator(self) -> None:
        """An operator over a date or a timestamp: a count added or
        subtracted (days, milliseconds), two subtracted, or compared."""
        rng = self.rng
        kind = rng.choice(("date", "timestamp"))
        a = self.operand(kind)
        form = rng.choice(("add", "add_first", "sub", "diff", "cmp"))
        if form in ("add", "add_first", "sub"):
            n = self.operand(rng.choice(("i64", "i64", "u64", "i32")))
            op = "-" if form == "sub" else "+"
            text = f"{n.text} + {a.text}" if form == "add_first" else f"{a.text} {op} {n.text}"
            # a result past the type's range fails the row
            self.bind(text, Term("", kind, False, a.varying or n.varying, a.tainted or n.tainted))
            return
        b = self.operand(rng.choice((kind, kind, "date" if kind == "timestamp" else "timestamp")))
        tainted, varying = a.tainted or b.tainted, a.varying or b.varying
        if form == "diff":
            # days never leave i64; milliseconds may
            total = a.total and b.total and kind == "date" and b.type == "date"
            self.bind(f"{a.text} - {b.text}", Term("", "i64", total, varying, tainted))
            return
        op = rng.choice(("==", "!=", "<", ">", "<=", ">="))
        self.bind(f"{a.text} {op} {b.text}", Term("", "u64", a.total and b.total, varying, tainted))

    def conditional(self) -> None:
        rng = self.rng
        cond = self.operand(rng.choice(("u64", "bool")))
        kind = rng.choice(("u64", "f64", "str", "i64", "bool"))
        a = self.operand(kind)
        b = self.operand(kind)
        self.bind(
            f"if {cond.text} {{ {a.text} }} else {{ {b.text} }}",
            Term("", kind, cond.total and a.total and b.total, True, cond.tainted or a.tainted or b.tainted),
        )

    def interpolation(self) -> None:
        rng = self.rng
        parts = []
        tainted = varying = False
        for _ in range(rng.randint(1, 3)):
            if rng.random() < 0.3:
                word = rng.choice(("first_names", "last_names", "city_names", "state_codes", "lorem_words"))
                arg = self.varying_operand("u64")
                varying |= arg.varying
                tainted |= arg.tainted
                parts.append(f"{{{word}({arg.text})}}")
            else:
                t = self.named(rng.choice(PORT_TYPES))
                tainted |= t.tainted
                varying |= t.varying
                parts.append(f"{{{t.text}}}")
        text = rng.choice(("", "id-", "é ")) + rng.choice(("-", " ", "/", "")).join(parts)
        self.bind(f'"{text}"', Term("", "str", False, varying, tainted))

    def tile(self) -> None:
        rng = self.rng
        fields = []
        tainted = varying = False
        for i in range(rng.randint(1, 3)):
            t = self.named(rng.choice(("u64", "f64", "str", "bool", "i64")))
            tainted |= t.tainted
            varying |= t.varying
            hole = f'"${{{t.text}}}"' if t.type == "str" else f"${{{t.text}}}"
            fields.append(f'"f{i}": {hole}')
        name = self.fresh("doc")
        self.lines.append(f"tile {name} : json := {{{', '.join(fields)}}}")
        self.keep(Term(name, "str", False, varying, tainted))  # a tile renders text

    def const_binding(self) -> None:
        constants = [t for t in self.terms if not t.varying and not t.tainted and t.text.isidentifier()]
        if not constants:
            return
        base = self.rng.choice(constants)
        name = self.fresh("c")
        if base.type == "u64" and self.rng.random() < 0.5:
            self.lines.append(f"const {name} := hash({base.text})")
        else:
            self.lines.append(f"const {name} := {base.text}")
        self.keep(Term(name, base.type, False, False, False))

    # -- node calls ------------------------------------------------------------

    def call(self, entry: Mapping[str, Any]) -> None:
        testing = entry.get("testing") or {}
        corner = testing.get("corner_call")
        self.called.add(entry["name"])
        if corner and (not testing.get("random", True) or self.rng.random() < 0.6):
            text, arg_types = self.template(_filled(corner))
        else:
            text, arg_types = self.synthesized(entry, bounded=bool(corner))
        nondeterministic = entry.get("purity") == "nondeterministic"
        tainted = nondeterministic or any(t.tainted for t in arg_types)
        varying = any(t.varying for t in arg_types) or nondeterministic
        outputs = self.output_types(entry, arg_types)
        if entry["name"] == "emit_row":
            self.emits = True
        if len(outputs) == 1:
            (out_type,) = outputs
            name = self.fresh("n")
            self.lines.append(f"{name} := {text}")
            if out_type is not None:
                self.keep(Term(name, out_type, False, varying, tainted))
            elif tainted:
                self.tainted.add(name)
            return
        names = [self.fresh("n") for _ in outputs]
        self.lines.append(f"({', '.join(names)}) := {text}")
        for name, out_type in zip(names, outputs):
            if out_type is not None:
                self.keep(Term(name, out_type, False, varying, tainted))
            elif tainted:
                self.tainted.add(name)

    def template(self, corner: str) -> tuple[str, list[Term]]:
        """A catalog corner call with its variables replaced by terms of their types."""
        chosen: dict[str, Term] = {}
        used: list[Term] = []

        def fill(match: re.Match[str]) -> str:
            word = match.group(0)
            if word not in _TEMPLATE_VARS:
                return word
            if word not in chosen:
                chosen[word] = self.varying_operand(_TEMPLATE_VARS[word])
                used.append(chosen[word])
            return chosen[word].text

        return _TOKENS.sub(fill, corner), used

    def synthesized(self, entry: Mapping[str, Any], *, bounded: bool) -> tuple[str, list[Term]]:
        """A call written from the entry's parameters and testing metadata."""
        rng = self.rng
        testing = entry.get("testing") or {}
        samples = {name: [_filled(const_value(v)) for v in values] for name, values in testing.get("samples", ())}
        variadic = testing.get("variadic")
        wires_from = testing.get("wires_from")
        fallible = testing.get("fallible") or entry.get("category") == "assert"
        name = entry["name"]
        args: list[str] = []
        wires: list[Term] = []
        consts: dict[str, Any] = {}
        # a node whose output takes a wire's type takes one type on all its `any` wires
        shared_any = rng.choice(PORT_TYPES) if entry["outputs"].get("kind") == "same_as_wire" else None
        for param in entry["params"]:
            ptype = param.get("type") or "any"
            if ptype == "any" and param["kind"] == "wire":
                narrowed = _ANY_NARROWED.get((name, param["name"]))
                ptype = rng.choice(narrowed) if narrowed else shared_any or "any"
            if param["kind"] == "const":
                pool = samples.get(param["name"]) or _CONST_POOL.get(ptype if ptype != "any" else "u64", (1,))
                ctype = ptype if ptype in _CONST_POOL else "u64"
                if param.get("variadic"):
                    lo, hi = (variadic["min"], variadic["max"]) if variadic else (1, 3)
                    values = [rng.choice(pool) for _ in range(rng.randint(max(lo, 1), max(hi, 1)))]
                    tail = [_filled(const_value(v)) for v in (variadic or {}).get("last_only") or ()]
                    values = [v for v in values if v not in tail] or [pool[0]]
                    if tail and rng.random() < 0.4:
                        values[-1] = rng.choice(tail)
                    consts[param["name"]] = values
                    self.variadic_consts = len(values)
                    args += [literal(v, _type_of(v, ctype)) for v in values]
                else:
                    value = rng.choice(pool)
                    if name == "emit_row" and param["name"] == "format":
                        value = rng.choice(("map", "csv", "jsonl", "text"))
                    consts[param["name"]] = value
                    args.append(literal(value, _type_of(value, ctype)))
                continue
            if param.get("variadic"):
                if wires_from:
                    count = corerules.variadic_wire_count(name, str(consts.get(wires_from, ""))) or 0
                elif name == "emit_row":
                    count = len(str(consts.get("names", "")).split(","))
                elif variadic:
                    count = rng.randint(variadic["min"], variadic["max"])
                else:
                    count = rng.randint(1, 3)
            else:
                count = 1
            for _ in range(count):
                term = self.varying_operand(ptype) if fallible and not wires else self.operand(ptype)
                if name == "emit_row" and term.tainted:
                    term = self.operand("u64", total=True)
                if bounded and term.type == "u64":  # sizes the machine can hold (see SIZE_BOUND)
                    term = Term(f"({term.text} % {_SIZE_BOUND})", "u64", term.total, term.varying, term.tainted)
                wires.append(term)
                args.append(term.text)
        if name == "emit_row":
            # the names list says how many values follow
            names_index = [p["name"] for p in entry["params"]].index("names")
            count = max(1, len(wires))
            args[names_index] = literal(",".join(f"v{i}" for i in range(count)), "str")
        return f"{name}({', '.join(args)})", wires

    def output_types(self, entry: Mapping[str, Any], wires: Sequence[Term]) -> list[str | None]:
        outputs = entry["outputs"]
        kind = outputs.get("kind")
        if kind == "fixed":
            return [t for _, t in outputs["ports"]]
        if kind == "same_as_wire":
            index = outputs.get("index", 0)
            try:
                return [wires[index].type]
            except IndexError:
                return [None]
        if kind == "per_variadic_const":
            return [outputs["type"]] * self.variadic_consts
        return [None]


def _type_of(value: Any, declared: str) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, float):
        return "f64"
    if isinstance(value, str):
        return "str"
    return declared if declared in ("u64", "f64") else "u64"


def program(seed: int, *, size: int | None = None) -> FuzzProgram:
    """The program of ``seed`` (``size`` statements; by default 5 to 40, drawn from the seed)."""
    rng = random.Random(seed)
    count = size if size is not None else rng.randint(5, 40)
    w = _Writer(rng, count)
    coordinates = ["cycle"] + (["k"] if rng.random() < 0.3 else [])
    header = [f"input {c}: u64" for c in coordinates]
    for c in coordinates:
        w.keep(Term(c, "u64", total=True, varying=True))
    externs: dict[str, str] = {}
    defaults: set[str] = set()
    for type_name in PORT_TYPES:
        if rng.random() < 0.35:
            name = f"x_{type_name}"
            externs[name] = type_name
            if type_name in _DEFAULTABLE and rng.random() < 0.8:
                defaults.add(name)
                header.append(f"extern {name}: {type_name} = {_default_literal(rng, type_name)}")
            else:
                header.append(f"extern {name}: {type_name}")
            # an extern is no compile constant: a const binding may read it
            w.keep(Term(name, type_name, total=name in defaults, varying=False))
    entries = callable_entries()
    while w.counter < count:
        w.statement(entries)
    return FuzzProgram(
        seed=seed,
        source="\n".join(header + w.lines) + "\n",
        coordinates=tuple(coordinates),
        externs=externs,
        defaults=frozenset(defaults),
        tainted=frozenset(w.tainted),
        emits=w.emits,
        called=frozenset(w.called),
        types=frozenset(w.types),
    )


def _default_literal(rng: random.Random, type_name: str) -> str:
    if type_name in ("u64", "u32", "timestamp"):
        return str(rng.choice((0, 1, 7, 1000, 4294967295 if type_name == "u32" else 2**40 - 1)))
    if type_name in ("f64", "f32"):
        return literal(rng.choice((0.0, -0.0, 1.5, -2.25, 1e10)), "f64")
    if type_name == "str":
        return literal(rng.choice(("", "us-east", "é", "a,b")), "str")
    if type_name.startswith("vec_"):
        return literal(rng.choice(("[]", "[1, 2, 3]", "[-7, 0, 7, 7]")), "str")
    return literal(rng.random() < 0.5, "bool")


def generated_nodes(seeds: Sequence[int]) -> set[str]:
    """The catalog nodes the programs of ``seeds`` call or write syntax for."""
    found: set[str] = set()
    for seed in seeds:
        found |= program(seed).called
    return found
