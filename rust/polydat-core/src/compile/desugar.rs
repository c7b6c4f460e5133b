//! Desugaring, the typing of operators: the frontend writes every operator,
//! `if` and typed boundary as a generic node (`__add`, `__lt`, `__if`,
//! `__coerce`, ...) and this stage, run by [`super::resolve`] as soon as the
//! operands are typed, picks the library node their types call for
//! (`u64_add`, `i64_sub`, `f64_lt`, `str_concat`, `select_str`, ...).
//!
//! The rules, by operand type:
//!
//! * `+ - * / %`: `u64_*` for two u64, `i64_*` for two i64, `f64_*` when a
//!   side is f64 (the other one widened); a `+` spine with a str operand is
//!   one `str_concat` of every operand of the spine (upstream's flattening).
//!   A zero divisor makes `/` and `%` give 0, except under `pragma
//!   strict_values` (the frontend's [`STRICT_VALUES_MARK`]), where they are
//!   the `_strict` nodes (`u64_div_strict`, ...) and the row fails; a literal
//!   zero divisor is an error at the literal.
//! * `**`: `pow` (f64). `& | ^ << >>`: `u64_and/or/xor/shl/shr`.
//! * `== !=`: `str_eq/ne` when a side is str; else by the numeric family (a
//!   bool is a u64 0/1 here). `< > <= >=`: by the numeric family.
//! * over a `date` or `timestamp` ([`calendar`]): `+ -` of a whole count
//!   (days, milliseconds) and `-` of two (`date_add_days`,
//!   `timestamp_diff_ms`, ...), comparisons as `i64` counts.
//! * `&& ||`: `u64_and`/`u64_or` of each side reduced to `side != 0`.
//! * prefix `-`: `0 - x` (`f64_sub`, or `i64_sub` for an i64); prefix `!`:
//!   `u64_not`, or the logical not `u64_eq(b, 0)` of a bool.
//! * `if`: `select_str` when a branch is str, `select_f64` when one is f64,
//!   `select_u64` for u64s (two bool branches give a bool), `select_i64` for
//!   two i64s, `select_any` for two values of another one type (dates,
//!   timestamps, bytes, json; two decimals as the type that holds both).
//! * `__coerce`: a value given where a type is declared (a module's
//!   parameter or output, an annotated binding): the class-A adapter, or an
//!   error in the declaration's words.
//!
//! A literal operand takes the other operand's type where it fits
//! ([`super::literal::fit`]): `x - 20000` with `x: i64` is `i64_sub`,
//! `x + 1` with `x: f64` adds the float 1. Errors name the operator and
//! both types, at the operator's span. The nodes chosen read their
//! operands as typed; the adapter pass that follows widens a mixed operand.

mod calendar;

use super::adapters::coerce;
use super::graph::{Graph, GraphNode, Wire};
use super::literal;
use super::resolve::{arg_wire, cast_wire, literal_node};
use crate::error::CompileError;
use crate::ir::{ArgIr, ConstIr, GraphIr, NodeIr, Span, WireIr};
use crate::node::Ty;
use crate::nodes::{self, convert::conversion_hint};
use crate::program::events::CompileEvent;
use crate::types::PortType::{self, Bool, Str, F64, I64, U64};
use crate::value::Value;

/// The op of an inner `+` of a spine: typed with the spine's top `__add`,
/// which reads it, never on its own.
pub const SPINE_PART_OP: &str = "__add_part";

/// The op of a typed boundary: `__coerce(value, "type", "what is declared")`.
pub const COERCE_OP: &str = "__coerce";

/// A generic operator of the frontend's IR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operator {
    /// `+` (the top of a spine).
    Add,
    /// `-`.
    Sub,
    /// `*`.
    Mul,
    /// `/`.
    Div,
    /// `%`.
    Mod,
    /// `**`.
    Pow,
    /// `&`.
    BitAnd,
    /// `|`.
    BitOr,
    /// `^`.
    BitXor,
    /// `<<`.
    Shl,
    /// `>>`.
    Shr,
    /// `==`.
    Eq,
    /// `!=`.
    Ne,
    /// `<`.
    Lt,
    /// `>`.
    Gt,
    /// `<=`.
    Le,
    /// `>=`.
    Ge,
    /// `&&`.
    And,
    /// `||`.
    Or,
    /// Prefix `-`.
    Neg,
    /// Prefix `!`.
    Not,
    /// `if cond { a } else { b }`.
    If,
}

/// Every operator with its IR op and its source symbol.
const OPERATORS: &[(Operator, &str, &str)] = &[
    (Operator::Add, "__add", "+"),
    (Operator::Sub, "__sub", "-"),
    (Operator::Mul, "__mul", "*"),
    (Operator::Div, "__div", "/"),
    (Operator::Mod, "__mod", "%"),
    (Operator::Pow, "__pow", "**"),
    (Operator::BitAnd, "__bitand", "&"),
    (Operator::BitOr, "__bitor", "|"),
    (Operator::BitXor, "__bitxor", "^"),
    (Operator::Shl, "__shl", "<<"),
    (Operator::Shr, "__shr", ">>"),
    (Operator::Eq, "__eq", "=="),
    (Operator::Ne, "__ne", "!="),
    (Operator::Lt, "__lt", "<"),
    (Operator::Gt, "__gt", ">"),
    (Operator::Le, "__le", "<="),
    (Operator::Ge, "__ge", ">="),
    (Operator::And, "__and", "&&"),
    (Operator::Or, "__or", "||"),
    (Operator::Neg, "__neg", "-"),
    (Operator::Not, "__not", "!"),
    (Operator::If, "__if", "if"),
];

impl Operator {
    /// The operator an IR op names, if it names one.
    pub fn of(op: &str) -> Option<Operator> {
        OPERATORS.iter().find(|(_, name, _)| *name == op).map(|(o, _, _)| *o)
    }

    /// The IR op of the operator.
    pub fn op(self) -> &'static str {
        OPERATORS.iter().find(|(o, _, _)| *o == self).map_or("?", |(_, name, _)| name)
    }

    /// The operator as written in source.
    pub fn symbol(self) -> &'static str {
        OPERATORS.iter().find(|(o, _, _)| *o == self).map_or("?", |(_, _, s)| s)
    }

    /// The node-name suffix of an arithmetic or comparison operator.
    fn suffix(self) -> &'static str {
        match self {
            Operator::Add => "add",
            Operator::Sub => "sub",
            Operator::Mul => "mul",
            Operator::Div => "div",
            Operator::Mod => "mod",
            Operator::Eq => "eq",
            Operator::Ne => "ne",
            Operator::Lt => "lt",
            Operator::Gt => "gt",
            Operator::Le => "le",
            Operator::Ge => "ge",
            Operator::BitAnd => "and",
            Operator::BitOr => "or",
            Operator::BitXor => "xor",
            Operator::Shl => "shl",
            Operator::Shr => "shr",
            _ => "",
        }
    }
}

/// One typed operand: its wire, and the literal it is when it is one (a
/// literal may take the other operand's type).
#[derive(Clone)]
struct Operand {
    wire: Wire,
    literal: Option<ConstIr>,
    /// The operand is the only reader of its literal node: a fitted literal
    /// replaces the node in place rather than adding one beside it.
    sole: bool,
}

/// The last argument of a `__div` or `__mod` the frontend lowered under
/// `pragma strict_values`: a zero divisor on its wire fails the row
/// (`u64_div_strict`, ...) instead of giving 0.
pub const STRICT_VALUES_MARK: &str = "strict_values";

/// What `/` or `%` does when its divisor is 0.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ZeroDivisor {
    /// The result is 0 (`u64_div`, `i64_mod`, `f64_div`, ...).
    GivesZero,
    /// The evaluation fails (`u64_div_strict`, ..., under `pragma strict_values`).
    Fails,
}

/// What the stage reads: the IR (to see literals and spine parts), the
/// wires resolved so far, and where events go.
pub struct Desugar<'a> {
    /// The frontend's IR.
    pub ir: &'a GraphIr,
    /// The graph wires of each IR node resolved so far.
    pub ports: &'a [Vec<Wire>],
    /// How many arguments and outputs read each IR node ([`reader_counts`]).
    pub readers: &'a [u32],
    /// The compilation's events (adapters inserted for a `__coerce`).
    pub events: &'a mut Vec<CompileEvent>,
}

impl Desugar<'_> {
    /// Lowers IR node `node`, generic operator `operator`, into library
    /// nodes of `graph`; returns its output wires.
    pub fn operator(
        &mut self,
        graph: &mut Graph,
        node: &NodeIr,
        operator: Operator,
    ) -> Result<Vec<Wire>, CompileError> {
        if operator == Operator::Add {
            return Ok(vec![self.spine(graph, node)?]);
        }
        let span = node.span;
        let (args, strict_values) = match node.args.split_last() {
            Some((ArgIr::Const(ConstIr::Str(mark)), rest))
                if mark == STRICT_VALUES_MARK && matches!(operator, Operator::Div | Operator::Mod) =>
            {
                (rest, true)
            }
            _ => (node.args.as_slice(), false),
        };
        let operands = args.iter().map(|arg| self.operand(graph, arg, span)).collect::<Result<Vec<_>, _>>()?;
        let arity = match operator {
            Operator::Neg | Operator::Not => 1,
            Operator::If => 3,
            _ => 2,
        };
        if operands.len() != arity {
            return Err(CompileError::at(
                span,
                format!("malformed operator `{}`: expected {arity} operand(s), got {}", operator.op(), operands.len()),
            ));
        }
        let wire = match operator {
            Operator::Neg => negate(graph, &operands[0], span)?,
            Operator::Not => not(graph, &operands[0], span)?,
            Operator::If => select(graph, &operands, span, self.events)?,
            Operator::And | Operator::Or => {
                let left = truthiness(graph, operator, &operands[0], span)?;
                let right = truthiness(graph, operator, &operands[1], span)?;
                let name = if operator == Operator::And { "u64_and" } else { "u64_or" };
                emit(graph, name, vec![left, right], span)?
            }
            Operator::Div | Operator::Mod => {
                self.refuse_literal_zero_divisor(operator, node, &operands[1])?;
                let on_zero = if strict_values && operands[1].literal.is_none() {
                    ZeroDivisor::Fails
                } else {
                    ZeroDivisor::GivesZero
                };
                division(graph, operator, &operands[0], &operands[1], on_zero, span)?
            }
            _ => binary(graph, operator, &operands[0], &operands[1], span)?,
        };
        Ok(vec![wire])
    }

    /// A literal zero divisor of `/` or `%` is an error at the literal: the
    /// operator would give 0 on every row (or, under `pragma strict_values`,
    /// fail every row).
    fn refuse_literal_zero_divisor(
        &self,
        operator: Operator,
        node: &NodeIr,
        divisor: &Operand,
    ) -> Result<(), CompileError> {
        let Some(literal) = &divisor.literal else { return Ok(()) };
        let zero = match literal {
            ConstIr::Int(v) => *v == 0,
            ConstIr::U64(v) => *v == 0,
            ConstIr::I64(v) => *v == 0,
            ConstIr::F64(bits) => f64::from_bits(*bits) == 0.0,
            ConstIr::Decimal(text) => text.bytes().all(|b| matches!(b, b'0' | b'.' | b'-')),
            ConstIr::Bool(_) | ConstIr::Str(_) => false,
        };
        if !zero {
            return Ok(());
        }
        let span = match node.args.get(1) {
            Some(ArgIr::Wire(WireIr::Node { node: literal, .. })) => self.ir.nodes.get(*literal).map(|n| n.span),
            _ => node.arg_spans.get(1).copied().flatten(),
        };
        let symbol = operator.symbol();
        Err(CompileError::at(
            span.unwrap_or(node.span),
            format!("the divisor of '{symbol}' is the literal 0: every row would be 0"),
        )
        .hint(format!(
            "a zero divisor makes '{symbol}' give 0 (under pragma strict_values, fail); divide by a nonzero value"
        )))
    }

    /// Resolves `__coerce(value, "type", "what"[, "lead"])`: the value
    /// converted to the declared type by a class-A adapter, or an error in the
    /// words of the declaration (`what`, e.g. `'n' is declared u64`). A literal
    /// value is fitted to the type ([`literal::fit`]); one that does not fit is
    /// reported as `lead` and the literal (by default `what` + ` but its value
    /// is `: `'n' is declared u64 but its value is a float literal 1.5`).
    pub fn coerce(&mut self, graph: &mut Graph, node: &NodeIr) -> Result<Vec<Wire>, CompileError> {
        let span = node.span;
        let (arg, target, what, lead) = match node.args.as_slice() {
            [value, ArgIr::Const(ConstIr::Str(t)), ArgIr::Const(ConstIr::Str(what)), rest @ ..] => {
                let lead = match rest {
                    [] => format!("{what} but its value is "),
                    [ArgIr::Const(ConstIr::Str(lead))] => lead.clone(),
                    _ => return Err(CompileError::at(span, "malformed coercion: too many arguments")),
                };
                (value, t, what, lead)
            }
            _ => return Err(CompileError::at(span, "malformed coercion: expected a value, a type name and a text")),
        };
        let to =
            PortType::from_keyword(target).ok_or_else(|| CompileError::at(span, format!("unknown type '{target}'")))?;
        let operand = self.operand(graph, arg, span)?;
        if let Some(c) = &operand.literal {
            return match literal::fit(c, to) {
                Ok(value) => Ok(vec![settle_literal(graph, &operand, value, span)?]),
                Err(misfit) => Err(CompileError::at(span, format!("{lead}{}", misfit.got)).hint(misfit.hint)),
            };
        }
        let wire = operand.wire;
        let from = graph.wire_type(wire);
        if from == to {
            return Ok(vec![wire]);
        }
        if crate::nodes::convert::auto_adapter(from, to).is_none() {
            return Err(
                CompileError::at(span, format!("{what} but the value is {from}")).hint(conversion_hint(from, to))
            );
        }
        // A declaration converts like an explicit `as`: allowed in strict mode too.
        Ok(vec![coerce(graph, wire, to, false, span, what, self.events)?])
    }

    /// The graph wire of IR wire `w`.
    fn wire(&self, graph: &Graph, w: WireIr, span: Span) -> Result<Wire, CompileError> {
        super::resolve::wire_of(graph, w, self.ports, span)
    }

    /// One argument as an operand: its wire, with the literal it is when its
    /// producer is a literal node (a constant argument becomes one).
    fn operand(&self, graph: &mut Graph, arg: &ArgIr, span: Span) -> Result<Operand, CompileError> {
        match arg {
            ArgIr::Wire(w) => {
                let sole = matches!(w, WireIr::Node { node, .. } if self.readers.get(*node) == Some(&1));
                Ok(Operand { wire: self.wire(graph, *w, span)?, literal: self.literal(*w), sole })
            }
            ArgIr::Const(c) => {
                Ok(Operand { wire: arg_wire(graph, arg, self.ports, span)?, literal: Some(c.clone()), sole: true })
            }
        }
    }

    /// The constant of the literal node IR wire `w` reads, if it reads one.
    fn literal(&self, w: WireIr) -> Option<ConstIr> {
        let WireIr::Node { node, port: 0 } = w else { return None };
        let producer = self.ir.nodes.get(node)?;
        match (producer.op.as_str(), producer.args.as_slice()) {
            (nodes::convert::LITERAL_OP, [ArgIr::Const(c)]) => Some(c.clone()),
            _ => None,
        }
    }

    /// A `+` spine, `node` its top: one `str_concat` of every leaf when one
    /// is a str, else the binary additions in the order written.
    fn spine(&self, graph: &mut Graph, node: &NodeIr) -> Result<Wire, CompileError> {
        let mut leaves = Vec::new();
        self.leaves(graph, node, &mut leaves)?;
        if leaves.iter().any(|l| graph.wire_type(l.wire) == Str) {
            return emit(graph, "str_concat", leaves.into_iter().map(|l| l.wire).collect(), node.span);
        }
        let mut leaves = leaves.into_iter();
        self.fold(graph, node, &mut leaves).map(|o| o.wire)
    }

    /// The leaves of the spine under `node`, left to right (a work list, not
    /// recursion: a spine of thousands of `+` is as deep).
    fn leaves(&self, graph: &mut Graph, node: &NodeIr, out: &mut Vec<Operand>) -> Result<(), CompileError> {
        let mut work: Vec<&ArgIr> = node.args.iter().rev().collect();
        while let Some(arg) = work.pop() {
            match self.part(arg) {
                Some(part) => work.extend(part.args.iter().rev()),
                None => out.push(self.operand(graph, arg, node.span)?),
            }
        }
        Ok(())
    }

    /// The spine part IR argument `arg` reads, if it reads one.
    fn part(&self, arg: &ArgIr) -> Option<&NodeIr> {
        match arg {
            ArgIr::Wire(WireIr::Node { node, .. }) => self.ir.nodes.get(*node).filter(|n| n.op == SPINE_PART_OP),
            _ => None,
        }
    }

    /// The numeric additions of the spine under `node`, each typed at its
    /// own `+` (its span), taking the leaves in order (a work list, as
    /// [`Self::leaves`]).
    fn fold(
        &self,
        graph: &mut Graph,
        node: &NodeIr,
        leaves: &mut impl Iterator<Item = Operand>,
    ) -> Result<Operand, CompileError> {
        enum Step<'n> {
            Visit(&'n NodeIr),
            Leaf,
            Add(Span),
        }
        let mut work = vec![Step::Visit(node)];
        let mut values: Vec<Operand> = Vec::new();
        while let Some(step) = work.pop() {
            match step {
                Step::Visit(n) => {
                    if n.args.len() != 2 {
                        return Err(CompileError::at(n.span, "malformed operator `__add`: expected 2 operands"));
                    }
                    work.push(Step::Add(n.span));
                    work.extend(n.args.iter().rev().map(|arg| self.part(arg).map_or(Step::Leaf, Step::Visit)));
                }
                Step::Leaf => values.push(leaves.next().expect("one leaf per non-part argument")),
                Step::Add(span) => {
                    let right = values.pop().expect("two operands per addition");
                    let left = values.pop().expect("two operands per addition");
                    let wire = binary(graph, Operator::Add, &left, &right, span)?;
                    values.push(Operand { wire, literal: None, sole: false });
                }
            }
        }
        Ok(values.pop().expect("the spine's sum"))
    }
}

/// How many node arguments and outputs of `ir` read each of its nodes.
pub fn reader_counts(ir: &GraphIr) -> Vec<u32> {
    let mut readers = vec![0u32; ir.nodes.len()];
    let wires = ir.nodes.iter().flat_map(|n| n.args.iter()).filter_map(|a| match a {
        ArgIr::Wire(w) => Some(*w),
        ArgIr::Const(_) => None,
    });
    for w in wires.chain(ir.outputs.iter().map(|o| o.wire)) {
        if let WireIr::Node { node, .. } = w {
            if let Some(r) = readers.get_mut(node) {
                *r += 1;
            }
        }
    }
    readers
}

/// A numeric family: the prefix of the nodes an operator becomes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Family {
    U64,
    I64,
    /// `u128`: its own nodes (`u128_add`, ...); a narrower unsigned
    /// integer beside one widens into it.
    U128,
    /// `i128`: its own nodes (`i128_add`, ...); a narrower integer beside
    /// one widens into it.
    I128,
    F64,
    /// Any `decimal(p, s)`: `+ - *` and comparisons only, never mixed with
    /// another family (the `decimal_*` nodes type the result).
    Decimal,
}

impl Family {
    fn prefix(self) -> &'static str {
        match self {
            Family::U64 => "u64",
            Family::I64 => "i64",
            Family::U128 => "u128",
            Family::I128 => "i128",
            Family::F64 => "f64",
            Family::Decimal => "decimal",
        }
    }

    fn of(ty: PortType) -> Option<Family> {
        match ty {
            U64 => Some(Family::U64),
            I64 => Some(Family::I64),
            F64 => Some(Family::F64),
            PortType::U128 => Some(Family::U128),
            PortType::I128 => Some(Family::I128),
            PortType::Decimal(_) => Some(Family::Decimal),
            _ => None,
        }
    }
}

/// The type an operand takes part as: a bool is a u64 0/1 in equality,
/// logic and `if` (`as_number`), itself elsewhere.
fn number_type(ty: PortType, as_number: bool) -> PortType {
    if as_number && ty == Bool {
        U64
    } else {
        ty
    }
}

/// Fits a literal operand to the other operand's type when the types
/// differ and it fits; returns the operands as they take part.
fn fit(graph: &mut Graph, left: &Operand, right: &Operand, span: Span) -> Result<(Operand, Operand), CompileError> {
    let (lt, rt) = (graph.wire_type(left.wire), graph.wire_type(right.wire));
    if lt == rt || Family::of(lt).is_none() || Family::of(rt).is_none() {
        return Ok((left.clone(), right.clone()));
    }
    let refit = |graph: &mut Graph, lit: &Operand, to: PortType| -> Result<Option<Operand>, CompileError> {
        let Some(c) = &lit.literal else { return Ok(None) };
        // Beside a decimal, a number literal is the decimal of its own digits.
        let fitted = match to {
            PortType::Decimal(_) => literal::decimal_of(c).map(Value::Decimal).map_err(|_| ()),
            _ => literal::fit(c, to).map_err(|_| ()),
        };
        let Ok(value) = fitted else { return Ok(None) };
        let wire = settle_literal(graph, lit, value, span)?;
        Ok(Some(Operand { wire, literal: lit.literal.clone(), sole: lit.sole }))
    };
    if let Some(r) = refit(graph, right, lt)? {
        return Ok((left.clone(), r));
    }
    if let Some(l) = refit(graph, left, rt)? {
        return Ok((l, right.clone()));
    }
    Ok((left.clone(), right.clone()))
}

/// The wire of literal operand `lit` given the value it is fitted to: its
/// own node retyped in place when nothing else reads it, else a new literal.
fn settle_literal(graph: &mut Graph, lit: &Operand, value: Value, span: Span) -> Result<Wire, CompileError> {
    if let (Wire::Node(n, 0), true) = (lit.wire, lit.sole) {
        let fitted = literal_node(graph, value, span)?;
        let Wire::Node(last, _) = fitted else { unreachable!("a literal is a node") };
        graph.nodes.swap(n as usize, last as usize);
        graph.nodes.pop();
        return Ok(lit.wire);
    }
    literal_node(graph, value, span)
}

/// The family two numeric operand types share: the same one, or f64 when
/// one is f64, or a 128-bit one when the other operand's type widens into
/// it by a class-A adapter (`u64` beside `u128`, `i32` beside `i128`);
/// `None` for u64 with i64 (neither is the other's), a narrow integer
/// elsewhere, or a non-number.
fn family(lt: PortType, rt: PortType) -> Option<Family> {
    let widens = |from: PortType, to: PortType| {
        to.is_wide_integer() && from.is_integer() && nodes::convert::auto_adapter(from, to).is_some()
    };
    if lt != rt && lt != F64 && rt != F64 && (lt.is_wide_integer() || rt.is_wide_integer()) {
        return match () {
            _ if widens(rt, lt) => Family::of(lt),
            _ if widens(lt, rt) => Family::of(rt),
            _ => None,
        };
    }
    let (l, r) = (Family::of(lt)?, Family::of(rt)?);
    match (l, r) {
        _ if l == r => Some(l),
        (Family::Decimal, _) | (_, Family::Decimal) => None,
        (Family::F64, _) | (_, Family::F64) => Some(Family::F64),
        _ => None,
    }
}

/// A binary operator other than `&&`/`||` over two operands.
fn binary(graph: &mut Graph, op: Operator, left: &Operand, right: &Operand, span: Span) -> Result<Wire, CompileError> {
    let (lt, rt) = (graph.wire_type(left.wire), graph.wire_type(right.wire));
    if calendar::is_calendar(lt) || calendar::is_calendar(rt) {
        if let Some(wire) = calendar::operator(graph, op, left, right, span)? {
            return Ok(wire);
        }
    }
    let symbol = op.symbol();
    match op {
        Operator::Pow => {
            let number = |t: PortType| Family::of(t).is_some_and(|f| f != Family::Decimal);
            if number(lt) && number(rt) {
                return emit(graph, "pow", vec![left.wire, right.wire], span);
            }
            Err(operand_error(symbol, lt, rt, span))
        }
        Operator::BitAnd | Operator::BitOr | Operator::BitXor | Operator::Shl | Operator::Shr => {
            if lt == U64 && rt == U64 {
                return emit(graph, &format!("u64_{}", op.suffix()), vec![left.wire, right.wire], span);
            }
            if lt == F64 || rt == F64 {
                return Err(CompileError::at(
                    span,
                    format!("bitwise operator '{symbol}' needs u64 operands, got {lt} and {rt}"),
                )
                .hint(format!("an f64 is never reinterpreted as bits; {}", conversion_hint(F64, U64))));
            }
            Err(operand_error(symbol, lt, rt, span))
        }
        Operator::Eq | Operator::Ne | Operator::Lt | Operator::Gt | Operator::Le | Operator::Ge => {
            let equality = matches!(op, Operator::Eq | Operator::Ne);
            if lt == Str || rt == Str {
                if !equality {
                    return Err(CompileError::at(
                        span,
                        format!(
                            "comparison operator `{symbol}` is not supported for String operands; \
                             only `==` and `!=` are defined on strings"
                        ),
                    )
                    .hint(
                        "compare string values for equality, or convert to a numeric type for ordering comparisons",
                    ));
                }
                return emit(graph, &format!("str_{}", op.suffix()), vec![left.wire, right.wire], span);
            }
            numeric(graph, op, left, right, equality, span)
        }
        _ => numeric(graph, op, left, right, false, span),
    }
}

/// `/` or `%` over two operands: the node of their numeric family, its
/// `_strict` form (failing on a zero divisor) when `on_zero` says so.
fn division(
    graph: &mut Graph,
    op: Operator,
    left: &Operand,
    right: &Operand,
    on_zero: ZeroDivisor,
    span: Span,
) -> Result<Wire, CompileError> {
    let suffix = if on_zero == ZeroDivisor::Fails { "_strict" } else { "" };
    numeric_node(graph, op, left, right, false, suffix, span)
}

/// An arithmetic or comparison operator by the operands' numeric family.
fn numeric(
    graph: &mut Graph,
    op: Operator,
    left: &Operand,
    right: &Operand,
    as_number: bool,
    span: Span,
) -> Result<Wire, CompileError> {
    numeric_node(graph, op, left, right, as_number, "", span)
}

/// The node `{family}_{operator}{suffix}` over the operands' numeric
/// family (a literal operand fitted to the other's type first).
fn numeric_node(
    graph: &mut Graph,
    op: Operator,
    left: &Operand,
    right: &Operand,
    as_number: bool,
    suffix: &str,
    span: Span,
) -> Result<Wire, CompileError> {
    let (lt, rt) = (graph.wire_type(left.wire), graph.wire_type(right.wire));
    let (nl, nr) = (number_type(lt, as_number), number_type(rt, as_number));
    let (left, right) =
        if nl == lt && nr == rt { fit(graph, left, right, span)? } else { (left.clone(), right.clone()) };
    let (fl, fr) =
        (number_type(graph.wire_type(left.wire), as_number), number_type(graph.wire_type(right.wire), as_number));
    match family(fl, fr) {
        Some(Family::Decimal) if matches!(op, Operator::Div | Operator::Mod) => Err(CompileError::at(
            span,
            format!("operator '{}' is not defined for decimals ({lt} and {rt})", op.symbol()),
        )
        .hint("decimals add, subtract, multiply and compare exactly; divide as floats (`x as f64`)")),
        Some(f) => emit(graph, &format!("{}_{}{suffix}", f.prefix(), op.suffix()), vec![left.wire, right.wire], span),
        None => Err(operand_error(op.symbol(), lt, rt, span)),
    }
}

/// "operator 'op' is not defined for A and B", with the hint the types call for.
fn operand_error(symbol: &str, lt: PortType, rt: PortType, span: Span) -> CompileError {
    let hint = if lt == Str || rt == Str {
        "'+' concatenates strings; other arithmetic needs numbers (convert with `as u64` / `as f64`)".to_string()
    } else if lt == Bool || rt == Bool {
        "a bool is not a number here; `b as u64` gives 0 or 1".to_string()
    } else if lt.decimal().is_some() || rt.decimal().is_some() {
        "a decimal mixes only with decimals and literals: convert the other side, e.g. `y as decimal(15, 2)`"
            .to_string()
    } else if Family::of(lt).is_some() && Family::of(rt).is_some() {
        format!("u64 and i64 do not mix: convert one side first, e.g. `x as {lt}` or `y as {rt}`")
    } else {
        "operators work on u64, i64 and f64 values; convert first, e.g. `x as f64`".to_string()
    };
    CompileError::at(span, format!("operator '{symbol}' is not defined for {lt} and {rt}")).hint(hint)
}

/// `side != 0` for one side of `&&`/`||` (a bool is already 0 or 1).
fn truthiness(graph: &mut Graph, op: Operator, side: &Operand, span: Span) -> Result<Wire, CompileError> {
    let ty = graph.wire_type(side.wire);
    if ty == Bool {
        return Ok(side.wire);
    }
    let Some(family) = Family::of(ty).filter(|f| *f != Family::Decimal) else {
        return Err(CompileError::at(
            span,
            format!("logical operator '{}' needs numeric operands, got {ty}", op.symbol()),
        )
        .hint("compare explicitly first, e.g. `s != \"\"`"));
    };
    let zero = zero_for(graph, family, span)?;
    emit(graph, &format!("{}_ne", family.prefix()), vec![side.wire, zero], span)
}

/// The literal 0 a comparison or negation of `family` reads (a u64 0,
/// widened by the adapter pass, for f64 as for u64; an i64 0 for i64).
fn zero_for(graph: &mut Graph, family: Family, span: Span) -> Result<Wire, CompileError> {
    let zero = match family {
        Family::I64 => Value::I64(0),
        Family::U128 => Value::u128(0),
        Family::I128 => Value::i128(0),
        _ => Value::U64(0),
    };
    literal_node(graph, zero, span)
}

/// Prefix `-`: `0.0 - x` (`0 - x` for an i64 or an i128).
fn negate(graph: &mut Graph, operand: &Operand, span: Span) -> Result<Wire, CompileError> {
    let ty = graph.wire_type(operand.wire);
    match Family::of(ty) {
        Some(family @ (Family::I64 | Family::I128)) => {
            let zero = zero_for(graph, family, span)?;
            emit(graph, &format!("{}_sub", family.prefix()), vec![zero, operand.wire], span)
        }

        Some(Family::Decimal) => {
            let zero = literal_node(graph, super::resolve::zero_of(ty), span)?;
            emit(graph, "decimal_sub", vec![zero, operand.wire], span)
        }
        Some(_) => {
            let zero = literal_node(graph, Value::F64(0.0), span)?;
            emit(graph, "f64_sub", vec![zero, operand.wire], span)
        }
        None => Err(CompileError::at(span, format!("unary '-' is not defined for {ty}"))
            .hint("negation needs a u64, i64 or f64 value")),
    }
}

/// Prefix `!`: `u64_not` of a u64; the logical not `u64_eq(b, 0)` of a bool.
fn not(graph: &mut Graph, operand: &Operand, span: Span) -> Result<Wire, CompileError> {
    match graph.wire_type(operand.wire) {
        U64 => emit(graph, "u64_not", vec![operand.wire], span),
        Bool => {
            let zero = zero_for(graph, Family::U64, span)?;
            emit(graph, "u64_eq", vec![operand.wire, zero], span)
        }
        ty => {
            let hint = if matches!(ty, F64 | PortType::F32 | PortType::F16) {
                conversion_hint(ty, U64)
            } else {
                "'!' is a bitwise not over u64".to_string()
            };
            Err(CompileError::at(span, format!("operator '!' needs a u64 operand, got {ty}")).hint(hint))
        }
    }
}

/// `if cond { a } else { b }`: the chooser the branch types call for.
fn select(
    graph: &mut Graph,
    operands: &[Operand],
    span: Span,
    events: &mut Vec<CompileEvent>,
) -> Result<Wire, CompileError> {
    let cond = operands[0].wire;
    let (at, bt) = (graph.wire_type(operands[1].wire), graph.wire_type(operands[2].wire));
    if at == Bool && bt == Bool {
        let chosen = emit(graph, "select_u64", vec![cond, operands[1].wire, operands[2].wire], span)?;
        return cast_wire(graph, chosen, Bool, span, events);
    }
    let (a, b) = if at != Bool && bt != Bool {
        fit(graph, &operands[1], &operands[2], span)?
    } else {
        (operands[1].clone(), operands[2].clone())
    };
    let (at, bt) = (graph.wire_type(a.wire), graph.wire_type(b.wire));
    let (na, nb) = (number_type(at, true), number_type(bt, true));
    let name = if na == Str || nb == Str {
        "select_str"
    } else if matches!((na, nb), (U64 | F64, U64 | F64)) && (na == F64 || nb == F64) {
        "select_f64"
    } else if na == U64 && nb == U64 {
        "select_u64"
    } else if at == I64 && bt == I64 {
        "select_i64"
    } else if at == bt {
        "select_any"
    } else if let (Some(da), Some(db)) = (at.decimal(), bt.decimal()) {
        // Two decimals of different types: both as the type that holds either.
        let common = PortType::Decimal(da.common(db).map_err(|e| CompileError::at(span, e))?);
        let a = cast_wire(graph, a.wire, common, span, events)?;
        let b = cast_wire(graph, b.wire, common, span, events)?;
        return emit(graph, "select_any", vec![cond, a, b], span);
    } else {
        return Err(CompileError::at(span, format!("if branches have incompatible types {at} and {bt}"))
            .hint("both branches must be numbers (u64/f64) or one a string; convert a branch with `as`"));
    };
    emit(graph, name, vec![cond, a.wire, b.wire], span)
}

/// A node of the library over `wires` (a wires-only node), each wire read as
/// its parameter's type (the adapter pass converts a mismatched one).
fn emit(graph: &mut Graph, name: &str, wires: Vec<Wire>, span: Span) -> Result<Wire, CompileError> {
    let def = nodes::lookup(name)
        .ok_or_else(|| CompileError::at(span, format!("this build's catalog has no node '{name}'")))?;
    let params: Vec<_> = def.wire_params().collect();
    let in_types = wires
        .iter()
        .enumerate()
        .map(|(i, &w)| {
            let actual = graph.wire_type(w);
            match params.get(i).or(params.last().filter(|p| p.variadic)).map(|p| p.ty) {
                Some(Ty::Is(t)) => t,
                _ => actual,
            }
        })
        .collect();
    let node = GraphNode::build(def, Vec::new(), wires, in_types, span)
        .map_err(|e| CompileError::at(span, format!("invalid arguments for `{name}`: {e}")))?;
    Ok(graph.push(node))
}

#[cfg(test)]
mod tests {
    use crate::compile::graph::Graph;
    use crate::compile::resolve::resolve;
    use crate::compile::sketch;
    use crate::error::CompileError;
    use crate::types::PortType;

    fn resolved(src: &str) -> Result<Graph, CompileError> {
        resolve(&sketch::parse(src).expect("a sketch"), &mut Vec::new())
    }

    fn op_of(g: &Graph, output: &str) -> (&'static str, PortType) {
        let out = g.outputs.iter().find(|o| o.name == output).expect("the output");
        let crate::compile::graph::Wire::Node(n, _) = out.wire else { panic!("a node") };
        (g.nodes[n as usize].def.name, out.ty)
    }

    #[test]
    fn operators_take_the_node_their_operand_types_call_for() {
        let g = resolved(
            "input u: u64\nextern i: i64 = 3\nextern f: f64 = 0.5\nextern s: str = \"s\"\n\
             a := __add(u, u)\nb := __sub(i, 20000)\nc := __mul(u, f)\nd := __lt(i, -3)\ne := __eq(s, u)\n\
             g := __if(u, i, 7)\nh := __neg(i)\nk := __not(u)",
        )
        .unwrap();
        assert_eq!(op_of(&g, "a"), ("u64_add", PortType::U64));
        assert_eq!(op_of(&g, "b"), ("i64_sub", PortType::I64), "the literal takes the i64 side's type");
        assert_eq!(op_of(&g, "c"), ("f64_mul", PortType::F64));
        assert_eq!(op_of(&g, "d"), ("i64_lt", PortType::U64));
        assert_eq!(op_of(&g, "e"), ("str_eq", PortType::U64));
        assert_eq!(op_of(&g, "g"), ("select_i64", PortType::I64));
        assert_eq!(op_of(&g, "h"), ("i64_sub", PortType::I64));
        assert_eq!(op_of(&g, "k"), ("u64_not", PortType::U64));
    }

    #[test]
    fn dates_and_timestamps_take_the_calendar_nodes() {
        let g = resolved(
            "extern d: date = 8035\nextern e: date = 1\nextern t: timestamp = 0\nextern n: u64 = 3\n\
             a := __add(d, 7)\nb := __add(n, d)\nc := __sub(d, e)\nf := __sub(d, \"1992-01-01\")\n\
             g := __sub(t, 1000)\nh := __sub(t, d)\nk := __lt(d, \"1995-06-17\")\nm := __eq(d, t)",
        )
        .unwrap();
        assert_eq!(op_of(&g, "a"), ("date_add_days", PortType::Date), "an integer literal is a count of days");
        assert_eq!(op_of(&g, "b"), ("date_add_days", PortType::Date));
        assert_eq!(op_of(&g, "c"), ("date_diff_days", PortType::I64));
        assert_eq!(op_of(&g, "f"), ("date_diff_days", PortType::I64), "a string literal is the other date");
        assert_eq!(op_of(&g, "g"), ("timestamp_sub_ms", PortType::Timestamp));
        assert_eq!(op_of(&g, "h"), ("timestamp_diff_ms", PortType::I64), "a date meets a timestamp at its midnight");
        assert_eq!(op_of(&g, "k"), ("i64_lt", PortType::U64));
        assert_eq!(op_of(&g, "m"), ("i64_eq", PortType::U64));
        let err = resolved("extern d: date = 1\nr := __add(d, d)").err().unwrap();
        assert_eq!(err.message, "operator '+' is not defined for date and date");
        assert!(err.hint.unwrap().contains("a date moves by whole days"));
    }

    #[test]
    fn a_literal_zero_divisor_is_an_error_at_the_literal() {
        for (body, symbol) in [("__div(u, 0)", "/"), ("__mod(u, 0)", "%"), ("__div(f, 0.0)", "/"), ("__mod(i, 0)", "%")]
        {
            let src = format!("input u: u64\nextern i: i64 = 3\nextern f: f64 = 0.5\nr := {body}");
            let err = resolved(&src).err().unwrap();
            assert_eq!(err.message, format!("the divisor of '{symbol}' is the literal 0: every row would be 0"));
        }
        assert!(resolved("input u: u64\nr := __div(0, u)").is_ok(), "a zero dividend is fine");
    }

    #[test]
    fn under_strict_values_a_wire_divisor_takes_the_failing_node() {
        let g = resolved(
            "input u: u64\nextern i: i64 = 3\nextern f: f64 = 0.5\n\
             a := __div(u, u, \"strict_values\")\nb := __mod(i, i, \"strict_values\")\n\
             c := __div(f, u, \"strict_values\")\nd := __mod(u, 7, \"strict_values\")\ne := __div(u, u)",
        )
        .unwrap();
        assert_eq!(op_of(&g, "a"), ("u64_div_strict", PortType::U64));
        assert_eq!(op_of(&g, "b"), ("i64_mod_strict", PortType::I64));
        assert_eq!(op_of(&g, "c"), ("f64_div_strict", PortType::F64));
        assert_eq!(op_of(&g, "d"), ("u64_mod", PortType::U64), "a nonzero literal divisor never fails");
        assert_eq!(op_of(&g, "e"), ("u64_div", PortType::U64));
    }

    #[test]
    fn a_constant_argument_is_coerced_and_cast_as_a_literal_written_there() {
        // The `outer` pass inlines a read of an outer literal as a constant argument.
        let g = resolved("r := __coerce(3, \"f64\", \"'k' is declared f64\")\nc := __cast(3, \"str\")").unwrap();
        let ty = |name: &str| g.outputs.iter().find(|o| o.name == name).unwrap().ty;
        assert_eq!((ty("r"), ty("c")), (PortType::F64, PortType::Str));
        let err = resolved("r := __coerce(2.5, \"u64\", \"'k' is declared u64\")").err().unwrap();
        assert_eq!(err.message, "'k' is declared u64 but its value is a float literal 2.5");
    }

    #[test]
    fn a_plus_spine_with_a_string_is_one_concatenation() {
        let g = resolved(
            "input u: u64\nextern s: str = \"s\"\nr := __add(__add_part(u, u), s)\nq := __add(__add_part(u, u), 1)",
        )
        .unwrap();
        assert_eq!(op_of(&g, "r"), ("str_concat", PortType::Str));
        let concat = g.nodes.iter().find(|n| n.def.name == "str_concat").unwrap();
        assert_eq!(concat.wires.len(), 3, "every operand of the spine");
        assert_eq!(op_of(&g, "q"), ("u64_add", PortType::U64));
    }

    #[test]
    fn type_errors_name_the_operator_and_both_types() {
        let err = resolved("input u: u64\nextern i: i64 = 1\nr := __sub(i, u)").err().unwrap();
        assert_eq!(err.message, "operator '-' is not defined for i64 and u64");
        assert_eq!(err.span.unwrap().line, 3);
        let err = resolved("extern s: str = \"a\"\nr := __lt(s, s)").err().unwrap();
        assert_eq!(
            err.message,
            "comparison operator `<` is not supported for String operands; only `==` and `!=` are defined on strings"
        );
        let err = resolved("extern f: f64 = 1\nr := __coerce(f, \"u64\", \"'r' is declared u64\")").err().unwrap();
        assert_eq!(err.message, "'r' is declared u64 but the value is f64");
        assert!(err.hint.unwrap().contains("round_to_u64"));
        let err = resolved("extern f: f64 = 1\nr := __cast(f, \"i64\")").err().unwrap();
        assert_eq!(err.message, "cannot cast f64 to i64 with 'as'");
    }
}
