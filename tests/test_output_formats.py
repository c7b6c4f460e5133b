"""The output formats are the core's registry (``columns::formats``, read
through ``polydat.dsl.corerules.formats``): the command line offers exactly
its formats, takes the format ``-o PATH`` implies from its extensions, and
has a writer for each of its binary formats."""

from __future__ import annotations

import argparse

import pytest

from polydat import cli
from polydat.dsl import corerules


def _run_option(name: str) -> argparse.Action:
    """The action of option ``name`` of ``polydat run``."""
    parser = cli.build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return next(a for a in commands.choices["run"]._actions if name in a.option_strings)


def test_the_format_choices_are_the_registry_names() -> None:
    names = [name for f in corerules.formats() for name in (f.name, *f.aliases)]
    assert list(_run_option("--format").choices or ()) == names


def test_every_extension_implies_its_format() -> None:
    for f in corerules.formats():
        for ext in f.extensions:
            assert cli.output_format(None, f"rows{ext.upper()}") == f.name
            assert cli.output_format(f.name, f"rows{ext}") == f.name


def test_the_registry_says_when_no_format_has_an_extension() -> None:
    assert corerules.format_of_extension(".xlsx") is None
    assert corerules.format_of_extension("") is None
    with pytest.raises(cli.UsageError, match=r"no output format writes \.xlsx files"):
        cli.output_format(None, "rows.xlsx")  # written as CSV before, with exit 0
    assert cli.output_format("csv", "rows.xlsx") == "csv"
    assert cli.output_format(None, "rows") == cli.DEFAULT_FORMAT


def test_every_binary_format_has_a_writer_and_text_formats_a_header_rule() -> None:
    from polydat import _core

    assert {f.writer for f in corerules.formats() if f.binary} == set(cli.BINARY_WRITERS)
    for f in corerules.formats():
        assert corerules.format_named(f.name) == f
        header = _core.text_header(["a", "b"], f.name)
        assert header == (b"a,b\n" if f.name == "csv" else b"")


def test_an_unknown_format_is_refused_with_the_list() -> None:
    from polydat import _core
    from polydat.errors import WriteError

    with pytest.raises(WriteError, match=r"unknown format 'xlsx' \(csv, jsonl, parquet or arrow\)"):
        _core.text_header(["a"], "xlsx")
