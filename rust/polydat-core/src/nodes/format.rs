//! Formatting family: `printf` with Rust-style `{}` placeholders, and the
//! single-value formatters `format_u64`, `format_f64`, `zero_pad_u64`.

use crate::node::kit::{to_ref, value_fn};
use crate::node::{konst, konst_or, many, wire, wire_any, Lit, NodeDef, NodeError, Outputs};
use crate::types::PortType::{Str, F64, U64};
use crate::value::Value;

/// Largest width or precision accepted (the limit of Rust's formatter).
const MAX_FIELD: u64 = u16::MAX as u64;

/// How one placeholder renders its argument.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Spec {
    width: Option<usize>,
    zero: bool,
    precision: Option<usize>,
    /// `x`, `X`, `b` or `o` for u64 radix output.
    radix: Option<char>,
}

#[derive(Debug, PartialEq)]
enum Piece {
    Text(String),
    Arg(Spec),
}

/// Reads a run of ASCII digits as a field size.
fn field(digits: &str, spec: &str) -> Result<usize, String> {
    match digits.parse::<u64>() {
        Ok(n) if n <= MAX_FIELD => Ok(n as usize),
        _ => Err(format!("printf: size {digits} in {{{spec}}} is larger than {MAX_FIELD}")),
    }
}

/// Parses the text between braces: `[:][0][width][.precision][x|X|b|o]`.
fn parse_spec(body: &str) -> Result<Spec, String> {
    let s = body.strip_prefix(':').unwrap_or(body);
    let mut spec = Spec::default();
    let digits_end = |t: &str| t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let mut rest = s;
    if rest.len() > 1 && rest.starts_with('0') && rest.as_bytes()[1].is_ascii_digit() {
        spec.zero = true;
        rest = &rest[1..];
    }
    let n = digits_end(rest);
    if n > 0 {
        spec.width = Some(field(&rest[..n], body)?);
    }
    rest = &rest[n..];
    if let Some(p) = rest.strip_prefix('.') {
        let n = digits_end(p);
        if n == 0 {
            return Err(format!("printf: missing precision digits in {{{body}}}"));
        }
        spec.precision = Some(field(&p[..n], body)?);
        rest = &p[n..];
    }
    match rest {
        "" => {}
        "x" | "X" | "b" | "o" => spec.radix = rest.chars().next(),
        _ => return Err(format!("printf: unsupported format spec {{{body}}}")),
    }
    Ok(spec)
}

/// Splits a format string into literal text and placeholders.
fn parse_format(fmt: &str) -> Result<Vec<Piece>, String> {
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut chars = fmt.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '{' if chars.peek().map(|p| p.1) == Some('{') => {
                chars.next();
                text.push('{');
            }
            '}' if chars.peek().map(|p| p.1) == Some('}') => {
                chars.next();
                text.push('}');
            }
            '{' => {
                let close =
                    fmt[i..].find('}').ok_or_else(|| format!("printf: unclosed '{{' at byte {i} in {fmt:?}"))?;
                let body = &fmt[i + 1..i + close];
                if body.contains('{') {
                    return Err(format!("printf: unclosed '{{' at byte {i} in {fmt:?}"));
                }
                if !text.is_empty() {
                    pieces.push(Piece::Text(std::mem::take(&mut text)));
                }
                pieces.push(Piece::Arg(parse_spec(body)?));
                while chars.peek().is_some_and(|p| p.0 <= i + close) {
                    chars.next();
                }
            }
            '}' => return Err(format!("printf: unmatched '}}' at byte {i} in {fmt:?} (write '}}}}' for a brace)")),
            _ => text.push(c),
        }
    }
    if !text.is_empty() {
        pieces.push(Piece::Text(text));
    }
    Ok(pieces)
}

/// Left-pads `body` to the spec's width; zero padding goes after any sign.
fn pad(out: &mut String, body: &str, spec: &Spec, numeric: bool) {
    let len = body.chars().count();
    let fill = spec.width.unwrap_or(0).saturating_sub(len);
    if spec.zero && numeric {
        let (sign, digits) = body.strip_prefix('-').map_or(("", body), |d| ("-", d));
        out.push_str(sign);
        out.extend(std::iter::repeat_n('0', fill));
        out.push_str(digits);
    } else {
        out.extend(std::iter::repeat_n(' ', fill));
        out.push_str(body);
    }
}

/// Renders one argument under its spec.
fn render(out: &mut String, v: &Value, spec: &Spec) {
    match v {
        Value::U64(x) => {
            let body = match spec.radix {
                Some('x') => format!("{x:x}"),
                Some('X') => format!("{x:X}"),
                Some('b') => format!("{x:b}"),
                Some('o') => format!("{x:o}"),
                _ => x.to_string(),
            };
            pad(out, &body, spec, true);
        }
        Value::F64(x) => {
            let body = match spec.precision {
                Some(p) => format!("{x:.p$}"),
                None => format!("{x:?}"),
            };
            pad(out, &body, spec, x.is_finite());
        }
        other => pad(out, &other.display_text(), spec, other.port_type().is_some_and(|t| t.is_numeric())),
    }
}

/// `printf`: Fills the format's {} placeholders with the arguments in order ({:05} {:8} {:.2} {:x} {:X} {:b} {:o}).
pub const PRINTF: NodeDef = NodeDef {
    name: "printf",
    category: "format",
    doc: "Fills the format's {} placeholders with the arguments in order ({:05} {:8} {:.2} {:x} {:X} {:b} {:o}).",
    params: &[konst("fmt", Str), many(wire_any("args"))],
    outputs: Outputs::One(Str),
    build: |c| {
        let pieces = parse_format(c.str(0))?;
        let wanted = pieces.iter().filter(|p| matches!(p, Piece::Arg(_))).count();
        Ok(value_fn(move |args, outs| {
            if args.len() < wanted {
                return Err(NodeError::new(format!(
                    "printf: the format has {wanted} placeholder(s) but only {} argument(s) were given",
                    args.len()
                )));
            }
            let mut s = String::new();
            let mut next = 0;
            for p in &pieces {
                match p {
                    Piece::Text(t) => s.push_str(t),
                    Piece::Arg(spec) => {
                        render(&mut s, args.get(next), spec);
                        next += 1;
                    }
                }
            }
            outs[0] = Value::str(s);
            Ok(())
        }))
    },
    ..NodeDef::BASE
};

/// `format_u64`: x as text: radix 16 gives 0x.., 8 gives 0o.., 2 gives 0b.., anything else decimal.
pub const FORMAT_U64: NodeDef = NodeDef {
    name: "format_u64",
    category: "format",
    doc: "x as text: radix 16 gives 0x.., 8 gives 0o.., 2 gives 0b.., anything else decimal.",
    params: &[wire("x", U64), konst_or("radix", U64, Lit::U64(10))],
    outputs: Outputs::One(Str),
    build: |c| {
        Ok(match c.u64(0) {
            16 => to_ref(|x: u64| format!("{x:#x}")),
            8 => to_ref(|x: u64| format!("{x:#o}")),
            2 => to_ref(|x: u64| format!("{x:#b}")),
            _ => to_ref(|x: u64| x.to_string()),
        })
    },
    ..NodeDef::BASE
};

/// `format_f64`: x with a fixed number of decimal places.
pub const FORMAT_F64: NodeDef = NodeDef {
    name: "format_f64",
    category: "format",
    doc: "x with a fixed number of decimal places.",
    params: &[wire("x", F64), konst_or("precision", U64, Lit::U64(2))],
    outputs: Outputs::One(Str),
    build: |c| {
        let p = c.u64(0);
        if p > MAX_FIELD {
            return Err(format!("format_f64: precision {p} is larger than {MAX_FIELD}"));
        }
        let p = p as usize;
        Ok(to_ref(move |x: f64| format!("{x:.p$}")))
    },
    ..NodeDef::BASE
};

/// `zero_pad_u64`: x in decimal, left-padded with zeros to at least width digits.
pub const ZERO_PAD_U64: NodeDef = NodeDef {
    name: "zero_pad_u64",
    category: "format",
    doc: "x in decimal, left-padded with zeros to at least width digits.",
    params: &[wire("x", U64), konst_or("width", U64, Lit::U64(10))],
    outputs: Outputs::One(Str),
    build: |c| {
        let w = c.u64(0);
        if w > MAX_FIELD {
            return Err(format!("zero_pad_u64: width {w} is larger than {MAX_FIELD}"));
        }
        let w = w as usize;
        Ok(to_ref(move |x: u64| format!("{x:0w$}")))
    },
    ..NodeDef::BASE
};

/// The formatting family.
pub const NODES: &[NodeDef] = &[PRINTF, FORMAT_U64, FORMAT_F64, ZERO_PAD_U64];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::{build_err, eval1, eval_err};

    fn printf(fmt: &str, args: &[Value]) -> String {
        eval1(&PRINTF, &[Value::str(fmt)], args).as_str().unwrap().to_string()
    }

    #[test]
    fn placeholders_are_sequential() {
        assert_eq!(printf("{} + {} = {}", &[Value::U64(1), Value::U64(2), Value::U64(3)]), "1 + 2 = 3");
        assert_eq!(printf("just text", &[]), "just text");
        assert_eq!(printf("{}", &[Value::str("é")]), "é");
        assert_eq!(printf("{{escaped}} {}", &[Value::U64(1)]), "{escaped} 1");
        assert_eq!(printf("a}}b{{", &[]), "a}b{");
        assert_eq!(printf("{}", &[Value::U64(1), Value::U64(2)]), "1", "extra arguments are ignored");
        assert_eq!(printf("{0}|{3}", &[Value::U64(7), Value::U64(8)]), "7|  8", "a bare number is a width");
    }

    #[test]
    fn numeric_specs() {
        let u = |f: &str, x: u64| printf(f, &[Value::U64(x)]);
        assert_eq!(u("{:05}", 42), "00042");
        assert_eq!(u("{:8}", 42), "      42");
        assert_eq!(u("{:x}", 255), "ff");
        assert_eq!(u("{:X}", 255), "FF");
        assert_eq!(u("{:b}", 5), "101");
        assert_eq!(u("{:o}", 8), "10");
        assert_eq!(u("{:08x}", u64::MAX), "ffffffffffffffff");
        assert_eq!(u("{:.2}", 7), "7", "precision does not apply to integers");
        assert_eq!(u("{:2}", u64::MAX), "18446744073709551615");
    }

    #[test]
    fn float_specs() {
        let f = |fmt: &str, x: f64| printf(fmt, &[Value::F64(x)]);
        assert_eq!(f("{}", 1.0), "1.0", "bare f64 uses Debug");
        assert_eq!(f("{}", -0.0), "-0.0");
        assert_eq!(f("{}", f64::NAN), "NaN");
        assert_eq!(f("{}", f64::NEG_INFINITY), "-inf");
        assert_eq!(f("{:.2}", 1.23456), "1.23");
        assert_eq!(f("{:.0}", 2.5), "2");
        assert_eq!(f("{:08.2}", -1.5), "-0001.50", "zero padding goes after the sign");
        assert_eq!(f("{:6}", 1.5), "   1.5");
        assert_eq!(f("{:06}", f64::INFINITY), "   inf", "non-finite values pad with spaces");
        let mixed = printf("id={:05} val={:.1}", &[Value::U64(7), Value::F64(98.6)]);
        assert_eq!(mixed, "id=00007 val=98.6");
    }

    #[test]
    fn other_values_use_display_text() {
        assert_eq!(printf("{:5}|{}", &[Value::str("ab"), Value::Bool(true)]), "   ab|true");
        assert_eq!(printf("{:04}", &[Value::I64(-7)]), "-007");
        assert_eq!(printf("{:04}", &[Value::str("7")]), "   7", "strings never zero-pad");
    }

    #[test]
    fn too_few_arguments_fail_at_evaluation() {
        let e = eval_err(&PRINTF, &[Value::str("{} and {}")], &[Value::U64(1)]);
        assert_eq!(e, "printf: the format has 2 placeholder(s) but only 1 argument(s) were given");
    }

    #[test]
    fn malformed_formats_are_refused_at_build() {
        let b = |f: &str| build_err(&PRINTF, &[Value::str(f)], &[]);
        assert!(b("abc {").contains("unclosed"));
        assert!(b("{:05").contains("unclosed"));
        assert!(b("a } b").contains("unmatched"));
        assert!(b("{:q}").contains("unsupported"));
        assert!(b("{:.}").contains("precision"));
        assert!(b("{:99999}").contains("larger"));
    }

    #[test]
    fn single_value_formatters() {
        let fu = |radix: u64, x: u64| eval1(&FORMAT_U64, &[Value::U64(radix)], &[Value::U64(x)]);
        assert_eq!(fu(16, 255).as_str(), Some("0xff"));
        assert_eq!(fu(8, 8).as_str(), Some("0o10"));
        assert_eq!(fu(2, 0).as_str(), Some("0b0"));
        assert_eq!(fu(10, u64::MAX).as_str(), Some("18446744073709551615"));
        assert_eq!(fu(7, 49).as_str(), Some("49"), "other radixes fall back to decimal");
        assert_eq!(eval1(&FORMAT_U64, &[], &[Value::U64(0)]).as_str(), Some("0"));
        let ff = |consts: &[Value], x: f64| eval1(&FORMAT_F64, consts, &[Value::F64(x)]);
        assert_eq!(ff(&[], 1.23456).as_str(), Some("1.23"));
        assert_eq!(ff(&[Value::U64(0)], 2.5).as_str(), Some("2"));
        assert_eq!(ff(&[], -0.0).as_str(), Some("-0.00"));
        assert_eq!(ff(&[], f64::NAN).as_str(), Some("NaN"));
        assert_eq!(ff(&[Value::U64(1)], f64::INFINITY).as_str(), Some("inf"));
        let zp = |consts: &[Value], x: u64| eval1(&ZERO_PAD_U64, consts, &[Value::U64(x)]);
        assert_eq!(zp(&[], 42).as_str(), Some("0000000042"));
        assert_eq!(zp(&[Value::U64(3)], 12345).as_str(), Some("12345"));
        assert_eq!(zp(&[Value::U64(0)], 0).as_str(), Some("0"));
        assert!(build_err(&ZERO_PAD_U64, &[Value::U64(1 << 20)], &[U64]).contains("larger"));
        assert!(build_err(&FORMAT_F64, &[Value::U64(u64::MAX)], &[F64]).contains("larger"));
    }
}
