//! `polydat._core`: the PyO3 binding. It converts Python values to core values
//! and back, forwards calls to `polydat-core`, and releases the GIL around
//! long-running work. It holds no logic of its own.
//!
//! One module per concern: [`errors`] (the typed error every entry point
//! fails with, raised as a `polydat.errors` exception; panic containment),
//! [`convert`] (Python values to core values, columns to numpy),
//! [`pyvalue`] (a core value as a Python object), [`program`] and [`kernel`] (the two classes),
//! [`run`] (row runs: `generate`, batch streams, `fill_kernel_rows`, benches),
//! [`rules`] (the core's rules Python asks about), [`arrow`], [`fanout`]
//! and [`host`] (Arrow batches, one-to-many rows, caller arrays). With the
//! `test-hooks` feature, [`test_hooks`] adds what only the tests call.

mod arrow;
mod consumer;
mod convert;
mod errors;
mod fanout;
mod host;
mod kernel;
mod order;
mod program;
mod pyvalue;
mod rules;
mod run;
#[cfg(feature = "test-hooks")]
mod test_hooks;

use pyo3::prelude::*;

/// The extension's allocator: mimalloc, which keeps the memory a freed
/// column held and hands it to the next one. The system allocator gives a
/// large freed block back to the kernel, so every `generate` of many rows
/// faulted its whole output in again, page by page (about 21,000 page
/// faults for 400,000 rows of the users record). `polydat/__init__.py` sets
/// the address space it reserves at a time (`MIMALLOC_ARENA_RESERVE`) and
/// how long it keeps freed memory (`MIMALLOC_PURGE_DELAY`) unless the user
/// has.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(rules::catalog_json, m)?)?;
    m.add_function(wrap_pyfunction!(rules::data_files_json, m)?)?;
    m.add_function(wrap_pyfunction!(rules::engines, m)?)?;
    m.add_function(wrap_pyfunction!(rules::engine_requests, m)?)?;
    m.add_function(wrap_pyfunction!(rules::max_value_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(rules::set_max_value_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(rules::provenances, m)?)?;
    m.add_function(wrap_pyfunction!(rules::suggest, m)?)?;
    m.add_function(wrap_pyfunction!(rules::check_request, m)?)?;
    m.add_function(wrap_pyfunction!(rules::conversions, m)?)?;
    m.add_function(wrap_pyfunction!(rules::parse_text, m)?)?;
    m.add_function(wrap_pyfunction!(order::order_positions, m)?)?;
    m.add_function(wrap_pyfunction!(order::order_walk, m)?)?;
    m.add_function(wrap_pyfunction!(order::order_sample, m)?)?;
    m.add_function(wrap_pyfunction!(order::sample_check, m)?)?;
    m.add_function(wrap_pyfunction!(order::continuous_check, m)?)?;
    m.add_function(wrap_pyfunction!(order::measures, m)?)?;
    m.add_function(wrap_pyfunction!(rules::type_keywords, m)?)?;
    m.add_function(wrap_pyfunction!(rules::parse_type, m)?)?;
    m.add_function(wrap_pyfunction!(rules::int_literal_type, m)?)?;
    m.add_function(wrap_pyfunction!(rules::f64_display, m)?)?;
    m.add_function(wrap_pyfunction!(rules::printf_placeholders, m)?)?;
    m.add_function(wrap_pyfunction!(rules::variadic_wire_count, m)?)?;
    m.add_function(wrap_pyfunction!(rules::suggestion_limit, m)?)?;
    m.add_function(wrap_pyfunction!(rules::removed_node_hint, m)?)?;
    m.add_function(wrap_pyfunction!(rules::match_arguments, m)?)?;
    m.add_function(wrap_pyfunction!(rules::conversion_hint, m)?)?;
    m.add_function(wrap_pyfunction!(rules::streamer_text, m)?)?;
    m.add_function(wrap_pyfunction!(rules::cursor_spec_is_one_range, m)?)?;
    m.add_function(wrap_pyfunction!(rules::formats, m)?)?;
    m.add_function(wrap_pyfunction!(convert::numpy_dtype, m)?)?;
    m.add_function(wrap_pyfunction!(run::bench_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(run::text_header, m)?)?;
    m.add_function(wrap_pyfunction!(run::generate, m)?)?;
    m.add_function(wrap_pyfunction!(run::batches, m)?)?;
    m.add_function(wrap_pyfunction!(run::fill_kernel_rows, m)?)?;
    m.add_function(wrap_pyfunction!(fanout::fanout, m)?)?;
    m.add_function(wrap_pyfunction!(fanout::fanout_rows, m)?)?;
    m.add_function(wrap_pyfunction!(fanout::fanout_supported, m)?)?;
    m.add_class::<program::Program>()?;
    m.add_class::<kernel::Kernel>()?;
    m.add_class::<arrow::BatchStream>()?;
    m.add_class::<order::OrderWalk>()?;
    m.add_class::<order::OrderSample>()?;
    m.add_class::<run::NamedRowPlan>()?;
    m.add("MAX_THREADS", run::MAX_THREADS)?;
    // The package's version: the workspace's, which maturin gives the wheel.
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(run::check_threads, m)?)?;
    #[cfg(feature = "test-hooks")]
    test_hooks::register(m)?;
    Ok(())
}
