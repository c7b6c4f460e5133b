"""Rows per second of a realistic users record: polydat's `generate` (1 and 2
threads) beside Faker and Mimesis producing the same eight fields, measured in
one run. A bench, not a test (pytest does not collect it).

Fields: id, full name, email, phone, address, company, signup date, balance
(from a log-normal distribution).

Run against a release build, in a venv with the bench extra:

    pip install '.[bench]' && python benches/python/bench_users.py

Faker and Mimesis are seeded once and run single-threaded (they have no
parallel mode); polydat's rows are a pure function of the row number, so they
need no seed and split across threads by arithmetic. polydat is measured
three ways: numpy format (a Python string object per cell, as Faker makes),
format="arrow" (Arrow string columns, no object per cell), and a whole table
streamed as Arrow batches by iter_batches (as a Parquet or CSV writer takes
it; --stream-rows 0 leaves it out).
"""

from __future__ import annotations

import argparse
import datetime as dt
from collections.abc import Callable
import os
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import polydat  # noqa: E402

SOURCE = """
input user_id: u64
id := user_id
name := full_name(user_id)
email_address := email(user_id)
phone := phone_number(user_id)
address := full_address(user_id)
employer := company(user_id)
signup_date := to_date(mod(hash(user_id ^ 0x6a09e667f3bcc908), 157680000000) + 1577836800000)
balance := format_f64(dist_lognormal(unit_interval(hash(user_id ^ 0xbb67ae8584caa73b)), 6.0, 1.2), 2)
"""

START = dt.date(2020, 1, 1)
END = dt.date(2024, 12, 31)


def faker_rows(n: int) -> list[tuple]:
    from faker import Faker

    fake = Faker("en_US")
    Faker.seed(1234)
    rng = fake.random
    rows = []
    for i in range(n):
        rows.append((
            i,
            fake.name(),
            fake.email(),
            fake.phone_number(),
            fake.address().replace("\n", ", "),
            fake.company(),
            fake.date_between(START, END).isoformat(),
            f"{rng.lognormvariate(6.0, 1.2):.2f}",
        ))
    return rows


def mimesis_rows(n: int) -> list[tuple]:
    from mimesis import Address, Datetime, Finance, Locale, Person
    from mimesis.random import Random

    person, address = Person(Locale.EN, seed=1234), Address(Locale.EN, seed=1234)
    finance, when = Finance(Locale.EN, seed=1234), Datetime(Locale.EN, seed=1234)
    rng = Random(1234)
    rows = []
    for i in range(n):
        rows.append((
            i,
            person.full_name(),
            person.email(),
            person.telephone(),
            f"{address.address()}, {address.city()}, {address.state(abbr=True)} {address.zip_code()}",
            finance.company(),
            when.date(start=2020, end=2024).isoformat(),
            f"{rng.lognormvariate(6.0, 1.2):.2f}",
        ))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=1_000_000, help="polydat rows per run (default 1M)")
    ap.add_argument("--library-rows", type=int, default=20_000, help="Faker/Mimesis rows per run (default 20k)")
    ap.add_argument(
        "--stream-rows", type=int, default=8_000_000,
        help="rows of the streamed table, in batches of --batch-rows (default 8M; 0 leaves it out)")
    ap.add_argument("--batch-rows", type=int, default=1 << 20, help="rows per streamed batch (default 2^20)")
    ap.add_argument("--repeats", type=int, default=3, help="rounds; every runner runs once a round (best kept)")
    ap.add_argument("--engine", default="p2", help="polydat engine (default p2; auto is the mixed engine)")
    args = ap.parse_args()

    prog = polydat.compile(SOURCE, engine=args.engine)
    prog.generate(range(1000))  # first use parses the bundled lists
    runners: list[tuple[str, int, Callable[[], object]]] = []
    formats = ["numpy"]
    try:
        import pyarrow  # noqa: F401

        formats.append("arrow")
    except ImportError:
        print("pyarrow not installed: the format='arrow' rows are left out")
    for fmt in formats:
        for threads in (1, 2):
            run = lambda t=threads, f=fmt: prog.generate(range(args.rows), threads=t, format=f)  # noqa: E731
            what = "object arrays" if fmt == "numpy" else "format='arrow'"
            label = f"polydat generate, {what}, {threads} thread{'s' if threads > 1 else ''} ({prog.engine})"
            runners.append((label, args.rows, run))
    if args.stream_rows and "arrow" in formats:
        # A whole table streamed as Arrow batches (what a writer to Parquet
        # or CSV consumes): memory stays bounded, and each batch is made
        # while the one before is handed over.
        for threads in (1, 2):
            def stream(t: int = threads) -> int:
                return sum(b.num_rows for b in prog.iter_batches(
                    range(args.stream_rows), batch_rows=args.batch_rows, threads=t))
            label = (f"polydat iter_batches, {args.stream_rows:,} rows in batches of {args.batch_rows:,}, "
                     f"{threads} thread{'s' if threads > 1 else ''} ({prog.engine})")
            runners.append((label, args.stream_rows, stream))
    for label, fn in (("Faker (seeded once, 1 thread)", faker_rows), ("Mimesis (seeded once, 1 thread)", mimesis_rows)):
        try:
            fn(10)
        except ImportError as err:
            print(f"{label}: not installed ({err}); pip install '.[bench]'")
            continue
        runners.append((label, args.library_rows, lambda f=fn: f(args.library_rows)))
    # Interleaved rounds (A B C ... A B C ...): a slow spell of a shared
    # machine touches every runner, not one.
    best = {label: float("inf") for label, _, _ in runners}
    for _ in range(args.repeats):
        for label, _, run in runners:
            t = time.perf_counter()
            run()
            best[label] = min(best[label], time.perf_counter() - t)
    results = [(label, rows / best[label]) for label, rows, _ in runners]

    rates = dict(results)
    faker = next((r for k, r in rates.items() if k.startswith("Faker")), None)
    mimesis = next((r for k, r in rates.items() if k.startswith("Mimesis")), None)
    print(f"users record, 8 fields; best of {args.repeats}")
    print("| runner | rows/s | vs Faker | vs Mimesis |")
    print("|---|---:|---:|---:|")
    for label, rate in results:
        vf = f"{rate / faker:,.0f}x" if faker else "-"
        vm = f"{rate / mimesis:,.0f}x" if mimesis else "-"
        print(f"| {label} | {rate:,.0f} | {vf} | {vm} |")
    sample = prog.generate(range(2))
    print("sample row:", {k: (v[0].item() if hasattr(v[0], "item") else v[0]) for k, v in sample.items()})


if __name__ == "__main__":
    main()
