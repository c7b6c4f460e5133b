"""A program fuzzer written from the node catalog, independent of
:func:`polydat.testing.programs`.

Each seed gives one random well-typed program over every node of the
catalog and every port type (:mod:`.programs`), a kernel script and a
``generate`` request; :func:`check` runs them on every engine the core
reports, fused and unfused, and reports every step where a setup disagrees
with P1 (:mod:`.oracle`). Constructs of defects still being fixed are
avoided, each by a named entry of :mod:`.known`.

Usage::

    from polydat.testing.fuzz import check, fuzz

    check(17).disagreements                 # one seed, every setup
    summary = fuzz(range(1000), engines=2)  # many seeds, two setups each besides P1
    print(summary.report())

    # one seed again, every setup, from a shell:
    #   python -m polydat.testing.fuzz --seed 17
"""

from __future__ import annotations

from .known import KNOWN_DEFECTS, KnownDefect, skipped
from .oracle import Checked, Disagreement, Setup, check, setups
from .programs import PORT_TYPES, FuzzProgram, program
from .run import FuzzSummary, fuzz

__all__ = [
    "KNOWN_DEFECTS",
    "KnownDefect",
    "skipped",
    "Checked",
    "Disagreement",
    "Setup",
    "check",
    "setups",
    "PORT_TYPES",
    "FuzzProgram",
    "program",
    "FuzzSummary",
    "fuzz",
]
