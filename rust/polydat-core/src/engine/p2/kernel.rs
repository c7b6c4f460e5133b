//! The P2 kernel, generic over its mode: `P2Kernel<Raw>`, `P2Kernel<Push>`,
//! `P2Kernel<Pull>` and `P2Kernel<PushPull>` are four separately compiled
//! types; the mode's bookkeeping is inlined into each one's loop.

use super::modes::Mode;
use super::plan::{Plan, NO_ENTRY};
use super::slots::{RefSlotRefused, Slots};
use crate::engine::column::Column;
use crate::engine::guard::guarded;
use crate::engine::{adapt_boundary, raw_read_refused, Kernel};
use crate::error::{EvalError, WriteError};
use crate::node::NodeError;
use crate::program::Program;
use crate::value::Value;
use std::sync::Arc;

/// A P2 kernel: a shared plan, one flat buffer state, and the mode's bookkeeping.
pub struct P2Kernel<M: Mode> {
    plan: Arc<Plan>,
    slots: Slots,
    mode: M,
    /// The scope-init path has run (since creation or the last `invalidate_all`).
    scope_ready: bool,
}

impl<M: Mode> P2Kernel<M> {
    /// A fresh kernel over `program` (builds the plan).
    pub fn new(program: &Arc<Program>) -> Self {
        Self::with_plan(Arc::new(Plan::new(program.clone())))
    }

    /// A fresh kernel over an existing plan (kernels of one program can share it).
    pub fn with_plan(plan: Arc<Plan>) -> Self {
        let slots = Slots::new(&plan);
        let mode = M::new(&plan);
        P2Kernel { plan, slots, mode, scope_ready: false }
    }

    /// The shared plan.
    pub fn plan(&self) -> &Arc<Plan> {
        &self.plan
    }

    /// A copy of this state (inputs, current values, currency); its Ref pairs
    /// name its own scratch, so the two kernels never share bytes.
    pub fn fork(&self) -> Self {
        P2Kernel {
            plan: self.plan.clone(),
            slots: self.slots.fork(&self.plan.layout),
            mode: self.mode.fork(),
            scope_ready: self.scope_ready,
        }
    }

    /// True when every Ref pair names its own scratch entry (axiom S9).
    pub fn pairs_are_own(&self) -> bool {
        self.slots.pairs_are_own(&self.plan.layout)
    }

    /// Pulls output `out` and returns its value slot (the single-output form
    /// of [`Self::refresh`], kept separate: it is the hottest read path).
    #[inline(always)]
    fn pull_value_slot(&mut self, out: usize) -> Result<usize, EvalError> {
        if !self.scope_ready {
            let plan = self.plan.clone();
            self.scope_init(&plan.program.outputs[out].name)?;
        }
        let plan = &*self.plan;
        let def = &plan.program.outputs[out];
        let cone = &plan.cones[out];
        // (An empty per-cycle cone: an input passed through, or a value fixed at scope init.)
        if !cone.is_empty() && !self.mode.output_current(plan, out) {
            self.mode.begin_read(plan);
            run(plan, &mut self.slots, &mut self.mode, cone, &def.name)?;
            self.mode.output_done(plan, out);
        }
        Ok(def.slot as usize)
    }

    /// Brings the outputs `outs` up to date as one read: the scope-init path
    /// if it has not run, then — inside one panic guard — each output whose
    /// cone guard does not vouch for it runs the stale steps of its cone.
    fn refresh(&mut self, outs: &[usize]) -> Result<(), EvalError> {
        if !self.scope_ready {
            let plan = self.plan.clone();
            let context = outs.first().map_or("every output", |&o| plan.program.outputs[o].name.as_str());
            self.scope_init(context)?;
        }
        let plan = &*self.plan;
        let (slots, mode) = (&mut self.slots, &mut self.mode);
        let mut begun = false;
        let mut reading = usize::MAX;
        let outcome = guarded(|| {
            for &out in outs {
                // (An empty per-cycle cone: an input passed through, or a value fixed at scope init.)
                let cone = &plan.cones[out];
                if cone.is_empty() || mode.output_current(plan, out) {
                    continue;
                }
                if !begun {
                    mode.begin_read(plan);
                    begun = true;
                }
                reading = out;
                run_steps(plan, slots, mode, cone)?;
                mode.output_done(plan, out);
            }
            Ok(())
        });
        if reading == usize::MAX {
            return Ok(());
        }
        let context = &plan.program.outputs[reading].name;
        settle(plan, slots, mode, outcome, &plan.cones[reading], context)
    }

    /// Runs the scope-init path (constants, `const` captures and what they
    /// read) from the inputs as they are now; `context` names the read.
    #[cold]
    fn scope_init(&mut self, context: &str) -> Result<(), EvalError> {
        let plan = &*self.plan;
        self.mode.begin_read(plan);
        if let Err(e) = run(plan, &mut self.slots, &mut self.mode, &plan.init_steps, context) {
            // A failed init leaves no partial captures: the next read starts
            // the whole path again, as a fresh kernel would (P1 does the same).
            self.mode.invalidate_all();
            return Err(e);
        }
        self.mode.scope_init_done(plan);
        self.scope_ready = true;
        Ok(())
    }

    /// Pulls output `out` as a raw word: `Ok(None)` for a `None` value; a Ref
    /// (`str`/`bytes`/`json`) output is refused (axiom S2), never read as a pointer.
    #[inline]
    pub fn pull_u64(&mut self, out: usize) -> Result<Option<u64>, SlotReadError> {
        let slot = self.pull_value_slot(out).map_err(SlotReadError::Eval)?;
        let name = &self.plan.program.outputs[out].name;
        self.slots.read_u64(&self.plan.layout, slot, name).map_err(SlotReadError::Refused)
    }
}

/// Runs the stale steps among `steps` (ascending); node panics are contained
/// and every failure is attributed as P1 attributes it.
fn run<M: Mode>(plan: &Plan, slots: &mut Slots, mode: &mut M, steps: &[u32], context: &str) -> Result<(), EvalError> {
    let outcome = guarded(|| run_steps(plan, &mut *slots, &mut *mode, steps));
    settle(plan, slots, mode, outcome, steps, context)
}

/// Turns the outcome of a guarded pass over `steps` into the engine's result,
/// attributing a failure (or a contained panic) as P1 does.
#[inline(always)]
fn settle<M: Mode>(
    plan: &Plan,
    slots: &Slots,
    mode: &M,
    outcome: Result<Result<(), (usize, NodeError)>, String>,
    steps: &[u32],
    context: &str,
) -> Result<(), EvalError> {
    #[cfg(debug_assertions)]
    assert!(slots.pairs_are_own(&plan.layout), "S9: a Ref pair names a foreign scratch entry");
    match outcome {
        Ok(Ok(())) => Ok(()),
        Ok(Err((s, e))) => Err(attribute(plan, slots, s, &e.0, context)),
        Err(panic) => {
            // Steps run in order and each is marked as it succeeds, so the step
            // that panicked is the first one of the pass still stale.
            let s = steps.iter().map(|&s| s as usize).find(|&s| mode.stale(s)).unwrap_or(usize::MAX);
            Err(attribute(plan, slots, s, &panic, context))
        }
    }
}

/// The attributed error for a failure of step `s` (the same words as P1).
fn attribute(plan: &Plan, slots: &Slots, s: usize, original: &str, context: &str) -> EvalError {
    let Some(step) = plan.program.steps.get(s) else {
        return EvalError::attributed(original, "?", &[], Vec::new(), context);
    };
    let inputs = slots.shown_inputs(&plan.layout, &plan.steps[s]);
    EvalError::attributed(original, step.def.name, &step.feeds, inputs, &format!("`{context}`"))
}

/// The eval loop: one pass over `steps`, each stale step run once.
#[inline(always)]
fn run_steps<M: Mode>(plan: &Plan, slots: &mut Slots, mode: &mut M, steps: &[u32]) -> Result<(), (usize, NodeError)> {
    for &s in steps {
        let s = s as usize;
        if !mode.stale(s) {
            continue;
        }
        slots.run_step(&plan.layout, &plan.steps[s]).map_err(|e| (s, e))?;
        mode.ran(plan, s);
    }
    Ok(())
}

/// Why a raw slot read failed.
#[derive(Clone, Debug, PartialEq)]
pub enum SlotReadError {
    /// The output is a Ref slot.
    Refused(Box<RefSlotRefused>),
    /// Evaluating the output failed.
    Eval(EvalError),
}

impl std::fmt::Display for SlotReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SlotReadError::Refused(e) => e.fmt(f),
            SlotReadError::Eval(e) => e.fmt(f),
        }
    }
}

impl<M: Mode> Clone for P2Kernel<M> {
    fn clone(&self) -> Self {
        self.fork()
    }
}

impl<M: Mode> Kernel for P2Kernel<M> {
    fn program(&self) -> &Arc<Program> {
        &self.plan.program
    }

    fn write(&mut self, input: usize, value: Value) -> Result<(), WriteError> {
        let plan = &*self.plan;
        let def = &plan.program.inputs[input];
        let value = adapt_boundary(&def.name, def.ty, value)?;
        if M::COMPARES && self.slots.holds(&plan.layout, input, &value) {
            return Ok(());
        }
        self.slots.encode(&plan.layout, input, &value);
        self.mode.wrote(plan, input);
        Ok(())
    }

    #[inline]
    fn write_u64(&mut self, input: usize, value: u64) {
        let plan = &*self.plan;
        let word = plan.u64_input_word[input];
        if word == NO_ENTRY {
            // Not a u64 slot: take the checked path, so a Ref pair is never
            // overwritten by a raw word. This entry point has no error channel:
            // a value the slot's type refuses is dropped (use `write` to see why).
            let _ = self.write(input, Value::U64(value));
            return;
        }
        if M::COMPARES && self.slots.holds_u64(input, word as usize, value) {
            return;
        }
        self.slots.store_u64(input, word as usize, value);
        self.mode.wrote(plan, input);
    }

    fn pull(&mut self, out: usize) -> Result<Value, EvalError> {
        let slot = self.pull_value_slot(out)?;
        Ok(self.slots.decode(&self.plan.layout, slot))
    }

    #[inline]
    fn pull_slot(&mut self, out: usize) -> Result<u64, EvalError> {
        let slot = self.pull_value_slot(out)?;
        let layout = &self.plan.layout;
        match self.slots.read_u64(layout, slot, "") {
            Ok(Some(word)) => Ok(word),
            _ => Err(raw_read_refused(&self.plan.program, out, &self.slots.decode(layout, slot))),
        }
    }

    fn pull_row(&mut self, outs: &[usize], columns: &mut [Column]) -> Result<(), EvalError> {
        self.refresh(outs)?;
        let layout = &self.plan.layout;
        for (column, &out) in columns.iter_mut().zip(outs) {
            column.push(&self.slots.decode(layout, self.plan.program.outputs[out].slot as usize));
        }
        Ok(())
    }

    #[inline]
    fn pull_into(&mut self, out: usize, column: &mut Column) -> Result<(), EvalError> {
        let slot = self.pull_value_slot(out)?;
        column.push(&self.slots.decode(&self.plan.layout, slot));
        Ok(())
    }

    fn eval(&mut self) -> Result<Vec<Value>, EvalError> {
        if !self.scope_ready {
            self.scope_init("every output")?;
        }
        let plan = &*self.plan;
        self.mode.begin_read(plan);
        run(plan, &mut self.slots, &mut self.mode, &plan.cycle_steps, "every output")?;
        for o in 0..plan.program.outputs.len() {
            self.mode.output_done(plan, o);
        }
        Ok(plan.program.outputs.iter().map(|o| self.slots.decode(&plan.layout, o.slot as usize)).collect())
    }

    fn input_value(&self, input: usize) -> Value {
        self.slots.decode(&self.plan.layout, input)
    }

    /// Every step becomes stale, and the scope-init path runs again at the
    /// next read (`const` captures are taken again from the current inputs).
    fn invalidate_all(&mut self) {
        self.mode.invalidate_all();
        self.scope_ready = false;
    }
}
