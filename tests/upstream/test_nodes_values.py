"""Values upstream's own tests state for its nodes, on every engine."""

from __future__ import annotations

import json

import polydat
from polydat import dsl

from .node_values import values_everywhere


def test_fixed_values_wrap_by_index() -> None:
    source = "input a: u64\nout := fixed_values_u64(a, 10, 20, 30)\n"
    assert values_everywhere(source, "out", [{"a": i} for i in range(4)]) == [10, 20, 30, 10]
    source = "input a: u64\nout := fixed_values_f64(a, 1.1, 2.2, 3.3)\n"
    assert values_everywhere(source, "out", [{"a": 1}]) == [2.2]
    source = 'input a: u64\nout := fixed_values_str(a, "alpha", "beta", "gamma")\n'
    assert values_everywhere(source, "out", [{"a": 2}]) == ["gamma"]


def test_constants() -> None:
    source = "input a: u64\nf := const_f64(3.14)\nb := const_bool(true)\nout := f\n"
    assert values_everywhere(source, "out", [{"a": 0}]) == [3.14]
    assert values_everywhere(source, "b", [{"a": 0}]) == [True]


def test_coin_flip_extremes() -> None:
    inputs = [{"a": i} for i in (0, 1, 99, 2**63, 2**64 - 2)]
    always = "input a: u64\nout := coin_flip(a, 1.0)\n"
    assert values_everywhere(always, "out", inputs) == [True] * len(inputs)
    never = "input a: u64\nout := coin_flip(a, 0.0)\n"
    assert values_everywhere(never, "out", inputs) == [False] * len(inputs)


def test_shuffle_over_an_empty_range_answers_its_floor() -> None:
    for lowest in (0, 7, 2**64 - 1):
        source = f"input a: u64\nout := shuffle(a, 0, 0, {lowest})\n"
        assert values_everywhere(source, "out", [{"a": i} for i in (0, 1, 42, 2**64 - 1)]) == [lowest] * 4


def test_shuffle_permutes_with_a_maximal_polynomial() -> None:
    source = "input a: u64\nout := shuffle(a, 0x30, 50, 0)\n"
    got = values_everywhere(source, "out", [{"a": i} for i in range(50)])
    assert sorted(got) == list(range(50))


def test_body_column_i32_reads_rows_and_envelopes() -> None:
    source = (
        "input a: u64\n"
        'rows := str_to_json("[{\\"key\\": 4, \\"value\\": 0.5}, {\\"key\\": 17}, {\\"key\\": \\"42\\"}, {\\"other\\": 2}]")\n'
        'out := json_to_str(body_column_i32(rows, "key"))\n'
    )
    (got,) = values_everywhere(source, "out", [{"a": 0}])
    assert json.loads(got) == [4, 17, 42]


def test_array_accessors() -> None:
    source = 'input a: u64\nextern s: str = "[10, 20, 30]"\nn := array_len(s)\nout := array_at(s, a)\n'
    assert values_everywhere(source, "out", [{"a": 1}, {"a": 4}]) == ["20", "20"]
    assert values_everywhere(source, "n", [{"a": 0}]) == [3]


def _bounds(spec: str, extent: int) -> list[tuple[int, int]]:
    source = (
        "input a: u64\n"
        f'p := partition_at(partitions("{spec}", {extent}), a)\n'
        "s := start_of(p)\ne := end_of(p)\nn := partition_count(partitions(\"" + spec + f'", {extent}))\n'
    )
    (count,) = values_everywhere(source, "n", [{"a": 0}])
    inputs = [{"a": i} for i in range(count)]
    return list(zip(values_everywhere(source, "s", inputs), values_everywhere(source, "e", inputs), strict=True))


def test_partition_specs_resolve_as_upstream_states() -> None:
    assert _bounds("0..50%", 1000) == [(0, 500)]
    assert _bounds("100..50%", 1000) == [(100, 500)]
    assert _bounds("2%,10%,*%", 1000) == [(0, 20), (20, 120), (120, 1000)]
    assert _bounds("1000,10%,*", 10000) == [(0, 1000), (1000, 2000), (2000, 10000)]
    assert _bounds("20%,30%", 1000) == [(0, 200), (200, 500)]
    assert _bounds("linear:4", 1000) == [(0, 250), (250, 500), (500, 750), (750, 1000)]
    tail = [(900 + 10 * i, 910 + 10 * i) for i in range(10)]
    assert _bounds("90%,1%,...", 1000) == [(0, 900), *tail]
    assert _bounds("90%,*/10", 1000) == [(0, 900), *tail]


def test_partition_consumers_over_100_to_200() -> None:
    source = 'input n: u64\np := partition_at(partitions("100..200", 1000), 0)\nm := mod_in(n, p)\nc := clamp_in(n, p)\n'
    ns = [0, 50, 99, 100, 250]
    assert values_everywhere(source, "m", [{"n": n} for n in ns]) == [100, 150, 199, 100, 150]
    ns = [50, 100, 150, 199, 200, 1000]
    assert values_everywhere(source, "c", [{"n": n} for n in ns]) == [100, 100, 150, 199, 199, 199]


def test_data_files_by_ordinal(tmp_path) -> None:
    people = tmp_path / "people.csv"
    people.write_text("name,age,city\nalice,30,paris\nbob,25,london\n")
    source = f'input a: u64\nname := csv_field(a, "{people}", "name")\nrow := csv_row(a, "{people}")\nn := csv_row_count("{people}")\n'
    assert values_everywhere(source, "name", [{"a": i} for i in range(3)]) == ["alice", "bob", "alice"]
    assert values_everywhere(source, "row", [{"a": 0}]) == ["alice,30,paris"]
    assert values_everywhere(source, "n", [{"a": 0}]) == [2]
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"user":{"name":"alice"}}\n{"user":{"name":"bob"}}\n')
    source = f'input a: u64\nout := jsonl_field(a, "{rows}", "user.name")\n'
    assert values_everywhere(source, "out", [{"a": 0}, {"a": 1}]) == ["alice", "bob"]


def test_a_path_that_is_not_a_regular_file_is_a_compile_error(tmp_path) -> None:
    import polydat
    import pytest

    with pytest.raises(polydat.PolydatError, match="csv_row: failed to read .*not a regular file"):
        polydat.compile(f'input a: u64\nout := csv_row(a, "{tmp_path}")\n')
    with pytest.raises(polydat.PolydatError, match="No such file"):
        polydat.compile(f'input a: u64\nout := file_line_at(a, "{tmp_path / "missing.txt"}")\n')


def test_tile_encode_as_upstreams_encoder_tests_state() -> None:
    """Upstream's own examples of its hole encoder (a JSON value, a JSON
    string's inside, a format applied first, None at a value position, a
    CSV field, a raw hole), each a `tile_encode` call on a wire."""
    cases = [
        ('extern v: str = "a\\"b"', "json|value|str||", '"a\\"b"'),
        ("extern v: u64 = 7", "json|value|||", "7"),
        ('extern v: str = "x\\ny"', "json|string|||", "x\\ny"),
        ("extern v: f64 = 0.6666666666666666", "json|value||.2|", "0.67"),
        ('extern v: str = "a,b"', "csv|text|||", '"a,b"'),
        ('extern v: str = "a\\"b"', "json|value|||r", 'a"b'),
        ("extern v: u64 = 5", "text|text||03|", "005"),
        ("extern v: u64 = 255", "text|text||x|", "ff"),
        ('extern v: str = "ab"', "text|text||>4|", "  ab"),
        ("extern v: u64 = 3", "text|text|||c", "1"),
    ]
    for extern, spec, expected in cases:
        source = f'input a: u64\n{extern}\nout := tile_encode(v, "{spec}")\n'
        assert values_everywhere(source, "out", [{"a": 0}]) == [expected], spec
    # An absent value (an extern never set) at a JSON value position is `null`.
    for engine in ("p1", "p2", "p3", "mixed"):
        kernel = polydat.compile('input a: u64\nextern v: u64\nout := tile_encode(v, "json|value|||")', engine=engine).kernel()
        kernel.set_inputs(a=0)
        assert kernel.pull("out") == "null", engine


def test_tile_render_renders_a_skeleton_over_encoded_holes() -> None:
    """Upstream's lowering of `tile t : json := {"n": ${a}, "s": "${s}"}`
    with a branch: one tile_encode per hole, one tile_render for the tile."""
    skeleton = json.dumps({"name": "t", "encoding": "json", "ops": [
        {"Static": '{"n": '}, {"Hole": {"Wire": 0}}, {"Static": ', "s": "'}, {"Hole": {"Wire": 1}},
        {"Static": '", "odd": '},
        {"Branch": {"cond": {"Wire": 2}, "then": [{"Static": "true"}], "otherwise": [{"Static": "false"}]}},
        {"Static": "}"},
    ], "children": []})
    literal = skeleton.replace("\\", "\\\\").replace("'", "\\'")
    source = (
        'input a: u64\nextern s: str = "say \\"hi\\""\n'
        'n := tile_encode(a, "json|value|||")\nq := tile_encode(s, "json|string|||")\n'
        'c := tile_encode(a % 2, "json|text|||c")\n'
        f"out := tile_render('{literal}', n, q, c)\n"
    )
    got = values_everywhere(source, "out", [{"a": 4}, {"a": 7}])
    assert got == ['{"n": 4, "s": "say \\"hi\\"", "odd": false}', '{"n": 7, "s": "say \\"hi\\"", "odd": true}']
    assert [json.loads(g)["s"] for g in got] == ['say "hi"', 'say "hi"']


def test_streamer_is_a_producers_value() -> None:
    """`name := for k in 1..4` lowers to `streamer("k in 1..4")`; called by
    name, with the text or upstream's JSON payload, it is the same
    producer (a traversal over it dispenses its tuples)."""
    for call in ('streamer("k in 1..4")', "streamer('{\"text\": \"k in 1..4\", \"ast\": {}}')"):
        source = f"input a: u64\nsweep := {call}\n"
        assert values_everywhere(source, "sweep", [{"a": 0}]) == ["for k in 1..4"], "upstream prints a producer so"
        traversal = polydat.compile(source + "for sweep {\n    x := u64_add(k, 10)\n}").kernel()
        assert [act.pull("x") for act in traversal.traverse(0)] == [11, 12, 13]
    produced = dsl.bind("input a: u64\nsweep := for k in 1..4\n").ir
    assert produced["nodes"] == [{"op": "streamer", "args": [{"const": {"str": "k in 1..4"}}], "span": {"line": 2, "col": 10}}]
