//! Topological sort: orders nodes so every producer precedes its consumers
//! (Kahn's algorithm, stable by first appearance); a cycle is an error
//! naming the nodes on it with their spans. In a program with `if`s, what
//! the conditions read comes first (as early as its own producers allow), so
//! a walk knows which branch each `if` takes before it reaches the branches'
//! steps, and skips the ones no taken branch needs
//! ([`crate::program::branches`]).
//!
//! *First appearance* is a node's index, or, for a copy of an earlier
//! identical node (one [`super::cse`] would merge), that node's index: a copy
//! is evaluated right after the first of its twins. The order, and so which
//! of several failing nodes a read reports first, is then the same whether
//! or not the copies were merged (`fusion=False` keeps them).

use super::cse;
use super::graph::{Graph, Wire};
use super::pass::{Pass, PassContext};
use crate::error::CompileError;

/// Sorts `graph.nodes` into evaluation order.
pub fn sort(graph: &mut Graph) -> Result<(), CompileError> {
    let n = graph.nodes.len();
    // Per node: its first appearance (a cyclic graph has no twins: the sort
    // below reports the cycle).
    let first: Vec<usize> = match cse::twins(graph) {
        Some(twins) => twins.first.iter().map(|&t| t as usize).collect(),
        None => (0..n).collect(),
    };
    let early = conditions(graph, &first);
    // Every node reading only earlier nodes (the frontend's order, kept by
    // most passes) and no copy of an earlier node is the order the sort
    // below gives: nothing to do.
    let ordered = early.is_none()
        && graph.nodes.iter().enumerate().all(|(i, node)| {
            first[i] == i
                && node.wires.iter().all(|w| match *w {
                    Wire::Node(p, _) => (p as usize) < i,
                    Wire::Input(_) => true,
                })
        });
    if ordered {
        return Ok(());
    }
    let consumers = graph.consumers();
    let mut indegree: Vec<usize> = (0..n).map(|i| graph.producers(i).count()).collect();
    // Ready nodes by (not read by a condition, first appearance, index):
    // conditions first, and copies together with the first of their twins.
    let key = |i: usize| std::cmp::Reverse((early.as_ref().is_none_or(|e| !e[first[i]]), first[i], i));
    let mut ready: std::collections::BinaryHeap<_> = (0..n).filter(|&i| indegree[i] == 0).map(key).collect();
    let mut order = Vec::with_capacity(n);
    while let Some(std::cmp::Reverse((_, _, i))) = ready.pop() {
        order.push(i);
        for &c in &consumers[i] {
            indegree[c as usize] -= 1;
            if indegree[c as usize] == 0 {
                ready.push(key(c as usize));
            }
        }
    }
    if order.len() < n {
        let stuck: Vec<bool> = (0..n).map(|i| indegree[i] > 0).collect();
        let cycle = find_cycle(&stuck, |i| graph.producers(i).collect());
        let names: Vec<String> = cycle
            .iter()
            .map(|&i| {
                let node = &graph.nodes[i];
                format!("`{}` at {}:{}", node.def.name, node.span.line, node.span.col)
            })
            .collect();
        return Err(CompileError::at(graph.nodes[cycle[0]].span, format!("cycle detected: {}", names.join(" -> "))));
    }
    if order.iter().enumerate().any(|(pos, &i)| pos != i) {
        graph.reorder(&order);
    }
    Ok(())
}

/// Per node: an `if`'s condition reads it or one of its twins (through any
/// nodes), marked on the first of the twins (`first`, per node), when the
/// graph has a chooser node (`None` otherwise).
fn conditions(graph: &Graph, first: &[usize]) -> Option<Vec<bool>> {
    if !graph.nodes.iter().any(|n| n.def.chooses) {
        return None;
    }
    let mut early = vec![false; graph.nodes.len()];
    let mut todo: Vec<usize> = Vec::new();
    for node in graph.nodes.iter().filter(|n| n.def.chooses) {
        if let Some(&Wire::Node(p, _)) = node.wires.first() {
            todo.push(p as usize);
        }
    }
    while let Some(i) = todo.pop() {
        if !std::mem::replace(&mut early[i], true) {
            early[first[i]] = true;
            todo.extend(graph.producers(i));
        }
    }
    Some(early)
}

/// One cycle among the `stuck` nodes (those Kahn's algorithm could not
/// order, each of which has a stuck producer), listed so that each node reads
/// the one before it and the last is read by the first.
pub fn find_cycle(stuck: &[bool], producers: impl Fn(usize) -> Vec<usize>) -> Vec<usize> {
    let start = stuck.iter().position(|&s| s).expect("a stuck node exists");
    let mut seen_at = vec![usize::MAX; stuck.len()];
    let mut path = Vec::new();
    let mut at = start;
    while seen_at[at] == usize::MAX {
        seen_at[at] = path.len();
        path.push(at);
        at = producers(at).into_iter().find(|&p| stuck[p]).expect("a stuck node has a stuck producer");
    }
    let mut cycle = path.split_off(seen_at[at]);
    cycle.reverse();
    cycle
}

/// The `toposort` pass: [`sort`].
pub struct Toposort;

impl Pass for Toposort {
    fn name(&self) -> &'static str {
        "toposort"
    }

    fn run(&self, graph: &mut Graph, _cx: &mut PassContext<'_>) -> Result<Option<String>, CompileError> {
        sort(graph)?;
        Ok(Some(String::new()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::{dce, resolve, sketch};

    /// The sketch's graph, its copies merged (as with fusion) or kept, sorted.
    fn sorted(src: &str, merge: bool) -> Graph {
        let mut g = resolve::resolve(&sketch::parse(src).unwrap(), &mut Vec::new()).unwrap();
        crate::compile::hoist::mark_captures(&mut g).unwrap();
        if merge {
            cse::merge(&mut g, &mut Vec::new());
        }
        dce::eliminate(&mut g, &mut Vec::new());
        sort(&mut g).unwrap();
        g
    }

    /// The evaluation order as the library nodes' names and their spans'
    /// lines, each run of copies of one node written once.
    fn evaluation(g: &Graph) -> Vec<String> {
        let first = cse::twins(g).unwrap().first;
        let mut seen = Vec::new();
        let mut steps = Vec::new();
        for (i, node) in g.nodes.iter().enumerate() {
            if !seen.contains(&first[i]) {
                seen.push(first[i]);
                steps.push(format!("{}@{}", node.def.name, g.nodes[first[i] as usize].span.line));
            }
        }
        steps
    }

    const COPIES: &[&str] = &[
        // `d` reads `b` and a copy of the earlier `a`.
        "input x: u64\na := is_positive(x)\nb := in_range(x, 5, 100)\nc := is_positive(x)\nd := u64_add(b, c)",
        // The copies of `c`'s two reads, in the other order.
        "input x: u64\ninput k: u64\nc := u64_add(hash(k), hash(x))\nd := u64_add(hash(x), hash(k))",
        // A condition reads a copy of `a`: `a` comes before `b`.
        "input x: u64\nb := in_range(x, 5, 100)\na := is_positive(x)\nd := u64_add(b, a)\n\
         e := select_u64(is_positive(x), 1, 2)",
    ];

    #[test]
    fn a_copy_is_evaluated_right_after_its_first_twin() {
        let g = sorted(COPIES[0], false);
        let ops: Vec<&str> = g.nodes.iter().map(|n| n.def.name).collect();
        assert_eq!(ops, ["is_positive", "is_positive", "in_range", "u64_add"]);
    }

    #[test]
    fn copies_kept_or_merged_give_one_evaluation_order() {
        for src in COPIES {
            let (kept, merged) = (sorted(src, false), sorted(src, true));
            assert!(kept.nodes.len() > merged.nodes.len(), "{src}");
            assert_eq!(evaluation(&kept), evaluation(&merged), "{src}");
        }
    }

    #[test]
    fn a_condition_reading_a_copy_puts_the_first_twin_first() {
        let g = sorted(COPIES[2], false);
        let ops: Vec<&str> = g.nodes.iter().map(|n| n.def.name).take(2).collect();
        assert_eq!(ops, ["is_positive", "is_positive"], "both before `in_range`");
    }

    #[test]
    fn finds_the_cycle_not_its_downstream() {
        // 0 <- 1 <- 2 <- 0 is the cycle; 3 reads 2 and is stuck too.
        let producers = |i: usize| match i {
            0 => vec![2],
            1 => vec![0],
            2 => vec![1],
            3 => vec![2],
            _ => vec![],
        };
        let cycle = find_cycle(&[true, true, true, true], producers);
        assert_eq!(cycle.len(), 3);
        for w in 0..3 {
            // each node reads the one before it (cyclically)
            let (prev, node) = (cycle[(w + 2) % 3], cycle[w]);
            assert!(producers(node).contains(&prev));
        }
        let cycle = find_cycle(&[false, false, false, true, true], |i| if i == 3 { vec![4] } else { vec![3] });
        assert_eq!(cycle.len(), 2);
    }
}
