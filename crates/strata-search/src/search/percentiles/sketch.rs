//! A log-linear histogram of f64 values: the sketch behind
//! [`super::ValuePercentiles`].
//!
//! A positive value's bucket is the top bits of its IEEE 754 encoding: the
//! exponent and the first [`SUB_BITS`] bits of the mantissa, so a power of
//! two is split into 128 equal buckets and a bucket's width is at most
//! 1/128 of its lower edge. Reporting the bucket's middle is then within
//! 0.4% of any value in it (tantivy's DDSketch promises 1%), and finding
//! the bucket is a shift of the value's bits instead of a logarithm.
//! Negative values go to a mirror histogram of their magnitudes, zeros to
//! a count; NaN is skipped.
//!
//! Memory is bounded: the counts of one sign are a dense array over the
//! buckets between the smallest and the largest seen, at most 2^18 of them
//! (2 MiB) for values spanning the whole f64 range, a few KiB for real
//! data (byte counts, latencies).

/// Mantissa bits that pick the bucket within a power of two.
const SUB_BITS: u32 = 7;
/// The encoding's low bits below a bucket key.
const SHIFT: u32 = 52 - SUB_BITS;

/// The counts of the buckets of one sign, by key (`bits >> SHIFT` of the
/// magnitude, increasing with it).
#[derive(Debug, Clone, Default, PartialEq)]
struct Buckets {
    /// Key of `counts[0]`.
    first: u64,
    counts: Vec<u64>,
    total: u64,
}

impl Buckets {
    /// Counts `n` values in the bucket `key`.
    #[inline(always)]
    fn add_key(&mut self, key: u64, n: u64) {
        // The usual case: a bucket already inside the array (a key below
        // `first` wraps to a large index and misses too).
        if let Some(count) = self.counts.get_mut(key.wrapping_sub(self.first) as usize) {
            *count += n;
            self.total += n;
            return;
        }
        self.grow_to(key, n);
    }

    /// [`Buckets::add_key`] of a key outside the array: grows it.
    #[inline(never)]
    fn grow_to(&mut self, key: u64, n: u64) {
        if self.counts.is_empty() {
            self.first = key;
        }
        if key < self.first {
            let grow = (self.first - key) as usize;
            self.counts.splice(0..0, std::iter::repeat_n(0, grow));
            self.first = key;
        }
        let at = (key - self.first) as usize;
        if at >= self.counts.len() {
            self.counts.resize(at + 1, 0);
        }
        self.counts[at] += n;
        self.total += n;
    }

    fn merge(&mut self, other: &Buckets) {
        for (i, &n) in other.counts.iter().enumerate() {
            if n > 0 {
                self.add_key(other.first + i as u64, n);
            }
        }
    }

    /// The key of the bucket holding the `rank`-th smallest magnitude
    /// (`rank < total`).
    fn key_at(&self, rank: u64) -> u64 {
        let mut seen = 0;
        for (i, &n) in self.counts.iter().enumerate() {
            seen += n;
            if seen > rank {
                return self.first + i as u64;
            }
        }
        self.first + self.counts.len().saturating_sub(1) as u64
    }
}

/// The middle of the bucket with `key`.
fn middle(key: u64) -> f64 {
    let low = f64::from_bits(key << SHIFT);
    let high = f64::from_bits((key + 1) << SHIFT);
    if high.is_finite() {
        low + (high - low) / 2.0
    } else {
        low
    }
}

/// See the module docs.
#[derive(Debug, Clone, PartialEq)]
pub struct LogHistogram {
    positive: Buckets,
    negative: Buckets,
    zeros: u64,
    min: f64,
    max: f64,
}

impl Default for LogHistogram {
    fn default() -> LogHistogram {
        LogHistogram {
            positive: Buckets::default(),
            negative: Buckets::default(),
            zeros: 0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
        }
    }
}

impl LogHistogram {
    /// Values added (NaN excluded).
    pub fn count(&self) -> u64 {
        self.positive.total + self.negative.total + self.zeros
    }

    /// Adds one value.
    #[inline(always)]
    pub fn add(&mut self, v: f64) {
        // Comparisons with NaN are false: it falls through to the end.
        if v > 0.0 {
            self.positive.add_key(v.to_bits() >> SHIFT, 1);
        } else if v == 0.0 {
            self.zeros += 1;
        } else if v < 0.0 {
            self.negative.add_key((-v).to_bits() >> SHIFT, 1);
        } else {
            return;
        }
        self.min = self.min.min(v);
        self.max = self.max.max(v);
    }

    /// Adds each of `values`, as [`LogHistogram::add`] of each.
    ///
    /// The count, the extremes and the arrays' bounds stay in registers
    /// for as long as the values fall inside the arrays; per value that
    /// leaves one increment in memory, where `add` also stores the total,
    /// the smallest and the largest value.
    pub fn add_all(&mut self, values: &[f64]) {
        let mut rest = values;
        while !rest.is_empty() {
            let added = self.add_inside(rest);
            // The value that stopped it lies outside an array: grow it.
            if let Some((&v, tail)) = rest[added..].split_first() {
                self.add(v);
                rest = tail;
            } else {
                rest = &[];
            }
        }
    }

    /// Adds values from the start of `values` up to the first nonzero one
    /// outside its sign's array; returns how many it took.
    fn add_inside(&mut self, values: &[f64]) -> usize {
        let (positive_first, negative_first) = (self.positive.first, self.negative.first);
        let positive = &mut self.positive.counts[..];
        let negative = &mut self.negative.counts[..];
        let (mut min, mut max) = (self.min, self.max);
        let (mut positives, mut negatives, mut zeros) = (0u64, 0u64, 0u64);
        let mut taken = 0;
        for &v in values {
            if v > 0.0 {
                let key = (v.to_bits() >> SHIFT).wrapping_sub(positive_first);
                let Some(count) = positive.get_mut(key as usize) else {
                    break;
                };
                *count += 1;
                positives += 1;
            } else if v < 0.0 {
                let key = ((-v).to_bits() >> SHIFT).wrapping_sub(negative_first);
                let Some(count) = negative.get_mut(key as usize) else {
                    break;
                };
                *count += 1;
                negatives += 1;
            } else if v == 0.0 {
                zeros += 1;
            } else {
                // NaN: skipped.
                taken += 1;
                continue;
            }
            min = min.min(v);
            max = max.max(v);
            taken += 1;
        }
        self.positive.total += positives;
        self.negative.total += negatives;
        self.zeros += zeros;
        self.min = min;
        self.max = max;
        taken
    }

    /// Adds another histogram's values.
    pub fn merge(&mut self, other: &LogHistogram) {
        self.positive.merge(&other.positive);
        self.negative.merge(&other.negative);
        self.zeros += other.zeros;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// The bytes its arrays hold (for the request's memory account).
    pub(super) fn held_bytes(&self) -> u64 {
        let counts = self.positive.counts.capacity() + self.negative.counts.capacity();
        (counts * std::mem::size_of::<u64>()) as u64
    }

    /// The smallest and the largest value added (`None` when empty).
    pub(super) fn extremes(&self) -> Option<(f64, f64)> {
        (self.count() > 0).then_some((self.min, self.max))
    }

    /// The nonempty buckets in increasing order of value, as (middle kept
    /// within the smallest and the largest value, count): the centroids
    /// a rank interpolates between.
    pub(super) fn centroids(&self) -> Vec<(f64, u64)> {
        let (min, max) = (self.min, self.max);
        let side = |b: &Buckets, sign: f64| {
            b.counts
                .iter()
                .enumerate()
                .filter(|(_, &n)| n > 0)
                .map(move |(i, &n)| ((sign * middle(b.first + i as u64)).clamp(min, max), n))
                .collect::<Vec<_>>()
        };
        let mut out: Vec<(f64, u64)> = side(&self.negative, -1.0).into_iter().rev().collect();
        if self.zeros > 0 {
            out.push((0.0, self.zeros));
        }
        out.extend(side(&self.positive, 1.0));
        out
    }

    /// The value at `percent` (0 to 100): the smallest value at 0, the
    /// largest at 100, else the middle of the bucket of the value ranked
    /// `percent / 100 * (count - 1)` (rounded down), kept within the
    /// smallest and the largest value; `None` when empty. The rank is the
    /// one tantivy's percentiles use.
    pub fn percentile(&self, percent: f64) -> Option<f64> {
        let count = self.count();
        if count == 0 {
            return None;
        }
        let q = (percent / 100.0).clamp(0.0, 1.0);
        if q == 0.0 {
            return Some(self.min);
        }
        if q == 1.0 {
            return Some(self.max);
        }
        let rank = ((q * (count - 1) as f64) as u64).min(count - 1);
        let value = if rank < self.negative.total {
            // Negatives come first, the largest magnitude first.
            -middle(self.negative.key_at(self.negative.total - 1 - rank))
        } else if rank < self.negative.total + self.zeros {
            0.0
        } else {
            middle(
                self.positive
                    .key_at(rank - self.negative.total - self.zeros),
            )
        };
        Some(value.clamp(self.min, self.max))
    }
}

#[cfg(test)]
mod tests {
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    use super::*;

    /// The exact value at tantivy's rank.
    fn exact(sorted: &[f64], percent: f64) -> f64 {
        let rank = (percent / 100.0 * (sorted.len() - 1) as f64) as usize;
        sorted[rank]
    }

    #[test]
    fn percentiles_are_within_half_a_percent_of_the_exact_rank() {
        let mut rng = StdRng::seed_from_u64(3);
        for spread in [1.0f64, 1e3, 1e9] {
            let values: Vec<f64> = (0..20_000)
                .map(|i| match i % 10 {
                    0 => 0.0,
                    1 | 2 => -rng.gen_range(0.0..spread),
                    _ => rng.gen_range(0.0..spread).powf(1.5),
                })
                .collect();
            // Two halves merged, as segments are.
            let (mut a, mut b) = (LogHistogram::default(), LogHistogram::default());
            values[..7_000].iter().for_each(|&v| a.add(v));
            values[7_000..].iter().for_each(|&v| b.add(v));
            a.merge(&b);
            let mut sorted = values.clone();
            sorted.sort_by(f64::total_cmp);
            assert_eq!(a.count(), 20_000);
            for percent in [
                0.0, 1.0, 5.0, 10.0, 15.0, 25.0, 50.0, 75.0, 95.0, 99.0, 99.9, 100.0,
            ] {
                let want = exact(&sorted, percent);
                let got = a.percentile(percent).unwrap();
                assert!(
                    (got - want).abs() <= want.abs() / 256.0,
                    "p{percent} of spread {spread}: {got} against {want}"
                );
            }
        }
    }

    #[test]
    fn adding_a_block_equals_adding_each_value() {
        let mut rng = StdRng::seed_from_u64(5);
        for round in 0..50 {
            let values: Vec<f64> = (0..1 + round * 37)
                .map(|i| match i % 11 {
                    0 => 0.0,
                    1 => -0.0,
                    2 => f64::NAN,
                    3 => -rng.gen_range(0.0..1e6),
                    4 => rng.gen_range(0.0..1e-3),
                    // Far outside the arrays so far: they must grow.
                    5 if i % 7 == 0 => rng.gen_range(1e12..1e15),
                    _ => rng.gen_range(0.0..5e4f64).floor(),
                })
                .collect();
            let mut each = LogHistogram::default();
            values.iter().for_each(|&v| each.add(v));
            let mut block = LogHistogram::default();
            for chunk in values.chunks(64) {
                block.add_all(chunk);
            }
            assert_eq!(block, each, "round {round}");
        }
    }

    #[test]
    fn edges_and_empty() {
        let mut h = LogHistogram::default();
        assert_eq!(h.percentile(50.0), None);
        h.add(f64::NAN);
        assert_eq!(h.count(), 0);
        for v in [7.0, 7.0, 7.0] {
            h.add(v);
        }
        // One distinct value: every percentile is it (kept within min..max).
        assert_eq!(
            [0.0, 50.0, 99.0, 100.0].map(|p| h.percentile(p)),
            [Some(7.0); 4]
        );
        h.add(f64::MAX);
        h.add(f64::MIN_POSITIVE / 4.0);
        h.add(-f64::MAX);
        assert_eq!(h.percentile(100.0), Some(f64::MAX));
        assert_eq!(h.percentile(0.0), Some(-f64::MAX));
        assert_eq!(h.count(), 6);
        // Memory stays bounded across the whole range: 2^11 exponents.
        assert!(h.positive.counts.len() <= 1 << 18);
    }
}
