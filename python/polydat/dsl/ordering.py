"""Dependency order of a block of bindings (they may be used before they are written).

Source order when every binding reads only earlier ones (checked in one
pass); otherwise an iterative depth-first search. A cycle is reported once,
naming the bindings on it, and those bindings are returned as failed.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from . import ast
from ..errors import CompileError
from .diagnostics import Report, SourceFile


def dependency_order(
    bindings: Sequence[ast.Binding], reads: list[list[ast.Name]], owner: dict[str, int], report: Report,
    file: SourceFile,
) -> tuple[Sequence[int], set[int]]:
    """Binding indices so that each comes after the bindings it reads (iterative DFS).

    Source order -- a ``range`` -- when every binding reads only earlier ones
    (the usual case, checked in one pass). A cycle is reported once; the
    bindings on it are returned as failed.
    """
    count = len(bindings)
    get = owner.get
    for position, refs in enumerate(reads):
        for ref in refs:
            index = get(ref.name)
            if index is not None and index >= position:
                break
        else:
            continue
        break
    else:  # every binding reads only earlier ones
        return range(count), set()
    deps: list[list[tuple[int, str]]] = []
    for refs in reads:
        seen: set[int] = set()
        edges: list[tuple[int, str]] = []
        for ref in refs:
            index = get(ref.name)
            if index is not None and index not in seen:
                seen.add(index)
                edges.append((index, ref.name))
        deps.append(edges)
    state = [0] * count  # 0 unvisited, 1 on the stack, 2 done
    order: list[int] = []
    failed: set[int] = set()
    for root in range(count):
        if state[root]:
            continue
        state[root] = 1
        stack: list[tuple[int, str, Iterator[tuple[int, str]]]] = [
            (root, _display_name(bindings[root]), iter(deps[root]))
        ]
        while stack:
            node, _, edges_left = stack[-1]
            pushed = False
            for dep, via in edges_left:
                if state[dep] == 0:
                    state[dep] = 1
                    stack.append((dep, via, iter(deps[dep])))
                    pushed = True
                    break
                if state[dep] == 1:
                    start = next(i for i, entry in enumerate(stack) if entry[0] == dep)
                    members = {entry[0] for entry in stack[start:]}
                    if not members <= failed:
                        report.extend(_cycle_error(stack, dep, via, bindings, file).diagnostics)
                        failed.update(members)
            if not pushed:
                state[node] = 2
                order.append(node)
                stack.pop()
    return order, failed

def _cycle_error(
    stack: list[tuple[int, str, Iterator[tuple[int, str]]]],
    dep: int,
    via: str,
    bindings: Sequence[ast.Binding],
    file: SourceFile,
) -> CompileError:
    start = next(i for i, entry in enumerate(stack) if entry[0] == dep)
    names = [entry[1] for entry in stack[start:]]
    names[0] = via
    span = bindings[dep].span
    if len(names) == 1:
        return file.error(
            f"binding '{names[0]}' depends on itself",
            span,
            "a binding cannot read its own value; introduce an input or a different name",
        )
    path = " -> ".join([*names, names[0]])
    return file.error(
        f"cycle between bindings: {path}",
        span,
        "bindings form a dataflow graph; break the cycle with an input or extern",
    )


def _display_name(binding: ast.Binding) -> str:
    return binding.targets[0].name
