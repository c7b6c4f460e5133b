//! The graph compiler: one module per pass, run in a fixed order by
//! [`compile`]:
//!
//! 1. [`resolve`] — IR → typed graph (ops, arguments, constants, output types);
//!    then [`adapters`] — automatic class-A adapters on mismatched wires (`strict` refuses them);
//! 2. [`dce::restrict_outputs`] — keep only the requested outputs;
//! 3. [`polyfill`] — expand nodes the target engine cannot run;
//! 4. [`fusion`] — Node Fusion to a fixpoint (unless disabled);
//! 5. [`dce`] — drop nodes no output needs (side channels pinned);
//! 6. [`toposort`] — evaluation order, cycle detection;
//! 7. [`hoist`] — lifecycle class of every node; `const` captures;
//! 8. [`fold`] — compile constants evaluated and replaced by literals;
//! 9. [`emit`] — the immutable [`Program`];
//! 10. [`select`] — the engine and provenance mode, chosen once from the
//!     request and the program's shape (the heuristic reads its cones), into
//!     the program's [`select::Selection`], which `explain` reads.

pub mod adapters;
pub mod dce;
pub mod emit;
pub mod explain;
pub mod fold;
pub mod fusion;
pub mod graph;
pub mod hoist;
pub mod polyfill;
pub mod resolve;
pub mod select;
pub mod sketch;
pub mod toposort;

use crate::error::CompileError;
use crate::ir::GraphIr;
use crate::node::NodeDef;
use crate::program::events::EventKind;
use crate::program::{CompileStats, Program};
use explain::{ExplainData, GraphSnapshot, PassRecord};
use graph::Graph;
use std::time::Instant;

/// Options of one compilation.
#[derive(Clone, Debug)]
pub struct CompileOptions {
    /// Refuse implicit (class-A) coercions on wires.
    pub strict: bool,
    /// Keep only these outputs (and the nodes they need); all when `None`.
    pub outputs: Option<Vec<String>>,
    /// Run Node Fusion (on by default; off for equivalence tests and debugging).
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
            outputs: None,
            fusion: true,
            engine_supports: None,
            request: select::Request::parse("auto", "auto").expect("the default request is valid"),
            engine: "auto".to_string(),
            provenance: "auto".to_string(),
        }
    }
}

/// Compiles a graph IR into an immutable program.
pub fn compile(ir: &GraphIr, options: &CompileOptions) -> Result<Program, CompileError> {
    let started = Instant::now();
    let mut events = Vec::new();
    let mut trace = PassTrace::new();
    let mut graph = resolve::resolve(ir, options.strict, &mut events)?;
    let nodes_resolved = graph.nodes.len();
    trace.record("resolve", &graph, format!("{} node(s) typed", graph.nodes.len()));
    adapters::insert(&mut graph, options.strict, &mut events)?;
    let adapters = events.iter().filter(|e| e.kind == EventKind::TypeAdapterInserted).count();
    trace.record("adapters", &graph, format!("{adapters} adapter(s)"));
    let resolved = GraphSnapshot::of(&graph);
    trace.record("snapshot", &graph, "resolved graph kept for explain --dot".into());

    dce::restrict_outputs(&mut graph, options.outputs.as_deref())?;
    let supports = options.engine_supports.unwrap_or(|_| true);
    let polyfills = polyfill::apply(&mut graph, supports, &mut events);
    trace.record("polyfill", &graph, format!("{polyfills} node(s) expanded"));
    let fused = if options.fusion {
        let s = fusion::fuse(&mut graph, supports, &mut events);
        trace.record("fusion", &graph, format!("{} rewrite(s) in {} iteration(s)", s.applied, s.iterations));
        s.applied
    } else {
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
