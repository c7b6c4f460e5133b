"""The two forms of a one-to-many phase, timed against each other: the
orders of ``examples/shop/shop.yaml`` as the example writes them (nested:
a level per user, then ``order_no in 0..{order_count}``, one row per inner
tuple) and as one level with ``cycles: "{order_count}"`` (flat). Both give
the same rows and the same Parquet schema; the nested form runs as the flat
one in the core, so the ratio should stay near 1. Each round writes the
orders table as Parquet once per form, the forms interleaved (A B A B ...);
the best round of each is reported. A bench, not a test (pytest does not
collect it).

Run against a release build:  pip install . && python benches/python/one_to_many.py
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from polydat.workload import Workload

SHOP = Path(__file__).resolve().parents[2] / "examples" / "shop" / "shop.yaml"

FLAT = """
params:
  users: 200
  mean_orders: 2.0
bindings: |
  const currency := "EUR"
phases:
  orders:
    for_each:
      - each: "user in 0..{users}"
        bindings: |
          order_count := orders_of(user, mean_orders)
    cycles: "{order_count}"
    bindings: |
      order_id := row_offset + cycle
      user_id := user
      placed_at := (signup_ms(user) + mod(hash(order_id ^ 0xa54ff53a5f1d36f1), 63072000000)) as timestamp
      status := one_of_weighted(order_id, "delivered:80,shipped:12,processing:5,cancelled:3")
      line_count := lines_of(order_id)
    emit: [order_id, user_id, placed_at, status, line_count, currency]
"""
"""The orders phase of shop.yaml in the flat form (its modules beside it)."""


def write_orders(workload: Workload, path: Path, threads: int) -> tuple[float, int]:
    """Seconds to write the orders table as Parquet to ``path``, and its rows."""
    started = time.perf_counter()
    with open(path, "wb") as out:
        rows = workload.write("orders", out, "parquet", threads)
    return time.perf_counter() - started, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--users", type=int, default=150_000, help="parents (about 2 orders each; default 150,000)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of A B (default 3)")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        here = Path(scratch)
        shutil.copy(SHOP.with_name("shop.polydat"), here / "shop.polydat")
        (here / "flat.yaml").write_text(FLAT)
        forms = {
            "nested": Workload.load(SHOP).with_params(users=args.users),
            "flat": Workload.load(here / "flat.yaml").with_params(users=args.users),
        }
        best = {name: float("inf") for name in forms}
        rows = {}
        for _ in range(args.rounds):
            for name, workload in forms.items():
                seconds, rows[name] = write_orders(workload, here / f"{name}.parquet", args.threads)
                best[name] = min(best[name], seconds)
    assert rows["nested"] == rows["flat"], rows
    for name in forms:
        print(f"{name:>6}: {rows[name]:,} orders in {best[name]:.3f} s (best of {args.rounds})")
    print(f"nested / flat: {best['nested'] / best['flat']:.2f}x")


if __name__ == "__main__":
    main()
