//! A log-linear histogram of f64 values: what a [`super::SpanDigest`]
//! keeps its values' offsets in past its exact values.
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
    #[cfg(test)]
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
    #[cfg(test)]
    pub fn add_all(&mut self, values: &[f64]) {
        self.add_all_from(values, 0.0);
    }

    /// Adds `v - base` of each of `values` (`base` finite), skipping the
    /// values whose offset is not finite: a digest's block of values in
    /// one pass, with no buffer of offsets.
    ///
    /// The count, the extremes and the arrays' bounds stay in registers
    /// for as long as the values fall inside the arrays; per value that
    /// leaves one increment in memory, where `add` also stores the total,
    /// the smallest and the largest value. An infinite offset never lies
    /// inside an array (only this skips it on the way in), so it always
    /// reaches the check on the slow path.
    pub fn add_all_from(&mut self, values: &[f64], base: f64) {
        let mut rest = values;
        while !rest.is_empty() {
            let added = self.add_inside(rest, base);
            // The value that stopped it lies outside an array: grow it.
            if let Some((&v, tail)) = rest[added..].split_first() {
                let offset = v - base;
                if offset.is_finite() {
                    self.add(offset);
                }
                rest = tail;
            } else {
                rest = &[];
            }
        }
    }

    /// Adds the offsets from `base` of values from the start of `values`
    /// up to the first nonzero one outside its sign's array; returns how
    /// many it took.
    fn add_inside(&mut self, values: &[f64], base: f64) -> usize {
        let (positive_first, negative_first) = (self.positive.first, self.negative.first);
        let positive = &mut self.positive.counts[..];
        let negative = &mut self.negative.counts[..];
        let (mut min, mut max) = (self.min, self.max);
        let (mut positives, mut negatives, mut zeros) = (0u64, 0u64, 0u64);
        let mut taken = 0;
        for &raw in values {
            let v = raw - base;
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

    /// Adds `n` values equal to `v` (NaN skipped), as `n` calls of
    /// [`LogHistogram::add`].
    pub(super) fn add_n(&mut self, v: f64, n: u64) {
        if n == 0 || v.is_nan() {
            return;
        }
        if v > 0.0 {
            self.positive.add_key(v.to_bits() >> SHIFT, n);
        } else if v == 0.0 {
            self.zeros += n;
        } else {
            self.negative.add_key((-v).to_bits() >> SHIFT, n);
        }
        self.min = self.min.min(v);
        self.max = self.max.max(v);
    }

    /// Widens the extremes to `min..=max` (values another part held).
    pub(super) fn widen(&mut self, min: f64, max: f64) {
        self.min = self.min.min(min);
        self.max = self.max.max(max);
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
}

#[cfg(test)]
#[path = "sketch_tests.rs"]
mod tests;
