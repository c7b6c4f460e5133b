//! A core value as a Python object ([`to_py`]). Its own module because
//! both [`crate::errors`] (an `EvalError`'s input values) and the modules
//! that return values need it, and it needs neither of them.

use polydat_core::Value;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyList, PyString};

/// Converts a core value to a Python value.
pub(crate) fn to_py(py: Python<'_>, v: &Value) -> PyResult<PyObject> {
    Ok(match v {
        Value::None => py.None(),
        Value::U64(x) => x.into_pyobject(py)?.into_any().unbind(),
        Value::I64(x) => x.into_pyobject(py)?.into_any().unbind(),
        Value::U32(x) => x.into_pyobject(py)?.into_any().unbind(),
        Value::I32(x) => x.into_pyobject(py)?.into_any().unbind(),
        Value::U16(x) => x.into_pyobject(py)?.into_any().unbind(),
        Value::I16(x) => x.into_pyobject(py)?.into_any().unbind(),
        Value::U8(x) => x.into_pyobject(py)?.into_any().unbind(),
        Value::I8(x) => x.into_pyobject(py)?.into_any().unbind(),
        Value::U128(x) => x.as_u128().into_pyobject(py)?.into_any().unbind(),
        Value::I128(x) => x.as_i128().into_pyobject(py)?.into_any().unbind(),
        Value::F64(x) => x.into_pyobject(py)?.into_any().unbind(),
        Value::F32(x) => (*x as f64).into_pyobject(py)?.into_any().unbind(),
        Value::F16(x) => x.to_f64().into_pyobject(py)?.into_any().unbind(),
        Value::Bool(x) => PyBool::new(py, *x).to_owned().into_any().unbind(),
        Value::Str(s) | Value::Json(s) => PyString::new(py, s).into_any().unbind(),
        Value::Bytes(b) => PyBytes::new(py, b).into_any().unbind(),
        Value::Timestamp(ms) => datetime64(py, *ms, "ms")?,
        Value::Date(days) => datetime64(py, i64::from(*days), "D")?,
        Value::Decimal(d) => py.import("decimal")?.getattr("Decimal")?.call1((d.to_string(),))?.unbind(),
        // A list is a Python list of ints (`vec_i32`, `vec_i64`) or floats (`vec_f64`).
        Value::Vector(t, bytes) => {
            let mut items = Vec::new();
            let mut index = 0;
            while let Some(element) = polydat_core::value::list_element(*t, bytes, index) {
                items.push(to_py(py, &element)?);
                index += 1;
            }
            PyList::new(py, items)?.into_any().unbind()
        }
    })
}

/// `numpy.datetime64(count, unit)`: a timestamp (`ms`) or date (`D`) as numpy
/// holds it, whatever its year.
fn datetime64(py: Python<'_>, count: i64, unit: &str) -> PyResult<PyObject> {
    Ok(py.import("numpy")?.getattr("datetime64")?.call1((count, unit))?.unbind())
}
