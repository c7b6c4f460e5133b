//! The currency bookkeeping of the four compiled kernel modes (shared by P2
//! and P3). Each mode is its own type holding exactly the
//! fields it needs; the kernel is generic over the mode, so every kernel type
//! is compiled separately and its hot loop carries no test of the strategy.
//!
//! | mode      | write (coordinate)                    | stale read                             |
//! |-----------|---------------------------------------|----------------------------------------|
//! | Raw       | plain copy; starts a new round        | sweep (a broad cone only, when the sweep runs string steps; else the cone's thread); else the cone's steps not yet run this round |
//! | Push      | compare; dirty the input's dependents | the dirty steps of the cone            |
//! | Pull      | compare; record changed mask / stamp  | cone guard; then a sweep (broad cone) or the cone's thread (selective cone); else as Raw |
//! | PushPull  | Push + Pull                           | cone guard, then as Push               |
//!
//! A *sweep* runs the whole per-cycle program as threads of tail-calling
//! closures, with no per-step bookkeeping; it needs a plan whose per-cycle
//! steps are all pure closures, and a failure anywhere sends the read back to
//! the stamped walk of its own cone (see `kernel.rs`). [`SweepPolicy`] says
//! which kernel types sweep.
//!
//! Extern writes dirty exactly their dependents in every mode, and
//! side-channel steps run once per change of their provenance in every mode
//! (which holds every coordinate: once per cycle).
//! Volatile steps are re-armed at the start of every read. The scope-init
//! path (constants, `const` captures) runs once per kernel, as on P1, and is
//! current until `invalidate_all`.

use super::shape::Shape;
pub use crate::provenance::Provenance;

/// When a kernel type's stale reads sweep the whole per-cycle program (on a
/// plan where that is allowed, see `Shape::sweepable`) rather than walk a cone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SweepPolicy {
    /// Never: the modes that skip clean steps (Push, PushPull).
    Never,
    /// For outputs whose cone covers at least half the per-cycle steps; a
    /// selective cone runs its own cone thread instead (Pull: a selective
    /// cone is what its guard is for).
    BroadCones,
    /// Every stale read (Raw: "runs all steps").
    Always,
}

/// The currency bookkeeping of one kernel type.
pub trait Mode: Clone + Send + Sync + Sized + 'static {
    /// Which mode this is.
    const PROVENANCE: Provenance;
    /// Writes compare the new value with the old and ignore an equal one.
    const COMPARES: bool;
    /// When a stale read sweeps (runs every per-cycle step in one pass)
    /// instead of walking its cone.
    const SWEEP: SweepPolicy;
    /// Every stale read sweeps, whichever outputs it reads: Raw on a plan
    /// whose sweep runs no string steps.
    #[inline(always)]
    fn sweeps_every_read(plan: &Shape) -> bool {
        Self::SWEEP == SweepPolicy::Always && !plan.costly_sweep
    }
    /// A stale read of output `out` sweeps rather than walks its cone.
    #[inline(always)]
    fn sweeps_for(plan: &Shape, out: usize) -> bool {
        match Self::SWEEP {
            SweepPolicy::Never => false,
            SweepPolicy::BroadCones => plan.broad_cone(out),
            // A sweep that runs string steps is worth it for broad cones only.
            SweepPolicy::Always => Self::sweeps_every_read(plan) || plan.broad_cone(out),
        }
    }
    /// Fresh bookkeeping: nothing current.
    fn new(plan: &Shape) -> Self;
    /// A deep copy (the state of a forked kernel).
    fn fork(&self) -> Self {
        self.clone()
    }
    /// Input `input` was written (and, when `COMPARES`, changed).
    fn wrote(&mut self, plan: &Shape, input: usize);
    /// Coordinate `input`, which no pinned step depends on, was written
    /// (`Shape::plain_coordinate_word`): the same as [`Mode::wrote`], which
    /// a mode may shortcut.
    #[inline(always)]
    fn wrote_plain_coordinate(&mut self, plan: &Shape, input: usize) {
        self.wrote(plan, input);
    }
    /// A read starts: later writes belong to a new round; volatile steps re-arm.
    fn begin_read(&mut self, plan: &Shape);
    /// The cone guard: output `out` is current without entering the eval loop.
    fn output_current(&mut self, plan: &Shape, out: usize) -> bool;
    /// Output `out` was computed by a successful read.
    fn output_done(&mut self, plan: &Shape, out: usize);
    /// Step `s` must run in this read.
    fn stale(&self, s: usize) -> bool;
    /// Step `s` ran (or yielded `None`) successfully.
    fn ran(&mut self, plan: &Shape, s: usize);
    /// The scope-init path ran successfully: its fixed steps stay current
    /// until `invalidate_all`.
    fn scope_init_done(&mut self, plan: &Shape);
    /// A sweep made every per-cycle step current (recorded only when an
    /// extern write is about to dirty part of them).
    fn adopt_sweep(&mut self, plan: &Shape);
    /// Nothing is current any more.
    fn invalidate_all(&mut self);
}

/// How a kernel type knows which steps are current: per-step round stamps
/// ([`Rounds`]) or per-step clean flags ([`Clean`]).
pub trait StepCurrency: Clone + Send + Sync + 'static {
    /// Fresh bookkeeping: nothing current.
    fn new(plan: &Shape) -> Self;
    /// Input `input` was written.
    fn wrote(&mut self, plan: &Shape, input: usize);
    /// Coordinate `input`, which no pinned step depends on, was written (see
    /// [`Mode::wrote_plain_coordinate`]).
    #[inline(always)]
    fn wrote_plain_coordinate(&mut self, plan: &Shape, input: usize) {
        self.wrote(plan, input);
    }
    /// A read starts; volatile steps re-arm.
    fn begin_read(&mut self, plan: &Shape);
    /// Step `s` must run in this read.
    fn stale(&self, s: usize) -> bool;
    /// Step `s` ran successfully.
    fn ran(&mut self, plan: &Shape, s: usize);
    /// The scope-init path ran: its fixed steps stay current.
    fn scope_init_done(&mut self, plan: &Shape);
    /// Every per-cycle step is current (a sweep ran them all).
    fn adopt_sweep(&mut self, plan: &Shape);
    /// Nothing is current any more.
    fn invalidate_all(&mut self);
}

/// Round stamps (Raw, Pull): a step is current when it ran in the current
/// round; the first coordinate write after a read starts a new round. The
/// *pinned* steps — side channels and the fixed part of the scope-init path
/// — are stamped "forever" and dirtied only through their provenance (or
/// `invalidate_all`); an extern write dirties exactly its dependents.
#[derive(Clone, Debug)]
pub struct Rounds {
    round: u64,
    sealed: bool,
    stamp: Vec<u64>,
}

impl Rounds {
    /// A coordinate was written: the first such write after a read starts a new round.
    #[inline(always)]
    fn begin_round(&mut self) {
        if self.sealed {
            self.round += 1;
            self.sealed = false;
        }
    }
}

impl StepCurrency for Rounds {
    fn new(plan: &Shape) -> Rounds {
        Rounds { round: 1, sealed: false, stamp: vec![0; plan.steps.len()] }
    }

    #[inline(always)]
    fn wrote_plain_coordinate(&mut self, _plan: &Shape, _input: usize) {
        // A new round makes every per-cycle step stale; there is nothing to unpin.
        self.begin_round();
    }

    #[inline(always)]
    fn wrote(&mut self, plan: &Shape, input: usize) {
        if input < plan.coord_count {
            self.begin_round();
            unpin(&mut self.stamp, plan, input);
        } else if self.sealed {
            dirty_dependents(&mut self.stamp, plan, input);
        } else {
            // No read since this round began, so no per-cycle step is current
            // yet: only the pinned dependents can be.
            unpin(&mut self.stamp, plan, input);
        }
    }

    #[inline]
    fn begin_read(&mut self, plan: &Shape) {
        self.sealed = true;
        if plan.has_volatile {
            for &s in plan.program.volatile_steps.iter() {
                self.stamp[s as usize] = 0;
            }
        }
    }

    #[inline]
    fn stale(&self, s: usize) -> bool {
        self.stamp[s] < self.round
    }

    #[inline]
    fn ran(&mut self, plan: &Shape, s: usize) {
        self.stamp[s] = if plan.has_side && plan.steps[s].side { u64::MAX } else { self.round };
    }

    fn scope_init_done(&mut self, plan: &Shape) {
        for &s in plan.fixed_steps.iter() {
            self.stamp[s as usize] = u64::MAX;
        }
    }

    fn adopt_sweep(&mut self, plan: &Shape) {
        for &s in plan.program.cycle_steps.iter() {
            self.stamp[s as usize] = self.round;
        }
    }

    fn invalidate_all(&mut self) {
        self.stamp.iter_mut().for_each(|s| *s = 0);
    }
}

/// Makes the pinned dependents of `input` stale (a new round takes care of
/// every other step).
#[inline(always)]
fn unpin(stamp: &mut [u64], plan: &Shape, input: usize) {
    if !plan.has_pinned {
        return;
    }
    for &s in plan.pinned_deps[input].iter() {
        stamp[s as usize] = 0;
    }
}

/// Makes every dependent of `input` stale.
#[inline(always)]
fn dirty_dependents(stamp: &mut [u64], plan: &Shape, input: usize) {
    for &s in plan.program.input_dependents[input].iter() {
        stamp[s as usize] = 0;
    }
}

/// Per-step clean flags (Push, PushPull): a changed input dirties exactly the
/// steps whose provenance holds it.
#[derive(Clone, Debug)]
pub struct Clean {
    clean: Vec<bool>,
}

impl StepCurrency for Clean {
    fn new(plan: &Shape) -> Clean {
        Clean { clean: vec![false; plan.steps.len()] }
    }

    #[inline(always)]
    fn wrote(&mut self, plan: &Shape, input: usize) {
        for &s in plan.program.input_dependents[input].iter() {
            self.clean[s as usize] = false;
        }
    }

    #[inline]
    fn begin_read(&mut self, plan: &Shape) {
        if plan.has_volatile {
            for &s in plan.program.volatile_steps.iter() {
                self.clean[s as usize] = false;
            }
        }
    }

    #[inline]
    fn stale(&self, s: usize) -> bool {
        !self.clean[s]
    }

    #[inline]
    fn ran(&mut self, _plan: &Shape, s: usize) {
        self.clean[s] = true;
    }

    fn scope_init_done(&mut self, _plan: &Shape) {}

    fn adopt_sweep(&mut self, plan: &Shape) {
        for &s in plan.program.cycle_steps.iter() {
            self.clean[s as usize] = true;
        }
    }

    fn invalidate_all(&mut self) {
        self.clean.iter_mut().for_each(|c| *c = false);
    }
}

/// The pull-side cone guard (Pull, PushPull). Writes between two reads form
/// a *batch*; `changed` holds the inputs changed in the current batch and
/// `changed_at[i]` the last batch in which input `i` changed. `valid[o]` is
/// the batch at whose end output `o` was last known current (0: never;
/// batches start at 2).
///
/// A pull of `o` skips the eval loop when `valid[o]` is the current batch,
/// or the previous one and `out_mask[o] ∩ changed = ∅` (one AND per mask
/// word), or — after a longer gap — no input of `o` changed since
/// `valid[o]`. Masks are multi-word, so any number of inputs is exact.
#[derive(Clone, Debug)]
pub struct Guard {
    batch: u64,
    sealed: bool,
    /// Multi-word mask, `plan.mask_words` words.
    changed: Box<[u64]>,
    changed_at: Vec<u64>,
    valid: Vec<u64>,
}

impl Guard {
    fn new(plan: &Shape) -> Guard {
        let n = plan.program.inputs.len();
        Guard {
            // Batches start at 2 so that "never computed" (0) is never mistaken
            // for "validated at the previous batch" (batch - 1).
            batch: 2,
            sealed: false,
            changed: vec![0; plan.mask_words].into(),
            changed_at: vec![0; n],
            valid: vec![0; plan.program.outputs.len()],
        }
    }

    #[inline(always)]
    fn wrote(&mut self, input: usize) {
        if self.sealed {
            self.next_batch();
        }
        self.changed[input / 64] |= 1 << (input % 64);
        self.changed_at[input] = self.batch;
    }

    /// Starts a batch: the mask of changed inputs is cleared.
    #[inline(always)]
    fn next_batch(&mut self) {
        match &mut *self.changed {
            [w] => *w = 0,
            words => words.fill(0),
        }
        self.batch += 1;
        self.sealed = false;
    }

    #[inline]
    fn seal(&mut self) {
        self.sealed = true;
    }

    #[inline(always)]
    fn current(&mut self, plan: &Shape, out: usize) -> bool {
        self.sealed = true;
        let v = self.valid[out];
        if v == self.batch {
            return true;
        }
        let clean = if v + 1 == self.batch {
            // The common case: validated at the previous read. One AND per word.
            match &*self.changed {
                [c] => plan.out_mask[out] & c == 0,
                changed => {
                    let w = changed.len();
                    plan.out_mask[out * w..out * w + w].iter().zip(changed).all(|(p, c)| p & c == 0)
                }
            }
        } else {
            self.unchanged_since(plan, out, v)
        };
        if clean {
            self.valid[out] = self.batch;
        }
        clean
    }

    /// After a gap of several batches (or never computed, `v == 0`): no input
    /// of `out` changed since batch `v`.
    #[cold]
    fn unchanged_since(&self, plan: &Shape, out: usize, v: u64) -> bool {
        v != 0 && plan.out_inputs(out).all(|i| self.changed_at[i] <= v)
    }

    #[inline]
    fn done(&mut self, plan: &Shape, out: usize) {
        if !plan.out_volatile[out] {
            self.valid[out] = self.batch;
        }
    }

    fn invalidate_all(&mut self) {
        self.valid.iter_mut().for_each(|v| *v = 0);
    }
}

/// A kernel type without the pull-side cone guard: every read walks its cone
/// and the step currency `C` decides which steps run.
#[derive(Clone, Debug)]
pub struct Unguarded<C>(C);

/// No provenance: every coordinate write makes every step stale.
pub type Raw = Unguarded<Rounds>;

/// Push-side invalidation only.
pub type Push = Unguarded<Clean>;

/// A kernel type with the pull-side cone guard: a read first asks the
/// guard, and the step currency `C` decides which steps of a stale cone run.
#[derive(Clone, Debug)]
pub struct Guarded<C> {
    currency: C,
    guard: Guard,
}

/// Pull-side cone guard only.
pub type Pull = Guarded<Rounds>;

/// Both.
pub type PushPull = Guarded<Clean>;

/// The provenance of an unguarded kernel with step currency `C`.
trait UnguardedMode: StepCurrency {
    const PROVENANCE: Provenance;
    const COMPARES: bool;
    const SWEEP: SweepPolicy;
}

impl UnguardedMode for Rounds {
    const PROVENANCE: Provenance = Provenance::Raw;
    const COMPARES: bool = false;
    const SWEEP: SweepPolicy = SweepPolicy::Always;
}

impl UnguardedMode for Clean {
    const PROVENANCE: Provenance = Provenance::Push;
    const COMPARES: bool = true;
    const SWEEP: SweepPolicy = SweepPolicy::Never;
}

impl<C: UnguardedMode> Mode for Unguarded<C> {
    const PROVENANCE: Provenance = C::PROVENANCE;
    const COMPARES: bool = C::COMPARES;
    const SWEEP: SweepPolicy = C::SWEEP;
    fn new(plan: &Shape) -> Self {
        Unguarded(C::new(plan))
    }
    #[inline(always)]
    fn wrote(&mut self, plan: &Shape, input: usize) {
        self.0.wrote(plan, input);
    }
    #[inline(always)]
    fn wrote_plain_coordinate(&mut self, plan: &Shape, input: usize) {
        self.0.wrote_plain_coordinate(plan, input);
    }
    #[inline]
    fn begin_read(&mut self, plan: &Shape) {
        self.0.begin_read(plan);
    }
    #[inline]
    fn output_current(&mut self, _plan: &Shape, _out: usize) -> bool {
        false
    }
    #[inline]
    fn output_done(&mut self, _plan: &Shape, _out: usize) {}
    #[inline]
    fn stale(&self, s: usize) -> bool {
        self.0.stale(s)
    }
    #[inline]
    fn ran(&mut self, plan: &Shape, s: usize) {
        self.0.ran(plan, s);
    }
    fn scope_init_done(&mut self, plan: &Shape) {
        self.0.scope_init_done(plan);
    }
    fn adopt_sweep(&mut self, plan: &Shape) {
        self.0.adopt_sweep(plan);
    }
    fn invalidate_all(&mut self) {
        self.0.invalidate_all();
    }
}

/// The provenance of a guarded kernel with step currency `C` (guarded kernels
/// always compare writes: the guard records only changes).
trait GuardedMode: StepCurrency {
    const PROVENANCE: Provenance;
    const SWEEP: SweepPolicy;
}

impl GuardedMode for Rounds {
    const PROVENANCE: Provenance = Provenance::Pull;
    const SWEEP: SweepPolicy = SweepPolicy::BroadCones;
}

impl GuardedMode for Clean {
    const PROVENANCE: Provenance = Provenance::PushPull;
    const SWEEP: SweepPolicy = SweepPolicy::Never;
}

impl<C: GuardedMode> Mode for Guarded<C> {
    const PROVENANCE: Provenance = C::PROVENANCE;
    const COMPARES: bool = true;
    const SWEEP: SweepPolicy = C::SWEEP;
    fn new(plan: &Shape) -> Self {
        Guarded { currency: C::new(plan), guard: Guard::new(plan) }
    }
    #[inline(always)]
    fn wrote(&mut self, plan: &Shape, input: usize) {
        self.currency.wrote(plan, input);
        self.guard.wrote(input);
    }
    #[inline]
    fn begin_read(&mut self, plan: &Shape) {
        self.currency.begin_read(plan);
        self.guard.seal();
    }
    #[inline]
    fn output_current(&mut self, plan: &Shape, out: usize) -> bool {
        self.guard.current(plan, out)
    }
    #[inline]
    fn output_done(&mut self, plan: &Shape, out: usize) {
        self.guard.done(plan, out);
    }
    #[inline]
    fn stale(&self, s: usize) -> bool {
        self.currency.stale(s)
    }
    #[inline]
    fn ran(&mut self, plan: &Shape, s: usize) {
        self.currency.ran(plan, s);
    }
    fn scope_init_done(&mut self, plan: &Shape) {
        self.currency.scope_init_done(plan);
    }
    fn adopt_sweep(&mut self, plan: &Shape) {
        self.currency.adopt_sweep(plan);
    }
    fn invalidate_all(&mut self) {
        self.currency.invalidate_all();
        self.guard.invalidate_all();
    }
}
