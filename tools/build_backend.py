"""The PEP 517 build backend of this project: maturin's, making the portable wheel.

maturin's own backend builds a wheel for the machine it runs on: it passes
``--compatibility off`` unless told otherwise, so ``pip wheel .`` would make a
``linux_x86_64`` wheel that no package index accepts and that needs the
builder's glibc. On Linux this backend passes instead ``[tool.maturin]
compatibility`` from ``pyproject.toml`` together with ``--zig``: the zig
linker (the ``ziglang`` package, installed into the build environment by
:func:`get_requires_for_build_wheel`) links against that glibc version, so
``pip wheel .`` and ``pip install .`` make the same wheel as
``maturin build --release --zig``.

Arguments the user gives (``MATURIN_PEP517_ARGS`` or ``pip --config-settings
build-args=...``) that choose a compatibility of their own are passed through
untouched (``MATURIN_PEP517_ARGS="--compatibility off"`` builds a plain local
wheel without zig). Editable installs and sdists are maturin's, unchanged.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Mapping

import maturin
from maturin import (  # noqa: F401  (the hooks this backend does not change)
    build_editable,
    build_sdist,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)

# The zig releases the wheel build was tested with (cargo-zigbuild, inside
# maturin, follows zig's command line, which changes between releases).
ZIGLANG_REQUIREMENT = "ziglang>=0.17,<0.18"


def portable_build_args(given: list[str], platform: str | None = None) -> list[str]:
    """The maturin arguments of a wheel build: ``given``, plus the configured
    compatibility and ``--zig`` on Linux (``platform``, by default this
    one's ``sys.platform``) when ``given`` chooses no compatibility."""
    platform = platform or sys.platform
    chooses_compatibility = any(
        arg in ("--compatibility", "--manylinux") or arg.startswith(("--compatibility=", "--manylinux="))
        for arg in given
    )
    compatibility = maturin.get_config().get("compatibility")
    if not platform.startswith("linux") or chooses_compatibility or not compatibility:
        return given
    zig = [] if "--zig" in given else ["--zig"]
    return [*given, *zig, "--compatibility", str(compatibility)]


def get_requires_for_build_wheel(config_settings: Mapping[str, Any] | None = None) -> list[str]:
    """maturin's requirements, and the zig linker where the wheel is linked with it."""
    requirements = list(maturin.get_requires_for_build_wheel(config_settings))
    if "--zig" in portable_build_args(maturin.get_maturin_pep517_args(config_settings)):
        requirements.append(ZIGLANG_REQUIREMENT)
    return requirements


def build_wheel(
    wheel_directory: str,
    config_settings: Mapping[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    """maturin's wheel build with :func:`portable_build_args`."""
    args = portable_build_args(maturin.get_maturin_pep517_args(config_settings))
    # cargo-zigbuild runs `python3 -m ziglang`: this interpreter is the one
    # whose environment holds the ziglang package.
    os.environ.setdefault("CARGO_ZIGBUILD_PYTHON_PATH", sys.executable)
    settings = {key: value for key, value in (config_settings or {}).items()
                if key not in ("build-args", "maturin.build-args")}
    settings["build-args"] = args
    return maturin.build_wheel(wheel_directory, settings, metadata_directory)
