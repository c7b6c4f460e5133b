"""One line-splitting rule: lines end at \\n (a trailing \\r is dropped for display).

``str.splitlines`` also splits at \\x0c, \\x85, \\u2028, a lone \\r ... which
the lexer does not count as line ends, so a diagnostic quoted the wrong line.
"""

from __future__ import annotations

import pytest

from polydat import dsl
from polydat.dsl.diagnostics import SourceFile, source_lines

ODD = ["\x0c", "\x85", "\u2028", "\u2029", "\r", "\x1c", "\x1d", "\x1e", "\x0b"]


def test_source_lines_split_at_newline_only() -> None:
    assert source_lines("a\nb\r\nc") == ["a", "b", "c"]
    assert source_lines("a\rb\x0cc\x85d\u2028e") == ["a\rb\x0cc\x85d\u2028e"]
    assert source_lines("x\r\r\n") == ["x\r", ""], "one trailing \\r is stripped, no more"
    assert source_lines("") == [""]


@pytest.mark.parametrize("odd", ODD)
def test_a_diagnostic_quotes_the_line_the_lexer_counted(catalog, odd: str) -> None:  # type: ignore[no-untyped-def]
    # The odd character sits inside a comment on line 1: it is not a line end.
    source = f"# note{odd}more\ninput cycle\nx := hsah(cycle)\n"
    (diagnostic,) = [d for d in dsl.check(source, catalog=catalog) if d.severity == "error"]
    assert diagnostic.line == 3
    assert diagnostic.source_line == "x := hsah(cycle)"
    assert SourceFile(source).line_text(3) == "x := hsah(cycle)"
