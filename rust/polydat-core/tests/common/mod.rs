//! Shared helpers of the integration tests: a small graph-IR builder (no
//! frontend needed) and a deterministic random source.
#![allow(dead_code)]

use polydat_core::compile::{compile, CompileOptions};
use polydat_core::ir::GraphIr;
use polydat_core::Program;
use std::sync::Arc;

/// An argument of a node or the wire of an output.
#[derive(Clone, Copy, Debug)]
pub enum A {
    /// Input slot `i`.
    I(usize),
    /// Output port `p` of node `n`.
    P(usize, usize),
    U(u64),
    F(f64),
    S(&'static str),
}

/// Builds graph IR node by node.
#[derive(Default)]
pub struct G {
    inputs: Vec<String>,
    nodes: Vec<String>,
    outputs: Vec<String>,
}

fn const_json(a: A) -> String {
    match a {
        A::U(v) => format!(r#"{{"u64": {v}}}"#),
        A::F(v) => format!(r#"{{"f64": {}}}"#, v.to_bits()),
        A::S(s) => format!(r#"{{"str": {}}}"#, serde_json_string(s)),
        other => panic!("not a constant: {other:?}"),
    }
}

fn arg_json(a: A) -> String {
    match a {
        A::I(_) | A::P(..) => format!(r#"{{"wire": {}}}"#, wire_json(a)),
        c => format!(r#"{{"const": {}}}"#, const_json(c)),
    }
}

fn serde_json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn wire_json(a: A) -> String {
    match a {
        A::I(i) => format!(r#"{{"input": {i}}}"#),
        A::P(n, p) => format!(r#"{{"node": {{"node": {n}, "port": {p}}}}}"#),
        other => panic!("not a wire: {other:?}"),
    }
}

impl G {
    pub fn new() -> G {
        G::default()
    }

    /// A coordinate input.
    pub fn coord(&mut self, name: &str, ty: &str) -> A {
        self.inputs.push(format!(r#"{{"name": "{name}", "type": "{ty}", "kind": "coordinate"}}"#));
        A::I(self.inputs.len() - 1)
    }

    /// An extern input, with an optional default (a constant argument).
    pub fn ext(&mut self, name: &str, ty: &str, default: Option<A>) -> A {
        let default = match default {
            Some(d) => format!(r#", "default": {}"#, const_json(d)),
            None => String::new(),
        };
        self.inputs.push(format!(r#"{{"name": "{name}", "type": "{ty}", "kind": "extern"{default}}}"#));
        A::I(self.inputs.len() - 1)
    }

    /// A node; returns its port 0.
    pub fn node(&mut self, op: &str, args: &[A]) -> A {
        let args: Vec<String> = args.iter().map(|a| arg_json(*a)).collect();
        self.nodes.push(format!(r#"{{"op": "{op}", "args": [{}]}}"#, args.join(", ")));
        A::P(self.nodes.len() - 1, 0)
    }

    /// A named output.
    pub fn out(&mut self, name: &str, wire: A) -> &mut G {
        self.outputs.push(format!(r#"{{"name": "{name}", "wire": {}}}"#, wire_json(wire)));
        self
    }

    /// A named output with binding modifiers (`const`, `volatile`, `shared`).
    pub fn out_mod(&mut self, name: &str, wire: A, modifiers: &[&str]) -> &mut G {
        let mods: Vec<String> = modifiers.iter().map(|m| format!("\"{m}\"")).collect();
        self.outputs.push(format!(
            r#"{{"name": "{name}", "wire": {}, "modifiers": [{}]}}"#,
            wire_json(wire),
            mods.join(", ")
        ));
        self
    }

    /// A node bound to an output of the same name; returns its port 0.
    pub fn bind(&mut self, name: &str, op: &str, args: &[A]) -> A {
        let n = self.node(op, args);
        self.out(name, n);
        n
    }

    pub fn json(&self) -> String {
        format!(
            r#"{{"inputs": [{}], "nodes": [{}], "outputs": [{}]}}"#,
            self.inputs.join(", "),
            self.nodes.join(", "),
            self.outputs.join(", ")
        )
    }

    pub fn build(&self) -> Arc<Program> {
        let ir = GraphIr::from_json(&self.json()).unwrap_or_else(|e| panic!("{e}\n{}", self.json()));
        Arc::new(compile(&ir, &CompileOptions::default()).unwrap_or_else(|e| panic!("{e}\n{}", self.json())))
    }
}

/// SplitMix64: a deterministic random source for scripted tests.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// A random DAG of u64 steps over three coordinates: fan-in, fan-out and
/// long chains, so the thread schedule and its register handoff meet every
/// shape; every step is an output.
pub fn random_dag(seed: u64, steps: usize) -> Arc<Program> {
    let mut rng = Rng(seed);
    let mut g = G::new();
    let mut wires = vec![g.coord("a", "u64"), g.coord("b", "u64"), g.coord("c", "u64")];
    for i in 0..steps {
        let pick = |rng: &mut Rng| {
            // Mostly recent wires (chains), sometimes any (fan-out).
            let n = wires.len() as u64;
            let back = if rng.below(4) == 0 { rng.below(n) } else { rng.below(n.min(4)) };
            wires[(n - 1 - back) as usize]
        };
        let (x, y, z) = (pick(&mut rng), pick(&mut rng), pick(&mut rng));
        let name = format!("s{i}");
        let wire = match rng.below(10) {
            0 => g.bind(&name, "hash", &[x]),
            1 => g.bind(&name, "mod", &[x, A::U(1 + rng.below(1000))]),
            2 => g.bind(&name, "u64_xor", &[x, y]),
            3 => g.bind(&name, "u64_sub", &[x, y]),
            4 => g.bind(&name, "select_u64", &[x, y, z]),
            5 => g.bind(&name, "u64_div", &[x, y]),
            6 => g.bind(&name, "div", &[x, A::U(1 + rng.below(1 << 20))]),
            7 => {
                // Through f64 and back: a unit interval scaled and truncated.
                let u = g.node("unit_interval", &[x]);
                let scaled = g.node("lerp", &[u, A::F(-3.0), A::F(1e6)]);
                g.bind(&name, "f64_to_u64", &[scaled])
            }
            8 => g.bind(&name, "interleave", &[x, y]),
            _ => g.bind(&name, "u64_add", &[x, x]),
        };
        wires.push(wire);
    }
    g.build()
}

/// Reads of raw words through a kernel's row filler ([`Kernel::rows`]),
/// one filler per read: `values` written to the leading inputs, then the
/// outputs `outs` read as one read into `words`.
pub trait ReadWords {
    /// See the trait.
    fn read_at(
        &mut self,
        values: &[u64],
        outs: &[usize],
        words: &mut [u64],
    ) -> Result<(), polydat_core::engine::GenerateError>;
}

impl<K: polydat_core::engine::Kernel + ?Sized> ReadWords for K {
    fn read_at(
        &mut self,
        values: &[u64],
        outs: &[usize],
        words: &mut [u64],
    ) -> Result<(), polydat_core::engine::GenerateError> {
        self.rows(outs).map_err(polydat_core::engine::GenerateError::Eval)?.read_words(values, words)
    }
}
