"""Rows per second of `Program.generate` from Python, beside numpy computing the
same columns by hand in the same run (and numba, when installed).

Run against a release build:  pip install . && python benches/python/generate_throughput.py
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

# numpy's BLAS threads spin while idle and take a core from the runners being
# timed (this machine has two); nothing here uses BLAS.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import polydat  # noqa: E402

SOURCE = """
input cycle: u64
hashed := hash(cycle)
user_id := mod(hashed, 1000000)
bucket := mod(hashed, 64)
"""

M1 = np.uint64(0xBF58476D1CE4E5B9)
M2 = np.uint64(0x94D049BB133111EB)
GAMMA = np.uint64(0x9E3779B97F4A7C15)


def numpy_columns(start: int, stop: int) -> dict[str, np.ndarray]:
    """The same three columns with vectorised numpy (SplitMix64 by hand)."""
    with np.errstate(over="ignore"):
        z = np.arange(start, stop, dtype=np.uint64) + GAMMA
        z = (z ^ (z >> np.uint64(30))) * M1
        z = (z ^ (z >> np.uint64(27))) * M2
        z = z ^ (z >> np.uint64(31))
    return {"hashed": z, "user_id": z % np.uint64(1000000), "bucket": z % np.uint64(64)}


def numba_columns() -> Callable[[int, int], dict[str, np.ndarray]] | None:
    try:
        import numba
    except ImportError:
        return None

    @numba.njit(cache=False)
    def kernel(start: int, stop: int, h: np.ndarray, u: np.ndarray, b: np.ndarray) -> None:
        for i in range(stop - start):
            z = np.uint64(start + i) + np.uint64(0x9E3779B97F4A7C15)
            z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            z = z ^ (z >> np.uint64(31))
            h[i] = z
            u[i] = z % np.uint64(1000000)
            b[i] = z % np.uint64(64)

    def run(start: int, stop: int) -> dict[str, np.ndarray]:
        n = stop - start
        h, u, b = np.empty(n, np.uint64), np.empty(n, np.uint64), np.empty(n, np.uint64)
        kernel(start, stop, h, u, b)
        return {"hashed": h, "user_id": u, "bucket": b}

    run(0, 10)  # compile outside the timing
    return run


def best_rate(fn: Callable[[], object], rows: int, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return rows / best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    n = args.rows
    want = numpy_columns(0, 1000)
    rows: dict[str, float] = {}
    for engine in ("p1", "p2"):
        prog = polydat.compile(SOURCE, engine=engine)
        got = prog.generate(range(1000))
        assert all(np.array_equal(got[k], want[k]) for k in want), f"{prog.engine} disagrees with numpy"
        for threads in (1, 2):
            rate = best_rate(lambda: prog.generate(range(n), threads=threads), n, args.repeat)
            rows[f"polydat {prog.engine} threads={threads}"] = rate
    rows["numpy (by hand)"] = best_rate(lambda: numpy_columns(0, n), n, args.repeat)
    nb = numba_columns()
    if nb is not None:
        rows["numba (by hand)"] = best_rate(lambda: nb(0, n), n, args.repeat)
    base = rows["numpy (by hand)"]
    print(f"{'runner':<28}{'rows/s':>16}{'vs numpy':>10}")
    for name, rate in rows.items():
        print(f"{name:<28}{rate:>16,.0f}{rate / base:>10.2f}")


if __name__ == "__main__":
    main()
