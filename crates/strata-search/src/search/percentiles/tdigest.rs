//! How Elasticsearch's t-digest reads a value's percentile and a
//! percentile's value from centroids: each centroid (a mean and a count)
//! stands for its values. These functions read Strata's sketches the
//! same way past their exact values: a
//! [`LogHistogram`](super::sketch::LogHistogram)'s buckets (at their
//! middles), or a digest's centroids for `boxplot` and
//! `median_absolute_deviation`. (Exact values are read as plain sorted
//! values, as Elasticsearch 8.9 and later read its sorting digest:
//! `sorting.rs`.)
//!
//! - [`quantile`]: centroid `i` stands at rank `below_i + count_i / 2`
//!   of the `total`, the smallest value at rank 0 and the largest at
//!   `total`; the value at rank `q * total` is interpolated linearly
//!   between the two points around it. Over single values that is the
//!   sorted values at ranks `i + 0.5`: the smallest below `0.5 / n`, the
//!   largest from `1 - 0.5 / n` up, so 1, 51, 101 and 151 give 1, 26, 76,
//!   126 and 151 at 5, 25, 50, 75 and 95 percent, and 51, 101 and 151
//!   give 63.5 at 25 (the answers of Elasticsearch's t-digest before 8.9,
//!   which read every value as a centroid).
//! - [`share`]: a value's rank, each centroid's count spread evenly from
//!   halfway to the previous centroid to halfway to the next (the outer
//!   ones as wide on their open side as on the other): so 1, 51, 101
//!   and 151 rank 50 at 37% and 99 at 61.5%, the three from 51 rank 50
//!   at 16% (likewise before 8.9).

/// The value at quantile `q` (0 to 1) of `centroids` (ascending means,
/// not empty, each count above zero) of values within `min..=max`.
pub(super) fn quantile(centroids: &[(f64, u64)], min: f64, max: f64, q: f64) -> f64 {
    let total: f64 = centroids.iter().map(|c| c.1 as f64).sum();
    let index = q.clamp(0.0, 1.0) * total;
    // The point before `index`: (rank, value), from the smallest value.
    let mut previous = (0.0, min);
    let mut below = 0.0;
    let points = centroids
        .iter()
        .map(|&(mean, count)| {
            let rank = below + count as f64 / 2.0;
            below += count as f64;
            (rank, mean)
        })
        .chain(std::iter::once((total, max)));
    for (rank, value) in points {
        if index <= rank {
            let (r0, v0) = previous;
            // Ranks strictly increase (counts are above zero), but a
            // rank equal to the first point's (index 0) takes it as is.
            if rank <= r0 {
                return v0;
            }
            return v0 + (value - v0) * ((index - r0) / (rank - r0));
        }
        previous = (rank, value);
    }
    max
}

/// The share (0 to 1) at or below `x` of `centroids` (ascending, not
/// empty) of values within `min..=max`.
pub(super) fn share(centroids: &[(f64, u64)], min: f64, max: f64, x: f64) -> f64 {
    let total: f64 = centroids.iter().map(|c| c.1 as f64).sum();
    let [(first, _), (second, _), ..] = centroids else {
        // One centroid: nothing to interpolate between.
        return if x < min {
            0.0
        } else if x > max {
            1.0
        } else {
            0.5
        };
    };
    let spread = |below: f64, (mean, count): (f64, u64), left: f64, right: f64| {
        let along = (x - (mean - left)) / (left + right);
        ((below + count as f64 * along) / total).max(0.0)
    };
    let mut left = (second - first) / 2.0;
    let mut below = 0.0;
    for pair in centroids.windows(2) {
        let right = (pair[1].0 - pair[0].0) / 2.0;
        if x < pair[0].0 + right {
            return spread(below, pair[0], left, right);
        }
        below += pair[0].1 as f64;
        left = right;
    }
    let last = centroids[centroids.len() - 1];
    if x < last.0 + left {
        return spread(below, last, left, left);
    }
    1.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn singles(values: &[f64]) -> Vec<(f64, u64)> {
        values.iter().map(|&v| (v, 1)).collect()
    }

    #[test]
    fn single_values_read_as_centroids() {
        let four = singles(&[1.0, 51.0, 101.0, 151.0]);
        let at = |q: f64| quantile(&four, 1.0, 151.0, q);
        let got = [0.0, 0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99, 1.0].map(at);
        assert_eq!(got, [1.0, 1.0, 1.0, 26.0, 76.0, 126.0, 151.0, 151.0, 151.0]);
        let three = singles(&[51.0, 101.0, 151.0]);
        let at = |q: f64| quantile(&three, 51.0, 151.0, q);
        let got = [0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99].map(at);
        assert_eq!(got, [51.0, 51.0, 63.5, 101.0, 138.5, 151.0, 151.0]);
        // The largest value from 1 - 0.5/n up, the smallest to 0.5/n.
        assert_eq!(quantile(&three, 51.0, 151.0, 1.0 - 0.5 / 3.0), 151.0);
        assert_eq!(quantile(&three, 51.0, 151.0, 0.5 / 3.0), 51.0);
    }

    #[test]
    fn one_centroid_and_odd_quantiles_stay_within_the_values() {
        let one = [(5.0, 3)];
        assert_eq!(quantile(&one, 5.0, 5.0, 0.5), 5.0);
        // Values spread within one bucket: from the smallest to the largest.
        let spread = [(10.0, 4)];
        assert_eq!(quantile(&spread, 8.0, 12.0, 0.0), 8.0);
        assert_eq!(quantile(&spread, 8.0, 12.0, 0.5), 10.0);
        assert_eq!(quantile(&spread, 8.0, 12.0, 1.0), 12.0);
        let v = quantile(&spread, 8.0, 12.0, f64::NAN);
        assert!(v.is_nan() || (8.0..=12.0).contains(&v), "{v}");
        for q in [0.0, 0.1, 0.3, 0.6, 0.9, 1.0, 7.0, -1.0] {
            let v = quantile(&singles(&[1.0, 2.0, 2.0, 9.0]), 1.0, 9.0, q);
            assert!((1.0..=9.0).contains(&v), "{q}: {v}");
        }
    }
}
