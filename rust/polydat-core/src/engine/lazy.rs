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
    /// Writes the value of slot `from` (`None` when absent: a `None`
    /// condition) as chooser step `s`'s value, and marks it current.
    fn choose(&mut self, s: usize, from: Option<u32>);
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
                state.choose(s, from);
            }
            None => state.run(s).map_err(|e| (s, e))?,
        }
    }
    state.begin(usize::MAX);
    Ok(())
}
