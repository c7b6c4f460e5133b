//! Partition family: cutting an ordinal range into partitions by a spec
//! (`partitions("20%,30%,*", 1000)`) and reading or deriving partitions
//! (`cardinality`, `start_of`, `mod_in`, `at`, `subdivide`, ...).
//!
//! A partition travels on a wire as a JSON object — `idx`, `count`,
//! `start_ord`, `end_ord` (exclusive), `start_pct`, `end_pct`,
//! `base_extent` and `cardinality`, upstream's JSON form of its partition
//! value — and a partition list as a JSON array of them.
//!
//! The spec language is upstream's: `chunking [in window] [order]`, where
//! the chunking is a single range (`0..50%`, `100..1000`), a list of deltas
//! (`2%,10%,*`, `1000,10%,*`, `90%,1%,...`, `90%,*/10`, `1%x5`, `~10%` for
//! a gap) or a recipe (`linear:4`, `ratios:1,1,2`, `mul:0.5`, `bin:5`,
//! `fib:7`, `ln:5`, `geom:5,2`, `zipf:1.1,5`, `pareto:1,5`,
//! `front_heavy:4`, `back_heavy:4`); a window (`in 25%..75%`) scopes the
//! chunking; the order is `unchanged`, `smallest_first`, `largest_first` or
//! `random`. Boundaries are rounded once at their exact cumulative position,
//! so values and messages match upstream's.

use crate::node::kit::value_fn;
use crate::node::{konst_or, wire, Args, Lit, NodeDef, NodeError, Outputs, Testing};
use crate::nodes::hash::splitmix64;
use crate::types::PortType::{Json, Str, U64};
use crate::value::Value;
use serde_json::{json, Value as J};
use std::fmt;

/// The partition the partition nodes' corner calls read (see
/// [`Testing::corner_call`]): one of a list resolved from four specs, picked
/// by `b` (some picks fail: past a one-partition list).
macro_rules! corner_partition {
    () => {
        r#"partition_at(partitions(fixed_values_str(a, "2%,10%,*", "linear:4", "~50%,1,*", "0..1%"), 1000), mod(b, 3))"#
    };
}

/// One bound or entry of a spec.
#[derive(Debug, Clone, PartialEq)]
pub enum Bound {
    /// A percentage of the extent, in [0, 100] (`53%`).
    Pct(f64),
    /// A fraction of the extent, in [0, 1] (`0.53`).
    Frac(f64),
    /// An absolute ordinal or ordinal count (`1000`).
    Ord(u64),
    /// The remainder as one partition (`*`).
    Star,
    /// The preceding delta repeated to the end (`...`).
    Fill,
    /// The remainder in N near-equal partitions (`*/N`).
    StarSplit(u64),
    /// The remainder divided by recipe weights summing to 100 (`*/fib:5`).
    StarShaped(Vec<f64>),
    /// Extent consumed without a partition (`~10%`).
    Gap(Box<Bound>),
}

impl Bound {
    /// The ordinal this sized bound names within `[base_start, base_end]`
    /// (`None` for tails and gaps).
    fn resolve_against(&self, base_start: u64, base_end: u64) -> Option<u64> {
        let extent = base_end.saturating_sub(base_start);
        match self {
            Bound::Pct(p) => Some(base_start + ((p / 100.0) * extent as f64).round() as u64),
            Bound::Frac(f) => Some(base_start + (f * extent as f64).round() as u64),
            Bound::Ord(o) => Some(base_start.saturating_add(*o).min(base_end)),
            _ => None,
        }
    }

    fn is_tail(&self) -> bool {
        matches!(self, Bound::Star | Bound::Fill | Bound::StarSplit(_) | Bound::StarShaped(_))
    }

    fn is_sized(&self) -> bool {
        matches!(self, Bound::Pct(_) | Bound::Frac(_) | Bound::Ord(_))
    }
}

impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Bound::Pct(p) => write!(f, "{p}%"),
            Bound::Frac(v) => write!(f, "{v}"),
            Bound::Ord(o) => write!(f, "{o}"),
            Bound::Star => write!(f, "*"),
            Bound::Fill => write!(f, "..."),
            Bound::StarSplit(n) => write!(f, "*/{n}"),
            Bound::StarShaped(w) => {
                let parts: Vec<String> = w.iter().map(|x| format!("{x:.3}")).collect();
                write!(f, "*/shaped:{}", parts.join(","))
            }
            Bound::Gap(inner) => write!(f, "~{inner}"),
        }
    }
}

/// The iteration order of a resolved list (sizes are cardinalities).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PartitionOrder {
    /// Generation order.
    #[default]
    Unchanged,
    /// Smallest cardinality first (stable).
    SmallestFirst,
    /// Largest cardinality first (stable).
    LargestFirst,
    /// A shuffle seeded by the spec itself.
    Random,
}

/// How a spec carves its domain.
#[derive(Debug, Clone, PartialEq)]
pub enum Chunking {
    /// One explicit `start..end` partition.
    SingleRange {
        /// Where the partition starts.
        start: Bound,
        /// Where it ends (exclusive).
        end: Bound,
    },
    /// Deltas walked from the domain's start (recipes become percentages).
    DeltaList {
        /// The entries, in order.
        deltas: Vec<Bound>,
    },
}

/// A parsed spec (its `Debug` text seeds the `random` order, as upstream's does).
#[derive(Debug, Clone, PartialEq)]
pub struct PartitionSpec {
    /// The shape that carves the (windowed) domain.
    pub chunking: Chunking,
    /// The `in start..end` window, if any.
    pub window: Option<(Bound, Bound)>,
    /// The iteration order.
    pub order: PartitionOrder,
}

/// One resolved partition: the ordinals `[start_ord, end_ord)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Partition {
    /// Position in the generated list.
    pub idx: u64,
    /// Partitions in the list.
    pub count: u64,
    /// First ordinal.
    pub start_ord: u64,
    /// One past the last ordinal.
    pub end_ord: u64,
    /// Start as a percentage of the base extent.
    pub start_pct: f64,
    /// End as a percentage of the base extent.
    pub end_pct: f64,
    /// The extent the partition was resolved against.
    pub base_extent: u64,
}

impl Partition {
    /// The number of ordinals.
    pub fn cardinality(&self) -> u64 {
        self.end_ord - self.start_ord
    }

    /// The JSON form a wire carries.
    pub fn to_json(&self) -> J {
        json!({
            "idx": self.idx,
            "count": self.count,
            "start_ord": self.start_ord,
            "end_ord": self.end_ord,
            "start_pct": self.start_pct,
            "end_pct": self.end_pct,
            "base_extent": self.base_extent,
            "cardinality": self.cardinality(),
        })
    }

    /// The partition a JSON object describes.
    pub fn from_json(j: &J) -> Option<Partition> {
        let int = |k: &str| j.get(k).and_then(J::as_u64);
        let float = |k: &str| j.get(k).and_then(J::as_f64);
        let (start_ord, end_ord) = (int("start_ord")?, int("end_ord")?);
        (end_ord >= start_ord).then_some(Partition {
            idx: int("idx").unwrap_or(0),
            count: int("count").unwrap_or(1),
            start_ord,
            end_ord,
            start_pct: float("start_pct").unwrap_or(0.0),
            end_pct: float("end_pct").unwrap_or(0.0),
            base_extent: int("base_extent").unwrap_or(end_ord),
        })
    }
}

/// Parses a spec (see the module documentation for the language).
pub fn parse(input: &str) -> Result<PartitionSpec, String> {
    let mut tokens: Vec<&str> = input.split_whitespace().collect();
    if tokens.is_empty() {
        return Err(format!("empty spec: `{input}`"));
    }
    let mut order = PartitionOrder::Unchanged;
    if tokens.len() >= 2 {
        let last = tokens[tokens.len() - 1];
        if last.chars().all(|c| c.is_ascii_alphabetic() || c == '_') && last != "in" {
            order = match last {
                "unchanged" => PartitionOrder::Unchanged,
                "smallest_first" => PartitionOrder::SmallestFirst,
                "largest_first" => PartitionOrder::LargestFirst,
                "random" => PartitionOrder::Random,
                "ascending" | "descending" => {
                    let (spelled, position) = if last == "ascending" {
                        ("smallest_first", "unchanged")
                    } else {
                        ("largest_first", "unchanged")
                    };
                    return Err(format!(
                        "`{last}`: partition order sorts key on partition SIZE, not ordinal position (position order is always the generation order — that's `{position}`). Spell it `{spelled}`"
                    ));
                }
                other => {
                    return Err(format!(
                        "unknown order `{other}` — supported: unchanged, smallest_first, largest_first, random"
                    ))
                }
            };
            tokens.pop();
        }
    }
    let ins: Vec<usize> = tokens.iter().enumerate().filter(|(_, t)| **t == "in").map(|(i, _)| i).collect();
    let (chunk_tokens, window_tokens) = match ins.as_slice() {
        [] => (&tokens[..], None),
        [0] => return Err(format!("`in` without a chunking spec before it: `{input}`")),
        [i] if *i == tokens.len() - 1 => return Err(format!("`in` without a window range after it: `{input}`")),
        [i] => (&tokens[..*i], Some(&tokens[*i + 1..])),
        _ => return Err(format!("at most one `in <window>` clause is allowed: `{input}`")),
    };
    let window = match window_tokens {
        None => None,
        Some(w) => Some(parse_window(&without_brackets(w), input)?),
    };
    let chunking = parse_chunking(&without_brackets(chunk_tokens), input)?;
    Ok(PartitionSpec { chunking, window, order })
}

/// The tokens joined, the advisory bracket marks removed.
fn without_brackets(tokens: &[&str]) -> String {
    tokens.concat().chars().filter(|c| !matches!(c, '[' | ']' | '(' | ')')).collect()
}

fn parse_window(text: &str, input: &str) -> Result<(Bound, Bound), String> {
    let Some((lhs, rhs)) = text.split_once("..") else {
        return Err(format!("the window after `in` must be a `start..end` range; got `{text}` in `{input}`"));
    };
    let (start, end) = (parse_bound(lhs)?, parse_bound(rhs)?);
    if !start.is_sized() || !end.is_sized() {
        return Err(format!(
            "window endpoints must be sized values (percentage, fraction, or ordinal); got `{text}` in `{input}`"
        ));
    }
    Ok((start, end))
}

/// The words of a fill token given nothing to repeat.
const FILL_NEEDS_DELTA: &str = "the fill token `...` repeats the preceding delta until the extent is used up; it needs at least one delta before it (e.g. `1%,...`)";

fn parse_chunking(text: &str, input: &str) -> Result<Chunking, String> {
    if text.is_empty() {
        return Err(format!("empty spec: `{input}`"));
    }
    if let Some((name, args)) = split_recipe(text) {
        let deltas = normalise_weights(&recipe_weights(name, args)?)?.into_iter().map(Bound::Pct).collect();
        return Ok(Chunking::DeltaList { deltas });
    }
    if text == "..." {
        return Err(FILL_NEEDS_DELTA.into());
    }
    if text.starts_with("*/") || text.contains(",*/") || text.contains(',') {
        return parse_delta_list(text, input);
    }
    if let Some((lhs, rhs)) = text.split_once("..") {
        let (start, end) = (parse_bound(lhs)?, parse_bound(rhs)?);
        if !start.is_sized() || !end.is_sized() {
            return Err(format!(
                "`*`, `...`, `~`, and `*/N` are only valid inside a comma-separated delta list, not a `..` range; got `{input}`"
            ));
        }
        return Ok(Chunking::SingleRange { start, end });
    }
    parse_delta_list(text, input)
}

fn parse_delta_list(text: &str, input: &str) -> Result<Chunking, String> {
    let (head, star_tail) = if let Some(rest) = text.strip_prefix("*/") {
        ("", Some(rest))
    } else if let Some(at) = text.find(",*/") {
        (&text[..at], Some(&text[at + 3..]))
    } else {
        (text, None)
    };
    let mut deltas = Vec::new();
    if !head.is_empty() {
        for entry in head.split(',') {
            if entry.is_empty() {
                return Err(format!("empty entry in delta list: `{input}`"));
            }
            deltas.extend(parse_delta_entry(entry)?);
        }
    } else if star_tail.is_none() {
        return Err(format!("empty spec: `{input}`"));
    }
    if let Some(tail) = star_tail {
        deltas.push(parse_star_tail(tail)?);
    }
    let tails = deltas.iter().filter(|b| b.is_tail()).count();
    if tails > 1 {
        return Err(format!(
            "at most one remainder token (`*`, `...`, `*/N`, or `*/recipe`) is allowed in a delta list; got {tails} in `{input}`"
        ));
    }
    if let Some(at) = deltas.iter().position(|b| matches!(b, Bound::Fill | Bound::StarSplit(_) | Bound::StarShaped(_)))
    {
        if at != deltas.len() - 1 {
            return Err(format!(
                "`{}` consumes the rest of the extent and must be the last entry in the delta list; got `{input}`",
                deltas[at]
            ));
        }
        if deltas[at] == Bound::Fill {
            if at == 0 {
                return Err(FILL_NEEDS_DELTA.into());
            }
            if matches!(deltas[at - 1], Bound::Gap(_)) {
                return Err(format!(
                    "`...` after a gap would emit nothing — the fill token repeats the immediately preceding delta. Put a sized delta before `...`, in `{input}`"
                ));
            }
        }
    }
    if !deltas.iter().any(|b| b.is_sized() || b.is_tail()) {
        return Err(format!("spec emits no partitions — every entry is a gap: `{input}`"));
    }
    Ok(Chunking::DeltaList { deltas })
}

/// `<digits>` after an `x`: a repetition count.
fn repetition(text: &str) -> Option<(&str, &str)> {
    text.split_once('x')
        .filter(|(lhs, rhs)| !lhs.is_empty() && !rhs.is_empty() && rhs.bytes().all(|b| b.is_ascii_digit()))
}

fn parse_delta_entry(raw: &str) -> Result<Vec<Bound>, String> {
    if let Some(rest) = raw.strip_prefix('~') {
        if rest.split_once('x').is_some_and(|(_, rep)| !rep.is_empty() && rep.bytes().all(|b| b.is_ascii_digit())) {
            return Err(format!(
                "`~{rest}`: repetition does not apply to gaps — size the gap directly (adjacent gaps are one gap)"
            ));
        }
        let inner = parse_bound(rest)?;
        if !inner.is_sized() {
            return Err(format!(
                "`~{rest}`: a gap requires a sized value (percentage, fraction, or ordinal). To ignore the trailing remainder, just end the list without a tail token — under-summing lists drop the gap"
            ));
        }
        return Ok(vec![Bound::Gap(Box::new(inner))]);
    }
    if let Some((lhs, rhs)) = repetition(raw) {
        let n: u64 = rhs.parse().map_err(|_| format!("invalid repetition count in `{raw}`"))?;
        if n == 0 {
            return Err(format!("`{raw}`: the repetition count must be >= 1"));
        }
        let bound = parse_bound(lhs)?;
        if !bound.is_sized() {
            return Err(format!("`{raw}`: repetition applies to sized deltas (percentage, fraction, or ordinal) only"));
        }
        // More entries than ordinals could ever be is no spec (upstream
        // would try to allocate them); refuse it before allocating.
        let n = usize::try_from(n)
            .ok()
            .filter(|&n| n <= MAX_ENTRIES)
            .ok_or_else(|| format!("`{raw}`: a repetition of more than {MAX_ENTRIES} entries is refused"))?;
        return Ok(vec![bound; n]);
    }
    Ok(vec![parse_bound(raw)?])
}

/// Most entries a repetition or recipe may produce.
pub const MAX_ENTRIES: usize = 1 << 20;

fn parse_star_tail(divisor: &str) -> Result<Bound, String> {
    if !divisor.contains(':') && divisor.contains(',') {
        let count = divisor.split(',').next().unwrap_or(divisor);
        return Err(format!(
            "`*/{count}` consumes the rest of the extent and must be the last entry in the delta list; got trailing entries after it"
        ));
    }
    if let Some((name, args)) = split_recipe(divisor) {
        if name == "linear" {
            return Err(format!(
                "`*/linear:{args}`: spell an equal-count remainder split as `*/{args}` — `*/N` is the canonical form"
            ));
        }
        return Ok(Bound::StarShaped(normalise_weights(&recipe_weights(name, args)?)?));
    }
    if divisor.contains('%') || divisor.contains('.') {
        return Err(format!(
            "`*/{divisor}`: the divisor after `*/` is a chunk count and must be a bare integer (e.g. `*/10` = remainder in 10 equal chunks). For fixed-size chunks repeated until the extent is used up, spell the size as a delta followed by the fill token: `{divisor},...`"
        ));
    }
    let n: u64 = divisor.parse().map_err(|_| {
        format!("invalid remainder split `*/{divisor}`: expected `*/N` with integer N >= 1, or `*/recipe:args`")
    })?;
    if n == 0 {
        return Err("`*/0`: the remainder split count must be >= 1".into());
    }
    Ok(Bound::StarSplit(n))
}

/// `name:args` with an alphabetic (or `_`) name.
fn split_recipe(s: &str) -> Option<(&str, &str)> {
    let (name, args) = s.split_once(':')?;
    (!name.is_empty() && name.chars().all(|c| c.is_ascii_alphabetic() || c == '_')).then_some((name, args))
}

fn parse_bound(raw: &str) -> Result<Bound, String> {
    let s = raw.trim();
    if s.is_empty() {
        return Err("empty bound".into());
    }
    if s == "..." {
        return Ok(Bound::Fill);
    }
    if s == "*" || s == "*%" {
        return Ok(Bound::Star);
    }
    if let Some(number) = s.strip_suffix('%') {
        let value: f64 =
            number.trim().parse().map_err(|_| format!("invalid percentage `{raw}`: expected a number before `%`"))?;
        if !(0.0..=100.0).contains(&value) {
            return Err(format!("percentage `{raw}` out of range — must be in [0%, 100%]"));
        }
        return Ok(Bound::Pct(value));
    }
    if s.contains('.') {
        let value: f64 = s.parse().map_err(|_| format!("invalid decimal `{raw}`"))?;
        if !(0.0..=1.0).contains(&value) {
            let digits = raw.replace('.', "");
            return Err(format!(
                "decimal `{raw}` is ambiguous — fractions must be in [0.0, 1.0]; did you mean `{value}%` (percentage), `0.0{digits}` (fraction), or `{digits}` (literal ordinal)?"
            ));
        }
        return Ok(Bound::Frac(value));
    }
    s.parse().map(Bound::Ord).map_err(|_| {
        format!("invalid number `{raw}`: expected an integer ordinal, decimal fraction (0.x), or `N%` percentage")
    })
}

fn int_arg(arg: &str, recipe: &str) -> Result<u64, String> {
    arg.parse().map_err(|_| format!("invalid integer arg `{arg}` for {recipe}"))
}

fn float_arg(arg: &str, recipe: &str) -> Result<f64, String> {
    arg.parse().map_err(|_| format!("invalid number arg `{arg}` for {recipe}"))
}

/// The one count argument of `name:N`, at least 1.
fn count_arg(args: &[&str], name: &str, what: &str) -> Result<u64, String> {
    if args.len() != 1 {
        return Err(format!("{name}:N expects exactly 1 argument{what}; got {}", args.len()));
    }
    match int_arg(args[0], name)? {
        0 => Err(format!("{name}:N requires N >= 1")),
        n if n as usize > MAX_ENTRIES => Err(format!("{name}:N allows at most {MAX_ENTRIES} terms")),
        n => Ok(n),
    }
}

/// The raw weights of recipe `name` over its comma-separated `args`.
fn recipe_weights(name: &str, args: &str) -> Result<Vec<f64>, String> {
    let args: Vec<&str> = args.split(',').map(str::trim).collect();
    match name {
        "linear" => Ok(vec![1.0; count_arg(&args, "linear", " (the partition count)")? as usize]),
        "ratios" => args.iter().map(|a| float_arg(a, "ratios")).collect(),
        "mul" => recipe_mul(&args),
        "bin" => {
            let n = count_arg(&args, "bin", " (the term count)")?;
            let degree = n - 1;
            let mut coefficients = vec![1.0f64; n as usize];
            for k in 1..=degree {
                coefficients[k as usize] = coefficients[(k - 1) as usize] * ((degree - k + 1) as f64) / (k as f64);
            }
            Ok(coefficients)
        }
        "fib" => {
            let n = count_arg(&args, "fib", " (the term count)")?;
            let (mut a, mut b) = (1u64, 2u64);
            Ok((0..n)
                .map(|_| {
                    let term = a as f64;
                    (a, b) = (b, a.saturating_add(b));
                    term
                })
                .collect())
        }
        "ln" => Ok((1..=count_arg(&args, "ln", " (the term count)")?).map(|i| (1.0 + i as f64).ln()).collect()),
        "geom" => {
            let [n, r] = two_args(&args, "geom:N,R")?;
            let (n, r) = (int_arg(n, "geom")?, float_arg(r, "geom")?);
            if n == 0 {
                return Err("geom:N,R requires N >= 1".into());
            }
            if r <= 0.0 {
                return Err(format!("geom:N,R requires R > 0; got {r}"));
            }
            bounded(n, "geom")?;
            let mut current = 1.0;
            Ok((0..n)
                .map(|_| {
                    let term = current;
                    current *= r;
                    term
                })
                .collect())
        }
        "zipf" => {
            let (s, n) = exponent_and_count(&args, "zipf", "s")?;
            Ok((1..=n).map(|i| 1.0 / (i as f64).powf(s)).collect())
        }
        "pareto" => {
            let (alpha, n) = exponent_and_count(&args, "pareto", "alpha")?;
            Ok((1..=n).map(|i| (1.0 / i as f64).powf(alpha)).collect())
        }
        "front_heavy" => Ok((1..=count_arg(&args, "front_heavy", "")?).rev().map(|i| i as f64).collect()),
        "back_heavy" => Ok((1..=count_arg(&args, "back_heavy", "")?).map(|i| i as f64).collect()),
        _ => Err(format!(
            "unknown recipe `{name}` — supported: linear, ratios, mul, bin, fib, ln, geom, zipf, pareto, front_heavy, back_heavy"
        )),
    }
}

/// The `<exponent>,N` arguments of recipe `name` (`zipf:s,N`,
/// `pareto:alpha,N`): a positive exponent and a count of at least 1.
fn exponent_and_count(args: &[&str], name: &str, exponent: &str) -> Result<(f64, u64), String> {
    let form = format!("{name}:{exponent},N");
    let [e, n] = two_args(args, &form)?;
    let (e, n) = (float_arg(e, name)?, int_arg(n, name)?);
    if e <= 0.0 {
        return Err(format!("{form} requires {exponent} > 0; got {e}"));
    }
    if n == 0 {
        return Err(format!("{form} requires N >= 1"));
    }
    bounded(n, name)?;
    Ok((e, n))
}

fn bounded(n: u64, name: &str) -> Result<(), String> {
    if n as usize > MAX_ENTRIES {
        return Err(format!("{name} allows at most {MAX_ENTRIES} terms"));
    }
    Ok(())
}

fn two_args<'a>(args: &[&'a str], form: &str) -> Result<[&'a str; 2], String> {
    match args {
        [a, b] => Ok([a, b]),
        _ => Err(format!("{form} expects exactly 2 arguments; got {}", args.len())),
    }
}

/// `mul:R` or `mul:S,R`: a geometric run from S by ratio R, ending once a
/// shrinking term falls under 0.1% of the first or a growing one passes
/// 1000 times it (that term included), at most 64 terms.
fn recipe_mul(args: &[&str]) -> Result<Vec<f64>, String> {
    let (start, ratio) = match args {
        [r] => (1.0, float_arg(r, "mul")?),
        [s, r] => (float_arg(s, "mul")?, float_arg(r, "mul")?),
        _ => return Err(format!("mul:R or mul:S,R expects 1 or 2 arguments; got {}", args.len())),
    };
    if start <= 0.0 {
        return Err(format!("mul:S,R requires S > 0; got {start}"));
    }
    if ratio <= 0.0 {
        return Err(format!("mul:R requires R > 0; got {ratio}"));
    }
    let mut weights = Vec::new();
    let mut current = start;
    for _ in 0..64 {
        if !current.is_finite() || current <= 0.0 {
            break;
        }
        weights.push(current);
        if ratio < 1.0 && current < start * 0.001 {
            break;
        }
        current *= ratio;
        if ratio >= 1.0 && current >= start * 1000.0 {
            if current.is_finite() {
                weights.push(current);
            }
            break;
        }
    }
    if weights.is_empty() {
        return Err(format!("mul:{start},{ratio} produced no terms — pick a larger start"));
    }
    Ok(weights)
}

/// Weights scaled to sum to 100 (non-negative, finite, positive sum).
fn normalise_weights(weights: &[f64]) -> Result<Vec<f64>, String> {
    if weights.iter().any(|w| !w.is_finite() || *w < 0.0) {
        return Err("recipe produced non-finite or negative weights".into());
    }
    let sum: f64 = weights.iter().sum();
    if sum <= 0.0 {
        return Err("recipe produced zero total weight".into());
    }
    Ok(weights.iter().map(|w| w / sum * 100.0).collect())
}

/// Resolves `spec` against the ordinals `[base_start, base_end)`.
pub fn resolve(spec: &PartitionSpec, base_start: u64, base_end: u64) -> Result<Vec<Partition>, String> {
    if base_end < base_start {
        return Err(format!("resolve: base_end ({base_end}) < base_start ({base_start})"));
    }
    let frame = Frame { base_start, base_extent: base_end - base_start };
    let (dom_start, dom_end) = match &spec.window {
        None => (base_start, base_end),
        Some((ws, we)) => {
            let s = ws.resolve_against(base_start, base_end).unwrap_or(base_start);
            let e = we.resolve_against(base_start, base_end).unwrap_or(base_end);
            if e < s {
                return Err(format!(
                    "window `in {ws}..{we}` is empty or reversed against base=[{base_start}..{base_end}): start={s}, end={e}"
                ));
            }
            (s, e)
        }
    };
    let mut partitions = match &spec.chunking {
        Chunking::SingleRange { start, end } => {
            let s = start.resolve_against(dom_start, dom_end).unwrap_or(dom_start);
            let e = end.resolve_against(dom_start, dom_end).unwrap_or(dom_end);
            if e < s {
                return Err(format!(
                    "resolved range is empty or reversed: start={s}, end={e} (spec start={start}, end={end}, base=[{dom_start}..{dom_end}))"
                ));
            }
            if s == e {
                return Err(format!(
                    "range `{start}..{end}` resolves to zero ordinals ([{s}..{e}) against base=[{dom_start}..{dom_end})) — the slice rounds to nothing at this extent; widen the range or use a larger extent"
                ));
            }
            vec![frame.partition(0, s, e)]
        }
        Chunking::DeltaList { deltas } => resolve_deltas(deltas, dom_start, dom_end, frame)?,
    };
    let count = partitions.len() as u64;
    for p in &mut partitions {
        p.count = count;
    }
    match spec.order {
        PartitionOrder::Unchanged => {}
        PartitionOrder::SmallestFirst => partitions.sort_by_key(Partition::cardinality),
        PartitionOrder::LargestFirst => partitions.sort_by_key(|p| std::cmp::Reverse(p.cardinality())),
        PartitionOrder::Random => {
            let mut state = xxhash_rust::xxh3::xxh3_64(format!("{spec:?}").as_bytes());
            for i in (1..partitions.len()).rev() {
                // One step of the SplitMix64 stream: the finalizer adds the
                // golden-ratio increment the state advances by.
                let draw = splitmix64(state);
                state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
                partitions.swap(i, (draw % (i as u64 + 1)) as usize);
            }
        }
    }
    Ok(partitions)
}

/// The frame partitions are labelled in: the whole base, whatever the window.
#[derive(Clone, Copy)]
struct Frame {
    base_start: u64,
    base_extent: u64,
}

impl Frame {
    fn pct(&self, ordinal: u64) -> f64 {
        if self.base_extent == 0 {
            0.0
        } else {
            (ordinal - self.base_start) as f64 * 100.0 / self.base_extent as f64
        }
    }

    fn partition(&self, idx: u64, start_ord: u64, end_ord: u64) -> Partition {
        Partition {
            idx,
            count: 0,
            start_ord,
            end_ord,
            start_pct: self.pct(start_ord),
            end_pct: self.pct(end_ord),
            base_extent: self.base_extent,
        }
    }
}

/// The exact (unrounded) ordinals a sized delta or gap spans.
fn exact_ordinals(b: &Bound, extent: u64) -> f64 {
    match b {
        Bound::Pct(p) => (p / 100.0) * extent as f64,
        Bound::Frac(f) => f * extent as f64,
        Bound::Ord(o) => *o as f64,
        Bound::Gap(inner) => exact_ordinals(inner, extent),
        _ => 0.0,
    }
}

/// Most partitions one resolution may produce.
pub const MAX_PARTITIONS: usize = 1 << 20;

fn too_many() -> String {
    format!("the spec produces more than {MAX_PARTITIONS} partitions")
}

fn resolve_deltas(deltas: &[Bound], dom_start: u64, dom_end: u64, frame: Frame) -> Result<Vec<Partition>, String> {
    let extent = dom_end - dom_start;
    let sized: f64 = deltas.iter().filter(|b| !b.is_tail()).map(|b| exact_ordinals(b, extent)).sum();
    let tolerance = 1e-6 * (extent as f64).max(1.0);
    if sized > extent as f64 + tolerance {
        return Err(format!(
            "delta list sums to {} ordinals, exceeding the cursor's extent {extent}; trim the list or use a `*` remainder to absorb the overflow",
            sized.round() as u64
        ));
    }
    let mut partitions: Vec<Partition> = Vec::new();
    let mut cursor = dom_start;
    let mut exact = 0.0f64;
    let boundary = |exact: f64| (dom_start + exact.round() as u64).min(dom_end);
    let push = |partitions: &mut Vec<Partition>, start: u64, end: u64| -> Result<(), String> {
        if partitions.len() >= MAX_PARTITIONS {
            return Err(too_many());
        }
        partitions.push(frame.partition(partitions.len() as u64, start, end));
        Ok(())
    };
    for (i, delta) in deltas.iter().enumerate() {
        match delta {
            Bound::Star => {
                exact += extent as f64 - sized;
                let next = boundary(exact);
                push(&mut partitions, cursor, next)?;
                cursor = next;
            }
            Bound::Fill => {
                let chunk = exact_ordinals(&deltas[i - 1], extent);
                if chunk < 1.0 {
                    return Err(format!(
                        "fill token `...` would repeat a delta of less than one ordinal (`{}` resolves to {chunk:.3} ordinals against extent {extent})",
                        deltas[i - 1]
                    ));
                }
                while cursor < dom_end {
                    exact += chunk;
                    let next = boundary(exact);
                    push(&mut partitions, cursor, next)?;
                    cursor = next;
                }
            }
            Bound::StarSplit(n) => {
                let remainder = dom_end - cursor;
                if remainder == 0 {
                    return Err(format!(
                        "`*/{n}` has no remainder to divide — the preceding deltas already cover the extent {extent}"
                    ));
                }
                if *n > remainder {
                    return Err(format!(
                        "`*/{n}` cannot divide a remainder of {remainder} ordinals into {n} non-empty partitions"
                    ));
                }
                if *n as usize > MAX_PARTITIONS {
                    return Err(too_many());
                }
                for (s, e) in split_evenly(cursor, dom_end, *n) {
                    push(&mut partitions, s, e)?;
                }
                cursor = dom_end;
            }
            Bound::StarShaped(weights) => {
                let remainder = dom_end - cursor;
                if remainder == 0 {
                    return Err(format!(
                        "`*/<recipe>` has no remainder to divide — the preceding deltas already cover the extent {extent}"
                    ));
                }
                let start = cursor;
                let mut cumulative = 0.0f64;
                for w in weights {
                    cumulative += w;
                    let next = (start + ((cumulative / 100.0) * remainder as f64).round() as u64).min(dom_end);
                    if next == cursor {
                        return Err(format!(
                            "`*/<recipe>` produces an empty partition — weight {w:.3}% of a {remainder}-ordinal remainder rounds to zero ordinals; use fewer/coarser weights or a larger remainder"
                        ));
                    }
                    push(&mut partitions, cursor, next)?;
                    cursor = next;
                }
                exact += remainder as f64;
            }
            Bound::Gap(inner) => {
                exact += exact_ordinals(inner, extent);
                cursor = boundary(exact);
            }
            sized_delta => {
                exact += exact_ordinals(sized_delta, extent);
                let next = boundary(exact);
                push(&mut partitions, cursor, next)?;
                cursor = next;
            }
        }
    }
    Ok(partitions)
}

/// `[start, end)` in `n` (>= 1) contiguous chunks whose sizes differ by at
/// most one: boundary `i` at `start + round(i * span / n)`.
pub fn split_evenly(start: u64, end: u64, n: u64) -> Vec<(u64, u64)> {
    let span = u128::from(end - start);
    let n_wide = u128::from(n);
    let boundary = |i: u64| start + ((u128::from(i) * span + n_wide / 2) / n_wide) as u64;
    (0..n).map(|i| (boundary(i), boundary(i + 1))).collect()
}

/// `p` split into `n` near-equal sub-partitions (upstream's `subdivide`).
pub fn subdivide(p: &Partition, n: u64) -> Result<Vec<Partition>, String> {
    let card = p.cardinality();
    if n == 0 {
        return Err("subdivide(p, 0): the sub-partition count must be >= 1".into());
    }
    if n > card {
        return Err(format!(
            "subdivide(p, {n}): cannot divide partition #{} of {card} ordinals into {n} non-empty sub-partitions",
            p.idx
        ));
    }
    if n as usize > MAX_PARTITIONS {
        return Err(too_many());
    }
    let pct_at = |ord: u64| p.start_pct + (ord - p.start_ord) as f64 / card as f64 * (p.end_pct - p.start_pct);
    Ok(split_evenly(p.start_ord, p.end_ord, n)
        .into_iter()
        .enumerate()
        .map(|(i, (start_ord, end_ord))| Partition {
            idx: i as u64,
            count: n,
            start_ord,
            end_ord,
            start_pct: pct_at(start_ord),
            end_pct: pct_at(end_ord),
            base_extent: p.base_extent,
        })
        .collect())
}

/// The partition wire `i` carries.
fn partition_arg(args: &Args<'_>, i: usize) -> Result<Partition, NodeError> {
    match args.get(i) {
        Value::Json(text) => serde_json::from_str::<J>(text).ok().as_ref().and_then(Partition::from_json),
        _ => None,
    }
    .ok_or_else(|| NodeError::new("expected a partition: a JSON object with start_ord <= end_ord (from partitions, partition_at or subdivide)"))
}

/// The partition list wire `i` carries.
fn list_arg(args: &Args<'_>, i: usize) -> Result<Vec<Partition>, NodeError> {
    let parsed = match args.get(i) {
        Value::Json(text) => serde_json::from_str::<J>(text).ok(),
        _ => None,
    };
    match parsed {
        Some(J::Array(items)) => items.iter().map(Partition::from_json).collect::<Option<Vec<_>>>(),
        _ => None,
    }
    .ok_or_else(|| {
        NodeError::new("expected a partition list: a JSON array of partitions (from partitions or subdivide)")
    })
}

/// The u64 wire `i`.
fn u64_arg(args: &Args<'_>, i: usize) -> u64 {
    args.get(i).as_u64().unwrap_or(0)
}

/// A list as the JSON a wire carries, within the value size limit.
fn list_value(parts: &[Partition]) -> Result<Value, NodeError> {
    let text = J::Array(parts.iter().map(Partition::to_json).collect()).to_string();
    crate::node::limit::check(text.len())?;
    Ok(Value::Json(text.into()))
}

/// Declares a node reading one number from a partition.
macro_rules! projection {
    ($id:ident, $name:literal, $doc:literal, |$p:ident| $body:expr) => {
        /// A partition projection node (see its `name` and `doc` fields).
        pub const $id: NodeDef = NodeDef {
            name: $name,
            category: "partition",
            doc: $doc,
            params: &[wire("partition", Json)],
            build: |_| {
                Ok(value_fn(|args, outs| {
                    let $p = partition_arg(args, 0)?;
                    outs[0] = Value::U64($body);
                    Ok(())
                }))
            },
            testing: Testing { corner_call: Some(concat!($name, "(", corner_partition!(), ")")), ..Testing::BASE },
            ..NodeDef::BASE
        };
    };
}

projection!(CARDINALITY, "cardinality", "The number of ordinals of a partition: end_of - start_of.", |p| p
    .cardinality());
projection!(START_OF, "start_of", "A partition's first ordinal (inclusive).", |p| p.start_ord);
projection!(END_OF, "end_of", "A partition's end ordinal (exclusive).", |p| p.end_ord);
projection!(IDX_OF, "idx_of", "A partition's position (from 0) in the list it was resolved in.", |p| p.idx);
projection!(COUNT_OF, "count_of", "The number of partitions in the list a partition was resolved in.", |p| p.count);

/// `mod_in`: `n` wrapped into the partition.
pub const MOD_IN: NodeDef = NodeDef {
    name: "mod_in",
    category: "partition",
    doc: "start_of(p) + n % cardinality(p): n wrapped into the partition (its start when it is empty).",
    params: &[wire("n", U64), wire("partition", Json)],
    build: |_| {
        Ok(value_fn(|args, outs| {
            let (n, p) = (u64_arg(args, 0), partition_arg(args, 1)?);
            outs[0] = Value::U64(match p.cardinality() {
                0 => p.start_ord,
                card => p.start_ord + n % card,
            });
            Ok(())
        }))
    },
    testing: Testing { corner_call: Some(concat!("mod_in(c, ", corner_partition!(), ")")), ..Testing::BASE },
    ..NodeDef::BASE
};

/// `clamp_in`: `n` saturated into the partition.
pub const CLAMP_IN: NodeDef = NodeDef {
    name: "clamp_in",
    category: "partition",
    doc: "n limited to [start_of(p), end_of(p) - 1] (its start when the partition is empty).",
    params: &[wire("n", U64), wire("partition", Json)],
    build: |_| {
        Ok(value_fn(|args, outs| {
            let (n, p) = (u64_arg(args, 0), partition_arg(args, 1)?);
            outs[0] = Value::U64(match p.cardinality() {
                0 => p.start_ord,
                _ => n.max(p.start_ord).min(p.end_ord - 1),
            });
            Ok(())
        }))
    },
    testing: Testing { corner_call: Some(concat!("clamp_in(c, ", corner_partition!(), ")")), ..Testing::BASE },
    ..NodeDef::BASE
};

/// `at`: the ordinal `i` places into the partition; past its end fails.
pub const AT: NodeDef = NodeDef {
    name: "at",
    category: "partition",
    doc: "start_of(p) + i, for i below cardinality(p); a larger i fails the evaluation (mod_in wraps instead).",
    params: &[wire("partition", Json), wire("i", U64)],
    build: |_| {
        Ok(value_fn(|args, outs| {
            let (p, i) = (partition_arg(args, 0)?, u64_arg(args, 1));
            let card = p.cardinality();
            if i >= card {
                return Err(NodeError::new(format!(
                    "at({}, {i}): index out of range — partition #{} cardinality is {card}",
                    p.start_ord, p.idx
                )));
            }
            outs[0] = Value::U64(p.start_ord + i);
            Ok(())
        }))
    },
    testing: Testing { corner_call: Some(concat!("at(", corner_partition!(), ", mod(c, 300))")), ..Testing::BASE },
    ..NodeDef::BASE
};

/// `random_in`: a hashed ordinal inside the partition.
pub const RANDOM_IN: NodeDef = NodeDef {
    name: "random_in",
    category: "partition",
    doc: "start_of(p) + hash(seed) % cardinality(p): an ordinal of the partition chosen by hashing (its start when it is empty).",
    params: &[wire("partition", Json), wire("seed", U64)],
    build: |_| {
        Ok(value_fn(|args, outs| {
            let (p, seed) = (partition_arg(args, 0)?, u64_arg(args, 1));
            outs[0] = Value::U64(match p.cardinality() {
                0 => p.start_ord,
                card => p.start_ord + splitmix64(seed) % card,
            });
            Ok(())
        }))
    },
    testing: Testing { corner_call: Some(concat!("random_in(", corner_partition!(), ", c)")), ..Testing::BASE },
    ..NodeDef::BASE
};

/// `subdivide`: a partition split into `n` near-equal sub-partitions.
pub const SUBDIVIDE: NodeDef = NodeDef {
    name: "subdivide",
    category: "partition",
    doc: "The partition split into n contiguous sub-partitions whose sizes differ by at most one (indexes from 0); n of 0 or above the cardinality fails.",
    params: &[wire("partition", Json), wire("n", U64)],
    outputs: Outputs::One(Json),
    build: |_| {
        Ok(value_fn(|args, outs| {
            let (p, n) = (partition_arg(args, 0)?, u64_arg(args, 1));
            outs[0] = list_value(&subdivide(&p, n)?)?;
            Ok(())
        }))
    },
    testing: Testing { corner_call: Some(concat!("subdivide(", corner_partition!(), ", mod(c, 5))")), ..Testing::BASE },
    ..NodeDef::BASE
};

/// `partitions`: a spec resolved against `[0, extent)`.
pub const PARTITIONS: NodeDef = NodeDef {
    name: "partitions",
    category: "partition",
    doc: "The partition list a spec such as \"20%,30%,*\", \"linear:4\" or \"0..50%\" cuts [0, extent) into (a JSON array of partitions).",
    params: &[wire("spec", Str), konst_or("extent", U64, Lit::U64(100))],
    outputs: Outputs::One(Json),
    build: |c| {
        let extent = c.u64(0);
        Ok(value_fn(move |args, outs| {
            let spec = args.get(0).as_str().unwrap_or("");
            let parsed = parse(spec).map_err(|e| NodeError::new(format!("partitions: bad spec `{spec}`: {e}")))?;
            let parts = resolve(&parsed, 0, extent).map_err(|e| NodeError::new(format!("partitions: resolve failed: {e}")))?;
            outs[0] = list_value(&parts)?;
            Ok(())
        }))
    },
    // Specs that resolve, and two that fail: an empty range and a malformed spec.
    testing: Testing {
        corner_call: Some(r#"partitions(fixed_values_str(a, "2%,10%,*", "linear:4", "90%,*/10", "0..0%", "x"), 1000)"#),
        fallible: true,
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `partition_count`: the length of a partition list.
pub const PARTITION_COUNT: NodeDef = NodeDef {
    name: "partition_count",
    category: "partition",
    doc: "The number of partitions in a list.",
    params: &[wire("list", Json)],
    build: |_| {
        Ok(value_fn(|args, outs| {
            outs[0] = Value::U64(list_arg(args, 0)?.len() as u64);
            Ok(())
        }))
    },
    testing: Testing {
        corner_call: Some(
            r#"partition_count(partitions(fixed_values_str(a, "2%,10%,*", "linear:4", "1%x5,*"), 1000))"#,
        ),
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `partition_at`: the `i`th partition of a list.
pub const PARTITION_AT: NodeDef = NodeDef {
    name: "partition_at",
    category: "partition",
    doc: "The i-th partition of a list (from 0); past the end fails the evaluation.",
    params: &[wire("list", Json), wire("i", U64)],
    outputs: Outputs::One(Json),
    build: |_| {
        Ok(value_fn(|args, outs| {
            let (list, i) = (list_arg(args, 0)?, u64_arg(args, 1));
            let n = list.len() as u64;
            let p = list.get(i as usize).filter(|_| i < n).ok_or_else(|| {
                NodeError::new(format!("partition_at: index {i} out of range for a list of {n} partition(s)"))
            })?;
            outs[0] = Value::Json(p.to_json().to_string().into());
            Ok(())
        }))
    },
    testing: Testing { corner_call: Some(corner_partition!()), ..Testing::BASE },
    ..NodeDef::BASE
};

/// Upstream's text of a partition or a partition list: a list reads
/// `PartitionList[4]=[0..25),[25..50),[50..75),[75..100)`, a partition
/// `Partition(1/4 [25..50) [25.00%..50.00%))`.
pub fn upstream_text(value: &J) -> Option<String> {
    match value {
        J::Array(items) => {
            let parts = items.iter().map(Partition::from_json).collect::<Option<Vec<_>>>()?;
            let ranges: Vec<String> = parts.iter().map(|p| format!("[{}..{})", p.start_ord, p.end_ord)).collect();
            Some(format!("PartitionList[{}]={}", parts.len(), ranges.join(",")))
        }
        one => Partition::from_json(one).map(|p| {
            format!(
                "Partition({}/{} [{}..{}) [{:.2}%..{:.2}%))",
                p.idx, p.count, p.start_ord, p.end_ord, p.start_pct, p.end_pct
            )
        }),
    }
}

/// `partition_text`: a partition or partition list as upstream prints it.
pub const PARTITION_TEXT: NodeDef = NodeDef {
    name: "partition_text",
    category: "partition",
    doc: "A partition or partition list as upstream's text: PartitionList[4]=[0..25),[25..50),... or Partition(1/4 [25..50) [25.00%..50.00%)).",
    params: &[wire("partition", Json)],
    outputs: Outputs::One(Str),
    build: |_| {
        Ok(value_fn(|args, outs| {
            let parsed = match args.get(0) {
                Value::Json(text) => serde_json::from_str::<J>(text).ok(),
                _ => None,
            };
            let text = parsed.as_ref().and_then(upstream_text).ok_or_else(|| {
                NodeError::new("partition_text: expected a partition or a partition list (from partitions, partition_at or subdivide)")
            })?;
            outs[0] = Value::str(text.as_str());
            Ok(())
        }))
    },
    testing: Testing {
        corner_call: Some(r#"partition_text(partitions(fixed_values_str(a, "*/4", "20%,30%,*", "0..50%"), 100))"#),
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// The family's nodes, in catalog order.
pub const NODES: &[NodeDef] = &[
    PARTITIONS,
    PARTITION_COUNT,
    PARTITION_AT,
    CARDINALITY,
    START_OF,
    END_OF,
    IDX_OF,
    COUNT_OF,
    MOD_IN,
    AT,
    CLAMP_IN,
    RANDOM_IN,
    SUBDIVIDE,
    PARTITION_TEXT,
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::{eval, eval1};

    fn ranges(spec: &str, extent: u64) -> Vec<(u64, u64)> {
        resolve(&parse(spec).unwrap(), 0, extent).unwrap().iter().map(|p| (p.start_ord, p.end_ord)).collect()
    }

    fn error(spec: &str, extent: u64) -> String {
        match parse(spec) {
            Err(e) => e,
            Ok(s) => resolve(&s, 0, extent).unwrap_err(),
        }
    }

    #[test]
    fn specs_resolve_as_upstreams_tests_state() {
        assert_eq!(ranges("0..50%", 1000), [(0, 500)]);
        assert_eq!(ranges("[0..50%)", 1000), [(0, 500)]);
        assert_eq!(ranges("100..1000", 10000), [(100, 1000)]);
        assert_eq!(ranges("100..50%", 1000), [(100, 500)]);
        assert_eq!(ranges("2%,10%,*%", 1000), [(0, 20), (20, 120), (120, 1000)]);
        assert_eq!(ranges("1000,5000,*", 10000), [(0, 1000), (1000, 6000), (6000, 10000)]);
        assert_eq!(ranges("1000,10%,*", 10000), [(0, 1000), (1000, 2000), (2000, 10000)]);
        assert_eq!(ranges("20%,30%", 1000), [(0, 200), (200, 500)]);
        assert_eq!(ranges("linear:4", 1000), [(0, 250), (250, 500), (500, 750), (750, 1000)]);
        assert_eq!(ranges("linear:3", 1000), [(0, 333), (333, 667), (667, 1000)]);
        let explicit = ranges("90%,1%,1%,1%,1%,1%,1%,1%,1%,1%,1%", 1000);
        assert_eq!(explicit.len(), 11);
        assert_eq!(ranges("90%,1%,...", 1000), explicit);
        assert_eq!(ranges("90%,*/10", 1000), explicit);
        assert_eq!(ranges("1%x3,*", 100), [(0, 1), (1, 2), (2, 3), (3, 100)]);
        assert_eq!(ranges("~10%,20%", 100), [(10, 30)]);
        assert_eq!(ranges("linear:2 in 25%..75%", 1000), [(250, 500), (500, 750)]);
        assert_eq!(ranges("10%,60%,30% largest_first", 100), [(10, 70), (70, 100), (0, 10)]);
    }

    #[test]
    fn recipes_normalise_to_100() {
        let pcts = |spec: &str| match parse(spec).unwrap().chunking {
            Chunking::DeltaList { deltas } => deltas
                .iter()
                .map(|b| match b {
                    Bound::Pct(p) => *p,
                    other => panic!("{other:?}"),
                })
                .collect::<Vec<f64>>(),
            other => panic!("{other:?}"),
        };
        let close = |a: &[f64], b: &[f64]| a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-9);
        assert!(close(&pcts("ratios:1,1,2"), &[25.0, 25.0, 50.0]));
        assert!(close(&pcts("bin:5"), &[6.25, 25.0, 37.5, 25.0, 6.25]));
        let fib: Vec<f64> = [1.0, 2.0, 3.0, 5.0, 8.0, 13.0, 21.0].iter().map(|w| w / 53.0 * 100.0).collect();
        assert!(close(&pcts("fib:7"), &fib));
        let geom: Vec<f64> = [1.0, 2.0, 4.0, 8.0, 16.0].iter().map(|w| w / 31.0 * 100.0).collect();
        assert!(close(&pcts("geom:5,2"), &geom));
        for spec in
            ["ln:5", "mul:0.5", "mul:2", "mul:5,0.5", "zipf:1.1,5", "pareto:1,4", "front_heavy:4", "back_heavy:4"]
        {
            assert!((pcts(spec).iter().sum::<f64>() - 100.0).abs() < 1e-9, "{spec}");
        }
        assert!(pcts("front_heavy:4").windows(2).all(|w| w[1] < w[0]));
        assert!(pcts("back_heavy:4").windows(2).all(|w| w[1] > w[0]));
    }

    #[test]
    fn bad_specs_say_why_in_upstreams_words() {
        assert!(error("101%", 100).contains("out of range"));
        assert!(error("1.5", 100).contains("ambiguous"));
        assert!(error("*,*", 100).contains("at most one"));
        assert!(error("...", 100).contains("before it"));
        assert!(error("1%,...,10%", 100).contains("last entry"));
        assert!(error("*/4,10%", 100).contains("last entry"));
        assert!(error("90%,*/1%", 100).contains("1%,..."));
        assert!(error("90%,*/0", 100).contains(">= 1"));
        assert!(error("0..*", 100).contains("only valid inside"));
        assert!(error("blorp:3", 100).contains("unknown recipe"));
        assert!(error("60%,60%", 1000).contains("exceeding"));
        assert!(error("linear:4 ascending", 100).contains("smallest_first"));
        assert!(error("0..0", 100).contains("zero ordinals"));
        assert!(error("1%x99999999999", 100).contains("refused"));
    }

    #[test]
    fn random_order_is_a_fixed_shuffle_of_the_same_partitions() {
        let shuffled = ranges("linear:8 random", 800);
        assert_eq!(shuffled, ranges("linear:8 random", 800));
        let mut sorted = shuffled.clone();
        sorted.sort();
        assert_eq!(sorted, ranges("linear:8", 800));
    }

    #[test]
    fn nodes_read_and_derive_partitions() {
        let list = eval1(&PARTITIONS, &[Value::U64(1000)], &[Value::str("2%,10%,*")]);
        assert!(eval1(&PARTITION_COUNT, &[], std::slice::from_ref(&list)).same(&Value::U64(3)));
        let p = eval1(&PARTITION_AT, &[], &[list.clone(), Value::U64(1)]);
        let read = |def: &NodeDef| eval1(def, &[], std::slice::from_ref(&p)).as_u64().unwrap();
        assert_eq!(
            [read(&START_OF), read(&END_OF), read(&CARDINALITY), read(&IDX_OF), read(&COUNT_OF)],
            [20, 120, 100, 1, 3]
        );
        let with = |def: &NodeDef, n: u64| eval1(def, &[], &[Value::U64(n), p.clone()]).as_u64().unwrap();
        assert_eq!(
            [with(&MOD_IN, 0), with(&MOD_IN, 250), with(&CLAMP_IN, 5), with(&CLAMP_IN, 1000)],
            [20, 70, 20, 119]
        );
        assert!(eval1(&AT, &[], &[p.clone(), Value::U64(15)]).same(&Value::U64(35)));
        let err = eval(&AT, &[], &[p.clone(), Value::U64(100)]).unwrap_err();
        assert_eq!(err.message(), "at(20, 100): index out of range — partition #1 cardinality is 100");
        let r = eval1(&RANDOM_IN, &[], &[p.clone(), Value::U64(7)]).as_u64().unwrap();
        assert_eq!(r, 20 + splitmix64(7) % 100);
        let err = eval(&PARTITION_AT, &[], &[list, Value::U64(3)]).unwrap_err();
        assert_eq!(err.message(), "partition_at: index 3 out of range for a list of 3 partition(s)");
        let subs = eval1(&SUBDIVIDE, &[], &[p.clone(), Value::U64(3)]);
        let subs: Vec<Partition> = match subs {
            Value::Json(t) => serde_json::from_str::<J>(&t)
                .unwrap()
                .as_array()
                .unwrap()
                .iter()
                .filter_map(Partition::from_json)
                .collect(),
            other => panic!("{other:?}"),
        };
        assert_eq!(subs.iter().map(|s| (s.start_ord, s.end_ord)).collect::<Vec<_>>(), [(20, 53), (53, 87), (87, 120)]);
        assert!(eval(&SUBDIVIDE, &[], &[p, Value::U64(0)]).unwrap_err().message().contains("must be >= 1"));
        let bad = eval(&PARTITIONS, &[Value::U64(100)], &[Value::str("nonsense")]).unwrap_err();
        assert!(bad.message().starts_with("partitions: bad spec `nonsense`: "), "{}", bad.message());
        let not_a_partition = eval(&START_OF, &[], &[Value::Json("[1]".into())]).unwrap_err();
        assert!(not_a_partition.message().contains("expected a partition"));
    }

    #[test]
    fn subdivide_interpolates_percentages() {
        let parent = Partition {
            idx: 1,
            count: 2,
            start_ord: 900,
            end_ord: 1000,
            start_pct: 90.0,
            end_pct: 100.0,
            base_extent: 1000,
        };
        let subs = subdivide(&parent, 10).unwrap();
        assert_eq!(subs.len(), 10);
        assert!(subs
            .iter()
            .enumerate()
            .all(|(i, s)| s.idx == i as u64 && s.cardinality() == 10 && s.base_extent == 1000));
        assert!((subs[4].end_pct - 95.0).abs() < 1e-9);
        let small = Partition { end_ord: 905, ..parent };
        assert!(subdivide(&small, 10).unwrap_err().contains("non-empty sub-partitions"));
    }

    #[test]
    fn partitions_read_as_upstream_prints_them() {
        let parts = resolve(&parse("*/4").unwrap(), 0, 100).unwrap();
        let list = J::Array(parts.iter().map(Partition::to_json).collect());
        assert_eq!(upstream_text(&list).unwrap(), "PartitionList[4]=[0..25),[25..50),[50..75),[75..100)");
        assert_eq!(upstream_text(&parts[1].to_json()).unwrap(), "Partition(1/4 [25..50) [25.00%..50.00%))");
        assert!(upstream_text(&serde_json::json!({"x": 1})).is_none());
    }
}
