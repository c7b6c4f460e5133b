//! Context family: nondeterministic sources. They are never folded or cached
//! and are re-evaluated on every read that reaches them.

use crate::node::kit::{map1, source, value_fn};
use crate::node::{konst, konst_or, wire, Lit, NodeDef, Outputs, Purity, Samples, Testing};
use crate::types::PortType::{Bool, Bytes, Str, F64, U64};
use crate::value::Value;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds since the Unix epoch by the system clock (0 if the clock is before it).
pub fn epoch_millis() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// `current_epoch_millis`: The wall-clock time in milliseconds since 1970-01-01 UTC.
pub const CURRENT_EPOCH_MILLIS: NodeDef = NodeDef {
    name: "current_epoch_millis",
    category: "context",
    doc: "The wall-clock time in milliseconds since 1970-01-01 UTC.",
    purity: Purity::Nondeterministic,
    build: |_| Ok(source(epoch_millis)),
    ..NodeDef::BASE
};

/// `counter`: start, start + 1, ... : one shared count per node instance, advanced on every read (wraps).
pub const COUNTER: NodeDef = NodeDef {
    name: "counter",
    category: "context",
    doc: "start, start + 1, ... : one shared count per node instance, advanced on every read (wraps).",
    params: &[konst_or("start", U64, Lit::U64(0))],
    purity: Purity::Nondeterministic,
    build: |c| {
        let next = AtomicU64::new(c.u64(0));
        Ok(source(move || next.fetch_add(1, Ordering::Relaxed)))
    },
    ..NodeDef::BASE
};

/// The numeric id of the calling thread (Rust's `ThreadId`, read through its
/// `ThreadId(N)` debug form as upstream does; 0 if that form changes).
pub fn thread_number() -> u64 {
    let id = format!("{:?}", std::thread::current().id());
    id.trim_start_matches("ThreadId(").trim_end_matches(')').parse().unwrap_or(0)
}

/// `thread_id`: the numeric id of the thread evaluating the node.
pub const THREAD_ID: NodeDef = NodeDef {
    name: "thread_id",
    category: "context",
    doc: "The numeric id of the OS thread evaluating the node (differs between threads and runs).",
    purity: Purity::Nondeterministic,
    build: |_| Ok(source(thread_number)),
    ..NodeDef::BASE
};

thread_local! {
    /// Each thread's xorshift64 state, seeded from the clock's nanoseconds
    /// (never 0, which xorshift cannot leave).
    static RNG: std::cell::Cell<u64> = std::cell::Cell::new(
        (SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64)
            ^ thread_number().wrapping_mul(0x9e37_79b9_7f4a_7c15))
            | 1,
    );
}

/// The next value of this thread's xorshift64 generator (13, 7, 17 as upstream's).
pub fn next_random() -> u64 {
    RNG.with(|r| {
        let mut s = r.get();
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        r.set(s);
        s
    })
}

/// `random_range`: a random u64 in [min, max) (min when the range is empty); not reproducible.
pub const RANDOM_RANGE: NodeDef = NodeDef {
    name: "random_range",
    category: "context",
    doc: "A random u64 in [min, max) from a per-thread generator seeded by the clock (min when max <= min); not reproducible.",
    params: &[konst_or("min", U64, Lit::U64(0)), konst_or("max", U64, Lit::U64(100))],
    purity: Purity::Nondeterministic,
    build: |c| {
        let (min, max) = (c.u64(0), c.u64(1));
        let span = max.saturating_sub(min).max(1);
        Ok(source(move || min.wrapping_add(next_random() % span)))
    },
    ..NodeDef::BASE
};

/// `random_f64`: a random f64 in [min, max]; not reproducible.
pub const RANDOM_F64: NodeDef = NodeDef {
    name: "random_f64",
    category: "context",
    doc: "A random f64, min + u * (max - min) with u in [0, 1] from a per-thread generator seeded by the clock; not reproducible.",
    params: &[konst_or("min", F64, Lit::F64(0.0)), konst_or("max", F64, Lit::F64(1.0))],
    outputs: Outputs::One(F64),
    purity: Purity::Nondeterministic,
    build: |c| {
        let (min, max) = (c.f64(0), c.f64(1));
        Ok(source(move || min + (next_random() as f64 / u64::MAX as f64) * (max - min)))
    },
    ..NodeDef::BASE
};

/// `random_bool`: true with the given probability; not reproducible.
pub const RANDOM_BOOL: NodeDef = NodeDef {
    name: "random_bool",
    category: "context",
    doc: "true with the given probability (clamped to [0, 1]), from a per-thread generator seeded by the clock; not reproducible.",
    params: &[konst_or("probability", F64, Lit::F64(0.5))],
    outputs: Outputs::One(Bool),
    purity: Purity::Nondeterministic,
    build: |c| {
        let threshold = (c.f64(0).clamp(0.0, 1.0) * u64::MAX as f64) as u64;
        Ok(source(move || next_random() < threshold))
    },
    ..NodeDef::BASE
};

/// `random_string`: `length` random characters of a charset spec (`A-Za-z0-9`); not reproducible.
pub const RANDOM_STRING: NodeDef = NodeDef {
    name: "random_string",
    category: "context",
    doc: "length random characters of a charset spec such as A-Za-z0-9 (empty charset: \"\"); not reproducible.",
    params: &[konst_or("charset", Str, Lit::Str("A-Za-z0-9")), konst_or("length", U64, Lit::U64(8))],
    outputs: Outputs::One(Str),
    purity: Purity::Nondeterministic,
    build: |c| {
        let chars = crate::nodes::string::expand_charset(c.str(0));
        let length = c.u64(1);
        Ok(value_fn(move |_, outs| {
            if chars.is_empty() {
                outs[0] = Value::str("");
                return Ok(());
            }
            crate::node::limit::check(usize::try_from(length).unwrap_or(usize::MAX).saturating_mul(4))?;
            let s: String = (0..length).map(|_| chars[(next_random() % chars.len() as u64) as usize]).collect();
            outs[0] = Value::str(s);
            Ok(())
        }))
    },
    testing: Testing {
        samples: &[("charset", Samples::Str(&["A-Za-z0-9", "", "é-ë"])), ("length", Samples::U64(&[8, 0, 20]))],
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// A node that gives `text` on every evaluation.
fn constant_text(text: String) -> Box<dyn crate::node::NodeEval> {
    let text = Value::str(text);
    value_fn(move |_, outs| {
        outs[0] = text.clone();
        Ok(())
    })
}

/// `random_bytes`: `size` random bytes; not reproducible.
pub const RANDOM_BYTES: NodeDef = NodeDef {
    name: "random_bytes",
    category: "context",
    doc: "size random bytes (little-endian words of a per-thread generator seeded by the clock); not reproducible.",
    params: &[konst_or("size", U64, Lit::U64(8))],
    outputs: Outputs::One(Bytes),
    purity: Purity::Nondeterministic,
    build: |c| {
        let size = usize::try_from(c.u64(0)).unwrap_or(usize::MAX);
        if size > crate::node::limit::max_value_bytes() {
            return Err(crate::node::limit::too_large(size).message().to_string());
        }
        Ok(value_fn(move |_, outs| {
            let mut bytes = Vec::with_capacity(size);
            while bytes.len() < size {
                let take = (size - bytes.len()).min(8);
                bytes.extend_from_slice(&next_random().to_le_bytes()[..take]);
            }
            outs[0] = Value::Bytes(bytes.into());
            Ok(())
        }))
    },
    testing: Testing { samples: &[("size", Samples::U64(&[8, 0, 1, 20]))], ..Testing::BASE },
    ..NodeDef::BASE
};

/// `env`: an environment variable, read once when the program is built.
pub const ENV: NodeDef = NodeDef {
    name: "env",
    category: "context",
    doc: "The environment variable `name`, read once when the program is built; unset is a build error (env_or gives a default).",
    params: &[konst("name", Str)],
    outputs: Outputs::One(Str),
    build: |c| {
        let name = c.str(0);
        std::env::var(name).map(constant_text).map_err(|_| {
            format!("env('{name}'): environment variable not set; use env_or('{name}', '<default>') if a fallback is acceptable")
        })
    },
    // A variable every environment sets.
    testing: Testing { samples: &[("name", Samples::Str(&["PATH"]))], ..Testing::BASE },
    ..NodeDef::BASE
};

/// `env_or`: an environment variable read once when the program is built, or `default` when unset.
pub const ENV_OR: NodeDef = NodeDef {
    name: "env_or",
    category: "context",
    doc: "The environment variable `name` read once when the program is built, or `default` when it is unset.",
    params: &[konst("name", Str), konst("default", Str)],
    outputs: Outputs::One(Str),
    build: |c| Ok(constant_text(std::env::var(c.str(0)).unwrap_or_else(|_| c.str(1).to_string()))),
    ..NodeDef::BASE
};

/// `tmp_dir`: the system's temporary directory, read once when the program is built.
pub const TMP_DIR: NodeDef = NodeDef {
    name: "tmp_dir",
    category: "context",
    doc: "The system's temporary directory (/tmp when its path is not UTF-8), read once when the program is built.",
    outputs: Outputs::One(Str),
    build: |_| {
        let dir = std::env::temp_dir();
        Ok(constant_text(dir.to_str().map_or_else(|| "/tmp".to_string(), str::to_string)))
    },
    ..NodeDef::BASE
};

/// `limit`: the input unchanged; marks a cursor's item limit in the graph.
pub const LIMIT: NodeDef = NodeDef {
    name: "limit",
    category: "context",
    doc: "The input unchanged; `max_items` records a cursor's item limit in the graph (the cursor applies it).",
    params: &[wire("input", U64), konst("max_items", U64)],
    build: |_| Ok(map1(|x: u64| x)),
    lower: Some(|_, _, x| Some(vec![x[0]])),
    ..NodeDef::BASE
};

/// The context family.
pub const NODES: &[NodeDef] = &[
    CURRENT_EPOCH_MILLIS,
    COUNTER,
    THREAD_ID,
    RANDOM_RANGE,
    RANDOM_F64,
    RANDOM_BOOL,
    RANDOM_STRING,
    RANDOM_BYTES,
    ENV,
    ENV_OR,
    TMP_DIR,
    LIMIT,
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::{Args, BuildCtx};
    use crate::nodes::testing::eval1;
    use crate::value::Value;

    #[test]
    fn clock_is_recent_and_monotone_enough() {
        let a = eval1(&CURRENT_EPOCH_MILLIS, &[], &[]).as_u64().unwrap();
        assert!(a > 1_700_000_000_000, "after 2023");
        let b = eval1(&CURRENT_EPOCH_MILLIS, &[], &[]).as_u64().unwrap();
        assert!(b >= a);
        assert_eq!(CURRENT_EPOCH_MILLIS.purity, Purity::Nondeterministic);
    }

    #[test]
    fn counter_counts_per_instance_and_wraps() {
        let build = |start: u64| {
            let consts = [Value::U64(start)];
            (COUNTER.build)(&BuildCtx { consts: &consts, wire_types: &[] }).unwrap()
        };
        let read = |node: &dyn crate::node::NodeEval| {
            let mut out = [Value::None];
            node.eval(&Args::new(&[], &[]), &mut out).unwrap();
            out[0].as_u64().unwrap()
        };
        let (a, b) = (build(0), build(10));
        assert_eq!([read(&*a), read(&*a), read(&*b), read(&*a)], [0, 1, 10, 2]);
        let top = build(u64::MAX);
        assert_eq!([read(&*top), read(&*top)], [u64::MAX, 0]);
        let mut slot = [0u64];
        a.slot_form().unwrap().eval_slots(&[], &mut slot).unwrap();
        assert_eq!(slot[0], 3, "both forms advance the same count");
        assert_eq!(eval1(&COUNTER, &[], &[]).as_u64(), Some(0), "default start is 0");
        assert_eq!(COUNTER.purity, Purity::Nondeterministic);
    }

    #[test]
    fn thread_ids_differ_between_threads() {
        let here = thread_number();
        assert!(here > 0);
        let there = std::thread::spawn(thread_number).join().unwrap();
        assert_ne!(here, there);
        assert_eq!(THREAD_ID.purity, Purity::Nondeterministic);
    }

    #[test]
    fn random_nodes_stay_in_their_ranges() {
        for _ in 0..1000 {
            let r = eval1(&RANDOM_RANGE, &[Value::U64(10), Value::U64(20)], &[]).as_u64().unwrap();
            assert!((10..20).contains(&r));
            let f = eval1(&RANDOM_F64, &[Value::F64(1.0), Value::F64(5.0)], &[]).as_f64().unwrap();
            assert!((1.0..=5.0).contains(&f));
        }
        assert!(eval1(&RANDOM_RANGE, &[Value::U64(7), Value::U64(7)], &[]).same(&Value::U64(7)));
        assert!(eval1(&RANDOM_BOOL, &[Value::F64(0.0)], &[]).same(&Value::Bool(false)));
        let s = eval1(&RANDOM_STRING, &[Value::str("A-Z"), Value::U64(20)], &[]);
        let s = s.as_str().unwrap();
        assert!(s.len() == 20 && s.chars().all(|c| c.is_ascii_uppercase()));
        assert_ne!(next_random(), next_random());
        for def in [&RANDOM_RANGE, &RANDOM_F64, &RANDOM_BOOL, &RANDOM_STRING] {
            assert_eq!(def.purity, Purity::Nondeterministic);
        }
    }
}

#[cfg(test)]
mod environment_tests {
    use super::*;
    use crate::nodes::testing::{build_err, eval1};

    #[test]
    fn environment_reads_are_frozen_at_build() {
        let name = format!("POLYDAT_TEST_ENV_{}", std::process::id());
        assert!(eval1(&ENV_OR, &[Value::str(&*name), Value::str("fallback")], &[]).same(&Value::str("fallback")));
        let message = build_err(&ENV, &[Value::str(&*name)], &[]);
        assert_eq!(
            message,
            format!("env('{name}'): environment variable not set; use env_or('{name}', '<default>') if a fallback is acceptable")
        );
        let path = eval1(&ENV, &[Value::str("PATH")], &[]);
        assert_eq!(path.as_str(), std::env::var("PATH").ok().as_deref());
        assert!(!eval1(&TMP_DIR, &[], &[]).as_str().unwrap().is_empty());
        assert!(eval1(&LIMIT, &[Value::U64(3)], &[Value::U64(99)]).same(&Value::U64(99)));
    }
}
