//! Auto-extern, the first pass when a program is compiled against an outer
//! scope (its manifest) or as the body of an iteration: every free name the
//! program reads (an input the frontend marked `inferred`) is looked up —
//!
//! * an iteration variable becomes an extern slot of the variable's type,
//!   filled from each activation's tuple;
//! * a name the outer manifest offers takes the form the manifest gives it:
//!   a literal is inlined (every read becomes the constant, so it folds and
//!   may fill a construction constant such as `mod`'s divisor); a coordinate
//!   stays a coordinate of this program's own; anything else becomes a typed
//!   extern slot that the binder fills at scope-init;
//! * a name nobody provides stays an inferred coordinate, or, under
//!   `strict`, is a compile error naming it (with "did you mean").
//!
//! Names in `keep` (the columns a workload emits) get a slot even when the
//! program does not read them, and so do iteration variables. Inputs end up
//! coordinates first, in their original order.

use super::graph::Graph;
use super::pass::{Pass, PassContext};
use crate::error::CompileError;
use crate::ir::{ArgIr, ConstIr, GraphIr, InputIr, InputKind, InputOrigin, NodeIr, Span, WireIr};
use crate::nodes::convert::LITERAL_OP;
use crate::program::events::{CompileEvent, EventKind};
use crate::program::manifest::{Form, Manifest};
use crate::types::PortType;
use crate::value::Value;
use std::borrow::Cow;

/// What a program is compiled against.
#[derive(Clone, Copy, Debug, Default)]
pub struct Surface<'a> {
    /// The outer scope's manifest.
    pub outer: Option<&'a Manifest>,
    /// The iteration variables of an iteration body, with their types.
    pub iteration: &'a [(String, PortType)],
    /// Names that get a slot even when unread.
    pub keep: &'a [String],
    /// A free name nobody provides is an error.
    pub strict: bool,
}

impl Surface<'_> {
    fn is_empty(&self) -> bool {
        self.outer.is_none() && self.iteration.is_empty() && self.keep.is_empty()
    }
}

/// The IR after auto-extern, and the outer literals it inlined.
pub struct Resolved {
    /// The rewritten IR.
    pub ir: GraphIr,
    /// `(name, value)` of every inlined outer literal.
    pub inlined: Vec<(String, Value)>,
}

/// Runs the pass; `None` when there is nothing to do (no outer scope, no
/// iteration, no free name under `strict`: the IR is used as it is).
pub fn apply(
    ir: &GraphIr,
    surface: &Surface<'_>,
    events: &mut Vec<CompileEvent>,
) -> Result<Option<Resolved>, CompileError> {
    let any_inferred = ir.inputs.iter().any(|i| i.inferred);
    if surface.is_empty() && !(surface.strict && any_inferred) {
        return Ok(None);
    }
    let mut ir = ir.clone();
    iteration_slots(&mut ir, surface.iteration)?;
    let mut inline: Vec<Option<ConstIr>> = vec![None; ir.inputs.len()];
    #[allow(clippy::needless_range_loop)] // `unresolved` reads the whole IR
    for i in 0..ir.inputs.len() {
        if !ir.inputs[i].inferred {
            continue;
        }
        ir.inputs[i].inferred = false;
        let name = ir.inputs[i].name.clone();
        match surface.outer.and_then(|m| m.get(&name)) {
            Some(entry) => match &entry.form {
                Form::Coordinate => {
                    let input = &mut ir.inputs[i];
                    input.kind = InputKind::Coordinate;
                    input.ty = entry.ty;
                    input.origin = InputOrigin::Inferred;
                }
                Form::Literal(c) if !surface.keep.contains(&name) => inline[i] = Some(c.clone()),
                _ => {
                    let input = &mut ir.inputs[i];
                    input.kind = InputKind::Extern;
                    input.ty = entry.ty;
                    input.default = None;
                    input.origin = InputOrigin::Outer;
                }
            },
            None if ir.inputs[i].kind == InputKind::Extern => {
                return Err(CompileError::at(
                    ir.inputs[i].span,
                    format!("'{name}' is read as an outer name, but no outer scope provides it"),
                ));
            }
            None if surface.strict => return Err(unresolved(&ir, surface, i)),
            None => ir.inputs[i].origin = InputOrigin::Inferred,
        }
    }
    keep_slots(&mut ir, surface, &mut inline)?;
    for (i, input) in ir.inputs.iter().enumerate() {
        let how = match (&inline[i], input.origin) {
            (Some(c), _) => format!("the outer literal {} is inlined", c.to_value().display_text()),
            (None, InputOrigin::Outer) => match surface.outer.and_then(|m| m.get(&input.name)).map(|e| &e.form) {
                Some(Form::Live) => "read live from the outer scope".to_string(),
                Some(Form::Cell) => "bound to the outer scope's shared cell".to_string(),
                _ => "copied from the outer scope at scope-init".to_string(),
            },
            (None, InputOrigin::Iteration) => "an iteration variable, bound from each tuple".to_string(),
            _ => continue,
        };
        let span = (input.span.line > 0).then_some(input.span);
        events.push(CompileEvent::new(EventKind::AutoExtern, span, format!("'{}' ({}): {how}", input.name, input.ty)));
    }
    let inlined = rewrite(&mut ir, &inline);
    Ok(Some(Resolved { ir, inlined }))
}

/// The error for free name `i` under `strict`.
fn unresolved(ir: &GraphIr, surface: &Surface<'_>, i: usize) -> CompileError {
    let name = &ir.inputs[i].name;
    let outer = surface.outer.into_iter().flat_map(Manifest::names);
    let local = ir.outputs.iter().map(|o| o.name.as_str()).chain(ir.inputs.iter().map(|i| i.name.as_str()));
    let candidates: Vec<&str> = outer.chain(local).filter(|n| n != name && !n.starts_with("__")).collect();
    let hint = crate::suggest::did_you_mean(name, candidates.iter().copied())
        .unwrap_or_else(|| format!("declare it (`input {name}`) or bind it"));
    let provided = if surface.outer.is_some() { ", and no outer scope provides it" } else { "" };
    CompileError::at(ir.inputs[i].span, format!("'{name}' is not bound or declared{provided} (strict mode)")).hint(hint)
}

/// Gives every iteration variable its extern slot.
fn iteration_slots(ir: &mut GraphIr, iteration: &[(String, PortType)]) -> Result<(), CompileError> {
    for (name, ty) in iteration {
        if let Some(out) = ir.outputs.iter().find(|o| &o.name == name) {
            return Err(CompileError::at(out.span, format!("'{name}' is an iteration variable; it cannot be bound"))
                .hint("each activation binds it from its tuple; pick another name"));
        }
        match ir.inputs.iter().position(|i| &i.name == name) {
            Some(i) => {
                let input = &mut ir.inputs[i];
                if !input.inferred && input.kind == InputKind::Coordinate {
                    return Err(CompileError::at(
                        input.span,
                        format!("'{name}' is an iteration variable; it cannot be declared an input"),
                    ));
                }
                if !input.inferred && input.ty != *ty {
                    return Err(CompileError::at(
                        input.span,
                        format!("'{name}' is declared {}, but the iteration gives it {ty} values", input.ty),
                    ));
                }
                input.inferred = false;
                input.kind = InputKind::Extern;
                input.ty = *ty;
                input.default = None;
                input.origin = InputOrigin::Iteration;
            }
            None => ir.inputs.push(slot(name, *ty, InputOrigin::Iteration)),
        }
    }
    Ok(())
}

/// Gives every kept name that neither the program binds nor an input is its slot.
fn keep_slots(ir: &mut GraphIr, surface: &Surface<'_>, inline: &mut Vec<Option<ConstIr>>) -> Result<(), CompileError> {
    for name in surface.keep {
        if ir.outputs.iter().any(|o| &o.name == name) || ir.inputs.iter().any(|i| &i.name == name) {
            continue;
        }
        match surface.outer.and_then(|m| m.get(name)) {
            Some(entry) if entry.form == Form::Coordinate => {
                return Err(CompileError::bare(format!(
                    "'{name}' is a coordinate of the outer scope: its rows' values are not bound into inner scopes"
                ))
                .hint("bind it to a name in the outer scope (`x := cycle`) or emit a name of this scope"));
            }
            Some(entry) => {
                ir.inputs.push(slot(name, entry.ty, InputOrigin::Outer));
                inline.push(None);
            }
            None => {
                let mut candidates: Vec<&str> = ir.outputs.iter().map(|o| o.name.as_str()).collect();
                candidates.extend(surface.outer.into_iter().flat_map(Manifest::names));
                let hint =
                    crate::suggest::did_you_mean(name, candidates.iter().copied().filter(|n| !n.starts_with("__")))
                        .unwrap_or_else(|| "emit a name this scope or an outer one binds".into());
                return Err(CompileError::bare(format!(
                    "'{name}' is neither bound in this scope nor provided by an outer one"
                ))
                .hint(hint));
            }
        }
    }
    Ok(())
}

fn slot(name: &str, ty: PortType, origin: InputOrigin) -> InputIr {
    InputIr {
        name: name.to_string(),
        ty,
        kind: InputKind::Extern,
        default: None,
        default_span: None,
        span: Span::default(),
        inferred: false,
        cell: false,
        origin,
    }
}

/// Drops the inlined inputs (their reads become the constant), puts the
/// coordinates first and renumbers every input wire; returns what was inlined.
fn rewrite(ir: &mut GraphIr, inline: &[Option<ConstIr>]) -> Vec<(String, Value)> {
    #[derive(Clone)]
    enum To {
        Input(usize),
        Const(ConstIr),
    }
    let mut to: Vec<To> = vec![To::Input(0); ir.inputs.len()];
    let mut inputs = Vec::with_capacity(ir.inputs.len());
    let mut inlined = Vec::new();
    let old = std::mem::take(&mut ir.inputs);
    for coordinates in [true, false] {
        for (i, input) in old.iter().enumerate() {
            if (input.kind == InputKind::Coordinate) != coordinates {
                continue;
            }
            match &inline[i] {
                Some(c) => {
                    inlined.push((input.name.clone(), c.to_value()));
                    to[i] = To::Const(c.clone());
                }
                None => {
                    to[i] = To::Input(inputs.len());
                    inputs.push(input.clone());
                }
            }
        }
    }
    ir.inputs = inputs;
    for node in &mut ir.nodes {
        for arg in &mut node.args {
            if let ArgIr::Wire(WireIr::Input(i)) = *arg {
                *arg = match &to[i] {
                    To::Input(j) => ArgIr::Wire(WireIr::Input(*j)),
                    To::Const(c) => ArgIr::Const(c.clone()),
                };
            }
        }
    }
    let mut literal_nodes: Vec<Option<usize>> = vec![None; to.len()];
    for o in 0..ir.outputs.len() {
        let WireIr::Input(i) = ir.outputs[o].wire else { continue };
        let wire = match &to[i] {
            To::Input(j) => WireIr::Input(*j),
            To::Const(c) => {
                let node = match literal_nodes[i] {
                    Some(n) => n,
                    None => {
                        let span = ir.outputs[o].span;
                        ir.nodes.push(NodeIr {
                            op: LITERAL_OP.into(),
                            args: vec![ArgIr::Const(c.clone())],
                            span,
                            arg_spans: Vec::new(),
                        });
                        literal_nodes[i] = Some(ir.nodes.len() - 1);
                        ir.nodes.len() - 1
                    }
                };
                WireIr::Node { node, port: 0 }
            }
        };
        ir.outputs[o].wire = wire;
    }
    inlined
}

/// The `outer` pass: [`apply`] with the options' outer manifest, iteration
/// variables and kept names; the rewritten IR replaces the one to resolve.
pub struct Outer;

impl Pass for Outer {
    fn name(&self) -> &'static str {
        "outer"
    }

    fn run(&self, _graph: &mut Graph, cx: &mut PassContext<'_>) -> Result<Option<String>, CompileError> {
        let options = cx.options;
        let surface = Surface {
            outer: options.outer.as_deref(),
            iteration: &options.iteration,
            keep: &options.keep,
            strict: options.strict_names,
        };
        if let Some(rewritten) = apply(&cx.ir, &surface, &mut cx.events)? {
            cx.ir = Cow::Owned(rewritten.ir);
            cx.inlined = rewritten.inlined;
        }
        Ok(None)
    }
}
