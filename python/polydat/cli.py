"""The ``polydat`` command line: ``run``, ``check``, ``explain``, ``nodes``, ``bench``.

Every failure a user can cause (bad source, bad arguments, a failing node, an
unwritable file) ends with a clear message on stderr and a non-zero exit code,
never a traceback.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import sys
import tempfile
from collections.abc import Iterator, Sequence
from typing import IO, Any

from .errors import PolydatError

CHUNK_ROWS = 1 << 16
"""Rows generated per call while streaming output."""

PROGRESS_MIN_ROWS = 1 << 20
"""Runs at least this long get a progress bar (when stderr is a terminal)."""

_SI = {"K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30}


class UsageError(Exception):
    """A command-line argument is invalid."""


def parse_count(text: str) -> int:
    """Parses ``1000``, ``0x10``, ``1M`` or ``64Ki`` as a non-negative integer."""
    t = text.strip()
    for suffix in sorted(_SI, key=len, reverse=True):
        if t.endswith(suffix) and t[: -len(suffix)].isdigit():
            return int(t[: -len(suffix)]) * _SI[suffix]
    try:
        value = int(t, 0)
    except ValueError:
        raise UsageError(f"not a cycle number: {text!r}") from None
    if value < 0:
        raise UsageError(f"cycle numbers are non-negative: {text!r}")
    return value


def parse_cycles(text: str) -> range:
    """Parses ``A..B`` (B exclusive) or ``N`` (meaning ``0..N``)."""
    if ".." in text:
        a, b = text.split("..", 1)
        start, stop = parse_count(a), parse_count(b)
    else:
        start, stop = 0, parse_count(text)
    if stop < start:
        raise UsageError(f"empty or reversed cycle range: {text!r}")
    return range(start, stop)


def _cell(value: Any) -> Any:
    """A CSV cell: floats in shortest round-trip form, None as empty."""
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, bytes):
        return value.hex()
    return value


def _csv_cells(column: Any) -> list[Any]:
    """One column as CSV cells. Numbers are rendered by numpy in one call (its
    float text is the same shortest round-trip form as ``repr``); other values
    go through :func:`_cell`."""
    if column.dtype.kind in "uif":
        return column.astype(str).tolist()  # type: ignore[no-any-return]
    return [_cell(v) for v in column.tolist()]


def _json_value(value: Any) -> Any:
    """A JSON value: non-finite floats become the strings NaN/Infinity/-Infinity."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, bytes):
        return value.hex()
    return value


def _progress(total: int, mode: str) -> Any:
    """A tqdm bar on stderr: ``always``, ``never``, or ``auto`` (a terminal and a long run)."""
    if mode == "never" or (mode == "auto" and (total < PROGRESS_MIN_ROWS or not sys.stderr.isatty())):
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="rows", unit_scale=True, file=sys.stderr, leave=False)


def _chunks(
    prog: Any, cycles: range, names: list[str], threads: int, progress: str
) -> Iterator[tuple[range, dict[str, Any]]]:
    """Generates ``cycles`` in chunks of ``CHUNK_ROWS``, advancing the progress bar."""
    bar = _progress(len(cycles), progress)
    try:
        for first in range(cycles.start, cycles.stop, CHUNK_ROWS * cycles.step):
            part = range(first, min(first + CHUNK_ROWS * cycles.step, cycles.stop), cycles.step)
            yield part, prog.generate(part, outputs=names, threads=threads)
            if bar is not None:
                bar.update(len(part))
    finally:
        if bar is not None:
            bar.close()


def write_rows(
    prog: Any, cycles: range, names: list[str], fmt: str, out: IO[str], threads: int, coordinate: str | None,
    progress: str = "auto",
) -> int:
    """Streams rows of ``names`` (preceded by the coordinate column) to ``out``."""
    header = ([coordinate] if coordinate else []) + names
    writer = csv.writer(out, lineterminator="\n") if fmt == "csv" else None
    if writer:
        writer.writerow(header)
    rows = 0
    for part, cols in _chunks(prog, cycles, names, threads, progress):
        if writer:
            columns = ([[str(c) for c in part]] if coordinate else []) + [_csv_cells(cols[n]) for n in names]
            writer.writerows(zip(*columns))
        else:
            columns = ([list(part)] if coordinate else []) + [cols[n].tolist() for n in names]
            for row in zip(*columns):
                out.write(json.dumps(dict(zip(header, map(_json_value, row))), allow_nan=False) + "\n")
        rows += len(part)
    return rows


def write_parquet(
    prog: Any, cycles: range, names: list[str], path: str, threads: int, coordinate: str | None,
    progress: str = "auto",
) -> int:
    """Writes the rows to a Parquet file with pyarrow (the ``parquet`` extra)."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise UsageError("--format parquet needs pyarrow: pip install 'polydat[parquet]'") from None
    writer = None
    rows = 0
    try:
        for part, cols in _chunks(prog, cycles, names, threads, progress):
            arrays = {coordinate: pa.array(list(part), pa.uint64())} if coordinate else {}
            arrays.update({n: pa.array(cols[n].tolist() if cols[n].dtype == object else cols[n]) for n in names})
            table = pa.table(arrays)
            if writer is None:
                writer = pq.ParquetWriter(path, table.schema)
            writer.write_table(table)
            rows += len(part)
    finally:
        if writer is not None:
            writer.close()
    return rows


def _temporary_beside(path: str) -> str:
    """A new temporary file beside ``path``; it is renamed over ``path`` only on success."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".partial", dir=directory)
    os.close(fd)
    return tmp


def _publish(tmp: str, path: str) -> None:
    """Renames the finished temporary file over ``path``, with the permissions a
    plainly created file would get (``mkstemp`` makes its files private)."""
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    os.replace(tmp, path)


def cmd_run(args: argparse.Namespace) -> int:
    """``polydat run``: generate rows to stdout or (atomically) to a file."""
    import polydat

    prog = polydat.compile_file(args.file, engine=args.engine, library_path=args.lib)
    names = [n.strip() for n in args.outputs.split(",") if n.strip()] if args.outputs else list(prog.outputs)
    unknown = [n for n in names if n not in prog.outputs]
    if unknown:
        raise UsageError(f"no output named {unknown[0]!r}; outputs are: {', '.join(prog.outputs)}")
    coordinate = None if args.no_coordinate or not prog.coordinates else prog.coordinates[0]
    cycles = parse_cycles(args.cycles)
    fmt = args.format
    if args.output is None:
        if fmt == "parquet":
            raise UsageError("--format parquet needs an output file (-o FILE)")
        write_rows(prog, cycles, names, fmt, sys.stdout, args.threads, coordinate, args.progress)
        sys.stdout.flush()
        return 0
    tmp = _temporary_beside(args.output)
    try:
        if fmt == "parquet":
            write_parquet(prog, cycles, names, tmp, args.threads, coordinate, args.progress)
        else:
            with open(tmp, "w", encoding="utf-8", newline="") as f:
                write_rows(prog, cycles, names, fmt, f, args.threads, coordinate, args.progress)
        _publish(tmp, args.output)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    """``polydat check``: print diagnostics; 1 when any file has an error."""
    import polydat

    status = 0
    for path in args.files:
        with open(path, encoding="utf-8") as f:
            source = f.read()
        diagnostics = polydat.check(source, path=path, library_path=args.lib)
        for d in diagnostics:
            print(d.render(), file=sys.stderr)
        if any(d.severity == "error" for d in diagnostics):
            status = 1
        else:
            print(f"{path}: ok")
    return status


def cmd_explain(args: argparse.Namespace) -> int:
    """``polydat explain``: what the compiler did, or the graph as DOT."""
    import polydat

    prog = polydat.compile_file(args.file, engine=args.engine, library_path=args.lib)
    if args.dot:
        from .explain import to_dot

        print(to_dot(prog))
    else:
        print(prog.explain())
    return 0


def cmd_nodes(args: argparse.Namespace) -> int:
    """``polydat nodes``: the catalog, or one node's signature and doc."""
    import polydat

    nodes = [n for n in polydat.catalog() if not n["name"].startswith("__")]
    if args.name is None:
        width = max(len(n["name"]) for n in nodes)
        category = None
        for n in sorted(nodes, key=lambda n: (n["category"], n["name"])):
            if n["category"] != category:
                category = n["category"]
                print(f"\n{category}:")
            print(f"  {n['name']:<{width}}  {n['doc']}")
        print(f"\n{len(nodes)} nodes; `polydat nodes NAME` shows a signature.")
        return 0
    by_name = {n["name"]: n for n in nodes}
    for n in nodes:
        for alias in n["aliases"]:
            by_name.setdefault(alias, n)
    node = by_name.get(args.name)
    if node is None:
        import difflib

        close = difflib.get_close_matches(args.name, list(by_name), n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        raise UsageError(f"no node named '{args.name}'{hint}")
    print(node["signature"])
    print(f"  {node['doc']}")
    print(f"  category: {node['category']}   purity: {node['purity']}")
    if node["aliases"]:
        print(f"  aliases: {', '.join(node['aliases'])}")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    """``polydat bench``: time scenario files, per engine and provenance mode."""
    from .bench import ScenarioError, main

    if args.iters < 1 or args.cycles < 1:
        raise UsageError("--iters and --cycles must be at least 1")
    try:
        return main(
            args.files,
            engine=args.engine,
            compare_modes=args.compare_modes,
            cycles=args.cycles,
            iters=args.iters,
            as_json=args.json,
            library_path=args.lib,
        )
    except ScenarioError as err:
        raise UsageError(str(err)) from None


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(prog="polydat", description="Deterministic procedural data.")
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="generate rows from a program")
    run.add_argument("file")
    run.add_argument("--cycles", required=True, help="A..B (B exclusive) or N; K/M/G suffixes allowed")
    run.add_argument("--outputs", help="comma-separated output names (default: all)")
    run.add_argument("--format", choices=["csv", "jsonl", "parquet"], default="csv")
    run.add_argument("-o", "--output", help="write to this file (atomically) instead of stdout")
    run.add_argument("--engine", default="auto")
    run.add_argument("--threads", type=int, default=1)
    run.add_argument("--no-coordinate", action="store_true", help="omit the coordinate column")
    run.add_argument(
        "--progress",
        choices=["auto", "always", "never"],
        default="auto",
        help="progress bar on stderr (auto: on a terminal, for runs of 1Mi rows or more)",
    )
    run.add_argument("--lib", action="append", default=[], help="module library directory (repeatable)")
    run.set_defaults(func=cmd_run)

    check = sub.add_parser("check", help="print diagnostics; exit 1 on error")
    check.add_argument("files", nargs="+")
    check.add_argument("--lib", action="append", default=[])
    check.set_defaults(func=cmd_check)

    explain = sub.add_parser("explain", help="show what the compiler did")
    explain.add_argument("file")
    explain.add_argument("--engine", default="auto")
    explain.add_argument("--dot", action="store_true", help="emit Graphviz DOT of the resolved graph")
    explain.add_argument("--lib", action="append", default=[])
    explain.set_defaults(func=cmd_explain)

    nodes = sub.add_parser("nodes", help="list the node catalog, or describe one node")
    nodes.add_argument("name", nargs="?")
    nodes.set_defaults(func=cmd_nodes)

    bench = sub.add_parser("bench", help="time performance scenario files (driver cost subtracted)")
    bench.add_argument("files", nargs="+", metavar="FILE")
    bench.add_argument("--compare-modes", action="store_true", help="raw/push/pull/pushpull side by side per engine")
    bench.add_argument("--engine", choices=["p1", "p2"], help="measure only this engine (default: both)")
    bench.add_argument("--cycles", type=parse_count, default=100_000, help="cycles per timed iteration (default 100000)")
    bench.add_argument("--iters", type=int, default=5, help="timed iterations (default 5)")
    bench.add_argument("--json", action="store_true", help="print the measurements as JSON")
    bench.add_argument("--lib", action="append", default=[])
    bench.set_defaults(func=cmd_bench)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``polydat`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "threads", 1) < 1:
        parser.error("--threads must be >= 1")
    try:
        return int(args.func(args))
    except PolydatError as err:
        print(str(err), file=sys.stderr)
        return 1
    except UsageError as err:
        print(f"polydat: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # pragma: no cover - e.g. `| head`
        return 0
    except (OSError, UnicodeDecodeError) as err:
        print(f"polydat: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("polydat: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
