//! Comprehension orders (`polydat_core::order`): every position at once
//! ([`order_positions`]), or walked a batch at a time ([`OrderWalk`]), so a
//! traversal of a huge space holds only the positions it is dispensing.
//! A space with a continuous source is sampled instead ([`order_sample`]),
//! its draws handed out a batch at a time ([`OrderSample`]).

use crate::consumer::one_consumer;
use crate::errors::{ensure_memory, HostError, HostResult};
use polydat_core::order::{self, ContinuousAxis, Drawn, OrderError, Sample, SampleAxis, Walk};
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

/// One axis of a sampled space as the host gives it: a discrete clause's
/// number of values, or a continuous clause's `(measure, params, on)` (see
/// `polydat_core::order::ContinuousAxis::new`).
#[derive(FromPyObject)]
pub(crate) enum AxisArg {
    /// A discrete clause of this many values.
    Discrete(u64),
    /// A continuous clause: its measure, parameters and interval.
    Continuous(String, Vec<f64>, Option<(f64, f64, bool)>),
}

/// Checks a continuous source (arguments as `ContinuousAxis::new`'s): an
/// `ArgumentError` says why it cannot be drawn from.
#[pyfunction]
#[pyo3(signature = (measure, params, on=None))]
pub(crate) fn continuous_check(measure: &str, params: Vec<f64>, on: Option<(f64, f64, bool)>) -> PyResult<()> {
    ContinuousAxis::new(measure, &params, on).map_err(host_error)?;
    Ok(())
}

/// Checks that an `order` clause (`strategy`, `None` when the comprehension
/// has none) with `count` and `seed` may sample a space of `axes` clauses
/// with a continuous one: an `ArgumentError` gives the verdict.
#[pyfunction]
#[pyo3(signature = (strategy, axes, count=None, seed=None))]
pub(crate) fn sample_check(strategy: Option<&str>, axes: usize, count: Option<u64>, seed: Option<u64>) -> PyResult<()> {
    order::sample::check(strategy, axes, count, seed).map_err(host_error)?;
    Ok(())
}

/// The sample an `order` clause (`strategy`, `None` when the comprehension
/// has none) draws over a space with a continuous axis (`axes` in clause
/// order, see [`AxisArg`]); `filtered`: the host keeps only the draws
/// passing its `where` tests (see `polydat_core::order::sample`).
#[pyfunction]
#[pyo3(signature = (strategy, axes, count=None, seed=None, filtered=false))]
pub(crate) fn order_sample(
    strategy: Option<&str>,
    axes: Vec<AxisArg>,
    count: Option<u64>,
    seed: Option<u64>,
    filtered: bool,
) -> PyResult<OrderSample> {
    let mut sampled = Vec::with_capacity(axes.len());
    for axis in axes {
        sampled.push(match axis {
            AxisArg::Discrete(size) => SampleAxis::Discrete(size),
            AxisArg::Continuous(measure, params, on) => {
                SampleAxis::Continuous(ContinuousAxis::new(&measure, &params, on).map_err(host_error)?)
            }
        });
    }
    Ok(OrderSample { sample: order::sample(strategy, sampled, count, seed, filtered).map_err(host_error)? })
}

/// A sample being drawn (see `polydat_core::order::Sample`): each draw a
/// list with one entry per axis, in clause order, an int (the index of a
/// discrete clause's value) or a float (a continuous clause's value).
#[pyclass(module = "polydat._core")]
pub(crate) struct OrderSample {
    sample: Sample,
}

#[pymethods]
impl OrderSample {
    /// The next draws of the round, at most `max` of them; empty once it is over.
    fn take(slf: &Bound<'_, Self>, max: usize) -> PyResult<Vec<Vec<PyObject>>> {
        let py = slf.py();
        let mut this = one_consumer(slf, "this order's sample")?;
        room_for(max.min(1 << 16) as u64)?;
        let mut out = Vec::new();
        for draw in this.sample.take(max) {
            let mut row = Vec::with_capacity(draw.len());
            for entry in draw {
                row.push(match entry {
                    Drawn::Digit(d) => d.into_pyobject(py)?.into_any().unbind(),
                    Drawn::Value(v) => v.into_pyobject(py)?.into_any().unbind(),
                });
            }
            out.push(row);
        }
        Ok(out)
    }

    /// How many of the draws passing the host's filters to keep (`None`: every one).
    fn survivor_limit(slf: &Bound<'_, Self>) -> PyResult<Option<u64>> {
        Ok(one_consumer(slf, "this order's sample")?.sample.survivor_limit())
    }

    /// Whether a new round starts its draws over (else it goes on after
    /// the previous round's draws, which a host may dispense as they come).
    fn restarts(slf: &Bound<'_, Self>) -> PyResult<bool> {
        Ok(one_consumer(slf, "this order's sample")?.sample.restarts())
    }

    /// After a whole round was taken and `passed` of its draws passed the
    /// host's filters: whether to take a new round (see `restarts`).
    fn redraw(slf: &Bound<'_, Self>, passed: u64) -> PyResult<bool> {
        Ok(one_consumer(slf, "this order's sample")?.sample.redraw(passed).map_err(host_error)?)
    }
}

/// The named measures a continuous source may draw from, with their
/// parameter names (`polydat_core::order::measure::MeasureName`).
#[pyfunction]
pub(crate) fn measures() -> Vec<(&'static str, Vec<&'static str>)> {
    order::MEASURES
        .iter()
        .filter_map(|name| order::measure::MeasureName::from_text(name))
        .map(|m| (m.text(), m.parameter_names().to_vec()))
        .collect()
}
