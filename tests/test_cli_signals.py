"""SIGTERM and SIGHUP during ``polydat run -o FILE`` remove the hidden partial
file, like Ctrl-C does, and exit with 128 + the signal number."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_cli import EXAMPLE

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX signals")

LONG_RUN = ["run", str(EXAMPLE), "--cycles", "0..1G", "--outputs", "user_id"]


def start(out: Path, **popen: object) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "polydat", *LONG_RUN, "-o", str(out)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **popen,  # type: ignore[call-overload]
    )


def wait_for_partial(proc: subprocess.Popen[bytes], directory: Path, name: str) -> Path:
    """The hidden ``.NAME.*.partial`` file, once it has some rows in it."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = [p for p in directory.iterdir() if p.name.startswith(f".{name}.") and p.name.endswith(".partial")]
        if found and found[0].stat().st_size > 0:
            return found[0]
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        time.sleep(0.02)
    proc.kill()
    raise AssertionError("the run never started writing")


SIGNALS = [signal.SIGINT, signal.SIGTERM] + ([signal.SIGHUP] if hasattr(signal, "SIGHUP") else [])


@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: signal.Signals(s).name)
@pytest.mark.parametrize("existing", [False, True], ids=["new-file", "existing-file"])
def test_signal_removes_the_partial_file(tmp_path: Path, signum: int, existing: bool):
    out = tmp_path / "out.csv"
    if existing:
        out.write_text("original\n")
    proc = start(out)
    partial = wait_for_partial(proc, tmp_path, "out.csv")
    proc.send_signal(signum)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signum, stderr
    assert b"Traceback" not in stderr
    assert not partial.exists()
    assert os.listdir(tmp_path) == (["out.csv"] if existing else [])
    if existing:
        assert out.read_text() == "original\n"


@pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="no SIGHUP here")
def test_an_ignored_sighup_stays_ignored(tmp_path: Path):
    """Under ``nohup`` (SIGHUP ignored) a hangup does not stop the run."""
    out = tmp_path / "out.csv"
    proc = start(out, preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN))
    partial = wait_for_partial(proc, tmp_path, "out.csv")
    proc.send_signal(signal.SIGHUP)
    time.sleep(0.5)
    assert proc.poll() is None, "SIGHUP was ignored when polydat started, so it must stay ignored"
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM
    assert not partial.exists() and os.listdir(tmp_path) == []
