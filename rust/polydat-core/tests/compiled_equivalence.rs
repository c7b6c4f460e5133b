//! The compiled layer (through P2's closures) ≡ P1, bit for bit, in every
//! provenance mode: the same ordered writes
//! and reads give the same values (f64 by bits, strings by content), the same
//! `None` propagation and the same failure messages. Scripts are random but
//! seeded; programs are hand-written IR (no frontend).

mod common;

use common::{random_dag, Rng, A, G};
use polydat_core::engine::{new_kernel, EngineKind, Kernel, Provenance};
use polydat_core::{Program, Value};
use std::sync::Arc;

/// One step of a script.
#[derive(Clone, Debug)]
enum Op {
    Write(usize, Value),
    WriteU64(usize, u64),
    Pull(usize),
    Eval,
    Invalidate,
}

/// The observable outcome of one op.
fn outcome(k: &mut dyn Kernel, op: &Op) -> String {
    fn show(v: &Value) -> String {
        match v {
            Value::F64(x) => format!("F64(bits {:#x})", x.to_bits()),
            Value::F32(x) => format!("F32(bits {:#x})", x.to_bits()),
            Value::Str(s) => format!("Str({s:?})"),
            Value::Json(s) => format!("Json({s:?})"),
            Value::Bytes(b) => format!("Bytes({b:?})"),
            other => format!("{other:?}"),
        }
    }
    match op {
        Op::Write(i, v) => format!("{:?}", k.write(*i, v.clone())),
        Op::WriteU64(i, v) => {
            k.write_u64(*i, *v).unwrap();
            String::new()
        }
        Op::Pull(o) => match k.pull(*o) {
            Ok(v) => show(&v),
            Err(e) => format!("error: {}", e.message),
        },
        Op::Eval => match k.eval() {
            Ok(vs) => vs.iter().map(show).collect::<Vec<_>>().join(", "),
            Err(e) => format!("error: {}", e.message),
        },
        Op::Invalidate => {
            k.invalidate_all();
            String::new()
        }
    }
}

const P2_MODES: [EngineKind; 4] = [
    EngineKind::P2(Provenance::Raw),
    EngineKind::P2(Provenance::Push),
    EngineKind::P2(Provenance::Pull),
    EngineKind::P2(Provenance::PushPull),
];

/// Runs `script` on P1 and on every P2 mode; panics at the first divergence.
/// Returns the oracle's outcomes joined (for coverage checks).
fn assert_equivalent(p: &Arc<Program>, script: &[Op]) -> String {
    let mut seen = String::new();
    let mut oracle = new_kernel(p, EngineKind::P1);
    let mut kernels: Vec<Box<dyn Kernel>> = P2_MODES.iter().map(|&m| new_kernel(p, m)).collect();
    for (n, op) in script.iter().enumerate() {
        let want = outcome(oracle.as_mut(), op);
        for (k, mode) in kernels.iter_mut().zip(P2_MODES) {
            let got = outcome(k.as_mut(), op);
            assert_eq!(got, want, "{} diverges from p1 at op {n} ({op:?})", mode.name());
        }
        seen.push_str(&want);
        seen.push('\n');
    }
    seen
}

/// A random script: writes drawn from `values(rng, input)`, pulls of random
/// outputs, an occasional eval or invalidate_all.
fn script(p: &Program, seed: u64, len: usize, values: impl Fn(&mut Rng, usize) -> Op) -> Vec<Op> {
    let mut rng = Rng(seed);
    let n_out = p.outputs.len() as u64;
    let n_in = p.inputs.len() as u64;
    (0..len)
        .map(|_| match rng.below(100) {
            0..=39 => {
                let i = rng.below(n_in) as usize;
                values(&mut rng, i)
            }
            40..=91 => Op::Pull(rng.below(n_out) as usize),
            92..=97 => Op::Eval,
            _ => Op::Invalidate,
        })
        .collect()
}

/// A u64 from a small pool (so equal rewrites are frequent) or anywhere.
fn some_u64(rng: &mut Rng) -> u64 {
    const CORNERS: [u64; 9] = [0, 1, 2, 7, (1 << 32) - 1, 1 << 32, (1 << 53) + 1, 1 << 63, u64::MAX];
    match rng.below(3) {
        0 => CORNERS[rng.below(CORNERS.len() as u64) as usize],
        1 => rng.below(4),
        _ => rng.next(),
    }
}

fn some_f64(rng: &mut Rng) -> f64 {
    const CORNERS: [f64; 10] = [0.0, -0.0, 1.0, -1.5, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 1e-310, 2.5, 1e300];
    if rng.below(2) == 0 {
        CORNERS[rng.below(CORNERS.len() as u64) as usize]
    } else {
        f64::from_bits(rng.next())
    }
}

/// The engine-ladder graph.
fn ladder() -> Arc<Program> {
    let mut g = G::new();
    let (cycle, tenant, op) =
        (g.coord("cycle", "u64"), g.coord("tenant_seed", "u64"), g.coord("operation_seed", "u64"));
    let seeded = g.bind("seeded_cycle", "u64_add", &[cycle, tenant]);
    let ident = g.bind("identity_entropy", "hash", &[seeded]);
    let account = g.bind("account_id", "mod", &[ident, A::U(10_000_000)]);
    let route_seed = g.bind("route_seed", "u64_xor", &[account, op]);
    let route = g.bind("route_entropy", "hash", &[route_seed]);
    g.bind("shard", "mod", &[route, A::U(64)]);
    let payload_seed = g.bind("payload_seed", "u64_add", &[ident, op]);
    let payload = g.bind("payload_entropy", "hash", &[payload_seed]);
    g.bind("payload_class", "mod", &[payload, A::U(8)]);
    let token = g.bind("token_seed", "u64_add", &[route, payload]);
    g.bind("event_token", "hash", &[token]);
    g.build()
}

#[test]
fn ladder_matches_p1() {
    let p = ladder();
    for seed in 0..20 {
        let s = script(&p, seed, 400, |rng, i| Op::WriteU64(i, some_u64(rng)));
        assert_equivalent(&p, &s);
    }
    // The upstream gate's cases, every output pulled in turn.
    let cases = [
        [0, 0, 0],
        [1, 0x5445_4e41_4e54, 0x4f50_4552_4154_494f],
        [42, 7, 11],
        [1_000_000, u32::MAX as u64, 17],
        [u64::MAX, u64::MAX - 1, u64::MAX - 2],
    ];
    let mut s = Vec::new();
    for case in cases {
        for (i, v) in case.into_iter().enumerate() {
            s.push(Op::WriteU64(i, v));
        }
        s.extend((0..p.outputs.len()).map(Op::Pull));
        s.push(Op::Eval);
    }
    assert_equivalent(&p, &s);
}

/// Steps whose inputs come handed over from the step before in every
/// pattern: none, the first, the second, the third, several at once.
fn handed() -> Arc<Program> {
    let mut g = G::new();
    let (cycle, seed) = (g.coord("cycle", "u64"), g.coord("seed", "u64"));
    let h = g.bind("h", "hash", &[cycle]);
    let twice = g.bind("twice", "u64_add", &[h, h]);
    let pick = g.bind("pick", "select_u64", &[twice, twice, seed]);
    let low = g.bind("low", "mod", &[pick, A::U(8)]);
    let back = g.bind("back", "u64_sub", &[seed, low]);
    let other = g.bind("other", "select_u64", &[cycle, seed, back]);
    let mixed = g.bind("mixed", "u64_xor", &[other, h]);
    g.bind("last", "select_u64", &[low, mixed, cycle]);
    g.build()
}

#[test]
fn handed_over_inputs_in_every_pattern_match_p1() {
    let p = handed();
    for seed in 0..10 {
        let s = script(&p, seed, 300, |rng, i| Op::WriteU64(i, if rng.next() % 4 == 0 { 0 } else { some_u64(rng) }));
        assert_equivalent(&p, &s);
    }
}

#[test]
fn random_dags_match_p1() {
    for seed in 0..12 {
        let p = random_dag(seed, 40 + 10 * seed as usize);
        let s = script(&p, seed, 120, |rng, i| Op::WriteU64(i, some_u64(rng)));
        assert_equivalent(&p, &s);
    }
}

#[test]
fn thread_schedules_are_topological_and_keep_the_ladders_chains_in_registers() {
    use polydat_core::engine::compiled::layout::Layout;
    use polydat_core::engine::p2::schedule::schedule;
    let check = |p: &Arc<Program>| {
        let order = schedule(&Layout::new(p), p, &p.cycle_steps);
        let mut sorted = order.clone();
        sorted.sort_unstable();
        let mut canonical = p.cycle_steps.to_vec();
        canonical.sort_unstable();
        assert_eq!(sorted, canonical, "a permutation of the steps");
        let mut written = std::collections::HashSet::new();
        for &s in &order {
            let step = &p.steps[s as usize];
            for &i in step.ins.iter() {
                let producer = p.step_of_slot(i).map(|t| t as u32).filter(|t| p.cycle_steps.contains(t));
                assert!(producer.is_none_or(|t| written.contains(&t)), "step {s} before its producer");
            }
            written.insert(s);
        }
        order
    };
    for seed in 0..12 {
        check(&random_dag(seed, 60));
    }
    // The ladder: every edge on its longest chain is handed over in a
    // register (the order interleaves the route and payload chains).
    let p = ladder();
    let names: Vec<&str> = check(&p).iter().map(|&s| p.outputs[s as usize].name.as_str()).collect();
    let expected = [
        "seeded_cycle",
        "identity_entropy",
        "account_id",
        "payload_seed",
        "route_seed",
        "payload_entropy",
        "route_entropy",
        "token_seed",
        "shard",
        "event_token",
        "payload_class",
    ];
    assert_eq!(names, expected);
}

/// Floats (NaN, -0.0, infinities), narrow ints, bool, multi-output nodes.
fn numeric() -> Arc<Program> {
    let mut g = G::new();
    let cycle = g.coord("cycle", "u64");
    let scale = g.ext("scale", "f64", Some(A::F(2.5)));
    let small = g.ext("small", "u32", Some(A::U(7)));
    let x = g.ext("x", "f64", Some(A::F(-0.0)));
    let h = g.bind("h", "hash", &[cycle]);
    let u = g.bind("u", "unit_interval", &[h]);
    let l = g.bind("l", "lerp", &[u, A::F(-1.0), A::F(1.0)]);
    let s = g.bind("s", "f64_mul", &[l, scale]);
    let q = g.bind("q", "sqrt", &[s]);
    let zero = g.node("__lit", &[A::F(0.0)]);
    let neg = g.bind("neg", "f64_lt", &[s, zero]);
    g.bind("pick", "select_f64", &[neg, s, q]);
    g.bind("trunc", "f64_to_u64", &[s]);
    let sx = g.bind("sx", "f64_add", &[x, s]);
    g.bind("sx_div", "f64_div", &[sx, x]);
    let wide = g.bind("wide", "__u32_to_f64", &[small]);
    g.bind("wide_sum", "f64_add", &[wide, q]);
    let small64 = g.bind("small64", "__u32_to_u64", &[small]);
    let radix = g.node("mixed_radix", &[h, A::U(50), A::U(200), A::U(0)]);
    let A::P(rn, _) = radix else { unreachable!() };
    g.out("d0", A::P(rn, 0)).out("d1", A::P(rn, 1)).out("d2", A::P(rn, 2));
    g.bind("mixed", "u64_add", &[A::P(rn, 1), small64]);
    g.bind("normal", "dist_normal", &[u, A::F(0.0), A::F(1.0)]);
    g.bind("coin", "fair_coin", &[h]);
    g.bind("many", "sum", &[cycle, h, small64, A::P(rn, 0), A::P(rn, 2)]);
    g.build()
}

#[test]
fn numeric_types_match_p1_bit_for_bit() {
    let p = numeric();
    let mut seen = String::new();
    for seed in 0..20 {
        let s = script(&p, 100 + seed, 400, |rng, i| match i {
            0 => Op::WriteU64(0, some_u64(rng)),
            1 | 3 => Op::Write(i, Value::F64(some_f64(rng))),
            _ => Op::Write(i, Value::U64(rng.below(1 << 33))), // some out of u32 range: a WriteError on every engine
        });
        seen.push_str(&assert_equivalent(&p, &s));
    }
    for want in ["F64(bits 0x7ff8", "F64(bits 0x8000000000000000)", "Err(TypeMismatch"] {
        assert!(seen.contains(want), "the scripts never produced {want}");
    }
}

/// Strings, bytes and json through Ref slots: string nodes run on the slot kit.
fn strings() -> Arc<Program> {
    let mut g = G::new();
    let cycle = g.coord("cycle", "u64");
    let name = g.ext("name", "str", Some(A::S("world")));
    let doc = g.ext("doc", "json", None);
    let blob = g.ext("blob", "bytes", None);
    let digits = g.bind("digits", "__u64_to_str", &[cycle]);
    let up = g.bind("up", "str_upper", &[name]);
    let dash = g.node("__lit", &[A::S("-")]);
    let cat = g.bind("cat", "str_concat", &[up, dash, digits]);
    g.bind("fmt", "printf", &[A::S("id={} name={} h={}"), cycle, name, cycle]);
    g.bind("back", "__str_to_u64", &[digits]);
    let m = g.bind("m", "mod", &[cycle, A::U(1000)]);
    g.bind("words", "number_to_words", &[m]);
    g.bind("uuid", "hashed_uuid", &[cycle]);
    let shout = g.node("__lit", &[A::S("WORLD")]);
    let eq = g.bind("eq", "str_eq", &[up, shout]);
    g.bind("sel", "select_str", &[eq, cat, name]);
    g.bind("raw", "__u64_to_bytes", &[cycle]);
    g.bind("doc_copy", "__probe", &[doc, A::S("eq.doc")]);
    g.bind("blob_copy", "__probe", &[blob, A::S("eq.blob")]);
    let same = g.node("str_eq", &[cat, cat]);
    g.bind("cat_same_hash", "hash", &[same]);
    g.bind("one", "one_of", &[cycle, A::S("x"), A::S("yy"), A::S("zzz")]);
    g.bind("padded", "zero_pad_u64", &[m, A::U(6)]);
    let unit = g.node("unit_interval", &[cycle]);
    g.bind("ff", "format_f64", &[unit, A::U(3)]);
    g.build()
}

fn some_text(rng: &mut Rng) -> String {
    const WORDS: [&str; 6] = ["", "world", "WORLD", "héllo wörld", "a\"b\\c", "x"];
    if rng.below(4) == 0 {
        "long ".repeat(rng.below(40) as usize)
    } else {
        WORDS[rng.below(WORDS.len() as u64) as usize].to_string()
    }
}

#[test]
fn strings_bytes_json_match_p1_through_ref_slots() {
    let p = strings();
    let mut seen = String::new();
    for seed in 0..25 {
        let s = script(&p, 200 + seed, 400, |rng, i| match i {
            0 => Op::WriteU64(0, some_u64(rng)),
            1 => Op::Write(1, Value::str(some_text(rng))),
            2 => Op::Write(2, Value::Json(some_text(rng).into())),
            _ => match rng.below(3) {
                0 => Op::Write(3, Value::None),
                1 => Op::Write(3, Value::str("not bytes")), // a WriteError everywhere
                _ => Op::Write(3, Value::Bytes(some_text(rng).into_bytes().into())),
            },
        });
        seen.push_str(&assert_equivalent(&p, &s));
    }
    for want in ["Str(\"WORLD-", "Json(", "Bytes(", "None"] {
        assert!(seen.contains(want), "the scripts never produced {want}");
    }
}

/// `None` from unset externs: propagation, `default_or`, `required`.
fn nones() -> Arc<Program> {
    let mut g = G::new();
    let cycle = g.coord("cycle", "u64");
    let e = g.ext("e", "u64", None);
    let s = g.ext("s", "str", None);
    let f = g.ext("f", "f64", None);
    let h = g.bind("h", "hash", &[e]);
    let five = g.node("__lit", &[A::U(5)]);
    let d = g.bind("d", "default_or", &[h, five]);
    g.bind("dd", "u64_add", &[d, cycle]);
    g.bind("hh", "u64_add", &[h, cycle]);
    let up = g.bind("up", "str_upper", &[s]);
    g.bind("req", "required", &[up, A::S("up")]);
    g.bind("cat", "str_concat", &[up, s]);
    let fallback = g.node("__lit", &[A::S("fallback")]);
    g.bind("sd", "default_or", &[up, fallback]);
    g.bind("fs", "f64_add", &[f, f]);
    g.bind("fmt", "printf", &[A::S("{} {}"), e, cycle]);
    g.build()
}

#[test]
fn none_propagates_exactly_as_on_p1() {
    let p = nones();
    let mut seen = String::new();
    for seed in 0..25 {
        let s = script(&p, 300 + seed, 300, |rng, i| match i {
            0 => Op::WriteU64(0, some_u64(rng)),
            1 => Op::Write(1, if rng.below(2) == 0 { Value::None } else { Value::U64(some_u64(rng)) }),
            2 => Op::Write(2, if rng.below(2) == 0 { Value::None } else { Value::str(some_text(rng)) }),
            _ => Op::Write(3, if rng.below(2) == 0 { Value::None } else { Value::F64(some_f64(rng)) }),
        });
        seen.push_str(&assert_equivalent(&p, &s));
    }
    for want in ["None", "error: required(up): value was not defined", "Str(\"fallback\")"] {
        assert!(seen.contains(want), "the scripts never produced {want}");
    }
}

/// Nodes that fail: by message, on every engine, and the kernel recovers.
fn failing() -> Arc<Program> {
    let mut g = G::new();
    let cycle = g.coord("cycle", "u64");
    let d = g.coord("d", "u64");
    let lo = g.ext("lo", "u64", Some(A::U(0)));
    let text = g.node("printf", &[A::S("nope{}"), cycle]);
    let digits = g.node("__u64_to_str", &[cycle]);
    let parsed = g.bind("parsed", "__str_to_u64", &[digits]);
    g.bind("bad", "__str_to_u64", &[text]);
    g.bind("r", "mod_wire", &[cycle, d]);
    let checked = g.bind("checked", "in_range", &[cycle, A::U(0), A::U(100)]);
    g.bind("after", "u64_add", &[checked, parsed]);
    g.bind("pos", "checked_sub", &[cycle, lo]);
    g.bind("fine", "hash", &[cycle]);
    g.build()
}

#[test]
fn failures_have_identical_messages_and_kernels_recover() {
    let p = failing();
    let mut seen = String::new();
    for seed in 0..25 {
        let s = script(&p, 400 + seed, 300, |rng, i| match i {
            0 | 1 => Op::WriteU64(i, [0, 1, 5, 50, 150, u64::MAX][rng.below(6) as usize]),
            _ => Op::Write(2, Value::U64(rng.below(200))),
        });
        seen.push_str(&assert_equivalent(&p, &s));
    }
    for want in [
        "↳ in node `__str_to_u64` (output bad)",
        "↳ in node `mod_wire` (output r)",
        "↳ in node `in_range` (output checked)",
        "U64(",
    ] {
        assert!(seen.contains(want), "the scripts never produced {want}");
    }
}

/// More than 64 inputs: provenance masks span several words.
fn wide() -> Arc<Program> {
    let mut g = G::new();
    let coords: Vec<A> = (0..100).map(|i| g.coord(&format!("c{i}"), "u64")).collect();
    let externs: Vec<A> = (0..40).map(|i| g.ext(&format!("e{i}"), "u64", Some(A::U(i)))).collect();
    g.bind("all", "sum", &coords);
    g.bind("ext_all", "sum", &externs);
    for (n, i) in [0usize, 63, 64, 65, 99].into_iter().enumerate() {
        let h = g.bind(&format!("h{n}"), "hash", &[coords[i]]);
        g.bind(&format!("x{n}"), "u64_xor", &[h, externs[(i * 7) % 40]]);
    }
    let a = g.bind("pair", "u64_add", &[coords[1], coords[98]]);
    g.bind("pair_e", "u64_add", &[a, externs[39]]);
    g.bind("tail", "hash", &[externs[39]]);
    g.build()
}

#[test]
fn more_than_64_inputs() {
    let p = wide();
    assert_eq!(p.inputs.len(), 140);
    for seed in 0..10 {
        let s = script(&p, 500 + seed, 600, |rng, i| {
            if i < 100 {
                Op::WriteU64(i, rng.below(3))
            } else {
                Op::Write(i, Value::U64(rng.below(3)))
            }
        });
        assert_equivalent(&p, &s);
    }
}

#[test]
fn equal_rewrites_outside_writes_and_pulls_in_turn() {
    let p = ladder();
    let mut s = Vec::new();
    for c in 0..50u64 {
        // Rewrite equal values, write only seeds (outside some cones), pull each output in turn.
        s.push(Op::WriteU64(0, c / 3));
        s.push(Op::WriteU64(1, 7));
        s.push(Op::WriteU64(1, 7));
        if c % 5 == 0 {
            s.push(Op::WriteU64(2, c));
        }
        s.push(Op::Pull((c as usize) % p.outputs.len()));
        s.push(Op::Pull((c as usize * 7 + 3) % p.outputs.len()));
        s.push(Op::Pull((c as usize) % p.outputs.len()));
    }
    assert_equivalent(&p, &s);
}

/// `const` captures (scope init once per kernel, re-captured by
/// `invalidate_all`), constants, and volatile bindings next to them.
fn captures() -> Arc<Program> {
    let mut g = G::new();
    let cycle = g.coord("cycle", "u64");
    let seed = g.ext("seed", "u64", Some(A::U(5)));
    let name = g.ext("name", "str", Some(A::S("ada")));
    let s = g.node("hash", &[seed]);
    g.out_mod("s", s, &["const"]);
    let up = g.node("str_upper", &[name]);
    g.out_mod("up", up, &["const"]);
    g.bind("d", "u64_add", &[cycle, s]);
    g.bind("e", "add", &[seed, A::U(1)]);
    let k = g.node("__lit", &[A::U(40)]);
    let k2 = g.bind("k2", "add", &[k, A::U(2)]);
    g.bind("dk", "u64_xor", &[k2, s]);
    let label = g.bind("label", "str_concat", &[up, name]);
    g.bind("label_hash", "str_eq", &[label, up]);
    g.build()
}

#[test]
fn const_captures_match_p1() {
    let p = captures();
    assert!(p.steps.iter().filter(|s| s.capture).count() >= 2, "the program holds const captures");
    let mut seen = String::new();
    for seed in 0..25 {
        let s = script(&p, 600 + seed, 300, |rng, i| match i {
            0 => Op::WriteU64(0, some_u64(rng)),
            1 => Op::Write(1, Value::U64(rng.below(4))),
            _ => Op::Write(2, Value::str(some_text(rng))),
        });
        seen.push_str(&assert_equivalent(&p, &s));
    }
    assert!(seen.contains("U64("));
}
