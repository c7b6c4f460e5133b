//! Vector family: f32 vectors — synthetic ones from hashes (`hash_vec`,
//! `xxhash3_vec`), element-wise sums and scaling, dot products, L2
//! distance, cosine similarity, unit normalisation, and the local intrinsic
//! dimensionality estimate `lid_mle`.
//!
//! A vector travels on a wire as a byte string of its elements, 4 bytes
//! each, little-endian. Sums run in element order in f32 (upstream's scalar
//! reference order; its SIMD builds may differ from it in the last ulps).
//! Two operands of different lengths fail the evaluation.

use crate::node::kit::value_fn;
use crate::node::{wire, Args, NodeDef, NodeError, Outputs, Testing};
use crate::nodes::hash::splitmix64;
use crate::types::PortType::{Bytes, F64, U64};
use crate::value::Value;

/// The f32 vectors the vector nodes' corner calls read (see
/// [`Testing::corner_call`]; no corner variable holds a vector): `a` and
/// `b` hashed into vectors of up to five elements (`c` picks the length).
macro_rules! corner_vector_a {
    () => {
        "hash_vec(a, mod(c, 6))"
    };
}

/// The second corner-call vector (see `corner_vector_a!`).
macro_rules! corner_vector_b {
    () => {
        "xxhash3_vec(b, mod(c, 6))"
    };
}

/// The f32 vector wire `i` carries, for node `node`.
pub fn floats(args: &Args<'_>, i: usize, node: &str) -> Result<Vec<f32>, NodeError> {
    match args.get(i) {
        Value::Bytes(b) if b.len() % 4 == 0 => {
            Ok(b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
        }
        Value::Bytes(b) => Err(NodeError::new(format!(
            "{node}: expected an f32 vector (a multiple of 4 bytes), got {} bytes",
            b.len()
        ))),
        other => Err(NodeError::new(format!("{node}: expected an f32 vector (bytes), got {other}"))),
    }
}

/// An f32 vector as a wire value, within the value size limit.
fn vector_value(v: &[f32]) -> Result<Value, NodeError> {
    crate::node::limit::check(v.len().saturating_mul(4))?;
    Ok(Value::Bytes(v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>().into()))
}

/// Both operands of a two-vector node, of equal length.
fn pair(args: &Args<'_>, node: &str) -> Result<(Vec<f32>, Vec<f32>), NodeError> {
    let (a, b) = (floats(args, 0, node)?, floats(args, 1, node)?);
    if a.len() != b.len() {
        return Err(NodeError::new(format!("{node}: operand lengths differ ({} vs {})", a.len(), b.len())));
    }
    Ok((a, b))
}

/// The dot product in f32, in element order.
fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// A hash as an element in [-1, 1), as upstream maps it.
fn unit_element(h: u64) -> f32 {
    (h as f64 / u64::MAX as f64 * 2.0 - 1.0) as f32
}

/// The elements a `dim` wire asks for, within the value size limit.
fn dimension(args: &Args<'_>) -> Result<usize, NodeError> {
    let dim = args.get(1).as_u64().unwrap_or(0);
    let dim = usize::try_from(dim).unwrap_or(usize::MAX);
    crate::node::limit::check(dim.saturating_mul(4))?;
    Ok(dim)
}

/// The synthetic vector of the `seed` and `dim` wires: element `i` is
/// `hash(seed, i)` mapped into [-1, 1).
fn synthetic(args: &Args<'_>, hash: impl Fn(u64, u64) -> u64) -> Result<Value, NodeError> {
    let (seed, dim) = (args.get(0).as_u64().unwrap_or(0), dimension(args)?);
    let v: Vec<f32> = (0..dim as u64).map(|i| unit_element(hash(seed, i))).collect();
    vector_value(&v)
}

/// `hash_vec`: a synthetic vector from SplitMix64.
pub const HASH_VEC: NodeDef = NodeDef {
    name: "hash_vec",
    category: "vector",
    doc: "A synthetic f32 vector of dim elements in [-1, 1): element i from hash(seed + i * 0x9e3779b97f4a7c15).",
    params: &[wire("seed", U64), wire("dim", U64)],
    outputs: Outputs::One(Bytes),
    build: |_| {
        Ok(value_fn(|args, outs| {
            outs[0] = synthetic(args, |seed, i| splitmix64(seed.wrapping_add(i.wrapping_mul(0x9e37_79b9_7f4a_7c15))))?;
            Ok(())
        }))
    },
    testing: Testing { corner_call: Some("hash_vec(a, mod(b, 40))"), random: false, ..Testing::BASE },
    ..NodeDef::BASE
};

/// `xxhash3_vec`: a synthetic vector from xxh3.
pub const XXHASH3_VEC: NodeDef = NodeDef {
    name: "xxhash3_vec",
    category: "vector",
    doc: "A synthetic f32 vector of dim elements in [-1, 1): element i from xxh3 of the 16 bytes seed, i (little-endian).",
    params: &[wire("seed", U64), wire("dim", U64)],
    outputs: Outputs::One(Bytes),
    build: |_| {
        Ok(value_fn(|args, outs| {
            outs[0] = synthetic(args, |seed, i| {
                let mut key = [0u8; 16];
                key[..8].copy_from_slice(&seed.to_le_bytes());
                key[8..].copy_from_slice(&i.to_le_bytes());
                xxhash_rust::xxh3::xxh3_64(&key)
            })?;
            Ok(())
        }))
    },
    testing: Testing { corner_call: Some("xxhash3_vec(a, mod(b, 40))"), random: false, ..Testing::BASE },
    ..NodeDef::BASE
};

/// `vec_add`: the element-wise sum.
pub const VEC_ADD: NodeDef = NodeDef {
    name: "vec_add",
    category: "vector",
    doc: "a + b element-wise (f32); lengths must match.",
    params: &[wire("a", Bytes), wire("b", Bytes)],
    outputs: Outputs::One(Bytes),
    build: |_| {
        Ok(value_fn(|args, outs| {
            let (a, b) = pair(args, "vec_add")?;
            outs[0] = vector_value(&a.iter().zip(&b).map(|(x, y)| x + y).collect::<Vec<f32>>())?;
            Ok(())
        }))
    },
    testing: Testing {
        corner_call: Some(concat!("vec_add(", corner_vector_a!(), ", ", corner_vector_b!(), ")")),
        random: false,
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `vec_scale`: every element times `k` (at f32 precision).
pub const VEC_SCALE: NodeDef = NodeDef {
    name: "vec_scale",
    category: "vector",
    doc: "Every element of a times k (k at f32 precision).",
    params: &[wire("a", Bytes), wire("k", F64)],
    outputs: Outputs::One(Bytes),
    build: |_| {
        Ok(value_fn(|args, outs| {
            let (a, k) = (floats(args, 0, "vec_scale")?, args.get(1).as_f64().unwrap_or(0.0) as f32);
            outs[0] = vector_value(&a.iter().map(|x| x * k).collect::<Vec<f32>>())?;
            Ok(())
        }))
    },
    testing: Testing {
        corner_call: Some(concat!("vec_scale(", corner_vector_a!(), ", x)")),
        random: false,
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `vec_dot`: the dot product, widened to f64.
pub const VEC_DOT: NodeDef = NodeDef {
    name: "vec_dot",
    category: "vector",
    doc: "The dot product of a and b, summed in f32, widened to f64; lengths must match.",
    params: &[wire("a", Bytes), wire("b", Bytes)],
    outputs: Outputs::One(F64),
    build: |_| {
        Ok(value_fn(|args, outs| {
            let (a, b) = pair(args, "vec_dot")?;
            outs[0] = Value::F64(f64::from(dot(&a, &b)));
            Ok(())
        }))
    },
    testing: Testing {
        corner_call: Some(concat!("vec_dot(", corner_vector_a!(), ", ", corner_vector_b!(), ")")),
        random: false,
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `vec_l2`: the Euclidean distance.
pub const VEC_L2: NodeDef = NodeDef {
    name: "vec_l2",
    category: "vector",
    doc: "The Euclidean distance between a and b: the square root of the f32 sum of squared differences; lengths must match.",
    params: &[wire("a", Bytes), wire("b", Bytes)],
    outputs: Outputs::One(F64),
    build: |_| {
        Ok(value_fn(|args, outs| {
            let (a, b) = pair(args, "vec_l2")?;
            let squares: f32 = a.iter().zip(&b).map(|(x, y)| (x - y) * (x - y)).sum();
            outs[0] = Value::F64(f64::from(squares).sqrt());
            Ok(())
        }))
    },
    testing: Testing {
        corner_call: Some(concat!("vec_l2(", corner_vector_a!(), ", xxhash3_vec(b, mod(b, 6)))")),
        random: false,
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `vec_cosine`: the cosine similarity (0 when either vector is zero).
pub const VEC_COSINE: NodeDef = NodeDef {
    name: "vec_cosine",
    category: "vector",
    doc: "dot(a, b) / (|a| |b|); 0.0 when either has zero magnitude; lengths must match.",
    params: &[wire("a", Bytes), wire("b", Bytes)],
    outputs: Outputs::One(F64),
    build: |_| {
        Ok(value_fn(|args, outs| {
            let (a, b) = pair(args, "vec_cosine")?;
            let d = f64::from(dot(&a, &b));
            let (na, nb) = (f64::from(dot(&a, &a)).sqrt(), f64::from(dot(&b, &b)).sqrt());
            outs[0] = Value::F64(if na == 0.0 || nb == 0.0 { 0.0 } else { d / (na * nb) });
            Ok(())
        }))
    },
    testing: Testing {
        corner_call: Some(concat!("vec_cosine(", corner_vector_a!(), ", ", corner_vector_b!(), ")")),
        random: false,
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `vec_norm`: the vector scaled to unit length (a zero vector unchanged).
pub const VEC_NORM: NodeDef = NodeDef {
    name: "vec_norm",
    category: "vector",
    doc: "a scaled to unit L2 magnitude (by 1/|a| at f32 precision); a zero vector unchanged.",
    params: &[wire("a", Bytes)],
    outputs: Outputs::One(Bytes),
    build: |_| {
        Ok(value_fn(|args, outs| {
            let a = floats(args, 0, "vec_norm")?;
            let magnitude = f64::from(dot(&a, &a)).sqrt();
            outs[0] = if magnitude == 0.0 {
                vector_value(&a)?
            } else {
                let k = (1.0 / magnitude) as f32;
                vector_value(&a.iter().map(|x| x * k).collect::<Vec<f32>>())?
            };
            Ok(())
        }))
    },
    testing: Testing {
        corner_call: Some(concat!("vec_norm(", corner_vector_a!(), ")")),
        random: false,
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// The Levina–Bickel estimate over the first `k` ascending distances.
pub fn lid_mle(distances: &[f32], k: f64) -> f64 {
    let k = (k as usize).min(distances.len());
    if k < 2 {
        return 0.0;
    }
    let r_k = f64::from(distances[k - 1]);
    if r_k <= 0.0 {
        return 0.0;
    }
    let ln_rk = r_k.ln();
    let (mut logsum, mut terms) = (0.0f64, 0u32);
    for &r in &distances[..k - 1] {
        let r = f64::from(r);
        if r > 0.0 {
            logsum += ln_rk - r.ln();
            terms += 1;
        }
    }
    if terms == 0 || logsum <= 0.0 {
        0.0
    } else {
        f64::from(terms) / logsum
    }
}

/// `lid_mle`: the local intrinsic dimensionality estimate.
pub const LID_MLE: NodeDef = NodeDef {
    name: "lid_mle",
    category: "vector",
    doc: "Levina–Bickel local intrinsic dimensionality of ascending neighbour distances: m / sum ln(r_k / r_j) over the positive r_j before r_k (k clamped to the length); 0.0 when degenerate.",
    params: &[wire("distances", Bytes), wire("k", F64)],
    outputs: Outputs::One(F64),
    build: |_| {
        Ok(value_fn(|args, outs| {
            let d = floats(args, 0, "lid_mle")?;
            outs[0] = Value::F64(lid_mle(&d, args.get(1).as_f64().unwrap_or(0.0)));
            Ok(())
        }))
    },
    testing: Testing {
        corner_call: Some(concat!("lid_mle(", corner_vector_a!(), ", x)")),
        random: false,
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// The family's nodes, in catalog order.
pub const NODES: &[NodeDef] =
    &[HASH_VEC, XXHASH3_VEC, VEC_ADD, VEC_SCALE, VEC_DOT, VEC_L2, VEC_COSINE, VEC_NORM, LID_MLE];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::{eval, eval1};

    fn vector(v: &[f32]) -> Value {
        vector_value(v).unwrap()
    }

    fn elements(v: &Value) -> Vec<f32> {
        match v {
            Value::Bytes(b) => b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn math_as_upstreams_tests_state() {
        let a = elements(&eval1(&HASH_VEC, &[], &[Value::U64(7), Value::U64(16)]));
        assert_eq!(a, elements(&eval1(&HASH_VEC, &[], &[Value::U64(7), Value::U64(16)])));
        assert_ne!(a, elements(&eval1(&HASH_VEC, &[], &[Value::U64(8), Value::U64(16)])));
        assert!(a.len() == 16 && a.iter().all(|x| (-1.0..1.0).contains(x)));
        assert_eq!(a[1], unit_element(splitmix64(7u64.wrapping_add(0x9e37_79b9_7f4a_7c15))));
        let b = elements(&eval1(&XXHASH3_VEC, &[], &[Value::U64(1), Value::U64(16)]));
        let sum = elements(&eval1(&VEC_ADD, &[], &[vector(&a), vector(&b)]));
        assert!(sum.iter().zip(a.iter().zip(&b)).all(|(s, (x, y))| *s == x + y));
        let scaled = elements(&eval1(&VEC_SCALE, &[], &[vector(&a), Value::F64(2.0)]));
        assert!(scaled.iter().zip(&a).all(|(s, x)| *s == x * 2.0));
        let unit = elements(&eval1(&VEC_NORM, &[], &[vector(&a)]));
        assert!((f64::from(dot(&unit, &unit)).sqrt() - 1.0).abs() < 1e-4);
        assert_eq!(elements(&eval1(&VEC_NORM, &[], &[vector(&[0.0; 4])])), [0.0; 4]);
        let cos = eval1(&VEC_COSINE, &[], &[vector(&a), vector(&a)]).as_f64().unwrap();
        assert!((cos - 1.0).abs() < 1e-4);
        let l2 = eval1(&VEC_L2, &[], &[vector(&[0.0, 3.0]), vector(&[4.0, 0.0])]);
        assert!(l2.same(&Value::F64(5.0)));
        let err = eval(&VEC_DOT, &[], &[vector(&[1.0]), vector(&[1.0, 2.0])]).unwrap_err();
        assert_eq!(err.message(), "vec_dot: operand lengths differ (1 vs 2)");
    }

    #[test]
    fn lid_mle_closed_forms() {
        let d: Vec<f32> = (0..10).map(|j| (j as f32).exp()).collect();
        assert!((lid_mle(&d, 10.0) - 0.2).abs() < 1e-4);
        assert_eq!(lid_mle(&[1.0], 10.0), 0.0);
        assert_eq!(lid_mle(&[0.0, 0.0, 0.0], 3.0), 0.0);
        let e = std::f32::consts::E;
        assert!((lid_mle(&[0.0, e, e * e], 3.0) - 1.0).abs() < 1e-4);
    }
}
