"""``polydat.check`` and ``polydat check FILE`` report every error of a file,
whatever phase finds it (lexer, parser, binder, the frontend's types, the
core's resolve and adapter passes), in source order: an error in one
statement never hides an error in another."""

from __future__ import annotations

from pathlib import Path

import polydat
from test_cli import polydat as run_cli

EVERY_PHASE = """input cycle: u64
a := hash("a")
c := nonexistent_node(1)
x := $ 5
k := mod(cycle, hash(cycle))
k2 := hash(k)
g := 1.5 as u64
b := hash("b")
y := (1 + )
ok := hash(cycle)
"""

EXPECTED = [
    (2, "type mismatch: parameter `input` of `hash` expects u64, but the wire carries str"),  # core: adapters
    (3, "unknown node 'nonexistent_node'"),  # binder
    (4, "unexpected character '$'"),  # lexer
    (5, "parameter `modulus` of `mod` must be a constant expression"),  # core: resolve
    (7, "cannot cast f64 to u64 with 'as'"),  # the frontend's types
    (8, "type mismatch: parameter `input` of `hash` expects u64, but the wire carries str"),  # core again
    (9, "expected an expression but found ')'"),  # parser
]


def errors_of(source: str) -> list[tuple[int, str]]:
    return [(d.line, d.message) for d in polydat.check(source) if d.severity == "error"]


def test_check_reports_every_phase_in_source_order() -> None:
    found = errors_of(EVERY_PHASE)
    assert [line for line, _ in found] == [line for line, _ in EXPECTED], found
    for (_, message), (_, expected) in zip(found, EXPECTED):
        assert message.startswith(expected), (message, expected)
    # Line 6 reads line 5's failed value: that failure is not reported twice.
    assert all(line != 6 for line, _ in found)


def test_the_command_line_check_prints_them_all_in_order(tmp_path: Path) -> None:
    bad = tmp_path / "bad.polydat"
    bad.write_text(EVERY_PHASE)
    r = run_cli("check", str(bad))
    assert r.returncode == 1
    heads = [line for line in r.stderr.splitlines() if ":error: " in line]
    assert [int(h.split(":")[1]) for h in heads] == [line for line, _ in EXPECTED], r.stderr
    assert "Traceback" not in r.stderr


def test_two_type_mismatches_are_two_errors() -> None:
    found = errors_of('input cycle: u64\na := hash("a")\nb := hash("b")\n')
    assert [line for line, _ in found] == [2, 3], found
    assert all("type mismatch" in message for _, message in found)


def test_a_binder_error_does_not_hide_a_later_type_mismatch() -> None:
    found = errors_of('input cycle: u64\nc := nonexistent_node(cycle)\nb := hash("b")\n')
    assert [line for line, _ in found] == [2, 3], found
    assert "type mismatch" in found[1][1]


def test_compile_raises_every_core_type_error_at_once() -> None:
    try:
        polydat.compile('input cycle: u64\na := hash("a")\nb := hash("b")\n')
    except polydat.CompileError as err:
        assert [d.line for d in err.diagnostics] == [2, 3]
        assert all(d.source_line for d in err.diagnostics)
        assert str(err).count(":error: ") == 2
    else:  # pragma: no cover
        raise AssertionError("compiled")


def test_a_module_error_sorts_at_its_call(tmp_path: Path) -> None:
    (tmp_path / "twice.polydat").write_text('twice(x: u64) -> (out: u64) := {\n  out := hash("q")\n}\n')
    src = 'input cycle: u64\nc := nonexistent_node(1)\nt := twice(cycle)\nb := hash("b")\n'
    found = [(d.line, d.message) for d in polydat.check(src, path=tmp_path / "p.polydat") if d.severity == "error"]
    assert [line for line, _ in found] == [2, 3, 4], found


def test_a_failing_compiler_is_reported_beside_the_frontends_errors(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from polydat import program

    class Broken:
        @staticmethod
        def compile(*args: object, **kwargs: object) -> None:
            raise polydat.InternalError("internal error (a Rust panic): boom")

    monkeypatch.setattr(program._core, "Program", Broken)
    found = polydat.check("input cycle: u64\nc := nonexistent_node(cycle)\n")
    assert [d.message for d in found] == [
        "internal compiler error: internal error (a Rust panic): boom",
        "unknown node 'nonexistent_node'",
    ]
