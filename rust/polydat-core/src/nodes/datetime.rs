//! Datetime family: epoch milliseconds rendered as UTC timestamps.

use crate::node::by_bytes::{push_u64_padded, to_text};
use crate::node::kit::{map1, split_u64};
use crate::node::{konst, konst_or, wire, Lit, NodeDef, Outputs};
use crate::types::PortType::{Str, U64};
use std::fmt::Write;

/// Days since 1970-01-01 as a proleptic Gregorian (year, month, day).
///
/// Counts from 0000-03-01 so that each leap day ends its year, splits the
/// count into 400-year eras of 146 097 days, and reads the year, the day in
/// the (March-based) year and the month out of the era arithmetically.
pub fn civil_from_days(days: u64) -> (u64, u64, u64) {
    const ERA: u64 = 146_097;
    let z = days + 719_468;
    let (era, doe) = (z / ERA, z % ERA);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = era * 400 + yoe + u64::from(month <= 2);
    (year, month, day)
}

/// `YYYY-MM-DDThh:mm:ss.mmmZ` for epoch milliseconds (UTC, no leap seconds).
pub fn timestamp(epoch_ms: u64) -> String {
    let mut out = String::new();
    push_timestamp(&mut out, epoch_ms);
    out
}

/// Appends [`timestamp`]'s text for `epoch_ms` to `out`.
pub fn push_timestamp(out: &mut String, epoch_ms: u64) {
    let (secs, ms) = (epoch_ms / 1000, epoch_ms % 1000);
    let (mins, s) = (secs / 60, secs % 60);
    let (hours, mi) = (mins / 60, mins % 60);
    let (days, h) = (hours / 24, hours % 24);
    let (y, mo, d) = civil_from_days(days);
    push_clock(out, y, mo, d, h, mi, s, ms);
}

/// Appends `YYYY-MM-DDThh:mm:ss.mmmZ` (each field zero-padded to its
/// width, a year past 9999 in full): `format!("{y:04}-{mo:02}-...")`.
#[allow(clippy::too_many_arguments)]
fn push_clock(out: &mut String, y: u64, mo: u64, d: u64, h: u64, mi: u64, s: u64, ms: u64) {
    push_ymd(out, y, mo, d);
    out.push('T');
    push_u64_padded(out, h, 2);
    out.push(':');
    push_u64_padded(out, mi, 2);
    out.push(':');
    push_u64_padded(out, s, 2);
    out.push('.');
    push_u64_padded(out, ms, 3);
    out.push('Z');
}

/// Appends `YYYY-MM-DD` of a non-negative year: `format!("{y:04}-{mo:02}-{d:02}")`.
fn push_ymd(out: &mut String, y: u64, mo: u64, d: u64) {
    push_u64_padded(out, y, 4);
    out.push('-');
    push_u64_padded(out, mo, 2);
    out.push('-');
    push_u64_padded(out, d, 2);
}

/// Days since 1970-01-01 (negative before it) as a proleptic Gregorian
/// (year, month, day); years before 1 are 0, -1, ... (astronomical).
pub fn civil_from_signed_days(days: i64) -> (i64, u64, u64) {
    // Shift by whole 400-year eras (146 097 days each) into the unsigned range.
    const ERA: i64 = 146_097;
    let eras = if days < 0 { (-days) / ERA + 1 } else { 0 };
    let (y, m, d) = civil_from_days((days + eras * ERA) as u64);
    (y as i64 - 400 * eras, m, d)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (the inverse of
/// [`civil_from_signed_days`]; `month` in 1..=12, `day` in 1..=31).
pub fn days_from_civil(year: i64, month: u64, day: u64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400) as u64;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe as i64 - 719_468
}

/// Days in `month` of `year` (proleptic Gregorian).
pub fn days_in_month(year: i64, month: u64) -> u64 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Appends a year as `{:04}`, a negative one as `-` and `{:04}` of its magnitude.
fn push_year(out: &mut String, y: i64) {
    if y < 0 {
        out.push('-');
    }
    push_u64_padded(out, y.unsigned_abs(), 4);
}

/// `YYYY-MM-DD` of a `date` (days since 1970-01-01).
pub fn date_text(days: i32) -> String {
    let mut out = String::new();
    push_date_text(&mut out, days);
    out
}

/// Appends [`date_text`] of `days` to `out`.
pub fn push_date_text(out: &mut String, days: i32) {
    let (y, m, d) = civil_from_signed_days(i64::from(days));
    push_year(out, y);
    out.push('-');
    push_u64_padded(out, m, 2);
    out.push('-');
    push_u64_padded(out, d, 2);
}

/// `YYYY-MM-DDThh:mm:ss.mmmZ` of a `timestamp` (milliseconds since
/// 1970-01-01T00:00:00Z, negative before it).
pub fn timestamp_text(ms: i64) -> String {
    let mut out = String::new();
    push_timestamp_text(&mut out, ms);
    out
}

/// Appends [`timestamp_text`] of `ms` to `out`.
pub fn push_timestamp_text(out: &mut String, ms: i64) {
    let (days, in_day) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000) as u64);
    let (y, mo, d) = civil_from_signed_days(days);
    let (secs, milli) = (in_day / 1000, in_day % 1000);
    let (h, mi, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    push_year(out, y);
    out.push('-');
    push_u64_padded(out, mo, 2);
    out.push('-');
    push_u64_padded(out, d, 2);
    out.push('T');
    push_u64_padded(out, h, 2);
    out.push(':');
    push_u64_padded(out, mi, 2);
    out.push(':');
    push_u64_padded(out, s, 2);
    out.push('.');
    push_u64_padded(out, milli, 3);
    out.push('Z');
}

/// Reads `YYYY-MM-DD`, optionally followed by `Thh:mm[:ss[.f...]]` and a
/// `Z` (or a space instead of the `T`), as milliseconds since the epoch
/// (UTC; digits past milliseconds are cut). `None` when it is no such text
/// or names no real day or time.
pub fn parse_iso_millis(text: &str) -> Option<i64> {
    let t = text.trim();
    let t = t.strip_suffix('Z').or_else(|| t.strip_suffix('z')).unwrap_or(t);
    let (date, time) = match t.find(['T', 't', ' ']) {
        Some(i) => (&t[..i], Some(&t[i + 1..])),
        None => (t, None),
    };
    let (negative, date) = match date.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, date),
    };
    let mut parts = date.split('-');
    let number = |p: Option<&str>, width: std::ops::RangeInclusive<usize>| -> Option<u64> {
        let p = p?;
        (width.contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit())).then(|| p.parse().ok())?
    };
    let year = number(parts.next(), 4..=9)? as i64;
    let (month, day) = (number(parts.next(), 2..=2)?, number(parts.next(), 2..=2)?);
    let year = if negative { -year } else { year };
    if parts.next().is_some() || !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    let mut ms = days_from_civil(year, month, day).checked_mul(86_400_000)?;
    if let Some(time) = time {
        let (hms, fraction) = match time.split_once('.') {
            Some((hms, f)) if !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()) => (hms, Some(f)),
            Some(_) => return None,
            None => (time, None),
        };
        let mut fields = hms.split(':');
        let h = number(fields.next(), 2..=2)?;
        let mi = number(fields.next(), 2..=2)?;
        let s = match fields.next() {
            Some(f) => number(Some(f), 2..=2)?,
            None if fraction.is_none() => 0,
            None => return None,
        };
        if fields.next().is_some() || h > 23 || mi > 59 || s > 59 {
            return None;
        }
        let milli = fraction.map_or(0, |f| {
            let digits: String = f.chars().chain("000".chars()).take(3).collect();
            digits.parse::<u64>().unwrap_or(0)
        });
        ms = ms.checked_add(((h * 3600 + mi * 60 + s) * 1000 + milli) as i64)?;
    }
    Some(ms)
}

/// `to_timestamp`: Epoch milliseconds as YYYY-MM-DDThh:mm:ss.mmmZ (UTC, proleptic Gregorian).
pub const TO_TIMESTAMP: NodeDef = NodeDef {
    name: "to_timestamp",
    category: "datetime",
    doc: "Epoch milliseconds as YYYY-MM-DDThh:mm:ss.mmmZ (UTC, proleptic Gregorian).",
    params: &[wire("input", U64)],
    outputs: Outputs::One(Str),
    build: |_| Ok(to_text(|x: u64, out: &mut String| push_timestamp(out, x))),
    ..NodeDef::BASE
};

/// Epoch milliseconds split into (year, month, day, hour, minute, second, millis), UTC.
pub fn components(epoch_ms: u64) -> [u64; 7] {
    let (secs, ms) = (epoch_ms / 1000, epoch_ms % 1000);
    let (mins, s) = (secs / 60, secs % 60);
    let (hours, mi) = (mins / 60, mins % 60);
    let (days, h) = (hours / 24, hours % 24);
    let (y, mo, d) = civil_from_days(days);
    [y, mo, d, h, mi, s, ms]
}

/// `epoch_scale`: input * factor (wrapping): units to epoch milliseconds.
pub const EPOCH_SCALE: NodeDef = NodeDef {
    name: "epoch_scale",
    category: "datetime",
    doc: "input * factor, wrapping (factor: milliseconds per input unit, e.g. 1000 for seconds).",
    params: &[wire("input", U64), konst_or("factor", U64, Lit::U64(1))],
    build: |c| {
        let k = c.u64(0);
        Ok(map1(move |x: u64| x.wrapping_mul(k)))
    },
    ..NodeDef::BASE
};

/// `epoch_offset`: input + base_epoch_ms (wrapping).
pub const EPOCH_OFFSET: NodeDef = NodeDef {
    name: "epoch_offset",
    category: "datetime",
    doc: "input + base_epoch_ms, wrapping (e.g. 1704067200000 for 2024-01-01T00:00:00Z).",
    params: &[wire("input", U64), konst_or("base_epoch_ms", U64, Lit::U64(0))],
    build: |c| {
        let k = c.u64(0);
        Ok(map1(move |x: u64| x.wrapping_add(k)))
    },
    ..NodeDef::BASE
};

/// `date_components`: epoch milliseconds as (year, month, day, hour, minute, second, millis), UTC.
pub const DATE_COMPONENTS: NodeDef = NodeDef {
    name: "date_components",
    category: "datetime",
    doc: "Epoch milliseconds as (year, month, day, hour, minute, second, millis), UTC, proleptic Gregorian.",
    params: &[wire("input", U64)],
    outputs: Outputs::Named(&[
        ("year", U64),
        ("month", U64),
        ("day", U64),
        ("hour", U64),
        ("minute", U64),
        ("second", U64),
        ("millis", U64),
    ]),
    build: |_| {
        Ok(split_u64(|x: u64, outs: &mut [u64]| {
            let c = components(x);
            for (o, v) in outs.iter_mut().zip(c) {
                *o = v;
            }
        }))
    },
    ..NodeDef::BASE
};

/// `to_date`: epoch milliseconds as YYYY-MM-DD (UTC).
pub const TO_DATE: NodeDef = NodeDef {
    name: "to_date",
    category: "datetime",
    doc: "Epoch milliseconds as YYYY-MM-DD (UTC, proleptic Gregorian).",
    params: &[wire("input", U64)],
    outputs: Outputs::One(Str),
    build: |_| {
        Ok(to_text(|x: u64, out: &mut String| {
            let [y, mo, d, ..] = components(x);
            push_ymd(out, y, mo, d);
        }))
    },
    ..NodeDef::BASE
};

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const WEEKDAYS: [&str; 7] = ["Thursday", "Friday", "Saturday", "Sunday", "Monday", "Tuesday", "Wednesday"];

/// One piece of a strftime-style format.
#[derive(Clone, Debug)]
enum Piece {
    Text(String),
    Field(char),
}

/// Parses a strftime-style format: `%Y %m %d %H %M %S %f %j %y %b %B %a %A %s %%`.
fn parse_strftime(format: &str) -> Result<Vec<Piece>, String> {
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut chars = format.chars();
    while let Some(ch) = chars.next() {
        if ch != '%' {
            text.push(ch);
            continue;
        }
        match chars.next() {
            Some('%') => text.push('%'),
            Some(f @ ('Y' | 'm' | 'd' | 'H' | 'M' | 'S' | 'f' | 'j' | 'y' | 'b' | 'B' | 'a' | 'A' | 's')) => {
                if !text.is_empty() {
                    pieces.push(Piece::Text(std::mem::take(&mut text)));
                }
                pieces.push(Piece::Field(f));
            }
            Some(other) => return Err(format!("format_datetime: unknown field %{other} in {format:?}")),
            None => return Err(format!("format_datetime: a lone % ends {format:?}")),
        }
    }
    if !text.is_empty() {
        pieces.push(Piece::Text(text));
    }
    Ok(pieces)
}

/// Day of the year (1-based) of (year, month, day).
fn day_of_year(y: u64, mo: u64, d: u64) -> u64 {
    const BEFORE: [u64; 12] = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    BEFORE[(mo - 1) as usize] + d + u64::from(leap && mo > 2)
}

/// `format_datetime`: epoch milliseconds formatted by a strftime-style format (UTC).
pub const FORMAT_DATETIME: NodeDef = NodeDef {
    name: "format_datetime",
    category: "datetime",
    doc: "Epoch milliseconds in a strftime-style format (UTC): %Y %m %d %H %M %S, %f millis, %j day of year, %y, %b %B months, %a %A weekdays, %s epoch seconds, %%.",
    params: &[wire("input", U64), konst("format", Str)],
    outputs: Outputs::One(Str),
    build: |c| {
        let pieces = parse_strftime(c.str(0))?;
        Ok(to_text(move |x: u64, out: &mut String| {
            let [y, mo, d, h, mi, s, ms] = components(x);
            for p in &pieces {
                let _ = match p {
                    Piece::Text(t) => write!(out, "{t}"),
                    Piece::Field('Y') => write!(out, "{y:04}"),
                    Piece::Field('m') => write!(out, "{mo:02}"),
                    Piece::Field('d') => write!(out, "{d:02}"),
                    Piece::Field('H') => write!(out, "{h:02}"),
                    Piece::Field('M') => write!(out, "{mi:02}"),
                    Piece::Field('S') => write!(out, "{s:02}"),
                    Piece::Field('f') => write!(out, "{ms:03}"),
                    Piece::Field('j') => write!(out, "{:03}", day_of_year(y, mo, d)),
                    Piece::Field('y') => write!(out, "{:02}", y % 100),
                    Piece::Field('b') => write!(out, "{}", &MONTHS[(mo - 1) as usize][..3]),
                    Piece::Field('B') => write!(out, "{}", MONTHS[(mo - 1) as usize]),
                    Piece::Field('a') => write!(out, "{}", &WEEKDAYS[((x / 86_400_000) % 7) as usize][..3]),
                    Piece::Field('A') => write!(out, "{}", WEEKDAYS[((x / 86_400_000) % 7) as usize]),
                    Piece::Field(_) => write!(out, "{}", x / 1000),
                };
            }
        }))
    },
    ..NodeDef::BASE
};

/// The datetime family.
pub const NODES: &[NodeDef] = &[TO_TIMESTAMP, EPOCH_SCALE, EPOCH_OFFSET, DATE_COMPONENTS, TO_DATE, FORMAT_DATETIME];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::eval1;
    use crate::value::Value;

    fn ts(ms: u64) -> String {
        eval1(&TO_TIMESTAMP, &[], &[Value::U64(ms)]).as_str().unwrap().to_string()
    }

    #[test]
    fn known_instants() {
        assert_eq!(ts(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(ts(1), "1970-01-01T00:00:00.001Z");
        assert_eq!(ts(1_704_067_200_000), "2024-01-01T00:00:00.000Z");
        assert_eq!(ts(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(ts(4_107_542_400_000 - 1), "2100-02-28T23:59:59.999Z");
        assert_eq!(ts(4_107_542_400_000), "2100-03-01T00:00:00.000Z", "2100 is not a leap year");
        assert_eq!(ts(253_402_300_799_999), "9999-12-31T23:59:59.999Z");
        assert_eq!(ts(253_402_300_800_000), "10000-01-01T00:00:00.000Z");
        assert_eq!(ts(u64::MAX), "584556019-04-03T14:25:51.615Z");
    }

    #[test]
    fn signed_calendar_text_and_parsing_round_trip() {
        assert_eq!(date_text(0), "1970-01-01");
        assert_eq!(date_text(-1), "1969-12-31");
        assert_eq!(date_text(8035), "1992-01-01");
        assert_eq!(date_text(-719_528), "0000-01-01");
        assert_eq!(date_text(i32::MIN), "-5877641-06-23");
        assert_eq!(timestamp_text(-1), "1969-12-31T23:59:59.999Z");
        assert_eq!(timestamp_text(1_704_067_200_123), "2024-01-01T00:00:00.123Z");
        for days in (-800_000..800_000).step_by(997) {
            let (y, m, d) = civil_from_signed_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
            assert_eq!(parse_iso_millis(&date_text(days as i32)), Some(days * 86_400_000), "{days}");
        }
        for ms in [-1i64, 0, 1, 86_399_999, 1_704_067_200_123, -62_167_219_200_000] {
            assert_eq!(parse_iso_millis(&timestamp_text(ms)), Some(ms), "{ms}");
        }
        assert_eq!(parse_iso_millis("1992-01-01 12:30"), Some(8035 * 86_400_000 + 45_000_000));
        assert_eq!(parse_iso_millis("2024-02-29T00:00:00.5Z"), Some(1_709_164_800_500));
        for bad in ["2023-02-29", "1992-13-01", "1992-1-01", "1992-01-01T24:00", "x", "1992-01-01T10", ""] {
            assert_eq!(parse_iso_millis(bad), None, "{bad}");
        }
    }

    #[test]
    fn calendar_agrees_with_a_day_by_day_walk() {
        let leap = |y: u64| (y.is_multiple_of(4) && !y.is_multiple_of(100)) || y.is_multiple_of(400);
        let (mut y, mut m, mut d) = (1970u64, 1u64, 1u64);
        for days in 0..(800 * 366) {
            assert_eq!(civil_from_days(days), (y, m, d), "day {days}");
            let len = match m {
                2 if leap(y) => 29,
                2 => 28,
                4 | 6 | 9 | 11 => 30,
                _ => 31,
            };
            (y, m, d) = if d < len {
                (y, m, d + 1)
            } else if m < 12 {
                (y, m + 1, 1)
            } else {
                (y + 1, 1, 1)
            };
        }
    }

    #[test]
    fn components_and_epoch_arithmetic_are_upstreams() {
        use crate::nodes::testing::eval;
        // Upstream datetime.rs: 2024-03-15T14:30:45.123Z.
        let epoch = 19_797u64 * 86_400_000 + 14 * 3_600_000 + 30 * 60_000 + 45 * 1000 + 123;
        let out = eval(&DATE_COMPONENTS, &[], &[Value::U64(epoch)]).unwrap();
        let got: Vec<u64> = out.iter().map(|v| v.as_u64().unwrap()).collect();
        assert_eq!(got, [2024, 3, 15, 14, 30, 45, 123]);
        let zero = eval(&DATE_COMPONENTS, &[], &[Value::U64(0)]).unwrap();
        assert!(zero.iter().map(|v| v.as_u64().unwrap()).eq([1970, 1, 1, 0, 0, 0, 0]));
        assert_eq!(eval1(&EPOCH_SCALE, &[Value::U64(1000)], &[Value::U64(5)]).as_u64(), Some(5000));
        assert_eq!(eval1(&EPOCH_OFFSET, &[Value::U64(1_000_000)], &[Value::U64(500)]).as_u64(), Some(1_000_500));
        assert_eq!(eval1(&EPOCH_SCALE, &[], &[Value::U64(7)]).as_u64(), Some(7), "factor defaults to 1");
        assert_eq!(eval1(&EPOCH_SCALE, &[Value::U64(2)], &[Value::U64(u64::MAX)]).as_u64(), Some(u64::MAX - 1));
    }

    #[test]
    fn date_and_strftime_formats() {
        let f = |fmt: &str, ms: u64| {
            eval1(&FORMAT_DATETIME, &[Value::str(fmt)], &[Value::U64(ms)]).as_str().unwrap().to_string()
        };
        assert_eq!(eval1(&TO_DATE, &[], &[Value::U64(951_782_400_000)]).as_str(), Some("2000-02-29"));
        let t = 1_710_513_045_123; // 2024-03-15T14:30:45.123Z, a Friday
        assert_eq!(f("%Y-%m-%d %H:%M:%S.%f", t), "2024-03-15 14:30:45.123");
        assert_eq!(f("%a %d %b %y, day %j (%A, %B) %s %%", t), "Fri 15 Mar 24, day 075 (Friday, March) 1710513045 %");
        assert_eq!(f("%A", 0), "Thursday");
        assert_eq!(f("%j", 4_107_542_400_000 - 1), "059", "2100-02-28 is day 59: 2100 is not a leap year");
        assert_eq!(f("plain", 5), "plain");
        use crate::nodes::testing::build_err;
        assert!(build_err(&FORMAT_DATETIME, &[Value::str("%Q")], &[U64]).contains("unknown field %Q"));
        assert!(build_err(&FORMAT_DATETIME, &[Value::str("50%")], &[U64]).contains("lone %"));
    }
}
