"""One program per library node, driven over the corner inputs.

:func:`node_cases` walks the node catalog (``polydat.catalog()``), so a node
added to the Rust library gets a corner program without edits. Each program
calls the node once; its wire arguments are inputs swept over the corners:

==========  =======================================  ======================
variables   declared as                              swept over
==========  =======================================  ======================
``a b c``   u64 coordinates (``input (a: u64, ...)``)  ``U64_CORNERS``
``x y z``   ``extern x: f64 = 0.0``                   ``F64_CORNERS``
``s t``     ``extern s: str = ""``                    ``STR_CORNERS``
``e``       ``extern e: u64`` (no default)            None, 0, 1, 2^63, max
==========  =======================================  ======================

Several inputs are combined with :func:`~polydat.testing.corners.corner_grid`
(the full product when small, a covering subset otherwise). Constants come
from the node's testing metadata in the catalog (:mod:`polydat.testing.overrides`)
or the per-type pools.

Usage::

    from polydat.testing import node_case, assert_engines_agree

    case = node_case("hash_range")
    print(case.source)     # input a: u64 / out := hash_range(a, 3)
    assert_engines_agree(case.source, case.steps)
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .catalog import catalog_entries, const_value, is_deterministic, library_nodes
from .corners import F64_CORNERS, STR_CORNERS, U64_CORNERS, U64_MAX, corner_grid
from .overrides import CONST_POOLS, NodeOverride, override_for
from .script import Step

__all__ = [
    "NodeCase",
    "NodeCaseError",
    "library_nodes",
    "node_case",
    "node_cases",
    "dsl_literal",
    "const_value",
    "is_deterministic",
]

_U64_VARS = ("a", "b", "c")
_F64_VARS = ("x", "y", "z")
_STR_VARS = ("s", "t")
_VAR_TYPES = {**{v: "u64" for v in _U64_VARS}, **{v: "f64" for v in _F64_VARS},
              **{v: "str" for v in _STR_VARS}, "e": "u64"}
E_VALUES: tuple[Any, ...] = (None, 0, 1, 2**63, U64_MAX)
_SWEEPS: dict[str, tuple[Any, ...]] = {
    **{v: U64_CORNERS for v in _U64_VARS}, **{v: F64_CORNERS for v in _F64_VARS},
    **{v: STR_CORNERS for v in _STR_VARS}, "e": E_VALUES,
}
_STRING_LITERAL = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'')


class NodeCaseError(ValueError):
    """A node's corner program cannot be synthesized (its testing metadata needs a corner call)."""


@dataclass(frozen=True)
class NodeCase:
    """A node's corner program: ``source``, its script ``steps``, its ``outputs``
    and whether its values are deterministic (compared) or only typed."""

    node: str
    source: str
    steps: tuple[Step, ...]
    outputs: tuple[str, ...]
    deterministic: bool


def dsl_literal(value: Any, type_name: str) -> str:
    """``value`` written as a DSL literal of ``type_name`` (u64, f64, bool or str)."""
    if type_name == "f64":
        value = float(value)
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError("NaN and infinities have no DSL literal")
        text = repr(value)
        return text if any(ch in text for ch in ".en") else text + ".0"
    if type_name == "str":
        escaped = str(value).replace("\\", "\\\\").replace('"', '\\"')
        return f'"{escaped}"'
    if type_name == "bool":
        return "true" if value else "false"
    if type_name in ("u64", "any"):
        if isinstance(value, float):
            return dsl_literal(value, "f64")
        if isinstance(value, str):
            return dsl_literal(value, "str")
        return str(int(value))
    raise ValueError(f"no literal form for type {type_name}")


def _const_pool(node: str, param: Mapping[str, Any], override: NodeOverride) -> tuple[Any, ...]:
    if param["name"] in override.consts:
        return override.consts[param["name"]]
    return CONST_POOLS.get(param.get("type", "u64"), CONST_POOLS["u64"])


def _synthesize_call(entry: Mapping[str, Any], override: NodeOverride) -> tuple[str, int]:
    """The corner call text and the number of outputs it produces."""
    name = entry["name"]
    pools = {"u64": list(_U64_VARS), "f64": list(_F64_VARS), "str": list(_STR_VARS)}
    args: list[str] = []
    variadic_consts = 0
    consts: dict[str, Any] = {}
    for param in entry["params"]:
        ptype = param.get("type", "any")
        if param["kind"] == "const":
            pool = _const_pool(name, param, override)
            if param.get("variadic"):
                lo = override.variadic[0] if override.variadic else 1
                count = max(lo, min(2, len(pool)))
                values = list(pool[:count]) + list(override.tail[:1])
                variadic_consts = len(values)
            else:
                values = [pool[0]]
            consts[param["name"]] = values[0]
            args.extend(dsl_literal(v, ptype if ptype != "any" else "u64") for v in values)
            continue
        count = 1
        if param.get("variadic"):
            count = 2
            if override.arity is not None:
                count = override.arity(consts)
            elif override.variadic is not None:
                count = max(override.variadic[0], min(2, override.variadic[1]))
        for _ in range(count):
            key = "u64" if ptype == "any" else ptype
            if key not in pools or not pools[key]:
                raise NodeCaseError(
                    f"node {name}: no corner input for wire '{param['name']}' of type {ptype}; "
                    "give it a corner_call in its NodeDef's testing metadata (rust/polydat-core/src/nodes/)"
                )
            args.append(pools[key].pop(0))
    outputs = entry["outputs"]
    if outputs["kind"] == "fixed":
        n_out = max(1, len(outputs.get("ports", [])))
    elif outputs["kind"] == "per_variadic_const":
        n_out = variadic_consts
    else:
        n_out = 1
    return f"{name}({', '.join(args)})", n_out


def _used_vars(call: str) -> list[str]:
    bare = _STRING_LITERAL.sub('""', call)
    names = set(re.findall(r"\b[a-z]\b", bare))
    return [v for v in (*_U64_VARS, *_F64_VARS, *_STR_VARS, "e") if v in names]


def _program(call: str, n_out: int, used: Sequence[str]) -> tuple[str, tuple[str, ...]]:
    coords = [v for v in _U64_VARS if v in used] or ["a"]
    lines = [f"input {coords[0]}: u64" if len(coords) == 1
             else "input (" + ", ".join(f"{v}: u64" for v in coords) + ")"]
    for var in used:
        if var in _F64_VARS:
            lines.append(f"extern {var}: f64 = 0.0")
        elif var in _STR_VARS:
            lines.append(f'extern {var}: str = ""')
        elif var == "e":
            lines.append("extern e: u64")
    if n_out == 1:
        outputs: tuple[str, ...] = ("out",)
        lines.append(f"out := {call}")
    else:
        outputs = tuple(f"out{i}" for i in range(n_out))
        lines.append(f"({', '.join(outputs)}) := {call}")
    return "\n".join(lines) + "\n", outputs


def node_case(name: str, *, limit: int = 1500) -> NodeCase:
    """The corner program of library node ``name`` (raises :class:`NodeCaseError`)."""
    entry = next((n for n in catalog_entries() if n["name"] == name), None)
    if entry is None:
        raise NodeCaseError(f"no node named {name!r} in the catalog")
    override = override_for(name)
    if override.corner_call is not None:
        # A hand-written call of the node itself binds every fixed output; any other expression one.
        ports = entry["outputs"].get("ports", []) if entry["outputs"]["kind"] == "fixed" else []
        call = override.corner_call
        n_out = max(1, len(ports)) if call.startswith(f"{name}(") else 1
    else:
        call, n_out = _synthesize_call(entry, override)
    used = _used_vars(call)
    source, outputs = _program(call, n_out, used)
    swept = [v for v in used]
    if swept:
        grid = corner_grid([_SWEEPS[v] for v in swept], limit=limit)
        writes: list[Any] = [dict(zip(swept, combo)) for combo in grid]
    else:
        writes = [{"a": v} for v in U64_CORNERS[:5]]
    steps = [Step(w) for w in writes]
    # a few cache-facing steps: repeat the last write, pull again, invalidate
    steps += [Step(writes[-1]), Step(None), Step(None, invalidate_all=True)]
    return NodeCase(name, source, tuple(steps), outputs, is_deterministic(entry))


def node_cases(*, limit: int = 1500) -> list[NodeCase]:
    """A corner program for every library node (see :func:`node_case`)."""
    return [node_case(n["name"], limit=limit) for n in library_nodes()]
