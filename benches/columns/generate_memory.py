"""generate() of N rows: wall time and peak resident memory, numpy object
arrays against Arrow columns (each measurement in a fresh process).

    python benches/columns/generate_memory.py [--rows 10M] [--python PYTHON]

Prints one line per case: format, outputs, seconds, peak RSS growth (MiB),
Arrow buffer bytes (MiB) and their ratio. --python runs the cases with
another interpreter (an older build of polydat, for "today's" numbers)."""

from __future__ import annotations

import argparse
import json
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", default="10M")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--formats", default="numpy,arrow")
    args = parser.parse_args()
    rows = parse_rows(args.rows)
    cases = [("a,b,c,s1,s2", "3 u64 + 2 str"), ("s1,s2", "2 str")]
    print(f"| format | columns | rows | seconds | peak RSS growth MiB | Arrow buffers MiB | growth / buffers |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for outputs, label in cases:
        for fmt in args.formats.split(","):
            r = subprocess.run([args.python, "-c", CASE, str(PROGRAM), str(rows), fmt, outputs],
                               capture_output=True, text=True, check=True)
            m = json.loads(r.stdout)
            buffers = m["buffers"] / 2**20
            growth = m["peak_growth_kib"] / 1024
            ratio = f"{growth / buffers:.2f}" if buffers else ""
            shown = f"{buffers:.0f}" if buffers else ""
            print(f"| {fmt} | {label} | {rows:,} | {m['seconds']:.2f} | {growth:.0f} | {shown} | {ratio} |")


if __name__ == "__main__":
    main()
