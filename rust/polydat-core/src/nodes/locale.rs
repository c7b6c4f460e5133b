//! Locale family: the word lists and places of each bundled locale, picked
//! by two nodes whose constants name the locale and the list.
//!
//! A locale has a words file (`locale_<locale>.csv`: `list,entry,weight`,
//! one row per entry of one of its lists: `first_female`, `last`, `phone`,
//! ...) and a places file (`places_<locale>.csv`: `city,region,postcode,weight`,
//! one row per city). `en_US` has only its places: its other fields are the
//! census and Faker lists of [`crate::nodes::real_data`]. The files are
//! listed in [`crate::nodes::real_data::DATA_FILES`] with the others, and
//! described in `python/polydat/data/README.md`.
//!
//! Entries and postcodes may hold placeholders ([`fill_placeholders`]): `#`
//! a digit, `%` a digit 1..9, `$` a digit 2..9, `?` a letter A..Z, each
//! drawn from a hash chain of the input, so a phone number or a postcode is
//! a pure function of the input.
//!
//! `locale_places` picks a row by population (an alias table over the input
//! bits) and gives one of its columns: the same input gives the same row
//! for every column, so a city, its region and its postcode agree.

use crate::node::by_bytes::{pick, to_text, StrPick, StrTable};
use crate::node::{konst, wire, NodeDef, Outputs, Samples, Testing};
use crate::nodes::hash::xxh3_u64;
use crate::nodes::real_data::{self as data, weighted, DataFile, Dataset};
use crate::suggest::did_you_mean;
use crate::types::PortType::{Str, U64};
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

/// One bundled locale: its name and its data files.
struct LocaleFiles {
    name: &'static str,
    words: Option<DataFile>,
    places: DataFile,
}

/// Every bundled locale, in name order.
const LOCALES: &[LocaleFiles] = &[
    LocaleFiles { name: "de_DE", words: Some(data::LOCALE_DE_DE), places: data::PLACES_DE_DE },
    LocaleFiles { name: "en_GB", words: Some(data::LOCALE_EN_GB), places: data::PLACES_EN_GB },
    LocaleFiles { name: "en_IN", words: Some(data::LOCALE_EN_IN), places: data::PLACES_EN_IN },
    LocaleFiles { name: "en_US", words: None, places: data::PLACES_EN_US },
    LocaleFiles { name: "es_ES", words: Some(data::LOCALE_ES_ES), places: data::PLACES_ES_ES },
    LocaleFiles { name: "fr_FR", words: Some(data::LOCALE_FR_FR), places: data::PLACES_FR_FR },
    LocaleFiles { name: "it_IT", words: Some(data::LOCALE_IT_IT), places: data::PLACES_IT_IT },
    LocaleFiles { name: "ja_JP", words: Some(data::LOCALE_JA_JP), places: data::PLACES_JA_JP },
    LocaleFiles { name: "pt_BR", words: Some(data::LOCALE_PT_BR), places: data::PLACES_PT_BR },
    LocaleFiles { name: "zh_CN", words: Some(data::LOCALE_ZH_CN), places: data::PLACES_ZH_CN },
];

/// The names of the bundled locales, in name order.
pub fn locale_names() -> impl Iterator<Item = &'static str> {
    LOCALES.iter().map(|l| l.name)
}

/// The place columns `locale_places` gives.
pub const PLACE_COLUMNS: &[&str] = &["city", "region", "postcode"];

/// A locale's places: a weighted pick of rows and the row's columns.
struct Places {
    /// The cities, picked by population; a pick's index is its row.
    cities: Dataset,
    /// Each row's region, in row order.
    regions: StrTable,
    postcodes: Vec<Arc<str>>,
}

/// The region of the row a locale's city pick chooses for an input (the
/// `region` column of `locale_places`): the same row as the city's.
struct RegionPick(&'static Places);

impl StrPick for RegionPick {
    #[inline]
    fn value(&self, x: u64) -> &Arc<str> {
        self.0.regions.get(self.0.cities.index(x))
    }
    #[inline]
    fn text(&self, x: u64) -> &str {
        self.0.regions.text(self.0.cities.index(x))
    }
}

/// A locale's data, parsed on first use.
struct LocaleData {
    lists: BTreeMap<String, Dataset>,
    places: Places,
}

fn parse(files: &LocaleFiles) -> LocaleData {
    let mut lists = BTreeMap::new();
    if let Some(words) = files.words {
        let mut names: Vec<String> = data::rows(words.text).filter_map(|r| r.first().cloned()).collect();
        names.dedup();
        for name in names {
            let list = weighted(words, 1, 2, |r| r.first() == Some(&name));
            lists.insert(name, list);
        }
    }
    let rows: Vec<Vec<String>> = data::rows(files.places.text)
        .filter(|r| r.len() == 4 && r[3].trim().parse::<f64>().is_ok_and(|w| w > 0.0))
        .collect();
    let places = Places {
        cities: weighted(files.places, 0, 3, |_| true),
        regions: StrTable::new(rows.iter().map(|r| Arc::from(r[1].as_str())).collect()),
        postcodes: rows.iter().map(|r| Arc::from(r[2].as_str())).collect(),
    };
    assert_eq!(places.cities.values().len(), places.regions.len(), "{}: one city per row", files.name);
    assert_eq!(places.cities.values().len(), places.postcodes.len(), "{}: one postcode per row", files.name);
    LocaleData { lists, places }
}

/// The data of locale `name`, or an error naming the bundled locales.
fn locale(name: &str) -> Result<&'static LocaleData, String> {
    static PARSED: OnceLock<Vec<OnceLock<LocaleData>>> = OnceLock::new();
    let parsed = PARSED.get_or_init(|| LOCALES.iter().map(|_| OnceLock::new()).collect());
    match LOCALES.iter().position(|l| l.name == name) {
        Some(at) => Ok(parsed[at].get_or_init(|| parse(&LOCALES[at]))),
        None => {
            let hint = did_you_mean(name, locale_names()).map(|h| h + " ").unwrap_or_default();
            Err(format!(
                "no locale '{name}': {hint}the bundled locales are {}",
                locale_names().collect::<Vec<_>>().join(", ")
            ))
        }
    }
}

/// The list names locale `name` has (empty for an unknown locale).
pub fn list_names(name: &str) -> Vec<&'static str> {
    locale(name).map(|l| l.lists.keys().map(String::as_str).collect()).unwrap_or_default()
}

/// Whether `text` holds a placeholder [`fill_placeholders`] replaces.
fn has_placeholder(text: &str) -> bool {
    text.bytes().any(|b| matches!(b, b'#' | b'%' | b'$' | b'?'))
}

/// The word list `list` of locale `name` when its entries hold no
/// placeholder: its value is then the picked entry as it is.
fn plain_list(name: &str, list: &str) -> Option<&'static Dataset> {
    let words = locale(name).ok()?.lists.get(list)?;
    (!words.values().iter().any(|v| has_placeholder(v))).then_some(words)
}

/// The list behind `node(x, name, what)` (`node` being `locale_places` or
/// `locale_words`) when its value is one of the list's strings, picked by
/// the input and printed as it is: a city, or the entry of a list with no
/// placeholder. `None` for anything else (a region, a postcode, a list
/// whose entries are filled in, an unknown locale, list or column).
pub fn printed_list(node: &str, name: &str, what: &str) -> Option<&'static Dataset> {
    match (node, what) {
        (n, _) if n == LOCALE_WORDS.name => plain_list(name, what),
        (n, "city") if n == LOCALE_PLACES.name => Some(&locale(name).ok()?.places.cities),
        _ => None,
    }
}

/// The pick behind `node(x, name, what)` when its value is one string of a
/// table, chosen by the input and printed as it is: a [`printed_list`]'s,
/// or a region (the region of the row the city pick chooses).
pub fn printed_pick(node: &str, name: &str, what: &str) -> Option<Arc<dyn StrPick>> {
    if let Some(list) = printed_list(node, name, what) {
        return Some(Arc::new(list));
    }
    match (node, what) {
        (n, "region") if n == LOCALE_PLACES.name => Some(Arc::new(RegionPick(&locale(name).ok()?.places))),
        _ => None,
    }
}

/// Appends `pattern` to `out` with each placeholder replaced: `#` a digit,
/// `%` a digit 1..9, `$` a digit 2..9, `?` a letter A..Z. The characters
/// come from a hash chain started at xxh3(`x`), one hash for each run of
/// up to eight placeholders.
pub fn fill_placeholders(pattern: &str, x: u64, out: &mut String) {
    // The placeholders are ASCII, so a byte of one is never inside another
    // character, and an ASCII byte in its place keeps the text UTF-8: the
    // pattern is copied, filled in place and copied out once.
    let mut buf = [0u8; 64];
    let mut long = Vec::new();
    let filled = match buf.get_mut(..pattern.len()) {
        Some(short) => short,
        None => {
            long.extend_from_slice(pattern.as_bytes());
            &mut long[..]
        }
    };
    filled.copy_from_slice(pattern.as_bytes());
    let mut h = x;
    let mut left = 0u32;
    for byte in filled.iter_mut() {
        if !matches!(*byte, b'#' | b'%' | b'$' | b'?') {
            continue;
        }
        if left == 0 {
            h = xxh3_u64(h);
            left = 8;
        }
        // Each placeholder takes one byte of the hash (the small bias of a
        // byte mod 10 or 26 is below what a test of the shapes would see).
        // Each arm divides by a constant: no division instruction.
        let drawn = (h & 0xff) as u8;
        *byte = match *byte {
            b'#' => b'0' + drawn % 10,
            b'%' => b'1' + drawn % 9,
            b'$' => b'2' + drawn % 8,
            _ => b'A' + drawn % 26,
        };
        h >>= 8;
        left -= 1;
    }
    out.push_str(std::str::from_utf8(filled).unwrap_or_default());
}

/// `locale_words`: an entry of one of a locale's word lists, placeholders filled.
pub const LOCALE_WORDS: NodeDef = NodeDef {
    name: "locale_words",
    category: "real_data",
    doc: "An entry of the word list `list` (first_female, first_male, last, phone, company_suffix, job, ...) of the bundled locale `locale` (de_DE, ja_JP, ...), by the list's weights (alias table over the input bits: hash first); a `#` in it becomes a digit, `%` a digit 1-9, `$` a digit 2-9, `?` a letter, drawn from xxh3(input).",
    params: &[wire("input", U64), konst("locale", Str), konst("list", Str)],
    outputs: Outputs::One(Str),
    build: |c| {
        let (name, list) = (c.str(0), c.str(1));
        let data = locale(name)?;
        let Some(words) = data.lists.get(list) else {
            let names: Vec<&str> = data.lists.keys().map(String::as_str).collect();
            let hint = did_you_mean(list, names.iter().copied()).map(|h| h + " ").unwrap_or_default();
            return Err(format!("locale {name} has no word list '{list}': {hint}its lists are {}", names.join(", ")));
        };
        if let Some(words) = plain_list(name, list) {
            return Ok(pick(words));
        }
        Ok(to_text(move |x: u64, out: &mut String| fill_placeholders(words.pick(x), x, out)))
    },
    testing: Testing {
        samples: &[
            ("locale", Samples::Str(&["de_DE", "ja_JP", "en_GB", "zh_CN", "pt_BR"])),
            ("list", Samples::Str(&["last", "phone", "first_female", "first_male"])),
        ],
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `locale_places`: one column of a row of a locale's places.
pub const LOCALE_PLACES: NodeDef = NodeDef {
    name: "locale_places",
    category: "real_data",
    doc: "Column `column` (city, region or postcode) of a row of the places of the bundled locale `locale`, the row by population (alias table over the input bits: hash first; one input gives one row for every column, so a city, its region and its postcode agree); the postcode's placeholders (`#` a digit, `?` a letter) drawn from xxh3(input).",
    params: &[wire("input", U64), konst("locale", Str), konst("column", Str)],
    outputs: Outputs::One(Str),
    build: |c| {
        let (name, column) = (c.str(0), c.str(1));
        let places = &locale(name)?.places;
        match column {
            "city" => Ok(pick(&places.cities)),
            "region" => Ok(pick(RegionPick(places))),
            "postcode" => Ok(to_text(move |x: u64, out: &mut String| {
                fill_placeholders(&places.postcodes[places.cities.index(x)], x, out);
            })),
            other => {
                let hint = did_you_mean(other, PLACE_COLUMNS.iter().copied()).map(|h| h + " ").unwrap_or_default();
                Err(format!("no place column '{other}': {hint}the columns are {}", PLACE_COLUMNS.join(", ")))
            }
        }
    },
    testing: Testing {
        samples: &[
            ("locale", Samples::Str(&["en_US", "de_DE", "ja_JP", "it_IT", "en_GB"])),
            ("column", Samples::Str(&["city", "region", "postcode"])),
        ],
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// The node that reads data file `file`, if it is a locale's.
pub fn reader_of(file: &str) -> Option<&'static str> {
    LOCALES.iter().find_map(|l| {
        if l.words.is_some_and(|w| w.name == file) {
            Some(LOCALE_WORDS.name)
        } else if l.places.name == file {
            Some(LOCALE_PLACES.name)
        } else {
            None
        }
    })
}

/// The locale family.
pub const NODES: &[NodeDef] = &[LOCALE_WORDS, LOCALE_PLACES];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::{build_err, eval1};
    use crate::value::Value;

    fn eval(def: &NodeDef, locale: &str, what: &str, x: u64) -> String {
        let consts = [Value::Str(Arc::from(locale)), Value::Str(Arc::from(what))];
        eval1(def, &consts, &[Value::U64(x)]).as_str().unwrap().to_string()
    }

    #[test]
    fn every_locale_parses_with_one_region_and_postcode_per_city() {
        for name in locale_names() {
            let data = locale(name).unwrap();
            assert!(data.places.cities.values().len() > 100, "{name}");
            assert_eq!(data.places.postcodes.len(), data.places.cities.values().len(), "{name}");
            if name != "en_US" {
                for list in ["first_female", "first_male", "last", "phone"] {
                    assert!(data.lists.contains_key(list), "{name} has no {list}");
                }
            }
        }
    }

    #[test]
    fn a_city_its_region_and_postcode_come_from_one_row() {
        for name in locale_names() {
            let places = &locale(name).unwrap().places;
            for x in [0u64, 1, 99, u64::MAX, 0x1234_5678_9abc_def0] {
                let city = eval(&LOCALE_PLACES, name, "city", x);
                let region = eval(&LOCALE_PLACES, name, "region", x);
                let postcode = eval(&LOCALE_PLACES, name, "postcode", x);
                let row = places.cities.index(x);
                assert_eq!((city.as_str(), region.as_str()), (&*places.cities.values()[row], places.regions.text(row)));
                let pattern = &places.postcodes[row];
                assert_eq!(postcode.chars().count(), pattern.chars().count(), "{name}: {postcode} vs {pattern}");
                for (got, want) in postcode.chars().zip(pattern.chars()) {
                    match want {
                        '#' => assert!(got.is_ascii_digit()),
                        '?' => assert!(got.is_ascii_uppercase()),
                        w => assert_eq!(got, w),
                    }
                }
            }
        }
    }

    #[test]
    fn placeholders_are_filled_by_their_kind() {
        let mut out = String::new();
        for x in 0..2000u64 {
            out.clear();
            fill_placeholders("(#%$) ??-#########", x, &mut out);
            let b = out.as_bytes();
            assert!(b[1].is_ascii_digit() && (b'1'..=b'9').contains(&b[2]) && (b'2'..=b'9').contains(&b[3]), "{out}");
            assert!(b[6].is_ascii_uppercase() && b[7].is_ascii_uppercase() && b[9..].iter().all(u8::is_ascii_digit));
        }
    }

    /// Placeholders filled a character at a time, as the text's own
    /// characters give them (what the in-place fill must write).
    fn fill_by_chars(pattern: &str, x: u64) -> String {
        let (mut h, mut left, mut out) = (x, 0u32, String::new());
        for c in pattern.chars() {
            if !matches!(c, '#' | '%' | '$' | '?') {
                out.push(c);
                continue;
            }
            if left == 0 {
                h = xxh3_u64(h);
                left = 8;
            }
            let drawn = (h & 0xff) as u8;
            out.push(char::from(match c {
                '#' => b'0' + drawn % 10,
                '%' => b'1' + drawn % 9,
                '$' => b'2' + drawn % 8,
                _ => b'A' + drawn % 26,
            }));
            h >>= 8;
            left -= 1;
        }
        out
    }

    #[test]
    fn placeholders_fill_in_place_as_character_by_character() {
        let long = "+49 (0#) ####-####, Straße ?? ".repeat(5);
        let patterns = ["", "#", "no placeholder", "Müller-# ü?", "(#%$) ??-#########", "##########", long.as_str()];
        for pattern in patterns {
            for x in 0..300u64 {
                let mut out = String::from("kept ");
                fill_placeholders(pattern, x, &mut out);
                assert_eq!(out, format!("kept {}", fill_by_chars(pattern, x)), "{pattern:?} x={x}");
            }
        }
    }

    #[test]
    fn unknown_locales_lists_and_columns_are_named_with_a_guess() {
        let err = |def: &NodeDef, a: &str, b: &str| {
            build_err(def, &[Value::Str(Arc::from(a)), Value::Str(Arc::from(b))], &[U64])
        };
        let e = err(&LOCALE_WORDS, "de_de", "last");
        assert!(e.contains("no locale 'de_de'") && e.contains("did you mean 'de_DE'?"), "{e}");
        let e = err(&LOCALE_WORDS, "de_DE", "lst");
        assert!(e.contains("no word list 'lst'") && e.contains("'last'"), "{e}");
        let e = err(&LOCALE_PLACES, "fr_FR", "zip");
        assert!(e.contains("no place column 'zip'") && e.contains("city, region, postcode"), "{e}");
    }
}
