//! The binding's one error type, [`HostError`]: every failure an entry point
//! reports, typed (a core error as it came, or what the binding itself
//! refuses), and turned into the exception of `polydat.errors` it raises in
//! one place ([`HostError::into_pyerr`]). Core errors convert with `?`
//! (`From`), and so do Python's own exceptions (passed on as they are).
//!
//! Panic containment: every entry point runs inside [`contained`], so a Rust
//! panic reaches Python as `polydat.InternalError`.

use polydat_core::engine::GenerateError;
use polydat_core::node::guard::guarded;
use polydat_core::{BindError, BuildError, CompileError, EvalError, Refused, WriteError};
use pyo3::call::PyCallArgs;
use pyo3::exceptions::{PyKeyboardInterrupt, PyMemoryError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::pyvalue::to_py;

/// The Python module that defines the exception classes.
const ERRORS_MODULE: &str = "polydat.errors";

/// A result of the binding: a value, or the [`HostError`] to raise.
pub(crate) type HostResult<T> = Result<T, HostError>;

/// What the binding fails with; each variant names the `polydat.errors`
/// class it raises (see [`HostError::into_pyerr`] for the arguments).
pub(crate) enum HostError {
    /// The program does not compile: `CompileError`, every error the
    /// compilation found as a diagnostic.
    Compile(CompileError),
    /// A node failed: `EvalError`, with its attribution and input values.
    Eval(EvalError),
    /// A kernel could not be bound under its outer scope: `BindError` (an
    /// `EvalError` when it is the scope's init that failed).
    Bind(BindError),
    /// A host write was refused: `WriteError`.
    Write(WriteError),
    /// No engine can run the request: `RefusedError`.
    Refused(Refused),
    /// A run of rows failed: the exception of its cause (a write, a node,
    /// memory, a worker thread; `KeyboardInterrupt` when it was cancelled).
    Generate(GenerateError),
    /// A read of a name nothing has: `UnknownNameError`.
    UnknownName {
        /// The whole message, "did you mean" included.
        message: String,
        /// The name read.
        name: String,
        /// The closest name, as "did you mean 'x'?" (the exception's `hint`).
        hint: Option<String>,
    },
    /// A call was given the wrong kind of argument: `ArgumentError`.
    Argument(String),
    /// What `what` needs does not fit in memory: `OutOfMemoryError`.
    OutOfMemory {
        /// What the memory was for ("the text of the rows").
        what: String,
    },
    /// An object one consumer reads at a time was read by a second:
    /// `ConcurrentUseError`.
    Busy(String),
    /// A value polydat cannot write: `WriteError` of kind `unsupported_value`.
    Unsupported(String),
    /// Polydat itself failed: `InternalError`.
    Internal(String),
    /// A failure no finer class names: `PolydatError` itself.
    Polydat(String),
    /// An exception Python raised, passed on as it is.
    Python(PyErr),
}

impl HostError {
    /// `UnknownNameError` for `name`, whose `message` says "did you mean".
    pub(crate) fn unknown_name(message: impl Into<String>, name: &str) -> HostError {
        HostError::UnknownName { message: message.into(), name: name.to_string(), hint: None }
    }

    /// `InternalError` for a panic caught with message `panic` ([`panic_text`]).
    pub(crate) fn panicked(panic: &str) -> HostError {
        HostError::Internal(panic_text(panic))
    }

    /// `OutOfMemoryError`: what `what` needs does not fit.
    pub(crate) fn out_of_memory(what: impl Into<String>) -> HostError {
        HostError::OutOfMemory { what: what.into() }
    }

    /// This error, but a `MemoryError` Python raised while making objects
    /// (numpy's, Python's own) becomes [`HostError::OutOfMemory`] for `what`
    /// (one that already is `polydat.OutOfMemoryError` stays as it is).
    pub(crate) fn or_out_of_memory(self, py: Python<'_>, what: &str) -> HostError {
        let HostError::Python(err) = self else { return self };
        let ours = py.import(ERRORS_MODULE).and_then(|m| m.getattr("OutOfMemoryError"));
        let already = ours.is_ok_and(|class| err.matches(py, class).unwrap_or(false));
        match err.is_instance_of::<PyMemoryError>(py) && !already {
            true => HostError::out_of_memory(what),
            false => HostError::Python(err),
        }
    }

    /// The Python exception this error raises.
    pub(crate) fn into_pyerr(self, py: Python<'_>) -> PyErr {
        self.exception(py).unwrap_or_else(|failed| failed)
    }

    /// The exception, or the error that making it raised.
    fn exception(self, py: Python<'_>) -> PyResult<PyErr> {
        let raised = match self {
            HostError::Python(err) => return Ok(err),
            HostError::Generate(e @ GenerateError::Cancelled) => {
                return Ok(PyKeyboardInterrupt::new_err(e.to_string()))
            }
            HostError::Compile(e) => {
                let more = e.also.iter().map(|d| diagnostic(py, d)).collect::<PyResult<Vec<_>>>()?;
                instance(py, "CompileError", (diagnostic(py, &e)?, PyTuple::new(py, more)?))
            }
            HostError::Eval(e) | HostError::Bind(BindError::Init(e)) | HostError::Generate(GenerateError::Eval(e))
                if e.out_of_memory =>
            {
                instance(py, "OutOfMemoryError", (e.message.as_str(),))
            }
            HostError::Eval(e) | HostError::Bind(BindError::Init(e)) | HostError::Generate(GenerateError::Eval(e)) => {
                let values = e.values.iter().map(|v| to_py(py, v)).collect::<PyResult<Vec<_>>>()?;
                instance(
                    py,
                    "EvalError",
                    (e.message.as_str(), e.node.as_str(), e.outputs.clone(), values, e.row.clone()),
                )
            }
            HostError::Bind(e) => instance(py, "BindError", (e.to_string(), e.kind(), e.name().to_string())),
            HostError::Write(e @ WriteError::OutOfMemory { .. })
            | HostError::Generate(GenerateError::Write(e @ WriteError::OutOfMemory { .. })) => {
                instance(py, "OutOfMemoryError", (e.to_string(),))
            }
            HostError::Write(e) | HostError::Generate(GenerateError::Write(e)) => {
                instance(py, "WriteError", (e.to_string(), e.kind(), e.slot().to_string()))
            }
            HostError::Generate(GenerateError::Unset { names, swept }) => {
                let first = names.first().cloned().unwrap_or_default();
                let message = GenerateError::Unset { names, swept }.to_string();
                instance(py, "WriteError", (message, "unset_input", first))
            }
            HostError::Generate(e @ GenerateError::OutOfMemory { .. }) => {
                instance(py, "OutOfMemoryError", (e.to_string(),))
            }
            HostError::Generate(
                e @ (GenerateError::Panicked | GenerateError::Threads(_) | GenerateError::HostRows(_)),
            ) => instance(py, "InternalError", (e.to_string(),)),
            HostError::Generate(e @ GenerateError::BadCount { .. }) => instance(py, "PolydatError", (e.to_string(),)),
            HostError::Refused(e) => instance(py, "RefusedError", (e.to_string(), e.engine.as_str())),
            HostError::UnknownName { message, name, hint } => instance(py, "UnknownNameError", (message, name, hint)),
            HostError::Argument(message) => instance(py, "ArgumentError", (message,)),
            HostError::OutOfMemory { what } => {
                let message = format!("not enough memory for {what}: ask for fewer rows at a time");
                instance(py, "OutOfMemoryError", (message,))
            }
            HostError::Busy(message) => instance(py, "ConcurrentUseError", (message,)),
            HostError::Unsupported(message) => instance(py, "WriteError", (message, "unsupported_value", "")),
            HostError::Internal(message) => instance(py, "InternalError", (message,)),
            HostError::Polydat(message) => instance(py, "PolydatError", (message,)),
        };
        Ok(PyErr::from_value(raised?))
    }
}

/// An instance of the class `class` of `polydat.errors`, made with `args`.
fn instance<'py>(py: Python<'py>, class: &str, args: impl PyCallArgs<'py>) -> PyResult<Bound<'py, PyAny>> {
    py.import(ERRORS_MODULE)?.getattr(class)?.call1(args)
}

/// One compile error as a `polydat.errors.Diagnostic` (position 0:0 when unknown).
fn diagnostic<'py>(py: Python<'py>, e: &CompileError) -> PyResult<Bound<'py, PyAny>> {
    let (line, col) = e.span.map(|s| (s.line, s.col)).unwrap_or((0, 0));
    instance(py, "Diagnostic", (e.message.as_str(), line, col, e.hint.clone()))
}

impl From<PyErr> for HostError {
    fn from(err: PyErr) -> HostError {
        HostError::Python(err)
    }
}

impl From<CompileError> for HostError {
    fn from(e: CompileError) -> HostError {
        HostError::Compile(e)
    }
}

impl From<EvalError> for HostError {
    fn from(e: EvalError) -> HostError {
        HostError::Eval(e)
    }
}

impl From<BindError> for HostError {
    fn from(e: BindError) -> HostError {
        HostError::Bind(e)
    }
}

impl From<WriteError> for HostError {
    fn from(e: WriteError) -> HostError {
        HostError::Write(e)
    }
}

impl From<Refused> for HostError {
    fn from(e: Refused) -> HostError {
        HostError::Refused(e)
    }
}

impl From<GenerateError> for HostError {
    fn from(e: GenerateError) -> HostError {
        HostError::Generate(e)
    }
}

impl From<BuildError> for HostError {
    fn from(e: BuildError) -> HostError {
        match e {
            BuildError::Compile(c) => HostError::Compile(c),
            BuildError::Refused(r) => HostError::Refused(r),
        }
    }
}

impl From<HostError> for PyErr {
    fn from(e: HostError) -> PyErr {
        Python::with_gil(|py| e.into_pyerr(py))
    }
}

/// Runs `f`, raising what it fails with as its Python exception, and
/// turning a Rust panic into `polydat.InternalError` (a panic must never
/// reach Python as `PanicException`, which `except Exception` misses).
/// Every entry point of the module goes through it.
pub(crate) fn contained<T>(py: Python<'_>, f: impl FnOnce() -> HostResult<T>) -> PyResult<T> {
    match guarded(|| f().map_err(|e| e.into_pyerr(py))) {
        Ok(result) => result,
        Err(panic) => Err(HostError::panicked(&panic).into_pyerr(py)),
    }
}

/// What a caught panic with message `panic` reports (also where no Python
/// exception is raised: an Arrow stream's consumer gets it as text).
pub(crate) fn panic_text(panic: &str) -> String {
    format!("internal error (a Rust panic): {panic}")
}

/// Fails with `OutOfMemoryError` unless `bytes` bytes can be had now.
/// Asked before making many Python objects: pyo3 cannot report a failed
/// allocation of one (it panics), so their memory is tried first.
pub(crate) fn ensure_memory(bytes: usize, what: &str) -> HostResult<()> {
    let mut probe: Vec<u8> = Vec::new();
    probe.try_reserve_exact(bytes).map_err(|_| HostError::out_of_memory(what))
}
