"""Cursors: `cursor name = range(start, end) [over spec]`, the slice an
`over` spec narrows it to, and its fields read as `name.cursor.idx` (wires
`name__cursor__idx`), on every engine and inside for bodies."""

from __future__ import annotations

import json

import pytest

import polydat
import polydat.testing as pt
from polydat import CompileError

CURSORS = """
input cycle: u64
cursor users = range(0, 1000000)
cursor q = range(0, 100) over "25%..75%"
i := q.cursor.idx
ratio := (i as f64) / 100.0
span := q.cursor.end_ordinal - q.cursor.start_ordinal
where := q.cursor
pct := q.cursor.start_pct
"""


def test_a_cursor_is_an_ordinal_over_its_slice() -> None:
    kernel = polydat.compile(CURSORS).kernel()
    kernel.set_inputs(cycle=3)
    values = kernel.eval()
    assert values["users"] == 3 and values["users__ordinal"] == 3
    assert values["q"] == 28, "the slice starts at 25: the ordinal is 25 + cycle"
    assert (values["i"], values["ratio"], values["span"]) == (0, 0.0, 50)
    # The cursor's slice is a partition (the partition family's JSON form): 0 of 1.
    assert json.loads(values["where"]) == {
        "idx": 0, "count": 1, "start_ord": 25, "end_ord": 75, "start_pct": 25.0, "end_pct": 75.0,
        "base_extent": 100, "cardinality": 50,
    }
    assert values["pct"] == 25.0 and values["q__cursor__end_pct"] == 75.0
    assert values["q__cursor__partition_count"] == 1


def test_every_engine_agrees_on_cursors() -> None:
    pt.assert_engines_agree(CURSORS, [0, 1, 49, 50, 1 << 40])


def test_over_reads_a_spec_at_run_time() -> None:
    kernel = polydat.compile('input cycle\nextern part: str = "0..10"\ncursor c = range(100, 200) over part').kernel()
    kernel.set_inputs(cycle=4)
    assert kernel.pull("c") == 104
    kernel.set("part", "0.5..1.0")
    assert kernel.pull("c") == 154
    kernel.set("part", "20%,30%,*")
    with pytest.raises(polydat.EvalError) as info:
        kernel.pull("c")
    assert "cursor 'c' resolves to 3 partitions; pick one by its index, 0..2" in str(info.value)
    kernel.set_cursor("c", 1)
    assert kernel.pull("c") == 124, "partition 1 of 20%,30%,* over 100..200 starts at 120"
    kernel.set("part", "60%..10%")
    with pytest.raises(polydat.EvalError) as info:
        kernel.pull("c")
    assert "holds no ordinal" in str(info.value)


def test_a_cursor_in_a_for_body_narrows_to_its_element() -> None:
    source = """
    input cycle
    for part in '0..50%', '50%..100%' {
        input cycle
        cursor rows = range(0, 1000) over part
        row := rows
        first := rows.cursor.start_ordinal
    }
    """
    kernel = polydat.compile(source).kernel()
    acts = list(kernel.traverse(0))
    for act in acts:
        act.set_inputs(cycle=2)
    assert [(a.pull("first"), a.pull("row")) for a in acts] == [(0, 2), (500, 502)]


def test_a_cursor_over_a_partition_covers_it_and_partition_nodes_read_it() -> None:
    source = """
    input cycle
    parts := partitions("20%,30%,*", 1000000)
    second := partition_at(parts, 1)
    cursor q = range(0, 1000000) over second
    start := q.cursor.start_ordinal
    end := q.cursor.end_ordinal
    size := cardinality(q.cursor)
    slot := mod_in(cycle, q.cursor)
    which := q.cursor.idx
    of := q.cursor.partition_count
    """
    # "20%,30%,*" over 1,000,000 ordinals: [0, 200000), [200000, 500000),
    # [500000, 1000000); the cursor covers the second, 300,000 ordinals, so
    # mod_in wraps cycle 300,000 back to the partition's start.
    kernel = polydat.compile(source).kernel()
    for cycle, slot in ((0, 200000), (1, 200001), (299999, 499999), (300000, 200000)):
        kernel.set_inputs(cycle=cycle)
        got = kernel.eval()
        assert (got["start"], got["end"], got["size"], got["slot"]) == (200000, 500000, 300000, slot)
        assert (got["which"], got["of"], got["q"]) == (1, 3, 200000 + cycle)
    pt.assert_engines_agree(source, [0, 1, 299999, 300000])
    outside = 'input cycle\ncursor q = range(0, 100) over partition_at(partitions("*/2", 1000), 1)'
    with pytest.raises(CompileError) as info:
        polydat.compile(outside)
    assert "the partition 500..1000 lies outside the cursor's range 0..100" in info.value.message
    with pytest.raises(CompileError) as info:
        polydat.compile("input cycle\ncursor q = range(0, 100) over 5")
    assert "a cursor's `over` takes a partition spec (str), a partition or a partition list (json), not u64" in info.value.message


def test_cursor_errors() -> None:
    with pytest.raises(CompileError) as info:
        polydat.compile("cursor q = hash(1)")
    assert info.value.message == "a cursor's constructor is range(start, end)"
    assert (info.value.line, info.value.col) == (1, 12)
    with pytest.raises(CompileError) as info:
        polydat.compile('input cycle\ncursor q = range(0, 10) over "5..2"')
    assert "holds no ordinal" in info.value.message, "a constant spec fails at compile time"
    with pytest.raises(CompileError) as info:
        polydat.compile("m(a: u64) -> (b: u64) := {\n  cursor q = range(0, a)\n  b := q\n}\nx := m(1)")
    assert "a cursor is not allowed inside module 'm'" in info.value.message


MULTI = """
input cycle: u64
cursor q = range(0, 1000000) over "20%,30%,*"
lo := q.cursor.start_ordinal
hi := q.cursor.end_ordinal
i := q.cursor.idx
n := q.cursor.partition_count
"""


def test_a_cursor_over_several_partitions_covers_the_one_the_host_picks() -> None:
    # Upstream's example: over "20%,30%,*", set_cursor with partition 1 gives [200000, 500000).
    program = polydat.compile(MULTI)
    assert "q__partition" in program.inputs
    kernel = program.kernel()
    kernel.set_inputs(cycle=7)
    with pytest.raises(polydat.EvalError) as info:
        kernel.pull("q")
    assert "cursor 'q' resolves to 3 partitions; pick one by its index, 0..2" in str(info.value)
    kernel.set_cursor("q", 1)
    assert (kernel.pull("lo"), kernel.pull("hi"), kernel.pull("i"), kernel.pull("n")) == (200000, 500000, 1, 3)
    assert kernel.pull("q") == 200007
    kernel.set_cursor("q", 2)
    assert (kernel.pull("lo"), kernel.pull("hi")) == (500000, 1000000)
    kernel.set_cursor("q", 3)
    with pytest.raises(polydat.EvalError) as info:
        kernel.pull("q")
    assert "partition 3 is out of range (0..2)" in str(info.value)


@pytest.mark.parametrize("engine", polydat._core.engines())
def test_every_engine_covers_the_picked_partition(engine: str) -> None:
    program = polydat.compile(MULTI, engine=engine)
    columns = program.generate(3, inputs={"q__partition": 2})
    assert list(columns["q"]) == [500000, 500001, 500002]
    assert set(columns["i"]) == {2} and set(columns["n"]) == {3}


def test_a_cursor_over_a_recipe_or_a_partition_list_picks_by_index() -> None:
    kernel = polydat.compile('input cycle\ncursor q = range(0, 100) over "*/4"').kernel()
    kernel.set_cursor("q", 3)
    assert kernel.pull("q") == 75
    source = 'input cycle\nparts := partitions("linear:4", 1000)\ncursor q = range(0, 1000) over parts'
    kernel = polydat.compile(source).kernel()
    kernel.set_cursor("q", 0)
    assert kernel.pull("q__cursor__end_ordinal") == 250
    kernel.set_cursor("q", 3)
    assert kernel.pull("q__cursor__start_ordinal") == 750


def test_a_one_range_cursor_has_no_partition_to_pick() -> None:
    program = polydat.compile('input cycle\ncursor q = range(0, 100) over "0..50%"')
    assert program.inputs == ["cycle"], "a one-range over declares no partition extern"
    with pytest.raises(polydat.WriteError) as info:
        program.kernel().set_cursor("q", 0)
    assert "a one-range `over` has no partition to pick" in str(info.value)


def test_a_multi_partition_cursor_round_trips_through_fmt() -> None:
    from polydat.dsl.formatter import format_source

    source = 'input cycle\ncursor q = range(0, 1000) over "*/4"\n'
    assert format_source(source) == source
