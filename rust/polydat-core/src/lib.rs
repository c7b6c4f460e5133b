//! Polydat core: the typed graph compiler and engines for deterministic
//! procedural data. No Python dependency: the `polydat-python` crate is a thin
//! binding over this crate.
//!
//! Data flows one way: [`ir`] (graph received from the frontend) →
//! [`compile`] (resolve, adapters, fusion, DCE, sort, hoist, fold, select) →
//! [`program::Program`] (immutable, shared) → an engine kernel ([`engine`]).

pub mod ir;
pub mod node;
pub mod nodes;
pub mod types;
pub mod value;

pub use types::PortType;
pub use value::Value;
