"""Scope-init cost from Python: binding a child of 20 externs under a parent
(8 copied, 8 read live, 4 shared cells), and ``Kernel.for_each`` over 10,000
tuples (the comprehension, one bound child kernel per tuple, one pull each).
A bench, not a test (pytest does not collect it).

Run against a release build:  pip install . && python benches/python/bench_scopes.py

The Rust side alone (no Python objects): ``cargo bench -p polydat-core --bench scopes``.
"""

from __future__ import annotations

import argparse
import time

import polydat

PARENT = "\n".join(
    ["input cycle", "extern seed: u64 = 7"]
    + [f"const c{i} := hash(seed + {i})" for i in range(8)]
    + [f"l{i} := hash(cycle + {i})" for i in range(8)]
    + [f"shared s{i}: u64 := {i}" for i in range(4)]
)
NAMES = [f"c{i}" for i in range(8)] + [f"l{i}" for i in range(8)] + [f"s{i}" for i in range(4)]
CHILD = f"all := {' ^ '.join(NAMES)}\nconst first := c0 + s0"


def best(rounds: int, run) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--engine", default="auto")
    parser.add_argument("--tuples", type=int, default=10_000)
    args = parser.parse_args()
    parent = polydat.compile(PARENT, engine=args.engine).kernel()
    child = polydat.compile(CHILD, outer=parent, engine=args.engine)
    assert sum(1 for o in child.input_origins.values() if o == "outer") == 20
    binds = 2000
    bind = best(5, lambda: [child.kernel() for _ in range(binds)]) / binds
    print(f"{child.engine}: bind a child of 20 externs: {bind * 1e6:.2f} µs")
    body = polydat.compile("v := (k ^ c0) + l0 + s0", outer=parent, iteration={"k": "u64"}, engine=args.engine)
    n = args.tuples

    def for_each() -> None:
        for kid in parent.for_each(f"k in 0..{n}", body):
            kid.pull("v")

    total = best(3, for_each)
    print(f"{body.engine}: for_each over {n:,} tuples: {total * 1e3:.1f} ms ({total / n * 1e6:.2f} µs per tuple)")
    compiled = best(3, lambda: [k.pull("v") for k in parent.for_each(f"k in 0..{n}", "v := (k ^ c0) + l0 + s0")])
    print(f"  with the body given as source (compiled once per call): {compiled * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
