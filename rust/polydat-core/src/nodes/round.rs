//! Round-number family: snap a positive magnitude to a "nice" number — a
//! power of ten (`base10`), a multiple of its power of ten (`decade`), a
//! Fibonacci number (`fibonacci`, the sequence 1, 2, 3, 5, 8, ...) or a power
//! of two (`binomial`) — below (`floor_`), above (`ceiling_`) or nearest
//! (`closest_`, ties to the lower), plus rounding to a multiple of any
//! interval. As upstream: a magnitude that is not positive and finite gives
//! 0.0; an interval that is not positive and finite leaves the value as is.

use crate::node::kit::{map1, map2};
use crate::node::{wire, NodeDef, Outputs};
use crate::types::PortType::F64;

/// Whether `x` is a magnitude the families snap (positive and finite).
fn positive_finite(x: f64) -> bool {
    x.is_finite() && x > 0.0
}

/// The largest power `base^n` not above `x` (positive, finite). The exponent
/// comes from a logarithm, then is corrected by one step either way, so a
/// logarithm one ulp off at an exact power cannot pick the wrong power.
fn floor_power(x: f64, base: f64, log: fn(f64) -> f64) -> f64 {
    let mut exponent = log(x).floor() as i32;
    let mut power = base.powi(exponent);
    if power > x {
        exponent -= 1;
        power = base.powi(exponent);
    } else if power * base <= x {
        exponent += 1;
        power = base.powi(exponent);
    }
    power
}

fn floor_pow10(x: f64) -> f64 {
    floor_power(x, 10.0, f64::log10)
}

fn floor_pow2(x: f64) -> f64 {
    floor_power(x, 2.0, f64::log2)
}

/// The power of `base` at or above `x`, given the one at or below (`low`).
fn ceiling_power(x: f64, low: f64, base: f64) -> f64 {
    if low == x {
        low
    } else {
        low * base
    }
}

/// `low` or `high`, whichever is nearer to `x`; a tie goes to `low`.
fn nearer(x: f64, low: f64, high: f64) -> f64 {
    if (high - x).abs() < (x - low).abs() {
        high
    } else {
        low
    }
}

/// The largest Fibonacci number (1, 2, 3, 5, ...) not above `x`; 0.0 below 1.
fn floor_fibonacci_of(x: f64) -> f64 {
    if x < 1.0 {
        return 0.0;
    }
    let (mut low, mut high) = (1.0f64, 2.0f64);
    while high <= x {
        (low, high) = (high, low + high);
        if !high.is_finite() {
            return low;
        }
    }
    low
}

/// The smallest Fibonacci number (1, 2, 3, 5, ...) not below `x`; 1.0 up to 1.
fn ceiling_fibonacci_of(x: f64) -> f64 {
    let (mut low, mut high) = (1.0f64, 2.0f64);
    if x <= low {
        return low;
    }
    while high < x {
        (low, high) = (high, low + high);
        if !high.is_finite() {
            break;
        }
    }
    high
}

/// Declares a one-wire magnitude snapper: 0.0 unless `x` is positive and finite.
macro_rules! snap {
    ($id:ident, $name:literal, $doc:literal, |$x:ident| $body:expr) => {
        /// A round-number node (see its `name` and `doc` fields).
        pub const $id: NodeDef = NodeDef {
            name: $name,
            category: "math",
            doc: $doc,
            params: &[wire("x", F64)],
            outputs: Outputs::One(F64),
            build: |_| {
                Ok(map1(|$x: f64| -> f64 {
                    if positive_finite($x) {
                        $body
                    } else {
                        0.0
                    }
                }))
            },
            ..NodeDef::BASE
        };
    };
}

snap!(FLOOR_BASE10, "floor_base10", "The largest power of ten <= x; 0.0 unless x is positive and finite.", |x| {
    floor_pow10(x)
});
snap!(CEILING_BASE10, "ceiling_base10", "The smallest power of ten >= x; 0.0 unless x is positive and finite.", |x| {
    ceiling_power(x, floor_pow10(x), 10.0)
});
snap!(
    CLOSEST_BASE10,
    "closest_base10",
    "The power of ten nearest x (ties to the lower); 0.0 unless x is positive and finite.",
    |x| {
        let low = floor_pow10(x);
        nearer(x, low, ceiling_power(x, low, 10.0))
    }
);
snap!(
    FLOOR_DECADE,
    "floor_decade",
    "x rounded down to a multiple of its power of ten (2734 -> 2000); 0.0 unless positive and finite.",
    |x| {
        let base = floor_pow10(x);
        (x / base).floor() * base
    }
);
snap!(
    CEILING_DECADE,
    "ceiling_decade",
    "x rounded up to a multiple of its power of ten (2734 -> 3000); 0.0 unless positive and finite.",
    |x| {
        let base = floor_pow10(x);
        (x / base).ceil() * base
    }
);
snap!(
    CLOSEST_DECADE,
    "closest_decade",
    "x rounded to the nearest multiple of its power of ten (1732 -> 2000); 0.0 unless positive and finite.",
    |x| {
        let base = floor_pow10(x);
        (x / base).round() * base
    }
);
snap!(
    FLOOR_FIBONACCI,
    "floor_fibonacci",
    "The largest Fibonacci number (1, 2, 3, 5, ...) <= x; 0.0 below 1 and unless x is finite.",
    |x| floor_fibonacci_of(x)
);
snap!(
    CEILING_FIBONACCI,
    "ceiling_fibonacci",
    "The smallest Fibonacci number (1, 2, 3, 5, ...) >= x; 0.0 unless x is positive and finite.",
    |x| ceiling_fibonacci_of(x)
);
snap!(
    CLOSEST_FIBONACCI,
    "closest_fibonacci",
    "The Fibonacci number nearest x (ties to the lower); 0.0 unless x is positive and finite.",
    |x| nearer(x, floor_fibonacci_of(x), ceiling_fibonacci_of(x))
);
snap!(FLOOR_BINOMIAL, "floor_binomial", "The largest power of two <= x; 0.0 unless x is positive and finite.", |x| {
    floor_pow2(x)
});
snap!(
    CEILING_BINOMIAL,
    "ceiling_binomial",
    "The smallest power of two >= x; 0.0 unless x is positive and finite.",
    |x| ceiling_power(x, floor_pow2(x), 2.0)
);
snap!(
    CLOSEST_BINOMIAL,
    "closest_binomial",
    "The power of two nearest x (ties to the lower); 0.0 unless x is positive and finite.",
    |x| {
        let low = floor_pow2(x);
        nearer(x, low, ceiling_power(x, low, 2.0))
    }
);

/// Declares a rounder to a multiple of a wire interval (identity for an
/// interval that is not positive and finite).
macro_rules! to_interval {
    ($id:ident, $name:literal, $doc:literal, $round:expr) => {
        /// An interval rounding node (see its `name` and `doc` fields).
        pub const $id: NodeDef = NodeDef {
            name: $name,
            category: "math",
            doc: $doc,
            params: &[wire("x", F64), wire("interval", F64)],
            outputs: Outputs::One(F64),
            build: |_| {
                Ok(map2(|x: f64, interval: f64| -> f64 {
                    if interval.is_finite() && interval > 0.0 {
                        $round(x / interval) * interval
                    } else {
                        x
                    }
                }))
            },
            ..NodeDef::BASE
        };
    };
}

to_interval!(
    ROUND_FLOOR,
    "round_floor",
    "x rounded down to a multiple of interval; x itself when interval is not positive and finite.",
    f64::floor
);
to_interval!(
    ROUND_CEILING,
    "round_ceiling",
    "x rounded up to a multiple of interval; x itself when interval is not positive and finite.",
    f64::ceil
);
to_interval!(
    ROUND_NEAREST,
    "round_nearest",
    "x rounded to the nearest multiple of interval (halves away from zero); x itself when interval is not positive and finite.",
    f64::round
);

/// The family's nodes, in catalog order.
pub const NODES: &[NodeDef] = &[
    FLOOR_BASE10,
    CEILING_BASE10,
    CLOSEST_BASE10,
    FLOOR_DECADE,
    CEILING_DECADE,
    CLOSEST_DECADE,
    FLOOR_FIBONACCI,
    CEILING_FIBONACCI,
    CLOSEST_FIBONACCI,
    FLOOR_BINOMIAL,
    CEILING_BINOMIAL,
    CLOSEST_BINOMIAL,
    ROUND_FLOOR,
    ROUND_CEILING,
    ROUND_NEAREST,
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::eval1;
    use crate::value::Value;

    fn at(def: &NodeDef, x: f64) -> f64 {
        eval1(def, &[], &[Value::F64(x)]).as_f64().unwrap()
    }

    fn at2(def: &NodeDef, x: f64, interval: f64) -> f64 {
        eval1(def, &[], &[Value::F64(x), Value::F64(interval)]).as_f64().unwrap()
    }

    #[test]
    fn families_snap_as_upstream_documents() {
        assert_eq!(at(&FLOOR_BASE10, 1732.234), 1000.0);
        assert_eq!(at(&CEILING_BASE10, 1732.0), 10000.0);
        assert_eq!(at(&CLOSEST_BASE10, 1732.0), 1000.0);
        assert_eq!(at(&CLOSEST_BASE10, 6000.0), 10000.0);
        assert_eq!(at(&CEILING_BASE10, 1000.0), 1000.0);
        assert!((at(&FLOOR_BASE10, 0.5) - 0.1).abs() < 1e-12);
        assert_eq!(at(&FLOOR_DECADE, 2734.0), 2000.0);
        assert_eq!(at(&CEILING_DECADE, 2734.0), 3000.0);
        assert_eq!(at(&CLOSEST_DECADE, 1732.0), 2000.0);
        assert_eq!(at(&FLOOR_FIBONACCI, 1732.0), 1597.0);
        assert_eq!(at(&CEILING_FIBONACCI, 1732.0), 2584.0);
        assert_eq!(at(&CLOSEST_FIBONACCI, 1732.0), 1597.0);
        assert_eq!(at(&FLOOR_FIBONACCI, 0.5), 0.0);
        assert_eq!(at(&CEILING_FIBONACCI, 1597.0), 1597.0);
        assert_eq!(at(&FLOOR_BINOMIAL, 1732.0), 1024.0);
        assert_eq!(at(&CEILING_BINOMIAL, 1732.0), 2048.0);
        assert_eq!(at(&CLOSEST_BINOMIAL, 1732.0), 2048.0);
        assert_eq!(at(&CEILING_BINOMIAL, 1024.0), 1024.0);
        for bad in [0.0, -5.0, f64::INFINITY, f64::NAN, -0.0] {
            for def in &NODES[..12] {
                assert_eq!(at(def, bad).to_bits(), 0f64.to_bits(), "{} at {bad}", def.name);
            }
        }
    }

    #[test]
    fn every_exact_power_is_its_own_floor_and_ceiling() {
        for e in -300..300 {
            let p = 10f64.powi(e);
            assert_eq!(at(&FLOOR_BASE10, p), p, "10^{e}");
            assert_eq!(at(&CEILING_BASE10, p), p, "10^{e}");
        }
        for e in -1000..1000 {
            let p = 2f64.powi(e);
            assert_eq!(at(&FLOOR_BINOMIAL, p), p, "2^{e}");
        }
        assert_eq!(at(&CEILING_FIBONACCI, f64::MAX), f64::INFINITY);
    }

    #[test]
    fn interval_rounders() {
        assert_eq!(at2(&ROUND_FLOOR, 1732.0, 500.0), 1500.0);
        assert_eq!(at2(&ROUND_CEILING, 1732.0, 500.0), 2000.0);
        assert_eq!(at2(&ROUND_NEAREST, 1732.0, 500.0), 1500.0);
        assert_eq!(at2(&ROUND_NEAREST, 1750.0, 500.0), 2000.0);
        for bad in [0.0, -5.0, f64::INFINITY, f64::NAN] {
            assert_eq!(at2(&ROUND_FLOOR, 1732.0, bad), 1732.0);
        }
    }
}
