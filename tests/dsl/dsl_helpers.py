"""Small helpers shared by the DSL tests."""

from __future__ import annotations

import importlib
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


def core_program(bound: Any) -> Any:
    """The core's compilation of ``bound`` (raises the core's CompileError)."""
    core = importlib.import_module("polydat._core")
    return core.Program.compile(bound.ir_json(), strict=bound.strict_types, strict_names=bound.strict)


def output_types(bound: Any) -> dict[str, str]:
    """{output: type} of ``bound`` as the core types it, in source order."""
    typed = dict(core_program(bound).outputs)
    return {name: typed[name] for name in bound.output_names}


def core_tree(bound: Any, name: str, adapters: bool = False) -> Any:
    """A nested (op, args...) rendering of output ``name`` in the core's typed
    graph (after desugaring): inputs render as their name, literals as their
    value; the adapters the core inserts on mixed wires are left out unless
    ``adapters``."""
    import json

    resolved = json.loads(core_program(bound).explain_json())["resolved"]
    nodes = resolved["nodes"]
    inputs = [i[0] for i in resolved["inputs"]]

    def render_wire(wire: str) -> Any:
        kind, *place = wire.split(":")
        if kind == "in":
            return inputs[int(place[0])]
        rendered = render_node(nodes[int(place[0])])
        return rendered if place[1] == "0" else (rendered, f"port{place[1]}")

    def render_node(node: dict[str, Any]) -> Any:
        if node["op"] == "__lit":
            return json.loads(node["consts"][0])
        if not adapters and node["op"].startswith("__") and "_to_" in node["op"]:
            return render_wire(node["wires"][0])
        consts = [("const", json.loads(c)) for c in node["consts"]]
        wires = [render_wire(w) for w in node["wires"]]
        return (node["op"], *_in_parameter_order(node["op"], consts, wires))

    (bound_node,) = [n for n in nodes if name in n["bindings"]]
    return render_node(bound_node)


def core_ops(bound: Any) -> list[str]:
    """The op of every node of the core's typed graph (after desugaring), in
    order, the adapters the core inserts on mixed wires left out."""
    import json

    nodes = json.loads(core_program(bound).explain_json())["resolved"]["nodes"]
    return [n["op"] for n in nodes if not (n["op"].startswith("__") and "_to_" in n["op"])]


def _in_parameter_order(op: str, consts: list[Any], wires: list[Any]) -> list[Any]:
    """A node's constants and wires interleaved in its parameters' order (the catalog's)."""
    from polydat.dsl import default_catalog

    spec = default_catalog().lookup(op)
    if spec is None:
        return [*consts, *wires]
    out: list[Any] = []
    for param in spec.params:
        source = consts if param.kind == "const" else wires
        take = len(source) if param.variadic else min(1, len(source))
        out.extend(source[:take])
        del source[:take]
    return [*out, *consts, *wires]
