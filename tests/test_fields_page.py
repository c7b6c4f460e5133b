"""docs/fields.md: every ``polydat`` sample compiles and each ``# value``
comment is its binding's value at key 42; every ``python`` sample runs."""

from __future__ import annotations

import datetime
import re
from pathlib import Path

import pytest

import polydat

PAGE = (Path(__file__).resolve().parent.parent / "docs" / "fields.md").read_text(encoding="utf-8")
KEY = 42


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", PAGE, re.S)


def shown(value: object) -> str:
    """A value as the page's comments write it."""
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    return str(value)


@pytest.mark.parametrize("block", blocks("polydat"))
def test_each_sample_gives_the_values_its_comments_say(block: str) -> None:
    row = polydat.compile(block).generate(range(KEY, KEY + 1))
    checked = 0
    for line in block.splitlines():
        binding = re.match(r"(\w+) := .*#(.*)$", line)
        if binding is None:
            continue
        name, expected = binding.group(1), binding.group(2).strip()
        assert shown(row[name].tolist()[0]) == expected, (name, line)
        checked += 1
    assert checked > 0


def test_the_page_has_its_samples() -> None:
    assert len(blocks("polydat")) == 4 and len(blocks("python")) == 1


@pytest.mark.parametrize("block", blocks("python"))
def test_each_python_sample_runs(block: str) -> None:
    exec(compile(block, "docs/fields.md", "exec"), {})
