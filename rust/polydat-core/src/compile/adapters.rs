//! Adapter insertion, the pass after resolution: a wire whose producer type
//! differs from its consumer's parameter type gets an automatic class-A adapter
//! node (logged as `TypeAdapterInserted`; one adapter per wire and target type,
//! shared by every consumer), or the compile fails naming both types at the
//! consumer's span. Under the `strict` option even these coercions are
//! refused. The value-level boundary catalog for host writes lives beside the
//! class-A catalog, in `nodes::convert`.

use super::graph::{Graph, GraphNode, Wire};
use super::pass::{Pass, PassContext};
use crate::error::CompileError;
use crate::ir::Span;
use crate::node::{NodeDef, ParamSpec};
use crate::nodes::convert::{auto_adapter, conversion_hint};
use crate::program::events::{CompileEvent, EventKind};
use crate::types::PortType;
use std::collections::HashMap;

/// Runs the pass: every node's wires are made to deliver its parameter types.
/// A wire that cannot is reported in `errors` and left as it is, and the pass
/// goes on (every mismatch of a program is reported, not only the first).
/// Each adapter is placed before the first node that reads it
/// ([`Graph::place_appended`]), so the program is evaluated in the order it
/// was written and reports the first of several failures as it would with
/// no adapter (whether or not a later pass reorders the graph).
pub fn insert(graph: &mut Graph, strict: bool, events: &mut Vec<CompileEvent>, errors: &mut Vec<CompileError>) {
    let first_new = graph.nodes.len();
    let mut made: HashMap<(Wire, PortType), Wire> = HashMap::new();
    for n in 0..graph.nodes.len() {
        for i in 0..graph.nodes[n].wires.len() {
            let (wire, want) = (graph.nodes[n].wires[i], graph.nodes[n].in_types[i]);
            if graph.wire_type(wire) == want {
                continue;
            }
            let adapted = match made.get(&(wire, want)) {
                Some(w) => *w,
                None => {
                    let node = &graph.nodes[n];
                    let what = format!("parameter `{}` of `{}`", wire_param_name(node.def, i), node.def.name);
                    let span = node.span;
                    match coerce(graph, wire, want, strict, span, &what, events) {
                        Ok(w) => {
                            made.insert((wire, want), w);
                            w
                        }
                        Err(e) => {
                            errors.push(e);
                            continue;
                        }
                    }
                }
            };
            graph.nodes[n].wires[i] = adapted;
        }
    }
    graph.place_appended(first_new);
}

/// The name of the parameter behind wire argument `i` (a variadic parameter repeats).
fn wire_param_name(def: &NodeDef, i: usize) -> &'static str {
    let wires: Vec<&ParamSpec> = def.wire_params().collect();
    wires.get(i).or(wires.last()).map_or("?", |p| p.name)
}

/// Makes `wire` deliver `to`: returns it unchanged when the types match,
/// otherwise the output of a newly inserted adapter node. `what` describes the
/// consumer for messages ("parameter `x` of `sin`").
pub fn coerce(
    graph: &mut Graph,
    wire: Wire,
    to: PortType,
    strict: bool,
    span: Span,
    what: &str,
    events: &mut Vec<CompileEvent>,
) -> Result<Wire, CompileError> {
    let from = graph.wire_type(wire);
    if from == to {
        return Ok(wire);
    }
    let Some(def) = auto_adapter(from, to) else {
        return Err(CompileError::at(span, format!("type mismatch: {what} expects {to}, but the wire carries {from}"))
            .hint(conversion_hint(from, to)));
    };
    if strict {
        return Err(CompileError::at(
            span,
            format!("strict mode: {what} expects {to}, but the wire carries {from} (implicit {from} -> {to} refused)"),
        )
        .hint(format!("convert explicitly, e.g. `... as {to}`")));
    }
    let node = GraphNode::build(def, Vec::new(), vec![wire], vec![from], span)
        .map_err(|e| CompileError::at(span, format!("cannot build adapter {}: {e}", def.name)))?;
    let adapted = graph.push(node);
    events.push(CompileEvent::new(
        EventKind::TypeAdapterInserted,
        Some(span),
        format!("{from} -> {to} via {} for {what}", def.name),
    ));
    Ok(adapted)
}

/// The `adapters` pass: [`insert`], the last of the typing passes.
pub struct Adapters;

impl Pass for Adapters {
    fn name(&self) -> &'static str {
        "adapters"
    }

    fn run(&self, graph: &mut Graph, cx: &mut PassContext<'_>) -> Result<Option<String>, CompileError> {
        insert(graph, cx.options.strict, &mut cx.events, &mut cx.errors);
        cx.report_errors()?;
        let adapters = cx.events.iter().filter(|e| e.kind == EventKind::TypeAdapterInserted).count();
        cx.stats.adapters = adapters;
        Ok(Some(format!("{adapters} adapter(s)")))
    }

    fn recovers(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::graph::GraphInput;
    use crate::ir::InputKind;
    use crate::value::Value;

    fn graph_with(ty: PortType) -> Graph {
        Graph {
            inputs: vec![GraphInput {
                name: "x".into(),
                ty,
                kind: InputKind::Coordinate,
                default: Value::None,
                span: Span::default(),
                origin: Default::default(),
            }],
            ..Graph::default()
        }
    }

    #[test]
    fn widening_inserts_an_adapter_and_logs_it() {
        let mut g = graph_with(PortType::U64);
        let mut ev = Vec::new();
        let w = coerce(&mut g, Wire::Input(0), PortType::F64, false, Span::default(), "x", &mut ev).unwrap();
        assert_eq!(w, Wire::Node(0, 0));
        assert_eq!(g.nodes[0].def.name, "__u64_to_f64");
        assert_eq!(ev[0].kind, EventKind::TypeAdapterInserted);
    }

    #[test]
    fn narrowing_and_strict_are_refused() {
        let mut g = graph_with(PortType::F64);
        let err = coerce(&mut g, Wire::Input(0), PortType::U64, false, Span { line: 3, col: 4 }, "x", &mut vec![])
            .unwrap_err();
        assert!(err.message.contains("expects u64") && err.message.contains("f64"));
        assert!(err.hint.unwrap().contains("round_to_u64"));
        let mut g = graph_with(PortType::U64);
        assert!(coerce(&mut g, Wire::Input(0), PortType::F64, true, Span::default(), "x", &mut vec![]).is_err());
    }
}
