//! Panic containment for node evaluation: a node that panics becomes an
//! ordinary error, the panic message is kept, and nothing is printed.

use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

fn install_quiet_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                previous(info);
            }
        }));
    });
}

/// Runs `f`, turning a panic into `Err(message)` without printing it.
#[inline]
pub fn guarded<R>(f: impl FnOnce() -> R) -> Result<R, String> {
    install_quiet_hook();
    let was = QUIET.with(|q| q.replace(true));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    QUIET.with(|q| q.set(was));
    result.map_err(panic_message)
}

/// Runs `f`, then sets this thread's quiet flag back to what it was before
/// however `f` came back — also when a jump skipped the end of a
/// [`guarded`] inside it (the native catch jumps out of its own guard).
#[inline]
pub(crate) fn restoring_quiet<R>(f: impl FnOnce() -> R) -> R {
    let was = QUIET.with(Cell::get);
    let result = f();
    QUIET.with(|q| q.set(was));
    result
}

/// Panics on this thread are not printed now (inside [`guarded`]).
#[cfg(test)]
pub(crate) fn is_quiet() -> bool {
    QUIET.with(Cell::get)
}

/// The message of a caught panic.
#[cold]
pub fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic in a node".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panics_become_messages() {
        assert_eq!(guarded(|| 5), Ok(5));
        let r: Result<(), String> = guarded(|| panic!("boom {}", 7));
        assert_eq!(r, Err("boom 7".to_string()));
    }
}
