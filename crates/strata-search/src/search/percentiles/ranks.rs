//! The percentile rank of a value in a [`LogHistogram`], for
//! `percentile_ranks`: the share of values at or below it, as
//! Elasticsearch 8's default t-digest reports it. Each nonempty bucket is
//! a centroid at its middle (kept within the smallest and largest value)
//! whose count is spread evenly from halfway to the previous centroid to
//! halfway to the next (the outer ones as wide on their open side as on
//! the other); a value's rank is the count spread below it. So four
//! values 1, 51, 101 and 151 rank 50 at 37% (not the 25% of an exact
//! count), the three of them from 51 rank 50 at 16%, and one value
//! repeated ranks anything above it at 100%: Elasticsearch's answers in
//! its REST tests (`420_percentile_ranks_tdigest_metric.yml`).

use super::sketch::LogHistogram;

/// The percent (0 to 100) of the values of `histogram` at or below
/// `value`; `None` when the histogram is empty or `value` is NaN.
pub(crate) fn percent_rank(histogram: &LogHistogram, value: f64) -> Option<f64> {
    let (min, max) = histogram.extremes()?;
    if value.is_nan() {
        return None;
    }
    Some(100.0 * share(&histogram.centroids(), min, max, value))
}

/// The share (0 to 1) at or below `x` of `centroids` (ascending, not
/// empty) of values within `min..=max`.
fn share(centroids: &[(f64, u64)], min: f64, max: f64, x: f64) -> f64 {
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

    fn histogram(values: &[f64]) -> LogHistogram {
        let mut h = LogHistogram::default();
        values.iter().for_each(|&v| h.add(v));
        h
    }

    #[test]
    fn ranks_interpolate_between_centroids_as_elasticsearchs_tdigest() {
        // Elasticsearch's REST test (420_percentile_ranks_tdigest_metric):
        // 37.0 and 61.5, within 1.
        let h = histogram(&[1.0, 51.0, 101.0, 151.0]);
        let at = |v| percent_rank(&h, v).unwrap();
        assert!((at(50.0) - 37.0).abs() < 0.2, "{}", at(50.0));
        assert!((at(99.0) - 61.5).abs() < 0.2, "{}", at(99.0));
        // The filtered set (51, 101, 151): 50 ranks 16.0, within 1.
        let h3 = histogram(&[51.0, 101.0, 151.0]);
        let r = percent_rank(&h3, 50.0).unwrap();
        assert!((r - 16.0).abs() < 1.0, "{r}");
        assert_eq!(at(-30.0), 0.0);
        assert!((at(151.0) - 87.5).abs() < 0.2);
        assert_eq!(at(1000.0), 100.0);
    }

    #[test]
    fn one_value_repeated_ranks_none_half_or_all() {
        let h = histogram(&[1.0; 4]);
        assert_eq!(percent_rank(&h, 50.0), Some(100.0));
        assert_eq!(percent_rank(&h, 1.0), Some(50.0));
        assert_eq!(percent_rank(&h, 0.5), Some(0.0));
    }

    #[test]
    fn ranks_grow_with_the_value_across_signs() {
        let h = histogram(&[-8.0, -2.0, 0.0, 0.0, 3.0, 9.0, 27.0]);
        let mut last = 0.0;
        for v in [
            -9.0, -8.0, -5.0, -2.0, -1.0, 0.0, 1.0, 3.0, 5.0, 9.0, 20.0, 27.0,
        ] {
            let r = percent_rank(&h, v).unwrap();
            assert!(r >= last && (0.0..=100.0).contains(&r), "{v}: {r} < {last}");
            last = r;
        }
        assert_eq!(percent_rank(&LogHistogram::default(), 1.0), None);
        assert_eq!(percent_rank(&h, f64::NAN), None);
    }
}
