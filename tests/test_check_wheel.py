"""tools/check_wheel.py, the rules of the portable wheel: an abi3 tag, a
manylinux platform of glibc 2.28 or older, stripped libraries, at most 12 MB.
Fed fake wheels: a file name and a zip holding a small ELF image."""

from __future__ import annotations

import importlib.util
import struct
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("check_wheel", ROOT / "tools" / "check_wheel.py")
assert _spec is not None and _spec.loader is not None
check_wheel = importlib.util.module_from_spec(_spec)
sys.modules["check_wheel"] = check_wheel  # dataclasses look their module up
_spec.loader.exec_module(check_wheel)

GOOD = "polydat-0.1.0-cp310-abi3-manylinux_2_28_x86_64.whl"


def elf_image(*sections: str) -> bytes:
    """A 64-bit little-endian ELF header and section table naming ``sections``
    (with the null section and .shstrtab), nothing else."""
    names = [""] + list(sections) + [".shstrtab"]
    table = b"\0"
    offsets = []
    for name in names[1:]:
        offsets.append(len(table))
        table += name.encode() + b"\0"
    offsets.insert(0, 0)
    names_at = 64
    headers_at = names_at + len(table)
    header = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
    header += struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, 0, headers_at, 0, 64, 0, 0, 64, len(names), len(names) - 1)
    entries = b"".join(
        struct.pack("<IIQQQQIIQQ", offset, 3 if name == ".shstrtab" else 1, 0, 0,
                    names_at if name == ".shstrtab" else 0, len(table) if name == ".shstrtab" else 0, 0, 0, 1, 0)
        for name, offset in zip(names, offsets)
    )
    return header + table + entries


def fake_wheel(where: Path, name: str = GOOD, library: bytes | None = None, padding: int = 0) -> Path:
    path = where / name
    with zipfile.ZipFile(path, "w") as wheel:
        wheel.writestr("polydat/__init__.py", "")
        if library is not None:
            wheel.writestr("polydat/_core.abi3.so", library)
        if padding:
            wheel.writestr("polydat/padding.bin", bytes(padding), compress_type=zipfile.ZIP_STORED)
    return path


def test_the_elf_reader_reads_the_fake_images_names() -> None:
    assert check_wheel.elf_section_names(elf_image(".text", ".debug_info")) == ["", ".text", ".debug_info",
                                                                                ".shstrtab"]


def test_a_portable_stripped_wheel_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wheel = fake_wheel(tmp_path, library=elf_image(".text", ".dynsym", ".rodata"))
    assert check_wheel.check(wheel) == []
    assert check_wheel.main([str(wheel)]) == 0
    assert capsys.readouterr().out.startswith(f"check_wheel: ok: {GOOD}: ")


@pytest.mark.parametrize("platform", ["manylinux2014_x86_64", "manylinux_2_17_x86_64.manylinux2014_x86_64",
                                      "manylinux_2_28_aarch64", "manylinux1_x86_64", "manylinux_2_5_i686"])
def test_manylinux_tags_of_glibc_2_28_or_older_pass(platform: str) -> None:
    assert check_wheel.tag_problems(f"polydat-0.1.0-cp310-abi3-{platform}.whl") == []


@pytest.mark.parametrize(("platform", "says"), [
    ("manylinux_2_34_x86_64", "needs glibc 2.34, newer than 2.28"),
    ("manylinux_2_29_x86_64", "needs glibc 2.29"),
    ("manylinux_2_17_x86_64.manylinux_2_31_x86_64", "'manylinux_2_31_x86_64' needs glibc 2.31"),
    ("linux_x86_64", "'linux_x86_64' is not manylinux"),
    ("musllinux_1_2_x86_64", "is not manylinux"),
])
def test_a_platform_newer_than_glibc_2_28_or_not_manylinux_fails(platform: str, says: str) -> None:
    (problem,) = check_wheel.tag_problems(f"polydat-0.1.0-cp310-abi3-{platform}.whl")
    assert says in problem


def test_a_wheel_for_one_python_version_fails() -> None:
    (problem,) = check_wheel.tag_problems("polydat-0.1.0-cp311-cp311-manylinux_2_28_x86_64.whl")
    assert "ABI tag 'cp311' is not 'abi3'" in problem


@pytest.mark.parametrize("name", ["polydat-0.1.0.tar.gz", "polydat-cp310-abi3-manylinux_2_28_x86_64.whl"])
def test_a_name_that_is_not_a_wheels_fails(name: str) -> None:
    (problem,) = check_wheel.tag_problems(name)
    assert "not a wheel" in problem


@pytest.mark.parametrize("extra", [".debug_info", ".symtab"])
def test_an_unstripped_library_fails(tmp_path: Path, extra: str, capsys: pytest.CaptureFixture[str]) -> None:
    wheel = fake_wheel(tmp_path, library=elf_image(".text", extra))
    assert check_wheel.check(wheel) == [f"polydat/_core.abi3.so is not stripped: it has {extra}"]
    assert check_wheel.main([str(wheel)]) == 1
    assert f"is not stripped: it has {extra}" in capsys.readouterr().err


def test_a_wheel_without_the_extension_or_with_a_library_that_is_not_elf_fails(tmp_path: Path) -> None:
    assert check_wheel.check(fake_wheel(tmp_path)) == ["no shared library in the wheel: the extension is missing"]
    (problem,) = check_wheel.check(fake_wheel(tmp_path, library=b"MZ not an ELF file"))
    assert "not a 64-bit little-endian ELF file" in problem


def test_a_wheel_over_12_mb_fails_unless_it_is_a_debug_profile_build(tmp_path: Path) -> None:
    wheel = fake_wheel(tmp_path, library=elf_image(".text"), padding=check_wheel.MAX_WHEEL_BYTES)
    (problem,) = check_wheel.check(wheel)
    assert "larger than 12 MB" in problem
    assert check_wheel.check(wheel, size_limit=False) == []
    assert check_wheel.main(["--debug-profile", str(wheel)]) == 0
