//! Each keyword term's HyperLogLog coupon, a table per segment and
//! column built in one pass over the dictionary and cached, shared by the
//! collector and the warming thread.

use std::io;
use std::sync::LazyLock;

use datasketches::hll::Coupon;
use tantivy::columnar::StrColumn;

use crate::query::segment_cache::SegmentCache;

/// Coupon tables within 64 MiB (16M terms).
const CACHE_BYTES: usize = 64 << 20;

/// Each term's coupon, by ordinal, per segment and column.
pub(super) static COUPONS: LazyLock<SegmentCache<Vec<Coupon>>> =
    LazyLock::new(|| SegmentCache::new(CACHE_BYTES));

/// The coupon of every term of `terms`' dictionary, by ordinal, and its
/// size in bytes: one sequential pass over the dictionary.
pub(super) fn coupon_table(terms: &StrColumn) -> io::Result<(Vec<Coupon>, usize)> {
    let dictionary = terms.dictionary();
    let mut table = Vec::with_capacity(dictionary.num_terms());
    let mut stream = dictionary.stream()?;
    while stream.advance() {
        table.push(Coupon::from_value(stream.key()));
    }
    let bytes = table.len() * std::mem::size_of::<Coupon>();
    Ok((table, bytes))
}
