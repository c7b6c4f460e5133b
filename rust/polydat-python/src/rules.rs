//! The core's rules Python asks about instead of keeping a copy: the node
//! catalog, engine and provenance names, "did you mean", conversions, call
//! typing, text parsing, `order` positions, the value size limit.

use polydat_core::engine;
use pyo3::prelude::*;

use crate::convert::{port_type, to_py};
use crate::errors::{py_error, refused};

/// The node catalog as JSON text.
#[pyfunction]
pub(crate) fn catalog_json() -> String {
    polydat_core::nodes::catalog_json()
}

/// The bundled data files (name, about, source, licence, columns,
/// entries, nodes) as JSON text.
#[pyfunction]
pub(crate) fn data_files_json() -> String {
    polydat_core::nodes::realer::data_files_json()
}

/// The positions an `order` clause emits over a comprehension whose
/// clauses have `axes` values each (see `polydat_core::order`).
#[pyfunction]
#[pyo3(signature = (strategy, axes, count=None, seed=None))]
pub(crate) fn order_positions(
    py: Python<'_>,
    strategy: &str,
    axes: Vec<u64>,
    count: Option<u64>,
    seed: Option<u64>,
) -> PyResult<Vec<u64>> {
    polydat_core::order::positions(strategy, &axes, count, seed).map_err(|e| py_error(py, "ArgumentError", (e,)))
}

/// Every engine a program can run on, by the name `Program.engine` reports
/// (`p1`, `p2/raw`, `p2/push`, `p2/pull`, `p2/pushpull`): what an equivalence
/// matrix iterates. Each name is accepted as `engine=`.
#[pyfunction]
pub(crate) fn engines() -> Vec<&'static str> {
    engine::ENGINE_NAMES.to_vec()
}

/// The most bytes one string or byte-string value may hold (every program).
#[pyfunction]
pub(crate) fn max_value_bytes() -> usize {
    polydat_core::node::limit::max_value_bytes()
}

/// Sets the most bytes one string or byte-string value may hold.
#[pyfunction]
pub(crate) fn set_max_value_bytes(bytes: usize) {
    polydat_core::node::limit::set_max_value_bytes(bytes)
}

/// The engine names `engine=` accepts besides those of `engines()`:
/// `["auto", "p1", "p2", "p3", "mixed"]`.
#[pyfunction]
pub(crate) fn engine_requests() -> Vec<&'static str> {
    engine::ENGINE_REQUESTS.to_vec()
}

/// The names `provenance=` accepts: `["auto", "raw", "push", "pull", "pushpull"]`.
#[pyfunction]
pub(crate) fn provenances() -> Vec<&'static str> {
    engine::PROVENANCE_REQUESTS.to_vec()
}

/// Refuses (`RefusedError`) an (engine, provenance) request no engine can
/// honour, before anything is compiled.
#[pyfunction]
pub(crate) fn check_request(py: Python<'_>, engine: &str, provenance: &str) -> PyResult<()> {
    polydat_core::compile::select::Request::parse(engine, provenance).map(|_| ()).map_err(|e| refused(py, &e))
}

/// The candidate closest to `name` (the core's "did you mean" rule), or
/// `None`; a close name of `preferred` (the program's own) wins over `candidates`.
#[pyfunction]
#[pyo3(signature = (name, candidates, preferred=Vec::new()))]
pub(crate) fn suggest(name: &str, candidates: Vec<String>, preferred: Vec<String>) -> Option<String> {
    let others = candidates.iter().map(String::as_str);
    polydat_core::nodes::closest_preferring(name, preferred.iter().map(String::as_str), others).map(str::to_string)
}

/// The (from, to) type pairs the compiler converts on a wire by itself
/// (`implicit=True`), or that an explicit `as` cast accepts.
#[pyfunction]
#[pyo3(signature = (implicit=true))]
pub(crate) fn conversions(implicit: bool) -> Vec<(&'static str, &'static str)> {
    use polydat_core::nodes::convert::{cast_conversions, implicit_conversions};
    let pairs = if implicit { implicit_conversions() } else { cast_conversions() };
    pairs.into_iter().map(|(f, t)| (f.keyword(), t.keyword())).collect()
}

/// The output types of a call of node `op` over wires of `wire_types` with
/// the construction constants `consts_json` (a JSON list of IR constants).
#[pyfunction]
pub(crate) fn output_types(
    py: Python<'_>,
    op: &str,
    wire_types: Vec<String>,
    consts_json: &str,
) -> PyResult<Vec<&'static str>> {
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
pub(crate) fn parse_text(py: Python<'_>, text: &str, type_name: &str) -> PyResult<PyObject> {
    let ty = port_type(py, type_name)?;
    let value = polydat_core::nodes::convert::parse_text(text, ty).map_err(|e| py_error(py, "PolydatError", (e,)))?;
    to_py(py, &value)
}
