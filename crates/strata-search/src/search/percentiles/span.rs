//! [`SpanDigest`]: the values of a date field (epoch milliseconds, about
//! 1.7e12 today) for `percentiles` and `percentile_ranks`, kept so that
//! an answer is off by a share of the data's span rather than of the
//! value: [`LogHistogram`] alone keeps a value within 0.4% of itself,
//! about 80 days for a date in millis.
//!
//! Up to [`EXACT_VALUES`] values are kept as they are (Elasticsearch's
//! default t-digest too keeps its first 2,000 values exactly), and the
//! answers are exact, read as Elasticsearch's t-digest reads them
//! (`tdigest.rs`). Past that, every value goes to a log histogram as its
//! offset from a base fixed before collecting (the caller's: the smallest
//! value the field's columns hold), so it is kept within 0.4% of its
//! distance from the base: for a month of data, within 3 hours.
//!
//! Invariant: parts merged together share their base (each is made by
//! [`SpanDigest::new`] with the one base of the search). A value below the
//! base (a segment refreshed after the base was read) is still counted,
//! as a negative offset.
//!
//! Memory: at most [`EXACT_VALUES`] values (16 KiB), then the histogram's
//! counts: offsets of whole milliseconds span at most 64 powers of two
//! per sign, 128 counts each (64 KiB per sign at worst).

use super::sketch::LogHistogram;
use super::tdigest::{quantile, share};

/// The values kept exactly before they go to the offsets' histogram.
pub(crate) const EXACT_VALUES: usize = 2000;

/// See the module docs.
#[derive(Debug, Clone, Default)]
pub(crate) struct SpanDigest {
    /// The value offsets are taken from.
    base: f64,
    /// Every value added (at most [`EXACT_VALUES`]), while `offsets` is
    /// `None`; empty after.
    exact: Vec<f64>,
    /// `value - base` of every value, once more than [`EXACT_VALUES`]
    /// came.
    offsets: Option<LogHistogram>,
}

/// What answers are read from: ascending centroids of values within
/// `min..=max`, each `shift` below the values it stands for.
struct Centroids {
    list: Vec<(f64, u64)>,
    min: f64,
    max: f64,
    shift: f64,
}

impl SpanDigest {
    /// An empty digest whose offsets are taken from `base` (0 when it is
    /// not finite).
    pub(crate) fn new(base: f64) -> SpanDigest {
        SpanDigest {
            base: if base.is_finite() { base } else { 0.0 },
            ..SpanDigest::default()
        }
    }

    /// Adds one value (a value that is not finite is skipped).
    pub(crate) fn add(&mut self, v: f64) {
        if !v.is_finite() {
            return;
        }
        if self.offsets.is_none() && self.exact.len() < EXACT_VALUES {
            self.exact.push(v);
            return;
        }
        let base = self.base;
        self.spill().add(v - base);
    }

    /// The offsets' histogram, made from the exact values first if there
    /// is none yet.
    fn spill(&mut self) -> &mut LogHistogram {
        let base = self.base;
        let exact = std::mem::take(&mut self.exact);
        let offsets = self.offsets.get_or_insert_with(LogHistogram::default);
        for v in exact {
            offsets.add(v - base);
        }
        offsets
    }

    /// Adds another part's values (a part of the same base).
    pub(crate) fn merge(&mut self, other: SpanDigest) {
        if self.count() == 0 {
            // An empty part (a default one too) takes the other's base.
            self.base = other.base;
        }
        debug_assert!(other.base == self.base || other.count() == 0);
        match other.offsets {
            Some(theirs) => self.spill().merge(&theirs),
            None => other.exact.into_iter().for_each(|v| self.add(v)),
        }
    }

    /// Values added.
    pub(crate) fn count(&self) -> u64 {
        self.exact.len() as u64 + self.offsets.as_ref().map_or(0, LogHistogram::count)
    }

    /// The bytes it holds (for the request's memory account).
    pub(crate) fn held_bytes(&self) -> u64 {
        let exact = self.exact.capacity() * std::mem::size_of::<f64>();
        exact as u64 + self.offsets.as_ref().map_or(0, LogHistogram::held_bytes)
    }

    /// The value at each of `percents` (0 to 100), in order; `None` each
    /// when no value was added.
    pub(crate) fn percentiles(&self, percents: &[f64]) -> Vec<Option<f64>> {
        let centroids = self.centroids(false);
        percents
            .iter()
            .map(|&p| {
                let c = centroids.as_ref()?;
                Some(quantile(&c.list, c.min, c.max, p / 100.0) + c.shift)
            })
            .collect()
    }

    /// The percent (0 to 100) of the values at or below each of `values`,
    /// in order; `None` each when no value was added, and for NaN.
    pub(crate) fn percent_ranks(&self, values: &[f64]) -> Vec<Option<f64>> {
        let centroids = self.centroids(true);
        values
            .iter()
            .map(|&v| {
                let c = centroids.as_ref().filter(|_| !v.is_nan())?;
                Some(100.0 * share(&c.list, c.min, c.max, v - c.shift))
            })
            .collect()
    }

    /// The centroids answers are read from: the histogram's buckets, or
    /// the exact values (equal ones one centroid when `distinct`, as a
    /// bucket holds them for ranks; else each its own, as Elasticsearch's
    /// few values are for percentiles). `None` when empty.
    fn centroids(&self, distinct: bool) -> Option<Centroids> {
        if let Some(offsets) = &self.offsets {
            let (min, max) = offsets.extremes()?;
            return Some(Centroids {
                list: offsets.centroids(),
                min,
                max,
                shift: self.base,
            });
        }
        let mut sorted = self.exact.clone();
        sorted.sort_by(f64::total_cmp);
        let (&min, &max) = (sorted.first()?, sorted.last()?);
        let mut list: Vec<(f64, u64)> = Vec::with_capacity(sorted.len());
        for v in sorted {
            match list.last_mut() {
                Some(last) if distinct && last.0 == v => last.1 += 1,
                _ => list.push((v, 1)),
            }
        }
        Some(Centroids {
            list,
            min,
            max,
            shift: 0.0,
        })
    }
}

#[cfg(test)]
#[path = "span_tests.rs"]
mod tests;
