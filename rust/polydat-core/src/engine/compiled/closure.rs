//! Scalar steps as closures over the buffer's words (P2's executor, and
//! P3's for steps it does not lower), with the node's rule
//! inlined (the node's own step form, from its kit), or the generic
//! gather-call-scatter closure around its slot form.

use crate::engine::compiled::layout::Layout;
use crate::node::kit::SlotStep;
use crate::node::NodeEval;
use std::sync::Arc;

/// The closure of a scalar step (every wire a scalar, the node has a slot
/// form): the node's own step form, or the generic gather-call-scatter one.
pub fn scalar_closure(layout: &Layout, step: &crate::program::Step) -> SlotStep {
    let ins: Vec<usize> = step.ins.iter().map(|&i| layout.off[i as usize] as usize).collect();
    let out = layout.off[step.out_start as usize] as usize;
    let n = step.out_count();
    match step.eval.clone().slot_step(&ins, out, n) {
        Some(f) => f,
        None => slot_closure(step.eval.clone(), ins, out, n),
    }
}

/// The closure of a scalar step whose node has a slot form but no step form
/// of its own: inputs gathered from their words into a stack array, the slot
/// form called, outputs written in place. No allocation per run up to 16
/// inputs (no library node takes this path past that).
fn slot_closure(node: Arc<dyn NodeEval>, ins: Vec<usize>, out: usize, n: usize) -> SlotStep {
    // `slot_form` was checked when the plan was built; the node is immutable.
    fn form(node: &Arc<dyn NodeEval>) -> &dyn crate::node::kit::SlotEval {
        match node.slot_form() {
            Some(f) => f,
            None => unreachable!("slot form checked at plan time"),
        }
    }
    const STACK: usize = 16;
    Box::new(move |buf| {
        if ins.len() <= STACK {
            let mut x = [0u64; STACK];
            for (dst, &i) in x.iter_mut().zip(&ins) {
                *dst = buf[i];
            }
            form(&node).eval_slots(&x[..ins.len()], &mut buf[out..out + n])
        } else {
            let x: Vec<u64> = ins.iter().map(|&i| buf[i]).collect();
            form(&node).eval_slots(&x, &mut buf[out..out + n])
        }
    })
}
