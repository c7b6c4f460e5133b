"""``--progress``: under ``auto`` the bar shows on a terminal once a run has
taken about a second, whatever its size; stderr stays clean otherwise."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from test_cli import EXAMPLE

if os.name != "posix":  # pragma: no cover
    pytest.skip("ptys and FIFOs", allow_module_level=True)

import fcntl  # noqa: E402  (POSIX only)
import pty  # noqa: E402
import termios  # noqa: E402

SMALL_RUN = ["run", str(EXAMPLE), "--cycles", "0..300000", "--outputs", "user_id,label"]
"""Fewer rows than the old 1Mi threshold; slowed down by a reader that waits."""


def drain(fd: int, into: list[bytes]) -> threading.Thread:
    """Reads ``fd`` until its other end is closed (a pty master ends with EIO)."""

    def reader() -> None:
        while True:
            try:
                data = os.read(fd, 1 << 16)
            except OSError:
                return
            if not data:
                return
            into.append(data)

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    return thread


def run_with_stderr(args: list[str], tmp_path: Path, *, terminal: bool, slow: bool) -> tuple[int, bytes]:
    """Runs polydat with stderr on a pty (``terminal``) or a pipe; when ``slow``,
    the rows go to a FIFO that is read only after two seconds, so the run takes
    at least that long."""
    fifo = tmp_path / "rows"
    out_args: list[str] = []
    if slow:
        os.mkfifo(fifo)
        out_args = ["-o", str(fifo)]
        # Open the reading end now (polydat's open must not wait for it) but read only later.
        fifo_fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    if terminal:
        primary, secondary = pty.openpty()
        # A terminal of 80 columns: tqdm draws nothing on one of zero, a fresh pty's size.
        fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    else:
        primary, secondary = os.pipe()
    proc = subprocess.Popen(
        [sys.executable, "-m", "polydat", *args, *out_args], stdout=subprocess.DEVNULL, stderr=secondary,
        stdin=subprocess.DEVNULL,
    )
    os.close(secondary)
    err: list[bytes] = []
    err_thread = drain(primary, err)
    if slow:
        time.sleep(2.0)
        os.set_blocking(fifo_fd, True)
        rows: list[bytes] = []
        drain(fifo_fd, rows).join(120)
        os.close(fifo_fd)
    proc.wait(120)
    err_thread.join(30)
    os.close(primary)
    return proc.returncode, b"".join(err)


def test_auto_shows_a_bar_for_a_slow_small_run_on_a_terminal(tmp_path: Path):
    code, err = run_with_stderr(SMALL_RUN, tmp_path, terminal=True, slow=True)
    assert code == 0, err
    assert b"rows" in err and b"300k" in err, err


def test_auto_shows_nothing_for_a_quick_run_on_a_terminal(tmp_path: Path):
    code, err = run_with_stderr(["run", str(EXAMPLE), "--cycles", "0..1000"], tmp_path, terminal=True, slow=False)
    assert code == 0, err
    assert err == b""


def test_auto_keeps_stderr_clean_off_a_terminal(tmp_path: Path):
    code, err = run_with_stderr(SMALL_RUN, tmp_path, terminal=False, slow=True)
    assert code == 0, err
    assert err == b""


def test_never_means_never(tmp_path: Path):
    code, err = run_with_stderr([*SMALL_RUN, "--progress", "never"], tmp_path, terminal=True, slow=True)
    assert code == 0, err
    assert err == b""


def test_always_shows_a_bar_off_a_terminal_even_for_a_quick_run(tmp_path: Path):
    code, err = run_with_stderr([*SMALL_RUN, "--progress", "always"], tmp_path, terminal=False, slow=False)
    assert code == 0, err
    assert b"rows" in err and b"300k" in err, err
