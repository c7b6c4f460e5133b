"""Runs a generated program on every engine setup and compares the outcomes.

A *setup* is an engine name the core reports (``polydat.program.engine_names()``:
``p1``, every P2 and P3 provenance mode, ``mixed``) compiled with Node Fusion
on or off. For one :class:`~.programs.FuzzProgram`, :func:`check`

* runs a *kernel script* drawn from the seed (writes of coordinates and
  externs at random values, pulls of random outputs, ``eval``,
  ``invalidate_all``, ``init``) on a kernel of every setup, and compares each
  step's outcome (the value bit for bit, or the failure's class and text)
  with P1's under the same fusion setting, and unfused P1 with fused P1;
* runs ``generate(rows, threads=1, 2 and 7, emitted=True)`` on every setup
  and compares every row with a P1 kernel's row-by-row pulls (a failing row
  must fail ``generate`` at that row with that text) and the emitted rows
  with fused P1's at one thread.

Values of bindings that read a nondeterministic node are not compared. The loosenings the known defects need are in :mod:`.known`.

Usage::

    from polydat.testing.fuzz.oracle import check

    result = check(17)
    result.disagreements      # [] when every setup agrees
    print(result.report())    # the program, the script and each disagreement
"""

from __future__ import annotations

import math
import random
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import polydat
from polydat.program import engine_names

from ..canon import NONDETERMINISTIC, Outcome, canonical, canonical_failure, without_output_attribution
from .known import skipped
from .programs import FuzzProgram, program

__all__ = ["Setup", "Disagreement", "Checked", "setups", "check", "node_ops", "THREADS"]

THREADS = (1, 2, 7)
"""The thread counts ``generate`` is run at."""

ORACLE = "p1"


@dataclass(frozen=True)
class Setup:
    """An engine name (``"p2/pull"``) and whether Node Fusion is on."""

    name: str
    fusion: bool

    @property
    def label(self) -> str:
        return self.name + ("" if self.fusion else " unfused")

    def compile(self, source: str) -> polydat.Program:
        engine, _, provenance = self.name.partition("/")
        return polydat.compile(source, engine=engine, provenance=provenance or "auto", fusion=self.fusion)


@lru_cache(maxsize=1)
def setups() -> tuple[Setup, ...]:
    """Every engine the core reports, fused and unfused; fused P1 first."""
    names = [ORACLE] + [n for n in dict.fromkeys(engine_names()) if n != ORACLE]
    return tuple(Setup(n, fusion) for fusion in (True, False) for n in names)


@dataclass(frozen=True)
class Disagreement:
    """One step where a setup's outcome differs from its reference's."""

    setup: str
    reference: str
    step: str
    expected: str
    got: str

    def describe(self) -> str:
        return f"{self.setup} vs {self.reference} at {self.step}:\n    expected {self.expected}\n    got      {self.got}"


@dataclass
class Checked:
    """The result of checking one seed."""

    program: FuzzProgram
    script: list[tuple[Any, ...]] = field(default_factory=list)
    compiled: bool = True
    """Whether fused P1 compiled the program (a compile error is compared across setups too)."""
    refused: list[str] = field(default_factory=list)
    ran: list[str] = field(default_factory=list)
    """The setups that compiled and ran the program."""
    disagreements: list[Disagreement] = field(default_factory=list)
    generate_runs: int = 0
    covered: set[str] = field(default_factory=set)
    """Catalog nodes in the compiled programs (resolved graph and final steps)."""

    def report(self) -> str:
        lines = [
            f"seed {self.program.seed}: {len(self.disagreements)} disagreement(s)",
            f"reproduce: python -m polydat.testing.fuzz --seed {self.program.seed}",
            "--- program", self.program.source.rstrip(), "--- script",
            *(f"  {i}: {step!r}" for i, step in enumerate(self.script)),
            "--- disagreements",
            *(d.describe() for d in self.disagreements[:8]),
        ]
        return "\n".join(lines)


# -- values ------------------------------------------------------------------------

_U64 = (0, 1, 2, 7, 1000, 2**32, 2**63, 2**64 - 1)
_F64 = (0.0, -0.0, 1.5, -2.5, 1e300, -1e-300, math.nan, math.inf, -math.inf, 3.0)


_NARROW_BITS = {"u16": (16, False), "i16": (16, True), "u8": (8, False), "i8": (8, True)}


def value_for(rng: random.Random, type_name: str) -> Any:
    """A random value of ``type_name`` a kernel accepts for an extern of it."""
    if type_name == "u64":
        return rng.choice((*_U64, rng.randrange(2**64)))
    if type_name == "i64":
        return rng.choice((0, -1, 5, -(2**63), 2**63 - 1, rng.randrange(-(2**63), 2**63)))
    if type_name == "u32":
        return rng.choice((0, 1, 2**32 - 1, rng.randrange(2**32)))
    if type_name == "i32":
        return rng.choice((0, -1, -(2**31), 2**31 - 1, rng.randrange(-(2**31), 2**31)))
    if type_name in _NARROW_BITS:
        bits, signed = _NARROW_BITS[type_name]
        lo, hi = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if signed else (0, 2**bits - 1)
        return rng.choice((0, 1, lo, hi, rng.randint(lo, hi)))
    if type_name == "u128":
        return rng.choice((0, 1, 2**64, 2**127, 2**128 - 1, rng.randrange(2**128)))
    if type_name == "i128":
        return rng.choice((0, -1, -(2**127), 2**127 - 1, -(2**64), rng.randrange(-(2**127), 2**127)))
    if type_name == "f64":
        return rng.choice((*_F64, rng.uniform(-1e6, 1e6)))
    if type_name == "f16":
        value = rng.choice((0.0, -0.0, 1.5, -2.5, 65504.0, 6e-8, math.nan, math.inf, rng.uniform(-6e4, 6e4)))
        return struct.unpack("<e", struct.pack("<e", value))[0]
    if type_name == "f32":
        value = rng.choice((0.0, -0.0, 1.5, -2.5, 3.0e38, math.nan, math.inf, rng.uniform(-1e6, 1e6)))
        return struct.unpack("<f", struct.pack("<f", value))[0]
    if type_name == "bool":
        return rng.random() < 0.5
    if type_name == "str":
        return rng.choice(("", "a", "hello world", "é日本", "42", "-3.5", "true", '{"k": [1, 2]}', "0..10%", "a,b"))
    if type_name == "bytes":
        return rng.choice((b"", b"\x00", b"abcdefgh", bytes(range(16)), b"\xff" * 9))
    if type_name == "json":
        return rng.choice(("1", '"s"', "[1, 2.5, null]", '{"a": {"b": true}}', "null", '{"start_ord": 0, "end_ord": 9}'))
    if type_name in ("date", "timestamp"):
        bound = 40_000 if type_name == "date" else 2**62
        return rng.randrange(bound)
    if type_name == "vec_f64":
        return [rng.choice((*_F64[:6], rng.uniform(-1e6, 1e6))) for _ in range(rng.randrange(5))]
    if type_name.startswith("vec_"):
        bound = 2**31 if type_name == "vec_i32" else 2**63
        return [rng.choice((0, -1, 7, -bound, bound - 1, rng.randrange(-bound, bound))) for _ in range(rng.randrange(5))]
    raise ValueError(f"no values for type {type_name}")


_UNKNOWN = Outcome(NONDETERMINISTIC, "not compared")
"""A read of a nondeterministic value: whether it fails may depend on the draw
(a random i64 cast to u64), so only that the read returned is compared."""


def _outcome(action: Callable[[], Any]) -> Outcome:
    try:
        value = action()
    except polydat.PolydatError as err:
        return canonical_failure(err)
    return canonical(value)


# -- kernel scripts ----------------------------------------------------------------


def make_script(rng: random.Random, prog: FuzzProgram, outputs: Sequence[str], length: int) -> list[tuple[Any, ...]]:
    """A random script of kernel steps over ``prog``'s inputs and ``outputs``."""
    steps: list[tuple[Any, ...]] = [("coords", {c: value_for(rng, "u64") for c in prog.coordinates})]
    for _ in range(length):
        roll = rng.random()
        if roll < 0.45 and outputs:
            steps.append(("pull", rng.choice(outputs)))
        elif roll < 0.62:
            steps.append(("coords", {c: value_for(rng, "u64") for c in prog.coordinates if rng.random() < 0.8}))
        elif roll < 0.8 and prog.externs:
            name = rng.choice(sorted(prog.externs))
            steps.append(("set", name, value_for(rng, prog.externs[name])))
        elif roll < 0.87:
            steps.append(("invalidate_all",))
        elif roll < 0.94:
            steps.append(("init",))
        else:
            steps.append(("eval",))
    return steps


def run_script(compiled: polydat.Program, script: Sequence[tuple[Any, ...]], tainted: frozenset[str]) -> list[Outcome]:
    """Each step's canonical outcome on a new kernel of ``compiled``."""
    kernel = compiled.kernel()
    found: list[Outcome] = []
    for step in script:
        kind = step[0]
        if kind == "coords":
            found.append(_outcome(lambda: kernel.set_inputs(**step[1])))
        elif kind == "set":
            found.append(_outcome(lambda: kernel.set(step[1], step[2])))
        elif kind == "pull":
            outcome = _outcome(lambda: kernel.pull(step[1]))
            found.append(_UNKNOWN if step[1] in tainted else outcome)
        elif kind == "eval":
            outcome = _outcome(kernel.eval)
            found.append(_UNKNOWN if tainted else outcome)
        elif kind == "invalidate_all":
            found.append(_outcome(kernel.invalidate_all))
        else:
            found.append(_outcome(kernel.init))
    return found


# -- generate ----------------------------------------------------------------------


@dataclass(frozen=True)
class Rows:
    """One ``generate`` request: the rows, the fixed inputs and the outputs."""

    rows: range
    inputs: dict[str, Any]
    outputs: tuple[str, ...]


def make_rows(rng: random.Random, prog: FuzzProgram, outputs: Sequence[str]) -> Rows:
    count = rng.randint(1, 40)
    start = rng.choice((0, rng.randrange(10**6), rng.randrange(2**64 - count), 2**64 - count))
    inputs = {name: value_for(rng, t) for name, t in prog.externs.items()}
    inputs.update({c: value_for(rng, "u64") for c in prog.coordinates if c != "cycle"})
    return Rows(range(start, start + count), inputs, tuple(o for o in outputs if o not in prog.tainted))


def row_pulls(compiled: polydat.Program, rows: Rows) -> list[dict[str, Outcome]]:
    """Per row, every requested output pulled from a kernel (the reference for ``generate``)."""
    kernel = compiled.kernel()
    for name, value in rows.inputs.items():
        if name in compiled.coordinates:
            kernel.set_inputs(**{name: value})
        else:
            kernel.set(name, value)
    table = []
    for row in rows.rows:
        kernel.set_inputs(cycle=row)
        table.append({name: _outcome(lambda: kernel.pull(name)) for name in rows.outputs})
    return table


def _column_value(column: Any, index: int) -> Outcome:
    mask = getattr(column, "mask", None)
    if mask is not None and bool(mask[index]) if getattr(mask, "shape", ()) else False:
        return Outcome("none")
    return canonical(column[index])


def _failure_text(outcome: Outcome) -> Outcome:
    return without_output_attribution(outcome)


def compare_generate(
    compiled: polydat.Program, rows: Rows, reference: list[dict[str, Outcome]], threads: int
) -> tuple[list[tuple[str, str, str]], Any]:
    """``generate`` at ``threads`` against the row-by-row pulls: the
    differences (step, expected, got) and the emitted rows (None when it failed)."""
    differences: list[tuple[str, str, str]] = []
    failing = next(
        ((i, [o for o in row.values() if o.is_error]) for i, row in enumerate(reference) if any(o.is_error for o in row.values())),
        None,
    )
    where = f"generate({rows.rows.start}..+{len(rows.rows)}, threads={threads})"
    try:
        columns, emitted = compiled.generate(rows.rows, outputs=list(rows.outputs), inputs=rows.inputs,
                                             threads=threads, coordinate="cycle", emitted=True)
    except polydat.PolydatError as err:
        if failing is None:
            differences.append((where, "every row", f"{type(err).__name__}: {err}"))
            return differences, None
        index, errors = failing
        row = rows.rows[index]
        suffix = f"\n  ↳ at row cycle={row}"
        text = str(err)
        got = _failure_text(canonical_failure(type(err)(text[: -len(suffix)]) if text.endswith(suffix) else err))
        expected = {_failure_text(e) for e in errors}
        if not text.endswith(suffix) or got not in expected:
            differences.append((where, f"fails at row {row}: " + " | ".join(str(e) for e in expected), str(got)))
        return differences, None
    if failing is not None:
        index, errors = failing
        differences.append((where, f"fails at row {rows.rows[index]}: {errors[0]}", "no failure"))
        return differences, emitted
    for position, pulled in enumerate(reference):
        for name, want in pulled.items():
            value = _column_value(columns[name], position)
            if value != want:
                differences.append((f"{where} row {rows.rows[position]} {name}", str(want), str(value)))
    return differences, emitted


# -- the check ---------------------------------------------------------------------


def node_ops(compiled: polydat.Program) -> set[str]:
    """The catalog nodes of a compiled program: its resolved graph's and its final steps'."""
    data = compiled.explain_data()
    ops = {n["op"] for n in data.get("resolved", {}).get("nodes", ())}
    ops |= {s["op"] for s in data.get("steps", ()) if "op" in s}
    return ops


def _compiled(setup: Setup, source: str) -> polydat.Program | Outcome:
    try:
        return setup.compile(source)
    except polydat.PolydatError as err:
        return canonical_failure(err)


def check(seed: int, *, script_length: int = 24, size: int | None = None, engines: int | None = None) -> Checked:
    """Generates the program of ``seed`` and compares the setups (see the module doc).

    ``engines=None`` runs every setup; ``engines=N`` runs fused and unfused
    P1 and N other setups drawn from the seed (so a bounded run still reaches
    every setup over its seeds)."""
    prog = program(seed, size=size)
    result = Checked(prog)
    rng = random.Random(seed ^ 0x5EED)
    matrix = setups()
    if engines is not None:
        oracles = [s for s in matrix if s.name == ORACLE]
        others = [s for s in matrix if s.name != ORACLE]
        matrix = (*oracles, *random.Random(seed).sample(others, min(engines, len(others))))
    compiled = {s: _compiled(s, prog.source) for s in matrix}
    oracle, unfused_oracle = matrix[0], next(s for s in matrix if s.name == ORACLE and not s.fusion)
    reference_program = compiled[oracle]
    if isinstance(reference_program, Outcome):
        result.compiled = False
        for s in matrix[1:]:
            got = compiled[s]
            got_outcome = got if isinstance(got, Outcome) else Outcome("program")
            if got_outcome != reference_program:
                result.disagreements.append(Disagreement(s.label, oracle.label, "compile", str(reference_program), str(got_outcome)))
        return result
    for s, got in compiled.items():
        if isinstance(got, Outcome):
            if "Refused" in str(got.data[0]):
                result.refused.append(s.label)
            else:
                result.disagreements.append(Disagreement(s.label, oracle.label, "compile", "a program", str(got)))
        else:
            result.covered |= node_ops(got)
            result.ran.append(s.label)
    outputs = [name for name in reference_program.outputs if not name.startswith("__")]
    result.script = make_script(rng, prog, outputs, script_length)
    runs = {s: run_script(p, result.script, prog.tainted) for s, p in compiled.items() if not isinstance(p, Outcome)}
    for s, outcomes in runs.items():
        # fused setups and unfused P1 against fused P1, other unfused setups against unfused P1
        ref = oracle if s.fusion or s == unfused_oracle else unfused_oracle
        if s == oracle or ref not in runs:
            continue
        _compare_steps(result, s, ref, runs[ref], outcomes)
    rows = make_rows(rng, prog, outputs)
    if not rows.outputs:
        return result
    reference_rows = row_pulls(reference_program, rows)
    emitted_reference: Any = None
    thread_counts = THREADS
    chosen = [s for s in matrix if not isinstance(compiled[s], Outcome)]
    for s in chosen:
        program_s = compiled[s]
        assert not isinstance(program_s, Outcome)
        for threads in thread_counts:
            differences, emitted = compare_generate(program_s, rows, reference_rows, threads)
            result.generate_runs += 1
            for step, want, have in differences:
                result.disagreements.append(Disagreement(s.label, "p1 row-by-row pulls", step, want, have))
            if emitted is None:
                continue
            rows_emitted = [canonical(v) for v in list(emitted["row"])]
            if emitted_reference is None:
                emitted_reference = rows_emitted
            elif rows_emitted != emitted_reference:
                result.disagreements.append(Disagreement(
                    s.label, "p1 threads=1", f"emitted rows at threads={threads}",
                    str([str(r) for r in emitted_reference][:6]), str([str(r) for r in rows_emitted][:6])))
    return result


def _compare_steps(result: Checked, s: Setup, ref: Setup, expected: list[Outcome], got: list[Outcome]) -> None:
    for i, (want, have) in enumerate(zip(expected, got)):
        if want == have:
            continue
        if not s.fusion:
            # unfused, identical nodes are not merged: a failure may name other outputs
            want, have = without_output_attribution(want), without_output_attribution(have)
            if want == have:
                continue
        result.disagreements.append(Disagreement(s.label, ref.label, f"step {i} {result.script[i]!r}", str(want), str(have)))
        return  # later steps follow from this one
