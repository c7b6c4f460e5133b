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
