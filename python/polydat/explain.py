"""What the compiler did to a program, for people (``explain``) and for
Graphviz (``to_dot``).

Both read the explain document the core records while compiling
(``Program.explain_data()``): node counts after every pass, the adapters,
fusions and folded constants (compile events), the lifecycle class of every
binding and step, the engine choice with its heuristic's inputs, and a
snapshot of the resolved graph (adapters inserted, before fusion).
"""

from __future__ import annotations

from typing import Any

__all__ = ["explain", "to_dot", "explain_data"]

_LIFECYCLE_WORDS = {
    "compile_const": "compile-const (folded at build)",
    "scope_init": "scope-init (once per kernel)",
    "dynamic": "dynamic (per cycle)",
}

_STEP_COLORS = {"compile_const": "#e8e8e8", "scope_init": "#cfe2ff", "dynamic": "#ffffff"}


def explain_data(program: Any) -> dict[str, Any]:
    """The explain document of ``program`` (a :class:`polydat.Program` or a core program)."""
    if hasattr(program, "explain_data"):
        return program.explain_data()
    import json

    core = getattr(program, "_core", program)
    return json.loads(core.explain_json())


def _where(event: dict[str, Any]) -> str:
    return f"{event['line']}:{event['col']}" if event.get("line") else "-"


def _table(rows: list[list[str]], indent: str = "  ") -> list[str]:
    if not rows:
        return []
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [indent + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]


def explain(program: Any) -> str:
    """A human-readable account of how ``program`` was compiled."""
    doc = explain_data(program)
    engine = doc["engine"]
    stats = doc["stats"]
    options = doc["options"]
    lines: list[str] = []

    requested = options.get("engine") or engine.get("requested") or "auto"
    asked_provenance = options.get("provenance") or "auto"
    lines.append(f"engine: {engine['chosen']} (requested engine={requested}, provenance={asked_provenance})")
    if engine.get("reason"):
        lines.append(f"  why: {engine['reason']}")
    if engine.get("heuristic_inputs"):
        lines.append("  heuristic inputs: " + ", ".join(f"{k}={v}" for k, v in engine["heuristic_inputs"]))
    if engine.get("plan"):
        lines.append(f"  plan: {engine['plan']}")
    steps = doc["steps"]

    def step_name(index: int) -> str:
        step = steps[index]
        shown = [b for b in step["bindings"] if not b.startswith("__")]
        return f"{step['op']}" + (f" ({', '.join(shown)})" if shown else "")

    for n, members in enumerate(engine.get("native_segments") or [], 1):
        lines.append(f"  native segment {n}: " + ", ".join(step_name(s) for s in members))
    for note in engine.get("interpreted") or []:
        lines.append(f"  interpreted: {step_name(note['step'])}: {note['reason']}")
    flags = [f"fusion {'on' if options['fusion'] else 'off'}", f"strict {'on' if options['strict'] else 'off'}"]
    if options.get("outputs") is not None:
        flags.append("outputs " + ", ".join(options["outputs"]))
    lines.append("options: " + "; ".join(flags))
    lines.append(
        f"nodes: {stats['nodes_resolved']} resolved -> {stats['nodes_final']} final "
        f"({stats['adapters']} adapters, {stats['fusions']} fusions, {stats['polyfills']} polyfills, "
        f"{stats['folded']} folded); compiled in {stats['compile_micros']} us"
    )

    lines.append("")
    lines.append("passes:")
    lines.extend(
        _table([[p["pass"], f"{p['nodes']} nodes", f"{p['micros']} us", p.get("note", "")] for p in doc["passes"]])
    )

    counts = doc["lifecycle_counts"]
    lines.append("")
    lines.append(
        f"lifecycle: {counts['compile_const']} compile-const, {counts['scope_init']} scope-init, "
        f"{counts['dynamic']} dynamic steps; the scope-init path runs {len(doc['scope_init_steps'])} step(s) "
        "once per kernel"
    )
    rows = []
    for b in doc["bindings"]:
        if b["name"].startswith("__"):
            continue
        mods = " ".join(b["modifiers"])
        rows.append([b["name"], b["type"], _LIFECYCLE_WORDS.get(b["lifecycle"], b["lifecycle"]), mods])
    if rows:
        lines.append("bindings:")
        lines.extend(_table(rows))

    sections = [
        ("adapters", "TypeAdapterInserted"),
        ("picks carried as an index", "PickCarriedAsIndex"),
        ("fusions", "FusionApplied"),
        ("polyfills", "PolyfillApplied"),
        ("folded constants", "ConstantFolded"),
    ]
    shown = {kind for _, kind in sections}
    for title, kind in sections:
        events = [e for e in doc["events"] if e["kind"] == kind]
        if events:
            lines.append("")
            lines.append(f"{title}:")
            lines.extend(_table([[_where(e), e["message"]] for e in events]))
    others = [e for e in doc["events"] if e["kind"] not in shown]
    if others:
        lines.append("")
        lines.append("other events:")
        lines.extend(_table([[_where(e), e["kind"], e["message"]] for e in others]))
    return "\n".join(lines)


def _dot_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def to_dot(program: Any, stage: str = "resolved") -> str:
    """Graphviz DOT of ``program``'s graph.

    ``stage="resolved"`` (the default) draws the graph as resolution left it —
    adapters inserted, before fusion and folding; ``stage="final"`` draws the
    steps that run, shaded by lifecycle class. Nodes are labelled with their op,
    constants and the bindings that name them; edges are wires.
    """
    doc = explain_data(program)
    out = ["digraph polydat {", "  rankdir=LR;", '  node [fontname="Helvetica", fontsize=10];']
    inputs = doc["resolved"]["inputs"] if stage == "resolved" else [
        (i["name"], i["type"], i["kind"]) for i in doc["inputs"]
    ]
    for i, (name, ty, kind) in enumerate(inputs):
        shape = "invhouse" if kind == "coordinate" else "house"
        out.append(f'  in{i} [shape={shape}, label="{_dot_text(f"{name}: {ty}  ({kind})")}"];')

    def node_label(op: str, consts: list[str], bindings: list[str], extra: str = "") -> str:
        text = op
        if consts:
            text += "(" + ", ".join(consts) + ")"
        if bindings:
            text = " / ".join(bindings) + "\n" + text
        return _dot_text(text + extra)

    if stage == "resolved":
        for n, node in enumerate(doc["resolved"]["nodes"]):
            label = node_label(node["op"], node["consts"], node["bindings"])
            style = ', style="rounded,bold"' if node["bindings"] else ', style=rounded'
            out.append(f'  n{n} [shape=box{style}, label="{label}"];')
            for port_index, wire in enumerate(node["wires"]):
                out.append(f"  {_dot_source(wire)} -> n{n} [label=\"{port_index}\", fontsize=8];")
    elif stage == "final":
        for step in doc["steps"]:
            n = step["index"]
            extra = f"\n[{step['lifecycle']}" + (", const capture]" if step["capture"] else "]")
            label = node_label(step["op"], step["consts"], step["bindings"], extra)
            color = _STEP_COLORS.get(step["lifecycle"], "#ffffff")
            out.append(f'  n{n} [shape=box, style="rounded,filled", fillcolor="{color}", label="{label}"];')
            for port_index, src in enumerate(step["ins"]):
                source = f"in{src['input']}" if "input" in src else f"n{src['step']}"
                out.append(f'  {source} -> n{n} [label="{port_index}", fontsize=8];')
    else:
        raise ValueError(f"unknown stage {stage!r}; choose 'resolved' or 'final'")
    out.append("}")
    return "\n".join(out)


def _dot_source(wire: str) -> str:
    kind, _, rest = wire.partition(":")
    if kind == "in":
        return f"in{rest}"
    node, _, _port = rest.partition(":")
    return f"n{node}"
