//! The mixed engine, what `engine="auto"` runs when some step needs its
//! values boxed: the compiled-kernel layer in Pull mode, whose native
//! executor compiles only the steps the program's segmentation admits
//! ([`Program::segmentation`]) and runs every other step by its node's own
//! rule, as the interpreter does (strings in place).
//!
//! A read walks its own cone step by step — each native step as its own
//! function, every other step by its rule — so no step runs that the pulled
//! value does not need, and the `None` rule and failure attribution are the
//! shared layer's. A stale read of a broad cone (and `eval`) runs the
//! per-cycle program in one pass instead, each native segment as one
//! function with values in registers and the other steps between them; if
//! anything in that pass fails or yields `None`, the read walks its cone,
//! which fails or not exactly as P1 does. `generate` takes the layer's row
//! paths: P3's native row loop when every step its columns need is scalar,
//! else the pass per row.

use super::compiled::kernel::CompiledKernel;
use super::compiled::modes::Pull;
use super::kernel::Kernel;
use super::p3::{plan_of, Native, Segments};
use crate::program::explain::EnginePlan;
use crate::program::segmentation::Segmentation;
use crate::program::selection::EngineKind;
use crate::program::Program;
use std::sync::Arc;

/// The mixed kernel type.
pub type MixedKernel = CompiledKernel<Pull, Native<Segments>>;

/// A new mixed kernel over `program`.
pub fn new_kernel(program: &Arc<Program>) -> Box<dyn Kernel> {
    Box::new(MixedKernel::with_plan(plan_of::<Segments>(program)))
}

/// The native segments the mixed engine runs `program` with: each as its
/// member steps, from the program's segmentation. A program whose per-cycle
/// steps do not all sweep (a volatile or side-channel step) has no pass that
/// runs several steps at once, so each native step is a segment of its own.
pub fn segments(program: &Program) -> Segmentation {
    let mut seg = program.segmentation.clone();
    if !seg.sweeps {
        seg.segments =
            program.cycle_steps.iter().filter(|&&s| seg.interpreted[s as usize].is_none()).map(|&s| vec![s]).collect();
    }
    seg
}

/// How the mixed engine runs `program`, for `explain`: one sentence, the
/// segments, and why each other step is not native.
pub fn describe(program: &Arc<Program>) -> EnginePlan {
    let seg = segments(program);
    let native: usize = seg.segments.iter().map(Vec::len).sum();
    let mut reasons: Vec<(&'static str, usize)> = Vec::new();
    for why in seg.interpreted.iter().flatten() {
        match reasons.iter_mut().find(|(r, _)| *r == why.reason()) {
            Some((_, count)) => *count += 1,
            None => reasons.push((why.reason(), 1)),
        }
    }
    let counts: Vec<String> = reasons.iter().map(|(r, c)| format!("{c} {r}")).collect();
    let reads = match seg.sweeps {
        true => "a stale read of a broad cone runs the per-cycle steps in one pass, segments whole; other reads walk their cones",
        false => "reads walk their cones, each native step on its own (a step is volatile or a side channel)",
    };
    let rows = "`generate` runs the native row loop when every step its columns need is scalar, else one pass per row";
    let plan = format!(
        "{} native segment(s) of {native} step(s); {} step(s) by their node's rule{}; {reads}; {rows}",
        seg.segments.len(),
        program.steps.len() - native,
        if counts.is_empty() { String::new() } else { format!(" ({})", counts.join("; ")) }
    );
    let interpreted =
        seg.interpreted.iter().enumerate().filter_map(|(s, why)| why.map(|w| (s as u32, w.reason()))).collect();
    EnginePlan { running: EngineKind::Mixed.name().to_string(), plan, native_segments: seg.segments, interpreted }
}
