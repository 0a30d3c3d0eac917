//! Where a node's and a shard's search files go: [`SearchStorage`] (the
//! node's default tier, its block cache and persistent-memory directory,
//! given by the server) and [`ShardStorage`] (what one shard's directory is
//! opened with).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::block_cache::BlockCache;
use super::cached_file::ReadCounters;
use super::tier::StoreTier;
use crate::error::{Result, SearchError};

/// The node's storage options (`search_tier`, `search_cache_size`,
/// `search_pmem_dir` in `strata serve`).
#[derive(Debug, Clone)]
pub struct SearchStorage {
    /// The tier of an index created without `index.store.tier`.
    pub default_tier: StoreTier,
    /// The block cache every shard reading in blocks shares.
    pub cache: Arc<BlockCache>,
    /// Root of the `pmem` indices' fresh files (one directory per index
    /// uuid); `None`: the `pmem` tier is refused.
    pub pmem_root: Option<PathBuf>,
}

impl Default for SearchStorage {
    /// `dram`, a default-sized cache, no persistent memory.
    fn default() -> SearchStorage {
        SearchStorage {
            default_tier: StoreTier::Dram,
            cache: Arc::new(BlockCache::default()),
            pmem_root: None,
        }
    }
}

impl SearchStorage {
    /// Checks that `tier` can be used on this node.
    pub fn check(&self, tier: StoreTier) -> Result<()> {
        if tier == StoreTier::Pmem && self.pmem_root.is_none() {
            return Err(SearchError::illegal(
                "[index.store.tier] is [pmem] but this node has no persistent-memory directory (search_pmem_dir)",
            ));
        }
        Ok(())
    }

    /// The persistent-memory directory of the index with `uuid`.
    pub fn pmem_dir_of(&self, uuid: &str) -> Option<PathBuf> {
        self.pmem_root.as_ref().map(|root| root.join(uuid))
    }

    /// What shard `number` of an index placed on `tier` opens with.
    pub fn for_shard(
        &self,
        tier: StoreTier,
        pmem_index_dir: Option<&Path>,
        number: u32,
        counters: &Arc<ReadCounters>,
    ) -> ShardStorage {
        ShardStorage {
            tier,
            cache: Arc::clone(&self.cache),
            counters: Arc::clone(counters),
            pmem_dir: pmem_index_dir.map(|d| d.join(number.to_string())),
        }
    }
}

/// What one shard's directory is opened with.
#[derive(Debug, Clone)]
pub struct ShardStorage {
    /// The index's tier.
    pub tier: StoreTier,
    /// The node's block cache (`ssd`, `pmem`).
    pub cache: Arc<BlockCache>,
    /// The index's cache hit and miss counters.
    pub counters: Arc<ReadCounters>,
    /// `pmem`: this shard's fresh-file directory.
    pub pmem_dir: Option<PathBuf>,
}

impl ShardStorage {
    /// A `dram` shard with a private default cache (tests, tools).
    pub fn dram() -> ShardStorage {
        SearchStorage::default().for_shard(StoreTier::Dram, None, 0, &Arc::default())
    }
}
