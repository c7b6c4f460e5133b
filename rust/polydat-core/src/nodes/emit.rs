//! Emit family: `emit_row`, a side channel that renders a row of values and
//! appends it to a buffer of the calling thread, which the host drains
//! ([`take_rows`]). A host feature such as "emit these columns as JSON
//! lines" is a binding the host appends, `__emit := emit_row("jsonl",
//! "cycle,id", cycle, id)`: the node sees the values through ordinary
//! wiring. A row is emitted when the node runs: once per cycle that reads
//! its wire (a side channel's provenance holds every coordinate, see
//! `compile::emit`), whatever its inputs.

use crate::node::kit::value_fn;
use crate::node::{konst, many, wire_any, NodeDef, NodeError, Outputs, Purity};
use crate::nodes::json::value_to_json;
use crate::types::PortType::{Str, U64};
use crate::value::{push_display, Value};
use std::cell::RefCell;

thread_local! {
    static ROWS: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// The rows `emit_row` appended on the calling thread since the last drain, in order.
pub fn take_rows() -> Vec<String> {
    ROWS.with(|rows| std::mem::take(&mut *rows.borrow_mut()))
}

/// How `emit_row` renders a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EmitFormat {
    /// `name=value` pairs separated by single spaces (also any unknown format).
    Map,
    /// Comma-separated values; a value holding a comma, a quote or a newline is quoted.
    Csv,
    /// One JSON object per row, the names as keys (values as `to_json` writes them).
    Jsonl,
    /// The values' text, one per line.
    Text,
}

impl EmitFormat {
    /// The format `name` names (case-insensitive; `json` is `jsonl`); an unknown name is [`EmitFormat::Map`].
    pub fn parse(name: &str) -> EmitFormat {
        match name.trim().to_ascii_lowercase().as_str() {
            "csv" => EmitFormat::Csv,
            "json" | "jsonl" => EmitFormat::Jsonl,
            "text" => EmitFormat::Text,
            _ => EmitFormat::Map,
        }
    }
}

/// One row of `values` (named `names`) rendered in `format`.
pub fn render_row(format: EmitFormat, names: &[&str], values: &[&Value]) -> String {
    let mut out = String::new();
    match format {
        EmitFormat::Text => {
            for (i, v) in values.iter().enumerate() {
                if i > 0 {
                    out.push('\n');
                }
                push_display(&mut out, v);
            }
        }
        EmitFormat::Map => {
            for (i, (n, v)) in names.iter().zip(values).enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                out.push_str(n);
                out.push('=');
                push_display(&mut out, v);
            }
        }
        EmitFormat::Csv => {
            for (i, v) in values.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                let text = v.display_text();
                if text.contains([',', '"', '\n']) {
                    out.push('"');
                    out.push_str(&text.replace('"', "\"\""));
                    out.push('"');
                } else {
                    out.push_str(&text);
                }
            }
        }
        EmitFormat::Jsonl => {
            let mut map = serde_json::Map::with_capacity(names.len());
            for (n, v) in names.iter().zip(values) {
                map.insert((*n).to_string(), value_to_json(v));
            }
            out = serde_json::Value::Object(map).to_string();
        }
    }
    out
}

/// `emit_row`: renders its values as one row and appends it to the calling thread's emitted rows.
pub const EMIT_ROW: NodeDef = NodeDef {
    name: "emit_row",
    category: "emit",
    doc: "Renders the values as one row (format map, csv, jsonl or text; names a comma-separated list) and appends it to the thread's emitted rows; the number of values.",
    params: &[konst("format", Str), konst("names", Str), many(wire_any("values"))],
    outputs: Outputs::One(U64),
    purity: Purity::SideChannel,
    accepts_none: true,
    build: |c| {
        let format = EmitFormat::parse(c.str(0));
        let names: Vec<String> =
            c.str(1).split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect();
        Ok(value_fn(move |args, outs| {
            let values: Vec<&Value> = (0..args.len()).map(|i| args.get(i)).collect();
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            let row = render_row(format, &names, &values);
            crate::node::limit::check(row.len())?;
            ROWS.with(|rows| rows.borrow_mut().push(row));
            outs[0] = Value::U64(values.len() as u64);
            Ok::<(), NodeError>(())
        }))
    },
    ..NodeDef::BASE
};

/// The emit family.
pub const NODES: &[NodeDef] = &[EMIT_ROW];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::eval1;

    #[test]
    fn rows_render_in_each_format_and_drain_per_thread() {
        let values = [Value::U64(7), Value::F64(1.5), Value::str("a,\"b")];
        let refs: Vec<&Value> = values.iter().collect();
        let names = ["a", "b", "c"];
        assert_eq!(render_row(EmitFormat::Map, &names, &refs), "a=7 b=1.5 c=a,\"b");
        assert_eq!(render_row(EmitFormat::Csv, &names, &refs), "7,1.5,\"a,\"\"b\"");
        assert_eq!(render_row(EmitFormat::Jsonl, &names, &refs), r#"{"a":7,"b":1.5,"c":"a,\"b"}"#);
        assert_eq!(render_row(EmitFormat::Text, &names, &refs), "7\n1.5\na,\"b");
        let _ = take_rows();
        let out = eval1(&EMIT_ROW, &[Value::str("csv"), Value::str("x")], &[Value::U64(3)]);
        assert!(out.same(&Value::U64(1)));
        eval1(&EMIT_ROW, &[Value::str("csv"), Value::str("x")], &[Value::U64(4)]);
        assert_eq!(take_rows(), vec!["3".to_string(), "4".to_string()]);
        assert!(take_rows().is_empty());
        assert_eq!(std::thread::spawn(take_rows).join().unwrap(), Vec::<String>::new(), "another thread's buffer");
    }
}
