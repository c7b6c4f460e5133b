//! JSON family: building JSON from wire values (`json_with` pairs merged
//! by `json_object`, `json_array`, `to_json`), merging, serializing,
//! parsing and field access. A `json` value travels as its compact text;
//! object keys come out sorted (serde_json's map).

use crate::node::kit::{str_map, value_fn};
use crate::node::kits_extra::JsonText;
use crate::node::{konst, limit, many, wire, wire_any, NodeDef, NodeError, Outputs};
use crate::types::PortType::{Json, Str};
use crate::value::Value;
use base64::Engine;
use serde_json::{Map, Value as J};

/// A wire value as JSON: numbers as numbers (a non-finite float as null),
/// strings as strings, bytes as base64 text (upstream's convention), JSON
/// as itself, a timestamp or date as its ISO text, the absent value as null.
pub fn value_to_json(v: &Value) -> J {
    match v {
        Value::None => J::Null,
        Value::U64(x) => J::from(*x),
        Value::I64(x) => J::from(*x),
        Value::U32(x) => J::from(*x),
        Value::I32(x) => J::from(*x),
        Value::F64(x) => serde_json::Number::from_f64(*x).map_or(J::Null, J::Number),
        Value::F32(x) => serde_json::Number::from_f64(f64::from(*x)).map_or(J::Null, J::Number),
        Value::Bool(b) => J::Bool(*b),
        Value::Str(s) => J::String(s.to_string()),
        Value::Bytes(b) => J::String(base64::engine::general_purpose::STANDARD.encode(b)),
        Value::Json(t) => parse(t),
        Value::Timestamp(ms) => J::String(crate::nodes::datetime::timestamp_text(*ms)),
        Value::Date(days) => J::String(crate::nodes::datetime::date_text(*days)),
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
}
