"""The ``polydat`` command line: ``run``, ``check``, ``explain``, ``nodes``, ``fields``, ``data``, ``bench``.

Every failure a user can cause (bad source, bad arguments, a failing node, an
unwritable file) ends with a clear message on stderr and a non-zero exit code,
never a traceback: usage errors (the command line itself is wrong) exit 2 with
one line and nothing on stdout; a run that fails exits 1 — errors polydat
raises (:class:`PolydatError`), and files the system will not read or write
(missing file or directory, no permission, full disk: one line naming the
path); SIGTERM and SIGHUP exit
128 + the signal number, like Ctrl-C (130), after removing any temporary file.
A reader that goes away before the end of the rows ends the run as SIGPIPE
ends ``cat`` or ``yes``: exit 141 (128 + SIGPIPE), quietly for standard
output (the ``| head`` idiom), with one line naming a FIFO given by ``-o``.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import signal
import stat
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any, NoReturn

from .errors import PolydatError
from .parts import LAYOUTS, SUFFIXED, part_number_problem, part_path, part_range
from .stream import appending, parquet_encoding, write_arrow_batches, write_parquet_batches

if TYPE_CHECKING:
    from .program import Program
    from .dsl.corerules import OutputFormat

# The command line does no linear algebra; numpy (which pyarrow loads for
# Parquet and Arrow) would start BLAS threads that spin while idle.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

BATCH_ROWS = 1 << 16
"""Rows per batch while streaming output (memory is bounded by a few batches)."""

CYCLE_END = 1 << 64
"""Cycles lie in ``0..2**64``: a range may end (exclusively) at 2**64, no later."""

MAX_THREADS = 256
"""``--threads`` accepts ``1..=MAX_THREADS``."""

PROGRESS_DELAY = 1.0
"""Under ``--progress auto`` the bar appears once a run has taken this many seconds."""

DEFAULT_FORMAT = "csv"
"""The rows' format when neither ``--format`` nor the extension of ``-o PATH``
names one (the formats are the core's registry:
:func:`polydat.dsl.corerules.formats`)."""

_SI = {"K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30}


BROKEN_PIPE_EXIT = 128 + 13
"""The exit status when the reader of the rows goes away (128 + SIGPIPE)."""


class UsageError(Exception):
    """A command-line argument is invalid."""


class Reported(Exception):
    """The failure's diagnostics are already on stderr (as ``polydat check``
    prints them). Exit status 1."""


class RunFailed(Exception):
    """The run failed outside polydat (a file or directory the system will
    not read or write); the message names the path. Exit status 1."""


def _system_error(err: OSError, path: str | None = None) -> str:
    """``PATH: reason`` of an ``OSError`` (``path`` when it names none)."""
    where = err.filename if err.filename is not None else path
    reason = err.strerror or str(err)
    return f"{where}: {reason}" if where is not None else reason


class OutputClosed(Exception):
    """The reader of ``-o PATH`` (a FIFO, say) closed it before the end of the rows."""

    def __init__(self, path: str):
        super().__init__(path)
        self.path = path


class Terminated(BaseException):
    """SIGTERM or SIGHUP arrived. Like ``KeyboardInterrupt`` it is not an
    ``Exception``, so it unwinds through every cleanup handler."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def parse_count(text: str) -> int:
    """Parses ``1000``, ``0x10``, ``1M``, ``1.5M``, ``1e6`` or ``64Ki`` as a
    non-negative integer (a decimal or exponent form must come out whole)."""
    t = text.strip()
    number, scale = t, 1
    for suffix in sorted(_SI, key=len, reverse=True):
        if t.endswith(suffix) and t[: -len(suffix)]:
            number, scale = t[: -len(suffix)], _SI[suffix]
            break
    try:
        value = int(number, 0) * scale
    except ValueError:
        value = _decimal_count(number, scale, text)
    if value < 0:
        raise UsageError(f"cycle numbers are non-negative: {text!r}")
    return value


def _decimal_count(number: str, scale: int, text: str) -> int:
    """``number`` (``1.5``, ``1e6``, ``2.5e3``) times ``scale``, exactly, when that is a whole number."""
    from decimal import Decimal, InvalidOperation, localcontext

    try:
        written = Decimal(number)
    except InvalidOperation:
        raise UsageError(f"not a cycle number: {text!r}") from None
    if not written.is_finite():
        raise UsageError(f"not a cycle number: {text!r}")
    if written.is_zero():
        return 0
    # The exponent is checked before any arithmetic: 1e999999999 has a billion digits.
    if written.adjusted() > 20:
        raise UsageError(f"{text!r} does not fit in 64 bits: cycles lie in 0..2**64")
    if written.adjusted() < -20:
        raise UsageError(f"not a whole number of cycles: {text!r}")
    with localcontext() as exact_arithmetic:
        exact_arithmetic.prec = len(number) + 40  # room for every digit: the product is exact
        product = written * scale
    if product != product.to_integral_value():
        raise UsageError(f"not a whole number of cycles: {text!r}")
    return int(product)


def parse_cycles(text: str) -> range:
    """Parses ``A..B`` (B exclusive) or ``N`` (meaning ``0..N``); both bounds
    lie in ``0..=2**64``, so a run has at most 2**64 rows."""
    if ".." in text:
        a, b = text.split("..", 1)
        start, stop = parse_count(a), parse_count(b)
    else:
        start, stop = 0, parse_count(text)
    if stop < start:
        raise UsageError(f"empty or reversed cycle range: {text!r}")
    if stop > CYCLE_END:
        raise UsageError(f"cycle range {text!r} does not fit in 64 bits: cycles lie in 0..2**64")
    return range(start, stop)


def parse_threads(text: str) -> int:
    """``--threads``: a whole number in ``1..=MAX_THREADS``."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= MAX_THREADS:
        raise argparse.ArgumentTypeError(f"must be a whole number in 1..={MAX_THREADS}, not {text!r}")
    return value


def _did_you_mean(name: str, candidates: list[str], what: str) -> str:
    """``; did you mean 'x'?`` by the core's rule, or the list of ``what``."""
    from .dsl.corerules import suggest

    hint = suggest(name, candidates)
    return f"; did you mean '{hint}'?" if hint else f"; {what} are: {', '.join(candidates) or '(none)'}"


def output_format(fmt: str | None, output: str | None) -> str:
    """The name of the format of ``polydat run``'s rows: ``--format`` when
    given (a name or an alias), else the one the extension of ``-o PATH``
    names (:func:`polydat.dsl.corerules.format_of_extension`), else
    :data:`DEFAULT_FORMAT` for a path without an extension. A ``--format``
    that contradicts the extension is a usage error, and so are, without
    ``--format``, an extension no format has (``.xlsx``) and a ``.json`` file
    (the rows are JSON Lines, not one JSON document)."""
    from .dsl.corerules import format_of_extension

    ext = os.path.splitext(output)[1].lower() if output not in (None, "-") else ""
    implied = format_of_extension(ext)
    if fmt is None:
        if ext == ".json":
            raise UsageError(f"-o {output}: polydat writes JSON Lines, not a JSON document; "
                             "name the file .jsonl (or give --format jsonl)")
        if implied is None and ext:
            from .dsl.corerules import formats

            known = ", ".join(f"{e} ({f.name})" for f in formats() for e in f.extensions)
            raise UsageError(f"-o {output}: no output format writes {ext} files; name the file "
                             f"{known}, or give --format")
        return implied.name if implied is not None else DEFAULT_FORMAT
    given = _format(fmt)
    if implied is not None and implied != given:
        raise UsageError(f"--format {fmt} contradicts -o {output}, a {ext} file ({implied.name}); "
                         "drop --format or rename the file")
    return given.name


def _format(name: str) -> OutputFormat:
    """The output format called ``name`` (a name or an alias, as ``--format``
    takes it)."""
    from .dsl.corerules import format_named, formats

    found = format_named(name)
    if found is None:
        raise UsageError(f"unknown format {name!r}; formats are: {', '.join(f.name for f in formats())}")
    return found


def output_names(prog: Program, spec: str | None) -> list[str]:
    """The columns ``--outputs a,b`` asks for, checked (every output when
    absent): outputs and, as ``generate(outputs=...)`` takes them, inputs."""
    known = list(prog.outputs)
    if spec is None:
        return known
    names = [n.strip() for n in spec.split(",") if n.strip()]
    if not names:
        raise UsageError(f"--outputs {spec!r} names no outputs; outputs are: {', '.join(known)}")
    for i, name in enumerate(names):
        if name not in prog.outputs and name not in prog.inputs:
            hint = _did_you_mean(name, [*known, *prog.inputs], "outputs")
            raise UsageError(f"no output named '{name}'{hint}")
        if name in names[:i]:
            raise UsageError(f"--outputs: '{name}' is listed twice")
    return names


def fixed_inputs(prog: Program, settings: list[str], swept: str | None) -> dict[str, Any]:
    """The ``--set NAME=VALUE`` values, each read as its input's declared type
    (by ``Program.parse_input``); a later ``--set`` of a name wins."""
    values: dict[str, Any] = {}
    for item in settings:
        name, eq, text = item.partition("=")
        name = name.strip()
        if not eq or not name:
            raise UsageError(f"--set {item!r}: expected NAME=VALUE")
        if name == swept:
            raise UsageError(f"--set {item}: '{name}' is the coordinate --cycles sweeps; it cannot be set")
        try:
            values[name] = prog.parse_input(name, text)
        except PolydatError as err:
            raise UsageError(f"--set {item}: {err}") from None
    return values


@dataclass(frozen=True)
class RunPlan:
    """A ``polydat run`` request, checked before any output is opened."""

    prog: Program
    cycles: range
    names: list[str]
    inputs: dict[str, Any]
    column: str | None
    """The coordinate column written before the outputs (None: no such column)."""
    fmt: str
    threads: int
    progress: str


def plan_run(args: argparse.Namespace) -> RunPlan:
    """Compiles the program and checks every argument of ``polydat run``.

    Ends with a zero-row ``generate`` so a run the API refuses (no coordinate,
    an input without a value, ...) fails before anything is written."""
    import polydat

    if args.cycles is None:
        raise UsageError("--cycles is required when running a program (A..B or N)")
    if args.param:
        raise UsageError("-p sets a workload's params; a program's externs are set with --set NAME=VALUE")
    cycles = parse_cycles(args.cycles)
    fmt = output_format(args.format, args.output)
    if fmt == "parquet" and args.output is None:
        raise UsageError("--format parquet needs an output file (-o FILE, or -o - for standard output)")
    prog = compile_reporting(args.file, args.engine, args.lib)
    names = output_names(prog, args.outputs)
    swept = prog.coordinates[0] if prog.coordinates else None
    inputs = fixed_inputs(prog, args.set, swept)
    prog.generate(range(0), outputs=names, inputs=inputs)
    # The swept coordinate is the first column, unless --outputs places it.
    column = None if args.no_coordinate or swept in names else swept
    return RunPlan(prog, cycles, names, inputs, column, fmt, args.threads, args.progress)


def show_diagnostics(diagnostics: Sequence[Any]) -> bool:
    """Prints ``diagnostics`` to stderr, each rendered with its source line;
    True when one of them is an error."""
    for d in diagnostics:
        print(d.render(), file=sys.stderr)
    return any(d.severity == "error" for d in diagnostics)


def compile_reporting(path: str, engine: str, lib: list[str]) -> Program:
    """Compiles the program at ``path`` for ``polydat run``, first showing
    what ``polydat check`` shows for it: its warnings, or, when it does not
    compile, every error and warning of the file (raises :class:`Reported`)."""
    import polydat

    from .dsl.diagnostics import read_source
    from .errors import CompileError

    source = read_source(path)
    try:
        prog = polydat.compile(source, path=path, engine=engine, library_path=lib)
    except CompileError as err:
        if not show_diagnostics(polydat.check(source, path=path, library_path=lib)):
            raise  # an error only this engine reports: the error itself
        raise Reported from None
    show_diagnostics(prog.warnings)
    return prog


def _shows_progress(mode: str) -> bool:
    """A run with progress ``mode`` shows a bar (see :func:`_progress`)."""
    return mode == "always" or (mode == "auto" and sys.stderr.isatty())


def _progress(total: int, mode: str) -> Any:
    """A tqdm bar on stderr: ``always``, ``never``, or ``auto`` (on a terminal,
    once the run has taken ``PROGRESS_DELAY`` seconds)."""
    if not _shows_progress(mode):
        return None
    from tqdm import tqdm

    delay = PROGRESS_DELAY if mode == "auto" else 0.0
    return tqdm(total=total, unit="rows", unit_scale=True, file=sys.stderr, leave=False, delay=delay)


def _segments(cycles: range) -> Iterator[range]:
    """The run's cycles in segments one stream of the core takes (a run may
    have up to 2**64 rows): :func:`polydat.generate.segments`."""
    from .generate import segments

    return segments(cycles)


def _streams(plan: RunPlan, encode: str | None) -> Iterator[Any]:
    """The core's batch stream of each segment of the plan's cycles (see
    :func:`_segments`), opened one after another."""
    from .generate import batch_stream

    for segment in _segments(plan.cycles):
        yield batch_stream(
            plan.prog, plan.prog._core, segment, plan.names, plan.inputs, plan.threads, None, BATCH_ROWS,
            encode=encode, cycles_column=plan.column,
        )


def _batches(plan: RunPlan, encode: str | None) -> Iterator[tuple[int, Any]]:
    """The plan's rows as the core's batch stream gives them, ``(rows, item)``
    per batch (an item is CSV or JSONL text, or an Arrow batch when
    ``encode`` is None), advancing the progress bar. The core generates the
    next batch on ``--threads`` workers while this one is written."""
    cycles = plan.cycles
    bar = _progress(cycles.stop - cycles.start, plan.progress)  # len() overflows past 2**63
    try:
        for segment, stream in zip(_segments(cycles), _streams(plan, encode)):
            left = len(segment)
            try:
                for item in stream:
                    rows = min(BATCH_ROWS, left)
                    left -= rows
                    yield rows, item
                    if bar is not None:
                        bar.update(rows)
            finally:
                stream.close()
    finally:
        if bar is not None:
            bar.close()


def write_rows(plan: RunPlan, out: IO[bytes], header: bool = True) -> int:
    """Streams CSV or JSONL rows (the coordinate column first) to ``out``;
    returns the row count. The core encodes each batch (see
    ``polydat-core``'s ``engine::text`` for the exact text); ``header=False``
    leaves out the CSV header line (a shard after the first)."""
    names = ([plan.column] if plan.column else []) + plan.names
    if header:
        from .generate import text_header

        out.write(text_header(names, plan.fmt))
    if not _shows_progress(plan.progress):
        with appending(out) as path:
            if path is not None:
                return sum(stream.write_text(path) for stream in _streams(plan, plan.fmt))
    total = 0
    for rows, text in _batches(plan, plan.fmt):
        out.write(text)
        total += rows
    return total


def write_parquet(plan: RunPlan, out: IO[bytes]) -> int:
    """Writes the rows as Parquet with pyarrow's writer (the ``parquet``
    extra), a row group per batch, typed by the declared types (a run of no
    rows is a file with the schema and no row). The writer only appends, so
    ``out`` may be a pipe; a terminal is refused."""
    try:
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        raise UsageError("--format parquet needs pyarrow: pip install pyarrow") from None
    if out.isatty():
        raise UsageError("refusing to write Parquet to a terminal; redirect it or use -o FILE")
    encode = parquet_encoding()
    batches = ((batch, rows) for rows, batch in _batches(plan, encode))
    return write_parquet_batches(out, batches, lambda: _declared_schema(plan, encode))


def _declared_schema(plan: RunPlan, encode: str) -> Any:
    """The schema of the plan's batches in ``encode``, as the core declares
    it (for ``"parquet"``, the fields no row can hold ``None`` in required),
    from a stream of no row: what a file of no row (an empty part) is
    written with, so it reads back as the other parts do."""
    import pyarrow as pa

    from .generate import batch_stream

    start = plan.cycles.start
    stream = batch_stream(
        plan.prog, plan.prog._core, range(start, start), plan.names, plan.inputs, 1, None, BATCH_ROWS,
        encode=encode, cycles_column=plan.column,
    )
    try:
        return pa.schema(stream.schema)
    finally:
        stream.close()


def _umask() -> int:
    """The process umask (read by setting it and putting it back)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _standard_stream(st: os.stat_result) -> IO[str] | None:
    """Our stdout or stderr when ``st`` is the file it is open on (``-o
    /dev/stdout``, ``-o /proc/self/fd/1``, ``-o out.csv >> out.csv``), else None."""
    for stream in (sys.stdout, sys.stderr):
        try:
            here = os.fstat(stream.fileno())
        except (AttributeError, OSError, ValueError):
            continue
        if (here.st_dev, here.st_ino) == (st.st_dev, st.st_ino):
            return stream
    return None


@dataclass(frozen=True)
class OutputTarget:
    """Where ``-o PATH`` sends the rows (decided by :func:`output_target`)."""

    path: str
    """The file to write, or to rename the temporary file over (symlinks resolved)."""
    how: str
    """``"stdio"``: ``stream``, one of our own; ``"direct"``: open ``path`` and
    write it as a stream; ``"new"`` or ``"replace"``: a temporary file beside
    ``path``, renamed over it on success."""
    existing: os.stat_result | None = None
    """What ``"replace"`` replaces: its mode and owner are kept."""
    stream: IO[str] | None = None


def output_target(path: str | None) -> OutputTarget:
    """Decides how the rows reach ``-o PATH``:

    * no ``-o``, or ``-o -``: standard output (also when PATH is the file our
      stdout or stderr is already open on, e.g. ``/dev/stdout``);
    * PATH does not exist: a new file, created under a temporary name beside it;
    * PATH is a regular file, or a symlink to one: the resolved target is
      replaced atomically and keeps its mode and owner (the link stays);
    * anything else that exists (device, FIFO, socket): written directly;
    * a directory: a usage error."""
    if path is None or path == "-":
        return OutputTarget("-", "stdio", stream=sys.stdout)
    if not path:
        raise UsageError("-o needs a path ('-' for standard output)")
    try:
        st = os.stat(path)
    except FileNotFoundError:
        if path.endswith(os.sep):
            raise UsageError(f"-o {path}: no such directory") from None
        return OutputTarget(os.path.realpath(path), "new")
    if stat.S_ISDIR(st.st_mode):
        raise UsageError(f"-o {path}: is a directory")
    own = _standard_stream(st)
    if own is not None:
        return OutputTarget(path, "stdio", stream=own)
    if stat.S_ISREG(st.st_mode):
        target = os.path.realpath(path)
        resolved = os.stat(target)
        if (resolved.st_dev, resolved.st_ino) == (st.st_dev, st.st_ino):
            return OutputTarget(target, "replace", existing=st)
        # else a link that names no path (/proc/PID/fd/N of a deleted file): write through it
    return OutputTarget(path, "direct")


def _publish(tmp: str, target: OutputTarget) -> None:
    """Renames the finished temporary file over ``target.path``. It gets the
    mode and owner of the file it replaces, or the permissions of a plainly
    created file (``0666 & ~umask``; ``mkstemp`` makes its files private)."""
    existing = target.existing
    if existing is None:
        mode = 0o666 & ~_umask()
    else:
        mode = stat.S_IMODE(existing.st_mode)
        if hasattr(os, "chown"):  # POSIX
            with contextlib.suppress(PermissionError):  # not root: the rewritten file is ours
                os.chown(tmp, existing.st_uid, existing.st_gid)
    os.chmod(tmp, mode)
    os.replace(tmp, target.path)


_PUBLISH_SIGNALS = {getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n)}
"""Signals held back while finished files are renamed into place."""


@contextlib.contextmanager
def publishing_together() -> Iterator[list[tuple[str, OutputTarget]]]:
    """Several outputs published as one (a program's ``--parts``, a
    workload's tables and their parts): :func:`open_output` given the list
    this yields leaves each finished temporary file in it, and only when the
    ``with`` block succeeds are they all renamed into place, with Ctrl-C,
    SIGTERM and SIGHUP held back meanwhile (a signal that arrives then acts
    once every file is in place). On any failure every temporary file is
    removed: the old files all stay, or the new ones all replace them."""
    pending: list[tuple[str, OutputTarget]] = []
    try:
        yield pending
        blocking = hasattr(signal, "pthread_sigmask") and threading.current_thread() is threading.main_thread()
        held = signal.pthread_sigmask(signal.SIG_BLOCK, _PUBLISH_SIGNALS) if blocking else None
        try:
            while pending:
                _publish(*pending[0])
                pending.pop(0)
        finally:
            if held is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, held)
    finally:
        for tmp, _ in pending:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)


@contextlib.contextmanager
def open_output(path: str | None, together: list[tuple[str, OutputTarget]] | None = None) -> Iterator[IO[bytes]]:
    """A binary stream to ``-o PATH``, opened as :func:`output_target` decides
    and published when the ``with`` block succeeds (with ``together``, the
    list of :func:`publishing_together`, when that block does). On any
    failure, ``KeyboardInterrupt`` and :class:`Terminated` included, the
    temporary file is removed and an existing file is left as it was."""
    target = output_target(path)
    if target.stream is not None:
        target.stream.flush()
        yield target.stream.buffer  # type: ignore[attr-defined]
        target.stream.buffer.flush()  # type: ignore[attr-defined]
        return
    if target.how == "direct":
        try:
            with open(target.path, "wb") as f:
                yield f
        except BrokenPipeError:
            raise OutputClosed(target.path) from None
        except OSError as err:
            raise RunFailed(f"-o {_system_error(err, target.path)}") from None
        return
    directory = os.path.dirname(target.path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target.path)}.", suffix=".partial", dir=directory)
    except OSError as err:
        raise RunFailed(f"-o {path}: cannot create a file in {directory}: {err.strerror}") from None
    try:
        try:
            with os.fdopen(fd, "wb") as f:
                f.raw.name = tmp  # type: ignore[attr-defined]  # the file's path (the core may append to it)
                yield f
                f.flush()
                os.fsync(f.fileno())
        except OSError as err:
            raise RunFailed(f"-o {_system_error(err, target.path)}") from None
        if together is None:
            _publish(tmp, target)
        else:
            together.append((tmp, target))
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_arrow(plan: RunPlan, out: IO[bytes]) -> int:
    """Writes the rows as an Arrow IPC stream (pyarrow's writer), a record
    batch per batch, typed by the declared types (a run of no rows is a
    stream with the schema and no batch): readable as it is written, so a
    shell pipeline can feed it to other tools. A terminal is refused."""
    try:
        import pyarrow as pa
    except ImportError:
        raise UsageError("--format arrow needs pyarrow: pip install 'polydat[arrow]'") from None
    if out.isatty():
        raise UsageError("refusing to write Arrow to a terminal; redirect it or use -o FILE")

    def schema() -> Any:
        declared = plan.prog.arrow_schema(plan.names)
        return declared.insert(0, pa.field(plan.column, pa.uint64())) if plan.column else declared

    return write_arrow_batches(out, ((batch, rows) for rows, batch in _batches(plan, None)), schema, declared=True)


BINARY_WRITERS: dict[str, Callable[[RunPlan, IO[bytes]], int]] = {
    "parquet": write_parquet,
    "arrow_ipc": write_arrow,
}
"""The writer of each binary format, by its writer's name in the core's
registry (:attr:`polydat.dsl.corerules.OutputFormat.writer`); text formats are the core's own
(:func:`write_rows`)."""


def _write(plan: RunPlan, output: str | None, together: list[tuple[str, OutputTarget]] | None = None) -> None:
    """Writes ``plan``'s rows to ``output`` (see :func:`open_output`, with
    ``together`` the list of :func:`publishing_together` when the file is
    published with others); a CSV starts with its header."""
    fmt = _format(plan.fmt)
    with open_output(output, together) as out:
        if fmt.binary:
            BINARY_WRITERS[fmt.writer](plan, out)
        else:
            write_rows(plan, out, header=True)


def chosen_parts(args: argparse.Namespace, cut: str) -> list[int] | None:
    """The parts ``--parts N`` / ``--part I`` ask for, each counted from 0
    (``--part`` is counted as ``--layout`` numbers parts): every part, the
    one named, or None for the whole run. ``cut`` says what the parts
    are cut from, for the message of a ``--part`` without ``--parts``."""
    layout = LAYOUTS[args.layout]
    if args.parts is None:
        if args.part is not None:
            raise UsageError(f"--part needs --parts N (the number of parts {cut} cut into)")
        return None
    if args.part is None:
        return list(range(args.parts))
    problem = part_number_problem(args.part, args.parts, layout)
    if problem is not None:
        raise UsageError(problem)
    return [args.part - layout.first]


@contextlib.contextmanager
def making_directories(paths: Sequence[str]) -> Iterator[None]:
    """Creates the missing directories that hold ``paths`` (a table's
    directory in tpchgen-cli's layout, ``-o DIR`` itself) and, when the
    ``with`` block fails, removes those it created that are still empty:
    never a file or a directory that was not ours."""
    created: list[str] = []
    try:
        for path in paths:
            missing = _missing_directories(path)
            try:
                os.makedirs(path, exist_ok=True)
            except OSError as err:
                raise RunFailed(f"-o {path}: cannot create the directory: {err.strerror}") from None
            created[:0] = missing
        yield
    except BaseException:  # Ctrl-C, a signal, an error: nothing was published
        for directory in created:
            with contextlib.suppress(OSError):
                os.rmdir(directory)  # only when empty
        raise


def is_workload(path: str) -> bool:
    """A workload file (YAML) rather than a program."""
    return path.endswith((".yaml", ".yml"))


def cmd_run_workload(args: argparse.Namespace) -> int:
    """``polydat run WORKLOAD.yaml``: every phase's table, one file per phase
    (``-o DIR/PHASE.FORMAT``), or one phase's to stdout. With ``--parts N``,
    each table is cut into N parts (by its outermost iteration tuples, or
    its cycles), each a file named as ``--layout`` says
    (``DIR/PHASE-IIIII-of-NNNNN.FORMAT``, or tpchgen-cli's
    ``DIR/PHASE/PHASE.I.FORMAT``; only ``--part I`` when given). Every CSV
    part has the header and every Parquet part the table's schema, so a
    reader takes the glob of a table's parts as one table."""
    from .workload import Workload

    for flag, given in (
        ("--cycles", args.cycles is not None),
        ("--outputs", args.outputs is not None),
        ("--set", bool(args.set)),
        ("--no-coordinate", args.no_coordinate),
    ):
        if given:
            raise UsageError(f"{flag} does not apply to a workload (its phases say their cycles and columns)")
    workload = Workload.load(args.file)
    overrides = {}
    for item in args.param:
        name, eq, text = item.partition("=")
        name = name.strip()
        if not eq or not name:
            raise UsageError(f"-p {item!r}: expected NAME=VALUE")
        try:
            overrides[name] = workload.parse_param(name, text)
        except PolydatError as err:
            raise UsageError(f"-p {item}: {err}") from None
    workload = workload.with_params(**overrides)
    workload.engine = args.engine
    if args.lib:
        raise UsageError("--lib does not apply to a workload: modules are found beside the workload file")
    if show_diagnostics(workload.check()):  # what `polydat check` shows, before any row
        raise Reported
    fmt = _format(args.format or DEFAULT_FORMAT)
    layout = LAYOUTS[args.layout]
    chosen = chosen_parts(args, "each table is")
    parts: list[int | None] = [None] if chosen is None else list(chosen)
    if args.output is None or args.output == "-":
        if len(parts) > 1:
            raise UsageError("--parts without --part writes one file per part: give -o DIR (or choose a --part)")
        if len(workload.phases) > 1:
            raise UsageError(
                f"the workload has {len(workload.phases)} phases, one table each: give -o DIR "
                "(files DIR/PHASE.FORMAT)"
            )
        out = sys.stdout.buffer
        if fmt.binary and out.isatty():
            raise UsageError(f"refusing to write {fmt.name.title()} to a terminal; redirect it or use -o DIR")
        sys.stdout.flush()
        part = None if parts[0] is None else (parts[0], args.parts)
        workload.write(workload.phases[0], out, fmt.name, args.threads, part=part)
        out.flush()
        return 0
    if os.path.exists(args.output) and not os.path.isdir(args.output):
        raise UsageError(f"-o {args.output}: a workload writes one file per phase; -o names a directory")
    targets = [
        (phase, i, path if i is None else part_path(path, i, args.parts, layout))
        for phase in workload.phases
        for path in [os.path.join(args.output, phase.name + fmt.extensions[0])]
        for i in parts
    ]
    # Every table is written before any replaces an old one: an interrupted
    # run leaves the old tables, never a mix of old and new.
    with making_directories([args.output, *dict.fromkeys(os.path.dirname(t) for _, _, t in targets)]):
        with publishing_together() as together:
            for phase, i, target in targets:
                with open_output(target, together) as out:
                    workload.write(phase, out, fmt.name, args.threads, part=None if i is None else (i, args.parts))
    return 0


def _missing_directories(path: str) -> list[str]:
    """The directories ``os.makedirs(path)`` would create, deepest first."""
    missing = []
    path = os.path.abspath(path)
    while not os.path.exists(path):
        missing.append(path)
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    return missing


def cmd_run(args: argparse.Namespace) -> int:
    """``polydat run``: generate rows to stdout or to ``-o PATH`` (see
    :func:`open_output`); with ``--parts N``, the ``--part I`` of N contiguous
    ranges of the cycles to ``-o PATH`` (every part, one after another, when
    ``--part`` is not given, each to its own file named as ``--layout`` says:
    :func:`polydat.parts.part_path`). Every CSV part has the header, so the
    parts read as one dataset. A workload file (YAML) runs every phase
    instead (:func:`cmd_run_workload`)."""
    if is_workload(args.file):
        return cmd_run_workload(args)
    plan = plan_run(args)
    layout = LAYOUTS[args.layout]
    parts = chosen_parts(args, "the cycles are")
    if parts is None:
        _write(plan, args.output)
        return 0
    to_file = args.output not in (None, "-")
    every = args.part is None
    if every and not to_file:
        raise UsageError("--parts without --part writes one file per part: give -o PATH (or choose a --part)")
    # Every part to its own file; one part (--part I) to exactly -o PATH.
    targets = [(part, part_path(args.output, part, args.parts, layout) if every else args.output) for part in parts]
    directories = dict.fromkeys(os.path.dirname(t) for _, t in targets if every)
    # Every part is written before any replaces an old one (as a workload's
    # tables are): a failed or interrupted run leaves the old parts, never a
    # mix of old and new.
    with making_directories([d for d in directories if d]):
        with publishing_together() as together:
            for part, output in targets:
                shard = dataclasses.replace(plan, cycles=part_range(plan.cycles, args.parts, part))
                _write(shard, output, together=together)
    return 0


def parse_parts(text: str) -> int:
    """``--parts``: a whole number of parts, at least 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of parts, at least 1, not {text!r}")
    return value


def parse_part(text: str) -> int:
    """``--part``: a whole number, not negative (whether it names a part
    depends on ``--parts`` and ``--layout``: :func:`chosen_parts`)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a part number (a whole number), not {text!r}")
    return value


def cmd_check(args: argparse.Namespace) -> int:
    """``polydat check``: print diagnostics; 1 when any file has an error."""
    import polydat

    from .dsl.diagnostics import read_source

    status = 0
    for path in args.files:
        if is_workload(path):
            diagnostics = _check_workload(path, args.lib)
        else:
            try:
                source = read_source(path)
            except PolydatError as err:  # not UTF-8 text
                print(str(err), file=sys.stderr)
                status = 1
                continue
            diagnostics = polydat.check(source, path=path, library_path=args.lib)
        if show_diagnostics(diagnostics):
            status = 1
        else:
            print(f"{path}: ok")
    return status


def cmd_fmt(args: argparse.Namespace) -> int:
    """``polydat fmt``: rewrite programs in the canonical layout
    (:mod:`polydat.dsl.formatter`), each replaced atomically and only when it
    changes; ``-`` formats standard input to standard output. With
    ``--check`` nothing is written: the files that would change are listed
    and the status is 1. A file that does not parse is left as it is, its
    diagnostics printed, and the status is 1."""
    from .dsl.diagnostics import read_source
    from .dsl.formatter import format_source

    status = 0
    for path in args.files:
        if is_workload(path):
            print(f"polydat: {path}: fmt formats programs (.polydat), not workloads", file=sys.stderr)
            status = 1
            continue
        try:
            source = sys.stdin.read() if path == "-" else read_source(path)
            formatted = format_source(source, "<stdin>" if path == "-" else path)
        except PolydatError as err:
            print(str(err), file=sys.stderr)
            status = 1
            continue
        except OSError as err:
            print(f"polydat: {_system_error(err, path)}", file=sys.stderr)
            status = 1
            continue
        if args.check:
            if formatted != source:
                print(path)
                status = 1
        elif path == "-":
            sys.stdout.write(formatted)
        elif formatted != source:
            with open_output(path) as out:
                out.write(formatted.encode("utf-8"))
    return status


def _check_workload(path: str, lib: list[str]) -> list[Any]:
    """Every diagnostic of a workload file (:meth:`Workload.check`)."""
    from .workload.model import Workload, WorkloadError, error_diagnostics

    if lib:
        raise UsageError("--lib does not apply to a workload: modules are found beside the workload file")
    try:
        return Workload.load(path).check()
    except WorkloadError as err:
        return error_diagnostics(err)


def cmd_explain(args: argparse.Namespace) -> int:
    """``polydat explain``: what the compiler did, or the graph as DOT (for a
    workload, of each of its scopes)."""
    import polydat

    if is_workload(args.file):
        from .workload import Workload

        if args.lib:
            raise UsageError("--lib does not apply to a workload: modules are found beside the workload file")
        workload = Workload.load(args.file)
        workload.engine = args.engine
        programs = [p for _label, p in workload.programs()] if args.dot else []
    else:
        programs = [polydat.compile_file(args.file, engine=args.engine, library_path=args.lib)]
    if args.dot:
        from .explain import to_dot

        print("\n".join(to_dot(prog) for prog in programs))
    elif is_workload(args.file):
        print(workload.explain())
    else:
        print(programs[0].explain())
    return 0


_NATIVE_MARK = {True: "native", False: "helper"}
"""How `polydat nodes` shows whether a node has a native form (the core's answer)."""


def cmd_nodes(args: argparse.Namespace) -> int:
    """``polydat nodes``: the catalog, or one node's signature and doc."""
    import polydat

    nodes = [n for n in polydat.catalog() if not n["name"].startswith("__")]
    if args.search is not None:
        if args.name is not None:
            raise UsageError("give a node NAME or --search WORD, not both")
        nodes = [n for n in nodes if _node_matches(n, args.search)]
        if not nodes:
            raise UsageError(f"no node mentions '{args.search}'{_fields_hint(args.search)}")
    if args.name is None:
        if args.json:
            print(json.dumps(nodes, indent=1))
            return 0
        width = max(len(n["name"]) for n in nodes)
        category = None
        for n in sorted(nodes, key=lambda n: (n["category"], n["name"])):
            if n["category"] != category:
                category = n["category"]
                print(f"\n{category}:")
            print(f"  {n['name']:<{width}}  {_NATIVE_MARK[n['native']]}  {n['doc']}")
        native = sum(1 for n in nodes if n["native"])
        print(f"\n{len(nodes)} nodes ({native} native: compiled into machine code; helper: the native tier "
              "calls the node's rule); `polydat nodes NAME` shows a signature.")
        if args.search is not None:
            hint = _fields_hint(args.search).removeprefix("; ")
            print(hint[:1].upper() + hint[1:] if hint else "No field module mentions it.")
        return 0
    by_name = {n["name"]: n for n in nodes}
    for n in nodes:
        for alias in n["aliases"]:
            by_name.setdefault(alias, n)
    node = by_name.get(args.name)
    if node is None:
        from .fields import field, licences

        found = field(args.name)
        if found is not None:
            print(f"'{args.name}' is a bundled field module, not a node (`polydat fields` lists them):")
            print(found.render(licences()))
            return 0
        close = _suggest_node_or_field(args.name, list(by_name))
        hint = f"; did you mean '{close}'?" if close else "; `polydat nodes` lists them, `polydat nodes --search WORD` finds them"
        raise UsageError(f"no node named '{args.name}'{hint}")
    if args.json:
        print(json.dumps(node, indent=1))
        return 0
    print(node["signature"])
    print(f"  {node['doc']}")
    print(f"  category: {node['category']}   purity: {node['purity']}   engine: {_NATIVE_MARK[node['native']]}")
    if node["aliases"]:
        print(f"  aliases: {', '.join(node['aliases'])}")
    return 0


def _node_matches(node: dict[str, Any], keyword: str) -> bool:
    """Whether ``keyword`` (any case) is in a catalog node's name, aliases or doc."""
    word = keyword.lower()
    return any(word in text.lower() for text in (node["name"], node["doc"], *node["aliases"]))


def _fields_hint(keyword: str) -> str:
    """``; field modules mentioning it: a, b`` for the bundled modules
    :func:`polydat.fields.search` finds for ``keyword``, or nothing."""
    from .fields import search

    found = [f.name for f in search(keyword)]
    return f"; field modules mentioning it: {', '.join(found)} (`polydat fields --search {keyword}`)" if found else ""


def _suggest_node_or_field(name: str, node_names: list[str]) -> str | None:
    """The core's "did you mean" for ``name`` over the nodes and the bundled
    modules together (a program calls either by name)."""
    from .dsl.corerules import suggest
    from .dsl.modules import bundled_module_names

    return suggest(name, [*node_names, *bundled_module_names()], callee=True)


def cmd_fields(args: argparse.Namespace) -> int:
    """``polydat fields``: the bundled modules, one of them, or those a keyword finds."""
    import polydat
    from .fields import field, fields, licences, search

    known = licences()
    if args.name is not None:
        if args.search is not None:
            raise UsageError("give a module NAME or --search WORD, not both")
        found = field(args.name)
        if found is None:
            nodes = [n["name"] for n in polydat.catalog() if not n["name"].startswith("__")]
            if args.name in nodes:
                raise UsageError(f"'{args.name}' is a node, not a field module: `polydat nodes {args.name}` describes it")
            close = _suggest_node_or_field(args.name, nodes)
            hint = f"; did you mean '{close}'?" if close else "; `polydat fields` lists them"
            raise UsageError(f"no field module named '{args.name}'{hint}")
        print(found.render(known))
        print(f"    defined in {found.file}")
        return 0
    listed = fields() if args.search is None else search(args.search)
    if not listed:
        raise UsageError(f"no field module mentions '{args.search}'; `polydat nodes --search {args.search}` searches the nodes")
    print("\n\n".join(f.render(known) for f in listed))
    keyed = sum(1 for f in listed if f.is_keyed)
    print(f"\n{len(listed)} modules: {keyed} fields of a key alone (`email(user_id)`), {len(listed) - keyed} taking "
          "more parameters; `polydat data` lists the data files.")
    return 0


def cmd_data(args: argparse.Namespace) -> int:
    """``polydat data``: the bundled data files with their sources and licences, or one file's text."""
    from .fields import DATA_DIR, data_files

    files = data_files()
    if args.file is not None:
        by_name = {f["name"]: f for f in files}
        by_name.update({f["name"].removesuffix(".csv"): f for f in files})
        found = by_name.get(args.file)
        if found is None:
            raise UsageError(f"no data file named '{args.file}'; `polydat data` lists them")
        path = os.path.join(DATA_DIR, found["name"])
        with open(path, encoding="utf-8") as handle:
            sys.stdout.write(handle.read())
        return 0
    for f in files:
        print(f"{f['name']}  ({f['entries']} entries: {', '.join(f['columns'])})")
        print(f"    {f['about']}")
        print(f"    source: {f['source']}")
        print(f"    licence: {f['licence']}")
        print(f"    nodes: {', '.join(f['nodes'])}")
    print(f"\n{len(files)} files, embedded in the core and shipped in {DATA_DIR} (README.md: their provenance).")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    """``polydat bench``: time scenario files, per engine and provenance mode."""
    from .bench import ScenarioError, main

    if args.iters < 1 or args.cycles < 1:
        raise UsageError("--iters and --cycles must be at least 1")
    try:
        return main(
            args.files,
            engine=args.engine,
            compare_modes=args.compare_modes,
            cycles=args.cycles,
            iters=args.iters,
            as_json=args.json,
            library_path=args.lib,
        )
    except ScenarioError as err:
        raise UsageError(str(err)) from None


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, like every usage error."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"polydat: {message} (see '{self.prog} --help')\n")


def _engine_help() -> str:
    """``--engine``'s help: the engines the compiled core has."""
    from .program import engine_names

    return (
        "the engine that runs the program: auto (the default: chosen per program), or one of "
        f"{', '.join(engine_names())}; p2 and p3 alone take their default mode. Every engine gives the same rows"
    )


def format_choices() -> list[str]:
    """What ``--format`` accepts: every format's name and aliases, in the
    core's registry's order."""
    from .dsl.corerules import formats

    return [name for f in formats() for name in (f.name, *f.aliases)]


def _format_help() -> str:
    """``--format``'s help: the formats and extensions of the core's registry."""
    from .dsl.corerules import formats

    described = ", ".join(f"{f.name} ({f.about})" for f in formats())
    binary = ", ".join(f.name for f in formats() if f.binary)
    extensions = " ".join(ext for f in formats() for ext in f.extensions)
    return (
        f"the rows' format: {described}; binary ones ({binary}) go to a file or -o -, never a terminal; "
        f"default: the one -o PATH's extension names ({extensions}), else {DEFAULT_FORMAT}; a --format that "
        "contradicts the extension is refused"
    )


LIB_HELP = "a directory to look modules up in, after the file's own directory (repeatable)"
"""``--lib``'s help, the same for every subcommand that compiles."""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    from . import __version__

    parser = _Parser(prog="polydat", description="Deterministic procedural data.")
    parser.add_argument("--version", action="version", version=f"polydat {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser(
        "run",
        help="generate rows from a program, or every table of a workload (.yaml)",
        description="Generate rows from a program, or every table of a workload (.yaml). The file's diagnostics "
        "(what `polydat check` prints) go to stderr first; a file with an error writes nothing.",
    )
    run.add_argument("file", help="a program (.polydat) or a workload (.yaml / .yml)")
    run.add_argument(
        "--cycles",
        help="A..B (B exclusive, at most 2**64) or N; K/M/G/Ki/Mi/Gi suffixes, decimals and exponents "
        "allowed when whole (1.5M, 1e6; programs only: a workload's phases say their cycles)",
    )
    run.add_argument(
        "-p",
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="override a workload param (read as the kind of its value in the file; repeatable)",
    )
    run.add_argument(
        "--outputs", help="comma-separated output (or input) names, the columns in that order (default: every output)"
    )
    run.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="fix an extern, or a coordinate --cycles does not sweep, for the whole run; "
        "VALUE is read as the input's declared type (repeatable; the last one wins)",
    )
    run.add_argument("--format", choices=format_choices(), help=_format_help())
    run.add_argument(
        "-o",
        "--output",
        metavar="PATH",
        help="write to PATH instead of stdout ('-': stdout, Parquet included). A new or regular file is "
        "written under a temporary name and renamed into place on success, keeping an existing file's "
        "mode and owner (through a symlink, its target); a device or FIFO is written directly. "
        "For a workload, PATH is a directory: one file PHASE.FORMAT per phase",
    )
    engine_help = _engine_help()
    run.add_argument("--engine", default="auto", help=engine_help)
    run.add_argument(
        "--threads",
        type=parse_threads,
        default=1,
        metavar="N",
        help=f"worker threads, 1..{MAX_THREADS} (default 1; the rows are the same for every N)",
    )
    run.add_argument("--no-coordinate", action="store_true", help="omit the coordinate column")
    run.add_argument(
        "--parts",
        type=parse_parts,
        metavar="N",
        help="cut the cycles (a workload: each table) into N contiguous parts (sharding); without --part, "
        "every part to its own file named as --layout says, renamed into place together once all are "
        "written; every CSV part has the header, so a reader takes the parts' glob as one table",
    )
    run.add_argument(
        "--part",
        type=parse_part,
        metavar="I",
        help="write only part I of --parts N (from 0; from 1 under --layout tpchgen): a program's to -o PATH "
        "as named, a workload's to the file the layout names",
    )
    run.add_argument(
        "--layout",
        choices=list(LAYOUTS),
        default=SUFFIXED.name,
        help="how --parts names its files: suffixed (default) PATH-IIIII-of-NNNNN.EXT, parts from 0; tpchgen "
        "tpchgen-cli's PATH/NAME.I.EXT (a workload: DIR/TABLE/TABLE.I.EXT), parts and --part from 1",
    )
    run.add_argument(
        "--progress",
        choices=["auto", "always", "never"],
        default="auto",
        help="progress bar on stderr (auto: on a terminal, once the run has taken a second)",
    )
    run.add_argument("--lib", action="append", default=[], help=LIB_HELP)
    run.set_defaults(func=cmd_run)

    check = sub.add_parser("check", help="print diagnostics of programs or workloads (.yaml); exit 1 on error")
    check.add_argument("files", nargs="+", help="programs (.polydat) or workloads (.yaml / .yml) to check")
    check.add_argument("--lib", action="append", default=[], help=LIB_HELP)
    check.set_defaults(func=cmd_check)

    fmt = sub.add_parser(
        "fmt",
        help="rewrite programs in the canonical layout (in place); --check lists the files that would change",
        description="Rewrites each program in the one layout of docs/language/formatting.md, in place and "
        "atomically (a file that would not change is not touched). Comments and /// docs are kept; the "
        "program means what it meant. A file that does not parse is left as it is and its errors printed.",
    )
    fmt.add_argument("files", nargs="+", help="programs (.polydat) to format; '-' reads standard input and "
                     "writes the formatted text to standard output")
    fmt.add_argument("--check", action="store_true",
                     help="write nothing: list the files that would change and exit 1 if there are any")
    fmt.set_defaults(func=cmd_fmt)

    explain = sub.add_parser("explain", help="show what the compiler did (for a workload, with each scope)")
    explain.add_argument("file", help="a program (.polydat) or a workload (.yaml / .yml)")
    explain.add_argument("--engine", default="auto", help=engine_help)
    explain.add_argument("--dot", action="store_true", help="emit Graphviz DOT of the resolved graph")
    explain.add_argument("--lib", action="append", default=[], help=LIB_HELP)
    explain.set_defaults(func=cmd_explain)

    nodes = sub.add_parser("nodes", help="list the node catalog, describe one node, or search it (--search WORD)")
    nodes.add_argument("name", nargs="?", help="one node (or alias) to describe; without it, every node")
    nodes.add_argument("--search", "-s", metavar="WORD",
                       help="list only the nodes whose name, aliases or doc mention WORD (any case)")
    nodes.add_argument("--json", action="store_true",
                       help="print the catalog (or the node) as JSON: name, params, outputs, category, doc, native")
    nodes.set_defaults(func=cmd_nodes)

    fields = sub.add_parser(
        "fields", help="list the bundled modules (email, full_name, iban, bounded_normal_int, ...), or search them")
    fields.add_argument("name", nargs="?", help="one module to describe (e.g. email); without it, every module")
    fields.add_argument("--search", "-s", metavar="WORD",
                        help="list only the modules whose name or doc mention WORD (any case)")
    fields.set_defaults(func=cmd_fields)

    data = sub.add_parser("data", help="list the bundled data files with their sources and licences, or print one")
    data.add_argument("file", nargs="?", help="one data file to print (e.g. countries); without it, every file")
    data.set_defaults(func=cmd_data)

    bench = sub.add_parser("bench", help="time performance scenario files (driver cost subtracted)")
    bench.add_argument("files", nargs="+", metavar="FILE", help="scenario files (.polydat), e.g. benches/scenarios/*.polydat")
    bench.add_argument("--compare-modes", action="store_true", help="raw/push/pull/pushpull side by side per engine")
    from .bench import ENGINE_MODES

    bench.add_argument(
        "--engine", choices=list(ENGINE_MODES), help="measure only this engine family (default: every one)"
    )
    bench.add_argument("--cycles", type=parse_count, default=100_000, help="cycles per timed iteration (default 100000)")
    bench.add_argument("--iters", type=int, default=5, help="timed iterations (default 5)")
    bench.add_argument("--json", action="store_true", help="print the measurements as JSON")
    bench.add_argument("--lib", action="append", default=[], help=LIB_HELP)
    bench.set_defaults(func=cmd_bench)
    return parser


@contextlib.contextmanager
def _termination_raises() -> Iterator[None]:
    """While active, SIGTERM and SIGHUP raise :class:`Terminated`, as SIGINT
    raises ``KeyboardInterrupt``, so cleanup handlers remove temporary files.
    Only signals left at their default are taken (under ``nohup`` SIGHUP stays
    ignored), only in the main thread (the one Python runs handlers in), and
    the previous handlers come back at the end. A second signal of the same
    kind ends the process at once."""

    def handler(signum: int, _frame: Any) -> None:
        signal.signal(signum, signal.SIG_DFL)
        raise Terminated(signum)

    previous = {}
    if threading.current_thread() is threading.main_thread():
        for name in ("SIGTERM", "SIGHUP"):
            signum = getattr(signal, name, None)
            if signum is not None and signal.getsignal(signum) == signal.SIG_DFL:
                previous[signum] = signal.signal(signum, handler)
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)


def _silence_stdout() -> None:
    """Points fd 1 at /dev/null so the interpreter's final flush of a closed
    pipe (``| head``) does not print a second error."""
    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``polydat`` console script (and ``python -m polydat``)."""
    # The command line does no linear algebra: the BLAS threads numpy starts
    # when it is first imported (pyarrow imports it) would only spin, about
    # 0.06 s of CPU per run on two cores. A value the user set stands.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    with _termination_raises():
        return _run_command(argv)


def _run_command(argv: Sequence[str] | None) -> int:
    """Parses and runs one command; every failure becomes a message on stderr
    and an exit status (see the module doc)."""
    try:
        args = build_parser().parse_args(argv)
        return int(args.func(args))
    except PolydatError as err:
        print(str(err), file=sys.stderr)
        return 1
    except UsageError as err:
        print(f"polydat: {err}", file=sys.stderr)
        return 2
    except OutputClosed as err:
        print(f"polydat: -o {err.path}: the reader closed it before the end of the rows", file=sys.stderr)
        return BROKEN_PIPE_EXIT
    except BrokenPipeError:  # `| head`: quietly, as `cat` or `yes` killed by SIGPIPE
        _silence_stdout()
        return BROKEN_PIPE_EXIT
    except RunFailed as err:
        print(f"polydat: {err}", file=sys.stderr)
        return 1
    except Reported:
        return 1
    except OSError as err:  # a file the system will not read or write
        print(f"polydat: {_system_error(err)}", file=sys.stderr)
        return 1
    except UnicodeDecodeError as err:  # a file read as text that is not UTF-8
        print(f"polydat: not UTF-8 text: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("polydat: interrupted", file=sys.stderr)
        return 130
    except Terminated as err:
        print(f"polydat: stopped by {signal.Signals(err.signum).name}", file=sys.stderr)
        return 128 + err.signum


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
