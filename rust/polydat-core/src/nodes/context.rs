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

/// The context family.
pub const NODES: &[NodeDef] = &[CURRENT_EPOCH_MILLIS, COUNTER];

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
}
