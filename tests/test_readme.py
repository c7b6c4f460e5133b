"""What the README promises a new user, checked: the Python API block's
commented values are what prints, the Dask block opens a file that is where
it says, and the first two command lines stay true."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import polydat

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def python_block(after_heading: str) -> str:
    """The first ```python block after ``after_heading``."""
    rest = README[README.index(after_heading):]
    return re.search(r"```python\n(.*?)```", rest, re.S).group(1)  # type: ignore[union-attr]


def test_the_api_blocks_comments_are_what_prints(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each line ``EXPR  # VALUE`` of the block (up to the first ``generate``),
    whose comment starts with a Python literal, evaluates to that literal."""
    monkeypatch.chdir(ROOT)
    scope: dict[str, object] = {}
    checked = []
    for line in python_block("## Python API").splitlines():
        code, _, comment = line.partition("#")
        code = code.strip()
        if code.startswith("cols ="):
            break
        if not code:
            continue
        literal = re.match(r"\s*(\"[^\"]*\"|\[[^\]]*\]|\d+)", comment)
        if literal is not None and "=" not in code.replace("==", ""):
            expected = ast.literal_eval(literal.group(1))
            assert eval(code, scope) == expected, (code, comment)  # noqa: S307 - the README's own code
            checked.append(code)
        else:
            exec(code, scope)  # noqa: S102 - the README's own code
    assert checked == ["prog.engine", "prog.inputs", "k.pull(\"user_id\")"]


def test_the_dask_block_opens_a_file_of_this_repository() -> None:
    block = python_block("## Dask")
    path = re.search(r'open\("([^"]+)"\)', block).group(1)  # type: ignore[union-attr]
    outputs = ast.literal_eval(re.search(r"outputs=(\[[^\]]*\])", block).group(1))  # type: ignore[union-attr]
    prog = polydat.compile_file(ROOT / path)
    assert set(outputs) <= set(prog.outputs), (outputs, list(prog.outputs))
    table = prog.generate(range(10), outputs=outputs, format="arrow")
    assert table.column_names == outputs and table.num_rows == 10


def test_the_first_commands_are_still_the_ones_to_run() -> None:
    first = re.search(r"```bash\n(.*?)```", README, re.S).group(1)  # type: ignore[union-attr]
    assert first.splitlines()[0] == "pip install . && polydat run examples/users.polydat --cycles 0..10"
    assert first.splitlines()[1].startswith("bash .ci/run")
    assert (ROOT / "examples" / "users.polydat").is_file() and (ROOT / ".ci" / "run").is_file()
