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

use crate::node::kit::value_fn;
use crate::node::{wire, wire_any, NodeDef, NodeError, Outputs};
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

/// The slice a cursor's `over` value names within `[start, end)`: a
/// one-range spec (a `str`, see [`slice`]) as partition 0 of 1, or a
/// partition (`json`, from `partitions(...)` and the other partition
/// nodes), which must lie within the cursor's range, as it is.
pub fn narrowed(over: &Value, start: u64, end: u64) -> Result<Partition, String> {
    if let Value::Json(text) = over {
        let p =
            serde_json::from_str::<serde_json::Value>(text).ok().as_ref().and_then(Partition::from_json).ok_or_else(
                || format!("`over` takes a partition (a JSON object with start_ord <= end_ord), got {text}"),
            )?;
        if p.start_ord < start || p.end_ord > end {
            return Err(format!(
                "the partition {}..{} lies outside the cursor's range {start}..{end}",
                p.start_ord, p.end_ord
            ));
        }
        return Ok(p);
    }
    let Some(spec) = over.as_str() else {
        return Err("`over` takes a one-range spec (str) or a partition (json)".into());
    };
    let (lo, hi, start_pct, end_pct) = slice(spec, start, end)?;
    Ok(Partition { idx: 0, count: 1, start_ord: lo, end_ord: hi, start_pct, end_pct, base_extent: end - start })
}

/// `__cursor_slice`: the slice of `[start, end)` an `over` value names (a
/// one-range spec or a partition): its fields and the partition itself.
pub const CURSOR_SLICE: NodeDef = NodeDef {
    name: "__cursor_slice",
    category: "cursor",
    doc: "The slice of [start, end) an `over` value names — a one-range spec (0..50%, 100..1000, 0.25..0.75) or a partition: (start_ordinal, end_ordinal, start_pct, end_pct, idx, partition_count, cursor).",
    params: &[wire_any("over"), wire("start", U64), wire("end", U64)],
    outputs: Outputs::Named(&[
        ("start_ordinal", U64),
        ("end_ordinal", U64),
        ("start_pct", F64),
        ("end_pct", F64),
        ("idx", U64),
        ("partition_count", U64),
        ("cursor", Json),
    ]),
    build: |c| {
        if !matches!(c.wire_types.first(), Some(Str | Json)) {
            return Err(format!(
                "a cursor's `over` takes a one-range spec (str) or a partition (json), not {}",
                c.wire_types.first().map_or("nothing".into(), |t| t.keyword())
            ));
        }
        Ok(value_fn(|args, outs| {
            let (Value::U64(start), Value::U64(end)) = (args.get(1), args.get(2)) else {
                return Err(NodeError::new("internal: __cursor_slice takes (str|json, u64, u64)"));
            };
            let p = narrowed(args.get(0), *start, *end).map_err(NodeError::new)?;
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
        assert_eq!(narrowed(&over, 0, 1000).unwrap(), p);
        assert!(narrowed(&over, 0, 400).unwrap_err().contains("lies outside the cursor's range 0..400"));
        let spec = narrowed(&Value::str("25%..75%"), 0, 100).unwrap();
        assert_eq!((spec.idx, spec.count, spec.start_ord, spec.end_ord, spec.base_extent), (0, 1, 25, 75, 100));
    }
}
