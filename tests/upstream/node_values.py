"""Running a node program on every engine and reading one output.

The value tests of ``test_nodes_*.py`` state upstream's documented values;
:func:`values_everywhere` checks that every engine of the matrix (P1, P2 and
P3 in each provenance mode, mixed, and ``generate``) gives them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import polydat
import polydat.testing as pt

ENGINES = [spec for spec in pt.engines() if spec.compiler is None]


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return pt.f64_bits(a) == pt.f64_bits(b) or (math.isnan(a) and math.isnan(b))
    return bool(a == b) and type(a) is type(b)


def values_everywhere(source: str, output: str, inputs: Sequence[Mapping[str, Any]]) -> list[Any]:
    """``output`` of ``source`` at each of ``inputs``, the same on every engine."""
    results: dict[str, list[Any]] = {}
    for spec in ENGINES:
        kernel = polydat.compile(source, **spec.options).kernel()
        values = []
        for write in inputs:
            kernel.set_inputs(**write)
            values.append(kernel.pull(output))
        results[spec.name] = values
    for engine in ("mixed", "p3"):
        program = polydat.compile(source, engine=engine)
        coordinate = program.inputs[0]
        if all(set(w) == {coordinate} for w in inputs):
            cells = [program.generate(range(w[coordinate], w[coordinate] + 1), outputs=[output])[output][0]
                     for w in inputs]
            results[f"{engine}/generate"] = [v.item() if hasattr(v, "item") else v for v in cells]
    oracle = results["p1"]
    for name, values in results.items():
        assert all(_same(a, b) for a, b in zip(values, oracle, strict=True)), (name, values, oracle)
    return oracle
