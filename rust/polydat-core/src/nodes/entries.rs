//! Pick entries: text naming a pick of a bundled list, the constant of the
//! nodes fusion makes from picks (`__printf_words`, `__pick_entry`,
//! `__pick_either`). An entry is one of
//!
//! - a word-list node's name (`last_names`);
//! - `weighted_strings(spec)`, the spec's `,` separators written `;`;
//! - `locale_places(locale;city)`, `locale_places(locale;region)` or
//!   `locale_words(locale;list)` of a list without placeholders;
//! - a text map over an entry naming a list (not a region or a weighted
//!   spec): `str_lower(e)`, `str_upper(e)` or
//!   `regex_replace(e;pattern;replacement)`, the pattern and replacement
//!   with `%`, `,`, `;`, `(` and `)` written `%25`, `%2C`, `%3B`, `%28` and
//!   `%29`. Its list is `e`'s with the map applied to every word once, when
//!   the node is built, and picked the same way: its pick for `x` is the
//!   map of `e`'s pick for `x`, by the map node's own rule.
//!
//! No entry holds a `,` (`__printf_words` joins its entries with them).

use crate::node::by_bytes::{wrong_arg, Arg, BytesEval, OutRef, Sink, StrPick};
use crate::node::slot::Scalar;
use crate::node::{konst, limit, many, wire, wire_any, Args, NodeDef, NodeError, NodeEval, Outputs};
use crate::nodes::format::printf_over_picks;
use crate::nodes::locale::{self, LOCALE_PLACES, LOCALE_WORDS};
use crate::nodes::real_data::{word_list, Dataset};
use crate::nodes::regex::{replacer, REGEX_REPLACE};
use crate::nodes::string::{push_lower, push_upper, STR_LOWER, STR_UPPER};
use crate::nodes::weighted::{weighted_strings_pick, WEIGHTED_STRINGS};
use crate::types::PortType::{Str, U64};
use crate::value::Value;
use std::collections::HashMap;
use std::ops::Deref;
use std::sync::{Arc, Mutex, OnceLock};

/// The entry of a `weighted_strings` node over `spec`: `weighted_strings(spec)`,
/// the spec's `,` separators written `;` (the same entries: no value holds either).
pub fn weighted_entry(spec: &str) -> String {
    format!("{}({})", WEIGHTED_STRINGS.name, spec.replace(',', ";"))
}

/// The entry of `node(x, name, what)`, a locale pick: `node(name;what)`
/// (a pick only when [`locale::printed_pick`] has one).
pub fn locale_entry(node: &str, name: &str, what: &str) -> String {
    format!("{node}({name};{what})")
}

/// The entry of text map node `map` (with constants `consts`) over entry
/// `inner`, when `map` is one a list can be mapped by: `str_lower`,
/// `str_upper`, or `regex_replace` with its pattern and replacement.
pub fn mapped_entry(map: &str, consts: &[Value], inner: &str) -> Option<String> {
    match (map, consts) {
        (m, []) if m == STR_LOWER.name || m == STR_UPPER.name => Some(format!("{m}({inner})")),
        (m, [pattern, with]) if m == REGEX_REPLACE.name => {
            let (pattern, with) = (escape(pattern.as_str()?), escape(with.as_str()?));
            Some(format!("{m}({inner};{pattern};{with})"))
        }
        _ => None,
    }
}

/// `text` with the characters an entry's syntax uses written `%XX`.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '%' | ',' | ';' | '(' | ')' => out.push_str(&format!("%{:02X}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// The text [`escape`] wrote.
fn unescape(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        let code = rest.get(at + 1..at + 3)?;
        out.push(char::from(u8::from_str_radix(code, 16).ok()?));
        rest = &rest[at + 3..];
    }
    out.push_str(rest);
    Some(out)
}

/// The arguments of `entry` when it is `node(..)`.
fn call<'e>(entry: &'e str, node: &str) -> Option<&'e str> {
    entry.strip_prefix(node)?.strip_prefix('(')?.strip_suffix(')')
}

/// A bundled list with text maps applied to its words, and for each word
/// the longest text a map that checks the size limit (`regex_replace`)
/// made on the way: a row picking the word fails when that passes the
/// limit, as the row of the maps would.
struct Mapped {
    list: Dataset,
    checked: Box<[u32]>,
    /// The longest of `checked`: a row compares with the limit only past it.
    longest: usize,
}

impl Mapped {
    /// The failure, if any, of the row picking for `x`.
    #[inline]
    fn check(&self, x: u64) -> Result<(), NodeError> {
        if self.longest > limit::max_value_bytes() {
            limit::check(self.checked[self.list.index(x)] as usize)?;
        }
        Ok(())
    }
}

/// A list an entry names: bundled, or a bundled one mapped.
enum List {
    Bundled(&'static Dataset),
    Mapped(Arc<Mapped>),
}

impl Deref for List {
    type Target = Dataset;
    fn deref(&self) -> &Dataset {
        match self {
            List::Bundled(list) => list,
            List::Mapped(mapped) => &mapped.list,
        }
    }
}

/// A mapped list picks as its list does.
impl StrPick for Mapped {
    #[inline]
    fn value(&self, x: u64) -> &Arc<str> {
        self.list.value(x)
    }
    #[inline]
    fn text(&self, x: u64) -> &str {
        self.list.text(x)
    }
}

/// Mapped lists by entry, so that a program (or many) naming one map
/// builds it once; cleared when it holds this many.
const MAPPED_KEPT: usize = 64;

/// A text map of an entry's words.
type TextMap = Box<dyn Fn(&str) -> String>;

/// The list `entry` names, if it names one (`None`: it names no list, or
/// is no entry); `Some(Err)` for a map that cannot be made (a pattern that
/// does not compile, a map over something that is not a list).
fn entry_list(entry: &str) -> Option<Result<List, String>> {
    if let Some(list) = word_list(entry) {
        return Some(Ok(List::Bundled(list)));
    }
    for node in [LOCALE_PLACES.name, LOCALE_WORDS.name] {
        if let Some((name, what)) = call(entry, node).and_then(|args| args.split_once(';')) {
            return locale::printed_list(node, name, what).map(|list| Ok(List::Bundled(list)));
        }
    }
    // A map made before is taken as it is (no pattern compiled again).
    static MAPPED: OnceLock<Mutex<HashMap<String, Arc<Mapped>>>> = OnceLock::new();
    let cache = MAPPED.get_or_init(Default::default);
    if let Some(list) = cache.lock().ok().and_then(|c| c.get(entry).cloned()) {
        return Some(Ok(List::Mapped(list)));
    }
    let (inner, map, checks): (&str, TextMap, bool) = if let Some(inner) = call(entry, STR_LOWER.name) {
        (inner, Box::new(|s| with_pushed(s, push_lower)), false)
    } else if let Some(inner) = call(entry, STR_UPPER.name) {
        (inner, Box::new(|s| with_pushed(s, push_upper)), false)
    } else if let Some(args) = call(entry, REGEX_REPLACE.name) {
        let mut parts = args.rsplitn(3, ';');
        let (with, pattern, inner) = (parts.next()?, parts.next()?, parts.next()?);
        let (Some(pattern), Some(with)) = (unescape(pattern), unescape(with)) else {
            return Some(Err(format!("`{entry}`: a pattern or replacement badly escaped")));
        };
        match replacer(&pattern, &with) {
            Ok(replace) => (inner, Box::new(replace), true),
            Err(e) => return Some(Err(e)),
        }
    } else {
        return None;
    };
    let inner = match entry_list(inner) {
        Some(Ok(list)) => list,
        Some(Err(e)) => return Some(Err(e)),
        None => return Some(Err(format!("`{entry}`: a text map over `{inner}`, which names no list"))),
    };
    let list = inner.mapped(&map);
    let checked_before = match &inner {
        List::Mapped(m) => m.checked.clone(),
        List::Bundled(l) => vec![0; l.values().len()].into(),
    };
    let checked: Box<[u32]> = match checks {
        true => list.values().iter().zip(&checked_before[..]).map(|(w, &c)| c.max(w.len() as u32)).collect(),
        false => checked_before,
    };
    let longest = checked.iter().copied().max().unwrap_or(0) as usize;
    let mapped = Arc::new(Mapped { list, checked, longest });
    if let Ok(mut cache) = cache.lock() {
        if cache.len() >= MAPPED_KEPT {
            cache.clear();
        }
        cache.insert(entry.to_string(), mapped.clone());
    }
    Some(Ok(List::Mapped(mapped)))
}

/// The text `push` appends to an empty string for `s`.
fn with_pushed(s: &str, push: fn(&mut String, &str)) -> String {
    let mut out = String::with_capacity(s.len());
    push(&mut out, s);
    out
}

/// The pick `entry` names and, for a list mapped by a map that checks the
/// size limit, the checks of its rows; or why it names none.
fn entry_pick_checked(entry: &str) -> Result<Checked, String> {
    match entry_list(entry) {
        Some(Ok(List::Bundled(list))) => return Ok((Arc::new(list), None)),
        Some(Ok(List::Mapped(m))) => {
            let checks = (m.longest > 0).then(|| m.clone());
            return Ok((m, checks));
        }
        Some(Err(e)) => return Err(e),
        None => {}
    }
    if let Some(spec) = call(entry, WEIGHTED_STRINGS.name) {
        return Ok((weighted_strings_pick(spec)?, None));
    }
    let region = call(entry, LOCALE_PLACES.name)
        .and_then(|args| args.split_once(';'))
        .and_then(|(name, what)| locale::printed_pick(LOCALE_PLACES.name, name, what));
    region
        .map(|pick| (pick, None))
        .ok_or_else(|| format!("`{entry}` is not a word-list node or a locale pick printed as it is"))
}

/// The pick `entry` names, or why it names none (a pick whose rows are
/// checked against the size limit is not one to print in place).
pub fn entry_pick(entry: &str) -> Result<Arc<dyn StrPick>, String> {
    match entry_pick_checked(entry)? {
        (pick, None) => Ok(pick),
        (_, Some(_)) => Err(format!("`{entry}` checks the size limit at each row: it is picked by its own node")),
    }
}

/// Whether the pick `entry` names checks the size limit at each row (a
/// `regex_replace` map in it): such a pick is made by its own node, not
/// printed in place by `__printf_words`.
pub fn checks_limit(entry: &str) -> bool {
    match [STR_LOWER.name, STR_UPPER.name].iter().find_map(|m| call(entry, m)) {
        Some(inner) => checks_limit(inner),
        None => call(entry, REGEX_REPLACE.name).is_some(),
    }
}

/// `__printf_words`: `printf` whose word-list arguments are picked in place.
/// Fusion makes it from `printf(format, .., pick(x), ..)` for the picks an
/// entry names: the wire is `x`, and the word is copied once, into the
/// formatted text, with no step or slot of its own.
pub const PRINTF_WORDS: NodeDef = NodeDef {
    name: "__printf_words",
    category: "real_data",
    doc: "printf(format, parts) whose part i is picked by entry i of `words` (comma-separated pick entries, empty for a plain part).",
    params: &[konst("format", Str), konst("words", Str), many(wire_any("parts"))],
    outputs: Outputs::One(Str),
    build: |c| {
        let picks = c
            .str(1)
            .split(',')
            .map(|entry| match entry {
                "" => Ok(None),
                entry => entry_pick(entry).map(Some),
            })
            .collect::<Result<Vec<_>, String>>()?;
        printf_over_picks(c.str(0), c.wire_types, picks)
    },
    reports_as: Some("printf"),
    ..NodeDef::BASE
};

/// `__pick_entry`: the pick an entry names. Fusion makes it from a text
/// map over a pick (`str_lower(last_names(x))`): the word comes from the
/// mapped list, with no map at each row.
pub const PICK_ENTRY: NodeDef = NodeDef {
    name: "__pick_entry",
    category: "real_data",
    doc: "The word the pick entry `entry` names for input x (a list, or a list with a text map applied to each word once).",
    params: &[wire("input", U64), konst("entry", Str)],
    outputs: Outputs::One(Str),
    build: |c| Ok(Box::new(EntryPicks::One(entry_pick_checked(c.str(0))?))),
    ..NodeDef::BASE
};

/// `__pick_either`: one of two entries' picks, chosen by a condition.
/// Fusion makes it from `select_str(cond, pick_a(a), pick_b(b))` (what
/// `if` over two picks becomes), and maps it as it maps a pick.
pub const PICK_EITHER: NodeDef = NodeDef {
    name: "__pick_either",
    category: "real_data",
    doc: "entry_a's pick for a if cond is nonzero, else entry_b's pick for b (only the pick chosen is made).",
    params: &[wire("cond", U64), wire("a", U64), wire("b", U64), konst("entry_a", Str), konst("entry_b", Str)],
    outputs: Outputs::One(Str),
    build: |c| Ok(Box::new(EntryPicks::Either([entry_pick_checked(c.str(0))?, entry_pick_checked(c.str(1))?]))),
    ..NodeDef::BASE
};

/// A pick of [`PICK_ENTRY`] or [`PICK_EITHER`], and the checks of its
/// rows when a map of its list checks the size limit.
type Checked = (Arc<dyn StrPick>, Option<Arc<Mapped>>);

/// The pick of [`PICK_ENTRY`] or the two of [`PICK_EITHER`].
enum EntryPicks {
    /// One pick, over wire 0.
    One(Checked),
    /// The pick over wire 1 when wire 0 is nonzero, else the one over wire 2.
    Either([Checked; 2]),
}

impl EntryPicks {
    /// The pick chosen and its input, for the wires `word(i)` reads; the
    /// failure of a row a map would have failed.
    #[inline]
    fn chosen(&self, word: impl Fn(usize) -> Option<u64>) -> Result<(&dyn StrPick, u64), NodeError> {
        let ((pick, checks), x) = match self {
            EntryPicks::One(pick) => (pick, word(0)),
            EntryPicks::Either(picks) => match word(0) {
                Some(c) => (&picks[usize::from(c == 0)], word(1 + usize::from(c == 0))),
                None => (&picks[0], None),
            },
        };
        let x = x.ok_or_else(|| wrong_arg("u64"))?;
        if let Some(mapped) = checks {
            mapped.check(x)?;
        }
        Ok((&**pick, x))
    }
}

impl NodeEval for EntryPicks {
    fn eval(&self, args: &Args<'_>, outs: &mut [Value]) -> Result<(), NodeError> {
        let (pick, x) = self.chosen(|i| u64::from_value(args.get(i)))?;
        outs[0] = Value::Str(pick.value(x).clone());
        Ok(())
    }
    fn bytes_form(&self) -> Option<&dyn BytesEval> {
        Some(self)
    }
}

impl BytesEval for EntryPicks {
    #[inline]
    fn eval_bytes(&self, ins: &[Arg<'_>], out: Sink<'_>) -> Result<(), NodeError> {
        let (pick, x) = self.chosen(|i| ins.get(i)?.scalar::<u64>().ok())?;
        out.put(OutRef::Text(pick.text(x)))
    }
    fn appends(&self) -> bool {
        true
    }
}

/// The nodes that pick by entry.
pub const NODES: &[NodeDef] = &[PRINTF_WORDS, PICK_ENTRY, PICK_EITHER];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::regex::REGEX_REPLACE;

    /// Every pick of a mapped entry is the map of the list's pick, by the
    /// map node's own rule, for word lists and locale lists alike.
    #[test]
    fn a_mapped_entry_picks_the_mapped_word() {
        let replace = replacer("[ ']", "").unwrap();
        let lists = ["last_names", "first_names_all", "locale_words(de_DE;last)", "locale_places(fr_FR;city)"];
        for list in lists {
            let plain = entry_pick(list).unwrap();
            let lower = entry_pick(&mapped_entry(STR_LOWER.name, &[], list).unwrap()).unwrap();
            let consts = [Value::str("[ ']"), Value::str("")];
            let inner = mapped_entry(STR_LOWER.name, &[], list).unwrap();
            let (both, checks) =
                entry_pick_checked(&mapped_entry(REGEX_REPLACE.name, &consts, &inner).unwrap()).unwrap();
            assert!(checks.is_some(), "{list}: a regex_replace map checks the size limit");
            let upper = entry_pick(&mapped_entry(STR_UPPER.name, &[], list).unwrap()).unwrap();
            for i in 0..5_000u64 {
                let x = crate::nodes::hash::xxh3_u64(i);
                let word = plain.text(x);
                assert_eq!(lower.text(x), with_pushed(word, push_lower), "{list}");
                assert_eq!(both.text(x), replace(&with_pushed(word, push_lower)), "{list}");
                assert_eq!(upper.value(x).as_ref(), with_pushed(word, push_upper), "{list}");
            }
        }
    }

    /// A pattern or replacement holding the entry syntax's own characters
    /// survives the trip through an entry.
    #[test]
    fn patterns_with_separators_survive_the_entry() {
        for (pattern, with) in [("(a|e),;", "%;x"), ("[();,%]", "(%25)"), ("", "")] {
            let entry =
                mapped_entry(REGEX_REPLACE.name, &[Value::str(pattern), Value::str(with)], "last_names").unwrap();
            assert!(!entry.contains(','), "{entry}");
            let pick = entry_pick_checked(&entry).unwrap().0;
            assert!(checks_limit(&entry) && entry_pick(&entry).is_err(), "{entry}: printed in place");
            let replace = replacer(pattern, with).unwrap();
            let plain = entry_pick("last_names").unwrap();
            for x in 0..500u64 {
                assert_eq!(pick.text(x), replace(plain.text(x)));
            }
        }
    }

    /// Entries that name no list, or a map that cannot be made, are refused.
    #[test]
    fn bad_entries_are_refused() {
        for entry in [
            "no_such_list",
            "str_lower(no_such_list)",
            "str_lower(weighted_strings(a:1))",
            "regex_replace(last_names;[;)",
            "regex_replace(last_names;%ZZ;)",
            "locale_words(de_DE;phone)",
        ] {
            assert!(entry_pick_checked(entry).is_err(), "{entry}");
        }
        assert!(mapped_entry("str_trim", &[], "last_names").is_none());
    }
}
