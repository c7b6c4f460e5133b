//! The order of a thread's steps (see `threads::threads`): a topological order
//! of the steps chosen so that as many inputs as possible arrive in the two
//! registers a thread hands from step to step ([`ThreadStep`]) instead of
//! through the buffer — a store-to-load round trip on the path from a
//! coordinate to an output. Steps of a thread are pure, so any topological
//! order computes the same values; a failing thread is rerun in the
//! canonical order by the kernel, so failures are reported as P1 reports them.
//!
//! The choice is greedy. After each step, the candidates are the ready
//! consumers of the last two steps' first outputs: one reading both comes
//! first, then one reading the older (which is about to leave the
//! registers), then one reading the newer; ties go to the longer chain of
//! dependents still to run, then to the canonical order. With no candidate,
//! the first ready step in canonical order runs.
//!
//! [`ThreadStep`]: crate::node::kit::ThreadStep

use crate::engine::compiled::layout::{first_word, Layout, NOWHERE};
use crate::program::Program;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// The steps `steps` (a topological order) reordered for register handoff.
pub fn schedule(layout: &Layout, program: &Program, steps: &[u32]) -> Vec<u32> {
    let n = steps.len();
    let first_word: Vec<usize> = steps.iter().map(|&s| first_word(layout, &program.steps[s as usize])).collect();
    let in_words: Vec<Vec<usize>> = steps
        .iter()
        .map(|&s| program.steps[s as usize].ins.iter().map(|&i| layout.off[i as usize] as usize).collect())
        .collect();
    // Each position's producers among `steps`, then its consumers.
    let position: HashMap<usize, usize> = steps.iter().enumerate().map(|(pos, &s)| (s as usize, pos)).collect();
    let mut pending = vec![0usize; n];
    let mut consumers: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (pos, &s) in steps.iter().enumerate() {
        let ins = program.steps[s as usize].ins.iter();
        let mut producers: Vec<usize> =
            ins.filter_map(|&i| program.step_of_slot(i)).filter_map(|p| position.get(&p).copied()).collect();
        producers.sort_unstable();
        producers.dedup();
        pending[pos] = producers.len();
        for p in producers {
            consumers[p].push(pos);
        }
    }
    // The longest chain of dependents from each position (positions are topological).
    let mut height = vec![1usize; n];
    for pos in (0..n).rev() {
        height[pos] += consumers[pos].iter().map(|&c| height[c]).max().unwrap_or(0);
    }

    let mut ready: BinaryHeap<Reverse<usize>> = (0..n).filter(|&p| pending[p] == 0).map(Reverse).collect();
    let mut done = vec![false; n];
    let mut order = Vec::with_capacity(n);
    let (mut last, mut before) = (None::<usize>, None::<usize>);
    while order.len() < n {
        let reads = |pos: usize, of: Option<usize>| {
            of.is_some_and(|p| first_word[p] != NOWHERE && in_words[pos].contains(&first_word[p]))
        };
        let rank = |pos: usize| {
            let (l, b) = (reads(pos, last), reads(pos, before));
            let registers = match (l, b) {
                (true, true) => 3,
                (false, true) => 2,
                (true, false) => 1,
                (false, false) => 0,
            };
            (registers, height[pos], Reverse(pos))
        };
        let candidates = [last, before].into_iter().flatten().flat_map(|p| consumers[p].iter().copied());
        let pick = candidates.filter(|&c| !done[c] && pending[c] == 0 && rank(c).0 > 0).max_by_key(|&c| rank(c));
        let pos = match pick {
            Some(pos) => pos,
            None => loop {
                // Every step is reachable in topological order, so a ready one remains.
                let Reverse(pos) = ready.pop().expect("a ready step remains");
                if !done[pos] {
                    break pos;
                }
            },
        };
        done[pos] = true;
        order.push(steps[pos]);
        for &c in &consumers[pos] {
            pending[c] -= 1;
            if pending[c] == 0 {
                ready.push(Reverse(c));
            }
        }
        (last, before) = (Some(pos), last);
    }
    order
}
