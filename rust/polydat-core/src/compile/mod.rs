//! The graph compiler: one module per pass, run in the fixed order of
//! [`PIPELINE`] by [`compile`]. A pass implements [`Pass`] (in its own
//! module) and sees the graph and a [`PassContext`] (options, events, type
//! errors, statistics); the loop in [`compile`] records each pass for
//! `explain`. Modules that are not passes: [`graph`] (the typed graph the
//! passes rewrite), [`pass`] (the pass interface) and [`sketch`] (a text
//! form of IR for tests and benches). Besides [`compile`], callers use
//! [`build`] (the request checked, then compiled) and
//! [`select::Request::parse`]. Two stages run inside [`resolve`] as each
//! node's operands are typed: [`desugar`] (operators, `if` and typed
//! boundaries become library nodes) and [`literal`] (a literal fitted to the
//! slot it fills).

pub mod adapters;
pub mod cells;
pub mod cse;
pub mod dce;
pub mod desugar;
pub mod emit;
pub mod fold;
pub mod fusion;
pub mod graph;
pub mod hoist;
pub mod literal;
pub mod outer;
pub mod pass;
pub mod picks;
pub mod polyfill;
pub mod resolve;
pub mod segment;
pub mod select;
pub mod sketch;
pub mod snapshot;
pub mod toposort;

use crate::error::{BuildError, CompileError};
use crate::ir::GraphIr;
use crate::node::NodeDef;
use crate::program::manifest::Manifest;
use crate::program::selection::EngineKind;
use crate::program::Program;
use crate::types::PortType;
use graph::Graph;
use pass::PassTrace;
pub use pass::{Pass, PassContext};
use std::sync::Arc;
use std::time::Instant;

/// The passes, in the order they run. Typing (the IR becomes a typed graph;
/// the passes up to `adapters` go on past a type error, so a program's type
/// errors are reported together), rewriting (every value kept), sorting and
/// classifying, then the program made and its engine chosen.
pub const PIPELINE: &[&dyn Pass] = &[
    // Typing.
    &outer::Outer,        // free names resolved in the outer scope (auto-extern); not shown by explain
    &resolve::Resolve,    // IR -> typed graph: ops, arguments, constants, output types; operators desugared
    &cells::Cells,        // `shared` bindings become cells; not shown by explain
    &adapters::Adapters,  // automatic class-A adapters on mismatched wires (`strict` refuses them)
    &hoist::MarkCaptures, // every `const` binding's node marked as its capture, before any rewrite
    &snapshot::Snapshot,  // the resolved graph kept for `explain --dot`
    // Rewriting.
    &dce::RestrictOutputs,      // only the requested outputs kept; not shown by explain
    &polyfill::ExpandPolyfills, // nodes the target engine cannot run expanded
    &picks::Picks,              // picks among literal strings carried as an index (with fusion)
    &fusion::Fusion,            // Node Fusion to a fixpoint (unless disabled)
    &cse::Cse,                  // identical pure nodes merged (with fusion; listed only then)
    &dce::Dce,                  // nodes no output needs dropped (side channels pinned)
    // Sorting and classifying.
    &toposort::Toposort, // evaluation order, cycle detection
    &hoist::Hoist,       // the lifecycle class of every node
    &fold::Fold,         // compile constants evaluated and replaced by literals
    // The program.
    &emit::Emit,         // the sorted graph laid out as the immutable `Program`
    &select::Select,     // the engine and provenance mode, into the program's `Selection`
    &segment::Segment,   // the mixed engine's native segments, into the program's `Segmentation`; not shown by explain
    &cells::ScopeRecord, // what scope chains need (outer manifest, inlined literals, cells); not shown by explain
];

/// Options of one compilation.
#[derive(Clone, Debug)]
pub struct CompileOptions {
    /// Refuse implicit (class-A) coercions on wires.
    pub strict: bool,
    /// Refuse free names nobody provides (instead of inferring coordinates).
    pub strict_names: bool,
    /// Keep only these outputs (and the nodes they need); all when `None`.
    pub outputs: Option<Vec<String>>,
    /// Run Node Fusion and common-subexpression merging (on by default;
    /// off for equivalence tests and debugging: the graph as written).
    pub fusion: bool,
    /// The target engine's capability: the nodes it can run. `None`: every
    /// node (P1). Fusion never produces an unsupported node, and polyfills
    /// expand unsupported nodes that have one.
    pub engine_supports: Option<fn(&NodeDef) -> bool>,
    /// The engine and provenance request, checked ([`select::Request::parse`]).
    pub request: select::Request,
    /// The engine the caller asked for, as written (recorded for `explain`).
    pub engine: String,
    /// The provenance mode the caller asked for, as written (recorded for `explain`).
    pub provenance: String,
    /// The manifest of the outer scope the program is compiled against
    /// (its free names become extern slots: auto-extern).
    pub outer: Option<Arc<Manifest>>,
    /// The iteration variables of an iteration body, with their types.
    pub iteration: Vec<(String, PortType)>,
    /// Names that get a slot even when the program does not read them
    /// (the columns a workload emits from outer scopes).
    pub keep: Vec<String>,
}

impl CompileOptions {
    /// Default options for the (engine, provenance) request, or its refusal
    /// (an unknown name, a contradiction), before anything is compiled.
    pub fn for_request(engine: &str, provenance: &str) -> Result<CompileOptions, crate::error::Refused> {
        Ok(CompileOptions {
            request: select::Request::parse(engine, provenance)?,
            engine: engine.to_string(),
            provenance: provenance.to_string(),
            ..CompileOptions::default()
        })
    }

    /// The target engine's capability ([`CompileOptions::engine_supports`]):
    /// every node when none is given.
    pub fn supports(&self) -> fn(&NodeDef) -> bool {
        self.engine_supports.unwrap_or(|_| true)
    }
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions {
            strict: false,
            strict_names: false,
            outputs: None,
            fusion: true,
            engine_supports: None,
            request: select::Request::parse("auto", "auto").expect("the default request is valid"),
            engine: "auto".to_string(),
            provenance: "auto".to_string(),
            outer: None,
            iteration: Vec::new(),
            keep: Vec::new(),
        }
    }
}

/// The whole build phase behind `polydat.compile`: checks the (engine,
/// provenance) request before anything is compiled, compiles `ir` with
/// `options` for it (the selection stage chooses the engine), and returns
/// the program with the engine chosen.
pub fn build(
    ir: &GraphIr,
    engine: &str,
    provenance: &str,
    options: CompileOptions,
) -> Result<(Program, EngineKind), BuildError> {
    let checked = CompileOptions::for_request(engine, provenance)?;
    let options =
        CompileOptions { request: checked.request, engine: checked.engine, provenance: checked.provenance, ..options };
    let program = compile(ir, &options)?;
    let kind = program.selection.engine;
    Ok((program, kind))
}

/// Compiles a graph IR into an immutable program: runs every pass of
/// [`PIPELINE`] in order, and records in the program what each did.
pub fn compile(ir: &GraphIr, options: &CompileOptions) -> Result<Program, CompileError> {
    let started = Instant::now();
    let mut trace = PassTrace::new();
    let mut cx = PassContext::new(ir, options);
    let mut graph = Graph::default();
    for pass in PIPELINE {
        if !pass.recovers() {
            cx.report_errors()?;
        }
        if let Some(note) = pass.run(&mut graph, &mut cx)? {
            trace.record(pass.name(), cx.node_count(&graph), note);
        }
    }
    let mut program = cx.program.expect("the pipeline ends with a program");
    program.explain.passes = trace.passes;
    program.stats.compile_micros = started.elapsed().as_micros();
    Ok(program)
}
