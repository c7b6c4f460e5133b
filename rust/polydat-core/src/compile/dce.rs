//! Dead-code elimination: keeps only the nodes some requested output needs
//! (side-channel nodes are pinned), and drops outputs that were not requested.

use super::graph::{Graph, Wire};
use super::pass::{Pass, PassContext};
use crate::error::CompileError;
use crate::node::Purity;
use crate::program::events::{CompileEvent, EventKind};
use std::collections::HashSet;

/// Keeps only the `requested` outputs (all when `None`); an unknown name is an
/// error listing the outputs. Runs before Node Fusion, so a node that only an
/// unrequested binding named may be fused away.
pub fn restrict_outputs(graph: &mut Graph, requested: Option<&[String]>) -> Result<(), CompileError> {
    let Some(names) = requested else {
        return Ok(());
    };
    let known: HashSet<&str> = graph.outputs.iter().map(|o| o.name.as_str()).collect();
    if let Some(name) = names.iter().find(|n| !known.contains(n.as_str())) {
        let known: Vec<&str> = graph.outputs.iter().map(|o| o.name.as_str()).collect();
        return Err(
            CompileError::bare(format!("no output named '{name}'")).hint(format!("outputs are: {}", known.join(", ")))
        );
    }
    let wanted: HashSet<&str> = names.iter().map(String::as_str).collect();
    graph.outputs.retain(|o| wanted.contains(o.name.as_str()));
    Ok(())
}

/// Drops every node that no output reaches (side-channel nodes are pinned),
/// keeping the order of the rest. Returns how many nodes were dropped.
pub fn eliminate(graph: &mut Graph, events: &mut Vec<CompileEvent>) -> usize {
    let live = live_nodes(graph);
    let dropped = live.iter().filter(|l| !**l).count();
    if dropped > 0 {
        let order: Vec<usize> = (0..graph.nodes.len()).filter(|&i| live[i]).collect();
        graph.reorder(&order);
        events.push(CompileEvent::new(
            EventKind::DeadCodeEliminated,
            None,
            format!("{dropped} node(s) dropped: no requested output reads them"),
        ));
    }
    dropped
}

/// Per node: some output or side-channel node needs it.
pub fn live_nodes(graph: &Graph) -> Vec<bool> {
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
    live
}

/// The output restriction pass: [`restrict_outputs`] to the requested
/// outputs, with the cells' starting values (`__seed_*`), which scope
/// chains read.
pub struct RestrictOutputs;

impl Pass for RestrictOutputs {
    fn name(&self) -> &'static str {
        "outputs"
    }

    fn run(&self, graph: &mut Graph, cx: &mut PassContext<'_>) -> Result<Option<String>, CompileError> {
        let kept = cx.options.outputs.as_ref().map(|names| {
            let seeds = graph.outputs.iter().map(|o| &o.name).filter(|n| n.starts_with("__seed_")).cloned();
            names.iter().cloned().chain(seeds).collect::<Vec<String>>()
        });
        restrict_outputs(graph, kept.as_deref())?;
        Ok(None)
    }
}

/// The `dce` pass: [`eliminate`].
pub struct Dce;

impl Pass for Dce {
    fn name(&self) -> &'static str {
        "dce"
    }

    fn run(&self, graph: &mut Graph, cx: &mut PassContext<'_>) -> Result<Option<String>, CompileError> {
        let dropped = eliminate(graph, &mut cx.events);
        Ok(Some(format!("{dropped} node(s) dropped")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::{resolve, sketch};

    fn graph(src: &str) -> Graph {
        resolve::resolve(&sketch::parse(src).unwrap(), &mut Vec::new()).unwrap()
    }

    #[test]
    fn unrequested_outputs_and_their_nodes_go() {
        let mut g = graph("input x: u64\na := hash(x)\nb := mod(hash(a), 7)\nc := add(x, 1)");
        restrict_outputs(&mut g, Some(&["b".to_string()])).unwrap();
        let mut ev = Vec::new();
        assert_eq!(eliminate(&mut g, &mut ev), 1);
        assert_eq!(g.outputs.len(), 1);
        assert_eq!(g.nodes.iter().map(|n| n.def.name).collect::<Vec<_>>(), ["hash", "hash", "mod"]);
        assert_eq!(ev[0].kind, EventKind::DeadCodeEliminated);
    }

    #[test]
    fn unknown_output_lists_the_known_ones() {
        let mut g = graph("input x: u64\na := hash(x)");
        let err = restrict_outputs(&mut g, Some(&["zz".to_string()])).unwrap_err();
        assert!(err.message.contains("'zz'") && err.hint.unwrap().contains("a"));
    }

    #[test]
    fn nothing_dead_means_no_event() {
        let mut g = graph("input x: u64\na := hash(x)");
        let mut ev = Vec::new();
        assert_eq!(eliminate(&mut g, &mut ev), 0);
        assert!(ev.is_empty());
    }
}
