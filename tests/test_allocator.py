"""The compiled core's allocator keeps the memory a freed column held and
hands it to the next one: a `generate` of many rows after another does not
fault its whole output in again from the kernel, page by page. Each check
runs in a fresh interpreter, so no other test's memory is in the count."""

from __future__ import annotations

import os
import subprocess
import sys

PROGRAM = "input k: u64\\nname := full_name(k)\\naddress := full_address(k)\\nphone := phone_number(k)\\n"

SCRIPT = f"""
import os, resource, polydat
program = polydat.compile("{PROGRAM}")
rows = 200_000
program.generate(range(rows), format="arrow")  # its memory is freed when it is dropped
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
table = program.generate(range(rows), format="arrow")
faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
print(faults, table.nbytes // resource.getpagesize(), os.environ["MIMALLOC_ARENA_RESERVE"])
"""


def run(env: dict[str, str]) -> tuple[int, int, str]:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    faults, pages, arena = done.stdout.split()
    return int(faults), int(pages), arena


def test_a_second_generate_reuses_the_memory_the_first_gave_back() -> None:
    env = {k: v for k, v in os.environ.items() if k != "MIMALLOC_ARENA_RESERVE"}
    faults, pages, arena = run(env)
    assert pages > 3000, "the output spans thousands of pages"
    # The system allocator faulted in about as many pages as the output holds.
    assert faults < pages // 4, f"{faults} page faults for an output of {pages} pages"
    assert arena == "16MiB", "the package sets the arena size when the user has not"


def test_an_arena_size_the_user_set_is_kept() -> None:
    _, _, arena = run({**os.environ, "MIMALLOC_ARENA_RESERVE": "32MiB"})
    assert arena == "32MiB"
