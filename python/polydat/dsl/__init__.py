"""The Polydat DSL frontend: lexer, parser, binder, diagnostics and user modules.

Public entry points::

    parse(source, path=None) -> ast.Program
    bind(source, *, path=None, library_path=(), catalog=None, outer=None, strict=False) -> BoundProgram
    check(source, *, path=None, library_path=(), catalog=None, outer=None, strict=False, core_check=None)
        -> list[Diagnostic]
    source_lines(text) -> list[str]          # the one rule for what line N of a source is

``bind`` produces the graph IR (``BoundProgram.ir``, the JSON form of the Rust
core's ``GraphIr``). The errors of a file are raised together as one
:class:`polydat.errors.CompileError` (``err.diagnostics``, in source order);
warnings (inferred inputs) are on ``BoundProgram.warnings``. ``check`` never
raises and returns every error and warning instead.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Union

from ..errors import CompileError, Diagnostic
from . import ast
from .binder import Binder, BoundProgram
from .catalog import Catalog, NodeSpec, OutputSpec, ParamSpec, default_catalog
from .diagnostics import SourceFile, source_lines
from .parser import parse_file, parse_recovering

__all__ = [
    "parse",
    "bind",
    "bind_body",
    "check",
    "BoundProgram",
    "Catalog",
    "NodeSpec",
    "ParamSpec",
    "OutputSpec",
    "default_catalog",
    "CompileError",
    "Diagnostic",
    "source_lines",
    "ast",
]


def parse(source: str, path: str | os.PathLike[str] | None = None) -> ast.Program:
    """Parse ``source`` into a :class:`~polydat.dsl.ast.Program`.

    Raises one CompileError carrying every lexical and syntax error.
    """
    file = SourceFile(source, os.fspath(path) if path is not None else None)
    with gc_paused():
        return parse_file(file)


LibraryPath = Union[str, "os.PathLike[str]", Iterable[Union[str, "os.PathLike[str]"]]]


def bind(
    source: str,
    *,
    path: str | os.PathLike[str] | None = None,
    library_path: LibraryPath = (),
    catalog: Catalog | None = None,
    outer: Mapping[str, str] | None = None,
    strict: bool = False,
    outer_coordinates: Iterable[str] = (),
    core_check: Callable[[BoundProgram], Iterable[Diagnostic]] | None = None,
) -> BoundProgram:
    """Parse and bind ``source`` to the graph IR.

    ``path`` names the source file (for diagnostics and to find module files
    beside it); ``library_path`` is a directory, or several, searched for
    modules; ``catalog`` defaults to the compiled core's; ``outer`` maps names
    an enclosing scope provides to their type keyword: a free name listed
    there becomes an extern input instead of a coordinate, and a free name
    in ``outer_coordinates`` (a coordinate of the enclosing scope) a
    coordinate of this program's own, silently. ``strict=True`` makes any
    other free name (an inferred input) an error instead of a warning.

    Raises one CompileError carrying every error of the file; the warnings of
    a program that binds are on :attr:`BoundProgram.warnings`. The core types
    the program (operators included) when it compiles it: when the frontend
    finds an error, ``core_check`` (if given) gets the program bound from the
    other statements and returns the compiler's errors in them, raised with
    the frontend's in source order.
    """
    with gc_paused():
        binder, program = _prepare(source, path, library_path, catalog, outer, strict, outer_coordinates)
        if core_check is None:
            return binder.bind(program)
        bound = binder.bind(program, partial=True)
        if binder.report.errors:
            binder.report.anchor = None  # the compiler's positions are the program file's
            binder.report.extend(core_check(bound))
            binder.report.raise_errors()
        return bound


def bind_body(
    traversal: ast.ForStmt,
    parent: ast.Program,
    *,
    library_path: LibraryPath = (),
    catalog: Catalog | None = None,
    outer: Mapping[str, str] | None = None,
    strict: bool = False,
    outer_coordinates: Iterable[str] = (),
    pragmas: Iterable[str] = (),
) -> BoundProgram:
    """Bind the body of ``for`` statement ``traversal`` (of program
    ``parent``) as a program of its own: its spans are the file's, the
    file's modules are callable, and the enclosing scope's ``pragmas`` apply."""
    statements = tuple(traversal.body) + parent.modules
    program = ast.Program(statements, parent.source, parent.path)
    with gc_paused():
        binder = Binder(
            catalog if catalog is not None else default_catalog(),
            library_path=library_path,
            outer=outer,
            source_path=parent.path,
            strict=strict,
            outer_coordinates=outer_coordinates,
            pragmas=tuple(pragmas),
        )
        binder.report.path = parent.path
        return binder.bind(program)


def check(
    source: str,
    *,
    path: str | os.PathLike[str] | None = None,
    library_path: LibraryPath = (),
    catalog: Catalog | None = None,
    outer: Mapping[str, str] | None = None,
    strict: bool = False,
    core_check: Callable[[BoundProgram], Iterable[Diagnostic]] | None = None,
) -> list[Diagnostic]:
    """Every diagnostic of ``source`` -- errors and warnings, in source order; never raises.

    Empty when the program binds cleanly without warnings; a diagnostic's
    ``severity`` is ``"error"`` or ``"warning"``. When the frontend finds an
    error, ``core_check`` (if given) gets the program bound from the other
    statements (the ones in error and their readers left out) and returns
    further diagnostics, the compiler's, merged in source order.
    """
    binder: Binder | None = None
    try:
        with gc_paused():
            binder, program = _prepare(source, path, library_path, catalog, outer, strict, ())
            bound = binder.bind(program, partial=True)
        if core_check is not None and binder.report.errors:
            binder.report.anchor = None  # the compiler's positions are the program file's
            binder.report.extend(core_check(bound))
    except CompileError as err:
        if binder is None:
            return list(err.diagnostics)
    except RecursionError:
        return [Diagnostic("program is nested too deeply to compile", path=_path_text(path))]
    except Exception as exc:  # noqa: BLE001 - check() promises never to raise
        return [Diagnostic(f"internal compiler error: {type(exc).__name__}: {exc}", path=_path_text(path))]
    return binder.report.all()


def _prepare(
    source: str,
    path: str | os.PathLike[str] | None,
    library_path: LibraryPath,
    catalog: Catalog | None,
    outer: Mapping[str, str] | None,
    strict: bool,
    outer_coordinates: Iterable[str],
) -> tuple[Binder, ast.Program]:
    """A binder for ``source`` whose report already holds the parse errors, and the program."""
    file = SourceFile(source, _path_text(path))
    program, parse_errors = parse_recovering(file)
    binder = Binder(
        catalog if catalog is not None else default_catalog(),
        library_path=library_path,
        outer=outer,
        source_path=program.path,
        strict=strict,
        outer_coordinates=outer_coordinates,
    )
    binder.report.path = program.path
    binder.report.extend(parse_errors)
    return binder, program


@contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic garbage collection while compiling.

    A big program is millions of long-lived objects (tokens, AST, IR) and
    makes almost no cyclic garbage; the collector's full passes over that
    growing heap made binding superlinear in the program's size.

    Everything allocated meanwhile is in the youngest generation, which the
    first allocation after re-enabling would walk whole (a third of a second
    for 100k statements). Unless the caller keeps frozen objects of its own,
    ``gc.freeze()`` + ``gc.unfreeze()`` (both O(1)) first move the young
    generations to the oldest, leaving them to the next full collection.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def _path_text(path: str | os.PathLike[str] | None) -> str | None:
    return os.fspath(path) if path is not None else None
