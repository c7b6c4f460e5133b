"""`polydat bench`: scenario file parsing, the Rust timing loop, the report
with --compare-modes, and every shipped scenario compiling and running."""

from __future__ import annotations

import glob
import io
import json
import os

import pytest

import polydat
from polydat import _core
from polydat.bench import ScenarioError, load_scenario, main, parse_scenario, run_scenario
from polydat.cli import main as cli_main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENARIOS = sorted(glob.glob(os.path.join(ROOT, "benches", "scenarios", "*.polydat")))

SMALL = """\
// a tiny scenario
/// @driver
/// cycle := meta
/// seed := 42

/// @selector
/// output_idx := 0

/// @pull_weights
/// hot: 3
/// cold: 1

/// @graph
input cycle: u64
extern seed: u64 = 0
hot := hash(cycle)
cold := hash(seed)
"""


def test_sections_are_split():
    s = parse_scenario(SMALL, "small.polydat")
    assert s.name == "small"
    assert s.driver == "input meta: u64\ncycle := meta\nseed := 42"
    assert s.pull_weights == [("hot", 3), ("cold", 1)]
    assert s.graph.strip().startswith("input cycle: u64")
    assert s.graph.count("\n") >= s.graph_line - 1, "graph keeps its line numbers"
    plain = parse_scenario("input cycle: u64\nout := hash(cycle)\n")
    assert plain.driver is None and plain.pull_weights == [] and "out :=" in plain.graph


@pytest.mark.parametrize(
    "text, message",
    [
        ("/// @driver\n/// cycle := meta\n", "no /// @graph"),
        ("/// @pull_weights\n/// hot 3\n/// @graph\ninput cycle: u64\nhot := hash(cycle)\n", "name: weight"),
        ("/// @pull_weights\n/// hot: 0\n/// @graph\ninput cycle: u64\nhot := hash(cycle)\n", "weight is 0"),
        ("/// @graph\n/// @graph\n", "twice"),
    ],
)
def test_malformed_scenarios_are_refused(text, message):
    with pytest.raises(ScenarioError, match=message):
        parse_scenario(text, "bad.polydat")


def test_unknown_pull_weight_names_the_outputs():
    s = parse_scenario(SMALL.replace("/// cold: 1", "/// colder: 1"), "x.polydat")
    with pytest.raises(ScenarioError, match="colder.*hot, cold"):
        run_scenario(s, cycles=10, iters=1)


def test_rust_loop_reports_per_iteration_timings():
    s = parse_scenario(SMALL)
    graph = polydat.compile(s.graph, engine="p2")
    driver = polydat.compile(s.driver)
    engines = ["p1", "p2/raw", "p2/push", "p2/pull", "p2/pushpull", "program"]
    timings = _core.bench_scenario(graph._core, driver._core, engines, [("hot", 1)], 500, 3)
    assert len(timings) == len(engines)
    for engine, t in zip(engines, timings):
        assert len(t["net"]) == len(t["total"]) == len(t["driver"]) == 3
        assert all(n >= 0.1 for n in t["net"])
        assert t["engine"] == (graph.engine if engine == "program" else engine)
    with pytest.raises(polydat.RefusedError):
        _core.bench_scenario(graph._core, None, ["p1", "p9"], [], 10, 1)


def test_compare_modes_report(tmp_path):
    s = parse_scenario(SMALL, "small.polydat")
    report = run_scenario(s, compare_modes=True, cycles=300, iters=2)
    assert [r.engine for r in report.results] == _core.engines(), "every engine the core has, in its order"
    assert report.auto.startswith("p2/")
    assert report.analysis["total_nodes"] == 2
    path = tmp_path / "small.polydat"
    path.write_text(SMALL)
    out = io.StringIO()
    main([str(path), str(path)], compare_modes=True, cycles=200, iters=1, out=out)
    text = out.getvalue()
    assert "small" in text and "pushpull" in text and "auto picks" in text
    assert "auto vs fastest P2 mode" in text
    assert "engine=auto vs the fastest kernel measured" in text


def test_cli_bench(capsys):
    path = os.path.join(ROOT, "benches", "scenarios", "keyvalue.polydat")
    assert cli_main(["bench", path, "--cycles", "300", "--iters", "2"]) == 0
    text = capsys.readouterr().out
    assert "keyvalue" in text and "p1" in text and "(auto)" in text
    assert cli_main(["bench", path, "--engine", "p2", "--compare-modes", "--cycles", "200", "--iters", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["engine"] for r in data[0]["results"]] == ["p2/raw", "p2/push", "p2/pull", "p2/pushpull"]
    assert data[0]["auto"] == "p2/raw" and data[0]["fastest_p2"] in {r["engine"] for r in data[0]["results"]}
    assert cli_main(["bench", path, "--iters", "0"]) == 2


def test_cli_bench_reports_bad_files(tmp_path, capsys):
    bad = tmp_path / "bad.polydat"
    bad.write_text("/// @pull_weights\n/// nope: 1\n/// @graph\ninput cycle: u64\nout := hash(cycle)\n")
    assert cli_main(["bench", str(bad), "--cycles", "10", "--iters", "1"]) == 2
    assert "nope" in capsys.readouterr().err


def test_shipped_scenarios_cover_the_catalogue():
    names = {os.path.splitext(os.path.basename(p))[0] for p in SCENARIOS}
    assert {
        "deep_chain",
        "stable_params",
        "all_changing",
        "mostly_stable",
        "mixed_rates",
        "hot_cold_outputs",
        "selective_cone",
        "multi_root",
        "keyvalue",
        "multi_table",
    } <= names


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: os.path.basename(p))
def test_every_shipped_scenario_runs_and_agrees(path):
    s = load_scenario(path)
    report = run_scenario(s, compare_modes=True, cycles=200, iters=1)
    assert [r.engine for r in report.results] == _core.engines()
    # Values agree across engines on the scenario's own inputs.
    import polydat.testing as pt

    graph = polydat.compile(s.graph)
    driver = polydat.compile(s.driver) if s.driver else None
    steps = []
    for meta in (0, 1, 2, 99, 100, 10_000):
        if driver is None:
            steps.append(pt.Step({graph.inputs[0]: meta}))
            continue
        k = driver.kernel()
        k.set_inputs(meta)
        values = list(k.eval().values())
        steps.append(pt.Step(dict(zip(graph.inputs, values))))
    pt.assert_engines_agree(s.graph, steps, pulls=[n for n, _ in s.pull_weights] or None)
