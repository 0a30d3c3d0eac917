//! Where a node's and a shard's search files go: [`SearchStorage`] (the
//! node's default tier, its block cache and persistent-memory directory,
//! given by the server) and [`ShardStorage`] (what one shard's directory is
//! opened with).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use strata_metrics::{CacheLedger, CacheUsage};

use super::block_cache::BlockCache;
use super::cached_file::ReadCounters;
use super::files::SearchFiles;
use super::node_store::NodeStore;
use super::tier::StoreTier;
use crate::analysis::TextTokens;
use crate::codec::Codec;
use crate::error::{Result, SearchError};
use crate::shard::merge_yield::MergeYield;
use crate::shard::priority::IndexingPriority;

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
    /// What the shards' background indexing threads run at.
    pub indexing_priority: IndexingPriority,
    /// How long the shards' merges may pause for searches.
    pub merge_yield: MergeYield,
    /// How long an index goes without writes before it is flushed and its
    /// writers and translog are closed ([`DEFAULT_IDLE_AFTER`]).
    pub idle_after: Duration,
    /// Where search's own files (JSON metadata, translogs) are written.
    pub files: SearchFiles,
    /// The node's cache ledger, where `cache` reports as `search_blocks`
    /// (see [`SearchStorage::report_to`]).
    pub caches: Arc<CacheLedger>,
    /// The node's SSD store (`data = ssd`), where `ssd` and `pmem` shards
    /// keep their persisted segment files; `None`: in their directories.
    pub node_store: Option<Arc<NodeStore>>,
}

/// Elasticsearch's `indices.memory.shard_inactive_time`: 5 minutes.
pub const DEFAULT_IDLE_AFTER: Duration = Duration::from_secs(300);

impl Default for SearchStorage {
    /// `dram`, a default-sized cache, no persistent memory, the default
    /// indexing priority.
    fn default() -> SearchStorage {
        let cache = Arc::new(BlockCache::default());
        let caches = Arc::new(CacheLedger::new());
        register(&caches, &cache);
        SearchStorage {
            default_tier: StoreTier::Dram,
            cache,
            pmem_root: None,
            indexing_priority: IndexingPriority::default(),
            merge_yield: MergeYield::default(),
            idle_after: DEFAULT_IDLE_AFTER,
            files: SearchFiles::default(),
            caches,
            node_store: None,
        }
    }
}

/// Registers `cache` in `ledger` as the user `search_blocks`.
fn register(ledger: &CacheLedger, cache: &Arc<BlockCache>) {
    let cache = Arc::clone(cache);
    ledger.register("search_blocks", move || {
        Some(CacheUsage::from(cache.usage()))
    });
}

impl SearchStorage {
    /// The same storage reporting its block cache in the node's `ledger`
    /// (shared with the other engines' caches, `INFO cache`).
    pub fn report_to(mut self, ledger: Arc<CacheLedger>) -> SearchStorage {
        register(&ledger, &self.cache);
        self.caches = ledger;
        self
    }

    /// Checks that `tier` can be used on this node.
    pub(crate) fn check(&self, tier: StoreTier) -> Result<()> {
        if tier == StoreTier::Pmem && self.pmem_root.is_none() {
            return Err(SearchError::illegal(
                "[index.store.tier] is [pmem] but this node has no persistent-memory directory (search_pmem_dir)",
            ));
        }
        Ok(())
    }

    /// Removes the persistent-memory directories of indices that no longer
    /// exist (a crash between deleting an index's directory and its pmem
    /// directory leaves one). Only entries named like an index uuid (16
    /// lowercase hex digits) are touched, so a directory shared with other
    /// files is safe. Returns how many were removed.
    pub(crate) fn remove_orphans<'a>(
        &self,
        live: impl IntoIterator<Item = &'a str>,
    ) -> Result<usize> {
        let Some(root) = &self.pmem_root else {
            return Ok(0);
        };
        let live: std::collections::HashSet<&str> = live.into_iter().collect();
        let mut removed = 0;
        for name in self.files.subdirs(root)? {
            let uuid_like =
                name.len() == 16 && name.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
            if uuid_like && !live.contains(name.as_str()) {
                let dir = root.join(&name);
                self.files.remove_dir(&dir)?;
                tracing::warn!(dir = %dir.display(), "removed the pmem files of a deleted index");
                removed += 1;
            }
        }
        Ok(removed)
    }

    /// The persistent-memory directory of the index with `uuid`.
    pub(crate) fn pmem_dir_of(&self, uuid: &str) -> Option<PathBuf> {
        self.pmem_root.as_ref().map(|root| root.join(uuid))
    }

    /// What shard `number` of an index placed on `tier` opens with.
    pub(crate) fn for_shard(
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
            priority: self.indexing_priority,
            merge_yield: self.merge_yield,
            codec: Codec::Default,
            text_tokens: TextTokens::Standard,
            files: self.files.clone(),
            node_store: self.node_store.clone(),
        }
    }
}

/// What one shard's directory is opened with.
#[derive(Debug, Clone)]
pub(crate) struct ShardStorage {
    /// The index's tier.
    pub tier: StoreTier,
    /// The node's block cache (`ssd`, `pmem`).
    pub cache: Arc<BlockCache>,
    /// The index's cache hit and miss counters.
    pub counters: Arc<ReadCounters>,
    /// `pmem`: this shard's fresh-file directory.
    pub pmem_dir: Option<PathBuf>,
    /// What its background indexing threads run at.
    pub priority: IndexingPriority,
    /// How long its merges may pause for searches.
    pub merge_yield: MergeYield,
    /// The stored fields' compression a new shard is created with.
    pub codec: Codec,
    /// How its text values become terms (the index's).
    pub text_tokens: TextTokens,
    /// Where its persisted files are written (the node's tree).
    pub files: SearchFiles,
    /// The node's SSD store, if it has one (`ssd` and `pmem` segment files).
    pub node_store: Option<Arc<NodeStore>>,
}
