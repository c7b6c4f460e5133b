//! The rows of a one-to-many workload phase ([`polydat_core::generation::fanout`]):
//! argument conversion for `polydat.workload`, which decides when a phase
//! runs this way.

use crate::arrow;
use crate::errors::{contained, HostError, HostResult};
use crate::kernel::Kernel;
use crate::run::{encoding, Threads};
use polydat_core::engine::Stop;
use polydat_core::generation::fanout::{runs_parent_after_parent, FanOut, FanOutPlan, RowCount};
use polydat_core::program::ColumnSource;
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyString, PyTuple};

/// The one-to-many rows of `kernel`'s program (bound under the phase's
/// outer scope): the parents are the values `first`, `first + step`, ...
/// (`parents` of them) of iteration input `iteration[0]`; `iteration[1]`
/// and `iteration[2]` take each parent's position (from `first_ordinal`)
/// and the rows before it (from `first_row`). `count` is each parent's
/// rows: an int, a `(start, rows)` pair of the coordinate's values, or the
/// name of a column read per parent.
struct Args {
    plan: FanOutPlan,
    sources: Vec<ColumnSource>,
}

#[allow(clippy::too_many_arguments)]
fn args(
    kernel: &Kernel,
    iteration: (String, String, String),
    first: u64,
    step: u64,
    parents: usize,
    count: &Bound<'_, PyAny>,
    columns: &[String],
    first_ordinal: u64,
    first_row: u64,
) -> HostResult<Args> {
    let program = kernel.scope.program().clone();
    let input = |name: &str| {
        program.input(name).ok_or_else(|| HostError::unknown_name(format!("the program has no input '{name}'"), name))
    };
    let count = if let Ok(name) = count.downcast::<PyString>() {
        let name = name.to_string();
        let source = program.column_source(&name).map_err(|m| HostError::unknown_name(m, &name))?;
        RowCount::PerParent { source, name }
    } else if let Ok(rows) = count.downcast::<PyInt>() {
        RowCount::Fixed { start: 0, rows: rows.extract()? }
    } else if let Ok(pair) = count.downcast::<PyTuple>() {
        let (start, rows): (u64, u64) = pair.extract()?;
        RowCount::Fixed { start, rows }
    } else {
        return Err(HostError::Argument("count is an int, a (start, rows) pair or a column name".into()));
    };
    let sources = columns
        .iter()
        .map(|name| program.column_source(name).map_err(|m| HostError::unknown_name(m, name)))
        .collect::<HostResult<_>>()?;
    let plan = FanOutPlan {
        parent: input(&iteration.0)?,
        ordinal: input(&iteration.1)?,
        row_offset: input(&iteration.2)?,
        first,
        step,
        parents,
        first_ordinal,
        first_row,
        count,
        coordinate: (program.coord_count > 0).then_some(0),
    };
    Ok(Args { plan, sources })
}

/// True when one kernel of `kernel`'s program can run parent after parent
/// (no volatile step, no cell): the condition of [`fanout`].
#[pyfunction]
pub fn fanout_supported(kernel: PyRef<'_, Kernel>) -> bool {
    runs_parent_after_parent(kernel.scope.program())
}

/// A stream of the one-to-many rows (see [`Args`]): the columns `columns`,
/// about `batch_rows` rows a batch of whole parents, made on `threads`
/// workers ahead of the caller, as Arrow record batches or (`encode`
/// "csv"/"jsonl") text.
#[pyfunction]
#[pyo3(signature = (kernel, iteration, first, step, parents, count, columns, first_ordinal=0, first_row=0, threads=Threads(1), batch_rows=65536, encode=None))]
#[allow(clippy::too_many_arguments)]
pub fn fanout(
    py: Python<'_>,
    kernel: PyRef<'_, Kernel>,
    iteration: (String, String, String),
    first: u64,
    step: u64,
    parents: usize,
    count: Bound<'_, PyAny>,
    columns: Vec<String>,
    first_ordinal: u64,
    first_row: u64,
    threads: Threads,
    batch_rows: usize,
    encode: Option<&str>,
) -> PyResult<arrow::BatchStream> {
    contained(py, || {
        let Args { plan, sources } =
            args(&kernel, iteration, first, step, parents, &count, &columns, first_ordinal, first_row)?;
        let encode = encoding(encode)?;
        let (maker, _) = kernel.maker(py);
        let fanout = FanOut::new(kernel.scope.program(), maker, plan, &sources, threads.0, batch_rows);
        arrow::BatchStream::of(arrow::Source::FanOut(fanout), columns, encode).map_err(HostError::Internal)
    })
}

/// The rows the parents of [`fanout`]'s arguments have in all, filling none.
#[pyfunction]
#[pyo3(signature = (kernel, iteration, first, step, parents, count, first_ordinal=0, first_row=0, threads=Threads(1)))]
#[allow(clippy::too_many_arguments)]
pub fn fanout_rows(
    py: Python<'_>,
    kernel: PyRef<'_, Kernel>,
    iteration: (String, String, String),
    first: u64,
    step: u64,
    parents: usize,
    count: Bound<'_, PyAny>,
    first_ordinal: u64,
    first_row: u64,
    threads: Threads,
) -> PyResult<u64> {
    contained(py, || {
        let Args { plan, sources } =
            args(&kernel, iteration, first, step, parents, &count, &[], first_ordinal, first_row)?;
        let (maker, _) = kernel.maker(py);
        let mut fanout = FanOut::new(kernel.scope.program(), maker, plan, &sources, threads.0, 1);
        let stop = Stop::new();
        Ok(py.allow_threads(|| fanout.count_all(&stop))?)
    })
}
