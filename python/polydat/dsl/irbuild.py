"""Building the graph IR (the JSON form of ``polydat-core``'s ``GraphIr``).

Shapes (see ``rust/polydat-core/src/ir.rs``)::

    inputs:  [{"name", "type", "kind": "coordinate"|"extern", "default": ConstIr|null, "span"}]
    nodes:   [{"op", "args": [{"wire": Wire} | {"const": ConstIr}], "span"}]
    outputs: [{"name", "wire": Wire, "modifiers": [...], "span"}]
    Wire     = {"input": i} | {"node": {"node": n, "port": p}}
    ConstIr  = {"u64": n} | {"i64": n} | {"f64": ieee_bits} | {"bool": b} | {"str": s}

Nodes are appended in dependency order: a node's wire arguments only name
inputs and earlier nodes.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .ast import Span

Wire = dict[str, Any]
ArgIr = dict[str, Any]


class Port(NamedTuple):
    """A typed wire: one output of a node, or an input slot.

    ``coordinate`` is the index of a coordinate input this value depends on
    (the first one found), or None: it is how ``const`` bindings are checked.
    """

    wire: Wire
    type: str
    coordinate: int | None = None

    def arg(self) -> ArgIr:
        """This port as an IR wire argument."""
        return {"wire": self.wire}


def input_wire(index: int) -> Wire:
    """The wire reading input slot ``index``."""
    return {"input": index}


def node_wire(node: int, port: int) -> Wire:
    """The wire reading output ``port`` of node ``node``."""
    return {"node": {"node": node, "port": port}}


def const_arg(const: dict[str, Any]) -> ArgIr:
    """A constant IR argument."""
    return {"const": const}


class GraphBuilder:
    """Accumulates inputs, nodes and outputs of one program."""

    def __init__(self) -> None:
        self.inputs: list[dict[str, Any]] = []
        self.nodes: list[dict[str, Any]] = []
        self.outputs: list[dict[str, Any]] = []

    def add_input(self, name: str, type_: str, kind: str, span: Span, default: dict[str, Any] | None = None,
                  default_span: Span | None = None) -> int:
        """Declare an input slot (``default_span``: where its default is written); returns its index."""
        self.inputs.append({"name": name, "type": type_, "kind": kind, "default": default, "span": span.to_ir()})
        if default_span is not None:
            self.inputs[-1]["default_span"] = default_span.to_ir()
        return len(self.inputs) - 1

    def add_node(self, op: str, args: list[ArgIr], span: Span, arg_spans: list[Span | None] | None = None) -> int:
        """Append a node (``arg_spans``: per argument, where it is written when not at
        the call, for the core's errors about it); returns its index."""
        node: dict[str, Any] = {"op": op, "args": args, "span": span.to_ir()}
        if arg_spans is not None and any(s is not None and s != span for s in arg_spans):
            node["arg_spans"] = [None if s is None or s == span else s.to_ir() for s in arg_spans]
        self.nodes.append(node)
        return len(self.nodes) - 1

    def add_output(self, name: str, wire: Wire, modifiers: tuple[str, ...], span: Span) -> None:
        """Declare a named output."""
        self.outputs.append({"name": name, "wire": wire, "modifiers": list(modifiers), "span": span.to_ir()})

    def to_json(self) -> dict[str, Any]:
        """The IR as a JSON-serialisable dict."""
        return {"inputs": self.inputs, "nodes": self.nodes, "outputs": self.outputs}
