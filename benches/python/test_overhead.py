"""pytest-benchmark of the per-call cost from Python: one `set_inputs` and
one `pull` on a kernel of the ladder, per engine, beside a plain Python
function call doing nothing (the floor any binding pays).

    pytest benches/python/test_overhead.py --benchmark-only
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ladder  # noqa: E402

import polydat  # noqa: E402

ENGINES = ["p1", "p2", "p3", "mixed"]


def _kernel(engine: str) -> polydat.Kernel:
    kernel = polydat.compile(ladder.SOURCE, engine=engine).kernel()
    kernel.set_inputs(cycle=0, tenant_seed=ladder.TENANT_SEED, operation_seed=ladder.OPERATION_SEED)
    return kernel


def _want(cycle: int) -> int:
    return int(ladder.numpy_ladder(cycle + 1)["event_token"][cycle])


def test_python_call_floor(benchmark) -> None:  # type: ignore[no-untyped-def]
    benchmark.group = "per call: floor"

    def nothing(value: int) -> None:
        return None

    benchmark(nothing, 5)


@pytest.mark.parametrize("engine", ENGINES)
def test_set_inputs(benchmark, engine: str) -> None:  # type: ignore[no-untyped-def]
    """One positional coordinate write (the value changes every call)."""
    benchmark.group = "per call: set_inputs(cycle)"
    kernel = _kernel(engine)
    cycles = itertools.count()
    benchmark(lambda: kernel.set_inputs(next(cycles)))
    assert kernel.pull("event_token") == _want(kernel.input_values()["cycle"])


@pytest.mark.parametrize("engine", ENGINES)
def test_pull_after_write(benchmark, engine: str) -> None:  # type: ignore[no-untyped-def]
    """A coordinate write and one output read: the row a Python loop makes."""
    benchmark.group = "per call: set_inputs + pull"
    kernel = _kernel(engine)
    cycles = itertools.count()

    def row() -> object:
        kernel.set_inputs(next(cycles))
        return kernel.pull("event_token")

    got = benchmark(row)
    assert got == _want(kernel.input_values()["cycle"])


@pytest.mark.parametrize("engine", ENGINES)
def test_pull_current(benchmark, engine: str) -> None:  # type: ignore[no-untyped-def]
    """A read of an output that is already current (the guard's hit path)."""
    benchmark.group = "per call: pull (current)"
    kernel = _kernel(engine)
    kernel.set_inputs(42)
    got = benchmark(kernel.pull, "event_token")
    assert got == _want(42)
