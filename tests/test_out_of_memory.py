"""Running out of memory while generating string columns is a clean
``polydat.OutOfMemoryError`` (a ``PolydatError`` and a ``MemoryError``),
never an abort: through ``generate`` (again after a first failure),
``iter_batches`` (Arrow and encoded text), a text-appending node
(``char_buf``), and ``polydat run``, which exits 1 with one line and leaves
no partial file.

Each scenario runs in a subprocess whose address space is limited
(``RLIMIT_AS``) to what it holds once warmed up plus a margin, so memory
runs out after a few hundred MB of rows."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

MARGIN = 150_000_000
"""Bytes of address space the scenario may use beyond its warmed-up size."""

PRELUDE = f"""
import os, resource, sys
import polydat

def limited(source):
    # The program of `source`, warmed up, then the address space limited.
    program = polydat.compile(source)
    program.generate(range(10))
    size = int(open("/proc/self/status").read().split("VmSize:")[1].split()[0]) * 1024
    resource.setrlimit(resource.RLIMIT_AS, (size + {MARGIN}, size + {MARGIN}))
    return program

def expect_out_of_memory(run, label):
    try:
        run()
    except polydat.OutOfMemoryError as err:
        assert isinstance(err, MemoryError) and isinstance(err, polydat.PolydatError)
        print(label, "out of memory:", err)
        return
    raise AssertionError(label + ": no error")
"""

STRING = 'input cycle\ns := "{cycle}"'
CHARS = 'input cycle\ns := char_buf(cycle, "a-z", 40)'
ROWS = 100_000_000


def run_scenario(body: str, *args: str) -> subprocess.CompletedProcess[str]:
    script = textwrap.dedent(PRELUDE) + textwrap.dedent(body)
    done = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout}\n{done.stderr[-3000:]}"
    assert "memory allocation" not in done.stderr
    return done


@pytest.mark.parametrize("source", [STRING, CHARS], ids=["interpolation", "char_buf"])
def test_generate_of_a_string_column_past_the_memory_limit_is_an_out_of_memory_error(source: str) -> None:
    done = run_scenario(
        f"""
        p = limited({source!r})
        expect_out_of_memory(lambda: p.generate(range({ROWS})), "first")
        expect_out_of_memory(lambda: p.generate(range({ROWS})), "again")
        assert p.generate(range(3))["s"].tolist()[0] is not None
        """
    )
    assert "first out of memory" in done.stdout and "again out of memory" in done.stdout


@pytest.mark.parametrize("encode", ["arrow", "csv"])
def test_iter_batches_past_the_memory_limit_is_an_out_of_memory_error(encode: str) -> None:
    done = run_scenario(
        f"""
        p = limited({STRING!r})
        def run():
            if {encode!r} == "arrow":
                for batch in p.iter_batches(range({ROWS}), batch_rows={ROWS // 2}):
                    pass
            else:
                for text in polydat._core.batches(p._core, p._run_plan({ROWS}, ["s"], None, 1, None), {ROWS // 2}, "csv"):
                    pass
        expect_out_of_memory(run, "batches")
        """
    )
    assert "batches out of memory" in done.stdout


WIDE = 'input cycle\ns := "{cycle}' + "x" * 10_000 + '"'
"""Rows of 10 kB: one batch of the command line's stream holds more than the margin."""


def test_polydat_run_out_of_memory_exits_1_and_leaves_no_partial_file(tmp_path: Path) -> None:
    program = tmp_path / "big.polydat"
    program.write_text(WIDE + "\n")
    out = tmp_path / "rows.csv"
    done = run_scenario(
        f"""
        from polydat.cli import main
        limited({WIDE!r})
        code = main(["run", {str(program)!r}, "--cycles", "{ROWS}", "-o", {str(out)!r}, "--threads", "2"])
        print("exit", code)
        """
    )
    assert done.stdout.strip().endswith("exit 1"), done.stdout
    message = done.stderr.strip().splitlines()
    assert len(message) == 1 and "memory" in message[0], done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.polydat"], "no output and no .partial file"


# Issue 44 item 1: values built from user data (a string of a few hundred MB
# interpolated several times) and an order's table of positions are sized
# fallibly, below the value limit too: the process never aborts.

BIG = 'extern s: str = "a"\nt := "{s}{s}{s}{s}"'
"""Four copies of `s`: past the margin once `s` holds 100 MB."""


@pytest.mark.parametrize("engine", ["p1", "p2", "p3"])
def test_a_value_past_free_memory_below_the_value_limit_is_an_out_of_memory_error(engine: str) -> None:
    done = run_scenario(
        f"""
        polydat.set_max_value_bytes(2**31)
        k = polydat.compile({BIG!r}, engine={engine!r}).kernel()
        k.set("s", "x" * 100_000_000)
        k.pull("s")
        size = int(open("/proc/self/status").read().split("VmSize:")[1].split()[0]) * 1024
        resource.setrlimit(resource.RLIMIT_AS, (size + {MARGIN}, size + {MARGIN}))
        expect_out_of_memory(lambda: k.pull("t"), "pull")
        k.set("s", "y")
        assert k.pull("t") == "yyyy"
        """
    )
    assert "pull out of memory" in done.stdout and "could not be allocated" in done.stdout


def test_generate_of_rows_each_past_free_memory_is_an_out_of_memory_error() -> None:
    done = run_scenario(
        f"""
        p = limited('input cycle: u64\\nextern s: str = "a"\\nt := "{{s}}{{cycle}}"')
        run = lambda: p.generate(100, inputs={{"s": "x" * 20_000_000}}, threads=2, format="arrow")
        expect_out_of_memory(run, "rows")
        """
    )
    assert "rows out of memory" in done.stdout


def test_all_positions_of_a_huge_shuffle_are_refused_before_any_is_made() -> None:
    done = run_scenario(
        """
        limited("input cycle\\nx := 1")
        expect_out_of_memory(lambda: polydat._core.order_positions("shuffle", [10**12], seed=7), "order")
        """
    )
    assert "order out of memory" in done.stdout
