"""``polydat run`` shows what ``polydat check`` shows before it runs
(issue 44 item 11): the compiler's warnings, and on a file that does not
compile every error and warning, for programs and workloads alike."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def polydat(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "polydat.cli", *args], capture_output=True, text=True, timeout=120
    )


WARNS = "input cycle: u64\nx := clamp(cycle, 5, 1)\ny := cycle\n"
"""Compiles; the core warns that `clamp` fails on every evaluation."""

THREE_BAD_LINES = "input cycle: u64\na := nosuch(cycle)\nb := cycle +\nc := other(cycle)\nd := cycle\n"
"""Two errors and a warning, on three lines."""

WORKLOAD = """\
params:
  n: 3
phases:
  t:
    cycles: "{n}"
    bindings: |
      x := clamp(cycle, 5, 1)
      y := cycle
    emit: [y]
  u:
    cycles: "{n}"
    bindings: |
      a := nosuch(cycle)
"""


def diagnostics(stderr: str) -> list[str]:
    """The header lines (``path:line:col:severity: message``) of rendered diagnostics."""
    return [line for line in stderr.splitlines() if ":warning:" in line or ":error:" in line]


@pytest.mark.parametrize("source", [WARNS, THREE_BAD_LINES], ids=["warning", "three-bad-lines"])
def test_run_shows_every_diagnostic_check_shows(tmp_path: Path, source: str):
    path = tmp_path / "p.polydat"
    path.write_text(source)
    checked = polydat("check", str(path))
    assert diagnostics(checked.stderr), "the program has diagnostics"
    ran = polydat("run", str(path), "--cycles", "2", "--outputs", "y" if source is WARNS else "d")
    assert diagnostics(ran.stderr)[: len(diagnostics(checked.stderr))] == diagnostics(checked.stderr)
    assert ran.stderr.startswith(checked.stderr), "the same text, before anything else"
    assert ran.returncode == checked.returncode
    assert "Traceback" not in ran.stderr


def test_run_of_a_program_with_only_warnings_runs_after_showing_them(tmp_path: Path):
    path = tmp_path / "p.polydat"
    path.write_text(WARNS)
    ran = polydat("run", str(path), "--cycles", "2", "--outputs", "y")
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "cycle,y\n0,0\n1,1\n"
    assert diagnostics(ran.stderr) == [f"{path}:2:6:warning: `clamp`: min is greater than max, so every evaluation "
                                       "of this node fails"]


def test_run_of_a_workload_shows_every_diagnostic_and_writes_nothing(tmp_path: Path):
    path = tmp_path / "w.yaml"
    path.write_text(WORKLOAD)
    checked = polydat("check", str(path))
    ran = polydat("run", str(path), "-o", str(tmp_path / "out"))
    assert checked.returncode == ran.returncode == 1
    assert len(diagnostics(checked.stderr)) == 2
    assert diagnostics(ran.stderr) == diagnostics(checked.stderr)
    assert not (tmp_path / "out").exists()
