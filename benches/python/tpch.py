"""The TPC-H-shaped workload (examples/tpch/tpch.yaml) at scale factor 1,
all eight tables, against `tpchgen-cli -s 1` writing the same tables in the
same format: CPU seconds (user + system of the child process) and wall
seconds, on 1 thread and on all threads, the runners interleaved round by
round (best round kept). Each run is a whole command, start-up included,
for both tools: nothing is subtracted.

Three comparisons:
- `parquet`: each tool with its defaults (polydat picks each column's
  encoding from a sample; tpchgen-cli dictionary-encodes every column);
- `parquet-matched`: the same polydat run against tpchgen-cli given
  polydat's encodings (`--column-encoding COLUMN=ENCODING` for each column
  polydat did not dictionary-encode, read from polydat's files) and its
  compression (`--compression`), so both write the same encodings; the
  encodings of both outputs are compared and any difference printed;
- `csv`: both tools' CSV (no option to match).

Then the per-table split: polydat's from one in-process run (CPU of the
whole process, every thread, per table), tpchgen-cli's from one run per
table (`--tables NAME`, each paying its start-up).

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


DICTIONARY = {"PLAIN_DICTIONARY", "RLE_DICTIONARY"}
"""Parquet's dictionary encodings: tpchgen-cli's default, which its
``--column-encoding`` cannot request."""


def parquet_encodings(directory: Path) -> dict[str, str]:
    """Each column's encoding in the Parquet files of ``directory`` (first
    row group): ``DICTIONARY`` for a dictionary-encoded column, else its
    data pages' encoding (``PLAIN``, ``DELTA_BINARY_PACKED``, ...)."""
    import pyarrow.parquet as pq

    found = {}
    for path in sorted(directory.glob("*.parquet")):
        meta = pq.ParquetFile(path).metadata
        if meta.num_row_groups == 0:
            continue
        group = meta.row_group(0)
        for i in range(group.num_columns):
            column = group.column(i)
            encodings = set(column.encodings)
            data = encodings - {"RLE", "BIT_PACKED"} or encodings
            found[column.path_in_schema] = "DICTIONARY" if encodings & DICTIONARY else min(data)
    return found


def parquet_compression(directory: Path) -> str:
    """The compression of ``directory``'s Parquet files as tpchgen-cli's
    ``--compression`` spells it (one codec for every column)."""
    import pyarrow.parquet as pq

    codecs = {
        pq.ParquetFile(p).metadata.row_group(0).column(i).compression
        for p in directory.glob("*.parquet")
        if pq.ParquetFile(p).metadata.num_row_groups
        for i in range(pq.ParquetFile(p).metadata.num_columns)
    }
    if len(codecs) != 1:
        raise SystemExit(f"polydat's Parquet files use several codecs ({sorted(codecs)}): nothing to match")
    codec = codecs.pop()
    return {"ZSTD": "ZSTD(1)", "GZIP": "GZIP(6)", "BROTLI": "BROTLI(1)"}.get(codec, codec)


def matched_flags(directory: Path) -> list[str]:
    """tpchgen-cli's options that make it write the encodings and the
    compression polydat wrote into ``directory``."""
    encodings = parquet_encodings(directory)
    chosen = ",".join(f"{c}={e}" for c, e in encodings.items() if e != "DICTIONARY")
    return ["--compression", parquet_compression(directory), *(["--column-encoding", chosen] if chosen else [])]


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

    def polydat(fmt: str, n: int) -> list[str]:
        return [sys.executable, "-m", "polydat", "run", str(WORKLOAD), "-o", str(out / "polydat"), "-p", f"sf={sf}",
                "--format", fmt, "--threads", str(n), "--progress", "never"]

    def tpchgen_cli(fmt: str, n: int, *flags: str, into: str = "tpchgen") -> list[str]:
        return [gen, fmt, "-s", sf, "-o", str(out / into), "--num-threads", str(n), "--overwrite", *flags]

    runners = {}
    matched: list[str] = []
    if gen is not None and "parquet" in formats:
        # polydat's encodings, from a run before the timed ones (it also warms the caches).
        timed(polydat("parquet", 1))
        matched = matched_flags(out / "polydat")
        print(f"tpchgen-cli matched to polydat's Parquet: {' '.join(matched)}", flush=True)
    for fmt in formats:
        for n in threads:
            runners[("polydat", fmt, n)] = polydat(fmt, n)
            if gen is None:
                continue
            runners[("tpchgen-cli", fmt, n)] = tpchgen_cli(fmt, n)
            if fmt == "parquet":
                runners[("tpchgen-cli", "parquet-matched", n)] = tpchgen_cli(fmt, n, *matched, into="matched")
    best = {key: (float("inf"), float("inf")) for key in runners}
    print(f"scale factor {sf}, {os.cpu_count()} cores, best of {args.rounds} interleaved rounds, "
          "whole commands (start-up included)", flush=True)
    for r in range(args.rounds):
        for key, cmd in runners.items():
            wall, cpu = timed(cmd)
            best[key] = (min(best[key][0], wall), min(best[key][1], cpu))
            print(f"  round {r + 1}: {key[0]:<11} {key[1]:<15} {key[2]} thread(s): {cpu:6.2f} s CPU, "
                  f"{wall:6.2f} s wall", flush=True)
    if gen is None:
        for (who, fmt, n), (wall, cpu) in best.items():
            print(f"{who} {fmt} {n} thread(s): {cpu:.2f} s CPU, {wall:.2f} s wall")
        shutil.rmtree(out)
        return
    if matched:
        ours, theirs = parquet_encodings(out / "polydat"), parquet_encodings(out / "matched")
        differ = {c: (e, theirs.get(c)) for c, e in ours.items() if theirs.get(c) != e}
        print(f"\nencodings matched in {len(ours) - len(differ)} of {len(ours)} columns"
              + (f"; differing (polydat, tpchgen-cli): {differ}" if differ else ""))
    configs = [c for fmt in formats for c in ((fmt, "parquet-matched") if fmt == "parquet" else (fmt,))]
    sizes = {(who, fmt): sum(p.stat().st_size for p in where.glob(f"*.{fmt}"))
             for who, where in (("polydat", out / "polydat"), ("tpchgen-cli", out / "tpchgen"),
                                ("tpchgen-cli matched", out / "matched")) if where.exists()
             for fmt in formats if any(where.glob(f"*.{fmt}"))}
    print("\n| comparison | threads | tpchgen-cli CPU s | polydat CPU s | CPU ratio | tpchgen-cli wall s | polydat wall s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    results = []
    for config in configs:
        fmt = config.split("-")[0]
        for n in threads:
            t_wall, t_cpu = best[("tpchgen-cli", config, n)]
            p_wall, p_cpu = best[("polydat", fmt, n)]
            label = {"parquet": "parquet, each tool's defaults", "parquet-matched": "parquet, same encodings",
                     "csv": "csv"}.get(config, config)
            print(f"| {label} | {n} | {t_cpu:.2f} | {p_cpu:.2f} | **{p_cpu / t_cpu:.2f}** | {t_wall:.2f} | {p_wall:.2f} |")
            results.append({"comparison": config, "format": fmt, "threads": n, "tpchgen_cpu": t_cpu,
                            "polydat_cpu": p_cpu, "tpchgen_wall": t_wall, "polydat_wall": p_wall})
    print("\nbytes written (last run of each): " + ", ".join(
        f"{who} {fmt} {size / 1e6:.1f} MB" for (who, fmt), size in sizes.items()))
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
