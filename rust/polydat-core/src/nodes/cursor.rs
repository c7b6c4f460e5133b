//! Cursor family: the slice of a cursor's ordinal range an `over` clause
//! narrows it to (`cursor q = range(0, 1000) over "25%..75%"`).
//!
//! A cursor statement lowers to ordinary bindings over `__cursor_slice`,
//! which resolves a one-range partition spec against the cursor's range
//! `[start, end)` as upstream resolves a single-range spec: a bare integer
//! is an ordinal offset from the start (clamped to the end), a decimal in
//! `[0, 1]` a fraction and `N%` a percentage of the extent, each boundary
//! rounded once (half away from zero). Brackets and parentheses around the
//! range are advisory; the result is always half-open. A reversed or empty
//! range fails. `over` may also be a partition (`cursor rows = range(0,
//! 1000) over p` in a `for p in partitions("*/4", 1000)` body): the cursor
//! then covers that partition's ordinals, its `idx` and `count` kept. The
//! cursor's partition (`rows.cursor`) is the partition family's JSON form,
//! so `cardinality(rows.cursor)` and `mod_in(cycle, rows.cursor)` read it.
//!
//! An `over` value that makes several partitions (a list or recipe spec
//! such as `"*/4"` or `"20%,30%,*"`, or a partition list) leaves the
//! choice to the host, as upstream's `set_cursor` does: the cursor's
//! `partition` input (the extern `name__partition`) picks one by its
//! index in the list. Unset, a spec of one partition needs no choice, and
//! one of several fails saying how to choose.

use crate::node::kit::value_fn;
use crate::node::{konst, wire, wire_any, NodeDef, NodeError, Outputs};
use crate::nodes::partition::Partition;
use crate::types::PortType::{Json, Str, F64, U64};
use crate::value::Value;

/// One boundary of a one-range spec.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Bound {
    /// A percentage of the extent.
    Pct(f64),
    /// A fraction of the extent.
    Frac(f64),
    /// An ordinal offset from the start.
    Ord(u64),
}

impl Bound {
    fn parse(text: &str) -> Result<Bound, String> {
        let t = text.trim();
        if let Some(p) = t.strip_suffix('%') {
            let p: f64 = p.trim().parse().map_err(|_| format!("`{t}` is not a percentage"))?;
            if !(0.0..=100.0).contains(&p) {
                return Err(format!("`{t}` is outside 0%..100%"));
            }
            return Ok(Bound::Pct(p));
        }
        if let Ok(o) = t.parse::<u64>() {
            return Ok(Bound::Ord(o));
        }
        match t.parse::<f64>() {
            Ok(f) if (0.0..=1.0).contains(&f) => Ok(Bound::Frac(f)),
            _ => Err(format!("`{t}` is not an ordinal, a fraction in [0, 1] or a percentage")),
        }
    }

    /// The absolute ordinal of the boundary in `[start, end]`.
    fn resolve(self, start: u64, end: u64) -> u64 {
        let extent = end.saturating_sub(start);
        match self {
            Bound::Pct(p) => start + ((p / 100.0) * extent as f64).round() as u64,
            Bound::Frac(f) => start + (f * extent as f64).round() as u64,
            Bound::Ord(o) => start.saturating_add(o).min(end),
        }
    }
}

/// The slice `[lo, hi)` of `[start, end)` a one-range spec names, with
/// each boundary's position as a percentage of the extent.
pub fn slice(spec: &str, start: u64, end: u64) -> Result<(u64, u64, f64, f64), String> {
    if end < start {
        return Err(format!("the cursor's range {start}..{end} is reversed"));
    }
    let cleaned: String = spec.chars().filter(|c| !matches!(c, '[' | ']' | '(' | ')')).collect();
    let Some((lo, hi)) = cleaned.split_once("..") else {
        return Err(format!(
            "`{spec}` is not a range: a cursor's `over` takes one range such as `0..50%` or `100..1000` \
             (lists and recipes are for partitions(...))"
        ));
    };
    let (lo, hi) = (Bound::parse(lo)?.resolve(start, end), Bound::parse(hi)?.resolve(start, end));
    if hi <= lo {
        return Err(format!("`{spec}` resolves to {lo}..{hi} of {start}..{end}, which holds no ordinal"));
    }
    let extent = (end - start) as f64;
    let pct = |x: u64| if extent > 0.0 { (x - start) as f64 * 100.0 / extent } else { 0.0 };
    Ok((lo, hi, pct(lo), pct(hi)))
}

/// The slice cursor `name`'s `over` value names within `[start, end)`: a
/// one-range spec (a `str`, see [`slice`]) as partition 0 of 1, a
/// partition (`json`, from `partitions(...)` and the other partition
/// nodes), which must lie within the cursor's range, as it is, or partition
/// `pick` of the several a list spec or partition list makes (see the
/// module doc).
pub fn narrowed(name: &str, over: &Value, start: u64, end: u64, pick: Option<u64>) -> Result<Partition, String> {
    let choices = match over {
        Value::Json(text) => {
            let parsed = serde_json::from_str::<serde_json::Value>(text).ok();
            let list = match parsed.as_ref() {
                Some(serde_json::Value::Array(items)) => items.iter().map(Partition::from_json).collect(),
                Some(one) => Partition::from_json(one).map(|p| vec![p]),
                None => None,
            };
            let list = list.ok_or_else(|| {
                format!(
                    "`over` takes a partition or a partition list (JSON objects with start_ord <= end_ord), got {text}"
                )
            })?;
            for p in &list {
                if p.start_ord < start || p.end_ord > end {
                    return Err(format!(
                        "the partition {}..{} lies outside the cursor's range {start}..{end}",
                        p.start_ord, p.end_ord
                    ));
                }
            }
            list
        }
        _ => {
            let Some(spec) = over.as_str() else {
                return Err("`over` takes a partition spec (str), a partition or a partition list (json)".into());
            };
            if is_one_range(spec) {
                let (lo, hi, start_pct, end_pct) = slice(spec, start, end)?;
                vec![Partition {
                    idx: 0,
                    count: 1,
                    start_ord: lo,
                    end_ord: hi,
                    start_pct,
                    end_pct,
                    base_extent: end - start,
                }]
            } else {
                if end < start {
                    return Err(format!("the cursor's range {start}..{end} is reversed"));
                }
                let parsed = crate::nodes::partition::parse(spec).map_err(|e| format!("`{spec}`: {e}"))?;
                crate::nodes::partition::resolve(&parsed, start, end).map_err(|e| format!("`{spec}`: {e}"))?
            }
        }
    };
    pick_partition(name, choices, pick)
}

/// Partition `pick` of `choices`; with no pick, the only one.
fn pick_partition(name: &str, choices: Vec<Partition>, pick: Option<u64>) -> Result<Partition, String> {
    let n = choices.len();
    let cursor = format!("cursor '{name}'");
    if n == 0 {
        return Err(format!("{cursor}: its `over` value resolved to no partitions"));
    }
    match pick {
        None if n == 1 => Ok(choices[0]),
        None => Err(format!(
            "{cursor} resolves to {n} partitions; pick one by its index, 0..{last}: set `{name}__partition` \
             (Kernel.set_cursor(\"{name}\", INDEX), inputs={{\"{name}__partition\": INDEX}}, or --set {name}__partition=INDEX)",
            last = n - 1
        )),
        Some(i) => choices.get(i as usize).copied().ok_or_else(|| {
            format!("{cursor} resolves to {n} partitions; partition {i} is out of range (0..{})", n - 1)
        }),
    }
}

/// Whether `spec` is a one-range spec (`0..50%`, `[100..1000)`): one
/// partition, needing no choice. A parse failure is not one range.
pub fn is_one_range(spec: &str) -> bool {
    let cleaned: String = spec.chars().filter(|c| !matches!(c, '[' | ']' | '(' | ')')).collect();
    cleaned.split_once("..").is_some_and(|(lo, hi)| Bound::parse(lo).is_ok() && Bound::parse(hi).is_ok())
}

/// `__cursor_slice`: the slice of `[start, end)` an `over` value names (a
/// partition spec, a partition or a partition list, `partition` picking
/// one of several): its fields and the partition itself.
pub const CURSOR_SLICE: NodeDef = NodeDef {
    name: "__cursor_slice",
    category: "cursor",
    doc: "The slice of [start, end) an `over` value names — a one-range spec (0..50%, 100..1000, 0.25..0.75), a partition, or one of the partitions of a list spec (*/4, 20%,30%,*) or partition list, picked by `partition`: (start_ordinal, end_ordinal, start_pct, end_pct, idx, partition_count, cursor).",
    params: &[
        konst("name", Str),
        wire_any("over"),
        wire("start", U64),
        wire("end", U64),
        wire("partition", U64),
    ],
    outputs: Outputs::Named(&[
        ("start_ordinal", U64),
        ("end_ordinal", U64),
        ("start_pct", F64),
        ("end_pct", F64),
        ("idx", U64),
        ("partition_count", U64),
        ("cursor", Json),
    ]),
    accepts_none: true,
    build: |c| {
        if !matches!(c.wire_types.first(), Some(Str | Json)) {
            return Err(format!(
                "a cursor's `over` takes a partition spec (str), a partition or a partition list (json), not {}",
                c.wire_types.first().map_or("nothing".into(), |t| t.keyword())
            ));
        }
        let name = c.str(0).to_string();
        Ok(value_fn(move |args, outs| {
            let (over, Value::U64(start), Value::U64(end)) = (args.get(0), args.get(1), args.get(2)) else {
                // A None over, start or end leaves the slice absent.
                outs.iter_mut().for_each(|o| *o = Value::None);
                return Ok(());
            };
            if matches!(over, Value::None) {
                outs.iter_mut().for_each(|o| *o = Value::None);
                return Ok(());
            }
            let pick = match args.get(3) {
                Value::U64(i) => Some(*i),
                _ => None,
            };
            let p = narrowed(&name, over, *start, *end, pick).map_err(NodeError::new)?;
            outs[0] = Value::U64(p.start_ord);
            outs[1] = Value::U64(p.end_ord);
            outs[2] = Value::F64(p.start_pct);
            outs[3] = Value::F64(p.end_pct);
            outs[4] = Value::U64(p.idx);
            outs[5] = Value::U64(p.count);
            outs[6] = Value::Json(p.to_json().to_string().into());
            Ok(())
        }))
    },
    ..NodeDef::BASE
};

/// The cursor family.
pub const NODES: &[NodeDef] = &[CURSOR_SLICE];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_range_specs_resolve_like_upstream() {
        assert_eq!(slice("0..50%", 0, 1000).unwrap(), (0, 500, 0.0, 50.0));
        assert_eq!(slice("[25%..75%)", 0, 100).unwrap(), (25, 75, 25.0, 75.0));
        assert_eq!(slice("100..1000", 0, 500).unwrap(), (100, 500, 20.0, 100.0), "ordinals clamp to the end");
        assert_eq!(slice("0.05..0.5", 1000, 2000).unwrap(), (1050, 1500, 5.0, 50.0));
        assert_eq!(slice("0..33.3%", 0, 10).unwrap().1, 3, "a boundary rounds once");
        assert!(slice("50%..10%", 0, 100).unwrap_err().contains("holds no ordinal"));
        assert!(slice("20%,30%,*", 0, 100).unwrap_err().contains("is not a range"));
        assert!(slice("0..x", 0, 100).unwrap_err().contains("is not an ordinal"));
    }

    #[test]
    fn a_partition_narrows_the_cursor_to_itself() {
        let p = Partition {
            idx: 1,
            count: 4,
            start_ord: 250,
            end_ord: 500,
            start_pct: 25.0,
            end_pct: 50.0,
            base_extent: 1000,
        };
        let over = Value::Json(p.to_json().to_string().into());
        assert_eq!(narrowed("q", &over, 0, 1000, None).unwrap(), p);
        assert!(narrowed("q", &over, 0, 400, None).unwrap_err().contains("lies outside the cursor's range 0..400"));
        let list = Value::Json(serde_json::json!([p.to_json()]).to_string().into());
        assert_eq!(narrowed("q", &list, 0, 1000, None).unwrap(), p, "a list of one needs no pick");
        let spec = narrowed("q", &Value::str("25%..75%"), 0, 100, None).unwrap();
        assert_eq!((spec.idx, spec.count, spec.start_ord, spec.end_ord, spec.base_extent), (0, 1, 25, 75, 100));
    }

    #[test]
    fn several_partitions_leave_the_pick_to_the_host() {
        // Upstream's example: over "20%,30%,*", partition 1 of [0, 1000000) is [200000, 500000).
        let over = Value::str("20%,30%,*");
        let p = narrowed("q", &over, 0, 1_000_000, Some(1)).unwrap();
        assert_eq!((p.idx, p.count, p.start_ord, p.end_ord), (1, 3, 200_000, 500_000));
        let unset = narrowed("q", &over, 0, 1_000_000, None).unwrap_err();
        assert!(unset.starts_with("cursor 'q' resolves to 3 partitions; pick one by its index, 0..2"), "{unset}");
        let outside = narrowed("q", &over, 0, 1_000_000, Some(3)).unwrap_err();
        assert_eq!(outside, "cursor 'q' resolves to 3 partitions; partition 3 is out of range (0..2)");
        assert_eq!(narrowed("q", &Value::str("*/4"), 0, 100, Some(3)).unwrap().start_ord, 75);
        assert!(is_one_range("[25%..75%)") && !is_one_range("*/4") && !is_one_range("20%,30%,*"));
    }
}
