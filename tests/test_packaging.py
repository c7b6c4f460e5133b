"""How the wheel is built: ``pip wheel .`` goes through tools/build_backend.py,
which gives maturin the configured manylinux compatibility and the zig
linker unless the user chose a compatibility; the classifiers name the
CPython versions .ci/run installs the wheel into."""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())

pytest.importorskip("maturin")
sys.path.insert(0, str(ROOT / "tools"))
import build_backend  # noqa: E402

sys.path.remove(str(ROOT / "tools"))


@pytest.fixture(autouse=True)
def _at_the_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # maturin reads ./pyproject.toml, as under pip


def test_pip_builds_through_the_projects_backend() -> None:
    assert PYPROJECT["build-system"]["build-backend"] == "build_backend"
    assert PYPROJECT["build-system"]["backend-path"] == ["tools"]
    assert PYPROJECT["tool"]["maturin"]["compatibility"] == "manylinux_2_28"
    assert PYPROJECT["tool"]["maturin"]["strip"] is True


def test_a_linux_wheel_build_gets_the_compatibility_and_zig() -> None:
    given = ["--profile", "dev"]
    assert build_backend.portable_build_args(given, "linux") == [*given, "--zig", "--compatibility", "manylinux_2_28"]
    assert build_backend.portable_build_args(["--zig"], "linux") == ["--zig", "--compatibility", "manylinux_2_28"]


@pytest.mark.parametrize("given", [["--compatibility", "off"], ["--compatibility=manylinux2014"], ["--manylinux", "off"]])
def test_a_compatibility_the_user_chose_wins(given: list[str]) -> None:
    assert build_backend.portable_build_args(given, "linux") == given


def test_other_systems_build_as_maturin_does() -> None:
    assert build_backend.portable_build_args([], "darwin") == []


def test_zig_joins_the_build_requirements_only_when_it_links(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MATURIN_PEP517_ARGS", raising=False)
    monkeypatch.setattr(build_backend.sys, "platform", "linux")
    assert build_backend.ZIGLANG_REQUIREMENT in build_backend.get_requires_for_build_wheel(None)
    off = {"build-args": "--compatibility off"}
    assert build_backend.ZIGLANG_REQUIREMENT not in build_backend.get_requires_for_build_wheel(off)


def test_the_classifiers_name_the_python_versions_ci_tries() -> None:
    classified = {c.rsplit(" ", 1)[1] for c in PYPROJECT["project"]["classifiers"]
                  if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)}
    tried = re.search(r"^for version in ([\d. ]+); do$", (ROOT / ".ci" / "run").read_text(), re.M)
    assert tried is not None
    assert classified == set(tried.group(1).split())
    oldest = min(classified, key=lambda v: tuple(map(int, v.split("."))))
    assert PYPROJECT["project"]["requires-python"] == f">={oldest}"
