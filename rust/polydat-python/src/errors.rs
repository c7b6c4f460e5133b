//! Core errors as the exceptions of `polydat.errors`, and panic containment:
//! every entry point runs inside [`contained`], so a Rust panic reaches
//! Python as `polydat.InternalError`.

use polydat_core::engine::GenerateError;
use polydat_core::node::guard::guarded;
use polydat_core::{BindError, CompileError, EvalError, Refused, WriteError};
use pyo3::exceptions::{PyKeyboardInterrupt, PyMemoryError};
use pyo3::prelude::*;

use crate::convert::to_py;

/// Runs `f`, turning a Rust panic into `polydat.InternalError` (a panic must
/// never reach Python as `PanicException`, which `except Exception` misses).
/// Every entry point of the module goes through it.
pub(crate) fn contained<T>(py: Python<'_>, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match guarded(f) {
        Ok(result) => result,
        Err(panic) => Err(py_error(py, "InternalError", (format!("internal error (a Rust panic): {panic}"),))),
    }
}

/// Instantiates an exception class of `polydat.errors`.
pub(crate) fn py_error<'py, A>(py: Python<'py>, class: &str, args: A) -> PyErr
where
    A: pyo3::call::PyCallArgs<'py>,
{
    let made = py.import("polydat.errors").and_then(|m| m.getattr(class)).and_then(|c| c.call1(args));
    match made {
        Ok(obj) => PyErr::from_value(obj),
        Err(e) => e,
    }
}

/// A core compile error as `polydat.CompileError`, carrying every error the
/// compilation found (the first, then [`CompileError::also`]) as diagnostics.
pub(crate) fn compile_error(py: Python<'_>, e: &CompileError) -> PyErr {
    let diagnostic = |e: &CompileError| {
        let (line, col) = e.span.map(|s| (s.line, s.col)).unwrap_or((0, 0));
        py.import("polydat.errors")
            .and_then(|m| m.getattr("Diagnostic"))
            .and_then(|d| d.call1((e.message.as_str(), line, col, e.hint.clone())))
    };
    let made =
        diagnostic(e).and_then(|first| Ok((first, e.also.iter().map(diagnostic).collect::<PyResult<Vec<_>>>()?)));
    match made {
        Ok((first, more)) => match pyo3::types::PyTuple::new(py, more) {
            Ok(more) => py_error(py, "CompileError", (first, more)),
            Err(err) => err,
        },
        Err(err) => err,
    }
}

pub(crate) fn eval_error(py: Python<'_>, e: &EvalError) -> PyErr {
    let values: PyResult<Vec<PyObject>> = e.values.iter().map(|v| to_py(py, v)).collect();
    let values = match values {
        Ok(v) => v,
        Err(err) => return err,
    };
    let row = e.row.clone();
    py_error(py, "EvalError", (e.message.as_str(), e.node.as_str(), e.outputs.clone(), values, row))
}

pub(crate) fn unknown_name(py: Python<'_>, message: String, name: &str) -> PyErr {
    py_error(py, "UnknownNameError", (message, name))
}

pub(crate) fn write_error(py: Python<'_>, e: &WriteError) -> PyErr {
    py_error(py, "WriteError", (e.to_string(), e.kind(), e.slot()))
}

pub(crate) fn bind_error(py: Python<'_>, e: &BindError) -> PyErr {
    match e {
        BindError::Init(ev) => eval_error(py, ev),
        other => py_error(py, "BindError", (other.to_string(), other.kind(), other.name().to_string())),
    }
}

pub(crate) fn refused(py: Python<'_>, e: &Refused) -> PyErr {
    py_error(py, "RefusedError", (e.to_string(), e.engine.as_str()))
}

pub(crate) fn generate_error(py: Python<'_>, e: GenerateError) -> PyErr {
    match e {
        GenerateError::Write(w) => write_error(py, &w),
        GenerateError::Eval(ev) => eval_error(py, &ev),
        GenerateError::OutOfMemory { .. } => py_error(py, "OutOfMemoryError", (e.to_string(),)),
        GenerateError::Panicked | GenerateError::Threads(_) | GenerateError::HostRows(_) => {
            py_error(py, "InternalError", (e.to_string(),))
        }
        GenerateError::Cancelled => PyKeyboardInterrupt::new_err(e.to_string()),
        GenerateError::BadCount { .. } => py_error(py, "PolydatError", (e.to_string(),)),
        GenerateError::Unset { ref names, .. } => {
            let first = names.first().cloned().unwrap_or_default();
            py_error(py, "WriteError", (e.to_string(), "unset_input", first))
        }
    }
}

/// `polydat.OutOfMemoryError`: what `what` needs does not fit in memory.
pub(crate) fn out_of_memory(py: Python<'_>, what: &str) -> PyErr {
    py_error(py, "OutOfMemoryError", (format!("not enough memory for {what}: ask for fewer rows at a time"),))
}

/// A memory error raised while making Python objects (numpy's, Python's
/// own) as `polydat.OutOfMemoryError`; any other error as it is.
pub(crate) fn as_out_of_memory(py: Python<'_>, err: PyErr, what: &str) -> PyErr {
    let ours = py.import("polydat.errors").and_then(|m| m.getattr("OutOfMemoryError"));
    let already = ours.is_ok_and(|class| err.matches(py, class).unwrap_or(false));
    match err.is_instance_of::<PyMemoryError>(py) && !already {
        true => out_of_memory(py, what),
        false => err,
    }
}

/// Fails with `polydat.OutOfMemoryError` unless `bytes` bytes can be had
/// now. Asked before making many Python objects: pyo3 cannot report a
/// failed allocation of one (it panics), so their memory is tried first.
pub(crate) fn ensure_memory(py: Python<'_>, bytes: usize, what: &str) -> PyResult<()> {
    let mut probe: Vec<u8> = Vec::new();
    probe.try_reserve_exact(bytes).map_err(|_| out_of_memory(py, what))
}

pub(crate) fn unsupported(py: Python<'_>, message: String) -> PyErr {
    py_error(py, "WriteError", (message, "unsupported_value", ""))
}
