"""Upstream's documented language examples, transcribed here: the examples
of its grammar specification (literals, bindings, modifiers, operators,
`if`, interpolation, casts, cursors, externs, modules, pragmas, `for` with
producers and orders, tiles), of its `for` and tile specifications, and of
its embedding guide, each compiled and checked for the values upstream
documents, on every engine of the equivalence matrix.

Root programs run through `polydat.testing.assert_engines_agree`; the
bodies of `for` statements are compiled on each engine and their
activations compared."""

from __future__ import annotations

import json
import math
import textwrap
from pathlib import Path
from typing import Any

import pytest

import polydat
import polydat.testing as pt

ENGINES = ("p1", "p2", "p3", "mixed")


def values(source: str, cycle: int | None = 0, engine: str = "auto", **externs: Any) -> dict[str, Any]:
    """Every output of ``source`` at ``cycle`` (with ``externs`` set), on ``engine``."""
    kernel = polydat.compile(source, engine=engine).kernel()
    for name, value in externs.items():
        kernel.set(name, value)
    if cycle is not None and kernel.program.coordinates:
        kernel.set_inputs(cycle)
    return kernel.eval()


def on_every_engine(source: str, cycles: list[int], expected: dict[str, Any] | None = None, **externs: Any) -> None:
    """The engines agree on ``source``; at ``cycles[0]`` its outputs include ``expected``."""
    pt.assert_engines_agree(source, cycles)
    if expected is not None:
        got = values(source, cycles[0], **externs)
        for name, value in expected.items():
            assert got[name] == value, name


# -- the grammar specification's examples -------------------------------------


def test_literals() -> None:
    on_every_engine("decimal := 1000\nhexa := 0xFF\nbig := 4294967296", [0], {
        "decimal": 1000, "hexa": 255, "big": 4294967296})
    on_every_engine("pi := 3.14\nscaled := 1e10\nsmall := 3.14e-2\ntau := 6.283185307179586", [0], {
        "pi": 3.14, "scaled": 1e10, "small": 0.0314, "tau": 6.283185307179586})
    # `1K` -> 1000, `1Ki` -> 1024, `5m` -> 0.005, `1.5K` -> 1500 (a u64: integral).
    si = "thousand := 1K\nkibi := 1Ki\nhalf_milli := 5m\nintegral := 1.5K\nnot_a_suffix := 1"
    on_every_engine(si, [0], {"thousand": 1000, "kibi": 1024, "half_milli": 0.005, "integral": 1500,
                              "not_a_suffix": 1})
    assert polydat.compile(si).outputs["integral"] == "u64"
    strings = (
        'greeting := "hello world"\ncharset := \'0-9A-Za-z\'\n'
        'escaped := "line one\\nline two"\nquote := "she said \\"hi\\""'
    )
    on_every_engine(strings, [0], {"greeting": "hello world", "charset": "0-9A-Za-z",
                                   "escaped": "line one\nline two", "quote": 'she said "hi"'})
    on_every_engine("weights := [60.0, 20.0, 15.0, 5.0]\nempty := []", [0], {
        "weights": "60.0, 20.0, 15.0, 5.0", "empty": ""})


def test_bindings_destructuring_inputs_and_modifiers() -> None:
    minimal = "input cycle: u64\nhashed := hash(cycle)\nuser_id := mod(hashed, 1000000)"
    # The embedding guide's values for this program.
    for cycle, user_id in ((0, 607535), (1, 822465), (2, 348110)):
        assert values(minimal, cycle)["user_id"] == user_id
    pt.assert_engines_agree(minimal, [0, 1, 2, *pt.U64_CORNERS])
    destructure = (
        "input cycle: u64\n(region, store, tx) := mixed_radix(cycle, 50, 200, 0)\n"
        "region_id := mod(hash(region), 10000)\nstore_id := mod(hash(interleave(region, store)), 100000)"
    )
    got = values(destructure, 12345)
    assert (got["region"], got["store"], got["tx"]) == (12345 % 50, 12345 // 50 % 200, 12345 // 10000)
    pt.assert_engines_agree(destructure, [0, 12345, *pt.U64_CORNERS])
    tuple_input = "input (cycle: u64, thread: u64)\ncombined := interleave(cycle, thread)\nrow_key := mod(hash(combined), 1000000)"
    pt.assert_engines_agree(tuple_input, [pt.Step({"cycle": 3, "thread": 5})])
    modifiers = (
        "input cycle: u64\nconst base := 42\nconst seed := hash(base)\nshared error_budget := 100\n"
        "volatile attempt := mod(hash(cycle), 8)\nuser_id := mod(hash(cycle), 1000000)"
    )
    got = values(modifiers, 0)
    assert (got["base"], got["seed"], got["error_budget"]) == (42, values("x := hash(42)")["x"], 100)
    assert got["user_id"] == 607535 and got["attempt"] < 8


def test_operators_comparisons_and_if() -> None:
    arithmetic = "input cycle: u64\na := hash(cycle)\nsum := a + 7\nmasked := a & 0xFF\nshifted := a >> 3\npower := 2 ** 10"
    got = values(arithmetic, 0)
    assert got["power"] == 1024.0 and got["masked"] == got["a"] & 0xFF and got["shifted"] == got["a"] >> 3
    pt.assert_engines_agree(arithmetic, [0, 1, *pt.U64_CORNERS])
    on_every_engine("delta := -100.0\nbits := !0", [0], {"delta": -100.0, "bits": 2**64 - 1})
    comparisons = "input cycle: u64\nx := hash(cycle)\nbig := x > 1000000\nin_band := (x > 100) && (x < 1000000)\nflag := (x == 0) || big"
    pt.assert_engines_agree(comparisons, [0, 1, *pt.U64_CORNERS])
    overscan = (
        'input cycle: u64\noptimize_for := "LATENCY"\nlatency_factor := 1.5\nrecall_factor := 9.5\n'
        "overscan := if(optimize_for == \"LATENCY\", latency_factor, recall_factor)"
    )
    on_every_engine(overscan, [0], {"overscan": 1.5})
    on_every_engine("input cycle: u64\nn := 12\nout := if n > 0 { 100 } else { 7 }", [0], {"out": 100})
    on_every_engine("input cycle: u64\nn := 5\nout := if n > 10 { 1 } else if n > 3 { 2 } else { 3 }", [0], {"out": 2})
    on_every_engine('input cycle: u64\ns := "LATENCY"\nout := if s == "LATENCY" { "fast" } else { "thorough" }', [0],
                    {"out": "fast"})


def test_calls_interpolation_and_casts() -> None:
    calls = "input cycle: u64\nh := hash(cycle)\nu := unit_interval(h)\nraw := icd_normal(u, 100.0, 15.0)\nclamped := clamp_f64(raw, -50.0, 50.0)"
    pt.assert_engines_agree(calls, [0, 1, *pt.U64_CORNERS])
    interpolation = (
        "input cycle: u64\n(tenant, device, reading) := mixed_radix(cycle, 100, 1000, 0)\n"
        "tenant_code := mod(hash(tenant), 10000)\ndevice_seq := mod(hash(interleave(tenant, device)), 100000)\n"
        'device_id := "{tenant_code}-{device_seq}"\nlabel := "sensor_reading"'
    )
    got = values(interpolation, 54321)
    assert got["device_id"] == f"{got['tenant_code']}-{got['device_seq']}" and got["label"] == "sensor_reading"
    pt.assert_engines_agree(interpolation, [0, 54321, *pt.U64_CORNERS])
    cast = "input cycle: u64\nx := hash(cycle)\nratio := (x as f64) / 4294967296.0"
    assert values(cast, 0)["ratio"] == values(cast, 0)["x"] / 4294967296.0
    pt.assert_engines_agree(cast, [0, *pt.U64_CORNERS])
    with pytest.raises(polydat.CompileError):
        polydat.compile("some_f64 := 1.5\nnarrowed := some_f64 as u64")


def test_cursors_externs_and_modules() -> None:
    cursor = "input cycle: u64\ncursor users = range(0, 1000000)\nu := users"
    on_every_engine(cursor, [5, 999999], {"u": 5})
    externs = "input cycle: u64\nextern scale: u64\nresult := cycle * scale"
    assert values(externs, 3)["result"] is None, "an extern without a default reads None until set"
    assert values(externs, 3, scale=10)["result"] == 30
    sine = """
    sine_wave(input: u64, period: u64) -> (value: f64) := {
        pos := to_f64(input % period)
        per := to_f64(period)
        value := sin((pos / per) * 6.283185307179586)
    }
    input cycle: u64
    v := sine_wave(cycle, 20)
    """
    assert values(sine, 5)["v"] == math.sin(5 / 20 * 6.283185307179586)
    pt.assert_engines_agree(sine, [0, 5, 13, *pt.U64_CORNERS])


def test_pragma_examples() -> None:
    body = "input cycle: u64\nd := mod(hash(cycle), 100)\nb := mod_wire(cycle, d)\nfor k in 1..3 {\n    pragma strict_values\n    c := mod_wire(cycle, k)\n}"
    polydat.compile(body)
    module = (
        "checked(a: u64, n: u64) -> (out: u64) := {\n    pragma strict_values\n    out := mod_wire(a, n)\n}\n"
        "input cycle: u64\ns := checked(cycle, 7)\nb := mod_wire(cycle, s)"
    )
    on_every_engine(module, [12, 1], {"s": 5})
    # `limit` is bound nowhere: upstream 0.6.0 refuses the program at compile (V3).
    unbound = "input cycle: u64\nfor k in 1..4 where {k} > {limit} {\n    x := hash(k)\n}"
    with pytest.raises(polydat.CompileError, match="'limit' is bound nowhere"):
        polydat.compile(unbound)


# -- for: traversals, element types, producers, derivations -------------------


def activations(source: str, index: int = 0, engine: str = "auto", cycle: int = 0) -> list[dict[str, Any]]:
    """``{**iteration, **outputs}`` of each activation of traversal ``index``."""
    kernel = polydat.compile(source, engine=engine).kernel()
    kernel.set_inputs(cycle)
    return [{**a.iteration, **a.eval()} for a in kernel.traverse(index)]


def every_engine_activations(source: str, index: int = 0, cycle: int = 0) -> list[dict[str, Any]]:
    """The activations on every engine (which must agree)."""
    runs = [activations(source, index, engine, cycle) for engine in ENGINES]
    assert all(run == runs[0] for run in runs), "engines disagree on the activations"
    return runs[0]


def test_a_traversal_runs_its_body_once_per_tuple() -> None:
    source = "input cycle: u64\nfor k in 1..4, limit in 10,20,30 {\n    f := hash(k)\n    g := u64_add(limit, k)\n}"
    got = every_engine_activations(source)
    assert [(a["k"], a["limit"], a["g"]) for a in got] == [(k, l, l + k) for k in (1, 2, 3) for l in (10, 20, 30)]
    assert [a["f"] for a in got[::3]] == [values(f"x := hash({k})")["x"] for k in (1, 2, 3)]


def test_element_types_and_predicates() -> None:
    source = (
        "input cycle: u64\nfor a in 1..4, b in 10,20,30, c in 1.5,2.5, d in load,verify, e in true,false {\n"
        "    x := hash(a)\n}"
    )
    kernel = polydat.compile(source).kernel()
    first = next(kernel.traverse(0))
    assert first.program.input_types == {"a": "u64", "b": "u64", "c": "f64", "d": "str", "e": "bool"}
    assert len(list(kernel.traverse(0))) == 3 * 3 * 2 * 2 * 2
    regions = (
        'input cycle: u64\nfor k in 1..10, region in ["us-east", "eu-west"] where {k} > 3 && {region} == "us-east" {\n'
        "    x := hash(k)\n}"
    )
    got = every_engine_activations(regions)
    assert [(a["k"], a["region"]) for a in got] == [(k, "us-east") for k in range(4, 10)]


def test_producers_orders_and_derivations() -> None:
    sampled = (
        "input cycle: u64\nsweep := for k in 1..4, limit in 10, 20, 30 order halton/5\n"
        "for sweep {\n    f := hash(k)\n    g := u64_add(limit, k)\n}"
    )
    # Halton points (phi2(i), phi3(i)) for i = 1..5 over the 3 x 3 lattice of (k, limit).
    got = every_engine_activations(sampled)
    assert [(a["k"], a["limit"]) for a in got] == [(2, 20), (1, 30), (3, 10), (1, 20), (2, 30)]
    derived = (
        "input cycle: u64\nsweep := for k in 1..9, limit in 10, 20, 30\nlarge := for sweep where {k} > 3\n"
        "ordered := for large order lex\nfor ordered {\n    f := hash(k)\n    g := u64_add(limit, k)\n}"
    )
    got = every_engine_activations(derived)
    assert [(a["k"], a["limit"]) for a in got] == [(k, l) for k in range(4, 9) for l in (10, 20, 30)]


def test_nested_bodies_are_grandchildren() -> None:
    source = """
    input cycle: u64
    for t in 0..3 {
        mid := u64_add(t, 100)
        for d in 0..2 {
            leaf := u64_add(mid, d)
        }
    }
    """
    for engine in ENGINES:
        kernel = polydat.compile(source, engine=engine).kernel()
        leaves = [g.pull("leaf") for a in kernel.traverse(0) for g in a.traverse(0)]
        assert leaves == [100, 101, 101, 102, 102, 103], engine


# -- tiles ---------------------------------------------------------------------


def test_tile_examples() -> None:
    on_every_engine('input cycle: u64\ntile t := "n=${cycle}"', [5, 0], {"t": "n=5"})
    forms = """
    input cycle
    tenant_id := mod(hash(cycle), 1000)
    keyspace := "ks"
    a := cycle
    b := "x,y"
    x := cycle + 1
    c := cycle % 2
    tile doc : json := {
        "tenant": ${tenant_id},
        "samples": [ @for s in 0..4 { { "n": ${s} } } ]
    }
    tile load : text := <<<
    INSERT ${keyspace} '${doc!}'
    >>>
    tile row : csv := "${a},${b}"
    tile odd : text (delims "<%" "%>", sigil "#", strict) := "<%x%> #if c { y }"
    """
    forms = textwrap.dedent(forms)
    got = values(forms, 3)
    assert json.loads(got["doc"]) == {"tenant": got["tenant_id"], "samples": [{"n": n} for n in range(4)]}
    assert got["load"] == f"INSERT ks '{got['doc']}'"
    assert (got["row"], got["odd"]) == ('3,"x,y"', "4 y")
    pt.assert_engines_agree(forms, [0, 3, 10])


def test_the_toy_definitions_json_tile() -> None:
    source = """
    input cycle
    tenant_id := mod(hash(cycle), 1000)
    device_id := "d{mod(hash(cycle + 1), 100000)}"
    ts := 1700000000000 + cycle * 1000
    temp_c := unit_interval(hash(cycle + 2)) * 40.0
    humidity := unit_interval(hash(cycle + 3)) * 100.0
    status := if temp_c > 30.0 { "hot" } else { "ok" }
    tile doc : json := {
        "meta": { "schema": 3, "source": "polydat", "units": { "temp": "C", "rh": "%" } },
        "tenant": ${tenant_id},
        "device": "${device_id}",
        "ts": ${ts},
        "reading": { "temp": ${temp_c | .2}, "rh": ${humidity | .1}, "status": "${status}" },
        "samples": [ @for s in 0..4 { { "n": ${s}, "temp": ${temp_c + s | .2} } } ]
    }
    """
    got = values(source, 9)
    doc = json.loads(got["doc"])
    assert doc["ts"] == 1700000009000 and doc["reading"]["status"] == got["status"]
    assert doc["samples"][3]["temp"] == round(got["temp_c"] + 3, 2)
    pt.assert_engines_agree(source, [0, 9, 123])


# -- the embedding guide ---------------------------------------------------------


def test_embedding_guide_compile_and_drive() -> None:
    source = 'input cycle: u64\nuser_id := mod(hash(cycle), 1000000)\nscore := unit_interval(hash(user_id))\nlabel := "user-{user_id}"'
    for cycle, user_id, score in ((0, 607535, 0.601), (1, 822465, 0.230), (2, 348110, 0.219)):
        got = values(source, cycle)
        assert (got["user_id"], round(got["score"], 3), got["label"]) == (user_id, score, f"user-{user_id}")
    pt.assert_engines_agree(source, [0, 1, 2])


def test_embedding_guide_externs() -> None:
    source = (
        'input cycle: u64\nextern region: str = "us-east"\nextern scale: u64 = 10\n'
        'id := mod_wire(hash(cycle), scale)\nkey := "{region}/{id}"'
    )
    assert values(source, 7)["key"] == "us-east/7"
    assert values(source, 7, region="eu-west", scale=1000)["key"] == "eu-west/487"
    assert values(source.replace('"us-east"', '"ap-south"'), 7)["key"] == "ap-south/7"
    pt.assert_engines_agree(source, [7])


def test_embedding_guide_modules_from_a_library(tmp_path: Path) -> None:
    (tmp_path / "bucketed.polydat").write_text(
        'bucketed(input: u64, buckets: u64) -> (bucket: u64, label: str) := {\n'
        "    bucket := mod(hash(input), buckets)\n"
        '    label := "b{bucket}"\n'
        "}\n"
    )
    program = polydat.compile("input cycle: u64\n(b, l) := bucketed(input: cycle, buckets: 8)\n", library_path=[tmp_path])
    kernel = program.kernel()
    got = []
    for cycle in (0, 1, 2):
        kernel.set_inputs(cycle)
        got.append((kernel.pull("b"), kernel.pull("l")))
    assert got == [(7, "b7"), (1, "b1"), (6, "b6")]


def test_embedding_guide_traversal() -> None:
    source = """
    input cycle: u64
    for shard in 0..3, phase in load,verify {
        row := mod(hash(cycle), 100) + shard * 100
        stmt := "{phase} shard {shard} row {row}"
    }
    """
    for engine in ENGINES:
        kernel = polydat.compile(source, engine=engine).kernel()
        kernel.set_inputs(0)
        stmts = []
        for act in kernel.traverse(0):
            act.set_inputs(cycle=1)  # the activation at its cycle 1
            stmts.append(act.pull("stmt"))
        assert stmts == [
            "load shard 0 row 65", "verify shard 0 row 65", "load shard 1 row 165",
            "verify shard 1 row 165", "load shard 2 row 265", "verify shard 2 row 265",
        ], engine


def test_embedding_guide_compiled_tile() -> None:
    source = 'input cycle: u64\nh := hash(cycle)\nname := "user-{h}"\ntile j : json := {"h": ${h}, "name": ${name}}'
    assert values(source, 0)["j"] == '{"h": 16294208416658607535, "name": "user-16294208416658607535"}'
    assert values(source, 1)["j"] == '{"h": 10451216379200822465, "name": "user-10451216379200822465"}'
    pt.assert_engines_agree(source, [0, 1])


def test_embedding_guide_emitted_rows() -> None:
    source = 'input cycle: u64\nid := mod(hash(cycle), 1000)\nname := "user-{id}"\n__emit := emit_row("jsonl", "cycle,id,name", cycle, id, name)\n'
    for engine in ENGINES:
        _, emitted = polydat.compile(source, engine=engine).generate(range(3), emitted=True)
        assert list(emitted["row"]) == [
            '{"cycle":0,"id":535,"name":"user-535"}',
            '{"cycle":1,"id":465,"name":"user-465"}',
            '{"cycle":2,"id":110,"name":"user-110"}',
        ], engine


# -- examples that need upstream's partition nodes -------------------------------


PARTITION_EXAMPLES = [
    "input cycle: u64\nfor a in 1..4, b in 10,20,30, c in 1.5,2.5, d in load,verify, e in true,false, "
    'p in partitions("*/2", 100) {\n    x := hash(a)\n}',
    'input cycle: u64\nfor p in partitions("*/4", 1000) {\n    cursor rows = range(0, 1000) over p\n'
    "    row := mod_in(cycle, rows.cursor)\n}",
    'input cycle: u64\nfor p in partitions("*/4", 1000) {\n    outer := cardinality(p)\n    for t in 0..20 {\n'
    "        mid := u64_add(outer, t)\n        for d in 0..50 {\n            leaf := u64_add(mid, d)\n        }\n    }\n}",
]


def test_partition_examples_element_types() -> None:
    """A `for` over `partitions(...)` gives one element per partition, a
    `json` partition (upstream: an `Ext Partition`), beside the other
    element types."""
    kernel = polydat.compile(PARTITION_EXAMPLES[0]).kernel()
    acts = list(kernel.traverse(0))
    assert acts[0].program.input_types == {"a": "u64", "b": "u64", "c": "f64", "d": "str", "e": "bool", "p": "json"}
    # 3 * 3 * 2 * 2 * 2 tuples of the other clauses, times the 2 partitions of "*/2" over 100.
    assert len(acts) == 3 * 3 * 2 * 2 * 2 * 2
    assert [json.loads(a.iteration["p"])["start_ord"] for a in acts[:2]] == [0, 50]
    # A partition list bound to a name and read by reference gives the same elements.
    named = 'input cycle: u64\nparts := partitions("*/2", 100)\nfor p in {parts} {\n    n := cardinality(p)\n}'
    got = every_engine_activations(named)
    assert [(json.loads(a["p"])["idx"], a["n"]) for a in got] == [(0, 50), (1, 50)]


def test_partition_examples_cursor_over_a_partition() -> None:
    """`cursor rows = range(0, 1000) over p` covers partition p: "*/4" over
    1000 ordinals is [0, 250), [250, 500), [500, 750), [750, 1000), so
    `rows.cursor` is partition i and `mod_in(cycle, rows.cursor)` is
    250 * i + cycle % 250 (cycle 260 wraps to 10 past the start)."""
    for engine in ENGINES:
        kernel = polydat.compile(PARTITION_EXAMPLES[1], engine=engine).kernel()
        rows = []
        for act in kernel.traverse(0):
            act.set_inputs(cycle=260)
            cursor = json.loads(act.pull("rows__cursor"))
            rows.append((cursor["idx"], cursor["count"], cursor["start_ord"], cursor["end_ord"], act.pull("row")))
        assert rows == [(i, 4, 250 * i, 250 * i + 250, 250 * i + 10) for i in range(4)], engine


def test_partition_examples_nested_traversals() -> None:
    """`outer := cardinality(p)` is 250 for each of the four partitions;
    each leaf is 250 + t + d for t in 0..20, d in 0..50: 4 * 20 * 50 = 4000
    leaves summing to 4 * (1000 * 250 + 50 * 190 + 20 * 1225) = 1,136,000."""
    for engine in ENGINES:
        kernel = polydat.compile(PARTITION_EXAMPLES[2], engine=engine).kernel()
        leaves = [leaf.pull("leaf") for a in kernel.traverse(0) for mid in a.traverse(0) for leaf in mid.traverse(0)]
        assert (len(leaves), sum(leaves), leaves[:2], leaves[-1]) == (4000, 1_136_000, [250, 251], 250 + 19 + 49), engine
