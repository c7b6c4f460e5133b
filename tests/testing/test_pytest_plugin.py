"""The pytest plugin, loaded as an installed polydat gives it: through the
``pytest11`` entry point pyproject.toml declares (an installed
distribution's ``entry_points.txt`` on the path of a pytester run)."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from polydat.testing import discovered_engine_names

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]

USERS = """\
input cycle: u64
hashed := hash(cycle)
user_id := mod(hashed, 1000000)
bucket := mod(hashed, 64)
label := "user-{user_id}"
"""


def entry_points() -> dict[str, str]:
    """The ``pytest11`` entry points of pyproject.toml."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return dict(project["entry-points"]["pytest11"])


@pytest.fixture()
def installed(pytester: pytest.Pytester) -> pytest.Pytester:
    """A pytester whose runs find polydat's pytest11 entry point the way an
    installed wheel declares it (a ``.dist-info`` with ``entry_points.txt``),
    and a ``users.polydat`` in its rootdir."""
    site = pytester.mkdir("site")
    info = site / "polydat_plugin_probe-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: polydat-plugin-probe\nVersion: 1.0\n")
    lines = [f"{name} = {module}" for name, module in entry_points().items()]
    (info / "entry_points.txt").write_text("[pytest11]\n" + "\n".join(lines) + "\n")
    pytester.syspathinsert(site)
    pytester.makefile(".polydat", users=USERS)
    pytester.makeini("[pytest]\n")  # the rootdir is pytester's directory
    return pytester


def test_pyproject_declares_the_plugin_module() -> None:
    assert entry_points() == {"polydat": "polydat.testing.pytest_plugin"}


def test_polydat_engine_runs_a_test_once_per_engine_of_the_core(installed: pytest.Pytester) -> None:
    installed.makepyfile(
        """
        from polydat.testing import assert_rows_equal

        def test_engine_gives_the_oracles_rows(polydat_program, polydat_engine):
            program = polydat_program("users.polydat", engine=polydat_engine)
            oracle = polydat_program("users.polydat", engine="p1")
            assert program.engine == polydat_engine
            assert_rows_equal(program, oracle, range(200))
        """
    )
    result = installed.runpytest("-v")
    engines = discovered_engine_names()
    result.assert_outcomes(passed=len(engines))
    for engine in engines:
        result.stdout.fnmatch_lines([f"*test_engine_gives_the_oracles_rows[[]{engine}[]] PASSED*"])


def test_polydat_engines_option_chooses_engines_and_refuses_unknown_ones(installed: pytest.Pytester) -> None:
    installed.makepyfile("def test_it(polydat_engine):\n    assert polydat_engine in ('p1', 'mixed')\n")
    installed.runpytest("--polydat-engines", "p1,mixed").assert_outcomes(passed=2)
    refused = installed.runpytest("--polydat-engines", "p1,p9")
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    refused.stderr.fnmatch_lines(["*--polydat-engines: unknown engine 'p9'; the engines are p1, *"])


def test_a_test_that_parametrizes_polydat_engine_itself_keeps_its_own_values(installed: pytest.Pytester) -> None:
    installed.makepyfile(
        """
        import pytest

        @pytest.mark.parametrize("polydat_engine", ["p3"])
        def test_it(polydat_engine):
            assert polydat_engine == "p3"
        """
    )
    installed.runpytest().assert_outcomes(passed=1)


def test_polydat_program_compiles_once_per_session_from_a_path_or_text(installed: pytest.Pytester) -> None:
    installed.makepyfile(
        f"""
        from pathlib import Path
        import polydat

        SEEN = []

        def test_first(polydat_program, pytestconfig):
            SEEN.append(polydat_program("users.polydat"))
            assert SEEN[0] is polydat_program(pytestconfig.rootpath / "users.polydat")
            assert SEEN[0].path == str(pytestconfig.rootpath / "users.polydat")

        def test_second(polydat_program):
            assert polydat_program("users.polydat") is SEEN[0]
            assert polydat_program("users.polydat", engine="p1") is not SEEN[0]
            text = polydat_program({USERS!r})
            assert text is polydat_program({USERS!r}) and text.path is None
            assert text.generate(range(3))["label"].tolist() == SEEN[0].generate(range(3))["label"].tolist()
        """
    )
    installed.runpytest().assert_outcomes(passed=2)


def test_a_missing_program_file_is_a_clear_error(installed: pytest.Pytester) -> None:
    installed.makepyfile(
        """
        import pytest
        from polydat.errors import ArgumentError

        def test_it(polydat_program):
            with pytest.raises(ArgumentError, match=r"cannot read .*nowhere.polydat: No such file .*rootdir"):
                polydat_program("nowhere.polydat")
        """
    )
    installed.runpytest().assert_outcomes(passed=1)


def run_reproduction(line: str, cwd: Path) -> str:
    """Runs the ``polydat run ...`` command a failure message gives, as ``python -m polydat``."""
    args = shlex.split(line)
    assert args[:2] == ["polydat", "run"]
    done = subprocess.run([sys.executable, "-m", "polydat", *args[1:]], cwd=cwd, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_assert_row_failure_names_hash_cycle_and_a_command_that_prints_the_row(installed: pytest.Pytester) -> None:
    import hashlib

    installed.makepyfile(
        """
        from polydat.testing import assert_row

        def test_row(polydat_program):
            assert_row(polydat_program("users.polydat", engine="p2/pull"), 5, {"bucket": 26, "label": "user-0"})
        """
    )
    result = installed.runpytest()
    result.assert_outcomes(failed=1)
    digest = hashlib.sha256((installed.path / "users.polydat").read_bytes()).hexdigest()
    result.stdout.fnmatch_lines([
        f"E * row differs: program sha256:{digest} (*users.polydat), engine p2/pull, cycle 5",
        "E *   label: expected str 'user-0', got str 'user-358618'",
        "E * reproduce: polydat run users.polydat --cycles 5..6 --outputs bucket,label --engine p2/pull",
    ])
    command = re.search(r"reproduce: (polydat run .*)$", result.stdout.str(), re.M)
    assert command is not None
    assert run_reproduction(command.group(1), installed.path) == "cycle,bucket,label\n5,26,user-358618\n"


def test_a_program_from_text_is_reproduced_from_a_file_named_by_its_hash(installed: pytest.Pytester) -> None:
    installed.makepyfile(
        f"""
        from polydat.testing import assert_rows_equal

        def test_rows(polydat_program):
            text = {USERS!r} + "extern salt: u64 = 0\\nsalted := bucket + salt\\n"
            changed = text.replace("mod(hashed, 64)", "mod(hashed, 63)")
            assert_rows_equal(polydat_program(changed), polydat_program(text), range(10), inputs={{"salt": 7}})
        """
    )
    result = installed.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["E * rows differ at cycle *:", "E *   bucket: int *, reference int *"])
    # Only the traceback's "E" lines: pytest's short summary may repeat the message.
    commands = re.findall(r"^E\s+reproduce: (polydat run .*)$", result.stdout.str(), re.M)
    assert len(commands) == 2 and all("--set salt=7" in c and "polydat-" in c for c in commands)
    cycle = int(re.search(r"rows differ at cycle (\d+)", result.stdout.str()).group(1))  # type: ignore[union-attr]
    printed = [run_reproduction(c, installed.path).splitlines()[1] for c in commands]
    assert printed[0] != printed[1] and all(line.startswith(f"{cycle},") for line in printed)


def test_hypothesis_rows_equal_generate_and_shrink_toward_the_first_cycle(installed: pytest.Pytester) -> None:
    installed.makepyfile(
        """
        from hypothesis import given, settings
        from polydat.hypothesis import rows

        @settings(max_examples=60, deadline=None)
        @given(row=rows(open("users.polydat").read(), outputs=["bucket", "label"]))
        def test_row_is_generates(row, polydat_program):
            program = polydat_program("users.polydat")
            cycle = row["cycle"]
            columns = program.generate(range(cycle, cycle + 1), outputs=["cycle", "bucket", "label"])
            assert row == {name: values.tolist()[0] for name, values in columns.items()}

        @settings(max_examples=200, deadline=None)
        @given(row=rows(open("users.polydat").read(), cycles=range(1000, 2000)))
        def test_fails_from_cycle_1040(row):
            assert row["cycle"] < 1040
        """
    )
    result = installed.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    # hypothesis's report of the shrunk example ("Falsifying example" or "Failing test case")
    result.stdout.fnmatch_lines(["*test_fails_from_cycle_1040(", "*'cycle': 1040,*"])
