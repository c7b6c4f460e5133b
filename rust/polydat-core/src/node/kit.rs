//! Typed evaluation kits. A node's rule is one Rust closure over typed values;
//! a kit wraps it so that every engine form (P1 over `Value`s, P2 over 64-bit
//! slots) is derived from that one closure and cannot drift from it.

use super::by_bytes::{Arg, BytesEval, OutRef, Sink};
use super::{Args, NodeError, NodeEval};
use crate::types::PortType;
use crate::value::Value;
use std::marker::PhantomData;
use std::sync::Arc;

pub use super::slot::{
    canonical_f64_bits, canonical_value, slot_to_value, value_to_slot, Days, Millis, Scalar, CANONICAL_NAN_F32,
    CANONICAL_NAN_F64,
};

/// A result type a kit can write into a `Value` output.
pub trait Out: Send + Sync + 'static {
    /// The port type produced.
    const TYPE: PortType;
    /// Packs into a value (a string or byte string fails with
    /// [`super::limit::no_memory`] when its shared copy cannot be had).
    fn into_out(self) -> Result<Value, NodeError>;
    /// The by-reference value of a result, as its value holds it (the
    /// by-bytes form copies it out); [`OutRef::Scalar`] for a scalar.
    fn out_ref(&self) -> OutRef<'_> {
        OutRef::Scalar
    }
}

/// `node` as its by-bytes form when its result type `R` is by reference.
#[inline]
pub(crate) fn ref_form<R: Out>(node: &dyn BytesEval) -> Option<&dyn BytesEval> {
    R::TYPE.is_ref().then_some(node)
}

impl<T: Scalar> Out for T {
    const TYPE: PortType = T::TYPE;
    #[inline]
    fn into_out(self) -> Result<Value, NodeError> {
        Ok(self.canonical().into_value())
    }
}

impl Out for String {
    const TYPE: PortType = PortType::Str;
    fn into_out(self) -> Result<Value, NodeError> {
        super::limit::shared_str(&self).map(Value::Str)
    }
    fn out_ref(&self) -> OutRef<'_> {
        OutRef::Text(self)
    }
}

/// A shared string: lets a rule hand out a prebuilt string without copying it.
impl Out for Arc<str> {
    const TYPE: PortType = PortType::Str;
    fn into_out(self) -> Result<Value, NodeError> {
        Ok(Value::Str(self))
    }
    fn out_ref(&self) -> OutRef<'_> {
        OutRef::Text(self)
    }
}

impl Out for Vec<u8> {
    const TYPE: PortType = PortType::Bytes;
    fn into_out(self) -> Result<Value, NodeError> {
        super::limit::shared_bytes(&self).map(Value::Bytes)
    }
    fn out_ref(&self) -> OutRef<'_> {
        OutRef::Bytes(self)
    }
}

/// A P2 step: reads and writes words of an engine's flat buffer (see
/// [`NodeEval::slot_step`]).
pub type SlotStep = Box<dyn Fn(&mut [u64]) -> Result<(), NodeError> + Send + Sync>;

/// Where a threaded step reads one input (see [`NodeEval::threaded_step`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Src {
    /// The input's buffer word. Always valid: a value handed over in a
    /// register is stored too, so a step may read it either way.
    pub word: usize,
    /// The register the value also arrives in, if any (see [`ThreadStep`]).
    pub handed: Option<Handed>,
}

/// A register a thread hands a value on in (see [`ThreadStep`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handed {
    /// `last`: the previous step's first output.
    Last,
    /// `before`: the first output of the step before that.
    Before,
}

impl Src {
    /// The inputs `ins` as two masks — bit `i` of the first: input `i` is
    /// handed over as `last`; of the second: as `before` — over the first `regs`
    /// inputs (later ones read their words), and the inputs' words; so a
    /// step can be compiled for its masks and read each input without a test.
    pub fn split<const N: usize>(ins: [Src; N], regs: usize) -> (u8, u8, [usize; N]) {
        let mask = |reg| (0..N.min(regs)).filter(|&i| ins[i].handed == Some(reg)).fold(0u8, |m, i| m | 1 << i);
        (mask(Handed::Last), mask(Handed::Before), ins.map(|src| src.word))
    }
}

/// Input `i` of a threaded step compiled for handed-over masks `LAST` and
/// `BEFORE` (see [`Src::split`]): a handed-over value, or its buffer word
/// (`None` past the buffer's end, which a built plan never addresses).
#[inline(always)]
fn input<const LAST: u8, const BEFORE: u8>(
    i: usize,
    words: &[usize],
    buf: &[u64],
    last: u64,
    before: u64,
) -> Option<u64> {
    if LAST >> i & 1 == 1 {
        Some(last)
    } else if BEFORE >> i & 1 == 1 {
        Some(before)
    } else {
        buf.get(words[i]).copied()
    }
}

/// The failure of a threaded step addressing a word past the buffer's end
/// (an engine bug, never a node's failure). Threaded steps report it rather
/// than panic: with no panic path a step needs no stack frame, and every
/// call it makes is a tail call.
#[cold]
#[inline(never)]
fn off_buffer() -> Result<(), NodeError> {
    Err(NodeError::new("internal: a P2 step addressed a word past the end of its buffer"))
}

/// The failure of a thread run past its [`ThreadStep::done`] (an engine
/// bug); see [`off_buffer`] for why it is not a panic.
#[cold]
#[inline(never)]
fn ran_past_end() -> Result<(), NodeError> {
    Err(NodeError::new("internal: a P2 thread ran past its end"))
}

/// A P2 threaded step (see [`NodeEval::threaded_step`]): runs over the
/// buffer with the first outputs of the two steps before it handed over in
/// registers, then passes its own first output and the newer of those on to
/// the rest of its thread ([`ThreadStep::run`]).
pub struct ThreadStep(Box<ThreadFn>);

/// The closure behind a [`ThreadStep`]: the buffer, the values handed over
/// (`last`: the previous step's first output; `before`: the one before's),
/// and the rest of the thread. The buffer comes as a thin pointer (its
/// words and length are loaded where used) so that the arguments fit the
/// six integer registers of a call: with one on the stack, a step's call
/// of the next is no longer a tail call.
type ThreadFn = dyn Fn(&mut Vec<u64>, u64, u64, &[ThreadStep]) -> Result<(), NodeError> + Send + Sync;

impl ThreadStep {
    /// Wraps a step closure; it ends with [`ThreadStep::run`] on the rest of its thread.
    pub fn new(
        f: impl Fn(&mut Vec<u64>, u64, u64, &[ThreadStep]) -> Result<(), NodeError> + Send + Sync + 'static,
    ) -> Self {
        ThreadStep(Box::new(f))
    }

    /// The step that ends every thread (see [`ThreadStep::run`]).
    pub fn done() -> Self {
        ThreadStep::new(|_, _, _, _| Ok(()))
    }

    /// Runs `thread` over `buf`, handing `last` and `before` to its first step. Each
    /// step finds the next by position in the thread, so the steps' closures
    /// are reached without loading one from another, and a step's call of
    /// the rest of its thread is a tail call (a jump). A thread ends with
    /// [`ThreadStep::done`], so the call is the only way out of a step (a
    /// branch returning early would cost the tail call).
    #[inline(always)]
    #[allow(clippy::ptr_arg)] // a thin pointer: see `ThreadFn`
    pub fn run(thread: &[ThreadStep], buf: &mut Vec<u64>, last: u64, before: u64) -> Result<(), NodeError> {
        match thread.split_first() {
            Some((step, rest)) => (step.0)(buf, last, before, rest),
            None => ran_past_end(),
        }
    }
}

/// The most rows a P2 block step runs at once (see [`NodeEval::block_step`]).
pub const BLOCK: usize = 256;

/// A P2 block step: runs a node over the first `n ≤ BLOCK` rows of a block
/// buffer (see [`NodeEval::block_step`]).
pub type BlockStep = Box<dyn Fn(&mut [u64], usize) -> Result<(), NodeError> + Send + Sync>;

/// The P2 form of a node: inputs and outputs as 64-bit slots.
pub trait SlotEval: Send + Sync {
    /// Evaluates over slot values.
    fn eval_slots(&self, ins: &[u64], outs: &mut [u64]) -> Result<(), NodeError>;
}

#[inline]
fn arg<A: Scalar>(args: &Args<'_>, i: usize) -> Result<A, NodeError> {
    A::from_value(args.get(i)).ok_or_else(|| wrong_type(args.get(i), A::TYPE))
}

#[inline]
fn str_arg<'a>(args: &Args<'a>, i: usize) -> Result<&'a str, NodeError> {
    args.get(i).as_str().ok_or_else(|| wrong_type(args.get(i), PortType::Str))
}

#[cold]
fn wrong_type(v: &Value, want: PortType) -> NodeError {
    NodeError::new(format!("internal: expected {want}, got {v}"))
}

/// What a kit's rule returns: a scalar (an infallible rule), or a scalar or
/// the failure message (a fallible one). Every engine form goes through
/// [`RuleOutput::into_result`], so both kinds share one kit.
pub trait RuleOutput: 'static {
    /// The scalar produced on success.
    type Value: Scalar;
    /// The rule's result as a node result.
    fn into_result(self) -> Result<Self::Value, NodeError>;
}

impl<R: Scalar> RuleOutput for R {
    type Value = R;
    #[inline(always)]
    fn into_result(self) -> Result<R, NodeError> {
        Ok(self.canonical())
    }
}

impl<R: Scalar> RuleOutput for Result<R, String> {
    type Value = R;
    #[inline(always)]
    fn into_result(self) -> Result<R, NodeError> {
        self.map(R::canonical).map_err(NodeError::new)
    }
}

macro_rules! scalar_kits {
    ($map:ident, $map_fn:ident, $try_fn:ident, $n:literal, $regs:literal, [$(($last:literal, $before:literal))+], $($A:ident $i:tt),+) => {
        /// All-scalar kit: a rule over typed scalars, infallible or fallible
        /// (see [`RuleOutput`]), and every engine form derived from it.
        pub struct $map<$($A,)+ O, F> { f: F, _t: PhantomData<fn($($A),+) -> O> }

        /// Wraps an infallible scalar rule as a node.
        pub fn $map_fn<$($A: Scalar,)+ R: Scalar>(f: impl Fn($($A),+) -> R + Send + Sync + 'static) -> Box<dyn NodeEval> {
            Box::new($map { f, _t: PhantomData })
        }

        /// Wraps a fallible scalar rule (returning the failure message) as a node.
        pub fn $try_fn<$($A: Scalar,)+ R: Scalar>(f: impl Fn($($A),+) -> Result<R, String> + Send + Sync + 'static) -> Box<dyn NodeEval> {
            Box::new($map { f, _t: PhantomData })
        }

        impl<$($A: Scalar,)+ O: RuleOutput, F: Fn($($A),+) -> O + Send + Sync + 'static> NodeEval for $map<$($A,)+ O, F> {
            #[inline]
            fn eval(&self, args: &Args<'_>, outs: &mut [Value]) -> Result<(), NodeError> {
                (self.f)($(arg::<$A>(args, $i)?),+).into_result()?.store(&mut outs[0]);
                Ok(())
            }
            fn slot_form(&self) -> Option<&dyn SlotEval> { Some(self) }
            fn slot_step(self: Arc<Self>, ins: &[usize], out: usize, _outs: usize) -> Option<SlotStep> {
                let at: [usize; $n] = ins.try_into().ok()?;
                Some(Box::new(move |buf: &mut [u64]| {
                    buf[out] = (self.f)($($A::from_slot(buf[at[$i]])),+).into_result()?.to_slot();
                    Ok(())
                }))
            }
            fn threaded_step(self: Arc<Self>, ins: &[Src], out: usize, _outs: usize) -> Option<ThreadStep> {
                let (last, before, words) = Src::split(<[Src; $n]>::try_from(ins).ok()?, $regs);
                Some(match (last, before) {
                    $(($last, $before) => self.threaded_for::<$last, $before>(words, out),)+
                    // Both registers in one input cannot happen (they hold different steps' outputs).
                    _ => self.threaded_for::<0, 0>(words, out),
                })
            }
            fn block_step(self: Arc<Self>, ins: &[usize], out: usize, _outs: usize) -> Option<BlockStep> {
                let at: [usize; $n] = ins.try_into().ok()?;
                Some(Box::new(move |buf: &mut [u64], n: usize| {
                    let mut rows = [0u64; BLOCK];
                    let rows = &mut rows[..n];
                    {
                        let cols: [&[u64]; $n] = [$(&buf[at[$i]..at[$i] + n]),+];
                        for (r, row) in rows.iter_mut().enumerate() {
                            *row = (self.f)($($A::from_slot(cols[$i][r])),+).into_result()?.to_slot();
                        }
                    }
                    buf[out..out + n].copy_from_slice(rows);
                    Ok(())
                }))
            }
        }
        impl<$($A: Scalar,)+ O: RuleOutput, F: Fn($($A),+) -> O + Send + Sync + 'static> $map<$($A,)+ O, F> {
            /// The threaded step for handed-over masks `LAST` and `BEFORE` (see [`Src::split`]).
            fn threaded_for<const LAST: u8, const BEFORE: u8>(self: Arc<Self>, words: [usize; $n], out: usize) -> ThreadStep {
                ThreadStep::new(move |buf: &mut Vec<u64>, last: u64, before: u64, rest: &[ThreadStep]| {
                    let mut x = [0u64; $n];
                    for (i, x) in x.iter_mut().enumerate() {
                        match input::<LAST, BEFORE>(i, &words, buf, last, before) {
                            Some(word) => *x = word,
                            None => return off_buffer(),
                        }
                    }
                    let v = (self.f)($($A::from_slot(x[$i])),+).into_result()?.to_slot();
                    match buf.get_mut(out) {
                        Some(word) => *word = v,
                        None => return off_buffer(),
                    }
                    ThreadStep::run(rest, buf, v, last)
                })
            }
        }
        impl<$($A: Scalar,)+ O: RuleOutput, F: Fn($($A),+) -> O + Send + Sync> SlotEval for $map<$($A,)+ O, F> {
            #[inline]
            fn eval_slots(&self, ins: &[u64], outs: &mut [u64]) -> Result<(), NodeError> {
                outs[0] = (self.f)($($A::from_slot(ins[$i])),+).into_result()?.to_slot();
                Ok(())
            }
        }
    };
}

// Register patterns: every one for the first two inputs (a third input reads its word).
scalar_kits!(Map1, map1, try_map1, 1, 1, [(0, 0) (1, 0) (0, 1)], A 0);
scalar_kits!(Map2, map2, try_map2, 2, 2, [(0, 0) (1, 0) (2, 0) (3, 0) (0, 1) (0, 2) (0, 3) (1, 2) (2, 1)], A 0, B 1);
scalar_kits!(Map3, map3, try_map3, 3, 2, [(0, 0) (1, 0) (2, 0) (3, 0) (0, 1) (0, 2) (0, 3) (1, 2) (2, 1)], A 0, B 1, C 2);

/// Kit for a zero-input scalar producer (constants, clocks, counters).
pub struct Source<R, F> {
    f: F,
    _t: PhantomData<fn() -> R>,
}

/// Wraps a zero-input rule as a node.
pub fn source<R: Scalar>(f: impl Fn() -> R + Send + Sync + 'static) -> Box<dyn NodeEval> {
    Box::new(Source { f, _t: PhantomData })
}

impl<R: Scalar, F: Fn() -> R + Send + Sync + 'static> NodeEval for Source<R, F> {
    fn eval(&self, _args: &Args<'_>, outs: &mut [Value]) -> Result<(), NodeError> {
        (self.f)().canonical().store(&mut outs[0]);
        Ok(())
    }
    fn slot_form(&self) -> Option<&dyn SlotEval> {
        Some(self)
    }
    fn slot_step(self: Arc<Self>, _ins: &[usize], out: usize, _outs: usize) -> Option<SlotStep> {
        Some(Box::new(move |buf: &mut [u64]| {
            buf[out] = (self.f)().canonical().to_slot();
            Ok(())
        }))
    }
}

impl<R: Scalar, F: Fn() -> R + Send + Sync> SlotEval for Source<R, F> {
    fn eval_slots(&self, _ins: &[u64], outs: &mut [u64]) -> Result<(), NodeError> {
        outs[0] = (self.f)().canonical().to_slot();
        Ok(())
    }
}

/// Kit for a scalar-input rule with a by-reference result (string, bytes).
pub struct ScalarToRef<A, R, F> {
    f: F,
    _t: PhantomData<fn(A) -> R>,
}

/// Wraps `fn(scalar) -> String/Vec<u8>` as a node.
pub fn to_ref<A: Scalar, R: Out>(f: impl Fn(A) -> R + Send + Sync + 'static) -> Box<dyn NodeEval> {
    Box::new(ScalarToRef { f, _t: PhantomData })
}

impl<A: Scalar, R: Out, F: Fn(A) -> R + Send + Sync> NodeEval for ScalarToRef<A, R, F> {
    fn eval(&self, args: &Args<'_>, outs: &mut [Value]) -> Result<(), NodeError> {
        outs[0] = (self.f)(arg::<A>(args, 0)?).into_out()?;
        Ok(())
    }
    fn bytes_form(&self) -> Option<&dyn BytesEval> {
        ref_form::<R>(self)
    }
}

impl<A: Scalar, R: Out, F: Fn(A) -> R + Send + Sync> BytesEval for ScalarToRef<A, R, F> {
    fn eval_bytes(&self, ins: &[Arg<'_>], out: Sink<'_>) -> Result<(), NodeError> {
        out.put((self.f)(ins[0].scalar::<A>()?).out_ref())
    }
    fn appends(&self) -> bool {
        true
    }
}

/// Kit for a rule over one string input.
pub struct StrMap<R, F> {
    f: F,
    _t: PhantomData<fn() -> R>,
}

/// Wraps `fn(&str) -> Result<R, String>` as a node (R a scalar or String).
pub fn str_map<R: Out>(f: impl Fn(&str) -> Result<R, String> + Send + Sync + 'static) -> Box<dyn NodeEval> {
    Box::new(StrMap { f, _t: PhantomData })
}

impl<R: Out, F: Fn(&str) -> Result<R, String> + Send + Sync> NodeEval for StrMap<R, F> {
    fn eval(&self, args: &Args<'_>, outs: &mut [Value]) -> Result<(), NodeError> {
        outs[0] = (self.f)(str_arg(args, 0)?).map_err(NodeError::new)?.into_out()?;
        Ok(())
    }
    fn bytes_form(&self) -> Option<&dyn BytesEval> {
        ref_form::<R>(self)
    }
}

impl<R: Out, F: Fn(&str) -> Result<R, String> + Send + Sync> BytesEval for StrMap<R, F> {
    fn eval_bytes(&self, ins: &[Arg<'_>], out: Sink<'_>) -> Result<(), NodeError> {
        out.put((self.f)(ins[0].text()?).map_err(NodeError::new)?.out_ref())
    }
    fn appends(&self) -> bool {
        true
    }
}

/// Kit for a rule over two string inputs.
pub struct StrMap2<R, F> {
    f: F,
    _t: PhantomData<fn() -> R>,
}

/// Wraps `fn(&str, &str) -> R` as a node (R a scalar or String).
pub fn str_map2<R: Out>(f: impl Fn(&str, &str) -> R + Send + Sync + 'static) -> Box<dyn NodeEval> {
    Box::new(StrMap2 { f, _t: PhantomData })
}

impl<R: Out, F: Fn(&str, &str) -> R + Send + Sync> NodeEval for StrMap2<R, F> {
    fn eval(&self, args: &Args<'_>, outs: &mut [Value]) -> Result<(), NodeError> {
        outs[0] = (self.f)(str_arg(args, 0)?, str_arg(args, 1)?).into_out()?;
        Ok(())
    }
}

/// Kit for a node that forwards one of its wire inputs unchanged, chosen by a
/// rule over scalar wire 0 (`select_str`): the rule returns the index of the
/// wire to pass on. The chosen value is shared, never copied.
pub struct PickWire<A, F> {
    f: F,
    _t: PhantomData<fn(A) -> usize>,
}

/// Wraps `fn(scalar) -> wire index` as a node.
pub fn pick_wire<A: Scalar>(f: impl Fn(A) -> usize + Send + Sync + 'static) -> Box<dyn NodeEval> {
    Box::new(PickWire { f, _t: PhantomData })
}

impl<A: Scalar, F: Fn(A) -> usize + Send + Sync> NodeEval for PickWire<A, F> {
    fn eval(&self, args: &Args<'_>, outs: &mut [Value]) -> Result<(), NodeError> {
        let i = (self.f)(arg::<A>(args, 0)?);
        if i >= args.len() {
            return Err(picked_past(i, args.len()));
        }
        outs[0] = args.get(i).clone();
        canonical_value(&mut outs[0]);
        Ok(())
    }
    /// The by-bytes form copies the chosen wire's bytes (engines use it only
    /// when the output, and so every wire picked from, is by reference).
    fn bytes_form(&self) -> Option<&dyn BytesEval> {
        Some(self)
    }
}

impl<A: Scalar, F: Fn(A) -> usize + Send + Sync> BytesEval for PickWire<A, F> {
    fn eval_bytes(&self, ins: &[Arg<'_>], out: Sink<'_>) -> Result<(), NodeError> {
        let i = (self.f)(ins[0].scalar::<A>()?);
        match ins.get(i) {
            Some(Arg::Text(t)) => out.put(OutRef::Text(t)),
            Some(arg) => out.put(OutRef::Bytes(arg.bytes()?)),
            None => Err(picked_past(i, ins.len())),
        }
    }
    fn appends(&self) -> bool {
        true
    }
}

#[cold]
fn picked_past(i: usize, len: usize) -> NodeError {
    NodeError::new(format!("internal: picked wire {i} of {len}"))
}

/// Kit for a node with a hand-written rule over whole `Value`s (variadic,
/// polymorphic or None-accepting nodes).
pub struct ValueFn<F> {
    f: F,
}

/// Wraps `fn(&Args, &mut [Value])` as a node.
pub fn value_fn(
    f: impl Fn(&Args<'_>, &mut [Value]) -> Result<(), NodeError> + Send + Sync + 'static,
) -> Box<dyn NodeEval> {
    Box::new(ValueFn { f })
}

impl<F: Fn(&Args<'_>, &mut [Value]) -> Result<(), NodeError> + Send + Sync> NodeEval for ValueFn<F> {
    fn eval(&self, args: &Args<'_>, outs: &mut [Value]) -> Result<(), NodeError> {
        (self.f)(args, outs)?;
        outs.iter_mut().for_each(canonical_value);
        Ok(())
    }
}

/// Kit for variadic all-u64 folds (`sum`, `product`, `min`, `max`).
pub struct FoldU64<F> {
    init: u64,
    f: F,
}

/// Wraps a u64 fold with its identity as a node.
pub fn fold_u64(init: u64, f: impl Fn(u64, u64) -> u64 + Send + Sync + 'static) -> Box<dyn NodeEval> {
    Box::new(FoldU64 { init, f })
}

impl<F: Fn(u64, u64) -> u64 + Send + Sync + 'static> NodeEval for FoldU64<F> {
    fn eval(&self, args: &Args<'_>, outs: &mut [Value]) -> Result<(), NodeError> {
        let mut acc = self.init;
        for i in 0..args.len() {
            acc = (self.f)(acc, arg::<u64>(args, i)?);
        }
        acc.store(&mut outs[0]);
        Ok(())
    }
    fn slot_form(&self) -> Option<&dyn SlotEval> {
        Some(self)
    }
    fn slot_step(self: Arc<Self>, ins: &[usize], out: usize, _outs: usize) -> Option<SlotStep> {
        let at: Box<[usize]> = ins.into();
        Some(Box::new(move |buf: &mut [u64]| {
            buf[out] = at.iter().fold(self.init, |a, &i| (self.f)(a, buf[i]));
            Ok(())
        }))
    }
}

impl<F: Fn(u64, u64) -> u64 + Send + Sync> SlotEval for FoldU64<F> {
    fn eval_slots(&self, ins: &[u64], outs: &mut [u64]) -> Result<(), NodeError> {
        outs[0] = ins.iter().fold(self.init, |a, &b| (self.f)(a, b));
        Ok(())
    }
}

/// Kit for a u64 input with several u64 outputs (`mixed_radix`, `date_components`).
pub struct SplitU64<F> {
    f: F,
}

/// Wraps `fn(u64, &mut [u64])` (writing every output) as a node.
pub fn split_u64(f: impl Fn(u64, &mut [u64]) + Send + Sync + 'static) -> Box<dyn NodeEval> {
    Box::new(SplitU64 { f })
}

impl<F: Fn(u64, &mut [u64]) + Send + Sync + 'static> NodeEval for SplitU64<F> {
    fn eval(&self, args: &Args<'_>, outs: &mut [Value]) -> Result<(), NodeError> {
        let mut tmp = [0u64; 16];
        let n = outs.len().min(16);
        (self.f)(arg::<u64>(args, 0)?, &mut tmp[..n]);
        for (o, v) in outs.iter_mut().zip(tmp) {
            v.store(o);
        }
        Ok(())
    }
    fn slot_form(&self) -> Option<&dyn SlotEval> {
        Some(self)
    }
    fn slot_step(self: Arc<Self>, ins: &[usize], out: usize, outs: usize) -> Option<SlotStep> {
        let [at] = ins.try_into().ok()?;
        Some(Box::new(move |buf: &mut [u64]| {
            let x = buf[at];
            (self.f)(x, &mut buf[out..out + outs]);
            Ok(())
        }))
    }
}

impl<F: Fn(u64, &mut [u64]) + Send + Sync> SlotEval for SplitU64<F> {
    fn eval_slots(&self, ins: &[u64], outs: &mut [u64]) -> Result<(), NodeError> {
        (self.f)(ins[0], outs);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_encoding_round_trips() {
        assert_eq!(i32::from_slot((-5i32).to_slot()), -5);
        assert_eq!((-5i32).to_slot(), (-5i64) as u64, "narrow signed ints are sign-extended");
        assert_eq!(f64::from_slot((-0.0f64).to_slot()).to_bits(), (-0.0f64).to_bits());
        assert_eq!(true.to_slot(), 1);
        assert!(matches!(slot_to_value(PortType::F32, 1.5f32.to_slot()), Value::F32(x) if x == 1.5));
    }

    #[test]
    fn nan_results_are_canonical_in_every_form() {
        let payload = f64::from_bits(0xfff8_0000_dead_beef);
        let node = map2(|a: f64, b: f64| a + b);
        for (a, b) in [(f64::NAN, -f64::NAN), (-f64::NAN, f64::NAN), (payload, 1.0), (1.0, payload)] {
            let mut out = [Value::None];
            node.eval(&Args::new(&[Value::F64(a), Value::F64(b)], &[0, 1]), &mut out).unwrap();
            assert_eq!(out[0].as_f64().unwrap().to_bits(), CANONICAL_NAN_F64);
            let mut slot = [0u64];
            node.slot_form().unwrap().eval_slots(&[a.to_bits(), b.to_bits()], &mut slot).unwrap();
            assert_eq!(slot[0], CANONICAL_NAN_F64);
        }
        let f32_node = map1(|x: f32| x * 2.0);
        let mut slot = [0u64];
        f32_node.slot_form().unwrap().eval_slots(&[f32::from_bits(0xffc0_0001).to_bits() as u64], &mut slot).unwrap();
        assert_eq!(slot[0], CANONICAL_NAN_F32 as u64);
        assert_eq!((-0.0f64).canonical().to_bits(), (-0.0f64).to_bits(), "only NaN changes");
        let mut v = Value::F64(-f64::NAN);
        canonical_value(&mut v);
        assert_eq!(v.as_f64().unwrap().to_bits(), CANONICAL_NAN_F64);
    }

    #[test]
    fn map_forms_agree() {
        let node = map2(|a: u64, b: u64| a.wrapping_add(b));
        let vals = [Value::U64(u64::MAX), Value::U64(2)];
        let mut out = [Value::None];
        node.eval(&Args::new(&vals, &[0, 1]), &mut out).unwrap();
        let mut slot = [0u64];
        node.slot_form().unwrap().eval_slots(&[u64::MAX, 2], &mut slot).unwrap();
        assert!(out[0].same(&Value::U64(1)));
        assert_eq!(slot[0], 1);
    }
}
