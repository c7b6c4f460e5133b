"""Golden files: the rows of every shipped example and field, checked in.

Polydat promises that the values of its shipped examples and field modules
change only on purpose, with a CHANGELOG entry (``docs/stability.md``). The
golden files hold those values in a checkout, under ``tests/golden/``:

* ``<case>.csv`` (a program, a field) or ``<case>/<table>.csv`` (each table
  of a workload): the first :data:`GOLDEN_ROWS` rows, as ``polydat run``
  writes CSV (the header, the swept coordinate first, then every output in
  declaration order);
* ``sha256.json``: per table, the SHA-256 of the same CSV bytes for the
  first :data:`HASH_ROWS` rows (a workload: its tables at
  :data:`WORKLOAD_PARAMS`' larger scale, each up to that many rows).

The cases (:func:`cases`) are found, never listed by hand: every program
and workload under ``examples/`` (a ``.polydat`` file that defines only
modules is a library, not a case) and every field module ``polydat fields``
lists, as the program ``input key: u64`` / ``OUTPUTS := FIELD(key)``.

From a shell, in a checkout::

    python -m polydat.testing.golden                  # check the 1,000-row files; exit 1 on a difference
    python -m polydat.testing.golden --long           # and the 1M-row hashes
    python -m polydat.testing.golden --update         # regenerate everything (files and hashes)
    python -m polydat.testing.golden --update --only fields/email
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, cast

__all__ = [
    "GOLDEN_ROWS",
    "HASH_ROWS",
    "UPDATE_COMMAND",
    "Case",
    "Difference",
    "cases",
    "check",
    "find_root",
    "main",
    "update",
    "write_program_rows",
]

GOLDEN_ROWS = 1000
"""Rows of each checked-in CSV file."""

HASH_ROWS = 1_000_000
"""Rows behind each SHA-256 of ``sha256.json``."""

GOLDEN_DIR = Path("tests") / "golden"
"""Where the golden files live, in a checkout."""

HASH_FILE = "sha256.json"

UPDATE_COMMAND = "python -m polydat.testing.golden --update"
"""The command that regenerates the golden files (run it in the checkout)."""

WORKLOAD_PARAMS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "examples/tpch/tpch.yaml": ({"sf": 0.01}, {"sf": 0.17}),
    "examples/shop/shop.yaml": ({}, {"users": 200_000}),
}
"""The params a workload's golden tables are made with: (for the 1,000-row
files, for the hashes: its largest table just past :data:`HASH_ROWS` rows);
a workload not listed runs with its own params."""


class _Sha256Writer(io.RawIOBase):
    """A binary sink that hashes what is written (no file behind it)."""

    def __init__(self) -> None:
        self.digest = hashlib.sha256()

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        self.digest.update(data)
        return len(data)


class _FirstRecords(io.RawIOBase):
    """A binary sink that passes on the first ``limit`` CSV records (lines,
    a quoted value's own line breaks inside its record) and drops the rest."""

    def __init__(self, out: IO[bytes], limit: int):
        self.out = out
        self.left = limit
        self.quoted = False

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        chunk = bytes(data)
        if self.left > 0:
            end = self._end_of_records(chunk)
            self.out.write(chunk if end is None else chunk[:end])
        return len(chunk)

    def _end_of_records(self, chunk: bytes) -> int | None:
        """Where the last record wanted ends in ``chunk`` (None: past it)."""
        if not self.quoted and b'"' not in chunk:
            lines = chunk.count(b"\n")
            if lines < self.left:
                self.left -= lines
                return None
        for index, byte in enumerate(chunk):
            if byte == 0x22:  # '"': a doubled one toggles twice
                self.quoted = not self.quoted
            elif byte == 0x0A and not self.quoted:
                self.left -= 1
                if self.left == 0:
                    return index + 1
        return None


@dataclass(frozen=True)
class Case:
    """One golden case: a shipped program, workload or field."""

    name: str
    """Its name under ``tests/golden`` (``examples/users``, ``fields/email``)."""
    kind: str
    """``program``, ``workload`` or ``field``."""
    source: str
    """The file it is read from (a field: its module file)."""
    program_text: str | None = None
    """A field's program (None for a file)."""
    params: tuple[dict[str, Any], dict[str, Any]] = field(default=({}, {}))
    """A workload's params: for the 1,000-row files, for the hashes."""

    def tables(self) -> list[str]:
        """The golden names of its tables (``examples/shop/shop/users``)."""
        if self.kind != "workload":
            return [self.name]
        return [f"{self.name}/{phase.name}" for phase in self._workload(self.params[0]).phases]

    def program(self, engine: str = "auto") -> Any:
        """The program of a program or field case, compiled for ``engine``."""
        from ..program import compile as compile_text
        from ..program import compile_file

        if self.program_text is not None:
            return compile_text(self.program_text, engine=engine)
        return compile_file(self.source, engine=engine)

    def write(
        self, sink: Callable[[str], IO[bytes]], rows: int, long: bool = False, engine: str = "auto", threads: int = 1
    ) -> dict[str, int]:
        """Writes each table's first ``rows`` rows as CSV to ``sink(table name)``
        (``long``: a workload at its params for the hashes) on ``engine`` and
        ``threads`` workers; returns the rows written per table."""
        if self.kind == "workload":
            workload = self._workload(self.params[1 if long else 0])
            workload.engine = engine
            written = {}
            for phase in workload.phases:
                table = f"{self.name}/{phase.name}"
                written[table] = min(rows, workload.write(phase, _FirstRecords(sink(table), rows + 1), "csv", threads))
            return written
        return {self.name: write_program_rows(self.program(engine), range(rows), sink(self.name), threads=threads)}

    def csv(self, engine: str = "auto", threads: int = 1) -> dict[str, bytes]:
        """``{table: CSV of its first GOLDEN_ROWS rows}`` (on ``engine``, ``threads``)."""
        found: dict[str, io.BytesIO] = {}
        self.write(lambda table: found.setdefault(table, io.BytesIO()), GOLDEN_ROWS, engine=engine, threads=threads)
        return {table: out.getvalue() for table, out in found.items()}

    def hashes(self) -> dict[str, tuple[int, str]]:
        """``{table: (rows, SHA-256 of the CSV of its first HASH_ROWS rows)}``
        (a workload table of fewer rows: all of them)."""
        found: dict[str, _Sha256Writer] = {}
        written = self.write(lambda table: cast(IO[bytes], found.setdefault(table, _Sha256Writer())), HASH_ROWS,
                             long=True)
        return {table: (written[table], out.digest.hexdigest()) for table, out in found.items()}

    def _workload(self, params: dict[str, Any]) -> Any:
        from ..workload import Workload

        return Workload.load(self.source).with_params(**params)


def write_program_rows(program: Any, cycles: range, out: IO[bytes], header: bool = True, threads: int = 1) -> int:
    """Writes ``program``'s rows over ``cycles`` to ``out`` as ``polydat run``
    writes CSV (the same writer: the swept coordinate, then every output);
    returns the row count."""
    from ..cli import RunPlan, write_rows

    plan = RunPlan(program, cycles, list(program.outputs), {}, program.coordinates[0], "csv", threads, "never")
    return write_rows(plan, out, header=header)


def find_root(start: str | os.PathLike[str] | None = None) -> Path:
    """The checkout holding ``start`` (default: the working directory): the
    nearest directory upward with ``examples/`` and ``pyproject.toml``."""
    from ..errors import ArgumentError

    here = Path(start if start is not None else os.getcwd()).resolve()
    for directory in (here, *here.parents):
        if (directory / "examples").is_dir() and (directory / "pyproject.toml").is_file():
            return directory
    raise ArgumentError(f"no polydat checkout (a directory with examples/ and pyproject.toml) holds {here}")


def cases(root: Path) -> list[Case]:
    """Every golden case of the checkout at ``root``: its examples' programs
    and workloads, then every bundled field module."""
    from ..fields import fields
    from ..program import compile_file

    found = []
    examples = root / "examples"
    for path in sorted(examples.rglob("*")):
        relative = path.relative_to(root).as_posix()
        name = relative.rsplit(".", 1)[0]
        if path.suffix == ".polydat":
            program = compile_file(path)
            if program.coordinates and program.outputs:  # else a library of modules
                found.append(Case(name, "program", str(path)))
        elif path.suffix in (".yaml", ".yml"):
            found.append(Case(name, "workload", str(path), params=WORKLOAD_PARAMS.get(relative, ({}, {}))))
    for module in fields():
        if not module.call:  # a module with no example call takes more than a key
            continue
        outputs = module.signature.split("-> (", 1)[1].rstrip(")").split(", ")
        names = [output.split(":")[0].strip() for output in outputs]
        targets = names[0] if len(names) == 1 else f"({', '.join(names)})"
        text = f"input key: u64\n{targets} := {module.call}\n"
        found.append(Case(f"fields/{module.name}", "field", module.file, program_text=text))
    return found


@dataclass(frozen=True)
class Difference:
    """A golden table that does not hold what the build makes."""

    table: str
    problem: str

    def __str__(self) -> str:
        return f"{self.table}: {self.problem}"


def _first_difference(want: bytes, got: bytes) -> str:
    """The first line where ``got`` differs from ``want``, both shown."""
    wanted, made = want.decode("utf-8").splitlines(), got.decode("utf-8").splitlines()
    for number, (a, b) in enumerate(zip(wanted, made), start=1):
        if a != b:
            return f"line {number} differs:\n    golden: {a}\n    now:    {b}"
    return f"{len(wanted)} lines golden, {len(made)} now"


def _golden_files(golden: Path) -> set[str]:
    return {p.relative_to(golden).as_posix()[: -len(".csv")] for p in golden.rglob("*.csv")}


def check(root: Path, long: bool = False, only: Sequence[str] = (), golden: Path | None = None) -> list[Difference]:
    """Every difference between the golden files under ``golden`` (default
    ``root/tests/golden``) and what this build makes: each table's 1,000
    rows, a golden file no case makes, and with ``long`` the 1M-row hashes.
    ``only`` keeps the cases whose name contains one of its words."""
    golden = golden if golden is not None else root / GOLDEN_DIR
    chosen = _chosen(cases(root), only)
    differences = []
    stored = _read_hashes(golden)
    for case in chosen:
        for table, made in case.csv().items():
            path = golden / f"{table}.csv"
            if not path.is_file():
                differences.append(Difference(table, f"no golden file {path.relative_to(golden)}"))
            elif path.read_bytes() != made:
                differences.append(Difference(table, _first_difference(path.read_bytes(), made)))
        if long:
            for table, (rows, digest) in case.hashes().items():
                if stored.get(table) != (rows, digest):
                    got = f"{rows} rows: SHA-256 {digest}"
                    differences.append(Difference(table, f"{got}; golden: {_shown_hash(stored.get(table))}"))
    if not only:
        made_tables = {table for case in chosen for table in case.tables()}
        for table in sorted(_golden_files(golden) - made_tables):
            differences.append(Difference(table, "a golden file no shipped example or field makes"))
    return differences


def _chosen(found: list[Case], only: Sequence[str]) -> list[Case]:
    return [case for case in found if not only or any(word in case.name for word in only)]


def _read_hashes(golden: Path) -> dict[str, tuple[int, str]]:
    """``{table: (rows, SHA-256)}`` of ``sha256.json``."""
    path = golden / HASH_FILE
    if not path.is_file():
        return {}
    entries = json.loads(path.read_text(encoding="utf-8"))
    return {table: (entry["rows"], entry["sha256"]) for table, entry in entries.items()}


def _shown_hash(stored: tuple[int, str] | None) -> str:
    return "(none)" if stored is None else f"{stored[0]} rows: SHA-256 {stored[1]}"


def update(root: Path, hashes: bool = True, only: Sequence[str] = (), log: Callable[[str], None] = print) -> None:
    """Regenerates the golden files of ``root`` from this build: the
    1,000-row CSV files and (``hashes``) the 1M-row hashes, of the cases
    ``only`` chooses (default: all; then files no case makes are removed)."""
    golden = root / GOLDEN_DIR
    chosen = _chosen(cases(root), only)
    stored = json.loads((golden / HASH_FILE).read_text(encoding="utf-8")) if (golden / HASH_FILE).is_file() else {}
    for case in chosen:
        for table, made in case.csv().items():
            path = golden / f"{table}.csv"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(made)
        if hashes:
            for table, (rows, digest) in case.hashes().items():
                stored[table] = {"rows": rows, "sha256": digest}
        log(f"updated {case.name}")
    if not only:
        made_tables = {table for case in chosen for table in case.tables()}
        for table in sorted(_golden_files(golden) - made_tables):
            (golden / f"{table}.csv").unlink()
            log(f"removed {table}.csv (no case makes it)")
        if hashes:
            stored = {table: entry for table, entry in stored.items() if table in made_tables}
    text = json.dumps(dict(sorted(stored.items())), indent=1) + "\n"
    (golden / HASH_FILE).write_text(text, encoding="utf-8")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m polydat.testing.golden",
        description="Check (default) or regenerate the golden files of a polydat checkout (tests/golden).",
    )
    parser.add_argument("--update", action="store_true", help="regenerate the files and the 1M-row hashes")
    parser.add_argument("--rows-only", action="store_true", help="with --update: only the 1,000-row files")
    parser.add_argument("--long", action="store_true", help="check the 1M-row hashes too")
    parser.add_argument("--only", action="append", default=[], metavar="WORD",
                        help="only the cases whose name contains WORD (repeatable), e.g. fields/email")
    parser.add_argument("--root", help="the checkout (default: found from the working directory upward)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: check (exit 1 on a difference) or ``--update``."""
    args = _parser().parse_args(argv)
    root = find_root(args.root)
    if args.update:
        update(root, hashes=not args.rows_only, only=args.only)
        return 0
    differences = check(root, long=args.long, only=args.only)
    for difference in differences:
        print(difference, file=sys.stderr)
    if differences:
        print(f"{len(differences)} golden table(s) differ; if the change is meant, run {UPDATE_COMMAND} "
              "and add a CHANGELOG entry", file=sys.stderr)
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
