//! `generate`: the row loop behind `Program.generate`, `iter_batches` and
//! the command line — a [`RowPlan`] of rows, one kernel per worker
//! ([`Generator`]), columns filled in row order ([`Filled`], [`Batches`]),
//! a [`Stop`] checked between blocks of rows, and the errors a run can end
//! with ([`GenerateError`]).

use super::workers;
use crate::columns::{self, Column, ColumnPart, HostRows, PartDone, VarRows};
use crate::engine::{adapt_boundary, new_kernel, EngineKind, GenerateError, Kernel, KernelMaker, RowFill, Stop};
use crate::error::WriteError;
use crate::ir::InputKind;
use crate::program::{ColumnSource, Program};
use crate::scope::{bind, cell};
use crate::types::PortType;
use crate::value::Value;
use std::sync::Arc;

/// What `generate` iterates: the coordinate written per row and its values
/// (`start`, `start + step`, ... for `rows` rows, wrapping past u64::MAX, so
/// every cycle up to and including u64::MAX is reachable).
#[derive(Clone, Debug)]
pub struct RowPlan {
    /// The coordinate that takes the row's cycle value.
    pub coordinate: usize,
    /// The cycle value of the first row.
    pub start: u64,
    /// Number of rows.
    pub rows: usize,
    /// Added to the cycle value from one row to the next (wrapping).
    pub step: u64,
    /// Inputs written once per kernel before the loop.
    pub fixed: Vec<(usize, Value)>,
}

impl RowPlan {
    /// The rows of `start..stop` by `step` (empty when `stop <= start`).
    pub fn range(coordinate: usize, start: u64, stop: u64, step: u64) -> RowPlan {
        let rows = if stop <= start || step == 0 { 0 } else { ((stop - start - 1) / step + 1) as usize };
        RowPlan { coordinate, start, rows, step, fixed: Vec::new() }
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }
}

impl RowPlan {
    /// Refuses a fixed value for the swept coordinate itself (it would be ignored).
    pub fn check_fixed(&self, program: &Program) -> Result<(), GenerateError> {
        if self.fixed.iter().any(|(i, _)| *i == self.coordinate) {
            let swept = &program.inputs[self.coordinate].name;
            return Err(GenerateError::Write(WriteError::SweptCoordinate { slot: swept.clone() }));
        }
        Ok(())
    }

    /// Refuses a plan that would generate rows from values nobody gave: a
    /// fixed value for the swept coordinate itself (it would be ignored),
    /// and an input the columns `sources` read left without one — another
    /// coordinate, or an extern with no default — which would read its zero
    /// (or `None`) on every row. An input no requested column reads needs no
    /// value.
    pub fn check(&self, program: &Program, sources: &[ColumnSource]) -> Result<(), GenerateError> {
        self.check_fixed(program)?;
        let swept = &program.inputs[self.coordinate].name;
        let read = program.inputs_read(sources);
        let unset: Vec<String> = program
            .inputs
            .iter()
            .enumerate()
            .filter(|&(i, def)| {
                i != self.coordinate
                    && read[i]
                    && (def.kind == InputKind::Coordinate || def.default.is_none())
                    // A cell has its starting value.
                    && def.origin != crate::ir::InputOrigin::Cell
                    && !self.fixed.iter().any(|(f, _)| *f == i)
            })
            .map(|(_, def)| def.name.clone())
            .collect();
        match unset.is_empty() {
            true => Ok(()),
            false => Err(GenerateError::Unset { names: unset, swept: swept.clone() }),
        }
    }
}

/// The column of input `i` over `rows` rows of `plan` from cycle `start`.
fn input_column(program: &Program, plan: &RowPlan, i: usize, start: u64, rows: usize) -> Result<Column, GenerateError> {
    let oom = || GenerateError::OutOfMemory { rows, columns: 1 };
    let def = &program.inputs[i];
    if i == plan.coordinate && def.ty == PortType::U64 {
        let mut column = Column::new(def.ty, rows).ok_or_else(oom)?;
        if let columns::ColumnData::U64(rows) = &mut column.data {
            let mut cycle = start;
            for row in rows.iter_mut() {
                *row = cycle;
                cycle = cycle.wrapping_add(plan.step);
            }
        }
        return Ok(column);
    }
    let value = match plan.fixed.iter().find(|(f, _)| *f == i) {
        Some((_, v)) => adapt_boundary(&def.name, def.ty, v.clone()).map_err(GenerateError::Write)?,
        None if i == plan.coordinate => {
            return Err(GenerateError::Write(WriteError::TypeMismatch {
                slot: def.name.clone(),
                expected: def.ty,
                got: "the row numbers of a u64 sweep".into(),
            }))
        }
        None => def.default.clone(),
    };
    Column::filled(def.ty, rows, &value).ok_or_else(oom)
}

/// Runs `plan` and returns one column per requested output. With `threads > 1`
/// the rows are split into contiguous chunks, one kernel per thread, each
/// writing straight into its rows of the final columns; the columns are
/// identical to a single-threaded run. The plan is checked first
/// ([`RowPlan::check`]); a failing row's error names it ([`EvalError::at_row`]).
pub fn generate(
    program: &Arc<Program>,
    kind: EngineKind,
    plan: &RowPlan,
    outputs: &[usize],
    threads: usize,
) -> Result<Vec<Column>, GenerateError> {
    generate_until(program, kind, plan, outputs, threads, &Stop::new())
}

/// [`generate`] that gives up with [`GenerateError::Cancelled`] soon after
/// `stop` is requested (every worker checks it between blocks of rows).
pub fn generate_until(
    program: &Arc<Program>,
    kind: EngineKind,
    plan: &RowPlan,
    outputs: &[usize],
    threads: usize,
    stop: &Stop<'_>,
) -> Result<Vec<Column>, GenerateError> {
    let sources: Vec<ColumnSource> = outputs.iter().map(|&o| ColumnSource::Output(o)).collect();
    Generator::new(program, kind, plan, &sources, threads)?.fill(plan.start, plan.rows, stop)
}

/// The engine of every `generate` form: the kernels of up to `threads`
/// workers, each with the plan's fixed inputs written, kept across calls of
/// [`Generator::fill`], which fills the columns of any run of rows (a whole
/// range, or one batch of a stream after another). Rows are split into
/// contiguous chunks, one per worker, each writing straight into its rows of
/// the batch's columns; the columns are identical to a single-threaded run.
pub struct Generator {
    program: Arc<Program>,
    kind: EngineKind,
    plan: RowPlan,
    /// Makes each worker's kernel (a scope's siblings); `None`: new kernels of `kind`.
    maker: Option<KernelMaker>,
    /// The plan with the values the made kernels already hold (bound slots):
    /// what the checks and the input columns read.
    view: RowPlan,
    sources: Vec<ColumnSource>,
    outputs: Vec<usize>,
    threads: usize,
    /// One kernel per worker that has run, with the fixed inputs written.
    kernels: Vec<Box<dyn Kernel>>,
    /// Bytes per row the last batch's variable-size output columns held
    /// (what the next batch reserves up front).
    var_bytes_per_row: Vec<f64>,
    /// Per output: buffers of the last batch's variable-size parts after the
    /// first, emptied once their rows were copied into the column, for the
    /// next batch's parts (memory already written takes no page faults).
    spare_var: Vec<Vec<VarRows>>,
    /// The rows `emit_row` emitted while the rows were filled, in row order
    /// (see [`Generator::take_emitted`]).
    emitted: Vec<String>,
}

impl std::fmt::Debug for Generator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Generator").field("kind", &self.kind).field("threads", &self.threads).finish()
    }
}

impl Generator {
    /// A generator of `sources` over the rows of `plan` (its `start` and
    /// `rows` are only defaults: [`Generator::fill`] names the rows), on up
    /// to `threads` workers. The plan is checked first ([`RowPlan::check`]).
    pub fn new(
        program: &Arc<Program>,
        kind: EngineKind,
        plan: &RowPlan,
        sources: &[ColumnSource],
        threads: usize,
    ) -> Result<Generator, GenerateError> {
        Generator::build(program, kind, None, Vec::new(), plan, sources, threads)
    }

    /// A generator whose workers' kernels `maker` makes (the kernels of a
    /// bound scope): `preset` lists the inputs they already hold, with their
    /// values (for the checks and the input columns; they are not written).
    pub fn with_maker(
        program: &Arc<Program>,
        kind: EngineKind,
        maker: KernelMaker,
        preset: Vec<(usize, Value)>,
        plan: &RowPlan,
        sources: &[ColumnSource],
        threads: usize,
    ) -> Result<Generator, GenerateError> {
        Generator::build(program, kind, Some(maker), preset, plan, sources, threads)
    }

    fn build(
        program: &Arc<Program>,
        kind: EngineKind,
        maker: Option<KernelMaker>,
        preset: Vec<(usize, Value)>,
        plan: &RowPlan,
        sources: &[ColumnSource],
        threads: usize,
    ) -> Result<Generator, GenerateError> {
        let mut view = plan.clone();
        for (i, value) in preset {
            if i != plan.coordinate && !view.fixed.iter().any(|(f, _)| *f == i) {
                view.fixed.push((i, value));
            }
        }
        plan.check_fixed(program)?;
        view.check(program, sources)?;
        let outputs: Vec<usize> =
            sources.iter().filter_map(|s| if let ColumnSource::Output(o) = s { Some(*o) } else { None }).collect();
        Ok(Generator {
            program: program.clone(),
            kind,
            maker,
            view,
            plan: plan.clone(),
            sources: sources.to_vec(),
            var_bytes_per_row: vec![0.0; outputs.len()],
            spare_var: outputs.iter().map(|_| Vec::new()).collect(),
            outputs,
            threads: threads.max(1),
            kernels: Vec::new(),
            emitted: Vec::new(),
        })
    }

    /// The rows `emit_row` nodes emitted while this generator filled rows
    /// since the last call, in row order (each worker drains its thread's
    /// buffer after its share of the rows).
    pub fn take_emitted(&mut self) -> Vec<String> {
        std::mem::take(&mut self.emitted)
    }

    /// The program this generator runs.
    pub fn program(&self) -> &Arc<Program> {
        &self.program
    }

    /// The columns requested, in order.
    pub fn sources(&self) -> &[ColumnSource] {
        &self.sources
    }

    /// The declared type of each column, in order.
    pub fn types(&self) -> Vec<PortType> {
        self.sources
            .iter()
            .map(|s| match *s {
                ColumnSource::Output(o) => self.program.outputs[o].ty,
                ColumnSource::Input(i) => self.program.inputs[i].ty,
            })
            .collect()
    }

    /// Per column: whether a row of it can hold `None` (see
    /// [`Program::may_be_none`]). The swept coordinate never does; every
    /// other input holds through the run what a kernel made for it holds
    /// now. When no kernel can be made, every column can.
    pub fn may_be_none(&self) -> Vec<bool> {
        let Ok(kernel) = self.kernel() else { return vec![true; self.sources.len()] };
        let inputs: Vec<bool> = (0..self.program.inputs.len())
            .map(|i| i != self.plan.coordinate && kernel.input_value(i).is_none())
            .collect();
        self.program.may_be_none(&inputs, &self.sources)
    }

    /// The plan the generator was made for.
    pub fn plan(&self) -> &RowPlan {
        &self.plan
    }

    /// A new kernel with the plan's fixed inputs written.
    fn kernel(&self) -> Result<Box<dyn Kernel>, GenerateError> {
        let mut kernel = match &self.maker {
            Some(make) => make(),
            None if !self.program.scope.cells.is_empty() => {
                Box::new(bind::ScopedKernel::root(&self.program, self.kind, &cell::Tree::new()))
            }
            None => new_kernel(&self.program, self.kind),
        };
        for (i, v) in &self.plan.fixed {
            match self.program.inputs[*i].kind {
                InputKind::Coordinate => write_coordinate(kernel.as_mut(), *i, v.clone()),
                InputKind::Extern => kernel.write(*i, v.clone()),
            }
            .map_err(GenerateError::Write)?;
        }
        Ok(kernel)
    }

    /// Fills the columns of `rows` rows from cycle `start` (then `start +
    /// step`, ... by the plan's step, wrapping): one column per source, in
    /// order. A failing row's error names it ([`EvalError::at_row`]); of
    /// several failing workers, the first in row order is reported.
    pub fn fill(&mut self, start: u64, rows: usize, stop: &Stop<'_>) -> Result<Vec<Column>, GenerateError> {
        let host = (0..self.sources.len()).map(|_| None).collect();
        let filled = self.fill_into(start, rows, stop, host)?;
        Ok(filled
            .into_iter()
            .map(|f| match f {
                Filled::Column(c) => c,
                Filled::InPlace { .. } => unreachable!("no host rows were given"),
            })
            .collect())
    }

    /// [`Generator::fill`], writing each output source that `host` gives
    /// rows for straight into them (a host's own buffer: a numpy array, so
    /// the memory is allocated the host's way). `host` has one entry per
    /// source; rows given for an input source, of another type than the
    /// output's, or of another length than `rows`, are refused.
    pub fn fill_into(
        &mut self,
        start: u64,
        rows: usize,
        stop: &Stop<'_>,
        host: Vec<Option<HostRows<'_>>>,
    ) -> Result<Vec<Filled>, GenerateError> {
        let program = self.program.clone();
        let mut outputs_host = Vec::with_capacity(self.outputs.len());
        for (source, h) in self.sources.iter().zip(host) {
            match (*source, h) {
                (ColumnSource::Output(o), h) => {
                    if let Some(h) = &h {
                        let ty = program.outputs[o].ty;
                        if !h.holds(ty) || h.len() != rows {
                            return Err(GenerateError::HostRows(format!(
                                "the rows given for output '{}' are not {rows} rows of {ty}",
                                program.outputs[o].name
                            )));
                        }
                    }
                    outputs_host.push(h);
                }
                (ColumnSource::Input(_), None) => {}
                (ColumnSource::Input(i), Some(_)) => {
                    return Err(GenerateError::HostRows(format!(
                        "rows were given for input '{}', which generate does not compute",
                        program.inputs[i].name
                    )))
                }
            }
        }
        let mut computed = self.fill_outputs(start, rows, stop, outputs_host)?.into_iter();
        self.sources
            .iter()
            .map(|source| match *source {
                ColumnSource::Output(_) => Ok(computed.next().expect("one column per output")),
                ColumnSource::Input(i) => input_column(&program, &self.view, i, start, rows).map(Filled::Column),
            })
            .collect()
    }

    fn fill_outputs(
        &mut self,
        start: u64,
        rows: usize,
        stop: &Stop<'_>,
        host: Vec<Option<HostRows<'_>>>,
    ) -> Result<Vec<Filled>, GenerateError> {
        let program = self.program.clone();
        let outputs = &self.outputs;
        let threads = self.threads.clamp(1, rows.max(1));
        let tasks = workers::task_count(rows, threads);
        let chunk = rows.div_ceil(tasks).max(1);
        let counts: Vec<usize> = (0..tasks).map(|t| chunk.min(rows.saturating_sub(t * chunk))).collect();
        while self.kernels.len() < threads {
            let kernel = self.kernel()?;
            self.kernels.push(kernel);
        }
        let mut columns: Vec<Option<Column>> = outputs
            .iter()
            .zip(&host)
            .map(|(&o, h)| match h {
                Some(_) => Some(None),
                None => Column::new(program.outputs[o].ty, rows).map(Some),
            })
            .collect::<Option<_>>()
            .ok_or(GenerateError::OutOfMemory { rows, columns: outputs.len() })?;
        // The first part reserves for the whole column: the others' bytes are
        // appended to it when the parts are absorbed, with no reallocation.
        let reserve =
            |c: usize, t: usize| columns::reservation(self.var_bytes_per_row[c], if t == 0 { rows } else { chunk });
        let mut shares: Vec<Vec<ColumnPart<'_>>> = (0..tasks).map(|_| Vec::with_capacity(outputs.len())).collect();
        for (c, (column, h)) in columns.iter_mut().zip(host).enumerate() {
            let parts = match (column, h) {
                (Some(column), _) => column.split_reusing(&counts, &mut self.spare_var[c]),
                (None, Some(h)) => h.split(&counts),
                (None, None) => unreachable!("a column or host rows for every output"),
            };
            for (t, (share, mut part)) in shares.iter_mut().zip(parts).enumerate() {
                // Best effort: a part that cannot reserve grows as it goes.
                let _ = part.reserve_bytes(reserve(c, t));
                share.push(part);
            }
        }
        let step = self.plan.step;
        let coordinate = self.plan.coordinate;
        let run_share = |t: usize,
                         kernel: &mut Box<dyn Kernel>,
                         mut parts: Vec<ColumnPart<'_>>|
         -> Result<(Vec<PartDone>, Vec<String>), GenerateError> {
            if stop.requested() {
                return Err(GenerateError::Cancelled);
            }
            // Rows an earlier run left on this thread are not this share's.
            drop(crate::nodes::emit::take_rows());
            let rows = RowFill {
                coordinate,
                first: start.wrapping_add(((t * chunk) as u64).wrapping_mul(step)),
                step,
                count: counts[t],
                stop,
            };
            kernel.rows(outputs).map_err(GenerateError::Eval)?.fill(&rows, &mut parts)?;
            let emitted = crate::nodes::emit::take_rows();
            Ok((parts.into_iter().map(ColumnPart::done).collect(), emitted))
        };
        // The first worker is the calling thread (so a stop hook that only
        // acts there, like a signal check, is consulted).
        let trouble = |t: workers::Trouble| match t {
            workers::Trouble::Spawn(e) => GenerateError::Threads(e.to_string()),
            workers::Trouble::Panicked => GenerateError::Panicked,
        };
        let outcomes = workers::run_shared(&mut self.kernels[..threads], shares, &run_share, &trouble);
        // The first failure in row order is the one a single thread would
        // have met; a task that only stopped because of a stop request is not one.
        let mut done = Vec::with_capacity(tasks);
        let mut emitted = Vec::new();
        let mut first_error = None;
        for outcome in outcomes {
            match outcome {
                Some(Ok((parts, rows))) => {
                    done.push(parts);
                    emitted.push(rows);
                }
                Some(Err(GenerateError::Cancelled)) => first_error = first_error.or(Some(GenerateError::Cancelled)),
                Some(Err(e)) if matches!(first_error, None | Some(GenerateError::Cancelled)) => first_error = Some(e),
                Some(Err(_)) | None => {}
            }
        }
        let out_of_memory = GenerateError::OutOfMemory { rows, columns: outputs.len() };
        if let Some(e) = first_error {
            // A kernel that stopped part-way holds that row's state: start afresh.
            self.kernels.clear();
            return Err(match e {
                GenerateError::OutOfMemory { .. } => out_of_memory,
                e => e,
            });
        }
        self.emitted.extend(emitted.into_iter().flatten());
        let mut by_column: Vec<Vec<PartDone>> = (0..columns.len()).map(|_| Vec::with_capacity(threads)).collect();
        for share in done {
            for (c, part) in share.into_iter().enumerate() {
                by_column[c].push(part);
            }
        }
        let mut filled = Vec::with_capacity(columns.len());
        let mut owned = Vec::new();
        for (c, (column, parts)) in columns.into_iter().zip(by_column).enumerate() {
            match column {
                Some(column) => owned.push((c, column, parts)),
                None if parts.iter().any(PartDone::out_of_memory) => return Err(out_of_memory),
                None => filled.push((
                    c,
                    Filled::InPlace { nulls: parts.iter().flat_map(|p| p.nulls().iter().copied()).collect() },
                )),
            }
        }
        for (c, column, spare) in absorb_all(owned, threads).map_err(|e| match e {
            GenerateError::OutOfMemory { .. } => out_of_memory.clone(),
            e => e,
        })? {
            if let columns::ColumnData::Var(var) = &column.data {
                if rows > 0 {
                    self.var_bytes_per_row[c] = var.data.len() as f64 / rows as f64;
                }
            }
            self.spare_var[c] = spare;
            filled.push((c, Filled::Column(column)));
        }
        filled.sort_by_key(|&(c, _)| c);
        Ok(filled.into_iter().map(|(_, f)| f).collect())
    }
}

/// Takes back each column's finished parts ([`Column::absorb`]). Absorbing
/// variable-size parts copies their bytes together, so those columns are
/// shared among up to `threads` workers ([`workers::run_shared`], the
/// calling thread among them), not absorbed one after another while the
/// other workers wait. Returns the columns with their indices, in no order,
/// each with the emptied buffers of the parts copied into it.
pub(crate) fn absorb_all(
    columns: Vec<(usize, Column, Vec<PartDone>)>,
    threads: usize,
) -> Result<Vec<(usize, Column, Vec<VarRows>)>, GenerateError> {
    let copies = |parts: &[PartDone]| parts.len() > 1 && parts.iter().any(PartDone::is_var);
    let (copied, moved): (Vec<_>, Vec<_>) = columns.into_iter().partition(|(_, _, parts)| copies(parts));
    let absorb = |(c, mut column, parts): (usize, Column, Vec<PartDone>)| {
        let rows = column.len();
        match column.absorb(parts) {
            Ok(spare) => Ok((c, column, spare)),
            Err(columns::NoMemory) => Err(Absorbing::NoMemory(rows)),
        }
    };
    let no_memory = |rows| GenerateError::OutOfMemory { rows, columns: 1 };
    let mut out: Vec<(usize, Column, Vec<VarRows>)> =
        moved.into_iter().map(absorb).collect::<Result<_, _>>().map_err(|e| match e {
            Absorbing::NoMemory(rows) => no_memory(rows),
            Absorbing::Trouble(_) => GenerateError::Panicked,
        })?;
    let mut lanes = vec![(); threads.clamp(1, copied.len().max(1))];
    let run = |_: usize, _: &mut (), work| absorb(work);
    for outcome in workers::run_shared(&mut lanes, copied, &run, &Absorbing::Trouble) {
        match outcome {
            Some(Ok(column)) => out.push(column),
            Some(Err(Absorbing::NoMemory(rows))) => return Err(no_memory(rows)),
            // A lane that could not start left its columns to the others.
            Some(Err(Absorbing::Trouble(workers::Trouble::Spawn(_)))) => {}
            Some(Err(Absorbing::Trouble(workers::Trouble::Panicked))) | None => return Err(GenerateError::Panicked),
        }
    }
    Ok(out)
}

/// Why absorbing a column's parts failed ([`absorb_all`]).
enum Absorbing {
    /// The column of this many rows cannot hold its parts' rows.
    NoMemory(usize),
    /// A lane could not run.
    Trouble(workers::Trouble),
}

/// One column of [`Generator::fill_into`].
#[derive(Debug)]
pub enum Filled {
    /// A column the core allocated.
    Column(Column),
    /// The host's rows, filled in place; these rows hold `None` (ascending).
    InPlace {
        /// Rows that hold `None` (their values are the type's zero).
        nulls: Vec<usize>,
    },
}

/// A stream of batches: the rows of a plan in order, `batch_rows` at a
/// time, each batch one column per source ([`Generator::fill`]); memory is
/// bounded by one batch. The last batch may be shorter; an empty plan yields
/// no batch.
#[derive(Debug)]
pub struct Batches {
    generator: Generator,
    /// The cycle of the next batch's first row.
    next: u64,
    /// Rows not yet yielded.
    left: usize,
    batch_rows: usize,
}

impl Batches {
    /// The batches of `plan` (checked first), `batch_rows` rows each (at least 1).
    pub fn new(
        program: &Arc<Program>,
        kind: EngineKind,
        plan: &RowPlan,
        sources: &[ColumnSource],
        threads: usize,
        batch_rows: usize,
    ) -> Result<Batches, GenerateError> {
        let generator = Generator::new(program, kind, plan, sources, threads)?;
        Ok(Batches::of(generator, batch_rows))
    }

    /// The batches of `generator`'s plan, `batch_rows` rows each (at least 1).
    pub fn of(generator: Generator, batch_rows: usize) -> Batches {
        let (next, left) = (generator.plan.start, generator.plan.rows);
        Batches { generator, next, left, batch_rows: batch_rows.max(1) }
    }

    /// The generator that fills the batches.
    pub fn generator(&self) -> &Generator {
        &self.generator
    }

    /// The rows `emit_row` emitted while the batches so far were filled
    /// ([`Generator::take_emitted`]).
    pub fn take_emitted(&mut self) -> Vec<String> {
        self.generator.take_emitted()
    }

    /// Rows not yet yielded.
    pub fn remaining(&self) -> usize {
        self.left
    }

    /// The cycle of the next batch's first row.
    pub fn next_cycle(&self) -> u64 {
        self.next
    }

    /// The rows of the next batch (0 once every row was yielded).
    pub fn next_rows(&self) -> usize {
        self.left.min(self.batch_rows)
    }

    /// The next batch (`None` once every row was yielded); after an error the
    /// stream is over.
    pub fn next_batch(&mut self, stop: &Stop<'_>) -> Option<Result<Vec<Column>, GenerateError>> {
        if self.left == 0 {
            return None;
        }
        let rows = self.left.min(self.batch_rows);
        let first = self.next;
        let result = self.generator.fill(first, rows, stop);
        match result {
            Ok(_) => {
                self.left -= rows;
                self.next = first.wrapping_add((rows as u64).wrapping_mul(self.generator.plan.step));
            }
            Err(_) => self.left = 0,
        }
        Some(result)
    }
}

/// One kernel's rows in [`fill_kernel_rows`]: the kernel and the rows it fills (its first
/// coordinate takes `start`, `start + 1`, ...).
pub struct KernelRows {
    /// The kernel (a scope's sibling, usually).
    pub kernel: Box<dyn Kernel>,
    /// The coordinate the rows sweep (`None`: the program has none; every
    /// row reads the outputs again).
    pub coordinate: Option<usize>,
    /// The coordinate's value at the run's first row.
    pub start: u64,
    /// Number of rows.
    pub rows: usize,
}

/// Per column of [`fill_kernel_rows`] over `runs`: whether a row of it can
/// hold `None` (see [`Program::may_be_none`]). The swept coordinate never
/// does; another input can when it holds `None` in some run's kernel now
/// (it holds that through the run).
pub fn kernel_rows_may_be_none(program: &Program, runs: &[KernelRows], sources: &[ColumnSource]) -> Vec<bool> {
    let inputs: Vec<bool> = (0..program.inputs.len())
        .map(|i| runs.iter().any(|run| run.coordinate != Some(i) && run.kernel.input_value(i).is_none()))
        .collect();
    program.may_be_none(&inputs, sources)
}

/// Fills one set of columns with the rows of several kernels of `program`,
/// run after run (a workload phase's iterations, one kernel each): the
/// columns `sources` of run 0's rows, then run 1's, and so on. The runs are
/// shared out, in contiguous groups, among up to `threads` workers, each
/// writing straight into its rows; the columns are the same whatever the
/// number of threads. An input column holds the kernel's value of that input
/// on every row of its run (the swept coordinate, its row values).
pub fn fill_kernel_rows(
    program: &Program,
    mut runs: Vec<KernelRows>,
    sources: &[ColumnSource],
    threads: usize,
    stop: &Stop<'_>,
) -> Result<Vec<Column>, GenerateError> {
    let counts: Vec<usize> = runs.iter().map(|r| r.rows).collect();
    let total: usize = counts.iter().sum();
    let type_of = |s: &ColumnSource| match *s {
        ColumnSource::Output(o) => program.outputs[o].ty,
        ColumnSource::Input(i) => program.inputs[i].ty,
    };
    let mut columns: Vec<Column> = sources
        .iter()
        .map(|s| Column::new(type_of(s), total))
        .collect::<Option<_>>()
        .ok_or(GenerateError::OutOfMemory { rows: total, columns: sources.len() })?;
    let mut per_run: Vec<Vec<ColumnPart<'_>>> = (0..runs.len()).map(|_| Vec::with_capacity(sources.len())).collect();
    for column in columns.iter_mut() {
        for (r, part) in column.split(&counts).into_iter().enumerate() {
            per_run[r].push(part);
        }
    }
    let outs: Vec<usize> =
        sources.iter().filter_map(|s| if let ColumnSource::Output(o) = s { Some(*o) } else { None }).collect();
    let fill_one = |run: &mut KernelRows, parts: Vec<ColumnPart<'_>>| -> Result<Vec<PartDone>, GenerateError> {
        let mut output_parts = Vec::with_capacity(outs.len());
        let mut input_parts = Vec::new();
        for (k, (source, part)) in sources.iter().zip(parts).enumerate() {
            match *source {
                ColumnSource::Output(_) => output_parts.push((k, part)),
                ColumnSource::Input(i) => input_parts.push((k, i, part)),
            }
        }
        if run.rows > 0 && !outs.is_empty() {
            let mut parts: Vec<ColumnPart<'_>> = Vec::with_capacity(output_parts.len());
            let mut order = Vec::with_capacity(output_parts.len());
            for (k, part) in output_parts {
                order.push(k);
                parts.push(part);
            }
            let mut filler = run.kernel.rows(&outs).map_err(GenerateError::Eval)?;
            match run.coordinate {
                Some(coordinate) => {
                    let rows = RowFill { coordinate, first: run.start, step: 1, count: run.rows, stop };
                    filler.fill(&rows, &mut parts)?;
                }
                None => {
                    for _ in 0..run.rows {
                        filler.push_row(&mut parts).map_err(GenerateError::Eval)?;
                    }
                }
            }
            drop(filler);
            output_parts = order.into_iter().zip(parts).collect();
        }
        for (_, i, part) in input_parts.iter_mut() {
            if Some(*i) == run.coordinate {
                for r in 0..run.rows as u64 {
                    part.push(&Value::U64(run.start.wrapping_add(r)));
                }
            } else {
                let value = run.kernel.input_value(*i);
                (0..run.rows).for_each(|_| part.push(&value));
            }
        }
        let mut done: Vec<(usize, PartDone)> = output_parts.into_iter().map(|(k, p)| (k, p.done())).collect();
        done.extend(input_parts.into_iter().map(|(k, _, p)| (k, p.done())));
        done.sort_by_key(|(k, _)| *k);
        Ok(done.into_iter().map(|(_, d)| d).collect())
    };
    // Contiguous groups of runs of about equal rows, one per worker.
    let workers = threads.clamp(1, runs.len().max(1));
    let target = total.div_ceil(workers).max(1);
    let mut groups: Vec<usize> = Vec::with_capacity(workers);
    let (mut rows_in_group, mut runs_in_group) = (0, 0);
    for &n in &counts {
        rows_in_group += n;
        runs_in_group += 1;
        if rows_in_group >= target && groups.len() + 1 < workers {
            groups.push(runs_in_group);
            (rows_in_group, runs_in_group) = (0, 0);
        }
    }
    groups.push(runs_in_group);
    let mut jobs: Vec<Vec<(&mut KernelRows, Vec<ColumnPart<'_>>)>> = Vec::with_capacity(groups.len());
    let mut pairs = runs.iter_mut().zip(per_run);
    for &size in &groups {
        jobs.push(pairs.by_ref().take(size).collect());
    }
    let run_group = |group: Vec<(&mut KernelRows, Vec<ColumnPart<'_>>)>| -> Result<Vec<Vec<PartDone>>, GenerateError> {
        group.into_iter().map(|(run, parts)| fill_one(run, parts)).collect()
    };
    let results: Vec<Result<Vec<Vec<PartDone>>, GenerateError>> = if jobs.len() == 1 {
        jobs.into_iter().map(run_group).collect()
    } else {
        std::thread::scope(|scope| {
            let mut jobs = jobs.into_iter();
            let own = jobs.next().unwrap_or_default();
            let handles: Vec<_> = jobs.map(|group| scope.spawn(|| run_group(group))).collect();
            let mut results = vec![run_group(own)];
            results.extend(handles.into_iter().map(|h| h.join().unwrap_or(Err(GenerateError::Panicked))));
            results
        })
    };
    let mut by_column: Vec<Vec<PartDone>> = (0..columns.len()).map(|_| Vec::with_capacity(counts.len())).collect();
    for result in results {
        for run in result? {
            for (c, part) in run.into_iter().enumerate() {
                by_column[c].push(part);
            }
        }
    }
    for (column, parts) in columns.iter_mut().zip(by_column) {
        column.absorb(parts).map_err(|columns::NoMemory| GenerateError::OutOfMemory { rows: total, columns: 1 })?;
    }
    Ok(columns)
}

/// Writes coordinate `i` (generate's fixed inputs), refusing `None`.
fn write_coordinate(kernel: &mut dyn Kernel, i: usize, value: Value) -> Result<(), WriteError> {
    if value.is_none() {
        let def = &kernel.program().inputs[i];
        return Err(WriteError::TypeMismatch { slot: def.name.clone(), expected: def.ty, got: "None".into() });
    }
    kernel.write(i, value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::columns::ColumnPart;
    use crate::types::PortType;
    use crate::value::Value;

    /// Column `c` of `rows` rows in `parts` parts, row `i` the text "c.i"
    /// (every fifth row `None`), and the rows it must hold afterwards.
    fn split_column(c: usize, rows: usize, parts: usize) -> ((usize, Column, Vec<PartDone>), Vec<Value>) {
        let mut column = Column::new(PortType::Str, rows).unwrap();
        let counts: Vec<usize> = (0..parts).map(|p| rows / parts + usize::from(p < rows % parts)).collect();
        let want: Vec<Value> =
            (0..rows).map(|i| if i % 5 == 4 { Value::None } else { Value::str(format!("{c}.{i}").as_str()) }).collect();
        let mut done = Vec::new();
        let mut at = 0;
        for (mut part, n) in column.split(&counts).into_iter().zip(counts.clone()) {
            want[at..at + n].iter().for_each(|v| part.push(v));
            at += n;
            done.push(ColumnPart::done(part));
        }
        ((c, column, done), want)
    }

    #[test]
    fn columns_absorbed_on_several_threads_hold_their_rows_in_order() {
        for threads in [1, 2, 3] {
            let (work, wants): (Vec<_>, Vec<_>) = (0..5).map(|c| split_column(c, 23 + c, 1 + c % 4)).unzip();
            let mut got = absorb_all(work, threads).unwrap();
            got.sort_by_key(|(c, _, _)| *c);
            assert_eq!(got.len(), 5);
            for ((c, column, spare), want) in got.iter().zip(&wants) {
                assert_eq!(spare.len(), c % 4, "column {c}: every part but the first gives its buffers back");
                let rows: Vec<Value> = (0..column.len()).map(|i| column.get(i)).collect();
                assert_eq!(rows.len(), want.len(), "column {c} on {threads} threads");
                assert!(rows.iter().zip(want).all(|(a, b)| a.same(b)), "column {c} on {threads} threads");
                assert_eq!(column.nulls, (0..want.len()).filter(|i| i % 5 == 4).collect::<Vec<_>>());
            }
        }
    }
}
