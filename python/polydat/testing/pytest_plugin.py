"""The pytest plugin polydat installs (entry point ``pytest11``, name ``polydat``).

Installed with the package, it gives every test suite:

* ``polydat_program`` — a factory fixture: ``polydat_program(path_or_source,
  engine="auto", **compile options)`` compiles a program from a ``.polydat``
  file (a relative path is read from pytest's rootdir) or from program text,
  once per test session for the same arguments;
* ``polydat_engine`` — a test that asks for it runs once per engine the
  compiled core has (``p1``, ``p2/raw``, ..., ``mixed``: the core's list,
  :func:`polydat.testing.discovered_engine_names`); ``--polydat-engines
  p1,p3/pull`` runs only those;
* the row assertions of :mod:`polydat.testing.rows` (``assert_row``,
  ``assert_rows_equal``), whose failures name the program's content hash,
  the cycle and the ``polydat run`` command that prints the row.

Example::

    from polydat.testing import assert_rows_equal

    def test_every_engine_gives_the_oracles_rows(polydat_program, polydat_engine):
        program = polydat_program("examples/users.polydat", engine=polydat_engine)
        oracle = polydat_program("examples/users.polydat", engine="p1")
        assert_rows_equal(program, oracle, range(1000))

The plugin imports neither numpy nor the compiled core until a fixture is
used.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from ..program import Program

ENGINES_OPTION = "--polydat-engines"
SOURCE_SUFFIX = ".polydat"


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--polydat-engines NAMES``: the engines ``polydat_engine`` runs."""
    group = parser.getgroup("polydat")
    group.addoption(
        ENGINES_OPTION,
        metavar="NAMES",
        default=None,
        help="comma-separated engine names the polydat_engine fixture runs (default: every engine the core has)",
    )


def engine_names(config: pytest.Config) -> list[str]:
    """The engines ``polydat_engine`` runs: ``--polydat-engines`` or every
    engine the compiled core reports, the oracle (``p1``) first."""
    from .matrix import discovered_engine_names

    known = discovered_engine_names()
    chosen = config.getoption(ENGINES_OPTION)
    if chosen is None:
        return known
    names = [name.strip() for name in str(chosen).split(",") if name.strip()]
    unknown = [name for name in names if name not in known]
    if unknown or not names:
        raise pytest.UsageError(
            f"{ENGINES_OPTION}: unknown engine {', '.join(map(repr, unknown)) or '(none given)'}; "
            f"the engines are {', '.join(known)}"
        )
    return list(dict.fromkeys(names))


def pytest_configure(config: pytest.Config) -> None:
    """Checks ``--polydat-engines`` before any test is collected."""
    if config.getoption(ENGINES_OPTION) is not None:
        engine_names(config)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Runs a test that asks for ``polydat_engine`` once per engine (unless
    the test parametrizes ``polydat_engine`` itself)."""
    if "polydat_engine" not in metafunc.fixturenames:
        return
    for marker in metafunc.definition.iter_markers("parametrize"):
        names = marker.args[0] if marker.args else marker.kwargs.get("argnames", "")
        if "polydat_engine" in (names.replace(" ", "").split(",") if isinstance(names, str) else names):
            return
    names = engine_names(metafunc.config)
    metafunc.parametrize("polydat_engine", names, ids=names, indirect=True)


@pytest.fixture()
def polydat_engine(request: pytest.FixtureRequest) -> str:
    """An engine name (``"p1"``, ``"p2/pull"``, ``"mixed"``, ...) to give
    ``polydat_program(..., engine=polydat_engine)``: the test runs once per
    engine the compiled core has (``--polydat-engines`` chooses)."""
    return str(getattr(request, "param", "auto"))


class ProgramFactory:
    """Compiles programs for tests, each once per session (see :func:`polydat_program`)."""

    def __init__(self, root: Path):
        self.root = root
        self._programs: dict[tuple[Any, ...], Program] = {}

    def __call__(self, program: str | os.PathLike[str], *, engine: str = "auto", **options: Any) -> Program:
        """``program`` compiled with ``engine`` and the other options of
        :func:`polydat.compile` (``provenance``, ``library_path``, ``strict``,
        ``outputs``, ``fusion``, ...). ``program`` is a path (a
        ``PathLike``, or one line naming a ``.polydat`` file or an existing
        file; relative to the rootdir) or program text. The same arguments
        give the same :class:`~polydat.Program` object (programs are
        immutable and thread-safe)."""
        path = self._path_of(program)
        key = (path is not None, path if path is not None else program, engine, _frozen(options))
        found = self._programs.get(key)
        if found is None:
            found = self._compile(program, path, engine, options)
            self._programs[key] = found
        return found

    def _path_of(self, program: str | os.PathLike[str]) -> str | None:
        """The file ``program`` names (absolute), or None when it is program text."""
        from ..errors import ArgumentError

        if isinstance(program, os.PathLike):
            text = os.fspath(program)
        elif isinstance(program, str):
            text = program.strip()
            if "\n" in text or not text:
                return None
            if not text.endswith(SOURCE_SUFFIX) and not (self.root / text).is_file():
                return None
        else:
            raise ArgumentError(f"polydat_program takes a path or program text, not {type(program).__name__}")
        return str(self.root / text) if not os.path.isabs(text) else str(text)

    def _compile(self, program: Any, path: str | None, engine: str, options: dict[str, Any]) -> Program:
        import polydat
        from ..errors import ArgumentError

        if path is None:
            return polydat.compile(program, engine=engine, **options)
        try:
            return polydat.compile_file(path, engine=engine, **options)
        except OSError as err:
            raise ArgumentError(
                f"polydat_program({os.fspath(program)!r}): cannot read {path}: {err.strerror} "
                f"(a relative path is read from the rootdir, {self.root})"
            ) from None


def _frozen(options: dict[str, Any]) -> tuple[Any, ...]:
    """Compile options as a hashable key (lists and paths as tuples and text)."""

    def freeze(value: Any) -> Any:
        if isinstance(value, (list, tuple, set, frozenset)):
            return tuple(freeze(v) for v in value)
        if isinstance(value, dict):
            return tuple(sorted((k, freeze(v)) for k, v in value.items()))
        if isinstance(value, os.PathLike):
            return os.fspath(value)
        return value

    return tuple(sorted((name, freeze(value)) for name, value in options.items()))


@pytest.fixture(scope="session")
def polydat_program(pytestconfig: pytest.Config) -> ProgramFactory:
    """A factory: ``polydat_program(path_or_source, engine="auto", **options)``
    compiles a polydat program once per session for the same arguments
    (see :class:`ProgramFactory`)."""
    return ProgramFactory(pytestconfig.rootpath)
