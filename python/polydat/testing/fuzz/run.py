"""Many seeds through the oracle: counts, coverage and the failing seeds.

Usage::

    from polydat.testing.fuzz.run import fuzz

    summary = fuzz(range(0, 500), engines=2)
    summary.failures        # the Checked results that disagreed
    print(summary.report())
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from .oracle import Checked, check

__all__ = ["FuzzSummary", "fuzz"]


@dataclass
class FuzzSummary:
    """What a run of many seeds found."""

    programs: int = 0
    compiled: int = 0
    generate_runs: int = 0
    seconds: float = 0.0
    covered: set[str] = field(default_factory=set)
    """Catalog nodes in the compiled programs."""
    types: set[str] = field(default_factory=set)
    """Port types the programs' terms carried."""
    setups: Counter[str] = field(default_factory=Counter)
    """How many programs each setup ran."""
    refused: Counter[str] = field(default_factory=Counter)
    failures: list[Checked] = field(default_factory=list)

    def report(self, limit: int = 3) -> str:
        lines = [
            f"{self.programs} programs ({self.compiled} compiled on P1), {self.generate_runs} generate runs, "
            f"{self.seconds:.1f}s; {len(self.covered)} catalog nodes, {len(self.types)} port types; "
            f"{len(self.failures)} seed(s) disagreed",
        ]
        if self.refused:
            lines.append(f"refused: {dict(self.refused)}")
        lines += [f.report() for f in self.failures[:limit]]
        if len(self.failures) > limit:
            lines.append("other failing seeds: " + ", ".join(str(f.program.seed) for f in self.failures[limit:]))
        return "\n\n".join(lines)


def fuzz(seeds: Iterable[int], *, engines: int | None = None, size: int | None = None) -> FuzzSummary:
    """Checks every seed (see :func:`~.oracle.check` for ``engines`` and ``size``)."""
    summary = FuzzSummary()
    start = time.monotonic()
    for seed in seeds:
        result = check(seed, engines=engines, size=size)
        summary.programs += 1
        summary.compiled += result.compiled
        summary.generate_runs += result.generate_runs
        summary.covered |= result.covered
        summary.types |= result.program.types
        summary.setups.update(result.ran)
        summary.refused.update(result.refused)
        if result.disagreements:
            summary.failures.append(result)
    summary.seconds = time.monotonic() - start
    return summary
