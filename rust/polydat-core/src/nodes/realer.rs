//! Real-data family: names, places, companies, jobs and words from the
//! word lists compiled into the core (`data/*.csv`, sources and licences
//! in `data/README.md`), each parsed once on first use. Weighted lists
//! pick through an alias table over the input bits and uniform ones by
//! `input mod len`, as upstream's: hash the input first (the field
//! modules of the standard library do).

use crate::node::by_bytes::{pick, to_text, StrPick, StrTable};
use crate::node::{konst, konst_or, many, wire, wire_any, Lit, NodeDef, NodeEval, Outputs};
use crate::nodes::format::printf_over_picks;
use crate::nodes::hash::xxh3_u64;
use crate::nodes::string::{push_lower, STR_LOWER};
use crate::nodes::weighted::{AliasPicks, AliasTable};
use crate::types::PortType::{Str, U64};
use std::sync::{Arc, OnceLock};
use strength_reduce::StrengthReducedU64;

/// A word list: its values and, for a weighted one, the alias table.
pub struct Dataset {
    values: StrTable,
    table: Option<AliasPicks>,
    /// The number of values, for `x mod len` without a division instruction.
    len: StrengthReducedU64,
    /// The same list in lower case ([`Dataset::lowered`]), made on first use.
    lowered: OnceLock<Box<Dataset>>,
}

impl Dataset {
    /// The value for input bits `x`.
    #[inline]
    pub fn pick(&self, x: u64) -> &str {
        match &self.table {
            Some(t) => t.text(&self.values, x),
            None => self.values.text((x % self.len) as usize),
        }
    }

    /// The index of the value for input bits `x`.
    #[inline]
    pub fn index(&self, x: u64) -> usize {
        match &self.table {
            Some(t) => t.index(x),
            None => (x % self.len) as usize,
        }
    }

    /// The values, in file order.
    pub fn values(&self) -> &[Arc<str>] {
        self.values.values()
    }

    /// The values as a pick table.
    pub fn table(&self) -> &StrTable {
        &self.values
    }

    /// The list with every value as `str_lower` maps it, picked the same
    /// way: its pick for `x` is this list's pick for `x` in lower case.
    pub fn lowered(&self) -> &Dataset {
        self.lowered.get_or_init(|| {
            let values = self
                .values()
                .iter()
                .map(|v| {
                    let mut lower = String::new();
                    push_lower(&mut lower, v);
                    Arc::from(lower)
                })
                .collect();
            let values = StrTable::new(values);
            let table = self.table.as_ref().map(|t| t.over(&values));
            Box::new(Dataset { values, table, len: self.len, lowered: OnceLock::new() })
        })
    }
}

/// The fields of one CSV line (double-quoted fields may hold commas and `""`).
pub fn csv_fields(line: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(std::mem::take(&mut field)),
            (c, _) => field.push(c),
        }
    }
    fields.push(field);
    fields
}

/// The data rows of a bundled CSV: its `#` comment and header skipped.
fn rows(csv: &'static str) -> impl Iterator<Item = Vec<String>> {
    csv.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()).skip(1).map(csv_fields)
}

/// A uniform list from column `col`.
fn uniform(csv: &'static str, col: usize) -> Dataset {
    let values: Vec<Arc<str>> = rows(csv).filter_map(|r| r.get(col).map(|v| Arc::from(v.trim()))).collect();
    assert!(!values.is_empty(), "a bundled list is empty");
    let len = StrengthReducedU64::new(values.len() as u64);
    Dataset { values: StrTable::new(values), table: None, len, lowered: OnceLock::new() }
}

/// A weighted list: names from column 0, weights from column `w`, rows
/// kept when `keep` holds (and the weight parses and is positive).
fn weighted(csv: &'static str, w: usize, keep: impl Fn(&[String]) -> bool) -> Dataset {
    let mut values = Vec::new();
    let mut weights = Vec::new();
    for r in rows(csv).filter(|r| keep(r)) {
        if let Some(weight) = r.get(w).and_then(|x| x.trim().parse::<f64>().ok()).filter(|&x| x > 0.0) {
            values.push(Arc::from(r[0].trim()));
            weights.push(weight);
        }
    }
    let table = AliasTable::from_weights(&weights).expect("a bundled weighted list has positive weights");
    let len = StrengthReducedU64::new(values.len() as u64);
    let values = StrTable::new(values);
    Dataset { table: Some(AliasPicks::new(table, &values)), values, len, lowered: OnceLock::new() }
}

const FIRST_NAMES: &str = include_str!("../../data/first_names.csv");
const LAST_NAMES: &str = include_str!("../../data/last_names.csv");
const US_STATES: &str = include_str!("../../data/us_states.csv");
const COUNTRIES: &str = include_str!("../../data/countries.csv");
const NATIONALITIES: &str = include_str!("../../data/nationalities.csv");
const CITIES: &str = include_str!("../../data/cities.csv");
const STREET_NAMES: &str = include_str!("../../data/street_names.csv");
const STREET_SUFFIXES: &str = include_str!("../../data/street_suffixes.csv");
const COMPANY_SUFFIXES: &str = include_str!("../../data/company_suffixes.csv");
const COMPANY_WORDS: &str = include_str!("../../data/company_words.csv");
const JOB_TITLES: &str = include_str!("../../data/job_titles.csv");
const LOREM_WORDS: &str = include_str!("../../data/lorem_words.csv");

macro_rules! dataset {
    ($fn:ident, $init:expr) => {
        /// The bundled list, parsed on first use.
        pub fn $fn() -> &'static Dataset {
            static CELL: OnceLock<Dataset> = OnceLock::new();
            CELL.get_or_init(|| $init)
        }
    };
}

dataset!(female_first_names, weighted(FIRST_NAMES, 2, |r| r.get(1).is_some_and(|s| s == "F")));
dataset!(male_first_names, weighted(FIRST_NAMES, 2, |r| r.get(1).is_some_and(|s| s == "M")));
dataset!(all_first_names, weighted(FIRST_NAMES, 2, |_| true));
dataset!(last_names, weighted(LAST_NAMES, 1, |_| true));
dataset!(state_codes, uniform(US_STATES, 0));
dataset!(state_names, uniform(US_STATES, 1));
dataset!(country_codes, uniform(COUNTRIES, 0));
dataset!(country_names, uniform(COUNTRIES, 1));
dataset!(nationalities, uniform(NATIONALITIES, 0));
dataset!(cities, uniform(CITIES, 0));
dataset!(street_names, uniform(STREET_NAMES, 0));
dataset!(street_suffixes, uniform(STREET_SUFFIXES, 0));
dataset!(company_suffixes, uniform(COMPANY_SUFFIXES, 0));
dataset!(company_words, uniform(COMPANY_WORDS, 0));
dataset!(job_titles, uniform(JOB_TITLES, 0));
dataset!(lorem_words, uniform(LOREM_WORDS, 0));

impl StrPick for Dataset {
    #[inline]
    fn value(&self, x: u64) -> &Arc<str> {
        self.values.get(self.index(x))
    }
    #[inline]
    fn text(&self, x: u64) -> &str {
        self.pick(x)
    }
}

fn picker(data: fn() -> &'static Dataset) -> Box<dyn NodeEval> {
    pick(data())
}

/// Defines one node per word list, `(const, name, doc, list)`, and
/// [`WORD_LISTS`], the same lists by node name.
macro_rules! word_lists {
    ($(($id:ident, $name:literal, $doc:literal, $data:ident)),* $(,)?) => {
        $(
            /// A real-data node (see its `name` and `doc` fields).
            pub const $id: NodeDef = NodeDef {
                name: $name,
                category: "realer",
                doc: $doc,
                params: &[wire("input", U64)],
                outputs: Outputs::One(Str),
                build: |_| Ok(picker($data)),
                ..NodeDef::BASE
            };
        )*
        /// Every word-list node's name and its list.
        const WORD_LISTS: &[(&str, fn() -> &'static Dataset)] = &[$(($name, $data)),*];
    };
}

word_lists!(
    (
        FIRST_NAMES_NODE,
        "first_names",
        "A 1990 US Census female first name, by frequency (alias table over the input bits: hash first).",
        female_first_names
    ),
    (
        FIRST_NAMES_MALE,
        "first_names_male",
        "A 1990 US Census male first name, by frequency (alias table over the input bits).",
        male_first_names
    ),
    (
        FIRST_NAMES_ALL,
        "first_names_all",
        "A 1990 US Census first name of either sex, by frequency (alias table over the input bits).",
        all_first_names
    ),
    (
        LAST_NAMES_NODE,
        "last_names",
        "A 1990 US Census surname, by frequency (alias table over the input bits).",
        last_names
    ),
    (STATE_CODES, "state_codes", "A US state's two-letter code, uniformly (input mod 50).", state_codes),
    (
        STATE_NAMES,
        "state_names",
        "A US state's name, uniformly (input mod 50; the same state as state_codes).",
        state_names
    ),
    (
        COUNTRY_CODES,
        "country_codes",
        "An ISO 3166-1 alpha-2 country code, uniformly (input mod the list).",
        country_codes
    ),
    (
        COUNTRY_NAMES,
        "country_names",
        "A country's English name, uniformly (input mod the list; the same country as country_codes).",
        country_names
    ),
    (NATIONALITIES_NODE, "nationalities", "A nationality, uniformly (input mod the list).", nationalities),
    (CITY_NAMES, "city_names", "A US city name, uniformly (input mod the list).", cities),
    (STREET_NAMES_NODE, "street_names", "A street name, uniformly (input mod the list).", street_names),
    (
        STREET_SUFFIXES_NODE,
        "street_suffixes",
        "A street suffix (Avenue, Court, ...), uniformly (input mod the list).",
        street_suffixes
    ),
    (
        COMPANY_SUFFIXES_NODE,
        "company_suffixes",
        "A company suffix (Inc, LLC, ...), uniformly (input mod the list).",
        company_suffixes
    ),
    (
        COMPANY_WORDS_NODE,
        "company_words",
        "A word for company names (Adaptive, Advanced, ...), uniformly (input mod the list).",
        company_words
    ),
    (JOB_TITLES_NODE, "job_titles", "A job title, uniformly (input mod the list).", job_titles),
    (LOREM_WORDS_NODE, "lorem_words", "A lorem ipsum word, uniformly (input mod the list).", lorem_words),
);

/// The list the word-list node `name` picks from (`None`: `name` is no
/// such node). Two nodes with one name pick the same way, so a pick may be
/// made wherever its text is wanted (fusion does, see [`PRINTF_WORDS`]).
pub fn word_list(name: &str) -> Option<&'static Dataset> {
    WORD_LISTS.iter().find(|(n, _)| *n == name).map(|(_, list)| list())
}

/// What [`PRINTF_WORDS`] prints for a `words` entry: the word list `name`,
/// or for [`lowered_entry`]`(name)` the list in lower case ([`Dataset::lowered`]).
pub fn printed_list(entry: &str) -> Option<&'static Dataset> {
    let lowered = entry.strip_prefix(STR_LOWER.name).and_then(|e| e.strip_prefix('(')?.strip_suffix(')'));
    match lowered {
        Some(name) => word_list(name).map(Dataset::lowered),
        None => word_list(entry),
    }
}

/// The `words` entry of [`PRINTF_WORDS`] for list `name` printed in lower
/// case: `str_lower(name)`.
pub fn lowered_entry(name: &str) -> String {
    format!("{}({name})", STR_LOWER.name)
}

/// `full_names`: "First Last": the sex by bit 0 of xxh3(x), the first name by frequency from that hash, the surname from its xxh3.
pub const FULL_NAMES: NodeDef = NodeDef {
    name: "full_names",
    category: "realer",
    doc: "\"First Last\": h2 = xxh3(x) picks the sex (bit 0) and the first name, xxh3(h2) the surname, each by frequency.",
    params: &[wire("input", U64)],
    outputs: Outputs::One(Str),
    build: |_| {
        let (female, male, last) = (female_first_names(), male_first_names(), last_names());
        Ok(to_text(move |x: u64, out: &mut String| {
            let h2 = xxh3_u64(x);
            let h3 = xxh3_u64(h2);
            let first = if h2 & 1 == 0 { female.pick(h2) } else { male.pick(h2) };
            out.push_str(first);
            out.push(' ');
            out.push_str(last.pick(h3));
        }))
    },
    ..NodeDef::BASE
};

/// Appends words of lorem text from `x` to `s`: count in [min, max] by x,
/// word i from xxh3 chained from x.
fn lorem(s: &mut String, x: u64, min: u64, max: u64) {
    let words = lorem_words();
    let n = min + x % (max - min + 1);
    let mut h = x;
    for i in 0..n {
        h = xxh3_u64(h);
        let w = words.pick(h);
        if i == 0 {
            let mut cs = w.chars();
            if let Some(c) = cs.next() {
                s.extend(c.to_uppercase());
                s.push_str(cs.as_str());
            }
        } else {
            s.push(' ');
            s.push_str(w);
        }
    }
    if n > 0 {
        s.push('.');
    }
}

/// A lorem ipsum text of about 93 KB (the size of upstream's bundled one):
/// sentences of 4 to 12 words from the bundled word list, sentence `i`
/// drawn from `i` as `lorem_sentence` draws it, eight to a line. Built on
/// first use.
pub fn lorem_text() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        let mut text = String::new();
        let mut i = 0u64;
        while text.len() < 93_000 {
            if i > 0 {
                text.push(if i % 8 == 0 { '\n' } else { ' ' });
            }
            lorem(&mut text, i, 4, 12);
            i += 1;
        }
        text
    })
}

fn word_bounds(c: &crate::node::BuildCtx<'_>, what: &str) -> Result<(u64, u64), String> {
    let (min, max) = (c.u64(0), c.u64(1));
    if min > max {
        return Err(format!("min_{what} ({min}) must be <= max_{what} ({max})"));
    }
    if max > 10_000 {
        return Err(format!("max_{what} must be at most 10000, got {max}"));
    }
    Ok((min, max))
}

/// `lorem_sentence`: a capitalized lorem ipsum sentence of min_words..=max_words words, ended by a period.
pub const LOREM_SENTENCE: NodeDef = NodeDef {
    name: "lorem_sentence",
    category: "realer",
    doc: "A lorem ipsum sentence of min_words..=max_words words (count by x mod the span, words by an xxh3 chain from x), capitalized and ended by a period.",
    params: &[wire("input", U64), konst_or("min_words", U64, Lit::U64(4)), konst_or("max_words", U64, Lit::U64(12))],
    outputs: Outputs::One(Str),
    build: |c| {
        let (min, max) = word_bounds(c, "words")?;
        Ok(to_text(move |x: u64, out: &mut String| lorem(out, x, min, max)))
    },
    ..NodeDef::BASE
};

/// `lorem_paragraph`: min_sentences..=max_sentences lorem sentences of 4 to 12 words, joined by spaces.
pub const LOREM_PARAGRAPH: NodeDef = NodeDef {
    name: "lorem_paragraph",
    category: "realer",
    doc: "min_sentences..=max_sentences lorem sentences (4 to 12 words each) joined by spaces; sentence i from xxh3 chained from x.",
    params: &[wire("input", U64), konst_or("min_sentences", U64, Lit::U64(3)), konst_or("max_sentences", U64, Lit::U64(6))],
    outputs: Outputs::One(Str),
    build: |c| {
        let (min, max) = word_bounds(c, "sentences")?;
        Ok(to_text(move |x: u64, out: &mut String| {
            let n = min + x % (max - min + 1);
            let mut h = xxh3_u64(x ^ 0x5851_f42d_4c95_7f2d);
            for i in 0..n {
                h = xxh3_u64(h);
                if i > 0 {
                    out.push(' ');
                }
                lorem(out, h, 4, 12);
            }
        }))
    },
    ..NodeDef::BASE
};

/// `__printf_words`: `printf` whose word-list arguments are picked in place.
/// Fusion makes it from `printf(format, .., list(x), ..)` for word-list
/// nodes `list`: the wire is `x`, and the word is copied once, into the
/// formatted text, with no step or slot of its own.
pub const PRINTF_WORDS: NodeDef = NodeDef {
    name: "__printf_words",
    category: "realer",
    doc: "printf(format, parts) whose part i is picked from word list i of `words` (comma-separated node names, empty for a plain part).",
    params: &[konst("format", Str), konst("words", Str), many(wire_any("parts"))],
    outputs: Outputs::One(Str),
    build: |c| {
        let picks = c
            .str(1)
            .split(',')
            .map(|name| match name {
                "" => Ok(None),
                name => match printed_list(name) {
                    Some(list) => Ok(Some(list as &'static dyn StrPick)),
                    None => Err(format!("__printf_words: `{name}` is not a word-list node")),
                },
            })
            .collect::<Result<Vec<_>, String>>()?;
        printf_over_picks(c.str(0), c.wire_types, picks)
    },
    reports_as: Some("printf"),
    ..NodeDef::BASE
};

/// The real-data family.
pub const NODES: &[NodeDef] = &[
    FIRST_NAMES_NODE,
    FIRST_NAMES_MALE,
    FIRST_NAMES_ALL,
    LAST_NAMES_NODE,
    FULL_NAMES,
    STATE_CODES,
    STATE_NAMES,
    COUNTRY_CODES,
    COUNTRY_NAMES,
    NATIONALITIES_NODE,
    CITY_NAMES,
    STREET_NAMES_NODE,
    STREET_SUFFIXES_NODE,
    COMPANY_SUFFIXES_NODE,
    COMPANY_WORDS_NODE,
    JOB_TITLES_NODE,
    LOREM_WORDS_NODE,
    LOREM_SENTENCE,
    LOREM_PARAGRAPH,
    PRINTF_WORDS,
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::hash::splitmix64;
    use crate::nodes::testing::{build_err, eval1};
    use crate::value::Value;
    use std::collections::HashMap;

    fn pick(def: &NodeDef, x: u64) -> String {
        eval1(def, &[], &[Value::U64(x)]).as_str().unwrap().to_string()
    }

    #[test]
    fn lists_parse_with_their_sizes() {
        assert_eq!(
            female_first_names().values().len() + male_first_names().values().len(),
            all_first_names().values().len()
        );
        assert_eq!(female_first_names().values()[0].as_ref(), "Mary");
        assert_eq!(male_first_names().values()[0].as_ref(), "James");
        assert_eq!(last_names().values()[0].as_ref(), "Smith");
        assert_eq!(state_codes().values().len(), 50);
        assert_eq!(country_codes().values().len(), country_names().values().len());
        assert!(country_names().values().iter().all(|n| !n.is_empty() && !n.contains('"')));
        assert_eq!(csv_fields(r#"a,"b, c","d""e""#), ["a", "b, c", "d\"e"]);
    }

    #[test]
    fn picks_follow_upstreams_rules() {
        for x in [0u64, 1, 49, 50, u64::MAX] {
            let code = pick(&STATE_CODES, x);
            assert_eq!(code.len(), 2);
            assert!(code.chars().all(|c| c.is_ascii_uppercase()));
            assert_eq!(code, state_codes().values()[(x % 50) as usize].as_ref(), "uniform: x mod len");
            assert_eq!(pick(&COUNTRY_CODES, x).len(), 2);
        }
        let mut mary = 0;
        for i in 0..10_000u64 {
            mary += u64::from(pick(&FIRST_NAMES_NODE, xxh3_u64(i)) == "Mary");
        }
        assert!(mary > 50, "Mary is the most frequent female name: {mary}");
        let full = pick(&FULL_NAMES, 42);
        let h2 = xxh3_u64(42);
        let first = if h2 & 1 == 0 { female_first_names().pick(h2) } else { male_first_names().pick(h2) };
        assert_eq!(full, format!("{first} {}", last_names().pick(xxh3_u64(h2))));
    }

    #[test]
    fn first_names_follow_the_census_frequencies() {
        let data = all_first_names();
        let n = 200_000u64;
        let mut counts: HashMap<&str, u64> = HashMap::new();
        for i in 0..n {
            *counts.entry(data.pick(splitmix64(i)).as_ref()).or_default() += 1;
        }
        let total: f64 = rows(FIRST_NAMES).filter_map(|r| r[2].parse::<f64>().ok()).sum();
        for (name, freq) in [("Mary", 2.629), ("James", 3.318), ("John", 3.271), ("Patricia", 1.073)] {
            let want = freq / total;
            let got = counts.get(name).copied().unwrap_or(0) as f64 / n as f64;
            assert!((got - want).abs() < want * 0.05, "{name}: {got} vs {want}");
        }
    }

    #[test]
    fn lorem_text() {
        let s = eval1(&LOREM_SENTENCE, &[Value::U64(3), Value::U64(3)], &[Value::U64(7)]);
        let s = s.as_str().unwrap();
        assert_eq!(s.split(' ').count(), 3);
        assert!(s.ends_with('.') && s.chars().next().unwrap().is_uppercase());
        let p = pick(&LOREM_PARAGRAPH, 9);
        let sentences = p.matches('.').count();
        assert!((3..=6).contains(&sentences), "{p}");
        assert_eq!(eval1(&LOREM_SENTENCE, &[Value::U64(0), Value::U64(0)], &[Value::U64(1)]).as_str(), Some(""));
        assert_eq!(
            build_err(&LOREM_SENTENCE, &[Value::U64(5), Value::U64(2)], &[U64]),
            "min_words (5) must be <= max_words (2)"
        );
    }
}
