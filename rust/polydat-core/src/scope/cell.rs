//! Shared cells: the storage behind a `shared` binding, held by every scope
//! that binds it (the declaring scope, children that read or write it, and
//! the scopes it passes through). A cell is safe across threads: a value
//! behind a mutex and a revision counter; a write stores under the lock,
//! advances the revision (last write wins) and advances its tree's epoch, so
//! every scope holding the cell sees at its next read that something moved.

use crate::error::WriteError;
use crate::types::PortType;
use crate::value::Value;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The change counter of one scope tree (a root and every scope bound under
/// it): advanced by every cell write and by every write into a scope whose
/// outputs a child reads live. A scope whose bindings saw the current epoch
/// has nothing to refresh, so its check before a read is one atomic load.
#[derive(Debug, Default)]
pub struct Tree {
    epoch: AtomicU64,
}

impl Tree {
    /// A new tree.
    pub fn new() -> Arc<Tree> {
        Arc::new(Tree::default())
    }

    /// The current epoch.
    #[inline]
    pub fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::Acquire)
    }

    /// Something a scope of the tree may read has changed.
    #[inline]
    pub fn advance(&self) {
        self.epoch.fetch_add(1, Ordering::AcqRel);
    }
}

/// One shared cell.
#[derive(Debug)]
pub struct Cell {
    name: String,
    ty: PortType,
    value: Mutex<Value>,
    /// Writes so far (0: never written, the cell holds no value yet).
    revision: AtomicU64,
    tree: Arc<Tree>,
}

impl Cell {
    /// A new, unwritten cell of type `ty` in `tree`.
    pub fn new(name: &str, ty: PortType, tree: &Arc<Tree>) -> Arc<Cell> {
        Arc::new(Cell {
            name: name.to_string(),
            ty,
            value: Mutex::new(Value::None),
            revision: AtomicU64::new(0),
            tree: tree.clone(),
        })
    }

    /// The cell's name (the `shared` binding's).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The cell's type, fixed for its life.
    pub fn ty(&self) -> PortType {
        self.ty
    }

    /// The tree the cell belongs to.
    pub fn tree(&self) -> &Arc<Tree> {
        &self.tree
    }

    /// The number of writes so far (0 while unwritten); a cheap check.
    #[inline]
    pub fn revision(&self) -> u64 {
        self.revision.load(Ordering::Acquire)
    }

    /// The value and its revision, read together.
    pub fn get(&self) -> (Value, u64) {
        let value = self.value.lock().unwrap_or_else(|p| p.into_inner());
        (value.clone(), self.revision.load(Ordering::Acquire))
    }

    /// Writes `value` (converted to the cell's type through the boundary
    /// catalog; `None` is refused: a cell cannot be cleared) and returns the
    /// new revision. Last write wins.
    pub fn publish(&self, value: Value) -> Result<(Value, u64), WriteError> {
        let value = self.checked(value)?;
        let revision = {
            let mut slot = self.value.lock().unwrap_or_else(|p| p.into_inner());
            *slot = value.clone();
            self.revision.fetch_add(1, Ordering::AcqRel) + 1
        };
        self.tree.advance();
        Ok((value, revision))
    }

    /// Writes the starting value `value` unless the cell was written already;
    /// returns the cell's value and revision either way.
    pub fn seed(&self, value: Value) -> Result<(Value, u64), WriteError> {
        let value = self.checked(value)?;
        let (value, revision, seeded) = {
            let mut slot = self.value.lock().unwrap_or_else(|p| p.into_inner());
            match self.revision.load(Ordering::Acquire) {
                0 => {
                    *slot = value.clone();
                    (value, self.revision.fetch_add(1, Ordering::AcqRel) + 1, true)
                }
                r => (slot.clone(), r, false),
            }
        };
        if seeded {
            self.tree.advance();
        }
        Ok((value, revision))
    }

    fn checked(&self, value: Value) -> Result<Value, WriteError> {
        if value.is_none() {
            return Err(WriteError::TypeMismatch {
                slot: self.name.clone(),
                expected: self.ty,
                got: "None (a shared cell holds a value once written; it cannot be cleared)".into(),
            });
        }
        crate::engine::adapt_boundary(&self.name, self.ty, value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_writes_only_an_unwritten_cell_and_every_write_advances_the_epoch() {
        let tree = Tree::new();
        let cell = Cell::new("x", PortType::U64, &tree);
        assert!(cell.get().0.is_none() && cell.get().1 == 0);
        let (v, r) = cell.publish(Value::U64(5)).unwrap();
        assert!(v.same(&Value::U64(5)) && r == 1);
        let (v, r) = cell.seed(Value::U64(1)).unwrap();
        assert!(v.same(&Value::U64(5)) && r == 1, "a written cell keeps its value");
        let fresh = Cell::new("y", PortType::F64, &tree);
        let before = tree.epoch();
        let (v, r) = fresh.seed(Value::U64(2)).unwrap();
        assert!(v.same(&Value::F64(2.0)) && r == 1, "converted to the cell's type");
        assert!(tree.epoch() > before);
        assert!(fresh.publish(Value::str("no")).is_err());
        assert!(fresh.publish(Value::None).is_err());
        assert_eq!(fresh.revision(), 1);
    }
}
