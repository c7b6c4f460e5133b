//! The native form of a node: its rule written against [`Lower`], a small
//! builder of machine operations over 64-bit words that the native tier
//! (P3) implements over Cranelift. A node declares it beside its rule
//! ([`super::NodeDef::lower`]), so adding a node still touches one file; a
//! node without one runs in native code as a call into its slot form.
//!
//! Every value is a word in the slot encoding (f64 as its bits), as in the
//! compiled engines' buffer. A lowering must compute exactly what the rule
//! computes, bit for bit: wrapping integer arithmetic, no trapping
//! instruction (a division by a wire goes through a test), float results
//! under the NaN policy (the float operations here apply it), no fused or
//! reordered float arithmetic, no multiplication by a reciprocal unless the
//! rule has one. The corner and random-program suites hold every lowering
//! to the rule on every engine.

use super::BuildCtx;

/// A word in native code under construction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NVal(pub u32);

/// An integer comparison (unsigned).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ICmp {
    /// `a == b`.
    Eq,
    /// `a != b`.
    Ne,
    /// `a < b`.
    Lt,
    /// `a > b`.
    Gt,
    /// `a <= b`.
    Le,
    /// `a >= b`.
    Ge,
}

/// A float comparison, IEEE (any comparison with NaN is false but `Ne`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FCmp {
    /// `a == b`.
    Eq,
    /// `a != b` (true when either is NaN).
    Ne,
    /// `a < b`.
    Lt,
    /// `a > b`.
    Gt,
    /// `a <= b`.
    Le,
    /// `a >= b`.
    Ge,
}

/// A float operation; its result is canonicalised under the NaN policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FOp {
    /// `a + b`.
    Add,
    /// `a - b`.
    Sub,
    /// `a * b`.
    Mul,
    /// `a / b`.
    Div,
}

/// The operations a lowering may use (see the module).
pub trait Lower {
    /// The word `v`.
    fn iconst(&mut self, v: u64) -> NVal;
    /// The bits of `v` (an f64 constant).
    fn fconst(&mut self, v: f64) -> NVal {
        self.iconst(v.to_bits())
    }
    /// `a + b`, wrapping.
    fn iadd(&mut self, a: NVal, b: NVal) -> NVal;
    /// `a - b`, wrapping.
    fn isub(&mut self, a: NVal, b: NVal) -> NVal;
    /// `a * b`, wrapping.
    fn imul(&mut self, a: NVal, b: NVal) -> NVal;
    /// The high 64 bits of the 128-bit product `a * b`.
    fn umulhi(&mut self, a: NVal, b: NVal) -> NVal;
    /// `a & b`.
    fn band(&mut self, a: NVal, b: NVal) -> NVal;
    /// `a | b`.
    fn bor(&mut self, a: NVal, b: NVal) -> NVal;
    /// `a ^ b`.
    fn bxor(&mut self, a: NVal, b: NVal) -> NVal;
    /// `!a`.
    fn bnot(&mut self, a: NVal) -> NVal;
    /// `a >> n` (logical) for a constant `n < 64`.
    fn ushr_imm(&mut self, a: NVal, n: u32) -> NVal;
    /// `a << n` for a constant `n < 64`.
    fn ishl_imm(&mut self, a: NVal, n: u32) -> NVal;
    /// `a >> (b mod 64)` (logical).
    fn ushr(&mut self, a: NVal, b: NVal) -> NVal;
    /// `a << (b mod 64)`.
    fn ishl(&mut self, a: NVal, b: NVal) -> NVal;
    /// `a / b`, or 0 when `b` is 0 (never a trapping divide).
    fn udiv_or_zero(&mut self, a: NVal, b: NVal) -> NVal;
    /// `a % b`, or 0 when `b` is 0 (never a trapping divide).
    fn urem_or_zero(&mut self, a: NVal, b: NVal) -> NVal;
    /// 1 when the comparison holds, else 0.
    fn icmp(&mut self, cmp: ICmp, a: NVal, b: NVal) -> NVal;
    /// `a` when `cond` is not 0, else `b` (both are computed).
    fn select(&mut self, cond: NVal, a: NVal, b: NVal) -> NVal;
    /// The float operation on the floats whose bits `a` and `b` are, its
    /// result canonicalised (NaN policy).
    fn fop(&mut self, op: FOp, a: NVal, b: NVal) -> NVal;
    /// The square root of the float whose bits `a` are (IEEE, correctly
    /// rounded), its result canonicalised (NaN policy).
    fn fsqrt(&mut self, a: NVal) -> NVal;
    /// 1 when the float comparison holds, else 0.
    fn fcmp(&mut self, cmp: FCmp, a: NVal, b: NVal) -> NVal;
    /// The float nearest to the unsigned integer `a` (Rust's `a as f64`).
    fn u64_to_f64(&mut self, a: NVal) -> NVal;
    /// The float nearest to the signed integer `a` (Rust's `a as i64 as f64`).
    fn i64_to_f64(&mut self, a: NVal) -> NVal;
    /// Rust's `x as u64` for the float whose bits `a` are: truncation,
    /// saturating at 0 and u64::MAX, NaN giving 0.
    fn f64_to_u64(&mut self, a: NVal) -> NVal;
    /// `a` canonicalised under the NaN policy (for a value a lowering builds
    /// from float bits by other means).
    fn canonical(&mut self, a: NVal) -> NVal;
    /// Computes the node by calling its slot form (the rule itself, from
    /// native code), for the cases a lowering does not handle inline; the
    /// outputs are the rule's.
    fn call_rule(&mut self) -> Vec<NVal>;
    /// When `cond` is not 0, calls the rule (which then fails with its own
    /// message, exactly as on every engine); otherwise nothing. A lowering
    /// uses it for its failure paths (a zero divisor, a value out of range).
    fn call_rule_if(&mut self, cond: NVal);
}

/// A node's native form: builds its outputs from its wire inputs `ins` for
/// a node built with `ctx` (its constants), or `None` when it has no inline
/// form for these constants (then it runs as a call into its slot form).
pub type LowerFn = fn(&mut dyn Lower, &BuildCtx<'_>, &[NVal]) -> Option<Vec<NVal>>;

/// How `x / d` is computed for a constant `d` (not 0) without a divide
/// (Granlund and Montgomery's multiply by a magic number; see [`div_plan`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DivPlan {
    /// `d` is `2^k`: `x >> k`.
    Shift(u32),
    /// `mulhi(x >> pre, m) >> post`: a magic that fits 64 bits, after
    /// shifting out `pre` low zero bits of `d` when that is what makes it fit.
    Multiply {
        /// Low zero bits of `d` shifted out of the dividend first.
        pre: u32,
        /// The magic multiplier.
        m: u64,
        /// The shift of the high half of the product.
        post: u32,
    },
    /// The round-up variant with the add, exact for every u64 dividend when
    /// no 64-bit magic is: `t = mulhi(x, m)`, `((x - t) / 2 + t) >> (l - 1)`.
    AddBack {
        /// The magic multiplier (the low 64 bits of a 65-bit one).
        m: u64,
        /// `ceil(log2 d)`.
        l: u32,
    },
}

/// The cheapest exact [`DivPlan`] for the constant `d` (not 0).
///
/// A magic `m = ceil(2^(64+s) / d')` gives `floor(y * m / 2^(64+s)) =
/// floor(y / d')` for every `y < 2^(64-pre)` when its error
/// `m * d' - 2^(64+s)` is at most `2^(s+pre)`: the error term `e * y /
/// (d' * 2^(64+s))` then stays below `1 / d'`, less than any gap between
/// `y / d'` and the next integer. The search takes the smallest such `s`
/// with `m` in 64 bits, first for `d` itself, then for its odd part after
/// shifting out its low zero bits; failing both, the add-back form.
pub fn div_plan(d: u64) -> DivPlan {
    assert!(d != 0, "division plan for a zero divisor");
    if d.is_power_of_two() {
        return DivPlan::Shift(d.trailing_zeros());
    }
    let fitting = |odd: u64, pre: u32| {
        let bits = 64 - (odd - 1).leading_zeros();
        (0..=bits.min(63)).find_map(|post| {
            let two = 1u128 << (64 + post);
            let m = two.div_ceil(odd as u128);
            let error = m * odd as u128 - two;
            (m <= u64::MAX as u128 && error <= 1u128 << (post + pre)).then_some(DivPlan::Multiply {
                pre,
                m: m as u64,
                post,
            })
        })
    };
    let pre = d.trailing_zeros();
    fitting(d, 0).or_else(|| (pre > 0).then(|| fitting(d >> pre, pre)).flatten()).unwrap_or_else(|| {
        let l = 64 - (d - 1).leading_zeros();
        let m = (((1u128 << l) - d as u128) << 64) / d as u128 + 1;
        DivPlan::AddBack { m: m as u64, l }
    })
}

/// `x / d` for the constant `d` (not 0), by its [`div_plan`].
pub fn udiv_const(l: &mut dyn Lower, x: NVal, d: u64) -> NVal {
    match div_plan(d) {
        DivPlan::Shift(k) => l.ushr_imm(x, k),
        DivPlan::Multiply { pre, m, post } => {
            let y = if pre > 0 { l.ushr_imm(x, pre) } else { x };
            let m = l.iconst(m);
            let q = l.umulhi(y, m);
            if post > 0 {
                l.ushr_imm(q, post)
            } else {
                q
            }
        }
        DivPlan::AddBack { m, l: bits } => {
            let m = l.iconst(m);
            let t = l.umulhi(x, m);
            let diff = l.isub(x, t);
            let half = l.ushr_imm(diff, 1);
            let sum = l.iadd(half, t);
            l.ushr_imm(sum, bits - 1)
        }
    }
}

/// `x % d` for the constant `d` (not 0): `x - (x / d) * d`, computed as
/// `x + (x / d) * -d` (the same word, wrapping): an add of two values can
/// be a three-operand `lea`, where a subtract overwrites `x`, which then
/// needs a copy when `x` is read again (a hash that is both taken modulo
/// and fed on).
pub fn urem_const(l: &mut dyn Lower, x: NVal, d: u64) -> NVal {
    if d.is_power_of_two() {
        let mask = l.iconst(d - 1);
        return l.band(x, mask);
    }
    let q = udiv_const(l, x, d);
    let minus_d = l.iconst(d.wrapping_neg());
    let qd = l.imul(q, minus_d);
    l.iadd(x, qd)
}

/// Whether the native form `lower` of a step built with `ctx` (with `wires`
/// wire inputs and `outs` outputs) may call the step's rule, so may fail; a
/// missing native form always runs the rule. Found by running the lowering
/// against a builder that only records.
pub fn calls_rule(lower: Option<LowerFn>, ctx: &BuildCtx<'_>, wires: usize, outs: usize) -> bool {
    /// A [`Lower`] that builds nothing and notes rule calls.
    struct Probe {
        next: u32,
        outs: usize,
        called: bool,
    }
    impl Probe {
        fn val(&mut self) -> NVal {
            self.next += 1;
            NVal(self.next)
        }
    }
    impl Lower for Probe {
        fn iconst(&mut self, _: u64) -> NVal {
            self.val()
        }
        fn iadd(&mut self, _: NVal, _: NVal) -> NVal {
            self.val()
        }
        fn isub(&mut self, _: NVal, _: NVal) -> NVal {
            self.val()
        }
        fn imul(&mut self, _: NVal, _: NVal) -> NVal {
            self.val()
        }
        fn umulhi(&mut self, _: NVal, _: NVal) -> NVal {
            self.val()
        }
        fn band(&mut self, _: NVal, _: NVal) -> NVal {
            self.val()
        }
        fn bor(&mut self, _: NVal, _: NVal) -> NVal {
            self.val()
        }
        fn bxor(&mut self, _: NVal, _: NVal) -> NVal {
            self.val()
        }
        fn bnot(&mut self, _: NVal) -> NVal {
            self.val()
        }
        fn ushr_imm(&mut self, _: NVal, _: u32) -> NVal {
            self.val()
        }
        fn ishl_imm(&mut self, _: NVal, _: u32) -> NVal {
            self.val()
        }
        fn ushr(&mut self, _: NVal, _: NVal) -> NVal {
            self.val()
        }
        fn ishl(&mut self, _: NVal, _: NVal) -> NVal {
            self.val()
        }
        fn udiv_or_zero(&mut self, _: NVal, _: NVal) -> NVal {
            self.val()
        }
        fn urem_or_zero(&mut self, _: NVal, _: NVal) -> NVal {
            self.val()
        }
        fn icmp(&mut self, _: ICmp, _: NVal, _: NVal) -> NVal {
            self.val()
        }
        fn select(&mut self, _: NVal, _: NVal, _: NVal) -> NVal {
            self.val()
        }
        fn fop(&mut self, _: FOp, _: NVal, _: NVal) -> NVal {
            self.val()
        }
        fn fsqrt(&mut self, _: NVal) -> NVal {
            self.val()
        }
        fn fcmp(&mut self, _: FCmp, _: NVal, _: NVal) -> NVal {
            self.val()
        }
        fn u64_to_f64(&mut self, _: NVal) -> NVal {
            self.val()
        }
        fn i64_to_f64(&mut self, _: NVal) -> NVal {
            self.val()
        }
        fn f64_to_u64(&mut self, _: NVal) -> NVal {
            self.val()
        }
        fn canonical(&mut self, _: NVal) -> NVal {
            self.val()
        }
        fn call_rule(&mut self) -> Vec<NVal> {
            self.called = true;
            (0..self.outs).map(|_| self.val()).collect()
        }
        fn call_rule_if(&mut self, _: NVal) {
            self.called = true;
        }
    }
    let Some(lower) = lower else { return true };
    let mut probe = Probe { next: wires as u32, outs, called: false };
    let ins: Vec<NVal> = (0..wires as u32).map(NVal).collect();
    lower(&mut probe, ctx, &ins).is_none() || probe.called
}

#[cfg(test)]
mod tests {
    /// A SplitMix64 step: spreads test dividends over the whole u64 range.
    fn test_mix(x: u64) -> u64 {
        let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    use super::*;

    /// The quotient [`udiv_const`] computes, in Rust, for tests.
    fn udiv_by_plan(x: u64, d: u64) -> u64 {
        let mulhi = |a: u64, b: u64| ((a as u128 * b as u128) >> 64) as u64;
        match div_plan(d) {
            DivPlan::Shift(k) => x >> k,
            DivPlan::Multiply { pre, m, post } => mulhi(x >> pre, m) >> post,
            DivPlan::AddBack { m, l } => {
                let t = mulhi(x, m);
                (((x - t) >> 1) + t) >> (l - 1)
            }
        }
    }

    #[test]
    fn division_plans_are_the_cheapest_exact_ones() {
        assert_eq!(div_plan(64), DivPlan::Shift(6));
        // 10^7 (the ladder's modulus) needs neither the add nor a pre-shift.
        assert_eq!(div_plan(10_000_000), DivPlan::Multiply { pre: 0, m: 0xd6bf_94d5_e57a_42bd, post: 23 });
        assert_eq!(div_plan(3), DivPlan::Multiply { pre: 0, m: 0xaaaa_aaaa_aaaa_aaab, post: 1 });
        // 7 has no 64-bit magic; 14 has one once its low zero bit is shifted out.
        assert!(matches!(div_plan(7), DivPlan::AddBack { .. }));
        assert!(matches!(div_plan(14), DivPlan::Multiply { pre: 1, .. }));
    }

    #[test]
    fn magic_division_is_exact_at_every_corner() {
        let mut divisors: Vec<u64> = (1..2000).collect();
        divisors.extend((0..64).flat_map(|b| {
            let p = 1u64 << b;
            [p.wrapping_sub(1), p, p.wrapping_add(1)]
        }));
        divisors.extend([10_000_000, 1_000_003, 7 << 40, u64::MAX - 1, u64::MAX, (1 << 63) + 1]);
        let mut dividends: Vec<u64> = (0..300).collect();
        dividends.extend((0..64).flat_map(|b| {
            let p = 1u64 << b;
            [p.wrapping_sub(1), p, p.wrapping_add(1)]
        }));
        dividends.extend([u64::MAX, u64::MAX - 1, 0x9e37_79b9_7f4a_7c15, 0xdead_beef_cafe_f00d]);
        let mut state = 0x1234_5678u64;
        for _ in 0..20_000 {
            state = test_mix(state);
            dividends.push(state);
        }
        for &d in divisors.iter().filter(|&&d| d != 0) {
            // The dividends where a quotient steps: the last multiple of `d`
            // and its neighbours, and a few random multiples.
            let top = (u64::MAX / d) * d;
            let mut steps = vec![top, top - 1, top.wrapping_add(d - 1), d - 1, d, d.wrapping_add(1)];
            for k in 0..8u64 {
                let q = test_mix(d ^ k) % (u64::MAX / d).max(1);
                steps.extend([q * d, (q * d).wrapping_sub(1)]);
            }
            for &x in dividends.iter().chain(&steps) {
                assert_eq!(udiv_by_plan(x, d), x / d, "{x} / {d}");
                let r = x.wrapping_sub(udiv_by_plan(x, d).wrapping_mul(d));
                assert_eq!(r, x % d, "{x} % {d}");
            }
        }
    }
}
