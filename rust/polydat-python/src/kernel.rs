//! The `Kernel` class: one mutable state over a program.

use polydat_core::engine::{self, Kernel as CoreKernel, KernelMaker};
use polydat_core::scope::bind::{Scope, ScopedKernel};
use polydat_core::Value;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Arc;

use crate::convert::to_value;
use crate::errors::{contained, HostError, HostResult};
use crate::pyvalue::to_py;

/// One mutable state over a program: a scope, root or bound under an outer
/// kernel's. Calls lock it, so it is safe to share, but use it from one
/// thread at a time (give each thread its own kernel).
///
/// Lock discipline (what keeps kernels of one tree on several threads free
/// of deadlocks): a scope's lock is only ever taken with the GIL released
/// ([`Kernel::locked`]), and no Python object is made while it is held, so
/// no thread waits for a kernel lock while holding the GIL, and none waits
/// for the GIL while holding a kernel lock.
#[pyclass(frozen, module = "polydat._core")]
pub(crate) struct Kernel {
    pub(crate) scope: Arc<Scope>,
}

impl Kernel {
    /// Runs `f` on this scope's locked kernel with the GIL released; the
    /// lock is dropped before the GIL is taken back. Convert what `f`
    /// returns to Python objects only afterwards.
    pub(crate) fn locked<R: Send>(&self, py: Python<'_>, f: impl FnOnce(&mut ScopedKernel) -> R + Send) -> R {
        py.allow_threads(|| f(&mut self.scope.lock()))
    }

    /// The bound inputs' current values (what a `generate` worker's kernel
    /// already holds) and a maker of such kernels.
    pub(crate) fn maker(&self, py: Python<'_>) -> (KernelMaker, Vec<(usize, Value)>) {
        let preset = self.locked(py, |kernel| Self::preset(kernel));
        let scope = self.scope.clone();
        let maker: KernelMaker = Arc::new(move || Box::new(scope.lock().sibling()));
        (maker, preset)
    }

    /// The bound externs' current values of `kernel`.
    fn preset(kernel: &ScopedKernel) -> Vec<(usize, Value)> {
        let program = kernel.program();
        (0..program.inputs.len())
            .filter(|&i| program.inputs[i].kind == polydat_core::ir::InputKind::Extern)
            .map(|i| (i, kernel.input_value(i)))
            .filter(|(i, v)| kernel.is_bound(*i) || !v.is_none())
            .collect()
    }
}

#[pymethods]
impl Kernel {
    /// Writes coordinates (positional values, then inputs by keyword) as one
    /// write: if any is refused, nothing is written.
    #[pyo3(signature = (values, named))]
    fn set_inputs(
        &self,
        py: Python<'_>,
        values: Vec<Bound<'_, PyAny>>,
        named: Vec<(String, Bound<'_, PyAny>)>,
    ) -> PyResult<()> {
        contained(py, || {
            let values: Vec<Value> = values.iter().map(|v| to_value(py, v)).collect::<HostResult<_>>()?;
            let named: Vec<(String, Value)> =
                named.into_iter().map(|(n, v)| Ok((n, to_value(py, &v)?))).collect::<HostResult<_>>()?;
            Ok(self.locked(py, |kernel| engine::write_inputs(kernel, values, named, true))?)
        })
    }

    /// Writes an extern by name (type-checked); on a `shared` slot, publishes to its cell.
    fn set(&self, py: Python<'_>, name: &str, value: Bound<'_, PyAny>) -> PyResult<()> {
        contained(py, || {
            let value = to_value(py, &value)?;
            Ok(self.locked(py, |kernel| engine::set_named(kernel, name, value, false))?)
        })
    }

    /// Reads one output (or an input by name).
    fn pull(&self, py: Python<'_>, name: &str) -> PyResult<PyObject> {
        contained(py, || {
            let program = self.scope.program();
            if let Some(o) = program.output(name) {
                let v = self.locked(py, |kernel| kernel.pull(o))?;
                return Ok(to_py(py, &v)?);
            }
            if let Some(i) = program.input(name) {
                return Ok(to_py(py, &self.locked(py, |kernel| kernel.input_value(i)))?);
            }
            Err(HostError::unknown_name(program.unknown_name(name), name))
        })
    }

    /// Reads every output as one read: {name: value}.
    fn eval<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        contained(py, || {
            let values = self.locked(py, |kernel| kernel.eval())?;
            let d = PyDict::new(py);
            for (o, v) in self.scope.program().outputs.iter().zip(&values) {
                d.set_item(&o.name, to_py(py, v)?)?;
            }
            Ok(d)
        })
    }

    /// Makes every step stale; inputs are kept.
    fn invalidate_all(&self, py: Python<'_>) -> PyResult<()> {
        contained(py, || {
            self.locked(py, |kernel| kernel.invalidate_all());
            Ok(())
        })
    }

    /// Re-runs scope init: every `const` is captured again from the current
    /// inputs (at the next read).
    fn init(&self, py: Python<'_>) -> PyResult<()> {
        self.invalidate_all(py)
    }

    /// Current values of every input: {name: value}.
    fn input_values<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        contained(py, || {
            let count = self.scope.program().inputs.len();
            let values = self.locked(py, |kernel| (0..count).map(|i| kernel.input_value(i)).collect::<Vec<_>>());
            let d = PyDict::new(py);
            for (def, value) in self.scope.program().inputs.iter().zip(&values) {
                d.set_item(&def.name, to_py(py, value)?)?;
            }
            Ok(d)
        })
    }

    /// The engine the kernel runs on (`p1`, `p2/pull`, ...).
    #[getter]
    fn engine(&self) -> &'static str {
        self.scope.kind().name()
    }

    /// How each input is bound, as (name, form): `own`, `copied`, `live`,
    /// `cell` or `iteration`.
    fn bindings(&self, py: Python<'_>) -> PyResult<Vec<(String, &'static str)>> {
        contained(py, || {
            let inputs = &self.scope.program().inputs;
            Ok(self.locked(py, |kernel| {
                inputs.iter().enumerate().map(|(i, d)| (d.name.clone(), kernel.binding(i))).collect()
            }))
        })
    }

    /// The cells visible in this scope and the names among them it only passes through.
    fn cells(&self) -> (Vec<String>, Vec<String>) {
        (self.scope.cell_names(), self.scope.transit().to_vec())
    }

    /// The iteration values the kernel was bound with, as (name, value).
    fn iteration(&self, py: Python<'_>) -> PyResult<Vec<(String, PyObject)>> {
        self.scope.iteration().iter().map(|(n, v)| Ok((n.clone(), to_py(py, v)?))).collect()
    }

    /// The manifest of this scope (JSON text): its names, then those of the
    /// outer scopes it does not shadow.
    fn manifest_json(&self, py: Python<'_>) -> PyResult<String> {
        contained(py, || Ok(self.scope.manifest().to_json()))
    }

    /// The current value of `name` as this scope sees it (its own binding,
    /// else the nearest outer scope's); raises UnknownNameError when no
    /// scope of the chain binds it.
    fn value_of(&self, py: Python<'_>, name: &str) -> PyResult<PyObject> {
        contained(py, || match py.allow_threads(|| self.scope.value_of(name))? {
            Some(v) => Ok(to_py(py, &v)?),
            None => {
                let names: Vec<String> = self.scope.manifest().names().map(str::to_string).collect();
                let close = polydat_core::suggest::did_you_mean(name, names.iter().map(String::as_str));
                let said = close.clone().unwrap_or_else(|| format!("names here: {}", names.join(", ")));
                let message = format!("no scope of this chain binds '{name}'; {said}");
                Err(HostError::UnknownName { message, name: name.to_string(), hint: close })
            }
        })
    }
}
