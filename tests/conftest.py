"""Test profiles for the whole suite.

The default profile is what CI runs (a debug build on two cores). Tests
marked ``long`` — the long random-program and fuzz profiles, the soak tests,
the wheel install test — run only with ``POLYDAT_LONG=1`` (or ``-m long``).
The ``spawn`` fixture starts child processes that die with the test.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Callable, Iterator
from typing import Any

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


@pytest.fixture()
def spawn() -> Iterator[Callable[..., subprocess.Popen[Any]]]:
    """Starts child processes (the arguments of ``subprocess.Popen``) that
    are killed and reaped when the test ends, however it ends: a failed
    assertion or a timeout never leaves a long run (``--cycles 0..1G``)
    writing behind it."""
    children: list[subprocess.Popen[Any]] = []

    def start(*args: Any, **kwargs: Any) -> subprocess.Popen[Any]:
        child = subprocess.Popen(*args, **kwargs)
        children.append(child)
        return child

    yield start
    for child in children:
        if child.poll() is None:
            child.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.communicate(timeout=60)  # reaps it and closes its pipes
