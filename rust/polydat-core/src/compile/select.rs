//! Engine selection, the last compile stage: the engine and provenance mode
//! a program runs on are chosen once, from the caller's request and the
//! emitted program's shape, into the [`Selection`] the program carries (and
//! `explain` reads).
//!
//! `engine="auto"` runs P3 when every step is a scalar step with a slot form
//! or a by-bytes step (the whole program runs natively and writes its text in
//! place, with no value to box), and otherwise the mixed engine: the
//! compiled layer running native segments and every other step by its
//! node's rule. A
//! program of more than [`AUTO_NATIVE_MAX_STEPS`] steps runs on P2 (native
//! code for it would take seconds to build).
//!
//! The automatic provenance choice started from the seeds' heuristic and was
//! then measured (`polydat bench benches/scenarios/*.polydat
//! --compare-modes`): PushPull was never the fastest mode on any scenario,
//! and Pull came within 10% of the best mode on every scenario but tiny
//! all-dirty graphs, where Raw wins:
//!
//! ```text
//! output_cone_ratio = max_output_cone / total_nodes
//! stable_ratio      = stable_nodes / total_nodes
//! if total_nodes < 15 and stable_ratio == 0:  Raw    tiny and all dirty
//! elif output_cone_ratio < 0.5:               Pull   the cone guard skips whole evaluations
//! elif stable_ratio >= 0.3:                   Pull   the guard skips reads of the stable parts
//! else:                                       Pull   free insurance on all-dirty graphs
//! ```
//!
//! Push and PushPull are never chosen; a caller may still ask for them. A
//! *stable* node is a deterministic step whose provenance holds no
//! coordinate: it reads only externs (configuration, written rarely) or
//! nothing. Coordinates are taken to change every cycle.

use super::graph::Graph;
use super::pass::{Pass, PassContext};
use crate::error::CompileError;
use crate::error::Refused;
use crate::ir::InputKind;
use crate::program::lifecycle::Lifecycle;
pub use crate::program::selection::{
    Analysis, EngineKind, Provenance, Selection, ENGINE_NAMES, ENGINE_REQUESTS, PROVENANCE_REQUESTS,
};
use crate::program::Program;

impl EngineKind {
    /// Parses an engine name as [`EngineKind::name`] reports it (`p1`,
    /// `p2/raw`, ...); `auto` is what the default request runs.
    pub fn parse(name: &str) -> Result<EngineKind, Refused> {
        match Request::parse(name, "auto")? {
            Request { family: Family::P1, .. } => Ok(EngineKind::P1),
            Request { family: Family::Mixed, .. } => Ok(EngineKind::Mixed),
            Request { family: Family::P2, mode: Some(m) } => Ok(EngineKind::P2(m)),
            Request { family: Family::P3, mode: Some(m) } => Ok(EngineKind::P3(m)),
            _ => Err(Refused {
                engine: name.to_string(),
                reason: format!(
                    "name an engine and mode ({}): the automatic choice needs a program",
                    ENGINE_NAMES.join(", ")
                ),
            }),
        }
    }
}

/// An engine family, as a request names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    /// `auto`: the production default.
    Auto,
    /// `p1`.
    P1,
    /// `p2` or `p2/<mode>`.
    P2,
    /// `p3` or `p3/<mode>`.
    P3,
    /// `mixed`: native segments, every other step by its node's rule.
    Mixed,
}

/// An (engine, provenance) request, checked before anything is compiled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    family: Family,
    mode: Option<Provenance>,
}

impl Request {
    /// Parses `engine` (`auto`, `p1`, `p2`, `p2/<mode>`, `p3`, `mixed`) and
    /// `provenance` (`auto` or a mode); refuses what no engine can honour: an
    /// unknown name, a mode for P1, a `p2/<mode>` that contradicts the
    /// provenance asked for, an engine this build does not have.
    pub fn parse(engine: &str, provenance: &str) -> Result<Request, Refused> {
        let refuse = |engine: &str, reason: String| Refused { engine: engine.to_string(), reason };
        let mode = match provenance {
            "auto" => None,
            other => Some(Provenance::parse(other).ok_or_else(|| {
                refuse(engine, format!("unknown provenance '{other}'; choose {}", PROVENANCE_REQUESTS.join(", ")))
            })?),
        };
        let (family, named) = match engine.split_once('/') {
            Some((family, m)) => (family, Some(m)),
            None => (engine, None),
        };
        let named = match named {
            None => None,
            Some(m) => match Provenance::parse(m) {
                Some(p) if mode.is_none() || mode == Some(p) => Some(p),
                Some(p) => {
                    return Err(refuse(
                        engine,
                        format!(
                            "engine '{engine}' names mode '{}' but provenance '{provenance}' was asked for",
                            p.name()
                        ),
                    ))
                }
                None => return Err(refuse(engine, format!("unknown provenance mode '{m}' in engine '{engine}'"))),
            },
        };
        let mode = named.or(mode);
        let family = match family {
            "auto" => Family::Auto,
            "p1" if named.is_some() => return Err(refuse(engine, "p1 has no provenance modes".to_string())),
            "p1" => Family::P1,
            "p2" => Family::P2,
            "p3" => Family::P3,
            "mixed" if named.is_some() => return Err(refuse(engine, "mixed has no provenance modes".to_string())),
            "mixed" => Family::Mixed,
            _ => {
                return Err(refuse(
                    engine,
                    format!("unknown engine; choose {} (or p2/<mode>, p3/<mode>)", ENGINE_REQUESTS.join(", ")),
                ))
            }
        };
        if let (Family::P1 | Family::Mixed, Some(m)) = (family, mode) {
            let host = if family == Family::P1 { "p1" } else { "mixed" };
            return Err(refuse(
                &format!("{host}/{}", m.name()),
                format!(
                    "provenance mode '{}' applies only to the compiled engines; {host} always invalidates \
                     exactly and pulls lazily (use engine='p2' or 'p3')",
                    m.name()
                ),
            ));
        }
        Ok(Request { family, mode })
    }
}

/// Analyses `program` and applies the heuristic.
pub fn analyze(program: &Program) -> Analysis {
    let total_nodes = program.steps.len();
    let max_output_cone = program.max_cone_len();
    let coordinates: Vec<usize> =
        program.inputs.iter().enumerate().filter(|(_, i)| i.kind == InputKind::Coordinate).map(|(i, _)| i).collect();
    let stable_nodes = program
        .steps
        .iter()
        .zip(&program.provenance)
        .filter(|(step, prov)| !step.volatile && coordinates.iter().all(|&c| !prov.contains(c)))
        .count();
    let ratio = |n: usize| if total_nodes == 0 { 0.0 } else { n as f64 / total_nodes as f64 };
    let (output_cone_ratio, stable_ratio) = (ratio(max_output_cone), ratio(stable_nodes));
    let (choice, rule) = choose(total_nodes, output_cone_ratio, stable_ratio);
    Analysis { total_nodes, max_output_cone, output_cone_ratio, stable_nodes, stable_ratio, choice, rule }
}

/// The heuristic itself.
pub fn choose(total_nodes: usize, output_cone_ratio: f64, stable_ratio: f64) -> (Provenance, &'static str) {
    if total_nodes < 15 && stable_ratio == 0.0 {
        (Provenance::Raw, "total_nodes < 15 and stable_ratio == 0: tiny all-dirty graph, no provenance data")
    } else if output_cone_ratio < 0.5 {
        (Provenance::Pull, "output_cone_ratio < 0.5: selective outputs, the cone guard skips whole evaluations")
    } else if stable_ratio >= 0.3 {
        (Provenance::Pull, "stable_ratio >= 0.3: large cones with stable parts, the guard skips their reads")
    } else {
        (
            Provenance::Raw,
            "large, mostly dirty cones: the cone guard would fall through, Raw's sweep does not pay for it",
        )
    }
}

/// The most steps `engine="auto"` compiles to native code: P3 and the
/// mixed engine build native code for every step when the first kernel is
/// made (about 60 µs a step: 2,000 steps take about 0.12 s, 20,000 about
/// 3 s), so larger programs run on P2, whose kernels are ready at once.
pub const AUTO_NATIVE_MAX_STEPS: usize = 4096;

/// Every per-cycle step of `program` is a scalar step or a by-bytes one
/// ([`crate::program::Step::is_scalar`], [`crate::program::Step::is_by_bytes`]):
/// P3 runs every row as native code and in-place text, with no value
/// boxed, so `engine="auto"` picks it over the mixed engine (whose
/// interpreter would run every by-reference step on `Value`s). A step that
/// runs once per kernel (a string literal, a scope-init value) does not
/// count: how it runs costs nothing per row.
pub fn runs_compiled(program: &Program) -> bool {
    program.steps.iter().all(|step| step.lifecycle != Lifecycle::Dynamic || step.is_scalar() || step.is_by_bytes())
}

/// The selection stage: resolves `request` for `program`.
pub fn select(program: &Program, request: Request, requested: &str, provenance: &str) -> Selection {
    let analysis = analyze(program);
    let (engine, reason) = match (request.family, request.mode) {
        (Family::P1, _) => (EngineKind::P1, "engine p1 was requested".to_string()),
        (Family::Mixed, _) => (EngineKind::Mixed, "engine mixed was requested".to_string()),
        (Family::Auto, None) if program.steps.len() > AUTO_NATIVE_MAX_STEPS => (
            EngineKind::P2(analysis.choice),
            format!(
                "engine=auto runs P2 on a program of more than {AUTO_NATIVE_MAX_STEPS} steps (native code for it \
                 would take seconds to build); provenance chosen by the heuristic: {}",
                analysis.rule
            ),
        ),
        (Family::Auto, None) if runs_compiled(program) => (
            EngineKind::P3(analysis.choice),
            format!(
                "engine=auto runs P3: every step runs natively or writes its text in place; provenance chosen by the \
                 heuristic: {}",
                analysis.rule
            ),
        ),
        (Family::Auto, None) => (
            EngineKind::Mixed,
            "engine=auto runs the mixed engine: some step needs values boxed (it accepts None, or has no native or \
             in-place form), so it runs by its node's rule, with native segments where nodes have a native form; \
             generate runs P3's native row loop when every step its columns need is scalar"
                .to_string(),
        ),
        (Family::P2, Some(m)) => (
            EngineKind::P2(m),
            format!(
                "provenance {} was requested (the heuristic would pick {}: {})",
                m.name(),
                analysis.choice.name(),
                analysis.rule
            ),
        ),
        (Family::P2, None) => {
            (EngineKind::P2(analysis.choice), format!("provenance chosen by the heuristic: {}", analysis.rule))
        }
        (Family::Auto | Family::P3, Some(m)) => (
            EngineKind::P3(m),
            format!(
                "provenance {} was requested (the heuristic would pick {}: {})",
                m.name(),
                analysis.choice.name(),
                analysis.rule
            ),
        ),
        (Family::P3, None) => {
            (EngineKind::P3(analysis.choice), format!("provenance chosen by the heuristic: {}", analysis.rule))
        }
    };
    Selection { engine, requested: requested.to_string(), provenance: provenance.to_string(), reason, analysis }
}

/// The `select` pass: [`select`] for the options' request, into the
/// program's [`Selection`].
pub struct Select;

impl Pass for Select {
    fn name(&self) -> &'static str {
        "select"
    }

    fn run(&self, _graph: &mut Graph, cx: &mut PassContext<'_>) -> Result<Option<String>, CompileError> {
        let options = cx.options;
        let program = cx.program();
        program.selection = select(program, options.request, &options.engine, &options.provenance);
        Ok(Some(program.selection.engine.name().to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heuristic_table() {
        assert_eq!(choose(11, 1.0, 0.0).0, Provenance::Raw);
        assert_eq!(choose(11, 1.0, 0.2).0, Provenance::Raw, "broad and mostly dirty: nothing for the guard to skip");
        assert_eq!(choose(100, 0.3, 0.7).0, Provenance::Pull);
        assert_eq!(choose(100, 0.7, 0.7).0, Provenance::Pull, "PushPull is never picked");
        assert_eq!(choose(100, 0.9, 0.1).0, Provenance::Raw);
        assert_eq!(choose(100, 0.4, 0.0).0, Provenance::Pull, "selective outputs");
        assert_eq!(choose(0, 0.0, 0.0).0, Provenance::Raw);
    }

    #[test]
    fn requests_are_checked_before_compiling() {
        assert!(Request::parse("p2/pull", "auto").is_ok());
        assert!(Request::parse("p2/pull", "pull").is_ok());
        assert!(Request::parse("p2/pull", "raw").unwrap_err().reason.contains("names mode 'pull'"));
        assert!(Request::parse("p1", "raw").unwrap_err().reason.contains("only to the compiled engines"));
        assert!(Request::parse("p9", "auto").unwrap_err().reason.contains("auto, p1, p2, p3, mixed"));
        assert!(Request::parse("p3/pull", "auto").is_ok());
        assert!(Request::parse("p2", "sideways").unwrap_err().reason.contains("unknown provenance"));
        for name in ENGINE_NAMES {
            assert_eq!(EngineKind::parse(name).unwrap().name(), name);
        }
        assert!(EngineKind::parse("p2").is_err(), "a family alone needs a program to choose a mode");
    }
}
