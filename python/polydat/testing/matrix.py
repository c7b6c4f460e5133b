"""The engine matrix: every engine and provenance mode this build can run.

P1 (the interpreter) is the semantic oracle and always comes first. Other
engines are discovered from the compiled core (``polydat._core.engines()``
when the binding provides it), so a new engine or provenance mode joins every
equivalence suite without edits. A name ``"p2/pull"`` means
``polydat.compile(source, engine="p2", provenance="pull")``.

Besides the discovered engines the default matrix holds ``p1/fresh``: P1 run
with a *fresh kernel for every step* that replays all writes so far. It holds
the incremental machinery (dirty marking, cone pulls, memoization) to the
answer a brand-new kernel gives at the same inputs.

Usage::

    from polydat.testing import engines, register_engine, EngineSpec

    [e.name for e in engines()]          # e.g. ['p1', 'p2/raw', ..., 'p1/fresh']

    # restrict the matrix from the environment (comma-separated names)
    #   POLYDAT_TEST_ENGINES=p1,p2/pull pytest tests/testing

    # add a test-only engine (a custom compiler returning a Program-like object)
    register_engine(EngineSpec("p1/twin", {"engine": "p1"}))

An engine that refuses a program (``RefusedError`` at compile) is reported as
refused by :func:`polydat.testing.outcomes`; it is never silently dropped.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .spec import ORACLE, EngineSpec, KernelLike, ProgramLike

__all__ = [
    "ORACLE",
    "EngineSpec",
    "KernelLike",
    "ProgramLike",
    "compiler_variants",
    "discovered_engine_names",
    "engine_spec",
    "engines",
    "register_engine",
    "registered_engine",
    "unregister_engine",
]

FRESH_SUFFIX = "/fresh"
ENV_ENGINES = "POLYDAT_TEST_ENGINES"


_REGISTERED: dict[str, EngineSpec] = {}


def discovered_engine_names() -> list[str]:
    """Engine names the compiled core reports, P1 first."""
    from polydat.program import engine_names

    names = [n for n in dict.fromkeys(engine_names()) if n != "auto"]
    if ORACLE in names:
        names.remove(ORACLE)
    return [ORACLE, *names]


def engine_spec(name: str) -> EngineSpec:
    """The spec for a discovered engine name: ``"p2/pull"`` → engine p2, provenance pull.

    ``"<engine>/fresh"`` is that engine with a fresh kernel per step.
    """
    if name in _REGISTERED:
        return _REGISTERED[name]
    fresh = name.endswith(FRESH_SUFFIX)
    base = name[: -len(FRESH_SUFFIX)] if fresh else name
    engine, _, provenance = base.partition("/")
    options: dict[str, Any] = {"engine": engine}
    if provenance:
        options["provenance"] = provenance
    return EngineSpec(
        name,
        options,
        fresh_kernels=fresh,
        reported=base if provenance or engine == ORACLE else None,
        description=("fresh kernel per step, writes replayed: " if fresh else "") + base,
    )


def compiler_variants() -> list[EngineSpec]:
    """Variants of P1 that hold other code paths to the oracle (see
    :mod:`polydat.testing.variants`): ``p1/unfused`` and ``p1/generate``."""
    from .variants import variants

    return variants()


def engines(
    names: list[str] | None = None,
    *,
    include_registered: bool = True,
    include_fresh: bool = True,
    include_variants: bool = False,
) -> list[EngineSpec]:
    """The engine matrix, oracle first.

    ``names`` picks engines by name (default: the ``POLYDAT_TEST_ENGINES``
    environment variable when set, else every discovered engine); with names
    given, ``include_fresh`` and ``include_registered`` do not apply (list
    ``p1/fresh`` or a registered name to get it). Otherwise ``include_fresh``
    adds ``p1/fresh`` and ``include_registered`` the engines added with
    :func:`register_engine`. ``include_variants`` adds the
    :func:`compiler_variants` (``p1/unfused``, ``p1/generate``) in both cases.
    """
    if names is None:
        env = os.environ.get(ENV_ENGINES, "").strip()
        if env:
            names = [n.strip() for n in env.split(",") if n.strip()]
    if names is None:
        chosen = discovered_engine_names()
        if include_fresh:
            chosen.append(ORACLE + FRESH_SUFFIX)
        if include_registered:
            chosen.extend(n for n in _REGISTERED if n not in chosen)
    else:
        chosen = list(dict.fromkeys(names))
        if ORACLE not in chosen:
            chosen.insert(0, ORACLE)
        elif chosen[0] != ORACLE:
            chosen.remove(ORACLE)
            chosen.insert(0, ORACLE)
    specs = [engine_spec(n) for n in chosen]
    if include_variants:
        specs += [v for v in compiler_variants() if v.name not in chosen]
    return specs


def register_engine(spec: EngineSpec, *, replace: bool = False) -> EngineSpec:
    """Adds ``spec`` to the default matrix (after the discovered engines)."""
    if spec.name == ORACLE:
        raise ValueError("the oracle engine cannot be replaced")
    if spec.name in _REGISTERED and not replace:
        raise ValueError(f"engine {spec.name!r} is already registered")
    _REGISTERED[spec.name] = spec
    return spec


def unregister_engine(name: str) -> None:
    """Removes an engine added with :func:`register_engine` (no-op if absent)."""
    _REGISTERED.pop(name, None)


@contextmanager
def registered_engine(spec: EngineSpec) -> Iterator[EngineSpec]:
    """``with registered_engine(spec): ...`` registers ``spec`` for the block only."""
    register_engine(spec, replace=True)
    try:
        yield spec
    finally:
        unregister_engine(spec.name)
