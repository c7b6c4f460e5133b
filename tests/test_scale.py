"""Scale: building kernels and compiling grow linearly with the program.

Timings here are ratios between two sizes measured in the same process (a
quadratic step shows as a 16x jump from n to 4n, a linear one as about 4x),
never absolute thresholds; the absolute figures live in the benchmarks.
They are CPU time of the measuring thread (`time.thread_time`), so other
processes competing for the cores do not move them; the bound (10x for 4x
the nodes) leaves room for a larger working set's cache misses and still
catches a quadratic step."""

from __future__ import annotations

import json
import time

import pytest

from polydat import _core


def chain_ir(n: int) -> str:
    """`x0 := hash(cycle)`, then `x{i} := hash(x{i-1})`, every binding an output."""
    nodes = [{"op": "hash", "args": [{"wire": {"input": 0}}]}]
    nodes += [{"op": "hash", "args": [{"wire": {"node": {"node": i - 1, "port": 0}}}]} for i in range(1, n)]
    outputs = [{"name": f"x{i}", "wire": {"node": {"node": i, "port": 0}}} for i in range(n)]
    return json.dumps({"inputs": [{"name": "cycle", "type": "u64", "kind": "coordinate"}],
                       "nodes": nodes, "outputs": outputs})


def best_of(f, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        started = time.thread_time()
        f()
        times.append(time.thread_time() - started)
    return min(times)


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def first_kernel_seconds(ir: str, engine: str) -> float:
    """The time of the first kernel() of a freshly compiled program (what is
    built once per program, like cones, is built then)."""
    def once() -> float:
        prog = _core.Program.compile(ir, engine=engine)
        started = time.thread_time()
        prog.kernel()
        return time.thread_time() - started
    return min(once() for _ in range(3))


@pytest.mark.parametrize("engine", ["p2/raw", "p2/pull", "p2/pushpull", "p1"])
def test_kernel_construction_is_linear_on_a_chain_of_outputs(engine: str) -> None:
    small, large = (first_kernel_seconds(chain_ir(n), engine) for n in (4_000, 16_000))
    ratio = large / max(small, 1e-6)
    assert ratio < 10, f"4x the nodes took {ratio:.1f}x the time to build a first kernel"


def test_a_kernel_of_a_long_chain_is_small() -> None:
    prog = _core.Program.compile(chain_ir(50_000), engine="p2/pull")
    before = rss_bytes()
    kernels = [prog.kernel() for _ in range(4)]
    per_kernel = (rss_bytes() - before) / len(kernels)
    assert per_kernel < 400 * 50_000, f"{per_kernel / 1e6:.1f} MB per kernel of 50k steps (the plan included)"
    for k in kernels[:2]:
        k.set_inputs([3], [])
    assert kernels[0].pull("x49999") == kernels[1].pull("x49999")


def test_compile_is_linear_on_a_chain_of_outputs() -> None:
    irs = {n: chain_ir(n) for n in (4_000, 16_000)}
    small = best_of(lambda: _core.Program.compile(irs[4_000], engine="p2/pull"), 2)
    large = best_of(lambda: _core.Program.compile(irs[16_000], engine="p2/pull"), 2)
    assert large / small < 10, f"4x the nodes took {large / small:.1f}x the time to compile"
