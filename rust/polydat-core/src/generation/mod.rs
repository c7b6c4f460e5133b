//! Generation: runs kernels over many rows and fills output columns.
//!
//! * [`generate`]: the row loop behind `generate`, `iter_batches` and the
//!   command line ([`generate::RowPlan`], [`generate::Generator`]), and
//!   the rows of several kernels into one set of columns
//!   ([`generate::fill_kernel_rows`]).
//! * [`fanout`]: one-to-many rows (a child scope's rows per parent row).
//! * [`workers`]: sharing tasks among worker threads.
//! * [`bench`]: the ladder scenarios timed by `polydat bench`.

pub mod bench;
pub mod fanout;
pub mod generate;
pub mod workers;

pub use generate::*;
