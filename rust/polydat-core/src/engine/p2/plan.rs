//! The P2 plan: what every P2 kernel of one program shares (immutable).
//!
//! * **Slot layout.** One flat `u64` buffer. Each program value slot (inputs
//!   first, then each step's outputs, in the program's order) gets a static
//!   colour: `Imm1`, one word holding a scalar in the SPEC §4 encoding (f64 as
//!   bits, narrow ints extended, bool 0/1), or `Ref2`, two words holding a
//!   `(ptr, len)` pair into the slot's own scratch entry. A step's scalar
//!   outputs are consecutive words, so a step writes them in place.
//! * **Step closures.** Every step whose node has a slot form and whose wires
//!   are all scalars compiles to one closure that gathers its input words into
//!   a small stack array, calls the node's slot form, and writes its output
//!   words directly. Every other node (strings, polymorphic or None-accepting
//!   nodes) runs through the generic *slot kit*: decode the input slots to
//!   `Value`s, call the node's P1 `eval`, encode the outputs back.
//! * **Invalidation data.** Per-output cones (the per-cycle part, as P1 walks
//!   them), the scope-init path, provenance masks, per-input side-channel
//!   dependents, volatility.

use super::schedule::schedule;
use crate::node::kit::{BlockStep, Handed, SlotStep, Src, ThreadStep, BLOCK};
use crate::node::{NodeEval, Purity};
use crate::program::lifecycle::Lifecycle;
use crate::program::Program;
use crate::provenance::ones;
use crate::types::PortType;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// Sentinel: the slot has no scratch entry (it is `Imm1`).
pub const NO_ENTRY: u32 = u32::MAX;

/// The static colour of a value slot (slot-state axiom S1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Color {
    /// One word, a scalar.
    Imm1,
    /// Two words, a `(ptr, len)` pair into the slot's scratch entry.
    Ref2,
}

/// Where every program value slot lives in the P2 buffer.
#[derive(Clone, Debug)]
pub struct Layout {
    /// Per value slot: its port type.
    pub ty: Box<[PortType]>,
    /// Per value slot: its first buffer word.
    pub off: Box<[u32]>,
    /// Per value slot: its scratch entry, or [`NO_ENTRY`].
    pub entry: Box<[u32]>,
    /// Per scratch entry: `(first buffer word, entry)` of its Ref slot.
    pub refs: Box<[(u32, u32)]>,
    /// Buffer length in words.
    pub words: usize,
}

impl Layout {
    /// Lays out every value slot of `program`.
    pub fn new(program: &Program) -> Layout {
        let mut ty: Vec<PortType> = program.inputs.iter().map(|i| i.ty).collect();
        for step in &program.steps {
            debug_assert_eq!(step.out_start as usize, ty.len(), "steps own consecutive value slots");
            ty.extend(step.out_types.iter().copied());
        }
        debug_assert_eq!(ty.len(), program.slot_count);
        let (mut off, mut entry, mut refs) = (Vec::new(), Vec::new(), Vec::new());
        let mut words = 0u32;
        for t in &ty {
            off.push(words);
            if t.is_ref() {
                entry.push(refs.len() as u32);
                refs.push((words, refs.len() as u32));
                words += 2;
            } else {
                entry.push(NO_ENTRY);
                words += 1;
            }
        }
        Layout { ty: ty.into(), off: off.into(), entry: entry.into(), refs: refs.into(), words: words as usize }
    }

    /// The colour of value slot `slot`.
    #[inline]
    pub fn color(&self, slot: usize) -> Color {
        if self.entry[slot] == NO_ENTRY {
            Color::Imm1
        } else {
            Color::Ref2
        }
    }
}

/// A compiled scalar step: reads its input words from the buffer and writes
/// its output words.
pub type SlotFn = SlotStep;

/// How a step runs.
pub enum Exec {
    /// A closure over buffer words (every wire a scalar, node has a slot form).
    Slots(SlotFn),
    /// The generic slot kit: decode inputs to `Value`s, call the P1 form, encode.
    Kit {
        /// The node whose P1 form runs.
        node: Arc<dyn NodeEval>,
        /// `0..inputs`, the argument index the P1 form reads through.
        iota: Box<[u32]>,
    },
}

/// One step of the plan.
pub struct StepPlan {
    /// How the step runs.
    pub exec: Exec,
    /// Value slots read, in wire order.
    pub ins: Box<[u32]>,
    /// First value slot written and the number of outputs.
    pub out_start: u32,
    /// Number of output slots written, consecutive from `out_start`.
    pub out_count: u32,
    /// A `None` input makes every output `None` without running the node.
    pub propagates_none: bool,
    /// Side-channel node: runs once per change of its provenance in every mode.
    pub side: bool,
}

/// Everything the kernels of one program share.
pub struct Plan {
    /// The program this plan was built from.
    pub program: Arc<Program>,
    /// Where every value slot lives in the buffer.
    pub layout: Layout,
    /// Per program step: how it runs, what it reads and writes.
    pub steps: Box<[StepPlan]>,
    /// Steps of the scope-init path that are not `Dynamic`: current for the
    /// kernel's life once it has run.
    pub fixed_steps: Box<[u32]>,
    /// Coordinates are inputs `0..coord_count`.
    pub coord_count: usize,
    /// Per input: its buffer word when it is a `u64` slot (the `write_u64`
    /// fast path), else [`NO_ENTRY`].
    pub u64_input_word: Box<[u32]>,
    /// Some step is volatile (re-armed at every read).
    pub has_volatile: bool,
    /// Some step is a side channel.
    pub has_side: bool,
    /// Per output: its buffer word when it is a scalar (`Imm1`) slot, else
    /// [`NO_ENTRY`] (the raw-read fast path).
    pub out_word: Box<[u32]>,
    /// Per output: its per-cycle cone ([`Plan::cone`]) is not empty (the
    /// output's step is `Dynamic`); an empty one is an input passed through,
    /// or a value fixed at scope init.
    pub has_cone: Box<[bool]>,
    /// Per output: the inputs its value depends on, as masks flattened
    /// into one array: output `o`'s words are
    /// `out_mask[o * mask_words..(o + 1) * mask_words]` (one cache line, no
    /// pointer chase; see [`Plan::out_inputs`]).
    pub out_mask: Box<[u64]>,
    /// Words per provenance mask (64 inputs per word, at least 1).
    pub mask_words: usize,
    /// Per output: never current (volatile cone) — the pull guard never skips it.
    pub out_volatile: Box<[bool]>,
    /// Per input: the *pinned* steps whose provenance holds it — steps that
    /// stay current across rounds until one of their inputs changes:
    /// side-channel steps and the fixed part of the scope-init path.
    pub pinned_deps: Box<[Box<[u32]>]>,
    /// Some input has a pinned dependent (else writes skip `pinned_deps`).
    pub has_pinned: bool,
    /// When every per-cycle step is a pure closure step: those steps, in
    /// evaluation order, as threads of tail-calling closures (see
    /// `threads`), so a read may *sweep* — run the whole per-cycle program
    /// in one pass with no per-step bookkeeping (see `kernel::sweep`). Empty
    /// otherwise.
    pub sweep: Box<[Thread]>,
    /// Per output: whether its cone is broad ([`Plan::broad_cone`]), found at
    /// the first read that asks ([`UNKNOWN`] until then), so building a plan
    /// never walks every output's cone (a chain of n outputs has cones of n²/2
    /// steps in all).
    broad: Box<[AtomicU8]>,
    /// The program over blocks of rows, built at the first `generate` that
    /// asks (see [`Plan::block`]).
    block: OnceLock<Option<BlockPlan>>,
    /// Per output: the steps of its per-cycle cone as threads (like
    /// [`Plan::sweep`]), built at the first read that asks (see
    /// [`Plan::cone_thread`]).
    cone_threads: Box<[OnceLock<Box<[Thread]>>]>,
    /// How many more closures cone threads may hold (memory stays linear in
    /// the program however many outputs are read).
    cone_room: AtomicUsize,
}

/// The per-cycle program over blocks of rows (`generate`'s fast path): a
/// slot-major block buffer holds `rows` consecutive words per buffer word.
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
    /// The block program of `program`, when every per-cycle step has a block form.
    fn new(layout: &Layout, program: &Program) -> Option<BlockPlan> {
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

/// Closures the cone threads of a plan may hold together: this many per
/// per-cycle step, plus [`CONE_ROOM_BASE`].
pub const CONE_ROOM_PER_STEP: usize = 4;
/// See [`CONE_ROOM_PER_STEP`].
pub const CONE_ROOM_BASE: usize = 4096;

/// [`Plan::broad_cone`] not yet found for an output.
const UNKNOWN: u8 = 2;

impl Plan {
    /// Output `out`'s per-cycle cone: its `Dynamic` steps, in evaluation order
    /// (valid once the scope-init path has run; built at first use and shared
    /// by every kernel of the program).
    #[inline]
    pub fn cone(&self, out: usize) -> &[u32] {
        self.program.cycle_cone(out)
    }

    /// Output `out`'s cone covers at least half of the per-cycle steps, so
    /// when it is stale a sweep costs little more than walking the cone (the
    /// Pull kernel's choice; Raw always sweeps). Half is the line the
    /// selection heuristic draws between selective and broad cones.
    #[inline]
    pub fn broad_cone(&self, out: usize) -> bool {
        match self.broad[out].load(Ordering::Relaxed) {
            UNKNOWN => {
                let broad = 2 * self.cone(out).len() >= self.program.cycle_steps.len();
                self.broad[out].store(broad as u8, Ordering::Relaxed);
                broad
            }
            known => known == 1,
        }
    }

    /// The inputs output `out` depends on, ascending.
    pub fn out_inputs(&self, out: usize) -> impl Iterator<Item = usize> + '_ {
        let w = self.mask_words;
        ones(&self.out_mask[out * w..out * w + w])
    }

    /// The program over blocks of rows, for `generate`: when the plan sweeps
    /// and every per-cycle step has a block form. Built at the first call.
    pub fn block(&self) -> Option<&BlockPlan> {
        let build = || match self.sweep.is_empty() {
            true => None,
            false => BlockPlan::new(&self.layout, &self.program),
        };
        self.block.get_or_init(build).as_ref()
    }

    /// The cone thread of output `out` — the steps of its per-cycle cone as
    /// threads, so a stale read of a selective cone runs without per-step
    /// bookkeeping (the Pull kernel's way) — or `None`: the plan does not
    /// sweep, the cone is broad (a sweep serves it), or the cone threads
    /// already hold their share of memory. Built at the first call for `out`.
    pub fn cone_thread(&self, out: usize) -> Option<&[Thread]> {
        if self.sweep.is_empty() || self.broad_cone(out) {
            return None;
        }
        let cell = &self.cone_threads[out];
        let threads = match cell.get() {
            Some(threads) => threads,
            None => {
                let need = self.cone(out).len();
                let room = self.cone_room.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |r| r.checked_sub(need));
                cell.get_or_init(|| match room {
                    Ok(_) => threads(&self.layout, &self.program, self.cone(out)),
                    Err(_) => Box::default(),
                })
            }
        };
        (!threads.is_empty()).then_some(&threads[..])
    }

    /// Compiles `program` to a P2 plan.
    pub fn new(program: Arc<Program>) -> Plan {
        let layout = Layout::new(&program);
        let steps: Box<[StepPlan]> = program
            .steps
            .iter()
            .map(|step| {
                let exec = match runs_as_closure(&layout, step) {
                    true => Exec::Slots(scalar_step(&layout, step)),
                    false => Exec::Kit { node: step.eval.clone(), iota: (0..step.ins.len() as u32).collect() },
                };
                let side = step.def.purity == Purity::SideChannel;
                StepPlan {
                    exec,
                    ins: step.ins.clone(),
                    out_start: step.out_start,
                    out_count: step.out_count() as u32,
                    propagates_none: !step.accepts_none && !step.ins.is_empty(),
                    side,
                }
            })
            .collect();
        let n_inputs = program.inputs.len();
        let has_cone = program
            .outputs
            .iter()
            .map(|o| o.step.is_some_and(|s| program.steps[s as usize].lifecycle == Lifecycle::Dynamic))
            .collect();
        let mask_words = n_inputs.div_ceil(64).max(1);
        let mut out_mask = vec![0u64; mask_words * program.outputs.len()];
        for (o, output) in program.outputs.iter().enumerate() {
            let mut set = |i: usize| out_mask[o * mask_words + i / 64] |= 1 << (i % 64);
            match output.step {
                Some(s) => program.provenance[s as usize].iter_ones().for_each(set),
                None if (output.slot as usize) < n_inputs => set(output.slot as usize),
                None => {}
            }
        }
        let out_volatile =
            program.outputs.iter().map(|o| o.step.is_some_and(|s| program.steps[s as usize].volatile)).collect();
        let pinned_deps: Box<[Box<[u32]>]> = program
            .input_dependents
            .iter()
            .map(|deps| {
                let pinned =
                    |s: u32| steps[s as usize].side || program.steps[s as usize].lifecycle != Lifecycle::Dynamic;
                deps.iter().copied().filter(|&s| pinned(s)).collect()
            })
            .collect();
        let sweeps = sweepable(&program, &layout);
        let sweep = match sweeps {
            true => threads(&layout, &program, &program.cycle_steps),
            false => Box::default(),
        };
        let broad = program.outputs.iter().map(|_| AtomicU8::new(UNKNOWN)).collect();
        let cone_threads = program.outputs.iter().map(|_| OnceLock::new()).collect();
        let cone_room = AtomicUsize::new(CONE_ROOM_BASE + CONE_ROOM_PER_STEP * program.cycle_steps.len());
        Plan {
            sweep,
            broad,
            cone_threads,
            cone_room,
            block: OnceLock::new(),
            fixed_steps: (0..program.steps.len() as u32)
                .filter(|&s| program.steps[s as usize].lifecycle != Lifecycle::Dynamic)
                .collect(),
            coord_count: program.coord_count,
            u64_input_word: (0..n_inputs)
                .map(|i| if layout.ty[i] == PortType::U64 { layout.off[i] } else { NO_ENTRY })
                .collect(),
            out_word: program
                .outputs
                .iter()
                .map(|o| match layout.color(o.slot as usize) {
                    Color::Imm1 => layout.off[o.slot as usize],
                    Color::Ref2 => NO_ENTRY,
                })
                .collect(),
            has_volatile: !program.volatile_steps.is_empty(),
            has_side: steps.iter().any(|s| s.side),
            layout,
            steps,
            has_cone,
            out_mask: out_mask.into(),
            mask_words,
            out_volatile,
            has_pinned: pinned_deps.iter().any(|d| !d.is_empty()),
            pinned_deps,
            program,
        }
    }
}

/// Step `step` compiles to a closure over buffer words: every wire is a
/// scalar, the node has a slot form, and it does not accept `None` (the
/// buffer holds no `None`; the mask around it does). Other steps run through
/// the slot kit.
fn runs_as_closure(layout: &Layout, step: &crate::program::Step) -> bool {
    let scalar_wires =
        step.ins.iter().all(|&i| !layout.ty[i as usize].is_ref()) && step.out_types.iter().all(|t| !t.is_ref());
    scalar_wires && !step.accepts_none && step.eval.slot_form().is_some()
}

/// Every per-cycle step of `program` is a pure, non-volatile closure step,
/// so reads may sweep (see [`Plan::sweep`]).
fn sweepable(program: &Program, layout: &Layout) -> bool {
    program.cycle_steps.iter().all(|&s| {
        let step = &program.steps[s as usize];
        runs_as_closure(layout, step) && step.def.purity == Purity::Pure && !step.volatile
    })
}

/// How a program runs on P2, in numbers (for `explain`): steps compiled to
/// closures, steps through the slot kit, and whether reads sweep.
pub fn shape(program: &Program) -> (usize, usize, bool) {
    let layout = Layout::new(program);
    let closures = program.steps.iter().filter(|s| runs_as_closure(&layout, s)).count();
    (closures, program.steps.len() - closures, sweepable(program, &layout))
}

/// Steps per thread of a sweep: bounds the nesting when a build does not
/// turn the tail calls into jumps (debug builds), so no program can exhaust
/// the stack.
const THREAD_LEN: usize = 32;

/// A run of threaded steps, in evaluation order, ending with
/// [`ThreadStep::done`] (see [`ThreadStep::run`]).
pub type Thread = Box<[ThreadStep]>;

/// The steps `steps` (in evaluation order) as threads: scheduled for
/// register handoff ([`schedule`]), then cut into runs of at most
/// [`THREAD_LEN`] steps in which a step tail-calls the next and hands it its
/// own first output and the one it was handed
/// ([`NodeEval::threaded_step`](crate::node::NodeEval::threaded_step)), so a
/// run costs one indirect jump per step.
fn threads(layout: &Layout, program: &Program, steps: &[u32]) -> Box<[Thread]> {
    schedule(layout, program, steps)
        .chunks(THREAD_LEN)
        .map(|run| {
            // The words whose values arrive in registers: the first outputs
            // of the last two steps.
            let (mut last, mut before) = (NOWHERE, NOWHERE);
            run.iter()
                .map(|&s| {
                    let step = &program.steps[s as usize];
                    let ins: Vec<Src> = step
                        .ins
                        .iter()
                        .map(|&i| {
                            let word = layout.off[i as usize] as usize;
                            let handed = match word {
                                w if w == last => Some(Handed::Last),
                                w if w == before => Some(Handed::Before),
                                _ => None,
                            };
                            Src { word, handed }
                        })
                        .collect();
                    let out = first_word(layout, step);
                    (last, before) = (out, last);
                    step.eval.clone().threaded_step(&ins, out, step.out_count()).unwrap_or_else(|| {
                        let f = scalar_step(layout, step);
                        ThreadStep::new(move |buf: &mut Vec<u64>, last: u64, _: u64, rest: &[ThreadStep]| {
                            f(buf)?;
                            let first = buf.get(out).copied().unwrap_or(0);
                            ThreadStep::run(rest, buf, first, last)
                        })
                    })
                })
                .chain(std::iter::once(ThreadStep::done()))
                .collect()
        })
        .collect()
}

/// The buffer word of step `step`'s first output, which a thread hands on
/// in a register; [`NOWHERE`] for a step with no outputs.
pub fn first_word(layout: &Layout, step: &crate::program::Step) -> usize {
    match step.out_count() {
        0 => NOWHERE,
        _ => layout.off[step.out_start as usize] as usize,
    }
}

/// No buffer word: the first output of a step that has none.
pub const NOWHERE: usize = usize::MAX;

/// The closure of a scalar step (every wire a scalar, the node has a slot
/// form): the node's own step form, or the generic gather-call-scatter one.
fn scalar_step(layout: &Layout, step: &crate::program::Step) -> SlotFn {
    let ins: Vec<usize> = step.ins.iter().map(|&i| layout.off[i as usize] as usize).collect();
    let out = layout.off[step.out_start as usize] as usize;
    let n = step.out_count();
    match step.eval.clone().slot_step(&ins, out, n) {
        Some(f) => f,
        None => slot_closure(step.eval.clone(), ins, out, n),
    }
}

/// The closure of a scalar step whose node has a slot form but no step form
/// of its own: inputs gathered from their words into a stack array, the slot
/// form called, outputs written in place. No allocation per run up to 16
/// inputs (no library node takes this path past that).
fn slot_closure(node: Arc<dyn NodeEval>, ins: Vec<usize>, out: usize, n: usize) -> SlotFn {
    // `slot_form` was checked when the plan was built; the node is immutable.
    fn form(node: &Arc<dyn NodeEval>) -> &dyn crate::node::kit::SlotEval {
        match node.slot_form() {
            Some(f) => f,
            None => unreachable!("slot form checked at plan time"),
        }
    }
    const STACK: usize = 16;
    Box::new(move |buf| {
        if ins.len() <= STACK {
            let mut x = [0u64; STACK];
            for (dst, &i) in x.iter_mut().zip(&ins) {
                *dst = buf[i];
            }
            form(&node).eval_slots(&x[..ins.len()], &mut buf[out..out + n])
        } else {
            let x: Vec<u64> = ins.iter().map(|&i| buf[i]).collect();
            form(&node).eval_slots(&x, &mut buf[out..out + n])
        }
    })
}
