//! CSV and JSON Lines text of generated columns, written straight from their
//! Arrow-layout buffers (no value object per cell), byte for byte as the
//! command line has always written them:
//!
//! * CSV (RFC 4180 as Python's `csv` module writes it, `\n` line ends): a
//!   field is quoted only when it holds `,`, `"` or `\n` (a `"` doubled); a
//!   row of one empty field is `""`. `None` is an empty field, a `bool` is
//!   `True`/`False`, `bytes` are lowercase hex, `json` is its text, a list
//!   (`vec_i32`, ...) is `[1,2,3]` (its float elements as float cells).
//! * JSON Lines: one object per row as Python's `json.dumps` writes it
//!   (`", "` and `": "` separators, every character outside printable ASCII
//!   escaped as `\uXXXX`), `None` is `null`, non-finite floats are the strings
//!   `"NaN"`, `"Infinity"` and `"-Infinity"`, `bytes` are a hex string, `json`
//!   is a string holding the text, a list is an array (`[1, 2, 3]`).
//! * Floats are the shortest text that reads back as the same value, laid
//!   out as Python's `repr`: positional for `1e-4 <= |x| < 1e16` (`0.0001`,
//!   `3.0`, `1234567890123456.0`), else scientific with a signed exponent of at
//!   least two digits (`1e-05`, `1.5e+16`); `nan`, `inf`, `-inf` in CSV. An
//!   `f32` column in CSV has the shortest `f32` digits, positional for
//!   `1e-4 <= |x| < 1e6` (numpy's rule for `float32`: `1.234567e+06`); in JSON
//!   it is the `f64` of the same value.
//! * A `timestamp` is `YYYY-MM-DDThh:mm:ss.mmmZ` and a `date` `YYYY-MM-DD`
//!   (a string in JSON), as interpolation renders them.
//!
//! Running out of memory is an error ([`NoMemory`]), never an abort: every
//! buffer grows fallibly, by at least what the next text can take, so
//! writing it never makes a buffer grow.
//!
//! CSV rows are written a chunk at a time into a [`Window`]: a zeroed
//! scratch buffer sized for the chunk's worst case ([`csv_chunk_bound`]),
//! written by position (an integer's digits in place, a short text copied
//! as one fixed-size block), then appended to `out` in one copy. JSON Lines
//! rows go straight to `out`, which first reserves the row's bound
//! ([`row_bound`]). Every formatting rule is
//! written once, over a [`Sink`] that is either the window or a `Vec`.

use super::{Column, ColumnData, NoMemory, VarRows};
use crate::decimal::{DECIMAL_TEXT_BYTES, DIGIT_PAIRS};
use crate::nodes::datetime::{push_date_text, push_timestamp_text};
use crate::types::{PortType, VectorType};
use crate::value::Value;

/// A text encoding of rows: what a text output format is written with
/// (see [`super::formats`]), a header first and then batch after batch of rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextEncoding {
    /// CSV: a header line of the column names ([`csv_header`]), then a line per row ([`csv_rows`]).
    Csv,
    /// JSON Lines: an object per row ([`jsonl_rows`]), no header.
    Jsonl,
}

impl TextEncoding {
    /// Appends what comes before the first row for columns `names`: CSV's
    /// header line, nothing for JSON Lines.
    pub fn header(self, names: &[&str], out: &mut Vec<u8>) {
        match self {
            TextEncoding::Csv => csv_header(names, out),
            TextEncoding::Jsonl => {}
        }
    }

    /// Appends the rows of `columns` (named `names`, all of the same
    /// length) to `out`; [`NoMemory`] when `out` cannot grow.
    pub fn rows(self, names: &[&str], columns: &[&Column], out: &mut Vec<u8>) -> Result<(), NoMemory> {
        match self {
            TextEncoding::Csv => csv_rows(columns, out),
            TextEncoding::Jsonl => jsonl_rows(names, columns, out),
        }
    }
}

/// The header line of a CSV file with these column names.
pub fn csv_header(names: &[&str], out: &mut Vec<u8>) {
    let single = names.len() == 1;
    for (i, name) in names.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        csv_field(name.as_bytes(), single, out);
    }
    out.push(b'\n');
}

/// The most bytes any scalar cell's text takes, quotes and separator included.
const SCALAR_TEXT_BOUND: usize = 48;
// A decimal's text is written in place in its cell's room (`Window::decimal`).
const _: () = assert!(SCALAR_TEXT_BOUND >= DECIMAL_TEXT_BYTES);

/// The most text bytes a list's element takes per byte it packs, its
/// separator included: 12 for an i32's 4 bytes (`-2147483648,`), 21 for an
/// i64's 8, at most 26 for an f64's 8 (`-1.7976931348623157e+308, `,
/// `"-Infinity", `).
const LIST_TEXT_PER_BYTE: usize = 4;

/// The most bytes row `i` of `columns` can take as JSON Lines text,
/// with `per_cell` more bytes per cell (its key): a variable-size cell
/// at most 6 bytes per byte (a control character as `\u00XX`) and quotes.
fn row_bound(columns: &[&Column], i: usize, per_cell: usize) -> usize {
    let cells: usize = columns
        .iter()
        .map(|c| match &c.data {
            ColumnData::Var(v) => 6 * v.row(i).len() + 4 + per_cell,
            _ => SCALAR_TEXT_BOUND + per_cell,
        })
        .sum();
    cells + 4
}

/// Room in `out` for `bytes` more bytes, or [`NoMemory`].
fn reserve(out: &mut Vec<u8>, bytes: usize) -> Result<(), NoMemory> {
    out.try_reserve(bytes).map_err(|_| NoMemory)
}

/// Rows a CSV chunk holds: a chunk's text is written into a [`Window`]
/// (sized for the chunk's worst case) and then appended to `out`.
const CSV_CHUNK_ROWS: usize = 256;

/// Appends the CSV rows of `columns` (all of the same length) to `out`;
/// [`NoMemory`] when `out` cannot grow (the rows written so far stay).
pub fn csv_rows(columns: &[&Column], out: &mut Vec<u8>) -> Result<(), NoMemory> {
    let rows = columns.first().map_or(0, |c| c.len());
    // Best effort: each chunk reserves what it needs, fallibly, anyway.
    let _ = out.try_reserve(text_bytes(columns, rows));
    let single = columns.len() == 1;
    // Each column's rule with its cursor over null rows, side by side (kept
    // in one list: in two, the row loop ran 9% slower on the text bench).
    let mut cells: Vec<CsvColumn<'_>> = columns.iter().map(|c| CsvColumn::new(c)).collect();
    let nulls = columns.iter().any(|c| !c.nulls.is_empty());
    let mut scratch =
        CellScratch { floats: ryu::Buffer::new(), text: String::new(), list: Vec::new(), dates: Vec::new() };
    let mut chunk: Vec<u8> = Vec::new();
    let mut start = 0;
    while start < rows {
        let end = rows.min(start + CSV_CHUNK_ROWS);
        let bound = csv_chunk_bound(&cells, start, end);
        if chunk.len() < bound {
            chunk.try_reserve(bound - chunk.len()).map_err(|_| NoMemory)?;
            chunk.resize(bound, 0);
        }
        let mut window = Window { buf: &mut chunk, at: 0 };
        for i in start..end {
            for (c, column) in cells.iter_mut().enumerate() {
                if c > 0 {
                    window.push(b',');
                }
                if nulls && column.nulls.null(i) {
                    if single {
                        window.extend(b"\"\"");
                    }
                    continue;
                }
                column.cells.write(i, single, &mut scratch, &mut window);
            }
            window.push(b'\n');
        }
        let written = window.at;
        reserve(out, written)?;
        out.extend_from_slice(&chunk[..written]);
        start = end;
    }
    Ok(())
}

/// A column as the CSV writer walks it: its rule and its cursor over null rows.
struct CsvColumn<'a> {
    cells: CsvCells<'a>,
    nulls: Cells<'a>,
}

impl<'a> CsvColumn<'a> {
    fn new(column: &'a Column) -> CsvColumn<'a> {
        CsvColumn { cells: CsvCells::new(column), nulls: Cells::new(column) }
    }
}

/// Where the next bytes CSV quotes a field for lie in a text column's
/// data, at or past the rows written so far (`usize::MAX`: none). Each is
/// found with SIMD, a stretch of rows at a time, so a row before it is
/// copied as it is, with no test of its own.
struct QuoteCursor {
    /// The next `,`, `"` or `\n`.
    marks: usize,
    /// The next `\r` (searched for on its own: `memchr3` takes three bytes).
    returns: usize,
}

impl QuoteCursor {
    fn new(data: &[u8]) -> QuoteCursor {
        QuoteCursor { marks: next_mark(data, 0), returns: next_return(data, 0) }
    }

    /// Where the next byte to quote for is.
    #[inline]
    fn next(&self) -> usize {
        self.marks.min(self.returns)
    }

    /// Moves on to the bytes to quote for at or past `end` (the end of a
    /// row just written), searching again for what lay before it.
    fn pass(&mut self, data: &[u8], end: usize) {
        if self.marks < end {
            self.marks = next_mark(data, end);
        }
        if self.returns < end {
            self.returns = next_return(data, end);
        }
    }
}

/// Where the first `,`, `"` or `\n` at or past `from` in `data` is (`usize::MAX`: none).
fn next_mark(data: &[u8], from: usize) -> usize {
    let [delimiter, quote, newline, _] = CSV_QUOTED;
    data.get(from..).and_then(|rest| memchr::memchr3(delimiter, quote, newline, rest)).map_or(usize::MAX, |k| from + k)
}

/// Where the first `\r` at or past `from` in `data` is (`usize::MAX`: none).
fn next_return(data: &[u8], from: usize) -> usize {
    let [.., carriage_return] = CSV_QUOTED;
    data.get(from..).and_then(|rest| memchr::memchr(carriage_return, rest)).map_or(usize::MAX, |k| from + k)
}

/// One column's rows as CSV writes them, its type's rule chosen once.
enum CsvCells<'a> {
    U64(&'a [u64]),
    I64(&'a [i64]),
    Timestamp(&'a [i64]),
    U32(&'a [u32]),
    I32(&'a [i32]),
    U16(&'a [u16]),
    I16(&'a [i16]),
    U8(&'a [u8]),
    I8(&'a [i8]),
    Date(&'a [i32]),
    F64(&'a [f64]),
    F32(&'a [f32]),
    F16(&'a [half::f16]),
    Bool(&'a [bool]),
    /// Text rows, with where the next bytes to quote for are.
    Text(&'a VarRows, QuoteCursor),
    Hex(&'a VarRows),
    /// Decimal, u128 or i128 rows of this type (16 little-endian bytes
    /// each), written as exact text.
    Sixteen(&'a VarRows, PortType),
    /// List rows (packed elements) of this element type, written as
    /// `[1,2,3]` (see [`list_text`]).
    List(&'a VarRows, VectorType),
}

impl<'a> CsvCells<'a> {
    fn new(column: &'a Column) -> CsvCells<'a> {
        match (&column.data, column.ty) {
            (ColumnData::U64(v), _) => CsvCells::U64(v),
            (ColumnData::I64(v), PortType::Timestamp) => CsvCells::Timestamp(v),
            (ColumnData::I64(v), _) => CsvCells::I64(v),
            (ColumnData::U32(v), _) => CsvCells::U32(v),
            (ColumnData::I32(v), PortType::Date) => CsvCells::Date(v),
            (ColumnData::I32(v), _) => CsvCells::I32(v),
            (ColumnData::U16(v), _) => CsvCells::U16(v),
            (ColumnData::I16(v), _) => CsvCells::I16(v),
            (ColumnData::U8(v), _) => CsvCells::U8(v),
            (ColumnData::I8(v), _) => CsvCells::I8(v),
            (ColumnData::F64(v), _) => CsvCells::F64(v),
            (ColumnData::F32(v), _) => CsvCells::F32(v),
            (ColumnData::F16(v), _) => CsvCells::F16(v),
            (ColumnData::Bool(v), _) => CsvCells::Bool(v),
            (ColumnData::Var(v), PortType::Bytes) => CsvCells::Hex(v),
            (ColumnData::Var(v), PortType::Vector(t)) => CsvCells::List(v, t),
            (ColumnData::Var(v), ty) if ty.is_sixteen_bytes() => CsvCells::Sixteen(v, ty),
            (ColumnData::Var(v), _) => CsvCells::Text(v, QuoteCursor::new(&v.data)),
        }
    }

    /// The most bytes rows `start..end` of this column take in a window,
    /// separators included (see [`csv_chunk_bound`]).
    fn bound(&self, start: usize, end: usize) -> usize {
        let rows = end - start;
        match self {
            CsvCells::Text(v, _) | CsvCells::Hex(v) => {
                let bytes = v.offsets.get(end) - v.offsets.get(start);
                2 * bytes + 3 * rows
            }
            CsvCells::List(v, _) => {
                let bytes = v.offsets.get(end) - v.offsets.get(start);
                LIST_TEXT_PER_BYTE * bytes + 5 * rows
            }
            _ => rows * SCALAR_TEXT_BOUND,
        }
    }

    /// Writes row `i` (not null) into `out`.
    #[inline]
    fn write(&mut self, i: usize, single: bool, scratch: &mut CellScratch, out: &mut Window<'_>) {
        match *self {
            CsvCells::U64(v) => out.u64(v[i]),
            CsvCells::I64(v) => out.i64(v[i]),
            CsvCells::Timestamp(v) => {
                scratch.text.clear();
                push_timestamp_text(&mut scratch.text, v[i]);
                out.extend(scratch.text.as_bytes())
            }
            CsvCells::U32(v) => out.u64(u64::from(v[i])),
            CsvCells::I32(v) => out.i64(i64::from(v[i])),
            CsvCells::U16(v) => out.u64(u64::from(v[i])),
            CsvCells::I16(v) => out.i64(i64::from(v[i])),
            CsvCells::U8(v) => out.u64(u64::from(v[i])),
            CsvCells::I8(v) => out.i64(i64::from(v[i])),
            CsvCells::Date(v) => scratch.date(v[i], out),
            CsvCells::F64(v) => float_text(v[i], F64_CUTOFF, &mut scratch.floats, out),
            CsvCells::F32(v) => float32_text(v[i], &mut scratch.floats, out),
            CsvCells::F16(v) => float_text(crate::value::f16_shortest(v[i]), F32_CUTOFF, &mut scratch.floats, out),
            CsvCells::Bool(v) => out.extend(if v[i] { b"True" } else { b"False" }),
            CsvCells::Hex(v) if !(single && v.row(i).is_empty()) => hex(v.row(i), out),
            CsvCells::Hex(v) => csv_field(v.row(i), single, out),
            CsvCells::Text(v, ref mut quotes) => {
                let (start, end) = (v.offsets.get(i), v.offsets.get(i + 1));
                // A row before the next byte to quote for, and not a row
                // of one empty field (`""`): as it is.
                if end <= quotes.next() && (start < end || !single) {
                    out.text_as_is(&v.data, start, end);
                } else {
                    out.csv_text(&v.data, start, end, single);
                    quotes.pass(&v.data, end);
                }
            }
            CsvCells::Sixteen(v, PortType::Decimal(d)) => out.decimal(v.row(i), d.scale),
            CsvCells::Sixteen(v, ty) => {
                scratch.text.clear();
                crate::value::push_display(&mut scratch.text, &Value::sixteen_bytes_row(v.row(i), ty));
                out.extend(scratch.text.as_bytes())
            }
            CsvCells::List(v, t) => {
                scratch.list.clear();
                list_text(t, v.row(i), ListStyle::Csv, &mut scratch.floats, &mut scratch.list);
                csv_field(&scratch.list, single, out)
            }
        }
    }
}

/// What a cell's text is built in before it is copied: a float's shortest
/// digits, a timestamp's text.
struct CellScratch {
    floats: ryu::Buffer,
    text: String,
    /// A list cell's text, before the CSV rules quote it.
    list: Vec<u8>,
    /// The text of recently written dates, slot `day mod DATE_SLOTS`
    /// holding `(day, text)` (made on the first date).
    dates: Vec<(i64, [u8; 10])>,
}

/// How many dates' text the CSV writer keeps: a table's dates tend to
/// repeat (TPC-H's span 2,557 days), and a kept one is a 10-byte copy
/// instead of the calendar's arithmetic.
const DATE_SLOTS: usize = 4096;

impl CellScratch {
    /// Writes the text of `days` (see [`date_bytes`]), kept for next time.
    #[inline]
    fn date(&mut self, days: i32, out: &mut Window<'_>) {
        if self.dates.is_empty() {
            // No day is i64::MIN: every slot starts empty.
            self.dates = vec![(i64::MIN, [0; 10]); DATE_SLOTS];
        }
        let slot = &mut self.dates[days as u32 as usize % DATE_SLOTS];
        if slot.0 != i64::from(days) {
            match date_digits(days) {
                Some(text) => *slot = (i64::from(days), text),
                None => return date_bytes(days, out),
            }
        }
        out.extend(&slot.1);
    }
}

/// The most bytes rows `start..end` of `cells` take in a [`Window`]: a
/// scalar at most [`SCALAR_TEXT_BOUND`]; a text twice its bytes (every
/// byte a doubled quote), its quotes and separator; a newline per row; and
/// one [`WINDOW`] more, as a block copied at a text's start may reach that
/// far past everything written so far.
fn csv_chunk_bound(cells: &[CsvColumn<'_>], start: usize, end: usize) -> usize {
    cells.iter().map(|column| column.cells.bound(start, end)).sum::<usize>() + 4 * (end - start) + WINDOW
}

/// Appends the JSON Lines rows of `columns` (named `names`) to `out`;
/// [`NoMemory`] when `out` cannot grow (the rows written so far stay).
pub fn jsonl_rows(names: &[&str], columns: &[&Column], out: &mut Vec<u8>) -> Result<(), NoMemory> {
    let rows = columns.first().map_or(0, |c| c.len());
    let keys: Vec<Vec<u8>> = names
        .iter()
        .enumerate()
        .map(|(c, name)| {
            let mut key = Vec::new();
            key.extend_from_slice(if c == 0 { b"{" } else { b", " });
            json_string(name.as_bytes(), &mut key);
            key.extend_from_slice(b": ");
            key
        })
        .collect();
    let mut cells: Vec<Cells<'_>> = columns.iter().map(|c| Cells::new(c)).collect();
    let mut floats = ryu::Buffer::new();
    let mut ints = itoa::Buffer::new();
    let mut text = String::new();
    let longest_key = keys.iter().map(Vec::len).max().unwrap_or(0);
    for i in 0..rows {
        reserve(out, row_bound(columns, i, longest_key))?;
        if cells.is_empty() {
            out.extend_from_slice(b"{}\n");
            continue;
        }
        for (cell, key) in cells.iter_mut().zip(&keys) {
            out.extend_from_slice(key);
            if cell.null(i) {
                out.extend_from_slice(b"null");
                continue;
            }
            let ty = cell.column.ty;
            match cell.column.data {
                ColumnData::U64(ref v) => out.extend_from_slice(ints.format(v[i]).as_bytes()),
                ColumnData::I64(ref v) if ty == PortType::Timestamp => {
                    text.clear();
                    push_timestamp_text(&mut text, v[i]);
                    json_string(text.as_bytes(), out)
                }
                ColumnData::I64(ref v) => out.extend_from_slice(ints.format(v[i]).as_bytes()),
                ColumnData::U32(ref v) => out.extend_from_slice(ints.format(v[i]).as_bytes()),
                ColumnData::I32(ref v) if ty == PortType::Date => {
                    text.clear();
                    push_date_text(&mut text, v[i]);
                    json_string(text.as_bytes(), out)
                }
                ColumnData::I32(ref v) => out.extend_from_slice(ints.format(v[i]).as_bytes()),
                ColumnData::U16(ref v) => out.extend_from_slice(ints.format(v[i]).as_bytes()),
                ColumnData::I16(ref v) => out.extend_from_slice(ints.format(v[i]).as_bytes()),
                ColumnData::U8(ref v) => out.extend_from_slice(ints.format(v[i]).as_bytes()),
                ColumnData::I8(ref v) => out.extend_from_slice(ints.format(v[i]).as_bytes()),
                ColumnData::F64(ref v) => json_float(v[i], &mut floats, out),
                ColumnData::F32(ref v) => json_float(f64::from(v[i]), &mut floats, out),
                ColumnData::F16(ref v) => json_float(crate::value::f16_shortest(v[i]), &mut floats, out),
                ColumnData::Bool(ref v) => out.extend_from_slice(if v[i] { b"true" } else { b"false" }),
                ColumnData::Var(ref v) => json_var(cell.column.ty, v, i, out),
            }
        }
        out.extend_from_slice(b"}\n");
    }
    Ok(())
}

/// At least the bytes of the text of `rows` rows of `columns` in most cases
/// (the widest a number prints, a text's bytes and its quotes), so the
/// text is written with no reallocation: unused room is never touched.
fn text_bytes(columns: &[&Column], rows: usize) -> usize {
    let per_row: usize = columns
        .iter()
        .map(|c| match &c.data {
            ColumnData::Var(v) => 3 + v.data.len().div_ceil(rows.max(1)),
            ColumnData::Bool(_) => 6,
            ColumnData::I32(_) if c.ty == PortType::Date => 12,
            ColumnData::I64(_) if c.ty == PortType::Timestamp => 26,
            _ => 25,
        })
        .sum();
    rows.saturating_mul(per_row + 1)
}

/// A column's rows with a cursor over its (ascending) null rows, so a row's
/// null test is one comparison.
struct Cells<'a> {
    column: &'a Column,
    next_null: usize,
}

impl<'a> Cells<'a> {
    fn new(column: &'a Column) -> Cells<'a> {
        Cells { column, next_null: 0 }
    }

    /// True when row `i` is null (rows are asked in increasing order).
    #[inline]
    fn null(&mut self, i: usize) -> bool {
        match self.column.nulls.get(self.next_null) {
            Some(&n) if n == i => {
                self.next_null += 1;
                true
            }
            _ => false,
        }
    }
}

/// Where cell text goes: a `Vec` that grows (JSON Lines, which reserves
/// each row's bound first) or a [`Window`] (CSV).
trait Sink {
    /// Appends one byte.
    fn push(&mut self, b: u8);
    /// Appends `bytes`.
    fn extend(&mut self, bytes: &[u8]);
    /// Appends the decimal digits of `v`.
    fn u64(&mut self, v: u64) {
        self.extend(itoa::Buffer::new().format(v).as_bytes());
    }
    /// Appends the decimal text of `v` (a `-` first when negative).
    fn i64(&mut self, v: i64) {
        if v < 0 {
            self.push(b'-');
        }
        self.u64(v.unsigned_abs());
    }
    /// Appends the exact text of a decimal row (its 16 little-endian bytes
    /// of units) at `scale` (see [`crate::decimal::write_units_text`]);
    /// nothing for a row that is not 16 bytes.
    #[inline]
    fn decimal(&mut self, row: &[u8], scale: u8) {
        if let Ok(bytes) = <[u8; 16]>::try_from(row) {
            let mut text = [0; crate::decimal::DECIMAL_TEXT_BYTES];
            let len = crate::decimal::write_units_text(i128::from_le_bytes(bytes), scale, &mut text);
            self.extend(&text[..len]);
        }
    }
}

impl Sink for Vec<u8> {
    #[inline]
    fn push(&mut self, b: u8) {
        Vec::push(self, b);
    }

    #[inline]
    fn extend(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

/// The bytes a short text is copied in: one block, whatever its length.
const WINDOW: usize = 32;

/// Text written by position into a zeroed buffer that the caller sized for
/// everything it will write, with [`WINDOW`] bytes to spare past the end
/// ([`csv_chunk_bound`]): so no write checks for room, an integer's digits
/// go straight to their place, and a short text is one fixed-size copy
/// (its block may run past the text; what follows overwrites it).
struct Window<'a> {
    buf: &'a mut [u8],
    at: usize,
}

impl Window<'_> {
    /// Appends text bytes `data[start..end]` as a CSV field (see
    /// [`csv_field`]). A text of at most [`WINDOW`] bytes with a whole block
    /// after its start is tested for quoting and copied as that block.
    #[inline]
    fn csv_text(&mut self, data: &[u8], start: usize, end: usize, single: bool) {
        let len = end - start;
        if let Some(block) = data.get(start..start + WINDOW) {
            let block: &[u8; WINDOW] = block.try_into().expect("a block is WINDOW bytes");
            if len <= WINDOW && (len > 0 || !single) && !block_needs_quotes(block, len) {
                return self.text_as_is(data, start, end);
            }
        }
        csv_field(&data[start..end], single, self);
    }

    /// Appends text bytes `data[start..end]` known to need no quotes as
    /// they are: at most [`WINDOW`] of them with a whole block after their
    /// start, as that block.
    #[inline]
    fn text_as_is(&mut self, data: &[u8], start: usize, end: usize) {
        match data.get(start..start + WINDOW) {
            Some(block) if end - start <= WINDOW => {
                self.buf[self.at..self.at + WINDOW].copy_from_slice(block);
                self.at += end - start;
            }
            _ => self.extend(&data[start..end]),
        }
    }
}

/// The bytes a CSV field is quoted for: the delimiter, the quote and both
/// line breaks (a bare carriage return splits a row for Python's `csv`,
/// polars and DuckDB alike).
const CSV_QUOTED: [u8; 4] = [b',', b'"', b'\n', b'\r'];

/// True when `bytes` hold a byte of [`CSV_QUOTED`] (searched with SIMD).
fn needs_quotes(bytes: &[u8]) -> bool {
    next_mark(bytes, 0) != usize::MAX || next_return(bytes, 0) != usize::MAX
}

/// True when the first `len` bytes of `block` hold a byte of [`CSV_QUOTED`],
/// tested eight bytes at a time.
#[inline]
fn block_needs_quotes(block: &[u8; WINDOW], len: usize) -> bool {
    /// 0x80 in each byte of `word` equal to `byte`, 0 in every other.
    fn equal_bytes(word: u64, byte: u8) -> u64 {
        const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
        let x = word ^ (u64::from(byte) * 0x0101_0101_0101_0101);
        !(((x & LOW7).wrapping_add(LOW7) | x) | LOW7)
    }
    block.chunks_exact(8).take(len.div_ceil(8)).enumerate().any(|(j, chunk)| {
        let word = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        let found = CSV_QUOTED.iter().fold(0, |found, &byte| found | equal_bytes(word, byte));
        // only the bytes of the text: the first `len - 8j` (1 or more) of this word
        let keep = match len - 8 * j {
            n if n >= 8 => u64::MAX,
            n => (1u64 << (8 * n)) - 1,
        };
        found & keep != 0
    })
}

impl Sink for Window<'_> {
    #[inline]
    fn push(&mut self, b: u8) {
        self.buf[self.at] = b;
        self.at += 1;
    }

    #[inline]
    fn extend(&mut self, bytes: &[u8]) {
        self.buf[self.at..self.at + bytes.len()].copy_from_slice(bytes);
        self.at += bytes.len();
    }

    /// The digits written in place, two at a time from the last.
    #[inline]
    fn u64(&mut self, mut v: u64) {
        let n = v.checked_ilog10().map_or(1, |d| d as usize + 1);
        let digits = &mut self.buf[self.at..self.at + n];
        let mut i = n;
        while v >= 100 {
            let pair = 2 * (v % 100) as usize;
            v /= 100;
            i -= 2;
            digits[i..i + 2].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
        }
        if v >= 10 {
            let pair = 2 * v as usize;
            digits[..2].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
        } else {
            digits[0] = b'0' + v as u8;
        }
        self.at += n;
    }

    /// The text written in place: a cell's room in the window (a scalar's
    /// bound) holds the longest decimal text.
    #[inline]
    fn decimal(&mut self, row: &[u8], scale: u8) {
        let Ok(bytes) = <[u8; 16]>::try_from(row) else { return };
        let place: &mut [u8; DECIMAL_TEXT_BYTES] =
            (&mut self.buf[self.at..self.at + DECIMAL_TEXT_BYTES]).try_into().expect("DECIMAL_TEXT_BYTES bytes");
        self.at += crate::decimal::write_units_text(i128::from_le_bytes(bytes), scale, place);
    }
}

/// Positional float text for `1e-4 <= |x| < cutoff` (and zero).
const F64_CUTOFF: f64 = 1e16;
/// numpy's upper cutoff for `float32` text.
const F32_CUTOFF: f64 = 1e6;

fn csv_field(bytes: &[u8], single: bool, out: &mut impl Sink) {
    if bytes.is_empty() && single {
        out.extend(b"\"\"");
        return;
    }
    if !needs_quotes(bytes) {
        out.extend(bytes);
        return;
    }
    out.push(b'"');
    for &b in bytes {
        if b == b'"' {
            out.push(b'"');
        }
        out.push(b);
    }
    out.push(b'"');
}

fn hex(bytes: &[u8], out: &mut impl Sink) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for &b in bytes {
        out.push(DIGITS[(b >> 4) as usize]);
        out.push(DIGITS[(b & 15) as usize]);
    }
}

/// How a list's elements are laid out: CSV's compact `[1,2.5]` (floats as
/// a CSV float cell, `nan` included), or JSON's `[1, 2.5]` (`json.dumps`'s
/// separator, a non-finite float as the string `"NaN"`, ...).
#[derive(Clone, Copy, PartialEq, Eq)]
enum ListStyle {
    Csv,
    Json,
}

/// Appends the text of the packed list `bytes` of element type `ty` in
/// `style` (see [`ListStyle`]). A float element is written as a float cell
/// of that format, so a reader gets `2.0` back as a float.
fn list_text(ty: VectorType, bytes: &[u8], style: ListStyle, floats: &mut ryu::Buffer, out: &mut Vec<u8>) {
    out.push(b'[');
    let mut index = 0;
    while let Some(element) = crate::value::list_element(ty, bytes, index) {
        if index > 0 {
            out.extend_from_slice(if style == ListStyle::Json { b", " } else { b"," });
        }
        match element {
            Value::I32(x) => Sink::i64(out, i64::from(x)),
            Value::I64(x) => Sink::i64(out, x),
            Value::F64(x) if style == ListStyle::Json => json_float(x, floats, out),
            Value::F64(x) => float_text(x, F64_CUTOFF, floats, out),
            _ => {}
        }
        index += 1;
    }
    out.push(b']');
}

fn json_var(ty: PortType, rows: &VarRows, i: usize, out: &mut Vec<u8>) {
    match ty {
        // A list is a JSON array of its elements.
        PortType::Vector(t) => list_text(t, rows.row(i), ListStyle::Json, &mut ryu::Buffer::new(), out),
        // A decimal is a JSON number written with its exact digits (901.00),
        PortType::Decimal(d) => out.decimal(rows.row(i), d.scale),
        // a u128 or i128 with every digit (JSON numbers have no width).
        ty if ty.is_sixteen_bytes() => {
            out.extend_from_slice(Value::sixteen_bytes_row(rows.row(i), ty).display_text().as_bytes())
        }
        PortType::Bytes => {
            out.push(b'"');
            hex(rows.row(i), out);
            out.push(b'"');
        }
        _ => json_string(rows.row(i), out),
    }
}

/// `text` (UTF-8) as a JSON string the way Python's `json.dumps` writes it
/// with `ensure_ascii`: printable ASCII as is (`"` and `\` escaped), the
/// usual short escapes, everything else `\uXXXX` (lowercase hex; a character
/// beyond the BMP as a surrogate pair).
fn json_string(text: &[u8], out: &mut Vec<u8>) {
    out.push(b'"');
    let plain = |b: u8| (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\';
    if text.iter().all(|&b| plain(b)) {
        out.extend_from_slice(text);
        out.push(b'"');
        return;
    }
    let s = std::str::from_utf8(text).unwrap_or_default();
    for ch in s.chars() {
        match ch {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\r' => out.extend_from_slice(b"\\r"),
            '\t' => out.extend_from_slice(b"\\t"),
            '\u{8}' => out.extend_from_slice(b"\\b"),
            '\u{c}' => out.extend_from_slice(b"\\f"),
            ' '..='~' => out.push(ch as u8),
            _ => {
                let mut units = [0u16; 2];
                for unit in ch.encode_utf16(&mut units) {
                    out.extend_from_slice(format!("\\u{unit:04x}").as_bytes());
                }
            }
        }
    }
    out.push(b'"');
}

fn json_float(x: f64, buf: &mut ryu::Buffer, out: &mut Vec<u8>) {
    if x.is_nan() {
        out.extend_from_slice(b"\"NaN\"");
    } else if x.is_infinite() {
        out.extend_from_slice(if x > 0.0 { b"\"Infinity\"" } else { b"\"-Infinity\"" });
    } else {
        float_text(x, F64_CUTOFF, buf, out);
    }
}

/// The text of an `f64` (see the module doc).
fn float_text(x: f64, cutoff: f64, buf: &mut ryu::Buffer, out: &mut impl Sink) {
    if !x.is_finite() {
        return non_finite(x, out);
    }
    if hundredths_text(x, out) {
        return;
    }
    let shortest = buf.format_finite(x);
    lay_out(shortest.as_bytes(), positional(x, cutoff), out);
}

/// The text of `x` when it is the `f64` nearest to a whole number of
/// hundredths, at least 0.01 and below 10^13 in magnitude (a price, a
/// rate): the digits of that number with one or two decimals, which is the
/// shortest text that reads back as `x` — the `f64`s that close are less than
/// a hundredth apart, so no shorter decimal is nearer to `x` than to its
/// neighbours — laid out as Python's `repr` lays it out. False (nothing
/// written) for any other value.
#[inline]
fn hundredths_text(x: f64, out: &mut impl Sink) -> bool {
    let a = x.abs();
    if !(0.01..1e13).contains(&a) {
        return false;
    }
    // The nearest whole number of hundredths (when `a` is one, `a * 100`
    // is within a rounding error of it), checked by dividing back.
    let n = (a * 100.0 + 0.5) as u64;
    if n as f64 / 100.0 != a {
        return false;
    }
    if x < 0.0 {
        out.push(b'-');
    }
    out.u64(n / 100);
    let (tenths, hundredths) = ((n / 10 % 10) as u8, (n % 10) as u8);
    out.push(b'.');
    out.push(b'0' + tenths);
    if hundredths != 0 {
        out.push(b'0' + hundredths);
    }
    true
}

/// `YYYY-MM-DD` of a `date` (days since 1970-01-01), as
/// [`push_date_text`] writes it, straight into `out`.
#[inline]
fn date_bytes(days: i32, out: &mut impl Sink) {
    match date_digits(days) {
        Some(text) => out.extend(&text),
        None => {
            let mut text = String::new();
            push_date_text(&mut text, days);
            out.extend(text.as_bytes())
        }
    }
}

/// The ten bytes `YYYY-MM-DD` of a date in the years 0..=9999 (`None`
/// outside them, whose text is longer).
#[inline]
fn date_digits(days: i32) -> Option<[u8; 10]> {
    let (y, m, d) = crate::calendar::civil_from_signed_days(i64::from(days));
    if !(0..=9999).contains(&y) {
        return None;
    }
    let y = y as u64;
    let digit = |v: u64| b'0' + (v % 10) as u8;
    Some([
        digit(y / 1000),
        digit(y / 100),
        digit(y / 10),
        digit(y),
        b'-',
        digit(m / 10),
        digit(m),
        b'-',
        digit(d / 10),
        digit(d),
    ])
}

/// The CSV text of an `f32` (see the module doc).
fn float32_text(x: f32, buf: &mut ryu::Buffer, out: &mut impl Sink) {
    if !x.is_finite() {
        return non_finite(f64::from(x), out);
    }
    let shortest = buf.format_finite(x);
    lay_out(shortest.as_bytes(), positional(f64::from(x), F32_CUTOFF), out);
}

fn positional(x: f64, cutoff: f64) -> bool {
    let a = x.abs();
    a == 0.0 || (1e-4..cutoff).contains(&a)
}

fn non_finite(x: f64, out: &mut impl Sink) {
    out.extend(match x {
        x if x.is_nan() => b"nan".as_slice(),
        x if x > 0.0 => b"inf",
        _ => b"-inf",
    });
}

/// Re-lays a shortest float text (ryu's, positional or `de-5` scientific)
/// as Python lays it out: the same digits, positional or scientific as
/// asked.
fn lay_out(text: &[u8], positional: bool, out: &mut impl Sink) {
    let (negative, text) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    let (mantissa, exponent) = match text.iter().position(|&b| b == b'e' || b == b'E') {
        Some(e) => (&text[..e], parse_exponent(&text[e + 1..])),
        None => (text, 0),
    };
    // digits d1 d2 ... with the value 0.d1d2... * 10^point
    // (a shortest f64 has at most 17 significant digits; ryu's text at most 24 bytes)
    let mut all = [0u8; 24];
    let mut count = 0;
    let mut int_len = mantissa.len() as i32;
    for (i, &b) in mantissa.iter().enumerate() {
        if b == b'.' {
            int_len = i as i32;
        } else {
            all[count] = b;
            count += 1;
        }
    }
    let leading = all[..count].iter().take_while(|&&d| d == b'0').count();
    let trailing = all[leading..count].iter().rev().take_while(|&&d| d == b'0').count();
    let digits = &all[leading..count - trailing];
    if negative {
        out.push(b'-');
    }
    if digits.is_empty() {
        out.extend(b"0.0");
        return;
    }
    let point = int_len + exponent - leading as i32;
    let n = digits.len() as i32;
    if positional {
        if point <= 0 {
            out.extend(b"0.");
            (0..-point).for_each(|_| out.push(b'0'));
            out.extend(digits);
        } else if point < n {
            out.extend(&digits[..point as usize]);
            out.push(b'.');
            out.extend(&digits[point as usize..]);
        } else {
            out.extend(digits);
            (0..point - n).for_each(|_| out.push(b'0'));
            out.extend(b".0");
        }
    } else {
        out.push(digits[0]);
        if n > 1 {
            out.push(b'.');
            out.extend(&digits[1..]);
        }
        let e = point - 1;
        out.push(b'e');
        out.push(if e < 0 { b'-' } else { b'+' });
        let e = e.unsigned_abs();
        if e < 10 {
            out.push(b'0');
        }
        out.u64(u64::from(e));
    }
}

fn parse_exponent(text: &[u8]) -> i32 {
    let (sign, digits) = match text.split_first() {
        Some((b'-', rest)) => (-1, rest),
        Some((b'+', rest)) => (1, rest),
        _ => (1, text),
    };
    sign * digits.iter().fold(0i32, |n, &d| n * 10 + i32::from(d - b'0'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Value;

    fn f64_text(x: f64) -> String {
        let mut out = Vec::new();
        float_text(x, F64_CUTOFF, &mut ryu::Buffer::new(), &mut out);
        String::from_utf8(out).unwrap()
    }

    fn f32_text(x: f32) -> String {
        let mut out = Vec::new();
        float32_text(x, &mut ryu::Buffer::new(), &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn floats_read_as_python_repr() {
        let cases = [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (0.1, "0.1"),
            (1e-4, "0.0001"),
            (1e-5, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (123.456, "123.456"),
            (1e15, "1000000000000000.0"),
            (1234567890123456.0, "1234567890123456.0"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (1e100, "1e+100"),
            (5e-324, "5e-324"),
            (f64::MAX, "1.7976931348623157e+308"),
            (-2.5, "-2.5"),
            (f64::NAN, "nan"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
        ];
        for (x, text) in cases {
            assert_eq!(f64_text(x), text, "{x:e}");
        }
    }

    /// The text of `x` through ryu and the general layout, not the
    /// hundredths shortcut.
    fn f64_text_general(x: f64) -> String {
        let mut out = Vec::new();
        let shortest = ryu::Buffer::new().format_finite(x).to_string();
        lay_out(shortest.as_bytes(), positional(x, F64_CUTOFF), &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn hundredths_take_the_shortcut_with_the_general_text() {
        let mut values = vec![0.01, 0.1, 0.04, 0.3, 1.0, 29.0, 901.0, 21168.23, 9999.99, 999.99, 1e13 - 0.01];
        values.extend([0.009, 0.015, 1e13, 0.125, 1.0 / 3.0, 2.675, 0.07, 100.5, 4503599627370.49]);
        let mut h = 0x9e3779b97f4a7c15u64;
        for _ in 0..200_000 {
            h = h.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let n = (h >> 11) % [100, 10_000, 1_000_000_000, 1_000_000_000_000_000][(h & 3) as usize];
            values.push(n as f64 / 100.0);
            values.push(f64::from_bits(h >> 2) % 1e6);
        }
        let mut taken = 0;
        for x in values.iter().flat_map(|&x| [x, -x]) {
            let mut fast = Vec::new();
            taken += usize::from(hundredths_text(x, &mut fast));
            assert_eq!(f64_text(x), f64_text_general(x), "{x:e}");
        }
        assert!(taken > 350_000, "most of the values take the shortcut ({taken})");
    }

    #[test]
    fn dates_are_written_as_the_calendar_writes_them() {
        for days in (-800_000..3_000_000).step_by(7).chain([i32::MIN, i32::MAX, -719_528, 2_932_896, 2_932_897]) {
            let (mut fast, mut text) = (Vec::new(), String::new());
            date_bytes(days, &mut fast);
            push_date_text(&mut text, days);
            assert_eq!(String::from_utf8(fast).unwrap(), text, "{days}");
        }
    }

    #[test]
    fn f32_floats_read_as_numpy_str() {
        let cases = [
            (0.1f32, "0.1"),
            (1e-4, "1e-04"),
            (1.2e-4, "0.00012"),
            (999999.94, "999999.94"),
            (1e6, "1e+06"),
            (1234567.0, "1.234567e+06"),
            (16777216.0, "1.6777216e+07"),
            (f32::MAX, "3.4028235e+38"),
            (1e-45, "1e-45"),
            (-0.5, "-0.5"),
        ];
        for (x, text) in cases {
            assert_eq!(f32_text(x), text, "{x:e}");
        }
    }

    fn column(ty: PortType, values: &[Value]) -> Column {
        let mut c = Column::new(ty, values.len()).unwrap();
        let mut parts = c.split(&[values.len()]);
        values.iter().for_each(|v| parts[0].push(v));
        let done = parts.into_iter().map(|p| p.done()).collect();
        c.absorb(done).unwrap();
        c
    }

    #[test]
    fn csv_quotes_only_what_needs_it() {
        let ids = column(PortType::U64, &[Value::U64(1), Value::U64(2), Value::None]);
        let text = column(PortType::Str, &[Value::str("a,b"), Value::str("q\"x\ny"), Value::str("")]);
        let flags = column(PortType::Bool, &[Value::Bool(true), Value::None, Value::Bool(false)]);
        let mut out = Vec::new();
        csv_header(&["id", "text", "flag"], &mut out);
        csv_rows(&[&ids, &text, &flags], &mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "id,text,flag\n1,\"a,b\",True\n2,\"q\"\"x\ny\",\n,,False\n");
        let mut one = Vec::new();
        csv_rows(&[&text], &mut one).unwrap();
        assert!(String::from_utf8(one).unwrap().ends_with("\n\"\"\n"), "a row of one empty field is \"\"");
    }

    #[test]
    fn a_bare_carriage_return_is_quoted() {
        // Short (the block path) and long (the general path) texts alike.
        let long = format!("{}\r{}", "a".repeat(40), "b".repeat(40));
        let text = column(PortType::Str, &[Value::str("a\rb"), Value::str(long.as_str())]);
        let mut out = Vec::new();
        csv_rows(&[&text], &mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), format!("\"a\rb\"\n\"{long}\"\n"));
        let mut header = Vec::new();
        csv_header(&["x\ry"], &mut header);
        assert_eq!(header, b"\"x\ry\"\n");
    }

    #[test]
    fn jsonl_escapes_as_python_json() {
        let text = column(PortType::Str, &[Value::str("é\u{1F600}\"\\\u{7f}\u{1}\t"), Value::None]);
        let floats = column(PortType::F64, &[Value::F64(f64::NAN), Value::F64(-1e-7)]);
        let bytes = column(PortType::Bytes, &[Value::Bytes(vec![0, 255].into()), Value::Bytes(vec![].into())]);
        let mut out = Vec::new();
        jsonl_rows(&["t", "f", "b"], &[&text, &floats, &bytes], &mut out).unwrap();
        let expected = "{\"t\": \"\\u00e9\\ud83d\\ude00\\\"\\\\\\u007f\\u0001\\t\", \"f\": \"NaN\", \"b\": \"00ff\"}\n\
                        {\"t\": null, \"f\": -1e-07, \"b\": \"\"}\n";
        assert_eq!(String::from_utf8(out).unwrap(), expected);
    }

    #[test]
    fn a_row_never_takes_more_than_its_bound() {
        let quotes = "\"".repeat(40);
        let worst =
            column(PortType::Str, &[Value::str("\u{1}\u{2}\"\u{1F600}"), Value::str(""), Value::str(quotes.as_str())]);
        let floats = column(PortType::F64, &[Value::F64(-f64::MIN_POSITIVE), Value::F64(f64::MAX), Value::F64(-1e-5)]);
        let floats32 = column(PortType::F32, &[Value::F32(-f32::MIN_POSITIVE), Value::F32(f32::MAX), Value::None]);
        let stamps =
            column(PortType::Timestamp, &[Value::Timestamp(i64::MIN), Value::Timestamp(i64::MAX), Value::None]);
        let ints = column(PortType::I64, &[Value::I64(i64::MIN), Value::I64(i64::MAX), Value::I64(-1)]);
        let words = column(PortType::U64, &[Value::U64(u64::MAX), Value::U64(0), Value::U64(10)]);
        let dates = column(PortType::Date, &[Value::Date(i32::MIN), Value::Date(i32::MAX), Value::Date(-1)]);
        let bytes =
            column(PortType::Bytes, &[Value::Bytes(vec![255; 40].into()), Value::Bytes(vec![].into()), Value::None]);
        let decimal = |text: &str| Value::Decimal(crate::decimal::Decimal::parse_literal(text).unwrap());
        let widest = format!("-0.{}", "9".repeat(38));
        let decimals = column(
            PortType::Decimal(crate::types::DecimalType::new(38, 38).unwrap()),
            &[decimal(&widest), Value::None, decimal(&widest[1..])],
        );
        let money = column(
            PortType::Decimal(crate::types::DecimalType::new(18, 2).unwrap()),
            &[decimal("-9999999999999999.99"), Value::None, decimal("9999999999999999.99")],
        );
        let columns = [&worst, &floats, &floats32, &stamps, &ints, &words, &dates, &bytes, &decimals, &money];
        // Each column alone, then all of them: a CSV chunk is sized exactly
        // to its bound, so a cell writing past it would panic here.
        let sets: Vec<Vec<&Column>> = columns.iter().map(|&c| vec![c]).chain([columns.to_vec()]).collect();
        for set in &sets {
            for i in 0..3 {
                let row: Vec<Column> = set.iter().map(|c| column(c.ty, &[c.get(i)])).collect();
                let refs: Vec<&Column> = row.iter().collect();
                let (mut csv, mut jsonl) = (Vec::new(), Vec::new());
                csv_rows(&refs, &mut csv).unwrap();
                jsonl_rows(&vec!["key"; refs.len()], &refs, &mut jsonl).unwrap();
                let cells: Vec<_> = refs.iter().map(|c| CsvColumn::new(c)).collect();
                assert!(csv.len() <= csv_chunk_bound(&cells, 0, 1), "csv row {i}: {}", csv.len());
                assert!(jsonl.len() <= row_bound(&refs, 0, 9), "jsonl row {i}: {}", jsonl.len());
            }
        }
    }

    #[test]
    fn decimal_cells_are_written_in_place_every_digit_of_the_scale() {
        let ty = crate::types::DecimalType::new(18, 2).unwrap();
        let at = |units: i128| Value::Decimal(crate::decimal::Decimal::new(units, ty).unwrap());
        let money = column(PortType::Decimal(ty), &[at(-999_999_999_999_999_999), Value::None, at(1230), at(5)]);
        let ids = column(PortType::U64, &(0..4).map(Value::U64).collect::<Vec<_>>());
        let mut out = Vec::new();
        csv_rows(&[&ids, &money], &mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "0,-9999999999999999.99\n1,\n2,12.30\n3,0.05\n");
    }

    #[test]
    fn csv_text_in_blocks_reads_as_text_field_by_field() {
        // Texts of every length around the block size, quoted or not, with
        // a byte to quote just past the text (in the block, not the text).
        let mut values = Vec::new();
        for len in [0, 1, 5, 31, 32, 33, 40] {
            values.push(Value::str("a".repeat(len)));
            values.push(Value::str(format!("{}\n", "b".repeat(len))));
            values.push(Value::str(format!("\"{}", "c".repeat(len))));
            values.push(Value::str(format!("{},", "d".repeat(len))));
            values.push(Value::str(format!("{}\r", "e".repeat(len))));
        }
        let text = column(PortType::Str, &values);
        let ids = column(PortType::U64, &(0..values.len() as u64).map(Value::U64).collect::<Vec<_>>());
        let mut out = Vec::new();
        csv_rows(&[&ids, &text], &mut out).unwrap();
        let mut expected = Vec::new();
        for (i, v) in values.iter().enumerate() {
            expected.extend_from_slice(format!("{i},").as_bytes());
            csv_field(v.as_str().unwrap().as_bytes(), false, &mut expected);
            expected.push(b'\n');
        }
        assert_eq!(String::from_utf8(out).unwrap(), String::from_utf8(expected).unwrap());
    }

    #[test]
    fn texts_between_bytes_to_quote_are_copied_as_they_are_and_no_others() {
        // Texts of lengths around the block size over three chunks, with
        // rows to quote (a comma, a quote, line breaks, two in a row, one
        // right after a `None`), empty rows and `None` rows.
        let rows = 2 * CSV_CHUNK_ROWS + 50;
        let texts: Vec<Option<String>> = (0..rows)
            .map(|i| match i {
                3 => Some("a, b".to_string()),
                260 => Some("say \"hi\"".to_string()),
                261 => Some("two\nlines".to_string()),
                300 => Some("x".repeat(40) + "\r"),
                400 | 500 => None,
                401 => Some(",".to_string()),
                _ if i % 97 == 5 => Some(String::new()),
                _ => Some("x".repeat(i % 45)),
            })
            .collect();
        let values: Vec<Value> = texts.iter().map(|t| t.as_deref().map_or(Value::None, Value::str)).collect();
        let text = column(PortType::Str, &values);
        assert_eq!(text.nulls, [400, 500]);
        let ids = column(PortType::U64, &(0..rows as u64).map(Value::U64).collect::<Vec<_>>());
        let mut out = Vec::new();
        csv_rows(&[&ids, &text, &ids], &mut out).unwrap();
        let mut expected = Vec::new();
        for (i, t) in texts.iter().enumerate() {
            expected.extend_from_slice(format!("{i},").as_bytes());
            csv_field(t.as_deref().unwrap_or_default().as_bytes(), false, &mut expected);
            expected.extend_from_slice(format!(",{i}\n").as_bytes());
        }
        assert_eq!(String::from_utf8(out).unwrap(), String::from_utf8(expected).unwrap());
        // One column: an empty row is `""`, a `None` row too.
        let mut out = Vec::new();
        csv_rows(&[&text], &mut out).unwrap();
        let mut expected = Vec::new();
        for t in &texts {
            csv_field(t.as_deref().unwrap_or_default().as_bytes(), true, &mut expected);
            expected.push(b'\n');
        }
        assert_eq!(String::from_utf8(out).unwrap(), String::from_utf8(expected).unwrap());
    }

    #[test]
    fn kept_dates_are_the_days_asked_for() {
        // Days that share a slot of the kept dates, each asked again after
        // the other, and days outside the years a slot keeps.
        let slots = DATE_SLOTS as i32;
        let days = [0, slots, 0, -1, slots - 1, -1 - slots, i32::MIN, i32::MAX, slots, 10_000, 10_000 + 2 * slots];
        let dates = column(PortType::Date, &days.iter().map(|&d| Value::Date(d)).collect::<Vec<_>>());
        let mut out = Vec::new();
        csv_rows(&[&dates], &mut out).unwrap();
        let mut expected = Vec::new();
        for d in days {
            date_bytes(d, &mut expected);
            expected.push(b'\n');
        }
        assert_eq!(String::from_utf8(out).unwrap(), String::from_utf8(expected).unwrap());
    }

    #[test]
    fn integers_are_written_digit_for_digit() {
        let words: Vec<u64> =
            (0..20).flat_map(|p| [10u64.pow(p) - 1, 10u64.pow(p), 10u64.pow(p) + 1]).chain([u64::MAX]).collect();
        for w in words {
            let mut buf = [0u8; 64];
            let mut window = Window { buf: &mut buf, at: 0 };
            window.u64(w);
            let at = window.at;
            assert_eq!(&buf[..at], w.to_string().as_bytes());
        }
    }
}
