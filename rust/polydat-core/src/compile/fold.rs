//! Constant folding at build, for every engine: each `CompileConst` node is
//! evaluated while compiling, and the constants that something dynamic (or an
//! output) reads are replaced by literal nodes, with a `ConstantFolded` event
//! each. Constants that only fed other constants disappear.
//!
//! A constant whose evaluation fails is a [`CompileError`] at that node's span
//! whose message is the node's own failure text — the program could never
//! produce it at run time, so it is never deferred to a runtime error. A node
//! panic is contained the same way. A constant that evaluates to `None` cannot
//! be a literal: it stays a node and is reclassified `ScopeInit` (run once).

use super::graph::{Graph, GraphNode, Wire};
use super::hoist::Lifecycle;
use super::pass::{Pass, PassContext};
use crate::error::CompileError;
use crate::nodes::convert::{LITERAL, LITERAL_OP};
use crate::program::events::{CompileEvent, EventKind};
use crate::value::Value;

/// What folding did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FoldSummary {
    /// Compile-constant nodes evaluated (literal nodes included).
    pub evaluated: usize,
    /// Nodes replaced by literals (each logged as `ConstantFolded`).
    pub replaced: usize,
    /// Nodes dropped because only folded constants read them.
    pub dropped: usize,
}

/// Folds the classified, sorted `graph` in place.
pub fn fold(graph: &mut Graph, events: &mut Vec<CompileEvent>) -> Result<FoldSummary, CompileError> {
    let n = graph.nodes.len();
    let mut summary = FoldSummary::default();
    // Per node: its output values, when it is a foldable compile constant.
    let mut values: Vec<Option<Vec<Value>>> = vec![None; n];
    for i in 0..n {
        if graph.nodes[i].lifecycle != Lifecycle::CompileConst {
            continue;
        }
        let inputs: Option<Vec<Value>> = graph.nodes[i]
            .wires
            .iter()
            .map(|w| match *w {
                Wire::Node(p, port) => values[p as usize].as_ref().map(|v| v[port as usize].clone()),
                Wire::Input(_) => None,
            })
            .collect();
        let Some(inputs) = inputs else {
            // A producer could not be folded: this node runs once at scope init instead.
            graph.nodes[i].lifecycle = Lifecycle::ScopeInit;
            continue;
        };
        summary.evaluated += 1;
        let outs = evaluate(&graph.nodes[i], &inputs)?;
        if outs.iter().any(Value::is_none) {
            graph.nodes[i].lifecycle = Lifecycle::ScopeInit;
        } else {
            values[i] = Some(outs);
        }
    }
    // Which folded constants are read from outside the folded region.
    let mut frontier = vec![false; n];
    for (i, node) in graph.nodes.iter().enumerate() {
        if values[i].is_none() {
            for w in &node.wires {
                if let Wire::Node(p, _) = w {
                    frontier[*p as usize] |= values[*p as usize].is_some();
                }
            }
        }
    }
    for o in &graph.outputs {
        if let Wire::Node(p, _) = o.wire {
            frontier[p as usize] |= values[p as usize].is_some();
        }
    }
    // Replace each frontier constant's ports by literal nodes.
    let mut literal_of: Vec<Vec<Wire>> = vec![Vec::new(); n];
    for i in 0..n {
        let Some(outs) = values[i].as_ref().filter(|_| frontier[i]) else {
            continue;
        };
        if graph.nodes[i].def.name == LITERAL_OP {
            continue;
        }
        let span = graph.nodes[i].span;
        let op = graph.nodes[i].def.name;
        let mut wires = Vec::with_capacity(outs.len());
        for (port, v) in outs.iter().enumerate() {
            let lit = literal_node(v.clone(), span)?;
            if port == 0 {
                let replaced = std::mem::replace(&mut graph.nodes[i], lit);
                graph.nodes[i].capture = replaced.capture;
                graph.nodes[i].volatile = replaced.volatile;
                wires.push(Wire::Node(i as u32, 0));
            } else {
                graph.nodes.push(lit);
                wires.push(Wire::Node(graph.nodes.len() as u32 - 1, 0));
            }
        }
        let shown: Vec<String> = outs.iter().map(Value::to_string).collect();
        events.push(CompileEvent::new(
            EventKind::ConstantFolded,
            Some(span),
            format!("`{op}` folded to {}", shown.join(", ")),
        ));
        summary.replaced += 1;
        literal_of[i] = wires;
    }
    let remap = |w: Wire| match w {
        Wire::Node(p, port) if port > 0 && !literal_of[p as usize].is_empty() => literal_of[p as usize][port as usize],
        w => w,
    };
    for node in graph.nodes.iter_mut() {
        node.wires.iter_mut().for_each(|w| *w = remap(*w));
    }
    for o in graph.outputs.iter_mut() {
        o.wire = remap(o.wire);
    }
    // Drop what only folded constants read, and put appended literals first.
    let live = super::dce::live_nodes(graph);
    let appended = n..graph.nodes.len();
    let order: Vec<usize> = appended.clone().chain(0..n).filter(|&i| live[i]).collect();
    summary.dropped = n + appended.len() - order.len();
    graph.reorder(&order);
    Ok(summary)
}

/// Evaluates one compile-constant node over its (constant) inputs
/// ([`GraphNode::evaluate`]); a failure is a compile error at its span.
fn evaluate(node: &GraphNode, inputs: &[Value]) -> Result<Vec<Value>, CompileError> {
    node.evaluate(inputs).map_err(|failure| {
        CompileError::at(node.span, failure)
            .hint("every input of this expression is a constant, so it is evaluated while compiling")
    })
}

/// A literal node holding `value`, classified `CompileConst`.
fn literal_node(value: Value, span: crate::ir::Span) -> Result<GraphNode, CompileError> {
    let ty = value
        .port_type()
        .ok_or_else(|| CompileError::at(span, "this constant expression has no value (it evaluates to None)"))?;
    let mut node =
        GraphNode::build(&LITERAL, vec![value], Vec::new(), Vec::new(), span).map_err(|e| CompileError::at(span, e))?;
    node.out_types = vec![ty];
    node.lifecycle = Lifecycle::CompileConst;
    Ok(node)
}

/// The `fold` pass: [`fold`].
pub struct Fold;

impl Pass for Fold {
    fn name(&self) -> &'static str {
        "fold"
    }

    fn run(&self, graph: &mut Graph, cx: &mut PassContext<'_>) -> Result<Option<String>, CompileError> {
        let folded = fold(graph, &mut cx.events)?;
        cx.stats.folded = folded.replaced;
        Ok(Some(format!(
            "{} evaluated, {} replaced by literals, {} dropped",
            folded.evaluated, folded.replaced, folded.dropped
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::{dce, hoist, resolve, sketch, toposort};

    fn folded(src: &str) -> Result<(Graph, FoldSummary, Vec<CompileEvent>), CompileError> {
        let ir = sketch::parse(src).unwrap();
        let mut ev = Vec::new();
        let mut g = resolve::resolve(&ir, &mut ev)?;
        hoist::mark_captures(&mut g)?;
        dce::eliminate(&mut g, &mut ev);
        toposort::sort(&mut g)?;
        hoist::hoist(&mut g)?;
        let mut ev = Vec::new();
        let s = fold(&mut g, &mut ev)?;
        Ok((g, s, ev))
    }

    fn ops(g: &Graph) -> Vec<&str> {
        g.nodes.iter().map(|n| n.def.name).collect()
    }

    #[test]
    fn constants_become_literals_and_their_interiors_go() {
        let (g, s, ev) = folded("input cycle: u64\ny := u64_add(hash(add(1, 2)), cycle)").unwrap();
        assert_eq!(ops(&g), ["__lit", "u64_add"]);
        assert!(g.nodes[0].consts[0].same(&Value::U64(crate::nodes::hash::splitmix64(3))));
        assert_eq!((s.replaced, s.dropped), (1, 2), "hash replaced; add and the literal 1 dropped");
        assert_eq!(ev.len(), 1);
        assert_eq!(ev[0].kind, EventKind::ConstantFolded);
        assert!(ev[0].message.starts_with("`hash` folded to U64("), "{}", ev[0].message);
    }

    #[test]
    fn a_bound_constant_is_folded_in_place() {
        let (g, _, ev) = folded("input cycle: u64\nk := add(2, 3)\ny := u64_add(k, cycle)").unwrap();
        assert_eq!(ops(&g), ["__lit", "u64_add"]);
        assert_eq!(g.outputs[0].wire, Wire::Node(0, 0));
        assert!(ev[0].message.contains("U64(5)"));
    }

    #[test]
    fn multi_output_constants_fold_per_port() {
        let (g, s, _) = folded("input cycle: u64\nd := mixed_radix(1234, 10, 10, 0)\ny := u64_add(d, cycle)").unwrap();
        assert_eq!(s.replaced, 1);
        assert!(g.nodes.iter().all(|n| n.def.name != "mixed_radix"));
        let lit = match g.outputs[0].wire {
            Wire::Node(n, 0) => &g.nodes[n as usize],
            w => panic!("{w:?}"),
        };
        assert!(lit.consts[0].same(&Value::U64(4)));
    }

    #[test]
    fn a_failing_constant_is_a_compile_error_at_its_span() {
        let err = folded("input cycle: u64\n\nchecked := in_range(7, 0, 5)").err().unwrap();
        assert!(err.message.contains("in_range") && err.message.contains('7'), "{}", err.message);
        assert_eq!(err.span.unwrap().line, 3);
        let err = folded("input cycle: u64\nz := mod(5, 0)").err().unwrap();
        assert_eq!(err.message, crate::nodes::arith::REM_ZERO);
    }

    #[test]
    fn dynamic_and_scope_init_nodes_are_untouched() {
        let (g, s, ev) =
            folded("input cycle: u64\nextern e: u64 = 4\nconst c := hash(e)\ny := u64_add(c, cycle)").unwrap();
        assert_eq!(ops(&g), ["hash", "u64_add"]);
        assert_eq!(s.evaluated, 0);
        assert!(ev.is_empty());
    }
}
