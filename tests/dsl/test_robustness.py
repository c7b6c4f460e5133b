"""Malformed input never escapes as anything but a CompileError.

A deterministic fuzz: valid programs are truncated, have tokens deleted,
duplicated and swapped, get random bytes, unbalanced brackets and quotes, huge
numbers and deep nesting. Each mutant must either bind or raise CompileError;
any other exception (a Python traceback from inside the frontend) fails.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from polydat import dsl
from polydat.dsl import Catalog, check
from polydat.dsl.lexer import tokenize
from polydat.errors import CompileError

SEEDS = [
    """input cycle: u64
hashed := hash(cycle)
user_id := mod(hashed, 1000000)
""",
    """input cycle: u64
(tenant, device, reading) := mixed_radix(cycle, 100, 1000, 0)
tenant_code := mod(hash(tenant), 10000)
device_id := "{tenant_code}-{device}"
""",
    """input cycle: u64
const base := 42
shared error_budget: f64 := 100
volatile attempt := mod(hash(cycle), 8)
score := unit_interval(hash(cycle)) * 2.5 + 1
flag := cycle > 3 && score <= 1.5 || !attempt
label := if flag { "yes" } else if score > 2 { 'maybe' } else { "no" }
neg := -score ** 2 as f64
extern region: str = "us-east"
user := hash(cycle)
key := "{region}/{user}"
""",
    """sine_wave(input: u64, period: u64) -> (value: f64) := {
    pos := to_f64(input % period)
    per := to_f64(period)
    value := sin((pos / per) * 6.283185307179586)
}
input cycle
w := sine_wave(cycle, 100)
v := sine_wave(input: cycle, period: 7)
/* block */ # hash
// line
x := lerp(unit_interval(hash(cycle)), b: 5.0) + 0xFF + 1.5K + 5m
ys := [1, 2.5, 'a']
""",
]

NASTY = [
    "",
    " ",
    "\n\n\n",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    "(((((((",
    ")))))",
    "x := ((((((((((",
    "x := ))))",
    "x := {",
    "x := }",
    "x := [[[[",
    '"',
    "'",
    'x := "abc',
    "x := 'abc\ny := 2",
    'x := "{"',
    'x := "{{"',
    'x := "}"',
    'x := "{a"',
    'x := "{(}"',
    'x := "{\\"}"',
    "x := 99999999999999999999999999999999",
    "x := 0xFFFFFFFFFFFFFFFFFFFF",
    "x := 1e999999",
    "x := 99999999999P",
    "x := 1.7976931348623157e308K",
    "x := -" * 50 + "1",
    "x := " + "!" * 300 + "y",
    "x := " + "(" * 5000 + "y" + ")" * 5000,
    "x := " + "(" * 5000 + "y",
    "x := " + "f(" * 3000,
    "x := " + "[" * 3000,
    "x := " + "if a { " * 2000,
    "x := " + "'{" * 100,
    "x := " + '"{' * 100,
    "x := " + " + ".join(["1"] * 10000),
    "x := " + " ** ".join(["2.0"] * 5000),
    "x := a as",
    "x := a as as as",
    "const volatile shared x := 1",
    "input",
    "input (",
    "input ()",
    "extern",
    "extern x",
    "extern x:",
    "extern x: u64 =",
    "m(",
    "m(a) ->",
    "m(a) -> (",
    "m(a) -> (b) :=",
    "m(a) -> (b) := {",
    "m(a) -> (b) := { m(a) -> (b) := { } }",
    "(a, b) :=",
    "(a, b := 1",
    "( := 1",
    "x := y := z",
    ":=",
    ":= :=",
    "x := \x00",
    "x := \x7f",
    "\ufeffx := 1",
    "x := 1 /* unterminated",
    "x := f(a: )",
    "x := f(: 1)",
    "x := f(a, , b)",
    "x := if(1, 2)",
    "x := if (1) { 2 }",
    "x := if { } else { }",
    "x := mod(hash(y), -1)",
    "x := mod(y, 1.5)",
    "x := hash(mixed_radix(y, 2, 0))",
    "x := for k in 1..4",
    "for k in 1..4 { f := hash(k) }",
    "tile t := { }",
    "cursor q = range(0, 10)",
    "x := q.cursor.idx",
    "x := .5",
    "x := 1.",
    "x := 1..2",
    "x := 0x",
    "x := 1_000",
    "x := 5Kmin",
    "x := @",
    "x := $y",
    "x := y;",
    "x := `y`",
    "x := y ? 1 : 2",
    "x := x",
    "a := b\nb := c\nc := a",
    "m(a) -> (b) := { b := m(a) }\nx := m(1)",
    "m(a) -> (b) := { b := zz }\nx := m(1)",
    "m(a: u64) -> (b: u64) := { b := to_f64(a) }\nx := m(1)",
    "m(a: nope) -> (b) := { b := a }\nx := m(1)",
    "shared x: nope := 1",
    "input x: nope",
    "x := y as nope",
    "(a, a) := mixed_radix(y, 2, 0)",
    "(_, _) := mixed_radix(y, 2, 0)",
    "x := [1, 2] + 3",
]


def _mutants(rng: random.Random) -> Iterator[str]:
    for seed in SEEDS:
        tokens = tokenize(seed)[:-1]
        texts = [t.text for t in tokens]
        for cut in range(0, len(seed), max(1, len(seed) // 60)):
            yield seed[:cut]
        for _ in range(40):
            mutated = list(texts)
            choice = rng.randrange(4)
            i = rng.randrange(len(mutated))
            if choice == 0:
                del mutated[i]
            elif choice == 1:
                mutated.insert(i, mutated[i])
            elif choice == 2:
                j = rng.randrange(len(mutated))
                mutated[i], mutated[j] = mutated[j], mutated[i]
            else:
                mutated.insert(i, rng.choice(["(", ")", "{", "}", "[", "]", ",", ":=", ":", "->", '"', "'", "as", "if", "else", "-", "!"]))
            yield " ".join(mutated)
        for _ in range(10):
            chars = list(seed)
            for _ in range(rng.randrange(1, 6)):
                position = rng.randrange(len(chars))
                chars.insert(position, chr(rng.randrange(0, 0x250)))
            yield "".join(chars)
    for _ in range(60):
        length = rng.randrange(0, 80)
        yield "".join(chr(rng.randrange(0, 256)) for _ in range(length))
    alphabet = list("abcxyz0123456789 \n\t()[]{},:=+-*/%&|^!<>.'\"#\\")
    for _ in range(120):
        yield "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 120)))


def _all_cases() -> list[str]:
    rng = random.Random(20261129)
    return [*NASTY, *_mutants(rng)]


ALL_CASES = _all_cases()


def test_there_are_several_hundred_cases() -> None:
    assert len(ALL_CASES) >= 500


def test_seeds_are_valid(catalog: Catalog) -> None:
    for seed in SEEDS:
        dsl.bind(seed, catalog=catalog)


def test_malformed_sources_bind_or_raise_compile_error(catalog: Catalog) -> None:
    outcomes = {"bound": 0, "compile_error": 0}
    for source in ALL_CASES:
        try:
            dsl.bind(source, catalog=catalog)
        except CompileError as err:
            outcomes["compile_error"] += 1
            # Every diagnostic renders and, when positioned, quotes a real source line.
            text = str(err)
            assert ":error: " in text
            for diagnostic in err.diagnostics:  # every error of the file, not only the first
                assert diagnostic.severity == "error", (source, text)
                if diagnostic.line:
                    assert diagnostic.source_line is not None, source
                    assert 1 <= diagnostic.col <= len(diagnostic.source_line) + 1, (source, text)
        except Exception as exc:  # pragma: no cover - the failure we are looking for
            pytest.fail(f"{type(exc).__name__} escaped for source {source!r}: {exc}")
        else:
            outcomes["bound"] += 1
    assert outcomes["compile_error"] > 300
    assert outcomes["bound"] > 0


def test_check_never_raises_on_malformed_sources(catalog: Catalog) -> None:
    for source in ALL_CASES[:: max(1, len(ALL_CASES) // 150)]:
        diagnostics = check(source, catalog=catalog)
        assert all(d.message and not d.message.startswith("internal compiler error") for d in diagnostics), source
        positions = [(d.line, d.col) for d in diagnostics if d.path is None]
        assert positions == sorted(positions), source  # source order
