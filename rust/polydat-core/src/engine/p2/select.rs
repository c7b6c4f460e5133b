//! The automatic provenance selection (seeds: engines.md, "Automatic
//! Selection Heuristic"), from graph analysis at construction:
//!
//! ```text
//! output_cone_ratio = max_output_cone / total_nodes
//! stable_ratio      = stable_nodes / total_nodes
//! if total_nodes < 15 and stable_ratio == 0:  Raw       tiny and all dirty
//! elif output_cone_ratio < 0.5:               Pull      the cone guard pays
//! elif stable_ratio >= 0.3:                   PushPull  push skips stable parts of big cones
//! else:                                       Pull      free insurance on all-dirty graphs
//! ```
//!
//! Push alone is never chosen. A *stable* node is a deterministic step whose
//! provenance holds no coordinate: it reads only externs (configuration,
//! written rarely) or nothing. Coordinates are taken to change every cycle.

use super::modes::Provenance;
use crate::ir::InputKind;
use crate::program::Program;

/// The figures the selection is made from, and the choice.
#[derive(Clone, Debug, PartialEq)]
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
    /// The mode `provenance="auto"` runs.
    pub choice: Provenance,
    /// Which rule of the heuristic decided.
    pub rule: &'static str,
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
        (Provenance::PushPull, "stable_ratio >= 0.3: large cones with stable parts, push skips them")
    } else {
        (Provenance::Pull, "large, mostly dirty cones: the cone guard costs nothing when it falls through")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heuristic_table() {
        assert_eq!(choose(11, 1.0, 0.0).0, Provenance::Raw);
        assert_eq!(choose(11, 1.0, 0.2).0, Provenance::Pull, "small but partly stable: not Raw");
        assert_eq!(choose(100, 0.3, 0.7).0, Provenance::Pull);
        assert_eq!(choose(100, 0.7, 0.7).0, Provenance::PushPull);
        assert_eq!(choose(100, 0.9, 0.1).0, Provenance::Pull);
        assert_eq!(choose(0, 0.0, 0.0).0, Provenance::Raw);
    }
}
