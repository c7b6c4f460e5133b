//! Raw's row read, the kernel's side: a stale read of scalar outputs (and
//! a read that first writes the leading plain coordinates) served by the
//! executor's row read ([`Executor::row_read`]), the reads kept per kernel
//! so a loop of the same reads does not ask the plan; and the kernel's row
//! filler ([`CompiledRows`]), which runs a kept row read with one check.

use super::{CompiledKernel, SweepStatus};
use crate::columns::ColumnPart;
use crate::engine::compiled::modes::{Mode, SweepPolicy};
use crate::engine::compiled::plan::{Executor, RowReadKey};
use crate::engine::compiled::shape::Shape;
use crate::engine::kernel::{GenerateError, RowFill, RowFiller};
use crate::error::EvalError;
use std::sync::Arc;

/// A row read a kernel keeps: what it is for, and the read (`None`: those
/// inputs and outputs have none).
pub(super) type KeptRowRead<X> = (RowReadKey, Option<Arc<<X as Executor>::RowRead>>);

/// How many row reads a kernel keeps besides the last one.
const OLDER_ROW_READS: usize = 3;

/// `key` is the row read for `values.len()` inputs and the outputs `outs`.
#[inline(always)]
fn row_read_is_for((inputs, read_for): &RowReadKey, values: &[u64], outs: &[usize]) -> bool {
    // An element loop, not a slice compare (which is a call to `memcmp`).
    *inputs == values.len() && read_for.len() == outs.len() && read_for.iter().zip(outs).all(|(a, b)| a == b)
}

impl<M: Mode, X: Executor> CompiledKernel<M, X> {
    /// The kernel keeps a row read for the outputs the last read of raw words read
    /// (diagnostics and tests).
    pub fn keeps_row_read(&self) -> bool {
        matches!(self.row_read, Some((_, Some(_))))
    }

    /// How many row reads the kernel keeps (the last one and the older
    /// ones; diagnostics and tests).
    pub fn kept_row_reads(&self) -> usize {
        usize::from(self.row_read.is_some()) + self.older_row_reads.len()
    }

    /// Raw's read of scalar outputs by the executor's row read (see
    /// [`Executor::row_read`]), which first writes `values` to the leading
    /// inputs (none: a read alone, which needs a stale round): the outputs'
    /// cones computed in one call and their words handed back, no slot
    /// stored — so the round stays stale and a later read of the same round
    /// sweeps as usual. This is the fast path, by the row read kept from the
    /// last such read; true when it served the read.
    /// Only a row read that cannot fail runs here: the fast path then makes
    /// no call but the native one and keeps nothing live across it.
    #[inline(always)]
    pub(super) fn read_row_kept(&mut self, values: &[u64], outs: &[usize], words: &mut [u64]) -> bool {
        self.may_read_row(values)
            && self.keeps_row_read_for(values, outs)
            && self.run_kept_row_read(values, words, true)
    }

    /// [`Self::read_row_kept`] when that did not serve the read: for other
    /// inputs or outputs than the last ones, asks the plan for their row
    /// read and keeps it; runs the kept one, also one that may fail.
    #[inline(always)]
    pub(super) fn read_row_general(&mut self, values: &[u64], outs: &[usize], words: &mut [u64]) -> bool {
        if !self.may_read_row(values) {
            return false;
        }
        if !self.keeps_row_read_for(values, outs) {
            let older = self.older_row_reads.iter().position(|(key, _)| row_read_is_for(key, values, outs));
            let read = match older {
                Some(at) => self.older_row_reads.remove(at),
                None => {
                    let read = self.plan.executor.row_read(&self.plan.shape, values.len(), outs);
                    ((values.len(), outs.into()), read)
                }
            };
            if let Some(last) = self.row_read.replace(read) {
                self.older_row_reads.insert(0, last);
                self.older_row_reads.truncate(OLDER_ROW_READS);
            }
        }
        self.run_kept_row_read(values, words, false)
    }

    /// A row read may serve a read that writes `values` first: a Raw kernel
    /// of an executor that has row reads, scope-init done, no `None` in the
    /// state, and a stale round unless the read writes a coordinate.
    #[inline(always)]
    fn may_read_row(&self, values: &[u64]) -> bool {
        let stale = !values.is_empty() || self.sweep == SweepStatus::Stale;
        X::READS_ROWS && M::SWEEP == SweepPolicy::Always && self.scope_ready && stale && self.slots.none_free()
    }

    /// The kept row read, when it serves reads that write `values.len()`
    /// inputs and read `outs` now and cannot fail (what a
    /// [`CompiledRowReader`] may run with no other check).
    fn bare_row_read_for(&self, values: &[u64], outs: &[usize]) -> Option<Arc<X::RowRead>> {
        match &self.row_read {
            Some((_, Some(read)))
                if self.may_read_row(values)
                    && self.keeps_row_read_for(values, outs)
                    && !X::row_read_may_fail(read) =>
            {
                Some(read.clone())
            }
            _ => None,
        }
    }

    /// The kept row read is the one for `values.len()` inputs and `outs`.
    #[inline(always)]
    fn keeps_row_read_for(&self, values: &[u64], outs: &[usize]) -> bool {
        matches!(&self.row_read, Some((key, _)) if row_read_is_for(key, values, outs))
    }

    /// Runs the kept row read, if there is one. Its writes are recorded as
    /// `write_u64` records a plain coordinate's (the read stores the words
    /// itself); no read is begun, since the read runs no step: nothing it
    /// makes current for a later write to make stale, nothing volatile to
    /// re-arm (the next read that runs steps begins its own).
    /// With `bare_only`, a read that may fail is left alone (false).
    #[inline(always)]
    fn run_kept_row_read(&mut self, values: &[u64], words: &mut [u64], bare_only: bool) -> bool {
        let Some((_, Some(read))) = &self.row_read else { return false };
        if bare_only && X::row_read_may_fail(read) {
            return false;
        }
        run_row_read::<M, X>(
            read,
            &mut self.slots.buf,
            &mut self.sweep,
            &mut self.mode,
            &self.plan.shape,
            values,
            words,
        )
    }
}

/// Runs `read` over a kernel's buffer `buf` (see [`Executor::read_row`]);
/// once it ran, records its writes of `values` as `write_u64` records a
/// plain coordinate's, in the kernel's `sweep` and `mode` (the read stores
/// the words itself; a read that did not run is written by the caller's
/// usual path, which records its writes itself). True when it ran.
#[inline(always)]
fn run_row_read<M: Mode, X: Executor>(
    read: &X::RowRead,
    buf: &mut [u64],
    sweep: &mut SweepStatus,
    mode: &mut M,
    shape: &Shape,
    values: &[u64],
    words: &mut [u64],
) -> bool {
    if !X::read_row(read, buf, values, words) {
        return false;
    }
    if !values.is_empty() {
        *sweep = SweepStatus::Stale;
    }
    (0..values.len()).for_each(|input| mode.wrote_plain_coordinate(shape, input));
    true
}

/// The row filler of a compiled kernel ([`crate::engine::Kernel::rows`]). Once a read of
/// raw words has found a row read that cannot fail for its inputs and
/// outputs, the next reads of as many inputs run it with no other check:
/// what it needs (scope-init done, no `None` in the buffer, a Raw kernel)
/// holds until something else touches the kernel, which the filler's borrow
/// rules out, and the row read itself stores only inputs. Each read still
/// records its writes, as a u64 write does: the read that found the row
/// read may have swept, and the next row's values make that sweep stale.
/// Any other read is [`CompiledKernel::read_words`]'s, after which the
/// filler looks again. Rows pushed into columns and filled for `generate`
/// are the kernel's own paths.
pub struct CompiledRows<'k, M: Mode, X: Executor> {
    kernel: &'k mut CompiledKernel<M, X>,
    outs: &'k [usize],
    /// The row read the reads run, and how many inputs they write.
    bare: Option<(usize, Arc<X::RowRead>)>,
}

impl<'k, M: Mode, X: Executor> CompiledRows<'k, M, X> {
    /// The filler of `outs` on `kernel`.
    pub fn new(kernel: &'k mut CompiledKernel<M, X>, outs: &'k [usize]) -> Self {
        Self { kernel, outs, bare: None }
    }

    /// See [`RowFiller::read_words`].
    #[inline(always)]
    pub fn read(&mut self, values: &[u64], words: &mut [u64]) -> Result<(), GenerateError> {
        if let Some((inputs, read)) = &self.bare {
            // A read of no input reads the same round again, which stays
            // stale. (The read cannot fail, as checked when it was found;
            // asking again leaves the guarded call out of this path.)
            if *inputs == values.len() && !X::row_read_may_fail(read) {
                let kernel = &mut *self.kernel;
                let (buf, sweep, mode, shape) =
                    (&mut kernel.slots.buf, &mut kernel.sweep, &mut kernel.mode, &kernel.plan.shape);
                if run_row_read::<M, X>(read, buf, sweep, mode, shape, values, words) {
                    return Ok(());
                }
            }
        }
        self.read_and_look_again(values, words)
    }

    /// A read the kept row read did not serve: the kernel's own, then the
    /// row read for the next reads looked for again (out of line, so the
    /// fast path saves no register).
    #[inline(never)]
    fn read_and_look_again(&mut self, values: &[u64], words: &mut [u64]) -> Result<(), GenerateError> {
        let read = self.kernel.read_words(values, self.outs, words);
        self.bare = self.kernel.bare_row_read_for(values, self.outs).map(|found| (values.len(), found));
        read
    }
}

impl<M: Mode, X: Executor> RowFiller for CompiledRows<'_, M, X> {
    fn read_words(&mut self, values: &[u64], words: &mut [u64]) -> Result<(), GenerateError> {
        CompiledRows::read(self, values, words)
    }

    fn push_row(&mut self, columns: &mut [ColumnPart<'_>]) -> Result<(), EvalError> {
        self.kernel.push_row(self.outs, columns)
    }

    fn fill(&mut self, rows: &RowFill<'_>, columns: &mut [ColumnPart<'_>]) -> Result<(), GenerateError> {
        self.kernel.fill_rows(rows, self.outs, columns)
    }

    fn fill_row_runs(
        &mut self,
        runs: &crate::engine::kernel::RowRuns<'_>,
        columns: &mut [ColumnPart<'_>],
    ) -> Result<(), GenerateError> {
        self.kernel.fill_row_runs(runs, self.outs, columns)
    }
}
