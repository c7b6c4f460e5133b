"""Two builds of polydat, side by side on every scenario: `polydat bench
benches/scenarios/*.polydat --compare-modes` run by each build's Python in
turn (A B A B ... over the rounds, so a change of the machine's load lands
on both), the best median per scenario and engine/mode kept. Prints one row
per cell with after/before, the geometric mean, the count within ±3%, and
the geometric mean per engine/mode. For checking that a change meant to
keep behaviour (a refactor) keeps speed.

    python benches/python/compare_builds.py before=/venv/a/bin/python after=/venv/b/bin/python [--rounds 6]

Each build is a Python with its own `pip install .` of polydat (a release
build). With one build, it is compared with itself (the noise floor).
Not a test: nothing is asserted about time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted((ROOT / "benches" / "scenarios").glob("*.polydat"))


def medians(python: str, scenario: Path, cycles: int, iters: int) -> dict[str, float]:
    """One `polydat bench --compare-modes --json` of `scenario` by `python`: median ns per engine/mode."""
    args = [python, "-m", "polydat", "bench", str(scenario), "--compare-modes", "--json"]
    done = subprocess.run([*args, "--cycles", str(cycles), "--iters", str(iters)], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{python} failed on {scenario.name}:\n{done.stderr[-2000:]}")
    return {r["engine"]: r["median_ns"] for doc in json.loads(done.stdout) for r in doc["results"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("builds", nargs="*", metavar="LABEL=PYTHON", help="default: this Python, against itself")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--cycles", type=int, default=50_000)
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--scenarios", nargs="*", help="scenario names (default: every one)")
    args = ap.parse_args()
    builds = dict(b.split("=", 1) for b in args.builds) or {"before": sys.executable, "after": sys.executable}
    if len(builds) == 1:
        (python,) = builds.values()
        builds = {"before": python, "after": python}
    if len(builds) != 2:
        raise SystemExit("give two builds: before=PYTHON after=PYTHON")
    scenarios = [s for s in SCENARIOS if not args.scenarios or s.stem in args.scenarios]
    best: dict[tuple[str, str, str], float] = {}
    for _ in range(args.rounds):
        for scenario in scenarios:
            for label, python in builds.items():
                for engine, ns in medians(python, scenario, args.cycles, args.iters).items():
                    key = (scenario.stem, engine, label)
                    best[key] = min(best.get(key, float("inf")), ns)
    before, after = builds
    cells = sorted({(s, e) for s, e, _ in best})
    ratios: dict[tuple[str, str], float] = {}
    print(f"| scenario | engine | {before} ns | {after} ns | {after}/{before} |")
    print("|---|---|---:|---:|---:|")
    for s, e in cells:
        a, b = best.get((s, e, before)), best.get((s, e, after))
        if a and b:
            ratios[(s, e)] = b / a
            print(f"| {s} | {e} | {a:.1f} | {b:.1f} | {b / a:.3f} |")
    if not ratios:
        raise SystemExit("no cell was measured by both builds")
    within = sum(abs(r - 1) <= 0.03 for r in ratios.values())
    print(f"\ngeometric mean {after}/{before}: {statistics.geometric_mean(ratios.values()):.4f} over {len(ratios)} "
          f"cells, {within} within ±3% (best of {args.rounds} interleaved rounds)")
    by_engine: dict[str, list[float]] = defaultdict(list)
    for (_, e), r in ratios.items():
        by_engine[e].append(r)
    print("per engine/mode: " + ", ".join(f"{e} {statistics.geometric_mean(v):.3f}" for e, v in sorted(by_engine.items())))


if __name__ == "__main__":
    main()
