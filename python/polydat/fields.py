"""The bundled field modules and the data files they pick from.

A *field* is a module of the library shipped with the package
(:data:`polydat.dsl.modules.STDLIB_DIR`) whose one parameter is ``key: u64``
(``email(key)``, ``full_name(key)``, ``country(key)``, ...): a pure function
of the key. :func:`fields` lists them with their signature, doc comment, an
example value and the data files they read; :func:`data_files` lists those
files (what the core embeds: name, entries, source and licence), which the
package also ships in :data:`DATA_DIR` with a README giving their
provenance. ``polydat fields`` and ``polydat data`` print them.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["DATA_DIR", "EXAMPLE_KEY", "Field", "data_files", "fields", "field"]

DATA_DIR = str(Path(__file__).resolve().parent / "data")
"""The data files shipped with the package and their ``README.md``."""

EXAMPLE_KEY = 42
"""The key of every field's example value."""


@dataclass(frozen=True)
class Field:
    """One bundled field module."""

    name: str
    file: str
    """The module file it is defined in (a path)."""
    signature: str
    doc: str
    example: str
    """The value for key :data:`EXAMPLE_KEY` (outputs joined by ``, ``)."""
    data: tuple[str, ...]
    """The data files it picks from (names in :data:`DATA_DIR`)."""

    def render(self, licences: dict[str, str]) -> str:
        """The field as ``polydat fields`` prints it."""
        lines = [f"{self.signature}    ({os.path.basename(self.file)})"]
        lines += [f"    {line}" for line in self.doc.splitlines()]
        lines.append(f"    e.g. {self.name}({EXAMPLE_KEY}) = {self.example}")
        for name in self.data:
            lines.append(f"    data: {name} ({licences.get(name, '?')})")
        if not self.data:
            lines.append("    data: none (computed from the key)")
        return "\n".join(lines)


@functools.lru_cache(maxsize=1)
def data_files() -> list[dict[str, Any]]:
    """The bundled data files as the core embeds them: per file its
    ``name``, ``about``, ``source``, ``licence``, ``columns``, ``entries``
    (data rows) and ``nodes`` (the nodes that pick from it)."""
    from .program import data_files as embedded_data_files

    return embedded_data_files()


def _signature(definition: Any) -> str:
    def params(items: Any) -> str:
        return ", ".join(f"{p.name}: {p.type_name}" if p.type_name else p.name for p in items)

    return f"{definition.name}({params(definition.params)}) -> ({params(definition.outputs)})"


def _is_field(definition: Any) -> bool:
    return [(p.name, p.type_name) for p in definition.params] == [("key", "u64")]


@functools.lru_cache(maxsize=1)
def fields() -> list[Field]:
    """Every bundled field module, by file then name."""
    from . import compile as compile_program
    from .dsl.diagnostics import SourceFile
    from .dsl.modules import MODULE_SUFFIX, STDLIB_DIR
    from .dsl.parser import parse_file

    by_node: dict[str, list[str]] = {}
    for listed in data_files():
        for node in listed["nodes"]:
            by_node.setdefault(node, []).append(listed["name"])
    found = []
    for entry in sorted(os.listdir(STDLIB_DIR)):
        if not entry.endswith(MODULE_SUFFIX):
            continue
        path = os.path.join(STDLIB_DIR, entry)
        program = parse_file(SourceFile(Path(path).read_text(encoding="utf-8"), path))
        for definition in program.modules:
            if not _is_field(definition):
                continue
            outputs = [o.name for o in definition.outputs]
            targets = outputs[0] if len(outputs) == 1 else f"({', '.join(outputs)})"
            prog = compile_program(f"input key\n{targets} := {definition.name}(key)", engine="p1")
            row = prog.generate(range(EXAMPLE_KEY, EXAMPLE_KEY + 1))
            example = ", ".join(repr(row[o].tolist()[0]) for o in outputs)
            ops = {node["op"] for node in prog._bound.ir["nodes"]}
            data = sorted({name for op in ops for name in by_node.get(op, ())})
            found.append(Field(definition.name, path, _signature(definition), definition.doc or "", example, tuple(data)))
    return found


def field(name: str) -> Field | None:
    """The bundled field module ``name``, if there is one."""
    return next((f for f in fields() if f.name == name), None)


def licences() -> dict[str, str]:
    """The licence of each data file, by file name."""
    return {d["name"]: d["licence"] for d in data_files()}
