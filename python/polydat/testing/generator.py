"""The expression generator behind :func:`polydat.testing.programs`.

:class:`Generator` writes typed DSL expressions from hypothesis draws: names
already bound, literals, library calls (from the catalog, constants from each
node's testing metadata, :mod:`polydat.testing.overrides`), operators, ``if``,
casts (the cast table is probed from the compiler, :func:`castable`),
interpolation and the common fused idioms (:data:`IDIOMS`). It tracks which
expressions are constant, so a node that can fail gets an input-dependent
argument and fails at run time rather than while constants are folded.

Usage (inside a hypothesis ``@st.composite`` strategy)::

    gen = Generator(draw, eligible_nodes(), depth=2)
    gen.add("cycle", "u64", const=False)
    text, is_const = gen.expr("f64", depth=2)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from hypothesis import strategies as st

from .corners import F64_CORNERS, STR_CORNERS, U64_CORNERS, U64_MAX
from .catalog import is_deterministic, library_nodes
from .nodes import dsl_literal
from .overrides import CONST_POOLS, override_for

__all__ = [
    "GEN_TYPES",
    "IDIOMS",
    "TYPE_WEIGHTS",
    "Generator",
    "castable",
    "eligible_nodes",
    "u64_values",
    "f64_values",
    "str_values",
]

GEN_TYPES = ("u64", "f64", "str", "bool")
"""The wire types random programs carry."""

TYPE_WEIGHTS = {"u64": 4, "f64": 3, "str": 3, "bool": 1}
_TEXT_ALPHABET = "abcxyz XYZ019-_.:;,/é日"
_FINITE_F64 = tuple(v for v in F64_CORNERS if v == v and v not in (float("inf"), float("-inf")))


@lru_cache(maxsize=1)
def castable() -> dict[str, tuple[str, ...]]:
    """``{from type: (to types...)}`` accepted by ``expr as T``, probed once by compiling."""
    import polydat
    from polydat.errors import CompileError

    table: dict[str, tuple[str, ...]] = {}
    for source in GEN_TYPES:
        ok = []
        for target in GEN_TYPES:
            if target == source:
                continue
            try:
                polydat.compile(f"input cycle: u64\nextern v: {source}\nw := v as {target}\n", engine="p1")
            except CompileError:
                continue
            ok.append(target)
        table[source] = tuple(ok)
    return table


def _wire_types_ok(entry: Mapping[str, Any]) -> bool:
    return all(p.get("type", "any") in (*GEN_TYPES, "any") for p in entry["params"] if p["kind"] == "wire")


def _consts_ok(entry: Mapping[str, Any]) -> bool:
    return all(p.get("type", "any") in ("u64", "f64", "str") for p in entry["params"] if p["kind"] == "const")


def eligible_nodes(include_nondeterministic: bool = False) -> list[dict[str, Any]]:
    """Catalog entries the generator can call: library nodes with feedable wires and constants."""
    found = []
    for entry in library_nodes():
        if not include_nondeterministic and not is_deterministic(entry):
            continue
        if not override_for(entry["name"]).random:
            continue
        if _wire_types_ok(entry) and _consts_ok(entry):
            found.append(entry)
    return found


# -- literals ------------------------------------------------------------------------


def u64_values() -> st.SearchStrategy[int]:
    """u64 values: the corners, small numbers and the whole range."""
    return st.one_of(st.sampled_from(U64_CORNERS), st.integers(0, 1000), st.integers(0, U64_MAX))


def _f64_literals() -> st.SearchStrategy[float]:
    return st.one_of(st.sampled_from(_FINITE_F64), st.floats(allow_nan=False, allow_infinity=False))


def f64_values() -> st.SearchStrategy[float]:
    """f64 values to write: the corners (NaNs, infinities) and any float."""
    return st.one_of(st.sampled_from(F64_CORNERS), st.floats(allow_nan=True, allow_infinity=True))


def str_values() -> st.SearchStrategy[str]:
    """str values to write: the corners and short texts with multi-byte characters."""
    return st.one_of(st.sampled_from(STR_CORNERS), st.text(_TEXT_ALPHABET, max_size=8))


def _u64_literal(value: int, draw: Callable[..., Any]) -> str:
    if value > 9 and draw(st.integers(0, 4)) == 0:
        return hex(value)
    return str(value)


def _paren_f64(value: float) -> str:
    text = dsl_literal(value, "f64")
    return f"({text})" if text.startswith("-") else text


# -- the generator -------------------------------------------------------------------


IDIOMS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("u64", "mod(hash({x}), {k})", ("mod", "hash")),
    ("u64", "hash_range({x}, {k})", ("hash_range",)),
    ("u64", "mod(xxhash3({x}), {k})", ("mod", "xxhash3")),
    ("f64", "lerp(unit_interval(hash({x})), {a}, {b})", ("lerp", "unit_interval", "hash")),
    ("f64", "lerp(unit_interval({x}), {a}, {b})", ("lerp", "unit_interval")),
    ("f64", "hash_interval({x}, {a}, {b})", ("hash_interval",)),
    ("f64", "scale_range({x}, {a}, {b})", ("scale_range",)),
    ("f64", "unit_interval(hash({x}))", ("unit_interval", "hash")),
)
"""Common shapes users write (and the compiler fuses): (type, template, nodes used)."""

Expr = tuple[str, bool]
"""Generated expression text and whether it is constant (no input reaches it)."""


@dataclass
class Generator:
    """Draws typed DSL expressions; ``pool`` holds the names bound so far ({type: {name: is_const}})."""

    draw: Callable[..., Any]
    nodes: list[dict[str, Any]]
    pool: dict[str, dict[str, bool]] = field(default_factory=lambda: {t: {} for t in GEN_TYPES})
    by_output: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    node_names: set[str] = field(default_factory=set)
    zero_names: set[str] = field(default_factory=set)
    """Bindings whose value is a zero literal (``v0 := 0``): never a divisor."""

    def __post_init__(self) -> None:
        self.node_names = {entry["name"] for entry in self.nodes}
        for entry in self.nodes:
            out = entry["outputs"]
            ports = out.get("ports", [])
            if out["kind"] == "fixed" and len(ports) == 1:
                self.by_output.setdefault(ports[0][1], []).append(entry)
            elif out["kind"] == "same_as_wire":
                for t in GEN_TYPES:
                    self.by_output.setdefault(t, []).append(entry)
            elif out["kind"] == "per_variadic_const":
                self.by_output.setdefault(out.get("type", "any"), []).append(entry)

    def add(self, name: str, t: str, const: bool, text: str = "") -> None:
        """Makes binding ``name`` (of expression ``text``) available to later expressions."""
        if t in self.pool:
            self.pool[t][name] = const
        if text and self.is_zero_literal(text):
            self.zero_names.add(name)

    # -- leaves

    def literal(self, t: str) -> Expr:
        d = self.draw
        if t == "u64":
            return _u64_literal(d(u64_values()), d), True
        if t == "f64":
            return _paren_f64(d(_f64_literals())), True
        if t == "str":
            return dsl_literal(d(st.text(_TEXT_ALPHABET, max_size=6)), "str"), True
        return f"({self.literal('u64')[0]} as bool)", True

    def name(self, t: str, dynamic: bool) -> Expr | None:
        names = [n for n, const in self.pool[t].items() if not (dynamic and const)]
        if not names:
            return None
        chosen = self.draw(st.sampled_from(names))
        return chosen, self.pool[t][chosen]

    # -- expressions

    def expr(self, t: str, depth: int, dynamic: bool = False) -> Expr:
        """An expression of type ``t``; ``dynamic`` demands one an input reaches."""
        d = self.draw
        options = []
        if any(not (dynamic and c) for c in self.pool[t].values()):
            options += ["name", "name"]
        if t != "bool" and not dynamic:
            options.append("literal")
        if depth > 0:
            options += ["call", "call", "op", "op"]
            if t in ("u64", "f64", "str"):
                options.append("if")
            if any(t in targets for targets in castable().values()):
                options.append("cast")
            if t == "str":
                options.append("interp")
            if self.idioms_for(t):
                options.append("idiom")
        if not options:
            if dynamic:
                return self.dynamic_fallback(t)
            options = ["cast"] if t == "bool" else ["literal"]
        kind = d(st.sampled_from(options))
        if kind == "name":
            found = self.name(t, dynamic)
            assert found is not None
            return found
        if kind == "literal":
            return self.literal(t)
        if kind == "call":
            made = self.call(t, depth - 1, dynamic)
            if made is not None:
                return made
            return self.dynamic_fallback(t) if dynamic else self.expr(t, 0)
        if kind == "op":
            return self.operator(t, depth - 1, dynamic)
        if kind == "if":
            cond = self.expr("u64", depth - 1, dynamic)
            a = self.expr(t, depth - 1)
            b = self.expr(t, depth - 1)
            return f"if({cond[0]}, {a[0]}, {b[0]})", cond[1] and a[1] and b[1]
        if kind == "cast":
            return self.cast(t, depth, dynamic)
        if kind == "idiom":
            return self.idiom(t, depth - 1, dynamic)
        return self.interpolation(dynamic)

    def idioms_for(self, t: str) -> list[tuple[str, tuple[str, ...]]]:
        """The :data:`IDIOMS` of type ``t`` whose nodes are all available."""
        names = self.node_names
        return [(template, needs) for ty, template, needs in IDIOMS if ty == t and set(needs) <= names]

    def idiom(self, t: str, depth: int, dynamic: bool) -> Expr:
        template, _ = self.draw(st.sampled_from(self.idioms_for(t)))
        # mod by 0 fails: keep it a run-time failure, not a constant-folding error
        inner = self.expr("u64", depth, dynamic or template.startswith("mod("))
        k = _u64_literal(self.draw(st.sampled_from(CONST_POOLS["u64"][:-1] + (U64_MAX,))), self.draw)
        a, b = (dsl_literal(self.draw(st.sampled_from(CONST_POOLS["f64"])), "f64") for _ in range(2))
        return template.format(x=inner[0], k=k, a=a, b=b), inner[1]

    def dynamic_fallback(self, t: str) -> Expr:
        """A non-constant expression of type ``t`` from any name an input reaches
        (a literal when there is none)."""
        found = next(((n, ty) for ty in GEN_TYPES for n, c in self.pool[ty].items() if not c), None)
        if found is None:
            return self.literal(t)
        name, ty = found
        if t == ty:
            return name, False
        if t == "str":
            return '"{' + name + '}"', False
        as_u64 = {"u64": name, "f64": f"({name} > 0.5)", "str": f'({name} == "")', "bool": f"({name} as u64)"}[ty]
        if t == "u64":
            return as_u64, False
        return f"({as_u64} as {t})", False

    def cast(self, t: str, depth: int, dynamic: bool = False) -> Expr:
        sources = [s for s, targets in castable().items() if t in targets]
        if not sources:
            return self.dynamic_fallback(t) if dynamic else self.literal(t)
        source = self.draw(st.sampled_from(sources))
        # a string parse that fails must fail at run time, not while folding constants
        inner = self.expr(source, max(depth - 1, 0), dynamic or source == "str")
        return f"({inner[0]} as {t})", inner[1]

    def interpolation(self, dynamic: bool = False) -> Expr:
        names = [(n, c) for t in GEN_TYPES for n, c in self.pool[t].items()]
        if dynamic:
            names = [(n, c) for n, c in names if not c]
        pieces = []
        const = True
        for _ in range(self.draw(st.integers(1, 3))):
            pieces.append(self.draw(st.text("ab -:=é", max_size=3)))
            if names:
                n, c = self.draw(st.sampled_from(names))
                pieces.append("{" + n + "}")
                const = const and c
        if dynamic and const:
            return self.dynamic_fallback("str")
        return '"' + "".join(pieces) + '"', const

    def tile(self) -> tuple[str, bool]:
        """A ``tile`` statement's text after its name (``: json := '...'``)
        over names already bound, and whether it is constant: holes of every
        type (formats, raw holes), a projection and a branch now and then."""
        names = [(n, t, c) for t in GEN_TYPES for n, c in self.pool[t].items()]
        encoding = self.draw(st.sampled_from(("json", "text", "csv")))
        pieces: list[str] = []
        const = True
        for i in range(self.draw(st.integers(1, 4)) if names else 0):
            n, t, c = self.draw(st.sampled_from(names))
            const = const and c
            quoted = encoding == "json" and self.draw(st.booleans())
            fmt = ""
            if t == "f64" and self.draw(st.integers(0, 2)) == 0:
                fmt = "|" + self.draw(st.sampled_from((".2", ".0")))
            elif t == "u64" and (encoding != "json" or quoted) and self.draw(st.integers(0, 2)) == 0:
                fmt = "|" + self.draw(st.sampled_from(("05", "x", "8")))
            raw = "!" if encoding != "json" and self.draw(st.integers(0, 5)) == 0 else ""
            hole = "${" + n + fmt + raw + "}"
            if encoding == "json":
                pieces.append(f'"f{i}": ' + (f'"<{hole}>"' if quoted else hole))
            else:
                pieces.append(hole)
        if self.draw(st.integers(0, 3)) == 0:
            item = "${k}" if encoding != "json" else '{"k": ${k}}'
            pieces.append(('"p": ' if encoding == "json" else "") + "[@for k in 1..4 {" + item + "}]")
        flags = [n for n, t, c in names if t in ("u64", "bool")]
        if flags and self.draw(st.integers(0, 3)) == 0:
            flag = self.draw(st.sampled_from(flags))
            const = const and self.pool["u64"].get(flag, self.pool["bool"].get(flag, True))
            branch = "@if " + flag + (' { "y" } @else { "n" }' if encoding == "json" else " { y } @else { n }")
            pieces.append(('"b": ' if encoding == "json" else "") + branch)
        if encoding == "json":
            body = "{" + ", ".join(pieces) + "}"
        else:
            body = (" " if encoding == "text" else ",").join(pieces) or "empty"
        return f" : {encoding} := '" + body.replace("\\", "\\\\").replace("'", "\\'") + "'", const

    def binary(self, op: str, lt: str, rt: str, depth: int, dynamic: bool) -> Expr:
        first_dynamic = dynamic and self.draw(st.booleans())
        left = self.expr(lt, depth, first_dynamic)
        right = self.expr(rt, depth, dynamic and not first_dynamic and left[1])
        if op in ("/", "%") and self.is_zero_literal(right[0]):
            right = ("1", True)  # a literal zero divisor is a compile error
        return f"({left[0]} {op} {right[0]})", left[1] and right[1]

    def is_zero_literal(self, text: str) -> bool:
        """``text`` is a zero literal, or a name bound to one (the compiler
        sees the literal through the name)."""
        text = text.strip("()")
        if text in self.zero_names:
            return True
        for parse in (lambda t: int(t, 0), float):
            try:
                return bool(parse(text) == 0)
            except ValueError:
                continue
        return False

    def operator(self, t: str, depth: int, dynamic: bool = False) -> Expr:
        d = self.draw
        if t == "u64":
            kind = d(st.sampled_from(["arith", "bits", "cmp", "logic", "not"]))
            if kind == "arith":
                return self.binary(d(st.sampled_from(["+", "-", "*", "/", "%"])), "u64", "u64", depth, dynamic)
            if kind == "bits":
                return self.binary(d(st.sampled_from(["&", "|", "^", "<<", ">>"])), "u64", "u64", depth, dynamic)
            if kind == "cmp":
                if d(st.booleans()):
                    return self.binary(d(st.sampled_from(["==", "!="])), "str", "str", depth, dynamic)
                op = d(st.sampled_from(["==", "!=", "<", ">", "<=", ">="]))
                lt, rt = d(st.sampled_from([("u64", "u64"), ("f64", "f64"), ("u64", "f64"), ("f64", "u64")]))
                return self.binary(op, lt, rt, depth, dynamic)
            if kind == "logic":
                lt, rt = d(st.sampled_from([("u64", "u64"), ("f64", "u64"), ("u64", "f64")]))
                return self.binary(d(st.sampled_from(["&&", "||"])), lt, rt, depth, dynamic)
            inner = self.expr("u64", depth, dynamic)
            return f"(!{inner[0]})", inner[1]
        if t == "f64":
            kind = d(st.sampled_from(["arith", "arith", "pow", "neg"]))
            if kind == "neg":
                inner = self.expr(d(st.sampled_from(["u64", "f64"])), depth, dynamic)
                return f"(-{inner[0]})", inner[1]
            if kind == "pow":
                lt, rt = d(st.sampled_from([("f64", "f64"), ("u64", "u64"), ("u64", "f64")]))
                return self.binary("**", lt, rt, depth, dynamic)
            lt, rt = d(st.sampled_from([("f64", "f64"), ("u64", "f64"), ("f64", "u64")]))
            return self.binary(d(st.sampled_from(["+", "-", "*", "/", "%"])), lt, rt, depth, dynamic)
        if t == "str":
            other = d(st.sampled_from(GEN_TYPES))
            if d(st.booleans()):
                return self.binary("+", "str", other, depth, dynamic)
            return self.binary("+", other, "str", depth, dynamic)
        return self.cast("bool", depth + 1, dynamic)

    def call(self, t: str, depth: int, dynamic: bool = False) -> Expr | None:
        candidates = self.by_output.get(t, [])
        if not candidates:
            return None
        entry = self.draw(st.sampled_from(candidates))
        text, n_out, const = self.call_text(entry, depth, want=t, dynamic=dynamic)
        if n_out != 1:
            return None
        return text, const

    def call_text(self, entry: Mapping[str, Any], depth: int, want: str | None = None,
                  dynamic: bool = False) -> tuple[str, int, bool]:
        """A call of ``entry``: its text, how many outputs it has, whether it is constant.

        ``want`` asks for a single value of that type (a per-variadic-const
        node then gets exactly one constant). A fallible node (an assertion,
        or one its testing metadata marks fallible) gets a non-constant first wire.
        """
        d = self.draw
        name = entry["name"]
        override = override_for(name)
        out = entry["outputs"]
        params = entry["params"]
        single = want is not None and out["kind"] == "per_variadic_const"
        same_as = want if out["kind"] == "same_as_wire" and want in GEN_TYPES else None
        fallible = override.fallible or entry.get("category") == "assert"
        need_dynamic = dynamic or fallible
        # the trailing run of defaulted scalar constants may be omitted or named
        tail = len(params)
        while tail > 0 and params[tail - 1]["kind"] == "const" and not params[tail - 1].get("variadic") \
                and params[tail - 1].get("default") is not None:
            tail -= 1
        args: list[str] = []
        consts: dict[str, Any] = {}
        n_variadic_consts = 0
        const = True
        for param in params[:tail]:
            ptype = param.get("type", "any")
            if param["kind"] == "const":
                pool = self._pool(override, param)
                if not param.get("variadic"):
                    consts[param["name"]] = value = d(st.sampled_from(pool))
                    args.append(dsl_literal(value, ptype))
                    continue
                if single:
                    values = [d(st.sampled_from(pool + tuple(override.tail)))]
                else:
                    lo, hi = override.variadic or (1, 3)
                    values = [d(st.sampled_from(pool)) for _ in range(d(st.integers(lo, hi)))]
                    if override.tail and d(st.booleans()):
                        values.append(d(st.sampled_from(override.tail)))
                n_variadic_consts = len(values)
                args.extend(dsl_literal(v, ptype) for v in values)
                continue
            count = 1
            if param.get("variadic"):
                if override.arity is not None:
                    count = override.arity(consts) + d(st.integers(0, 1))
                else:
                    lo, hi = override.variadic or (1, 3)
                    count = d(st.integers(lo, hi))
            for _ in range(count):
                if ptype != "any":
                    at = ptype
                elif same_as is not None:
                    at = same_as
                else:
                    at = d(st.sampled_from(GEN_TYPES))
                text, arg_const = self.expr(at, depth, need_dynamic and const)
                args.append(text)
                const = const and arg_const
        rest = params[tail:]
        if rest:
            mode = d(st.sampled_from(["positional", "omit", "named"]))
            if mode == "named":
                chosen = [p for p in rest if d(st.booleans())]
                chosen = d(st.permutations(chosen)) if chosen else []
                for param in chosen:
                    value = d(st.sampled_from(self._pool(override, param)))
                    args.append(f"{param['name']}: {dsl_literal(value, param['type'])}")
            else:
                keep = len(rest) if mode == "positional" else d(st.integers(0, len(rest)))
                for param in rest[:keep]:
                    value = d(st.sampled_from(self._pool(override, param)))
                    args.append(dsl_literal(value, param["type"]))
        if out["kind"] == "per_variadic_const":
            n_out = n_variadic_consts
        elif out["kind"] == "fixed":
            n_out = len(out.get("ports", []))
        else:
            n_out = 1
        if entry.get("purity") == "nondeterministic":
            const = False
        return f"{name}({', '.join(args)})", n_out, const

    @staticmethod
    def _pool(override: Any, param: Mapping[str, Any]) -> tuple[Any, ...]:
        ptype = param.get("type", "u64")
        return tuple(override.consts.get(param["name"], CONST_POOLS.get(ptype, CONST_POOLS["u64"])))
