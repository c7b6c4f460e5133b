"""Every code sample of the documentation runs (``docs/development.md``,
"Every sample runs"): ```polydat blocks compile, and the rows a page shows
for one are what ``polydat run`` writes; ```python blocks run, and a value a
comment shows is the value; ```console blocks marked runnable run, printing
what they show. One test per page: its samples share a working directory
and, for Python, a namespace, in page order."""

from __future__ import annotations

import ast
import csv
import io
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from docs_samples import KNOWN_DIRECTIVES, ROOT, Block, Table, pages, samples, shown_values

import polydat

PACKAGE_PARENT = str(Path(polydat.__file__).resolve().parent.parent)


class PageRun:
    """The state one page's samples share: a working directory in which
    ``examples/`` and ``benches/`` are at hand and ``polydat`` is this
    checkout's command, a Python namespace, and the last program shown."""

    def __init__(self, page: Path, workdir: Path) -> None:
        self.page = page
        self.workdir = workdir
        for shared in ("examples", "benches"):
            (workdir / shared).symlink_to(ROOT / shared)
        bin_dir = workdir / ".bin"
        bin_dir.mkdir()
        shim = bin_dir / "polydat"
        shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m polydat "$@"\n')
        shim.chmod(0o755)
        self.env = dict(os.environ)
        self.env["PATH"] = f"{bin_dir}{os.pathsep}{self.env.get('PATH', '')}"
        self.env["PYTHONPATH"] = os.pathsep.join(p for p in (PACKAGE_PARENT, self.env.get("PYTHONPATH")) if p)
        self.namespace: dict[str, Any] = {"__name__": "__docs_sample__"}
        self.program: tuple[Path, list[str]] | None = None  # (file, --lib arguments)
        self.counter = 0

    def where(self, sample: Block | Table) -> str:
        return f"{sample.page.relative_to(ROOT)}:{sample.line}"

    # -- polydat -------------------------------------------------------------

    def polydat_block(self, block: Block) -> None:
        directive = block.directive or ""
        libs: list[str] = []
        if directive.startswith("same as "):
            path = ROOT / directive.removeprefix("same as ")
            assert block.text == path.read_text(encoding="utf-8"), f"{self.where(block)}: differs from {path}"
        elif directive.startswith("save as "):
            path = self.workdir / directive.removeprefix("save as ")
            path.write_text(block.text, encoding="utf-8")
        else:
            if directive.startswith("library_path="):
                libs = ["--lib", str(ROOT / directive.removeprefix("library_path="))]
            self.counter += 1
            path = self.workdir / f".sample-{self.counter}.polydat"
            path.write_text(block.text, encoding="utf-8")
        try:
            polydat.compile_file(path, library_path=libs[1:])
        except polydat.PolydatError as err:
            pytest.fail(f"{self.where(block)}: the polydat block does not compile:\n{err}")
        self.program = (path, libs)
        if directive == "comments show row 0":
            self.comments_show_row_0(block)

    def csv_rows(self, where: str, coordinates: list[int], columns: list[str]) -> dict[str, dict[str, str]]:
        """The CSV ``polydat run`` writes for the last program, by coordinate."""
        assert self.program is not None, f"{where}: no polydat block before it"
        path, libs = self.program
        first, last = min(coordinates), max(coordinates)
        run = subprocess.run(
            [sys.executable, "-m", "polydat", "run", str(path), "--cycles", f"{first}..{last + 1}",
             "--outputs", ",".join(columns), *libs],
            capture_output=True, text=True, env=self.env, cwd=self.workdir, timeout=300,
        )
        assert run.returncode == 0, f"{where}: {run.stderr}"
        rows = list(csv.DictReader(io.StringIO(run.stdout)))
        return {row[columns[0]]: row for row in rows}

    def comments_show_row_0(self, block: Block) -> None:
        shown = {}
        for line in block.text.splitlines():
            match = re.match(r"^(\w+)\s*:=.*#\s*(\S.*?)\s*$", line)
            if match:
                shown[match.group(1)] = match.group(2)
        assert shown, f"{self.where(block)}: no binding shows its value"
        prog = polydat.compile_file(self.program[0]) if self.program else None
        coordinate = prog.coordinates[0] if prog else "cycle"
        row = self.csv_rows(self.where(block), [0], [coordinate, *shown])["0"]
        for name, text in shown.items():
            assert row[name] == text, f"{self.where(block)}: {name} is {row[name]!r}, the comment says {text!r}"

    def rows_table(self, table: Table) -> None:
        coordinates = [int(row[0]) for row in table.rows]
        got = self.csv_rows(self.where(table), coordinates, table.header)
        for row in table.rows:
            actual = got[row[0]]
            for name, cell in zip(table.header, row):
                assert actual[name] == cell, (
                    f"{self.where(table)}: row {row[0]} {name} is {actual[name]!r}, the page shows {cell!r}"
                )

    # -- python --------------------------------------------------------------

    def python_block(self, block: Block) -> None:
        for stmt, (shows, expected) in shown_values(block.text):
            where = f"{self.where(block)} (+{stmt.lineno - 1})"
            if shows:
                expr = ast.Expression(stmt.value)  # type: ignore[attr-defined]
                value = eval(compile(expr, where, "eval"), self.namespace)  # noqa: S307 - the page's own code
                assert value == expected, f"{where}: {ast.unparse(stmt)} is {value!r}, the page shows {expected!r}"
            else:
                exec(compile(ast.Module([stmt], []), where, "exec"), self.namespace)  # noqa: S102

    # -- console -------------------------------------------------------------

    def console_block(self, block: Block) -> None:
        commands: list[tuple[str, list[str]]] = []
        for line in block.text.splitlines():
            if line.startswith("$ "):
                commands.append((line[2:], []))
            elif block.lang == "bash" and line.strip() and not line.lstrip().startswith("#"):
                commands.append((line, []))
            elif commands:
                commands[-1][1].append(line)
            else:
                pytest.fail(f"{self.where(block)}: output before any command")
        for command, output in commands:
            run = subprocess.run(
                ["bash", "-c", command], capture_output=True, text=True, env=self.env, cwd=self.workdir, timeout=600
            )
            assert run.returncode == 0, f"{self.where(block)}: `{command}` failed:\n{run.stderr}"
            if block.lang == "console":
                assert run.stdout.splitlines() == output, (
                    f"{self.where(block)}: `{command}` printed\n{run.stdout}\nthe page shows\n" + "\n".join(output)
                )


def _page_id(page: Path) -> str:
    return str(page.relative_to(ROOT))


@pytest.mark.parametrize("page", pages(), ids=_page_id)
def test_every_sample_of_the_page_runs(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    runner = PageRun(page, tmp_path)
    for sample in samples(page):
        if sample.__class__ is Block and sample.directive is not None:  # type: ignore[union-attr]
            assert KNOWN_DIRECTIVES.match(sample.directive), f"{runner.where(sample)}: unknown {sample.directive!r}"
        if isinstance(sample, Table):
            runner.rows_table(sample)
        elif sample.lang == "polydat":
            runner.polydat_block(sample)
        elif sample.lang == "python":
            runner.python_block(sample)
        elif sample.lang in ("console", "bash") and sample.directive == "run":
            runner.console_block(sample)


def test_every_page_has_samples_of_each_kind_it_promises() -> None:
    """The collector finds what the pages hold: a guard against a change of
    the Markdown conventions that would make it skip every block."""
    found = {(s.lang if isinstance(s, Block) else "rows") for page in pages() for s in samples(page)}
    assert {"polydat", "python", "console", "rows"} <= found, found
    runnable = [s for page in pages() for s in samples(page) if isinstance(s, Block) and s.directive == "run"]
    assert len(runnable) >= 5, runnable


def test_the_pseudo_text_sample_makes_stretches_of_its_pool() -> None:
    """What the cookbook says of its pseudo-text sample: stretches of 10 to
    43 characters, nearly all different; sentences of the grammar."""
    from docs_samples import block_after

    block = block_after(ROOT / "docs" / "cookbook.md", "### Pseudo-text", "polydat")
    cols = polydat.compile(block).generate(range(2000))
    lengths = [len(v) for v in cols["remark"]]
    assert min(lengths) == 10 and max(lengths) == 43
    assert len(set(cols["remark"])) > 1800
    assert all(s[-1] in ".;:?!-" for s in cols["sentence"])
    assert any("special" in s for s in cols["sentence"])
