"""``polydat run -o PATH`` loses nothing: devices and FIFOs are written through,
symlinks are written through to their target, an existing file keeps its mode
and owner, and a failed run leaves the old file as it was."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from test_cli import EXAMPLE, polydat

pytestmark = pytest.mark.skipif(os.name != "posix", reason="FIFOs, device nodes and POSIX permissions")

ROWS = ["cycle,user_id", "0,607535", "1,822465", "2,348110"]
RUN = ["run", str(EXAMPLE), "--cycles", "0..3", "--outputs", "user_id"]
FAILING = "input cycle: u64\nc := in_range(cycle, 0, 5)\n"


def partials(*dirs: Path) -> list[str]:
    return [p for d in dirs for p in os.listdir(d) if p.endswith(".partial")]


def read_fifo_in_background(path: Path) -> tuple[threading.Thread, list[bytes]]:
    """A reader thread that collects everything written to the FIFO ``path``."""
    got: list[bytes] = []

    def reader() -> None:
        with open(path, "rb") as f:
            got.append(f.read())

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    return thread, got


def test_a_fifo_is_written_through(tmp_path: Path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    thread, got = read_fifo_in_background(fifo)
    r = polydat(*RUN, "-o", str(fifo))
    thread.join(30)
    assert r.returncode == 0, r.stderr
    assert got == [("\n".join(ROWS) + "\n").encode()]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO is still a FIFO"
    assert partials(tmp_path) == []


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="mknod of a device needs root")
def test_a_character_device_stays_a_device(tmp_path: Path):
    null = tmp_path / "null"
    os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # a private /dev/null
    r = polydat(*RUN, "-o", str(null))
    assert r.returncode == 0, r.stderr
    st = os.lstat(null)
    assert stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3)
    assert partials(tmp_path) == []


def test_dev_stdout_is_our_stdout():
    r = polydat(*RUN, "-o", "/dev/stdout")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ROWS
    assert os.path.islink("/dev/stdout") or stat.S_ISCHR(os.lstat("/dev/stdout").st_mode)


def test_dev_stdout_redirected_to_a_file_appends_like_the_shell(tmp_path: Path):
    log = tmp_path / "log.csv"
    log.write_text("earlier\n")
    with open(log, "ab") as out:
        r = subprocess.run(
            [sys.executable, "-m", "polydat", *RUN, "-o", "/dev/stdout"], stdout=out, stderr=subprocess.PIPE,
            text=True, timeout=120,
        )
    assert r.returncode == 0, r.stderr
    assert log.read_text().splitlines() == ["earlier", *ROWS]


def test_a_symlink_is_kept_and_its_target_replaced(tmp_path: Path):
    (tmp_path / "data").mkdir()
    (tmp_path / "links").mkdir()
    target = tmp_path / "data" / "rows.csv"
    target.write_text("old\n")
    os.chmod(target, 0o640)
    link = tmp_path / "links" / "rows.csv"
    link.symlink_to(os.path.join("..", "data", "rows.csv"))
    r = polydat(*RUN, "-o", str(link))
    assert r.returncode == 0, r.stderr
    assert os.path.islink(link) and os.readlink(link) == os.path.join("..", "data", "rows.csv")
    assert target.read_text().splitlines() == ROWS
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640
    assert partials(tmp_path / "data", tmp_path / "links") == []


def test_a_dangling_symlink_creates_its_target(tmp_path: Path):
    link = tmp_path / "link.csv"
    link.symlink_to("made.csv")
    r = polydat(*RUN, "-o", str(link))
    assert r.returncode == 0, r.stderr
    assert os.path.islink(link)
    assert (tmp_path / "made.csv").read_text().splitlines() == ROWS


def test_a_private_file_stays_private(tmp_path: Path):
    out = tmp_path / "secret.csv"
    out.write_text("old\n")
    os.chmod(out, 0o600)
    r = polydat(*RUN, "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert out.read_text().splitlines() == ROWS
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o600
    assert partials(tmp_path) == []


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown to another user needs root")
def test_root_keeps_the_owner_of_a_replaced_file(tmp_path: Path):
    out = tmp_path / "theirs.csv"
    out.write_text("old\n")
    os.chown(out, 4321, 8765)
    r = polydat(*RUN, "-o", str(out))
    assert r.returncode == 0, r.stderr
    st = os.stat(out)
    assert (st.st_uid, st.st_gid) == (4321, 8765)
    assert out.read_text().splitlines() == ROWS


def test_a_new_file_follows_the_umask(tmp_path: Path):
    out = tmp_path / "new.csv"
    r = subprocess.run(
        [sys.executable, "-m", "polydat", *RUN, "-o", str(out)], capture_output=True, text=True, timeout=120,
        preexec_fn=lambda: os.umask(0o027),
    )
    assert r.returncode == 0, r.stderr
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o640


@pytest.mark.parametrize("through_symlink", [False, True])
def test_a_failed_run_leaves_the_existing_file_untouched(tmp_path: Path, through_symlink: bool):
    src = tmp_path / "f.polydat"
    src.write_text(FAILING)
    out = tmp_path / "out.csv"
    out.write_text("precious\n")
    os.chmod(out, 0o604)
    path = out
    if through_symlink:
        path = tmp_path / "link.csv"
        path.symlink_to("out.csv")
    r = polydat("run", str(src), "--cycles", "0..100", "-o", str(path))
    assert r.returncode == 1 and "in_range: value 6 outside [0, 5]" in r.stderr
    assert out.read_text() == "precious\n"
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o604
    assert partials(tmp_path) == []


def test_a_directory_is_a_usage_error(tmp_path: Path):
    r = polydat(*RUN, "-o", str(tmp_path))
    assert r.returncode == 2 and "is a directory" in r.stderr
    assert len(r.stderr.splitlines()) == 1 and "Traceback" not in r.stderr
    assert partials(tmp_path) == []


def test_a_missing_directory_is_a_clean_error(tmp_path: Path):
    r = polydat(*RUN, "-o", str(tmp_path / "nowhere" / "out.csv"))
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "nowhere" in r.stderr


def test_parquet_through_a_fifo(tmp_path: Path):
    import io

    import pyarrow.parquet as pq

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    thread, got = read_fifo_in_background(fifo)
    r = polydat("run", str(EXAMPLE), "--cycles", "0..70000", "--format", "parquet", "-o", str(fifo))
    thread.join(30)
    assert r.returncode == 0, r.stderr
    table = pq.read_table(io.BytesIO(got[0]))
    assert table.num_rows == 70000 and table.column("user_id")[0].as_py() == 607535


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_parts_of_a_program_are_published_all_or_nothing(tmp_path: Path, fmt: str) -> None:
    # issue 44 item 4: a run that failed after part 0 left the new part 0
    # beside the old parts 1-3.
    good = tmp_path / "good.polydat"
    good.write_text("input cycle\nx := cycle * 100\n")
    failing = tmp_path / "failing.polydat"
    failing.write_text("input cycle\nx := in_range(cycle, 0, 9)\n")  # rows 10.. (part 2 of 4) fail
    out = tmp_path / "out" / f"t.{fmt}"
    out.parent.mkdir()
    r = polydat("run", str(good), "--cycles", "20", "--parts", "4", "-o", str(out))
    assert r.returncode == 0, r.stderr
    before = {p.name: p.read_bytes() for p in out.parent.iterdir()}
    assert sorted(before) == [f"t-{i:05d}-of-00004.{fmt}" for i in range(4)]
    r = polydat("run", str(failing), "--cycles", "20", "--parts", "4", "-o", str(out))
    assert r.returncode != 0 and "in_range" in r.stderr
    after = {p.name: p.read_bytes() for p in out.parent.iterdir()}
    assert after == before, "the old parts stay, every one, and no temporary file is left"


def _source_refused(*args: str) -> subprocess.CompletedProcess[str]:
    """`polydat ARGS`, which must refuse its source in well under a minute."""
    done = subprocess.run(
        [sys.executable, "-m", "polydat.cli", *args], capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 1, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr and "MemoryError" not in done.stderr, done.stderr
    return done


@pytest.mark.parametrize("command", [["run", "/dev/zero", "--cycles", "3"], ["check", "/dev/zero"]])
def test_a_device_as_the_source_is_refused_not_read_without_end(command: list[str]) -> None:
    # Issue 44 item 16: sources are read by one reader that refuses what is
    # not a regular file (a device, a FIFO, a directory) and caps the size.
    done = _source_refused(*command)
    assert "/dev/zero is not a regular file" in done.stderr


def test_a_fifo_or_a_directory_as_the_source_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "p.polydat"
    os.mkfifo(fifo)
    assert f"{fifo} is not a regular file" in _source_refused("check", str(fifo)).stderr
    folder = tmp_path / "w.yaml"
    folder.mkdir()
    assert f"{folder} is a directory" in _source_refused("run", str(folder)).stderr
    import polydat as api

    with pytest.raises(api.CompileError, match="is a directory"):
        api.compile_file(folder)


def test_a_source_past_the_size_limit_is_refused_naming_the_file_and_the_limit(tmp_path: Path) -> None:
    from polydat.dsl.diagnostics import MAX_SOURCE_BYTES

    big = tmp_path / "big.polydat"
    big.write_bytes(b" " * (MAX_SOURCE_BYTES + 1))
    message = _source_refused("check", str(big)).stderr
    assert f"{big} is larger than {MAX_SOURCE_BYTES} bytes" in message
