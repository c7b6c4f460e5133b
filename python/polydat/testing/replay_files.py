"""Replay files: a failing example as one standalone DSL file.

A replay file is an ordinary ``.polydat`` program whose leading comments carry
the script: a readable line per step, and a ``#@`` line holding the same step
as JSON (floats as their IEEE-754 bits, so ``-0.0`` and NaN payloads survive).
``polydat check`` and ``polydat run`` accept it like any other program.

Usage::

    from polydat.testing import replay, load_replay

    text = replay(example)               # prints it and returns the text
    replay(example, path="bug.polydat")  # also writes it to a file
    example = load_replay(open("bug.polydat").read())

    # from a shell: run a replay file on every engine and report
    #   python -m polydat.testing bug.polydat
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TextIO

from .script import REPLAY_PULLS, REPLAY_STEP, Example, Step, decode_step, replay_text

__all__ = ["replay", "replay_text", "load_replay", "check_replay", "main"]

def replay(
    example: Example,
    *,
    path: str | os.PathLike[str] | None = None,
    file: TextIO | None = None,
    quiet: bool = False,
) -> str:
    """Returns ``example`` as a standalone replay file; prints it (to ``file``,
    default stderr) unless ``quiet``, and writes it to ``path`` when given."""
    text = replay_text(example.source, example.steps, example.pulls)
    if path is not None:
        with open(path, "w", encoding="utf-8") as out:
            out.write(text)
    if not quiet:
        print(text, file=file if file is not None else sys.stderr)
    return text


def load_replay(text: str) -> Example:
    """Reads a replay file back into an :class:`Example` (the program text is the whole file)."""
    import json

    steps: list[Step] = []
    pulls: list[str] | None = None
    for line in text.splitlines():
        if line.startswith(REPLAY_PULLS):
            pulls = list(json.loads(line[len(REPLAY_PULLS):]))
        elif line.startswith(REPLAY_STEP):
            steps.append(decode_step(line[len(REPLAY_STEP):]))
    return Example(text, steps, pulls)


def check_replay(text: str) -> str:
    """Runs a replay file on every engine; returns a report (raises AssertionError on a disagreement)."""
    from .runner import assert_engines_agree

    example = load_replay(text)
    table = assert_engines_agree(example.source, example.steps, example.pulls)
    return "all engines agree\n" + table.summary()


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m polydat.testing FILE...``: check replay files on every engine."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print("usage: python -m polydat.testing FILE.polydat...  (replay files from polydat.testing.replay)")
        return 0 if args else 2
    status = 0
    for name in args:
        with open(name, encoding="utf-8") as f:
            text = f.read()
        try:
            print(f"{name}: {check_replay(text)}")
        except AssertionError as err:
            print(f"{name}: {err}")
            status = 1
    return status
