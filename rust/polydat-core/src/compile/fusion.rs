//! Node Fusion (axioms NF1–NF4): a registry of subgraph patterns,
//! each rewritten into one node computing the same values bit for bit.
//!
//! The pass iterates to a fixpoint. Within an iteration the rules are tried in
//! a fixed order — priority (lower first), then name — and each rule scans the
//! nodes by index, applying at a node as often as it matches before moving
//! on, so the result never depends on hashing or timing. A rewrite
//! replaces the pattern's root *in place* (same index, same output types), so
//! outputs and readers of the root are untouched; the pattern's interior nodes
//! are only consumed when the root is their single reader, no binding names
//! them, and they are pure — otherwise the rule does not fire. Interior nodes
//! left without readers are dropped later by dead-code elimination.
//!
//! Every rule carries witness programs (sketch text over a u64 coordinate `x`
//! with an output `out`); the equivalence test compiles each with fusion on
//! and off and compares the outputs over the corner inputs (NF2).

use super::graph::{Graph, GraphNode, Wire};
use super::pass::{Pass, PassContext};
use crate::error::CompileError;
use crate::node::{NodeDef, Purity, Ty};
use crate::nodes::convert::LITERAL_OP;
use crate::nodes::entries::{self, PICK_EITHER, PICK_ENTRY, PRINTF_WORDS};
use crate::nodes::{arith, bitwise, compare, decimal, format, hash, lerp, locale, real_data, regex, string, weighted};
use crate::program::events::{CompileEvent, EventKind};
use crate::program::explain::literal_text;
use crate::program::Program;
use crate::value::Value;
use std::collections::HashMap;

/// Most sweeps over the rule list before the pass stops (NF4's limit).
pub const ITERATION_LIMIT: usize = 16;

/// What a matcher found: the pattern's holes and the nodes it consumes.
#[derive(Clone, Debug, Default)]
pub struct Match {
    /// Nodes inside the pattern other than the root; the root must be their only reader.
    pub interior: Vec<usize>,
    /// Wires feeding the pattern, in the order the rule's replacement expects.
    pub wires: Vec<Wire>,
    /// Constants captured from the pattern.
    pub consts: Vec<Value>,
}

/// The fused node that replaces a pattern's root.
#[derive(Clone)]
pub struct Replacement {
    /// The fused node's definition.
    pub def: &'static NodeDef,
    /// The fused node's wires.
    pub wires: Vec<Wire>,
    /// The fused node's construction constants.
    pub consts: Vec<Value>,
}

/// One entry of the fusion catalog.
pub struct FusionRule {
    /// Stable name, shown in `FusionApplied` events.
    pub name: &'static str,
    /// Lower runs first within an iteration.
    pub priority: u32,
    /// One line: the rewrite and its side conditions.
    pub doc: &'static str,
    /// Op of the pattern's root node (a cheap pre-filter for the matcher).
    pub root: &'static str,
    /// The fused node is evaluated where the earliest of its interior nodes
    /// was: true for a rule whose root cannot fail once its interior has not
    /// (the decimal rule's multiply cannot overflow), so a row that fails
    /// reports the failure it reported unfused, before any node between.
    pub at_interior: bool,
    /// Recognises the pattern rooted at node `n` (`modified[i]`: a binding
    /// with modifiers, such as `const`, names node `i`).
    pub matcher: fn(&Graph, &[bool], usize) -> Option<Match>,
    /// Builds the fused node from the match.
    pub replacement: fn(&Match) -> Replacement,
    /// Sketch programs exercising the pattern, for the equivalence test.
    pub witnesses: &'static [&'static str],
}

/// What one run of the pass did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FusionSummary {
    /// Rewrites applied.
    pub applied: usize,
    /// Sweeps run, the last of which changed nothing (unless the limit was hit).
    pub iterations: usize,
    /// The pass stopped at [`ITERATION_LIMIT`] sweeps while rules were still firing.
    pub hit_limit: bool,
}

/// The catalog, in declaration order (see [`rules_in_order`] for run order).
pub static CATALOG: &[FusionRule] = &[
    FusionRule {
        name: "hash_mod_to_hash_range",
        priority: 10,
        doc: "mod(hash(x), K) -> hash_range(x, K), K != 0 (mod by 0 fails; hash_range(x, 0) is 0)",
        root: "mod",
        at_interior: false,
        matcher: |g, _, n| {
            let k = const_u64(g, n, 0).filter(|&k| k != 0)?;
            let h = producer(g, g.nodes[n].wires[0], "hash")?;
            Some(Match { interior: vec![h], wires: vec![g.nodes[h].wires[0]], consts: vec![Value::U64(k)] })
        },
        replacement: |m| same_holes(&hash::HASH_RANGE, m),
        witnesses: &[
            "out := mod(hash(x), 1000)",
            "out := mod(hash(x), 1)",
            "out := mod(hash(x), 18446744073709551615)",
            "out := u64_mod(hash(x), 64)",
        ],
    },
    FusionRule {
        name: "hash_unit_lerp_to_hash_interval",
        priority: 20,
        doc: "lerp(unit_interval(hash(x)), a, b) -> hash_interval(x, a, b)",
        root: "lerp",
        at_interior: false,
        matcher: |g, _, n| {
            let u = producer(g, g.nodes[n].wires[0], "unit_interval")?;
            let h = producer(g, g.nodes[u].wires[0], "hash")?;
            let consts = g.nodes[n].consts.clone();
            Some(Match { interior: vec![u, h], wires: vec![g.nodes[h].wires[0]], consts })
        },
        replacement: |m| same_holes(&hash::HASH_INTERVAL, m),
        witnesses: &[
            "out := lerp(unit_interval(hash(x)), -2.5, 1e10)",
            "out := lerp(unit_interval(hash(x)), 0, 1)",
            "out := lerp(unit_interval(hash(x)), 5.5, -5.5)",
        ],
    },
    FusionRule {
        name: "hash_scale_range_to_hash_interval",
        priority: 25,
        doc: "scale_range(hash(x), a, b) -> hash_interval(x, a, b) (same formula)",
        root: "scale_range",
        at_interior: false,
        matcher: |g, _, n| {
            let h = producer(g, g.nodes[n].wires[0], "hash")?;
            let consts = g.nodes[n].consts.clone();
            Some(Match { interior: vec![h], wires: vec![g.nodes[h].wires[0]], consts })
        },
        replacement: |m| same_holes(&hash::HASH_INTERVAL, m),
        witnesses: &["out := scale_range(hash(x), -1, 1)", "out := scale_range(hash(x), 1e-300, 1e300)"],
    },
    FusionRule {
        name: "unit_lerp_to_scale_range",
        priority: 30,
        doc: "lerp(unit_interval(x), a, b) -> scale_range(x, a, b)",
        root: "lerp",
        at_interior: false,
        matcher: |g, _, n| {
            let u = producer(g, g.nodes[n].wires[0], "unit_interval")?;
            let consts = g.nodes[n].consts.clone();
            Some(Match { interior: vec![u], wires: vec![g.nodes[u].wires[0]], consts })
        },
        replacement: |m| same_holes(&lerp::SCALE_RANGE, m),
        witnesses: &["out := lerp(unit_interval(x), 10, 20)", "out := lerp(unit_interval(x), -1e300, 1e300)"],
    },
    FusionRule {
        name: "u64_add_literal_to_add",
        priority: 1,
        doc: "u64_add(x, literal K) or u64_add(literal K, x) -> add(x, K)",
        root: "u64_add",
        at_interior: false,
        matcher: |g, _, n| literal_operand(g, n, true),
        replacement: |m| same_holes(&arith::ADD, m),
        witnesses: &["out := u64_add(x, 5)", "out := u64_add(18446744073709551615, x)"],
    },
    FusionRule {
        name: "u64_sub_literal_to_add",
        priority: 2,
        doc: "u64_sub(x, literal K) -> add(x, 2^64 - K) (both wrap)",
        root: "u64_sub",
        at_interior: false,
        matcher: |g, _, n| literal_operand(g, n, false),
        replacement: |m| Replacement {
            def: &arith::ADD,
            wires: m.wires.clone(),
            consts: vec![Value::U64(u64_of(&m.consts[0]).wrapping_neg())],
        },
        witnesses: &["out := u64_sub(x, 7)", "out := u64_sub(x, 0)", "out := u64_sub(x, 18446744073709551615)"],
    },
    FusionRule {
        name: "u64_mul_literal_to_mul",
        priority: 3,
        doc: "u64_mul(x, literal K) or u64_mul(literal K, x) -> mul(x, K)",
        root: "u64_mul",
        at_interior: false,
        matcher: |g, _, n| literal_operand(g, n, true),
        replacement: |m| same_holes(&arith::MUL, m),
        witnesses: &["out := u64_mul(x, 3)", "out := u64_mul(0, x)"],
    },
    FusionRule {
        name: "u64_mod_literal_to_mod",
        priority: 4,
        doc: "u64_mod(x, literal K) -> mod(x, K), K != 0 (u64_mod by 0 is 0; mod by 0 fails)",
        root: "u64_mod",
        at_interior: false,
        matcher: |g, _, n| literal_operand(g, n, false).filter(|m| u64_of(&m.consts[0]) != 0),
        replacement: |m| same_holes(&arith::MOD, m),
        witnesses: &["out := u64_mod(x, 10)", "out := u64_mod(x, 4294967296)"],
    },
    FusionRule {
        name: "u64_div_literal_to_div",
        priority: 5,
        doc: "u64_div(x, literal K) -> div(x, K), K != 0 (u64_div by 0 is 0; div by 0 fails)",
        root: "u64_div",
        at_interior: false,
        matcher: |g, _, n| literal_operand(g, n, false).filter(|m| u64_of(&m.consts[0]) != 0),
        replacement: |m| same_holes(&arith::DIV, m),
        witnesses: &["out := u64_div(x, 7)", "out := u64_div(x, 1)"],
    },
    FusionRule {
        name: "add_chain",
        priority: 40,
        doc: "add(add(x, A), B) -> add(x, A + B) (wrapping addition is associative)",
        root: "add",
        at_interior: false,
        matcher: |g, _, n| chain(g, n, "add"),
        replacement: |m| Replacement {
            def: &arith::ADD,
            wires: m.wires.clone(),
            consts: vec![Value::U64(u64_of(&m.consts[0]).wrapping_add(u64_of(&m.consts[1])))],
        },
        witnesses: &["out := add(add(x, 5), 18446744073709551615)", "out := u64_add(u64_add(u64_add(x, 1), 2), 3)"],
    },
    FusionRule {
        name: "mul_chain",
        priority: 41,
        doc: "mul(mul(x, A), B) -> mul(x, A * B) (wrapping multiplication is associative)",
        root: "mul",
        at_interior: false,
        matcher: |g, _, n| chain(g, n, "mul"),
        replacement: |m| Replacement {
            def: &arith::MUL,
            wires: m.wires.clone(),
            consts: vec![Value::U64(u64_of(&m.consts[0]).wrapping_mul(u64_of(&m.consts[1])))],
        },
        witnesses: &["out := mul(mul(x, 3), 12345678901234567)", "out := u64_mul(u64_mul(x, 4294967296), 4294967296)"],
    },
    FusionRule {
        name: "mod_of_mod",
        priority: 42,
        doc: "mod(mod(x, A), B) -> mod(x, B) when B divides A (A, B != 0)",
        root: "mod",
        at_interior: false,
        matcher: |g, _, n| {
            let m = chain(g, n, "mod")?;
            let (a, b) = (u64_of(&m.consts[0]), u64_of(&m.consts[1]));
            (a != 0 && b != 0 && a % b == 0).then_some(m)
        },
        replacement: |m| Replacement { def: &arith::MOD, wires: m.wires.clone(), consts: vec![m.consts[1].clone()] },
        witnesses: &["out := mod(mod(x, 1000), 10)", "out := mod(mod(x, 18446744073709551615), 5)"],
    },
    FusionRule {
        name: "printf_of_printf",
        // Before printf_zero_pad, which then finds the padding a spliced
        // inner printf brought; both before printf_word_picks, whose node
        // no printf rule reads.
        priority: 43,
        doc: "printf(outer, .., printf(inner, ys..), ..) -> printf(outer with inner spliced in, .., ys.., ..) when the inner printf fills a plain {} and both take exactly one wire per placeholder: the inner text is written where it is printed",
        root: "printf",
        at_interior: false,
        matcher: |g, _, n| nested_printf(g, n),
        replacement: |m| same_holes(&format::PRINTF, m),
        witnesses: &[
            "out := printf(\"<{}>|{:05}\", printf(\"{:x}-{}{{}}\", x, hash(x)), x)",
            "out := printf(\"{}{}\", printf(\"}}{}\", x), printf(\"{{{:>3}\", x))",
            "out := printf(\"{} {}\", printf(\"{}\", printf(\"a{}b\", x)), x)",
        ],
    },
    FusionRule {
        name: "printf_zero_pad",
        priority: 44,
        doc: "printf(fmt, .., zero_pad_u64(x, W), ..) -> printf(fmt with {:0W} there, .., x, ..) at a plain {} (W at most 64), when printf takes exactly one wire per placeholder: the digits are written where they are printed",
        root: "printf",
        at_interior: false,
        matcher: |g, _, n| zero_pad_in_printf(g, n),
        replacement: |m| same_holes(&format::PRINTF, m),
        witnesses: &[
            "out := printf(\"{}-{}\", zero_pad_u64(x, 5), zero_pad_u64(hash(x), 24))",
            "out := printf(\"[{}]\", zero_pad_u64(mod(x, 1000), 0))",
        ],
    },
    FusionRule {
        name: "select_of_picks",
        priority: 45,
        doc: "select_str(c, pick_a(a), pick_b(b)) -> __pick_either(c, a, b, entry_a, entry_b) for picks a pick entry names (a word list, a locale's list or city, weighted_strings, or a list mapped at build), when a and b are made by nodes that cannot fail or be None (hash, hash_range, u64_xor, literals, inputs): the branch not taken made no pick and now makes none either",
        root: compare::SELECT_STR.name,
        at_interior: false,
        matcher: select_of_picks,
        replacement: |m| same_holes(&PICK_EITHER, m),
        witnesses: &[
            "out := select_str(mod(hash(x), 2), locale_words(hash(x), \"de_DE\", \"first_female\"), locale_words(hash(u64_xor(x, 7)), \"de_DE\", \"first_male\"))",
            "out := select_str(x, first_names_all(x), str_lower(last_names(hash(x))))",
        ],
    },
    FusionRule {
        name: "str_lower_of_pick",
        priority: 46,
        doc: "str_lower(pick(x)) -> __pick_entry(x, \"str_lower(entry)\") for a pick of a list (a word list, a locale's city or list without placeholders, or such a list mapped): the list is mapped once, when the node is built; str_lower(__pick_either(..)) maps both of its entries",
        root: string::STR_LOWER.name,
        at_interior: false,
        matcher: text_map_of_pick,
        replacement: mapped_pick,
        witnesses: &[
            "out := str_lower(last_names(hash(x)))",
            "out := str_lower(locale_words(x, \"de_DE\", \"last\"))",
            "out := str_lower(select_str(mod(x, 3), locale_places(x, \"fr_FR\", \"city\"), first_names_male(x)))",
        ],
    },
    FusionRule {
        name: "str_upper_of_pick",
        priority: 46,
        doc: "str_upper(pick(x)) -> __pick_entry(x, \"str_upper(entry)\"), as str_lower_of_pick",
        root: string::STR_UPPER.name,
        at_interior: false,
        matcher: text_map_of_pick,
        replacement: mapped_pick,
        witnesses: &["out := str_upper(locale_words(hash(x), \"de_DE\", \"first_female\"))", "out := str_upper(city_names(x))"],
    },
    FusionRule {
        name: "regex_replace_of_pick",
        priority: 46,
        doc: "regex_replace(pick(x), pattern, replacement) -> __pick_entry(x, \"regex_replace(entry;pattern;replacement)\"), as str_lower_of_pick (a pattern that does not compile leaves the node to fail as itself)",
        root: regex::REGEX_REPLACE.name,
        at_interior: false,
        matcher: text_map_of_pick,
        replacement: mapped_pick,
        witnesses: &[
            "out := regex_replace(str_lower(locale_words(hash(x), \"de_DE\", \"last\")), \"[ ']\", \"\")",
            "out := regex_replace(street_names(x), \"(\\\\w+) (\\\\w+)\", \"$2, $1;%(\")",
            "out := printf(\"{}.{}@x\", regex_replace(str_lower(select_str(hash_range(x, 2), locale_words(hash(x), \"fr_FR\", \"first_female\"), locale_words(hash(x), \"fr_FR\", \"first_male\"))), \"[ ']\", \"\"), regex_replace(str_lower(locale_words(x, \"fr_FR\", \"last\")), \"[ ']\", \"\"))",
        ],
    },
    FusionRule {
        name: "printf_word_picks",
        priority: 50,
        doc: "printf(fmt, .., pick(x), ..) -> __printf_words(fmt, \"..,entry,..\", .., x, ..) for a pick a pick entry names: a word-list node (pure, not volatile, not named by a modified binding such as const), weighted_strings(x, spec), a locale's city, region or list without placeholders (locale_places, locale_words), or a __pick_entry (a list mapped at build): the word is picked where it is printed; the pick, when something else reads it, stays",
        root: "printf",
        at_interior: false,
        matcher: word_picks,
        replacement: |m| same_holes(&PRINTF_WORDS, m),
        witnesses: &[
            "out := printf(\"{} {}\", first_names_all(hash(x)), last_names(x))",
            "out := printf(\"{:>12}|{}|{:<4}|{:05}\", city_names(x), x, state_codes(hash(x)), x)",
            "out := printf(\"{}\", street_suffixes(x))",
            "out := printf(\"{}.{}@{}\", str_lower(first_names_all(hash(x))), str_lower(last_names(x)), city_names(x))",
            "out := printf(\"{} the {:>6}.\", weighted_strings(hash(x), \"sly:1;bold:3, (quiet):2\"), weighted_strings(x, \"foxes:40,ideas:1\"))",
            "out := printf(\"{}, {:>9} {}\", locale_places(x, \"en_US\", \"city\"), locale_places(x, \"ja_JP\", \"region\"), locale_places(x, \"en_US\", \"postcode\"))",
            "out := printf(\"{} {} / {}\", locale_words(hash(x), \"de_DE\", \"first_female\"), locale_words(x, \"de_DE\", \"last\"), locale_words(x, \"fr_FR\", \"phone\"))",
        ],
    },
    FusionRule {
        name: "decimal_cast_times_literal",
        priority: 60,
        doc: "decimal_mul(to_decimal(x, T), literal F) or decimal_mul(literal F, to_decimal(x, T)) -> __to_decimal_times(x, T, F) when the digits of T and of F's type sum to at most 38: the multiply cannot overflow, so the one failure left is the conversion's, reported as to_decimal",
        root: "decimal_mul",
        at_interior: true,
        matcher: |g, _, n| decimal_cast_times_literal(g, n),
        replacement: |m| same_holes(&decimal::TO_DECIMAL_TIMES, m),
        witnesses: &[
            "out := decimal_mul(to_decimal(x, \"decimal(13,0)\"), 0.01d)",
            "out := decimal_mul(0.01d, to_decimal(x, \"decimal(20,0)\"))",
            "out := decimal_mul(to_decimal(i64_add(__u64_to_i64(mod(x, 2000)), -1000), \"decimal(5,1)\"), -2.50d)",
            "out := decimal_mul(to_decimal(i64_add(__u64_to_i64(mod(x, 100000)), -99999), \"decimal(5,1)\"), 0.001d)",
            "out := decimal_mul(to_decimal(unit_interval(x), \"decimal(6,3)\"), 12.5d)",
        ],
    },
];

/// The catalog in run order: priority, then name.
pub fn rules_in_order() -> Vec<&'static FusionRule> {
    let mut rules: Vec<&'static FusionRule> = CATALOG.iter().collect();
    rules.sort_by_key(|r| (r.priority, r.name));
    rules
}

/// Runs the catalog over `graph` to a fixpoint. Rules whose fused node the
/// target engine does not support (`supports`) are skipped.
pub fn fuse(graph: &mut Graph, supports: fn(&NodeDef) -> bool, events: &mut Vec<CompileEvent>) -> FusionSummary {
    let rules = rules_in_order();
    let mut readers = Readers::of(graph);
    let mut summary = FusionSummary::default();
    // Per node: the position it is evaluated at (its own, or an interior
    // node's for a rule evaluated at its interior).
    let mut anchors: Vec<usize> = (0..graph.nodes.len()).collect();
    let limit_hit = loop {
        if summary.iterations >= ITERATION_LIMIT {
            break true;
        }
        summary.iterations += 1;
        let mut changed = false;
        for rule in &rules {
            for n in 0..graph.nodes.len() {
                // A rule applies at a node as often as it matches before the
                // next rule runs: a printf splices each of its nested printfs
                // in turn, before any of them is rewritten by a later rule.
                let mut fired = 0;
                while fired < ITERATION_LIMIT
                    && graph.nodes[n].def.name == rule.root
                    && !readers.dead[n]
                    && try_rule(graph, rule, n, supports, &mut readers, &mut anchors, events)
                {
                    fired += 1;
                    changed = true;
                    summary.applied += 1;
                }
            }
        }
        if !changed {
            break false;
        }
    };
    place_at_anchors(graph, &anchors);
    if limit_hit {
        summary.hit_limit = true;
        events.push(CompileEvent::new(
            EventKind::FusionLimitReached,
            None,
            format!("fusion stopped after {ITERATION_LIMIT} iterations (limit); the graph may admit more rewrites"),
        ));
    }
    summary
}

/// Moves each node whose anchor is not its own position to just after its
/// anchor (every other order kept): the topological sort, stable by
/// position, then evaluates it where its anchor was.
fn place_at_anchors(graph: &mut Graph, anchors: &[usize]) {
    if anchors.iter().enumerate().all(|(i, &a)| a == i) {
        return;
    }
    let mut order: Vec<usize> = (0..graph.nodes.len()).collect();
    order.sort_by_key(|&i| (anchors[i], i));
    graph.reorder(&order);
}

/// Applies `rule` at node `n` if it matches and every side condition holds.
fn try_rule(
    graph: &mut Graph,
    rule: &FusionRule,
    n: usize,
    supports: fn(&NodeDef) -> bool,
    readers: &mut Readers,
    anchors: &mut [usize],
    events: &mut Vec<CompileEvent>,
) -> bool {
    let root = &graph.nodes[n];
    if root.def.purity != Purity::Pure {
        return false;
    }
    let Some(m) = (rule.matcher)(graph, &readers.modified, n) else {
        return false;
    };
    if !m.interior.iter().all(|&i| readers.swallowable(graph, i)) {
        return false;
    }
    let rep = (rule.replacement)(&m);
    if !supports(rep.def) {
        return false;
    }
    let in_types: Vec<_> = rep.wires.iter().map(|w| graph.wire_type(*w)).collect();
    // NF1: the fused node takes the wires as they are and yields the root's types.
    let params: Vec<_> = rep.def.wire_params().collect();
    let variadic = params.last().is_some_and(|p| p.variadic);
    let counted = match variadic {
        true => in_types.len() + 1 >= params.len(),
        false => in_types.len() == params.len(),
    };
    // Wire `i` binds parameter `i`, or the variadic last one past it.
    let typed = in_types.iter().enumerate().all(|(i, t)| match params.get(i).or(params.last().filter(|_| variadic)) {
        Some(p) => matches!(p.ty, Ty::Is(want) if want == *t) || p.ty == Ty::Any,
        None => false,
    });
    if !counted || !typed {
        return false;
    }
    let Ok(mut fused) = GraphNode::build(rep.def, rep.consts, rep.wires, in_types, root.span) else {
        return false;
    };
    if fused.out_types != root.out_types {
        return false;
    }
    fused.volatile = root.volatile;
    fused.capture = root.capture;
    let before = render(graph, n, &m.interior, &readers.names);
    if rule.at_interior {
        anchors[n] = m.interior.iter().map(|&i| anchors[i]).fold(anchors[n], usize::min);
    }
    let old = std::mem::replace(&mut graph.nodes[n], fused);
    let after = render(graph, n, &[], &readers.names);
    readers.rewired(graph, &old.wires, n);
    events.push(CompileEvent::new(
        EventKind::FusionApplied,
        Some(old.span),
        format!("{}: {before} -> {after}", rule.name),
    ));
    true
}

/// Live reader counts, kept current as rewrites happen.
struct Readers {
    /// Per node: wires of live nodes reading it.
    count: Vec<u32>,
    /// Per node: a binding names it, or it is a side channel.
    pinned: Vec<bool>,
    /// Per node: nothing live reads it.
    dead: Vec<bool>,
    /// Per node: a binding with modifiers (`const`, `shared`, `volatile`) names it.
    modified: Vec<bool>,
    /// Per bound wire: the first binding naming it (for event messages).
    names: HashMap<Wire, usize>,
}

impl Readers {
    fn of(graph: &Graph) -> Readers {
        let live = super::dce::live_nodes(graph);
        let mut count = vec![0u32; graph.nodes.len()];
        for (i, node) in graph.nodes.iter().enumerate() {
            if live[i] {
                for w in &node.wires {
                    if let Wire::Node(p, _) = w {
                        count[*p as usize] += 1;
                    }
                }
            }
        }
        let mut pinned: Vec<bool> = graph.nodes.iter().map(|n| n.def.purity == Purity::SideChannel).collect();
        let modified = graph.named_with_modifiers();
        let mut names = HashMap::new();
        for (i, o) in graph.outputs.iter().enumerate() {
            if let Wire::Node(n, _) = o.wire {
                pinned[n as usize] = true;
                names.entry(o.wire).or_insert(i);
            }
        }
        Readers { count, pinned, dead: live.into_iter().map(|l| !l).collect(), modified, names }
    }

    /// True when node `i` may disappear into a pattern: exactly one reader,
    /// no binding, pure, not volatile, not a `const` capture (its reader
    /// reads the value captured at scope init, not the live one), one output.
    fn swallowable(&self, graph: &Graph, i: usize) -> bool {
        let node = &graph.nodes[i];
        self.count[i] == 1
            && !self.pinned[i]
            && node.def.purity == Purity::Pure
            && !node.volatile
            && !node.capture
            && node.out_types.len() == 1
    }

    /// Node `n` now reads its new wires instead of `old`; producers left
    /// without readers die, and so on upstream.
    fn rewired(&mut self, graph: &Graph, old: &[Wire], n: usize) {
        for w in &graph.nodes[n].wires {
            if let Wire::Node(p, _) = w {
                self.count[*p as usize] += 1;
            }
        }
        let mut released: Vec<usize> =
            old.iter().filter_map(|w| if let Wire::Node(p, _) = w { Some(*p as usize) } else { None }).collect();
        while let Some(p) = released.pop() {
            self.count[p] -= 1;
            if self.count[p] == 0 && !self.pinned[p] && !self.dead[p] {
                self.dead[p] = true;
                released.extend(graph.nodes[p].wires.iter().filter_map(|w| match w {
                    Wire::Node(q, _) => Some(*q as usize),
                    Wire::Input(_) => None,
                }));
            }
        }
    }
}

/// Node index behind `wire` when it is port 0 of a node named `op`.
fn producer(graph: &Graph, wire: Wire, op: &str) -> Option<usize> {
    match wire {
        Wire::Node(p, 0) if graph.nodes[p as usize].def.name == op => Some(p as usize),
        _ => None,
    }
}

/// Constant `i` of node `n` as u64.
fn const_u64(graph: &Graph, n: usize, i: usize) -> Option<u64> {
    graph.nodes[n].consts.get(i)?.as_u64()
}

fn u64_of(v: &Value) -> u64 {
    v.as_u64().unwrap_or(0)
}

/// The u64 literal behind `wire`, if it comes from a literal node.
fn literal_u64(graph: &Graph, wire: Wire) -> Option<u64> {
    let p = producer(graph, wire, LITERAL_OP)?;
    graph.nodes[p].consts.first()?.as_u64()
}

/// A two-wire u64 op with a literal operand: the other wire and the literal.
/// The literal node is not consumed (literals are free to share).
fn literal_operand(graph: &Graph, n: usize, commutative: bool) -> Option<Match> {
    let w = &graph.nodes[n].wires;
    let (x, k) = match (literal_u64(graph, w[0]), literal_u64(graph, w[1])) {
        // Both literal: constant folding evaluates it; nothing to fuse.
        (Some(_), Some(_)) => return None,
        (None, Some(k)) => (w[0], k),
        (Some(k), None) if commutative => (w[1], k),
        _ => return None,
    };
    Some(Match { interior: Vec::new(), wires: vec![x], consts: vec![Value::U64(k)] })
}

/// `op(op(x, A), B)` for a const-operand op: holes `[x]`, `[A, B]`.
fn chain(graph: &Graph, n: usize, op: &str) -> Option<Match> {
    let outer = const_u64(graph, n, 0)?;
    let inner = producer(graph, graph.nodes[n].wires[0], op)?;
    let a = const_u64(graph, inner, 0)?;
    Some(Match {
        interior: vec![inner],
        wires: vec![graph.nodes[inner].wires[0]],
        consts: vec![Value::U64(a), Value::U64(outer)],
    })
}

/// `decimal_mul` of a `to_decimal` conversion and a decimal literal (either
/// order): holes `[x]` (the conversion's input), `[T, F]` (its target type
/// and the literal's text). The literal node is not consumed.
fn decimal_cast_times_literal(graph: &Graph, n: usize) -> Option<Match> {
    let w = &graph.nodes[n].wires;
    let literal = |wire: Wire| match graph.nodes[producer(graph, wire, LITERAL_OP)?].consts.first()? {
        Value::Decimal(d) => Some(*d),
        _ => None,
    };
    let (cast, factor) = match (literal(w[0]), literal(w[1])) {
        (None, Some(f)) => (w[0], f),
        (Some(f), None) => (w[1], f),
        _ => return None,
    };
    let c = producer(graph, cast, decimal::TO_DECIMAL.name)?;
    let to = graph.nodes[c].consts.first()?.clone();
    Some(Match {
        interior: vec![c],
        wires: vec![graph.nodes[c].wires[0]],
        consts: vec![to, Value::str(factor.to_string())],
    })
}

/// The node behind wire `w` (its first output) when a rewrite may read
/// through it: pure, not volatile, not a capture and not named by a
/// modified binding (that binding's value is not the node's value now).
fn usable_node<'g>(graph: &'g Graph, modified: &[bool], w: Wire) -> Option<&'g GraphNode> {
    let Wire::Node(p, 0) = w else { return None };
    let node = &graph.nodes[p as usize];
    (!modified[p as usize] && node.def.purity == Purity::Pure && !node.volatile && !node.capture).then_some(node)
}

/// The pick entry ([`entries`]) of the pick behind wire `w`, and the
/// pick's input, when the node is a pick one names: pure, not volatile, not
/// a capture and not named by a modified binding (that binding's value is
/// not the pick's value now).
fn pick_entry(graph: &Graph, modified: &[bool], w: Wire) -> Option<(String, Wire)> {
    let node = usable_node(graph, modified, w)?;
    let name = node.def.name;
    let text = |i: usize| node.consts.get(i)?.as_str();
    let entry = if real_data::word_list(name).is_some() {
        name.to_string()
    } else if name == weighted::WEIGHTED_STRINGS.name {
        // A spec that does not build leaves the fused node unbuilt, so the
        // rule does not fire and the pick fails as itself.
        entries::weighted_entry(text(0)?)
    } else if name == PICK_ENTRY.name {
        text(0)?.to_string()
    } else if name == locale::LOCALE_WORDS.name || name == locale::LOCALE_PLACES.name {
        // A locale's city, region or plain list entry (one with no
        // placeholder to fill): the pick is printed as it is.
        let (locale_name, what) = (text(0)?, text(1)?);
        locale::printed_pick(name, locale_name, what)?;
        entries::locale_entry(name, locale_name, what)
    } else {
        return None;
    };
    (node.wires.len() == 1).then(|| (entry, node.wires[0]))
}

/// The entries of the picks behind wire `w` seen through text maps
/// (`str_lower`, `str_upper`, `regex_replace`, at most `depth` of them),
/// and the wires they read: a pick's entry ([`pick_entry`]) and its input,
/// or a [`PICK_EITHER`]'s two entries and its three wires, each entry with
/// the maps applied ([`entries::mapped_entry`]). The maps are not
/// swallowed: one that something else reads stays.
fn mapped_picks(graph: &Graph, modified: &[bool], w: Wire, depth: usize) -> Option<(Vec<String>, Vec<Wire>)> {
    if let Some((entry, x)) = pick_entry(graph, modified, w) {
        return Some((vec![entry], vec![x]));
    }
    let node = usable_node(graph, modified, w)?;
    if node.def.name == PICK_EITHER.name {
        let entries = node.consts.iter().map(|e| e.as_str().map(str::to_string)).collect::<Option<_>>()?;
        return Some((entries, node.wires.clone()));
    }
    let &[inner] = &node.wires[..] else { return None };
    let (entries, wires) = mapped_picks(graph, modified, inner, depth.checked_sub(1)?)?;
    let entries =
        entries.iter().map(|e| entries::mapped_entry(node.def.name, &node.consts, e)).collect::<Option<_>>()?;
    Some((entries, wires))
}

/// Text maps a chain may hold before it is left alone.
const MAP_DEPTH: usize = 8;

/// The one pick behind wire `w` through text maps ([`mapped_picks`]): its
/// entry and its input.
fn single_pick(graph: &Graph, modified: &[bool], w: Wire) -> Option<(String, Wire)> {
    match mapped_picks(graph, modified, w, MAP_DEPTH)? {
        (mut entries, wires) if entries.len() == 1 && wires.len() == 1 => Some((entries.pop()?, wires[0])),
        _ => None,
    }
}

/// `printf`'s wires with each pick an entry names (through text maps)
/// replaced by the pick's own input, and the entries (empty for a wire
/// kept), when at least one wire is such a pick. The picks are not
/// swallowed: one that something else reads stays.
fn word_picks(graph: &Graph, modified: &[bool], n: usize) -> Option<Match> {
    let node = &graph.nodes[n];
    let (lists, wires): (Vec<String>, Vec<Wire>) = node
        .wires
        .iter()
        // A pick checking the size limit at each row is left to its own node.
        .map(|&w| {
            single_pick(graph, modified, w)
                .filter(|(entry, _)| !entries::checks_limit(entry))
                .unwrap_or_else(|| (String::new(), w))
        })
        .unzip();
    let format = node.consts.first()?.clone();
    lists.iter().any(|l| !l.is_empty()).then(|| Match {
        interior: Vec::new(),
        wires,
        consts: vec![format, Value::str(lists.join(","))],
    })
}

/// `select_str(c, pick_a(a), pick_b(b))` over two picks entries name
/// (through text maps), as `[c, a, b]` and the two entries, when `a` and `b`
/// come from nodes that can neither fail nor be `None` ([`never_fails`]):
/// the fused node reads both, where the select read only the branch it took.
fn select_of_picks(graph: &Graph, modified: &[bool], n: usize) -> Option<Match> {
    let node = &graph.nodes[n];
    let [cond, a, b] = node.wires[..] else { return None };
    let (entry_a, a) = single_pick(graph, modified, a)?;
    let (entry_b, b) = single_pick(graph, modified, b)?;
    (never_fails(graph, a, 8) && never_fails(graph, b, 8)).then(|| Match {
        interior: Vec::new(),
        wires: vec![cond, a, b],
        consts: vec![Value::str(entry_a), Value::str(entry_b)],
    })
}

/// Whether wire `w` comes from an input or a cone of at most `depth` nodes
/// that can neither fail nor make `None`: literals, `hash`, `hash_range`
/// and `u64_xor`.
fn never_fails(graph: &Graph, w: Wire, depth: usize) -> bool {
    match w {
        Wire::Input(_) => true,
        Wire::Node(p, _) => {
            let node = &graph.nodes[p as usize];
            let name = node.def.name;
            depth > 0
                && [LITERAL_OP, hash::HASH.name, hash::HASH_RANGE.name, bitwise::U64_XOR.name].contains(&name)
                && node.wires.iter().all(|&w| never_fails(graph, w, depth - 1))
        }
    }
}

/// A text map (`str_lower`, `str_upper`, `regex_replace` with its
/// constants) over a pick of a list or a [`PICK_EITHER`] of two, through
/// other maps ([`mapped_picks`]): the pick's input (or the choice's three
/// wires) and the entries with every map applied. Its node is then made
/// from the mapped lists ([`mapped_pick`]); an entry that cannot be mapped
/// (a region, a weighted spec, a pattern that does not compile) leaves it
/// unbuilt, and the map stays.
fn text_map_of_pick(graph: &Graph, modified: &[bool], n: usize) -> Option<Match> {
    let (entries, wires) = mapped_picks(graph, modified, Wire::Node(n as u32, 0), MAP_DEPTH)?;
    Some(Match { interior: Vec::new(), wires, consts: entries.into_iter().map(Value::str).collect() })
}

/// [`PICK_ENTRY`] over one wire, or [`PICK_EITHER`] over a choice's three.
fn mapped_pick(m: &Match) -> Replacement {
    same_holes(if m.wires.len() == 3 { &PICK_EITHER } else { &PICK_ENTRY }, m)
}

/// `printf(fmt, ..)` whose first wire from `zero_pad_u64(x, W)` (W at most
/// 64) fills a plain `{}`: `x` in its place and `{:0W}` for the `{}` (the
/// same digits and zeros).
fn zero_pad_in_printf(graph: &Graph, n: usize) -> Option<Match> {
    splice_into_printf(graph, n, format::ZERO_PAD_U64.name, |pad| {
        let width = pad.consts.first()?.as_u64().filter(|&w| w <= 64)?;
        Some((format!("{{:0{width}}}"), vec![pad.wires[0]]))
    })
}

/// `printf(outer, ..)` whose first wire from another `printf` fills a
/// plain `{}` of `outer`: the inner printf's wires in its place, and the
/// spliced format ([`format::splice_format`]). Both must take exactly one
/// wire per placeholder, so that neither fails for a missing input or
/// ignores a surplus one.
fn nested_printf(graph: &Graph, n: usize) -> Option<Match> {
    splice_into_printf(graph, n, format::PRINTF.name, |inner| {
        Some((exact_printf(inner)?.to_string(), inner.wires.clone()))
    })
}

/// `printf(fmt, ..)`, taking exactly one wire per placeholder, whose first
/// wire from an `op` node that `as_format` reads as a format over wires
/// fills a plain `{}`: those wires in its place and that format spliced in
/// ([`format::splice_format`]); the `op` node is consumed.
fn splice_into_printf(
    graph: &Graph,
    n: usize,
    op: &str,
    as_format: impl Fn(&GraphNode) -> Option<(String, Vec<Wire>)>,
) -> Option<Match> {
    let node = &graph.nodes[n];
    let outer = exact_printf(node)?;
    node.wires.iter().enumerate().find_map(|(k, &w)| {
        let p = producer(graph, w, op)?;
        let (inner, inner_wires) = as_format(&graph.nodes[p])?;
        let spliced = format::splice_format(outer, k, &inner)?;
        let wires = node.wires[..k].iter().chain(&inner_wires).chain(&node.wires[k + 1..]).copied().collect();
        Some(Match { interior: vec![p], wires, consts: vec![Value::str(spliced)] })
    })
}

/// The format of a `printf` node that takes exactly one wire per placeholder.
fn exact_printf(node: &GraphNode) -> Option<&str> {
    let format = node.consts.first()?.as_str()?;
    (format::placeholder_count(format) == node.wires.len()).then_some(format)
}

fn same_holes(def: &'static NodeDef, m: &Match) -> Replacement {
    Replacement { def, wires: m.wires.clone(), consts: m.consts.clone() }
}

/// `op(args)` with interior nodes expanded, for event messages.
fn render(graph: &Graph, n: usize, interior: &[usize], names: &HashMap<Wire, usize>) -> String {
    let node = &graph.nodes[n];
    let mut parts: Vec<String> = node
        .wires
        .iter()
        .map(|w| match *w {
            Wire::Input(i) => graph.inputs[i as usize].name.clone(),
            Wire::Node(p, _) if interior.contains(&(p as usize)) => render(graph, p as usize, interior, names),
            Wire::Node(p, port) => wire_label(graph, p as usize, port, names),
        })
        .collect();
    parts.extend(node.consts.iter().map(literal_text));
    format!("{}({})", node.def.name, parts.join(", "))
}

/// A short label for a wire from node `p`: its binding name, its literal, or its op.
fn wire_label(graph: &Graph, p: usize, port: u32, names: &HashMap<Wire, usize>) -> String {
    let node = &graph.nodes[p];
    if let Some(&o) = names.get(&Wire::Node(p as u32, port)) {
        return graph.outputs[o].name.clone();
    }
    if node.def.name == LITERAL_OP {
        return node.consts.first().map(literal_text).unwrap_or_default();
    }
    format!("{}(..)", node.def.name)
}

/// The names of the fusion rules that rewrote `program`, in the order they
/// fired (from its `FusionApplied` events).
pub fn rules_fired(program: &Program) -> Vec<&str> {
    program
        .events
        .iter()
        .filter(|e| e.kind == EventKind::FusionApplied)
        .map(|e| e.message.split(':').next().unwrap_or_default())
        .collect()
}

/// The `fusion` pass: [`fuse`], unless fusion is off.
pub struct Fusion;

impl Pass for Fusion {
    fn name(&self) -> &'static str {
        "fusion"
    }

    fn run(&self, graph: &mut Graph, cx: &mut PassContext<'_>) -> Result<Option<String>, CompileError> {
        if !cx.options.fusion {
            return Ok(Some("disabled".into()));
        }
        let summary = fuse(graph, cx.options.supports(), &mut cx.events);
        cx.stats.fusions = summary.applied;
        Ok(Some(format!("{} rewrite(s) in {} iteration(s)", summary.applied, summary.iterations)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::{compile, sketch, CompileOptions};
    use crate::program::Program;
    use std::sync::Arc;

    fn build(src: &str, fusion: bool) -> Arc<Program> {
        let ir = sketch::parse(&format!("input x: u64\n{src}")).unwrap();
        Arc::new(compile(&ir, &CompileOptions { fusion, ..CompileOptions::default() }).unwrap())
    }

    #[test]
    fn order_is_priority_then_name() {
        let order: Vec<(u32, &str)> = rules_in_order().iter().map(|r| (r.priority, r.name)).collect();
        let mut sorted = order.clone();
        sorted.sort();
        assert_eq!(order, sorted);
        let names: std::collections::HashSet<&str> = CATALOG.iter().map(|r| r.name).collect();
        assert_eq!(names.len(), CATALOG.len(), "rule names are unique");
    }

    #[test]
    fn hash_interval_wins_over_scale_range() {
        let p = build("out := lerp(unit_interval(hash(x)), 1, 2)", true);
        assert_eq!(rules_fired(&p), ["hash_unit_lerp_to_hash_interval"]);
        assert_eq!(p.steps.len(), 1);
        assert_eq!(p.steps[0].def.name, "hash_interval");
    }

    #[test]
    fn rewrites_compose_to_a_fixpoint() {
        // u64_mod(hash(x), 100) -> mod(hash(x), 100) -> hash_range(x, 100)
        let p = build("out := u64_mod(hash(x), 100)", true);
        assert_eq!(rules_fired(&p), ["u64_mod_literal_to_mod", "hash_mod_to_hash_range"]);
        assert_eq!(p.steps.iter().map(|s| s.def.name).collect::<Vec<_>>(), ["hash_range"]);
        let p = build("out := u64_add(u64_sub(u64_add(x, 10), 3), 4)", true);
        assert_eq!(p.steps.iter().map(|s| s.def.name).collect::<Vec<_>>(), ["add"]);
        assert_eq!(p.steps[0].consts[0].as_u64(), Some(11));
    }

    #[test]
    fn a_second_pass_is_a_no_op() {
        let ir =
            sketch::parse("input x: u64\nout := lerp(unit_interval(u64_mod(hash(u64_add(x, 1)), 9)), 0, 5)").unwrap();
        let mut g = crate::compile::resolve::resolve(&ir, &mut Vec::new()).unwrap();
        let mut ev = Vec::new();
        let first = fuse(&mut g, |_| true, &mut ev);
        assert!(first.applied >= 3 && !first.hit_limit);
        let second = fuse(&mut g, |_| true, &mut ev);
        assert_eq!(second.applied, 0);
        assert_eq!(second.iterations, 1);
    }

    #[test]
    fn bound_or_shared_interior_nodes_are_not_swallowed() {
        // `h` is a binding: the output reads it, so hash must survive.
        let p = build("h := hash(x)\nout := mod(h, 10)", true);
        assert!(rules_fired(&p).is_empty());
        // Only `out` is requested, so `h` pins nothing: it fuses...
        let only_out = CompileOptions { outputs: Some(vec!["out".into()]), ..CompileOptions::default() };
        let ir = sketch::parse("input x: u64\nh := hash(x)\nout := mod(h, 10)").unwrap();
        let p = compile(&ir, &only_out).unwrap();
        assert_eq!(rules_fired(&p), ["hash_mod_to_hash_range"], "an unrequested binding does not pin");
        // ...unless the hash has a second reader: swallowing it would compute it twice.
        let ir = sketch::parse("input x: u64\nh := hash(x)\nout := u64_xor(mod(h, 10), h)").unwrap();
        let p = compile(&ir, &only_out).unwrap();
        assert!(rules_fired(&p).is_empty(), "{:?}", p.events);
    }

    #[test]
    fn failure_semantics_are_kept() {
        // mod by 0 fails every evaluation; hash_range(x, 0) would be 0.
        let p = build("out := mod(hash(x), 0)", true);
        assert!(rules_fired(&p).is_empty());
        // u64_mod by 0 is 0; mod by 0 would fail.
        let p = build("out := u64_mod(x, 0)", true);
        assert!(rules_fired(&p).is_empty());
        // mod(mod(x, 0), 5): the inner failure must stay.
        let p = build("out := mod(mod(x, 0), 5)", true);
        assert!(rules_fired(&p).is_empty());
        let p = build("out := mod(mod(x, 10), 4)", true);
        assert!(rules_fired(&p).is_empty(), "4 does not divide 10");
    }

    #[test]
    fn unsupported_targets_are_not_produced() {
        let ir = sketch::parse("input x: u64\nout := mod(hash(x), 10)").unwrap();
        let mut g = crate::compile::resolve::resolve(&ir, &mut Vec::new()).unwrap();
        let s = fuse(&mut g, |d| d.name != "hash_range", &mut Vec::new());
        assert_eq!(s.applied, 0);
    }

    #[test]
    fn events_name_the_rule_and_the_span() {
        let p = build("out := mod(hash(x), 1000)", true);
        let e = p.events.iter().find(|e| e.kind == EventKind::FusionApplied).unwrap();
        assert_eq!(e.message, "hash_mod_to_hash_range: mod(hash(x), 1000) -> hash_range(x, 1000)");
        assert_eq!(e.span.unwrap().line, 2);
    }
}
