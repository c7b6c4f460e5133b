"""Modules are found by name: unrelated files in the module directories are not parsed.

An unknown call name used to parse every ``*.polydat`` file of the source and
library directories (a 200k-line file there made each typo cost 40 s), and
``library_path="/dir"`` was iterated character by character.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from polydat import dsl
from polydat.dsl import modules, parser


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture()
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths of the module files parsed during the test."""
    seen: list[str] = []
    real = parser.parse_file

    def spy(file):  # type: ignore[no-untyped-def]
        if file.path is not None:
            seen.append(os.path.basename(file.path))
        return real(file)

    monkeypatch.setattr(parser, "parse_file", spy)
    monkeypatch.setattr(modules, "_PARSED", {})
    monkeypatch.setattr(modules, "_SCANNED", {})
    return seen


def big_file(path: Path, lines: int) -> Path:
    return write(path, "".join(f"v{i} := hash(v{i - 1}) + lookup_key\n" for i in range(1, lines)) + "v0 := 1\n")


def test_a_typo_parses_no_unrelated_file(catalog, tmp_path: Path, parsed: list[str]) -> None:  # type: ignore[no-untyped-def]
    lib = tmp_path / "lib"
    big_file(lib / "big.polydat", 20_000)
    write(lib / "other.polydat", "other(x) -> (y) := { y := x }")
    diagnostics = dsl.check("input c\nv := hsah(c)", library_path=lib, catalog=catalog)
    assert [d.message for d in diagnostics] == ["unknown node 'hsah'"]
    assert parsed == []


def test_a_file_that_only_reads_the_name_is_not_parsed(compile_error, tmp_path: Path, parsed: list[str]) -> None:  # type: ignore[no-untyped-def]
    lib = tmp_path / "lib"
    big_file(lib / "big.polydat", 5_000)  # reads lookup_key on every line, never binds it
    err = compile_error("input c\nv := lookup_key(c)", library_path=[lib])
    assert err.message == "unknown node 'lookup_key'"
    assert parsed == []


def test_the_file_that_binds_the_name_is_parsed(bind, tmp_path: Path, parsed: list[str]) -> None:  # type: ignore[no-untyped-def]
    lib = tmp_path / "lib"
    big_file(lib / "aaa_big.polydat", 5_000)
    write(lib / "defs.polydat", "input seed\njitter /* the compat form */ := mod(hash(seed), 100)\n")
    write(lib / "pair.polydat", "(lo, hi) := mixed_radix(x, 10, 0)\n")
    write(lib / "mod.polydat", "triple(x: u64) -> (y: u64) := { y := x * 3 }\n")
    bound = bind("input c\nv := jitter(c)\nw := triple(c)\nz := hi(c)", library_path=[lib])
    assert bound.output_types == {"v": "u64", "w": "u64", "z": "u64"}
    assert parsed == ["defs.polydat", "mod.polydat", "pair.polydat"]


def test_the_exact_file_is_tried_first_and_parses_are_cached(bind, tmp_path: Path, parsed: list[str]) -> None:  # type: ignore[no-untyped-def]
    lib = tmp_path / "lib"
    module = write(lib / "triple.polydat", "triple(x) -> (y) := { y := x * 3 }\n")
    write(lib / "also.polydat", "triple(x) -> (y) := { y := x * 4 }\n")
    for _ in range(3):
        bound = bind("input c\nv := triple(c)", library_path=lib)
    assert parsed == ["triple.polydat"], "one parse for three binds"
    assert bound.ir["nodes"][0]["args"][0] == {"const": {"u64": 3}}
    module.write_text("triple(x) -> (y) := { y := x * 33 }\n", encoding="utf-8")
    stat = module.stat()
    os.utime(module, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    bound = bind("input c\nv := triple(c)", library_path=lib)
    assert parsed == ["triple.polydat", "triple.polydat"], "a changed file is parsed again"
    assert bound.ir["nodes"][0]["args"][0] == {"const": {"u64": 33}}


@pytest.mark.parametrize("as_", ["str", "path", "list", "tuple_of_str", "bytes"])
def test_library_path_may_be_one_directory_or_several(bind, tmp_path: Path, as_: str) -> None:  # type: ignore[no-untyped-def]
    lib = tmp_path / "lib"
    write(lib / "double.polydat", "double(x) -> (y) := { y := x * 2 }")
    library_path = {
        "str": str(lib), "path": lib, "list": [lib], "tuple_of_str": (str(tmp_path / "none"), str(lib)),
        "bytes": os.fsencode(lib),
    }[as_]
    bound = bind("input c\nv := double(c)", library_path=library_path)
    assert bound.output_types == {"v": "u64"}
    assert modules.ModuleLoader(library_path).library_path[-1] == str(lib)


def test_may_define_recognises_every_definition_form() -> None:
    for text in ["x := 1", "x:=1", "shared x: u64 := 1", "x(a) -> (b) := { b := a }", "(a, x) := f(1)",
                 "(x,\n b) := f(1)", "x // why\n := 2", "( a /* c */, x ) := f(1)"]:
        assert modules.may_define(text, "x"), text
    for text in ["y := x + 1", "y := f(a, x)", "y := xx", "xy := 1", "y := f(x) + z", "# x"]:
        assert not modules.may_define(text, "x"), text
