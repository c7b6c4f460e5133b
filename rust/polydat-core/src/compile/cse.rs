//! Common-subexpression merging: two pure nodes of the same library node,
//! with the same construction constants (bit for bit), the same wire types
//! and the same wires, compute the same values, so every reader of the
//! later one reads the earlier one instead and dead-code elimination drops
//! the copy. Module calls make such copies all the time: two field modules
//! that both call `first_name(key)` expand to two identical pick nodes.
//!
//! Nondeterministic, side-channel, `volatile` and `const`-capture nodes are
//! never merged (each evaluation or capture of theirs is its own): a capture
//! merged with a live twin would give the live readers the value captured at
//! scope init, or make the const follow its inputs. Nodes
//! are visited producers first, so a chain of copies merges in one pass; a
//! graph with a cycle is left alone (the sort pass reports the cycle).

use super::graph::{Graph, GraphNode, Wire};
use super::pass::{Pass, PassContext};
use crate::error::CompileError;
use crate::node::Purity;
use crate::program::events::{CompileEvent, EventKind};
use std::collections::HashMap;

/// What one run of the pass did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MergeSummary {
    /// Nodes merged into an earlier twin (left unread, for dead-code elimination).
    pub merged: usize,
    /// Nodes compared construction by construction: the pass's work, one
    /// comparison per merged node unless digests collide.
    pub compared: usize,
}

/// Merges common subexpressions.
pub fn merge(graph: &mut Graph, events: &mut Vec<CompileEvent>) -> MergeSummary {
    let Some(Twins { first, compared }) = twins(graph) else {
        return MergeSummary::default();
    };
    let merged = first.iter().enumerate().filter(|&(n, &t)| t as usize != n).count();
    let canonical = |w: &mut Wire| {
        if let Wire::Node(p, port) = *w {
            *w = Wire::Node(first[p as usize], port);
        }
    };
    graph.nodes.iter_mut().for_each(|node| node.wires.iter_mut().for_each(canonical));
    graph.outputs.iter_mut().for_each(|out| canonical(&mut out.wire));
    if merged > 0 {
        events.push(CompileEvent::new(
            EventKind::CommonSubexpressionMerged,
            None,
            format!("{merged} node(s) merged into an identical earlier node"),
        ));
    }
    MergeSummary { merged, compared }
}

/// The classes of identical nodes [`merge`] finds, before it merges them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Twins {
    /// Per node: the first node identical to it, the one [`merge`] keeps
    /// (itself when no earlier node is identical, and for every node that is
    /// never merged).
    pub first: Vec<u32>,
    /// Nodes compared construction by construction to find them.
    pub compared: usize,
}

/// The identical nodes of `graph` (what [`merge`] would merge), without
/// changing it; `None` when the graph has a cycle. Two nodes are identical
/// when they are [`mergeable`], of the same library node and constants, and
/// read the same wires once every wire names the first of its twins.
pub fn twins(graph: &Graph) -> Option<Twins> {
    let order = producers_first(graph)?;
    let mut first: Vec<u32> = (0..graph.nodes.len() as u32).collect();
    // Per node visited: its wires, each naming the first of its twins.
    let mut wires: Vec<Vec<Wire>> = vec![Vec::new(); graph.nodes.len()];
    // Nodes by a digest of everything that makes two nodes the same: a
    // bucket holds only nodes whose digests collide, so each lookup costs
    // O(1) however many nodes share a definition and wires (`add(x, K)`
    // for many `K`).
    let mut seen: HashMap<u64, Vec<u32>> = HashMap::new();
    let mut compared = 0;
    for n in order {
        let node = &graph.nodes[n];
        if !mergeable(node) {
            continue;
        }
        wires[n] = node
            .wires
            .iter()
            .map(|&w| match w {
                Wire::Node(p, port) => Wire::Node(first[p as usize], port),
                w => w,
            })
            .collect();
        let twins = seen.entry(digest(node, &wires[n])).or_default();
        let same = |&&t: &&u32| {
            compared += 1;
            same_node(&graph.nodes[t as usize], &wires[t as usize], node, &wires[n])
        };
        match twins.iter().find(same) {
            Some(&twin) => first[n] = twin,
            None => twins.push(n as u32),
        }
    }
    Some(Twins { first, compared })
}

/// A node whose every evaluation with the same inputs gives the same values.
fn mergeable(node: &GraphNode) -> bool {
    node.def.purity == Purity::Pure && !node.volatile && !node.capture
}

/// A digest of the library node, the wires (`wires`, the node's own
/// canonicalized), their types and the constants (bit for bit): equal for
/// nodes [`same_node`] calls the same.
fn digest(node: &GraphNode, wires: &[Wire]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut state = std::collections::hash_map::DefaultHasher::new();
    std::ptr::hash(node.def, &mut state);
    wires.hash(&mut state);
    node.in_types.hash(&mut state);
    node.consts.iter().for_each(|c| c.hash_same(&mut state));
    state.finish()
}

/// The same library node on the same wires (`a_wires`, `b_wires`: each
/// node's own, canonicalized), with the same constants (bit for bit) and
/// wire types: the same built rule over the same values.
fn same_node(a: &GraphNode, a_wires: &[Wire], b: &GraphNode, b_wires: &[Wire]) -> bool {
    std::ptr::eq(a.def, b.def)
        && a_wires == b_wires
        && a.in_types == b.in_types
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

/// The `cse` pass: [`merge`], when fusion is on (listed only then).
pub struct Cse;

impl Pass for Cse {
    fn name(&self) -> &'static str {
        "cse"
    }

    fn run(&self, graph: &mut Graph, cx: &mut PassContext<'_>) -> Result<Option<String>, CompileError> {
        if !cx.options.fusion {
            return Ok(None);
        }
        let merged = merge(graph, &mut cx.events).merged;
        Ok(Some(format!("{merged} node(s) merged into identical ones")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::{dce, resolve, sketch};

    fn graph(src: &str) -> Graph {
        let mut g = resolve::resolve(&sketch::parse(src).unwrap(), &mut Vec::new()).unwrap();
        crate::compile::hoist::mark_captures(&mut g).unwrap();
        g
    }

    fn merged(src: &str) -> (usize, Graph) {
        let mut g = graph(src);
        let n = merge(&mut g, &mut Vec::new()).merged;
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

    #[test]
    fn a_const_bound_node_never_merges_with_a_live_twin() {
        // Both orders: the live expression first, then the const, and back.
        for src in [
            "extern eu: u64 = 5\nv1 := u64_add(hash(eu), 1)\nconst v9 := hash(eu)",
            "extern eu: u64 = 5\nconst v9 := hash(eu)\nv1 := u64_add(hash(eu), 1)",
        ] {
            let mut g = graph(src);
            let live = (0..g.nodes.len()).find(|&n| g.nodes[n].def.name == "u64_add").unwrap();
            merge(&mut g, &mut Vec::new());
            let v9 = g.outputs.iter().find(|o| o.name == "v9").unwrap().wire;
            assert!(!g.nodes[live].wires.contains(&v9), "v1 reads the const's node: {src}");
        }
    }

    #[test]
    fn a_lookup_compares_only_nodes_of_the_same_construction() {
        // 3,000 nodes of one definition on one wire, each with its own
        // constant (and 3,000 literals): each is compared with no other
        // node, so the pass stays linear (all in one bucket, quadratic).
        let n = 3000;
        let lines: String = (0..n).map(|i| format!("v{i} := add(x, {i})\nw{i} := u64_add(x, {i})\n")).collect();
        let mut g = graph(&format!("input x: u64\n{lines}"));
        let nodes = g.nodes.len();
        let summary = merge(&mut g, &mut Vec::new());
        assert_eq!(summary.merged, 0);
        assert!(summary.compared <= nodes / 10, "{} comparisons for {nodes} nodes", summary.compared);
        // Equal constructions still meet: the second half repeats the first.
        let mut g = graph(&format!("input x: u64\n{lines}{}", lines.replace('v', "a").replace('w', "b")));
        let summary = merge(&mut g, &mut Vec::new());
        assert_eq!(summary.merged, 3 * n, "every add, u64_add and literal has its twin");
        assert!(summary.compared <= 3 * n, "{summary:?}");
    }
}
