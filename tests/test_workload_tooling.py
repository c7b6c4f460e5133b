"""Workload errors and tooling: a name no scope binds is an error (not a
column of zeros), diagnostics point at the YAML file's own line and column,
``polydat check`` and ``polydat explain`` understand workloads, ``emit``
decides the columns, and an interrupted run takes back the directory it
created."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import polydat
from polydat.workload import Workload

ROOT = Path(__file__).resolve().parent.parent
SHOP = ROOT / "examples" / "shop" / "shop.yaml"


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "polydat", *args], capture_output=True, text=True, timeout=300)


def write(tmp_path: Path, text: str, name: str = "w.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


TYPO_ROWS = """\
# a users table with a typo in a binding
params:
  users: 3
phases:
  users:
    cycles: "{users}"
    bindings: |
      id := cycle
      user_id := usr
      name := full_name(id)
"""


def test_a_typo_in_a_rows_binding_is_an_error_not_a_column_of_zeros(tmp_path: Path) -> None:
    path = write(tmp_path, TYPO_ROWS)
    r = cli("run", str(path))
    assert r.returncode == 1, r.stdout
    assert r.stdout == ""
    assert r.stderr.startswith(f"{path}:9:18:error: 'usr' is not bound in this scope or a scope around it"), r.stderr
    assert "  |       user_id := usr\n  |                  ^" in r.stderr
    with pytest.raises(polydat.CompileError) as info:
        Workload.load(path).table("users")
    assert (info.value.line, info.value.col) == (9, 18)


@pytest.mark.parametrize(
    "text, line, col, hint",
    [
        # the workload scope
        ("params: {n: 2}\nbindings: |\n  base := offst\nphases:\n  t:\n    bindings: 'x := cycle'\n", 3, 11, None),
        # a for_each level's scope: the iteration variable is suggested
        (
            "phases:\n  t:\n    for_each:\n      - each: 'user in 0..2'\n        bindings: |\n"
            "          twice := usr * 2\n    emit: [user, twice]\n",
            6, 20, "did you mean 'user'?",
        ),
        # a rows program under a level: the typo is swept nowhere, not even alone
        ("phases:\n  t:\n    for_each: 'user in 0..2'\n    bindings: 'user_id := usre'\n", 4, 27, "did you mean 'user'?"),
        # a declared input other than cycle
        ("phases:\n  t:\n    bindings: |\n      input seed\n      x := hash(seed) + cycle\n", 4, 13, None),
    ],
)
def test_an_input_nothing_sets_is_refused_in_every_scope(tmp_path: Path, text: str, line: int, col: int, hint) -> None:  # type: ignore[no-untyped-def]
    path = write(tmp_path, text)
    with pytest.raises(polydat.CompileError) as info:
        w = Workload.load(path)
        for phase in w.phases:
            w.table(phase)
    err = info.value
    assert (err.line, err.col, err.diagnostic.path) == (line, col, str(path)), str(err)
    assert "has no value" in err.message
    if hint:
        assert err.hint == hint


def test_cycle_is_the_rows_input_and_strict_is_on_request(tmp_path: Path) -> None:
    plain = "params: {n: 2}\nphases:\n  t:\n    cycles: '{n}'\n    bindings: 'x := cycle + 0.5'\n"
    w = Workload.load(write(tmp_path, plain))
    assert w.check() == [], "cycle is no inferred input to warn about"
    assert w.table("t").to_pylist() == [{"x": 0.5}, {"x": 1.5}]
    w = Workload.load(write(tmp_path, "strict: true\n" + plain))
    assert w.strict
    [error] = w.check()
    assert "strict mode" in error.message and "implicit u64 -> f64 refused" in error.message
    assert (error.line, error.col) == (6, 27)
    fixed = "strict: true\n" + plain.replace("cycle + 0.5", "(cycle as f64) + 0.5")
    assert Workload.load(write(tmp_path, fixed)).table("t").to_pylist() == [{"x": 0.5}, {"x": 1.5}]
    with pytest.raises(polydat.PolydatError, match="strict is true or false"):
        Workload.load(write(tmp_path, "strict: 3\n" + plain))


BAD = """\
# errors in several phases
params:
  users: 3

bindings: |
  const prefix := "u"

phases:
  users:
    cycles: "{users}"
    bindings: |
      id := cycle
      name := hsah(id)
  tagged:
    cycles: "{users}"
    bindings: |
      name := "{prefix}{cycle}"
    emit: [name, nmae]
  counted:
    cycles: "{nope}"
    bindings: "x := cycle"
  levels:
    for_each: "k in 0..{users} wher"
"""


def test_errors_point_at_the_yaml_files_own_lines_and_columns(tmp_path: Path) -> None:
    path = write(tmp_path, BAD)
    w = Workload.load(path)
    found = [(d.line, d.col, d.message) for d in w.check()]
    assert found == [
        (13, 15, "unknown node 'hsah'"),
        (18, 18, "'nmae' is neither bound in this scope nor provided by an outer one"),
        (20, 14, "phase 'counted', cycles '{nope}': no scope of this chain binds 'nope'; names here: x, cycle, prefix, users"),
        (23, 32, "unexpected 'wher' in the comprehension"),
    ]


def test_check_reports_every_phase_and_explain_every_scope(tmp_path: Path) -> None:
    path = write(tmp_path, BAD)
    r = cli("check", str(path), str(SHOP))
    assert r.returncode == 1
    assert f"{path}:13:15:error: unknown node 'hsah'\n  |       name := hsah(id)\n  |               ^" in r.stderr
    assert f"{path}:18:18:error: 'nmae'" in r.stderr and "did you mean 'name'?" in r.stderr
    assert f"{path}:20:14:error: phase 'counted'" in r.stderr and '  |     cycles: "{nope}"\n' in r.stderr
    assert f"{path}:23:32:error: unexpected 'wher'" in r.stderr
    assert r.stdout == f"{SHOP}: ok\n"
    assert "Traceback" not in r.stderr
    r = cli("explain", str(SHOP))
    assert r.returncode == 0, r.stderr
    headers = [line for line in r.stdout.splitlines() if line.startswith("== ")]
    assert headers == [
        f"== workload bindings ({SHOP}:15:3) ==",
        f"== phase 'users': rows ({SHOP}:22:7) ==",
        f"== phase 'orders': for_each level 1 (user in 0..{{users}}) ({SHOP}:34:11) ==",
        f"== phase 'orders': for_each level 2 (order_no in 0..{{order_count}}) ({SHOP}:35:10) ==",
        f"== phase 'orders': rows ({SHOP}:37:7) ==",
        f"== phase 'order_lines': for_each level 1 (user in 0..{{users}}) ({SHOP}:34:11) ==",
        f"== phase 'order_lines': for_each level 2 (order_no in 0..{{order_count}}) ({SHOP}:35:10) ==",
        f"== phase 'order_lines': rows ({SHOP}:48:7) ==",
    ]
    dot = cli("explain", "--dot", str(SHOP))
    assert dot.returncode == 0 and dot.stdout.count("digraph") == len(headers)
    r = cli("explain", str(path))
    assert r.returncode == 1 and f"{path}:13:15:error: unknown node 'hsah'" in r.stderr


def test_check_shows_a_workloads_warnings(tmp_path: Path) -> None:
    (tmp_path / "mine.polydat").write_text('email(key: u64) -> (a: str) := {\n  a := "u{key}@corp"\n}\n')
    path = write(tmp_path, "phases:\n  t:\n    bindings: |\n      mail := email(cycle)\n")
    r = cli("check", str(path))
    assert r.returncode == 0, r.stderr
    assert f"{path}:4:15:warning: module 'email' from {tmp_path / 'mine.polydat'}:1:1 shadows" in r.stderr
    assert r.stdout == f"{path}: ok\n"


def test_emit_decides_the_columns_and_helpers_are_no_columns_by_default(tmp_path: Path) -> None:
    text = """\
phases:
  t:
    for_each: "user in 0..2"
    cycles: 2
    bindings: |
      _salt := hash(user)
      order_id := user * 10 + cycle
      pick := mod(_salt, 3)
"""
    w = Workload.load(write(tmp_path, text))
    assert w.columns("t") == ["user", "order_id", "pick"], "default: iteration variables, then non-helper bindings"
    assert list(w.table("t").to_pylist()[1]) == ["user", "order_id", "pick"]
    w = Workload.load(write(tmp_path, text + "    emit: [order_id, _salt]\n"))
    assert w.columns("t") == ["order_id", "_salt"], "emit is exactly the columns: no loop variable unless listed"
    assert w.table("t").column_names == ["order_id", "_salt"]
    with pytest.raises(polydat.PolydatError, match="emit lists 'order_id' twice"):
        Workload.load(write(tmp_path, text + "    emit: [order_id, order_id]\n"))


@pytest.mark.skipif(os.name != "posix", reason="POSIX signals")
@pytest.mark.parametrize("nested", [False, True], ids=["dir", "nested-dirs"])
def test_an_interrupted_workload_removes_the_directory_it_created(tmp_path: Path, nested: bool) -> None:
    path = write(tmp_path, "phases:\n  small:\n    cycles: 3\n    bindings: 'x := cycle'\n"
                 "  big:\n    cycles: 1000000000\n    bindings: 'y := hash(cycle)'\n")
    out = tmp_path / "a" / "b" if nested else tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "polydat", "run", str(path), "-o", str(out)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while not (out.is_dir() and any(p.name.startswith(".big.csv.") for p in out.iterdir())):
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            assert time.monotonic() < deadline, "the big phase never started"
            time.sleep(0.02)
        assert (out / "small.csv").exists()
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, stderr
    assert os.listdir(tmp_path) == ["w.yaml"], "the output directory (and its parents) are gone"


def test_a_failed_run_into_an_existing_directory_keeps_what_was_there(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    path = write(tmp_path, "phases:\n  a:\n    bindings: 'x := cycle'\n  b:\n    cycles: '{nope}'\n")
    r = cli("run", str(path), "-o", str(out))
    assert r.returncode == 1 and "no scope of this chain binds 'nope'" in r.stderr
    assert os.listdir(out) == ["keep.txt"], "the phase file this run wrote is taken back"


def test_check_reaches_a_rows_program_under_a_level_without_tuples(tmp_path: Path) -> None:
    text = "params: {n: 0}\nphases:\n  t:\n    for_each: 'k in 0..{n}'\n    bindings: 'x := hsah(k)'\n"
    [error] = Workload.load(write(tmp_path, text)).check()
    assert (error.line, error.col, error.message) == (5, 21, "unknown node 'hsah'")
    deeper = (
        "params: {n: 0}\nphases:\n  t:\n    for_each:\n      - 'k in 0..{n}'\n      - 'j in 0..{k}'\n"
        "    bindings: 'x := hsah(j)'\n"
    )
    [note] = Workload.load(write(tmp_path, deeper)).check()
    assert note.severity == "warning" and (note.line, note.col) == (5, 10)
    assert note.message == "phase 't': for_each level 1 gives no tuple with these params, so the scopes under it were not checked"
