//! The proleptic Gregorian calendar of `timestamp` and `date` values: days
//! and milliseconds since 1970-01-01 to calendar fields and back, their ISO
//! text, and zero-padded digits. Plain functions over integers and strings
//! (the value model's text and the datetime nodes both use them).

/// NaT, "not a time": the int64 numpy and Arrow give a `datetime64` or a
/// timestamp that holds no instant, `i64::MIN` in every unit. A timestamp
/// never holds it: see [`timestamp_millis`].
pub const NAT: i64 = i64::MIN;

/// Why NaT is refused: the one wording of every conversion to a timestamp
/// (a host write, a parsed text, an extern default).
pub const NAT_REFUSED: &str = "NaT (not a time), which is no instant: write None for an absent value";

/// `ms` as a timestamp's milliseconds since 1970-01-01: every `i64` but
/// [`NAT`] (which would read back as NaT in numpy and Arrow, and render as
/// the year -292275055). The one rule of every conversion to a timestamp.
pub fn timestamp_millis(ms: i64) -> Result<i64, &'static str> {
    if ms == NAT {
        Err(NAT_REFUSED)
    } else {
        Ok(ms)
    }
}

/// Appends `x` in decimal to `out`, zero-padded to at least `width` digits.
#[inline]
pub fn push_u64_padded(out: &mut String, x: u64, width: usize) {
    let mut buf = itoa::Buffer::new();
    let digits = buf.format(x);
    push_fill(out, '0', width.saturating_sub(digits.len()));
    out.push_str(digits);
}

/// Appends `n` copies of `fill` (a run of padding): a zero or a space is
/// copied from a run of them, a slice at a time, not pushed one character
/// at a time; any other character is pushed `n` times.
#[inline]
pub fn push_fill(out: &mut String, fill: char, n: usize) {
    const ZEROS: &str = "00000000000000000000000000000000";
    const SPACES: &str = "                                ";
    let run = match fill {
        '0' => ZEROS,
        ' ' => SPACES,
        other => return out.extend(std::iter::repeat_n(other, n)),
    };
    match n {
        0 => {}
        1 => out.push(fill),
        _ => {
            out.reserve(n);
            let mut left = n;
            while left > 0 {
                let k = left.min(run.len());
                out.push_str(&run[..k]);
                left -= k;
            }
        }
    }
}

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
    push_time(out, h, mi, s, ms);
}

/// Appends `YYYY-MM-DD` of a non-negative year: `format!("{y:04}-{mo:02}-{d:02}")`.
pub fn push_ymd(out: &mut String, y: u64, mo: u64, d: u64) {
    if y <= 9999 && mo <= 99 && d <= 99 {
        // The common case, digit by digit into ten bytes copied at once (an
        // ASCII run is always text; the check is never expected to fail).
        let digit = |v: u64| b'0' + (v % 10) as u8;
        let text = [
            digit(y / 1000),
            digit(y / 100),
            digit(y / 10),
            digit(y),
            b'-',
            digit(mo / 10),
            digit(mo),
            b'-',
            digit(d / 10),
            digit(d),
        ];
        if let Ok(text) = std::str::from_utf8(&text) {
            out.push_str(text);
            return;
        }
    }
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

/// Appends `Thh:mm:ss.mmmZ`, each field zero-padded to its width.
fn push_time(out: &mut String, h: u64, mi: u64, s: u64, ms: u64) {
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
    push_time(out, h, mi, s, milli);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padded_digits_and_dates_are_the_formatters_own() {
        for (x, width) in [(0, 0), (7, 1), (7, 2), (42, 4), (12345, 4), (9, 32), (9, 33), (123, 70)] {
            let mut out = String::from("<");
            push_u64_padded(&mut out, x, width);
            assert_eq!(out, format!("<{x:0width$}"));
        }
        for (y, mo, d) in [(1970, 1, 1), (2024, 12, 31), (0, 2, 29), (9999, 9, 9), (10000, 1, 1), (123456, 10, 5)] {
            let mut out = String::new();
            push_ymd(&mut out, y, mo, d);
            assert_eq!(out, format!("{y:04}-{mo:02}-{d:02}"));
        }
        let mut out = String::new();
        push_fill(&mut out, '*', 3);
        push_fill(&mut out, ' ', 40);
        assert_eq!(out, format!("***{}", " ".repeat(40)));
    }
}
