//! Engines: one module per engine, each a kernel type over the shared
//! [`Program`]. A kernel is one mutable state used by one thread at a time;
//! [`Kernel`] is the engine-neutral surface the host drives, and [`generate()`]
//! runs the row loop (optionally on several threads, one kernel each).

pub mod bench;
pub mod bind;
pub mod cell;
pub mod column;
pub mod compiled;
pub mod failure;
pub mod fanout;
pub mod generate;
pub mod guard;
pub mod mixed;
pub mod p1;
pub mod p2;
pub mod p3;
pub mod scope;
pub mod text;
pub mod workers;

pub use crate::provenance::Provenance;
pub use generate::*;

use crate::compile::{compile, CompileOptions};
use crate::error::{BuildError, EvalError, WriteError};
use crate::ir::{GraphIr, InputKind};
use crate::program::explain::EnginePlan;
pub use crate::program::ColumnSource;
use crate::program::Program;
use crate::types::PortType;
use crate::value::Value;
use column::ColumnPart;
use std::sync::Arc;

pub use crate::compile::select::{EngineKind, ENGINE_NAMES, ENGINE_REQUESTS, PROVENANCE_REQUESTS};

/// The whole build phase behind `polydat.compile`: checks the (engine,
/// provenance) request before anything is compiled, compiles `ir` with
/// `options` for it (the selection stage chooses the engine), and returns
/// the program with the engine chosen.
pub fn build(
    ir: &GraphIr,
    engine: &str,
    provenance: &str,
    options: CompileOptions,
) -> Result<(Program, EngineKind), BuildError> {
    let checked = CompileOptions::for_request(engine, provenance)?;
    let options =
        CompileOptions { request: checked.request, engine: checked.engine, provenance: checked.provenance, ..options };
    let program = compile(ir, &options)?;
    let kind = program.selection.engine;
    Ok((program, kind))
}

/// How `kind` runs `program`, for `explain`.
pub fn describe(program: &Arc<Program>, kind: EngineKind) -> EnginePlan {
    let plan = |plan: String| EnginePlan { running: kind.name().to_string(), plan, ..EnginePlan::default() };
    match kind {
        EngineKind::P1 => plan(String::new()),
        EngineKind::P2(mode) => plan(p2::describe(program, mode)),
        EngineKind::P3(mode) => plan(p3::describe(program, mode)),
        EngineKind::Mixed => mixed::describe(program),
    }
}

/// A new kernel of `kind` over `program`.
pub fn new_kernel(program: &Arc<Program>, kind: EngineKind) -> Box<dyn Kernel> {
    match kind {
        EngineKind::P1 => Box::new(p1::P1Kernel::new(program.clone())),
        EngineKind::P2(mode) => p2::new_kernel(program, mode),
        EngineKind::P3(mode) => p3::new_kernel(program, mode),
        EngineKind::Mixed => mixed::new_kernel(program),
    }
}

/// A loop of row reads on one kernel, made by [`Kernel::row_reader`].
pub trait RowReader {
    /// Writes `values[i]` into u64 input `i` for each `i`, then reads the
    /// reader's outputs as raw words into `words`: what
    /// [`Kernel::pull_slots_at`] does, with the same results and errors.
    fn read(&mut self, values: &[u64], words: &mut [u64]) -> Result<(), EvalError>;
}

/// The row reader of a kernel with nothing to prepare: `pull_slots_at`.
struct ReadsAt<'k, K: ?Sized> {
    kernel: &'k mut K,
    outs: &'k [usize],
}

impl<K: Kernel + ?Sized> RowReader for ReadsAt<'_, K> {
    fn read(&mut self, values: &[u64], words: &mut [u64]) -> Result<(), EvalError> {
        self.kernel.pull_slots_at(values, self.outs, words)
    }
}

/// Makes the kernel of one `generate` worker.
pub type KernelMaker = Arc<dyn Fn() -> Box<dyn Kernel> + Send + Sync>;

/// The engine-neutral kernel surface.
pub trait Kernel: Send + Sync {
    /// The program this kernel runs.
    fn program(&self) -> &Arc<Program>;
    /// Writes input `input` (coordinate or extern); the value is adapted to the slot type.
    fn write(&mut self, input: usize, value: Value) -> Result<(), WriteError>;
    /// Fast path: writes a u64 into a u64-typed input.
    fn write_u64(&mut self, input: usize, value: u64);
    /// Reads output `out`, evaluating what is stale in its cone.
    fn pull(&mut self, out: usize) -> Result<Value, EvalError>;
    /// Reads a scalar output as its 64-bit slot encoding (f64 as bits, narrow
    /// ints extended, bool 0/1) — the raw u64 read. Refuses `None` and
    /// by-reference (str/bytes/json) outputs with an error naming the output.
    fn pull_slot(&mut self, out: usize) -> Result<u64, EvalError> {
        let value = self.pull(out)?;
        crate::node::kit::value_to_slot(&value).ok_or_else(|| raw_read_refused(self.program(), out, &value))
    }
    /// Reads the outputs `outs` as ONE read, as raw words (see
    /// [`Kernel::pull_slot`]): `words[i]` receives output `outs[i]`. The
    /// fast row of `generate` when every column is a scalar; a `None` or
    /// by-reference output is refused, as `pull_slot` refuses it.
    fn pull_slots(&mut self, outs: &[usize], words: &mut [u64]) -> Result<(), EvalError> {
        for (word, &out) in words.iter_mut().zip(outs) {
            *word = self.pull_slot(out)?;
        }
        Ok(())
    }
    /// Writes `values[i]` into u64 input `i` for each `i` (as
    /// [`Kernel::write_u64`] writes it), then reads the outputs `outs` as ONE
    /// read of raw words (as [`Kernel::pull_slots`]): the program evaluated
    /// as a function of its leading inputs, one call per row. Like
    /// `write_u64`'s `input`, each `i` must name an input of the program.
    fn pull_slots_at(&mut self, values: &[u64], outs: &[usize], words: &mut [u64]) -> Result<(), EvalError> {
        for (input, &value) in values.iter().enumerate() {
            self.write_u64(input, value);
        }
        self.pull_slots(outs, words)
    }
    /// A loop of [`Kernel::pull_slots_at`] reads of the same outputs `outs`,
    /// prepared once: the reader's [`RowReader::read`] is `pull_slots_at` on
    /// this kernel, and while it lives nothing else touches the kernel, so
    /// an engine may check once what every such read needs (Raw's native
    /// row read: one call per row, nothing else).
    fn row_reader<'k>(&'k mut self, outs: &'k [usize]) -> Box<dyn RowReader + 'k> {
        Box::new(ReadsAt { kernel: self, outs })
    }
    /// Reads the outputs `outs` as ONE read (volatile steps run once for all of
    /// them) and writes each value as the next row of its column part: one
    /// row of `generate`.
    fn pull_row(&mut self, outs: &[usize], columns: &mut [ColumnPart<'_>]) -> Result<(), EvalError> {
        for (column, &out) in columns.iter_mut().zip(outs) {
            self.pull_into(out, column)?;
        }
        Ok(())
    }
    /// Reads output `out` and writes it as the next row of `column`.
    fn pull_into(&mut self, out: usize, column: &mut ColumnPart<'_>) -> Result<(), EvalError>;
    /// Fills `count` rows of `generate`: for each, writes the u64 `cycle`
    /// into coordinate `coordinate` (advancing by `step`, wrapping) and
    /// appends the outputs `outs` to `columns` as one read. (A default
    /// method is compiled for each engine type, so the loop makes no dynamic
    /// call per row.)
    fn fill_rows(
        &mut self,
        rows: &RowFill<'_>,
        outs: &[usize],
        columns: &mut [ColumnPart<'_>],
    ) -> Result<(), GenerateError> {
        fill_row_by_row(self, rows, outs, columns)
    }
    /// Fills rows in runs ([`fanout::RunFill`]): each run's u64 inputs take
    /// its values, then its rows are filled as [`Kernel::fill_rows`] fills
    /// them. One call for many short runs (a one-to-many phase's parents);
    /// the rows are those of one `write_u64` and `fill_rows` per run.
    fn fill_runs(
        &mut self,
        runs: &fanout::RunFill<'_>,
        outs: &[usize],
        columns: &mut [ColumnPart<'_>],
    ) -> Result<(), GenerateError> {
        fanout::fill_run_by_run(self, runs, outs, columns)
    }
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

/// Writes coordinate `i` (generate's fixed inputs), refusing `None`.
fn write_coordinate(kernel: &mut dyn Kernel, i: usize, value: Value) -> Result<(), WriteError> {
    if value.is_none() {
        let def = &kernel.program().inputs[i];
        return Err(WriteError::TypeMismatch { slot: def.name.clone(), expected: def.ty, got: "None".into() });
    }
    kernel.write(i, value)
}
