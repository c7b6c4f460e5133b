"""``--parts N`` output is one dataset to the readers people point at it:
DuckDB and polars read the glob of a table's parts as one table (every CSV
part has its header, every Parquet part the same schema and nullability),
and ``--layout tpchgen`` writes tpchgen-cli's layout
(``DIR/TABLE/TABLE.I.FORMAT``, ``--part I`` counted from 1) so scripts
written for it work (issue 43 §4)."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest
from test_cli import EXAMPLE, polydat

duckdb = pytest.importorskip("duckdb")
pl = pytest.importorskip("polars")

ROOT = Path(__file__).resolve().parent.parent
TPCH = ROOT / "examples" / "tpch" / "tpch.yaml"
SF = "0.001"
"""Small enough that region (5 rows) has empty parts among 8."""

TABLE_ROWS = {"region": 5, "nation": 25, "supplier": 10, "part": 200, "partsupp": 800, "customer": 150, "orders": 1500}


def ok(*args: str) -> None:
    r = polydat(*args)
    assert r.returncode == 0, r.stderr


def count(source: str) -> int:
    """Rows DuckDB reads from ``source`` (a ``read_csv(...)`` or ``read_parquet(...)``)."""
    return int(duckdb.sql(f"select count(*) from {source}").fetchall()[0][0])


def parquet_layout(path: str) -> list[tuple[str, str, str, int]]:
    """Each column's name, physical and logical type and definition level:
    what a reader compares when it reads several files as one."""
    return [(c.name, c.physical_type, str(c.logical_type), c.max_definition_level) for c in pq.ParquetFile(path).schema]


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_duckdb_and_polars_read_a_workloads_parts_as_one_table(tmp_path: Path, fmt: str) -> None:
    ok("run", str(TPCH), "-o", str(tmp_path), "-p", f"sf={SF}", "--parts", "8", "--format", fmt)
    whole = tmp_path / "whole"
    ok("run", str(TPCH), "-o", str(whole), "-p", f"sf={SF}", "--format", fmt)
    read = "read_csv" if fmt == "csv" else "read_parquet"
    for table, rows in TABLE_ROWS.items():
        glob = str(tmp_path / f"{table}-*-of-00008.{fmt}")
        assert count(f"{read}('{glob}')") == rows, table
        one = duckdb.sql(f"select * from {read}('{whole / f'{table}.{fmt}'}')").fetchall()
        assert duckdb.sql(f"select * from {read}('{glob}')").fetchall() == one, f"{table}: the parts, in order"
        frame = pl.read_csv(glob) if fmt == "csv" else pl.read_parquet(glob)
        assert frame.height == rows, table


def test_every_csv_part_has_the_header(tmp_path: Path) -> None:
    ok("run", str(EXAMPLE), "--cycles", "0..10", "--parts", "4", "-o", str(tmp_path / "rows.csv"))
    parts = sorted(tmp_path.iterdir())
    assert len(parts) == 4
    headers = {p.read_text().splitlines()[0] for p in parts}
    assert len(headers) == 1 and headers.pop().startswith("cycle,"), "each part starts with the same header"


def test_a_programs_parquet_parts_share_schema_and_nullability_when_some_are_empty(tmp_path: Path) -> None:
    # Two rows in four parts: two parts are empty. An empty part was written
    # with every field nullable, the others with required fields, and
    # DuckDB's and polars' readers of the glob saw two schemas.
    ok("run", str(EXAMPLE), "--cycles", "2", "--parts", "4", "-o", str(tmp_path / "rows.parquet"))
    files = sorted(str(p) for p in tmp_path.iterdir())
    layouts = {tuple(parquet_layout(f)) for f in files}
    assert len(layouts) == 1, layouts
    assert [pq.ParquetFile(f).metadata.num_rows for f in files] == [0, 1, 0, 1]
    assert pl.read_parquet(str(tmp_path / "rows-*.parquet")).height == 2


def test_tpchgen_layout_writes_a_directory_per_table_with_parts_from_1(tmp_path: Path) -> None:
    ok("run", str(TPCH), "-o", str(tmp_path), "-p", f"sf={SF}", "--parts", "3", "--layout", "tpchgen")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*TABLE_ROWS, "lineitem"])
    assert sorted(p.name for p in (tmp_path / "orders").iterdir()) == [f"orders.{i}.csv" for i in (1, 2, 3)]
    for table, rows in TABLE_ROWS.items():
        glob = str(tmp_path / table / f"{table}.*.csv")
        assert count(f"read_csv('{glob}')") == rows, table
    # --part I is counted from 1 there, as tpchgen-cli's: it names the same file.
    one = tmp_path / "one"
    ok("run", str(TPCH), "-o", str(one), "-p", f"sf={SF}", "--parts", "3", "--part", "3", "--layout", "tpchgen")
    assert sorted(p.name for p in (one / "orders").iterdir()) == ["orders.3.csv"]
    assert (one / "orders" / "orders.3.csv").read_bytes() == (tmp_path / "orders" / "orders.3.csv").read_bytes()


def test_tpchgen_layout_of_a_program_and_without_parts(tmp_path: Path) -> None:
    ok("run", str(EXAMPLE), "--cycles", "0..10", "--parts", "2", "--layout", "tpchgen", "-o", str(tmp_path / "rows.csv"))
    assert sorted(p.name for p in (tmp_path / "rows").iterdir()) == ["rows.1.csv", "rows.2.csv"]
    # Without --parts the layout is tpchgen-cli's too: one file per table.
    whole = tmp_path / "whole"
    ok("run", str(TPCH), "-o", str(whole), "-p", f"sf={SF}", "--layout", "tpchgen")
    assert (whole / "region.csv").is_file()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--parts", "3", "--part", "0", "--layout", "tpchgen"], "--part 0: parts are numbered 1..3 under --layout tpchgen"),
        (["--parts", "3", "--part", "4", "--layout", "tpchgen"], "--part 4: parts are numbered 1..3 under --layout tpchgen"),
        (["--parts", "3", "--part", "3"], "--part 3: parts are numbered 0..2"),
        (["--layout", "dbgen"], "invalid choice: 'dbgen'"),
    ],
)
def test_part_numbers_outside_the_layouts_range_are_refused(tmp_path: Path, extra: list[str], message: str) -> None:
    for target in (["examples/users.polydat", "--cycles", "10"], [str(TPCH), "-p", f"sf={SF}"]):
        r = polydat("run", *target, *extra, "-o", str(tmp_path / "out"), cwd=ROOT)
        assert r.returncode == 2 and message in r.stderr, r.stderr
        assert not (tmp_path / "out").exists()

