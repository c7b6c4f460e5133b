"""Workloads: YAML scope chains (params → workload bindings → phases →
for_each levels → rows), one-to-many tables with globally unique ids and no
orphans, byte-identical output on any thread count, and clear errors."""

from __future__ import annotations

import csv
import io
import subprocess
import sys
from pathlib import Path

import pytest

import polydat
from polydat.workload import Workload, WorkloadError

ROOT = Path(__file__).resolve().parent.parent
SHOP = ROOT / "examples" / "shop" / "shop.yaml"


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "polydat.cli", *args], capture_output=True, text=True, timeout=300)


def read_csv(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def shop_tables(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, str]]]:
    out = tmp_path_factory.mktemp("shop")
    r = cli("run", str(SHOP), "-o", str(out), "-p", "users=300")
    assert r.returncode == 0, r.stderr
    return {name: read_csv(out / f"{name}.csv") for name in ("users", "orders", "order_lines")}


def test_the_example_tables_join_with_no_orphans(shop_tables: dict[str, list[dict[str, str]]]) -> None:
    users, orders, lines = shop_tables["users"], shop_tables["orders"], shop_tables["order_lines"]
    assert len(users) == 300
    user_ids = {u["user_id"] for u in users}
    assert len(user_ids) == 300
    order_ids = [o["order_id"] for o in orders]
    assert len(set(order_ids)) == len(order_ids), "order ids are globally unique"
    assert order_ids == [str(i) for i in range(len(orders))], "and dense"
    assert {o["user_id"] for o in orders} <= user_ids, "every order's user exists"
    assert len({o["user_id"] for o in orders}) < 300, "some users have no order (a Poisson count)"
    per_user = [sum(1 for o in orders if o["user_id"] == u) for u in sorted(user_ids, key=int)]
    assert len(set(per_user)) > 2, "a variable number of orders per user"
    known = set(order_ids)
    assert {line["order_id"] for line in lines} == known, "every line's order exists, every order has lines"
    line_ids = [line["line_id"] for line in lines]
    assert line_ids == [str(i) for i in range(len(lines))], "line ids are dense and unique"
    expected = {o["order_id"]: int(o["line_count"]) for o in orders}
    counted: dict[str, int] = {}
    for line in lines:
        counted[line["order_id"]] = counted.get(line["order_id"], 0) + 1
    assert counted == expected, "an order's lines are as many as its line_count"
    assert all(o["currency"] == "EUR" for o in orders), "a workload-scope name emitted from a phase"
    assert list(orders[0]) == ["order_id", "user_id", "placed_at", "status", "line_count", "currency"], "emit decides"


def test_the_example_is_byte_identical_on_one_and_two_threads(tmp_path: Path) -> None:
    outputs = {}
    for threads in ("1", "2"):
        out = tmp_path / threads
        r = cli("run", str(SHOP), "-o", str(out), "--threads", threads, "-p", "users=2000")
        assert r.returncode == 0, r.stderr
        outputs[threads] = {p.name: p.read_bytes() for p in sorted(out.iterdir())}
    assert outputs["1"].keys() == {"users.csv", "orders.csv", "order_lines.csv"}
    assert outputs["1"] == outputs["2"]
    assert len(outputs["1"]["order_lines.csv"].splitlines()) > 5000


def test_the_api_gives_the_same_tables(shop_tables: dict[str, list[dict[str, str]]]) -> None:
    tables = Workload.load(SHOP).with_params(users=300).tables(threads=2)
    assert tables["orders"].num_rows == len(shop_tables["orders"])
    assert tables["order_lines"].column("order_id").to_pylist()[:3] == [
        int(x["order_id"]) for x in shop_tables["order_lines"][:3]
    ]


def test_formats_jsonl_and_parquet(tmp_path: Path) -> None:
    import json

    import pyarrow.parquet as pq

    r = cli("run", str(SHOP), "-o", str(tmp_path / "j"), "--format", "jsonl", "-p", "users=20")
    assert r.returncode == 0, r.stderr
    first = json.loads((tmp_path / "j" / "orders.jsonl").read_text().splitlines()[0])
    assert set(first) == {"order_id", "user_id", "placed_at", "status", "line_count", "currency"}
    r = cli("run", str(SHOP), "-o", str(tmp_path / "p"), "--format", "parquet", "-p", "users=20")
    assert r.returncode == 0, r.stderr
    table = pq.read_table(tmp_path / "p" / "users.parquet")
    assert table.num_rows == 20 and table.column_names == ["user_id", "name", "email", "signup_date"]


WORKLOAD = """
params:
  users: 5
  scale: 10
bindings: |
  const prefix := "u"
phases:
  users:
    cycles: "{users}"
    bindings: |
      id := cycle
      label := "{prefix}{id}"
  orders:
    for_each: "user in 0..{users}"
    bindings: |
      count := mod(hash(user), 4)
      order_id := row_offset + cycle
      spend := (user + 1) * scale
    cycles: "{count}"
    emit: [user, order_id, spend, prefix]
  pairs:
    for_each:
      - each: "a in 1..3"
        bindings: "twice := a * 2"
      - "b in 0..{twice} where {b} != 1"
    emit: [a, b, twice, ordinal]
"""


def test_a_workload_from_yaml_text(tmp_path: Path) -> None:
    path = tmp_path / "w.yaml"
    path.write_text(WORKLOAD)
    w = Workload.load(path)
    users = w.table("users").to_pylist()
    assert users == [{"id": i, "label": f"u{i}"} for i in range(5)]
    orders = w.table("orders").to_pylist()
    assert [o["order_id"] for o in orders] == list(range(len(orders)))
    assert all(o["spend"] == (o["user"] + 1) * 10 and o["prefix"] == "u" for o in orders)
    assert w.columns("orders") == ["user", "order_id", "spend", "prefix"]
    pairs = w.table("pairs").to_pylist()
    assert pairs == [
        {"a": 1, "b": 0, "twice": 2, "ordinal": 0},
        {"a": 2, "b": 0, "twice": 4, "ordinal": 1},
        {"a": 2, "b": 2, "twice": 4, "ordinal": 2},
        {"a": 2, "b": 3, "twice": 4, "ordinal": 3},
    ]
    bigger = w.with_params(users=7).table("users")
    assert bigger.num_rows == 7
    r = cli("run", str(path), "-o", str(tmp_path / "out"), "-p", "scale=3")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out" / "orders.csv").read_text().splitlines()[1].split(",")[2] == "3"


def test_one_phase_goes_to_stdout(tmp_path: Path) -> None:
    path = tmp_path / "one.yaml"
    path.write_text("params: {n: 3}\nphases:\n  t:\n    cycles: '{n}'\n    bindings: 'x := cycle * 2'\n")
    r = cli("run", str(path))
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["x", "0", "2", "4"]


@pytest.mark.parametrize(
    "text, message",
    [
        ("- a\n- b", "a workload is a mapping"),
        ("params: {n: 1}", "needs phases"),
        ("phases: {p: {cycle: 3}}", "unknown key 'cycle'"),
        ("nonsense: 1\nphases: {p: {}}", "unknown key 'nonsense'"),
        ("params: {n: [1]}\nphases: {p: {}}", "param 'n' is a list"),
        ("phases: {p: {for_each: 3}}", "for_each is a comprehension"),
        ("phases: {p: {cycles: '{nope}', bindings: 'x := 1'}}", "no scope of this chain binds 'nope'"),
        ("phases: {p: {cycles: 'lots', bindings: 'x := 1'}}", "not a count or a range"),
        ("phases: {p: {for_each: 'k in', bindings: 'x := k'}}", "expected a value"),
        ("phases: {p: {bindings: 'x := hsah(1)'}}", "did you mean 'hash'"),
        ("phases: {p: {emit: [nope], bindings: 'x := 1'}}", "'nope' is neither bound"),
        ("phases: {p: {", "not valid YAML"),
    ],
)
def test_bad_workloads_are_clear_errors(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(polydat.PolydatError) as info:
        w = Workload.load(path)
        for phase in w.phases:
            w.write(phase, io.BytesIO())
    assert message in str(info.value)
    r = cli("run", str(path), "-o", str(tmp_path / "o"))
    assert r.returncode == 1 and message in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize(
    "args, message",
    [
        (["-p", "usres=3"], "did you mean 'users'"),
        (["-p", "users=many"], "cannot read 'many'"),
        (["-p", "users"], "expected NAME=VALUE"),
        (["--cycles", "10"], "--cycles does not apply to a workload"),
        ([], "give -o DIR"),
    ],
)
def test_bad_workload_command_lines(args: list[str], message: str) -> None:
    r = cli("run", str(SHOP), *args)
    assert r.returncode == 2 and message in r.stderr, r.stderr


def test_a_workload_error_is_a_workload_error() -> None:
    with pytest.raises(WorkloadError):
        Workload.from_dict({"phases": {"p": {"cycles": True}}})


FANOUT = """
params:
  parents: 40
bindings: |
  const label := "p"
phases:
  counted:
    # the count bound in the level; a const of the level's scope; the
    # ordinal, the row offset and an outer name read by the rows
    for_each:
      - each: "k in 3..{parents}"
        bindings: |
          const salt := hash(k) % 97
          n := mod(hash(k ^ 5), 4)
    cycles: "{n}"
    bindings: |
      id := row_offset + cycle
      x := salt * 1000 + ordinal * 10 + cycle
      tag := "{label}{k}.{cycle}"
    emit: [k, id, x, tag, label, ordinal]
  counted_by_rows:
    # the count bound by the rows program itself (read with cycle 0)
    for_each: "k in 0..{parents} step 3"
    cycles: "{m}"
    bindings: |
      m := mod(hash(k), 3) + cycle
      v := k * 100 + cycle
    emit: [k, m, v]
  fixed:
    # the same rows under every parent, from cycle 2
    for_each: "k in 0..{parents}"
    cycles: "2..5"
    bindings: |
      v := k * 10 + cycle
      offset := row_offset
    emit: [v, offset]
"""


def _walked(monkeypatch: pytest.MonkeyPatch) -> None:
    """Makes every phase walk its scopes one by one (no core fan-out)."""
    from polydat.workload import native

    monkeypatch.setattr(native.NativePhase, "of", classmethod(lambda cls, chain, phase: None))


def _texts(path: Path, threads: int, part: tuple[int, int] | None = None, engine: str = "auto") -> dict[str, bytes]:
    w = Workload.load(path)
    w.engine = engine
    out = {}
    for phase in w.phases:
        buf = io.BytesIO()
        w.write(phase, buf, "csv", threads, part=part)
        out[phase.name] = buf.getvalue()
    return out


def test_one_level_phases_run_in_the_core_as_their_scopes_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "fanout.yaml"
    path.write_text(FANOUT)
    w = Workload.load(path)
    assert all(w.chain().native(p) is not None for p in w.phases), "each phase runs in the core"
    native = {threads: _texts(path, threads) for threads in (1, 2)}
    assert native[1] == native[2], "the same bytes on two threads"
    parts = [_texts(path, 2, (i, 4)) for i in range(4)]
    with monkeypatch.context() as m:
        _walked(m)
        assert Workload.load(path).chain().native(w.phases[0]) is None
        walked = _texts(path, 1)
        walked_parts = [_texts(path, 1, (i, 4)) for i in range(4)]
    assert native[1] == walked, "the rows binding one scope per parent gives"
    for engine in ("p1", "p2", "p3", "mixed"):
        assert _texts(path, 2, engine=engine) == walked, f"the same rows on {engine}"
    for name in walked:
        header = walked[name].split(b"\n", 1)[0] + b"\n"
        assert all(p[name].startswith(header) for p in parts), f"{name}: every part has the header"
        joined = header + b"".join(p[name][len(header):] for p in parts)
        assert joined == walked[name], f"{name}: the parts are the whole"
        assert [p[name] for p in parts] == [p[name] for p in walked_parts], name
    rows = list(csv.DictReader(io.StringIO(walked["counted"].decode())))
    assert [int(r["id"]) for r in rows] == list(range(len(rows))) and len(rows) > 40
    assert {r["ordinal"] for r in rows} < {str(i) for i in range(37)}, "parents with no rows are counted"



TEXT_RUNS = """
params: {parents: 600}
phases:
  lines:
    for_each:
      - each: "k in 0..{parents}"
        bindings: |
          n := mod(hash(k ^ 7), 9)
    cycles: "{n}"
    bindings: |
      name := "{mod(hash(k), 1000)}-{cycle}"
      both := "{name}/{k}"
      gap := maybe(k * 16 + cycle, 0.004, k * 16 + cycle)
    emit: [k, name, both, gap]
"""


def test_text_steps_run_a_chunk_at_a_time_over_parents_runs_as_row_by_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each parent is a run of rows that starts by setting its inputs; the
    # text steps run a chunk of rows at a time, and a chunk with an absent
    # `gap` midway is taken back and run again from the run it started in.
    path = tmp_path / "runs.yaml"
    path.write_text(TEXT_RUNS)
    w = Workload.load(path)
    assert w.chain().native(w.phases[0]) is not None, "the phase runs in the core"
    native = {engine: _texts(path, 1, engine=engine) for engine in ("auto", "mixed", "p3")}
    with monkeypatch.context() as m:
        _walked(m)
        walked = _texts(path, 1, engine="p1")
    rows = list(csv.DictReader(io.StringIO(walked["lines"].decode())))
    gaps = [i for i, r in enumerate(rows) if r["gap"] == ""]
    assert len(rows) > 2048 and gaps and all(i % 1024 > 1 for i in gaps), (len(rows), gaps)
    assert all(r["both"] == f"{r['name']}/{r['k']}" for r in rows)
    for engine, texts in native.items():
        assert texts == walked, engine

ONE_TO_MANY_PARENTS = """
params: {users: 120, max_orders: 6}
phases:
  orders:
    for_each:
      - each: "user in 0..{users}"
        bindings: |
          order_count := mod(hash(user ^ 0x2545f4914f6cdd1d), max_orders)
"""
ONE_TO_MANY_COLUMNS = """      user_id := user
      status := one_of(order_id, "new", "paid", "sent")
      doc := to_json(order_id)
    emit: [order_id, user_id, order_no, status, label, doc]
"""
NESTED = ONE_TO_MANY_PARENTS + """      - "order_no in 0..{order_count}"
    bindings: |
      order_id := ordinal
      label := "u{user}-o{order_no}-{row_offset}"
""" + ONE_TO_MANY_COLUMNS
FLAT = ONE_TO_MANY_PARENTS + """    cycles: "{order_count}"
    bindings: |
      order_id := row_offset + cycle
      order_no := cycle
      label := "u{user}-o{order_no}-{row_offset + cycle}"
""" + ONE_TO_MANY_COLUMNS


def test_a_nested_one_to_many_runs_as_its_flat_form(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # issue 44 item 18: the nested form (a level `k in 0..{n}` of one row
    # each) was walked scope by scope, 45x slower, and wrote every Parquet
    # column optional; it is the flat form (`cycles: "{n}"`).
    pq = pytest.importorskip("pyarrow.parquet")
    nested, flat = tmp_path / "nested.yaml", tmp_path / "flat.yaml"
    nested.write_text(NESTED)
    flat.write_text(FLAT)
    w = Workload.load(nested)
    assert w.chain().native(w.phases[0]) is not None, "the nested form runs in the core"
    texts = {threads: _texts(nested, threads) for threads in (1, 2)}
    assert texts[1] == texts[2] == _texts(flat, 2), "the same rows as the flat form, on any threads"
    with monkeypatch.context() as m:
        _walked(m)
        assert _texts(nested, 1) == texts[1], "the rows the scope walk gives"
        walked_parts = [_texts(nested, 1, (i, 3)) for i in range(3)]
    assert [_texts(nested, 2, (i, 3)) for i in range(3)] == walked_parts
    schemas = []
    for path in (nested, flat):
        out = io.BytesIO()
        Workload.load(path).write("orders", out, "parquet", 2)
        out.seek(0)
        schemas.append(pq.read_schema(out))
    assert schemas[0].equals(schemas[1], check_metadata=True), "the same Parquet schema"
    assert not [f.name for f in schemas[0] if f.nullable], "no row can be None: every column required"


def test_a_row_count_that_is_no_count_is_a_clear_error() -> None:
    from polydat import _core

    root = polydat.compile("const z := 1").kernel()
    iteration = {"k": "u64", "ordinal": "u64", "row_offset": "u64"}
    program = polydat.compile("extern n: i64\nv := k + z", outer=root, iteration=iteration)
    kernel = program._core.kernel(root._core, [("k", 0), ("ordinal", 0), ("row_offset", 0)])
    kernel.set("n", -2)
    with pytest.raises(polydat.PolydatError, match="the row count 'n' is -2, not a count"):
        _core.fanout_rows(kernel, ("k", "ordinal", "row_offset"), 0, 1, 3, "n")
    stream = _core.fanout(kernel, ("k", "ordinal", "row_offset"), 0, 1, 3, "n", ["v"])
    with pytest.raises(polydat.PolydatError, match="the row count 'n' is -2"):
        list(stream)


def test_a_row_count_that_fails_names_its_parent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The core reads a batch's counts in one fill; a count that fails is
    read again parent by parent, so the failure is the one the walk of the
    scopes reports, on any number of threads."""
    path = tmp_path / "failing.yaml"
    path.write_text(
        "phases:\n  p:\n    for_each: 'k in 0..40'\n    cycles: '{n}'\n"
        "    bindings: |\n      n := in_range(k % 23, 0, 21)\n      v := k * 10 + cycle\n    emit: [v]\n"
    )
    w = Workload.load(path)
    assert w.chain().native(w.phases[0]) is not None
    failures = []
    for threads in (1, 2):
        with pytest.raises(polydat.PolydatError) as failed:
            w.write("p", io.BytesIO(), "csv", threads)
        failures.append(str(failed.value))
    with monkeypatch.context() as m:
        _walked(m)
        with pytest.raises(polydat.PolydatError) as walked:
            Workload.load(path).write("p", io.BytesIO(), "csv", 1)
    assert failures[0] == failures[1], failures
    assert "22" in failures[0] and "in_range" in failures[0], failures[0]
    assert "22" in str(walked.value) and "in_range" in str(walked.value), walked.value


def test_a_text_row_count_walks_its_scopes(tmp_path: Path) -> None:
    path = tmp_path / "text.yaml"
    path.write_text(
        "phases:\n  p:\n    for_each: 'k in 0..3'\n    cycles: '{n}'\n"
        "    bindings: |\n      n := \"1..{k + 2}\"\n      v := k * 10 + cycle\n    emit: [v]\n"
    )
    w = Workload.load(path)
    assert w.chain().native(w.phases[0]) is None, "a count given as text (here a range) is read by the walk"
    assert [r["v"] for r in w.table("p").to_pylist()] == [1, 11, 12, 21, 22, 23]


def test_a_volatile_phase_walks_its_scopes(tmp_path: Path) -> None:
    path = tmp_path / "volatile.yaml"
    path.write_text(
        "phases:\n  p:\n    for_each: 'k in 0..3'\n    cycles: 2\n"
        "    bindings: |\n      c := counter(0) + k\n    emit: [k, c]\n"
    )
    w = Workload.load(path)
    assert w.chain().native(w.phases[0]) is None, "a counter would carry on from one parent to the next"
    rows = w.table("p").to_pylist()
    assert [r["k"] for r in rows] == [0, 0, 1, 1, 2, 2]


def test_a_native_phase_writes_a_file_as_it_writes_a_stream(tmp_path: Path) -> None:
    """A table written to a file (its text appended by the core, batch after
    batch) is the text written to any other stream."""
    path = tmp_path / "fanout.yaml"
    path.write_text(FANOUT)
    w = Workload.load(path)
    for phase in w.phases:
        for fmt in ("csv", "jsonl"):
            buf = io.BytesIO()
            w.write(phase, buf, fmt, 2)
            target = tmp_path / f"{phase.name}.{fmt}"
            with open(target, "wb") as f:
                rows = w.write(phase, f, fmt, 2)
            assert target.read_bytes() == buf.getvalue(), (phase.name, fmt)
            assert rows == len(buf.getvalue().splitlines()) - (fmt == "csv")


def test_a_for_each_level_dispenses_upstreams_orders(tmp_path: Path) -> None:
    # A workload's levels open their comprehensions as Kernel.for_each does:
    # extrema/1 keeps the whole corner stratum, lhs takes its seed.
    path = tmp_path / "orders.yaml"
    path.write_text(
        "phases:\n"
        "  corners:\n    for_each: 'a in 0..3, b in 0..3 order extrema/1'\n    emit: [a, b]\n"
        "  diagonal:\n    for_each: 'a in 0..3, b in 0..3 order antidiagonal/3'\n    emit: [a, b]\n"
        "  sampled:\n    for_each: 'a in 0..40 order lhs(seed=2, n=3)'\n    emit: [a]\n"
    )
    w = Workload.load(path)
    assert [(r["a"], r["b"]) for r in w.table("corners").to_pylist()] == [(0, 0), (0, 2), (2, 0), (2, 2)]
    assert [(r["a"], r["b"]) for r in w.table("diagonal").to_pylist()] == [(2, 2), (1, 2), (2, 1)]
    root = polydat.compile("x := 1").kernel()
    lhs = [k.iteration["a"] for k in root.for_each("a in 0..40 order lhs(seed=2, n=3)", "y := 1")]
    assert [r["a"] for r in w.table("sampled").to_pylist()] == lhs and len(lhs) == 3
