"""Diagnostics a new user meets first (issue 44 item 15): a file name given
to ``compile``, an ``if`` without ``else``, a misspelled workload key, a
phase written twice."""

from __future__ import annotations

from pathlib import Path

import pytest

import polydat
from polydat import Workload
from polydat.errors import CompileError, PolydatError

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_compile_of_a_file_name_says_to_use_compile_file(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(EXAMPLES)
    with pytest.raises(CompileError) as info:
        polydat.compile("users.polydat")
    assert str(info.value).splitlines()[0] == (
        "1:1:error: the source is the file name 'users.polydat', not a program: compile takes program text"
    )
    assert "polydat.compile_file('users.polydat')" in str(info.value)
    assert [d.message for d in polydat.check("users.polydat")] == [info.value.message]


def test_a_one_line_program_is_still_a_program(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x").write_text("")
    with pytest.raises(CompileError, match="expected ':='"):
        polydat.compile("y z")  # not a file name: the parser's own error
    assert list(polydat.compile("x := 1").outputs) == ["x"]


def test_an_if_without_else_is_reported_at_the_if():
    source = "input cycle: u64\nx := if cycle > 3 { 1 }\n\ny := cycle\n"
    with pytest.raises(CompileError) as info:
        polydat.compile(source)
    err = info.value
    assert (err.line, err.col) == (2, 6)
    assert err.message == "`if` without 'else': expected 'else' after its branch but found identifier 'y'"


def test_an_else_if_without_else_is_reported_at_its_own_if():
    with pytest.raises(CompileError) as info:
        polydat.compile("input c: u64\nx := if c > 3 { 1 } else if c > 1 { 2 }\n")
    assert (info.value.line, info.value.col) == (2, 26)


def load(tmp_path: Path, text: str) -> Workload:
    path = tmp_path / "w.yaml"
    path.write_text(text)
    return Workload.load(path)


@pytest.mark.parametrize(
    "text, position, message",
    [
        ("phases:\n  t:\n    cycle: 3\n", (3, 5),
         "phase 't': unknown key 'cycle' (did you mean 'cycles'? keys: for_each, cycles, bindings, emit, description)"),
        ("phases:\n  t:\n    for_each:\n      - each: 'a in 0..2'\n        bindngs: 'x := 1'\n", (5, 9),
         "phase 't': for_each level 1: unknown key 'bindngs' (did you mean 'bindings'? keys: each, bindings)"),
        ("params: {n: 1}\nphase:\n  t: {}\n", (2, 1),
         "unknown key 'phase' (did you mean 'phases'? keys: params, bindings, phases, strict, description)"),
    ],
)
def test_an_unknown_workload_key_has_its_position_and_the_closest_key(tmp_path, text, position, message):
    with pytest.raises(PolydatError) as info:
        load(tmp_path, text)
    err = info.value
    assert (err.line, err.col) == position
    assert err.message == message
    assert str(err).startswith(f"{tmp_path / 'w.yaml'}:{position[0]}:{position[1]}: ")


@pytest.mark.parametrize(
    "text, position, key",
    [
        ("phases:\n  t:\n    cycles: 3\n  t:\n    cycles: 4\n", (4, 3), "t"),
        ("params:\n  n: 1\n  n: 2\nphases:\n  t: {}\n", (3, 3), "n"),
        ("phases:\n  t:\n    bindings: 'x := 1'\n    bindings: 'y := 1'\n", (4, 5), "bindings"),
    ],
)
def test_a_key_written_twice_is_an_error_not_a_dropped_value(tmp_path, text, position, key):
    with pytest.raises(PolydatError) as info:
        load(tmp_path, text)
    err = info.value
    assert (err.line, err.col) == position
    assert err.message.startswith(f"key '{key}' appears twice in this mapping (first at line ")


def test_check_of_a_workload_with_a_phase_twice_fails(tmp_path: Path):
    path = tmp_path / "w.yaml"
    path.write_text("phases:\n  t:\n    cycles: 3\n  t:\n    cycles: 4\n")
    from polydat.cli import main

    assert main(["check", str(path)]) == 1
