//! Tile family: upstream's two nodes behind compiled `tile` templates,
//! callable by name with upstream's signatures.
//!
//! * `tile_encode(value, spec)` encodes one hole's value by a compact spec
//!   `encoding|position|type|format|flags`: the tile's encoding (`json`,
//!   `csv`, else text), where the hole sits in a JSON skeleton (`value`,
//!   `string`, else text), the declared type (`bool` reads truthiness, a
//!   numeric keyword keeps a JSON value bare, `str` quotes it), a format
//!   applied first (`.N` decimals, `x`/`X` hex, `0N` zero-padded width,
//!   `>N`/`N` right- and `<N` left-aligned width) and flags (`r` raw: no
//!   escaping; `c` a branch condition: `1` or `0`).
//! * `tile_render(spec, values...)` renders a skeleton — upstream's JSON
//!   form, `{"name", "encoding", "ops": [...], "children": []}` with ops
//!   `{"Static": text}`, `{"Hole": {"Wire": i}}` (the display text of
//!   value `i`, already encoded) and `{"Branch": {"cond": {"Wire": i},
//!   "then": [...], "otherwise": [...]}}` (`then` when value `i` reads
//!   `1`) — parsed once at build.
//!
//! The frontend lowers a `tile` statement to one `__tile` node of the
//! format family instead (the same encodings inside one `printf` pass),
//! which renders a whole tile without a string per hole; these two nodes
//! are the library's for programs written against upstream's lowering.
//! Escaping is the format family's (`push_json_escaped`, `push_csv_field`).

use crate::node::by_bytes::{text_value, Arg, BytesEval, Sink, ValueRef};
use crate::node::{
    konst, limit, many, wire_any, Args, NodeDef, NodeError, NodeEval, Outputs, Samples, Testing, WiresFrom,
};
use crate::nodes::format::{checked_size, push_csv_field, push_fixed, push_json_escaped, MAX_FIELD};
use crate::types::PortType::{self, Str};
use crate::value::Value;
use serde_json::Value as J;
use std::fmt::Write;

/// A tile's encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Encoding {
    Json,
    Csv,
    Text,
}

/// Where a hole sits in a `json` skeleton.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Position {
    /// A JSON value: numbers and booleans bare, strings quoted.
    Value,
    /// Inside a JSON string: escaped text.
    InString,
    /// Plain text (text and csv tiles).
    Text,
}

/// A hole's format, applied before encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum HoleFormat {
    /// `.N`: a number with N decimals.
    Fixed(usize),
    /// `x` / `X`: a u64 in hex.
    Hex { upper: bool },
    /// `0N`: padded with zeros on the left to N characters.
    ZeroPad(usize),
    /// `N` or `>N`: padded with spaces on the left.
    Right(usize),
    /// `<N`: padded with spaces on the right.
    Left(usize),
}

impl HoleFormat {
    /// The format `text` names; `None` for an unknown one (the value's
    /// own text, as upstream).
    fn parse(text: &str) -> Option<HoleFormat> {
        let t = text.trim();
        let num = |s: &str| s.parse::<usize>().ok();
        if let Some(p) = t.strip_prefix('.') {
            return num(p).map(HoleFormat::Fixed);
        }
        match t {
            "x" => return Some(HoleFormat::Hex { upper: false }),
            "X" => return Some(HoleFormat::Hex { upper: true }),
            _ => {}
        }
        if let Some(w) = t.strip_prefix('0').and_then(num) {
            return Some(HoleFormat::ZeroPad(w));
        }
        if let Some(w) = t.strip_prefix('>').and_then(num) {
            return Some(HoleFormat::Right(w));
        }
        if let Some(w) = t.strip_prefix('<').and_then(num) {
            return Some(HoleFormat::Left(w));
        }
        num(t).map(HoleFormat::Right)
    }

    /// What its size is: a `precision` (`.N`) or a `width`.
    fn size_name(self) -> &'static str {
        if matches!(self, HoleFormat::Fixed(_)) {
            "precision"
        } else {
            "width"
        }
    }

    /// The width or precision it names.
    fn size(self) -> usize {
        match self {
            HoleFormat::Fixed(n) | HoleFormat::ZeroPad(n) | HoleFormat::Right(n) | HoleFormat::Left(n) => n,
            HoleFormat::Hex { .. } => 0,
        }
    }
}

/// One hole's encoder, parsed from `tile_encode`'s spec.
#[derive(Clone, Debug, PartialEq)]
pub struct HoleEncoding {
    encoding: Encoding,
    position: Position,
    ty: Option<String>,
    format: Option<HoleFormat>,
    raw: bool,
    cond: bool,
}

impl HoleEncoding {
    /// The encoder a spec `encoding|position|type|format|flags` names; a
    /// missing part takes its default (text, text position, the value's
    /// own type, no format, no flags).
    pub fn parse(spec: &str) -> HoleEncoding {
        let mut parts = spec.splitn(5, '|');
        let encoding = match parts.next().unwrap_or("").trim() {
            "json" => Encoding::Json,
            "csv" => Encoding::Csv,
            _ => Encoding::Text,
        };
        let position = match parts.next().unwrap_or("").trim() {
            "value" => Position::Value,
            "string" => Position::InString,
            _ => Position::Text,
        };
        let ty = parts.next().map(str::trim).filter(|s| !s.is_empty()).map(str::to_string);
        let format = parts.next().and_then(HoleFormat::parse);
        let flags = parts.next().unwrap_or("");
        HoleEncoding { encoding, position, ty, format, raw: flags.contains('r'), cond: flags.contains('c') }
    }

    /// Appends `value` encoded.
    pub fn encode(&self, value: &ValueRef<'_>, out: &mut String) {
        if self.cond {
            out.push(if truthy(value) { '1' } else { '0' });
            return;
        }
        let mut text = String::new();
        self.formatted(value, &mut text);
        if self.raw {
            out.push_str(&text);
            return;
        }
        match (self.encoding, self.position) {
            (Encoding::Json, Position::InString) => push_json_escaped(out, &text),
            (Encoding::Json, Position::Value) => self.json_value(value, &text, out),
            (Encoding::Csv, _) => push_csv_field(out, &text),
            _ => out.push_str(&text),
        }
    }

    /// A hole at a JSON value position: by the declared type, else the value's.
    fn json_value(&self, value: &ValueRef<'_>, text: &str, out: &mut String) {
        let quoted = |out: &mut String| {
            out.push('"');
            push_json_escaped(out, text);
            out.push('"');
        };
        if let ValueRef::None = value {
            out.push_str("null");
            return;
        }
        let kind = self.ty.as_deref().unwrap_or_else(|| type_keyword(value));
        match (kind, value) {
            ("bool", _) => out.push_str(if truthy(value) { "true" } else { "false" }),
            ("json", ValueRef::Json(j)) => out.push_str(j),
            ("str" | "String" | "string", _) => quoted(out),
            (k, _) if is_numeric_keyword(k) => bare_number(value, text, out),
            (_, ValueRef::Json(j)) => out.push_str(j),
            (_, ValueRef::Scalar(Value::Bool(b))) => out.push_str(if *b { "true" } else { "false" }),
            (_, ValueRef::Scalar(Value::U64(_) | Value::F64(_))) => bare_number(value, text, out),
            _ => quoted(out),
        }
    }

    /// The value's text under the hole's declared type and format.
    fn formatted(&self, value: &ValueRef<'_>, out: &mut String) {
        let start = out.len();
        match (self.ty.as_deref(), value) {
            (Some("bool"), v) => out.push_str(if truthy(v) { "true" } else { "false" }),
            (_, v) => v.push_display(out),
        }
        let Some(format) = self.format else { return };
        let pad = |out: &mut String, width: usize, fill: char, left: bool| {
            let have = out[start..].chars().count();
            if have < width {
                let padding: String = std::iter::repeat_n(fill, width - have).collect();
                if left {
                    out.insert_str(start, &padding);
                } else {
                    out.push_str(&padding);
                }
            }
        };
        match format {
            HoleFormat::Fixed(p) => {
                let x = match value {
                    ValueRef::Scalar(Value::F64(x)) => *x,
                    ValueRef::Scalar(Value::U64(n)) => *n as f64,
                    _ => return,
                };
                out.truncate(start);
                push_fixed(out, x, p);
            }
            HoleFormat::Hex { upper } => {
                if let ValueRef::Scalar(Value::U64(n)) = value {
                    out.truncate(start);
                    let _ = if upper { write!(out, "{n:X}") } else { write!(out, "{n:x}") };
                }
            }
            HoleFormat::ZeroPad(w) => pad(out, w, '0', true),
            HoleFormat::Right(w) => pad(out, w, ' ', true),
            HoleFormat::Left(w) => pad(out, w, ' ', false),
        }
    }
}

/// A number at a JSON value position: its text, or `null` when it is a
/// float that is not finite (JSON has no NaN or infinity).
fn bare_number(value: &ValueRef<'_>, text: &str, out: &mut String) {
    match value {
        ValueRef::Scalar(Value::F64(x)) if !x.is_finite() => out.push_str("null"),
        ValueRef::Scalar(Value::F32(x)) if !x.is_finite() => out.push_str("null"),
        ValueRef::Scalar(Value::F16(x)) if !x.is_finite() => out.push_str("null"),
        _ => out.push_str(text),
    }
}

/// The type keyword of a value (`str` for text).
fn type_keyword(value: &ValueRef<'_>) -> &'static str {
    match value {
        ValueRef::None => "none",
        ValueRef::Scalar(v) => v.port_type().map_or("none", PortType::family),
        ValueRef::Str(_) => "str",
        ValueRef::Json(_) => "json",
        ValueRef::Bytes(_) => "bytes",
    }
}

fn is_numeric_keyword(k: &str) -> bool {
    matches!(k, "u64" | "i64" | "f64" | "f32" | "u32" | "i32" | "u16" | "i16" | "u8" | "i8" | "u128" | "i128" | "f16")
}

/// Upstream's truthiness of a hole value: a bool itself, a number when it
/// is not zero, a string unless empty, `0` or `false`; None is false and
/// any other value true.
fn truthy(value: &ValueRef<'_>) -> bool {
    match value {
        ValueRef::Scalar(Value::Bool(b)) => *b,
        ValueRef::Scalar(Value::U64(n)) => *n != 0,
        ValueRef::Scalar(Value::F64(f)) => *f != 0.0,
        ValueRef::Str(s) => !s.is_empty() && *s != "0" && *s != "false",
        ValueRef::None => false,
        _ => true,
    }
}

/// A built `tile_encode`.
struct TileEncode {
    encoding: HoleEncoding,
    ty: PortType,
}

impl NodeEval for TileEncode {
    fn eval(&self, args: &Args<'_>, outs: &mut [Value]) -> Result<(), NodeError> {
        outs[0] = text_value(|s| {
            self.encoding.encode(&ValueRef::of(args.get(0)), s);
            limit::check(s.len())
        })?;
        Ok(())
    }
    fn bytes_form(&self) -> Option<&dyn BytesEval> {
        Some(self)
    }
}

impl BytesEval for TileEncode {
    fn eval_bytes(&self, ins: &[Arg<'_>], out: Sink<'_>) -> Result<(), NodeError> {
        let out = out.text()?;
        let start = out.len();
        self.encoding.encode(&ValueRef::from_arg(ins[0], self.ty)?, out);
        limit::check(out.len() - start)
    }
    fn appends(&self) -> bool {
        true
    }
}

/// `tile_encode`: one tile hole's value encoded by its spec.
pub const TILE_ENCODE: NodeDef = NodeDef {
    name: "tile_encode",
    category: "tile",
    doc: "One tile hole's value encoded by spec `encoding|position|type|format|flags` (json/csv/text; value/string/text; a type keyword; .N x X 0N >N <N N, N at most 65535; r raw, c condition 1/0).",
    params: &[wire_any("value"), konst("spec", Str)],
    outputs: Outputs::One(Str),
    accepts_none: true,
    build: |c| {
        let encoding = HoleEncoding::parse(c.str(0));
        if let Some(format) = encoding.format {
            checked_size("tile_encode", format.size_name(), format.size() as u64, MAX_FIELD)?;
        }
        Ok(Box::new(TileEncode { encoding, ty: c.wire_types.first().copied().unwrap_or(PortType::Str) }))
    },
    testing: Testing {
        samples: &[
            (
                "spec",
                Samples::Str(&[
                    "json|value|||",
                    "json|string|||",
                    "json|value|str||",
                    "json|value|bool||",
                    "csv|text|||",
                    "text|text||.2|",
                    "text|text||08|",
                    "text|text||x|",
                    "text|text||<6|",
                    "json|value|||r",
                    "text|text|||c",
                ]),
            ),
        ],
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// One instruction of a `tile_render` skeleton.
#[derive(Clone, Debug, PartialEq)]
enum Op {
    /// Text copied as is.
    Static(String),
    /// The display text of a value (an encoded hole).
    Hole(usize),
    /// `then` when value `cond` reads `1` (trimmed), else `otherwise`.
    Branch { cond: usize, then: Vec<Op>, otherwise: Vec<Op> },
}

/// The skeleton a `tile_render` spec describes, checked against `wires` values.
fn parse_skeleton(spec: &str, wires: usize) -> Result<Vec<Op>, String> {
    let j: J = serde_json::from_str(spec).map_err(|e| format!("tile_render: malformed skeleton payload: {e}"))?;
    let name = j.get("name").and_then(J::as_str).unwrap_or("");
    if j.get("children").and_then(J::as_array).is_some_and(|c| !c.is_empty()) {
        return Err(projection_refused(name));
    }
    let ops = j.get("ops").ok_or_else(|| "tile_render: the skeleton has no \"ops\" list".to_string())?;
    parse_ops(ops, wires, name)
}

/// How many values a `tile_render` skeleton reads: one past the largest
/// `{"Wire": i}` it names (0 when it names none or does not parse).
pub fn skeleton_wires(spec: &str) -> usize {
    parse_skeleton(spec, usize::MAX).map(|ops| wires_read(&ops)).unwrap_or(0)
}

/// One past the largest value index `ops` read (0 for none).
fn wires_read(ops: &[Op]) -> usize {
    ops.iter()
        .map(|op| match op {
            Op::Static(_) => 0,
            Op::Hole(i) => i + 1,
            Op::Branch { cond, then, otherwise } => (cond + 1).max(wires_read(then)).max(wires_read(otherwise)),
        })
        .max()
        .unwrap_or(0)
}

fn projection_refused(name: &str) -> String {
    format!(
        "tile_render: tile '{name}' has a projection body (`Repeat`); projections are unrolled when a tile \
         statement compiles, so a skeleton here holds static text, holes and branches only"
    )
}

fn parse_ops(j: &J, wires: usize, name: &str) -> Result<Vec<Op>, String> {
    let list = j.as_array().ok_or_else(|| format!("tile_render: ops must be a list, got {j}"))?;
    list.iter().map(|op| parse_op(op, wires, name)).collect()
}

fn parse_op(j: &J, wires: usize, name: &str) -> Result<Op, String> {
    let (kind, body) = match j.as_object() {
        Some(map) if map.len() == 1 => map.iter().next().expect("one entry"),
        _ => return Err(format!("tile_render: an op is an object with one key (Static, Hole, Branch), got {j}")),
    };
    match kind.as_str() {
        "Static" => body
            .as_str()
            .map(|s| Op::Static(s.to_string()))
            .ok_or_else(|| format!("tile_render: Static takes a string, got {body}")),
        "Hole" => Ok(Op::Hole(parse_source(body, wires, name)?)),
        "Branch" => Ok(Op::Branch {
            cond: parse_source(body.get("cond").unwrap_or(&J::Null), wires, name)?,
            then: parse_ops(body.get("then").unwrap_or(&J::Array(Vec::new())), wires, name)?,
            otherwise: parse_ops(body.get("otherwise").unwrap_or(&J::Array(Vec::new())), wires, name)?,
        }),
        "Repeat" => Err(projection_refused(name)),
        other => Err(format!("tile_render: unknown op `{other}` (Static, Hole, Branch)")),
    }
}

fn parse_source(j: &J, wires: usize, name: &str) -> Result<usize, String> {
    if j.get("Child").is_some() {
        return Err(projection_refused(name));
    }
    let index = j
        .get("Wire")
        .and_then(J::as_u64)
        .ok_or_else(|| format!("tile_render: a hole source is {{\"Wire\": index}}, got {j}"))?;
    usize::try_from(index).ok().filter(|&i| i < wires).ok_or_else(|| {
        format!("tile_render: hole {{\"Wire\": {index}}} names value {index}, but the call passes {wires}")
    })
}

/// A built `tile_render`.
struct TileRender {
    ops: Vec<Op>,
    types: Box<[PortType]>,
}

impl TileRender {
    fn render<'a>(
        &self,
        ops: &[Op],
        value: &impl Fn(usize) -> Result<ValueRef<'a>, NodeError>,
        out: &mut String,
        start: usize,
    ) -> Result<(), NodeError> {
        for op in ops {
            match op {
                Op::Static(s) => limit::push_str_from(out, start, s)?,
                Op::Hole(i) => {
                    value(*i)?.push_display(out);
                    limit::check(out.len() - start)?;
                }
                Op::Branch { cond, then, otherwise } => {
                    let holds = match value(*cond)? {
                        ValueRef::Str(s) | ValueRef::Json(s) => s.trim() == "1",
                        other => {
                            let mut text = String::new();
                            other.push_display(&mut text);
                            text.trim() == "1"
                        }
                    };
                    self.render(if holds { then } else { otherwise }, value, out, start)?;
                }
            }
        }
        Ok(())
    }
}

impl NodeEval for TileRender {
    fn eval(&self, args: &Args<'_>, outs: &mut [Value]) -> Result<(), NodeError> {
        outs[0] = text_value(|s| self.render(&self.ops, &|i| Ok(ValueRef::of(args.get(i))), s, 0))?;
        Ok(())
    }
    fn bytes_form(&self) -> Option<&dyn BytesEval> {
        Some(self)
    }
}

impl BytesEval for TileRender {
    fn eval_bytes(&self, ins: &[Arg<'_>], out: Sink<'_>) -> Result<(), NodeError> {
        let out = out.text()?;
        let start = out.len();
        self.render(&self.ops, &|i| ValueRef::from_arg(ins[i], self.types[i]), out, start)
    }
    fn appends(&self) -> bool {
        true
    }
}

/// `tile_render`: a tile skeleton rendered over its (already encoded) hole values.
pub const TILE_RENDER: NodeDef = NodeDef {
    name: "tile_render",
    category: "tile",
    doc: "Renders a tile skeleton (JSON: ops Static / Hole {Wire: i} / Branch {cond, then, otherwise}) over the values, each written as its text.",
    params: &[konst("spec", Str), many(wire_any("values"))],
    outputs: Outputs::One(Str),
    build: |c| {
        let ops = parse_skeleton(c.str(0), c.wire_types.len())?;
        Ok(Box::new(TileRender { ops, types: c.wire_types.into() }))
    },
    testing: Testing {
        samples: &[
            (
                "spec",
                Samples::Str(&[
                    r#"{"ops": [{"Static": "{\"n\": "}, {"Hole": {"Wire": 0}}, {"Static": ", \"s\": \""}, {"Hole": {"Wire": 1}}, {"Static": "\"}"}]}"#,
                    r#"{"ops": [{"Branch": {"cond": {"Wire": 0}, "then": [{"Static": "yes "}, {"Hole": {"Wire": 1}}], "otherwise": [{"Static": "no"}]}}]}"#,
                    r#"{"ops": [{"Static": "constant"}]}"#,
                ]),
            ),
        ],
        wires_from: Some(WiresFrom { param: "spec", count: skeleton_wires }),
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// The tile family.
pub const NODES: &[NodeDef] = &[TILE_ENCODE, TILE_RENDER];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::{build_err, eval1};

    fn encode(value: Value, spec: &str) -> String {
        eval1(&TILE_ENCODE, &[Value::str(spec)], &[value]).as_str().unwrap().to_string()
    }

    #[test]
    fn a_hole_size_past_the_limit_is_a_build_error() {
        let e = build_err(&TILE_ENCODE, &[Value::str("text|text||.70000|")], &[PortType::F64]);
        assert_eq!(e, "tile_encode: precision 70000 is larger than 65535, the largest precision it takes");
        let e = build_err(&TILE_ENCODE, &[Value::str("text|text||<65536|")], &[PortType::Str]);
        assert!(e.starts_with("tile_encode: width 65536 is larger than 65535"), "{e}");
        assert_eq!(encode(Value::str("s"), "text|text||65535|").len(), 65535);
    }

    #[test]
    fn holes_encode_by_position_and_type_as_upstream() {
        // Upstream's own examples of its encoder.
        assert_eq!(encode(Value::str("a\"b"), "json|value|str||"), "\"a\\\"b\"");
        assert_eq!(encode(Value::U64(7), "json|value|||"), "7");
        assert_eq!(encode(Value::str("x\ny"), "json|string|||"), "x\\ny");
        assert_eq!(encode(Value::F64(2.0 / 3.0), "json|value||.2|"), "0.67");
        assert_eq!(encode(Value::None, "json|value|||"), "null");
        assert_eq!(encode(Value::str("a,b"), "csv|text|||"), "\"a,b\"");
        assert_eq!(encode(Value::str("a\"b"), "json|value|||r"), "a\"b");
        assert_eq!(encode(Value::U64(5), "text|text||03|"), "005");
        assert_eq!(encode(Value::U64(255), "text|text||x|"), "ff");
        assert_eq!(encode(Value::str("ab"), "text|text||>4|"), "  ab");
        assert_eq!(encode(Value::str("ab"), "text|text||<4|"), "ab  ");
        assert_eq!(encode(Value::U64(3), "text|text|||c"), "1");
        assert_eq!(encode(Value::str("false"), "text|text|||c"), "0");
        assert_eq!(encode(Value::U64(0), "json|value|bool||"), "false");
        assert_eq!(encode(Value::Bool(true), "json|value|||"), "true");
        assert_eq!(encode(Value::Json("[1,2]".into()), "json|value|||"), "[1,2]");
        assert_eq!(encode(Value::F64(f64::NAN), "json|value|||"), "null");
        assert_eq!(encode(Value::U64(1), "json|value|str||"), "\"1\"");
        assert_eq!(encode(Value::str("q"), ""), "q");
    }

    #[test]
    fn skeletons_render_statics_holes_and_branches() {
        let spec = r#"{"name":"t","encoding":"text","ops":[{"Static":"a="},{"Hole":{"Wire":0}},
            {"Branch":{"cond":{"Wire":1},"then":[{"Static":" yes"}],"otherwise":[{"Static":" no"}]}}],"children":[]}"#;
        let render = |a: Value, c: Value| eval1(&TILE_RENDER, &[Value::str(spec)], &[a, c]).display_text();
        assert_eq!(render(Value::str("\"x\""), Value::str("1")), "a=\"x\" yes");
        assert_eq!(render(Value::U64(4), Value::str("0")), "a=4 no");
        let types = [PortType::Str];
        assert!(build_err(&TILE_RENDER, &[Value::str("{")], &types).contains("malformed skeleton payload"));
        let repeat = r#"{"ops":[{"Repeat":{}}]}"#;
        assert!(build_err(&TILE_RENDER, &[Value::str(repeat)], &types).contains("projection"));
        let far = r#"{"ops":[{"Hole":{"Wire":3}}]}"#;
        assert!(build_err(&TILE_RENDER, &[Value::str(far)], &types).contains("names value 3"));
    }
}
