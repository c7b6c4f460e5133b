"""Free names still become inputs, but each one is reported (a warning, or an error when strict)."""

from __future__ import annotations

from polydat import dsl
from polydat.errors import Diagnostic


def test_an_inferred_input_is_a_warning_at_its_first_use(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind("user_id := hash(cycle)\nbucket := mod(user_idd, 64)\nagain := user_idd")
    assert bound.input_names == ("cycle", "user_idd")
    assert bound.inferred_inputs == ("cycle", "user_idd")
    first, second = bound.warnings
    assert isinstance(first, Diagnostic)
    assert (first.severity, first.line, first.col) == ("warning", 1, 17)
    assert first.message == "'cycle' is not bound or declared, so it becomes an input"
    assert first.hint == "declare it (`input cycle`) to make the input explicit"
    assert (second.severity, second.line, second.col) == ("warning", 2, 15)
    assert second.message == "'user_idd' is not bound or declared, so it becomes an input"
    assert second.hint == "did you mean 'user_id'?"
    assert second.source_line == "bucket := mod(user_idd, 64)"
    assert second.render().startswith("2:15:warning: 'user_idd' is not bound")


def test_suggestions_come_from_bindings_inputs_and_nodes(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind("region_id := 1\nextern scale: u64 = 1\nx := regon_id + scalee + hsah")
    assert [w.hint for w in bound.warnings] == [
        "did you mean 'region_id'?", "did you mean 'scale'?", "did you mean 'hash'?",
    ]


def test_a_program_that_declares_an_input_declares_them_all(compile_error) -> None:  # type: ignore[no-untyped-def]
    # Upstream's rule: once any input is declared, a name nothing binds is an error, not a new input.
    err = compile_error("input region_id\nextern scale: u64 = 1\nx := regon_id + scalee + zzz")
    assert [(d.severity, d.line, d.col) for d in err.diagnostics] == [("error", 3, 6), ("error", 3, 17), ("error", 3, 26)]
    assert err.message.startswith("undefined wire reference: 'regon_id'")
    assert [d.hint for d in err.diagnostics] == [
        "did you mean 'region_id'?", "did you mean 'scale'?",
        "'zzz' is not declared: add `input zzz: <type>`, or define it as a binding",
    ]


def test_a_repeated_input_declaration_of_the_same_type_is_a_warning(bind, compile_error) -> None:  # type: ignore[no-untyped-def]
    bound = bind("input cycle: u64\ninput (cycle: u64, day)\nx := hash(cycle) + day")
    assert bound.coordinate_names == ("cycle", "day")
    assert [w.message for w in bound.warnings] == [
        "'cycle' is declared as an input twice; the second declaration repeats the first",
    ]
    err = compile_error("input cycle: u64\ninput cycle: f64\nx := cycle")
    assert err.message == "'cycle' is already declared as an input"


def test_declared_and_outer_names_are_not_reported(bind, catalog) -> None:  # type: ignore[no-untyped-def]
    bound = bind("input cycle\nx := hash(cycle) + region", outer={"region": "u64"})
    assert bound.warnings == () and bound.inferred_inputs == ()
    assert dsl.check("input cycle\nx := hash(cycle)", catalog=catalog) == []


def test_strict_makes_an_inferred_input_an_error(compile_error, catalog) -> None:  # type: ignore[no-untyped-def]
    err = compile_error("user_id := hash(cycle)\nbucket := mod(user_idd, 64)", strict=True)
    assert [(d.severity, d.line, d.col) for d in err.diagnostics] == [("error", 1, 17), ("error", 2, 15)]
    assert err.message == "'cycle' is not bound or declared (strict mode infers no inputs)"
    assert err.diagnostics[1].hint == "did you mean 'user_id'?"
    # The readers of a name that is not an input do not fail a second time.
    assert len(dsl.check("x := hash(cycle)\ny := x + 1\nz := y", catalog=catalog, strict=True)) == 1


def test_check_returns_errors_and_warnings_in_source_order(catalog) -> None:  # type: ignore[no-untyped-def]
    diagnostics = dsl.check("a := hash(c)\nb := hsah(1)\nd := e", catalog=catalog)
    assert [(d.line, d.severity) for d in diagnostics] == [(1, "warning"), (2, "error"), (3, "warning")]
