//! Luhn family: numbers whose last digit is the Luhn check digit of the
//! others (payment card numbers, many national and account identifiers).
//!
//! The Luhn sum walks the digits before the check digit from the right,
//! doubling every other one starting with the rightmost (a doubled digit
//! above 9 counts as the sum of its two digits); the check digit brings the
//! sum to a multiple of 10.

use crate::node::by_bytes::to_text;
use crate::node::{konst, wire, NodeDef, Outputs, Samples, Testing};
use crate::nodes::hash::xxh3_u64;
use crate::types::PortType::{Str, U64};

/// The longest number `luhn_number` writes.
const MAX_DIGITS: usize = 64;

/// The decimal digits one u64 gives before a fresh hash is drawn.
const DIGITS_PER_HASH: u32 = 19;

/// The Luhn check digit of `digits` (ASCII digits, the check digit not
/// among them).
pub fn luhn_check_digit(digits: &[u8]) -> u8 {
    /// A digit doubled, its two digits summed when above 9.
    const DOUBLED: [u32; 10] = [0, 2, 4, 6, 8, 1, 3, 5, 7, 9];
    let digit = |d: u8| usize::from(d.wrapping_sub(b'0')).min(9);
    let mut from_right = digits.iter().rev();
    let mut sum = 0;
    while let Some(&doubled) = from_right.next() {
        sum += DOUBLED[digit(doubled)];
        if let Some(&kept) = from_right.next() {
            sum += digit(kept) as u32;
        }
    }
    ((10 - sum % 10) % 10) as u8
}

/// Appends a number of `length` digits to `out`: `prefix`, then digits
/// drawn from `x` (each `x % 10`, then `x / 10`, a fresh xxh3 of the last
/// hash every 19 digits), then the Luhn check digit of all before it.
fn push_luhn_number(out: &mut String, x: u64, prefix: &[u8], length: usize) {
    let mut digits = [0u8; MAX_DIGITS];
    digits[..prefix.len()].copy_from_slice(prefix);
    let (mut h, mut left) = (x, DIGITS_PER_HASH);
    for d in &mut digits[prefix.len()..length - 1] {
        if left == 0 {
            h = xxh3_u64(h);
            left = DIGITS_PER_HASH;
        }
        *d = b'0' + (h % 10) as u8;
        h /= 10;
        left -= 1;
    }
    digits[length - 1] = b'0' + luhn_check_digit(&digits[..length - 1]);
    // Digits are ASCII.
    out.push_str(std::str::from_utf8(&digits[..length]).unwrap_or_default());
}

/// `luhn_number`: a number of `length` digits starting with `prefix`, the
/// rest drawn from the input, the last one its Luhn check digit.
pub const LUHN_NUMBER: NodeDef = NodeDef {
    name: "luhn_number",
    category: "luhn",
    doc: "A number of length digits (at most 64): prefix (digits, may be empty), then digits drawn from input (input % 10, then input / 10; a fresh xxh3 every 19 digits: hash first), then the Luhn check digit of all before it. luhn_number(h, \"4\", 16) is shaped like a Visa test card.",
    params: &[wire("input", U64), konst("prefix", Str), konst("length", U64)],
    outputs: Outputs::One(Str),
    build: |c| {
        let prefix = c.str(0).as_bytes().to_vec();
        if !prefix.iter().all(u8::is_ascii_digit) {
            return Err(format!("prefix must be digits, got {:?}", c.str(0)));
        }
        let length = usize::try_from(c.u64(1)).unwrap_or(usize::MAX);
        if length <= prefix.len() || length > MAX_DIGITS {
            return Err(format!(
                "length must be more than the prefix's {} digits and at most {MAX_DIGITS}, got {}",
                prefix.len(),
                c.u64(1)
            ));
        }
        Ok(to_text(move |x: u64, out: &mut String| push_luhn_number(out, x, &prefix, length)))
    },
    testing: Testing {
        samples: &[("prefix", Samples::Str(&["4", "", "51"])), ("length", Samples::U64(&[16, 3, 40]))],
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// The Luhn family.
pub const NODES: &[NodeDef] = &[LUHN_NUMBER];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::{build_err, eval1};
    use crate::value::Value;

    fn number(prefix: &str, length: u64, x: u64) -> String {
        let v = eval1(&LUHN_NUMBER, &[Value::str(prefix), Value::U64(length)], &[Value::U64(x)]);
        v.as_str().unwrap().to_string()
    }

    /// The Luhn test as a validator runs it: the whole number's sum, the
    /// check digit included, is a multiple of 10.
    fn valid(number: &str) -> bool {
        let sum: u32 = number
            .bytes()
            .rev()
            .enumerate()
            .map(|(i, d)| {
                let v = u32::from(d - b'0');
                if i % 2 == 1 {
                    (2 * v) / 10 + (2 * v) % 10
                } else {
                    v
                }
            })
            .sum();
        sum % 10 == 0
    }

    #[test]
    fn numbers_have_the_prefix_length_and_a_valid_check_digit() {
        for (prefix, length) in [("4", 16), ("", 1), ("51", 16), ("", 40), ("3", 15), ("12345", 64)] {
            for x in [0u64, 1, 42, u64::MAX, 0x9e37_79b9_7f4a_7c15] {
                let n = number(prefix, length, x);
                assert_eq!(n.len() as u64, length, "{n}");
                assert!(n.starts_with(prefix) && n.bytes().all(|b| b.is_ascii_digit()), "{n}");
                assert!(valid(&n), "{n}");
            }
        }
        // The worked example of the Luhn algorithm: 7992739871 has check digit 3.
        assert_eq!(luhn_check_digit(b"7992739871"), 3);
        // The digits after the prefix are the input's, lowest first.
        assert!(number("4", 16, 12345).starts_with("454321000000000"));
        // Past 19 digits a fresh hash gives more.
        assert_ne!(&number("", 40, 7)[19..39], "00000000000000000000");
    }

    #[test]
    fn check_digits_make_every_length_valid() {
        // Odd and even lengths: the doubled digits start from the right.
        let mut h = 1u64;
        for len in 0..40 {
            for _ in 0..25 {
                let digits: String = (0..len)
                    .map(|_| {
                        h = xxh3_u64(h);
                        char::from(b'0' + (h % 10) as u8)
                    })
                    .collect();
                let check = char::from(b'0' + luhn_check_digit(digits.as_bytes()));
                assert!(valid(&format!("{digits}{check}")), "{digits}{check}");
            }
        }
    }

    #[test]
    fn a_bad_prefix_or_length_is_refused_at_build() {
        let err = |p: &str, l: u64| build_err(&LUHN_NUMBER, &[Value::str(p), Value::U64(l)], &[U64]);
        assert_eq!(err("4a", 16), "prefix must be digits, got \"4a\"");
        assert!(err("4", 1).starts_with("length must be more than the prefix's 1 digits"));
        assert!(err("", 65).ends_with("at most 64, got 65"));
    }
}
