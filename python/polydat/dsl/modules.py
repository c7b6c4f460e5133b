"""Finding user modules: in the program, beside the source, on the library path.

A call name that is neither a module defined in the calling file nor a library
node is looked up on disk, in order: the directory of the calling file (when
it has a path), then each library directory, then the module library shipped
with the package (:data:`STDLIB_DIR`). In each directory the file
``<name>.polydat`` is tried first, then the other ``*.polydat`` files in name
order. The file ``<name>.polydat`` provides the module if it defines
``name(...) -> (...) := {...}`` or, in the compatibility form, binds a binding
named ``name``: that binding's dependency subgraph becomes a module whose
parameters are the names the subgraph reads but does not bind (sorted; typed
from the file's ``input`` and ``extern`` declarations when it has them) and
whose sole output is the binding. Any other file provides only the modules it
defines: its bindings are a program's own, never modules (a sibling
``users.polydat`` binding ``email := email(id)`` does not hide the bundled
``email``).

**Locales.** The shipped library's field modules are en_US. Each other
locale is one file, ``locales/<locale>.polydat`` in the shipped library
(:data:`LOCALES_DIR`), defining the fields that differ in that locale under
the same names (``first_name``, ``city_state_zip``, ``phone_number``, ...).
A call resolves under a locale (``pragma locale "de_DE"``, or the namespace
of ``de_DE.full_name(key)``): where it would find a module of the shipped
library (and from inside the shipped library's own modules), the locale's
file is asked first (:meth:`ModuleLoader.localized`), so a shipped module
that calls ``first_name`` calls the locale's. A user's module always wins.

A module found outside the library shipped with the package under the name of
one of the shipped modules shadows it; the binder reports that as a warning
naming both (:meth:`ModuleLoader.bundled`).

Only files that can provide the name are parsed: before parsing one of the
other files, its text is scanned for ``name(`` (comments allowed in between).
Parses and scans are cached for the process by (path, modification time,
size), so a big unrelated file costs one read, and an unchanged module file is
parsed once.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Union

from . import ast
from .diagnostics import SourceFile, read_source
from .lexer import ABSENT_WORDS
from ..errors import CompileError

MODULE_SUFFIX = ".polydat"

#: The module library shipped with the package (field modules, upstream's
#: stdlib modules): the last directory every lookup searches.
STDLIB_DIR = str(Path(__file__).resolve().parent.parent / "stdlib")

#: The locale files of the shipped library, one ``<locale>.polydat`` per
#: locale other than the default.
LOCALES_DIR = os.path.join(STDLIB_DIR, "locales")

#: The locale of the shipped library's own field modules, and of a program
#: that names none.
DEFAULT_LOCALE = "en_US"


def locale_names() -> list[str]:
    """The bundled locales, in name order (the default and one per file in
    :data:`LOCALES_DIR`)."""
    try:
        files = os.listdir(LOCALES_DIR)
    except OSError:
        files = []
    names = {DEFAULT_LOCALE, *(f[: -len(MODULE_SUFFIX)] for f in files if f.endswith(MODULE_SUFFIX))}
    return sorted(names)


def is_bundled(module: "ResolvedModule") -> bool:
    """Whether ``module`` is of the library shipped with the package (a locale's included)."""
    return directory_of(module.file.path) in (STDLIB_DIR, LOCALES_DIR)


@dataclass(frozen=True)
class ResolvedModule:
    """A module definition together with the file context its body resolves in."""

    definition: ast.ModuleDef
    file: SourceFile
    modules: dict[str, ast.ModuleDef]
    search_dir: str | None
    compat: bool = False

    @property
    def key(self) -> tuple[str | None, str]:
        """Identity used to detect recursive inlining."""
        return (self.file.path, self.definition.name)


def directory_of(path: str | None) -> str | None:
    """The directory holding ``path`` (None for sourceless programs)."""
    if not path:
        return None
    return os.path.dirname(os.path.abspath(path))


def module_table(program: ast.Program, file: SourceFile) -> dict[str, ast.ModuleDef]:
    """The module definitions of a file by name (duplicates are an error)."""
    table: dict[str, ast.ModuleDef] = {}
    for definition in program.modules:
        if definition.name in table:
            first = table[definition.name].span
            raise file.error(
                f"module '{definition.name}' is defined twice",
                definition.span,
                f"the first definition is at {first}",
            )
        table[definition.name] = definition
    return table


LibraryPath = Union[str, bytes, "os.PathLike[str]", Iterable[Union[str, bytes, "os.PathLike[str]"]]]


def library_dirs(library_path: LibraryPath) -> list[str]:
    """The library directories, absolute and without repeats.

    A single str, bytes or path-like is one directory (not a sequence of
    one-character names); anything else is iterated.
    """
    if isinstance(library_path, (str, bytes, os.PathLike)):
        entries: Iterable[Any] = [library_path]
    else:
        entries = library_path
    dirs: list[str] = []
    for entry in entries:
        directory = os.path.abspath(os.fsdecode(os.fspath(entry)))
        if directory not in dirs:
            dirs.append(directory)
    return dirs


_Stamp = tuple[int, int]
_Loaded = tuple[ast.Program, SourceFile]
#: path -> (stamp, parsed file or the error parsing it raised)
_PARSED: dict[str, tuple[_Stamp, _Loaded | CompileError]] = {}
#: (path, name) -> (stamp, whether the text may define or bind name)
_SCANNED: dict[tuple[str, str], tuple[_Stamp, bool]] = {}

_GAP = r"(?:\s|/\*[\s\S]*?\*/|(?://|#)[^\n]*)*"
_IDENT_CHAR = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def _stamp(path: str) -> _Stamp | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_size)


def may_define(text: str, name: str, bindings: bool = True) -> bool:
    """Whether ``text`` writes ``name`` the way a definition or binding does.

    True for ``name :=``, ``name: T :=``, ``name(...) ->`` and ``(a, name) :=``
    (and for some reads, such as calls: a cheap over-approximation, never an
    omission); the caller parses the file to be sure. ``bindings=False``
    asks about module definitions only (``name(``).
    """
    if name not in text:
        return False
    for match in re.finditer(rf"{re.escape(name)}(?![A-Za-z0-9_]){_GAP}([:(,)])", text):
        start = match.start()
        if start and text[start - 1] in _IDENT_CHAR:
            continue
        if match.group(1) == "(":
            return True
        if not bindings:
            continue
        if match.group(1) == ":":
            return True
        # `name,` or `name)`: a definition only inside `( names ) :=`
        opening = text.rfind("(", 0, start)
        closing = text.find(")", start)
        if opening == -1 or closing == -1:
            continue
        inner = re.sub(r"/\*[\s\S]*?\*/|(?://|#)[^\n]*", " ", text[opening + 1:closing])
        if re.fullmatch(r"[A-Za-z0-9_,\s]*", inner) and re.match(_GAP + ":=", text[closing + 1:]):
            return True
    return False


def bundled_modules() -> list[tuple[str, ast.ModuleDef]]:
    """Every module of the library shipped with the package, as (file path,
    definition), by file then source order: what ``polydat fields`` lists
    and "did you mean" offers beside the nodes. Files are parsed once per
    change (the loader's cache)."""
    found: list[tuple[str, ast.ModuleDef]] = []
    for entry in sorted(os.listdir(STDLIB_DIR)):
        if entry.endswith(MODULE_SUFFIX):
            path = os.path.join(STDLIB_DIR, entry)
            loaded = ModuleLoader._load(path, strict=True)
            assert loaded is not None, "a strict load returns the file or raises"
            found.extend((path, definition) for definition in loaded[0].modules)
    return found


_DEFINITION_HEAD = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*\(", re.MULTILINE)
"""The start of a module definition: its name and ``(`` at the start of a line."""


@functools.lru_cache(maxsize=1)
def bundled_module_names() -> tuple[str, ...]:
    """The names of :func:`bundled_modules`, read by a text scan (no file is
    parsed: "did you mean" asks for them on a typo, which must parse no
    unrelated file). The shipped files start each definition at the start of
    a line and nothing else there with a name and ``(``."""
    names = []
    for entry in sorted(os.listdir(STDLIB_DIR)):
        if entry.endswith(MODULE_SUFFIX):
            with open(os.path.join(STDLIB_DIR, entry), encoding="utf-8") as handle:
                names.extend(_DEFINITION_HEAD.findall(handle.read()))
    return tuple(names)


class ModuleLoader:
    """Looks modules up on disk by name, parsing only files that may provide it."""

    def __init__(self, library_path: LibraryPath = (), exclude: str | None = None):
        self.library_path = library_dirs(library_path)
        self.exclude = os.path.abspath(exclude) if exclude else None
        self._found: dict[tuple[str, str | None], ResolvedModule | None] = {}
        self._in_directory: dict[tuple[str, str], ResolvedModule | None] = {}
        self._listings: dict[str, list[str]] = {}

    def find(self, name: str, search_dir: str | None) -> ResolvedModule | None:
        """The module ``name`` visible from a file in ``search_dir``, if any file provides it."""
        key = (name, search_dir)
        if key not in self._found:
            self._found[key] = self._search(name, search_dir)
        return self._found[key]

    def _directories(self, search_dir: str | None) -> list[str]:
        dirs = [search_dir] if search_dir else []
        dirs.extend(d for d in self.library_path if d not in dirs)
        if STDLIB_DIR not in dirs:
            dirs.append(STDLIB_DIR)
        return dirs

    def bundled(self, name: str) -> ResolvedModule | None:
        """The module ``name`` of the library shipped with the package, if it has one."""
        return self._search_in(name, STDLIB_DIR)

    def localized(self, name: str, locale: str) -> ResolvedModule | None:
        """The module ``name`` as locale ``locale``'s file defines it, if it
        does (None for the default locale, whose modules are the library's
        own). Its body searches the shipped library, not the other locales."""
        if locale == DEFAULT_LOCALE:
            return None
        key = (name, f"locale:{locale}")
        if key not in self._in_directory:
            path = os.path.join(LOCALES_DIR, locale + MODULE_SUFFIX)
            found = None
            if os.path.isfile(path):
                program, file = self._load(path, strict=True)  # type: ignore[misc]
                table = module_table(program, file)
                if name in table:
                    found = ResolvedModule(table[name], file, table, STDLIB_DIR)
            self._in_directory[key] = found
        return self._in_directory[key]

    def _search(self, name: str, search_dir: str | None) -> ResolvedModule | None:
        for directory in self._directories(search_dir):
            found = self._search_in(name, directory)
            if found is not None:
                return found
        return None

    def _search_in(self, name: str, directory: str) -> ResolvedModule | None:
        """The module ``name`` as ``directory`` provides it: ``<name>.polydat``
        (a definition or the compatibility form), else the first other file
        in name order that defines it."""
        key = (name, directory)
        if key in self._in_directory:
            return self._in_directory[key]
        found = None
        exact = os.path.join(directory, name + MODULE_SUFFIX)
        if os.path.isfile(exact) and exact != self.exclude:
            found = module_from_program(name, *self._load(exact, strict=True))  # type: ignore[misc]
        if found is None:
            for candidate in self._other_files(directory, exact):
                if not self._may_provide(candidate, name):
                    continue
                loaded = self._load(candidate, strict=False)
                if loaded is None:
                    continue
                found = module_from_program(name, *loaded, compat=False)
                if found is not None:
                    break
        self._in_directory[key] = found
        return found

    def _other_files(self, directory: str, exact: str) -> list[str]:
        if directory not in self._listings:
            try:
                entries = sorted(os.listdir(directory))
            except OSError:
                entries = []
            self._listings[directory] = [
                os.path.join(directory, entry) for entry in entries if entry.endswith(MODULE_SUFFIX)
            ]
        return [p for p in self._listings[directory] if p not in (exact, self.exclude) and os.path.isfile(p)]

    @staticmethod
    def _may_provide(path: str, name: str) -> bool:
        """The cheap text scan of :func:`may_define` for a module definition,
        cached by (path, stamp, name)."""
        stamp = _stamp(path)
        if stamp is None:
            return False
        cached = _SCANNED.get((path, name))
        if cached is not None and cached[0] == stamp:
            return cached[1]
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                verdict = may_define(handle.read(), name, bindings=False)
        except OSError:
            return False
        _SCANNED[(path, name)] = (stamp, verdict)
        return verdict

    @staticmethod
    def _load(path: str, strict: bool) -> _Loaded | None:
        """``path`` parsed (cached by stamp). ``strict``: a broken file is an error, not a skip."""
        stamp = _stamp(path)
        cached = _PARSED.get(path)
        if cached is not None and stamp is not None and cached[0] == stamp:
            result = cached[1]
        else:
            try:
                result = _parse(path)
            except CompileError as err:
                result = err
            if stamp is not None:
                _PARSED[path] = (stamp, result)
        if isinstance(result, CompileError):
            if strict:
                raise result
            return None
        return result


def _parse(path: str) -> _Loaded:
    from .parser import parse_file

    try:
        text = read_source(path)
    except OSError as exc:
        raise CompileError(
            SourceFile("", path).diagnostic(f"cannot read module file: {exc}", None)
        ) from exc
    file = SourceFile(text, path)
    return parse_file(file), file


def module_from_program(
    name: str, program: ast.Program, file: SourceFile, compat: bool = True
) -> ResolvedModule | None:
    """The module ``name`` as provided by one parsed file: its definition, or
    (``compat``, for the file named after the module) the compatibility form."""
    table = module_table(program, file)
    directory = directory_of(file.path)
    if name in table:
        return ResolvedModule(table[name], file, table, directory)
    if not compat:
        return None
    definition = compat_module(name, program)
    if definition is None and file.path and os.path.splitext(os.path.basename(file.path))[0] == name:
        definition = file_module(name, program)
    if definition is None:
        return None
    return ResolvedModule(definition, file, table, directory, compat=True)


def file_module(name: str, program: ast.Program) -> ast.ModuleDef | None:
    """The module a file ``name.polydat`` is by itself, when it defines no
    module ``name`` and binds no ``name``: its bindings, with the names they
    read but nothing binds (and its declared inputs) as parameters, sorted,
    and the bindings no other binding reads as outputs, in source order."""
    if not program.bindings:
        return None
    bound: dict[str, ast.Target] = {}
    read: set[str] = set()
    free: dict[str, ast.Span] = {}
    for binding in program.bindings:
        for target in binding.targets:
            if target.name != "_":
                bound.setdefault(target.name, target)
    for binding in program.bindings:
        for ref in ast.iter_names(binding.value):
            read.add(ref.name)
            if ref.name not in bound and ref.name not in ABSENT_WORDS:
                free.setdefault(ref.name, ref.span)
    declared: dict[str, str | None] = {}
    for statement in program.statements:
        if isinstance(statement, (ast.InputDecl, ast.ExternDecl)):
            declared.setdefault(statement.name, statement.type_name)
            free.setdefault(statement.name, statement.span)
    outputs = [target for target_name, target in bound.items() if target_name not in read]
    if not outputs:
        return None
    body = tuple(
        dataclasses.replace(b, modifiers=tuple(m for m in b.modifiers if m == "const"), type_name=None, type_span=None)
        for b in program.bindings
    )
    first = program.bindings[0]
    return ast.ModuleDef(
        name=name,
        params=tuple(ast.Param(p, declared.get(p), free[p]) for p in sorted(free)),
        outputs=tuple(ast.Param(t.name, None, t.span) for t in outputs),
        body=body,
        span=first.span,
        doc=first.doc,
        pragmas=program.pragmas,
    )


def compat_module(name: str, program: ast.Program) -> ast.ModuleDef | None:
    """The compatibility-form module for binding ``name`` of ``program``, if it binds one."""
    producer: dict[str, ast.Binding] = {}
    for binding in program.bindings:
        for target in binding.targets:
            producer.setdefault(target.name, binding)
    root = producer.get(name)
    if root is None:
        return None
    declared_types: dict[str, str | None] = {}
    for statement in program.statements:
        if isinstance(statement, ast.InputDecl):
            declared_types.setdefault(statement.name, statement.type_name)
        elif isinstance(statement, ast.ExternDecl):
            declared_types.setdefault(statement.name, statement.type_name)
    included: set[int] = set()
    params: dict[str, ast.Span] = {}
    pending = [root]
    while pending:
        binding = pending.pop()
        if id(binding) in included:
            continue
        included.add(id(binding))
        for ref in ast.iter_names(binding.value):
            dependency = producer.get(ref.name)
            if dependency is not None:
                pending.append(dependency)
            elif ref.name not in ABSENT_WORDS:  # a read of `none` stays an error in the body
                params.setdefault(ref.name, ref.span)
    body = tuple(
        dataclasses.replace(b, modifiers=(), type_name=None, type_span=None)
        for b in program.bindings
        if id(b) in included
    )
    root_target = next(t for t in root.targets if t.name == name)
    return ast.ModuleDef(
        name=name,
        params=tuple(ast.Param(p, declared_types.get(p), params[p]) for p in sorted(params)),
        outputs=(ast.Param(name, None, root_target.span),),
        body=body,
        span=root_target.span,
        doc=root.doc,
    )
