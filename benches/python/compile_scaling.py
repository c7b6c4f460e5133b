"""Compile time against program size: `polydat.compile` and the first kernel,
per engine, for programs of 1k, 10k and 100k statements of two shapes, with
the growth exponent fitted on a log-log scale (1.0 is linear). A bench, not a
test (pytest collects its quick form from test_compile_scaling.py).

* chain: ``v{i} := u64_add(v{i-1}, 1)`` — every statement reads the one
  before it (long cones, one long run of native code);
* wide: ``v{i} := u64_add(cycle, {i})`` — independent statements (many
  outputs of one shape, all distinct constants);
* with ``--shapes consts shared`` also ``const v{i} := u64_add(e, {i})`` and
  ``shared v{i} := u64_add(e, {i})`` over an extern ``e`` (many captures,
  many cells).

Each cell is the best of ``--repeat`` runs: compile (the Python frontend and
the core's passes) and the kernel (for P3 and mixed, native code built for
every step), in seconds of wall time, with the process's CPU time beside it
(the figure to trust on a busy machine). Targets: 100k statements compile
and make a kernel in under 3 s on p1 and p2 and 10 s on auto, with an
exponent of at most 1.1.

Run against a release build:

    pip install . && python benches/python/compile_scaling.py
    python benches/python/compile_scaling.py --sizes 1000 10000 --engines p1 auto --json out.json
"""

from __future__ import annotations

import argparse
import json
import math
import time
from dataclasses import asdict, dataclass

import polydat

SIZES = (1_000, 10_000, 100_000)
ENGINES = ("p1", "p2", "p3", "mixed", "auto")
SHAPES = ("chain", "wide")


def chain(n: int) -> str:
    """``n`` statements, each reading the one before it."""
    lines = ["input cycle: u64", "v0 := u64_add(cycle, 1)"]
    lines += [f"v{i} := u64_add(v{i - 1}, 1)" for i in range(1, n)]
    return "\n".join(lines) + "\n"


def wide(n: int) -> str:
    """``n`` independent statements over one coordinate."""
    lines = ["input cycle: u64"] + [f"v{i} := u64_add(cycle, {i})" for i in range(n)]
    return "\n".join(lines) + "\n"


def consts(n: int) -> str:
    """``n`` const bindings over an extern."""
    lines = ["input cycle: u64", "extern e: u64 = 3"] + [f"const v{i} := u64_add(e, {i})" for i in range(n)]
    return "\n".join(lines) + "\n"


def shared(n: int) -> str:
    """``n`` shared bindings (cells) over an extern."""
    lines = ["input cycle: u64", "extern e: u64 = 3"] + [f"shared v{i} := u64_add(e, {i})" for i in range(n)]
    return "\n".join(lines) + "\n"


PROGRAMS = {"chain": chain, "wide": wide, "consts": consts, "shared": shared}


@dataclass
class Cell:
    """One measurement: best wall and CPU seconds of compile and kernel."""

    shape: str
    engine: str
    statements: int
    ran_on: str
    compile_s: float
    kernel_s: float
    compile_cpu_s: float
    kernel_cpu_s: float

    @property
    def total_s(self) -> float:
        """Compile and kernel, wall."""
        return self.compile_s + self.kernel_s

    @property
    def total_cpu_s(self) -> float:
        """Compile and kernel, CPU."""
        return self.compile_cpu_s + self.kernel_cpu_s


def measure(shape: str, engine: str, statements: int, repeat: int = 1) -> Cell:
    """Compiles the ``shape`` program of ``statements`` statements on
    ``engine`` and makes its kernel (then reads the last statement once, so
    nothing is left to build lazily for that read), ``repeat`` times; keeps the best."""
    source = PROGRAMS[shape](statements)
    best: Cell | None = None
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        program = polydat.compile(source, engine=engine)
        compiled, compiled_cpu = time.perf_counter(), time.process_time()
        kernel = program.kernel()
        kernel.set_inputs(7)
        kernel.pull(f"v{statements - 1}")
        done, done_cpu = time.perf_counter(), time.process_time()
        cell = Cell(shape, engine, statements, program.engine, compiled - wall, done - compiled,
                    compiled_cpu - cpu, done_cpu - compiled_cpu)
        if best is None or cell.total_s < best.total_s:
            best = cell
        del kernel, program
    assert best is not None
    return best


def growth_exponent(points: list[tuple[int, float]]) -> float:
    """The least-squares slope of log(time) against log(size)."""
    xs = [math.log(n) for n, _ in points]
    ys = [math.log(max(t, 1e-9)) for _, t in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else float("nan")


def table(cells: list[Cell], sizes: list[int]) -> str:
    """The markdown table: per shape and engine, total (compile + kernel)
    seconds at each size, wall with CPU in brackets, and the exponents."""
    head = ["shape", "engine", *(f"{n:,}" for n in sizes), "exponent (wall)", "exponent (cpu)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    groups: dict[tuple[str, str], dict[int, Cell]] = {}
    for c in cells:
        groups.setdefault((c.shape, c.engine), {})[c.statements] = c
    for (shape, engine), by_size in groups.items():
        row = [shape, engine]
        for n in sizes:
            c = by_size.get(n)
            row.append("" if c is None else f"{c.total_s:.3f} ({c.total_cpu_s:.3f})")
        if len(by_size) >= 2:
            row.append(f"{growth_exponent([(n, c.total_s) for n, c in sorted(by_size.items())]):.2f}")
            row.append(f"{growth_exponent([(n, c.total_cpu_s) for n, c in sorted(by_size.items())]):.2f}")
        else:
            row += ["", ""]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--engines", nargs="+", default=list(ENGINES))
    parser.add_argument("--shapes", nargs="+", default=list(SHAPES), choices=list(PROGRAMS))
    parser.add_argument("--repeat", type=int, default=3, help="runs per cell below 100k statements (best kept)")
    parser.add_argument("--json", help="also write every cell to this file")
    args = parser.parse_args(argv)
    polydat.compile(wide(10), engine="p3").kernel()  # warm-up: imports, the catalog, native code support
    cells = []
    for shape in args.shapes:
        for engine in args.engines:
            for n in sorted(args.sizes):
                cell = measure(shape, engine, n, args.repeat if n < 100_000 else 1)
                cells.append(cell)
                print(f"{shape:5} {engine:5} {n:>7,}: compile {cell.compile_s:7.3f} s, kernel {cell.kernel_s:7.3f} s "
                      f"(cpu {cell.compile_cpu_s:.3f} + {cell.kernel_cpu_s:.3f}) on {cell.ran_on}", flush=True)
    print()
    print(table(cells, sorted(args.sizes)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump([asdict(c) for c in cells], f, indent=1)


if __name__ == "__main__":
    main()
