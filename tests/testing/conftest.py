"""Profiles for the equivalence suites.

The fast profile runs by default (CI: a debug build on two cores). The long
profile (tests marked ``long``) runs with ``POLYDAT_LONG=1`` or ``-m long``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

HERE = Path(__file__).parent

LONG = os.environ.get("POLYDAT_LONG", "") not in ("", "0")

FAST = settings(
    max_examples=50,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
"""CI profile: 50 examples, reproducible (derandomized), no example database."""

SLOW = settings(
    max_examples=int(os.environ.get("POLYDAT_LONG_EXAMPLES", "2000")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
"""Long profile: 2000 examples (POLYDAT_LONG_EXAMPLES overrides), random seeds."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    selected = LONG or "long" in (config.getoption("-m", default="") or "")
    if selected:
        return
    skip = pytest.mark.skip(reason="long profile: set POLYDAT_LONG=1 or run with -m long")
    for item in items:
        if "long" in item.keywords and HERE in Path(str(item.fspath)).parents:
            item.add_marker(skip)
