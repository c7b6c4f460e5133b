//! The row-at-a-time strategy any kernel has: [`ValueRows`], the filler
//! made of the kernel's own writes and reads, and [`fill_row_by_row`] /
//! [`fill_each_row_run`], the loops every faster filler falls back to.

use super::kernel::{GenerateError, Kernel, RowFill, RowFiller, RowRuns, STOP_CHECK_ROWS};
use crate::columns::ColumnPart;
use crate::error::EvalError;

/// The row filler any kernel has: each read through [`Kernel`]'s own
/// writes and reads, one value at a time.
pub struct ValueRows<'k, K: ?Sized> {
    kernel: &'k mut K,
    outs: &'k [usize],
}

impl<'k, K: Kernel + ?Sized> ValueRows<'k, K> {
    /// The row filler of `outs` on `kernel`.
    pub fn new(kernel: &'k mut K, outs: &'k [usize]) -> Self {
        ValueRows { kernel, outs }
    }
}

impl<K: Kernel + ?Sized> RowFiller for ValueRows<'_, K> {
    fn read_words(&mut self, values: &[u64], words: &mut [u64]) -> Result<(), GenerateError> {
        for (input, &value) in values.iter().enumerate() {
            self.kernel.write_u64(input, value).map_err(GenerateError::Write)?;
        }
        for (word, &out) in words.iter_mut().zip(self.outs) {
            *word = self.kernel.pull_word(out).map_err(GenerateError::Eval)?;
        }
        Ok(())
    }

    fn push_row(&mut self, columns: &mut [ColumnPart<'_>]) -> Result<(), EvalError> {
        for (column, &out) in columns.iter_mut().zip(self.outs) {
            column.push(&self.kernel.pull(out)?);
        }
        Ok(())
    }

    fn fill(&mut self, rows: &RowFill<'_>, columns: &mut [ColumnPart<'_>]) -> Result<(), GenerateError> {
        let outs = self.outs;
        fill_row_by_row(&mut *self.kernel, rows, columns, |k, columns| {
            for (column, &out) in columns.iter_mut().zip(outs) {
                column.push(&k.pull(out)?);
            }
            Ok(())
        })
    }

    fn fill_row_runs(&mut self, runs: &RowRuns<'_>, columns: &mut [ColumnPart<'_>]) -> Result<(), GenerateError> {
        let outs = self.outs;
        fill_each_row_run(&mut *self.kernel, runs, |k, rows| {
            fill_row_by_row(k, rows, &mut *columns, |k, columns| {
                for (column, &out) in columns.iter_mut().zip(outs) {
                    column.push(&k.pull(out)?);
                }
                Ok(())
            })
        })
    }
}

/// [`RowFiller::fill`] one row at a time: write the coordinate, then
/// `read_row` reads the row into `columns` (every filler's way when nothing
/// faster serves, and the fallback of faster ways). A failing row is
/// reported at its row.
pub fn fill_row_by_row<'c, K: Kernel + ?Sized>(
    kernel: &mut K,
    rows: &RowFill<'_>,
    columns: &mut [ColumnPart<'c>],
    mut read_row: impl FnMut(&mut K, &mut [ColumnPart<'c>]) -> Result<(), EvalError>,
) -> Result<(), GenerateError> {
    let mut cycle = rows.first;
    for row in 0..rows.count {
        if row % STOP_CHECK_ROWS == 0 {
            rows.check(columns)?;
        }
        kernel.write_u64(rows.coordinate, cycle).map_err(GenerateError::Write)?;
        if let Err(e) = read_row(kernel, columns) {
            let name = &kernel.program().inputs[rows.coordinate].name;
            return Err(GenerateError::Eval(e.at_row(name, cycle)));
        }
        cycle = cycle.wrapping_add(rows.step);
    }
    Ok(())
}

/// [`RowFiller::fill_row_runs`] one row run at a time: the run's inputs written
/// ([`Kernel::write_u64`]), then its rows filled by `fill` — every filler's
/// way when nothing faster serves, and the fallback of faster ways.
pub fn fill_each_row_run<K: Kernel + ?Sized>(
    kernel: &mut K,
    runs: &RowRuns<'_>,
    mut fill: impl FnMut(&mut K, &RowFill<'_>) -> Result<(), GenerateError>,
) -> Result<(), GenerateError> {
    for j in 0..runs.counts.len() {
        if runs.counts[j] == 0 {
            continue;
        }
        for (&input, &value) in runs.inputs.iter().zip(runs.values_of(j)) {
            kernel.write_u64(input, value).map_err(GenerateError::Write)?;
        }
        fill(kernel, &runs.rows_of(j))?;
    }
    Ok(())
}
