"""Matrix variants that hold other code paths to the oracle.

* ``p1/unfused`` compiles with Node Fusion off. Any difference from ``p1``
  means a fusion rule changed a value. (Its failures are compared without
  the outputs the failing node is bound to: with fusion off, identical
  nodes are not merged, so a failure in one of them may name no output
  where the merged node names the output it serves.)
* ``p1/generate`` answers every pull through ``Program.generate`` over a
  one-cycle range, with the other inputs fixed to the kernel's current
  values. This is the batch path that ``polydat run`` and ``generate()``
  users take. (``eval()`` goes through a real kernel: its failures name the
  context ``every output``, which a batch over named outputs cannot.)

Usage::

    from polydat.testing import engines, assert_engines_agree, generate_variant

    assert_engines_agree(src, script, engines=engines(include_variants=True))
    # every engine, and every engine's generate() path
    matrix = engines()
    assert_engines_agree(src, script, engines=matrix + [generate_variant(e) for e in matrix[1:]])
"""

from __future__ import annotations

import inspect
from typing import Any

from .spec import ORACLE, EngineSpec

__all__ = ["variants", "generate_variant", "GenerateKernel", "GenerateProgram"]


class GenerateKernel:
    """A kernel stand-in that writes through a real kernel and reads through ``generate``."""

    def __init__(self, program: Any):
        self._program = program
        self._writer = program.kernel()

    def set_inputs(self, *values: Any, **named: Any) -> None:
        """Writes coordinates (validated by the real kernel)."""
        self._writer.set_inputs(*values, **named)

    def set(self, name: str, value: Any) -> None:
        """Writes an extern (validated by the real kernel)."""
        self._writer.set(name, value)

    def invalidate_all(self) -> None:
        """Nothing is cached here, so there is nothing to invalidate."""
        self._writer.invalidate_all()

    def input_values(self) -> dict[str, Any]:
        """The current inputs."""
        return dict(self._writer.input_values())

    def _columns(self, outputs: list[str]) -> dict[str, Any]:
        import polydat

        values = self.input_values()
        coordinate = self._program.coordinates[0]
        cycle = values.pop(coordinate)
        try:
            return dict(self._program.generate(range(cycle, cycle + 1), outputs=outputs, inputs=values,
                                               coordinate=coordinate))
        except polydat.EvalError as err:
            raise _without_row(err, coordinate, cycle) from None

    def pull(self, name: str) -> Any:
        """``name`` at the current inputs, computed by ``generate`` (a masked
        row of a numpy masked array is ``None``)."""
        column = self._columns([name])[name]
        mask = getattr(column, "mask", None)
        if mask is not None and bool(mask.any()):
            return None
        return _scalar(column[0])

    def eval(self) -> dict[str, Any]:
        """Every output, through the real kernel: ``eval`` names its context
        ``every output``, which a batch over named outputs cannot reproduce."""
        return dict(self._writer.eval())


def _without_row(err: Any, coordinate: str, cycle: int) -> Any:
    """A ``generate`` failure as the kernel reports it: without the line naming
    the failing row, when (and only when) that line names the row that ran;
    so a wrong row still shows up as a disagreement."""
    import polydat

    suffix = f"\n  ↳ at row {coordinate}={cycle}"
    message = str(err)
    if err.row != (coordinate, cycle) or not message.endswith(suffix):
        return err
    return polydat.EvalError(message[: -len(suffix)], err.node, err.outputs, err.inputs)


def _scalar(value: Any) -> Any:
    item = getattr(value, "item", None)
    return item() if callable(item) and getattr(value, "shape", None) == () else value


class GenerateProgram:
    """A program whose kernels are :class:`GenerateKernel` objects."""

    def __init__(self, program: Any):
        self._program = program

    def __getattr__(self, name: str) -> Any:
        return getattr(self._program, name)

    def kernel(self) -> GenerateKernel:
        """A new generate-backed kernel."""
        return GenerateKernel(self._program)


def generate_variant(spec: EngineSpec) -> EngineSpec:
    """``spec`` with every pull answered by ``Program.generate`` (named ``<name>/generate``)."""

    def compile_for_generate(source: str, **options: Any) -> GenerateProgram:
        return GenerateProgram(spec.compile(source))

    return EngineSpec(f"{spec.name}/generate", dict(spec.options), compiler=compile_for_generate,
                      reported=spec.reported, stateless=True,
                      description=f"{spec.name} through Program.generate, one cycle per pull")


def variants() -> list[EngineSpec]:
    """The variants that this build supports (``p1/unfused`` needs ``compile(fusion=)``)."""
    import polydat

    found = []
    if "fusion" in inspect.signature(polydat.compile).parameters:
        found.append(EngineSpec("p1/unfused", {"engine": ORACLE, "fusion": False}, reported=ORACLE,
                                graph_as_written=True, description="p1 without Node Fusion"))
    if hasattr(polydat.Program, "generate"):
        found.append(generate_variant(EngineSpec(ORACLE, {"engine": ORACLE}, reported=ORACLE)))
    return found
