"""Hypothesis strategies: random well-typed programs with input scripts.

:func:`programs` draws an :class:`~polydat.testing.script.Example`: a program
over u64, f64, str and bool wires built from the node catalog (every
deterministic library node whose wire types it can feed), operators, ``if``,
string interpolation, ``as`` casts, literals, externs with and without
defaults, ``volatile`` bindings, ``const`` captures over externs and
multi-output nodes bound by tuple destructuring, together with a script of
writes and pulls. New nodes join automatically; constants with constraints
come from each node's testing metadata in the catalog
(:mod:`polydat.testing.overrides`); the expression generator is
:mod:`polydat.testing.generator`.

Usage (needs ``hypothesis``)::

    from hypothesis import given, settings
    from polydat.testing import programs, assert_engines_agree

    @settings(max_examples=50, deadline=None)
    @given(programs())
    def test_engines_agree(example):
        assert_engines_agree(example.source, example.steps, example.pulls)

    programs(max_bindings=4, max_steps=3, depth=1)   # smaller programs
    programs(nodes=["hash", "mod", "printf"])          # only these library nodes

A failing example prints as a replay file (``str(example)``, or
:func:`polydat.testing.replay`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from .generator import (
    GEN_TYPES,
    TYPE_WEIGHTS,
    Generator,
    castable,
    eligible_nodes,
    f64_values,
    str_values,
    u64_values,
)
from .script import EVAL, Example, Step

__all__ = ["programs", "scripts", "castable", "eligible_nodes", "GEN_TYPES"]


# -- scripts ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Shape:
    coordinates: tuple[str, ...]
    externs: tuple[tuple[str, str], ...]
    outputs: tuple[str, ...]


def _value_for(t: str) -> st.SearchStrategy[Any]:
    if t == "u64":
        return u64_values()
    if t == "f64":
        return f64_values()
    if t == "str":
        return str_values()
    return st.booleans()


@st.composite
def _write(draw: Callable[..., Any], shape: _Shape, previous: Any) -> Any:
    kind = draw(st.sampled_from(["coords", "coords", "named", "externs", "mixed", "repeat", "none"]))
    if kind == "repeat" and previous is not None:
        return previous
    if kind == "none":
        return None
    coords = shape.coordinates
    if kind == "coords" or not shape.externs and kind != "none":
        values = tuple(draw(u64_values()) for _ in coords)
        return values[0] if len(values) == 1 and draw(st.booleans()) else values
    write: dict[str, Any] = {}
    if kind in ("named", "mixed"):
        for name in draw(st.lists(st.sampled_from(coords), min_size=1, max_size=len(coords), unique=True)):
            write[name] = draw(u64_values())
    if kind in ("externs", "mixed") and shape.externs:
        for name, t in draw(st.lists(st.sampled_from(shape.externs), min_size=1, unique=True)):
            write[name] = draw(st.one_of(_value_for(t), st.just(None))) if draw(st.integers(0, 5)) == 0 \
                else draw(_value_for(t))
    return write or None


@st.composite
def _steps(draw: Callable[..., Any], shape: _Shape, max_steps: int) -> list[Step]:
    steps: list[Step] = []
    previous: Any = None
    for index in range(draw(st.integers(1, max_steps))):
        write = draw(_write(shape, previous)) if index else draw(_write(shape, None).filter(lambda w: w is not None))
        pulls: list[str] | None = None
        how = draw(st.integers(0, 9))
        if how == 0:
            pulls = [EVAL]
        elif how <= 3 and shape.outputs:
            pulls = draw(st.lists(st.sampled_from(shape.outputs), min_size=1, max_size=4))
        invalidate = draw(st.integers(0, 14)) == 0
        steps.append(Step(write, pulls, invalidate))
        previous = write if write is not None else previous
    return steps


def scripts(coordinates: Sequence[str], externs: Mapping[str, str] | None = None,
            outputs: Sequence[str] = (), max_steps: int = 8) -> st.SearchStrategy[list[Step]]:
    """Scripts for a given program shape: writes of coordinates (positional
    and by name) and externs (typed values, sometimes None), repeated writes,
    no-write steps, pulls of all / some outputs, ``eval()`` and ``invalidate_all()``."""
    shape = _Shape(tuple(coordinates), tuple((externs or {}).items()), tuple(outputs))
    return _steps(shape, max_steps)


# -- programs ----------------------------------------------------------------------------


@st.composite
def programs(
    draw: Callable[..., Any],
    *,
    max_bindings: int = 8,
    max_steps: int = 8,
    depth: int = 2,
    nodes: Iterable[str] | None = None,
    include_nondeterministic: bool = False,
    captures: bool = True,
) -> Example:
    """Random well-typed programs with input scripts (an :class:`Example`).

    ``max_bindings`` bounds the top-level bindings, ``depth`` the nesting of
    expressions, ``max_steps`` the script length. ``nodes`` restricts library
    calls to the named nodes; nondeterministic nodes are left out unless
    ``include_nondeterministic`` (their outputs are then compared by type).
    ``captures=False`` leaves out ``const`` bindings over externs.
    """
    entries = eligible_nodes(include_nondeterministic)
    if nodes is not None:
        wanted = set(nodes)
        entries = [e for e in entries if e["name"] in wanted]
    gen = Generator(draw, entries)
    lines: list[str] = []
    coordinates = ("cycle", "seed") if draw(st.integers(0, 3)) == 0 else ("cycle",)
    if len(coordinates) == 1:
        lines.append("input cycle: u64")
    else:
        lines.append("input (cycle: u64, seed: u64)")
    for coordinate in coordinates:
        gen.add(coordinate, "u64", False)
    externs: dict[str, str] = {}
    for name, t in (("eu", "u64"), ("ef", "f64"), ("es", "str")):
        if draw(st.integers(0, 2)) == 0:
            if draw(st.integers(0, 3)) == 0:
                lines.append(f"extern {name}: {t}")
            else:
                default = gen.literal(t)[0].strip("()")
                lines.append(f"extern {name}: {t} = {default}")
            externs[name] = t
            gen.add(name, t, False)
    outputs: list[str] = []
    input_free = set(externs)  # names no coordinate reaches: what a const may read
    for index in range(draw(st.integers(1, max_bindings))):
        name = f"v{index}"
        modifier = "volatile " if draw(st.integers(0, 11)) == 0 else ""
        if entries and draw(st.booleans()):
            # a library node picked uniformly, so every node is reached equally often
            entry = draw(st.sampled_from(entries))
            want = _single_type(entry, draw)
            text, n_out, const = gen.call_text(entry, depth - 1, want=want)
            if n_out >= 2:
                names = [f"{name}_{i}" for i in range(n_out)]
                lines.append(f"({', '.join(names)}) := {text}")
                for n, t in zip(names, _multi_types(entry, n_out)):
                    outputs.append(n)
                    gen.add(n, t, const)
                continue
            t = want or _multi_types(entry, 1)[0]
        elif draw(st.integers(0, 9)) == 0:
            # a tile (a str wire of its own grammar) or a producer (a const str)
            if draw(st.integers(0, 3)) == 0:
                lines.append(f"{name} := for k in 1..{draw(st.integers(1, 5))}, w in 'a', 'b' order lex/3")
                outputs.append(name)
                gen.add(name, "str", True)
                continue
            text, const = gen.tile()
            lines.append(f"tile {name}{text}")
            outputs.append(name)
            gen.add(name, "str", const)
            continue
        elif captures and externs and draw(st.integers(0, 7)) == 0:
            # a const over externs (and earlier such consts): a capture, kept until init()
            t = draw(st.sampled_from(GEN_TYPES))
            full = gen.pool
            gen.pool = {ty: {n: c for n, c in names.items() if n in input_free} for ty, names in full.items()}
            try:
                text, const = gen.expr(t, depth)
            finally:
                gen.pool = full
            modifier = "const "
            input_free.add(name)
        else:
            t = draw(st.sampled_from([t for t, w in TYPE_WEIGHTS.items() for _ in range(w)]))
            text, const = gen.expr(t, depth)
        lines.append(f"{modifier}{name} := {text}")
        outputs.append(name)
        gen.add(name, t, const, text)
    source = "\n".join(lines) + "\n"
    steps = draw(_steps(_Shape(coordinates, tuple(externs.items()), tuple(outputs)), max_steps))
    return Example(source, steps)


def _single_type(entry: Mapping[str, Any], draw: Callable[..., Any]) -> str | None:
    """The type to ask of a node bound at top level (None: let it produce several outputs)."""
    out = entry["outputs"]
    if out["kind"] == "same_as_wire":
        return str(draw(st.sampled_from(GEN_TYPES)))
    if out["kind"] == "per_variadic_const":
        return None
    ports = out.get("ports", [])
    return ports[0][1] if out["kind"] == "fixed" and len(ports) == 1 else None


def _multi_types(entry: Mapping[str, Any], n_out: int) -> list[str]:
    out = entry["outputs"]
    if out["kind"] == "per_variadic_const":
        return [out.get("type", "any")] * n_out
    return [t for _, t in out.get("ports", [])]
