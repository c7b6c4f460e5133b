//! The lifecycle class of a step: when its value is computed (assigned by
//! the hoisting pass, read by the engines).

use serde::Serialize;

/// The lifecycle class of a node: when its value is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Lifecycle {
    /// Reads only literals: evaluated at build and replaced by a literal.
    CompileConst,
    /// Fixed for the kernel's life: evaluated once at scope init.
    ScopeInit,
    /// Recomputed per cycle, when an input in its provenance changes.
    Dynamic,
}

impl Lifecycle {
    /// The class's name as shown by `explain`.
    pub fn name(self) -> &'static str {
        match self {
            Lifecycle::CompileConst => "compile_const",
            Lifecycle::ScopeInit => "scope_init",
            Lifecycle::Dynamic => "dynamic",
        }
    }
}
