"""What a column of the engine matrix is: :class:`EngineSpec`, the oracle's
name, and the protocols the suites drive programs and kernels through. The
matrix (:mod:`polydat.testing.matrix`) and the compiler variants
(:mod:`polydat.testing.variants`) both build on it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = ["ORACLE", "Compiler", "EngineSpec", "KernelLike", "ProgramLike"]

ORACLE = "p1"
"""The name of the oracle engine: every other engine is compared with it."""


class KernelLike(Protocol):
    """What the harness needs of a kernel (``polydat.Kernel`` satisfies it)."""

    def set_inputs(self, *values: Any, **named: Any) -> None:
        """Writes coordinates."""

    def set(self, name: str, value: Any) -> None:
        """Writes an extern."""

    def pull(self, name: str) -> Any:
        """Reads one output."""

    def eval(self) -> dict[str, Any]:
        """Reads every output."""

    def invalidate_all(self) -> None:
        """Makes every step stale."""


class ProgramLike(Protocol):
    """What the harness needs of a program (``polydat.Program`` satisfies it)."""

    @property
    def engine(self) -> str:
        """What runs."""

    @property
    def inputs(self) -> list[str]:
        """Input names, coordinates first."""

    @property
    def coordinates(self) -> list[str]:
        """Coordinate names."""

    @property
    def outputs(self) -> dict[str, str]:
        """{output: type}."""

    def kernel(self) -> Any:
        """A new kernel."""


Compiler = Callable[..., Any]
"""``compiler(source, **options) -> ProgramLike``."""


@dataclass(frozen=True, eq=False)
class EngineSpec:
    """One column of the engine matrix.

    ``options`` are the keyword arguments given to :func:`polydat.compile`
    (``{"engine": "p2", "provenance": "pull"}``). ``compiler`` replaces
    :func:`polydat.compile` for test-only engines. ``fresh_kernels`` runs every
    script step on a new kernel that first replays all earlier writes.
    ``reported`` is the engine name the compiled program must report
    (``Program.engine``); ``None`` skips that check. ``stateless`` marks an
    engine that rebuilds its state for every step (fresh kernels, one-cycle
    ``generate``): outputs that depend on a ``const`` capture are not
    compared with it. ``graph_as_written`` marks an engine compiled with no
    rewriting (``fusion=False``, which also merges no identical nodes): its
    failures are compared without the outputs the failing node is bound to,
    which merging changes.
    """

    name: str
    options: Mapping[str, Any] = field(default_factory=dict)
    compiler: Compiler | None = None
    fresh_kernels: bool = False
    reported: str | None = None
    description: str = ""
    stateless: bool = False
    graph_as_written: bool = False

    @property
    def rebuilds_state(self) -> bool:
        """Whether this engine's state is rebuilt for every step."""
        return self.stateless or self.fresh_kernels

    def compile(self, source: str) -> Any:
        """Compiles ``source`` for this engine (raises like :func:`polydat.compile`)."""
        if self.compiler is not None:
            return self.compiler(source, **dict(self.options))
        import polydat

        return polydat.compile(source, **dict(self.options))

    def __repr__(self) -> str:
        return f"EngineSpec({self.name!r}, {dict(self.options)!r})"
