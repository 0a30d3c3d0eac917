//! How Elasticsearch 8.9 and later read a digest's exact values. Since
//! 8.9 its default t-digest keeps its first values exactly (a sorting
//! digest, 2,000 at the default compression) and reads them as plain
//! sorted values (its `Dist`), not as centroids:
//!
//! - [`quantile`]: the value at index `q * (n - 1)` of the `n` sorted
//!   values, interpolated linearly between the two around it, the ends
//!   outside. 1, 51, 101 and 151 give 2.5, 8.5, 38.5, 76, 113.5, 143.5
//!   and 149.5 at 1, 5, 25, 50, 75, 95 and 99 percent (its REST test
//!   `percentiles_tdigest_metric.yml`, "Basic test" from 8.9 on); 2, 3, 5,
//!   10 and 15 give 3, 5 and 10 at 25, 50 and 75 (`analytics/boxplot.yml`).
//! - [`share`]: the values below `x` plus half of those equal to it, over
//!   `n`: 1, 51, 101 and 151 rank 50 at 25%, 100 at 50%, 200 at 100%; 51,
//!   101 and 151 rank 100 at 33.3% (`percentile_ranks_tdigest_metric.yml`).
//!
//! Past the exact values the digest is read between centroids as
//! Elasticsearch's merging digest reads them (`tdigest.rs`).

/// The value at quantile `q` (0 to 1) of `values`: `(value, count)`
/// ascending, not empty, each count 1 (each exact value its own).
pub(crate) fn quantile(values: &[(f64, u64)], q: f64) -> f64 {
    let last = values.len() - 1;
    let index = q * last as f64;
    if index.is_nan() || index <= 0.0 {
        return values[0].0;
    }
    if index >= last as f64 {
        return values[last].0;
    }
    // 0 < index < last, so `low + 1` is within the values.
    let low = index.floor() as usize;
    let weight = index - low as f64;
    let (a, b) = (values[low].0, values[low + 1].0);
    a + weight * (b - a)
}

/// The share (0 to 1) of `values` (`(value, count)` ascending, equal
/// values in one entry or several) below `x`, plus half of those equal.
pub(crate) fn share(values: &[(f64, u64)], x: f64) -> f64 {
    let (mut below, mut equal, mut total) = (0u64, 0u64, 0u64);
    for &(v, n) in values {
        total += n;
        if v < x {
            below += n;
        } else if v == x {
            equal += n;
        }
    }
    if total == 0 {
        return f64::NAN;
    }
    (below as f64 + equal as f64 / 2.0) / total as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn singles(values: &[f64]) -> Vec<(f64, u64)> {
        values.iter().map(|&v| (v, 1)).collect()
    }

    #[test]
    fn elasticsearchs_rest_test_numbers() {
        let four = singles(&[1.0, 51.0, 101.0, 151.0]);
        let got = [0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99].map(|q| quantile(&four, q));
        assert_eq!(got, [2.5, 8.5, 38.5, 76.0, 113.5, 143.5, 149.5]);
        let five = singles(&[2.0, 3.0, 5.0, 10.0, 15.0]);
        assert_eq!(
            [0.25, 0.5, 0.75].map(|q| quantile(&five, q)),
            [3.0, 5.0, 10.0]
        );
        let ranks = [50.0, 100.0, 150.0, 200.0].map(|x| share(&four, x) * 100.0);
        assert_eq!(ranks, [25.0, 50.0, 75.0, 100.0]);
        let three = singles(&[51.0, 101.0, 151.0]);
        let ranks = [50.0, 100.0, 150.0, 200.0].map(|x| share(&three, x) * 100.0);
        assert_eq!(
            ranks.map(|r| (r * 10.0).floor() / 10.0),
            [0.0, 33.3, 66.6, 100.0]
        );
    }

    #[test]
    fn ends_equal_values_and_odd_inputs() {
        assert_eq!(quantile(&[(1.0, 1), (3.0, 1)], f64::NAN), 1.0);
        assert_eq!(quantile(&[(1.0, 1), (3.0, 1)], 0.5), 2.0);
        assert_eq!(quantile(&[(1.0, 1), (3.0, 1)], 2.0), 3.0);
        assert_eq!(quantile(&[(7.0, 1)], 0.3), 7.0);
        // One value: below it 0, at it half, above it all.
        assert_eq!(
            [6.0, 7.0, 8.0].map(|x| share(&[(7.0, 1)], x)),
            [0.0, 0.5, 1.0]
        );
        // Equal values counted together or apart rank the same.
        let apart = share(&[(1.0, 1), (2.0, 1), (2.0, 1), (9.0, 1)], 2.0);
        assert_eq!(apart, share(&[(1.0, 1), (2.0, 2), (9.0, 1)], 2.0));
        assert_eq!(apart, 0.5);
    }
}
