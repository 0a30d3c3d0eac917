//! [`Snapshot`]: the searchers of a set of indices pinned at one moment,
//! what a scroll or a point in time searches again and again. A pinned
//! searcher keeps its segments alive (merged-away files stay until the
//! snapshot is dropped), so the front end bounds how many exist and how
//! long they live.
//!
//! Pages of a snapshot are cut by `search_after` with the `_shard_doc`
//! tiebreak: a document's shard (its position among the snapshot's
//! shards), segment and id, unique and stable while the snapshot lives.

use std::sync::Arc;

use tantivy::Searcher;

use crate::index::SearchIndex;

/// Bits of a `_shard_doc` value below the shard ordinal.
const SHARD_SHIFT: u32 = 47;
/// Bits below the segment ordinal (the segment-local doc id).
const SEGMENT_SHIFT: u32 = 32;
/// Segment ordinals a `_shard_doc` value has room for.
const MAX_SEGMENTS: u32 = 1 << (SHARD_SHIFT - SEGMENT_SHIFT);

/// The base of the `_shard_doc` values of a segment: shard ordinal and
/// segment ordinal packed above the doc id (a non-negative `i64`).
pub fn shard_doc_base(shard: u32, segment: u32) -> i64 {
    debug_assert!(segment < MAX_SEGMENTS);
    (i64::from(shard & 0xffff) << SHARD_SHIFT)
        | (i64::from(segment % MAX_SEGMENTS) << SEGMENT_SHIFT)
}

/// The searchers a search of `index` reads: those `snapshot` pinned (a
/// scroll's or point in time's), else the current ones.
pub fn searchers(snapshot: Option<&Arc<Snapshot>>, index: &Arc<SearchIndex>) -> Vec<Searcher> {
    match snapshot.and_then(|p| p.searchers_of(index)) {
        Some(pinned) => pinned.to_vec(),
        None => index.shards().iter().map(|s| s.searcher()).collect(),
    }
}

/// Searchers pinned per index, aligned with the indices.
pub struct Snapshot {
    indices: Vec<Arc<SearchIndex>>,
    searchers: Vec<Vec<Searcher>>,
}

impl std::fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.indices.iter().map(|i| i.name()).collect();
        f.debug_struct("Snapshot").field("indices", &names).finish()
    }
}

impl Snapshot {
    /// Pins the current searcher of every shard of `indices`.
    pub fn take(indices: &[Arc<SearchIndex>]) -> Snapshot {
        Snapshot {
            indices: indices.to_vec(),
            searchers: indices
                .iter()
                .map(|i| i.shards().iter().map(|s| s.searcher()).collect())
                .collect(),
        }
    }

    /// The indices, in the order they were pinned.
    pub fn indices(&self) -> &[Arc<SearchIndex>] {
        &self.indices
    }

    /// The pinned searchers of `index` (by identity), if it is part of
    /// this snapshot.
    pub(crate) fn searchers_of(&self, index: &Arc<SearchIndex>) -> Option<&[Searcher]> {
        self.indices
            .iter()
            .position(|i| Arc::ptr_eq(i, index))
            .map(|p| self.searchers[p].as_slice())
    }

    /// Shards pinned.
    pub fn shard_count(&self) -> usize {
        self.searchers.iter().map(Vec::len).sum()
    }
}
