//! The compiled kernel, generic over its mode and its executor:
//! `CompiledKernel<Raw, X>`, `<Push, X>`, `<Pull, X>` and `<PushPull, X>` are
//! four separately compiled types for each executor `X` (P2's closures,
//! P3's native code); the mode's bookkeeping is inlined into each one's loop
//! and the executor's step form into its calls.

use super::layout::NO_ENTRY;
use super::modes::{Mode, SweepPolicy};
use super::plan::{BlockPlan, Executor, Part, Plan, RowLoop, SharedSweep};
use super::shape::StepFacts;
use super::slots::{RefSlotRefused, Slots};
use crate::columns::{Appended, ColumnPart, RowsOut};
use crate::engine::failure::{self, PassOutcome};
use crate::engine::kernel::RowRuns;
use crate::engine::kernel::{adapt_boundary, raw_read_refused, Kernel};
use crate::engine::kernel::{GenerateError, RowFill, RowFiller, STOP_CHECK_ROWS};
use crate::engine::lazy::{self, WalkState};
use crate::engine::rows::fill_each_row_run;
use crate::engine::rows::fill_row_by_row;
use crate::engine::scope_init::{init_scope, ScopeInit};
use crate::error::{EvalError, WriteError};
use crate::node::by_bytes::{BytesEval, StrTable};
use crate::node::guard::guarded;
use crate::node::{Args, NodeError};
use crate::program::branches::Roots;
use crate::program::Program;
use crate::value::Value;
use deferred::Deferred;
pub use row_read::CompiledRows;
use row_read::KeptRowRead;
use std::sync::Arc;

mod deferred;
mod row_read;

/// Rows per call of a native row loop: a stop request is seen between calls.
const NATIVE_CHUNK_ROWS: usize = 1 << 16;

/// A compiled kernel: a shared plan, one flat buffer state, and the mode's bookkeeping.
pub struct CompiledKernel<M: Mode, X: Executor> {
    plan: Arc<Plan<X>>,
    slots: Slots,
    mode: M,
    /// The scope-init path has run (since creation or the last `invalidate_all`).
    scope_ready: bool,
    /// Where the per-cycle values stand against the last sweep.
    sweep: SweepStatus,
    /// The executor's row read for the inputs written and the outputs read
    /// by the last read of raw words ([`RowFiller::read_words`], Raw), kept so a loop of
    /// the same reads finds it without asking the plan.
    row_read: Option<KeptRowRead<X>>,
    /// The row reads kept before it, most recent first (at most
    /// [`OLDER_ROW_READS`]): a loop that reads a few sets of outputs in turn
    /// finds each here rather than asking the plan (a lock and a lookup).
    older_row_reads: Vec<KeptRowRead<X>>,
}

/// How one column is fed its rows in `generate`'s sweep path
/// ([`CompiledKernel::fill_swept`]): a scalar's buffer word, a scratch
/// entry, the text its step writes into, or a pick's index.
enum ColumnFeed<'a> {
    /// A scalar output's buffer word and its type (its rows are [`StagedWords`]).
    Word { word: usize, ty: crate::types::PortType },
    /// A by-reference output's pair word and scratch entry.
    Ref { off: usize, e: usize },
    /// A by-reference output its step appends straight to the column's
    /// data (moved out of the column for the fill,
    /// [`ColumnPart::take_appended`]); its pair word and scratch entry, which
    /// it takes its rows from again once the data is given back.
    Appended { data: Appended, off: usize, e: usize },
    /// A pick among `table`'s strings ([`crate::node::NodeEval::indexed_table`])
    /// no step reads: the buffer word of its index (its rows are
    /// [`StagedWords`]: the indexes of the strings to copy into the column), and
    /// its pair word and scratch entry, which it takes its rows from again
    /// once given back.
    Table { word: usize, table: &'a StrTable, off: usize, e: usize },
}

impl ColumnFeed<'_> {
    /// The buffer word the column takes each row from, for a column whose
    /// rows are [`StagedWords`].
    fn staged_word(&self) -> Option<usize> {
        match *self {
            ColumnFeed::Word { word, .. } | ColumnFeed::Table { word, .. } => Some(word),
            ColumnFeed::Ref { .. } | ColumnFeed::Appended { .. } => None,
        }
    }

    /// Gives a [`ColumnFeed::Appended`]'s data back to `column`, and ends a
    /// [`ColumnFeed::Table`] (its staged rows already stored); either takes its
    /// rows from the scratch from then on.
    fn give_back(&mut self, column: &mut ColumnPart<'_>) {
        match self {
            ColumnFeed::Appended { data, off, e } => {
                column.put_appended(std::mem::replace(data, Appended::Bytes(Vec::new())));
                *self = ColumnFeed::Ref { off: *off, e: *e };
            }
            ColumnFeed::Table { off, e, .. } => *self = ColumnFeed::Ref { off: *off, e: *e },
            _ => {}
        }
    }
}

/// The staged words: the rows of the columns that take one buffer word a
/// row (a scalar's word, a pick's index), for one chunk of `generate`'s
/// sweep path:
/// gathered row by row into a block of one run of [`STOP_CHECK_ROWS`]
/// words per column (a tight copy of a few words), then stored column by
/// column when the chunk ends.
struct StagedWords {
    /// The buffer word of each staged column, in gather order.
    words: Vec<usize>,
    /// The column (index into the feeds) of each staged word.
    columns: Vec<usize>,
    /// The other columns, which take each row as it is made.
    per_row: Vec<usize>,
    /// The gathered words: column `j`'s rows from `j * STOP_CHECK_ROWS`.
    block: Vec<u64>,
    /// How many rows the block holds.
    filled: usize,
}

impl StagedWords {
    /// The staging of `feeds` (again after a feed is given back), the
    /// columns of `deferred` steps left out (their rows are not made in the row).
    fn of(feeds: &[ColumnFeed<'_>], deferred: &[Deferred<'_>]) -> StagedWords {
        let (mut words, mut columns, mut per_row) = (Vec::new(), Vec::new(), Vec::new());
        for (k, feed) in feeds.iter().enumerate() {
            match feed.staged_word() {
                Some(word) => {
                    words.push(word);
                    columns.push(k);
                }
                None if deferred.iter().any(|d| d.column() == k) => {}
                None => per_row.push(k),
            }
        }
        let block = vec![0; words.len() * STOP_CHECK_ROWS];
        StagedWords { words, columns, per_row, block, filled: 0 }
    }

    /// Takes the current row's words from `buf` (at most
    /// [`STOP_CHECK_ROWS`] rows between two stores).
    #[inline(always)]
    fn gather(&mut self, buf: &[u64]) {
        let row = self.filled;
        for (column, &word) in self.block.chunks_exact_mut(STOP_CHECK_ROWS).zip(&self.words) {
            column[row] = buf[word];
        }
        self.filled += 1;
    }

    /// Stores the gathered rows into their columns, and empties the block.
    fn store(&mut self, feeds: &[ColumnFeed<'_>], columns: &mut [ColumnPart<'_>]) {
        let rows = self.filled;
        for (block, &k) in self.block.chunks_exact(STOP_CHECK_ROWS).zip(&self.columns) {
            match feeds[k] {
                ColumnFeed::Word { ty, .. } => columns[k].extend_words(ty, &block[..rows]),
                ColumnFeed::Table { table, .. } => columns[k].extend_picked(table, &block[..rows]),
                ColumnFeed::Ref { .. } | ColumnFeed::Appended { .. } => {}
            }
        }
        self.filled = 0;
    }
}

/// Where the rows of `generate`'s sweep path take their input words: the
/// coordinate's values, and, for row runs ([`RowFiller::fill_row_runs`]),
/// the words the runs set, written when a run starts.
struct RowWords<'a> {
    rows: RowFill<'a>,
    /// The runs, when there are any: their input words, and where the fill is.
    runs: Option<RowRunCursor<'a>>,
    /// The coordinate's value at the row last started.
    last: u64,
}

/// The position of a fill in its runs.
struct RowRunCursor<'a> {
    fill: RowRuns<'a>,
    /// The buffer words of `fill.inputs`.
    words: Vec<usize>,
    /// The run of the next row, and that row's place in it.
    run: usize,
    at: usize,
}

impl RowWords<'_> {
    /// Writes row `row`'s words into `buf` (a new run's words as it starts).
    #[inline(always)]
    fn start(&mut self, row: usize, buf: &mut [u64], word: usize) {
        let cycle = match &mut self.runs {
            None => self.rows.cycle_of(row),
            Some(c) => {
                while c.at >= c.fill.counts[c.run] {
                    c.run += 1;
                    c.at = 0;
                }
                if c.at == 0 {
                    for (&w, &v) in c.words.iter().zip(c.fill.values_of(c.run)) {
                        buf[w] = v;
                    }
                }
                c.at += 1;
                c.fill.first.wrapping_add(((c.at - 1) as u64).wrapping_mul(c.fill.step))
            }
        };
        buf[word] = cycle;
        self.last = cycle;
    }

    /// Where the source stands ([`Self::rewind`] comes back to it).
    fn mark(&self) -> RowMark {
        let (run, at) = self.runs.as_ref().map_or((0, 0), |c| (c.run, c.at));
        RowMark { run, at, last: self.last }
    }

    /// Comes back to `mark` ([`Self::mark`]): a run already started has its
    /// words written into `buf` again, as a run's later rows find them.
    fn rewind(&mut self, mark: RowMark, buf: &mut [u64]) {
        self.last = mark.last;
        if let Some(c) = &mut self.runs {
            (c.run, c.at) = (mark.run, mark.at);
            if mark.at > 0 {
                for (&w, &v) in c.words.iter().zip(c.fill.values_of(mark.run)) {
                    buf[w] = v;
                }
            }
        }
    }
}

/// Where a [`RowWords`] stands, to come back to when a chunk is run again.
#[derive(Clone, Copy)]
struct RowMark {
    /// The run of the next row, and that row's place in it (for runs).
    run: usize,
    at: usize,
    /// The coordinate's value at the row last started.
    last: u64,
}

/// One part of a sweep as `generate`'s sweep path runs it, the by-bytes
/// form of a by-bytes step looked up once per fill.
enum FillStep<'a, R> {
    /// A native segment (scalar steps).
    Scalar(&'a R),
    /// A by-bytes step writing its scratch entry.
    Bytes(&'a StepFacts, &'a dyn BytesEval),
    /// A by-bytes step appending to the data of column `k` ([`ColumnFeed::Appended`]).
    Append(&'a StepFacts, &'a dyn BytesEval, usize),
    /// A pick step whose column takes the index ([`ColumnFeed::Table`]): the row
    /// runs on when the index word is below the table's length (otherwise
    /// the row path reports the pick's failure).
    Index(&'a StepFacts, &'a dyn BytesEval, usize, u64),
    /// A [`FillStep::Append`] step run after its chunk's rows: the row
    /// keeps its inputs (`deferred[j]`, see [`Deferred`]).
    Defer(usize),
    /// Step `s`, run by its node's rule ([`Part::Rule`]).
    Rule(usize),
    /// A by-bytes step with no by-bytes form (a bug): the row fails, and
    /// the row path reports it.
    Fails,
}

/// Where a kernel's per-cycle values stand against its last sweep (a pass
/// over every per-cycle step, see [`sweep`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SweepStatus {
    /// A coordinate changed since the last sweep (or none ran yet): a new
    /// round, every per-cycle step stale.
    Stale,
    /// The last sweep succeeded and no input changed since: every per-cycle value is current.
    Current,
    /// Until the next coordinate change, reads walk their cones by the step
    /// stamps: the last sweep failed, or an extern write dirtied part of what it made current.
    Walk,
}

impl<M: Mode, X: Executor> CompiledKernel<M, X> {
    /// A fresh kernel over `program` (builds the plan).
    pub fn new(program: &Arc<Program>) -> Self {
        Self::with_plan(Arc::new(Plan::new(program.clone())))
    }

    /// A fresh kernel over an existing plan (kernels of one program can share it).
    pub fn with_plan(plan: Arc<Plan<X>>) -> Self {
        let slots = Slots::new(&plan);
        let mode = M::new(&plan);
        CompiledKernel {
            plan,
            slots,
            mode,
            scope_ready: false,
            sweep: SweepStatus::Stale,
            row_read: None,
            older_row_reads: Vec::new(),
        }
    }

    /// The shared plan.
    pub fn plan(&self) -> &Arc<Plan<X>> {
        &self.plan
    }

    /// A copy of this state (inputs, current values, currency); its Ref pairs
    /// name its own scratch, so the two kernels never share bytes.
    pub fn fork(&self) -> Self {
        CompiledKernel {
            plan: self.plan.clone(),
            slots: self.slots.fork(&self.plan.layout),
            mode: self.mode.fork(),
            scope_ready: self.scope_ready,
            sweep: self.sweep,
            row_read: self.row_read.clone(),
            older_row_reads: self.older_row_reads.clone(),
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
        if !self.swept() && self.stale(out) {
            self.bring_current(out)?;
        }
        Ok(self.plan.program.outputs[out].slot as usize)
    }

    /// A sweep made every per-cycle value current and no input changed since
    /// (reads are then plain loads; exposed for diagnostics and tests).
    #[inline(always)]
    pub fn swept(&self) -> bool {
        M::SWEEP != SweepPolicy::Never && self.sweep == SweepStatus::Current
    }

    /// Step `step` holds its current value: a sweep made everything current,
    /// or the mode's bookkeeping says so (diagnostics and tests).
    pub fn step_is_current(&self, step: usize) -> bool {
        self.swept() || !self.mode.stale(step)
    }

    /// Output `out` needs work: its per-cycle cone is not empty (an empty one
    /// is an input passed through, or a value fixed at scope init) and the
    /// mode's cone guard does not vouch for it.
    #[inline(always)]
    fn stale(&mut self, out: usize) -> bool {
        self.plan.has_cone[out] && !self.mode.output_current(&self.plan, out)
    }

    /// The raw word of output `out` when a sweep has made every per-cycle
    /// value current and the output is a scalar (the hottest read: no cone,
    /// no guard, one load).
    #[inline(always)]
    fn swept_word(&mut self, out: usize) -> Option<u64> {
        if !self.swept() {
            return None;
        }
        let word = self.scalar_word(out)?;
        self.mode.output_done(&self.plan, out);
        Some(word)
    }

    /// Writes `values[i]` into u64 input `i`, then reads the outputs `outs`
    /// as one read of raw words ([`RowFiller::read_words`]): Raw's row read
    /// kept from the last such read when it serves, else the general path.
    #[inline]
    pub fn read_words(&mut self, values: &[u64], outs: &[usize], words: &mut [u64]) -> Result<(), GenerateError> {
        if self.read_row_kept(values, outs, words) {
            return Ok(());
        }
        self.read_words_general(values, outs, words)
    }

    /// [`Self::read_words`] when the kept row read did not serve it:
    /// a row read built for it, or the writes, then the outputs brought up
    /// to date and their words read (out of line, so the fast path stays
    /// small).
    #[inline(never)]
    fn read_words_general(&mut self, values: &[u64], outs: &[usize], words: &mut [u64]) -> Result<(), GenerateError> {
        if self.read_row_general(values, outs, words) {
            return Ok(());
        }
        for (input, &value) in values.iter().enumerate() {
            self.write_word(input, value).map_err(GenerateError::Write)?;
        }
        self.refresh(outs).map_err(GenerateError::Eval)?;
        let mut read = 0;
        if self.slots.none_free() {
            // The usual row: no slot holds `None`, so a scalar output's word
            // is its value (a loop with no call, so nothing is reloaded).
            let (out_word, buf) = (&*self.plan.out_word, &*self.slots.buf);
            let scalar =
                |out: usize| out_word.get(out).filter(|&&at| at != NO_ENTRY).and_then(|&at| buf.get(at as usize));
            for (word, &out) in words.iter_mut().zip(outs) {
                let Some(&value) = scalar(out) else { break };
                *word = value;
                read += 1;
            }
        }
        if read == outs.len().min(words.len()) {
            return Ok(());
        }
        // From the first output the loop above could not read: its refusal.
        for (word, &out) in words.iter_mut().zip(outs).skip(read) {
            *word = self.current_word(out).map_err(GenerateError::Eval)?;
        }
        Ok(())
    }

    /// Brings the outputs `outs` up to date as one read: the scope-init path
    /// if it has not run; then one sweep when the mode sweeps for a stale one
    /// among them (Raw: any; Pull: a broad cone) and the sweep succeeds;
    /// else — inside one panic guard — the stale steps of each stale one's cone.
    fn refresh(&mut self, outs: &[usize]) -> Result<(), EvalError> {
        if !self.scope_ready {
            let plan = self.plan.clone();
            let context = outs.first().map_or("every output", |&o| plan.program.outputs[o].name.as_str());
            self.scope_init(context)?;
        }
        // A mode that sweeps for every read does not look at the outputs (a
        // sweep no output needed is only wasted work).
        let sweeps = M::SWEEP != SweepPolicy::Never
            && self.sweep == SweepStatus::Stale
            && (M::sweeps_every_read(&self.plan)
                || outs.iter().any(|&o| M::sweeps_for(&self.plan, o) && self.stale(o)));
        if sweeps {
            self.mode.begin_read(&self.plan);
            sweep(&self.plan, &mut self.slots, &mut self.sweep);
        }
        if self.swept() {
            outs.iter().for_each(|&out| self.mode.output_done(&self.plan, out));
            return Ok(());
        }
        self.walk_cones(outs)
    }

    /// [`Self::refresh`] when no sweep served the read: inside one panic
    /// guard, the stale steps of each stale output's cone (its cone thread
    /// when it has one). Kept out of line, so the swept read stays small.
    #[inline(never)]
    fn walk_cones(&mut self, outs: &[usize]) -> Result<(), EvalError> {
        let plan = &*self.plan;
        let (slots, mode) = (&mut self.slots, &mut self.mode);
        let mut begun = false;
        let mut reading = usize::MAX;
        let mut running = usize::MAX;
        let outcome = guarded(|| {
            for &out in outs {
                if !plan.has_cone[out] || mode.output_current(plan, out) {
                    continue;
                }
                if !begun {
                    mode.begin_read(plan);
                    begun = true;
                }
                reading = out;
                if !cone_sweep::<M, X>(plan, slots, out) {
                    run_steps(plan, slots, mode, plan.cone(out), Roots::Output(out), &mut running)?;
                }
                mode.output_done(plan, out);
            }
            Ok(())
        });
        if reading == usize::MAX {
            return Ok(());
        }
        let context = &plan.program.outputs[reading].name;
        settle(plan, slots, mode, outcome, plan.cone(reading), running, context)
    }

    /// Makes stale output `out` current: one sweep when the mode sweeps for
    /// it and the sweep succeeds, else the stale steps of its cone.
    fn bring_current(&mut self, out: usize) -> Result<(), EvalError> {
        let plan = &*self.plan;
        self.mode.begin_read(plan);
        let swept = M::sweeps_for(plan, out) && sweep(plan, &mut self.slots, &mut self.sweep);
        if !swept && !cone_sweep::<M, X>(plan, &mut self.slots, out) {
            let roots = Roots::Output(out);
            run(plan, &mut self.slots, &mut self.mode, plan.cone(out), roots, &plan.program.outputs[out].name)?;
        }
        self.mode.output_done(plan, out);
        Ok(())
    }

    /// Runs the scope-init path (constants, `const` captures and what they
    /// read) from the inputs as they are now, by the shared protocol
    /// ([`init_scope`]); `context` names the read.
    #[cold]
    fn scope_init(&mut self, context: &str) -> Result<(), EvalError> {
        init_scope(self, context)
    }

    /// The word of output `out` when it is a scalar slot and no slot holds
    /// `None` (the raw-read fast path; `None` otherwise, whatever the reason).
    #[inline(always)]
    fn scalar_word(&self, out: usize) -> Option<u64> {
        let word = self.plan.out_word[out];
        (word != NO_ENTRY && self.slots.none_free()).then(|| self.slots.buf[word as usize])
    }

    /// A u64 write into an input that is not a u64 slot: the checked path
    /// (the value adapted to the slot's type, or refused), so a Ref pair is
    /// never overwritten by a raw word.
    #[cold]
    #[inline(never)]
    fn write_u64_checked(&mut self, input: usize, value: u64) -> Result<(), WriteError> {
        self.write(input, Value::U64(value))
    }

    /// The frame every fast `generate` path shares: the first row goes
    /// through the row path (it runs the scope-init path, and reports a
    /// failure there exactly); then, while no slot holds `None`, `fast`
    /// fills the other rows (the row path does when one does). `fast` ends
    /// with the kernel holding the last row's coordinate.
    fn fill_after_first_row(
        &mut self,
        rows: &RowFill<'_>,
        outs: &[usize],
        columns: &mut [ColumnPart<'_>],
        fast: impl FnOnce(&mut Self, &RowFill<'_>, &mut [ColumnPart<'_>]) -> Result<(), GenerateError>,
    ) -> Result<(), GenerateError> {
        self.fill_by_rows(&rows.first_rows(1), outs, columns)?;
        let rest = rows.after(1);
        match self.slots.none_free() {
            true => fast(self, &rest, columns),
            false => self.fill_by_rows(&rest, outs, columns),
        }
    }

    /// Fills `rows` one row at a time: the coordinate written, the row read
    /// as one read ([`Self::push_row`]).
    fn fill_by_rows(
        &mut self,
        rows: &RowFill<'_>,
        outs: &[usize],
        columns: &mut [ColumnPart<'_>],
    ) -> Result<(), GenerateError> {
        fill_row_by_row(self, rows, columns, |k, columns| k.push_row(outs, columns))
    }

    /// `generate`'s block path: rows (after the first, see
    /// [`Self::fill_after_first_row`]) in blocks over the block program, each
    /// value slot's rows side by side. A block that fails anywhere (an error
    /// or a panic) is redone row by row, so a failure is reported exactly as
    /// P1 reports it.
    fn fill_blocks(
        &mut self,
        block: &BlockPlan,
        rows: &RowFill<'_>,
        outs: &[usize],
        columns: &mut [ColumnPart<'_>],
    ) -> Result<(), GenerateError> {
        let plan = self.plan.clone();
        let b = block.rows;
        let mut buf = vec![0u64; plan.layout.words * b];
        for &w in block.fixed_words.iter() {
            let w = w as usize;
            buf[w * b..(w + 1) * b].fill(self.slots.buf[w]);
        }
        let coordinate = plan.u64_input_word[rows.coordinate] as usize * b;
        for first in (0..rows.count).step_by(b) {
            rows.check(columns)?;
            let block_rows = rows.after(first).first_rows(b);
            let n = block_rows.count;
            for (i, word) in buf[coordinate..coordinate + n].iter_mut().enumerate() {
                *word = block_rows.cycle_of(i);
            }
            let pass = || block.steps.iter().all(|f| f(&mut buf, n).is_ok());
            if matches!(guarded(pass), Ok(true)) {
                for (column, &out) in columns.iter_mut().zip(outs) {
                    let at = plan.out_word[out] as usize * b;
                    column.extend_words(plan.program.outputs[out].ty, &buf[at..at + n]);
                }
            } else {
                self.fill_by_rows(&block_rows, outs, columns)?;
            }
        }
        self.write_word(rows.coordinate, rows.cycle_of(rows.count - 1)).map_err(GenerateError::Write)
    }

    /// `generate`'s row-loop path: rows (after the first, see
    /// [`Self::fill_after_first_row`]) through the executor's row loop, in
    /// chunks so a stop request is seen. A chunk that fails at some row is
    /// finished row by row from that row, so the failure is reported exactly
    /// as P1 reports it.
    fn fill_native(
        &mut self,
        row_loop: &dyn RowLoop,
        rows: &RowFill<'_>,
        outs: &[usize],
        columns: &mut [ColumnPart<'_>],
    ) -> Result<(), GenerateError> {
        for first in (0..rows.count).step_by(NATIVE_CHUNK_ROWS) {
            rows.check(columns)?;
            let chunk = rows.after(first).first_rows(NATIVE_CHUNK_ROWS);
            let ahead: Option<Vec<RowsOut<'_>>> = columns.iter_mut().map(|c| c.rows_ahead()).collect();
            let done = match ahead {
                Some(ahead) => row_loop.fill(&mut self.slots.buf, chunk.first, chunk.step, chunk.count as u64, &ahead),
                None => Err(0),
            };
            let written = done.map_or_else(|row| row as usize, |()| chunk.count);
            columns.iter_mut().for_each(|c| c.advance(written));
            if written < chunk.count {
                self.fill_by_rows(&chunk.after(written), outs, columns)?;
            }
        }
        self.write_word(rows.coordinate, rows.cycle_of(rows.count - 1)).map_err(GenerateError::Write)
    }

    /// The inputs a sweep fill wrote as words (the coordinate, and the runs'
    /// inputs), told to the currency: every step reading them is stale.
    fn wrote_words(&mut self, source: &RowWords<'_>) {
        self.wrote(source.rows.coordinate);
        if let Some(c) = &source.runs {
            for &input in c.fill.inputs {
                self.wrote(input);
            }
        }
    }

    /// The sweep parts `generate` fills columns `outs` with (a narrow
    /// output's cone sweep; the sweep of the steps the columns need; the
    /// whole sweep when they need every step, or have none).
    fn columns_parts<'p>(
        plan: &'p Plan<X>,
        outs: &[usize],
        columns_sweep: &'p mut Option<SharedSweep<X::Segment>>,
    ) -> Option<&'p [Part<X::Segment>]> {
        match outs {
            [out] if !plan.broad_cone(*out) => plan.executor.cone_sweep(&plan.shape, *out),
            _ => {
                *columns_sweep = plan.executor.columns_sweep(&plan.shape, outs);
                columns_sweep.as_deref().map(|s| &s.parts[..]).or_else(|| plan.executor.sweep())
            }
        }
    }

    /// Fills row runs ([`RowFiller::fill_row_runs`]) of the outputs `outs`:
    /// one sweep fill over every run's rows, a run's input words written as
    /// it starts, when those inputs are plain u64 words no pinned step reads
    /// and the columns have a sweep; one run after another otherwise.
    pub fn fill_row_runs(
        &mut self,
        runs: &RowRuns<'_>,
        outs: &[usize],
        columns: &mut [ColumnPart<'_>],
    ) -> Result<(), GenerateError> {
        let plan = self.plan.clone();
        let words: Option<Vec<usize>> = runs
            .inputs
            .iter()
            .map(|&i| match plan.u64_input_word[i] {
                NO_ENTRY => None,
                w => plan.pinned_deps[i].is_empty().then_some(w as usize),
            })
            .collect();
        let total: usize = runs.counts.iter().sum();
        let u64_rows = total > 1 && plan.u64_input_word[runs.coordinate] != NO_ENTRY;
        let mut columns_sweep = None;
        let parts = match (words, u64_rows) {
            (Some(words), true) => Self::columns_parts(&plan, outs, &mut columns_sweep).map(|p| (words, p)),
            _ => None,
        };
        let by_runs = |k: &mut Self, runs: &RowRuns<'_>, columns: &mut [ColumnPart<'_>]| {
            fill_each_row_run(k, runs, |k, rows| k.fill_rows(rows, outs, columns))
        };
        let Some(j0) = runs.counts.iter().position(|&c| c > 0) else { return Ok(()) };
        let Some((words, parts)) = parts else { return by_runs(self, runs, columns) };
        // The first row through the row path (the scope-init, and a failure
        // there, as `fill_rows` has them), the rest swept.
        for (&input, &value) in runs.inputs.iter().zip(runs.values_of(j0)) {
            self.write_u64(input, value).map_err(GenerateError::Write)?;
        }
        self.fill_by_rows(&runs.rows_of(j0).first_rows(1), outs, columns)?;
        if !self.slots.none_free() {
            self.fill_by_rows(&runs.rows_of(j0).after(1), outs, columns)?;
            let n = runs.inputs.len();
            let rest = RowRuns { counts: &runs.counts[j0 + 1..], values: &runs.values[(j0 + 1) * n..], ..*runs };
            return by_runs(self, &rest, columns);
        }
        let rows = RowFill {
            coordinate: runs.coordinate,
            first: runs.first,
            step: runs.step,
            count: total - 1,
            stop: runs.stop,
        };
        let cursor = RowRunCursor { fill: *runs, words, run: j0, at: 1 };
        self.fill_swept(parts, RowWords { rows, runs: Some(cursor), last: runs.first }, outs, columns)
    }

    /// `generate`'s sweep path (any columns, string ones included): for each
    /// row (after the first, see [`Self::fill_after_first_row`]) the
    /// coordinate's word is set and the sweep `parts` (the whole sweep, or
    /// one output's cone sweep) run with no per-row
    /// bookkeeping, and every column takes its row from the buffer and the
    /// scratch — or, for a text output no step reads whose form appends,
    /// its step writes the row straight into the column, a chunk of rows at
    /// a time once the chunk's rows have run ([`Deferred`]). A row whose
    /// sweep fails is redone through the row path (from then on every row
    /// goes through the scratch), so a failure is reported exactly as P1
    /// reports it; a chunk with deferred steps is first taken back whole
    /// and run again with every step in its row, which finds that row.
    /// Afterwards the kernel holds the last row's coordinate, every step stale.
    fn fill_swept(
        &mut self,
        parts: &[Part<X::Segment>],
        mut source: RowWords<'_>,
        outs: &[usize],
        columns: &mut [ColumnPart<'_>],
    ) -> Result<(), GenerateError> {
        let plan = self.plan.clone();
        let rows = source.rows;
        let word = plan.u64_input_word[rows.coordinate] as usize;
        let layout = &plan.layout;
        // How each column takes a row: a scalar's word, staged and stored a
        // chunk at a time ([`StagedWords`]); a string's bytes, from its scratch entry.
        let mut feeds: Vec<ColumnFeed> = outs
            .iter()
            .map(|&o| {
                let slot = plan.program.outputs[o].slot as usize;
                let off = layout.off[slot] as usize;
                match layout.entry[slot] {
                    NO_ENTRY => ColumnFeed::Word { word: off, ty: layout.ty[slot] },
                    e => ColumnFeed::Ref { off, e: e as usize },
                }
            })
            .collect();
        let program = &plan.program;
        let mut steps: Vec<FillStep<'_, X::Segment>> = parts
            .iter()
            .map(|part| {
                let s = match part {
                    Part::Segment(run) => return FillStep::Scalar(run),
                    Part::Rule(s) => return FillStep::Rule(*s as usize),
                    Part::Bytes(s) => *s as usize,
                };
                let facts = &plan.steps[s];
                let Some(form) = plan.exec[s].bytes_form() else { return FillStep::Fails };
                // The one column taking this step's output, when no step reads it.
                let mut taking = outs.iter().enumerate().filter(|&(_, &o)| program.outputs[o].slot == facts.out_start);
                let only = match (taking.next(), taking.next()) {
                    (Some((k, _)), None) if form.appends() && !facts.io.out_read => Some(k),
                    _ => None,
                };
                let Some(k) = only else { return FillStep::Bytes(facts, form) };
                let ColumnFeed::Ref { off, e } = feeds[k] else { return FillStep::Bytes(facts, form) };
                if let (Some(table), [(word, NO_ENTRY)]) = (plan.exec[s].indexed_table(), &facts.io.ins[..]) {
                    let word = *word as usize;
                    columns[k].track_picks(table);
                    feeds[k] = ColumnFeed::Table { word, table, off, e };
                    return FillStep::Index(facts, form, word, table.len() as u64);
                }
                match columns[k].take_appended() {
                    Some(data) => {
                        feeds[k] = ColumnFeed::Appended { data, off, e };
                        FillStep::Append(facts, form, k)
                    }
                    None => FillStep::Bytes(facts, form),
                }
            })
            .collect();
        let give_back = |feeds: &mut [ColumnFeed], columns: &mut [ColumnPart<'_>]| {
            feeds.iter_mut().zip(columns.iter_mut()).for_each(|(feed, column)| feed.give_back(column));
        };
        // Text steps that append run a chunk at a time ([`Deferred`]); a
        // chunk that fails is then taken back whole, and run again with
        // every step in its row.
        let mut deferred: Vec<Deferred<'_>> = Vec::new();
        for step in steps.iter_mut() {
            if let FillStep::Append(facts, form, k) = *step {
                if let Some(d) = Deferred::of(facts, form, k, layout) {
                    *step = FillStep::Defer(deferred.len());
                    deferred.push(d);
                }
            }
        }
        let mut staged = StagedWords::of(&feeds, &deferred);
        // Each column's rows as a chunk starts (to take the chunk back to).
        let mut written: Vec<usize> = Vec::with_capacity(columns.len());
        let mut row = 0;
        while row < rows.count {
            if let Err(stopped) = rows.check(columns) {
                give_back(&mut feeds, columns);
                self.wrote_words(&source);
                return Err(stopped);
            }
            // Up to STOP_CHECK_ROWS rows under one panic guard; `row` is the
            // next row to run, so after a failure (an error or a panic) it is
            // the row that failed.
            let end = rows.count.min(row + STOP_CHECK_ROWS);
            let first_chunk = row == 0;
            let (chunk_start, mark) = (row, source.mark());
            written.clear();
            written.extend(columns.iter().map(|c| c.written()));
            let state = &mut self.slots;
            let source = &mut source;
            let staging = &mut staged;
            let deferred = &mut deferred;
            let pass = || {
                while row < end {
                    source.start(row, &mut state.buf, word);
                    let ran = steps.iter().all(|step| match *step {
                        FillStep::Scalar(run) => X::run_segment(run, &mut state.buf),
                        FillStep::Bytes(facts, form) => state.run_form(facts, form).is_ok(),
                        FillStep::Append(facts, form, k) => match &mut feeds[k] {
                            ColumnFeed::Appended { data, .. } => state.run_form_into(facts, form, data.sink()).is_ok(),
                            _ => false,
                        },
                        FillStep::Defer(j) => deferred[j].keep(row - chunk_start, state),
                        FillStep::Index(_, _, word, len) => state.buf[word] < len,
                        FillStep::Rule(s) => run_rule_part::<X>(&plan, state, s),
                        FillStep::Fails => false,
                    });
                    if !ran {
                        return false;
                    }
                    for &k in &staging.per_row {
                        match &mut feeds[k] {
                            ColumnFeed::Ref { off, e } => columns[k].push_bytes(Some(state.ref_bytes(*off, *e))),
                            ColumnFeed::Appended { data, .. } => columns[k].end_appended_row(data),
                            ColumnFeed::Word { .. } | ColumnFeed::Table { .. } => {}
                        }
                    }
                    staging.gather(&state.buf);
                    row += 1;
                }
                deferred.iter().all(|d| match &mut feeds[d.column()] {
                    ColumnFeed::Appended { data, .. } => d.run(end - chunk_start, data, &mut columns[d.column()]),
                    _ => false,
                })
            };
            let done = matches!(guarded(pass), Ok(true));
            if !done && !deferred.is_empty() {
                // Take the chunk back whole and run it again with every
                // step in its row, which finds the failed row as ever.
                for (k, feed) in feeds.iter_mut().enumerate() {
                    let data = if let ColumnFeed::Appended { data, .. } = feed { Some(data) } else { None };
                    columns[k].take_back_rows(data, written[k]);
                }
                source.rewind(mark, &mut self.slots.buf);
                row = chunk_start;
                for step in steps.iter_mut() {
                    if let FillStep::Defer(j) = *step {
                        let (facts, form) = deferred[j].step();
                        *step = FillStep::Append(facts, form, deferred[j].column());
                    }
                }
                deferred.clear();
                staged = StagedWords::of(&feeds, deferred);
                continue;
            }
            staged.store(&feeds, columns);
            if first_chunk && done {
                // Room for the rest of the rows, at the first chunk's size.
                for (feed, column) in feeds.iter_mut().zip(columns.iter_mut()) {
                    let data = if let ColumnFeed::Appended { data, .. } = feed { Some(data) } else { None };
                    column.reserve_rows_like_so_far(data, rows.count - row);
                }
            }
            if !done {
                // The row path writes to the columns: every text goes back
                // first (without the failed row's part), and stays there.
                give_back(&mut feeds, columns);
                staged = StagedWords::of(&feeds, deferred);
                for step in steps.iter_mut() {
                    if let FillStep::Append(facts, form, _) | FillStep::Index(facts, form, ..) = *step {
                        *step = FillStep::Bytes(facts, form);
                    }
                }
                // The kernel learns of the write, so the row path recomputes the row.
                self.wrote_words(source);
                let failed = RowFill { first: source.last, count: 1, ..rows };
                self.fill_by_rows(&failed, outs, columns)?;
                row += 1;
            }
        }
        give_back(&mut feeds, columns);
        // What the sweeps left is the last row's, but the currency does not know it.
        self.wrote_words(&source);
        Ok(())
    }

    /// `write_u64` in a mode that does not compare, off its fastest path
    /// (an input with pinned dependents, an extern, a state holding `None`,
    /// or an input that is not a u64 slot, which takes the checked path);
    /// kept out of line, so the coordinate write stays small.
    #[inline(never)]
    fn write_u64_uncompared(&mut self, input: usize, value: u64) -> Result<(), WriteError> {
        match self.plan.u64_input_word[input] {
            NO_ENTRY => self.write_u64_checked(input, value),
            word => {
                self.slots.store_u64(input, word as usize, value);
                self.wrote(input);
                Ok(())
            }
        }
    }

    /// Stores a changed u64 input (the comparing modes' write path).
    #[inline(never)]
    fn store_changed_u64(&mut self, input: usize, word: usize, value: u64) {
        self.slots.store_u64(input, word, value);
        self.wrote(input);
    }

    /// Input `input` was written (and, when the mode compares, changed): a
    /// coordinate starts a new round; an extern write dirties exactly its
    /// dependents, so what a sweep made current is first recorded step by step.
    #[inline(always)]
    fn wrote(&mut self, input: usize) {
        let plan = &*self.plan;
        if input < plan.coord_count {
            self.sweep = SweepStatus::Stale;
        } else if self.sweep == SweepStatus::Current {
            self.mode.adopt_sweep(plan);
            self.sweep = SweepStatus::Walk;
        }
        self.mode.wrote(plan, input);
    }

    /// The raw word of current output `out`, or the refusal of a `None` or
    /// by-reference output.
    #[inline(always)]
    fn current_word(&self, out: usize) -> Result<u64, EvalError> {
        match self.scalar_word(out) {
            Some(word) => Ok(word),
            None => self.refused_word(out),
        }
    }

    /// [`Self::current_word`] when the fast path could not give the word: a
    /// scalar slot while some slot holds `None`; otherwise the refusal.
    #[cold]
    fn refused_word(&self, out: usize) -> Result<u64, EvalError> {
        let (layout, slot) = (&self.plan.layout, self.plan.program.outputs[out].slot as usize);
        match self.slots.read_u64(layout, slot, "") {
            Ok(Some(word)) => Ok(word),
            _ => Err(raw_read_refused(&self.plan.program, out, &self.slots.decode(layout, slot).unwrap_or_default())),
        }
    }

    /// Pulls output `out` as a raw word: `Ok(None)` for a `None` value; a Ref
    /// (`str`/`bytes`/`json`) output is refused (axiom S2), never read as a pointer.
    #[inline]
    pub fn pull_u64(&mut self, out: usize) -> Result<Option<u64>, SlotReadError> {
        if let Some(word) = self.swept_word(out) {
            return Ok(Some(word));
        }
        let slot = self.pull_value_slot(out).map_err(SlotReadError::Eval)?;
        if let Some(word) = self.scalar_word(out) {
            return Ok(Some(word));
        }
        let name = &self.plan.program.outputs[out].name;
        self.slots.read_u64(&self.plan.layout, slot, name).map_err(SlotReadError::Refused)
    }
}

/// The sweep (Raw, and Pull on a broad cone; a sweepable plan only): unless
/// a sweep already made every per-cycle value current, runs every per-cycle
/// step once, in order, with no per-step bookkeeping. True when every
/// per-cycle value is current afterwards.
///
/// Every step of a sweepable plan is a pure closure, so computing values
/// outside the pulled cone is unobservable — except a failure. A sweep that
/// fails (an error or a panic anywhere) therefore reports `false`, and the
/// read walks its own cone instead, which fails or not exactly as P1 does;
/// reads keep walking cones until an input changes.
#[inline(always)]
fn sweep<X: Executor>(plan: &Plan<X>, slots: &mut Slots, state: &mut SweepStatus) -> bool {
    if *state != SweepStatus::Stale {
        return *state == SweepStatus::Current;
    }
    let Some(parts) = plan.executor.sweep() else { return false };
    if !slots.none_free() {
        return false;
    }
    let swept = run_parts(plan, slots, parts);
    *state = if swept { SweepStatus::Current } else { SweepStatus::Walk };
    swept
}

/// Runs the parts of a sweep in order over a state with no `None` in it:
/// each native segment in the executor's form, each by-bytes step over the
/// scratch; inside one panic guard. True when every step succeeded.
#[inline(always)]
pub fn run_parts<X: Executor>(plan: &Plan<X>, slots: &mut Slots, parts: &[Part<X::Segment>]) -> bool {
    // Native code that cannot panic needs no guard (the hottest read: a sweep
    // that is one native function, called from the read itself).
    if let [Part::Segment(run)] = parts {
        if !X::may_panic(run) {
            return X::run_segment(run, &mut slots.buf);
        }
    }
    run_parts_guarded(plan, slots, parts)
}

/// [`run_parts`] inside the panic guard (kept out of line, so the read that
/// calls one native function stays small).
#[inline(never)]
fn run_parts_guarded<X: Executor>(plan: &Plan<X>, slots: &mut Slots, parts: &[Part<X::Segment>]) -> bool {
    matches!(guarded(|| run_parts_unguarded(plan, slots, parts)), Ok(true))
}

/// [`run_parts`] without the panic guard (its caller holds one).
#[inline(always)]
fn run_parts_unguarded<X: Executor>(plan: &Plan<X>, slots: &mut Slots, parts: &[Part<X::Segment>]) -> bool {
    parts.iter().all(|part| match part {
        Part::Segment(run) => X::run_segment(run, &mut slots.buf),
        Part::Bytes(s) => {
            let s = *s as usize;
            slots.run_bytes(&plan.steps[s], &plan.exec[s]).is_ok()
        }
        Part::Rule(s) => run_rule_part(plan, slots, *s as usize),
    })
}

/// Runs step `s` of a sweep by its node's rule; true when it succeeded and
/// yielded no `None` (native code after it reads words, which carry no
/// absent value: the read walks its cone instead, by the `None` rule).
#[inline]
fn run_rule_part<X: Executor>(plan: &Plan<X>, slots: &mut Slots, s: usize) -> bool {
    slots.run_step::<X>(&plan.layout, &plan.steps[s], &plan.exec[s]).is_ok() && slots.none_free()
}

/// The cone sweep (Pull — and Raw when its sweep runs string steps — on a
/// selective cone of a sweepable plan): runs every
/// step of output `out`'s per-cycle cone once, in order, with no per-step
/// bookkeeping. True when it ran and succeeded; after a failure (an error or
/// a panic) the read walks the cone instead, which fails exactly as P1 does.
#[inline]
fn cone_sweep<M: Mode, X: Executor>(plan: &Plan<X>, slots: &mut Slots, out: usize) -> bool {
    // Pull's way for a selective cone; Raw's too when its sweep is costly.
    let selective = match M::SWEEP {
        SweepPolicy::Never => false,
        SweepPolicy::BroadCones => true,
        SweepPolicy::Always => plan.costly_sweep,
    };
    if !selective || !slots.none_free() {
        return false;
    }
    plan.executor.cone_sweep(&plan.shape, out).is_some_and(|parts| run_parts(plan, slots, parts))
}

/// Runs the stale steps among `steps` (ascending) that `roots` need; node
/// panics are contained and every failure is attributed as P1 attributes it.
fn run<M: Mode, X: Executor>(
    plan: &Plan<X>,
    slots: &mut Slots,
    mode: &mut M,
    steps: &[u32],
    roots: Roots,
    context: &str,
) -> Result<(), EvalError> {
    let mut running = usize::MAX;
    let outcome = guarded(|| run_steps(plan, &mut *slots, &mut *mode, steps, roots, &mut running));
    settle(plan, slots, mode, outcome, steps, running, context)
}

/// Turns the outcome of a guarded pass over `steps` into the engine's result
/// (the shared [`failure::settle`]), attributing a failure (or a contained
/// panic) as P1 does, with the step's input values decoded from the slots.
/// `running` is the step a lazy walk was running (`usize::MAX`: none, or the
/// plain walk), which a contained panic is attributed to.
#[inline(always)]
fn settle<M: Mode, X: Executor>(
    plan: &Plan<X>,
    slots: &Slots,
    mode: &M,
    outcome: PassOutcome,
    steps: &[u32],
    running: usize,
    context: &str,
) -> Result<(), EvalError> {
    #[cfg(debug_assertions)]
    assert!(slots.pairs_are_own(&plan.layout), "S9: a Ref pair names a foreign scratch entry");
    if matches!(outcome, Ok(Ok(()))) {
        return Ok(());
    }
    failure::settle(
        outcome,
        steps,
        |s| mode.stale(s) && (running == usize::MAX || s == running),
        |s, message| {
            let inputs = |_: &crate::program::Step| slots.input_values(&plan.layout, &plan.steps[s]);
            failure::attribute(&plan.program, s, inputs, message, context)
        },
    )
}

/// The eval loop: one pass over `steps`, each stale step run once — the
/// lazy walk ([`lazy::walk`]) for `roots` when the program has `if`s, which
/// records the step it runs in `running`.
#[inline(always)]
fn run_steps<M: Mode, X: Executor>(
    plan: &Plan<X>,
    slots: &mut Slots,
    mode: &mut M,
    steps: &[u32],
    roots: Roots,
    running: &mut usize,
) -> Result<(), (usize, NodeError)> {
    if let Some(branches) = &plan.program.branches {
        return lazy::walk(&plan.program, branches, steps, roots, &mut CompiledWalk { plan, slots, mode, running });
    }
    for &s in steps {
        let s = s as usize;
        if !mode.stale(s) {
            continue;
        }
        slots.run_step::<X>(&plan.layout, &plan.steps[s], &plan.exec[s]).map_err(|e| (s, e))?;
        mode.ran(plan, s);
    }
    Ok(())
}

/// A compiled kernel's state as the lazy walk sees it.
struct CompiledWalk<'a, M: Mode, X: Executor> {
    plan: &'a Plan<X>,
    slots: &'a mut Slots,
    mode: &'a mut M,
    running: &'a mut usize,
}

impl<M: Mode, X: Executor> WalkState for CompiledWalk<'_, M, X> {
    fn begin(&mut self, s: usize) {
        *self.running = s;
    }
    fn current(&self, s: usize) -> bool {
        !self.mode.stale(s)
    }
    fn condition(&self, slot: u32) -> Option<bool> {
        let slot = slot as usize;
        match self.slots.is_none(slot) {
            true => None,
            false => Some(self.slots.buf[self.plan.layout.off[slot] as usize] != 0),
        }
    }
    fn run(&mut self, s: usize) -> Result<(), NodeError> {
        let plan = self.plan;
        self.slots.run_step::<X>(&plan.layout, &plan.steps[s], &plan.exec[s])?;
        self.mode.ran(plan, s);
        Ok(())
    }
    fn choose(&mut self, s: usize, from: Option<u32>) -> Result<(), NodeError> {
        let (plan, step) = (self.plan, &self.plan.program.steps[s]);
        let layout = &plan.layout;
        let mut out = [Value::None];
        if let Some(slot) = from.filter(|&slot| !self.slots.is_none(slot as usize)) {
            let ins = [self.slots.decode(layout, step.ins[0] as usize)?, self.slots.decode(layout, slot as usize)?];
            step.eval.eval(&Args::new(&ins, &[0, 1, 1]), &mut out)?;
        }
        self.slots.encode(layout, step.out_start as usize, &out[0])?;
        self.mode.ran(plan, s);
        Ok(())
    }
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

impl<M: Mode, X: Executor> ScopeInit for CompiledKernel<M, X> {
    fn scope_ready(&self) -> bool {
        self.scope_ready
    }
    fn run_init_path(&mut self, context: &str) -> Result<(), EvalError> {
        let plan = &*self.plan;
        self.mode.begin_read(plan);
        run(plan, &mut self.slots, &mut self.mode, &plan.program.scope_init_steps, Roots::ScopeInit, context)
    }
    fn forget_init(&mut self) {
        self.mode.invalidate_all();
    }
    fn init_done(&mut self) {
        self.mode.scope_init_done(&self.plan);
        self.scope_ready = true;
    }
}

impl<M: Mode, X: Executor> Clone for CompiledKernel<M, X> {
    fn clone(&self) -> Self {
        self.fork()
    }
}

/// The kernel's writes and reads beneath [`Kernel`]'s: the u64 write, raw
/// word reads and `generate`'s row paths ([`CompiledRows`] runs them).
impl<M: Mode, X: Executor> CompiledKernel<M, X> {
    /// Writes a u64 into input `input` ([`Kernel::write_u64`]).
    #[inline]
    pub fn write_word(&mut self, input: usize, value: u64) -> Result<(), WriteError> {
        // The modes that do not compare, writing a coordinate no pinned step
        // depends on into a state with no `None`: the word and a new round,
        // nothing else to look at.
        if !M::COMPARES {
            let word = self.plan.plain_coordinate_word.get(input).copied().unwrap_or(NO_ENTRY);
            if word != NO_ENTRY && self.slots.none_free() {
                self.slots.buf[word as usize] = value;
                self.sweep = SweepStatus::Stale;
                self.mode.wrote_plain_coordinate(&self.plan, input);
                return Ok(());
            }
            return self.write_u64_uncompared(input, value);
        }
        let word = self.plan.u64_input_word[input];
        if word == NO_ENTRY {
            return self.write_u64_checked(input, value);
        }
        // The comparing modes mostly see equal values: keep that path
        // free of the bookkeeping a change needs.
        if self.slots.holds_u64(input, word as usize, value) {
            return Ok(());
        }
        self.store_changed_u64(input, word as usize, value);
        Ok(())
    }

    /// Reads output `out` as its raw word ([`Kernel::pull_word`]).
    #[inline]
    pub fn pull_word_of(&mut self, out: usize) -> Result<u64, EvalError> {
        if let Some(word) = self.swept_word(out) {
            return Ok(word);
        }
        self.pull_value_slot(out)?;
        self.current_word(out)
    }

    /// Fills `rows` of the outputs `outs` ([`RowFiller::fill`]): the
    /// executor's native row loop, else blocks through the block program
    /// (a u64 coordinate and scalar columns), else a sweep per row (an
    /// output's cone, the columns' steps, or the whole sweep), else row by row.
    pub fn fill_rows(
        &mut self,
        rows: &RowFill<'_>,
        outs: &[usize],
        columns: &mut [ColumnPart<'_>],
    ) -> Result<(), GenerateError> {
        let plan = self.plan.clone();
        let u64_rows = rows.count > 1 && plan.u64_input_word[rows.coordinate] != NO_ENTRY;
        let scalar = u64_rows && outs.iter().all(|&o| plan.out_word[o] != NO_ENTRY);
        if scalar {
            if let Some(row_loop) = plan.executor.row_loop(&plan.shape, rows, outs, &self.slots.buf) {
                return self.fill_after_first_row(rows, outs, columns, |k, rest, columns| {
                    k.fill_native(&*row_loop, rest, outs, columns)
                });
            }
            if let Some(block) = plan.block() {
                return self.fill_after_first_row(rows, outs, columns, |k, rest, columns| {
                    k.fill_blocks(block, rest, outs, columns)
                });
            }
        }
        let mut columns_sweep = None;
        let parts = match u64_rows {
            true => Self::columns_parts(&plan, outs, &mut columns_sweep),
            false => None,
        };
        match parts {
            Some(parts) => self.fill_after_first_row(rows, outs, columns, |k, rest, columns| {
                k.fill_swept(parts, RowWords { rows: *rest, runs: None, last: rest.first }, outs, columns)
            }),
            None => self.fill_by_rows(rows, outs, columns),
        }
    }

    /// Reads the outputs `outs` as one read and pushes each as the next row
    /// of its column ([`RowFiller::push_row`]).
    #[inline]
    pub fn push_row(&mut self, outs: &[usize], columns: &mut [ColumnPart<'_>]) -> Result<(), EvalError> {
        self.refresh(outs)?;
        let (layout, program) = (&self.plan.layout, &self.plan.program);
        for (column, &out) in columns.iter_mut().zip(outs) {
            match self.scalar_word(out) {
                Some(word) => column.push_word(program.outputs[out].ty, word),
                None => self.slots.push_into(layout, program.outputs[out].slot as usize, column),
            }
        }
        Ok(())
    }
}

impl<M: Mode, X: Executor> Kernel for CompiledKernel<M, X> {
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
        let copied = self.slots.encode(&plan.layout, input, &value);
        let failed =
            copied.is_err().then(|| WriteError::OutOfMemory { slot: def.name.clone(), bytes: value.payload_len() });
        self.wrote(input);
        failed.map_or(Ok(()), Err)
    }

    #[inline]
    fn write_u64(&mut self, input: usize, value: u64) -> Result<(), WriteError> {
        self.write_word(input, value)
    }

    fn pull(&mut self, out: usize) -> Result<Value, EvalError> {
        let slot = self.pull_value_slot(out)?;
        self.slots.decode(&self.plan.layout, slot).map_err(|e| failure::copy_failed(&self.plan.program, out, e))
    }

    #[inline]
    fn pull_word(&mut self, out: usize) -> Result<u64, EvalError> {
        self.pull_word_of(out)
    }

    fn eval(&mut self) -> Result<Vec<Value>, EvalError> {
        if !self.scope_ready {
            self.scope_init("every output")?;
        }
        let plan = &*self.plan;
        self.mode.begin_read(plan);
        // Every output at once: the modes that sweep do (every cone is read).
        let swept = M::SWEEP != SweepPolicy::Never && sweep(plan, &mut self.slots, &mut self.sweep);
        if !swept {
            run(plan, &mut self.slots, &mut self.mode, &plan.program.cycle_steps, Roots::Every, "every output")?;
        }
        for o in 0..plan.program.outputs.len() {
            self.mode.output_done(plan, o);
        }
        let decode = |(out, o): (usize, &crate::program::OutputDef)| {
            self.slots.decode(&plan.layout, o.slot as usize).map_err(|e| failure::copy_failed(&plan.program, out, e))
        };
        plan.program.outputs.iter().enumerate().map(decode).collect()
    }

    /// (An input whose copy cannot be had reads as `None`.)
    fn input_value(&self, input: usize) -> Value {
        self.slots.decode(&self.plan.layout, input).unwrap_or_default()
    }

    /// Every step becomes stale, and the scope-init path runs again at the
    /// next read (`const` captures are taken again from the current inputs).
    fn invalidate_all(&mut self) {
        self.mode.invalidate_all();
        self.scope_ready = false;
        self.sweep = SweepStatus::Stale;
    }

    fn start(&mut self) -> Result<(), EvalError> {
        match self.scope_ready {
            true => Ok(()),
            false => self.scope_init("scope init"),
        }
    }

    fn rows<'k>(&'k mut self, outs: &'k [usize]) -> Result<Box<dyn RowFiller + 'k>, EvalError> {
        Ok(Box::new(CompiledRows::new(self, outs)))
    }
}
