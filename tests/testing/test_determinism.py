"""Determinism: equal inputs give equal outputs across kernels, threads and
``generate()``, on every engine."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest

import polydat
import polydat.testing as pt
from polydat.testing import Step

SRC = """\
input cycle: u64
extern tenant: u64 = 7
h := hash(u64_add(cycle, tenant))
id := mod(h, 1000000)
share := unit_interval(h) * 100.0
signed := -(share - 50.0)
label := "u{id}-{tenant}"
word := one_of(h, "red", "green", "blue")
(lo, hi) := mixed_radix(h, 1000, 0)
"""

SCRIPT = [Step(c) for c in pt.U64_CORNERS] + [Step({"tenant": 2**63}), Step(3), Step(3), Step(None, pulls=[pt.EVAL])]


def _compiled() -> list[tuple[str, Any]]:
    found = []
    for spec in pt.engines():
        if spec.fresh_kernels or spec.compiler is not None:
            continue
        try:
            found.append((spec.name, spec.compile(SRC)))
        except polydat.RefusedError:
            continue
    return found


def _run(program: Any, steps: list[Step]) -> list[pt.Outcome]:
    kernel = program.kernel()
    seen = []
    for step in steps:
        pt.script.apply_write(kernel, program.coordinates, step.write)
        for name in step.pulls if step.pulls is not None else list(program.outputs):
            seen.append(pt.canonical(kernel.eval() if name == pt.EVAL else kernel.pull(name)))
    return seen


@pytest.mark.parametrize("engine,program", _compiled(), ids=lambda v: v if isinstance(v, str) else "")
def test_two_kernels_of_one_program_agree(engine: str, program: Any) -> None:
    assert _run(program, SCRIPT) == _run(program, SCRIPT)


@pytest.mark.parametrize("engine,program", _compiled(), ids=lambda v: v if isinstance(v, str) else "")
def test_kernels_on_several_threads_agree(engine: str, program: Any) -> None:
    results: list[list[pt.Outcome]] = [[] for _ in range(4)]

    def work(i: int) -> None:
        results[i] = _run(program, SCRIPT)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r == results[0] for r in results) and results[0]


def _bits(column: Any) -> list[Any]:
    if column.dtype == np.float64:
        return column.view(np.uint64).tolist()
    return column.tolist()


@pytest.mark.parametrize("engine,program", _compiled(), ids=lambda v: v if isinstance(v, str) else "")
def test_generate_threads_agree(engine: str, program: Any) -> None:
    cycles = range(0, 3000, 7)
    one = program.generate(cycles, threads=1)
    four = program.generate(cycles, threads=4)
    assert one.keys() == four.keys() == set(program.outputs)
    for name in one:
        assert _bits(one[name]) == _bits(four[name]), name


@pytest.mark.parametrize("engine,program", _compiled(), ids=lambda v: v if isinstance(v, str) else "")
@pytest.mark.parametrize("cycles", [range(0, 50), range(2**53 - 20, 2**53 + 20), range(2**64 - 40, 2**64 - 1)],
                         ids=["low", "2^53", "max"])
def test_generate_matches_the_oracle_kernel(engine: str, program: Any, cycles: range) -> None:
    columns = program.generate(cycles, inputs={"tenant": 9}, threads=2)
    oracle = polydat.compile(SRC, engine="p1").kernel()
    oracle.set("tenant", 9)
    for i, cycle in enumerate(cycles):
        oracle.set_inputs(cycle)
        for name, column in columns.items():
            assert pt.canonical(column[i]) == pt.canonical(oracle.pull(name)), (name, cycle)


def test_fresh_kernel_replays_match() -> None:
    program = polydat.compile(SRC, engine="p1")
    long_lived = program.kernel()
    for cycle in pt.U64_CORNERS:
        long_lived.set_inputs(cycle)
        fresh = program.kernel()
        fresh.set_inputs(cycle)
        assert pt.canonical(long_lived.eval()) == pt.canonical(fresh.eval())


def test_generate_reaches_the_last_cycle() -> None:
    program = polydat.compile(SRC, engine="p1")
    columns = program.generate(range(2**64 - 1, 2**64))
    kernel = program.kernel()
    kernel.set_inputs(2**64 - 1)
    assert pt.canonical(columns["id"][0]) == pt.canonical(kernel.pull("id"))
