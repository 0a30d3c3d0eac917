//! The cardinality from the registers: Ertl's improved estimator ("New
//! cardinality estimation algorithms for HyperLogLog sketches",
//! arXiv:1702.01284), step for step as Redis computes it, so the counts
//! are the same.

use super::format::REGISTERS;

/// Bits of hash above the register index.
const Q: usize = 50;

/// 0.5 / ln(2).
const ALPHA_INF: f64 = 0.721_347_520_444_481_7;

fn sigma(mut x: f64) -> f64 {
    if x == 1.0 {
        return f64::INFINITY;
    }
    let (mut y, mut z) = (1.0, x);
    loop {
        x *= x;
        let before = z;
        z += x * y;
        y += y;
        if before == z {
            return z;
        }
    }
}

fn tau(mut x: f64) -> f64 {
    if x == 0.0 || x == 1.0 {
        return 0.0;
    }
    let (mut y, mut z) = (1.0, 1.0 - x);
    loop {
        x = x.sqrt();
        let before = z;
        y *= 0.5;
        z -= (1.0 - x) * (1.0 - x) * y;
        if before == z {
            return z / 3.0;
        }
    }
}

/// The estimated cardinality of `registers`.
pub fn count(registers: &[u8; REGISTERS]) -> u64 {
    let mut histogram = [0u32; 64];
    for &r in registers {
        histogram[usize::from(r & 63)] += 1;
    }
    let m = REGISTERS as f64;
    let mut z = m * tau((m - f64::from(histogram[Q + 1])) / m);
    for j in (1..=Q).rev() {
        z += f64::from(histogram[j]);
        z *= 0.5;
    }
    z += m * sigma(f64::from(histogram[0]) / m);
    (ALPHA_INF * m * m / z).round() as u64
}
