//! The documents of a large segment that a repeated column filter
//! matches, kept as a bit set once the filter has been met twice on the
//! segment (as Lucene's query cache keeps filters used more than once on
//! segments of 10,000 documents or more).
//!
//! A dashboard's searches share their filters: the five searches of
//! `content_issues` each select the 404 responses, and each scanned the
//! whole `response_code` column of every segment for them (bit-unpacking
//! it block by block, a fifth of the dashboard's CPU). The second time a
//! segment meets a filter its set is kept; later searches copy it. A set
//! depends only on the segment's columns, which never change (deletions
//! are applied by the collectors), so a segment's entries stay valid for
//! its life and age out of the [`SegmentCache`] after it.

use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::sync::LazyLock;

use parking_lot::Mutex;
use tantivy::index::SegmentId;
use tantivy::{BitSet, SegmentReader};

use super::segment_cache::SegmentCache;

/// Bit sets within 32 MiB in all.
const CACHE_BYTES: usize = 32 << 20;
/// Smaller segments are scanned each time (a fresh segment of a refresh
/// lives a second or two).
const MIN_DOCS: u32 = 10_000;
/// Filters met once are remembered by hash, up to this many (then the
/// memory starts again).
const SEEN_MAX: usize = 16_384;

/// A segment's match set; `None`: no document matches.
type Cached = Option<BitSet>;

static SETS: LazyLock<SegmentCache<Cached>> = LazyLock::new(|| SegmentCache::new(CACHE_BYTES));
static SEEN: LazyLock<Mutex<HashSet<u64>>> = LazyLock::new(Default::default);

/// The documents of `reader` that the filter named `key` (its column and
/// values, which decide its matches) matches: the kept set, or
/// `compute`'s, kept when this segment meets the filter the second time.
pub(super) fn matches(
    reader: &SegmentReader,
    key: &str,
    compute: impl FnOnce() -> tantivy::Result<Cached>,
) -> tantivy::Result<Cached> {
    let segment = reader.segment_id();
    if reader.max_doc() < MIN_DOCS {
        return compute();
    }
    if let Some(kept) = SETS.get(segment, key) {
        return Ok(Cached::clone(&kept));
    }
    if !seen_before(segment, key) {
        return compute();
    }
    let kept = SETS.get_or_try_build(segment, key, || {
        let set = compute()?;
        let bytes = set.as_ref().map_or(0, |s| s.max_value() as usize / 8) + key.len() + 64;
        Ok::<_, tantivy::TantivyError>((set, bytes))
    })?;
    Ok(Cached::clone(&kept))
}

/// Whether `key` was met on `segment` before; notes it if not.
fn seen_before(segment: SegmentId, key: &str) -> bool {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    (segment, key).hash(&mut hasher);
    let hash = hasher.finish();
    let mut seen = SEEN.lock();
    if seen.contains(&hash) {
        return true;
    }
    if seen.len() >= SEEN_MAX {
        seen.clear();
    }
    seen.insert(hash);
    false
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use tantivy::schema::{Schema, FAST, INDEXED};
    use tantivy::{doc, Index};

    use super::*;

    /// The third search of a filter on a large segment copies the set the
    /// second one kept; a small segment computes it every time.
    #[test]
    fn a_filter_met_twice_on_a_large_segment_is_kept() {
        let mut b = Schema::builder();
        let n = b.add_u64_field("n", INDEXED | FAST);
        let index = Index::create_in_ram(b.build());
        let mut writer = index.writer_with_num_threads(1, 30_000_000).unwrap();
        for i in 0..20_000u64 {
            writer.add_document(doc!(n => i)).unwrap();
        }
        writer.commit().unwrap();
        for i in 0..100u64 {
            writer.add_document(doc!(n => i)).unwrap();
        }
        writer.commit().unwrap();
        let searcher = index.reader().unwrap().searcher();
        let computed = AtomicUsize::new(0);
        let run = |reader: &SegmentReader, key: &str| {
            matches(reader, key, || {
                computed.fetch_add(1, Ordering::Relaxed);
                let mut set = BitSet::with_max_value(reader.max_doc());
                set.insert(7);
                Ok(Some(set))
            })
            .unwrap()
            .unwrap()
        };
        for reader in searcher.segment_readers() {
            computed.store(0, Ordering::Relaxed);
            for _ in 0..4 {
                let set = run(reader, "n|7");
                assert!(set.contains(7) && set.len() == 1);
            }
            let large = reader.max_doc() >= MIN_DOCS;
            let expected = if large { 2 } else { 4 };
            assert_eq!(
                computed.load(Ordering::Relaxed),
                expected,
                "{}",
                reader.max_doc()
            );
        }
        // Another filter on the same segment is its own entry.
        let readers = searcher.segment_readers();
        let large = readers.iter().find(|r| r.max_doc() >= MIN_DOCS).unwrap();
        computed.store(0, Ordering::Relaxed);
        run(large, "n|8");
        run(large, "n|8");
        assert_eq!(computed.load(Ordering::Relaxed), 2);
    }
}
