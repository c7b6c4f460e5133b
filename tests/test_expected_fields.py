"""The fields a Faker user reaches for (issue 45 item 2): ``iban``,
``user_agent``, ``date_of_birth``, ``uuid``, ``ipv4_public``; nulls at a
rate (``maybe``) agreeing on every engine and in every output format;
``bounded_normal_int`` truncated rather than clamped (it put 5.2% of the rows
on its lower bound); ``polydat fields`` listing every bundled module and
both ``nodes`` and ``fields`` searching by keyword; "did you mean" over nodes
and modules together; ``generate(format="pandas" | "polars")`` keeping dates
as dates."""

from __future__ import annotations

import collections
import csv
import datetime
import ipaddress
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

import polydat
from polydat.errors import CompileError
from polydat.fields import DATA_DIR, field

ENGINES = ["p1", "p2", "p3", "mixed"]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "polydat", *args], capture_output=True, text=True, timeout=300)


def column(src: str, name: str, rows: int, engine: str = "mixed") -> list:
    return polydat.compile(src, engine=engine).generate(range(rows))[name].tolist()


# IBAN lengths of the IBAN registry, per country.
IBAN_LENGTHS = {
    "AD": 24, "AT": 20, "BE": 16, "BG": 22, "CH": 21, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "EE": 20,
    "ES": 24, "FI": 18, "FR": 27, "GB": 22, "GI": 23, "GR": 27, "HR": 21, "HU": 28, "IE": 22, "IS": 26,
    "IT": 27, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "MC": 27, "MT": 31, "NL": 18, "NO": 15, "PL": 28,
    "PT": 25, "RO": 24, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "VA": 22,
}


def iban_is_valid(iban: str) -> bool:
    """ISO 13616: the country code and check digits moved to the end, letters as 10..35, the number is 1 mod 97."""
    moved = iban[4:] + iban[:4]
    return int("".join(str(int(c, 36)) for c in moved)) % 97 == 1


@pytest.mark.parametrize("engine", ENGINES)
def test_iban_has_valid_check_digits_and_its_countrys_length(engine: str) -> None:
    ibans = column("input key\nx := iban(key)", "x", 5000, engine)
    countries = collections.Counter(i[:2] for i in ibans)
    assert set(countries) == set(IBAN_LENGTHS), "every SEPA country and GB come up"
    for iban in ibans:
        assert len(iban) == IBAN_LENGTHS[iban[:2]] and iban_is_valid(iban), iban
        assert re.fullmatch(r"[A-Z]{2}[0-9]{2}[A-Z0-9]+", iban), iban
    german = column('input key\nx := iban_for(hash(key), "DE")', "x", 100, engine)
    assert all(re.fullmatch(r"DE[0-9]{20}", i) and iban_is_valid(i) for i in german)


def test_iban_for_an_unknown_country_fails_naming_the_known_ones() -> None:
    with pytest.raises(polydat.errors.PolydatError, match=r'no IBAN format for country "US" \(known: AD, AT'):
        polydat.compile('input key\nx := iban_for(key, "US")').generate(range(1))


def test_ipv4_public_gives_only_globally_reachable_addresses() -> None:
    addresses = [ipaddress.IPv4Address(a) for a in column("input key\nx := ipv4_public(key)", "x", 200_000)]
    bad = [a for a in addresses if not a.is_global or a.is_multicast or a.is_reserved]
    assert not bad, bad[:5]
    assert len(set(addresses)) > 199_000
    # The plain ipv4 field does give them (it says so), as it did.
    plain = [ipaddress.IPv4Address(a) for a in column("input key\nx := ipv4(key)", "x", 20_000)]
    assert any(a.is_private for a in plain)


def test_uuid_is_a_version_4_uuid_per_key() -> None:
    ids = column("input key\nx := uuid(key)", "x", 50_000)
    assert all(re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", i) for i in ids)
    assert len(set(ids)) == len(ids)
    assert column("input key\nx := uuid(key)", "x", 3, "p1") == ids[:3], "a function of the key"


def test_user_agents_follow_the_bundled_traffic_shares() -> None:
    with open(os.path.join(DATA_DIR, "user_agents.csv"), encoding="utf-8") as handle:
        table = list(csv.DictReader(line for line in handle if not line.startswith("#")))
    by_agent = {row["user_agent"]: row for row in table}
    agents = column("input key\nx := user_agent(key)", "x", 100_000)
    assert set(agents) <= set(by_agent)
    systems = collections.Counter(by_agent[a]["os"] for a in agents)
    total = sum(float(row["percent"]) for row in table)
    for system in ["iOS", "Windows", "Android"]:
        want = sum(float(r["percent"]) for r in table if r["os"] == system) / total
        assert abs(systems[system] / len(agents) - want) < 0.01, (system, systems[system], want)
    assert field("user_agent") is not None and field("user_agent").data == ("user_agents.csv",)  # type: ignore[union-attr]


def age_on(born: datetime.date, day: datetime.date) -> int:
    return day.year - born.year - ((day.month, day.day) < (born.month, born.day))


@pytest.mark.parametrize("engine", ENGINES)
def test_date_of_birth_is_a_date_in_its_age_range(engine: str) -> None:
    program = polydat.compile(
        'input key\nborn := date_of_birth(key)\nchild := date_of_birth_on(key, "1960-02-29", 5, 6)', engine=engine
    )
    cols = program.generate(range(20_000))
    assert cols["born"].dtype == np.dtype("datetime64[D]")
    born = cols["born"].astype(object).tolist()
    ages = [age_on(b, datetime.date(2025, 1, 1)) for b in born]
    assert min(ages) == 18 and max(ages) == 80
    assert min(born) < datetime.date(1970, 1, 1), "dates before 1970 come up"
    children = cols["child"].astype(object).tolist()
    assert {age_on(c, datetime.date(1960, 2, 29)) for c in children} == {5, 6}
    assert min(children) == datetime.date(1953, 3, 1) and max(children) == datetime.date(1955, 2, 28)


def test_bounded_normal_int_does_not_pile_rows_on_its_bounds() -> None:
    ages = column("input key\nage := bounded_normal_int(key, 35.0, 12.0, 18.0, 90.0)", "age", 200_000)
    counts = collections.Counter(ages)
    assert min(ages) == 18 and max(ages) <= 90
    # The truncated normal's own shares: 0.68% round to 18, 1.48% to 19 (a clamp put 5.2% + on 18).
    assert abs(counts[18] / len(ages) - 0.0068) < 0.001, counts[18]
    assert abs(counts[19] / len(ages) - 0.0148) < 0.0015, counts[19]
    assert counts[18] < counts[19] < counts[20]


MAYBE_SRC = """input key
score := maybe(key * 3, 0.25, key)
name := maybe(full_name(key), 0.25, key)
born := maybe(date_of_birth(key), 0.25, key)
ratio := maybe(unit_interval(hash(key)), 0.25, key)
"""


def test_maybe_makes_rows_absent_at_its_rate_the_same_on_every_engine() -> None:
    rows = 20_000
    masks = {}
    for engine in ENGINES:
        cols = polydat.compile(MAYBE_SRC, engine=engine).generate(range(rows))
        absent = [np.asarray([v is None for v in cols["name"].tolist()])]
        absent += [np.ma.getmaskarray(cols[n]) for n in ("score", "born", "ratio")]
        assert all((a == absent[0]).all() for a in absent), f"{engine}: one key, one absence, in every column"
        masks[engine] = absent[0]
    assert all((m == masks["p1"]).all() for m in masks.values()), "every engine drops the same rows"
    share = masks["p1"].mean()
    assert 0.24 < share < 0.26, share
    coin = polydat.compile("input key\nc := unfair_coin(key, 0.25)").generate(range(rows))["c"]
    assert (masks["p1"] == (coin == 1)).all(), "absent exactly where unfair_coin(key, p) fires"
    downstream = "input key\nm := maybe(key, 0.25, key)\nnext := m + 1\nfilled := default_or(m, 99)"
    for engine in ENGINES:
        cols = polydat.compile(downstream, engine=engine).generate(range(rows))
        assert (np.ma.getmaskarray(cols["next"]) == masks["p1"]).all(), f"{engine}: what reads an absent row is absent"
        assert (np.asarray(cols["filled"])[masks["p1"]] == 99).all()
    with pytest.raises(CompileError, match=r"maybe: p must be in \[0, 1\], got 1.5"):
        polydat.compile("input key\nx := maybe(key, 1.5, key)")


@pytest.mark.parametrize("engine", ENGINES)
def test_maybe_is_null_in_every_output_format(engine: str, tmp_path: Path) -> None:
    source = tmp_path / "maybe.polydat"
    source.write_text(MAYBE_SRC)
    program = polydat.compile(MAYBE_SRC, engine=engine)
    rows = 400
    cols = program.generate(range(rows))
    absent = [v is None for v in cols["name"].tolist()]
    table = program.generate(range(rows), format="arrow")
    for name in table.column_names:
        assert [v is None for v in table.column(name).to_pylist()] == absent, name
    frame = program.generate(range(rows), format="pandas")
    assert frame.isna().all(axis=1).tolist() == absent and frame.notna().any(axis=1).tolist() == [not a for a in absent]
    polars_frame = program.generate(range(rows), format="polars")
    assert polars_frame["born"].is_null().to_list() == absent
    text = {}
    for fmt in ("csv", "jsonl", "parquet"):
        path = tmp_path / f"rows.{fmt}"
        run = cli("run", str(source), "--cycles", str(rows), "--engine", engine, "--format", fmt, "-o", str(path))
        assert run.returncode == 0, run.stderr
        text[fmt] = path
    lines = text["csv"].read_text().splitlines()
    assert lines[0] == "key,score,name,born,ratio"
    assert [line.split(",")[1:] == ["", "", "", ""] for line in lines[1:]] == absent
    records = [json.loads(line) for line in text["jsonl"].read_text().splitlines()]
    assert [all(r[n] is None for n in ("score", "name", "born", "ratio")) for r in records] == absent
    parquet = pq.read_table(text["parquet"])
    assert [v is None for v in parquet.column("born").to_pylist()] == absent
    assert str(parquet.schema.field("born").type) == "date32[day]"


def test_generate_makes_pandas_and_polars_frames_with_dates_kept_as_dates() -> None:
    import pandas as pd
    import polars as pl

    program = polydat.compile("input key\nborn := date_of_birth(key)\nid := key\nname := maybe(first_name(key), 0.5, key)")
    frame = program.generate(range(8), format="pandas")
    assert isinstance(frame, pd.DataFrame) and list(frame.columns) == ["born", "id", "name"]
    assert str(frame["born"].dtype) == "date32[day][pyarrow]" and str(frame["id"].dtype) == "uint64[pyarrow]"
    assert isinstance(frame["born"][0], datetime.date)
    assert frame["name"].isna().any() and frame["name"].notna().any()
    polars_frame = program.generate(range(8), format="polars")
    assert isinstance(polars_frame, pl.DataFrame)
    assert polars_frame.schema == {"born": pl.Date, "id": pl.UInt64, "name": pl.String}
    assert polars_frame["born"].to_list() == frame["born"].tolist()
    emitting = polydat.compile('input key\nx := key\n_ := emit_row("json", "x", x)')
    rows, emitted = emitting.generate(range(3), format="polars", emitted=True)
    assert rows["x"].to_list() == [0, 1, 2] and emitted["row"].len() == 3
    with pytest.raises(polydat.errors.ArgumentError, match="format must be one of 'numpy', 'arrow', 'pandas', 'polars'"):
        program.generate(range(2), format="frame")


def test_polydat_fields_lists_every_bundled_module_with_an_example() -> None:
    r = cli("fields")
    assert r.returncode == 0, r.stderr
    for listed in ["bounded_normal_int(input: u64, mean: f64, stddev: f64, min: f64, max: f64) -> (value: u64)",
                   "hashed_id(input: u64, bound: u64) -> (id: u64)", "sine_wave(input: u64, period: u64)",
                   "iban(key: u64) -> (number: str)", "date_of_birth(key: u64) -> (born: date)"]:
        assert "\n" + listed in "\n" + r.stdout, listed
    assert "e.g. hashed_id(42, 1000) = " in r.stdout
    assert "e.g. date_of_birth(42) = 1981-04-03" in r.stdout
    hashed = field("hashed_id")
    assert hashed is not None and not hashed.is_keyed and hashed.example_call == "hashed_id(42, 1000)"
    assert int(hashed.example) == column("input key\nx := hashed_id(key, 1000)", "x", 43)[42]


def test_nodes_and_fields_take_a_keyword() -> None:
    r = cli("nodes", "--search", "uuid")
    assert r.returncode == 0 and "hashed_uuid" in r.stdout and "Field modules mentioning it: uuid" in r.stdout
    assert "hash64" not in r.stdout
    r = cli("fields", "-s", "IBAN")
    assert r.returncode == 0 and r.stdout.startswith("iban(key: u64)") and "\n1 modules: 1 fields" in r.stdout
    r = cli("nodes", "--search", "zzzq")
    assert r.returncode == 2 and "no node mentions 'zzzq'" in r.stderr


def test_did_you_mean_searches_nodes_and_bundled_modules_together() -> None:
    def hint(src: str) -> str:
        with pytest.raises(CompileError) as caught:
            polydat.compile(src)
        return str(caught.value)

    assert "did you mean 'full_name'?" in hint("input key\nx := ful_name(key)"), "the module, not the node full_names"
    assert "did you mean 'dist_zipf'?" in hint("input key\nx := zipf(key)"), "a name that is a word of a longer one"
    from polydat.dsl.corerules import suggest

    assert suggest("iban", ["atan", "abs"]) is None, "two edits of a four-letter name is another word"
    assert suggest("uuid", ["hashed_uuid", "add"], callee=True) == "hashed_uuid"
    assert suggest("uuid", ["hashed_uuid", "add"]) is None, "a binding named like a word of a node means no node"
    r = cli("nodes", "ful_name")
    assert r.returncode == 2 and "did you mean 'full_name'?" in r.stderr
