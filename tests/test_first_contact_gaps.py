"""Gaps a new user met on the default path: an unrelated extern refusing a
run, a Parquet file holding CSV, suggestions that skip the user's own names,
cycle counts and output names the CLI would not take, and the example that
joins two tables."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest
from test_cli import EXAMPLE, ROOT, polydat

import polydat as pd
from polydat import WriteError

TWO_PARTS = """input cycle: u64
extern region: str
extern tag: str
id := hash(cycle)
key := "{region}-{id}"
checked := required(tag)
"""


# --- an extern without a default refuses only the outputs that read it -------


@pytest.mark.parametrize("engine", ["p1", "p2", "p3", "auto"])
def test_an_extern_no_requested_output_reads_needs_no_value(engine: str) -> None:
    prog = pd.compile(TWO_PARTS, engine=engine)
    ids = prog.generate(range(3), outputs=["id"])["id"]
    kernel = prog.kernel()
    assert ids.tolist() == [(kernel.set_inputs(c), kernel.pull("id"))[1] for c in range(3)]
    assert sum(batch.num_rows for batch in prog.iter_batches(range(5), outputs=["id"])) == 5
    with pytest.raises(WriteError, match="input 'region' has no value") as info:
        prog.generate(range(3), outputs=["id", "key"])
    assert "'tag'" not in str(info.value), "only what the requested outputs read is named"
    with pytest.raises(WriteError, match="input 'tag' has no value"):
        prog.generate(range(3), outputs=["checked"])
    with pytest.raises(WriteError, match="input 'region' has no value"):
        prog.generate(range(3), outputs=["region"])
    assert prog.generate(range(2), outputs=["key"], inputs={"region": "eu"})["key"].tolist()[0].startswith("eu-")


def test_an_extern_read_when_the_kernel_starts_is_still_needed() -> None:
    """A ``const`` capture runs once per kernel, before any row, whatever the
    outputs: what it reads needs a value for every run."""
    prog = pd.compile(TWO_PARTS + "const first := required(tag)\n")
    with pytest.raises(WriteError, match="input 'tag' has no value"):
        prog.generate(range(3), outputs=["id"])


def test_the_command_line_runs_outputs_that_need_no_extern(tmp_path: Path) -> None:
    src = tmp_path / "two.polydat"
    src.write_text(TWO_PARTS)
    r = polydat("run", str(src), "--cycles", "3", "--outputs", "id")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == "cycle,id" and len(r.stdout.splitlines()) == 4
    r = polydat("run", str(src), "--cycles", "3")
    assert r.returncode == 1 and "inputs 'region', 'tag' have no value" in r.stderr


# --- the format of -o PATH ------------------------------------------------------


def test_the_output_format_follows_the_extension(tmp_path: Path) -> None:
    out = tmp_path / "users.parquet"
    r = polydat("run", str(EXAMPLE), "--cycles", "100", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert pq.read_table(out).num_rows == 100
    jsonl = tmp_path / "users.jsonl"
    assert polydat("run", str(EXAMPLE), "--cycles", "2", "-o", str(jsonl)).returncode == 0
    assert jsonl.read_text().startswith('{"cycle": 0, ')
    other = tmp_path / "users.txt"
    assert polydat("run", str(EXAMPLE), "--cycles", "2", "-o", str(other), "--format", "csv").returncode == 0
    assert other.read_text().startswith("cycle,"), "an extension naming no format takes --format"
    parts = tmp_path / "rows.parquet"
    assert polydat("run", str(EXAMPLE), "--cycles", "100", "--parts", "2", "-o", str(parts)).returncode == 0
    assert pq.read_table(tmp_path / "rows-00001-of-00002.parquet").num_rows == 50


@pytest.mark.parametrize(
    ("name", "fmt", "message"),
    [
        ("users.parquet", "csv", "--format csv contradicts -o"),
        ("users.csv", "jsonl", "--format jsonl contradicts -o"),
        ("users.jsonl", "parquet", "--format parquet contradicts -o"),
        ("users.json", None, "JSON Lines"),
        ("users.xlsx", None, "no output format writes .xlsx files"),
        ("users.txt", None, ".csv (csv), .jsonl (jsonl)"),
    ],
)
def test_a_format_that_contradicts_the_extension_is_refused(
    tmp_path: Path, name: str, fmt: str | None, message: str
) -> None:
    out = tmp_path / name
    r = polydat("run", str(EXAMPLE), "--cycles", "3", "-o", str(out), *(["--format", fmt] if fmt else []))
    assert r.returncode == 2 and message in r.stderr, r.stderr
    assert list(tmp_path.iterdir()) == []


def test_an_explicit_format_agreeing_with_the_extension_is_fine(tmp_path: Path) -> None:
    out = tmp_path / "users.PARQUET"
    assert polydat("run", str(EXAMPLE), "--cycles", "3", "--format", "parquet", "-o", str(out)).returncode == 0
    assert pq.read_table(out).num_rows == 3


# --- the example that joins two tables ----------------------------------------


def test_users_orders_runs_and_every_order_has_its_user(tmp_path: Path) -> None:
    """The two tables of ``examples/users_orders``, written as its header says:
    every order's ``user_id`` is a row of the users table, and the order's
    ``customer_email`` is that user's email (recomputed, never joined)."""
    example = ROOT / "examples" / "users_orders"
    users, orders = tmp_path / "users.parquet", tmp_path / "orders.parquet"
    r = polydat("run", str(example / "users.polydat"), "--cycles", "100K", "-o", str(users))
    assert r.returncode == 0, r.stderr
    r = polydat("run", str(example / "orders.polydat"), "--cycles", "20K", "-o", str(orders))
    assert r.returncode == 0, r.stderr
    user_rows = pq.read_table(users, columns=["user_id", "email_address"]).to_pydict()
    order_rows = pq.read_table(orders, columns=["order_id", "user_id", "customer_email"]).to_pydict()
    email_of = dict(zip(user_rows["user_id"], user_rows["email_address"]))
    assert len(email_of) == 100_000 and len(order_rows["order_id"]) == 20_000
    missing = [u for u in order_rows["user_id"] if u not in email_of]
    assert missing == [], f"{len(missing)} orders name a user the users table does not have"
    assert [email_of[u] for u in order_rows["user_id"]] == order_rows["customer_email"]
    assert len(set(order_rows["user_id"])) > 1000, "the orders spread over many users"


# --- "did you mean" prefers the program's own names ----------------------------


@pytest.mark.parametrize(
    ("source", "typo", "meant"),
    [
        ("input id: u64\nc := country(idd)\n", "idd", "id"),  # not the node `add`
        ('input cycle: u64\nname := full_name(cycle)\ngreeting := "hi {nmae}"\n', "nmae", "name"),  # not `max`
        ("input cycle: u64\nuser_id := hash(cycle)\nb := mod(user_idd, 64)\n", "user_idd", "user_id"),
        ("input cycle: u64\nb := hsah(cycle)\n", "hsah", "hash"),  # a node, when no own name is close
    ],
)
def test_did_you_mean_prefers_the_names_in_scope(source: str, typo: str, meant: str) -> None:
    hints = [d.hint for d in pd.check(source) if typo in d.message]
    assert hints == [f"did you mean '{meant}'?"], pd.check(source)


def test_the_command_line_asks_the_same_rule() -> None:
    r = polydat("run", str(EXAMPLE), "--cycles", "3", "--outputs", "lable")
    assert r.returncode == 2 and "did you mean 'label'?" in r.stderr


# --- command-line arguments a user tries -------------------------------------


@pytest.mark.parametrize(
    ("text", "count"),
    [("1e6", 10**6), ("1.5M", 1_500_000), ("2.5e3", 2500), ("0.5Ki", 512), ("1E6", 10**6), ("1M", 10**6)],
)
def test_cycle_counts_take_decimals_and_exponents(text: str, count: int) -> None:
    from polydat.cli import parse_count

    assert parse_count(text) == count


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1.5", "not a whole number of cycles"),
        ("1e-3", "not a whole number of cycles"),
        ("nan", "not a cycle number"),
        ("1e999999999", "does not fit in 64 bits"),  # refused before a billion-digit number is built
        ("1e20", "does not fit in 64 bits"),
    ],
)
def test_cycle_counts_that_are_not_whole_are_usage_errors(text: str, message: str) -> None:
    r = polydat("run", str(EXAMPLE), "--cycles", text)
    assert r.returncode == 2 and message in r.stderr and r.stdout == "", r.stderr


def test_the_command_line_takes_an_exponent_count() -> None:
    r = polydat("run", str(EXAMPLE), "--cycles", "1e1", "--outputs", "user_id")
    assert r.returncode == 0, r.stderr
    assert len(r.stdout.splitlines()) == 11


def test_outputs_take_input_names_as_generate_does(tmp_path: Path) -> None:
    src = tmp_path / "p.polydat"
    src.write_text('input cycle: u64\nextern region: str = "eu"\nh := mod(hash(cycle), 100)\n')
    r = polydat("run", str(src), "--cycles", "3", "--outputs", "h,region")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["cycle,h,region", "0,35,eu", "1,65,eu", "2,10,eu"]
    cols = pd.compile_file(src).generate(range(3), outputs=["h", "region"])
    assert [str(v) for v in cols["h"]] == ["35", "65", "10"] and list(cols["region"]) == ["eu"] * 3
    r = polydat("run", str(src), "--cycles", "2", "--outputs", "h,cycle")
    assert r.stdout.splitlines() == ["h,cycle", "35,0", "65,1"], "the coordinate placed by --outputs, once"
    r = polydat("run", str(src), "--cycles", "2", "--outputs", "regoin")
    assert r.returncode == 2 and "did you mean 'region'?" in r.stderr


def test_a_full_device_names_the_path_and_is_a_runtime_failure() -> None:
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    for fmt in ("csv", "parquet"):
        r = polydat("run", str(EXAMPLE), "--cycles", "1M", "--format", fmt, "-o", "/dev/full")
        assert r.returncode == 1, r.stderr
        assert r.stderr.strip() == "polydat: -o /dev/full: No space left on device"


def test_a_full_disk_under_a_file_removes_the_partial_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import errno
    import os

    from polydat import cli

    def no_space(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(cli.os, "fsync", no_space)
    out = tmp_path / "rows.csv"
    assert cli.main(["run", str(EXAMPLE), "--cycles", "100", "-o", str(out), "--progress", "never"]) == 1
    assert f"-o {out}: No space left on device" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_engine_and_threads_are_documented_in_the_help() -> None:
    text = " ".join(polydat("run", "--help").stdout.split())
    assert "--engine ENGINE the engine that runs the program: auto (the default" in text
    assert "p3/raw" in text and "mixed" in text
    assert "--threads N worker threads, 1..256 (default 1;" in text
