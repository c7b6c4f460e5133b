//! What every compiled kernel of one program shares, whatever executes its
//! steps: the slot layout, the facts about each step the kernel consults
//! (what it reads and writes, whether a `None` input short-circuits it,
//! whether it is a side channel), and the invalidation tables — per-output
//! cones, provenance masks, pinned dependents, volatility.

use super::layout::{Color, Layout, NO_ENTRY};
use crate::node::Purity;
use crate::program::lifecycle::Lifecycle;
use crate::program::segmentation::Role;
use crate::program::{Program, Step};
use crate::provenance::ones;
use crate::types::PortType;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

/// The facts about one step the kernel consults.
pub struct StepFacts {
    /// Value slots read, in wire order.
    pub ins: Box<[u32]>,
    /// First value slot written.
    pub out_start: u32,
    /// Number of output slots written, consecutive from `out_start`.
    pub out_count: u32,
    /// Copied from the node: it runs even with `None` inputs (otherwise a
    /// `None` input makes every output `None` without running it: the `None`
    /// rule, [`crate::node::yields_none`]).
    pub accepts_none: bool,
    /// Side-channel node: runs once per change of its provenance in every mode.
    pub side: bool,
    /// The step runs as a scalar step over buffer words ([`Step::is_scalar`]);
    /// otherwise through the slot kit (decode, P1 form, encode).
    pub scalar: bool,
    /// The step runs its node's by-bytes form ([`Step::is_by_bytes`]) whenever none
    /// of its inputs is `None`, writing its output's scratch entry in place.
    pub bytes: bool,
    /// Where a by-bytes step's values sit (empty for other steps).
    pub io: BytesIo,
}

/// Where a by-bytes step's values sit in a kernel state, looked up once per
/// plan rather than on every run: its output's pair word and scratch entry,
/// and each input's word and entry ([`NO_ENTRY`] for a scalar's word).
#[derive(Clone, Debug, Default)]
pub struct BytesIo {
    /// The buffer word of the output's `(ptr, len)` pair.
    pub out_word: u32,
    /// The output's scratch entry.
    pub out_entry: u32,
    /// The output's entry is a byte buffer, not text (the layout's rule,
    /// [`PortType::is_text`]): a `bytes` value, or a decimal's 16 bytes.
    pub out_bytes: bool,
    /// Per input, in wire order: its buffer word and its scratch entry.
    pub ins: Box<[(u32, u32)]>,
    /// Some step of the program reads the output (so its value must be in
    /// the scratch, not only in an output column).
    pub out_read: bool,
}

impl BytesIo {
    /// The places of by-bytes step `step`'s values in `layout`; `read[slot]`
    /// says which value slots some step reads.
    fn of(layout: &Layout, step: &Step, read: &[bool]) -> BytesIo {
        let out = step.out_start as usize;
        BytesIo {
            out_word: layout.off[out],
            out_entry: layout.entry[out],
            out_bytes: !layout.ty[out].is_text(),
            ins: step.ins.iter().map(|&i| (layout.off[i as usize], layout.entry[i as usize])).collect(),
            out_read: read[out],
        }
    }
}

/// The shared, immutable part of every compiled kernel of a program.
pub struct Shape {
    /// The program.
    pub program: Arc<Program>,
    /// Where every value slot lives in the buffer.
    pub layout: Layout,
    /// Per program step: what the kernel needs to know to run it.
    pub steps: Box<[StepFacts]>,
    /// Steps of the scope-init path that are not `Dynamic`: current for the
    /// kernel's life once it has run.
    pub fixed_steps: Box<[u32]>,
    /// Coordinates are inputs `0..coord_count`.
    pub coord_count: usize,
    /// Per input: its buffer word when it is a `u64` slot (the `write_u64`
    /// fast path), else [`NO_ENTRY`].
    pub u64_input_word: Box<[u32]>,
    /// Per input: its buffer word when it is a `u64` coordinate that no
    /// pinned step depends on — a write of it only stores the word and
    /// starts a new round (Raw's fastest write) — else [`NO_ENTRY`].
    pub plain_coordinate_word: Box<[u32]>,
    /// How many of the first inputs have a [`Shape::plain_coordinate_word`]
    /// (a row of them is written with stores alone).
    pub plain_leading_coordinates: usize,
    /// Some step is volatile (re-armed at every read).
    pub has_volatile: bool,
    /// Some step is a side channel.
    pub has_side: bool,
    /// Per output: its buffer word when it is a scalar (`Imm1`) slot, else
    /// [`NO_ENTRY`] (the raw-read fast path).
    pub out_word: Box<[u32]>,
    /// Per output: its per-cycle cone ([`Shape::cone`]) is not empty (the
    /// output's step is `Dynamic`); an empty one is an input passed through,
    /// or a value fixed at scope init.
    pub has_cone: Box<[bool]>,
    /// Per output: the inputs its value depends on, as masks flattened
    /// into one array: output `o`'s words are
    /// `out_mask[o * mask_words..(o + 1) * mask_words]` (one cache line, no
    /// pointer chase; see [`Shape::out_inputs`]).
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
    /// Every per-cycle step is a pure, non-volatile scalar or by-bytes step,
    /// so a read may *sweep*: run the whole per-cycle program in one pass
    /// with no per-step bookkeeping (a failure anywhere sends the read back
    /// to the stamped walk of its own cone, which fails exactly as P1 does).
    pub sweepable: bool,
    /// The sweep runs by-bytes steps, so sweeping everything for a read of
    /// a selective cone costs far more than walking that cone: the modes
    /// that sweep every stale read (Raw) sweep only for broad cones then.
    pub costly_sweep: bool,
    /// Per output: whether its cone is broad ([`Shape::broad_cone`]), found at
    /// the first read that asks ([`UNKNOWN`] until then), so building a plan
    /// never walks every output's cone (a chain of n outputs has cones of n²/2
    /// steps in all).
    broad: Box<[AtomicU8]>,
}

/// [`Shape::broad_cone`] not yet found for an output.
const UNKNOWN: u8 = 2;

impl Shape {
    /// The shape of `program`.
    pub fn new(program: Arc<Program>) -> Shape {
        let layout = Layout::new(&program);
        let mut read = vec![false; program.slot_count];
        program.steps.iter().flat_map(|step| step.ins.iter()).for_each(|&i| read[i as usize] = true);
        let steps: Box<[StepFacts]> = program
            .steps
            .iter()
            .map(|step| {
                let bytes = step.is_by_bytes();
                StepFacts {
                    ins: step.ins.clone(),
                    out_start: step.out_start,
                    out_count: step.out_count() as u32,
                    accepts_none: step.accepts_none,
                    side: step.def.purity == Purity::SideChannel,
                    scalar: step.is_scalar(),
                    bytes,
                    io: match bytes {
                        true => BytesIo::of(&layout, step, &read),
                        false => BytesIo::default(),
                    },
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
        let sweepable = program.cycle_steps.iter().all(|&s| {
            let step = &program.steps[s as usize];
            let facts = &steps[s as usize];
            (facts.scalar || facts.bytes) && step.def.purity == Purity::Pure && !step.volatile
        });
        let costly_sweep = sweepable && program.cycle_steps.iter().any(|&s| steps[s as usize].bytes);
        let u64_input_word: Box<[u32]> =
            (0..n_inputs).map(|i| if layout.ty[i] == PortType::U64 { layout.off[i] } else { NO_ENTRY }).collect();
        let plain_coordinate_word: Box<[u32]> = u64_input_word
            .iter()
            .enumerate()
            .map(|(i, &word)| match i < program.coord_count && pinned_deps[i].is_empty() {
                true => word,
                false => NO_ENTRY,
            })
            .collect();
        Shape {
            broad: program.outputs.iter().map(|_| AtomicU8::new(UNKNOWN)).collect(),
            sweepable,
            costly_sweep,
            fixed_steps: (0..program.steps.len() as u32)
                .filter(|&s| program.steps[s as usize].lifecycle != Lifecycle::Dynamic)
                .collect(),
            coord_count: program.coord_count,
            plain_leading_coordinates: plain_coordinate_word.iter().take_while(|&&w| w != NO_ENTRY).count(),
            plain_coordinate_word,
            u64_input_word,
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

    /// The per-cycle steps outputs `outs` need together (the union of their
    /// cones), in evaluation order; linear in the program however the cones
    /// nest ([`Program::in_cycle_cones`]).
    pub fn cones_steps(&self, outs: &[usize]) -> Vec<u32> {
        if let [out] = outs {
            return self.cone(*out).to_vec();
        }
        let needed = self.program.in_cycle_cones(outs);
        self.program.cycle_steps.iter().copied().filter(|&s| needed[s as usize]).collect()
    }

    /// The inputs output `out` depends on, ascending.
    pub fn out_inputs(&self, out: usize) -> impl Iterator<Item = usize> + '_ {
        let w = self.mask_words;
        ones(&self.out_mask[out * w..out * w + w])
    }

    /// How many steps run as scalar steps, how many by bytes, and how many
    /// through the slot kit.
    pub fn step_counts(&self) -> (usize, usize, usize) {
        let scalar = self.steps.iter().filter(|s| s.scalar).count();
        let bytes = self.steps.iter().filter(|s| s.bytes).count();
        (scalar, bytes, self.steps.len() - scalar - bytes)
    }

    /// The role step `s` takes in a pass of the compiled engines
    /// ([`crate::program::segmentation::group`]): a scalar step runs in the
    /// executor's form, a by-bytes step writes its text in place, and any
    /// other runs its node's rule through the slot kit.
    pub fn compiled_role(&self, s: u32) -> Role {
        let facts = &self.steps[s as usize];
        match (facts.scalar, facts.bytes) {
            (true, _) => Role::Native,
            (false, true) => Role::Bytes,
            (false, false) => Role::Rule,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Shape;
    use crate::test_support::compile_sketch;
    use std::sync::Arc;

    #[test]
    fn the_steps_many_outputs_need_are_found_without_a_cone_each() {
        let chain: String = (1..400).map(|i| format!("v{i} := u64_xor(v{}, x)\nw{i} := hash(v{i})\n", i - 1)).collect();
        let src = format!("input x: u64\nextern e: u64 = 1\nconst k := hash(e)\nv0 := u64_add(x, k)\n{chain}");
        let p = Arc::new(compile_sketch(&src));
        let shape = Shape::new(p.clone());
        let every: Vec<usize> = (0..p.outputs.len()).collect();
        let some: Vec<usize> = every.iter().copied().filter(|o| o % 3 == 1).collect();
        let found: Vec<Vec<u32>> = [&every, &some].map(|outs| shape.cones_steps(outs)).into();
        // A chain's outputs have cones of n²/2 steps in all: none is built.
        assert_eq!(p.cycle_cones_built(), 0, "an output's cone was built");
        for (outs, found) in [&every, &some].into_iter().zip(found) {
            let mut union = vec![false; p.steps.len()];
            outs.iter().flat_map(|&o| p.cycle_cone(o)).for_each(|&s| union[s as usize] = true);
            let want: Vec<u32> = p.cycle_steps.iter().copied().filter(|&s| union[s as usize]).collect();
            assert_eq!(found, want);
            assert_eq!(p.in_cycle_cones(outs), union);
        }
    }
}
