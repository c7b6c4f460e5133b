"""Scale figures (release build): a 100,000-node chain where every binding
is an output — compile, and the first P2 and P3 `kernel()` (time and memory)
— and a 100,000-statement program compiled end to end from source.

    python benches/python/scale.py [--nodes 100000] [--statements 100000]
"""

from __future__ import annotations

import argparse
import json
import time

import polydat
from polydat import _core


def chain_ir(n: int) -> str:
    """`x0 := hash(cycle)`, then `x{i} := hash(x{i-1})`, every binding an output."""
    nodes = [{"op": "hash", "args": [{"wire": {"input": 0}}]}]
    nodes += [{"op": "hash", "args": [{"wire": {"node": {"node": i - 1, "port": 0}}}]} for i in range(1, n)]
    outputs = [{"name": f"x{i}", "wire": {"node": {"node": i, "port": 0}}} for i in range(n)]
    return json.dumps(
        {"inputs": [{"name": "cycle", "type": "u64", "kind": "coordinate"}], "nodes": nodes, "outputs": outputs}
    )


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def source(statements: int) -> str:
    """A program of `statements` bindings in the DSL, a chain of hashes."""
    lines = ["input cycle: u64", "x0 := hash(cycle)"] + [f"x{i} := hash(x{i - 1})" for i in range(1, statements)]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", type=int, default=100_000)
    ap.add_argument("--statements", type=int, default=100_000)
    args = ap.parse_args()
    ir = chain_ir(args.nodes)
    for engine in ("p2/pull", "p2/raw", "p3/pull"):
        started = time.perf_counter()
        prog = _core.Program.compile(ir, engine=engine)
        compiled = time.perf_counter() - started
        before = rss_bytes()
        started = time.perf_counter()
        kernel = prog.kernel()
        built = time.perf_counter() - started
        grown = rss_bytes() - before
        kernel.set_inputs([3], [])
        started = time.perf_counter()
        kernel.pull(f"x{args.nodes - 1}")
        pulled = time.perf_counter() - started
        print(
            f"{args.nodes:,}-node chain on {engine}: compile {compiled:.2f} s, first kernel() {built:.3f} s "
            f"(+{grown / 1e6:.1f} MB, plan included), first pull of the end {pulled * 1e3:.1f} ms"
        )
        del kernel, prog
    text = source(args.statements)
    for engine in ("p2", "auto"):
        started = time.perf_counter()
        program = polydat.compile(text, engine=engine)
        took = time.perf_counter() - started
        print(f"{args.statements:,} statements from source, engine={engine} ({program.engine}): compile {took:.2f} s")


if __name__ == "__main__":
    main()
