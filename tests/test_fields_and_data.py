"""The bundled field modules and data files can be found and trusted:
``polydat fields`` lists every field with its signature, an example and its
data's source and licence (``polydat nodes email`` used to say "no node"),
``polydat data`` lists the data files the core embeds (shipped beside a
provenance README), the unique email and username never repeat (the plain
``email`` repeated 456 of 1M keys), countries are ISO 3166-1 (not CLDR's 256
regions) with a population-weighted pick, and the users/orders example
writes typed columns."""

from __future__ import annotations

import collections
import csv
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import polydat
from polydat.fields import DATA_DIR, data_files, field, fields

ROOT = Path(__file__).resolve().parent.parent


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "polydat", *args], capture_output=True, text=True, timeout=300,
                          cwd=cwd)


def test_polydat_fields_lists_each_field_with_an_example_and_its_data() -> None:
    r = cli("fields")
    assert r.returncode == 0, r.stderr
    for name in ["email", "unique_email", "unique_username", "full_name", "country", "country_by_population",
                 "phone_number", "credit_card", "city_state_zip"]:
        assert f"\n{name}(key: u64) -> (" in "\n" + r.stdout, name
    email = field("email")
    assert email is not None and email.signature == "email(key: u64) -> (address: str)"
    assert email.example.endswith(".org'") or "@" in email.example
    assert email.data == ("first_names.csv", "last_names.csv")
    assert "data: first_names.csv (public domain (US Government work))" in email.render({
        f["name"]: f["licence"] for f in data_files()})
    assert field("country_by_population").data == ("countries.csv",)
    assert field("credit_card").data == ()
    assert "data: none (computed from the key)" in r.stdout
    helper = field("luhn_double")
    assert helper is not None and not helper.is_keyed, "a helper module is listed, as no field of a key alone"
    assert {f.name for f in fields()} >= {"first_name", "last_name", "username", "email", "street_address",
                                          "full_address", "company", "job_title", "ipv4", "url", "sentence"}


def test_polydat_nodes_points_at_a_field_module() -> None:
    r = cli("nodes", "email")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("'email' is a bundled field module, not a node (`polydat fields` lists them):\n")
    assert "email(key: u64) -> (address: str)" in r.stdout
    r = cli("fields", "emial")
    assert r.returncode == 2 and "did you mean 'email'?" in r.stderr
    r = cli("fields", "country")
    assert r.returncode == 0 and "countries.csv (codes: facts" in r.stdout and "places.polydat" in r.stdout


def test_polydat_data_lists_what_the_core_embeds_with_sources_and_licences() -> None:
    r = cli("data")
    assert r.returncode == 0, r.stderr
    files = data_files()
    assert len(files) == 33  # 14, and 9 locales' word lists and 10 locales' places
    shipped = sorted(p for p in os.listdir(DATA_DIR) if p.endswith(".csv"))
    assert [f["name"] for f in files] == shipped, "the package ships what the core embeds"
    readme = Path(DATA_DIR, "README.md").read_text(encoding="utf-8")
    for f in files:
        assert f"{f['name']}  ({f['entries']} entries" in r.stdout
        assert f"    licence: {f['licence']}" in r.stdout and f"    source: {f['source']}" in r.stdout
        assert f"`{f['name']}`" in readme
        with open(os.path.join(DATA_DIR, f["name"]), encoding="utf-8") as handle:
            rows = [line for line in handle if not line.startswith("#") and line.strip()]
        assert len(rows) - 1 == f["entries"], f["name"]
    countries = cli("data", "countries")
    assert countries.returncode == 0 and countries.stdout.splitlines()[3] == "code,name,population"
    assert cli("data", "nope").returncode == 2


def test_no_name_holds_a_digit() -> None:
    """The unique username is "first.last" then the key: unique only while no name ends in a digit."""
    for name in ("first_names.csv", "last_names.csv"):
        with open(os.path.join(DATA_DIR, name), encoding="utf-8") as handle:
            names = [row[0] for row in csv.reader(line for line in handle if not line.startswith("#"))][1:]
        assert names and not [n for n in names if any(c.isdigit() for c in n)], name


def test_unique_email_and_username_never_repeat() -> None:
    rows = 200_000
    prog = polydat.compile("input key\nmail := email(key)\nunique := unique_email(key)\nuser := unique_username(key)")
    cols = prog.generate(range(rows), threads=2)
    repeats = {name: rows - len(set(values.tolist())) for name, values in cols.items()}
    assert repeats["mail"] > 0, "the plain email repeats (456 of 1M keys)"
    assert repeats["unique"] == 0 and repeats["user"] == 0
    assert cols["user"][42] == f"{field('first_name').example[1:-1].lower()}.{field('last_name').example[1:-1].lower()}42"
    assert cols["unique"][42].startswith(cols["user"][42] + "@")
    far = polydat.compile("input key\nu := unique_email(key)").generate(range(2**64 - 3, 2**64 - 1))["u"]
    assert far[0] != far[1] and far[0].split("@")[0].endswith(str(2**64 - 3))


def test_countries_are_iso_3166_1_and_may_be_weighted_by_population() -> None:
    with open(os.path.join(DATA_DIR, "countries.csv"), encoding="utf-8") as handle:
        table = list(csv.DictReader(line for line in handle if not line.startswith("#")))
    names = {row["name"] for row in table}
    assert len(table) == 249 and len({row["code"] for row in table}) == 249
    assert "Ascension Island" not in names and "Bouvet Island" in names
    prog = polydat.compile("input key\nuniform := country(key)\nweighted := country_by_population(key)")
    cols = prog.generate(range(50_000))
    uniform = collections.Counter(cols["uniform"].tolist())
    weighted = collections.Counter(cols["weighted"].tolist())
    assert set(uniform) == names, "every one of the 249, uniformly"
    assert max(uniform.values()) < 300
    assert set(weighted) <= names and "Bouvet Island" not in weighted and "Antarctica" not in weighted
    share = (weighted["India"] + weighted["China"]) / 50_000
    assert 0.33 < share < 0.39, share
    assert weighted["United States"] > weighted["France"] > weighted["Iceland"]


def test_the_users_orders_example_writes_typed_columns(tmp_path: Path) -> None:
    example = ROOT / "examples" / "users_orders"
    r = cli("run", str(example / "users.polydat"), "--cycles", "200", "-o", str(tmp_path / "u.parquet"),
            "--format", "parquet")
    assert r.returncode == 0, r.stderr
    users = pq.read_table(tmp_path / "u.parquet")
    assert users.schema.field("signup_date").type == pa.date32()
    assert users.schema.field("balance").type == pa.float64()
    assert all(round(b, 2) == b for b in users.column("balance").to_pylist())
    r = cli("run", str(example / "orders.polydat"), "--cycles", "200", "-o", str(tmp_path / "o.parquet"),
            "--format", "parquet")
    assert r.returncode == 0, r.stderr
    orders = pq.read_table(tmp_path / "o.parquet")
    assert orders.schema.field("placed_at").type == pa.timestamp("ms", tz="UTC")
    assert orders.schema.field("total").type == pa.float64()
    r = cli("run", str(example / "orders.polydat"), "--cycles", "2", "--outputs", "placed_at,total")
    assert r.returncode == 0, r.stderr
    first = r.stdout.splitlines()[1].split(",")
    assert first[1].endswith("Z") and first[1] == orders.column("placed_at")[0].as_py().strftime(
        "%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
