//! Picks among literal strings, carried as their index. A `one_of(x, v..)`
//! becomes `__pick_text(hash_range(x, N), v..)` (`one_of` picks string
//! `hash(x) % N`), and a `select_str(c, a, b)` whose branches are each a
//! literal string or such a pick becomes one pick from both branches'
//! strings, its index `select_u64(c, i, j')` (`j'` is `j` moved past the
//! first branch's strings): a chooser like the `select_str` it replaces, so
//! its condition is evaluated as early, and a branch's index only when
//! taken, as in the program as written. The index is u64 arithmetic that native code
//! computes; only the last step handles text, and `generate` runs it as a
//! copy of the picked strings, a batch of indexes at a time, not as a
//! by-bytes step per row.
//!
//! Every value is the one the program as written gives, `None` included:
//! `select_str`'s `None` rule (any `None` input gives `None`) is `select_u64`'s
//! and `__pick_text`'s, and a literal is never `None`. A branch is looked
//! through only when it is pure, not volatile, not a `const` capture and
//! not named by a binding with modifiers (its reader would otherwise see
//! another value than the live one); the node rewritten keeps its index,
//! so its readers and bindings are untouched. Runs with fusion (the graph
//! as written when fusion is off), before it.

use super::graph::{Graph, Part, Source, Wire};
use super::pass::{Pass, PassContext};
use crate::error::CompileError;
use crate::node::{NodeDef, Purity};
use crate::nodes::convert::{LITERAL, LITERAL_OP};
use crate::nodes::probability::{ONE_OF, PICK_TEXT, PICK_TEXT_OP};
use crate::nodes::{arith, compare, hash};
use crate::program::events::{CompileEvent, EventKind};
use crate::value::Value;

/// Most strings one pick carries; a larger merged table is left as written.
pub const MOST_STRINGS: usize = 1024;

/// A branch of a `select_str` that may be merged into one pick.
enum Branch {
    /// A literal string.
    Literal(Value),
    /// A `__pick_text`: its strings, and the wire of its index.
    Pick(Vec<Value>, Wire),
}

/// Rewrites every pick among literal strings the engine can run as an
/// index (see the module); returns the number of nodes rewritten.
pub fn apply(graph: &mut Graph, supports: fn(&NodeDef) -> bool, events: &mut Vec<CompileEvent>) -> usize {
    if !supports(&PICK_TEXT) {
        return 0;
    }
    let modified = graph.named_with_modifiers();
    let first_new = graph.nodes.len();
    let mut applied = 0;
    // A select_str over select_strs is rewritten once its branches are,
    // whatever order the nodes are in: sweep until a sweep changes nothing.
    loop {
        let mut changed = false;
        for n in 0..modified.len() {
            let node = &graph.nodes[n];
            if node.volatile || node.capture || node.def.purity != Purity::Pure {
                continue;
            }
            let parts = match node.def.name {
                name if name == ONE_OF.name => one_of(&node.consts),
                name if name == compare::SELECT_STR.name => select_str(graph, &modified, first_new, n),
                _ => None,
            };
            let Some(parts) = parts.filter(|p| p.iter().all(|p| supports(p.def))) else { continue };
            let before = node.def.name;
            if graph.expand(n, parts).is_some() {
                applied += 1;
                changed = true;
                let strings = graph.nodes[n].consts.len();
                events.push(CompileEvent::new(
                    EventKind::PickCarriedAsIndex,
                    Some(graph.nodes[n].span),
                    format!("{before} over {strings} literal string(s) carried as an index into them"),
                ));
            }
        }
        if !changed {
            graph.place_appended(first_new);
            return applied;
        }
    }
}

/// `one_of(x, v..)` (at least one string) as `__pick_text(hash_range(x, N), v..)`.
fn one_of(values: &[Value]) -> Option<Vec<Part>> {
    if values.is_empty() || values.len() > MOST_STRINGS || !values.iter().all(|v| v.as_str().is_some()) {
        return None;
    }
    let n = Value::U64(values.len() as u64);
    Some(vec![
        Part::new(&hash::HASH_RANGE, vec![n], &[Source::Wire(0)]),
        Part::new(&PICK_TEXT, values.to_vec(), &[Source::Part(0)]),
    ])
}

/// `select_str(c, a, b)` with both branches literal strings or picks, as one
/// pick whose index is `select_u64(c, i, j)`: two picks' strings back to back
/// (b's index moved past a's strings); a literal branch's string found
/// among the other branch's strings, or added after them.
fn select_str(graph: &Graph, modified: &[bool], first_new: usize, n: usize) -> Option<Vec<Part>> {
    use Source::{At, Part as Own};
    let wires = &graph.nodes[n].wires;
    let (a, b) = (branch(graph, modified, first_new, wires[1])?, branch(graph, modified, first_new, wires[2])?);
    // The merged strings, the parts computing an index (a literal index, or
    // a pick's index moved past the strings before it), and where `i` and
    // `j` come from: a pick's own index wire, or one of those parts.
    let (values, mut parts, i, j) = match (a, b) {
        (Branch::Pick(mut values, i), Branch::Pick(more, j)) => {
            let offset = Value::U64(values.len() as u64);
            values.extend(more);
            (values, vec![Part::new(&arith::ADD, vec![offset], &[At(j)])], At(i), Own(0))
        }
        (Branch::Pick(mut values, i), Branch::Literal(b)) => {
            let j = position(&mut values, b);
            (values, vec![literal_index(j)], At(i), Own(0))
        }
        (Branch::Literal(a), Branch::Pick(mut values, j)) => {
            let i = position(&mut values, a);
            (values, vec![literal_index(i)], Own(0), At(j))
        }
        (Branch::Literal(a), Branch::Literal(b)) => {
            let mut values = vec![a];
            let j = position(&mut values, b);
            (values, vec![literal_index(0), literal_index(j)], Own(0), Own(1))
        }
    };
    if values.len() > MOST_STRINGS {
        return None;
    }
    let chosen = parts.len();
    parts.push(Part::new(&compare::SELECT_U64, vec![], &[Source::Wire(0), i, j]));
    parts.push(Part::new(&PICK_TEXT, values, &[Own(chosen)]));
    Some(parts)
}

/// The index of `value` in `values`, added at the end when it is not there.
fn position(values: &mut Vec<Value>, value: Value) -> u64 {
    let at = values.iter().position(|v| v.same(&value)).unwrap_or_else(|| {
        values.push(value);
        values.len() - 1
    });
    at as u64
}

/// A literal index.
fn literal_index(k: u64) -> Part {
    Part::new(&LITERAL, vec![Value::U64(k)], &[])
}

/// The branch behind `wire`: a literal string, or a `__pick_text` that may
/// be looked through (see the module) and whose index is always inside its
/// strings (the parts [`apply`] made, from `first_new` on, or a
/// `hash_range` over at most that many): an index past them fails the row,
/// and in a merged table it would pick the other branch's strings instead.
fn branch(graph: &Graph, modified: &[bool], first_new: usize, wire: Wire) -> Option<Branch> {
    let Wire::Node(p, 0) = wire else { return None };
    let node = &graph.nodes[p as usize];
    if node.volatile || node.capture || modified[p as usize] {
        return None;
    }
    match node.def.name {
        LITERAL_OP => {
            let value = node.consts.first().filter(|v| v.as_str().is_some())?;
            Some(Branch::Literal(value.clone()))
        }
        PICK_TEXT_OP if index_in_range(graph, first_new, node.wires[0], node.consts.len()) => {
            Some(Branch::Pick(node.consts.clone(), node.wires[0]))
        }
        _ => None,
    }
}

/// Index wire `index` of a pick over `strings` strings is below `strings`
/// whatever its input: made by [`apply`] (node `first_new` on), or a
/// `hash_range` over at most `strings`.
fn index_in_range(graph: &Graph, first_new: usize, index: Wire, strings: usize) -> bool {
    let Wire::Node(q, 0) = index else { return false };
    let node = &graph.nodes[q as usize];
    q as usize >= first_new
        || (node.def.name == hash::HASH_RANGE.name
            && matches!(node.consts.first(), Some(&Value::U64(n)) if n >= 1 && n as usize <= strings))
}

/// The `picks` pass: [`apply`], when fusion is on.
pub struct Picks;

impl Pass for Picks {
    fn name(&self) -> &'static str {
        "picks"
    }

    fn run(&self, graph: &mut Graph, cx: &mut PassContext<'_>) -> Result<Option<String>, CompileError> {
        if !cx.options.fusion {
            return Ok(Some("disabled (with fusion)".into()));
        }
        let picks = apply(graph, cx.options.supports(), &mut cx.events);
        Ok(Some(format!("{picks} pick(s) among literal strings carried as an index")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::{compile, sketch, CompileOptions};
    use crate::program::Program;

    fn build(src: &str) -> Program {
        let ir = sketch::parse(&format!("input x: u64\n{src}")).unwrap();
        compile(&ir, &CompileOptions::default()).unwrap()
    }

    /// The steps' ops, and the strings of the last step.
    fn shape(p: &Program) -> (Vec<&'static str>, Vec<String>) {
        let ops = p.steps.iter().map(|s| s.def.name).collect();
        let last = p.steps.last().unwrap().consts.iter().map(|v| v.as_str().unwrap_or("?").to_string()).collect();
        (ops, last)
    }

    #[test]
    fn one_of_picks_by_hash_range() {
        let (ops, strings) = shape(&build("out := one_of(x, \"a\", \"b\", \"c\")"));
        assert_eq!(ops, ["hash_range", PICK_TEXT_OP]);
        assert_eq!(strings, ["a", "b", "c"]);
        // No strings: every evaluation fails, as written.
        let (ops, _) = shape(&build("out := one_of(x)"));
        assert_eq!(ops, ["one_of"]);
    }

    #[test]
    fn select_str_merges_its_branches_strings() {
        let p = build("out := select_str(u64_and(x, 1), one_of(x, \"a\", \"b\"), select_str(u64_and(x, 2), \"b\", one_of(hash(x), \"c\", \"a\")))");
        let (ops, strings) = shape(&p);
        assert_eq!(ops.iter().filter(|&&o| o == PICK_TEXT_OP).count(), 1, "{ops:?}");
        assert!(!ops.contains(&"select_str"), "{ops:?}");
        // The inner select_str finds its literal among its pick's strings; the outer one puts both picks' strings back to back.
        assert_eq!(strings, ["a", "b", "c", "a", "b"]);
    }

    #[test]
    fn a_branch_that_is_not_a_literal_or_a_pick_stays_as_written() {
        for src in [
            "out := select_str(u64_and(x, 1), \"a\", printf(\"{}\", x))",
            "extern e: u64 = 3\nconst c := one_of(e, \"a\", \"b\")\nout := select_str(u64_and(x, 1), c, \"z\")",
        ] {
            let (ops, _) = shape(&build(src));
            assert!(ops.contains(&"select_str"), "{src}: {ops:?}");
        }
    }
}
