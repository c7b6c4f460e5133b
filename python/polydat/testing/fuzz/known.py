"""Known defects the catalog fuzzer steers around, each citing its issue item.

The fuzzer (:mod:`polydat.testing.fuzz`) holds every engine to P1 on
programs written from the node catalog. A few constructs are known to make
engines disagree (or to fail everywhere in ways still being fixed); until
the fix for one lands, the generator does not write that construct, or the
oracle compares it more loosely, and says so here. Each entry names the
issue item it waits for; when the fix lands, drop its name from
:data:`SKIPPED` (or set ``POLYDAT_FUZZ_ENABLE=item5,item8`` to try it first)
and the construct is drawn and compared in full again.

Usage::

    from polydat.testing.fuzz.known import skipped

    if skipped("some_key"):  # none is listed today
        ...  # compare failures more loosely
"""

from __future__ import annotations

import os
from dataclasses import dataclass

__all__ = ["KnownDefect", "KNOWN_DEFECTS", "SKIPPED", "skipped"]


@dataclass(frozen=True)
class KnownDefect:
    """One construct the fuzzer avoids: its key, the issue item, and what is avoided."""

    key: str
    item: str
    avoided: str


KNOWN_DEFECTS: tuple[KnownDefect, ...] = ()
"""Every known defect the fuzzer steers around, by key."""

_ENABLED = {
    word.strip() for word in os.environ.get("POLYDAT_FUZZ_ENABLE", "").split(",") if word.strip()
}

SKIPPED: frozenset[str] = frozenset(
    d.key for d in KNOWN_DEFECTS
    if d.key not in _ENABLED and d.item.rsplit(" ", 1)[-1] not in {e.removeprefix("item") for e in _ENABLED}
)
"""Keys of the defects still avoided (``POLYDAT_FUZZ_ENABLE`` lists keys or
``itemN`` to draw a construct again)."""


def skipped(key: str) -> bool:
    """Whether the construct ``key`` (a :data:`KNOWN_DEFECTS` key) is still avoided."""
    if key not in {d.key for d in KNOWN_DEFECTS}:
        raise KeyError(f"no known defect {key!r}")
    return key in SKIPPED
