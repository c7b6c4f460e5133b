"""Upstream polydat's node registry against this project's catalog.

``registry.txt`` lists upstream's registered node names (its header says where
they come from). ``polydat nodes --json`` must offer every one of them, under
its name or as an alias, except those still listed in
``registry_missing.txt``; every node this project has beyond upstream's must be
named in the additions list of the node reference page
(``docs/reference/nodes.md``).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
NODE_PAGE = HERE.parent.parent / "docs" / "reference" / "nodes.md"


def _names(path: Path) -> list[str]:
    return [line.strip() for line in path.read_text().splitlines() if line.strip() and not line.startswith("#")]


def _catalog() -> list[dict]:
    run = subprocess.run(
        [sys.executable, "-m", "polydat.cli", "nodes", "--json"], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


CATALOG = _catalog()
OURS = {name for node in CATALOG for name in (node["name"], *node["aliases"])}
UPSTREAM = _names(HERE / "registry.txt")
STILL_MISSING = _names(HERE / "registry_missing.txt")


def _documented_additions() -> set[str]:
    text = NODE_PAGE.read_text()
    match = re.search(r"<!-- node-additions -->(.*?)<!-- /node-additions -->", text, re.S)
    assert match, "docs/reference/nodes.md has no node-additions list"
    return set(re.findall(r"`([a-z_0-9]+)`", match.group(1)))


def test_the_registry_list_is_upstreams_whole_registry() -> None:
    assert len(UPSTREAM) == len(set(UPSTREAM)) == 296


def test_json_listing_carries_what_a_tool_needs() -> None:
    for node in CATALOG:
        assert {"name", "params", "outputs", "category", "doc", "native"} <= set(node), node["name"]
        assert isinstance(node["native"], bool)
        assert not node["name"].startswith("__"), "internal nodes are not listed"
    by_name = {n["name"]: n for n in CATALOG}
    assert by_name["hash"]["native"] and not by_name["printf"]["native"]


def test_every_upstream_node_exists_here() -> None:
    missing = sorted(set(UPSTREAM) - OURS)
    assert missing == sorted(STILL_MISSING), (
        f"missing but not allow-listed: {sorted(set(missing) - set(STILL_MISSING))}; "
        f"allow-listed but present (remove from registry_missing.txt): {sorted(set(STILL_MISSING) - set(missing))}"
    )


def test_every_extra_node_is_a_documented_addition() -> None:
    extras = {n["name"] for n in CATALOG} - set(UPSTREAM)
    undocumented = sorted(extras - _documented_additions())
    assert not undocumented, f"nodes beyond upstream's registry missing from the node page's additions: {undocumented}"
    stale = sorted(_documented_additions() - {n["name"] for n in CATALOG})
    assert not stale, f"the node page names additions that are not nodes: {stale}"


def test_the_listing_says_which_nodes_run_natively() -> None:
    def run(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "polydat.cli", "nodes", *args], capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    lines = {line.split()[0]: line.split()[1] for line in run().splitlines() if line.startswith("  ")}
    by_name = {n["name"]: n for n in CATALOG}
    assert lines == {name: "native" if node["native"] else "helper" for name, node in by_name.items()}
    assert "engine: native" in run("hash")
    assert "engine: helper" in run("printf")
    assert json.loads(run("mod", "--json"))["native"] is True
