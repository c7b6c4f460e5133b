"""Soak tests (long profile, ``POLYDAT_LONG=1``): millions of reads and
writes with the resident set sampled, and many failures on several threads,
with the kernels correct afterwards."""

from __future__ import annotations

import threading

import pytest

import polydat

pytestmark = pytest.mark.long

ROUNDS = 10_000_000
SAMPLE = 1_000_000


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20


def sampled(step, rounds: int = ROUNDS) -> list[float]:
    """Runs ``step(i)`` ``rounds`` times and samples the RSS every SAMPLE rounds."""
    samples = []
    for i in range(rounds):
        step(i)
        if i % SAMPLE == SAMPLE - 1:
            samples.append(rss_mb())
    return samples


def assert_flat(samples: list[float], what: str) -> None:
    print(f"{what}: RSS {samples[0]:.1f} MB after the first {SAMPLE:,} rounds, {samples[-1]:.1f} MB at the end")
    assert samples[-1] - samples[0] < 8.0, f"{what}: RSS grew from {samples[0]:.1f} to {samples[-1]:.1f} MB"


@pytest.mark.parametrize("engine", ["p1", "p2", "p3", "mixed"])
def test_string_pulls_do_not_grow_memory(engine: str) -> None:
    k = polydat.compile('input cycle: u64\nlabel := "user-{mod(hash(cycle), 1000000)}"', engine=engine).kernel()

    def step(i: int) -> None:
        k.set_inputs(i)
        k.pull("label")

    assert_flat(sampled(step), f"{engine} string pulls")


@pytest.mark.parametrize("engine", ["p1", "p2", "p3", "mixed"])
def test_set_inputs_does_not_grow_memory(engine: str) -> None:
    k = polydat.compile("input (a: u64, b: u64)\nextern r: str = \"x\"\ns := u64_add(a, b)", engine=engine).kernel()

    def step(i: int) -> None:
        k.set_inputs(i, b=i + 1)

    assert_flat(sampled(step), f"{engine} set_inputs")


@pytest.mark.parametrize("engine", ["p1", "p2/raw", "p2/pull", "p2/pushpull", "p3/raw", "p3/pull", "mixed"])
def test_predicate_failures_on_four_threads_leave_kernels_correct(engine: str) -> None:
    prog = polydat.compile("input cycle: u64\nchecked := in_range(cycle, 0, 999)\nh := hash(checked)", engine=engine)
    want = polydat.compile(prog.source, engine="p1").kernel()
    want.set_inputs(7)
    expected = want.pull("h")
    errors: list[str] = []

    def worker() -> None:
        k = prog.kernel()
        for i in range(1000):
            k.set_inputs(1000 + i)
            try:
                k.pull("h")
                errors.append("no failure")
            except polydat.EvalError as err:
                if "in_range" not in str(err):
                    errors.append(str(err))
        k.set_inputs(7)
        if k.pull("h") != expected:
            errors.append("wrong value after the failures")

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:3]
