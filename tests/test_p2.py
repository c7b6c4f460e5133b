"""P2 from Python: engine and provenance selection, what `prog.engine`
reports, refusals, the selection figures, and P2 ≡ P1 bit for bit on programs
with strings, None, failures, consts and many inputs (every provenance mode,
through polydat.testing)."""

from __future__ import annotations

import math

import pytest

import polydat
import polydat.testing as pt
from polydat import _core

from core_hooks import hooks

P2_MODES = ["p2/raw", "p2/push", "p2/pull", "p2/pushpull"]

LADDER = """
input cycle: u64
input tenant_seed: u64
input operation_seed: u64
seeded_cycle := u64_add(cycle, tenant_seed)
identity_entropy := hash(seeded_cycle)
account_id := mod(identity_entropy, 10000000)
route_seed := u64_xor(account_id, operation_seed)
route_entropy := hash(route_seed)
shard := mod(route_entropy, 64)
payload_seed := u64_add(identity_entropy, operation_seed)
payload_entropy := hash(payload_seed)
payload_class := mod(payload_entropy, 8)
token_seed := u64_add(route_entropy, payload_entropy)
event_token := hash(token_seed)
"""


def chain(n: int, source: str = "cycle", prefix: str = "n") -> str:
    lines, prev = [], source
    for i in range(n):
        lines.append(f"{prefix}{i} := hash({prev})" if i % 2 == 0 else f"{prefix}{i} := add({prev}, {1000 + i})")
        prev = f"{prefix}{i}"
    return "\n".join(lines)


def test_engine_names_are_discoverable():
    p3_modes = [m.replace("p2/", "p3/") for m in P2_MODES]
    assert _core.engines() == ["p1", *P2_MODES, *p3_modes, "mixed"]
    assert [e.name for e in pt.engines()][: len(_core.engines())] == _core.engines(), "the matrix iterates every engine"


@pytest.mark.parametrize("mode", ["raw", "push", "pull", "pushpull"])
def test_explicit_modes_are_honoured(mode):
    prog = polydat.compile(LADDER, engine="p2", provenance=mode)
    assert prog.engine == f"p2/{mode}"
    assert polydat.compile(LADDER, engine=f"p2/{mode}").engine == f"p2/{mode}"
    assert polydat.compile(LADDER, provenance=mode).engine == f"p3/{mode}", "auto honours an explicit mode, natively"


def test_auto_runs_natively_or_mixed_and_the_hosts_refuse_modes():
    assert polydat.compile(LADDER).engine == "p3/raw", "every step is native: P3 in the heuristic's mode"
    strings = LADDER + '\nlabel := "account-{account_id}"'
    assert polydat.compile(strings).engine == "p3/raw", "a text step written in place: still P3"
    literal = LADDER + '\nflag := select_str(shard > 5, "F", "P")'
    assert polydat.compile(literal).engine == "p3/raw", "a string literal runs once per kernel: still P3"
    boxed = LADDER + "\nextern e: u64\nkept := default_or(e, account_id)"
    assert polydat.compile(boxed).engine == "mixed", "a None-accepting step: the interpreter hosts native segments"
    assert "needs values boxed" in polydat.compile(boxed).explain()
    assert polydat.compile(LADDER, engine="mixed").engine == "mixed"
    assert polydat.compile(LADDER, engine="p1").engine == "p1"
    assert polydat.compile(LADDER, engine="p3").engine.startswith("p3/")
    with pytest.raises(polydat.RefusedError, match="p1/pull"):
        polydat.compile(LADDER, engine="p1", provenance="pull")
    with pytest.raises(polydat.RefusedError, match="mixed/pull"):
        polydat.compile(LADDER, engine="mixed", provenance="pull")
    with pytest.raises(polydat.RefusedError, match="no provenance modes"):
        polydat.compile(LADDER, engine="mixed/raw")
    with pytest.raises(polydat.RefusedError):
        polydat.compile(LADDER, engine="p2/raw", provenance="pull")
    with pytest.raises(polydat.RefusedError):
        polydat.compile(LADDER, engine="p2", provenance="sideways")


def test_automatic_selection_reports_its_figures():
    tiny = polydat.compile(LADDER, engine="p2")
    a = tiny.provenance_analysis
    assert set(a) == {"total_nodes", "max_output_cone", "output_cone_ratio", "stable_nodes", "stable_ratio", "choice", "rule"}
    assert (a["total_nodes"], a["stable_nodes"], a["choice"]) == (11, 0, "raw")
    assert tiny.engine == "p2/raw"
    # A long all-dirty chain: the guard would never skip, so Raw.
    long = polydat.compile("input cycle: u64\n" + chain(40), engine="p2")
    assert long.engine == "p2/raw" and long.provenance_analysis["output_cone_ratio"] == 1.0
    # Four independent roots: selective cones.
    roots = "input (a: u64, b: u64, c: u64, d: u64)\n" + "\n".join(chain(10, s, f"{s}_") for s in "abcd")
    assert polydat.compile(roots, engine="p2").engine == "p2/pull"
    # A big cone with a large stable (extern-only) part: Pull (its guard
    # skips the stable part's reads; PushPull measured slower on every scenario).
    stable = "input cycle: u64\nextern k: u64 = 3\n" + chain(20, "k", "s") + "\n" + chain(10, "u64_add(cycle, s19)", "c")
    prog = polydat.compile(stable, engine="p2")
    assert prog.provenance_analysis["stable_ratio"] >= 0.3
    assert prog.engine == "p2/pull"
    # Push and PushPull are never picked (they are there when asked for).
    for src in (LADDER, roots, stable, "input cycle: u64\n" + chain(40)):
        assert polydat.compile(src, engine="p2").provenance_analysis["choice"] in ("raw", "pull")


def test_explain_tells_how_p2_runs_the_program():
    assert "plan: 11 closure step(s), 0 slot-kit step(s); a stale read sweeps" in polydat.compile(LADDER, engine="p2").explain()
    pull = polydat.compile(LADDER, engine="p2", provenance="pull").explain()
    assert "a stale read of a broad cone sweeps" in pull
    push = polydat.compile(LADDER, engine="p2", provenance="push").explain()
    assert "reads walk their cones, skipping clean steps" in push
    # A string step with a by-bytes form runs by bytes, and the program still
    # sweeps (for broad cones: a sweep that runs string steps costs more).
    text = polydat.compile("input cycle: u64\ns := hashed_uuid(cycle)\nh := hash(cycle)", engine="p2", provenance="raw")
    assert "1 closure step(s), 0 slot-kit step(s), 1 by-bytes step(s); a stale read of a broad cone sweeps" in text.explain()
    # A node without one runs through the slot kit, and a program with one cannot sweep.
    kit = polydat.compile("input cycle: u64\ns := debug_repr(cycle)\nh := hash(cycle)", engine="p2", provenance="raw")
    assert "1 slot-kit step(s); reads walk their cones" in kit.explain()


def test_ladder_values_match_by_hand():
    M = (1 << 64) - 1

    def splitmix(x):
        x = (x + 0x9E3779B97F4A7C15) & M
        x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M
        x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M
        return x ^ (x >> 31)

    T, O = 0x5445_4E41_4E54, 0x4F50_4552_4154_494F
    for mode in P2_MODES:
        k = polydat.compile(LADDER, engine=mode).kernel()
        for cycle in (0, 1, 42, M):
            k.set_inputs(cycle, T, O)
            ident = splitmix((cycle + T) & M)
            account = ident % 10_000_000
            route = splitmix(account ^ O)
            payload = splitmix((ident + O) & M)
            assert k.pull("account_id") == account
            assert k.pull("shard") == route % 64
            assert k.pull("payload_class") == payload % 8
            assert k.pull("event_token") == splitmix((route + payload) & M)


STRINGS = """
input cycle: u64
extern name: str = "ada"
extern note: str
label := "{name}#{cycle}"
shout := str_upper(name)
both := str_concat(label, "/", shout)
picked := select_str(u64_lt(mod(cycle, 3), 1), label, shout)
words := number_to_words(mod(cycle, 1000))
uuid := hashed_uuid(cycle)
noted := str_concat(note, "!")
safe := default_or(note, "none")
digits := __u64_to_str(cycle)
back := __str_to_u64(digits)
"""


def test_strings_and_none_agree_on_every_mode():
    steps = [0, 1, 7, pt.Step({"name": "grace"}), 12345, pt.Step({"note": "hi"}), 2, pt.Step({"note": None}), 3]
    pt.assert_engines_agree(STRINGS, steps)
    k = polydat.compile(STRINGS, engine="p2/pull").kernel()
    k.set_inputs(5)
    held = k.pull("label")
    assert held == "ada#5" and k.pull("noted") is None and k.pull("safe") == "none"
    k.set("note", "x")
    assert k.pull("noted") == "x!"
    for c in range(6, 40):
        k.set_inputs(c)
        k.eval()
    assert held == "ada#5", "pulled strings are owned copies"


FAILING = """
input cycle: u64
input d: u64
text := "nope{cycle}"
bad := __str_to_u64(text)
r := mod_wire(cycle, d)
checked := in_range(cycle, 0, 100)
fine := hash(cycle)
"""


@pytest.mark.parametrize("mode", P2_MODES)
def test_failures_read_the_same_and_kernels_recover(mode):
    p1 = polydat.compile(FAILING, engine="p1").kernel()
    p2 = polydat.compile(FAILING, engine=mode).kernel()
    for k in (p1, p2):
        k.set_inputs(150, 0)
    for out in ("bad", "r", "checked"):
        with pytest.raises(polydat.EvalError) as e1:
            p1.pull(out)
        with pytest.raises(polydat.EvalError) as e2:
            p2.pull(out)
        assert str(e2.value) == str(e1.value)
        assert e2.value.node == e1.value.node and e2.value.inputs == e1.value.inputs
    for k in (p1, p2):
        k.set_inputs(7, 3)
    assert p2.pull("r") == p1.pull("r") == 1
    assert p2.pull("fine") == p1.pull("fine")


def test_more_than_64_inputs():
    names = [f"i{n}" for n in range(100)]
    src = "input (" + ", ".join(f"{n}: u64" for n in names) + ")\n"
    src += "total := sum(" + ", ".join(names) + ")\n"
    src += "\n".join(f"h{n} := hash({names[n]})" for n in (0, 63, 64, 99))
    steps = [
        pt.Step({"i64": 5}),
        pt.Step({"i99": 1}, pulls=["h99", "total"]),
        pt.Step({"i0": 2}, pulls=["h64"]),
        pt.Step({"i64": 5}),
        pt.Step({"i63": 9}),
    ]
    pt.assert_engines_agree(src, steps)


def test_floats_are_bit_exact():
    src = """
    input cycle: u64
    extern x: f64 = -0.0
    u := unit_interval(hash(cycle))
    s := u * x
    q := sqrt(s - 0.5)
    n := dist_normal(u, 0.0, 1.0)
    """
    pt.assert_engines_agree(src, [pt.Step({"cycle": c, "x": x}) for c, x in [(0, -0.0), (1, 0.0), (2, math.inf), (3, math.nan), (4, -2.5)]])


def test_const_captures_and_volatile_steps():
    src = """
    input cycle: u64
    extern seed: u64 = 5
    const s := hash(seed)
    d := cycle + s
    e := seed + 1
    """
    steps = [pt.Step({"cycle": 0, "seed": 9}), 1, pt.Step({"seed": 11}), 3, pt.Step(4, pulls=["*eval*"])]
    # (p1/fresh replays every write into a new kernel, so it captures later values by design.)
    pt.assert_engines_agree(src, steps, engines=pt.engines(include_fresh=False))
    for mode in P2_MODES:
        k = polydat.compile("input cycle: u64\nc := counter(10)\nw := c + cycle", engine=mode).kernel()
        k.set_inputs(1)
        first = k.pull("w")
        assert k.pull("w") == first + 1, f"{mode}: a volatile step runs on every read"


def test_generate_matches_p1_across_threads():
    src = 'input cycle: u64\nextern tag: str = "t"\nid := mod(hash(cycle), 1000)\nlabel := "{tag}{id}"\nf := unit_interval(hash(id))'
    want = polydat.compile(src, engine="p1").generate(range(0, 20_000, 3), inputs={"tag": "q"})
    for mode in P2_MODES:
        for threads in (1, 3):
            got = polydat.compile(src, engine=mode).generate(range(0, 20_000, 3), inputs={"tag": "q"}, threads=threads)
            assert (got["id"] == want["id"]).all()
            assert got["f"].view("u8").tobytes() == want["f"].view("u8").tobytes()
            assert list(got["label"]) == list(want["label"])


def test_extern_writes_dirty_exactly_their_dependents():
    src = """
    input cycle: u64
    extern k: u64 = 3
    extern j: u64 = 1
    a := __probe(k, "p2py.a.{mode}")
    b := a + cycle
    c := __probe(j + cycle, "p2py.c.{mode}")
    """
    for mode in P2_MODES:
        tag = mode.replace("/", "_")
        prog = polydat.compile(src.replace("{mode}", tag), engine=mode)
        ka, kc = f"p2py.a.{tag}", f"p2py.c.{tag}"
        hooks.probe_reset(ka)
        hooks.probe_reset(kc)
        k = prog.kernel()
        k.set_inputs(1)
        assert k.pull("b") == 4 and k.pull("c") == 2
        k.set("j", 5)  # outside b's cone
        assert k.pull("b") == 4
        assert hooks.probe_count(ka) == 1, mode
        assert k.pull("c") == 6 and hooks.probe_count(kc) == 2
        k.set("k", 10)  # outside c's cone
        assert k.pull("c") == 6 and hooks.probe_count(kc) == 2, mode
        assert k.pull("b") == 11 and hooks.probe_count(ka) == 2
