//! Python values to core values, and columns back: one value
//! ([`to_value`]; the other way is [`crate::pyvalue::to_py`]), a whole
//! column as numpy ([`column_to_py`]), a type keyword as a port type
//! ([`port_type`]).

use numpy::{IntoPyArray, PyArray1};
use polydat_core::columns::{Column, ColumnData};
use polydat_core::Value;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString};
use std::sync::Arc;

use crate::errors::{ensure_memory, HostError, HostResult};
use crate::host;

/// `bytes` as a Python `bytes` object (`polydat.OutOfMemoryError` when it does not fit).
pub(crate) fn py_bytes<'py>(py: Python<'py>, bytes: &[u8]) -> HostResult<Bound<'py, PyBytes>> {
    PyBytes::new_with(py, bytes.len(), |buf| {
        buf.copy_from_slice(bytes);
        Ok(())
    })
    .map_err(|e| HostError::from(e).or_out_of_memory(py, "the text of the rows"))
}

/// Converts a Python value to a core value. Builtin `None`, `bool`, `int`,
/// `float`, `str`, `bytes` (and their subclasses) convert directly, a
/// `decimal.Decimal` exactly (by its digits); `dict`
/// and `list` (and a one-dimensional numpy array, as its list) become JSON
/// text, which a `json` slot takes and a list slot (`vec_i32`, ...) reads
/// as its elements; any other object is converted once through
/// the number protocols (`operator.index`, else `float()`), and what that
/// gives must be an int or a float. Everything else is refused with a
/// `WriteError` saying what was given.
pub(crate) fn to_value(py: Python<'_>, obj: &Bound<'_, PyAny>) -> HostResult<Value> {
    if obj.is_none() {
        return Ok(Value::None);
    }
    if obj.is_instance_of::<PyBool>() {
        return Ok(Value::Bool(obj.extract()?));
    }
    if obj.is_instance_of::<PyInt>() {
        return int_value(obj);
    }
    if obj.is_instance_of::<PyFloat>() {
        return Ok(Value::F64(obj.extract()?));
    }
    if let Ok(s) = obj.downcast::<PyString>() {
        return match s.to_cow() {
            Ok(text) => Ok(Value::str(text.as_ref())),
            Err(_) => Err(HostError::Unsupported(
                "this string holds a lone surrogate, which is not valid text (UTF-8)".into(),
            )),
        };
    }
    if let Ok(b) = obj.downcast::<PyBytes>() {
        return Ok(Value::Bytes(Arc::from(b.as_bytes())));
    }
    if let Some(value) = calendar_value(py, obj)? {
        return Ok(value);
    }
    if obj.is_instance_of::<PyDict>() || obj.is_instance_of::<PyList>() {
        let text: String = py.import("json")?.getattr("dumps")?.call1((obj,))?.extract()?;
        return Ok(Value::Json(text.into()));
    }
    let kind = obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "object".into());
    // A one-dimensional numpy array is written as the list of its elements
    // (a list slot, `vec_i32`, ... takes it when every element fits).
    if kind == "ndarray" && obj.getattr("ndim")?.extract::<usize>()? == 1 {
        return to_value(py, &obj.call_method0("tolist")?);
    }
    if obj.is_instance(&py.import("decimal")?.getattr("Decimal")?)? {
        // Its digits in full (`format(x, "f")` writes no exponent), as the
        // narrowest decimal holding them; a slot's type then takes it exactly.
        let text: String = py.import("builtins")?.getattr("format")?.call1((obj, "f"))?.extract()?;
        return polydat_core::decimal::Decimal::parse_literal(&text)
            .map(Value::Decimal)
            .map_err(|e| HostError::Unsupported(format!("cannot write the Decimal {text}: {e}")));
    }
    if obj.hasattr("__index__").unwrap_or(false) {
        let index = py.import("operator")?.getattr("index")?;
        return match index.call1((obj,)) {
            Ok(i) => int_value(&i),
            Err(e) => Err(HostError::Unsupported(format!("cannot write a {kind}: its __index__ failed: {e}"))),
        };
    }
    if obj.hasattr("__float__").unwrap_or(false) {
        return match obj.extract::<f64>() {
            Ok(x) => Ok(Value::F64(x)),
            Err(e) => Err(HostError::Unsupported(format!("cannot write a {kind}: its __float__ failed: {e}"))),
        };
    }
    Err(HostError::Unsupported(format!(
        "cannot write a {kind}: polydat takes None, bool, int, float, str, bytes, dict or list"
    )))
}

/// A `datetime.datetime` (naive ones are UTC), `datetime.date` or
/// `numpy.datetime64` as a timestamp (epoch milliseconds) or a date (days:
/// a `datetime.date`, or a datetime64 in days); `None` for anything else.
/// NaT — numpy's (its int64 `i64::MIN` in any unit) or pandas' — is refused
/// by the core's rule, [`polydat_core::calendar::timestamp_millis`]: it is
/// no instant, and not `None` either.
pub(crate) fn calendar_value(py: Python<'_>, obj: &Bound<'_, PyAny>) -> HostResult<Option<Value>> {
    let kind = obj.get_type().name().map(|n| n.to_string()).unwrap_or_default();
    let not_a_time = |nat: &str| HostError::Unsupported(format!("cannot write {nat}"));
    match kind.as_str() {
        "NaTType" => Err(not_a_time(polydat_core::calendar::NAT_REFUSED)),
        "datetime64" => {
            let np = py.import("numpy")?;
            let unit: String = np.getattr("datetime_data")?.call1((obj.getattr("dtype")?,))?.get_item(0)?.extract()?;
            let int64 = np.getattr("int64")?;
            let as_unit = |u: &str| -> HostResult<i64> {
                let cast = obj.call_method1("astype", (format!("datetime64[{u}]"),))?;
                let count: i64 = cast.call_method1("astype", (&int64,))?.extract()?;
                polydat_core::calendar::timestamp_millis(count).map_err(not_a_time)
            };
            Ok(Some(match unit.as_str() {
                "D" | "W" | "M" | "Y" => Value::Date(
                    i32::try_from(as_unit("D")?)
                        .map_err(|_| HostError::Unsupported("a datetime64 outside the range of date".into()))?,
                ),
                _ => Value::Timestamp(as_unit("ms")?),
            }))
        }
        _ => {
            let datetime = py.import("datetime")?;
            if obj.is_instance(&datetime.getattr("datetime")?)? {
                let utc = datetime.getattr("timezone")?.getattr("utc")?;
                let aware = match obj.getattr("tzinfo")?.is_none() {
                    true => {
                        let kwargs = PyDict::new(py);
                        kwargs.set_item("tzinfo", &utc)?;
                        obj.call_method("replace", (), Some(&kwargs))?
                    }
                    false => obj.clone(),
                };
                let epoch = datetime.getattr("datetime")?.call1((1970, 1, 1, 0, 0, 0, 0, &utc))?;
                let delta = aware.call_method1("__sub__", (epoch,))?;
                let days: i64 = delta.getattr("days")?.extract()?;
                let seconds: i64 = delta.getattr("seconds")?.extract()?;
                let micros: i64 = delta.getattr("microseconds")?.extract()?;
                return Ok(Some(Value::Timestamp(days * 86_400_000 + seconds * 1000 + micros / 1000)));
            }
            if obj.is_instance(&datetime.getattr("date")?)? {
                let ordinal: i64 = obj.call_method0("toordinal")?.extract()?;
                return Ok(Some(Value::Date((ordinal - 719_163) as i32)));
            }
            Ok(None)
        }
    }
}

/// A Python int as a u64 (or, when negative, an i64); larger ones are refused.
pub(crate) fn int_value(obj: &Bound<'_, PyAny>) -> HostResult<Value> {
    if let Ok(v) = obj.extract::<u64>() {
        return Ok(Value::U64(v));
    }
    if let Ok(v) = obj.extract::<i64>() {
        return Ok(Value::I64(v));
    }
    // Past 64 bits: an i128 when it is one, else a u128 (a slot of another
    // type then refuses it, naming its own range).
    if let Ok(v) = obj.extract::<i128>() {
        return Ok(Value::i128(v));
    }
    if let Ok(v) = obj.extract::<u128>() {
        return Ok(Value::u128(v));
    }
    let bits: u64 = obj.call_method0("bit_length").and_then(|b| b.extract()).unwrap_or(0);
    let shown =
        if bits <= 256 { obj.str().map(|s| s.to_string()).unwrap_or_default() } else { format!("of {bits} bits") };
    Err(HostError::Unsupported(format!(
        "the integer {shown} is outside every integer type: i128 holds -2^127 to 2^127-1, u128 holds 0 to 2^128-1"
    )))
}

/// A column as a numpy array of its declared dtype (strings, bytes, JSON,
/// decimals, u128, i128 and lists as an object array, a decimal row a
/// `decimal.Decimal`, a u128 or i128 row a Python int (numpy has no
/// 128-bit integer dtype), a list row a Python list of ints or floats,
/// `None` rows as `None`; a timestamp as
/// `datetime64[ms]`, a date as `datetime64[D]`); a scalar column with `None`
/// rows is a `numpy.ma.MaskedArray` of its dtype whose mask marks them.
pub(crate) fn column_to_py(py: Python<'_>, column: Column) -> HostResult<PyObject> {
    let rows = column.len();
    let ty = column.ty;
    let array: PyObject = match column.data {
        ColumnData::U64(v) => v.into_pyarray(py).into_any().unbind(),
        ColumnData::I64(v) => v.into_pyarray(py).into_any().unbind(),
        ColumnData::U32(v) => v.into_pyarray(py).into_any().unbind(),
        ColumnData::I32(v) => v.into_pyarray(py).into_any().unbind(),
        ColumnData::U16(v) => v.into_pyarray(py).into_any().unbind(),
        ColumnData::I16(v) => v.into_pyarray(py).into_any().unbind(),
        ColumnData::U8(v) => v.into_pyarray(py).into_any().unbind(),
        ColumnData::I8(v) => v.into_pyarray(py).into_any().unbind(),
        ColumnData::F64(v) => v.into_pyarray(py).into_any().unbind(),
        ColumnData::F32(v) => v.into_pyarray(py).into_any().unbind(),
        ColumnData::F16(v) => v.into_pyarray(py).into_any().unbind(),
        ColumnData::Bool(v) => v.into_pyarray(py).into_any().unbind(),
        ColumnData::Var(ref v) => {
            let what = format!("the {rows} Python objects of a {ty} column");
            // A str object: a header of at most 64 bytes (allocator rounding
            // included), and one byte per character when all are ASCII, at
            // most four per byte otherwise; bytes objects report failure.
            // A list: a Python list's header and pointer, and an int or float
            // object (at most 32 bytes) per element of at least 4 bytes.
            let per_byte = match ty {
                polydat_core::PortType::Vector(_) => 10,
                polydat_core::PortType::Bytes => 1,
                _ if v.data.is_ascii() => 1,
                _ => 4,
            };
            let needed = rows.saturating_mul(64 + size_of::<PyObject>()).saturating_add(v.data.len() * per_byte);
            ensure_memory(needed, &what)?;
            let mut nulls = column.nulls.iter().peekable();
            // A text column's data is checked as UTF-8 once, not row by row.
            let texts =
                matches!(ty, polydat_core::PortType::Str | polydat_core::PortType::Json).then(|| v.texts()).flatten();
            let mut objects: Vec<PyObject> = Vec::new();
            objects.try_reserve_exact(rows).map_err(|_| HostError::out_of_memory(what.as_str()))?;
            for i in 0..rows {
                if nulls.next_if_eq(&&i).is_some() {
                    objects.push(py.None());
                    continue;
                }
                objects.push(match ty {
                    polydat_core::PortType::Bytes => py_bytes(py, v.row(i))?.into_any().unbind(),
                    // A decimal row a `decimal.Decimal`, a u128 or i128 row a Python int.
                    ty if ty.is_sixteen_bytes() => {
                        crate::pyvalue::to_py(py, &polydat_core::Value::sixteen_bytes_row(v.row(i), ty))?
                    }
                    polydat_core::PortType::Vector(t) => {
                        crate::pyvalue::to_py(py, &polydat_core::vector::from_row(t, v.row(i)))?
                    }
                    _ => PyString::new(py, texts.map_or_else(|| v.text(i), |t| t.get(i))).into_any().unbind(),
                });
            }
            return Ok(PyArray1::from_vec(py, objects).into_any().unbind());
        }
    };
    finish_array(py, array, ty, rows, &column.nulls)
}

/// A numpy array of a column's rows as `generate` returns it: a timestamp
/// viewed as `datetime64[ms]`, a date as `datetime64[D]`, and with `None`
/// rows (`nulls`, ascending) a `numpy.ma.MaskedArray` whose mask marks them.
pub(crate) fn finish_array(
    py: Python<'_>,
    array: PyObject,
    ty: polydat_core::PortType,
    rows: usize,
    nulls: &[usize],
) -> HostResult<PyObject> {
    let array = match ty {
        // Epoch milliseconds and days, viewed as numpy's datetime64.
        polydat_core::PortType::Timestamp => array.call_method1(py, "view", ("datetime64[ms]",))?,
        polydat_core::PortType::Date => array.call_method1(py, "astype", ("datetime64[D]",))?,
        _ => array,
    };
    masked(py, array, rows, nulls)
}

/// `array`, or a `numpy.ma.MaskedArray` over it masking rows `nulls`.
pub(crate) fn masked(py: Python<'_>, array: PyObject, rows: usize, nulls: &[usize]) -> HostResult<PyObject> {
    if nulls.is_empty() {
        return Ok(array);
    }
    let mut mask = Vec::new();
    mask.try_reserve_exact(rows).map_err(|_| HostError::out_of_memory("the mask of a column's None rows"))?;
    mask.resize(rows, false);
    nulls.iter().for_each(|&i| mask[i] = true);
    let masked = py.import("numpy.ma")?.getattr("MaskedArray")?;
    let kwargs = PyDict::new(py);
    kwargs.set_item("mask", mask.into_pyarray(py))?;
    Ok(masked.call((array,), Some(&kwargs))?.unbind())
}

/// The numpy dtype of a column of declared type `type_name` (None for a
/// variable-size type: str, bytes, json).
#[pyfunction]
pub(crate) fn numpy_dtype(type_name: &str) -> PyResult<Option<&'static str>> {
    Ok(host::HostArray::dtype(port_type(type_name)?))
}

/// The port type a type keyword names; `PolydatError` for a word that names none.
pub(crate) fn port_type(keyword: &str) -> HostResult<polydat_core::PortType> {
    polydat_core::PortType::from_keyword(keyword).ok_or_else(|| HostError::Polydat(format!("unknown type '{keyword}'")))
}
