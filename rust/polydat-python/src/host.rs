//! numpy arrays that `generate` fills in place: numpy allocates them (its
//! allocator asks the kernel for huge pages on large arrays, so filling
//! 10M rows does not take a page fault per 4 KiB), the core writes the rows
//! straight into their buffers ([`polydat_core::generation::Generator::fill_into`]).

use numpy::{PyArray1, PyArrayMethods, PyReadwriteArray1, PyUntypedArrayMethods};
use polydat_core::columns::HostRows;
use polydat_core::PortType;
use pyo3::prelude::*;

/// Columns shorter than this are allocated by the core and handed over
/// (numpy's huge-page advice starts at a few MiB; small arrays gain nothing).
pub const HOST_MIN_ROWS: usize = 1 << 16;

/// A numpy array of one output's declared dtype, borrowed for writing.
pub enum HostArray<'py> {
    U64(PyReadwriteArray1<'py, u64>),
    I64(PyReadwriteArray1<'py, i64>),
    U32(PyReadwriteArray1<'py, u32>),
    I32(PyReadwriteArray1<'py, i32>),
    U16(PyReadwriteArray1<'py, u16>),
    I16(PyReadwriteArray1<'py, i16>),
    U8(PyReadwriteArray1<'py, u8>),
    I8(PyReadwriteArray1<'py, i8>),
    F64(PyReadwriteArray1<'py, f64>),
    F32(PyReadwriteArray1<'py, f32>),
    F16(PyReadwriteArray1<'py, half::f16>),
    Bool(PyReadwriteArray1<'py, bool>),
}

impl<'py> HostArray<'py> {
    /// A zeroed array of `rows` rows for a column of type `ty`, or `None`
    /// for a variable-size type (the core builds those) and when numpy
    /// cannot allocate it (the core then tries, and reports running out of
    /// memory in its own words).
    pub fn zeros(py: Python<'py>, ty: PortType, rows: usize) -> Option<HostArray<'py>> {
        fn make<'py, T: numpy::Element>(
            py: Python<'py>,
            rows: usize,
            dtype: &str,
        ) -> Option<PyReadwriteArray1<'py, T>> {
            let numpy = py.import("numpy").ok()?;
            let array = numpy.call_method1("zeros", (rows, dtype)).ok()?;
            array.downcast_into::<PyArray1<T>>().ok()?.try_readwrite().ok()
        }
        let dtype = HostArray::dtype(ty)?;
        Some(match ty {
            PortType::U64 => HostArray::U64(make(py, rows, dtype)?),
            PortType::I64 | PortType::Timestamp => HostArray::I64(make(py, rows, dtype)?),
            PortType::U32 => HostArray::U32(make(py, rows, dtype)?),
            PortType::I32 | PortType::Date => HostArray::I32(make(py, rows, dtype)?),
            PortType::U16 => HostArray::U16(make(py, rows, dtype)?),
            PortType::I16 => HostArray::I16(make(py, rows, dtype)?),
            PortType::U8 => HostArray::U8(make(py, rows, dtype)?),
            PortType::I8 => HostArray::I8(make(py, rows, dtype)?),
            PortType::F64 => HostArray::F64(make(py, rows, dtype)?),
            PortType::F32 => HostArray::F32(make(py, rows, dtype)?),
            PortType::F16 => HostArray::F16(make(py, rows, dtype)?),
            PortType::Bool => HostArray::Bool(make(py, rows, dtype)?),
            PortType::Str
            | PortType::Bytes
            | PortType::Json
            | PortType::Decimal(_)
            | PortType::Vector(_)
            | PortType::U128
            | PortType::I128 => return None,
        })
    }

    /// The numpy dtype of a column of declared type `ty` (`None`: a
    /// variable-size type, which has none).
    pub fn dtype(ty: PortType) -> Option<&'static str> {
        Some(match ty {
            PortType::U64 => "uint64",
            PortType::I64 | PortType::Timestamp => "int64",
            PortType::U32 => "uint32",
            PortType::I32 | PortType::Date => "int32",
            PortType::U16 => "uint16",
            PortType::I16 => "int16",
            PortType::U8 => "uint8",
            PortType::I8 => "int8",
            PortType::F64 => "float64",
            PortType::F32 => "float32",
            PortType::F16 => "float16",
            PortType::Bool => "bool",
            PortType::Str
            | PortType::Bytes
            | PortType::Json
            | PortType::Decimal(_)
            | PortType::Vector(_)
            | PortType::U128
            | PortType::I128 => return None,
        })
    }

    /// The caller's array `array` for a column of `rows` rows of type `ty`,
    /// borrowed for writing: it must be a one-dimensional, C-contiguous,
    /// writable numpy array of the type's dtype ([`HostArray::dtype`]) and
    /// exactly `rows` long. `Err` says what it is instead.
    pub fn lend(array: &Bound<'py, PyAny>, ty: PortType, rows: usize) -> Result<HostArray<'py>, String> {
        let Some(dtype) = HostArray::dtype(ty) else {
            return Err(format!("a {ty} output has no numpy array to write into (only scalar outputs do)"));
        };
        fn take<'py, T: numpy::Element>(
            array: &Bound<'py, PyAny>,
            dtype: &str,
            rows: usize,
        ) -> Result<PyReadwriteArray1<'py, T>, String> {
            let what = || match array.getattr("dtype").and_then(|d| d.str()) {
                Ok(d) => format!("an array of dtype {d}"),
                Err(_) => format!("a {}", array.get_type().name().map(|n| n.to_string()).unwrap_or_default()),
            };
            let typed = array
                .downcast::<PyArray1<T>>()
                .map_err(|_| format!("needs a 1-d numpy {dtype} array, got {}", what()))?;
            let len = PyUntypedArrayMethods::len(typed);
            if len != rows {
                return Err(format!("needs {rows} rows, got an array of {len}"));
            }
            if !typed.is_c_contiguous() {
                return Err("needs a C-contiguous array (a slice with a step is not)".into());
            }
            typed.try_readwrite().map_err(|_| "needs a writable array (not read-only, not borrowed elsewhere)".into())
        }
        Ok(match ty {
            PortType::U64 => HostArray::U64(take(array, dtype, rows)?),
            PortType::I64 | PortType::Timestamp => HostArray::I64(take(array, dtype, rows)?),
            PortType::U32 => HostArray::U32(take(array, dtype, rows)?),
            PortType::I32 | PortType::Date => HostArray::I32(take(array, dtype, rows)?),
            PortType::U16 => HostArray::U16(take(array, dtype, rows)?),
            PortType::I16 => HostArray::I16(take(array, dtype, rows)?),
            PortType::U8 => HostArray::U8(take(array, dtype, rows)?),
            PortType::I8 => HostArray::I8(take(array, dtype, rows)?),
            PortType::F64 => HostArray::F64(take(array, dtype, rows)?),
            PortType::F32 => HostArray::F32(take(array, dtype, rows)?),
            PortType::F16 => HostArray::F16(take(array, dtype, rows)?),
            PortType::Bool => HostArray::Bool(take(array, dtype, rows)?),
            PortType::Str
            | PortType::Bytes
            | PortType::Json
            | PortType::Decimal(_)
            | PortType::Vector(_)
            | PortType::U128
            | PortType::I128 => unreachable!("refused above"),
        })
    }

    /// The array's rows, lent to the core.
    pub fn rows(&mut self) -> PyResult<HostRows<'_>> {
        Ok(match self {
            HostArray::U64(a) => HostRows::U64(a.as_slice_mut()?),
            HostArray::I64(a) => HostRows::I64(a.as_slice_mut()?),
            HostArray::U32(a) => HostRows::U32(a.as_slice_mut()?),
            HostArray::I32(a) => HostRows::I32(a.as_slice_mut()?),
            HostArray::U16(a) => HostRows::U16(a.as_slice_mut()?),
            HostArray::I16(a) => HostRows::I16(a.as_slice_mut()?),
            HostArray::U8(a) => HostRows::U8(a.as_slice_mut()?),
            HostArray::I8(a) => HostRows::I8(a.as_slice_mut()?),
            HostArray::F64(a) => HostRows::F64(a.as_slice_mut()?),
            HostArray::F32(a) => HostRows::F32(a.as_slice_mut()?),
            HostArray::F16(a) => HostRows::F16(a.as_slice_mut()?),
            HostArray::Bool(a) => HostRows::Bool(a.as_slice_mut()?),
        })
    }

    /// The array itself.
    pub fn array(&self) -> PyObject {
        match self {
            HostArray::U64(a) => a.as_any().clone().unbind(),
            HostArray::I64(a) => a.as_any().clone().unbind(),
            HostArray::U32(a) => a.as_any().clone().unbind(),
            HostArray::I32(a) => a.as_any().clone().unbind(),
            HostArray::U16(a) => a.as_any().clone().unbind(),
            HostArray::I16(a) => a.as_any().clone().unbind(),
            HostArray::U8(a) => a.as_any().clone().unbind(),
            HostArray::I8(a) => a.as_any().clone().unbind(),
            HostArray::F64(a) => a.as_any().clone().unbind(),
            HostArray::F32(a) => a.as_any().clone().unbind(),
            HostArray::F16(a) => a.as_any().clone().unbind(),
            HostArray::Bool(a) => a.as_any().clone().unbind(),
        }
    }
}
