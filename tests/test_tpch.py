"""The TPC-H-shaped workload (examples/tpch): at a small scale factor, every
table has the spec's columns, types and row counts, every foreign key
resolves, values stay in the spec's ranges, an order agrees with its lines,
and `--parts N` cuts every table into parts whose concatenation (each CSV
part's header kept once) is the whole table, byte for byte (the whole made on
one thread, the parts on two)."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from datetime import date
from pathlib import Path

import pytest

from polydat.workload import Workload
from test_workload import cli, read_csv as read

ROOT = Path(__file__).resolve().parent.parent
TPCH = ROOT / "examples" / "tpch" / "tpch.yaml"
SF = 0.025
"""The smallest scale factor whose 250 suppliers give every part four distinct
ones by the spec's formula (at fewer, as with dbgen, some parts repeat one)."""

COLUMNS = {
    "region": ["r_regionkey", "r_name", "r_comment"],
    "nation": ["n_nationkey", "n_name", "n_regionkey", "n_comment"],
    "supplier": ["s_suppkey", "s_name", "s_address", "s_nationkey", "s_phone", "s_acctbal", "s_comment"],
    "part": [
        "p_partkey", "p_name", "p_mfgr", "p_brand", "p_type", "p_size", "p_container", "p_retailprice", "p_comment",
    ],
    "partsupp": ["ps_partkey", "ps_suppkey", "ps_availqty", "ps_supplycost", "ps_comment"],
    "customer": [
        "c_custkey", "c_name", "c_address", "c_nationkey", "c_phone", "c_acctbal", "c_mktsegment", "c_comment",
    ],
    "orders": [
        "o_orderkey", "o_custkey", "o_orderstatus", "o_totalprice", "o_orderdate", "o_orderpriority", "o_clerk",
        "o_shippriority", "o_comment",
    ],
    "lineitem": [
        "l_orderkey", "l_partkey", "l_suppkey", "l_linenumber", "l_quantity", "l_extendedprice", "l_discount",
        "l_tax", "l_returnflag", "l_linestatus", "l_shipdate", "l_commitdate", "l_receiptdate", "l_shipinstruct",
        "l_shipmode", "l_comment",
    ],
}

# The spec's lengths of each comment (and address) column.
LENGTHS = {
    ("region", "r_comment"): (31, 115),
    ("nation", "n_comment"): (31, 114),
    ("supplier", "s_comment"): (25, 100),
    ("supplier", "s_address"): (10, 40),
    ("part", "p_comment"): (5, 22),
    ("partsupp", "ps_comment"): (49, 198),
    ("customer", "c_comment"): (29, 116),
    ("customer", "c_address"): (10, 40),
    ("orders", "o_comment"): (19, 78),
    ("lineitem", "l_comment"): (10, 43),
}

CURRENT = date(1995, 6, 17)


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("tpch")
    r = cli("run", str(TPCH), "-o", str(out), "-p", f"sf={SF}")
    assert r.returncode == 0, r.stderr
    return out


@pytest.fixture(scope="module")
def tables(whole: Path) -> dict[str, list[dict[str, str]]]:
    return {name: read(whole / f"{name}.csv") for name in COLUMNS}


def test_every_table_has_the_specs_columns_and_row_counts(whole: Path, tables: dict[str, list[dict[str, str]]]) -> None:
    for name, columns in COLUMNS.items():
        header = (whole / f"{name}.csv").read_text().splitlines()[0]
        assert header.split(",") == columns, name
    counts = {name: len(rows) for name, rows in tables.items()}
    assert counts["region"] == 5 and counts["nation"] == 25
    assert counts["supplier"] == round(SF * 10_000)
    assert counts["part"] == round(SF * 200_000)
    assert counts["partsupp"] == 4 * counts["part"]
    assert counts["customer"] == round(SF * 150_000)
    assert counts["orders"] == round(SF * 1_500_000)
    per_order = Counter(row["l_orderkey"] for row in tables["lineitem"])
    assert set(per_order.values()) == set(range(1, 8)), "1..7 lines per order, every count present"
    assert len(per_order) == counts["orders"], "every order has lines"
    assert 3.8 < counts["lineitem"] / counts["orders"] < 4.2, "4 lines per order on average"


def test_keys_are_the_specs(tables: dict[str, list[dict[str, str]]]) -> None:
    for name, key in (("supplier", "s_suppkey"), ("part", "p_partkey"), ("customer", "c_custkey")):
        assert [int(r[key]) for r in tables[name]] == list(range(1, len(tables[name]) + 1)), name
    keys = [int(r["o_orderkey"]) for r in tables["orders"]]
    assert keys == [((i + 1) // 8) * 32 + (i + 1) % 8 for i in range(len(keys))], "dbgen's sparse keys: 8 of every 32"
    lines = tables["lineitem"]
    assert [int(r["l_orderkey"]) for r in lines] == sorted(int(r["l_orderkey"]) for r in lines), "in order"
    numbers: dict[str, list[int]] = defaultdict(list)
    for r in lines:
        numbers[r["l_orderkey"]].append(int(r["l_linenumber"]))
    assert all(n == list(range(1, len(n) + 1)) for n in numbers.values()), "line numbers 1..count"


def test_every_foreign_key_resolves(tables: dict[str, list[dict[str, str]]]) -> None:
    regions = {r["r_regionkey"] for r in tables["region"]}
    nations = {r["n_nationkey"] for r in tables["nation"]}
    assert {r["n_regionkey"] for r in tables["nation"]} == regions
    assert {r["s_nationkey"] for r in tables["supplier"]} <= nations
    assert {r["c_nationkey"] for r in tables["customer"]} <= nations
    suppliers = {r["s_suppkey"] for r in tables["supplier"]}
    parts = {r["p_partkey"] for r in tables["part"]}
    pairs = [(r["ps_partkey"], r["ps_suppkey"]) for r in tables["partsupp"]]
    assert len(set(pairs)) == len(pairs), "a part's four suppliers are distinct"
    assert {p for p, _ in pairs} == parts and {s for _, s in pairs} <= suppliers
    assert Counter(p for p, _ in pairs) == Counter({p: 4 for p in parts})
    customers = {r["c_custkey"] for r in tables["customer"]}
    ordering = {r["o_custkey"] for r in tables["orders"]}
    assert ordering <= customers
    assert all(int(c) % 3 != 0 for c in ordering), "a third of the customers place no order"
    orders = {r["o_orderkey"] for r in tables["orders"]}
    assert {r["l_orderkey"] for r in tables["lineitem"]} == orders
    assert {(r["l_partkey"], r["l_suppkey"]) for r in tables["lineitem"]} <= set(pairs), "a line's part has its supplier"


def test_values_stay_in_the_specs_ranges(tables: dict[str, list[dict[str, str]]]) -> None:
    for (name, column), (lo, hi) in LENGTHS.items():
        lengths = [len(r[column]) for r in tables[name]]
        assert lo <= min(lengths) and max(lengths) <= hi, (name, column, min(lengths), max(lengths))
    phone = re.compile(r"^(\d\d)-\d{3}-\d{3}-\d{4}$")
    for name, prefix in (("supplier", "s"), ("customer", "c")):
        for r in tables[name]:
            m = phone.match(r[f"{prefix}_phone"])
            assert m and int(m.group(1)) == int(r[f"{prefix}_nationkey"]) + 10, r
            assert -999.99 <= float(r[f"{prefix}_acctbal"]) <= 9999.99
    assert {r["c_mktsegment"] for r in tables["customer"]} == {
        "AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY", "HOUSEHOLD"
    }
    for r in tables["part"]:
        assert len(set(r["p_name"].split())) == 5, r["p_name"]
        m = int(r["p_mfgr"].removeprefix("Manufacturer#"))
        assert 1 <= m <= 5 and r["p_brand"][:-1] == f"Brand#{m}" and 1 <= int(r["p_brand"][-1]) <= 5
        assert 1 <= int(r["p_size"]) <= 50 and len(r["p_type"].split()) == 3 and len(r["p_container"].split()) == 2
        key = int(r["p_partkey"])
        assert round(float(r["p_retailprice"]) * 100) == 90000 + (key // 10) % 20001 + 100 * (key % 1000)
    for r in tables["partsupp"]:
        assert 1 <= int(r["ps_availqty"]) <= 9999 and 1.0 <= float(r["ps_supplycost"]) <= 1000.0
    priorities = {"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"}
    for r in tables["orders"]:
        assert date(1992, 1, 1) <= date.fromisoformat(r["o_orderdate"]) <= date(1998, 8, 2)
        assert r["o_orderpriority"] in priorities and r["o_shippriority"] == "0"
        assert re.fullmatch(r"Clerk#\d{9}", r["o_clerk"]) and 1 <= int(r["o_clerk"][6:]) <= max(1, round(SF * 1000))
    for r in tables["lineitem"]:
        ship, commit, receipt = (date.fromisoformat(r[f"l_{d}date"]) for d in ("ship", "commit", "receipt"))
        assert 1 <= (receipt - ship).days <= 30
        assert 1 <= int(float(r["l_quantity"])) <= 50
        assert 0 <= float(r["l_discount"]) <= 0.10 and 0 <= float(r["l_tax"]) <= 0.08
        assert r["l_linestatus"] == ("O" if ship > CURRENT else "F")
        assert r["l_returnflag"] in (("R", "A") if receipt <= CURRENT else ("N",))
        assert r["l_shipinstruct"] in ("DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN")
        assert r["l_shipmode"] in ("REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB")


def grammar_words() -> set[str]:
    """Every word of the bundled TPC-H grammar's word lists."""
    path = ROOT / "python" / "polydat" / "data" / "tpch_grammar.csv"
    rows = [line.split(",") for line in path.read_text().splitlines()[4:]]
    return {word for r in rows if r[0] not in ("grammar", "np", "vp", "terminators") for word in r[1].split()}


def test_comments_are_stretches_of_the_specs_text_grammar(tables: dict[str, list[dict[str, str]]]) -> None:
    # Each comment's length is uniform over its column's range (mean in the
    # middle), its words are the grammar's (but for the first and last, cut
    # by the stretch), short comments repeat as dbgen's do (its 6M lines hold
    # 4.58M distinct comments, its 200k parts 131.8k), and Q13's
    # '%special%requests%' matches about 1.1% of the orders.
    vocabulary = grammar_words() | {"the"}
    for (name, column), (lo, hi) in LENGTHS.items():
        if not column.endswith("_comment"):
            continue
        values = [r[column] for r in tables[name]]
        mean = sum(map(len, values)) / len(values)
        if len(values) > 1000:
            assert abs(mean - (lo + hi) / 2) < (hi - lo) * 0.02, (column, mean)
        for v in values[:2000]:
            words = re.findall(r"[a-zA-Z]+(?:-[a-zA-Z]+)?", v)[1:-1]
            assert set(words) <= vocabulary, (column, v)
    distinct = {c: len({r[c] for r in tables[t]}) / len(tables[t]) for t, c in (("lineitem", "l_comment"), ("part", "p_comment"))}
    assert distinct["l_comment"] > 0.85 and distinct["p_comment"] > 0.8, distinct
    orders = tables["orders"]
    special = sum(bool(re.search("special.*requests", r["o_comment"])) for r in orders) / len(orders)
    assert 0.007 < special < 0.015, special


def test_an_order_agrees_with_its_lines(tables: dict[str, list[dict[str, str]]]) -> None:
    prices = {r["p_partkey"]: float(r["p_retailprice"]) for r in tables["part"]}
    lines: dict[str, list[dict[str, str]]] = defaultdict(list)
    for r in tables["lineitem"]:
        assert abs(float(r["l_extendedprice"]) - float(r["l_quantity"]) * prices[r["l_partkey"]]) < 0.005
        lines[r["l_orderkey"]].append(r)
    statuses = Counter()
    for order in tables["orders"]:
        mine = lines[order["o_orderkey"]]
        day = date.fromisoformat(order["o_orderdate"])
        for r in mine:
            assert 1 <= (date.fromisoformat(r["l_shipdate"]) - day).days <= 121
            assert 30 <= (date.fromisoformat(r["l_commitdate"]) - day).days <= 90
        charge = sum(
            float(r["l_extendedprice"]) * (1 - float(r["l_discount"])) * (1 + float(r["l_tax"])) for r in mine
        )
        assert abs(float(order["o_totalprice"]) - charge) < 0.01 * len(mine), order
        kinds = {r["l_linestatus"] for r in mine}
        assert order["o_orderstatus"] == (kinds.pop() if len(kinds) == 1 else "P"), order
        statuses[order["o_orderstatus"]] += 1
    assert set(statuses) == {"F", "O", "P"}


def test_the_column_types_are_the_specs() -> None:
    import pyarrow as pa

    w = Workload.load(TPCH).with_params(sf=0.0005)
    kinds = {"key": pa.types.is_int64, "int32": pa.types.is_int32, "money": lambda t: t == pa.decimal128(15, 2),
             "text": pa.types.is_string, "date": pa.types.is_date32}
    spec = {
        "lineitem": {"l_orderkey": "key", "l_linenumber": "int32", "l_extendedprice": "money", "l_shipdate": "date",
                     "l_comment": "text"},
        "orders": {"o_orderkey": "key", "o_totalprice": "money", "o_orderdate": "date", "o_orderstatus": "text"},
        "partsupp": {"ps_partkey": "key", "ps_supplycost": "money"},
        "customer": {"c_acctbal": "money", "c_phone": "text"},
    }
    for name, columns in spec.items():
        schema = w.table(name).schema
        for column, kind in columns.items():
            assert kinds[kind](schema.field(column).type), (name, column, schema.field(column).type)


# The spec's signed and narrow integer columns and its dates (clause 1.3.1):
# every key is an int64, these counts int32.
SPEC_TYPES = {
    "region": {"r_regionkey": "int64"},
    "nation": {"n_nationkey": "int64", "n_regionkey": "int64"},
    "supplier": {"s_suppkey": "int64", "s_nationkey": "int64"},
    "part": {"p_partkey": "int64", "p_size": "int32"},
    "partsupp": {"ps_partkey": "int64", "ps_suppkey": "int64", "ps_availqty": "int32"},
    "customer": {"c_custkey": "int64", "c_nationkey": "int64"},
    "orders": {"o_orderkey": "int64", "o_custkey": "int64", "o_orderdate": "date32[day]", "o_shippriority": "int32"},
    "lineitem": {"l_orderkey": "int64", "l_partkey": "int64", "l_suppkey": "int64", "l_linenumber": "int32",
                 "l_shipdate": "date32[day]", "l_commitdate": "date32[day]", "l_receiptdate": "date32[day]"},
}


def test_keys_counts_and_dates_are_written_as_the_specs_types_in_every_format(tmp_path: Path) -> None:
    """Arrow and Parquet carry the declared types, Parquet with every column
    required (no TPC-H column holds NULL); CSV and JSON Lines write the
    same values as plain integers and ISO dates (issue 43 item 2)."""
    import json

    import pyarrow.ipc as ipc
    import pyarrow.parquet as pq

    for fmt in ("parquet", "arrow", "csv", "jsonl"):
        r = cli("run", str(TPCH), "-o", str(tmp_path / fmt), "-p", "sf=0.0005", "--format", fmt)
        assert r.returncode == 0, r.stderr
    for table, columns in SPEC_TYPES.items():
        parquet = pq.read_schema(tmp_path / "parquet" / f"{table}.parquet")
        with ipc.open_stream((tmp_path / "arrow" / f"{table}.arrow").read_bytes()) as reader:
            arrow = reader.schema
        assert not [f.name for f in parquet if f.nullable], (table, "every column is required")
        for column, expected in columns.items():
            assert str(parquet.field(column).type) == expected, (table, column, parquet.field(column).type)
            assert str(arrow.field(column).type) == expected, (table, column, arrow.field(column).type)
        csv_row = read(tmp_path / "csv" / f"{table}.csv")[0]
        json_row = json.loads((tmp_path / "jsonl" / f"{table}.jsonl").read_text().splitlines()[0])
        for column, expected in columns.items():
            if expected == "date32[day]":
                assert date.fromisoformat(csv_row[column]) == date.fromisoformat(json_row[column])
            else:
                assert int(csv_row[column]) == json_row[column] and isinstance(json_row[column], int)


def test_parts_concatenate_to_the_whole_of_every_table(whole: Path, tmp_path: Path) -> None:
    # The whole on one thread, the parts on two: the same bytes, each part
    # with the header (so readers take the parts as one table).
    r = cli("run", str(TPCH), "-o", str(tmp_path), "-p", f"sf={SF}", "--parts", "3", "--threads", "2")
    assert r.returncode == 0, r.stderr
    for name in COLUMNS:
        parts = [(tmp_path / f"{name}-{i:05d}-of-00003.csv").read_bytes() for i in range(3)]
        header = ",".join(COLUMNS[name]).encode() + b"\n"
        assert all(p.startswith(header) for p in parts), name
        joined = header + b"".join(p[len(header):] for p in parts)
        assert joined == (whole / f"{name}.csv").read_bytes(), name
        assert all(len(p) > len(header) for p in parts[1:]) or name == "region", "every part holds rows"
    r = cli("run", str(TPCH), "-o", str(tmp_path / "one"), "-p", f"sf={SF}", "--parts", "3", "--part", "1")
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in (tmp_path / "one").iterdir()) == sorted(f"{n}-00001-of-00003.csv" for n in COLUMNS)
    for name in COLUMNS:
        assert (tmp_path / "one" / f"{name}-00001-of-00003.csv").read_bytes() == (
            tmp_path / f"{name}-00001-of-00003.csv"
        ).read_bytes()


@pytest.mark.parametrize("fmt", ["parquet", "arrow"])
def test_every_part_of_a_table_has_its_schema_even_an_empty_one(tmp_path: Path, fmt: str) -> None:
    # At this scale supplier has one row, region five: most of eight parts
    # are empty, and each must still carry the table's declared types (and,
    # in Parquet, its required fields), so the parts read and concatenate
    # as one table.
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    r = cli("run", str(TPCH), "-o", str(tmp_path / "parts"), "-p", "sf=0.0001", "--parts", "8", "--format", fmt)
    assert r.returncode == 0, r.stderr
    r = cli("run", str(TPCH), "-o", str(tmp_path / "whole"), "-p", "sf=0.0001", "--format", fmt)
    assert r.returncode == 0, r.stderr

    def read(path: Path) -> object:
        if fmt == "parquet":
            return pq.read_table(path)
        with pa.ipc.open_stream(path) as reader:
            return reader.read_all()

    for name in ("region", "supplier", "lineitem"):
        parts = [read(tmp_path / "parts" / f"{name}-{i:05d}-of-00008.{fmt}") for i in range(8)]
        whole = read(tmp_path / "whole" / f"{name}.{fmt}")
        assert any(p.num_rows == 0 for p in parts) or name == "lineitem"
        assert all(p.schema.equals(whole.schema) for p in parts), name
        assert not any(pa.types.is_null(f.type) for f in whole.schema), name
        assert pa.concat_tables(parts).equals(whole), name
