"""The random generator draws each constant of a node from its sample list on
its own, so every combination of a node's sampled constants must build: a
pair that the node refuses (``text_extract``'s min_len above its max_len)
stops the long random-program profile with a compile error that is the
generator's fault, not the engines'."""

from __future__ import annotations

import itertools
from typing import Any

import polydat
from polydat.testing.catalog import catalog_entries
from polydat.testing.nodes import dsl_literal
from polydat.testing.overrides import override_for


def _programs(entry: dict[str, Any]) -> list[tuple[tuple[Any, ...], str]]:
    """One program per combination of ``entry``'s sampled constants (wires are externs)."""
    override = override_for(entry["name"])
    params = entry["params"]
    consts = [p for p in params if p["kind"] == "const"]
    pools = [override.consts.get(p["name"], ()) for p in consts]
    if not override.random or any(p["variadic"] for p in params) or len(consts) < 2 or not all(pools):
        return []
    ports = entry["outputs"].get("ports") or [None]
    target = "out" if len(ports) == 1 else "(" + ", ".join(f"out{i}" for i in range(len(ports))) + ")"
    programs = []
    for combo in itertools.product(*pools):
        values = iter(combo)
        lines, args = ["input cycle: u64"], []
        for i, param in enumerate(params):
            kind = "u64" if param["type"] == "any" else param["type"]
            if param["kind"] == "const":
                args.append(dsl_literal(next(values), kind))
            else:
                lines.append(f"extern w{i}: {kind}")
                args.append(f"w{i}")
        lines.append(f"{target} := {entry['name']}({', '.join(args)})")
        programs.append((combo, "\n".join(lines) + "\n"))
    return programs


def test_every_combination_of_a_nodes_sampled_constants_builds() -> None:
    refused = []
    checked = 0
    for entry in catalog_entries():
        for combo, source in _programs(entry):
            checked += 1
            try:
                polydat.compile(source)
            except polydat.PolydatError as err:
                refused.append(f"{entry['name']}{combo}: {str(err).splitlines()[0]}")
    assert checked > 100, "the check reached too few nodes to mean anything"
    assert not refused, "sampled constants the node refuses:\n" + "\n".join(refused)
