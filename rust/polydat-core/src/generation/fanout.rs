//! One-to-many rows: the table of a workload phase with one level of
//! parents, where each parent (a value of a range) has a scope of its own
//! and that scope says how many rows it has (`for_each: "order in
//! 0..{orders}"`, `cycles: "{lines}"`).
//!
//! The phase's bindings are one program whose iteration inputs are the
//! parent's value, its `ordinal` (its position among the parents) and its
//! `row_offset` (the rows of the parents before it). One kernel per worker
//! runs every parent it is given: the three inputs are written (and the
//! scope-init run again when the program captures consts), the row count is
//! read, then the rows are filled with the coordinate sweeping the count.
//! The rows are the ones binding one scope per parent would give, in order;
//! there is no kernel per parent.
//!
//! Rows come a batch at a time ([`FanOut::next_batch`]): a batch is a run of
//! whole parents. Its parents are cut into contiguous tasks shared out among
//! the workers ([`workers::run_shared`]) twice — once to read every parent's
//! count (a task's counts in one fill of the count's output, a row per
//! parent, when the count is an unsigned output read in parallel), then,
//! the counts summed into row offsets, to fill each task's rows straight
//! into its part of the batch's columns. The columns are the same on any
//! number of threads.

use super::workers;
use crate::columns::{Column, ColumnPart, PartDone, VarRows};
use crate::engine::{GenerateError, Kernel, KernelMaker, RowFill, RowRuns, Stop, STOP_CHECK_ROWS};
use crate::program::{ColumnSource, Program};
use crate::types::PortType;
use crate::value::Value;
use std::sync::Arc;

/// How many rows each parent has.
#[derive(Clone, Debug)]
pub enum RowCount {
    /// The same rows for every parent: the coordinate sweeps `start..start + rows`.
    Fixed {
        /// The coordinate's value at a parent's first row.
        start: u64,
        /// Rows per parent.
        rows: u64,
    },
    /// Read per parent from a column of the program (an output, or an
    /// input bound from an outer scope), evaluated with the coordinate at
    /// its first value: the coordinate sweeps `0..count`.
    PerParent {
        /// Where the count is read.
        source: ColumnSource,
        /// Its name, for errors.
        name: String,
    },
}

/// What a [`FanOut`] runs.
#[derive(Clone, Debug)]
pub struct FanOutPlan {
    /// The iteration input taking the parent's value.
    pub parent: usize,
    /// The iteration input taking the parent's position among all the parents (from 0).
    pub ordinal: usize,
    /// The iteration input taking the rows of the parents before it.
    pub row_offset: usize,
    /// The parents' values: `first`, `first + step`, ... (`parents` of them).
    pub first: u64,
    /// See `first`.
    pub step: u64,
    /// Number of parents.
    pub parents: usize,
    /// The position (`ordinal`) of the first parent: the parents before it
    /// belong to another part of the table.
    pub first_ordinal: u64,
    /// The rows before the first parent (its `row_offset`).
    pub first_row: u64,
    /// Each parent's rows.
    pub count: RowCount,
    /// The coordinate the rows sweep (`None`: the program has none, and
    /// every row of a parent reads the same values).
    pub coordinate: Option<usize>,
}

impl FanOutPlan {
    /// True when a parent's count reads its `row_offset`: the counts are
    /// then read one parent after another, each knowing the rows before it.
    fn count_reads_offset(&self, program: &Program) -> bool {
        match &self.count {
            RowCount::Fixed { .. } => false,
            RowCount::PerParent { source: ColumnSource::Input(i), .. } => *i == self.row_offset,
            RowCount::PerParent { source: ColumnSource::Output(o), .. } => {
                program.outputs[*o].step.is_some_and(|s| program.provenance[s as usize].contains(self.row_offset))
            }
        }
    }
}

/// Rows per batch before the first batch has measured a parent's rows.
const GUESSED_ROWS_PER_PARENT: usize = 4;

/// The parents of a task.
#[derive(Clone, Copy, Debug)]
struct Parents {
    /// The first parent's index (from 0, among the plan's parents).
    first: usize,
    /// How many.
    count: usize,
}

/// The rows of a one-to-many phase, a batch at a time (see the module).
pub struct FanOut {
    program: Arc<Program>,
    maker: KernelMaker,
    plan: FanOutPlan,
    sources: Vec<ColumnSource>,
    outputs: Vec<usize>,
    threads: usize,
    batch_rows: usize,
    /// Run the scope-init again for each parent: the program has `const`
    /// captures, which a write does not make stale.
    reinit: bool,
    kernels: Vec<Box<dyn Kernel>>,
    /// Parents done.
    done: usize,
    /// Rows done (the next parent's `row_offset`, less the plan's `first_row`).
    rows_done: u64,
    /// Per variable-size column, the emptied buffers of the last batch's parts.
    spare_var: Vec<Vec<VarRows>>,
}

impl std::fmt::Debug for FanOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FanOut").field("plan", &self.plan).field("threads", &self.threads).finish()
    }
}

impl FanOut {
    /// The rows of `plan`, columns `sources`, on up to `threads` workers
    /// whose kernels `maker` makes, about `batch_rows` rows a batch (whole
    /// parents: a batch holds at least one).
    pub fn new(
        program: &Arc<Program>,
        maker: KernelMaker,
        plan: FanOutPlan,
        sources: &[ColumnSource],
        threads: usize,
        batch_rows: usize,
    ) -> FanOut {
        let outputs = sources.iter().filter_map(|s| if let ColumnSource::Output(o) = s { Some(*o) } else { None });
        FanOut {
            program: program.clone(),
            maker,
            plan,
            outputs: outputs.collect(),
            sources: sources.to_vec(),
            threads: threads.max(1),
            batch_rows: batch_rows.max(1),
            reinit: program.steps.iter().any(|s| s.capture),
            kernels: Vec::new(),
            done: 0,
            rows_done: 0,
            spare_var: sources.iter().map(|_| Vec::new()).collect(),
        }
    }

    /// The declared type of each column, in order.
    pub fn types(&self) -> Vec<PortType> {
        self.sources.iter().map(|s| column_type(&self.program, *s)).collect()
    }

    /// Per column: whether a row of it can hold `None` (see
    /// [`Program::may_be_none`]). The inputs the rows write (the parent,
    /// its ordinal and row offset, the coordinate) never do; every other
    /// input holds through the run what a kernel made for it holds now.
    pub fn may_be_none(&self) -> Vec<bool> {
        let kernel = (self.maker)();
        let written =
            [Some(self.plan.parent), Some(self.plan.ordinal), Some(self.plan.row_offset), self.plan.coordinate];
        let inputs: Vec<bool> = (0..self.program.inputs.len())
            .map(|i| !written.contains(&Some(i)) && kernel.input_value(i).is_none())
            .collect();
        self.program.may_be_none(&inputs, &self.sources)
    }

    /// The rows of every parent, without filling any: what the parts of a
    /// table before this one hold (their sum is a later part's `first_row`).
    pub fn count_all(&mut self, stop: &Stop<'_>) -> Result<u64, GenerateError> {
        let all = Parents { first: 0, count: self.plan.parents };
        let counts = self.counts(all, stop)?;
        Ok(counts.iter().sum())
    }

    /// The next batch of rows (`None` once every parent is done); after an
    /// error the stream is over.
    pub fn next_batch(&mut self, stop: &Stop<'_>) -> Option<Result<Vec<Column>, GenerateError>> {
        if self.done >= self.plan.parents {
            return None;
        }
        let per_parent = match (&self.plan.count, self.done) {
            (RowCount::Fixed { rows, .. }, _) => (*rows as usize).max(1),
            (_, 0) => GUESSED_ROWS_PER_PARENT,
            (_, done) => (self.rows_done as usize).div_ceil(done).max(1),
        };
        let count = (self.batch_rows / per_parent).clamp(1, self.plan.parents - self.done);
        let batch = Parents { first: self.done, count };
        let result = self.batch(batch, stop);
        match &result {
            Ok((_, rows)) => {
                self.done += count;
                self.rows_done += rows;
            }
            Err(_) => {
                self.done = self.plan.parents;
                // A kernel that stopped part-way holds that parent's state.
                self.kernels.clear();
            }
        }
        Some(result.map(|(columns, _)| columns))
    }

    /// Makes sure there is a kernel for each worker.
    fn ready(&mut self) {
        while self.kernels.len() < self.threads {
            self.kernels.push((self.maker)());
        }
    }

    /// `parents` cut into contiguous tasks, about `rows` rows in all.
    fn tasks(&self, parents: Parents, rows: usize) -> Vec<Parents> {
        let tasks = workers::task_count(rows, self.threads).min(parents.count).max(1);
        let size = parents.count.div_ceil(tasks);
        (0..tasks)
            .map(|t| Parents {
                first: parents.first + t * size,
                count: size.min(parents.count.saturating_sub(t * size)),
            })
            .filter(|p| p.count > 0)
            .collect()
    }

    /// The row count of each of `parents`, in order.
    fn counts(&mut self, parents: Parents, stop: &Stop<'_>) -> Result<Vec<u64>, GenerateError> {
        if let RowCount::Fixed { rows, .. } = self.plan.count {
            return Ok(vec![rows; parents.count]);
        }
        self.ready();
        // A count that reads the rows before its parent needs them known:
        // one task, the offsets summed as it goes.
        let sequential = self.plan.count_reads_offset(&self.program);
        let tasks = match sequential {
            true => vec![parents],
            false => self.tasks(parents, parents.count),
        };
        let (plan, reinit, first_offset) = (&self.plan, self.reinit, self.plan.first_row.wrapping_add(self.rows_done));
        let run = |_: usize, kernel: &mut Box<dyn Kernel>, task: Parents| -> Result<Vec<u64>, GenerateError> {
            if !sequential && !reinit {
                if let Some(counts) = counts_in_one_fill(plan, kernel.as_mut(), task, stop) {
                    return Ok(counts);
                }
            }
            let mut counts = Vec::with_capacity(task.count);
            let mut offset = first_offset;
            for i in task.first..task.first + task.count {
                if (i - task.first) % STOP_CHECK_ROWS == 0 && stop.requested() {
                    return Err(GenerateError::Cancelled);
                }
                // Read in parallel, a count does not read the offset (0 here).
                enter(plan, reinit, kernel.as_mut(), i, if sequential { offset } else { 0 })?;
                let n = count_of(plan, kernel.as_mut())?;
                offset = offset.wrapping_add(n);
                counts.push(n);
            }
            Ok(counts)
        };
        let mut counts = Vec::with_capacity(parents.count);
        for outcome in workers::run_shared(&mut self.kernels, tasks, &run, &trouble) {
            match outcome {
                Some(result) => counts.extend(result?),
                None => return Err(GenerateError::Panicked),
            }
        }
        Ok(counts)
    }

    /// The columns of `parents`' rows, and how many rows that is.
    fn batch(&mut self, parents: Parents, stop: &Stop<'_>) -> Result<(Vec<Column>, u64), GenerateError> {
        let counts = self.counts(parents, stop)?;
        let rows: u64 = counts.iter().sum();
        let total = usize::try_from(rows).map_err(|_| GenerateError::OutOfMemory { rows: usize::MAX, columns: 1 })?;
        self.ready();
        let tasks = self.tasks(parents, total);
        // Each task's rows, and the row offset of each of its parents.
        let mut task_rows = Vec::with_capacity(tasks.len());
        let mut offsets = Vec::with_capacity(parents.count);
        let mut at = self.plan.first_row.wrapping_add(self.rows_done);
        for task in &tasks {
            let mut n = 0u64;
            for &c in &counts[task.first - parents.first..task.first - parents.first + task.count] {
                offsets.push(at);
                at = at.wrapping_add(c);
                n += c;
            }
            task_rows.push(n as usize);
        }
        let program = self.program.clone();
        let mut columns: Vec<Column> = self
            .sources
            .iter()
            .map(|s| Column::new(column_type(&program, *s), total))
            .collect::<Option<_>>()
            .ok_or(GenerateError::OutOfMemory { rows: total, columns: self.sources.len() })?;
        let mut shares: Vec<Vec<ColumnPart<'_>>> = tasks.iter().map(|_| Vec::with_capacity(columns.len())).collect();
        for (column, spare) in columns.iter_mut().zip(self.spare_var.iter_mut()) {
            for (share, part) in shares.iter_mut().zip(column.split_reusing(&task_rows, spare)) {
                share.push(part);
            }
        }
        let work: Vec<(Parents, Vec<ColumnPart<'_>>)> = tasks.into_iter().zip(shares).collect();
        let (plan, reinit, sources, outputs) = (&self.plan, self.reinit, &self.sources[..], &self.outputs[..]);
        let (counts, offsets) = (&counts[..], &offsets[..]);
        let run = |_: usize,
                   kernel: &mut Box<dyn Kernel>,
                   (task, parts): (Parents, Vec<ColumnPart<'_>>)|
         -> Result<Vec<PartDone>, GenerateError> {
            let at = task.first - parents.first;
            let rows = Rows { counts: &counts[at..at + task.count], offsets: &offsets[at..at + task.count], stop };
            fill_task(plan, reinit, kernel.as_mut(), task, rows, sources, outputs, parts)
        };
        let mut by_column: Vec<Vec<PartDone>> = (0..self.sources.len()).map(|_| Vec::new()).collect();
        for outcome in workers::run_shared(&mut self.kernels, work, &run, &trouble) {
            let parts = outcome.ok_or(GenerateError::Panicked)??;
            for (c, part) in parts.into_iter().enumerate() {
                by_column[c].push(part);
            }
        }
        let owned = columns.into_iter().zip(by_column).enumerate().map(|(c, (column, parts))| (c, column, parts));
        let mut absorbed = super::generate::absorb_all(owned.collect(), self.threads)?;
        absorbed.sort_by_key(|(c, _, _)| *c);
        let mut out = Vec::with_capacity(absorbed.len());
        for (c, column, spare) in absorbed {
            self.spare_var[c] = spare;
            out.push(column);
        }
        Ok((out, rows))
    }
}

/// The declared type of column `source` of `program`.
fn column_type(program: &Program, source: ColumnSource) -> PortType {
    match source {
        ColumnSource::Output(o) => program.outputs[o].ty,
        ColumnSource::Input(i) => program.inputs[i].ty,
    }
}

/// True when one kernel can run the scopes of every parent in turn, giving
/// what a scope bound per parent gives: no step is volatile (a counter
/// would carry on from one parent to the next) and no binding is a cell
/// (its value would too).
pub fn runs_parent_after_parent(program: &Program) -> bool {
    program.is_deterministic() && program.scope.cells.is_empty()
}

/// The error of a worker that could not run its task.
fn trouble(t: workers::Trouble) -> GenerateError {
    match t {
        workers::Trouble::Spawn(e) => GenerateError::Threads(e.to_string()),
        workers::Trouble::Panicked => GenerateError::Panicked,
    }
}

/// The counts and row offsets of a task's parents.
struct Rows<'a> {
    counts: &'a [u64],
    offsets: &'a [u64],
    stop: &'a Stop<'a>,
}

/// Writes parent `i`'s iteration inputs into `kernel` (and runs the
/// scope-init again when the plan says so): what binding the parent's
/// scope would give it.
fn enter(
    plan: &FanOutPlan,
    reinit: bool,
    kernel: &mut dyn Kernel,
    i: usize,
    row_offset: u64,
) -> Result<(), GenerateError> {
    for (input, v) in iteration_inputs(plan).into_iter().zip(parent_inputs(plan, i, row_offset)) {
        kernel.write_u64(input, v).map_err(GenerateError::Write)?;
    }
    if reinit {
        kernel.invalidate_all();
    }
    Ok(())
}

/// The iteration inputs a parent sets: its value, its ordinal, its row offset.
fn iteration_inputs(plan: &FanOutPlan) -> [usize; 3] {
    [plan.parent, plan.ordinal, plan.row_offset]
}

/// The values of [`iteration_inputs`] for the parents from `first`, one
/// after another, each with its row offset from `offsets`: the runs'
/// values of a [`RowRuns`] of a parent per run.
fn runs_values(plan: &FanOutPlan, first: usize, offsets: impl ExactSizeIterator<Item = u64>) -> Vec<u64> {
    let mut values = Vec::with_capacity(3 * offsets.len());
    for (j, offset) in offsets.enumerate() {
        values.extend(parent_inputs(plan, first + j, offset));
    }
    values
}

/// Parent `i`'s iteration inputs: its value, its ordinal, its row offset.
fn parent_inputs(plan: &FanOutPlan, i: usize, row_offset: u64) -> [u64; 3] {
    let value = plan.first.wrapping_add((i as u64).wrapping_mul(plan.step));
    [value, plan.first_ordinal.wrapping_add(i as u64), row_offset]
}

/// The counts of `task`'s parents in one fill of the count's output (an
/// unsigned output of the program): a run of one row per parent, its
/// iteration inputs written as the run starts (the row offset as 0, which
/// a count read in parallel does not read) and the coordinate at 0, as
/// [`count_of`] reads each — with no kernel write, no pull and no mode
/// bookkeeping per parent. `None` when the count is not such an output, or
/// the fill fails or gives a `None` (a stop request included): the caller
/// then reads the counts parent by parent, which reports the failure as a
/// count's failure.
fn counts_in_one_fill(plan: &FanOutPlan, kernel: &mut dyn Kernel, task: Parents, stop: &Stop<'_>) -> Option<Vec<u64>> {
    let RowCount::PerParent { source: ColumnSource::Output(count), .. } = plan.count else { return None };
    let coordinate = plan.coordinate?;
    let ty = kernel.program().outputs[count].ty;
    if !is_unsigned_integer(ty) || task.count == 0 {
        return None;
    }
    let inputs = iteration_inputs(plan);
    let values = runs_values(plan, task.first, std::iter::repeat_n(0, task.count));
    let one_each = vec![1; task.count];
    let runs = RowRuns { coordinate, first: 0, step: 1, inputs: &inputs, values: &values, counts: &one_each, stop };
    let mut column = Column::new(ty, task.count)?;
    let mut parts = column.split(&[task.count]);
    kernel.rows(&[count]).ok()?.fill_row_runs(&runs, &mut parts).ok()?;
    let done: Vec<PartDone> = parts.into_iter().map(ColumnPart::done).collect();
    column.absorb(done).ok()?;
    (0..task.count).map(|i| column.get(i).as_integer().and_then(|n| u64::try_from(n).ok())).collect()
}

/// The rows of the parent `kernel` holds.
fn count_of(plan: &FanOutPlan, kernel: &mut dyn Kernel) -> Result<u64, GenerateError> {
    let (source, name) = match &plan.count {
        RowCount::Fixed { rows, .. } => return Ok(*rows),
        RowCount::PerParent { source, name } => (*source, name),
    };
    // A new scope's coordinate is 0 when its count is read.
    if let Some(c) = plan.coordinate {
        kernel.write_u64(c, 0).map_err(GenerateError::Write)?;
    }
    let value = match source {
        // An unsigned count is read as its word (no value made).
        ColumnSource::Output(o) if is_unsigned_integer(kernel.program().outputs[o].ty) => {
            return kernel.pull_word(o).map_err(GenerateError::Eval);
        }
        ColumnSource::Output(o) => kernel.pull(o).map_err(GenerateError::Eval)?,
        ColumnSource::Input(i) => kernel.input_value(i),
    };
    match value.as_integer().and_then(|n| u64::try_from(n).ok()) {
        Some(n) => Ok(n),
        None => Err(GenerateError::BadCount { name: name.clone(), value: value.display_text() }),
    }
}

/// True for the unsigned integer types (`u8` to `u64`), whose slot word is
/// the count itself.
fn is_unsigned_integer(ty: PortType) -> bool {
    ty.integer_range().is_some() && !ty.is_signed_integer()
}

/// Fills the rows of `task`'s parents into `parts` (one per source).
#[allow(clippy::too_many_arguments)]
fn fill_task(
    plan: &FanOutPlan,
    reinit: bool,
    kernel: &mut dyn Kernel,
    task: Parents,
    rows: Rows<'_>,
    sources: &[ColumnSource],
    outputs: &[usize],
    parts: Vec<ColumnPart<'_>>,
) -> Result<Vec<PartDone>, GenerateError> {
    let mut output_parts = Vec::with_capacity(outputs.len());
    let mut input_parts = Vec::new();
    for (k, (source, part)) in sources.iter().zip(parts).enumerate() {
        match *source {
            ColumnSource::Output(_) => output_parts.push(part),
            ColumnSource::Input(i) => input_parts.push((k, i, part)),
        }
    }
    let start = match plan.count {
        RowCount::Fixed { start, .. } => start,
        RowCount::PerParent { .. } => 0,
    };
    match plan.coordinate {
        // One fill of every parent's rows, each parent a run of its inputs.
        Some(coordinate) if !reinit && !outputs.is_empty() => {
            let inputs = iteration_inputs(plan);
            let values = runs_values(plan, task.first, rows.offsets.iter().copied());
            let counts: Vec<usize> = rows.counts.iter().map(|&c| c as usize).collect();
            let runs = RowRuns {
                coordinate,
                first: start,
                step: 1,
                inputs: &inputs,
                values: &values,
                counts: &counts,
                stop: rows.stop,
            };
            kernel.rows(outputs).map_err(GenerateError::Eval)?.fill_row_runs(&runs, &mut output_parts)?;
            for (_, i, part) in input_parts.iter_mut() {
                let fixed = kernel.input_value(*i);
                for (j, &count) in counts.iter().enumerate() {
                    let at = inputs.iter().position(|input| input == i);
                    for r in 0..count as u64 {
                        match at {
                            Some(k) => part.push(&Value::U64(runs.values_of(j)[k])),
                            None if *i == coordinate => part.push(&Value::U64(start.wrapping_add(r))),
                            None => part.push(&fixed),
                        }
                    }
                }
            }
        }
        _ => fill_task_row_by_row(
            plan,
            reinit,
            kernel,
            task,
            &rows,
            start,
            outputs,
            &mut output_parts,
            &mut input_parts,
        )?,
    }
    let mut done: Vec<(usize, PartDone)> = Vec::with_capacity(sources.len());
    let mut outs = output_parts.into_iter();
    for (k, source) in sources.iter().enumerate() {
        if let ColumnSource::Output(_) = source {
            done.push((k, outs.next().expect("a part per output").done()));
        }
    }
    done.extend(input_parts.into_iter().map(|(k, _, p)| (k, p.done())));
    done.sort_by_key(|(k, _)| *k);
    Ok(done.into_iter().map(|(_, d)| d).collect())
}

/// [`fill_task`] a parent at a time: each parent entered through the
/// kernel's writes (and its scope-init run again when the program captures
/// consts), then its rows filled by a row filler made for it (read whole
/// row after row, [`crate::engine::RowFiller::push_row`], when the program has no coordinate).
#[allow(clippy::too_many_arguments)]
fn fill_task_row_by_row(
    plan: &FanOutPlan,
    reinit: bool,
    kernel: &mut dyn Kernel,
    task: Parents,
    rows: &Rows<'_>,
    start: u64,
    outputs: &[usize],
    output_parts: &mut [ColumnPart<'_>],
    input_parts: &mut [(usize, usize, ColumnPart<'_>)],
) -> Result<(), GenerateError> {
    for (j, (&count, &offset)) in rows.counts.iter().zip(rows.offsets).enumerate() {
        if rows.stop.requested() {
            return Err(GenerateError::Cancelled);
        }
        enter(plan, reinit, kernel, task.first + j, offset)?;
        let count = count as usize;
        if !outputs.is_empty() && count > 0 {
            let mut filler = kernel.rows(outputs).map_err(GenerateError::Eval)?;
            match plan.coordinate {
                Some(coordinate) => {
                    let fill = RowFill { coordinate, first: start, step: 1, count, stop: rows.stop };
                    filler.fill(&fill, output_parts)?;
                }
                None => (0..count).try_for_each(|_| filler.push_row(output_parts)).map_err(GenerateError::Eval)?,
            }
        }
        for (_, i, part) in input_parts.iter_mut() {
            let value = kernel.input_value(*i);
            for r in 0..count as u64 {
                match plan.coordinate {
                    Some(c) if c == *i => part.push(&Value::U64(start.wrapping_add(r))),
                    _ => part.push(&value),
                }
            }
        }
    }
    Ok(())
}
