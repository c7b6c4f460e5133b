//! Noise family: coherent noise over u64 coordinates — 1D and 2D Perlin
//! (improved fade 6t^5 - 15t^4 + 10t^3), 2D simplex, and fractal Brownian
//! motion over Perlin (lacunarity 2, persistence 1/2). Nearby coordinates give
//! nearby values, unlike `hash`. A coordinate is scaled to the noise domain
//! as `coordinate as f64 * frequency`. The permutation table is built once
//! per node from `seed` (a Fisher-Yates shuffle of 0..=255 driven by a chain
//! of `xxh3` hashes), as upstream builds it, so values match upstream's bit
//! for bit.

use crate::node::kit::{map1, map2};
use crate::node::{konst, konst_or, wire, BuildCtx, Lit, NodeDef, Outputs, Samples, Testing};
use crate::nodes::hash::xxh3_u64;
use crate::types::PortType::{F64, U64};
use std::sync::Arc;

/// Skew factor of the 2D simplex grid: (sqrt(3) - 1) / 2.
const SKEW_2D: f64 = 0.3660254037844386;
/// Unskew factor of the 2D simplex grid: (3 - sqrt(3)) / 6.
const UNSKEW_2D: f64 = 0.21132486540518713;
/// Most octaves a fractal node takes (past ~53 an octave adds nothing).
pub const MAX_OCTAVES: u64 = 64;

/// The permutation of 0..=255 `seed` picks, doubled so indexes need no wrap.
struct Permutation([u8; 512]);

impl Permutation {
    fn new(seed: u64) -> Permutation {
        let mut order: [u8; 256] = std::array::from_fn(|i| i as u8);
        let mut state = seed;
        for i in (1..256).rev() {
            state = xxh3_u64(state);
            order.swap(i, (state % (i as u64 + 1)) as usize);
        }
        Permutation(std::array::from_fn(|i| order[i & 255]))
    }

    /// The entry at `i` modulo 256.
    fn at(&self, i: i32) -> u8 {
        self.0[(i & 255) as usize]
    }

    /// 1D Perlin noise at `x`, in [-1, 1].
    fn perlin_1d(&self, x: f64) -> f64 {
        let cell = x.floor() as i32;
        let offset = x - x.floor();
        let left = gradient_1d(self.at(cell), offset);
        let right = gradient_1d(self.at(cell.wrapping_add(1)), offset - 1.0);
        lerp(fade(offset), left, right)
    }

    /// 2D Perlin noise at (x, y).
    fn perlin_2d(&self, x: f64, y: f64) -> f64 {
        let (cx, cy) = (x.floor() as i32, y.floor() as i32);
        let (fx, fy) = (x - x.floor(), y - y.floor());
        let corner = |dx: i32, dy: i32| {
            let column = self.at(cx.wrapping_add(dx)) as i32;
            self.at(column.wrapping_add(cy).wrapping_add(dy))
        };
        let (u, v) = (fade(fx), fade(fy));
        let bottom = lerp(u, gradient_2d(corner(0, 0), fx, fy), gradient_2d(corner(1, 0), fx - 1.0, fy));
        let top = lerp(u, gradient_2d(corner(0, 1), fx, fy - 1.0), gradient_2d(corner(1, 1), fx - 1.0, fy - 1.0));
        lerp(v, bottom, top)
    }

    /// 2D simplex noise at (x, y), scaled to about [-1, 1].
    fn simplex_2d(&self, x: f64, y: f64) -> f64 {
        let skew = (x + y) * SKEW_2D;
        let i = (x + skew).floor() as i32;
        let j = (y + skew).floor() as i32;
        let unskew = (i + j) as f64 * UNSKEW_2D;
        let x0 = x - (i as f64 - unskew);
        let y0 = y - (j as f64 - unskew);
        let (i1, j1) = if x0 > y0 { (1, 0) } else { (0, 1) };
        let x1 = x0 - i1 as f64 + UNSKEW_2D;
        let y1 = y0 - j1 as f64 + UNSKEW_2D;
        let x2 = x0 - 1.0 + 2.0 * UNSKEW_2D;
        let y2 = y0 - 1.0 + 2.0 * UNSKEW_2D;
        let g0 = self.at(i.wrapping_add(self.at(j) as i32));
        let g1 = self.at(i.wrapping_add(i1).wrapping_add(self.at(j.wrapping_add(j1)) as i32));
        let g2 = self.at(i.wrapping_add(1).wrapping_add(self.at(j.wrapping_add(1)) as i32));
        let contribution = |g: u8, dx: f64, dy: f64| {
            let falloff = 0.5 - dx * dx - dy * dy;
            if falloff > 0.0 {
                let f2 = falloff * falloff;
                f2 * f2 * gradient_2d(g, dx, dy)
            } else {
                0.0
            }
        };
        70.0 * (contribution(g0, x0, y0) + contribution(g1, x1, y1) + contribution(g2, x2, y2))
    }

    /// Fractal Brownian motion: `octaves` layers of `sample` at doubling
    /// frequency and halving amplitude, normalised by the amplitudes' sum.
    fn fractal(&self, frequency: f64, octaves: u64, sample: impl Fn(f64) -> f64) -> f64 {
        let (mut total, mut freq, mut amplitude, mut amplitudes) = (0.0, frequency, 1.0, 0.0);
        for _ in 0..octaves {
            total += sample(freq) * amplitude;
            amplitudes += amplitude;
            freq *= 2.0;
            amplitude *= 0.5;
        }
        total / amplitudes
    }
}

/// The improved Perlin smoothstep 6t^5 - 15t^4 + 10t^3.
fn fade(t: f64) -> f64 {
    t * t * t * (t * (t * 6.0 - 15.0) + 10.0)
}

fn lerp(t: f64, a: f64, b: f64) -> f64 {
    a + t * (b - a)
}

fn gradient_1d(hash: u8, x: f64) -> f64 {
    if hash & 1 == 0 {
        x
    } else {
        -x
    }
}

fn gradient_2d(hash: u8, x: f64, y: f64) -> f64 {
    match hash & 3 {
        0 => x + y,
        1 => -x + y,
        2 => x - y,
        _ => -x - y,
    }
}

/// The node's permutation table (constant 0 is the seed).
fn permutation(c: &BuildCtx<'_>) -> Arc<Permutation> {
    Arc::new(Permutation::new(c.u64(0)))
}

/// The octave count (constant 2), refused outside 1..=64.
fn octaves(c: &BuildCtx<'_>) -> Result<u64, String> {
    match c.u64(2) {
        n @ 1..=MAX_OCTAVES => Ok(n),
        n => Err(format!("octaves must be in [1, {MAX_OCTAVES}], got {n}")),
    }
}

/// `perlin_1d`: 1D Perlin noise of `input * frequency`.
pub const PERLIN_1D: NodeDef = NodeDef {
    name: "perlin_1d",
    category: "noise",
    doc: "1D Perlin noise in [-1, 1] at input * frequency; the permutation comes from seed.",
    params: &[wire("input", U64), konst("seed", U64), konst("frequency", F64)],
    outputs: Outputs::One(F64),
    build: |c| {
        let (table, frequency) = (permutation(c), c.f64(1));
        Ok(map1(move |x: u64| table.perlin_1d(x as f64 * frequency)))
    },
    ..NodeDef::BASE
};

/// `perlin_2d`: 2D Perlin noise of `(x, y) * frequency`.
pub const PERLIN_2D: NodeDef = NodeDef {
    name: "perlin_2d",
    category: "noise",
    doc: "2D Perlin noise at (x * frequency, y * frequency); the permutation comes from seed.",
    params: &[wire("x", U64), wire("y", U64), konst("seed", U64), konst("frequency", F64)],
    outputs: Outputs::One(F64),
    build: |c| {
        let (table, frequency) = (permutation(c), c.f64(1));
        Ok(map2(move |x: u64, y: u64| table.perlin_2d(x as f64 * frequency, y as f64 * frequency)))
    },
    ..NodeDef::BASE
};

/// `simplex_2d`: 2D simplex noise of `(x, y) * frequency`.
pub const SIMPLEX_2D: NodeDef = NodeDef {
    name: "simplex_2d",
    category: "noise",
    doc: "2D simplex noise in about [-1, 1] at (x * frequency, y * frequency); the permutation comes from seed.",
    params: &[wire("x", U64), wire("y", U64), konst("seed", U64), konst("frequency", F64)],
    outputs: Outputs::One(F64),
    build: |c| {
        let (table, frequency) = (permutation(c), c.f64(1));
        Ok(map2(move |x: u64, y: u64| table.simplex_2d(x as f64 * frequency, y as f64 * frequency)))
    },
    ..NodeDef::BASE
};

/// `fractal_noise_1d`: fractal Brownian motion over 1D Perlin noise.
pub const FRACTAL_NOISE_1D: NodeDef = NodeDef {
    name: "fractal_noise_1d",
    category: "noise",
    doc: "Fractal Brownian motion: octaves (1..=64) of 1D Perlin noise, each at twice the frequency and half the amplitude.",
    params: &[wire("input", U64), konst("seed", U64), konst("frequency", F64), konst_or("octaves", U64, Lit::U64(4))],
    outputs: Outputs::One(F64),
    build: |c| {
        let (table, frequency, octaves) = (permutation(c), c.f64(1), octaves(c)?);
        Ok(map1(move |x: u64| table.fractal(frequency, octaves, |f| table.perlin_1d(x as f64 * f))))
    },
    // Octave counts inside 1..=64.
    testing: Testing {
        samples: &[("frequency", Samples::F64(&[0.01, 1.0, 0.5])), ("octaves", Samples::U64(&[4, 1, 2, 64]))],
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `fractal_noise_2d`: fractal Brownian motion over 2D Perlin noise.
pub const FRACTAL_NOISE_2D: NodeDef = NodeDef {
    name: "fractal_noise_2d",
    category: "noise",
    doc: "Fractal Brownian motion: octaves (1..=64) of 2D Perlin noise, each at twice the frequency and half the amplitude.",
    params: &[
        wire("x", U64),
        wire("y", U64),
        konst("seed", U64),
        konst("frequency", F64),
        konst_or("octaves", U64, Lit::U64(4)),
    ],
    outputs: Outputs::One(F64),
    build: |c| {
        let (table, frequency, octaves) = (permutation(c), c.f64(1), octaves(c)?);
        Ok(map2(move |x: u64, y: u64| {
            table.fractal(frequency, octaves, |f| table.perlin_2d(x as f64 * f, y as f64 * f))
        }))
    },
    // Octave counts inside 1..=64.
    testing: Testing {
        samples: &[("frequency", Samples::F64(&[0.01, 1.0, 0.5])), ("octaves", Samples::U64(&[4, 1, 3, 64]))],
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// The family's nodes, in catalog order.
pub const NODES: &[NodeDef] = &[PERLIN_1D, PERLIN_2D, SIMPLEX_2D, FRACTAL_NOISE_1D, FRACTAL_NOISE_2D];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::{build_err, eval1};
    use crate::types::PortType;
    use crate::value::Value;

    fn sample(def: &NodeDef, consts: &[Value], wires: &[u64]) -> f64 {
        let wires: Vec<Value> = wires.iter().map(|&w| Value::U64(w)).collect();
        eval1(def, consts, &wires).as_f64().unwrap()
    }

    #[test]
    fn noise_stays_in_range_and_is_smooth() {
        let consts = [Value::U64(42), Value::F64(0.01)];
        let mut jumps = 0;
        let mut previous = sample(&PERLIN_1D, &consts, &[100]);
        for i in 0..1000u64 {
            let v = sample(&PERLIN_1D, &consts, &[i]);
            assert!((-1.0..=1.0).contains(&v), "{v} at {i}");
            if i > 100 && i < 200 {
                jumps += usize::from((v - previous).abs() > 0.5);
                previous = v;
            }
        }
        assert!(jumps < 5);
        for x in 0..30 {
            for y in 0..30 {
                for def in [&PERLIN_2D, &SIMPLEX_2D] {
                    let v = sample(def, &consts, &[x, y]);
                    assert!((-1.5..=1.5).contains(&v), "{} {v}", def.name);
                }
                let v = sample(&FRACTAL_NOISE_2D, &[Value::U64(42), Value::F64(0.01), Value::U64(3)], &[x, y]);
                assert!((-1.5..=1.5).contains(&v));
            }
        }
    }

    #[test]
    fn seeds_pick_different_fields() {
        let at = |seed| sample(&PERLIN_1D, &[Value::U64(seed), Value::F64(0.1)], &[7]);
        assert_ne!(at(1).to_bits(), at(2).to_bits());
        assert_eq!(at(1).to_bits(), at(1).to_bits());
    }

    #[test]
    fn one_octave_is_plain_perlin_and_octaves_are_bounded() {
        for i in [0, 5, 77, u64::MAX] {
            let plain = sample(&PERLIN_1D, &[Value::U64(9), Value::F64(0.3)], &[i]);
            let fractal = sample(&FRACTAL_NOISE_1D, &[Value::U64(9), Value::F64(0.3), Value::U64(1)], &[i]);
            // Equal as numbers: the fractal sum starts at +0.0, so a -0.0 sample becomes +0.0.
            assert_eq!(plain, fractal);
        }
        for bad in [0, 65] {
            let consts = [Value::U64(1), Value::F64(0.1), Value::U64(bad)];
            let message = build_err(&FRACTAL_NOISE_1D, &consts, &[PortType::U64]);
            assert!(message.contains("octaves must be in [1, 64]"), "{message}");
        }
    }
}
