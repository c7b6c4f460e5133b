"""Type stubs for the Rust extension ``polydat._core`` (a thin PyO3 binding)."""

from typing import Any

import numpy as np

def catalog_json() -> str:
    """The node catalog as JSON text."""

def data_files_json() -> str:
    """The bundled data files (name, about, source, licence, columns, entries, nodes) as JSON text."""

# Test hooks: present only in a build with the ``test-hooks`` feature (the
# test builds); ``pip install .`` leaves them out.

def probe_count(key: str) -> int:
    """How many times ``__probe`` nodes keyed ``key`` have evaluated (test hook)."""

def probe_reset(key: str) -> None:
    """Resets the ``__probe`` evaluation count of ``key`` (test hook)."""

def _raise_panic(message: str) -> None:
    """Panics inside the binding's containment: raises ``InternalError`` (test hook)."""

def _encode_column(type_name: str, header: str, values: list[Any], format: str) -> bytes:
    """One column of ``values`` as the CLI writes it, ``csv`` (header first) or ``jsonl`` (test hook)."""

MAX_THREADS: int
"""The most worker threads a run starts."""
__version__: str
"""The package's version (the workspace's, which the wheel is built as)."""

def check_threads(threads: Any) -> int:
    """``threads`` when it is an int in ``1..=MAX_THREADS``; else raises ``ArgumentError``."""

class RowPlan:
    """One run of a program's rows: ``rows`` cycles ``start, start + step, ...``
    (wrapping) of input ``coordinate``, the columns ``outputs``, inputs
    ``fixed`` for the whole run, on ``threads`` workers (checked here:
    ``ArgumentError`` unless an int in ``1..=MAX_THREADS``)."""

    def __init__(
        self,
        coordinate: str,
        start: int,
        rows: int,
        step: int,
        outputs: list[str],
        fixed: list[tuple[str, Any]],
        threads: int,
    ) -> None: ...
    @property
    def coordinate(self) -> str: ...
    @property
    def start(self) -> int: ...
    @property
    def rows(self) -> int: ...
    @property
    def step(self) -> int: ...
    @property
    def outputs(self) -> list[str]: ...
    @property
    def threads(self) -> int: ...
    def segment(self, skip: int, count: int) -> RowPlan:
        """The ``count`` rows after the first ``skip``."""
    def with_outputs(self, outputs: list[str]) -> RowPlan:
        """This plan with the columns ``outputs``."""

def engines() -> list[str]:
    """Every engine/mode name ``Program.engine`` can report, P1 first:
    ``["p1", "p2/raw", "p2/push", "p2/pull", "p2/pushpull"]``."""

def bench_scenario(
    graph: Program,
    driver: Program | None,
    engines: list[str],
    pulls: list[tuple[str, int]],
    cycles: int,
    iters: int,
) -> list[dict[str, Any]]:
    """Times a performance scenario in Rust on every engine of ``engines``,
    interleaved round by round; per engine ``{"engine", "total", "driver",
    "net"}`` in ns per cycle, one entry per timed iteration."""

class Program:
    """A compiled, immutable program (thread-safe)."""

    @staticmethod
    def compile(
        ir_json: str,
        *,
        engine: str = "auto",
        provenance: str = "auto",
        strict: bool = False,
        outputs: list[str] | None = None,
        fusion: bool = True,
        outer_json: str | None = None,
        iteration: list[tuple[str, str]] = ...,
        keep: list[str] = ...,
        strict_names: bool = False,
    ) -> Program:
        """``outer_json``: the manifest of the outer scope compiled against
        (auto-extern); ``iteration``: (name, type) of iteration variables;
        ``keep``: names given a slot even when unread; ``strict_names``:
        refuse free names nobody provides."""
    @property
    def engine(self) -> str: ...
    @property
    def provenance_analysis(self) -> dict[str, Any]:
        """P2 selection figures: total_nodes, max_output_cone, output_cone_ratio,
        stable_nodes, stable_ratio, choice, rule."""
    @property
    def inputs(self) -> list[tuple[str, str, str]]:
        """(name, type, kind) per input, coordinates first."""
    @property
    def outputs(self) -> list[tuple[str, str]]:
        """(name, type) per output."""
    @property
    def events(self) -> list[tuple[str, str, int, int, str]]:
        """(kind, message, line, col, severity) per compile event; severity is ``warning`` or ``info``."""
    @property
    def stats(self) -> dict[str, int]: ...
    def explain_json(self) -> str:
        """Passes, lifecycles, events, engine choice and resolved graph as JSON."""
    def kernel(self, outer: Kernel | None = None, iteration: list[tuple[str, Any]] = ...) -> Kernel:
        """A root kernel, or one bound under ``outer`` (raises ``BindError``)."""
    def manifest_json(self) -> str:
        """The names a program compiled against this one may read (JSON)."""
    @property
    def input_origins(self) -> list[tuple[str, str]]:
        """(name, origin) per input: declared, inferred, outer, iteration or cell."""
    def inlined(self) -> list[tuple[str, Any]]:
        """The outer literals inlined as constants, (name, value)."""
    def arrow_schema(self, names: list[str]) -> Any:
        """The Arrow schema (``__arrow_c_schema__``) of columns ``names``."""

class BatchStream:
    """A stream of batches (see :func:`batches`)."""

    @property
    def schema(self) -> Any:
        """The batches' Arrow schema (an object with ``__arrow_c_schema__``)."""
    def __iter__(self) -> BatchStream: ...
    def __next__(self) -> Any: ...
    def close(self) -> None:
        """Stops generating; the stream yields nothing more."""
    # One consumer at a time: a read from a second thread while another is
    # under way raises ``ConcurrentUseError``.

def text_header(names: list[str], format: str) -> bytes:
    """What an output in ``format`` (a name of :func:`formats`) holds before
    its rows of columns ``names``: CSV's header line; nothing for ``jsonl``
    or a binary format. Raises ``WriteError`` for a name no format has."""

class Kernel:
    """One mutable state over a program: a scope, root or bound under an
    outer kernel's; use from one thread at a time."""

    def set_inputs(self, values: list[Any], named: list[tuple[str, Any]]) -> None: ...
    def set(self, name: str, value: Any) -> None:
        """Writes an extern; on a shared slot, publishes to its cell."""
    def pull(self, name: str) -> Any: ...
    def eval(self) -> dict[str, Any]: ...
    def invalidate_all(self) -> None: ...
    def init(self) -> None:
        """Re-captures every const from the current inputs (at the next read)."""
    def input_values(self) -> dict[str, Any]: ...
    @property
    def engine(self) -> str: ...
    def bindings(self) -> list[tuple[str, str]]:
        """(input, form) per input: own, copied, live, cell or iteration."""
    def cells(self) -> tuple[list[str], list[str]]:
        """The cells visible here, and those among them only passed through."""
    def iteration(self) -> list[tuple[str, Any]]:
        """The iteration values the kernel was bound with."""
    def manifest_json(self) -> str:
        """This scope's manifest through its outer chain (JSON)."""
    def value_of(self, name: str) -> Any:
        """The current value of ``name`` as this scope sees it (raises ``UnknownNameError``)."""

def generate(on: Program | Kernel, plan: RowPlan, emitted: bool = False, out: list[Any] | None = None) -> Any:
    """``{name: numpy array}`` of the plan's rows, made on fresh kernels of a
    program or on kernels of a kernel's scope (its bindings, its current
    inputs); with ``emitted``, ``(that dict, rows)``: also the rows
    ``emit_row`` nodes emitted, in row order; ``out``: the caller's arrays,
    one per column, written in place."""

def batches(
    on: Program | Kernel,
    plan: RowPlan,
    batch_rows: int = 65536,
    encode: str | None = None,
    cycles_column: str | None = None,
    emitted: bool = False,
) -> BatchStream:
    """The rows of ``plan`` (see :func:`generate`), ``batch_rows`` at a time,
    generated ahead on a thread of its own: Arrow record batches (objects
    with ``__arrow_c_array__``; ``encode=None``), or the batches the writer
    of format ``encode`` (a name of :func:`formats`) takes: CSV/JSONL text
    as bytes, Arrow batches shaped for Parquet; with ``emitted`` each item
    is ``(batch, rows emit_row emitted)``."""

def fill_kernel_rows(
    runs: list[tuple[Kernel, int, int]], columns: list[str], format: str | None, threads: int = 1
) -> Any:
    """The rows of several kernels of one program, run after run ((kernel,
    start, rows) each), as the writer of ``format`` (a name of
    :func:`formats`) takes them: CSV rows or JSON Lines (bytes), or an Arrow
    record batch (``"arrow"`` or None; ``"parquet"``: shaped for Parquet),
    on ``threads`` workers."""

def formats() -> list[dict[str, Any]]:
    """The output formats of the core's registry, in order: per format a dict
    of ``name``, ``aliases``, ``extensions`` (lowercase, with the dot; the
    first names its files), ``about``, ``binary`` and ``writer`` (the name of
    what writes it: ``csv_text``, ``jsonl_text``, ``parquet``, ``arrow_ipc``)."""

def engine_requests() -> list[str]:
    """The names ``engine=`` accepts besides :func:`engines`: ``["auto", "p1", "p2", "p3", "mixed"]``."""

def provenances() -> list[str]:
    """The names ``provenance=`` accepts: ``["auto", "raw", "push", "pull", "pushpull"]``."""

def suggest(name: str, candidates: list[str], preferred: list[str] = ..., callee: bool = ...) -> str | None:
    """The candidate closest to ``name`` (the core's "did you mean" rule), or
    ``None``; a close name of ``preferred`` (the program's own) wins over
    ``candidates``. ``callee``: ``name`` is called, so a candidate holding it
    as a ``_``-separated word may answer (``uuid`` finds ``hashed_uuid``)."""

def conversions(implicit: bool = True) -> list[tuple[str, str]]:
    """(from, to) type pairs converted on a wire implicitly (class A), or by an explicit ``as``."""

def parse_text(text: str, type_name: str) -> Any:
    """Reads ``text`` as a value of type ``type_name`` (the ``--set name=value`` rule)."""

def type_keywords() -> list[tuple[str, str]]:
    """Every type spelling a program may write (``u64``, ``Str``, ``String``,
    ...) with the keyword of the type it names (``u64``, ``str``, ``str``, ...)."""
def parse_type(word: str) -> str | None:
    """The keyword of the type ``word`` names (``decimal(15, 2)`` is ``decimal(15,2)``), None when it names none; ValueError for a malformed or out-of-range decimal."""

def int_literal_type(low: int, high: int) -> str | None:
    """The type of integer literals from ``low`` to ``high`` (both the value,
    for one literal): ``"u64"`` when none is negative, ``"i64"`` when one is;
    ``None`` when they do not all fit that type."""

def f64_display(value: float) -> str:
    """``value`` as the core displays an f64: no exponent, ``1`` for 1.0,
    ``-0``, ``NaN``, ``inf``."""

def printf_placeholders(format: str) -> int:
    """The number of placeholders in a ``printf`` format (``{{``/``}}`` are
    braces; a ``{`` opens a placeholder up to the next ``}``)."""

def variadic_wire_count(name: str, value: str) -> int | None:
    """How many wires node ``name``'s variadic wire parameter takes when the
    constant that decides it holds ``value`` (``printf``: one per
    placeholder), or None when no constant decides it."""

def removed_node_hint(name: str) -> str | None:
    """What a program writes instead of ``name`` when ``name`` is a node the
    library removed (``session_start_millis``, ``elapsed_millis``), else None."""

def suggestion_limit(name: str) -> int:
    """The most edits a "did you mean" suggestion for ``name`` may be away
    from it (a third of its length, rounded up, from 1 to 3; 1 for a name of
    at most five characters)."""

def match_arguments(
    params: list[tuple[str, bool, bool]], args: list[str | None], what: str, signature: str
) -> tuple[
    list[int | None], list[int], list[tuple[int, str, str | None]], tuple[int, str, str | None] | None
]:
    """Matches a call's arguments to its parameters, the core's one rule.

    ``params``: per parameter (name, variadic, optional); ``args``: per
    argument its name, or ``None`` when positional; ``what`` (``'mod'``,
    ``module 'm'``) and ``signature`` word the messages. Returns per
    parameter the index of the argument filling it (``None``: none, or the
    variadic one), the argument indexes the variadic parameter takes, each
    missing parameter as (index, message, hint), and the first mismatch as
    (argument index, message, hint) or ``None``."""

def conversion_hint(source: str, target: str) -> str:
    """How to get a ``target`` from a ``source`` value the compiler does not
    convert by itself (choose a rounding, write ``as``, or there is none)."""

def streamer_text(spec: str) -> str:
    """The comprehension text a ``streamer(spec)`` spec holds (its text, or
    upstream's JSON payload's ``text``); PolydatError when it holds none."""

def order_positions(strategy: str, axes: list[int], count: int | None = None, seed: int | None = None) -> list[int]:
    """The positions (row-major over ``axes``, axis 0 slowest) an ``order``
    strategy emits, cut by ``count`` (positions, or strata for ``extrema``),
    all at once; raises ``ArgumentError`` for an unknown strategy or a
    refused order, ``OutOfMemoryError`` when they do not fit (walk them with
    :func:`order_walk`)."""

def order_walk(
    strategy: str, axes: list[int], count: int | None = None, seed: int | None = None, filtered: bool = False
) -> OrderWalk:
    """The positions :func:`order_positions` gives, walked a batch at a time.
    ``filtered``: the caller keeps only the positions whose tuples pass its
    ``where`` tests, then :meth:`OrderWalk.survivor_limit` of them."""

class OrderWalk:
    """An order's positions being walked (one consumer at a time)."""

    def take(self, max: int) -> list[int]:
        """The next positions, at most ``max``; empty once the walk is over."""

    def bound(self) -> int:
        """At most how many positions the walk emits in all."""

    def survivor_limit(self) -> int | None:
        """How many of the positions passing the caller's ``where`` tests to
        keep (``None``: all): the count of an order counting positions, when
        the walk was made ``filtered``."""

def check_request(engine: str, provenance: str) -> None:
    """Raises ``RefusedError`` for an (engine, provenance) request no engine can honour."""

def max_value_bytes() -> int:
    """The most bytes one string or byte-string value may hold."""

def set_max_value_bytes(bytes: int) -> None:
    """Sets the most bytes one string or byte-string value may hold (every program of the process)."""

def numpy_dtype(type_name: str) -> str | None:
    """The numpy dtype of a column of declared type ``type_name`` (None for str, bytes, json)."""

def fanout_supported(kernel: Kernel) -> bool:
    """True when one kernel can run parent after parent (no volatile step, no cell)."""

def fanout(
    kernel: Kernel, iteration: tuple[str, str, str], first: int, step: int, parents: int, count: Any,
    columns: list[str], first_ordinal: int = 0, first_row: int = 0, threads: int = 1, batch_rows: int = 65536,
    encode: str | None = None,
) -> BatchStream:
    """A stream of one-to-many rows: ``count`` child rows per parent, as Arrow batches or encoded text."""

def fanout_rows(
    kernel: Kernel, iteration: tuple[str, str, str], first: int, step: int, parents: int, count: Any,
    first_ordinal: int = 0, first_row: int = 0, threads: int = 1,
) -> int:
    """The number of rows :func:`fanout` would stream, filling none."""
