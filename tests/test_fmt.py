"""``polydat fmt`` (:mod:`polydat.dsl.formatter`): the canonical layout is
idempotent, keeps every comment in order, and keeps the program's meaning
(the same tree, spans aside, and the same graph IR) for every example,
bundled module, documentation sample and random program; the command
rewrites files atomically, checks them, formats standard input and leaves a
file that does not parse untouched."""

from __future__ import annotations

import dataclasses
import glob
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from docs_samples import ROOT, blocks, pages
from hypothesis import HealthCheck, given, settings

import polydat
from polydat import dsl
from polydat.dsl import ast
from polydat.dsl.diagnostics import SourceFile
from polydat.dsl.formatter import PRINTED_NODES, format_source
from polydat.dsl.parser import parse_layout
from polydat.errors import CompileError
from polydat.testing.strategies import programs

PACKAGE_PARENT = str(Path(polydat.__file__).resolve().parent.parent)
STDLIB = Path(polydat.__file__).resolve().parent / "stdlib"

#: Fields that only say where something was written.
_POSITION_FIELDS = re.compile(r"(.*_)?(span|line|col|offset|offsets|lines)$|^(source|source_lines|path)$")


def shape(node: Any) -> Any:
    """``node`` (an AST or any part of one) as plain tuples, positions left out."""
    if isinstance(node, ast.Span):
        return None
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        return (type(node).__name__,) + tuple(
            (f.name, shape(getattr(node, f.name)))
            for f in dataclasses.fields(node)
            if not _POSITION_FIELDS.match(f.name)
        )
    if isinstance(node, tuple) and hasattr(node, "_fields"):
        return (type(node).__name__,) + tuple(
            (name, shape(getattr(node, name))) for name in node._fields if not _POSITION_FIELDS.match(name)
        )
    if isinstance(node, (list, tuple)):
        return tuple(shape(item) for item in node)
    if isinstance(node, dict):
        return tuple(sorted((k, shape(v)) for k, v in node.items()))
    if isinstance(node, (frozenset, set)):
        return frozenset(shape(item) for item in node)
    return node


def tree(source: str, path: str | None = None) -> Any:
    """The parsed program's statements, positions left out."""
    return shape(dsl.parse(source, path=path).statements)


def without_spans(value: Any) -> Any:
    """The IR without its positions (``span``, ``default_span``, ...)."""
    if isinstance(value, dict):
        return {k: without_spans(v) for k, v in value.items() if not k.endswith(("span", "spans"))}
    if isinstance(value, list):
        return [without_spans(v) for v in value]
    return value


def meaning(source: str, path: str | None = None) -> Any:
    """What a program compiles to, positions aside: its IR, docs and pragmas
    (None when it does not bind on its own, e.g. a module file)."""
    try:
        bound = dsl.bind(source, path=path)
    except CompileError:
        return None
    return without_spans(bound.ir), bound.docs, bound.pragmas, bound.output_names


def comment_texts(source: str) -> list[str]:
    """The text of every comment of ``source``, in order (trailing spaces
    aside; a ``///`` doc as a ``//`` comment: a doc inside a statement
    documents nothing and is printed so; the docs that count are compared
    with the tree)."""
    return [re.sub(r"^///(?!/)", "//", c.text.rstrip()) for c in parse_layout(SourceFile(source)).comments]


def assert_round_trip(source: str, path: str | None = None) -> str:
    """Formats ``source`` and checks idempotence, comments and meaning; the formatted text."""
    formatted = format_source(source, path)
    assert format_source(formatted, path) == formatted, "formatting is not idempotent"
    assert tree(formatted, path) == tree(source, path), "the formatted program parses differently"
    assert comment_texts(formatted) == comment_texts(source), "comments lost or reordered"
    assert meaning(formatted, path) == meaning(source, path), "the formatted program compiles differently"
    return formatted


def _files(pattern: str) -> list[str]:
    return sorted(glob.glob(str(ROOT / pattern), recursive=True))


EXAMPLES = _files("examples/**/*.polydat")
MODULE_FILES = sorted(str(p) for p in STDLIB.rglob("*.polydat"))
DOC_SAMPLES = [
    pytest.param(block.text, id=f"{page.relative_to(ROOT)}:{block.line}")
    for page in pages()
    for block in blocks(page, "polydat")
]


@pytest.mark.parametrize("path", EXAMPLES + MODULE_FILES, ids=lambda p: os.path.relpath(p, ROOT))
def test_every_example_and_bundled_module_keeps_its_meaning(path: str) -> None:
    source = Path(path).read_text(encoding="utf-8")
    assert_round_trip(source, path)


def test_the_corpora_are_there() -> None:
    assert len(EXAMPLES) >= 4 and len(MODULE_FILES) >= 10 and len(DOC_SAMPLES) >= 30


@pytest.mark.parametrize("source", DOC_SAMPLES)
def test_every_docs_sample_keeps_its_meaning(source: str) -> None:
    try:
        dsl.parse(source)
    except CompileError:  # a sample showing an error: formatting it fails the same way
        with pytest.raises(CompileError):
            format_source(source)
        return
    assert_round_trip(source)


def test_a_stdlib_module_called_from_a_program_compiles_the_same() -> None:
    caller = "input cycle: u64\nw := square_wave(cycle, 100)\nt := triangle_wave(cycle, 7)\n"
    path = STDLIB / "waves.polydat"
    source = path.read_text(encoding="utf-8")
    formatted = format_source(source, str(path))
    assert formatted != source  # the module file has parentheses the grammar does not need
    before = meaning(caller)
    assert before is not None
    # The same program over a library directory holding the formatted file.
    import tempfile

    with tempfile.TemporaryDirectory() as lib:
        Path(lib, "waves.polydat").write_text(formatted, encoding="utf-8")
        after = dsl.bind(caller, library_path=lib)
    assert any("shadows the bundled module" in w.message for w in after.warnings)  # the formatted file's
    assert without_spans(after.ir) == before[0]


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(programs())
def test_random_programs_round_trip(example: Any) -> None:
    assert_round_trip(example.source)


EVERY_CONSTRUCT = r'''
// A program with every construct of the language.
pragma strict_types
pragma locale "de_DE"
input (cycle: u64, seed)   # two coordinates
extern region: str = "us-east"
extern limit: f64 = -1.5
extern start: decimal(15, 2) = 0

/// The key of a row.
const base := 42
shared total: u64 := 0
volatile   shared   tick := cycle
(h, _, third) := triple(cycle)
hashed := hash(cycle ^ seed) + 1 - (2 - 3) * 4 ** 2 ** 3 / (5 % 6)
neg := -cycle as f64
neg2 := (-cycle) as f64 + --1
flag := !(cycle > 3) && cycle <= 10 || cycle == 7 != false
bits := (cycle << 2 | 1) & 0xFF >> 1
price := (cycle as decimal(15,2)) + 900.99d
ratio := 1.5e3 + 2K + 3Ki + 1m
pick := if(cycle > 3, "a", "b")
tier := if cycle > 900 { "gold" } else if (cycle) > 500 { "silver" } else { if true { "x" } else { "y" } }
sum := (if cycle > 1 { 1 } else { 2 }) + 3
named := format_f64(1.5, precision: 2)
words := [load, verify, "x y"]
label := "user-{cycle + 1}/{region}/{{literal}}/{f(\"q\")}"
plain := "tab\tnew\nline \"quoted\" back\\slash \d"
single := 'it"s'
raw := r"^\d{3}$"
heredoc := <<<
two {lines}
>>>
field := q.cursor.idx
local := de_DE.full_name(cycle)
/* a block
   comment */ after := 1 /* inline */ + 2  // trailing

init seeded = hash(7)
init {
    table := hash(1)
    (a1, a2) := pair(2)
}
init := 3
cursor q = range(0, 1000)
cursor r = range(0, 10) over "0..50%"
sweep := for k in 1..9 order halton/5   # a producer
big := for sweep where {k} > 3
zipped := for (k, c) in zip_cycle(1..5, [10, 20])
both := for [for k in 1..3 where {k} > 1, for k in 7..9] order reverse_lex
for (a, b) in zip_truncate(1..4, fib(6)) {
    ab := u64_add(a, b)
}
for [ for k in 1..3, for k in 10..12, ] where {k} != 2 {
    kk := k
}
for k in 1..4, w in a,b {   # a traversal
    input cycle
    v := "{w}{k}-{cycle}"

    # nested
    for j in 1..2 {
    }
}
tile doc : json := {"id": ${hashed}, "tags": [@for k in 1..3 {"t${k}"}]}
tile line : csv := <<<${hashed},${tier}>>>
page := polytile_json("{\"a\": ${hashed}}")

half(x: u64) -> out := { out := x / 2 }
/// Twice a value.
twice(x, y: f64) -> (a: u64, b) := {
    pragma strict_values
    a := x * 2   # doubled
    b := y
    // last
}
'''


def test_every_construct_prints_and_reparses_to_the_same_tree() -> None:
    formatted = format_source(EVERY_CONSTRUCT)
    assert format_source(formatted) == formatted
    assert tree(formatted) == tree(EVERY_CONSTRUCT)
    assert comment_texts(formatted) == comment_texts(EVERY_CONSTRUCT)


def test_every_ast_node_class_has_a_printer() -> None:
    classes = {
        obj for obj in vars(ast).values()
        if isinstance(obj, type) and obj.__module__ == ast.__name__
        and (dataclasses.is_dataclass(obj) or obj is ast.Span)
    }
    assert classes - PRINTED_NODES == set()


def test_the_canonical_layout() -> None:
    source = (
        "input   cycle:u64\n\n\n\n"
        "x:=((1+2))*3   # why\n"
        "y := (x - 1) - (x - 2)\n"
        "z := x ** (2 ** 3) + (x ** 2) ** 3\n"
        "s := 'a\\'b'\n"
        "m(a:u64)->(b:u64):={b:=a}\n"
    )
    assert format_source(source) == (
        "input cycle: u64\n"
        "\n"
        "x := (1 + 2) * 3  # why\n"
        "y := x - 1 - (x - 2)\n"
        "z := x ** 2 ** 3 + (x ** 2) ** 3\n"
        "s := \"a'b\"\n"
        "m(a: u64) -> (b: u64) := {\n"
        "    b := a\n"
        "}\n"
    )


def test_a_doc_inside_a_statement_documents_nothing_and_becomes_a_plain_comment() -> None:
    source = "/// kept\nh := hash(cycle /// stray\n)\nm(a /// stray\n) -> (b) := { /// kept\n b := a\n /// before }\n}\n"
    assert format_source(source) == (
        "/// kept\n// stray\nh := hash(cycle)\nm(a) -> (b) := {  // stray\n    /// kept\n    b := a\n    /// before }\n}\n"
    )
    assert tree(format_source(source)) == tree(source)


def test_init_forms_keep_their_shape() -> None:
    source = "init /* c */ {\n a := 1\n (b, c) := pair(2) # two\n}\ninit x = 1\ninit := 3\n"
    assert assert_round_trip(source) == (
        "init {  /* c */\n    a := 1\n    (b, c) := pair(2)  # two\n}\ninit x := 1\ninit := 3\n"
    )


def test_the_formatting_page_shows_what_fmt_writes() -> None:
    before, after = blocks(ROOT / "docs" / "language" / "formatting.md", "polydat")[:2]
    assert format_source(before.text) == after.text
    assert format_source(after.text) == after.text


def test_trailing_comments_of_neighbouring_lines_line_up() -> None:
    source = "a := 1 # one\nlonger := 2      # two\n\nc := 3    # three\n"
    assert format_source(source) == "a := 1       # one\nlonger := 2  # two\n\nc := 3  # three\n"


def test_a_deep_expression_prints_without_recursion() -> None:
    source = "x := " + " + ".join(["1"] * 5000) + "\n"
    assert format_source(source) == source


def test_a_source_that_does_not_parse_is_a_compile_error() -> None:
    with pytest.raises(CompileError, match="expected an expression"):
        format_source("x := (\n")


# -- the command ---------------------------------------------------------------


def polydat_cli(*args: str, stdin: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (PACKAGE_PARENT, env.get("PYTHONPATH")) if p)
    return subprocess.run(
        [sys.executable, "-m", "polydat", *args], input=stdin, capture_output=True, text=True, env=env, cwd=cwd
    )


def test_fmt_rewrites_files_in_place(tmp_path: Path) -> None:
    messy = tmp_path / "messy.polydat"
    messy.write_text("x:=1+2   # sum\n")
    messy.chmod(0o640)
    tidy = tmp_path / "tidy.polydat"
    tidy.write_text("y := 2\n")
    before = tidy.stat().st_mtime_ns
    result = polydat_cli("fmt", str(messy), str(tidy))
    assert result.returncode == 0, result.stderr
    assert messy.read_text() == "x := 1 + 2  # sum\n"
    assert messy.stat().st_mode & 0o777 == 0o640  # replaced atomically, mode kept
    assert tidy.stat().st_mtime_ns == before  # unchanged files are not rewritten
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary file left


def test_fmt_check_lists_the_files_that_would_change(tmp_path: Path) -> None:
    messy = tmp_path / "messy.polydat"
    messy.write_text("x:=1\n")
    tidy = tmp_path / "tidy.polydat"
    tidy.write_text("y := 2\n")
    result = polydat_cli("fmt", "--check", str(messy), str(tidy))
    assert result.returncode == 1
    assert result.stdout.splitlines() == [str(messy)]
    assert messy.read_text() == "x:=1\n"  # nothing written
    result = polydat_cli("fmt", "--check", str(tidy))
    assert (result.returncode, result.stdout) == (0, "")


def test_fmt_reads_standard_input(tmp_path: Path) -> None:
    result = polydat_cli("fmt", "-", stdin="x:=1\n", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, "x := 1\n")
    result = polydat_cli("fmt", "--check", "-", stdin="x:=1\n", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (1, "-\n")


def test_fmt_leaves_a_file_that_does_not_parse_untouched(tmp_path: Path) -> None:
    broken = tmp_path / "broken.polydat"
    broken.write_text("x:=1\ny := (\n")
    fine = tmp_path / "fine.polydat"
    fine.write_text("z:=3\n")
    result = polydat_cli("fmt", str(broken), str(fine))
    assert result.returncode == 1
    assert "broken.polydat:3:1: error: expected an expression" in result.stderr.replace(":error:", ": error:")
    assert broken.read_text() == "x:=1\ny := (\n"
    assert fine.read_text() == "z := 3\n"  # the other files are still formatted


def test_fmt_refuses_a_workload(tmp_path: Path) -> None:
    workload = tmp_path / "w.yaml"
    workload.write_text("scenarios: {}\n")
    result = polydat_cli("fmt", str(workload))
    assert result.returncode == 1 and "not workloads" in result.stderr
