//! Calendar arithmetic: the nodes the operators `+` and `-` become over
//! dates and timestamps (`d + 7`, `t - 1000`, `a - b`), chosen by
//! [`crate::compile::desugar`].
//!
//! A `date` moves by whole days, a `timestamp` by milliseconds, and the
//! difference of two is an `i64` count of those units. A result past its
//! type's range (a date beyond `i32` days from 1970-01-01, a timestamp
//! beyond `i64` milliseconds or equal to NaT, a difference beyond `i64`)
//! fails the evaluation with a message naming the operands; nothing wraps.
//! The rules compute in `i128`, so no intermediate overflows. A date's slot
//! word is its day count sign-extended, a timestamp's its milliseconds, so
//! the native forms are the machine's add and subtract with a range test
//! that calls the rule (which fails in its own words) when it does not hold.

use crate::calendar::{
    civil_from_signed_days, date_text, days_from_civil, days_in_month, timestamp_millis, timestamp_text, NAT,
};
use crate::node::kit::{try_map2, Days, Millis};
use crate::node::lower::{ICmp, Lower, NVal};
use crate::node::{wire, NodeDef, Outputs, Testing};
use crate::types::PortType::{Date, Timestamp, I64};

/// `d` moved by `sign * n` days, or the failure naming the operation.
fn shift_days(d: Days, n: i64, sign: i128) -> Result<Days, String> {
    let moved = i128::from(d.0) + sign * i128::from(n);
    i32::try_from(moved).map(Days).map_err(|_| {
        let symbol = if sign > 0 { '+' } else { '-' };
        format!(
            "{} {symbol} {n} days is outside the range of date ({} to {})",
            date_text(d.0),
            date_text(i32::MIN),
            date_text(i32::MAX)
        )
    })
}

/// `t` moved by `sign * n` milliseconds, or the failure naming the operation.
fn shift_millis(t: Millis, n: i64, sign: i128) -> Result<Millis, String> {
    let moved = i128::from(t.0) + sign * i128::from(n);
    i64::try_from(moved).ok().and_then(|ms| timestamp_millis(ms).ok()).map(Millis).ok_or_else(|| {
        let symbol = if sign > 0 { '+' } else { '-' };
        format!(
            "{} {symbol} {n} ms is outside the range of timestamp ({} to {})",
            timestamp_text(t.0),
            timestamp_text(NAT + 1),
            timestamp_text(i64::MAX)
        )
    })
}

/// The native range test of a date result `r` (an i64 word): 1 when it lies
/// outside `i32`'s range, that is when `r + 2^31`, read unsigned, passes
/// `u32::MAX`. An i64 sum that wrapped lies at least `2^63 - 2^31` from 0,
/// outside too.
fn date_out_of_range(l: &mut dyn Lower, r: NVal) -> NVal {
    let bias = l.iconst(1 << 31);
    let biased = l.iadd(r, bias);
    let max = l.iconst(u64::from(u32::MAX));
    l.icmp(ICmp::Gt, biased, max)
}

/// The native form of `d ± n` days: the i64 sum or difference, the rule
/// called (to fail) when it leaves the date range.
fn lower_shift_days(l: &mut dyn Lower, v: &[NVal], add: bool) -> Option<Vec<NVal>> {
    let r = if add { l.iadd(v[0], v[1]) } else { l.isub(v[0], v[1]) };
    let fails = date_out_of_range(l, r);
    l.call_rule_if(fails);
    Some(vec![r])
}

/// 1 when the word `w` has its sign bit set.
fn sign_bit(l: &mut dyn Lower, w: NVal) -> NVal {
    let sign = l.iconst(1 << 63);
    l.icmp(ICmp::Ge, w, sign)
}

/// The native form of a signed `a ± b` that fails on overflow (and, for a
/// timestamp, on NaT): the wrapping result, the rule called when the signs
/// say it wrapped (an add overflows when both operands' signs differ from
/// the result's; a subtract when `a`'s and `!b`'s do).
fn lower_checked(l: &mut dyn Lower, v: &[NVal], add: bool, refuse_nat: bool) -> Option<Vec<NVal>> {
    let (a, b) = (v[0], v[1]);
    let r = if add { l.iadd(a, b) } else { l.isub(a, b) };
    let b_as_added = if add { b } else { l.bnot(b) };
    let (ra, rb) = (l.bxor(a, r), l.bxor(b_as_added, r));
    let both = l.band(ra, rb);
    let mut fails = sign_bit(l, both);
    if refuse_nat {
        let nat = l.iconst(NAT as u64);
        let is_nat = l.icmp(ICmp::Eq, r, nat);
        fails = l.bor(fails, is_nat);
    }
    l.call_rule_if(fails);
    Some(vec![r])
}

/// `date_add_days`: a date `n` days later (earlier for a negative `n`): `d + n`.
pub const DATE_ADD_DAYS: NodeDef = NodeDef {
    name: "date_add_days",
    category: "datetime",
    doc: "The date n days after d (before it for a negative n): `d + n`. A result outside the date range fails.",
    params: &[wire("d", Date), wire("n", I64)],
    outputs: Outputs::One(Date),
    build: |_| Ok(try_map2(|d: Days, n: i64| shift_days(d, n, 1))),
    lower: Some(|l, _, v| lower_shift_days(l, v, true)),
    testing: Testing {
        corner_call: Some("date_add_days(a as date, i64_sub(b as i64, c as i64))"),
        fallible: true,
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `date_sub_days`: a date `n` days earlier: `d - n`.
pub const DATE_SUB_DAYS: NodeDef = NodeDef {
    name: "date_sub_days",
    category: "datetime",
    doc: "The date n days before d (after it for a negative n): `d - n`. A result outside the date range fails.",
    params: &[wire("d", Date), wire("n", I64)],
    outputs: Outputs::One(Date),
    build: |_| Ok(try_map2(|d: Days, n: i64| shift_days(d, n, -1))),
    lower: Some(|l, _, v| lower_shift_days(l, v, false)),
    testing: Testing {
        corner_call: Some("date_sub_days(a as date, i64_sub(b as i64, c as i64))"),
        fallible: true,
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `date_diff_days`: the days from `b` to `a`: `a - b` (never out of range).
pub const DATE_DIFF_DAYS: NodeDef = NodeDef {
    name: "date_diff_days",
    category: "datetime",
    doc: "The days from b to a, negative when a is earlier: `a - b` over two dates.",
    params: &[wire("a", Date), wire("b", Date)],
    outputs: Outputs::One(I64),
    build: |_| Ok(crate::node::kit::map2(|a: Days, b: Days| i64::from(a.0) - i64::from(b.0))),
    lower: Some(|l, _, v| Some(vec![l.isub(v[0], v[1])])),
    testing: Testing {
        corner_call: Some("date_diff_days(date_sub_days(a as date, b as i64), c as date)"),
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// The years past which no date of the range lies (its ends are in years
/// -5877641 and 5881580): a shifted year beyond them fails without computing.
const YEARS_BEYOND_RANGE: i64 = 6_000_000;

/// `d` moved by `n` calendar years: the same month and day `n` years later
/// (earlier for a negative `n`), the 29th of February becoming the 28th in
/// a year that has none; or the failure naming the operation.
fn shift_years(d: Days, n: i64) -> Result<Days, String> {
    let outside = || {
        format!(
            "{} + {n} years is outside the range of date ({} to {})",
            date_text(d.0),
            date_text(i32::MIN),
            date_text(i32::MAX)
        )
    };
    let (year, month, day) = civil_from_signed_days(i64::from(d.0));
    let year = year.checked_add(n).filter(|y| y.abs() <= YEARS_BEYOND_RANGE).ok_or_else(outside)?;
    let days = days_from_civil(year, month, day.min(days_in_month(year, month)));
    i32::try_from(days).map(Days).map_err(|_| outside())
}

/// `date_add_years`: the same day `n` calendar years later (earlier for a negative `n`).
pub const DATE_ADD_YEARS: NodeDef = NodeDef {
    name: "date_add_years",
    category: "datetime",
    doc: "The same month and day n calendar years after d (before it for a negative n); 29 February becomes 28 February in a year without it. A result outside the date range fails.",
    params: &[wire("d", Date), wire("n", I64)],
    outputs: Outputs::One(Date),
    build: |_| Ok(try_map2(shift_years)),
    testing: Testing {
        corner_call: Some("date_add_years(a as date, i64_sub(b as i64, c as i64))"),
        fallible: true,
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `timestamp_add_ms`: an instant `n` milliseconds later: `t + n`.
pub const TIMESTAMP_ADD_MS: NodeDef = NodeDef {
    name: "timestamp_add_ms",
    category: "datetime",
    doc: "The instant n milliseconds after t (before it for a negative n): `t + n`. A result outside the timestamp range fails.",
    params: &[wire("t", Timestamp), wire("n", I64)],
    outputs: Outputs::One(Timestamp),
    build: |_| Ok(try_map2(|t: Millis, n: i64| shift_millis(t, n, 1))),
    lower: Some(|l, _, v| lower_checked(l, v, true, true)),
    testing: Testing {
        corner_call: Some("timestamp_add_ms(a as timestamp, i64_sub(b as i64, c as i64))"),
        fallible: true,
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `timestamp_sub_ms`: an instant `n` milliseconds earlier: `t - n`.
pub const TIMESTAMP_SUB_MS: NodeDef = NodeDef {
    name: "timestamp_sub_ms",
    category: "datetime",
    doc: "The instant n milliseconds before t (after it for a negative n): `t - n`. A result outside the timestamp range fails.",
    params: &[wire("t", Timestamp), wire("n", I64)],
    outputs: Outputs::One(Timestamp),
    build: |_| Ok(try_map2(|t: Millis, n: i64| shift_millis(t, n, -1))),
    lower: Some(|l, _, v| lower_checked(l, v, false, true)),
    testing: Testing {
        corner_call: Some("timestamp_sub_ms(a as timestamp, i64_sub(b as i64, c as i64))"),
        fallible: true,
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `timestamp_diff_ms`: the milliseconds from `b` to `a`: `a - b`.
pub const TIMESTAMP_DIFF_MS: NodeDef = NodeDef {
    name: "timestamp_diff_ms",
    category: "datetime",
    doc: "The milliseconds from b to a, negative when a is earlier: `a - b` over two timestamps. A difference past i64's range fails.",
    params: &[wire("a", Timestamp), wire("b", Timestamp)],
    outputs: Outputs::One(I64),
    build: |_| {
        Ok(try_map2(|a: Millis, b: Millis| {
            i64::try_from(i128::from(a.0) - i128::from(b.0)).map_err(|_| {
                format!("{} - {} in milliseconds does not fit in i64", timestamp_text(a.0), timestamp_text(b.0))
            })
        }))
    },
    lower: Some(|l, _, v| lower_checked(l, v, false, false)),
    testing: Testing {
        corner_call: Some("timestamp_diff_ms(timestamp_sub_ms(a as timestamp, b as i64), c as timestamp)"),
        fallible: true,
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// The family, in catalog order.
pub const NODES: &[NodeDef] = &[
    DATE_ADD_DAYS,
    DATE_SUB_DAYS,
    DATE_DIFF_DAYS,
    DATE_ADD_YEARS,
    TIMESTAMP_ADD_MS,
    TIMESTAMP_SUB_MS,
    TIMESTAMP_DIFF_MS,
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::{eval1, eval_err};
    use crate::value::Value;

    #[test]
    fn dates_move_by_calendar_years() {
        let d = |y: i64, m: u64, day: u64| Value::Date(days_from_civil(y, m, day) as i32);
        let add = |date: Value, n: i64| eval1(&DATE_ADD_YEARS, &[], &[date, Value::I64(n)]);
        assert!(add(d(2025, 1, 1), -18).same(&d(2007, 1, 1)));
        assert!(add(d(2025, 6, 30), -100).same(&d(1925, 6, 30)), "before 1970 too");
        assert!(add(d(2024, 2, 29), 1).same(&d(2025, 2, 28)), "29 February in a year without it");
        assert!(add(d(2024, 2, 29), -4).same(&d(2020, 2, 29)));
        assert!(add(d(-5, 3, 1), 10).same(&d(5, 3, 1)));
        let e = eval_err(&DATE_ADD_YEARS, &[], &[Value::Date(0), Value::I64(i64::MAX)]);
        assert_eq!(
            e,
            format!("1970-01-01 + {} years is outside the range of date (-5877641-06-23 to 5881580-07-11)", i64::MAX)
        );
        assert!(eval_err(&DATE_ADD_YEARS, &[], &[Value::Date(i32::MAX), Value::I64(1)]).contains("outside"));
    }

    #[test]
    fn dates_move_by_days_and_fail_past_their_range() {
        let add = |d: i32, n: i64| eval1(&DATE_ADD_DAYS, &[], &[Value::Date(d), Value::I64(n)]);
        assert!(add(8035, -7305).same(&Value::Date(730)), "a date before 1992 is written from one after it");
        assert!(add(0, -1).same(&Value::Date(-1)));
        assert!(add(i32::MAX - 1, 1).same(&Value::Date(i32::MAX)));
        let e = eval_err(&DATE_ADD_DAYS, &[], &[Value::Date(i32::MAX), Value::I64(1)]);
        assert_eq!(e, "5881580-07-11 + 1 days is outside the range of date (-5877641-06-23 to 5881580-07-11)");
        assert!(eval_err(&DATE_ADD_DAYS, &[], &[Value::Date(1), Value::I64(i64::MAX)]).contains("outside"));
        let sub = eval1(&DATE_SUB_DAYS, &[], &[Value::Date(8035), Value::I64(30)]);
        assert!(sub.same(&Value::Date(8005)));
        let e = eval_err(&DATE_SUB_DAYS, &[], &[Value::Date(i32::MIN), Value::I64(1)]);
        assert!(e.starts_with("-5877641-06-23 - 1 days is outside the range of date"), "{e}");
        let diff = eval1(&DATE_DIFF_DAYS, &[], &[Value::Date(i32::MIN), Value::Date(i32::MAX)]);
        assert!(diff.same(&Value::I64(i64::from(i32::MIN) - i64::from(i32::MAX))));
    }

    #[test]
    fn timestamps_move_by_milliseconds_and_refuse_overflow_and_nat() {
        let add = |t: i64, n: i64| eval1(&TIMESTAMP_ADD_MS, &[], &[Value::Timestamp(t), Value::I64(n)]);
        assert!(add(1_000, -3_000).same(&Value::Timestamp(-2_000)));
        let e = eval_err(&TIMESTAMP_ADD_MS, &[], &[Value::Timestamp(i64::MAX), Value::I64(1)]);
        assert!(e.ends_with("+ 1 ms is outside the range of timestamp (-292275055-05-16T16:47:04.193Z to 292278994-08-17T07:12:55.807Z)"), "{e}");
        let e = eval_err(&TIMESTAMP_SUB_MS, &[], &[Value::Timestamp(NAT + 1), Value::I64(1)]);
        assert!(e.contains("- 1 ms is outside the range of timestamp"), "NaT is no result: {e}");
        let diff = eval1(&TIMESTAMP_DIFF_MS, &[], &[Value::Timestamp(5), Value::Timestamp(-5)]);
        assert!(diff.same(&Value::I64(10)));
        let e = eval_err(&TIMESTAMP_DIFF_MS, &[], &[Value::Timestamp(i64::MAX), Value::Timestamp(-1)]);
        assert!(e.ends_with("in milliseconds does not fit in i64"), "{e}");
    }
}
