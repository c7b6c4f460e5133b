"""The engine-ladder graph from Python: `Program.generate` of its four u64
outputs per engine, beside numpy (vectorised) and numba (`@njit`, a loop)
computing the same columns by hand. Every baseline is checked equal to
polydat's output before it is timed.

Two kinds of runs: into fresh columns (each call returns new arrays, and
pays for new memory: the floor row), and into four u64 columns allocated
once and reused (`generate(..., out=columns)`, and numba's loop writing the
same preallocated arrays), where that floor is gone. Beside them the
hand-written Rust loop (`benches/ladder_columns.rs`, built by
`cargo bench` at the bench profile, LLVM `-O3`) writing reused and fresh
`Vec<u64>` columns, run as a subprocess in every round. Threads: the
reused-column runs on 1 and 2 threads (the machine's cores).

Run against a release build (`pip install .`, not an editable dev build):

    python benches/python/ladder.py [--rows 10000000] [--repeat 5] [--no-rust]

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


def polydat_runner(engine: str, threads: int = 1, reuse: bool = False) -> Callable[[int], dict[str, np.ndarray]]:
    """`generate` of the ladder's outputs over `range(rows)` on `engine`;
    with `reuse`, into four columns allocated (and written) once, the same
    arrays every call (`out=`)."""
    program = polydat.compile(SOURCE, engine=engine)
    fixed = {"tenant_seed": TENANT_SEED, "operation_seed": OPERATION_SEED}
    kept: dict[int, dict[str, np.ndarray]] = {}

    def run(rows: int) -> dict[str, np.ndarray]:
        if not reuse:
            return program.generate(range(rows), outputs=OUTPUTS, inputs=fixed, threads=threads)
        if rows not in kept:
            kept.clear()
            kept[rows] = {name: np.ones(rows, np.uint64) for name in OUTPUTS}
        return program.generate(range(rows), outputs=OUTPUTS, inputs=fixed, threads=threads, out=kept[rows])

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


def numba_ladder(reuse: bool = False) -> Callable[[int], dict[str, np.ndarray]] | None:
    """The ladder as a numba `@njit` loop (None without numba); with `reuse`,
    into four arrays allocated (and written) once, the same every call."""
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

    kept: dict[int, list[np.ndarray]] = {}

    def run(rows: int) -> dict[str, np.ndarray]:
        if reuse:
            if rows not in kept:
                kept.clear()
                kept[rows] = [np.ones(rows, np.uint64) for _ in OUTPUTS]
            cols = kept[rows]
        else:
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
    """Every runner by name: polydat per engine (and thread count), numpy,
    numba; polydat p3 and numba also into reused columns."""
    found: dict[str, Callable[[int], dict[str, np.ndarray]]] = {}
    for engine in ("p1", "p2", "p3", "mixed"):
        for n in threads if engine in ("p3", "mixed") else (1,):
            found[f"polydat {engine} threads={n}"] = polydat_runner(engine, n)
    for n in threads:
        found[f"polydat p3 reused threads={n}"] = polydat_runner("p3", n, reuse=True)
    found["numpy (vectorised)"] = numpy_ladder
    for reuse in (False, True):
        nb = numba_ladder(reuse)
        if nb is not None:
            found["numba @njit reused" if reuse else "numba @njit"] = nb
    return found


ROOT = Path(__file__).resolve().parents[2]


def rust_loop() -> Callable[[int], dict[str, float]] | None:
    """The hand-written Rust loop (benches/ladder_columns.rs), built once by
    `cargo bench` (None without cargo): a function of the rows giving its
    seconds into reused and into fresh columns (one round each)."""
    import shutil
    import subprocess

    cargo = shutil.which("cargo")
    if cargo is None:
        return None
    built = subprocess.run(
        [cargo, "bench", "-p", "polydat-core", "--bench", "ladder_columns", "--no-run", "--message-format=json"],
        cwd=ROOT, capture_output=True, text=True,
    )
    exe = None
    for line in built.stdout.splitlines():
        if '"executable"' in line:
            found = json.loads(line)
            if found.get("target", {}).get("name") == "ladder_columns" and found.get("executable"):
                exe = found["executable"]
    if built.returncode != 0 or exe is None:
        raise SystemExit(f"cargo bench --bench ladder_columns failed:\n{built.stderr[-2000:]}")

    def run(rows: int) -> dict[str, float]:
        out = subprocess.run([exe, "--rows", str(rows), "--rounds", "1"], capture_output=True, text=True, check=True)
        per_row = json.loads(out.stdout)
        return {k: per_row[k] * rows / 1e9 for k in ("reused", "fresh")}

    return run


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
    ap.add_argument("--no-rust", action="store_true", help="leave out the hand-written Rust loop")
    args = ap.parse_args()
    found = runners()
    check_agree(found)
    found["floor: 4 fresh columns, filled"] = write_floor
    rust = None if args.no_rust else rust_loop()
    best = {name: float("inf") for name in found}
    if rust is not None:
        best.update({"hand-written Rust reused": float("inf"), "hand-written Rust fresh": float("inf")})
    for _ in range(args.repeat):
        for name, run in found.items():
            t = time.perf_counter()
            run(args.rows)
            best[name] = min(best[name], time.perf_counter() - t)
        if rust is not None:
            for kind, secs in rust(args.rows).items():
                best[f"hand-written Rust {kind}"] = min(best[f"hand-written Rust {kind}"], secs)
    bases = ("numpy (vectorised)", "numba @njit", "numba @njit reused", "hand-written Rust reused")
    base = {k: best[k] for k in bases if k in best}
    heads = "".join(f"{'vs ' + k.replace(' (vectorised)', '').replace(' @njit', ''):>22}" for k in base)
    print(f"ladder, {args.rows:,} rows into 4 u64 columns, best of {args.repeat} interleaved rounds")
    print(f"{'runner':<34}{'s':>9}{'ns/row':>9}{heads}")
    for name, secs in best.items():
        ratios = "".join(f"{secs / b:>22.3f}" for b in base.values())
        print(f"{name:<34}{secs:>9.3f}{secs / args.rows * 1e9:>9.2f}{ratios}")
    if args.json:
        per_row = {name: secs / args.rows * 1e9 for name, secs in best.items()}
        Path(args.json).write_text(json.dumps({"rows": args.rows, "ns_per_row": per_row}, indent=1))


if __name__ == "__main__":
    main()
