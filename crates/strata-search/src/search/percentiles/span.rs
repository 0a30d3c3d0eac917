//! [`SpanDigest`]: the values of a numeric, date or boolean field for
//! `percentiles` and `percentile_ranks` (at any depth), kept so that an
//! answer is off by a share of the data's span rather than of the value:
//! [`LogHistogram`] alone keeps a value within 0.4% of itself, about 80
//! days for a date in millis, and 4,000 for a value near 1e6.
//!
//! Up to [`EXACT_VALUES`] values are kept as they are (Elasticsearch's
//! default t-digest too keeps its first 2,000 values exactly), and the
//! answers are exact, read as Elasticsearch 8.9 and later read those
//! (`sorting.rs`). Past that, every value goes to a log histogram as its
//! offset from a base, so it is kept within 0.4% of its distance from
//! the base. The base is the smallest of the first [`EXACT_VALUES`]
//! values (the part's own: a bucket's values, not the whole field's):
//! a value of the data, so every offset is at most the data's span,
//! whatever the values' sign or distance from zero (1e9 + a few units
//! keeps its units, -5 and 5 are 10 apart rather than mirrored; a later
//! value below the base is a negative offset, no larger). An answer is
//! then read between bucket middles as between Elasticsearch's
//! centroids (`tdigest.rs`): on data without large gaps within 1% of the data's span
//! of the exact answer (the tests' bound: 0.4% per bucket, twice after a
//! merge of parts of other bases, plus interpolation); between clusters
//! of values far apart the interpolation may differ more, as
//! Elasticsearch's own digest does past its exact values.
//!
//! Invariant: parts with the same base merge their histograms exactly.
//! Parts whose bases differ (segments that each took their first values'
//! smallest) merge by adding each of the other's buckets, at its middle,
//! into this one's histogram: that moves a value by at most a second
//! 0.4% of its offset. A value below the base (a segment refreshed after
//! the base was read) still counts, as a negative offset.
//!
//! Memory: at most [`EXACT_VALUES`] values (16 KiB), then the histogram's
//! counts: offsets of whole numbers (milliseconds, counts) span at most
//! 64 powers of two per sign, 128 counts each (64 KiB per sign at
//! worst); fractional offsets reach further down (at most 2 MiB per sign
//! over the whole f64 range). Callers reserve [`SpanDigest::held_bytes`]
//! on the request's memory account.

use super::sketch::LogHistogram;
use super::sorting;
use super::tdigest::{quantile, share};

/// The values kept exactly before they go to the offsets' histogram.
pub(crate) const EXACT_VALUES: usize = 2000;

/// See the module docs.
#[derive(Debug, Clone, Default)]
pub(crate) struct SpanDigest {
    /// The value offsets are taken from: fixed when the exact values
    /// spill (their smallest), or by [`SpanDigest::new`] in tests.
    base: Option<f64>,
    /// Every value added (at most [`EXACT_VALUES`]), while `offsets` is
    /// `None`; empty after.
    exact: Vec<f64>,
    /// `value - base` of every value, once more than [`EXACT_VALUES`]
    /// came (`base` is then `Some`).
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

/// A digest's centroids in the values' own terms ([`SpanDigest::held`]).
pub(crate) struct Held {
    /// `(value, count)`, ascending by value, not empty, counts above zero
    /// (each exact value its own centroid, of count one).
    pub(crate) list: Vec<(f64, u64)>,
    /// The smallest value.
    pub(crate) min: f64,
    /// The largest value.
    pub(crate) max: f64,
    /// Every value is its own centroid (Elasticsearch's sorting digest).
    pub(crate) exact: bool,
}

impl SpanDigest {
    /// An empty digest whose offsets are taken from `base` (from the
    /// smallest of its first values when `base` is not finite): tests
    /// pin bases with it; searches use the default digest.
    #[cfg(test)]
    pub(crate) fn new(base: f64) -> SpanDigest {
        SpanDigest {
            base: base.is_finite().then_some(base),
            ..SpanDigest::default()
        }
    }

    /// Adds one value (a value that is not finite is skipped).
    #[inline]
    pub(crate) fn add(&mut self, v: f64) {
        if !v.is_finite() {
            return;
        }
        // The usual case past the exact values: straight to the offsets.
        if let (Some(offsets), Some(base)) = (&mut self.offsets, self.base) {
            offsets.add(v - base);
            return;
        }
        if self.exact.len() < EXACT_VALUES {
            self.exact.push(v);
            return;
        }
        let base = self.spill_base();
        self.spill().add(v - base);
    }

    /// Adds each of `values`, as [`SpanDigest::add`] of each (past the
    /// exact values, the offsets are taken in the histogram's own loop).
    pub(crate) fn add_all(&mut self, values: &[f64]) {
        let mut rest = values;
        if self.offsets.is_none() {
            let room = EXACT_VALUES
                .saturating_sub(self.exact.len())
                .min(rest.len());
            let (now, later) = rest.split_at(room);
            self.exact.extend(now.iter().filter(|v| v.is_finite()));
            rest = later;
            if rest.is_empty() {
                return;
            }
        }
        let base = self.spill_base();
        self.spill().add_all_from(rest, base);
    }

    /// The base offsets are taken from: fixed now if it was not (the
    /// smallest exact value, 0 when there is none).
    fn spill_base(&mut self) -> f64 {
        *self.base.get_or_insert_with(|| {
            let smallest = self.exact.iter().copied().fold(f64::INFINITY, f64::min);
            if smallest.is_finite() {
                smallest
            } else {
                0.0
            }
        })
    }

    /// The offsets' histogram, made from the exact values first if there
    /// is none yet.
    fn spill(&mut self) -> &mut LogHistogram {
        let base = self.spill_base();
        let exact = std::mem::take(&mut self.exact);
        let offsets = self.offsets.get_or_insert_with(LogHistogram::default);
        for v in exact {
            offsets.add(v - base);
        }
        offsets
    }

    /// Adds another part's values (see the module docs for parts of
    /// another base).
    pub(crate) fn merge(&mut self, mut other: SpanDigest) {
        if other.offsets.is_some() && self.offsets.is_none() {
            // Keep the histogram and add the few exact values to it.
            std::mem::swap(self, &mut other);
        }
        let Some(theirs) = other.offsets else {
            other.exact.into_iter().for_each(|v| self.add(v));
            return;
        };
        let (mine, theirs_base) = (self.spill_base(), other.base.unwrap_or(0.0));
        let offsets = self.spill();
        if mine == theirs_base {
            offsets.merge(&theirs);
            return;
        }
        let shift = theirs_base - mine;
        for (middle, count) in theirs.centroids() {
            offsets.add_n(middle + shift, count);
        }
        if let Some((min, max)) = theirs.extremes() {
            offsets.widen(min + shift, max + shift);
        }
    }

    /// Values added.
    #[cfg(test)]
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
        let exact = self.offsets.is_none();
        percents
            .iter()
            .map(|&p| {
                let c = centroids.as_ref()?;
                Some(if exact {
                    sorting::quantile(&c.list, p / 100.0)
                } else {
                    quantile(&c.list, c.min, c.max, p / 100.0) + c.shift
                })
            })
            .collect()
    }

    /// The percent (0 to 100) of the values at or below each of `values`,
    /// in order; `None` each when no value was added, and for NaN.
    pub(crate) fn percent_ranks(&self, values: &[f64]) -> Vec<Option<f64>> {
        let centroids = self.centroids(true);
        let exact = self.offsets.is_none();
        values
            .iter()
            .map(|&v| {
                let c = centroids.as_ref().filter(|_| !v.is_nan())?;
                Some(
                    100.0
                        * if exact {
                            sorting::share(&c.list, v)
                        } else {
                            share(&c.list, c.min, c.max, v - c.shift)
                        },
                )
            })
            .collect()
    }

    /// What Elasticsearch's t-digest would hold, for readings other than
    /// percentiles and ranks (`spread.rs`). `None` when empty.
    pub(crate) fn held(&self) -> Option<Held> {
        let c = self.centroids(false)?;
        Some(Held {
            list: c.list.iter().map(|&(v, n)| (v + c.shift, n)).collect(),
            min: c.min + c.shift,
            max: c.max + c.shift,
            exact: self.offsets.is_none(),
        })
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
                shift: self.base.unwrap_or(0.0),
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
