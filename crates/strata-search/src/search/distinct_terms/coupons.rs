//! Each keyword term's [`Fingerprint`] (its HyperLogLog coupon and the
//! hash an exact count keeps), a table per segment and column built in one
//! pass over the dictionary and cached, shared by the collector and the
//! warming thread.

use std::io;
use std::sync::LazyLock;

use tantivy::columnar::StrColumn;

use crate::query::segment_cache::SegmentCache;
use crate::search::distinct_count::{value_of, Fingerprint};

/// Fingerprint tables within 64 MiB (8M terms).
const CACHE_BYTES: usize = 64 << 20;

/// Each term's fingerprint, by ordinal, per segment and column.
pub(super) static COUPONS: LazyLock<SegmentCache<Vec<Fingerprint>>> =
    LazyLock::new(|| SegmentCache::new(CACHE_BYTES));

/// The fingerprint of every term of `terms`' dictionary, by ordinal, and
/// the table's size in bytes: one sequential pass over the dictionary.
pub(super) fn coupon_table(terms: &StrColumn) -> io::Result<(Vec<Fingerprint>, usize)> {
    let dictionary = terms.dictionary();
    let mut table = Vec::with_capacity(dictionary.num_terms());
    let mut stream = dictionary.stream()?;
    while stream.advance() {
        table.push(value_of(stream.key()));
    }
    let bytes = table.len() * std::mem::size_of::<Fingerprint>();
    Ok((table, bytes))
}
