#![warn(missing_docs)]
//! Polydat core: the typed graph compiler and engines for deterministic
//! procedural data. No Python dependency: the `polydat-python` crate is a thin
//! binding over this crate.
//!
//! Data flows one way: [`ir`] (graph received from the frontend) →
//! [`compile`] (the passes of [`compile::PIPELINE`]: resolve with adapters,
//! polyfills, Node Fusion, DCE, sort, hoisting, constant folding, emit,
//! engine selection, segmentation) → [`program::Program`] (immutable,
//! shared) → an engine kernel ([`engine`]) → the generation of rows
//! ([`generation`]) filling output columns ([`columns`]); [`scope`] binds
//! kernels into a tree of scopes (bindings flowing from parent to child).

pub mod calendar;
pub mod columns;
pub mod compile;
pub mod decimal;
pub mod engine;
pub mod error;
pub mod generation;
pub mod ir;
pub mod node;
pub mod nodes;
pub mod order;
pub mod program;
pub mod provenance;
pub mod scope;
pub mod suggest;
#[cfg(test)]
mod test_support;
pub mod types;
pub mod value;
pub mod vector;
pub mod wide;

pub use error::{BindError, BuildError, CompileError, EvalError, Refused, WriteError};
pub use program::Program;
pub use types::PortType;
pub use value::Value;
