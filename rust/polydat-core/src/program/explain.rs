//! What `explain` shows beyond the steps and events, as the compiler
//! recorded it: node counts after each pass, a snapshot of the resolved graph
//! (for `explain --dot`), the options used, and how the running engine
//! describes its plan; and the whole explain document rendered as JSON from
//! the program ([`explain_json`]). (The compiler records it: the pass trace
//! in `compile::pass`, the snapshot in `compile::snapshot`.)

use super::lifecycle::Lifecycle;
use super::Program;
use crate::ir::{InputKind, Span, WireIr};
use crate::node::Purity;
use crate::types::PortType;
use crate::value::Value;
use serde::Serialize;
use serde_json::{json, Value as Json};

/// One pass of the pipeline: the node count after it and its duration.
#[derive(Clone, Debug, Serialize)]
pub struct PassRecord {
    /// The pass name (`resolve`, `fusion`, `emit`, ...).
    pub pass: &'static str,
    /// Nodes in the graph after the pass.
    pub nodes: usize,
    /// Time since the previous record (the pass's duration), in microseconds.
    pub micros: u64,
    /// What the pass did, in a few words (e.g. "3 rewrites in 2 iterations").
    pub note: String,
}

/// A node of the resolved-graph snapshot (formatted only when explained).
#[derive(Clone, Debug)]
pub struct SnapshotNode {
    /// The node's op name.
    pub op: &'static str,
    /// The node's construction constants.
    pub consts: Vec<Value>,
    /// The wires the node reads, in argument order.
    pub wires: Vec<WireIr>,
    /// The node's source position.
    pub span: Span,
    /// Bindings (outputs) naming this node.
    pub bindings: Vec<String>,
}

/// The graph as resolution left it (adapters inserted, before fusion).
#[derive(Clone, Debug, Default)]
pub struct GraphSnapshot {
    /// Inputs as (name, type, kind).
    pub inputs: Vec<(String, PortType, InputKind)>,
    /// The nodes, in graph order (wires index into this list).
    pub nodes: Vec<SnapshotNode>,
}

impl GraphSnapshot {
    /// The snapshot as JSON: inputs as `[name, type, kind]`; nodes with `op`,
    /// `consts` (display text), `wires` (`"in:<input>"` or `"node:<node>:<port>"`),
    /// `line`, `col` and `bindings`.
    pub fn to_json(&self) -> Json {
        let inputs: Vec<Json> = self
            .inputs
            .iter()
            .map(|(name, ty, kind)| json!([name, ty.keyword(), format!("{kind:?}").to_lowercase()]))
            .collect();
        let nodes: Vec<Json> = self
            .nodes
            .iter()
            .map(|n| {
                let wires: Vec<String> = n
                    .wires
                    .iter()
                    .map(|w| match w {
                        WireIr::Input(i) => format!("in:{i}"),
                        WireIr::Node { node, port } => format!("node:{node}:{port}"),
                    })
                    .collect();
                json!({
                    "op": n.op,
                    "consts": n.consts.iter().map(literal_text).collect::<Vec<_>>(),
                    "wires": wires,
                    "line": n.span.line,
                    "col": n.span.col,
                    "bindings": n.bindings,
                })
            })
            .collect();
        json!({"inputs": inputs, "nodes": nodes})
    }
}

/// Strings longer than this are shown by their start and size ([`literal_text`]).
const LONG_LITERAL: usize = 256;

/// A constant as source-like text: `1000`, `2.5`, `"key"`; a string of
/// more than 256 bytes (a text pool) by its first 48 and its size:
/// `"furiously regular"… (16777216 bytes)`.
pub fn literal_text(v: &crate::value::Value) -> String {
    match v {
        Value::Str(s) if s.len() > LONG_LITERAL => {
            let end = (0..=48).rev().find(|&i| s.is_char_boundary(i)).unwrap_or(0);
            format!("{:?}… ({} bytes)", &s[..end], s.len())
        }
        Value::Str(s) => format!("{s:?}"),
        Value::F64(f) => format!("{f:?}"),
        other => other.display_text(),
    }
}

/// Everything `explain` needs beyond the program's steps and events.
#[derive(Clone, Debug, Default)]
pub struct ExplainData {
    /// Node count, duration and note of every pass, in pipeline order.
    pub passes: Vec<PassRecord>,
    /// The resolved graph, for `explain --dot`.
    pub resolved: GraphSnapshot,
    /// Whether Node Fusion ran (the `fusion` option).
    pub fusion: bool,
    /// Whether implicit coercions were refused (the `strict` option).
    pub strict: bool,
    /// The outputs requested with `outputs=[...]` (`None`: all).
    pub requested_outputs: Option<Vec<String>>,
}

/// How an engine runs a program, as `explain` shows it: one sentence (P2:
/// closure and slot-kit steps, whether reads sweep) and, for the mixed
/// engine, its native segments and why every other step stays interpreted.
/// The engine layer describes itself; `explain` only renders what it is given.
#[derive(Clone, Debug, Default, Serialize)]
pub struct EnginePlan {
    /// The engine that runs (`p1`, `p2/pull`, ...).
    pub running: String,
    /// One sentence on how it runs the program (empty: nothing to add).
    pub plan: String,
    /// Native segments, each as its member steps (empty unless the engine is mixed).
    pub native_segments: Vec<Vec<u32>>,
    /// The steps a mixed engine interprets, each with the reason.
    pub interpreted: Vec<(u32, &'static str)>,
}

/// The whole explain document of `program` as JSON text; `plan` is how the
/// engine that runs it runs it (see [`EnginePlan`]).
pub fn explain_json(program: &Program, plan: &EnginePlan) -> String {
    let selection = &program.selection;
    let a = &selection.analysis;
    let engine = json!({
        "requested": selection.requested,
        "chosen": plan.running,
        "selected": selection.engine.name(),
        "provenance": plan.running.split_once('/').map_or("", |(_, m)| m),
        "reason": selection.reason,
        "heuristic_inputs": [
            ["total_nodes", a.total_nodes.to_string()],
            ["max_output_cone", a.max_output_cone.to_string()],
            ["output_cone_ratio", format!("{:.3}", a.output_cone_ratio)],
            ["stable_nodes", a.stable_nodes.to_string()],
            ["stable_ratio", format!("{:.3}", a.stable_ratio)],
            ["heuristic_choice", a.choice.name().to_string()],
        ],
        "native_segments": plan.native_segments,
        "interpreted": plan.interpreted.iter().map(|&(step, why)| json!({"step": step, "reason": why})).collect::<Vec<_>>(),
        "plan": plan.plan,
    });
    let steps: Vec<Json> = program
        .steps
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let ins: Vec<Json> = s
                .ins
                .iter()
                .map(|&slot| match program.step_of_slot(slot) {
                    None => json!({"input": slot}),
                    Some(p) => json!({"step": p, "port": slot - program.steps[p].out_start}),
                })
                .collect();
            json!({
                "index": i,
                "op": s.def.name,
                "consts": s.consts.iter().map(literal_text).collect::<Vec<_>>(),
                "ins": ins,
                "out_types": s.out_types.iter().map(|t| t.keyword()).collect::<Vec<_>>(),
                "lifecycle": s.lifecycle.name(),
                "capture": s.capture,
                "volatile": s.volatile,
                "side_channel": s.def.purity == Purity::SideChannel,
                "scalar": s.is_scalar(),
                "native_form": s.def.lower.is_some(),
                "line": s.span.line,
                "col": s.span.col,
                "bindings": s.feeds,
            })
        })
        .collect();
    let bindings: Vec<Json> = program
        .outputs
        .iter()
        .map(|o| {
            let lifecycle = match o.step {
                Some(s) => program.steps[s as usize].lifecycle,
                None => Lifecycle::Dynamic,
            };
            json!({
                "name": o.name,
                "type": o.ty.keyword(),
                "lifecycle": lifecycle.name(),
                "modifiers": o.modifiers,
                "step": o.step,
            })
        })
        .collect();
    let events: Vec<Json> = program
        .events
        .iter()
        .map(|e| {
            let (line, col) = e.span.map(|s| (s.line, s.col)).unwrap_or((0, 0));
            json!({"kind": e.kind.name(), "message": e.message, "line": line, "col": col})
        })
        .collect();
    let count = |l: Lifecycle| program.steps.iter().filter(|s| s.lifecycle == l).count();
    let doc = json!({
        "engine": engine,
        "options": {
            "fusion": program.explain.fusion,
            "strict": program.explain.strict,
            "outputs": program.explain.requested_outputs,
            "engine": selection.requested,
            "provenance": selection.provenance,
        },
        "stats": {
            "nodes_resolved": program.stats.nodes_resolved,
            "nodes_final": program.stats.nodes_final,
            "compile_micros": program.stats.compile_micros as u64,
            "fusions": program.stats.fusions,
            "polyfills": program.stats.polyfills,
            "folded": program.stats.folded,
            "adapters": program.stats.adapters,
        },
        "passes": program.explain.passes,
        "lifecycle_counts": {
            "compile_const": count(Lifecycle::CompileConst),
            "scope_init": count(Lifecycle::ScopeInit),
            "dynamic": count(Lifecycle::Dynamic),
        },
        "scope_init_steps": program.scope_init_steps,
        "inputs": program.inputs.iter().map(|i| json!({
            "name": i.name, "type": i.ty.keyword(), "kind": format!("{:?}", i.kind).to_lowercase(),
        })).collect::<Vec<_>>(),
        "bindings": bindings,
        "steps": steps,
        "events": events,
        "resolved": program.explain.resolved.to_json(),
    });
    doc.to_string()
}
