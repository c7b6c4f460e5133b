"""The standard corner inputs every engine must agree on.

``U64_CORNERS`` (37 values) sit at the edges where native code goes wrong:
small numbers, powers of two and their neighbours, the f64 integer limit
2^53, the sign bit 2^63 and u64::MAX. ``F64_CORNERS`` (33 distinct values) cover signed
zeros, halves (rounding ties), values just around 1, the smallest normal and
subnormal, the largest finite values, integer limits, infinities, and NaNs of
both signs with and without a payload. ``STR_CORNERS`` are strings that parse, almost parse, or carry
multi-byte characters.

Usage::

    from polydat.testing import U64_CORNERS, F64_CORNERS, assert_engines_agree

    assert_engines_agree("input cycle: u64\\nout := hash(cycle)", U64_CORNERS)
    assert_engines_agree(
        "input cycle: u64\\nextern x: f64 = 0.0\\nout := sqrt(x)",
        [{"x": v} for v in F64_CORNERS],
    )

:func:`corner_grid` combines several corner lists into a bounded set of
tuples that still visits every value of every list.
"""

from __future__ import annotations

import itertools
import random
import sys
from collections.abc import Sequence
from typing import Any

from .canon import bits_f64, f64_bits

__all__ = ["U64_CORNERS", "F64_CORNERS", "STR_CORNERS", "U64_MAX", "CANONICAL_NAN_BITS", "corner_grid"]

U64_MAX = 2**64 - 1

U64_CORNERS: tuple[int, ...] = (
    0, 1, 2, 3, 4,
    7, 8, 9,
    15, 16, 31, 32, 63, 64,
    100, 127, 128, 255, 256,
    1000, 1023, 1024,
    65535, 65536,
    2**31 - 1, 2**31 + 1,
    2**32 - 1, 2**32, 2**32 + 1,
    2**53 - 1, 2**53, 2**53 + 1,
    2**63 - 1, 2**63, 2**63 + 1,
    U64_MAX - 1, U64_MAX,
)
"""u64 corners: 0–4, 7–9, 15, 16, 31, 32, 63, 64, 100, 127, 128, 255, 256, 1000,
1023, 1024, 65535, 65536, 2^31±1, 2^32−1, 2^32, 2^32+1, 2^53−1, 2^53, 2^53+1,
2^63−1, 2^63, 2^63+1, max−1, max."""

_EPS = sys.float_info.epsilon

F64_CORNERS: tuple[float, ...] = (
    0.0, -0.0,
    1.0, -1.0,
    0.5, -0.5,
    1.5,
    2.5, -2.5,
    0.1,
    1.0 / 3.0,
    1.0 + _EPS, 1.0 - _EPS,
    _EPS,
    sys.float_info.min,            # smallest positive normal, 2^-1022
    5e-324,                        # smallest positive subnormal
    sys.float_info.max, -sys.float_info.max,
    1e308, -1e308,
    2.0**53, -(2.0**53),
    2.0**53 + 2,                   # the next f64 after 2^53 (2^53 + 1 is no f64: it rounds to 2^53)
    2.0**32,
    2.0**63, -(2.0**63),
    2.0**64,
    float("inf"), float("-inf"),
    bits_f64(0x7FF8000000000000),  # NaN (the canonical quiet NaN)
    bits_f64(0xFFF8000000000000),  # -NaN (sign bit set)
    bits_f64(0x7FF80000DEADBEEF),  # a quiet NaN carrying a payload
    bits_f64(0xFFF800000000BAD1),  # a negative quiet NaN carrying a payload
)
"""f64 corners: ±0, ±1, ±0.5, 1.5, ±2.5, 0.1, 1/3, 1±ε, ε, the smallest positive
normal, the smallest subnormal, ±max, ±1e308, ±2^53, 2^53+2, 2^32, ±2^63, 2^64,
±inf, ±NaN and NaNs of both signs carrying payloads (every f64 a node computes
that is NaN must come back as the canonical NaN, on every engine)."""

CANONICAL_NAN_BITS = 0x7FF8000000000000
"""The bits of the one NaN a node result may hold (the language's NaN policy)."""

STR_CORNERS: tuple[str, ...] = (
    "", " ", "0", "7", "12", " 42 ", "-1", "+5", "1.5", "1e3", "x", "x12", "12x",
    "18446744073709551615", "18446744073709551616", "NaN", "inf",
    "é", "日本語", "a b", "{}",
)
"""str corners: empty, whitespace, numbers that do and do not parse as u64/f64,
the u64 limit and one past it, and multi-byte text."""

def corner_grid(lists: Sequence[Sequence[Any]], limit: int = 1500, seed: int = 0) -> list[tuple[Any, ...]]:
    """Tuples over ``lists``: the full product when it has at most ``limit``
    tuples, otherwise the diagonals (so every value of every list appears, and
    each list meets the others at several offsets) plus a seeded sample."""
    if not lists:
        return [()]
    total = 1
    for values in lists:
        total *= len(values)
    if total <= limit:
        return list(itertools.product(*lists))
    longest = max(len(v) for v in lists)
    picked: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    for shift in (0, 1, 3, 7):
        for i in range(longest):
            combo = tuple(values[(i + k * shift) % len(values)] for k, values in enumerate(lists))
            picked.setdefault(_key(combo), combo)
    rng = random.Random(seed)
    while len(picked) < limit:
        combo = tuple(values[rng.randrange(len(values))] for values in lists)
        picked.setdefault(_key(combo), combo)
    return list(picked.values())


def _key(combo: tuple[Any, ...]) -> tuple[Any, ...]:
    # floats keyed by bits so -0.0 and 0.0 (and the two NaNs) stay distinct
    return tuple(("f", f64_bits(v)) if isinstance(v, float) else (type(v).__name__, v) for v in combo)
