//! The typing of operators over dates and timestamps (see the parent
//! module for the other operand types):
//!
//! * `date + n`, `n + date`, `date - n`: `date_add_days`/`date_sub_days`,
//!   `n` a whole number of days; `timestamp ± n` likewise in milliseconds
//!   (`timestamp_add_ms`/`timestamp_sub_ms`). `n` is an `i64` (an `i32` or
//!   `u32` widens; a `u64` is cast, failing past `i64::MAX`). A result past
//!   the type's range fails the row.
//! * `date - date`: `date_diff_days` (an `i64`); `timestamp - timestamp`:
//!   `timestamp_diff_ms`. A date meeting a timestamp is taken as its midnight.
//! * `== != < > <= >=` between two of them: the `i64` comparison of their
//!   day or millisecond counts (the casts are the slot word itself).
//!
//! A literal facing a date or timestamp takes its meaning from the
//! operator: in `+`/`-` an integer literal is the count (`d + 7`), a string
//! literal the other date (`d - "1992-01-01"`); in a comparison either is a
//! date or timestamp (`d <= "1995-06-17"`, `d < 9298`). Anything else is an
//! error naming the operator and both types, with the rules as its hint.

use super::{emit, literal, settle_literal, Operand, Operator};
use crate::compile::graph::{Graph, Wire};
use crate::error::CompileError;
use crate::ir::{ConstIr, Span};
use crate::types::PortType::{self, Date, Str, Timestamp, I32, I64, U32, U64};

/// `ty` is a date or a timestamp.
pub(super) fn is_calendar(ty: PortType) -> bool {
    matches!(ty, Date | Timestamp)
}

/// How a date or timestamp takes part in arithmetic: the unit of the counts
/// it moves by and the nodes it becomes.
struct Unit {
    add: &'static str,
    sub: &'static str,
    diff: &'static str,
    to_i64: &'static str,
}

/// The unit of `ty` (a date or a timestamp).
fn unit(ty: PortType) -> Unit {
    if ty == Date {
        Unit { add: "date_add_days", sub: "date_sub_days", diff: "date_diff_days", to_i64: "__date_to_i64" }
    } else {
        Unit {
            add: "timestamp_add_ms",
            sub: "timestamp_sub_ms",
            diff: "timestamp_diff_ms",
            to_i64: "__timestamp_to_i64",
        }
    }
}

/// Lowers `left op right`, one of them a date or a timestamp, for an
/// arithmetic or comparison operator; `None` when the parent's rules apply
/// instead (a non-literal string compared for equality compares text).
pub(super) fn operator(
    graph: &mut Graph,
    op: Operator,
    left: &Operand,
    right: &Operand,
    span: Span,
) -> Result<Option<Wire>, CompileError> {
    let comparison = is_comparison(op);
    let (lt, rt) = (graph.wire_type(left.wire), graph.wire_type(right.wire));
    if comparison && (lt == Str && left.literal.is_none() || rt == Str && right.literal.is_none()) {
        return Ok(None);
    }
    let left = fit_facing(graph, op, left, rt, span)?;
    let right = fit_facing(graph, op, right, lt, span)?;
    let (lt, rt) = (graph.wire_type(left.wire), graph.wire_type(right.wire));
    let wire = match op {
        _ if comparison && is_calendar(lt) && is_calendar(rt) => {
            let common = if lt == rt { lt } else { Timestamp };
            let to_i64 = unit(common).to_i64;
            let a = emit(graph, to_i64, vec![left.wire], span)?;
            let b = emit(graph, to_i64, vec![right.wire], span)?;
            emit(graph, &format!("i64_{}", op.suffix()), vec![a, b], span)?
        }
        Operator::Add if is_calendar(lt) && is_count(rt) => {
            let n = count(graph, right.wire, span)?;
            emit(graph, unit(lt).add, vec![left.wire, n], span)?
        }
        Operator::Add if is_count(lt) && is_calendar(rt) => {
            let n = count(graph, left.wire, span)?;
            emit(graph, unit(rt).add, vec![right.wire, n], span)?
        }
        Operator::Sub if is_calendar(lt) && is_count(rt) => {
            let n = count(graph, right.wire, span)?;
            emit(graph, unit(lt).sub, vec![left.wire, n], span)?
        }
        Operator::Sub if is_calendar(lt) && is_calendar(rt) => {
            let common = if lt == rt { lt } else { Timestamp };
            emit(graph, unit(common).diff, vec![left.wire, right.wire], span)?
        }
        _ => return Err(calendar_error(op, lt, rt, span)),
    };
    Ok(Some(wire))
}

/// `op` is one of `== != < > <= >=`.
fn is_comparison(op: Operator) -> bool {
    matches!(op, Operator::Eq | Operator::Ne | Operator::Lt | Operator::Gt | Operator::Le | Operator::Ge)
}

/// `ty` is an integer type a count of days or milliseconds may have.
fn is_count(ty: PortType) -> bool {
    matches!(ty, I64 | I32 | U32 | U64)
}

/// A count as the `i64` the nodes read: an `i64` as it is, an `i32` or
/// `u32` widened by the adapter pass, a `u64` cast (failing past `i64::MAX`).
fn count(graph: &mut Graph, wire: Wire, span: Span) -> Result<Wire, CompileError> {
    match graph.wire_type(wire) {
        U64 => emit(graph, "__u64_to_i64", vec![wire], span),
        _ => Ok(wire),
    }
}

/// A literal operand fitted to what it means facing `other` (see the module
/// doc); any other operand as it is.
fn fit_facing(
    graph: &mut Graph,
    op: Operator,
    operand: &Operand,
    other: PortType,
    span: Span,
) -> Result<Operand, CompileError> {
    let Some(c) = &operand.literal else { return Ok(operand.clone()) };
    if !is_calendar(other) || is_calendar(graph.wire_type(operand.wire)) {
        return Ok(operand.clone());
    }
    let arithmetic = matches!(op, Operator::Add | Operator::Sub);
    if !arithmetic && !is_comparison(op) {
        return Ok(operand.clone());
    }
    let to = if arithmetic && !matches!(c, ConstIr::Str(_)) { I64 } else { other };
    match literal::fit(c, to) {
        Ok(value) => {
            let wire = settle_literal(graph, operand, value, span)?;
            Ok(Operand { wire, literal: operand.literal.clone(), sole: operand.sole })
        }
        Err(misfit) => {
            Err(CompileError::at(span, format!("operator '{}' cannot read {} as {to} here", op.symbol(), misfit.got))
                .hint(misfit.hint))
        }
    }
}

/// "operator 'op' is not defined for A and B", with the calendar rules as the hint.
fn calendar_error(op: Operator, lt: PortType, rt: PortType, span: Span) -> CompileError {
    let hint = "a date moves by whole days and a timestamp by milliseconds: `d + 7`, `d - 7`, `t + 1000`; \
                `a - b` of two dates (or timestamps) is the i64 count between them; they compare with \
                == != < > <= >=; for other arithmetic convert first, e.g. `d as i64`";
    CompileError::at(span, format!("operator '{}' is not defined for {lt} and {rt}", op.symbol())).hint(hint)
}
