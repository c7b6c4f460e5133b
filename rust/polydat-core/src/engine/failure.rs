//! Failure attribution, written once for every engine: a node's failure (or
//! a contained panic) during a pass over steps becomes the same
//! [`EvalError`] on P1, P2 and P3 — the original message, the node, the
//! outputs it feeds and its input values, and the read that reached it.

use crate::error::EvalError;
use crate::node::{limit, NodeError};
use crate::program::{Program, Step};
use crate::value::Value;

/// What a guarded pass over steps ended with: success, a node's failure at
/// step `s`, or a panic contained by the guard (its message).
pub type PassOutcome = Result<Result<(), (usize, NodeError)>, String>;

/// The attributed error for a failure of step `s` while evaluating
/// `context` (an output name); `inputs` decodes the step's input values.
pub fn attribute(
    program: &Program,
    s: usize,
    inputs: impl FnOnce(&Step) -> Vec<Value>,
    original: &str,
    context: &str,
) -> EvalError {
    let context = format!("`{context}`");
    let error = match program.steps.get(s) {
        Some(step) => EvalError::attributed(original, step.def.reported_name(), &step.feeds, inputs(step), &context),
        None => EvalError::attributed(original, "?", &[], Vec::new(), &context),
    };
    match limit::is_no_memory(original) {
        true => error.of_memory(),
        false => error,
    }
}

/// The error of a read of output `out` whose value could not be copied out
/// (`failure` is [`limit::no_memory`]'s): out of memory, naming the output.
#[cold]
pub fn copy_failed(program: &Program, out: usize, failure: NodeError) -> EvalError {
    let name = &program.outputs[out].name;
    EvalError::attributed(failure.message(), "read", std::slice::from_ref(name), Vec::new(), &format!("`{name}`"))
        .of_memory()
}

/// Turns the outcome of a guarded pass over `steps` into the engine's
/// result. A node's failure names its own step; a contained panic names the
/// first step of the pass still `stale` (steps run in order and each is
/// marked current as it succeeds, so that is the one that panicked).
/// `attribute(s, message)` builds the error for step `s`.
pub fn settle(
    outcome: PassOutcome,
    steps: &[u32],
    stale: impl Fn(usize) -> bool,
    attribute: impl FnOnce(usize, &str) -> EvalError,
) -> Result<(), EvalError> {
    match outcome {
        Ok(Ok(())) => Ok(()),
        Ok(Err((s, e))) => Err(attribute(s, e.message())),
        Err(panic) => {
            let s = steps.iter().map(|&s| s as usize).find(|&s| stale(s)).unwrap_or(usize::MAX);
            Err(attribute(s, &panic))
        }
    }
}
