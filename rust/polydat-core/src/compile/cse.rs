//! Common-subexpression merging: two pure nodes of the same library node,
//! with the same construction constants (bit for bit), the same wire types
//! and the same wires, compute the same values, so every reader of the
//! later one reads the earlier one instead and dead-code elimination drops
//! the copy. Module calls make such copies all the time: two field modules
//! that both call `first_name(key)` expand to two identical pick nodes.
//!
//! Nondeterministic, side-channel, `volatile` and `const`-capture nodes are
//! never merged (each evaluation or capture of theirs is its own). Nodes
//! are visited producers first, so a chain of copies merges in one pass; a
//! graph with a cycle is left alone (the sort pass reports the cycle).

use super::graph::{Graph, GraphNode, Wire};
use crate::node::Purity;
use crate::program::events::{CompileEvent, EventKind};
use std::collections::HashMap;

/// Merges common subexpressions; returns how many nodes were merged into
/// an earlier twin (they are left unread, for dead-code elimination).
pub fn merge(graph: &mut Graph, events: &mut Vec<CompileEvent>) -> usize {
    let Some(order) = producers_first(graph) else {
        return 0;
    };
    // Per node: the node its readers read instead (itself unless merged).
    let mut canonical: Vec<u32> = (0..graph.nodes.len() as u32).collect();
    let mut seen: HashMap<(usize, Vec<Wire>), Vec<u32>> = HashMap::new();
    let mut merged = 0;
    for n in order {
        let redirect = |w: &Wire| match *w {
            Wire::Node(p, port) => Wire::Node(canonical[p as usize], port),
            input => input,
        };
        let wires: Vec<Wire> = graph.nodes[n].wires.iter().map(redirect).collect();
        graph.nodes[n].wires.clone_from(&wires);
        let node = &graph.nodes[n];
        if !mergeable(node) {
            continue;
        }
        let twins = seen.entry((node.def as *const _ as usize, wires)).or_default();
        match twins.iter().find(|&&t| same_construction(&graph.nodes[t as usize], node)) {
            Some(&twin) => {
                canonical[n] = twin;
                merged += 1;
            }
            None => twins.push(n as u32),
        }
    }
    for out in &mut graph.outputs {
        if let Wire::Node(p, port) = out.wire {
            out.wire = Wire::Node(canonical[p as usize], port);
        }
    }
    if merged > 0 {
        events.push(CompileEvent::new(
            EventKind::CommonSubexpressionMerged,
            None,
            format!("{merged} node(s) merged into an identical earlier node"),
        ));
    }
    merged
}

/// A node whose every evaluation with the same inputs gives the same values.
fn mergeable(node: &GraphNode) -> bool {
    node.def.purity == Purity::Pure && !node.volatile && !node.capture
}

/// Same constants (bit for bit) and wire types: the same built rule.
fn same_construction(a: &GraphNode, b: &GraphNode) -> bool {
    a.in_types == b.in_types
        && a.consts.len() == b.consts.len()
        && a.consts.iter().zip(&b.consts).all(|(x, y)| x.same(y))
}

/// The nodes in an order where every node comes after its producers, or
/// `None` when the graph has a cycle.
fn producers_first(graph: &Graph) -> Option<Vec<usize>> {
    let consumers = graph.consumers();
    let mut waiting: Vec<usize> = (0..graph.nodes.len()).map(|n| graph.producers(n).count()).collect();
    let mut ready: Vec<usize> = (0..graph.nodes.len()).filter(|&n| waiting[n] == 0).rev().collect();
    let mut order = Vec::with_capacity(graph.nodes.len());
    while let Some(n) = ready.pop() {
        order.push(n);
        for &c in consumers[n].iter().rev() {
            waiting[c as usize] -= 1;
            if waiting[c as usize] == 0 {
                ready.push(c as usize);
            }
        }
    }
    (order.len() == graph.nodes.len()).then_some(order)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::{dce, resolve, sketch};

    fn graph(src: &str) -> Graph {
        resolve::resolve(&sketch::parse(src).unwrap(), false, &mut Vec::new()).unwrap()
    }

    fn merged(src: &str) -> (usize, Graph) {
        let mut g = graph(src);
        let n = merge(&mut g, &mut Vec::new());
        dce::eliminate(&mut g, &mut Vec::new());
        (n, g)
    }

    #[test]
    fn identical_chains_merge_into_one() {
        let (n, g) = merged("input x: u64\na := mod(hash(u64_xor(x, 5)), 7)\nb := mod(hash(u64_xor(x, 5)), 7)");
        assert_eq!(n, 4, "the literal 5, xor, hash and mod each merge");
        assert_eq!(g.nodes.len(), 4);
        assert_eq!(g.outputs[0].wire, g.outputs[1].wire);
    }

    #[test]
    fn different_constants_wires_or_types_stay_apart() {
        for src in [
            "input x: u64\na := mod(x, 7)\nb := mod(x, 8)",
            "input x: u64\ninput y: u64\na := hash(x)\nb := hash(y)",
            "input x: f64\na := format_f64(x, 2)\nb := format_f64(x, 3)",
        ] {
            let (n, g) = merged(src);
            assert_eq!(n, 0, "{src}");
            assert_ne!(g.outputs[0].wire, g.outputs[1].wire, "{src}");
        }
    }

    #[test]
    fn nondeterministic_and_volatile_nodes_never_merge() {
        let (n, _) = merged("input x: u64\na := current_epoch_millis()\nb := current_epoch_millis()");
        assert_eq!(n, 0);
        let (n, _) = merged("input x: u64\nvolatile a := hash(x)\nvolatile b := hash(x)");
        assert_eq!(n, 0);
    }

    #[test]
    fn a_float_constant_merges_only_bit_for_bit() {
        let (n, _) = merged("input x: f64\na := f64_add(x, 0.0)\nb := f64_add(x, -0.0)");
        assert_eq!(n, 0, "0.0 and -0.0 are different constants");
    }
}
