//! `generate`'s native row loops ([`Module::row_loop`]): one per coordinate
//! input, set of outputs and kind of step, built at the first `generate`
//! that asks; and, once enough rows have run with the same words in the
//! slots the loop reads before it (the call's other inputs, values fixed at
//! scope init), a loop with those words compiled in as constants
//! ([`SPECIALISE_AFTER_ROWS`]).
//!
//! A seed passed as `inputs=` is the same for every row of a call. Compiled
//! in, it is an instruction's immediate operand rather than a register held
//! through the loop, and a seeded hash's two constants fold into one; the
//! registers freed keep the loop's other constants out of memory. The
//! specialised loop is right only for a buffer holding its words, and
//! checks that before it runs (a buffer holding others takes the general
//! loop).

use super::catch;
use super::codegen::{Code, Module, RowColumn, RowLoopFn};
use super::{bare_steps, fits_one_function};
use crate::columns::{row_width, RowsOut};
use crate::engine::compiled::plan::{BuiltForms, RowLoop};
use crate::engine::compiled::shape::Shape;
use crate::engine::kernel::RowFill;
use crate::types::PortType;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// What a row loop is built for: the coordinate input, the outputs in
/// column order, and whether the rows are a step of 1 apart.
type RowLoopKey = (usize, Box<[usize]>, bool);

/// Rows asked for with the same fixed words before a loop specialised on
/// them is built (then kept for every later call with those words).
/// Building one takes about a millisecond; this many rows take 40 ms and
/// more (5 ns a row at the fastest), and the specialised loop saves a few
/// percent of each row after them.
pub const SPECIALISE_AFTER_ROWS: u64 = 1 << 23;

/// Specialised loops a plan builds at most; past them the general loops
/// serve (memory stays bounded however many different inputs are used).
const SPECIALISED_LOOPS: usize = 16;

/// Sets of fixed words a plan counts rows for at most.
const TALLIES: usize = 256;

/// A native row loop ([`Module::row_loop`]) and the code it lives in.
pub struct NativeRowLoop {
    f: RowLoopFn,
    /// It calls a helper: it runs inside the catch.
    fallible: bool,
    /// It is built for a step of 1 and refuses any other.
    unit_step: bool,
    /// The width of each column's rows.
    widths: Box<[u8]>,
    /// The words it reads once, before its loop, or the words compiled in.
    fixed: Fixed,
    _code: Code,
}

/// The words of the buffer a row loop takes as given.
enum Fixed {
    /// A general loop: each slot it reads before its loop, and the slot's
    /// buffer word.
    Read(Box<[(u32, u32)]>),
    /// A specialised loop: each buffer word compiled in and its value.
    CompiledIn(Box<[(u32, u64)]>),
}

impl RowLoop for NativeRowLoop {
    fn fill(&self, buf: &mut [u64], first: u64, step: u64, count: u64, columns: &[RowsOut<'_>]) -> Result<(), u64> {
        let fits = (!self.unit_step || step == 1)
            && columns.len() == self.widths.len()
            && columns.iter().zip(self.widths.iter()).all(|(c, &w)| c.width() == w && c.rows() as u64 >= count)
            && match &self.fixed {
                Fixed::Read(_) => true,
                Fixed::CompiledIn(words) => words.iter().all(|&(w, v)| buf.get(w as usize) == Some(&v)),
            };
        if !fits {
            return Err(0);
        }
        let addrs: Vec<*mut u8> = columns.iter().map(|c| c.addr()).collect();
        let mut progress = 0u64;
        let (buf, cols, at) = (buf.as_mut_ptr(), addrs.as_ptr(), &mut progress as *mut u64);
        // SAFETY: the loop was generated for this plan's layout and reads only
        // words of a buffer of that layout (`buf` is one, borrowed mutably
        // for the call) and its own constant words, which `_code` keeps
        // alive; it stores row `i < count` of column `k` at
        // `addrs[k] + i * widths[k]`, and each `RowsOut` lends at least
        // `count` rows of that width (checked above); `at` is a live local.
        let run = || unsafe { (self.f)(buf, first, step, count, cols, at) };
        match self.fallible {
            false => {
                run();
                Ok(())
            }
            true => catch::catch(run).map_err(|_| progress),
        }
    }
}

/// The row loop of outputs `outs` over coordinate input `coordinate` (for a
/// step of 1 only, with `unit_step`), with the slots of `fixed` compiled in
/// as their words: when every per-cycle step they need is a pure,
/// non-volatile scalar step, every output a scalar column, and the loop
/// fits one function ([`fits_one_function`]).
fn build(
    shape: &Shape,
    coordinate: usize,
    outs: &[usize],
    unit_step: bool,
    fixed: &[(u32, u64)],
) -> Result<Option<NativeRowLoop>, String> {
    let program = &shape.program;
    let widths: Option<Vec<u8>> = outs.iter().map(|&o| row_width(program.outputs[o].ty)).collect();
    let (Some(widths), Some(steps)) = (widths, bare_steps(shape, outs).filter(|s| fits_one_function(s, outs))) else {
        return Ok(None);
    };
    let columns: Vec<RowColumn> = outs
        .iter()
        .zip(&widths)
        .map(|(&o, &width)| {
            let output = &program.outputs[o];
            RowColumn { slot: output.slot, width, truth: output.ty == PortType::Bool }
        })
        .collect();
    let mut module = Module::new()?;
    let (id, emitted, reads_once) =
        module.row_loop(program, &shape.layout, &steps, coordinate as u32, &columns, unit_step, fixed)?;
    let code = module.finish()?;
    let word = |slot: u32| shape.layout.off[slot as usize];
    let fixed = match fixed.is_empty() {
        true => Fixed::Read(reads_once.into_iter().map(|slot| (slot, word(slot))).collect()),
        false => Fixed::CompiledIn(fixed.iter().map(|&(slot, v)| (word(slot), v)).collect()),
    };
    let f = code.row_loop(id);
    Ok(Some(NativeRowLoop { f, fallible: emitted.fallible, unit_step, widths: widths.into(), fixed, _code: code }))
}

/// A plan's row loops: the general ones by [`RowLoopKey`], and the ones
/// specialised on the words of the slots a general loop reads before it.
pub struct RowLoops {
    general: BuiltForms<RowLoopKey, NativeRowLoop>,
    specialised: Mutex<Specialised>,
}

/// Per general loop and set of its fixed words: the rows run with them so
/// far, then the loop built for them.
#[derive(Default)]
struct Specialised {
    seen: HashMap<(RowLoopKey, Box<[u64]>), Tally>,
    built: usize,
}

/// What a plan knows of one set of fixed words.
enum Tally {
    /// The rows asked for with them so far.
    Rows(u64),
    /// The loop built for them (`None`: the build found none).
    Built(Option<Arc<NativeRowLoop>>),
}

impl Default for RowLoops {
    fn default() -> Self {
        RowLoops { general: BuiltForms::new(usize::MAX), specialised: Mutex::default() }
    }
}

impl RowLoops {
    /// The loop for `rows` of outputs `outs` over a buffer `buf` of `shape`'s
    /// layout: the one specialised on `buf`'s fixed words once
    /// [`SPECIALISE_AFTER_ROWS`] rows have asked for them (these included),
    /// else the general one. `None`: these outputs have no row loop.
    pub fn get(&self, shape: &Shape, rows: &RowFill<'_>, outs: &[usize], buf: &[u64]) -> Option<Arc<NativeRowLoop>> {
        let key: RowLoopKey = (rows.coordinate, outs.into(), rows.step == 1);
        let general = self.general.get(key.clone(), || {
            // As for the program's own code: a failure here is a bug.
            build(shape, rows.coordinate, outs, rows.step == 1, &[])
                .unwrap_or_else(|e| panic!("internal: native code generation failed: {e}"))
        })?;
        let Fixed::Read(read) = &general.fixed else { return Some(general) };
        if read.is_empty() {
            return Some(general);
        }
        let fixed: Vec<(u32, u64)> = read.iter().map(|&(slot, w)| (slot, buf[w as usize])).collect();
        let words: Box<[u64]> = fixed.iter().map(|&(_, v)| v).collect();
        let mut specialised = self.specialised.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let Specialised { seen, built } = &mut *specialised;
        let at = (key, words);
        if seen.len() >= TALLIES && !seen.contains_key(&at) {
            return Some(general);
        }
        let tally = seen.entry(at).or_insert(Tally::Rows(0));
        let seen_rows = match tally {
            Tally::Built(found) => return Some(found.clone().unwrap_or(general)),
            Tally::Rows(seen_rows) => seen_rows,
        };
        *seen_rows += rows.count as u64;
        if *seen_rows < SPECIALISE_AFTER_ROWS || *built >= SPECIALISED_LOOPS {
            return Some(general);
        }
        let loop_ = build(shape, rows.coordinate, outs, rows.step == 1, &fixed)
            .unwrap_or_else(|e| panic!("internal: native code generation failed: {e}"))
            .map(Arc::new);
        *built += 1;
        *tally = Tally::Built(loop_.clone());
        Some(loop_.unwrap_or(general))
    }
}
