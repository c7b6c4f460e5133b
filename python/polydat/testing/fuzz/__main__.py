"""``python -m polydat.testing.fuzz --seed N``: one seed again, every setup,
with its program, script and disagreements printed; ``--seeds A:B`` runs a range."""

from __future__ import annotations

import argparse
import sys

from .oracle import check
from .run import fuzz


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m polydat.testing.fuzz", description=__doc__)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--seed", type=int, help="check one seed on every setup and print it")
    group.add_argument("--seeds", help="check a range of seeds, START:STOP")
    parser.add_argument("--engines", type=int, default=None, help="setups per seed besides P1 (default: all)")
    parser.add_argument("--size", type=int, default=None, help="statements per program (default: 5 to 40)")
    args = parser.parse_args(argv)
    if args.seed is not None:
        result = check(args.seed, size=args.size, engines=args.engines)
        print(result.report())
        return 1 if result.disagreements else 0
    start, _, stop = args.seeds.partition(":")
    summary = fuzz(range(int(start), int(stop)), engines=args.engines, size=args.size)
    print(summary.report())
    return 1 if summary.failures else 0


if __name__ == "__main__":
    sys.exit(main())
