"""SIGTERM and SIGHUP during ``polydat run -o FILE`` remove the hidden partial
file, like Ctrl-C does, and exit with 128 + the signal number. Every run is
started through the ``spawn`` fixture, so it is killed however the test ends."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_cli import EXAMPLE

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX signals")

LONG_RUN = ["run", str(EXAMPLE), "--cycles", "0..1G", "--outputs", "user_id"]

Spawn = Callable[..., "subprocess.Popen[Any]"]


def start(spawn: Spawn, out: Path, **popen: object) -> subprocess.Popen[bytes]:
    return spawn(
        [sys.executable, "-m", "polydat", *LONG_RUN, "-o", str(out)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **popen,
    )


def wait_for_partial(proc: subprocess.Popen[bytes], directory: Path, name: str, larger_than: int = 0) -> Path:
    """The hidden ``.NAME.*.partial`` file, once it holds more than ``larger_than`` bytes."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = [p for p in directory.iterdir() if p.name.startswith(f".{name}.") and p.name.endswith(".partial")]
        if found and found[0].stat().st_size > larger_than:
            return found[0]
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        time.sleep(0.02)
    raise AssertionError(f"the run never wrote more than {larger_than} bytes")


def sighup_ignored_here() -> bool:
    """Under ``nohup`` SIGHUP is ignored, and a child inherits that: polydat
    then keeps it ignored (by design), so a hangup cannot stop the run."""
    return hasattr(signal, "SIGHUP") and signal.getsignal(signal.SIGHUP) == signal.SIG_IGN


SIGNALS: list[Any] = [signal.SIGINT, signal.SIGTERM]
if hasattr(signal, "SIGHUP"):
    SIGNALS.append(pytest.param(
        signal.SIGHUP, marks=pytest.mark.skipif(sighup_ignored_here(), reason="SIGHUP is ignored here (nohup)")
    ))


@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: signal.Signals(s).name)
@pytest.mark.parametrize("existing", [False, True], ids=["new-file", "existing-file"])
def test_signal_removes_the_partial_file(spawn: Spawn, tmp_path: Path, signum: int, existing: bool):
    out = tmp_path / "out.csv"
    if existing:
        out.write_text("original\n")
    proc = start(spawn, out)
    partial = wait_for_partial(proc, tmp_path, "out.csv")
    proc.send_signal(signum)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signum, stderr
    assert b"Traceback" not in stderr
    assert not partial.exists()
    assert os.listdir(tmp_path) == (["out.csv"] if existing else [])
    if existing:
        assert out.read_text() == "original\n"


GROWTH_AFTER_HANGUP = 4 << 20
"""Bytes the run writes after the hangup before it counts as going on: several
64 Ki-row batches, each a write and a hand-over between threads, so the run
has been back in user space many times since (an ignored signal is dropped
when sent; a caught one would have run its handler by then)."""


@pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="no SIGHUP here")
def test_an_ignored_sighup_stays_ignored(spawn: Spawn, tmp_path: Path):
    """Under ``nohup`` (SIGHUP ignored) a hangup does not stop the run."""
    out = tmp_path / "out.csv"
    proc = start(spawn, out, preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN))
    partial = wait_for_partial(proc, tmp_path, "out.csv")
    size = partial.stat().st_size
    proc.send_signal(signal.SIGHUP)
    wait_for_partial(proc, tmp_path, "out.csv", larger_than=size + GROWTH_AFTER_HANGUP)
    assert proc.poll() is None, "SIGHUP was ignored when polydat started, so it must stay ignored"
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM
    assert not partial.exists() and os.listdir(tmp_path) == []
