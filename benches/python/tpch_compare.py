"""examples/tpch beside tpchgen-cli (dbgen's Rust port) at one scale factor,
as data rather than as time: both datasets written as Parquet and loaded
into DuckDB, then, side by side,

- per table: rows, and whether every column has the same name and type;
- per comment column: distinct values and mean length;
- a few distributions the queries depend on (Q13's '%special%requests%'
  share, p_name colours in dictionary order);
- the 22 queries with the spec's validation parameters
  (tests/data/tpch_queries): rows returned by each, and for the queries
  that aggregate money, the relative gap of their first numeric column's
  total.

    pip install tpchgen-cli duckdb      # beside a build of polydat (pip install .)
    python benches/python/tpch_compare.py --sf 1 [--json compare.json]

A report, not a test: nothing is asserted (tests/test_tpch_fidelity.py
holds the checks at SF 0.01, and reads both datasets with the helpers
below).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb

from polydat.workload import Workload

ROOT = Path(__file__).resolve().parents[2]
WORKLOAD = ROOT / "examples" / "tpch" / "tpch.yaml"
QUERIES = ROOT / "tests" / "data" / "tpch_queries"
TABLES = ["region", "nation", "supplier", "part", "partsupp", "customer", "orders", "lineitem"]
COMMENTS = ["l_comment", "o_comment", "ps_comment", "p_comment", "c_comment", "s_comment", "n_comment", "r_comment"]
PREFIXES = {"l": "lineitem", "o": "orders", "ps": "partsupp", "p": "part", "c": "customer", "s": "supplier",
            "n": "nation", "r": "region"}
"""Each table by its columns' prefix."""
DISTRIBUTIONS = {
    "orders matching '%special%requests%' (share)":
        "select avg((o_comment like '%special%requests%')::int) from orders",
    "p_name colours in dictionary order (share)":
        "select avg((list_sort(string_split(p_name, ' ')) = string_split(p_name, ' '))::int) from part",
    "suppliers with Customer%Complaints": "select count(*) from supplier where s_comment like '%Customer%Complaints%'",
    "suppliers with Customer%Recommends": "select count(*) from supplier where s_comment like '%Customer%Recommends%'",
}


def tpchgen_cli() -> str | None:
    """The tpchgen-cli executable, on PATH or beside this Python's, if any."""
    found = shutil.which("tpchgen-cli") or str(Path(sys.executable).with_name("tpchgen-cli"))
    return found if Path(found).exists() else None


def write_polydat(sf: float, out: Path) -> None:
    """examples/tpch at scale ``sf`` into ``out``, one Parquet file per table."""
    workload = Workload.load(WORKLOAD).with_params(sf=sf)
    for phase in workload.phases:
        with open(out / f"{phase.name}.parquet", "wb") as f:
            workload.write(phase, f, "parquet", threads=2)


def write_tpchgen(sf: float, out: Path) -> None:
    """tpchgen-cli's tables at scale ``sf`` into ``out``, one Parquet file per table."""
    cli = tpchgen_cli()
    if cli is None:
        raise FileNotFoundError("tpchgen-cli is not installed: pip install tpchgen-cli")
    subprocess.run([cli, "parquet", "-s", str(sf), "-o", str(out), "-q"], check=True, timeout=3600)


def load(directory: Path) -> Any:
    """A DuckDB connection with a table per Parquet file of ``directory``."""
    con = duckdb.connect()
    for table in TABLES:
        con.sql(f"create table {table} as select * from read_parquet('{directory / (table + '.parquet')}')")
    return con


def one(con: Any, sql: str) -> Any:
    """The single value ``sql`` selects."""
    return con.sql(sql).fetchall()[0][0]


def query_rows(con: Any, number: int, sf: float) -> list[Any]:
    """The rows of TPC-H query ``number`` (validation parameters) on ``con``, a dataset of scale ``sf``."""
    sql = (QUERIES / f"q{number:02d}.sql").read_text().replace("{sf}", repr(sf))
    return con.sql(sql).fetchall()  # type: ignore[no-any-return]


def query_total(rows: list[tuple[Any, ...]]) -> float | None:
    """The total of the first column of ``rows`` holding money (a Decimal or float), if any."""
    if not rows:
        return None
    for k, cell in enumerate(rows[0]):
        if isinstance(cell, (Decimal, float)):
            return float(sum(row[k] for row in rows if row[k] is not None))
    return None


def compare(sf: float) -> dict[str, Any]:
    report: dict[str, Any] = {"sf": sf}
    with tempfile.TemporaryDirectory() as tmp:
        ours_dir, theirs_dir = Path(tmp, "polydat"), Path(tmp, "tpchgen")
        ours_dir.mkdir()
        started = time.perf_counter()
        write_polydat(sf, ours_dir)
        report["polydat_seconds"] = round(time.perf_counter() - started, 1)
        started = time.perf_counter()
        write_tpchgen(sf, theirs_dir)
        report["tpchgen_seconds"] = round(time.perf_counter() - started, 1)
        ours, theirs = load(ours_dir), load(theirs_dir)

    report["tables"] = {}
    for table in TABLES:
        ours_cols = ours.sql(f"describe {table}").fetchall()
        theirs_cols = theirs.sql(f"describe {table}").fetchall()
        report["tables"][table] = {
            "rows": (one(ours, f"select count(*) from {table}"), one(theirs, f"select count(*) from {table}")),
            "same_columns_and_types": [c[:2] for c in ours_cols] == [c[:2] for c in theirs_cols],
        }
    report["comments"] = {}
    for column in COMMENTS:
        table = PREFIXES[column.split("_")[0]]
        sql = f"select count(distinct {column}), avg(length({column})) from {table}"
        (od, ol), (td, tl) = ours.sql(sql).fetchall()[0], theirs.sql(sql).fetchall()[0]
        report["comments"][column] = {"distinct": (od, td), "mean_length": (round(ol, 1), round(tl, 1))}
    report["distributions"] = {
        name: (round(float(one(ours, sql)), 4), round(float(one(theirs, sql)), 4)) for name, sql in DISTRIBUTIONS.items()
    }
    report["queries"] = {}
    for number in range(1, 23):
        a, b = query_rows(ours, number, sf), query_rows(theirs, number, sf)
        ta, tb = query_total(a), query_total(b)
        gap = None if ta is None or not tb else round(100.0 * (ta - tb) / tb, 1)
        report["queries"][f"Q{number}"] = {"rows": (len(a), len(b)), "total_gap_percent": gap}
    return report


def show(report: dict[str, Any]) -> None:
    print(f"examples/tpch vs tpchgen-cli at SF {report['sf']} "
          f"(polydat {report['polydat_seconds']} s, tpchgen-cli {report['tpchgen_seconds']} s, Parquet)")
    print("\n| table | rows polydat | rows tpchgen-cli | same columns and types |\n|---|---|---|---|")
    for table, row in report["tables"].items():
        print(f"| {table} | {row['rows'][0]:,} | {row['rows'][1]:,} | {'yes' if row['same_columns_and_types'] else 'NO'} |")
    print("\n| comment | distinct polydat | distinct tpchgen-cli | mean length polydat | tpchgen-cli |\n|---|---|---|---|---|")
    for column, row in report["comments"].items():
        d, m = row["distinct"], row["mean_length"]
        print(f"| {column} | {d[0]:,} | {d[1]:,} | {m[0]} | {m[1]} |")
    print("\n| distribution | polydat | tpchgen-cli |\n|---|---|---|")
    for name, (a, b) in report["distributions"].items():
        print(f"| {name} | {a} | {b} |")
    print("\n| query | rows polydat | rows tpchgen-cli | money total gap |\n|---|---|---|---|")
    for name, row in report["queries"].items():
        gap = "" if row["total_gap_percent"] is None else f"{row['total_gap_percent']:+.1f}%"
        print(f"| {name} | {row['rows'][0]} | {row['rows'][1]} | {gap} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sf", type=float, default=1.0)
    parser.add_argument("--json", metavar="PATH", help="also write the report as JSON")
    args = parser.parse_args()
    if tpchgen_cli() is None:
        sys.exit("tpchgen-cli is not installed: pip install tpchgen-cli")
    report = compare(args.sf)
    show(report)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
