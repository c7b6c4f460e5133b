//! Text steps of `generate`'s sweep path run a chunk of rows at a time.
//!
//! The sweep path runs every step of a row before the next row. A text
//! step that appends to its column need not: its inputs are kept as the
//! row runs (a scalar's word, a copy of a text), and once every row of the
//! chunk has run, the step runs over all of them, then the next such step.
//! Each text step then runs its one form over many rows in a row, so its
//! code, its word lists and its column stay hot and the branches it takes
//! repeat, instead of every row passing through every step's code. The
//! values are the same: a sweep's steps are pure, and a column takes its
//! rows in order whichever step wrote them.

use crate::columns::{Appended, ColumnPart};
use crate::engine::compiled::layout::{Layout, NO_ENTRY};
use crate::engine::compiled::shape::StepFacts;
use crate::engine::compiled::slots::Slots;
use crate::engine::kernel::STOP_CHECK_ROWS;
use crate::node::by_bytes::{Arg, BytesEval};
use crate::types::PortType;

/// Most inputs of a step run a chunk at a time (its arguments sit on the stack).
const MOST_INPUTS: usize = 8;

/// Where an input of a deferred step is read in the row.
#[derive(Clone, Copy)]
enum Input {
    /// A scalar: its buffer word.
    Word(usize),
    /// A text: its pair word and scratch entry.
    Text(usize, usize),
}

/// A text step run after its chunk's rows (see the module).
pub(super) struct Deferred<'a> {
    facts: &'a StepFacts,
    form: &'a dyn BytesEval,
    ins: Box<[Input]>,
    /// The column it appends to (an index into the feeds).
    column: usize,
    /// The chunk's inputs, row `i`'s from `i * ins.len()`: a scalar's word,
    /// or where a text's copy ends in `texts` (it starts where the one
    /// kept before it ends).
    words: Box<[u64]>,
    /// The chunk's texts, back to back.
    texts: String,
}

impl<'a> Deferred<'a> {
    /// Step `facts` with its form `form`, appending to column `column`,
    /// when each input is a scalar or a text, and there are at most
    /// [`MOST_INPUTS`] (`None` otherwise).
    pub(super) fn of(
        facts: &'a StepFacts,
        form: &'a dyn BytesEval,
        column: usize,
        layout: &Layout,
    ) -> Option<Deferred<'a>> {
        if facts.io.ins.len() > MOST_INPUTS {
            return None;
        }
        let ins: Box<[Input]> = facts
            .ins
            .iter()
            .zip(facts.io.ins.iter())
            .map(|(&slot, &(word, entry))| match (entry, layout.ty[slot as usize]) {
                (NO_ENTRY, _) => Some(Input::Word(word as usize)),
                (_, PortType::Str | PortType::Json) => Some(Input::Text(word as usize, entry as usize)),
                _ => None,
            })
            .collect::<Option<_>>()?;
        let words = vec![0; ins.len() * STOP_CHECK_ROWS].into_boxed_slice();
        Some(Deferred { facts, form, ins, column, words, texts: String::new() })
    }

    /// The column it appends to (an index into the feeds).
    pub(super) fn column(&self) -> usize {
        self.column
    }

    /// The step and its form, to run within its row again.
    pub(super) fn step(&self) -> (&'a StepFacts, &'a dyn BytesEval) {
        (self.facts, self.form)
    }

    /// Keeps the inputs of row `row` of the chunk (below
    /// [`STOP_CHECK_ROWS`]; row 0 starts a chunk); false when a text
    /// cannot be kept (no memory for it).
    #[inline(always)]
    pub(super) fn keep(&mut self, row: usize, slots: &Slots) -> bool {
        if row == 0 {
            self.texts.clear();
        }
        let width = self.ins.len();
        let kept = &mut self.words[row * width..(row + 1) * width];
        for (k, input) in kept.iter_mut().zip(self.ins.iter()) {
            *k = match *input {
                Input::Word(word) => slots.buf[word],
                Input::Text(off, entry) => {
                    let Some(text) = slots.ref_text(off, entry) else { return false };
                    if self.texts.try_reserve(text.len()).is_err() {
                        return false;
                    }
                    self.texts.push_str(text);
                    self.texts.len() as u64
                }
            };
        }
        true
    }

    /// Runs the step over the chunk's first `rows` rows, appending each to
    /// `data`, the data of its column `column` moved out of it
    /// ([`ColumnPart::take_appended`]); false at the first row that fails
    /// (the column then holds the rows before it, and `data` what the
    /// failed row appended).
    pub(super) fn run(&self, rows: usize, data: &mut Appended, column: &mut ColumnPart<'_>) -> bool {
        let width = self.ins.len();
        let mut args = [Arg::Word(0); MOST_INPUTS];
        let mut text_start = 0;
        for row in 0..rows {
            let kept = &self.words[row * width..(row + 1) * width];
            for ((arg, input), &word) in args.iter_mut().zip(self.ins.iter()).zip(kept) {
                *arg = match input {
                    Input::Word(_) => Arg::Word(word),
                    Input::Text(..) => {
                        let end = word as usize;
                        let text = &self.texts[text_start..end];
                        text_start = end;
                        Arg::Text(text)
                    }
                };
            }
            if self.form.eval_bytes(&args[..width], data.sink()).is_err() {
                return false;
            }
            column.end_appended_row(data);
        }
        true
    }
}
