//! Pseudo-text family: TPC-H's text grammar (clause 4.2.2.10 of the
//! specification) over the weighted word lists of the bundled
//! `tpch_grammar.csv`, a pool of its sentences built once, and stretches of
//! a pool at pseudo-random offsets — the way dbgen makes every comment.
//!
//! A sentence is one of five shapes of noun phrases (`N`), verb phrases
//! (`V`), prepositional phrases (`P`: a preposition, `the`, a noun phrase)
//! and a terminator (`T`, abutting the last word); a noun phrase is one of
//! four shapes of nouns, adjectives and adverbs (`J, J N` puts a comma after
//! the first adjective), a verb phrase one of four of verbs, auxiliaries and
//! adverbs. Every shape and word is drawn by its weight from one stream of
//! pseudo-random words ([`Stream`]), so a sentence is a pure function of
//! the stream's seed.
//!
//! dbgen builds one 300 MB pool and takes each comment at a uniform offset
//! with a uniform length; [`TPCH_TEXT_POOL`] builds such a pool of any size
//! (a compile constant: built once, when the program is compiled, and kept
//! for the next program that asks for the same one), and [`TEXT_EXTRACT`]
//! takes the stretches, from any constant text: the node holds the pool,
//! so no kernel copies it and a row copies its stretch once.

use crate::node::by_bytes::{to_text, StrTable};
use crate::node::kit::value_fn;
use crate::node::{konst, konst_or, limit, wire, Lit, NodeDef, NodeError, Outputs, Samples, Testing};
use crate::nodes::hash::{splitmix64, xxh3_u64};
use crate::nodes::real_data::{rows, TPCH_GRAMMAR};
use crate::nodes::weighted::{AliasPicks, AliasTable};
use crate::types::PortType::{Str, U64};
use crate::value::Value;
use std::sync::{Arc, Mutex, OnceLock};

/// A stream of pseudo-random words: SplitMix64 over a counter from a seed.
struct Stream(u64);

impl Stream {
    /// The next word of the stream.
    #[inline]
    fn next(&mut self) -> u64 {
        let word = splitmix64(self.0);
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        word
    }
}

/// One weighted list of the grammar file: its entries and their picks.
struct Weighted {
    entries: StrTable,
    picks: AliasPicks,
}

impl Weighted {
    /// The entries of list `name` of the grammar file, with their weights.
    fn read(name: &str) -> Weighted {
        let (mut entries, mut weights) = (Vec::new(), Vec::new());
        for row in rows(TPCH_GRAMMAR.text).filter(|r| r.first().is_some_and(|l| l == name)) {
            let weight: f64 = row.get(2).and_then(|w| w.trim().parse().ok()).expect("a grammar entry has a weight");
            entries.push(Arc::from(row[1].trim()));
            weights.push(weight);
        }
        let alias = AliasTable::from_weights(&weights).expect("a bundled grammar list has positive weights");
        let entries = StrTable::new(entries);
        Weighted { picks: AliasPicks::new(alias, &entries), entries }
    }

    /// The entry for stream word `x`, by weight.
    #[inline]
    fn pick(&self, x: u64) -> &str {
        self.picks.text(&self.entries, x)
    }

    /// The index of the entry for stream word `x`, by weight.
    #[inline]
    fn index(&self, x: u64) -> usize {
        self.picks.index(x)
    }
}

/// A part of a phrase shape: which word list, and what follows the word
/// before its space (`,` in `J, J N`).
#[derive(Clone, Copy)]
struct Slot {
    list: WordList,
    after: Option<char>,
}

/// The word lists a phrase shape draws from.
#[derive(Clone, Copy)]
enum WordList {
    Noun,
    Adjective,
    Adverb,
    Verb,
    Auxiliary,
}

/// A part of a sentence shape.
#[derive(Clone, Copy)]
enum Part {
    NounPhrase,
    VerbPhrase,
    Prepositional,
    Terminator,
}

/// The grammar: the sentence, noun-phrase and verb-phrase shapes (parsed
/// from their letters) and the word lists, all weighted.
struct Grammar {
    sentences: Weighted,
    sentence_shapes: Vec<Vec<Part>>,
    noun_phrases: Weighted,
    noun_phrase_shapes: Vec<Vec<Slot>>,
    verb_phrases: Weighted,
    verb_phrase_shapes: Vec<Vec<Slot>>,
    nouns: Weighted,
    verbs: Weighted,
    adjectives: Weighted,
    adverbs: Weighted,
    auxiliaries: Weighted,
    prepositions: Weighted,
    terminators: Weighted,
}

/// The slots of a phrase shape (`J, J N`): one per letter, with the
/// character that follows it, if any.
fn phrase_shape(shape: &str) -> Vec<Slot> {
    shape
        .split(' ')
        .map(|token| {
            let mut chars = token.chars();
            let list = match chars.next() {
                Some('N') => WordList::Noun,
                Some('J') => WordList::Adjective,
                Some('D') => WordList::Adverb,
                Some('V') => WordList::Verb,
                Some('X') => WordList::Auxiliary,
                other => panic!("the bundled grammar has an unknown phrase letter {other:?}"),
            };
            Slot { list, after: chars.next() }
        })
        .collect()
}

/// The parts of a sentence shape (`N V P T`).
fn sentence_shape(shape: &str) -> Vec<Part> {
    shape
        .split(' ')
        .map(|token| match token {
            "N" => Part::NounPhrase,
            "V" => Part::VerbPhrase,
            "P" => Part::Prepositional,
            "T" => Part::Terminator,
            other => panic!("the bundled grammar has an unknown sentence part {other:?}"),
        })
        .collect()
}

/// The bundled grammar, parsed on first use.
fn grammar() -> &'static Grammar {
    static GRAMMAR: OnceLock<Grammar> = OnceLock::new();
    GRAMMAR.get_or_init(|| {
        let (sentences, noun_phrases, verb_phrases) =
            (Weighted::read("grammar"), Weighted::read("np"), Weighted::read("vp"));
        let shapes = |w: &Weighted| w.entries.values().to_vec();
        Grammar {
            sentence_shapes: shapes(&sentences).iter().map(|s| sentence_shape(s)).collect(),
            noun_phrase_shapes: shapes(&noun_phrases).iter().map(|s| phrase_shape(s)).collect(),
            verb_phrase_shapes: shapes(&verb_phrases).iter().map(|s| phrase_shape(s)).collect(),
            sentences,
            noun_phrases,
            verb_phrases,
            nouns: Weighted::read("nouns"),
            verbs: Weighted::read("verbs"),
            adjectives: Weighted::read("adjectives"),
            adverbs: Weighted::read("adverbs"),
            auxiliaries: Weighted::read("auxiliaries"),
            prepositions: Weighted::read("prepositions"),
            terminators: Weighted::read("terminators"),
        }
    })
}

impl Grammar {
    fn list(&self, list: WordList) -> &Weighted {
        match list {
            WordList::Noun => &self.nouns,
            WordList::Adjective => &self.adjectives,
            WordList::Adverb => &self.adverbs,
            WordList::Verb => &self.verbs,
            WordList::Auxiliary => &self.auxiliaries,
        }
    }

    /// Appends a phrase of one of `shapes` (chosen by `weights`), each word
    /// followed by a space.
    fn phrase(&self, out: &mut String, weights: &Weighted, shapes: &[Vec<Slot>], stream: &mut Stream) {
        for slot in &shapes[weights.index(stream.next())] {
            out.push_str(self.list(slot.list).pick(stream.next()));
            if let Some(c) = slot.after {
                out.push(c);
            }
            out.push(' ');
        }
    }

    /// Appends one sentence drawn from `stream`: its words separated by
    /// single spaces, its terminator abutting the last word, no space after.
    fn sentence(&self, out: &mut String, stream: &mut Stream) {
        let start = out.len();
        for part in &self.sentence_shapes[self.sentences.index(stream.next())] {
            match part {
                Part::NounPhrase => self.phrase(out, &self.noun_phrases, &self.noun_phrase_shapes, stream),
                Part::VerbPhrase => self.phrase(out, &self.verb_phrases, &self.verb_phrase_shapes, stream),
                Part::Prepositional => {
                    out.push_str(self.prepositions.pick(stream.next()));
                    out.push_str(" the ");
                    self.phrase(out, &self.noun_phrases, &self.noun_phrase_shapes, stream);
                }
                Part::Terminator => {
                    if out.len() > start && out.ends_with(' ') {
                        out.pop();
                    }
                    out.push_str(self.terminators.pick(stream.next()));
                    out.push(' ');
                }
            }
        }
        if out.len() > start && out.ends_with(' ') {
            out.pop();
        }
    }
}

/// Appends the sentence of TPC-H's grammar that `x` draws: the stream
/// seeded with xxh3(x).
pub fn tpch_sentence(out: &mut String, x: u64) {
    grammar().sentence(out, &mut Stream(xxh3_u64(x)));
}

/// The seed of sentence `i` of the pool of `seed`: xxh3 of the two as 16
/// little-endian bytes.
fn pool_sentence_seed(seed: u64, i: u64) -> u64 {
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    bytes[8..].copy_from_slice(&i.to_le_bytes());
    xxhash_rust::xxh3::xxh3_64(&bytes)
}

/// The pool of `bytes` bytes for `seed`: sentences 0, 1, ... joined by
/// single spaces, the last one cut at the size.
fn build_pool(seed: u64, bytes: usize) -> Result<Arc<str>, NodeError> {
    if bytes > limit::max_value_bytes() {
        return Err(limit::too_large(bytes));
    }
    let mut text = String::new();
    text.try_reserve_exact(bytes + 512).map_err(|_| limit::no_memory(bytes))?;
    let grammar = grammar();
    let mut i = 0u64;
    while text.len() < bytes {
        if i > 0 {
            text.push(' ');
        }
        grammar.sentence(&mut text, &mut Stream(pool_sentence_seed(seed, i)));
        i += 1;
    }
    text.truncate(bytes);
    limit::shared_str(&text)
}

/// The pools built so far, by `(seed, bytes)`: each held weakly (a pool
/// lives as long as a program holds it), and the last one built also
/// strongly, so the programs of one workload (one per table, compiled one
/// after another) build it once.
struct Pools {
    built: Vec<((u64, u64), std::sync::Weak<str>)>,
    last: Option<Arc<str>>,
}

/// The pool of `(seed, bytes)`, built unless a live one is at hand.
fn text_pool(seed: u64, bytes: u64) -> Result<Arc<str>, NodeError> {
    static POOLS: Mutex<Pools> = Mutex::new(Pools { built: Vec::new(), last: None });
    let size = usize::try_from(bytes).map_err(|_| limit::too_large(usize::MAX))?;
    let mut pools = POOLS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(pool) = pools.built.iter().find(|(key, _)| *key == (seed, bytes)).and_then(|(_, p)| p.upgrade()) {
        return Ok(pool);
    }
    pools.last = None;
    pools.built.retain(|(_, p)| p.strong_count() > 0);
    let pool = build_pool(seed, size)?;
    pools.built.push(((seed, bytes), Arc::downgrade(&pool)));
    pools.last = Some(pool.clone());
    Ok(pool)
}

/// `x` scaled to `[0, n)`: the high word of `x * n` (uniform for a uniform `x`).
#[inline]
fn below(x: u64, n: u64) -> u64 {
    ((u128::from(x) * u128::from(n)) >> 64) as u64
}

/// Appends the stretch of `pool` that `x` picks, dbgen's way: the offset
/// uniform over `[0, len(pool) - max_len]`, the length uniform over
/// `[min_len, max_len]` (both from xxh3(x); a pool shorter than the length
/// gives all of itself), widened to whole characters.
fn extract(pool: &str, x: u64, min_len: u64, max_len: u64, out: &mut String) {
    let h = xxh3_u64(x);
    let pool_len = pool.len() as u64;
    let offset = below(splitmix64(h), pool_len.saturating_sub(max_len) + 1);
    let len = min_len + below(h, max_len - min_len + 1);
    let offset = offset as usize;
    let end = usize::try_from(offset as u64 + len.min(pool_len - offset as u64)).unwrap_or(pool.len());
    let start = (0..=offset).rev().find(|&i| pool.is_char_boundary(i)).unwrap_or(0);
    let end = (end..=pool.len()).find(|&i| pool.is_char_boundary(i)).unwrap_or(pool.len());
    out.push_str(&pool[start..end]);
}

/// `tpch_sentence`: one sentence of TPC-H's text grammar.
pub const TPCH_SENTENCE: NodeDef = NodeDef {
    name: "tpch_sentence",
    category: "real_data",
    doc: "A sentence of TPC-H's text grammar (clause 4.2.2.10: noun, verb and prepositional phrases and a terminator, words by dbgen's weights), drawn from a stream seeded with xxh3(input).",
    params: &[wire("input", U64)],
    outputs: Outputs::One(Str),
    build: |_| {
        grammar();
        Ok(to_text(|x: u64, out: &mut String| tpch_sentence(out, x)))
    },
    ..NodeDef::BASE
};

/// `tpch_text_pool`: `bytes` bytes of TPC-H grammar sentences, built once.
pub const TPCH_TEXT_POOL: NodeDef = NodeDef {
    name: "tpch_text_pool",
    category: "real_data",
    doc: "A pool of `bytes` bytes of TPC-H grammar sentences joined by spaces (sentence i drawn from xxh3 of (seed, i); the last cut at the size), for text_extract. A compile constant: built once, when the program is compiled (at most the value limit, 64 MiB by default).",
    params: &[konst_or("seed", U64, Lit::U64(0)), konst("bytes", U64)],
    outputs: Outputs::One(Str),
    build: |c| {
        let (seed, bytes) = (c.u64(0), c.u64(1));
        Ok(value_fn(move |_, outs| {
            outs[0] = Value::Str(text_pool(seed, bytes)?);
            Ok(())
        }))
    },
    testing: Testing {
        samples: &[("seed", Samples::U64(&[0, 1])), ("bytes", Samples::U64(&[300, 0, 1, 20_000]))],
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `text_extract`: a stretch of `pool` at a pseudo-random offset, of a length in `[min_len, max_len]`.
pub const TEXT_EXTRACT: NodeDef = NodeDef {
    name: "text_extract",
    category: "string",
    doc: "A stretch of the constant text `pool` (dbgen's comments): h = xxh3(input) draws the length uniformly in [min_len, max_len] and splitmix64(h) the offset uniformly in [0, len(pool) - max_len]; a pool shorter than that gives what it has; the ends widened to whole characters.",
    params: &[konst("pool", Str), wire("input", U64), konst("min_len", U64), konst("max_len", U64)],
    outputs: Outputs::One(Str),
    build: |c| {
        let (min_len, max_len) = (c.u64(1), c.u64(2));
        if min_len > max_len {
            return Err(format!("min_len ({min_len}) must be <= max_len ({max_len})"));
        }
        if max_len == u64::MAX {
            return Err(format!("max_len must be below {}", u64::MAX));
        }
        // The node holds the pool (shared with the program's constant):
        // no kernel copies it, and a row copies only its stretch.
        let pool: Arc<str> = match &c.consts[0] {
            Value::Str(pool) => pool.clone(),
            _ => Arc::from(""),
        };
        Ok(to_text(move |x: u64, out: &mut String| extract(&pool, x, min_len, max_len, out)))
    },
    not_constant_hint: Some(
        "the pool is fixed when the node is built: bind it with `const pool := tpch_text_pool(seed, bytes)` (or any constant text)",
    ),
    testing: Testing {
        samples: &[
            ("pool", Samples::Str(&["furiously regular deposits sleep. carefully ironic foxes", "", "é ü — ok"])),
            // Every min_len is at most every max_len: the random generator
            // draws the two on their own.
            ("min_len", Samples::U64(&[10, 0, 1, 40])),
            ("max_len", Samples::U64(&[43, 40, 200])),
        ],
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// The pseudo-text family.
pub const NODES: &[NodeDef] = &[TPCH_SENTENCE, TPCH_TEXT_POOL, TEXT_EXTRACT];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::{build_err, eval1};

    fn sentence(x: u64) -> String {
        let mut s = String::new();
        tpch_sentence(&mut s, x);
        s
    }

    #[test]
    fn the_grammar_has_dbgens_lists_and_weights() {
        let g = grammar();
        let sizes = [
            g.sentences.entries.len(),
            g.noun_phrases.entries.len(),
            g.verb_phrases.entries.len(),
            g.nouns.entries.len(),
            g.verbs.entries.len(),
            g.adjectives.entries.len(),
            g.adverbs.entries.len(),
            g.auxiliaries.entries.len(),
            g.prepositions.entries.len(),
            g.terminators.entries.len(),
        ];
        assert_eq!(sizes, [5, 4, 4, 45, 40, 29, 28, 18, 47, 6]);
        assert_eq!(g.noun_phrases.entries.values()[2].as_ref(), "J, J N");
        // "special" is one of the four adjectives of weight 20 of 289.
        let n = 200_000u64;
        let special = (0..n).filter(|&i| g.adjectives.pick(splitmix64(i)) == "special").count() as f64 / n as f64;
        assert!((special - 20.0 / 289.0).abs() < 0.003, "{special}");
    }

    #[test]
    fn sentences_follow_the_shapes() {
        for x in 0..2_000u64 {
            let s = sentence(x);
            assert!(!s.starts_with(' ') && !s.ends_with(' ') && !s.contains("  "), "{s:?}");
            assert!([".", ";", ":", "?", "!", "--"].iter().any(|t| s.ends_with(t)), "{s:?}");
            assert!(s.split(' ').count() >= 2, "{s:?}");
        }
        assert_eq!(sentence(7), sentence(7));
        assert_ne!(sentence(7), sentence(8));
        let text: String = (0..5_000u64).map(sentence).collect::<Vec<_>>().join(" ");
        for word in ["special", "requests", "furiously", "the", "--", ", "] {
            assert!(text.contains(word), "{word}");
        }
    }

    #[test]
    fn the_pool_is_sentences_cut_at_its_size_and_kept() {
        let pool = text_pool(3, 10_000).unwrap();
        assert_eq!(pool.len(), 10_000);
        let mut first = String::new();
        grammar().sentence(&mut first, &mut Stream(pool_sentence_seed(3, 0)));
        assert!(pool.starts_with(&format!("{first} ")));
        assert!(Arc::ptr_eq(&pool, &text_pool(3, 10_000).unwrap()), "built once");
        assert_ne!(pool, text_pool(4, 10_000).unwrap());
        assert_eq!(text_pool(3, 0).unwrap().as_ref(), "");
        let err = text_pool(0, u64::from(u32::MAX)).unwrap_err();
        assert!(err.message().contains("exceeds the limit"), "{err:?}");
    }

    #[test]
    fn extracts_are_uniform_stretches_of_the_pool() {
        let pool: Arc<str> = text_pool(0, 100_000).unwrap();
        let (mut min, mut max, mut total) = (usize::MAX, 0, 0);
        let n = 20_000u64;
        for x in 0..n {
            let v = eval1(&TEXT_EXTRACT, &[Value::Str(pool.clone()), Value::U64(10), Value::U64(43)], &[Value::U64(x)]);
            let v = v.as_str().unwrap();
            assert!(pool.contains(v));
            (min, max, total) = (min.min(v.len()), max.max(v.len()), total + v.len());
        }
        assert_eq!((min, max), (10, 43));
        let mean = total as f64 / n as f64;
        assert!((mean - 26.5).abs() < 0.3, "{mean}");
        // A pool shorter than the length gives all of itself; one of
        // several bytes per character is cut at whole characters.
        let short = |pool: &str, x: u64| {
            let v =
                eval1(&TEXT_EXTRACT, &[Value::Str(Arc::from(pool)), Value::U64(5), Value::U64(9)], &[Value::U64(x)]);
            v.as_str().unwrap().to_string()
        };
        assert_eq!(short("abc", 1), "abc");
        assert_eq!(short("", 1), "");
        for x in 0..50 {
            let v = short("ééééééééééé", x);
            assert!(v.chars().all(|c| c == 'é') && v.len() >= 5, "{v}");
        }
        assert_eq!(
            build_err(&TEXT_EXTRACT, &[Value::Str(Arc::from("pool")), Value::U64(5), Value::U64(2)], &[U64]),
            "min_len (5) must be <= max_len (2)"
        );
    }
}
