//! Code generation: program steps to Cranelift functions over the compiled
//! layer's buffer. A function takes the buffer's address; each step reads
//! its inputs (from the value a step of the same function produced, kept in
//! a register, or from the buffer), computes its outputs by its node's
//! lowering ([`crate::node::lower`]) or by calling its slot form
//! ([`super::helpers::slot_call`]), and stores them to their buffer words.
//! [`Module`] owns the JIT module and the slot calls its code names.

use super::helpers::{slot_call, SlotCall};
use crate::engine::compiled::layout::Layout;
use crate::node::lower::{calls_rule, FCmp, FOp, ICmp, Lower, NVal};
use crate::node::BuildCtx;
use crate::program::Program;
use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::types::{F64, I64};
use cranelift_codegen::ir::{
    AbiParam, Block, BlockArg, FuncRef, Function, Inst, InstBuilder, MemFlagsData, Opcode, StackSlotData,
    StackSlotKind, Value, ValueDef,
};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{FuncId, Linkage, Module as _};
use std::collections::HashMap;

/// A native function over the buffer: `f(buf)`.
pub type NativeFn = unsafe extern "C" fn(*mut u64);

/// `generate`'s native row loop (see [`Module::row_loop`]):
/// `f(buf, first, step, count, columns, progress)`, where `columns` points
/// at one row address per column and `progress` at a word the loop stores
/// the current row to before each helper call.
pub type RowLoopFn = unsafe extern "C" fn(*mut u64, u64, u64, u64, *const *mut u8, *mut u64);

/// A row read (see [`Module::row_read`]): `f(buf, values, out)` writes its
/// inputs from `values` and stores the raw word of its `k`-th output to `out[k]`.
pub type RowReadFn = unsafe extern "C" fn(*mut u64, *const u64, *mut u64);

/// The canonical f64 NaN's bits (the NaN policy).
const CANONICAL_NAN: u64 = crate::node::kit::CANONICAL_NAN_F64;

/// The most steps one native function holds. The register allocator's work
/// grows faster than the function (a 16,000-step function took seconds, most
/// of it allocating registers), so [`Module::function_over`] compiles longer
/// step lists as pieces of at most this many steps, each storing its values
/// to the buffer, called in order by one function; and a row loop or a row
/// read, which keep every value in registers, is built only up to this size.
pub const MAX_FUNCTION_STEPS: usize = 1024;

/// One column a row loop stores: the value slot, the width in bytes of
/// its rows ([`crate::columns::row_width`]: 8, 4, 2 or 1), and whether its
/// rows are bools (one byte holding 0 or 1, the word's truth; every other
/// column takes the word's low bytes).
#[derive(Clone, Copy, Debug)]
pub struct RowColumn {
    /// The value slot stored.
    pub slot: u32,
    /// Bytes per row.
    pub width: u8,
    /// The rows are bools: the word's truth is stored, not its low byte.
    pub truth: bool,
}

/// The most columns a row loop stores, or words a row read returns: each
/// column's row address stays in a register across the loop.
pub const MAX_ROW_COLUMNS: usize = 256;

/// A JIT module under construction, then finalized: its functions, and the
/// slot calls and constants their code points at.
pub struct Module {
    module: JITModule,
    ctx: cranelift_codegen::Context,
    fbc: FunctionBuilderContext,
    slot_call_id: FuncId,
    /// The nodes native code calls into, by address: kept alive with the
    /// code, and boxed so an address never moves when the list grows.
    #[allow(clippy::vec_box)]
    calls: Vec<Box<SlotCall>>,
    functions: usize,
    /// The constant words row loops load before their loop (see
    /// [`LoopConstants`]): read by native code, kept with it.
    #[allow(clippy::vec_box)] // addresses held by native code: a box never moves when the list grows
    loop_constants: Vec<Box<[u64; MAX_LOOP_CONSTANTS]>>,
    /// Print each function's generated machine code to standard error (set
    /// by the environment variable [`DUMP_NATIVE_ENV`]).
    dump: bool,
}

/// Set (to anything) to have every native function's generated machine code
/// printed to standard error as it is compiled: Cranelift's listing after
/// register allocation, one block per function. A diagnostic for reading
/// what a program's row loop became.
pub const DUMP_NATIVE_ENV: &str = "POLYDAT_DUMP_NATIVE";

/// What emitting a run of steps produced: whether the code calls a helper
/// (so it must run inside the catch), and, per step, whether that step's
/// own code called one.
pub struct Emitted {
    /// Some step's code calls a helper.
    pub fallible: bool,
}

impl Module {
    /// A new module for the host machine, optimising for speed.
    pub fn new() -> Result<Module, String> {
        let mut flags = settings::builder();
        flags.set("opt_level", "speed").map_err(|e| e.to_string())?;
        let isa = cranelift_native::builder()
            .map_err(|e| format!("native code is not available on this machine: {e}"))?
            .finish(settings::Flags::new(flags))
            .map_err(|e| e.to_string())?;
        let mut builder = JITBuilder::with_isa(isa, cranelift_module::default_libcall_names());
        builder.symbol("pd_slot_call", slot_call as *const u8);
        let mut module = JITModule::new(builder);
        let mut sig = module.make_signature();
        sig.params.extend([AbiParam::new(I64), AbiParam::new(I64), AbiParam::new(I64)]);
        let slot_call_id = module.declare_function("pd_slot_call", Linkage::Import, &sig).map_err(|e| e.to_string())?;
        let ctx = module.make_context();
        let dump = std::env::var_os(DUMP_NATIVE_ENV).is_some();
        Ok(Module {
            module,
            ctx,
            fbc: FunctionBuilderContext::new(),
            slot_call_id,
            calls: Vec::new(),
            functions: 0,
            loop_constants: Vec::new(),
            dump,
        })
    }

    /// Defines a function `f(buf)` computing `steps` (in order, each once)
    /// of `program` over `layout`'s buffer, and returns its id and whether it
    /// calls a helper. Values stay in registers from the step that makes them
    /// to the steps of this function that read them.
    pub fn steps_function(
        &mut self,
        program: &Program,
        layout: &Layout,
        steps: &[u32],
    ) -> Result<(FuncId, Emitted), String> {
        let word = |slot: u32| layout.off[slot as usize];
        self.function_over(program, steps, &word, None)
    }

    /// [`Module::steps_function`] over any buffer: `word(slot)` is the
    /// buffer word of each value slot the steps read or write. With
    /// `position_word`, the code stores the position (in `steps`) of the step it is
    /// in to that word before each helper call, so a failure can be
    /// attributed to the step that failed. More than [`MAX_FUNCTION_STEPS`]
    /// steps are compiled in pieces of at most that many, which the
    /// function returned calls in order (so the time to build is linear in
    /// the steps).
    pub fn function_over(
        &mut self,
        program: &Program,
        steps: &[u32],
        word: &dyn Fn(u32) -> u32,
        position_word: Option<u32>,
    ) -> Result<(FuncId, Emitted), String> {
        if steps.len() <= MAX_FUNCTION_STEPS {
            return self.piece(program, steps, 0, word, position_word);
        }
        let mut pieces = Vec::with_capacity(steps.len().div_ceil(MAX_FUNCTION_STEPS));
        let mut fallible = false;
        for (k, chunk) in steps.chunks(MAX_FUNCTION_STEPS).enumerate() {
            let (id, emitted) = self.piece(program, chunk, k * MAX_FUNCTION_STEPS, word, position_word)?;
            fallible |= emitted.fallible;
            pieces.push(id);
        }
        let id = self.declare(1)?;
        let mut b = FunctionBuilder::new(&mut self.ctx.func, &mut self.fbc);
        let buf = entry_block(&mut b)[0];
        for piece in pieces {
            let callee = self.module.declare_func_in_func(piece, b.func);
            b.ins().call(callee, &[buf]);
        }
        b.ins().return_(&[]);
        b.finalize(self.module.target_config());
        self.define(id)?;
        Ok((id, Emitted { fallible }))
    }

    /// One function `f(buf)` computing `steps`, every value stored to its
    /// buffer word; positions are recorded from `first` on.
    fn piece(
        &mut self,
        program: &Program,
        steps: &[u32],
        first: usize,
        word: &dyn Fn(u32) -> u32,
        position_word: Option<u32>,
    ) -> Result<(FuncId, Emitted), String> {
        let id = self.declare(1)?;
        let mut b = FunctionBuilder::new(&mut self.ctx.func, &mut self.fbc);
        let buf = entry_block(&mut b)[0];
        let slot_call = self.module.declare_func_in_func(self.slot_call_id, b.func);
        let failure_site = position_word.map(FailureSite::Position);
        let mut emit = StepEmitter {
            slot_call,
            calls: &mut self.calls,
            buf,
            word,
            failure_site,
            store: true,
            first,
            constants: None,
        };
        let fallible = emit.steps(&mut b, program, steps, &mut HashMap::new());
        b.ins().return_(&[]);
        b.finalize(self.module.target_config());
        self.define(id)?;
        Ok((id, Emitted { fallible }))
    }

    /// Defines `generate`'s row loop over `steps` of `program` (the per-cycle
    /// steps the columns need, in order) on `layout`'s buffer, as
    /// [`RowLoopFn`]: row `i` of `0..count` gives the coordinate slot
    /// `coordinate` the value `first + i * step` (wrapping), computes the
    /// steps with values in registers, and stores each of `columns` (a
    /// [`RowColumn`]: a value slot and how its rows are stored) to row `i`
    /// of its column. Every other slot the steps read is
    /// loaded once, before the loop. Before each helper call it stores `i`
    /// to `progress`, so a failure inside names its row (a loop that calls
    /// no helper cannot fail, and stores nothing there).
    ///
    /// With `unit_step`, the loop is for a step of 1 (the `step` argument is
    /// not read): its only counter counts the rows left, up from `-count`
    /// to 0; each column's rows are addressed from its end, and the
    /// coordinate is the counter plus `first + count`, a sum the steps'
    /// seeded adds fold their invariants into ([`LoopConstants`]), so no
    /// register holds the loop's end. Otherwise a row counter runs beside
    /// the coordinate. Either loop is rotated: one test and branch per row.
    /// Its leading steps that cannot fail run one row ahead ([`pipelined`]).
    ///
    /// Each of `fixed` (a slot and its word) is compiled in as a constant,
    /// not read: the loop is then right only for a buffer holding those
    /// words (a value of a 32-bit signed immediate, sign-extended, becomes
    /// an instruction's operand). Besides the function, returns the slots
    /// the loop reads from the buffer once, before it (the words the caller
    /// may fix in another loop).
    #[allow(clippy::too_many_arguments)]
    pub fn row_loop(
        &mut self,
        program: &Program,
        layout: &Layout,
        steps: &[u32],
        coordinate: u32,
        columns: &[RowColumn],
        unit_step: bool,
        fixed: &[(u32, u64)],
    ) -> Result<(FuncId, Emitted, Vec<u32>), String> {
        let id = self.declare(6)?;
        let mut b = FunctionBuilder::new(&mut self.ctx.func, &mut self.fbc);
        let [buf, first, stride, count, cols, progress] = entry_block(&mut b)[..] else {
            return Err("internal: row loop signature".into());
        };
        let trusted = MemFlagsData::trusted();
        let bases: Vec<Value> = (0..columns.len()).map(|k| b.ins().load(I64, trusted, cols, 8 * k as i32)).collect();
        // Loop-invariant reads: every slot the steps read that none of them
        // writes, and the columns of values no step computes (an input, a
        // value fixed at scope init).
        let written = written_slots(program, steps);
        let read = steps.iter().flat_map(|&s| program.steps[s as usize].ins.iter().copied());
        let mut invariant: HashMap<u32, Value> = HashMap::new();
        let literal = |slot: u32| program.literal_word(slot).is_some();
        let read = read.filter(|&slot| !literal(slot)); // constants of the code (see `StepEmitter::steps`)
        let is_fixed = |slot: u32| fixed.iter().any(|&(s, _)| s == slot);
        for slot in read.chain(columns.iter().map(|c| c.slot)) {
            if slot != coordinate && !written.contains(&slot) && !invariant.contains_key(&slot) && !is_fixed(slot) {
                let v = b.ins().load(I64, trusted, buf, 8 * layout.off[slot as usize] as i32);
                invariant.insert(slot, v);
            }
        }
        let (start, body_block, exit) = (b.create_block(), b.create_block(), b.create_block());
        let empty = b.ins().icmp_imm_u(IntCC::Equal, count, 0);
        b.ins().brif(empty, exit, &[], start, &[]);
        b.switch_to_block(start);
        b.seal_block(start);

        // The body's counters (its block parameters): for a step of 1 the
        // rows left alone (negative, up to 0; the coordinate is it plus
        // `end`), a row counter and the coordinate otherwise; and where row
        // `index` of each column goes (`bases[k] + index * width`).
        // The leading steps that read only the coordinate, the loop's
        // invariant words and constants, and each other, and cannot fail
        // ([`pipelined`]) are computed one row ahead: for row 0 in a prologue
        // block, and for the next row at the top of each turn, their values
        // carried into the next turn (the body's parameters after its
        // counters).
        let (ahead, behind) = pipelined(program, steps, coordinate, &written, columns);
        let prologue = b.create_block();
        let (index, bases, end, enter, counters) = if unit_step {
            let end = b.ins().iadd(first, count);
            let moved: Vec<Value> = columns
                .iter()
                .zip(&bases)
                .map(|(column, &base)| {
                    let ahead = b.ins().imul_imm_u(count, column.width as i64);
                    b.ins().iadd(base, ahead)
                })
                .collect();
            let rows_left = b.ins().ineg(count);
            let enter = b.ins().jump(prologue, &[]);
            let rows_left_param = b.append_block_param(body_block, I64);
            (rows_left_param, moved, Some(end), enter, vec![rows_left])
        } else {
            let zero = b.ins().iconst(I64, 0);
            let enter = b.ins().jump(prologue, &[]);
            let row = b.append_block_param(body_block, I64);
            b.append_block_param(body_block, I64);
            (row, bases, None, enter, vec![zero, first])
        };
        // Registers left for constants once the columns' addresses and the
        // invariant words have theirs; with none, constants stay in place.
        let room = LOOP_REGISTERS.saturating_sub(columns.len() + invariant.len());
        let mut constants = LoopConstants::before(enter, invariant.values().copied().chain(end), room);
        let mut reads_once: Vec<u32> = invariant.keys().copied().collect();
        reads_once.sort_unstable();
        let mut fixed_words = invariant;
        for &(slot, word) in fixed {
            let value = match constants.value(&mut b, word) {
                Some(value) => value,
                None => FuncCursor::new(b.func).at_inst(enter).ins().iconst(I64, word as i64),
            };
            fixed_words.insert(slot, value);
        }
        let slot_call = self.module.declare_func_in_func(self.slot_call_id, b.func);
        let word = |slot: u32| layout.off[slot as usize];
        // No failure site before the body: the steps run ahead call no helper.
        let mut emit = StepEmitter {
            slot_call,
            calls: &mut self.calls,
            buf,
            word: &word,
            failure_site: None,
            store: false,
            first: 0,
            constants: Some(&mut constants),
        };
        // The steps run ahead for the row whose coordinate is `at`: the
        // values carried, in the order of `ahead.carried`.
        let run_ahead = |b: &mut FunctionBuilder<'_>, emit: &mut StepEmitter<'_>, at: Value| {
            let mut words = fixed_words.clone();
            words.insert(coordinate, at);
            emit.steps(b, program, &ahead.steps, &mut words);
            ahead.carried.iter().map(|slot| words[slot]).collect::<Vec<Value>>()
        };
        b.switch_to_block(prologue);
        b.seal_block(prologue);
        let carried = run_ahead(&mut b, &mut emit, first);
        let carried_params: Vec<Value> =
            carried.iter().map(|&v| b.append_block_param(body_block, b.func.dfg.value_type(v))).collect();
        let entry_args: Vec<BlockArg> = counters.iter().chain(&carried).map(|&v| BlockArg::Value(v)).collect();
        b.ins().jump(body_block, &entry_args);

        b.switch_to_block(body_block);
        let (cycle, row) = match end {
            Some(end) => (b.ins().iadd(index, end), b.ins().iadd(index, count)),
            None => (b.block_params(body_block)[1], index),
        };
        emit.failure_site = Some(FailureSite::Row { progress, row });
        let mut words = fixed_words.clone();
        words.insert(coordinate, cycle);
        words.extend(ahead.carried.iter().copied().zip(carried_params));
        // The next row's coordinate, and the steps run ahead for it, first:
        // the core starts the next row's chain before this row's.
        let (next, next_cycle) = match end {
            Some(end) => {
                let next = b.ins().iadd_imm_u(index, 1);
                (next, b.ins().iadd(next, end))
            }
            None => (b.ins().iadd_imm_u(row, 1), b.ins().iadd(cycle, stride)),
        };
        let carried_next = run_ahead(&mut b, &mut emit, next_cycle);
        if !carried_next.is_empty() {
            // Cranelift computes a pure value just before the first
            // instruction with an effect that needs it: a store of the
            // carried values to a slot nothing reads is that instruction,
            // here, so the next row's first links run before this row's
            // chain rather than at the end of the turn (where they would sit
            // in the same place as without running ahead). One store a row.
            let bytes = 8 * carried_next.len() as u32;
            let slot = b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, bytes, 3));
            for (k, &v) in carried_next.iter().enumerate() {
                b.ins().stack_store(I64, v, slot, 8 * k as i32);
            }
        }
        let fallible = emit.steps(&mut b, program, &behind, &mut words);
        constants.shorten_sums(b.func);
        // The registers the loop holds from row to row: the columns'
        // addresses and the values computed before it that it reads. Past
        // what it can hold, constants read once a row go back in place;
        // with a register to spare, narrowed columns are stored last (which
        // keeps the values they narrow live longer).
        let results: Vec<Value> = columns.iter().filter_map(|c| words.get(&c.slot).copied()).collect();
        let held = columns.len() + carried_next.len() + constants.held_in_loop(b.func, body_block, &results);
        let freed = constants.settle(b.func, held.saturating_sub(LOOP_REGISTERS));
        self.loop_constants.push(constants.words);
        let order = match held - freed < LOOP_REGISTERS {
            true => store_order(program, steps, columns),
            false => (0..columns.len()).collect(),
        };
        for k in order {
            let (RowColumn { slot, width, truth }, base) = (columns[k], bases[k]);
            let Some(&value) = words.get(&slot) else {
                return Err(format!("internal: column slot {slot} is not computed by the row loop"));
            };
            // `base + (index << log2 width)`: one scaled-index address.
            let at = match width {
                1 => b.ins().iadd(base, index),
                _ => {
                    let offset = b.ins().ishl_imm_u(index, width.trailing_zeros() as i64);
                    b.ins().iadd(base, offset)
                }
            };
            match width {
                8 => b.ins().store(trusted, value, at, 0),
                4 => b.ins().istore32(trusted, value, at, 0),
                2 => b.ins().istore16(trusted, value, at, 0),
                1 if truth => {
                    let truth = b.ins().icmp_imm_u(IntCC::NotEqual, value, 0);
                    b.ins().store(trusted, truth, at, 0)
                }
                1 => b.ins().istore8(trusted, value, at, 0),
                other => return Err(format!("internal: a column of {other}-byte rows")),
            };
        }
        let carried_args = carried_next.iter().map(|&v| BlockArg::Value(v));
        if unit_step {
            // The rows left, counted up to 0: the loop goes on while it is not 0.
            let args: Vec<BlockArg> = std::iter::once(BlockArg::Value(next)).chain(carried_args).collect();
            b.ins().brif(next, body_block, &args, exit, &[]);
        } else {
            let done = b.ins().icmp(IntCC::Equal, next, count);
            let args: Vec<BlockArg> =
                [BlockArg::Value(next), BlockArg::Value(next_cycle)].into_iter().chain(carried_args).collect();
            b.ins().brif(done, exit, &[], body_block, &args);
        }
        b.seal_block(body_block);

        b.switch_to_block(exit);
        b.seal_block(exit);
        b.ins().return_(&[]);
        b.finalize(self.module.target_config());
        self.define(id)?;
        Ok((id, Emitted { fallible }, reads_once))
    }

    /// Defines a function `f(buf, values, out)` that stores `values[i]` to
    /// the buffer word of input slot `inputs[i]`, computes `steps` (in
    /// order, each once) over `layout`'s buffer with every value in
    /// registers (the inputs' too), and stores the raw word of value slot
    /// `slots[k]` to `out[k]`; it stores nothing else to the buffer. A slot
    /// neither written nor computed (another input, a value fixed at scope
    /// init) is loaded from the buffer. Returns its id and whether it calls
    /// a helper (the inputs are stored before any call).
    pub fn row_read(
        &mut self,
        program: &Program,
        layout: &Layout,
        inputs: &[u32],
        steps: &[u32],
        slots: &[u32],
    ) -> Result<(FuncId, Emitted), String> {
        let id = self.declare(3)?;
        let mut b = FunctionBuilder::new(&mut self.ctx.func, &mut self.fbc);
        let [buf, values, out] = entry_block(&mut b)[..] else {
            return Err("internal: row read signature".into());
        };
        let trusted = MemFlagsData::trusted();
        let word = |slot: u32| layout.off[slot as usize];
        let mut words = HashMap::new();
        for (i, &input) in inputs.iter().enumerate() {
            let value = b.ins().load(I64, trusted, values, 8 * i as i32);
            b.ins().store(trusted, value, buf, 8 * word(input) as i32);
            words.insert(input, value);
        }
        let slot_call = self.module.declare_func_in_func(self.slot_call_id, b.func);
        let mut emit = StepEmitter {
            slot_call,
            calls: &mut self.calls,
            buf,
            word: &word,
            failure_site: None,
            store: false,
            first: 0,
            constants: None,
        };
        let fallible = emit.steps(&mut b, program, steps, &mut words);
        for (k, &slot) in slots.iter().enumerate() {
            let value = match words.get(&slot) {
                Some(&v) => v,
                None => b.ins().load(I64, trusted, buf, 8 * word(slot) as i32),
            };
            b.ins().store(trusted, value, out, 8 * k as i32);
        }
        b.ins().return_(&[]);
        b.finalize(self.module.target_config());
        self.define(id)?;
        Ok((id, Emitted { fallible }))
    }

    /// Declares the next function, of `params` i64 parameters and no result.
    fn declare(&mut self, params: usize) -> Result<FuncId, String> {
        let mut sig = self.module.make_signature();
        sig.params.extend((0..params).map(|_| AbiParam::new(I64)));
        self.ctx.func.signature = sig;
        let name = format!("f{}", self.functions);
        self.functions += 1;
        self.module.declare_function(&name, Linkage::Local, &self.ctx.func.signature).map_err(|e| e.to_string())
    }

    /// Compiles the function just built (and finalized) as `id`.
    fn define(&mut self, id: FuncId) -> Result<(), String> {
        self.ctx.set_disasm(self.dump);
        self.module.define_function(id, &mut self.ctx).map_err(|e| format!("native code generation failed: {e:?}"))?;
        // Only a context asked for the listing (`set_disasm`) keeps one.
        if let Some(listing) = self.ctx.compiled_code().and_then(|code| code.vcode.as_deref()) {
            eprintln!("; polydat native function {}\n{listing}", id.as_u32());
        }
        self.module.clear_context(&mut self.ctx);
        Ok(())
    }

    /// Finalizes the module: every function's code is written, then only run.
    pub fn finish(mut self) -> Result<Code, String> {
        self.module.finalize_definitions().map_err(|e| e.to_string())?;
        Ok(Code { module: Some(self.module), _calls: self.calls, _loop_constants: self.loop_constants })
    }
}

/// Finalized native code: the module (its memory is never written again) and
/// the slot calls its code names by address.
pub struct Code {
    module: Option<JITModule>,
    #[allow(clippy::vec_box)] // addresses held by native code (see `Module::calls`)
    _calls: Vec<Box<SlotCall>>,
    /// The constant words its row loops read.
    #[allow(clippy::vec_box)] // addresses held by native code (see `Module::loop_constants`)
    _loop_constants: Vec<Box<[u64; MAX_LOOP_CONSTANTS]>>,
}

// SAFETY: the module is finalized before `Code` exists and never written
// again; only its code runs, from any thread, and the slot calls it names are
// immutable (their nodes are `Send + Sync`).
unsafe impl Send for Code {}
// SAFETY: as above: nothing mutates the module or the calls after finalization.
unsafe impl Sync for Code {}

impl Code {
    /// The function `id` as a callable pointer.
    pub fn function(&self, id: FuncId) -> NativeFn {
        let module = self.module.as_ref().expect("finalized code");
        let ptr = module.get_finalized_function(id);
        // SAFETY: `id` was defined with the signature `fn(i64)` (the buffer's
        // address) in this module, which is finalized; the pointer stays
        // valid for as long as `self` lives (the caller keeps it alive).
        unsafe { std::mem::transmute::<*const u8, NativeFn>(ptr) }
    }

    /// The row read `id` ([`Module::row_read`]) as a callable pointer.
    pub fn row_read(&self, id: FuncId) -> RowReadFn {
        let module = self.module.as_ref().expect("finalized code");
        let ptr = module.get_finalized_function(id);
        // SAFETY: `id` was defined by `Module::row_read` with three i64
        // parameters, the signature of `RowReadFn`, in this finalized module;
        // the pointer is valid while `self` lives.
        unsafe { std::mem::transmute::<*const u8, RowReadFn>(ptr) }
    }

    /// The row loop `id` ([`Module::row_loop`]) as a callable pointer.
    pub fn row_loop(&self, id: FuncId) -> RowLoopFn {
        let module = self.module.as_ref().expect("finalized code");
        let ptr = module.get_finalized_function(id);
        // SAFETY: `id` was defined by `Module::row_loop` with six i64
        // parameters, the signature of `RowLoopFn`, in this finalized module;
        // the pointer is valid while `self` lives.
        unsafe { std::mem::transmute::<*const u8, RowLoopFn>(ptr) }
    }
}

impl Drop for Code {
    fn drop(&mut self) {
        if let Some(module) = self.module.take() {
            // SAFETY: no function of this module can run any more: every
            // holder of one of its pointers holds `self`, which is dropping.
            unsafe { module.free_memory() };
        }
    }
}

/// The value slots `steps` of `program` write.
fn written_slots(program: &Program, steps: &[u32]) -> std::collections::HashSet<u32> {
    steps.iter().flat_map(|&s| program.steps[s as usize].out_slots()).collect()
}

/// How many times each value of `func` is read (as an instruction's
/// argument or a branch's block argument), by the value its aliases resolve to.
fn reads(func: &Function) -> HashMap<Value, usize> {
    let mut reads: HashMap<Value, usize> = HashMap::new();
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            for arg in func.dfg.inst_values(inst) {
                *reads.entry(func.dfg.resolve_aliases(arg)).or_default() += 1;
            }
        }
    }
    reads
}

/// The most values a row loop carries from one turn to the next
/// ([`pipelined`]): each holds a register through the loop (the engine
/// ladder carrying two, its identity hash and account, ran 3% slower than
/// carrying the hash alone).
const MAX_CARRIED: usize = 1;

/// The steps a row loop runs one row ahead (software pipelining: during
/// one row's turn they compute the first values of the next row), chosen by
/// [`pipelined`].
struct PipelinedSteps {
    /// The steps run ahead, in evaluation order.
    steps: Vec<u32>,
    /// The slots of their values the next turn reads (carried in registers).
    carried: Vec<u32>,
}

/// Splits a row loop's `steps` into the leading ones run one row ahead and
/// the rest. The longest run of leading steps is taken that each read only
/// the `coordinate`, slots no step writes (invariant words, literals, fixed
/// words) and values of steps run ahead, whose native forms cannot call a
/// helper (so cannot fail: the row after the last is computed too, and
/// thrown away), and whose values the rest read at most [`MAX_CARRIED`] of.
/// A row's chain of dependent instructions is long (a hash, a `mod` of it,
/// a hash of that, ...); starting its first links during the turn before
/// lets the core overlap more rows in the same window of instructions in
/// flight: the engine ladder's loop ran 8–10% faster carrying its identity
/// hash. Nothing runs ahead when nothing would be carried.
fn pipelined(
    program: &Program,
    steps: &[u32],
    coordinate: u32,
    written: &std::collections::HashSet<u32>,
    columns: &[RowColumn],
) -> (PipelinedSteps, Vec<u32>) {
    let outputs = |s: u32| program.steps[s as usize].out_slots();
    // The values of `steps[..n]` that a later step or a column reads.
    let carried = |n: usize| -> Vec<u32> {
        let read_later = |slot: u32| {
            steps[n..].iter().any(|&s| program.steps[s as usize].ins.contains(&slot))
                || columns.iter().any(|c| c.slot == slot)
        };
        steps[..n].iter().flat_map(|&s| outputs(s)).filter(|&slot| read_later(slot)).collect()
    };
    let mut computed_ahead = std::collections::HashSet::new();
    let mut n = 0;
    for (k, &s) in steps.iter().enumerate().take(steps.len().saturating_sub(1)) {
        let step = &program.steps[s as usize];
        let ready =
            step.ins.iter().all(|slot| *slot == coordinate || !written.contains(slot) || computed_ahead.contains(slot));
        let ctx = BuildCtx { consts: &step.consts, wire_types: &step.in_types };
        // A step with no native form calls its rule: `calls_rule` says so.
        let safe = !calls_rule(step.def.lower, &ctx, step.ins.len(), step.out_count());
        if !ready || !safe || carried(k + 1).len() > MAX_CARRIED {
            break;
        }
        computed_ahead.extend(outputs(s));
        n = k + 1;
    }
    let carried = carried(n);
    if carried.is_empty() {
        return (PipelinedSteps { steps: Vec::new(), carried }, steps.to_vec());
    }
    (PipelinedSteps { steps: steps[..n].to_vec(), carried }, steps[n..].to_vec())
}

/// The order a row loop stores its `columns` in, as
/// indices into them. Cranelift computes each pure value just before the
/// first store (or call) needing it, so the store order is the order the
/// row's values are computed in. A column no step reads (a sink) whose step
/// reads a value another column's computation also reads is stored after
/// that column: `shard := mod(route, 64)` after `token := hash(route + ...)`,
/// so `route`'s last reader is the `and` that overwrites it in place
/// rather than a copy kept for the later reader. Columns other steps read
/// come first (they are computed early anyway), then the sinks in that
/// order, otherwise in column order.
fn store_order(program: &Program, steps: &[u32], columns: &[RowColumn]) -> Vec<usize> {
    let producer: HashMap<u32, u32> =
        steps.iter().flat_map(|&s| program.steps[s as usize].out_slots().map(move |slot| (slot, s))).collect();
    let read: std::collections::HashSet<u32> =
        steps.iter().flat_map(|&s| program.steps[s as usize].ins.iter().copied()).collect();
    // The steps computing `slot`, itself included.
    let cone = |slot: u32| {
        let mut found = std::collections::HashSet::new();
        let mut pending = vec![slot];
        while let Some(slot) = pending.pop() {
            if let Some(&s) = producer.get(&slot) {
                if found.insert(s) {
                    pending.extend(program.steps[s as usize].ins.iter().copied());
                }
            }
        }
        found
    };
    let (mut order, sinks): (Vec<usize>, Vec<usize>) =
        (0..columns.len()).partition(|&k| read.contains(&columns[k].slot));
    let cones: Vec<_> = sinks.iter().map(|&k| cone(columns[k].slot)).collect();
    // Sink `c` waits for sink `d` when a step of `d`'s cone, not `c`'s own
    // step, reads one of the values the loop computes that `c`'s step reads
    // (not a literal or a word fixed for the loop).
    let waits = |c: usize, d: usize| {
        let Some(&own) = producer.get(&columns[sinks[c]].slot) else { return false };
        let computed = |slot: &u32| producer.contains_key(slot);
        let ins: Vec<u32> = program.steps[own as usize].ins.iter().copied().filter(computed).collect();
        cones[d].iter().any(|&s| s != own && program.steps[s as usize].ins.iter().any(|slot| ins.contains(slot)))
    };
    let mut left: Vec<usize> = (0..sinks.len()).collect();
    while !left.is_empty() {
        // The first sink waiting for no other left; on a cycle, the first.
        let at = left.iter().position(|&c| !left.iter().any(|&d| d != c && waits(c, d))).unwrap_or(0);
        order.push(sinks[left.remove(at)]);
    }
    order
}

/// Starts a function: its entry block, sealed and current; returns the
/// function's parameters.
fn entry_block(b: &mut FunctionBuilder<'_>) -> Vec<Value> {
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    b.seal_block(entry);
    b.block_params(entry).to_vec()
}

/// Where a failure inside a helper call is placed: what emitted code
/// records before each helper call, so the caller can attribute a failure
/// to its step (or its row).
#[derive(Clone, Copy)]
enum FailureSite {
    /// The position (in the emitted steps) of the step making the call, to
    /// this buffer word.
    Position(u32),
    /// A row loop's current row, to the word at `progress`.
    Row { progress: Value, row: Value },
}

/// Emits steps into a function under construction.
struct StepEmitter<'a> {
    slot_call: FuncRef,
    #[allow(clippy::vec_box)] // addresses held by native code (see `Module::calls`)
    calls: &'a mut Vec<Box<SlotCall>>,
    /// The buffer's address.
    buf: Value,
    /// The buffer word of each value slot.
    word: &'a dyn Fn(u32) -> u32,
    /// What to record before a helper call, so a failure can be placed.
    failure_site: Option<FailureSite>,
    /// Store every output to its buffer word (a row loop keeps them in registers).
    store: bool,
    /// The position of the first step emitted, for [`FailureSite::Position`].
    first: usize,
    /// A row loop's constants, loaded before the loop.
    constants: Option<&'a mut LoopConstants>,
}

/// The most constants a row loop loads before its loop; later ones are
/// materialized where they are used.
const MAX_LOOP_CONSTANTS: usize = 8;

/// The registers a row loop can keep values in across rows, before it
/// spills: x86-64's 14 general registers less the row counter and a few
/// for the values of one row. A row loop loads constants before the loop
/// only up to what its columns and invariant words leave of these.
const LOOP_REGISTERS: usize = 10;

/// The constants of a row loop that no instruction takes as an immediate
/// (those outside the 32-bit signed range: hash multipliers, magic
/// divisors), each loaded once before the loop from a word kept with the
/// code. Cranelift rematerializes an `iconst` at every use, so inside the
/// loop each would be a 64-bit move or a constant-pool operand per row; a
/// value loaded before the loop is a register (or one spill slot) instead.
struct LoopConstants {
    /// The jump into the loop: the loads go before it.
    before: Inst,
    /// The words; their address is fixed however the box moves.
    words: Box<[u64; MAX_LOOP_CONSTANTS]>,
    /// The most words it loads before the loop ([`MAX_LOOP_CONSTANTS`] at most).
    room: usize,
    /// The words' address, as a value of the loop's preheader.
    base: Option<Value>,
    /// The words loaded so far.
    used: usize,
    /// The value of each constant so far: loaded, or an immediate defined
    /// before the loop.
    loaded: HashMap<u64, Value>,
    /// Values that are the same on every row: the loop's invariant words,
    /// and the constants and sums computed before the loop.
    invariant: std::collections::HashSet<Value>,
    /// Each word loaded before the loop and the constant it holds.
    loads: Vec<(Value, u64)>,
}

impl LoopConstants {
    /// Constants loaded before `before`, the jump into the loop (at most
    /// `room` of them), whose `invariant` values are the same on every row.
    fn before(before: Inst, invariant: impl Iterator<Item = Value>, room: usize) -> LoopConstants {
        LoopConstants {
            before,
            words: Box::new([0; MAX_LOOP_CONSTANTS]),
            room: room.min(MAX_LOOP_CONSTANTS),
            base: None,
            used: 0,
            loaded: HashMap::new(),
            invariant: invariant.collect(),
            loads: Vec::new(),
        }
    }

    /// Once the loop is emitted: a sum `(p + q) + c` with `c` the same on
    /// every row, whose `p + q` nothing else reads, becomes `p + (q + c)`
    /// when `q` is ready earlier than `p` (by the cycles its instructions
    /// take, roughly), so the row's longest chain of dependent
    /// instructions, which bounds how many rows run at once, waits for one
    /// add after `p` rather than two: `hash(route + payload)` adds its own
    /// constant to `payload` while `route` is still being computed.
    /// Wrapping addition is associative and commutative: the value is the
    /// same.
    fn shorten_sums(&self, func: &mut Function) {
        let cycles = |op: Opcode| match op {
            Opcode::Imul => 3,
            Opcode::Umulhi | Opcode::Smulhi => 4,
            Opcode::Load => 5,
            _ => 1,
        };
        let reads = reads(func);
        let mut ready: HashMap<Value, u32> = HashMap::new();
        let insts: Vec<Inst> = func.layout.blocks().flat_map(|block| func.layout.block_insts(block)).collect();
        for &inst in &insts {
            let args = func.dfg.inst_args(inst).iter().map(|&v| func.dfg.resolve_aliases(v));
            let start = args.map(|v| ready.get(&v).copied().unwrap_or(0)).max().unwrap_or(0);
            for &result in func.dfg.inst_results(inst) {
                if !self.invariant.contains(&result) {
                    ready.insert(result, start + cycles(func.dfg.insts[inst].opcode()));
                }
            }
        }
        let sum_of = |func: &Function, v: Value| match func.dfg.value_def(v) {
            ValueDef::Result(inst, 0) if func.dfg.insts[inst].opcode() == Opcode::Iadd => {
                let args = func.dfg.inst_args(inst);
                Some((func.dfg.resolve_aliases(args[0]), func.dfg.resolve_aliases(args[1])))
            }
            _ => None,
        };
        for inst in insts {
            if func.dfg.insts[inst].opcode() != Opcode::Iadd {
                continue;
            }
            let [x, y] = [0, 1].map(|k| func.dfg.resolve_aliases(func.dfg.inst_args(inst)[k]));
            let (sum, constant) = match (self.invariant.contains(&x), self.invariant.contains(&y)) {
                (false, true) => (x, y),
                (true, false) => (y, x),
                _ => continue,
            };
            let Some((p, q)) = sum_of(func, sum) else { continue };
            if reads.get(&sum) != Some(&1) || self.invariant.contains(&p) || self.invariant.contains(&q) {
                continue;
            }
            let at = |v: Value| ready.get(&v).copied().unwrap_or(0);
            let (late, early) = if at(p) >= at(q) { (p, q) } else { (q, p) };
            if at(early) == at(late) {
                continue;
            }
            let early_sum = FuncCursor::new(func).at_inst(inst).ins().iadd(early, constant);
            func.dfg.inst_args_mut(inst).copy_from_slice(&[late, early_sum]);
        }
    }

    /// How many values computed before the loop (invariant words, loaded
    /// constants, hoisted sums) the loop's live code reads, the code
    /// `results` (the values it stores) and its side effects need: the
    /// registers it holds from row to row. An immediate takes none, nor
    /// does a sum of a value and an immediate (Cranelift folds the
    /// immediate into the reader's address arithmetic).
    fn held_in_loop(&self, func: &Function, body: Block, results: &[Value]) -> usize {
        let immediate = |v: Value| match func.dfg.value_def(v) {
            ValueDef::Result(inst, _) => func.dfg.insts[inst].opcode() == Opcode::Iconst,
            _ => false,
        };
        // `v` without the immediates added to it.
        let register = |mut v: Value| loop {
            let ValueDef::Result(inst, 0) = func.dfg.value_def(v) else { return v };
            match (func.dfg.insts[inst].opcode(), func.dfg.inst_args(inst)) {
                (Opcode::Iadd, &[a, b]) if immediate(b) => v = func.dfg.resolve_aliases(a),
                (Opcode::Iadd, &[a, b]) if immediate(a) => v = func.dfg.resolve_aliases(b),
                _ => return v,
            }
        };
        // The live values: what the results and every side effect read.
        let mut pending: Vec<Value> = results.to_vec();
        let mut loop_reads = Vec::new();
        let mut in_loop = false;
        for block in func.layout.blocks() {
            in_loop |= block == body;
            for inst in func.layout.block_insts(block) {
                let op = func.dfg.insts[inst].opcode();
                if op.can_store() || op.is_call() || op.is_branch() || op.is_terminator() {
                    pending.extend(func.dfg.inst_values(inst));
                }
                if in_loop {
                    loop_reads.push(inst);
                }
            }
        }
        let mut live = std::collections::HashSet::new();
        while let Some(v) = pending.pop() {
            let v = func.dfg.resolve_aliases(v);
            if live.insert(v) {
                if let ValueDef::Result(inst, _) = func.dfg.value_def(v) {
                    pending.extend(func.dfg.inst_args(inst));
                }
            }
        }
        let mut held = std::collections::HashSet::new();
        for inst in loop_reads {
            if !func.dfg.inst_results(inst).iter().any(|r| live.contains(r))
                && !func.dfg.insts[inst].opcode().can_store()
            {
                continue;
            }
            for &arg in func.dfg.inst_args(inst) {
                let arg = func.dfg.resolve_aliases(arg);
                if self.invariant.contains(&arg) && !immediate(arg) {
                    held.insert(register(arg));
                }
            }
        }
        held.len()
    }

    /// Once the loop is emitted, when it holds more values than registers:
    /// up to `most` loaded constants read only once a row go back in place,
    /// operands from the code's constants (Cranelift folds each into its
    /// one reader), so the registers they held are free for values every
    /// row reads more often. Returns how many went back.
    fn settle(&self, func: &mut Function, most: usize) -> usize {
        let reads = reads(func);
        let mut freed = 0;
        for &(value, word) in &self.loads {
            if freed == most {
                break;
            }
            if reads.get(&value).copied().unwrap_or(0) <= 1 {
                let ValueDef::Result(load, 0) = func.dfg.value_def(value) else { continue };
                let mut at = FuncCursor::new(func).at_inst(load);
                let constant = at.ins().iconst(I64, word as i64);
                func.dfg.detach_inst_results(load);
                func.layout.remove_inst(load);
                func.dfg.change_to_alias(value, constant);
                freed += 1;
            }
        }
        freed
    }

    /// `x + y` as `p + (q + y)` when `y` is invariant and `x` is `p + q`
    /// with `q` invariant and `p` not (or the same with `x` and `y`
    /// swapped), the invariant sum computed before the loop: a seeded
    /// hash, `hash(cycle + seed)`, adds the seed and its own constant to the
    /// row's value once, not twice, and the seed need not stay in a
    /// register through the loop. Wrapping addition is associative and
    /// commutative, so the value is the same. `None` otherwise.
    fn reassociated_add(&mut self, b: &mut FunctionBuilder<'_>, x: Value, y: Value) -> Option<Value> {
        let (sum, outer) = match (self.invariant.contains(&x), self.invariant.contains(&y)) {
            (false, true) => (x, y),
            (true, false) => (y, x),
            _ => return None,
        };
        let ValueDef::Result(inst, 0) = b.func.dfg.value_def(sum) else { return None };
        if b.func.dfg.insts[inst].opcode() != Opcode::Iadd {
            return None;
        }
        let [p, q] = b.func.dfg.inst_args(inst) else { return None };
        let (variant, inner) = match (self.invariant.contains(p), self.invariant.contains(q)) {
            (false, true) => (*p, *q),
            (true, false) => (*q, *p),
            _ => return None,
        };
        let hoisted = FuncCursor::new(b.func).at_inst(self.before).ins().iadd(inner, outer);
        self.invariant.insert(hoisted);
        Some(b.ins().iadd(variant, hoisted))
    }

    /// The value of the constant `v` in the loop, defined before it: an
    /// immediate, or a word loaded when `v` needs more than a 32-bit
    /// immediate and room is left; otherwise `None` (the caller
    /// materializes it in place).
    fn value(&mut self, b: &mut FunctionBuilder<'_>, v: u64) -> Option<Value> {
        if let Some(&loaded) = self.loaded.get(&v) {
            return Some(loaded);
        }
        if i32::try_from(v as i64).is_ok() {
            // An immediate: defined before the loop, so a sum of it and
            // another invariant is computed there ([`Self::reassociated_add`]);
            // Cranelift still puts it in place at each use.
            let mut at = FuncCursor::new(b.func).at_inst(self.before);
            let constant = at.ins().iconst(I64, v as i64);
            self.loaded.insert(v, constant);
            self.invariant.insert(constant);
            return Some(constant);
        }
        // One word per constant loaded so far: the next is word `word`.
        let word = self.used;
        if word == self.room {
            return None;
        }
        self.used += 1;
        self.words[word] = v;
        let mut at = FuncCursor::new(b.func).at_inst(self.before);
        let address = self.words.as_ptr() as i64;
        let base = *self.base.get_or_insert_with(|| at.ins().iconst(I64, address));
        let loaded = at.ins().load(I64, MemFlagsData::trusted().with_readonly(), base, 8 * word as i32);
        self.loaded.insert(v, loaded);
        self.invariant.insert(loaded);
        self.loads.push((loaded, v));
        Some(loaded)
    }
}

impl StepEmitter<'_> {
    /// The literal `word` as a constant of the code rather than a read of
    /// its buffer word: in a row loop, defined before the loop
    /// ([`LoopConstants::value`]); elsewhere only when it fits an
    /// immediate (a wider one is a 64-bit move, where the read folds into
    /// the instruction using it). `None`: read the buffer.
    fn constant(&mut self, b: &mut FunctionBuilder<'_>, word: u64) -> Option<Value> {
        match self.constants.as_deref_mut() {
            Some(constants) => constants.value(b, word),
            None => i32::try_from(word as i64).is_ok().then(|| b.ins().iconst(I64, word as i64)),
        }
    }

    /// Emits `steps` in order. `words` holds the values known so far by
    /// slot; a slot not in it is loaded from the buffer. Returns whether
    /// some step's code calls a helper.
    fn steps(
        &mut self,
        b: &mut FunctionBuilder<'_>,
        program: &Program,
        steps: &[u32],
        words: &mut HashMap<u32, Value>,
    ) -> bool {
        let mut fallible = false;
        for (position, &s) in steps.iter().enumerate() {
            let step = &program.steps[s as usize];
            let ins: Vec<Value> = step
                .ins
                .iter()
                .map(|&slot| match words.get(&slot) {
                    Some(&v) => v,
                    None => {
                        let v = match program.literal_word(slot).and_then(|word| self.constant(b, word)) {
                            Some(v) => v,
                            None => b.ins().load(I64, MemFlagsData::trusted(), self.buf, 8 * (self.word)(slot) as i32),
                        };
                        words.insert(slot, v);
                        v
                    }
                })
                .collect();
            let mut lower = CraneLower {
                b: &mut *b,
                vals: ins.clone(),
                slot_call: self.slot_call,
                calls: &mut *self.calls,
                step,
                called: false,
                failure_site: self.failure_site.map(|site| (site, self.buf, (self.first + position) as u64)),
                constants: self.constants.as_deref_mut(),
            };
            let nvals: Vec<NVal> = (0..ins.len() as u32).map(NVal).collect();
            let ctx = BuildCtx { consts: &step.consts, wire_types: &step.in_types };
            let outs = match step.def.lower.and_then(|f| f(&mut lower, &ctx, &nvals)) {
                Some(outs) => outs,
                None => lower.call_rule(),
            };
            fallible |= lower.called;
            let outs: Vec<Value> = outs.iter().map(|v| lower.vals[v.0 as usize]).collect();
            for (k, &v) in outs.iter().enumerate() {
                let slot = step.out_start + k as u32;
                if self.store {
                    b.ins().store(MemFlagsData::trusted(), v, self.buf, 8 * (self.word)(slot) as i32);
                }
                words.insert(slot, v);
            }
        }
        fallible
    }
}

/// The [`Lower`] of one step over a Cranelift function builder.
struct CraneLower<'a, 'b> {
    b: &'a mut FunctionBuilder<'b>,
    vals: Vec<Value>,
    slot_call: FuncRef,
    #[allow(clippy::vec_box)] // addresses held by native code (see `Module::calls`)
    calls: &'a mut Vec<Box<SlotCall>>,
    step: &'a crate::program::Step,
    /// The step's code calls a helper.
    called: bool,
    /// What to record before a helper call: where a failure is placed, the
    /// buffer's address and the step's position.
    failure_site: Option<(FailureSite, Value, u64)>,
    /// A row loop's constants (see [`LoopConstants`]).
    constants: Option<&'a mut LoopConstants>,
}

impl CraneLower<'_, '_> {
    fn push(&mut self, v: Value) -> NVal {
        self.vals.push(v);
        NVal(self.vals.len() as u32 - 1)
    }

    fn get(&self, v: NVal) -> Value {
        self.vals[v.0 as usize]
    }

    fn as_f64(&mut self, v: NVal) -> Value {
        let w = self.get(v);
        self.b.ins().bitcast(F64, MemFlagsData::new(), w)
    }

    fn bool_word(&mut self, c: Value) -> NVal {
        let w = self.b.ins().uextend(I64, c);
        self.push(w)
    }

    /// Calls the step's slot form on its wire inputs (the first `ins` values)
    /// and returns its outputs.
    fn emit_rule_call(&mut self) -> Vec<Value> {
        self.called = true;
        match self.failure_site {
            Some((FailureSite::Position(word), buf, position)) => {
                let at = self.b.ins().iconst(I64, position as i64);
                self.b.ins().store(MemFlagsData::trusted(), at, buf, 8 * word as i32);
            }
            Some((FailureSite::Row { progress, row }, _, _)) => {
                self.b.ins().store(MemFlagsData::trusted(), row, progress, 0);
            }
            None => {}
        }
        let (n_in, n_out) = (self.step.ins.len(), self.step.out_count());
        let call = Box::new(SlotCall { node: self.step.eval.clone(), ins: n_in, outs: n_out });
        let call_addr = &*call as *const SlotCall as u64;
        self.calls.push(call);
        let bytes = (8 * (n_in + n_out)).max(8) as u32;
        let area = self.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, bytes, 3));
        for i in 0..n_in {
            let v = self.vals[i];
            self.b.ins().stack_store(I64, v, area, 8 * i as i32);
        }
        let ins_addr = self.b.ins().stack_addr(I64, area, 0);
        let outs_addr = self.b.ins().stack_addr(I64, area, 8 * n_in as i32);
        let call_ptr = self.b.ins().iconst(I64, call_addr as i64);
        self.b.ins().call(self.slot_call, &[call_ptr, ins_addr, outs_addr]);
        (0..n_out).map(|k| self.b.ins().stack_load(I64, I64, area, 8 * (n_in + k) as i32)).collect()
    }

    fn block(&mut self) -> Block {
        self.b.create_block()
    }

    /// `a / b` or `a % b`, 0 when `b` is 0: the divisor is replaced by 1
    /// when it is 0, so the divide instruction can never trap.
    fn divide(&mut self, a: NVal, b: NVal, remainder: bool) -> NVal {
        let (x, d) = (self.get(a), self.get(b));
        let zero = self.b.ins().icmp_imm_u(IntCC::Equal, d, 0);
        let one = self.b.ins().iconst(I64, 1);
        let safe = self.b.ins().select(zero, one, d);
        let q = match remainder {
            true => self.b.ins().urem(x, safe),
            false => self.b.ins().udiv(x, safe),
        };
        let nothing = self.b.ins().iconst(I64, 0);
        let v = self.b.ins().select(zero, nothing, q);
        self.push(v)
    }
}

impl Lower for CraneLower<'_, '_> {
    fn iconst(&mut self, v: u64) -> NVal {
        let hoisted = self.constants.as_deref_mut().and_then(|constants| constants.value(self.b, v));
        let c = hoisted.unwrap_or_else(|| self.b.ins().iconst(I64, v as i64));
        self.push(c)
    }
    fn iadd(&mut self, a: NVal, b: NVal) -> NVal {
        let (x, y) = (self.get(a), self.get(b));
        let hoisted = self.constants.as_deref_mut().and_then(|constants| constants.reassociated_add(self.b, x, y));
        let v = hoisted.unwrap_or_else(|| self.b.ins().iadd(x, y));
        self.push(v)
    }
    fn isub(&mut self, a: NVal, b: NVal) -> NVal {
        let (x, y) = (self.get(a), self.get(b));
        let v = self.b.ins().isub(x, y);
        self.push(v)
    }
    fn imul(&mut self, a: NVal, b: NVal) -> NVal {
        let (x, y) = (self.get(a), self.get(b));
        let v = self.b.ins().imul(x, y);
        self.push(v)
    }
    fn umulhi(&mut self, a: NVal, b: NVal) -> NVal {
        let (x, y) = (self.get(a), self.get(b));
        let v = self.b.ins().umulhi(x, y);
        self.push(v)
    }
    fn band(&mut self, a: NVal, b: NVal) -> NVal {
        let (x, y) = (self.get(a), self.get(b));
        let v = self.b.ins().band(x, y);
        self.push(v)
    }
    fn bor(&mut self, a: NVal, b: NVal) -> NVal {
        let (x, y) = (self.get(a), self.get(b));
        let v = self.b.ins().bor(x, y);
        self.push(v)
    }
    fn bxor(&mut self, a: NVal, b: NVal) -> NVal {
        let (x, y) = (self.get(a), self.get(b));
        let v = self.b.ins().bxor(x, y);
        self.push(v)
    }
    fn bnot(&mut self, a: NVal) -> NVal {
        let x = self.get(a);
        let v = self.b.ins().bnot(x);
        self.push(v)
    }
    fn ushr_imm(&mut self, a: NVal, n: u32) -> NVal {
        let x = self.get(a);
        let v = self.b.ins().ushr_imm_u(x, n as i64);
        self.push(v)
    }
    fn ishl_imm(&mut self, a: NVal, n: u32) -> NVal {
        let x = self.get(a);
        let v = self.b.ins().ishl_imm_u(x, n as i64);
        self.push(v)
    }
    fn ushr(&mut self, a: NVal, b: NVal) -> NVal {
        let (x, y) = (self.get(a), self.get(b));
        let v = self.b.ins().ushr(x, y);
        self.push(v)
    }
    fn ishl(&mut self, a: NVal, b: NVal) -> NVal {
        let (x, y) = (self.get(a), self.get(b));
        let v = self.b.ins().ishl(x, y);
        self.push(v)
    }
    fn udiv_or_zero(&mut self, a: NVal, b: NVal) -> NVal {
        self.divide(a, b, false)
    }
    fn urem_or_zero(&mut self, a: NVal, b: NVal) -> NVal {
        self.divide(a, b, true)
    }
    fn icmp(&mut self, cmp: ICmp, a: NVal, b: NVal) -> NVal {
        let cc = match cmp {
            ICmp::Eq => IntCC::Equal,
            ICmp::Ne => IntCC::NotEqual,
            ICmp::Lt => IntCC::UnsignedLessThan,
            ICmp::Gt => IntCC::UnsignedGreaterThan,
            ICmp::Le => IntCC::UnsignedLessThanOrEqual,
            ICmp::Ge => IntCC::UnsignedGreaterThanOrEqual,
        };
        let (x, y) = (self.get(a), self.get(b));
        let c = self.b.ins().icmp(cc, x, y);
        self.bool_word(c)
    }
    fn select(&mut self, cond: NVal, a: NVal, b: NVal) -> NVal {
        let (c, x, y) = (self.get(cond), self.get(a), self.get(b));
        let v = self.b.ins().select(c, x, y);
        self.push(v)
    }
    fn fop(&mut self, op: FOp, a: NVal, b: NVal) -> NVal {
        let (x, y) = (self.as_f64(a), self.as_f64(b));
        let r = match op {
            FOp::Add => self.b.ins().fadd(x, y),
            FOp::Sub => self.b.ins().fsub(x, y),
            FOp::Mul => self.b.ins().fmul(x, y),
            FOp::Div => self.b.ins().fdiv(x, y),
        };
        let w = self.b.ins().bitcast(I64, MemFlagsData::new(), r);
        let w = self.push(w);
        self.canonical(w)
    }
    fn fsqrt(&mut self, a: NVal) -> NVal {
        let x = self.as_f64(a);
        let r = self.b.ins().sqrt(x);
        let w = self.b.ins().bitcast(I64, MemFlagsData::new(), r);
        let w = self.push(w);
        self.canonical(w)
    }
    fn fcmp(&mut self, cmp: FCmp, a: NVal, b: NVal) -> NVal {
        let cc = match cmp {
            FCmp::Eq => FloatCC::Equal,
            FCmp::Ne => FloatCC::NotEqual,
            FCmp::Lt => FloatCC::LessThan,
            FCmp::Gt => FloatCC::GreaterThan,
            FCmp::Le => FloatCC::LessThanOrEqual,
            FCmp::Ge => FloatCC::GreaterThanOrEqual,
        };
        let (x, y) = (self.as_f64(a), self.as_f64(b));
        let c = self.b.ins().fcmp(cc, x, y);
        self.bool_word(c)
    }
    fn u64_to_f64(&mut self, a: NVal) -> NVal {
        let x = self.get(a);
        let f = self.b.ins().fcvt_from_uint(F64, x);
        let w = self.b.ins().bitcast(I64, MemFlagsData::new(), f);
        self.push(w)
    }
    fn i64_to_f64(&mut self, a: NVal) -> NVal {
        let x = self.get(a);
        let f = self.b.ins().fcvt_from_sint(F64, x);
        let w = self.b.ins().bitcast(I64, MemFlagsData::new(), f);
        self.push(w)
    }
    fn f64_to_u64(&mut self, a: NVal) -> NVal {
        let f = self.as_f64(a);
        let v = self.b.ins().fcvt_to_uint_sat(I64, f);
        self.push(v)
    }
    fn canonical(&mut self, a: NVal) -> NVal {
        // On the bits, as integers, like the rules' own policy.
        let w = self.get(a);
        let magnitude = self.b.ins().band_imm_u(w, 0x7fff_ffff_ffff_ffff);
        let is_nan = self.b.ins().icmp_imm_u(IntCC::UnsignedGreaterThan, magnitude, 0x7ff0_0000_0000_0000);
        let canon = self.b.ins().iconst(I64, CANONICAL_NAN as i64);
        let v = self.b.ins().select(is_nan, canon, w);
        self.push(v)
    }
    fn call_rule(&mut self) -> Vec<NVal> {
        let outs = self.emit_rule_call();
        outs.into_iter().map(|v| self.push(v)).collect()
    }
    fn call_rule_if(&mut self, cond: NVal) {
        let (fail, done) = (self.block(), self.block());
        let c = self.get(cond);
        self.b.ins().brif(c, fail, &[], done, &[]);
        self.b.switch_to_block(fail);
        self.b.seal_block(fail);
        self.emit_rule_call();
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
        self.b.seal_block(done);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::compile_sketch;

    #[test]
    fn a_long_step_list_is_compiled_in_bounded_pieces() {
        let n = 2 * MAX_FUNCTION_STEPS + 10;
        let chain: String = (1..n).map(|i| format!("v{i} := u64_xor(v{}, x)\n", i - 1)).collect();
        let src = format!("input x: u64\nv0 := hash(x)\n{chain}");
        let program = compile_sketch(&src);
        let layout = Layout::new(&program);
        let steps: Vec<u32> = (0..program.steps.len() as u32).collect();
        let mut module = Module::new().unwrap();
        module.steps_function(&program, &layout, &steps).unwrap();
        assert_eq!(module.functions, 3 + 1, "three pieces, and the function calling them in order");
        let mut one = Module::new().unwrap();
        one.steps_function(&program, &layout, &steps[..MAX_FUNCTION_STEPS]).unwrap();
        assert_eq!(one.functions, 1);
    }

    /// The engine ladder: `shard` and `class` narrow values `token`'s
    /// computation also reads, so they are stored after it; `account` is
    /// read by other steps and is stored first.
    #[test]
    fn a_sink_narrowing_a_value_read_elsewhere_is_stored_last() {
        let src = "input cycle: u64\ninput seed: u64\nid := hash(u64_add(cycle, seed))\naccount := mod(id, 1000)\n\
                   route := hash(u64_xor(account, seed))\nshard := mod(route, 64)\npayload := hash(u64_add(id, seed))\n\
                   class := mod(payload, 8)\ntoken := hash(u64_add(route, payload))";
        let program = compile_sketch(src);
        let steps = program.cycle_steps.clone();
        let names = ["account", "shard", "class", "token"];
        let column =
            |n: &&str| RowColumn { slot: program.outputs[program.output(n).unwrap()].slot, width: 8, truth: false };
        let columns: Vec<RowColumn> = names.iter().map(column).collect();
        let order: Vec<&str> = store_order(&program, &steps, &columns).into_iter().map(|k| names[k]).collect();
        assert_eq!(order, ["account", "token", "shard", "class"]);
        // Independent sinks keep their column order.
        let program = compile_sketch("input c: u64\na := hash(c)\nb := mod(c, 9)");
        let steps = program.cycle_steps.clone();
        let column =
            |n: &&str| RowColumn { slot: program.outputs[program.output(n).unwrap()].slot, width: 8, truth: false };
        let columns: Vec<RowColumn> = ["b", "a"].iter().map(column).collect();
        assert_eq!(store_order(&program, &steps, &columns), [0, 1]);
    }

    /// The ladder's identity hash (its seeded add and the hash) runs one
    /// row ahead, and only its value is carried; a loop whose first step
    /// can fail runs nothing ahead.
    #[test]
    fn a_row_loops_leading_hash_runs_one_row_ahead() {
        let src = "input cycle: u64\ninput seed: u64\nid := hash(u64_add(cycle, seed))\naccount := mod(id, 1000)\n\
                   route := hash(u64_xor(account, seed))\npayload := hash(u64_add(id, seed))\n\
                   token := hash(u64_add(route, payload))";
        let split = |src: &str, names: &[&str]| {
            let program = compile_sketch(src);
            let steps = program.cycle_steps.clone();
            let written = written_slots(&program, &steps);
            let column =
                |n: &&str| RowColumn { slot: program.outputs[program.output(n).unwrap()].slot, width: 8, truth: false };
            let columns: Vec<RowColumn> = names.iter().map(column).collect();
            let (ahead, behind) = pipelined(&program, &steps, 0, &written, &columns);
            let id = program.output("id").map(|o| program.outputs[o].slot);
            (ahead, behind, steps, id)
        };
        let (ahead, behind, steps, id) = split(src, &["account", "token"]);
        assert_eq!(ahead.carried, [id.unwrap()]);
        assert!(!ahead.steps.is_empty() && !behind.is_empty());
        assert_eq!([&ahead.steps[..], &behind[..]].concat(), &steps[..]);
        let fallible = "input cycle: u64\ninput d: u64\nq := div_wire(cycle, d)\nid := hash(q)\nm := mod(id, 7)";
        let (ahead, behind, steps, _) = split(fallible, &["m"]);
        assert!(ahead.steps.is_empty() && ahead.carried.is_empty());
        assert_eq!(behind, &steps[..]);
    }

    /// A function of three words, `a`, `q` and `c`, built by `body` (given
    /// them), returning the value `body` gives back; and the return.
    fn function(body: impl FnOnce(&mut FunctionBuilder<'_>, [Value; 3]) -> Value) -> (Function, Inst, [Value; 3]) {
        let mut func = Function::new();
        func.signature.params.extend([AbiParam::new(I64); 3]);
        func.signature.returns.push(AbiParam::new(I64));
        let mut fbc = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut func, &mut fbc);
        let params: [Value; 3] = entry_block(&mut b).try_into().unwrap();
        let out = body(&mut b, params);
        let ret = b.ins().return_(&[out]);
        (func, ret, params)
    }

    /// `(p + q) + c` with `c` the same every row and `q` ready long before
    /// `p` (a multiply away) becomes `p + (q + c)`; with `p + q` read
    /// again, it stays.
    #[test]
    fn a_sum_adds_a_loop_constant_to_its_earlier_operand() {
        let mut late = None;
        let (mut func, ret, [_, q, c]) = function(|b, [a, q, c]| {
            let p = b.ins().imul(a, a);
            late = Some(p);
            let sum = b.ins().iadd(p, q);
            b.ins().iadd(sum, c)
        });
        LoopConstants::before(ret, [c].into_iter(), 0).shorten_sums(&mut func);
        let out = func.dfg.inst_args(ret)[0];
        let ValueDef::Result(last, 0) = func.dfg.value_def(out) else { panic!() };
        let [first, second] = func.dfg.inst_args(last) else { panic!() };
        assert_eq!(*first, late.unwrap());
        let ValueDef::Result(inner, 0) = func.dfg.value_def(*second) else { panic!() };
        assert_eq!(func.dfg.inst_args(inner), [q, c]);

        let (mut func, ret, [_, _, c]) = function(|b, [a, q, c]| {
            let p = b.ins().imul(a, a);
            let sum = b.ins().iadd(p, q);
            let once = b.ins().iadd(sum, c);
            b.ins().imul(once, sum)
        });
        let before = func.display().to_string();
        LoopConstants::before(ret, [c].into_iter(), 0).shorten_sums(&mut func);
        assert_eq!(func.display().to_string(), before);
    }

    /// A constant loaded before the loop and read once goes back in place
    /// as an `iconst` (an operand of its reader) when the loop is short of
    /// registers; one read twice stays loaded.
    #[test]
    fn a_loop_constant_read_once_goes_back_in_place() {
        let multiplier = 0x9E37_79B9_7F4A_7C15u64;
        for reads in [1, 2] {
            let mut constants = None;
            let (mut func, _, _) = function(|b, [a, _, _]| {
                let jump = b.ins().nop();
                let mut loop_constants = LoopConstants::before(jump, std::iter::empty(), 1);
                let m = loop_constants.value(b, multiplier).unwrap();
                let once = b.ins().imul(a, m);
                constants = Some((loop_constants, m));
                match reads {
                    1 => once,
                    _ => b.ins().imul(once, m),
                }
            });
            let (loop_constants, m) = constants.unwrap();
            assert_eq!(loop_constants.settle(&mut func, 0), 0, "registers to spare");
            assert_eq!(loop_constants.settle(&mut func, 1), usize::from(reads == 1));
            let ValueDef::Result(def, 0) = func.dfg.value_def(func.dfg.resolve_aliases(m)) else { panic!() };
            let opcode = func.dfg.insts[def].opcode();
            assert_eq!(opcode, if reads == 1 { Opcode::Iconst } else { Opcode::Load }, "{reads} reads");
        }
    }
}
