"""The engine-ladder graph from Python: `Program.generate` of its four u64
outputs per engine, beside numpy (vectorised) and numba (`@njit`, a loop)
computing the same columns by hand. Every baseline is checked equal to
polydat's output before it is timed.

Run against a release build (`pip install .`, not an editable dev build):

    python benches/python/ladder.py [--rows 10000000] [--repeat 5]

Runs are interleaved (every runner once per round, rounds repeated) and the
best round of each runner is reported, with ratios taken within this run.
`pytest benches/python --benchmark-only` times the same runners through
pytest-benchmark (see test_ladder.py).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable
from pathlib import Path

# numpy's BLAS threads spin while idle and take a core from the runners being
# timed; nothing here uses BLAS.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import polydat  # noqa: E402

SOURCE = (Path(__file__).resolve().parents[1] / "graphs" / "ladder.polydat").read_text()
OUTPUTS = ["account_id", "shard", "payload_class", "event_token"]
TENANT_SEED, OPERATION_SEED = 17, 99

_GAMMA, _M1, _M2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB


def polydat_runner(engine: str, threads: int = 1) -> Callable[[int], dict[str, np.ndarray]]:
    """`generate` of the ladder's outputs over `range(rows)` on `engine`."""
    program = polydat.compile(SOURCE, engine=engine)
    fixed = {"tenant_seed": TENANT_SEED, "operation_seed": OPERATION_SEED}

    def run(rows: int) -> dict[str, np.ndarray]:
        return program.generate(range(rows), outputs=OUTPUTS, inputs=fixed, threads=threads)

    return run


def numpy_ladder(rows: int) -> dict[str, np.ndarray]:
    """The ladder vectorised with numpy (SplitMix64's finalizer by hand)."""

    def mix(x: np.ndarray) -> np.ndarray:
        z = x + np.uint64(_GAMMA)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(_M1)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(_M2)
        return z ^ (z >> np.uint64(31))

    with np.errstate(over="ignore"):
        cycle = np.arange(rows, dtype=np.uint64)
        identity = mix(cycle + np.uint64(TENANT_SEED))
        account = identity % np.uint64(10_000_000)
        route = mix(account ^ np.uint64(OPERATION_SEED))
        payload = mix(identity + np.uint64(OPERATION_SEED))
        token = mix(route + payload)
        return {
            "account_id": account,
            "shard": route % np.uint64(64),
            "payload_class": payload % np.uint64(8),
            "event_token": token,
        }


def numba_ladder() -> Callable[[int], dict[str, np.ndarray]] | None:
    """The ladder as a numba `@njit` loop (None without numba)."""
    try:
        import numba
    except ImportError:
        return None

    @numba.njit(inline="always")
    def mix(x):  # type: ignore[no-untyped-def]
        z = x + np.uint64(_GAMMA)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(_M1)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(_M2)
        return z ^ (z >> np.uint64(31))

    @numba.njit
    def fill(rows, a, s, p, t):  # type: ignore[no-untyped-def]
        for i in range(rows):
            identity = mix(np.uint64(i) + np.uint64(TENANT_SEED))
            account = identity % np.uint64(10_000_000)
            route = mix(account ^ np.uint64(OPERATION_SEED))
            payload = mix(identity + np.uint64(OPERATION_SEED))
            a[i] = account
            s[i] = route % np.uint64(64)
            p[i] = payload % np.uint64(8)
            t[i] = mix(route + payload)

    def run(rows: int) -> dict[str, np.ndarray]:
        cols = [np.empty(rows, np.uint64) for _ in OUTPUTS]
        fill(rows, *cols)
        return dict(zip(OUTPUTS, cols))

    run(10)  # compile outside the timing
    return run


def write_floor(rows: int) -> dict[str, np.ndarray]:
    """No ladder at all: four fresh u64 columns allocated and filled with a
    constant. What handing back this much new memory costs on this machine
    (the kernel's page clearing, then one write of every row) — a floor
    under every runner, reported beside them, not one of them."""
    cols = [np.empty(rows, np.uint64) for _ in OUTPUTS]
    for col in cols:
        col.fill(1)
    return dict(zip(OUTPUTS, cols))


def runners(threads: tuple[int, ...] = (1, 2)) -> dict[str, Callable[[int], dict[str, np.ndarray]]]:
    """Every runner by name: polydat per engine (and thread count), numpy, numba."""
    found: dict[str, Callable[[int], dict[str, np.ndarray]]] = {}
    for engine in ("p1", "p2", "p3", "mixed"):
        for n in threads if engine in ("p3", "mixed") else (1,):
            found[f"polydat {engine} threads={n}"] = polydat_runner(engine, n)
    found["numpy (vectorised)"] = numpy_ladder
    nb = numba_ladder()
    if nb is not None:
        found["numba @njit"] = nb
    return found


def check_agree(found: dict[str, Callable[[int], dict[str, np.ndarray]]], rows: int = 4096) -> None:
    """Every runner gives P1's columns (raises AssertionError naming the first that does not)."""
    want = polydat_runner("p1")(rows)
    for name, run in found.items():
        got = run(rows)
        for column in OUTPUTS:
            assert np.array_equal(got[column], want[column]), f"{name}: column {column} differs from polydat p1"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", metavar="PATH", help="also write {runner: ns per row} to PATH")
    args = ap.parse_args()
    found = runners()
    check_agree(found)
    found["floor: 4 fresh columns, filled"] = write_floor
    best = {name: float("inf") for name in found}
    for _ in range(args.repeat):
        for name, run in found.items():
            t = time.perf_counter()
            run(args.rows)
            best[name] = min(best[name], time.perf_counter() - t)
    base = {k: best[k] for k in ("numpy (vectorised)", "numba @njit") if k in best}
    heads = "".join(f"{'vs ' + k.split()[0]:>12}" for k in base)
    print(f"ladder, {args.rows:,} rows into 4 u64 columns, best of {args.repeat} interleaved rounds")
    print(f"{'runner':<32}{'s':>9}{'ns/row':>9}{heads}")
    for name, secs in best.items():
        ratios = "".join(f"{secs / b:>12.3f}" for b in base.values())
        print(f"{name:<32}{secs:>9.3f}{secs / args.rows * 1e9:>9.2f}{ratios}")
    if args.json:
        per_row = {name: secs / args.rows * 1e9 for name, secs in best.items()}
        Path(args.json).write_text(json.dumps({"rows": args.rows, "ns_per_row": per_row}, indent=1))


if __name__ == "__main__":
    main()
