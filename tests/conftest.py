"""Test profiles for the whole suite.

The default profile is what CI runs (a debug build on two cores). Tests
marked ``long`` — the long random-program and fuzz profiles, the soak tests,
the wheel install test — run only with ``POLYDAT_LONG=1`` (or ``-m long``).
"""

from __future__ import annotations

import os

import pytest

LONG = os.environ.get("POLYDAT_LONG", "") not in ("", "0")
"""The long profile was asked for."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if LONG or "long" in (config.getoption("-m", default="") or ""):
        return
    skip = pytest.mark.skip(reason="long profile: set POLYDAT_LONG=1 or run with -m long")
    for item in items:
        if "long" in item.keywords:
            item.add_marker(skip)
