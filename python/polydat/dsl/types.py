"""Port-type keywords, literal values and their conversion to IR constants.

The type spellings are the Rust core's (:func:`corerules.type_keywords`);
upstream keywords this implementation does not carry (``u8``, ``u128``,
``vec_f32``...) are recognised only to give a precise "not supported" message.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any, Literal, Union

from . import corerules

U64_MAX = (1 << 64) - 1
I64_MIN = -(1 << 63)
I64_MAX = (1 << 63) - 1
U32_MAX = (1 << 32) - 1
I32_MIN = -(1 << 31)
I32_MAX = (1 << 31) - 1

#: Upstream keywords this implementation does not support.
UNSUPPORTED_TYPE_KEYWORDS: frozenset[str] = frozenset(
    "u8 i8 u16 i16 f16 u128 i128 reg128 reg_i8x16 reg_i16x8 reg_i32x4 reg_i64x2 reg_f16x8 "
    "reg_f32x4 reg_f64x2 ext Ext handle vec_f32 vec_i32 vec_f64 vec_i64 vec_f16 vec_i16 vec_i8".split()
)

INTEGER_TYPES = frozenset({"u64", "i64", "u32", "i32"})
FLOAT_TYPES = frozenset({"f64", "f32"})

def f64_bits(value: float) -> int:
    """The IEEE-754 bit pattern of ``value`` as an unsigned 64-bit int."""
    return int(struct.unpack("<Q", struct.pack("<d", value))[0])


def bits_f64(bits: int) -> float:
    """The float whose IEEE-754 bit pattern is ``bits``."""
    return float(struct.unpack("<d", struct.pack("<Q", bits))[0])


LiteralKind = Literal["int", "float", "str", "bool"]


@dataclass(frozen=True, slots=True)
class LiteralValue:
    """A compile-time literal: an int (possibly negative), float, string or bool."""

    kind: LiteralKind
    value: Union[int, float, str, bool]

    def describe(self) -> str:
        """How the literal reads in a message, with its article (``an integer literal 5``)."""
        if self.kind == "str":
            text = str(self.value)
            shown = text if len(text) <= 24 else text[:21] + "..."
            return f'a string literal "{shown}"'
        if self.kind == "float":
            return f"a float literal {corerules.f64_display(float(self.value))}"
        if self.kind == "bool":
            return f"a bool literal {str(self.value).lower()}"
        return f"an integer literal {self.value}"

    def with_kind_for(self, target: str) -> LiteralValue:
        """This literal re-expressed for a ``target`` typed slot (int into f64 becomes a float,
        a bool into an integer or float slot becomes 0/1)."""
        if target in FLOAT_TYPES and self.kind in ("int", "bool"):
            return LiteralValue("float", float(self.value))
        if target in INTEGER_TYPES and self.kind == "bool":
            return LiteralValue("int", int(bool(self.value)))
        return self


ConstIr = dict[str, Any]


class LiteralTypeError(ValueError):
    """A literal does not fit the slot type it is given to."""


def literal_to_const(literal: LiteralValue, target: str) -> ConstIr:
    """The IR constant for ``literal`` in a slot of type ``target`` ("any" = natural type).

    Raises :class:`LiteralTypeError` whose text suggests a fix when the
    literal cannot be represented (a float in a u64 slot, a negative value in
    an unsigned slot, a number in a string slot, ...).
    """
    kind, value = literal.kind, literal.value
    if target == "any":
        if kind == "int":
            assert isinstance(value, int)
            return _integer_const(value, f"{value} does not fit in {'i64' if value < 0 else 'u64'}")
        if kind == "float":
            return {"f64": f64_bits(float(value))}
        if kind == "bool":
            return {"bool": bool(value)}
        return {"str": str(value)}
    if kind == "bool" and target != "bool":
        if target in INTEGER_TYPES:
            return {"u64" if target.startswith("u") else "i64": int(bool(value))}
        raise LiteralTypeError(f"a {target} slot needs a {target} value")
    if target in ("u64", "u32", "i64", "i32"):
        if kind == "float":
            raise LiteralTypeError(f"a {target} constant needs an integer literal")
        if kind == "str":
            raise LiteralTypeError("write the number without quotes")
        assert isinstance(value, int)
        low, high = {
            "u64": (0, U64_MAX), "u32": (0, U32_MAX), "i64": (I64_MIN, I64_MAX), "i32": (I32_MIN, I32_MAX)
        }[target]
        if low <= value <= high:
            return {"u64" if target.startswith("u") else "i64": value}
        if value < 0 and low == 0:
            raise LiteralTypeError(f"{target} is unsigned; negative values do not fit")
        raise LiteralTypeError(f"{value} is outside the range of {target} ({low} to {high})")
    if target in FLOAT_TYPES:
        if kind in ("int", "float"):
            return {"f64": f64_bits(float(value))}
        raise LiteralTypeError("write the number without quotes")
    if target == "bool":
        if kind == "bool" or (kind == "int" and value in (0, 1)):
            return {"bool": bool(value)}
        raise LiteralTypeError("a bool constant is written true, false, 1 or 0")
    if target in ("str", "json", "bytes"):
        if kind == "str":
            return {"str": str(value)}
        raise LiteralTypeError(f'write it as a string, e.g. "{literal.value}"')
    if target in ("timestamp", "date"):
        # Epoch milliseconds (timestamp) or days (date) as an integer, or ISO
        # text ("1992-01-01", "1992-01-01T12:30:00Z"); the core checks either.
        if kind == "int":
            assert isinstance(value, int)
            return _integer_const(value, f"{value} is outside the range of {target}")
        if kind == "str":
            return {"str": str(value)}
        unit = "milliseconds since 1970-01-01" if target == "timestamp" else "days since 1970-01-01"
        raise LiteralTypeError(f'a {target} is {unit} or ISO text, e.g. "1992-01-01"')
    raise LiteralTypeError(f"a {target} slot cannot take a literal")


def _integer_const(value: int, failure: str) -> ConstIr:
    """The IR constant of integer literal ``value``, typed by the core's rule
    (u64, or i64 when negative); ``failure`` is the error when it fits neither."""
    natural = corerules.int_literal_type(value)
    if natural is None:
        raise LiteralTypeError(failure)
    return {natural: value}
