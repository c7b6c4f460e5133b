//! The error types of the core, one per phase: build ([`CompileError`],
//! [`Refused`]), host writes ([`WriteError`]) and evaluation ([`EvalError`]).

use crate::ir::Span;
use crate::types::PortType;
use crate::value::Value;
use std::fmt;

/// The program cannot be compiled; points at the source span that caused it.
///
/// A pass that recovers after an error (the typing passes go on with the
/// next node) reports every error it found as one `CompileError`: the first
/// in source order, the rest in [`CompileError::also`].
#[derive(Clone, Debug, PartialEq)]
pub struct CompileError {
    /// What went wrong.
    pub message: String,
    /// The source span that caused it, when known.
    pub span: Option<Span>,
    /// A suggestion, shown as `= hint: ...`.
    pub hint: Option<String>,
    /// The compilation's further errors, in source order (each with an empty `also`).
    pub also: Vec<CompileError>,
}

impl CompileError {
    /// An error at `span`.
    pub fn at(span: Span, message: impl Into<String>) -> CompileError {
        CompileError { message: message.into(), span: Some(span), hint: None, also: Vec::new() }
    }

    /// An error with no source position.
    pub fn bare(message: impl Into<String>) -> CompileError {
        CompileError { message: message.into(), span: None, hint: None, also: Vec::new() }
    }

    /// Every error of `errors` as one, in source order (an error without a
    /// position first; the order found among equal positions), or `None`
    /// when there is none.
    pub fn gather(errors: Vec<CompileError>) -> Option<CompileError> {
        let mut all: Vec<CompileError> = errors.into_iter().flat_map(CompileError::into_each).collect();
        all.sort_by_key(|e| e.span.map(|s| (s.line, s.col)));
        let mut all = all.into_iter();
        let mut first = all.next()?;
        first.also = all.collect();
        Some(first)
    }

    /// This error and the ones in [`CompileError::also`], each on its own.
    pub fn into_each(mut self) -> Vec<CompileError> {
        let also = std::mem::take(&mut self.also);
        std::iter::once(self).chain(also).collect()
    }

    /// Adds a hint (`= hint: ...`).
    pub fn hint(mut self, hint: impl Into<String>) -> CompileError {
        self.hint = Some(hint.into());
        self
    }
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(s) = self.span {
            write!(f, "{}:{}:error: {}", s.line, s.col, self.message)?;
        } else {
            write!(f, "error: {}", self.message)?;
        }
        if let Some(h) = &self.hint {
            write!(f, "\n  = hint: {h}")?;
        }
        for more in &self.also {
            write!(f, "\n{more}")?;
        }
        Ok(())
    }
}

impl std::error::Error for CompileError {}

/// The details of an evaluation failure.
#[derive(Clone, Debug)]
pub struct EvalDetail {
    /// The enriched, engine-independent text: the original failure, the node,
    /// the outputs it feeds, its inputs.
    pub message: String,
    /// The node's own failure message, before attribution.
    pub original: String,
    /// The node the failure is attributed to (its op name).
    pub node: String,
    /// The outputs that node feeds.
    pub outputs: Vec<String>,
    /// The node's inputs, in attribution form (`U64(20)`).
    pub inputs: Vec<String>,
    /// The node's input values themselves, in wire order.
    pub values: Vec<Value>,
    /// The row of `generate` that failed: its coordinate and value.
    pub row: Option<(String, u64)>,
    /// The failure is memory the process could not get (a value's text, a
    /// copy of it): the host reports it as out of memory.
    pub out_of_memory: bool,
}

/// Two failures are equal when every field is, input values bit for bit.
impl PartialEq for EvalDetail {
    fn eq(&self, other: &EvalDetail) -> bool {
        self.message == other.message
            && self.original == other.original
            && self.node == other.node
            && self.outputs == other.outputs
            && self.inputs == other.inputs
            && self.row == other.row
            && self.out_of_memory == other.out_of_memory
            && self.values.len() == other.values.len()
            && self.values.iter().zip(&other.values).all(|(a, b)| a.same(b))
    }
}

/// A node failed while evaluating. Boxed so that the success path of every
/// pull moves one pointer-sized error slot, not the whole record.
#[derive(Clone, Debug, PartialEq)]
pub struct EvalError(Box<EvalDetail>);

impl std::ops::Deref for EvalError {
    type Target = EvalDetail;
    fn deref(&self) -> &EvalDetail {
        &self.0
    }
}

impl EvalError {
    /// Builds the attributed error for a failure of `node` feeding `outputs`,
    /// with its decoded `inputs`, while evaluating `context`.
    pub fn attributed(original: &str, node: &str, outputs: &[String], values: Vec<Value>, context: &str) -> EvalError {
        let inputs: Vec<String> = values.iter().map(Value::to_string).collect();
        let feeds = match outputs.len() {
            0 => "no declared output".to_string(),
            1 => format!("output {}", outputs[0]),
            _ => format!("outputs {}", outputs.join(", ")),
        };
        let shown: Vec<String> = inputs.iter().enumerate().map(|(i, v)| format!("[{i}]={v}")).collect();
        let message = format!(
            "{original}\n  ↳ in node `{node}` ({feeds}) while evaluating {context}\n  ↳ inputs: [{}]",
            shown.join(", ")
        );
        EvalError(Box::new(EvalDetail {
            message,
            original: original.to_string(),
            node: node.to_string(),
            outputs: outputs.to_vec(),
            inputs,
            values,
            row: None,
            out_of_memory: false,
        }))
    }

    /// This failure, marked as memory the process could not get
    /// ([`EvalDetail::out_of_memory`]).
    pub fn of_memory(mut self) -> EvalError {
        self.0.out_of_memory = true;
        self
    }

    /// This failure as the failure of the `generate` row where coordinate
    /// `coordinate` held `cycle`: the message names the row.
    pub fn at_row(mut self, coordinate: &str, cycle: u64) -> EvalError {
        self.0.message.push_str(&format!("\n  ↳ at row {coordinate}={cycle}"));
        self.0.row = Some((coordinate.to_string(), cycle));
        self
    }
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for EvalError {}

/// A host write was refused.
#[derive(Clone, Debug, PartialEq)]
pub enum WriteError {
    /// No input has this name; `known` lists every input, coordinates first.
    UnknownInput {
        /** The name written. */
        name: String,
        /** Every input name, coordinates first. */
        known: Vec<String>,
    },
    /// The value does not fit the slot's type.
    TypeMismatch {
        /** The input written. */
        slot: String,
        /** The input's type. */
        expected: PortType,
        /** What was given: its type and value, or `None`. */
        got: String,
    },
    /// Coordinates are written with `set_inputs`, not by name.
    CoordinateSlot {
        /** The coordinate written by name. */
        slot: String,
    },
    /// A value for the coordinate a `generate` sweeps (it sets that one itself).
    SweptCoordinate {
        /** The swept coordinate. */
        slot: String,
    },
    /// The slot is bound to an outer scope's live output: its value comes
    /// from there on every read, so a write would be lost.
    BoundSlot {
        /** The input written. */
        slot: String,
    },
    /// The memory to hold the value could not be had (the input is `None`
    /// until written again).
    OutOfMemory {
        /** The input written. */
        slot: String,
        /** The bytes the value holds. */
        bytes: usize,
    },
    /// Too many coordinate values for the program.
    TooManyCoordinates {
        /** Coordinate values given. */
        given: usize,
        /** Coordinates the program has. */
        count: usize,
    },
}

impl WriteError {
    /// A short machine-readable name of the variant.
    pub fn kind(&self) -> &'static str {
        match self {
            WriteError::UnknownInput { .. } => "unknown_input",
            WriteError::TypeMismatch { .. } => "type_mismatch",
            WriteError::CoordinateSlot { .. } => "coordinate_slot",
            WriteError::TooManyCoordinates { .. } => "too_many_coordinates",
            WriteError::SweptCoordinate { .. } => "swept_coordinate",
            WriteError::BoundSlot { .. } => "bound_slot",
            WriteError::OutOfMemory { .. } => "out_of_memory",
        }
    }

    /// The slot named by the error, if any.
    pub fn slot(&self) -> &str {
        match self {
            WriteError::UnknownInput { name, .. } => name,
            WriteError::TypeMismatch { slot, .. }
            | WriteError::CoordinateSlot { slot }
            | WriteError::SweptCoordinate { slot }
            | WriteError::BoundSlot { slot }
            | WriteError::OutOfMemory { slot, .. } => slot,
            WriteError::TooManyCoordinates { .. } => "",
        }
    }
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteError::UnknownInput { name, known } => {
                match crate::suggest::did_you_mean(name, known.iter().map(String::as_str)) {
                    Some(hint) => write!(f, "no input named '{name}'; {hint}"),
                    None => write!(f, "no input named '{name}'; inputs are: {}", known.join(", ")),
                }
            }
            WriteError::TypeMismatch { slot, expected, got } => {
                write!(f, "input '{slot}' is {expected}, cannot write {got}")?;
                // An integer that does not fit is told the range that holds.
                match (expected.integer_range(), expected) {
                    _ if got == "None" => Ok(()),
                    (Some((lo, hi)), _) => write!(f, " ({expected} holds {lo} to {hi})"),
                    (None, PortType::U128) => write!(f, " (u128 holds 0 to {})", u128::MAX),
                    (None, PortType::I128) => write!(f, " (i128 holds {} to {})", i128::MIN, i128::MAX),
                    // A float is rounded to the nearest f16; only its range refuses.
                    (None, PortType::F16) => write!(f, " (f16 holds finite values from -65504 to 65504)"),
                    _ => Ok(()),
                }
            }
            WriteError::CoordinateSlot { slot } => {
                write!(f, "'{slot}' is a coordinate: write it with set_inputs, not by name")
            }
            WriteError::SweptCoordinate { slot } => {
                write!(f, "'{slot}' is the coordinate the rows sweep: its value comes from the range, not from inputs")
            }
            WriteError::BoundSlot { slot } => write!(
                f,
                "'{slot}' reads the outer scope's output of that name live; write it in the outer scope \
                 (or declare it `shared` there to make it writable from here)"
            ),
            WriteError::OutOfMemory { slot, bytes } => {
                write!(f, "out of memory: the {bytes} bytes written to input '{slot}' could not be held")
            }
            WriteError::TooManyCoordinates { given, count } => {
                write!(f, "{given} coordinate values given, but the program has {count} coordinates")
            }
        }
    }
}

impl std::error::Error for WriteError {}

/// A scope could not be bound under its outer scope (scope-init refused).
#[derive(Clone, Debug, PartialEq)]
pub enum BindError {
    /// A value the outer scope provides does not fit the child's slot.
    FromOuter {
        /** The child's slot. */
        slot: String,
        /** The slot's type. */
        expected: PortType,
        /** What the outer scope gave: its type and value. */
        got: String,
    },
    /// The program reads a name from an outer scope that this one does not provide.
    Unbound {
        /** The name. */
        name: String,
        /** "did you mean", or the names the outer scopes provide. */
        hint: String,
    },
    /// The outer scope is not the one the program was compiled against.
    Stale {
        /** The name that differs. */
        name: String,
        /** How it differs. */
        reason: String,
    },
    /// An iteration value was missing, or given for a name that is no iteration variable.
    Iteration {
        /** The iteration variable. */
        name: String,
        /** What is wrong. */
        reason: String,
    },
    /// A shared cell and the slot bound to it have different types.
    CellType {
        /** The cell's name. */
        name: String,
        /** The cell's type. */
        cell: PortType,
        /** The slot's type. */
        slot: PortType,
    },
    /// The program reads names from an outer scope, but none was given.
    NeedsOuter {
        /** The names it reads from one. */
        names: Vec<String>,
    },
    /// An outer scope's output the program reads failed when it was read to bind the slot.
    OuterValue {
        /** The name read from the outer scope. */
        name: String,
        /** The outer scope's failure. */
        error: Box<EvalError>,
    },
    /// The scope-init of the new scope (or of an outer scope it reads) failed.
    Init(EvalError),
}

impl BindError {
    /// A short machine-readable name of the variant.
    pub fn kind(&self) -> &'static str {
        match self {
            BindError::FromOuter { .. } => "from_outer",
            BindError::Unbound { .. } => "unbound",
            BindError::Stale { .. } => "stale",
            BindError::Iteration { .. } => "iteration",
            BindError::CellType { .. } => "cell_type",
            BindError::NeedsOuter { .. } => "needs_outer",
            BindError::OuterValue { .. } => "outer_value",
            BindError::Init(_) => "init",
        }
    }

    /// The name the error is about ("" when none).
    pub fn name(&self) -> &str {
        match self {
            BindError::FromOuter { slot: name, .. }
            | BindError::Unbound { name, .. }
            | BindError::Stale { name, .. }
            | BindError::Iteration { name, .. }
            | BindError::CellType { name, .. }
            | BindError::OuterValue { name, .. } => name,
            BindError::NeedsOuter { names } => names.first().map_or("", String::as_str),
            BindError::Init(e) => e.outputs.first().map_or("", String::as_str),
        }
    }
}

impl fmt::Display for BindError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BindError::FromOuter { slot, expected, got } => {
                write!(f, "cannot bind '{slot}' ({expected}) from the outer scope: it gives {got}")
            }
            BindError::Unbound { name, hint } => {
                write!(f, "the outer scope does not provide '{name}', which this program reads from it; {hint}")
            }
            BindError::Stale { name, reason } => write!(
                f,
                "this program was compiled against a different outer scope: {reason} ('{name}'); compile it against this one"
            ),
            BindError::Iteration { name, reason } => write!(f, "iteration variable '{name}': {reason}"),
            BindError::CellType { name, cell, slot } => {
                write!(f, "shared cell '{name}' holds {cell}, but this scope's '{name}' is {slot}")
            }
            BindError::NeedsOuter { names } => {
                let quoted: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
                write!(
                    f,
                    "this program reads {} from an outer scope: make its kernel with kernel(outer=...)",
                    quoted.join(", ")
                )
            }
            BindError::OuterValue { name, error } => {
                write!(f, "cannot bind '{name}': the outer scope's '{name}', which this program reads, failed: {error}")
            }
            BindError::Init(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for BindError {}

/// An engine or mode cannot run a program; never silently substituted.
#[derive(Clone, Debug, PartialEq)]
pub struct Refused {
    /// The engine (or `engine/mode`) that refused.
    pub engine: String,
    /// Why it refused.
    pub reason: String,
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "engine '{}' refused: {}", self.engine, self.reason)
    }
}

impl std::error::Error for Refused {}

/// Any error of the build phase.
#[derive(Clone, Debug, PartialEq)]
pub enum BuildError {
    /// The program does not compile.
    Compile(CompileError),
    /// The requested engine or mode cannot run the program.
    Refused(Refused),
}

impl From<CompileError> for BuildError {
    fn from(e: CompileError) -> Self {
        BuildError::Compile(e)
    }
}

impl From<Refused> for BuildError {
    fn from(e: Refused) -> Self {
        BuildError::Refused(e)
    }
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Compile(e) => e.fmt(f),
            BuildError::Refused(e) => e.fmt(f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attribution_format() {
        let e = EvalError::attributed(
            "in_range: value 20 outside [0, 5]",
            "in_range",
            &["checked".to_string()],
            vec![Value::U64(20)],
            "`checked`",
        );
        assert_eq!(
            e.message,
            "in_range: value 20 outside [0, 5]\n  ↳ in node `in_range` (output checked) while evaluating `checked`\n  ↳ inputs: [[0]=U64(20)]"
        );
        let e = e.at_row("cycle", 992);
        assert!(e.message.ends_with("\n  ↳ at row cycle=992"));
        assert_eq!(e.row, Some(("cycle".to_string(), 992)));
        assert!(e.values[0].same(&Value::U64(20)));
    }
}
