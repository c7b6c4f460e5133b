//! Diagnostic nodes for tests and debugging: `__probe` passes its input
//! through and counts its evaluations under a key, so caching and
//! invalidation can be observed from outside (Rust or Python tests).

use crate::node::kit::value_fn;
use crate::node::{konst, konst_or, wire, wire_any, Lit, NodeDef, NodeError, Outputs, Purity, Samples, Testing};
use crate::types::PortType;
use crate::types::PortType::{Str, F64, U64};
use crate::value::Value;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

fn counts() -> &'static Mutex<HashMap<String, u64>> {
    static COUNTS: OnceLock<Mutex<HashMap<String, u64>>> = OnceLock::new();
    COUNTS.get_or_init(|| Mutex::new(HashMap::new()))
}

/// How many times `__probe` nodes keyed `key` have evaluated.
pub fn probe_count(key: &str) -> u64 {
    counts().lock().map(|m| m.get(key).copied().unwrap_or(0)).unwrap_or(0)
}

/// Resets the evaluation count of `key`.
pub fn probe_reset(key: &str) {
    if let Ok(mut m) = counts().lock() {
        m.remove(key);
    }
}

/// `__probe`: Passes x through and counts its evaluations under `key` (for tests).
pub const PROBE: NodeDef = NodeDef {
    name: "__probe",
    category: "diagnostic",
    doc: "Passes x through and counts its evaluations under `key` (for tests).",
    params: &[wire_any("x"), konst("key", Str)],
    outputs: Outputs::SameAsWire(0),
    build: |c| {
        let key = c.str(0).to_string();
        Ok(value_fn(move |args, outs| {
            if let Ok(mut m) = counts().lock() {
                *m.entry(key.clone()).or_insert(0) += 1;
            }
            outs[0] = args.get(0).clone();
            Ok(())
        }))
    },
    ..NodeDef::BASE
};

/// The type name `type_of` reports: upstream's `PortType` display names
/// (`"String"` for strings), and this project's own for its narrow types.
pub fn type_name(v: &Value) -> std::borrow::Cow<'static, str> {
    match v.port_type() {
        Some(PortType::Str) => "String".into(),
        Some(t) => t.keyword(),
        None => "none".into(),
    }
}

/// `type_of`: the input's type name ("u64", "f64", "bool", "String", "bytes", "json", ...).
pub const TYPE_OF: NodeDef = NodeDef {
    name: "type_of",
    category: "diagnostic",
    doc: "The input's type name: \"u64\", \"f64\", \"bool\", \"String\", \"bytes\", \"json\", ... (upstream's names).",
    params: &[wire_any("input")],
    outputs: Outputs::One(Str),
    build: |_| {
        Ok(value_fn(|args, outs| {
            outs[0] = Value::str(type_name(args.get(0)));
            Ok(())
        }))
    },
    ..NodeDef::BASE
};

/// `debug_repr`: the input's debug representation (`U64(42)`, `Str("hello")`).
pub const DEBUG_REPR: NodeDef = NodeDef {
    name: "debug_repr",
    category: "diagnostic",
    doc: "The input's debug representation: U64(42), F64(1.5), Str(\"hello\"), Bytes([1, 2]), ...",
    params: &[wire_any("input")],
    outputs: Outputs::One(Str),
    build: |_| {
        Ok(value_fn(|args, outs| {
            let text = format!("{:?}", args.get(0));
            crate::node::limit::check(text.len())?;
            outs[0] = Value::str(text);
            Ok(())
        }))
    },
    ..NodeDef::BASE
};

/// `inspect`: passes the input through and prints `[inspect:label] <debug repr>` to stderr.
pub const INSPECT: NodeDef = NodeDef {
    name: "inspect",
    category: "diagnostic",
    doc: "Passes the input through and prints [inspect:<label>] <debug representation> to stderr (a side channel: kept by dead-code elimination).",
    params: &[wire_any("input"), konst_or("label", Str, Lit::Str("inspect"))],
    outputs: Outputs::SameAsWire(0),
    purity: Purity::SideChannel,
    build: |c| {
        let label = c.str(0).to_string();
        Ok(value_fn(move |args, outs| {
            eprintln!("[inspect:{label}] {:?}", args.get(0));
            outs[0] = args.get(0).clone();
            Ok(())
        }))
    },
    testing: Testing { random: false, ..Testing::BASE },
    ..NodeDef::BASE
};

/// `identity`: the input, unchanged (any type).
pub const IDENTITY: NodeDef = NodeDef {
    name: "identity",
    category: "diagnostic",
    doc: "The input, unchanged (any type).",
    params: &[wire_any("input")],
    outputs: Outputs::SameAsWire(0),
    build: |_| {
        Ok(value_fn(|args, outs| {
            outs[0] = args.get(0).clone();
            Ok(())
        }))
    },
    ..NodeDef::BASE
};

/// Declares a pass-through logging node: writes `<name>: <value>` to the
/// standard error at its level and gives the value unchanged.
macro_rules! log_level {
    ($id:ident, $name:literal, $level:literal) => {
        /// A pass-through logging node (see its `name` and `doc` fields).
        pub const $id: NodeDef = NodeDef {
            name: $name,
            category: "diagnostic",
            doc: concat!(
                "Passes the value through and writes `",
                $name,
                ": <value>` at level ",
                $level,
                " to stderr (a side channel: kept by dead-code elimination)."
            ),
            params: &[wire_any("value")],
            outputs: Outputs::SameAsWire(0),
            purity: Purity::SideChannel,
            build: |_| {
                Ok(value_fn(|args, outs| {
                    eprintln!("[{}] {}: {}", $level, $name, args.get(0).display_text());
                    outs[0] = args.get(0).clone();
                    Ok(())
                }))
            },
            ..NodeDef::BASE
        };
    };
}

log_level!(LOG_DEBUG, "log_debug", "DEBUG");
log_level!(LOG_INFO, "log_info", "INFO");
log_level!(LOG_WARN, "log_warn", "WARN");
log_level!(LOG_ERROR, "log_error", "ERROR");

/// The start of every `exactly_one_value` shape failure (upstream's words).
const NOT_UNARY: &str = "exactly_one_value: expected unary structure (1 row × 1 column), found";

/// The one cell of a unary JSON body (an array of one row, an object of one
/// column, or a bare leaf), as text.
fn unary_json_text(body: &serde_json::Value) -> Result<String, String> {
    use serde_json::Value as J;
    let row = match body {
        J::Array(rows) if rows.len() == 1 => &rows[0],
        J::Array(rows) => return Err(format!("{NOT_UNARY} {} rows", rows.len())),
        other => other,
    };
    let leaf = match row {
        J::Object(columns) if columns.len() == 1 => columns.values().next().unwrap_or(&J::Null),
        J::Object(columns) => return Err(format!("{NOT_UNARY} 1 row × {} columns", columns.len())),
        other => other,
    };
    match leaf {
        J::String(s) => Ok(s.clone()),
        J::Bool(b) => Ok(b.to_string()),
        J::Number(n) => Ok(match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => u.to_string(),
            (None, Some(i), _) => i.to_string(),
            (None, None, Some(f)) => Value::F64(f).display_text(),
            _ => return Err(format!("exactly_one_value: numeric leaf is not representable as u64, i64, or f64: {n}")),
        }),
        J::Null => Err("exactly_one_value: leaf cell is null; expected a non-null value".into()),
        J::Array(_) => Err("exactly_one_value: leaf cell is itself structural (array); expected a scalar (string, number, or boolean)".into()),
        J::Object(_) => Err("exactly_one_value: leaf cell is itself structural (object); expected a scalar (string, number, or boolean)".into()),
    }
}

/// `exactly_one_value`: the single cell of a one-row, one-column body, as text.
pub const EXACTLY_ONE_VALUE: NodeDef = NodeDef {
    name: "exactly_one_value",
    category: "diagnostic",
    doc: "The one cell of a 1 row × 1 column JSON body ([{\"col\": v}]) as text; scalars pass through as their display text; any other shape fails.",
    params: &[wire_any("body")],
    outputs: Outputs::One(Str),
    accepts_none: true,
    build: |_| {
        Ok(value_fn(|args, outs| {
            let text = match args.get(0) {
                Value::None => {
                    return Err(NodeError::new(
                        "exactly_one_value: empty body (Value::None); the upstream op produced no result to unwrap",
                    ))
                }
                Value::Json(t) => unary_json_text(&serde_json::from_str(t).unwrap_or(serde_json::Value::Null))?,
                Value::Str(s) => s.to_string(),
                other => other.display_text(),
            };
            outs[0] = Value::str(text);
            Ok(())
        }))
    },
    testing: Testing { corner_call: Some("exactly_one_value(str_to_json(s))"), ..Testing::BASE },
    ..NodeDef::BASE
};

/// Largest `fft_analyze` window (16 Mi samples).
pub const MAX_FFT_WINDOW: u64 = 1 << 24;

/// The magnitudes (divided by n) and phases of the discrete Fourier
/// transform of `samples` at frequencies 0..=n/2, computed directly.
pub fn dft(samples: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let n = samples.len();
    (0..=n / 2)
        .map(|k| {
            let (mut re, mut im) = (0.0f64, 0.0f64);
            for (i, &x) in samples.iter().enumerate() {
                let angle = -2.0 * std::f64::consts::PI * (k as f64) * (i as f64) / (n as f64);
                re += x * angle.cos();
                im += x * angle.sin();
            }
            ((re * re + im * im).sqrt() / n as f64, im.atan2(re))
        })
        .unzip()
}

/// What one `fft_analyze` node carries between evaluations.
struct FftState {
    samples: Vec<f64>,
    path: String,
    writer: Option<std::io::BufWriter<std::fs::File>>,
    opened: bool,
}

/// `fft_analyze`: windows of a signal, each written as one JSON line of its spectrum.
pub const FFT_ANALYZE: NodeDef = NodeDef {
    name: "fft_analyze",
    category: "diagnostic",
    doc: "Collects window_size samples of the signal, then appends one JSON line (window_size, magnitudes, phases, dc, fundamental) of their DFT to filename (created at the first full window); gives the samples held before this one.",
    params: &[wire("signal", F64), konst_or("filename", Str, Lit::Str("fft.jsonl")), konst_or("window_size", U64, Lit::U64(256))],
    purity: Purity::Nondeterministic,
    build: |c| {
        let window = c.u64(1).max(2);
        if window > MAX_FFT_WINDOW {
            return Err(format!("fft_analyze window_size must be at most {MAX_FFT_WINDOW}, got {window}"));
        }
        let state = Mutex::new(FftState { samples: Vec::new(), path: c.str(0).to_string(), writer: None, opened: false });
        let window = window as usize;
        Ok(value_fn(move |args, outs| {
            let signal = args.get(0).as_f64().unwrap_or(0.0);
            let mut st = state.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            let held = st.samples.len() as u64;
            st.samples.push(signal);
            if st.samples.len() >= window {
                let (magnitudes, phases) = dft(&st.samples);
                if !st.opened {
                    st.opened = true;
                    st.writer = std::fs::File::create(&st.path).ok().map(std::io::BufWriter::new);
                }
                let n = st.samples.len();
                if let Some(writer) = st.writer.as_mut() {
                    use std::io::Write;
                    let line = serde_json::json!({
                        "window_size": n,
                        "magnitudes": magnitudes,
                        "phases": phases,
                        "dc": magnitudes.first().copied().unwrap_or(0.0),
                        "fundamental": magnitudes.get(1).copied().unwrap_or(0.0),
                    });
                    let _ = writeln!(writer, "{line}");
                    let _ = writer.flush();
                }
                st.samples.clear();
            }
            outs[0] = Value::U64(held);
            Ok(())
        }))
    },
    testing: Testing {
        samples: &[
            // The corner program writes its spectra to a scratch file.
            ("filename", Samples::Str(&["{tmp}/polydat-testing-fft.jsonl"])),
            ("window_size", Samples::U64(&[4, 2, 16])),
        ],
        random: false,
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// The diagnostic family.
pub const NODES: &[NodeDef] = &[
    PROBE,
    TYPE_OF,
    DEBUG_REPR,
    INSPECT,
    IDENTITY,
    LOG_DEBUG,
    LOG_INFO,
    LOG_WARN,
    LOG_ERROR,
    EXACTLY_ONE_VALUE,
    FFT_ANALYZE,
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::eval1;
    use std::sync::Arc;

    #[test]
    fn type_names_and_debug_forms_are_upstreams() {
        let t = |v: Value| eval1(&TYPE_OF, &[], &[v]).as_str().unwrap().to_string();
        assert_eq!(t(Value::U64(42)), "u64");
        assert_eq!(t(Value::F64(2.5)), "f64");
        assert_eq!(t(Value::str("hello")), "String");
        assert_eq!(t(Value::Bool(true)), "bool");
        assert_eq!(t(Value::Bytes(Arc::from(&b"x"[..]))), "bytes");
        assert_eq!(t(Value::Json(Arc::from("{}"))), "json");
        let d = |v: Value| eval1(&DEBUG_REPR, &[], &[v]).as_str().unwrap().to_string();
        assert_eq!(d(Value::U64(42)), "U64(42)");
        assert_eq!(d(Value::str("hello")), "Str(\"hello\")");
        assert_eq!(d(Value::F64(1.0)), "F64(1.0)");
        assert!(eval1(&INSPECT, &[Value::str("t")], &[Value::U64(42)]).same(&Value::U64(42)));
        assert!(eval1(&IDENTITY, &[], &[Value::str("é")]).same(&Value::str("é")));
        assert_eq!(INSPECT.purity, Purity::SideChannel);
        for def in [&LOG_DEBUG, &LOG_INFO, &LOG_WARN, &LOG_ERROR] {
            assert!(eval1(def, &[], &[Value::F64(1.5)]).same(&Value::F64(1.5)));
            assert_eq!(def.purity, Purity::SideChannel);
        }
    }

    #[test]
    fn exactly_one_value_unwraps_unary_bodies_only() {
        let one = |v: Value| crate::nodes::testing::eval(&EXACTLY_ONE_VALUE, &[], &[v]);
        let json = |t: &str| one(Value::Json(Arc::from(t)));
        let text = |r: Result<Vec<Value>, crate::node::NodeError>| r.unwrap()[0].as_str().unwrap().to_string();
        let fail = |r: Result<Vec<Value>, crate::node::NodeError>| r.unwrap_err().message().to_string();
        assert_eq!(text(json(r#"[{"create_statement": "TABLE t"}]"#)), "TABLE t");
        assert_eq!(text(json(r#"[{"n": 42}]"#)), "42");
        assert_eq!(text(json(r#"[{"b": true}]"#)), "true");
        assert_eq!(text(json(r#"[{"x": -2.5}]"#)), "-2.5");
        assert_eq!(text(one(Value::U64(42))), "42");
        assert_eq!(text(one(Value::F64(2.5))), "2.5");
        assert_eq!(text(one(Value::str("hello"))), "hello");
        assert!(fail(json("[]")).ends_with("found 0 rows"));
        assert!(fail(json(r#"[{"a": 1}, {"a": 2}]"#)).ends_with("found 2 rows"));
        assert!(fail(json(r#"[{"a": 1, "b": 2}]"#)).ends_with("found 1 row × 2 columns"));
        assert!(fail(json(r#"[{"a": null}]"#)).contains("leaf cell is null"));
        assert!(fail(json(r#"[{"a": {"n": 1}}]"#)).contains("leaf cell is itself structural (object)"));
        assert!(fail(one(Value::None)).starts_with("exactly_one_value: empty body"));
    }

    #[test]
    fn fft_analyze_writes_a_window_of_a_constant_signal() {
        let path = std::env::temp_dir().join(format!("polydat-fft-{}.jsonl", std::process::id()));
        let consts = [Value::str(path.to_str().unwrap()), Value::U64(4)];
        let node =
            (FFT_ANALYZE.build)(&crate::node::BuildCtx { consts: &consts, wire_types: &[PortType::F64] }).unwrap();
        let mut out = [Value::None];
        let index = [0u32];
        for i in 0..5u64 {
            node.eval(&crate::node::Args::new(&[Value::F64(1.0)], &index), &mut out).unwrap();
            assert!(out[0].same(&Value::U64(i % 4)), "samples held before this one");
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        let line: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        assert_eq!(line["window_size"], 4);
        assert!((line["dc"].as_f64().unwrap() - 1.0).abs() < 1e-12);
        assert_eq!(line["magnitudes"].as_array().unwrap().len(), 3);
    }
}
