"""The node catalog as the test helpers read it.

The entries come from ``polydat.catalog()`` (the core's ``catalog_json``),
loaded once on first use: the node-corner programs, the random program
generator and the per-node constant constraints (:mod:`.overrides`, from each
entry's ``testing`` metadata) all read this one copy.

Usage::

    from polydat.testing.catalog import library_nodes, const_value

    names = [entry["name"] for entry in library_nodes()]
    const_value({"f64": 4607182418800017408})   # 1.0
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from .canon import bits_f64

__all__ = ["catalog_entries", "library_nodes", "is_deterministic", "const_value"]


@lru_cache(maxsize=1)
def catalog_entries() -> tuple[dict[str, Any], ...]:
    """Every catalog entry, internals and adapters included, in catalog order."""
    import polydat

    return tuple(polydat.catalog())


def library_nodes(*, include_internal: bool = False) -> list[dict[str, Any]]:
    """Catalog entries of the library nodes (no ``__`` internals or adapters
    unless ``include_internal``)."""
    return [
        n for n in catalog_entries()
        if include_internal or (not n["name"].startswith("__") and n.get("category") != "adapter")
    ]


def is_deterministic(entry: Mapping[str, Any]) -> bool:
    """Whether a catalog entry's values may be compared across engines."""
    return bool(entry.get("purity", "pure") != "nondeterministic")


def const_value(literal: Mapping[str, Any]) -> Any:
    """The Python value of a catalog literal (a default or a sample) such as ``{"f64": <bits>}``."""
    ((kind, value),) = literal.items()
    if kind == "f64":
        return bits_f64(int(value))
    return value
