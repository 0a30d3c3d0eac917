//! [`Matcher`]: the buckets of a batch ([`BucketKey`]s) a value falls in:
//! by a map of terms and numbers, and by its `[low, high)` ranges (a
//! histogram's on a grid by arithmetic, `range_grid`; other disjoint
//! ranges by a binary search; overlapping ones, a `range`'s, each tried).

use std::collections::HashMap;

use super::range_grid::RangeGrid;
use super::values::{Key, Num};
use crate::search::bucket_batch::BucketKey;

/// Finds a value's buckets.
pub(super) struct Matcher {
    /// Terms and numbers, to their bucket.
    values: HashMap<Key, usize>,
    /// `(low, high, bucket)`, ascending by `low`.
    ranges: Vec<(f64, f64, usize)>,
    /// The ranges do not overlap (a histogram's): found by a binary
    /// search rather than each tried.
    pub(super) disjoint: bool,
    /// Disjoint ranges on one grid (a histogram's): found by arithmetic.
    grid: Option<RangeGrid>,
}

impl Matcher {
    pub(super) fn new(keys: &[BucketKey]) -> Matcher {
        let (mut values, mut ranges) = (HashMap::new(), Vec::new());
        for (i, key) in keys.iter().enumerate() {
            match key {
                BucketKey::Text(s) => {
                    values.insert(Key::Str(s.as_str().into()), i);
                }
                BucketKey::Number(n) => {
                    values.insert(Key::Num(Num(*n)), i);
                }
                BucketKey::Range(low, high) => ranges.push((*low, *high, i)),
            }
        }
        ranges.sort_by(|a, b| a.0.total_cmp(&b.0));
        let disjoint = ranges.windows(2).all(|w| w[0].1 <= w[1].0);
        let grid = disjoint.then(|| RangeGrid::new(&ranges)).flatten();
        Matcher {
            values,
            ranges,
            disjoint,
            grid,
        }
    }

    /// The one bucket of `value` (ranges `disjoint`: terms and
    /// histograms select at most one bucket per value).
    #[inline]
    pub(super) fn bucket_of(&self, value: &Key) -> Option<usize> {
        if let Some(&i) = self.values.get(value) {
            return Some(i);
        }
        let x = value.num().filter(|_| !self.ranges.is_empty())?;
        self.disjoint_range_of(x)
    }

    /// The one bucket of the number `x` (as [`Matcher::bucket_of`]).
    #[inline]
    pub(super) fn bucket_of_num(&self, x: f64) -> Option<usize> {
        if let Some(&i) = self.values.get(&Key::Num(Num(x))) {
            return Some(i);
        }
        if self.ranges.is_empty() {
            return None;
        }
        self.disjoint_range_of(x)
    }

    /// Adds the buckets of the number `x` to `out`.
    #[inline]
    pub(super) fn buckets_of_num(&self, x: f64, out: &mut Vec<usize>) {
        self.buckets_of(&Key::Num(Num(x)), out);
    }

    /// The bucket of the range holding `x`, the ranges `disjoint`.
    #[inline]
    fn disjoint_range_of(&self, x: f64) -> Option<usize> {
        if let Some(grid) = &self.grid {
            return grid.find(x, &self.ranges).map(|at| self.ranges[at].2);
        }
        let at = self.ranges.partition_point(|r| r.0 <= x).checked_sub(1)?;
        let &(_, high, i) = self.ranges.get(at)?;
        (x < high).then_some(i)
    }

    /// Adds the buckets of `value` to `out`.
    #[inline]
    pub(super) fn buckets_of(&self, value: &Key, out: &mut Vec<usize>) {
        if let Some(&i) = self.values.get(value) {
            out.push(i);
        }
        let Some(x) = value.num().filter(|_| !self.ranges.is_empty()) else {
            return;
        };
        if self.disjoint {
            out.extend(self.disjoint_range_of(x));
        } else {
            let inside = self.ranges.iter().filter(|r| r.0 <= x && x < r.1);
            out.extend(inside.map(|r| r.2));
        }
    }
}
