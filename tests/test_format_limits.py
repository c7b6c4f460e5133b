"""Widths and precisions past the formatters' limit (issue 44 item 12): a
compile error naming the argument and the limit, where they compiled and
failed every row with Rust's "Formatting argument out of range"."""

from __future__ import annotations

import pytest

import polydat
from polydat import CompileError

LIMIT = 65535


@pytest.mark.parametrize(
    "call, words",
    [
        ("zero_pad_u64(cycle, 70000)", "zero_pad_u64: width 70000 is larger than 65535"),
        ("format_f64(cycle as f64, 65536)", "format_f64: precision 65536 is larger than 65535"),
        ('printf("{:.70000}", cycle as f64)', "printf: precision 70000 is larger than 65535"),
        ('printf("{:.70000}", cycle)', "printf: precision 70000 is larger than 65535"),
    ],
)
def test_a_size_past_the_limit_is_a_compile_error_naming_it(call: str, words: str) -> None:
    with pytest.raises(CompileError) as info:
        polydat.compile(f"input cycle\nx := {call}")
    assert words in info.value.message, info.value.message
    assert (info.value.line, info.value.col) == (2, 6)


@pytest.mark.parametrize("engine", ["p1", "p3", "mixed"])
def test_sizes_at_the_limit_format_on_every_engine(engine: str) -> None:
    source = (
        f"input cycle\npad := zero_pad_u64(cycle, {LIMIT})\nfixed := format_f64(cycle as f64, {LIMIT})\n"
        f'text := printf("{{:.{LIMIT}}}", cycle as f64)\nwide := printf("{{:70000}}", "s")'
    )
    row = polydat.compile(source, engine=engine).generate(cycles=range(7, 8), format="arrow").to_pylist()[0]
    assert len(row["pad"]) == LIMIT and row["pad"].endswith("07")
    assert row["fixed"] == row["text"] == "7." + "0" * LIMIT
    assert len(row["wide"]) == 70000 and row["wide"].endswith(" s"), "text pads by hand as numbers do"
