"""The node catalog as the frontend sees it: names, parameters and output typing.

The Rust core exports its catalog as JSON (``polydat._core.catalog_json()``,
or the ``catalog`` cargo example). Each entry names a node, its aliases, its
parameters (wire or construction constant, typed, optionally defaulted or
variadic) and how its outputs are typed. The binder uses it to resolve calls,
place literals, type operator desugarings and suggest near-miss names.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from . import corerules


@dataclass(frozen=True, slots=True)
class ParamSpec:
    """One declared parameter of a node."""

    name: str
    kind: str  # "wire" | "const"
    type: str  # a type keyword or "any"
    default: dict[str, Any] | None = None
    variadic: bool = False

    @property
    def is_const(self) -> bool:
        """Whether this is a construction-constant (literal-only) parameter."""
        return self.kind == "const"


@dataclass(frozen=True, slots=True)
class OutputSpec:
    """How a node's outputs are typed.

    ``kind`` is ``fixed`` (``ports`` lists name/type pairs), ``same_as_wire``
    (one output typed like wire argument ``index``), ``per_variadic_const``
    (one ``type`` output per variadic constant argument) or ``const_type`` (one
    output typed like constant argument ``index``).
    """

    kind: str
    ports: tuple[tuple[str, str], ...] = ()
    index: int = 0
    type: str = "any"


@dataclass(frozen=True, slots=True)
class NodeSpec:
    """One catalog entry."""

    name: str
    aliases: tuple[str, ...]
    category: str
    doc: str
    signature: str
    purity: str
    accepts_none: bool
    params: tuple[ParamSpec, ...]
    outputs: OutputSpec
    without_input: str | None = None
    """The node a call without this one's first (wire) argument means (a
    sampler's lookup table: ``dist_normal(72.0, 5.0)``), the core's answer."""

    @classmethod
    def from_json(cls, entry: dict[str, Any]) -> NodeSpec:
        """Build from one element of the catalog JSON list."""
        params = tuple(
            ParamSpec(
                name=p["name"],
                kind=p["kind"],
                type=p.get("type", "any"),
                default=p.get("default"),
                variadic=bool(p.get("variadic", False)),
            )
            for p in entry.get("params", ())
        )
        out = entry.get("outputs") or {"kind": "fixed", "ports": []}
        outputs = OutputSpec(
            kind=out["kind"],
            ports=tuple((str(n), str(t)) for n, t in out.get("ports", ())),
            index=int(out.get("index", 0)),
            type=str(out.get("type", "any")),
        )
        return cls(
            name=entry["name"],
            aliases=tuple(entry.get("aliases", ())),
            category=entry.get("category", ""),
            doc=entry.get("doc", ""),
            signature=entry.get("signature", entry["name"]),
            purity=entry.get("purity", "pure"),
            accepts_none=bool(entry.get("accepts_none", False)),
            params=params,
            outputs=outputs,
            without_input=entry.get("without_input"),
        )

    def output_count(self, consts_given: int) -> int:
        """How many outputs a call giving ``consts_given`` constant arguments has:
        the entry's ports, or one per variadic constant (``mixed_radix``), else one."""
        kind = self.outputs.kind
        if kind == "fixed":
            return len(self.outputs.ports)
        if kind == "per_variadic_const":
            fixed = sum(1 for p in self.params if p.kind == "const" and not p.variadic)
            return max(consts_given - fixed, 0)
        return 1

    def param_index(self, name: str) -> int | None:
        """The position of the parameter called ``name``."""
        for i, param in enumerate(self.params):
            if param.name == name:
                return i
        return None


class Catalog:
    """Node lookup by name or alias, with near-miss suggestions."""

    def __init__(self, nodes: Iterable[NodeSpec]):
        self._nodes: list[NodeSpec] = list(nodes)
        self._by_name: dict[str, NodeSpec] = {}
        for node in self._nodes:
            for name in (node.name, *node.aliases):
                self._by_name.setdefault(name, node)

    @classmethod
    def from_json(cls, text: str) -> Catalog:
        """Build from the catalog JSON text (a list of node entries)."""
        data = json.loads(text)
        if not isinstance(data, list):
            raise ValueError("catalog JSON must be a list of node entries")
        return cls(NodeSpec.from_json(entry) for entry in data)

    def lookup(self, name: str) -> NodeSpec | None:
        """The node registered as ``name`` (or with ``name`` as an alias)."""
        return self._by_name.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __iter__(self) -> Iterator[NodeSpec]:
        return iter(self._nodes)

    def __len__(self) -> int:
        return len(self._nodes)

    def names(self, include_internal: bool = False) -> list[str]:
        """Every callable name (aliases included), sorted; ``__`` names only on request."""
        return sorted(n for n in self._by_name if include_internal or not n.startswith("__"))

    def suggest(self, name: str, extra: Iterable[str] = ()) -> str | None:
        """The public node name (or one of ``extra``) closest to ``name``, by
        the core's rule for a called name."""
        return corerules.suggest(name, [*self._by_name, *extra], callee=True)


@lru_cache(maxsize=1)
def default_catalog() -> Catalog:
    """The catalog of the compiled Rust core (``polydat._core``), loaded once."""
    try:
        text = corerules.catalog_json()
    except ImportError as exc:  # pragma: no cover - depends on the build
        raise RuntimeError(
            "the polydat Rust core (polydat._core) is not built; pass catalog= explicitly "
            "or build the package with maturin"
        ) from exc
    return Catalog.from_json(text)
