"""The Polydat DSL frontend: lexer, parser, binder, diagnostics and user modules.

Public entry points::

    parse(source, path=None) -> ast.Program
    bind(source, *, path=None, library_path=(), catalog=None, outer=None) -> BoundProgram
    check(source, *, path=None, library_path=(), catalog=None, outer=None) -> list[Diagnostic]

``bind`` produces the graph IR (``BoundProgram.ir``, the JSON form of the Rust
core's ``GraphIr``). Every problem is reported as a
:class:`polydat.errors.CompileError` whose diagnostic points at the source;
``check`` never raises and returns the diagnostics instead.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

from ..errors import CompileError, Diagnostic
from . import ast
from .binder import Binder, BoundProgram
from .catalog import Catalog, NodeSpec, OutputSpec, ParamSpec, default_catalog
from .diagnostics import SourceFile
from .parser import parse_file

__all__ = [
    "parse",
    "bind",
    "check",
    "BoundProgram",
    "Catalog",
    "NodeSpec",
    "ParamSpec",
    "OutputSpec",
    "default_catalog",
    "CompileError",
    "Diagnostic",
    "ast",
]


def parse(source: str, path: str | os.PathLike[str] | None = None) -> ast.Program:
    """Parse ``source`` into a :class:`~polydat.dsl.ast.Program` (raises CompileError)."""
    file = SourceFile(source, os.fspath(path) if path is not None else None)
    return parse_file(file)


def bind(
    source: str,
    *,
    path: str | os.PathLike[str] | None = None,
    library_path: Iterable[str | os.PathLike[str]] = (),
    catalog: Catalog | None = None,
    outer: Mapping[str, str] | None = None,
) -> BoundProgram:
    """Parse and bind ``source`` to the graph IR.

    ``path`` names the source file (for diagnostics and to find module files
    beside it); ``library_path`` lists further directories searched for
    ``<name>.polydat`` modules; ``catalog`` defaults to the compiled core's;
    ``outer`` maps names an enclosing scope provides to their type keyword:
    a free name listed there becomes an extern input instead of a coordinate.
    """
    program = parse(source, path)
    binder = Binder(
        catalog if catalog is not None else default_catalog(),
        library_path=library_path,
        outer=outer,
        source_path=program.path,
    )
    return binder.bind(program)


def check(
    source: str,
    *,
    path: str | os.PathLike[str] | None = None,
    library_path: Iterable[str | os.PathLike[str]] = (),
    catalog: Catalog | None = None,
    outer: Mapping[str, str] | None = None,
) -> list[Diagnostic]:
    """The diagnostics of ``source`` (empty when it binds cleanly); never raises."""
    try:
        bind(source, path=path, library_path=library_path, catalog=catalog, outer=outer)
    except CompileError as err:
        return list(err.diagnostics)
    except RecursionError:
        return [Diagnostic("program is nested too deeply to compile", path=_path_text(path))]
    except Exception as exc:  # noqa: BLE001 - check() promises never to raise
        return [Diagnostic(f"internal compiler error: {type(exc).__name__}: {exc}", path=_path_text(path))]
    return []


def _path_text(path: str | os.PathLike[str] | None) -> str | None:
    return os.fspath(path) if path is not None else None
