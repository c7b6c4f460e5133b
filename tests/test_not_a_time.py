"""NaT ("not a time", numpy's and Arrow's int64 minimum) written where a
timestamp is converted (issue 44 item 8): refused with one clear error —
by set(), inputs=, an extern default and --set — where it was accepted and
rendered as the year -292275055."""

from __future__ import annotations

import datetime
import subprocess
import sys

import numpy as np
import pytest

import polydat
from polydat import CompileError, PolydatError, WriteError

SOURCE = "input cycle\nextern t: timestamp\nout := t as str"
NAT_WORDS = "NaT (not a time)"
NATS = [np.datetime64("NaT"), np.datetime64("NaT", "ms"), np.datetime64("NaT", "ns"), np.datetime64("NaT", "D"),
        -(2**63)]


def nat_values() -> list[object]:
    values: list[object] = list(NATS)
    try:
        import pandas as pd
    except ImportError:
        return values
    return [*values, pd.NaT]


@pytest.mark.parametrize("value", nat_values(), ids=repr)
def test_set_refuses_nat(value: object) -> None:
    kernel = polydat.compile(SOURCE).kernel()
    with pytest.raises(WriteError) as info:
        kernel.set("t", value)
    assert NAT_WORDS in str(info.value), str(info.value)


@pytest.mark.parametrize("value", nat_values(), ids=repr)
def test_inputs_refuse_nat(value: object) -> None:
    with pytest.raises(WriteError, match=r"NaT \(not a time\)"):
        polydat.compile(SOURCE).generate(cycles=1, inputs={"t": value}, format="arrow")


def test_a_nat_extern_default_is_a_compile_error() -> None:
    with pytest.raises(CompileError) as info:
        polydat.compile("input cycle\nextern t: timestamp = -9223372036854775808\nout := t as str")
    assert NAT_WORDS in str(info.value), str(info.value)


def test_parse_input_and_the_command_lines_set_refuse_nat(tmp_path) -> None:
    program = polydat.compile(SOURCE)
    with pytest.raises(PolydatError, match=r"NaT \(not a time\)"):  # as any text it cannot read
        program.parse_input("t", "-9223372036854775808")
    path = tmp_path / "t.polydat"
    path.write_text(SOURCE + "\n")
    run = subprocess.run([sys.executable, "-m", "polydat", "run", str(path), "--cycles", "1", "--set",
                          "t=-9223372036854775808"], capture_output=True, text=True)
    assert run.returncode != 0 and NAT_WORDS in run.stderr and "Traceback" not in run.stderr, run.stderr


def test_instants_next_to_nat_and_datetimes_still_write() -> None:
    kernel = polydat.compile(SOURCE).kernel()
    kernel.set("t", -(2**63) + 1)
    assert kernel.pull("out").startswith("-292275055-")
    kernel.set("t", datetime.datetime(2024, 1, 2))
    assert kernel.pull("out") == "2024-01-02T00:00:00.000Z"
    kernel.set("t", np.datetime64("2024-01-02T03:04:05.006"))
    assert kernel.pull("out") == "2024-01-02T03:04:05.006Z"
    kernel.set("t", None)
    assert kernel.pull("out") is None
