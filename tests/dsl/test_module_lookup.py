"""Modules are found by name: unrelated files in the module directories are not parsed.

An unknown call name used to parse every ``*.polydat`` file of the source and
library directories (a 200k-line file there made each typo cost 40 s), and
``library_path="/dir"`` was iterated character by character.
"""

from __future__ import annotations

from dsl_helpers import output_types, core_tree

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


def test_the_file_that_defines_the_name_is_parsed(bind, tmp_path: Path, parsed: list[str]) -> None:  # type: ignore[no-untyped-def]
    lib = tmp_path / "lib"
    big_file(lib / "aaa_big.polydat", 5_000)
    write(lib / "jitter.polydat", "input seed\njitter /* the compat form */ := mod(hash(seed), 100)\n")
    write(lib / "mod.polydat", "triple(x: u64) -> (y: u64) := {\n  y := x * 3\n}\n")
    bound = bind("input c\nv := jitter(c)\nw := triple(c)", library_path=[lib])
    assert output_types(bound) == {"v": "u64", "w": "u64"}
    assert parsed == ["jitter.polydat", "mod.polydat"]


def test_bindings_of_other_files_are_not_modules(compile_error, tmp_path: Path, parsed: list[str]) -> None:  # type: ignore[no-untyped-def]
    # Only the file named after a module provides it in the compatibility form.
    lib = tmp_path / "lib"
    write(lib / "defs.polydat", "input seed\njitter := mod(hash(seed), 100)\n")
    write(lib / "pair.polydat", "(lo, hi) := mixed_radix(x, 10, 0)\n")
    assert compile_error("input c\nv := jitter(c)", library_path=[lib]).message == "unknown node 'jitter'"
    assert compile_error("input c\nv := hi(c)", library_path=[lib]).message == "unknown node 'hi'"
    assert parsed == [], "a file that only binds the name is not even parsed"


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
    assert output_types(bound) == {"v": "u64"}
    assert modules.ModuleLoader(library_path).library_path[-1] == str(lib)


def test_may_define_recognises_every_definition_form() -> None:
    for text in ["x := 1", "x:=1", "shared x: u64 := 1", "x(a) -> (b) := { b := a }", "(a, x) := f(1)",
                 "(x,\n b) := f(1)", "x // why\n := 2", "( a /* c */, x ) := f(1)"]:
        assert modules.may_define(text, "x"), text
    for text in ["y := x + 1", "y := f(a, x)", "y := xx", "xy := 1", "y := f(x) + z", "# x"]:
        assert not modules.may_define(text, "x"), text


def test_a_sibling_program_does_not_hide_the_bundled_field_modules(tmp_path: Path) -> None:
    """users.polydat binds `email := email(id)` and constants.polydat binds
    `country`; orders.polydat beside them calls the bundled `email` and
    `country`: neither binding is a module (it used to be "module 'email'
    calls itself" and a silent `Atlantis-0`)."""
    import polydat

    write(tmp_path / "users.polydat", "input id\nname := full_name(id)\nemail := email(id)\n")
    write(tmp_path / "constants.polydat", 'input id\ncountry := "Atlantis-{id}"\n')
    orders = write(
        tmp_path / "orders.polydat", "input user_id\nmail := email(user_id)\nplace := country(user_id)\n"
    )
    prog = polydat.compile_file(orders)
    assert prog.warnings == []
    rows = prog.generate(range(50))
    bundled = polydat.compile("input user_id\nmail := email(user_id)\nplace := country(user_id)").generate(range(50))
    assert list(rows["mail"]) == list(bundled["mail"])
    assert list(rows["place"]) == list(bundled["place"])
    assert not any(str(p).startswith("Atlantis") for p in rows["place"])
    users = polydat.compile_file(tmp_path / "users.polydat").generate(range(5))
    assert list(users["email"]) == list(bundled["mail"][:5])


def test_a_user_module_shadowing_a_bundled_one_is_a_warning_naming_both(tmp_path: Path) -> None:
    import polydat
    from polydat.dsl.modules import STDLIB_DIR

    mine = write(tmp_path / "mine.polydat", 'email(key: u64) -> (address: str) := {\n  address := "u{key}@corp"\n}\n')
    orders = write(tmp_path / "orders.polydat", "input user_id\nmail := email(user_id)\n")
    prog = polydat.compile_file(orders)
    assert list(prog.generate(range(2))["mail"]) == ["u0@corp", "u1@corp"], "the user's module is used"
    [warning] = prog.warnings
    assert warning.severity == "warning"
    assert (warning.path, warning.line, warning.col) == (str(orders), 2, 9)
    assert f"module 'email' from {mine}:1:1 shadows the bundled module 'email'" in warning.message
    assert os.path.join(STDLIB_DIR, "people.polydat") in warning.message
    rendered = [d.render() for d in polydat.check(orders.read_text(), path=orders)]
    assert any("shadows the bundled module 'email'" in r for r in rendered)
    # The compatibility form of a file named after the module shadows too.
    (tmp_path / "mine.polydat").unlink()
    write(tmp_path / "country.polydat", 'input key\ncountry := "Atlantis-{key}"\n')
    write(orders, "input user_id\nplace := country(user_id)\n")
    prog = polydat.compile_file(orders)
    assert list(prog.generate(range(1))["place"]) == ["Atlantis-0"]
    assert "module 'country' from " in prog.warnings[0].message
    # A module defined in the calling file is its own business: no warning.
    inline = polydat.compile('email(key: u64) -> (a: str) := {\n  a := "x"\n}\ninput k\nm := email(k)')
    assert inline.warnings == []
