"""Modules named by their file: a library file `keygen.polydat` holding an
anonymous definition `(id: u64) -> (code: u64) := { ... }`, or just bindings
(its free names the parameters, its unread bindings the outputs)."""

from __future__ import annotations

from pathlib import Path

import pytest

import polydat
from polydat import CompileError


def test_an_anonymous_definition_is_named_by_its_file(tmp_path: Path) -> None:
    (tmp_path / "keygen.polydat").write_text(
        "// keygen.polydat: the module is named by its file\n"
        "(id: u64) -> (code: u64, score: f64) := {\n"
        "    init salt = hash(7)\n"
        "    hashed := hash(id + salt)\n"
        "    code := mod(hashed, 10000)\n"
        "    score := unit_interval(hashed)\n"
        "}\n"
    )
    kernel = polydat.compile("input cycle\n(c, s) := keygen(cycle)", library_path=[tmp_path]).kernel()
    kernel.set_inputs(cycle=5)
    expected = polydat.compile("h := hash(5 + hash(7))\nc := mod(h, 10000)\ns := unit_interval(h)").kernel()
    assert (kernel.pull("c"), kernel.pull("s")) == (expected.pull("c"), expected.pull("s"))


def test_a_file_of_bindings_is_a_module(tmp_path: Path) -> None:
    (tmp_path / "labels.polydat").write_text("hashed := hash(id)\ncode := mod(hashed, 10000)\nlabel := \"L{code}\"\n")
    kernel = polydat.compile("input cycle\nl := labels(cycle)", library_path=[tmp_path]).kernel()
    kernel.set_inputs(cycle=5)
    assert kernel.pull("l") == f"L{polydat.compile('x := mod(hash(5), 10000)').kernel().pull('x')}"
    with pytest.raises(CompileError) as info:
        polydat.compile("input cycle\nl := labels(id: cycle, extra: 1)", library_path=[tmp_path])
    assert "extra" in info.value.message, "its parameters are its free names"


def test_an_anonymous_definition_needs_a_file_name() -> None:
    with pytest.raises(CompileError) as info:
        polydat.compile("(a: u64) -> (b: u64) := {\n b := a\n}")
    assert info.value.message == (
        "an anonymous module is named by its file, and this source has no usable file name"
    )
    assert (info.value.line, info.value.col) == (1, 1)
