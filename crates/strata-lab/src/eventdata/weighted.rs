//! [`Weighted`]: a fixed table of values drawn at random in proportion to their weights,
//! and [`zipf_weights`] for tables whose skew follows rank.

use rand::Rng;

/// Values with weights, sampled by binary search over the cumulative weights.
///
/// Invariant: `cumulative` is strictly increasing, as long as `values`, and its last entry
/// is the total weight (positive).
#[derive(Debug, Clone)]
pub struct Weighted<T> {
    values: Vec<T>,
    cumulative: Vec<f64>,
}

impl<T> Weighted<T> {
    /// A table of `(value, weight)` pairs; zero weights are dropped.
    ///
    /// # Panics
    /// If no pair has a positive finite weight: tables are built from the static data of
    /// this module, so that is a programming error.
    pub fn new(pairs: impl IntoIterator<Item = (T, f64)>) -> Self {
        let mut values = Vec::new();
        let mut cumulative = Vec::new();
        let mut total = 0.0;
        for (value, weight) in pairs {
            if weight.is_finite() && weight > 0.0 {
                total += weight;
                values.push(value);
                cumulative.push(total);
            }
        }
        assert!(
            !values.is_empty(),
            "a weighted table needs a positive weight"
        );
        Self { values, cumulative }
    }

    /// A value drawn with probability weight / total.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> &T {
        let total = self.cumulative[self.cumulative.len() - 1];
        let point = rng.gen::<f64>() * total;
        let at = self.cumulative.partition_point(|&c| c <= point);
        &self.values[at.min(self.values.len() - 1)]
    }

    /// The values in insertion order.
    #[cfg(test)]
    pub fn values(&self) -> &[T] {
        &self.values
    }
}

/// Weights `1 / rank^exponent` for ranks 1..=n: the first value is the most frequent.
pub fn zipf_weights(n: usize, exponent: f64) -> impl Iterator<Item = f64> {
    (1..=n).map(move |rank| (rank as f64).powf(-exponent))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::SeedableRng;

    #[test]
    fn samples_follow_the_weights() {
        let table = Weighted::new([("a", 6.0), ("b", 3.0), ("zero", 0.0), ("c", 1.0)]);
        assert_eq!(table.values(), ["a", "b", "c"]);
        let mut rng = StdRng::seed_from_u64(7);
        let mut counts = [0u32; 3];
        for _ in 0..100_000 {
            let at = match *table.sample(&mut rng) {
                "a" => 0,
                "b" => 1,
                _ => 2,
            };
            counts[at] += 1;
        }
        let share = |i: usize| f64::from(counts[i]) / 100_000.0;
        assert!((share(0) - 0.6).abs() < 0.01, "{counts:?}");
        assert!((share(1) - 0.3).abs() < 0.01, "{counts:?}");
        assert!((share(2) - 0.1).abs() < 0.01, "{counts:?}");
    }

    #[test]
    fn zipf_weights_fall_with_rank() {
        let w: Vec<f64> = zipf_weights(4, 1.0).collect();
        assert_eq!(w, [1.0, 0.5, 1.0 / 3.0, 0.25]);
    }
}
