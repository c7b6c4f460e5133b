"""Mutation fuzzing: only success or CompileError from compile, never a raise
from check, nothing slow, and the core answers malformed IR with an error.

The quick profile (CI) runs a few hundred mutants of each kind; the long
profile (``POLYDAT_LONG=1``) runs ``POLYDAT_FUZZ_INPUTS`` of them (100,000
by default) and prints the outcome counts. ``POLYDAT_FUZZ_SEED`` picks the
seed (the quick profile is fixed, so CI is reproducible).
"""

from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from fuzzing import FuzzReport, fuzz_ir, fuzz_sources, mutate, seed_programs  # noqa: E402

QUICK = 300
LONG_INPUTS = int(os.environ.get("POLYDAT_FUZZ_INPUTS", "100000"))
SEED = int(os.environ.get("POLYDAT_FUZZ_SEED", "20261201"))


def _assert_clean(report: FuzzReport) -> None:
    print(report.summary())
    assert not report.findings, "\n\n".join(f.report() for f in report.findings[:5])


def test_the_seed_corpus_compiles() -> None:
    seeds = seed_programs()
    assert len(seeds) >= 10, "examples, scenarios and the documentation's snippets should give seeds"


def test_mutation_is_deterministic_per_seed() -> None:
    import random

    source = seed_programs()[0]
    assert mutate(source, random.Random(1)) == mutate(source, random.Random(1))


def test_quick_fuzz_of_the_frontend() -> None:
    report = FuzzReport()
    fuzz_sources(QUICK, SEED, report)
    _assert_clean(report)
    assert sum(report.counts["compile"].values()) == QUICK


def test_quick_fuzz_of_the_ir_boundary() -> None:
    report = FuzzReport()
    fuzz_ir(QUICK, SEED, report)
    _assert_clean(report)


@pytest.mark.long
def test_long_fuzz_of_the_frontend_and_ir() -> None:
    report = FuzzReport()
    fuzz_sources(LONG_INPUTS, SEED, report)
    fuzz_ir(max(LONG_INPUTS // 10, 1000), SEED + 1, report)
    _assert_clean(report)
