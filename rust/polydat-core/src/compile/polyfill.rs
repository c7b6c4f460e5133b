//! Polyfills: a registry of rewrites that expand a node the
//! target engine cannot run into an equivalent small subgraph of nodes it can.
//!
//! The engine's capability is a predicate over node definitions
//! ([`super::CompileOptions::engine_supports`]); P1 runs every node, so no
//! polyfill fires for it. An expansion is a list of parts, each reading the
//! original node's wires or earlier parts ([`Graph::expand`]). Node Fusion never
//! produces a node the engine does not support, so the two cannot ping-pong.
//! Each polyfill is the decomposition of a fused node, so its equivalence
//! test is the fusion catalog's witnesses, run backwards.

use super::graph::{Graph, Part, Source};
use super::pass::{Pass, PassContext};
use crate::error::CompileError;
use crate::node::NodeDef;
use crate::nodes::{arith, hash, lerp};
use crate::program::events::{CompileEvent, EventKind};
use crate::value::Value;

/// One entry of the polyfill registry.
pub struct Polyfill {
    /// Stable name, shown in `PolyfillApplied` events.
    pub name: &'static str,
    /// One line: the expansion.
    pub doc: &'static str,
    /// The node this polyfill replaces.
    pub op: &'static str,
    /// The expansion of a node of `op` (its constants as input); the last part replaces it.
    pub expand: fn(&[Value]) -> Vec<Part>,
}

/// The registry.
pub static REGISTRY: &[Polyfill] = &[
    Polyfill {
        name: "hash_range_as_mod_hash",
        doc: "hash_range(x, K) -> mod(hash(x), K); K = 0 -> mul(x, 0) (0, and None stays None)",
        op: "hash_range",
        expand: |c| match c[0].as_u64() {
            Some(0) => vec![Part::new(&arith::MUL, vec![Value::U64(0)], &[Source::Wire(0)])],
            _ => vec![
                Part::new(&hash::HASH, vec![], &[Source::Wire(0)]),
                Part::new(&arith::MOD, c.to_vec(), &[Source::Part(0)]),
            ],
        },
    },
    Polyfill {
        name: "hash_interval_as_lerp",
        doc: "hash_interval(x, a, b) -> lerp(unit_interval(hash(x)), a, b)",
        op: "hash_interval",
        expand: |c| {
            vec![
                Part::new(&hash::HASH, vec![], &[Source::Wire(0)]),
                Part::new(&lerp::UNIT_INTERVAL, vec![], &[Source::Part(0)]),
                Part::new(&lerp::LERP, c.to_vec(), &[Source::Part(1)]),
            ]
        },
    },
    Polyfill {
        name: "scale_range_as_lerp",
        doc: "scale_range(x, a, b) -> lerp(unit_interval(x), a, b)",
        op: "scale_range",
        expand: |c| {
            vec![
                Part::new(&lerp::UNIT_INTERVAL, vec![], &[Source::Wire(0)]),
                Part::new(&lerp::LERP, c.to_vec(), &[Source::Part(0)]),
            ]
        },
    },
];

/// Expands every node the engine does not support and that has a polyfill
/// whose parts it does support. Returns the number of nodes expanded.
pub fn apply(graph: &mut Graph, supports: fn(&NodeDef) -> bool, events: &mut Vec<CompileEvent>) -> usize {
    let first_new = graph.nodes.len();
    let mut applied = 0;
    for n in 0..first_new {
        let def = graph.nodes[n].def;
        if supports(def) {
            continue;
        }
        let Some(fill) = REGISTRY.iter().find(|p| p.op == def.name) else {
            continue;
        };
        let parts = (fill.expand)(&graph.nodes[n].consts);
        if !parts.iter().all(|p| supports(p.def)) {
            continue;
        }
        if graph.expand(n, parts).is_some() {
            applied += 1;
            events.push(CompileEvent::new(
                EventKind::PolyfillApplied,
                Some(graph.nodes[n].span),
                format!("{}: {} is not supported by the engine; expanded as {}", fill.name, def.name, fill.doc),
            ));
        }
    }
    graph.place_appended(first_new);
    applied
}

/// The `polyfill` pass: [`apply`] for the target engine's capability.
pub struct ExpandPolyfills;

impl Pass for ExpandPolyfills {
    fn name(&self) -> &'static str {
        "polyfill"
    }

    fn run(&self, graph: &mut Graph, cx: &mut PassContext<'_>) -> Result<Option<String>, CompileError> {
        let polyfills = apply(graph, cx.options.supports(), &mut cx.events);
        cx.stats.polyfills = polyfills;
        Ok(Some(format!("{polyfills} node(s) expanded")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::fusion::CATALOG;
    use crate::compile::sketch;

    #[test]
    fn every_polyfill_target_has_a_fusion_rule_back() {
        for p in REGISTRY {
            let back = CATALOG.iter().any(|r| r.doc.contains(&format!("-> {}(", p.op)));
            assert!(back, "{} has no fusion rule producing {}", p.name, p.op);
        }
    }

    #[test]
    fn supported_nodes_are_left_alone() {
        let ir = sketch::parse("input x: u64\nout := hash_range(x, 10)").unwrap();
        let mut g = crate::compile::resolve::resolve(&ir, &mut Vec::new()).unwrap();
        assert_eq!(apply(&mut g, |_| true, &mut Vec::new()), 0);
        assert_eq!(g.nodes.len(), 1);
    }
}
