//! Emit: lays the sorted graph out as an immutable [`Program`] — one value slot
//! per input and per node output, steps in evaluation order with their
//! lifecycle, provenance masks and volatility propagated downstream. A `const`
//! capture is a boundary for both: it reads its upstream once at scope init,
//! so writes upstream never dirty it and volatility does not cross it. A
//! side-channel node's provenance holds every coordinate, whatever it reads:
//! its effect happens once per cycle (every engine runs a side channel once
//! per change of its provenance), so the rows `emit_row` emits are a
//! function of the rows run, not of how they were shared among kernels.

use super::graph::{Graph, Wire};
use super::pass::{Pass, PassContext};
use crate::error::CompileError;
use crate::ir::InputKind;
use crate::node::Purity;
use crate::program::events::CompileEvent;
use crate::program::explain::ExplainData;
use crate::program::{CompileStats, InputDef, OutputDef, Program, Step};
use crate::provenance::ProvMask;

/// Builds the program from a sorted, resolved graph.
pub fn emit(graph: Graph, events: Vec<CompileEvent>, stats: CompileStats, explain: ExplainData) -> Program {
    let n_inputs = graph.inputs.len();
    let mut out_start = Vec::with_capacity(graph.nodes.len());
    let mut next = n_inputs as u32;
    for node in &graph.nodes {
        out_start.push(next);
        next += node.out_types.len() as u32;
    }
    let slot_of = |w: Wire| match w {
        Wire::Input(i) => i,
        Wire::Node(n, p) => out_start[n as usize] + p,
    };
    let coordinates: Vec<usize> = (0..n_inputs).filter(|&i| graph.inputs[i].kind == InputKind::Coordinate).collect();
    let mut provenance: Vec<ProvMask> = Vec::with_capacity(graph.nodes.len());
    let mut volatile: Vec<bool> = Vec::with_capacity(graph.nodes.len());
    for node in &graph.nodes {
        let mut mask = ProvMask::empty(n_inputs);
        if node.capture {
            provenance.push(mask);
            volatile.push(false);
            continue;
        }
        let mut vol = node.is_nondeterministic();
        if node.def.purity == Purity::SideChannel {
            coordinates.iter().for_each(|&i| mask.set(i));
        }
        for w in &node.wires {
            match *w {
                Wire::Input(i) => mask.set(i as usize),
                Wire::Node(p, _) => {
                    mask.union_with(&provenance[p as usize]);
                    vol |= volatile[p as usize];
                }
            }
        }
        provenance.push(mask);
        volatile.push(vol);
    }
    let mut feeds = graph.output_names_by_node();
    let steps: Vec<Step> = graph
        .nodes
        .iter()
        .enumerate()
        .map(|(i, node)| Step {
            def: node.def,
            eval: node.eval.clone(),
            consts: node.consts.clone(),
            ins: node.wires.iter().map(|w| slot_of(*w)).collect(),
            in_types: node.in_types.clone().into_boxed_slice(),
            out_types: node.out_types.clone().into_boxed_slice(),
            out_start: out_start[i],
            accepts_none: node.def.accepts_none,
            volatile: volatile[i] || (node.def.purity == Purity::Nondeterministic && !node.capture),
            lifecycle: node.lifecycle,
            capture: node.capture,
            span: node.span,
            feeds: std::mem::take(&mut feeds[i]),
        })
        .collect();
    let inputs = graph
        .inputs
        .iter()
        .map(|i| InputDef {
            name: i.name.clone(),
            ty: i.ty,
            kind: i.kind,
            default: i.default.clone(),
            origin: i.origin,
        })
        .collect();
    let outputs = graph
        .outputs
        .iter()
        .map(|o| OutputDef {
            name: o.name.clone(),
            ty: o.ty,
            slot: slot_of(o.wire),
            step: match o.wire {
                Wire::Node(n, _) => Some(n),
                Wire::Input(_) => None,
            },
            modifiers: o.modifiers.clone(),
        })
        .collect();
    Program::new(inputs, steps, outputs, next as usize, provenance, events, stats, explain)
}

/// The `emit` pass: [`emit`] of the graph (which it consumes), with the
/// events, statistics and `explain` data the passes before it gathered.
pub struct Emit;

impl Pass for Emit {
    fn name(&self) -> &'static str {
        "emit"
    }

    fn run(&self, graph: &mut Graph, cx: &mut PassContext<'_>) -> Result<Option<String>, CompileError> {
        cx.stats.nodes_final = graph.nodes.len();
        let options = cx.options;
        let explain = ExplainData {
            passes: Vec::new(),
            resolved: std::mem::take(&mut cx.resolved),
            fusion: options.fusion,
            strict: options.strict,
            requested_outputs: options.outputs.clone(),
        };
        let (events, stats) = (std::mem::take(&mut cx.events), std::mem::take(&mut cx.stats));
        cx.program = Some(emit(std::mem::take(graph), events, stats, explain));
        Ok(Some(String::new()))
    }
}
