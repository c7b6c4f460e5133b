//! JSON family: building JSON from wire values (`json_with` pairs merged
//! by `json_object`, `json_array`, `to_json`), merging, serializing,
//! parsing and field access. A `json` value travels as its compact text;
//! object keys come out sorted (serde_json's map).

use crate::node::kit::{str_map, value_fn};
use crate::node::kit_text::JsonText;
use crate::node::{konst, konst_or, limit, many, wire, wire_any, Lit, NodeDef, NodeError, Outputs, Testing};
use crate::types::PortType::{Json, Str, F64, U64};
use crate::value::Value;
use base64::Engine;
use serde_json::{Map, Value as J};

/// A wire value as JSON: numbers as numbers (a non-finite float as null),
/// strings as strings, bytes as base64 text (upstream's convention), JSON
/// as itself, a timestamp or date as its ISO text, a decimal as its exact
/// text in a string (`"901.00"`: a JSON number would pass through a float
/// in most readers) and so is a u128 or an i128 (`"340282366920938463463374607431768211455"`),
/// a list is an array of its elements, the absent value as null.
pub fn value_to_json(v: &Value) -> J {
    match v {
        Value::None => J::Null,
        Value::U64(x) => J::from(*x),
        Value::I64(x) => J::from(*x),
        Value::U32(x) => J::from(*x),
        Value::I32(x) => J::from(*x),
        Value::U16(x) => J::from(*x),
        Value::I16(x) => J::from(*x),
        Value::U8(x) => J::from(*x),
        Value::I8(x) => J::from(*x),
        Value::F64(x) => serde_json::Number::from_f64(*x).map_or(J::Null, J::Number),
        Value::F32(x) => serde_json::Number::from_f64(f64::from(*x)).map_or(J::Null, J::Number),
        Value::F16(x) => serde_json::Number::from_f64(crate::value::f16_shortest(*x)).map_or(J::Null, J::Number),
        Value::Bool(b) => J::Bool(*b),
        Value::Str(s) => J::String(s.to_string()),
        Value::Bytes(b) => J::String(base64::engine::general_purpose::STANDARD.encode(b)),
        Value::Json(t) => parse(t),
        Value::Timestamp(ms) => J::String(crate::nodes::datetime::timestamp_text(*ms)),
        Value::Date(days) => J::String(crate::nodes::datetime::date_text(*days)),
        Value::Decimal(d) => J::String(d.to_string()),
        Value::Vector(t, bytes) => J::Array(
            (0..t.len_of(bytes).unwrap_or(0))
                .filter_map(|i| crate::value::list_element(*t, bytes, i))
                .map(|e| value_to_json(&e))
                .collect(),
        ),
        Value::U128(_) | Value::I128(_) => J::String(v.display_text()),
    }
}

/// JSON text parsed (text that is not JSON reads as null).
fn parse(text: &str) -> J {
    serde_json::from_str(text).unwrap_or(J::Null)
}

/// A JSON value as a node's result, within the value size limit.
fn json_out(j: &J) -> Result<Value, NodeError> {
    let text = j.to_string();
    limit::check(text.len())?;
    Ok(Value::Json(text.into()))
}

/// `json_with`: the one-entry object {key: value}, for json_object to merge.
pub const JSON_WITH: NodeDef = NodeDef {
    name: "json_with",
    category: "json",
    doc: "The one-entry object {key: value} (value converted: numbers, strings, bools, bytes as base64, json nested); merge them with json_object.",
    params: &[konst("key", Str), wire_any("value")],
    outputs: Outputs::One(Json),
    accepts_none: true,
    build: |c| {
        let key = c.str(0).to_string();
        Ok(value_fn(move |args, outs| {
            let mut m = Map::new();
            m.insert(key.clone(), value_to_json(args.get(0)));
            outs[0] = json_out(&J::Object(m))?;
            Ok(())
        }))
    },
    ..NodeDef::BASE
};

/// `json_object`: the objects among the parts merged into one (later keys win; other parts skipped).
pub const JSON_OBJECT: NodeDef = NodeDef {
    name: "json_object",
    category: "json",
    doc: "The entries of every object among the parts merged into one object (a later key wins; parts that are not objects are skipped).",
    params: &[many(wire("parts", Json))],
    outputs: Outputs::One(Json),
    build: |_| {
        Ok(value_fn(|args, outs| {
            let mut merged = Map::new();
            for v in args.iter() {
                if let J::Object(m) = value_to_json(v) {
                    merged.extend(m);
                }
            }
            outs[0] = json_out(&J::Object(merged))?;
            Ok(())
        }))
    },
    testing: Testing {
        corner_call: Some(r#"json_object(json_with("k", a), json_with("s", s), json_with("x", x))"#),
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `json_array`: an array of the elements, each converted as json_with converts.
pub const JSON_ARRAY: NodeDef = NodeDef {
    name: "json_array",
    category: "json",
    doc: "An array of the elements, each converted as json_with converts values.",
    params: &[many(wire_any("elems"))],
    outputs: Outputs::One(Json),
    build: |_| {
        Ok(value_fn(|args, outs| {
            outs[0] = json_out(&J::Array(args.iter().map(value_to_json).collect()))?;
            Ok(())
        }))
    },
    ..NodeDef::BASE
};

/// `to_json`: the value as JSON.
pub const TO_JSON: NodeDef = NodeDef {
    name: "to_json",
    category: "json",
    doc: "The value as JSON (numbers, strings, bools; bytes as base64 text).",
    params: &[wire_any("input")],
    outputs: Outputs::One(Json),
    build: |_| {
        Ok(value_fn(|args, outs| {
            outs[0] = json_out(&value_to_json(args.get(0)))?;
            Ok(())
        }))
    },
    ..NodeDef::BASE
};

/// `json_merge`: left with right's entries laid over it when both are objects, else left.
pub const JSON_MERGE: NodeDef = NodeDef {
    name: "json_merge",
    category: "json",
    doc: "left with right's entries laid over it (shallow, right wins) when both are objects; otherwise left.",
    params: &[wire("left", Json), wire("right", Json)],
    outputs: Outputs::One(Json),
    build: |_| {
        Ok(value_fn(|args, outs| {
            let mut left = value_to_json(args.get(0));
            if let (J::Object(base), J::Object(over)) = (&mut left, value_to_json(args.get(1))) {
                base.extend(over);
            }
            outs[0] = json_out(&left)?;
            Ok(())
        }))
    },
    testing: Testing { corner_call: Some(r#"json_merge(json_with("a", a), json_with("b", x))"#), ..Testing::BASE },
    ..NodeDef::BASE
};

/// `json_to_str`: the compact JSON text.
pub const JSON_TO_STR: NodeDef = NodeDef {
    name: "json_to_str",
    category: "json",
    doc: "The compact JSON text.",
    params: &[wire("input", Json)],
    outputs: Outputs::One(Str),
    build: |_| Ok(str_map(|s: &str| Ok(parse(s).to_string()))),
    testing: Testing { corner_call: Some("json_to_str(json_array(a, x, s))"), ..Testing::BASE },
    ..NodeDef::BASE
};

/// `json_to_str_pretty`: the JSON text pretty-printed (two-space indent).
pub const JSON_TO_STR_PRETTY: NodeDef = NodeDef {
    name: "json_to_str_pretty",
    category: "json",
    doc: "The JSON text pretty-printed (two-space indent).",
    params: &[wire("input", Json)],
    outputs: Outputs::One(Str),
    build: |_| {
        Ok(str_map(|s: &str| {
            let out = serde_json::to_string_pretty(&parse(s)).unwrap_or_default();
            limit::check(out.len()).map_err(|e| e.message().to_string())?;
            Ok(out)
        }))
    },
    testing: Testing { corner_call: Some(r#"json_to_str_pretty(json_with("k", t))"#), ..Testing::BASE },
    ..NodeDef::BASE
};

/// `str_to_json`: the string parsed as JSON (null when it is not JSON).
pub const STR_TO_JSON: NodeDef = NodeDef {
    name: "str_to_json",
    category: "json",
    doc: "The string parsed as JSON; null when it is not JSON.",
    params: &[wire("input", Str)],
    outputs: Outputs::One(Json),
    build: |_| Ok(str_map(|s: &str| Ok(JsonText(parse(s).to_string())))),
    ..NodeDef::BASE
};

/// `escape_json`: the string escaped for the inside of a JSON string (no quotes added).
pub const ESCAPE_JSON: NodeDef = NodeDef {
    name: "escape_json",
    category: "json",
    doc: "The string escaped for the inside of a JSON string literal (quotes, backslashes, control characters); no quotes added.",
    params: &[wire("input", Str)],
    outputs: Outputs::One(Str),
    build: |_| {
        Ok(str_map(|s: &str| {
            let quoted = J::String(s.to_string()).to_string();
            limit::check(quoted.len()).map_err(|e| e.message().to_string())?;
            Ok(quoted[1..quoted.len() - 1].to_string())
        }))
    },
    ..NodeDef::BASE
};

/// `json_field`: the value under key in an object (null when missing or not an object).
pub const JSON_FIELD: NodeDef = NodeDef {
    name: "json_field",
    category: "json",
    doc: "The value under key of a JSON object (null when the key is missing or the input is not an object).",
    params: &[wire("input", Json), konst("key", Str)],
    outputs: Outputs::One(Json),
    build: |c| {
        let key = c.str(0).to_string();
        Ok(str_map(move |s: &str| Ok(JsonText(parse(s).get(&key).cloned().unwrap_or(J::Null).to_string()))))
    },
    testing: Testing { corner_call: Some(r#"json_field(json_with("k", s), "k")"#), ..Testing::BASE },
    ..NodeDef::BASE
};

fn leaves(j: &J, out: &mut String) {
    let mut push = |t: &str| {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(t);
    };
    match j {
        J::String(s) => push(s),
        J::Number(n) => push(&n.to_string()),
        J::Bool(b) => push(if *b { "true" } else { "false" }),
        J::Null => {}
        J::Array(items) => items.iter().for_each(|i| leaves(i, out)),
        J::Object(m) => m.values().for_each(|v| leaves(v, out)),
    }
}

/// `json_text`: every leaf of the JSON tree (depth first; nulls skipped), one per line.
pub const JSON_TEXT: NodeDef = NodeDef {
    name: "json_text",
    category: "json",
    doc: "Every leaf of a JSON tree as text, depth first, one per line (strings verbatim, nulls skipped); other values' display text.",
    params: &[wire_any("input")],
    outputs: Outputs::One(Str),
    build: |_| {
        Ok(value_fn(|args, outs| {
            let text = match args.get(0) {
                Value::Json(t) => {
                    let mut s = String::new();
                    leaves(&parse(t), &mut s);
                    s
                }
                other => other.display_text(),
            };
            limit::check(text.len())?;
            outs[0] = Value::str(text);
            Ok(())
        }))
    },
    ..NodeDef::BASE
};

/// The elements of a bracket-encoded array text (`[a, b, c]`), trimmed;
/// `None` when the text is not bracketed. `[]` has one empty element, as
/// upstream's comma split gives.
fn bracket_elements(text: &str) -> Option<Vec<&str>> {
    let trimmed = text.trim();
    let inner = trimmed.strip_prefix('[')?.strip_suffix(']')?;
    Some(inner.split(',').map(str::trim).collect())
}

/// `array_len`: the element count of a bracket-encoded array text.
pub const ARRAY_LEN: NodeDef = NodeDef {
    name: "array_len",
    category: "json",
    doc: "The number of comma-separated elements of a bracket-encoded array text such as [1,2,3]; 0 for [] and for text that is not bracketed.",
    params: &[wire("input", Str)],
    build: |_| {
        Ok(str_map(|s: &str| {
            let trimmed = s.trim();
            Ok(match bracket_elements(trimmed) {
                Some(_) if trimmed == "[]" => 0u64,
                Some(elements) => elements.len() as u64,
                None => 0,
            })
        }))
    },
    ..NodeDef::BASE
};

/// `array_at`: the element at `index` (wrapping) of a bracket-encoded array text.
pub const ARRAY_AT: NodeDef = NodeDef {
    name: "array_at",
    category: "json",
    doc: "The element at index (taken modulo the length) of a bracket-encoded array text, trimmed; \"\" for an empty array or text that is not bracketed.",
    params: &[wire("array", Str), wire("index", U64)],
    outputs: Outputs::One(Str),
    build: |_| {
        Ok(value_fn(|args, outs| {
            let text = args.get(0).as_str().unwrap_or("");
            let index = args.get(1).as_u64().unwrap_or(0);
            let element = match bracket_elements(text) {
                Some(elements) if !(elements.len() == 1 && elements[0].is_empty()) => {
                    elements[(index % elements.len() as u64) as usize]
                }
                _ => "",
            };
            outs[0] = Value::str(element);
            Ok(())
        }))
    },
    testing: Testing { corner_call: Some("array_at(random_vector(c, mod(b, 5)), a)"), ..Testing::BASE },
    ..NodeDef::BASE
};

/// `normalize_vector`: a bracket-encoded vector scaled to unit L2 length.
pub const NORMALIZE_VECTOR: NodeDef = NodeDef {
    name: "normalize_vector",
    category: "json",
    doc: "A bracket-encoded float vector [1.0,2.0] divided by its L2 norm (elements that do not parse are dropped); the input unchanged when it is not bracketed or its norm is below 1e-15.",
    params: &[wire("vector", Str)],
    outputs: Outputs::One(Str),
    build: |_| {
        Ok(str_map(|s: &str| {
            let Some(elements) = bracket_elements(s) else {
                return Ok(s.to_string());
            };
            let values: Vec<f64> = elements.iter().filter_map(|e| e.parse::<f64>().ok()).collect();
            let norm = values.iter().map(|v| v * v).sum::<f64>().sqrt();
            if norm < 1e-15 {
                return Ok(s.to_string());
            }
            let parts: Vec<String> = values.iter().map(|v| format!("{}", v / norm)).collect();
            Ok(format!("[{}]", parts.join(",")))
        }))
    },
    testing: Testing { corner_call: Some("normalize_vector(random_vector(a, mod(b, 6)))"), ..Testing::BASE },
    ..NodeDef::BASE
};

/// `random_vector`: `dim` values in [min, max) from a chain of xxh3 hashes, bracket-encoded.
pub const RANDOM_VECTOR: NodeDef = NodeDef {
    name: "random_vector",
    category: "json",
    doc: "A bracket-encoded vector of dim values min + (max - min) * h / u64::MAX, h running through xxh3(seed), xxh3(xxh3(seed)), ...",
    params: &[wire("seed", U64), wire("dim", U64), konst_or("min", F64, Lit::F64(0.0)), konst_or("max", F64, Lit::F64(1.0))],
    outputs: Outputs::One(Str),
    build: |c| {
        let (min, max) = (c.f64(0), c.f64(1));
        Ok(value_fn(move |args, outs| {
            let (seed, dim) = (args.get(0).as_u64().unwrap_or(0), args.get(1).as_u64().unwrap_or(0));
            // Each element takes at least 2 bytes ("0," at the shortest).
            limit::check(usize::try_from(dim).unwrap_or(usize::MAX).saturating_mul(2))?;
            let mut text = String::from("[");
            let mut h = seed;
            for i in 0..dim {
                h = crate::nodes::hash::xxh3_u64(h);
                if i > 0 {
                    text.push(',');
                }
                use std::fmt::Write;
                let _ = write!(text, "{}", min + (max - min) * (h as f64 / u64::MAX as f64));
                limit::check(text.len())?;
            }
            text.push(']');
            outs[0] = Value::str(text);
            Ok(())
        }))
    },
    testing: Testing { corner_call: Some("random_vector(a, mod(b, 40), -1.5, 2.0)"), random: false, ..Testing::BASE },
    ..NodeDef::BASE
};

/// An i32 read from a JSON value as upstream reads one: a number (clamped to
/// the i32 range; a float truncated) or a string that parses; else nothing.
fn json_as_i32(v: &J) -> Option<i32> {
    match v {
        J::Number(n) => n
            .as_i64()
            .map(|i| i.clamp(i32::MIN as i64, i32::MAX as i64) as i32)
            .or_else(|| n.as_u64().map(|u| u.min(i32::MAX as u64) as i32))
            .or_else(|| n.as_f64().filter(|f| f.is_finite()).map(|f| f as i32)),
        J::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// `body_column_i32`: the named column of every row of a JSON result body, as integers.
pub const BODY_COLUMN_I32: NodeDef = NodeDef {
    name: "body_column_i32",
    category: "json",
    doc: "The column of every row of a result body ([{...}, ...], {\"rows\": [...]}, or one row {...}) read as i32, as a JSON array; rows without a readable value are skipped; [] for input that is not JSON.",
    params: &[wire_any("body"), konst("column", Str)],
    outputs: Outputs::One(Json),
    build: |c| {
        let column = c.str(0).to_string();
        Ok(value_fn(move |args, outs| {
            let body = match args.get(0) {
                Value::Json(t) => parse(t),
                _ => J::Null,
            };
            let of_rows = |rows: &Vec<J>| rows.iter().filter_map(|r| r.get(&column).and_then(json_as_i32)).collect();
            let values: Vec<i32> = match &body {
                J::Array(rows) => of_rows(rows),
                J::Object(m) => match m.get("rows") {
                    Some(J::Array(rows)) => of_rows(rows),
                    _ => m.get(&column).and_then(json_as_i32).into_iter().collect(),
                },
                _ => Vec::new(),
            };
            outs[0] = json_out(&J::from(values))?;
            Ok(())
        }))
    },
    testing: Testing {
        corner_call: Some(r#"body_column_i32(json_array(json_with("k", a), json_with("k", s), json_with("j", b)), "k")"#),
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// The JSON family.
pub const NODES: &[NodeDef] = &[
    JSON_WITH,
    JSON_OBJECT,
    JSON_ARRAY,
    TO_JSON,
    JSON_MERGE,
    JSON_TO_STR,
    JSON_TO_STR_PRETTY,
    STR_TO_JSON,
    ESCAPE_JSON,
    JSON_FIELD,
    JSON_TEXT,
    ARRAY_LEN,
    ARRAY_AT,
    NORMALIZE_VECTOR,
    RANDOM_VECTOR,
    BODY_COLUMN_I32,
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::eval1;
    use std::sync::Arc;

    fn j(t: &str) -> Value {
        Value::Json(Arc::from(t))
    }

    fn text(v: Value) -> String {
        v.as_str().unwrap().to_string()
    }

    #[test]
    fn construction_merges_pairs() {
        let name = eval1(&JSON_WITH, &[Value::str("name")], &[Value::str("Ann")]);
        let age = eval1(&JSON_WITH, &[Value::str("age")], &[Value::U64(42)]);
        let score = eval1(&JSON_WITH, &[Value::str("score")], &[Value::F64(f64::NAN)]);
        let obj = eval1(&JSON_OBJECT, &[], &[name, age, score, j("[1]")]);
        assert_eq!(text(obj), r#"{"age":42,"name":"Ann","score":null}"#);
        let arr = eval1(
            &JSON_ARRAY,
            &[],
            &[Value::U64(1), Value::str("x"), Value::Bool(true), Value::Bytes(Arc::from(&b"hi"[..]))],
        );
        assert_eq!(text(arr), r#"[1,"x",true,"aGk="]"#);
        assert_eq!(text(eval1(&TO_JSON, &[], &[Value::F64(1.5)])), "1.5");
        assert_eq!(text(eval1(&JSON_OBJECT, &[], &[])), "{}");
        let merged = eval1(&JSON_MERGE, &[], &[j(r#"{"a":1,"b":2}"#), j(r#"{"b":3}"#)]);
        assert_eq!(text(merged), r#"{"a":1,"b":3}"#);
        assert_eq!(text(eval1(&JSON_MERGE, &[], &[j("[1]"), j(r#"{"b":3}"#)])), "[1]");
    }

    #[test]
    fn serialization_and_access() {
        assert_eq!(text(eval1(&JSON_TO_STR, &[], &[j(r#"{ "a" : [1, 2] }"#)])), r#"{"a":[1,2]}"#);
        assert_eq!(text(eval1(&JSON_TO_STR_PRETTY, &[], &[j(r#"{"a":1}"#)])), "{\n  \"a\": 1\n}");
        assert_eq!(text(eval1(&STR_TO_JSON, &[], &[Value::str("nope")])), "null");
        assert!(eval1(&STR_TO_JSON, &[], &[Value::str("[1, 2]")]).same(&j("[1,2]")));
        assert_eq!(text(eval1(&ESCAPE_JSON, &[], &[Value::str("a\"b\\c\n")])), r#"a\"b\\c\n"#);
        assert_eq!(text(eval1(&JSON_FIELD, &[Value::str("a")], &[j(r#"{"a":{"b":1}}"#)])), r#"{"b":1}"#);
        assert_eq!(text(eval1(&JSON_FIELD, &[Value::str("z")], &[j(r#"{"a":1}"#)])), "null");
        assert_eq!(text(eval1(&JSON_TEXT, &[], &[j(r#"{"a":"x\ny","b":[1,null,true]}"#)])), "x\ny\n1\ntrue");
        assert_eq!(text(eval1(&JSON_TEXT, &[], &[Value::U64(5)])), "5");
    }

    #[test]
    fn bracket_arrays_as_upstream_reads_them() {
        let len = |t: &str| eval1(&ARRAY_LEN, &[], &[Value::str(t)]).as_u64().unwrap();
        assert_eq!((len("[1,2,3]"), len("[]"), len(""), len("1,2"), len(" [a] ")), (3, 0, 0, 0, 1));
        let at = |t: &str, i: u64| text(eval1(&ARRAY_AT, &[], &[Value::str(t), Value::U64(i)]));
        assert_eq!(at("[10, 20, 30]", 1), "20");
        assert_eq!(at("[10, 20, 30]", 4), "20");
        assert_eq!(at("[]", 4), "");
        assert_eq!(at("x", 0), "");
        let norm = |t: &str| text(eval1(&NORMALIZE_VECTOR, &[], &[Value::str(t)]));
        assert_eq!(norm("[3,4]"), "[0.6,0.8]");
        assert_eq!(norm("[0,0]"), "[0,0]");
        assert_eq!(norm("3,4"), "3,4");
        let v = text(eval1(&RANDOM_VECTOR, &[], &[Value::U64(7), Value::U64(3)]));
        let h1 = crate::nodes::hash::xxh3_u64(7);
        assert!(v.starts_with(&format!("[{},", h1 as f64 / u64::MAX as f64)), "{v}");
        assert_eq!(bracket_elements(&v).unwrap().len(), 3);
        assert_eq!(text(eval1(&RANDOM_VECTOR, &[], &[Value::U64(7), Value::U64(0)])), "[]");
    }

    #[test]
    fn body_columns_read_every_shape() {
        let col = |body: Value| text(eval1(&BODY_COLUMN_I32, &[Value::str("key")], &[body]));
        assert_eq!(col(j(r#"[{"key": 4}, {"key": "17"}, {"other": 1}, {"key": "x"}, {"key": -7}]"#)), "[4,17,-7]");
        assert_eq!(col(j(r#"{"rows": [{"key": 1}, {"key": 9999999999}], "meta": 0}"#)), "[1,2147483647]");
        assert_eq!(col(j(r#"{"key": 2.9}"#)), "[2]");
        assert_eq!(col(Value::str("not json")), "[]");
    }
}
