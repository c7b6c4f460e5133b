"""Canonical outcomes: what "bit for bit" means when engines are compared.

:func:`canonical` turns whatever a kernel returned (or raised) into an
:class:`Outcome`, a small immutable record whose equality is the equivalence
the engines owe each other:

* ``float`` by its IEEE-754 bits (``struct.pack('<d')``): ``-0.0 != 0.0``,
  ``NaN == NaN`` with the same payload, ``NaN != -NaN``;
* ``int`` by value *and* type (``True`` is a ``bool``, not the int 1);
* ``str`` and ``bytes`` by content, ``None`` as itself;
* sequences and mappings element-wise;
* a failure by its exception class and message, with every location line
  (``↳ panicked at <file:line:col>``) removed, since those name engine code.

Usage::

    from polydat.testing import canonical

    canonical(0.0) == canonical(-0.0)          # False
    canonical(float("nan")) == canonical(float("nan"))   # True
    str(canonical(1.5))                        # 'F64(1.5)'
    canonical_failure(err).describe()          # 'EvalError: in_range: value 7 ...'
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Outcome",
    "canonical",
    "canonical_failure",
    "f64_bits",
    "bits_f64",
    "strip_locations",
    "without_output_attribution",
    "NONDETERMINISTIC",
    "type_only",
]

_LOCATION_LINE = re.compile(r"^\s*↳\s*panicked at\b")

_NODE_OUTPUTS = re.compile(r"(↳ in node `[^`]*`) \((?:outputs? [^)]*|no declared output)\)")

NONDETERMINISTIC = "nondeterministic"
"""Outcome kind of a value excluded from comparison (only its type is kept)."""


def f64_bits(value: float) -> int:
    """The IEEE-754 bit pattern of ``value`` as an unsigned 64-bit int."""
    return int.from_bytes(struct.pack("<d", value), "little")


def bits_f64(bits: int) -> float:
    """The float whose IEEE-754 bit pattern is ``bits``."""
    return float(struct.unpack("<d", bits.to_bytes(8, "little"))[0])


def strip_locations(message: str) -> str:
    """``message`` without its ``↳ panicked at ...`` lines."""
    return "\n".join(line for line in message.splitlines() if not _LOCATION_LINE.match(line))


@dataclass(frozen=True)
class Outcome:
    """One canonical observation: a value, an absent value or a failure.

    ``kind`` is one of ``int``, ``bool``, ``f64``, ``str``, ``bytes``,
    ``none``, ``seq``, ``map``, ``other``, ``error``, ``program`` (a compiled
    program's signature), ``ok`` (an action without a value, e.g. a write) or
    ``nondeterministic`` (a value whose type alone is compared). ``data`` is
    the hashable canonical payload (an f64's bits, an error's
    ``(class, message)``, ...).
    """

    kind: str
    data: Any = None

    @property
    def is_error(self) -> bool:
        """Whether this records a failure."""
        return self.kind == "error"

    def describe(self) -> str:
        """A readable rendering that shows every bit that matters."""
        kind, data = self.kind, self.data
        if kind == "int":
            return f"int {data}"
        if kind == "bool":
            return f"bool {data}"
        if kind == "f64":
            value = bits_f64(data)
            shown = repr(value)
            if math.isnan(value) or value == 0.0:
                shown += f" (bits 0x{data:016x})"
            return f"F64({shown})"
        if kind == "str":
            return f"str {data!r}"
        if kind == "bytes":
            return f"bytes {data!r}"
        if kind == "none":
            return "None"
        if kind == "seq":
            return "[" + ", ".join(item.describe() for item in data) + "]"
        if kind == "map":
            return "{" + ", ".join(f"{k!r}: {v.describe()}" for k, v in data) + "}"
        if kind == "error":
            cls, message = data
            return f"{cls}: {message}"
        if kind == "program":
            inputs, outputs = data
            ins = ", ".join(f"{n}: {t}" for n, t in inputs)
            outs = ", ".join(f"{n}: {t}" for n, t in outputs)
            return f"program(inputs [{ins}], outputs [{outs}])"
        if kind == NONDETERMINISTIC:
            return f"<nondeterministic {data}>"
        if kind == "ok":
            return "ok"
        return f"{kind} {data!r}"

    def __str__(self) -> str:
        return self.describe()


def canonical(value: Any) -> Outcome:
    """The canonical :class:`Outcome` of a value a kernel returned."""
    if value is None:
        return Outcome("none")
    if isinstance(value, bool):
        return Outcome("bool", value)
    if isinstance(value, int):
        return Outcome("int", int(value))
    if isinstance(value, float):
        return Outcome("f64", f64_bits(value))
    if isinstance(value, str):
        return Outcome("str", value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return Outcome("bytes", bytes(value))
    dtype = getattr(value, "dtype", None)
    if dtype is not None and getattr(value, "shape", None) == ():
        # numpy scalars (generate() columns)
        kind = getattr(dtype, "kind", "")
        if kind == "f":
            return Outcome("f64", f64_bits(float(value)))
        if kind in "iu":
            return Outcome("int", int(value))
        if kind == "b":
            return Outcome("bool", bool(value))
        return canonical(value.item())
    if isinstance(value, Mapping):
        return Outcome("map", tuple((k, canonical(v)) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))))
    if isinstance(value, (list, tuple)) or (dtype is not None and hasattr(value, "tolist")):
        items = value if isinstance(value, (list, tuple)) else list(value)
        return Outcome("seq", tuple(canonical(v) for v in items))
    return Outcome("other", (type(value).__name__, repr(value)))


def canonical_failure(error: BaseException) -> Outcome:
    """The canonical :class:`Outcome` of a failure: class name and located-free message."""
    return Outcome("error", (type(error).__name__, strip_locations(str(error))))


def without_output_attribution(outcome: Outcome) -> Outcome:
    """``outcome`` with a failure's "(output …)" after the failing node's
    name left out: which outputs a node is bound to depends on whether
    identical nodes were merged, so an engine that compiles the graph as
    written is compared on the rest of the message."""
    if not outcome.is_error:
        return outcome
    kind, message = outcome.data
    return Outcome(outcome.kind, (kind, _NODE_OUTPUTS.sub(r"\1", message)))


def type_only(outcome: Outcome) -> Outcome:
    """``outcome`` reduced to its kind, for values excluded from comparison."""
    if outcome.kind == NONDETERMINISTIC:
        return outcome
    return Outcome(NONDETERMINISTIC, "failed" if outcome.is_error else outcome.kind)
