"""emit_row: side-channel rows a program emits while it runs, handed to the
caller of generate / iter_batches as a second table (`emitted=True`)."""

from __future__ import annotations

import pytest

import polydat

EMITTING = """
input cycle: u64
id := mod(hash(cycle), 1000)
name := "user-{id}"
__emit := emit_row("jsonl", "cycle,id,name", cycle, id, name)
"""

UPSTREAM_ROWS = [  # upstream's embedding guide, the emit example
    '{"cycle":0,"id":535,"name":"user-535"}',
    '{"cycle":1,"id":465,"name":"user-465"}',
    '{"cycle":2,"id":110,"name":"user-110"}',
]


@pytest.mark.parametrize("engine", ["p1", "p2", "p3", "mixed"])
def test_generate_hands_back_the_emitted_rows(engine: str) -> None:
    program = polydat.compile(EMITTING, engine=engine)
    columns, emitted = program.generate(range(3), emitted=True)
    assert list(columns) == ["id", "name"], "the emit binding runs but is no column"
    assert list(emitted["row"]) == UPSTREAM_ROWS
    assert program.generate(range(3)).keys() == columns.keys(), "without emitted, just the columns"


def test_rows_keep_row_order_across_threads_and_batches() -> None:
    program = polydat.compile(EMITTING)
    serial = list(program.generate(range(5000), emitted=True)[1]["row"])
    _, threaded = program.generate(range(5000), threads=3, emitted=True)
    assert list(threaded["row"]) == serial
    pairs = list(program.iter_batches(range(5000), batch_rows=1024, threads=2, emitted=True))
    assert [row for _batch, rows in pairs for row in rows.column("row").to_pylist()] == serial
    assert pairs[0][0].schema.names == ["id", "name"]
    table, rows = program.generate(range(5000), format="arrow", emitted=True)
    assert table.column_names == ["id", "name"] and rows.column("row").to_pylist() == serial


def test_formats_and_a_kernel_of_a_scope() -> None:
    source = """
    input cycle
    v := cycle * 2
    s := "a,b"
    __m := emit_row("map", "v,s", v, s)
    __c := emit_row("csv", "v,s", v, s)
    __t := emit_row("text", "v", v)
    """
    _, emitted = polydat.compile(source).generate(range(1, 2), outputs=["v"], emitted=True)
    assert sorted(emitted["row"]) == sorted(["v=2 s=a,b", '2,"a,b"', "2"])
    parent = polydat.compile("extern tag: str = \"t\"").kernel()
    child = polydat.compile('input cycle\n__e := emit_row("csv", "tag,cycle", tag, cycle)', outer=parent).kernel()
    assert list(child.generate(range(2), emitted=True)[1]["row"]) == ["t,0", "t,1"]


ENGINES = ["p1", "p2", "p3", "mixed"]


@pytest.mark.parametrize("engine", ENGINES)
def test_an_emit_row_of_constants_emits_one_row_per_row_whatever_the_threads(engine: str) -> None:
    # issue 44 item 2: an emit_row over an extern (or a literal) ran once per
    # worker's kernel, so the count followed the thread count.
    program = polydat.compile('input cycle: u64\nextern e: u64 = 5\nr := emit_row("csv", "b", e)\n'
                              'k := emit_row("text", "k", 7)', engine=engine)
    for threads in (1, 2, 3, 7):
        _, emitted = program.generate(range(3000), threads=threads, emitted=True)
        assert list(emitted["row"]) == ["5", "7"] * 3000, threads
    pairs = program.iter_batches(range(3000), batch_rows=256, threads=3, emitted=True)
    assert [row for _batch, rows in pairs for row in rows.column("row").to_pylist()] == ["5", "7"] * 3000
    kernel = program.kernel()
    assert len(kernel.generate(range(10), threads=2, emitted=True)[1]["row"]) == 20


@pytest.mark.parametrize("engine", ENGINES)
def test_rows_of_one_cycle_come_in_program_order_whatever_outputs_names(engine: str) -> None:
    # issue 44 item 2: a row's emitted rows came in the order the requested
    # outputs' cones reached them.
    program = polydat.compile(
        'input cycle: u64\n__a := emit_row("csv", "a", cycle)\n__b := emit_row("csv", "b", cycle * 10)\n'
        "x := __b + 1\ny := cycle",
        engine=engine,
    )
    expected = ["0", "0", "1", "10", "2", "20"]
    for outputs in (None, ["x"], ["y"], ["__b", "__a"], ["y", "x"]):
        columns, emitted = program.generate(range(3), outputs=outputs, emitted=True)
        assert list(emitted["row"]) == expected, outputs
        assert list(columns) == (outputs or ["x", "y"]), "the columns asked for, in their order"
        table, rows = program.generate(range(3), outputs=outputs, format="arrow", emitted=True)
        assert rows.column("row").to_pylist() == expected and table.column_names == (outputs or ["x", "y"])
