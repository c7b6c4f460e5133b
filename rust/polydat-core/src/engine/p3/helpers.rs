//! The functions native code calls: the one way a node without an inline
//! lowering runs (its slot form, called with its inputs and outputs as
//! words), and so also every node's failure path. Each is an `extern "C"`
//! function guarded at its boundary: a node's error, or a panic inside the
//! node, is turned into a message and raised to the innermost catch
//! ([`super::catch::raise`]); nothing unwinds into native code.

use super::catch::raise;
use crate::node::guard::guarded;
use crate::node::NodeEval;
use std::sync::Arc;

/// A node native code calls into, with its arity (kept alive by the code
/// that calls it: native code holds its address).
pub struct SlotCall {
    /// The node (its slot form runs).
    pub node: Arc<dyn NodeEval>,
    /// Number of wire inputs.
    pub ins: usize,
    /// Number of outputs.
    pub outs: usize,
}

/// Runs `call`'s slot form over `ins` (its input words) into `outs` (its
/// output words); on failure, raises the node's own message.
///
/// # Safety
/// `call` is the address of a live [`SlotCall`]; `ins` points at
/// `call.ins` readable words and `outs` at `call.outs` writable ones (native
/// code passes a stack area of that size).
pub unsafe extern "C" fn slot_call(call: *const SlotCall, ins: *const u64, outs: *mut u64) {
    let failure = {
        // SAFETY: guaranteed by the caller (see above).
        let (call, ins, outs) = unsafe {
            let call = &*call;
            (call, std::slice::from_raw_parts(ins, call.ins), std::slice::from_raw_parts_mut(outs, call.outs))
        };
        match call.node.slot_form() {
            Some(form) => match guarded(|| form.eval_slots(ins, outs)) {
                Ok(Ok(())) => None,
                Ok(Err(e)) => Some(e.into_message()),
                Err(panic) => Some(panic.into_boxed_str()),
            },
            None => Some("internal: a native step called a node with no slot form".into()),
        }
    };
    if let Some(message) = failure {
        raise(message);
    }
}
