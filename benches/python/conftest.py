"""Quick mode: ``pytest benches/python --benchmark-disable`` runs every
benchmark's code once, on small sizes, as a test (CI runs it so a bench that
no longer works fails there). A size set in the environment still wins.
Timed runs (``--benchmark-only``) keep the full default sizes."""

from __future__ import annotations

import os

import pytest

QUICK_SIZES = {
    "POLYDAT_BENCH_ROWS": "4096",
    "POLYDAT_BENCH_LIBRARY_ROWS": "50",
    "POLYDAT_BENCH_SF": "0.002",
}
"""The environment defaults of quick mode (rows per call, Faker/Mimesis
rows, the TPC-H scale factor of the orders table)."""


def pytest_configure(config: pytest.Config) -> None:
    """Before the bench modules are imported (they read their sizes at import)."""
    if config.getoption("benchmark_disable", default=False):
        for name, value in QUICK_SIZES.items():
            os.environ.setdefault(name, value)
