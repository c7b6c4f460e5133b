//! Scope chains: the binder (Context Fusion), the same for every engine.
//!
//! A [`Scope`] is one kernel in a parent/child tree, shareable across
//! threads. Binding a program under an outer scope walks every input slot of
//! the program once, at scope-init, and fills it by the binding gradient
//! (the form the outer scope's manifest gives the name, see
//! [`crate::program::manifest`]):
//!
//! * an outer literal was inlined when the program was compiled (the binder
//!   only checks the outer scope still has that literal);
//! * an outer `const`, input or iteration variable is copied into the slot;
//! * an outer computed output is read live: before each read the child asks
//!   the outer scope for the current value of each live slot the read needs
//!   (the outputs' provenance, and the scope-init path's when it is to run
//!   again), and rewrites its slot when it moved — a failing outer output
//!   fails only the reads that need it;
//! * a `shared` binding is a [`Cell`]: every scope holding it sees every
//!   write (last write wins), and a write invalidates their readers;
//! * the cells a child does not use pass through it (transit) to deeper scopes;
//! * an iteration variable takes its tuple's value;
//! * coordinates are never bound.
//!
//! Every copy goes through the boundary adapter catalog (a value the slot's
//! type refuses is a [`BindError::FromOuter`]; an outer value that fails
//! when it is first read, at binding, a [`BindError::OuterValue`]). Then the child's scope-init
//! runs: its consts are evaluated once, from the bound values, and its own
//! cells get their starting values. Nothing is re-bound later; per cycle,
//! only the live slots and cells are refreshed, and only when the tree's
//! epoch says something moved (one atomic load otherwise): the cells then,
//! the live slots as reads need them.
//!
//! [`ScopedKernel`] is the kernel of a scope: any engine's kernel plus its
//! bindings. It implements [`Kernel`], so every engine gets scope chains the
//! same way, from this one place.

use super::cell::{Cell, Tree};
use crate::columns::ColumnPart;
use crate::engine::kernel::RowRuns;
use crate::engine::{adapt_boundary, new_kernel, GenerateError, Kernel, RowFill, RowFiller};
use crate::error::{BindError, EvalError, WriteError};
use crate::ir::{InputKind, InputOrigin};
use crate::program::manifest::{self, Form, Manifest};
use crate::program::selection::EngineKind;
use crate::program::Program;
use crate::value::Value;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

/// One scope of a tree: a kernel and the bindings that tie it to its outer
/// scope. Shared by handle (`Arc`): the children bound under it, and the
/// host, reach its kernel through a lock.
pub struct Scope {
    kernel: Mutex<ScopedKernel>,
    program: Arc<Program>,
    kind: EngineKind,
    outer: Option<Arc<Scope>>,
    /// The cells visible here, by name: this scope's own cell slots, then
    /// the outer scope's cells that no name of this scope shadows.
    cells: Vec<(String, Arc<Cell>)>,
    /// The names among `cells` this scope only passes through.
    transit: Vec<String>,
    iteration: Vec<(String, Value)>,
    tree: Arc<Tree>,
    /// A child reads an output of this scope live (writes here advance the epoch).
    observed: Arc<AtomicBool>,
}

impl std::fmt::Debug for Scope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scope").field("kind", &self.kind).field("iteration", &self.iteration).finish()
    }
}

/// Where an outer scope's value of a name comes from.
enum Source {
    /// A shared cell.
    Cell(Arc<Cell>),
    /// Output `usize` of a scope, with its form and volatility.
    Output(Arc<Scope>, usize, Form, bool),
    /// Input `usize` of a scope (an extern or an iteration variable).
    Input(Arc<Scope>, usize),
    /// A coordinate of a scope, never bound.
    Coordinate(Arc<Scope>, usize),
}

impl Scope {
    /// A root scope: a kernel of `program` on engine `kind`, with cells of
    /// its own for its `shared` bindings. Refused for a program that reads
    /// names from an outer scope.
    pub fn root(program: &Arc<Program>, kind: EngineKind) -> Result<Arc<Scope>, BindError> {
        if program.scope.needs_outer(program) {
            let mut names: Vec<String> = program
                .inputs
                .iter()
                .filter(|i| matches!(i.origin, InputOrigin::Outer | InputOrigin::Iteration))
                .map(|i| i.name.clone())
                .collect();
            names.extend(program.scope.inlined.iter().map(|(n, _)| n.clone()));
            return Err(BindError::NeedsOuter { names });
        }
        let tree = Tree::new();
        let kernel = ScopedKernel::root(program, kind, &tree);
        let cells = kernel.cells.iter().map(|c| (c.cell.name().to_string(), c.cell.clone())).collect();
        let observed = kernel.observed.clone();
        Ok(Arc::new(Scope {
            kernel: Mutex::new(kernel),
            program: program.clone(),
            kind,
            outer: None,
            cells,
            transit: Vec::new(),
            iteration: Vec::new(),
            tree,
            observed,
        }))
    }

    /// Binds a kernel of `program` on engine `kind` under `outer` (see the
    /// module), with `iteration` giving the iteration variables' values, and
    /// runs its scope-init.
    pub fn bind(
        program: &Arc<Program>,
        kind: EngineKind,
        outer: &Arc<Scope>,
        iteration: Vec<(String, Value)>,
    ) -> Result<Arc<Scope>, BindError> {
        let (kernel, cells, transit) = bind_kernel(program, kind, outer, &iteration)?;
        let observed = kernel.observed.clone();
        Ok(Arc::new(Scope {
            kernel: Mutex::new(kernel),
            program: program.clone(),
            kind,
            outer: Some(outer.clone()),
            cells,
            transit,
            iteration,
            tree: outer.tree.clone(),
            observed,
        }))
    }

    /// The scope's kernel, locked (use it from one thread at a time).
    pub fn lock(&self) -> MutexGuard<'_, ScopedKernel> {
        self.kernel.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The program the scope runs.
    pub fn program(&self) -> &Arc<Program> {
        &self.program
    }

    /// The engine the scope's kernel runs on.
    pub fn kind(&self) -> EngineKind {
        self.kind
    }

    /// The outer scope (`None` for a root).
    pub fn outer(&self) -> Option<&Arc<Scope>> {
        self.outer.as_ref()
    }

    /// The iteration values the scope was bound with.
    pub fn iteration(&self) -> &[(String, Value)] {
        &self.iteration
    }

    /// The names of the cells visible here (its own cell slots and transit cells).
    pub fn cell_names(&self) -> Vec<String> {
        self.cells.iter().map(|(n, _)| n.clone()).collect()
    }

    /// The cells this scope passes through without a slot of its own.
    pub fn transit(&self) -> &[String] {
        &self.transit
    }

    /// The scope's manifest: what a program compiled against it may read.
    pub fn manifest(&self) -> Manifest {
        let outer = self.outer.as_ref().map(|o| o.manifest());
        Manifest::chain(manifest::own_entries(&self.program), outer.as_ref())
    }

    /// The current value of `name` as this scope sees it: its own output or
    /// input, else the nearest outer scope's binding (`None` when no scope
    /// of the chain binds the name).
    pub fn value_of(self: &Arc<Self>, name: &str) -> Result<Option<Value>, EvalError> {
        Ok(match self.resolve(name) {
            None => None,
            Some(Source::Cell(cell)) => Some(cell.get().0),
            Some(Source::Output(scope, o, _, _)) => Some(scope.lock().pull(o)?),
            Some(Source::Input(scope, i)) | Some(Source::Coordinate(scope, i)) => Some(scope.lock().input_value(i)),
        })
    }

    /// Where the binding of `name` nearest to this scope comes from.
    fn resolve(self: &Arc<Self>, name: &str) -> Option<Source> {
        if let Some((_, cell)) = self.cells.iter().find(|(n, _)| n == name) {
            return Some(Source::Cell(cell.clone()));
        }
        if name.starts_with("__") {
            return None;
        }
        let mut scope = self.clone();
        loop {
            let program = &scope.program;
            if let Some(o) = program.output(name) {
                let (form, volatile) = manifest::output_form(program, o);
                return match form {
                    Form::Coordinate => program.input(name).map(|i| Source::Coordinate(scope.clone(), i)),
                    // A cell not in the view was shadowed on the way: the nearest binding is the cell's slot.
                    Form::Cell => scope.cells.iter().find(|(n, _)| n == name).map(|(_, c)| Source::Cell(c.clone())),
                    form => Some(Source::Output(scope.clone(), o, form, volatile)),
                };
            }
            if let Some(i) = program.input(name) {
                return Some(match manifest::input_form(program, i) {
                    Form::Coordinate => Source::Coordinate(scope.clone(), i),
                    _ => Source::Input(scope.clone(), i),
                });
            }
            scope = scope.outer.clone()?;
        }
    }

    /// Every scope from this one to the root.
    fn chain(self: &Arc<Self>) -> Vec<Arc<Scope>> {
        let mut chain = vec![self.clone()];
        while let Some(outer) = chain.last().and_then(|s| s.outer.clone()) {
            chain.push(outer);
        }
        chain
    }
}

/// How a scoped kernel's input slot is filled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    /// The kernel's own: a coordinate, or an extern the host writes.
    Own,
    /// Copied from the outer scope at scope-init.
    Copied,
    /// Read live from an outer scope: index into `live`.
    Live(usize),
    /// Backed by a shared cell: index into `cells`.
    Cell(usize),
    /// An iteration variable, from the activation's tuple.
    Iteration,
}

/// A slot read live from an outer scope's output.
#[derive(Clone)]
struct LiveSlot {
    input: usize,
    source: Arc<Scope>,
    output: usize,
}

/// Which live slots (indices into [`ScopedKernel::live`]) each read needs:
/// per output, those its value depends on (its provenance: a `const`
/// capture reads its upstream at scope-init only), found at the output's
/// first read; and those the scope-init path reads. Shared by a scope's
/// kernels (the same program, the same live slots).
struct LiveNeeds {
    outputs: Box<[OnceLock<Box<[usize]>>]>,
    init: OnceLock<Box<[usize]>>,
}

impl LiveNeeds {
    fn new(program: &Program) -> LiveNeeds {
        LiveNeeds { outputs: program.outputs.iter().map(|_| OnceLock::new()).collect(), init: OnceLock::new() }
    }

    /// The live slots output `out` reads.
    fn of_output(&self, program: &Program, live: &[LiveSlot], out: usize) -> &[usize] {
        self.outputs[out].get_or_init(|| {
            let def = &program.outputs[out];
            let reads = |input: usize| match def.step {
                Some(s) => program.provenance[s as usize].contains(input),
                None => def.slot as usize == input,
            };
            (0..live.len()).filter(|&k| reads(live[k].input)).collect()
        })
    }

    /// The live slots the scope-init path reads.
    fn of_init(&self, program: &Program, live: &[LiveSlot]) -> &[usize] {
        self.init.get_or_init(|| {
            let n = program.inputs.len();
            let mut read = vec![false; n];
            for &s in program.scope_init_steps.iter() {
                let ins = program.steps[s as usize].ins.iter();
                ins.filter(|&&i| (i as usize) < n).for_each(|&i| read[i as usize] = true);
            }
            (0..live.len()).filter(|&k| read[live[k].input]).collect()
        })
    }
}

/// What a read of a scoped kernel brings up to date (see [`ScopedKernel::sync`]).
#[derive(Clone, Copy)]
enum Reading<'a> {
    /// These outputs.
    Outputs(&'a [usize]),
    /// The scope-init path only.
    Init,
    /// Every output.
    Everything,
}

/// A slot backed by a cell.
#[derive(Clone)]
struct CellSlot {
    input: usize,
    cell: Arc<Cell>,
    /// The cell revision the slot holds.
    seen: u64,
    /// This scope created the cell: it publishes the starting value.
    own: bool,
    /// The output of the starting value.
    seed: Option<usize>,
}

/// The kernel of a scope: an engine kernel and its bindings (see the module).
pub struct ScopedKernel {
    inner: Box<dyn Kernel>,
    program: Arc<Program>,
    kind: EngineKind,
    slots: Box<[Slot]>,
    live: Vec<LiveSlot>,
    /// Per live slot: the outer value may have moved since the slot took it.
    stale: Vec<bool>,
    /// How many of `stale` are true.
    stale_count: usize,
    needs: Arc<LiveNeeds>,
    /// The inner kernel's scope-init path is still to run (a new kernel, or
    /// after `invalidate_all`): a read also needs the live slots it reads.
    init_pending: bool,
    cells: Vec<CellSlot>,
    /// The own cells' starting values have been published.
    seeded: bool,
    tree: Arc<Tree>,
    /// The epoch the bindings last caught up with.
    seen_epoch: u64,
    /// Some live source changes on every read: refresh before every read.
    always: bool,
    observed: Arc<AtomicBool>,
}

impl std::fmt::Debug for ScopedKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScopedKernel").field("kind", &self.kind).field("slots", &self.slots).finish()
    }
}

/// Binds a kernel of `program` under `outer` (the synthesis act); returns it
/// with the cells visible in the new scope and the transit names.
#[allow(clippy::type_complexity)]
fn bind_kernel(
    program: &Arc<Program>,
    kind: EngineKind,
    outer: &Arc<Scope>,
    iteration: &[(String, Value)],
) -> Result<(ScopedKernel, Vec<(String, Arc<Cell>)>, Vec<String>), BindError> {
    // What the child reads must be ready: every scope up the chain has run its
    // scope-init and published its cells' starting values.
    for scope in outer.chain().iter().rev() {
        scope.lock().start().map_err(BindError::Init)?;
    }
    let tree = outer.tree.clone();
    let seen_epoch = tree.epoch();
    let mut inner = new_kernel(program, kind);
    let n = program.inputs.len();
    let mut slots = vec![Slot::Own; n];
    let mut live = Vec::new();
    let mut cells: Vec<CellSlot> = Vec::new();
    let mut always = false;
    for (name, _) in iteration {
        if program.input(name).is_none_or(|i| program.inputs[i].origin != InputOrigin::Iteration) {
            return Err(BindError::Iteration {
                name: name.clone(),
                reason: "the program has no iteration variable of that name".into(),
            });
        }
    }
    let copy = |inner: &mut Box<dyn Kernel>, i: usize, value: Value| -> Result<(), BindError> {
        inner.write(i, value).map_err(|e| match e {
            WriteError::TypeMismatch { slot, expected, got } => BindError::FromOuter { slot, expected, got },
            other => BindError::FromOuter {
                slot: program.inputs[i].name.clone(),
                expected: program.inputs[i].ty,
                got: other.to_string(),
            },
        })
    };
    for (i, def) in program.inputs.iter().enumerate() {
        if def.kind == InputKind::Coordinate {
            continue;
        }
        let name = def.name.as_str();
        if def.origin == InputOrigin::Iteration {
            let Some((_, value)) = iteration.iter().find(|(n, _)| n == name) else {
                return Err(BindError::Iteration { name: name.into(), reason: "no value was given for it".into() });
            };
            copy(&mut inner, i, value.clone())?;
            slots[i] = Slot::Iteration;
            continue;
        }
        let source = match def.origin {
            // A `shared` binding joins the outer scope's cell of its name, if any.
            InputOrigin::Cell => outer.cells.iter().find(|(n, _)| n == name).map(|(_, c)| Source::Cell(c.clone())),
            _ => outer.resolve(name),
        };
        match source {
            Some(Source::Cell(cell)) => {
                if cell.ty() != def.ty {
                    return Err(BindError::CellType { name: name.into(), cell: cell.ty(), slot: def.ty });
                }
                let (value, seen) = cell.get();
                if seen > 0 {
                    copy(&mut inner, i, value)?;
                }
                let seed = program.scope.cells.iter().find(|c| c.input == i).and_then(|c| c.seed);
                slots[i] = Slot::Cell(cells.len());
                cells.push(CellSlot { input: i, cell, seen, own: false, seed });
            }
            Some(Source::Output(scope, o, form, volatile)) => {
                let value = scope
                    .lock()
                    .pull(o)
                    .map_err(|error| BindError::OuterValue { name: name.into(), error: Box::new(error) })?;
                copy(&mut inner, i, value)?;
                if form == Form::Live {
                    scope.observed.store(true, Ordering::Release);
                    always |= volatile;
                    slots[i] = Slot::Live(live.len());
                    live.push(LiveSlot { input: i, source: scope, output: o });
                } else {
                    slots[i] = Slot::Copied;
                }
            }
            Some(Source::Input(scope, j)) => {
                let value = scope.lock().input_value(j);
                if !value.is_none() {
                    copy(&mut inner, i, value)?;
                }
                slots[i] = Slot::Copied;
            }
            Some(Source::Coordinate(..)) | None => match def.origin {
                InputOrigin::Cell => {
                    let seed = program.scope.cells.iter().find(|c| c.input == i).and_then(|c| c.seed);
                    slots[i] = Slot::Cell(cells.len());
                    cells.push(CellSlot { input: i, cell: Cell::new(name, def.ty, &tree), seen: 0, own: true, seed });
                }
                InputOrigin::Outer => {
                    let names: Vec<String> = outer.manifest().names().map(str::to_string).collect();
                    let hint = crate::suggest::did_you_mean(name, names.iter().map(String::as_str))
                        .unwrap_or_else(|| format!("it provides: {}", names.join(", ")));
                    return Err(BindError::Unbound { name: name.into(), hint });
                }
                // A declared extern nobody provides keeps its default.
                _ => {}
            },
        }
    }
    for (name, value) in &program.scope.inlined {
        let now = match outer.resolve(name) {
            Some(Source::Output(_, _, Form::Literal(c), _)) => {
                let v = c.to_value();
                if v.same(value) {
                    continue;
                }
                format!("it was the literal {} and is now the literal {}", value.display_text(), v.display_text())
            }
            Some(_) => format!("it was the literal {}, and is no literal here", value.display_text()),
            None => format!("it was the literal {}, and this outer scope does not bind it", value.display_text()),
        };
        return Err(BindError::Stale { name: name.clone(), reason: now });
    }
    // The view: own cell slots, then the outer cells no name of this scope shadows.
    let mut view: Vec<(String, Arc<Cell>)> =
        cells.iter().map(|c| (c.cell.name().to_string(), c.cell.clone())).collect();
    let mut transit = Vec::new();
    for (name, cell) in &outer.cells {
        let shadowed = program.output(name).is_some() || program.input(name).is_some();
        if !shadowed {
            view.push((name.clone(), cell.clone()));
            transit.push(name.clone());
        }
    }
    let mut kernel = ScopedKernel {
        inner,
        program: program.clone(),
        kind,
        slots: slots.into_boxed_slice(),
        stale: vec![false; live.len()],
        stale_count: 0,
        needs: Arc::new(LiveNeeds::new(program)),
        init_pending: true,
        live,
        cells,
        seeded: false,
        tree,
        seen_epoch,
        always,
        observed: Arc::new(AtomicBool::new(false)),
    };
    kernel.start().map_err(BindError::Init)?;
    Ok((kernel, view, transit))
}

impl ScopedKernel {
    /// The kernel of a root scope of `tree`: every slot its own, and a new
    /// cell for each `shared` binding.
    pub fn root(program: &Arc<Program>, kind: EngineKind, tree: &Arc<Tree>) -> ScopedKernel {
        let mut slots = vec![Slot::Own; program.inputs.len()];
        let mut cells = Vec::new();
        for def in &program.scope.cells {
            let input = &program.inputs[def.input];
            slots[def.input] = Slot::Cell(cells.len());
            let cell = Cell::new(&input.name, input.ty, tree);
            cells.push(CellSlot { input: def.input, cell, seen: 0, own: true, seed: def.seed });
        }
        ScopedKernel {
            inner: new_kernel(program, kind),
            program: program.clone(),
            kind,
            slots: slots.into_boxed_slice(),
            live: Vec::new(),
            stale: Vec::new(),
            stale_count: 0,
            needs: Arc::new(LiveNeeds::new(program)),
            init_pending: true,
            cells,
            seeded: false,
            tree: tree.clone(),
            seen_epoch: tree.epoch(),
            always: false,
            observed: Arc::new(AtomicBool::new(false)),
        }
    }

    /// A kernel of the same scope for another thread: the same bindings
    /// (the same outer scopes, the same cells), the current input values,
    /// its own state.
    pub fn sibling(&self) -> ScopedKernel {
        let mut inner = new_kernel(&self.program, self.kind);
        for (i, def) in self.program.inputs.iter().enumerate() {
            let value = self.inner.input_value(i);
            if !value.is_none() || def.kind == InputKind::Extern {
                let _ = inner.write(i, value);
            }
        }
        ScopedKernel {
            inner,
            program: self.program.clone(),
            kind: self.kind,
            slots: self.slots.clone(),
            live: self.live.clone(),
            stale: self.stale.clone(),
            stale_count: self.stale_count,
            needs: self.needs.clone(),
            init_pending: true,
            cells: self.cells.clone(),
            seeded: self.seeded,
            tree: self.tree.clone(),
            seen_epoch: self.seen_epoch,
            always: self.always,
            observed: Arc::new(AtomicBool::new(false)),
        }
    }

    /// The engine the kernel runs on.
    pub fn kind(&self) -> EngineKind {
        self.kind
    }

    /// True for an input the binder fills (copied, live, a cell or an
    /// iteration variable) rather than the host.
    pub fn is_bound(&self, input: usize) -> bool {
        self.slots[input] != Slot::Own
    }

    /// How input `input` is bound: `own`, `copied`, `live`, `cell` or `iteration`.
    pub fn binding(&self, input: usize) -> &'static str {
        match self.slots[input] {
            Slot::Own => "own",
            Slot::Copied => "copied",
            Slot::Live(_) => "live",
            Slot::Cell(_) => "cell",
            Slot::Iteration => "iteration",
        }
    }

    /// Brings the bindings up to date before `reading`: publishes the own
    /// cells' starting values once; when the tree's epoch moved since the
    /// last time, takes every cell's latest write and marks every live slot
    /// stale; then takes the current outer value of each stale live slot the
    /// read needs (so an outer output that fails fails only the reads that
    /// need it; the others stay stale until a read needs them).
    #[inline]
    fn sync(&mut self, reading: Reading<'_>) -> Result<(), EvalError> {
        if !self.seeded {
            self.seed()?;
        }
        if self.live.is_empty() && self.cells.is_empty() {
            return Ok(());
        }
        let epoch = self.tree.epoch();
        if epoch != self.seen_epoch || self.always {
            self.take_cells()?;
            self.stale.iter_mut().for_each(|s| *s = true);
            self.stale_count = self.live.len();
            self.seen_epoch = epoch;
        }
        if self.stale_count > 0 {
            self.take_live(reading)?;
        }
        self.init_pending = false;
        Ok(())
    }

    /// Publishes the starting value of every cell this scope created and
    /// nobody has written yet (its `__seed_` output, computed at scope-init).
    #[cold]
    fn seed(&mut self) -> Result<(), EvalError> {
        for k in 0..self.cells.len() {
            let slot = &self.cells[k];
            if !slot.own || slot.cell.revision() != 0 {
                continue;
            }
            let Some(seed) = slot.seed else { continue };
            let value = self.inner.pull(seed)?;
            if value.is_none() {
                continue;
            }
            let slot = &self.cells[k];
            let (value, revision) = slot.cell.seed(value).map_err(|e| binding_error(slot.cell.name(), &e))?;
            self.inner.write(slot.input, value).map_err(|e| binding_error(slot.cell.name(), &e))?;
            self.cells[k].seen = revision;
        }
        self.seeded = true;
        Ok(())
    }

    /// Takes every cell's latest write.
    #[cold]
    #[inline(never)]
    fn take_cells(&mut self) -> Result<(), EvalError> {
        for slot in &mut self.cells {
            if slot.cell.revision() == slot.seen {
                continue;
            }
            let (value, revision) = slot.cell.get();
            if revision > 0 && !value.is_none() {
                self.inner.write(slot.input, value).map_err(|e| binding_error(slot.cell.name(), &e))?;
            }
            slot.seen = revision;
        }
        Ok(())
    }

    /// Takes the current outer value of every stale live slot `reading`
    /// needs (and those the scope-init path reads, when it is to run).
    #[cold]
    #[inline(never)]
    fn take_live(&mut self, reading: Reading<'_>) -> Result<(), EvalError> {
        let needs = self.needs.clone();
        let (program, live) = (&*self.program, &self.live[..]);
        if self.init_pending {
            needs.of_init(program, live).iter().try_for_each(|&k| self.take_live_slot(k))?;
        }
        match reading {
            Reading::Outputs(outs) => {
                for &out in outs {
                    needs.of_output(&self.program, &self.live, out).iter().try_for_each(|&k| self.take_live_slot(k))?;
                }
                Ok(())
            }
            Reading::Init => needs.of_init(&self.program, &self.live).iter().try_for_each(|&k| self.take_live_slot(k)),
            Reading::Everything => (0..self.live.len()).try_for_each(|k| self.take_live_slot(k)),
        }
    }

    /// Takes the current outer value of live slot `k` if it is stale.
    fn take_live_slot(&mut self, k: usize) -> Result<(), EvalError> {
        if !self.stale[k] {
            return Ok(());
        }
        let slot = &self.live[k];
        let value = slot.source.lock().pull(slot.output)?;
        let def = &self.program.inputs[slot.input];
        let value = adapt_boundary(&def.name, def.ty, value).map_err(|e| binding_error(&def.name, &e))?;
        if !self.inner.input_value(slot.input).same(&value) {
            self.inner.write(slot.input, value).map_err(|e| binding_error(&def.name, &e))?;
        }
        self.stale[k] = false;
        self.stale_count -= 1;
        Ok(())
    }

    /// A write into this kernel that children reading it live must see.
    #[inline]
    fn wrote(&self) {
        note_write(&self.observed, &self.tree);
    }
}

/// A binding that failed while refreshing, as an evaluation error naming the slot.
fn binding_error(name: &str, e: &WriteError) -> EvalError {
    EvalError::attributed(
        &format!("binding '{name}' from the outer scope failed: {e}"),
        "scope binding",
        &[name.to_string()],
        Vec::new(),
        &format!("`{name}`"),
    )
}

impl Kernel for ScopedKernel {
    fn program(&self) -> &Arc<Program> {
        &self.program
    }

    /// A write to a cell slot publishes to the cell (every scope holding it
    /// sees it at its next read); a live slot refuses writes.
    fn write(&mut self, input: usize, value: Value) -> Result<(), WriteError> {
        match self.slots[input] {
            Slot::Live(_) => Err(WriteError::BoundSlot { slot: self.program.inputs[input].name.clone() }),
            Slot::Cell(k) => {
                let (value, revision) = self.cells[k].cell.publish(value)?;
                self.inner.write(input, value)?;
                self.cells[k].seen = revision;
                Ok(())
            }
            _ => {
                self.inner.write(input, value)?;
                self.wrote();
                Ok(())
            }
        }
    }

    #[inline]
    fn write_u64(&mut self, input: usize, value: u64) -> Result<(), WriteError> {
        match self.slots[input] {
            // An iteration variable is written as an own input is (`write`
            // treats the two alike): a one-to-many phase rewrites it per parent.
            Slot::Own | Slot::Iteration => {
                self.inner.write_u64(input, value)?;
                self.wrote();
                Ok(())
            }
            _ => self.write(input, Value::U64(value)),
        }
    }

    fn pull(&mut self, out: usize) -> Result<Value, EvalError> {
        self.sync(Reading::Outputs(&[out]))?;
        self.inner.pull(out)
    }

    fn pull_word(&mut self, out: usize) -> Result<u64, EvalError> {
        self.sync(Reading::Outputs(&[out]))?;
        self.inner.pull_word(out)
    }

    fn eval(&mut self) -> Result<Vec<Value>, EvalError> {
        self.sync(Reading::Everything)?;
        self.inner.eval()
    }

    fn input_value(&self, input: usize) -> Value {
        if let Slot::Cell(k) = self.slots[input] {
            let (value, revision) = self.cells[k].cell.get();
            if revision > 0 {
                return value;
            }
        }
        self.inner.input_value(input)
    }

    fn invalidate_all(&mut self) {
        self.inner.invalidate_all();
        self.init_pending = true;
    }

    fn start(&mut self) -> Result<(), EvalError> {
        self.sync(Reading::Init)?;
        self.inner.start()
    }

    /// The inner kernel's filler, the bindings brought up to date before it
    /// is made (a filler sees the outer scopes as they were then) and a
    /// write noted after each read (children reading this scope live see
    /// it). Only inputs this scope owns are written through it.
    fn rows<'k>(&'k mut self, outs: &'k [usize]) -> Result<Box<dyn RowFiller + 'k>, EvalError> {
        self.sync(Reading::Outputs(outs))?;
        let writable = self.slots.iter().map(|s| matches!(s, Slot::Own | Slot::Copied | Slot::Iteration)).collect();
        let wrote = (self.observed.clone(), self.tree.clone());
        let inner = self.inner.rows(outs)?;
        Ok(Box::new(ScopedRows { inner, writable, wrote, names: &self.program }))
    }
}

/// Notes a write into a scope whose kernel is `observed` (children read it
/// live): the scope tree `tree` moves on, so they take the new values.
#[inline]
fn note_write(observed: &AtomicBool, tree: &Tree) {
    if observed.load(Ordering::Relaxed) {
        tree.advance();
    }
}

/// A scope's row filler: the inner kernel's, with the scope's one hook
/// after every read (a write noted, [`note_write`]), and writes refused to
/// inputs bound live or to a cell (write those with `write`).
struct ScopedRows<'k> {
    inner: Box<dyn RowFiller + 'k>,
    writable: Box<[bool]>,
    wrote: (Arc<AtomicBool>, Arc<Tree>),
    names: &'k Program,
}

impl ScopedRows<'_> {
    /// Refuses a write through the filler into input `input` if the scope does not own it.
    fn check(&self, input: usize) -> Result<(), GenerateError> {
        match self.writable.get(input) {
            Some(true) => Ok(()),
            _ => Err(GenerateError::Write(WriteError::BoundSlot { slot: self.names.inputs[input].name.clone() })),
        }
    }
}

impl RowFiller for ScopedRows<'_> {
    fn read_words(&mut self, values: &[u64], words: &mut [u64]) -> Result<(), GenerateError> {
        (0..values.len()).try_for_each(|input| self.check(input))?;
        let read = self.inner.read_words(values, words);
        note_write(&self.wrote.0, &self.wrote.1);
        read
    }

    fn push_row(&mut self, columns: &mut [ColumnPart<'_>]) -> Result<(), EvalError> {
        self.inner.push_row(columns)
    }

    fn fill(&mut self, rows: &RowFill<'_>, columns: &mut [ColumnPart<'_>]) -> Result<(), GenerateError> {
        self.check(rows.coordinate)?;
        let filled = self.inner.fill(rows, columns);
        note_write(&self.wrote.0, &self.wrote.1);
        filled
    }

    fn fill_row_runs(&mut self, runs: &RowRuns<'_>, columns: &mut [ColumnPart<'_>]) -> Result<(), GenerateError> {
        self.check(runs.coordinate)?;
        runs.inputs.iter().try_for_each(|&input| self.check(input))?;
        let filled = self.inner.fill_row_runs(runs, columns);
        note_write(&self.wrote.0, &self.wrote.1);
        filled
    }
}
