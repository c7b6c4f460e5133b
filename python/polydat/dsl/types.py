"""Port-type keywords and literal values.

The type spellings are the Rust core's (:func:`corerules.type_keywords`);
upstream keywords this implementation does not carry (``reg128``,
``vec_f32``...) are recognised only to give a precise "not supported" message.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any, Literal, Union

U64_MAX = (1 << 64) - 1
"""The largest integer literal the lexer reads."""

#: Upstream keywords this implementation does not support.
UNSUPPORTED_TYPE_KEYWORDS: frozenset[str] = frozenset(
    "reg128 reg_i8x16 reg_i16x8 reg_i32x4 reg_i64x2 reg_f16x8 "
    "reg_f32x4 reg_f64x2 ext Ext handle vec_f32 vec_f16 vec_i16 vec_i8".split()
)

ConstIr = dict[str, Any]
"""An IR constant: ``{kind: value}``."""


def f64_bits(value: float) -> int:
    """The IEEE-754 bit pattern of ``value`` as an unsigned 64-bit int."""
    return int(struct.unpack("<Q", struct.pack("<d", value))[0])


def bits_f64(bits: int) -> float:
    """The float whose IEEE-754 bit pattern is ``bits``."""
    return float(struct.unpack("<d", struct.pack("<Q", bits))[0])


LiteralKind = Literal["int", "float", "str", "bool", "decimal"]


@dataclass(frozen=True, slots=True)
class LiteralValue:
    """A compile-time literal: an int (possibly negative), float, string, bool or
    decimal (its digits as text, ``"-12.34"``)."""

    kind: LiteralKind
    value: Union[int, float, str, bool]

    def const(self) -> ConstIr:
        """The literal as an IR constant of its own kind: the core types it for
        the slot it fills (``{"int": -5}`` may become an i64, a u64 or an f64),
        and refuses it there in its own words when it does not fit."""
        if self.kind == "int":
            return {"int": self.value}
        if self.kind == "float":
            return {"f64": f64_bits(float(self.value))}
        if self.kind == "bool":
            return {"bool": bool(self.value)}
        if self.kind == "decimal":
            return {"decimal": str(self.value)}
        return {"str": str(self.value)}
