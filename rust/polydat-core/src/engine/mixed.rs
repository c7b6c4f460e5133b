//! The mixed engine, what `engine="auto"` runs: P1 owns the graph, and each
//! maximal connected group of native-eligible steps runs as one embedded
//! native *segment* that the interpreter treats as a single node — its
//! caching, `None` handling and failure attribution unchanged.
//!
//! A step is native-eligible when it is a pure, non-volatile, `Dynamic`
//! scalar step with a native form ([`crate::node::lower`]) that does not
//! accept `None`. Constants and scope-init steps stay interpreted (they run
//! once). Native code carries no absent value: when an input of a segment is
//! `None` (an extern written `None`, a `None` from an interpreted step), the
//! segment runs its members' own rules under the `None` rule instead, so the
//! values are P1's either way.
//! Segments are grown in evaluation order: a step joins the segment of one
//! of its producers unless that would make the segment read its own output
//! through a step outside it (segments stay convex, so the segmented program
//! is still a DAG); a segment of one step is not worth the marshalling and
//! stays interpreted.
//!
//! The segmented program is built once per program ([`Program::cache`]). A
//! segment's node marshals its inputs to words, runs its native function over
//! a buffer of its own, and decodes the outputs read outside it; a failure
//! inside names the member node ([`Origin`]), with that member's inputs.

use super::column::ColumnPart;
use super::compiled::layout::NO_ENTRY;
use super::compiled::plan::Executor;
use super::p1::P1Kernel;
use super::p3::catch;
use super::p3::codegen::{Code, Module, NativeFn};
use super::{fill_row_by_row, GenerateError, Kernel, RowFill};
use crate::error::{EvalError, WriteError};
use crate::node::kit::{slot_to_value, value_to_slot};
use crate::node::{lower, Args, BuildCtx, NodeDef, NodeError, NodeEval, Origin, Purity};
use crate::program::explain::EnginePlan;
use crate::program::lifecycle::Lifecycle;
use crate::program::selection::EngineKind;
use crate::program::{OutputDef, Program, Step};
use crate::provenance::ProvMask;
use crate::types::PortType;
use crate::value::Value;
use std::collections::HashMap;
use std::sync::Arc;

/// The node a segment step runs (not in the catalog: only this module builds it).
pub static SEGMENT: NodeDef = NodeDef {
    name: "__native",
    category: "compiler",
    doc: "A native segment of several nodes (the mixed engine).",
    purity: Purity::Pure,
    ..NodeDef::BASE
};

/// Why a step of the program stays interpreted under the mixed engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpreted {
    /// It runs once (a constant or a scope-init step).
    NotDynamic,
    /// It is nondeterministic, volatile, or a side channel.
    NotPure,
    /// It reads or writes a by-reference value, or accepts `None`.
    NotScalar,
    /// Its node has no native form.
    NoNativeForm,
    /// It may fail, and a segment would run it for values that do not need it.
    MayFailUnneeded,
    /// It reads a value from outside its segment whose evaluation may fail,
    /// and a segment would evaluate that for values that do not need it.
    ReadsMayFailUnneeded,
    /// It was the only eligible step of its group.
    Alone,
}

impl Interpreted {
    /// The reason, in words.
    pub fn reason(self) -> &'static str {
        match self {
            Interpreted::NotDynamic => "runs once (constant or scope-init)",
            Interpreted::NotPure => "nondeterministic, volatile or a side channel",
            Interpreted::NotScalar => "by-reference values or a None-accepting node",
            Interpreted::NoNativeForm => "its node has no native form",
            Interpreted::MayFailUnneeded => "it may fail, and a segment would run it for values that do not need it",
            Interpreted::ReadsMayFailUnneeded => {
                "it reads a value that may fail, and a segment would read it for values that do not need it"
            }
            Interpreted::Alone => "the only eligible step of its group",
        }
    }
}

/// The segments of a program and why every other step stays interpreted.
#[derive(Clone, Debug, Default)]
pub struct Segmentation {
    /// Each segment's member steps, in evaluation order.
    pub segments: Vec<Vec<u32>>,
    /// Per step of the program: `None` when it is a member of a segment.
    pub interpreted: Vec<Option<Interpreted>>,
}

/// Why step `s` of `program` cannot join a segment, if it cannot.
fn ineligible(program: &Program, s: usize) -> Option<Interpreted> {
    let step = &program.steps[s];
    if step.lifecycle != Lifecycle::Dynamic || step.capture {
        Some(Interpreted::NotDynamic)
    } else if step.def.purity != Purity::Pure || step.volatile {
        Some(Interpreted::NotPure)
    } else if !step.is_scalar() {
        Some(Interpreted::NotScalar)
    } else if step.def.lower.is_none() {
        Some(Interpreted::NoNativeForm)
    } else {
        None
    }
}

/// Groups `program`'s eligible steps into convex, connected segments in
/// which every member that may fail, or that reads a value from outside
/// whose evaluation may fail, is needed by every value the segment exposes
/// (so a read never fails for a member it does not need).
pub fn segment(program: &Program) -> Segmentation {
    let n = program.steps.len();
    let mut interpreted: Vec<Option<Interpreted>> = (0..n).map(|s| ineligible(program, s)).collect();
    let may_fail: Vec<bool> = program
        .steps
        .iter()
        .map(|step| {
            let ctx = BuildCtx { consts: &step.consts, wire_types: &step.in_types };
            lower::calls_rule(step.def.lower, &ctx, step.ins.len(), step.out_count())
        })
        .collect();
    // Per step: evaluating it may fail (it, or a per-cycle step it reads).
    let mut cone_may_fail = vec![false; n];
    for (s, step) in program.steps.iter().enumerate() {
        let reads_failing = step.ins.iter().filter_map(|&slot| program.step_of_slot(slot)).any(|p| cone_may_fail[p]);
        cone_may_fail[s] = step.lifecycle == Lifecycle::Dynamic && (may_fail[s] || reads_failing);
    }
    loop {
        let groups = grow(program, &interpreted);
        let misplaced: Vec<usize> =
            groups.iter().flat_map(|g| misplaced(program, g, &may_fail, &cone_may_fail)).collect();
        if misplaced.is_empty() {
            let mut segments = Vec::new();
            for group in groups {
                match group.len() {
                    0 => {}
                    1 => interpreted[group[0] as usize] = Some(Interpreted::Alone),
                    _ => segments.push(group),
                }
            }
            return Segmentation { segments, interpreted };
        }
        for s in misplaced {
            let why = if may_fail[s] { Interpreted::MayFailUnneeded } else { Interpreted::ReadsMayFailUnneeded };
            interpreted[s] = Some(why);
        }
    }
}

/// Grows segments over the steps not `interpreted`, in evaluation order: a
/// step joins a producer's segment X unless another of its producers depends
/// on X (X would read its own output through that producer).
fn grow(program: &Program, interpreted: &[Option<Interpreted>]) -> Vec<Vec<u32>> {
    let n = program.steps.len();
    // Per step: its segment, and the segments it depends on (sorted).
    let mut seg: Vec<Option<u32>> = vec![None; n];
    let mut depends: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut members: Vec<Vec<u32>> = Vec::new();
    for s in 0..n {
        let producers: Vec<usize> =
            program.steps[s].ins.iter().filter_map(|&slot| program.step_of_slot(slot)).collect();
        let mut deps: Vec<u32> = Vec::new();
        for &p in &producers {
            deps.extend(depends[p].iter().copied());
            deps.extend(seg[p]);
        }
        deps.sort_unstable();
        deps.dedup();
        if interpreted[s].is_none() {
            let joins = producers
                .iter()
                .filter_map(|&p| seg[p])
                .find(|&x| producers.iter().all(|&q| seg[q] == Some(x) || depends[q].binary_search(&x).is_err()));
            let x = joins.unwrap_or_else(|| {
                members.push(Vec::new());
                members.len() as u32 - 1
            });
            members[x as usize].push(s as u32);
            seg[s] = Some(x);
        }
        depends[s] = deps;
    }
    members
}

/// Work above which [`misplaced`] stops tracing and names every member that
/// may fail (exact but slower: they run interpreted).
const TRACE_BUDGET: usize = 1 << 24;

/// The members of segment `members` that may fail but are not needed by
/// every value it exposes (a slot read outside it, or a named output). A
/// member may fail by its own rule (`may_fail`), or because it reads a
/// step outside the segment whose evaluation may fail (`cone_may_fail`):
/// the segment evaluates all of its inputs before it runs.
fn misplaced(program: &Program, members: &[u32], may_fail: &[bool], cone_may_fail: &[bool]) -> Vec<usize> {
    if members.len() < 2 {
        return Vec::new();
    }
    let position: HashMap<usize, usize> = members.iter().enumerate().map(|(i, &m)| (m as usize, i)).collect();
    let reads_failing_outside = |m: usize| {
        let producers = program.steps[m].ins.iter().filter_map(|&slot| program.step_of_slot(slot));
        producers.filter(|p| !position.contains_key(p)).any(|p| cone_may_fail[p])
    };
    let fallible: Vec<usize> =
        members.iter().map(|&m| m as usize).filter(|&m| may_fail[m] || reads_failing_outside(m)).collect();
    if fallible.is_empty() {
        return Vec::new();
    }
    if fallible.len().saturating_mul(members.len()) > TRACE_BUDGET {
        return fallible;
    }
    // Per member: the members reading it, and how many values it exposes.
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); members.len()];
    let mut exposes = vec![0usize; members.len()];
    let outputs: HashMap<u32, usize> = program.outputs.iter().fold(HashMap::new(), |mut m, o| {
        *m.entry(o.slot).or_default() += 1;
        m
    });
    for (i, &m) in members.iter().enumerate() {
        let step = &program.steps[m as usize];
        for k in 0..step.out_count() as u32 {
            let slot = step.out_start + k;
            exposes[i] += outputs.get(&slot).copied().unwrap_or(0).min(1);
        }
        for &slot in step.ins.iter() {
            if let Some(&p) = program.step_of_slot(slot).and_then(|p| position.get(&p)) {
                readers[p].push(i);
            }
        }
    }
    for (s, step) in program.steps.iter().enumerate() {
        if position.contains_key(&s) {
            continue;
        }
        for &slot in step.ins.iter() {
            if let Some(&p) = program.step_of_slot(slot).and_then(|p| position.get(&p)) {
                exposes[p] += 1; // counts reads, not slots: only "all or not" matters below
            }
        }
    }
    let exposing: usize = exposes.iter().filter(|&&e| e > 0).count();
    let mut out = Vec::new();
    let mut seen = vec![usize::MAX; members.len()];
    for &f in &fallible {
        // The exposing members downstream of f (f included), by a forward walk.
        let start = position[&f];
        let (mut stack, mut reached) = (vec![start], 0usize);
        seen[start] = f;
        while let Some(i) = stack.pop() {
            reached += usize::from(exposes[i] > 0);
            for &r in &readers[i] {
                if seen[r] != f {
                    seen[r] = f;
                    stack.push(r);
                }
            }
        }
        if reached < exposing {
            out.push(f);
        }
    }
    out
}

/// One member of a segment: its rule (for the `None` path) and what
/// attributing its failure needs. Its inputs and outputs are words of the
/// segment's buffer, which index the segment's values on the `None` path too.
struct Member {
    node: &'static str,
    eval: Arc<dyn NodeEval>,
    feeds: Vec<String>,
    /// The member's input words, and their types.
    ins: Vec<(u32, PortType)>,
    /// The member's input words alone (an [`Args`] index).
    in_words: Box<[u32]>,
    /// The member's first output word and its output count.
    outs: (u32, u32),
}

impl Member {
    /// The member's failure, attributed to it, with its inputs.
    fn failed(&self, message: impl Into<String>, inputs: Vec<Value>) -> NodeError {
        NodeError::from_member(message, Origin { node: self.node, feeds: self.feeds.clone(), inputs })
    }
}

/// A segment's node: its native function over a buffer of its own.
struct Segment {
    function: NativeFn,
    /// The function calls a helper (runs inside the catch).
    fallible: bool,
    /// Words of the segment's buffer (inputs, every member's outputs, the tracker).
    words: usize,
    /// The word the code records the failing member's position in.
    tracker: u32,
    /// The buffer word of each wire input, in order.
    in_words: Box<[u32]>,
    /// The buffer word and type of each output the segment exposes, in order.
    out_words: Box<[(u32, PortType)]>,
    members: Box<[Member]>,
    _code: Arc<Code>,
}

/// Words of a segment buffer kept on the stack (larger segments allocate).
const STACK_WORDS: usize = 128;

impl Segment {
    fn run(&self, buf: &mut [u64]) -> Result<(), Box<str>> {
        let ptr = buf.as_mut_ptr();
        // SAFETY: the function was generated for this segment's buffer layout
        // of `self.words` words and touches no word past it; `buf` has them.
        let call = || unsafe { (self.function)(ptr) };
        match self.fallible {
            false => {
                call();
                Ok(())
            }
            true => {
                buf[self.tracker as usize] = u64::MAX;
                catch::catch(call)
            }
        }
    }

    fn eval_words(&self, args: &Args<'_>, buf: &mut [u64], outs: &mut [Value]) -> Result<(), NodeError> {
        for (i, &w) in self.in_words.iter().enumerate() {
            // Inputs are scalars and never `None` (eligibility), so every one has a word.
            buf[w as usize] = value_to_slot(args.get(i)).unwrap_or(0);
        }
        if let Err(message) = self.run(buf) {
            let at = buf[self.tracker as usize] as usize;
            return Err(match self.members.get(at) {
                Some(m) => m.failed(message, m.ins.iter().map(|&(w, ty)| slot_to_value(ty, buf[w as usize])).collect()),
                None => NodeError::new(message),
            });
        }
        for (out, &(w, ty)) in outs.iter_mut().zip(self.out_words.iter()) {
            *out = slot_to_value(ty, buf[w as usize]);
        }
        Ok(())
    }

    /// The `None` path: every member's own rule, in order, under the `None`
    /// rule (a member with a `None` input yields `None` on every output).
    fn eval_values(&self, args: &Args<'_>, outs: &mut [Value]) -> Result<(), NodeError> {
        let mut values = vec![Value::None; self.words];
        for (i, &w) in self.in_words.iter().enumerate() {
            values[w as usize] = args.get(i).clone();
        }
        for m in self.members.iter() {
            let (start, count) = (m.outs.0 as usize, m.outs.1 as usize);
            let (before, after) = values.split_at_mut(start);
            let member_outs = &mut after[..count];
            if m.in_words.iter().any(|&w| before[w as usize].is_none()) {
                member_outs.iter_mut().for_each(|o| *o = Value::None);
            } else if let Err(e) = m.eval.eval(&Args::new(before, &m.in_words), member_outs) {
                let inputs = m.in_words.iter().map(|&w| before[w as usize].clone()).collect();
                return Err(m.failed(e.into_message(), inputs));
            }
        }
        for (out, &(w, _)) in outs.iter_mut().zip(self.out_words.iter()) {
            *out = std::mem::take(&mut values[w as usize]);
        }
        Ok(())
    }
}

impl NodeEval for Segment {
    fn eval(&self, args: &Args<'_>, outs: &mut [Value]) -> Result<(), NodeError> {
        if args.iter().any(Value::is_none) {
            self.eval_values(args, outs)
        } else if self.words <= STACK_WORDS {
            let mut buf = [0u64; STACK_WORDS];
            self.eval_words(args, &mut buf[..self.words], outs)
        } else {
            let mut buf = vec![0u64; self.words];
            self.eval_words(args, &mut buf, outs)
        }
    }
}

/// A program with its segments as single steps, and the segmentation.
pub struct MixedProgram {
    /// The segmented program P1 runs.
    pub program: Arc<Program>,
    /// Which steps of the original program are segments' members, and why
    /// every other step stays interpreted.
    pub segmentation: Segmentation,
}

/// The mixed form of `program`, built once and shared by every kernel.
pub fn mixed(program: &Arc<Program>) -> Arc<MixedProgram> {
    program.cache().get_or_init(|| build(program))
}

/// A new mixed kernel over `program`.
pub fn new_kernel(program: &Arc<Program>) -> Box<dyn Kernel> {
    Box::new(MixedKernel {
        interpreter: P1Kernel::new(mixed(program).program.clone()),
        original: program.clone(),
        rows: None,
    })
}

/// The mixed kernel: P1 over the segmented program for every read, and,
/// for `generate`, a P3 kernel over the original program when P3 can run the
/// columns without the interpreter: its native row loop (scalar columns), or
/// its sweep, string steps by bytes (the values are the same: every engine
/// agrees; a failing row is reported as P1 reports it).
struct MixedKernel {
    /// P1 over the segmented program.
    interpreter: P1Kernel,
    /// The program as compiled (the row loop's).
    original: Arc<Program>,
    /// The P3 Raw kernel `generate` runs its row loops on, made at the
    /// first `generate` that can use one.
    rows: Option<Box<dyn Kernel>>,
}

impl MixedKernel {
    /// The P3 kernel for `generate`'s rows, holding this kernel's inputs, when
    /// P3 has a row loop for outputs `outs` over coordinate `coordinate`,
    /// rows `step` apart (all scalar), or a sweep of the whole per-cycle
    /// program: every input has a value and every scope-init step is pure
    /// (so the values fixed at scope init are the interpreter's own).
    fn row_kernel(&mut self, coordinate: usize, step: u64, outs: &[usize]) -> Option<&mut dyn Kernel> {
        let program = &self.original;
        let deterministic_init = program.scope_init_steps.iter().all(|&s| {
            let step = &program.steps[s as usize];
            step.def.purity == Purity::Pure && !step.volatile
        });
        let inputs: Vec<Value> = (0..program.inputs.len()).map(|i| self.interpreter.input_value(i)).collect();
        if !deterministic_init || inputs.iter().any(Value::is_none) {
            return None;
        }
        let plan = super::p3::plan(program);
        let scalar = outs.iter().all(|&o| !program.outputs[o].ty.is_ref());
        let native = scalar && plan.executor.row_loop(&plan.shape, coordinate, outs, step).is_some();
        if !native && !plan.executor.sweeps() {
            return None;
        }
        let kernel =
            self.rows.get_or_insert_with(|| super::p3::new_kernel(program, crate::provenance::Provenance::Raw));
        for (i, value) in inputs.into_iter().enumerate() {
            if kernel.input_value(i).same(&value) {
                continue;
            }
            kernel.write(i, value).ok()?;
        }
        Some(kernel.as_mut())
    }
}

impl Kernel for MixedKernel {
    fn program(&self) -> &Arc<Program> {
        self.interpreter.program()
    }
    fn write(&mut self, input: usize, value: Value) -> Result<(), WriteError> {
        self.interpreter.write(input, value)
    }
    #[inline]
    fn write_u64(&mut self, input: usize, value: u64) {
        self.interpreter.write_u64(input, value)
    }
    fn pull(&mut self, out: usize) -> Result<Value, EvalError> {
        self.interpreter.pull(out)
    }
    #[inline]
    fn pull_slot(&mut self, out: usize) -> Result<u64, EvalError> {
        self.interpreter.pull_slot(out)
    }
    fn pull_slots(&mut self, outs: &[usize], words: &mut [u64]) -> Result<(), EvalError> {
        self.interpreter.pull_slots(outs, words)
    }
    fn pull_row(&mut self, outs: &[usize], columns: &mut [ColumnPart<'_>]) -> Result<(), EvalError> {
        self.interpreter.pull_row(outs, columns)
    }
    fn pull_into(&mut self, out: usize, column: &mut ColumnPart<'_>) -> Result<(), EvalError> {
        self.interpreter.pull_into(out, column)
    }
    fn fill_rows(
        &mut self,
        rows: &RowFill<'_>,
        outs: &[usize],
        columns: &mut [ColumnPart<'_>],
    ) -> Result<(), GenerateError> {
        let compiled = rows.count > 1 && self.original.inputs[rows.coordinate].ty == PortType::U64;
        let Some(native) = compiled.then(|| self.row_kernel(rows.coordinate, rows.step, outs)).flatten() else {
            return fill_row_by_row(&mut self.interpreter, rows, outs, columns);
        };
        native.fill_rows(rows, outs, columns)?;
        let last = rows.first.wrapping_add((rows.count as u64 - 1).wrapping_mul(rows.step));
        self.interpreter.write_u64(rows.coordinate, last);
        Ok(())
    }
    fn eval(&mut self) -> Result<Vec<Value>, EvalError> {
        self.interpreter.eval()
    }
    fn input_value(&self, input: usize) -> Value {
        self.interpreter.input_value(input)
    }
    fn invalidate_all(&mut self) {
        self.interpreter.invalidate_all()
    }
    fn start(&mut self) -> Result<(), EvalError> {
        self.interpreter.start()
    }
}

/// Builds the segmented program (see the module).
fn build(program: &Arc<Program>) -> MixedProgram {
    let segmentation = segment(program);
    if segmentation.segments.is_empty() {
        return MixedProgram { program: program.clone(), segmentation };
    }
    match rebuild(program, &segmentation) {
        Ok(segmented) => MixedProgram { program: Arc::new(segmented), segmentation },
        // Code generation failing is a bug; the interpreter still runs the
        // program exactly (no segment is the same as an empty segmentation).
        Err(_) => MixedProgram {
            program: program.clone(),
            segmentation: Segmentation {
                segments: Vec::new(),
                interpreted: vec![Some(Interpreted::NoNativeForm); program.steps.len()],
            },
        },
    }
}

/// A built segment, with the program slots it reads and the slots it exposes.
type Built = (Arc<Segment>, Vec<u32>, Vec<u32>);

/// The program with each segment's members replaced by one segment step,
/// placed where its last member was (convexity keeps the order valid).
fn rebuild(program: &Arc<Program>, segmentation: &Segmentation) -> Result<Program, String> {
    let n = program.steps.len();
    let mut segment_of = vec![usize::MAX; n];
    for (g, members) in segmentation.segments.iter().enumerate() {
        members.iter().for_each(|&s| segment_of[s as usize] = g);
    }
    // Slots read outside their segment, or named outputs: a segment exposes them.
    let mut exposed = vec![false; program.slot_count];
    for (s, step) in program.steps.iter().enumerate() {
        for &slot in step.ins.iter() {
            if let Some(p) = program.step_of_slot(slot) {
                if segment_of[p] != segment_of[s] || segment_of[p] == usize::MAX {
                    exposed[slot as usize] = true;
                }
            }
        }
    }
    program.outputs.iter().for_each(|o| exposed[o.slot as usize] = true);
    let mut module = Module::new()?;
    let mut built: Vec<Option<Built>> = Vec::new();
    let mut pending = Vec::new();
    for members in &segmentation.segments {
        // The segment's buffer: its external input slots, then every member
        // output slot, then the tracker word.
        let member_set: std::collections::HashSet<u32> = members.iter().copied().collect();
        let mut word_of: HashMap<u32, u32> = HashMap::new();
        let mut ext_ins: Vec<u32> = Vec::new();
        for &m in members {
            for &slot in program.steps[m as usize].ins.iter() {
                let inside = program.step_of_slot(slot).is_some_and(|p| member_set.contains(&(p as u32)));
                if !inside && !word_of.contains_key(&slot) {
                    word_of.insert(slot, word_of.len() as u32);
                    ext_ins.push(slot);
                }
            }
        }
        let mut outs: Vec<u32> = Vec::new();
        for &m in members {
            let step = &program.steps[m as usize];
            for k in 0..step.out_count() as u32 {
                let slot = step.out_start + k;
                word_of.insert(slot, word_of.len() as u32);
                if exposed[slot as usize] {
                    outs.push(slot);
                }
            }
        }
        let tracker = word_of.len() as u32;
        let word = |slot: u32| word_of.get(&slot).copied().unwrap_or(NO_ENTRY);
        let (id, emitted) = module.function_over(program, members, &word, Some(tracker))?;
        pending.push((id, emitted.fallible, word_of, ext_ins, outs, tracker));
    }
    let code = Arc::new(module.finish()?);
    for ((id, fallible, word_of, ext_ins, outs, tracker), members) in pending.into_iter().zip(&segmentation.segments) {
        let slot_type = |slot: u32| slot_type(program, slot);
        let members_info = members
            .iter()
            .map(|&m| {
                let step = &program.steps[m as usize];
                Member {
                    node: step.def.reported_name(),
                    eval: step.eval.clone(),
                    feeds: step.feeds.clone(),
                    ins: step.ins.iter().map(|&slot| (word_of[&slot], slot_type(slot))).collect(),
                    in_words: step.ins.iter().map(|&slot| word_of[&slot]).collect(),
                    outs: (word_of[&step.out_start], step.out_count() as u32),
                }
            })
            .collect();
        let segment = Segment {
            function: code.function(id),
            fallible,
            words: tracker as usize + 1,
            tracker,
            in_words: ext_ins.iter().map(|s| word_of[s]).collect(),
            out_words: outs.iter().map(|&s| (word_of[&s], slot_type(s))).collect(),
            members: members_info,
            _code: code.clone(),
        };
        built.push(Some((Arc::new(segment), ext_ins, outs)));
    }
    assemble(program, segmentation, &segment_of, built)
}

/// The type of value slot `slot` of `program`.
fn slot_type(program: &Program, slot: u32) -> PortType {
    match program.step_of_slot(slot) {
        None => program.inputs[slot as usize].ty,
        Some(p) => program.steps[p].out_types[(slot - program.steps[p].out_start) as usize],
    }
}

/// Lays the new program out: interpreted steps as they were, each segment as
/// one step at its last member's place, slots renumbered.
fn assemble(
    program: &Arc<Program>,
    segmentation: &Segmentation,
    segment_of: &[usize],
    mut built: Vec<Option<Built>>,
) -> Result<Program, String> {
    let n_inputs = program.inputs.len() as u32;
    let mut new_slot: Vec<u32> = vec![u32::MAX; program.slot_count];
    (0..n_inputs).for_each(|i| new_slot[i as usize] = i);
    let mut next = n_inputs;
    let mut steps: Vec<Step> = Vec::new();
    let mut provenance: Vec<ProvMask> = Vec::new();
    let map = |slots: &[u32], new_slot: &[u32]| -> Result<Box<[u32]>, String> {
        slots
            .iter()
            .map(|&s| match new_slot[s as usize] {
                u32::MAX => Err(format!("internal: slot {s} read before it is written")),
                v => Ok(v),
            })
            .collect()
    };
    for (s, step) in program.steps.iter().enumerate() {
        let g = segment_of[s];
        if g == usize::MAX {
            let out_start = next;
            for k in 0..step.out_count() as u32 {
                new_slot[(step.out_start + k) as usize] = next;
                next += 1;
            }
            steps.push(Step {
                def: step.def,
                eval: step.eval.clone(),
                consts: step.consts.clone(),
                ins: map(&step.ins, &new_slot)?,
                in_types: step.in_types.clone(),
                out_types: step.out_types.clone(),
                out_start,
                accepts_none: step.accepts_none,
                volatile: step.volatile,
                lifecycle: step.lifecycle,
                capture: step.capture,
                span: step.span,
                feeds: step.feeds.clone(),
            });
            provenance.push(program.provenance[s].clone());
            continue;
        }
        if segmentation.segments[g].last() != Some(&(s as u32)) {
            continue; // the segment's step goes where its last member was
        }
        let Some((segment, ext_ins, outs)) = built[g].take() else {
            return Err("internal: a segment was placed twice".into());
        };
        let out_start = next;
        for &slot in &outs {
            new_slot[slot as usize] = next;
            next += 1;
        }
        let members = &segmentation.segments[g];
        let mut prov = ProvMask::empty(program.inputs.len());
        members.iter().for_each(|&m| prov.union_with(&program.provenance[m as usize]));
        let feeds: Vec<String> =
            members.iter().flat_map(|&m| program.steps[m as usize].feeds.iter().cloned()).collect();
        steps.push(Step {
            def: &SEGMENT,
            eval: segment,
            consts: Vec::new(),
            ins: map(&ext_ins, &new_slot)?,
            in_types: ext_ins.iter().map(|&s| slot_type(program, s)).collect(),
            out_types: outs.iter().map(|&s| slot_type(program, s)).collect(),
            out_start,
            accepts_none: true, // a `None` input runs the members' rules (see the module)
            volatile: false,
            lifecycle: Lifecycle::Dynamic,
            capture: false,
            span: program.steps[members[0] as usize].span,
            feeds,
        });
        provenance.push(prov);
    }
    let outputs: Vec<OutputDef> = program
        .outputs
        .iter()
        .map(|o| {
            let slot = new_slot[o.slot as usize];
            OutputDef { slot, step: None, ..o.clone() }
        })
        .collect();
    let mut segmented = Program::new(
        program.inputs.clone(),
        steps,
        outputs,
        next as usize,
        provenance,
        program.events.clone(),
        program.stats.clone(),
        program.explain.clone(),
    );
    // Each output's step is the step now writing its slot.
    for o in 0..segmented.outputs.len() {
        let slot = segmented.outputs[o].slot;
        segmented.outputs[o].step = segmented.step_of_slot(slot).map(|p| p as u32);
    }
    segmented.selection = program.selection.clone();
    segmented.scope = program.scope.clone();
    Ok(segmented)
}

/// How the mixed engine runs `program`, for `explain`: one sentence, the
/// segments, and why each other step stays interpreted.
pub fn describe(program: &Arc<Program>) -> EnginePlan {
    let mixed = mixed(program);
    let seg = &mixed.segmentation;
    let native: usize = seg.segments.iter().map(Vec::len).sum();
    let mut reasons: Vec<(&'static str, usize)> = Vec::new();
    for why in seg.interpreted.iter().flatten() {
        match reasons.iter_mut().find(|(r, _)| *r == why.reason()) {
            Some((_, count)) => *count += 1,
            None => reasons.push((why.reason(), 1)),
        }
    }
    let counts: Vec<String> = reasons.iter().map(|(r, c)| format!("{c} {r}")).collect();
    let plan = format!(
        "{} native segment(s) of {native} step(s); {} step(s) interpreted{}",
        seg.segments.len(),
        program.steps.len() - native,
        if counts.is_empty() { String::new() } else { format!(" ({})", counts.join("; ")) }
    );
    let interpreted =
        seg.interpreted.iter().enumerate().filter_map(|(s, why)| why.map(|w| (s as u32, w.reason()))).collect();
    EnginePlan {
        running: EngineKind::Mixed.name().to_string(),
        plan,
        native_segments: seg.segments.clone(),
        interpreted,
    }
}
