//! `polydat._core`: the PyO3 binding. It converts Python values to core values
//! and back, forwards calls to `polydat-core`, and releases the GIL around
//! long-running work. It holds no logic of its own.

use numpy::{IntoPyArray, PyArray1};
use polydat_core::columns;
use polydat_core::columns::{Column, ColumnData};
use polydat_core::compile::CompileOptions;
use polydat_core::engine::{self, EngineKind, GenerateError, Kernel as CoreKernel, KernelMaker, Stop};
use polydat_core::node::guard::guarded;
use polydat_core::program::manifest::Manifest;
use polydat_core::run::{self, Filled, RowPlan};
use polydat_core::scope::bind::{Scope, ScopedKernel};

mod arrow;
mod fanout;
mod host;
mod rules_query;
use polydat_core::ir::GraphIr;
use polydat_core::{
    BindError, BuildError, CompileError, EvalError, Program as CoreProgram, Refused, Value, WriteError,
};
use pyo3::exceptions::{PyKeyboardInterrupt, PyMemoryError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Runs `f`, turning a Rust panic into `polydat.InternalError` (a panic must
/// never reach Python as `PanicException`, which `except Exception` misses).
/// Every entry point of the module goes through it.
fn contained<T>(py: Python<'_>, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
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
fn compile_error(py: Python<'_>, e: &CompileError) -> PyErr {
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

fn eval_error(py: Python<'_>, e: &EvalError) -> PyErr {
    let values: PyResult<Vec<PyObject>> = e.values.iter().map(|v| to_py(py, v)).collect();
    let values = match values {
        Ok(v) => v,
        Err(err) => return err,
    };
    let row = e.row.clone();
    py_error(py, "EvalError", (e.message.as_str(), e.node.as_str(), e.outputs.clone(), values, row))
}

fn unknown_name(py: Python<'_>, message: String, name: &str) -> PyErr {
    py_error(py, "UnknownNameError", (message, name))
}

fn write_error(py: Python<'_>, e: &WriteError) -> PyErr {
    py_error(py, "WriteError", (e.to_string(), e.kind(), e.slot()))
}

fn bind_error(py: Python<'_>, e: &BindError) -> PyErr {
    match e {
        BindError::Init(ev) => eval_error(py, ev),
        other => py_error(py, "BindError", (other.to_string(), other.kind(), other.name().to_string())),
    }
}

fn refused(py: Python<'_>, e: &Refused) -> PyErr {
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
fn as_out_of_memory(py: Python<'_>, err: PyErr, what: &str) -> PyErr {
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
fn ensure_memory(py: Python<'_>, bytes: usize, what: &str) -> PyResult<()> {
    let mut probe: Vec<u8> = Vec::new();
    probe.try_reserve_exact(bytes).map_err(|_| out_of_memory(py, what))
}

/// `bytes` as a Python `bytes` object (`polydat.OutOfMemoryError` when it does not fit).
pub(crate) fn py_bytes<'py>(py: Python<'py>, bytes: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
    PyBytes::new_with(py, bytes.len(), |buf| {
        buf.copy_from_slice(bytes);
        Ok(())
    })
    .map_err(|e| as_out_of_memory(py, e, "the text of the rows"))
}

fn unsupported(py: Python<'_>, message: String) -> PyErr {
    py_error(py, "WriteError", (message, "unsupported_value", ""))
}

/// Converts a Python value to a core value. Builtin `None`, `bool`, `int`,
/// `float`, `str`, `bytes` (and their subclasses) convert directly; `dict`
/// and `list` become JSON text; any other object is converted once through
/// the number protocols (`operator.index`, else `float()`), and what that
/// gives must be an int or a float. Everything else is refused with a
/// `WriteError` saying what was given.
fn to_value(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    if obj.is_none() {
        return Ok(Value::None);
    }
    if obj.is_instance_of::<PyBool>() {
        return Ok(Value::Bool(obj.extract()?));
    }
    if obj.is_instance_of::<PyInt>() {
        return int_value(py, obj);
    }
    if obj.is_instance_of::<PyFloat>() {
        return Ok(Value::F64(obj.extract()?));
    }
    if let Ok(s) = obj.downcast::<PyString>() {
        return match s.to_cow() {
            Ok(text) => Ok(Value::str(text.as_ref())),
            Err(_) => {
                Err(unsupported(py, "this string holds a lone surrogate, which is not valid text (UTF-8)".into()))
            }
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
    if obj.hasattr("__index__").unwrap_or(false) {
        let index = py.import("operator")?.getattr("index")?;
        return match index.call1((obj,)) {
            Ok(i) => int_value(py, &i),
            Err(e) => Err(unsupported(py, format!("cannot write a {kind}: its __index__ failed: {e}"))),
        };
    }
    if obj.hasattr("__float__").unwrap_or(false) {
        return match obj.extract::<f64>() {
            Ok(x) => Ok(Value::F64(x)),
            Err(e) => Err(unsupported(py, format!("cannot write a {kind}: its __float__ failed: {e}"))),
        };
    }
    Err(unsupported(
        py,
        format!("cannot write a {kind}: polydat takes None, bool, int, float, str, bytes, dict or list"),
    ))
}

/// A `datetime.datetime` (naive ones are UTC), `datetime.date` or
/// `numpy.datetime64` as a timestamp (epoch milliseconds) or a date (days:
/// a `datetime.date`, or a datetime64 in days); `None` for anything else.
/// numpy's `NaT` is its int64 `i64::MIN` in any unit, and is taken as that
/// value (the smallest timestamp, which reads back as `NaT`), never as `None`.
fn calendar_value(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<Option<Value>> {
    let kind = obj.get_type().name().map(|n| n.to_string()).unwrap_or_default();
    match kind.as_str() {
        "datetime64" => {
            let np = py.import("numpy")?;
            let unit: String = np.getattr("datetime_data")?.call1((obj.getattr("dtype")?,))?.get_item(0)?.extract()?;
            let int64 = np.getattr("int64")?;
            let as_unit = |u: &str| -> PyResult<i64> {
                obj.call_method1("astype", (format!("datetime64[{u}]"),))?.call_method1("astype", (&int64,))?.extract()
            };
            Ok(Some(match unit.as_str() {
                "D" | "W" | "M" | "Y" => Value::Date(
                    i32::try_from(as_unit("D")?)
                        .map_err(|_| unsupported(py, "a datetime64 outside the range of date".into()))?,
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
fn int_value(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    if let Ok(v) = obj.extract::<u64>() {
        return Ok(Value::U64(v));
    }
    if let Ok(v) = obj.extract::<i64>() {
        return Ok(Value::I64(v));
    }
    let bits: u64 = obj.call_method0("bit_length").and_then(|b| b.extract()).unwrap_or(0);
    Err(unsupported(py, format!("an integer of {bits} bits does not fit in 64 bits (u64, or i64 when negative)")))
}

/// Converts a core value to a Python value.
fn to_py(py: Python<'_>, v: &Value) -> PyResult<PyObject> {
    Ok(match v {
        Value::None => py.None(),
        Value::U64(x) => x.into_pyobject(py)?.into_any().unbind(),
        Value::I64(x) => x.into_pyobject(py)?.into_any().unbind(),
        Value::U32(x) => x.into_pyobject(py)?.into_any().unbind(),
        Value::I32(x) => x.into_pyobject(py)?.into_any().unbind(),
        Value::F64(x) => x.into_pyobject(py)?.into_any().unbind(),
        Value::F32(x) => (*x as f64).into_pyobject(py)?.into_any().unbind(),
        Value::Bool(x) => PyBool::new(py, *x).to_owned().into_any().unbind(),
        Value::Str(s) | Value::Json(s) => PyString::new(py, s).into_any().unbind(),
        Value::Bytes(b) => PyBytes::new(py, b).into_any().unbind(),
        Value::Timestamp(ms) => datetime64(py, *ms, "ms")?,
        Value::Date(days) => datetime64(py, i64::from(*days), "D")?,
    })
}

/// `numpy.datetime64(count, unit)`: a timestamp (`ms`) or date (`D`) as numpy
/// holds it, whatever its year.
fn datetime64(py: Python<'_>, count: i64, unit: &str) -> PyResult<PyObject> {
    Ok(py.import("numpy")?.getattr("datetime64")?.call1((count, unit))?.unbind())
}

/// A column as a numpy array of its declared dtype (strings, bytes and JSON
/// as an object array, `None` rows as `None`; a timestamp as
/// `datetime64[ms]`, a date as `datetime64[D]`); a scalar column with `None`
/// rows is a `numpy.ma.MaskedArray` of its dtype whose mask marks them.
fn column_to_py(py: Python<'_>, column: Column) -> PyResult<PyObject> {
    let rows = column.len();
    let ty = column.ty;
    let array: PyObject = match column.data {
        ColumnData::U64(v) => v.into_pyarray(py).into_any().unbind(),
        ColumnData::I64(v) => v.into_pyarray(py).into_any().unbind(),
        ColumnData::U32(v) => v.into_pyarray(py).into_any().unbind(),
        ColumnData::I32(v) => v.into_pyarray(py).into_any().unbind(),
        ColumnData::F64(v) => v.into_pyarray(py).into_any().unbind(),
        ColumnData::F32(v) => v.into_pyarray(py).into_any().unbind(),
        ColumnData::Bool(v) => v.into_pyarray(py).into_any().unbind(),
        ColumnData::Var(ref v) => {
            let what = format!("the {rows} Python objects of a {ty} column");
            // A str object: a header of at most 64 bytes (allocator rounding
            // included), and one byte per character when all are ASCII, at
            // most four per byte otherwise; bytes objects report failure.
            let per_byte = if ty == polydat_core::PortType::Bytes || v.data.is_ascii() { 1 } else { 4 };
            let needed = rows.saturating_mul(64 + size_of::<PyObject>()).saturating_add(v.data.len() * per_byte);
            ensure_memory(py, needed, &what)?;
            let mut nulls = column.nulls.iter().peekable();
            let mut objects: Vec<PyObject> = Vec::new();
            objects.try_reserve_exact(rows).map_err(|_| out_of_memory(py, &what))?;
            for i in 0..rows {
                if nulls.next_if_eq(&&i).is_some() {
                    objects.push(py.None());
                    continue;
                }
                objects.push(match ty {
                    polydat_core::PortType::Bytes => py_bytes(py, v.row(i))?.into_any().unbind(),
                    _ => PyString::new(py, v.text(i)).into_any().unbind(),
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
fn finish_array(
    py: Python<'_>,
    array: PyObject,
    ty: polydat_core::PortType,
    rows: usize,
    nulls: &[usize],
) -> PyResult<PyObject> {
    let array = match ty {
        // Epoch milliseconds and days, viewed as numpy's datetime64.
        polydat_core::PortType::Timestamp => array.call_method1(py, "view", ("datetime64[ms]",))?,
        polydat_core::PortType::Date => array.call_method1(py, "astype", ("datetime64[D]",))?,
        _ => array,
    };
    masked(py, array, rows, nulls)
}

/// `array`, or a `numpy.ma.MaskedArray` over it masking rows `nulls`.
fn masked(py: Python<'_>, array: PyObject, rows: usize, nulls: &[usize]) -> PyResult<PyObject> {
    if nulls.is_empty() {
        return Ok(array);
    }
    let mut mask = Vec::new();
    mask.try_reserve_exact(rows).map_err(|_| out_of_memory(py, "the mask of a column's None rows"))?;
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
fn numpy_dtype(py: Python<'_>, type_name: &str) -> PyResult<Option<&'static str>> {
    Ok(host::HostArray::dtype(port_type(py, type_name)?))
}

/// The node catalog as JSON text.
#[pyfunction]
fn catalog_json() -> String {
    polydat_core::nodes::catalog_json()
}

/// The bundled data files (name, about, source, licence, columns,
/// entries, nodes) as JSON text.
#[pyfunction]
fn data_files_json() -> String {
    polydat_core::nodes::real_data::data_files_json()
}

/// A compiled, immutable program (thread-safe).
#[pyclass(frozen, module = "polydat._core")]
struct Program {
    inner: Arc<CoreProgram>,
    kind: EngineKind,
}

#[pymethods]
impl Program {
    /// Compiles graph IR (JSON text) for `engine`.
    /// `outer_json` is the manifest of the outer scope the program is compiled
    /// against (auto-extern); `iteration` the iteration variables of an
    /// iteration body, as (name, type keyword); `keep` names that get a
    /// slot from the outer scope even when unread; `strict` refuses implicit
    /// coercions, `strict_names` free names nobody provides.
    #[staticmethod]
    #[pyo3(signature = (ir_json, *, engine="auto", provenance="auto", strict=false, outputs=None, fusion=true, outer_json=None, iteration=Vec::new(), keep=Vec::new(), strict_names=false))]
    #[allow(clippy::too_many_arguments)]
    fn compile(
        py: Python<'_>,
        ir_json: &str,
        engine: &str,
        provenance: &str,
        strict: bool,
        outputs: Option<Vec<String>>,
        fusion: bool,
        outer_json: Option<&str>,
        iteration: Vec<(String, String)>,
        keep: Vec<String>,
        strict_names: bool,
    ) -> PyResult<Program> {
        contained(py, || {
            let ir = GraphIr::from_json(ir_json).map_err(|e| py_error(py, "InternalError", (e,)))?;
            let outer = match outer_json {
                Some(text) => {
                    Some(Arc::new(Manifest::from_json(text).map_err(|e| py_error(py, "InternalError", (e,)))?))
                }
                None => None,
            };
            let iteration =
                iteration.iter().map(|(n, t)| Ok((n.clone(), port_type(py, t)?))).collect::<PyResult<Vec<_>>>()?;
            let options = CompileOptions {
                strict,
                strict_names,
                outputs,
                fusion,
                outer,
                iteration,
                keep,
                ..CompileOptions::default()
            };
            let built = py.allow_threads(|| engine::build(&ir, engine, provenance, options));
            let (program, kind) = built.map_err(|e| match e {
                BuildError::Compile(c) => compile_error(py, &c),
                BuildError::Refused(r) => refused(py, &r),
            })?;
            Ok(Program { inner: Arc::new(program), kind })
        })
    }

    /// What runs, e.g. `p1`, `p2/pull`.
    #[getter]
    fn engine(&self) -> &'static str {
        self.kind.name()
    }

    /// The P2 provenance analysis (whatever engine runs): total_nodes,
    /// max_output_cone, output_cone_ratio, stable_nodes, stable_ratio, the
    /// mode `provenance="auto"` picks (`choice`) and the rule that decided.
    #[getter]
    fn provenance_analysis<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        contained(py, || {
            let a = &self.inner.selection.analysis;
            let d = PyDict::new(py);
            d.set_item("total_nodes", a.total_nodes)?;
            d.set_item("max_output_cone", a.max_output_cone)?;
            d.set_item("output_cone_ratio", a.output_cone_ratio)?;
            d.set_item("stable_nodes", a.stable_nodes)?;
            d.set_item("stable_ratio", a.stable_ratio)?;
            d.set_item("choice", a.choice.name())?;
            d.set_item("rule", a.rule)?;
            Ok(d)
        })
    }

    /// Inputs as (name, type, kind), coordinates first.
    #[getter]
    fn inputs(&self) -> Vec<(String, String, String)> {
        self.inner
            .inputs
            .iter()
            .map(|i| (i.name.clone(), i.ty.to_string(), format!("{:?}", i.kind).to_lowercase()))
            .collect()
    }

    /// Outputs as (name, type), in declaration order.
    #[getter]
    fn outputs(&self) -> Vec<(String, String)> {
        self.inner.outputs.iter().map(|o| (o.name.clone(), o.ty.to_string())).collect()
    }

    /// Compile events as (kind, message, line, col, severity); severity is
    /// `warning` for what `check` reports, else `info`.
    #[getter]
    fn events(&self) -> Vec<(String, String, u32, u32, &'static str)> {
        self.inner
            .events
            .iter()
            .map(|e| {
                let (l, c) = e.span.map(|s| (s.line, s.col)).unwrap_or((0, 0));
                let severity = if e.kind.is_warning() { "warning" } else { "info" };
                (e.kind.name().to_string(), e.message.clone(), l, c, severity)
            })
            .collect()
    }

    /// Node counts and compile time.
    #[getter]
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("nodes_resolved", self.inner.stats.nodes_resolved)?;
        d.set_item("nodes_final", self.inner.stats.nodes_final)?;
        d.set_item("compile_micros", self.inner.stats.compile_micros)?;
        d.set_item("fusions", self.inner.stats.fusions)?;
        d.set_item("polyfills", self.inner.stats.polyfills)?;
        d.set_item("folded", self.inner.stats.folded)?;
        d.set_item("adapters", self.inner.stats.adapters)?;
        d.set_item("scope_init_steps", self.inner.scope_init_steps.len())?;
        Ok(d)
    }

    /// Everything `explain` shows, as JSON text: passes, lifecycle of every
    /// step and binding, events, engine choice, the resolved graph.
    fn explain_json(&self, py: Python<'_>) -> PyResult<String> {
        contained(py, || {
            let plan = engine::describe(&self.inner, self.kind);
            Ok(polydat_core::compile::explain::explain_json(&self.inner, &plan))
        })
    }

    /// A new kernel (one mutable state) over this program: a root scope, or,
    /// with `outer`, a scope bound under that kernel's (`iteration` gives
    /// the iteration variables' values).
    #[pyo3(signature = (outer=None, iteration=Vec::new()))]
    fn kernel(
        &self,
        py: Python<'_>,
        outer: Option<&Kernel>,
        iteration: Vec<(String, Bound<'_, PyAny>)>,
    ) -> PyResult<Kernel> {
        contained(py, || {
            let scope = match outer {
                None if iteration.is_empty() => Scope::root(&self.inner, self.kind),
                None => return Err(py_error(py, "ArgumentError", ("iteration values need an outer kernel",))),
                Some(outer) => {
                    let values = iteration
                        .iter()
                        .map(|(n, v)| Ok((n.clone(), to_value(py, v)?)))
                        .collect::<PyResult<Vec<_>>>()?;
                    py.allow_threads(|| Scope::bind(&self.inner, self.kind, &outer.scope, values))
                }
            };
            Ok(Kernel { scope: scope.map_err(|e| bind_error(py, &e))? })
        })
    }

    /// The manifest (JSON text): the names a program compiled against this
    /// one may read, with their types and binding forms.
    fn manifest_json(&self) -> String {
        Manifest::of_program(&self.inner).to_json()
    }

    /// Inputs as (name, origin): `declared`, `inferred`, `outer`, `iteration` or `cell`.
    #[getter]
    fn input_origins(&self) -> Vec<(String, String)> {
        self.inner
            .inputs
            .iter()
            .map(|i| {
                let origin = serde_json::to_string(&i.origin).unwrap_or_default().trim_matches('"').to_string();
                (i.name.clone(), origin)
            })
            .collect()
    }

    /// The outer literals inlined into the program, as (name, value).
    fn inlined(&self, py: Python<'_>) -> PyResult<Vec<(String, PyObject)>> {
        self.inner.scope.inlined.iter().map(|(n, v)| Ok((n.clone(), to_py(py, v)?))).collect()
    }

    /// Runs `rows` cycles `start, start + step, ...` writing `coordinate`,
    /// with `fixed` inputs written once per kernel; returns {name: numpy
    /// array} for every name in `outputs` (an output, or an input). `out`
    /// gives the caller's numpy array for each output, written in place
    /// (see `generate_dict`). The GIL is released; Ctrl-C stops every worker
    /// within about 50 ms and raises `KeyboardInterrupt`.
    /// With `emitted`, returns `(dict, rows)`: also the rows `emit_row`
    /// nodes emitted, in row order.
    #[pyo3(signature = (coordinate, start, rows, step, outputs, fixed, threads=1, emitted=false, out=None))]
    #[allow(clippy::too_many_arguments)]
    fn generate<'py>(
        &self,
        py: Python<'py>,
        coordinate: &str,
        start: u64,
        rows: usize,
        step: u64,
        outputs: Vec<String>,
        fixed: Vec<(String, Bound<'py, PyAny>)>,
        threads: usize,
        emitted: bool,
        out: Option<Vec<Bound<'py, PyAny>>>,
    ) -> PyResult<PyObject> {
        contained(py, || {
            let (plan, sources) = self.row_plan(py, coordinate, start, rows, step, &outputs, &fixed)?;
            let (program, kind) = (&self.inner, self.kind);
            let make = || run::Generator::new(program, kind, &plan, &sources, threads);
            with_emitted(py, generate_dict(py, program, &plan, &sources, &outputs, out, make)?, emitted)
        })
    }

    /// The Arrow schema (an object with `__arrow_c_schema__`) of the columns
    /// `names` (outputs or inputs), from their declared types.
    fn arrow_schema(&self, py: Python<'_>, names: Vec<String>) -> PyResult<pyo3_arrow::PySchema> {
        contained(py, || {
            let program = &self.inner;
            let mut types = Vec::with_capacity(names.len());
            for name in &names {
                types.push(match program.column_source(name).map_err(|m| unknown_name(py, m, name))? {
                    engine::ColumnSource::Output(o) => program.outputs[o].ty,
                    engine::ColumnSource::Input(i) => program.inputs[i].ty,
                });
            }
            Ok(pyo3_arrow::PySchema::new(arrow::schema(&names, &types)))
        })
    }

    /// A stream of the rows of `generate`'s arguments, `batch_rows` at a
    /// time, generated ahead on a thread of its own (with `threads` workers)
    /// while the caller uses the previous batch. `encode=None` yields Arrow
    /// record batches (objects with `__arrow_c_array__`); `"csv"` or
    /// `"jsonl"` yields each batch's text as bytes. `cycles_column` names a
    /// u64 column of the rows' cycle numbers put first (the command line's
    /// coordinate column).
    /// `emitted`: each item is `(batch, rows)`, with the rows `emit_row`
    /// nodes emitted while the batch was made.
    #[pyo3(signature = (coordinate, start, rows, step, outputs, fixed, threads=1, batch_rows=65536, encode=None, cycles_column=None, emitted=false))]
    #[allow(clippy::too_many_arguments)]
    fn batches<'py>(
        &self,
        py: Python<'py>,
        coordinate: &str,
        start: u64,
        rows: usize,
        step: u64,
        outputs: Vec<String>,
        fixed: Vec<(String, Bound<'py, PyAny>)>,
        threads: usize,
        batch_rows: usize,
        encode: Option<&str>,
        cycles_column: Option<String>,
        emitted: bool,
    ) -> PyResult<arrow::BatchStream> {
        contained(py, || {
            let (plan, sources) = self.row_plan(py, coordinate, start, rows, step, &outputs, &fixed)?;
            let encode = encoding(py, encode)?;
            let mut names = Vec::with_capacity(outputs.len() + 1);
            names.extend(cycles_column.clone());
            names.extend(outputs.iter().cloned());
            let stream = run::Batches::new(&self.inner, self.kind, &plan, &sources, threads, batch_rows)
                .map_err(|e| generate_error(py, e))?;
            arrow::BatchStream::start(stream, names, cycles_column.is_some(), encode, emitted)
                .map_err(|e| py_error(py, "InternalError", (e,)))
        })
    }
}

impl Program {
    /// The checked row plan and column sources of a `generate` call.
    #[allow(clippy::too_many_arguments)]
    fn row_plan(
        &self,
        py: Python<'_>,
        coordinate: &str,
        start: u64,
        rows: usize,
        step: u64,
        outputs: &[String],
        fixed: &[(String, Bound<'_, PyAny>)],
    ) -> PyResult<(RowPlan, Vec<engine::ColumnSource>)> {
        row_plan(py, &self.inner, coordinate, start, rows, step, outputs, fixed)
    }
}

/// The checked row plan and column sources of a `generate` call of `program`.
#[allow(clippy::too_many_arguments)]
fn row_plan(
    py: Python<'_>,
    program: &Arc<CoreProgram>,
    coordinate: &str,
    start: u64,
    rows: usize,
    step: u64,
    outputs: &[String],
    fixed: &[(String, Bound<'_, PyAny>)],
) -> PyResult<(RowPlan, Vec<engine::ColumnSource>)> {
    let unknown_input = |name: &str| WriteError::UnknownInput { name: name.into(), known: program.input_names() };
    let coordinate = program.input(coordinate).ok_or_else(|| write_error(py, &unknown_input(coordinate)))?;
    let mut fixed_values = Vec::new();
    for (name, value) in fixed {
        let i = program.input(name).ok_or_else(|| write_error(py, &unknown_input(name)))?;
        fixed_values.push((i, to_value(py, value)?));
    }
    let sources = column_sources(py, program, outputs)?;
    Ok((RowPlan { coordinate, start, rows, step, fixed: fixed_values }, sources))
}

/// What each of `names` selects as a column of `program` (an output, else an input).
fn column_sources(py: Python<'_>, program: &CoreProgram, names: &[String]) -> PyResult<Vec<engine::ColumnSource>> {
    names.iter().map(|name| program.column_source(name).map_err(|m| unknown_name(py, m, name))).collect()
}

/// Looks for a pending signal (Ctrl-C) while the GIL is released: asked at the
/// workers' stop checks, it acts only on the thread that called (the one
/// Python delivers signals to), at most every 50 ms, and keeps the exception
/// the signal handler raised.
struct SignalWatch {
    thread: std::thread::ThreadId,
    started: Instant,
    last_ms: AtomicU64,
    raised: Mutex<Option<PyErr>>,
}

impl SignalWatch {
    fn new() -> SignalWatch {
        SignalWatch {
            thread: std::thread::current().id(),
            started: Instant::now(),
            last_ms: AtomicU64::new(0),
            raised: Mutex::new(None),
        }
    }

    /// True when a signal handler raised (the run should stop).
    fn interrupted(&self) -> bool {
        if std::thread::current().id() != self.thread {
            return false;
        }
        let now = self.started.elapsed().as_millis() as u64;
        if now < self.last_ms.load(Ordering::Relaxed) + 50 {
            return false;
        }
        self.last_ms.store(now, Ordering::Relaxed);
        match Python::with_gil(|py| py.check_signals()) {
            Ok(()) => false,
            Err(e) => {
                *self.raised.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                true
            }
        }
    }

    /// The exception to raise for a stopped run.
    fn take(&self) -> PyErr {
        let raised = self.raised.lock().unwrap_or_else(|p| p.into_inner()).take();
        raised.unwrap_or_else(|| PyKeyboardInterrupt::new_err("generate was interrupted"))
    }
}

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
struct Kernel {
    scope: Arc<Scope>,
}

impl Kernel {
    /// Runs `f` on this scope's locked kernel with the GIL released; the
    /// lock is dropped before the GIL is taken back. Convert what `f`
    /// returns to Python objects only afterwards.
    fn locked<R: Send>(&self, py: Python<'_>, f: impl FnOnce(&mut ScopedKernel) -> R + Send) -> R {
        py.allow_threads(|| f(&mut self.scope.lock()))
    }

    /// The bound inputs' current values (what a `generate` worker's kernel
    /// already holds) and a maker of such kernels.
    fn maker(&self, py: Python<'_>) -> (KernelMaker, Vec<(usize, Value)>) {
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
            let values: Vec<Value> = values.iter().map(|v| to_value(py, v)).collect::<PyResult<_>>()?;
            let named: Vec<(String, Value)> =
                named.into_iter().map(|(n, v)| Ok((n, to_value(py, &v)?))).collect::<PyResult<_>>()?;
            let written = self.locked(py, |kernel| engine::write_inputs(kernel, values, named, true));
            written.map_err(|e| write_error(py, &e))
        })
    }

    /// Writes an extern by name (type-checked); on a `shared` slot, publishes to its cell.
    fn set(&self, py: Python<'_>, name: &str, value: Bound<'_, PyAny>) -> PyResult<()> {
        contained(py, || {
            let value = to_value(py, &value)?;
            let written = self.locked(py, |kernel| engine::set_named(kernel, name, value, false));
            written.map_err(|e| write_error(py, &e))
        })
    }

    /// Reads one output (or an input by name).
    fn pull(&self, py: Python<'_>, name: &str) -> PyResult<PyObject> {
        contained(py, || {
            let program = self.scope.program();
            if let Some(o) = program.output(name) {
                let v = self.locked(py, |kernel| kernel.pull(o)).map_err(|e| eval_error(py, &e))?;
                return to_py(py, &v);
            }
            if let Some(i) = program.input(name) {
                return to_py(py, &self.locked(py, |kernel| kernel.input_value(i)));
            }
            Err(unknown_name(py, program.unknown_name(name), name))
        })
    }

    /// Reads every output as one read: {name: value}.
    fn eval<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        contained(py, || {
            let values = self.locked(py, |kernel| kernel.eval()).map_err(|e| eval_error(py, &e))?;
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
        contained(py, || match py.allow_threads(|| self.scope.value_of(name)).map_err(|e| eval_error(py, &e))? {
            Some(v) => to_py(py, &v),
            None => {
                let names: Vec<String> = self.scope.manifest().names().map(str::to_string).collect();
                let close = polydat_core::suggest::did_you_mean(name, names.iter().map(String::as_str));
                let said = close.clone().unwrap_or_else(|| format!("names here: {}", names.join(", ")));
                let message = format!("no scope of this chain binds '{name}'; {said}");
                Err(py_error(py, "UnknownNameError", (message, name, close)))
            }
        })
    }

    /// `generate` from this kernel's state: the rows run on kernels of the
    /// same scope (its bindings, its current inputs), one per thread.
    #[pyo3(signature = (coordinate, start, rows, step, outputs, fixed, threads=1, emitted=false, out=None))]
    #[allow(clippy::too_many_arguments)]
    fn generate<'py>(
        &self,
        py: Python<'py>,
        coordinate: &str,
        start: u64,
        rows: usize,
        step: u64,
        outputs: Vec<String>,
        fixed: Vec<(String, Bound<'py, PyAny>)>,
        threads: usize,
        emitted: bool,
        out: Option<Vec<Bound<'py, PyAny>>>,
    ) -> PyResult<PyObject> {
        contained(py, || {
            let program = self.scope.program().clone();
            let (plan, sources) = row_plan(py, &program, coordinate, start, rows, step, &outputs, &fixed)?;
            let (maker, preset) = self.maker(py);
            let kind = self.scope.kind();
            let make = || run::Generator::with_maker(&program, kind, maker, preset, &plan, &sources, threads);
            with_emitted(py, generate_dict(py, &program, &plan, &sources, &outputs, out, make)?, emitted)
        })
    }

    /// The batch stream of `Program.batches`, from this kernel's state (see `generate`).
    #[pyo3(signature = (coordinate, start, rows, step, outputs, fixed, threads=1, batch_rows=65536, encode=None, cycles_column=None, emitted=false))]
    #[allow(clippy::too_many_arguments)]
    fn batches<'py>(
        &self,
        py: Python<'py>,
        coordinate: &str,
        start: u64,
        rows: usize,
        step: u64,
        outputs: Vec<String>,
        fixed: Vec<(String, Bound<'py, PyAny>)>,
        threads: usize,
        batch_rows: usize,
        encode: Option<&str>,
        cycles_column: Option<String>,
        emitted: bool,
    ) -> PyResult<arrow::BatchStream> {
        contained(py, || {
            let program = self.scope.program().clone();
            let (plan, sources) = row_plan(py, &program, coordinate, start, rows, step, &outputs, &fixed)?;
            let encode = encoding(py, encode)?;
            let mut names = Vec::with_capacity(outputs.len() + 1);
            names.extend(cycles_column.clone());
            names.extend(outputs.iter().cloned());
            let (maker, preset) = self.maker(py);
            let generator =
                run::Generator::with_maker(&program, self.scope.kind(), maker, preset, &plan, &sources, threads)
                    .map_err(|e| generate_error(py, e))?;
            arrow::BatchStream::start(
                run::Batches::of(generator, batch_rows),
                names,
                cycles_column.is_some(),
                encode,
                emitted,
            )
            .map_err(|e| py_error(py, "InternalError", (e,)))
        })
    }
}

/// `generate`'s result, `{name: numpy array}` for `names` (the columns of
/// `sources`): the generator `make` builds runs over the plan's rows without
/// the GIL (Ctrl-C stops every worker and raises `KeyboardInterrupt`);
/// scalar outputs of many rows go straight into numpy's own arrays. With
/// `out` (one caller's array per column, each an output's), the rows go
/// straight into those arrays, which the dict then holds; an array that
/// does not fit its column is an `ArgumentError` naming it, before any row
/// is made.
fn generate_dict<'py>(
    py: Python<'py>,
    program: &polydat_core::Program,
    plan: &RowPlan,
    sources: &[engine::ColumnSource],
    names: &[String],
    out: Option<Vec<Bound<'py, PyAny>>>,
    make: impl FnOnce() -> Result<run::Generator, GenerateError> + Send,
) -> PyResult<(Bound<'py, PyDict>, Vec<String>)> {
    let interrupt = SignalWatch::new();
    let hook = || interrupt.interrupted();
    let stop = Stop::with_hook(&hook);
    let callers = out.is_some();
    let mut arrays: Vec<Option<host::HostArray<'py>>> = match out {
        Some(given) => {
            if given.len() != sources.len() {
                let message = format!("out= gives {} arrays for {} outputs", given.len(), sources.len());
                return Err(py_error(py, "ArgumentError", (message,)));
            }
            let lend = |((array, source), name): ((Bound<'py, PyAny>, &engine::ColumnSource), &String)| {
                let lent = match *source {
                    engine::ColumnSource::Output(o) => {
                        host::HostArray::lend(&array, program.outputs[o].ty, plan.rows())
                    }
                    engine::ColumnSource::Input(_) => Err("is an input, which generate does not compute".to_string()),
                };
                lent.map(Some).map_err(|m| py_error(py, "ArgumentError", (format!("out['{name}']: {m}"),)))
            };
            given.into_iter().zip(sources).zip(names).map(lend).collect::<PyResult<_>>()?
        }
        None => sources
            .iter()
            .map(|s| match *s {
                engine::ColumnSource::Output(o) if plan.rows() >= host::HOST_MIN_ROWS => {
                    host::HostArray::zeros(py, program.outputs[o].ty, plan.rows())
                }
                _ => None,
            })
            .collect(),
    };
    let lent = arrays.iter_mut().map(|a| a.as_mut().map(|a| a.rows()).transpose()).collect::<PyResult<_>>()?;
    let result = py.allow_threads(|| {
        let mut generator = make()?;
        let filled = generator.fill_into(plan.start, plan.rows, &stop, lent)?;
        Ok((filled, generator.take_emitted()))
    });
    let (columns, emitted) = match result {
        Err(GenerateError::Cancelled) => return Err(interrupt.take()),
        other => other.map_err(|e| generate_error(py, e))?,
    };
    let d = PyDict::new(py);
    for (((name, column), array), source) in names.iter().zip(columns).zip(arrays).zip(sources) {
        let value = match (column, array, *source) {
            (Filled::Column(column), _, _) => column_to_py(py, column),
            // The caller's own array, as given (a masked view of it where rows are None).
            (Filled::InPlace { nulls }, Some(array), _) if callers => masked(py, array.array(), plan.rows(), &nulls),
            (Filled::InPlace { nulls }, Some(array), engine::ColumnSource::Output(o)) => {
                finish_array(py, array.array(), program.outputs[o].ty, plan.rows(), &nulls)
            }
            (Filled::InPlace { .. }, _, _) => unreachable!("rows in place were lent for an output"),
        };
        let value = value.map_err(|e| as_out_of_memory(py, e, &format!("the column '{name}' as numpy")))?;
        d.set_item(name, value)?;
    }
    Ok((d, emitted))
}

/// `generate`'s Python result: the dict, or `(dict, emitted rows)` when asked.
fn with_emitted<'py>(
    py: Python<'py>,
    (d, rows): (Bound<'py, PyDict>, Vec<String>),
    emitted: bool,
) -> PyResult<PyObject> {
    Ok(if emitted { (d, rows).into_pyobject(py)?.into_any().unbind() } else { d.into_any().unbind() })
}

fn encoding(py: Python<'_>, encode: Option<&str>) -> PyResult<arrow::Encode> {
    match encode {
        None => Ok(arrow::Encode::Arrow),
        Some("csv") => Ok(arrow::Encode::Csv),
        Some("jsonl") => Ok(arrow::Encode::Jsonl),
        Some(other) => Err(unsupported(py, format!("unknown encoding '{other}' (csv, jsonl or None)"))),
    }
}

/// The rows of several kernels of one program, run after run: for each
/// `(kernel, start, rows)`, its first coordinate swept over `start..start +
/// rows` (a program without coordinates reads the same row again), from a
/// kernel of the same scope (its bindings, its current inputs). Returns the
/// columns `columns` as CSV rows (no header) or JSON Lines (`format`
/// `"csv"`/`"jsonl"`: bytes), or as an Arrow record batch (`"arrow"`). The
/// runs are shared out among `threads` workers; the result is the same on
/// any number. The GIL is released.
#[pyfunction]
#[pyo3(signature = (runs, columns, format, threads=1))]
fn fill_runs(
    py: Python<'_>,
    runs: Vec<(PyRef<'_, Kernel>, u64, usize)>,
    columns: Vec<String>,
    format: &str,
    threads: usize,
) -> PyResult<PyObject> {
    contained(py, || {
        let Some((first, _, _)) = runs.first() else {
            return Err(py_error(py, "ArgumentError", ("fill_runs needs at least one run",)));
        };
        let program = first.scope.program().clone();
        let sources = column_sources(py, &program, &columns)?;
        let coordinate = (0..program.coord_count).next();
        let mut jobs = Vec::with_capacity(runs.len());
        for (kernel, start, rows) in &runs {
            if !Arc::ptr_eq(kernel.scope.program(), &program) {
                return Err(py_error(py, "ArgumentError", ("every run must be a kernel of the same program",)));
            }
            let sibling = kernel.locked(py, |kernel| kernel.sibling());
            jobs.push(run::KernelRows { kernel: Box::new(sibling), coordinate, start: *start, rows: *rows });
        }
        let interrupt = SignalWatch::new();
        let hook = || interrupt.interrupted();
        let stop = Stop::with_hook(&hook);
        let result = py.allow_threads(|| run::fill_runs(&program, jobs, &sources, threads, &stop));
        let filled = match result {
            Err(GenerateError::Cancelled) => return Err(interrupt.take()),
            other => other.map_err(|e| generate_error(py, e))?,
        };
        let refs: Vec<&Column> = filled.iter().collect();
        let mut out = Vec::new();
        let encoded = match format {
            "csv" => columns::text::csv_rows(&refs, &mut out),
            "jsonl" => {
                let names: Vec<&str> = columns.iter().map(String::as_str).collect();
                columns::text::jsonl_rows(&names, &refs, &mut out)
            }
            "arrow" => {
                let types: Vec<_> = filled.iter().map(|c| c.ty).collect();
                let schema = arrow::schema(&columns, &types);
                let rows = runs.iter().map(|(_, _, rows)| rows).sum();
                let batch =
                    arrow::record_batch(&schema, filled, rows).map_err(|e| py_error(py, "InternalError", (e,)))?;
                return Ok(pyo3_arrow::PyRecordBatch::new(batch).into_pyobject(py)?.into_any().unbind());
            }
            other => return Err(unsupported(py, format!("unknown format '{other}' (csv, jsonl or arrow)"))),
        };
        encoded.map_err(|_| out_of_memory(py, "the text of the rows"))?;
        Ok(py_bytes(py, &out)?.into_any().unbind())
    })
}

/// How many times `__probe` nodes keyed `key` have evaluated (for tests).
/// The positions an `order` clause emits over a comprehension whose
/// clauses have `axes` values each (see `polydat_core::order`).
#[pyfunction]
#[pyo3(signature = (strategy, axes, count=None, seed=None))]
fn order_positions(
    py: Python<'_>,
    strategy: &str,
    axes: Vec<u64>,
    count: Option<u64>,
    seed: Option<u64>,
) -> PyResult<Vec<u64>> {
    polydat_core::order::positions(strategy, &axes, count, seed).map_err(|e| py_error(py, "ArgumentError", (e,)))
}

#[pyfunction]
fn probe_count(key: &str) -> u64 {
    polydat_core::nodes::diagnostic::probe_count(key)
}

/// Resets the `__probe` evaluation count of `key`.
#[pyfunction]
fn probe_reset(key: &str) {
    polydat_core::nodes::diagnostic::probe_reset(key)
}

/// Every engine a program can run on, by the name `Program.engine` reports
/// (`p1`, `p2/raw`, `p2/push`, `p2/pull`, `p2/pushpull`): what an equivalence
/// matrix iterates. Each name is accepted as `engine=`.
#[pyfunction]
fn engines() -> Vec<&'static str> {
    engine::ENGINE_NAMES.to_vec()
}

/// Runs a performance scenario in Rust: `graph` on each of `engines` (an
/// `engines()` name, or `"program"` for the engine `graph` was compiled
/// for), interleaved round by round, fed by `driver` (outputs → graph
/// inputs, positionally; `None`: the cycle into input 0), pulling one output
/// per cycle by `pulls` weights. One warm-up pass, then `iters` timed rounds
/// of `cycles` cycles; returns one `{"engine", "total", "driver", "net"}`
/// per engine with ns per cycle per iteration (`net` = total minus the
/// driver's own cost). The GIL is released.
#[pyfunction]
#[pyo3(signature = (graph, driver, engines, pulls, cycles, iters))]
fn bench_scenario<'py>(
    py: Python<'py>,
    graph: &Program,
    driver: Option<&Program>,
    engines: Vec<String>,
    pulls: Vec<(String, u64)>,
    cycles: u64,
    iters: usize,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    use polydat_core::run::bench::{run_interleaved, Scenario};
    contained(py, || {
        let kinds = engines
            .iter()
            .map(|e| match e.as_str() {
                "program" => Ok(graph.kind),
                name => EngineKind::parse(name).map_err(|e| refused(py, &e)),
            })
            .collect::<PyResult<Vec<_>>>()?;
        let mut weights = Vec::new();
        for (name, w) in pulls {
            let o = graph.inner.output(&name).ok_or_else(|| {
                let message = format!("@pull_weights names '{name}': {}", graph.inner.unknown_name(&name));
                unknown_name(py, message, &name)
            })?;
            weights.push((o, w));
        }
        let scenario = Scenario { driver: driver.map(|d| d.inner.clone()), graph: graph.inner.clone(), pulls: weights };
        let timings = py
            .allow_threads(|| run_interleaved(&scenario, &kinds, cycles, iters))
            .map_err(|e| generate_error(py, e))?;
        kinds
            .iter()
            .zip(timings)
            .map(|(kind, timing)| {
                let d = PyDict::new(py);
                d.set_item("engine", kind.name())?;
                d.set_item("net", timing.net())?;
                d.set_item("total", timing.total)?;
                d.set_item("driver", timing.driver)?;
                Ok(d)
            })
            .collect()
    })
}

/// The most bytes one string or byte-string value may hold (every program).
#[pyfunction]
fn max_value_bytes() -> usize {
    polydat_core::node::limit::max_value_bytes()
}

/// Sets the most bytes one string or byte-string value may hold.
#[pyfunction]
fn set_max_value_bytes(bytes: usize) {
    polydat_core::node::limit::set_max_value_bytes(bytes)
}

/// Panics with `message` inside the binding's panic containment (for tests:
/// the panic must surface as `polydat.InternalError`).
#[pyfunction]
fn _raise_panic(py: Python<'_>, message: &str) -> PyResult<()> {
    contained(py, || panic!("{message}"))
}

/// The engine names `engine=` accepts besides those of `engines()`:
/// `["auto", "p1", "p2", "p3", "mixed"]`.
#[pyfunction]
fn engine_requests() -> Vec<&'static str> {
    engine::ENGINE_REQUESTS.to_vec()
}

/// The names `provenance=` accepts: `["auto", "raw", "push", "pull", "pushpull"]`.
#[pyfunction]
fn provenances() -> Vec<&'static str> {
    engine::PROVENANCE_REQUESTS.to_vec()
}

/// Refuses (`RefusedError`) an (engine, provenance) request no engine can
/// honour, before anything is compiled.
#[pyfunction]
fn check_request(py: Python<'_>, engine: &str, provenance: &str) -> PyResult<()> {
    polydat_core::compile::select::Request::parse(engine, provenance).map(|_| ()).map_err(|e| refused(py, &e))
}

/// The candidate closest to `name` (the core's "did you mean" rule), or
/// `None`; a close name of `preferred` (the program's own) wins over `candidates`.
#[pyfunction]
#[pyo3(signature = (name, candidates, preferred=Vec::new()))]
fn suggest(name: &str, candidates: Vec<String>, preferred: Vec<String>) -> Option<String> {
    let others = candidates.iter().map(String::as_str);
    polydat_core::suggest::closest_preferring(name, preferred.iter().map(String::as_str), others).map(str::to_string)
}

/// The (from, to) type pairs the compiler converts on a wire by itself
/// (`implicit=True`), or that an explicit `as` cast accepts.
#[pyfunction]
#[pyo3(signature = (implicit=true))]
fn conversions(implicit: bool) -> Vec<(&'static str, &'static str)> {
    use polydat_core::nodes::convert::{cast_conversions, implicit_conversions};
    let pairs = if implicit { implicit_conversions() } else { cast_conversions() };
    pairs.into_iter().map(|(f, t)| (f.keyword(), t.keyword())).collect()
}

fn port_type(py: Python<'_>, keyword: &str) -> PyResult<polydat_core::PortType> {
    polydat_core::PortType::from_keyword(keyword)
        .ok_or_else(|| py_error(py, "PolydatError", (format!("unknown type '{keyword}'"),)))
}

/// The output types of a call of node `op` over wires of `wire_types` with
/// the construction constants `consts_json` (a JSON list of IR constants).
#[pyfunction]
fn output_types(py: Python<'_>, op: &str, wire_types: Vec<String>, consts_json: &str) -> PyResult<Vec<&'static str>> {
    let types: Vec<_> = wire_types.iter().map(|t| port_type(py, t)).collect::<PyResult<_>>()?;
    let consts: Vec<polydat_core::ir::ConstIr> = serde_json::from_str(consts_json)
        .map_err(|e| py_error(py, "PolydatError", (format!("malformed constants: {e}"),)))?;
    let out = polydat_core::compile::resolve::call_output_types(op, &types, &consts)
        .map_err(|e| py_error(py, "PolydatError", (e,)))?;
    Ok(out.into_iter().map(|t| t.keyword()).collect())
}

/// Reads `text` as a value of type `type_name` (the command line's
/// `--set name=value` rule; see `nodes::convert::parse_text`).
#[pyfunction]
fn parse_text(py: Python<'_>, text: &str, type_name: &str) -> PyResult<PyObject> {
    let ty = port_type(py, type_name)?;
    let value = polydat_core::nodes::convert::parse_text(text, ty).map_err(|e| py_error(py, "PolydatError", (e,)))?;
    to_py(py, &value)
}

/// The first line of a text output: the CSV header of `names`, or nothing
/// for JSON Lines.
#[pyfunction]
fn text_header<'py>(py: Python<'py>, names: Vec<String>, format: &str) -> Bound<'py, PyBytes> {
    let mut out = Vec::new();
    if format == "csv" {
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        columns::text::csv_header(&names, &mut out);
    }
    PyBytes::new(py, &out)
}

/// The text `polydat run` writes for one column of type `type_name` holding
/// `values` (with `header` as its name): CSV (`format="csv"`, header line
/// first) or JSON Lines. For tests of the text encoders.
#[pyfunction]
fn _encode_column<'py>(
    py: Python<'py>,
    type_name: &str,
    header: &str,
    values: Vec<Bound<'py, PyAny>>,
    format: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    contained(py, || {
        let ty = port_type(py, type_name)?;
        let mut column = Column::new(ty, values.len()).ok_or_else(|| PyMemoryError::new_err("no memory"))?;
        let mut parts = column.split(&[values.len()]);
        for v in &values {
            let value = to_value(py, v)?;
            let value = match value {
                Value::None => Value::None,
                other => engine::adapt_boundary(header, ty, other).map_err(|e| write_error(py, &e))?,
            };
            parts[0].push(&value);
        }
        let done = parts.into_iter().map(|p| p.done()).collect();
        column.absorb(done).map_err(|_| out_of_memory(py, "the rows"))?;
        let mut out = Vec::new();
        let encoded = match format {
            "csv" => {
                columns::text::csv_header(&[header], &mut out);
                columns::text::csv_rows(&[&column], &mut out)
            }
            _ => columns::text::jsonl_rows(&[header], &[&column], &mut out),
        };
        encoded.map_err(|_| out_of_memory(py, "the text of the rows"))?;
        py_bytes(py, &out)
    })
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(catalog_json, m)?)?;
    m.add_function(wrap_pyfunction!(data_files_json, m)?)?;
    m.add_function(wrap_pyfunction!(engines, m)?)?;
    m.add_function(wrap_pyfunction!(engine_requests, m)?)?;
    m.add_function(wrap_pyfunction!(_raise_panic, m)?)?;
    m.add_function(wrap_pyfunction!(max_value_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(set_max_value_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(provenances, m)?)?;
    m.add_function(wrap_pyfunction!(suggest, m)?)?;
    m.add_function(wrap_pyfunction!(check_request, m)?)?;
    m.add_function(wrap_pyfunction!(conversions, m)?)?;
    m.add_function(wrap_pyfunction!(output_types, m)?)?;
    m.add_function(wrap_pyfunction!(parse_text, m)?)?;
    m.add_function(wrap_pyfunction!(bench_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(order_positions, m)?)?;
    m.add_function(wrap_pyfunction!(probe_count, m)?)?;
    m.add_function(wrap_pyfunction!(probe_reset, m)?)?;
    m.add_function(wrap_pyfunction!(text_header, m)?)?;
    m.add_function(wrap_pyfunction!(_encode_column, m)?)?;
    m.add_function(wrap_pyfunction!(fill_runs, m)?)?;
    m.add_function(wrap_pyfunction!(numpy_dtype, m)?)?;
    m.add_function(wrap_pyfunction!(fanout::fanout, m)?)?;
    m.add_function(wrap_pyfunction!(fanout::fanout_rows, m)?)?;
    m.add_function(wrap_pyfunction!(fanout::fanout_supported, m)?)?;
    m.add_class::<Program>()?;
    m.add_class::<Kernel>()?;
    m.add_class::<arrow::BatchStream>()?;
    rules_query::register(m)?;
    Ok(())
}
