//! Register family: 128-bit SIMD words as values — splats, lane reads and
//! writes, lane-wise arithmetic (integer lanes wrap, float lanes are IEEE),
//! a horizontal f32 dot product with a fixed reduction tree, a byte shuffle,
//! and conversions to and from f32 vectors.
//!
//! A register word travels on a wire as a 16-byte byte string (the lanes
//! little-endian, lane 0 first), so every view of a word is the same bytes:
//! `reg_add_i16` of two words made by `reg_splat_f32` reads their bits as
//! eight i16 lanes, as upstream's free view changes do. Lane reads give
//! `f64` (f32 lanes), `i32` (i16 lanes; upstream's port is i16) or `i64`.

use crate::node::kit::value_fn;
use crate::node::{konst, many, wire, Args, NodeDef, NodeError, Outputs, Testing};
use crate::nodes::vector::floats;
use crate::types::PortType::{Bytes, F64, I32, I64, U64};
use crate::value::Value;

/// The register words the register nodes' corner calls read (see
/// [`Testing::corner_call`]; no corner variable holds a word): `a` splat
/// as i64 lanes with one f32 lane set from `x`, and `b` splat as i16 lanes.
macro_rules! corner_word_a {
    () => {
        "reg_with_lane_f32(reg_splat_i64(a), mod(c, 4), x)"
    };
}

/// The second corner-call word (see `corner_word_a!`).
macro_rules! corner_word_b {
    () => {
        "reg_splat_i16(b)"
    };
}

/// Bytes in a register word.
pub const WORD_BYTES: usize = 16;

/// The register word wire `i` carries, for node `node`.
fn word(args: &Args<'_>, i: usize, node: &str) -> Result<[u8; WORD_BYTES], NodeError> {
    match args.get(i) {
        Value::Bytes(b) => <[u8; WORD_BYTES]>::try_from(&b[..])
            .map_err(|_| NodeError::new(format!("{node}: expected a 16-byte register word, got {} bytes", b.len()))),
        other => Err(NodeError::new(format!("{node}: expected a register word (bytes), got {other}"))),
    }
}

/// A register word as a wire value.
fn word_value(bytes: [u8; WORD_BYTES]) -> Value {
    Value::Bytes(bytes.to_vec().into())
}

/// The four f32 lanes of a word.
fn f32_lanes(w: &[u8; WORD_BYTES]) -> [f32; 4] {
    std::array::from_fn(|i| f32::from_le_bytes([w[4 * i], w[4 * i + 1], w[4 * i + 2], w[4 * i + 3]]))
}

/// A word of four f32 lanes.
fn from_f32_lanes(lanes: [f32; 4]) -> [u8; WORD_BYTES] {
    let mut w = [0u8; WORD_BYTES];
    for (i, lane) in lanes.iter().enumerate() {
        w[4 * i..4 * i + 4].copy_from_slice(&lane.to_le_bytes());
    }
    w
}

/// The u64 wire `i`.
fn u64_arg(args: &Args<'_>, i: usize) -> u64 {
    args.get(i).as_u64().unwrap_or(0)
}

/// The f64 wire `i`.
fn f64_arg(args: &Args<'_>, i: usize) -> f64 {
    args.get(i).as_f64().unwrap_or(0.0)
}

/// Declares a splat: every lane of type `$t` set from one wire value.
macro_rules! splat {
    ($id:ident, $name:literal, $doc:literal, $wire:expr, |$k:ident| $lane:expr) => {
        /// A register splat node (see its `name` and `doc` fields).
        pub const $id: NodeDef = NodeDef {
            name: $name,
            category: "register",
            doc: $doc,
            params: &[wire("k", $wire)],
            outputs: Outputs::One(Bytes),
            build: |_| {
                Ok(value_fn(|args, outs| {
                    let $k = args.get(0);
                    let lane = $lane.to_le_bytes();
                    let mut w = [0u8; WORD_BYTES];
                    for chunk in w.chunks_exact_mut(lane.len()) {
                        chunk.copy_from_slice(&lane);
                    }
                    outs[0] = word_value(w);
                    Ok(())
                }))
            },
            ..NodeDef::BASE
        };
    };
}

splat!(REG_SPLAT_F32, "reg_splat_f32", "A register word of four f32 lanes, each k (at f32 precision).", F64, |k| {
    k.as_f64().unwrap_or(0.0) as f32
});
splat!(REG_SPLAT_F64, "reg_splat_f64", "A register word of two f64 lanes, each k.", F64, |k| k.as_f64().unwrap_or(0.0));
splat!(REG_SPLAT_I8, "reg_splat_i8", "A register word of sixteen i8 lanes, each k as i8 (its low bits).", U64, |k| {
    k.as_u64().unwrap_or(0) as i8
});
splat!(REG_SPLAT_I16, "reg_splat_i16", "A register word of eight i16 lanes, each k as i16 (its low bits).", U64, |k| {
    k.as_u64().unwrap_or(0) as i16
});
splat!(REG_SPLAT_I32, "reg_splat_i32", "A register word of four i32 lanes, each k as i32 (its low bits).", U64, |k| {
    k.as_u64().unwrap_or(0) as i32
});
splat!(REG_SPLAT_I64, "reg_splat_i64", "A register word of two i64 lanes, each k as i64 (its bits).", U64, |k| {
    k.as_u64().unwrap_or(0) as i64
});

/// Declares a lane-wise operation over two words read as lanes of `$t`.
macro_rules! lanewise {
    ($id:ident, $name:literal, $doc:literal, $t:ty, |$x:ident, $y:ident| $body:expr) => {
        /// A lane-wise register node (see its `name` and `doc` fields).
        pub const $id: NodeDef = NodeDef {
            name: $name,
            category: "register",
            doc: $doc,
            params: &[wire("a", Bytes), wire("b", Bytes)],
            outputs: Outputs::One(Bytes),
            build: |_| {
                Ok(value_fn(|args, outs| {
                    const W: usize = std::mem::size_of::<$t>();
                    let (a, b) = (word(args, 0, $name)?, word(args, 1, $name)?);
                    let mut out = [0u8; WORD_BYTES];
                    for lane in 0..WORD_BYTES / W {
                        let at = lane * W..lane * W + W;
                        let $x = <$t>::from_le_bytes(a[at.clone()].try_into().expect("a lane"));
                        let $y = <$t>::from_le_bytes(b[at.clone()].try_into().expect("a lane"));
                        let r: $t = $body;
                        out[at].copy_from_slice(&r.to_le_bytes());
                    }
                    outs[0] = word_value(out);
                    Ok(())
                }))
            },
            testing: Testing {
                corner_call: Some(concat!($name, "(", corner_word_a!(), ", ", corner_word_b!(), ")")),
                random: false,
                ..Testing::BASE
            },
            ..NodeDef::BASE
        };
    };
}

lanewise!(REG_ADD_F32, "reg_add_f32", "a + b per f32 lane (IEEE).", f32, |x, y| x + y);
lanewise!(REG_SUB_F32, "reg_sub_f32", "a - b per f32 lane (IEEE).", f32, |x, y| x - y);
lanewise!(REG_MUL_F32, "reg_mul_f32", "a * b per f32 lane (IEEE).", f32, |x, y| x * y);
lanewise!(REG_ADD_F64, "reg_add_f64", "a + b per f64 lane (IEEE).", f64, |x, y| x + y);
lanewise!(REG_SUB_F64, "reg_sub_f64", "a - b per f64 lane (IEEE).", f64, |x, y| x - y);
lanewise!(REG_MUL_F64, "reg_mul_f64", "a * b per f64 lane (IEEE).", f64, |x, y| x * y);
lanewise!(REG_ADD_I8, "reg_add_i8", "a + b per i8 lane, wrapping.", i8, |x, y| x.wrapping_add(y));
lanewise!(REG_SUB_I8, "reg_sub_i8", "a - b per i8 lane, wrapping.", i8, |x, y| x.wrapping_sub(y));
lanewise!(REG_MUL_I8, "reg_mul_i8", "a * b per i8 lane, wrapping.", i8, |x, y| x.wrapping_mul(y));
lanewise!(REG_ADD_I16, "reg_add_i16", "a + b per i16 lane, wrapping.", i16, |x, y| x.wrapping_add(y));
lanewise!(REG_SUB_I16, "reg_sub_i16", "a - b per i16 lane, wrapping.", i16, |x, y| x.wrapping_sub(y));
lanewise!(REG_MUL_I16, "reg_mul_i16", "a * b per i16 lane, wrapping.", i16, |x, y| x.wrapping_mul(y));
lanewise!(REG_ADD_I32, "reg_add_i32", "a + b per i32 lane, wrapping.", i32, |x, y| x.wrapping_add(y));
lanewise!(REG_SUB_I32, "reg_sub_i32", "a - b per i32 lane, wrapping.", i32, |x, y| x.wrapping_sub(y));
lanewise!(REG_MUL_I32, "reg_mul_i32", "a * b per i32 lane, wrapping.", i32, |x, y| x.wrapping_mul(y));
lanewise!(REG_ADD_I64, "reg_add_i64", "a + b per i64 lane, wrapping.", i64, |x, y| x.wrapping_add(y));
lanewise!(REG_SUB_I64, "reg_sub_i64", "a - b per i64 lane, wrapping.", i64, |x, y| x.wrapping_sub(y));
lanewise!(REG_MUL_I64, "reg_mul_i64", "a * b per i64 lane, wrapping.", i64, |x, y| x.wrapping_mul(y));

/// Declares a lane read: lane `i` of a word read as `$t`, `$lanes` of them.
macro_rules! lane_read {
    ($id:ident, $name:literal, $doc:literal, $t:ty, $lanes:literal, $out:expr, $value:path, corner_index: $index:literal) => {
        /// A register lane read node (see its `name` and `doc` fields).
        pub const $id: NodeDef = NodeDef {
            name: $name,
            category: "register",
            doc: $doc,
            params: &[wire("r", Bytes), wire("i", U64)],
            outputs: Outputs::One($out),
            build: |_| {
                Ok(value_fn(|args, outs| {
                    const W: usize = std::mem::size_of::<$t>();
                    let (r, i) = (word(args, 0, $name)?, u64_arg(args, 1));
                    if i >= $lanes {
                        return Err(NodeError::new(format!("{}: lane {i} out of range 0..{}", $name, $lanes)));
                    }
                    let at = i as usize * W;
                    outs[0] = $value(<$t>::from_le_bytes(r[at..at + W].try_into().expect("a lane")));
                    Ok(())
                }))
            },
            testing: Testing {
                corner_call: Some(concat!($name, "(", corner_word_a!(), ", ", $index, ")")),
                random: false,
                ..Testing::BASE
            },
            ..NodeDef::BASE
        };
    };
}

/// An f32 lane widened to f64.
fn widen_f32(v: f32) -> Value {
    Value::F64(f64::from(v))
}

/// An i16 lane as i32.
fn widen_i16(v: i16) -> Value {
    Value::I32(i32::from(v))
}

lane_read!(
    REG_LANE_F32,
    "reg_lane_f32",
    "Lane i (0..4) of the word's f32 lanes, widened to f64; another i fails.",
    f32,
    4,
    F64,
    widen_f32,
    corner_index: "mod(c, 5)"
);
lane_read!(
    REG_LANE_I16,
    "reg_lane_i16",
    "Lane i (0..8) of the word's i16 lanes (as i32); another i fails.",
    i16,
    8,
    I32,
    widen_i16,
    corner_index: "mod(c, 9)"
);
lane_read!(
    REG_LANE_I64,
    "reg_lane_i64",
    "Lane i (0..2) of the word's i64 lanes; another i fails.",
    i64,
    2,
    I64,
    Value::I64,
    corner_index: "mod(c, 3)"
);

/// `reg_with_lane_f32`: the word with one f32 lane replaced.
pub const REG_WITH_LANE_F32: NodeDef = NodeDef {
    name: "reg_with_lane_f32",
    category: "register",
    doc: "The word with f32 lane i (0..4) replaced by v (at f32 precision); another i fails.",
    params: &[wire("r", Bytes), wire("i", U64), wire("v", F64)],
    outputs: Outputs::One(Bytes),
    build: |_| {
        Ok(value_fn(|args, outs| {
            let (r, i, v) = (word(args, 0, "reg_with_lane_f32")?, u64_arg(args, 1), f64_arg(args, 2));
            if i >= 4 {
                return Err(NodeError::new(format!("reg_with_lane_f32: lane {i} out of range 0..4")));
            }
            let mut lanes = f32_lanes(&r);
            lanes[i as usize] = v as f32;
            outs[0] = word_value(from_f32_lanes(lanes));
            Ok(())
        }))
    },
    testing: Testing {
        corner_call: Some(concat!("reg_with_lane_f32(", corner_word_b!(), ", mod(c, 5), x)")),
        random: false,
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `reg_dot_f32`: the f32 dot product of two words, by a fixed tree.
pub const REG_DOT_F32: NodeDef = NodeDef {
    name: "reg_dot_f32",
    category: "register",
    doc: "The dot product of the f32 lanes, summed in f32 as (l0*r0 + l1*r1) + (l2*r2 + l3*r3), widened to f64.",
    params: &[wire("a", Bytes), wire("b", Bytes)],
    outputs: Outputs::One(F64),
    build: |_| {
        Ok(value_fn(|args, outs| {
            let (a, b) = (f32_lanes(&word(args, 0, "reg_dot_f32")?), f32_lanes(&word(args, 1, "reg_dot_f32")?));
            let p: [f32; 4] = std::array::from_fn(|i| a[i] * b[i]);
            outs[0] = Value::F64(f64::from((p[0] + p[1]) + (p[2] + p[3])));
            Ok(())
        }))
    },
    testing: Testing {
        corner_call: Some(concat!("reg_dot_f32(", corner_word_a!(), ", ", corner_word_b!(), ")")),
        random: false,
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `reg_shuffle_bytes`: the word's bytes rearranged by a constant mask.
pub const REG_SHUFFLE_BYTES: NodeDef = NodeDef {
    name: "reg_shuffle_bytes",
    category: "register",
    doc: "The word with byte i taken from byte mask[i] of x (16 mask entries, each below 16; repeats broadcast).",
    params: &[wire("x", Bytes), many(konst("mask", U64))],
    outputs: Outputs::One(Bytes),
    build: |c| {
        let mask: Vec<u64> = c.tail(0).iter().map(|v| v.as_u64().unwrap_or(0)).collect();
        if mask.len() != WORD_BYTES {
            return Err(format!("reg_shuffle_bytes: mask must have exactly 16 entries, got {}", mask.len()));
        }
        if let Some((i, idx)) = mask.iter().enumerate().find(|(_, &m)| m >= 16) {
            return Err(format!("reg_shuffle_bytes: mask[{i}] = {idx} out of range 0..16"));
        }
        Ok(value_fn(move |args, outs| {
            let x = word(args, 0, "reg_shuffle_bytes")?;
            outs[0] = word_value(std::array::from_fn(|i| x[mask[i] as usize]));
            Ok(())
        }))
    },
    testing: Testing {
        corner_call: Some(concat!(
            "reg_shuffle_bytes(",
            corner_word_a!(),
            ", 15, 0, 14, 1, 13, 2, 12, 3, 11, 4, 10, 5, 9, 6, 8, 7)"
        )),
        random: false,
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `reg_gather_f32`: four consecutive elements of an f32 vector as a word.
pub const REG_GATHER_F32: NodeDef = NodeDef {
    name: "reg_gather_f32",
    category: "register",
    doc: "Elements [offset, offset + 4) of an f32 vector as a word of f32 lanes; a window past the end fails.",
    params: &[wire("v", Bytes), wire("offset", U64)],
    outputs: Outputs::One(Bytes),
    build: |_| {
        Ok(value_fn(|args, outs| {
            let (v, offset) = (floats(args, 0, "reg_gather_f32")?, u64_arg(args, 1));
            let start = usize::try_from(offset).unwrap_or(usize::MAX);
            let window = start.checked_add(4).filter(|&end| end <= v.len()).ok_or_else(|| {
                NodeError::new(format!(
                    "reg_gather_f32: window [{offset}, {}) exceeds slice length {}",
                    u128::from(offset) + 4,
                    v.len()
                ))
            })?;
            outs[0] = word_value(from_f32_lanes(std::array::from_fn(|i| v[window - 4 + i])));
            Ok(())
        }))
    },
    testing: Testing {
        corner_call: Some("reg_gather_f32(hash_vec(a, mod(b, 9)), mod(c, 8))"),
        random: false,
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `vec_to_reg_f32`: a four-element f32 vector as a word.
pub const VEC_TO_REG_F32: NodeDef = NodeDef {
    name: "vec_to_reg_f32",
    category: "register",
    doc: "A four-element f32 vector as a word of f32 lanes (the same 16 bytes); another length fails.",
    params: &[wire("v", Bytes)],
    outputs: Outputs::One(Bytes),
    build: |_| {
        Ok(value_fn(|args, outs| {
            let v = floats(args, 0, "vec_to_reg_f32")?;
            if v.len() != 4 {
                return Err(NodeError::new(format!("vec_to_reg_f32: expected exactly 4 elements, got {}", v.len())));
            }
            outs[0] = word_value(from_f32_lanes([v[0], v[1], v[2], v[3]]));
            Ok(())
        }))
    },
    testing: Testing { corner_call: Some("vec_to_reg_f32(hash_vec(a, mod(b, 6)))"), random: false, ..Testing::BASE },
    ..NodeDef::BASE
};

/// `reg_to_vec_f32`: a word's f32 lanes as a four-element vector.
pub const REG_TO_VEC_F32: NodeDef = NodeDef {
    name: "reg_to_vec_f32",
    category: "register",
    doc: "The word's four f32 lanes as an f32 vector (the same 16 bytes).",
    params: &[wire("r", Bytes)],
    outputs: Outputs::One(Bytes),
    build: |_| {
        Ok(value_fn(|args, outs| {
            outs[0] = word_value(word(args, 0, "reg_to_vec_f32")?);
            Ok(())
        }))
    },
    testing: Testing {
        corner_call: Some(concat!("reg_to_vec_f32(", corner_word_a!(), ")")),
        random: false,
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// The family's nodes, in catalog order.
pub const NODES: &[NodeDef] = &[
    REG_SPLAT_F32,
    REG_SPLAT_F64,
    REG_SPLAT_I8,
    REG_SPLAT_I16,
    REG_SPLAT_I32,
    REG_SPLAT_I64,
    REG_ADD_F32,
    REG_SUB_F32,
    REG_MUL_F32,
    REG_ADD_F64,
    REG_SUB_F64,
    REG_MUL_F64,
    REG_ADD_I8,
    REG_SUB_I8,
    REG_MUL_I8,
    REG_ADD_I16,
    REG_SUB_I16,
    REG_MUL_I16,
    REG_ADD_I32,
    REG_SUB_I32,
    REG_MUL_I32,
    REG_ADD_I64,
    REG_SUB_I64,
    REG_MUL_I64,
    REG_LANE_F32,
    REG_LANE_I16,
    REG_LANE_I64,
    REG_WITH_LANE_F32,
    REG_DOT_F32,
    REG_SHUFFLE_BYTES,
    REG_GATHER_F32,
    VEC_TO_REG_F32,
    REG_TO_VEC_F32,
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::{build_err, eval, eval1};
    use crate::types::PortType;

    fn f32x4(lanes: [f32; 4]) -> Value {
        word_value(from_f32_lanes(lanes))
    }

    fn bytes(v: &Value) -> Vec<u8> {
        match v {
            Value::Bytes(b) => b.to_vec(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn splats_lanes_and_views_as_upstreams_tests_state() {
        let r = eval1(&REG_SPLAT_F32, &[], &[Value::F64(2.5)]);
        assert_eq!(f32_lanes(&bytes(&r).try_into().unwrap()), [2.5; 4]);
        let r = eval1(&REG_SPLAT_I16, &[], &[Value::U64(0xFFFF)]);
        assert_eq!(bytes(&r), [0xFF; 16], "0xFFFF as i16 is -1 in every lane");
        let lane = eval1(&REG_LANE_F32, &[], &[f32x4([1.0, 2.0, 3.0, 4.0]), Value::U64(2)]);
        assert!(lane.same(&Value::F64(3.0)));
        let with = eval1(&REG_WITH_LANE_F32, &[], &[f32x4([1.0, 2.0, 3.0, 4.0]), Value::U64(1), Value::F64(9.0)]);
        assert!(with.same(&f32x4([1.0, 9.0, 3.0, 4.0])));
        let sum = eval1(&REG_ADD_F32, &[], &[f32x4([1.0, 2.0, 3.0, 4.0]), f32x4([10.0, 20.0, 30.0, 40.0])]);
        assert!(sum.same(&f32x4([11.0, 22.0, 33.0, 44.0])));
        let max = eval1(&REG_SPLAT_I16, &[], &[Value::U64(i16::MAX as u64)]);
        let one = eval1(&REG_SPLAT_I16, &[], &[Value::U64(1)]);
        let wrapped = eval1(&REG_ADD_I16, &[], &[max, one]);
        assert!(eval1(&REG_LANE_I16, &[], &[wrapped, Value::U64(7)]).same(&Value::I32(i16::MIN as i32)));
        let dot = eval1(&REG_DOT_F32, &[], &[f32x4([1.0, 2.0, 3.0, 4.0]), f32x4([5.0, 6.0, 7.0, 8.0])]);
        assert!(dot.same(&Value::F64(70.0)));
        let err = eval(&REG_LANE_I64, &[], &[f32x4([0.0; 4]), Value::U64(2)]).unwrap_err();
        assert_eq!(err.message(), "reg_lane_i64: lane 2 out of range 0..2");
    }

    #[test]
    fn shuffle_gather_and_conversions() {
        let word: Value = word_value(std::array::from_fn(|i| i as u8));
        let reverse: Vec<Value> = (0..16).rev().map(Value::U64).collect();
        let shuffled = eval1(&REG_SHUFFLE_BYTES, &reverse, &[word]);
        assert_eq!(bytes(&shuffled), (0..16).rev().collect::<Vec<u8>>());
        let short: Vec<Value> = (0..15).map(Value::U64).collect();
        assert_eq!(
            build_err(&REG_SHUFFLE_BYTES, &short, &[PortType::Bytes]),
            "reg_shuffle_bytes: mask must have exactly 16 entries, got 15"
        );
        let mut bad: Vec<Value> = (0..16).map(Value::U64).collect();
        bad[3] = Value::U64(16);
        assert_eq!(
            build_err(&REG_SHUFFLE_BYTES, &bad, &[PortType::Bytes]),
            "reg_shuffle_bytes: mask[3] = 16 out of range 0..16"
        );
        let six: Vec<u8> = [0.0f32, 1.0, 2.0, 3.0, 4.0, 5.0].iter().flat_map(|f| f.to_le_bytes()).collect();
        let gathered = eval1(&REG_GATHER_F32, &[], &[Value::Bytes(six.clone().into()), Value::U64(2)]);
        assert!(gathered.same(&f32x4([2.0, 3.0, 4.0, 5.0])));
        let back = eval1(&REG_TO_VEC_F32, &[], &[gathered]);
        assert_eq!(bytes(&back), six[8..]);
        let past = eval(&REG_GATHER_F32, &[], &[Value::Bytes(six.clone().into()), Value::U64(3)]).unwrap_err();
        assert_eq!(past.message(), "reg_gather_f32: window [3, 7) exceeds slice length 6");
        let wrong = eval(&VEC_TO_REG_F32, &[], &[Value::Bytes(six.into())]).unwrap_err();
        assert_eq!(wrong.message(), "vec_to_reg_f32: expected exactly 4 elements, got 6");
    }
}
