"""Finding user modules: in the program, beside the source, on the library path.

A call name that is neither a module defined in the calling file nor a library
node is looked up on disk, in order: the directory of the calling file (when
it has a path), then each library directory. In each directory the file
``<name>.polydat`` is tried first, then every other ``*.polydat`` file in name
order. A file provides the module if it defines ``name(...) -> (...) := {...}``
or, in the compatibility form, binds a binding named ``name``: that binding's
dependency subgraph becomes a module whose parameters are the names the
subgraph reads but does not bind (sorted; typed from the file's ``input`` and
``extern`` declarations when it has them) and whose sole output is the binding.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from . import ast
from .diagnostics import SourceFile
from ..errors import CompileError

MODULE_SUFFIX = ".polydat"


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


class ModuleLoader:
    """Looks modules up on disk, parsing each file at most once per bind."""

    def __init__(self, library_path: Iterable[str | os.PathLike[str]] = (), exclude: str | None = None):
        self.library_path: list[str] = []
        for entry in library_path:
            directory = os.path.abspath(os.fspath(entry))
            if directory not in self.library_path:
                self.library_path.append(directory)
        self.exclude = os.path.abspath(exclude) if exclude else None
        self._parsed: dict[str, tuple[ast.Program, SourceFile] | None] = {}
        self._found: dict[tuple[str, str | None], ResolvedModule | None] = {}

    def find(self, name: str, search_dir: str | None) -> ResolvedModule | None:
        """The module ``name`` visible from a file in ``search_dir``, if any file provides it."""
        key = (name, search_dir)
        if key not in self._found:
            self._found[key] = self._search(name, search_dir)
        return self._found[key]

    def _directories(self, search_dir: str | None) -> list[str]:
        dirs = [search_dir] if search_dir else []
        dirs.extend(d for d in self.library_path if d not in dirs)
        return dirs

    def _search(self, name: str, search_dir: str | None) -> ResolvedModule | None:
        for directory in self._directories(search_dir):
            exact = os.path.join(directory, name + MODULE_SUFFIX)
            if os.path.isfile(exact) and exact != self.exclude:
                loaded = self._load(exact, strict=True)
                if loaded is not None:
                    found = module_from_program(name, *loaded)
                    if found is not None:
                        return found
            for candidate in self._other_files(directory, exact):
                loaded = self._load(candidate, strict=False)
                if loaded is None:
                    continue
                found = module_from_program(name, *loaded)
                if found is not None:
                    return found
        return None

    def _other_files(self, directory: str, exact: str) -> list[str]:
        try:
            entries = sorted(os.listdir(directory))
        except OSError:
            return []
        paths = []
        for entry in entries:
            if not entry.endswith(MODULE_SUFFIX):
                continue
            path = os.path.join(directory, entry)
            if path in (exact, self.exclude) or not os.path.isfile(path):
                continue
            paths.append(path)
        return paths

    def _load(self, path: str, strict: bool) -> tuple[ast.Program, SourceFile] | None:
        """Parse ``path`` (cached). ``strict``: a broken file is an error, not a skip."""
        if path in self._parsed:
            cached = self._parsed[path]
            if cached is None and strict:
                return self._parse(path)
            return cached
        try:
            result = self._parse(path)
        except (CompileError, OSError, UnicodeDecodeError):
            self._parsed[path] = None
            if strict:
                raise
            return None
        self._parsed[path] = result
        return result

    @staticmethod
    def _parse(path: str) -> tuple[ast.Program, SourceFile]:
        from .parser import parse_file

        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise CompileError(
                SourceFile("", path).diagnostic(f"cannot read module file: {exc}", None)
            ) from exc
        file = SourceFile(text, path)
        return parse_file(file), file


def module_from_program(name: str, program: ast.Program, file: SourceFile) -> ResolvedModule | None:
    """The module ``name`` as provided by one parsed file (formal or compatibility form)."""
    table = module_table(program, file)
    directory = directory_of(file.path)
    if name in table:
        return ResolvedModule(table[name], file, table, directory)
    definition = compat_module(name, program)
    if definition is None:
        return None
    return ResolvedModule(definition, file, table, directory, compat=True)


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
            else:
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
