"""Binding is linear in the program's size, and the parser's fast paths change nothing.

The bind used to be superlinear (5k/10k/20k/40k statements: 1.0/2.3/6.1/15.2 s),
mostly from the cyclic garbage collector walking the ever-growing AST and IR.
The test compares the cost of 10k and 40k statements (CPU time, best of three,
after a warm-up): a linear bind costs about 4 times as much, a quadratic one 16.
"""

from __future__ import annotations

from dsl_helpers import output_types

import random
import time

from polydat import dsl
from polydat.dsl import ast
from polydat.dsl.diagnostics import SourceFile
from polydat.dsl.parser import Parser, parse_file


def chain(n: int) -> str:
    lines = ["x0 := hash(cycle)"] + [f"x{i} := hash(x{i - 1})" for i in range(1, n)]
    return "\n".join(lines) + "\n"


def mixed(n: int) -> str:
    lines = ["input cycle", "x0 := hash(cycle)"]
    for i in range(1, n):
        p = f"x{i - 1}"
        lines.append([
            f"x{i} := hash({p}) + {i} * 3",
            f"x{i} := mod({p}, 1000) % 7 + (({p} & 255) << 1)",
            f's{i} := "id-{{{p}}}-" + "tail"\nx{i} := hash({p})',
            f"f{i} := unit_interval({p}) * 2.5 - 1.0\nx{i} := if {p} > 10 {{ {p} }} else {{ 3 }}",
            f'x{i} := format_u64({p}) == "7"',
        ][i % 5])
    return "\n".join(lines) + "\n"


def best_of_three(source: str, catalog) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(3):
        start = time.process_time()
        dsl.bind(source, catalog=catalog)
        times.append(time.process_time() - start)
    return min(times)


def test_bind_time_grows_linearly(catalog) -> None:  # type: ignore[no-untyped-def]
    small, large = chain(10_000), chain(40_000)
    dsl.bind(large, catalog=catalog)  # warm-up: imports, caches, the allocator's arenas
    ratios = []
    for _ in range(2):  # a second measurement only if the machine was busy during the first
        ratio = best_of_three(large, catalog) / best_of_three(small, catalog)
        ratios.append(ratio)
        if ratio < 6:
            break
    assert min(ratios) < 6, f"40k statements cost {min(ratios):.1f}x 10k statements (linear: about 4)"


def _parse(source: str, fast: bool) -> tuple[object, ...]:
    """Statements, diagnostics and unparsed names, with or without the fast paths."""
    from polydat.dsl.lexer import Lexer

    file = SourceFile(source)
    lexer = Lexer(file)
    lexer.fast_lines = fast
    parser = Parser(file, lexer.tokenize())
    parser.fast_paths = fast
    statements = tuple(parser.parse_program())
    return statements, lexer.diagnostics + parser.diagnostics, parser.unparsed_names, parser.unparsed_modules


LINES = [
    "x := f(a)", "y := g(x, 1, b)", "z := h(  y ,2 )", "  w := f(q)", "const", "k := f(a) +", "  1", "v := f(a)",
    "  as u64", "/// doc", "d := f(d0)", "# c", "e := f(a) # trailing", "(p, q) := m(a)", "u := f(a", "t := f(b)",
    "input := f(c)", "s := if(c)", "r := f(true)", "o := f(0x1)", "n := f(12345678901234567890)", "m(a) -> (b) := {",
    "b := f(a)", "}", "l := f(1.5)", 'j := f("s")', "i := f(a) .x", "extern e: u64 =", "h := f(a)", "x :=", "g := f(a)",
    "shared", "c1 := f(a)", "input (a,", "c2 := f(b)", "} else {", "c3 := g(c)", "\r", "c4 := f(a)\r",
]


def test_the_fast_paths_build_the_general_parsers_trees() -> None:
    rng = random.Random(7)
    words = ["a", "b", "hash", "f", "input", "over", "as", "if", "true", "x1", "1", "2.5", "0x1F", "3K", '"s"']
    glue = ["(", ")", ",", " + ", " as u64", ".", ":", "\n", " "]
    sources = [chain(50), mixed(60), "\n".join(LINES)]
    for _ in range(300):
        pieces = [rng.choice(words) if rng.random() < 0.6 else rng.choice(glue) for _ in range(rng.randrange(1, 9))]
        sources.append(f"{rng.choice(['x', 'y'])} := {''.join(pieces)}\nz := q(r)")
    for _ in range(300):
        sources.append("\n".join(rng.choice(LINES) for _ in range(rng.randrange(1, 8))))
    for source in sources:
        assert _parse(source, fast=True) == _parse(source, fast=False), source


def test_a_big_program_binds_and_keeps_its_shape(catalog) -> None:  # type: ignore[no-untyped-def]
    bound = dsl.bind(mixed(2_000), catalog=catalog)
    assert len(output_types(bound)) == 2_000 + 2 * 400
    assert parse_file(SourceFile(chain(3))).bindings[2].value == ast.Call(
        "hash", (ast.Arg(ast.Name("x1", ast.Span(3, 12))),), ast.Span(3, 7)
    )


def test_the_fast_paths_report_what_the_general_paths_report(catalog, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from polydat.dsl.lexer import Lexer

    rng = random.Random(11)
    lines = [*LINES, "t := hash(c)", "u := mod(t, 7)", "m2(a) -> (b) := {", "b := hash(a) as", "hsah := hash(x)"]
    sources = ["\n".join(rng.choice(lines) for _ in range(rng.randrange(1, 10))) for _ in range(300)]
    fast = [dsl.check(source, catalog=catalog) for source in sources]
    monkeypatch.setattr(Lexer, "fast_lines", False)
    monkeypatch.setattr(Parser, "fast_paths", False)
    for source, found in zip(sources, fast):
        assert dsl.check(source, catalog=catalog) == found, source
