//! The compiled-kernel layer P2 and P3 share: one flat `u64` buffer per
//! kernel state, Ref-slot scratch, the four provenance modes, and the kernel
//! that runs a program over them — written once, generic over an
//! [`plan::Executor`] that says how a step runs (P2: closures; P3: native code).
//!
//! * [`layout`]: the slot model (`Imm1` words, `Ref2` `(ptr, len)` pairs).
//! * [`scratch`]: the bytes behind Ref slots (the only `unsafe` code here).
//! * [`shape`]: what every kernel of a program shares whatever the executor:
//!   the layout, per-step facts and the invalidation tables.
//! * [`plan`]: a shape plus its executor's step forms; the [`plan::Executor`]
//!   trait; `generate`'s block program.
//! * [`slots`]: a state's buffer, `None` mask and scratch; running one step.
//! * [`modes`]: the four currency strategies, Raw / Push / Pull / PushPull.
//! * [`kernel`]: [`kernel::CompiledKernel`], generic over mode and executor,
//!   so each pair is its own monomorphic type with no strategy test in its loop.

pub mod closure;
pub mod kernel;
pub mod layout;
pub mod modes;
pub mod plan;
pub mod scratch;
pub mod shape;
pub mod slots;

use crate::engine::kernel::Kernel;
use crate::provenance::Provenance;
use kernel::CompiledKernel;
use plan::{Executor, Plan};
use std::sync::Arc;

/// A new kernel of mode `mode` over a built plan (kernels of one program share it).
pub fn new_kernel<X: Executor>(plan: Arc<Plan<X>>, mode: Provenance) -> Box<dyn Kernel> {
    match mode {
        Provenance::Raw => Box::new(CompiledKernel::<modes::Raw, X>::with_plan(plan)),
        Provenance::Push => Box::new(CompiledKernel::<modes::Push, X>::with_plan(plan)),
        Provenance::Pull => Box::new(CompiledKernel::<modes::Pull, X>::with_plan(plan)),
        Provenance::PushPull => Box::new(CompiledKernel::<modes::PushPull, X>::with_plan(plan)),
    }
}
