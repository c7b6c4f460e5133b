//! The snapshot of the resolved graph taken while compiling, for `explain
//! --dot` (the program keeps it; `program::explain` renders it).

use super::graph::{Graph, Wire};
use super::pass::{Pass, PassContext};
use crate::error::CompileError;
use crate::ir::WireIr;
use crate::program::explain::{GraphSnapshot, SnapshotNode};

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
