"""Draws docs/performance.png from the benchmark results of one run:
criterion's ladder estimates (target/criterion/ladder/*/new/estimates.json,
after `cargo bench -p polydat-core --bench ladder`), the Python ladder
bench's JSON (`python benches/python/ladder.py --json ladder.json`) and the
TPC-H bench's JSON (`python benches/python/tpch.py --json tpch.json`).

    python benches/plot.py [--python ladder.json] [--tpch tpch.json] [--out docs/performance.png]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def criterion_ladder(criterion: Path) -> dict[str, float]:
    """Median ns per cycle of every ladder benchmark criterion measured."""
    found = {}
    for estimates in sorted((criterion / "ladder").glob("*/new/estimates.json")):
        found[estimates.parent.parent.name] = json.loads(estimates.read_text())["median"]["point_estimate"]
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--python", type=Path, help="the Python ladder bench's JSON")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "performance.png")
    ap.add_argument("--criterion", type=Path, default=ROOT / "target" / "criterion", help="criterion's output directory")
    ap.add_argument("--tpch", type=Path, help="the TPC-H bench's JSON")
    args = ap.parse_args()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [("criterion: ladder, ns per cycle (one read of 4 outputs)", criterion_ladder(args.criterion))]
    if args.python:
        data = json.loads(args.python.read_text())
        panels.append((f"Python generate: ladder, ns per row ({data['rows']:,} rows)", data["ns_per_row"]))
    if args.tpch:
        data = json.loads(args.tpch.read_text())
        cpu = {}
        for run in data["runs"]:
            label = f"{run['format']}, {run['threads']} thread{'s' if run['threads'] > 1 else ''}"
            cpu[f"tpchgen-cli {label}"] = run["tpchgen_cpu"]
            cpu[f"polydat {label}"] = run["polydat_cpu"]
        panels.append((f"TPC-H, all eight tables, scale factor {data['sf']:g}: CPU seconds", cpu))
    panels = [(title, values) for title, values in panels if values]
    if not panels:
        raise SystemExit("no results found: run the benches first (see the docstring)")
    fig, axes = plt.subplots(len(panels), 1, figsize=(9, 0.32 * sum(len(v) for _, v in panels) + 1.6 * len(panels)))
    axes = [axes] if len(panels) == 1 else list(axes)
    for ax, (title, values) in zip(axes, panels):
        names = sorted(values, key=values.get)
        baseline = ("hand", "numpy", "numba", "floor", "tpchgen")
        colours = ["tab:gray" if any(b in n for b in baseline) else "tab:blue" for n in names]
        ax.barh(names, [values[n] for n in names], color=colours)
        ax.invert_yaxis()
        ax.set_title(title, fontsize=10)
        # A log axis for panels whose values span orders of magnitude; a
        # linear one from 0 otherwise, so bar lengths compare as ratios.
        if max(values.values()) > 20 * min(values.values()):
            ax.set_xscale("log")
        else:
            ax.set_xlim(0, max(values.values()) * 1.12)
        for y, n in enumerate(names):
            ax.text(values[n], y, f" {values[n]:.1f}", va="center", fontsize=8)
    fig.tight_layout()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
