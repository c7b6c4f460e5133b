//! IBAN family: International Bank Account Numbers (ISO 13616) of the
//! right length and shape per country, with valid check digits.
//!
//! An IBAN is the country code, two check digits and the country's BBAN
//! (basic bank account number), whose length and character classes the
//! IBAN registry fixes per country ([`BBAN_SHAPES`]: the SEPA countries, the
//! United Kingdom and Brazil). The check digits make the whole number 1 modulo 97
//! when read with the country code and check digits moved to the end and
//! each letter written as two digits (A = 10, ..., Z = 35). The BBAN's own
//! national check digits (Belgium's, Portugal's, ...) are not computed: the
//! BBAN is drawn at random in its shape.

use crate::node::by_bytes::OutRef;
use crate::node::kit::Out;
use crate::node::kit_text::scalar_str_map;
use crate::node::{limit, wire, NodeDef, NodeError, Outputs, Testing};
use crate::nodes::hash::xxh3_u64;
use crate::types::PortType::{self, Str, U64};
use crate::value::Value;
use std::sync::OnceLock;

/// Per country (ISO 3166-1 alpha-2, sorted), the shape of its BBAN as the
/// IBAN registry writes it: runs of a count and a class, `n` digits, `a`
/// upper-case letters, `c` upper-case letters or digits.
pub const BBAN_SHAPES: &[(&str, &str)] = &[
    ("AD", "4n4n12c"),
    ("AT", "5n11n"),
    ("BE", "3n7n2n"),
    ("BG", "4a4n2n8c"),
    ("BR", "8n5n10n1a1c"),
    ("CH", "5n12c"),
    ("CY", "3n5n16c"),
    ("CZ", "4n6n10n"),
    ("DE", "8n10n"),
    ("DK", "4n9n1n"),
    ("EE", "2n2n11n1n"),
    ("ES", "4n4n1n1n10n"),
    ("FI", "3n11n"),
    ("FR", "5n5n11c2n"),
    ("GB", "4a6n8n"),
    ("GI", "4a15c"),
    ("GR", "3n4n16c"),
    ("HR", "7n10n"),
    ("HU", "3n4n1n15n1n"),
    ("IE", "4a6n8n"),
    ("IS", "4n2n6n10n"),
    ("IT", "1a5n5n12c"),
    ("LI", "5n12c"),
    ("LT", "5n11n"),
    ("LU", "3n13c"),
    ("LV", "4a13c"),
    ("MC", "5n5n11c2n"),
    ("MT", "4a5n18c"),
    ("NL", "4a10n"),
    ("NO", "4n6n1n"),
    ("PL", "8n16n"),
    ("PT", "4n4n11n2n"),
    ("RO", "4a16c"),
    ("SE", "3n16n1n"),
    ("SI", "5n8n2n"),
    ("SK", "4n6n10n"),
    ("SM", "1a5n5n12c"),
    ("VA", "3n15n"),
];

/// A BBAN shape spelled out: the class (`n`, `a` or `c`) of each character.
struct Classes {
    classes: [u8; MAX_IBAN - 4],
    len: usize,
}

impl Classes {
    /// The classes of `shape` (runs of a count and a class).
    fn of(shape: &str) -> Classes {
        let (mut classes, mut len, mut count) = ([b'n'; MAX_IBAN - 4], 0, 0usize);
        for byte in shape.bytes() {
            if byte.is_ascii_digit() {
                count = count * 10 + usize::from(byte - b'0');
                continue;
            }
            let end = (len + count).min(classes.len());
            classes[len..end].fill(byte);
            len = end;
            count = 0;
        }
        Classes { classes, len }
    }

    /// The classes of `country`'s BBAN: a country code of two upper-case
    /// letters is looked up by its letters (the shapes are spelled out on
    /// first use), not searched for.
    fn of_country(country: &str) -> Option<&'static Classes> {
        static BY_CODE: OnceLock<Vec<Option<Classes>>> = OnceLock::new();
        let &[first, second] = country.as_bytes() else { return None };
        if !first.is_ascii_uppercase() || !second.is_ascii_uppercase() {
            return None;
        }
        let by_code = BY_CODE.get_or_init(|| {
            let mut by_code: Vec<Option<Classes>> = (0..26 * 26).map(|_| None).collect();
            for (code, shape) in BBAN_SHAPES {
                let code = code.as_bytes();
                by_code[usize::from(code[0] - b'A') * 26 + usize::from(code[1] - b'A')] = Some(Classes::of(shape));
            }
            by_code
        });
        by_code[usize::from(first - b'A') * 26 + usize::from(second - b'A')].as_ref()
    }
}

/// The characters of a class: `n` digits, `a` upper-case letters, `c` both.
const ALNUM: &[u8; 36] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";

/// The character of `ALNUM[OFFSET..OFFSET + RADIX]` that `h`'s lowest
/// digit in radix `RADIX` names, that digit taken off `h` (a constant radix:
/// the division is a multiply).
#[inline(always)]
fn draw<const RADIX: u64, const OFFSET: usize>(h: &mut u64) -> u8 {
    let digit = (*h % RADIX) as usize;
    *h /= RADIX;
    ALNUM[OFFSET + digit]
}

/// The longest IBAN of the table (Malta's, 31 characters).
const MAX_IBAN: usize = 34;

/// Writes a BBAN of `shape` drawn from `x` into `out` from its start,
/// returning its length: each character a digit of a hash chained from `x`
/// in the radix of its class (a fresh hash every ten characters, so every
/// character is drawn from at least 12 bits).
fn write_bban(out: &mut [u8], shape: &Classes, x: u64) -> usize {
    let mut h = xxh3_u64(x);
    let mut drawn = 0;
    for (char, &class) in out.iter_mut().zip(&shape.classes[..shape.len]) {
        if drawn == 10 {
            h = xxh3_u64(h);
            drawn = 0;
        }
        *char = match class {
            b'n' => draw::<10, 0>(&mut h),
            b'a' => draw::<26, 10>(&mut h),
            _ => draw::<36, 0>(&mut h),
        };
        drawn += 1;
    }
    shape.len
}

/// The ISO 13616 check digits of `bban` in `country` (both digits and
/// upper-case letters): 98 minus the remainder modulo 97 of `bban`,
/// `country` and `00` with letters as two digits each.
pub fn check_digits(country: &str, bban: &str) -> u32 {
    check_digits_of(country.as_bytes(), bban.as_bytes())
}

/// [`check_digits`] over the ASCII bytes of the country and BBAN.
fn check_digits_of(country: &[u8], bban: &[u8]) -> u32 {
    // The number is read into a u64 a few digits at a time and reduced
    // modulo 97 only when the next two digits could overflow it.
    let mut rest = 0u64;
    for &c in bban.iter().chain(country).chain(b"00") {
        if rest >= 1 << 56 {
            rest %= 97;
        }
        rest = match c {
            b'0'..=b'9' => rest * 10 + u64::from(c - b'0'),
            b'A'..=b'Z' => rest * 100 + u64::from(c - b'A' + 10),
            _ => rest * 10,
        };
    }
    98 - (rest % 97) as u32
}

/// An IBAN's characters, written in place (no allocation per value).
#[derive(Debug)]
pub struct IbanText {
    number: [u8; MAX_IBAN],
    len: usize,
}

impl IbanText {
    /// The IBAN as text.
    pub fn as_str(&self) -> &str {
        // Country codes, digits and upper-case letters are ASCII.
        std::str::from_utf8(&self.number[..self.len]).unwrap_or_default()
    }
}

impl Out for IbanText {
    const TYPE: PortType = Str;
    fn into_out(self) -> Result<Value, NodeError> {
        limit::shared_str(self.as_str()).map(Value::Str)
    }
    fn out_ref(&self) -> OutRef<'_> {
        OutRef::Text(self.as_str())
    }
}

/// An IBAN of `country` drawn from `x` (electronic form: no spaces), or
/// the failure naming the countries known.
pub fn iban(x: u64, country: &str) -> Result<IbanText, String> {
    let Some(shape) = Classes::of_country(country) else {
        let known: Vec<&str> = BBAN_SHAPES.iter().map(|(code, _)| *code).collect();
        return Err(format!("iban_for: no IBAN format for country {country:?} (known: {})", known.join(", ")));
    };
    let mut number = [0u8; MAX_IBAN];
    let len = 4 + write_bban(&mut number[4..], shape, x);
    let check = check_digits_of(country.as_bytes(), &number[4..len]);
    number[..2].copy_from_slice(country.as_bytes());
    number[2] = b'0' + (check / 10) as u8;
    number[3] = b'0' + (check % 10) as u8;
    Ok(IbanText { number, len })
}

/// `iban_for`: an IBAN of the given country, its BBAN drawn from the input.
pub const IBAN_FOR: NodeDef = NodeDef {
    name: "iban_for",
    category: "iban",
    doc: "An IBAN of country (ISO 3166-1 alpha-2: the SEPA countries, GB and BR) with valid ISO 13616 check digits and the country's BBAN length and shape, the BBAN drawn from xxh3 of input; another country fails.",
    params: &[wire("input", U64), wire("country", Str)],
    outputs: Outputs::One(Str),
    build: |_| Ok(scalar_str_map(iban)),
    testing: Testing { corner_call: Some(r#"iban_for(a, "DE")"#), fallible: true, random: false, ..Testing::BASE },
    ..NodeDef::BASE
};

/// The IBAN family.
pub const NODES: &[NodeDef] = &[IBAN_FOR];

#[cfg(test)]
mod tests {
    use super::*;

    /// The whole IBAN modulo 97 as ISO 13616 checks it.
    fn remainder(iban: &str) -> u32 {
        let (head, tail) = iban.split_at(4);
        tail.chars().chain(head.chars()).fold(0, |rest, c| {
            let v = c.to_digit(36).unwrap();
            if v >= 10 {
                (rest * 100 + v) % 97
            } else {
                (rest * 10 + v) % 97
            }
        })
    }

    #[test]
    fn every_country_gives_its_length_shape_and_valid_check_digits() {
        let lengths = [
            ("AD", 24),
            ("AT", 20),
            ("BE", 16),
            ("BG", 22),
            ("BR", 29),
            ("CH", 21),
            ("CY", 28),
            ("CZ", 24),
            ("DE", 22),
            ("DK", 18),
            ("EE", 20),
            ("ES", 24),
            ("FI", 18),
            ("FR", 27),
            ("GB", 22),
            ("GI", 23),
            ("GR", 27),
            ("HR", 21),
            ("HU", 28),
            ("IE", 22),
            ("IS", 26),
            ("IT", 27),
            ("LI", 21),
            ("LT", 20),
            ("LU", 20),
            ("LV", 21),
            ("MC", 27),
            ("MT", 31),
            ("NL", 18),
            ("NO", 15),
            ("PL", 28),
            ("PT", 25),
            ("RO", 24),
            ("SE", 24),
            ("SI", 19),
            ("SK", 24),
            ("SM", 27),
            ("VA", 22),
        ];
        assert_eq!(lengths.len(), BBAN_SHAPES.len());
        assert!(BBAN_SHAPES.windows(2).all(|w| w[0].0 < w[1].0), "sorted for the binary search");
        for (country, length) in lengths {
            for x in [0u64, 1, 42, u64::MAX] {
                let number = iban(x, country).unwrap().as_str().to_string();
                assert_eq!(number.len(), length, "{number}");
                assert!(number.starts_with(country));
                assert_eq!(remainder(&number), 1, "{number}");
                assert!(number.chars().all(|c| c.is_ascii_digit() || c.is_ascii_uppercase()));
            }
        }
        let gb = iban(7, "GB").unwrap().as_str().to_string();
        assert!(
            gb[4..8].chars().all(|c| c.is_ascii_uppercase()) && gb[8..].chars().all(|c| c.is_ascii_digit()),
            "{gb}"
        );
        assert_ne!(iban(1, "DE").unwrap().as_str(), iban(2, "DE").unwrap().as_str());
        // The worked example of the IBAN registry: GB82 WEST 1234 5698 7654 32.
        assert_eq!(check_digits("GB", "WEST12345698765432"), 82);
    }

    #[test]
    fn an_unknown_country_fails_naming_the_known_ones() {
        let e = iban(0, "US").unwrap_err();
        assert!(e.starts_with("iban_for: no IBAN format for country \"US\" (known: AD, AT, BE,"), "{e}");
        // Codes of another case, length or alphabet are looked up as unknown.
        for code in ["de", "De", "DEU", "D", "", "1E", "DÉ", "É"] {
            let e = iban(0, code).unwrap_err();
            assert!(e.starts_with(&format!("iban_for: no IBAN format for country {code:?}")), "{e}");
        }
    }

    #[test]
    fn shapes_spell_out_their_runs() {
        let fr = Classes::of("5n5n11c2n");
        assert_eq!(std::str::from_utf8(&fr.classes[..fr.len]), Ok("nnnnnnnnnncccccccccccnn"));
        // Every country's spelled-out shape is its IBAN's length less four.
        for (code, shape) in BBAN_SHAPES {
            let runs: usize = shape.split(char::is_alphabetic).filter_map(|n| n.parse::<usize>().ok()).sum();
            assert_eq!(Classes::of_country(code).map(|c| c.len), Some(runs), "{code}");
        }
    }
}
