//! Bitwise family: and, or, xor, not, and shifts by an amount taken mod 64.

use crate::node::kit::{map1, map2};
use crate::node::{wire, NodeDef};
use crate::types::PortType::U64;

/// Declares a two-wire bitwise operation.
macro_rules! bitop {
    ($id:ident, $name:literal, $doc:literal, |$a:ident, $b:ident| $body:expr, lower: $op:ident) => {
        /// A two-wire `u64` bitwise node (see its `name` and `doc` fields).
        pub const $id: NodeDef = NodeDef {
            name: $name,
            category: "bitwise",
            doc: $doc,
            params: &[wire("a", U64), wire("b", U64)],
            build: |_| Ok(map2(|$a: u64, $b: u64| -> u64 { $body })),
            lower: Some(|l, _, v| Some(vec![l.$op(v[0], v[1])])),
            ..NodeDef::BASE
        };
    };
}

bitop!(U64_AND, "u64_and", "Bitwise a AND b.", |a, b| a & b, lower: band);
bitop!(U64_OR, "u64_or", "Bitwise a OR b.", |a, b| a | b, lower: bor);
bitop!(U64_XOR, "u64_xor", "Bitwise a XOR b.", |a, b| a ^ b, lower: bxor);
bitop!(U64_SHL, "u64_shl", "a shifted left by b mod 64 bits.", |a, b| a.wrapping_shl(b as u32), lower: ishl);
bitop!(U64_SHR, "u64_shr", "a shifted right (logically) by b mod 64 bits.", |a, b| a.wrapping_shr(b as u32), lower: ushr);

/// `u64_not`: Bitwise complement of x.
pub const U64_NOT: NodeDef = NodeDef {
    name: "u64_not",
    category: "bitwise",
    doc: "Bitwise complement of x.",
    params: &[wire("input", U64)],
    build: |_| Ok(map1(|x: u64| !x)),
    lower: Some(|l, _, v| Some(vec![l.bnot(v[0])])),
    ..NodeDef::BASE
};

/// The bitwise family.
pub const NODES: &[NodeDef] = &[U64_AND, U64_OR, U64_XOR, U64_NOT, U64_SHL, U64_SHR];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::eval1;
    use crate::value::Value;

    const M: u64 = u64::MAX;

    fn w2(def: &NodeDef, a: u64, b: u64) -> u64 {
        eval1(def, &[], &[Value::U64(a), Value::U64(b)]).as_u64().unwrap()
    }

    #[test]
    fn logic_ops() {
        assert_eq!(w2(&U64_AND, 0b1100, 0b1010), 0b1000);
        assert_eq!(w2(&U64_OR, 0b1100, 0b1010), 0b1110);
        assert_eq!(w2(&U64_XOR, 0b1100, 0b1010), 0b0110);
        assert_eq!(w2(&U64_AND, M, 0), 0);
        assert_eq!(w2(&U64_XOR, M, M), 0);
        assert_eq!(eval1(&U64_NOT, &[], &[Value::U64(0)]).as_u64(), Some(M));
        assert_eq!(eval1(&U64_NOT, &[], &[Value::U64(M)]).as_u64(), Some(0));
    }

    #[test]
    fn shift_amount_is_taken_mod_64() {
        assert_eq!(w2(&U64_SHL, 1, 63), 1 << 63);
        assert_eq!(w2(&U64_SHL, 1, 64), 1);
        assert_eq!(w2(&U64_SHL, 1, 65), 2);
        assert_eq!(w2(&U64_SHR, M, 0), M);
        assert_eq!(w2(&U64_SHR, M, 63), 1, "logical, not arithmetic");
        assert_eq!(w2(&U64_SHR, 8, 64 + 3), 1);
        assert_eq!(w2(&U64_SHL, 1, M), 1 << 63, "u64::MAX as u32 is 2^32-1, which is 63 mod 64");
    }
}
