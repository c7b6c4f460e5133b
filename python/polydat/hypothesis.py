"""Hypothesis strategies for polydat: a program's rows, values of its types,
and random programs (needs ``hypothesis``).

:func:`rows` draws rows of a program: each a dict holding the swept
coordinate, the inputs given in ``inputs`` and the outputs, equal to what
:meth:`polydat.Program.generate` gives at that cycle (``column.tolist()``
values: ``int``, ``float``, ``str``, ``datetime.date``, ``None``, ...). Cycles
shrink toward the first cycle of the range, so a failing row is reported at
the smallest cycle hypothesis finds::

    from hypothesis import given
    import polydat
    from polydat.hypothesis import ANY, rows

    users = polydat.compile_file("examples/users.polydat")

    @given(rows(users, outputs=["user_id", "bucket"]))
    def test_bucket_is_user_id_mod_64(row):
        assert row["bucket"] == row["user_id"] % 64

    # externs drawn within their declared types (or from your own strategies)
    @given(rows(program, inputs={"region": ANY, "rate": st.floats(0, 1)}))
    ...

:func:`programs` is the strategy of random well-typed programs (with input
scripts) that polydat's own equivalence suites use
(:func:`polydat.testing.programs`); :func:`values` draws values of one type.
"""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from typing import Any

try:
    from hypothesis import strategies as st
except ImportError:  # pragma: no cover - hypothesis is an optional dependency
    raise ImportError("polydat.hypothesis needs hypothesis (pip install hypothesis)") from None

from .errors import ArgumentError
from .program import Program, compile as compile_program
from .testing.generator import f64_values, str_values, u64_values
from .testing.rows import row_at, swept_coordinate
from .testing.strategies import programs  # the random programs polydat's own suites draw

__all__ = ["ANY", "programs", "rows", "values"]


class _Any:
    """The marker :data:`ANY`."""

    def __repr__(self) -> str:
        return "polydat.hypothesis.ANY"


ANY = _Any()
"""In ``rows(..., inputs=...)``: draw the input (or, as ``inputs=ANY``,
every input but the swept coordinate) within its declared type (:func:`values`)."""

SMALL_CYCLES = 1024
"""Rows drawn from the first cycles of the range as often as from anywhere in it."""

_DECIMAL = re.compile(r"decimal\((\d+),\s*(\d+)\)")

_INTEGER_BOUNDS = {
    "u64": (0, 2**64 - 1),
    "i64": (-(2**63), 2**63 - 1),
    "u32": (0, 2**32 - 1),
    "i32": (-(2**31), 2**31 - 1),
    "u16": (0, 2**16 - 1),
    "i16": (-(2**15), 2**15 - 1),
    "u8": (0, 2**8 - 1),
    "i8": (-(2**7), 2**7 - 1),
    "u128": (0, 2**128 - 1),
    "i128": (-(2**127), 2**127 - 1),
}


def _json_texts() -> st.SearchStrategy[str]:
    scalars = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=6)
    nested = st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
        max_leaves=6,
    )
    return nested.map(json.dumps)


def _timestamps() -> st.SearchStrategy[datetime.datetime]:
    # a timestamp holds milliseconds: a drawn instant has no finer part
    return st.datetimes().map(lambda t: t.replace(microsecond=t.microsecond // 1000 * 1000))


def _decimals(precision: int, scale: int) -> st.SearchStrategy[Decimal]:
    most = 10**precision - 1
    return st.integers(-most, most).map(lambda units: Decimal(units).scaleb(-scale))


_BY_TYPE: dict[str, Callable[[], st.SearchStrategy[Any]]] = {
    "u64": u64_values,
    "f64": f64_values,
    "f32": lambda: st.floats(width=32),
    "f16": lambda: st.floats(width=16),
    "str": str_values,
    "bool": st.booleans,
    "bytes": lambda: st.binary(max_size=16),
    "json": _json_texts,
    "date": st.dates,
    "timestamp": _timestamps,
    "vec_i32": lambda: st.lists(st.integers(-(2**31), 2**31 - 1), max_size=8),
    "vec_i64": lambda: st.lists(st.integers(-(2**63), 2**63 - 1), max_size=8),
    "vec_f64": lambda: st.lists(f64_values(), max_size=8),
}


def values(type_name: str) -> st.SearchStrategy[Any]:
    """Values of the polydat type ``type_name`` (``"u64"``, ``"f64"``,
    ``"str"``, ``"date"``, ``"decimal(15,2)"``, ...) as an input takes them:
    the whole range, with the corners (0, ``u64::MAX``, NaN, ±inf, ``-0.0``,
    empty and multi-byte text) among them."""
    if type_name in _BY_TYPE:
        return _BY_TYPE[type_name]()
    if type_name in _INTEGER_BOUNDS:
        low, high = _INTEGER_BOUNDS[type_name]
        return st.integers(low, high)
    decimal = _DECIMAL.fullmatch(type_name)
    if decimal is not None:
        return _decimals(int(decimal.group(1)), int(decimal.group(2)))
    raise ArgumentError(f"no strategy draws values of type {type_name!r}; give the input a strategy of your own")


def _cycle_indices(count: int) -> st.SearchStrategy[int]:
    """Indices into a range of ``count`` cycles, shrinking toward 0."""
    if count <= SMALL_CYCLES:
        return st.integers(0, count - 1)
    return st.one_of(st.integers(0, SMALL_CYCLES - 1), st.integers(0, count - 1))


def _input_strategies(program: Program, inputs: Any, swept: str) -> dict[str, st.SearchStrategy[Any]]:
    """``{input: strategy}`` for ``rows``' ``inputs``: a value is fixed, a
    strategy drawn, :data:`ANY` drawn from the declared type."""
    types = program.input_types
    if inputs is None:
        return {}
    if inputs is ANY:
        inputs = {name: ANY for name in types if name != swept}
    if not isinstance(inputs, Mapping):
        raise ArgumentError(f"inputs must be a mapping of input names to values or strategies (or ANY), "
                            f"not {type(inputs).__name__}")
    found: dict[str, st.SearchStrategy[Any]] = {}
    for name, given in inputs.items():
        if name not in types:
            known = ", ".join(n for n in types if n != swept) or "(none)"
            raise ArgumentError(f"rows: no input named {name!r}; the inputs are: {known}")
        if name == swept:
            raise ArgumentError(f"rows: {name!r} is the coordinate the rows sweep (choose its values with cycles=)")
        if given is ANY:
            found[name] = values(types[name])
        elif isinstance(given, st.SearchStrategy):
            found[name] = given
        else:
            found[name] = st.just(given)
    return found


def rows(
    program: Program | str,
    outputs: Sequence[str] | None = None,
    cycles: range | int | tuple[int, int] | None = None,
    inputs: Mapping[str, Any] | _Any | None = None,
    *,
    coordinate: str | None = None,
) -> st.SearchStrategy[dict[str, Any]]:
    """Rows of ``program`` (a :class:`~polydat.Program`, or program text,
    compiled once): dicts ``{coordinate: cycle, input: value, ..., output:
    value, ...}`` equal to ``program.generate(range(cycle, cycle + 1),
    outputs=[coordinate, *inputs, *outputs], inputs=...)`` at a drawn cycle.

    ``outputs`` names the columns (default: every output; inputs may be
    named too). ``cycles`` is where cycles are drawn from, as ``generate``
    takes them (a ``range``, a count, a ``(start, stop)`` pair; default
    every u64); drawn cycles shrink toward the range's first. ``inputs``
    maps inputs to a fixed value, a hypothesis strategy, or :data:`ANY`
    (drawn within the declared type, see :func:`values`); ``inputs=ANY``
    draws every input but the swept ``coordinate`` (default: the first).
    Every input given is a column of the row. Bad names raise
    :class:`~polydat.errors.ArgumentError` when the strategy is made."""
    from .generate import cycle_range, row_count

    if isinstance(program, str):
        program = compile_program(program)
    if not isinstance(program, Program):
        raise ArgumentError(f"rows takes a polydat.Program or program text, not {type(program).__name__}")
    swept = swept_coordinate(program, coordinate)
    if swept not in program.coordinates:
        coordinates = ", ".join(program.coordinates)
        raise ArgumentError(f"rows: {swept!r} is not a coordinate; the coordinates are: {coordinates}")
    rng = cycle_range(cycles) if cycles is not None else range(2**64)
    count = row_count(rng)
    if count == 0:
        raise ArgumentError(f"rows: no cycle to draw from in {rng}")
    drawn = _input_strategies(program, inputs, swept)
    columns = [*drawn, *(program.outputs if outputs is None else outputs)]
    known = {*program.outputs, *program.input_types}
    unknown = [name for name in columns if name not in known]
    if unknown:
        outputs = ", ".join(program.outputs)
        raise ArgumentError(f"rows: no output or input named {unknown[0]!r}; the outputs are: {outputs}")
    fixed_program: Program = program

    @st.composite
    def draw_row(draw: Callable[..., Any]) -> dict[str, Any]:
        cycle = rng.start + draw(_cycle_indices(count)) * rng.step
        chosen = {name: draw(strategy) for name, strategy in drawn.items()}
        return row_at(fixed_program, cycle, columns, chosen or None, swept)

    return draw_row()

