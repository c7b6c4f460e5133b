"""A reader that goes away before the end of the rows: ``polydat run`` ends
as a process killed by SIGPIPE does (``cat``, ``yes`` and ``seq`` under
``| head``): exit status 141 (128 + SIGPIPE), no traceback. Standard output
closed early (the ``| head`` idiom) ends quietly; a FIFO named by ``-o``
gets one line naming it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from test_cli import EXAMPLE

pytestmark = pytest.mark.skipif(os.name != "posix", reason="pipes and FIFOs")

BROKEN_PIPE_STATUS = 128 + signal.SIGPIPE


def test_a_fifo_reader_closing_early_is_a_non_zero_exit_naming_the_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "rows"
    os.mkfifo(fifo)
    first: list[bytes] = []

    def reader() -> None:
        with open(fifo, "rb") as f:
            first.append(f.readline())

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    r = subprocess.run(
        [sys.executable, "-m", "polydat", "run", str(EXAMPLE), "--cycles", "0..1G", "-o", str(fifo)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    thread.join(60)
    assert first and first[0].startswith(b"cycle,")
    assert r.returncode == BROKEN_PIPE_STATUS, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and str(fifo) in lines[0] and "Traceback" not in r.stderr, r.stderr


def test_standard_output_closed_early_ends_quietly_with_the_sigpipe_status() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "polydat", "run", str(EXAMPLE), "--cycles", "0..1G"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline().startswith(b"cycle,")
    proc.stdout.close()  # like `| head -1`
    assert proc.wait(60) == BROKEN_PIPE_STATUS
    assert proc.stderr.read() == b""
