//! What only the tests call (built with the `test-hooks` feature, which
//! the test builds turn on and `pip install .` leaves off): `__probe`
//! counts, a panic inside the containment, one column through the text
//! encoders.

use polydat_core::columns::formats::Writer;
use polydat_core::columns::Column;
use polydat_core::engine::{self};
use polydat_core::Value;
use pyo3::exceptions::PyMemoryError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::convert::{port_type, py_bytes, to_value};
use crate::errors::{contained, HostError};
use crate::run::output_format;

/// How many times `__probe` nodes keyed `key` have evaluated.
#[pyfunction]
pub(crate) fn probe_count(key: &str) -> u64 {
    polydat_core::nodes::diagnostic::probe_count(key)
}

/// Resets the `__probe` evaluation count of `key`.
#[pyfunction]
pub(crate) fn probe_reset(key: &str) {
    polydat_core::nodes::diagnostic::probe_reset(key)
}

/// Panics with `message` inside the binding's panic containment (for tests:
/// the panic must surface as `polydat.InternalError`).
#[pyfunction]
pub(crate) fn _raise_panic(py: Python<'_>, message: &str) -> PyResult<()> {
    contained(py, || panic!("{message}"))
}

/// The text `polydat run` writes for one column of type `type_name` holding
/// `values` (with `header` as its name): CSV (`format="csv"`, header line
/// first) or JSON Lines. For tests of the text encoders.
#[pyfunction]
pub(crate) fn _encode_column<'py>(
    py: Python<'py>,
    type_name: &str,
    header: &str,
    values: Vec<Bound<'py, PyAny>>,
    format: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    contained(py, || {
        let ty = port_type(type_name)?;
        let mut column = Column::new(ty, values.len()).ok_or_else(|| PyMemoryError::new_err("no memory"))?;
        let mut parts = column.split(&[values.len()]);
        for v in &values {
            let value = to_value(py, v)?;
            let value = match value {
                Value::None => Value::None,
                other => engine::adapt_boundary(header, ty, other)?,
            };
            parts[0].push(&value);
        }
        let done = parts.into_iter().map(|p| p.done()).collect();
        column.absorb(done).map_err(|_| HostError::out_of_memory("the rows"))?;
        let Writer::Text(text) = output_format(format)?.writer else {
            return Err(HostError::Argument(format!("{format} is not a text format")));
        };
        let mut out = Vec::new();
        text.header(&[header], &mut out);
        text.rows(&[header], &[&column], &mut out).map_err(|_| HostError::out_of_memory("the text of the rows"))?;
        py_bytes(py, &out)
    })
}

/// Adds the test hooks to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(probe_count, m)?)?;
    m.add_function(wrap_pyfunction!(probe_reset, m)?)?;
    m.add_function(wrap_pyfunction!(_raise_panic, m)?)?;
    m.add_function(wrap_pyfunction!(_encode_column, m)?)?;
    Ok(())
}
