"""How ``polydat run --parts N`` cuts a run into parts, and where each part's
file goes.

A part is a contiguous range of the run's cycles (or of a workload phase's
outermost iteration tuples), found by arithmetic alone so machines can
share a run without talking. Every part is a file a reader can open by
itself and the parts of a table are one dataset (a CSV part has the header,
a Parquet part the table's schema), named by a :class:`PartLayout`."""

from __future__ import annotations

import os
from dataclasses import dataclass


def part_range(cycles: range, parts: int, part: int) -> range:
    """The ``part``-th (from 0) of ``parts`` contiguous ranges that ``cycles``
    is cut into, by arithmetic alone: part ``i`` is rows
    ``len * i // parts`` up to ``len * (i + 1) // parts``. The parts, in
    order, are the whole range."""
    rows = cycles.stop - cycles.start  # len() overflows past 2**63
    return range(cycles.start + rows * part // parts, cycles.start + rows * (part + 1) // parts)


@dataclass(frozen=True)
class PartLayout:
    """A way of naming the files of a table's parts (``--layout NAME``)."""

    name: str
    """What ``--layout`` calls it."""
    first: int
    """The number of the first part, in file names and in ``--part I``."""
    directory_per_table: bool
    """A table's parts go in a directory named after it
    (``DIR/TABLE/TABLE.I.EXT``), not beside one another
    (``DIR/TABLE-IIIII-of-NNNNN.EXT``)."""

    def number(self, part: int) -> int:
        """The number the layout gives part ``part`` (counted from 0)."""
        return part + self.first

    def path(self, path: str, part: int, parts: int) -> str:
        """The file of part ``part`` (counted from 0) of ``parts`` of the
        table whose unsharded file is ``path``."""
        root, ext = os.path.splitext(path)
        if self.directory_per_table:
            return os.path.join(root, f"{os.path.basename(root)}.{self.number(part)}{ext}")
        return f"{root}-{self.number(part):05d}-of-{parts:05d}{ext}"


SUFFIXED = PartLayout("suffixed", first=0, directory_per_table=False)
"""Polydat's own: ``rows.csv`` cut in 8 is ``rows-00000-of-00008.csv`` ..
``rows-00007-of-00008.csv``, beside one another."""

TPCHGEN = PartLayout("tpchgen", first=1, directory_per_table=True)
"""tpchgen-cli's: a directory per table, its parts numbered from 1
(``lineitem/lineitem.1.parquet`` ..), and ``--part I`` counted from 1."""

LAYOUTS = {layout.name: layout for layout in (SUFFIXED, TPCHGEN)}
"""Every layout, by its ``--layout`` name."""


def part_path(path: str, part: int, parts: int, layout: PartLayout = SUFFIXED) -> str:
    """The file of one part of ``-o PATH`` in ``layout``: ``rows.csv``
    becomes ``rows-00003-of-00008.csv`` (part 3 counted from 0), or
    ``rows/rows.4.csv`` in tpchgen-cli's layout."""
    return layout.path(path, part, parts)


def part_number_problem(part: int, parts: int, layout: PartLayout) -> str | None:
    """Why ``--part part`` (as given, in ``layout``'s numbering) names no
    part of ``parts``, or None when it names one."""
    last = parts - 1 + layout.first
    if layout.first <= part <= last:
        return None
    under = "" if layout == SUFFIXED else f" under --layout {layout.name}"
    return f"--part {part}: parts are numbered {layout.first}..{last}{under}"
