//! Arithmetic family: u64 operations with a constant operand (`add`, `mod`, ...),
//! two-wire forms (wrapping, zero-safe, checked), clamping, variadic folds,
//! Morton interleaving and mixed-radix decomposition.

use crate::node::kit::{fold_u64, map1, map2, split_u64, try_map1, try_map2};
use crate::node::lower::{udiv_const, urem_const, ICmp, Lower, NVal};
use crate::node::{konst, many, wire, NodeDef, Outputs, Samples, Testing, Variadic};
use crate::types::PortType::U64;
use crate::value::Value;
use strength_reduce::StrengthReducedU64;

/// Rust's own words for an integer division by zero.
pub const DIV_ZERO: &str = "attempt to divide by zero";
/// Rust's own words for an integer remainder by zero.
pub const REM_ZERO: &str = "attempt to calculate the remainder with a divisor of zero";

/// The failure of the operator `symbol` (`/` or `%`) whose divisor is 0
/// under `pragma strict_values`: the words every `*_div_strict` and
/// `*_mod_strict` node fails with, on every engine.
pub fn zero_divisor_failure(symbol: &str) -> String {
    format!("the divisor of '{symbol}' is 0 (pragma strict_values refuses a division by zero)")
}

/// The warning for a constant divisor of 0 (`div`, `mod`): the node builds,
/// as upstream's does, but every evaluation fails.
fn zero_divisor(c: &crate::node::BuildCtx<'_>) -> Option<String> {
    (c.u64(0) == 0).then(|| "the divisor K is 0, so every evaluation of this node fails".to_string())
}

/// Most outputs a `mixed_radix` node may have (the split kit's output buffer).
pub const MAX_RADIXES: usize = 16;

/// `add`: input + addend, wrapping on overflow.
pub const ADD: NodeDef = NodeDef {
    name: "add",
    category: "arithmetic",
    doc: "input + addend, wrapping on overflow.",
    params: &[wire("input", U64), konst("addend", U64)],
    build: |c| {
        let k = c.u64(0);
        Ok(map1(move |x: u64| x.wrapping_add(k)))
    },
    lower: Some(|l, c, x| {
        let k = l.iconst(c.u64(0));
        Some(vec![l.iadd(x[0], k)])
    }),
    ..NodeDef::BASE
};

/// `mul`: input * factor, wrapping on overflow.
pub const MUL: NodeDef = NodeDef {
    name: "mul",
    category: "arithmetic",
    doc: "input * factor, wrapping on overflow.",
    params: &[wire("input", U64), konst("factor", U64)],
    build: |c| {
        let k = c.u64(0);
        Ok(map1(move |x: u64| x.wrapping_mul(k)))
    },
    lower: Some(|l, c, x| {
        let k = l.iconst(c.u64(0));
        Some(vec![l.imul(x[0], k)])
    }),
    ..NodeDef::BASE
};

/// `div`: input / divisor (truncating); a zero divisor fails every evaluation.
pub const DIV: NodeDef = NodeDef {
    name: "div",
    category: "arithmetic",
    doc: "input / divisor (truncating); a zero divisor fails every evaluation.",
    params: &[wire("input", U64), konst("divisor", U64)],
    build: |c| {
        let k = c.u64(0);
        Ok(if k == 0 {
            try_map1(|_: u64| Err::<u64, _>(DIV_ZERO.to_string()))
        } else if k.is_power_of_two() {
            let shift = k.trailing_zeros();
            map1(move |x: u64| x >> shift)
        } else {
            // Division by an invariant: multiply-and-shift instead of a hardware divide.
            let k = StrengthReducedU64::new(k);
            map1(move |x: u64| x / k)
        })
    },
    warns: zero_divisor,
    lower: Some(|l, c, x| match c.u64(0) {
        0 => None,
        k => Some(vec![udiv_const(l, x[0], k)]),
    }),
    not_constant_hint: Some("use `div_wire` to take the divisor from a wire"),
    testing: Testing {
        samples: &[("divisor", Samples::U64(&[10, 7, 1, 3, 1000, (1 << 32) + 1, 1 << 63, u64::MAX, 0]))],
        fallible: true,
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `mod`: input % modulus; a zero modulus fails every evaluation.
pub const MOD: NodeDef = NodeDef {
    name: "mod",
    category: "arithmetic",
    doc: "input % modulus; a zero modulus fails every evaluation.",
    params: &[wire("input", U64), konst("modulus", U64)],
    build: |c| {
        let k = c.u64(0);
        Ok(if k == 0 {
            try_map1(|_: u64| Err::<u64, _>(REM_ZERO.to_string()))
        } else if k.is_power_of_two() {
            map1(move |x: u64| x & (k - 1))
        } else {
            // Division by an invariant: multiply-and-shift instead of a hardware divide.
            let k = StrengthReducedU64::new(k);
            map1(move |x: u64| x % k)
        })
    },
    warns: zero_divisor,
    lower: Some(|l, c, x| match c.u64(0) {
        0 => None,
        k => Some(vec![urem_const(l, x[0], k)]),
    }),
    not_constant_hint: Some("use `mod_wire` to take the divisor from a wire"),
    testing: Testing {
        samples: &[("modulus", Samples::U64(&[10, 7, 1, 3, 1000, (1 << 32) + 1, 1 << 63, u64::MAX, 0]))],
        fallible: true,
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// Declares a two-wire u64 `/` or `%` whose zero divisor fails the
/// evaluation with `$failure` (native code: the operation, after a call of
/// the rule when the divisor is 0).
macro_rules! failing_on_zero {
    ($id:ident, $name:literal, $doc:literal, ($a:literal, $b:literal), $checked:ident, $native:ident, $failure:expr) => {
        #[doc = concat!("`", $name, "`: ", $doc)]
        pub const $id: NodeDef = NodeDef {
            name: $name,
            category: "arithmetic",
            doc: $doc,
            params: &[wire($a, U64), wire($b, U64)],
            build: |_| Ok(try_map2(|x: u64, d: u64| x.$checked(d).ok_or_else(|| $failure))),
            lower: Some(|l, _, v| {
                fail_on_zero(l, v[1]);
                Some(vec![l.$native(v[0], v[1])])
            }),
            wire_warns: zero_divisor_wire,
            testing: Testing { fallible: true, ..Testing::BASE },
            ..NodeDef::BASE
        };
    };
}

/// The warning of a two-wire division whose divisor (wire 1) is the literal 0.
fn zero_divisor_wire(literals: &[Option<&Value>]) -> Option<String> {
    let zero = literals.get(1).copied().flatten()?.as_u64()? == 0;
    zero.then(|| "the divisor is the constant 0, so every evaluation of this node fails".to_string())
}

failing_on_zero!(
    DIV_WIRE,
    "div_wire",
    "input / divisor with the divisor a wire; a zero divisor fails the evaluation.",
    ("input", "divisor"),
    checked_div,
    udiv_or_zero,
    DIV_ZERO.to_string()
);
failing_on_zero!(
    MOD_WIRE,
    "mod_wire",
    "input % divisor with the divisor a wire; a zero divisor fails the evaluation.",
    ("input", "divisor"),
    checked_rem,
    urem_or_zero,
    REM_ZERO.to_string()
);
failing_on_zero!(
    U64_DIV_STRICT,
    "u64_div_strict",
    "a / b; a zero b fails the evaluation (`/` over u64 under pragma strict_values).",
    ("a", "b"),
    checked_div,
    udiv_or_zero,
    zero_divisor_failure("/")
);
failing_on_zero!(
    U64_MOD_STRICT,
    "u64_mod_strict",
    "a % b; a zero b fails the evaluation (`%` over u64 under pragma strict_values).",
    ("a", "b"),
    checked_rem,
    urem_or_zero,
    zero_divisor_failure("%")
);

/// Native code that calls the node's rule (which fails) when the integer
/// `divisor` is 0.
pub fn fail_on_zero(l: &mut dyn Lower, divisor: NVal) {
    let zero = l.iconst(0);
    let fails = l.icmp(ICmp::Eq, divisor, zero);
    l.call_rule_if(fails);
}

/// Declares a total two-wire u64 operation (with its native lowering, or
/// without one: the native tier then calls the rule).
macro_rules! binop {
    ($id:ident, $name:literal, $doc:literal, |$a:ident, $b:ident| $body:expr) => {
        /// A total two-wire `u64` arithmetic node (see its `name` and `doc` fields).
        pub const $id: NodeDef = NodeDef {
            name: $name,
            category: "arithmetic",
            doc: $doc,
            params: &[wire("a", U64), wire("b", U64)],
            build: |_| Ok(map2(|$a: u64, $b: u64| -> u64 { $body })),
            ..NodeDef::BASE
        };
    };
    ($id:ident, $name:literal, $doc:literal, |$a:ident, $b:ident| $body:expr, lower: |$l:ident, $x:ident, $y:ident| $lower:expr) => {
        /// A total two-wire `u64` arithmetic node (see its `name` and `doc` fields).
        pub const $id: NodeDef = NodeDef {
            name: $name,
            category: "arithmetic",
            doc: $doc,
            params: &[wire("a", U64), wire("b", U64)],
            build: |_| Ok(map2(|$a: u64, $b: u64| -> u64 { $body })),
            lower: Some(|$l, _, v| {
                let ($x, $y) = (v[0], v[1]);
                Some(vec![$lower])
            }),
            ..NodeDef::BASE
        };
    };
}

binop!(U64_ADD, "u64_add", "a + b, wrapping.", |a, b| a.wrapping_add(b), lower: |l, a, b| l.iadd(a, b));
binop!(U64_SUB, "u64_sub", "a - b, wrapping.", |a, b| a.wrapping_sub(b), lower: |l, a, b| l.isub(a, b));
binop!(U64_MUL, "u64_mul", "a * b, wrapping.", |a, b| a.wrapping_mul(b), lower: |l, a, b| l.imul(a, b));
binop!(U64_DIV, "u64_div", "a / b, or 0 when b is 0.", |a, b| a.checked_div(b).unwrap_or(0), lower: |l, a, b| {
    l.udiv_or_zero(a, b)
});
binop!(U64_MOD, "u64_mod", "a % b, or 0 when b is 0.", |a, b| a.checked_rem(b).unwrap_or(0), lower: |l, a, b| {
    l.urem_or_zero(a, b)
});
binop!(CHECKED_ADD, "checked_add", "a + b, or 0 on overflow.", |a, b| a.checked_add(b).unwrap_or(0), lower: |l, a, b| {
    let sum = l.iadd(a, b);
    let wrapped = l.icmp(ICmp::Lt, sum, a);
    let zero = l.iconst(0);
    l.select(wrapped, zero, sum)
});
binop!(CHECKED_MUL, "checked_mul", "a * b, or 0 on overflow.", |a, b| a.checked_mul(b).unwrap_or(0), lower: |l, a, b| {
    let high = l.umulhi(a, b);
    let product = l.imul(a, b);
    let zero = l.iconst(0);
    let overflows = l.icmp(ICmp::Ne, high, zero);
    l.select(overflows, zero, product)
});
binop!(CHECKED_SUB, "checked_sub", "a - b, saturating at 0.", |a, b| a.saturating_sub(b), lower: |l, a, b| {
    let difference = l.isub(a, b);
    let under = l.icmp(ICmp::Lt, a, b);
    let zero = l.iconst(0);
    l.select(under, zero, difference)
});
binop!(
    CEIL_TO_MULTIPLE,
    "ceil_to_multiple",
    "The smallest multiple of b that is >= a (saturating); a when b is 0.",
    |a, b| {
        if b == 0 {
            a
        } else {
            a.div_ceil(b).saturating_mul(b)
        }
    }
);
binop!(MULTIPLES_AT_LEAST, "multiples_at_least", "How many b's cover a: ceil(a / b); 0 when b is 0.", |a, b| {
    if b == 0 {
        0
    } else {
        a.div_ceil(b)
    }
});
binop!(SET_OR_GET, "set_or_get", "a when it is nonzero, else b.", |a, b| if a == 0 { b } else { a });
binop!(INTERLEAVE, "interleave", "Morton code of the low 32 bits: a bit i to bit 2i, b bit i to bit 2i+1.", |a, b| {
    morton(a, b)
}, lower: |l, a, b| {
    let even = lower_spread_bits(l, a);
    let odd = lower_spread_bits(l, b);
    let odd = l.ishl_imm(odd, 1);
    l.bor(even, odd)
});

/// The masks and shifts of [`spread_bits`], in order.
const SPREAD: [(u32, u64); 5] = [
    (16, 0x0000_ffff_0000_ffff),
    (8, 0x00ff_00ff_00ff_00ff),
    (4, 0x0f0f_0f0f_0f0f_0f0f),
    (2, 0x3333_3333_3333_3333),
    (1, 0x5555_5555_5555_5555),
];

/// [`spread_bits`] in native code.
fn lower_spread_bits(l: &mut dyn Lower, v: NVal) -> NVal {
    let low = l.iconst(0xffff_ffff);
    let mut v = l.band(v, low);
    for (shift, mask) in SPREAD {
        let shifted = l.ishl_imm(v, shift);
        let both = l.bor(v, shifted);
        let mask = l.iconst(mask);
        v = l.band(both, mask);
    }
    v
}

/// Spreads the low 32 bits of `v` onto the even bit positions.
#[inline]
fn spread_bits(v: u64) -> u64 {
    SPREAD.iter().fold(v & 0xffff_ffff, |v, &(shift, mask)| (v | (v << shift)) & mask)
}

/// Interleaves the low halves of `a` (even bits) and `b` (odd bits).
#[inline]
pub fn morton(a: u64, b: u64) -> u64 {
    spread_bits(a) | (spread_bits(b) << 1)
}

/// `clamp`: x limited to [min, max] (saturates at the bounds).
pub const CLAMP: NodeDef = NodeDef {
    name: "clamp",
    category: "arithmetic",
    doc: "x limited to [min, max] (saturates at the bounds); min > max fails every evaluation.",
    params: &[wire("input", U64), konst("min", U64), konst("max", U64)],
    build: |c| {
        let (lo, hi) = (c.u64(0), c.u64(1));
        if lo > hi {
            // Upstream builds and `u64::clamp` panics in the body on every
            // evaluation; fail the same way, in Rust's words.
            let msg = format!("min > max. min = {lo}, max = {hi}");
            return Ok(try_map1(move |_: u64| Err::<u64, _>(msg.clone())));
        }
        Ok(map1(move |x: u64| x.clamp(lo, hi)))
    },
    warns: |c| (c.u64(0) > c.u64(1)).then(|| "min is greater than max, so every evaluation of this node fails".into()),
    lower: Some(|l, c, x| {
        let (lo, hi) = (c.u64(0), c.u64(1));
        if lo > hi {
            return None;
        }
        let (lo, hi) = (l.iconst(lo), l.iconst(hi));
        let above = l.icmp(ICmp::Gt, x[0], hi);
        let capped = l.select(above, hi, x[0]);
        let below = l.icmp(ICmp::Lt, capped, lo);
        Some(vec![l.select(below, lo, capped)])
    }),
    testing: Testing {
        samples: &[("min", Samples::U64(&[10, 0, 100])), ("max", Samples::U64(&[1000, 1 << 32, u64::MAX]))],
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// Declares a variadic u64 fold.
macro_rules! fold {
    ($id:ident, $name:literal, $doc:literal, $init:expr, |$a:ident, $b:ident| $body:expr, lower: |$l:ident, $x:ident, $y:ident| $lower:expr) => {
        /// A variadic `u64` fold node (see its `name` and `doc` fields).
        pub const $id: NodeDef = NodeDef {
            name: $name,
            category: "arithmetic",
            doc: $doc,
            params: &[many(wire("values", U64))],
            build: |_| Ok(fold_u64($init, |$a: u64, $b: u64| -> u64 { $body })),
            lower: Some(|$l, _, v| {
                let mut acc = $l.iconst($init);
                for &$y in v {
                    let $x = acc;
                    acc = $lower;
                }
                Some(vec![acc])
            }),
            testing: Testing { variadic: Some(Variadic { min: 0, max: 4, last_only: None }), ..Testing::BASE },
            ..NodeDef::BASE
        };
    };
}

fold!(SUM, "sum", "Wrapping sum of all inputs (0 for none).", 0, |a, b| a.wrapping_add(b), lower: |l, a, b| l.iadd(a, b));
fold!(PRODUCT, "product", "Wrapping product of all inputs (1 for none).", 1, |a, b| a.wrapping_mul(b), lower: |l, a, b| {
    l.imul(a, b)
});
fold!(MIN, "min", "Smallest input (u64::MAX for none).", u64::MAX, |a, b| a.min(b), lower: |l, a, b| {
    let smaller = l.icmp(ICmp::Lt, b, a);
    l.select(smaller, b, a)
});
fold!(MAX, "max", "Largest input (0 for none).", 0, |a, b| a.max(b), lower: |l, a, b| {
    let larger = l.icmp(ICmp::Gt, b, a);
    l.select(larger, b, a)
});

/// `mixed_radix`: Digits of x in the given radixes, d0 fastest; a final radix 0 takes what is left.
pub const MIXED_RADIX: NodeDef = NodeDef {
    name: "mixed_radix",
    category: "arithmetic",
    doc: "Digits of x in the given radixes, d0 fastest; a final radix 0 takes what is left.",
    params: &[wire("input", U64), many(konst("radixes", U64))],
    outputs: Outputs::PerVariadicConst(U64),
    build: |c| {
        let radixes: Vec<u64> = (0..c.consts.len()).map(|i| c.u64(i)).collect();
        if radixes.is_empty() {
            return Err("mixed_radix: needs at least one radix".into());
        }
        if radixes.len() > MAX_RADIXES {
            return Err(format!("mixed_radix: at most {MAX_RADIXES} radixes, got {}", radixes.len()));
        }
        if let Some(i) = radixes[..radixes.len() - 1].iter().position(|&r| r == 0) {
            return Err(format!("radix {i} must be non-zero"));
        }
        Ok(split_u64(move |x: u64, digits: &mut [u64]| {
            let mut rem = x;
            for (d, &r) in digits.iter_mut().zip(&radixes) {
                if r == 0 {
                    *d = rem;
                    rem = 0;
                } else {
                    *d = rem % r;
                    rem /= r;
                }
            }
        }))
    },
    lower: Some(|l, c, x| {
        let mut rem = x[0];
        let mut digits = Vec::with_capacity(c.consts.len());
        for i in 0..c.consts.len() {
            match c.u64(i) {
                0 => {
                    digits.push(rem);
                    rem = l.iconst(0);
                }
                r => {
                    digits.push(urem_const(l, rem, r));
                    rem = udiv_const(l, rem, r);
                }
            }
        }
        Some(digits)
    }),
    testing: Testing {
        samples: &[("radixes", Samples::U64(&[10, 7, 2, 3, 16, 100, 1000, 1 << 32]))],
        variadic: Some(Variadic { min: 1, max: 4, last_only: Some(Samples::U64(&[0])) }),
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// The arithmetic family.
pub const NODES: &[NodeDef] = &[
    ADD,
    MUL,
    DIV,
    MOD,
    DIV_WIRE,
    MOD_WIRE,
    U64_ADD,
    U64_SUB,
    U64_MUL,
    U64_DIV,
    U64_MOD,
    U64_DIV_STRICT,
    U64_MOD_STRICT,
    CHECKED_ADD,
    CHECKED_SUB,
    CHECKED_MUL,
    CLAMP,
    SUM,
    PRODUCT,
    MIN,
    MAX,
    INTERLEAVE,
    MIXED_RADIX,
    CEIL_TO_MULTIPLE,
    MULTIPLES_AT_LEAST,
    SET_OR_GET,
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::{build_err, eval, eval1, eval_err};
    use crate::value::Value;

    const M: u64 = u64::MAX;

    fn u(v: u64) -> Value {
        Value::U64(v)
    }

    fn k1(def: &NodeDef, k: u64, x: u64) -> u64 {
        eval1(def, &[u(k)], &[u(x)]).as_u64().unwrap()
    }

    fn w2(def: &NodeDef, a: u64, b: u64) -> u64 {
        eval1(def, &[], &[u(a), u(b)]).as_u64().unwrap()
    }

    #[test]
    fn the_strict_forms_fail_on_a_zero_divisor_only() {
        assert_eq!(w2(&U64_DIV_STRICT, 7, 2), 3);
        assert_eq!(w2(&U64_MOD_STRICT, 7, 2), 1);
        assert_eq!(eval_err(&U64_DIV_STRICT, &[], &[u(7), u(0)]), zero_divisor_failure("/"));
        assert_eq!(eval_err(&U64_MOD_STRICT, &[], &[u(7), u(0)]), zero_divisor_failure("%"));
        assert_eq!(w2(&U64_DIV, 7, 0), 0, "the total form gives 0");
    }

    #[test]
    fn const_operand_ops() {
        assert_eq!(k1(&ADD, 1, M), 0);
        assert_eq!(k1(&ADD, 0, 7), 7);
        assert_eq!(k1(&MUL, 2, M), M - 1);
        assert_eq!(k1(&MUL, 0, M), 0);
        assert_eq!(k1(&DIV, 100, 4_201_337), 42_013);
        assert_eq!(k1(&DIV, 1, M), M);
        assert_eq!(k1(&MOD, 100, 542), 42);
        assert_eq!(k1(&MOD, M, M), 0);
    }

    #[test]
    fn division_by_any_constant_matches_the_hardware_divide() {
        // Powers of two take a mask or a shift, other divisors a reduced
        // multiply: every form must agree with `/` and `%`.
        let divisors = (0..64).map(|b| 1u64 << b).chain([3, 7, 10, 1000, 10_000_000, M - 1, M]);
        for k in divisors {
            for x in [0, 1, 5, 63, 64, 65, 4_201_337, 1 << 40, M - 1, M] {
                assert_eq!(k1(&DIV, k, x), x / k, "{x} / {k}");
                assert_eq!(k1(&MOD, k, x), x % k, "{x} % {k}");
            }
        }
    }

    #[test]
    fn zero_constant_divisor_builds_but_fails_each_evaluation() {
        assert_eq!(eval_err(&DIV, &[u(0)], &[u(5)]), DIV_ZERO);
        assert_eq!(eval_err(&MOD, &[u(0)], &[u(0)]), REM_ZERO);
        assert_eq!(REM_ZERO, "attempt to calculate the remainder with a divisor of zero");
    }

    #[test]
    fn a_zero_constant_divisor_is_warned_about() {
        use crate::node::BuildCtx;
        let warn = |def: &NodeDef, k: u64| (def.warns)(&BuildCtx { consts: &[u(k)], wire_types: &[U64] });
        assert!(warn(&MOD, 0).unwrap().contains("divisor K is 0"));
        assert!(warn(&DIV, 0).is_some());
        assert_eq!(warn(&MOD, 3), None);
        assert_eq!((ADD.warns)(&BuildCtx { consts: &[u(0)], wire_types: &[U64] }), None);
        assert!((CLAMP.warns)(&BuildCtx { consts: &[u(2), u(1)], wire_types: &[U64] }).is_some());
        assert_eq!((CLAMP.warns)(&BuildCtx { consts: &[u(1), u(1)], wire_types: &[U64] }), None);
    }

    #[test]
    fn wire_divisors() {
        assert_eq!(w2(&DIV_WIRE, 10, 3), 3);
        assert_eq!(w2(&MOD_WIRE, 10, 3), 1);
        assert_eq!(eval_err(&DIV_WIRE, &[], &[u(10), u(0)]), DIV_ZERO);
        assert_eq!(eval_err(&MOD_WIRE, &[], &[u(10), u(0)]), REM_ZERO);
        assert_eq!(w2(&U64_DIV, 10, 0), 0);
        assert_eq!(w2(&U64_MOD, 10, 0), 0);
        assert_eq!(w2(&U64_DIV, M, 2), M / 2);
        assert_eq!(w2(&U64_MOD, M, 10), 5);
    }

    #[test]
    fn wrapping_and_checked_ops() {
        assert_eq!(w2(&U64_ADD, M, 2), 1);
        assert_eq!(w2(&U64_SUB, 0, 1), M);
        assert_eq!(w2(&U64_MUL, M, M), 1);
        assert_eq!(w2(&CHECKED_ADD, M, 1), 0);
        assert_eq!(w2(&CHECKED_ADD, M - 1, 1), M);
        assert_eq!(w2(&CHECKED_MUL, 1 << 32, 1 << 32), 0);
        assert_eq!(w2(&CHECKED_MUL, 3, 5), 15);
        assert_eq!(w2(&CHECKED_SUB, 0, 1), 0);
        assert_eq!(w2(&CHECKED_SUB, 5, 3), 2);
    }

    #[test]
    fn clamp_saturates_and_refuses_inverted_bounds() {
        let c = |x| eval1(&CLAMP, &[u(10), u(20)], &[u(x)]).as_u64().unwrap();
        assert_eq!((c(0), c(15), c(M)), (10, 15, 20));
        assert_eq!(eval1(&CLAMP, &[u(7), u(7)], &[u(M)]).as_u64(), Some(7));
    }

    #[test]
    fn clamp_inverted_bounds_fail_each_evaluation_in_rusts_words() {
        // Upstream arithmetic.rs: `input.clamp(*min, *max)` with no build check.
        assert_eq!(eval_err(&CLAMP, &[u(2), u(1)], &[u(5)]), "min > max. min = 2, max = 1");
        assert_eq!(eval_err(&CLAMP, &[u(M), u(0)], &[u(0)]), format!("min > max. min = {M}, max = 0"));
    }

    #[test]
    fn folds_have_identities() {
        let f = |d: &NodeDef, xs: &[u64]| {
            let ws: Vec<Value> = xs.iter().map(|&x| u(x)).collect();
            eval1(d, &[], &ws).as_u64().unwrap()
        };
        assert_eq!((f(&SUM, &[]), f(&PRODUCT, &[]), f(&MIN, &[]), f(&MAX, &[])), (0, 1, M, 0));
        assert_eq!(f(&SUM, &[10, 20, 30]), 60);
        assert_eq!(f(&SUM, &[M, 1]), 0);
        assert_eq!(f(&PRODUCT, &[2, 3, 7]), 42);
        assert_eq!(f(&PRODUCT, &[M, M]), 1);
        assert_eq!(f(&MIN, &[5, 0, 9]), 0);
        assert_eq!(f(&MAX, &[5, M, 9]), M);
    }

    #[test]
    fn interleave_is_morton_of_low_halves() {
        assert_eq!(w2(&INTERLEAVE, 0b101, 0b010), 0b01_10_01);
        assert_eq!(w2(&INTERLEAVE, M, 0), 0x5555_5555_5555_5555);
        assert_eq!(w2(&INTERLEAVE, 0, M), 0xaaaa_aaaa_aaaa_aaaa);
        assert_eq!(w2(&INTERLEAVE, 1 << 32, 1 << 40), 0, "high halves are ignored");
        for (a, b) in [(0x1234_5678u64, 0x9abc_def0u64), (1 << 31, 3)] {
            let mut want = 0u64;
            for i in 0..32 {
                want |= ((a >> i) & 1) << (2 * i) | ((b >> i) & 1) << (2 * i + 1);
            }
            assert_eq!(morton(a, b), want);
        }
    }

    #[test]
    fn mixed_radix_digits() {
        let out = eval(&MIXED_RADIX, &[u(100), u(1000), u(0)], &[u(4_201_337)]).unwrap();
        let digits: Vec<u64> = out.iter().map(|v| v.as_u64().unwrap()).collect();
        assert_eq!(digits, [37, 13, 42]);
        let out = eval(&MIXED_RADIX, &[u(10), u(10)], &[u(M)]).unwrap();
        assert!(out[0].same(&u(5)) && out[1].same(&u(1)), "a nonzero last radix drops the rest");
        let out = eval(&MIXED_RADIX, &[u(0)], &[u(M)]).unwrap();
        assert!(out[0].same(&u(M)));
    }

    #[test]
    fn mixed_radix_refusals() {
        assert_eq!(build_err(&MIXED_RADIX, &[u(10), u(0), u(5)], &[U64]), "radix 1 must be non-zero");
        assert_eq!(build_err(&MIXED_RADIX, &[u(0), u(10)], &[U64]), "radix 0 must be non-zero");
        assert!(build_err(&MIXED_RADIX, &[], &[U64]).contains("at least one"));
        let many: Vec<Value> = (0..17).map(|_| u(2)).collect();
        assert!(build_err(&MIXED_RADIX, &many, &[U64]).contains("at most 16"));
    }

    #[test]
    fn multiples_and_set_or_get_are_upstreams() {
        // Upstream arithmetic.rs tests.
        assert_eq!(w2(&CEIL_TO_MULTIPLE, 800, 100), 800);
        assert_eq!(w2(&CEIL_TO_MULTIPLE, 801, 100), 900);
        assert_eq!(w2(&CEIL_TO_MULTIPLE, 0, 100), 0);
        assert_eq!(w2(&CEIL_TO_MULTIPLE, 1, 100), 100);
        assert_eq!(w2(&CEIL_TO_MULTIPLE, 42, 0), 42, "multiple 0 passes the value through");
        assert_eq!(w2(&CEIL_TO_MULTIPLE, M, 10), M, "saturates");
        assert_eq!(w2(&MULTIPLES_AT_LEAST, 800, 100), 8);
        assert_eq!(w2(&MULTIPLES_AT_LEAST, 801, 100), 9);
        assert_eq!(w2(&MULTIPLES_AT_LEAST, 1, 100), 1);
        assert_eq!(w2(&MULTIPLES_AT_LEAST, 0, 100), 0);
        assert_eq!(w2(&MULTIPLES_AT_LEAST, 42, 0), 0);
        assert_eq!(w2(&MULTIPLES_AT_LEAST, M, 1), M);
        assert_eq!(w2(&SET_OR_GET, 7, 99), 7);
        assert_eq!(w2(&SET_OR_GET, M, 99), M);
        assert_eq!(w2(&SET_OR_GET, 0, 99), 99);
    }
}
