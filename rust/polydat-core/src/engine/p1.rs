//! P1, the interpreter and semantic oracle. Values live in one `Vec<Value>`
//! laid out by the program (inputs, then each step's outputs); a write marks
//! stale exactly the steps whose provenance holds the written input; a pull
//! runs only the stale steps of the output's cone, in the precomputed
//! evaluation order, each at most once. No hashing or allocation per pull.
//!
//! Hoisting: the program's scope-init path (constants, `const` captures and
//! what they read) runs once, at the kernel's first read — after the host has
//! written its externs — and is never dirtied by later writes; per-cycle pulls
//! walk only the `Dynamic` part of a cone. [`P1Kernel::init`] re-runs it.

use super::failure::{self, PassOutcome};
use super::kernel::RowRuns;
use super::kernel::{adapt_boundary, raw_read_refused, Kernel};
use super::kernel::{GenerateError, RowFill, RowFiller};
use super::lazy::{self, WalkState};
use super::rows::fill_each_row_run;
use super::rows::fill_row_by_row;
use super::scope_init::{init_scope, ScopeInit};
use crate::columns::ColumnPart;
use crate::error::{EvalError, WriteError};
use crate::node::guard::guarded;
use crate::node::{Args, NodeError};
use crate::program::branches::Roots;
use crate::program::Program;
use crate::types::PortType;
use crate::value::Value;
use std::sync::Arc;

/// Which steps are current, one bit per step. A write clears the bits of the
/// written input's dependents: word-wise through a precomputed mask per input
/// when the masks are small, otherwise step by step from the dependent list.
struct StepBits {
    words: Vec<u64>,
    /// Per input, the words of its dependents (empty when masks would be too large).
    dependents: Box<[Box<[u64]>]>,
}

/// Largest total size of the per-input dependent masks, in words.
const MASK_BUDGET_WORDS: usize = 1 << 20;

impl StepBits {
    fn new(program: &Program) -> StepBits {
        let n_words = program.steps.len().div_ceil(64).max(1);
        let dependents = if n_words * program.inputs.len() <= MASK_BUDGET_WORDS {
            program
                .input_dependents
                .iter()
                .map(|list| {
                    let mut mask = vec![0u64; n_words];
                    for &s in list.iter() {
                        mask[s as usize / 64] |= 1 << (s % 64);
                    }
                    mask.into_boxed_slice()
                })
                .collect()
        } else {
            Box::default()
        };
        StepBits { words: vec![0; n_words], dependents }
    }

    #[inline]
    fn get(&self, s: usize) -> bool {
        self.words[s / 64] & (1 << (s % 64)) != 0
    }

    #[inline]
    fn set(&mut self, s: usize) {
        self.words[s / 64] |= 1 << (s % 64);
    }

    #[inline]
    fn unset(&mut self, s: usize) {
        self.words[s / 64] &= !(1 << (s % 64));
    }

    #[inline]
    fn unset_dependents(&mut self, program: &Program, input: usize) {
        match self.dependents.get(input) {
            Some(mask) => self.words.iter_mut().zip(mask.iter()).for_each(|(w, m)| *w &= !m),
            None => program.input_dependents[input].iter().for_each(|&s| self.unset(s as usize)),
        }
    }

    fn clear(&mut self) {
        self.words.iter_mut().for_each(|w| *w = 0);
    }
}

/// The mutable state of one P1 kernel.
struct State {
    values: Vec<Value>,
    /// Per step: its outputs are current.
    clean: StepBits,
    /// Per step: an input can be `None` (its provenance holds an extern).
    none_possible: Box<[bool]>,
    /// The scope-init path has run (since creation or the last `invalidate_all`).
    scope_ready: bool,
    /// The step a walk of a program with `if`s is running (`usize::MAX`
    /// when none), so a contained panic names it.
    running: usize,
}

/// A P1 kernel: the shared program plus one state.
pub struct P1Kernel {
    program: Arc<Program>,
    state: State,
}

impl P1Kernel {
    /// A fresh kernel: inputs at their defaults, every step stale.
    pub fn new(program: Arc<Program>) -> P1Kernel {
        let mut values = vec![Value::None; program.slot_count];
        for (slot, input) in values.iter_mut().zip(&program.inputs) {
            *slot = input.default.clone();
        }
        let clean = StepBits::new(&program);
        let none_possible = program.may_read_none.clone();
        P1Kernel { program, state: State { values, clean, none_possible, scope_ready: false, running: usize::MAX } }
    }

    /// Runs the scope-init path now, from the inputs as they are: every
    /// `const` is captured again and everything downstream becomes stale.
    pub fn init(&mut self) -> Result<(), EvalError> {
        self.invalidate_all();
        init_scope(&mut Init { state: &mut self.state, program: &self.program }, "scope init")
    }

    /// Pulls output `out` and returns a reference to its value slot (the
    /// single-output form of [`Self::refresh`], kept separate: it is the
    /// hottest path of the interpreter).
    fn pull_ref(&mut self, out: usize) -> Result<&Value, EvalError> {
        let program = &*self.program;
        let def = &program.outputs[out];
        init_scope(&mut Init { state: &mut self.state, program }, &def.name)?;
        self.state.rearm_volatile(program);
        if let Some(step) = def.step {
            if !self.state.clean.get(step as usize) {
                self.state.run_steps(program, program.cycle_cone(out), Roots::Output(out), &def.name)?;
            }
        }
        Ok(&self.state.values[def.slot as usize])
    }

    /// The current value of output `out` as its raw word, or the refusal of a
    /// `None` or by-reference output.
    #[inline]
    fn current_word(&self, out: usize) -> Result<u64, EvalError> {
        let value = &self.state.values[self.program.outputs[out].slot as usize];
        crate::node::kit::value_to_slot(value).ok_or_else(|| raw_read_refused(&self.program, out, value))
    }

    /// Brings the outputs `outs` up to date as one read: the scope-init path
    /// if it has not run, volatile steps re-armed once, then the stale steps
    /// of each output's cone inside one panic guard.
    fn refresh(&mut self, outs: &[usize]) -> Result<(), EvalError> {
        let program = &*self.program;
        let state = &mut self.state;
        let context = outs.first().map_or("every output", |&o| program.outputs[o].name.as_str());
        init_scope(&mut Init { state: &mut *state, program }, context)?;
        state.rearm_volatile(program);
        let stale = |state: &State, o: usize| program.outputs[o].step.is_some_and(|s| !state.clean.get(s as usize));
        if !outs.iter().any(|&o| stale(state, o)) {
            return Ok(());
        }
        let mut reading = outs[0];
        let outcome = guarded(|| {
            for &o in outs {
                if stale(state, o) {
                    reading = o;
                    state.run_steps_unguarded(program, program.cycle_cone(o), Roots::Output(o))?;
                }
            }
            Ok(())
        });
        match outcome {
            Ok(Ok(())) => Ok(()),
            failed => self.state.settle(program, failed, program.cycle_cone(reading), &program.outputs[reading].name),
        }
    }
}

/// A P1 state and its program, for the scope-init protocol ([`init_scope`]).
struct Init<'a> {
    state: &'a mut State,
    program: &'a Program,
}

impl ScopeInit for Init<'_> {
    fn scope_ready(&self) -> bool {
        self.state.scope_ready
    }
    fn run_init_path(&mut self, context: &str) -> Result<(), EvalError> {
        self.state.run_steps(self.program, &self.program.scope_init_steps, Roots::ScopeInit, context)
    }
    fn forget_init(&mut self) {
        for &s in self.program.scope_init_steps.iter() {
            self.state.clean.unset(s as usize);
        }
    }
    fn init_done(&mut self) {
        self.state.scope_ready = true;
    }
}

impl State {
    /// Volatile steps are never current: each read starts with them stale.
    #[inline]
    fn rearm_volatile(&mut self, program: &Program) {
        for &s in program.volatile_steps.iter() {
            self.clean.unset(s as usize);
        }
    }

    /// Runs the stale steps among `steps` (ascending) that `roots` need, each
    /// once; a node panic is contained.
    fn run_steps(&mut self, program: &Program, steps: &[u32], roots: Roots, context: &str) -> Result<(), EvalError> {
        let outcome = guarded(|| self.run_steps_unguarded(program, steps, roots));
        self.settle(program, outcome, steps, context)
    }

    /// Turns the outcome of a guarded pass over `steps` into the engine's
    /// result (the shared [`failure::settle`]): a failure, or a contained
    /// panic, attributed to its step with its input values.
    fn settle(&self, program: &Program, outcome: PassOutcome, steps: &[u32], context: &str) -> Result<(), EvalError> {
        let inputs = |step: &crate::program::Step| step.ins.iter().map(|&i| self.values[i as usize].clone()).collect();
        failure::settle(
            outcome,
            steps,
            |s| !self.clean.get(s) && (self.running == usize::MAX || s == self.running),
            |s, message| failure::attribute(program, s, inputs, message, context),
        )
    }

    /// Runs the stale steps among `steps` that `roots` need: every one,
    /// unless the program has `if`s (then the lazy walk, [`lazy::walk`]).
    #[inline(always)]
    fn run_steps_unguarded(
        &mut self,
        program: &Program,
        steps: &[u32],
        roots: Roots,
    ) -> Result<(), (usize, NodeError)> {
        if let Some(branches) = &program.branches {
            return lazy::walk(program, branches, steps, roots, &mut P1Walk { state: self, program });
        }
        for &s in steps {
            let s = s as usize;
            if self.clean.get(s) {
                continue;
            }
            self.run_step(program, s).map_err(|e| (s, e))?;
        }
        Ok(())
    }

    /// Runs step `s` (the `None` rule, then its node) and marks it current.
    #[inline(always)]
    fn run_step(&mut self, program: &Program, s: usize) -> Result<(), NodeError> {
        let step = &program.steps[s];
        let (before, after) = self.values.split_at_mut(step.out_start as usize);
        let outs = &mut after[..step.out_types.len()];
        if self.none_possible[s] && step.yields_none(|i| before[i as usize].is_none()) {
            outs.iter_mut().for_each(|o| *o = Value::None);
        } else {
            step.eval.eval(&Args::new(before, &step.ins), outs)?;
        }
        // A volatile step is current only until the next read re-arms it,
        // so within one read it runs once for every consumer.
        self.clean.set(s);
        Ok(())
    }

    #[inline]
    fn mark_dependents(&mut self, program: &Program, input: usize) {
        self.clean.unset_dependents(program, input);
    }
}

/// A P1 state as the lazy walk sees it.
struct P1Walk<'a> {
    state: &'a mut State,
    program: &'a Program,
}

impl WalkState for P1Walk<'_> {
    fn begin(&mut self, s: usize) {
        self.state.running = s;
    }
    fn current(&self, s: usize) -> bool {
        self.state.clean.get(s)
    }
    fn condition(&self, slot: u32) -> Option<bool> {
        crate::node::kit::value_to_slot(&self.state.values[slot as usize]).map(|word| word != 0)
    }
    fn run(&mut self, s: usize) -> Result<(), NodeError> {
        self.state.run_step(self.program, s)
    }
    fn choose(&mut self, s: usize, from: Option<u32>) -> Result<(), NodeError> {
        let step = &self.program.steps[s];
        let (before, after) = self.state.values.split_at_mut(step.out_start as usize);
        match from.filter(|&slot| !before[slot as usize].is_none()) {
            Some(slot) => step.eval.eval(&Args::new(before, &[step.ins[0], slot, slot]), &mut after[..1])?,
            None => after[0] = Value::None,
        }
        self.state.clean.set(s);
        Ok(())
    }
}

impl P1Kernel {
    /// [`Kernel::pull_word`] of this kernel.
    #[inline]
    fn pull_word_of(&mut self, out: usize) -> Result<u64, EvalError> {
        self.pull_ref(out)?;
        self.current_word(out)
    }

    /// Reads the outputs `outs` as one read and pushes each as the next row
    /// of its column.
    fn push_row(&mut self, outs: &[usize], columns: &mut [ColumnPart<'_>]) -> Result<(), EvalError> {
        self.refresh(outs)?;
        for (column, &out) in columns.iter_mut().zip(outs) {
            column.push(&self.state.values[self.program.outputs[out].slot as usize]);
        }
        Ok(())
    }
}

impl Kernel for P1Kernel {
    fn program(&self) -> &Arc<Program> {
        &self.program
    }

    fn write(&mut self, input: usize, value: Value) -> Result<(), WriteError> {
        let def = &self.program.inputs[input];
        let value = adapt_boundary(&def.name, def.ty, value)?;
        self.state.values[input] = value;
        self.state.mark_dependents(&self.program, input);
        Ok(())
    }

    #[inline]
    fn write_u64(&mut self, input: usize, value: u64) -> Result<(), WriteError> {
        match &mut self.state.values[input] {
            Value::U64(slot) => *slot = value,
            _ if self.program.inputs[input].ty != PortType::U64 => return self.write(input, Value::U64(value)),
            other => *other = Value::U64(value),
        }
        self.state.mark_dependents(&self.program, input);
        Ok(())
    }

    fn pull(&mut self, out: usize) -> Result<Value, EvalError> {
        self.pull_ref(out).cloned()
    }

    #[inline]
    fn pull_word(&mut self, out: usize) -> Result<u64, EvalError> {
        self.pull_word_of(out)
    }

    fn eval(&mut self) -> Result<Vec<Value>, EvalError> {
        let program = self.program.clone();
        init_scope(&mut Init { state: &mut self.state, program: &program }, "every output")?;
        self.state.rearm_volatile(&program);
        // The per-cycle path, as every engine walks it: the scope-init steps
        // ran above, and a step only a `const` reads is not re-run per row.
        self.state.run_steps(&program, &program.cycle_steps, Roots::Every, "every output")?;
        Ok(program.outputs.iter().map(|o| self.state.values[o.slot as usize].clone()).collect())
    }

    fn input_value(&self, input: usize) -> Value {
        self.state.values[input].clone()
    }

    /// Every step becomes stale, and the scope-init path runs again at the
    /// next read (so `const` captures are taken again from the current inputs).
    fn invalidate_all(&mut self) {
        self.state.clean.clear();
        self.state.scope_ready = false;
    }

    fn start(&mut self) -> Result<(), EvalError> {
        init_scope(&mut Init { state: &mut self.state, program: &self.program }, "scope init")
    }

    fn rows<'k>(&'k mut self, outs: &'k [usize]) -> Result<Box<dyn RowFiller + 'k>, EvalError> {
        Ok(Box::new(P1Rows { kernel: self, outs }))
    }
}

/// P1's row filler: its writes, then one read of every output (a word, or
/// the value itself pushed into its column).
struct P1Rows<'k> {
    kernel: &'k mut P1Kernel,
    outs: &'k [usize],
}

impl RowFiller for P1Rows<'_> {
    fn read_words(&mut self, values: &[u64], words: &mut [u64]) -> Result<(), GenerateError> {
        for (input, &value) in values.iter().enumerate() {
            self.kernel.write_u64(input, value).map_err(GenerateError::Write)?;
        }
        self.kernel.refresh(self.outs).map_err(GenerateError::Eval)?;
        for (word, &out) in words.iter_mut().zip(self.outs) {
            *word = self.kernel.current_word(out).map_err(GenerateError::Eval)?;
        }
        Ok(())
    }

    fn push_row(&mut self, columns: &mut [ColumnPart<'_>]) -> Result<(), EvalError> {
        self.kernel.push_row(self.outs, columns)
    }

    fn fill(&mut self, rows: &RowFill<'_>, columns: &mut [ColumnPart<'_>]) -> Result<(), GenerateError> {
        let outs = self.outs;
        fill_row_by_row(&mut *self.kernel, rows, columns, |k, columns| k.push_row(outs, columns))
    }

    fn fill_row_runs(&mut self, runs: &RowRuns<'_>, columns: &mut [ColumnPart<'_>]) -> Result<(), GenerateError> {
        let outs = self.outs;
        fill_each_row_run(&mut *self.kernel, runs, |k, rows| {
            fill_row_by_row(k, rows, &mut *columns, |k, columns| k.push_row(outs, columns))
        })
    }
}
