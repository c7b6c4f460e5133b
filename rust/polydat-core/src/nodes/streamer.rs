//! Streamer family: `streamer(spec)`, the value of a `for` producer.
//!
//! `name := for <comprehension>` binds a constant: the frontend lowers it
//! to `name := streamer("<comprehension>")`, as upstream does. The spec is
//! the comprehension's text (`k in 1..4, limit in 10,20,30`), or upstream's
//! serialized payload, a JSON object whose `text` field holds it. The
//! value is that text after `for `, as upstream prints a producer
//! (`for k in 1..4, limit in 10, 20, 30`: the frontend passes the text in
//! that canonical spacing), a `str` (upstream's is an opaque `Streamer`
//! value; this project has no such port type): the frontend reads a
//! producer's comprehension when it compiles the traversals over it, and a
//! host hands the value to `Kernel.for_each`, which reads past the `for`.

use crate::node::kit::value_fn;
use crate::node::{konst, NodeDef, Outputs, Samples, Testing};
use crate::types::PortType::Str;
use crate::value::Value;

/// The comprehension text a `streamer` spec holds: the `text` field of a
/// JSON payload (a spec starting with `{`), else the spec itself, trimmed.
pub fn comprehension_text(spec: &str) -> Result<String, String> {
    let trimmed = spec.trim();
    if trimmed.starts_with('{') {
        let payload: serde_json::Value =
            serde_json::from_str(trimmed).map_err(|e| format!("streamer: malformed comprehension payload: {e}"))?;
        return match payload.get("text").and_then(serde_json::Value::as_str).map(str::trim) {
            Some(text) if !text.is_empty() => Ok(text.to_string()),
            _ => Err("streamer: malformed comprehension payload: no \"text\" field holding a comprehension".into()),
        };
    }
    if trimmed.is_empty() {
        return Err("streamer: `` is not a comprehension: it is empty (write e.g. `k in 1..4`)".into());
    }
    Ok(trimmed.to_string())
}

/// `streamer`: a comprehension bound as a value (a `for` producer's).
pub const STREAMER: NodeDef = NodeDef {
    name: "streamer",
    category: "streamer",
    doc: "A comprehension bound as a value (what `name := for ...` lowers to): `for` and its text, from the text itself or upstream's JSON payload.",
    params: &[konst("spec", Str)],
    outputs: Outputs::One(Str),
    build: |c| {
        let text = comprehension_text(c.str(0))?;
        let text: Value = Value::str(if text.starts_with("for ") { text } else { format!("for {text}") });
        Ok(value_fn(move |_, outs| {
            outs[0] = text.clone();
            Ok(())
        }))
    },
    testing: Testing {
        samples: &[("spec", Samples::Str(&["k in 1..4", r#"{"text": "k in 1..4, j in a,b"}"#, "x in 0..10 step 3"]))],
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// The streamer family.
pub const NODES: &[NodeDef] = &[STREAMER];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::{build_err, eval1};

    #[test]
    fn a_spec_is_text_or_upstreams_payload() {
        let value = |spec: &str| eval1(&STREAMER, &[Value::str(spec)], &[]).display_text();
        assert_eq!(value(" k in 1..4 "), "for k in 1..4", "upstream prints a producer after its `for`");
        assert_eq!(value(r#"{"text": "k in 1..4", "ast": {}}"#), "for k in 1..4");
        assert_eq!(value("for k in 1..4"), "for k in 1..4", "one `for`");
        assert!(build_err(&STREAMER, &[Value::str("{")], &[]).contains("malformed comprehension payload"));
        assert!(build_err(&STREAMER, &[Value::str(r#"{"ast": 1}"#)], &[]).contains("no \"text\" field"));
        assert!(build_err(&STREAMER, &[Value::str("  ")], &[]).contains("is not a comprehension"));
    }
}
