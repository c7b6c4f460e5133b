"""The Python package type-checks: mypy over python/polydat, with the
extension's types from its .pyi (the settings are pyproject's [tool.mypy])."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_package_type_checks(tmp_path: Path) -> None:
    api = pytest.importorskip("mypy.api", reason="mypy is in the test extra")
    out, err, status = api.run(
        [str(ROOT / "python" / "polydat"), "--config-file", str(ROOT / "pyproject.toml"),
         "--cache-dir", str(tmp_path / "mypy")]
    )
    assert status == 0, out + err
