//! PyO3 binding (placeholder while the core lands).
