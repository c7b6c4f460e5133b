"""Mutation fuzzing of the frontend and the IR boundary.

A fuzz run takes valid programs (the bundled examples and scenarios, the
documentation's snippets, and random well-typed programs from
``polydat.testing.strategies``), mutates them with a seeded random number
generator — text edits the way a user's typo or a hostile file would make
them — and classifies what ``polydat.compile`` and ``polydat.check`` do with
each mutant. The only acceptable outcomes are success and ``CompileError``
(``check`` must never raise at all); anything else, and any input that takes
longer than :data:`SLOW_SECONDS`, is a finding, reported with the input that
caused it.

The IR boundary is fuzzed the same way: the graph IR of valid programs is
mutated as JSON (numbers bent to extremes, strings replaced, elements
dropped or duplicated, wires pointed elsewhere) and handed to the core, which
must answer with a program, a ``CompileError`` or a ``PolydatError`` naming
the malformed IR — never a crash.
"""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polydat
from polydat import _core, dsl

ROOT = Path(__file__).resolve().parents[2]

SLOW_SECONDS = 1.0
"""An input that takes longer than this to compile or check is a finding."""

ALPHABET = (
    "()[]{}:=,.+-*/%&|^!<>#\"'\\\n\t _"
    "abcdefghijklmnopqrstuvwxyzABCXYZ0123456789"
)
"""Characters the text mutations insert: the DSL's punctuation and word characters."""

HOSTILE = [
    "9" * 5000,                  # beyond Python's int/str digit limit
    "18446744073709551616",      # 2^64
    "0x" + "f" * 40,
    "1e999", "-0.0", "NaN",
    "\ud800", "\x00", "\x0c", "\x85", "\u2028", "\r", "\ufeff",
    "é", "日本", "𝔘",
    "(" * 400, ")" * 400, "{" * 300, '"' * 3,
    "/*", "*/", "//", "///",
    "input", "extern", "const", "shared", "volatile", "for", "pragma", "as", "if", "else",
    "true", "false", "none", "null",
    " := ", " -> ", "mod(", "hash(", "printf(", "\"{", "}\"",
]
"""Fragments known to stress lexers, parsers and the JSON boundary."""


def seed_programs() -> list[str]:
    """Valid programs to mutate: examples, scenario graphs, the documentation's snippets."""
    sources: list[str] = []
    for path in sorted((ROOT / "examples").glob("*.polydat")):
        sources.append(path.read_text(encoding="utf-8"))
    for path in sorted((ROOT / "benches" / "scenarios").glob("*.polydat")):
        text = path.read_text(encoding="utf-8")
        sources.append(text.split("/// @graph", 1)[-1])
    for page in sorted((ROOT / "docs").rglob("*.md")) + [ROOT / "README.md"]:
        for block in page.read_text(encoding="utf-8").split("```polydat")[1:]:
            sources.append(block.split("```", 1)[0])
    good = []
    for source in sources:
        try:
            polydat.compile(source)
        except polydat.PolydatError:
            continue
        good.append(source)
    return good


def mutate(source: str, rng: random.Random) -> str:
    """One to four random text edits of ``source``."""
    text = source
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(9)
        n = len(text)
        at = rng.randint(0, n)
        if op == 0 and n:  # delete a span
            end = min(n, at + rng.randint(1, 12))
            text = text[:at] + text[end:]
        elif op == 1:  # insert random characters
            text = text[:at] + "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 6))) + text[at:]
        elif op == 2:  # insert a hostile fragment
            text = text[:at] + rng.choice(HOSTILE) + text[at:]
        elif op == 3 and n:  # duplicate a line
            lines = text.split("\n")
            i = rng.randrange(len(lines))
            lines.insert(i, lines[i])
            text = "\n".join(lines)
        elif op == 4 and n:  # swap two lines
            lines = text.split("\n")
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
            text = "\n".join(lines)
        elif op == 5:  # truncate
            text = text[:at]
        elif op == 6 and n:  # replace a character
            at = min(at, n - 1)
            text = text[:at] + rng.choice(ALPHABET) + text[at + 1:]
        elif op == 7:  # nest an expression deeply
            depth = rng.choice([10, 100, 1000])
            text = text[:at] + "(" * depth + "1" + ")" * depth + text[at:]
        else:  # splice in a piece of another part of the text
            start = rng.randint(0, n)
            text = text[:at] + text[start:start + rng.randint(1, 40)] + text[at:]
    return text


def classify(call: Callable[[], Any]) -> tuple[str, float, str]:
    """Runs ``call``: its outcome class (``ok``, an exception class name),
    the CPU seconds it took on this thread (other processes on the machine
    do not count), and the exception's message."""
    started = time.thread_time()
    try:
        call()
        outcome, detail = "ok", ""
    except polydat.CompileError as err:
        outcome, detail = "CompileError", str(err)
    except BaseException as err:  # noqa: BLE001 - classifying is the point
        if isinstance(err, KeyboardInterrupt):
            raise
        outcome, detail = type(err).__name__, f"{err!r}"[:500]
    return outcome, time.thread_time() - started, detail


@dataclass
class Finding:
    """An input whose outcome is not acceptable."""

    what: str
    outcome: str
    seconds: float
    detail: str
    source: str

    def report(self) -> str:
        shown = self.source if len(self.source) < 400 else self.source[:400] + "…"
        return f"{self.what}: {self.outcome} after {self.seconds:.2f} s: {self.detail}\n--- input ---\n{shown!r}"


@dataclass
class FuzzReport:
    """What a fuzz run saw: outcome counts per target and the findings."""

    counts: dict[str, Counter[str]] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    slowest: float = 0.0

    def count(self, what: str, outcome: str) -> None:
        self.counts.setdefault(what, Counter())[outcome] += 1

    def summary(self) -> str:
        lines = [f"{what}: " + ", ".join(f"{k} {v}" for k, v in sorted(c.items())) for what, c in self.counts.items()]
        lines.append(f"slowest input: {self.slowest:.3f} s; findings: {len(self.findings)}")
        return "\n".join(lines)


def fuzz_sources(count: int, seed: int, report: FuzzReport) -> None:
    """Mutates ``count`` sources and checks ``compile`` and ``check`` on each."""
    rng = random.Random(seed)
    seeds = seed_programs()
    for _ in range(count):
        source = mutate(rng.choice(seeds), rng)
        outcome, seconds, detail = classify(lambda: polydat.compile(source))
        report.count("compile", outcome)
        report.slowest = max(report.slowest, seconds)
        if outcome not in ("ok", "CompileError") or seconds > SLOW_SECONDS:
            report.findings.append(Finding("compile", outcome, seconds, detail, source))
        outcome, seconds, detail = classify(lambda: polydat.check(source))
        report.count("check", outcome)
        if outcome != "ok" or seconds > SLOW_SECONDS:
            report.findings.append(Finding("check", outcome, seconds, detail, source))


def _bend(value: Any, rng: random.Random) -> Any:
    """A JSON value bent to an extreme or the wrong kind."""
    return rng.choice([
        -1, 0, 2**64, 2**63, 10**30, 1.5, float("inf"), "", "\ud800", "x" * 100,
        None, [], {}, True, {"node": {"node": 10**9, "port": 0}}, {"input": 10**9},
        value, [value, value],
    ])


def _walk(node: Any, rng: random.Random, rate: float) -> Any:
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            if rng.random() < rate / 4:
                continue  # drop a field
            out[k] = _bend(v, rng) if rng.random() < rate else _walk(v, rng, rate)
        return out
    if isinstance(node, list):
        items = [_walk(v, rng, rate) for v in node if rng.random() >= rate / 4]
        if items and rng.random() < rate:
            items.insert(rng.randrange(len(items)), rng.choice(items))
        return items
    return _bend(node, rng) if rng.random() < rate else node


TYPES = ["u64", "i64", "u32", "i32", "f64", "f32", "bool", "str", "bytes", "json", "vec_i32", "vec_i64", "vec_f64"]


def _edit_ir(ir: dict[str, Any], rng: random.Random, ops: list[str]) -> None:
    """One targeted edit that keeps the IR's shape but breaks its meaning."""
    nodes, inputs, outputs = ir.get("nodes", []), ir.get("inputs", []), ir.get("outputs", [])
    choice = rng.randrange(8)
    if choice == 0 and nodes:  # point a wire somewhere else
        node = rng.choice(nodes)
        wires = [a for a in node.get("args", []) if "wire" in a]
        if wires:
            wires[0]["wire"] = rng.choice([
                {"input": rng.randrange(len(inputs) + 3)},
                {"node": {"node": rng.randrange(len(nodes) + 3), "port": rng.randrange(3)}},
            ])
    elif choice == 1 and nodes:  # another op
        rng.choice(nodes)["op"] = rng.choice(ops + ["__cast", "__lit", "nope", ""])
    elif choice == 2 and nodes:  # an extreme constant
        node = rng.choice(nodes)
        consts = [a for a in node.get("args", []) if "const" in a]
        if consts:
            consts[0]["const"] = rng.choice([
                {"u64": rng.choice([0, 1, 2**64 - 1, 2**63])}, {"i64": -(2**63)},
                {"f64": rng.getrandbits(64)}, {"bool": True}, {"str": rng.choice(["", "x" * 1000, "{", "%s"])},
            ])
    elif choice == 3 and nodes:  # an argument more or fewer
        args = rng.choice(nodes).setdefault("args", [])
        if args and rng.random() < 0.5:
            args.pop(rng.randrange(len(args)))
        else:
            args.append(rng.choice([{"const": {"u64": 7}}, {"wire": {"input": 0}}]))
    elif choice == 4 and inputs:  # another input type or kind
        target = rng.choice(inputs)
        if rng.random() < 0.5:
            target["type"] = rng.choice(TYPES)
        else:
            target["kind"] = rng.choice(["coordinate", "extern"])
    elif choice == 5 and outputs:  # a duplicate or odd output name
        rng.choice(outputs)["name"] = rng.choice([o["name"] for o in outputs] + ["", "__x", "a b"])
    elif choice == 6 and outputs:  # an output reading elsewhere
        rng.choice(outputs)["wire"] = {"node": {"node": rng.randrange(len(nodes) + 2), "port": 0}}
    elif nodes:  # a cycle: a node reading a later node
        i = rng.randrange(len(nodes))
        nodes[i].setdefault("args", []).insert(0, {"wire": {"node": {"node": rng.randrange(i, len(nodes)), "port": 0}}})


def mutate_ir(ir: dict[str, Any], rng: random.Random, ops: list[str]) -> str:
    """The JSON text of a mutated copy of ``ir``: mostly targeted edits that
    keep its shape (so the compiler's checks are reached), sometimes values
    bent to the wrong kind (so the JSON boundary is)."""
    mutated = json.loads(json.dumps(ir))
    if rng.random() < 0.8:
        for _ in range(rng.randint(1, 3)):
            _edit_ir(mutated, rng, ops)
    else:
        mutated = _walk(mutated, rng, rate=rng.choice([0.01, 0.05]))
    try:
        return json.dumps(mutated, allow_nan=True)
    except (TypeError, ValueError, UnicodeEncodeError):
        return json.dumps(mutated, allow_nan=True, ensure_ascii=True)


IR_OUTCOMES = ("ok", "CompileError", "InternalError", "RefusedError")
"""What the core may answer to a malformed IR: a program, a compile error, or
a ``PolydatError`` naming the malformed IR (the frontend never sends one)."""


def fuzz_ir(count: int, seed: int, report: FuzzReport) -> None:
    """Mutates the graph IR of the seed programs ``count`` times and compiles each."""
    rng = random.Random(seed)
    irs = [dsl.bind(source).ir for source in seed_programs()]
    ops = [n["name"] for n in polydat.catalog()]
    for _ in range(count):
        text = mutate_ir(rng.choice(irs), rng, ops)
        outcome, seconds, detail = classify(lambda: _core.Program.compile(text))
        report.count("ir", outcome)
        report.slowest = max(report.slowest, seconds)
        if outcome not in IR_OUTCOMES or seconds > SLOW_SECONDS:
            report.findings.append(Finding("ir", outcome, seconds, detail, text))


def chunks(total: int, size: int) -> Iterator[int]:
    """``total`` split into runs of at most ``size``."""
    while total > 0:
        yield min(size, total)
        total -= size
