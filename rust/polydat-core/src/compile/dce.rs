//! Dead-code elimination: keeps only the nodes some requested output needs
//! (side-channel nodes are pinned), and drops outputs that were not requested.

use super::events::{CompileEvent, EventKind};
use super::graph::{Graph, Wire};
use crate::error::CompileError;
use crate::node::Purity;

/// Restricts `graph` to `requested` outputs (all when `None`) and the nodes they reach.
pub fn eliminate(graph: &mut Graph, requested: Option<&[String]>, events: &mut Vec<CompileEvent>) -> Result<(), CompileError> {
    if let Some(names) = requested {
        for name in names {
            if !graph.outputs.iter().any(|o| &o.name == name) {
                let known: Vec<&str> = graph.outputs.iter().map(|o| o.name.as_str()).collect();
                return Err(CompileError::bare(format!("no output named '{name}'"))
                    .hint(format!("outputs are: {}", known.join(", "))));
            }
        }
        graph.outputs.retain(|o| names.contains(&o.name));
    }
    let mut live = vec![false; graph.nodes.len()];
    let mut stack: Vec<usize> = graph
        .outputs
        .iter()
        .filter_map(|o| match o.wire {
            Wire::Node(n, _) => Some(n as usize),
            Wire::Input(_) => None,
        })
        .chain((0..graph.nodes.len()).filter(|&i| graph.nodes[i].def.purity == Purity::SideChannel))
        .collect();
    while let Some(n) = stack.pop() {
        if std::mem::replace(&mut live[n], true) {
            continue;
        }
        stack.extend(graph.producers(n).filter(|&p| !live[p]));
    }
    let dropped = live.iter().filter(|l| !**l).count();
    if dropped > 0 {
        let order: Vec<usize> = (0..graph.nodes.len()).filter(|&i| live[i]).collect();
        graph.reorder(&order);
        events.push(CompileEvent::new(
            EventKind::DeadCodeEliminated,
            None,
            format!("{dropped} node(s) not needed by any requested output"),
        ));
    }
    Ok(())
}
