//! Signed family: two-wire `i64` arithmetic and comparisons, the nodes the
//! operators `+ - * / %` and `== != < > <= >=` become when their operands
//! are `i64` (`x - 20000` with `x: i64` is `i64_sub`). Arithmetic wraps on
//! overflow, as the `u64` operators do; a zero divisor gives 0, as `u64_div`
//! and `u64_mod` do (and fails `i64_div_strict` and `i64_mod_strict`, what
//! `/` and `%` become under `pragma strict_values`). An `i64` is its two's-complement word in a slot, so
//! addition, subtraction, multiplication and equality lower to the same
//! machine operations as their `u64` forms; an ordering comparison flips
//! the sign bit of both operands and compares them unsigned.

use crate::node::kit::{map2, map3, try_map2};
use crate::node::lower::{ICmp, Lower, NVal};
use crate::node::{wire, NodeDef, Outputs, Testing};
use crate::nodes::arith::zero_divisor_failure;
use crate::types::PortType::{I64, U64};

/// The corner suite's two i64 operands: differences of its u64 corners, so
/// negative values, zero and both ends of the range (the casts fail past
/// `i64::MAX`, on every engine alike). A macro, to be spliced into each
/// node's corner call.
macro_rules! corner_operands {
    () => {
        "i64_sub(a as i64, b as i64), i64_sub(c as i64, b as i64)"
    };
}

/// Declares a total two-wire `i64` arithmetic node.
macro_rules! signed_binop {
    ($id:ident, $name:literal, $doc:literal, |$a:ident, $b:ident| $body:expr, lower: $lower:expr) => {
        /// A total two-wire `i64` arithmetic node (see its `name` and `doc` fields).
        pub const $id: NodeDef = NodeDef {
            name: $name,
            category: "arithmetic",
            doc: $doc,
            params: &[wire("a", I64), wire("b", I64)],
            outputs: Outputs::One(I64),
            build: |_| Ok(map2(|$a: i64, $b: i64| -> i64 { $body })),
            lower: $lower,
            testing: Testing { corner_call: Some(concat!($name, "(", corner_operands!(), ")")), ..Testing::BASE },
            ..NodeDef::BASE
        };
    };
}

signed_binop!(I64_ADD, "i64_add", "a + b, wrapping.", |a, b| a.wrapping_add(b),
    lower: Some(|l, _, v| Some(vec![l.iadd(v[0], v[1])])));
signed_binop!(I64_SUB, "i64_sub", "a - b, wrapping.", |a, b| a.wrapping_sub(b),
    lower: Some(|l, _, v| Some(vec![l.isub(v[0], v[1])])));
signed_binop!(I64_MUL, "i64_mul", "a * b, wrapping.", |a, b| a.wrapping_mul(b),
    lower: Some(|l, _, v| Some(vec![l.imul(v[0], v[1])])));
signed_binop!(I64_DIV, "i64_div", "a / b truncated toward zero (wrapping: i64::MIN / -1 is i64::MIN), or 0 when b is 0.",
    |a, b| if b == 0 { 0 } else { a.wrapping_div(b) }, lower: None);
signed_binop!(I64_MOD, "i64_mod", "a % b with the sign of a (i64::MIN % -1 is 0), or 0 when b is 0.",
    |a, b| if b == 0 { 0 } else { a.wrapping_rem(b) }, lower: None);

/// Declares what an `i64` `/` or `%` (`$symbol`) becomes under `pragma
/// strict_values`: the total node's result, but a zero divisor fails.
macro_rules! signed_strict {
    ($id:ident, $name:literal, $doc:literal, $symbol:literal, |$a:ident, $b:ident| $body:expr) => {
        /// A two-wire `i64` division failing on a zero divisor (see its `name` and `doc` fields).
        pub const $id: NodeDef = NodeDef {
            name: $name,
            category: "arithmetic",
            doc: $doc,
            params: &[wire("a", I64), wire("b", I64)],
            outputs: Outputs::One(I64),
            build: |_| {
                Ok(try_map2(|$a: i64, $b: i64| if $b == 0 { Err(zero_divisor_failure($symbol)) } else { Ok($body) }))
            },
            testing: Testing {
                corner_call: Some(concat!($name, "(", corner_operands!(), ")")),
                fallible: true,
                ..Testing::BASE
            },
            ..NodeDef::BASE
        };
    };
}

signed_strict!(
    I64_DIV_STRICT,
    "i64_div_strict",
    "a / b as i64_div; a zero b fails the evaluation (`/` over i64 under pragma strict_values).",
    "/",
    |a, b| a.wrapping_div(b)
);
signed_strict!(
    I64_MOD_STRICT,
    "i64_mod_strict",
    "a % b as i64_mod; a zero b fails the evaluation (`%` over i64 under pragma strict_values).",
    "%",
    |a, b| a.wrapping_rem(b)
);

/// The word whose unsigned order is the signed order of `v`: `v` with its sign bit flipped.
fn signed_order(l: &mut dyn Lower, v: NVal) -> NVal {
    let sign = l.iconst(1 << 63);
    l.bxor(v, sign)
}

/// Declares a two-wire `i64` comparison answering 1 when it holds.
macro_rules! signed_cmp {
    ($id:ident, $name:literal, $doc:literal, |$a:ident, $b:ident| $body:expr, $cc:expr, ordered: $ordered:literal) => {
        /// A two-wire `i64` comparison answering 1 when it holds, else 0 (see its `name` and `doc` fields).
        pub const $id: NodeDef = NodeDef {
            name: $name,
            category: "compare",
            doc: $doc,
            params: &[wire("a", I64), wire("b", I64)],
            build: |_| Ok(map2(|$a: i64, $b: i64| u64::from($body))),
            testing: Testing { corner_call: Some(concat!($name, "(", corner_operands!(), ")")), ..Testing::BASE },
            lower: Some(|l, _, v| {
                let (a, b) = if $ordered { (signed_order(l, v[0]), signed_order(l, v[1])) } else { (v[0], v[1]) };
                Some(vec![l.icmp($cc, a, b)])
            }),
            ..NodeDef::BASE
        };
    };
}

signed_cmp!(I64_EQ, "i64_eq", "1 if a == b, else 0.", |a, b| a == b, ICmp::Eq, ordered: false);
signed_cmp!(I64_NE, "i64_ne", "1 if a != b, else 0.", |a, b| a != b, ICmp::Ne, ordered: false);
signed_cmp!(I64_LT, "i64_lt", "1 if a < b (signed), else 0.", |a, b| a < b, ICmp::Lt, ordered: true);
signed_cmp!(I64_GT, "i64_gt", "1 if a > b (signed), else 0.", |a, b| a > b, ICmp::Gt, ordered: true);
signed_cmp!(I64_LE, "i64_le", "1 if a <= b (signed), else 0.", |a, b| a <= b, ICmp::Le, ordered: true);
signed_cmp!(I64_GE, "i64_ge", "1 if a >= b (signed), else 0.", |a, b| a >= b, ICmp::Ge, ordered: true);

/// `select_i64`: a if cond is nonzero, else b (only the branch taken is evaluated): what
/// `if` becomes over two i64 branches.
pub const SELECT_I64: NodeDef = NodeDef {
    name: "select_i64",
    category: "compare",
    doc: "a if cond is nonzero, else b (only the branch taken is evaluated).",
    params: &[wire("cond", U64), wire("a", I64), wire("b", I64)],
    outputs: Outputs::One(I64),
    build: |_| Ok(map3(|c: u64, a: i64, b: i64| if c != 0 { a } else { b })),
    lower: Some(|l, _, v| Some(vec![l.select(v[0], v[1], v[2])])),
    testing: Testing { corner_call: Some(concat!("select_i64(a, ", corner_operands!(), ")")), ..Testing::BASE },
    chooses: true,
    ..NodeDef::BASE
};

/// The family, in catalog order.
pub const NODES: &[NodeDef] = &[
    I64_ADD,
    I64_SUB,
    I64_MUL,
    I64_DIV,
    I64_MOD,
    I64_DIV_STRICT,
    I64_MOD_STRICT,
    I64_EQ,
    I64_NE,
    I64_LT,
    I64_GT,
    I64_LE,
    I64_GE,
    SELECT_I64,
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::eval1;
    use crate::value::Value;

    fn w2(def: &NodeDef, a: i64, b: i64) -> Value {
        eval1(def, &[], &[Value::I64(a), Value::I64(b)])
    }

    #[test]
    fn arithmetic_wraps_and_a_zero_divisor_gives_zero() {
        assert!(w2(&I64_ADD, i64::MAX, 1).same(&Value::I64(i64::MIN)));
        assert!(w2(&I64_SUB, 5, 20_000).same(&Value::I64(-19_995)));
        assert!(w2(&I64_MUL, -3, 7).same(&Value::I64(-21)));
        assert!(w2(&I64_DIV, -7, 2).same(&Value::I64(-3)));
        assert!(w2(&I64_DIV, i64::MIN, -1).same(&Value::I64(i64::MIN)));
        assert!(w2(&I64_DIV, 9, 0).same(&Value::I64(0)));
        assert!(w2(&I64_MOD, -7, 2).same(&Value::I64(-1)));
        assert!(w2(&I64_MOD, i64::MIN, -1).same(&Value::I64(0)));
        assert!(w2(&I64_MOD, 9, 0).same(&Value::I64(0)));
    }

    #[test]
    fn the_strict_forms_fail_on_a_zero_divisor_only() {
        use crate::nodes::testing::eval_err;
        assert!(w2(&I64_DIV_STRICT, i64::MIN, -1).same(&Value::I64(i64::MIN)));
        assert!(w2(&I64_MOD_STRICT, -7, 2).same(&Value::I64(-1)));
        let e = eval_err(&I64_DIV_STRICT, &[], &[Value::I64(9), Value::I64(0)]);
        assert_eq!(e, "the divisor of '/' is 0 (pragma strict_values refuses a division by zero)");
        assert!(eval_err(&I64_MOD_STRICT, &[], &[Value::I64(9), Value::I64(0)]).contains("'%'"));
    }

    #[test]
    fn comparisons_are_signed() {
        let yes = |def: &NodeDef, a, b| w2(def, a, b).same(&Value::U64(1));
        assert!(yes(&I64_LT, -1, 0) && !yes(&I64_LT, 0, -1));
        assert!(yes(&I64_GT, 1, i64::MIN) && yes(&I64_GE, -5, -5) && yes(&I64_LE, i64::MIN, i64::MAX));
        assert!(yes(&I64_EQ, -2, -2) && yes(&I64_NE, -2, 2));
    }

    #[test]
    fn select_chooses_by_the_condition() {
        let s = |c: u64| eval1(&SELECT_I64, &[], &[Value::U64(c), Value::I64(-1), Value::I64(2)]);
        assert!(s(1).same(&Value::I64(-1)) && s(0).same(&Value::I64(2)));
    }
}
