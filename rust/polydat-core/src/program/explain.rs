//! What `explain` shows beyond the steps and events, as the compiler
//! recorded it: node counts after each pass, a snapshot of the resolved graph
//! (for `explain --dot`), the options used, and how the running engine
//! describes its plan. (`compile::explain` records and renders it.)

use crate::ir::{InputKind, Span, WireIr};
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

/// A constant as source-like text: `1000`, `2.5`, `"key"`.
pub fn literal_text(v: &crate::value::Value) -> String {
    match v {
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
