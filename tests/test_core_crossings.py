"""How often a compile crosses into the core: the frontend types nothing
(operators, `if`, casts, declarations and literals are the core's to type),
so compiling a program asks the core one thing, to compile it, once the
per-process answers (the catalog, the type spellings, the request's names,
the argument matching of a call's shape) are known."""

from __future__ import annotations

from typing import Any

import pytest

import polydat
import polydat.dsl.comprehension as comprehension
import polydat.dsl.corerules as corerules
import polydat.program as program


class _Counting:
    """The extension, with every call through it counted by name."""

    def __init__(self, real: Any, calls: list[str], prefix: str = "") -> None:
        self._real, self._calls, self._prefix = real, calls, prefix

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._real, name)
        if isinstance(value, type) and name == "Program":
            return _Counting(value, self._calls, "Program.")
        if not callable(value) or isinstance(value, type):
            return value

        def counted(*args: Any, **kwargs: Any) -> Any:
            self._calls.append(self._prefix + name)
            return value(*args, **kwargs)

        return counted


SHAPES = (
    "input cycle\nextern n: i64 = 4\n(a, b) := mixed_radix(cycle, 7, 0)\nm := n - 20000\n"
    "s := \"k{a}\" + b\nq := if a > 2 { m } else { 5 }\nz := mod(hash(cycle), 1000)\nshared t: f64 := 1\n"
)


def test_a_compile_crosses_into_the_core_once(monkeypatch: pytest.MonkeyPatch) -> None:
    polydat.compile(SHAPES)  # the per-process answers: catalog, type spellings, request, these call shapes
    calls: list[str] = []
    core = program._core
    monkeypatch.setattr(program, "_core", _Counting(core, calls))
    monkeypatch.setattr(corerules, "_core", lambda: _Counting(core, calls))
    monkeypatch.setattr(comprehension, "_core", _Counting(core, calls), raising=False)
    other = SHAPES.replace("20000", "3").replace("1000", "77").replace('"k{a}"', '"j{b}"')
    compiled = polydat.compile(other)
    assert calls == ["Program.compile"]
    assert compiled.outputs == {
        "a": "u64", "b": "u64", "m": "i64", "s": "str", "q": "i64", "z": "u64", "t": "f64",
    }
