"""Small helpers shared by the DSL tests."""

from __future__ import annotations

import struct
from typing import Any


def f64_bits(value: float) -> int:
    """IEEE bits of ``value``."""
    return struct.unpack("<Q", struct.pack("<d", value))[0]


def ops(bound: Any) -> list[str]:
    """The op of every IR node, in order."""
    return [node["op"] for node in bound.ir["nodes"]]


def output(bound: Any, name: str) -> dict[str, Any]:
    """The IR output entry called ``name``."""
    for entry in bound.ir["outputs"]:
        if entry["name"] == name:
            return entry
    raise KeyError(name)


def producer(bound: Any, name: str) -> dict[str, Any]:
    """The IR node whose port output ``name`` reads."""
    wire = output(bound, name)["wire"]
    return bound.ir["nodes"][wire["node"]["node"]]


def arg_node(bound: Any, node: dict[str, Any], index: int) -> dict[str, Any]:
    """The node feeding wire argument ``index`` of ``node``."""
    wire = node["args"][index]["wire"]
    return bound.ir["nodes"][wire["node"]["node"]]


def tree(bound: Any, name: str) -> Any:
    """A nested (op, args...) rendering of the expression feeding output ``name``.

    Inputs render as their name, constants as their value (f64 constants as floats).
    """
    ir = bound.ir

    def render_wire(wire: dict[str, Any]) -> Any:
        if "input" in wire:
            return ir["inputs"][wire["input"]]["name"]
        node = ir["nodes"][wire["node"]["node"]]
        rendered = render_node(node)
        port = wire["node"]["port"]
        return rendered if port == 0 else (rendered, f"port{port}")

    def render_const(const: dict[str, Any]) -> Any:
        (kind, value), = const.items()
        if kind == "f64":
            return struct.unpack("<d", struct.pack("<Q", value))[0]
        return value

    def render_node(node: dict[str, Any]) -> Any:
        if node["op"] == "__lit":
            return render_const(node["args"][0]["const"])
        parts = [node["op"]]
        for arg in node["args"]:
            parts.append(render_wire(arg["wire"]) if "wire" in arg else ("const", render_const(arg["const"])))
        return tuple(parts)

    return render_wire(output(bound, name)["wire"])
