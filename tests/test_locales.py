"""Locales: every locale's fields on every engine, their shapes (postcode,
phone) by a regex per locale, the coherence of a city, its region and its
postcode (one row of the locale's places), the name order, the way a
program picks a locale (``pragma locale``, ``de_DE.full_name(key)``), and
its errors."""

from __future__ import annotations

import collections
import csv
import os
import re

import pytest

import polydat
from polydat.dsl.modules import LOCALES_DIR, locale_names
from polydat.errors import CompileError
from polydat.fields import DATA_DIR, field

LOCALES = ["en_GB", "en_IN", "de_DE", "fr_FR", "es_ES", "it_IT", "pt_BR", "ja_JP", "zh_CN"]

FIELDS = """
input key: u64
first := first_name(key)
last := last_name(key)
name := full_name(key)
user := username(key)
mail := email(key)
unique := unique_email(key)
phone := phone_number(key)
street := street_address(key)
(city, state, zip) := city_state_zip(key)
addr := full_address(key)
employer := company(key)
job := job_title(key)
"""

POSTCODE = {
    "en_US": r"\d{5}",
    "en_GB": r"[A-Z]{1,2}\d{1,2} \d[A-Z]{2}",
    "en_IN": r"[1-9]\d{5}",
    "de_DE": r"\d{5}",
    "fr_FR": r"\d{5}",
    "es_ES": r"\d{5}",
    "it_IT": r"\d{5}",
    "pt_BR": r"\d{5}-\d{3}",
    "ja_JP": r"\d{3}-\d{4}",
    "zh_CN": r"[1-9]\d{5}",
}

# The national formats, and how many digits a number has in each.
PHONE = {
    "en_GB": (r"(\+44(\(0\))?|\(?0)[\d() ]+", {10, 11, 12, 13}),
    "en_IN": (r"(\+91|0)?\d{10}", {10, 11, 12}),
    "de_DE": (r"(\+49 ?\(0\) ?|\(?0)[\d() ]+", set(range(10, 14))),
    "fr_FR": (r"(\+33 (\(0\))?|0)\d( ?\d{2}){4}", {10, 11, 12}),
    "es_ES": (r"\+34 ?[6-9][\d ]+", {11}),
    "it_IT": (r"(\+39 )?[03]\d{8,10}", set(range(9, 14))),
    "pt_BR": (r"(\+55 )?\d{2} \d{4}-\d{4}|0[3589]00 \d{3} \d{4}", {10, 11, 12}),
    "ja_JP": (r"0\d{1,2}-\d{4}-\d{4}", {10, 11}),
    "zh_CN": (r"1[3-9]\d{9}", {11}),
}

N = 3000


def generate(locale: str, engine: str = "mixed", rows: int = N) -> dict[str, list]:
    source = f'pragma locale "{locale}"\n{FIELDS}'
    cols = polydat.compile(source, engine=engine).generate(rows)
    return {k: list(v) for k, v in cols.items()}


def places(locale: str) -> dict[tuple[str, str], list[str]]:
    """The (city, region) pairs of a locale's places, each with its postcode patterns."""
    with open(os.path.join(DATA_DIR, f"places_{locale}.csv"), encoding="utf-8") as handle:
        lines = [line for line in handle if not line.startswith("#")]
    table: dict[tuple[str, str], list[str]] = collections.defaultdict(list)
    for row in csv.DictReader(lines):
        table[(row["city"], row["region"])].append(row["postcode"])
    return table


def pattern_regex(pattern: str) -> str:
    return "".join({"#": r"\d", "?": "[A-Z]"}.get(c, re.escape(c)) for c in pattern)


def test_every_bundled_locale_has_a_file_and_the_list_is_the_brief():
    assert locale_names() == sorted(["en_US", *LOCALES])
    for locale in LOCALES:
        polydat.dsl.check(open(os.path.join(LOCALES_DIR, f"{locale}.polydat"), encoding="utf-8").read())


@pytest.mark.parametrize("locale", LOCALES)
def test_every_engine_gives_a_locales_fields_alike(locale: str) -> None:
    want = generate(locale, "p1", 300)
    for engine in ("p2", "p3", "mixed"):
        assert generate(locale, engine, 300) == want, engine


@pytest.mark.parametrize("locale", ["en_US", *LOCALES])
def test_a_city_its_region_and_postcode_come_from_one_row(locale: str) -> None:
    rows = generate(locale)
    table = places(locale)
    for city, region, postcode in zip(rows["city"], rows["state"], rows["zip"]):
        patterns = table.get((city, region))
        assert patterns, f"{locale}: {city}, {region} is no row of places_{locale}.csv"
        assert any(re.fullmatch(pattern_regex(p), postcode) for p in patterns), (locale, city, postcode, patterns)
        assert re.fullmatch(POSTCODE[locale], postcode), (locale, postcode)
    assert len(set(rows["city"])) > 100, "many cities"


@pytest.mark.parametrize("locale", LOCALES)
def test_phone_numbers_have_the_national_format(locale: str) -> None:
    regex, digits = PHONE[locale]
    for phone in generate(locale)["phone"]:
        assert re.fullmatch(regex, phone), (locale, phone)
        assert len(re.sub(r"\D", "", phone)) in digits, (locale, phone)


@pytest.mark.parametrize("locale", LOCALES)
def test_names_addresses_and_emails_are_the_locales(locale: str) -> None:
    rows = generate(locale)
    order = {"ja_JP": "{last} {first}", "zh_CN": "{last}{first}"}.get(locale, "{first} {last}")
    for i in range(N):
        first, last, name = rows["first"][i], rows["last"][i], rows["name"][i]
        assert name.startswith(order.format(first=first, last=last)), (locale, name)
        assert rows["city"][i] in rows["addr"][i] and rows["zip"][i] in rows["addr"][i]
        assert rows["street"][i] in rows["addr"][i]
        local, _, domain = rows["mail"][i].partition("@")
        assert not re.search(r"[\s']", local), rows["mail"][i]
        assert domain.endswith("example.com") or domain in ("example.net", "example.org"), rows["mail"][i]
        assert not re.search(r"\d", first + last), (locale, first, last)
    assert len(set(rows["unique"])) == N, "unique_email stays unique"
    assert len(set(rows["name"])) > N // 2 and len(set(rows["employer"])) > 100
    if locale in ("ja_JP", "zh_CN"):  # user names from the romanized names
        assert all(re.fullmatch(r"[a-z]+\.[a-z]+\d+", u) for u in rows["user"])


IBAN_COUNTRY = {"de_DE": ("DE", 22), "en_GB": ("GB", 22), "fr_FR": ("FR", 27), "es_ES": ("ES", 24),
                "it_IT": ("IT", 27), "pt_BR": ("BR", 29)}


def iban_remainder(number: str) -> int:
    """The IBAN read as ISO 13616 checks it (country and check digits moved
    to the end, letters as two digits), modulo 97: 1 when valid."""
    return int("".join(str(int(c, 36)) for c in number[4:] + number[:4])) % 97


@pytest.mark.parametrize("locale", LOCALES)
def test_an_iban_is_of_the_locales_country_where_it_has_ibans(locale: str) -> None:
    rows = polydat.compile(f'pragma locale "{locale}"\ninput key: u64\nnumber := iban(key)').generate(500)
    numbers = list(rows["number"])
    assert all(iban_remainder(n) == 1 for n in numbers), numbers[:3]
    if locale in IBAN_COUNTRY:
        country, length = IBAN_COUNTRY[locale]
        assert all(n.startswith(country) and len(n) == length for n in numbers), numbers[:3]
    else:  # India, Japan and China have no IBANs: the en_US field's SEPA countries
        assert len({n[:2] for n in numbers}) > 20


def test_names_follow_the_lists_weights():
    # zh_CN's surnames carry Faker's weights: 王, 李 and 张 lead.
    rows = generate("zh_CN", rows=20_000)
    counts = collections.Counter(rows["last"])
    assert {name for name, _ in counts.most_common(3)} == {"王", "李", "张"}, counts.most_common(5)
    assert counts["王"] > 20_000 * 0.05


def test_es_es_names_have_two_surnames_and_it_it_addresses_a_province():
    rows = generate("es_ES", rows=200)
    assert all(len(n.split()) >= 3 for n in rows["name"])
    rows = generate("it_IT", rows=200)
    assert all(re.search(r"\d{5} .+ \([A-Z]{2}\)$", a) for a in rows["addr"]), rows["addr"][:3]


def test_one_program_mixes_locales_through_namespaces():
    source = """
    input key: u64
    us := full_name(key)
    de := de_DE.full_name(key)
    jp := ja_JP.full_address(key)
    de_mail := de_DE.email(key)
    us_again := en_US.full_name(key)
    """
    rows = polydat.compile(source).generate(50)
    default = polydat.compile("input key: u64\nus := full_name(key)").generate(50)
    assert list(rows["us"]) == list(default["us"]) == list(rows["us_again"])
    german = generate("de_DE", rows=50)
    assert list(rows["de"]) == german["name"] and list(rows["de_mail"]) == german["mail"]
    assert all(a.startswith("〒") for a in rows["jp"])


def test_a_users_module_wins_over_the_locales():
    source = """
    pragma locale "de_DE"
    input key: u64
    first_name(key: u64) -> (name: str) := { name := "Ada" }
    name := first_name(key)
    surname := last_name(key)
    """
    rows = polydat.compile(source).generate(5)
    assert list(rows["name"]) == ["Ada"] * 5
    assert list(rows["surname"]) == generate("de_DE", rows=5)["last"]


def test_unknown_locales_and_fields_are_clear_errors():
    with pytest.raises(CompileError, match=r"(?s)unknown locale 'de_de'.*did you mean 'de_DE'"):
        polydat.compile('pragma locale "de_de"\ninput key: u64\nn := full_name(key)')
    with pytest.raises(CompileError, match=r"pragma locale needs a locale"):
        polydat.compile("pragma locale\ninput key: u64\nn := full_name(key)")
    with pytest.raises(CompileError, match=r"(?s)unknown locale 'fr_CA' in 'fr_CA.full_name'.*fr_FR"):
        polydat.compile("input key: u64\nn := fr_CA.full_name(key)")
    with pytest.raises(CompileError, match=r"locale de_DE has no field 'nope'"):
        polydat.compile("input key: u64\nn := de_DE.nope(key)")
    with pytest.raises(CompileError, match=r"(?s)no word list 'jobs'.*did you mean 'job'"):
        polydat.compile('input key: u64\nn := locale_words(key, "de_DE", "jobs")')


def test_the_locale_applies_inside_a_for_body():
    source = """
    pragma locale "ja_JP"
    input key: u64
    top := full_name(key)
    for i in 0..2 {
        inner := full_name(i)
    }
    """
    body = polydat.compile(source).traversal_program(0, {"i": "u64"})
    locales = {n["args"][1]["const"]["str"] for n in body._bound.ir["nodes"] if n["op"] == "locale_words"}
    assert locales == {"ja_JP"}


def test_polydat_fields_shows_each_fields_locales():
    assert field("full_name").locales == ("en_US", *sorted(LOCALES))
    assert field("credit_card").locales == ("en_US",)
    assert "it_IT" not in field("job_title").locales
    assert field("iban").locales == ("en_US", *sorted(IBAN_COUNTRY))
    assert "    locales: en_US, de_DE," in field("email").render({})


def test_a_modules_own_pragma_locale_applies_to_its_body():
    source = """
    input key: u64
    french(key: u64) -> (name: str) := {
        pragma locale "fr_FR"
        name := full_name(key)
    }
    fr := french(key)
    us := full_name(key)
    """
    rows = polydat.compile(source).generate(20)
    assert list(rows["fr"]) == generate("fr_FR", rows=20)["name"]
    assert list(rows["us"]) == list(polydat.compile("input key: u64\nus := full_name(key)").generate(20)["us"])
