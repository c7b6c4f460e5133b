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
use super::pass::{Pass, PassContext};
use crate::error::CompileError;
use crate::ir::{InputKind, InputOrigin, Modifier};
use crate::nodes::assert::DEFAULT_OR;
use crate::program::events::CompileEvent;
use crate::program::{CellDef, ScopeData};
use crate::value::Value;
use std::collections::{HashMap, HashSet};

/// The name of the output holding cell `name`'s starting value.
pub fn seed_name(name: &str) -> String {
    format!("__seed_{name}")
}

/// Runs the pass (see the module). Linear in the program: each cell's
/// slot is found by name in a map, and the readers of every cell's slot
/// are pointed at its `default_or` in one pass over the graph at the end.
/// A shared binding in error is reported in `errors` and the pass goes on
/// with the next one.
pub fn apply(graph: &mut Graph, strict: bool, events: &mut Vec<CompileEvent>, errors: &mut Vec<CompileError>) {
    // An orphan cell after an earlier error is that error's echo (its shared
    // binding failed to resolve and was left out), not a second problem.
    let earlier_errors = !errors.is_empty();
    let shared: Vec<usize> = (0..graph.outputs.len()).filter(|&o| graph.outputs[o].has(Modifier::Shared)).collect();
    let mut input_of: HashMap<String, usize> =
        graph.inputs.iter().enumerate().map(|(i, input)| (input.name.clone(), i)).collect();
    // Per cell slot: the `default_or` node its readers read instead.
    let mut read_of: HashMap<u32, u32> = HashMap::new();
    for o in shared {
        let (name, span, seed) = (graph.outputs[o].name.clone(), graph.outputs[o].span, graph.outputs[o].wire);
        let c = match input_of.get(&name) {
            Some(&c) if graph.inputs[c].origin == InputOrigin::Cell => c,
            Some(&c) => {
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
                input_of.insert(name.clone(), graph.inputs.len() - 1);
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
        let read = graph.push(node);
        read_of.insert(c as u32, graph.nodes.len() as u32 - 1);
        graph.outputs[o].wire = read;
        graph.outputs.push(GraphOutput {
            name: seed_name(&name),
            wire: seed,
            ty,
            modifiers: vec![Modifier::Const],
            span,
        });
    }
    // Every read of a cell's slot, but its own `default_or`'s, reads that node.
    let reads = |w: &Wire| match *w {
        Wire::Input(c) => read_of.get(&c).map(|&n| Wire::Node(n, 0)),
        Wire::Node(..) => None,
    };
    for (n, node) in graph.nodes.iter_mut().enumerate() {
        for w in node.wires.iter_mut() {
            match reads(w) {
                Some(Wire::Node(read, _)) if read as usize == n => {}
                Some(read) => *w = read,
                None => {}
            }
        }
    }
    for out in &mut graph.outputs {
        if let Some(read) = reads(&out.wire) {
            out.wire = read;
        }
    }
    if earlier_errors {
        return;
    }
    let bound: HashSet<&str> =
        graph.outputs.iter().filter(|o| o.has(Modifier::Shared)).map(|o| o.name.as_str()).collect();
    if let Some(orphan) =
        graph.inputs.iter().find(|i| i.origin == InputOrigin::Cell && !bound.contains(i.name.as_str()))
    {
        errors.push(CompileError::at(
            orphan.span,
            format!("'{}' is marked as a cell but no shared binding has that name", orphan.name),
        ));
    }
}

/// The `cells` pass: [`apply`].
pub struct Cells;

impl Pass for Cells {
    fn name(&self) -> &'static str {
        "cells"
    }

    fn run(&self, graph: &mut Graph, cx: &mut PassContext<'_>) -> Result<Option<String>, CompileError> {
        apply(graph, cx.options.strict, &mut cx.events, &mut cx.errors);
        Ok(None)
    }

    fn recovers(&self) -> bool {
        true
    }
}

/// The `scope` pass, over the emitted program: records what scope chains
/// need ([`ScopeData`]): the outer manifest the program was compiled
/// against, the outer literals `outer` inlined, and the program's cells,
/// each with the output of its starting value ([`seed_name`]).
pub struct ScopeRecord;

impl Pass for ScopeRecord {
    fn name(&self) -> &'static str {
        "scope"
    }

    fn run(&self, _graph: &mut Graph, cx: &mut PassContext<'_>) -> Result<Option<String>, CompileError> {
        let (outer, inlined) = (cx.options.outer.clone(), std::mem::take(&mut cx.inlined));
        let program = cx.program();
        let cells = (0..program.inputs.len())
            .filter(|&i| program.inputs[i].origin == InputOrigin::Cell)
            .map(|input| CellDef { input, seed: program.output(&seed_name(&program.inputs[input].name)) })
            .collect();
        program.scope = ScopeData { outer, inlined, cells };
        Ok(None)
    }
}
