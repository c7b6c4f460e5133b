//! Typed output columns filled by `generate`: one contiguous vector per output,
//! handed to numpy without per-value conversion.

use crate::node::kit::Scalar;
use crate::types::PortType;
use crate::value::Value;

/// One output's values over a range of cycles.
#[derive(Clone, Debug)]
pub enum Column {
    /// `u64` rows.
    U64(Vec<u64>),
    /// `i64` rows.
    I64(Vec<i64>),
    /// `u32` rows.
    U32(Vec<u32>),
    /// `i32` rows.
    I32(Vec<i32>),
    /// `f64` rows.
    F64(Vec<f64>),
    /// `f32` rows.
    F32(Vec<f32>),
    /// `bool` rows.
    Bool(Vec<bool>),
    /// Strings, bytes, JSON, or any column that met a `None`.
    Values(Vec<Value>),
}

impl Column {
    /// An empty column for values of type `ty` with room for `capacity` rows,
    /// or `None` when that much memory cannot be had (never an abort).
    pub fn for_type(ty: PortType, capacity: usize) -> Option<Column> {
        fn room<T>(capacity: usize) -> Option<Vec<T>> {
            let mut v = Vec::new();
            v.try_reserve_exact(capacity).ok()?;
            Some(v)
        }
        Some(match ty {
            PortType::U64 => Column::U64(room(capacity)?),
            PortType::I64 => Column::I64(room(capacity)?),
            PortType::U32 => Column::U32(room(capacity)?),
            PortType::I32 => Column::I32(room(capacity)?),
            PortType::F64 => Column::F64(room(capacity)?),
            PortType::F32 => Column::F32(room(capacity)?),
            PortType::Bool => Column::Bool(room(capacity)?),
            PortType::Str | PortType::Bytes | PortType::Json => Column::Values(room(capacity)?),
        })
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        match self {
            Column::U64(v) => v.len(),
            Column::I64(v) => v.len(),
            Column::U32(v) => v.len(),
            Column::I32(v) => v.len(),
            Column::F64(v) => v.len(),
            Column::F32(v) => v.len(),
            Column::Bool(v) => v.len(),
            Column::Values(v) => v.len(),
        }
    }

    /// True when there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends one value; a `None` (or a stray type) turns the column into `Values`.
    #[inline]
    pub fn push(&mut self, v: &Value) {
        match (&mut *self, v) {
            (Column::U64(c), Value::U64(x)) => c.push(*x),
            (Column::F64(c), Value::F64(x)) => c.push(*x),
            (Column::I64(c), Value::I64(x)) => c.push(*x),
            (Column::U32(c), Value::U32(x)) => c.push(*x),
            (Column::I32(c), Value::I32(x)) => c.push(*x),
            (Column::F32(c), Value::F32(x)) => c.push(*x),
            (Column::Bool(c), Value::Bool(x)) => c.push(*x),
            (Column::Values(c), v) => c.push(v.clone()),
            (_, v) => {
                let mut values = self.to_values();
                values.push(v.clone());
                *self = Column::Values(values);
            }
        }
    }

    /// Appends one scalar of type `ty` given as its slot word (the P2 row
    /// read: no `Value` in between).
    #[inline]
    pub fn push_word(&mut self, ty: PortType, word: u64) {
        match self {
            Column::U64(c) => c.push(word),
            Column::I64(c) => c.push(i64::from_slot(word)),
            Column::U32(c) => c.push(u32::from_slot(word)),
            Column::I32(c) => c.push(i32::from_slot(word)),
            Column::F64(c) => c.push(f64::from_slot(word)),
            Column::F32(c) => c.push(f32::from_slot(word)),
            Column::Bool(c) => c.push(bool::from_slot(word)),
            Column::Values(_) => self.push(&crate::node::kit::slot_to_value(ty, word)),
        }
    }

    /// Appends scalars of type `ty` given as slot words (the P2 block read).
    pub fn extend_words(&mut self, ty: PortType, words: &[u64]) {
        match self {
            Column::U64(c) => c.extend_from_slice(words),
            Column::I64(c) => c.extend(words.iter().map(|&w| i64::from_slot(w))),
            Column::U32(c) => c.extend(words.iter().map(|&w| u32::from_slot(w))),
            Column::I32(c) => c.extend(words.iter().map(|&w| i32::from_slot(w))),
            Column::F64(c) => c.extend(words.iter().map(|&w| f64::from_slot(w))),
            Column::F32(c) => c.extend(words.iter().map(|&w| f32::from_slot(w))),
            Column::Bool(c) => c.extend(words.iter().map(|&w| bool::from_slot(w))),
            Column::Values(_) => words.iter().for_each(|&w| self.push_word(ty, w)),
        }
    }

    /// The rows as values.
    pub fn to_values(&self) -> Vec<Value> {
        match self {
            Column::U64(c) => c.iter().map(|x| Value::U64(*x)).collect(),
            Column::I64(c) => c.iter().map(|x| Value::I64(*x)).collect(),
            Column::U32(c) => c.iter().map(|x| Value::U32(*x)).collect(),
            Column::I32(c) => c.iter().map(|x| Value::I32(*x)).collect(),
            Column::F64(c) => c.iter().map(|x| Value::F64(*x)).collect(),
            Column::F32(c) => c.iter().map(|x| Value::F32(*x)).collect(),
            Column::Bool(c) => c.iter().map(|x| Value::Bool(*x)).collect(),
            Column::Values(c) => c.clone(),
        }
    }

    /// Appends every row of `other` (same variant, or both become `Values`).
    pub fn extend(&mut self, other: Column) {
        match (&mut *self, other) {
            (Column::U64(a), Column::U64(b)) => a.extend(b),
            (Column::I64(a), Column::I64(b)) => a.extend(b),
            (Column::U32(a), Column::U32(b)) => a.extend(b),
            (Column::I32(a), Column::I32(b)) => a.extend(b),
            (Column::F64(a), Column::F64(b)) => a.extend(b),
            (Column::F32(a), Column::F32(b)) => a.extend(b),
            (Column::Bool(a), Column::Bool(b)) => a.extend(b),
            (Column::Values(a), b) => a.extend(b.to_values()),
            (_, b) => {
                let mut values = self.to_values();
                values.extend(b.to_values());
                *self = Column::Values(values);
            }
        }
    }
}
