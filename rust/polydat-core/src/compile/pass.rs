//! What a pass of the compiler is ([`Pass`]), what the passes of one
//! compilation share ([`PassContext`]), and the record of them `explain`
//! shows ([`PassTrace`]). The passes themselves, in order, are
//! [`super::PIPELINE`].

use super::graph::Graph;
use super::CompileOptions;
use crate::error::CompileError;
use crate::ir::GraphIr;
use crate::program::events::CompileEvent;
use crate::program::explain::{GraphSnapshot, PassRecord};
use crate::program::{CompileStats, Program};
use crate::value::Value;
use std::borrow::Cow;
use std::time::Instant;

/// One pass of the compiler: a named step of [`super::PIPELINE`] that reads
/// and rewrites the graph (or, after `emit`, the program) and reports what
/// it did.
pub trait Pass: Sync {
    /// The pass's name: what `explain` lists it as.
    fn name(&self) -> &'static str;

    /// Runs the pass over `graph` with what the passes share. `Ok(Some(note))`
    /// lists the pass in `explain` with `note` (its node count and the time
    /// since the last listed pass); `Ok(None)` leaves it out, its time
    /// counted toward the next listed pass.
    fn run(&self, graph: &mut Graph, cx: &mut PassContext<'_>) -> Result<Option<String>, CompileError>;

    /// The pass goes on past a type error of an earlier pass, collecting its
    /// own in [`PassContext::errors`], so a program's type errors are
    /// reported together, in source order. Before a pass that does not, the
    /// errors collected so far are reported.
    fn recovers(&self) -> bool {
        false
    }
}

/// What the passes of one compilation share besides the graph.
pub struct PassContext<'a> {
    /// The options of the compilation.
    pub options: &'a CompileOptions,
    /// The IR `resolve` types: the caller's, or `outer`'s rewrite of it.
    pub ir: Cow<'a, GraphIr>,
    /// The outer literals `outer` inlined, by name.
    pub inlined: Vec<(String, Value)>,
    /// What the passes did, in pass order (`emit` hands them to the program).
    pub events: Vec<CompileEvent>,
    /// Type errors collected by the passes that recover ([`Pass::recovers`]).
    pub errors: Vec<CompileError>,
    /// The counts the passes record for the program's statistics.
    pub stats: CompileStats,
    /// The resolved graph, kept for `explain --dot` (the `snapshot` pass).
    pub resolved: GraphSnapshot,
    /// The program, once `emit` has made it.
    pub program: Option<Program>,
}

impl<'a> PassContext<'a> {
    /// The context of a compilation of `ir` with `options`, before any pass.
    pub fn new(ir: &'a GraphIr, options: &'a CompileOptions) -> PassContext<'a> {
        PassContext {
            options,
            ir: Cow::Borrowed(ir),
            inlined: Vec::new(),
            events: Vec::new(),
            errors: Vec::new(),
            stats: CompileStats::default(),
            resolved: GraphSnapshot::default(),
            program: None,
        }
    }

    /// The program `emit` made, for the passes after it.
    pub fn program(&mut self) -> &mut Program {
        self.program.as_mut().expect("emit runs before the passes over the program")
    }

    /// Reports the type errors collected so far, all together, if any.
    pub fn report_errors(&mut self) -> Result<(), CompileError> {
        match CompileError::gather(std::mem::take(&mut self.errors)) {
            Some(err) => Err(err),
            None => Ok(()),
        }
    }

    /// The nodes there are now: the graph's, or the program's once emitted.
    pub fn node_count(&self, graph: &Graph) -> usize {
        match &self.program {
            Some(program) => program.stats.nodes_final,
            None => graph.nodes.len(),
        }
    }
}

/// Node counts, notes and durations of the listed passes, for `explain`.
pub struct PassTrace {
    /// The records, in pass order.
    pub passes: Vec<PassRecord>,
    last: Instant,
}

impl PassTrace {
    /// An empty trace, its clock started.
    pub fn new() -> PassTrace {
        PassTrace { passes: Vec::new(), last: Instant::now() }
    }

    /// Records pass `pass`, leaving `nodes` nodes, with `note`; its time is
    /// the time since the last record (or since the trace started).
    pub fn record(&mut self, pass: &'static str, nodes: usize, note: String) {
        let now = Instant::now();
        let micros = now.duration_since(self.last).as_micros() as u64;
        self.last = now;
        self.passes.push(PassRecord { pass, nodes, micros, note });
    }
}

impl Default for PassTrace {
    fn default() -> Self {
        PassTrace::new()
    }
}
