//! The engine-neutral kernel surface: [`Kernel`], and [`RowFiller`], its
//! one entry for loops of rows, with the rows a filler fills ([`RowFill`],
//! [`RowRuns`]), the stop request it checks between blocks of rows
//! ([`Stop`]) and the errors a fill ends with ([`GenerateError`]); and the
//! writes every engine shares: inputs checked and adapted through the
//! boundary catalog before anything is written, and the refusal of a raw
//! read.

use crate::columns::ColumnPart;
use crate::error::{EvalError, WriteError};
use crate::ir::InputKind;
use crate::program::Program;
use crate::types::PortType;
use crate::value::Value;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Makes the kernel of one `generate` worker.
pub type KernelMaker = Arc<dyn Fn() -> Box<dyn Kernel> + Send + Sync>;

/// The engine-neutral kernel surface: writes, reads, and one entry for
/// loops of rows ([`Kernel::rows`]), whose strategies (a native row loop,
/// blocks, a sweep per row, a native row read) each engine chooses itself.
pub trait Kernel: Send + Sync {
    /// The program this kernel runs.
    fn program(&self) -> &Arc<Program>;
    /// Writes input `input` (coordinate or extern); the value is adapted to
    /// the slot type through the boundary catalog, or refused.
    fn write(&mut self, input: usize, value: Value) -> Result<(), WriteError>;
    /// Writes a u64 into input `input`: the raw form of [`Kernel::write`],
    /// with the same result (a u64 input takes the fast path).
    fn write_u64(&mut self, input: usize, value: u64) -> Result<(), WriteError>;
    /// Reads output `out`, evaluating what is stale in its cone.
    fn pull(&mut self, out: usize) -> Result<Value, EvalError>;
    /// Reads a scalar output as its 64-bit slot encoding (f64 as bits, narrow
    /// ints extended, bool 0/1): the raw form of [`Kernel::pull`]. Refuses
    /// `None` and by-reference (str/bytes/json) outputs with an error naming
    /// the output ([`raw_read_refused`]).
    fn pull_word(&mut self, out: usize) -> Result<u64, EvalError>;
    /// Reads every output, as one read.
    fn eval(&mut self) -> Result<Vec<Value>, EvalError>;
    /// The current value of input `input`.
    fn input_value(&self, input: usize) -> Value;
    /// Makes every step stale; inputs are kept.
    fn invalidate_all(&mut self);
    /// Runs the scope-init path now (constants, `const` captures and what
    /// they read) if it has not run since creation or the last
    /// [`Kernel::invalidate_all`]; otherwise it runs at the first read.
    fn start(&mut self) -> Result<(), EvalError>;
    /// A row filler of the outputs `outs`: reads of those outputs row after
    /// row, prepared once. While it lives nothing else touches the kernel,
    /// so the engine checks once what its fastest strategy needs. A kernel
    /// bound into a scope chain brings its bindings up to date first (the
    /// error is a binding's).
    fn rows<'k>(&'k mut self, outs: &'k [usize]) -> Result<Box<dyn RowFiller + 'k>, EvalError>;
}

/// The error of a raw u64 read of a `None` or by-reference output.
pub fn raw_read_refused(program: &Program, out: usize, value: &Value) -> EvalError {
    let def = &program.outputs[out];
    let what = if value.is_none() { "None".to_string() } else { format!("a {} (by reference)", def.ty) };
    EvalError::attributed(
        &format!("raw u64 read of output '{}' refused: it holds {what}", def.name),
        "raw read",
        std::slice::from_ref(&def.name),
        Vec::new(),
        &format!("`{}`", def.name),
    )
}

/// Converts a host value to the type of a slot through the boundary catalog
/// ([`crate::nodes::convert::boundary_value`]); a value that does not fit is a
/// `TypeMismatch` naming the slot, its type and what was given.
pub fn adapt_boundary(slot: &str, ty: PortType, value: Value) -> Result<Value, WriteError> {
    crate::nodes::convert::boundary_value(value, ty).map_err(|v| WriteError::TypeMismatch {
        slot: slot.to_string(),
        expected: ty,
        got: match v.port_type() {
            _ if crate::nodes::convert::is_nat(&v, ty) => crate::calendar::NAT_REFUSED.to_string(),
            // A list whose elements do not fit says which one.
            Some(PortType::Json | PortType::Str) if ty.vector().is_some() => match (ty.vector(), v.as_str()) {
                (Some(t), Some(text)) => match crate::vector::parse_host(t, text) {
                    Err(e) => format!("the list {}: {e}", v.display_text()),
                    Ok(_) => format!("json value {}", v.display_text()),
                },
                _ => format!("json value {}", v.display_text()),
            },
            Some(t) => format!("{t} value {}", v.display_text()),
            None => "None".into(),
        },
    })
}

/// Writes coordinates positionally (`set_inputs(5, 7)`), as one write (see [`write_inputs`]).
pub fn set_coordinates(kernel: &mut dyn Kernel, values: Vec<Value>) -> Result<(), WriteError> {
    write_inputs(kernel, values, Vec::new(), true)
}

/// Writes one input by name: coordinates by keyword (`set_inputs(cycle=5)`)
/// when `coordinates` is true, externs otherwise (`set("region", ...)`).
pub fn set_named(kernel: &mut dyn Kernel, name: &str, value: Value, coordinates: bool) -> Result<(), WriteError> {
    write_inputs(kernel, Vec::new(), vec![(name.to_string(), value)], coordinates)
}

/// Writes several inputs as ONE write: the leading coordinates positionally,
/// then inputs by name (externs, and coordinates too when `coordinates` is
/// true). Every target and value is checked first — the name exists, the
/// slot may be written this way, the value fits its type (through the
/// boundary catalog), a coordinate is not `None` — and nothing is written
/// unless all of them pass, so a refused write changes nothing.
pub fn write_inputs(
    kernel: &mut dyn Kernel,
    positional: Vec<Value>,
    named: Vec<(String, Value)>,
    coordinates: bool,
) -> Result<(), WriteError> {
    let program = kernel.program().clone();
    let count = program.coord_count;
    if positional.len() > count {
        return Err(WriteError::TooManyCoordinates { given: positional.len(), count });
    }
    let mut writes = Vec::with_capacity(positional.len() + named.len());
    writes.extend(positional.into_iter().enumerate());
    for (name, value) in named {
        let Some(i) = program.input(&name) else {
            return Err(WriteError::UnknownInput { name, known: program.input_names() });
        };
        match program.inputs[i].kind {
            InputKind::Coordinate if !coordinates => return Err(WriteError::CoordinateSlot { slot: name }),
            _ => writes.push((i, value)),
        }
    }
    let mut checked = Vec::with_capacity(writes.len());
    for (i, value) in writes {
        let def = &program.inputs[i];
        if value.is_none() && def.kind == InputKind::Coordinate {
            return Err(WriteError::TypeMismatch { slot: def.name.clone(), expected: def.ty, got: "None".into() });
        }
        checked.push((i, adapt_boundary(&def.name, def.ty, value)?));
    }
    for (i, value) in checked {
        kernel.write(i, value)?;
    }
    Ok(())
}

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
    /// Fills row runs ([`RowRuns`]): each run's u64 inputs take
    /// its values, then its rows are filled as [`RowFiller::fill`] fills
    /// them. One call for many short runs (a one-to-many phase's parents);
    /// the rows are those of the inputs' writes and one `fill` per run.
    fn fill_row_runs(&mut self, runs: &RowRuns<'_>, columns: &mut [ColumnPart<'_>]) -> Result<(), GenerateError>;
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
    /// [`crate::generation::fanout`]).
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

/// Row runs, for [`RowFiller::fill_row_runs`]: a *row run* is a stretch of
/// rows through which some u64 inputs hold the same values. Run `j` has
/// `counts[j]` rows, through which the u64 inputs `inputs` hold
/// `values[j * inputs.len()..]` and the coordinate sweeps `first, first +
/// step, ...` (from `first` again at each run). The rows of one task of a
/// one-to-many phase, one run per parent.
#[derive(Clone, Copy, Debug)]
pub struct RowRuns<'a> {
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

impl<'a> RowRuns<'a> {
    /// The values of run `j`'s inputs.
    pub fn values_of(&self, j: usize) -> &'a [u64] {
        let n = self.inputs.len();
        &self.values[j * n..(j + 1) * n]
    }

    /// The rows of run `j`, as [`RowFiller::fill`] takes them.
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
