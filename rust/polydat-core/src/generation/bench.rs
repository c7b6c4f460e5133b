//! The timing loop of `polydat bench`: a performance scenario is a
//! graph program, an optional driver program over `input meta: u64` whose
//! outputs feed the graph's inputs positionally, and pull weights (one output
//! pulled per cycle, chosen deterministically). The loop runs here, in Rust;
//! the driver's own cost is measured block by block beside the total so it
//! can be subtracted. A scalar output is read as its raw word (`pull_slot`,
//! like upstream's `get_slot` and the ladder bench), any other as a value.

use crate::engine::p2::{modes::Raw, P2Kernel};
use crate::engine::{new_kernel, EngineKind, GenerateError, Kernel};
use crate::nodes::hash::splitmix64;
use crate::program::Program;
use crate::types::PortType;
use crate::value::Value;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

/// One performance scenario.
pub struct Scenario {
    /// Outputs feed `graph`'s inputs positionally; `None`: input 0 gets the cycle.
    pub driver: Option<Arc<Program>>,
    /// The program measured.
    pub graph: Arc<Program>,
    /// `(output, weight)`: one output pulled per cycle; empty: the last output.
    pub pulls: Vec<(usize, u64)>,
}

/// What one run measured, per timed iteration, in ns per cycle.
#[derive(Clone, Debug, Default)]
pub struct Timing {
    /// Driver, graph writes and the pull.
    pub total: Vec<f64>,
    /// The driver alone (same cycles, same iteration).
    pub driver: Vec<f64>,
}

impl Timing {
    /// Per iteration: total minus driver, floored at 0.1 ns.
    pub fn net(&self) -> Vec<f64> {
        self.total.iter().zip(&self.driver).map(|(t, d)| (t - d).max(0.1)).collect()
    }
}

/// The output pulled at each cycle of `cycles` (deterministic from the cycle).
pub fn pull_schedule(graph: &Program, pulls: &[(usize, u64)], cycles: u64) -> Vec<u32> {
    let weights: Vec<(usize, u64)> = pulls.iter().copied().filter(|(_, w)| *w > 0).collect();
    if weights.is_empty() {
        let last = graph.outputs.iter().rposition(|o| !o.name.starts_with("__")).unwrap_or(0) as u32;
        return vec![last; cycles as usize];
    }
    let total: u64 = weights.iter().map(|(_, w)| w).sum();
    (0..cycles)
        .map(|c| {
            let mut r = splitmix64(c ^ 0x005e_ed0f_b3ac) % total;
            for &(o, w) in &weights {
                if r < w {
                    return o as u32;
                }
                r -= w;
            }
            weights[weights.len() - 1].0 as u32
        })
        .collect()
}

/// Feeds one driver cycle into the graph's inputs.
struct Drive {
    kernel: Option<P2Kernel<Raw>>,
    /// (driver output, graph input, both u64)
    links: Vec<(usize, usize, bool)>,
}

impl Drive {
    fn new(s: &Scenario) -> Drive {
        let Some(driver) = &s.driver else {
            return Drive { kernel: None, links: vec![(0, 0, true)] };
        };
        let outs = driver.outputs.iter().enumerate().filter(|(_, o)| !o.name.starts_with("__"));
        let links = outs
            .zip(0..s.graph.inputs.len())
            .map(|((o, def), i)| (o, i, def.ty == PortType::U64 && s.graph.inputs[i].ty == PortType::U64))
            .collect();
        Drive { kernel: Some(P2Kernel::new(driver)), links }
    }

    /// Runs the driver for `meta` and writes the graph (or just consumes the values).
    #[inline]
    fn cycle(&mut self, meta: u64, graph: Option<&mut dyn Kernel>) -> Result<(), GenerateError> {
        let Some(k) = &mut self.kernel else {
            if let Some(g) = graph {
                g.write_u64(0, meta).map_err(GenerateError::Write)?;
            }
            return Ok(());
        };
        k.write_word(0, meta).map_err(GenerateError::Write)?;
        let mut graph = graph;
        for &(o, i, fast) in &self.links {
            if fast {
                let v = match k.pull_u64(o) {
                    Ok(Some(v)) => v,
                    Ok(None) => 0,
                    Err(crate::engine::p2::SlotReadError::Eval(e)) => return Err(GenerateError::Eval(e)),
                    Err(crate::engine::p2::SlotReadError::Refused(_)) => unreachable!("u64 links only"),
                };
                match graph.as_deref_mut() {
                    Some(g) => g.write_u64(i, v).map_err(GenerateError::Write)?,
                    None => {
                        black_box(v);
                    }
                }
            } else {
                let v: Value = k.pull(o).map_err(GenerateError::Eval)?;
                match graph.as_deref_mut() {
                    Some(g) => g.write(i, v).map_err(GenerateError::Write)?,
                    None => {
                        black_box(v);
                    }
                }
            }
        }
        Ok(())
    }
}

/// Reads output `out` the way the timing loop does: a scalar as its raw word,
/// anything else (or a scalar holding `None`) as a value.
#[inline]
fn read(graph: &mut dyn Kernel, out: usize, scalar: bool) -> Result<(), GenerateError> {
    if scalar {
        if let Ok(word) = graph.pull_word(out) {
            black_box(word);
            return Ok(());
        }
    }
    black_box(graph.pull(out).map_err(GenerateError::Eval)?);
    Ok(())
}

/// Cycles per timed block: long enough to dwarf the clock reads, short
/// enough that a preemption spoils only a block, not an iteration.
const BLOCK: u64 = 1024;

/// Runs scenario `s` on engine `kind`: one warm-up pass, then `iters` timed
/// iterations of `cycles` cycles each (see [`run_interleaved`]).
pub fn run(s: &Scenario, kind: EngineKind, cycles: u64, iters: usize) -> Result<Timing, GenerateError> {
    let mut timings = run_interleaved(s, &[kind], cycles, iters)?;
    Ok(timings.pop().unwrap_or_default())
}

/// Runs scenario `s` on every engine of `kinds`, interleaved: one warm-up
/// pass each, then `iters` rounds in which every engine runs one timed
/// iteration of `cycles` cycles (meta = that engine's running cycle count),
/// so a change of the machine's load during the run touches every engine
/// alike. Each iteration runs in blocks of `BLOCK` cycles, and every block
/// is timed twice: the full cycle (driver, graph writes, one pull), then
/// the driver alone over the same metas. An iteration reports the median
/// block, so a block hit by preemption does not count, and the driver is
/// subtracted from timings taken under the same conditions. One timing per
/// engine, in the order of `kinds`.
pub fn run_interleaved(
    s: &Scenario,
    kinds: &[EngineKind],
    cycles: u64,
    iters: usize,
) -> Result<Vec<Timing>, GenerateError> {
    let cycles = cycles.max(1);
    let schedule = pull_schedule(&s.graph, &s.pulls, cycles);
    let scalar: Vec<bool> = s.graph.outputs.iter().map(|o| !o.ty.is_ref()).collect();
    let mut runners: Vec<Runner> =
        kinds.iter().map(|&kind| Runner { graph: new_kernel(&s.graph, kind), drive: Drive::new(s), meta: 0 }).collect();
    let mut timings = vec![Timing::default(); kinds.len()];
    for iter in 0..=iters {
        let n = if iter == 0 { cycles.min(10 * BLOCK) } else { cycles };
        for (runner, timing) in runners.iter_mut().zip(timings.iter_mut()) {
            let (total, driver) = runner.iteration(n, &schedule, &scalar)?;
            if iter > 0 {
                timing.total.push(total);
                timing.driver.push(driver);
            }
        }
    }
    Ok(timings)
}

/// One engine's kernel and driver in a scenario run, and its running cycle count.
struct Runner {
    graph: Box<dyn Kernel>,
    drive: Drive,
    meta: u64,
}

impl Runner {
    /// One iteration of `n` cycles in blocks: the (total, driver) ns per
    /// cycle of the block whose net cost is the median.
    fn iteration(&mut self, n: u64, schedule: &[u32], scalar: &[bool]) -> Result<(f64, f64), GenerateError> {
        let (mut totals, mut drivers) = (Vec::new(), Vec::new());
        let mut done = 0u64;
        while done < n {
            let len = BLOCK.min(n - done);
            let start = self.meta + done;
            let t = Instant::now();
            for c in 0..len {
                self.drive.cycle(start + c, Some(self.graph.as_mut()))?;
                let out = schedule[(done + c) as usize] as usize;
                read(self.graph.as_mut(), out, scalar[out])?;
            }
            let total = t.elapsed().as_nanos() as f64 / len as f64;
            let t = Instant::now();
            for c in 0..len {
                self.drive.cycle(start + c, None)?;
            }
            let driver = t.elapsed().as_nanos() as f64 / len as f64;
            totals.push(total);
            drivers.push(driver);
            done += len;
        }
        self.meta += n;
        let mut order: Vec<usize> = (0..totals.len()).collect();
        order.sort_by(|&a, &b| (totals[a] - drivers[a]).total_cmp(&(totals[b] - drivers[b])));
        let mid = order[order.len() / 2];
        Ok((totals[mid], drivers[mid]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::{compile, CompileOptions};
    use crate::ir::GraphIr;

    fn program(json: &str) -> Arc<Program> {
        Arc::new(compile(&GraphIr::from_json(json).unwrap(), &CompileOptions::default()).unwrap())
    }

    const GRAPH: &str = r#"{
      "inputs": [{"name": "cycle", "type": "u64", "kind": "coordinate"},
                 {"name": "seed", "type": "u64", "kind": "coordinate"}],
      "nodes": [{"op": "hash", "args": [{"wire": {"input": 0}}]},
                {"op": "u64_xor", "args": [{"wire": {"input": 1}}, {"wire": {"node": {"node": 0, "port": 0}}}]},
                {"op": "hash", "args": [{"wire": {"input": 1}}]}],
      "outputs": [{"name": "a", "wire": {"node": {"node": 0, "port": 0}}},
                  {"name": "b", "wire": {"node": {"node": 1, "port": 0}}},
                  {"name": "c", "wire": {"node": {"node": 2, "port": 0}}}]
    }"#;

    const DRIVER: &str = r#"{
      "inputs": [{"name": "meta", "type": "u64", "kind": "coordinate"}],
      "nodes": [{"op": "add", "args": [{"wire": {"input": 0}}, {"const": {"u64": 0}}]},
                {"op": "__lit", "args": [{"const": {"u64": 42}}]}],
      "outputs": [{"name": "cycle", "wire": {"node": {"node": 0, "port": 0}}},
                  {"name": "seed", "wire": {"node": {"node": 1, "port": 0}}}]
    }"#;

    #[test]
    fn schedules_follow_weights_deterministically() {
        let p = program(GRAPH);
        let s = pull_schedule(&p, &[(0, 8), (2, 2)], 10_000);
        assert_eq!(s, pull_schedule(&p, &[(0, 8), (2, 2)], 10_000));
        let zeros = s.iter().filter(|&&o| o == 0).count();
        assert!((7_700..8_300).contains(&zeros), "{zeros}");
        assert!(s.iter().all(|&o| o == 0 || o == 2));
        assert!(pull_schedule(&p, &[], 5).iter().all(|&o| o == 2), "no weights: the last output");
    }

    #[test]
    fn scenarios_run_on_every_engine() {
        let s = Scenario { driver: Some(program(DRIVER)), graph: program(GRAPH), pulls: vec![(1, 1), (2, 1)] };
        let kinds = std::iter::once(EngineKind::P1).chain(crate::engine::Provenance::ALL.map(EngineKind::P2));
        for kind in kinds {
            let t = run(&s, kind, 2_000, 3).unwrap();
            assert_eq!((t.total.len(), t.driver.len()), (3, 3));
            assert!(t.net().iter().all(|&x| x >= 0.1));
        }
        let bare = Scenario { driver: None, graph: program(GRAPH), pulls: vec![] };
        assert_eq!(run(&bare, EngineKind::P1, 100, 1).unwrap().total.len(), 1);
    }

    #[test]
    fn interleaved_runs_time_every_engine_every_round() {
        let s = Scenario { driver: Some(program(DRIVER)), graph: program(GRAPH), pulls: vec![(1, 1)] };
        let kinds = [EngineKind::P1, EngineKind::P2(crate::engine::Provenance::Pull)];
        let timings = run_interleaved(&s, &kinds, 3_000, 4).unwrap();
        assert_eq!(timings.len(), 2);
        assert!(timings.iter().all(|t| t.total.len() == 4 && t.driver.len() == 4));
    }
}
