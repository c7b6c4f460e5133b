//! Exact fixed-point numbers, `decimal(p, s)`: the value model and the one
//! copy of every decimal rule (result types of `+ - *` and `round`, the
//! arithmetic with its overflow checks, conversions from and to integers and
//! floats, the text form). A value is an i128 count of 10^-s units whose
//! magnitude stays below 10^p; anything past that is an error, never a wrap.

use crate::types::{DecimalType, PortType, DECIMAL_MAX_PRECISION};
use std::fmt;

/// A decimal value: `units` × 10^-scale, of type `decimal(precision, scale)`.
/// The i128 is kept as four 32-bit words (4-byte alignment), so the value
/// and its type fit in 20 bytes and a [`crate::Value`] stays 24 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Decimal {
    words: [u32; 4],
    ty: DecimalType,
}

/// 10^n for n in 0..=38, from a table (every rescale and range check asks).
#[inline]
pub fn pow10(n: u8) -> i128 {
    POW10[n as usize]
}

/// 10^0 ..= 10^38.
const POW10: [i128; 39] = {
    let mut table = [1i128; 39];
    let mut i = 1;
    while i < 39 {
        table[i] = table[i - 1] * 10;
        i += 1;
    }
    table
};

impl Decimal {
    /// The value `units` × 10^-scale of type `ty`, or why it does not fit
    /// (more than `ty.precision` digits).
    #[inline]
    pub fn new(units: i128, ty: DecimalType) -> Result<Decimal, String> {
        if units.unsigned_abs() >= pow10(ty.precision) as u128 {
            return Err(misfit(units, ty));
        }
        Ok(Decimal::from_parts(units, ty))
    }

    /// The value without the range check (the caller knows it fits).
    #[inline]
    fn from_parts(units: i128, ty: DecimalType) -> Decimal {
        let bits = units as u128;
        Decimal { words: [bits as u32, (bits >> 32) as u32, (bits >> 64) as u32, (bits >> 96) as u32], ty }
    }

    /// The count of 10^-scale units.
    #[inline]
    pub fn units(self) -> i128 {
        let [a, b, c, d] = self.words.map(u128::from);
        (a | b << 32 | c << 64 | d << 96) as i128
    }

    /// The type's parameters.
    #[inline]
    pub fn ty(self) -> DecimalType {
        self.ty
    }

    /// The 16 little-endian bytes of the units: how a decimal is carried in
    /// a Ref slot and a column row.
    #[inline]
    pub fn to_bytes(self) -> [u8; 16] {
        self.units().to_le_bytes()
    }

    /// The decimal of type `ty` whose units are the 16 little-endian
    /// `bytes` (`None` when there are not 16).
    #[inline]
    pub fn from_bytes(bytes: &[u8], ty: DecimalType) -> Option<Decimal> {
        let units = i128::from_le_bytes(bytes.try_into().ok()?);
        Some(Decimal::from_parts(units, ty))
    }

    /// The value at `ty`: rescaled (rounding half away from zero when the
    /// scale drops) and range-checked against `ty.precision`.
    pub fn rescale(self, ty: DecimalType) -> Result<Decimal, String> {
        let units = rescale_units(self.units(), self.ty.scale, ty.scale)
            .ok_or_else(|| format!("{self} does not fit decimal({},{})", ty.precision, ty.scale))?;
        Decimal::new(units, ty)
    }

    /// The value as the nearest f64.
    pub fn to_f64(self) -> f64 {
        // Exact for units below 2^53; otherwise the text is parsed, which
        // rounds once (a division by 10^s would round twice).
        let units = self.units();
        if units.unsigned_abs() < (1u128 << 53) {
            units as f64 / pow10(self.ty.scale) as f64
        } else {
            self.to_string().parse().unwrap_or(f64::NAN)
        }
    }

    /// The integer part (truncated toward zero), as an i128.
    pub fn trunc(self) -> i128 {
        self.units() / pow10(self.ty.scale)
    }

    /// The decimal of type `ty` nearest `x` (half away from zero), or why
    /// there is none (NaN, an infinity, or too many digits).
    pub fn from_f64(x: f64, ty: DecimalType) -> Result<Decimal, String> {
        if !x.is_finite() {
            return Err(format!("{x} has no decimal value"));
        }
        let scaled = x * pow10(ty.scale) as f64;
        let limit = pow10(ty.precision) as f64;
        if scaled.abs().round() >= limit {
            return Err(format!("{x} does not fit decimal({},{})", ty.precision, ty.scale));
        }
        // Exact halves of the scaled f64 go away from zero (f64::round).
        Decimal::new(scaled.round() as i128, ty)
    }

    /// The integer `n` as a decimal of type `ty`, or why it does not fit.
    #[inline]
    pub fn from_int(n: i128, ty: DecimalType) -> Result<Decimal, String> {
        IntToDecimal::new(ty, None)?.apply(n)
    }

    /// Parses a literal's digits (`12.34`, `-0.5`, `7`): its type is the
    /// narrowest that holds it as written (scale: the digits after the
    /// point; precision: all digits, at least the scale and at least 1).
    pub fn parse_literal(text: &str) -> Result<Decimal, String> {
        let bad = || format!("'{text}' is not a decimal literal: write digits with an optional point, e.g. 12.34d");
        let (negative, body) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (whole, frac) = body.split_once('.').unwrap_or((body, ""));
        if whole.is_empty() || !whole.bytes().all(|b| b.is_ascii_digit()) || !frac.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let whole = whole.trim_start_matches('0');
        let digits = whole.len() + frac.len();
        if digits > DECIMAL_MAX_PRECISION as usize {
            return Err(format!(
                "decimal literal {text} has {digits} digits: a decimal holds at most {DECIMAL_MAX_PRECISION}"
            ));
        }
        let ty = DecimalType::new((digits.max(1)) as u32, frac.len() as u32)?;
        let mut units: i128 = format!("{whole}{frac}").parse().unwrap_or(0);
        if negative {
            units = -units;
        }
        Decimal::new(units, ty)
    }
}

/// The conversion of integers to one decimal type, optionally times a fixed
/// decimal (money as `(cents as decimal(13, 0)) * 0.01d`), with its range
/// check and its scaling worked out once: an integer fits `decimal(p, s)`
/// when its magnitude is below 10^(p - s), and its units are then the
/// integer times 10^s (times the factor's units). The factor is taken only
/// where the product cannot pass 38 digits, so the conversion is the one
/// thing that can fail.
#[derive(Clone, Copy, Debug)]
pub struct IntToDecimal {
    /// The integers whose magnitude is below this fit `to`.
    limit: u128,
    /// The result's units for the integer 1: 10^s times the factor's units.
    unit: i128,
    /// The type converted to (what a misfit names).
    to: DecimalType,
    /// The result's type: `to`, or the product's type with the factor.
    out: DecimalType,
}

impl IntToDecimal {
    /// The conversion to `to`, then times `factor` when one is given; fails
    /// when the product's digits could pass 38.
    pub fn new(to: DecimalType, factor: Option<Decimal>) -> Result<IntToDecimal, String> {
        let whole = to.precision - to.scale;
        let (unit, out) = match factor {
            None => (pow10(to.scale), to),
            Some(f) => {
                if u32::from(to.precision) + u32::from(f.ty.precision) > u32::from(DECIMAL_MAX_PRECISION) {
                    return Err(format!(
                        "decimal({},{}) times {f} could pass {DECIMAL_MAX_PRECISION} digits: write the cast and the multiply apart",
                        to.precision, to.scale
                    ));
                }
                // Below 10^(s + p_f) <= 10^38: no overflow.
                (pow10(to.scale) * f.units(), DecimalOp::Mul.result_type(to, f.ty)?)
            }
        };
        Ok(IntToDecimal { limit: pow10(whole) as u128, unit, to, out })
    }

    /// The result's type.
    pub fn out(&self) -> DecimalType {
        self.out
    }

    /// The units of `n`'s result, or why `n` does not fit the type converted
    /// to. The product stays below 10^38 (`n` below 10^(p - s), the unit
    /// below 10^(s + p_f), p + p_f at most 38), so it needs no check.
    #[inline]
    pub fn units(&self, n: i128) -> Result<i128, String> {
        if n.unsigned_abs() >= self.limit {
            return Err(int_misfit(n, self.to));
        }
        Ok(n * self.unit)
    }

    /// `n`'s result as a decimal.
    #[inline]
    pub fn apply(&self, n: i128) -> Result<Decimal, String> {
        Ok(Decimal::from_parts(self.units(n)?, self.out))
    }
}

/// Why `units` × 10^-scale is no value of `ty` (more digits than it holds);
/// kept out of line, off the path of every value that fits.
#[cold]
#[inline(never)]
fn misfit(units: i128, ty: DecimalType) -> String {
    format!("{} does not fit decimal({},{})", units_text(units, ty.scale), ty.precision, ty.scale)
}

/// Why the integer `n` is no value of `ty` (more digits than it holds, or
/// past the i128 range once scaled); out of line, as [`misfit`].
#[cold]
#[inline(never)]
fn int_misfit(n: i128, ty: DecimalType) -> String {
    format!("{n} does not fit decimal({},{})", ty.precision, ty.scale)
}

/// `a × b`, `None` on i128 overflow. When both fit an i64 (every decimal
/// of at most 18 digits) the product is one widening multiply, which cannot
/// overflow (its magnitude stays below 2^126); otherwise the full checked
/// 128-bit multiply.
#[inline]
pub fn checked_mul_units(a: i128, b: i128) -> Option<i128> {
    match (i64::try_from(a), i64::try_from(b)) {
        (Ok(x), Ok(y)) => Some(i128::from(x) * i128::from(y)),
        _ => a.checked_mul(b),
    }
}

/// `units` at scale `from` moved to scale `to` (half away from zero when
/// digits are dropped); `None` on i128 overflow.
#[inline]
pub fn rescale_units(units: i128, from: u8, to: u8) -> Option<i128> {
    if to >= from {
        return checked_mul_units(units, pow10(to - from));
    }
    let divisor = pow10(from - to);
    let (q, r) = (units / divisor, units % divisor);
    Some(if r.unsigned_abs() * 2 >= divisor as u128 { q + units.signum() } else { q })
}

/// The most bytes [`write_units_text`] writes: a sign, 39 digits (the
/// units' 38 and a leading `0` before the point) and the point.
pub const DECIMAL_TEXT_BYTES: usize = 41;

/// Writes the text of `units` × 10^-scale (`901.00`, `-0.05`, `12`: every
/// digit of the scale, a `0` before a point with nothing else before it)
/// into the start of `out`; returns its length. No allocation: the digits
/// come from an integer formatter (a 64-bit one whenever the units fit).
pub fn write_units_text(units: i128, scale: u8, out: &mut [u8; DECIMAL_TEXT_BYTES]) -> usize {
    let magnitude = units.unsigned_abs();
    if let (Ok(small), true) = (u64::try_from(magnitude), scale <= 19) {
        return write_small_units_text(units < 0, small, usize::from(scale), out);
    }
    let mut int = itoa::Buffer::new();
    let digits = int.format(magnitude).as_bytes();
    let mut at = 0;
    let mut put = |bytes: &[u8]| {
        out[at..at + bytes.len()].copy_from_slice(bytes);
        at += bytes.len();
    };
    if units < 0 {
        put(b"-");
    }
    let scale = usize::from(scale);
    if scale == 0 {
        put(digits);
        return at;
    }
    let whole = digits.len().saturating_sub(scale);
    put(if whole == 0 { b"0" } else { &digits[..whole] });
    put(b".");
    for _ in digits.len()..scale {
        put(b"0");
    }
    put(&digits[whole..]);
    at
}

/// `"00" "01" ... "99"`: the two digits of every number below 100, for
/// writers that put down two digits a step (decimal text, the CSV writer's
/// integers).
pub(crate) const DIGIT_PAIRS: [u8; 200] = {
    let mut pairs = [0; 200];
    let mut i = 0;
    while i < 100 {
        pairs[2 * i] = b'0' + (i / 10) as u8;
        pairs[2 * i + 1] = b'0' + (i % 10) as u8;
        i += 1;
    }
    pairs
};

/// [`write_units_text`] for a magnitude of at most 64 bits and a scale of
/// at most 19 (every decimal of at most 18 digits): the digits are written
/// two at a time from the last, right-aligned in a buffer of zeros (the
/// zeros a small value's text needs before its digits are there already),
/// then the whole part and the fraction are copied out in blocks of fixed
/// size, with the point between them.
#[inline]
fn write_small_units_text(negative: bool, magnitude: u64, scale: usize, out: &mut [u8; DECIMAL_TEXT_BYTES]) -> usize {
    /// Where the digits end; the 20 bytes after it keep the fixed-size
    /// copies inside the buffer.
    const END: usize = 52;
    let mut digits = [b'0'; END + 20];
    let (mut at, mut rest) = (END, magnitude);
    let mut put_pair = |at: &mut usize, pair: usize| {
        *at -= 2;
        digits[*at..*at + 2].copy_from_slice(&DIGIT_PAIRS[2 * pair..2 * pair + 2]);
    };
    while rest >= 100 {
        put_pair(&mut at, (rest % 100) as usize);
        rest /= 100;
    }
    if rest >= 10 {
        put_pair(&mut at, rest as usize);
    } else {
        at -= 1;
        digits[at] = b'0' + rest as u8;
    }
    // At most 20 digits and 19 of scale: `start` is at least END - 20.
    let split = END - scale;
    let start = at.min(split - 1);
    let whole = split - start;
    let sign = usize::from(negative);
    out[0] = b'-';
    out[sign..sign + 20].copy_from_slice(&digits[start..start + 20]);
    if scale == 0 {
        return sign + whole;
    }
    out[sign + whole] = b'.';
    out[sign + whole + 1..sign + whole + 20].copy_from_slice(&digits[split..split + 19]);
    sign + whole + 1 + scale
}

/// The text of `units` × 10^-scale (see [`write_units_text`]).
fn units_text(units: i128, scale: u8) -> String {
    let mut buf = [0; DECIMAL_TEXT_BYTES];
    let len = write_units_text(units, scale, &mut buf);
    String::from_utf8_lossy(&buf[..len]).into_owned()
}

/// The exact text, every digit of the scale written: `901.00`, never `901.0`.
impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0; DECIMAL_TEXT_BYTES];
        let len = write_units_text(self.units(), self.ty.scale, &mut buf);
        f.write_str(std::str::from_utf8(&buf[..len]).unwrap_or_default())
    }
}

/// The decimal operators, each with its result type rule and its rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecimalOp {
    /// `a + b`.
    Add,
    /// `a - b`.
    Sub,
    /// `a * b`.
    Mul,
}

impl DecimalOp {
    /// The operator's symbol.
    pub fn symbol(self) -> &'static str {
        match self {
            DecimalOp::Add => "+",
            DecimalOp::Sub => "-",
            DecimalOp::Mul => "*",
        }
    }

    /// The result type of `a op b`: add and subtract keep the larger scale
    /// and one more whole digit than the wider operand; multiply adds the
    /// scales and the precisions. Precision is capped at 38; a scale past 38
    /// names no type (the error says so).
    pub fn result_type(self, a: DecimalType, b: DecimalType) -> Result<DecimalType, String> {
        let (pa, sa, pb, sb) = (a.precision as u32, a.scale as u32, b.precision as u32, b.scale as u32);
        let max = DECIMAL_MAX_PRECISION as u32;
        match self {
            DecimalOp::Add | DecimalOp::Sub => {
                let (whole, scale) = a.digits_holding(b);
                DecimalType::new((whole + scale + 1).min(max), scale)
            }
            DecimalOp::Mul => {
                let scale = sa + sb;
                if scale > max {
                    return Err(format!(
                        "decimal({pa},{sa}) * decimal({pb},{sb}) would have scale {scale}: at most {max}; round an operand first"
                    ));
                }
                DecimalType::new((pa + pb).min(max), scale)
            }
        }
    }

    /// `a op b` at type `out` (its [`DecimalOp::result_type`]), or why it
    /// has no value there (the result has more digits than `out` holds).
    #[inline]
    pub fn apply(self, a: Decimal, b: Decimal, out: DecimalType) -> Result<Decimal, String> {
        let overflow = || format!("{a} {} {b} overflows decimal({},{})", self.symbol(), out.precision, out.scale);
        let units = match self {
            DecimalOp::Add | DecimalOp::Sub => {
                let x = rescale_units(a.units(), a.ty.scale, out.scale).ok_or_else(overflow)?;
                let y = rescale_units(b.units(), b.ty.scale, out.scale).ok_or_else(overflow)?;
                match self {
                    DecimalOp::Add => x.checked_add(y),
                    _ => x.checked_sub(y),
                }
                .ok_or_else(overflow)?
            }
            DecimalOp::Mul => checked_mul_units(a.units(), b.units()).ok_or_else(overflow)?,
        };
        Decimal::new(units, out).map_err(|_| overflow())
    }
}

/// The type of `round(x, digits)` for `x: decimal(p, s)`: scale `digits`
/// (when below `s`; else `x`'s own type) with one more whole digit for the
/// carry, capped at 38.
pub fn round_type(x: DecimalType, digits: u8) -> DecimalType {
    if digits >= x.scale {
        return x;
    }
    let whole = (x.precision - x.scale) as u32 + 1;
    DecimalType { precision: (whole + digits as u32).min(DECIMAL_MAX_PRECISION as u32) as u8, scale: digits }
}

/// The ordering of two decimals of any types, exactly (no rounding).
pub fn compare(a: Decimal, b: Decimal) -> std::cmp::Ordering {
    let scale = a.ty.scale.max(b.ty.scale);
    match (rescale_units(a.units(), a.ty.scale, scale), rescale_units(b.units(), b.ty.scale, scale)) {
        (Some(x), Some(y)) => x.cmp(&y),
        // Only a value of 38 digits at a small scale overflows when moved
        // to a larger one, and then its magnitude exceeds the other's.
        (None, _) => a.units().signum().cmp(&0),
        (_, None) => 0.cmp(&b.units().signum()),
    }
}

/// The decimal type of a port type, or a message naming the type that is not one.
pub fn expect_decimal(ty: PortType) -> Result<DecimalType, String> {
    ty.decimal().ok_or_else(|| format!("expected a decimal, got {ty}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(text: &str) -> Decimal {
        Decimal::parse_literal(text).unwrap()
    }

    fn ty(p: u8, s: u8) -> DecimalType {
        DecimalType { precision: p, scale: s }
    }

    /// The text by string arithmetic: the digits, zero-padded to one more
    /// than the scale, with the point put before the last `scale`.
    fn reference_text(units: i128, scale: u8) -> String {
        let digits = units.unsigned_abs().to_string();
        let sign = if units < 0 { "-" } else { "" };
        let scale = scale as usize;
        if scale == 0 {
            return format!("{sign}{digits}");
        }
        let padded = format!("{digits:0>width$}", width = scale + 1);
        let (whole, frac) = padded.split_at(padded.len() - scale);
        format!("{sign}{whole}.{frac}")
    }

    #[test]
    fn text_is_written_digit_for_digit_at_every_scale_and_size() {
        let max = pow10(38) - 1;
        let mut units = vec![0, 1, -1, 5, -5, 99, 100, -100, 12_345, max, -max, i128::from(u64::MAX)];
        units.extend([
            i128::from(u64::MAX) + 1,
            -(i128::from(u64::MAX) + 1),
            i128::from(i64::MIN),
            i128::MAX,
            i128::MIN,
        ]);
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..2000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let wide = (i128::from(x) << 64 | i128::from(x.rotate_left(17))) % pow10(38);
            let digits = 1 + (x >> 58) as u8 % 38;
            units.push(if x & 1 == 0 { wide % pow10(digits) } else { -(wide % pow10(digits)) });
        }
        for &u in &units {
            for scale in 0..=38u8 {
                let mut buf = [0; DECIMAL_TEXT_BYTES];
                let len = write_units_text(u, scale, &mut buf);
                assert_eq!(std::str::from_utf8(&buf[..len]).unwrap(), reference_text(u, scale), "{u} at scale {scale}");
            }
        }
    }

    #[test]
    fn products_are_checked_whether_or_not_the_factors_fit_64_bits() {
        let big = i128::from(i64::MAX);
        assert_eq!(checked_mul_units(big, big), Some(big * big));
        assert_eq!(checked_mul_units(i128::from(i64::MIN), i128::from(i64::MIN)), Some(1i128 << 126));
        assert_eq!(checked_mul_units(-7, 6), Some(-42));
        assert_eq!(checked_mul_units(big + 1, 2), Some((big + 1) * 2));
        assert_eq!(checked_mul_units(pow10(38), pow10(1)), None);
        assert_eq!(checked_mul_units(i128::MAX, 2), None);
        assert_eq!(checked_mul_units(i128::MIN, -1), None);
    }

    #[test]
    fn text_keeps_every_digit_of_the_scale() {
        assert_eq!(d("901.00").to_string(), "901.00");
        assert_eq!(d("-0.05").to_string(), "-0.05");
        assert_eq!(d("12").to_string(), "12");
        assert_eq!(d("0.5").ty(), ty(1, 1));
        assert_eq!(d("12.340").ty(), ty(5, 3));
    }

    #[test]
    fn arithmetic_follows_the_scale_rules() {
        let (a, b) = (d("1.25"), d("10.5"));
        let add = DecimalOp::Add.result_type(a.ty(), b.ty()).unwrap();
        assert_eq!(add, ty(5, 2));
        assert_eq!(DecimalOp::Add.apply(a, b, add).unwrap().to_string(), "11.75");
        assert_eq!(DecimalOp::Sub.apply(a, b, add).unwrap().to_string(), "-9.25");
        let mul = DecimalOp::Mul.result_type(a.ty(), b.ty()).unwrap();
        assert_eq!(mul, ty(6, 3));
        assert_eq!(DecimalOp::Mul.apply(a, b, mul).unwrap().to_string(), "13.125");
    }

    #[test]
    fn overflow_is_an_error_never_a_wrap() {
        let big = Decimal::new(pow10(38) - 1, ty(38, 0)).unwrap();
        let out = DecimalOp::Add.result_type(big.ty(), big.ty()).unwrap();
        assert!(DecimalOp::Add.apply(big, big, out).unwrap_err().contains("overflows decimal(38,0)"));
        assert!(DecimalOp::Mul.apply(big, big, ty(38, 0)).is_err());
        assert!(Decimal::new(1000, ty(3, 0)).is_err());
    }

    #[test]
    fn conversions_round_half_away_from_zero() {
        assert_eq!(Decimal::from_f64(2.5, ty(5, 0)).unwrap().to_string(), "3");
        assert_eq!(Decimal::from_f64(-2.5, ty(5, 0)).unwrap().to_string(), "-3");
        assert_eq!(Decimal::from_f64(0.125, ty(5, 2)).unwrap().to_string(), "0.13");
        assert!(Decimal::from_f64(f64::NAN, ty(5, 2)).is_err());
        assert!(Decimal::from_f64(1e10, ty(5, 2)).is_err());
        assert_eq!(d("-1.005").rescale(ty(5, 2)).unwrap().to_string(), "-1.01");
        assert_eq!(d("123.45").to_f64(), 123.45);
        assert_eq!(Decimal::from_int(-7, ty(15, 2)).unwrap().to_string(), "-7.00");
        assert!(Decimal::from_int(1_000_000, ty(5, 0)).is_err());
        assert_eq!(d("-7.99").trunc(), -7);
    }

    #[test]
    fn integers_fit_below_ten_to_the_whole_digits_and_scale_by_the_factor() {
        let cents = IntToDecimal::new(ty(13, 0), Some(d("0.01"))).unwrap();
        assert_eq!(cents.out(), ty(15, 2));
        assert_eq!(cents.apply(9_999_999_999_999).unwrap().to_string(), "99999999999.99");
        assert_eq!(cents.apply(-9_999_999_999_999).unwrap().to_string(), "-99999999999.99");
        assert_eq!(cents.apply(10_000_000_000_000).unwrap_err(), "10000000000000 does not fit decimal(13,0)");
        assert!(cents.apply(i128::MIN).is_err());
        let scaled = IntToDecimal::new(ty(5, 2), None).unwrap();
        assert_eq!(scaled.apply(999).unwrap().to_string(), "999.00");
        assert!(scaled.apply(1000).is_err());
        assert!(scaled.apply(-1000).is_err());
        assert!(IntToDecimal::new(ty(30, 0), Some(d("0.000000001"))).unwrap_err().contains("could pass 38 digits"));
    }

    #[test]
    fn comparison_is_exact_across_scales() {
        use std::cmp::Ordering::*;
        assert_eq!(compare(d("1.50"), d("1.5")), Equal);
        assert_eq!(compare(d("-0.01"), d("0")), Less);
        let big = Decimal::new(pow10(38) - 1, ty(38, 0)).unwrap();
        assert_eq!(compare(big, d("0.5")), Greater);
        assert_eq!(round_type(ty(15, 2), 0), ty(14, 0));
    }

    #[test]
    fn bytes_round_trip() {
        let x = d("-123456789012345678901234567.89");
        assert_eq!(Decimal::from_bytes(&x.to_bytes(), x.ty()), Some(x));
    }
}
