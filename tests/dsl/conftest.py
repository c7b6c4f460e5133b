"""Fixtures for the DSL frontend tests.

``polydat.dsl`` is imported from the source tree. If the package's
``__init__`` cannot be imported (the Rust core is not built), a bare package
module is installed so the pure-Python frontend still imports.

The ``catalog`` fixture prefers the compiled core's catalog, falls back to the
``catalog`` cargo example, and finally supplements any node the tests rely on
that the available build does not carry yet (``FALLBACK_NODES``): the real
definitions win whenever they exist.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import subprocess
import sys
import types
import warnings
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYTHON_DIR = ROOT / "python"
# The source tree only when no polydat is installed: put ahead of an
# installed one, it would hand every process this session starts (a Dask
# worker inherits sys.path) the source tree's build instead of the
# installed build the session tests.
if importlib.util.find_spec("polydat") is None and str(PYTHON_DIR) not in sys.path:
    sys.path.append(str(PYTHON_DIR))


def _import_dsl() -> types.ModuleType:
    try:
        return importlib.import_module("polydat.dsl")
    except ImportError:
        for name in [m for m in sys.modules if m == "polydat" or m.startswith("polydat.")]:
            del sys.modules[name]
        package = types.ModuleType("polydat")
        package.__path__ = [str(PYTHON_DIR / "polydat")]  # type: ignore[attr-defined]
        sys.modules["polydat"] = package
        return importlib.import_module("polydat.dsl")


dsl = _import_dsl()
from polydat.dsl.catalog import Catalog  # noqa: E402
from dsl_helpers import core_program  # noqa: E402


def _wire(name: str, type_: str = "u64", variadic: bool = False) -> dict[str, Any]:
    return {"name": name, "kind": "wire", "type": type_, "default": None, "variadic": variadic}


def _const(name: str, type_: str, default: Any = None, variadic: bool = False) -> dict[str, Any]:
    return {"name": name, "kind": "const", "type": type_, "default": default, "variadic": variadic}


def _node(name: str, params: list[dict[str, Any]], outputs: dict[str, Any] | str, aliases: tuple[str, ...] = ()) -> dict[str, Any]:
    if isinstance(outputs, str):
        outputs = {"kind": "fixed", "ports": [["out", outputs]]}
    return {
        "name": name,
        "aliases": list(aliases),
        "category": "test",
        "doc": "test fallback",
        "signature": name,
        "purity": "pure",
        "accepts_none": False,
        "params": params,
        "outputs": outputs,
    }


def _fallback_nodes() -> list[dict[str, Any]]:
    nodes = [
        _node("hash", [_wire("x")], "u64", ("splitmix64", "scatter")),
        _node("mod", [_wire("x"), _const("K", "u64")], "u64"),
        _node("div", [_wire("x"), _const("K", "u64")], "u64"),
        _node("mod_wire", [_wire("x"), _wire("d")], "u64"),
        _node("mixed_radix", [_wire("x"), _const("radixes", "u64", variadic=True)],
              {"kind": "per_variadic_const", "type": "u64"}),
        _node("unit_interval", [_wire("x")], "f64"),
        _node("to_f64", [_wire("x")], "f64"),
        _node("sin", [_wire("x", "f64")], "f64"),
        _node("interleave", [_wire("a"), _wire("b")], "u64"),
        _node("lerp", [_wire("t", "f64"), _const("a", "f64", {"f64": 0}), _const("b", "f64", {"f64": 4607182418800017408})], "f64"),
        _node("hash_interval", [_wire("x"), _const("min", "f64"), _const("max", "f64")], "f64"),
        _node("format_u64", [_wire("x"), _const("radix", "u64", {"u64": 10})], "str"),
        _node("printf", [_const("fmt", "str"), _wire("args", "any", variadic=True)], "str"),
        _node("str_concat", [_wire("parts", "any", variadic=True)], "str"),
        _node("one_of", [_wire("x"), _const("values", "str", variadic=True)], "str"),
        _node("default_or", [_wire("x", "any"), _wire("fallback", "any")], {"kind": "same_as_wire", "index": 0}),
        _node("pow", [_wire("base", "f64"), _wire("exp", "f64")], "f64"),
        _node("u64_not", [_wire("x")], "u64"),
        _node("f64_to_u64", [_wire("x", "f64")], "u64"),
        _node("date_components", [_wire("x")], {"kind": "fixed", "ports": [[n, "u64"] for n in
              ("year", "month", "day", "hour", "minute", "second", "millis")]}),
        _node("hashed_uuid", [_wire("x")], "str"),
        _node("str_to_i64_test", [_wire("x", "str")], "i64"),
    ]
    for op in ("add", "sub", "mul", "div", "mod", "and", "or", "xor", "shl", "shr", "eq", "ne", "lt", "gt", "le", "ge"):
        nodes.append(_node(f"u64_{op}", [_wire("a"), _wire("b")], "u64"))
    for op in ("add", "sub", "mul", "div", "mod"):
        nodes.append(_node(f"f64_{op}", [_wire("a", "f64"), _wire("b", "f64")], "f64"))
    for op in ("eq", "ne", "lt", "gt", "le", "ge"):
        nodes.append(_node(f"f64_{op}", [_wire("a", "f64"), _wire("b", "f64")], "u64"))
    for op in ("eq", "ne"):
        nodes.append(_node(f"str_{op}", [_wire("a", "str"), _wire("b", "str")], "u64"))
    for family in ("u64", "f64", "str"):
        nodes.append(_node(f"select_{family}", [_wire("cond"), _wire("a", family), _wire("b", family)], family))
    nodes.append(_node("__lit", [_const("value", "any")], {"kind": "const_type", "index": 0}))
    return nodes


def _real_catalog_json() -> str | None:
    try:
        core = importlib.import_module("polydat._core")
        return core.catalog_json()  # type: ignore[no-any-return]
    except Exception:  # noqa: BLE001 - any failure means "not available"
        pass
    try:
        done = subprocess.run(
            ["cargo", "run", "-q", "-p", "polydat-core", "--example", "catalog"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=900,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return done.stdout


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    """The node catalog (real where available, supplemented with test fallbacks)."""
    text = _real_catalog_json()
    entries: list[dict[str, Any]] = json.loads(text) if text else []
    if not entries:
        warnings.warn("no polydat catalog available; DSL tests use the fallback node list only", stacklevel=1)
    known = {e["name"] for e in entries} | {a for e in entries for a in e.get("aliases", ())}
    entries.extend(n for n in _fallback_nodes() if n["name"] not in known)
    return Catalog.from_json(json.dumps(entries))


@pytest.fixture()
def bind(catalog: Catalog):  # type: ignore[no-untyped-def]
    """``bind(source, **options)`` against the session catalog."""

    def run(source: str, **options: Any) -> Any:
        return dsl.bind(source, catalog=catalog, **options)

    return run


@pytest.fixture()
def compile_error(catalog: Catalog):  # type: ignore[no-untyped-def]
    """``compile_error(source, **options)``: the CompileError binding raises,
    or else the one the core raises when it compiles (types) the bound
    program (fails if neither raises)."""

    def run(source: str, **options: Any) -> Any:
        with pytest.raises(dsl.CompileError) as info:
            core_program(dsl.bind(source, catalog=catalog, **options))
        return info.value

    return run

