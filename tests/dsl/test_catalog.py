"""The Catalog wrapper over the core's catalog JSON."""

from __future__ import annotations

import importlib
import json

import pytest

from polydat.dsl import Catalog, default_catalog
from polydat.dsl import corerules

ENTRIES = [
    {
        "name": "hash",
        "aliases": ["splitmix64", "scatter"],
        "category": "hash",
        "doc": "SplitMix64 finalizer.",
        "signature": "hash(x: u64) -> u64",
        "purity": "pure",
        "accepts_none": False,
        "params": [{"name": "x", "kind": "wire", "type": "u64", "default": None, "variadic": False}],
        "outputs": {"kind": "fixed", "ports": [["out", "u64"]]},
    },
    {
        "name": "mixed_radix",
        "aliases": [],
        "params": [
            {"name": "x", "kind": "wire", "type": "u64", "default": None, "variadic": False},
            {"name": "radixes", "kind": "const", "type": "u64", "default": None, "variadic": True},
        ],
        "outputs": {"kind": "per_variadic_const", "type": "u64"},
    },
    {
        "name": "format_u64",
        "aliases": [],
        "params": [
            {"name": "x", "kind": "wire", "type": "u64", "default": None, "variadic": False},
            {"name": "radix", "kind": "const", "type": "u64", "default": {"u64": 10}, "variadic": False},
        ],
        "outputs": {"kind": "fixed", "ports": [["out", "str"]]},
    },
    {"name": "__lit", "aliases": [], "params": [], "outputs": {"kind": "const_type", "index": 0}},
]


@pytest.fixture()
def small() -> Catalog:
    return Catalog.from_json(json.dumps(ENTRIES))


def test_lookup_by_name_and_alias(small: Catalog) -> None:
    assert small.lookup("hash") is small.lookup("splitmix64") is small.lookup("scatter")
    assert small.lookup("nope") is None
    assert "scatter" in small and "nope" not in small
    assert len(small) == 4
    assert [n.name for n in small] == ["hash", "mixed_radix", "format_u64", "__lit"]


def test_entry_fields(small: Catalog) -> None:
    spec = small.lookup("format_u64")
    assert spec is not None
    assert [p.name for p in spec.params] == ["x", "radix"]
    assert spec.params[1].is_const and spec.params[1].default == {"u64": 10}
    assert spec.param_index("radix") == 1 and spec.param_index("nope") is None
    radix = small.lookup("mixed_radix")
    assert radix is not None and radix.params[1].variadic
    assert radix.outputs.kind == "per_variadic_const" and radix.outputs.type == "u64"
    hashed = small.lookup("hash")
    assert hashed is not None and hashed.outputs.ports == (("out", "u64"),)
    assert hashed.doc == "SplitMix64 finalizer." and hashed.purity == "pure"


def test_names_hide_internal_nodes(small: Catalog) -> None:
    assert small.names() == ["format_u64", "hash", "mixed_radix", "scatter", "splitmix64"]
    assert "__lit" in small.names(include_internal=True)


def test_suggestions(small: Catalog) -> None:
    assert small.suggest("hsah") == "hash"
    assert small.suggest("mixed_radx") == "mixed_radix"
    assert small.suggest("completely_unrelated_name") is None
    assert small.suggest("my_modul", extra=["my_module"]) == "my_module"
    assert small.suggest("__lt") is None


def test_suggestions_are_the_cores_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """The frontend keeps no edit distance of its own: every "did you mean" asks the core."""
    core = importlib.import_module("polydat._core")
    import polydat.dsl.diagnostics as diagnostics

    assert not hasattr(diagnostics, "edit_distance") and not hasattr(diagnostics, "suggest_name")
    names = ["user_id", "bucket", "hashed", "u64", "kitten"]
    for probe in ["user_idd", "bukcet", "hsahed", "u46", "sitting", "xy", "zzzzzzzz"]:
        assert corerules.suggest(probe, names) == core.suggest(probe, names), probe
    asked: list[tuple[str, list[str]]] = []
    monkeypatch.setattr(
        core, "suggest", lambda name, candidates, preferred=(), callee=False: asked.append((name, candidates)) or "hash"
    )
    assert corerules.suggest("hsah", ["hash", "a_much_longer_name"]) == "hash"
    assert asked == [("hsah", ["hash"])], "only candidates within the core's edit limit by length are sent"


def test_rejects_non_list_json() -> None:
    with pytest.raises(ValueError):
        Catalog.from_json("{}")


def test_session_catalog_has_the_nodes_the_frontend_desugars_to(catalog: Catalog) -> None:
    needed = ["__lit", "printf", "str_concat", "pow", "u64_not", "f64_sub", "select_u64", "select_f64", "select_str"]
    needed += [f"u64_{op}" for op in ("add", "sub", "mul", "div", "mod", "and", "or", "xor", "shl", "shr")]
    needed += [f"{t}_{op}" for t in ("u64", "f64") for op in ("eq", "ne", "lt", "gt", "le", "ge")]
    needed += ["str_eq", "str_ne"]
    assert [n for n in needed if n not in catalog] == []


def test_default_catalog_loads_from_the_core() -> None:
    importlib.import_module("polydat._core")  # the extension is built before the tests run
    default_catalog.cache_clear()
    first = default_catalog()
    assert first is default_catalog()
    assert first.lookup("hash") is not None
