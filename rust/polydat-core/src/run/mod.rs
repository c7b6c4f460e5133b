//! The row driver: runs kernels over many rows and fills output columns.
//!
//! * [`generate`]: the row loop behind `generate`, `iter_batches` and the
//!   command line ([`generate::RowPlan`], [`generate::Generator`]).
//! * [`fanout`]: one-to-many rows (a child scope's rows per parent row).
//! * [`workers`]: sharing tasks among worker threads.
//! * [`bench`]: the ladder scenarios timed by `polydat bench`.

pub mod bench;
pub mod fanout;
pub mod generate;
pub mod workers;

pub use generate::*;
