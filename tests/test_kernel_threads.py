"""Kernels of one scope tree on different threads, with failing pulls.

Each scenario runs in a subprocess under a watchdog: a deadlock holds the
GIL, so a thread-join timeout in this process could never fire; the
subprocess's timeout turns a returning deadlock into a failed test instead
of a hung suite. Every engine, 2 to 8 threads."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

ENGINES = ["p1", "p2", "p3", "mixed"]
WATCHDOG_SECONDS = 120
"""A generous bound: the scenario itself takes well under a second when it
does not deadlock; only a hang reaches it."""

PARENT = "input cycle\\na := mod_wire(cycle, cycle % 2)\\nok := cycle + 1"

SHARED_KERNEL = f"""
import sys, threading, polydat
engine = sys.argv[1]
sys.setswitchinterval(1e-6)  # switch threads as often as Python can
for threads in (2, 4, 8):
    kernel = polydat.compile("{PARENT}", engine=engine).kernel()
    def work(i):
        for j in range(1000):
            try:
                kernel.pull("a")
            except polydat.EvalError:
                pass
    workers = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
print("done")
"""

PARENT_AND_CHILDREN = f"""
import sys, threading, polydat
engine = sys.argv[1]
sys.setswitchinterval(1e-6)  # switch threads as often as Python can
for threads in (2, 4, 8):
    parent = polydat.compile("{PARENT}", engine=engine).kernel()
    child = polydat.compile("b := ok + 1\\nc := a + 1", outer=parent, engine=engine)
    errors = []
    def work(i):
        if i % 2 == 0:
            for j in range(1000):
                parent.set_inputs(cycle=j % 4)
                try:
                    parent.pull("a")
                except polydat.EvalError:
                    pass
        else:
            kernel = child.kernel()
            for j in range(1000):
                try:
                    kernel.pull("b")
                    kernel.pull("c")
                except polydat.EvalError as e:
                    errors.append(e)
    parent.set_inputs(cycle=1)
    workers = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert all(isinstance(e, polydat.PolydatError) for e in errors)
print("done")
"""


def run_watched(script: str, engine: str) -> None:
    try:
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(script), engine],
            capture_output=True,
            text=True,
            timeout=WATCHDOG_SECONDS,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"deadlock: the threads did not finish within {WATCHDOG_SECONDS} s on {engine}")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "done"


@pytest.mark.parametrize("engine", ENGINES)
def test_one_kernel_shared_by_threads_pulling_a_failing_output_does_not_deadlock(engine: str) -> None:
    run_watched(SHARED_KERNEL, engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_parent_and_its_children_on_threads_with_failing_pulls_do_not_deadlock(engine: str) -> None:
    run_watched(PARENT_AND_CHILDREN, engine)


def test_one_batch_iterator_read_from_two_threads_is_a_polydat_error() -> None:
    # Issue 44 item 16: the second reader gets ConcurrentUseError (not
    # PyO3's "RuntimeError: Already borrowed"); the first reads on.
    import threading

    import polydat

    program = polydat.compile('input cycle: u64\nt := "{cycle}-{cycle}"\n')
    batches = program.iter_batches(10**7, batch_rows=1000)
    errors: list[BaseException] = []

    def read() -> None:
        try:
            for _ in batches:
                pass
        except BaseException as err:  # noqa: BLE001 - collected for the assertion
            errors.append(err)

    threads = [threading.Thread(target=read) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(errors) == 1, errors
    assert isinstance(errors[0], polydat.errors.ConcurrentUseError), repr(errors[0])
    assert isinstance(errors[0], polydat.PolydatError) and "one consumer at a time" in str(errors[0])
