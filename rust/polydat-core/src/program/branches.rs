//! Lazy branches, one rule for every engine: a chooser step (what `if` and a
//! tile's `@if` become, `select_*`: see [`crate::node::NodeDef::chooses`])
//! needs its condition and the branch it takes, never the other one. A step
//! that only the branch not taken needs does not run, so its failure or its
//! `None` never reaches the row.
//!
//! A read walks its steps in evaluation order (P1's walk, and the compiled
//! engines' step-by-step walk, which their fast passes fall back to when
//! anything fails). Before a stale step runs, [`Demand::needed`] asks whether
//! a root of the read (the output read, every output, or what the scope-init
//! path hands on) still needs it: through a reader that needs it, on a wire
//! the reader reads whatever happens, or on the branch a chooser takes. A
//! chooser whose condition is not yet known at that point (its condition is
//! computed after the step: it reads another `if` that shares the step)
//! counts as needing both branches, so the rule depends only on the program
//! and the values, never on what earlier reads left current.

use super::{Lifecycle, Program, Step};
use std::cell::Cell;

/// How a reader reads a step's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// Whatever happens (any wire of an ordinary step, or a chooser's
    /// condition).
    Always,
    /// As both of a chooser's branches: whichever is taken, so only when
    /// the condition is a value (a `None` condition takes neither).
    Either,
    /// Only as a chooser's first branch (taken on a nonzero condition).
    Then,
    /// Only as a chooser's second branch (taken on a zero condition).
    Else,
}

/// The value slots a chooser step reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Branch {
    /// The condition's slot.
    pub cond: u32,
    /// The slot taken on a nonzero condition.
    pub then: u32,
    /// The slot taken on a zero condition.
    pub otherwise: u32,
}

impl Branch {
    /// The slots chooser step `step` reads (`None` for any other step).
    pub fn of(step: &Step) -> Option<Branch> {
        match (step.def.chooses, &step.ins[..]) {
            (true, &[cond, then, otherwise]) => Some(Branch { cond, then, otherwise }),
            _ => None,
        }
    }

    /// The slot the branch takes for condition `cond` (`None`: the condition is `None`).
    pub fn taken(&self, cond: Option<bool>) -> Option<u32> {
        cond.map(|c| if c { self.then } else { self.otherwise })
    }
}

/// What a read hands out: the steps whose values it needs whatever the branches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Roots {
    /// The output `o` (a pull, or one output of a row).
    Output(usize),
    /// Every output, and every step no step reads (`eval`).
    Every,
    /// What the scope-init path hands on: `const` captures, and the fixed
    /// (not `Dynamic`) steps that are outputs, that no step reads, or that
    /// a per-cycle step reads. A `Dynamic` step on the path runs there only
    /// when a capture needs it.
    ScopeInit,
}

/// The steps reading one step, ascending, each with the [`Side`] it reads on.
pub type Readers = Box<[(u32, Side)]>;

/// Per program with choosers: who reads each step, and on which side.
#[derive(Debug)]
pub struct Branches {
    /// Per step: the steps reading it (ascending), each with its [`Side`].
    readers: Box<[Readers]>,
    /// Per step: a root of [`Roots::Every`].
    every_root: Box<[bool]>,
    /// Per step: a root of [`Roots::ScopeInit`].
    init_root: Box<[bool]>,
}

impl Branches {
    /// The readers of `steps`, when some step is a chooser (`None`
    /// otherwise: every walk is then the plain one). `step_of` maps a slot
    /// to its step; `on_init_path` marks the scope-init path's steps.
    pub(crate) fn of(
        steps: &[Step],
        output_steps: impl Iterator<Item = u32>,
        step_of: impl Fn(u32) -> Option<usize>,
        on_init_path: &[bool],
    ) -> Option<Branches> {
        if !steps.iter().any(|s| s.def.chooses) {
            return None;
        }
        let mut readers: Vec<Vec<(u32, Side)>> = vec![Vec::new(); steps.len()];
        for (r, step) in steps.iter().enumerate() {
            let branch = Branch::of(step);
            for (wire, &slot) in step.ins.iter().enumerate() {
                let Some(p) = step_of(slot) else { continue };
                let side = match (branch, wire) {
                    (Some(_), 1) => Side::Then,
                    (Some(_), 2) => Side::Else,
                    _ => Side::Always,
                };
                match readers[p].last_mut() {
                    Some((last, seen)) if *last == r as u32 => {
                        *seen = match (*seen, side) {
                            (seen, side) if seen == side => seen,
                            (Side::Then | Side::Either, Side::Else) | (Side::Else, Side::Then) => Side::Either,
                            _ => Side::Always,
                        };
                    }
                    _ => readers[p].push((r as u32, side)),
                }
            }
        }
        let mut every_root: Vec<bool> = readers.iter().map(|r| r.is_empty()).collect();
        output_steps.for_each(|s| every_root[s as usize] = true);
        // Only a fixed step must be current when the init path ends (it is
        // never re-run after): a `Dynamic` one on the path is still run by
        // the per-cycle walk of whatever reads it later, so the init path
        // runs it only when a capture needs it.
        let init_root = (0..steps.len())
            .map(|s| {
                let fixed = steps[s].lifecycle != Lifecycle::Dynamic;
                let read_later = every_root[s] || readers[s].iter().any(|&(r, _)| !on_init_path[r as usize]);
                steps[s].capture || (fixed && read_later)
            })
            .collect();
        Some(Branches {
            readers: readers.into_iter().map(Vec::into_boxed_slice).collect(),
            every_root: every_root.into_boxed_slice(),
            init_root,
        })
    }
}

/// Whether a step is needed: three-valued while conditions are unknown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Need {
    No,
    Maybe,
    Yes,
}

/// The demand of one walk over steps: which stale step still has to run
/// ([`Demand::needed`]). Definite answers are kept for the whole walk (a
/// condition, once known, stays known); answers that wait on a condition not
/// yet known are kept only while deciding one step.
pub struct Demand<'p> {
    program: &'p Program,
    branches: &'p Branches,
    walk: &'p [u32],
    roots: Roots,
    /// Per step: 0 undecided, 1 not needed, 2 needed.
    definite: Vec<u8>,
    /// Per step: the step (plus one) deciding which found it `Maybe`.
    maybe_for: Vec<u32>,
    /// The depth-first stack of [`Demand::decide`]: (step, readers looked at, need so far).
    stack: Vec<(usize, usize, Need)>,
}

/// The buffers of a demand ([`Demand`]'s per-step tables and stack).
type DemandBuffers = (Vec<u8>, Vec<u32>, Vec<(usize, usize, Need)>);

thread_local! {
    /// The buffers of the last finished demand on this thread, which the
    /// next one reuses: a walk is made per read (per row), so it allocates
    /// nothing once warm. A walk inside a walk finds none and allocates.
    static SPARE: Cell<Option<DemandBuffers>> = const { Cell::new(None) };
}

impl Drop for Demand<'_> {
    fn drop(&mut self) {
        let buffers =
            (std::mem::take(&mut self.definite), std::mem::take(&mut self.maybe_for), std::mem::take(&mut self.stack));
        SPARE.with(|spare| spare.set(Some(buffers)));
    }
}

impl<'p> Demand<'p> {
    /// The demand of a walk over `walk` (ascending steps) for `roots`.
    pub fn new(program: &'p Program, branches: &'p Branches, walk: &'p [u32], roots: Roots) -> Demand<'p> {
        let n = program.steps.len();
        let (mut definite, mut maybe_for, stack) = SPARE.with(Cell::take).unwrap_or_default();
        definite.clear();
        definite.resize(n, 0);
        maybe_for.clear();
        maybe_for.resize(n, 0);
        Demand { program, branches, walk, roots, definite, maybe_for, stack }
    }

    /// Stale step `s`, the walk's next, has to run: a root needs it (see the
    /// module). `current(p)` says step `p` holds its current value;
    /// `condition(slot)` reads a condition slot (`None` for a `None` value).
    pub fn needed(
        &mut self,
        s: usize,
        current: impl Fn(usize) -> bool,
        condition: impl Fn(u32) -> Option<bool>,
    ) -> bool {
        let program = self.program;
        // A condition is known when its step ran before `s` (or it is an input).
        let known = |slot: u32| -> Option<Option<bool>> {
            match program.step_of_slot(slot) {
                Some(p) if p >= s || !current(p) => None,
                _ => Some(condition(slot)),
            }
        };
        self.decide(s, &known) != Need::No
    }

    fn is_root(&self, s: usize) -> bool {
        match self.roots {
            Roots::Output(o) => self.program.outputs[o].step == Some(s as u32),
            Roots::Every => self.branches.every_root[s],
            Roots::ScopeInit => self.branches.init_root[s],
        }
    }

    fn lookup(&self, s: usize, deciding: usize) -> Option<Need> {
        match self.definite[s] {
            1 => Some(Need::No),
            2 => Some(Need::Yes),
            _ if self.maybe_for[s] == deciding as u32 + 1 => Some(Need::Maybe),
            _ => None,
        }
    }

    fn keep(&mut self, s: usize, deciding: usize, need: Need) {
        match need {
            Need::No => self.definite[s] = 1,
            Need::Yes => self.definite[s] = 2,
            Need::Maybe => self.maybe_for[s] = deciding as u32 + 1,
        }
    }

    /// What reader `r`'s need `need` makes of a step it reads on `side`.
    fn through(&self, r: usize, side: Side, need: Need, known: &dyn Fn(u32) -> Option<Option<bool>>) -> Need {
        if side == Side::Always || need == Need::No {
            return need;
        }
        let Some(branch) = Branch::of(&self.program.steps[r]) else { return need };
        match known(branch.cond) {
            None => Need::Maybe,
            Some(None) => Need::No,
            Some(Some(_)) if side == Side::Either => need,
            Some(Some(taken)) if taken == (side == Side::Then) => need,
            Some(Some(_)) => Need::No,
        }
    }

    /// The need of step `s`, deciding step `s` (depth first over the
    /// readers, with a stack of its own: chains of steps can be long).
    fn decide(&mut self, s: usize, known: &dyn Fn(u32) -> Option<Option<bool>>) -> Need {
        let deciding = s;
        if let Some(need) = self.lookup(s, deciding) {
            return need;
        }
        let start = |d: &Self, x: usize| if d.is_root(x) { Need::Yes } else { Need::No };
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        stack.push((s, 0, start(self, s)));
        loop {
            let Some(&(x, i, need)) = stack.last() else { unreachable!("the stack holds the step decided") };
            let readers = &self.branches.readers[x];
            if need == Need::Yes || i == readers.len() {
                stack.pop();
                self.keep(x, deciding, need);
                let Some(parent) = stack.last_mut() else {
                    self.stack = stack;
                    return need;
                };
                let (r, side) = self.branches.readers[parent.0][parent.1 - 1];
                let got = self.through(r as usize, side, need, known);
                parent.2 = parent.2.max(got);
                continue;
            }
            stack.last_mut().expect("the top is x").1 += 1;
            let (r, side) = readers[i];
            if self.walk.binary_search(&r).is_err() {
                continue;
            }
            match self.lookup(r as usize, deciding) {
                Some(found) => {
                    let got = self.through(r as usize, side, found, known);
                    let top = stack.last_mut().expect("the top is x");
                    top.2 = top.2.max(got);
                }
                None => stack.push((r as usize, 0, start(self, r as usize))),
            }
        }
    }
}
