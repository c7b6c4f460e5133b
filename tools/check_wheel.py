"""Checks that a built wheel is the portable one a package index accepts.

    python tools/check_wheel.py dist/polydat-*.whl          # a release wheel
    python tools/check_wheel.py --debug-profile WHEEL       # CI's debug-profile wheel

The rules (docs/development.md, "Building the wheel"):

* the tag is ``abi3`` (one wheel for CPython 3.10 and later) and every platform
  tag is ``manylinux_2_28`` or older (``manylinux2014``, ``manylinux_2_17``,
  ...): the wheel installs on glibc 2.28 and later;
* every shared library in it is stripped: no ``.debug_*`` section, no
  ``.symtab`` (maturin's ``strip = true``);
* the wheel file is at most 12 MB (not checked with ``--debug-profile``: an
  unoptimised build is larger).

Prints one line saying what was checked and exits 0, or names every rule
broken and exits 1.
"""

from __future__ import annotations

import argparse
import re
import struct
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

MAX_WHEEL_BYTES = 12 * 1000 * 1000
NEWEST_GLIBC = (2, 28)
# PEP 600: the legacy manylinux tags and the glibc versions they stand for.
LEGACY_MANYLINUX = {"manylinux1": (2, 5), "manylinux2010": (2, 12), "manylinux2014": (2, 17)}
MANYLINUX = re.compile(r"manylinux_(\d+)_(\d+)_\w+")


@dataclass(frozen=True)
class WheelTags:
    """The tags of a wheel's file name (PEP 427): ``name-version[-build]-python-abi-platform.whl``."""

    python: str
    abi: str
    platforms: tuple[str, ...]


def parse_tags(file_name: str) -> WheelTags:
    """The tags of ``file_name``; ValueError when it is not a wheel's name."""
    if not file_name.endswith(".whl"):
        raise ValueError(f"{file_name}: not a wheel (a wheel's name ends in .whl)")
    parts = file_name[: -len(".whl")].split("-")
    if len(parts) not in (5, 6):
        raise ValueError(f"{file_name}: not a wheel's name (name-version[-build]-python-abi-platform.whl)")
    python, abi, platform = parts[-3:]
    return WheelTags(python, abi, tuple(platform.split(".")))


def glibc_of(platform: str) -> tuple[int, int] | None:
    """The glibc version a manylinux platform tag requires; None for any other tag."""
    if platform.startswith(tuple(LEGACY_MANYLINUX)):
        return LEGACY_MANYLINUX[platform.split("_", 1)[0]]
    found = MANYLINUX.fullmatch(platform)
    return (int(found.group(1)), int(found.group(2))) if found else None


def tag_problems(file_name: str) -> list[str]:
    """What is wrong with the tags of ``file_name`` (empty: nothing)."""
    try:
        tags = parse_tags(file_name)
    except ValueError as error:
        return [str(error)]
    problems = []
    if tags.abi != "abi3":
        problems.append(f"ABI tag {tags.abi!r} is not 'abi3': the wheel would serve one CPython version only")
    newest = ".".join(map(str, NEWEST_GLIBC))
    for platform in tags.platforms:
        glibc = glibc_of(platform)
        if glibc is None:
            problems.append(f"platform tag {platform!r} is not manylinux: no package index accepts it")
        elif glibc > NEWEST_GLIBC:
            problems.append(f"platform tag {platform!r} needs glibc {glibc[0]}.{glibc[1]}, newer than {newest}")
    return problems


def elf_section_names(image: bytes) -> list[str]:
    """The section names of a 64-bit little-endian ELF file; ValueError for anything else."""
    if image[:4] != b"\x7fELF" or image[4] != 2 or image[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF file")
    (section_table,) = struct.unpack_from("<Q", image, 0x28)
    entry_size, count, names_index = struct.unpack_from("<HHH", image, 0x3A)
    sections = [struct.unpack_from("<IIQQQQ", image, section_table + i * entry_size) for i in range(count)]
    if not sections:
        return []
    names_offset, names_size = sections[names_index][4], sections[names_index][5]
    names = image[names_offset : names_offset + names_size]
    return [names[name : names.index(b"\0", name)].decode() for name, *_ in sections]


def unstripped_sections(image: bytes) -> list[str]:
    """The sections of an ELF image that a stripped library has not."""
    return [name for name in elf_section_names(image) if name.startswith(".debug") or name == ".symtab"]


def content_problems(wheel: zipfile.ZipFile) -> list[str]:
    """What is wrong with the libraries inside ``wheel``."""
    problems = []
    libraries = [info for info in wheel.infolist() if info.filename.endswith(".so") or ".so." in info.filename]
    if not libraries:
        problems.append("no shared library in the wheel: the extension is missing")
    for info in libraries:
        try:
            extra = unstripped_sections(wheel.read(info))
        except ValueError as error:
            problems.append(f"{info.filename}: {error}")
            continue
        if extra:
            problems.append(f"{info.filename} is not stripped: it has {', '.join(extra)}")
    return problems


def check(path: Path, *, size_limit: bool = True) -> list[str]:
    """Every rule the wheel at ``path`` breaks (empty: it passes)."""
    problems = tag_problems(path.name)
    if size_limit and path.stat().st_size > MAX_WHEEL_BYTES:
        problems.append(f"{path.stat().st_size / 1e6:.1f} MB: larger than {MAX_WHEEL_BYTES / 1e6:.0f} MB")
    with zipfile.ZipFile(path) as wheel:
        problems += content_problems(wheel)
    return problems


def describe(path: Path) -> str:
    """One line: the wheel's name and its sizes, compressed and unpacked."""
    with zipfile.ZipFile(path) as wheel:
        unpacked = sum(info.file_size for info in wheel.infolist())
    return f"{path.name}: {path.stat().st_size / 1e6:.1f} MB, {unpacked / 1e6:.1f} MB unpacked"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("wheel", type=Path)
    parser.add_argument("--debug-profile", action="store_true",
                        help="a debug-profile build: check the tags and stripping, not the size")
    args = parser.parse_args(argv)
    problems = check(args.wheel, size_limit=not args.debug_profile)
    for problem in problems:
        print(f"check_wheel: {args.wheel.name}: {problem}", file=sys.stderr)
    if not problems:
        print(f"check_wheel: ok: {describe(args.wheel)}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
