//! The engine a program runs on, as the selection stage recorded it: the
//! engine and mode, the request, the reason, and the figures of the
//! automatic provenance choice (the logic is `compile::select`).

pub use crate::provenance::Provenance;
use serde::Serialize;

/// An engine and mode that runs a program: what `prog.engine` reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum EngineKind {
    /// The interpreter: the semantic oracle.
    #[default]
    P1,
    /// Closures over one flat u64 buffer, in one of the four provenance modes.
    P2(Provenance),
    /// Native code from Cranelift over the same buffer, in one of the four modes.
    P3(Provenance),
    /// Native segments hosted by the compiled layer in Pull mode, every other
    /// step run by its node's rule (what `auto` runs when values must be boxed).
    Mixed,
}

/// Every engine a program can run on, by the name `prog.engine` reports:
/// what an equivalence matrix iterates.
pub const ENGINE_NAMES: [&str; 10] =
    ["p1", "p2/raw", "p2/push", "p2/pull", "p2/pushpull", "p3/raw", "p3/push", "p3/pull", "p3/pushpull", "mixed"];

/// Every value `engine=` accepts besides the [`ENGINE_NAMES`]: `auto` (the
/// production default) and the engine families.
pub const ENGINE_REQUESTS: [&str; 5] = ["auto", "p1", "p2", "p3", "mixed"];

/// Every value `provenance=` accepts: `auto` (the selection heuristic) and
/// the four modes ([`Provenance::ALL`]).
pub const PROVENANCE_REQUESTS: [&str; 5] = ["auto", "raw", "push", "pull", "pushpull"];

impl EngineKind {
    /// The name reported as `prog.engine` (one of [`ENGINE_NAMES`]).
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::P1 => "p1",
            EngineKind::P2(Provenance::Raw) => "p2/raw",
            EngineKind::P2(Provenance::Push) => "p2/push",
            EngineKind::P2(Provenance::Pull) => "p2/pull",
            EngineKind::P2(Provenance::PushPull) => "p2/pushpull",
            EngineKind::P3(Provenance::Raw) => "p3/raw",
            EngineKind::P3(Provenance::Push) => "p3/push",
            EngineKind::P3(Provenance::Pull) => "p3/pull",
            EngineKind::P3(Provenance::PushPull) => "p3/pushpull",
            EngineKind::Mixed => "mixed",
        }
    }

    /// The provenance mode, for the compiled engines.
    pub fn mode(self) -> Option<Provenance> {
        match self {
            EngineKind::P1 | EngineKind::Mixed => None,
            EngineKind::P2(m) | EngineKind::P3(m) => Some(m),
        }
    }
}

/// The figures the provenance choice is made from.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Analysis {
    /// Steps in the compiled program.
    pub total_nodes: usize,
    /// The largest output cone, in steps.
    pub max_output_cone: usize,
    /// `max_output_cone / total_nodes` (0 for an empty program).
    pub output_cone_ratio: f64,
    /// Steps whose provenance holds no coordinate (and that are not volatile).
    pub stable_nodes: usize,
    /// `stable_nodes / total_nodes` (0 for an empty program).
    pub stable_ratio: f64,
    /// The mode `provenance="auto"` picks.
    pub choice: Provenance,
    /// Which rule of the heuristic decided.
    pub rule: &'static str,
}

/// What the selection stage decided: the engine that runs, what was asked,
/// why, and the analysis behind an automatic mode. (The default, P1 with
/// nothing analysed, is what a program holds until the stage runs.)
#[derive(Clone, Debug, Default, Serialize)]
pub struct Selection {
    /// The engine and mode that run the program.
    #[serde(serialize_with = "engine_name")]
    pub engine: EngineKind,
    /// The engine request as given (`auto`, `p2`, `p2/pull`, ...).
    pub requested: String,
    /// The provenance request as given (`auto`, `pull`, ...).
    pub provenance: String,
    /// One sentence: why this engine and mode.
    pub reason: String,
    /// The figures the automatic provenance choice is made from (computed
    /// for every program, whatever runs it).
    pub analysis: Analysis,
}

fn engine_name<S: serde::Serializer>(engine: &EngineKind, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(engine.name())
}
