//! Segmentation, a pass over the emitted program: which per-cycle steps the
//! mixed engine runs as native code ([`eligibility`], the one rule), and its
//! native segments of the program's sweep, recorded in the program as its
//! [`Segmentation`] (which the mixed engine runs by and `explain` shows).
//!
//! Nothing here makes a segment run for a value that does not need it: a
//! read walks its own cone step by step, and only a pass that may run
//! everything (a sweep, whose failure sends the read back to that walk)
//! runs segments whole. So no step has to be kept out of a segment because
//! it may fail.

use super::graph::Graph;
use super::pass::{Pass, PassContext};
use crate::error::CompileError;
use crate::node::Purity;
use crate::program::lifecycle::Lifecycle;
use crate::program::segmentation::{group, SweepPart};
use crate::program::segmentation::{Interpreted, Segmentation};
use crate::program::{Program, Step};

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

/// The mixed engine's native segments of `program`'s sweep, and the reason
/// each other step is not native.
pub fn segment(program: &Program) -> Segmentation {
    let interpreted: Vec<Option<Interpreted>> = program.steps.iter().map(eligibility).collect();
    let mut segmentation = Segmentation { segments: Vec::new(), interpreted, sweeps: sweeps(program) };
    if segmentation.sweeps {
        segmentation.segments = group(program, &program.cycle_steps, |s| segmentation.role(program, s))
            .into_iter()
            .filter_map(|part| match part {
                SweepPart::NativeSegment(members) => Some(members.into_vec()),
                _ => None,
            })
            .collect();
    }
    segmentation
}

/// The `segment` pass: [`segment`] of the program, recorded in it.
pub struct Segment;

impl Pass for Segment {
    fn name(&self) -> &'static str {
        "segment"
    }

    fn run(&self, _graph: &mut Graph, cx: &mut PassContext<'_>) -> Result<Option<String>, CompileError> {
        let program = cx.program();
        program.segmentation = segment(program);
        Ok(None)
    }
}
