//! Engines: one module per engine, each a kernel type over the shared
//! [`Program`]. A kernel is one mutable state used by one thread at a time;
//! [`Kernel`] is the engine-neutral surface the host drives, and
//! [`Kernel::rows`] its one entry for loops of rows ([`rows`]). Generation,
//! which runs kernels over rows on workers, lives in [`crate::generation`],
//! scope chains in [`crate::scope`].

pub mod compiled;
pub mod failure;
pub mod kernel;
pub mod lazy;
pub mod mixed;
pub mod p1;
pub mod p2;
pub mod p3;
pub mod rows;
pub mod scope_init;

pub use crate::provenance::Provenance;
pub use kernel::{
    adapt_boundary, raw_read_refused, set_coordinates, set_named, write_inputs, GenerateError, Kernel, KernelMaker,
    RowFill, RowFiller, RowRuns, Stop, STOP_CHECK_ROWS,
};
pub use rows::{fill_each_row_run, fill_row_by_row, ValueRows};

use crate::program::explain::EnginePlan;
pub use crate::program::ColumnSource;
use crate::program::Program;
use std::sync::Arc;

pub use crate::program::selection::{EngineKind, ENGINE_NAMES, ENGINE_REQUESTS, PROVENANCE_REQUESTS};

/// How `kind` runs `program`, for `explain`.
pub fn describe(program: &Arc<Program>, kind: EngineKind) -> EnginePlan {
    let plan = |plan: String| EnginePlan { running: kind.name().to_string(), plan, ..EnginePlan::default() };
    match kind {
        EngineKind::P1 => plan(String::new()),
        EngineKind::P2(mode) => plan(p2::describe(program, mode)),
        EngineKind::P3(mode) => plan(p3::describe(program, mode)),
        EngineKind::Mixed => mixed::describe(program),
    }
}

/// A new kernel of `kind` over `program`.
pub fn new_kernel(program: &Arc<Program>, kind: EngineKind) -> Box<dyn Kernel> {
    match kind {
        EngineKind::P1 => Box::new(p1::P1Kernel::new(program.clone())),
        EngineKind::P2(mode) => p2::new_kernel(program, mode),
        EngineKind::P3(mode) => p3::new_kernel(program, mode),
        EngineKind::Mixed => mixed::new_kernel(program),
    }
}
