//! Resolution: turns the frontend's IR into the typed [`Graph`]. Looks up every
//! op in the catalog, matches arguments to parameters (filling constant
//! defaults), types constants, builds each node's evaluator for its parameter
//! types and types its outputs. Wires keep their producer's type: the adapter
//! pass that follows reconciles them. Every error carries the span of the node
//! that caused it.

use super::adapters::coerce;
use super::desugar::{Desugar, Operator, COERCE_OP, SPINE_PART_OP};
use super::graph::{Graph, GraphInput, GraphNode, GraphOutput, Wire};
use super::literal;
use super::pass::{Pass, PassContext};
use crate::error::CompileError;
use crate::ir::{ArgIr, ConstIr, GraphIr, InputKind, InputOrigin, Modifier, NodeIr, Span, WireIr};
use crate::node::arguments::{match_arguments, Mismatch, Param};
use crate::node::{BuildCtx, NodeDef, ParamKind, ParamSpec, Ty};
use crate::nodes::{self, convert};
use crate::program::events::{CompileEvent, EventKind};
use crate::types::PortType;
use crate::value::Value;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// The op name of an explicit `expr as T` cast in the IR.
pub const CAST_OP: &str = "__cast";

/// Resolves `ir` into a typed graph (implicit coercions are the adapter
/// pass's, which `strict` refuses).
/// Fails with every error found ([`resolve_recovering`]), in source order.
pub fn resolve(ir: &GraphIr, events: &mut Vec<CompileEvent>) -> Result<Graph, CompileError> {
    let mut errors = Vec::new();
    let graph = resolve_recovering(ir, events, &mut errors)?;
    CompileError::gather(errors).map_or(Ok(graph), Err)
}

/// Resolves `ir` into a typed graph, going on after an error: a node that
/// fails is reported in `errors` and left out, and so, silently, is every
/// node and output that reads it (its failure is already reported), so each
/// wrong expression is reported once and every independent one still is. The
/// graph returned holds what resolved. Fails at once only when the IR has no
/// order to resolve in (a cycle).
pub fn resolve_recovering(
    ir: &GraphIr,
    events: &mut Vec<CompileEvent>,
    errors: &mut Vec<CompileError>,
) -> Result<Graph, CompileError> {
    let mut graph = Graph { inputs: resolve_inputs(ir, events, errors), ..Graph::default() };
    let seeds = cell_seeds(ir, &mut graph);
    let readers = super::desugar::reader_counts(ir);
    let order = ir_order(ir, &seeds)?;
    let mut ports: Vec<Vec<Wire>> = vec![Vec::new(); ir.nodes.len()];
    let mut failed = vec![false; ir.nodes.len()];
    let reads_failed = |wire: &WireIr, failed: &[bool]| matches!(wire, WireIr::Node { node, .. } if failed[*node]);
    for idx in order {
        let node = &ir.nodes[idx];
        if node.args.iter().any(|a| matches!(a, ArgIr::Wire(w) if reads_failed(w, &failed))) {
            failed[idx] = true;
            continue;
        }
        let resolved = if node.op == CAST_OP {
            resolve_cast(&mut graph, node, &ports, events).map(|w| vec![w])
        } else if node.op == SPINE_PART_OP {
            Ok(Vec::new()) // typed with the top of its spine, which reads it
        } else if node.op == COERCE_OP {
            Desugar { ir, ports: &ports, readers: &readers, events }.coerce(&mut graph, node)
        } else if let Some(operator) = Operator::of(&node.op) {
            Desugar { ir, ports: &ports, readers: &readers, events }.operator(&mut graph, node, operator)
        } else {
            resolve_node(&mut graph, node, &ports, events)
        };
        match resolved {
            Ok(wires) => {
                for &(cell, port) in seeds.by_node.get(&idx).into_iter().flatten() {
                    if let Some(&w) = wires.get(port) {
                        graph.inputs[cell].ty = graph.wire_type(w);
                    }
                }
                ports[idx] = wires
            }
            Err(e) => {
                errors.push(e);
                failed[idx] = true;
            }
        }
    }
    let mut seen = HashSet::new();
    for out in &ir.outputs {
        if !seen.insert(out.name.as_str()) {
            errors.push(CompileError::at(out.span, format!("'{}' is bound twice", out.name)));
            continue;
        }
        if reads_failed(&out.wire, &failed) {
            continue;
        }
        let wire = match wire_of(&graph, out.wire, &ports, out.span) {
            Ok(wire) => wire,
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
        if out.modifiers.contains(&Modifier::Volatile) {
            if let Wire::Node(n, _) = wire {
                graph.nodes[n as usize].volatile = true;
            }
        }
        graph.outputs.push(GraphOutput {
            name: out.name.clone(),
            wire,
            ty: graph.wire_type(wire),
            modifiers: out.modifiers.clone(),
            span: out.span,
        });
    }
    Ok(graph)
}

/// The typed inputs. An input in error is reported in `errors` and kept
/// (reading `None`), so the wires that name inputs by position stay valid.
fn resolve_inputs(ir: &GraphIr, events: &mut Vec<CompileEvent>, errors: &mut Vec<CompileError>) -> Vec<GraphInput> {
    let mut seen = HashSet::new();
    let mut inputs = Vec::with_capacity(ir.inputs.len());
    let mut externs_started = false;
    for input in &ir.inputs {
        if !seen.insert(input.name.as_str()) {
            errors.push(CompileError::at(input.span, format!("input '{}' is declared twice", input.name)));
        }
        match input.kind {
            InputKind::Extern => externs_started = true,
            InputKind::Coordinate if externs_started => {
                errors.push(CompileError::at(input.span, "coordinates must come before externs"));
            }
            InputKind::Coordinate => {}
        }
        let default = match (&input.default, input.kind) {
            (Some(c), kind) => literal::fit(c, input.ty).unwrap_or_else(|misfit| {
                let what = if kind == InputKind::Extern { "extern" } else { "input" };
                errors.push(
                    CompileError::at(
                        input.default_span.unwrap_or(input.span),
                        format!("{what} '{}' is declared {} but its default is {}", input.name, input.ty, misfit.got),
                    )
                    .hint(misfit.hint),
                );
                Value::None
            }),
            (None, InputKind::Coordinate) => zero_of(input.ty),
            (None, InputKind::Extern) if input.cell || !matches!(input.origin, InputOrigin::Declared) => Value::None,
            (None, InputKind::Extern) => {
                events.push(CompileEvent::new(
                    EventKind::ExternWithoutDefault,
                    Some(input.span),
                    format!("extern '{}' ({}) has no default: it reads None until set", input.name, input.ty),
                ));
                Value::None
            }
        };
        let origin = if input.cell { InputOrigin::Cell } else { input.origin };
        inputs.push(GraphInput {
            name: input.name.clone(),
            ty: input.ty,
            kind: input.kind,
            default,
            span: input.span,
            origin,
        });
    }
    inputs
}

/// The zero value of a type (the initial value of a coordinate).
pub fn zero_of(ty: PortType) -> Value {
    match ty {
        PortType::U64 => Value::U64(0),
        PortType::I64 => Value::I64(0),
        PortType::U32 => Value::U32(0),
        PortType::I32 => Value::I32(0),
        PortType::U16 => Value::U16(0),
        PortType::I16 => Value::I16(0),
        PortType::U8 => Value::U8(0),
        PortType::I8 => Value::I8(0),
        PortType::U128 => Value::u128(0),
        PortType::I128 => Value::i128(0),
        PortType::F64 => Value::F64(0.0),
        PortType::F32 => Value::F32(0.0),
        PortType::F16 => Value::F16(half::f16::ZERO),
        PortType::Bool => Value::Bool(false),
        PortType::Str => Value::str(""),
        PortType::Bytes => Value::Bytes(Arc::from(&[][..])),
        PortType::Json => Value::Json(Arc::from("null")),
        PortType::Timestamp => Value::Timestamp(0),
        PortType::Date => Value::Date(0),
        PortType::Decimal(d) => Value::Decimal(crate::decimal::Decimal::new(0, d).expect("0 fits every decimal")),
        PortType::Vector(t) => Value::Vector(t, Arc::from(&[][..])),
    }
}

/// The cells whose slot is typed by a node's output: a cell's slot has its
/// `shared` binding's type, known once the node the binding reads is typed.
#[derive(Default)]
struct CellSeeds {
    /// Per IR node: the cell slots (input index, the node's output port) it types.
    by_node: HashMap<usize, Vec<(usize, usize)>>,
    /// Per cell slot typed by a node: that node (its readers come after it).
    node_of: HashMap<usize, usize>,
}

/// Types each cell slot whose binding reads an input, and lists those whose
/// binding reads a node (typed when the node is).
fn cell_seeds(ir: &GraphIr, graph: &mut Graph) -> CellSeeds {
    let mut seeds = CellSeeds::default();
    for (c, input) in ir.inputs.iter().enumerate() {
        if !input.cell {
            continue;
        }
        let binding = ir.outputs.iter().find(|o| o.name == input.name && o.modifiers.contains(&Modifier::Shared));
        match binding.map(|o| o.wire) {
            Some(WireIr::Input(i)) if i < graph.inputs.len() && i != c => graph.inputs[c].ty = graph.inputs[i].ty,
            Some(WireIr::Node { node, port }) if node < ir.nodes.len() => {
                seeds.by_node.entry(node).or_default().push((c, port));
                seeds.node_of.insert(c, node);
            }
            _ => {}
        }
    }
    seeds
}

/// Orders IR nodes so that producers come first, and the readers of a cell
/// after the node that types it; a cycle is an error naming its nodes.
fn ir_order(ir: &GraphIr, seeds: &CellSeeds) -> Result<Vec<usize>, CompileError> {
    let n = ir.nodes.len();
    let mut indegree = vec![0usize; n];
    let mut consumers: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, node) in ir.nodes.iter().enumerate() {
        for arg in &node.args {
            let producer = match arg {
                ArgIr::Wire(WireIr::Node { node: p, .. }) => *p,
                ArgIr::Wire(WireIr::Input(c)) => match seeds.node_of.get(c) {
                    Some(&p) if p != i => p,
                    _ => continue,
                },
                ArgIr::Const(_) => continue,
            };
            if producer >= n {
                return Err(CompileError::at(node.span, format!("wire refers to missing node #{producer}")));
            }
            indegree[i] += 1;
            consumers[producer].push(i);
        }
    }
    let mut ready: Vec<usize> = (0..n).rev().filter(|&i| indegree[i] == 0).collect();
    let mut order = Vec::with_capacity(n);
    while let Some(i) = ready.pop() {
        order.push(i);
        for &c in consumers[i].iter().rev() {
            indegree[c] -= 1;
            if indegree[c] == 0 {
                ready.push(c);
            }
        }
    }
    if order.len() < n {
        let stuck: Vec<bool> = (0..n).map(|i| indegree[i] > 0).collect();
        let producers = |i: usize| {
            ir.nodes[i]
                .args
                .iter()
                .filter_map(|a| match a {
                    ArgIr::Wire(WireIr::Node { node, .. }) => Some(*node),
                    _ => None,
                })
                .collect()
        };
        let cycle = super::toposort::find_cycle(&stuck, producers);
        let bound_as = |i: usize| {
            ir.outputs
                .iter()
                .find(|o| matches!(o.wire, WireIr::Node { node, .. } if node == i))
                .map(|o| format!(" ('{}')", o.name))
                .unwrap_or_default()
        };
        let names: Vec<String> = cycle
            .iter()
            .map(|&i| {
                format!("`{}`{} at {}:{}", ir.nodes[i].op, bound_as(i), ir.nodes[i].span.line, ir.nodes[i].span.col)
            })
            .collect();
        return Err(CompileError::at(ir.nodes[cycle[0]].span, format!("cycle detected: {}", names.join(" -> ")))
            .hint("a value cannot depend on itself; break the loop with an input or an extern"));
    }
    Ok(order)
}

pub(super) fn wire_of(graph: &Graph, w: WireIr, ports: &[Vec<Wire>], span: Span) -> Result<Wire, CompileError> {
    match w {
        WireIr::Input(i) if i < graph.inputs.len() => Ok(Wire::Input(i as u32)),
        WireIr::Input(i) => Err(CompileError::at(span, format!("wire refers to missing input #{i}"))),
        WireIr::Node { node, port } => ports
            .get(node)
            .and_then(|p| p.get(port))
            .copied()
            .ok_or_else(|| CompileError::at(span, format!("node #{node} has no output port {port}"))),
    }
}

/// One argument after matching: a wire for a wire parameter, a value for a constant.
enum Bound {
    Wire(Wire, PortType),
    Const(Value),
}

fn resolve_node(
    graph: &mut Graph,
    node: &NodeIr,
    ports: &[Vec<Wire>],
    events: &mut Vec<CompileEvent>,
) -> Result<Vec<Wire>, CompileError> {
    let def = nodes::lookup(&node.op).ok_or_else(|| {
        let err = CompileError::at(node.span, format!("unknown node '{}'", node.op));
        if let Some(instead) = nodes::removed_hint(&node.op) {
            return err.hint(instead);
        }
        match nodes::suggest(&node.op) {
            Some(s) => err.hint(format!("did you mean '{s}'?")),
            None => err,
        }
    })?;
    let bound = match_args(graph, def, node, ports)?;
    let mut wires = Vec::new();
    let mut in_types = Vec::new();
    let mut consts = Vec::new();
    for (_, arg) in bound {
        match arg {
            Bound::Const(v) => consts.push(v),
            Bound::Wire(w, ty) => {
                // The wire keeps its producer's type here; the adapter pass
                // reconciles it with the parameter type `ty` afterwards.
                wires.push(w);
                in_types.push(ty);
            }
        }
    }
    if let Some(warning) = (def.warns)(&BuildCtx { consts: &consts, wire_types: &in_types }) {
        events.push(CompileEvent::new(EventKind::NodeWarning, Some(node.span), format!("`{}`: {warning}", def.name)));
    }
    let literals: Vec<Option<&Value>> = wires.iter().map(|w| literal_on(graph, *w)).collect();
    if let Some(warning) = (def.wire_warns)(&literals) {
        events.push(CompileEvent::new(EventKind::NodeWarning, Some(node.span), format!("`{}`: {warning}", def.name)));
    }
    let built = GraphNode::build(def, consts, wires, in_types, node.span)
        .map_err(|e| CompileError::at(node.span, format!("invalid arguments for `{}`: {e}", def.name)))?;
    let n_out = built.out_types.len();
    let Wire::Node(index, _) = graph.push(built) else { unreachable!("push returns a node wire") };
    Ok((0..n_out as u32).map(|p| Wire::Node(index, p)).collect())
}

/// The value `wire` carries when a literal node produces it.
fn literal_on(graph: &Graph, wire: Wire) -> Option<&Value> {
    match wire {
        Wire::Node(index, 0) => {
            let producer = &graph.nodes[index as usize];
            (producer.def.name == convert::LITERAL_OP).then(|| producer.consts.first()).flatten()
        }
        _ => None,
    }
}

/// Pairs each argument with its parameter (the one matching rule,
/// [`match_arguments`]); fills defaults; types constants.
fn match_args(
    graph: &mut Graph,
    def: &'static NodeDef,
    node: &NodeIr,
    ports: &[Vec<Wire>],
) -> Result<Vec<(&'static ParamSpec, Bound)>, CompileError> {
    let params: Vec<Param<'_>> = def.params.iter().map(ParamSpec::matching).collect();
    let mismatch = |m: Mismatch| {
        let err = CompileError::at(node.span, m.message(&format!("'{}'", def.name)));
        match m.hint(&def.signature()) {
            Some(hint) => err.hint(hint),
            None => err,
        }
    };
    let positional = vec![None; node.args.len()];
    let matched = match_arguments(&params, &positional).map_err(mismatch)?;
    let mut out = Vec::new();
    for (i, param) in def.params.iter().enumerate() {
        let args = match (param.variadic, matched.given[i]) {
            (true, _) => matched.extra.clone(),
            (false, Some(arg)) => vec![arg],
            (false, None) => {
                match (param.kind, param.default) {
                    (ParamKind::Const, Some(d)) => out.push((param, Bound::Const(d.to_value()))),
                    _ => return Err(mismatch(matched.missing_error(&params, i))),
                }
                continue;
            }
        };
        for arg in args {
            let span = node.arg_spans.get(arg).copied().flatten().unwrap_or(node.span);
            out.push((param, bind_arg(graph, def, param, &node.args[arg], span, ports)?));
        }
    }
    Ok(out)
}

/// One argument bound to its parameter: a constant typed for it (a constant
/// expression evaluated), or a wire (a literal becoming a literal node).
fn bind_arg(
    graph: &mut Graph,
    def: &'static NodeDef,
    param: &ParamSpec,
    arg: &ArgIr,
    span: Span,
    ports: &[Vec<Wire>],
) -> Result<Bound, CompileError> {
    Ok(match (param.kind, arg) {
        (ParamKind::Const, ArgIr::Const(c)) => Bound::Const(typed_const(def, param, c, span)?),
        (ParamKind::Const, ArgIr::Wire(w)) => {
            let w = wire_of(graph, *w, ports, span)?;
            match constant_value(graph, w) {
                Ok(v) => Bound::Const(typed_value(def, param, v, span)?),
                Err(why) => {
                    let message = format!(
                        "parameter `{}` of `{}` must be a constant expression, but {why}",
                        param.name, def.name
                    );
                    let hint = def.not_constant_hint.unwrap_or(
                        "construction constants are fixed when the node is built: use literals, const bindings of literals, and arithmetic on them",
                    );
                    return Err(CompileError::at(span, message).hint(hint));
                }
            }
        }
        (ParamKind::Wire, _) => {
            let w = arg_wire(graph, arg, ports, span)?;
            Bound::Wire(w, param_type(param, graph.wire_type(w)))
        }
    })
}

/// The wire argument `arg` gives in a wire position: its own wire, or for a
/// constant (a literal written there, or a read of an outer literal the
/// `outer` pass inlined) a literal node of the constant's natural type.
pub(super) fn arg_wire(graph: &mut Graph, arg: &ArgIr, ports: &[Vec<Wire>], span: Span) -> Result<Wire, CompileError> {
    match arg {
        ArgIr::Wire(w) => wire_of(graph, *w, ports, span),
        ArgIr::Const(c) => {
            let value = literal::natural(c).map_err(|e| CompileError::at(span, e))?;
            literal_node(graph, value, span)
        }
    }
}

/// The value `wire` has while compiling, when it is a constant expression:
/// every node upstream is pure and reads no input (literals, `const`
/// bindings of them, arithmetic on them). The nodes are evaluated here, by
/// their own rules, so a construction constant written as `users` or
/// `10 * 1000` means exactly what the expression computes at run time.
/// `Err` says why it is not constant (an input read, a nondeterministic
/// node, a failure or an absent value).
fn constant_value(graph: &Graph, wire: Wire) -> Result<Value, String> {
    let mut values: std::collections::HashMap<u32, Vec<Value>> = std::collections::HashMap::new();
    let mut todo = vec![(wire, false)];
    while let Some((w, ready)) = todo.pop() {
        let n = match w {
            Wire::Input(i) => return Err(format!("it reads input '{}'", graph.inputs[i as usize].name)),
            Wire::Node(n, _) if values.contains_key(&n) => continue,
            Wire::Node(n, _) => n,
        };
        let node = &graph.nodes[n as usize];
        if node.def.purity != crate::node::Purity::Pure || node.volatile {
            return Err(format!("`{}` is not deterministic", node.def.name));
        }
        if !ready {
            todo.push((w, true));
            todo.extend(
                node.wires
                    .iter()
                    .filter(|p| !matches!(p, Wire::Node(p, _) if values.contains_key(p)))
                    .map(|&p| (p, false)),
            );
            continue;
        }
        let ins: Vec<Value> = node
            .wires
            .iter()
            .map(|p| match p {
                Wire::Node(p, port) => values[p][*port as usize].clone(),
                Wire::Input(_) => unreachable!("inputs were refused above"),
            })
            .collect();
        let outs = node.evaluate(&ins).map_err(|failure| format!("`{}` fails: {failure}", node.def.name))?;
        values.insert(n, outs);
    }
    let Wire::Node(n, port) = wire else { unreachable!("an input wire returned above") };
    let value = values[&n][port as usize].clone();
    if value.is_none() {
        return Err("it has no value (None)".to_string());
    }
    Ok(value)
}

/// A constant value given to parameter `param`, converted to its type the way
/// a literal would be ([`literal::fit`]).
fn typed_value(def: &NodeDef, param: &ParamSpec, v: Value, span: Span) -> Result<Value, CompileError> {
    if let (Value::Str(_), Ty::Is(PortType::Str) | Ty::Any) = (&v, param.ty) {
        // Already what the parameter takes: shared, not copied (a text pool is megabytes).
        return Ok(v);
    }
    let c = match &v {
        Value::U64(x) => ConstIr::U64(*x),
        Value::I64(x) => ConstIr::I64(*x),
        Value::F64(x) => ConstIr::F64(x.to_bits()),
        Value::Bool(b) => ConstIr::Bool(*b),
        Value::Str(s) => ConstIr::Str(s.to_string()),
        _ => {
            return match param.ty {
                Ty::Is(t) if v.port_type() != Some(t) => Err(CompileError::at(
                    span,
                    format!("parameter `{}` of `{}` expects a {t} constant, got {v}", param.name, def.name),
                )),
                _ => Ok(v),
            }
        }
    };
    typed_const(def, param, &c, span)
}

fn param_type(param: &ParamSpec, actual: PortType) -> PortType {
    match param.ty {
        Ty::Is(t) => t,
        Ty::Any => actual,
        Ty::Decimal if actual.decimal().is_some() => actual,
        // Not a decimal: the declared family's representative, which the
        // adapter pass reports as the mismatch it is.
        Ty::Decimal => PortType::DECIMAL_SAMPLE,
    }
}

fn typed_const(def: &NodeDef, param: &ParamSpec, c: &ConstIr, span: Span) -> Result<Value, CompileError> {
    match param.ty {
        Ty::Any | Ty::Decimal => literal::natural(c).map_err(|e| CompileError::at(span, e)),
        Ty::Is(t) => literal::fit(c, t).map_err(|misfit| {
            CompileError::at(
                span,
                format!("parameter '{}' of '{}' expects a {t} literal, got {}", param.name, def.name, misfit.got),
            )
            .hint(misfit.hint)
        }),
    }
}

/// Adds an anonymous constant node for a literal in a wire position.
pub(super) fn literal_node(graph: &mut Graph, value: Value, span: Span) -> Result<Wire, CompileError> {
    let def = &convert::LITERAL;
    let ty = value.port_type().ok_or_else(|| CompileError::at(span, "a literal cannot be None"))?;
    let node =
        GraphNode::build(def, vec![value], Vec::new(), Vec::new(), span).map_err(|e| CompileError::at(span, e))?;
    debug_assert_eq!(node.out_types, [ty]);
    Ok(graph.push(node))
}

/// Resolves `expr as T`: same type passes through; a class-A adapter or an
/// explicit parse node converts; anything else (e.g. `f64 as u64`) is an error.
fn resolve_cast(
    graph: &mut Graph,
    node: &NodeIr,
    ports: &[Vec<Wire>],
    events: &mut Vec<CompileEvent>,
) -> Result<Wire, CompileError> {
    let (wire, target) = match node.args.as_slice() {
        [value, ArgIr::Const(ConstIr::Str(t))] => (arg_wire(graph, value, ports, node.span)?, t),
        _ => return Err(CompileError::at(node.span, "malformed cast: expected a value and a type name")),
    };
    let to = PortType::from_keyword(target)
        .ok_or_else(|| CompileError::at(node.span, format!("unknown type '{target}'")))?;
    // An explicit cast is the user's request: allowed even in strict mode.
    cast_wire(graph, wire, to, node.span, events)
}

/// `wire` converted to `to` as an explicit `as` converts it: unchanged for
/// the same type, a class-A adapter, or a node of the cast catalog
/// (`convert::cast_node`, the one table `conversions(implicit=False)`
/// reports to frontends); anything else (e.g. `f64 as u64`) is an error.
pub(super) fn cast_wire(
    graph: &mut Graph,
    wire: Wire,
    to: PortType,
    span: Span,
    events: &mut Vec<CompileEvent>,
) -> Result<Wire, CompileError> {
    let from = graph.wire_type(wire);
    if from == to {
        return Ok(wire);
    }
    // A float becomes an integer only by a rounding the program names
    // (`round_to_u64`, `floor_to_u64`, ...): `as` never picks one.
    let rounding = matches!(from, PortType::F64 | PortType::F32 | PortType::F16) && to.is_integer();
    if rounding {
        return Err(CompileError::at(span, format!("cannot cast {from} to {to} with 'as'"))
            .hint(convert::conversion_hint(from, to)));
    }
    if convert::auto_adapter(from, to).is_some() {
        return coerce(graph, wire, to, false, span, &format!("cast to {to}"), events);
    }
    match convert::cast_node(from, to) {
        Some(def) => {
            // A decimal target's precision and scale, or the integer type a
            // 128-bit value narrows to, travel as the node's constant.
            let names_target = to.decimal().is_some() || crate::nodes::wide::needs_type_constant(def);
            let consts = if names_target { vec![Value::str(to.keyword())] } else { Vec::new() };
            let node =
                GraphNode::build(def, consts, vec![wire], vec![from], span).map_err(|e| CompileError::at(span, e))?;
            Ok(graph.push(node))
        }
        None => {
            Err(CompileError::at(span, format!("cannot cast {from} to {to}")).hint(convert::conversion_hint(from, to)))
        }
    }
}

/// The `resolve` pass: [`resolve_recovering`] of the context's IR, which
/// becomes the graph.
pub struct Resolve;

impl Pass for Resolve {
    fn name(&self) -> &'static str {
        "resolve"
    }

    fn run(&self, graph: &mut Graph, cx: &mut PassContext<'_>) -> Result<Option<String>, CompileError> {
        *graph = resolve_recovering(&cx.ir, &mut cx.events, &mut cx.errors)?;
        cx.stats.nodes_resolved = graph.nodes.len();
        Ok(Some(format!("{} node(s) typed", graph.nodes.len())))
    }

    fn recovers(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolved(src: &str) -> Result<(Graph, Vec<CompileEvent>), CompileError> {
        let mut events = Vec::new();
        let graph = resolve(&crate::compile::sketch::parse(src).unwrap(), &mut events)?;
        Ok((graph, events))
    }

    #[test]
    fn construction_constants_take_constant_expressions() {
        let (g, _) = resolved(
            "input cycle: u64\nconst users := 100000\nscale := u64_mul(users, 3)\nid := hash_range(cycle, scale)",
        )
        .unwrap();
        let node = g.nodes.iter().find(|n| n.def.name == "hash_range").unwrap();
        assert!(node.consts[0].same(&Value::U64(300_000)), "{:?}", node.consts);
        let (g, _) =
            resolved("input cycle: u64\nhalf := f64_div(1.0, 2.0)\ny := lerp(unit_interval(cycle), half, 2.0)")
                .unwrap();
        let node = g.nodes.iter().find(|n| n.def.name == "lerp").unwrap();
        assert!(node.consts[0].same(&Value::F64(0.5)));
        let (g, _) = resolved("input cycle: u64\nk := 7\ny := lerp(unit_interval(cycle), k, 9)").unwrap();
        let node = g.nodes.iter().find(|n| n.def.name == "lerp").unwrap();
        assert!(node.consts[0].same(&Value::F64(7.0)), "an integer constant widens like a literal");
    }

    #[test]
    fn a_constant_text_argument_is_shared_not_copied() {
        // Two calls given one computed text constant (a pool) hold that very
        // value: a megabytes pool is not copied per call.
        let (g, _) = resolved(
            "input cycle: u64\nconst pool := tpch_text_pool(0, 5000)\na := text_extract(pool, cycle, 1, 9)\nb := text_extract(pool, cycle, 2, 7)",
        )
        .unwrap();
        let texts: Vec<std::sync::Arc<str>> = g
            .nodes
            .iter()
            .filter(|n| n.def.name == "text_extract")
            .map(|n| match &n.consts[0] {
                Value::Str(s) => s.clone(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(texts.len(), 2);
        assert_eq!(texts[0].len(), 5000);
        assert!(std::sync::Arc::ptr_eq(&texts[0], &texts[1]), "one shared pool");
    }

    #[test]
    fn a_construction_constant_that_is_not_constant_is_refused_with_the_reason() {
        let err = resolved("input cycle: u64\nk := hash(cycle)\ny := mod(cycle, k)").err().expect("refused");
        assert!(err.message.contains("must be a constant expression, but it reads input 'cycle'"), "{}", err.message);
        assert!(err.hint.unwrap().contains("mod_wire"));
        let err = resolved("input cycle: u64\nk := current_epoch_millis()\ny := hash_range(cycle, k)")
            .err()
            .expect("refused");
        assert!(err.message.contains("not deterministic"), "{}", err.message);
        let err = resolved("input cycle: u64\nk := mod(5, 0)\ny := hash_range(cycle, k)").err().expect("refused");
        assert!(err.message.contains("fails: attempt to calculate the remainder"), "{}", err.message);
        let err = resolved("input cycle: u64\nk := \"x\"\ny := hash_range(cycle, k)").err().expect("refused");
        assert!(err.message.contains("expects a u64"), "{}", err.message);
    }

    #[test]
    fn constants_that_make_every_evaluation_fail_are_warned_about() {
        let (_, events) = resolved("input cycle: u64\n\ny := mod(cycle, 0)").unwrap();
        let w: Vec<_> = events.iter().filter(|e| e.kind == EventKind::NodeWarning).collect();
        assert_eq!(w.len(), 1);
        assert!(w[0].message.contains("`mod`: the divisor K is 0"), "{}", w[0].message);
        assert_eq!(w[0].span.unwrap().line, 3);
        assert!(w[0].kind.is_warning());
    }
}
