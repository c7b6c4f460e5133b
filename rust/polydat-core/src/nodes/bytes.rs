//! Bytes and encodings: byte buffers from hashes and prebuilt images, hex,
//! base64 and base32, URL and HTML escaping, SHA-256 and MD5 digests. The
//! buffer layouts (SplitMix64 chunks, little-endian) and the escaping
//! tables are upstream's.

use crate::node::kit::to_ref;
use crate::node::kit_text::{bytes_map, try_to_ref};
use crate::node::{konst, konst_or, limit, wire, BuildCtx, Lit, NodeDef, Outputs, Samples, Testing};
use crate::nodes::hash::splitmix64;
use crate::types::PortType::{Bytes, Str, U64};
use base64::Engine;
use md5::Md5;
use sha2::{Digest, Sha256};

/// Largest prebuilt image (`byte_image_extract`, `char_image_extract`): 64 MiB.
pub const MAX_IMAGE: u64 = 64 << 20;

/// `size` bytes: chunk i is the little-endian SplitMix64 of `seed + i`, the last one cut short.
pub fn hash_fill(seed: u64, size: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(size);
    let mut i = 0u64;
    while out.len() < size {
        let take = (size - out.len()).min(8);
        out.extend_from_slice(&splitmix64(seed.wrapping_add(i)).to_le_bytes()[..take]);
        i += 1;
    }
    out
}

fn image_size(c: &BuildCtx<'_>, i: usize, node: &str) -> Result<usize, String> {
    let size = c.u64(i);
    if size > MAX_IMAGE {
        return Err(format!("{node}: image_size must be at most {MAX_IMAGE}, got {size}"));
    }
    Ok(size as usize)
}

/// The window of `len` items of `total` that `x` selects: offset `x mod (total - len + 1)`.
fn window(x: u64, total: usize, len: usize) -> (usize, usize) {
    let max_offset = total.saturating_sub(len);
    let start = if max_offset > 0 { (x % (max_offset as u64 + 1)) as usize } else { 0 };
    (start, (start + len).min(total))
}

/// `u64_to_bytes`: the 8 little-endian bytes of x.
pub const U64_TO_BYTES: NodeDef = NodeDef {
    name: "u64_to_bytes",
    category: "bytebuf",
    doc: "The 8 little-endian bytes of x.",
    params: &[wire("input", U64)],
    outputs: Outputs::One(Bytes),
    build: |_| Ok(to_ref(|x: u64| x.to_le_bytes().to_vec())),
    ..NodeDef::BASE
};

/// `bytes_from_hash`: `size` bytes, chunk i the little-endian SplitMix64 of x + i.
pub const BYTES_FROM_HASH: NodeDef = NodeDef {
    name: "bytes_from_hash",
    category: "bytebuf",
    doc: "size bytes: chunk i is the little-endian SplitMix64 of x + i (the last chunk cut short).",
    params: &[wire("input", U64), konst_or("size", U64, Lit::U64(8))],
    outputs: Outputs::One(Bytes),
    build: |c| {
        let size = c.u64(0);
        Ok(try_to_ref(move |x: u64| {
            limit::check(usize::try_from(size).unwrap_or(usize::MAX)).map_err(|e| e.message().to_string())?;
            Ok(hash_fill(x, size as usize))
        }))
    },
    warns: |c| {
        (c.u64(0) > limit::max_value_bytes() as u64)
            .then(|| "size exceeds the value size limit, so every evaluation of this node fails".into())
    },
    testing: Testing { samples: &[("size", Samples::U64(&[8, 0, 1, 20, 100]))], ..Testing::BASE },
    ..NodeDef::BASE
};

/// `byte_image_extract`: `slice_size` bytes of a hash-filled image, at an offset chosen by x.
pub const BYTE_IMAGE_EXTRACT: NodeDef = NodeDef {
    name: "byte_image_extract",
    category: "bytebuf",
    doc: "slice_size bytes of an image of image_size hash-filled bytes (built once from seed), at offset x mod (image_size - slice_size + 1).",
    params: &[wire("input", U64), konst("image_size", U64), konst("slice_size", U64), konst_or("seed", U64, Lit::U64(0))],
    outputs: Outputs::One(Bytes),
    build: |c| {
        let image = hash_fill(c.u64(2), image_size(c, 0, "byte_image_extract")?);
        let len = usize::try_from(c.u64(1)).unwrap_or(usize::MAX);
        Ok(to_ref(move |x: u64| {
            let (a, b) = window(x, image.len(), len);
            image[a..b].to_vec()
        }))
    },
    testing: Testing {
        samples: &[("image_size", Samples::U64(&[1000, 16, 0])), ("slice_size", Samples::U64(&[10, 0, 100]))],
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `char_image_extract`: `slice_size` characters of a hash-filled character image, at an offset chosen by x.
pub const CHAR_IMAGE_EXTRACT: NodeDef = NodeDef {
    name: "char_image_extract",
    category: "bytebuf",
    doc: "slice_size characters of an image of image_size characters of charset (character i: SplitMix64(seed + i) mod the charset), at offset x mod (image_size - slice_size + 1).",
    params: &[
        wire("input", U64),
        konst("charset", Str),
        konst("image_size", U64),
        konst("slice_size", U64),
        konst_or("seed", U64, Lit::U64(0)),
    ],
    outputs: Outputs::One(Str),
    build: |c| {
        let chars = crate::nodes::string::expand_charset(c.str(0));
        if chars.is_empty() {
            return Err("charset must not be empty".into());
        }
        let size = image_size(c, 1, "char_image_extract")?;
        let seed = c.u64(3);
        let image: Vec<char> =
            (0..size).map(|i| chars[(splitmix64(seed.wrapping_add(i as u64)) % chars.len() as u64) as usize]).collect();
        let len = usize::try_from(c.u64(2)).unwrap_or(usize::MAX);
        Ok(to_ref(move |x: u64| {
            let (a, b) = window(x, image.len(), len);
            image[a..b].iter().collect::<String>()
        }))
    },
    testing: Testing {
        samples: &[
            ("charset", Samples::Str(&["A-Z", "a-z0-9", "é-ë"])),
            ("image_size", Samples::U64(&[100, 10, 0])),
            ("slice_size", Samples::U64(&[5, 0, 200])),
        ],
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `byte_slice`: bytes [offset, offset + length) of the input, cut at its end.
pub const BYTE_SLICE: NodeDef = NodeDef {
    name: "byte_slice",
    category: "bytebuf",
    doc: "Bytes [offset, offset + length) of the input, cut at its end.",
    params: &[wire("input", Bytes), konst_or("offset", U64, Lit::U64(0)), konst_or("length", U64, Lit::U64(8))],
    outputs: Outputs::One(Bytes),
    build: |c| {
        let (off, len) = (c.u64(0), c.u64(1));
        Ok(bytes_map(move |b: &[u8]| {
            let end = off.saturating_add(len).min(b.len() as u64) as usize;
            let start = (off as usize).min(end);
            Ok(b[start..end].to_vec())
        }))
    },
    testing: Testing {
        samples: &[("offset", Samples::U64(&[0, 2, 100])), ("length", Samples::U64(&[8, 0, 3, 1000]))],
        corner_call: Some("byte_slice(bytes_from_hash(a, 20), 2, 5)"),
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Lower-case hex of `b`.
pub fn hex_of(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len() * 2);
    for &x in b {
        s.push(HEX[(x >> 4) as usize] as char);
        s.push(HEX[(x & 15) as usize] as char);
    }
    s
}

fn grow_check(len: usize, factor: usize) -> Result<(), String> {
    limit::check(len.saturating_mul(factor)).map_err(|e| e.message().to_string())
}

/// `to_hex`: the bytes as lower-case hex.
pub const TO_HEX: NodeDef = NodeDef {
    name: "to_hex",
    category: "bytebuf",
    doc: "The bytes as lower-case hexadecimal text.",
    params: &[wire("input", Bytes)],
    outputs: Outputs::One(Str),
    build: |_| {
        Ok(bytes_map(|b: &[u8]| {
            grow_check(b.len(), 2)?;
            Ok(hex_of(b))
        }))
    },
    testing: Testing { corner_call: Some("to_hex(bytes_from_hash(a, 7))"), ..Testing::BASE },
    ..NodeDef::BASE
};

fn hex_digit(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

/// `from_hex`: the bytes of hex text, pair by pair (a pair that is not hex is skipped, a last odd digit ignored).
pub const FROM_HEX: NodeDef = NodeDef {
    name: "from_hex",
    category: "bytebuf",
    doc: "The bytes of hexadecimal text, two digits at a time (a pair that is not hex is skipped; a last odd digit is ignored).",
    params: &[wire("input", Str)],
    outputs: Outputs::One(Bytes),
    build: |_| {
        Ok(crate::node::kit::str_map(|s: &str| {
            Ok(s.as_bytes()
                .chunks_exact(2)
                .filter_map(|p| Some((hex_digit(p[0])? << 4) | hex_digit(p[1])?))
                .collect::<Vec<u8>>())
        }))
    },
    ..NodeDef::BASE
};

/// `sha256`: the SHA-256 digest of the bytes (32 bytes).
pub const SHA256: NodeDef = NodeDef {
    name: "sha256",
    category: "digest",
    doc: "The SHA-256 digest of the bytes (32 bytes; a string digests its UTF-8).",
    params: &[wire("input", Bytes)],
    outputs: Outputs::One(Bytes),
    build: |_| Ok(bytes_map(|b: &[u8]| Ok(Sha256::digest(b).to_vec()))),
    testing: Testing { corner_call: Some("to_hex(sha256(bytes_from_hash(a, 7)))"), ..Testing::BASE },
    ..NodeDef::BASE
};

/// `md5`: the MD5 digest of the bytes (16 bytes).
pub const MD5: NodeDef = NodeDef {
    name: "md5",
    category: "digest",
    doc: "The MD5 digest of the bytes (16 bytes; a string digests its UTF-8).",
    params: &[wire("input", Bytes)],
    outputs: Outputs::One(Bytes),
    build: |_| Ok(bytes_map(|b: &[u8]| Ok(Md5::digest(b).to_vec()))),
    testing: Testing { corner_call: Some("to_hex(md5(u64_to_bytes(b)))"), ..Testing::BASE },
    ..NodeDef::BASE
};

/// `to_base64`: standard base64 (RFC 4648, padded).
pub const TO_BASE64: NodeDef = NodeDef {
    name: "to_base64",
    category: "digest",
    doc: "The bytes in standard base64 (RFC 4648 alphabet, padded).",
    params: &[wire("input", Bytes)],
    outputs: Outputs::One(Str),
    build: |_| {
        Ok(bytes_map(|b: &[u8]| {
            grow_check(b.len().div_ceil(3), 4)?;
            Ok(base64::engine::general_purpose::STANDARD.encode(b))
        }))
    },
    testing: Testing { corner_call: Some("to_base64(bytes_from_hash(c, 5))"), ..Testing::BASE },
    ..NodeDef::BASE
};

/// `from_base64`: the bytes of standard base64 text (empty when it does not decode).
pub const FROM_BASE64: NodeDef = NodeDef {
    name: "from_base64",
    category: "digest",
    doc: "The bytes of standard base64 text (padded); empty when the text does not decode.",
    params: &[wire("input", Str)],
    outputs: Outputs::One(Bytes),
    build: |_| {
        Ok(crate::node::kit::str_map(|s: &str| {
            Ok(base64::engine::general_purpose::STANDARD.decode(s).unwrap_or_default())
        }))
    },
    ..NodeDef::BASE
};

const B32: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/// RFC 4648 base32 with padding.
pub fn base32_of(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len().div_ceil(5) * 8);
    for chunk in b.chunks(5) {
        let mut buf = [0u8; 5];
        buf[..chunk.len()].copy_from_slice(chunk);
        let bits = buf.iter().fold(0u64, |a, &x| (a << 8) | x as u64);
        let digits = (chunk.len() * 8).div_ceil(5);
        for i in 0..8 {
            if i < digits {
                out.push(B32[((bits >> (35 - 5 * i)) & 31) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The bytes of padded RFC 4648 base32 text, or `None` when it is not that.
pub fn base32_decode(s: &str) -> Option<Vec<u8>> {
    let s = s.as_bytes();
    if s.len() % 8 != 0 {
        return None;
    }
    let mut out = Vec::with_capacity(s.len() / 8 * 5);
    for (n, block) in s.chunks(8).enumerate() {
        let pad = block.iter().rev().take_while(|&&c| c == b'=').count();
        let bytes = match pad {
            0 => 5,
            1 => 4,
            3 => 3,
            4 => 2,
            6 => 1,
            _ => return None,
        };
        if pad > 0 && n + 1 != s.len() / 8 {
            return None;
        }
        let mut bits = 0u64;
        for &c in &block[..8 - pad] {
            let v = B32.iter().position(|&d| d == c)? as u64;
            bits = (bits << 5) | v;
        }
        bits <<= 5 * pad as u32;
        let all = bits.to_be_bytes();
        // Canonical: the bits past the last byte are zero.
        if bits & ((1u64 << (40 - 8 * bytes)) - 1) != 0 {
            return None;
        }
        out.extend_from_slice(&all[3..3 + bytes]);
    }
    Some(out)
}

/// `to_base32`: RFC 4648 base32, padded.
pub const TO_BASE32: NodeDef = NodeDef {
    name: "to_base32",
    category: "digest",
    doc: "The bytes in RFC 4648 base32 (upper-case alphabet, padded).",
    params: &[wire("input", Bytes)],
    outputs: Outputs::One(Str),
    build: |_| {
        Ok(bytes_map(|b: &[u8]| {
            grow_check(b.len().div_ceil(5), 8)?;
            Ok(base32_of(b))
        }))
    },
    testing: Testing { corner_call: Some("to_base32(bytes_from_hash(c, 6))"), ..Testing::BASE },
    ..NodeDef::BASE
};

/// `from_base32`: the bytes of padded base32 text (empty when it does not decode).
pub const FROM_BASE32: NodeDef = NodeDef {
    name: "from_base32",
    category: "digest",
    doc: "The bytes of padded RFC 4648 base32 text; empty when the text does not decode.",
    params: &[wire("input", Str)],
    outputs: Outputs::One(Bytes),
    build: |_| Ok(crate::node::kit::str_map(|s: &str| Ok(base32_decode(s).unwrap_or_default()))),
    ..NodeDef::BASE
};

/// `url_encode`: percent-encodes every byte but A-Z a-z 0-9 - _ . ~ (RFC 3986, upper-case hex).
pub const URL_ENCODE: NodeDef = NodeDef {
    name: "url_encode",
    category: "encoding",
    doc: "Percent-encodes every UTF-8 byte except A-Z a-z 0-9 - _ . ~ (RFC 3986 unreserved), as %XX in upper-case hex.",
    params: &[wire("input", Str)],
    outputs: Outputs::One(Str),
    build: |_| {
        Ok(crate::node::kit::str_map(|s: &str| {
            grow_check(s.len(), 3)?;
            let mut out = String::with_capacity(s.len());
            for &b in s.as_bytes() {
                if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
                    out.push(b as char);
                } else {
                    out.push('%');
                    out.push(b"0123456789ABCDEF"[(b >> 4) as usize] as char);
                    out.push(b"0123456789ABCDEF"[(b & 15) as usize] as char);
                }
            }
            Ok(out)
        }))
    },
    ..NodeDef::BASE
};

/// `url_decode`: decodes %XX escapes (others kept as they are); invalid UTF-8 is replaced.
pub const URL_DECODE: NodeDef = NodeDef {
    name: "url_decode",
    category: "encoding",
    doc: "Decodes %XX escapes (anything else, a malformed escape included, is kept as it is); invalid UTF-8 becomes U+FFFD.",
    params: &[wire("input", Str)],
    outputs: Outputs::One(Str),
    build: |_| {
        Ok(crate::node::kit::str_map(|s: &str| {
            let b = s.as_bytes();
            let mut out = Vec::with_capacity(b.len());
            let mut i = 0;
            while i < b.len() {
                // Upstream's test: a '%' with two more bytes after it that
                // `u8::from_str_radix` reads (so `%+1` decodes too).
                if b[i] == b'%' && i + 2 < b.len() {
                    if let Some(byte) = std::str::from_utf8(&b[i + 1..i + 3]).ok().and_then(|h| u8::from_str_radix(h, 16).ok()) {
                        out.push(byte);
                        i += 3;
                        continue;
                    }
                }
                out.push(b[i]);
                i += 1;
            }
            Ok(String::from_utf8_lossy(&out).into_owned())
        }))
    },
    ..NodeDef::BASE
};

/// `html_encode`: escapes & < > " ' as entities.
pub const HTML_ENCODE: NodeDef = NodeDef {
    name: "html_encode",
    category: "encoding",
    doc: "Escapes & < > \" ' as &amp; &lt; &gt; &quot; &#x27;.",
    params: &[wire("input", Str)],
    outputs: Outputs::One(Str),
    build: |_| {
        Ok(crate::node::kit::str_map(|s: &str| {
            grow_check(s.len(), 6)?;
            let mut out = String::with_capacity(s.len());
            for ch in s.chars() {
                match ch {
                    '&' => out.push_str("&amp;"),
                    '<' => out.push_str("&lt;"),
                    '>' => out.push_str("&gt;"),
                    '"' => out.push_str("&quot;"),
                    '\'' => out.push_str("&#x27;"),
                    c => out.push(c),
                }
            }
            Ok(out)
        }))
    },
    ..NodeDef::BASE
};

/// `html_decode`: replaces the entities html_encode writes (and &#39;), in upstream's order.
pub const HTML_DECODE: NodeDef = NodeDef {
    name: "html_decode",
    category: "encoding",
    doc: "Replaces &amp; &lt; &gt; &quot; &#x27; &#39; by their characters, one entity after another (&amp; first, as upstream).",
    params: &[wire("input", Str)],
    outputs: Outputs::One(Str),
    build: |_| {
        Ok(crate::node::kit::str_map(|s: &str| {
            Ok(s.replace("&amp;", "&")
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&quot;", "\"")
                .replace("&#x27;", "'")
                .replace("&#39;", "'"))
        }))
    },
    ..NodeDef::BASE
};

/// The bytes and encodings family.
pub const NODES: &[NodeDef] = &[
    U64_TO_BYTES,
    BYTES_FROM_HASH,
    BYTE_IMAGE_EXTRACT,
    CHAR_IMAGE_EXTRACT,
    BYTE_SLICE,
    TO_HEX,
    FROM_HEX,
    SHA256,
    MD5,
    TO_BASE64,
    FROM_BASE64,
    TO_BASE32,
    FROM_BASE32,
    URL_ENCODE,
    URL_DECODE,
    HTML_ENCODE,
    HTML_DECODE,
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::eval1;
    use crate::value::Value;
    use std::sync::Arc;

    fn b(v: &[u8]) -> Value {
        Value::Bytes(Arc::from(v))
    }

    fn bytes_of(v: Value) -> Vec<u8> {
        match v {
            Value::Bytes(b) => b.to_vec(),
            other => panic!("not bytes: {other}"),
        }
    }

    fn text(def: &NodeDef, consts: &[Value], x: Value) -> String {
        eval1(def, consts, &[x]).as_str().unwrap().to_string()
    }

    #[test]
    fn hash_buffers() {
        let v = bytes_of(eval1(&U64_TO_BYTES, &[], &[Value::U64(0xdead_beef)]));
        assert_eq!(u64::from_le_bytes(v.try_into().unwrap()), 0xdead_beef);
        let v = bytes_of(eval1(&BYTES_FROM_HASH, &[Value::U64(20)], &[Value::U64(42)]));
        assert_eq!(v.len(), 20);
        assert_eq!(&v[..8], &splitmix64(42).to_le_bytes());
        assert_eq!(&v[8..16], &splitmix64(43).to_le_bytes());
        assert_eq!(&v[16..], &splitmix64(44).to_le_bytes()[..4]);
        assert!(bytes_of(eval1(&BYTES_FROM_HASH, &[Value::U64(0)], &[Value::U64(1)])).is_empty());
        let default = bytes_of(eval1(&BYTES_FROM_HASH, &[], &[Value::U64(u64::MAX)]));
        assert_eq!(default, splitmix64(u64::MAX).to_le_bytes(), "size 8 by default");
    }

    #[test]
    fn images_and_slices() {
        let consts = [Value::U64(10_000), Value::U64(100), Value::U64(0)];
        for x in 0..50 {
            assert_eq!(bytes_of(eval1(&BYTE_IMAGE_EXTRACT, &consts, &[Value::U64(x)])).len(), 100);
        }
        let whole = hash_fill(0, 10_000);
        assert_eq!(bytes_of(eval1(&BYTE_IMAGE_EXTRACT, &consts, &[Value::U64(9_901 + 5)])), whole[5..105].to_vec());
        let long = [Value::U64(10), Value::U64(100), Value::U64(0)];
        assert_eq!(bytes_of(eval1(&BYTE_IMAGE_EXTRACT, &long, &[Value::U64(3)])).len(), 10, "cut at the image");
        let chars = [Value::str("A-Z"), Value::U64(1000), Value::U64(20)];
        let s = text(&CHAR_IMAGE_EXTRACT, &chars, Value::U64(42));
        assert_eq!(s.len(), 20);
        assert!(s.chars().all(|c| c.is_ascii_uppercase()));
        let slice = bytes_of(eval1(&BYTE_SLICE, &[Value::U64(2), Value::U64(3)], &[b(&[10, 20, 30, 40, 50])]));
        assert_eq!(slice, [30, 40, 50]);
        let past = bytes_of(eval1(&BYTE_SLICE, &[Value::U64(u64::MAX), Value::U64(u64::MAX)], &[b(&[1])]));
        assert!(past.is_empty());
    }

    #[test]
    fn hex_and_bases_round_trip() {
        assert_eq!(text(&TO_HEX, &[], b(&[0xde, 0xad, 0xbe, 0xef])), "deadbeef");
        assert_eq!(bytes_of(eval1(&FROM_HEX, &[], &[Value::str("DEadbeeF")])), [0xde, 0xad, 0xbe, 0xef]);
        assert_eq!(
            bytes_of(eval1(&FROM_HEX, &[], &[Value::str("zz41x")])),
            [0x41],
            "bad pairs skipped, odd tail dropped"
        );
        let data = [0xde, 0xad, 0xbe, 0xef, 0x42];
        let enc = text(&TO_BASE64, &[], b(&data));
        assert_eq!(enc, "3q2+70I=");
        assert_eq!(bytes_of(eval1(&FROM_BASE64, &[], &[Value::str(enc)])), data);
        assert!(bytes_of(eval1(&FROM_BASE64, &[], &[Value::str("!!")])).is_empty());
        // RFC 4648 test vectors.
        for (plain, coded) in [
            ("", ""),
            ("f", "MY======"),
            ("fo", "MZXQ===="),
            ("foo", "MZXW6==="),
            ("foob", "MZXW6YQ="),
            ("fooba", "MZXW6YTB"),
            ("foobar", "MZXW6YTBOI======"),
        ] {
            assert_eq!(text(&TO_BASE32, &[], b(plain.as_bytes())), coded);
            assert_eq!(bytes_of(eval1(&FROM_BASE32, &[], &[Value::str(coded)])), plain.as_bytes());
        }
        assert!(bytes_of(eval1(&FROM_BASE32, &[], &[Value::str("MZ")])).is_empty());
    }

    #[test]
    fn digests_match_known_vectors() {
        assert_eq!(
            text(&TO_HEX, &[], eval1(&SHA256, &[], &[b(b"")])),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            text(&TO_HEX, &[], eval1(&SHA256, &[], &[b(b"abc")])),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(text(&TO_HEX, &[], eval1(&MD5, &[], &[b(b"")])), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(text(&TO_HEX, &[], eval1(&MD5, &[], &[Value::str("abc")])), "900150983cd24fb0d6963f7d28e17f72");
    }

    #[test]
    fn url_and_html_escapes_are_upstreams() {
        let t = |d: &NodeDef, s: &str| text(d, &[], Value::str(s));
        assert_eq!(t(&URL_ENCODE, "hello world"), "hello%20world");
        assert_eq!(t(&URL_ENCODE, "a=1&b=2"), "a%3D1%26b%3D2");
        assert_eq!(t(&URL_ENCODE, "hello-world_123.txt~"), "hello-world_123.txt~");
        assert_eq!(t(&URL_ENCODE, "é"), "%C3%A9");
        assert_eq!(t(&URL_DECODE, "hello%20world%20%26%20friends"), "hello world & friends");
        assert_eq!(t(&URL_DECODE, "%C3%A9%zz%4"), "é%zz%4");
        assert_eq!(t(&URL_DECODE, "%41"), "A");
        assert_eq!(t(&URL_DECODE, "%FF"), "\u{fffd}");
        assert_eq!(t(&HTML_ENCODE, "<b>hello & world</b>"), "&lt;b&gt;hello &amp; world&lt;/b&gt;");
        assert_eq!(t(&HTML_ENCODE, r#"say "hello" it's fine"#), "say &quot;hello&quot; it&#x27;s fine");
        let input = "<div class=\"test\">hello & 'world'</div>";
        assert_eq!(t(&HTML_DECODE, &t(&HTML_ENCODE, input)), input);
        assert_eq!(t(&HTML_DECODE, "&amp;lt;"), "<", "upstream's order decodes twice");
    }
}
