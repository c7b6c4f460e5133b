//! The walk over steps of a program with `if`s, written once for every
//! engine: stale steps in evaluation order, each run once, except a step no
//! root of the read needs any more ([`Demand::needed`]), which stays stale;
//! a chooser step takes its branch's value without reading the other one
//! (the lazy-branch rule, [`crate::program::branches`]).

use crate::node::NodeError;
use crate::program::branches::{Branch, Branches, Demand, Roots};
use crate::program::Program;

/// What the walk needs of an engine's state.
pub trait WalkState {
    /// Step `s` is about to run (`usize::MAX`: none is), so a contained
    /// panic is attributed to it.
    fn begin(&mut self, s: usize);
    /// Step `s` holds its current value.
    fn current(&self, s: usize) -> bool;
    /// The condition in value slot `slot` is nonzero (`None`: it is `None`).
    fn condition(&self, slot: u32) -> Option<bool>;
    /// Runs step `s` (the `None` rule, then its node) and marks it current.
    fn run(&mut self, s: usize) -> Result<(), NodeError>;
    /// Runs chooser step `s` with its branch not taken read from `from`,
    /// the slot of the branch taken (so the node's own rule makes the value
    /// from the taken one alone), or writes `None` when `from` is `None` (a
    /// `None` condition) or holds `None`; marks it current.
    fn choose(&mut self, s: usize, from: Option<u32>) -> Result<(), NodeError>;
}

/// Runs the stale steps among `steps` (ascending) that `roots` need, over
/// `state`.
pub fn walk(
    program: &Program,
    branches: &Branches,
    steps: &[u32],
    roots: Roots,
    state: &mut impl WalkState,
) -> Result<(), (usize, NodeError)> {
    state.begin(usize::MAX);
    let mut demand = Demand::new(program, branches, steps, roots);
    for &s in steps {
        let s = s as usize;
        if state.current(s) {
            continue;
        }
        if !demand.needed(s, |p| state.current(p), |slot| state.condition(slot)) {
            continue;
        }
        state.begin(s);
        match Branch::of(&program.steps[s]) {
            Some(branch) => {
                let from = branch.taken(state.condition(branch.cond));
                // A taken branch is `None` when its value is: the `None` rule.
                state.choose(s, from).map_err(|e| (s, e))?;
            }
            None => state.run(s).map_err(|e| (s, e))?,
        }
    }
    state.begin(usize::MAX);
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::engine::{new_kernel, EngineKind, Kernel, Provenance};
    use crate::test_support::compile_sketch;
    use crate::value::Value;
    use std::sync::Arc;

    /// Every engine the walk serves: P1, P2 and P3 in each mode, mixed.
    fn kernels(src: &str) -> Vec<Box<dyn Kernel>> {
        let program = Arc::new(compile_sketch(src));
        let modes = [Provenance::Raw, Provenance::Push, Provenance::Pull, Provenance::PushPull];
        let mut kinds = vec![EngineKind::P1, EngineKind::Mixed];
        kinds.extend(modes.iter().flat_map(|&m| [EngineKind::P2(m), EngineKind::P3(m)]));
        kinds.into_iter().map(|kind| new_kernel(&program, kind)).collect()
    }

    #[test]
    fn the_branch_not_taken_never_runs() {
        let src = "input x: u64\nv := select_u64(u64_lt(x, 5), 7, is_positive(u64_sub(x, 5)))";
        for mut k in kernels(src) {
            for x in 0..8u64 {
                k.write(0, Value::U64(x)).unwrap();
                let got = k.pull_word(0);
                match x {
                    0..5 => assert_eq!(got.unwrap(), 7, "x={x}"),
                    5 => assert!(got.unwrap_err().to_string().contains("is_positive"), "x={x}"),
                    _ => assert_eq!(got.unwrap(), x - 5, "x={x}"),
                }
                assert_eq!(k.eval().is_err(), x == 5, "x={x}");
            }
        }
    }

    #[test]
    fn a_step_another_output_reads_still_runs_for_that_output() {
        let src = "input x: u64\nshared := is_positive(x)\nv := select_u64(u64_lt(x, 5), 7, shared)";
        for mut k in kernels(src) {
            k.write(0, Value::U64(0)).unwrap();
            assert_eq!(k.pull_word(1).unwrap(), 7);
            assert!(k.pull(0).is_err());
            assert!(k.eval().is_err());
            assert_eq!(k.pull_word(1).unwrap(), 7);
        }
    }
}
