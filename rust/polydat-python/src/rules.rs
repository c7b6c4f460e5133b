//! The core's rules Python asks about instead of keeping a copy: the node
//! catalog, engine and provenance names, "did you mean" (and its distance
//! limit), conversions and their hints, call typing and argument matching,
//! type spellings, integer literal typing, float display, printf
//! placeholders, variadic wire counts, text parsing, `order` positions, the
//! value size limit, the output formats.

use polydat_core::engine;
use polydat_core::node::arguments::{match_arguments as core_match_arguments, Param};
use polydat_core::{PortType, Value};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt};

use crate::convert::port_type;
use crate::errors::HostError;
use crate::pyvalue::to_py;

/// The node catalog as JSON text.
#[pyfunction]
pub(crate) fn catalog_json() -> String {
    polydat_core::nodes::catalog_json()
}

/// The bundled data files (name, about, source, licence, columns,
/// entries, nodes) as JSON text.
#[pyfunction]
pub(crate) fn data_files_json() -> String {
    polydat_core::nodes::real_data::data_files_json()
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
pub(crate) fn check_request(engine: &str, provenance: &str) -> PyResult<()> {
    polydat_core::compile::select::Request::parse(engine, provenance).map_err(HostError::from)?;
    Ok(())
}

/// The candidate closest to `name` (the core's "did you mean" rule), or
/// `None`; a close name of `preferred` (the program's own) wins over
/// `candidates`. `callee`: `name` is called as a node or module, so a
/// candidate holding it as a word may answer (`closest_callee`).
#[pyfunction]
#[pyo3(signature = (name, candidates, preferred=Vec::new(), callee=false))]
pub(crate) fn suggest(name: &str, candidates: Vec<String>, preferred: Vec<String>, callee: bool) -> Option<String> {
    let others = candidates.iter().map(String::as_str);
    let declared = preferred.iter().map(String::as_str);
    let found = match callee {
        true => polydat_core::suggest::closest_callee(name, declared, others),
        false => polydat_core::suggest::closest_preferring(name, declared, others),
    };
    found.map(str::to_string)
}

/// The (from, to) type pairs the compiler converts on a wire by itself
/// (`implicit=True`), or that an explicit `as` cast accepts.
#[pyfunction]
#[pyo3(signature = (implicit=true))]
pub(crate) fn conversions(implicit: bool) -> Vec<(String, String)> {
    use polydat_core::nodes::convert::{cast_conversions, implicit_conversions};
    let pairs = if implicit { implicit_conversions() } else { cast_conversions() };
    pairs.into_iter().map(|(f, t)| (f.keyword().into_owned(), t.keyword().into_owned())).collect()
}

/// Reads `text` as a value of type `type_name` (the command line's
/// `--set name=value` rule; see `nodes::convert::parse_text`).
#[pyfunction]
pub(crate) fn parse_text(py: Python<'_>, text: &str, type_name: &str) -> PyResult<PyObject> {
    let ty = port_type(type_name)?;
    let value = polydat_core::nodes::convert::parse_text(text, ty).map_err(HostError::Polydat)?;
    to_py(py, &value)
}

/// Every type spelling a program may write, with the keyword of the type it
/// names (`PortType::SPELLINGS`).
#[pyfunction]
pub(crate) fn type_keywords() -> Vec<(&'static str, &'static str)> {
    PortType::SPELLINGS.iter().map(|&(spelling, ty)| (spelling, ty.family())).collect()
}

/// The keyword of the type `word` names (`decimal(15, 2)` is
/// `decimal(15,2)`), `None` when it names none; a `decimal(...)` with
/// malformed or out-of-range parameters raises, saying which.
#[pyfunction]
pub(crate) fn parse_type(word: &str) -> PyResult<Option<String>> {
    PortType::parse(word)
        .map(|ty| ty.map(|t| t.keyword().into_owned()))
        .map_err(pyo3::exceptions::PyValueError::new_err)
}

/// The type of integer literals from `low` to `high` (`u64` or `i64`), or
/// `None` when they fit neither (`ir::integer_literal_type`).
#[pyfunction]
pub(crate) fn int_literal_type(low: &Bound<'_, PyInt>, high: &Bound<'_, PyInt>) -> Option<&'static str> {
    let (low, high) = (low.extract::<i128>().ok()?, high.extract::<i128>().ok()?);
    polydat_core::ir::integer_literal_type(low, high).map(PortType::family)
}

/// `value` as the core displays an f64 (no exponent; `1` for 1.0).
#[pyfunction]
pub(crate) fn f64_display(value: f64) -> String {
    Value::F64(value).display_text()
}

/// The number of placeholders in a `printf` format (`nodes::format::placeholder_count`).
#[pyfunction]
pub(crate) fn printf_placeholders(format: &str) -> usize {
    polydat_core::nodes::format::placeholder_count(format)
}

/// How many wires node `name`'s variadic wire parameter takes when the
/// constant that decides it holds `value` (`printf`'s placeholder count; see
/// `node::testing::WiresFrom`), or `None` when no constant decides it.
#[pyfunction]
pub(crate) fn variadic_wire_count(name: &str, value: &str) -> Option<usize> {
    polydat_core::nodes::lookup(name)?.testing.wires_from.map(|rule| (rule.count)(value))
}

/// What a program writes instead of `name` when `name` is a node the library
/// removed (`nodes::REMOVED`), else None.
#[pyfunction]
pub(crate) fn removed_node_hint(name: &str) -> Option<&'static str> {
    polydat_core::nodes::removed_hint(name)
}

/// The most edits a "did you mean" suggestion for `name` may be away from it.
#[pyfunction]
pub(crate) fn suggestion_limit(name: &str) -> usize {
    polydat_core::suggest::suggestion_limit(name)
}

/// Per parameter the argument filling it, the variadic parameter's arguments,
/// the missing parameters, and the first mismatch (see `match_arguments`).
type Matching =
    (Vec<Option<usize>>, Vec<usize>, Vec<(usize, String, Option<String>)>, Option<(usize, String, Option<String>)>);

/// Matches a call's arguments to its parameters (`node::arguments`).
/// `params`: per parameter (name, variadic, optional); `args`: per argument
/// its name or `None` (positional); `what` and `signature` word the
/// messages. Returns, per parameter, the index of the argument that fills it;
/// the arguments the variadic parameter takes; each missing parameter as
/// (index, message, hint); and the first mismatch as (argument index,
/// message, hint), if any.
#[pyfunction]
pub(crate) fn match_arguments(
    params: Vec<(String, bool, bool)>,
    args: Vec<Option<String>>,
    what: &str,
    signature: &str,
) -> Matching {
    let params: Vec<Param<'_>> = params
        .iter()
        .map(|(name, variadic, optional)| Param { name, variadic: *variadic, optional: *optional })
        .collect();
    let names: Vec<Option<&str>> = args.iter().map(Option::as_deref).collect();
    match core_match_arguments(&params, &names) {
        Ok(matched) => {
            let missing = matched
                .missing
                .iter()
                .map(|&p| {
                    let error = matched.missing_error(&params, p);
                    (p, error.message(what), error.hint(signature))
                })
                .collect();
            (matched.given, matched.extra, missing, None)
        }
        Err(error) => {
            let at = error.argument().unwrap_or(0);
            (Vec::new(), Vec::new(), Vec::new(), Some((at, error.message(what), error.hint(signature))))
        }
    }
}

/// How to get a `target` from a `source` value the compiler does not convert
/// by itself (`nodes::convert::conversion_hint`).
#[pyfunction]
pub(crate) fn conversion_hint(source: &str, target: &str) -> PyResult<String> {
    Ok(polydat_core::nodes::convert::conversion_hint(port_type(source)?, port_type(target)?))
}

/// The comprehension text a `streamer(spec)` call's spec holds (its text,
/// or upstream's JSON payload's `text`); a spec that holds none raises
/// PolydatError with the node's message.
#[pyfunction]
pub(crate) fn streamer_text(spec: &str) -> PyResult<String> {
    Ok(polydat_core::nodes::streamer::comprehension_text(spec).map_err(HostError::Polydat)?)
}

/// Whether a cursor's `over` spec is one range (`0..50%`): one partition,
/// so the cursor needs no partition index from the host
/// (`nodes::cursor::is_one_range`).
#[pyfunction]
pub(crate) fn cursor_spec_is_one_range(spec: &str) -> bool {
    polydat_core::nodes::cursor::is_one_range(spec)
}

/// The output formats of the core's registry (`columns::formats`), in
/// order: per format a dict of its `name`, `aliases`, `extensions` (with
/// the dot, lowercase; the first names its files), `about`, `binary` and
/// `writer` (the writer's name).
#[pyfunction]
pub(crate) fn formats(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    polydat_core::columns::formats::FORMATS
        .iter()
        .map(|f| {
            let d = PyDict::new(py);
            d.set_item("name", f.name)?;
            d.set_item("aliases", f.aliases.to_vec())?;
            d.set_item("extensions", f.extensions.to_vec())?;
            d.set_item("about", f.about)?;
            d.set_item("binary", f.binary())?;
            d.set_item("writer", f.writer.name())?;
            Ok(d)
        })
        .collect()
}
