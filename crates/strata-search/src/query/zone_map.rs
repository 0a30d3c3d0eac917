//! Zone maps: the smallest and largest value of each block of
//! [`ZONE_DOCS`] documents in a segment's single-valued `i64` column, so a
//! range over that column can skip the blocks wholly outside it and take
//! the blocks wholly inside it without reading their values.
//!
//! Documents arrive in time order, so the dates of a block are close
//! together and a time window leaves at most a few blocks per segment to
//! check value by value; without the map every value of a segment that
//! straddles the window's edge is read on every search.
//!
//! Segments are immutable and their ids unique, so a map computed once is
//! valid for as long as the segment lives; a process-wide [`SegmentCache`]
//! keeps the most recently used maps within [`CACHE_ZONES`] zones (16
//! bytes each) and forgets the rest.

use std::sync::{Arc, LazyLock};

use tantivy::columnar::ColumnValues;
use tantivy::index::SegmentId;

use super::segment_cache::SegmentCache;

/// Documents per zone.
pub const ZONE_DOCS: u32 = 512;

/// Zones the cache holds at most (32 MiB of maps).
const CACHE_ZONES: usize = 2 << 20;

/// Smallest and largest value per block of [`ZONE_DOCS`] rows.
#[derive(Debug)]
pub struct ZoneMap {
    zones: Vec<(i64, i64)>,
}

impl ZoneMap {
    /// Reads every value of `values` once.
    pub fn build(values: &dyn ColumnValues<i64>) -> ZoneMap {
        let rows = values.num_vals();
        let mut block = vec![0i64; ZONE_DOCS as usize];
        let mut zones = Vec::with_capacity(rows.div_ceil(ZONE_DOCS) as usize);
        let mut start = 0u32;
        while start < rows {
            let len = (rows - start).min(ZONE_DOCS) as usize;
            let block = &mut block[..len];
            values.get_range(u64::from(start), block);
            let bounds = block
                .iter()
                .fold((i64::MAX, i64::MIN), |(lo, hi), &v| (lo.min(v), hi.max(v)));
            zones.push(bounds);
            start += len as u32;
        }
        ZoneMap { zones }
    }

    /// Number of zones.
    pub fn len(&self) -> usize {
        self.zones.len()
    }

    /// The smallest and largest value of zone `zone`.
    pub fn bounds(&self, zone: usize) -> (i64, i64) {
        self.zones[zone]
    }

    /// How zone `zone` relates to the inclusive range `[low, high]`.
    pub fn overlap(&self, zone: usize, low: i64, high: i64) -> Overlap {
        let (min, max) = self.zones[zone];
        if max < low || min > high {
            Overlap::Outside
        } else if min >= low && max <= high {
            Overlap::Inside
        } else {
            Overlap::Partial
        }
    }
}

/// How a zone's values relate to a range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overlap {
    /// No value in range.
    Outside,
    /// Every value in range.
    Inside,
    /// Some values may be in range: read them.
    Partial,
}

/// Zone maps by segment and column, within [`CACHE_ZONES`] zones.
static CACHE: LazyLock<SegmentCache<ZoneMap>> =
    LazyLock::new(|| SegmentCache::new(CACHE_ZONES * std::mem::size_of::<(i64, i64)>()));

/// The zone map of `column` in `segment`, built from `values` on first use.
pub fn zone_map(segment: SegmentId, column: &str, values: &dyn ColumnValues<i64>) -> Arc<ZoneMap> {
    let built = CACHE.get_or_try_build(segment, column, || {
        let map = ZoneMap::build(values);
        let bytes = map.len() * std::mem::size_of::<(i64, i64)>();
        Ok::<_, std::convert::Infallible>((map, bytes))
    });
    match built {
        Ok(map) => map,
        Err(never) => match never {},
    }
}

/// A column of values in memory, for tests of zone maps and their users.
#[cfg(test)]
pub(crate) struct TestColumn(pub Vec<i64>);

#[cfg(test)]
impl ColumnValues<i64> for TestColumn {
    fn get_val(&self, idx: u32) -> i64 {
        self.0[idx as usize]
    }
    fn min_value(&self) -> i64 {
        self.0.iter().copied().min().unwrap_or(0)
    }
    fn max_value(&self) -> i64 {
        self.0.iter().copied().max().unwrap_or(0)
    }
    fn num_vals(&self) -> u32 {
        self.0.len() as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use TestColumn as Values;

    #[test]
    fn zones_bound_their_blocks() {
        let n = i64::from(ZONE_DOCS);
        // Two full blocks and a short one: 0..n, n..2n, then 2n..2n+10 reversed.
        let mut values: Vec<i64> = (0..2 * n).collect();
        values.extend((2 * n..2 * n + 10).rev());
        let map = ZoneMap::build(&Values(values));
        assert_eq!(map.len(), 3);
        assert_eq!(map.overlap(0, 0, n - 1), Overlap::Inside);
        assert_eq!(map.overlap(0, n, 3 * n), Overlap::Outside);
        assert_eq!(map.overlap(1, n + 5, 3 * n), Overlap::Partial);
        assert_eq!(map.overlap(2, 2 * n, 2 * n + 9), Overlap::Inside);
        assert_eq!(map.overlap(2, 2 * n + 10, i64::MAX), Overlap::Outside);
    }

    #[test]
    fn the_cache_keeps_one_map_per_segment_and_column() {
        let values = Values((0..1000).collect());
        let segment = SegmentId::generate_random();
        let a = zone_map(segment, "f.t", &values);
        let b = zone_map(segment, "f.t", &Values(vec![7; 10]));
        assert!(
            Arc::ptr_eq(&a, &b),
            "the second call is served from the cache"
        );
        let c = zone_map(segment, "f.u", &Values(vec![7; 10]));
        assert_eq!(c.len(), 1);
    }
}
