"""Text columns that their step writes in place.

In ``generate``'s sweep path, a text output no other step reads, whose
by-bytes form only appends, is written straight into its column's buffer
(no copy through the scratch). These tests run every library node with a
``str`` output over many rows — so the path is taken after the first row —
on every compiled engine and compare the columns with P1's; then the
cases the path must get right: a failure after some of a row's text was
written, the size limit counted per value, columns that share an output,
string outputs another step reads, and several threads.
"""

from __future__ import annotations

import pyarrow as pa
import pytest

import polydat
import polydat.testing as pt
from polydat.testing.nodes import dsl_literal

ROWS = 300
COMPILED = [e for e in pt.engines() if e.name not in ("p1", "p1/fresh")]


def _text_nodes() -> list[str]:
    """Library nodes with a `str` output and a u64 input to sweep."""
    names = []
    for node in pt.library_nodes():
        ports = node["outputs"].get("ports") or []
        if node["purity"] == "pure" and any(t == "str" for _, t in ports):
            names.append(node["name"])
    return names


def _coordinates(source: str) -> list[str]:
    """The u64 coordinate inputs a corner program declares."""
    names = []
    for line in source.splitlines():
        if line.startswith("input "):
            decls = line[len("input "):].strip("() ")
            names += [d.split(":")[0].strip() for d in decls.split(",") if d.split(":")[1].strip() == "u64"]
    return names


def _swept_text_inputs(case: pt.NodeCase, coordinate: str) -> str:
    """`case`'s program with each `str` extern replaced by a pick among its
    corner values by the coordinate, so the node runs in the per-row sweep."""
    lines = []
    for line in case.source.splitlines():
        parts = line.split()
        if line.startswith("extern ") and parts[2] == "str":
            name = parts[1].rstrip(":")
            values = sorted({s.write[name] for s in case.steps
                             if isinstance(s.write, dict) and isinstance(s.write.get(name), str)})
            picks = ", ".join(dsl_literal(v, "str") for v in values or [""])
            line = f"{name} := one_of({coordinate}, {picks})"
        lines.append(line)
    return "\n".join(lines)


def _runs(name: str) -> list[tuple[str, str, dict, int]]:
    """(source, coordinate, other inputs, first row) for a few corner steps of `name`."""
    case = pt.node_case(name)
    coordinates = _coordinates(case.source)
    if not coordinates:
        return []
    coordinate = coordinates[0]
    source = _swept_text_inputs(case, coordinate)
    runs = []
    for step in case.steps:
        write = step.write if isinstance(step.write, dict) else {}
        write = {k: v for k, v in write.items() if f"{k} := one_of(" not in source}
        if any(v is None for v in write.values()):
            continue
        first = min(int(write.get(coordinate, 0)), 2**64 - ROWS)
        others = {k: v for k, v in write.items() if k != coordinate}
        runs.append((source, coordinate, others, first))
        if len(runs) == 4:
            break
    return runs


def _columns(source: str, engine: dict, coordinate: str, inputs: dict, first: int, threads: int = 1):
    """The arrow columns of `generate`, or the error it raised."""
    try:
        prog = polydat.compile(source, **engine)
        table = prog.generate(range(first, first + ROWS), inputs=inputs, coordinate=coordinate,
                              format="arrow", threads=threads)
        return {name: table.column(name).to_pylist() for name in table.column_names}
    except polydat.PolydatError as e:
        return (type(e).__name__, str(e))


TEXT_NODES = _text_nodes()


def test_the_text_nodes_are_found() -> None:
    assert {"printf", "one_of", "str_concat", "zero_pad_u64", "lorem_sentence"} <= set(TEXT_NODES)
    assert len(TEXT_NODES) > 20


@pytest.mark.parametrize("node", TEXT_NODES)
def test_text_node_columns_agree_with_p1(node: str) -> None:
    runs = _runs(node)
    if not runs:
        pytest.skip(f"{node}'s corner program has no u64 input to sweep")
    for source, coordinate, inputs, first in runs:
        want = _columns(source, {"engine": "p1"}, coordinate, inputs, first)
        for spec in COMPILED:
            got = _columns(source, spec.options, coordinate, inputs, first)
            assert got == want, f"{node} on {spec.name} from row {first}"


MIDWAY = """
input cycle: u64
n := mod(cycle, 7)
big := printf("{}:{:08}|{}", n, cycle, xxhash3(cycle))
"""


@pytest.mark.parametrize("spec", COMPILED, ids=lambda s: s.name)
def test_a_value_over_the_limit_fails_as_on_p1_after_rows_went_in_place(spec: pt.EngineSpec) -> None:
    # Rows 0.. fit in 24 bytes until the hash is long enough: the failing
    # row has already written part of its text when printf fails.
    before = polydat.max_value_bytes()
    polydat.set_max_value_bytes(24)
    try:
        want = _columns(MIDWAY, {"engine": "p1"}, "cycle", {}, 0)
        got = _columns(MIDWAY, spec.options, "cycle", {}, 0)
    finally:
        polydat.set_max_value_bytes(before)
    assert isinstance(want, tuple) and "exceeds the limit of 24 bytes" in want[1], want
    assert got == want


def test_the_limit_counts_each_value_not_the_column() -> None:
    # The column holds far more than the limit; each value is within it.
    # (Were the limit counted over the column, the sweep would fail and the
    # rows go through the scratch, with the same values: the Rust test
    # forms_that_append_write_the_same_value_after_earlier_text pins the count.)
    before = polydat.max_value_bytes()
    polydat.set_max_value_bytes(64)
    try:
        prog = polydat.compile('input cycle: u64\ns := printf("row {:020}", cycle)', engine="p3")
        table = prog.generate(range(10_000), format="arrow")
    finally:
        polydat.set_max_value_bytes(before)
    column = table.column("s")
    assert column.to_pylist()[9_999] == f"row {9_999:020}"
    assert sum(len(v) for v in column.to_pylist()) > 64 * 100


SHARED = """
input cycle: u64
a := hash(cycle)
label := printf("id-{}", mod(a, 1000))
shout := str_upper(label)
pick := one_of(a, "red", "green", "blue")
"""


@pytest.mark.parametrize("spec", COMPILED, ids=lambda s: s.name)
def test_read_and_repeated_text_outputs(spec: pt.EngineSpec) -> None:
    # `label` is read by `shout` (so it goes through the scratch); `pick`
    # is asked for twice; `shout` goes in place.
    outs = ["label", "shout", "pick", "pick", "a"]
    p1 = polydat.compile(SHARED, engine="p1").generate(range(5, 5 + ROWS), outputs=outs)
    prog = polydat.compile(SHARED, **spec.options)
    for threads in (1, 2):
        got = prog.generate(range(5, 5 + ROWS), outputs=outs, format="arrow", threads=threads)
        assert got.num_columns == 5
        for k, name in enumerate(outs):
            assert got.column(k).to_pylist() == list(p1[name]), (name, threads)
    assert [prog.kernel().pull("shout")] == [polydat.compile(SHARED, engine="p1").kernel().pull("shout")]


@pytest.mark.parametrize("spec", COMPILED, ids=lambda s: s.name)
def test_a_kernel_reads_correctly_after_an_in_place_fill(spec: pt.EngineSpec) -> None:
    # generate() on a bound kernel leaves it at the last row; a later read
    # recomputes the text the fill wrote only into the column.
    prog = polydat.compile(SHARED, **spec.options)
    kernel = prog.kernel()
    kernel.set_inputs(cycle=3)
    assert kernel.pull("pick") in ("red", "green", "blue")
    column = kernel.generate(range(100, 100 + ROWS), outputs=["pick", "shout"], format="arrow")
    assert isinstance(column, pa.Table)
    kernel.set_inputs(cycle=7)
    p1 = polydat.compile(SHARED, engine="p1").kernel()
    p1.set_inputs(cycle=7)
    assert (kernel.pull("pick"), kernel.pull("shout")) == (p1.pull("pick"), p1.pull("shout"))
