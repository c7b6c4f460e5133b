"""docs/locales.md: every sample program prints the ten rows written below
it, and the README's and the page's other blocks compile."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import polydat

ROOT = Path(__file__).resolve().parent.parent
PAGE = (ROOT / "docs" / "locales.md").read_text(encoding="utf-8")
SAMPLES = re.findall(r"### (\w+)\n\n```polydat\n(.*?)```\n\n```text\n(.*?)```", PAGE, re.S)


def test_every_locale_has_a_sample():
    assert [name for name, _, _ in SAMPLES] == [
        "en_US", "en_GB", "en_IN", "de_DE", "fr_FR", "es_ES", "it_IT", "pt_BR", "ja_JP", "zh_CN"]


@pytest.mark.parametrize("locale, program, rows", SAMPLES, ids=[s[0] for s in SAMPLES])
def test_a_sample_prints_its_ten_rows(locale: str, program: str, rows: str) -> None:
    assert f'pragma locale "{locale}"' in program
    cols = polydat.compile(program).generate(10)
    printed = [" | ".join(str(cols[c][i]) for c in cols) for i in range(10)]
    assert printed == rows.rstrip("\n").split("\n")


def test_the_other_blocks_compile():
    blocks = re.findall(r"```polydat\n(.*?)```", PAGE.split("## Ten rows")[0], re.S)
    assert len(blocks) == 2
    for block in blocks:
        assert polydat.compile(block).generate(3)
