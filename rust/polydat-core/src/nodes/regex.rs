//! Regex family: replace, match and extract with a pattern compiled once
//! when the node is built (the `regex` crate's syntax; no look-around).

use crate::node::kit::str_map;
use crate::node::{konst, wire, NodeDef, Outputs, Samples, Testing};
use crate::types::PortType::{Bool, Str};
use regex::Regex;
use regex_syntax::hir::{Class, HirKind};

/// Compiles a node's pattern, failing construction in upstream's words.
fn compile(pattern: &str) -> Result<Regex, String> {
    Regex::new(pattern).map_err(|e| format!("invalid regex: {e}"))
}

/// The characters of a pattern that is one character class (`[ ']`, `\\d`,
/// `[^a-z]`), as `regex`'s own parser reads it: its matches are then single
/// characters, so replacing them is a walk over the input's characters.
struct CharClass {
    /// The class's ASCII members, one bit each.
    ascii: u128,
    /// Its ranges, sorted (what the bits do not answer).
    ranges: Vec<(char, char)>,
}

impl CharClass {
    /// The class `pattern` is, if it is one.
    fn of(pattern: &str) -> Option<CharClass> {
        let hir = regex_syntax::Parser::new().parse(pattern).ok()?;
        let HirKind::Class(Class::Unicode(class)) = hir.kind() else {
            return None;
        };
        let ranges: Vec<(char, char)> = class.ranges().iter().map(|r| (r.start(), r.end())).collect();
        let ascii = (0u8..128)
            .filter(|&b| ranges.iter().any(|&(lo, hi)| (lo..=hi).contains(&char::from(b))))
            .fold(0u128, |bits, b| bits | 1 << b);
        Some(CharClass { ascii, ranges })
    }

    /// Whether `c` is in the class.
    #[inline]
    fn contains(&self, c: char) -> bool {
        match u8::try_from(c) {
            Ok(b) if b < 128 => self.ascii >> b & 1 == 1,
            _ => self
                .ranges
                .binary_search_by(|&(lo, hi)| {
                    if hi < c {
                        std::cmp::Ordering::Less
                    } else if lo > c {
                        std::cmp::Ordering::Greater
                    } else {
                        std::cmp::Ordering::Equal
                    }
                })
                .is_ok(),
        }
    }
}

/// A text map: the text it makes of a text.
pub type Replacer = Box<dyn Fn(&str) -> String + Send + Sync>;

/// `regex_replace`'s rule: the text with every match of `pattern` replaced
/// by `with` (`$1` and `${name}` expand capture groups), or the failure of
/// a pattern that does not compile. The node applies it to each row; a
/// fused pick applies it once to each word of a list.
pub fn replacer(pattern: &str, with: &str) -> Result<Replacer, String> {
    let re = compile(pattern)?;
    let with = with.to_string();
    // A class whose matches are replaced by plain text (no `$` expansion):
    // each member is replaced where it stands, as `replace_all` would, with
    // no search.
    if let Some(class) = CharClass::of(pattern).filter(|_| !with.contains('$')) {
        return Ok(Box::new(move |s: &str| {
            let mut out = String::with_capacity(s.len());
            for ch in s.chars() {
                if class.contains(ch) {
                    out.push_str(&with);
                } else {
                    out.push(ch);
                }
            }
            out
        }));
    }
    Ok(Box::new(move |s: &str| re.replace_all(s, with.as_str()).into_owned()))
}

/// `regex_replace`: every match of the pattern replaced ($1, ${name} expand capture groups).
pub const REGEX_REPLACE: NodeDef = NodeDef {
    name: "regex_replace",
    category: "regex",
    doc: "The input with every match of pattern replaced by replacement ($1 and ${name} expand capture groups).",
    params: &[wire("input", Str), konst("pattern", Str), konst("replacement", Str)],
    outputs: Outputs::One(Str),
    build: |c| {
        let replace = replacer(c.str(0), c.str(1))?;
        Ok(str_map(move |s: &str| {
            let out = replace(s);
            crate::node::limit::check(out.len()).map_err(|e| e.message().to_string())?;
            Ok(out)
        }))
    },
    testing: Testing {
        samples: &[
            ("pattern", Samples::Str(&["[a-z]+", r"(\w+)@", "^", r"\d"])),
            ("replacement", Samples::Str(&["X", "$1", ""])),
        ],
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `regex_match`: true when the pattern matches somewhere in the input.
pub const REGEX_MATCH: NodeDef = NodeDef {
    name: "regex_match",
    category: "regex",
    doc: "True when the pattern matches somewhere in the input (anchor with ^...$ for the whole string).",
    params: &[wire("input", Str), konst("pattern", Str)],
    outputs: Outputs::One(Bool),
    build: |c| {
        let re = compile(c.str(0))?;
        Ok(str_map(move |s: &str| Ok(re.is_match(s))))
    },
    testing: Testing { samples: &[("pattern", Samples::Str(&["[a-z]+", "^$", r"\d", "é"]))], ..Testing::BASE },
    ..NodeDef::BASE
};

/// `regex_extract`: the first capture group of the first match (the whole match without groups; "" without a match).
pub const REGEX_EXTRACT: NodeDef = NodeDef {
    name: "regex_extract",
    category: "regex",
    doc: "Capture group 1 of the first match, or the whole match when the pattern has no group 1 match; \"\" when nothing matches.",
    params: &[wire("input", Str), konst("pattern", Str)],
    outputs: Outputs::One(Str),
    build: |c| {
        let re = compile(c.str(0))?;
        Ok(str_map(move |s: &str| {
            Ok(re
                .captures(s)
                .and_then(|caps| caps.get(1).or_else(|| caps.get(0)).map(|m| m.as_str().to_string()))
                .unwrap_or_default())
        }))
    },
    testing: Testing { samples: &[("pattern", Samples::Str(&["([a-z]+)", r"\d+", "^(.)"]))], ..Testing::BASE },
    ..NodeDef::BASE
};

/// Regex metacharacters that make a pattern a regex (`*` alone makes a glob).
const REGEX_METACHARS: &[char] = &['.', '+', '?', '(', ')', '|', '[', ']', '{', '}', '^', '$', '\\'];

/// A pattern lifted to an anchored regex by its shape, as upstream's
/// `pattern_match` reads it: any regex metacharacter — a regex matched
/// whole (`^(?:src)$`); else a `*` — a glob, each `*` any text; else a
/// literal matched exactly. Gives the regex source and the dialect's name.
pub fn promote_pattern(source: &str) -> (String, &'static str) {
    if source.chars().any(|c| REGEX_METACHARS.contains(&c)) {
        (format!("^(?:{source})$"), "regex")
    } else if source.contains('*') {
        (format!("^{}$", regex::escape(source).replace("\\*", ".*")), "glob")
    } else {
        (format!("^{}$", regex::escape(source)), "literal")
    }
}

/// `pattern_match`: true when the input matches a literal, glob or regex pattern whole.
pub const PATTERN_MATCH: NodeDef = NodeDef {
    name: "pattern_match",
    category: "regex",
    doc: "True when the whole input matches the pattern: a literal (exact), a * glob (* is any text), or, when it has a regex metacharacter, a regex.",
    params: &[wire("input", Str), konst("pattern", Str)],
    outputs: Outputs::One(Bool),
    build: |c| {
        let source = c.str(0);
        let (anchored, dialect) = promote_pattern(source);
        let re = Regex::new(&anchored)
            .map_err(|e| format!("pattern '{source}' did not compile (dialect={dialect}): {e}"))?;
        Ok(str_map(move |s: &str| Ok(re.is_match(s))))
    },
    ..NodeDef::BASE
};

/// The regex family (`matches`, the assertion, is in the assertion family).
pub const NODES: &[NodeDef] = &[REGEX_REPLACE, REGEX_MATCH, REGEX_EXTRACT, PATTERN_MATCH];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::{build_err, eval1};
    use crate::value::Value;

    fn run(def: &NodeDef, consts: &[&str], input: &str) -> Value {
        let consts: Vec<Value> = consts.iter().map(|&c| Value::str(c)).collect();
        eval1(def, &consts, &[Value::str(input)])
    }

    #[test]
    fn a_one_class_pattern_replaces_as_the_regex_does() {
        let inputs = ["d'Artagnan Le Brun", "Ünïcödé 12 ' x\n\ty", "", "ÉéEe 9٣ 🙂", "no match"];
        for pattern in ["[ ']", r"\d", "[^a-z]", ".", "(?i)[é]", r"\s", "[a-c]", r"\p{Greek}", "[🙂٣]"] {
            assert!(CharClass::of(pattern).is_some(), "{pattern} is one class");
            let re = Regex::new(pattern).unwrap();
            for with in ["", "X", "ab"] {
                for input in inputs {
                    let want = re.replace_all(input, with).into_owned();
                    assert_eq!(run(&REGEX_REPLACE, &[pattern, with], input).as_str(), Some(want.as_str()), "{pattern}");
                }
            }
        }
        assert!(CharClass::of("ab").is_none() && CharClass::of("[a]+").is_none() && CharClass::of("(").is_none());
    }

    #[test]
    fn upstreams_examples() {
        assert_eq!(run(&REGEX_REPLACE, &[r"\d+", "NUM"], "abc 123 def 456").as_str(), Some("abc NUM def NUM"));
        assert_eq!(run(&REGEX_REPLACE, &[r"\d+", "NUM"], "no numbers here").as_str(), Some("no numbers here"));
        assert_eq!(run(&REGEX_REPLACE, &[r"(\w+)@(\w+)", "$2 at $1"], "me@host").as_str(), Some("host at me"));
        assert!(run(&REGEX_MATCH, &[r"^\d{3}-\d{4}$"], "123-4567").same(&Value::Bool(true)));
        assert!(run(&REGEX_MATCH, &[r"^\d{3}-\d{4}$"], "hello").same(&Value::Bool(false)));
        assert_eq!(run(&REGEX_EXTRACT, &[r"name=(\w+)"], "name=Alice age=30").as_str(), Some("Alice"));
        assert_eq!(run(&REGEX_EXTRACT, &[r"\d+"], "abc 42 def").as_str(), Some("42"));
        assert_eq!(run(&REGEX_EXTRACT, &[r"\d+"], "no digits").as_str(), Some(""));
        assert!(build_err(&REGEX_MATCH, &[Value::str("(")], &[Str]).starts_with("invalid regex: regex parse error"));
        let pattern = |p: &str, s: &str| run(&PATTERN_MATCH, &[p], s).same(&Value::Bool(true));
        assert!(pattern("schema", "schema") && !pattern("schema", "schema_v2") && !pattern("schema", "pre_schema"));
        assert!(pattern("*m", "100m") && !pattern("*m", "100mi") && pattern("*mi", "100mi"));
        assert!(pattern("(100|200)m", "200m") && !pattern("(100|200)m", "300m"));
        assert!(build_err(&PATTERN_MATCH, &[Value::str("(")], &[Str])
            .starts_with("pattern '(' did not compile (dialect=regex): "));
    }
}
