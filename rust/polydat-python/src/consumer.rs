//! Objects one consumer reads at a time (a batch stream, an order's walk):
//! each method that advances one takes it through [`one_consumer`], so a
//! second thread reading it while the first waits (the GIL let go) gets
//! `polydat.ConcurrentUseError`, not PyO3's bare `RuntimeError`.

use crate::errors::HostError;
use pyo3::prelude::*;
use pyo3::pyclass::boolean_struct::False;
use pyo3::PyClass;

/// `slf` borrowed for this call alone, or `ConcurrentUseError` naming
/// `what` when another call (on another thread) is using it.
pub(crate) fn one_consumer<'py, T: PyClass<Frozen = False>>(
    slf: &Bound<'py, T>,
    what: &str,
) -> PyResult<PyRefMut<'py, T>> {
    slf.try_borrow_mut().map_err(|_| {
        HostError::Busy(format!(
            "{what} is being read by another thread: an iterator has one consumer at a time (give each thread its own, e.g. one iter_batches per range of rows)"
        ))
        .into_pyerr(slf.py())
    })
}
