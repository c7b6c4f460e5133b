"""``polydat bench``: performance scenarios.

A scenario file is a polydat program with optional sections, each opened by
a ``/// @name`` line::

    /// @driver
    /// cycle := meta
    /// seed := 42
    ///
    /// @pull_weights
    /// hot: 80
    /// cold: 20
    ///
    /// @graph
    input cycle: u64
    extern seed: u64 = 0
    hot := hash(cycle)
    cold := hash(seed)

* ``@driver`` (lines prefixed ``///``): a program over ``input meta: u64``
  (declared for you); its outputs, in order, feed the graph's inputs in
  order (coordinates first, then externs). Without a driver, the cycle is
  written to the graph's first input. The driver runs every cycle; its own
  cost is measured separately and subtracted.
* ``@pull_weights`` (lines prefixed ``///``): ``name: weight``; one output
  is pulled per cycle, chosen deterministically from the cycle in proportion
  to the weights. Without weights, the graph's last output is pulled.
* ``@graph``: the program measured (plain source, to the end of the file).
  A file without section markers is all graph.
* ``@selector`` and other sections are informational and ignored.

The timing loop runs in Rust (:func:`polydat.generate.time_scenario`), without the
GIL: per engine and provenance mode, one warm-up pass, then ``--iters``
passes of ``--cycles`` cycles, interleaved (every kernel one pass per round);
the report gives min and median ns per cycle.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from .generate import time_scenario
from .program import engine_names, provenance_names

MODES = tuple(provenance_names()[1:])
"""The provenance modes, in report order (the core's list, without ``auto``)."""


def _engine_modes() -> dict[str, tuple[str, ...]]:
    """Per engine family (``p1``, ``p2``, ...), the kernels ``--compare-modes``
    measures: every engine name the core reports, grouped by family."""
    families: dict[str, list[str]] = {}
    for name in engine_names():
        families.setdefault(name.split("/", 1)[0], []).append(name)
    return {family: tuple(names) for family, names in families.items()}


ENGINE_MODES = _engine_modes()
"""Per engine family, the kernels measured with ``--compare-modes``."""

_SECTION = re.compile(r"^\s*///\s*@(\w+)\s*$")
_WEIGHT = re.compile(r"^\s*([A-Za-z_][\w.]*)\s*:\s*(\d+)\s*$")
_META = re.compile(r"^\s*input\s+meta\b|^\s*input\s*\(.*\bmeta\b", re.M)


class ScenarioError(ValueError):
    """A scenario file is malformed."""


@dataclass
class Scenario:
    """A parsed scenario file."""

    path: str
    graph: str
    driver: str | None = None
    pull_weights: list[tuple[str, int]] = field(default_factory=list)
    graph_line: int = 1
    """1-based line of the graph source in the file (for diagnostics)."""

    @property
    def name(self) -> str:
        """The scenario's name: its file name without extension."""
        return os.path.splitext(os.path.basename(self.path))[0]


def _strip_doc(line: str) -> str:
    """``/// text`` -> ``text`` (also accepts a bare ``///``)."""
    s = line.strip()
    if s.startswith("///"):
        s = s[3:]
        return s[1:] if s.startswith(" ") else s
    return line


def parse_scenario(text: str, path: str = "<scenario>") -> Scenario:
    """Splits a scenario file into driver, pull weights and graph."""
    lines = text.splitlines()
    sections: dict[str, list[str]] = {}
    starts: dict[str, int] = {}
    current: str | None = None
    for n, line in enumerate(lines, start=1):
        m = _SECTION.match(line)
        if m:
            current = m.group(1)
            if current in sections:
                raise ScenarioError(f"{path}:{n}: section @{current} appears twice")
            sections[current] = []
            starts[current] = n + 1
            continue
        if current is not None:
            sections[current].append(line)
    if not sections:
        return Scenario(path=path, graph=text)
    if "graph" not in sections:
        raise ScenarioError(f"{path}: no /// @graph section (sections found: {', '.join('@' + s for s in sections)})")
    driver = None
    if "driver" in sections:
        body = "\n".join(_strip_doc(l) for l in sections["driver"]).strip()
        if body:
            driver = body if _META.search(body) else "input meta: u64\n" + body
    weights: list[tuple[str, int]] = []
    for offset, line in enumerate(sections.get("pull_weights", [])):
        body = _strip_doc(line).strip()
        if not body or body.startswith("#") or body.startswith("//"):
            continue
        m = _WEIGHT.match(body)
        if not m:
            raise ScenarioError(
                f"{path}:{starts['pull_weights'] + offset}: expected 'name: weight' in @pull_weights, got {body!r}"
            )
        weights.append((m.group(1), int(m.group(2))))
    if weights and sum(w for _, w in weights) == 0:
        raise ScenarioError(f"{path}: every @pull_weights weight is 0")
    # Keep the graph's line numbers: pad with blank lines up to its start.
    graph = "\n" * (starts["graph"] - 1) + "\n".join(sections["graph"])
    return Scenario(path=path, graph=graph, driver=driver, pull_weights=weights, graph_line=starts["graph"])


def load_scenario(path: str) -> Scenario:
    """Reads and parses a scenario file."""
    with open(path, encoding="utf-8") as f:
        return parse_scenario(f.read(), path)


@dataclass
class Measurement:
    """One kernel's timings on one scenario, ns per cycle (driver subtracted)."""

    engine: str
    net: list[float]
    driver: list[float]

    @property
    def min(self) -> float:
        """Fastest iteration, ns per cycle (driver cost subtracted)."""
        return min(self.net)

    @property
    def median(self) -> float:
        """Median iteration, ns per cycle (driver cost subtracted)."""
        return statistics.median(self.net)


@dataclass
class Report:
    """Everything measured for one scenario."""

    scenario: Scenario
    analysis: dict[str, Any]
    auto: str
    """The kernel ``engine="p2"`` picks (``p2/<mode>``)."""
    results: list[Measurement]
    engine_auto: str = ""
    """What ``engine="auto"`` runs (``p3/<mode>`` or ``mixed``)."""

    def fastest(self, family: str = "p2") -> Measurement | None:
        """The measurement with the lowest median among engines named ``family...``."""
        rows = [r for r in self.results if r.engine.startswith(family)]
        return min(rows, key=lambda r: r.median) if rows else None

    def to_json(self) -> dict[str, Any]:
        """The report as plain JSON-able data (``polydat bench --json``)."""
        fastest = self.fastest()
        return {
            "scenario": self.scenario.name,
            "path": self.scenario.path,
            "analysis": self.analysis,
            "auto": self.auto,
            "fastest_p2": fastest.engine if fastest else None,
            "engine_auto": self.engine_auto,
            "fastest": best.engine if (best := self.fastest("")) else None,
            "results": [
                {"engine": r.engine, "min_ns": r.min, "median_ns": r.median, "net_ns": r.net, "driver_ns": r.driver}
                for r in self.results
            ],
        }


def run_scenario(
    scenario: Scenario,
    *,
    engines: Sequence[str] = tuple(ENGINE_MODES),
    compare_modes: bool = False,
    cycles: int = 100_000,
    iters: int = 5,
    library_path: Sequence[str] = (),
) -> Report:
    """Compiles and times one scenario on each engine family in ``engines``:
    the engine's default kernel (``p2``: the automatic mode), or with
    ``compare_modes`` every provenance mode."""
    import polydat

    graph = polydat.compile(scenario.graph, engine="p2", path=scenario.path, library_path=library_path)
    driver = polydat.compile(scenario.driver, path=scenario.path) if scenario.driver else None
    if driver is not None and not driver.coordinates:
        raise ScenarioError(f"{scenario.path}: the @driver program has no input (it should read `meta`)")
    known = set(graph.outputs)
    for name, _ in scenario.pull_weights:
        if name not in known:
            raise ScenarioError(
                f"{scenario.path}: @pull_weights names '{name}', but the graph's outputs are: {', '.join(graph.outputs)}"
            )
    kernels: list[str] = []
    for family in engines:
        if family not in ENGINE_MODES:
            raise ScenarioError(f"unknown engine '{family}'; choose from {', '.join(ENGINE_MODES)}")
        if compare_modes:
            kernels.extend(ENGINE_MODES[family])
        else:
            kernels.append(graph.engine if graph.engine.split("/", 1)[0] == family else ENGINE_MODES[family][0])
    # Every kernel runs one timed iteration per round, so a change of the
    # machine's load touches them alike.
    timings = time_scenario(graph, driver, kernels, scenario.pull_weights, cycles, iters)
    results = [Measurement(engine=t["engine"], net=list(t["net"]), driver=list(t["driver"])) for t in timings]
    engine_auto = polydat.compile(scenario.graph, path=scenario.path, library_path=library_path).engine
    return Report(
        scenario=scenario, analysis=graph.provenance_analysis, auto=graph.engine, results=results, engine_auto=engine_auto
    )


def _fmt(x: float) -> str:
    return f"{x:,.1f}"


def render(report: Report, compare_modes: bool, out: IO[str]) -> None:
    """Writes one scenario's report as a table."""
    a = report.analysis
    driver = statistics.median(report.results[0].driver) if report.results else 0.0
    out.write(
        f"{report.scenario.name}  ({a['total_nodes']} nodes, output cone ratio {a['output_cone_ratio']:.2f}, "
        f"stable ratio {a['stable_ratio']:.2f}; driver {_fmt(driver)} ns/cycle subtracted)\n"
    )
    by_engine = {r.engine: r for r in report.results}
    if compare_modes:
        header = f"  {'engine':<8}" + "".join(f"{m:>18}" for m in MODES) + "   auto picks"
        out.write(header + "\n")
        out.write(f"  {'':<8}" + "".join(f"{'median (min) ns':>18}" for _ in MODES) + "\n")
        for family, kernels in ENGINE_MODES.items():
            rows = [e for e in kernels if e in by_engine]
            if not rows:
                continue
            if len(kernels) == 1:
                r = by_engine[kernels[0]]
                cell = f"{_fmt(r.median)} ({_fmt(r.min)})"
                out.write(f"  {family:<8}{cell:>18}" + "".join(f"{'-':>18}" for _ in MODES[1:]) + "   (no modes)\n")
                continue
            cells = []
            for m in MODES:
                found = by_engine.get(f"{family}/{m}")
                cells.append(f"{_fmt(found.median)} ({_fmt(found.min)})" if found else "-")
            fastest = report.fastest(family)
            note = ""
            if report.auto.startswith(f"{family}/") and fastest is not None:
                pick = report.auto.split("/", 1)[1]
                verdict = "fastest" if fastest.engine == report.auto else f"fastest is {fastest.engine.split('/', 1)[1]}"
                note = f"   {pick} ({verdict})"
            out.write(f"  {family:<8}" + "".join(f"{c:>18}" for c in cells) + note + "\n")
    else:
        out.write(f"  {'engine':<14}{'min ns':>12}{'median ns':>12}\n")
        for r in report.results:
            note = "   (auto)" if r.engine == report.auto else ""
            out.write(f"  {r.engine:<14}{_fmt(r.min):>12}{_fmt(r.median):>12}{note}\n")
    out.write("\n")


def main(
    files: Sequence[str],
    *,
    engine: str | None = None,
    compare_modes: bool = False,
    cycles: int = 100_000,
    iters: int = 5,
    as_json: bool = False,
    library_path: Sequence[str] = (),
    out: IO[str] | None = None,
) -> int:
    """The ``polydat bench`` command."""
    out = out or sys.stdout
    engines = (engine,) if engine else tuple(ENGINE_MODES)
    reports = []
    for path in files:
        scenario = load_scenario(path)
        report = run_scenario(
            scenario, engines=engines, compare_modes=compare_modes, cycles=cycles, iters=iters, library_path=library_path
        )
        reports.append(report)
        if not as_json:
            render(report, compare_modes, out)
            out.flush()
    if as_json:
        json.dump([r.to_json() for r in reports], out, indent=2)
        out.write("\n")
    elif compare_modes and len(reports) > 1 and "p2" in engines:
        out.write("auto vs fastest P2 mode (by median):\n")
        for r in reports:
            fastest = r.fastest()
            ok = "yes" if fastest and fastest.engine == r.auto else "no"
            out.write(f"  {r.scenario.name:<28} auto {r.auto:<13} fastest {fastest.engine if fastest else '-':<13} {ok}\n")
    if compare_modes and len(reports) > 1 and not as_json:
        out.write("engine=auto vs the fastest kernel measured (by median):\n")
        for r in reports:
            best, auto = r.fastest(""), next((m for m in r.results if m.engine == r.engine_auto), None)
            if best is None or auto is None:
                continue
            ratio = auto.median / best.median if best.median > 0 else float("inf")
            verdict = "within 10%" if ratio <= 1.10 else "slower"
            out.write(
                f"  {r.scenario.name:<28} auto {r.engine_auto:<13} fastest {best.engine:<13} {ratio:5.2f}x  {verdict}\n"
            )
    return 0
