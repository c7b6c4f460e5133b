//! Scope chains: a kernel bound under a parent scope reads the parent's
//! bindings as its externs ([`bind`]), and cells carry a value written in one
//! scope to every kernel of the tree that reads it ([`cell`]).

pub mod bind;
pub mod cell;

pub use bind::{Scope, ScopedKernel};
