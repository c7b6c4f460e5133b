//! Raw's row read, the kernel's side: a stale read of scalar outputs (and
//! a read that first writes the leading plain coordinates) served by the
//! executor's row read ([`Executor::row_read`]), the reads kept per kernel
//! so a loop of the same reads does not ask the plan.

use super::{CompiledKernel, Sweep};
use crate::engine::compiled::modes::{Mode, SweepPolicy};
use crate::engine::compiled::plan::{Executor, RowReadKey};
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
    /// The kernel keeps a row read for the outputs `pull_slots` read last
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
        let stale = !values.is_empty() || self.sweep == Sweep::Stale;
        X::READS_ROWS && M::SWEEP == SweepPolicy::Always && self.scope_ready && stale && self.slots.none_free()
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
        // What `write_u64`'s plain-coordinate path records for each input.
        if !values.is_empty() {
            self.sweep = Sweep::Stale;
        }
        (0..values.len()).for_each(|input| self.mode.wrote_plain_coordinate(&self.plan, input));
        X::read_row(read, &mut self.slots.buf, values, words)
    }
}
