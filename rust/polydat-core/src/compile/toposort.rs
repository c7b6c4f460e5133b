//! Topological sort: orders nodes so every producer precedes its consumers
//! (Kahn's algorithm, stable by node index); a cycle is an error naming the
//! nodes on it with their spans.

use super::graph::Graph;
use crate::error::CompileError;

/// Sorts `graph.nodes` into evaluation order.
pub fn sort(graph: &mut Graph) -> Result<(), CompileError> {
    let n = graph.nodes.len();
    let consumers = graph.consumers();
    let mut indegree: Vec<usize> = (0..n).map(|i| graph.producers(i).count()).collect();
    let mut ready: std::collections::BinaryHeap<std::cmp::Reverse<usize>> =
        (0..n).filter(|&i| indegree[i] == 0).map(std::cmp::Reverse).collect();
    let mut order = Vec::with_capacity(n);
    while let Some(std::cmp::Reverse(i)) = ready.pop() {
        order.push(i);
        for &c in &consumers[i] {
            indegree[c as usize] -= 1;
            if indegree[c as usize] == 0 {
                ready.push(std::cmp::Reverse(c as usize));
            }
        }
    }
    if order.len() < n {
        let on_cycle: Vec<usize> = (0..n).filter(|&i| indegree[i] > 0).collect();
        let names: Vec<String> = on_cycle
            .iter()
            .map(|&i| {
                let node = &graph.nodes[i];
                format!("`{}` at {}:{}", node.def.name, node.span.line, node.span.col)
            })
            .collect();
        return Err(CompileError::at(
            graph.nodes[on_cycle[0]].span,
            format!("cycle detected among nodes {}", names.join(", ")),
        ));
    }
    if order.iter().enumerate().any(|(pos, &i)| pos != i) {
        graph.reorder(&order);
    }
    Ok(())
}
