"""Writing a phase's table in one of the core's output formats (CSV with a
header, JSON Lines, Parquet, an Arrow IPC stream), the whole table or one
part of it (see :meth:`polydat.workload.Workload.write`): the format's
writer, as the registry names it, decides."""

from __future__ import annotations

from typing import IO

from ..dsl.corerules import format_named, formats
from ..errors import ArgumentError
from ..generate import text_header
from ..stream import (
    ARROW_IPC_WRITER,
    PARQUET_WRITER,
    appending,
    parquet_encoding,
    write_arrow_batches,
    write_parquet_batches,
)
from .chain import ScopeChain
from .model import Phase


def write_phase(
    chain: ScopeChain, phase: Phase, out: IO[bytes], format: str, threads: int, part: tuple[int, int] | None
) -> int:
    """Writes the table of ``phase`` (of part ``part``) of ``chain``'s
    workload to ``out`` as ``format`` (a name of the core's registry of
    output formats: ``csv``, ``jsonl``, ``parquet``, ``arrow``) on ``threads`` workers; returns the row count. A phase the
    core runs by itself writes CSV or JSON Lines to a regular file from the
    core (no Python object per batch). A part is written as the table is (a
    CSV part with the header, a Parquet part with the table's schema even
    when it has no row), so the parts read as one dataset."""
    columns = chain.columns(phase)
    fmt = format_named(format) if isinstance(format, str) else None
    if fmt is None:
        names = ", ".join(f.name for f in formats())
        raise ArgumentError(f"format must be one of {names}, not {format!r}")
    if fmt.writer == PARQUET_WRITER:
        encode = parquet_encoding()
        batches = chain.stream(phase, threads, encode, part)
        return write_parquet_batches(out, batches, lambda: chain.declared_schema(phase, encode))
    if fmt.writer == ARROW_IPC_WRITER:
        batches = chain.stream(phase, threads, None, part)
        return write_arrow_batches(out, batches, lambda: chain.declared_schema(phase, None))
    format = fmt.name
    out.write(text_header(columns, format))  # every part's too: each reads as the table by itself
    native = chain.native(phase)
    if native is not None:
        with appending(out) as path:
            if path is not None:
                return native.write_text(threads, format, part, path)
    total = 0
    for text, rows in chain.stream(phase, threads, format, part):
        out.write(text)
        total += rows
    return total
