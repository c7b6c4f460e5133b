"""Per-node constant constraints, read from the node catalog.

The catalog says a parameter is "a construction-constant f64"; a node's own
definition in the Rust core also says which constants make sense for it
(``unfair_coin``'s ``p`` lies in [0, 1]; ``printf``'s format decides how many
arguments follow): its testing metadata, ``NodeDef::testing`` (the types are
in ``rust/polydat-core/src/node/testing.rs``), which the catalog exports as
each entry's ``testing``. This module reads it into :class:`NodeOverride`s.
Generators (the node-corner programs and the random
:func:`~polydat.testing.programs` strategy) take a node's constants from its
override when it lists them, and from the per-type :data:`CONST_POOLS`
otherwise.

A new library node joins the suites automatically. Give its ``NodeDef`` a
``testing: Testing { .. }`` only when its constants have constraints, its
variadic counts are bounded, or no corner variable can feed its wires (the
node-corner suite fails with a pointer there when a generated program does
not compile or cannot be synthesized). Everything about the node stays in its
one definition.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache, partial
from pathlib import Path
from typing import Any

from ..dsl import corerules
from .catalog import catalog_entries, const_value

__all__ = [
    "NodeOverride",
    "OVERRIDES",
    "CONST_POOLS",
    "override_for",
    "override_of",
    "placeholder_count",
]

U64_MAX = 2**64 - 1

CONST_POOLS: dict[str, tuple[Any, ...]] = {
    "u64": (3, 0, 1, 2, 7, 10, 64, 100, 1000, 65536, 2**32, 2**53 + 1, 2**63, U64_MAX),
    "f64": (1.0, 0.0, -1.0, 0.5, 2.5, -0.0, 0.1, 1e6, -3.75, 1e-9, 1e300),
    "str": ("a", "", "hello", "x y", "é", "日本"),
    "bool": (True, False),
}
"""Constants by type when a node's testing metadata lists none; the first is the corner-suite choice."""


def placeholder_count(fmt: str) -> int:
    """The number of placeholders in a printf format, by the core's reading
    (``{{``/``}}`` are braces; a ``{`` opens a placeholder up to the next ``}``)."""
    return corerules.printf_placeholders(fmt)


@dataclass(frozen=True)
class NodeOverride:
    """Constraints for one node (its catalog entry's ``testing`` metadata).

    ``consts`` lists the allowed values of named constant parameters (the first
    is the one the corner suite uses). ``variadic`` bounds how many items a
    variadic parameter gets (``(min, max)``); ``tail`` lists values allowed only
    as the *last* variadic constant (``mixed_radix``'s 0). ``arity`` derives
    the variadic wire count from the chosen constants (``printf``).
    ``corner_call`` replaces the synthesized call in the node-corner suite
    (variables: ``a b c`` u64 coordinates, ``x y z`` f64 externs, ``s t`` str
    externs, ``e`` a u64 extern without default). ``random`` is False for
    nodes the random generator must not use. ``fallible`` marks nodes that can
    fail at evaluation (assertions are recognized by their category): the
    random generator gives them a non-constant first argument, so that a
    failure is a run-time failure rather than a constant-folding error.
    """

    consts: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    variadic: tuple[int, int] | None = None
    tail: tuple[Any, ...] = ()
    arity: Callable[[Mapping[str, Any]], int] | None = None
    corner_call: str | None = None
    random: bool = True
    fallible: bool = False


_PLACEHOLDERS = {
    "{data}": str(Path(__file__).resolve().parent / "data"),
    "{tmp}": tempfile.gettempdir(),
}
"""What the placeholders of the testing metadata's strings stand for: the
fixture files shipped with this package (``{data}/rows.csv``) and the
system's temporary directory (where ``fft_analyze``'s corner program writes)."""


def _filled(value: Any) -> Any:
    """``value`` with the placeholders of a string replaced (other values as they are)."""
    if isinstance(value, str):
        for placeholder, path in _PLACEHOLDERS.items():
            value = value.replace(placeholder, path)
    return value


def _literals(encoded: list[Any]) -> tuple[Any, ...]:
    return tuple(_filled(const_value(literal)) for literal in encoded)


def _wire_count(node: str, param: str, consts: Mapping[str, Any]) -> int:
    """How many variadic wires ``node`` takes for its chosen ``consts``, by the core's rule."""
    count = corerules.variadic_wire_count(node, str(consts.get(param, "")))
    if count is None:
        raise ValueError(f"node {node}: the core has no wire count rule for it")
    return count


def override_of(entry: Mapping[str, Any]) -> NodeOverride:
    """The constraints a catalog entry's ``testing`` metadata states."""
    testing = entry.get("testing") or {}
    variadic = testing.get("variadic")
    wires_from = testing.get("wires_from")
    return NodeOverride(
        consts={name: _literals(values) for name, values in testing.get("samples", ())},
        variadic=(variadic["min"], variadic["max"]) if variadic else None,
        tail=_literals(variadic["last_only"]) if variadic else (),
        arity=partial(_wire_count, entry["name"], wires_from) if wires_from else None,
        corner_call=_filled(testing.get("corner_call")),
        random=testing.get("random", True),
        fallible=testing.get("fallible", False),
    )


_EMPTY = NodeOverride()


@lru_cache(maxsize=1)
def _catalog_overrides() -> dict[str, NodeOverride]:
    table = {}
    for entry in catalog_entries():
        override = override_of(entry)
        if override != _EMPTY:
            table[entry["name"]] = override
    return table


class _CatalogOverrides(Mapping[str, NodeOverride]):
    """The catalog's nodes that state constraints, by name, read on first use
    (so importing :mod:`polydat.testing` does not load the core)."""

    def __getitem__(self, name: str) -> NodeOverride:
        return _catalog_overrides()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(_catalog_overrides())

    def __len__(self) -> int:
        return len(_catalog_overrides())

    def __repr__(self) -> str:
        return f"OVERRIDES({dict(self)!r})"


OVERRIDES: Mapping[str, NodeOverride] = _CatalogOverrides()
"""Per-node constraints, by node name: every catalog node whose testing metadata says something."""


def override_for(name: str) -> NodeOverride:
    """The override for node ``name`` (an empty one when it has none)."""
    return OVERRIDES.get(name, _EMPTY)
