//! [`RangeGrid`]: the bucket of a number among a `histogram`'s buckets by
//! arithmetic instead of a binary search. A histogram's buckets are
//! `[start + k * width, start + (k + 1) * width)` for some whole `k`s (its
//! empty buckets left out), so `floor((x - start) / width)` names the one
//! slot that can hold `x`. Floating-point rounding may put `x` one slot
//! off near an edge, so the slot and its two neighbours are checked
//! against the buckets' own bounds: the answer is always the bucket whose
//! `[low, high)` holds `x`, as the search found. The binary search was two
//! thirds of the per-document cost of `histogram` > `percentiles`.

/// No bucket in this slot.
const EMPTY: u32 = u32::MAX;

/// Slots allowed per bucket: a grid over buckets far apart (keys 0 and
/// 1e12 at interval 1) would be mostly empty slots; such buckets keep the
/// binary search.
const SLOTS_PER_BUCKET: usize = 4;
const SLOTS_SPARE: usize = 64;

/// Contiguous equal-width slots over sorted disjoint ranges.
#[derive(Debug)]
pub(super) struct RangeGrid {
    start: f64,
    width: f64,
    /// Per slot, the index into the ranges of the bucket in it.
    slots: Vec<u32>,
}

impl RangeGrid {
    /// The grid of `ranges` (`(low, high, bucket)`, sorted by `low`,
    /// disjoint), when each is one slot of a grid of bounded size.
    pub(super) fn new(ranges: &[(f64, f64, usize)]) -> Option<RangeGrid> {
        let &(start, first_high, _) = ranges.first()?;
        let width = first_high - start;
        if !(width.is_finite() && width > 0.0 && start.is_finite()) {
            return None;
        }
        let limit = ranges.len() * SLOTS_PER_BUCKET + SLOTS_SPARE;
        let mut slots = Vec::new();
        for (at, &(low, high, _)) in ranges.iter().enumerate() {
            let k = (low - start) / width;
            let slot = k.round();
            let on_grid = (k - slot).abs() <= 1e-9 * slot.abs().max(1.0);
            let same_width = ((high - low) - width).abs() <= 1e-9 * width;
            if !(on_grid && same_width && slot >= 0.0 && slot < limit as f64) {
                return None;
            }
            let slot = slot as usize;
            if slot >= slots.len() {
                slots.resize(slot + 1, EMPTY);
            }
            slots[slot] = u32::try_from(at).ok()?;
        }
        Some(RangeGrid {
            start,
            width,
            slots,
        })
    }

    /// The index into the ranges of the one holding `x`.
    #[inline]
    pub(super) fn find(&self, x: f64, ranges: &[(f64, f64, usize)]) -> Option<usize> {
        let k = (x - self.start) / self.width;
        // Also false for NaN.
        if !(k > -2.0 && k < self.slots.len() as f64 + 1.0) {
            return None;
        }
        // Truncated rather than floored (`floor` is a call on the baseline
        // x86-64 target): they differ only within (-1, 0), where either
        // slot's neighbours hold the answer.
        let k = k as isize;
        [k, k - 1, k + 1].into_iter().find_map(|slot| {
            let at = *self.slots.get(usize::try_from(slot).ok()?)?;
            let &(low, high, _) = ranges.get(at as usize)?;
            (low <= x && x < high).then_some(at as usize)
        })
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::RangeGrid;

    /// The ranges holding `x`, by looking at each.
    fn linear(ranges: &[(f64, f64, usize)], x: f64) -> Option<usize> {
        ranges.iter().position(|r| r.0 <= x && x < r.1)
    }

    /// A histogram's buckets: `keys` (slots) at `interval` from `offset`,
    /// computed as the histogram computes its keys, each `high` kept at
    /// most the next bucket's `low` (the ranges are disjoint, as the
    /// matcher requires of a grid; rounding can otherwise overlap them by
    /// an ulp).
    fn buckets(keys: &[i64], interval: f64, offset: f64) -> Vec<(f64, f64, usize)> {
        let mut keys = keys.to_vec();
        keys.sort_unstable();
        keys.dedup();
        let lows: Vec<f64> = keys.iter().map(|&k| k as f64 * interval + offset).collect();
        lows.iter()
            .enumerate()
            .map(|(b, &low)| {
                let high = low + interval;
                (low, lows.get(b + 1).map_or(high, |&next| high.min(next)), b)
            })
            .collect()
    }

    proptest! {
        /// The grid finds the bucket a look at each range finds, at the
        /// edges too.
        #[test]
        fn finds_what_a_linear_look_finds(
            keys in prop::collection::vec(-50i64..50, 1..40),
            interval in prop_oneof![Just(0.1), Just(1.0), Just(100.0), Just(3.3e-7), Just(86_400_000.0)],
            offset in prop_oneof![Just(0.0), Just(0.05), Just(-7.0)],
            xs in prop::collection::vec(-60.0f64..60.0, 1..50),
        ) {
            let ranges = buckets(&keys, interval, offset);
            // Keys far apart for their number keep the binary search.
            let grid = RangeGrid::new(&ranges);
            prop_assume!(grid.is_some());
            let grid = grid.unwrap();
            let edges = ranges.iter().flat_map(|r| [r.0, r.1, r.0.next_down(), r.1.next_down()]);
            for x in xs.iter().map(|x| x * interval + offset).chain(edges) {
                prop_assert_eq!(grid.find(x, &ranges), linear(&ranges, x), "x {}", x);
            }
        }
    }

    #[test]
    fn a_histograms_buckets_make_a_grid() {
        for interval in [0.1, 1.0, 100.0, 3.3e-7, 86_400_000.0] {
            let keys: Vec<i64> = (-30..30).filter(|k| k % 7 != 0).collect();
            assert!(
                RangeGrid::new(&buckets(&keys, interval, 0.05)).is_some(),
                "{interval}"
            );
        }
    }

    /// A value just below the last bucket's end, whose quotient rounds
    /// past the last slot (found by the proptest: the grid refused it).
    #[test]
    fn the_last_buckets_top_edge_is_found() {
        let ranges = buckets(&[-41, 0], 0.1, 0.0);
        let grid = RangeGrid::new(&ranges).unwrap();
        let x = 0.1f64.next_down();
        assert_eq!(grid.find(x, &ranges), Some(1));
        assert_eq!(grid.find(0.1, &ranges), None);
    }

    #[test]
    fn ranges_off_the_grid_or_far_apart_have_none() {
        assert!(RangeGrid::new(&[(0.0, 1.0, 0), (1.5, 2.5, 1)]).is_none());
        assert!(RangeGrid::new(&[(0.0, 1.0, 0), (1.0, 3.0, 1)]).is_none());
        assert!(RangeGrid::new(&[(0.0, 1.0, 0), (1e12, 1e12 + 1.0, 1)]).is_none());
        assert!(RangeGrid::new(&[(f64::NEG_INFINITY, 1.0, 0)]).is_none());
        let grid = RangeGrid::new(&[(0.0, 1.0, 0)]).unwrap();
        assert_eq!(grid.find(f64::NAN, &[(0.0, 1.0, 0)]), None);
    }
}
