//! Formatting family: `printf` with Rust-style `{}` placeholders, and the
//! single-value formatters `format_u64`, `format_f64`, `zero_pad_u64`.

use crate::calendar::push_fill;
use crate::node::by_bytes::{push_u64, push_u64_padded, text_value, to_text, Arg, BytesEval, Sink, StrPick, ValueRef};
use crate::node::{
    konst, konst_or, limit, many, wire, wire_any, Args, Lit, NodeDef, NodeError, NodeEval, Outputs, Samples, Testing,
    WiresFrom,
};
use crate::types::PortType::{self, Str, F64, U64};
use crate::value::Value;
use std::fmt::Write;
use std::sync::Arc;

/// Largest precision (`format_f64`'s, a `printf` or tile `{:.N}`) and
/// largest width of `zero_pad_u64` and of a tile hole: 65535, Rust's
/// formatter's own limit (upstream builds a larger one and fails every
/// evaluation with "Formatting argument out of range"; here it is a compile
/// error naming the argument and the limit, [`checked_size`]).
pub const MAX_FIELD: usize = u16::MAX as usize;

/// Largest `printf` width (of any argument: text pads by hand as numbers
/// do). Upstream pads numbers by hand to any width; this project refuses
/// widths that would build a string of more than a mebibyte per evaluation
/// (a deliberate divergence).
pub const MAX_PAD: usize = 1 << 20;

/// `size`, the constant `what` (`width`, `precision`) of `node`, when it is
/// at most `limit`; else the build error naming the argument and the limit
/// (the one wording of every formatter's size check).
pub fn checked_size(node: &str, what: &str, size: u64, limit: usize) -> Result<usize, String> {
    usize::try_from(size)
        .ok()
        .filter(|&s| s <= limit)
        .ok_or_else(|| format!("{node}: {what} {size} is larger than {limit}, the largest {what} it takes"))
}

/// How one placeholder renders its argument (upstream's `FormatSpec`).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Spec {
    width: Option<usize>,
    /// Pad with `0` instead of spaces (a `0` before the width digits).
    zero: bool,
    precision: Option<usize>,
    /// The character after width and precision: `x`, `X`, `b`, `o` select a
    /// u64 radix; anything else (or none, `d`) is decimal.
    conversion: char,
}

impl Default for Spec {
    fn default() -> Spec {
        Spec { width: None, zero: false, precision: None, conversion: 'd' }
    }
}

/// The most bytes a number renders to before its fill and fraction digits
/// (the integer digits of the largest f64, its sign and point, with room to spare).
const NUMBER_ROOM: usize = 340;

impl Spec {
    /// Room for one field of this spec besides its argument's own text: its
    /// fill, its fraction digits and a number's digits. Reserved before the
    /// field is written, so writing it never grows a value infallibly.
    fn room(&self) -> usize {
        self.width.unwrap_or(0) + self.precision.unwrap_or(0) + NUMBER_ROOM
    }
}

#[derive(Debug, PartialEq)]
enum Piece {
    Text(String),
    /// A literal of one character (pushed without a copy call).
    Char(char),
    Arg(Spec),
}

/// The piece of literal text `text`.
fn literal(text: String) -> Piece {
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Piece::Char(c),
        _ => Piece::Text(text),
    }
}

/// Reads a run of ASCII digits as the size `what` (`width` or
/// `precision`); a number too large for a `usize` fails at build (upstream
/// fails there too, with the text of an unwrapped parse error).
fn field(digits: &[char], what: &str) -> Result<usize, String> {
    let text: String = digits.iter().collect();
    text.parse::<usize>().map_err(|_| {
        let shown = if text.len() > 40 { format!("{}... ({} digits)", &text[..20], text.len()) } else { text };
        format!("printf: {what} {shown} is too large (a width is at most {MAX_PAD}, a precision at most {MAX_FIELD})")
    })
}

/// Parses the text between braces as upstream does: an optional `:`, an
/// optional `0` flag (only when a digit follows), width digits, `.` and
/// precision digits (none: no precision), then one conversion character;
/// anything after it is ignored. Nothing is refused but sizes.
fn parse_spec(body: &[char]) -> Result<Spec, String> {
    let mut spec = Spec::default();
    let s = body.strip_prefix(&[':']).unwrap_or(body);
    let mut pos = 0;
    if s.len() > 1 && s[0] == '0' && s[1].is_ascii_digit() {
        spec.zero = true;
        pos = 1;
    }
    let digits = |from: usize| from + s[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let end = digits(pos);
    if end > pos {
        let w = field(&s[pos..end], "width")?;
        spec.width = Some(checked_size("printf", "width", w as u64, MAX_PAD)?);
    }
    pos = end;
    if s.get(pos) == Some(&'.') {
        let end = digits(pos + 1);
        if end > pos + 1 {
            let p = field(&s[pos + 1..end], "precision")?;
            spec.precision = Some(checked_size("printf", "precision", p as u64, MAX_FIELD)?);
        }
        pos = end;
    }
    if let Some(&c) = s.get(pos) {
        spec.conversion = c;
    }
    Ok(spec)
}

/// One token of a format string: literal text (its braces unescaped), or
/// a placeholder's body (what stands between its braces) and whether a `}`
/// closed it.
#[derive(Debug, PartialEq)]
enum Token {
    Text(String),
    Hole { body: Vec<char>, closed: bool },
}

/// Splits a format string into literal text and placeholders, as upstream:
/// `{{` and `}}` are braces, a `{` opens a placeholder that runs to the next
/// `}` (or to the end of the format), and a lone `}` is literal text.
fn tokens(fmt: &str) -> Vec<Token> {
    let chars: Vec<char> = fmt.chars().collect();
    let mut tokens = Vec::new();
    let mut text = String::new();
    let mut i = 0;
    while i < chars.len() {
        let next = chars.get(i + 1).copied();
        match chars[i] {
            '{' if next == Some('{') => {
                text.push('{');
                i += 2;
            }
            '{' => {
                if !text.is_empty() {
                    tokens.push(Token::Text(std::mem::take(&mut text)));
                }
                let start = i + 1;
                let close = chars[start..].iter().position(|&c| c == '}').map(|n| start + n);
                let end = close.unwrap_or(chars.len());
                tokens.push(Token::Hole { body: chars[start..end].to_vec(), closed: close.is_some() });
                i = end + 1;
            }
            '}' if next == Some('}') => {
                text.push('}');
                i += 2;
            }
            c => {
                text.push(c);
                i += 1;
            }
        }
    }
    if !text.is_empty() {
        tokens.push(Token::Text(text));
    }
    tokens
}

/// The pieces of a format string ([`tokens`], each placeholder's spec parsed).
fn parse_format(fmt: &str) -> Result<Vec<Piece>, String> {
    tokens(fmt)
        .into_iter()
        .map(|t| match t {
            Token::Text(text) => Ok(literal(text)),
            Token::Hole { body, .. } => parse_spec(&body).map(Piece::Arg),
        })
        .collect()
}

/// Number of placeholders in a format string.
pub fn placeholder_count(fmt: &str) -> usize {
    holes(&tokens(fmt))
}

/// Number of placeholders among `tokens`.
fn holes(tokens: &[Token]) -> usize {
    tokens.iter().filter(|t| matches!(t, Token::Hole { .. })).count()
}

/// The format that prints `inner`'s text where `outer` has its placeholder
/// `k`: `outer` with that placeholder replaced by `inner`'s pieces, so that
/// `printf(outer, .., printf(inner, ys..), ..)` is `printf(spliced, .., ys.., ..)`
/// for every value. `None` unless placeholder `k` is a plain `{}` (which
/// copies a string as it is) and every placeholder of both is closed.
pub fn splice_format(outer: &str, k: usize, inner: &str) -> Option<String> {
    let (outer, inner) = (tokens(outer), tokens(inner));
    if outer.iter().chain(&inner).any(|t| matches!(t, Token::Hole { closed: false, .. })) || k >= holes(&outer) {
        return None;
    }
    let mut spliced = String::new();
    let mut hole = 0;
    let render = |t: &Token, out: &mut String| match t {
        Token::Text(text) => text.chars().for_each(|c| match c {
            '{' => out.push_str("{{"),
            '}' => out.push_str("}}"),
            c => out.push(c),
        }),
        Token::Hole { body, .. } => {
            out.push('{');
            out.extend(body);
            out.push('}');
        }
    };
    for t in &outer {
        if let Token::Hole { body, .. } = t {
            hole += 1;
            if hole == k + 1 {
                if !body.is_empty() {
                    return None;
                }
                inner.iter().for_each(|t| render(t, &mut spliced));
                continue;
            }
        }
        render(t, &mut spliced);
    }
    Some(spliced)
}

/// Left-pads the text `out` gained since byte `start` to the spec's width
/// with its fill (`0` or space), counting bytes, as upstream's
/// `apply_width` (no sign awareness).
fn pad_numeric(out: &mut String, start: usize, spec: &Spec) {
    let Some(width) = spec.width else { return };
    let n = width.saturating_sub(out.len() - start);
    if n > 0 {
        let fill = if spec.zero { "0" } else { " " };
        out.insert_str(start, &fill.repeat(n));
    }
}

/// Left-pads `body` to the spec's width; zero padding goes after any sign.
fn pad_signed(out: &mut String, body: &str, spec: &Spec) {
    let fill = spec.width.unwrap_or(0).saturating_sub(body.chars().count());
    if spec.zero {
        let (sign, digits) = body.strip_prefix('-').map_or(("", body), |d| ("-", d));
        out.push_str(sign);
        push_fill(out, '0', fill);
        out.push_str(digits);
    } else {
        push_fill(out, ' ', fill);
        out.push_str(body);
    }
}

/// Right-aligns `body` in the spec's width with spaces, counting characters
/// (Rust's `{:>w$}`, by hand: any width [`parse_spec`] accepts).
fn pad_text(out: &mut String, body: &str, spec: &Spec) {
    if let Some(w) = spec.width {
        push_fill(out, ' ', w.saturating_sub(body.chars().count()));
    }
    out.push_str(body);
}

/// Renders one argument under its spec, by upstream's rules per value kind.
fn render(out: &mut String, v: &ValueRef<'_>, spec: &Spec) -> Result<(), NodeError> {
    let start = out.len();
    match v {
        ValueRef::Scalar(Value::U64(x)) => render_u64(out, *x, spec),
        ValueRef::Scalar(Value::F64(x)) => {
            let _ = match spec.precision {
                Some(p) => {
                    push_fixed(out, *x, p);
                    Ok(())
                }
                None => write!(out, "{x:?}"),
            };
            pad_numeric(out, start, spec);
        }
        // Upstream ignores width and precision for booleans.
        ValueRef::Scalar(Value::Bool(b)) => out.push_str(if *b { "true" } else { "false" }),
        ValueRef::Str(t) => pad_text(out, t, spec),
        // Kinds upstream carries differently (its printf renders them with
        // its `Value`'s Debug form): display text, zero padding after a sign.
        other => {
            let mut text = String::new();
            other.push_display(&mut text);
            pad_signed(out, &text, spec);
        }
    }
    Ok(())
}

/// Renders a u64 argument under its spec (its radix, then the numeric fill).
#[inline]
fn render_u64(out: &mut String, x: u64, spec: &Spec) {
    let start = out.len();
    let _ = match spec.conversion {
        'x' => write!(out, "{x:x}"),
        'X' => write!(out, "{x:X}"),
        'b' => write!(out, "{x:b}"),
        'o' => write!(out, "{x:o}"),
        _ => {
            // Decimal, the common case: the fill goes first, nothing moves.
            push_u64_filled(out, x, spec.width.unwrap_or(0), if spec.zero { '0' } else { ' ' });
            return;
        }
    };
    pad_numeric(out, start, spec);
}

/// Appends `x` in decimal, right-aligned in a field of `width` filled
/// with `fill` (the fill first: nothing moves).
#[inline]
fn push_u64_filled(out: &mut String, x: u64, width: usize, fill: char) {
    let mut digits = itoa::Buffer::new();
    let digits = digits.format(x);
    push_fill(out, fill, width.saturating_sub(digits.len()));
    out.push_str(digits);
}

/// Appends `x` with `p` decimal places, exactly as `format!("{x:.p$}")`
/// writes it (the exact binary value rounded half to even), by integer
/// arithmetic when the rounded value times 10^p fits a u64 — every
/// amount-like value — and through the general formatter otherwise.
pub fn push_fixed(out: &mut String, x: f64, p: usize) {
    match fixed_digits(x, p) {
        Some(q) => {
            if x.is_sign_negative() {
                out.push('-');
            }
            // The common places divide by a constant (no division instruction).
            let (whole, fraction) = match p {
                0 => (q, 0),
                1 => (q / 10, q % 10),
                2 => (q / 100, q % 100),
                3 => (q / 1000, q % 1000),
                _ => {
                    let scale = 10u64.pow(p as u32);
                    (q / scale, q % scale)
                }
            };
            push_u64(out, whole);
            if p > 0 {
                out.push('.');
                push_u64_padded(out, fraction, p);
            }
        }
        None => {
            let _ = write!(out, "{x:.p$}");
        }
    }
}

/// `|x| * 10^p` rounded half to even, when `x` is finite, `p` is at most
/// 19 and the result fits a u64. `x` is `m * 2^e` with an integer `m` of
/// at most 53 bits, so `m * 10^p` is exact in a u128 and the rounding is
/// decided on the bits shifted out.
fn fixed_digits(x: f64, p: usize) -> Option<u64> {
    if !x.is_finite() || p > 19 {
        return None;
    }
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1u64 << 52) - 1);
    let (m, e) = match biased {
        0 => (fraction, -1074),
        _ => (fraction | (1u64 << 52), biased - 1075),
    };
    let n = u128::from(m) * u128::from(10u64.pow(p as u32));
    let q = match e {
        0.. => n.checked_shl(e as u32).filter(|&v| v >> e == n)?,
        -127..=-1 => {
            let s = (-e) as u32;
            let (q, rest, half) = (n >> s, n & ((1u128 << s) - 1), 1u128 << (s - 1));
            q + u128::from(rest > half || (rest == half && q & 1 == 1))
        }
        // n < 2^117, so past 127 shifted bits the value is under 2^-11: it rounds to 0.
        _ => 0,
    };
    u64::try_from(q).ok()
}

/// An argument as `printf`'s two commonest kinds, read without making a
/// [`ValueRef`]: a u64, or a string; else `Other` (read through `ValueRef`).
#[derive(Clone, Copy)]
enum Quick<'a> {
    U64(u64),
    Str(&'a str),
    Other,
}

/// How a tile writes one hole's rendered text (see [`TILE`]).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Encode {
    /// As `printf` renders it: text tiles, raw holes, numbers and booleans
    /// at a JSON value position, JSON text at one.
    Plain,
    /// A JSON string: quoted, with `"`, `\` and control characters escaped.
    Quoted,
    /// Inside a JSON string or key: escaped as in [`Encode::Quoted`], no quotes.
    Escaped,
    /// A float at a JSON value position: bare, `null` when not finite.
    Float,
    /// A CSV field: quoted, its quotes doubled, when it holds a comma, a
    /// quote or a line break.
    Csv,
}

impl Encode {
    /// The encoder of a hole from its tile code (`p` plain, `v` JSON value,
    /// `q` JSON key (a string whatever the type), `s` inside a JSON string,
    /// `c` CSV field) and its wire's type.
    fn of(code: char, ty: PortType) -> Result<Encode, String> {
        Ok(match code {
            'p' => Encode::Plain,
            'q' => Encode::Quoted,
            's' => Encode::Escaped,
            'c' => Encode::Csv,
            'v' => match ty {
                PortType::F64 | PortType::F32 | PortType::F16 => Encode::Float,
                ty if ty.integer_range().is_some() => Encode::Plain,
                PortType::Bool | PortType::Json => Encode::Plain,
                _ => Encode::Quoted,
            },
            other => return Err(format!("internal: unknown tile hole encoding '{other}'")),
        })
    }
}

/// Appends `text` JSON-escaped: `"` and `\` backslashed, `\n \r \t \b \f`
/// for those controls, `\u00XX` for the other controls; everything else
/// (non-ASCII included) as it is.
pub(crate) fn push_json_escaped(out: &mut String, text: &str) {
    let bytes = text.as_bytes();
    let mut run = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(&text[run..i]);
        if escape.is_empty() {
            let _ = write!(out, "\\u{b:04x}");
        } else {
            out.push_str(escape);
        }
        run = i + 1;
    }
    out.push_str(&text[run..]);
}

/// Appends `text` as a CSV field (see [`Encode::Csv`]).
pub(crate) fn push_csv_field(out: &mut String, text: &str) {
    if !text.bytes().any(|b| matches!(b, b',' | b'"' | b'\n' | b'\r')) {
        out.push_str(text);
        return;
    }
    out.push('"');
    for (i, piece) in text.split('"').enumerate() {
        if i > 0 {
            out.push_str("\"\"");
        }
        out.push_str(piece);
    }
    out.push('"');
}

/// Appends `text` under `encode`.
fn push_encoded(out: &mut String, text: &str, encode: Encode) {
    match encode {
        Encode::Plain | Encode::Float => out.push_str(text),
        Encode::Quoted => {
            out.push('"');
            push_json_escaped(out, text);
            out.push('"');
        }
        Encode::Escaped => push_json_escaped(out, text),
        Encode::Csv => push_csv_field(out, text),
    }
}

/// A built `printf`: the parsed format, the type of each wire (which the
/// by-bytes form reads its slot words by), and, per wire, the word list a
/// u64 wire picks its text from, when it does (see [`printf_over_picks`]),
/// and how its text is encoded (a tile's holes; `printf` writes all plain).
struct Printf {
    pieces: Vec<Piece>,
    wanted: usize,
    types: Box<[PortType]>,
    picks: Box<[Option<Arc<dyn StrPick>>]>,
    encodes: Box<[Encode]>,
    /// The bytes of the format's literal text (what every value holds).
    literal_len: usize,
    /// Per placeholder, in order: its width (0 without one).
    widths: Box<[usize]>,
    /// The by-bytes form's quickest way, when every placeholder is a `{}`
    /// over a u64 (with a width or not), a text or a picked word (see [`Plain`]).
    plain: Option<Plain>,
}

/// A `printf` whose placeholders have no precision or radix, each over a
/// u64 (written in decimal, in a field of at most [`PADDED_WIDTH`] when it
/// has a width), a text or a picked word (copied as it is; neither with a
/// width), and at most [`BOUNDED_ARGS`] of them: the
/// literal text around the placeholders and what each reads, resolved when
/// the node is built, so a row only reads its values and copies.
struct Plain {
    /// The literal before each placeholder, and the one after the last.
    literals: Box<[Box<str>]>,
    holes: Box<[Hole]>,
}

/// Appends a literal of [`Plain`]: none, one ASCII byte (with no copy
/// call), or a copy.
#[inline]
fn push_literal(s: &mut String, literal: &str) {
    match literal.as_bytes() {
        [] => {}
        &[b] if b.is_ascii() => s.push(char::from(b)),
        _ => s.push_str(literal),
    }
}

/// What a plain placeholder reads.
enum Hole {
    /// A u64 wire, written in decimal.
    Number,
    /// A u64 wire, written in decimal right-aligned in a field of
    /// `width` (at most [`PADDED_WIDTH`]) filled with `fill` (`{:05}`, `{:8}`).
    Padded { width: usize, fill: char },
    /// A text wire, copied.
    Text,
    /// A u64 wire picking a word, copied.
    Pick(Arc<dyn StrPick>),
}

/// Most placeholders [`Printf::format_bounded`] takes (more go the checked way).
const BOUNDED_ARGS: usize = 8;

/// The widest field a [`Hole::Padded`] placeholder has (wider ones go the
/// general way).
const PADDED_WIDTH: usize = 64;

/// A `printf` of `format` whose wire `i` is read as
/// `picks[i].text(wire)` where `picks[i]` is given — the text the pick's
/// own node would have handed it — and as itself elsewhere. Fusion makes it
/// from `printf(format, .., pick(x), ..)`, so a picked word is copied once,
/// into the formatted text, with no step or slot of its own.
pub fn printf_over_picks(
    format: &str,
    wire_types: &[PortType],
    picks: Vec<Option<Arc<dyn StrPick>>>,
) -> Result<Box<dyn NodeEval>, String> {
    if picks.len() != wire_types.len() || picks.iter().zip(wire_types).any(|(p, &t)| p.is_some() && t != U64) {
        return Err("internal: a printf over picks needs one entry per wire, each picked wire a u64".into());
    }
    let mut printf = Printf::new(format, wire_types)?;
    printf.picks = picks.into();
    printf.plain = printf.plain_plan();
    Ok(Box::new(printf))
}

impl Printf {
    /// `printf` of `format` over wires of `types`, picking no text.
    fn new(format: &str, types: &[PortType]) -> Result<Printf, String> {
        let pieces = parse_format(format)?;
        let wanted = pieces.iter().filter(|p| matches!(p, Piece::Arg(_))).count();
        let literal_len = pieces
            .iter()
            .map(|p| match p {
                Piece::Text(t) => t.len(),
                Piece::Char(c) => c.len_utf8(),
                Piece::Arg(_) => 0,
            })
            .sum();
        let widths = pieces
            .iter()
            .filter_map(|p| match p {
                Piece::Arg(spec) => Some(spec.width.unwrap_or(0)),
                _ => None,
            })
            .collect();
        let mut printf = Printf {
            pieces,
            wanted,
            types: types.into(),
            picks: vec![None; types.len()].into(),
            encodes: Box::new([]),
            literal_len,
            widths,
            plain: None,
        };
        printf.plain = printf.plain_plan();
        Ok(printf)
    }

    /// The [`Plain`] way of this printf, when it has one.
    fn plain_plan(&self) -> Option<Plain> {
        if self.wanted > BOUNDED_ARGS || self.types.len() < self.wanted || !self.encodes.is_empty() {
            return None;
        }
        let mut literals = vec![String::new()];
        let mut specs = Vec::new();
        for piece in &self.pieces {
            match piece {
                Piece::Text(t) => literals.last_mut()?.push_str(t),
                Piece::Char(c) => literals.last_mut()?.push(*c),
                Piece::Arg(spec) => {
                    specs.push(*spec);
                    literals.push(String::new());
                }
            }
        }
        let holes = specs
            .iter()
            .enumerate()
            .map(|(i, spec)| {
                if spec.precision.is_some() || spec.conversion != 'd' {
                    return None;
                }
                // A zero fill comes with a width (see `parse_spec`).
                match (self.types[i], self.picks.get(i).cloned().flatten(), spec.width) {
                    (U64, Some(pick), None) => Some(Hole::Pick(pick)),
                    (U64, None, None) => Some(Hole::Number),
                    (U64, None, Some(width)) if width <= PADDED_WIDTH => {
                        Some(Hole::Padded { width, fill: if spec.zero { '0' } else { ' ' } })
                    }
                    (PortType::Str, _, None) => Some(Hole::Text),
                    _ => None,
                }
            })
            .collect::<Option<_>>()?;
        Some(Plain { literals: literals.into_iter().map(String::into_boxed_str).collect(), holes })
    }

    /// [`Plain`]'s way: the values read and their length bounded (a u64
    /// in at most 20 digits), room made once, the pieces copied. The text is
    /// the checked way's, byte for byte. `Ok(false)`: not taken (a value of
    /// another kind, or past the size limit), nothing written.
    #[inline]
    fn format_plain(plain: &Plain, literal_len: usize, ins: &[Arg<'_>], s: &mut String) -> Result<bool, NodeError> {
        let mut texts = [""; BOUNDED_ARGS];
        let mut numbers = [0u64; BOUNDED_ARGS];
        let mut bound = literal_len;
        for (i, hole) in plain.holes.iter().enumerate() {
            match (hole, ins.get(i)) {
                (Hole::Number, Some(&Arg::Word(x))) => {
                    numbers[i] = x;
                    bound += 20;
                }
                (&Hole::Padded { width, .. }, Some(&Arg::Word(x))) => {
                    numbers[i] = x;
                    bound += width.max(20);
                }
                (Hole::Text, Some(&Arg::Text(t))) => {
                    texts[i] = t;
                    bound += t.len();
                }
                (Hole::Pick(pick), Some(&Arg::Word(x))) => {
                    let t = pick.text(x);
                    texts[i] = t;
                    bound += t.len();
                }
                _ => return Ok(false),
            }
        }
        if bound > limit::max_value_bytes() {
            return Ok(false);
        }
        limit::make_room(s, bound)?;
        for (i, (literal, hole)) in plain.literals.iter().zip(plain.holes.iter()).enumerate() {
            push_literal(s, literal);
            match *hole {
                Hole::Number => push_u64(s, numbers[i]),
                Hole::Padded { width, fill } => push_u64_filled(s, numbers[i], width, fill),
                _ => s.push_str(texts[i]),
            }
        }
        if let Some(last) = plain.literals.get(plain.holes.len()) {
            push_literal(s, last);
        }
        Ok(true)
    }

    /// A tile: `printf` of `format` whose hole `i` is encoded by
    /// `codes[i]` (see [`Encode::of`]).
    fn tile(format: &str, codes: &str, types: &[PortType]) -> Result<Printf, String> {
        let mut printf = Printf::new(format, types)?;
        let codes: Vec<char> = codes.chars().collect();
        if codes.len() != printf.wanted || types.len() != printf.wanted {
            return Err(format!(
                "internal: a tile of {} holes has {} encodings and {} wires",
                printf.wanted,
                codes.len(),
                types.len()
            ));
        }
        printf.encodes = codes.iter().zip(types).map(|(&c, &t)| Encode::of(c, t)).collect::<Result<_, _>>()?;
        printf.plain = printf.plain_plan();
        Ok(printf)
    }

    /// Appends the formatted text to `s` (which may hold earlier rows:
    /// the text is measured from `s`'s length on arrival), taking argument
    /// `i` from `arg(i)` for each of the `argc` wires: the one rule of both forms.
    fn format<'a>(
        &self,
        argc: usize,
        quick: impl Fn(usize) -> Quick<'a>,
        arg: impl Fn(usize) -> Result<ValueRef<'a>, NodeError>,
        s: &mut String,
    ) -> Result<(), NodeError> {
        if argc < self.wanted {
            // Upstream fails at the first placeholder without an input.
            return Err(NodeError::new(format!(
                "printf: format references input #{argc} but only {argc} wire input(s) supplied"
            )));
        }
        if self.format_bounded(&quick, s)? {
            return Ok(());
        }
        let (start, mut next) = (s.len(), 0);
        for p in &self.pieces {
            match p {
                Piece::Text(t) => limit::push_str_from(s, start, t)?,
                Piece::Char(c) => {
                    limit::reserve_from(s, start, c.len_utf8())?;
                    s.push(*c);
                }
                Piece::Arg(spec) => {
                    // A picked wire's text is its list's word for the u64.
                    let value = match (quick(next), self.picks.get(next)) {
                        (Quick::U64(x), Some(Some(words))) => Quick::Str(words.text(x)),
                        (value, _) => value,
                    };
                    let encode = self.encodes.get(next).copied().unwrap_or(Encode::Plain);
                    if encode != Encode::Plain {
                        self.encoded(s, start, value, spec, encode, || arg(next))?;
                        next += 1;
                        continue;
                    }
                    match value {
                        // `render`'s own arms for these kinds.
                        Quick::U64(x) => {
                            limit::make_room(s, spec.room())?;
                            render_u64(s, x, spec)
                        }
                        Quick::Str(text) => {
                            limit::reserve_from(s, start, text.len())?;
                            limit::make_room(s, text.len() + spec.room())?;
                            pad_text(s, text, spec);
                        }
                        Quick::Other => {
                            let arg = arg(next)?;
                            // Room for the argument before it is copied in (a
                            // field adds at most its room besides).
                            let text = match arg {
                                ValueRef::Str(text) | ValueRef::Json(text) => text.len(),
                                ValueRef::Bytes(b) => b.len().saturating_mul(2),
                                _ => 0,
                            };
                            limit::reserve_from(s, start, text)?;
                            limit::make_room(s, text + spec.room())?;
                            render(s, &arg, spec)?;
                        }
                    }
                    limit::check(s.len() - start)?;
                    next += 1;
                }
            }
        }
        Ok(())
    }
}

impl Printf {
    /// [`Self::format`]'s quick way, taken when every placeholder's value
    /// is a u64, a text or a picked word (at most [`BOUNDED_ARGS`] of them,
    /// no tile encoding): the values are read first, their rendered length
    /// bounded (a u64 renders in at most 64 digits or its width, a text in
    /// its bytes plus its width), and when the bound keeps the value within
    /// the size limit, room for it is made once and the pieces are written
    /// with no check between them. The text is the checked way's, byte for
    /// byte. `Ok(false)`: not taken, nothing written.
    #[inline]
    fn format_bounded<'a>(&self, quick: &impl Fn(usize) -> Quick<'a>, s: &mut String) -> Result<bool, NodeError> {
        if self.wanted > BOUNDED_ARGS || !self.encodes.is_empty() {
            return Ok(false);
        }
        let mut values = [Quick::Other; BOUNDED_ARGS];
        let mut bound = self.literal_len;
        for (i, (value, &width)) in values.iter_mut().zip(&self.widths[..]).enumerate() {
            *value = match (quick(i), self.picks.get(i)) {
                (Quick::U64(x), Some(Some(words))) => Quick::Str(words.text(x)),
                (value, _) => value,
            };
            bound += match *value {
                Quick::U64(_) => width.max(64),
                Quick::Str(text) => text.len() + width,
                Quick::Other => return Ok(false),
            };
        }
        if bound > limit::max_value_bytes() {
            return Ok(false);
        }
        limit::make_room(s, bound)?;
        let mut values = values.iter();
        for p in &self.pieces {
            match p {
                Piece::Text(t) => s.push_str(t),
                Piece::Char(c) => s.push(*c),
                Piece::Arg(spec) => match values.next() {
                    // A decimal with no width is its digits (no call to render it).
                    Some(&Quick::U64(x))
                        if spec.width.is_none() && !matches!(spec.conversion, 'x' | 'X' | 'b' | 'o') =>
                    {
                        push_u64(s, x)
                    }
                    Some(&Quick::U64(x)) => render_u64(s, x, spec),
                    // A plain `{}` copies the text as it is (no call to pad it).
                    Some(&Quick::Str(text)) if spec.width.is_none() => s.push_str(text),
                    Some(&Quick::Str(text)) => pad_text(s, text, spec),
                    _ => {}
                },
            }
        }
        Ok(true)
    }

    /// Appends one tile hole under `encode`: a plain string straight from
    /// its text, anything else rendered as `printf` would, then encoded.
    fn encoded<'a>(
        &self,
        s: &mut String,
        start: usize,
        value: Quick<'a>,
        spec: &Spec,
        encode: Encode,
        arg: impl FnOnce() -> Result<ValueRef<'a>, NodeError>,
    ) -> Result<(), NodeError> {
        match value {
            Quick::Str(text) if spec.width.is_none() => {
                limit::reserve_from(s, start, text.len() + 2)?;
                push_encoded(s, text, encode);
            }
            Quick::U64(x) if matches!(encode, Encode::Float | Encode::Csv | Encode::Escaped) => {
                limit::make_room(s, spec.room())?;
                render_u64(s, x, spec)
            }
            value => {
                let arg = match value {
                    Quick::U64(x) => ValueRef::Scalar(Value::U64(x)),
                    Quick::Str(text) => ValueRef::Str(text),
                    Quick::Other => arg()?,
                };
                if let ValueRef::Scalar(Value::F64(x)) = arg {
                    if encode == Encode::Float && !x.is_finite() {
                        limit::push_str_from(s, start, "null")?;
                        return limit::check(s.len() - start);
                    }
                }
                let mut rendered = String::new();
                render(&mut rendered, &arg, spec)?;
                limit::reserve_from(s, start, rendered.len() + 2)?;
                push_encoded(s, &rendered, encode);
            }
        }
        limit::check(s.len() - start)
    }
}

impl NodeEval for Printf {
    fn eval(&self, args: &Args<'_>, outs: &mut [Value]) -> Result<(), NodeError> {
        let quick = |i: usize| match args.get(i) {
            Value::U64(x) => Quick::U64(*x),
            Value::Str(t) => Quick::Str(t),
            _ => Quick::Other,
        };
        outs[0] = text_value(|s| self.format(args.len(), quick, |i| Ok(ValueRef::of(args.get(i))), s))?;
        Ok(())
    }
    fn bytes_form(&self) -> Option<&dyn BytesEval> {
        Some(self)
    }
}

impl BytesEval for Printf {
    fn eval_bytes(&self, ins: &[Arg<'_>], out: Sink<'_>) -> Result<(), NodeError> {
        let s = out.text()?;
        if let Some(plain) = &self.plain {
            if Printf::format_plain(plain, self.literal_len, ins, s)? {
                return Ok(());
            }
        }
        let arg = |i: usize| match self.types.get(i) {
            Some(&ty) => ValueRef::from_arg(ins[i], ty),
            None => Err(NodeError::new("internal: printf has no type for a wire")),
        };
        let quick = |i: usize| match (self.types.get(i), ins[i]) {
            (Some(PortType::U64), Arg::Word(x)) => Quick::U64(x),
            (Some(PortType::Str), Arg::Text(t)) => Quick::Str(t),
            _ => Quick::Other,
        };
        self.format(ins.len(), quick, arg, s)
    }
    fn appends(&self) -> bool {
        true
    }
}

/// `printf`: Fills the format's {} placeholders with the arguments in order ({:05} {:8} {:.2} {:x} {:X} {:b} {:o}).
pub const PRINTF: NodeDef = NodeDef {
    name: "printf",
    category: "format",
    doc: "Fills the format's {} placeholders with the arguments in order ({:05} {:8} {:.2} {:x} {:X} {:b} {:o}; a width at most 1048576, a precision at most 65535).",
    params: &[konst("format", Str), many(wire_any("parts"))],
    outputs: Outputs::One(Str),
    build: |c| Ok(Box::new(Printf::new(c.str(0), c.wire_types)?)),
    testing: Testing {
        samples: &[(
            "format",
            Samples::Str(&[
                "v={} w={}",
                "{}",
                "{:05}|{:x}",
                "{:.3} and {:8}",
                "{{{}}}",
                "no placeholders",
                "{:b}-{:o}-{:X}",
                "{:08.2}",
            ]),
        )],
        wires_from: Some(WiresFrom { param: "format", count: placeholder_count }),
        corner_call: Some(r#"printf("a={:05} x={:.3} s={} e={}", a, x, s, e)"#),
        fallible: true,
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `__tile`: a compiled template (a `tile` statement): the format's `{}`
/// holes filled as `printf` fills them, each then encoded by its code in
/// `encodings` (`p` plain, `v` JSON value, `q` JSON key, `s` inside a JSON
/// string, `c` CSV field). The frontend lowers every tile to one of these.
pub const TILE: NodeDef = NodeDef {
    name: "__tile",
    category: "format",
    doc: "A compiled tile: printf of format whose hole i is encoded by encodings[i] (p plain, v JSON value, q JSON key, s JSON text, c CSV field).",
    params: &[konst("format", Str), konst("encodings", Str), many(wire_any("parts"))],
    outputs: Outputs::One(Str),
    build: |c| Ok(Box::new(Printf::tile(c.str(0), c.str(1), c.wire_types)?)),
    ..NodeDef::BASE
};

/// `format_u64`: x as text: radix 16 gives 0x.., 8 gives 0o.., 2 gives 0b.., anything else decimal.
pub const FORMAT_U64: NodeDef = NodeDef {
    name: "format_u64",
    category: "format",
    doc: "x as text: radix 16 gives 0x.., 8 gives 0o.., 2 gives 0b.., anything else decimal.",
    params: &[wire("input", U64), konst_or("radix", U64, Lit::U64(10))],
    outputs: Outputs::One(Str),
    build: |c| {
        Ok(match c.u64(0) {
            16 => to_text(|x: u64, out: &mut String| {
                let _ = write!(out, "{x:#x}");
            }),
            8 => to_text(|x: u64, out: &mut String| {
                let _ = write!(out, "{x:#o}");
            }),
            2 => to_text(|x: u64, out: &mut String| {
                let _ = write!(out, "{x:#b}");
            }),
            _ => to_text(|x: u64, out: &mut String| push_u64(out, x)),
        })
    },
    testing: Testing { samples: &[("radix", Samples::U64(&[10, 16, 8, 2, 3]))], ..Testing::BASE },
    ..NodeDef::BASE
};

/// `format_f64`: x with a fixed number of decimal places.
pub const FORMAT_F64: NodeDef = NodeDef {
    name: "format_f64",
    category: "format",
    doc: "x with a fixed number of decimal places (precision at most 65535).",
    params: &[wire("input", F64), konst_or("precision", U64, Lit::U64(2))],
    outputs: Outputs::One(Str),
    build: |c| {
        let p = checked_size("format_f64", "precision", c.u64(0), MAX_FIELD)?;
        Ok(to_text(move |x: f64, out: &mut String| push_fixed(out, x, p)))
    },
    testing: Testing { samples: &[("precision", Samples::U64(&[2, 0, 5, 17]))], ..Testing::BASE },
    ..NodeDef::BASE
};

/// `zero_pad_u64`: x in decimal, left-padded with zeros to at least width digits.
pub const ZERO_PAD_U64: NodeDef = NodeDef {
    name: "zero_pad_u64",
    category: "format",
    doc: "x in decimal, left-padded with zeros to at least width digits (width at most 65535).",
    params: &[wire("input", U64), konst_or("width", U64, Lit::U64(10))],
    outputs: Outputs::One(Str),
    build: |c| {
        let w = checked_size("zero_pad_u64", "width", c.u64(0), MAX_FIELD)?;
        Ok(to_text(move |x: u64, out: &mut String| push_u64_padded(out, x, w)))
    },
    testing: Testing { samples: &[("width", Samples::U64(&[10, 0, 1, 25]))], ..Testing::BASE },
    ..NodeDef::BASE
};

/// The formatting family.
pub const NODES: &[NodeDef] = &[PRINTF, TILE, FORMAT_U64, FORMAT_F64, ZERO_PAD_U64];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::{build_err, eval1, eval_err};

    fn printf(fmt: &str, args: &[Value]) -> String {
        eval1(&PRINTF, &[Value::str(fmt)], args).as_str().unwrap().to_string()
    }

    fn tile(fmt: &str, codes: &str, args: &[Value]) -> String {
        eval1(&TILE, &[Value::str(fmt), Value::str(codes)], args).as_str().unwrap().to_string()
    }

    #[test]
    fn json_escaping_is_serde_jsons() {
        for text in ["plain", "q\"uote", "back\\slash", "\n\r\t\u{8}\u{c}", "\u{1}\u{1f}\u{7f}", "é✓😀", ""] {
            let mut ours = String::new();
            push_json_escaped(&mut ours, text);
            let theirs = serde_json::to_string(text).unwrap();
            assert_eq!(format!("\"{ours}\""), theirs, "{text:?}");
        }
    }

    #[test]
    fn tile_holes_are_encoded_by_position_and_type() {
        let doc = tile(
            "{{\"a\": {}, \"b\": {}, \"c\": \"x{}\", \"d\": {}, \"e\": {}}}",
            "vvsvv",
            &[Value::str("q\"\\\n\u{1}é"), Value::U64(7), Value::str("<\">"), Value::F64(f64::NAN), Value::F64(2.5)],
        );
        assert_eq!(doc, "{\"a\": \"q\\\"\\\\\\n\\u0001é\", \"b\": 7, \"c\": \"x<\\\">\", \"d\": null, \"e\": 2.5}");
        assert_eq!(
            tile("{},{},{}", "ccc", &[Value::str("a,b"), Value::str("say \"hi\""), Value::U64(3)]),
            "\"a,b\",\"say \"\"hi\"\"\",3"
        );
        assert_eq!(tile("[{:.2}|{:5}]", "vv", &[Value::F64(1.0), Value::str("ab")]), "[1.00|\"   ab\"]");
        assert_eq!(tile("raw {}", "p", &[Value::str("\"")]), "raw \"");
        assert!(build_err(&TILE, &[Value::str("{}"), Value::str("vv")], &[PortType::U64]).contains("encodings"));
    }

    #[test]
    fn fixed_decimals_are_the_formatters_own() {
        let check = |x: f64, p: usize| {
            let mut got = String::new();
            push_fixed(&mut got, x, p);
            assert_eq!(got, format!("{x:.p$}"), "{x:?} to {p} places");
        };
        // Exact ties (k + 1/2) / 10^p at every precision, both signs.
        for p in 0..=19 {
            for k in [0u64, 1, 2, 3, 7, 10, 99, 12345, 1 << 40] {
                for frac in [0.5f64, 0.25, 0.75, 0.125, 0.375] {
                    let x = (k as f64 + frac) / 10f64.powi(p as i32);
                    check(x, p);
                    check(-x, p);
                }
            }
        }
        let specials =
            [0.0, -0.0, 1e-320, -1e-320, 5e-324, 0.005, 1.005, 0.999, 9.995, 2.5, 0.5, 1.5, 1e15, 1e16, 1e19, 1e22];
        for x in specials.into_iter().chain([f64::MAX, f64::MIN_POSITIVE, f64::NAN, f64::INFINITY, -f64::INFINITY]) {
            for p in [0, 1, 2, 3, 6, 17, 19, 20, 30] {
                check(x, p);
                check(-x, p);
            }
        }
        // Many mantissas at exponents around the fast path's edges.
        let mut h = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..200_000 {
            h = crate::nodes::hash::splitmix64(h);
            let e = (h >> 53) as i32 % 150 - 90;
            let x = ((h & ((1 << 53) - 1)) as f64) * 2f64.powi(e - 52);
            check(if h & (1 << 63) != 0 { -x } else { x }, (h >> 58) as usize % 21);
        }
    }

    #[test]
    fn placeholders_are_sequential() {
        assert_eq!(printf("{} + {} = {}", &[Value::U64(1), Value::U64(2), Value::U64(3)]), "1 + 2 = 3");
        assert_eq!(printf("just text", &[]), "just text");
        assert_eq!(printf("{}", &[Value::str("é")]), "é");
        assert_eq!(printf("{{escaped}} {}", &[Value::U64(1)]), "{escaped} 1");
        assert_eq!(printf("a}}b{{", &[]), "a}b{");
        assert_eq!(printf("{}", &[Value::U64(1), Value::U64(2)]), "1", "extra arguments are ignored");
        assert_eq!(printf("{0}|{3}", &[Value::U64(7), Value::U64(8)]), "7|  8", "a bare number is a width");
    }

    #[test]
    fn the_quick_way_writes_what_the_checked_way_writes() {
        // Past BOUNDED_ARGS placeholders a printf takes the checked way: the
        // same values, padded with empty ones to that many, must print the same.
        let cases: &[(&str, &[Value])] = &[
            ("{:05}|{:x}|{:40}|{:>3}", &[Value::U64(42), Value::U64(255), Value::U64(7), Value::str("é")]),
            ("({}) {}-{:04}", &[Value::U64(212), Value::U64(555), Value::U64(12)]),
            ("{:045} {:b} {:o} {:X}", &[Value::U64(9), Value::U64(5), Value::U64(8), Value::U64(255)]),
            ("{}.{}{}@{}", &[Value::str("ann"), Value::str("lee"), Value::U64(0), Value::str("example.com")]),
        ];
        for &(fmt, args) in cases {
            let quick = printf(fmt, args);
            let wide = format!("{fmt}{}", "{}".repeat(BOUNDED_ARGS + 1 - args.len()));
            let mut padded = args.to_vec();
            padded.resize(BOUNDED_ARGS + 1, Value::str(""));
            assert_eq!(printf(&wide, &padded), quick, "{fmt}");
        }
        assert_eq!(printf("{:040}", &[Value::U64(7)]), format!("{:040}", 7));
        assert_eq!(printf("{:70}", &[Value::str("ab")]), format!("{:>70}", "ab"));
    }

    /// The by-bytes form's plain way (see [`Plain`]) writes what P1's way
    /// writes, after earlier text too, and is taken only where it applies.
    #[test]
    fn the_plain_way_writes_what_the_checked_way_writes() {
        use crate::node::by_bytes::Arg;
        // (format, arguments, whether it has a plain way)
        let cases: &[(&str, &[Value], bool)] = &[
            ("{}.{}{}@{}", &[Value::str("ann"), Value::str("lée"), Value::U64(0), Value::str("example.com")], true),
            ("{}", &[Value::U64(u64::MAX)], true),
            ("<{}>{{}}", &[Value::U64(7), Value::U64(8)], true),
            ("{}{}", &[Value::str(""), Value::U64(10)], true),
            ("a}}b{{", &[], true),
            ("{} {} {}, {}, {} {}", &[1, 2, 3, 4, 5, 6].map(|i| Value::str("x".repeat(i))), true),
            ("{:5}|{}", &[Value::U64(3), Value::str("spec")], true),
            ("({}) {}-{:04}", &[Value::U64(212), Value::U64(555), Value::U64(7)], true),
            ("{:04}|{:3}", &[Value::U64(123_456), Value::U64(1_000)], true),
            ("{:020}|{:64}", &[Value::U64(u64::MAX), Value::U64(0)], true),
            ("{:65}", &[Value::U64(1)], false),
            ("{:5}", &[Value::str("text")], false),
            ("{:.2}|{:x}", &[Value::U64(1), Value::U64(255)], false),
            ("{:08x}", &[Value::U64(255)], false),
        ];
        for &(fmt, args, plain) in cases {
            let types: Vec<PortType> =
                args.iter().map(|v| if v.as_u64().is_some() { U64 } else { PortType::Str }).collect();
            let ins: Vec<Arg<'_>> =
                args.iter().map(|v| v.as_u64().map_or_else(|| Arg::Text(v.as_str().unwrap()), Arg::Word)).collect();
            let built = Printf::new(fmt, &types).unwrap();
            assert_eq!(built.plain.is_some(), plain, "{fmt}");
            let (alone, after, _) =
                crate::nodes::testing::bytes_twice(&PRINTF, &[Value::str(fmt)], &types, &ins, "earlier ");
            assert_eq!(alone, printf(fmt, args), "{fmt}");
            assert_eq!(after.unwrap(), alone, "{fmt}");
        }
        // A tile encodes its holes: it has no plain way.
        assert!(Printf::tile("{}|{}", "qc", &[PortType::Str, U64]).unwrap().plain.is_none());
        // A picked word is copied as the pick gives it.
        let words: Arc<dyn StrPick> = Arc::new(crate::nodes::real_data::last_names());
        let fused = printf_over_picks("{}-{}", &[U64, U64], vec![Some(words.clone()), None]).unwrap();
        let mut text = String::new();
        fused.bytes_form().unwrap().eval_bytes(&[Arg::Word(5), Arg::Word(5)], Sink::Text(&mut text)).unwrap();
        assert_eq!(text, format!("{}-5", words.text(5)));
    }

    #[test]
    fn numeric_specs() {
        let u = |f: &str, x: u64| printf(f, &[Value::U64(x)]);
        assert_eq!(u("{:05}", 42), "00042");
        assert_eq!(u("{:8}", 42), "      42");
        assert_eq!(u("{:x}", 255), "ff");
        assert_eq!(u("{:X}", 255), "FF");
        assert_eq!(u("{:b}", 5), "101");
        assert_eq!(u("{:o}", 8), "10");
        assert_eq!(u("{:08x}", u64::MAX), "ffffffffffffffff");
        assert_eq!(u("{:.2}", 7), "7", "precision does not apply to integers");
        assert_eq!(u("{:2}", u64::MAX), "18446744073709551615");
    }

    #[test]
    fn float_specs() {
        let f = |fmt: &str, x: f64| printf(fmt, &[Value::F64(x)]);
        assert_eq!(f("{}", 1.0), "1.0", "bare f64 uses Debug");
        assert_eq!(f("{}", -0.0), "-0.0");
        assert_eq!(f("{}", f64::NAN), "NaN");
        assert_eq!(f("{}", f64::NEG_INFINITY), "-inf");
        assert_eq!(f("{:.2}", 1.23456), "1.23");
        assert_eq!(f("{:.0}", 2.5), "2");
        assert_eq!(f("{:6}", 1.5), "   1.5");
        let mixed = printf("id={:05} val={:.1}", &[Value::U64(7), Value::F64(98.6)]);
        assert_eq!(mixed, "id=00007 val=98.6");
    }

    #[test]
    fn zero_fill_goes_before_the_whole_text_as_upstream() {
        // Upstream format.rs `apply_width`: the fill is prepended, sign or not.
        let f = |fmt: &str, x: f64| printf(fmt, &[Value::F64(x)]);
        assert_eq!(f("{:08.2}", -1.5), "000-1.50");
        assert_eq!(f("{:06}", f64::INFINITY), "000inf");
        assert_eq!(f("{:05}", -0.5), "0-0.5");
        assert_eq!(f("{:04}", -0.5), "-0.5", "no fill when the text is as wide");
    }

    #[test]
    fn other_values_use_display_text() {
        assert_eq!(printf("{:5}|{}", &[Value::str("ab"), Value::Bool(true)]), "   ab|true");
        assert_eq!(printf("{:04}", &[Value::I64(-7)]), "-007");
        assert_eq!(printf("{:04}", &[Value::str("7")]), "   7", "strings never zero-pad");
        assert_eq!(printf("[{:6}]", &[Value::str("é")]), "[     é]", "string width counts characters");
    }

    #[test]
    fn booleans_ignore_width_as_upstream() {
        assert_eq!(printf("[{:8}]", &[Value::Bool(false)]), "[false]");
        assert_eq!(printf("[{:08.3}]", &[Value::Bool(true)]), "[true]");
    }

    #[test]
    fn too_few_arguments_fail_at_evaluation() {
        let e = eval_err(&PRINTF, &[Value::str("{} and {}")], &[Value::U64(1)]);
        assert_eq!(e, "printf: format references input #1 but only 1 wire input(s) supplied");
        let e = eval_err(&PRINTF, &[Value::str("x{:05}")], &[]);
        assert_eq!(e, "printf: format references input #0 but only 0 wire input(s) supplied");
    }

    #[test]
    fn a_spliced_format_prints_the_inner_text_in_place() {
        // (outer, k, inner, the inner printf's arguments, the outer's others)
        type Case = (&'static str, usize, &'static str, Vec<Value>, Vec<Value>);
        let (x, y, z) = (Value::U64(7), Value::U64(255), Value::str("{z}"));
        let cases: Vec<Case> = vec![
            ("<{}>|{:05}", 0, "{:x}-{}{{}}", vec![y.clone(), z.clone()], vec![x.clone()]),
            ("}}{}{{", 0, "}{}}}", vec![z], vec![]),
            ("{:3}{}", 1, "a{}b", vec![x], vec![y]),
            ("{}", 0, "", vec![], vec![]),
        ];
        for (outer, k, inner, ys, rest) in cases {
            let spliced = splice_format(outer, k, inner).unwrap_or_else(|| panic!("{outer} / {inner}"));
            let inner_text = Value::str(printf(inner, &ys));
            let mut outer_args = rest.to_vec();
            outer_args.insert(k, inner_text);
            let mut spliced_args = rest.to_vec();
            spliced_args.splice(k..k, ys.iter().cloned());
            assert_eq!(printf(&spliced, &spliced_args), printf(outer, &outer_args), "{outer} / {inner} -> {spliced}");
            assert_eq!(placeholder_count(&spliced), placeholder_count(outer) + placeholder_count(inner) - 1);
        }
        assert_eq!(splice_format("{:5}", 0, "{}"), None, "a padded placeholder is not a plain copy");
        assert_eq!(splice_format("{} {}", 2, "{}"), None, "no third placeholder");
        assert_eq!(splice_format("{} {", 0, "{}"), None, "an unclosed placeholder");
        assert_eq!(splice_format("{}", 0, "a {"), None, "an unclosed inner placeholder");
    }

    #[test]
    fn lenient_formats_render_as_upstream() {
        // Upstream's parser refuses nothing: an unclosed `{` runs to the end,
        // a lone `}` is text, a spec keeps only its first conversion character.
        let one = [Value::U64(42)];
        assert_eq!(printf("abc {", &one), "abc 42");
        assert_eq!(printf("{:05", &one), "00042");
        assert_eq!(printf("a } b {}", &one), "a } b 42");
        assert_eq!(printf("{}}", &one), "42}");
        assert_eq!(printf("{:q}", &one), "42", "an unknown conversion is decimal");
        assert_eq!(printf("{:xyz}", &[Value::U64(255)]), "ff", "only the first character counts");
        assert_eq!(printf("{:.}", &[Value::F64(1.5)]), "1.5", "no digits: no precision");
        assert_eq!(printf("{:>5}", &one), "42", "an alignment flag is a conversion, ignored");
        assert_eq!(printf("{:99999}", &one).len(), 99999, "numbers pad by hand to any width");
    }

    #[test]
    fn sizes_past_the_limits_fail_at_build() {
        let b = |f: &str| build_err(&PRINTF, &[Value::str(f)], &[]);
        assert_eq!(b("{:.70000}"), "printf: precision 70000 is larger than 65535, the largest precision it takes");
        assert_eq!(printf("{:70000}", &[Value::str("s")]).len(), 70000, "text pads by hand as numbers do");
        assert_eq!(printf("{:.65535}", &[Value::U64(3)]), "3", "precision is unused for integers");
        let width = b("{:99999999999999999999}");
        assert!(width.contains("width 99999999999999999999 is too large") && !width.contains("unwrap"), "{width}");
        let precision = b("{:.99999999999999999999}");
        assert!(precision.contains("precision 99999999999999999999 is too large"), "{precision}");
        assert!(b("{:2000000}").contains("larger than"), "this project's cap on padding");
    }

    #[test]
    fn single_value_formatters() {
        let fu = |radix: u64, x: u64| eval1(&FORMAT_U64, &[Value::U64(radix)], &[Value::U64(x)]);
        assert_eq!(fu(16, 255).as_str(), Some("0xff"));
        assert_eq!(fu(8, 8).as_str(), Some("0o10"));
        assert_eq!(fu(2, 0).as_str(), Some("0b0"));
        assert_eq!(fu(10, u64::MAX).as_str(), Some("18446744073709551615"));
        assert_eq!(fu(7, 49).as_str(), Some("49"), "other radixes fall back to decimal");
        assert_eq!(eval1(&FORMAT_U64, &[], &[Value::U64(0)]).as_str(), Some("0"));
        let ff = |consts: &[Value], x: f64| eval1(&FORMAT_F64, consts, &[Value::F64(x)]);
        assert_eq!(ff(&[], 1.23456).as_str(), Some("1.23"));
        assert_eq!(ff(&[Value::U64(0)], 2.5).as_str(), Some("2"));
        assert_eq!(ff(&[], -0.0).as_str(), Some("-0.00"));
        assert_eq!(ff(&[], f64::NAN).as_str(), Some("NaN"));
        assert_eq!(ff(&[Value::U64(1)], f64::INFINITY).as_str(), Some("inf"));
        let zp = |consts: &[Value], x: u64| eval1(&ZERO_PAD_U64, consts, &[Value::U64(x)]);
        assert_eq!(zp(&[], 42).as_str(), Some("0000000042"));
        assert_eq!(zp(&[Value::U64(3)], 12345).as_str(), Some("12345"));
        assert_eq!(zp(&[Value::U64(0)], 0).as_str(), Some("0"));
        assert_eq!(zp(&[Value::U64(65535)], 7).as_str().map(str::len), Some(65535));
    }

    #[test]
    fn formatter_limits_are_build_errors_naming_the_argument_and_the_limit() {
        // Upstream builds these and fails every evaluation with Rust's
        // "Formatting argument out of range".
        let e = build_err(&ZERO_PAD_U64, &[Value::U64(1 << 20)], &[PortType::U64]);
        assert_eq!(e, "zero_pad_u64: width 1048576 is larger than 65535, the largest width it takes");
        let e = build_err(&FORMAT_F64, &[Value::U64(u64::MAX)], &[PortType::F64]);
        assert!(e.starts_with("format_f64: precision 18446744073709551615 is larger than 65535"), "{e}");
        let e = build_err(&FORMAT_F64, &[Value::U64(65536)], &[PortType::F64]);
        assert!(e.starts_with("format_f64: precision 65536 is larger than 65535"), "{e}");
    }
}
