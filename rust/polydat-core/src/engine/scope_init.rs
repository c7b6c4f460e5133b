//! The scope-init protocol, the same on every engine: a kernel runs its
//! program's scope-init path (constants, `const` captures and what they read)
//! once, at its first read — after the host has written its externs — and
//! the fixed part of that path stays current for the kernel's life. A failed
//! init leaves no partial captures: the next read starts the whole path
//! again, as a fresh kernel would.

use crate::error::EvalError;

/// What a kernel state provides for [`init_scope`].
pub trait ScopeInit {
    /// The scope-init path has run (since creation or the last `invalidate_all`).
    fn scope_ready(&self) -> bool;
    /// Runs the stale steps of the scope-init path; `context` names the read.
    fn run_init_path(&mut self, context: &str) -> Result<(), EvalError>;
    /// Forgets a partial init: every step of the path is stale again.
    fn forget_init(&mut self);
    /// The path ran: its fixed steps stay current, and the scope is ready.
    fn init_done(&mut self);
}

/// Runs the scope-init path of `state` if it has not run (see the module).
#[inline]
pub fn init_scope<S: ScopeInit + ?Sized>(state: &mut S, context: &str) -> Result<(), EvalError> {
    if state.scope_ready() {
        return Ok(());
    }
    init_path(state, context)
}

#[cold]
fn init_path<S: ScopeInit + ?Sized>(state: &mut S, context: &str) -> Result<(), EvalError> {
    if let Err(e) = state.run_init_path(context) {
        state.forget_init();
        return Err(e);
    }
    state.init_done();
    Ok(())
}
