"""Writing a phase's table: CSV (with a header), JSON Lines, Parquet or an
Arrow IPC stream, the whole table or one part of it (see
:meth:`polydat.workload.Workload.write`)."""

from __future__ import annotations

from typing import IO

from .. import _core
from ..errors import ArgumentError
from ..stream import appending, parquet_encoding, write_parquet_batches
from .chain import ScopeChain
from .model import Phase


def write_phase(
    chain: ScopeChain, phase: Phase, out: IO[bytes], format: str, threads: int, part: tuple[int, int] | None
) -> int:
    """Writes the table of ``phase`` (of part ``part``) of ``chain``'s
    workload to ``out`` as ``format`` (``csv``, ``jsonl``, ``parquet`` or
    ``arrow``) on ``threads`` workers; returns the row count. A phase the
    core runs by itself writes CSV or JSON Lines to a regular file from the
    core (no Python object per batch)."""
    columns = chain.columns(phase)
    if format == "parquet":
        encode = parquet_encoding(chain.declared_schema(phase, None))
        batches = chain.stream(phase, threads, encode, part)
        return write_parquet_batches(out, batches, lambda: chain.declared_schema(phase, encode))
    if format == "arrow":
        import pyarrow as pa

        writer = None
        total = 0
        try:
            for produced, rows in chain.stream(phase, threads, None, part):
                batch = pa.record_batch(produced)
                if writer is None:
                    writer = pa.ipc.new_stream(out, batch.schema)
                writer.write_batch(batch)
                total += rows
            if writer is None:  # no row: a file with the schema
                writer = pa.ipc.new_stream(out, chain.declared_schema(phase, None))
        finally:
            if writer is not None:
                writer.close()
        return total
    if format not in ("csv", "jsonl"):
        raise ArgumentError(f"format must be csv, jsonl, parquet or arrow, not {format!r}")
    if format == "csv" and (part is None or part[0] == 0):
        out.write(_core.text_header(columns, "csv"))
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
