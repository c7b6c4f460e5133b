//! Math family: f64 elementary functions and f64 arithmetic (IEEE, except that
//! division and remainder by zero give 0.0, or fail `f64_div_strict` and
//! `f64_mod_strict`, what `/` and `%` become under `pragma strict_values`).

use crate::node::kit::{map1, map2, try_map2};
use crate::node::lower::{FCmp, FOp};
use crate::node::{wire, NodeDef, Outputs, Testing};
use crate::nodes::arith::zero_divisor_failure;
use crate::types::PortType::F64;

/// Declares a one-wire f64 function.
macro_rules! unary {
    ($id:ident, $name:literal, $doc:literal, |$x:ident| $body:expr) => {
        unary!($id, $name, $doc, |$x| $body, lower: None);
    };
    ($id:ident, $name:literal, $doc:literal, |$x:ident| $body:expr, lower: $lower:expr) => {
        /// A one-wire `f64` function node (see its `name` and `doc` fields).
        pub const $id: NodeDef = NodeDef {
            name: $name,
            category: "math",
            doc: $doc,
            params: &[wire("input", F64)],
            outputs: Outputs::One(F64),
            build: |_| Ok(map1(|$x: f64| -> f64 { $body })),
            lower: $lower,
            ..NodeDef::BASE
        };
    };
}

/// Declares a two-wire f64 function.
macro_rules! binary {
    ($id:ident, $name:literal, $pa:literal, $pb:literal, $doc:literal, |$a:ident, $b:ident| $body:expr) => {
        binary!($id, $name, $pa, $pb, $doc, |$a, $b| $body, lower: None);
    };
    ($id:ident, $name:literal, $pa:literal, $pb:literal, $doc:literal, |$a:ident, $b:ident| $body:expr, lower: $lower:expr) => {
        /// A two-wire `f64` function node (see its `name` and `doc` fields).
        pub const $id: NodeDef = NodeDef {
            name: $name,
            category: "math",
            doc: $doc,
            params: &[wire($pa, F64), wire($pb, F64)],
            outputs: Outputs::One(F64),
            build: |_| Ok(map2(|$a: f64, $b: f64| -> f64 { $body })),
            lower: $lower,
            ..NodeDef::BASE
        };
    };
    ($id:ident, $name:literal, $pa:literal, $pb:literal, $doc:literal, fails: $symbol:literal, |$a:ident, $b:ident| $body:expr, lower: $lower:expr) => {
        /// A two-wire `f64` division failing on a zero divisor (see its `name` and `doc` fields).
        pub const $id: NodeDef = NodeDef {
            name: $name,
            category: "math",
            doc: $doc,
            params: &[wire($pa, F64), wire($pb, F64)],
            outputs: Outputs::One(F64),
            build: |_| {
                Ok(try_map2(|$a: f64, $b: f64| if $b == 0.0 { Err(zero_divisor_failure($symbol)) } else { Ok($body) }))
            },
            lower: $lower,
            testing: Testing { fallible: true, ..Testing::BASE },
            ..NodeDef::BASE
        };
    };
}

unary!(SIN, "sin", "Sine of x (radians).", |x| x.sin());
unary!(COS, "cos", "Cosine of x (radians).", |x| x.cos());
unary!(TAN, "tan", "Tangent of x (radians).", |x| x.tan());
unary!(SQRT, "sqrt", "Square root of x (NaN below zero; sqrt(-0.0) is -0.0).", |x| x.sqrt(),
    lower: Some(|l, _, x| Some(vec![l.fsqrt(x[0])])));
unary!(EXP, "exp", "e raised to x.", |x| x.exp());
unary!(LN, "ln", "Natural logarithm of x (-inf at 0, NaN below zero).", |x| x.ln());
unary!(ASIN, "asin", "Arcsine of x in radians (NaN outside [-1, 1]).", |x| x.asin());
unary!(ACOS, "acos", "Arccosine of x in radians (NaN outside [-1, 1]).", |x| x.acos());
unary!(ATAN, "atan", "Arctangent of x in radians.", |x| x.atan());
unary!(ABS_F64, "abs_f64", "Absolute value of x (clears the sign bit).", |x| x.abs(), lower: Some(|l, _, x| {
    let magnitude = l.iconst(!(1 << 63));
    let cleared = l.band(x[0], magnitude);
    Some(vec![l.canonical(cleared)])
}));

binary!(ATAN2, "atan2", "y", "x", "The angle of the point (x, y) in radians: y.atan2(x).", |y, x| y.atan2(x));
binary!(POW, "pow", "base", "exponent", "base raised to the power e (powf).", |base, e| base.powf(e));
binary!(F64_ADD, "f64_add", "a", "b", "a + b (IEEE).", |a, b| a + b, lower: Some(|l, _, v| {
    Some(vec![l.fop(FOp::Add, v[0], v[1])])
}));
binary!(F64_SUB, "f64_sub", "a", "b", "a - b (IEEE).", |a, b| a - b, lower: Some(|l, _, v| {
    Some(vec![l.fop(FOp::Sub, v[0], v[1])])
}));
binary!(F64_MUL, "f64_mul", "a", "b", "a * b (IEEE).", |a, b| a * b, lower: Some(|l, _, v| {
    Some(vec![l.fop(FOp::Mul, v[0], v[1])])
}));
binary!(F64_DIV, "f64_div", "a", "b", "a / b, or 0.0 when b is zero.", |a, b| if b == 0.0 { 0.0 } else { a / b }, lower: Some(
    |l, _, v| {
        let zero = l.fconst(0.0);
        let by_zero = l.fcmp(FCmp::Eq, v[1], zero);
        let quotient = l.fop(FOp::Div, v[0], v[1]);
        Some(vec![l.select(by_zero, zero, quotient)])
    }
));
binary!(F64_MOD, "f64_mod", "a", "b", "a % b (sign of a), or 0.0 when b is zero.", |a, b| if b == 0.0 {
    0.0
} else {
    a % b
});

binary!(F64_DIV_STRICT, "f64_div_strict", "a", "b", "a / b; a zero b fails the evaluation (`/` over f64 under pragma strict_values).",
    fails: "/", |a, b| a / b, lower: Some(|l, _, v| {
        let zero = l.fconst(0.0);
        let by_zero = l.fcmp(FCmp::Eq, v[1], zero);
        l.call_rule_if(by_zero);
        Some(vec![l.fop(FOp::Div, v[0], v[1])])
    }
));
binary!(F64_MOD_STRICT, "f64_mod_strict", "a", "b", "a % b (sign of a); a zero b fails the evaluation (`%` over f64 under pragma strict_values).",
    fails: "%", |a, b| a % b, lower: None);

/// The math family.
pub const NODES: &[NodeDef] = &[
    SIN,
    COS,
    TAN,
    ASIN,
    ACOS,
    ATAN,
    SQRT,
    EXP,
    LN,
    ABS_F64,
    ATAN2,
    POW,
    F64_ADD,
    F64_SUB,
    F64_MUL,
    F64_DIV,
    F64_MOD,
    F64_DIV_STRICT,
    F64_MOD_STRICT,
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::eval1;
    use crate::value::Value;

    fn f1(def: &NodeDef, x: f64) -> f64 {
        eval1(def, &[], &[Value::F64(x)]).as_f64().unwrap()
    }

    fn f2(def: &NodeDef, a: f64, b: f64) -> f64 {
        eval1(def, &[], &[Value::F64(a), Value::F64(b)]).as_f64().unwrap()
    }

    #[test]
    fn the_strict_forms_fail_on_a_zero_divisor_only() {
        use crate::nodes::testing::eval_err;
        assert_eq!(f2(&F64_DIV_STRICT, 1.0, 4.0), 0.25);
        assert_eq!(f2(&F64_MOD_STRICT, -7.0, 2.0), -1.0);
        for zero in [0.0, -0.0] {
            let e = eval_err(&F64_DIV_STRICT, &[], &[Value::F64(1.0), Value::F64(zero)]);
            assert_eq!(e, zero_divisor_failure("/"));
            assert_eq!(eval_err(&F64_MOD_STRICT, &[], &[Value::F64(1.0), Value::F64(zero)]), zero_divisor_failure("%"));
        }
        assert!(f2(&F64_DIV_STRICT, 1.0, f64::NAN).is_nan(), "only a zero divisor fails");
    }

    fn bits(x: f64) -> u64 {
        x.to_bits()
    }

    #[test]
    fn elementary_functions() {
        assert_eq!(bits(f1(&SIN, -0.0)), bits(-0.0));
        assert_eq!(f1(&COS, 0.0), 1.0);
        assert!(f1(&SIN, f64::INFINITY).is_nan());
        assert_eq!(f1(&TAN, 0.0), 0.0);
        assert_eq!(bits(f1(&SQRT, -0.0)), bits(-0.0));
        assert!(f1(&SQRT, -1.0).is_nan());
        assert_eq!(f1(&SQRT, f64::INFINITY), f64::INFINITY);
        assert_eq!(f1(&EXP, 0.0), 1.0);
        assert_eq!(f1(&EXP, f64::NEG_INFINITY), 0.0);
        assert_eq!(f1(&LN, 0.0), f64::NEG_INFINITY);
        assert_eq!(f1(&LN, 1.0), 0.0);
        assert!(f1(&LN, -1.0).is_nan());
        assert_eq!(bits(f1(&ABS_F64, -0.0)), bits(0.0));
        assert_eq!(f1(&ABS_F64, f64::NEG_INFINITY), f64::INFINITY);
    }

    #[test]
    fn pow_follows_powf() {
        assert_eq!(f2(&POW, 2.0, 10.0), 1024.0);
        assert_eq!(f2(&POW, f64::NAN, 0.0), 1.0);
        assert_eq!(f2(&POW, 0.0, -1.0), f64::INFINITY);
        assert!(f2(&POW, -8.0, 1.0 / 3.0).is_nan());
    }

    #[test]
    fn ieee_arithmetic() {
        assert_eq!(f2(&F64_ADD, 0.1, 0.2), 0.1 + 0.2);
        assert_eq!(bits(f2(&F64_ADD, -0.0, -0.0)), bits(-0.0));
        assert!(f2(&F64_ADD, f64::INFINITY, f64::NEG_INFINITY).is_nan());
        assert_eq!(bits(f2(&F64_SUB, 0.0, 0.0)), bits(0.0));
        assert_eq!(f2(&F64_MUL, f64::MAX, 2.0), f64::INFINITY);
        assert!(f2(&F64_MUL, 0.0, f64::INFINITY).is_nan());
    }

    #[test]
    fn division_by_zero_gives_zero() {
        assert_eq!(f2(&F64_DIV, 1.0, 4.0), 0.25);
        assert_eq!(bits(f2(&F64_DIV, 1.0, 0.0)), bits(0.0));
        assert_eq!(bits(f2(&F64_DIV, 1.0, -0.0)), bits(0.0));
        assert_eq!(bits(f2(&F64_DIV, f64::NAN, 0.0)), bits(0.0));
        assert!(f2(&F64_DIV, f64::NAN, 1.0).is_nan());
        assert_eq!(f2(&F64_DIV, 1.0, f64::INFINITY), 0.0);
        assert_eq!(f2(&F64_MOD, 7.5, 2.0), 1.5);
        assert_eq!(f2(&F64_MOD, -7.5, 2.0), -1.5, "remainder takes the sign of the dividend");
        assert_eq!(bits(f2(&F64_MOD, 7.5, 0.0)), bits(0.0));
        assert!(f2(&F64_MOD, f64::INFINITY, 2.0).is_nan());
        assert!(f2(&F64_MOD, 1.0, f64::NAN).is_nan());
    }

    #[test]
    fn inverse_trigonometry() {
        assert_eq!(f1(&ASIN, 1.0), std::f64::consts::FRAC_PI_2);
        assert_eq!(f1(&ACOS, 1.0), 0.0);
        assert_eq!(bits(f1(&ATAN, -0.0)), bits(-0.0));
        assert_eq!(f1(&ATAN, f64::INFINITY), std::f64::consts::FRAC_PI_2);
        assert!(f1(&ASIN, 1.5).is_nan() && f1(&ACOS, -1.5).is_nan());
        assert_eq!(bits(f1(&ASIN, 2.0)), crate::node::kit::CANONICAL_NAN_F64);
        assert_eq!(f2(&ATAN2, 1.0, 0.0), std::f64::consts::FRAC_PI_2, "atan2(y, x)");
        assert_eq!(f2(&ATAN2, 0.0, -1.0), std::f64::consts::PI);
        assert_eq!(f2(&ATAN2, -0.0, -1.0), -std::f64::consts::PI);
    }
}
