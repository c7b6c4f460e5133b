//! Comprehension orders (`polydat_core::order`): every position at once
//! ([`order_positions`]), or walked a batch at a time ([`OrderWalk`]), so a
//! traversal of a huge space holds only the positions it is dispensing.

use crate::consumer::one_consumer;
use crate::errors::{ensure_memory, HostError, HostResult};
use polydat_core::order::{self, OrderError, Walk};
use pyo3::prelude::*;

/// Bytes one position takes as a Python int in a list (object and slot).
const PY_POSITION_BYTES: u64 = 40;

/// The host's error for an order that cannot be walked: a refused clause is
/// an `ArgumentError`, positions that do not fit an `OutOfMemoryError`.
fn host_error(e: OrderError) -> HostError {
    match e {
        OrderError::Refused(message) => HostError::Argument(message),
        OrderError::OutOfMemory { positions } => {
            HostError::out_of_memory(format!("the {positions} positions of an order"))
        }
    }
}

/// Fails with `OutOfMemoryError` unless `positions` positions fit as Python ints.
fn room_for(positions: u64) -> HostResult<()> {
    let bytes = usize::try_from(positions.saturating_mul(PY_POSITION_BYTES)).unwrap_or(usize::MAX);
    ensure_memory(bytes, &format!("the {positions} positions of an order"))
}

/// The positions an `order` clause emits over a comprehension whose
/// clauses have `axes` values each, all at once (`OutOfMemoryError` when
/// they do not fit: walk them with [`order_walk`] instead).
#[pyfunction]
#[pyo3(signature = (strategy, axes, count=None, seed=None))]
pub(crate) fn order_positions(
    strategy: &str,
    axes: Vec<u64>,
    count: Option<u64>,
    seed: Option<u64>,
) -> PyResult<Vec<u64>> {
    let walk = order::walk(strategy, &axes, count, seed, false).map_err(host_error)?;
    room_for(walk.bound())?;
    Ok(walk.into_vec().map_err(host_error)?)
}

/// The walk of an `order` clause (arguments as [`order_positions`]'s),
/// whose positions [`OrderWalk::take`] hands out a batch at a time.
/// `filtered`: the host keeps only the positions whose tuples pass its
/// `where` tests, and then keeps [`OrderWalk::survivor_limit`] of them.
#[pyfunction]
#[pyo3(signature = (strategy, axes, count=None, seed=None, filtered=false))]
pub(crate) fn order_walk(
    strategy: &str,
    axes: Vec<u64>,
    count: Option<u64>,
    seed: Option<u64>,
    filtered: bool,
) -> PyResult<OrderWalk> {
    Ok(OrderWalk { walk: order::walk(strategy, &axes, count, seed, filtered).map_err(host_error)? })
}

/// An order's positions being walked (see `polydat_core::order::Walk`).
#[pyclass(module = "polydat._core")]
pub(crate) struct OrderWalk {
    walk: Walk,
}

#[pymethods]
impl OrderWalk {
    /// The next positions, at most `max` of them; empty once the walk is over.
    fn take(slf: &Bound<'_, Self>, max: usize) -> PyResult<Vec<u64>> {
        let mut this = one_consumer(slf, "this order's walk")?;
        room_for(this.walk.bound().min(max as u64))?;
        Ok(this.walk.take(max).map_err(host_error)?)
    }

    /// At most how many positions the walk emits in all.
    fn bound(slf: &Bound<'_, Self>) -> PyResult<u64> {
        Ok(one_consumer(slf, "this order's walk")?.walk.bound())
    }

    /// How many of the positions passing the host's filters to keep
    /// (`None`: every one): see `polydat_core::order::Walk::survivor_limit`.
    fn survivor_limit(slf: &Bound<'_, Self>) -> PyResult<Option<u64>> {
        Ok(one_consumer(slf, "this order's walk")?.walk.survivor_limit())
    }
}
