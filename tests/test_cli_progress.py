"""``--progress``: under ``auto`` the bar shows on a terminal once a run has
taken about a second, whatever its size; stderr stays clean otherwise.

No test here waits a fixed time: a slow run is one whose rows go to a FIFO
read slowly until the bar has appeared (the event waited for), and whether a
bar can appear at all (``never``, ``auto`` off a terminal, the delay of
``auto``) is checked on :func:`polydat.cli._progress` itself."""

from __future__ import annotations

import io
import os
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_cli import EXAMPLE

from polydat import cli

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


PACED_BYTES, PACE = 16 << 10, 0.02
"""While a slow run's rows are held, 16 KiB are taken every 20 ms (under
1 MB/s): a 64 Ki-row batch of SMALL_RUN (about 1.6 MB) then takes over two
seconds, so the run is still going, and updating its bar, once the bar's
delay (a second) has passed."""


def run_with_stderr(spawn: Callable[..., Any], args: list[str], tmp_path: Path, *, terminal: bool,
                    hold_rows_until: bytes | None = None) -> tuple[int, bytes]:
    """Runs polydat with stderr on a pty (``terminal``) or a pipe. With
    ``hold_rows_until``, the rows go to a FIFO read slowly (:data:`PACE`)
    until stderr shows that text: the run, which waits for its reader, lasts
    until then."""
    out_args: list[str] = []
    if hold_rows_until is not None:
        fifo = tmp_path / "rows"
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
    proc = spawn(
        [sys.executable, "-m", "polydat", *args, *out_args], stdout=subprocess.DEVNULL, stderr=secondary,
        stdin=subprocess.DEVNULL,
    )
    os.close(secondary)
    err: list[bytes] = []
    err_thread = drain(primary, err)
    if hold_rows_until is not None:
        # The rows are taken slowly (PACED_BYTES at a time) until stderr shows the text, then at full speed.
        deadline = time.monotonic() + 120
        os.set_blocking(fifo_fd, True)
        while hold_rows_until not in b"".join(err):
            assert time.monotonic() < deadline, f"{hold_rows_until!r} never appeared: {b''.join(err)!r}"
            if not os.read(fifo_fd, PACED_BYTES) and proc.poll() is not None:
                break  # the run ended first: the assertions on its stderr say what was missing
            time.sleep(PACE)  # (an empty read before the run opens the FIFO, too)
        rows: list[bytes] = []
        drain(fifo_fd, rows).join(120)
        os.close(fifo_fd)
    proc.wait(120)
    err_thread.join(30)
    os.close(primary)
    return proc.returncode, b"".join(err)


def test_auto_shows_a_bar_for_a_slow_small_run_on_a_terminal(spawn: Callable[..., Any], tmp_path: Path):
    code, err = run_with_stderr(spawn, SMALL_RUN, tmp_path, terminal=True, hold_rows_until=b"rows")
    assert code == 0, err
    assert b"rows" in err and b"300k" in err, err


def test_auto_shows_nothing_for_a_quick_run_on_a_terminal(spawn: Callable[..., Any], tmp_path: Path):
    code, err = run_with_stderr(spawn, ["run", str(EXAMPLE), "--cycles", "0..1000"], tmp_path, terminal=True)
    assert code == 0, err
    assert err == b""


class Terminal(io.StringIO):
    """A stand-in stderr that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_auto_waits_the_delay_before_drawing(monkeypatch: pytest.MonkeyPatch):
    """On a terminal, ``auto`` draws only once the run has taken PROGRESS_DELAY:
    a run that ends before draws nothing."""
    screen = Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    monkeypatch.setattr(cli, "PROGRESS_DELAY", 3600.0)
    bar = cli._progress(1000, "auto")
    assert bar is not None and bar.delay == 3600.0
    bar.update(1000)
    bar.close()
    assert screen.getvalue() == ""


@pytest.mark.parametrize(("mode", "terminal"), [("auto", False), ("never", True), ("never", False)])
def test_no_bar_is_made_where_none_may_show(monkeypatch: pytest.MonkeyPatch, mode: str, terminal: bool):
    """``auto`` off a terminal and ``never`` make no bar at all, so no run,
    however long, draws one."""
    monkeypatch.setattr(sys, "stderr", Terminal() if terminal else io.StringIO())
    assert cli._progress(300_000, mode) is None


def test_auto_keeps_stderr_clean_off_a_terminal(spawn: Callable[..., Any], tmp_path: Path):
    code, err = run_with_stderr(spawn, SMALL_RUN, tmp_path, terminal=False)
    assert code == 0, err
    assert err == b""


def test_never_means_never(spawn: Callable[..., Any], tmp_path: Path):
    code, err = run_with_stderr(spawn, [*SMALL_RUN, "--progress", "never"], tmp_path, terminal=True)
    assert code == 0, err
    assert err == b""


def test_always_shows_a_bar_off_a_terminal_even_for_a_quick_run(spawn: Callable[..., Any], tmp_path: Path):
    code, err = run_with_stderr(spawn, [*SMALL_RUN, "--progress", "always"], tmp_path, terminal=False)
    assert code == 0, err
    assert b"rows" in err and b"300k" in err, err
