//! The value half of a compiled kernel state: the flat `u64` buffer, the per-slot
//! `None` mask, the Ref-slot scratch, and the reusable areas of the slot kit.
//! Encoding and decoding between `Value`s and slots, and running one step,
//! live here; *when* a step runs is the business of the mode (`modes.rs`).

use super::layout::{Color, Layout, NO_ENTRY};
use super::plan::{Exec, Executor};
use super::scratch::{Peers, Scratch};
use super::shape::{Shape, StepFacts};
use crate::columns::ColumnPart;
use crate::node::by_bytes::{Arg, BytesEval, Sink};
use crate::node::kit::{slot_to_value, value_to_slot};
use crate::node::{limit, Args, NodeError};
use crate::types::PortType;
use crate::value::Value;
use std::fmt;

/// A raw `u64` read of a slot that holds a `(ptr, len)` pair (axiom S2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefSlotRefused {
    /// The name of the slot read.
    pub slot: String,
    /// The slot's (by-reference) type.
    pub ty: PortType,
}

impl fmt::Display for RefSlotRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "'{}' is a {} Ref slot ((ptr, len) pair): raw u64 reads refuse it; read it as a value",
            self.slot, self.ty
        )
    }
}

impl std::error::Error for RefSlotRefused {}

/// Inputs of a by-bytes step taken on the stack (more are collected).
const ARGS_ON_STACK: usize = 8;

/// The value at buffer word `at` (scratch entry `entry`, [`NO_ENTRY`] for a
/// scalar) as a by-bytes form reads it: a scalar's word, a text entry's
/// text, a bytes entry's bytes.
#[inline(always)]
fn arg<'a>(scratch: &Peers<'a>, buf: &'a [u64], (at, entry): (u32, u32)) -> Arg<'a> {
    let at = at as usize;
    match entry {
        NO_ENTRY => Arg::Word(buf[at]),
        entry => match scratch.view_text(buf, at, entry as usize) {
            Some(text) => Arg::Text(text),
            None => Arg::Bytes(scratch.view(buf, at, entry as usize)),
        },
    }
}

/// Evaluates by-bytes form `form` over the values at `ins` (each a buffer
/// word and scratch entry) into `out`, with exactly as many arguments as
/// there are inputs, on the stack for the common counts.
#[inline(always)]
fn eval_form(
    form: &dyn BytesEval,
    ins: &[(u32, u32)],
    scratch: &Peers<'_>,
    buf: &[u64],
    out: Sink<'_>,
) -> Result<(), NodeError> {
    let at = |k: usize| arg(scratch, buf, ins[k]);
    match ins.len() {
        1 => form.eval_bytes(&[at(0)], out),
        2 => form.eval_bytes(&[at(0), at(1)], out),
        3 => form.eval_bytes(&[at(0), at(1), at(2)], out),
        n if n <= ARGS_ON_STACK => {
            let mut args = [Arg::Word(0); ARGS_ON_STACK];
            for (k, a) in args.iter_mut().enumerate().take(n) {
                *a = at(k);
            }
            form.eval_bytes(&args[..n], out)
        }
        _ => form.eval_bytes(&ins.iter().map(|&i| arg(scratch, buf, i)).collect::<Vec<_>>(), out),
    }
}

/// The failure of a by-bytes step whose node has no by-bytes form (a bug).
#[cold]
fn no_bytes_form() -> NodeError {
    NodeError::new("internal: a by-bytes step's node has no by-bytes form")
}

/// Buffer, None mask, scratch.
pub struct Slots {
    /// The flat word buffer: every value slot at its [`Layout::off`] word.
    pub buf: Vec<u64>,
    /// Per value slot: holds `None`.
    none: Vec<bool>,
    /// Number of value slots holding `None` (0 lets steps skip the None check).
    none_live: usize,
    scratch: Scratch,
    kit_in: Vec<Value>,
    kit_out: Vec<Value>,
}

impl Slots {
    /// A state with every input at its default and every other slot empty.
    pub fn new(plan: &Shape) -> Slots {
        let layout = &plan.layout;
        let mut s = Slots {
            buf: vec![0; layout.words],
            none: vec![false; layout.ty.len()],
            none_live: 0,
            scratch: Scratch::new(&layout.entry_text()),
            kit_in: Vec::new(),
            kit_out: Vec::new(),
        };
        s.scratch.repoint(&mut s.buf, &layout.refs);
        for (i, input) in plan.program.inputs.iter().enumerate() {
            // A default whose copy cannot be had leaves its input `None`.
            let _ = s.encode(layout, i, &input.default);
        }
        s
    }

    /// A deep copy whose pairs name its own scratch (never the donor's).
    pub fn fork(&self, layout: &Layout) -> Slots {
        let mut s = Slots {
            buf: self.buf.clone(),
            none: self.none.clone(),
            none_live: self.none_live,
            scratch: self.scratch.clone(),
            kit_in: Vec::new(),
            kit_out: Vec::new(),
        };
        s.scratch.repoint(&mut s.buf, &layout.refs);
        s
    }

    /// True when every Ref pair names its own scratch entry (axiom S9).
    pub fn pairs_are_own(&self, layout: &Layout) -> bool {
        self.scratch.verify(&self.buf, &layout.refs)
    }

    /// True when no value slot holds `None`.
    #[inline]
    pub fn none_free(&self) -> bool {
        self.none_live == 0
    }

    /// True when value slot `slot` holds `None`.
    #[inline]
    pub fn is_none(&self, slot: usize) -> bool {
        self.none[slot]
    }

    #[inline]
    fn set_none(&mut self, slot: usize, none: bool) {
        if self.none[slot] != none {
            self.none[slot] = none;
            if none {
                self.none_live += 1;
            } else {
                self.none_live -= 1;
            }
        }
    }

    /// Stores `v` (already of the slot's type, or `None`) into value slot `slot`.
    pub fn encode(&mut self, layout: &Layout, slot: usize, v: &Value) -> Result<(), NodeError> {
        let off = layout.off[slot] as usize;
        match layout.color(slot) {
            Color::Imm1 => {
                self.buf[off] = value_to_slot(v).unwrap_or(0);
                self.set_none(slot, value_to_slot(v).is_none());
                Ok(())
            }
            Color::Ref2 => {
                let e = layout.entry[slot] as usize;
                let copied = match v {
                    Value::Str(s) | Value::Json(s) => self.scratch.publish_text(&mut self.buf, off, e, s),
                    Value::Bytes(b) => self.scratch.publish_bytes(&mut self.buf, off, e, b),
                    Value::Vector(_, b) => self.scratch.publish_bytes(&mut self.buf, off, e, b),
                    v => match v.sixteen_bytes() {
                        Some(bytes) => self.scratch.publish_bytes(&mut self.buf, off, e, &bytes),
                        None => self.scratch.publish_text(&mut self.buf, off, e, ""),
                    },
                };
                // A value that could not be copied in leaves the slot `None`.
                let held = copied.is_ok()
                    && (matches!(v, Value::Str(_) | Value::Json(_) | Value::Bytes(_) | Value::Vector(..))
                        || v.sixteen_bytes().is_some());
                self.set_none(slot, !held);
                copied
            }
        }
    }

    /// Stores a u64 into input `slot`, whose word is `word` (a u64 slot).
    #[inline]
    pub fn store_u64(&mut self, slot: usize, word: usize, v: u64) {
        self.buf[word] = v;
        if self.none_live != 0 {
            self.set_none(slot, false);
        }
    }

    /// True when value slot `slot` holds exactly `v` (bit-exact; strings by content).
    pub fn holds(&self, layout: &Layout, slot: usize, v: &Value) -> bool {
        if v.is_none() || self.none[slot] {
            return v.is_none() && self.none[slot];
        }
        let off = layout.off[slot] as usize;
        match layout.color(slot) {
            Color::Imm1 => value_to_slot(v) == Some(self.buf[off]),
            Color::Ref2 => {
                let held = self.scratch.view(&self.buf, off, layout.entry[slot] as usize);
                match v {
                    Value::Str(s) | Value::Json(s) => held == s.as_bytes(),
                    Value::Bytes(b) => held == &b[..],
                    Value::Vector(_, b) => held == &b[..],
                    v => v.sixteen_bytes().is_some_and(|bytes| held == bytes),
                }
            }
        }
    }

    /// True when input `slot`, whose word is `word`, holds `v` (not `None`).
    #[inline]
    pub fn holds_u64(&self, slot: usize, word: usize, v: u64) -> bool {
        self.buf[word] == v && (self.none_live == 0 || !self.none[slot])
    }

    /// The value in slot `slot`, as an owned copy (a Ref slot's bytes are
    /// copied out; [`limit::no_memory`] when that copy cannot be had).
    #[inline(always)]
    pub fn decode(&self, layout: &Layout, slot: usize) -> Result<Value, NodeError> {
        if self.none[slot] {
            return Ok(Value::None);
        }
        let off = layout.off[slot] as usize;
        let ty = layout.ty[slot];
        match layout.color(slot) {
            Color::Imm1 => Ok(slot_to_value(ty, self.buf[off])),
            Color::Ref2 => self.decode_ref(layout, slot),
        }
    }

    /// The bytes of Ref slot `slot`, copied out as a value of its type.
    fn decode_ref(&self, layout: &Layout, slot: usize) -> Result<Value, NodeError> {
        let (off, e) = (layout.off[slot] as usize, layout.entry[slot] as usize);
        let text = || match self.scratch.view_text(&self.buf, off, e) {
            Some(s) => limit::shared_str(s),
            None => limit::shared_str(&String::from_utf8_lossy(self.scratch.view(&self.buf, off, e))),
        };
        Ok(match layout.ty[slot] {
            PortType::Json => Value::Json(text()?),
            PortType::Bytes => Value::Bytes(limit::shared_bytes(self.scratch.view(&self.buf, off, e))?),
            PortType::Vector(t) => Value::Vector(t, limit::shared_bytes(self.scratch.view(&self.buf, off, e))?),
            ty if ty.is_sixteen_bytes() => Value::sixteen_bytes_row(self.scratch.view(&self.buf, off, e), ty),
            _ => Value::Str(text()?),
        })
    }

    /// The raw word of scalar slot `slot`; refuses Ref slots (an error, never a pointer).
    #[inline]
    pub fn read_u64(&self, layout: &Layout, slot: usize, name: &str) -> Result<Option<u64>, Box<RefSlotRefused>> {
        match layout.color(slot) {
            Color::Ref2 => Err(Box::new(RefSlotRefused { slot: name.to_string(), ty: layout.ty[slot] })),
            Color::Imm1 => Ok((!self.none[slot]).then(|| self.buf[layout.off[slot] as usize])),
        }
    }

    /// Runs one step of executor `X`: `None` propagation, then the scalar
    /// form, the by-bytes form or the slot kit. The common cases — a scalar
    /// or by-bytes step with no `None` anywhere — are one call of that form.
    #[inline(always)]
    pub fn run_step<X: Executor>(
        &mut self,
        layout: &Layout,
        facts: &StepFacts,
        exec: &Exec<X::Step>,
    ) -> Result<(), NodeError> {
        if self.none_live == 0 {
            match exec {
                Exec::Scalar(f) => return X::run(f, &mut self.buf),
                Exec::Kit { bytes: true, .. } => return self.run_bytes(facts, exec),
                Exec::Kit { .. } => {}
            }
        }
        self.run_step_general::<X>(layout, facts, exec)
    }

    /// Runs by-bytes step `facts` (run as `exec`; no input `None`): the
    /// node's by-bytes form ([`Exec::bytes_form`]) reads its scalar inputs'
    /// words and its by-reference inputs' scratch bytes and writes its
    /// output's scratch entry in place ([`Scratch::rewrite`]); no `Value` is made.
    #[inline]
    pub fn run_bytes<S>(&mut self, facts: &StepFacts, exec: &Exec<S>) -> Result<(), NodeError> {
        match exec.bytes_form() {
            Some(form) => self.run_form(facts, form),
            None => Err(no_bytes_form()),
        }
    }

    /// [`Self::run_bytes`] with the node's by-bytes form already looked up.
    #[inline]
    pub fn run_form(&mut self, facts: &StepFacts, form: &dyn BytesEval) -> Result<(), NodeError> {
        let io = &facts.io;
        let (off, e) = (io.out_word as usize, io.out_entry as usize);
        let run = |scratch: &Peers<'_>, buf: &[u64], out: Sink<'_>| eval_form(form, &io.ins, scratch, buf, out);
        let result = match io.out_bytes {
            true => {
                self.scratch.rewrite(&mut self.buf, off, e, |sc, buf, out: &mut Vec<u8>| run(sc, buf, Sink::Bytes(out)))
            }
            false => {
                self.scratch.rewrite(&mut self.buf, off, e, |sc, buf, out: &mut String| run(sc, buf, Sink::Text(out)))
            }
        };
        if result.is_ok() && self.none_live != 0 {
            self.set_none(facts.out_start as usize, false);
        }
        result
    }

    /// Runs by-bytes step `facts` (no input `None`) with its form `form`,
    /// writing its value to `out` instead of its scratch entry (which keeps
    /// what it held): `out` is a column's data (its text or its bytes), which the form
    /// [appends](BytesEval::appends) to.
    #[inline]
    pub fn run_form_into(&self, facts: &StepFacts, form: &dyn BytesEval, out: Sink<'_>) -> Result<(), NodeError> {
        eval_form(form, &facts.io.ins, &self.scratch.peers(), &self.buf, out)
    }

    /// The text of the text Ref slot whose pair is at `off` and entry is
    /// `e` (`None` for a bytes entry).
    #[inline]
    pub fn ref_text(&self, off: usize, e: usize) -> Option<&str> {
        self.scratch.view_text(&self.buf, off, e)
    }

    /// The bytes of the Ref slot whose pair is at `off` and entry is `e`.
    #[inline]
    pub fn ref_bytes(&self, off: usize, e: usize) -> &[u8] {
        self.scratch.view(&self.buf, off, e)
    }

    /// Writes value slot `slot` as the next row of `column`: a scalar's word,
    /// a by-reference value's scratch bytes, or a null row (no `Value` made).
    #[inline]
    pub fn push_into(&self, layout: &Layout, slot: usize, column: &mut ColumnPart<'_>) {
        let off = layout.off[slot] as usize;
        match (self.none[slot], layout.color(slot)) {
            (true, _) => column.push_bytes(None),
            (false, Color::Imm1) => column.push_word(layout.ty[slot], self.buf[off]),
            (false, Color::Ref2) => {
                column.push_bytes(Some(self.scratch.view(&self.buf, off, layout.entry[slot] as usize)))
            }
        }
    }

    /// `run_step` with `None` in play, or through the slot kit.
    #[inline(never)]
    fn run_step_general<X: Executor>(
        &mut self,
        layout: &Layout,
        facts: &StepFacts,
        exec: &Exec<X::Step>,
    ) -> Result<(), NodeError> {
        let outs = facts.out_start as usize..(facts.out_start + facts.out_count) as usize;
        if self.none_live != 0 {
            if crate::node::yields_none(facts.accepts_none, facts.ins.iter().map(|&i| self.none[i as usize])) {
                for o in outs {
                    // `None` copies nothing: it cannot fail.
                    let _ = self.encode(layout, o, &Value::None);
                }
                return Ok(());
            }
            if let Exec::Scalar(_) = exec {
                for o in outs.clone() {
                    self.set_none(o, false);
                }
            }
        }
        match exec {
            Exec::Scalar(f) => X::run(f, &mut self.buf),
            Exec::Kit { bytes: true, .. } if facts.ins.iter().all(|&i| !self.none[i as usize]) => {
                self.run_bytes(facts, exec)
            }
            Exec::Kit { node, iota, .. } => {
                let mut ins = std::mem::take(&mut self.kit_in);
                ins.clear();
                for &i in facts.ins.iter() {
                    match self.decode(layout, i as usize) {
                        Ok(v) => ins.push(v),
                        Err(e) => {
                            self.kit_in = ins;
                            return Err(e);
                        }
                    }
                }
                let mut outv = std::mem::take(&mut self.kit_out);
                outv.clear();
                outv.resize(outs.len(), Value::None);
                let mut result = node.eval(&Args::new(&ins, iota), &mut outv);
                if result.is_ok() {
                    result = outs.zip(&outv).try_for_each(|(o, v)| self.encode(layout, o, v));
                }
                self.kit_in = ins;
                self.kit_out = outv;
                result
            }
        }
    }

    /// The values of step `step`'s inputs (for attributing its failure; an
    /// input whose copy cannot be had shows as `None`, so that reporting a
    /// failure never needs more memory than the process has).
    pub fn input_values(&self, layout: &Layout, step: &StepFacts) -> Vec<Value> {
        step.ins.iter().map(|&i| self.decode(layout, i as usize).unwrap_or_default()).collect()
    }
}
