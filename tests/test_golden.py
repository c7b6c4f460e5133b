"""The stability promise, checked (docs/stability.md): every shipped
example's and field module's first 1,000 rows equal the checked-in golden
files under tests/golden; with POLYDAT_LONG=1, the SHA-256 of their first
1,000,000 rows too. A change that moves them fails here until the files are
regenerated on purpose: ``python -m polydat.testing.golden --update``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from polydat.errors import ArgumentError
from polydat.testing import golden

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / golden.GOLDEN_DIR
CASES = golden.cases(ROOT)


def test_every_example_and_field_is_a_case() -> None:
    from polydat.fields import fields

    names = {case.name for case in CASES}
    assert {f"fields/{f.name}" for f in fields()} <= names
    assert {"examples/users", "examples/users_orders/users", "examples/users_orders/orders",
            "examples/shop/shop", "examples/tpch/tpch"} <= names
    # a file of modules only is a library, not a case
    assert "examples/shop/shop.polydat" not in {case.source for case in CASES}


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_first_rows_equal_the_golden_files(case: golden.Case) -> None:
    for table, made in case.csv().items():
        path = GOLDEN / f"{table}.csv"
        assert path.is_file(), f"{table}: no golden file; run {golden.UPDATE_COMMAND}"
        want = path.read_bytes()
        assert want == made, (
            f"{table}: the first {golden.GOLDEN_ROWS} rows moved ({golden._first_difference(want, made)}). "
            f"If the change is meant, run {golden.UPDATE_COMMAND} and add a CHANGELOG entry."
        )


def test_no_golden_file_is_left_without_its_case() -> None:
    made = {table for case in CASES for table in case.tables()}
    stale = sorted(golden._golden_files(GOLDEN) - made)
    assert not stale, f"golden files no case makes: {stale}; run {golden.UPDATE_COMMAND}"
    hashes = json.loads((GOLDEN / golden.HASH_FILE).read_text(encoding="utf-8"))
    assert set(hashes) == made, f"sha256.json differs from the tables: run {golden.UPDATE_COMMAND}"
    programs = {case.name for case in CASES if case.kind != "workload"}
    assert {hashes[name]["rows"] for name in programs} == {golden.HASH_ROWS}
    assert all(0 < entry["rows"] <= golden.HASH_ROWS for entry in hashes.values())


@pytest.mark.long
@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_sha256_of_a_million_rows_equals_the_golden_hash(case: golden.Case) -> None:
    stored = json.loads((GOLDEN / golden.HASH_FILE).read_text(encoding="utf-8"))
    for table, (rows, digest) in case.hashes().items():
        assert stored.get(table) == {"rows": rows, "sha256": digest}, (
            f"{table}: the SHA-256 of the first {rows} rows moved to {digest}. "
            f"If the change is meant, run {golden.UPDATE_COMMAND} and add a CHANGELOG entry."
        )


PROGRAM_CASES = [case for case in CASES if case.kind != "workload"]


@pytest.mark.parametrize("case", PROGRAM_CASES, ids=[case.name for case in PROGRAM_CASES])
def test_every_engine_thread_count_and_split_writes_the_golden_bytes(case: golden.Case) -> None:
    """Same program, same version: the same bytes on every engine, on any
    number of threads, and cut in parts (docs/stability.md)."""
    import io

    from polydat.testing import discovered_engine_names

    want = (GOLDEN / f"{case.name}.csv").read_bytes()
    for engine in discovered_engine_names():
        assert case.csv(engine=engine) == {case.name: want}, f"{case.name} on {engine}"
    assert case.csv(threads=2) == {case.name: want}, f"{case.name} on 2 threads"
    program = case.program()
    parts = io.BytesIO()
    for index, (start, stop) in enumerate([(0, 1), (1, 333), (333, 334), (334, golden.GOLDEN_ROWS)]):
        golden.write_program_rows(program, range(start, stop), parts, header=index == 0)
    assert parts.getvalue() == want, f"{case.name} in parts"


# TPC-H takes half a minute on P1 on the debug build: with the long profile only.
WORKLOAD_CASES = [
    pytest.param(case, id=case.name, marks=[pytest.mark.long] if "tpch" in case.name else [])
    for case in CASES if case.kind == "workload"
]


@pytest.mark.parametrize("case", WORKLOAD_CASES)
def test_a_workload_writes_the_golden_bytes_on_the_interpreter_and_on_two_threads(case: golden.Case) -> None:
    want = {table: (GOLDEN / f"{table}.csv").read_bytes() for table in case.tables()}
    assert case.csv(engine="p1") == want
    assert case.csv(threads=2) == want


def copy_checkout(tmp_path: Path) -> Path:
    """A checkout of ``examples/users.polydat`` and the golden files only
    (the fields are the package's; the other examples' files left out)."""
    (tmp_path / "examples").mkdir()
    shutil.copy(ROOT / "examples" / "users.polydat", tmp_path / "examples")
    shutil.copytree(GOLDEN, tmp_path / golden.GOLDEN_DIR)
    for table in ("examples/shop", "examples/tpch", "examples/users_orders"):
        shutil.rmtree(tmp_path / golden.GOLDEN_DIR / table)
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def test_a_moved_value_fails_until_the_files_are_regenerated(tmp_path: Path) -> None:
    root = copy_checkout(tmp_path)
    program = root / "examples" / "users.polydat"
    program.write_text(program.read_text().replace("mod(hashed, 64)", "mod(hashed, 65)"))
    differences = golden.check(root, only=["examples/users"])
    assert [d.table for d in differences] == ["examples/users"]
    first_row = (GOLDEN / "examples" / "users.csv").read_text().splitlines()[1]
    assert differences[0].problem.startswith(f"line 2 differs:\n    golden: {first_row}\n    now:    0,")
    assert golden.main(["--root", str(root), "--only", "examples/users"]) == 1
    golden.update(root, hashes=False, only=["examples/users"], log=lambda _line: None)
    assert golden.check(root, only=["examples/users"]) == []


def test_update_adds_a_new_example_and_removes_a_deleted_ones_files(tmp_path: Path) -> None:
    root = copy_checkout(tmp_path)
    (root / "examples" / "users.polydat").rename(root / "examples" / "members.polydat")
    differences = {d.table: d.problem for d in golden.check(root, only=())}
    assert differences["examples/members"].startswith("no golden file")
    assert differences["examples/users"] == "a golden file no shipped example or field makes"
    golden.update(root, hashes=False, only=["examples/members"], log=lambda _line: None)
    assert golden.check(root, only=["examples/members"]) == []
    golden.update(root, hashes=False, log=lambda _line: None)  # every case: a file no case makes is removed
    assert not (root / golden.GOLDEN_DIR / "examples" / "users.csv").exists()
    assert golden.check(root) == []
    assert (root / golden.GOLDEN_DIR / "examples" / "members.csv").read_bytes() == \
        (GOLDEN / "examples" / "users.csv").read_bytes()


def test_first_records_keeps_a_quoted_line_break_inside_its_record() -> None:
    import io

    out = io.BytesIO()
    sink = golden._FirstRecords(out, 3)
    for chunk in (b'h\n"a\nb",1\n', b'"x""', b'y"\nlast\nmore\n'):
        sink.write(chunk)
    assert out.getvalue() == b'h\n"a\nb",1\n"x""y"\n'


def test_the_module_finds_the_checkout_from_a_directory_inside_it() -> None:
    assert golden.find_root(ROOT / "tests" / "golden") == ROOT
    with pytest.raises(ArgumentError, match="no polydat checkout"):
        golden.find_root("/")
