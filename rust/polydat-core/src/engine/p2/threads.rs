//! P2's sweeps: the steps of the per-cycle program (or of one cone) as
//! *threads* of tail-calling closures. Each step jumps to the next and hands
//! its first output on in a register, so a run costs one indirect jump per
//! step and no store-to-load round trip between close neighbours.

use super::schedule::schedule;
use crate::engine::compiled::closure::scalar_closure;
use crate::engine::compiled::layout::{first_word, Layout, NOWHERE};
use crate::node::kit::{Handed, Src, ThreadStep};
use crate::program::Program;

/// Steps per thread of a sweep: bounds the nesting when a build does not
/// turn the tail calls into jumps (debug builds), so no program can exhaust
/// the stack.
const THREAD_LEN: usize = 32;

/// A run of threaded steps, in evaluation order, ending with
/// [`ThreadStep::done`] (see [`ThreadStep::run`]).
pub type Thread = Box<[ThreadStep]>;

/// The steps `steps` (in evaluation order) as threads: scheduled for
/// register handoff ([`schedule`]), then cut into threads of at most
/// `THREAD_LEN` steps in which a step tail-calls the next and hands it its
/// own first output and the one it was handed
/// ([`NodeEval::threaded_step`](crate::node::NodeEval::threaded_step)), so a
/// thread costs one indirect jump per step.
pub fn threads(layout: &Layout, program: &Program, steps: &[u32]) -> Box<[Thread]> {
    schedule(layout, program, steps)
        .chunks(THREAD_LEN)
        .map(|thread| {
            // The words whose values arrive in registers: the first outputs
            // of the last two steps.
            let (mut last, mut before) = (NOWHERE, NOWHERE);
            thread
                .iter()
                .map(|&s| {
                    let step = &program.steps[s as usize];
                    let ins: Vec<Src> = step
                        .ins
                        .iter()
                        .map(|&i| {
                            let word = layout.off[i as usize] as usize;
                            let handed = match word {
                                w if w == last => Some(Handed::Last),
                                w if w == before => Some(Handed::Before),
                                _ => None,
                            };
                            Src { word, handed }
                        })
                        .collect();
                    let out = first_word(layout, step);
                    (last, before) = (out, last);
                    step.eval.clone().threaded_step(&ins, out, step.out_count()).unwrap_or_else(|| {
                        let f = scalar_closure(layout, step);
                        ThreadStep::new(move |buf: &mut Vec<u64>, last: u64, _: u64, rest: &[ThreadStep]| {
                            f(buf)?;
                            let first = buf.get(out).copied().unwrap_or(0);
                            ThreadStep::run(rest, buf, first, last)
                        })
                    })
                })
                .chain(std::iter::once(ThreadStep::done()))
                .collect()
        })
        .collect()
}

/// Runs `threads` in order over `buf`; true when every step succeeded (a
/// panic escapes: the kernel runs sweeps inside a panic guard).
#[inline]
#[allow(clippy::ptr_arg)] // threads take the buffer as a thin pointer (see `ThreadStep`)
pub fn run_threads(threads: &[Thread], buf: &mut Vec<u64>) -> bool {
    threads.iter().all(|thread| ThreadStep::run(thread, buf, 0, 0).is_ok())
}
