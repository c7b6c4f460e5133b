//! String family: concatenation, case mapping, English number words, hashed
//! UUIDs, mixed-radix character combinations, and lines or stretches of
//! text chosen by the input.

use crate::node::by_bytes::{str_text, text_value, to_text, Arg, BytesEval, Sink, ValueRef};
use crate::node::kit::{str_map, to_ref, value_fn};
use crate::node::{konst, limit, many, wire, wire_any, Args, NodeDef, NodeError, NodeEval, Outputs, Samples, Testing};
use crate::nodes::hash::xxh3_u64;
use crate::types::PortType::{self, Str, U64};
use crate::value::Value;

/// A built `str_concat`: the type of each wire, which the by-bytes form
/// reads its slot words by.
struct Concat {
    types: Box<[PortType]>,
}

impl Concat {
    /// Appends every argument's text to `s` (measured from `s`'s length on
    /// arrival): the one rule of both forms.
    fn concat<'a>(
        argc: usize,
        arg: impl Fn(usize) -> Result<ValueRef<'a>, NodeError>,
        s: &mut String,
    ) -> Result<(), NodeError> {
        let start = s.len();
        for i in 0..argc {
            match arg(i)? {
                ValueRef::Str(t) | ValueRef::Json(t) => limit::push_str_from(s, start, t)?,
                // Upstream renders bytes as (lossy) UTF-8 text, not hex.
                ValueRef::Bytes(b) => limit::push_str_from(s, start, &String::from_utf8_lossy(b))?,
                other => {
                    other.push_display(s);
                    limit::check(s.len() - start)?;
                }
            }
        }
        Ok(())
    }
}

impl NodeEval for Concat {
    fn eval(&self, args: &Args<'_>, outs: &mut [Value]) -> Result<(), NodeError> {
        outs[0] = text_value(|s| Concat::concat(args.len(), |i| Ok(ValueRef::of(args.get(i))), s))?;
        Ok(())
    }
    fn bytes_form(&self) -> Option<&dyn BytesEval> {
        Some(self)
    }
}

impl BytesEval for Concat {
    fn eval_bytes(&self, ins: &[Arg<'_>], out: Sink<'_>) -> Result<(), NodeError> {
        let arg = |i: usize| match self.types.get(i) {
            Some(&ty) => ValueRef::from_arg(ins[i], ty),
            None => Err(NodeError::new("internal: str_concat has no type for a wire")),
        };
        Concat::concat(ins.len(), arg, out.text()?)
    }
    fn appends(&self) -> bool {
        true
    }
}

/// Appends `s` mapped by `ascii` when it is all ASCII (the same text the
/// full Unicode mapping gives), else by `unicode`.
fn map_case(out: &mut String, s: &str, ascii: fn(&mut str), unicode: fn(&str) -> String) {
    if s.is_ascii() {
        let start = out.len();
        out.push_str(s);
        if let Some(added) = out.get_mut(start..) {
            ascii(added);
        }
    } else {
        out.push_str(&unicode(s));
    }
}

/// Appends `s` in lower case (`str_lower`'s mapping: full Unicode).
pub fn push_lower(out: &mut String, s: &str) {
    map_case(out, s, str::make_ascii_lowercase, str::to_lowercase);
}

/// Appends `s` in upper case (`str_upper`'s mapping: full Unicode).
pub fn push_upper(out: &mut String, s: &str) {
    map_case(out, s, str::make_ascii_uppercase, str::to_uppercase);
}

/// `str_concat`: The display text of every input, joined with nothing between.
pub const STR_CONCAT: NodeDef = NodeDef {
    name: "str_concat",
    category: "string",
    doc: "The display text of every input, joined with nothing between.",
    params: &[many(wire_any("parts"))],
    outputs: Outputs::One(Str),
    build: |c| Ok(Box::new(Concat { types: c.wire_types.into() })),
    ..NodeDef::BASE
};

/// `str_upper`: The string in upper case (full Unicode mapping).
pub const STR_UPPER: NodeDef = NodeDef {
    name: "str_upper",
    category: "string",
    doc: "The string in upper case (full Unicode mapping).",
    params: &[wire("input", Str)],
    outputs: Outputs::One(Str),
    build: |_| Ok(str_text(|s, out| push_upper(out, s))),
    ..NodeDef::BASE
};

/// `str_lower`: The string in lower case (full Unicode mapping).
pub const STR_LOWER: NodeDef = NodeDef {
    name: "str_lower",
    category: "string",
    doc: "The string in lower case (full Unicode mapping).",
    params: &[wire("input", Str)],
    outputs: Outputs::One(Str),
    build: |_| Ok(str_text(|s, out| push_lower(out, s))),
    ..NodeDef::BASE
};

const SMALL: [&str; 20] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
];
const TENS: [&str; 10] = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"];
const SCALES: [&str; 7] = ["", "thousand", "million", "billion", "trillion", "quadrillion", "quintillion"];

/// Appends the words for `n` in 1..=999 ("one hundred twenty-three").
fn push_group(out: &mut String, n: u64) {
    let (hundreds, rest) = (n / 100, n % 100);
    let mut parts: Vec<String> = Vec::with_capacity(2);
    if hundreds > 0 {
        parts.push(format!("{} hundred", SMALL[hundreds as usize]));
    }
    if rest >= 20 {
        let (t, o) = (rest / 10, rest % 10);
        parts.push(if o > 0 { format!("{}-{}", TENS[t as usize], SMALL[o as usize]) } else { TENS[t as usize].into() });
    } else if rest > 0 {
        parts.push(SMALL[rest as usize].into());
    }
    out.push_str(&parts.join(" "));
}

/// `n` spelled out in English: groups of three digits with scale words,
/// hyphenated tens, no "and" ("one thousand two hundred thirty-four").
pub fn number_words(n: u64) -> String {
    if n == 0 {
        return SMALL[0].into();
    }
    let mut groups = Vec::with_capacity(7);
    let mut rest = n;
    while rest > 0 {
        groups.push(rest % 1000);
        rest /= 1000;
    }
    let mut out = String::new();
    for (scale, &g) in groups.iter().enumerate().rev().filter(|(_, g)| **g > 0) {
        if !out.is_empty() {
            out.push(' ');
        }
        push_group(&mut out, g);
        if scale > 0 {
            out.push(' ');
            out.push_str(SCALES[scale]);
        }
    }
    out
}

/// `number_to_words`: x spelled out in English words ("forty-two", "one thousand").
pub const NUMBER_TO_WORDS: NodeDef = NodeDef {
    name: "number_to_words",
    category: "string",
    doc: "x spelled out in English words (\"forty-two\", \"one thousand\").",
    params: &[wire("input", U64)],
    outputs: Outputs::One(Str),
    build: |_| Ok(to_ref(number_words)),
    ..NodeDef::BASE
};

/// A version-4, RFC 4122 variant UUID whose 128 bits come from xxh3 of `x`
/// and xxh3 of that hash (both little-endian).
pub fn uuid_from(x: u64) -> String {
    let mut s = String::with_capacity(36);
    push_uuid(&mut s, x);
    s
}

/// Appends [`uuid_from`] of `x` to `s`.
fn push_uuid(s: &mut String, x: u64) {
    let h1 = xxh3_u64(x);
    let h2 = xxh3_u64(h1);
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&h1.to_le_bytes());
    b[8..].copy_from_slice(&h2.to_le_bytes());
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    // Written into its 36 bytes, the dashes in place, then copied once.
    let mut text = [b'-'; 36];
    let mut at = 0;
    for (i, &byte) in b.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            at += 1;
        }
        text[at..at + 2].copy_from_slice(&crate::value::hex_pair(byte));
        at += 2;
    }
    // Hex digits and dashes are ASCII.
    s.push_str(std::str::from_utf8(&text).unwrap_or_default());
}

/// `hashed_uuid`: A deterministic version-4 UUID string built from two chained xxh3 hashes of x.
pub const HASHED_UUID: NodeDef = NodeDef {
    name: "hashed_uuid",
    category: "string",
    doc: "A deterministic version-4 UUID string built from two chained xxh3 hashes of x.",
    params: &[wire("input", U64)],
    outputs: Outputs::One(Str),
    build: |_| Ok(to_text(|x: u64, out: &mut String| push_uuid(out, x))),
    ..NodeDef::BASE
};

/// One position of a `combinations` pattern.
enum Piece {
    Literal(String),
    Choice(Vec<char>),
}

/// Expands a charset spec: `a-z` ranges and single characters, in order. A
/// backwards range (`z-a`) contributes nothing, as upstream's `lo..=hi`.
pub fn expand_charset(spec: &str) -> Vec<char> {
    let cs: Vec<char> = spec.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < cs.len() {
        if i + 2 < cs.len() && cs[i + 1] == '-' {
            out.extend(cs[i]..=cs[i + 2]);
            i += 3;
        } else {
            out.push(cs[i]);
            i += 1;
        }
    }
    out
}

/// Parses a `;`-separated pattern: a lone character that is not a range is a
/// literal, and so is a spec that expands to no characters (the spec's text).
fn parse_pattern(pattern: &str) -> Vec<Piece> {
    pattern
        .split(';')
        .map(|spec| {
            let chars = expand_charset(spec);
            if chars.is_empty() || (chars.len() == 1 && !spec.contains('-')) {
                Piece::Literal(spec.to_string())
            } else {
                Piece::Choice(chars)
            }
        })
        .collect()
}

/// `combinations`: x as mixed-radix digits over the pattern's `;`-separated charsets (first position fastest).
pub const COMBINATIONS: NodeDef = NodeDef {
    name: "combinations",
    category: "string",
    doc: "x as mixed-radix digits over the pattern's `;`-separated charsets (first position fastest).",
    params: &[wire("input", U64), konst("pattern", Str)],
    outputs: Outputs::One(Str),
    build: |c| {
        let pieces = parse_pattern(c.str(0));
        // Product of the charset sizes, saturating at u64::MAX as upstream's
        // (so a pattern of more than 2^64 combinations wraps x at u64::MAX).
        let modulus = pieces.iter().fold(1u64, |m, p| match p {
            Piece::Choice(cs) => m.saturating_mul(cs.len() as u64),
            Piece::Literal(_) => m,
        });
        Ok(to_text(move |x: u64, s: &mut String| {
            let mut rem = x % modulus;
            for p in &pieces {
                match p {
                    Piece::Literal(t) => s.push_str(t),
                    Piece::Choice(cs) => {
                        let r = cs.len() as u64;
                        s.push(cs[(rem % r) as usize]);
                        rem /= r;
                    }
                }
            }
        }))
    },
    testing: Testing {
        samples: &[("pattern", Samples::Str(&["0-9;A-Z", "a-c;-;0-9", "x", "A-Z;A-Z;0-9;0-9", "é-ë;日"]))],
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `char_buf`: `length` characters of the charset: h = seed, then per character h = xxh3(h), chars[h mod n].
pub const CHAR_BUF: NodeDef = NodeDef {
    name: "char_buf",
    category: "string",
    doc: "length characters of the charset (a-z when it is empty or expands to nothing): h = seed, then per character h = xxh3(h) and chars[h mod n].",
    params: &[wire("seed", U64), konst("charset", Str), wire("length", U64)],
    outputs: Outputs::One(Str),
    build: |c| {
        let mut chars = expand_charset(c.str(0));
        if chars.is_empty() {
            chars = ('a'..='z').collect();
        }
        Ok(Box::new(CharBuf { chars }))
    },
    testing: Testing {
        samples: &[("charset", Samples::Str(&["A-Za-z0-9", "", "é-ë"]))],
        corner_call: Some(r#"char_buf(a, "a-f0-9", mod(b, 40))"#),
        random: false,
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// A built `char_buf`: its charset.
struct CharBuf {
    chars: Vec<char>,
}

impl CharBuf {
    /// Appends `len` characters from `seed` to `s`: the one rule of both forms.
    fn fill(&self, seed: u64, len: u64, s: &mut String) -> Result<(), NodeError> {
        let width = self.chars.iter().map(|c| c.len_utf8()).max().unwrap_or(1);
        limit::check(usize::try_from(len).unwrap_or(usize::MAX).saturating_mul(width))?;
        let mut h = seed;
        for _ in 0..len {
            h = xxh3_u64(h);
            s.push(self.chars[(h % self.chars.len() as u64) as usize]);
        }
        Ok(())
    }
}

impl NodeEval for CharBuf {
    fn eval(&self, args: &Args<'_>, outs: &mut [Value]) -> Result<(), NodeError> {
        let (Some(seed), Some(len)) = (args.get(0).as_u64(), args.get(1).as_u64()) else {
            return Err(NodeError::new("internal: char_buf takes two u64 wires"));
        };
        outs[0] = text_value(|s| self.fill(seed, len, s))?;
        Ok(())
    }
    fn bytes_form(&self) -> Option<&dyn BytesEval> {
        Some(self)
    }
}

impl BytesEval for CharBuf {
    fn eval_bytes(&self, ins: &[Arg<'_>], out: Sink<'_>) -> Result<(), NodeError> {
        let (seed, len) = (ins[0].scalar::<u64>()?, ins[1].scalar::<u64>()?);
        self.fill(seed, len, out.text()?)
    }
    fn appends(&self) -> bool {
        true
    }
}

/// `hashed_line_to_string`: a line of the constant text, chosen by the input.
pub const HASHED_LINE_TO_STRING: NodeDef = NodeDef {
    name: "hashed_line_to_string",
    category: "string",
    doc:
        "Line input % lines of the constant text source (empty lines dropped); hash the input first for a random line.",
    params: &[wire("input", U64), konst("source", Str)],
    outputs: Outputs::One(Str),
    build: |c| {
        let lines: Vec<std::sync::Arc<str>> =
            c.str(0).lines().filter(|l| !l.is_empty()).map(std::sync::Arc::from).collect();
        if lines.is_empty() {
            return Err("text source must have at least one line".into());
        }
        let n = lines.len() as u64;
        Ok(crate::node::by_bytes::pick_str(crate::node::by_bytes::StrTable::new(lines), move |x| (x % n) as usize))
    },
    testing: Testing {
        samples: &[("source", Samples::Str(&["alpha\nbeta\n\ngamma", "one line", "é"]))],
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `str_len`: the number of characters (Unicode scalar values) of the string.
pub const STR_LEN: NodeDef = NodeDef {
    name: "str_len",
    category: "string",
    doc: "The number of characters (Unicode scalar values, not bytes) of the string.",
    params: &[wire("input", Str)],
    build: |_| Ok(str_map(|s: &str| Ok(s.chars().count() as u64))),
    ..NodeDef::BASE
};

/// Appends `text` with its characters from position `at` replaced by those
/// of `patch`: as many as fit before the text's end, so the result has the
/// text's length (an `at` at or past the end changes nothing).
pub fn push_overwritten(out: &mut String, text: &str, at: u64, patch: &str) -> Result<(), NodeError> {
    let start = out.len();
    // Byte offset of character `k` of the text (its length past the last).
    let byte_at =
        |k: u64| text.char_indices().nth(usize::try_from(k).unwrap_or(usize::MAX)).map_or(text.len(), |(b, _)| b);
    let head = byte_at(at);
    let rest = &text[head..];
    let kept = patch.chars().zip(rest.chars()).map(|(p, _)| p.len_utf8()).sum::<usize>();
    let covered = patch.chars().zip(rest.char_indices()).last().map_or(0, |(_, (b, c))| b + c.len_utf8());
    limit::push_str_from(out, start, &text[..head])?;
    limit::push_str_from(out, start, &patch[..kept])?;
    limit::push_str_from(out, start, &rest[covered..])
}

/// `str_overwrite`: the text with characters from `at` on replaced by the patch, keeping its length.
pub const STR_OVERWRITE: NodeDef = NodeDef {
    name: "str_overwrite",
    category: "string",
    doc: "The text with its characters from position at (from 0) replaced by those of patch, as many as fit before its end: the length stays the text's (an at past the end changes nothing).",
    params: &[wire("text", Str), wire("at", U64), wire("patch", Str)],
    outputs: Outputs::One(Str),
    build: |_| {
        Ok(value_fn(|args, outs| {
            let (text, at, patch) = (args.get(0).as_str(), args.get(1).as_u64(), args.get(2).as_str());
            let (Some(text), Some(at), Some(patch)) = (text, at, patch) else {
                return Err(NodeError::new("internal: str_overwrite expects (str, u64, str)"));
            };
            outs[0] = text_value(|s| push_overwritten(s, text, at, patch))?;
            Ok(())
        }))
    },
    testing: Testing { corner_call: Some(r#"str_overwrite(s, mod(a, 7), t)"#), ..Testing::BASE },
    ..NodeDef::BASE
};

/// The string family.
pub const NODES: &[NodeDef] = &[
    STR_CONCAT,
    STR_UPPER,
    STR_LOWER,
    STR_LEN,
    STR_OVERWRITE,
    NUMBER_TO_WORDS,
    HASHED_UUID,
    COMBINATIONS,
    CHAR_BUF,
    HASHED_LINE_TO_STRING,
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::eval1;

    fn s1(def: &NodeDef, consts: &[Value], x: Value) -> String {
        eval1(def, consts, &[x]).as_str().unwrap().to_string()
    }

    #[test]
    fn str_len_counts_characters() {
        let n = |t: &str| eval1(&STR_LEN, &[], &[Value::str(t)]).as_u64().unwrap();
        assert_eq!((n(""), n("abc"), n("straße ñ")), (0, 3, 8));
    }

    #[test]
    fn str_overwrite_keeps_the_texts_length() {
        let o = |t: &str, at: u64, p: &str| {
            eval1(&STR_OVERWRITE, &[], &[Value::str(t), Value::U64(at), Value::str(p)]).as_str().unwrap().to_string()
        };
        assert_eq!(o("the quick brown fox", 4, "QUICK"), "the QUICK brown fox");
        assert_eq!(o("abcdef", 4, "XYZ"), "abcdXY", "cut at the text's end");
        assert_eq!(o("abc", 3, "X"), "abc");
        assert_eq!(o("abc", u64::MAX, "X"), "abc");
        assert_eq!(o("abc", 0, ""), "abc");
        assert_eq!(o("", 0, "X"), "");
        assert_eq!(o("ñañaña", 1, "éé"), "ñééaña", "characters, not bytes");
        assert_eq!(o("ab", 0, "ñññ"), "ññ");
    }

    #[test]
    fn concat_renders_display_text() {
        let parts = [Value::str("id-"), Value::U64(42), Value::str(":"), Value::F64(1.0), Value::Bool(true)];
        assert_eq!(eval1(&STR_CONCAT, &[], &parts).as_str(), Some("id-42:1true"));
        assert_eq!(eval1(&STR_CONCAT, &[], &[]).as_str(), Some(""));
        let parts = [Value::F64(f64::NAN), Value::F64(-0.0), Value::U64(u64::MAX)];
        assert_eq!(eval1(&STR_CONCAT, &[], &parts).as_str(), Some("NaN-018446744073709551615"));
    }

    #[test]
    fn case_mapping_is_unicode() {
        assert_eq!(s1(&STR_UPPER, &[], Value::str("straße ñ")), "STRASSE Ñ");
        assert_eq!(s1(&STR_LOWER, &[], Value::str("ΑΒΓ Mixed")), "αβγ mixed");
        assert_eq!(s1(&STR_UPPER, &[], Value::str("")), "");
    }

    #[test]
    fn english_words() {
        let w = |x: u64| s1(&NUMBER_TO_WORDS, &[], Value::U64(x));
        assert_eq!(w(0), "zero");
        assert_eq!(w(1), "one");
        assert_eq!(w(19), "nineteen");
        assert_eq!(w(20), "twenty");
        assert_eq!(w(42), "forty-two");
        assert_eq!(w(100), "one hundred");
        assert_eq!(w(123), "one hundred twenty-three");
        assert_eq!(w(1000), "one thousand");
        assert_eq!(w(1_000_001), "one million one");
        assert_eq!(w(2_000_019_000), "two billion nineteen thousand");
        assert_eq!(
            w(u64::MAX),
            "eighteen quintillion four hundred forty-six quadrillion seven hundred forty-four trillion \
             seventy-three billion seven hundred nine million five hundred fifty-one thousand six hundred fifteen"
        );
    }

    #[test]
    fn uuid_layout_and_bits() {
        for x in [0, 1, u64::MAX] {
            let u = s1(&HASHED_UUID, &[], Value::U64(x));
            assert_eq!(u.len(), 36);
            let dashes: Vec<usize> = u.match_indices('-').map(|(i, _)| i).collect();
            assert_eq!(dashes, [8, 13, 18, 23]);
            assert_eq!(&u[14..15], "4", "version 4");
            assert!("89ab".contains(&u[19..20]), "RFC 4122 variant");
            assert!(u.chars().all(|c| c == '-' || c.is_ascii_digit() || ('a'..='f').contains(&c)));
        }
        let h1 = xxh3_u64(7).to_le_bytes();
        let u = uuid_from(7);
        assert_eq!(&u[..8], format!("{:02x}{:02x}{:02x}{:02x}", h1[0], h1[1], h1[2], h1[3]));
        assert_ne!(uuid_from(0), uuid_from(1));
    }

    #[test]
    fn combinations_first_position_fastest() {
        let pat = [Value::str("A-C;-;0-1")];
        let c = |x: u64| s1(&COMBINATIONS, &pat, Value::U64(x));
        assert_eq!([c(0), c(1), c(2), c(3), c(5), c(6)], ["A-0", "B-0", "C-0", "A-1", "C-1", "A-0"]);
        assert_eq!(c(u64::MAX), c(u64::MAX % 6));
        let hex = [Value::str("0-9a-f;0-9a-f")];
        assert_eq!(s1(&COMBINATIONS, &hex, Value::U64(0xf0)), "0f");
        assert_eq!(s1(&COMBINATIONS, &hex, Value::U64(255)), "ff");
        let lit = [Value::str("x;ab;;Q")];
        assert_eq!(s1(&COMBINATIONS, &lit, Value::U64(1)), "xbQ", "single chars and empty specs are literal");
    }

    #[test]
    fn combinations_huge_patterns_wrap_at_the_saturated_modulus() {
        // Upstream string.rs: modulus = saturating product, so 10^20 becomes u64::MAX.
        let pat = vec!["0-9"; 20].join(";");
        let s = s1(&COMBINATIONS, &[Value::str(pat.clone())], Value::U64(u64::MAX));
        assert_eq!(s, "0".repeat(20), "u64::MAX % u64::MAX is 0");
        let s = s1(&COMBINATIONS, &[Value::str(pat)], Value::U64(u64::MAX - 1));
        let digits: String = s.chars().rev().collect();
        assert_eq!(digits, format!("{:020}", u64::MAX - 1));
    }

    #[test]
    fn combinations_backwards_ranges_are_empty_as_upstream() {
        // `z-a` expands to nothing, so the spec is emitted as literal text.
        assert_eq!(s1(&COMBINATIONS, &[Value::str("z-a;0-1")], Value::U64(1)), "z-a1");
        // A backwards range beside a character leaves that one character as a
        // one-way choice (the spec has a dash, so it is not a literal).
        assert_eq!(s1(&COMBINATIONS, &[Value::str("z-a5;0-1")], Value::U64(1)), "51");
    }

    #[test]
    fn concat_renders_bytes_as_text() {
        let parts = [Value::str("<"), Value::Bytes(std::sync::Arc::from(&b"hi\xff"[..])), Value::str(">")];
        assert_eq!(eval1(&STR_CONCAT, &[], &parts).as_str(), Some("<hi\u{fffd}>"));
    }

    #[test]
    fn char_buf_chains_xxh3_from_the_seed() {
        let run = |cs: &str, seed: u64, len: u64| {
            eval1(&CHAR_BUF, &[Value::str(cs)], &[Value::U64(seed), Value::U64(len)]).as_str().unwrap().to_string()
        };
        let h1 = xxh3_u64(42);
        let h2 = xxh3_u64(h1);
        let az: Vec<char> = ('a'..='z').collect();
        assert_eq!(run("", 42, 2), format!("{}{}", az[(h1 % 26) as usize], az[(h2 % 26) as usize]));
        assert_eq!(run("z-a", 42, 2), run("a-z", 42, 2), "a charset of nothing is a-z");
        assert_eq!(run("01", 7, 0), "");
        assert!(run("A-Z0-9", 9, 64).chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit()));
        let err =
            crate::nodes::testing::eval_err(&CHAR_BUF, &[Value::str("a")], &[Value::U64(1), Value::U64(u64::MAX)]);
        assert!(err.contains("exceeds the limit"), "{err}");
    }
}
