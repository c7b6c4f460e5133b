"""Ctrl-C while the command starts up (importing numpy and the compiled
core takes a moment) ends it like Ctrl-C at any other time: exit 130 and
one line, no traceback."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

# The console script's own code, run after an import hook that raises
# KeyboardInterrupt when `module` is imported: Ctrl-C arriving at that moment.
CTRL_C_DURING_IMPORT = """
import sys

MODULE = sys.argv[1]

class CtrlC:
    def find_spec(self, name, path=None, target=None):
        if name == MODULE:
            raise KeyboardInterrupt
        return None

sys.meta_path.insert(0, CtrlC())
sys.argv = ["polydat", *sys.argv[2:]]
from polydat.cli import main
sys.exit(main())
"""


@pytest.mark.parametrize("module", ["polydat._core", "polydat.program"])
@pytest.mark.parametrize("command", [["nodes", "hash"], ["run", "missing.polydat", "--cycles", "3"]], ids=["nodes", "run"])
def test_ctrl_c_while_starting_up_exits_130_with_one_line(module: str, command: list[str]) -> None:
    r = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(CTRL_C_DURING_IMPORT), module, *command],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 130, r.stderr
    assert r.stderr == "polydat: interrupted\n", r.stderr
    assert r.stdout == ""
