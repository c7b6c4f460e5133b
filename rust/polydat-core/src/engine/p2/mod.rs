//! P2: the program compiled to step closures over one flat `u64` buffer.
//!
//! * [`plan`]: the slot layout (scalar `Imm1` words, `Ref2` `(ptr, len)`
//!   pairs), one closure per scalar step, the generic slot kit for every
//!   other node, the sweep's threads of tail-calling closures, and the
//!   invalidation data — shared by every kernel of a program.
//! * [`schedule`]: the order of a thread's steps, for register handoff.
//! * [`refslot`]: the scratch behind Ref slots (the only `unsafe` code).
//! * [`slots`]: a state's buffer, `None` mask and scratch; running one step.
//! * [`modes`]: the four currency strategies, Raw / Push / Pull / PushPull.
//! * [`kernel`]: [`P2Kernel<M>`], generic over the mode, so each mode is its
//!   own monomorphic kernel type with no strategy test in its loop.
//!
//! P2 is held to P1 bit for bit: the same values (f64 by bits, strings by
//! content), the same `None` propagation, the same failure messages.

pub mod kernel;
pub mod modes;
pub mod plan;
pub mod refslot;
pub mod schedule;
pub mod slots;

pub use kernel::{P2Kernel, SlotReadError};
pub use modes::{Mode, Provenance};

use crate::engine::Kernel;
use crate::program::Program;
use plan::Plan;
use std::sync::Arc;

/// The Raw kernel type: no provenance.
pub type RawKernel = P2Kernel<modes::Raw>;
/// The Push kernel type: push-side invalidation.
pub type PushKernel = P2Kernel<modes::Push>;
/// The Pull kernel type: pull-side cone guard.
pub type PullKernel = P2Kernel<modes::Pull>;
/// The PushPull kernel type: both.
pub type PushPullKernel = P2Kernel<modes::PushPull>;

/// How P2 in mode `mode` runs `program`, in one sentence (for `explain`):
/// closure and slot-kit steps, and whether a stale read sweeps.
pub fn describe(program: &Program, mode: Provenance) -> String {
    let (closures, kits, sweeps) = plan::shape(program);
    let reads = match (sweeps, mode) {
        (false, _) => "reads walk their cones (a step is not a pure closure)",
        (true, Provenance::Raw) => "a stale read sweeps the whole per-cycle program in one pass",
        (true, Provenance::Pull) => {
            "a stale read of a broad cone sweeps the whole per-cycle program; selective cones are walked"
        }
        (true, _) => "reads walk their cones, skipping clean steps",
    };
    format!("{closures} closure step(s), {kits} slot-kit step(s); {reads}")
}

/// A new P2 kernel of mode `mode` over `program`.
pub fn new_kernel(program: &Arc<Program>, mode: Provenance) -> Box<dyn Kernel> {
    with_plan(Arc::new(Plan::new(program.clone())), mode)
}

/// A new P2 kernel of mode `mode` over a prebuilt plan.
pub fn with_plan(plan: Arc<Plan>, mode: Provenance) -> Box<dyn Kernel> {
    match mode {
        Provenance::Raw => Box::new(RawKernel::with_plan(plan)),
        Provenance::Push => Box::new(PushKernel::with_plan(plan)),
        Provenance::Pull => Box::new(PullKernel::with_plan(plan)),
        Provenance::PushPull => Box::new(PushPullKernel::with_plan(plan)),
    }
}
