//! Context family: nondeterministic sources. They are never folded or cached
//! and are re-evaluated on every read that reaches them.

use crate::node::kit::source;
use crate::node::{konst_or, Lit, NodeDef, Purity};
use crate::types::PortType::U64;
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

/// `session_start_millis`: the wall clock, read once when the node is built.
pub const SESSION_START_MILLIS: NodeDef = NodeDef {
    name: "session_start_millis",
    category: "context",
    doc: "The wall-clock time in epoch milliseconds when the program was built (the same on every read of one build).",
    purity: Purity::Nondeterministic,
    build: |_| {
        let start = epoch_millis();
        Ok(source(move || start))
    },
    ..NodeDef::BASE
};

/// `elapsed_millis`: milliseconds since the node was built (saturating at 0).
pub const ELAPSED_MILLIS: NodeDef = NodeDef {
    name: "elapsed_millis",
    category: "context",
    doc: "Milliseconds of wall-clock time since the program was built (0 if the clock went back).",
    purity: Purity::Nondeterministic,
    build: |_| {
        let start = epoch_millis();
        Ok(source(move || epoch_millis().saturating_sub(start)))
    },
    ..NodeDef::BASE
};

/// The context family.
pub const NODES: &[NodeDef] = &[CURRENT_EPOCH_MILLIS, COUNTER, THREAD_ID, SESSION_START_MILLIS, ELAPSED_MILLIS];

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
    fn session_clocks_and_thread_ids() {
        let build = |def: &NodeDef| (def.build)(&BuildCtx { consts: &[], wire_types: &[] }).unwrap();
        let read = |node: &dyn crate::node::NodeEval| {
            let mut out = [Value::None];
            node.eval(&Args::new(&[], &[]), &mut out).unwrap();
            out[0].as_u64().unwrap()
        };
        let start = build(&SESSION_START_MILLIS);
        let first = read(&*start);
        std::thread::sleep(std::time::Duration::from_millis(5));
        assert_eq!(read(&*start), first, "frozen at build");
        assert!(first > 1_700_000_000_000);
        let elapsed = build(&ELAPSED_MILLIS);
        std::thread::sleep(std::time::Duration::from_millis(20));
        let e = read(&*elapsed);
        assert!((20..60_000).contains(&e), "{e}");
        let here = thread_number();
        assert!(here > 0);
        let there = std::thread::spawn(thread_number).join().unwrap();
        assert_ne!(here, there);
        for def in [&THREAD_ID, &SESSION_START_MILLIS, &ELAPSED_MILLIS] {
            assert_eq!(def.purity, Purity::Nondeterministic, "{}", def.name);
        }
    }
}
