"""The module library shipped with the package: field modules and upstream's stdlib modules.

Formats (emails parse, card numbers pass the Luhn check, phone numbers match
their pattern, ...), distinctness, independence of the fields of one key, the
census frequency profile of generated first names, and agreement of every
engine on the field modules.
"""

from __future__ import annotations

import collections
import ipaddress
import os
import re
from email.headerregistry import Address

import numpy as np
import pytest

import polydat
from polydat.dsl.modules import STDLIB_DIR

N = 20_000

FIELDS = """
input key: u64
first := first_name(key)
last := last_name(key)
name := full_name(key)
user := username(key)
mail := email(key)
phone := phone_number(key)
street := street_address(key)
(city, state, zip) := city_state_zip(key)
addr := full_address(key)
nation := country(key)
employer := company(key)
job := job_title(key)
card := credit_card(key)
ip := ipv4(key)
link := url(key)
line := sentence(key)
para := paragraph(key)
"""


@pytest.fixture(scope="module")
def rows() -> dict[str, list]:
    cols = polydat.compile(FIELDS, engine="p2").generate(range(N))
    return {k: list(v) for k, v in cols.items()}


def census_first_names() -> dict[str, float]:
    path = os.path.join(os.path.dirname(__file__), "..", "python", "polydat", "data", "first_names.csv")
    weights: dict[str, float] = collections.defaultdict(float)
    with open(path, encoding="utf-8") as handle:
        lines = [ln for ln in handle if not ln.startswith("#")][1:]
    for ln in lines:
        name, _sex, freq = ln.strip().split(",")
        weights[name] += float(freq)
    total = sum(weights.values())
    return {k: v / total for k, v in weights.items()}


def luhn_ok(number: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(number)):
        d = int(ch)
        if i % 2 == 1:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def test_the_library_ships_with_the_package():
    names = sorted(f for f in os.listdir(STDLIB_DIR) if f.endswith(".polydat"))
    assert {"people.polydat", "identity.polydat", "waves.polydat"} <= set(names)
    for f in names:
        polydat.dsl.check(open(os.path.join(STDLIB_DIR, f), encoding="utf-8").read())


def test_emails_parse_and_use_reserved_domains(rows):
    for mail, user in zip(rows["mail"], rows["user"]):
        addr = Address(addr_spec=mail)
        assert addr.username == user
        assert addr.domain in {"example.com", "example.net", "example.org", "mail.example.com"}
        assert re.fullmatch(r"[a-z]+\.[a-z]+[0-9]{1,3}", user), user


def test_usernames_are_the_names_of_the_key_in_lower_case(rows):
    for user, first, last in zip(rows["user"], rows["first"], rows["last"]):
        assert re.fullmatch(re.escape(f"{first.lower()}.{last.lower()}") + r"[0-9]{1,3}", user), (user, first, last)
    # The library's values are part of its contract: a rewrite for speed
    # keeps them (these are the values before the names were lowered one by one).
    assert rows["mail"][:3] == [
        "edgar.lis243@mail.example.com",
        "beverly.kelley989@example.net",
        "victoria.johnson154@mail.example.com",
    ]


def test_card_numbers_pass_the_luhn_check(rows):
    for card in rows["card"]:
        assert re.fullmatch(r"4[0-9]{15}", card), card
        assert luhn_ok(card), card
    # a test that can fail: a changed last digit breaks the check
    bad = rows["card"][0][:-1] + str((int(rows["card"][0][-1]) + 1) % 10)
    assert not luhn_ok(bad)


def test_phone_numbers_match_their_pattern(rows):
    for phone in rows["phone"]:
        assert re.fullmatch(r"\([2-9][0-9]{2}\) [2-9][0-9]{2}-[0-9]{4}", phone), phone


def test_addresses_ips_urls_and_text_have_their_shapes(rows):
    states = set(open(os.path.join(os.path.dirname(__file__), "..", "python", "polydat", "data", "us_states.csv"),
                      encoding="utf-8").read().split())
    for i in range(N):
        assert re.fullmatch(r"[1-9][0-9]{0,3} .+ .+", rows["street"][i]), rows["street"][i]
        assert re.fullmatch(r"[0-9]{5}", rows["zip"][i]) and 501 <= int(rows["zip"][i]) <= 99950
        # A state's code (or DC: Washington is one of the cities).
        assert rows["state"][i] == "DC" or any(line.startswith(rows["state"][i] + ",") for line in states)
        assert rows["addr"][i] == f'{rows["street"][i]}, {rows["city"][i]}, {rows["state"][i]} {rows["zip"][i]}'
        ip = ipaddress.IPv4Address(rows["ip"][i])
        assert 1 <= int(str(ip).split(".")[0]) <= 223
        assert re.fullmatch(r"https://www\.[a-z]+\.(com|net|org|io|dev)/[a-z]+/[a-z]+", rows["link"][i])
        line = rows["line"][i]
        assert re.fullmatch(r"[A-Z][a-z]*( [a-z]+){3,11}\.", line), line
        assert 3 <= rows["para"][i].count(".") <= 6
        assert rows["name"][i] == f'{rows["first"][i]} {rows["last"][i]}'


def test_fields_are_distinct(rows):
    for field, at_least in [("name", 0.70), ("mail", 0.97), ("phone", 0.999), ("card", 0.999),
                            ("ip", 0.999), ("street", 0.95), ("para", 0.999), ("addr", 0.999)]:
        share = len(set(rows[field])) / N
        assert share >= at_least, f"{field}: {share}"


def test_fields_of_one_key_are_independent(rows):
    # The first name does not tell the surname: P(first | surname letter) is P(first).
    first = np.array(rows["first"])
    lead = np.array([s[0] for s in rows["last"]])
    common = collections.Counter(first).most_common(1)[0][0]
    base = np.mean(first == common)
    for letter in "SBMW":
        sel = lead == letter
        assert sel.sum() > 500
        assert abs(np.mean(first[sel] == common) - base) < 0.02
    # the card digits and the phone line are unrelated
    c = np.array([int(x[1]) for x in rows["card"]])
    p = np.array([int(x[-1]) for x in rows["phone"]])
    assert abs(np.corrcoef(c, p)[0, 1]) < 0.05
    # the email's name parts are the person's own (the same key, the same person)
    assert all(m.startswith(f"{f.lower()}.{s.lower()}") for m, f, s in zip(rows["mail"], rows["first"], rows["last"]))


def test_a_million_first_names_follow_the_census_profile():
    want = census_first_names()
    cols = polydat.compile("input key: u64\nfirst := first_name(key)", engine="p2").generate(range(1_000_000))
    got = collections.Counter(cols["first"])
    n = 1_000_000
    # Every name expected at least 5000 times is within 2% of its share ...
    frequent = [name for name, p in want.items() if p * n >= 5000]
    assert len(frequent) >= 20
    for name in frequent:
        share = got[name] / n
        assert abs(share - want[name]) <= 0.02 * want[name], (name, share, want[name])
    # ... and so is the whole profile, summed over the 200 most frequent names.
    top = sorted(want, key=want.get, reverse=True)[:200]
    mass_want = sum(want[t] for t in top)
    mass_got = sum(got[t] for t in top) / n
    assert abs(mass_got - mass_want) <= 0.02 * mass_want


@pytest.mark.parametrize("engine", ["p1", "p2"])
def test_every_engine_agrees_on_the_fields(engine, rows):
    cols = polydat.compile(FIELDS, engine=engine).generate(range(0, N, 97))
    for field, values in cols.items():
        assert list(values) == rows[field][::97], field


def test_upstreams_stdlib_modules():
    src = """
input cycle: u64
id := hashed_id(cycle, 1000)
key := shuffled_id(cycle, 50)
perm := euler_circuit(cycle, 50, 42, 1)
w := sine_wave(cycle, 100)
saw := sawtooth(cycle, 10)
sq := square_wave(cycle, 100)
ts := monotonic_ts(cycle, 1710000000000, 1000)
pad := padded_id(cycle, 1000000, 8)
hex := hex_id(cycle, 65536)
age := bounded_normal_int(cycle, 35.0, 12.0, 18.0, 90.0)
lat := gaussian_latency(cycle, 5.0, 1.2)
(ms, err) := service_model(cycle, 1.0, 50.0, 0.1, 0.01)
"""
    cols = polydat.compile(src).generate(range(50))
    assert list(cols["id"]) == [polydat.compile("input c: u64\nx := mod(hash(c), 1000)").generate(range(50))["x"][i]
                                for i in range(50)]
    assert sorted(cols["key"]) == list(range(50)), "shuffled_id is a bijection"
    assert sorted(cols["perm"]) == list(range(50))
    assert cols["w"][0] == 0.0 and abs(cols["w"][25] - 1.0) < 1e-12
    assert list(cols["saw"][:2]) == [0.0, 1 / (2**64 - 1)]
    assert cols["ts"][3] == 1710000003000
    assert all(len(p) == 8 for p in cols["pad"]) and all(h.startswith("0x") for h in cols["hex"])
    assert all(18 <= a <= 90 for a in cols["age"])
    assert all(0.1 <= x <= 999999.0 for x in cols["lat"])
    assert set(cols["err"]) <= {0, 1}


def test_a_program_module_shadows_the_library():
    src = "first_name(key: u64) -> (name: str) := {\n  name := \"x\"\n}\ninput k: u64\nn := first_name(k)"
    assert list(polydat.compile(src).generate(range(2))["n"]) == ["x", "x"]
