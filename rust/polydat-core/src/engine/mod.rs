//! Engines: one module per engine, each a kernel type over the shared
//! [`Program`]. A kernel is one mutable state used by one thread at a time;
//! [`Kernel`] is the engine-neutral surface the host drives, and
//! [`Kernel::rows`] its one entry for loops of rows ([`rows`]). The row
//! driver that runs kernels on workers lives in [`crate::run`], scope
//! chains in [`crate::scope`].

pub mod compiled;
pub mod failure;
pub mod mixed;
pub mod p1;
pub mod p2;
pub mod p3;
pub mod rows;
pub mod scope_init;

pub use crate::provenance::Provenance;
pub use rows::{
    fill_row_by_row, fill_run_by_run, GenerateError, RowFill, RowFiller, RunFill, Stop, ValueRows, STOP_CHECK_ROWS,
};

use crate::compile::{compile, CompileOptions};
use crate::error::{BuildError, EvalError, WriteError};
use crate::ir::{GraphIr, InputKind};
use crate::program::explain::EnginePlan;
pub use crate::program::ColumnSource;
use crate::program::Program;
use crate::types::PortType;
use crate::value::Value;
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
