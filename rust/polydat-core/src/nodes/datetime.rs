//! Datetime family: epoch milliseconds rendered as UTC timestamps.

use crate::node::by_bytes::to_text;
use crate::node::kit::{map1, split_u64};
use crate::node::{konst, konst_or, wire, Lit, NodeDef, Outputs, Samples, Testing};
use crate::types::PortType::{Str, U64};

use crate::calendar::push_ymd;
pub use crate::calendar::{
    civil_from_days, civil_from_signed_days, date_text, days_from_civil, days_in_month, parse_iso_millis,
    push_date_text, push_timestamp, push_timestamp_text, timestamp, timestamp_text,
};
use std::fmt::Write;

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
    lower: Some(|l, c, x| {
        let k = l.iconst(c.u64(0));
        Some(vec![l.imul(x[0], k)])
    }),
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
    lower: Some(|l, c, x| {
        let k = l.iconst(c.u64(0));
        Some(vec![l.iadd(x[0], k)])
    }),
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
    testing: Testing {
        samples: &[("format", Samples::Str(&["%Y-%m-%d", "%H:%M:%S.%f", "%a %b %d %Y %j", "x%%y %s"]))],
        ..Testing::BASE
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
