//! The longjmp catch: how a failure inside native code comes back to Rust.
//!
//! A Rust panic must never unwind through a Cranelift frame (the frames have
//! no Rust personality; unwinding through one aborts the process). So native
//! code that calls a helper that can fail runs inside [`catch`]: a few lines
//! of C (`catch.c`) own a `setjmp` frame and install its jump buffer in a
//! thread-local slot, then call back into Rust, which calls the native code.
//! A failing helper — a node's error or a panic inside it, caught at the
//! helper boundary with `catch_unwind` — stores its message in thread-local
//! state ([`raise`]) and `longjmp`s to the innermost installed buffer;
//! [`catch`] then returns the message as an ordinary `Err`.
//!
//! Safety argument (why the jump is sound):
//!
//! * Between the `setjmp` frame and the `longjmp` there are only: the C
//!   frame itself, `trampoline` (Rust, `extern "C"`, holds a raw pointer),
//!   native frames (which own nothing), and the helper's frame. No frame
//!   skipped by the jump owns a value with a destructor: the trampoline holds
//!   only a pointer, and a helper moves its message into the thread-local
//!   slot and drops everything else before it calls [`raise`]; `raise`
//!   itself holds nothing when it jumps. So skipping the frames leaks
//!   nothing and leaves no borrow live.
//! * The jump buffer lives in the C frame, which is live for as long as it
//!   is installed: `polydat_catch` restores the previous slot value on both
//!   ways out, so nested catches work and the slot never names a dead frame.
//! * All of this state is per thread; a jump never crosses threads.
//! * With no catch installed, [`raise`] prints the message and aborts: the
//!   last resort, loud, never an unwind through native frames.

use crate::node::guard;
use std::cell::{Cell, RefCell};
use std::ffi::c_void;

extern "C" {
    fn polydat_catch(body: extern "C" fn(*mut c_void), ctx: *mut c_void, slot: *mut *mut c_void) -> i32;
    fn polydat_throw(env: *mut c_void) -> !;
}

thread_local! {
    /// The innermost installed jump buffer of this thread (null: none).
    static BUFFER: Cell<*mut c_void> = const { Cell::new(std::ptr::null_mut()) };
    /// The message of the failure being raised.
    static MESSAGE: RefCell<Option<Box<str>>> = const { RefCell::new(None) };
}

/// The body handed to C: a `&mut dyn FnMut()` behind a thin pointer. A
/// Rust panic in the body (one that did not come through native code) may
/// not unwind into the C frame: it is caught here and raised like a
/// helper's failure, after its payload is dropped.
extern "C" fn trampoline(ctx: *mut c_void) {
    // SAFETY: `ctx` is the address of a `&mut dyn FnMut()` that `catch` keeps
    // alive on its own stack for the whole call.
    let body = unsafe { &mut *(ctx as *mut &mut dyn FnMut()) };
    let failure = guard::guarded(body).err();
    if let Some(message) = failure {
        raise(message.into_boxed_str());
    }
}

/// Runs `body` (which calls native code) inside the catch: `Ok` when it
/// returned, `Err(message)` when a helper raised. `body` must not own values
/// with destructors that matter across a failure (a raise skips its frame):
/// it should only call native code over pointers it captured.
pub fn catch(mut body: impl FnMut()) -> Result<(), Box<str>> {
    let mut body: &mut dyn FnMut() = &mut body;
    let ctx = &mut body as *mut &mut dyn FnMut() as *mut c_void;
    let slot = BUFFER.with(|b| b.as_ptr());
    // SAFETY: `polydat_catch` calls `trampoline(ctx)` once with the context
    // given, while `body` and `ctx` live on this frame; the slot is this
    // thread's `BUFFER`, which the C side saves and restores (see the module).
    // A raise jumps out of the trampoline's panic guard before that guard
    // ends, so the guard's quiet flag is set back here.
    let raised = guard::restoring_quiet(|| unsafe { polydat_catch(trampoline, ctx, slot) });
    match raised {
        0 => Ok(()),
        _ => Err(MESSAGE.with(|m| m.borrow_mut().take()).unwrap_or_else(|| "a native helper failed".into())),
    }
}

/// True when a catch is installed on this thread.
pub fn installed() -> bool {
    BUFFER.with(|b| !b.get().is_null())
}

/// Raises `message` to the innermost catch of this thread (see the module):
/// called by helpers only, with nothing of their own left to drop.
#[cold]
pub fn raise(message: Box<str>) -> ! {
    let env = BUFFER.with(|b| b.get());
    if env.is_null() {
        eprintln!("polydat: a native helper failed with no catch installed: {message}");
        std::process::abort();
    }
    MESSAGE.with(|m| *m.borrow_mut() = Some(message));
    // SAFETY: `env` is the jump buffer of a live `polydat_catch` frame of
    // this thread (the slot is restored before that frame returns); no frame
    // between it and here owns anything with a destructor (module docs).
    unsafe { polydat_throw(env) }
}

#[cfg(test)]
mod tests {
    use super::*;

    extern "C" fn fails() {
        raise("boom".into());
    }

    #[test]
    fn a_raise_comes_back_as_an_error_and_nesting_restores_the_slot() {
        assert!(!installed());
        assert_eq!(catch(|| fails()), Err("boom".into()));
        assert!(!installed(), "the slot is restored after a raise");
        assert!(!guard::is_quiet(), "panics are printed again after a raise (the guard's flag is set back)");
        let outer = catch(|| {
            assert!(installed());
            let inner = catch(|| fails());
            assert_eq!(inner, Err("boom".into()));
            assert!(installed(), "the outer catch is back after the inner one");
        });
        assert_eq!(outer, Ok(()));
        for _ in 0..1000 {
            assert!(catch(|| fails()).is_err());
        }
        assert!(!installed());
    }

    #[test]
    fn catches_on_several_threads_do_not_cross() {
        let handles: Vec<_> = (0..4)
            .map(|t| {
                std::thread::spawn(move || {
                    for i in 0..500 {
                        let r = catch(|| {
                            if (i + t) % 2 == 0 {
                                raise(format!("t{t} i{i}").into());
                            }
                        });
                        match (i + t) % 2 {
                            0 => assert_eq!(r, Err(format!("t{t} i{i}").into())),
                            _ => assert_eq!(r, Ok(())),
                        }
                    }
                })
            })
            .collect();
        handles.into_iter().for_each(|h| h.join().unwrap());
    }

    #[test]
    fn a_rust_panic_outside_native_code_is_caught_and_leaves_the_state_clean() {
        let r = catch(|| panic!("not through native code"));
        assert_eq!(r, Err("not through native code".into()));
        assert!(!installed());
        assert_eq!(catch(|| fails()), Err("boom".into()));
    }
}
