"""Scripts of writes and pulls: the input the engines are compared on.

A script is a sequence of steps. Each step optionally *writes* inputs and then
*pulls* outputs, in order. Plain values are accepted wherever a step is::

    5                          # set_inputs(5): the coordinate(s) positionally
    (5, 7)                     # set_inputs(5, 7)
    {"cycle": 5, "region": "eu"}   # coordinates by name, externs with set()
    Step({"x": 0.5}, pulls=["y"])  # write, then pull only y
    Step(None, pulls=["y", "y"])   # pull twice without a write
    Step(invalidate_all=True)      # invalidate_all(), then the default pulls
    Step(5, pulls=[EVAL])          # write, then one eval() of every output

A mapping's keys that name coordinates go to ``set_inputs(**...)`` in one
call; the other keys are externs written one by one with ``set`` in the order
given. Pulls default to every output of the program in declaration order.

Scripts round-trip through JSON (:func:`encode_steps` / :func:`decode_steps`)
with floats stored as their bits, so a replay file reproduces NaN payloads and
negative zero exactly.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Union

from .canon import bits_f64, f64_bits

__all__ = [
    "EVAL",
    "Example",
    "Step",
    "Write",
    "as_steps",
    "apply_write",
    "describe_write",
    "encode_steps",
    "decode_steps",
]

EVAL = "*eval*"
"""A pseudo-output: pulling it calls ``Kernel.eval()`` (one read of every output)."""

Write = Union[None, int, float, str, bytes, bool, Sequence[Any], Mapping[str, Any]]
"""What a step writes: nothing, positional coordinates, or a name → value map."""


@dataclass(frozen=True)
class Step:
    """One script step: ``write`` (optional), ``invalidate_all`` (optional), then ``pulls``.

    ``pulls=None`` means "the default pulls" (every output, or the
    ``pulls`` argument given to :func:`polydat.testing.outcomes`).
    """

    write: Write = None
    pulls: tuple[str, ...] | None = None
    invalidate_all: bool = False

    def __init__(self, write: Write = None, pulls: Iterable[str] | None = None, invalidate_all: bool = False):
        object.__setattr__(self, "write", _freeze(write))
        object.__setattr__(self, "pulls", tuple(pulls) if pulls is not None else None)
        object.__setattr__(self, "invalidate_all", bool(invalidate_all))


def _freeze(write: Write) -> Write:
    if isinstance(write, Mapping):
        return dict(write)
    if isinstance(write, list):
        return tuple(write)
    return write


def as_steps(script: Iterable[Step | Write]) -> list[Step]:
    """Normalizes a script: plain writes become :class:`Step` objects."""
    return [item if isinstance(item, Step) else Step(item) for item in script]


def apply_write(kernel: Any, coordinates: Sequence[str], write: Write) -> None:
    """Performs ``write`` on ``kernel`` (see the module docs for the forms)."""
    if write is None:
        return
    if isinstance(write, Mapping):
        coords = {k: v for k, v in write.items() if k in coordinates}
        if coords:
            kernel.set_inputs(**coords)
        for name, value in write.items():
            if name not in coords:
                kernel.set(name, value)
        return
    if isinstance(write, (tuple, list)):
        kernel.set_inputs(*write)
        return
    kernel.set_inputs(write)


def _show(value: Any) -> str:
    if isinstance(value, float):
        text = repr(value)
        if value != value or value == 0.0:
            text += f"[0x{f64_bits(value):016x}]"
        return text
    return repr(value)


def describe_write(write: Write) -> str:
    """A short readable form of a write, for assertion messages."""
    if write is None:
        return "no write"
    if isinstance(write, Mapping):
        return "{" + ", ".join(f"{k}={_show(v)}" for k, v in write.items()) + "}"
    if isinstance(write, (tuple, list)):
        return "(" + ", ".join(_show(v) for v in write) + ("," if len(write) == 1 else "") + ")"
    return _show(write)


# -- JSON round trip -------------------------------------------------------------


def _enc(value: Any) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return {"f64": f"{f64_bits(value):016x}"}
    if isinstance(value, (bytes, bytearray)):
        return {"bytes": bytes(value).hex()}
    if isinstance(value, Mapping):
        return {"map": [[k, _enc(v)] for k, v in value.items()]}
    if isinstance(value, (tuple, list)):
        return {"seq": [_enc(v) for v in value]}
    raise TypeError(f"cannot encode {type(value).__name__} in a script")


def _dec(value: Any) -> Any:
    if isinstance(value, dict):
        if "f64" in value:
            return bits_f64(int(value["f64"], 16))
        if "bytes" in value:
            return bytes.fromhex(value["bytes"])
        if "map" in value:
            return {k: _dec(v) for k, v in value["map"]}
        if "seq" in value:
            return tuple(_dec(v) for v in value["seq"])
        raise ValueError(f"unknown script value {value!r}")
    return value


def encode_step(step: Step) -> str:
    """One step as a single-line JSON object."""
    obj: dict[str, Any] = {"write": _enc(step.write)}
    if step.pulls is not None:
        obj["pulls"] = list(step.pulls)
    if step.invalidate_all:
        obj["invalidate_all"] = True
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def decode_step(text: str) -> Step:
    """The inverse of :func:`encode_step`."""
    obj = json.loads(text)
    return Step(_dec(obj.get("write")), obj.get("pulls"), bool(obj.get("invalidate_all", False)))


def encode_steps(steps: Iterable[Step | Write]) -> list[str]:
    """Every step as a JSON line (floats as their bits)."""
    return [encode_step(s) for s in as_steps(steps)]


def decode_steps(lines: Iterable[str]) -> list[Step]:
    """Steps from JSON lines written by :func:`encode_steps`."""
    return [decode_step(line) for line in lines]


@dataclass(frozen=True)
class Example:
    """A program with its script: what :func:`polydat.testing.programs` generates
    and :func:`polydat.testing.replay` writes out.

    ``pulls`` is the default pull list (``None``: every output in turn).
    """

    source: str
    steps: tuple[Step, ...]
    pulls: tuple[str, ...] | None = None

    def __init__(self, source: str, steps: Iterable[Step | Write], pulls: Iterable[str] | None = None):
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "steps", tuple(as_steps(steps)))
        object.__setattr__(self, "pulls", tuple(pulls) if pulls is not None else None)

    def __str__(self) -> str:
        return replay_text(self.source, self.steps, self.pulls)


REPLAY_HEADER = "# polydat.testing replay"
"""The first line of a replay file."""
REPLAY_STEP = "#@ "
"""The prefix of a replay file's machine-readable step lines."""
REPLAY_PULLS = "#@pulls "
"""The prefix of a replay file's default pulls line."""


def replay_text(source: str, steps: Iterable[Step | Write], pulls: Sequence[str] | None = None) -> str:
    """The replay file for ``source`` and its script, as text."""
    import json

    lines = [
        f"{REPLAY_HEADER}: check it on every engine with `python -m polydat.testing <file>`",
        "# script: each step writes, then pulls (default: every output in turn)",
    ]
    if pulls is not None:
        lines.append(f"# default pulls: {', '.join(pulls)}")
        lines.append(REPLAY_PULLS + json.dumps(list(pulls)))
    for index, step in enumerate(as_steps(steps)):
        what = [describe_write(step.write) if step.write is not None else "no write"]
        if step.invalidate_all:
            what.append("invalidate_all()")
        if step.pulls is not None:
            what.append("pull " + (", ".join(step.pulls) if step.pulls else "nothing"))
        lines.append(f"# step {index}: " + "; ".join(what))
        lines.append(REPLAY_STEP + encode_step(step))
    body = source if source.endswith("\n") else source + "\n"
    return "\n".join(lines) + "\n" + body
