//! `boxplot` and `median_absolute_deviation` read from a digest:
//! Elasticsearch 8.15's REST test numbers, whiskers, odd inputs.

use super::*;

fn digest(values: &[f64]) -> SpanDigest {
    let mut d = SpanDigest::default();
    values.iter().for_each(|&v| d.add(v));
    d
}

fn boxplot(values: &[f64]) -> [f64; 7] {
    BoxplotStats::of(&digest(values)).named().map(|(_, v)| v)
}

#[test]
fn elasticsearchs_boxplot_rest_test_numbers() {
    // analytics/boxplot.yml (8.9 on): min, max, q1, q2, q3, lower, upper.
    let basic = boxplot(&[2.0, 3.0, 5.0, 10.0, 15.0]);
    assert_eq!(basic, [2.0, 15.0, 3.0, 5.0, 10.0, 2.0, 15.0]);
    let missing = boxplot(&[2.0, 3.0, 5.0, 10.0, 15.0, 10000.0]);
    assert_eq!(missing, [2.0, 10000.0, 3.5, 7.5, 13.75, 2.0, 15.0]);
    // Its runtime field's values: 20, 30, 50, 10000 (for 1000), 150.
    let runtime = boxplot(&[20.0, 30.0, 50.0, 10000.0, 150.0]);
    assert_eq!(runtime, [20.0, 10000.0, 30.0, 50.0, 150.0, 20.0, 150.0]);
}

#[test]
fn whiskers_stop_at_the_last_value_within_reach() {
    // q1 2.25, q3 6.75, IQR 4.5: reach -4.5 to 13.5.
    let b = boxplot(&[-100.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 13.0, 50.0]);
    assert_eq!((b[2], b[4]), (2.25, 6.75));
    let (low, high) = (2.25 - 1.5 * 4.5, 6.75 + 1.5 * 4.5);
    assert!(-100.0 < low && low < 1.0 && 13.0 < high && high < 50.0);
    assert_eq!((b[5], b[6]), (1.0, 13.0));
}

#[test]
fn empty_and_equal_values_read_as_elasticsearchs() {
    let empty = boxplot(&[]);
    assert_eq!(empty[0], f64::INFINITY);
    assert_eq!(empty[1], f64::NEG_INFINITY);
    assert!(empty[2..6].iter().all(|v| v.is_nan()));
    assert_eq!(empty[6], f64::NEG_INFINITY);
    // IQR 0: no value is above q1, so no lower whisker.
    let same = boxplot(&[5.0, 5.0, 5.0]);
    assert_eq!(same[..5], [5.0; 5]);
    assert!(same[5].is_nan());
    assert_eq!(same[6], 5.0);
    assert_eq!(median_absolute_deviation(&digest(&[])), None);
    assert_eq!(median_absolute_deviation(&digest(&[5.0, 5.0])), Some(0.0));
}

#[test]
fn elasticsearchs_median_absolute_deviation_rest_test_numbers() {
    // median_absolute_deviation_metric.yml: 100, 200, 300 give 100;
    // 1000, 2000 and a missing 3000 give 1000.
    let mad = |v: &[f64]| median_absolute_deviation(&digest(v));
    assert_eq!(mad(&[100.0, 200.0, 300.0]), Some(100.0));
    assert_eq!(mad(&[1000.0, 2000.0, 3000.0]), Some(1000.0));
    // An even count: medians interpolated (median 2.5, deviations 0.5,
    // 0.5, 1.5, 1.5).
    assert_eq!(mad(&[1.0, 2.0, 3.0, 4.0]), Some(1.0));
    // Ratings of Elasticsearch's docs example shape: 1 to 5 stars.
    assert_eq!(mad(&[1.0, 1.0, 3.0, 5.0, 5.0]), Some(2.0));
}

#[test]
fn past_the_exact_values_answers_stay_near_the_exact_ones() {
    // 10,000 values 0..1000 in a shuffled order: quartiles 250, 500, 750,
    // deviations from 500 uniform on 0..500 (median 250).
    let values: Vec<f64> = (0..10_000u64)
        .map(|i| ((i * 7919) % 10_000) as f64 / 10.0)
        .collect();
    let d = digest(&values);
    assert!(d.held().is_some_and(|h| !h.exact), "past the exact values");
    let b = BoxplotStats::of(&d);
    let near = |got: f64, want: f64| (got - want).abs() <= 10.0;
    assert_eq!((b.min, b.max), (0.0, 999.9));
    for (got, want) in [(b.q1, 250.0), (b.q2, 500.0), (b.q3, 750.0)] {
        assert!(near(got, want), "{got} vs {want}");
    }
    // Reach -500..1500: every value within, whiskers at the extremes'
    // centroids.
    assert!(near(b.lower, 0.0) && near(b.upper, 999.9), "{b:?}");
    let mad = median_absolute_deviation(&d).unwrap();
    assert!(near(mad, 250.0), "{mad}");
}

#[test]
fn odd_inputs_never_panic() {
    for values in [
        vec![f64::MAX, -f64::MAX],
        vec![f64::NAN, 1.0],
        vec![f64::INFINITY],
        vec![0.0; 2001],
        (0..2500).map(|i| -f64::from(i) * 1e300).collect(),
    ] {
        let d = digest(&values);
        let _ = BoxplotStats::of(&d);
        let _ = median_absolute_deviation(&d);
    }
}
