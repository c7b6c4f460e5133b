"""Packaging (long profile, ``POLYDAT_LONG=1``): the release wheel passes
tools/check_wheel.py and works when installed into a fresh virtual
environment; the sdist builds and installs; ``python -m polydat`` is the
same CLI as the ``polydat`` script."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

pytestmark = pytest.mark.long

ROOT = Path(__file__).resolve().parent.parent
README_RUN = ["run", str(ROOT / "examples" / "users.polydat"), "--cycles", "0..3"]


def build(kind: str, out: Path) -> Path:
    """``maturin build --release --zig`` (the portable wheel: docs/development.md)
    or ``maturin sdist`` into ``out``."""
    command = [sys.executable, "-m", "maturin", "build", "--release", "--zig", "--out", str(out)]
    if kind == "sdist":
        command = [sys.executable, "-m", "maturin", "sdist", "--out", str(out)]
    env = {**os.environ, "PYO3_PYTHON": sys.executable}
    env.pop("MATURIN_PEP517_ARGS", None)
    subprocess.run(command, cwd=ROOT, check=True, env=env, capture_output=True, timeout=3600)
    (made,) = out.glob("*.whl" if kind == "wheel" else "*.tar.gz")
    return made


def fresh_env(where: Path, package: Path) -> Path:
    """A new virtual environment with ``package`` installed; its python."""
    venv.create(where, with_pip=True)
    python = where / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if k not in ("MATURIN_PEP517_ARGS", "PYTHONPATH")}
    subprocess.run([str(python), "-m", "pip", "install", "-q", str(package)], check=True, env=env, timeout=3600)
    return python


def readme_example(python: Path) -> str:
    script = python.parent / "polydat"
    by_script = subprocess.run([str(script), *README_RUN], capture_output=True, text=True, check=True, cwd="/")
    by_module = subprocess.run([str(python), "-m", "polydat", *README_RUN], capture_output=True, text=True,
                               check=True, cwd="/")
    assert by_script.stdout == by_module.stdout
    return by_script.stdout


def test_the_release_wheel_is_abi3_and_runs_the_readme_example(tmp_path: Path) -> None:
    wheel = build("wheel", tmp_path / "dist")
    check = subprocess.run([sys.executable, str(ROOT / "tools" / "check_wheel.py"), str(wheel)],
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stderr  # abi3, manylinux_2_28 or older, stripped, <= 12 MB
    import zipfile

    shipped = zipfile.ZipFile(wheel).namelist()
    assert {"polydat/data/README.md", "polydat/data/countries.csv", "polydat/stdlib/people.polydat"} <= set(shipped)
    python = fresh_env(tmp_path / "env", wheel)
    out = readme_example(python)
    assert out.splitlines()[0] == "cycle,hashed,user_id,bucket,score,active,label"
    assert out.splitlines()[1].startswith("0,16294208416658607535,607535,47,")


def test_the_release_wheel_passes_the_equivalence_suites(tmp_path: Path) -> None:
    # Release and debug builds have disagreed on floats before (operand order,
    # NaN folding): the corner and random-program suites run on what users install.
    wheel = build("wheel", tmp_path / "dist")
    python = fresh_env(tmp_path / "env", wheel)
    subprocess.run([str(python), "-m", "pip", "install", "-q", "pytest", "hypothesis"], check=True, timeout=1200)
    suites = ["tests/testing/test_node_corners.py", "tests/testing/test_random_programs.py",
              "tests/testing/test_failure_parity.py"]
    run = subprocess.run([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", *suites],
                         cwd=ROOT, capture_output=True, text=True, timeout=3600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]


def test_the_sdist_builds_and_installs(tmp_path: Path) -> None:
    sdist = build("sdist", tmp_path / "dist")
    python = fresh_env(tmp_path / "env", sdist)
    assert readme_example(python).splitlines()[1].startswith("0,16294208416658607535,607535,47,")
