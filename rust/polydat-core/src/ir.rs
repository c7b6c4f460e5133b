//! The graph IR the frontend hands to the compiler: nodes with their op,
//! arguments (wires and constants, in parameter order) and source spans;
//! declared inputs; named outputs. It is plain data, serialised as JSON by the
//! Python binder. Resolution and type checking happen in `compile`.

use crate::types::PortType;
use crate::value::Value;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// A source position (1-based line and column).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Span {
    /// 1-based line (0 when unknown).
    pub line: u32,
    /// 1-based column (0 when unknown).
    pub col: u32,
}

/// The whole program graph.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct GraphIr {
    /// The declared inputs; coordinates come first.
    pub inputs: Vec<InputIr>,
    /// The nodes; wires name them by index.
    pub nodes: Vec<NodeIr>,
    /// The named outputs, one per binding.
    pub outputs: Vec<OutputIr>,
}

/// How an input slot is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InputKind {
    /// Written as a group by `set_inputs` (the leading prefix of inputs).
    Coordinate,
    /// Written by name with `set`; persists across cycles.
    Extern,
}

/// One declared or inferred input.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct InputIr {
    /// The input's name.
    pub name: String,
    /// The input's type (`type` in the JSON). A cell's slot may leave it
    /// out: it is the type of its `shared` binding's value, which the
    /// compiler types.
    #[serde(rename = "type", default = "cell_type_placeholder")]
    pub ty: PortType,
    /// Coordinate or extern.
    pub kind: InputKind,
    /// The value before any write; absent: the zero of its type for a coordinate, `None` for an extern.
    #[serde(default)]
    pub default: Option<ConstIr>,
    /// Where the default is written, when the frontend says (for its errors).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_span: Option<Span>,
    /// The declaration's source position (of the first read, for a free name).
    #[serde(default)]
    pub span: Span,
    /// A free name (read, never bound or declared): the compiler looks it up
    /// in the outer scope's manifest (auto-extern), else it stays an inferred
    /// coordinate — or, under `strict`, is refused.
    #[serde(default, skip_serializing_if = "is_false")]
    pub inferred: bool,
    /// The slot of a `shared` binding of the same name (its cell); the
    /// binding's value is the cell's one-time starting value.
    #[serde(default, skip_serializing_if = "is_false")]
    pub cell: bool,
    /// Where the slot comes from (set by the compiler, not by the frontend).
    #[serde(skip)]
    pub origin: InputOrigin,
}

/// The type a cell's slot has until its binding's value is typed.
fn cell_type_placeholder() -> PortType {
    PortType::U64
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// Where an input slot comes from, which decides how a scope-init binds it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InputOrigin {
    /// Declared in the program (`input`, `extern`): an extern an outer scope
    /// provides is bound from it, else it keeps its default.
    #[default]
    Declared,
    /// A free name no outer scope provides: an inferred coordinate.
    Inferred,
    /// A free name an outer scope provides (auto-extern): bound from it.
    Outer,
    /// An iteration variable: bound from the tuple of its activation.
    Iteration,
    /// The cell of a `shared` binding: attached to the outer scope's cell of
    /// the same name, or a new cell owned by this scope.
    Cell,
}

/// One node: `op` names a library node (or a compiler intrinsic such as `__cast`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct NodeIr {
    /// The library node (or intrinsic) name, or an alias.
    pub op: String,
    /// The arguments, in parameter order.
    pub args: Vec<ArgIr>,
    /// The call's source position.
    #[serde(default)]
    pub span: Span,
    /// Per argument, where it is written when that is not the call's
    /// position (a literal constant's own span, for its errors).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arg_spans: Vec<Option<Span>>,
}

/// An argument, in parameter order.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArgIr {
    /// A wire: an input or a node output.
    Wire(WireIr),
    /// A literal: fills a constant parameter, or becomes a literal node in a wire position.
    Const(ConstIr),
}

/// Where a wire comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WireIr {
    /// Input slot `i`.
    Input(usize),
    /// Output `port` of node `node`.
    Node {
        /** Index of the producing node. */
        node: usize,
        /** Output port of that node. */
        port: usize,
    },
}

/// A binding modifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Modifier {
    /// `const`: computed once and never recomputed; may not depend on a coordinate.
    Const,
    /// `shared`: a cell with a pinned type (`shared x: T := v`); recorded, not acted on, by the core.
    Shared,
    /// `volatile`: recomputed on every read.
    Volatile,
}

/// A named output (every binding is one).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct OutputIr {
    /// The binding's name.
    pub name: String,
    /// The wire the output reads.
    pub wire: WireIr,
    /// The binding's modifiers.
    #[serde(default)]
    pub modifiers: Vec<Modifier>,
    /// The binding's source position.
    #[serde(default)]
    pub span: Span,
}

/// A literal. `f64` travels as its IEEE bits so NaN, infinities and -0.0 survive JSON.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConstIr {
    /// An integer literal as written: the compiler types it for the slot it
    /// fills ([`crate::compile::literal::fit`]), or, where any type goes, as
    /// a `u64` (an `i64` when negative).
    Int(i128),
    /// A `u64` literal.
    U64(u64),
    /// An `i64` literal.
    I64(i64),
    /// An `f64` literal, as its IEEE bits.
    F64(u64),
    /// A `bool` literal.
    Bool(bool),
    /// A string literal.
    Str(String),
    /// A decimal literal (`12.34d`), as its digits (`"12.34"`, `"-0.5"`):
    /// its type is the narrowest `decimal(p, s)` holding it as written.
    Decimal(String),
}

/// The type of integer literals whose least is `low` and greatest `high`
/// (for one literal, both are its value): `u64` when none is negative, `i64`
/// when one is; `None` when they do not all fit that type. The one typing
/// rule of integer literals — in source, in comprehension values, in
/// workload parameters.
pub fn integer_literal_type(low: i128, high: i128) -> Option<PortType> {
    if low >= 0 {
        (high <= u64::MAX as i128).then_some(PortType::U64)
    } else {
        (low >= i64::MIN as i128 && high <= i64::MAX as i128).then_some(PortType::I64)
    }
}

impl ConstIr {
    /// The constant of integer literal `value`, typed by
    /// [`integer_literal_type`] (`None`: it fits neither `u64` nor `i64`).
    pub fn integer(value: i128) -> Option<ConstIr> {
        match integer_literal_type(value, value)? {
            PortType::U64 => Some(ConstIr::U64(value as u64)),
            _ => Some(ConstIr::I64(value as i64)),
        }
    }

    /// The literal as a runtime value (an [`ConstIr::Int`] that fits
    /// neither `u64` nor `i64` is `None`: the compiler refuses it first).
    pub fn to_value(&self) -> Value {
        match self {
            ConstIr::Int(v) => ConstIr::integer(*v).map_or(Value::None, |c| c.to_value()),
            ConstIr::U64(v) => Value::U64(*v),
            ConstIr::I64(v) => Value::I64(*v),
            ConstIr::F64(bits) => Value::F64(f64::from_bits(*bits)),
            ConstIr::Bool(b) => Value::Bool(*b),
            ConstIr::Str(s) => Value::Str(Arc::from(s.as_str())),
            ConstIr::Decimal(text) => crate::decimal::Decimal::parse_literal(text).map_or(Value::None, Value::Decimal),
        }
    }
}

impl GraphIr {
    /// Parses the JSON form.
    pub fn from_json(text: &str) -> Result<GraphIr, String> {
        serde_json::from_str(text).map_err(|e| format!("malformed graph IR: {e}"))
    }

    /// The JSON form.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("IR serialises")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_shape_is_stable() {
        let text = r#"{
          "inputs": [{"name": "cycle", "type": "u64", "kind": "coordinate", "span": {"line": 1, "col": 7}}],
          "nodes": [
            {"op": "hash", "args": [{"wire": {"input": 0}}], "span": {"line": 2, "col": 11}},
            {"op": "mod", "args": [{"wire": {"node": {"node": 0, "port": 0}}}, {"const": {"u64": 1000}}]}
          ],
          "outputs": [{"name": "id", "wire": {"node": {"node": 1, "port": 0}}, "modifiers": ["volatile"]}]
        }"#;
        let ir = GraphIr::from_json(text).unwrap();
        assert_eq!(ir.nodes.len(), 2);
        assert_eq!(ir.outputs[0].modifiers, vec![Modifier::Volatile]);
        assert!(matches!(ir.nodes[1].args[1], ArgIr::Const(ConstIr::U64(1000))));
        let again = GraphIr::from_json(&ir.to_json()).unwrap();
        assert_eq!(again.nodes[1].span, Span::default());
    }

    #[test]
    fn f64_bits_survive() {
        let c = ConstIr::F64((-0.0f64).to_bits());
        assert!(c.to_value().same(&Value::F64(-0.0)));
    }
}
