"""The public API: compile, kernels, writes, pulls, generate, errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import polydat
from polydat import CompileError, EvalError, RefusedError, WriteError

README = """
input cycle: u64
hashed := hash(cycle)
user_id := mod(hashed, 1000000)
bucket := mod(hashed, 64)
"""


def test_readme_table_reproduces_upstream():
    cols = polydat.compile(README).generate(range(5), outputs=["user_id", "bucket"])
    assert cols["user_id"].tolist() == [607535, 822465, 348110, 139053, 603978]
    assert cols["bucket"].tolist() == [47, 1, 14, 45, 10]
    assert cols["user_id"].dtype == np.uint64


def test_program_metadata():
    prog = polydat.compile(README)
    assert prog.engine == "p3/raw", "every step runs natively: P3, in the heuristic's mode"
    assert prog.inputs == ["cycle"]
    assert prog.outputs == {"hashed": "u64", "user_id": "u64", "bucket": "u64"}


def test_kernel_set_pull_eval():
    k = polydat.compile(README).kernel()
    k.set_inputs(3)
    assert k.pull("user_id") == 139053
    k.set_inputs(cycle=4)
    assert k.eval() == {"hashed": 7958955049054603978, "user_id": 603978, "bucket": 10}
    assert k.pull("cycle") == 4


def test_embedding_guide_values():
    src = """
    input cycle: u64
    user_id := mod(hash(cycle), 1000000)
    score := unit_interval(hash(user_id))
    label := "user-{user_id}"
    """
    k = polydat.compile(src).kernel()
    k.set_inputs(0)
    assert (k.pull("user_id"), round(k.pull("score"), 3), k.pull("label")) == (607535, 0.601, "user-607535")
    k.set_inputs(1)
    assert round(k.pull("score"), 3) == 0.230


def test_externs_with_defaults_and_writes():
    src = """
    input cycle: u64
    extern region: str = "us-east"
    extern scale: u64 = 10
    id := mod_wire(hash(cycle), scale)
    key := "{region}/{id}"
    """
    k = polydat.compile(src).kernel()
    k.set_inputs(7)
    assert k.pull("key") == "us-east/7"
    k.set("scale", 1000)
    k.set("region", "eu-west")
    assert k.pull("key") == "eu-west/487"


def test_write_errors_are_typed():
    k = polydat.compile("input cycle: u64\nextern n: u64 = 1\nx := u64_add(cycle, n)").kernel()
    with pytest.raises(WriteError) as e:
        k.set("n", "three")
    assert e.value.kind == "type_mismatch"
    with pytest.raises(WriteError) as e:
        k.set("cycle", 3)
    assert e.value.kind == "coordinate_slot"
    with pytest.raises(WriteError) as e:
        k.set("nope", 3)
    assert e.value.kind == "unknown_input" and "cycle" in str(e.value)
    with pytest.raises(WriteError):
        k.set_inputs(1, 2)
    with pytest.raises(WriteError):
        k.set_inputs(None)


def test_unset_extern_reads_none_until_written():
    k = polydat.compile("extern e: u64\nh := hash(e)\nd := default_or(h, 5)").kernel()
    assert k.pull("h") is None and k.pull("d") == 5
    k.set("e", 0)
    assert k.pull("h") == 16294208416658607535
    k.set("e", None)
    assert k.pull("h") is None


def test_eval_error_attribution_and_recovery():
    k = polydat.compile("input cycle: u64\ndoubled := mul(cycle, 2)\nchecked := in_range(doubled, 0, 5)").kernel()
    k.set_inputs(10)
    with pytest.raises(EvalError) as e:
        k.pull("checked")
    msg = str(e.value)
    assert msg.splitlines()[0] == "in_range: value 20 outside [0, 5]"
    assert "↳ in node `in_range` (output checked)" in msg
    assert "↳ inputs: [[0]=U64(20)]" in msg
    assert e.value.node == "in_range" and e.value.outputs == ("checked",)
    k.set_inputs(2)
    assert k.pull("checked") == 4


def test_generate_threads_give_identical_columns():
    prog = polydat.compile(README + '\nlabel := "u{user_id}"\nscore := unit_interval(hashed)')
    one = prog.generate(range(0, 5001, 7))
    four = prog.generate(range(0, 5001, 7), threads=4)
    assert set(one) == set(four)
    for name in one:
        assert one[name].dtype == four[name].dtype
        assert one[name].tolist() == four[name].tolist()
    assert one["label"].dtype == object


def test_generate_with_fixed_inputs():
    prog = polydat.compile("input cycle: u64\ninput seed: u64\nx := u64_add(cycle, seed)")
    assert prog.generate(range(3), inputs={"seed": 10})["x"].tolist() == [10, 11, 12]


def test_compile_errors_carry_position_and_hint():
    with pytest.raises(CompileError) as e:
        polydat.compile("input cycle: u64\nx := hsah(cycle)")
    err = e.value
    assert (err.line, err.col) == (2, 6)
    assert err.hint == "did you mean 'hash'?"
    assert str(err).startswith("2:6:error: unknown node 'hsah'")
    assert "  | x := hsah(cycle)" in str(err)


def test_type_errors_from_the_core_point_at_the_node():
    with pytest.raises(CompileError) as e:
        polydat.compile('input cycle: u64\ns := "abc"\nh := hash(s)')
    assert e.value.line == 3 and "str" in e.value.message


def test_check_returns_diagnostics_without_raising():
    assert polydat.check(README) == []
    diags = polydat.check("x := (")
    assert diags and diags[0].severity == "error"


def test_unknown_or_unavailable_engines_are_refused():
    with pytest.raises(RefusedError):
        polydat.compile(README, engine="warp")
    with pytest.raises(RefusedError):
        polydat.compile(README, engine="p1", provenance="pull")


def test_invalid_constants_are_refused_at_compile_time():
    # An unfair coin with an out-of-range probability is refused at build.
    with pytest.raises(CompileError):
        polydat.compile("input cycle: u64\nx := unfair_coin(cycle, 2.0)")


def test_catalog_lists_signatures():
    names = {n["name"]: n for n in polydat.catalog()}
    assert names["hash"]["signature"] == "hash(input: u64) -> u64"
    assert len(names) > 100


def test_const_naming_another_binding_is_a_capture_for_its_readers():
    src = """
    extern e: u64 = 1
    a := hash(e)
    const c := a
    x := u64_add(c, 1)
    y := u64_add(a, 1)
    """
    k = polydat.compile(src).kernel()
    first = k.pull("x")
    k.set("e", 2)
    assert k.pull("x") == first, "readers of a const see the captured value"
    assert k.pull("y") != first, "readers of the live binding see the write"


def test_boundary_writes_check_and_never_parse_text():
    prog = polydat.compile("extern n: u64 = 1\nextern f: f64 = 0.5\nx := u64_add(n, 1)")
    k = prog.kernel()
    with pytest.raises(WriteError, match="cannot write str value 41"):
        k.set("n", "41")
    k.set("n", prog.parse_input("n", "41"))
    assert k.pull("x") == 42
    k.set("f", 3)
    with pytest.raises(WriteError):
        k.set("n", -1)
    with pytest.raises(WriteError):
        k.set("n", 2.5)


@pytest.mark.parametrize("engine", ["p1", "p2"])
def test_a_generate_row_is_one_read(engine: str):
    # A nondeterministic node runs once per read, so every output of a row sees one value.
    src = "input cycle: u64\nv := counter()\na := u64_add(v, cycle)\nb := u64_add(v, cycle)"
    cols = polydat.compile(src, engine=engine).generate(range(50), outputs=["a", "b"])
    assert cols["a"].tolist() == cols["b"].tolist()
    assert len(set(cols["a"].tolist())) == 50


def test_the_language_tour_compiles_and_runs():
    page = (Path(__file__).resolve().parent.parent / "docs" / "language" / "index.md").read_text()
    tour = page.split("```polydat")[1].split("```")[0]
    k = polydat.compile(tour).kernel()
    k.set_inputs(12345)
    out = k.eval()
    assert (out["tenant"], out["device"]) == (45, 123)
    assert out["key"] == f"us-east/45-{out['id']}"
    assert out["h"] == float(out["id"] // 2)


def test_an_impossible_generate_is_a_memory_error_not_a_crash():
    prog = polydat.compile("input cycle: u64\na := hash(cycle)\nb := hash(a)")
    with pytest.raises(MemoryError, match="not enough memory"):
        prog.generate(range(0, 2**62))
    assert prog.generate(range(3))["a"].tolist()[0] == 16294208416658607535
