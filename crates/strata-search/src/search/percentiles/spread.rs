//! `boxplot` ([`BoxplotStats`]) and `median_absolute_deviation`
//! ([`median_absolute_deviation`]) read from a [`SpanDigest`] as
//! Elasticsearch 8.15 reads its default t-digest for them.
//!
//! Since 8.9 that digest keeps its first values exactly (a sorting
//! digest, up to 20 times `compression` values: 2,000 at boxplot's
//! default, 20,000 at median_absolute_deviation's) and reads quantile `q`
//! of its `n` sorted values at index `q * (n - 1)`, interpolated linearly
//! between the two values around it (`sorting.rs`): 2, 3, 5, 10
//! and 15 give 3, 5 and 10 at 25, 50 and 75 percent, and with 10000
//! added 3.5, 7.5 and 13.75 (its REST test `analytics/boxplot.yml`).
//! Strata's digest keeps 2,000 values exactly whatever the compression;
//! past them (a log histogram) it is read between centroids as
//! `tdigest.rs` reads them, as Elasticsearch's merging digest is, so
//! answers are approximate there (within about 1% of the data's span,
//! see `span.rs`), as Elasticsearch's are past its exact values.
//!
//! - Boxplot whiskers (Elasticsearch's `InternalBoxplot.whiskers`): over
//!   the ascending centroids (each exact value one), `lower` is the first
//!   above `q1 - 1.5 * IQR`, `upper` the one before the first above
//!   `q3 + 1.5 * IQR`, or the largest value when none is. So equal values
//!   (IQR 0) have no `lower` (NaN), as in Elasticsearch. An empty digest
//!   reads as Elasticsearch's empty one: `min` infinity, `max` and
//!   `upper` minus infinity, the rest NaN.
//! - Median absolute deviation (Elasticsearch's
//!   `computeMedianAbsoluteDeviation`): the digest's median, then the
//!   median of each centroid's distance from it (weighted by its count)
//!   read the same way; 100, 200 and 300 give 100.

use super::sorting;
use super::span::{Held, SpanDigest};
use super::tdigest::quantile;

/// Elasticsearch's whisker reach, in interquartile ranges.
const IQR_MULTIPLIER: f64 = 1.5;

/// A boxplot's numbers, as Elasticsearch 8 computes them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct BoxplotStats {
    pub(crate) min: f64,
    pub(crate) max: f64,
    pub(crate) q1: f64,
    pub(crate) q2: f64,
    pub(crate) q3: f64,
    pub(crate) lower: f64,
    pub(crate) upper: f64,
}

impl BoxplotStats {
    /// The boxplot of `digest`'s values (Elasticsearch's empty one when
    /// there are none).
    pub(crate) fn of(digest: &SpanDigest) -> BoxplotStats {
        let Some(held) = digest.held() else {
            return BoxplotStats {
                min: f64::INFINITY,
                max: f64::NEG_INFINITY,
                q1: f64::NAN,
                q2: f64::NAN,
                q3: f64::NAN,
                lower: f64::NAN,
                upper: f64::NEG_INFINITY,
            };
        };
        let (q1, q2, q3) = (at(&held, 0.25), at(&held, 0.5), at(&held, 0.75));
        let (lower, upper) = whiskers(&held, q1, q3);
        BoxplotStats {
            min: held.min,
            max: held.max,
            q1,
            q2,
            q3,
            lower,
            upper,
        }
    }

    /// The numbers in the order Elasticsearch writes them, by name.
    pub(crate) fn named(&self) -> [(&'static str, f64); 7] {
        [
            ("min", self.min),
            ("max", self.max),
            ("q1", self.q1),
            ("q2", self.q2),
            ("q3", self.q3),
            ("lower", self.lower),
            ("upper", self.upper),
        ]
    }
}

/// The median absolute deviation of `digest`'s values; `None` when empty.
pub(crate) fn median_absolute_deviation(digest: &SpanDigest) -> Option<f64> {
    let held = digest.held()?;
    let median = at(&held, 0.5);
    let mut list: Vec<(f64, u64)> = held
        .list
        .iter()
        .map(|&(v, n)| ((median - v).abs(), n))
        .collect();
    list.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (min, max) = (list.first()?.0, list.last()?.0);
    let deviations = Held {
        list,
        min,
        max,
        exact: held.exact,
    };
    Some(at(&deviations, 0.5))
}

/// The value at quantile `q` (0 to 1) of `held`.
fn at(held: &Held, q: f64) -> f64 {
    if held.exact {
        sorting::quantile(&held.list, q)
    } else {
        quantile(&held.list, held.min, held.max, q)
    }
}

/// `(lower, upper)` whisker ends of `held` for quartiles `q1` and `q3`.
fn whiskers(held: &Held, q1: f64, q3: f64) -> (f64, f64) {
    let iqr = q3 - q1;
    let (low, high) = (q1 - IQR_MULTIPLIER * iqr, q3 + IQR_MULTIPLIER * iqr);
    let list = &held.list;
    let lower = list
        .iter()
        .map(|c| c.0)
        .find(|&v| v > low)
        .unwrap_or(f64::NAN);
    // The first centroid is at most q3 (so never above `high`), but
    // should one be, it is its own whisker rather than none.
    let upper = match list.iter().position(|c| c.0 > high) {
        Some(0) => list[0].0,
        Some(i) => list[i - 1].0,
        None => held.max,
    };
    (lower, upper)
}

#[cfg(test)]
#[path = "spread_tests.rs"]
mod tests;
