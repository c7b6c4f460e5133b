//! P3 at run time: failures inside native code come back through the catch
//! as the same attributed errors P1 gives, many times in a row and on
//! several threads at once; a panic inside a helper is caught too; native
//! results match P1 on the ladder and on random programs.

mod common;
use common::ReadWords;

use polydat_core::columns::Column;
use polydat_core::compile::sketch;
use polydat_core::compile::{compile, CompileOptions};
use polydat_core::engine::compiled::plan::{Executor, Part};
use polydat_core::engine::kernel::{RowFill, Stop};
use polydat_core::engine::p1::P1Kernel;
use polydat_core::engine::p3::{self, catch, helpers, Provenance};
use polydat_core::engine::{new_kernel, EngineKind, Kernel};
use polydat_core::node::kit::SlotEval;
use polydat_core::node::{Args, NodeError, NodeEval};
use polydat_core::types::PortType;
use polydat_core::{Program, Value};
use std::sync::Arc;

fn program(src: &str) -> Arc<Program> {
    let ir = sketch::parse(src).unwrap();
    Arc::new(compile(&ir, &CompileOptions::default()).unwrap_or_else(|e| panic!("{e}")))
}

/// `d` fails when `cycle` is 0 (a wire divisor of zero); the sweep that
/// computes it calls the rule's helper, so it runs inside the catch.
const DIVIDES: &str = "input cycle: u64
h := hash(cycle)
d := mod_wire(h, cycle)
out := u64_add(d, h)";

/// A stop never requested.
static NEVER: Stop<'static> = Stop::new();

/// What `generate` asks a row loop for: `count` rows `step` apart over input 0.
fn ask(step: u64, count: usize) -> RowFill<'static> {
    RowFill { coordinate: 0, first: 0, step, count, stop: &NEVER }
}

fn modes() -> impl Iterator<Item = EngineKind> {
    Provenance::ALL.into_iter().map(EngineKind::P3)
}

#[test]
fn the_sweep_of_a_fallible_program_runs_in_the_catch() {
    let p = program(DIVIDES);
    let plan = p3::plan(&p);
    assert!(plan.executor.sweeps(), "every step is a pure scalar step");
    let mut buf = vec![0u64; plan.layout.words];
    let parts = plan.executor.sweep().expect("a sweep");
    let [Part::Segment(run)] = parts else { panic!("one run of scalar steps") };
    assert!(!<p3::Native>::run_segment(run, &mut buf), "cycle 0: the divisor is 0, the sweep fails and says so");
    buf[0] = 7;
    assert!(<p3::Native>::run_segment(run, &mut buf));
    assert!(!catch::installed(), "no catch is left behind");
}

#[test]
fn a_violation_is_the_error_p1_gives_and_a_thousand_leave_the_kernel_correct() {
    let p = program(DIVIDES);
    let out = p.output("out").unwrap();
    for kind in modes() {
        let mut k = new_kernel(&p, kind);
        let mut oracle = P1Kernel::new(p.clone());
        for i in 0..1000u64 {
            let cycle = if i % 2 == 0 { 0 } else { i };
            k.write_u64(0, cycle).unwrap();
            oracle.write_u64(0, cycle).unwrap();
            match (k.pull(out), oracle.pull(out)) {
                (Ok(a), Ok(b)) => assert!(a.same(&b), "{kind:?} at {cycle}"),
                (Err(a), Err(b)) => {
                    assert_eq!(a.message, b.message, "{kind:?}");
                    assert_eq!(a.node, "mod_wire");
                }
                (a, b) => panic!("{kind:?} at {cycle}: {a:?} vs {b:?}"),
            }
        }
        k.write_u64(0, 12345).unwrap();
        oracle.write_u64(0, 12345).unwrap();
        assert!(k.pull(out).unwrap().same(&oracle.pull(out).unwrap()), "{kind:?}: correct afterwards");
    }
}

#[test]
fn violations_on_four_threads_at_once_stay_on_their_threads() {
    let p = program(DIVIDES);
    let out = p.output("out").unwrap();
    let handles: Vec<_> = (0..4u64)
        .map(|t| {
            let p = p.clone();
            std::thread::spawn(move || {
                let mut k = new_kernel(&p, EngineKind::P3(Provenance::Raw));
                let mut oracle = P1Kernel::new(p.clone());
                for i in 0..2000u64 {
                    let cycle = if (i + t) % 3 == 0 { 0 } else { i * 4 + t };
                    k.write_u64(0, cycle).unwrap();
                    oracle.write_u64(0, cycle).unwrap();
                    let (a, b) = (k.pull(out), oracle.pull(out));
                    match (a, b) {
                        (Ok(a), Ok(b)) => assert!(a.same(&b)),
                        (Err(a), Err(b)) => assert_eq!(a.message, b.message),
                        (a, b) => panic!("thread {t} at {cycle}: {a:?} vs {b:?}"),
                    }
                }
            })
        })
        .collect();
    handles.into_iter().for_each(|h| h.join().unwrap());
}

/// A node whose slot form panics (no library node does: the test makes one).
struct Panics;

impl NodeEval for Panics {
    fn eval(&self, _: &Args<'_>, _: &mut [Value]) -> Result<(), NodeError> {
        panic!("a helper panicked")
    }
    fn slot_form(&self) -> Option<&dyn SlotEval> {
        Some(self)
    }
}

impl SlotEval for Panics {
    fn eval_slots(&self, _: &[u64], _: &mut [u64]) -> Result<(), NodeError> {
        panic!("a helper panicked")
    }
}

#[test]
fn a_panic_inside_a_helper_is_caught_at_the_helper_boundary() {
    let call = helpers::SlotCall { node: Arc::new(Panics), ins: 1, outs: 1 };
    let (ins, mut outs) = ([5u64], [0u64]);
    for _ in 0..100 {
        // SAFETY: `call` lives for the call; the areas have its arity.
        let caught = catch::catch(|| unsafe { helpers::slot_call(&call, ins.as_ptr(), outs.as_mut_ptr()) });
        assert_eq!(caught, Err("a helper panicked".into()));
    }
    assert!(!catch::installed());
}

#[test]
fn the_ladder_on_every_p3_mode_matches_p1_and_by_hand() {
    let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../benches/graphs/ladder.polydat"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let p = program(&src);
    let names = ["account_id", "shard", "payload_class", "event_token"];
    let outs: Vec<usize> = names.iter().map(|n| p.output(n).unwrap()).collect();
    for kind in modes() {
        let mut k = new_kernel(&p, kind);
        let mut oracle = P1Kernel::new(p.clone());
        for cycle in [0u64, 1, 2, 42, 1 << 40, u64::MAX - 1, u64::MAX] {
            for (i, v) in [cycle, 17, 99].into_iter().enumerate() {
                k.write_u64(i, v).unwrap();
                oracle.write_u64(i, v).unwrap();
            }
            let mut words = [0u64; 4];
            k.read_at(&[], &outs, &mut words).unwrap();
            let want: Vec<u64> = outs.iter().map(|&o| oracle.pull_word(o).unwrap()).collect();
            assert_eq!(words.to_vec(), want, "{kind:?} at {cycle}");
        }
    }
}

#[test]
fn random_programs_agree_with_p1_on_p3() {
    for seed in 0..20 {
        let p = common::random_dag(seed, 40 + 5 * seed as usize);
        let mut oracle = P1Kernel::new(p.clone());
        for kind in modes() {
            let mut k = new_kernel(&p, kind);
            for cycle in [0u64, 1, 7, u64::MAX] {
                for i in 0..p.coord_count {
                    k.write_u64(i, cycle.wrapping_add(i as u64)).unwrap();
                    oracle.write_u64(i, cycle.wrapping_add(i as u64)).unwrap();
                }
                for o in 0..p.outputs.len() {
                    match (k.pull(o), oracle.pull(o)) {
                        (Ok(a), Ok(b)) => assert!(a.same(&b), "seed {seed} {kind:?} output {o}: {a} vs {b}"),
                        (Err(a), Err(b)) => assert_eq!(a.message, b.message),
                        (a, b) => panic!("seed {seed} {kind:?}: {a:?} vs {b:?}"),
                    }
                }
                // Rows read as raw words (Raw's row read): every output at
                // a new coordinate in one call, then every other output
                // after plain writes.
                let every: Vec<usize> = (0..p.outputs.len()).collect();
                let other: Vec<usize> = every.iter().copied().step_by(2).collect();
                for (round, outs) in [&every, &other].into_iter().enumerate() {
                    let coords: Vec<u64> =
                        (0..p.coord_count as u64).map(|i| cycle.rotate_left(7 + round as u32) ^ i).collect();
                    let mut got = vec![0u64; outs.len()];
                    let a = match round {
                        0 => k.read_at(&coords, outs, &mut got),
                        _ => {
                            coords.iter().enumerate().for_each(|(i, &v)| k.write_u64(i, v).unwrap());
                            k.read_at(&[], outs, &mut got)
                        }
                    };
                    coords.iter().enumerate().for_each(|(i, &v)| oracle.write_u64(i, v).unwrap());
                    let mut want = vec![0u64; outs.len()];
                    let b = oracle.read_at(&[], outs, &mut want);
                    let (a, b) =
                        (a.map(|()| got).map_err(|e| e.to_string()), b.map(|()| want).map_err(|e| e.to_string()));
                    assert_eq!(a, b, "seed {seed} {kind:?} cycle {cycle}: a row of raw words");
                }
            }
        }
    }
}

/// A program `generate` runs through P3's native row loop: u64, f64 and
/// bool columns, an extern (loaded once before the loop), a value fixed at
/// scope init, an input passed through, and a row-dependent failure
/// (`div_wire` by `cycle % 1000`, zero once in a thousand rows).
const ROWS: &str = "input cycle: u64
extern k: u64 = 3
h := hash(cycle)
id := mod(h, 1000000)
u := unit_interval(h)
scaled := f64_mul(u, 2.5)
small := u64_lt(h, 4611686018427387903)
const kk := hash(k)
mixed := u64_add(h, kk)
cycle_out := cycle
d := mod(cycle, 1000)
ratio := div_wire(1099511627776, d)";

#[test]
fn generate_runs_a_native_row_loop_that_matches_p1_row_for_row() {
    use polydat_core::generation::{generate, RowPlan};
    let p = program(ROWS);
    let ok: Vec<usize> = ["id", "scaled", "small", "kk", "mixed", "cycle_out"].map(|n| p.output(n).unwrap()).into();
    let plan = p3::plan(&p);
    let zeros = vec![0u64; plan.shape.layout.words];
    assert!(plan.executor.row_loop(&plan.shape, &ask(1, 2), &ok, &zeros).is_some(), "every column is a native scalar");
    let cases = [
        (RowPlan::range(0, 1, 200_001, 1), 1), // several chunks of the loop and a partial one
        (RowPlan::range(0, 1, 3, 1), 1),       // the first row, then one row in the loop
        (RowPlan { start: u64::MAX - 700, rows: 1500, ..RowPlan::range(0, 0, 1, 1) }, 2), // wraps
        (RowPlan::range(0, 7, 7 + 13 * 999, 13), 3), // a step, three threads
    ];
    for (rows, threads) in cases {
        let rows = RowPlan { fixed: vec![(1, Value::U64(9))], ..rows };
        let want = polydat_core::generation::generate(&p, EngineKind::P1, &rows, &ok, 1).unwrap();
        for kind in modes().chain([EngineKind::Mixed]) {
            let got = generate(&p, kind, &rows, &ok, threads).unwrap();
            for (a, b) in want.iter().zip(&got) {
                assert_eq!(a.len(), b.len(), "{kind:?}");
                assert!(a.to_values().iter().zip(b.to_values()).all(|(x, y)| x.same(&y)), "{kind:?} x{threads}");
            }
        }
    }
    // A failing row inside the loop: the same error as P1, from the same row,
    // after thousands of good rows, on every thread count.
    let ratio = vec![p.output("ratio").unwrap(), p.output("id").unwrap()];
    let rows = RowPlan::range(0, 1, 2500, 1);
    let want = generate(&p, EngineKind::P1, &rows, &ratio, 1).unwrap_err().to_string();
    assert!(want.contains("divide by zero") && want.contains("1000"), "{want}");
    for kind in modes().chain([EngineKind::Mixed]) {
        for threads in [1, 2] {
            let got = generate(&p, kind, &rows, &ratio, threads).unwrap_err().to_string();
            assert_eq!(got, want, "{kind:?} x{threads}");
        }
    }
    // The loop itself names the failing row (the rows before it are written,
    // and `generate` redoes only the rest row by row): cycle 1000 is row 999.
    let row_loop =
        plan.executor.row_loop(&plan.shape, &ask(1, 2), &ratio, &zeros).expect("a fallible loop is native too");
    let mut columns = [Column::new(PortType::U64, 2500).unwrap(), Column::new(PortType::U64, 2500).unwrap()];
    let mut parts: Vec<_> = columns.iter_mut().map(|c| c.split(&[2500]).pop().unwrap()).collect();
    let ahead: Vec<_> = parts.iter_mut().map(|c| c.rows_ahead().unwrap()).collect();
    let mut buf = vec![0u64; plan.shape.layout.words];
    buf[plan.shape.layout.off[1] as usize] = 9;
    assert_eq!(row_loop.fill(&mut buf, 1, 1, 2500, &ahead), Err(999));
    // The loop built for a step of 1 refuses another step before it runs;
    // the one for any step has a row counter: cycle 1000 is row 333.
    assert_eq!(row_loop.fill(&mut buf, 1, 3, 2500, &ahead), Err(0));
    let any_step = plan.executor.row_loop(&plan.shape, &ask(3, 2), &ratio, &zeros).expect("a loop for any step");
    assert_eq!(any_step.fill(&mut buf, 1, 3, 2500, &ahead), Err(333));
    // A step of 1 across the wrap: cycle 0 (a zero divisor) is row 6.
    assert_eq!(row_loop.fill(&mut buf, u64::MAX - 5, 1, 2500, &ahead), Err(6));
}

/// Once the rows asked for with the same words in the slots a row loop
/// reads before it add up, `generate` gets a loop with those words compiled
/// in: it writes the general loop's rows, and refuses a buffer holding
/// other words before it runs; other words get the general loop.
#[test]
fn a_row_loop_specialised_on_its_fixed_words_writes_the_general_loops_rows() {
    use polydat_core::engine::compiled::plan::RowLoop;
    use polydat_core::engine::p3::row_loop::SPECIALISE_AFTER_ROWS;
    let p = program(ROWS);
    let outs: Vec<usize> = ["id", "scaled", "small", "kk", "mixed", "cycle_out"].map(|n| p.output(n).unwrap()).into();
    let plan = p3::plan(&p);
    let same = |a: &Arc<dyn RowLoop>, b: &Arc<dyn RowLoop>| std::ptr::addr_eq(Arc::as_ptr(a), Arc::as_ptr(b));
    let rows = 5000;
    let fill = |row_loop: &dyn RowLoop, mut buf: Vec<u64>| {
        let mut columns: Vec<Column> = outs.iter().map(|&o| Column::new(p.outputs[o].ty, rows).unwrap()).collect();
        let mut parts: Vec<_> = columns.iter_mut().map(|c| c.split(&[rows]).pop().unwrap()).collect();
        let ahead: Vec<_> = parts.iter_mut().map(|c| c.rows_ahead().unwrap()).collect();
        let done = row_loop.fill(&mut buf, 3, 1, rows as u64, &ahead);
        drop(ahead);
        parts.iter_mut().for_each(|c| c.advance(rows));
        drop(parts);
        done.map(|()| columns.iter().map(|c| c.to_values()).collect::<Vec<_>>())
    };
    // The loop reads `kk` (fixed at scope init) before it, not `k`: an
    // immediate's worth, and a word wider than one.
    let kk = plan.shape.layout.off[p.outputs[p.output("kk").unwrap()].slot as usize] as usize;
    for word in [77, 0xDEAD_BEEF_1234] {
        let mut buf = vec![0u64; plan.shape.layout.words];
        buf[kk] = word;
        let general = plan.executor.row_loop(&plan.shape, &ask(1, 1000), &outs, &buf).unwrap();
        let below = plan.executor.row_loop(&plan.shape, &ask(1, SPECIALISE_AFTER_ROWS as usize - 2000), &outs, &buf);
        assert!(same(&below.unwrap(), &general), "not yet");
        let special = plan.executor.row_loop(&plan.shape, &ask(1, 1000), &outs, &buf).unwrap();
        assert!(!same(&special, &general), "specialised past the threshold");
        let want = fill(&*general, buf.clone()).unwrap();
        let got = fill(&*special, buf.clone()).unwrap();
        for (a, b) in want.iter().zip(&got) {
            assert!(a.iter().zip(b).all(|(x, y)| x.same(y)), "{word}");
        }
        let mut other = buf.clone();
        other[kk] = word + 1;
        assert_eq!(fill(&*special, other.clone()).err(), Some(0), "refuses other words");
        let again = plan.executor.row_loop(&plan.shape, &ask(1, 1000), &outs, &other).unwrap();
        assert!(same(&again, &general), "other words: the general loop");
    }
}

/// Four independent roots: every output's cone is a quarter of the
/// program (selective), and `bad` fails when `d` is 0.
const ROOTS: &str = "input a: u64
input b: u64
input c: u64
input d: u64
a1 := hash(a)
a2 := mod(a1, 1000)
a3 := hash(a2)
b1 := hash(b)
b2 := u64_add(b1, 7)
b3 := hash(b2)
c1 := hash(c)
c2 := u64_xor(c1, 99)
c3 := hash(c2)
d1 := hash(d)
bad := mod_wire(d1, d)";

#[test]
fn a_selective_cone_runs_as_one_native_function_and_agrees_with_p1() {
    let p = program(ROOTS);
    let plan = p3::plan(&p);
    let outs: Vec<usize> = ["a3", "b3", "c3", "bad"].map(|n| p.output(n).unwrap()).into();
    for &o in &outs {
        assert!(!plan.broad_cone(o), "output {o} is selective");
        let parts = plan.executor.cone_sweep(&plan.shape, o).expect("a native cone sweep");
        assert!(matches!(parts, [Part::Segment(_)]), "output {o}: its cone is one native function");
    }
    for kind in modes() {
        let mut k = new_kernel(&p, kind);
        let mut oracle = P1Kernel::new(p.clone());
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for round in 0..400 {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let (input, value) = ((state >> 33) as usize % 4, (state >> 40) % 3);
            k.write_u64(input, value).unwrap();
            oracle.write_u64(input, value).unwrap();
            let out = outs[(state >> 20) as usize % 4];
            match (k.pull(out), oracle.pull(out)) {
                (Ok(x), Ok(y)) => assert!(x.same(&y), "{kind:?} round {round}"),
                (Err(x), Err(y)) => assert_eq!(x.to_string(), y.to_string(), "{kind:?} round {round}"),
                (x, y) => panic!("{kind:?} round {round}: {x:?} vs {y:?}"),
            }
        }
    }
}

/// A coordinate a side channel reads: writing it must re-run the side step
/// (it is pinned, so only its provenance dirties it), on every engine and
/// mode, through `write_u64` — the Raw modes' shortest write path takes only
/// coordinates with no pinned dependent.
#[test]
fn a_coordinate_write_reruns_the_side_channel_that_reads_it() {
    use polydat_core::nodes::hash::splitmix64;
    let p =
        program("input cycle: u64\ninput other: u64\nseen := inspect(cycle, \"w\")\nh := hash(seen)\ng := hash(other)");
    let (h, g) = (p.output("h").unwrap(), p.output("g").unwrap());
    let kinds = std::iter::once(EngineKind::P1)
        .chain(Provenance::ALL.map(EngineKind::P2))
        .chain(Provenance::ALL.map(EngineKind::P3))
        .chain([EngineKind::Mixed]);
    for kind in kinds {
        let mut k = new_kernel(&p, kind);
        for cycle in [1u64, 2, 3, 3, 7] {
            k.write_u64(0, cycle).unwrap();
            k.write_u64(1, cycle * 10).unwrap();
            assert_eq!(k.pull_word(h).unwrap(), splitmix64(cycle), "{}: h at cycle {cycle}", kind.name());
            assert_eq!(k.pull_word(g).unwrap(), splitmix64(cycle * 10), "{}: g at cycle {cycle}", kind.name());
        }
    }
}

/// A row filler (`Kernel::rows`) prepared once reads rows as a filler made
/// for each read does, on every engine (P1's filler the oracle): values and errors are P1's, for rows that write the
/// coordinate and rows that read the same round again, a first row read
/// into too few words (which sweeps, so the next rows must make that sweep
/// stale), for outputs that
/// cannot fail and for one that fails at a zero divisor; and the kernel
/// read after the reader is done sees the last row written (a reader that
/// ran P3 Raw's native read leaves the round stale); a by-reference output
/// is refused as P1 refuses it.
#[test]
fn a_row_filler_reads_rows_as_one_filler_per_read_does_on_every_engine() {
    // Without a string output Raw sweeps; with one, its reads walk cones.
    for source in [ROWS.to_string(), format!("{ROWS}\nlabel := str_concat(\"n\", id)")] {
        let p = program(&source);
        reads_rows_as_one_filler_per_read_does(&p, p.output("label"));
    }
}

/// [`a_row_filler_reads_rows_as_one_filler_per_read_does_on_every_engine`] on
/// `p`, with its string output `label` if it has one.
fn reads_rows_as_one_filler_per_read_does(p: &Arc<Program>, label: Option<usize>) {
    let bare: Vec<usize> = ["id", "scaled", "small", "kk", "mixed", "cycle_out"].map(|n| p.output(n).unwrap()).into();
    let failing: Vec<usize> = ["ratio", "id"].map(|n| p.output(n).unwrap()).into();
    let kinds = [EngineKind::P1, EngineKind::P2(Provenance::Raw), EngineKind::P2(Provenance::Pull)];
    for kind in kinds.into_iter().chain(modes()).chain([EngineKind::Mixed]) {
        let mut k = new_kernel(p, kind);
        let mut oracle = P1Kernel::new(p.clone());
        // Started, so that the first row, read into too few words, finds a
        // row read it cannot run, and reads (and sweeps) the usual way.
        k.start().unwrap();
        oracle.start().unwrap();
        for outs in [&bare, &failing] {
            let mut last = 0;
            {
                let mut reader = k.rows(outs).unwrap();
                for (row, cycle) in [5u64, 999, 1000, 1001, 0, u64::MAX, 77, 2000, 12, 13].into_iter().enumerate() {
                    let (mut got, mut want) = ([0u64; 6], [0u64; 6]);
                    // The first row reads into fewer words than outputs (the
                    // usual way: the native read wants a word per output).
                    let n = if row == 0 { outs.len() - 1 } else { outs.len() };
                    // Every third row reads the last row's round again.
                    let values: &[u64] = if row % 3 == 2 { &[] } else { std::slice::from_ref(&cycle) };
                    let cycle = if values.is_empty() { last } else { cycle };
                    let b = oracle.read_at(values, outs, &mut want[..n]).map_err(|e| e.to_string());
                    let a = reader.read_words(values, &mut got[..n]).map_err(|e| e.to_string());
                    assert_eq!(a.map(|()| got), b.map(|()| want), "{}, cycle {cycle}", kind.name());
                    last = cycle;
                }
            }
            oracle.write_u64(0, last).unwrap();
            if let Some(label) = label {
                let (a, b) = (k.pull(label).unwrap(), oracle.pull(label).unwrap());
                assert_eq!(a.to_string(), b.to_string(), "{}", kind.name());
            }
            let at = |k: &mut dyn Kernel| {
                outs.iter().map(|&o| k.pull_word(o).map_err(|e| e.to_string())).collect::<Vec<_>>()
            };
            assert_eq!(at(&mut *k), at(&mut oracle), "{}: read after the reader", kind.name());
        }
        // A by-reference output is refused as P1 refuses it.
        if let Some(label) = label {
            let (mut got, mut want) = ([0u64; 2], [0u64; 2]);
            let with_text = [bare[0], label];
            let refused = oracle.read_at(&[9], &with_text, &mut want).unwrap_err().to_string();
            let mut reader = k.rows(&with_text).unwrap();
            assert_eq!(reader.read_words(&[9], &mut got).unwrap_err().to_string(), refused, "{}", kind.name());
        }
    }
}

/// Raw's row read: a stale read of raw words of scalar outputs (or one
/// that writes the leading coordinates first) computes
/// their cones in one native call and stores no slot, so the round stays
/// stale and a later read of the same round sweeps as usual; the values,
/// and a failing row's error, are P1's.
#[test]
fn raw_reads_a_row_of_scalar_outputs_in_one_native_call_and_agrees_with_p1() {
    let p = program(&format!("{ROWS}\nlabel := str_concat(\"n\", id)"));
    let plan = p3::plan(&p);
    let names = ["id", "scaled", "small", "kk", "mixed", "cycle_out", "ratio"];
    let outs: Vec<usize> = names.map(|n| p.output(n).unwrap()).into();
    assert!(plan.executor.row_read(&plan.shape, 0, &outs).is_some(), "every output is a native scalar");
    assert!(plan.executor.row_read(&plan.shape, 1, &outs).is_some(), "the coordinate is plain");
    assert!(plan.executor.row_read(&plan.shape, 2, &outs).is_none(), "the second input is an extern");
    let label = p.output("label").unwrap();
    assert!(plan.executor.row_read(&plan.shape, 0, &[outs[0], label]).is_none(), "a string output has none");
    // The read itself, over a fresh kernel state's buffer (values fixed at
    // scope init are not there yet): P1's words; the buffer is left as it
    // was but for the coordinate the read writes; a zero divisor (cycle
    // 1000) fails.
    let bare = &[outs[0], outs[5]];
    let read = plan.executor.row_read(&plan.shape, 0, bare).unwrap();
    let read_at = plan.executor.row_read(&plan.shape, 1, bare).unwrap();
    let divides = plan.executor.row_read(&plan.shape, 0, &[outs[6]]).unwrap();
    let mut buf = polydat_core::engine::compiled::slots::Slots::new(&plan.shape).buf;
    let cycle_word = plan.shape.layout.off[0] as usize;
    let mut oracle = P1Kernel::new(p.clone());
    for cycle in [7u64, 1000, u64::MAX] {
        let mut want = [0u64; 2];
        oracle.write_u64(0, cycle).unwrap();
        oracle.read_at(&[], bare, &mut want).unwrap();
        let mut before = buf.clone();
        let mut words = [0u64; 2];
        assert!(<p3::Native>::read_row(&read_at, &mut buf, &[cycle], &mut words));
        before[cycle_word] = cycle;
        assert_eq!((buf.clone(), words), (before.clone(), want), "cycle {cycle}: the read wrote the coordinate alone");
        words = [0; 2];
        assert!(<p3::Native>::read_row(&read, &mut buf, &[], &mut words));
        assert_eq!(words, want, "cycle {cycle}");
        assert_eq!(<p3::Native>::read_row(&divides, &mut buf, &[], &mut words), cycle != 1000, "cycle {cycle}");
        assert_eq!(buf, before, "cycle {cycle}: a read alone stores nothing to the buffer");
        assert!(!<p3::Native>::read_row(&read, &mut buf, &[], &mut words[..1]), "too few words: refused");
        assert!(!<p3::Native>::read_row(&read_at, &mut buf, &[], &mut words), "too few values: refused");
    }
    // Through the kernel: reads alone and reads at a coordinate, between
    // extern writes and other reads of the same round.
    let mut k = p3::RawKernel::with_plan(plan.clone());
    k.start().unwrap();
    let mut oracle = P1Kernel::new(p.clone());
    for (round, cycle) in [5u64, 999, 1000, 1001, 0, u64::MAX, 77, 1000, 12].into_iter().enumerate() {
        if round == 6 {
            k.write_u64(1, 11).unwrap();
            oracle.write_u64(1, 11).unwrap();
        }
        let (mut got, mut want) = ([0u64; 7], [0u64; 7]);
        oracle.write_u64(0, cycle).unwrap();
        let b = oracle.read_at(&[], &outs, &mut want);
        let a = match round % 2 {
            0 => k.read_at(&[cycle], &outs, &mut got),
            _ => {
                k.write_u64(0, cycle).unwrap();
                k.read_at(&[], &outs, &mut got)
            }
        };
        match (a, b) {
            (Ok(()), Ok(())) => assert_eq!(got, want, "cycle {cycle}"),
            (Err(x), Err(y)) => assert_eq!(x.to_string(), y.to_string(), "cycle {cycle}"),
            (x, y) => panic!("cycle {cycle}: {x:?} vs {y:?}"),
        }
        assert!(k.keeps_row_read(), "cycle {cycle}");
        // Other reads of the same round: a cone walk (the string), the row
        // read again, and after a sweep of everything, plain loads.
        assert_eq!(k.pull(label).unwrap().to_string(), oracle.pull(label).unwrap().to_string(), "cycle {cycle}");
        let mut again = [0u64; 7];
        assert_eq!(k.read_at(&[], &outs, &mut again).is_ok(), cycle % 1000 != 0);
        if cycle % 1000 != 0 {
            assert_eq!(again, want, "cycle {cycle}, read again");
            k.eval().unwrap();
            assert!(k.swept(), "cycle {cycle}: eval swept");
            let mut loaded = [0u64; 7];
            k.read_at(&[], &outs, &mut loaded).unwrap();
            assert_eq!(loaded, want, "cycle {cycle}, read after the sweep");
        }
        // Writing the extern too: no row read for two inputs, the usual path.
        let mut both = [0u64; 7];
        let a = k.read_at(&[cycle, 3 + round as u64], &outs, &mut both).map_err(|e| e.to_string());
        oracle.write_u64(1, 3 + round as u64).unwrap();
        let b = oracle.read_at(&[], &outs, &mut want).map(|()| want).map_err(|e| e.to_string());
        assert_eq!(a.map(|()| both), b, "cycle {cycle}, extern written");
    }
    // A read at a new coordinate right after a sweep made every value
    // current: from then on the sweep's values are stale.
    k.write_u64(0, 41).unwrap();
    k.eval().unwrap();
    assert!(k.swept());
    let (mut got, mut want) = ([0u64; 7], [0u64; 7]);
    k.read_at(&[42], &outs, &mut got).unwrap();
    oracle.write_u64(0, 42).unwrap();
    oracle.read_at(&[], &outs, &mut want).unwrap();
    assert_eq!(got, want);
    assert!(!k.swept(), "the write made the round stale");
    assert_eq!(k.pull(label).unwrap().to_string(), oracle.pull(label).unwrap().to_string());
}

/// A loop that reads a few sets of outputs in turn keeps a row read for
/// each (the last four), and every read is P1's.
#[test]
fn raw_keeps_the_row_reads_of_a_few_output_sets_read_in_turn() {
    let p = program(ROWS);
    let plan = p3::plan(&p);
    let id = |n: &str| p.output(n).unwrap();
    let sets: Vec<Vec<usize>> = vec![
        vec![id("id"), id("scaled")],
        vec![id("small")],
        vec![id("mixed"), id("id")],
        vec![id("cycle_out")],
        vec![id("kk"), id("small")],
        vec![id("scaled"), id("mixed"), id("id")],
    ];
    let mut k = p3::RawKernel::with_plan(plan.clone());
    k.start().unwrap();
    let mut oracle = P1Kernel::new(p.clone());
    for (round, cycle) in (1u64..200).filter(|c| c % 1000 != 0).enumerate() {
        // Two sets in turn for a while, then all six.
        let outs = &sets[if round < 100 { round % 2 } else { round % 6 }];
        let (mut got, mut want) = (vec![0u64; outs.len()], vec![0u64; outs.len()]);
        k.read_at(&[cycle * 7919], outs, &mut got).unwrap();
        oracle.write_u64(0, cycle * 7919).unwrap();
        oracle.read_at(&[], outs, &mut want).unwrap();
        assert_eq!(got, want, "round {round}");
        assert!(k.keeps_row_read());
        match round < 100 {
            true => assert_eq!(k.kept_row_reads(), (round + 1).min(2), "round {round}: one for each of the two sets"),
            false => assert!(k.kept_row_reads() <= 4, "round {round}"),
        }
    }
    assert_eq!(k.kept_row_reads(), 4, "the last four sets");
}

/// A program larger than one native function ([`MAX_FUNCTION_STEPS`]):
/// its sweep and the mixed engine's segment are compiled in pieces, and
/// every engine gives P1's values, and P1's failure from a member in the
/// last piece (whose positions count from the piece's start).
#[test]
fn a_program_larger_than_one_native_function_runs_in_pieces_and_agrees_with_p1() {
    use polydat_core::engine::p3::codegen::MAX_FUNCTION_STEPS;
    let n = 2 * MAX_FUNCTION_STEPS + 100;
    let chain: String = (1..n).map(|i| format!("v{i} := u64_xor(v{}, cycle)\n", i - 1)).collect();
    let src =
        format!("input cycle: u64\nv0 := hash(cycle)\n{chain}d := mod_wire(v{}, cycle)\nout := u64_add(d, v0)", n - 1);
    let only_out = CompileOptions { outputs: Some(vec!["out".into()]), ..CompileOptions::default() };
    let p = Arc::new(compile(&sketch::parse(&src).unwrap(), &only_out).unwrap());
    assert!(p.steps.len() > 2 * MAX_FUNCTION_STEPS);
    let segments = polydat_core::engine::mixed::segments(&p).segments;
    assert_eq!(segments.iter().map(Vec::len).max(), Some(p.steps.len()), "one segment of every step");
    let mut oracle = P1Kernel::new(p.clone());
    for kind in modes().chain([EngineKind::Mixed]) {
        let mut k = new_kernel(&p, kind);
        for cycle in [3u64, 0, u64::MAX, 0] {
            k.write_u64(0, cycle).unwrap();
            oracle.write_u64(0, cycle).unwrap();
            match (k.pull(0), oracle.pull(0)) {
                (Ok(a), Ok(b)) => assert!(a.same(&b), "{kind:?} cycle {cycle}: {a} vs {b}"),
                (Err(a), Err(b)) => {
                    assert_eq!((&a.message, &a.node), (&b.message, &b.node), "{kind:?}: the failing member is named");
                    assert_eq!(b.node, "mod_wire");
                }
                (a, b) => panic!("{kind:?} cycle {cycle}: {a:?} vs {b:?}"),
            }
        }
    }
}

/// `generate` of more columns than a row loop stores, or more steps than
/// one function holds, reads its rows through the sweep's pieces, with
/// P1's values; a few columns of the same program still get a row loop.
#[test]
fn generate_of_a_program_too_large_for_a_row_loop_agrees_with_p1() {
    use polydat_core::engine::p3::codegen::{MAX_FUNCTION_STEPS, MAX_ROW_COLUMNS};
    use polydat_core::generation::{generate, RowPlan};
    let p = common::random_dag(11, MAX_FUNCTION_STEPS + MAX_ROW_COLUMNS);
    let plan = p3::plan(&p);
    let every: Vec<usize> = (0..p.outputs.len()).collect();
    let zeros = vec![0u64; plan.shape.layout.words];
    assert!(plan.executor.row_loop(&plan.shape, &ask(1, 2), &every, &zeros).is_none(), "too large for one function");
    assert!(plan.executor.row_loop(&plan.shape, &ask(1, 2), &every[..4], &zeros).is_some(), "a few small cones");
    let rows = RowPlan { fixed: vec![(1, Value::U64(9)), (2, Value::U64(u64::MAX))], ..RowPlan::range(0, 5, 125, 3) };
    let want = generate(&p, EngineKind::P1, &rows, &every, 1).unwrap();
    for kind in modes().chain([EngineKind::Mixed]) {
        let got = generate(&p, kind, &rows, &every, 2).unwrap();
        for (a, b) in want.iter().zip(&got) {
            assert!(a.to_values().iter().zip(b.to_values()).all(|(x, y)| x.same(&y)), "{kind:?}");
        }
    }
}
