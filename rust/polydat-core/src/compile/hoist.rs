//! Hoisting: the lifecycle classification of every node (axioms
//! H1–H3), run on the sorted, post-fusion graph.
//!
//! A node's class is the join (maximum) of its seeds and its producers, with
//! `Dynamic > ScopeInit > CompileConst`:
//!
//! * a coordinate or extern input is `Dynamic`;
//! * a node with no wires starts `CompileConst`;
//! * a nondeterministic node, or the node of a `volatile` binding, is
//!   `Dynamic` (and contagious, through the join);
//! * a side-channel node is `Dynamic`, whatever it reads: its effect happens
//!   once per cycle that evaluates it (never at compile time, and not once
//!   per kernel, which would follow the thread count; `emit` puts the
//!   coordinates in its provenance);
//! * the node of a `const` binding is a *capture*: its value is computed once
//!   at scope init from the inputs as they are then (it may read externs,
//!   volatile or nondeterministic values) and it is `ScopeInit` — or
//!   `CompileConst` when everything it reads is. Reading a coordinate,
//!   directly or transitively, is a compile error naming the const and the
//!   coordinate.
//!
//! `CompileConst` nodes are folded at build (`fold`), `ScopeInit` nodes form
//! the scope-init path (run once per kernel), `Dynamic` nodes the per-cycle path.

use super::graph::{Graph, GraphNode, Wire};
use crate::error::CompileError;
use crate::ir::{InputKind, Modifier};
use crate::node::Purity;
pub use crate::program::lifecycle::Lifecycle;
use serde::Serialize;

/// How many nodes landed in each class.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct HoistSummary {
    /// Nodes classed `CompileConst`.
    pub compile_const: usize,
    /// Nodes classed `ScopeInit`.
    pub scope_init: usize,
    /// Nodes classed `Dynamic`.
    pub dynamic: usize,
    /// `const` bindings captured at scope init.
    pub captures: usize,
}

use super::pass::{Pass, PassContext};
pub use crate::nodes::convert::{CAPTURE_OP, CONST_CAPTURE};

/// Classifies every node of the sorted `graph` (setting `GraphNode::lifecycle`),
/// its captures marked by [`mark_captures`] before any rewrite. Errors: a
/// const that reads a coordinate.
pub fn hoist(graph: &mut Graph) -> Result<HoistSummary, CompileError> {
    let n = graph.nodes.len();
    // Per node: a coordinate input it reaches without crossing a capture.
    let mut reaches_coordinate: Vec<Option<u32>> = vec![None; n];
    let mut summary = HoistSummary::default();
    for i in 0..n {
        let node = &graph.nodes[i];
        let mut class = Lifecycle::CompileConst;
        let mut coordinate = None;
        for w in &node.wires {
            match *w {
                Wire::Input(input) => {
                    class = Lifecycle::Dynamic;
                    if graph.inputs[input as usize].kind == InputKind::Coordinate {
                        coordinate = coordinate.or(Some(input));
                    }
                }
                Wire::Node(p, _) => {
                    class = class.max(graph.nodes[p as usize].lifecycle);
                    coordinate = coordinate.or(reaches_coordinate[p as usize]);
                }
            }
        }
        if node.is_nondeterministic() {
            class = Lifecycle::Dynamic;
        }
        if node.def.purity == Purity::SideChannel {
            class = Lifecycle::Dynamic;
        }
        if node.capture {
            if let Some(c) = coordinate {
                return Err(const_reads_coordinate(graph, i, c));
            }
            if class != Lifecycle::CompileConst {
                class = Lifecycle::ScopeInit;
            }
            summary.captures += 1;
        } else {
            reaches_coordinate[i] = coordinate;
        }
        graph.nodes[i].lifecycle = class;
        match class {
            Lifecycle::CompileConst => summary.compile_const += 1,
            Lifecycle::ScopeInit => summary.scope_init += 1,
            Lifecycle::Dynamic => summary.dynamic += 1,
        }
    }
    Ok(summary)
}

/// Marks the node of every `const` binding as a capture, inserting a
/// `__const_capture` node when the binding names an input or shares its node
/// with a binding that is not const. Runs on the graph as written, before
/// any pass drops a binding or rewrites a node: which reader reads the
/// capture and which reads the live value is the program's, and merging,
/// fusion or an unrequested const binding must not change it (every later
/// pass keeps a capture a capture and never merges or swallows it).
/// Returns how many const bindings it marked. Errors: a const that is also
/// volatile, a const that names a coordinate.
pub fn mark_captures(graph: &mut Graph) -> Result<usize, CompileError> {
    // Per node: a binding that is not const names it (one pass over the
    // outputs, not one per const: a program of many consts stays linear).
    let mut named_live = vec![false; graph.nodes.len()];
    for out in graph.outputs.iter().filter(|o| !o.has(Modifier::Const)) {
        if let Wire::Node(n, _) = out.wire {
            named_live[n as usize] = true;
        }
    }
    let mut marked = 0;
    for o in 0..graph.outputs.len() {
        let out = &graph.outputs[o];
        if !out.has(Modifier::Const) {
            continue;
        }
        if out.has(Modifier::Volatile) {
            return Err(CompileError::at(out.span, format!("'{}' cannot be both const and volatile", out.name))
                .hint("a const is computed once; a volatile is recomputed on every read"));
        }
        let needs_own_node = match out.wire {
            Wire::Input(i) => {
                let input = &graph.inputs[i as usize];
                if input.kind == InputKind::Coordinate {
                    return Err(coordinate_error(&out.name, "reads", &input.name, out.span));
                }
                true
            }
            Wire::Node(n, _) => named_live[n as usize],
        };
        if needs_own_node {
            let wire = out.wire;
            let ty = graph.wire_type(wire);
            let node = GraphNode::build(&CONST_CAPTURE, Vec::new(), vec![wire], vec![ty], out.span)
                .expect("the capture node always builds");
            graph.nodes.push(node);
            graph.outputs[o].wire = Wire::Node(graph.nodes.len() as u32 - 1, 0);
        }
        if let Wire::Node(n, _) = graph.outputs[o].wire {
            graph.nodes[n as usize].capture = true;
        }
        marked += 1;
    }
    Ok(marked)
}

fn capture_hint() -> &'static str {
    "a const is captured once at scope init; it may read externs and other consts, never a per-cycle coordinate (drop `const` to recompute it per cycle)"
}

fn const_reads_coordinate(graph: &Graph, node: usize, coordinate: u32) -> CompileError {
    let coordinate = &graph.inputs[coordinate as usize].name;
    let binding = graph
        .outputs
        .iter()
        .find(|o| o.has(Modifier::Const) && matches!(o.wire, Wire::Node(n, _) if n as usize == node));
    let (name, span) = match binding {
        Some(o) => (o.name.as_str(), o.span),
        None => ("?", graph.nodes[node].span),
    };
    let direct = graph.nodes[node]
        .wires
        .iter()
        .any(|w| matches!(w, Wire::Input(i) if graph.inputs[*i as usize].name == *coordinate));
    let how = if direct { "reads" } else { "depends on" };
    coordinate_error(name, how, coordinate, span)
}

/// The error of a capture (a `const`, or a cell's starting value) that reads a coordinate.
fn coordinate_error(name: &str, how: &str, coordinate: &str, span: crate::ir::Span) -> CompileError {
    match name.strip_prefix("__seed_") {
        Some(cell) => CompileError::at(
            span,
            format!("shared binding '{cell}': the starting value of shared '{cell}' {how} coordinate '{coordinate}'"),
        )
        .hint(
            "cycle-dependent expressions don't have a well-defined single init for the shared cell: its starting \
             value is computed once, when its scope starts; give it a literal initial value, or one computed from \
             constants and externs",
        ),
        None => CompileError::at(span, format!("const '{name}' {how} coordinate '{coordinate}'")).hint(capture_hint()),
    }
}

/// The `captures` pass: [`mark_captures`], before any pass drops a binding,
/// merges or rewrites.
pub struct MarkCaptures;

impl Pass for MarkCaptures {
    fn name(&self) -> &'static str {
        "captures"
    }

    fn run(&self, graph: &mut Graph, _cx: &mut PassContext<'_>) -> Result<Option<String>, CompileError> {
        let captures = mark_captures(graph)?;
        Ok(Some(format!("{captures} const binding(s) marked as captures")))
    }
}

/// The `hoist` pass: [`hoist`].
pub struct Hoist;

impl Pass for Hoist {
    fn name(&self) -> &'static str {
        "hoist"
    }

    fn run(&self, graph: &mut Graph, _cx: &mut PassContext<'_>) -> Result<Option<String>, CompileError> {
        let classes = hoist(graph)?;
        Ok(Some(format!(
            "{} compile-const, {} scope-init, {} dynamic; {} const capture(s)",
            classes.compile_const, classes.scope_init, classes.dynamic, classes.captures
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::sketch;
    use crate::compile::{dce, resolve, toposort};

    fn classify(src: &str) -> Result<(Graph, HoistSummary), CompileError> {
        let ir = sketch::parse(src).unwrap();
        let mut g = resolve::resolve(&ir, &mut Vec::new())?;
        mark_captures(&mut g)?;
        dce::eliminate(&mut g, &mut Vec::new());
        toposort::sort(&mut g)?;
        let s = hoist(&mut g)?;
        Ok((g, s))
    }

    fn class_of(g: &Graph, output: &str) -> Lifecycle {
        let o = g.outputs.iter().find(|o| o.name == output).unwrap();
        match o.wire {
            Wire::Node(n, _) => g.nodes[n as usize].lifecycle,
            Wire::Input(_) => Lifecycle::Dynamic,
        }
    }

    #[test]
    fn classes_are_the_join_of_upstream() {
        let (g, s) = classify(
            "input cycle: u64
             extern seed: u64 = 7
             k := add(5, 3)
             h := hash(k)
             d := u64_add(h, cycle)
             e := u64_add(h, seed)
             const c := hash(seed)
             m := u64_add(c, k)
             r := u64_add(counter(), k)",
        )
        .unwrap();
        assert_eq!(class_of(&g, "k"), Lifecycle::CompileConst);
        assert_eq!(class_of(&g, "h"), Lifecycle::CompileConst);
        assert_eq!(class_of(&g, "d"), Lifecycle::Dynamic);
        assert_eq!(class_of(&g, "e"), Lifecycle::Dynamic);
        assert_eq!(class_of(&g, "c"), Lifecycle::ScopeInit);
        assert_eq!(class_of(&g, "m"), Lifecycle::ScopeInit);
        assert_eq!(class_of(&g, "r"), Lifecycle::Dynamic, "nondeterministic is contagious");
        assert_eq!(s.captures, 1);
    }

    #[test]
    fn adding_a_dynamic_upstream_only_weakens() {
        let (g, _) = classify("input cycle: u64\nx := hash(5)").unwrap();
        assert_eq!(class_of(&g, "x"), Lifecycle::CompileConst);
        let (g, _) = classify("input cycle: u64\nx := hash(u64_add(5, cycle))").unwrap();
        assert_eq!(class_of(&g, "x"), Lifecycle::Dynamic);
    }

    #[test]
    fn volatile_binding_is_dynamic_and_contagious() {
        let (g, _) = classify("input cycle: u64\nvolatile v := hash(3)\nw := add(v, 1)").unwrap();
        assert_eq!(class_of(&g, "v"), Lifecycle::Dynamic);
        assert_eq!(class_of(&g, "w"), Lifecycle::Dynamic);
    }

    #[test]
    fn literal_const_stays_compile_const() {
        let (g, s) = classify("input cycle: u64\nconst k := add(2, 3)").unwrap();
        assert_eq!(class_of(&g, "k"), Lifecycle::CompileConst);
        assert_eq!(s.captures, 1);
    }

    #[test]
    fn const_capturing_nondeterminism_is_scope_init() {
        let (g, _) = classify("input cycle: u64\nconst r := counter()\ny := u64_add(r, cycle)").unwrap();
        assert_eq!(class_of(&g, "r"), Lifecycle::ScopeInit);
        assert_eq!(class_of(&g, "y"), Lifecycle::Dynamic);
    }

    #[test]
    fn const_reading_a_coordinate_names_both() {
        let err =
            classify("input cycle: u64\nextern e: u64 = 1\na := u64_add(e, cycle)\nconst c := hash(a)").err().unwrap();
        assert!(err.message.contains("'c'") && err.message.contains("'cycle'"), "{}", err.message);
        assert_eq!(err.span.unwrap().line, 4);
        let err = classify("input cycle: u64\nconst c := cycle").err().unwrap();
        assert!(err.message.contains("'c'") && err.message.contains("'cycle'"));
    }

    #[test]
    fn const_sharing_a_node_gets_its_own_capture() {
        let (g, _) = classify("input cycle: u64\nextern e: u64 = 1\na := hash(e)\nconst c := a").unwrap();
        assert_eq!(class_of(&g, "a"), Lifecycle::Dynamic);
        assert_eq!(class_of(&g, "c"), Lifecycle::ScopeInit);
        let (g, _) = classify("input cycle: u64\nextern e: u64 = 1\nconst c := e").unwrap();
        assert_eq!(class_of(&g, "c"), Lifecycle::ScopeInit);
    }

    #[test]
    fn const_and_volatile_conflict() {
        let err = classify("input cycle: u64\nconst volatile c := hash(1)").err().unwrap();
        assert!(err.message.contains("both const and volatile"));
    }
}
