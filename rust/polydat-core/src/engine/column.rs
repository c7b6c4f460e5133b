//! Typed output columns filled by `generate`: one contiguous vector per
//! output, typed by the output's declared type (never by the data), handed to
//! the host without per-value conversion. A scalar column that meets `None`
//! keeps its type: the row holds the type's zero and its index is listed in
//! [`Column::nulls`] (numpy gets a masked array, Arrow a validity bitmap).
//!
//! Threads write straight into the final column: [`Column::split`] hands
//! each thread a [`ColumnPart`] over its own rows, so nothing is copied when
//! the threads finish ([`Column::absorb`] only gathers the null lists, and the
//! by-reference values, which are moved).

use crate::node::kit::Scalar;
use crate::types::PortType;
use crate::value::Value;

/// One output's values over a range of cycles.
#[derive(Clone, Debug)]
pub struct Column {
    /// The rows, in the declared type's own representation.
    pub data: ColumnData,
    /// Rows (ascending) that hold `None`; in a scalar column the row itself
    /// holds the type's zero. Always empty for a by-reference column, whose
    /// rows are `Value`s and can be `None` themselves.
    pub nulls: Vec<usize>,
}

/// The rows of a column.
#[derive(Clone, Debug)]
pub enum ColumnData {
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
    /// Strings, bytes and JSON (`None` rows are `Value::None`).
    Values(Vec<Value>),
}

/// Allocates `rows` zeros without aborting when memory runs out.
fn zeros<T: Clone + Default>(rows: usize) -> Option<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(rows).ok()?;
    v.resize(rows, T::default());
    Some(v)
}

impl Column {
    /// A column of `rows` rows of type `ty` to be filled through
    /// [`Column::split`] (scalar rows start as zeros), or `None` when that
    /// much memory cannot be had (never an abort).
    pub fn new(ty: PortType, rows: usize) -> Option<Column> {
        let data = match ty {
            PortType::U64 => ColumnData::U64(zeros(rows)?),
            PortType::I64 => ColumnData::I64(zeros(rows)?),
            PortType::U32 => ColumnData::U32(zeros(rows)?),
            PortType::I32 => ColumnData::I32(zeros(rows)?),
            PortType::F64 => ColumnData::F64(zeros(rows)?),
            PortType::F32 => ColumnData::F32(zeros(rows)?),
            PortType::Bool => ColumnData::Bool(zeros(rows)?),
            PortType::Str | PortType::Bytes | PortType::Json => {
                let mut v = Vec::new();
                v.try_reserve_exact(rows).ok()?;
                ColumnData::Values(v)
            }
        };
        Some(Column { data, nulls: Vec::new() })
    }

    /// A column of `rows` copies of `value`, of type `ty`.
    pub fn filled(ty: PortType, rows: usize, value: &Value) -> Option<Column> {
        let mut column = Column::new(ty, rows)?;
        let mut parts = column.split(&[rows]);
        for _ in 0..rows {
            parts[0].push(value);
        }
        let done: Vec<PartDone> = parts.into_iter().map(ColumnPart::done).collect();
        column.absorb(done);
        Some(column)
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        match &self.data {
            ColumnData::U64(v) => v.len(),
            ColumnData::I64(v) => v.len(),
            ColumnData::U32(v) => v.len(),
            ColumnData::I32(v) => v.len(),
            ColumnData::F64(v) => v.len(),
            ColumnData::F32(v) => v.len(),
            ColumnData::Bool(v) => v.len(),
            ColumnData::Values(v) => v.len(),
        }
    }

    /// True when there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Row `i` as a value (`None` for a null row).
    pub fn get(&self, i: usize) -> Value {
        if self.nulls.binary_search(&i).is_ok() {
            return Value::None;
        }
        match &self.data {
            ColumnData::U64(v) => Value::U64(v[i]),
            ColumnData::I64(v) => Value::I64(v[i]),
            ColumnData::U32(v) => Value::U32(v[i]),
            ColumnData::I32(v) => Value::I32(v[i]),
            ColumnData::F64(v) => Value::F64(v[i]),
            ColumnData::F32(v) => Value::F32(v[i]),
            ColumnData::Bool(v) => Value::Bool(v[i]),
            ColumnData::Values(v) => v[i].clone(),
        }
    }

    /// Every row as a value (`None` for a null row).
    pub fn to_values(&self) -> Vec<Value> {
        (0..self.len()).map(|i| self.get(i)).collect()
    }

    /// Splits the rows into consecutive parts of `counts` rows each (their
    /// sum must be the column's length), one per writer.
    pub fn split(&mut self, counts: &[usize]) -> Vec<ColumnPart<'_>> {
        fn cut<'a, T>(mut rows: &'a mut [T], counts: &[usize]) -> Vec<&'a mut [T]> {
            let mut parts = Vec::with_capacity(counts.len());
            for &n in counts {
                let (part, rest) = std::mem::take(&mut rows).split_at_mut(n);
                parts.push(part);
                rows = rest;
            }
            parts
        }
        let data: Vec<PartData<'_>> = match &mut self.data {
            ColumnData::U64(v) => cut(v, counts).into_iter().map(PartData::U64).collect(),
            ColumnData::I64(v) => cut(v, counts).into_iter().map(PartData::I64).collect(),
            ColumnData::U32(v) => cut(v, counts).into_iter().map(PartData::U32).collect(),
            ColumnData::I32(v) => cut(v, counts).into_iter().map(PartData::I32).collect(),
            ColumnData::F64(v) => cut(v, counts).into_iter().map(PartData::F64).collect(),
            ColumnData::F32(v) => cut(v, counts).into_iter().map(PartData::F32).collect(),
            ColumnData::Bool(v) => cut(v, counts).into_iter().map(PartData::Bool).collect(),
            ColumnData::Values(_) => counts.iter().map(|&n| PartData::Values(Vec::with_capacity(n))).collect(),
        };
        let mut first = 0;
        data.into_iter()
            .zip(counts)
            .map(|(data, &n)| {
                let part = ColumnPart { data, at: 0, first, nulls: Vec::new() };
                first += n;
                part
            })
            .collect()
    }

    /// Takes back the finished parts of a [`Column::split`], in row order.
    pub fn absorb(&mut self, parts: Vec<PartDone>) {
        for part in parts {
            self.nulls.extend(part.nulls);
            if let (ColumnData::Values(all), Some(values)) = (&mut self.data, part.values) {
                all.extend(values);
            }
        }
    }
}

/// The rows of one [`ColumnPart`].
enum PartData<'a> {
    U64(&'a mut [u64]),
    I64(&'a mut [i64]),
    U32(&'a mut [u32]),
    I32(&'a mut [i32]),
    F64(&'a mut [f64]),
    F32(&'a mut [f32]),
    Bool(&'a mut [bool]),
    Values(Vec<Value>),
}

/// One writer's share of a column's rows (see [`Column::split`]), filled in
/// order by `push`, `push_word` and `extend_words`.
pub struct ColumnPart<'a> {
    data: PartData<'a>,
    /// The next row of this part to write.
    at: usize,
    /// The column row of this part's first row.
    first: usize,
    /// Column rows of this part that hold `None`.
    nulls: Vec<usize>,
}

/// What a finished [`ColumnPart`] hands back to its column.
pub struct PartDone {
    nulls: Vec<usize>,
    values: Option<Vec<Value>>,
}

impl ColumnPart<'_> {
    /// Ends the part (see [`Column::absorb`]).
    pub fn done(self) -> PartDone {
        let values = match self.data {
            PartData::Values(v) => Some(v),
            _ => None,
        };
        PartDone { nulls: self.nulls, values }
    }

    /// Rows written so far.
    pub fn written(&self) -> usize {
        match &self.data {
            PartData::Values(v) => v.len(),
            _ => self.at,
        }
    }

    /// Writes the next row; `None` (or a value of another type, which a typed
    /// program never produces) makes it a null row.
    #[inline]
    pub fn push(&mut self, v: &Value) {
        let at = self.at;
        let stored = match (&mut self.data, v) {
            (PartData::U64(c), Value::U64(x)) => c.get_mut(at).map(|r| *r = *x),
            (PartData::F64(c), Value::F64(x)) => c.get_mut(at).map(|r| *r = *x),
            (PartData::I64(c), Value::I64(x)) => c.get_mut(at).map(|r| *r = *x),
            (PartData::U32(c), Value::U32(x)) => c.get_mut(at).map(|r| *r = *x),
            (PartData::I32(c), Value::I32(x)) => c.get_mut(at).map(|r| *r = *x),
            (PartData::F32(c), Value::F32(x)) => c.get_mut(at).map(|r| *r = *x),
            (PartData::Bool(c), Value::Bool(x)) => c.get_mut(at).map(|r| *r = *x),
            (PartData::Values(c), v) => {
                c.push(v.clone());
                return;
            }
            _ => None,
        };
        if stored.is_none() {
            self.nulls.push(self.first + at);
        }
        self.at += 1;
    }

    /// Writes the next row: a scalar of type `ty` given as its slot word (the
    /// P2 row read: no `Value` in between).
    #[inline]
    pub fn push_word(&mut self, ty: PortType, word: u64) {
        let at = self.at;
        let stored = match &mut self.data {
            PartData::U64(c) => c.get_mut(at).map(|r| *r = word),
            PartData::I64(c) => c.get_mut(at).map(|r| *r = i64::from_slot(word)),
            PartData::U32(c) => c.get_mut(at).map(|r| *r = u32::from_slot(word)),
            PartData::I32(c) => c.get_mut(at).map(|r| *r = i32::from_slot(word)),
            PartData::F64(c) => c.get_mut(at).map(|r| *r = f64::from_slot(word)),
            PartData::F32(c) => c.get_mut(at).map(|r| *r = f32::from_slot(word)),
            PartData::Bool(c) => c.get_mut(at).map(|r| *r = bool::from_slot(word)),
            PartData::Values(_) => return self.push(&crate::node::kit::slot_to_value(ty, word)),
        };
        if stored.is_none() {
            self.nulls.push(self.first + at);
        }
        self.at += 1;
    }

    /// Writes the next rows: scalars of type `ty` given as slot words (the P2
    /// block read).
    pub fn extend_words(&mut self, ty: PortType, words: &[u64]) {
        fn put<T>(rows: &mut [T], at: usize, words: &[u64], f: impl Fn(u64) -> T) -> bool {
            match rows.get_mut(at..at + words.len()) {
                Some(dst) => {
                    dst.iter_mut().zip(words).for_each(|(d, &w)| *d = f(w));
                    true
                }
                None => false,
            }
        }
        let at = self.at;
        let fitted = match &mut self.data {
            PartData::U64(c) => put(c, at, words, |w| w),
            PartData::I64(c) => put(c, at, words, i64::from_slot),
            PartData::U32(c) => put(c, at, words, u32::from_slot),
            PartData::I32(c) => put(c, at, words, i32::from_slot),
            PartData::F64(c) => put(c, at, words, f64::from_slot),
            PartData::F32(c) => put(c, at, words, f32::from_slot),
            PartData::Bool(c) => put(c, at, words, bool::from_slot),
            PartData::Values(_) => false,
        };
        if fitted {
            self.at += words.len();
        } else {
            words.iter().for_each(|&w| self.push_word(ty, w));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_write_in_place_and_nulls_keep_the_type() {
        let mut column = Column::new(PortType::U64, 5).unwrap();
        let mut parts = column.split(&[2, 3]);
        parts[1].extend_words(PortType::U64, &[30, 40]);
        parts[1].push(&Value::None);
        parts[0].push(&Value::U64(10));
        parts[0].push_word(PortType::U64, 20);
        let done: Vec<PartDone> = parts.into_iter().map(ColumnPart::done).collect();
        column.absorb(done);
        assert!(matches!(&column.data, ColumnData::U64(v) if v == &[10, 20, 30, 40, 0]));
        assert_eq!(column.nulls, [4]);
        assert!(column.get(4).is_none() && column.get(2).same(&Value::U64(30)));
    }

    #[test]
    fn by_reference_parts_are_moved_in_order() {
        let mut column = Column::new(PortType::Str, 3).unwrap();
        let mut parts = column.split(&[1, 2]);
        parts[1].push(&Value::str("b"));
        parts[1].push(&Value::None);
        parts[0].push(&Value::str("a"));
        let done: Vec<PartDone> = parts.into_iter().map(ColumnPart::done).collect();
        column.absorb(done);
        let rows: Vec<Value> = (0..3).map(|i| column.get(i)).collect();
        assert!(rows[0].same(&Value::str("a")) && rows[1].same(&Value::str("b")) && rows[2].is_none());
        assert!(column.nulls.is_empty());
    }

    #[test]
    fn a_filled_column_repeats_its_value() {
        let column = Column::filled(PortType::F64, 3, &Value::F64(-0.0)).unwrap();
        assert!(matches!(&column.data, ColumnData::F64(v) if v.iter().all(|x| x.to_bits() == (-0.0f64).to_bits())));
        let nulls = Column::filled(PortType::I64, 2, &Value::None).unwrap();
        assert_eq!(nulls.nulls, [0, 1]);
    }
}
