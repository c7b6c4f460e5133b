"""The TPC-H-shaped workload (examples/tpch/tpch.yaml) at scale factor 1,
all eight tables, against `tpchgen-cli -s 1` writing the same tables in the
same format: CPU seconds (user + system of the child process) and wall
seconds, Parquet and CSV, on 1 thread and on all threads, the runners
interleaved round by round (best round kept). Then the per-table split:
polydat's from one in-process run (CPU of the whole process, every thread,
per table), tpchgen-cli's from one run per table (`--tables NAME`).

    pip install tpchgen-cli      # beside a release build of polydat (pip install .)
    python benches/python/tpch.py [--sf 1] [--rounds 3] [--threads 1,2] [--json tpch.json]

Not a test: nothing is asserted about time.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benches" / "columns"))
from orders_vs_tpchgen import timed  # noqa: E402  (wall and CPU seconds of one child run)

WORKLOAD = ROOT / "examples" / "tpch" / "tpch.yaml"
TABLES = ["region", "nation", "supplier", "part", "partsupp", "customer", "orders", "lineitem"]

PER_TABLE = """
import resource, sys, time
from polydat.workload import Workload
sf, fmt, threads, out = float(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
w = Workload.load(sys.argv[5]).with_params(sf=sf)
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
for phase in w.phases:
    c, t = cpu(), time.perf_counter()
    with open(f"{out}/{phase.name}.{fmt}", "wb") as f:
        rows = w.write(phase, f, fmt, threads)
    print(phase.name, rows, cpu() - c, time.perf_counter() - t, flush=True)
"""


def tpchgen() -> str:
    found = shutil.which("tpchgen-cli") or str(Path(sys.executable).with_name("tpchgen-cli"))
    if not Path(found).exists():
        raise SystemExit("tpchgen-cli not found: pip install tpchgen-cli")
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sf", type=float, default=1.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", default=f"1,{os.cpu_count() or 1}")
    ap.add_argument("--formats", default="parquet,csv")
    ap.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    ap.add_argument("--polydat-only", action="store_true",
                    help="leave tpchgen-cli out (a quick check that the workload still runs)")
    args = ap.parse_args()
    threads = sorted({int(t) for t in args.threads.split(",")})
    formats = args.formats.split(",")
    gen = None if args.polydat_only else tpchgen()
    sf = f"{args.sf:g}"
    out = Path(tempfile.mkdtemp(prefix="tpch-bench-"))
    runners = {}
    for fmt in formats:
        for n in threads:
            runners[("polydat", fmt, n)] = [
                sys.executable, "-m", "polydat", "run", str(WORKLOAD), "-o", str(out / "polydat"), "-p", f"sf={sf}",
                "--format", fmt, "--threads", str(n), "--progress", "never",
            ]
            if gen is None:
                continue
            runners[("tpchgen-cli", fmt, n)] = [
                gen, fmt, "-s", sf, "-o", str(out / "tpchgen"), "--num-threads", str(n), "--overwrite",
            ]
    best = {key: (float("inf"), float("inf")) for key in runners}
    print(f"scale factor {sf}, {os.cpu_count()} cores, best of {args.rounds} interleaved rounds", flush=True)
    for r in range(args.rounds):
        for key, cmd in runners.items():
            wall, cpu = timed(cmd)
            best[key] = (min(best[key][0], wall), min(best[key][1], cpu))
            print(f"  round {r + 1}: {key[0]:<11} {key[1]:<7} {key[2]} thread(s): {cpu:6.2f} s CPU, {wall:6.2f} s wall",
                  flush=True)
    if gen is None:
        for (who, fmt, n), (wall, cpu) in best.items():
            print(f"{who} {fmt} {n} thread(s): {cpu:.2f} s CPU, {wall:.2f} s wall")
        shutil.rmtree(out)
        return
    sizes = {}
    for who in ("polydat", "tpchgen"):
        for fmt in formats:
            sizes[(who, fmt)] = sum(p.stat().st_size for p in (out / who).glob(f"*.{fmt}"))
    print("\n| format | threads | tpchgen-cli CPU s | polydat CPU s | CPU ratio | tpchgen-cli wall s | polydat wall s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    results = []
    for fmt in formats:
        for n in threads:
            t_wall, t_cpu = best[("tpchgen-cli", fmt, n)]
            p_wall, p_cpu = best[("polydat", fmt, n)]
            print(f"| {fmt} | {n} | {t_cpu:.2f} | {p_cpu:.2f} | **{p_cpu / t_cpu:.2f}** | {t_wall:.2f} | {p_wall:.2f} |")
            results.append({"format": fmt, "threads": n, "tpchgen_cpu": t_cpu, "polydat_cpu": p_cpu,
                            "tpchgen_wall": t_wall, "polydat_wall": p_wall})
    print("\nbytes written: " + ", ".join(f"{who} {fmt} {size / 1e6:.0f} MB" for (who, fmt), size in sizes.items()))
    # The per-table split, on one thread.
    split = []
    for fmt in formats:
        per = subprocess.run(
            [sys.executable, "-c", PER_TABLE, sf, fmt, "1", str(out / "polydat"), str(WORKLOAD)],
            capture_output=True, text=True, check=True,
        ).stdout.split("\n")
        ours = {line.split()[0]: line.split()[1:] for line in per if line.strip()}
        print(f"\nper table, {fmt}, 1 thread (polydat: one in-process run; tpchgen-cli: one run per table)\n")
        print("| table | rows | tpchgen-cli CPU s | polydat CPU s | CPU ratio |")
        print("|---|---:|---:|---:|---:|")
        for table in TABLES:
            _, t_cpu = timed([gen, fmt, "-s", sf, "-o", str(out / "tpchgen"), "--num-threads", "1", "--overwrite",
                              "--tables", table])
            rows, p_cpu = int(ours[table][0]), float(ours[table][1])
            print(f"| {table} | {rows:,} | {t_cpu:.2f} | {p_cpu:.2f} | {p_cpu / t_cpu:.2f} |")
            split.append({"format": fmt, "table": table, "rows": rows, "tpchgen_cpu": t_cpu, "polydat_cpu": p_cpu})
    if args.json:
        Path(args.json).write_text(json.dumps({"sf": args.sf, "runs": results, "per_table": split}, indent=1))
    shutil.rmtree(out)


if __name__ == "__main__":
    main()
