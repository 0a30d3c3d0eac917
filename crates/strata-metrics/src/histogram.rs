//! [`LatencyHistogram`]: durations in nanoseconds counted in log-linear
//! buckets. Values below 8 ns have a bucket each; above, every power of
//! two is split into 8 equal buckets, so a bucket's width is at most an
//! eighth of its lower edge. The last bucket holds everything from
//! 15 * 2^37 ns (about 34 minutes) on. Recording is two relaxed atomic
//! additions (the bucket and the sum; the count is the buckets' sum).
//!
//! Invariant: every power of two from 8 ns on is a bucket edge, so the
//! cumulative counts at [`EXPORT_EDGES_NANOS`] are exact, not estimates.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Sub-buckets per power of two, as a power of two.
const SUB_BITS: u32 = 3;
const SUB: usize = 1 << SUB_BITS;
/// Largest exponent with buckets of its own; larger values clamp.
const MAX_EXP: u32 = 40;
/// Number of buckets.
pub const BUCKETS: usize = SUB + (MAX_EXP - SUB_BITS + 1) as usize * SUB;

/// Bucket edges, in nanoseconds, of the cumulative buckets exported to
/// Prometheus: every power of two from 1.024 µs to 1.07 s (`+Inf` is
/// added by the exporter).
pub const EXPORT_EDGES_NANOS: [u64; 21] = {
    let mut edges = [0u64; 21];
    let mut i = 0;
    while i < edges.len() {
        edges[i] = 1 << (10 + i);
        i += 1;
    }
    edges
};

/// The bucket of `nanos`.
fn bucket_of(nanos: u64) -> usize {
    if nanos < SUB as u64 {
        return nanos as usize;
    }
    let exp = 63 - nanos.leading_zeros();
    if exp > MAX_EXP {
        return BUCKETS - 1;
    }
    let sub = (nanos >> (exp - SUB_BITS)) as usize & (SUB - 1);
    SUB + (exp - SUB_BITS) as usize * SUB + sub
}

/// The smallest value the bucket after `bucket` holds (its exclusive
/// upper edge); the last bucket's is `u64::MAX`.
fn upper_edge(bucket: usize) -> u64 {
    if bucket + 1 >= BUCKETS {
        return u64::MAX;
    }
    if bucket < SUB {
        return bucket as u64 + 1;
    }
    let offset = bucket - SUB;
    let exp = (offset / SUB) as u32 + SUB_BITS;
    let sub = (offset % SUB) as u64;
    (SUB as u64 + sub + 1) << (exp - SUB_BITS)
}

/// Latencies counted in atomic buckets; shared by reference between
/// threads (a striped structure holds one per stripe).
#[derive(Debug)]
pub struct LatencyHistogram {
    sum_nanos: AtomicU64,
    buckets: [AtomicU64; BUCKETS],
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        Self {
            sum_nanos: AtomicU64::new(0),
            buckets: std::array::from_fn(|_| AtomicU64::new(0)),
        }
    }
}

impl LatencyHistogram {
    /// Counts one operation that took `nanos`.
    pub fn record_nanos(&self, nanos: u64) {
        self.sum_nanos.fetch_add(nanos, Ordering::Relaxed);
        self.buckets[bucket_of(nanos)].fetch_add(1, Ordering::Relaxed);
    }

    /// Counts one operation that took `elapsed`.
    pub fn record(&self, elapsed: Duration) {
        self.record_nanos(u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX));
    }

    /// Adds the current values into `into` (a momentary sum, not a
    /// linearizable snapshot).
    pub fn add_to(&self, into: &mut HistogramSnapshot) {
        into.sum_nanos += self.sum_nanos.load(Ordering::Relaxed);
        for (total, bucket) in into.buckets.iter_mut().zip(&self.buckets) {
            let n = bucket.load(Ordering::Relaxed);
            *total += n;
            into.count += n;
        }
    }

    /// The current values.
    pub fn snapshot(&self) -> HistogramSnapshot {
        let mut snapshot = HistogramSnapshot::default();
        self.add_to(&mut snapshot);
        snapshot
    }

    /// Back to zero.
    pub fn reset(&self) {
        self.sum_nanos.store(0, Ordering::Relaxed);
        for bucket in &self.buckets {
            bucket.store(0, Ordering::Relaxed);
        }
    }
}

/// A histogram's values at one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistogramSnapshot {
    /// Operations counted (the sum of the buckets).
    pub count: u64,
    /// Their total duration.
    pub sum_nanos: u64,
    buckets: Vec<u64>,
}

impl Default for HistogramSnapshot {
    fn default() -> Self {
        Self {
            count: 0,
            sum_nanos: 0,
            buckets: vec![0; BUCKETS],
        }
    }
}

impl HistogramSnapshot {
    /// Adds `other` into `self`.
    pub fn merge(&mut self, other: &HistogramSnapshot) {
        self.count += other.count;
        self.sum_nanos += other.sum_nanos;
        for (a, b) in self.buckets.iter_mut().zip(&other.buckets) {
            *a += b;
        }
    }

    /// The total duration in seconds.
    pub fn sum_seconds(&self) -> f64 {
        self.sum_nanos as f64 / 1e9
    }

    /// The value at percentile `pct` (0 to 100), in nanoseconds: the
    /// highest value of the bucket holding that rank (never below the
    /// true value, at most 12.5% above it); 0 when nothing was counted.
    pub fn percentile_nanos(&self, pct: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        let rank = ((pct.clamp(0.0, 100.0) / 100.0) * self.count as f64).ceil() as u64;
        let rank = rank.max(1);
        let mut seen = 0;
        for (bucket, n) in self.buckets.iter().enumerate() {
            seen += n;
            if seen >= rank {
                return upper_edge(bucket).saturating_sub(1);
            }
        }
        u64::MAX
    }

    /// Cumulative counts at [`EXPORT_EDGES_NANOS`], edges in seconds:
    /// Prometheus's `le` buckets without `+Inf` (which is `count`).
    pub fn cumulative_seconds(&self) -> Vec<(f64, u64)> {
        let mut out = Vec::with_capacity(EXPORT_EDGES_NANOS.len());
        let mut seen = 0;
        let mut buckets = self.buckets.iter().enumerate().peekable();
        for edge in EXPORT_EDGES_NANOS {
            // Buckets whose values are all below `edge`: an edge is a
            // power of two, so bucket edges fall on it exactly.
            while let Some((_, n)) = buckets.next_if(|(b, _)| upper_edge(*b) <= edge) {
                seen += n;
            }
            out.push((edge as f64 / 1e9, seen));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn buckets_are_contiguous_and_increasing() {
        assert_eq!(bucket_of(0), 0);
        for b in 0..BUCKETS - 1 {
            let edge = upper_edge(b);
            assert_eq!(bucket_of(edge), b + 1, "edge {edge} of bucket {b}");
            assert_eq!(bucket_of(edge - 1), b, "below edge {edge}");
        }
        assert_eq!(bucket_of(u64::MAX), BUCKETS - 1);
    }

    #[test]
    fn powers_of_two_are_edges() {
        for exp in SUB_BITS..=MAX_EXP {
            let v = 1u64 << exp;
            assert_eq!(upper_edge(bucket_of(v - 1)), v, "2^{exp}");
        }
    }

    proptest! {
        #[test]
        fn bucket_width_is_an_eighth(v in 8u64..(15 << 37)) {
            let b = bucket_of(v);
            let upper = upper_edge(b);
            prop_assert!(upper > v);
            prop_assert!((upper - 1 - v) as f64 <= v as f64 / 8.0);
        }
    }

    #[test]
    fn percentiles_and_cumulative_counts() {
        let h = LatencyHistogram::default();
        for us in 1..=100u64 {
            h.record(Duration::from_micros(us));
        }
        let s = h.snapshot();
        assert_eq!(s.count, 100);
        assert_eq!(s.sum_nanos, 5050 * 1000);
        let p50 = s.percentile_nanos(50.0);
        assert!((50_000..=50_000 * 9 / 8).contains(&p50), "{p50}");
        let p100 = s.percentile_nanos(100.0);
        assert!((100_000..=112_500).contains(&p100), "{p100}");
        let cumulative = s.cumulative_seconds();
        // 2^13 ns = 8.192 µs holds 1..=8 µs; 2^17 ns = 131 µs holds all.
        let at = |edge: u64| {
            cumulative
                .iter()
                .find(|(e, _)| *e == edge as f64 / 1e9)
                .unwrap()
                .1
        };
        assert_eq!(at(1 << 13), 8);
        assert_eq!(at(1 << 16), 65);
        assert_eq!(at(1 << 17), 100);
        assert_eq!(cumulative.last().unwrap().1, 100);
        h.reset();
        assert_eq!(h.snapshot(), HistogramSnapshot::default());
        assert_eq!(HistogramSnapshot::default().percentile_nanos(99.0), 0);
    }
}
