"""``polydat run`` arguments: ``--set``, ``--version``, ``python -m polydat``,
``-o -`` and the usage errors (exit 2, one line, nothing on stdout)."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from test_cli import EXAMPLE, ROOT, polydat

import polydat as pd

SETTABLE = """\
input cycle: u64
input seed: u64
extern offset: u64 = 0
extern tag: str = "none"
shifted := cycle + seed + offset
label := "{tag}-{cycle}"
"""


@pytest.fixture
def settable(tmp_path: Path) -> Path:
    src = tmp_path / "settable.polydat"
    src.write_text(SETTABLE)
    return src


def test_set_types_values_by_their_declaration(settable: Path):
    r = polydat(
        "run", str(settable), "--cycles", "0..3",
        "--set", "offset=0x10", "--set", "seed=100", "--set", "tag=a=b c",
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["cycle,shifted,label", "0,116,a=b c-0", "1,117,a=b c-1", "2,118,a=b c-2"]


def test_set_last_value_wins(settable: Path):
    r = polydat("run", str(settable), "--cycles", "1", "--set", "seed=1", "--set", "seed=2", "--outputs", "shifted")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["cycle,shifted", "0,2"]


def test_set_agrees_with_the_python_api(settable: Path):
    r = polydat("run", str(settable), "--cycles", "5..9", "--set", "seed=7", "--set", "tag=x", "--format", "jsonl")
    assert r.returncode == 0, r.stderr
    cols = pd.compile(SETTABLE).generate(range(5, 9), inputs={"seed": 7, "tag": "x"})
    import json

    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert [row["shifted"] for row in rows] == cols["shifted"].tolist()
    assert [row["label"] for row in rows] == cols["label"].tolist()


def one_line_usage_error(r: subprocess.CompletedProcess[str]) -> str:
    """Asserts the shape of every usage error and returns its line."""
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert r.stdout == "", "nothing reaches stdout before an argument error"
    assert "Traceback" not in r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    return lines[0]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--set", "cycle=3"], "'cycle' is the coordinate"),
        (["--set", "ofset=1"], "did you mean 'offset'?"),
        (["--set", "zzzzzzzz=1"], "inputs are: cycle, seed, offset, tag"),
        (["--set", "offset=abc"], "cannot read \"abc\" as u64"),
        (["--set", "offset=-1"], "as u64"),
        (["--set", "offset"], "expected NAME=VALUE"),
        (["--set", "=1"], "expected NAME=VALUE"),
    ],
)
def test_bad_set_is_a_usage_error(settable: Path, args: list[str], expected: str):
    line = one_line_usage_error(polydat("run", str(settable), "--cycles", "3", *args))
    assert expected in line
    assert "--set" in line


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--outputs", ","], "names no outputs"),
        (["--outputs", ""], "names no outputs"),
        (["--outputs", "usr_id"], "no output named 'usr_id'; did you mean 'user_id'?"),
        (["--outputs", "user_id,zzzzzzzzzz"], "no output named 'zzzzzzzzzz'; outputs are: hashed, user_id"),
        (["--outputs", "bucket,bucket"], "'bucket' is listed twice"),
        (["--threads", "0"], "--threads: must be a whole number in 1..=256"),
        (["--threads", "-3"], "--threads: must be a whole number in 1..=256"),
        (["--threads", "10000"], "--threads: must be a whole number in 1..=256"),
        (["--threads", "two"], "--threads: must be a whole number in 1..=256"),
        (["--cycles", "0..99999999999999999999999"], "does not fit in 64 bits"),
        (["--cycles", "18446744073709551617"], "does not fit in 64 bits"),
        (["--cycles", "5..18446744073709551617"], "does not fit in 64 bits"),
        (["--cycles", "5..1"], "empty or reversed"),
        (["--format", "parquet"], "needs an output file"),
        (["--format", "xml"], "invalid choice"),
    ],
)
def test_bad_arguments_are_one_line_usage_errors(args: list[str], expected: str):
    base = ["run", str(EXAMPLE), "--cycles", "0..3"]
    line = one_line_usage_error(polydat(*base, *args))
    assert expected in line
    assert line.startswith("polydat: ")


def test_threads_bounds_are_documented_and_inclusive():
    assert "1..256" in polydat("run", "--help").stdout
    r = polydat("run", str(EXAMPLE), "--cycles", "3", "--threads", "256", "--outputs", "user_id")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[1:] == ["0,607535", "1,822465", "2,348110"]


def test_the_last_cycle_of_u64_is_reachable():
    r = polydat("run", str(EXAMPLE), "--cycles", "18446744073709551615..18446744073709551616", "--outputs", "user_id")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["cycle,user_id", "18446744073709551615,443936"]


def test_version():
    r = polydat("--version")
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"polydat {pd.__version__}\n"


def script_and_module_runs(*args: str) -> list[subprocess.CompletedProcess[bytes]]:
    """The same invocation through the console script and ``python -m polydat``."""
    script = Path(sys.executable).with_name("polydat")
    if not script.exists():  # pragma: no cover - an installation without scripts beside python
        pytest.skip("no polydat console script beside the interpreter")
    commands = [[str(script), *args], [sys.executable, "-m", "polydat", *args]]
    return [subprocess.run(c, capture_output=True, timeout=120, cwd=ROOT) for c in commands]


@pytest.mark.parametrize(
    "args",
    [
        ["--version"],
        ["run", str(EXAMPLE), "--cycles", "0..4", "--format", "jsonl"],
        ["run", str(EXAMPLE), "--cycles", "0..4", "--threads", "0"],
        ["run", "--help"],
        ["nodes", "hsah"],
        [],
    ],
)
def test_python_m_polydat_is_the_polydat_script(args: list[str]):
    script, module = script_and_module_runs(*args)
    assert (module.returncode, module.stdout, module.stderr) == (script.returncode, script.stdout, script.stderr)


def test_dash_means_stdout():
    plain = polydat("run", str(EXAMPLE), "--cycles", "0..50")
    dash = polydat("run", str(EXAMPLE), "--cycles", "0..50", "-o", "-")
    assert dash.returncode == 0, dash.stderr
    assert dash.stdout == plain.stdout and dash.stdout.startswith("cycle,hashed,")
    assert not (ROOT / "-").exists()


def test_parquet_to_stdout_is_streamed():
    import pyarrow.parquet as pq

    r = subprocess.run(
        [sys.executable, "-m", "polydat", "run", str(EXAMPLE), "--cycles", "70000", "--format", "parquet", "-o", "-"],
        capture_output=True, timeout=120,
    )
    assert r.returncode == 0, r.stderr
    table = pq.read_table(io.BytesIO(r.stdout))
    assert table.num_rows == 70000
    assert table.column("user_id")[:3].to_pylist() == [607535, 822465, 348110]


@pytest.mark.skipif(os.name != "posix", reason="needs a pty")
def test_parquet_is_not_written_to_a_terminal():
    import pty

    primary, secondary = pty.openpty()
    try:
        r = subprocess.run(
            [sys.executable, "-m", "polydat", "run", str(EXAMPLE), "--cycles", "3", "--format", "parquet", "-o", "-"],
            stdout=secondary, stderr=subprocess.PIPE, text=True, timeout=120,
        )
    finally:
        os.close(secondary)
    os.set_blocking(primary, False)
    try:
        written = os.read(primary, 1 << 16)
    except (BlockingIOError, OSError):
        written = b""
    os.close(primary)
    assert r.returncode == 2 and "terminal" in r.stderr
    assert written == b""


def test_an_error_from_generate_is_clean_and_writes_nothing(tmp_path: Path):
    src = tmp_path / "nocoord.polydat"
    src.write_text("extern k: u64 = 1\nx := k + 1\n")
    r = polydat("run", str(src), "--cycles", "3")
    assert r.returncode == 1, r.stderr
    assert r.stdout == "" and "Traceback" not in r.stderr and "coordinate" in r.stderr


def test_a_closed_pipe_ends_the_run_quietly(spawn):  # type: ignore[no-untyped-def]
    proc = spawn(
        [sys.executable, "-m", "polydat", "run", str(EXAMPLE), "--cycles", "0..1G"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline().startswith(b"cycle,")
    proc.stdout.close()  # like `| head -1`
    assert proc.wait(60) == 0
    assert proc.stderr.read() == b""


def test_main_in_process_leaves_signal_handlers_as_they_were(capsys: pytest.CaptureFixture[str]):
    from polydat.cli import main

    before = signal.getsignal(signal.SIGTERM)
    assert main(["run", str(EXAMPLE), "--cycles", "2", "--outputs", "user_id"]) == 0
    assert capsys.readouterr().out.splitlines() == ["cycle,user_id", "0,607535", "1,822465"]
    assert signal.getsignal(signal.SIGTERM) == before

    results: list[int] = []  # signal handlers can only be set in the main thread: not attempted elsewhere
    worker = threading.Thread(target=lambda: results.append(main(["nodes", "mod"])))
    worker.start()
    worker.join(60)
    assert results == [0]
