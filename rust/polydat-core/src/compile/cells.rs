//! Cells, the pass after resolution: each `shared x := expr` becomes a cell.
//! The frontend gives the binding an input slot of its own name (marked
//! `cell`) and points the program's readers of `x` at it; here
//!
//! * `x` (the output, and every read of the slot) becomes
//!   `default_or(slot, expr)`: the written value, or the starting value while
//!   nobody has written the cell;
//! * `expr` becomes the `const` output `__seed_x`, the cell's one-time
//!   starting value, computed once at scope-init (so it may not read a
//!   coordinate); the scope that owns the cell publishes it there.
//!
//! A `shared` binding without a slot (IR written by hand) gets one; only
//! `pull("x")` then reads through the cell.

use super::adapters::coerce;
use super::graph::{Graph, GraphInput, GraphNode, GraphOutput, Wire};
use crate::error::CompileError;
use crate::ir::{InputKind, InputOrigin, Modifier};
use crate::nodes::assert::DEFAULT_OR;
use crate::program::events::CompileEvent;
use crate::value::Value;

/// The name of the output holding cell `name`'s starting value.
pub fn seed_name(name: &str) -> String {
    format!("__seed_{name}")
}

/// Runs the pass (see the module). A shared binding in error is reported in
/// `errors` and the pass goes on with the next one.
pub fn apply(graph: &mut Graph, strict: bool, events: &mut Vec<CompileEvent>, errors: &mut Vec<CompileError>) {
    // An orphan cell after an earlier error is that error's echo (its shared
    // binding failed to resolve and was left out), not a second problem.
    let earlier_errors = !errors.is_empty();
    let shared: Vec<usize> = (0..graph.outputs.len()).filter(|&o| graph.outputs[o].has(Modifier::Shared)).collect();
    for o in shared {
        let (name, span, seed) = (graph.outputs[o].name.clone(), graph.outputs[o].span, graph.outputs[o].wire);
        let c = match graph.inputs.iter().position(|i| i.name == name) {
            Some(c) if graph.inputs[c].origin == InputOrigin::Cell => c,
            Some(c) => {
                errors.push(CompileError::at(span, format!("'{name}' is both an input and a shared binding")).hint(
                    format!("the input is declared at {}:{}", graph.inputs[c].span.line, graph.inputs[c].span.col),
                ));
                continue;
            }
            None => {
                graph.inputs.push(GraphInput {
                    name: name.clone(),
                    ty: graph.wire_type(seed),
                    kind: InputKind::Extern,
                    default: Value::None,
                    span,
                    origin: InputOrigin::Cell,
                });
                graph.inputs.len() - 1
            }
        };
        let ty = graph.inputs[c].ty;
        let what = format!("the starting value of shared '{name}'");
        let built = coerce(graph, seed, ty, strict, span, &what, events).and_then(|seed| {
            GraphNode::build(&DEFAULT_OR, Vec::new(), vec![Wire::Input(c as u32), seed], vec![ty, ty], span)
                .map(|node| (seed, node))
                .map_err(|e| CompileError::at(span, e))
        });
        let (seed, node) = match built {
            Ok(built) => built,
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
        let slot = Wire::Input(c as u32);
        let read = graph.push(node);
        let last = graph.nodes.len() - 1;
        for (n, node) in graph.nodes.iter_mut().enumerate() {
            if n != last {
                node.wires.iter_mut().filter(|w| **w == slot).for_each(|w| *w = read);
            }
        }
        for out in &mut graph.outputs {
            if out.wire == slot {
                out.wire = read;
            }
        }
        graph.outputs[o].wire = read;
        graph.outputs.push(GraphOutput {
            name: seed_name(&name),
            wire: seed,
            ty,
            modifiers: vec![Modifier::Const],
            span,
        });
    }
    if earlier_errors {
        return;
    }
    if let Some(orphan) = graph.inputs.iter().find(|i| i.origin == InputOrigin::Cell && !is_bound(graph, &i.name)) {
        errors.push(CompileError::at(
            orphan.span,
            format!("'{}' is marked as a cell but no shared binding has that name", orphan.name),
        ));
    }
}

fn is_bound(graph: &Graph, name: &str) -> bool {
    graph.outputs.iter().any(|o| o.name == name && o.has(Modifier::Shared))
}
