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
//! its REST tests (`420_percentile_ranks_tdigest_metric.yml`). The
//! spreading is `tdigest::share`'s, which a date's [`SpanDigest`]
//! (`span.rs`) reads its ranks with too.
//!
//! [`SpanDigest`]: super::SpanDigest

use super::sketch::LogHistogram;
use super::tdigest::share;

/// The percent (0 to 100) of the values of `histogram` at or below
/// `value`; `None` when the histogram is empty or `value` is NaN.
pub(crate) fn percent_rank(histogram: &LogHistogram, value: f64) -> Option<f64> {
    let (min, max) = histogram.extremes()?;
    if value.is_nan() {
        return None;
    }
    Some(100.0 * share(&histogram.centroids(), min, max, value))
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
