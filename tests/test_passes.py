"""The compiler passes through the public API: Node Fusion (fused == unfused,
bit for bit, on every engine), hoisting (scope init once per kernel, const
captures), constant folding, dead-code elimination, strict wiring, explain,
and a 2000-node program end to end."""

from __future__ import annotations

import math
import struct
import subprocess
import sys
import time

import pytest

import polydat
from polydat import _core

from core_hooks import hooks
from polydat.errors import CompileError, RefusedError

U64_MAX = 2**64 - 1
CORNERS = [
    0, 1, 2, 3, 7, 1000, 2**31 - 1,
    2**32 - 1, 2**32, 2**32 + 1,
    2**53 - 1, 2**53, 2**53 + 1,
    2**63 - 1, 2**63, 2**63 + 1,
    U64_MAX - 1, U64_MAX,
]  # fmt: skip


def engine_names() -> list[str]:
    """Every engine the build reports (``p1`` when the core has no list)."""
    lister = getattr(_core, "engines", None)
    names = [str(n) for n in lister()] if callable(lister) else ["p1"]
    names = [n for n in dict.fromkeys(names) if n != "auto"]
    return names or ["p1"]


def compile_on(source: str, engine: str, **options):
    name, _, provenance = engine.partition("/")
    if provenance:
        options["provenance"] = provenance
    return polydat.compile(source, engine=name, **options)


def canonical(value):
    """Bit-exact form: floats by their IEEE bits (so -0.0 != 0.0, NaN == NaN)."""
    if isinstance(value, float):
        return ("f64", struct.unpack("<Q", struct.pack("<d", value))[0])
    return (type(value).__name__, value)


def run(program, xs, output="out"):
    k = program.kernel()
    rows = []
    for x in xs:
        k.set_inputs(x)
        try:
            rows.append(canonical(k.pull(output)))
        except polydat.EvalError as err:
            rows.append(("error", str(err).splitlines()[0]))
    return rows


def fired(program) -> list[str]:
    return [e["message"].split(":")[0] for e in program.events if e["kind"] == "FusionApplied"]


# ---------------------------------------------------------------------------
# Node Fusion

FUSIONS = [
    ("hash_mod_to_hash_range", "out := mod(hash(x), 1000)"),
    ("hash_mod_to_hash_range", "out := hash(x) % 64"),
    ("hash_mod_to_hash_range", f"out := mod(hash(x), {U64_MAX})"),
    ("hash_unit_lerp_to_hash_interval", "out := lerp(unit_interval(hash(x)), -2.5, 1e10)"),
    ("hash_unit_lerp_to_hash_interval", "out := lerp(unit_interval(hash(x)), 5.5, -5.5)"),
    ("hash_scale_range_to_hash_interval", "out := scale_range(hash(x), -1.0, 1.0)"),
    ("unit_lerp_to_scale_range", "out := lerp(unit_interval(x), 10.0, 20.0)"),
    ("unit_lerp_to_scale_range", "out := lerp(unit_interval(x), -1e300, 1e300)"),
    ("u64_add_literal_to_add", "out := x + 5"),
    ("u64_add_literal_to_add", f"out := {U64_MAX} + x"),
    ("u64_sub_literal_to_add", "out := x - 7"),
    ("u64_mul_literal_to_mul", "out := x * 3"),
    ("u64_mod_literal_to_mod", "out := x % 10"),
    ("u64_div_literal_to_div", "out := x / 7"),
    ("add_chain", "out := (x + 3 + 5) - 2"),
    ("mul_chain", "out := x * 4294967296 * 4294967296"),
    ("mod_of_mod", "out := mod(mod(x, 1000), 10)"),
    ("mod_of_mod", f"out := mod(mod(x, {U64_MAX}), 5)"),
]


@pytest.mark.parametrize("rule,body", FUSIONS, ids=[f"{r}:{b[7:]}" for r, b in FUSIONS])
def test_fused_equals_unfused_on_every_engine(rule, body):
    source = f"input x: u64\n{body}\n"
    oracle = polydat.compile(source, engine="p1", fusion=False)
    assert fired(oracle) == []
    expected = run(oracle, CORNERS)
    checked = 0
    for engine in engine_names():
        for fusion in (True, False):
            try:
                program = compile_on(source, engine, fusion=fusion)
            except RefusedError:
                continue
            if fusion:
                assert rule in fired(program), (engine, program.events)
                assert program.stats["fusions"] >= 1
            assert run(program, CORNERS) == expected, (engine, fusion)
            checked += 1
    assert checked >= 2


def fusion_matrix():
    """The equivalence matrix with fusion as a dimension: the oracle is P1 on
    the graph as authored (fusion off); every engine of the build then runs
    both the fused and the unfused program."""
    from polydat.testing import EngineSpec, engines

    oracle = EngineSpec("p1", {"engine": "p1", "fusion": False}, reported="p1", description="P1, fusion off")
    matrix = [oracle, EngineSpec("p1/fused", {"engine": "p1"}, reported="p1", description="P1, fusion on")]
    for spec in engines():
        if spec.name == "p1":
            continue  # the two P1 columns above
        matrix.append(spec)
        if not spec.fresh_kernels:
            options = {**spec.options, "fusion": False}
            matrix.append(EngineSpec(spec.name + "/nofusion", options, reported=spec.reported))
    return matrix


@pytest.mark.parametrize("rule,body", FUSIONS, ids=[f"{r}:{b[7:]}" for r, b in FUSIONS])
def test_fusion_through_the_equivalence_harness(rule, body):
    pt = pytest.importorskip("polydat.testing")
    source = f"input x: u64\n{body}\n"
    table = pt.assert_engines_agree(source, pt.U64_CORNERS, pulls=["out"], engines=fusion_matrix())
    assert table.oracle.status == "ok"


def test_fusion_preserves_failures():
    # mod by 0 fails on every evaluation; hash_range(x, 0) would quietly give 0.
    program = polydat.compile("input x: u64\nout := mod(hash(x), 0)\n")
    assert fired(program) == []
    with pytest.raises(polydat.EvalError, match="remainder with a divisor of zero"):
        program.kernel().pull("out")
    # u64_mod by 0 is 0; mod by 0 would fail.
    program = polydat.compile("input x: u64\nout := u64_mod(x, 0)\n")
    assert "u64_mod_literal_to_mod" not in fired(program)


def test_a_bound_interior_node_is_not_swallowed():
    program = polydat.compile("input x: u64\nh := hash(x)\nout := mod(h, 10)\n")
    assert fired(program) == []
    # When only `out` is requested, `h` names nothing the caller reads: it fuses.
    program = polydat.compile("input x: u64\nh := hash(x)\nout := mod(h, 10)\n", outputs=["out"])
    assert fired(program) == ["hash_mod_to_hash_range"]


def test_fusion_events_carry_rule_and_span():
    program = polydat.compile("input x: u64\n\nout := mod(hash(x), 1000)\n")
    (event,) = [e for e in program.events if e["kind"] == "FusionApplied"]
    assert event["message"] == "hash_mod_to_hash_range: mod(hash(x), 1000) -> hash_range(x, 1000)"
    assert event["line"] == 3


# ---------------------------------------------------------------------------
# Hoisting

CAPTURE = """
input cycle: u64
extern seed: u64 = 5
const s := __probe(hash(seed), "{key}.init")
d := __probe(cycle + s, "{key}.dyn")
"""


def reset(*keys):
    for key in keys:
        hooks.probe_reset(key)


def test_scope_init_runs_once_per_kernel_dynamic_once_per_change():
    reset("h1.init", "h1.dyn")
    program = polydat.compile(CAPTURE.format(key="h1"))
    k = program.kernel()
    for cycle in range(10):
        k.set_inputs(cycle)
        k.pull("d")
        k.pull("d")  # the same cycle again: cached
    assert hooks.probe_count("h1.init") == 1
    assert hooks.probe_count("h1.dyn") == 10
    program.kernel().pull("d")
    assert hooks.probe_count("h1.init") == 2, "each kernel has its own scope init"


def test_generate_runs_scope_init_once_per_kernel():
    reset("h2.init", "h2.dyn")
    program = polydat.compile(CAPTURE.format(key="h2"))
    cols = program.generate(range(100), outputs=["d"], inputs={"seed": 9})
    assert hooks.probe_count("h2.init") == 1
    assert hooks.probe_count("h2.dyn") == 100
    k = program.kernel()
    k.set("seed", 9)
    k.set_inputs(42)
    assert int(cols["d"][42]) == k.pull("d"), "generate's inputs are written before scope init"


def test_a_const_is_captured_not_live():
    program = polydat.compile(CAPTURE.format(key="h3"))
    k = program.kernel()
    k.set("seed", 9)  # before the first read: captured
    first = k.pull("s")
    k.set("seed", 11)  # after: the const keeps its capture
    assert k.pull("s") == first
    k.init()  # re-capture from the current inputs
    assert k.pull("s") != first
    fresh = program.kernel()
    fresh.set("seed", 11)
    assert k.pull("s") == fresh.pull("s")


def test_const_capture_agrees_on_every_engine():
    """A const is captured at scope init (the first read) and keeps its value
    when what it read is written later, on every engine. (``p1/fresh`` replays
    writes into a new kernel, which captures the latest value by design, so it
    is left out of this matrix.)"""
    pt = pytest.importorskip("polydat.testing")
    source = "input cycle: u64\nextern seed: u64 = 5\nconst s := hash(seed)\nd := cycle + s\ne := seed + 1\n"
    script = [{"cycle": 0, "seed": 9}, 1, 2, {"seed": 11}, 3, pt.Step(4, pulls=[pt.EVAL])]
    pt.assert_engines_agree(source, script, engines=pt.engines(include_fresh=False))


LIVE_BESIDE_CONST = "extern eu: u64 = 5\nv1 := hash(eu) + 1\nconst v9 := hash(eu)\n"


@pytest.mark.parametrize("order", ["live first", "const first"])
def test_a_live_expression_is_never_merged_with_a_const_capture(order):
    """``hash(eu)`` read live by ``v1`` and captured by ``const v9`` are two
    nodes: merging them made ``v1`` keep the value of the capture after a
    write to ``eu``, on every engine (the unfused variant holds the merged
    program to the program as written)."""
    pt = pytest.importorskip("polydat.testing")
    lines = LIVE_BESIDE_CONST.splitlines()
    source = "\n".join(lines if order == "live first" else [lines[0], lines[2], lines[1]]) + "\n"
    script = [pt.Step({"eu": 5}, pulls=["v1", "v9"]), pt.Step({"eu": 0}, pulls=["v1", "v9"])]
    pt.assert_engines_agree(source, script, engines=pt.engines(include_fresh=False, include_variants=True))
    want = polydat.compile("extern eu: u64 = 0\nv1 := hash(eu) + 1\n").kernel().pull("v1")
    for engine in engine_names():
        k = compile_on(source, engine).kernel()
        captured = k.pull("v9")
        k.set("eu", 0)
        assert (k.pull("v1"), k.pull("v9")) == (want, captured), engine


@pytest.mark.parametrize("reader", ["c + 1", "mod(c, 10)"])
def test_a_const_read_by_the_only_requested_output_stays_captured(reader):
    """Requesting only ``v`` drops the binding ``c``; ``v`` still reads the
    value ``c`` captured, not a live ``hash(eu)`` (nor a fused one)."""
    source = f"extern eu: u64 = 5\nconst c := hash(eu)\nv := {reader}\n"
    for engine in engine_names():
        for outputs in (None, ["v"]):
            k = compile_on(source, engine, outputs=outputs).kernel()
            before = k.pull("v")
            k.set("eu", 0)
            assert k.pull("v") == before, (engine, outputs)


def test_lifecycle_classes_in_explain_data():
    program = polydat.compile(
        "input cycle: u64\nextern e: u64 = 2\nconst c := hash(e)\nk := 3 + 4\nh := hash(k)\nout := cycle + c\n"
    )
    classes = {b["name"]: b["lifecycle"] for b in program.explain_data()["bindings"]}
    assert classes == {"c": "scope_init", "k": "compile_const", "h": "compile_const", "out": "dynamic"}


def test_a_const_reading_a_coordinate_is_a_compile_error():
    with pytest.raises(CompileError) as info:
        polydat.compile("input cycle: u64\nextern e: u64 = 1\na := cycle + e\nconst c := hash(a)\n")
    text = str(info.value)
    assert "'c'" in text and "cycle" in text
    assert info.value.diagnostics[0].line == 4


# ---------------------------------------------------------------------------
# Constant folding


def test_constants_fold_at_build_with_events():
    reset("fold.p")
    program = polydat.compile('input cycle: u64\nk := __probe(hash(7), "fold.p")\ny := cycle + k\n')
    assert hooks.probe_count("fold.p") == 1, "evaluated once, by the compiler"
    folded = [e for e in program.events if e["kind"] == "ConstantFolded"]
    assert len(folded) == 1 and "U64(" in folded[0]["message"] and folded[0]["line"] == 2
    k = program.kernel()
    k.set_inputs(1)
    assert k.pull("k") == program.kernel().pull("k")
    assert hooks.probe_count("fold.p") == 1, "kernels read the literal"
    assert program.stats["folded"] == 1


def test_a_failing_constant_is_a_compile_error_at_its_span():
    with pytest.raises(CompileError) as info:
        polydat.compile("input cycle: u64\n\nchecked := in_range(7, 0, 5)\n")
    assert "in_range" in str(info.value) and "7" in str(info.value)
    assert info.value.diagnostics[0].line == 3
    with pytest.raises(CompileError, match="divisor of zero"):
        polydat.compile("input cycle: u64\nz := mod(5, 0)\n")


# ---------------------------------------------------------------------------
# DCE, strict wiring


def test_outputs_restrict_and_drop_dead_code():
    source = "input x: u64\na := hash(x)\nb := mod(a, 7)\nc := lerp(unit_interval(hash(x + 1)), 0.0, 1.0)\n"
    full = polydat.compile(source)
    only_b = polydat.compile(source, outputs=["b"])
    assert list(only_b.outputs) == ["b"]
    assert only_b.stats["nodes_final"] < full.stats["nodes_final"]
    assert any(e["kind"] == "DeadCodeEliminated" for e in only_b.events)
    assert run(only_b, CORNERS, "b") == run(full, CORNERS, "b")
    with pytest.raises(CompileError, match="no output named 'zz'"):
        polydat.compile(source, outputs=["zz"])


def test_strict_refuses_implicit_coercions():
    source = "input x: u64\ny := sqrt(x)\n"
    program = polydat.compile(source)
    assert any(e["kind"] == "TypeAdapterInserted" for e in program.events)
    with pytest.raises(CompileError, match="strict"):
        polydat.compile(source, strict=True)
    polydat.compile("input x: u64\ny := sqrt(x as f64)\n", strict=True)


# ---------------------------------------------------------------------------
# explain


def test_explain_reports_passes_fusions_folds_and_lifecycles():
    program = polydat.compile(
        "input cycle: u64\nextern seed: u64 = 3\nconst s := hash(seed)\n"
        "user_id := hash(cycle) % 1000\nk := 3 + 4\n"
    )
    text = program.explain()
    assert program.engine == "p3/pull", "every step runs natively"
    for needle in ("engine: p3/pull", "passes:", "fusion", "hoist", "fold", "bindings:",
                   "scope-init (once per kernel)", "compile-const (folded at build)",
                   "hash_mod_to_hash_range", "folded constants:"):  # fmt: skip
        assert needle in text, needle


def test_to_dot_draws_the_resolved_and_final_graphs():
    from polydat.explain import to_dot

    program = polydat.compile("input cycle: u64\nuser_id := mod(hash(cycle), 1000)\n")
    dot = to_dot(program)
    assert dot.startswith("digraph polydat {") and dot.endswith("}")
    assert "user_id\\nmod" in dot and "hash" in dot and "in0 -> n0" in dot
    final = to_dot(program, stage="final")
    assert "hash_range" in final and "[dynamic]" in final


def test_cli_explain_and_dot(tmp_path):
    path = tmp_path / "p.polydat"
    path.write_text("input cycle: u64\nuser_id := mod(hash(cycle), 1000)\n")
    out = subprocess.run([sys.executable, "-m", "polydat.cli", "explain", str(path)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "hash_mod_to_hash_range" in out.stdout
    out = subprocess.run(
        [sys.executable, "-m", "polydat.cli", "explain", str(path), "--dot"], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("digraph")


# ---------------------------------------------------------------------------
# A 2000-node program


def big_source(target_nodes: int) -> str:
    """Layers of ``hash(prev ^ cycle) % K + layer`` (6 IR nodes each, literals included)."""
    lines = ["input cycle: u64", "extern seed: u64 = 3", "const s := hash(seed)", "v0 := cycle ^ s"]
    layers = target_nodes // 6
    for i in range(1, layers + 1):
        lines.append(f"v{i} := hash(v{i - 1} ^ cycle) % 1000003 + {i}")
    lines.append(f"last := lerp(unit_interval(hash(v{layers})), -1.0, 1.0)")
    return "\n".join(lines) + "\n"


def test_a_2000_node_program_compiles_and_runs():
    source = big_source(2000)
    started = time.perf_counter()
    program = polydat.compile(source)
    wall_ms = (time.perf_counter() - started) * 1000
    stats = program.stats
    print(
        f"\n2000-node program: {stats['nodes_resolved']} nodes resolved -> {stats['nodes_final']} final, "
        f"{stats['fusions']} fusions; core compile {stats['compile_micros'] / 1000:.1f} ms, "
        f"polydat.compile {wall_ms:.1f} ms"
    )
    assert stats["nodes_resolved"] >= 2000
    plain = polydat.compile(source, fusion=False)
    a = program.generate(range(500), outputs=["last"])["last"]
    b = plain.generate(range(500), outputs=["last"])["last"]
    assert a.view("u8").tobytes() == b.view("u8").tobytes()
    assert all(math.isfinite(v) for v in a)
    k = program.kernel()
    k.set_inputs(U64_MAX)
    assert -1.0 <= k.pull("last") <= 1.0


CSE_SOURCE = """input cycle: u64
a := one_of(hash(cycle ^ 3), "x", "y")
b := one_of(hash(cycle ^ 3), "x", "y")
c := "{a}-{mod(hash(cycle ^ 3), 10)}"
d := "{b}-{mod(hash(cycle ^ 3), 10)}"
"""


@pytest.mark.parametrize("engine", ["p1", "p2", "p3", "mixed", "p2/pull", "p3/push"])
def test_identical_expressions_are_computed_once_and_read_by_every_binding(engine):
    merged = polydat.compile(CSE_SOURCE, engine=engine)
    written = polydat.compile(CSE_SOURCE, engine=engine, fusion=False)
    assert any(e["kind"] == "CommonSubexpressionMerged" for e in merged.events)
    assert not any(e["kind"] == "CommonSubexpressionMerged" for e in written.events)
    assert merged.stats["nodes_final"] < written.stats["nodes_final"]
    want = {k: v.tolist() for k, v in written.generate(range(300)).items()}
    assert {k: v.tolist() for k, v in merged.generate(range(300)).items()} == want
    assert want["a"] == want["b"] and want["c"] == want["d"]
