//! A compiled plan: the program's [`Shape`] (shared by every executor) and
//! how its steps execute. The [`Executor`] is the engine-specific part — P2
//! runs steps as closures, P3 as native code — and it provides the fast
//! forms a kernel may use: the *sweep* (every per-cycle step in one pass),
//! a cone's sweep, and `generate`'s block program. A sweep is a list of
//! [`Part`]s: native segments (scalar steps) in the executor's form, and
//! by-bytes steps, which the shared layer runs (so P2 and P3 run string steps the
//! same way, over the same scratch).

use super::shape::Shape;
use crate::columns::RowsOut;
use crate::engine::kernel::RowFill;
use crate::node::by_bytes::BytesEval;
use crate::node::kit::{BlockStep, BLOCK};
use crate::node::{NodeError, NodeEval};
use crate::program::segmentation::{group, Role, SweepPart};
use crate::program::Program;
use std::any::Any;
use std::collections::HashMap;
use std::ops::Deref;
use std::sync::{Arc, Mutex, OnceLock};

/// How one step runs.
pub enum Exec<S> {
    /// The executor's scalar form over buffer words (see [`Shape::steps`]'s
    /// `scalar`).
    Scalar(S),
    /// The generic slot kit: decode inputs to `Value`s, call the P1 form,
    /// encode — or, for a by-bytes step with no `None` input, the node's
    /// by-bytes form over the scratch ([`super::slots::Slots::run_bytes`]).
    Kit {
        /// The node whose P1 form runs.
        node: Arc<dyn NodeEval>,
        /// `0..inputs`, the argument index the P1 form reads through.
        iota: Box<[u32]>,
        /// The step is a by-bytes step ([`super::shape::StepFacts::bytes`]).
        bytes: bool,
    },
}

impl<S> Exec<S> {
    /// The node's by-bytes form, for a by-bytes step.
    #[inline]
    pub fn bytes_form(&self) -> Option<&dyn BytesEval> {
        match self {
            Exec::Kit { node, bytes: true, .. } => node.bytes_form(),
            _ => None,
        }
    }

    /// The table of a by-bytes step that picks a string by index
    /// ([`NodeEval::indexed_table`]).
    #[inline]
    pub fn indexed_table(&self) -> Option<&Arc<crate::node::by_bytes::StrTable>> {
        match self {
            Exec::Kit { node, bytes: true, .. } => node.indexed_table(),
            _ => None,
        }
    }
}

/// One part of a compiled sweep (a [`SweepPart`] compiled).
pub enum Part<R> {
    /// A native segment ([`SweepPart::NativeSegment`]), in the executor's
    /// compiled form.
    Segment(R),
    /// By-bytes step `step` (the shared layer runs it).
    Bytes(u32),
    /// Step `step`, run by its node's rule through the slot kit (the shared
    /// layer runs it; a sweep holding one stops when it yields `None`).
    Rule(u32),
}

/// A compiled sweep: its parts in order.
pub type Sweep<R> = Box<[Part<R>]>;

/// Compiles the parts of a sweep over `steps` (an evaluation order), grouped
/// by [`group`] with each step's `role`, each native segment by `compile`.
pub fn compile_sweep<R>(
    shape: &Shape,
    steps: &[u32],
    role: impl Fn(u32) -> Role,
    mut compile: impl FnMut(&[u32]) -> R,
) -> Sweep<R> {
    group(&shape.program, steps, role)
        .into_iter()
        .map(|part| match part {
            SweepPart::NativeSegment(steps) => Part::Segment(compile(&steps)),
            SweepPart::Bytes(step) => Part::Bytes(step),
            SweepPart::Rule(step) => Part::Rule(step),
        })
        .collect()
}

/// A sweep over some of the per-cycle steps (see [`Executor::columns_sweep`]),
/// with whatever its parts point into kept alive beside them.
pub struct PartialSweep<R> {
    /// The sweep's parts, in order.
    pub parts: Sweep<R>,
    /// What the parts point into (P3: the native code), kept with them.
    _keep: Option<Box<dyn Any + Send + Sync>>,
}

impl<R> PartialSweep<R> {
    /// A sweep of `parts`, keeping `keep` alive as long as they are.
    pub fn new(parts: Sweep<R>, keep: Option<Box<dyn Any + Send + Sync>>) -> Self {
        PartialSweep { parts, _keep: keep }
    }
}

/// How many sets of columns one plan keeps a sweep for (memory stays
/// bounded however many different `outputs=` a program is generated with;
/// past it, `generate` runs the whole sweep).
pub const COLUMN_SWEEPS: usize = 64;

/// Forms built at the first call that asks for them, by key, and shared by
/// every kernel of a plan (on every thread); `None` records a key with none.
/// At most `cap` keys are kept: past them a new key gets `None`, unbuilt, so
/// memory stays bounded however many keys a program is asked for.
pub struct BuiltForms<K, V> {
    built: Mutex<HashMap<K, Option<Arc<V>>>>,
    cap: usize,
}

impl<K: std::hash::Hash + Eq, V> BuiltForms<K, V> {
    /// No form built yet; at most `cap` keys kept.
    pub fn new(cap: usize) -> Self {
        BuiltForms { built: Mutex::default(), cap }
    }

    /// The form of `key`: the one built before, or `build`'s (kept).
    pub fn get(&self, key: K, build: impl FnOnce() -> Option<V>) -> Option<Arc<V>> {
        let mut built = self.built.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(found) = built.get(&key) {
            return found.clone();
        }
        if built.len() >= self.cap {
            return None;
        }
        let form = build().map(Arc::new);
        built.insert(key, form.clone());
        form
    }
}

/// The sweeps `generate` built for sets of columns, by the columns' outputs
/// (at most [`COLUMN_SWEEPS`] sets). `None` records a set with none of its
/// own (its columns need every per-cycle step, or the build failed): the
/// whole sweep serves it.
pub struct ColumnSweeps<R>(BuiltForms<Box<[usize]>, PartialSweep<R>>);

/// A partial sweep shared by the kernels of a plan.
pub type SharedSweep<R> = Arc<PartialSweep<R>>;

impl<R> Default for ColumnSweeps<R> {
    fn default() -> Self {
        ColumnSweeps(BuiltForms::new(COLUMN_SWEEPS))
    }
}

impl<R> ColumnSweeps<R> {
    /// The sweep of the per-cycle steps outputs `outs` need
    /// ([`Shape::cones_steps`]): the one built before, or `build`'s over
    /// those steps; `None` when they are every per-cycle step.
    pub fn get(
        &self,
        shape: &Shape,
        outs: &[usize],
        build: impl FnOnce(&[u32]) -> Option<PartialSweep<R>>,
    ) -> Option<SharedSweep<R>> {
        self.0.get(outs.into(), || {
            let steps = shape.cones_steps(outs);
            (steps.len() < shape.program.cycle_steps.len()).then(|| build(&steps)).flatten()
        })
    }
}

/// What a row read is built for ([`Executor::row_read`]): how many leading
/// inputs it writes, and the outputs it reads, in order.
pub type RowReadKey = (usize, Box<[usize]>);

/// The engine-specific part of a compiled plan: how scalar steps run, and
/// the fast forms built on them. Every kernel of a plan shares it (and so
/// every thread); it holds no per-kernel state.
pub trait Executor: Send + Sync + Sized + 'static {
    /// How one scalar step runs.
    type Step: Send + Sync;
    /// How one native segment of a sweep runs, compiled ([`Part::Segment`]):
    /// its scalar steps in the executor's form.
    type Segment: Send + Sync;
    /// A compiled row read ([`Executor::row_read`]).
    type RowRead: Send + Sync;
    /// The executor builds row reads (Raw kernels look for one).
    const READS_ROWS: bool = false;
    /// Builds the executor of `shape` and the scalar form of every step the
    /// shape marks scalar (`None` for the others, which run through the kit).
    fn build(shape: &Shape) -> (Self, Vec<Option<Self::Step>>);
    /// Runs scalar step `step` over the buffer. A failure is the node's own
    /// message; the kernel attributes it.
    fn run(step: &Self::Step, buf: &mut [u64]) -> Result<(), NodeError>;
    /// Runs the steps of `segment` once each, in order, with no per-step
    /// bookkeeping; true when every step succeeded. A failure is contained
    /// (a panic may escape: the kernel runs sweeps inside a panic guard).
    fn run_segment(segment: &Self::Segment, buf: &mut Vec<u64>) -> bool;
    /// A panic can escape [`Executor::run_segment`] of `segment` (so the
    /// kernel runs it inside a panic guard). True unless the executor knows better.
    #[inline(always)]
    fn may_panic(_segment: &Self::Segment) -> bool {
        true
    }
    /// The sweep: every per-cycle step once, in an order that respects
    /// their dependencies ([`Part`]s); `None` when the shape is not sweepable.
    fn sweep(&self) -> Option<&[Part<Self::Segment>]>;
    /// The executor can sweep (the shape is sweepable and a sweep was built).
    fn sweeps(&self) -> bool {
        self.sweep().is_some()
    }
    /// The sweep of output `out`'s per-cycle cone (its steps once each, with
    /// no bookkeeping), when the executor has one for it.
    fn cone_sweep(&self, shape: &Shape, out: usize) -> Option<&[Part<Self::Segment>]>;
    /// `generate`'s sweep of the per-cycle steps outputs `outs` need, when
    /// the executor sweeps and that is not all of them (built at the first
    /// call for `outs` and kept, [`ColumnSweeps`]).
    fn columns_sweep(&self, shape: &Shape, outs: &[usize]) -> Option<SharedSweep<Self::Segment>>;
    /// `generate`'s row loop for `rows` of outputs `outs` (over their
    /// coordinate input, `step` apart) on the kernel buffer `buf`, when the
    /// executor has one for them (built at the first call and kept; a loop
    /// may be specialised for a step of 1, or for the words `buf` holds in
    /// the slots it reads before its loop, and then refuses others). Every
    /// output must be a scalar slot.
    fn row_loop(&self, _shape: &Shape, _rows: &RowFill<'_>, _outs: &[usize], _buf: &[u64]) -> Option<Arc<dyn RowLoop>> {
        None
    }
    /// Raw's read of the scalar outputs `outs` as one call that writes the
    /// first `inputs` inputs (plain coordinates, see
    /// `Shape::plain_leading_coordinates`; 0 for a read alone), computes
    /// only the outputs' per-cycle cones, with every value in registers, and
    /// hands back their words without storing any slot; when the executor
    /// has one for them (built at the first call and kept).
    fn row_read(&self, _shape: &Shape, _inputs: usize, _outs: &[usize]) -> Option<Arc<Self::RowRead>> {
        None
    }
    /// Runs `read` over `buf`, a kernel buffer of the plan whose scope-init
    /// path has run and which holds no `None`: stores `values` to its
    /// inputs' words and the raw word of its `k`-th output to `words[k]`,
    /// and leaves the rest of the buffer as it was. False when `values` is
    /// not as many words as its inputs or `words` has too few, and nothing
    /// ran; or when a step failed, after the inputs were stored (the caller
    /// then reads the usual way, which fails exactly as P1 does).
    fn read_row(_read: &Self::RowRead, _buf: &mut [u64], _values: &[u64], _words: &mut [u64]) -> bool {
        false
    }
    /// `read` may fail ([`Executor::read_row`] then runs it inside a guard).
    fn row_read_may_fail(_read: &Self::RowRead) -> bool {
        true
    }
}

/// A compiled row loop: the per-cycle steps a set of scalar columns needs,
/// with the loop over rows in the same code (see [`Executor::row_loop`]).
pub trait RowLoop: Send + Sync {
    /// Computes `count` rows (row `i` at coordinate `first + i * step`,
    /// wrapping) over `buf`, a kernel buffer of the plan whose scope-init
    /// path has run and whose inputs hold the values every row shares, and
    /// stores output `k` of row `i` as row `i` of `columns[k]` (of the width
    /// of the output's type). The buffer itself is left as it was. `Err(i)`
    /// when row `i` failed: the rows before it are written, the others not.
    /// A column with fewer than `count` rows, or of another width, or a
    /// step the loop was not built for, is refused before anything runs
    /// (`Err(0)`).
    fn fill(&self, buf: &mut [u64], first: u64, step: u64, count: u64, columns: &[RowsOut<'_>]) -> Result<(), u64>;
}

/// Everything the kernels of one program share on one executor.
pub struct Plan<X: Executor> {
    /// The executor-neutral part.
    pub shape: Shape,
    /// Per program step: how it runs.
    pub exec: Box<[Exec<X::Step>]>,
    /// The executor.
    pub executor: X,
    /// The program over blocks of rows, built at the first `generate` that
    /// asks (see [`Plan::block`]).
    block: OnceLock<Option<BlockPlan>>,
}

impl<X: Executor> Deref for Plan<X> {
    type Target = Shape;
    fn deref(&self) -> &Shape {
        &self.shape
    }
}

impl<X: Executor> Plan<X> {
    /// Compiles `program` for executor `X`.
    pub fn new(program: Arc<Program>) -> Plan<X> {
        let shape = Shape::new(program);
        let (executor, scalar) = X::build(&shape);
        let exec = scalar
            .into_iter()
            .zip(shape.program.steps.iter())
            .zip(shape.steps.iter())
            .map(|((form, step), facts)| match form {
                Some(f) => Exec::Scalar(f),
                None => Exec::Kit {
                    node: step.eval.clone(),
                    iota: (0..step.ins.len() as u32).collect(),
                    bytes: facts.bytes,
                },
            })
            .collect();
        Plan { shape, exec, executor, block: OnceLock::new() }
    }

    /// The program over blocks of rows, for `generate`: when the plan sweeps
    /// and every per-cycle step has a block form. Built at the first call.
    pub fn block(&self) -> Option<&BlockPlan> {
        let build = || match self.executor.sweeps() {
            true => BlockPlan::new(&self.shape),
            false => None,
        };
        self.block.get_or_init(build).as_ref()
    }
}

/// The per-cycle program over blocks of rows (`generate`'s fast path): a
/// slot-major block buffer holds `rows` consecutive words per buffer word,
/// and each step is its node's rule over a block of rows ([`NodeEval::block_step`]).
pub struct BlockPlan {
    /// Rows per block: [`BLOCK`], or fewer for programs with many slots, so a
    /// block buffer stays within [`BLOCK_BUFFER_WORDS`].
    pub rows: usize,
    /// Every per-cycle step's block closure, in evaluation order.
    pub steps: Box<[BlockStep]>,
    /// Buffer words no per-cycle step writes (inputs, values fixed at scope
    /// init): their rows are the kernel's current value, broadcast.
    pub fixed_words: Box<[u32]>,
}

/// The most words a block buffer holds (8 MiB).
pub const BLOCK_BUFFER_WORDS: usize = 1 << 20;

impl BlockPlan {
    /// The block program of `shape`, when every per-cycle step has a block form.
    fn new(shape: &Shape) -> Option<BlockPlan> {
        let (layout, program) = (&shape.layout, &shape.program);
        let rows = (BLOCK_BUFFER_WORDS / layout.words.max(1)).clamp(1, BLOCK);
        let mut written = vec![false; layout.words];
        let mut steps = Vec::with_capacity(program.cycle_steps.len());
        for &s in program.cycle_steps.iter() {
            let step = &program.steps[s as usize];
            let ins: Vec<usize> = step.ins.iter().map(|&i| layout.off[i as usize] as usize * rows).collect();
            let out = layout.off[step.out_start as usize] as usize;
            steps.push(step.eval.clone().block_step(&ins, out * rows, step.out_count())?);
            written[out..out + step.out_count()].iter_mut().for_each(|w| *w = true);
        }
        let fixed_words = (0..layout.words as u32).filter(|&w| !written[w as usize]).collect();
        Some(BlockPlan { rows, steps: steps.into(), fixed_words })
    }
}
