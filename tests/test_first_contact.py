"""What a new user meets first: inputs that would silently read zero, names
that do not exist, arguments of the wrong kind, failing rows, warnings,
pickling and reprs. Each test pins a defect that once gave a silent wrong
value or a confusing error."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import polydat
from polydat import ArgumentError, CompileError, EvalError, PolydatError, UnknownNameError, WriteError

USERS = """
input cycle: u64
hashed := hash(cycle)
user_id := mod(hashed, 1000000)
bucket := mod(hashed, 64)
"""


# --- inputs nobody gave -----------------------------------------------------


def test_generate_refuses_a_second_coordinate_without_a_value() -> None:
    prog = polydat.compile("input (a: u64, b: u64)\nout := u64_add(a, b)")
    with pytest.raises(WriteError) as info:
        prog.generate(range(3))
    assert info.value.kind == "unset_input"
    assert "input 'b' has no value" in str(info.value)
    assert "inputs={'b': ...}" in str(info.value) and "--set b=VALUE" in str(info.value)
    assert prog.generate(range(3), inputs={"b": 10})["out"].tolist() == [10, 11, 12]


def test_a_typo_is_not_silently_zero_in_generate() -> None:
    # A program that declares its inputs: the typo is a compile error.
    with pytest.raises(CompileError, match="undefined wire reference: 'user_idd'"):
        polydat.compile("input cycle: u64\nuser_id := hash(cycle)\nb := mod(user_idd, 64)")
    # One that infers them: the typo is an input, refused by generate while unset.
    prog = polydat.compile("user_id := hash(cycle)\nb := mod(user_idd, 64)")
    with pytest.raises(WriteError, match="input 'user_idd' has no value"):
        prog.generate(range(3))


def test_a_value_for_the_swept_coordinate_is_refused() -> None:
    prog = polydat.compile(USERS)
    with pytest.raises(WriteError) as info:
        prog.generate(range(3), inputs={"cycle": 7})
    assert info.value.kind == "swept_coordinate"
    assert "'cycle' is the coordinate the rows sweep" in str(info.value)


def test_an_unset_extern_without_default_is_refused_at_generate_and_warned_at_check() -> None:
    src = "input cycle: u64\nextern region: str\nkey := \"{region}-{cycle}\""
    with pytest.raises(WriteError, match="input 'region' has no value"):
        polydat.compile(src).generate(range(2))
    cols = polydat.compile(src).generate(range(2), inputs={"region": "eu"})
    assert cols["key"].tolist() == ["eu-0", "eu-1"]
    warnings = [d for d in polydat.check(src) if d.severity == "warning"]
    assert any("extern 'region'" in d.message and d.line == 2 for d in warnings), warnings


def test_a_constant_that_fails_every_evaluation_is_a_warning() -> None:
    src = "input cycle: u64\n\nbad := mod(cycle, 0)"
    diagnostics = polydat.check(src)
    assert [d.severity for d in diagnostics] == ["warning"]
    assert "`mod`: the divisor K is 0" in diagnostics[0].message
    assert diagnostics[0].line == 3 and diagnostics[0].source_line == "bad := mod(cycle, 0)"
    prog = polydat.compile(src)
    assert [d.message for d in prog.warnings] == [diagnostics[0].message]
    with pytest.raises(EvalError, match="remainder with a divisor of zero"):
        prog.generate(range(1))


def test_a_placeholder_with_a_format_spec_is_kept_as_text_and_warned() -> None:
    # upstream keeps "{id:08}" as written (the body is no expression); the
    # writer meant zero padding, so the program says so and names the node
    src = 'input cycle: u64\nid := cycle * 7\nt := "x-{id:08}"\nu := printf("{:05}", id)'
    prog = polydat.compile(src)
    assert prog.generate(range(2), outputs=["t"])["t"].tolist() == ["x-{id:08}", "x-{id:08}"]
    (warning,) = prog.warnings
    assert warning.line == 3 and "'{id:08}' is kept as text" in warning.message
    assert "zero_pad_u64(id, 8)" in (warning.hint or "")
    assert [d.severity for d in polydat.check(src)] == ["warning"]


# --- names that do not exist ------------------------------------------------


def test_unknown_names_say_did_you_mean() -> None:
    prog = polydat.compile(USERS)
    k = prog.kernel()
    with pytest.raises(UnknownNameError) as info:
        k.pull("user_idd")
    assert str(info.value) == "no output named 'user_idd'; did you mean 'user_id'?"
    assert isinstance(info.value, KeyError) and isinstance(info.value, PolydatError)
    with pytest.raises(UnknownNameError, match="did you mean 'bucket'"):
        prog.generate(range(2), outputs=["buckets"])
    with pytest.raises(UnknownNameError, match="outputs are: hashed, user_id, bucket"):
        k.pull("zzzzzzzz")


def test_the_coordinate_is_a_selectable_column() -> None:
    prog = polydat.compile("input (cycle: u64, seed: u64)\nh := u64_add(hash(cycle), seed)")
    cols = prog.generate(range(10, 16, 2), outputs=["cycle", "h", "seed"], inputs={"seed": 5})
    assert list(cols) == ["cycle", "h", "seed"]
    assert cols["cycle"].tolist() == [10, 12, 14] and cols["cycle"].dtype == np.uint64
    assert cols["seed"].tolist() == [5, 5, 5]
    k = prog.kernel()
    k.set_inputs(12, 5)
    assert cols["h"][1] == k.pull("h")


# --- arguments of the wrong kind --------------------------------------------


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda p: p.generate(range(3), outputs="user_id"), "outputs must be a list of names, not a string"),
        (lambda p: p.generate([1, 2, 3]), "cycles must be a range, a row count or a (start, stop) pair"),
        (lambda p: p.generate(-5), "a row count must be >= 0"),
        (lambda p: p.generate((1, 2, 3)), "(start, stop) integers"),
        (lambda p: p.generate(range(5, 0, -1)), "increasing range"),
        (lambda p: p.generate(range(2**64, 2**64 + 2)), "0..2**64"),
        (lambda p: p.generate(range(3), threads=10_000), "threads must be between 1 and 256"),
        (lambda p: p.generate(range(3), threads=0), "threads must be between 1 and 256"),
        (lambda p: p.generate(range(3), inputs=[("a", 1)]), "inputs must be a mapping"),
        (lambda p: p.generate(range(3), outputs=[1]), "must be names"),
    ],
)
def test_wrong_arguments_get_a_clear_error(call, message) -> None:
    prog = polydat.compile(USERS)
    with pytest.raises(ArgumentError) as info:
        call(prog)
    assert message in str(info.value)
    assert isinstance(info.value, (ValueError, TypeError))


def test_compile_refuses_bytes_with_a_hint() -> None:
    with pytest.raises(ArgumentError, match=r"decode it first"):
        polydat.compile(USERS.encode())
    with pytest.raises(ArgumentError, match="outputs must be a list of names"):
        polydat.compile(USERS, outputs="bucket")


# --- a failing row ----------------------------------------------------------


def test_a_failing_row_names_its_cycle_and_inputs_as_python_values() -> None:
    prog = polydat.compile("input cycle: u64\nchecked := in_range(cycle, 0, 991)")
    with pytest.raises(EvalError) as info:
        prog.generate(range(980, 1000))
    err = info.value
    assert err.cycle == 992 and err.row == ("cycle", 992)
    assert str(err).endswith("↳ at row cycle=992")
    assert err.inputs == (992,) and type(err.inputs[0]) is int
    assert err.node == "in_range" and err.outputs == ("checked",)
    # P2 runs generate in blocks: a failing block is redone row by row, so the row is exact.
    with pytest.raises(EvalError) as again:
        polydat.compile(prog.source, engine="p2").generate(range(0, 5000), threads=2)
    assert again.value.cycle == 992


def test_pull_failures_carry_python_input_values() -> None:
    k = polydat.compile("input (a: u64, b: u64)\nq := div_wire(a, b)").kernel()
    k.set_inputs(7, 0)
    with pytest.raises(EvalError) as info:
        k.pull("q")
    assert info.value.inputs == (7, 0) and info.value.cycle is None


# --- programs travel; objects describe themselves ---------------------------


def test_programs_pickle_as_source_and_options() -> None:
    prog = polydat.compile(USERS, engine="p2", provenance="pull", outputs=["user_id"])
    again = pickle.loads(pickle.dumps(prog))
    assert again.engine == "p2/pull" and list(again.outputs) == list(prog.outputs)
    assert again.generate(range(100))["user_id"].tolist() == prog.generate(range(100))["user_id"].tolist()


def test_compile_options_are_kept_whole_by_the_program_its_copies_and_its_for_bodies() -> None:
    import dataclasses

    source = "input cycle: u64\nbase := cycle + 1\nfor k in 0..2 {\n  v := base + k\n}\n"
    prog = polydat.compile(source, engine="p2", provenance="push", strict=True, outputs=["base"], fusion=False)
    options = prog._options
    assert (options.engine, options.provenance, options.strict, options.outputs, options.fusion) == (
        "p2", "push", True, ("base",), False
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.strict = False  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(prog))._options == options
    body = prog.traversal_program(0, {"k": "u64"})
    assert body._options == dataclasses.replace(options, outputs=None)


def test_reprs_are_informative() -> None:
    prog = polydat.compile(USERS)
    shown = repr(prog)
    assert f"engine='{prog.engine}'" in shown and "inputs=['cycle']" in shown and "user_id" in shown
    k = prog.kernel()
    k.set_inputs(7)
    assert repr(k) == f"<polydat.Kernel engine='{prog.engine}' inputs(cycle=7)>"
