//! The graph compiler: one module per pass, run in a fixed order by
//! [`compile`]:
//!
//! 1. [`resolve`] — IR → typed graph (ops, arguments, constants, output types);
//!    then [`adapters`] — automatic class-A adapters on mismatched wires (`strict` refuses them);
//!    then [`hoist::mark_captures`] — the node of every `const` binding marked
//!    as its capture, before any pass drops a binding, merges or rewrites;
//! 2. [`dce::restrict_outputs`] — keep only the requested outputs;
//! 3. [`polyfill`] — expand nodes the target engine cannot run;
//! 4. [`picks`] — picks among literal strings carried as an index; then
//!    [`fusion`] — Node Fusion to a fixpoint (both unless disabled); then
//!    [`cse`] — identical pure nodes merged (with fusion);
//! 5. [`dce`] — drop nodes no output needs (side channels pinned);
//! 6. [`toposort`] — evaluation order, cycle detection;
//! 7. [`hoist`] — lifecycle class of every node;
//! 8. [`fold`] — compile constants evaluated and replaced by literals;
//! 9. [`emit`] — the immutable [`Program`];
//! 10. [`select`] — the engine and provenance mode, chosen once from the
//!     request and the program's shape (the heuristic reads its cones), into
//!     the program's [`select::Selection`], which `explain` reads.

pub mod adapters;
pub mod cells;
pub mod cse;
pub mod dce;
pub mod desugar;
pub mod emit;
pub mod explain;
pub mod fold;
pub mod fusion;
pub mod graph;
pub mod hoist;
pub mod literal;
pub mod outer;
pub mod picks;
pub mod polyfill;
pub mod resolve;
pub mod segment;
pub mod select;
pub mod sketch;
pub mod toposort;

use crate::error::CompileError;
use crate::ir::GraphIr;
use crate::node::NodeDef;
use crate::program::events::EventKind;
use crate::program::manifest::Manifest;
use crate::program::{CellDef, CompileStats, Program, ScopeData};
use crate::types::PortType;
use explain::{ExplainData, GraphSnapshot, PassRecord};
use graph::Graph;
use std::sync::Arc;
use std::time::Instant;

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

/// Compiles a graph IR into an immutable program.
pub fn compile(ir: &GraphIr, options: &CompileOptions) -> Result<Program, CompileError> {
    let started = Instant::now();
    let mut events = Vec::new();
    let mut trace = PassTrace::new();
    let surface = outer::Surface {
        outer: options.outer.as_deref(),
        iteration: &options.iteration,
        keep: &options.keep,
        strict: options.strict_names,
    };
    let rewritten = outer::apply(ir, &surface, &mut events)?;
    let (ir, inlined) = match &rewritten {
        Some(r) => (&r.ir, r.inlined.clone()),
        None => (ir, Vec::new()),
    };
    // The typing passes go on after an error, so a program's type errors
    // are reported together, in source order.
    let mut errors = Vec::new();
    let mut graph = resolve::resolve_recovering(ir, options.strict, &mut events, &mut errors)?;
    let nodes_resolved = graph.nodes.len();
    trace.record("resolve", &graph, format!("{} node(s) typed", graph.nodes.len()));
    cells::apply(&mut graph, options.strict, &mut events, &mut errors);
    adapters::insert(&mut graph, options.strict, &mut events, &mut errors);
    if let Some(err) = CompileError::gather(errors) {
        return Err(err);
    }
    let adapters = events.iter().filter(|e| e.kind == EventKind::TypeAdapterInserted).count();
    trace.record("adapters", &graph, format!("{adapters} adapter(s)"));
    let captures = hoist::mark_captures(&mut graph)?;
    trace.record("captures", &graph, format!("{captures} const binding(s) marked as captures"));
    let resolved = GraphSnapshot::of(&graph);
    trace.record("snapshot", &graph, "resolved graph kept for explain --dot".into());

    let kept = options.outputs.as_ref().map(|names| {
        let seeds = graph.outputs.iter().map(|o| &o.name).filter(|n| n.starts_with("__seed_")).cloned();
        names.iter().cloned().chain(seeds).collect::<Vec<String>>()
    });
    dce::restrict_outputs(&mut graph, kept.as_deref())?;
    let supports = options.engine_supports.unwrap_or(|_| true);
    let polyfills = polyfill::apply(&mut graph, supports, &mut events);
    trace.record("polyfill", &graph, format!("{polyfills} node(s) expanded"));
    let fused = if options.fusion {
        let picks = picks::apply(&mut graph, supports, &mut events);
        trace.record("picks", &graph, format!("{picks} pick(s) among literal strings carried as an index"));
        let s = fusion::fuse(&mut graph, supports, &mut events);
        trace.record("fusion", &graph, format!("{} rewrite(s) in {} iteration(s)", s.applied, s.iterations));
        let merged = cse::merge(&mut graph, &mut events).merged;
        trace.record("cse", &graph, format!("{merged} node(s) merged into identical ones"));
        s.applied
    } else {
        trace.record("picks", &graph, "disabled (with fusion)".into());
        trace.record("fusion", &graph, "disabled".into());
        0
    };
    let dropped = dce::eliminate(&mut graph, &mut events);
    trace.record("dce", &graph, format!("{dropped} node(s) dropped"));
    toposort::sort(&mut graph)?;
    trace.record("toposort", &graph, String::new());
    let classes = hoist::hoist(&mut graph)?;
    trace.record(
        "hoist",
        &graph,
        format!(
            "{} compile-const, {} scope-init, {} dynamic; {} const capture(s)",
            classes.compile_const, classes.scope_init, classes.dynamic, classes.captures
        ),
    );
    let folded = fold::fold(&mut graph, &mut events)?;
    trace.record(
        "fold",
        &graph,
        format!("{} evaluated, {} replaced by literals, {} dropped", folded.evaluated, folded.replaced, folded.dropped),
    );
    let nodes_final = graph.nodes.len();
    let stats = CompileStats {
        nodes_resolved,
        nodes_final,
        compile_micros: 0,
        fusions: fused,
        polyfills,
        folded: folded.replaced,
        adapters,
    };
    let explain = ExplainData {
        passes: Vec::new(),
        resolved,
        fusion: options.fusion,
        strict: options.strict,
        requested_outputs: options.outputs.clone(),
    };
    let mut program = emit::emit(graph, events, stats, explain);
    trace.record_nodes("emit", nodes_final, String::new());
    program.selection = select::select(&program, options.request, &options.engine, &options.provenance);
    trace.record_nodes("select", nodes_final, program.selection.engine.name().to_string());
    let cells = (0..program.inputs.len())
        .filter(|&i| program.inputs[i].origin == crate::ir::InputOrigin::Cell)
        .map(|input| CellDef { input, seed: program.output(&cells::seed_name(&program.inputs[input].name)) })
        .collect();
    program.scope = ScopeData { outer: options.outer.clone(), inlined, cells };
    program.explain.passes = trace.passes;
    program.stats.compile_micros = started.elapsed().as_micros();
    Ok(program)
}

/// Node counts and durations per pass, for `explain`.
struct PassTrace {
    passes: Vec<PassRecord>,
    last: Instant,
}

impl PassTrace {
    fn new() -> PassTrace {
        PassTrace { passes: Vec::new(), last: Instant::now() }
    }

    fn record(&mut self, pass: &'static str, graph: &Graph, note: String) {
        self.record_nodes(pass, graph.nodes.len(), note);
    }

    fn record_nodes(&mut self, pass: &'static str, nodes: usize, note: String) {
        let now = Instant::now();
        let micros = now.duration_since(self.last).as_micros() as u64;
        self.last = now;
        self.passes.push(PassRecord { pass, nodes, micros, note });
    }
}
