//! P3: native code from Cranelift, on the shared compiled-kernel layer
//! ([`crate::engine::compiled`]): [`Native`] is its executor, over the same
//! buffer and slot layout as P2.
//!
//! * [`codegen`]: steps to Cranelift functions; nodes lower inline through
//!   their [`crate::node::lower`] form, or call their slot form.
//! * [`helpers`]: what native code calls (a node's slot form), guarded.
//! * [`catch`]: the longjmp catch that brings a helper's failure back.
//!
//! A sweep (every per-cycle step in one pass: Raw, and Pull on broad cones)
//! is one native function with values in registers from step to step. A
//! walk over a cone (Push, PushPull, selective Pull cones) runs each step's
//! own native function — or, for a node with no inline form or with a
//! failure path, its P2 closure, the same slot form native code would call —
//! so a walk never needs the catch. Code that calls no helper runs bare;
//! code that does runs inside the catch, and a failure there sends the read
//! back to the walk, which fails exactly as P1 does.

pub mod catch;
pub mod codegen;
pub mod helpers;

use crate::engine::compiled::kernel::CompiledKernel;
use crate::engine::compiled::modes;
use crate::engine::compiled::plan::{Executor, Plan};
use crate::engine::compiled::shape::Shape;
use crate::engine::p2::closures::scalar_closure;
use crate::engine::Kernel;
use crate::node::kit::SlotStep;
use crate::node::NodeError;
use crate::program::Program;
pub use crate::provenance::Provenance;
use codegen::{Code, Module, NativeFn};
use std::sync::Arc;

/// How one scalar step runs on P3.
pub enum NativeStep {
    /// Its own native function (inline, calls no helper: cannot fail).
    Native(NativeFn),
    /// Its slot form as a closure (a node without an inline form, or with a
    /// failure path): what native code would call, without the catch.
    Closure(SlotStep),
}

/// The P3 executor: the program's native code.
pub struct Native {
    /// When the shape is sweepable: the per-cycle program as one function,
    /// and whether it calls a helper (then it runs inside the catch).
    sweep: Option<(NativeFn, bool)>,
    /// Steps that run as their own native function.
    native_steps: usize,
    /// The code every function pointer here points into (kept alive with them).
    _code: Code,
}

impl Native {
    /// Steps that run as their own native function, and the per-cycle steps
    /// the sweep function computes (0 without a sweep).
    pub fn counts(&self, shape: &Shape) -> (usize, usize) {
        let swept = if self.sweep.is_some() { shape.program.cycle_steps.len() } else { 0 };
        (self.native_steps, swept)
    }
}

/// Builds the module of `shape`'s program: one function per inline step,
/// and the sweep when the shape is sweepable.
fn compile(shape: &Shape) -> Result<(Native, Vec<Option<NativeStep>>), String> {
    let (program, layout) = (&shape.program, &shape.layout);
    let mut module = Module::new()?;
    let mut ids = Vec::with_capacity(program.steps.len());
    for (s, (step, facts)) in program.steps.iter().zip(shape.steps.iter()).enumerate() {
        let id = match facts.scalar && step.def.lower.is_some() {
            true => {
                let (id, emitted) = module.steps_function(program, layout, &[s as u32])?;
                (!emitted.fallible).then_some(id)
            }
            false => None,
        };
        ids.push(id);
    }
    let sweep = match shape.sweepable && !program.cycle_steps.is_empty() {
        true => Some(module.steps_function(program, layout, &program.cycle_steps)?),
        false => None,
    };
    let code = module.finish()?;
    let mut native_steps = 0;
    let steps = program
        .steps
        .iter()
        .zip(shape.steps.iter())
        .zip(ids)
        .map(|((step, facts), id)| {
            facts.scalar.then(|| match id {
                Some(id) => {
                    native_steps += 1;
                    NativeStep::Native(code.function(id))
                }
                None => NativeStep::Closure(scalar_closure(layout, step)),
            })
        })
        .collect();
    let sweep = sweep.map(|(id, emitted)| (code.function(id), emitted.fallible));
    Ok((Native { sweep, native_steps, _code: code }, steps))
}

impl Executor for Native {
    type Step = NativeStep;

    fn build(shape: &Shape) -> (Self, Vec<Option<NativeStep>>) {
        match compile(shape) {
            Ok(built) => built,
            // Cranelift supports every machine this project builds for; a
            // failure here is a bug, reported as such (the binding turns the
            // panic into an InternalError).
            Err(e) => panic!("internal: native code generation failed: {e}"),
        }
    }

    #[inline(always)]
    fn run(step: &NativeStep, buf: &mut [u64]) -> Result<(), NodeError> {
        match step {
            // SAFETY: the function was generated for this plan's layout and
            // touches only its own words of a buffer of that layout (`buf` is
            // a kernel state's buffer of this plan); it calls no helper.
            NativeStep::Native(f) => unsafe { f(buf.as_mut_ptr()) },
            NativeStep::Closure(c) => return c(buf),
        }
        Ok(())
    }

    #[inline(always)]
    fn sweeps(&self) -> bool {
        self.sweep.is_some()
    }

    #[inline]
    fn sweep(&self, buf: &mut Vec<u64>) -> bool {
        let Some((f, fallible)) = self.sweep else { return false };
        let ptr = buf.as_mut_ptr();
        // SAFETY: the sweep was generated for this plan's layout and touches
        // only words of a buffer of that layout; `ptr` is such a buffer,
        // borrowed mutably for the call.
        let run = || unsafe { f(ptr) };
        match fallible {
            false => {
                run();
                true
            }
            true => catch::catch(run).is_ok(),
        }
    }

    #[inline]
    fn cone_sweep(&self, _shape: &Shape, _out: usize, _buf: &mut Vec<u64>) -> bool {
        false
    }
}

/// The P3 kernel of mode `M`.
pub type P3Kernel<M> = CompiledKernel<M, Native>;
/// The Raw kernel type.
pub type RawKernel = P3Kernel<modes::Raw>;
/// The Push kernel type.
pub type PushKernel = P3Kernel<modes::Push>;
/// The Pull kernel type.
pub type PullKernel = P3Kernel<modes::Pull>;
/// The PushPull kernel type.
pub type PushPullKernel = P3Kernel<modes::PushPull>;

/// The native plan of `program`, built once and shared by every kernel of
/// the program (on every thread).
pub fn plan(program: &Arc<Program>) -> Arc<Plan<Native>> {
    program.cache().get_or_init(|| Plan::<Native>::new(program.clone()))
}

/// A new P3 kernel of mode `mode` over `program`.
pub fn new_kernel(program: &Arc<Program>, mode: Provenance) -> Box<dyn Kernel> {
    crate::engine::compiled::new_kernel(plan(program), mode)
}

/// How P3 in mode `mode` runs `program`, in one sentence (for `explain`).
pub fn describe(program: &Arc<Program>, mode: Provenance) -> String {
    let plan = plan(program);
    let (native, swept) = plan.executor.counts(&plan.shape);
    let steps = plan.shape.program.steps.len();
    let sweep = match (swept, mode) {
        (0, _) => "reads walk their cones".to_string(),
        (n, Provenance::Raw | Provenance::Pull) => {
            format!("a stale read runs the {n} per-cycle steps as one native function")
        }
        (_, _) => "reads walk their cones, skipping clean steps".to_string(),
    };
    format!("{native} of {steps} step(s) native on their own, the rest as closures or the slot kit; {sweep}")
}
