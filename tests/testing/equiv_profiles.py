"""Hypothesis profiles of the equivalence suites (imported by the tests).

``FAST`` (CI: a debug build on two cores) is the default; ``SLOW`` is the
long profile of tests marked ``long`` (run them with ``POLYDAT_LONG=1`` or
``pytest -m long``).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

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
