//! The core's language rules, asked for by the Python frontend instead of
//! copied: type spellings, integer literal typing, float display, printf
//! placeholders, the suggestion limit, argument matching, conversion
//! hints and the comprehension text a `streamer` spec holds. Each forwards to the one home of its rule in `polydat-core`.

use polydat_core::node::arguments::{match_arguments as core_match_arguments, Param};
use polydat_core::{PortType, Value};
use pyo3::prelude::*;
use pyo3::types::PyInt;

/// Adds this file's functions to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(type_keywords, m)?)?;
    m.add_function(wrap_pyfunction!(int_literal_type, m)?)?;
    m.add_function(wrap_pyfunction!(f64_display, m)?)?;
    m.add_function(wrap_pyfunction!(printf_placeholders, m)?)?;
    m.add_function(wrap_pyfunction!(suggestion_limit, m)?)?;
    m.add_function(wrap_pyfunction!(match_arguments, m)?)?;
    m.add_function(wrap_pyfunction!(conversion_hint, m)?)?;
    m.add_function(wrap_pyfunction!(streamer_text, m)?)?;
    Ok(())
}

/// Every type spelling a program may write, with the keyword of the type it
/// names (`PortType::SPELLINGS`).
#[pyfunction]
fn type_keywords() -> Vec<(&'static str, &'static str)> {
    PortType::SPELLINGS.iter().map(|&(spelling, ty)| (spelling, ty.keyword())).collect()
}

/// The type of integer literals from `low` to `high` (`u64` or `i64`), or
/// `None` when they fit neither (`ir::integer_literal_type`).
#[pyfunction]
fn int_literal_type(low: &Bound<'_, PyInt>, high: &Bound<'_, PyInt>) -> Option<&'static str> {
    let (low, high) = (low.extract::<i128>().ok()?, high.extract::<i128>().ok()?);
    polydat_core::ir::integer_literal_type(low, high).map(PortType::keyword)
}

/// `value` as the core displays an f64 (no exponent; `1` for 1.0).
#[pyfunction]
fn f64_display(value: f64) -> String {
    Value::F64(value).display_text()
}

/// The number of placeholders in a `printf` format (`nodes::format::placeholder_count`).
#[pyfunction]
fn printf_placeholders(format: &str) -> usize {
    polydat_core::nodes::format::placeholder_count(format)
}

/// The most edits a "did you mean" suggestion for `name` may be away from it.
#[pyfunction]
fn suggestion_limit(name: &str) -> usize {
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
fn match_arguments(
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
fn conversion_hint(py: Python<'_>, source: &str, target: &str) -> PyResult<String> {
    let keyword = |word: &str| {
        PortType::from_keyword(word)
            .ok_or_else(|| crate::py_error(py, "PolydatError", (format!("unknown type '{word}'"),)))
    };
    Ok(polydat_core::nodes::convert::conversion_hint(keyword(source)?, keyword(target)?))
}

/// The comprehension text a `streamer(spec)` call's spec holds (its text,
/// or upstream's JSON payload's `text`); a spec that holds none raises
/// PolydatError with the node's message.
#[pyfunction]
fn streamer_text(py: Python<'_>, spec: &str) -> PyResult<String> {
    polydat_core::nodes::streamer::comprehension_text(spec).map_err(|e| crate::py_error(py, "PolydatError", (e,)))
}
