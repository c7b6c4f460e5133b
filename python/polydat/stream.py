"""Streams of generated rows as Arrow record batches, for the tools people
query with: :meth:`Program.stream <polydat.Program.stream>` and what
:meth:`Program.iter_batches <polydat.Program.iter_batches>` returns.

Both implement the Arrow PyCapsule stream interface (``__arrow_c_stream__``),
so DuckDB, polars and pyarrow read the rows batch by batch as the core makes
them, in bounded memory, with no conversion of ours in between::

    stream = prog.stream(range(10**9), outputs=["user_id", "amount"], threads=2)
    duckdb.sql("select user_id % 10 as k, sum(amount) from stream group by k")
    polars.DataFrame(stream)          # polars.from_arrow(stream): one struct Series
    pyarrow.RecordBatchReader.from_stream(stream)

A :class:`Stream` is a description of a run: every ``__arrow_c_stream__``
call (DuckDB makes several: it reads the schema first) and every ``iter()``
starts the run afresh, and the core makes no row until the first batch is
read. Rows are a pure function of the run, so every reading gives the same
batches.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import IO, Any

from .errors import ArgumentError

SEGMENT_ROWS = 1 << 62
"""The most rows one run of the core takes: a stream of more (up to every
cycle, 2**64 rows) is several runs one after another (:func:`polydat.generate.segments`); a
``generate`` of more could never fit in memory."""

__all__ = [
    "Stream", "BatchIterator", "appending", "file_path", "parquet_encoding", "write_arrow_batches",
    "write_parquet_batches",
]


PARQUET_WRITER = "parquet"
"""The name the core's format registry gives :func:`write_parquet_batches`
(see :func:`polydat.dsl.corerules.formats`)."""
ARROW_IPC_WRITER = "arrow_ipc"
"""The name the core's format registry gives :func:`write_arrow_batches`."""


def parquet_encoding() -> str:
    """The batch encoding a Parquet writer asks the core for: the Parquet
    format's own, ``"parquet"``, decided column by column (a column of
    picks among literal strings comes as a dictionary array, which the
    writer takes without hashing each row, and a field no row can hold
    ``None`` in is non-nullable); a field's metadata (``json``) is kept by
    the Arrow schema the writer stores (see :func:`write_parquet_batches`),
    whatever the other columns are."""
    from .dsl.corerules import format_written_by

    parquet = format_written_by(PARQUET_WRITER)
    assert parquet is not None, "the core's registry has a format for the Parquet writer"
    return parquet.name


def write_arrow_batches(
    out: Any, batches: Iterable[tuple[Any, int]], schema: Callable[[], Any], declared: bool = False
) -> int:
    """Writes ``(columns, rows)`` pairs (a record batch's columns by name) to
    ``out`` as an Arrow IPC stream, a record batch per pair, and returns the
    rows written. The stream's schema is ``schema()`` when ``declared``,
    else the first batch's (``schema()`` is then asked for only when there
    is no batch, so a table of no row still says its columns). Readable as
    it is written: a shell pipeline can feed it on."""
    import pyarrow as pa

    writer = pa.ipc.new_stream(out, schema()) if declared else None
    total = 0
    try:
        for produced, rows in batches:
            batch = pa.record_batch(produced)
            if writer is None:
                writer = pa.ipc.new_stream(out, batch.schema)
            writer.write_batch(batch)
            total += rows
        if writer is None:
            writer = pa.ipc.new_stream(out, schema())
    finally:
        if writer is not None:
            writer.close()
    return total


def write_parquet_batches(out: Any, batches: Iterable[tuple[Any, int]], empty: Callable[[], Any]) -> int:
    """Writes ``(batch, rows)`` pairs to ``out`` with pyarrow's
    ``ParquetWriter``, a row group per batch, and returns the rows written;
    with no batch, a file of no row with the schema ``empty()`` gives (asked
    for only then). The writer opens with
    the first batch's schema; a later batch of another schema (a column of
    picks that came as plain strings) is cast to it.

    Each column's encoding comes from a sample of the first batch (see
    :func:`_encodings`): delta for integers and dates that stay close to
    one another (keys, counts, dates), dictionary for text and for other
    numbers that repeat, pyarrow's plain encoding for the rest; a decimal
    of at most 18 digits is stored as an integer
    (:func:`_decimals_as_integers`). Snappy and statistics are pyarrow's.
    The Arrow schema stored in the file (which keeps a field's metadata,
    such as a ``json`` column's) gives a column written from dictionary
    arrays its values' type, so a reader sees ``string`` there, as it
    does for a column of plain strings."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    def open_writer(schema: Any, first: Any) -> Any:
        stored = _stored_schema(pa, schema)
        encodings = _encodings(schema, first)
        dictionary = [name for name, how in encodings.items() if how == _DICTIONARY]
        delta = {name: how for name, how in encodings.items() if how == _DELTA}
        own = stored.equals(schema, check_metadata=True)
        writer = pq.ParquetWriter(
            out,
            schema,
            use_dictionary=dictionary,
            column_encoding=delta or None,
            store_schema=own,
            **_decimals_as_integers(pq),
        )
        if not own:
            writer.add_key_value_metadata({_ARROW_SCHEMA_KEY: base64.b64encode(stored.serialize()).decode()})
        return writer

    writer = None
    written = None
    total = 0
    try:
        for produced, rows in batches:
            batch = pa.record_batch(produced)
            if writer is None:
                written = batch.schema
                writer = open_writer(written, batch)
            elif not batch.schema.equals(written):
                batch = batch.cast(written)
            writer.write_batch(batch)
            total += rows
        if writer is None:
            writer = open_writer(empty(), None)
    finally:
        if writer is not None:
            writer.close()
    return total


#: A first batch of fewer rows says too little about its columns: its
#: numbers get pyarrow's plain encoding.
_SAMPLE_ROWS = 1024

#: How many rows of the first batch are sampled (at most).
_SAMPLED_ROWS = 16384

#: A number or date column (not delta-encoded) is repetitive when its
#: sample has at most one distinct value per this many rows.
_ROWS_PER_VALUE = 4

#: An integer or date column is delta-encoded when the differences between
#: its sampled rows span less than this (32-bit packed deltas at most; a
#: column of hashes or other full-width values is left plain, which Snappy
#: passes over quickly, where delta packing would cost three times as much).
_DELTA_SPAN = 1 << 32


_DICTIONARY = "RLE_DICTIONARY"
_DELTA = "DELTA_BINARY_PACKED"

_ARROW_SCHEMA_KEY = "ARROW:schema"
"""The Parquet key-value entry in which Arrow readers find the Arrow schema
a file was written with (base64 of its IPC serialization)."""


def _stored_schema(pa: Any, schema: Any) -> Any:
    """The Arrow schema a Parquet file of batches of ``schema`` stores: the
    same, but a dictionary field has its values' type (a column of picks
    reads back as the strings it holds, as when it comes plain)."""
    return pa.schema(
        [f.with_type(f.type.value_type) if pa.types.is_dictionary(f.type) else f for f in schema], schema.metadata
    )


def _decimals_as_integers(pq: Any) -> dict[str, bool]:
    """The writer option that stores a decimal of at most 18 digits as a
    Parquet INT32 or INT64 (its units) instead of a fixed-length byte
    array: the same decimal type and values, a tenth less of the writer's
    time for TPC-H's lineitem and a little less room, and the physical type
    other Arrow-based writers (arrow-rs, so tpchgen-cli) give it. Empty
    with a pyarrow whose writer does not take the option."""
    import inspect

    taken = "store_decimal_as_integer" in inspect.signature(pq.ParquetWriter.__init__).parameters
    return {"store_decimal_as_integer": True} if taken else {}


def _encodings(schema: Any, first: Any) -> dict[str, str]:
    """The encoding of each column of ``schema`` that is not left to
    pyarrow's plain one (:data:`_DICTIONARY` or :data:`_DELTA`), judged
    from the first :data:`_SAMPLED_ROWS` rows of ``first`` (the first
    batch, or None for a file of no row); see :func:`_encoding`."""
    rows = 0 if first is None else min(first.num_rows, _SAMPLED_ROWS)
    samples = [c.slice(0, rows) for c in first.columns] if rows >= _SAMPLE_ROWS else [None] * len(schema)
    found = {field.name: _encoding(field.type, sample) for field, sample in zip(schema, samples)}
    return {name: how for name, how in found.items() if how is not None}


def _encoding(ty: Any, sample: Any) -> str | None:
    """The encoding of a column of type ``ty`` whose first rows are
    ``sample`` (None when there are too few to judge).

    Delta (``DELTA_BINARY_PACKED``): an integer, date or timestamp column
    whose consecutive sampled rows differ by less than :data:`_DELTA_SPAN`
    (a key, a count, a date): packed differences, no hashing. Dictionary:
    a pick among literal strings (a dictionary array already), a text
    column whose sample holds at most one distinct value per two rows (a
    comment of a few words, a clerk; any text column when there is no
    sample), and another number, date or timestamp column whose sample
    holds at most one distinct value per :data:`_ROWS_PER_VALUE` rows (a
    quantity or a discount as a float): building a dictionary for a column
    that does not repeat (a name, an address, a key) was a quarter of the
    writer's time for TPC-H's lineitem, and the writer starts one for
    every row group before it gives up. For TPC-H's tables this writes a
    fifth less than dictionaries alone, and a little faster. A later batch
    unlike the first only costs some room. Counted with numpy on the
    sample's own buffer (:func:`_sample_values`): pyarrow's compute module
    alone takes longer to import than a small table takes to write."""
    import numpy as np
    import pyarrow as pa

    if _is_text(pa, ty):
        if sample is None or pa.types.is_dictionary(ty):
            return _DICTIONARY
        return _DICTIONARY if len(set(sample.to_pylist())) <= len(sample) // 2 else None
    integral = pa.types.is_integer(ty) or pa.types.is_date(ty) or pa.types.is_timestamp(ty)
    if sample is None or not (integral or pa.types.is_floating(ty)):
        return None
    values = _sample_values(np, pa, sample)
    if integral and sample.null_count == 0:
        words = values.view(np.int64) if values.dtype.itemsize == 8 else values.astype(np.int64)
        steps = np.diff(words)  # wrapping, as the encoding's are
        if int(steps.max()) - int(steps.min()) < _DELTA_SPAN:
            return _DELTA
    return _DICTIONARY if len(np.unique(values)) <= len(sample) // _ROWS_PER_VALUE else None


def _sample_values(np: Any, pa: Any, sample: Any) -> Any:
    """The values of ``sample`` (an Arrow array of a number, date or
    timestamp type) as a numpy view of its data buffer, no copy: a date or
    a timestamp as its integer. Not ``Array.to_numpy``, which imports pandas
    when it is installed (0.27 s of CPU, more than most tables take to
    write). A null row's value is whatever its slot holds."""
    width = sample.type.bit_width // 8
    kind = "f" if pa.types.is_floating(sample.type) else "u" if pa.types.is_unsigned_integer(sample.type) else "i"
    return np.frombuffer(sample.buffers()[1], dtype=f"{kind}{width}", count=len(sample), offset=sample.offset * width)


def _is_text(pa: Any, ty: Any) -> bool:
    """True for a string type, or a dictionary of strings."""
    if pa.types.is_dictionary(ty):
        ty = ty.value_type
    return bool(pa.types.is_string(ty) or pa.types.is_large_string(ty))


def file_path(out: IO[bytes]) -> str | None:
    """The path of ``out`` when it is a regular file that the core may
    append to once ``out`` is flushed (a batch stream's ``write_text``:
    the text goes there with no Python object per batch), else None."""
    name = getattr(out, "name", None)
    if not isinstance(name, str) or not os.path.isfile(name):
        return None
    try:
        if out.isatty() or os.fstat(out.fileno()).st_ino != os.stat(name).st_ino:
            return None
    except (OSError, ValueError, AttributeError):
        return None
    return name


@contextmanager
def appending(out: IO[bytes]) -> Iterator[str | None]:
    """The path of ``out`` (:func:`file_path`; None when it has none) for a
    writer that appends to the file through a descriptor of its own:
    ``out`` is flushed before and moved to the file's end after, so what
    ``out`` writes next follows that writer's bytes instead of overwriting
    them. None too when ``out`` is not at the file's end (appending would
    not write where ``out`` would)."""
    path = file_path(out)
    if path is not None:
        out.flush()
        if out.tell() != os.fstat(out.fileno()).st_size:
            path = None  # ``out`` writes inside the file, not at its end
    if path is None:
        yield None
        return
    try:
        yield path
    finally:
        out.seek(0, os.SEEK_END)


class Stream:
    """The rows of one run as Arrow record batches (see the module).

    Iterating it (each ``iter()`` a fresh run) yields ``pyarrow.RecordBatch``
    es; ``__arrow_c_stream__`` hands a fresh run to any Arrow consumer;
    ``schema`` is the batches' schema (from the declared types, no row made).

    ``open_batches(plan, batch_rows)`` opens the core's batch stream of a
    run plan's rows (what :func:`polydat.generate.open_stream` makes it
    with); ``plan`` is the core's ``RowPlan`` of the whole run.
    """

    def __init__(self, open_batches: Callable[[Any, int], Any], plan: Any, batch_rows: int):
        self._open_batches = open_batches
        self._plan = plan
        self._batch_rows = batch_rows

    @property
    def num_rows(self) -> int:
        """The rows of the run."""
        return self._plan.rows

    def _open(self, skip: int = 0) -> Any:
        """The core's batch stream of the run's rows after the first ``skip``,
        at most :data:`SEGMENT_ROWS` of them (one run of the
        core; a run of every cycle, 2**64 rows, is several); its producer
        starts at the first batch read."""
        rows = self._plan.rows
        skip = min(skip, rows)
        count = min(rows - skip, SEGMENT_ROWS)
        batch_rows = min(self._batch_rows, max(count, 1))  # a batch of more rows than the run is the run
        return self._open_batches(self._plan.segment(skip, count), batch_rows)

    def _whole(self, skip: int = 0) -> Any:
        """:meth:`_open` for a consumer that takes the rest of the run as one
        Arrow stream: refused past one run of the core."""

        if self.num_rows - skip > SEGMENT_ROWS:
            raise ArgumentError(
                f"an Arrow stream carries at most {SEGMENT_ROWS} rows; split the cycles or iterate the batches"
            )
        return self._open(skip)

    @property
    def schema(self) -> Any:
        """The batches' ``pyarrow.Schema``."""
        import pyarrow as pa

        return pa.schema(self._open().schema)

    def __arrow_c_schema__(self) -> Any:
        return self._open().schema.__arrow_c_schema__()

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        return self._whole().__arrow_c_stream__(requested_schema)

    def __iter__(self) -> BatchIterator:
        return BatchIterator(self)

    def __repr__(self) -> str:
        plan = self._plan
        return f"<polydat.Stream {plan.rows} rows of {plan.outputs} from {plan.coordinate}={plan.start} step {plan.step}>"


class BatchIterator(Iterator[Any]):
    """The batches of a :class:`Stream`, one after another, as
    ``pyarrow.RecordBatch`` es (what :meth:`Program.iter_batches` returns).
    The core makes the next batch while the caller uses this one, and holds
    at most three. ``__arrow_c_stream__`` hands the rows not yielded yet to
    an Arrow consumer (a fresh run of them, each call; the iterator itself
    does not move). ``close()`` stops the run."""

    def __init__(self, stream: Stream):
        self._stream = stream
        self._core_stream: Any = None
        self._yielded = 0
        self._closed = False

    @property
    def schema(self) -> Any:
        """The batches' ``pyarrow.Schema``."""
        return self._stream.schema

    def __iter__(self) -> BatchIterator:
        return self

    def __next__(self) -> Any:
        import pyarrow as pa

        if self._closed:
            raise StopIteration
        while True:
            if self._core_stream is None:
                self._core_stream = self._stream._open(self._yielded)
            try:
                batch = pa.record_batch(next(self._core_stream))
            except StopIteration:
                # One run of the core ends; the next takes the rows after it.
                self._core_stream.close()
                self._core_stream = None
                if self._yielded >= self._stream.num_rows:
                    self._closed = True
                    raise
                continue
            self._yielded += batch.num_rows
            return batch

    def close(self) -> None:
        """Stops the run: nothing more is made or yielded."""
        self._closed = True
        if self._core_stream is not None:
            self._core_stream.close()

    def __enter__(self) -> BatchIterator:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __arrow_c_schema__(self) -> Any:
        return self._stream.__arrow_c_schema__()

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        if self._closed:
            raise ArgumentError("the batch iterator is closed")
        return self._stream._whole(self._yielded).__arrow_c_stream__(requested_schema)
