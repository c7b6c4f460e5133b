//! Compile events: what the passes did, for `Program.events` and `explain`.

use crate::ir::Span;
use std::fmt;

/// The kind of a compile event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// An automatic (class-A) adapter node was inserted on a wire.
    TypeAdapterInserted,
    /// A Node Fusion pattern rewrote a subgraph.
    FusionApplied,
    /// Node Fusion stopped at its iteration limit before reaching a fixpoint.
    FusionLimitReached,
    /// A polyfill rewrote a node into supported nodes.
    PolyfillApplied,
    /// A pick among literal strings (`one_of`, `select_str`) was rewritten
    /// to carry its pick as an index into its strings.
    PickCarriedAsIndex,
    /// A compile-constant node was evaluated at build and replaced by its value.
    ConstantFolded,
    /// Identical pure nodes were merged into one (common subexpressions).
    CommonSubexpressionMerged,
    /// Dead-code elimination dropped nodes no requested output needs.
    DeadCodeEliminated,
    /// An extern has no default: the host must set it.
    ExternWithoutDefault,
    /// A node's constants build but make it useless (e.g. a divisor of 0).
    NodeWarning,
    /// A free name was resolved in the outer scope (auto-extern) or is an
    /// iteration variable; the message says how it is bound.
    AutoExtern,
}

impl EventKind {
    /// The event's name as shown to users.
    pub fn name(self) -> &'static str {
        match self {
            EventKind::TypeAdapterInserted => "TypeAdapterInserted",
            EventKind::FusionApplied => "FusionApplied",
            EventKind::FusionLimitReached => "FusionLimitReached",
            EventKind::PolyfillApplied => "PolyfillApplied",
            EventKind::PickCarriedAsIndex => "PickCarriedAsIndex",
            EventKind::ConstantFolded => "ConstantFolded",
            EventKind::CommonSubexpressionMerged => "CommonSubexpressionMerged",
            EventKind::DeadCodeEliminated => "DeadCodeEliminated",
            EventKind::ExternWithoutDefault => "ExternWithoutDefault",
            EventKind::NodeWarning => "NodeWarning",
            EventKind::AutoExtern => "AutoExtern",
        }
    }

    /// True for the events `check` and `compile` report as warnings: something
    /// the user probably did not mean, though the program is valid.
    pub fn is_warning(self) -> bool {
        matches!(self, EventKind::ExternWithoutDefault | EventKind::NodeWarning | EventKind::FusionLimitReached)
    }
}

/// One compile event.
#[derive(Clone, Debug, PartialEq)]
pub struct CompileEvent {
    /// What happened.
    pub kind: EventKind,
    /// The details, as shown to users.
    pub message: String,
    /// The source position, when the event has one.
    pub span: Option<Span>,
}

impl CompileEvent {
    /// An event of `kind` at `span`.
    pub fn new(kind: EventKind, span: Option<Span>, message: impl Into<String>) -> CompileEvent {
        CompileEvent { kind, message: message.into(), span }
    }
}

impl fmt::Display for CompileEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.span {
            Some(s) if s.line > 0 => write!(f, "{}:{}: {}: {}", s.line, s.col, self.kind.name(), self.message),
            _ => write!(f, "{}: {}", self.kind.name(), self.message),
        }
    }
}
