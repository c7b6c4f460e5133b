//! The typed graph the compiler passes work on: resolved nodes with their
//! built evaluators, typed wires, inputs and named outputs.

use crate::ir::{InputKind, InputOrigin, Modifier, Span};
use crate::node::guard::guarded;
use crate::node::{yields_none, Args, BuildCtx, NodeDef, NodeEval, Purity};
use crate::program::lifecycle::Lifecycle;
use crate::types::PortType;
use crate::value::Value;
use std::sync::Arc;

/// Where a wire's value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Wire {
    /// Input slot `i`.
    Input(u32),
    /// Output `port` of node `node`.
    Node(u32, u32),
}

/// A program input.
#[derive(Clone, Debug)]
pub struct GraphInput {
    /// The input's name.
    pub name: String,
    /// The input's type.
    pub ty: PortType,
    /// Coordinate or extern.
    pub kind: InputKind,
    /// The value before any write (`None` for an extern without default).
    pub default: Value,
    /// The declaration's source position.
    pub span: Span,
    /// Where the slot comes from (how a scope-init binds it).
    pub origin: InputOrigin,
}

/// A resolved node.
#[derive(Clone)]
pub struct GraphNode {
    /// The library node this node runs.
    pub def: &'static NodeDef,
    /// Construction constants, in parameter order.
    pub consts: Vec<Value>,
    /// Wires read, in argument order.
    pub wires: Vec<Wire>,
    /// Per wire: the type it must deliver (its parameter's type).
    pub in_types: Vec<PortType>,
    /// Output port types.
    pub out_types: Vec<PortType>,
    /// The built evaluator (constants baked in).
    pub eval: Arc<dyn NodeEval>,
    /// The node's source position.
    pub span: Span,
    /// Marked `volatile` by a binding modifier: never current.
    pub volatile: bool,
    /// The node of a `const` binding: its value is captured once at scope
    /// init from the inputs as they are then, and never recomputed.
    pub capture: bool,
    /// Lifecycle class, assigned by the hoisting pass (`Dynamic` before it).
    pub lifecycle: Lifecycle,
}

impl GraphNode {
    /// Builds a node of `def` from its constants and typed wires: constructs
    /// the evaluator and types the outputs. Errors are the node's own
    /// construction messages.
    pub fn build(
        def: &'static NodeDef,
        consts: Vec<Value>,
        wires: Vec<Wire>,
        in_types: Vec<PortType>,
        span: Span,
    ) -> Result<GraphNode, String> {
        let eval = (def.build)(&BuildCtx { consts: &consts, wire_types: &in_types })?;
        let out_types = def.output_types(&consts, &in_types);
        Ok(GraphNode {
            def,
            consts,
            wires,
            in_types,
            out_types,
            eval: Arc::from(eval),
            span,
            volatile: false,
            capture: false,
            lifecycle: Lifecycle::Dynamic,
        })
    }

    /// True when the node must be re-evaluated on every read that reaches it.
    pub fn is_nondeterministic(&self) -> bool {
        self.volatile || self.def.purity == Purity::Nondeterministic
    }

    /// The node's outputs over the constant values `inputs` (one per wire),
    /// evaluated while compiling exactly as an engine evaluates it at run
    /// time: the `None` rule ([`crate::node::yields_none`]), then the node's
    /// own rule, a panic contained. The one constant evaluator of the
    /// compiler (folding and construction constants). `Err` is the node's
    /// failure text.
    pub fn evaluate(&self, inputs: &[Value]) -> Result<Vec<Value>, String> {
        let mut outs = vec![Value::None; self.out_types.len()];
        if yields_none(self.def.accepts_none, inputs.iter().map(Value::is_none)) {
            return Ok(outs);
        }
        let index: Vec<u32> = (0..inputs.len() as u32).collect();
        match guarded(|| self.eval.eval(&Args::new(inputs, &index), &mut outs)) {
            Ok(Ok(())) => Ok(outs),
            Ok(Err(e)) => Err(e.message().to_string()),
            Err(panic) => Err(panic),
        }
    }
}

/// Where a part of an expansion ([`Graph::expand`]) reads a wire from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// Wire `i` of the node being expanded.
    Wire(usize),
    /// Output 0 of part `j` of the expansion (an earlier part).
    Part(usize),
    /// Any wire of the graph.
    At(Wire),
}

/// One node of an expansion ([`Graph::expand`]).
#[derive(Clone)]
pub struct Part {
    /// The node this part runs.
    pub def: &'static NodeDef,
    /// The part's construction constants.
    pub consts: Vec<Value>,
    /// Where each of the part's wires reads from.
    pub wires: Vec<Source>,
}

impl Part {
    /// A part of `def` with `consts`, reading `wires`.
    pub fn new(def: &'static NodeDef, consts: Vec<Value>, wires: &[Source]) -> Part {
        Part { def, consts, wires: wires.to_vec() }
    }
}

/// A named output.
#[derive(Clone, Debug)]
pub struct GraphOutput {
    /// The binding's name.
    pub name: String,
    /// The wire the output reads.
    pub wire: Wire,
    /// The output's type.
    pub ty: PortType,
    /// The binding's modifiers (`const`, `shared`, `volatile`).
    pub modifiers: Vec<Modifier>,
    /// The binding's source position.
    pub span: Span,
}

impl GraphOutput {
    /// True when the binding carries modifier `m`.
    pub fn has(&self, m: Modifier) -> bool {
        self.modifiers.contains(&m)
    }
}

/// The typed program graph.
#[derive(Clone, Default)]
pub struct Graph {
    /// Program inputs, coordinates first.
    pub inputs: Vec<GraphInput>,
    /// The nodes; [`Wire::Node`] indexes this list.
    pub nodes: Vec<GraphNode>,
    /// The named outputs.
    pub outputs: Vec<GraphOutput>,
}

impl Graph {
    /// Appends `node`; returns the wire of its first output.
    pub fn push(&mut self, node: GraphNode) -> Wire {
        self.nodes.push(node);
        Wire::Node(self.nodes.len() as u32 - 1, 0)
    }

    /// The type carried by `wire`.
    pub fn wire_type(&self, wire: Wire) -> PortType {
        match wire {
            Wire::Input(i) => self.inputs[i as usize].ty,
            Wire::Node(n, p) => self.nodes[n as usize].out_types[p as usize],
        }
    }

    /// Replaces node `n` by an expansion: `parts`, each reading the node's
    /// wires, earlier parts or any wire. The last part takes the node's
    /// place (same index, so its readers and bindings are untouched; its
    /// `volatile` and `capture` marks carried over) and the others are
    /// appended (the topological sort puts them in order). `None`, and the
    /// graph untouched, when a part does not build or the last part's
    /// output types differ from the node's.
    pub fn expand(&mut self, n: usize, parts: Vec<Part>) -> Option<()> {
        let original = &self.nodes[n];
        let span = original.span;
        let first_new = self.nodes.len();
        let mut built: Vec<GraphNode> = Vec::with_capacity(parts.len());
        let last = parts.len().checked_sub(1)?;
        for (j, p) in parts.into_iter().enumerate() {
            let mut wires = Vec::with_capacity(p.wires.len());
            let mut in_types = Vec::with_capacity(p.wires.len());
            for s in &p.wires {
                let (wire, ty) = match *s {
                    Source::Wire(i) => (original.wires[i], original.in_types[i]),
                    // Earlier parts are appended in order.
                    Source::Part(k) => (Wire::Node((first_new + k) as u32, 0), built.get(k)?.out_types[0]),
                    Source::At(w) => (w, self.wire_type(w)),
                };
                wires.push(wire);
                in_types.push(ty);
            }
            let node = GraphNode::build(p.def, p.consts, wires, in_types, span).ok()?;
            if j == last && node.out_types != original.out_types {
                return None;
            }
            built.push(node);
        }
        let mut replacement = built.pop()?;
        replacement.volatile = original.volatile;
        replacement.capture = original.capture;
        self.nodes.extend(built);
        self.nodes[n] = replacement;
        Some(())
    }

    /// Per node: a binding with modifiers (`const`, `shared`, `volatile`)
    /// names it, so a rewrite may not look through it.
    pub fn named_with_modifiers(&self) -> Vec<bool> {
        let mut modified = vec![false; self.nodes.len()];
        for o in &self.outputs {
            if let Wire::Node(n, _) = o.wire {
                modified[n as usize] |= !o.modifiers.is_empty();
            }
        }
        modified
    }

    /// The nodes each node reads from (its producers), deduplicated.
    pub fn producers(&self, node: usize) -> impl Iterator<Item = usize> + '_ {
        let mut seen: Vec<usize> = Vec::new();
        self.nodes[node].wires.iter().filter_map(move |w| match w {
            Wire::Node(n, _) if !seen.contains(&(*n as usize)) => {
                seen.push(*n as usize);
                Some(*n as usize)
            }
            _ => None,
        })
    }

    /// For every node, the nodes that read it.
    pub fn consumers(&self) -> Vec<Vec<u32>> {
        let mut out = vec![Vec::new(); self.nodes.len()];
        for (i, n) in self.nodes.iter().enumerate() {
            for w in &n.wires {
                if let Wire::Node(p, _) = w {
                    let list: &mut Vec<u32> = &mut out[*p as usize];
                    if list.last() != Some(&(i as u32)) {
                        list.push(i as u32);
                    }
                }
            }
        }
        out
    }

    /// Keeps the nodes listed in `order` (a permutation or subset of node
    /// indices, each at most once), in that order, rewriting every wire. Wires
    /// into dropped nodes must not remain.
    pub fn reorder(&mut self, order: &[usize]) {
        let mut new_index = vec![u32::MAX; self.nodes.len()];
        for (new, &old) in order.iter().enumerate() {
            new_index[old] = new as u32;
        }
        let remap = |w: Wire| match w {
            Wire::Node(n, p) => {
                let m = new_index[n as usize];
                debug_assert!(m != u32::MAX, "wire into a dropped node");
                Wire::Node(m, p)
            }
            w => w,
        };
        let mut slots: Vec<Option<GraphNode>> = std::mem::take(&mut self.nodes).into_iter().map(Some).collect();
        let mut nodes = Vec::with_capacity(order.len());
        for &old in order {
            let mut n = slots[old].take().expect("order names each node at most once");
            n.wires.iter_mut().for_each(|w| *w = remap(*w));
            nodes.push(n);
        }
        self.nodes = nodes;
        for o in &mut self.outputs {
            o.wire = remap(o.wire);
        }
    }

    /// Moves the nodes from `first_new` on (the parts expansions appended,
    /// [`Graph::expand`]) to just before the first of the nodes before
    /// `first_new` that reads them, directly or through other such parts,
    /// keeping every other order: the evaluation order the topological sort
    /// then gives the nodes of the graph as written is theirs, so a program
    /// reports the first of several failures as it would unexpanded. Parts
    /// nothing reads go last.
    pub fn place_appended(&mut self, first_new: usize) {
        let n = self.nodes.len();
        if first_new >= n {
            return;
        }
        // The anchor of each part: the first earlier node reading it.
        let mut anchor = vec![usize::MAX; n];
        let consumers = self.consumers();
        for a in (first_new..n).rev() {
            anchor[a] = consumers[a]
                .iter()
                .map(|&r| match r as usize {
                    r if r < first_new => r,
                    r => anchor[r],
                })
                .min()
                .unwrap_or(usize::MAX);
        }
        // The parts by anchor (each anchor's in index order), then merged
        // in: one pass, however many parts there are.
        let mut parts: Vec<usize> = (first_new..n).collect();
        parts.sort_by_key(|&a| anchor[a]);
        let mut parts = parts.into_iter().peekable();
        let mut order = Vec::with_capacity(n);
        for i in 0..first_new {
            while let Some(a) = parts.next_if(|&a| anchor[a] == i) {
                order.push(a);
            }
            order.push(i);
        }
        order.extend(parts);
        self.reorder(&order);
    }

    /// For every node, the names of the outputs bound to its ports (one pass
    /// over the outputs; prefer it to [`Graph::output_names_of`] in loops).
    pub fn output_names_by_node(&self) -> Vec<Vec<String>> {
        let mut names = vec![Vec::new(); self.nodes.len()];
        for o in &self.outputs {
            if let Wire::Node(n, _) = o.wire {
                names[n as usize].push(o.name.clone());
            }
        }
        names
    }

    /// The names of the outputs bound to each port of node `node`.
    pub fn output_names_of(&self, node: usize) -> Vec<String> {
        self.outputs
            .iter()
            .filter(|o| matches!(o.wire, Wire::Node(n, _) if n as usize == node))
            .map(|o| o.name.clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::arith::{MOD, REM_ZERO};
    use crate::nodes::lookup;

    fn node(def: &'static NodeDef, consts: Vec<Value>, wires: usize) -> GraphNode {
        let types = vec![PortType::U64; wires];
        GraphNode::build(def, consts, vec![Wire::Input(0); wires], types, Span::default()).unwrap()
    }

    #[test]
    fn the_constant_evaluator_keeps_the_none_rule() {
        // `mod` by 0 fails every evaluation, but a `None` input never runs it.
        let failing = node(&MOD, vec![Value::U64(0)], 1);
        assert_eq!(failing.evaluate(&[Value::U64(5)]).unwrap_err(), REM_ZERO);
        assert!(failing.evaluate(&[Value::None]).unwrap()[0].is_none());
        // A node that accepts `None` runs on it.
        let default_or = lookup("default_or").unwrap();
        assert!(default_or.accepts_none);
        let outs = node(default_or, Vec::new(), 2).evaluate(&[Value::None, Value::U64(7)]).unwrap();
        assert!(outs[0].same(&Value::U64(7)));
    }

    #[test]
    fn the_none_rule() {
        use crate::node::yields_none;
        assert!(yields_none(false, [false, true]));
        assert!(!yields_none(false, [false, false]));
        assert!(!yields_none(false, []), "a node without inputs always runs");
        assert!(!yields_none(true, [true]), "a node that accepts None runs on it");
    }
}
