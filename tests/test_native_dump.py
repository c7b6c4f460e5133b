"""The native-code listing: with POLYDAT_DUMP_NATIVE set, every function the
native engine compiles is printed to standard error (for reading what a
program's row loop became); without it, nothing is."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from polydat import _core

PROGRAM = """
import numpy as np, polydat
p = polydat.compile("input cycle: u64\\nh := hash(cycle)\\nm := mod(h, 10)", engine="p3")
out = {"m": np.empty(1000, np.uint64)}
p.generate(range(1000), outputs=["m"], out=out)
assert out["m"][7] == p.generate(range(7, 8), outputs=["m"])["m"][0]
"""


def loop_body(listing: str) -> str:
    """The block of a row loop's listing that branches back to itself: the
    one ending in its `jnz`."""
    blocks = re.split(r"\nblock\d+:\n", listing)
    return next(b for b in blocks if "jnz" in b)


def run(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.skipif(not any(e.startswith("p3/") for e in _core.engines()), reason="no native engine on this machine")
def test_the_native_listing_is_printed_only_when_asked_for() -> None:
    quiet = {k: v for k, v in os.environ.items() if k != "POLYDAT_DUMP_NATIVE"}
    silent = run(quiet)
    assert silent.returncode == 0, silent.stderr
    assert "polydat native function" not in silent.stderr

    dumped = run({**quiet, "POLYDAT_DUMP_NATIVE": "1"})
    assert dumped.returncode == 0, dumped.stderr
    listings = dumped.stderr.count("; polydat native function")
    assert listings >= 1, dumped.stderr[-2000:]
    # Cranelift's listing of real code: blocks and a return.
    assert "block0:" in dumped.stderr and "ret" in dumped.stderr


LITERAL_LOOP = """
import numpy as np, polydat
src = "input cycle: u64\\nconst seed := 99\\nconst salt := 17\\nx := hash(u64_add(cycle, salt))\\ny := u64_xor(x, seed)"
p = polydat.compile(src, engine="p3")
out = {"y": np.empty(1000, np.uint64)}
p.generate(range(1000), outputs=["y"], out=out)
assert out["y"][7] == p.generate(range(7, 8), outputs=["y"])["y"][0]
"""


@pytest.mark.skipif(not any(e.startswith("p3/") for e in _core.engines()), reason="no native engine on this machine")
def test_a_row_loop_takes_literals_as_constants_of_its_code() -> None:
    """`const seed := 99` is an immediate of the row loop (`xor $0x63`), not
    a word read from the buffer; `cycle + 17` and the hash's own constant
    are summed once, before the loop (one add per row, not two)."""
    env = {**os.environ, "POLYDAT_DUMP_NATIVE": "1"}
    dumped = subprocess.run([sys.executable, "-c", LITERAL_LOOP], env=env, capture_output=True, text=True, timeout=120)
    assert dumped.returncode == 0, dumped.stderr
    loop = dumped.stderr.split("; polydat native function")[-1]  # the row loop is compiled last
    assert "$0x63" in loop, loop
    body = loop_body(loop)
    assert "0x11(" not in body and "$0x11" not in body, body


LADDER_LOOP = """
import numpy as np, polydat
from pathlib import Path
p = polydat.compile(Path(%r).read_text(), engine="p3")
outs = ["account_id", "shard", "payload_class", "event_token"]
batch = 1 << 20
got = {n: np.zeros(batch, np.uint64) for n in outs}
for k in range(9):  # past 2**23 rows with the same seeds: the specialised loop
    p.generate(range(k * batch, (k + 1) * batch), outputs=outs, inputs={"tenant_seed": 17, "operation_seed": 99}, out=got)
want = polydat.compile(Path(%r).read_text(), engine="p1").generate(
    range(9 * batch - 100, 9 * batch), outputs=outs, inputs={"tenant_seed": 17, "operation_seed": 99})
assert all((got[n][-100:] == want[n]).all() for n in outs)
"""


@pytest.mark.skipif(not any(e.startswith("p3/") for e in _core.engines()), reason="no native engine on this machine")
def test_the_ladders_row_loop_on_fixed_seeds_starts_the_next_rows_hash_first() -> None:
    """The engine ladder over nine million rows with its seeds as `inputs=`:
    the loop built for those seeds takes them as immediates (`xor $0x63`),
    and computes the next row's identity hash at the top of each turn,
    before this row's columns (its value stored to a slot nothing reads, so
    Cranelift places it there), carried into the next turn; at most 68
    instructions a row and one value reloaded from the stack."""
    from pathlib import Path

    graph = str(Path(__file__).resolve().parents[1] / "benches" / "graphs" / "ladder.polydat")
    env = {**os.environ, "POLYDAT_DUMP_NATIVE": "1"}
    source = LADDER_LOOP % (graph, graph)
    dumped = subprocess.run([sys.executable, "-c", source], env=env, capture_output=True, text=True, timeout=300)
    assert dumped.returncode == 0, dumped.stderr[-3000:]
    loop = dumped.stderr.split("; polydat native function")[-1]  # the specialised loop is compiled last
    body = loop_body(loop)
    lines = [line.strip() for line in body.strip().splitlines()]
    assert "$0x63," in body, body
    column_stores = [k for k, line in enumerate(lines) if re.match(r"movq %\w+, \(%\w+, %\w+, 8\)", line)]
    slot_stores = [k for k, line in enumerate(lines) if re.match(r"movq %\w+, <offset:\d+>.*\(%rsp\)", line)]
    assert len(column_stores) == 4 and len(slot_stores) == 1, body
    assert slot_stores[0] < column_stores[0], body
    hashes_before = sum(line.startswith("imulq %") for line in lines[: slot_stores[0]])
    assert hashes_before == 2, body  # the next row's identity hash: its two multiplies
    reloads = [line for line in lines if re.match(r"movq <offset:\d+>.*\(%rsp\), %", line)]
    assert len(reloads) <= 1, body
    assert len(lines) <= 68, body
