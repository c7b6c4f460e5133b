//! The graph compiler: one module per pass, run in a fixed order by
//! [`compile`]: resolve (with adapter insertion) → dead-code elimination →
//! topological sort → emit.

pub mod adapters;
pub mod dce;
pub mod emit;
pub mod events;
pub mod graph;
pub mod resolve;
pub mod toposort;

use crate::error::CompileError;
use crate::ir::GraphIr;
use crate::program::{CompileStats, Program};
use std::time::Instant;

/// Options of one compilation.
#[derive(Clone, Debug, Default)]
pub struct CompileOptions {
    /// Refuse implicit (lossless) coercions on wires.
    pub strict: bool,
    /// Keep only these outputs (and the nodes they need); all when `None`.
    pub outputs: Option<Vec<String>>,
}

/// Compiles a graph IR into an immutable program.
pub fn compile(ir: &GraphIr, options: &CompileOptions) -> Result<Program, CompileError> {
    let started = Instant::now();
    let mut events = Vec::new();
    let mut graph = resolve::resolve(ir, options.strict, &mut events)?;
    let nodes_resolved = graph.nodes.len();
    dce::eliminate(&mut graph, options.outputs.as_deref(), &mut events)?;
    toposort::sort(&mut graph)?;
    let stats = CompileStats {
        nodes_resolved,
        nodes_final: graph.nodes.len(),
        compile_micros: started.elapsed().as_micros(),
    };
    Ok(emit::emit(graph, events, stats))
}
