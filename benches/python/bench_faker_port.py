"""Rows per second of a typical Faker script ported to polydat, beside Faker
running the script itself, one thread, measured in one run, for en_US and one
other locale (de_DE by default). A bench, not a test (pytest does not collect it).

The script's thirteen fields: name, address, phone, company, job, email,
date of birth, credit card, IBAN, public IPv4, user agent, UUID and a
paragraph. Each is one call on either side; the polydat program is
`SOURCE`, with `pragma locale` naming the locale.

Run against a release build, in a venv with the bench extra:

    pip install '.[bench]' && python benches/python/bench_faker_port.py

Faker is seeded once and runs single-threaded (it has no parallel mode).
polydat is measured as Arrow columns (`format="arrow"`, no object per cell)
and as numpy columns (a Python object per cell, as Faker gives), one thread.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import polydat  # noqa: E402

FIELDS = """
input key: u64
name := full_name(key)
address := full_address(key)
phone := phone_number(key)
employer := company(key)
job := job_title(key)
email_address := email(key)
born := date_of_birth(key)
card := credit_card(key)
account := iban(key)
ip := ipv4_public(key)
agent := user_agent(key)
id := uuid(key)
bio := paragraph(key)
"""
"""The ported script: one polydat field per Faker call."""


def source(locale: str) -> str:
    """The ported script in `locale` (en_US needs no pragma: it is the default)."""
    return FIELDS if locale == "en_US" else f'pragma locale "{locale}"\n{FIELDS}'


def faker_rows(locale: str, n: int) -> list[tuple]:
    """`n` rows of the script run by Faker itself (seeded once)."""
    from faker import Faker

    fake = Faker(locale)
    Faker.seed(1234)
    rows = []
    for _ in range(n):
        rows.append((
            fake.name(),
            fake.address().replace("\n", ", "),
            fake.phone_number(),
            fake.company(),
            fake.job(),
            fake.email(),
            fake.date_of_birth(minimum_age=18, maximum_age=80),
            fake.credit_card_number(),
            fake.iban(),
            fake.ipv4_public(),
            fake.user_agent(),
            fake.uuid4(),
            fake.paragraph(),
        ))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=500_000, help="polydat rows per run (default 500k)")
    ap.add_argument("--faker-rows", type=int, default=5_000, help="Faker rows per run (default 5k)")
    ap.add_argument("--locales", nargs="+", default=["en_US", "de_DE"], help="locales (default en_US de_DE)")
    ap.add_argument("--repeats", type=int, default=3, help="rounds; every runner runs once a round (best kept)")
    ap.add_argument("--engine", default="auto", help="polydat engine (default auto, the mixed engine)")
    args = ap.parse_args()

    try:
        faker_rows("en_US", 1)
        have_faker = True
    except ImportError as err:
        print(f"Faker: not installed ({err}); pip install '.[bench]'")
        have_faker = False
    try:
        import pyarrow  # noqa: F401

        formats = ["arrow", "numpy"]
    except ImportError:
        print("pyarrow not installed: the format='arrow' rows are left out")
        formats = ["numpy"]

    runners: list[tuple[str, str, int, Callable[[], object]]] = []
    programs = {}
    for locale in args.locales:
        prog = polydat.compile(source(locale), engine=args.engine)
        prog.generate(range(1000))  # first use parses the bundled lists
        programs[locale] = prog
        for fmt in formats:
            what = "format='arrow'" if fmt == "arrow" else "object arrays"
            run = lambda p=prog, f=fmt: p.generate(range(args.rows), threads=1, format=f)  # noqa: E731
            runners.append((locale, f"polydat generate, {what}, 1 thread ({prog.engine})", args.rows, run))
        if have_faker:
            run = lambda loc=locale: faker_rows(loc, args.faker_rows)  # noqa: E731
            runners.append((locale, "Faker (seeded once, 1 thread)", args.faker_rows, run))

    # Interleaved rounds (A B C ... A B C ...): a slow spell of a shared
    # machine touches every runner, not one.
    best = [float("inf")] * len(runners)
    for _ in range(args.repeats):
        for i, (_, _, _, run) in enumerate(runners):
            t = time.perf_counter()
            run()
            best[i] = min(best[i], time.perf_counter() - t)

    print(f"Faker-port record, {FIELDS.count(':=')} fields; best of {args.repeats}, one thread")
    print("| locale | runner | rows/s | vs Faker |")
    print("|---|---|---:|---:|")
    for locale in args.locales:
        rates = {label: rows / best[i] for i, (loc, label, rows, _) in enumerate(runners) if loc == locale}
        faker = next((r for k, r in rates.items() if k.startswith("Faker")), None)
        for label, rate in rates.items():
            vs = f"{rate / faker:,.0f}x" if faker else "-"
            print(f"| {locale} | {label} | {rate:,.0f} | {vs} |")
    for locale, prog in programs.items():
        row = prog.generate(range(1))
        print(f"sample row ({locale}):", {k: (v[0].item() if hasattr(v[0], "item") else v[0]) for k, v in row.items()})


if __name__ == "__main__":
    main()
