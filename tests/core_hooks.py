"""The functions of ``polydat._core`` only the tests call (``probe_count``,
``probe_reset``, ``_raise_panic``, ``_encode_column``).

They are built with the extension's ``test-hooks`` feature, which the test
builds turn on (``.ci/run``, the README's test command) and ``pip install .``
leaves off. A test that calls one on a build without them fails, saying how
to rebuild; it is never skipped.
"""

from __future__ import annotations

from typing import Any

import pytest

from polydat import _core

REBUILD = 'MATURIN_PEP517_ARGS="--profile dev --features test-hooks" pip install -e .'
"""The command that builds the extension with its test hooks."""


class _Hooks:
    """``polydat._core``'s test hooks, by attribute: ``hooks.probe_count(key)``."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # what pytest's collection asks of any object
            raise AttributeError(name)
        try:
            return getattr(_core, name)
        except AttributeError:
            pytest.fail(
                f"polydat._core has no {name}: it was built without the test-hooks feature; rebuild it with {REBUILD}",
                pytrace=False,
            )


hooks = _Hooks()
