//! Vector-set family: questions asked of an integer list (`vec_i32`,
//! `vec_i64`) — its length, the element at an index, its extremes, whether
//! and where a value appears, how many elements lie below a value, and how
//! two lists compare as sets — and the parses that put a list on a wire
//! from its JSON text (`str_to_vec_i32`, `str_to_vec_i64`,
//! `str_to_vec_f64`).
//!
//! A rank ("how many matching records come before this one") and a
//! cardinality ("how many match") are functions of a list and a record:
//! the rank is a position or a count below, the cardinality a length. So a
//! host that keeps the ordinals matching a label as a list gets both from
//! these nodes, the same on every engine and every read, where a counter
//! advancing over rows would depend on the order rows are visited.
//!
//! Every question exists once per element type, named with its suffix
//! (`vec_len_i32`, `vec_len_i64`), since the list's element type is part of
//! its wire's type and no list widens into another. A miss is an ordinary
//! answer, never a failure: an index past the end reads 0, the extremes of
//! an empty list are 0, an absent value's position is the list's length
//! ("past the end", the bound `vec_len_*` gives). Set questions count
//! distinct values. Integer answers are `i64` (elements, widened) and
//! `u64` (counts, positions, 0/1 flags), as upstream's nodes answer. A
//! parse fails the evaluation on anything that is not a JSON array of the
//! element type, naming the element: a list silently short one element
//! would be a wrong count everywhere downstream.

use crate::node::kit::value_fn;
use crate::node::{wire, Args, NodeDef, NodeError, Outputs, Testing};
use crate::types::PortType::{Str, Vector, I64, U64};
use crate::types::VectorType;
use crate::value::Value;
use std::collections::BTreeSet;

/// The integer elements of the list on wire `i` of node `node`, widened to
/// i64 (an `i32` element compares with an `i64` value as upstream's nodes
/// compare it: exactly).
fn elements(args: &Args<'_>, i: usize, node: &str) -> Result<Vec<i64>, NodeError> {
    match args.get(i) {
        Value::Vector(ty, bytes) => crate::vector::integers(*ty, bytes)
            .ok_or_else(|| NodeError::new(format!("{node}: expected an integer list, got a {ty}"))),
        other => Err(NodeError::new(format!("{node}: expected an integer list, got {other}"))),
    }
}

/// The i64 wire `i` (the value or index a question is about).
fn integer(args: &Args<'_>, i: usize) -> i64 {
    args.get(i).as_integer().and_then(|v| i64::try_from(v).ok()).unwrap_or(0)
}

/// The u64 wire `i` (an index).
fn index(args: &Args<'_>, i: usize) -> u64 {
    args.get(i).as_u64().unwrap_or(0)
}

/// How many elements the list holds.
pub fn len(list: &[i64]) -> u64 {
    list.len() as u64
}

/// The element at `i`, or 0 past the end.
pub fn at(list: &[i64], i: u64) -> i64 {
    usize::try_from(i).ok().and_then(|i| list.get(i)).copied().unwrap_or(0)
}

/// The largest element, or 0 for an empty list.
pub fn max(list: &[i64]) -> i64 {
    list.iter().copied().max().unwrap_or(0)
}

/// The smallest element, or 0 for an empty list.
pub fn min(list: &[i64]) -> i64 {
    list.iter().copied().min().unwrap_or(0)
}

/// 1 when `x` is an element, else 0.
pub fn contains(list: &[i64], x: i64) -> u64 {
    u64::from(list.contains(&x))
}

/// The index of the first `x`, or the list's length when `x` is absent.
pub fn position(list: &[i64], x: i64) -> u64 {
    list.iter().position(|e| *e == x).unwrap_or(list.len()) as u64
}

/// How many elements are less than `x` (the list need not be sorted, nor
/// hold `x`).
pub fn count_below(list: &[i64], x: i64) -> u64 {
    list.iter().filter(|e| **e < x).count() as u64
}

/// How many distinct values appear in both lists.
pub fn intersect_count(a: &[i64], b: &[i64]) -> u64 {
    let b: BTreeSet<i64> = b.iter().copied().collect();
    a.iter().copied().collect::<BTreeSet<i64>>().intersection(&b).count() as u64
}

/// 1 when both lists hold the same set of values, whatever their order or
/// repetition, else 0.
pub fn set_eq(a: &[i64], b: &[i64]) -> u64 {
    u64::from(a.iter().copied().collect::<BTreeSet<i64>>() == b.iter().copied().collect::<BTreeSet<i64>>())
}

/// The list a corner-suite call asks about, of element type `$t` (`i32`
/// or `i64`): four small elements made from the corner variables, one of
/// them repeated (see [`Testing::corner_call`]; no corner variable holds a
/// list). It is a JSON array, not an interpolated string, so that the
/// random program generator, which fills a corner call's variables, finds
/// them.
macro_rules! corner_list {
    ($t:literal) => {
        concat!("str_to_vec_", $t, "(json_array(mod(a, 100), mod(b, 100), mod(c, 7), mod(a, 100)) as str)")
    };
}

/// The second list of a two-list corner call (see `corner_list!`).
macro_rules! corner_list_b {
    ($t:literal) => {
        concat!("str_to_vec_", $t, "(json_array(mod(c, 100), mod(b, 100), 3) as str)")
    };
}

/// One question of a list of element type `$suffix` (`"i32"`), the node
/// `$stem$suffix`: `$answer` computes the answer of type `$out` from `$args` (the
/// list is wire 0; `$node` names the node in its failures); the corner
/// suite calls it on a corner list followed by `$rest`.
macro_rules! list_question {
    ($id:ident, $stem:literal, $suffix:literal, $summary:literal, $doc:literal, [$($param:expr),*], $out:ident,
     |$args:ident, $node:ident| $answer:expr, $rest:expr) => {
        #[doc = concat!("`", $stem, $suffix, "`: ", $summary)]
        pub const $id: NodeDef = NodeDef {
            name: concat!($stem, $suffix),
            category: "vector",
            doc: $doc,
            params: &[$($param),*],
            outputs: Outputs::One($out),
            build: |_| {
                Ok(value_fn(|$args, outs| {
                    let $node = concat!($stem, $suffix);
                    outs[0] = Value::$out($answer);
                    Ok(())
                }))
            },
            testing: Testing {
                corner_call: Some(concat!($stem, $suffix, "(", corner_list!($suffix), $rest, ")")),
                ..Testing::BASE
            },
            ..NodeDef::BASE
        };
    };
}

/// The nine questions of one integer element type: `$suffix` the name's
/// suffix (`"i32"`), `$ty` its [`VectorType`], then the nine constants'
/// names.
macro_rules! list_questions {
    ($suffix:literal, $ty:expr, $len:ident, $at:ident, $max:ident, $min:ident, $contains:ident, $position:ident,
     $count_below:ident, $intersect:ident, $set_eq:ident) => {
        list_question!($len, "vec_len_", $suffix, "how many elements the list holds.",
            "How many elements the list holds.",
            [wire("v", Vector($ty))], U64, |args, node| len(&elements(args, 0, node)?), "");
        list_question!($at, "vec_at_", $suffix, "the element at an index, 0 past the end.",
            "The element at index i (from 0), as an i64; 0 past the end (compare i with the list's length first when a 0 element must be told apart).",
            [wire("v", Vector($ty)), wire("i", U64)], I64,
            |args, node| at(&elements(args, 0, node)?, index(args, 1)), ", mod(b, 6)");
        list_question!($max, "vec_max_", $suffix, "the largest element, 0 for an empty list.",
            "The largest element, as an i64; 0 for an empty list.",
            [wire("v", Vector($ty))], I64, |args, node| max(&elements(args, 0, node)?), "");
        list_question!($min, "vec_min_", $suffix, "the smallest element, 0 for an empty list.",
            "The smallest element, as an i64; 0 for an empty list.",
            [wire("v", Vector($ty))], I64, |args, node| min(&elements(args, 0, node)?), "");
        list_question!($contains, "vec_contains_", $suffix, "1 when a value is an element.",
            "1 when x is an element of the list, else 0.",
            [wire("v", Vector($ty)), wire("x", I64)], U64,
            |args, node| contains(&elements(args, 0, node)?, integer(args, 1)), ", mod(b, 100) as i64");
        list_question!($position, "vec_position_", $suffix, "the index of a value, the length when absent.",
            "The index of the first element equal to x; the list's length (past the end) when x is absent. Over a sorted list of ordinals it is a record's rank.",
            [wire("v", Vector($ty)), wire("x", I64)], U64,
            |args, node| position(&elements(args, 0, node)?, integer(args, 1)), ", mod(c, 7) as i64");
        list_question!($count_below, "vec_count_below_", $suffix, "how many elements are less than a value.",
            "How many elements are less than x: a record's rank among the matching ones, the list unsorted or not holding x.",
            [wire("v", Vector($ty)), wire("x", I64)], U64,
            |args, node| count_below(&elements(args, 0, node)?, integer(args, 1)), ", mod(b, 100) as i64");
        list_question!($intersect, "vec_intersect_count_", $suffix, "how many distinct values two lists share.",
            "How many distinct values appear in both lists (a repeated value counts once).",
            [wire("a", Vector($ty)), wire("b", Vector($ty))], U64,
            |args, node| intersect_count(&elements(args, 0, node)?, &elements(args, 1, node)?),
            concat!(", ", corner_list_b!($suffix)));
        list_question!($set_eq, "vec_set_eq_", $suffix, "1 when two lists hold the same set of values.",
            "1 when both lists hold the same set of values, whatever their order or repetition, else 0.",
            [wire("a", Vector($ty)), wire("b", Vector($ty))], U64,
            |args, node| set_eq(&elements(args, 0, node)?, &elements(args, 1, node)?),
            concat!(", ", corner_list_b!($suffix)));
    };
}

list_questions!(
    "i32",
    VectorType::I32,
    VEC_LEN_I32,
    VEC_AT_I32,
    VEC_MAX_I32,
    VEC_MIN_I32,
    VEC_CONTAINS_I32,
    VEC_POSITION_I32,
    VEC_COUNT_BELOW_I32,
    VEC_INTERSECT_COUNT_I32,
    VEC_SET_EQ_I32
);

list_questions!(
    "i64",
    VectorType::I64,
    VEC_LEN_I64,
    VEC_AT_I64,
    VEC_MAX_I64,
    VEC_MIN_I64,
    VEC_CONTAINS_I64,
    VEC_POSITION_I64,
    VEC_COUNT_BELOW_I64,
    VEC_INTERSECT_COUNT_I64,
    VEC_SET_EQ_I64
);

/// The parse node `str_to_vec_<suffix>`: a JSON array of the element type
/// `$ty` as a list wire, failing with upstream's wording.
macro_rules! parse_node {
    ($name:ident, $suffix:literal, $ty:expr, $doc:literal, $corner:literal) => {
        #[doc = concat!("`str_to_vec_", $suffix, "`: a JSON array as a `vec_", $suffix, "` list.")]
        pub const $name: NodeDef = NodeDef {
            name: concat!("str_to_vec_", $suffix),
            category: "convert",
            doc: $doc,
            params: &[wire("s", Str)],
            outputs: Outputs::One(Vector($ty)),
            build: |_| {
                Ok(value_fn(|args, outs| {
                    let text = args.get(0).as_str().unwrap_or_default();
                    let value = crate::vector::parse($ty, text)
                        .map_err(|e| NodeError::new(e.node_message(concat!("str_to_vec_", $suffix))))?;
                    crate::node::limit::check(value.payload_len())?;
                    outs[0] = value;
                    Ok(())
                }))
            },
            testing: Testing { corner_call: Some($corner), fallible: true, ..Testing::BASE },
            ..NodeDef::BASE
        };
    };
}

parse_node!(
    STR_TO_VEC_I32,
    "i32",
    VectorType::I32,
    "Reads the text as a JSON array of integers (`[3, 9, 14]`, white space around it ignored) and gives it as a vec_i32 list. Fails naming the element when the text is not a JSON array, an element is not an integer, or one lies outside the i32 range.",
    "str_to_vec_i32(json_array(mod(a, 100), b, c) as str)"
);

parse_node!(
    STR_TO_VEC_I64,
    "i64",
    VectorType::I64,
    "Reads the text as a JSON array of integers (`[3, 9, 14]`, white space around it ignored) and gives it as a vec_i64 list. Fails naming the element when the text is not a JSON array or an element is not an integer in the i64 range.",
    "str_to_vec_i64(json_array(a, mod(b, 100), c) as str)"
);

parse_node!(
    STR_TO_VEC_F64,
    "f64",
    VectorType::F64,
    "Reads the text as a JSON array of numbers (`[4.5, 5, 5.25]`, white space around it ignored) and gives it as a vec_f64 list (an is_stable window, for one). Fails naming the element when the text is not a JSON array or an element is not a number.",
    "str_to_vec_f64(json_array(x, a, y) as str)"
);

/// The family's nodes, in catalog order.
pub const NODES: &[NodeDef] = &[
    VEC_LEN_I32,
    VEC_LEN_I64,
    VEC_AT_I32,
    VEC_AT_I64,
    VEC_MAX_I32,
    VEC_MAX_I64,
    VEC_MIN_I32,
    VEC_MIN_I64,
    VEC_CONTAINS_I32,
    VEC_CONTAINS_I64,
    VEC_POSITION_I32,
    VEC_POSITION_I64,
    VEC_COUNT_BELOW_I32,
    VEC_COUNT_BELOW_I64,
    VEC_INTERSECT_COUNT_I32,
    VEC_INTERSECT_COUNT_I64,
    VEC_SET_EQ_I32,
    VEC_SET_EQ_I64,
    STR_TO_VEC_I32,
    STR_TO_VEC_I64,
    STR_TO_VEC_F64,
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::{eval1, eval_err};

    fn list_i32(text: &str) -> Value {
        eval1(&STR_TO_VEC_I32, &[], &[Value::str(text)])
    }

    fn list_i64(text: &str) -> Value {
        eval1(&STR_TO_VEC_I64, &[], &[Value::str(text)])
    }

    fn ask(def: &NodeDef, args: &[Value]) -> String {
        eval1(def, &[], args).display_text()
    }

    /// Upstream's worked example: the ordinals [3, 9, 14, 20].
    #[test]
    fn a_list_answers_its_length_elements_and_bounds() {
        let ords = list_i32("[3, 9, 14, 20]");
        assert_eq!(ask(&VEC_LEN_I32, &[ords.clone()]), "4");
        assert_eq!(ask(&VEC_AT_I32, &[ords.clone(), Value::U64(0)]), "3");
        assert_eq!(ask(&VEC_AT_I32, &[ords.clone(), Value::U64(2)]), "14");
        assert_eq!(ask(&VEC_AT_I32, &[ords.clone(), Value::U64(99)]), "0", "past the end answers 0");
        assert_eq!(ask(&VEC_AT_I32, &[ords.clone(), Value::U64(u64::MAX)]), "0");
        assert_eq!(ask(&VEC_MAX_I32, &[ords.clone()]), "20");
        assert_eq!(ask(&VEC_MIN_I32, &[ords]), "3");
        let empty = list_i32("[]");
        assert_eq!(ask(&VEC_LEN_I32, &[empty.clone()]), "0");
        assert_eq!(ask(&VEC_MAX_I32, &[empty.clone()]), "0");
        assert_eq!(ask(&VEC_MIN_I32, &[empty.clone()]), "0");
        assert_eq!(ask(&VEC_POSITION_I32, &[empty, Value::I64(5)]), "0");
    }

    #[test]
    fn a_rank_is_a_position_or_a_count_below() {
        let ords = list_i32("[3, 9, 14, 20]");
        let q = |def: &NodeDef, x: i64| ask(def, &[ords.clone(), Value::I64(x)]);
        assert_eq!(q(&VEC_POSITION_I32, 14), "2");
        assert_eq!(q(&VEC_COUNT_BELOW_I32, 14), "2");
        assert_eq!(q(&VEC_POSITION_I32, 7), "4", "an absent value positions past the end");
        assert_eq!(q(&VEC_COUNT_BELOW_I32, 7), "1");
        // A value outside the i32 range is in no i32 list, and above all of it.
        assert_eq!(q(&VEC_POSITION_I32, i64::MAX), "4");
        assert_eq!(q(&VEC_CONTAINS_I32, 1 << 40), "0");
        assert_eq!(q(&VEC_COUNT_BELOW_I32, 1 << 40), "4");
        assert_eq!(q(&VEC_COUNT_BELOW_I32, i64::MIN), "0");
        let matching = list_i32("[3, 9, 14, 20, 27]");
        assert_eq!(ask(&VEC_COUNT_BELOW_I32, &[matching.clone(), Value::I64(14)]), "2");
        assert_eq!(ask(&VEC_LEN_I32, &[matching]), "5");
    }

    #[test]
    fn membership_and_set_comparisons_ignore_order_and_repetition() {
        let (a, b, c) = (list_i32("[1, 2, 3]"), list_i32("[3, 2, 1, 1]"), list_i32("[3, 4]"));
        assert_eq!(ask(&VEC_CONTAINS_I32, &[a.clone(), Value::I64(2)]), "1");
        assert_eq!(ask(&VEC_CONTAINS_I32, &[a.clone(), Value::I64(42)]), "0");
        assert_eq!(ask(&VEC_SET_EQ_I32, &[a.clone(), b.clone()]), "1");
        assert_eq!(ask(&VEC_SET_EQ_I32, &[a.clone(), c.clone()]), "0");
        assert_eq!(ask(&VEC_INTERSECT_COUNT_I32, &[a.clone(), c]), "1");
        assert_eq!(ask(&VEC_INTERSECT_COUNT_I32, &[a, b]), "3", "distinct values, not pairs");
        let empty = list_i32("[]");
        assert_eq!(ask(&VEC_SET_EQ_I32, &[empty.clone(), empty]), "1");
    }

    #[test]
    fn the_i64_forms_read_the_same_way() {
        let v = list_i64("[10, 20, 30]");
        let q = |def: &NodeDef, x: i64| ask(def, &[v.clone(), Value::I64(x)]);
        assert_eq!(ask(&VEC_LEN_I64, &[v.clone()]), "3");
        assert_eq!(ask(&VEC_AT_I64, &[v.clone(), Value::U64(1)]), "20");
        assert_eq!(ask(&VEC_MAX_I64, &[v.clone()]), "30");
        assert_eq!(ask(&VEC_MIN_I64, &[v.clone()]), "10");
        assert_eq!(q(&VEC_CONTAINS_I64, 20), "1");
        assert_eq!(q(&VEC_POSITION_I64, 30), "2");
        assert_eq!(q(&VEC_COUNT_BELOW_I64, 25), "2");
        assert_eq!(ask(&VEC_SET_EQ_I64, &[v.clone(), v.clone()]), "1");
        assert_eq!(ask(&VEC_INTERSECT_COUNT_I64, &[v.clone(), v]), "3");
        let wide = list_i64("[-9223372036854775808, 9223372036854775807]");
        assert_eq!(ask(&VEC_MIN_I64, &[wide.clone()]), "-9223372036854775808");
        assert_eq!(ask(&VEC_MAX_I64, &[wide]), "9223372036854775807");
    }

    #[test]
    fn a_parse_fails_with_upstreams_words_naming_the_element() {
        let err = |def: &NodeDef, text: &str| eval_err(def, &[], &[Value::str(text)]);
        assert_eq!(
            err(&STR_TO_VEC_I32, "[1, 2147483648]"),
            "str_to_vec_i32: element 2147483648 is outside i32 [-2147483648, 2147483647]"
        );
        assert_eq!(err(&STR_TO_VEC_I32, " [1, 2.5]"), "str_to_vec_i32: element 2.5 is not an integer in \"[1, 2.5]\"");
        assert_eq!(
            err(&STR_TO_VEC_I64, "{\"a\": 1}"),
            "str_to_vec_i64: parsed JSON is not an array: \"{\\\"a\\\": 1}\""
        );
        assert!(err(&STR_TO_VEC_I64, "[1,").starts_with("str_to_vec_i64: cannot parse \"[1,\" as a JSON array: "));
        assert_eq!(
            err(&STR_TO_VEC_F64, "[1, \"x\"]"),
            "str_to_vec_f64: element \"x\" is not a number in \"[1, \\\"x\\\"]\""
        );
        assert_eq!(
            err(&STR_TO_VEC_I64, "[18446744073709551615]"),
            "str_to_vec_i64: element 18446744073709551615 is not an integer in \"[18446744073709551615]\""
        );
    }

    #[test]
    fn a_parse_gives_the_list_its_text_shows() {
        assert_eq!(list_i32(" [3, 9, -14] ").display_text(), "[3,9,-14]");
        assert_eq!(eval1(&STR_TO_VEC_F64, &[], &[Value::str("[4.5, 5, 5.25]")]).display_text(), "[4.5,5,5.25]");
        assert!(matches!(list_i64("[]"), Value::Vector(VectorType::I64, ref b) if b.is_empty()));
    }

    #[test]
    fn a_float_list_is_no_integer_list() {
        let floats = eval1(&STR_TO_VEC_F64, &[], &[Value::str("[1.5]")]);
        assert_eq!(eval_err(&VEC_LEN_I32, &[], &[floats]), "vec_len_i32: expected an integer list, got a vec_f64");
    }
}
