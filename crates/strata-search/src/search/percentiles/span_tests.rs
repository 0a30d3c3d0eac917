//! [`SpanDigest`]'s tests: exact answers for few values, answers within
//! 0.4% of the distance from the base past [`EXACT_VALUES`], merges.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::*;

const DAY: f64 = 86_400_000.0;
/// 2024-01-01T00:00:00Z.
const JAN1: f64 = 1_704_067_200_000.0;

fn digest(base: f64, values: &[f64]) -> SpanDigest {
    let mut d = SpanDigest::new(base);
    values.iter().for_each(|&v| d.add(v));
    d
}

#[test]
fn few_dates_give_exact_percentiles_and_ranks() {
    // Five days of January 2024: the 1st, 3rd, 10th, 20th and 31st.
    let days = [0.0, 2.0, 9.0, 19.0, 30.0].map(|d| JAN1 + d * DAY);
    // In any order, in parts merged in any order.
    let mut d = digest(JAN1, &[days[3], days[0]]);
    d.merge(digest(JAN1, &[days[4], days[2], days[1]]));
    let got = d.percentiles(&[0.0, 1.0, 25.0, 50.0, 75.0, 99.0, 100.0]);
    let want = [
        days[0],
        // Index 0.04 of 0..4: 4% of the way from the 1st to the 3rd.
        days[0] + 0.04 * (days[1] - days[0]),
        days[1],
        days[2],
        days[3],
        days[3] + 0.96 * (days[4] - days[3]),
        days[4],
    ];
    assert_eq!(got, want.map(Some).to_vec());
    // The 10th ranks (2 below + half of itself) / 5.
    let ranks = d.percent_ranks(&[JAN1 - DAY, days[2], JAN1 + 365.0 * DAY, f64::NAN]);
    assert_eq!(ranks, vec![Some(0.0), Some(50.0), Some(100.0), None]);
}

#[test]
fn one_date_and_no_date() {
    let d = digest(JAN1, &[JAN1 + DAY; 3]);
    assert_eq!(d.percentiles(&[0.0, 50.0, 99.0]), vec![Some(JAN1 + DAY); 3]);
    assert_eq!(
        d.percent_ranks(&[JAN1, JAN1 + DAY, JAN1 + 2.0 * DAY]),
        vec![Some(0.0), Some(50.0), Some(100.0)]
    );
    let empty = SpanDigest::new(JAN1);
    assert_eq!(empty.percentiles(&[50.0]), vec![None]);
    assert_eq!(empty.percent_ranks(&[JAN1]), vec![None]);
    let mut skipped = SpanDigest::new(f64::NAN);
    skipped.add(f64::NAN);
    skipped.add(f64::INFINITY);
    assert_eq!(skipped.count(), 0);
}

#[test]
fn past_the_exact_values_answers_stay_within_the_span() {
    let mut rng = StdRng::seed_from_u64(9);
    // Ten thousand dates over a month, and over twenty years.
    for span in [31.0 * DAY, 20.0 * 365.0 * DAY] {
        let values: Vec<f64> = (0..10_000)
            .map(|_| (JAN1 + rng.gen_range(0.0..span)).floor())
            .collect();
        let base = values.iter().copied().fold(f64::INFINITY, f64::min);
        // Three parts, as segments: two overflow on their own, one not.
        let mut d = digest(base, &values[..4_500]);
        d.merge(digest(base, &values[4_500..9_000]));
        d.merge(digest(base, &values[9_000..]));
        assert_eq!(d.count(), 10_000);
        let mut sorted = values.clone();
        sorted.sort_by(f64::total_cmp);
        for (p, got) in [1.0, 25.0, 50.0, 75.0, 99.0]
            .iter()
            .zip(d.percentiles(&[1.0, 25.0, 50.0, 75.0, 99.0]))
        {
            let exact = sorted[(p / 100.0 * 9_999.0) as usize];
            let got = got.unwrap();
            // 0.4% of the distance from the base, plus a rank's share of
            // the span (interpolation between neighbours).
            let within = (exact - base) / 256.0 + span / 1_000.0;
            assert!(
                (got - exact).abs() <= within,
                "p{p} over {span}: {got} against {exact}"
            );
        }
        // The extremes are the values themselves.
        assert_eq!(
            d.percentiles(&[0.0, 100.0]),
            vec![Some(sorted[0]), Some(sorted[9_999])]
        );
        // Memory stays small: the histogram of offsets, not the values.
        assert!(d.held_bytes() < 64 << 10, "{}", d.held_bytes());
    }
}

#[test]
fn values_below_the_base_still_count() {
    let values: Vec<f64> = (0..3_000).map(|i| JAN1 + f64::from(i) * 1_000.0).collect();
    // The base is the middle: half the offsets are negative.
    let d = digest(JAN1 + 1_500_000.0, &values);
    let got = d.percentiles(&[0.0, 50.0, 100.0]);
    assert_eq!(got[0], Some(JAN1));
    assert_eq!(got[2], Some(JAN1 + 2_999_000.0));
    let median = got[1].unwrap();
    assert!((median - (JAN1 + 1_500_000.0)).abs() < 20_000.0, "{median}");
    let ranks = d.percent_ranks(&[JAN1 + 750_000.0]);
    assert!((ranks[0].unwrap() - 25.0).abs() < 1.0, "{ranks:?}");
}

#[test]
fn elasticsearchs_rest_test_numbers() {
    // percentiles_tdigest_metric ("Basic test", 8.9 on) and
    // percentile_ranks_tdigest_metric.
    let d = digest(f64::NAN, &[151.0, 1.0, 101.0, 51.0]);
    let got = d.percentiles(&[1.0, 5.0, 25.0, 50.0, 75.0, 95.0, 99.0]);
    let want = [2.5, 8.5, 38.5, 76.0, 113.5, 143.5, 149.5];
    assert_eq!(got, want.map(Some).to_vec());
    let ranks = d.percent_ranks(&[50.0, 100.0, 150.0, 200.0]);
    assert_eq!(ranks, [25.0, 50.0, 75.0, 100.0].map(Some).to_vec());
    let three = digest(f64::NAN, &[51.0, 101.0, 151.0]);
    assert_eq!(
        three.percentiles(&[25.0, 75.0]),
        vec![Some(76.0), Some(126.0)]
    );
    let r = three.percent_ranks(&[100.0, 150.0]);
    assert!((r[0].unwrap() - 100.0 / 3.0).abs() < 1e-9, "{r:?}");
    assert!((r[1].unwrap() - 200.0 / 3.0).abs() < 1e-9, "{r:?}");
    // One value repeated ranks none, half or all.
    let same = digest(f64::NAN, &[1.0; 4]);
    assert_eq!(
        same.percent_ranks(&[0.5, 1.0, 50.0]),
        vec![Some(0.0), Some(50.0), Some(100.0)]
    );
}

/// Values `n` of a spread around `center`, some negative.
fn spread(rng: &mut StdRng, n: usize, center: f64, width: f64) -> Vec<f64> {
    (0..n)
        .map(|_| center + rng.gen_range(-width..width))
        .collect()
}

#[test]
fn parts_of_their_own_base_merge_within_the_span() {
    let mut rng = StdRng::seed_from_u64(17);
    // Near zero across signs, and far from zero (1e9 plus a few hundred).
    for (center, width) in [(0.0, 500.0), (1.0e9, 300.0), (-2.0e12, 1.0e6)] {
        let values = spread(&mut rng, 12_000, center, width);
        // Parts whose bases differ (each its first values' smallest),
        // merged into an exact one, and the other way round.
        let mut d = digest(f64::NAN, &values[..1_000]);
        for chunk in values[1_000..].chunks(2_750) {
            d.merge(digest(f64::NAN, chunk));
        }
        let mut other = digest(f64::NAN, &values[5_000..]);
        other.merge(digest(f64::NAN, &values[..5_000]));
        let mut sorted = values.clone();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len() as f64;
        for d in [&d, &other] {
            for p in [1.0, 10.0, 25.0, 50.0, 75.0, 90.0, 99.0] {
                let got = d.percentiles(&[p])[0].unwrap();
                let exact = sorted[(p / 100.0 * (n - 1.0)) as usize];
                // Two 0.4% steps of the span (a rebased merge), plus a
                // rank's share of it.
                let within = 2.0 * width * 2.0 / 256.0 + 2.0 * width / 1_000.0;
                assert!((got - exact).abs() <= within, "p{p}: {got} vs {exact}");
            }
            let at = sorted[(n / 3.0) as usize];
            let rank = d.percent_ranks(&[at])[0].unwrap();
            assert!((rank - 100.0 / 3.0).abs() < 1.5, "{rank}");
        }
    }
}

#[test]
fn blocks_add_as_single_values() {
    let mut rng = StdRng::seed_from_u64(23);
    let values = spread(&mut rng, 5_000, 1.0e6, 1.0e3);
    let mut one = SpanDigest::default();
    values.iter().for_each(|&v| one.add(v));
    let mut block = SpanDigest::default();
    for chunk in values.chunks(64) {
        block.add_all(chunk);
    }
    let percents = [0.0, 1.0, 50.0, 99.9, 100.0];
    assert_eq!(block.percentiles(&percents), one.percentiles(&percents));
    assert_eq!(block.count(), 5_000);
}
