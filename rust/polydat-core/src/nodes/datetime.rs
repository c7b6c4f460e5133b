//! Datetime family: epoch milliseconds rendered as UTC timestamps.

use crate::node::kit::to_ref;
use crate::node::{wire, NodeDef, Outputs};
use crate::types::PortType::{Str, U64};

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
    let (secs, ms) = (epoch_ms / 1000, epoch_ms % 1000);
    let (mins, s) = (secs / 60, secs % 60);
    let (hours, mi) = (mins / 60, mins % 60);
    let (days, h) = (hours / 24, hours % 24);
    let (y, mo, d) = civil_from_days(days);
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{ms:03}Z")
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

fn year_text(y: i64) -> String {
    if y < 0 {
        format!("-{:04}", -y)
    } else {
        format!("{y:04}")
    }
}

/// `YYYY-MM-DD` of a `date` (days since 1970-01-01).
pub fn date_text(days: i32) -> String {
    let (y, m, d) = civil_from_signed_days(i64::from(days));
    format!("{}-{m:02}-{d:02}", year_text(y))
}

/// `YYYY-MM-DDThh:mm:ss.mmmZ` of a `timestamp` (milliseconds since
/// 1970-01-01T00:00:00Z, negative before it).
pub fn timestamp_text(ms: i64) -> String {
    let (days, in_day) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000) as u64);
    let (y, mo, d) = civil_from_signed_days(days);
    let (secs, milli) = (in_day / 1000, in_day % 1000);
    let (h, mi, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    format!("{}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{milli:03}Z", year_text(y))
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
    build: |_| Ok(to_ref(timestamp)),
    ..NodeDef::BASE
};

/// The datetime family.
pub const NODES: &[NodeDef] = &[TO_TIMESTAMP];

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
}
