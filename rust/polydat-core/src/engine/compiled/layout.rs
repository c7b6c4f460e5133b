//! The slot model of the compiled engines: one flat `u64` buffer in which
//! every program value slot (inputs first, then each step's outputs, in the
//! program's order) has a static colour: `Imm1`, one word holding a scalar in
//! the slot encoding (f64 as bits, narrow ints extended, bool 0/1), or
//! `Ref2`, two words holding a `(ptr, len)` pair into the slot's own scratch
//! entry (see [`super::scratch`]). A step's scalar outputs are consecutive
//! words, so a step writes them in place.

use crate::program::Program;
use crate::types::PortType;

/// Sentinel: the slot has no scratch entry (it is `Imm1`).
pub const NO_ENTRY: u32 = u32::MAX;

/// The static colour of a value slot (slot-state axiom S1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Color {
    /// One word, a scalar.
    Imm1,
    /// Two words, a `(ptr, len)` pair into the slot's scratch entry.
    Ref2,
}

/// Where every program value slot lives in a compiled kernel's buffer.
#[derive(Clone, Debug)]
pub struct Layout {
    /// Per value slot: its port type.
    pub ty: Box<[PortType]>,
    /// Per value slot: its first buffer word.
    pub off: Box<[u32]>,
    /// Per value slot: its scratch entry, or [`NO_ENTRY`].
    pub entry: Box<[u32]>,
    /// Per scratch entry: `(first buffer word, entry)` of its Ref slot.
    pub refs: Box<[(u32, u32)]>,
    /// Buffer length in words.
    pub words: usize,
}

impl Layout {
    /// Lays out every value slot of `program`.
    pub fn new(program: &Program) -> Layout {
        let mut ty: Vec<PortType> = program.inputs.iter().map(|i| i.ty).collect();
        for step in &program.steps {
            debug_assert_eq!(step.out_start as usize, ty.len(), "steps own consecutive value slots");
            ty.extend(step.out_types.iter().copied());
        }
        debug_assert_eq!(ty.len(), program.slot_count);
        let (mut off, mut entry, mut refs) = (Vec::new(), Vec::new(), Vec::new());
        let mut words = 0u32;
        for t in &ty {
            off.push(words);
            if t.is_ref() {
                entry.push(refs.len() as u32);
                refs.push((words, refs.len() as u32));
                words += 2;
            } else {
                entry.push(NO_ENTRY);
                words += 1;
            }
        }
        Layout { ty: ty.into(), off: off.into(), entry: entry.into(), refs: refs.into(), words: words as usize }
    }

    /// Per scratch entry: its slot holds text (`str` or `json`), so the
    /// entry is a `String`; else bytes.
    pub fn entry_text(&self) -> Vec<bool> {
        let mut text = vec![false; self.refs.len()];
        for (slot, &e) in self.entry.iter().enumerate() {
            if e != NO_ENTRY {
                text[e as usize] = self.ty[slot].is_text();
            }
        }
        text
    }

    /// The colour of value slot `slot`.
    #[inline]
    pub fn color(&self, slot: usize) -> Color {
        if self.entry[slot] == NO_ENTRY {
            Color::Imm1
        } else {
            Color::Ref2
        }
    }
}

/// The buffer word of step `step`'s first output, which a thread hands on
/// in a register; [`NOWHERE`] for a step with no outputs.
pub fn first_word(layout: &Layout, step: &crate::program::Step) -> usize {
    match step.out_count() {
        0 => NOWHERE,
        _ => layout.off[step.out_start as usize] as usize,
    }
}

/// No buffer word: the first output of a step that has none.
pub const NOWHERE: usize = usize::MAX;
