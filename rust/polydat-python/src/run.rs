//! Rows: the checked row plan of a `generate`, its numpy columns, the rows
//! of several kernels (`fill_kernel_rows`), the text header, the bench harness,
//! and Ctrl-C while the GIL is released.

use polydat_core::columns::formats::{self, Writer};
use polydat_core::columns::Column;
use polydat_core::engine::{self, EngineKind, GenerateError, KernelMaker, Stop};
use polydat_core::generation::{self, Filled, RowPlan};
use polydat_core::{Program as CoreProgram, Value, WriteError};
use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyInt};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::convert::{column_to_py, finish_array, masked, py_bytes, to_value};
use crate::errors::{contained, HostError, HostResult};
use crate::kernel::Kernel;
use crate::program::Program;
use crate::{arrow, host};

/// The most worker threads a run starts (`threads` is `1..=MAX_THREADS`).
pub(crate) const MAX_THREADS: usize = 256;

/// A worker-thread count, checked where it crosses from Python (the one
/// check of it): an int (not a bool) in `1..=MAX_THREADS`, else
/// `polydat.ArgumentError` saying what was given.
pub(crate) struct Threads(pub(crate) usize);

impl<'py> FromPyObject<'py> for Threads {
    fn extract_bound(obj: &Bound<'py, PyAny>) -> PyResult<Self> {
        let py = obj.py();
        if obj.is_instance_of::<PyBool>() || !obj.is_instance_of::<PyInt>() {
            let kind = obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "object".into());
            return Err(HostError::Argument(format!("threads must be an integer, not {kind}")).into_pyerr(py));
        }
        match obj.extract::<usize>() {
            Ok(threads) if (1..=MAX_THREADS).contains(&threads) => Ok(Threads(threads)),
            _ => {
                let given = obj.str().map(|s| s.to_string()).unwrap_or_default();
                let message = format!("threads must be between 1 and {MAX_THREADS}, got {given}");
                Err(HostError::Argument(message).into_pyerr(py))
            }
        }
    }
}

/// `threads` if it is a worker-thread count (see [`Threads`]), else `ArgumentError`.
#[pyfunction]
pub(crate) fn check_threads(threads: Threads) -> usize {
    threads.0
}

/// The core's [`RowPlan`] by names (`_core.RowPlan` in Python), built once
/// in Python and passed whole to `generate` and `batches`: `rows` cycles
/// `start, start + step, ...` (wrapping) written to input `coordinate`, the
/// columns `outputs` (outputs or inputs), the `fixed` inputs written once
/// per kernel, on `threads` workers (checked when the plan is made). Names
/// are resolved against the program when it runs.
#[pyclass(frozen, name = "RowPlan", module = "polydat._core")]
pub(crate) struct NamedRowPlan {
    /// The coordinate input that takes each row's cycle.
    #[pyo3(get)]
    coordinate: String,
    /// The cycle of the first row.
    #[pyo3(get)]
    start: u64,
    /// The number of rows (up to every cycle, 2**64: a stream of more rows
    /// than one run of the core takes is run in segments).
    #[pyo3(get)]
    rows: u128,
    /// Added to the cycle from one row to the next (wrapping).
    #[pyo3(get)]
    step: u64,
    /// The columns, by name.
    #[pyo3(get)]
    outputs: Vec<String>,
    /// Inputs fixed for the whole run, as (name, Python value).
    fixed: Vec<(String, Py<PyAny>)>,
    /// Worker threads.
    #[pyo3(get)]
    threads: usize,
}

#[pymethods]
impl NamedRowPlan {
    /// A plan; `threads` is checked here (`ArgumentError` unless an int in `1..=MAX_THREADS`).
    #[new]
    #[pyo3(signature = (coordinate, start, rows, step, outputs, fixed, threads))]
    fn new(
        coordinate: String,
        start: u64,
        rows: u128,
        step: u64,
        outputs: Vec<String>,
        fixed: Vec<(String, Py<PyAny>)>,
        threads: Threads,
    ) -> NamedRowPlan {
        NamedRowPlan { coordinate, start, rows, step, outputs, fixed, threads: threads.0 }
    }

    /// The `count` rows of this plan after its first `skip` (their first
    /// cycle `start + skip * step`, wrapping).
    fn segment(&self, py: Python<'_>, skip: u128, count: u128) -> NamedRowPlan {
        // Cycles wrap at 2**64, so only `skip` modulo 2**64 moves the start.
        let start = self.start.wrapping_add((skip as u64).wrapping_mul(self.step));
        NamedRowPlan { start, rows: count, ..self.copy(py) }
    }

    /// This plan with the columns `outputs`.
    fn with_outputs(&self, py: Python<'_>, outputs: Vec<String>) -> NamedRowPlan {
        NamedRowPlan { outputs, ..self.copy(py) }
    }
}

impl NamedRowPlan {
    fn copy(&self, py: Python<'_>) -> NamedRowPlan {
        NamedRowPlan {
            coordinate: self.coordinate.clone(),
            start: self.start,
            rows: self.rows,
            step: self.step,
            outputs: self.outputs.clone(),
            fixed: self.fixed.iter().map(|(n, v)| (n.clone(), v.clone_ref(py))).collect(),
            threads: self.threads,
        }
    }

    /// The core's row plan and the column sources of this run of `program`
    /// (its names resolved, its fixed values converted).
    fn resolve(&self, py: Python<'_>, program: &CoreProgram) -> HostResult<(RowPlan, Vec<engine::ColumnSource>)> {
        let unknown_input = |name: &str| WriteError::UnknownInput { name: name.into(), known: program.input_names() };
        let coordinate = program.input(&self.coordinate).ok_or_else(|| unknown_input(&self.coordinate))?;
        let mut fixed = Vec::new();
        for (name, value) in &self.fixed {
            let i = program.input(name).ok_or_else(|| unknown_input(name))?;
            fixed.push((i, to_value(py, value.bind(py))?));
        }
        let sources = column_sources(program, &self.outputs)?;
        let rows = usize::try_from(self.rows).map_err(|_| {
            HostError::Argument(format!(
                "one run takes at most {} rows, got {}: run segments of them",
                usize::MAX,
                self.rows
            ))
        })?;
        Ok((RowPlan { coordinate, start: self.start, rows, step: self.step, fixed }, sources))
    }
}

/// What a run's rows are made from: a program (fresh kernels), or a kernel
/// (kernels of its scope: its bindings, its current inputs; one per thread).
#[derive(FromPyObject)]
pub(crate) enum RunOn<'py> {
    Program(PyRef<'py, Program>),
    Kernel(PyRef<'py, Kernel>),
}

/// Runs the rows of `plan` on `on` (a `Program` or a `Kernel`): returns
/// {name: numpy array} for every column of the plan (an output, or an
/// input). `out` gives the caller's numpy array for each output, written in
/// place (see [`generate_dict`]). The GIL is released; Ctrl-C stops every
/// worker within about 50 ms and raises `KeyboardInterrupt`. With
/// `emitted`, returns `(dict, rows)`: also the rows `emit_row` nodes
/// emitted, in row order.
#[pyfunction]
#[pyo3(signature = (on, plan, emitted=false, out=None))]
pub(crate) fn generate<'py>(
    py: Python<'py>,
    on: RunOn<'py>,
    plan: &NamedRowPlan,
    emitted: bool,
    out: Option<Vec<Bound<'py, PyAny>>>,
) -> PyResult<PyObject> {
    contained(py, || {
        let rows = Rows::of(py, &on);
        let (row_plan, sources) = plan.resolve(py, &rows.program)?;
        let program = rows.program.clone();
        let threads = plan.threads;
        let make = || rows.generator(&row_plan, &sources, threads);
        let (d, emitted_rows) = generate_dict(py, &program, &row_plan, &sources, &plan.outputs, out, make)?;
        Ok(match emitted {
            true => (d, emitted_rows).into_pyobject(py)?.into_any().unbind(),
            false => d.into_any().unbind(),
        })
    })
}

/// A stream of the rows of `plan` on `on` (see [`generate`]), `batch_rows`
/// at a time, generated ahead on a thread of its own (on the plan's
/// workers) while the caller uses the previous batch. `encode=None` yields
/// Arrow record batches (objects with `__arrow_c_array__`); `"csv"` or
/// `"jsonl"` yields each batch's text as bytes. `cycles_column` names a u64
/// column of the rows' cycle numbers put first (the command line's
/// coordinate column). `emitted`: each item is `(batch, rows)`, with the
/// rows `emit_row` nodes emitted while the batch was made.
#[pyfunction]
#[pyo3(signature = (on, plan, batch_rows=65536, encode=None, cycles_column=None, emitted=false))]
pub(crate) fn batches<'py>(
    py: Python<'py>,
    on: RunOn<'py>,
    plan: &NamedRowPlan,
    batch_rows: usize,
    encode: Option<&str>,
    cycles_column: Option<String>,
    emitted: bool,
) -> PyResult<arrow::BatchStream> {
    contained(py, || {
        let rows = Rows::of(py, &on);
        let (row_plan, sources) = plan.resolve(py, &rows.program)?;
        let encode = encoding(encode)?;
        let mut names = Vec::with_capacity(plan.outputs.len() + 1);
        names.extend(cycles_column.clone());
        names.extend(plan.outputs.iter().cloned());
        let generator = rows.generator(&row_plan, &sources, plan.threads)?;
        let batches = generation::Batches::of(generator, batch_rows);
        arrow::BatchStream::start(batches, names, cycles_column.is_some(), encode, emitted).map_err(HostError::Internal)
    })
}

/// The kernels a run's rows are made on (see [`RunOn`]).
struct Rows {
    program: Arc<CoreProgram>,
    kind: EngineKind,
    /// A maker of the scope's kernels and the bound inputs' current values.
    scope: Option<(KernelMaker, Vec<(usize, Value)>)>,
}

impl Rows {
    fn of(py: Python<'_>, on: &RunOn<'_>) -> Rows {
        match on {
            RunOn::Program(program) => Rows { program: program.inner.clone(), kind: program.kind, scope: None },
            RunOn::Kernel(kernel) => {
                let program = kernel.scope.program().clone();
                Rows { program, kind: kernel.scope.kind(), scope: Some(kernel.maker(py)) }
            }
        }
    }

    /// The generator of `sources` over the rows of `plan` on `threads` workers.
    fn generator(
        self,
        plan: &RowPlan,
        sources: &[engine::ColumnSource],
        threads: usize,
    ) -> Result<generation::Generator, GenerateError> {
        let Rows { program, kind, scope } = self;
        match scope {
            None => generation::Generator::new(&program, kind, plan, sources, threads),
            Some((maker, preset)) => {
                generation::Generator::with_maker(&program, kind, maker, preset, plan, sources, threads)
            }
        }
    }
}

/// What each of `names` selects as a column of `program` (an output, else an input).
pub(crate) fn column_sources(program: &CoreProgram, names: &[String]) -> HostResult<Vec<engine::ColumnSource>> {
    names.iter().map(|name| program.column_source(name).map_err(|m| HostError::unknown_name(m, name))).collect()
}

/// Looks for a pending signal (Ctrl-C) while the GIL is released: asked at the
/// workers' stop checks, it acts only on the thread that called (the one
/// Python delivers signals to), at most every 50 ms, and keeps the exception
/// the signal handler raised.
pub(crate) struct SignalWatch {
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

/// `generate`'s result, `{name: numpy array}` for `names` (the columns of
/// `sources`): the generator `make` builds runs over the plan's rows without
/// the GIL (Ctrl-C stops every worker and raises `KeyboardInterrupt`);
/// scalar outputs of many rows go straight into numpy's own arrays. With
/// `out` (one caller's array per column, each an output's), the rows go
/// straight into those arrays, which the dict then holds; an array that
/// does not fit its column is an `ArgumentError` naming it, before any row
/// is made.
pub(crate) fn generate_dict<'py>(
    py: Python<'py>,
    program: &polydat_core::Program,
    plan: &RowPlan,
    sources: &[engine::ColumnSource],
    names: &[String],
    out: Option<Vec<Bound<'py, PyAny>>>,
    make: impl FnOnce() -> Result<generation::Generator, GenerateError> + Send,
) -> HostResult<(Bound<'py, PyDict>, Vec<String>)> {
    let interrupt = SignalWatch::new();
    let hook = || interrupt.interrupted();
    let stop = Stop::with_hook(&hook);
    let callers = out.is_some();
    let mut arrays: Vec<Option<host::HostArray<'py>>> = match out {
        Some(given) => {
            if given.len() != sources.len() {
                let message = format!("out= gives {} arrays for {} outputs", given.len(), sources.len());
                return Err(HostError::Argument(message));
            }
            let lend = |((array, source), name): ((Bound<'py, PyAny>, &engine::ColumnSource), &String)| {
                let lent = match *source {
                    engine::ColumnSource::Output(o) => {
                        host::HostArray::lend(&array, program.outputs[o].ty, plan.rows())
                    }
                    engine::ColumnSource::Input(_) => Err("is an input, which generate does not compute".to_string()),
                };
                lent.map(Some).map_err(|m| HostError::Argument(format!("out['{name}']: {m}")))
            };
            given.into_iter().zip(sources).zip(names).map(lend).collect::<HostResult<_>>()?
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
        Err(GenerateError::Cancelled) => return Err(interrupt.take().into()),
        other => other?,
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
        let value = value.map_err(|e| e.or_out_of_memory(py, &format!("the column '{name}' as numpy")))?;
        d.set_item(name, value)?;
    }
    Ok((d, emitted))
}

/// The batches a stream yields for `encode`: for a format's name (see
/// [`output_format`]), what that format's writer takes; for `None`, plain
/// Arrow batches.
pub(crate) fn encoding(encode: Option<&str>) -> HostResult<arrow::Encode> {
    match encode {
        None => Ok(arrow::Encode::Arrow),
        Some(name) => Ok(arrow::Encode::of(output_format(name)?.writer)),
    }
}

/// The output format called `name` (a name or an alias in the registry,
/// `polydat_core::columns::formats`); for any other name, a `WriteError`
/// that lists the formats.
pub(crate) fn output_format(name: &str) -> HostResult<&'static formats::Format> {
    formats::named(name)
        .ok_or_else(|| HostError::Unsupported(format!("unknown format '{name}' ({})", formats::listed(|_| true))))
}

/// The rows of several kernels of one program, run after run: for each
/// `(kernel, start, rows)`, its first coordinate swept over `start..start +
/// rows` (a program without coordinates reads the same row again), from a
/// kernel of the same scope (its bindings, its current inputs). Returns the
/// columns `columns` as the writer of `format` takes them (see
/// [`encoding`]): text as bytes (CSV rows without the header, JSON Lines),
/// or an Arrow record batch (plain for `"arrow"` or `None`, shaped for
/// `"parquet"`). The runs are shared out among `threads` workers; the
/// result is the same on any number. The GIL is released. (`_core.fill_kernel_rows` in Python.)
#[pyfunction]
#[pyo3(name = "fill_kernel_rows", signature = (runs, columns, format, threads=Threads(1)))]
pub(crate) fn fill_kernel_rows(
    py: Python<'_>,
    runs: Vec<(PyRef<'_, Kernel>, u64, usize)>,
    columns: Vec<String>,
    format: Option<&str>,
    threads: Threads,
) -> PyResult<PyObject> {
    contained(py, || {
        let encode = encoding(format)?;
        let Some((first, _, _)) = runs.first() else {
            return Err(HostError::Argument("fill_kernel_rows needs at least one run".into()));
        };
        let program = first.scope.program().clone();
        let sources = column_sources(&program, &columns)?;
        let coordinate = (0..program.coord_count).next();
        let mut jobs = Vec::with_capacity(runs.len());
        for (kernel, start, rows) in &runs {
            if !Arc::ptr_eq(kernel.scope.program(), &program) {
                return Err(HostError::Argument("every run must be a kernel of the same program".into()));
            }
            let sibling = kernel.locked(py, |kernel| kernel.sibling());
            jobs.push(generation::KernelRows { kernel: Box::new(sibling), coordinate, start: *start, rows: *rows });
        }
        let interrupt = SignalWatch::new();
        let hook = || interrupt.interrupted();
        let stop = Stop::with_hook(&hook);
        // A Parquet writer takes a field no row can hold `None` in as required.
        let nullable = match encode {
            arrow::Encode::Parquet => generation::kernel_rows_may_be_none(&program, &jobs, &sources),
            _ => vec![true; sources.len()],
        };
        let result = py.allow_threads(|| generation::fill_kernel_rows(&program, jobs, &sources, threads.0, &stop));
        let filled = match result {
            Err(GenerateError::Cancelled) => return Err(interrupt.take().into()),
            other => other?,
        };
        if let arrow::Encode::Text(text) = encode {
            let refs: Vec<&Column> = filled.iter().collect();
            let names: Vec<&str> = columns.iter().map(String::as_str).collect();
            let mut out = Vec::new();
            text.rows(&names, &refs, &mut out).map_err(|_| HostError::out_of_memory("the text of the rows"))?;
            return Ok(py_bytes(py, &out)?.into_any().unbind());
        }
        let types: Vec<_> = filled.iter().map(|c| c.ty).collect();
        let schema = arrow::schema_of(&columns, &types, &nullable);
        let rows = runs.iter().map(|(_, _, rows)| rows).sum();
        let batch = match encode {
            arrow::Encode::Parquet => arrow::dictionary_batch(&schema, filled, rows),
            _ => arrow::record_batch(&schema, filled, rows),
        };
        let batch = batch.map_err(HostError::Internal)?;
        Ok(pyo3_arrow::PyRecordBatch::new(batch).into_pyobject(py)?.into_any().unbind())
    })
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
pub(crate) fn bench_scenario<'py>(
    py: Python<'py>,
    graph: &Program,
    driver: Option<&Program>,
    engines: Vec<String>,
    pulls: Vec<(String, u64)>,
    cycles: u64,
    iters: usize,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    use polydat_core::generation::bench::{run_interleaved, Scenario};
    contained(py, || {
        let kinds = engines
            .iter()
            .map(|e| match e.as_str() {
                "program" => Ok(graph.kind),
                name => EngineKind::parse(name),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut weights = Vec::new();
        for (name, w) in pulls {
            let o = graph.inner.output(&name).ok_or_else(|| {
                let message = format!("@pull_weights names '{name}': {}", graph.inner.unknown_name(&name));
                HostError::unknown_name(message, &name)
            })?;
            weights.push((o, w));
        }
        let scenario = Scenario { driver: driver.map(|d| d.inner.clone()), graph: graph.inner.clone(), pulls: weights };
        let timings = py.allow_threads(|| run_interleaved(&scenario, &kinds, cycles, iters))?;
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

/// What an output in format `format` holds before its rows of columns
/// `names`: a text format's header (CSV's header line; nothing for JSON
/// Lines), nothing for a binary format.
#[pyfunction]
pub(crate) fn text_header<'py>(py: Python<'py>, names: Vec<String>, format: &str) -> PyResult<Bound<'py, PyBytes>> {
    let mut out = Vec::new();
    if let Writer::Text(text) = output_format(format)?.writer {
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        text.header(&names, &mut out);
    }
    Ok(PyBytes::new(py, &out))
}
