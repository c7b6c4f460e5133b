"""The harness itself: canonical forms, scripts, replay files, the engine
matrix, and that a deliberately wrong engine is caught."""

from __future__ import annotations

import math
import struct
from typing import Any

import pytest

import polydat
import polydat.testing as pt
from polydat.errors import EvalError, RefusedError
from polydat.testing.canon import type_only
from polydat.testing.script import decode_steps, encode_steps

SRC = """\
input cycle: u64
extern scale: f64 = 1.0
h := hash(cycle)
bucket := mod(h, 10)
share := unit_interval(h) * scale
label := "b{bucket}"
"""


# -- canonical forms ---------------------------------------------------------------


def test_f64_compared_by_bits() -> None:
    assert pt.canonical(0.0) != pt.canonical(-0.0)
    assert pt.canonical(float("nan")) == pt.canonical(float("nan"))
    nan = pt.bits_f64(0x7FF8000000000000)
    neg_nan = pt.bits_f64(0xFFF8000000000000)
    payload = pt.bits_f64(0x7FF8000000000001)
    assert pt.canonical(nan) != pt.canonical(neg_nan)
    assert pt.canonical(nan) != pt.canonical(payload)
    assert pt.canonical(1.0) != pt.canonical(1.0 + 2.0**-52)
    assert pt.f64_bits(-0.0) == int.from_bytes(struct.pack("<d", -0.0), "little") == 1 << 63


def test_ints_by_value_and_type() -> None:
    assert pt.canonical(1) != pt.canonical(True)
    assert pt.canonical(1) != pt.canonical(1.0)
    assert pt.canonical(2**64 - 1) == pt.canonical(2**64 - 1)
    assert pt.canonical(None) == pt.Outcome("none")
    assert pt.canonical("a") != pt.canonical(b"a")
    assert pt.canonical(b"\x00\x01") == pt.canonical(bytearray(b"\x00\x01"))


def test_numpy_scalars_and_containers() -> None:
    np = pytest.importorskip("numpy")
    assert pt.canonical(np.uint64(7)) == pt.canonical(7)
    assert pt.canonical(np.float64(-0.0)) == pt.canonical(-0.0)
    assert pt.canonical({"b": 1.5, "a": None}) == pt.canonical({"a": None, "b": 1.5})
    assert pt.canonical([1, 2.0]) != pt.canonical([1, 2])


def test_failure_location_lines_removed() -> None:
    a = EvalError("boom\n  ↳ panicked at src/engine/p1.rs:10:5\n  ↳ in node `n` (output o) while evaluating `o`")
    b = EvalError("boom\n  ↳ panicked at src/engine/p2/raw.rs:99:1\n  ↳ in node `n` (output o) while evaluating `o`")
    assert pt.canonical_failure(a) == pt.canonical_failure(b)
    assert "panicked" not in pt.canonical_failure(a).describe()
    assert pt.canonical_failure(a) != pt.canonical_failure(ValueError(str(a)))


def test_type_only_keeps_the_kind() -> None:
    assert type_only(pt.canonical(5)) == type_only(pt.canonical(9))
    assert type_only(pt.canonical(5)) != type_only(pt.canonical("5"))
    assert type_only(pt.canonical_failure(EvalError("x"))) == type_only(pt.canonical_failure(EvalError("y")))


def test_describe_shows_bits_of_zero_and_nan() -> None:
    assert "0x8000000000000000" in pt.canonical(-0.0).describe()
    assert "0xfff8000000000000" in pt.canonical(pt.bits_f64(0xFFF8000000000000)).describe()


# -- corners ----------------------------------------------------------------------------


def test_u64_corners_as_specified() -> None:
    c = pt.U64_CORNERS
    assert len(c) == len(set(c)) == 37
    for v in (0, 1, 2, 3, 4, 7, 8, 9, 15, 16, 31, 32, 63, 64, 100, 127, 128, 255, 256, 1000, 1023, 1024,
              65535, 65536, 2**31 - 1, 2**31 + 1, 2**32 - 1, 2**32, 2**32 + 1, 2**53 - 1, 2**53, 2**53 + 1,
              2**63 - 1, 2**63, 2**63 + 1, 2**64 - 2, 2**64 - 1):
        assert v in c
    assert all(0 <= v < 2**64 for v in c)


def test_f64_corners_as_specified() -> None:
    bits = {pt.f64_bits(v) for v in pt.F64_CORNERS}
    eps = 2.0**-52
    for v in (0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 0.1, 1 / 3, 1 + eps, 1 - eps, eps,
              2.0**-1022, 5e-324, 1.7976931348623157e308, -1.7976931348623157e308, 1e308, -1e308,
              2.0**53, -(2.0**53), 2.0**53 + 2, 2.0**32, 2.0**63, -(2.0**63), 2.0**64, math.inf, -math.inf):
        assert pt.f64_bits(v) in bits, v
    nans = [v for v in pt.F64_CORNERS if math.isnan(v)]
    assert sorted(math.copysign(1, v) for v in nans) == [-1.0, -1.0, 1.0, 1.0]
    assert sum(pt.f64_bits(v) & 0xFFFFFFFF != 0 for v in nans) == 2, "two NaNs carry payloads"
    assert len(pt.F64_CORNERS) == 33
    assert len(bits) == len(pt.F64_CORNERS), "no value twice (by its bits)"


def test_the_docs_state_the_corner_counts() -> None:
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "docs" / "engine-checks.md").read_text()
    for name, corners in (("U64_CORNERS", pt.U64_CORNERS), ("F64_CORNERS", pt.F64_CORNERS)):
        stated = re.findall(rf"`pt\.{name}` \((\d+)(?: distinct)? values\)", readme)
        assert stated == [str(len(corners))], (name, stated)


def test_corner_grid_covers_every_value() -> None:
    lists = [pt.U64_CORNERS, pt.F64_CORNERS, pt.STR_CORNERS]
    grid = pt.corner_grid(lists, limit=500)
    assert len(grid) == 500
    for k, values in enumerate(lists):
        seen = {pt.canonical(combo[k]) for combo in grid}
        assert seen == {pt.canonical(v) for v in values}
    assert len(pt.corner_grid([pt.U64_CORNERS, pt.U64_CORNERS])) == 37 * 37


# -- scripts and replay ---------------------------------------------------------------


def test_script_round_trips_bit_exactly() -> None:
    steps = [
        pt.Step({"x": -0.0, "s": "é", "b": b"\x00"}),
        pt.Step((1, 2**64 - 1), pulls=["a", pt.EVAL]),
        pt.Step(pt.bits_f64(0x7FF8000000000123), invalidate_all=True),
        pt.Step(None, pulls=[]),
    ]
    back = decode_steps(encode_steps(steps))
    assert [pt.canonical(s.write) for s in back] == [pt.canonical(s.write) for s in steps]
    assert [(s.pulls, s.invalidate_all) for s in back] == [(s.pulls, s.invalidate_all) for s in steps]


def test_replay_file_compiles_and_reloads(capsys: pytest.CaptureFixture[str]) -> None:
    example = pt.Example(SRC, [5, {"scale": -0.0}, pt.Step(None, pulls=["share"])], pulls=["share", "label"])
    text = pt.replay(example)
    assert text in capsys.readouterr().err
    polydat.compile(text)  # a replay file is an ordinary program
    back = pt.load_replay(text)
    assert back.pulls == ("share", "label")
    assert [pt.canonical(s.write) for s in back.steps] == [pt.canonical(s.write) for s in example.steps]
    pt.assert_engines_agree(back.source, back.steps, back.pulls)


def test_replay_command_line(tmp_path: Any) -> None:
    from polydat.testing.replay_files import main

    path = tmp_path / "case.polydat"
    pt.replay(pt.Example(SRC, [1, 2]), path=str(path), quiet=True)
    assert main([str(path)]) == 0


# -- the engine matrix -------------------------------------------------------------------


def test_matrix_starts_with_the_oracle() -> None:
    names = [e.name for e in pt.engines()]
    assert names[0] == "p1"
    assert names == list(dict.fromkeys(names))
    assert "p1/fresh" in names
    assert set(pt.discovered_engine_names()) <= set(names)
    assert pt.engine_spec("p2/pull").options == {"engine": "p2", "provenance": "pull"}
    assert pt.engine_spec("p1/fresh").fresh_kernels


def test_matrix_follows_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POLYDAT_TEST_ENGINES", "p1/fresh")
    assert [e.name for e in pt.engines()] == ["p1", "p1/fresh"]


def test_every_discovered_engine_reports_what_it_runs() -> None:
    table = pt.outcomes(SRC, [1])
    for name, run in table.items():
        assert run.status in ("ok", "refused"), (name, run.status)
        if run.status == "ok" and run.engine.reported is not None:
            assert run.reported == run.engine.reported


# -- self-test: wrong engines are caught -------------------------------------------------


class _FlipKernel:
    """Wraps a P1 kernel; flips one bit of output ``target`` when cycle == ``when``."""

    def __init__(self, inner: Any, target: str, when: int):
        self._inner, self._target, self._when = inner, target, when
        self._cycle: Any = 0

    def set_inputs(self, *values: Any, **named: Any) -> None:
        self._inner.set_inputs(*values, **named)
        self._cycle = self._inner.input_values().get("cycle")

    def set(self, name: str, value: Any) -> None:
        self._inner.set(name, value)

    def invalidate_all(self) -> None:
        self._inner.invalidate_all()

    def input_values(self) -> dict[str, Any]:
        return self._inner.input_values()

    def _flip(self, name: str, value: Any) -> Any:
        if name != self._target or self._cycle != self._when:
            return value
        if isinstance(value, float):
            return pt.bits_f64(pt.f64_bits(value) ^ 1)
        if isinstance(value, int):
            return value ^ 1
        if isinstance(value, str):
            return value[:-1] + chr(ord(value[-1]) ^ 1) if value else "\x01"
        return value

    def pull(self, name: str) -> Any:
        return self._flip(name, self._inner.pull(name))

    def eval(self) -> dict[str, Any]:
        return {k: self._flip(k, v) for k, v in self._inner.eval().items()}


class _FlipProgram:
    def __init__(self, inner: Any, target: str, when: int):
        self._inner, self._target, self._when = inner, target, when

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def kernel(self) -> _FlipKernel:
        return _FlipKernel(self._inner.kernel(), self._target, self._when)


def _flipping(target: str, when: int) -> pt.EngineSpec:
    def compiler(source: str, **options: Any) -> _FlipProgram:
        return _FlipProgram(polydat.compile(source, **options), target, when)

    return pt.EngineSpec("p1/bitflip", {"engine": "p1"}, compiler=compiler)


@pytest.mark.parametrize("target", ["bucket", "share", "label"])
def test_a_flipped_bit_is_caught(target: str) -> None:
    with pt.registered_engine(_flipping(target, 2**53 + 1)):
        with pytest.raises(AssertionError) as caught:
            pt.assert_engines_agree(SRC, pt.U64_CORNERS)
    message = str(caught.value)
    assert "p1/bitflip" in message
    assert f"pull `{target}`" in message
    assert f"cycle={2**53 + 1}" in message or str(2**53 + 1) in message
    step = pt.U64_CORNERS.index(2**53 + 1)
    assert f"at step {step}" in message


def test_a_flipped_bit_in_eval_is_caught() -> None:
    with pt.registered_engine(_flipping("share", 7)):
        table = pt.outcomes(SRC, [pt.Step(v, pulls=[pt.EVAL]) for v in range(10)])
    problems = table.disagreements()
    assert [p.engine for p in problems] == ["p1/bitflip"]
    assert problems[0].step == 7 and problems[0].where == "eval"


def test_p1_against_itself_with_fresh_kernels_agrees() -> None:
    twin = pt.EngineSpec("p1/twin", {"engine": "p1"}, fresh_kernels=True)
    table = pt.assert_engines_agree(SRC, [*pt.U64_CORNERS[:10], {"scale": -2.5}, 3, 3], engines=[pt.engine_spec("p1"), twin])
    assert table["p1"].values() == table["p1/twin"].values()


def test_a_changed_failure_message_is_caught() -> None:
    src = "input cycle: u64\nchecked := in_range(cycle, 0, 5)\n"

    class Kernel(_FlipKernel):
        def pull(self, name: str) -> Any:
            try:
                return self._inner.pull(name)
            except EvalError as err:
                raise EvalError(str(err).replace("outside", "not in")) from None

    def compiler(source: str, **options: Any) -> Any:
        program = polydat.compile(source, **options)
        wrapper = _FlipProgram(program, "", 0)
        wrapper.kernel = lambda: Kernel(program.kernel(), "", 0)  # type: ignore[method-assign]
        return wrapper

    spec = pt.EngineSpec("p1/reworded", {"engine": "p1"}, compiler=compiler)
    with pytest.raises(AssertionError, match="p1/reworded"):
        pt.assert_engines_agree(src, [1, 9], engines=[pt.engine_spec("p1"), spec])
    # and the location line alone does not count
    assert pt.outcomes(src, [1, 9], engines=[pt.engine_spec("p1"), pt.engine_spec("p1/fresh")]).disagreements() == []


def test_a_refusing_engine_is_reported_not_skipped() -> None:
    def refuse(source: str, **options: Any) -> Any:
        raise RefusedError("p9 cannot lower `printf`", "p9")

    spec = pt.EngineSpec("p9/raw", {}, compiler=refuse)
    table = pt.outcomes(SRC, [1], engines=[pt.engine_spec("p1"), spec])
    assert table.refused() == {"p9/raw": "p9 cannot lower `printf`"}
    assert table["p9/raw"].status == "refused"
    assert "refused" in table.summary()
    pt.assert_engines_agree(SRC, [1], engines=[pt.engine_spec("p1"), spec])
    with pytest.raises(AssertionError, match="refused: p9/raw"):
        pt.assert_engines_agree(SRC, [1], engines=[pt.engine_spec("p1"), spec], allow_refused=False)


def test_a_substituted_engine_is_caught() -> None:
    spec = pt.EngineSpec("p2/pull", {"engine": "p1"}, reported="p2/pull")
    with pytest.raises(AssertionError, match="asked for p2/pull but the program runs p1"):
        pt.assert_engines_agree(SRC, [1], engines=[pt.engine_spec("p1"), spec])


def test_nondeterministic_outputs_compare_by_type() -> None:
    src = "input cycle: u64\nc := counter()\nt := current_epoch_millis() + cycle\nh := hash(cycle)\n"
    assert pt.nondeterministic_outputs(src) == {"c", "t"}
    table = pt.assert_engines_agree(src, [1, 1, pt.Step(None, pulls=["c", "c", pt.EVAL])])
    pulls = [o for o in table["p1"].observations if o.target == "c"]
    assert all(o.outcome.kind == "nondeterministic" for o in pulls)


def test_oracle_compile_errors_are_raised() -> None:
    with pytest.raises(polydat.CompileError):
        pt.assert_engines_agree("input cycle: u64\nx := nope(cycle)\n", [1])


def test_const_captures_are_skipped_on_state_rebuilding_engines() -> None:
    src = ("input cycle: u64\nextern e: u64 = 3\nconst k := hash(e)\nx := k + cycle\n"
           "volatile v := e + 1\nconst c2 := v * 2\nconst z := 5\nw := z + cycle\n")
    assert pt.captured_outputs(src) == {"k", "x", "c2"}
    script = [1, {"e": 9}, 2, pt.Step(None, invalidate_all=True, pulls=["k", pt.EVAL]), {"e": 9, "cycle": 5}]
    matrix = pt.engines(include_variants=True)
    table = pt.assert_engines_agree(src, script, engines=matrix)
    assert table.captured == {"k", "x", "c2"}
    # engines that keep their state must still match the captured values exactly
    keeps_state = [e for e in matrix if not e.rebuilds_state]
    oracle = table.oracle.values()
    for spec in keeps_state:
        assert table[spec.name].values() == oracle, spec.name


def test_submodules_are_importable_by_name() -> None:
    import importlib

    for name in ("canon", "matrix", "runner", "script", "corners", "nodes", "overrides", "replay_files",
                 "variants", "strategies", "generator"):
        module = importlib.import_module(f"polydat.testing.{name}")
        assert module.__doc__ and "Usage" in module.__doc__ or name in ("overrides", "script"), name
