//! Segmentation: which per-cycle steps of a program run as native code, and
//! how a list of steps is grouped into *runs* for one pass over them.
//!
//! A pass over steps (a sweep of every per-cycle step, an output's cone, the
//! steps a set of columns needs) is a list of [`Run`]s in an order that
//! respects every dependency: runs of native steps, each compiled as one
//! piece with values in registers from step to step (a *native segment*),
//! and single steps that run otherwise (by-bytes text, or a node's own
//! rule). Steps are pure in such a pass, so any topological order computes
//! the same values; [`group`] picks one with long native runs.
//!
//! Which steps may be native is the engine's choice, made by [`Native`]
//! policy: P3 compiles every scalar step (calling a node's slot form where it
//! has no inline lowering); the mixed engine compiles the steps
//! [`eligibility`] admits and runs every other one by its node's own rule,
//! as the interpreter does. [`segment`] records the mixed engine's choice
//! for a whole program, with the reason for every step left out, which
//! `explain` shows.
//!
//! Nothing here makes a segment run for a value that does not need it: a
//! read walks its own cone step by step, and only a pass that may run
//! everything (a sweep, whose failure sends the read back to that walk)
//! runs segments whole. So no step has to be kept out of a segment because
//! it may fail.

use crate::node::Purity;
use crate::program::lifecycle::Lifecycle;
use crate::program::{Program, Step};
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

/// Why `step` cannot be a member of a native segment, if it cannot: the one
/// rule of which steps the mixed engine compiles.
pub fn eligibility(step: &Step) -> Option<Interpreted> {
    if step.lifecycle != Lifecycle::Dynamic || step.capture {
        Some(Interpreted::NotDynamic)
    } else if step.def.purity != Purity::Pure || step.volatile {
        Some(Interpreted::NotPure)
    } else if !step.is_scalar() {
        Some(Interpreted::NotScalar)
    } else if step.def.lower.is_none() {
        Some(Interpreted::NoNativeForm)
    } else {
        None
    }
}

/// How one step takes part in a pass ([`group`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Native code, in a run with the native steps around it.
    Native,
    /// Its node's by-bytes form, writing its text or bytes in place.
    Bytes,
    /// Its node's own rule over values (the interpreter's way).
    Rule,
}

/// One part of a pass over steps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Run {
    /// Native steps, in an order that respects their dependencies: one
    /// segment, compiled as one piece.
    Native(Box<[u32]>),
    /// One by-bytes step.
    Bytes(u32),
    /// One step run by its node's rule.
    Rule(u32),
}

/// Groups `steps` (an evaluation order of steps of `program`) into runs,
/// each step taking the role `role` gives it, in an order that respects
/// every dependency among them. Every native step that is ready joins the
/// current run before any other ready step runs, and every other ready step
/// runs (chains of them included) before the next run starts, so native
/// steps that do not read each other through another step share one run.
/// Linear in the steps and the wires they read (up to a log factor).
pub fn group(program: &Program, steps: &[u32], role: impl Fn(u32) -> Role) -> Vec<Run> {
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
            runs.push(Run::Native(std::mem::take(&mut run).into()));
        }
        while let Some(Reverse(at)) = ready_other.pop() {
            runs.push(match roles[at] {
                Role::Bytes => Run::Bytes(steps[at]),
                _ => Run::Rule(steps[at]),
            });
            done(at, &mut waiting, &mut ready_native, &mut ready_other);
        }
    }
    debug_assert_eq!(
        runs.iter().map(|r| if let Run::Native(s) = r { s.len() } else { 1 }).sum::<usize>(),
        steps.len(),
        "every step is grouped once (the steps are a topological order)"
    );
    runs
}

/// The mixed engine's segments of a whole program, and why every other step
/// is not native.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Segmentation {
    /// The native segments of a sweep of the per-cycle steps, each as its
    /// member steps in evaluation order (empty when the program has no
    /// sweep: see [`Segmentation::sweeps`]).
    pub segments: Vec<Vec<u32>>,
    /// Per step of the program: `None` when native code runs it.
    pub interpreted: Vec<Option<Interpreted>>,
    /// Every per-cycle step is pure and non-volatile, so a read may run
    /// them all in one pass, segments whole ([`sweeps`]).
    pub sweeps: bool,
}

/// The per-cycle steps of `program` may run in one pass with no per-step
/// bookkeeping (a sweep): every one is pure and not volatile, so running a
/// step no read needs is unobservable — but for a failure, after which the
/// read walks its own cone instead.
pub fn sweeps(program: &Program) -> bool {
    program.cycle_steps.iter().all(|&s| {
        let step = &program.steps[s as usize];
        step.def.purity == Purity::Pure && !step.volatile
    })
}

/// The role of step `s` of `program` on the mixed engine.
pub fn mixed_role(program: &Program, s: u32) -> Role {
    let step = &program.steps[s as usize];
    match eligibility(step) {
        None => Role::Native,
        Some(_) if step.is_by_bytes() => Role::Bytes,
        Some(_) => Role::Rule,
    }
}

/// The segmentation pass: the mixed engine's native segments of
/// `program`'s sweep, and the reason each other step is not native.
pub fn segment(program: &Program) -> Segmentation {
    let interpreted: Vec<Option<Interpreted>> = program.steps.iter().map(eligibility).collect();
    let sweeps = sweeps(program);
    let segments = match sweeps {
        true => group(program, &program.cycle_steps, |s| mixed_role(program, s))
            .into_iter()
            .filter_map(|run| match run {
                Run::Native(members) => Some(members.into_vec()),
                _ => None,
            })
            .collect(),
        false => Vec::new(),
    };
    Segmentation { segments, interpreted, sweeps }
}
