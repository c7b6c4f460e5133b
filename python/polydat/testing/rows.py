"""One row of a program: reading it, naming it, asserting it.

A row is what :meth:`polydat.Program.generate` gives at one cycle, as a dict
of plain Python values (``column.tolist()``: ``int``, ``float``, ``str``,
``datetime.date``, ``None`` for an absent value, ...). When a row is not what
a test expected, the failure names everything needed to see that row again:
the program's content hash (:func:`content_hash`), the cycle, and the exact
``polydat run`` command that prints it (:func:`reproduce_command`)::

    from polydat.testing import assert_row, assert_rows_equal

    prog = polydat.compile_file("examples/users.polydat")
    assert_row(prog, 5, {"bucket": 26, "label": "user-358618"})

    # the same rows from two programs (two engines, two versions of a file)
    assert_rows_equal(polydat.compile_file(path, engine="p3"), polydat.compile_file(path, engine="p1"), range(1000))

Values compare as the engines owe each other (:mod:`polydat.testing.canon`):
a float by its bits (``NaN`` equals ``NaN``, ``-0.0`` is not ``0.0``), an
``int`` is not a ``bool``; other values (dates, decimals, ...) by ``==``.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import tempfile
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import ArgumentError
from .canon import Outcome, canonical

if TYPE_CHECKING:
    from ..program import Program

__all__ = [
    "assert_row",
    "assert_rows_equal",
    "content_hash",
    "reproduce_command",
    "row_at",
    "rows_at",
    "same_value",
]


def content_hash(program: Program) -> str:
    """The SHA-256 (hex) of ``program``'s source text, UTF-8: for a program
    read from a file with ``\\n`` line ends, what ``sha256sum FILE`` prints."""
    return hashlib.sha256(program.source.encode("utf-8")).hexdigest()


def swept_coordinate(program: Program, coordinate: str | None = None) -> str:
    """The coordinate a run sweeps: ``coordinate`` when given, else the program's first."""
    if coordinate is not None:
        return coordinate
    if not program.coordinates:
        raise ArgumentError("this program has no coordinate input to iterate over")
    return program.coordinates[0]


def rows_at(
    program: Program,
    cycles: range,
    columns: Sequence[str] | None = None,
    inputs: Mapping[str, Any] | None = None,
    coordinate: str | None = None,
) -> dict[str, list[Any]]:
    """``{column: [value per cycle]}`` of ``program.generate(cycles, ...)``,
    the swept coordinate first, then ``columns`` (default: every output), as
    plain Python values."""
    swept = swept_coordinate(program, coordinate)
    names = list(dict.fromkeys([swept, *(program.outputs if columns is None else columns)]))
    table = program.generate(cycles, outputs=names, inputs=inputs, coordinate=swept)
    return {name: table[name].tolist() for name in names}


def row_at(
    program: Program,
    cycle: int,
    columns: Sequence[str] | None = None,
    inputs: Mapping[str, Any] | None = None,
    coordinate: str | None = None,
) -> dict[str, Any]:
    """The row of ``program`` at ``cycle``: ``{coordinate: cycle, column: value, ...}``,
    equal to ``generate(range(cycle, cycle + 1), ...)`` (see :func:`rows_at`)."""
    return {name: values[0] for name, values in rows_at(program, range(cycle, cycle + 1), columns, inputs,
                                                       coordinate).items()}


def same_value(expected: Any, actual: Any) -> bool:
    """Whether two values of a row are the same: canonically
    (:func:`~polydat.testing.canon.canonical`: floats by their bits) for
    numbers, text and ``None``, by ``==`` for other values (dates, decimals)."""
    want, got = canonical(expected), canonical(actual)
    if want.kind == "other" or got.kind == "other":
        return bool(expected == actual)
    return want == got


def _shown(value: Any) -> str:
    outcome = canonical(value)
    return repr(value) if outcome.kind == "other" else Outcome.describe(outcome)


def _input_text(program: Program, name: str, value: Any) -> str | None:
    """``value`` as ``--set NAME=TEXT`` writes it, or None when no text reads back as it."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, float):
        text = repr(value)
    elif isinstance(value, (bytes, bytearray)):
        try:
            text = bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            return None
    elif hasattr(value, "isoformat"):
        text = value.isoformat()
    else:
        text = str(value)
    try:
        back = program.parse_input(name, text)
    except Exception:  # noqa: BLE001 - any refusal means: not expressible as text
        return None
    return text if same_value(value, back) or same_value(_as_input(value), back) else None


def _as_input(value: Any) -> Any:
    """``value`` as a kernel holds it, for comparing with what ``--set`` reads (a date as numpy's)."""
    import datetime

    import numpy as np

    if isinstance(value, datetime.datetime):
        return np.datetime64(value.replace(tzinfo=None), "ms")
    if isinstance(value, datetime.date):
        return np.datetime64(value, "D")
    return value


def _source_file(program: Program) -> str:
    """The file a command line reads ``program`` from: its own, or (a program
    compiled from text) its source written once to the temporary directory,
    named by its content hash."""
    if program.path is not None:
        path = os.path.abspath(program.path)
        relative = os.path.relpath(path)
        return relative if not relative.startswith(os.pardir) else path
    path = os.path.join(tempfile.gettempdir(), f"polydat-{content_hash(program)[:16]}.polydat")
    if not os.path.exists(path):
        with open(path, "w", encoding="utf-8") as out:
            out.write(program.source)
    return path


def reproduce_command(
    program: Program,
    cycle: int,
    outputs: Sequence[str] | None = None,
    inputs: Mapping[str, Any] | None = None,
    coordinate: str | None = None,
) -> str:
    """The ``polydat run FILE --cycles C..C+1`` command (with ``--outputs``,
    ``--set``, ``--engine`` and ``--lib`` as the run needs) that prints the
    row of ``program`` at ``cycle`` on the engine that ran it. A program
    compiled from text is written to a file first (see :func:`_source_file`).
    What the command line cannot say (a value no text reads back as, a
    coordinate other than the first swept) is added as a ``#`` note."""
    args = ["polydat", "run", _source_file(program), "--cycles", f"{cycle}..{cycle + 1}"]
    notes = []
    if outputs is not None:
        args += ["--outputs", ",".join(outputs)]
    for name, value in (inputs or {}).items():
        text = _input_text(program, name, value)
        if text is None:
            notes.append(f"--set {name}: the value {value!r} has no text form")
        else:
            args += ["--set", f"{name}={text}"]
    args += ["--engine", program.engine]
    for directory in program.library_path:
        args += ["--lib", directory]
    swept = swept_coordinate(program, coordinate)
    if program.coordinates and swept != program.coordinates[0]:
        notes.append(f"polydat run sweeps {program.coordinates[0]!r}, not {swept!r}")
    command = shlex.join(args)
    return command + "".join(f"  # {note}" for note in notes)


def _where(program: Program, cycle: int) -> str:
    named = f" ({program.path})" if program.path is not None else ""
    return f"program sha256:{content_hash(program)}{named}, engine {program.engine}, cycle {cycle}"


def assert_row(
    program: Program,
    cycle: int,
    expected: Mapping[str, Any],
    *,
    inputs: Mapping[str, Any] | None = None,
    coordinate: str | None = None,
) -> None:
    """Asserts that ``program``'s row at ``cycle`` holds ``expected``
    (``{column: value}``, any subset of the outputs and inputs; see
    :func:`same_value`). The ``AssertionError`` names the program's content
    hash, the cycle, every differing column, and the command that prints the row."""
    if not isinstance(expected, Mapping) or not expected:
        raise ArgumentError("expected must be a non-empty mapping of column names to values")
    columns = list(expected)
    actual = row_at(program, cycle, columns, inputs, coordinate)
    wrong = [name for name in columns if not same_value(expected[name], actual[name])]
    if not wrong:
        return
    lines = [f"row differs: {_where(program, cycle)}"]
    lines += [f"  {name}: expected {_shown(expected[name])}, got {_shown(actual[name])}" for name in wrong]
    lines.append(f"reproduce: {reproduce_command(program, cycle, columns, inputs, coordinate)}")
    raise AssertionError("\n".join(lines))


def assert_rows_equal(
    program: Program,
    reference: Program,
    cycles: range | int | tuple[int, int],
    *,
    outputs: Sequence[str] | None = None,
    inputs: Mapping[str, Any] | None = None,
    coordinate: str | None = None,
) -> None:
    """Asserts that ``program`` and ``reference`` give the same rows over
    ``cycles`` (a ``range``, a count or a ``(start, stop)`` pair) for
    ``outputs`` (default: every output of ``reference``). The
    ``AssertionError`` names the first differing row: its cycle, the
    differing columns, and each program's content hash and command."""
    from ..generate import cycle_range

    rng = cycle_range(cycles)
    columns = list(reference.outputs) if outputs is None else list(outputs)
    got = rows_at(program, rng, columns, inputs, coordinate)
    want = rows_at(reference, rng, columns, inputs, coordinate)
    for index, cycle in enumerate(rng):
        wrong = [name for name in columns if not same_value(want[name][index], got[name][index])]
        if not wrong:
            continue
        lines = [f"rows differ at cycle {cycle}:"]
        lines += [f"  {name}: {_shown(got[name][index])}, reference {_shown(want[name][index])}" for name in wrong]
        for label, prog in (("program", program), ("reference", reference)):
            lines.append(f"{label}: {_where(prog, cycle)}")
            lines.append(f"  reproduce: {reproduce_command(prog, cycle, wrong, inputs, coordinate)}")
        raise AssertionError("\n".join(lines))
