//! The `cardinality` count as Elasticsearch keeps it: exact while the
//! distinct values seen are at most `precision_threshold` (a set of their
//! 64-bit hashes), a HyperLogLog sketch of the precision that threshold
//! implies beyond it (`precision_from_threshold`, as Elasticsearch's
//! HyperLogLog++ picks it: 14 bits, about 0.8% error, at the default 3000).
//!
//! Each value is kept as a [`Fingerprint`] that holds its sketch coupon,
//! so a set that outgrows the threshold (or meets another part's sketch
//! when merged) becomes a sketch without seeing the values again.

use rustc_hash::FxHashSet;

use datasketches::hll::{Coupon, HllSketch, HllType, HllUnion};

/// Elasticsearch's default `precision_threshold`.
pub const DEFAULT_THRESHOLD: u64 = 3000;
/// Elasticsearch's largest `precision_threshold` (larger values are capped).
pub const MAX_THRESHOLD: u64 = 40_000;

/// Elasticsearch's `HyperLogLogPlusPlus.precisionFromThreshold`: the bits
/// of a hash table of 4-byte entries holding `threshold` values at a load
/// of 0.75, within 4..=18.
pub fn precision_from_threshold(threshold: u64) -> u8 {
    let entries = (threshold as f64 / 0.75).ceil() as u64;
    let bytes = entries.saturating_mul(4);
    let bits = 64 - bytes.leading_zeros();
    bits.clamp(4, 18) as u8
}

/// What the exact count keeps of a value: 32 bits of its xxh3 hash and
/// its sketch coupon (26 bits of MurmurHash3 and a leading-zero count).
/// Equal values have equal fingerprints; two of the at most 40,000
/// distinct values an exact count holds share one with a probability
/// under 1e-8 (about 58 independent bits). Eight bytes, so a segment's
/// table of them by term ordinal (`distinct_terms`) serves exact counts
/// and sketches alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fingerprint {
    hash: u32,
    coupon: Coupon,
}

impl Fingerprint {
    /// The value's coupon, for a sketch.
    pub fn coupon(self) -> Coupon {
        self.coupon
    }
}

/// The fingerprint of a value's bytes.
pub fn value_of(bytes: &[u8]) -> Fingerprint {
    Fingerprint {
        hash: (xxhash_rust::xxh3::xxh3_64(bytes) >> 32) as u32,
        coupon: Coupon::from_value(bytes),
    }
}

/// Distinct values seen: exact up to the threshold, then a sketch.
pub enum DistinctCount {
    /// The values' fingerprints.
    Exact(FxHashSet<Fingerprint>),
    /// Past the threshold.
    Sketch(HllSketch),
}

impl Default for DistinctCount {
    fn default() -> Self {
        DistinctCount::Exact(FxHashSet::default())
    }
}

fn new_sketch(lg_k: u8) -> HllSketch {
    match HllSketch::new(lg_k, HllType::Hll8) {
        Ok(s) => s,
        Err(_) => unreachable!("precision_from_threshold stays within 4..=18"),
    }
}

impl DistinctCount {
    /// Adds one value.
    pub fn insert(&mut self, value: Fingerprint, threshold: u64) {
        match self {
            DistinctCount::Exact(set) => {
                set.insert(value);
                if set.len() as u64 > threshold {
                    self.become_sketch(threshold);
                }
            }
            DistinctCount::Sketch(s) => s.update_with_coupon(value.coupon),
        }
    }

    /// Adds a sketch of values seen elsewhere.
    pub fn add_sketch(&mut self, other: &HllSketch, threshold: u64) {
        self.become_sketch(threshold);
        if let DistinctCount::Sketch(mine) = self {
            *mine = union(mine, other, threshold);
        }
    }

    /// Turns the set into a sketch (no-op for a sketch).
    fn become_sketch(&mut self, threshold: u64) {
        if let DistinctCount::Exact(set) = self {
            let mut sketch = new_sketch(precision_from_threshold(threshold));
            for value in set.iter() {
                sketch.update_with_coupon(value.coupon);
            }
            *self = DistinctCount::Sketch(sketch);
        }
    }

    /// Adds another part's values.
    pub fn merge(&mut self, other: DistinctCount, threshold: u64) {
        match other {
            DistinctCount::Exact(set) => {
                for value in set {
                    self.insert(value, threshold);
                }
            }
            DistinctCount::Sketch(s) => self.add_sketch(&s, threshold),
        }
    }

    /// The count: exact, or the sketch's estimate rounded down.
    pub fn count(&self) -> u64 {
        match self {
            DistinctCount::Exact(set) => set.len() as u64,
            DistinctCount::Sketch(s) => s.estimate().trunc() as u64,
        }
    }
}

/// A sketch of `threshold`'s precision holding both.
fn union(a: &HllSketch, b: &HllSketch, threshold: u64) -> HllSketch {
    let lg_k = precision_from_threshold(threshold);
    let Ok(mut union) = HllUnion::new(lg_k) else {
        unreachable!("precision_from_threshold stays within 4..=18")
    };
    union.update(a);
    union.update(b);
    union.to_sketch(HllType::Hll8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precision_matches_elasticsearch() {
        // Elasticsearch: 3000 -> 14, 40000 -> 18, 100 -> 10, 0 -> 4.
        assert_eq!(precision_from_threshold(3000), 14);
        assert_eq!(precision_from_threshold(40_000), 18);
        assert_eq!(precision_from_threshold(100), 10);
        assert_eq!(precision_from_threshold(0), 4);
    }

    #[test]
    fn exact_up_to_the_threshold_then_estimated() {
        for (n, threshold) in [(3940u64, 4000u64), (3000, 3000), (10_000, 40_000)] {
            let mut parts = [DistinctCount::default(), DistinctCount::default()];
            for i in 0..n {
                let v = value_of(format!("v{i}").as_bytes());
                // Overlapping halves: each value in one or both parts.
                parts[(i % 2) as usize].insert(v, threshold);
                if i % 3 == 0 {
                    parts[((i + 1) % 2) as usize].insert(v, threshold);
                }
            }
            let [mut a, b] = parts;
            a.merge(b, threshold);
            assert_eq!(a.count(), n, "{n} at {threshold}");
        }
        let mut big = DistinctCount::default();
        for i in 0..100_000u64 {
            big.insert(value_of(&i.to_le_bytes()), 3000);
        }
        let error = (big.count() as f64 - 100_000.0).abs() / 100_000.0;
        assert!(error < 0.03, "{}", big.count());
    }
}
