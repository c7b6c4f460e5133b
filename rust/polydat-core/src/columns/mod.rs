//! Typed output columns filled by `generate`, in Apache Arrow's memory
//! layout: one contiguous vector per output, typed by the output's declared
//! type (never by the data), handed to the host without per-value
//! conversion. Scalars are a values buffer; `str`, `json` and `bytes` are
//! Arrow's variable-size layout (`offsets` + `data`, row `i` is
//! `data[offsets[i]..offsets[i + 1]]`), never one object per row. A row that
//! holds `None` keeps its type: a scalar row holds the type's zero, a
//! variable-size row is empty, and its index is listed in [`Column::nulls`]
//! ([`Column::validity`] is the Arrow validity bitmap; numpy gets a masked
//! array). A `timestamp` column is its epoch milliseconds (i64 rows), a
//! `date` column its days since 1970-01-01 (i32 rows): [`Column::ty`] says
//! which.
//!
//! Threads write straight into the final column: [`Column::split`] hands
//! each thread a [`ColumnPart`] over its own rows, so nothing is copied when
//! the threads finish ([`Column::absorb`] only gathers the null lists and
//! appends the variable-size parts, the first of which is moved).
//!
//! Running out of memory is never an abort: every buffer that grows with
//! the rows grows by fallible reservation. A part that cannot grow is
//! marked ([`ColumnPart::out_of_memory`]) and writes nothing more; the row
//! loops stop at their next check, and [`Column::absorb`] reports
//! [`NoMemory`], which `generate` turns into its out-of-memory error.
//!
//! [`text`] encodes columns as CSV or JSON-lines rows; [`formats`] is the
//! registry of the output formats rows are written in.

pub mod formats;
pub mod text;

use crate::node::by_bytes::{Sink, StrTable, SHORT};
use crate::node::kit::Scalar;
use crate::types::PortType;
use crate::value::Value;
use std::marker::PhantomData;
use std::sync::Arc;

/// Memory for a column's rows could not be had (an allocation was refused).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NoMemory;

/// Room for `more` elements of `v`, or [`NoMemory`].
#[inline]
fn room<T>(v: &mut Vec<T>, more: usize) -> Result<(), NoMemory> {
    v.try_reserve(more).map_err(|_| NoMemory)
}

/// One output's values over a range of cycles.
#[derive(Clone, Debug)]
pub struct Column {
    /// The declared type of the rows.
    pub ty: PortType,
    /// The rows, in the declared type's own representation.
    pub data: ColumnData,
    /// Rows (ascending) that hold `None`; the row itself holds the type's
    /// zero (an empty value for `str`, `json` and `bytes`).
    pub nulls: Vec<usize>,
    /// For a `str` column whose every row is a pick among one table's
    /// strings (a compiled `__pick_text` step's), each row's index into
    /// the table, beside the rows' text (a null row's index is 0): an Arrow
    /// consumer may take the column as a dictionary array.
    pub picks: Option<Picks>,
}

/// Each row of a column as an index into a table of strings (see [`Column::picks`]).
#[derive(Clone, Debug)]
pub struct Picks {
    /// The strings.
    pub table: Arc<StrTable>,
    /// Per row, its string's index in `table`.
    pub indices: Vec<u32>,
}

/// A table of at most this many strings is searched for a row written
/// outside a batch of picks ([`ColumnPart::track_picks`]); past it such a
/// row ends the part's picks.
const SEARCHED_TABLE: usize = 256;

/// Where a part stands on recording its rows' picks.
#[derive(Debug)]
enum PickState {
    /// Not asked to.
    Untracked,
    /// Every row so far is a pick of these.
    Tracking(Picks),
    /// Some row could not be recorded: the part has no picks.
    Lost,
}

/// The rows of a column.
#[derive(Clone, Debug)]
pub enum ColumnData {
    /// `u64` rows.
    U64(Vec<u64>),
    /// `i64` rows (epoch milliseconds in a `timestamp` column).
    I64(Vec<i64>),
    /// `u32` rows.
    U32(Vec<u32>),
    /// `i32` rows (days since 1970-01-01 in a `date` column).
    I32(Vec<i32>),
    /// `u16` rows.
    U16(Vec<u16>),
    /// `i16` rows.
    I16(Vec<i16>),
    /// `u8` rows.
    U8(Vec<u8>),
    /// `i8` rows.
    I8(Vec<i8>),
    /// `f64` rows.
    F64(Vec<f64>),
    /// `f32` rows.
    F32(Vec<f32>),
    /// `f16` rows.
    F16(Vec<half::f16>),
    /// `bool` rows.
    Bool(Vec<bool>),
    /// `str`, `json` (UTF-8 text) or `bytes` rows, in Arrow's variable-size layout.
    Var(VarRows),
}

/// The row boundaries of [`VarRows`]: 32-bit while the data fits in
/// `i32::MAX` bytes (Arrow's `string`/`binary` layout, handed over as is),
/// 64-bit from the row that crosses it on (Arrow's large layout).
#[derive(Clone, Debug)]
pub enum Offsets {
    /// Every offset at most `i32::MAX`.
    Narrow(Vec<i32>),
    /// Offsets past `i32::MAX`.
    Wide(Vec<i64>),
}

impl Default for Offsets {
    fn default() -> Self {
        Offsets::Narrow(Vec::new())
    }
}

impl Offsets {
    /// Number of offsets.
    #[inline]
    pub fn len(&self) -> usize {
        match self {
            Offsets::Narrow(v) => v.len(),
            Offsets::Wide(v) => v.len(),
        }
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Offset `i`.
    #[inline]
    pub fn get(&self, i: usize) -> usize {
        match self {
            Offsets::Narrow(v) => v[i] as usize,
            Offsets::Wide(v) => v[i] as usize,
        }
    }

    /// The last offset (the end of the last row).
    #[inline]
    fn last(&self) -> usize {
        self.get(self.len() - 1)
    }

    /// Keeps the first `len` offsets.
    fn truncate(&mut self, len: usize) {
        match self {
            Offsets::Narrow(v) => v.truncate(len),
            Offsets::Wide(v) => v.truncate(len),
        }
    }

    /// Room for `more` offsets, when memory allows (best effort).
    fn try_reserve(&mut self, more: usize) {
        let _ = match self {
            Offsets::Narrow(v) => v.try_reserve_exact(more),
            Offsets::Wide(v) => v.try_reserve_exact(more),
        };
    }

    /// Appends offset `end` (widening every offset when it passes `i32::MAX`).
    #[inline]
    fn push(&mut self, end: usize) -> Result<(), NoMemory> {
        match self {
            Offsets::Narrow(v) if end <= i32::MAX as usize => {
                room(v, 1)?;
                v.push(end as i32);
            }
            _ => {
                let wide = self.wide()?;
                room(wide, 1)?;
                wide.push(end as i64);
            }
        }
        Ok(())
    }

    /// The 64-bit offsets, converting narrow ones first.
    #[cold]
    fn wide(&mut self) -> Result<&mut Vec<i64>, NoMemory> {
        if let Offsets::Narrow(v) = self {
            let mut wide = Vec::new();
            wide.try_reserve_exact(v.len() + 1).map_err(|_| NoMemory)?;
            wide.extend(v.iter().map(|&o| i64::from(o)));
            *self = Offsets::Wide(wide);
        }
        match self {
            Offsets::Wide(v) => Ok(v),
            Offsets::Narrow(_) => unreachable!("just widened"),
        }
    }

    /// Appends `other`'s offsets after its first, each moved by `base`.
    fn extend_rebased(&mut self, other: &Offsets, base: usize) -> Result<(), NoMemory> {
        let last = base + other.last();
        let more = other.len() - 1;
        match (&mut *self, other) {
            (Offsets::Narrow(v), Offsets::Narrow(o)) if last <= i32::MAX as usize => {
                room(v, more)?;
                v.extend(o[1..].iter().map(|&x| x + base as i32));
            }
            _ => {
                let wide = self.wide()?;
                room(wide, more)?;
                wide.extend((1..other.len()).map(|i| (other.get(i) + base) as i64));
            }
        }
        Ok(())
    }
}

/// Variable-size rows in Arrow's layout: `offsets` has one more entry than
/// there are rows, starting at 0; row `i` is `data[offsets[i]..offsets[i + 1]]`.
#[derive(Clone, Debug, Default)]
pub struct VarRows {
    /// Row boundaries into `data` (`rows + 1` entries, non-decreasing, first 0).
    pub offsets: Offsets,
    /// Every row's bytes, back to back (UTF-8 for `str` and `json`).
    pub data: Vec<u8>,
}

/// The rows of a [`VarRows`] whose data is UTF-8 ([`VarRows::texts`]).
#[derive(Clone, Copy, Debug)]
pub struct RowTexts<'a> {
    rows: &'a VarRows,
    all: &'a str,
}

impl<'a> RowTexts<'a> {
    /// Row `i`'s text (empty when its bounds split a character, which no
    /// row of a `str` or `json` column does).
    #[inline]
    pub fn get(&self, i: usize) -> &'a str {
        self.all.get(self.rows.bounds(i)).unwrap_or_default()
    }
}

impl VarRows {
    fn with_rows(rows: usize) -> Option<VarRows> {
        let mut offsets = Vec::new();
        offsets.try_reserve_exact(rows + 1).ok()?;
        offsets.push(0);
        Some(VarRows { offsets: Offsets::Narrow(offsets), data: Vec::new() })
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// True when there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes of row `i`.
    #[inline]
    pub fn row(&self, i: usize) -> &[u8] {
        &self.data[self.bounds(i)]
    }

    /// The rows as consecutive `width`-byte chunks, for a column whose rows
    /// are never longer than `width` (a decimal's or a 128-bit integer's 16
    /// bytes, a null row's none): `Some` exactly when every row has `width`
    /// bytes, so no row is null, read with no offset per row.
    pub fn rows_of_width(&self, width: usize) -> Option<std::slice::ChunksExact<'_, u8>> {
        (width > 0 && self.data.len() == self.len() * width).then(|| self.data.chunks_exact(width))
    }

    /// Where row `i`'s bytes lie in `data`.
    #[inline]
    fn bounds(&self, i: usize) -> std::ops::Range<usize> {
        match &self.offsets {
            Offsets::Narrow(v) => v[i] as usize..v[i + 1] as usize,
            Offsets::Wide(v) => v[i] as usize..v[i + 1] as usize,
        }
    }

    /// The rows as text, the data checked as UTF-8 once for all of them
    /// (where [`Self::text`] checks each row it reads); `None` when the
    /// data is not UTF-8 (no `str` or `json` column's).
    pub fn texts(&self) -> Option<RowTexts<'_>> {
        std::str::from_utf8(&self.data).ok().map(|all| RowTexts { rows: self, all })
    }

    /// Row `i` as text (the rows of `str` and `json` columns are UTF-8 by
    /// construction; anything else reads as empty).
    #[inline]
    pub fn text(&self, i: usize) -> &str {
        std::str::from_utf8(self.row(i)).unwrap_or_default()
    }

    /// The rows as Arrow's 32-bit layout (offsets, data), moved out with no
    /// conversion; `Err` gives the rows back when the data holds more than
    /// `i32::MAX` bytes.
    pub fn into_narrow(self) -> Result<(Vec<i32>, Vec<u8>), VarRows> {
        match self.offsets {
            Offsets::Narrow(offsets) => Ok((offsets, self.data)),
            wide => Err(VarRows { offsets: wide, data: self.data }),
        }
    }

    #[inline]
    fn push(&mut self, bytes: &[u8]) -> Result<(), NoMemory> {
        room(&mut self.data, bytes.len())?;
        self.data.extend_from_slice(bytes);
        self.offsets.push(self.data.len())
    }

    /// Appends string `i` of `table` as a row for each index `i` (each
    /// below the table's length), making room for all of them at once.
    fn push_picked(&mut self, table: &StrTable, indices: &[u64]) -> Result<(), NoMemory> {
        let bytes: usize = indices.iter().map(|&i| table.bytes(i as usize).len()).sum();
        room(&mut self.data, bytes)?;
        match &mut self.offsets {
            // The common case: every offset stays narrow, room made once.
            Offsets::Narrow(offsets) if self.data.len() + bytes <= i32::MAX as usize => {
                room(offsets, indices.len())?;
                let short = table.short();
                if !short.is_empty() {
                    // Each string copied as its padded bytes (a fixed-size
                    // copy, into room made for the padding), then cut to length.
                    room(&mut self.data, bytes + SHORT)?;
                    for &i in indices {
                        let end = self.data.len() + table.bytes(i as usize).len();
                        self.data.extend_from_slice(&short[i as usize]);
                        self.data.truncate(end);
                        offsets.push(end as i32);
                    }
                    return Ok(());
                }
                for &i in indices {
                    self.data.extend_from_slice(table.bytes(i as usize));
                    offsets.push(self.data.len() as i32);
                }
            }
            _ => {
                for &i in indices {
                    self.data.extend_from_slice(table.bytes(i as usize));
                    self.offsets.push(self.data.len())?;
                }
            }
        }
        Ok(())
    }

    /// Appends the rows of `parts`, in order: the first moved in when there
    /// are no rows yet, then room made once for all the others, each copied.
    /// Returns the parts copied, emptied, their memory kept (see
    /// [`Column::split_reusing`]).
    fn append_all(&mut self, parts: Vec<VarRows>) -> Result<Vec<VarRows>, NoMemory> {
        let mut parts = parts.into_iter();
        if self.is_empty() && self.data.is_empty() {
            match parts.next() {
                Some(first) => *self = first,
                None => return Ok(Vec::new()),
            }
        }
        let rest: Vec<VarRows> = parts.collect();
        let bytes = rest.iter().map(|v| v.data.len()).sum();
        self.data.try_reserve_exact(bytes).map_err(|_| NoMemory)?;
        self.offsets.try_reserve(rest.iter().map(VarRows::len).sum());
        for part in &rest {
            let base = self.data.len();
            self.data.extend_from_slice(&part.data);
            self.offsets.extend_rebased(&part.offsets, base)?;
        }
        // Give back what the data was reserved beyond its rows.
        if self.data.capacity() - self.data.len() > self.data.len() / 16 + 4096 {
            self.data.shrink_to_fit();
        }
        Ok(rest.into_iter().map(VarRows::emptied).collect())
    }

    /// No rows (not even the first offset), with the memory kept: a part's
    /// buffers to fill again.
    fn emptied(mut self) -> VarRows {
        self.data.clear();
        match &mut self.offsets {
            Offsets::Narrow(v) => v.clear(),
            wide => *wide = Offsets::default(),
        }
        self
    }
}

/// A part's variable-size data moved out of it for a by-bytes form to
/// append its rows to in place ([`ColumnPart::take_appended`]).
#[derive(Debug)]
pub enum Appended {
    /// A `str` or `json` part's text.
    Text(String),
    /// Any other variable-size part's bytes.
    Bytes(Vec<u8>),
}

impl Appended {
    /// Where a by-bytes form appends the next row.
    #[inline]
    pub fn sink(&mut self) -> Sink<'_> {
        match self {
            Appended::Text(text) => Sink::Text(text),
            Appended::Bytes(bytes) => Sink::Bytes(bytes),
        }
    }

    /// The bytes held.
    #[inline]
    fn len(&self) -> usize {
        match self {
            Appended::Text(text) => text.len(),
            Appended::Bytes(bytes) => bytes.len(),
        }
    }

    /// The bytes that can be appended without growing.
    #[inline]
    fn spare(&self) -> usize {
        match self {
            Appended::Text(text) => text.capacity() - text.len(),
            Appended::Bytes(bytes) => bytes.capacity() - bytes.len(),
        }
    }

    /// Makes room for `more` bytes; false when that memory cannot be had.
    fn try_reserve(&mut self, more: usize) -> bool {
        match self {
            Appended::Text(text) => text.try_reserve(more).is_ok(),
            Appended::Bytes(bytes) => bytes.try_reserve(more).is_ok(),
        }
    }

    /// Drops what is held, keeping the room.
    fn clear(&mut self) {
        match self {
            Appended::Text(text) => text.clear(),
            Appended::Bytes(bytes) => bytes.clear(),
        }
    }

    /// Keeps the first `len` bytes (a row boundary).
    fn truncate(&mut self, len: usize) {
        match self {
            Appended::Text(text) => text.truncate(len),
            Appended::Bytes(bytes) => bytes.truncate(len),
        }
    }

    /// Drops what is held and its room.
    fn release(&mut self) {
        match self {
            Appended::Text(text) => *text = String::new(),
            Appended::Bytes(bytes) => *bytes = Vec::new(),
        }
    }

    /// The bytes held.
    fn into_bytes(self) -> Vec<u8> {
        match self {
            Appended::Text(text) => text.into_bytes(),
            Appended::Bytes(bytes) => bytes,
        }
    }
}

/// The fewest bytes of room a part's text keeps for its next rows while it
/// is out ([`ColumnPart::end_appended_row`]).
pub const TEXT_ROOM: usize = 4096;

/// The bytes to reserve for `rows` rows of variable-size data expected at
/// `bytes_per_row` (a measured average), with a small margin so that a
/// slightly longer stretch of rows still fits.
pub fn reservation(bytes_per_row: f64, rows: usize) -> usize {
    (bytes_per_row * 1.03 * rows as f64) as usize
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
            PortType::I64 | PortType::Timestamp => ColumnData::I64(zeros(rows)?),
            PortType::U32 => ColumnData::U32(zeros(rows)?),
            PortType::I32 | PortType::Date => ColumnData::I32(zeros(rows)?),
            PortType::U16 => ColumnData::U16(zeros(rows)?),
            PortType::I16 => ColumnData::I16(zeros(rows)?),
            PortType::U8 => ColumnData::U8(zeros(rows)?),
            PortType::I8 => ColumnData::I8(zeros(rows)?),
            PortType::F64 => ColumnData::F64(zeros(rows)?),
            PortType::F32 => ColumnData::F32(zeros(rows)?),
            PortType::F16 => ColumnData::F16(zeros(rows)?),
            PortType::Bool => ColumnData::Bool(zeros(rows)?),
            PortType::Str
            | PortType::Bytes
            | PortType::Json
            | PortType::Decimal(_)
            | PortType::Vector(_)
            | PortType::U128
            | PortType::I128 => ColumnData::Var(VarRows::with_rows(0)?),
        };
        Some(Column { ty, data, nulls: Vec::new(), picks: None })
    }

    /// A column of `rows` copies of `value`, of type `ty`.
    pub fn filled(ty: PortType, rows: usize, value: &Value) -> Option<Column> {
        let mut column = Column::new(ty, rows)?;
        let mut parts = column.split(&[rows]);
        if let Some(bytes) = var_bytes(ty, value) {
            parts[0].reserve_bytes(bytes.len().checked_mul(rows)?)?;
        }
        for _ in 0..rows {
            parts[0].push(value);
        }
        let done: Vec<PartDone> = parts.into_iter().map(ColumnPart::done).collect();
        column.absorb(done).ok()?;
        Some(column)
    }

    /// The `u64` column of the cycle numbers `start, start + step, ...`
    /// (wrapping) of `rows` rows.
    pub fn cycles(start: u64, rows: usize, step: u64) -> Option<Column> {
        let mut values = Vec::new();
        values.try_reserve_exact(rows).ok()?;
        let mut cycle = start;
        for _ in 0..rows {
            values.push(cycle);
            cycle = cycle.wrapping_add(step);
        }
        Some(Column { ty: PortType::U64, data: ColumnData::U64(values), nulls: Vec::new(), picks: None })
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        match &self.data {
            ColumnData::U64(v) => v.len(),
            ColumnData::I64(v) => v.len(),
            ColumnData::U32(v) => v.len(),
            ColumnData::I32(v) => v.len(),
            ColumnData::U16(v) => v.len(),
            ColumnData::I16(v) => v.len(),
            ColumnData::U8(v) => v.len(),
            ColumnData::I8(v) => v.len(),
            ColumnData::F64(v) => v.len(),
            ColumnData::F32(v) => v.len(),
            ColumnData::F16(v) => v.len(),
            ColumnData::Bool(v) => v.len(),
            ColumnData::Var(v) => v.len(),
        }
    }

    /// True when there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True when row `i` holds `None`.
    #[inline]
    pub fn is_null(&self, i: usize) -> bool {
        !self.nulls.is_empty() && self.nulls.binary_search(&i).is_ok()
    }

    /// Row `i` as a value (`None` for a null row).
    pub fn get(&self, i: usize) -> Value {
        if self.is_null(i) {
            return Value::None;
        }
        match &self.data {
            ColumnData::U64(v) => Value::U64(v[i]),
            ColumnData::I64(v) if self.ty == PortType::Timestamp => Value::Timestamp(v[i]),
            ColumnData::I64(v) => Value::I64(v[i]),
            ColumnData::U32(v) => Value::U32(v[i]),
            ColumnData::I32(v) if self.ty == PortType::Date => Value::Date(v[i]),
            ColumnData::I32(v) => Value::I32(v[i]),
            ColumnData::U16(v) => Value::U16(v[i]),
            ColumnData::I16(v) => Value::I16(v[i]),
            ColumnData::U8(v) => Value::U8(v[i]),
            ColumnData::I8(v) => Value::I8(v[i]),
            ColumnData::F64(v) => Value::F64(v[i]),
            ColumnData::F32(v) => Value::F32(v[i]),
            ColumnData::F16(v) => Value::F16(v[i]),
            ColumnData::Bool(v) => Value::Bool(v[i]),
            ColumnData::Var(v) => match self.ty {
                PortType::Bytes => Value::Bytes(Arc::from(v.row(i))),
                PortType::Json => Value::Json(Arc::from(v.text(i))),
                PortType::Vector(t) => crate::vector::from_row(t, v.row(i)),
                ty if ty.is_sixteen_bytes() => Value::sixteen_bytes_row(v.row(i), ty),
                _ => Value::str(v.text(i)),
            },
        }
    }

    /// Every row as a value (`None` for a null row).
    pub fn to_values(&self) -> Vec<Value> {
        (0..self.len()).map(|i| self.get(i)).collect()
    }

    /// The Arrow validity bitmap (bit `i` of byte `i / 8`, least significant
    /// first, is 1 when row `i` holds a value), or `None` when no row is null.
    pub fn validity(&self) -> Option<Vec<u8>> {
        if self.nulls.is_empty() {
            return None;
        }
        let rows = self.len();
        let mut bits = vec![0xffu8; rows.div_ceil(8)];
        if rows % 8 != 0 {
            if let Some(last) = bits.last_mut() {
                *last = (1u8 << (rows % 8)) - 1;
            }
        }
        for &i in &self.nulls {
            bits[i / 8] &= !(1u8 << (i % 8));
        }
        Some(bits)
    }

    /// The bytes of the column's buffers as Arrow holds them (values, offsets
    /// and data, validity bitmap; a `bool` column as bits).
    pub fn arrow_bytes(&self) -> usize {
        let rows = self.len();
        let values = match &self.data {
            ColumnData::U64(_) | ColumnData::I64(_) | ColumnData::F64(_) => rows * 8,
            ColumnData::U32(_) | ColumnData::I32(_) | ColumnData::F32(_) => rows * 4,
            ColumnData::F16(_) => rows * 2,
            ColumnData::U16(_) | ColumnData::I16(_) => rows * 2,
            ColumnData::U8(_) | ColumnData::I8(_) => rows,
            ColumnData::Bool(_) => rows.div_ceil(8),
            ColumnData::Var(v) => (rows + 1) * 4 + v.data.len(),
        };
        values + if self.nulls.is_empty() { 0 } else { rows.div_ceil(8) }
    }

    /// Splits the rows into consecutive parts of `counts` rows each (their
    /// sum must be the column's length, or, for a variable-size column,
    /// the number of rows to be written), one per writer.
    pub fn split(&mut self, counts: &[usize]) -> Vec<ColumnPart<'_>> {
        self.split_reusing(counts, &mut Vec::new())
    }

    /// [`Column::split`], the parts after the first of a variable-size
    /// column filling buffers from `spare` (what an earlier
    /// [`Column::absorb`] gave back) while there are any: memory already
    /// written once, so filling it again takes no page faults. The first
    /// part always starts afresh (it becomes the column's own buffer).
    pub fn split_reusing(&mut self, counts: &[usize], spare: &mut Vec<VarRows>) -> Vec<ColumnPart<'_>> {
        let ty = self.ty;
        let rows = match &mut self.data {
            ColumnData::U64(v) => HostRows::U64(v),
            ColumnData::I64(v) => HostRows::I64(v),
            ColumnData::U32(v) => HostRows::U32(v),
            ColumnData::I32(v) => HostRows::I32(v),
            ColumnData::U16(v) => HostRows::U16(v),
            ColumnData::I16(v) => HostRows::I16(v),
            ColumnData::U8(v) => HostRows::U8(v),
            ColumnData::I8(v) => HostRows::I8(v),
            ColumnData::F64(v) => HostRows::F64(v),
            ColumnData::F32(v) => HostRows::F32(v),
            ColumnData::F16(v) => HostRows::F16(v),
            ColumnData::Bool(v) => HostRows::Bool(v),
            ColumnData::Var(_) => {
                let data = counts.iter().enumerate().map(|(t, &n)| {
                    let mut rows = match t {
                        0 => VarRows::default(),
                        _ => spare.pop().unwrap_or_default(),
                    };
                    // Best effort: a part that cannot reserve grows as it goes.
                    rows.offsets.try_reserve(n + 1);
                    let no_memory = rows.offsets.push(0).is_err();
                    (PartData::Var(ty, rows), no_memory)
                });
                return parts(data, counts);
            }
        };
        rows.split(counts)
    }

    /// Takes back the finished parts of a [`Column::split`], in row order.
    /// Returns the buffers of the variable-size parts whose rows were copied
    /// into the column's, emptied, for [`Column::split_reusing`]; or
    /// [`NoMemory`] when a part could not hold its rows, or the column
    /// cannot hold them all (its rows are then incomplete).
    pub fn absorb(&mut self, parts: Vec<PartDone>) -> Result<Vec<VarRows>, NoMemory> {
        if parts.iter().any(|p| p.no_memory) {
            return Err(NoMemory);
        }
        room(&mut self.nulls, parts.iter().map(|p| p.nulls.len()).sum())?;
        self.absorb_picks(&parts);
        let mut var = Vec::new();
        for part in parts {
            self.nulls.extend(part.nulls);
            var.extend(part.var);
        }
        match &mut self.data {
            ColumnData::Var(all) => all.append_all(var),
            _ => Ok(Vec::new()),
        }
    }
}

impl Column {
    /// The column's picks after `parts` join its rows: kept when the rows
    /// so far and every part (but for parts of no rows) are picks of one table.
    fn absorb_picks(&mut self, parts: &[PartDone]) {
        let mut table = match (&self.picks, self.len()) {
            (Some(p), _) => Some(p.table.clone()),
            (None, 0) => None,
            (None, _) => return,
        };
        for part in parts.iter().filter(|p| p.rows > 0) {
            match (&part.picks, &table) {
                (Some(p), Some(t)) if Arc::ptr_eq(&p.table, t) => {}
                (Some(p), None) => table = Some(p.table.clone()),
                _ => {
                    self.picks = None;
                    return;
                }
            }
        }
        let Some(table) = table else { return };
        let mut indices = self.picks.take().map(|p| p.indices).unwrap_or_default();
        let more = parts.iter().filter_map(|p| p.picks.as_ref()).map(|p| p.indices.len()).sum();
        if room(&mut indices, more).is_err() {
            return;
        }
        for p in parts.iter().filter_map(|p| p.picks.as_ref()) {
            indices.extend_from_slice(&p.indices);
        }
        self.picks = Some(Picks { table, indices });
    }
}

/// The index of the string `bytes` in `table`, searched for when the table
/// is small (see [`SEARCHED_TABLE`]).
fn position_in(table: &StrTable, bytes: &[u8]) -> Option<u32> {
    if table.len() > SEARCHED_TABLE {
        return None;
    }
    (0..table.len()).find(|&i| table.bytes(i) == bytes).map(|i| i as u32)
}

/// Scalar rows filled in place: a column's own, or rows a host owns (a
/// numpy array's buffer, say), which `generate` fills instead of a column
/// of its own ([`crate::generation::Generator::fill_into`]).
pub enum HostRows<'a> {
    /// `u64` rows.
    U64(&'a mut [u64]),
    /// `i64` rows (a `timestamp` column's epoch milliseconds).
    I64(&'a mut [i64]),
    /// `u32` rows.
    U32(&'a mut [u32]),
    /// `i32` rows (a `date` column's days).
    I32(&'a mut [i32]),
    /// `u16` rows.
    U16(&'a mut [u16]),
    /// `i16` rows.
    I16(&'a mut [i16]),
    /// `u8` rows.
    U8(&'a mut [u8]),
    /// `i8` rows.
    I8(&'a mut [i8]),
    /// `f64` rows.
    F64(&'a mut [f64]),
    /// `f32` rows.
    F32(&'a mut [f32]),
    /// `f16` rows.
    F16(&'a mut [half::f16]),
    /// `bool` rows.
    Bool(&'a mut [bool]),
}

impl<'a> HostRows<'a> {
    /// Number of rows.
    pub fn len(&self) -> usize {
        match self {
            HostRows::U64(r) => r.len(),
            HostRows::I64(r) => r.len(),
            HostRows::U32(r) => r.len(),
            HostRows::I32(r) => r.len(),
            HostRows::U16(r) => r.len(),
            HostRows::I16(r) => r.len(),
            HostRows::U8(r) => r.len(),
            HostRows::I8(r) => r.len(),
            HostRows::F64(r) => r.len(),
            HostRows::F32(r) => r.len(),
            HostRows::F16(r) => r.len(),
            HostRows::Bool(r) => r.len(),
        }
    }

    /// No rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The rows are of the representation of a column of type `ty`.
    pub fn holds(&self, ty: PortType) -> bool {
        matches!(
            (self, ty),
            (HostRows::U64(_), PortType::U64)
                | (HostRows::I64(_), PortType::I64 | PortType::Timestamp)
                | (HostRows::U32(_), PortType::U32)
                | (HostRows::I32(_), PortType::I32 | PortType::Date)
                | (HostRows::U16(_), PortType::U16)
                | (HostRows::I16(_), PortType::I16)
                | (HostRows::U8(_), PortType::U8)
                | (HostRows::I8(_), PortType::I8)
                | (HostRows::F64(_), PortType::F64)
                | (HostRows::F32(_), PortType::F32)
                | (HostRows::F16(_), PortType::F16)
                | (HostRows::Bool(_), PortType::Bool)
        )
    }

    /// Splits the rows into consecutive parts of `counts` rows each (their
    /// sum must be the number of rows), one per writer.
    pub fn split(self, counts: &[usize]) -> Vec<ColumnPart<'a>> {
        fn cut<'a, T>(mut rows: &'a mut [T], counts: &[usize]) -> Vec<&'a mut [T]> {
            let mut parts = Vec::with_capacity(counts.len());
            for &n in counts {
                let (part, rest) = std::mem::take(&mut rows).split_at_mut(n);
                parts.push(part);
                rows = rest;
            }
            parts
        }
        let data: Vec<PartData<'a>> = match self {
            HostRows::U64(v) => cut(v, counts).into_iter().map(HostRows::U64).map(PartData::Fixed).collect(),
            HostRows::I64(v) => cut(v, counts).into_iter().map(HostRows::I64).map(PartData::Fixed).collect(),
            HostRows::U32(v) => cut(v, counts).into_iter().map(HostRows::U32).map(PartData::Fixed).collect(),
            HostRows::I32(v) => cut(v, counts).into_iter().map(HostRows::I32).map(PartData::Fixed).collect(),
            HostRows::U16(v) => cut(v, counts).into_iter().map(HostRows::U16).map(PartData::Fixed).collect(),
            HostRows::I16(v) => cut(v, counts).into_iter().map(HostRows::I16).map(PartData::Fixed).collect(),
            HostRows::U8(v) => cut(v, counts).into_iter().map(HostRows::U8).map(PartData::Fixed).collect(),
            HostRows::I8(v) => cut(v, counts).into_iter().map(HostRows::I8).map(PartData::Fixed).collect(),
            HostRows::F64(v) => cut(v, counts).into_iter().map(HostRows::F64).map(PartData::Fixed).collect(),
            HostRows::F32(v) => cut(v, counts).into_iter().map(HostRows::F32).map(PartData::Fixed).collect(),
            HostRows::F16(v) => cut(v, counts).into_iter().map(HostRows::F16).map(PartData::Fixed).collect(),
            HostRows::Bool(v) => cut(v, counts).into_iter().map(HostRows::Bool).map(PartData::Fixed).collect(),
        };
        parts(data.into_iter().map(|d| (d, false)), counts)
    }
}

/// Column parts over `data` (each with whether it already ran out of
/// memory), the parts of `counts` rows each, in row order.
fn parts<'a>(data: impl Iterator<Item = (PartData<'a>, bool)>, counts: &[usize]) -> Vec<ColumnPart<'a>> {
    let mut first = 0;
    data.zip(counts)
        .map(|((data, no_memory), &n)| {
            let part = ColumnPart { data, at: 0, first, nulls: Vec::new(), no_memory, picks: PickState::Untracked };
            first += n;
            part
        })
        .collect()
}

/// The width in bytes of one row of a scalar column of type `ty` (8, 4, 2,
/// or 1 for a bool or an 8-bit integer), as a row loop stores it; `None`
/// for a variable-size type.
pub fn row_width(ty: PortType) -> Option<u8> {
    match ty {
        PortType::U64 | PortType::I64 | PortType::F64 | PortType::Timestamp => Some(8),
        PortType::U32 | PortType::I32 | PortType::F32 | PortType::Date => Some(4),
        PortType::U16 | PortType::I16 | PortType::F16 => Some(2),
        PortType::Bool | PortType::U8 | PortType::I8 => Some(1),
        PortType::Str
        | PortType::Bytes
        | PortType::Json
        | PortType::Decimal(_)
        | PortType::Vector(_)
        | PortType::U128
        | PortType::I128 => None,
    }
}

/// The unwritten rows of a scalar column part, lent to a row loop
/// ([`ColumnPart::rows_ahead`]): their address, how many there are, and the
/// width of one row. Only a live part makes one, so the address is valid
/// for writes of `rows` rows for as long as it is borrowed.
pub struct RowsOut<'a> {
    addr: *mut u8,
    rows: usize,
    width: u8,
    _part: PhantomData<&'a mut [u8]>,
}

impl RowsOut<'_> {
    /// The address of the first unwritten row.
    pub fn addr(&self) -> *mut u8 {
        self.addr
    }

    /// Rows that may be written from [`RowsOut::addr`].
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Bytes per row ([`row_width`]).
    pub fn width(&self) -> u8 {
        self.width
    }
}

/// The bytes `value` stores in a variable-size column of type `ty`, or
/// `None` when it is no such value (a null row).
#[inline]
fn var_bytes(ty: PortType, value: &Value) -> Option<std::borrow::Cow<'_, [u8]>> {
    match (ty, value) {
        (PortType::Str, Value::Str(s)) | (PortType::Json, Value::Json(s)) => Some(s.as_bytes().into()),
        (PortType::Bytes, Value::Bytes(b)) => Some(b[..].into()),
        // A decimal row is its 16 little-endian bytes, as in a Ref slot;
        // a decimal of another type has no row here.
        (PortType::Decimal(d), Value::Decimal(x)) if x.ty() == d => Some(x.to_bytes().to_vec().into()),
        // A list row is its packed elements, as in a Ref slot.
        (PortType::Vector(t), Value::Vector(u, b)) if t == *u => Some(b[..].into()),
        // A u128 or i128 row is its 16 little-endian bytes too.
        (PortType::U128, Value::U128(b)) | (PortType::I128, Value::I128(b)) => Some(b.to_bytes().to_vec().into()),
        _ => None,
    }
}

/// The rows of one [`ColumnPart`]: a slice of scalar rows (the column's own,
/// or a host's), or the variable-size rows it builds.
enum PartData<'a> {
    Fixed(HostRows<'a>),
    Var(PortType, VarRows),
}

/// One writer's share of a column's rows (see [`Column::split`]), filled in
/// order by `push`, `push_word`, `extend_words` and `push_bytes`.
pub struct ColumnPart<'a> {
    data: PartData<'a>,
    /// The next row of this part to write.
    at: usize,
    /// The column row of this part's first row.
    first: usize,
    /// Column rows of this part that hold `None`.
    nulls: Vec<usize>,
    /// A buffer could not grow: the part writes nothing more (see the module).
    no_memory: bool,
    /// The rows' picks, when asked for ([`ColumnPart::track_picks`]).
    picks: PickState,
}

/// What a finished [`ColumnPart`] hands back to its column.
pub struct PartDone {
    nulls: Vec<usize>,
    var: Option<VarRows>,
    no_memory: bool,
    /// The picks of every row of the part (`Some` for a part of no rows).
    picks: Option<Picks>,
    rows: usize,
}

impl PartDone {
    /// True when the part holds variable-size rows (absorbing it copies them).
    pub fn is_var(&self) -> bool {
        self.var.is_some()
    }

    /// The rows of the column (not of the part) that hold `None`, ascending.
    pub fn nulls(&self) -> &[usize] {
        &self.nulls
    }

    /// The part ran out of memory: its rows are incomplete.
    pub fn out_of_memory(&self) -> bool {
        self.no_memory
    }
}

impl ColumnPart<'_> {
    /// Ends the part (see [`Column::absorb`]).
    pub fn done(self) -> PartDone {
        let var = match self.data {
            // Handed on as it is: the column gives back what its data
            // reserved beyond its rows once every part is in (`append_all`).
            PartData::Var(_, rows) => Some(rows),
            _ => None,
        };
        let picks = match self.picks {
            PickState::Tracking(picks) if picks.indices.len() == self.at => Some(picks),
            _ => None,
        };
        PartDone { nulls: self.nulls, var, no_memory: self.no_memory, picks, rows: self.at }
    }

    /// Records each row's index into `table` from now on, for a part whose
    /// rows are picks among `table`'s strings (see [`Column::picks`]); the
    /// rows already written are looked up in it. A row that is not one of
    /// its strings, or a second table, leaves the part without picks.
    pub fn track_picks(&mut self, table: &Arc<StrTable>) {
        match &self.picks {
            PickState::Untracked => {}
            PickState::Tracking(picks) if Arc::ptr_eq(&picks.table, table) => return,
            _ => {
                self.picks = PickState::Lost;
                return;
            }
        }
        let PartData::Var(PortType::Str, rows) = &self.data else {
            self.picks = PickState::Lost;
            return;
        };
        let null = |i: usize| self.nulls.binary_search(&(self.first + i)).is_ok();
        let found: Option<Vec<u32>> =
            (0..self.at).map(|i| if null(i) { Some(0) } else { position_in(table, rows.row(i)) }).collect();
        self.picks = match found {
            Some(indices) => PickState::Tracking(Picks { table: table.clone(), indices }),
            None => PickState::Lost,
        };
    }

    /// Records the pick of a row written outside a batch of picks (`None`:
    /// a null row), or ends the part's picks when it cannot.
    #[cold]
    fn pick_row(&mut self, bytes: Option<&[u8]>) {
        let PickState::Tracking(picks) = &mut self.picks else { return };
        let index = match bytes {
            None => Some(0),
            Some(b) => position_in(&picks.table, b),
        };
        match index {
            Some(i) if room(&mut picks.indices, 1).is_ok() => picks.indices.push(i),
            _ => self.picks = PickState::Lost,
        }
    }

    /// Rows written so far.
    pub fn written(&self) -> usize {
        self.at
    }

    /// A buffer of the part could not grow (memory ran out): it writes
    /// nothing more, and its column cannot be absorbed.
    #[inline]
    pub fn out_of_memory(&self) -> bool {
        self.no_memory
    }

    /// Lists row `at` of the part as a null row.
    #[inline]
    fn null_row(&mut self, at: usize) {
        match room(&mut self.nulls, 1) {
            Ok(()) => self.nulls.push(self.first + at),
            Err(NoMemory) => self.no_memory = true,
        }
    }

    /// Writes `bytes` as the next row of variable-size `rows`, marking the
    /// part when they cannot grow.
    #[inline]
    fn var_row(rows: &mut VarRows, no_memory: &mut bool, bytes: &[u8]) {
        if !*no_memory && rows.push(bytes).is_err() {
            *no_memory = true;
        }
    }

    /// Reserves room for `rows` more rows of variable-size data at the
    /// bytes per row of the rows written so far (best effort; nothing for a
    /// scalar part or one with no rows yet). `text` is the part's text when
    /// it is out ([`Self::take_appended`]). A part that reserved nothing up
    /// front (the first batch of a generator) then grows once, not by
    /// doubling, which copies what it wrote each time.
    pub fn reserve_rows_like_so_far(&mut self, out: Option<&mut Appended>, rows: usize) {
        let PartData::Var(_, var) = &mut self.data else { return };
        if self.at == 0 {
            return;
        }
        let written = out.as_ref().map_or(var.data.len(), |t| t.len());
        let more = reservation(written as f64 / self.at as f64, rows);
        let _ = match out {
            Some(out) => out.try_reserve(more),
            None => var.data.try_reserve(more).is_ok(),
        };
    }

    /// Reserves room for `bytes` more bytes of variable-size data (nothing
    /// for a scalar part); `None` when that much memory cannot be had.
    pub fn reserve_bytes(&mut self, bytes: usize) -> Option<()> {
        match &mut self.data {
            PartData::Var(_, rows) => rows.data.try_reserve(bytes).ok(),
            _ => Some(()),
        }
    }

    /// Writes the next row of a `str`, `json` or `bytes` part from its bytes
    /// (`None`: a null row), with no `Value` in between. The bytes of a
    /// `str` or `json` row must be UTF-8 text. A scalar part takes a null row.
    #[inline]
    pub fn push_bytes(&mut self, bytes: Option<&[u8]>) {
        if let PickState::Tracking(_) = self.picks {
            self.pick_row(bytes);
        }
        let at = self.at;
        match (&mut self.data, bytes) {
            (PartData::Var(_, rows), Some(b)) => Self::var_row(rows, &mut self.no_memory, b),
            (PartData::Var(_, rows), None) => {
                Self::var_row(rows, &mut self.no_memory, &[]);
                self.null_row(at);
            }
            _ => self.null_row(at),
        }
        self.at += 1;
    }

    /// The variable-size data of the part's rows so far, moved out of the
    /// part so that a by-bytes form can append the next rows to it in place
    /// ([`crate::node::by_bytes::BytesEval::appends`]): the text of a `str`
    /// or `json` part, the bytes of any other variable-size part (a `bytes`
    /// part, a decimal's 16-byte rows); `None` for a scalar part. While the
    /// data is out, the part's rows are ended with [`Self::end_appended_row`]
    /// and nothing else is written to it; then [`Self::put_appended`] gives
    /// it back.
    pub fn take_appended(&mut self) -> Option<Appended> {
        let PartData::Var(ty, rows) = &mut self.data else { return None };
        let data = std::mem::take(&mut rows.data);
        if !matches!(ty, PortType::Str | PortType::Json) {
            return Some(Appended::Bytes(data));
        }
        match String::from_utf8(data) {
            Ok(text) => Some(Appended::Text(text)),
            Err(e) => {
                rows.data = e.into_bytes();
                None
            }
        }
    }

    /// Ends the next row of a part whose data is out ([`Self::take_appended`]):
    /// the row is what `data` gained since the previous row ended. Then
    /// makes sure `data` has room for a few more rows of that length (at
    /// least [`TEXT_ROOM`] bytes), reserved fallibly, so the rows appended
    /// next do not make it grow where running out of memory would abort.
    /// A part out of memory drops its data (its rows are lost): the rows
    /// appended until the loop's next check take one row's room.
    #[inline(always)]
    pub fn end_appended_row(&mut self, data: &mut Appended) {
        if let PartData::Var(_, rows) = &mut self.data {
            self.at += 1;
            if self.no_memory {
                data.clear();
                return;
            }
            let row = data.len() - rows.offsets.last();
            let want = TEXT_ROOM.max(4 * row);
            let grown = data.spare() >= want || data.try_reserve(want);
            if !grown || rows.offsets.push(data.len()).is_err() {
                self.no_memory = true;
                data.release();
            }
        }
    }

    /// Takes back the variable-size rows of the part past its first `rows`
    /// (at most the rows written): `data` is the part's data when it is out
    /// ([`Self::take_appended`]), which also loses whatever was appended
    /// after its last row ended. A scalar part is left as it is.
    pub fn take_back_rows(&mut self, data: Option<&mut Appended>, rows: usize) {
        let PartData::Var(_, var) = &mut self.data else { return };
        let dropped = self.at.saturating_sub(rows);
        self.at -= dropped;
        let end_row = self.first + self.at;
        if let Some(kept) = self.nulls.iter().position(|&r| r >= end_row) {
            self.nulls.truncate(kept);
        }
        if let PickState::Tracking(picks) = &mut self.picks {
            picks.indices.truncate(self.at);
        }
        if self.no_memory {
            return;
        }
        // Each row written since pushed one offset.
        var.offsets.truncate(var.offsets.len() - dropped);
        let end = var.offsets.last();
        match data {
            Some(data) => data.truncate(end),
            None => var.data.truncate(end),
        }
    }

    /// Gives back the data [`Self::take_appended`] moved out, without
    /// whatever was appended after the last row ended (a row that failed
    /// midway).
    pub fn put_appended(&mut self, data: Appended) {
        if let PartData::Var(_, rows) = &mut self.data {
            let mut bytes = data.into_bytes();
            bytes.truncate(rows.offsets.last());
            rows.data = bytes;
        }
    }

    /// Writes the next row; `None` (or a value of another type, which a typed
    /// program never produces) makes it a null row.
    #[inline]
    pub fn push(&mut self, v: &Value) {
        if let PickState::Tracking(_) = self.picks {
            self.pick_row(v.as_str().map(str::as_bytes));
        }
        let at = self.at;
        let stored = match (&mut self.data, v) {
            (PartData::Fixed(HostRows::U64(c)), Value::U64(x)) => c.get_mut(at).map(|r| *r = *x),
            (PartData::Fixed(HostRows::F64(c)), Value::F64(x)) => c.get_mut(at).map(|r| *r = *x),
            (PartData::Fixed(HostRows::I64(c)), Value::I64(x) | Value::Timestamp(x)) => c.get_mut(at).map(|r| *r = *x),
            (PartData::Fixed(HostRows::U32(c)), Value::U32(x)) => c.get_mut(at).map(|r| *r = *x),
            (PartData::Fixed(HostRows::I32(c)), Value::I32(x) | Value::Date(x)) => c.get_mut(at).map(|r| *r = *x),
            (PartData::Fixed(HostRows::U16(c)), Value::U16(x)) => c.get_mut(at).map(|r| *r = *x),
            (PartData::Fixed(HostRows::I16(c)), Value::I16(x)) => c.get_mut(at).map(|r| *r = *x),
            (PartData::Fixed(HostRows::U8(c)), Value::U8(x)) => c.get_mut(at).map(|r| *r = *x),
            (PartData::Fixed(HostRows::I8(c)), Value::I8(x)) => c.get_mut(at).map(|r| *r = *x),
            (PartData::Fixed(HostRows::F32(c)), Value::F32(x)) => c.get_mut(at).map(|r| *r = *x),
            (PartData::Fixed(HostRows::F16(c)), Value::F16(x)) => c.get_mut(at).map(|r| *r = *x),
            (PartData::Fixed(HostRows::Bool(c)), Value::Bool(x)) => c.get_mut(at).map(|r| *r = *x),
            (PartData::Var(ty, rows), v) => match var_bytes(*ty, v) {
                Some(bytes) => {
                    Self::var_row(rows, &mut self.no_memory, &bytes);
                    Some(())
                }
                None => {
                    Self::var_row(rows, &mut self.no_memory, &[]);
                    None
                }
            },
            _ => None,
        };
        if stored.is_none() {
            self.null_row(at);
        }
        self.at += 1;
    }

    /// Writes the next row: a scalar of type `ty` given as its slot word (the
    /// P2 row read: no `Value` in between).
    #[inline]
    pub fn push_word(&mut self, ty: PortType, word: u64) {
        let at = self.at;
        let stored = match &mut self.data {
            PartData::Fixed(HostRows::U64(c)) => c.get_mut(at).map(|r| *r = word),
            PartData::Fixed(HostRows::I64(c)) => c.get_mut(at).map(|r| *r = i64::from_slot(word)),
            PartData::Fixed(HostRows::U32(c)) => c.get_mut(at).map(|r| *r = u32::from_slot(word)),
            PartData::Fixed(HostRows::I32(c)) => c.get_mut(at).map(|r| *r = i32::from_slot(word)),
            PartData::Fixed(HostRows::U16(c)) => c.get_mut(at).map(|r| *r = u16::from_slot(word)),
            PartData::Fixed(HostRows::I16(c)) => c.get_mut(at).map(|r| *r = i16::from_slot(word)),
            PartData::Fixed(HostRows::U8(c)) => c.get_mut(at).map(|r| *r = u8::from_slot(word)),
            PartData::Fixed(HostRows::I8(c)) => c.get_mut(at).map(|r| *r = i8::from_slot(word)),
            PartData::Fixed(HostRows::F64(c)) => c.get_mut(at).map(|r| *r = f64::from_slot(word)),
            PartData::Fixed(HostRows::F32(c)) => c.get_mut(at).map(|r| *r = f32::from_slot(word)),
            PartData::Fixed(HostRows::F16(c)) => c.get_mut(at).map(|r| *r = half::f16::from_slot(word)),
            PartData::Fixed(HostRows::Bool(c)) => c.get_mut(at).map(|r| *r = bool::from_slot(word)),
            PartData::Var(..) => return self.push(&crate::node::kit::slot_to_value(ty, word)),
        };
        if stored.is_none() {
            self.null_row(at);
        }
        self.at += 1;
    }

    /// The unwritten rows of a scalar part, for a row loop to store into
    /// (then [`ColumnPart::advance`] past what it wrote); `None` for a
    /// variable-size part.
    pub fn rows_ahead(&mut self) -> Option<RowsOut<'_>> {
        fn out<T>(rows: &mut [T], at: usize, width: u8) -> Option<RowsOut<'_>> {
            let ahead = rows.get_mut(at..)?;
            let (addr, rows) = (ahead.as_mut_ptr().cast::<u8>(), ahead.len());
            Some(RowsOut { addr, rows, width, _part: PhantomData })
        }
        let at = self.at;
        match &mut self.data {
            PartData::Fixed(HostRows::U64(c)) => out(c, at, 8),
            PartData::Fixed(HostRows::I64(c)) => out(c, at, 8),
            PartData::Fixed(HostRows::F64(c)) => out(c, at, 8),
            PartData::Fixed(HostRows::U32(c)) => out(c, at, 4),
            PartData::Fixed(HostRows::I32(c)) => out(c, at, 4),
            PartData::Fixed(HostRows::U16(c)) => out(c, at, 2),
            PartData::Fixed(HostRows::I16(c)) => out(c, at, 2),
            PartData::Fixed(HostRows::U8(c)) => out(c, at, 1),
            PartData::Fixed(HostRows::I8(c)) => out(c, at, 1),
            PartData::Fixed(HostRows::F32(c)) => out(c, at, 4),
            PartData::Fixed(HostRows::F16(c)) => out(c, at, 2),
            PartData::Fixed(HostRows::Bool(c)) => out(c, at, 1),
            PartData::Var(..) => None,
        }
    }

    /// Counts the next `rows` rows as written (by a row loop, through
    /// [`ColumnPart::rows_ahead`]).
    pub fn advance(&mut self, rows: usize) {
        self.at += rows;
    }

    /// Writes the next rows of a `str` part: string `i` of `table` for each
    /// index `i` (each below the table's length), a batch of picks copied at
    /// once. A scalar part takes null rows.
    pub fn extend_picked(&mut self, table: &StrTable, indices: &[u64]) {
        let PartData::Var(_, rows) = &mut self.data else {
            indices.iter().for_each(|_| self.push_bytes(None));
            return;
        };
        if !self.no_memory && rows.push_picked(table, indices).is_err() {
            self.no_memory = true;
        }
        if let PickState::Tracking(picks) = &mut self.picks {
            match room(&mut picks.indices, indices.len()) {
                Ok(()) => picks.indices.extend(indices.iter().map(|&i| i as u32)),
                Err(NoMemory) => self.picks = PickState::Lost,
            }
        }
        self.at += indices.len();
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
            PartData::Fixed(HostRows::U64(c)) => put(c, at, words, |w| w),
            PartData::Fixed(HostRows::I64(c)) => put(c, at, words, i64::from_slot),
            PartData::Fixed(HostRows::U32(c)) => put(c, at, words, u32::from_slot),
            PartData::Fixed(HostRows::I32(c)) => put(c, at, words, i32::from_slot),
            PartData::Fixed(HostRows::U16(c)) => put(c, at, words, u16::from_slot),
            PartData::Fixed(HostRows::I16(c)) => put(c, at, words, i16::from_slot),
            PartData::Fixed(HostRows::U8(c)) => put(c, at, words, u8::from_slot),
            PartData::Fixed(HostRows::I8(c)) => put(c, at, words, i8::from_slot),
            PartData::Fixed(HostRows::F64(c)) => put(c, at, words, f64::from_slot),
            PartData::Fixed(HostRows::F32(c)) => put(c, at, words, f32::from_slot),
            PartData::Fixed(HostRows::F16(c)) => put(c, at, words, half::f16::from_slot),
            PartData::Fixed(HostRows::Bool(c)) => put(c, at, words, bool::from_slot),
            PartData::Var(..) => false,
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

    fn table(strings: &[&str]) -> Arc<StrTable> {
        Arc::new(StrTable::new(strings.iter().map(|&s| Arc::from(s)).collect()))
    }

    fn text_rows(column: &Column) -> Vec<Value> {
        column.to_values()
    }

    #[test]
    fn rows_of_one_width_read_as_chunks_unless_a_row_is_null() {
        let mut rows = VarRows::with_rows(3).unwrap();
        for row in [[1u8; 16], [2; 16]] {
            rows.data.extend_from_slice(&row);
            rows.offsets.push(rows.data.len()).unwrap();
        }
        let chunks: Vec<&[u8]> = rows.rows_of_width(16).expect("every row 16 bytes").collect();
        assert_eq!(chunks, [&[1u8; 16][..], &[2; 16][..]]);
        rows.offsets.push(rows.data.len()).unwrap();
        assert!(rows.rows_of_width(16).is_none(), "a null row has no bytes");
        assert!(VarRows::with_rows(0).unwrap().rows_of_width(0).is_none());
    }

    #[test]
    fn picked_rows_keep_their_indexes_beside_their_text() {
        let abc = table(&["a", "bb", "a string longer than sixteen"]);
        let mut column = Column::new(PortType::Str, 7).unwrap();
        let mut parts = column.split(&[4, 3]);
        // A row written before the picks start is looked up; a null row is index 0.
        parts[0].push_bytes(Some(b"bb"));
        parts[0].track_picks(&abc);
        parts[0].extend_picked(&abc, &[2, 0]);
        parts[0].push(&Value::None);
        parts[1].track_picks(&abc);
        parts[1].extend_picked(&abc, &[1, 1, 0]);
        let done: Vec<PartDone> = parts.into_iter().map(ColumnPart::done).collect();
        column.absorb(done).unwrap();
        let picks = column.picks.as_ref().expect("every row is a pick");
        assert!(Arc::ptr_eq(&picks.table, &abc));
        assert_eq!(picks.indices, [1, 2, 0, 0, 1, 1, 0]);
        assert_eq!(column.nulls, [3]);
        let text: Vec<Value> = ["bb", "a string longer than sixteen", "a"]
            .iter()
            .map(|&s| Value::str(s))
            .chain([Value::None])
            .chain(["bb", "bb", "a"].iter().map(|&s| Value::str(s)))
            .collect();
        assert!(text_rows(&column).iter().zip(&text).all(|(a, b)| a.same(b)), "{:?}", column.to_values());
    }

    #[test]
    fn a_row_that_is_not_a_pick_leaves_the_column_without_picks() {
        let ab = table(&["a", "b"]);
        for spoil in 0..3 {
            let mut column = Column::new(PortType::Str, 4).unwrap();
            let mut parts = column.split(&[2, 2]);
            parts[0].track_picks(&ab);
            parts[0].extend_picked(&ab, &[0, 1]);
            match spoil {
                // A row not among the strings.
                0 => {
                    parts[1].track_picks(&ab);
                    parts[1].push_bytes(Some(b"c"));
                    parts[1].extend_picked(&ab, &[0]);
                }
                // A part that never recorded picks.
                1 => parts[1].extend_picked(&ab, &[1, 0]),
                // A second table.
                _ => {
                    parts[1].track_picks(&ab);
                    parts[1].extend_picked(&ab, &[0]);
                    parts[1].track_picks(&table(&["a", "b"]));
                    parts[1].extend_picked(&ab, &[0]);
                }
            }
            let done: Vec<PartDone> = parts.into_iter().map(ColumnPart::done).collect();
            column.absorb(done).unwrap();
            assert!(column.picks.is_none(), "case {spoil}");
            assert_eq!(column.len(), 4);
        }
    }

    #[test]
    fn a_part_reserves_its_rest_at_the_size_of_its_rows_so_far() {
        let mut column = Column::new(PortType::Str, 1000).unwrap();
        let mut parts = column.split(&[1000]);
        let part = &mut parts[0];
        for _ in 0..10 {
            part.push_bytes(Some(b"abcde"));
        }
        part.reserve_rows_like_so_far(None, 990);
        let PartData::Var(_, rows) = &part.data else { panic!("a str part holds variable-size rows") };
        assert!(rows.data.capacity() >= 50 + 990 * 5, "{}", rows.data.capacity());
        let mut text = part.take_appended().unwrap();
        part.reserve_rows_like_so_far(Some(&mut text), 2000);
        assert!(text.len() + text.spare() >= 50 + 2000 * 5, "{}", text.spare());
        part.put_appended(text);
    }

    #[test]
    fn parts_write_in_place_and_nulls_keep_the_type() {
        let mut column = Column::new(PortType::U64, 5).unwrap();
        let mut parts = column.split(&[2, 3]);
        parts[1].extend_words(PortType::U64, &[30, 40]);
        parts[1].push(&Value::None);
        parts[0].push(&Value::U64(10));
        parts[0].push_word(PortType::U64, 20);
        let done: Vec<PartDone> = parts.into_iter().map(ColumnPart::done).collect();
        column.absorb(done).unwrap();
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
        column.absorb(done).unwrap();
        let rows: Vec<Value> = (0..3).map(|i| column.get(i)).collect();
        assert!(rows[0].same(&Value::str("a")) && rows[1].same(&Value::str("b")) && rows[2].is_none());
        assert_eq!(column.nulls, [2]);
        let ColumnData::Var(var) = &column.data else { panic!("a str column is variable-size") };
        assert!(matches!(&var.offsets, Offsets::Narrow(v) if v == &[0, 1, 2, 2]));
        assert_eq!(var.data, b"ab");
    }

    #[test]
    fn the_buffers_of_parts_copied_in_fill_the_next_split_again() {
        let fill = |column: &mut Column, spare: &mut Vec<VarRows>, rows: [&str; 4]| {
            let mut parts = column.split_reusing(&[2, 2], spare);
            let part1 = match &parts[1].data {
                PartData::Var(_, rows) => (rows.data.as_ptr(), rows.data.capacity()),
                _ => unreachable!("a str part"),
            };
            for (k, row) in rows.iter().enumerate() {
                parts[k / 2].push(&Value::str(*row));
            }
            let done: Vec<PartDone> = parts.into_iter().map(ColumnPart::done).collect();
            *spare = column.absorb(done).unwrap();
            part1
        };
        let mut spare = Vec::new();
        let mut first = Column::new(PortType::Str, 4).unwrap();
        fill(&mut first, &mut spare, ["a", "b", "cc", "dd"]);
        let [kept] = &spare[..] else { panic!("the second part's buffers come back: {}", spare.len()) };
        let (at, room) = (kept.data.as_ptr(), kept.data.capacity());
        assert!(kept.data.is_empty() && kept.offsets.is_empty() && room >= 4);
        let mut second = Column::new(PortType::Str, 4).unwrap();
        assert_eq!(fill(&mut second, &mut spare, ["e", "f", "gg", "h"]), (at, room), "the second part filled them");
        let same = |c: &Column, want: [&str; 4]| (0..4).all(|i| c.get(i).same(&Value::str(want[i])));
        assert!(same(&first, ["a", "b", "cc", "dd"]) && same(&second, ["e", "f", "gg", "h"]));
    }

    #[test]
    fn text_taken_out_takes_rows_in_place_and_drops_a_half_written_one() {
        let mut column = Column::new(PortType::Str, 4).unwrap();
        let mut parts = column.split(&[4]);
        let mut part = parts.pop().expect("one part");
        part.push(&Value::str("é"));
        let mut out = part.take_appended().expect("a str part's text");
        let Appended::Text(text) = &mut out else { panic!("a str part gives text") };
        assert_eq!(text, "é");
        text.push_str("bc");
        part.end_appended_row(&mut out);
        let Appended::Text(text) = &mut out else { panic!("a str part gives text") };
        text.push('d');
        part.end_appended_row(&mut out);
        let Appended::Text(text) = &mut out else { panic!("a str part gives text") };
        text.push_str("half");
        part.put_appended(out);
        part.push(&Value::str("z"));
        assert_eq!(part.written(), 4);
        let done = vec![part.done()];
        drop(parts);
        column.absorb(done).unwrap();
        let rows: Vec<Value> = (0..4).map(|i| column.get(i)).collect();
        assert!(["é", "bc", "d", "z"].iter().zip(&rows).all(|(&want, got)| got.same(&Value::str(want))), "{rows:?}");
        let mut bytes = Column::new(PortType::Bytes, 2).unwrap();
        let mut parts = bytes.split(&[2]);
        let mut part = parts.pop().expect("one part");
        let mut out = part.take_appended().expect("a bytes part's bytes");
        let Appended::Bytes(data) = &mut out else { panic!("a bytes part gives bytes") };
        data.extend_from_slice(&[0xff, 0]);
        part.end_appended_row(&mut out);
        let Appended::Bytes(data) = &mut out else { panic!("a bytes part gives bytes") };
        data.push(7);
        part.put_appended(out);
        part.push_bytes(Some(&[1, 2]));
        let done = vec![part.done()];
        drop(parts);
        bytes.absorb(done).unwrap();
        assert!(bytes.get(0).same(&Value::Bytes(vec![0xff, 0].into())), "{:?}", bytes.get(0));
        assert!(bytes.get(1).same(&Value::Bytes(vec![1, 2].into())), "{:?}", bytes.get(1));
    }

    #[test]
    fn offsets_stay_32_bit_until_one_passes_i32_max() {
        let big = i32::MAX as usize;
        let mut offsets = Offsets::default();
        for end in [0, 5, big] {
            offsets.push(end).unwrap();
        }
        assert!(matches!(&offsets, Offsets::Narrow(v) if v == &[0, 5, i32::MAX]));
        offsets.push(big + 10).unwrap();
        assert!(matches!(&offsets, Offsets::Wide(v) if v == &[0, 5, big as i64, big as i64 + 10]));
        assert_eq!((offsets.len(), offsets.get(3)), (4, big + 10));

        let mut first = Offsets::Narrow(vec![0, 3]);
        first.extend_rebased(&Offsets::Narrow(vec![0, 2, 4]), 3).unwrap();
        assert!(matches!(&first, Offsets::Narrow(v) if v == &[0, 3, 5, 7]), "small parts stay narrow");
        first.extend_rebased(&Offsets::Narrow(vec![0, 1]), big).unwrap();
        let widened = [0, 3, 5, 7, big as i64 + 1];
        assert!(matches!(&first, Offsets::Wide(v) if v == &widened), "a part past i32::MAX widens them");

        let wide = VarRows { offsets: Offsets::Wide(vec![0, 1]), data: vec![b'a'] };
        assert!(wide.into_narrow().is_err(), "wide rows are refused as Arrow's 32-bit layout");
        let narrow = VarRows { offsets: Offsets::Narrow(vec![0, 1]), data: vec![b'a'] };
        assert_eq!(narrow.into_narrow().unwrap(), (vec![0, 1], vec![b'a']));
    }

    #[test]
    fn a_filled_column_repeats_its_value() {
        let column = Column::filled(PortType::F64, 3, &Value::F64(-0.0)).unwrap();
        assert!(matches!(&column.data, ColumnData::F64(v) if v.iter().all(|x| x.to_bits() == (-0.0f64).to_bits())));
        let nulls = Column::filled(PortType::I64, 2, &Value::None).unwrap();
        assert_eq!(nulls.nulls, [0, 1]);
    }
}
