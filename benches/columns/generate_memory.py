"""generate() of N rows: wall time and peak resident memory, numpy object
arrays against Arrow columns (each measurement in a fresh process).

    python benches/columns/generate_memory.py [--rows 10M] [--python PYTHON]
    python benches/columns/generate_memory.py --baseline PYTHON [--rounds 4]

Prints one line per case: format, outputs, seconds, peak RSS growth (MiB),
Arrow buffer bytes (MiB) and their ratio. --python runs the cases with
another interpreter (an older build of polydat, for "today's" numbers).
--baseline compares this interpreter's Arrow columns with the baseline
interpreter's numpy object arrays, interleaved round by round (baseline,
current, baseline, current, ...), and prints each round's speed-up and the
median."""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROGRAM = HERE / "strings5.polydat"

CASE = r"""
import gc, json, resource, sys, time
import numpy, pyarrow
import polydat
prog = polydat.compile(open(sys.argv[1]).read())
rows, fmt, outputs = int(sys.argv[2]), sys.argv[3], sys.argv[4].split(",")
prog.generate(range(1000), outputs=outputs)  # warm
gc.collect()
def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
base = rss_kib()
t0 = time.perf_counter()
if fmt == "arrow":
    out = prog.generate(range(rows), outputs=outputs, format="arrow")
    buffers = out.nbytes
else:
    out = prog.generate(range(rows), outputs=outputs)
    buffers = 0
elapsed = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": elapsed, "peak_growth_kib": peak - base, "base_kib": base, "buffers": buffers}))
"""


def parse_rows(text: str) -> int:
    scale = {"K": 10**3, "M": 10**6}
    return int(text[:-1]) * scale[text[-1]] if text[-1] in scale else int(text)


def measure(python: str, rows: int, fmt: str, outputs: str) -> dict:
    """One case in a fresh process of `python`."""
    r = subprocess.run([python, "-c", CASE, str(PROGRAM), str(rows), fmt, outputs],
                       capture_output=True, text=True, check=True)
    return json.loads(r.stdout)


def row(fmt: str, label: str, rows: int, m: dict) -> str:
    buffers = m["buffers"] / 2**20
    growth = m["peak_growth_kib"] / 1024
    ratio = f"{growth / buffers:.2f}" if buffers else ""
    shown = f"{buffers:.0f}" if buffers else ""
    return f"| {fmt} | {label} | {rows:,} | {m['seconds']:.2f} | {growth:.0f} | {shown} | {ratio} |"


CASES = [("a,b,c,s1,s2", "3 u64 + 2 str"), ("s1,s2", "2 str")]


def compare(baseline: str, rows: int, rounds: int) -> None:
    """The baseline's numpy object arrays against this build's Arrow columns, interleaved."""
    speedups: dict[str, list[float]] = {label: [] for _, label in CASES}
    print("| round | columns | baseline numpy s | current arrow s | speed-up | growth / buffers |")
    print("|---:|---|---:|---:|---:|---:|")
    for r in range(1, rounds + 1):
        for outputs, label in CASES:
            old = measure(baseline, rows, "numpy", outputs)
            new = measure(sys.executable, rows, "arrow", outputs)
            speedup = old["seconds"] / new["seconds"]
            speedups[label].append(speedup)
            growth = new["peak_growth_kib"] * 1024 / new["buffers"]
            print(f"| {r} | {label} | {old['seconds']:.2f} | {new['seconds']:.2f} | {speedup:.2f}x | {growth:.2f} |")
    for label, values in speedups.items():
        print(f"{label}: median speed-up {statistics.median(values):.2f}x over {rounds} rounds")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", default="10M")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--formats", default="numpy,arrow")
    parser.add_argument("--baseline", help="interpreter of the build to compare against (interleaved)")
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()
    rows = parse_rows(args.rows)
    if args.baseline:
        compare(args.baseline, rows, args.rounds)
        return
    print("| format | columns | rows | seconds | peak RSS growth MiB | Arrow buffers MiB | growth / buffers |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for outputs, label in CASES:
        for fmt in args.formats.split(","):
            print(row(fmt, label, rows, measure(args.python, rows, fmt, outputs)))


if __name__ == "__main__":
    main()
