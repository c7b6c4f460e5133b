//! The node model: what a node declares (metadata, parameters, outputs, purity)
//! and how it evaluates. Every library node is one [`NodeDef`] in its own family
//! file under `nodes/`; its evaluation forms are built from the typed kits in
//! [`kit`], so one Rust closure is the single copy of the node's rule.

pub mod arguments;
pub mod by_bytes;
pub mod guard;
pub mod kit;
pub mod kit_text;
pub mod limit;
pub mod lower;
pub mod slot;
pub mod testing;

pub use testing::{Samples, Testing, Variadic, WiresFrom};

use crate::types::PortType;
use crate::value::Value;
use std::sync::Arc;

/// Whether a node's value is a function of its inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purity {
    /// Same inputs, same outputs: cacheable, foldable, fusable.
    Pure,
    /// Re-evaluated on every read that reaches it; never folded or cached.
    Nondeterministic,
    /// Pure value, but with an observable effect; pinned against dead-code elimination.
    SideChannel,
}

impl Purity {
    /// Lower-case name used in the catalog.
    pub fn name(self) -> &'static str {
        match self {
            Purity::Pure => "pure",
            Purity::Nondeterministic => "nondeterministic",
            Purity::SideChannel => "side_channel",
        }
    }
}

/// The `None` rule, the one statement of it for every engine and compile
/// pass: a node that does not accept `None` (`accepts_none` false) yields
/// `None` on every output, without running, when any of its inputs is
/// `None` (`inputs_none` says, per input, whether it is). A node without
/// inputs always runs.
#[inline]
pub fn yields_none(accepts_none: bool, inputs_none: impl IntoIterator<Item = bool>) -> bool {
    !accepts_none && inputs_none.into_iter().any(|none| none)
}

/// Whether a parameter is a wire (a value per cycle) or a construction constant
/// (a literal fixed when the node is built).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// A wire: a value per cycle.
    Wire,
    /// A construction constant: a literal fixed when the node is built.
    Const,
}

/// A parameter's declared type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// Exactly this port type (adapters may widen into it).
    Is(PortType),
    /// Value-polymorphic: any port type is accepted as is.
    Any,
    /// Any `decimal(p, s)`, accepted as is (the node's rule reads p and s).
    Decimal,
}

impl Ty {
    /// The type's name in signatures and the catalog: a keyword, `any` or
    /// `decimal`.
    pub fn name(self) -> std::borrow::Cow<'static, str> {
        match self {
            Ty::Is(t) => t.keyword(),
            Ty::Any => "any".into(),
            Ty::Decimal => "decimal".into(),
        }
    }
}

/// A literal default for a constant parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Lit {
    /// A `u64` default.
    U64(u64),
    /// An `f64` default.
    F64(f64),
    /// A string default.
    Str(&'static str),
    /// A `bool` default.
    Bool(bool),
}

impl Lit {
    /// The literal as a runtime value.
    pub fn to_value(self) -> Value {
        match self {
            Lit::U64(v) => Value::U64(v),
            Lit::F64(v) => Value::F64(v),
            Lit::Str(s) => Value::str(s),
            Lit::Bool(b) => Value::Bool(b),
        }
    }
}

/// One declared parameter of a node.
#[derive(Clone, Copy, Debug)]
pub struct ParamSpec {
    /// The parameter's name, as shown in signatures and messages.
    pub name: &'static str,
    /// Wire or construction constant.
    pub kind: ParamKind,
    /// The declared type.
    pub ty: Ty,
    /// The literal used when the argument is omitted (constant parameters only); `None`: required.
    pub default: Option<Lit>,
    /// Only the last parameter may be variadic: it takes zero or more arguments.
    pub variadic: bool,
}

impl ParamSpec {
    /// The parameter as argument matching sees it ([`arguments::match_arguments`]).
    pub fn matching(&self) -> arguments::Param<'static> {
        arguments::Param { name: self.name, variadic: self.variadic, optional: self.default.is_some() }
    }
}

/// A wire parameter of exactly type `ty`.
pub const fn wire(name: &'static str, ty: PortType) -> ParamSpec {
    ParamSpec { name, kind: ParamKind::Wire, ty: Ty::Is(ty), default: None, variadic: false }
}

/// A wire parameter of any `decimal(p, s)` type.
pub const fn wire_decimal(name: &'static str) -> ParamSpec {
    ParamSpec { name, kind: ParamKind::Wire, ty: Ty::Decimal, default: None, variadic: false }
}

/// A wire parameter of any type.
pub const fn wire_any(name: &'static str) -> ParamSpec {
    ParamSpec { name, kind: ParamKind::Wire, ty: Ty::Any, default: None, variadic: false }
}

/// A construction-constant parameter.
pub const fn konst(name: &'static str, ty: PortType) -> ParamSpec {
    ParamSpec { name, kind: ParamKind::Const, ty: Ty::Is(ty), default: None, variadic: false }
}

/// A construction-constant parameter with a default.
pub const fn konst_or(name: &'static str, ty: PortType, default: Lit) -> ParamSpec {
    ParamSpec { name, kind: ParamKind::Const, ty: Ty::Is(ty), default: Some(default), variadic: false }
}

/// Marks a parameter variadic.
pub const fn many(p: ParamSpec) -> ParamSpec {
    ParamSpec { variadic: true, ..p }
}

/// How a node's outputs are typed.
#[derive(Clone, Copy, Debug)]
pub enum Outputs {
    /// One output named `out`.
    One(PortType),
    /// Several named outputs.
    Named(&'static [(&'static str, PortType)]),
    /// One output typed like wire argument `i` (value-polymorphic nodes).
    SameAsWire(usize),
    /// One output typed like the last wire argument (`pick`, whose values
    /// follow its selectors).
    SameAsLastWire,
    /// One output per variadic constant argument (`mixed_radix`), named `d0, d1, ...`.
    PerVariadicConst(PortType),
    /// One output typed like constant argument `i` (the literal node).
    ConstType(usize),
    /// One output typed by the node's own rule over its constants and wire
    /// types (a decimal result's precision and scale); the node's `build`
    /// refuses the inputs the rule has no type for.
    Rule(fn(&[Value], &[PortType]) -> PortType),
}

/// A node failure: the node's own message, before attribution. One word
/// (a box), so a step's `Result<(), NodeError>` comes back in one register.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeError(Box<str>);

impl NodeError {
    /// A failure with this message.
    pub fn new(msg: impl Into<String>) -> NodeError {
        NodeError(msg.into().into_boxed_str())
    }

    /// The node's own message.
    pub fn message(&self) -> &str {
        &self.0
    }

    /// The message, taken.
    pub fn into_message(self) -> Box<str> {
        self.0
    }
}

impl From<String> for NodeError {
    fn from(s: String) -> Self {
        NodeError::new(s)
    }
}

/// The wire arguments of one evaluation: a view of the engine's value buffer
/// through the node's input indices (no copying).
pub struct Args<'a> {
    values: &'a [Value],
    index: &'a [u32],
}

impl<'a> Args<'a> {
    /// A view of `values` through `index`.
    pub fn new(values: &'a [Value], index: &'a [u32]) -> Args<'a> {
        Args { values, index }
    }

    /// Number of wire arguments.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// True when the node has no wire arguments.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// The `i`th wire argument.
    #[inline]
    pub fn get(&self, i: usize) -> &'a Value {
        &self.values[self.index[i] as usize]
    }

    /// All wire arguments, in order.
    pub fn iter(&self) -> impl Iterator<Item = &'a Value> + '_ {
        self.index.iter().map(move |&i| &self.values[i as usize])
    }
}

/// A built node instance: its constants are baked in.
pub trait NodeEval: Send + Sync {
    /// The P1 form: read `args`, write every element of `outs`.
    fn eval(&self, args: &Args<'_>, outs: &mut [Value]) -> Result<(), NodeError>;

    /// The P2 form over 64-bit slots, for nodes whose every wire is a scalar.
    fn slot_form(&self) -> Option<&dyn kit::SlotEval> {
        None
    }

    /// The P2 step form: a closure over an engine's flat word buffer that
    /// reads the words `ins` and writes `outs` consecutive words from `out`,
    /// with the node's rule inlined, so a step costs one indirect call. Kits
    /// derive it from the same closure as `eval` and `slot_form`; `None` lets
    /// the engine wrap `slot_form` instead.
    fn slot_step(self: Arc<Self>, ins: &[usize], out: usize, outs: usize) -> Option<kit::SlotStep> {
        let _ = (ins, out, outs);
        None
    }

    /// The P2 threaded step form, for a sweep: [`NodeEval::slot_step`] that
    /// may take inputs from the first outputs of the two steps before it,
    /// handed over in registers ([`kit::Src::handed`]), and once its outputs
    /// are written tail-calls the rest of its thread with its own first
    /// output and the one it was handed last ([`kit::ThreadStep::run`]). A
    /// run of such steps costs one indirect jump per step instead of a call,
    /// a return and a loop branch, and no store-to-load round trip between
    /// close neighbours. `None`: the node has no such form (the engine then
    /// wraps its plain step).
    fn threaded_step(self: Arc<Self>, ins: &[kit::Src], out: usize, outs: usize) -> Option<kit::ThreadStep> {
        let _ = (ins, out, outs);
        None
    }

    /// The P2 block form, for `generate`: the node's rule over up to
    /// [`kit::BLOCK`] rows at once, in a slot-major block buffer where the
    /// rows of a slot are consecutive words. `ins` and `out` are the first
    /// words of the input and output slots' rows. `None`: the node has no
    /// block form (its programs generate row by row).
    fn block_step(self: Arc<Self>, ins: &[usize], out: usize, outs: usize) -> Option<kit::BlockStep> {
        let _ = (ins, out, outs);
        None
    }

    /// The by-bytes form ([`by_bytes::BytesEval`]), for a node with one
    /// by-reference output: its rule over the inputs' slot words and bytes,
    /// writing the output's bytes into a reused buffer, so P2 and P3 run a
    /// string step with no `Value` in between. `None`: the engines run the
    /// node through the generic slot kit (decode, P1 form, encode).
    fn bytes_form(&self) -> Option<&dyn by_bytes::BytesEval> {
        None
    }

    /// The table of a node whose one output is string number `input 0` of
    /// a table (an index past it fails): `generate` then keeps the index
    /// word of each row and copies the strings a batch at a time, with no
    /// by-bytes step per row. `None` for every other node.
    fn indexed_table(&self) -> Option<&std::sync::Arc<by_bytes::StrTable>> {
        None
    }
}

/// What a node's `build` function receives: the constants (in parameter order,
/// variadic constants last, defaults filled in) and the resolved wire types.
pub struct BuildCtx<'a> {
    /// The constants, in parameter order (variadic constants last, defaults filled in).
    pub consts: &'a [Value],
    /// The resolved type of each wire argument, in order.
    pub wire_types: &'a [PortType],
}

impl BuildCtx<'_> {
    /// Constant `i` as u64.
    pub fn u64(&self, i: usize) -> u64 {
        match &self.consts[i] {
            Value::U64(v) => *v,
            Value::F64(v) => *v as u64,
            _ => 0,
        }
    }

    /// Constant `i` as f64.
    pub fn f64(&self, i: usize) -> f64 {
        match &self.consts[i] {
            Value::F64(v) => *v,
            Value::U64(v) => *v as f64,
            _ => 0.0,
        }
    }

    /// Constant `i` as a string.
    pub fn str(&self, i: usize) -> &str {
        self.consts[i].as_str().unwrap_or("")
    }

    /// Constants from index `i` on (the variadic tail).
    pub fn tail(&self, i: usize) -> &[Value] {
        self.consts.get(i..).unwrap_or(&[])
    }

    /// Constants from index `i` on as shared strings (a string node's
    /// variadic tail; a constant that is not a string is empty).
    pub fn strings(&self, i: usize) -> Vec<std::sync::Arc<str>> {
        self.tail(i).iter().map(|v| std::sync::Arc::from(v.as_str().unwrap_or(""))).collect()
    }
}

/// Builds a node instance from its constants; errors are construction errors.
pub type BuildFn = fn(&BuildCtx<'_>) -> Result<Box<dyn NodeEval>, String>;

/// The one definition of a library node.
#[derive(Clone, Copy)]
pub struct NodeDef {
    /// The name programs call the node by.
    pub name: &'static str,
    /// Other names that resolve to this node.
    pub aliases: &'static [&'static str],
    /// Family (hash, arithmetic, string, ...), for the catalog.
    pub category: &'static str,
    /// One line of documentation.
    pub doc: &'static str,
    /// The declared parameters, in order.
    pub params: &'static [ParamSpec],
    /// How the outputs are typed.
    pub outputs: Outputs,
    /// Whether the node's value is a function of its inputs.
    pub purity: Purity,
    /// True when the node is evaluated even with `None` inputs.
    pub accepts_none: bool,
    /// True when the node may yield `None` from inputs none of which is
    /// `None` (`maybe`). Every other node yields `None` only from a `None`
    /// it reads, which lets the engines and the output schemas tell which
    /// values can never be absent ([`crate::program::Program::may_be_none`]).
    pub makes_none: bool,
    /// The node chooses between two branches: wire 0 (a u64 condition)
    /// picks wire 1 when nonzero, else wire 2, and its value is the picked
    /// wire's. Every engine evaluates only the branch taken
    /// (`program::branches`).
    pub chooses: bool,
    /// Builds a node instance from its constants and wire types.
    pub build: BuildFn,
    /// A warning about constants that build but make the node useless (a
    /// divisor of 0: every evaluation fails). The compiler reports it at
    /// `check` and `compile`; the node keeps its run-time semantics.
    pub warns: WarnFn,
    /// A warning about wires fed by literal constants that make every
    /// evaluation fail (a wire divisor of 0): the value of each wire that
    /// is a literal, `None` for the others. Reported as [`NodeDef::warns`]
    /// is, so `pragma strict_values` refuses it.
    pub wire_warns: WireWarnFn,
    /// The node's native form for the native tier ([`lower`]); `None`: it
    /// runs in native code as a call into its slot form.
    pub lower: Option<lower::LowerFn>,
    /// The node a failure of this one names, when not itself: a node only
    /// fusion makes names the node the user wrote (`None`: [`NodeDef::name`]).
    pub reports_as: Option<&'static str>,
    /// The hint when a construction constant is given something that is not
    /// a constant expression, when the node has a better one than the
    /// general advice (a sibling node that takes the value from a wire).
    pub not_constant_hint: Option<&'static str>,
    /// The node a call of this one without its first (wire) argument means:
    /// a sampler called without its unit input is its lookup table
    /// (`dist_normal(72.0, 5.0)` is `dist_normal_table(72.0, 5.0)`, which
    /// `lut_sample` reads). `None`: no such form.
    pub without_input: Option<&'static str>,
    /// What the generated test suites need to know beyond the signature:
    /// sensible constants, variadic counts, a hand-written corner call
    /// ([`testing::Testing`]; `Testing::BASE`: nothing special).
    pub testing: testing::Testing,
}

/// Inspects a node's constants for a warning (see [`NodeDef::warns`]).
pub type WarnFn = fn(&BuildCtx<'_>) -> Option<String>;

/// Inspects the literal values on a node's wires for a warning (see [`NodeDef::wire_warns`]).
pub type WireWarnFn = fn(&[Option<&Value>]) -> Option<String>;

fn no_wire_warning(_: &[Option<&Value>]) -> Option<String> {
    None
}

fn no_warning(_: &BuildCtx<'_>) -> Option<String> {
    None
}

fn unbuildable(_: &BuildCtx<'_>) -> Result<Box<dyn NodeEval>, String> {
    Err("node has no evaluation".into())
}

impl NodeDef {
    /// Field defaults for `..NodeDef::BASE` in node definitions.
    pub const BASE: NodeDef = NodeDef {
        name: "",
        aliases: &[],
        category: "",
        doc: "",
        params: &[],
        outputs: Outputs::One(PortType::U64),
        purity: Purity::Pure,
        accepts_none: false,
        makes_none: false,
        chooses: false,
        build: unbuildable,
        warns: no_warning,
        wire_warns: no_wire_warning,
        lower: None,
        reports_as: None,
        not_constant_hint: None,
        without_input: None,
        testing: testing::Testing::BASE,
    };

    /// Whether the node has a native form: the native tier compiles its rule
    /// into machine code rather than calling its rule as a helper. The one
    /// answer `polydat nodes` shows.
    pub fn runs_natively(&self) -> bool {
        self.lower.is_some() && self.purity == Purity::Pure
    }

    /// The node name a failure of this node reports (see [`NodeDef::reports_as`]).
    pub fn reported_name(&self) -> &'static str {
        self.reports_as.unwrap_or(self.name)
    }

    /// The output types of a node of this definition built with `consts`
    /// (in parameter order, variadic last) over wires of `in_types`.
    pub fn output_types(&self, consts: &[Value], in_types: &[PortType]) -> Vec<PortType> {
        match self.outputs {
            Outputs::One(t) => vec![t],
            Outputs::Named(list) => list.iter().map(|(_, t)| *t).collect(),
            Outputs::SameAsWire(i) => vec![in_types.get(i).copied().unwrap_or(PortType::U64)],
            Outputs::SameAsLastWire => vec![in_types.last().copied().unwrap_or(PortType::U64)],
            Outputs::PerVariadicConst(t) => {
                let fixed = self.const_params().filter(|p| !p.variadic).count();
                vec![t; consts.len().saturating_sub(fixed)]
            }
            Outputs::ConstType(i) => vec![consts.get(i).and_then(Value::port_type).unwrap_or(PortType::U64)],
            Outputs::Rule(rule) => vec![rule(consts, in_types)],
        }
    }

    /// The wire parameters, in order.
    pub fn wire_params(&self) -> impl Iterator<Item = &ParamSpec> {
        self.params.iter().filter(|p| p.kind == ParamKind::Wire)
    }

    /// The constant parameters, in order.
    pub fn const_params(&self) -> impl Iterator<Item = &ParamSpec> {
        self.params.iter().filter(|p| p.kind == ParamKind::Const)
    }

    /// A human-readable signature, e.g. `mod(x: u64, K: const u64) -> u64`.
    pub fn signature(&self) -> String {
        let params: Vec<String> = self
            .params
            .iter()
            .map(|p| {
                let ty = p.ty.name();
                let konst = if p.kind == ParamKind::Const { "const " } else { "" };
                let dots = if p.variadic { "..." } else { "" };
                let default = match p.default {
                    Some(Lit::U64(v)) => format!(" = {v}"),
                    Some(Lit::F64(v)) => format!(" = {v:?}"),
                    Some(Lit::Str(s)) => format!(" = {s:?}"),
                    Some(Lit::Bool(b)) => format!(" = {b}"),
                    None => String::new(),
                };
                format!("{}{dots}: {konst}{ty}{default}", p.name)
            })
            .collect();
        let outs = match self.outputs {
            Outputs::One(t) => t.keyword().to_string(),
            Outputs::Named(list) => {
                let v: Vec<String> = list.iter().map(|(n, t)| format!("{n}: {t}")).collect();
                format!("({})", v.join(", "))
            }
            Outputs::SameAsWire(_) | Outputs::SameAsLastWire | Outputs::ConstType(_) => "any".to_string(),
            Outputs::Rule(_) => "decimal".to_string(),
            Outputs::PerVariadicConst(t) => format!("({t}...)"),
        };
        format!("{}({}) -> {}", self.name, params.join(", "), outs)
    }
}
