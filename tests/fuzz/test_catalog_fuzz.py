"""Programs written from the whole node catalog agree on every engine setup
(``polydat.testing.fuzz``: kernel scripts, ``generate`` at 1, 2 and 7
threads with emitted rows, fused and unfused).

The default profile (CI) checks ``QUICK_PROGRAMS`` seeds, each on fused and
unfused P1 and ``QUICK_ENGINES`` other setups drawn from the seed. The long
profile (``POLYDAT_LONG=1``) checks ``POLYDAT_FUZZ_PROGRAMS`` seeds (5,000 by
default) on every setup, from ``POLYDAT_FUZZ_SEED`` (printed; random when
unset). A failing seed prints its program, script and disagreements; rerun
it with ``python -m polydat.testing.fuzz --seed N``.
"""

from __future__ import annotations

import os
import random

import pytest

import polydat
from polydat.testing.catalog import catalog_entries
from polydat.testing.fuzz import KNOWN_DEFECTS, PORT_TYPES, fuzz, program, skipped
from polydat.testing.fuzz.oracle import node_ops, setups
from polydat.testing.fuzz.run import FuzzSummary

QUICK_SEED = 44_000
QUICK_PROGRAMS = 1000
QUICK_ENGINES = 2
COVERAGE_SEEDS = 1400  # 23 port types (f16 included): every node is reached by seed 1104 (__u16_to_u8 last)


def _assert_clean(summary: FuzzSummary) -> None:
    print(summary.report())
    assert not summary.failures, summary.report()


def test_every_catalog_node_and_port_type_is_generated() -> None:
    """A node added to the catalog that the generator cannot reach fails here:
    every node (internals and adapters included) is in some compiled program
    of the first seeds, and every port type is carried."""
    covered: set[str] = set()
    types: set[str] = set()
    for seed in range(COVERAGE_SEEDS):
        generated = program(seed)
        types |= generated.types
        try:
            covered |= node_ops(polydat.compile(generated.source, engine="p1"))
        except polydat.CompileError:
            pass
    missing = {e["name"] for e in catalog_entries()} - covered
    assert not missing, f"catalog nodes no generated program reached: {sorted(missing)}"
    assert set(PORT_TYPES) - types == set()


def test_programs_are_reproducible_from_their_seed() -> None:
    assert program(7).source == program(7).source
    assert program(7).source != program(8).source


def test_the_matrix_is_every_engine_fused_and_unfused() -> None:
    labels = [s.label for s in setups()]
    assert labels[0] == "p1"
    assert {s.name for s in setups()} == set(polydat.program.engine_names())
    assert len(labels) == 2 * len(polydat.program.engine_names())


def test_known_defects_name_their_issue_item() -> None:
    for defect in KNOWN_DEFECTS:
        assert defect.item.startswith("issue 44 item "), defect
        assert skipped(defect.key) in (True, False)
    with pytest.raises(KeyError):
        skipped("no such defect")


def test_quick_fuzz_of_every_engine() -> None:
    summary = fuzz(range(QUICK_SEED, QUICK_SEED + QUICK_PROGRAMS), engines=QUICK_ENGINES)
    _assert_clean(summary)
    assert summary.compiled >= QUICK_PROGRAMS * 0.85, "most generated programs should compile"
    assert set(summary.setups) == {s.label for s in setups()}, "every setup ran some programs"


@pytest.mark.long
def test_long_fuzz_of_every_engine() -> None:
    count = int(os.environ.get("POLYDAT_FUZZ_PROGRAMS", "5000"))
    seed = int(os.environ.get("POLYDAT_FUZZ_SEED", str(random.randrange(2**32))))
    print(f"POLYDAT_FUZZ_SEED={seed} POLYDAT_FUZZ_PROGRAMS={count}")
    _assert_clean(fuzz(range(seed, seed + count)))


def test_operators_over_dates_and_timestamps_are_generated() -> None:
    """The calendar operator forms (issue 43 item 1) are written as operators,
    not only as calls of their nodes."""
    reached: set[str] = set()
    calendar = {"date_add_days", "date_sub_days", "date_diff_days", "timestamp_add_ms", "timestamp_sub_ms",
                "timestamp_diff_ms"}
    for seed in range(COVERAGE_SEEDS):
        generated = program(seed)
        written = {name for name in calendar if f"{name}(" in generated.source}
        try:
            reached |= (node_ops(polydat.compile(generated.source, engine="p1")) & calendar) - written
        except polydat.CompileError:
            pass
    assert reached == calendar
