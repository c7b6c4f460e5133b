//! `explain`: the snapshot of the resolved graph taken while compiling, and
//! the whole explain document rendered as JSON from the program — its
//! passes, steps, lifecycles, events, the selection stage's choice, and the
//! plan the running engine describes (`program::explain` holds the records).

use super::graph::{Graph, Wire};
use super::pass::{Pass, PassContext};
use crate::error::CompileError;
use crate::ir::WireIr;
use crate::node::Purity;
pub use crate::program::explain::{literal_text, EnginePlan, ExplainData, GraphSnapshot, PassRecord, SnapshotNode};
use crate::program::lifecycle::Lifecycle;
use crate::program::Program;
use serde_json::{json, Value as Json};

impl GraphSnapshot {
    /// Records `graph` (cheap: no formatting until [`GraphSnapshot::to_json`]).
    pub fn of(graph: &Graph) -> GraphSnapshot {
        let inputs = graph.inputs.iter().map(|i| (i.name.clone(), i.ty, i.kind)).collect();
        let mut bindings = graph.output_names_by_node();
        let nodes = graph
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| SnapshotNode {
                op: n.def.name,
                consts: n.consts.clone(),
                wires: n
                    .wires
                    .iter()
                    .map(|w| match *w {
                        Wire::Input(i) => WireIr::Input(i as usize),
                        Wire::Node(n, p) => WireIr::Node { node: n as usize, port: p as usize },
                    })
                    .collect(),
                span: n.span,
                bindings: std::mem::take(&mut bindings[i]),
            })
            .collect();
        GraphSnapshot { inputs, nodes }
    }
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

/// The `snapshot` pass: the resolved graph kept for `explain --dot`.
pub struct Snapshot;

impl Pass for Snapshot {
    fn name(&self) -> &'static str {
        "snapshot"
    }

    fn run(&self, graph: &mut Graph, cx: &mut PassContext<'_>) -> Result<Option<String>, CompileError> {
        cx.resolved = GraphSnapshot::of(graph);
        Ok(Some("resolved graph kept for explain --dot".into()))
    }
}
