//! Weighted family: discrete choices through alias tables (Vose's method)
//! built once when the node is built. Sampling reads the input bits as
//! they are — the input should already be hashed: the low bits (mod n)
//! pick a slot, the high 32 bits test the slot's bias. The table build
//! (queue order, scaling, leftovers) and the sampling rule are upstream's,
//! so choices agree with upstream's for the same input.

use crate::node::by_bytes::{pick, StrPick, StrTable};
use crate::node::kit::map1;
use crate::node::{konst, many, wire, NodeDef, Outputs, Samples, Testing, Variadic};
use crate::types::PortType::{Str, F64, U64};
use std::collections::VecDeque;
use std::sync::Arc;
use strength_reduce::StrengthReducedU64;

/// An alias table over outcomes `0..n`.
#[derive(Clone, Debug)]
pub struct AliasTable {
    biases: Box<[f64]>,
    /// Per slot, in one word (one memory access a sample): the alias in the
    /// high 32 bits and, in the low 32, how many values of the high 32 input
    /// bits pick the slot itself (see [`bias_threshold`]), so sampling needs
    /// no float division.
    packed: Box<[u64]>,
    /// `n`, for the slot's `x mod n` without a division instruction.
    slots: StrengthReducedU64,
}

/// The number of `hi` in `0..2^32` for which upstream's test of a slot's
/// bias, `hi as f64 / u32::MAX as f64 < bias`, holds: the test is monotone
/// in `hi` (an exact integer over a constant, correctly rounded), so it
/// holds exactly for `hi` below this count, and `hi < threshold` is the
/// same test in integers.
fn bias_threshold(bias: f64) -> u64 {
    let holds = |hi: u64| (hi as f64 / u32::MAX as f64) < bias;
    // Invariant: the test holds below `lo` and fails from `hi` on.
    let (mut lo, mut hi) = (0u64, 1u64 << 32);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if holds(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

impl AliasTable {
    /// The table for `weights` (not normalized; their sum must be positive).
    /// Upstream's failures: no weights, or a total that is not positive.
    pub fn from_weights(weights: &[f64]) -> Result<AliasTable, String> {
        let n = weights.len();
        if n == 0 {
            return Err("must have at least one outcome".into());
        }
        if n > u32::MAX as usize {
            return Err(format!("at most {} outcomes", u32::MAX));
        }
        let sum: f64 = weights.iter().fold(0.0, |a, w| a + w);
        if sum.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
            return Err("total weight must be positive".into());
        }
        let scale = n as f64 / sum;
        let mut scaled: Vec<f64> = weights.iter().map(|w| w * scale).collect();
        let (mut small, mut large) = (VecDeque::new(), VecDeque::new());
        for (i, &w) in scaled.iter().enumerate() {
            if w < 1.0 {
                small.push_back(i);
            } else {
                large.push_back(i);
            }
        }
        let mut biases = vec![1.0f64; n];
        let mut aliases: Vec<u32> = (0..n as u32).collect();
        while let (Some(s), Some(l)) = (small.pop_front(), large.pop_front()) {
            biases[s] = scaled[s];
            aliases[s] = l as u32;
            scaled[l] -= 1.0 - scaled[s];
            if scaled[l] < 1.0 {
                small.push_back(l);
            } else {
                large.push_back(l);
            }
        }
        // What floating-point drift leaves over is its own alias.
        for &i in small.iter().chain(large.iter()) {
            biases[i] = 1.0;
        }
        // A bias is at most 1.0 (only a slot below 1.0 takes its own scaled
        // weight), so its threshold is at most u32::MAX and fits the low half.
        let packed = biases
            .iter()
            .zip(&aliases)
            .map(|(&b, &alias)| {
                (u64::from(alias) << 32) | u64::from(u32::try_from(bias_threshold(b)).unwrap_or(u32::MAX))
            })
            .collect();
        Ok(AliasTable { biases: biases.into(), packed, slots: StrengthReducedU64::new(n as u64) })
    }

    /// Number of outcomes.
    pub fn len(&self) -> usize {
        self.biases.len()
    }

    /// True when the table has no outcomes (never, once built).
    pub fn is_empty(&self) -> bool {
        self.biases.is_empty()
    }

    /// The outcome for input bits `x`: slot `x mod n`, its primary (the slot
    /// itself) when `(x >> 32) / u32::MAX` is below its bias, else its alias.
    #[inline]
    pub fn sample(&self, x: u64) -> usize {
        let slot = (x % self.slots) as usize;
        let packed = self.packed[slot];
        // `(x >> 32) as f64 / u32::MAX as f64 < bias`, in integers (see `bias_threshold`).
        if x >> 32 < packed & 0xffff_ffff {
            slot
        } else {
            (packed >> 32) as usize
        }
    }
}

/// One slot of an alias table over a string table, laid out for the
/// by-bytes pick: the slot's threshold and the spans (in the string table's
/// buffer) of its primary and its alias, so a sample reads one record and
/// then the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(16))]
struct PickRecord {
    threshold: u32,
    primary: u32,
    alias: u32,
    primary_len: u16,
    alias_len: u16,
}

/// Weighted picks of a string table's strings through an alias table (its
/// outcomes are the table's indices). P1 samples the alias table and shares
/// the string; the by-bytes form reads one `PickRecord` (when every
/// string is short enough to have one) and copies the text.
#[derive(Debug)]
pub struct AliasPicks {
    alias: AliasTable,
    /// Shared with the picks of a table laid out the same way ([`Self::over`]).
    records: Option<Arc<[PickRecord]>>,
}

impl AliasPicks {
    /// The picks of `alias` over the strings of `table` (as many as it has outcomes).
    pub fn new(alias: AliasTable, table: &StrTable) -> AliasPicks {
        let span = |i: usize| table.span(i).and_then(|(start, len)| Some((start, u16::try_from(len).ok()?)));
        let records: Option<Arc<[PickRecord]>> = (table.len() == alias.len())
            .then(|| {
                (0..alias.len())
                    .map(|slot| {
                        let packed = alias.packed[slot];
                        let ((primary, primary_len), (alias, alias_len)) =
                            (span(slot)?, span((packed >> 32) as usize)?);
                        let threshold = (packed & 0xffff_ffff) as u32;
                        Some(PickRecord { threshold, primary, alias, primary_len, alias_len })
                    })
                    .collect()
            })
            .flatten();
        AliasPicks { alias, records }
    }

    /// The same picks over `table`, another table of as many strings; when
    /// its strings lie where this one's do (a list mapped to strings of the
    /// same lengths), the records are shared, not copied, and so is their
    /// room in the cache.
    pub fn over(&self, table: &StrTable) -> AliasPicks {
        let mut picks = AliasPicks::new(self.alias.clone(), table);
        if picks.records == self.records {
            picks.records = self.records.clone();
        }
        picks
    }

    /// The index of the string for input bits `x` ([`AliasTable::sample`]).
    #[inline]
    pub fn index(&self, x: u64) -> usize {
        self.alias.sample(x)
    }

    /// The text of the string for input bits `x`, from `table` (the one the
    /// picks were made over): [`AliasTable::sample`]'s choice, through one record.
    #[inline]
    pub fn text<'t>(&self, table: &'t StrTable, x: u64) -> &'t str {
        match &self.records {
            Some(records) => {
                let r = records[(x % self.alias.slots) as usize];
                // Chosen without a branch: for most slots the threshold test
                // is a coin flip, which a branch would mispredict half the time.
                let primary = u32::from(x >> 32 < u64::from(r.threshold)).wrapping_neg();
                let start = (r.primary & primary) | (r.alias & !primary);
                let len = (u32::from(r.primary_len) & primary) | (u32::from(r.alias_len) & !primary);
                table.text_at(start, len)
            }
            None => table.text(self.index(x)),
        }
    }
}

/// A string table picked from by weight (the `weighted_strings` node).
struct WeightedStrings {
    table: StrTable,
    picks: AliasPicks,
}

impl StrPick for WeightedStrings {
    #[inline]
    fn value(&self, x: u64) -> &Arc<str> {
        self.table.get(self.picks.index(x))
    }
    #[inline]
    fn text(&self, x: u64) -> &str {
        self.picks.text(&self.table, x)
    }
}

/// The entries of a `value:weight` spec (`;` or `,` separated, blanks
/// skipped), in the words of upstream's `weighted_strings`/`weighted_u64`
/// parser (`expected 'value:weight', got '...'`, `invalid weight: ...`).
fn parse_pairs(spec: &str) -> Result<Vec<(&str, f64)>, String> {
    spec.split([';', ','])
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .map(|elem| {
            let (value, weight) =
                elem.split_once(':').ok_or_else(|| format!("expected 'value:weight', got '{elem}'"))?;
            let w = weight.parse::<f64>().map_err(|e| format!("invalid weight: {e:?}"))?;
            Ok((value, w))
        })
        .collect()
}

/// `weighted_strings`: one of the spec's strings, chosen by weight through an alias table over the input bits.
pub const WEIGHTED_STRINGS: NodeDef = NodeDef {
    name: "weighted_strings",
    category: "weighted",
    doc: "A string of the spec \"value:weight;...\" chosen by weight; an alias table over the input bits (hash the input first).",
    params: &[wire("input", U64), konst("spec", Str)],
    outputs: Outputs::One(Str),
    build: |c| Ok(pick(WeightedStrings::new(c.str(0))?)),
    testing: Testing {
        samples: &[("spec", Samples::Str(&["alpha:0.3;beta:0.5;gamma:0.2", "x:1", "a:1,é:0.1"]))],
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

impl WeightedStrings {
    /// The picks of a `weighted_strings` spec (`value:weight;...`).
    fn new(spec: &str) -> Result<WeightedStrings, String> {
        let pairs = parse_pairs(spec)?;
        let values: Vec<Arc<str>> = pairs.iter().map(|(v, _)| Arc::from(*v)).collect();
        let alias = AliasTable::from_weights(&pairs.iter().map(|p| p.1).collect::<Vec<_>>())?;
        let table = StrTable::new(values);
        Ok(WeightedStrings { picks: AliasPicks::new(alias, &table), table })
    }
}

/// The pick rule of `weighted_strings` over `spec`, for a node that picks
/// where it prints (fusion's `__printf_words`): the same text for the same
/// input bits as the node itself.
pub fn weighted_strings_pick(spec: &str) -> Result<Arc<dyn StrPick>, String> {
    Ok(Arc::new(WeightedStrings::new(spec)?))
}

/// `weighted_u64`: one of the spec's numbers, chosen by weight through an alias table over the input bits.
pub const WEIGHTED_U64: NodeDef = NodeDef {
    name: "weighted_u64",
    category: "weighted",
    doc: "A u64 of the spec \"value:weight;...\" chosen by weight; an alias table over the input bits (hash the input first).",
    params: &[wire("input", U64), konst("spec", Str)],
    build: |c| {
        let mut values = Vec::new();
        let mut weights = Vec::new();
        for elem in c.str(0).split([';', ',']).map(str::trim).filter(|e| !e.is_empty()) {
            let (value, weight) = elem.split_once(':').ok_or_else(|| format!("expected 'value:weight', got '{elem}'"))?;
            values.push(value.parse::<u64>().map_err(|e| format!("invalid value: {e:?}"))?);
            weights.push(weight.parse::<f64>().map_err(|e| format!("invalid weight: {e:?}"))?);
        }
        let table = AliasTable::from_weights(&weights)?;
        Ok(map1(move |x: u64| values[table.sample(x)]))
    },
    testing: Testing {
        samples: &[("spec", Samples::Str(&["10:0.5;20:0.3;30:0.2", "42:1", "0:1,18446744073709551615:2"]))],
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `weighted_pick`: `weighted_u64` with upstream's stricter spec checks (positive finite weights, trimmed parts).
pub const WEIGHTED_PICK: NodeDef = NodeDef {
    name: "weighted_pick",
    category: "weighted",
    doc: "weighted_u64 with a stricter spec: trimmed parts, each weight positive and finite, at least one entry.",
    params: &[wire("input", U64), konst("spec", Str)],
    build: |c| {
        let mut values = Vec::new();
        let mut weights = Vec::new();
        for entry in c.str(0).split([';', ',']).map(str::trim).filter(|e| !e.is_empty()) {
            let (v, w) = entry
                .split_once(':')
                .ok_or_else(|| format!("weighted_pick: malformed entry '{entry}', expected 'value:weight'"))?;
            let value: u64 =
                v.trim().parse().map_err(|_| format!("weighted_pick: invalid value '{v}' in entry '{entry}'"))?;
            let weight: f64 =
                w.trim().parse().map_err(|_| format!("weighted_pick: invalid weight '{w}' in entry '{entry}'"))?;
            if !(weight.is_finite() && weight > 0.0) {
                return Err(format!("weighted_pick: weight must be a positive finite f64, got {weight}"));
            }
            values.push(value);
            weights.push(weight);
        }
        if weights.is_empty() {
            return Err("weighted_pick requires at least one entry in spec".into());
        }
        let table = AliasTable::from_weights(&weights)?;
        Ok(map1(move |x: u64| values[table.sample(x)]))
    },
    testing: Testing {
        samples: &[("spec", Samples::Str(&["10:0.5;20:0.3;30:0.2", "42:1", "0:1,7:2"]))],
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `histribution`: a label of a histogram spec ("50 25 13" or "234:50 33:25"), chosen by weight.
pub const HISTRIBUTION: NodeDef = NodeDef {
    name: "histribution",
    category: "weighted",
    doc: "A label of a histogram spec, chosen by weight through an alias table over the input bits: \"50 25 13\" labels 0, 1, 2; \"234:50 33:25\" labels 234, 33.",
    params: &[wire("input", U64), konst("spec", Str)],
    build: |c| {
        let spec = c.str(0);
        let labeled = spec.contains(':');
        let (mut labels, mut weights) = (Vec::new(), Vec::new());
        // Implicit labels count every separated piece, empty ones included, as upstream.
        for (i, elem) in spec.split([' ', ',', ';']).enumerate() {
            let elem = elem.trim();
            if elem.is_empty() {
                continue;
            }
            if labeled {
                let (label, weight) =
                    elem.split_once(':').ok_or_else(|| format!("all elements must be labeled: {elem}"))?;
                labels.push(label.parse::<u64>().map_err(|e| format!("invalid label: {e:?}"))?);
                weights.push(weight.parse::<f64>().map_err(|e| format!("invalid weight: {e:?}"))?);
            } else {
                labels.push(i as u64);
                weights.push(elem.parse::<f64>().map_err(|e| format!("invalid weight: {e:?}"))?);
            }
        }
        if weights.is_empty() {
            return Err("histribution spec must not be empty".into());
        }
        let table = AliasTable::from_weights(&weights)?;
        Ok(map1(move |x: u64| labels[table.sample(x)]))
    },
    testing: Testing {
        samples: &[("spec", Samples::Str(&["50 25 13 12", "234:50 33:25 17:13 3:12", "1"]))],
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `alias_sample`: the index of an outcome of the given weights, through an alias table over the input bits.
pub const ALIAS_SAMPLE: NodeDef = NodeDef {
    name: "alias_sample",
    category: "weighted",
    doc: "The index (0-based) of one of the weights, chosen by weight through an alias table over the input bits.",
    params: &[wire("input", U64), many(konst("weights", F64))],
    build: |c| {
        let weights: Vec<f64> = (0..c.tail(0).len()).map(|i| c.f64(i)).collect();
        let table = AliasTable::from_weights(&weights)?;
        Ok(map1(move |x: u64| table.sample(x) as u64))
    },
    testing: Testing {
        samples: &[("weights", Samples::F64(&[1.0, 2.0, 0.5, 3.0]))],
        variadic: Some(Variadic { min: 1, max: 4, last_only: None }),
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// What `dynamic_weighted_select` built from the last spec it read.
struct WeightedMemo {
    spec: String,
    values: Vec<String>,
    table: Option<AliasTable>,
}

impl WeightedMemo {
    /// The memo of `spec`: its values and their alias table (`None` for no values).
    fn of(spec: &str) -> Result<WeightedMemo, String> {
        let pairs = parse_pairs(spec)?;
        let table = match pairs.is_empty() {
            true => None,
            false => Some(AliasTable::from_weights(&pairs.iter().map(|p| p.1).collect::<Vec<_>>())?),
        };
        Ok(WeightedMemo { spec: spec.to_string(), values: pairs.iter().map(|p| p.0.to_string()).collect(), table })
    }
}

/// `dynamic_weighted_select`: `weighted_strings` with the spec on a wire.
pub const DYNAMIC_WEIGHTED_SELECT: NodeDef = NodeDef {
    name: "dynamic_weighted_select",
    category: "weighted",
    doc: "A string of the weights_spec wire \"value:weight;...\" chosen by weight over the selector bits (hash it first); \"\" for an empty spec. The table of the last spec is kept, so a spec that repeats is not parsed again.",
    params: &[wire("selector", U64), wire("weights_spec", Str)],
    outputs: Outputs::One(Str),
    build: |_| {
        let memo: std::sync::Mutex<Option<WeightedMemo>> = std::sync::Mutex::new(None);
        Ok(crate::node::kit::value_fn(move |args, outs| {
            let selector = args.get(0).as_u64().unwrap_or(0);
            let spec = args.get(1).as_str().unwrap_or("");
            let mut memo = memo.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            if memo.as_ref().is_none_or(|m| m.spec != spec) {
                *memo = Some(WeightedMemo::of(spec).map_err(crate::node::NodeError::new)?);
            }
            let memo = memo.as_ref().expect("just filled");
            let text = memo.table.as_ref().map_or("", |t| memo.values[t.sample(selector)].as_str());
            outs[0] = crate::value::Value::str(text);
            Ok(())
        }))
    },
    testing: Testing {
        corner_call: Some(r#"dynamic_weighted_select(a, fixed_values_str(b, "a:1;b:2", "x:1", "", "bad", "é:0.5,ü:0.5"))"#),
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// The weighted family.
pub const NODES: &[NodeDef] =
    &[WEIGHTED_STRINGS, WEIGHTED_U64, WEIGHTED_PICK, HISTRIBUTION, ALIAS_SAMPLE, DYNAMIC_WEIGHTED_SELECT];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::hash::{splitmix64, xxh3_u64};
    use crate::nodes::testing::{build_err, eval1};
    use crate::value::Value;

    #[test]
    fn picks_over_a_table_laid_out_alike_share_their_records() {
        let table = |words: &[&str]| StrTable::new(words.iter().map(|&w| Arc::from(w)).collect());
        let (upper, lower, longer) =
            (table(&["Ann", "Bo", "Cy"]), table(&["ann", "bo", "cy"]), table(&["anne", "bo", "cy"]));
        let picks = AliasPicks::new(AliasTable::from_weights(&[5.0, 1.0, 2.0]).unwrap(), &upper);
        let (alike, unlike) = (picks.over(&lower), picks.over(&longer));
        let shared = |p: &AliasPicks| Arc::ptr_eq(p.records.as_ref().unwrap(), picks.records.as_ref().unwrap());
        assert!(shared(&alike) && !shared(&unlike));
        for x in (0..2000u64).map(xxh3_u64) {
            assert_eq!(alike.text(&lower, x), upper.text(picks.index(x)).to_lowercase());
            assert_eq!(unlike.text(&longer, x), longer.text(picks.index(x)));
        }
    }

    fn s(v: &str) -> Value {
        Value::str(v)
    }

    #[test]
    fn alias_table_is_vose_as_upstream_builds_it() {
        // Weights 1, 2, 3 scale to 0.5, 1, 1.5: slot 0 (small) takes bias 0.5
        // and alias 1 (the first large); slot 1 drops to 0.5 and takes alias 2.
        let t = AliasTable::from_weights(&[1.0, 2.0, 3.0]).unwrap();
        assert_eq!(&*t.biases, &[0.5, 0.5, 1.0]);
        let aliases: Vec<u64> = t.packed.iter().map(|p| p >> 32).collect();
        assert_eq!(aliases, [1, 2, 2]);
        let t = AliasTable::from_weights(&[1.0]).unwrap();
        assert!((0..1000).all(|i| t.sample(i) == 0));
        assert_eq!(AliasTable::from_weights(&[]).unwrap_err(), "must have at least one outcome");
        assert_eq!(AliasTable::from_weights(&[0.0, 0.0]).unwrap_err(), "total weight must be positive");
        assert_eq!(AliasTable::from_weights(&[f64::NAN]).unwrap_err(), "total weight must be positive");
    }

    #[test]
    fn integer_sampling_is_upstreams_float_test() {
        let reference = |t: &AliasTable, x: u64| {
            let slot = (x % t.biases.len() as u64) as usize;
            let frac = (x >> 32) as f64 / u32::MAX as f64;
            if frac < t.biases[slot] {
                slot
            } else {
                (t.packed[slot] >> 32) as usize
            }
        };
        let tables = [
            AliasTable::from_weights(&[1.0, 2.0, 3.0]).unwrap(),
            AliasTable::from_weights(&[0.1, 1e-9, 7.0, 3.3, 0.5]).unwrap(),
            AliasTable::from_weights(&(1..200).map(|i| 1.0 / i as f64).collect::<Vec<_>>()).unwrap(),
            AliasTable::from_weights(&[1.0]).unwrap(),
        ];
        for t in &tables {
            // Every slot at and around its threshold, and hashed inputs.
            for slot in 0..t.len() as u64 {
                let th = t.packed[slot as usize] & 0xffff_ffff;
                assert_eq!(th, bias_threshold(t.biases[slot as usize]));
                for hi in [0, 1, th.saturating_sub(2), th.saturating_sub(1), th, th + 1, u32::MAX as u64] {
                    let hi = hi.min(u32::MAX as u64);
                    let x = (hi << 32) | (slot + t.len() as u64 * 3).min(u32::MAX as u64);
                    assert_eq!(t.sample(x), reference(t, x), "x = {x:#x}");
                }
            }
            for i in 0..20_000u64 {
                let x = splitmix64(i);
                assert_eq!(t.sample(x), reference(t, x));
            }
        }
        assert_eq!(bias_threshold(1.0), u32::MAX as u64, "only hi = u32::MAX reaches 1.0");
        assert_eq!((bias_threshold(0.0), bias_threshold(f64::NAN)), (0, 0));
    }

    #[test]
    fn pick_records_choose_what_the_alias_table_samples() {
        let names: Vec<Arc<str>> = (0..300).map(|i| Arc::from(format!("name{}", "x".repeat(i % 7)).as_str())).collect();
        let weights: Vec<f64> = (0..300).map(|i| 1.0 + (i * 37 % 101) as f64).collect();
        let table = StrTable::new(names);
        let picks = AliasPicks::new(AliasTable::from_weights(&weights).unwrap(), &table);
        assert!(picks.records.is_some());
        for i in 0..50_000u64 {
            let x = splitmix64(i);
            assert_eq!(picks.text(&table, x), table.text(picks.index(x)), "x = {x:#x}");
        }
        // At each slot's threshold and either side of it.
        for (slot, r) in picks.records.as_ref().unwrap().iter().enumerate() {
            for hi in [0u64, u64::from(r.threshold).saturating_sub(1), u64::from(r.threshold), u32::MAX as u64] {
                let x = (hi.min(u32::MAX as u64) << 32) | slot as u64;
                assert_eq!(picks.text(&table, x), table.text(picks.index(x)));
            }
        }
        // A string too long for a record: the picks go through the index.
        let long = StrTable::new(vec![Arc::from("a"), Arc::from("b".repeat(70_000).as_str())]);
        let picks = AliasPicks::new(AliasTable::from_weights(&[1.0, 1.0]).unwrap(), &long);
        assert!(picks.records.is_none());
        assert_eq!(picks.text(&long, 1).len(), 70_000);
    }

    #[test]
    fn sampling_splits_the_input_bits() {
        let t = AliasTable::from_weights(&[1.0, 2.0, 3.0]).unwrap();
        // Slot 0 (x % 3 == 0): primary while the high half is below half of u32::MAX.
        assert_eq!(t.sample(0), 0);
        assert_eq!(t.sample(0x7fff_ffff_0000_0002), 0, "high half just below the bias");
        assert_eq!(t.sample(0x8000_0000_0000_0001), 1, "high half just above: the alias");
        assert_eq!(t.sample(u64::MAX), t.sample(u64::MAX), "deterministic");
        // The distribution over hashed inputs follows the weights.
        let mut counts = [0u64; 3];
        for i in 0..60_000u64 {
            counts[t.sample(xxh3_u64(i))] += 1;
        }
        for (k, want) in [(0, 10_000.0), (1, 20_000.0), (2, 30_000.0)] {
            assert!((counts[k] as f64 - want).abs() < want * 0.05, "{counts:?}");
        }
    }

    #[test]
    fn weighted_nodes_pick_from_their_specs() {
        for i in 0..1000u64 {
            let h = Value::U64(splitmix64(i));
            let w = eval1(&WEIGHTED_STRINGS, &[s("alpha:0.3;beta:0.5;gamma:0.2")], std::slice::from_ref(&h));
            assert!(matches!(w.as_str(), Some("alpha" | "beta" | "gamma")));
            let u = eval1(&WEIGHTED_U64, &[s("10:0.5;20:0.3;30:0.2")], std::slice::from_ref(&h)).as_u64().unwrap();
            let p = eval1(&WEIGHTED_PICK, &[s("10:0.5;20:0.3;30:0.2")], std::slice::from_ref(&h)).as_u64().unwrap();
            assert!([10, 20, 30].contains(&u));
            assert_eq!(u, p, "weighted_pick is weighted_u64 over the same spec");
        }
        let only = eval1(&WEIGHTED_PICK, &[s("42:1.0")], &[Value::U64(7)]);
        assert!(only.same(&Value::U64(42)));
    }

    #[test]
    fn spec_refusals_are_upstreams() {
        let e = |d: &NodeDef, spec: &str| build_err(d, &[s(spec)], &[U64]);
        assert_eq!(e(&WEIGHTED_STRINGS, "a"), "expected 'value:weight', got 'a'");
        assert_eq!(e(&WEIGHTED_STRINGS, "a:b"), "invalid weight: ParseFloatError { kind: Invalid }");
        assert_eq!(e(&WEIGHTED_STRINGS, ""), "must have at least one outcome");
        assert_eq!(e(&WEIGHTED_U64, "x:1"), "invalid value: ParseIntError { kind: InvalidDigit }");
        assert_eq!(e(&WEIGHTED_PICK, ""), "weighted_pick requires at least one entry in spec");
        assert_eq!(e(&WEIGHTED_PICK, "noweight"), "weighted_pick: malformed entry 'noweight', expected 'value:weight'");
        assert_eq!(e(&WEIGHTED_PICK, "10:0.0;20:1.0"), "weighted_pick: weight must be a positive finite f64, got 0");
        assert_eq!(e(&WEIGHTED_PICK, "a:1"), "weighted_pick: invalid value 'a' in entry 'a:1'");
        assert_eq!(e(&HISTRIBUTION, ""), "histribution spec must not be empty");
        assert_eq!(e(&HISTRIBUTION, "1:5 7"), "all elements must be labeled: 7");
    }

    #[test]
    fn histribution_labels() {
        let run = |spec: &str, x: u64| eval1(&HISTRIBUTION, &[s(spec)], &[Value::U64(x)]).as_u64().unwrap();
        for i in 0..500 {
            let h = splitmix64(i);
            assert!([234, 33, 17, 3].contains(&run("234:50 33:25 17:13 3:12", h)));
            assert!(run("50 25 13 12", h) < 4);
        }
        // Upstream counts empty pieces: "10  20" labels 0 and 2.
        let labels: std::collections::HashSet<u64> = (0..200).map(|i| run("10  20", splitmix64(i))).collect();
        assert_eq!(labels, [0, 2].into_iter().collect());
        let idx = eval1(&ALIAS_SAMPLE, &[Value::F64(1.0), Value::F64(3.0)], &[Value::U64(1)]).as_u64().unwrap();
        assert_eq!(idx, AliasTable::from_weights(&[1.0, 3.0]).unwrap().sample(1) as u64);
    }

    #[test]
    fn dynamic_selection_follows_its_spec_wire() {
        use crate::nodes::testing::eval;
        let spec = "alpha:0.3;beta:0.5;gamma:0.2";
        let fixed = |x: u64| eval1(&WEIGHTED_STRINGS, &[Value::str(spec)], &[Value::U64(x)]);
        let node = |x: u64, s: &str| eval(&DYNAMIC_WEIGHTED_SELECT, &[], &[Value::U64(x), Value::str(s)]);
        for x in [0u64, 42, u64::MAX, 0x9e37_79b9_7f4a_7c15] {
            assert!(node(x, spec).unwrap()[0].same(&fixed(x)), "the same choice as weighted_strings at {x}");
        }
        assert!(node(3, "x:1.0").unwrap()[0].same(&Value::str("x")));
        assert!(node(3, "").unwrap()[0].same(&Value::str("")));
        assert_eq!(node(3, "oops").unwrap_err().message(), "expected 'value:weight', got 'oops'");
    }
}
