"""`polydat run` against `tpchgen-cli` writing TPC-H `orders` (scale factor 1,
1.5M rows), CSV and Parquet, on 1 and 2 threads: wall and CPU time of each
run (median of `--repeat` runs, CPU = user + system of the child).

    pip install tpchgen-cli    # beside a release build of polydat
    python benches/columns/orders_vs_tpchgen.py [--repeat 3] [--rows 1500000]

The polydat program is benches/columns/orders.polydat: the nine columns of
`orders`, shaped alike (two keys, a status letter, a decimal price, a date,
a priority string, a clerk id, an int and a short comment). Also prints
where polydat's time goes: `generate(format="arrow")` alone on each engine.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROGRAM = HERE / "orders.polydat"
COLUMNS = "orderkey,custkey,orderstatus,totalprice,orderdate,orderpriority,clerk,shippriority,comment"


def timed(cmd: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run of ``cmd``."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {proc.stderr.read().decode() if proc.stderr else ''}")
    return wall, usage.ru_utime + usage.ru_stime


def median_run(cmd: list[str], repeat: int) -> tuple[float, float]:
    runs = [timed(cmd) for _ in range(repeat)]
    return statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rows", type=int, default=1_500_000)
    parser.add_argument("--engine", default="auto")
    args = parser.parse_args()
    tpchgen = shutil.which("tpchgen-cli") or str(Path(sys.executable).with_name("tpchgen-cli"))
    polydat = [sys.executable, "-m", "polydat"]
    out = Path(tempfile.mkdtemp(prefix="orders-bench-"))
    print(f"rows: {args.rows:,}; polydat engine: {args.engine}; median of {args.repeat}\n")
    print("| format | threads | tpchgen-cli wall s | tpchgen-cli CPU s | polydat wall s | polydat CPU s "
          "| CPU ratio | wall ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for fmt in ("csv", "parquet"):
        for threads in (1, 2):
            tpch = median_run([tpchgen, fmt, "-s", "1", "--tables", "orders", "-o", str(out / "tpch"),
                               "--num-threads", str(threads), "--overwrite", "--no-progress"], args.repeat)
            ours = median_run([*polydat, "run", str(PROGRAM), "--cycles", str(args.rows), "--outputs", COLUMNS,
                               "--no-coordinate", "--format", fmt, "-o", str(out / f"orders.{fmt}"),
                               "--threads", str(threads), "--engine", args.engine, "--progress", "never"],
                              args.repeat)
            print(f"| {fmt} | {threads} | {tpch[0]:.2f} | {tpch[1]:.2f} | {ours[0]:.2f} | {ours[1]:.2f} "
                  f"| {ours[1] / tpch[1]:.2f} | {ours[0] / tpch[0]:.2f} |")
    sizes = {p.name: p.stat().st_size for p in [out / "orders.csv", out / "orders.parquet"]}
    print(f"\nfile sizes: {', '.join(f'{k} {v / 1e6:.0f} MB' for k, v in sizes.items())}")

    import polydat as pd_

    print("\nwhere polydat's time goes (generate(format='arrow') of the nine columns, 1 thread, in process):\n")
    print("| engine | generate s | ns per row |")
    print("|---|---:|---:|")
    source = PROGRAM.read_text()
    for engine in ("p1", "p2"):
        prog = pd_.compile(source, engine=engine)
        start = time.perf_counter()
        prog.generate(range(args.rows), outputs=COLUMNS.split(","), format="arrow")
        took = time.perf_counter() - start
        print(f"| {prog.engine} | {took:.2f} | {took / args.rows * 1e9:.0f} |")
    shutil.rmtree(out)


if __name__ == "__main__":
    main()
