"""pytest-benchmark of compile time (see compile_scaling.py, which measures
1k, 10k and 100k statements and fits the growth exponent): compile and the
first kernel of a chain and of a wide program, per engine.

    pytest benches/python/test_compile_scaling.py --benchmark-only
    pytest benches/python/test_compile_scaling.py --benchmark-disable   # quick: each case once

POLYDAT_BENCH_STATEMENTS sets the program size (default 1,000).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import compile_scaling  # noqa: E402

import polydat  # noqa: E402

STATEMENTS = int(os.environ.get("POLYDAT_BENCH_STATEMENTS", "1000"))


def compile_and_read(source: str, engine: str, last: str) -> polydat.Program:
    program = polydat.compile(source, engine=engine)
    kernel = program.kernel()
    kernel.set_inputs(7)
    kernel.pull(last)
    return program


@pytest.mark.parametrize("engine", compile_scaling.ENGINES)
@pytest.mark.parametrize("shape", compile_scaling.SHAPES)
def test_compile(benchmark, shape: str, engine: str) -> None:  # type: ignore[no-untyped-def]
    benchmark.group = f"compile + kernel: {STATEMENTS:,} statements, {shape}"
    source = compile_scaling.PROGRAMS[shape](STATEMENTS)
    program = benchmark.pedantic(compile_and_read, args=(source, engine, f"v{STATEMENTS - 1}"), rounds=3,
                                 iterations=1)
    assert len(program.outputs) == STATEMENTS
    benchmark.extra_info["engine"] = program.engine


def test_growth_exponent_of_a_linear_series() -> None:
    """The bench's fit: 1.0 for time proportional to size, 2.0 for its square."""
    assert compile_scaling.growth_exponent([(1000, 0.01), (10_000, 0.1), (100_000, 1.0)]) == pytest.approx(1.0)
    assert compile_scaling.growth_exponent([(10, 1.0), (100, 100.0)]) == pytest.approx(2.0)
