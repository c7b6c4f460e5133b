//! Diagnostic nodes for tests and debugging: `__probe` passes its input
//! through and counts its evaluations under a key, so caching and
//! invalidation can be observed from outside (Rust or Python tests).

use crate::node::kit::value_fn;
use crate::node::{konst, wire_any, NodeDef, Outputs};
use crate::types::PortType::Str;
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

/// The diagnostic family.
pub const NODES: &[NodeDef] = &[PROBE];
