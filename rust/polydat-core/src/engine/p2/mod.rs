//! P2: the program's steps as closures over one flat `u64` buffer, on the
//! shared compiled-kernel layer ([`crate::engine::compiled`]): [`Closures`]
//! is its executor.
//!
//! * [`closures`]: one closure per scalar step, the node's rule inlined;
//!   every other node runs through the layer's slot kit.
//! * [`threads`]: the sweep — the per-cycle program, or one cone, as threads
//!   of tail-calling closures that hand values on in registers.
//! * [`schedule`]: the order of a thread's steps, for that handoff.
//!
//! P2 is held to P1 bit for bit: the same values (f64 by bits, strings by
//! content), the same `None` propagation, the same failure messages.

pub mod schedule;
pub mod threads;

use crate::engine::compiled::kernel::CompiledKernel;
pub use crate::engine::compiled::kernel::SlotReadError;
pub use crate::engine::compiled::modes;
use crate::engine::compiled::plan::{
    compile_sweep, ColumnSweeps, Executor, Part, PartialSweep, Plan, SharedSweep, Sweep,
};
use crate::engine::compiled::shape::Shape;
use crate::engine::kernel::Kernel;
use crate::node::kit::SlotStep;
use crate::node::NodeError;
use crate::program::Program;
pub use crate::provenance::Provenance;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use threads::{run_threads, Thread};

/// One native segment of a P2 sweep, compiled: its steps as threads.
pub type Threads = Box<[Thread]>;

/// The P2 executor: closures for the scalar steps, the sweep and the cone
/// threads built from them.
pub struct Closures {
    /// When the shape is sweepable: its per-cycle steps, native segments as threads.
    sweep: Option<Sweep<Threads>>,
    /// Per output: the steps of its per-cycle cone, native segments as threads,
    /// built at the first read that asks (see [`Closures::cone_thread`]);
    /// empty when it has none.
    cone_threads: Box<[OnceLock<Sweep<Threads>>]>,
    /// How many more closures cone threads may hold (memory stays linear in
    /// the program however many outputs are read).
    cone_room: AtomicUsize,
    /// `generate`'s sweeps for sets of columns.
    column_sweeps: ColumnSweeps<Threads>,
}

/// Closures the cone threads of a plan may hold together: this many per
/// per-cycle step, plus [`CONE_ROOM_BASE`].
pub const CONE_ROOM_PER_STEP: usize = 4;
/// See [`CONE_ROOM_PER_STEP`].
pub const CONE_ROOM_BASE: usize = 4096;

impl Closures {
    /// The cone thread of output `out` — the steps of its per-cycle cone as
    /// threads, so a stale read of a selective cone runs without per-step
    /// bookkeeping (the Pull kernel's way) — or `None`: the plan does not
    /// sweep, the cone is broad (a sweep serves it), or the cone threads
    /// already hold their share of memory. Built at the first call for `out`.
    pub fn cone_thread(&self, shape: &Shape, out: usize) -> Option<&[Part<Threads>]> {
        if self.sweep.is_none() || shape.broad_cone(out) {
            return None;
        }
        let cell = &self.cone_threads[out];
        let threads = match cell.get() {
            Some(threads) => threads,
            None => {
                let need = shape.cone(out).len();
                let room = self.cone_room.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |r| r.checked_sub(need));
                cell.get_or_init(|| match room {
                    Ok(_) => sweep_of(shape, shape.cone(out)),
                    Err(_) => Box::default(),
                })
            }
        };
        (!threads.is_empty()).then_some(&threads[..])
    }
}

/// The steps `steps` of a sweepable shape as a P2 sweep: each native segment as threads.
fn sweep_of(shape: &Shape, steps: &[u32]) -> Sweep<Threads> {
    compile_sweep(
        shape,
        steps,
        |s| shape.compiled_role(s),
        |segment| threads::threads(&shape.layout, &shape.program, segment),
    )
}

impl Executor for Closures {
    type Step = SlotStep;
    type Segment = Threads;
    /// Closures have no row read: Raw sweeps.
    type RowRead = ();

    fn build(shape: &Shape) -> (Self, Vec<Option<SlotStep>>) {
        let program = &shape.program;
        let steps = program
            .steps
            .iter()
            .zip(shape.steps.iter())
            .map(|(step, facts)| {
                facts.scalar.then(|| crate::engine::compiled::closure::scalar_closure(&shape.layout, step))
            })
            .collect();
        let sweep = shape.sweepable.then(|| sweep_of(shape, &program.cycle_steps));
        let closures = Closures {
            sweep,
            cone_threads: program.outputs.iter().map(|_| OnceLock::new()).collect(),
            cone_room: AtomicUsize::new(CONE_ROOM_BASE + CONE_ROOM_PER_STEP * program.cycle_steps.len()),
            column_sweeps: ColumnSweeps::default(),
        };
        (closures, steps)
    }

    #[inline(always)]
    fn run(step: &SlotStep, buf: &mut [u64]) -> Result<(), NodeError> {
        step(buf)
    }

    #[inline(always)]
    fn run_segment(run: &Threads, buf: &mut Vec<u64>) -> bool {
        run_threads(run, buf)
    }

    #[inline(always)]
    fn sweep(&self) -> Option<&[Part<Threads>]> {
        self.sweep.as_deref()
    }

    #[inline]
    fn cone_sweep(&self, shape: &Shape, out: usize) -> Option<&[Part<Threads>]> {
        self.cone_thread(shape, out)
    }

    fn columns_sweep(&self, shape: &Shape, outs: &[usize]) -> Option<SharedSweep<Threads>> {
        self.sweep.as_ref()?;
        self.column_sweeps.get(shape, outs, |steps| Some(PartialSweep::new(sweep_of(shape, steps), None)))
    }
}

/// The P2 kernel of mode `M`.
pub type P2Kernel<M> = CompiledKernel<M, Closures>;
/// The Raw kernel type: no provenance.
pub type RawKernel = P2Kernel<modes::Raw>;
/// The Push kernel type: push-side invalidation.
pub type PushKernel = P2Kernel<modes::Push>;
/// The Pull kernel type: pull-side cone guard.
pub type PullKernel = P2Kernel<modes::Pull>;
/// The PushPull kernel type: both.
pub type PushPullKernel = P2Kernel<modes::PushPull>;

/// The closure plan of `program`, built once and shared by every kernel of
/// the program (on every thread).
pub fn plan(program: &Arc<Program>) -> Arc<Plan<Closures>> {
    program.cache().get_or_init(|| Plan::<Closures>::new(program.clone()))
}

/// A new P2 kernel of mode `mode` over `program`.
pub fn new_kernel(program: &Arc<Program>, mode: Provenance) -> Box<dyn Kernel> {
    crate::engine::compiled::new_kernel(plan(program), mode)
}

/// How P2 in mode `mode` runs `program`, in one sentence (for `explain`):
/// closure and slot-kit steps, and whether a stale read sweeps.
pub fn describe(program: &Arc<Program>, mode: Provenance) -> String {
    let shape = Shape::new(program.clone());
    let (closures, bytes, kits) = shape.step_counts();
    let reads = match (shape.sweepable, mode) {
        (false, _) => "reads walk their cones (a step is not a pure closure or by-bytes step)",
        (true, Provenance::Raw) if !shape.costly_sweep => "a stale read sweeps the whole per-cycle program in one pass",
        (true, Provenance::Raw) => {
            "a stale read of a broad cone sweeps the whole per-cycle program; selective cones are walked (the sweep runs string steps)"
        }
        (true, Provenance::Pull) => {
            "a stale read of a broad cone sweeps the whole per-cycle program; selective cones are walked"
        }
        (true, _) => "reads walk their cones, skipping clean steps",
    };
    let by_bytes = if bytes > 0 { format!(", {bytes} by-bytes step(s)") } else { String::new() };
    format!("{closures} closure step(s), {kits} slot-kit step(s){by_bytes}; {reads}")
}
