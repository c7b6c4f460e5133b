//! Real-data family: names, places, companies, jobs and words from the
//! word lists compiled into the core, each parsed once on first use.
//! Weighted lists pick through an alias table over the input bits and
//! uniform ones by `input mod len`, as upstream's: hash the input first (the
//! field modules of the standard library do).
//!
//! The lists are the CSV files of `python/polydat/data/` (the one copy in
//! the repository: the Python package ships them, with their `README.md`,
//! as package data), embedded here with `include_str!` so the core needs no
//! file at run time. Each file starts with `# about:`, `# source:` and
//! `# licence:` lines, then a header row; [`DATA_FILES`] lists them and
//! [`data_files_json`] describes them (what `polydat data` prints).

use crate::node::by_bytes::{pick, to_text, StrPick, StrTable};
use crate::node::{konst, konst_or, wire, Lit, NodeDef, NodeEval, Outputs, Samples, Testing};
use crate::nodes::hash::xxh3_u64;
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

    /// The list with every value mapped by `f`, picked the same way: its
    /// pick for `x` is `f` of this list's pick for `x` (a text map applied
    /// to the list once, not to each picked word).
    pub fn mapped(&self, f: impl Fn(&str) -> String) -> Dataset {
        let values = StrTable::new(self.values().iter().map(|v| Arc::from(f(v))).collect());
        let table = self.table.as_ref().map(|t| t.over(&values));
        Dataset { values, table, len: self.len }
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

/// The data rows of a bundled CSV: its `#` comments and header skipped.
pub fn rows(csv: &'static str) -> impl Iterator<Item = Vec<String>> {
    csv.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()).skip(1).map(csv_fields)
}

/// A bundled data file: its name in `python/polydat/data/` and its text.
#[derive(Clone, Copy)]
pub struct DataFile {
    /// The file name (`first_names.csv`).
    pub name: &'static str,
    /// The file's text, embedded at build.
    pub text: &'static str,
}

impl DataFile {
    /// The value of the file's `# key: value` comment line (`about`, `source`, `licence`).
    pub fn field(&self, key: &str) -> Option<&'static str> {
        self.text.lines().take_while(|l| l.starts_with('#')).find_map(|l| {
            let rest = l.strip_prefix('#')?.trim_start();
            rest.strip_prefix(key)?.strip_prefix(':').map(str::trim)
        })
    }

    /// The column names (the header row).
    pub fn columns(&self) -> Vec<String> {
        self.text.lines().find(|l| !l.starts_with('#') && !l.trim().is_empty()).map(csv_fields).unwrap_or_default()
    }

    /// The number of data rows.
    pub fn entries(&self) -> usize {
        rows(self.text).count()
    }
}

macro_rules! data_files {
    ($(($id:ident, $file:literal)),* $(,)?) => {
        $(pub(crate) const $id: DataFile = DataFile { name: $file, text: include_str!(concat!("../../../../python/polydat/data/", $file)) };)*
        /// Every bundled data file, in name order.
        pub const DATA_FILES: &[DataFile] = &[$($id),*];
    };
}

data_files!(
    (CITIES, "cities.csv"),
    (COMPANY_SUFFIXES, "company_suffixes.csv"),
    (COMPANY_WORDS, "company_words.csv"),
    (COUNTRIES, "countries.csv"),
    (FIRST_NAMES, "first_names.csv"),
    (JOB_TITLES, "job_titles.csv"),
    (LAST_NAMES, "last_names.csv"),
    (LOCALE_DE_DE, "locale_de_DE.csv"),
    (LOCALE_EN_GB, "locale_en_GB.csv"),
    (LOCALE_EN_IN, "locale_en_IN.csv"),
    (LOCALE_ES_ES, "locale_es_ES.csv"),
    (LOCALE_FR_FR, "locale_fr_FR.csv"),
    (LOCALE_IT_IT, "locale_it_IT.csv"),
    (LOCALE_JA_JP, "locale_ja_JP.csv"),
    (LOCALE_PT_BR, "locale_pt_BR.csv"),
    (LOCALE_ZH_CN, "locale_zh_CN.csv"),
    (LOREM_WORDS, "lorem_words.csv"),
    (NATIONALITIES, "nationalities.csv"),
    (PLACES_DE_DE, "places_de_DE.csv"),
    (PLACES_EN_GB, "places_en_GB.csv"),
    (PLACES_EN_IN, "places_en_IN.csv"),
    (PLACES_EN_US, "places_en_US.csv"),
    (PLACES_ES_ES, "places_es_ES.csv"),
    (PLACES_FR_FR, "places_fr_FR.csv"),
    (PLACES_IT_IT, "places_it_IT.csv"),
    (PLACES_JA_JP, "places_ja_JP.csv"),
    (PLACES_PT_BR, "places_pt_BR.csv"),
    (PLACES_ZH_CN, "places_zh_CN.csv"),
    (STREET_NAMES, "street_names.csv"),
    (STREET_SUFFIXES, "street_suffixes.csv"),
    (TPCH_GRAMMAR, "tpch_grammar.csv"),
    (US_STATES, "us_states.csv"),
    (USER_AGENTS, "user_agents.csv"),
);

/// A uniform list from column `col`.
fn uniform(file: DataFile, col: usize) -> Dataset {
    let values: Vec<Arc<str>> = rows(file.text).filter_map(|r| r.get(col).map(|v| Arc::from(v.trim()))).collect();
    assert!(!values.is_empty(), "a bundled list is empty");
    let len = StrengthReducedU64::new(values.len() as u64);
    Dataset { values: StrTable::new(values), table: None, len }
}

/// A weighted list: values from column `col`, weights from column `w`, rows
/// kept when `keep` holds (and the weight parses and is positive).
pub(crate) fn weighted(file: DataFile, col: usize, w: usize, keep: impl Fn(&[String]) -> bool) -> Dataset {
    let mut values = Vec::new();
    let mut weights = Vec::new();
    for r in rows(file.text).filter(|r| keep(r)) {
        if let Some(weight) = r.get(w).and_then(|x| x.trim().parse::<f64>().ok()).filter(|&x| x > 0.0) {
            values.push(Arc::from(r[col].trim()));
            weights.push(weight);
        }
    }
    let table = AliasTable::from_weights(&weights).expect("a bundled weighted list has positive weights");
    let len = StrengthReducedU64::new(values.len() as u64);
    let values = StrTable::new(values);
    Dataset { table: Some(AliasPicks::new(table, &values)), values, len }
}

macro_rules! dataset {
    ($fn:ident, $init:expr) => {
        /// The bundled list, parsed on first use.
        pub fn $fn() -> &'static Dataset {
            static CELL: OnceLock<Dataset> = OnceLock::new();
            CELL.get_or_init(|| $init)
        }
    };
}

dataset!(female_first_names, weighted(FIRST_NAMES, 0, 2, |r| r.get(1).is_some_and(|s| s == "F")));
dataset!(male_first_names, weighted(FIRST_NAMES, 0, 2, |r| r.get(1).is_some_and(|s| s == "M")));
dataset!(all_first_names, weighted(FIRST_NAMES, 0, 2, |_| true));
dataset!(last_names, weighted(LAST_NAMES, 0, 1, |_| true));
dataset!(state_codes, uniform(US_STATES, 0));
dataset!(state_names, uniform(US_STATES, 1));
dataset!(country_codes, uniform(COUNTRIES, 0));
dataset!(country_names, uniform(COUNTRIES, 1));
dataset!(country_codes_by_population, weighted(COUNTRIES, 0, 2, |_| true));
dataset!(country_names_by_population, weighted(COUNTRIES, 1, 2, |_| true));
dataset!(nationalities, uniform(NATIONALITIES, 0));
dataset!(cities, uniform(CITIES, 0));
dataset!(street_names, uniform(STREET_NAMES, 0));
dataset!(street_suffixes, uniform(STREET_SUFFIXES, 0));
dataset!(company_suffixes, uniform(COMPANY_SUFFIXES, 0));
dataset!(company_words, uniform(COMPANY_WORDS, 0));
dataset!(job_titles, uniform(JOB_TITLES, 0));
dataset!(lorem_words, uniform(LOREM_WORDS, 0));
dataset!(user_agents, weighted(USER_AGENTS, 0, 1, |_| true));

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

/// Defines one node per word list, `(const, name, doc, list, data file)`,
/// and [`WORD_LISTS`], the same lists by node name.
macro_rules! word_lists {
    ($(($id:ident, $name:literal, $doc:literal, $data:ident, $file:ident)),* $(,)?) => {
        $(
            /// A real-data node (see its `name` and `doc` fields).
            pub const $id: NodeDef = NodeDef {
                name: $name,
                category: "real_data",
                doc: $doc,
                params: &[wire("input", U64)],
                outputs: Outputs::One(Str),
                build: |_| Ok(picker($data)),
                ..NodeDef::BASE
            };
        )*
        /// Every word-list node's name, its list and the file of the list.
        const WORD_LISTS: &[(&str, fn() -> &'static Dataset, &str)] = &[$(($name, $data, $file.name)),*];
    };
}

word_lists!(
    (
        FIRST_NAMES_NODE,
        "first_names",
        "A 1990 US Census female first name, by frequency (alias table over the input bits: hash first).",
        female_first_names, FIRST_NAMES
    ),
    (
        FIRST_NAMES_MALE,
        "first_names_male",
        "A 1990 US Census male first name, by frequency (alias table over the input bits).",
        male_first_names, FIRST_NAMES
    ),
    (
        FIRST_NAMES_ALL,
        "first_names_all",
        "A 1990 US Census first name of either sex, by frequency (alias table over the input bits).",
        all_first_names, FIRST_NAMES
    ),
    (
        LAST_NAMES_NODE,
        "last_names",
        "A 1990 US Census surname, by frequency (alias table over the input bits).",
        last_names, LAST_NAMES
    ),
    (STATE_CODES, "state_codes", "A US state's two-letter code, uniformly (input mod 50).", state_codes, US_STATES),
    (
        STATE_NAMES,
        "state_names",
        "A US state's name, uniformly (input mod 50; the same state as state_codes).",
        state_names, US_STATES
    ),
    (
        COUNTRY_CODES,
        "country_codes",
        "An ISO 3166-1 alpha-2 country code, uniformly (input mod the list).",
        country_codes, COUNTRIES
    ),
    (
        COUNTRY_NAMES,
        "country_names",
        "A country's English name, uniformly (input mod the list; the same country as country_codes).",
        country_names, COUNTRIES
    ),
    (
        COUNTRY_CODES_BY_POPULATION,
        "country_codes_by_population",
        "An ISO 3166-1 alpha-2 country code, by population (alias table over the input bits; uninhabited territories never).",
        country_codes_by_population,
        COUNTRIES
    ),
    (
        COUNTRY_NAMES_BY_POPULATION,
        "country_names_by_population",
        "A country's English name, by population (the same country as country_codes_by_population).",
        country_names_by_population,
        COUNTRIES
    ),
    (NATIONALITIES_NODE, "nationalities", "A nationality, uniformly (input mod the list).", nationalities, NATIONALITIES),
    (CITY_NAMES, "city_names", "A US city name, uniformly (input mod the list).", cities, CITIES),
    (STREET_NAMES_NODE, "street_names", "A street name, uniformly (input mod the list).", street_names, STREET_NAMES),
    (
        STREET_SUFFIXES_NODE,
        "street_suffixes",
        "A street suffix (Avenue, Court, ...), uniformly (input mod the list).",
        street_suffixes, STREET_SUFFIXES
    ),
    (
        COMPANY_SUFFIXES_NODE,
        "company_suffixes",
        "A company suffix (Inc, LLC, ...), uniformly (input mod the list).",
        company_suffixes, COMPANY_SUFFIXES
    ),
    (
        COMPANY_WORDS_NODE,
        "company_words",
        "A word for company names (Adaptive, Advanced, ...), uniformly (input mod the list).",
        company_words, COMPANY_WORDS
    ),
    (JOB_TITLES_NODE, "job_titles", "A job title, uniformly (input mod the list).", job_titles, JOB_TITLES),
    (LOREM_WORDS_NODE, "lorem_words", "A lorem ipsum word, uniformly (input mod the list).", lorem_words, LOREM_WORDS),
    (
        USER_AGENTS_NODE,
        "user_agents",
        "A browser user-agent string, by its share of observed traffic (alias table over the input bits: hash first).",
        user_agents, USER_AGENTS
    ),
);

/// The list the word-list node `name` picks from (`None`: `name` is no
/// such node). Two nodes with one name pick the same way, so a pick may be
/// made wherever its text is wanted (fusion does, see
/// [`crate::nodes::entries::PRINTF_WORDS`]).
pub fn word_list(name: &str) -> Option<&'static Dataset> {
    WORD_LISTS.iter().find(|(n, _, _)| *n == name).map(|(_, list, _)| list())
}

/// The nodes that pick from a data file besides its word-list nodes.
const ALSO_READ_BY: &[(&str, &[&str])] = &[
    ("full_names", &["first_names.csv", "last_names.csv"]),
    ("lorem_sentence", &["lorem_words.csv"]),
    ("lorem_paragraph", &["lorem_words.csv"]),
    ("tpch_sentence", &["tpch_grammar.csv"]),
    ("tpch_text_pool", &["tpch_grammar.csv"]),
];

/// The bundled data files as JSON, for `polydat data`: per file its
/// `name`, `about`, `source`, `licence`, `columns`, `entries` (data rows)
/// and `nodes` (the nodes that pick from it).
pub fn data_files_json() -> String {
    use serde_json::json;
    let files: Vec<serde_json::Value> = DATA_FILES
        .iter()
        .map(|f| {
            let mut nodes: Vec<&str> =
                WORD_LISTS.iter().filter(|(_, _, file)| *file == f.name).map(|(n, _, _)| *n).collect();
            nodes.extend(ALSO_READ_BY.iter().filter(|(_, files)| files.contains(&f.name)).map(|(n, _)| *n));
            nodes.extend(crate::nodes::locale::reader_of(f.name));
            json!({
                "name": f.name,
                "about": f.field("about"),
                "source": f.field("source"),
                "licence": f.field("licence"),
                "columns": f.columns(),
                "entries": f.entries(),
                "nodes": nodes,
            })
        })
        .collect();
    serde_json::Value::Array(files).to_string()
}

/// `full_names`: "First Last": the sex by bit 0 of xxh3(x), the first name by frequency from that hash, the surname from its xxh3.
pub const FULL_NAMES: NodeDef = NodeDef {
    name: "full_names",
    category: "real_data",
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

/// The lorem words as blocks of [`BLOCK`] bytes, so a sentence is written
/// with one fixed-size copy a word (no length-dependent copy, no check
/// per word) into a buffer, and handed to the text a buffer at a time.
struct LoremBlocks {
    /// Per word: a space and the word, padded with spaces.
    spaced: Box<[[u8; BLOCK]]>,
    /// Per word: the word with its first letter in upper case, padded.
    capital: Box<[[u8; BLOCK]]>,
    /// Per word: its length in bytes (the space not counted).
    lens: Box<[u8]>,
    /// The number of words, for `x mod len` without a division instruction.
    count: StrengthReducedU64,
}

/// Bytes of a word's block: the longest word (14 bytes) and its space fit.
const BLOCK: usize = 16;

/// The bundled lorem words as blocks, made on first use. Each is ASCII and
/// shorter than [`BLOCK`] (a test holds the list to that).
fn lorem_blocks() -> &'static LoremBlocks {
    static BLOCKS: OnceLock<LoremBlocks> = OnceLock::new();
    BLOCKS.get_or_init(|| {
        let words = lorem_words().values();
        // Padded with spaces; a word past its room is cut (the test of the
        // list keeps every word within it).
        let block = |text: &[u8]| {
            let mut b = [b' '; BLOCK];
            let len = text.len().min(BLOCK);
            b[..len].copy_from_slice(&text[..len]);
            b
        };
        let capital = |w: &str| {
            let mut b = block(w.as_bytes());
            b[0] = b[0].to_ascii_uppercase();
            b
        };
        LoremBlocks {
            spaced: words.iter().map(|w| block(format!(" {w}").as_bytes())).collect(),
            capital: words.iter().map(|w| capital(w)).collect(),
            lens: words.iter().map(|w| w.len().min(BLOCK - 1) as u8).collect(),
            count: StrengthReducedU64::new(words.len() as u64),
        }
    })
}

/// Bytes of the buffer a sentence is written through: a flush leaves room
/// for one more block and the period.
const SENTENCE_BUFFER: usize = 256;

/// Appends words of lorem text from `x` to `s`: count in [min, min + span)
/// by x, word i from xxh3 chained from x; the first capitalized, the
/// sentence ended by a period.
fn lorem(s: &mut String, x: u64, min: u64, span: StrengthReducedU64) {
    let words = lorem_blocks();
    let n = min + x % span;
    let mut h = x;
    let mut buf = [0u8; SENTENCE_BUFFER];
    let mut at = 0;
    for i in 0..n {
        h = xxh3_u64(h);
        let w = (h % words.count) as usize;
        if at > SENTENCE_BUFFER - BLOCK - 1 {
            push_ascii(s, &buf[..at]);
            at = 0;
        }
        let len = usize::from(words.lens[w]);
        if i == 0 {
            buf[at..at + BLOCK].copy_from_slice(&words.capital[w]);
            at += len;
        } else {
            buf[at..at + BLOCK].copy_from_slice(&words.spaced[w]);
            at += len + 1;
        }
    }
    if n > 0 {
        buf[at] = b'.';
        at += 1;
    }
    push_ascii(s, &buf[..at]);
}

/// Appends `bytes`, ASCII text (blocks of the word list), to `s`.
#[inline]
fn push_ascii(s: &mut String, bytes: &[u8]) {
    s.push_str(std::str::from_utf8(bytes).unwrap_or_default());
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
            lorem(&mut text, i, 4, StrengthReducedU64::new(9));
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
    category: "real_data",
    doc: "A lorem ipsum sentence of min_words..=max_words words (count by x mod the span, words by an xxh3 chain from x), capitalized and ended by a period.",
    params: &[wire("input", U64), konst_or("min_words", U64, Lit::U64(4)), konst_or("max_words", U64, Lit::U64(12))],
    outputs: Outputs::One(Str),
    build: |c| {
        let (min, max) = word_bounds(c, "words")?;
        let span = StrengthReducedU64::new(max - min + 1);
        Ok(to_text(move |x: u64, out: &mut String| lorem(out, x, min, span)))
    },
    testing: Testing {
        samples: &[("min_words", Samples::U64(&[4, 0, 1])), ("max_words", Samples::U64(&[12, 20]))],
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `lorem_paragraph`: min_sentences..=max_sentences lorem sentences of 4 to 12 words, joined by spaces.
pub const LOREM_PARAGRAPH: NodeDef = NodeDef {
    name: "lorem_paragraph",
    category: "real_data",
    doc: "min_sentences..=max_sentences lorem sentences (4 to 12 words each) joined by spaces; sentence i drawn from xxh3(xxh3(x ^ k) + i), independent of the others.",
    params: &[wire("input", U64), konst_or("min_sentences", U64, Lit::U64(3)), konst_or("max_sentences", U64, Lit::U64(6))],
    outputs: Outputs::One(Str),
    build: |c| {
        let (min, max) = word_bounds(c, "sentences")?;
        let (span, words) = (StrengthReducedU64::new(max - min + 1), StrengthReducedU64::new(9));
        Ok(to_text(move |x: u64, out: &mut String| {
            let n = min + x % span;
            let base = xxh3_u64(x ^ 0x5851_f42d_4c95_7f2d);
            for i in 0..n {
                if i > 0 {
                    out.push(' ');
                }
                // Each sentence from its own hash (a chain would make the
                // next sentence this one shifted by a word).
                lorem(out, xxh3_u64(base.wrapping_add(i)), 4, words);
            }
        }))
    },
    testing: Testing {
        samples: &[("min_sentences", Samples::U64(&[3, 0, 1])), ("max_sentences", Samples::U64(&[6, 8]))],
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `hashed_lorem_extract`: a stretch of the bundled lorem ipsum text.
pub const HASHED_LOREM_EXTRACT: NodeDef = NodeDef {
    name: "hashed_lorem_extract",
    category: "string",
    doc: "min_len + input % (max_len - min_len + 1) bytes of the bundled lorem ipsum text, from an offset chosen by xxh3(input) (widened to whole characters).",
    params: &[wire("input", U64), konst("min_len", U64), konst("max_len", U64)],
    outputs: Outputs::One(Str),
    build: |c| {
        let (min_len, max_len) = (c.u64(0), c.u64(1));
        let text = lorem_text();
        Ok(to_text(move |x: u64, out: &mut String| {
            let span = max_len.saturating_sub(min_len).saturating_add(1);
            let len = usize::try_from(min_len.saturating_add(x % span.max(1))).unwrap_or(usize::MAX);
            let max_offset = text.len().saturating_sub(len);
            let offset = match max_offset {
                0 => 0,
                m => (xxh3_u64(x) % (m as u64 + 1)) as usize,
            };
            let end = offset.saturating_add(len).min(text.len());
            let start = (0..=offset).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
            let end = (end..=text.len()).find(|&i| text.is_char_boundary(i)).unwrap_or(text.len());
            out.push_str(&text[start..end]);
        }))
    },
    testing: Testing {
        samples: &[("min_len", Samples::U64(&[10, 0, 50, 1000])), ("max_len", Samples::U64(&[40, 0, 100, 2000]))],
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// The real-data family.
pub const NODES: &[NodeDef] = &[
    HASHED_LOREM_EXTRACT,
    FIRST_NAMES_NODE,
    FIRST_NAMES_MALE,
    FIRST_NAMES_ALL,
    LAST_NAMES_NODE,
    FULL_NAMES,
    STATE_CODES,
    STATE_NAMES,
    COUNTRY_CODES,
    COUNTRY_NAMES,
    COUNTRY_CODES_BY_POPULATION,
    COUNTRY_NAMES_BY_POPULATION,
    NATIONALITIES_NODE,
    CITY_NAMES,
    STREET_NAMES_NODE,
    STREET_SUFFIXES_NODE,
    COMPANY_SUFFIXES_NODE,
    COMPANY_WORDS_NODE,
    JOB_TITLES_NODE,
    LOREM_WORDS_NODE,
    USER_AGENTS_NODE,
    LOREM_SENTENCE,
    LOREM_PARAGRAPH,
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
    fn a_state_code_and_name_are_of_one_state() {
        let pair = |code: &str| {
            let at = state_codes().values().iter().position(|c| c.as_ref() == code).unwrap_or_else(|| panic!("{code}"));
            state_names().values()[at].to_string()
        };
        for (code, name) in
            [("AL", "Alabama"), ("DE", "Delaware"), ("FL", "Florida"), ("TX", "Texas"), ("WY", "Wyoming")]
        {
            assert_eq!(pair(code), name);
        }
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
        let total: f64 = rows(FIRST_NAMES.text).filter_map(|r| r[2].parse::<f64>().ok()).sum();
        for (name, freq) in [("Mary", 2.629), ("James", 3.318), ("John", 3.271), ("Patricia", 1.073)] {
            let want = freq / total;
            let got = counts.get(name).copied().unwrap_or(0) as f64 / n as f64;
            assert!((got - want).abs() < want * 0.05, "{name}: {got} vs {want}");
        }
    }

    #[test]
    fn user_agents_follow_their_traffic_shares() {
        let data = user_agents();
        let n = 100_000u64;
        let top = data.values()[0].clone();
        let hits = (0..n).filter(|&i| data.pick(splitmix64(i)) == top.as_ref()).count() as f64 / n as f64;
        let total: f64 = rows(USER_AGENTS.text).filter_map(|r| r[1].parse::<f64>().ok()).sum();
        let share = rows(USER_AGENTS.text).next().unwrap()[1].parse::<f64>().unwrap() / total;
        assert!((hits - share).abs() < 0.01, "the most common string: {hits} vs {share}");
        assert!(data.values().iter().all(|v| v.starts_with("Mozilla/5.0 (")), "every entry is a browser's string");
    }

    #[test]
    fn every_data_file_says_what_it_is_where_it_comes_from_and_its_licence() {
        let readme = include_str!("../../../../python/polydat/data/README.md");
        for file in DATA_FILES {
            for key in ["about", "source", "licence"] {
                assert!(file.field(key).is_some_and(|v| !v.is_empty()), "{}: no `# {key}:` line", file.name);
            }
            assert!(file.entries() > 0 && !file.columns().is_empty(), "{}", file.name);
            assert!(readme.contains(&format!("`{}`", file.name)), "{} is not in the data README", file.name);
        }
        let json: serde_json::Value = serde_json::from_str(&data_files_json()).unwrap();
        let countries = json.as_array().unwrap().iter().find(|f| f["name"] == "countries.csv").unwrap();
        assert_eq!(countries["entries"], 249);
        assert_eq!(countries["columns"], serde_json::json!(["code", "name", "population"]));
        let nodes = countries["nodes"].as_array().unwrap();
        assert!(nodes.contains(&"country_names_by_population".into()) && nodes.contains(&"country_codes".into()));
    }

    #[test]
    fn countries_are_iso_3166_1_and_may_be_picked_by_population() {
        // The 249 officially assigned codes: no exceptional reservations (AC, TA, EA, ...).
        let codes = country_codes().values();
        assert_eq!(codes.len(), 249);
        let unique: std::collections::HashSet<_> = codes.iter().collect();
        assert_eq!(unique.len(), 249);
        for reserved in ["AC", "CP", "DG", "EA", "IC", "TA"] {
            assert!(!codes.iter().any(|c| c.as_ref() == reserved), "{reserved}");
        }
        assert!(!country_names().values().iter().any(|n| n.as_ref() == "Ascension Island"));
        // By population: India and China together about a third of the picks, Bouvet Island never.
        let n = 200_000u64;
        let mut counts: HashMap<&str, u64> = HashMap::new();
        for i in 0..n {
            let x = splitmix64(i);
            let code = country_codes_by_population().pick(x);
            *counts.entry(code).or_default() += 1;
            let name = country_names_by_population().pick(x);
            let at = country_codes().values().iter().position(|c| c.as_ref() == code).unwrap();
            assert_eq!(name, country_names().values()[at].as_ref(), "the same country");
        }
        let share = |c: &str| counts.get(c).copied().unwrap_or(0) as f64 / n as f64;
        assert!((share("IN") + share("CN") - 0.36).abs() < 0.03, "{} {}", share("IN"), share("CN"));
        assert!(share("US") > 0.035 && share("US") < 0.05, "{}", share("US"));
        assert_eq!((share("BV"), share("AQ"), share("HM")), (0.0, 0.0, 0.0));
    }

    /// Lorem text as the words' own strings give it: word by word, the
    /// first capitalized, a period at the end (what the blocks must write).
    fn lorem_by_words(x: u64, min: u64, max: u64) -> String {
        let (words, mut s) = (lorem_words(), String::new());
        let n = min + x % (max - min + 1);
        let mut h = x;
        for i in 0..n {
            h = xxh3_u64(h);
            let w = words.pick(h);
            match i {
                0 => s.extend(w.chars().next().map(|c| c.to_ascii_uppercase()).into_iter().chain(w.chars().skip(1))),
                _ => s.extend([" ", w]),
            }
        }
        if n > 0 {
            s.push('.');
        }
        s
    }

    #[test]
    fn lorem_words_fit_their_blocks() {
        let words = lorem_words().values();
        assert!(words.iter().all(|w| w.is_ascii() && w.len() < BLOCK && !w.is_empty()));
    }

    #[test]
    fn lorem_blocks_write_the_words_text() {
        // Sentence lengths around the buffer's flush, and past it many times.
        for (min, max) in [(4, 12), (0, 3), (1, 1), (30, 40), (200, 260)] {
            let span = StrengthReducedU64::new(max - min + 1);
            for x in 0..300u64 {
                let x = splitmix64(x);
                let mut s = String::from("kept ");
                lorem(&mut s, x, min, span);
                assert_eq!(s, format!("kept {}", lorem_by_words(x, min, max)), "x={x} min={min} max={max}");
            }
        }
    }

    #[test]
    fn paragraphs_are_their_sentences() {
        // Sentence i of a paragraph is lorem(xxh3(base + i), 4, 12), one
        // space between sentences: counts below, at and past the default.
        for (min, max) in [(3, 6), (0, 2), (4, 4), (5, 13)] {
            for x in 0..200u64 {
                let x = splitmix64(x);
                let got = eval1(&LOREM_PARAGRAPH, &[Value::U64(min), Value::U64(max)], &[Value::U64(x)]);
                let base = xxh3_u64(x ^ 0x5851_f42d_4c95_7f2d);
                let sentences: Vec<String> = (0..min + x % (max - min + 1))
                    .map(|i| lorem_by_words(xxh3_u64(base.wrapping_add(i)), 4, 12))
                    .collect();
                assert_eq!(got.as_str(), Some(sentences.join(" ").as_str()), "x={x} min={min} max={max}");
            }
        }
    }

    #[test]
    fn paragraph_sentences_are_independent() {
        // Each sentence is drawn from its own hash: the next one is not
        // this one shifted by a word (its first words this one's second and third).
        let (mut pairs, mut shifted) = (0, 0);
        for x in 0..500u64 {
            let p = pick(&LOREM_PARAGRAPH, xxh3_u64(x)).to_lowercase();
            let sentences: Vec<Vec<&str>> =
                p.split(". ").map(|s| s.trim_end_matches('.').split(' ').collect()).collect();
            for pair in sentences.windows(2) {
                pairs += 1;
                shifted += usize::from(pair[0].get(1..3) == pair[1].get(..2));
            }
        }
        assert!(
            pairs > 1000 && shifted * 100 < pairs,
            "{shifted} of {pairs} sentences repeat the previous one shifted"
        );
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
