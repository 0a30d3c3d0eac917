//! The search engine's storage settings: `search_tier` (the default
//! `index.store.tier` of new indices), `search_cache_size` (the DRAM budget
//! of the block cache in front of flushed segment files) and
//! `search_pmem_dir` (where `pmem` indices keep their fresh segments: by
//! default next to the persistent-memory file, `<pmem file>.search`, so
//! that pointing `pmem_path` at a DAX or tmpfs mount places search there
//! too). The directory belongs to one server: at start it removes the
//! uuid-named directories of indices it does not have.
//! `search_indexing_nice` is the nice value of the indexing and merge
//! threads (see `strata_search::IndexingPriority`), `search_merge_pause`
//! the longest a merge pauses while searches run (`strata_search::MergeYield`).

use std::time::Duration;

use serde::Deserialize;
use strata_search::StoreTier;

use strata_units::ByteSize;

/// Longest `search_merge_pause`: a merge paused longer than a second at
/// a time would leave segments piling up under a steady search load.
pub(crate) const MAX_MERGE_PAUSE: Duration = Duration::from_secs(1);

/// Default `search_cache_size`.
pub const DEFAULT_SEARCH_CACHE: ByteSize = ByteSize::mib(256);

/// The default placement of a new index's segment files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum SearchTier {
    /// Fresh and flushed segments in DRAM.
    #[default]
    Dram,
    /// Fresh segments in persistent memory (durable at refresh), flushed
    /// ones through the block cache.
    Pmem,
    /// Flushed segments through the block cache.
    Ssd,
}

impl SearchTier {
    /// The engine's tier.
    pub fn store_tier(self) -> StoreTier {
        match self {
            SearchTier::Dram => StoreTier::Dram,
            SearchTier::Pmem => StoreTier::Pmem,
            SearchTier::Ssd => StoreTier::Ssd,
        }
    }
}
