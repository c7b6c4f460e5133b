"""The bundled modules and the data files they pick from.

Every module of the library shipped with the package
(:data:`polydat.dsl.modules.STDLIB_DIR`) is listed. A *field* is one whose
one parameter is ``key: u64`` (``email(key)``, ``full_name(key)``,
``iban(key)``, ...): a pure function of the key. The others take more
(``bounded_normal_int(input, mean, stddev, min, max)``, ``hashed_id(input,
bound)``, ...); a line ``Example: CALL`` of such a module's doc comment gives
the call its example value comes from, over the name ``key``.
:func:`fields` lists them with their signature, doc comment, an example value
and the data files they read, :func:`search` those matching a keyword;
:func:`data_files` lists those files (what the core embeds: name, entries,
source and licence), which the package also ships in :data:`DATA_DIR` with a
README giving their provenance. ``polydat fields`` and ``polydat data`` print
them.
"""

from __future__ import annotations

import json

import datetime
import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["DATA_DIR", "EXAMPLE_KEY", "Field", "data_files", "fields", "field", "search"]

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
    """The value for key :data:`EXAMPLE_KEY` (outputs joined by ``, ``);
    empty for a module with no example call."""
    data: tuple[str, ...]
    """The data files it picks from (names in :data:`DATA_DIR`)."""
    call: str = ""
    """The call :attr:`example` is the value of, over the name ``key``
    (``email(key)``, ``hashed_id(key, 1000)``); empty when there is none."""
    locales: tuple[str, ...] = ("en_US",)
    """The locales it has values of its own in (en_US, and each locale whose
    data ``<locale>.<name>(key)`` reads: `docs/locales.md`)."""

    @property
    def example_call(self) -> str:
        """:attr:`call` with the key written out (``email(42)``); empty when there is none."""
        return re.sub(r"\bkey\b", str(EXAMPLE_KEY), self.call)

    @property
    def is_keyed(self) -> bool:
        """Whether the module is a field proper: its one parameter is ``key: u64``."""
        return self.signature.startswith(f"{self.name}(key: u64) ->")

    def matches(self, keyword: str) -> bool:
        """Whether ``keyword`` (any case) is in the module's name or doc comment."""
        word = keyword.lower()
        return word in self.name.lower() or word in self.doc.lower()

    def render(self, licences: dict[str, str]) -> str:
        """The field as ``polydat fields`` prints it."""
        lines = [f"{self.signature}    ({os.path.basename(self.file)})"]
        lines += [f"    {line}" for line in self.doc.splitlines()]
        if not self.example_call:
            return "\n".join(lines)
        lines.append(f"    e.g. {self.example_call} = {self.example}")
        if self.is_keyed:
            lines.append(f"    locales: {', '.join(self.locales)}")
        for name in self.data:
            lines.append(f"    data: {name} ({licences.get(name, '?')})")
        if not self.data:
            lines.append("    data: none (computed from its inputs)" if not self.is_keyed
                         else "    data: none (computed from the key)")
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


_EXAMPLE_LINE = re.compile(r"^Example:\s*(?P<call>.+?)\s*$", re.MULTILINE)
"""A doc comment's example call line (``Example: hashed_id(key, 1000)``)."""


def _example_call(definition: Any) -> str | None:
    """The call over ``key`` whose value is the module's example: ``name(key)``
    for a field, else its doc comment's ``Example:`` line, if it has one."""
    if _is_field(definition):
        return f"{definition.name}(key)"
    found = _EXAMPLE_LINE.search(definition.doc or "")
    return found.group("call") if found else None


def _shown(value: Any) -> str:
    """An example value as ``polydat fields`` prints it: a date or time in
    ISO form, anything else as Python writes it."""
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    return repr(value)


@functools.lru_cache(maxsize=1)
def fields() -> list[Field]:
    """Every bundled module, by file then source order."""
    from . import compile as compile_program
    from .dsl.modules import DEFAULT_LOCALE, bundled_modules

    by_node: dict[str, list[str]] = {}
    for listed in data_files():
        for node in listed["nodes"]:
            by_node.setdefault(node, []).append(listed["name"])
    found = []
    for path, definition in bundled_modules():
        doc = _EXAMPLE_LINE.sub("", definition.doc or "").strip()
        call = _example_call(definition)
        example = ""
        data: tuple[str, ...] = ()
        if call is not None:
            outputs = [o.name for o in definition.outputs]
            targets = outputs[0] if len(outputs) == 1 else f"({', '.join(outputs)})"
            prog = compile_program(f"input key\n{targets} := {call}", engine="p1")
            row = prog.generate(range(EXAMPLE_KEY, EXAMPLE_KEY + 1))
            example = ", ".join(_shown(row[o].tolist()[0]) for o in outputs)
            ops = {node["op"] for node in prog._bound.ir["nodes"]}
            data = tuple(sorted({name for op in ops for name in by_node.get(op, ())}))
        locales = _locales(definition.name, targets) if _is_field(definition) else (DEFAULT_LOCALE,)
        found.append(Field(definition.name, path, _signature(definition), doc, example, data, call or "", locales))
    return found


def search(keyword: str) -> list[Field]:
    """The bundled modules whose name or doc comment holds ``keyword`` (any case)."""
    return [f for f in fields() if f.matches(keyword)]


def _locales(name: str, targets: str) -> tuple[str, ...]:
    """The locales field ``name`` has values of its own in: en_US, and each
    other locale where ``<locale>.<name>(key)`` computes something else than
    the en_US field (its own module, or the en_US one calling the locale's:
    ``email`` calls ``username``). ``targets`` binds its outputs."""
    from .dsl import bind
    from .dsl.modules import DEFAULT_LOCALE, locale_names

    def graph(call: str) -> list[tuple[str, str]]:
        nodes = bind(f"input key: u64\n{targets} := {call}(key)").ir["nodes"]
        return [(node["op"], json.dumps(node.get("args"), sort_keys=True)) for node in nodes]

    en_us = graph(name)
    return (DEFAULT_LOCALE, *(loc for loc in locale_names() if loc != DEFAULT_LOCALE and graph(f"{loc}.{name}") != en_us))


def field(name: str) -> Field | None:
    """The bundled field module ``name``, if there is one."""
    return next((f for f in fields() if f.name == name), None)


def licences() -> dict[str, str]:
    """The licence of each data file, by file name."""
    return {d["name"]: d["licence"] for d in data_files()}
