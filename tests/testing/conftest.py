"""Profiles for the equivalence suites.

The fast profile runs by default (CI: a debug build on two cores). The long
profile (tests marked ``long``) runs with ``POLYDAT_LONG=1`` or ``-m long``;
the profiles themselves are in ``equiv_profiles.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from equiv_profiles import LONG

HERE = Path(__file__).parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    selected = LONG or "long" in (config.getoption("-m", default="") or "")
    if selected:
        return
    skip = pytest.mark.skip(reason="long profile: set POLYDAT_LONG=1 or run with -m long")
    for item in items:
        if "long" in item.keywords and HERE in Path(str(item.fspath)).parents:
            item.add_marker(skip)
