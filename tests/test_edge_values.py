"""Values at the edges of their types survive every conversion: the
smallest timestamp, i64::MIN + 1, is a value (i64::MIN itself is numpy's
NaT, refused wherever a timestamp is converted: tests/test_not_a_time.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import polydat

TIMESTAMP = "input cycle\nextern t: timestamp = 0\nout := t\ntext := \"{t}\"\n"
MIN = -(2**63) + 1
NAT = -(2**63)


def min_text() -> str:
    k = polydat.compile(f'extern t: timestamp = {MIN}\ntext := "{{t}}"').kernel()
    return str(k.pull("text"))


def test_the_smallest_timestamp_read_from_the_command_line_is_written(tmp_path: Path) -> None:
    src = tmp_path / "t.polydat"
    src.write_text(TIMESTAMP)
    r = subprocess.run(
        [sys.executable, "-m", "polydat", "run", str(src), "--cycles", "2", "--set", f"t={MIN}"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    want = min_text()
    assert want.startswith("-292275055-")
    assert r.stdout.splitlines() == ["cycle,out,text", f"0,{want},{want}", f"1,{want},{want}"]


def test_the_smallest_timestamp_written_from_python_is_kept_and_nat_is_refused() -> None:
    prog = polydat.compile(TIMESTAMP)
    parsed = prog.parse_input("t", str(MIN))
    assert isinstance(parsed, np.datetime64) and parsed.astype("int64") == MIN
    k = prog.kernel()
    k.set("t", parsed)
    assert k.pull("out").astype("int64") == MIN
    assert k.pull("text") == min_text()
    rows = prog.generate(range(2), inputs={"t": parsed})
    assert not isinstance(rows["out"], np.ma.MaskedArray)
    assert rows["out"].view("int64").tolist() == [MIN, MIN]
    assert rows["text"].tolist() == [min_text()] * 2
    with pytest.raises(polydat.WriteError, match=r"NaT \(not a time\)"):
        k.set("t", np.datetime64("NaT"))
    with pytest.raises(polydat.PolydatError, match=r"NaT \(not a time\)"):
        prog.parse_input("t", str(NAT))
