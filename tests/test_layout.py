"""The package's layout: one door from Python to the compiled core.

Only a few modules talk to the extension ``polydat._core`` directly: the
program and generation layers, the frontend's questions to the core
(``dsl/corerules.py``) and the comprehension's orders, and the workload
package. Every other module asks one of them, so what Python relies on from
the core is in one place. This test reads every module's source with ``ast``
(nothing is imported) and fails when another module imports the core.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE_DIR = Path(__file__).resolve().parent.parent / "python" / "polydat"
CORE = "polydat._core"

ALLOWED = {
    "polydat.program",
    "polydat.generate",
    "polydat.dsl.comprehension",
    "polydat.dsl.corerules",
}
"""The modules that may import the core, besides the workload package's."""

ALLOWED_PACKAGES = ("polydat.workload",)
"""Packages whose every module may import the core."""


def module_name(path: Path) -> str:
    """The dotted name of the module at ``path`` under :data:`PACKAGE_DIR`."""
    parts = list(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _absolute(module: str, is_package: bool, relative: str) -> str:
    """``relative`` (``.x``, ``..x``, or an absolute name) resolved from inside ``module``."""
    level = len(relative) - len(relative.lstrip("."))
    if level == 0:
        return relative
    base = module.split(".")
    if not is_package:
        base.pop()
    base = base[: len(base) - (level - 1)]
    rest = relative[level:]
    return ".".join([*base, rest] if rest else base)


def _is_import_call(node: ast.Call) -> bool:
    """``importlib.import_module(...)``, ``import_module(...)`` or ``__import__(...)``."""
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    return name in ("import_module", "__import__")


def imports_core(source: str, module: str, is_package: bool = False) -> list[int]:
    """The lines of ``source`` (module ``module``) that import the core: any
    ``import``/``from`` statement naming it (absolute or relative, under
    ``TYPE_CHECKING`` too) or an ``import_module``/``__import__`` call with
    its name (relative names resolved against the module's package)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            if any(a.name == CORE or a.name.startswith(CORE + ".") for a in node.names):
                found.append(node.lineno)
        elif isinstance(node, ast.ImportFrom):
            target = _absolute(module, is_package, "." * node.level + (node.module or ""))
            if target == CORE or target.startswith(CORE + ".") or (
                target == "polydat" and any(a.name == "_core" for a in node.names)
            ):
                found.append(node.lineno)
        elif isinstance(node, ast.Call) and _is_import_call(node) and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                text = first.value
                name = _absolute("polydat", True, text) if text.startswith(".") else text
                if name == CORE or text.endswith("._core") or text == "_core":
                    found.append(node.lineno)
    return sorted(found)


def core_importers() -> dict[str, list[int]]:
    """Every module of the package that imports the core, with the lines."""
    found = {}
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        name = module_name(path)
        lines = imports_core(path.read_text(encoding="utf-8"), name, path.name == "__init__.py")
        if lines:
            found[name] = lines
    return found


def test_only_the_doors_import_the_core() -> None:
    found = core_importers()
    stray = {
        name: lines
        for name, lines in found.items()
        if name not in ALLOWED and not any(name == p or name.startswith(p + ".") for p in ALLOWED_PACKAGES)
    }
    assert not stray, (
        f"these modules import {CORE} directly; ask polydat.program, polydat.generate or dsl.corerules: {stray}"
    )
    # The detector sees both spellings the doors use (a statement, importlib).
    assert "polydat.program" in found and "polydat.dsl.corerules" in found, found


@pytest.mark.parametrize(
    ("source", "module", "is_package"),
    [
        ("from . import _core\n", "polydat.cli", False),
        ("from .. import _core\n", "polydat.dsl.catalog", False),
        ("from . import _core\n", "polydat", True),
        ("from ._core import engines\n", "polydat.bench", False),
        ("import polydat._core\n", "polydat.fields", False),
        ("import polydat._core as c\n", "polydat.fields", False),
        ("from polydat import _core\n", "polydat.testing.matrix", False),
        ("from polydat import errors, _core\n", "polydat.testing.matrix", False),
        ("if TYPE_CHECKING:\n    from . import _core\n", "polydat.stream", False),
        ("def f():\n    from . import _core\n", "polydat.cli", False),
        ("import importlib\nimportlib.import_module('polydat._core')\n", "polydat.fields", False),
        ("import importlib\nimportlib.import_module('._core', __name__)\n", "polydat", True),
        ("__import__('polydat._core')\n", "polydat.fields", False),
    ],
)
def test_every_spelling_of_a_core_import_is_seen(source: str, module: str, is_package: bool) -> None:
    assert imports_core(source, module, is_package), source


@pytest.mark.parametrize(
    "source",
    [
        "from . import program\n",
        "from .program import engine_names\n",
        "from .dsl import corerules\n",
        "core = getattr(program, '_core', program)\n",
        "import importlib\nimportlib.import_module('polydat.program')\n",
    ],
)
def test_other_imports_are_not_core_imports(source: str) -> None:
    assert not imports_core(source, "polydat.cli"), source
