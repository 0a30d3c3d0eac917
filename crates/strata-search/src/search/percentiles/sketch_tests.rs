//! [`LogHistogram`]'s tests: values within 0.4% of themselves, blocks
//! added as single values, edges.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::*;

impl LogHistogram {
    /// The value at `percent` (0 to 100): the smallest value at 0, the
    /// largest at 100, else the middle of the bucket of the value ranked
    /// `percent / 100 * (count - 1)` (rounded down), kept within the
    /// smallest and the largest value; `None` when empty. The rank is the
    /// one tantivy's percentiles use.
    fn percentile(&self, percent: f64) -> Option<f64> {
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
