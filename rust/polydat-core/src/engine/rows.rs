//! The row-filling interface every kernel offers ([`RowFiller`], made by
//! [`Kernel::rows`]): the rows a filler fills ([`RowFill`], [`RunFill`]),
//! the stop request it checks between blocks of rows ([`Stop`]), the
//! row-at-a-time strategy any kernel has ([`ValueRows`],
//! [`fill_row_by_row`], [`fill_run_by_run`]) and the errors a fill ends
//! with ([`GenerateError`]).

use super::Kernel;
use crate::columns::ColumnPart;
use crate::error::{EvalError, WriteError};
use std::sync::atomic::{AtomicBool, Ordering};

/// Reads of a fixed set of outputs, row after row ([`Kernel::rows`]).
pub trait RowFiller {
    /// Writes `values[i]` into u64 input `i` for each `i` (as
    /// [`Kernel::write_u64`]), then reads the outputs as ONE read of raw
    /// words (as [`Kernel::pull_word`] each): `words[k]` receives output `k`.
    fn read_words(&mut self, values: &[u64], words: &mut [u64]) -> Result<(), GenerateError>;
    /// Reads the outputs as ONE read (volatile steps run once for all of
    /// them) and writes each value as the next row of its column part.
    fn push_row(&mut self, columns: &mut [ColumnPart<'_>]) -> Result<(), EvalError>;
    /// Fills `rows.count` rows of `generate`: for each, writes the u64 row
    /// coordinate into input `rows.coordinate` (advancing by `rows.step`,
    /// wrapping) and appends the outputs to `columns` as one read. A failing
    /// row is reported as P1 reports it, at its row.
    fn fill(&mut self, rows: &RowFill<'_>, columns: &mut [ColumnPart<'_>]) -> Result<(), GenerateError>;
    /// Fills rows in runs ([`RunFill`]): each run's u64 inputs take
    /// its values, then its rows are filled as [`RowFiller::fill`] fills
    /// them. One call for many short runs (a one-to-many phase's parents);
    /// the rows are those of the inputs' writes and one `fill` per run.
    fn fill_runs(&mut self, runs: &RunFill<'_>, columns: &mut [ColumnPart<'_>]) -> Result<(), GenerateError>;
}

/// The row filler any kernel has: each read through [`Kernel`]'s own
/// writes and reads, one value at a time.
pub struct ValueRows<'k, K: ?Sized> {
    kernel: &'k mut K,
    outs: &'k [usize],
}

impl<'k, K: Kernel + ?Sized> ValueRows<'k, K> {
    /// The row filler of `outs` on `kernel`.
    pub fn new(kernel: &'k mut K, outs: &'k [usize]) -> Self {
        ValueRows { kernel, outs }
    }
}

impl<K: Kernel + ?Sized> RowFiller for ValueRows<'_, K> {
    fn read_words(&mut self, values: &[u64], words: &mut [u64]) -> Result<(), GenerateError> {
        for (input, &value) in values.iter().enumerate() {
            self.kernel.write_u64(input, value).map_err(GenerateError::Write)?;
        }
        for (word, &out) in words.iter_mut().zip(self.outs) {
            *word = self.kernel.pull_word(out).map_err(GenerateError::Eval)?;
        }
        Ok(())
    }

    fn push_row(&mut self, columns: &mut [ColumnPart<'_>]) -> Result<(), EvalError> {
        for (column, &out) in columns.iter_mut().zip(self.outs) {
            column.push(&self.kernel.pull(out)?);
        }
        Ok(())
    }

    fn fill(&mut self, rows: &RowFill<'_>, columns: &mut [ColumnPart<'_>]) -> Result<(), GenerateError> {
        let outs = self.outs;
        fill_row_by_row(&mut *self.kernel, rows, columns, |k, columns| {
            for (column, &out) in columns.iter_mut().zip(outs) {
                column.push(&k.pull(out)?);
            }
            Ok(())
        })
    }

    fn fill_runs(&mut self, runs: &RunFill<'_>, columns: &mut [ColumnPart<'_>]) -> Result<(), GenerateError> {
        let outs = self.outs;
        fill_run_by_run(&mut *self.kernel, runs, |k, rows| {
            fill_row_by_row(k, rows, &mut *columns, |k, columns| {
                for (column, &out) in columns.iter_mut().zip(outs) {
                    column.push(&k.pull(out)?);
                }
                Ok(())
            })
        })
    }
}

/// A request to stop a running `generate`: checked between blocks of rows by
/// every worker, which then returns [`GenerateError::Cancelled`]. A host can
/// attach a `hook` that the workers call at those checks (a Python binding
/// uses it to look for Ctrl-C on the thread that owns signals); when the hook
/// says stop, every worker stops.
#[derive(Default)]
pub struct Stop<'a> {
    flag: AtomicBool,
    hook: Option<&'a (dyn Fn() -> bool + Sync)>,
}

impl<'a> Stop<'a> {
    /// A request not yet made, with no hook.
    pub const fn new() -> Stop<'static> {
        Stop { flag: AtomicBool::new(false), hook: None }
    }

    /// A request not yet made, whose checks also ask `hook`.
    pub fn with_hook(hook: &'a (dyn Fn() -> bool + Sync)) -> Stop<'a> {
        Stop { flag: AtomicBool::new(false), hook: Some(hook) }
    }

    /// Asks every worker to stop.
    pub fn request(&self) {
        self.flag.store(true, Ordering::Relaxed);
    }

    /// True once a stop was requested (by [`Stop::request`] or the hook).
    #[inline]
    pub fn requested(&self) -> bool {
        if self.flag.load(Ordering::Relaxed) {
            return true;
        }
        match self.hook {
            Some(hook) if hook() => {
                self.request();
                true
            }
            _ => false,
        }
    }
}

impl std::fmt::Debug for Stop<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stop").field("requested", &self.flag.load(Ordering::Relaxed)).finish()
    }
}

/// How many rows a worker fills between two looks at its stop request.
pub const STOP_CHECK_ROWS: usize = 1024;

/// [`RowFiller::fill`] one row at a time: write the coordinate, then
/// `read_row` reads the row into `columns` (every filler's way when nothing
/// faster serves, and the fallback of faster ways). A failing row is
/// reported at its row.
pub fn fill_row_by_row<'c, K: Kernel + ?Sized>(
    kernel: &mut K,
    rows: &RowFill<'_>,
    columns: &mut [ColumnPart<'c>],
    mut read_row: impl FnMut(&mut K, &mut [ColumnPart<'c>]) -> Result<(), EvalError>,
) -> Result<(), GenerateError> {
    let mut cycle = rows.first;
    for row in 0..rows.count {
        if row % STOP_CHECK_ROWS == 0 {
            rows.check(columns)?;
        }
        kernel.write_u64(rows.coordinate, cycle).map_err(GenerateError::Write)?;
        if let Err(e) = read_row(kernel, columns) {
            let name = &kernel.program().inputs[rows.coordinate].name;
            return Err(GenerateError::Eval(e.at_row(name, cycle)));
        }
        cycle = cycle.wrapping_add(rows.step);
    }
    Ok(())
}

/// The rows one kernel fills (see [`RowFiller::fill`]).
#[derive(Clone, Copy, Debug)]
pub struct RowFill<'a> {
    /// The coordinate input the rows advance.
    pub coordinate: usize,
    /// Its value at the first row.
    pub first: u64,
    /// Its increment per row (wrapping).
    pub step: u64,
    /// Number of rows.
    pub count: usize,
    /// Checked between blocks of rows: the caller wants the run to stop.
    pub stop: &'a Stop<'a>,
}

impl RowFill<'_> {
    /// The coordinate's value at row `row` (wrapping).
    #[inline]
    pub fn cycle_of(&self, row: usize) -> u64 {
        self.first.wrapping_add((row as u64).wrapping_mul(self.step))
    }

    /// The rows `skip..count` of these rows.
    pub fn after(&self, skip: usize) -> Self {
        RowFill { first: self.cycle_of(skip), count: self.count.saturating_sub(skip), ..*self }
    }

    /// The rows `0..count` of these rows.
    pub fn first_rows(&self, count: usize) -> Self {
        RowFill { count: count.min(self.count), ..*self }
    }

    /// What a row loop checks between blocks of rows: a stop request
    /// ([`GenerateError::Cancelled`]), or a column that ran out of memory
    /// ([`GenerateError::OutOfMemory`]; its rows are lost, so the loop
    /// stops instead of computing rows nothing can hold).
    #[inline]
    pub fn check(&self, columns: &[ColumnPart<'_>]) -> Result<(), GenerateError> {
        if columns.iter().any(ColumnPart::out_of_memory) {
            return Err(GenerateError::OutOfMemory { rows: self.count, columns: columns.len() });
        }
        match self.stop.requested() {
            true => Err(GenerateError::Cancelled),
            false => Ok(()),
        }
    }
}

/// Why `generate` stopped.
#[derive(Clone, Debug)]
pub enum GenerateError {
    /// Writing an input (a fixed input or the row's coordinate) failed.
    Write(WriteError),
    /// Evaluating an output failed.
    Eval(EvalError),
    /// A worker thread died (never expected: node panics are contained).
    Panicked,
    /// A worker thread could not be started (the system's message).
    Threads(String),
    /// The host's rows for a column do not fit it ([`Generator::fill_into`]).
    HostRows(String),
    /// The caller asked the run to stop ([`Stop::request`]).
    Cancelled,
    /// Inputs other than the swept coordinate have no value.
    Unset {
        /// The inputs without a value, in slot order.
        names: Vec<String>,
        /// The coordinate the rows sweep.
        swept: String,
    },
    /// A scope's row count is no count (a one-to-many phase, see
    /// [`crate::run::fanout`]).
    BadCount {
        /// The name the count is read from.
        name: String,
        /// What it held.
        value: String,
    },
    /// The columns for this many rows do not fit in memory.
    OutOfMemory {
        /// Rows requested (of one thread's chunk).
        rows: usize,
        /// Columns requested.
        columns: usize,
    },
}

impl std::fmt::Display for GenerateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GenerateError::Write(e) => e.fmt(f),
            GenerateError::Eval(e) => e.fmt(f),
            GenerateError::Panicked => f.write_str("a generate worker thread panicked"),
            GenerateError::Threads(e) => write!(f, "could not start a generate worker thread: {e}"),
            GenerateError::HostRows(e) => write!(f, "internal: {e}"),
            GenerateError::Cancelled => f.write_str("generate was interrupted"),
            GenerateError::Unset { names, swept } => {
                let quoted: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
                let (what, them) = if names.len() == 1 { ("input", "it") } else { ("inputs", "each") };
                write!(
                    f,
                    "{what} {} {} no value: the rows sweep '{swept}' only; give {them} a value \
                     (generate(..., inputs={{'{}': ...}}), or --set {}=VALUE on the command line)",
                    quoted.join(", "),
                    if names.len() == 1 { "has" } else { "have" },
                    names[0],
                    names[0],
                )
            }
            GenerateError::BadCount { name, value } => {
                write!(f, "the row count '{name}' is {value}, not a count (a whole number from 0)")
            }
            GenerateError::OutOfMemory { rows, columns } => write!(
                f,
                "not enough memory for {columns} column(s) of {rows} rows: generate a smaller range at a time"
            ),
        }
    }
}

/// Rows in runs, for [`crate::engine::RowFiller::fill_runs`]: run `j` has `counts[j]` rows,
/// through which the u64 inputs `inputs` hold `values[j * inputs.len()..]`
/// and the coordinate sweeps `first, first + step, ...` (from `first` again
/// at each run). The rows of one task of a one-to-many phase, one run per
/// parent.
#[derive(Clone, Copy, Debug)]
pub struct RunFill<'a> {
    /// The coordinate the rows of a run sweep.
    pub coordinate: usize,
    /// Its value at a run's first row.
    pub first: u64,
    /// Its increment per row (wrapping).
    pub step: u64,
    /// The u64 inputs each run sets.
    pub inputs: &'a [usize],
    /// Their values, `inputs.len()` per run.
    pub values: &'a [u64],
    /// Rows per run.
    pub counts: &'a [usize],
    /// Checked between blocks of rows: the caller wants the run to stop.
    pub stop: &'a Stop<'a>,
}

impl<'a> RunFill<'a> {
    /// The values of run `j`'s inputs.
    pub fn values_of(&self, j: usize) -> &'a [u64] {
        let n = self.inputs.len();
        &self.values[j * n..(j + 1) * n]
    }

    /// The rows of run `j`, as [`Kernel::fill_rows`] takes them.
    pub fn rows_of(&self, j: usize) -> RowFill<'a> {
        RowFill {
            coordinate: self.coordinate,
            first: self.first,
            step: self.step,
            count: self.counts[j],
            stop: self.stop,
        }
    }
}

/// [`crate::engine::RowFiller::fill_runs`] one run at a time: the run's inputs written
/// ([`Kernel::write_u64`]), then its rows filled by `fill` — every filler's
/// way when nothing faster serves, and the fallback of faster ways.
pub fn fill_run_by_run<K: Kernel + ?Sized>(
    kernel: &mut K,
    runs: &RunFill<'_>,
    mut fill: impl FnMut(&mut K, &RowFill<'_>) -> Result<(), GenerateError>,
) -> Result<(), GenerateError> {
    for j in 0..runs.counts.len() {
        if runs.counts[j] == 0 {
            continue;
        }
        for (&input, &value) in runs.inputs.iter().zip(runs.values_of(j)) {
            kernel.write_u64(input, value).map_err(GenerateError::Write)?;
        }
        fill(kernel, &runs.rows_of(j))?;
    }
    Ok(())
}
