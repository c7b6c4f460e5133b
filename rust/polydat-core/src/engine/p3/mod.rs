//! P3: native code from Cranelift, on the shared compiled-kernel layer
//! ([`crate::engine::compiled`]): [`Native`] is its executor, over the same
//! buffer and slot layout as P2.
//!
//! * [`codegen`]: steps to Cranelift functions; nodes lower inline through
//!   their [`crate::node::lower`] form, or call their slot form.
//! * [`helpers`]: what native code calls (a node's slot form), guarded.
//! * [`catch`]: the longjmp catch that brings a helper's failure back.
//! * [`row_loop`]: `generate`'s row loops, general and specialised on the
//!   words fixed for a call.
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
pub mod row_loop;

use crate::engine::compiled::closure::scalar_closure;
use crate::engine::compiled::kernel::CompiledKernel;
use crate::engine::compiled::layout::NO_ENTRY;
use crate::engine::compiled::modes;
use crate::engine::compiled::plan::{
    compile_sweep, BuiltForms, ColumnSweeps, Executor, Part, PartialSweep, Plan, RowLoop, RowReadKey, SharedSweep,
    Sweep,
};
use crate::engine::compiled::shape::Shape;
use crate::engine::kernel::{Kernel, RowFill};
use crate::node::kit::SlotStep;
use crate::node::NodeError;
use crate::node::Purity;
use crate::program::segmentation::Role;
use crate::program::Program;
pub use crate::provenance::Provenance;
use codegen::{Code, Emitted, Module, NativeFn, RowReadFn, MAX_FUNCTION_STEPS, MAX_ROW_COLUMNS};
use cranelift_module::FuncId;
use row_loop::RowLoops;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// How one scalar step runs on P3.
pub enum NativeStep {
    /// Its own native function (inline, calls no helper: cannot fail).
    Native(NativeFn),
    /// Its slot form as a closure (a node without an inline form, or with a
    /// failure path): what native code would call, without the catch.
    Closure(SlotStep),
}

/// One native segment of a P3 sweep, compiled: its steps as one native function, and
/// whether it calls a helper (then it runs inside the catch).
pub type CompiledSegment = (NativeFn, bool);

/// Which steps a native executor compiles, and when it builds a sweep of
/// the per-cycle steps: P3 compiles every scalar step ([`EveryScalarStep`]),
/// the mixed engine only the members of native segments ([`Segments`]).
pub trait Policy: Send + Sync + 'static {
    /// The role step `s` of `shape` takes in a pass over steps: a step whose
    /// role is [`Role::Native`] also runs natively on its own.
    fn role(shape: &Shape, s: u32) -> Role;
    /// The executor builds a sweep of `shape`'s per-cycle steps.
    fn sweeps(shape: &Shape) -> bool;
    /// Native code is built for the reads of one value: a function per
    /// native step that calls no helper (a walk calls it), and one per
    /// selective output cone at its first stale read. Without it, native
    /// code is built only for whole passes (the sweep, `generate`'s rows),
    /// and a read of a selective cone walks it, each native step as its
    /// slot form's closure (which costs nothing to build).
    const READ_FUNCTIONS: bool;
}

/// P3's policy: every scalar step is native (a node with no inline form is
/// a call of its slot form), and a shape sweeps when every per-cycle step is
/// a scalar or by-bytes one.
pub struct EveryScalarStep;

impl Policy for EveryScalarStep {
    const READ_FUNCTIONS: bool = true;
    #[inline]
    fn role(shape: &Shape, s: u32) -> Role {
        shape.compiled_role(s)
    }
    fn sweeps(shape: &Shape) -> bool {
        shape.sweepable
    }
}

/// The mixed engine's policy ([`Program::segmentation`]): the steps the
/// segmentation admits are native; every other one runs by its node's rule,
/// as the interpreter runs it (strings in place); a shape sweeps when every
/// per-cycle step is pure and non-volatile.
pub struct Segments;

impl Policy for Segments {
    /// Native code per segment of the whole passes only, so building the
    /// engine costs one function per segment, as for the interpreter.
    const READ_FUNCTIONS: bool = false;
    #[inline]
    fn role(shape: &Shape, s: u32) -> Role {
        shape.program.segmentation.role(&shape.program, s)
    }
    fn sweeps(shape: &Shape) -> bool {
        shape.program.segmentation.sweeps
    }
}

/// The native executor: the program's native code, the steps compiled as
/// policy `P` says (P3: [`EveryScalarStep`]).
pub struct Native<P: Policy = EveryScalarStep> {
    /// When the shape is sweepable: the per-cycle program, each native
    /// segment as one native function (by-bytes steps between them).
    sweep: Option<Sweep<CompiledSegment>>,
    /// Steps that run as their own native function.
    native_steps: usize,
    /// Per output: its per-cycle cone as one native function, built at the
    /// first read that asks (see [`Native::cone_function`]).
    cones: Box<[OnceLock<Option<PartialSweep<CompiledSegment>>>]>,
    /// How many more steps cone functions may hold (memory stays linear in
    /// the program however many outputs are read).
    cone_room: AtomicUsize,
    /// `generate`'s row loops, by coordinate input and outputs, built at the
    /// first `generate` that asks (`None`: these columns have none).
    row_loops: RowLoops,
    /// `generate`'s sweeps for sets of columns.
    column_sweeps: ColumnSweeps<CompiledSegment>,
    /// Raw's row reads, by inputs written and outputs, built at the first read that asks
    /// (`None`: these outputs have none).
    row_reads: BuiltForms<RowReadKey, NativeRowRead>,
    /// The code every function pointer here points into (kept alive with them).
    _code: Code,
    _policy: PhantomData<P>,
}

/// The compiled parts of a sweep, their native segments' ids turned into
/// functions of `code` (every run compiled: a failure was returned before).
fn native_parts(parts: Sweep<Option<(FuncId, Emitted)>>, code: &Code) -> Sweep<CompiledSegment> {
    let parts = parts.into_vec().into_iter().map(|part| match part {
        Part::Segment(Some((id, emitted))) => Part::Segment((code.function(id), emitted.fallible)),
        Part::Bytes(s) => Part::Bytes(s),
        Part::Rule(s) => Part::Rule(s),
        Part::Segment(None) => unreachable!("a native segment failed to compile"),
    });
    parts.collect()
}

/// Steps the cone functions of a plan may hold together: this many per
/// per-cycle step, plus [`CONE_ROOM_BASE`].
pub const CONE_ROOM_PER_STEP: usize = 4;
/// See [`CONE_ROOM_PER_STEP`].
pub const CONE_ROOM_BASE: usize = 4096;

impl<P: Policy> Native<P> {
    /// The sweep of output `out`'s per-cycle cone as native code — so a
    /// stale read of a selective cone runs its scalar steps in one call per
    /// run (the Pull kernel's way) — or `None`: the plan does not sweep, the
    /// cone is broad (the sweep serves it), or the cone sweeps already hold
    /// their share of memory. Built at the first call for `out`.
    fn cone_function(&self, shape: &Shape, out: usize) -> Option<&[Part<CompiledSegment>]> {
        if !P::READ_FUNCTIONS || self.sweep.is_none() || shape.broad_cone(out) {
            return None;
        }
        let build = || {
            let steps = shape.cone(out);
            let room =
                self.cone_room.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |r| r.checked_sub(steps.len()));
            room.ok()?;
            native_sweep::<P>(shape, steps)
        };
        self.cones[out].get_or_init(build).as_ref().map(|c| &c.parts[..])
    }
}

/// Steps `steps` of a sweepable shape as a sweep, each native segment one
/// native function of a new module (kept with the parts); `None` when code
/// generation fails (the caller goes without the sweep).
fn native_sweep<P: Policy>(shape: &Shape, steps: &[u32]) -> Option<PartialSweep<CompiledSegment>> {
    let mut module = Module::new().ok()?;
    let mut failed = false;
    let parts = compile_sweep(
        shape,
        steps,
        |s| P::role(shape, s),
        |segment| match module.steps_function(&shape.program, &shape.layout, segment) {
            Ok(built) => Some(built),
            Err(_) => {
                failed = true;
                None
            }
        },
    );
    if failed {
        return None;
    }
    let code = module.finish().ok()?;
    Some(PartialSweep::new(native_parts(parts, &code), Some(Box::new(code))))
}

/// The per-cycle steps outputs `outs` need, in order, when every one is a
/// pure, non-volatile scalar step (code for them runs with no bookkeeping:
/// a row loop, a row read).
fn bare_steps(shape: &Shape, outs: &[usize]) -> Option<Vec<u32>> {
    let program = &shape.program;
    let steps = shape.cones_steps(outs);
    let runs_bare = |s: u32| {
        let step = &program.steps[s as usize];
        shape.steps[s as usize].scalar && step.def.purity == Purity::Pure && !step.volatile
    };
    steps.iter().all(|&s| runs_bare(s)).then_some(steps)
}

/// A row loop or a row read over `steps` for `outs` keeps every value in
/// registers in one function, so it is built only up to
/// [`MAX_FUNCTION_STEPS`] steps and [`MAX_ROW_COLUMNS`] outputs (larger
/// programs read rows through the sweep, whose functions are pieces).
fn fits_one_function(steps: &[u32], outs: &[usize]) -> bool {
    steps.len() <= MAX_FUNCTION_STEPS && outs.len() <= MAX_ROW_COLUMNS
}

/// Row reads a plan keeps at most (one per set of outputs read together).
const ROW_READS: usize = 64;

/// A native row read ([`Module::row_read`]) and the code it lives in.
pub struct NativeRowRead {
    f: RowReadFn,
    /// It calls a helper: it runs inside the catch.
    fallible: bool,
    /// How many leading inputs it writes.
    inputs: usize,
    /// How many words it stores.
    outputs: usize,
    _code: Code,
}

/// The row read of the scalar outputs `outs` that writes the first `inputs`
/// inputs: when those are plain coordinates, every per-cycle step the
/// outputs need is a pure, non-volatile scalar step, and the read fits one
/// function ([`fits_one_function`]).
fn build_row_read(shape: &Shape, inputs: usize, outs: &[usize]) -> Result<Option<NativeRowRead>, String> {
    let program = &shape.program;
    let fits = inputs <= shape.plain_leading_coordinates && outs.iter().all(|&o| shape.out_word[o] != NO_ENTRY);
    let (true, Some(steps)) = (fits, bare_steps(shape, outs).filter(|s| fits_one_function(s, outs))) else {
        return Ok(None);
    };
    let slots: Vec<u32> = outs.iter().map(|&o| program.outputs[o].slot).collect();
    let written: Vec<u32> = (0..inputs as u32).collect();
    let mut module = Module::new()?;
    let (id, emitted) = module.row_read(program, &shape.layout, &written, &steps, &slots)?;
    let code = module.finish()?;
    let f = code.row_read(id);
    Ok(Some(NativeRowRead { f, fallible: emitted.fallible, inputs, outputs: outs.len(), _code: code }))
}

impl<P: Policy> Native<P> {
    /// Steps that run as their own native function, the per-cycle steps
    /// the sweep computes (0 without a sweep), and how many native
    /// functions it runs them in.
    pub fn counts(&self, shape: &Shape) -> (usize, usize, usize) {
        let swept = if self.sweep.is_some() { shape.program.cycle_steps.len() } else { 0 };
        let functions = self.sweep.iter().flatten().filter(|p| matches!(p, Part::Segment(_))).count();
        (self.native_steps, swept, functions)
    }
}

/// Builds the module of `shape`'s program: one function per inline step,
/// and the sweep when the shape is sweepable.
fn build_native<P: Policy>(shape: &Shape) -> Result<(Native<P>, Vec<Option<NativeStep>>), String> {
    let (program, layout) = (&shape.program, &shape.layout);
    let native: Vec<bool> = (0..program.steps.len() as u32).map(|s| P::role(shape, s) == Role::Native).collect();
    let mut module = Module::new()?;
    let mut ids = Vec::with_capacity(program.steps.len());
    for (s, step) in program.steps.iter().enumerate() {
        let id = match P::READ_FUNCTIONS && native[s] && step.def.lower.is_some() {
            true => {
                let (id, emitted) = module.steps_function(program, layout, &[s as u32])?;
                (!emitted.fallible).then_some(id)
            }
            false => None,
        };
        ids.push(id);
    }
    let sweep = match P::sweeps(shape) && !program.cycle_steps.is_empty() {
        true => {
            let mut failed = None;
            let role = |s: u32| P::role(shape, s);
            let sweep = compile_sweep(shape, &program.cycle_steps, role, |segment| {
                match module.steps_function(program, layout, segment) {
                    Ok(built) => Some(built),
                    Err(e) => {
                        failed = Some(e);
                        None
                    }
                }
            });
            if let Some(e) = failed {
                return Err(e);
            }
            Some(sweep)
        }
        false => None,
    };
    let code = module.finish()?;
    let mut native_steps = 0;
    let steps = program
        .steps
        .iter()
        .zip(native.iter())
        .zip(ids)
        .map(|((step, &native), id)| {
            native.then(|| match id {
                Some(id) => {
                    native_steps += 1;
                    NativeStep::Native(code.function(id))
                }
                None => NativeStep::Closure(scalar_closure(layout, step)),
            })
        })
        .collect();
    let sweep = sweep.map(|parts| native_parts(parts, &code));
    let native = Native {
        sweep,
        native_steps,
        cones: program.outputs.iter().map(|_| OnceLock::new()).collect(),
        cone_room: AtomicUsize::new(CONE_ROOM_BASE + CONE_ROOM_PER_STEP * program.cycle_steps.len()),
        row_loops: RowLoops::default(),
        column_sweeps: ColumnSweeps::default(),
        row_reads: BuiltForms::new(ROW_READS),
        _code: code,
        _policy: PhantomData,
    };
    Ok((native, steps))
}

impl<P: Policy> Executor for Native<P> {
    type Step = NativeStep;
    type Segment = CompiledSegment;
    type RowRead = NativeRowRead;
    const READS_ROWS: bool = true;

    fn build(shape: &Shape) -> (Self, Vec<Option<NativeStep>>) {
        match build_native::<P>(shape) {
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

    #[inline]
    fn run_segment(&(f, fallible): &CompiledSegment, buf: &mut Vec<u64>) -> bool {
        let ptr = buf.as_mut_ptr();
        // SAFETY: the run was generated for this plan's layout and touches
        // only words of a buffer of that layout; `ptr` is such a buffer (a
        // kernel state's), borrowed mutably for the call.
        let run = || unsafe { f(ptr) };
        match fallible {
            false => {
                run();
                true
            }
            true => catch::catch(run).is_ok(),
        }
    }

    /// Native code that calls no helper is plain arithmetic on the buffer;
    /// code that does runs its helpers inside the catch, which turns a
    /// helper's panic into a failure: nothing unwinds out of either.
    #[inline(always)]
    fn may_panic(&(_, fallible): &CompiledSegment) -> bool {
        fallible
    }

    #[inline(always)]
    fn sweep(&self) -> Option<&[Part<CompiledSegment>]> {
        self.sweep.as_deref()
    }

    #[inline]
    fn cone_sweep(&self, shape: &Shape, out: usize) -> Option<&[Part<CompiledSegment>]> {
        self.cone_function(shape, out)
    }

    fn columns_sweep(&self, shape: &Shape, outs: &[usize]) -> Option<SharedSweep<CompiledSegment>> {
        self.sweep.as_ref()?;
        self.column_sweeps.get(shape, outs, |steps| native_sweep::<P>(shape, steps))
    }

    fn row_loop(&self, shape: &Shape, rows: &RowFill<'_>, outs: &[usize], buf: &[u64]) -> Option<Arc<dyn RowLoop>> {
        self.row_loops.get(shape, rows, outs, buf).map(|l| l as Arc<dyn RowLoop>)
    }

    fn row_read(&self, shape: &Shape, inputs: usize, outs: &[usize]) -> Option<Arc<NativeRowRead>> {
        self.row_reads.get((inputs, outs.into()), || {
            // As for the program's own code: a failure here is a bug.
            build_row_read(shape, inputs, outs)
                .unwrap_or_else(|e| panic!("internal: native code generation failed: {e}"))
        })
    }

    #[inline(always)]
    fn row_read_may_fail(read: &NativeRowRead) -> bool {
        read.fallible
    }

    #[inline(always)]
    fn read_row(read: &NativeRowRead, buf: &mut [u64], values: &[u64], words: &mut [u64]) -> bool {
        if values.len() != read.inputs || words.len() < read.outputs {
            return false;
        }
        let (buf, values, out) = (buf.as_mut_ptr(), values.as_ptr(), words.as_mut_ptr());
        // SAFETY: the read was generated for this plan's layout and touches
        // only words of a buffer of that layout (`buf` is a kernel state's
        // buffer of this plan); it loads `read.inputs` words from `values`
        // and stores `read.outputs` words from `out`, and both have as many
        // (checked above).
        let run = || unsafe { (read.f)(buf, values, out) };
        match read.fallible {
            false => {
                run();
                true
            }
            true => caught(run),
        }
    }
}

/// Runs `run` (native code) inside the catch; true when it returned (out of
/// line, so a caller whose code needs no catch stays small).
#[inline(never)]
fn caught(run: impl FnMut()) -> bool {
    catch::catch(run).is_ok()
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
    plan_of::<EveryScalarStep>(program)
}

/// The native plan of `program` under policy `P`, built once and shared by
/// every kernel of the program (on every thread).
pub fn plan_of<P: Policy>(program: &Arc<Program>) -> Arc<Plan<Native<P>>> {
    program.cache().get_or_init(|| Plan::<Native<P>>::new(program.clone()))
}

/// A new P3 kernel of mode `mode` over `program`.
pub fn new_kernel(program: &Arc<Program>, mode: Provenance) -> Box<dyn Kernel> {
    crate::engine::compiled::new_kernel(plan(program), mode)
}

/// How P3 in mode `mode` runs `program`, in one sentence (for `explain`).
pub fn describe(program: &Arc<Program>, mode: Provenance) -> String {
    let plan = plan(program);
    let (native, swept, functions) = plan.executor.counts(&plan.shape);
    let steps = plan.shape.program.steps.len();
    let sweep = match (swept, mode) {
        (0, _) => "reads walk their cones".to_string(),
        (n, Provenance::Raw | Provenance::Pull)
            if functions == 1
                && n == plan.shape.program.cycle_steps.len()
                && plan.shape.steps.iter().all(|s| !s.bytes) =>
        {
            format!("a stale read runs the {n} per-cycle steps as one native function")
        }
        (n, Provenance::Raw | Provenance::Pull) => {
            let bytes =
                n - plan.shape.program.cycle_steps.iter().filter(|&&s| plan.shape.steps[s as usize].scalar).count();
            format!("a stale read runs the {n} per-cycle steps as {functions} native function(s) and {bytes} by-bytes step(s)")
        }
        (_, _) => "reads walk their cones, skipping clean steps".to_string(),
    };
    format!("{native} of {steps} step(s) native on their own, the rest as closures or the slot kit; {sweep}")
}
