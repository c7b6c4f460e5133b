//! The manifest of a scope: the typed names it offers the scopes compiled
//! against it, each with the form a child's binding of it takes (the binding
//! gradient). A program's manifest is its own outputs and inputs, then the
//! names of the outer manifest it was compiled against that it does not
//! shadow; the nearest binding of a name wins.
//!
//! The form is decided once, from the program (modifiers, input kinds and
//! what folding left), and the binder honours it: a literal is inlined into
//! the child when it is compiled, a `const` or an input is copied once at
//! scope-init, a computed output is read live, a `shared` binding is a cell,
//! and a coordinate is never bound (the child has coordinates of its own).

use super::Program;
use crate::ir::{ConstIr, InputKind, InputOrigin, Modifier};
use crate::nodes::convert::LITERAL_OP;
use crate::types::PortType;
use crate::value::Value;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// How a child's binding of a name takes it from the scope that provides it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Form {
    /// A literal (or a value folded at compile time): inlined into the child
    /// as a constant when the child is compiled.
    Literal(ConstIr),
    /// A `const`, an input or an iteration variable: fixed for the scope's
    /// life, so its value is copied into the child's slot at scope-init.
    Copy,
    /// A computed output: the child sees the current value whenever it reads.
    Live,
    /// A `shared` binding: a two-way cell (last write wins).
    Cell,
    /// A coordinate: never bound; a child reading the name has a coordinate of its own.
    Coordinate,
}

/// One name a scope offers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// The name.
    pub name: String,
    /// Its type.
    #[serde(rename = "type")]
    pub ty: PortType,
    /// How a child binds it.
    pub form: Form,
    /// A live value that changes on every read (volatile or nondeterministic).
    #[serde(default)]
    pub volatile: bool,
}

/// The names a scope offers, nearest binding first (each name once).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    entries: Vec<Entry>,
    #[serde(skip)]
    index: HashMap<String, usize>,
}

impl Manifest {
    /// A manifest of `entries` (a later entry of a name already listed is dropped).
    pub fn new(entries: Vec<Entry>) -> Manifest {
        let mut manifest = Manifest::default();
        for entry in entries {
            manifest.push(entry);
        }
        manifest
    }

    /// `own` entries, then those of `outer` that `own` does not shadow.
    pub fn chain(own: Vec<Entry>, outer: Option<&Manifest>) -> Manifest {
        let mut manifest = Manifest::new(own);
        if let Some(outer) = outer {
            for entry in &outer.entries {
                manifest.push(entry.clone());
            }
        }
        manifest
    }

    /// The manifest of `program`: its own names, then those of the outer
    /// manifest it was compiled against.
    pub fn of_program(program: &Program) -> Manifest {
        Manifest::chain(own_entries(program), program.scope.outer.as_deref())
    }

    fn push(&mut self, entry: Entry) {
        if !self.index.contains_key(&entry.name) {
            self.index.insert(entry.name.clone(), self.entries.len());
            self.entries.push(entry);
        }
    }

    /// The entry of `name`.
    pub fn get(&self, name: &str) -> Option<&Entry> {
        self.index.get(name).map(|&i| &self.entries[i])
    }

    /// Every entry, nearest first.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Every name, nearest first.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|e| e.name.as_str())
    }

    /// The JSON form.
    pub fn to_json(&self) -> String {
        serde_json::to_string(&self.entries).expect("a manifest serialises")
    }

    /// Reads the JSON form.
    pub fn from_json(text: &str) -> Result<Manifest, String> {
        let entries: Vec<Entry> = serde_json::from_str(text).map_err(|e| format!("malformed manifest: {e}"))?;
        Ok(Manifest::new(entries))
    }
}

/// The program's own names as manifest entries: every output not named
/// `__...`, then every input no output of the same name shadows.
pub fn own_entries(program: &Program) -> Vec<Entry> {
    let mut entries = Vec::with_capacity(program.outputs.len() + program.inputs.len());
    for (o, def) in program.outputs.iter().enumerate() {
        if def.name.starts_with("__") {
            continue;
        }
        let (form, volatile) = output_form(program, o);
        entries.push(Entry { name: def.name.clone(), ty: def.ty, form, volatile });
    }
    for (i, def) in program.inputs.iter().enumerate() {
        if def.name.starts_with("__") || program.output(&def.name).is_some() {
            continue;
        }
        entries.push(Entry { name: def.name.clone(), ty: def.ty, form: input_form(program, i), volatile: false });
    }
    entries
}

/// The form of output `o` (and whether a live one changes on every read).
pub fn output_form(program: &Program, o: usize) -> (Form, bool) {
    let def = &program.outputs[o];
    if def.modifiers.contains(&Modifier::Shared) && program.input(&def.name).is_some() {
        return (Form::Cell, false);
    }
    let Some(s) = def.step else {
        // The output passes an input through: its slot is the input's.
        return (input_form(program, def.slot as usize), false);
    };
    let step = &program.steps[s as usize];
    if step.volatile {
        return (Form::Live, true);
    }
    if step.def.name == LITERAL_OP {
        if let Some(c) = step.consts.first().and_then(literal_const) {
            return (Form::Literal(c), false);
        }
        return (Form::Copy, false);
    }
    if def.modifiers.contains(&Modifier::Const) {
        return (Form::Copy, false);
    }
    (Form::Live, false)
}

/// The form of input `i`.
pub fn input_form(program: &Program, i: usize) -> Form {
    let def = &program.inputs[i];
    match (def.kind, def.origin) {
        (InputKind::Coordinate, _) => Form::Coordinate,
        (_, InputOrigin::Cell) => Form::Cell,
        _ => Form::Copy,
    }
}

/// `value` as an IR literal, when it has one (u64, i64, f64, bool, str).
pub fn literal_const(value: &Value) -> Option<ConstIr> {
    Some(match value {
        Value::U64(v) => ConstIr::U64(*v),
        Value::I64(v) => ConstIr::I64(*v),
        Value::F64(v) => ConstIr::F64(v.to_bits()),
        Value::Bool(b) => ConstIr::Bool(*b),
        Value::Str(s) => ConstIr::Str(s.to_string()),
        _ => return None,
    })
}
