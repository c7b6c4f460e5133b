//! The engine-ladder graph as graph IR, and a hand-written Rust
//! function computing the same four outputs: the baseline every engine is
//! quoted against. Shared by the ladder benches (`#[path]`-included).

use polydat_core::compile::{compile, CompileOptions};
use polydat_core::ir::GraphIr;
use polydat_core::nodes::hash::splitmix64;
use polydat_core::Program;
use std::sync::Arc;

/// "TENANT", the bench's fixed tenant seed.
pub const TENANT_SEED: u64 = 0x5445_4e41_4e54;
/// "OPERATIO", the bench's fixed operation seed.
pub const OPERATION_SEED: u64 = 0x4f50_4552_4154_494f;

/// The four consumed outputs.
pub const OUTPUTS: [&str; 4] = ["account_id", "shard", "payload_class", "event_token"];

/// The ladder graph, node by node, as IR JSON (inputs 0..3 = cycle, tenant_seed, operation_seed).
pub fn ladder_ir() -> GraphIr {
    let n = |node: usize| format!(r#"{{"wire": {{"node": {{"node": {node}, "port": 0}}}}}}"#);
    let i = |input: usize| format!(r#"{{"wire": {{"input": {input}}}}}"#);
    let k = |v: u64| format!(r#"{{"const": {{"u64": {v}}}}}"#);
    let nodes = [
        ("seeded_cycle", "u64_add", vec![i(0), i(1)]),
        ("identity_entropy", "hash", vec![n(0)]),
        ("account_id", "mod", vec![n(1), k(10_000_000)]),
        ("route_seed", "u64_xor", vec![n(2), i(2)]),
        ("route_entropy", "hash", vec![n(3)]),
        ("shard", "mod", vec![n(4), k(64)]),
        ("payload_seed", "u64_add", vec![n(1), i(2)]),
        ("payload_entropy", "hash", vec![n(6)]),
        ("payload_class", "mod", vec![n(7), k(8)]),
        ("token_seed", "u64_add", vec![n(4), n(7)]),
        ("event_token", "hash", vec![n(9)]),
    ];
    let node_json: Vec<String> =
        nodes.iter().map(|(_, op, args)| format!(r#"{{"op": "{op}", "args": [{}]}}"#, args.join(","))).collect();
    let outputs: Vec<String> = nodes
        .iter()
        .enumerate()
        .map(|(idx, (name, _, _))| format!(r#"{{"name": "{name}", "wire": {{"node": {{"node": {idx}, "port": 0}}}}}}"#))
        .collect();
    let inputs = ["cycle", "tenant_seed", "operation_seed"]
        .map(|name| format!(r#"{{"name": "{name}", "type": "u64", "kind": "coordinate"}}"#));
    GraphIr::from_json(&format!(
        r#"{{"inputs": [{}], "nodes": [{}], "outputs": [{}]}}"#,
        inputs.join(","),
        node_json.join(","),
        outputs.join(",")
    ))
    .expect("ladder IR is well-formed")
}

/// The ladder compiled with default options.
pub fn ladder_program() -> Arc<Program> {
    Arc::new(compile(&ladder_ir(), &CompileOptions::default()).expect("ladder compiles"))
}

/// The four outputs computed by hand.
#[inline]
pub fn ladder_by_hand(cycle: u64, tenant: u64, operation: u64) -> [u64; 4] {
    let identity = splitmix64(cycle.wrapping_add(tenant));
    let account = identity % 10_000_000;
    let route = splitmix64(account ^ operation);
    let payload = splitmix64(identity.wrapping_add(operation));
    let token = splitmix64(route.wrapping_add(payload));
    [account, route % 64, payload % 8, token]
}
