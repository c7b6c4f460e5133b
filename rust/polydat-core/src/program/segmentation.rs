//! Segmentation: which per-cycle steps of a program the mixed engine runs
//! as native code ([`Segmentation`], recorded in the program by the compile
//! pass `compile::segment`), and how any list of steps is grouped into the
//! parts of one sweep ([`group`]), which every compiled engine uses.
//!
//! A sweep over steps (every per-cycle step, an output's cone, the steps a
//! set of columns needs) runs each once with no per-step bookkeeping, as a
//! list of [`SweepPart`]s in an order that respects every dependency:
//! *native segments* (native steps compiled as one piece, values in
//! registers from step to step) and single steps that run otherwise
//! (by-bytes text, or a node's own rule). Steps are pure in such a pass, so
//! any topological order computes the same values; [`group`] picks one with
//! long native segments. Which steps are native is each engine's [`Role`]
//! for them: P3 makes every scalar step native; the mixed engine the steps
//! the segmentation admits ([`Segmentation::role`]).

use super::Program;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// Why a step of a program is not a member of a native segment of the mixed
/// engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Interpreted {
    /// It runs once (a constant or a scope-init step).
    NotDynamic,
    /// It is nondeterministic, volatile, or a side channel.
    NotPure,
    /// It reads or writes a by-reference value, or accepts `None`.
    NotScalar,
    /// Its node has no native form.
    NoNativeForm,
}

impl Interpreted {
    /// The reason, in words.
    pub fn reason(self) -> &'static str {
        match self {
            Interpreted::NotDynamic => "runs once (constant or scope-init)",
            Interpreted::NotPure => "nondeterministic, volatile or a side channel",
            Interpreted::NotScalar => "by-reference values or a None-accepting node",
            Interpreted::NoNativeForm => "its node has no native form",
        }
    }
}

/// How one step takes part in a pass ([`group`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Native code, in a native segment with the native steps around it.
    Native,
    /// Its node's by-bytes form, writing its text or bytes in place.
    Bytes,
    /// Its node's own rule over values (the interpreter's way).
    Rule,
}

/// One part of a sweep (a pass over steps that runs each once, with no
/// per-step bookkeeping), as [`group`] orders them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SweepPart {
    /// A native segment: native steps, in an order that respects their
    /// dependencies, compiled as one piece with values in registers from
    /// step to step.
    NativeSegment(Box<[u32]>),
    /// One by-bytes step.
    Bytes(u32),
    /// One step run by its node's rule.
    Rule(u32),
}

/// Groups `steps` (an evaluation order of steps of `program`) into the parts of a sweep,
/// each step taking the role `role` gives it, in an order that respects
/// every dependency among them. Every native step that is ready joins the
/// current native segment before any other ready step runs, and every other
/// ready step runs (chains of them included) before the next segment starts,
/// so native steps that do not read each other through another step share
/// one segment.
/// Linear in the steps and the wires they read (up to a log factor).
pub fn group(program: &Program, steps: &[u32], role: impl Fn(u32) -> Role) -> Vec<SweepPart> {
    let position: HashMap<u32, usize> = steps.iter().enumerate().map(|(at, &s)| (s, at)).collect();
    let roles: Vec<Role> = steps.iter().map(|&s| role(s)).collect();
    // Per position: how many of its producers among `steps` are still to
    // run, and the positions reading it.
    let mut waiting = vec![0usize; steps.len()];
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); steps.len()];
    for (at, &s) in steps.iter().enumerate() {
        let mut producers: Vec<usize> = program.steps[s as usize]
            .ins
            .iter()
            .filter_map(|&slot| program.step_of_slot(slot))
            .filter_map(|p| position.get(&(p as u32)).copied())
            .collect();
        producers.sort_unstable();
        producers.dedup();
        waiting[at] = producers.len();
        producers.into_iter().for_each(|p| readers[p].push(at));
    }
    // The ready positions of each kind, lowest first (the given order
    // breaks ties, so the grouping is deterministic).
    let mut ready_native = BinaryHeap::new();
    let mut ready_other = BinaryHeap::new();
    let make_ready =
        |at: usize, native: &mut BinaryHeap<Reverse<usize>>, other: &mut BinaryHeap<Reverse<usize>>| match roles[at] {
            Role::Native => native.push(Reverse(at)),
            _ => other.push(Reverse(at)),
        };
    for at in (0..steps.len()).filter(|&at| waiting[at] == 0) {
        make_ready(at, &mut ready_native, &mut ready_other);
    }
    let mut runs = Vec::new();
    let mut run = Vec::new();
    let done = |at: usize,
                waiting: &mut [usize],
                native: &mut BinaryHeap<Reverse<usize>>,
                other: &mut BinaryHeap<Reverse<usize>>| {
        for &r in &readers[at] {
            waiting[r] -= 1;
            if waiting[r] == 0 {
                make_ready(r, native, other);
            }
        }
    };
    while !ready_native.is_empty() || !ready_other.is_empty() {
        while let Some(Reverse(at)) = ready_native.pop() {
            run.push(steps[at]);
            done(at, &mut waiting, &mut ready_native, &mut ready_other);
        }
        if !run.is_empty() {
            runs.push(SweepPart::NativeSegment(std::mem::take(&mut run).into()));
        }
        while let Some(Reverse(at)) = ready_other.pop() {
            runs.push(match roles[at] {
                Role::Bytes => SweepPart::Bytes(steps[at]),
                _ => SweepPart::Rule(steps[at]),
            });
            done(at, &mut waiting, &mut ready_native, &mut ready_other);
        }
    }
    debug_assert_eq!(
        runs.iter().map(|r| if let SweepPart::NativeSegment(s) = r { s.len() } else { 1 }).sum::<usize>(),
        steps.len(),
        "every step is grouped once (the steps are a topological order)"
    );
    runs
}

/// The mixed engine's segmentation of a whole program: its native segments,
/// and why every other step is not native (what `explain` shows).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Segmentation {
    /// The native segments of a sweep of the per-cycle steps, each as its
    /// member steps in evaluation order (empty when the program has no
    /// sweep: see [`Segmentation::sweeps`]).
    pub segments: Vec<Vec<u32>>,
    /// Per step of the program: `None` when native code runs it.
    pub interpreted: Vec<Option<Interpreted>>,
    /// Every per-cycle step is pure and non-volatile, so a read may run
    /// them all in one sweep, segments whole.
    pub sweeps: bool,
}

impl Segmentation {
    /// The role step `s` of `program` takes on the mixed engine: native when
    /// the segmentation admits it, else its by-bytes form when it has one,
    /// else its node's rule.
    pub fn role(&self, program: &Program, s: u32) -> Role {
        match self.interpreted[s as usize] {
            None => Role::Native,
            Some(_) if program.steps[s as usize].is_by_bytes() => Role::Bytes,
            Some(_) => Role::Rule,
        }
    }
}
