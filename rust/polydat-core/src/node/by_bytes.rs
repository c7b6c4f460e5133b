//! The by-bytes form of a node: its rule over its inputs as they sit in a
//! compiled kernel's buffer — a scalar as its slot word, a `str`/`json`
//! value as the text of its scratch entry, a `bytes` value as its bytes —
//! writing its one by-reference output straight into a buffer the engine
//! reuses from row to row (the output's own scratch entry: a `String` for
//! text, a `Vec<u8>` for bytes). No `Value` is built on the way in or out,
//! text is never re-checked for UTF-8 (a text entry is a `String`), and a
//! rule that formats writes into that buffer, so a string step costs no
//! allocation once the buffer is large enough.
//!
//! A node declares it beside its other forms, from the same rule: the kits
//! here ([`to_text`], [`pick_str`], [`str_text`]) take one closure and derive
//! both the P1 form (a fresh `Value`) and the by-bytes form (the reused
//! buffer); the generic kits of [`super::kit`] and [`super::kit_text`]
//! with a by-reference result get a by-bytes form that copies their result
//! in. The P1 form stays the reference: both forms give the same bytes and
//! the same failures (`tests/bytes_forms.rs` holds every node to it).

use super::slot::Scalar;
use super::{limit, Args, NodeError, NodeEval};
use crate::types::PortType;
use crate::value::Value;
use std::marker::PhantomData;
use std::sync::Arc;

/// One input of a by-bytes evaluation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg<'a> {
    /// A scalar, as its slot word (see [`Scalar::to_slot`]).
    Word(u64),
    /// A `str` or `json` value, as its text.
    Text(&'a str),
    /// A `bytes` value, as its bytes.
    Bytes(&'a [u8]),
}

impl<'a> Arg<'a> {
    /// The scalar this argument carries, as type `A`.
    #[inline]
    pub fn scalar<A: Scalar>(self) -> Result<A, NodeError> {
        match self {
            Arg::Word(w) => Ok(A::from_slot(w)),
            _ => Err(wrong_arg(&A::TYPE.keyword())),
        }
    }

    /// The bytes of a by-reference argument (a text's UTF-8 bytes).
    #[inline]
    pub fn bytes(self) -> Result<&'a [u8], NodeError> {
        match self {
            Arg::Bytes(b) => Ok(b),
            Arg::Text(t) => Ok(t.as_bytes()),
            Arg::Word(_) => Err(wrong_arg("bytes")),
        }
    }

    /// The text of a `str` or `json` argument.
    #[inline]
    pub fn text(self) -> Result<&'a str, NodeError> {
        match self {
            Arg::Text(t) => Ok(t),
            _ => Err(wrong_arg("str")),
        }
    }
}

#[cold]
pub(crate) fn wrong_arg(want: &str) -> NodeError {
    NodeError::new(format!("internal: a by-bytes step expected a {want} argument"))
}

/// Where a by-bytes form writes its output: a text output's `String`, or a
/// `bytes` output's `Vec<u8>` — the output's scratch entry, arriving empty
/// (its capacity kept from earlier rows); or, for a form that
/// [appends](BytesEval::appends), possibly a column's buffer holding the
/// rows before this one.
#[derive(Debug)]
pub enum Sink<'a> {
    /// A `str` or `json` output.
    Text(&'a mut String),
    /// A `bytes` output.
    Bytes(&'a mut Vec<u8>),
}

impl<'a> Sink<'a> {
    /// The text buffer of a text output.
    #[inline]
    pub fn text(self) -> Result<&'a mut String, NodeError> {
        match self {
            Sink::Text(s) => Ok(s),
            Sink::Bytes(_) => Err(NodeError::new("internal: a text rule was given a bytes output")),
        }
    }

    /// Appends a result's value: text to either kind, bytes to a bytes output.
    #[inline]
    pub fn put(self, value: OutRef<'_>) -> Result<(), NodeError> {
        match (self, value) {
            (Sink::Text(s), OutRef::Text(t)) => s.push_str(t),
            (Sink::Bytes(b), OutRef::Text(t)) => b.extend_from_slice(t.as_bytes()),
            (Sink::Bytes(b), OutRef::Bytes(x)) => b.extend_from_slice(x),
            _ => return Err(NodeError::new("internal: a by-bytes result does not fit its output")),
        }
        Ok(())
    }
}

/// A kit result's by-reference value (see [`super::kit::Out::out_ref`]).
#[derive(Clone, Copy, Debug)]
pub enum OutRef<'a> {
    /// Text (a `str` or `json` result).
    Text(&'a str),
    /// Bytes (a `bytes` result).
    Bytes(&'a [u8]),
    /// A scalar result (no by-reference value).
    Scalar,
}

/// The by-bytes form of a node whose one output is by reference.
pub trait BytesEval: Send + Sync {
    /// Evaluates over `ins` (one per wire, none of them `None`) and writes
    /// the output's value to `out` (empty on arrival). It is what the P1
    /// form's value holds (the text of a `str` or `json`, the bytes of a
    /// `bytes`); a failure is the P1 form's failure, and `out` may then
    /// hold anything.
    fn eval_bytes(&self, ins: &[Arg<'_>], out: Sink<'_>) -> Result<(), NodeError>;

    /// True when [`Self::eval_bytes`] only appends its value to `out` and
    /// reads nothing of what `out` held on arrival — not even its length —
    /// so `out` may be an output column's growing buffer (`generate` then
    /// writes the row there, with no copy through the scratch). A form
    /// that measures its value (for the size limit, for padding) measures
    /// from `out`'s length on arrival.
    fn appends(&self) -> bool {
        false
    }
}

/// A wire value as a rule that renders values reads it: a scalar (a
/// `Value` with no heap part), or borrowed text or bytes. P1 makes one from
/// its `Value` ([`ValueRef::of`]), the by-bytes form from its argument and
/// the wire's type ([`ValueRef::from_arg`]), so one rule serves both.
#[derive(Clone, Debug)]
pub enum ValueRef<'a> {
    /// The absent value.
    None,
    /// A value with no borrowed part: a scalar, a decimal, a 128-bit
    /// integer or a copied list (never `Str`, `Json` or `Bytes`).
    Scalar(Value),
    /// A string.
    Str(&'a str),
    /// JSON text.
    Json(&'a str),
    /// A byte string.
    Bytes(&'a [u8]),
}

impl<'a> ValueRef<'a> {
    /// A view of `v`.
    #[inline]
    pub fn of(v: &'a Value) -> ValueRef<'a> {
        match v {
            Value::None => ValueRef::None,
            Value::Str(s) => ValueRef::Str(s),
            Value::Json(s) => ValueRef::Json(s),
            Value::Bytes(b) => ValueRef::Bytes(b),
            scalar => ValueRef::Scalar(scalar.clone()),
        }
    }

    /// The value of argument `arg` of wire type `ty`.
    #[inline]
    pub fn from_arg(arg: Arg<'a>, ty: PortType) -> Result<ValueRef<'a>, NodeError> {
        Ok(match (ty, arg) {
            (PortType::Str, arg) => ValueRef::Str(arg.text()?),
            (PortType::Json, arg) => ValueRef::Json(arg.text()?),
            (PortType::Bytes, arg) => ValueRef::Bytes(arg.bytes()?),
            // A list's Ref slot holds its packed elements; the value is a copy.
            (PortType::Vector(t), arg) => ValueRef::Scalar(crate::vector::from_row(t, arg.bytes()?)),
            // A decimal's, u128's or i128's Ref slot holds its 16 bytes; the value is a copy.
            (ty, arg) if ty.is_sixteen_bytes() => ValueRef::Scalar(Value::sixteen_bytes_row(arg.bytes()?, ty)),
            (ty, Arg::Word(w)) => ValueRef::Scalar(super::slot::slot_to_value(ty, w)),
            (ty, _) => return Err(wrong_arg(&ty.keyword())),
        })
    }

    /// Appends the value's display text ([`Value::display_text`]) to `out`.
    #[inline]
    pub fn push_display(&self, out: &mut String) {
        match self {
            ValueRef::None => {}
            ValueRef::Scalar(v) => crate::value::push_display(out, v),
            ValueRef::Str(s) | ValueRef::Json(s) => out.push_str(s),
            ValueRef::Bytes(b) => crate::value::push_hex(out, b),
        }
    }
}

/// The P1 form's text value: `f` writes it into a buffer this thread
/// reuses (no growing of a fresh string), and the value is made from it in
/// one allocation, its own.
#[inline]
pub fn text_value(f: impl FnOnce(&mut String) -> Result<(), NodeError>) -> Result<Value, NodeError> {
    thread_local! {
        static BUF: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    }
    /// A buffer that grew past this is let go after use.
    const KEEP: usize = 1 << 16;
    BUF.with(|buf| match buf.try_borrow_mut() {
        Ok(mut s) => {
            s.clear();
            let result = f(&mut s).and_then(|()| limit::shared_str(&s).map(Value::Str));
            if s.capacity() > KEEP {
                *s = String::new();
            }
            result
        }
        // In use further up this thread's stack (a rule never calls
        // another, so never expected): a fresh string.
        Err(_) => {
            let mut s = String::new();
            f(&mut s)?;
            limit::shared_str(&s).map(Value::Str)
        }
    })
}

/// Appends `x` in decimal (what `x.to_string()` gives).
#[inline]
pub fn push_u64(out: &mut String, x: u64) {
    out.push_str(itoa::Buffer::new().format(x));
}

/// Appends `x` in decimal, left-padded with zeros to at least `width`
/// digits (what `format!("{x:0width$}")` gives).
pub use crate::calendar::push_u64_padded;

/// Kit for a scalar-input rule that writes text: `f(x, out)` appends the
/// value to `out`. P1 gives it a fresh string; the by-bytes form, the
/// engine's reused buffer.
pub struct TextMap<A, F> {
    f: F,
    _t: PhantomData<fn(A)>,
}

/// Wraps an infallible `fn(scalar, &mut String)` (appending the result) as
/// a `str` node (the rule's contract is [`try_to_text`]'s).
pub fn to_text<A: Scalar>(f: impl Fn(A, &mut String) + Send + Sync + 'static) -> Box<dyn NodeEval> {
    try_to_text(move |a: A, s: &mut String| {
        f(a, s);
        Ok(())
    })
}

/// Wraps a fallible `fn(scalar, &mut String) -> Result<(), NodeError>` as a
/// `str` node. The rule appends its text to the string it is given and
/// reads nothing of what that string held (not its length either): the
/// by-bytes form may hand it a column's text ([`BytesEval::appends`]).
pub fn try_to_text<A: Scalar>(
    f: impl Fn(A, &mut String) -> Result<(), NodeError> + Send + Sync + 'static,
) -> Box<dyn NodeEval> {
    Box::new(TextMap { f, _t: PhantomData })
}

impl<A: Scalar, F: Fn(A, &mut String) -> Result<(), NodeError> + Send + Sync> NodeEval for TextMap<A, F> {
    fn eval(&self, args: &Args<'_>, outs: &mut [Value]) -> Result<(), NodeError> {
        let a = A::from_value(args.get(0)).ok_or_else(|| wrong_arg(&A::TYPE.keyword()))?;
        outs[0] = text_value(|s| (self.f)(a, s))?;
        Ok(())
    }
    fn bytes_form(&self) -> Option<&dyn BytesEval> {
        Some(self)
    }
}

impl<A: Scalar, F: Fn(A, &mut String) -> Result<(), NodeError> + Send + Sync> BytesEval for TextMap<A, F> {
    #[inline]
    fn eval_bytes(&self, ins: &[Arg<'_>], out: Sink<'_>) -> Result<(), NodeError> {
        (self.f)(ins[0].scalar::<A>()?, out.text()?)
    }
    /// The rule appends (see [`try_to_text`]).
    fn appends(&self) -> bool {
        true
    }
}

/// Kit for a rule over one string that writes text: `f(input, out)`.
pub struct StrText<F> {
    f: F,
}

/// Wraps `fn(&str, &mut String)` (appending the result, reading nothing of
/// what the string held, as [`try_to_text`]'s rule) as a `str` node over a `str` wire.
pub fn str_text(f: impl Fn(&str, &mut String) + Send + Sync + 'static) -> Box<dyn NodeEval> {
    Box::new(StrText { f })
}

impl<F: Fn(&str, &mut String) + Send + Sync> NodeEval for StrText<F> {
    fn eval(&self, args: &Args<'_>, outs: &mut [Value]) -> Result<(), NodeError> {
        let input = args.get(0).as_str().ok_or_else(|| wrong_arg("str"))?;
        outs[0] = text_value(|s| {
            (self.f)(input, s);
            Ok(())
        })?;
        Ok(())
    }
    fn bytes_form(&self) -> Option<&dyn BytesEval> {
        Some(self)
    }
}

impl<F: Fn(&str, &mut String) + Send + Sync> BytesEval for StrText<F> {
    #[inline]
    fn eval_bytes(&self, ins: &[Arg<'_>], out: Sink<'_>) -> Result<(), NodeError> {
        (self.f)(ins[0].text()?, out.text()?);
        Ok(())
    }
    /// The rule appends (see [`str_text`]).
    fn appends(&self) -> bool {
        true
    }
}

/// A table of strings built once, for picks: each string shared (P1 hands
/// out a clone of its `Arc`), and all of their text back to back in one
/// buffer with a `(start, end)` span per string, so a by-bytes pick reads
/// one span and one run of bytes, close to the others (not a separate
/// allocation per string).
#[derive(Debug)]
pub struct StrTable {
    values: Box<[Arc<str>]>,
    text: Box<str>,
    spans: Box<[(u32, u32)]>,
    /// When every string is at most [`SHORT`] bytes: each string's bytes
    /// zero-padded to [`SHORT`] (a copy of fixed size, see [`StrTable::short`]).
    short: Box<[[u8; SHORT]]>,
}

/// The most bytes of a string [`StrTable::short`] holds.
pub const SHORT: usize = 16;

/// The most strings a table keeps a padded copy of (a pick's strings, not
/// a word list's tens of thousands).
const SHORT_TABLE: usize = 4096;

impl StrTable {
    /// The table of `values` (their text is copied once; an index past
    /// `u32` bytes of text falls back to the shared string).
    pub fn new(values: Vec<Arc<str>>) -> StrTable {
        let mut text = String::new();
        let spans = values
            .iter()
            .map(|v| {
                let start = text.len();
                text.push_str(v);
                match (u32::try_from(start), u32::try_from(text.len())) {
                    (Ok(a), Ok(b)) => (a, b),
                    _ => (u32::MAX, u32::MAX),
                }
            })
            .collect();
        let short = match values.len() <= SHORT_TABLE && values.iter().all(|v| v.len() <= SHORT) {
            true => values
                .iter()
                .map(|v| {
                    let mut padded = [0u8; SHORT];
                    padded[..v.len()].copy_from_slice(v.as_bytes());
                    padded
                })
                .collect(),
            false => Box::default(),
        };
        StrTable { values: values.into(), text: text.into(), spans, short }
    }

    /// Every string's bytes zero-padded to [`SHORT`] bytes, when every
    /// string is that short and there are at most [`SHORT_TABLE`] (else
    /// empty): a writer copies a fixed [`SHORT`] bytes and keeps the
    /// string's length of them, with no call to copy a few bytes.
    #[inline]
    pub fn short(&self) -> &[[u8; SHORT]] {
        &self.short
    }

    /// The strings, in order.
    #[inline]
    pub fn values(&self) -> &[Arc<str>] {
        &self.values
    }

    /// Number of strings.
    #[inline]
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// True when the table has no strings.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// String `i`, shared.
    #[inline]
    pub fn get(&self, i: usize) -> &Arc<str> {
        &self.values[i]
    }

    /// The bytes of string `i`, from the table's one buffer (no check of
    /// character boundaries: a span is a whole string).
    #[inline]
    pub fn bytes(&self, i: usize) -> &[u8] {
        let (a, b) = self.spans[i];
        match self.text.as_bytes().get(a as usize..b as usize) {
            Some(t) => t,
            None => self.values[i].as_bytes(),
        }
    }

    /// The text of string `i`, from the table's one buffer.
    #[inline]
    pub fn text(&self, i: usize) -> &str {
        let (a, b) = self.spans[i];
        match self.text.get(a as usize..b as usize) {
            Some(t) => t,
            None => &self.values[i],
        }
    }
}

impl AsRef<StrTable> for StrTable {
    fn as_ref(&self) -> &StrTable {
        self
    }
}

impl StrTable {
    /// The text of `len` bytes at byte `start` of the table's buffer (a
    /// span of one of its strings, as [`StrTable::span`] gives it).
    #[inline]
    pub fn text_at(&self, start: u32, len: u32) -> &str {
        let start = start as usize;
        self.text.get(start..start + len as usize).unwrap_or_default()
    }

    /// The `(start, len)` of string `i` in the table's buffer, when it has one.
    pub fn span(&self, i: usize) -> Option<(u32, u32)> {
        let (a, b) = self.spans[i];
        (self.text.get(a as usize..b as usize).is_some()).then_some((a, b - a))
    }
}

/// A rule that picks one string of a table for each input.
pub trait StrPick: Send + Sync {
    /// The string for input `x`, shared (the P1 form hands out a clone).
    fn value(&self, x: u64) -> &Arc<str>;
    /// The text of the same string (the by-bytes form copies it), found
    /// the quickest way the table has.
    fn text(&self, x: u64) -> &str;
}

/// A shared pick is the pick (a `&'static` table picks as the table does).
impl<P: StrPick + ?Sized> StrPick for &P {
    #[inline]
    fn value(&self, x: u64) -> &Arc<str> {
        (**self).value(x)
    }
    #[inline]
    fn text(&self, x: u64) -> &str {
        (**self).text(x)
    }
}

/// A table and a rule giving the index of the string for an input.
struct Indexed<T, F> {
    table: T,
    index: F,
}

impl<T: AsRef<StrTable> + Send + Sync, F: Fn(u64) -> usize + Send + Sync> StrPick for Indexed<T, F> {
    #[inline]
    fn value(&self, x: u64) -> &Arc<str> {
        self.table.as_ref().get((self.index)(x))
    }
    #[inline]
    fn text(&self, x: u64) -> &str {
        self.table.as_ref().text((self.index)(x))
    }
}

/// Kit for a pick of one of a table's strings: P1 shares the chosen string
/// (no copy); the by-bytes form copies its text.
pub struct PickStr<P> {
    pick: P,
}

/// Wraps a table of strings and `fn(u64) -> index` as a `str` node over a u64 wire.
pub fn pick_str<T, F>(table: T, index: F) -> Box<dyn NodeEval>
where
    T: AsRef<StrTable> + Send + Sync + 'static,
    F: Fn(u64) -> usize + Send + Sync + 'static,
{
    pick(Indexed { table, index })
}

/// Wraps a pick rule as a `str` node over a u64 wire.
pub fn pick<P: StrPick + 'static>(pick: P) -> Box<dyn NodeEval> {
    Box::new(PickStr { pick })
}

impl<P: StrPick> NodeEval for PickStr<P> {
    fn eval(&self, args: &Args<'_>, outs: &mut [Value]) -> Result<(), NodeError> {
        let x = u64::from_value(args.get(0)).ok_or_else(|| wrong_arg("u64"))?;
        outs[0] = Value::Str(self.pick.value(x).clone());
        Ok(())
    }
    fn bytes_form(&self) -> Option<&dyn BytesEval> {
        Some(self)
    }
}

impl<P: StrPick> BytesEval for PickStr<P> {
    #[inline]
    fn eval_bytes(&self, ins: &[Arg<'_>], out: Sink<'_>) -> Result<(), NodeError> {
        let x = ins[0].scalar::<u64>()?;
        out.put(OutRef::Text(self.pick.text(x)))
    }
    fn appends(&self) -> bool {
        true
    }
}

/// Kit for the pick of string number `index` of a table (the index a u64
/// wire; one past the table fails): P1 shares the string, the by-bytes form
/// copies its text, and [`NodeEval::indexed_table`] hands the table to
/// `generate`, which copies the strings of a batch of indexes at once.
pub struct TablePick {
    table: Arc<StrTable>,
}

/// Wraps `table` as a `str` node over a u64 index wire (see [`TablePick`]).
pub fn table_pick(table: StrTable) -> Box<dyn NodeEval> {
    Box::new(TablePick { table: Arc::new(table) })
}

impl TablePick {
    /// Index `x` of the table, or the failure of an index past it.
    #[inline]
    fn index(&self, x: u64) -> Result<usize, NodeError> {
        match usize::try_from(x) {
            Ok(i) if i < self.table.len() => Ok(i),
            _ => Err(past_the_table(x, self.table.len())),
        }
    }
}

#[cold]
fn past_the_table(x: u64, len: usize) -> NodeError {
    NodeError::new(format!("index {x} is past the table's {len} string(s)"))
}

impl NodeEval for TablePick {
    fn eval(&self, args: &Args<'_>, outs: &mut [Value]) -> Result<(), NodeError> {
        let x = u64::from_value(args.get(0)).ok_or_else(|| wrong_arg("u64"))?;
        outs[0] = Value::Str(self.table.get(self.index(x)?).clone());
        Ok(())
    }
    fn bytes_form(&self) -> Option<&dyn BytesEval> {
        Some(self)
    }
    fn indexed_table(&self) -> Option<&Arc<StrTable>> {
        Some(&self.table)
    }
}

impl BytesEval for TablePick {
    #[inline]
    fn eval_bytes(&self, ins: &[Arg<'_>], out: Sink<'_>) -> Result<(), NodeError> {
        let i = self.index(ins[0].scalar::<u64>()?)?;
        out.put(OutRef::Text(self.table.text(i)))
    }
    fn appends(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_kits_write_into_the_reused_buffer() {
        let node = to_text(|x: u64, s: &mut String| push_u64_padded(s, x, 4));
        let form = node.bytes_form().unwrap();
        let mut out = String::with_capacity(64);
        let cap = out.capacity();
        form.eval_bytes(&[Arg::Word(7)], Sink::Text(&mut out)).unwrap();
        assert_eq!(out, "0007");
        assert_eq!(out.capacity(), cap, "the buffer's allocation is kept");
        let mut v = [Value::None];
        node.eval(&Args::new(&[Value::U64(7)], &[0]), &mut v).unwrap();
        assert!(v[0].same(&Value::str("0007")));
        assert!(form.eval_bytes(&[Arg::Text("x")], Sink::Text(&mut out)).is_err());
        assert!(form.eval_bytes(&[Arg::Word(7)], Sink::Bytes(&mut Vec::new())).is_err());
    }

    #[test]
    fn picks_copy_the_chosen_string() {
        let table = StrTable::new(vec![Arc::<str>::from("a"), Arc::from("bc"), Arc::from("")]);
        assert_eq!((table.text(0), table.text(1), table.text(2)), ("a", "bc", ""));
        let node = pick_str(table, |x| (x % 2) as usize);
        let mut out = String::new();
        node.bytes_form().unwrap().eval_bytes(&[Arg::Word(3)], Sink::Text(&mut out)).unwrap();
        assert_eq!(out, "bc");
    }

    #[test]
    fn value_refs_render_display_text() {
        for v in [Value::U64(5), Value::F64(-0.5), Value::Bool(true), Value::Timestamp(-1), Value::Date(3)] {
            let mut s = String::new();
            ValueRef::of(&v).push_display(&mut s);
            assert_eq!(s, v.display_text());
        }
        let mut s = String::new();
        ValueRef::from_arg(Arg::Bytes(&[0xab, 1]), PortType::Bytes).unwrap().push_display(&mut s);
        assert_eq!(s, "ab01");
        assert!(ValueRef::from_arg(Arg::Bytes(&[0xff]), PortType::Str).is_err(), "a str wire takes text");
    }
}
