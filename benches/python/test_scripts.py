"""Quick mode of the bench scripts: under ``--benchmark-disable`` each
script of ``benches/python`` runs once on a tiny size, so a script that no
longer runs fails CI. Timed runs (``--benchmark-only``) leave these out:
the scripts are run by hand at full size (see docs/performance.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent

SCRIPTS = {
    "bench_scopes.py": ["--tuples", "50"],
    "compare_builds.py": ["--rounds", "1", "--cycles", "200", "--iters", "1", "--scenarios", "ladder"],
    "compile_scaling.py": ["--sizes", "50", "100", "--repeat", "1"],
    "bench_faker_port.py": ["--rows", "2000", "--faker-rows", "5", "--repeats", "1"],
    "bench_users.py": ["--rows", "2000", "--library-rows", "20", "--stream-rows", "4096", "--batch-rows", "1024",
                       "--repeats", "1"],
    "generate_throughput.py": ["--rows", "2000", "--repeat", "1"],
    "ladder.py": ["--rows", "2000", "--repeat", "1"],
    "scale.py": ["--nodes", "200", "--statements", "200"],
    "one_to_many.py": ["--users", "200", "--rounds", "1"],
    "tpch.py": ["--sf", "0.001", "--rounds", "1", "--threads", "1", "--polydat-only"],
    "tpch_compare.py": ["--sf", "0.001"],
}
"""Every script of this directory (``test_*.py`` and ``conftest.py`` aside), with tiny sizes."""


def test_every_script_has_a_quick_run() -> None:
    scripts = {p.name for p in HERE.glob("*.py") if not p.name.startswith("test_") and p.name != "conftest.py"}
    assert scripts == set(SCRIPTS), "give a new script its tiny arguments in SCRIPTS"


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_script_runs(script: str) -> None:
    done = subprocess.run([sys.executable, str(HERE / script), *SCRIPTS[script]], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip(), "a bench prints its figures"
