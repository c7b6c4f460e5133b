//! The immutable compiled program, shared by every kernel (on every thread):
//! steps in evaluation order over one value-slot layout, provenance, output
//! map, and what the compiler did (events, statistics).

pub mod branches;
pub mod events;
pub mod explain;
pub mod lifecycle;
pub mod manifest;
pub mod segmentation;
pub mod selection;

use crate::ir::{InputKind, InputOrigin, Modifier, Span};
use crate::node::{NodeDef, NodeEval};
use crate::provenance::ProvMask;
use crate::types::PortType;
use crate::value::Value;
use branches::Branches;
use events::CompileEvent;
use explain::ExplainData;
use lifecycle::Lifecycle;
use segmentation::Segmentation;
use selection::Selection;
use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// A program input slot.
#[derive(Clone, Debug)]
pub struct InputDef {
    /// The input's name.
    pub name: String,
    /// The input's type.
    pub ty: PortType,
    /// Coordinate or extern.
    pub kind: InputKind,
    /// The value before any write (the zero of its type for a coordinate without default, `None` for an extern without one).
    pub default: Value,
    /// Where the slot comes from: how a scope-init binds it.
    pub origin: InputOrigin,
}

/// Where a column of `generate` comes from: an output, or an input (the swept
/// coordinate's values row by row, or a fixed input's value on every row).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnSource {
    /// Output `o`.
    Output(usize),
    /// Input `i`.
    Input(usize),
}

/// What a program carries for scope chains (set by the compiler).
#[derive(Clone, Debug, Default)]
pub struct ScopeData {
    /// The manifest of the outer scope the program was compiled against.
    pub outer: Option<Arc<manifest::Manifest>>,
    /// Outer literals inlined as constants, by name: a scope binding the
    /// program must provide the same literal.
    pub inlined: Vec<(String, Value)>,
    /// The program's `shared` cells, in input order.
    pub cells: Vec<CellDef>,
}

/// A `shared` binding's cell: its input slot and the output computing its
/// one-time starting value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellDef {
    /// The cell's input slot.
    pub input: usize,
    /// The output of its starting value (`__seed_<name>`), when one is kept.
    pub seed: Option<usize>,
}

impl ScopeData {
    /// True when a kernel of the program must be bound under an outer scope:
    /// it has slots an outer scope or an iteration fills, or inlined outer literals.
    pub fn needs_outer(&self, program: &Program) -> bool {
        !self.inlined.is_empty()
            || program.inputs.iter().any(|i| matches!(i.origin, InputOrigin::Outer | InputOrigin::Iteration))
    }
}

/// A named output: the value slot it reads and the step producing it
/// (`None` when the output passes an input through).
#[derive(Clone, Debug)]
pub struct OutputDef {
    /// The binding's name.
    pub name: String,
    /// The output's type.
    pub ty: PortType,
    /// The value slot the output reads.
    pub slot: u32,
    /// The step producing it (`None`: the output passes an input through).
    pub step: Option<u32>,
    /// The binding's modifiers.
    pub modifiers: Vec<Modifier>,
}

/// One evaluation step (a node) of the program.
pub struct Step {
    /// The library node this step runs.
    pub def: &'static NodeDef,
    /// The built node instance (constants baked in).
    pub eval: Arc<dyn NodeEval>,
    /// The node's construction constants, in parameter order.
    pub consts: Vec<Value>,
    /// Value slots read, in wire order.
    pub ins: Box<[u32]>,
    /// Per wire read: the type it delivers.
    pub in_types: Box<[PortType]>,
    /// Types of the output ports.
    pub out_types: Box<[PortType]>,
    /// First value slot written; outputs are consecutive.
    pub out_start: u32,
    /// Copied from the node definition: the node runs even with `None` inputs.
    pub accepts_none: bool,
    /// Never current: nondeterministic, volatile, or downstream of either.
    pub volatile: bool,
    /// When the step's value is computed (hoisting).
    pub lifecycle: Lifecycle,
    /// The step of a `const` binding: captured once at scope init, and a
    /// boundary for provenance and volatility (writes upstream never dirty it).
    pub capture: bool,
    /// The node's source position.
    pub span: Span,
    /// Names of the outputs this step's ports are bound to (for attribution).
    pub feeds: Vec<String>,
}

impl Step {
    /// Number of output ports.
    pub fn out_count(&self) -> usize {
        self.out_types.len()
    }

    /// The value slots it writes, consecutive from `out_start`.
    pub fn out_slots(&self) -> std::ops::Range<u32> {
        self.out_start..self.out_start + self.out_count() as u32
    }

    /// The step is a scalar step, one rule for every engine: every wire is a
    /// scalar, its node has a slot form over words, and it does not accept
    /// `None`. The compiled engines run it over buffer words (native code or
    /// a closure), and the mixed engine may put it in a native segment;
    /// other steps go through their by-bytes form or the slot kit.
    pub fn is_scalar(&self) -> bool {
        let scalar_wires = self.in_types.iter().chain(self.out_types.iter()).all(|t| !t.is_ref());
        scalar_wires && !self.accepts_none && self.eval.slot_form().is_some()
    }

    /// The step runs its node's by-bytes form on the compiled engines: it is
    /// no scalar step, its one output is by reference, and its node has the
    /// form (which writes the text or bytes in place, no `Value` made).
    pub fn is_by_bytes(&self) -> bool {
        !self.is_scalar() && self.out_types.len() == 1 && self.out_types[0].is_ref() && self.eval.bytes_form().is_some()
    }

    /// This step yields `None` without running, when `is_none` says which
    /// of its input slots hold `None` (the `None` rule, [`crate::node::yields_none`]).
    #[inline]
    pub fn yields_none(&self, is_none: impl Fn(u32) -> bool) -> bool {
        crate::node::yields_none(self.accepts_none, self.ins.iter().map(|&i| is_none(i)))
    }
}

/// Node counts and timings recorded by the compiler.
#[derive(Clone, Debug, Default)]
pub struct CompileStats {
    /// Nodes right after resolution (before adapters and rewrites).
    pub nodes_resolved: usize,
    /// Nodes in the emitted program.
    pub nodes_final: usize,
    /// Wall-clock time of the whole compilation, in microseconds.
    pub compile_micros: u128,
    /// Node Fusion rewrites applied.
    pub fusions: usize,
    /// Nodes expanded by polyfills.
    pub polyfills: usize,
    /// Constant nodes replaced by literals.
    pub folded: usize,
    /// Adapter nodes inserted on wires.
    pub adapters: usize,
}

/// The compiled program.
pub struct Program {
    /// Input slots, coordinates first.
    pub inputs: Vec<InputDef>,
    /// Coordinates are the leading inputs.
    pub coord_count: usize,
    /// The steps, in evaluation order.
    pub steps: Vec<Step>,
    /// The named outputs.
    pub outputs: Vec<OutputDef>,
    /// Total value slots: inputs first, then every step's outputs.
    pub slot_count: usize,
    /// Per step: the inputs it transitively reads.
    pub provenance: Vec<ProvMask>,
    /// Per input: the steps whose provenance contains it, ascending.
    pub input_dependents: Vec<Box<[u32]>>,
    /// Steps that are never current, ascending.
    pub volatile_steps: Box<[u32]>,
    /// The scope-init path, ascending: every step that is not `Dynamic`, plus
    /// what `const` captures read. Run once per kernel, before any per-cycle work.
    pub scope_init_steps: Box<[u32]>,
    /// The per-cycle path, ascending: the `Dynamic` steps (re-run when an input
    /// in their provenance changes; see [`Program::cycle_cone`] per output).
    pub cycle_steps: Box<[u32]>,
    /// Per step: some wire it reads can be `None` (an extern, or a node
    /// that makes `None` ([`NodeDef::makes_none`]), is upstream, through
    /// captures too).
    pub may_read_none: Box<[bool]>,
    /// Who reads each step and on which side of an `if`, when the program
    /// has a chooser step (`None` otherwise): the lazy-branch rule every
    /// engine's walk follows ([`branches`]).
    pub branches: Option<Branches>,
    /// What the compiler did, in pass order.
    pub events: Vec<CompileEvent>,
    /// Node counts and timings.
    pub stats: CompileStats,
    /// What `explain` shows beyond steps and events.
    pub explain: ExplainData,
    /// The engine and mode chosen for the program (the selection stage).
    pub selection: Selection,
    /// The mixed engine's native segments of the program, and why every
    /// other step is not native (the segmentation stage).
    pub segmentation: Segmentation,
    /// What scope chains need: the outer manifest the program was compiled
    /// against, the outer literals inlined into it, its cells.
    pub scope: ScopeData,
    input_index: HashMap<String, u32>,
    output_index: HashMap<String, u32>,
    cache: EngineCache,
    cones: Box<[OnceLock<Box<[u32]>>]>,
    cycle_cones: Box<[OnceLock<Box<[u32]>>]>,
}

impl Program {
    /// Assembles a program; `emit` is the only caller.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        inputs: Vec<InputDef>,
        steps: Vec<Step>,
        outputs: Vec<OutputDef>,
        slot_count: usize,
        provenance: Vec<ProvMask>,
        events: Vec<CompileEvent>,
        stats: CompileStats,
        explain: ExplainData,
    ) -> Program {
        let coord_count = inputs.iter().take_while(|i| i.kind == InputKind::Coordinate).count();
        let mut input_dependents: Vec<Vec<u32>> = vec![Vec::new(); inputs.len()];
        for (s, mask) in provenance.iter().enumerate() {
            for i in mask.iter_ones() {
                input_dependents[i].push(s as u32);
            }
        }
        let volatile_steps = (0..steps.len() as u32).filter(|&s| steps[s as usize].volatile).collect();
        let input_index = inputs.iter().enumerate().map(|(i, d)| (d.name.clone(), i as u32)).collect();
        let output_index = outputs.iter().enumerate().map(|(i, d)| (d.name.clone(), i as u32)).collect();
        let cones = (0..outputs.len()).map(|_| OnceLock::new()).collect();
        let cycle_cones = (0..outputs.len()).map(|_| OnceLock::new()).collect();
        let step_of = |slot: u32| -> Option<usize> {
            if (slot as usize) < inputs.len() {
                return None;
            }
            Some(steps.partition_point(|s| s.out_start <= slot) - 1)
        };
        let mut on_init_path = vec![false; steps.len()];
        for s in (0..steps.len()).rev() {
            on_init_path[s] |= steps[s].lifecycle != Lifecycle::Dynamic;
            if on_init_path[s] {
                for &slot in steps[s].ins.iter() {
                    if let Some(p) = step_of(slot) {
                        on_init_path[p] = true;
                    }
                }
            }
        }
        let scope_init_steps = (0..steps.len() as u32).filter(|&s| on_init_path[s as usize]).collect();
        let branches = Branches::of(&steps, outputs.iter().filter_map(|o| o.step), step_of, &on_init_path);
        let cycle_steps =
            (0..steps.len() as u32).filter(|&s| steps[s as usize].lifecycle == Lifecycle::Dynamic).collect();
        let mut may_read_none = vec![false; steps.len()];
        for s in 0..steps.len() {
            may_read_none[s] = steps[s].ins.iter().any(|&slot| match step_of(slot) {
                None => inputs[slot as usize].kind == InputKind::Extern,
                Some(p) => may_read_none[p] || steps[p].def.makes_none,
            });
        }
        Program {
            inputs,
            coord_count,
            steps,
            outputs,
            slot_count,
            provenance,
            input_dependents: input_dependents.into_iter().map(Vec::into_boxed_slice).collect(),
            volatile_steps,
            scope_init_steps,
            cycle_steps,
            may_read_none: may_read_none.into_boxed_slice(),
            branches,
            events,
            stats,
            explain,
            selection: Selection::default(),
            segmentation: Segmentation::default(),
            scope: ScopeData::default(),
            input_index,
            output_index,
            cache: EngineCache::default(),
            cones,
            cycle_cones,
        }
    }

    /// The program's memo of what engines build from it (plans, native
    /// code): built once, shared by every kernel on every thread.
    pub fn cache(&self) -> &EngineCache {
        &self.cache
    }

    /// Index of the input named `name`.
    pub fn input(&self, name: &str) -> Option<usize> {
        self.input_index.get(name).map(|&i| i as usize)
    }

    /// Index of the output named `name`.
    pub fn output(&self, name: &str) -> Option<usize> {
        self.output_index.get(name).map(|&i| i as usize)
    }

    /// The message for a read of `name`, which is neither an output nor an
    /// input: "did you mean" the closest name, or the outputs there are.
    pub fn unknown_name(&self, name: &str) -> String {
        let names = self.outputs.iter().map(|o| o.name.as_str()).chain(self.inputs.iter().map(|i| i.name.as_str()));
        match crate::suggest::did_you_mean(name, names) {
            Some(hint) => format!("no output named '{name}'; {hint}"),
            None => {
                let known: Vec<&str> =
                    self.outputs.iter().map(|o| o.name.as_str()).filter(|n| !n.starts_with("__")).collect();
                format!("no output named '{name}'; outputs are: {}", known.join(", "))
            }
        }
    }

    /// What column `name` selects in `generate`: an output, else an input
    /// (its values row by row); the error is [`Program::unknown_name`].
    pub fn column_source(&self, name: &str) -> Result<ColumnSource, String> {
        self.output(name)
            .map(ColumnSource::Output)
            .or_else(|| self.input(name).map(ColumnSource::Input))
            .ok_or_else(|| self.unknown_name(name))
    }

    /// Input names, coordinates first.
    pub fn input_names(&self) -> Vec<String> {
        self.inputs.iter().map(|i| i.name.clone()).collect()
    }

    /// The steps output `out` needs, in evaluation order (computed once, on first use).
    pub fn cone(&self, out: usize) -> &[u32] {
        self.cones[out].get_or_init(|| match self.outputs[out].step {
            None => Box::new([]),
            Some(root) => self.cone_of_step(root as usize).into_boxed_slice(),
        })
    }

    /// The per-cycle part of output `out`'s cone, in evaluation order: its
    /// `Dynamic` steps reachable without crossing a scope-init step. Valid once
    /// the scope-init path has run (scope-init steps are then current forever).
    pub fn cycle_cone(&self, out: usize) -> &[u32] {
        self.cycle_cones[out].get_or_init(|| match self.outputs[out].step {
            None => Box::new([]),
            Some(root) => {
                let dynamic = |s: usize| self.steps[s].lifecycle == Lifecycle::Dynamic;
                match dynamic(root as usize) {
                    true => self.reach(root as usize, dynamic).into_boxed_slice(),
                    false => Box::new([]),
                }
            }
        })
    }

    /// Per column source: whether a row of it can hold `None`, when input
    /// `i` can only if `input_none[i]`. A node yields `None` from a `None`
    /// it reads (the `None` rule; a node taking `None` hands one on or
    /// fails) or, if it makes `None` ([`NodeDef::makes_none`]: `maybe`), by
    /// its own rule, so a value can be `None` only downstream of an input
    /// that can be or of such a node.
    pub fn may_be_none(&self, input_none: &[bool], sources: &[ColumnSource]) -> Vec<bool> {
        let mut none = vec![false; self.slot_count];
        for (slot, &n) in none.iter_mut().zip(input_none) {
            *slot = n;
        }
        for step in &self.steps {
            let read = step.def.makes_none || step.ins.iter().any(|&s| none[s as usize]);
            let start = step.out_start as usize;
            none[start..start + step.out_types.len()].iter_mut().for_each(|n| *n = read);
        }
        sources
            .iter()
            .map(|s| match *s {
                ColumnSource::Output(o) => none[self.outputs[o].slot as usize],
                ColumnSource::Input(i) => none[i],
            })
            .collect()
    }

    /// How many outputs' cycle cones have been built so far (they are built
    /// on first use: a test checks that a wide read builds none).
    #[cfg(test)]
    pub(crate) fn cycle_cones_built(&self) -> usize {
        self.cycle_cones.iter().filter(|c| c.get().is_some()).count()
    }

    /// Per step: it lies in the per-cycle cone ([`Program::cycle_cone`]) of
    /// one of the outputs `outs`. One walk for them all, keeping no cone:
    /// the outputs of a chain of n steps have cones of n²/2 steps in all.
    pub fn in_cycle_cones(&self, outs: &[usize]) -> Vec<bool> {
        let dynamic = |s: usize| self.steps[s].lifecycle == Lifecycle::Dynamic;
        let mut seen = vec![false; self.steps.len()];
        let mut todo = Vec::new();
        for root in outs.iter().filter_map(|&o| self.outputs[o].step).map(|s| s as usize) {
            if dynamic(root) && !std::mem::replace(&mut seen[root], true) {
                todo.push(root);
            }
        }
        while let Some(s) = todo.pop() {
            for &slot in self.steps[s].ins.iter() {
                if let Some(p) = self.step_of_slot(slot) {
                    if dynamic(p) && !std::mem::replace(&mut seen[p], true) {
                        todo.push(p);
                    }
                }
            }
        }
        seen
    }

    /// The size of the largest output cone, in steps. Only the cones of sink
    /// outputs (whose step no step reads) are walked, and none is kept: every
    /// other step lies in the cone of a step that reads it, so the largest
    /// cone is a sink's, and a chain of n outputs costs one walk, not n.
    pub fn max_cone_len(&self) -> usize {
        let mut read = vec![false; self.steps.len()];
        for step in &self.steps {
            for &slot in step.ins.iter() {
                if let Some(p) = self.step_of_slot(slot) {
                    read[p] = true;
                }
            }
        }
        let mut sinks: Vec<usize> =
            self.outputs.iter().filter_map(|o| o.step).map(|s| s as usize).filter(|&s| !read[s]).collect();
        sinks.sort_unstable();
        sinks.dedup();
        sinks.into_iter().map(|s| self.reach(s, |_| true).len()).max().unwrap_or(0)
    }

    /// Per input: whether the columns `sources` ask for read it: an input
    /// column itself, or an input in an output's cone (through every step
    /// the output needs) or on the scope-init path, which every kernel runs
    /// whole before its first row. One walk over the union of the cones.
    pub fn inputs_read(&self, sources: &[ColumnSource]) -> Vec<bool> {
        let mut read = vec![false; self.inputs.len()];
        let mut seen = vec![false; self.steps.len()];
        let mut slots: Vec<u32> = Vec::new();
        for source in sources {
            match *source {
                ColumnSource::Input(i) => read[i] = true,
                ColumnSource::Output(o) => slots.push(self.outputs[o].slot),
            }
        }
        for &s in self.scope_init_steps.iter() {
            slots.extend(self.steps[s as usize].ins.iter());
        }
        while let Some(slot) = slots.pop() {
            match self.step_of_slot(slot) {
                None => read[slot as usize] = true,
                Some(s) if !seen[s] => {
                    seen[s] = true;
                    slots.extend(self.steps[s].ins.iter());
                }
                Some(_) => {}
            }
        }
        read
    }

    /// The steps step `root` transitively reads, itself included, ascending.
    pub fn cone_of_step(&self, root: usize) -> Vec<u32> {
        self.reach(root, |_| true)
    }

    /// The steps reachable from step `root` through the steps each reads,
    /// entering only steps for which `through` holds (`root` included),
    /// ascending. Visits the cone only, so reading every output of a wide
    /// program stays linear in the cones' sizes.
    fn reach(&self, root: usize, through: impl Fn(usize) -> bool) -> Vec<u32> {
        let mut seen = std::collections::HashSet::from([root]);
        let mut todo = vec![root];
        while let Some(s) = todo.pop() {
            for &slot in self.steps[s].ins.iter() {
                if let Some(p) = self.step_of_slot(slot) {
                    if through(p) && seen.insert(p) {
                        todo.push(p);
                    }
                }
            }
        }
        let mut cone: Vec<u32> = seen.into_iter().map(|s| s as u32).collect();
        cone.sort_unstable();
        cone
    }

    /// The step that writes value slot `slot` (`None` for input slots).
    pub fn step_of_slot(&self, slot: u32) -> Option<usize> {
        if (slot as usize) < self.inputs.len() {
            return None;
        }
        let i = self.steps.partition_point(|s| s.out_start <= slot);
        Some(i - 1)
    }

    /// The slot word of value slot `slot` when a literal writes it: a scalar
    /// known at compile time, which native code may take as a constant
    /// instead of reading the buffer.
    pub fn literal_word(&self, slot: u32) -> Option<u64> {
        let step = &self.steps[self.step_of_slot(slot)?];
        if step.def.name != crate::nodes::convert::LITERAL_OP {
            return None;
        }
        crate::node::kit::value_to_slot(step.consts.first()?)
    }

    /// True if no step is volatile: no nondeterministic node and no `volatile` binding.
    pub fn is_deterministic(&self) -> bool {
        self.volatile_steps.is_empty()
    }
}

/// A program's memo of engine-built forms, one per type (a P2 plan, P3's
/// native code): each is built at the first kernel that needs it and shared
/// by every later one.
#[derive(Default)]
pub struct EngineCache {
    built: Mutex<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>,
}

impl EngineCache {
    /// The form of type `T`, built by `build` the first time it is asked for.
    pub fn get_or_init<T: Any + Send + Sync>(&self, build: impl FnOnce() -> T) -> Arc<T> {
        let mut built = self.built.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let entry = built.entry(TypeId::of::<T>()).or_insert_with(|| Arc::new(build()));
        match entry.clone().downcast::<T>() {
            Ok(form) => form,
            Err(_) => unreachable!("the cache is keyed by type"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::compile_sketch;

    fn build(src: &str) -> Program {
        compile_sketch(&format!("input x: u64\n{src}"))
    }

    #[test]
    fn a_value_can_be_none_only_downstream_of_an_input_that_can() {
        use ColumnSource::{Input, Output};
        let p = build("extern e: u64\nkept := add(x, 1)\nmixed := select_str(u64_and(x, 1), one_of(e, \"a\"), \"b\")\nany := default_or(e, x)");
        let out = |name: &str| Output(p.outputs.iter().position(|o| o.name == name).unwrap());
        let sources = [out("kept"), out("mixed"), out("any"), Input(0), Input(1)];
        assert_eq!(p.may_be_none(&[false, false], &sources), [false, false, false, false, false]);
        assert_eq!(p.may_be_none(&[false, true], &sources), [false, true, true, false, true]);
    }

    #[test]
    fn a_node_that_makes_none_can_be_none_and_so_can_what_reads_it() {
        use ColumnSource::Output;
        let p = build(
            "dropped := maybe(x, 0.5, x)
after := add(dropped, 1)
kept := add(x, 1)",
        );
        let out = |name: &str| Output(p.outputs.iter().position(|o| o.name == name).unwrap());
        assert_eq!(p.may_be_none(&[false], &[out("dropped"), out("after"), out("kept")]), [true, true, false]);
        let reads =
            |name: &str| p.may_read_none[p.outputs.iter().find(|o| o.name == name).unwrap().step.unwrap() as usize];
        assert!(reads("after") && !reads("kept"), "a step downstream of maybe checks for None");
    }
}
