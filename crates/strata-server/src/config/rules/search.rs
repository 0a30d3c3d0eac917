//! What the search storage settings mean: their bounds, and the search
//! node's storage options derived from them.

use std::path::PathBuf;
use std::sync::Arc;

use strata_cache::SharedCache;
use strata_search::{BlockCache, IndexingPriority, MergeYield, SearchStorage};

use crate::config::search::MAX_MERGE_PAUSE;
use crate::config::settings::ServerConfig;

impl ServerConfig {
    /// `search_pmem_dir`, else `<pmem file>.search`.
    pub fn search_pmem_root(&self) -> PathBuf {
        self.search_pmem_dir.clone().unwrap_or_else(|| {
            let mut name = self.pmem_file().into_os_string();
            name.push(".search");
            PathBuf::from(name)
        })
    }

    /// Where the search node keeps its files: `<data_dir>/search`.
    pub fn search_root(&self) -> PathBuf {
        self.data_dir.join("search")
    }

    /// The search node's storage options (a new, empty block cache, in a
    /// new shared cache with `cache_size`, reported in a ledger of its own
    /// until `report_to` the node's).
    pub fn search_storage(&self) -> SearchStorage {
        self.search_storage_with(self.shared_cache().as_ref())
    }

    /// [`search_storage`](Self::search_storage) whose blocks, with
    /// `cache_size`, go in the node's `shared` cache.
    pub fn search_storage_with(&self, shared: Option<&SharedCache>) -> SearchStorage {
        let own = || BlockCache::new(self.search_block_cache_size().bytes());
        let cache = match shared {
            None => own(),
            Some(shared) => BlockCache::shared(shared).unwrap_or_else(|| {
                tracing::error!(?shared, "no room for search's blocks in the shared cache");
                own()
            }),
        };
        SearchStorage {
            default_tier: self.search_tier.store_tier(),
            cache: Arc::new(cache),
            pmem_root: Some(self.search_pmem_root()),
            indexing_priority: IndexingPriority::with_nice(self.search_indexing_nice)
                .unwrap_or_default(),
            merge_yield: MergeYield::with_max_pause(self.search_merge_pause.0),
            idle_after: strata_search::DEFAULT_IDLE_AFTER,
            files: strata_search::SearchFiles::default(),
            caches: Arc::default(),
            // The server hands search its user of the SSD store, if any.
            node_store: None,
        }
        // Its own ledger until the server hands it the node's.
        .report_to(Arc::default())
    }

    /// Checks the search storage settings.
    pub(crate) fn validate_search(&self) -> Result<(), (&'static str, String)> {
        if IndexingPriority::with_nice(self.search_indexing_nice).is_none() {
            return Err((
                "search_indexing_nice",
                format!(
                    "must be 0 to {}, not {}",
                    IndexingPriority::MAX_NICE,
                    self.search_indexing_nice
                ),
            ));
        }
        if self.search_merge_pause.0 > MAX_MERGE_PAUSE {
            return Err((
                "search_merge_pause",
                format!("must be at most 1s, got {}", self.search_merge_pause),
            ));
        }
        if self
            .search_pmem_dir
            .as_ref()
            .is_some_and(|d| d.as_os_str().is_empty())
        {
            return Err(("search_pmem_dir", "must not be empty".into()));
        }
        if self.search_pmem_root() == self.pmem_file() {
            return Err((
                "search_pmem_dir",
                "must not be the persistent-memory file itself".into(),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::search::SearchTier;
    use crate::config::search::DEFAULT_SEARCH_CACHE;
    use std::time::Duration;
    use strata_search::StoreTier;

    #[test]
    fn defaults_and_toml() {
        let config = ServerConfig::default();
        assert_eq!(config.search_tier, SearchTier::Dram);
        assert_eq!(config.search_block_cache_size(), DEFAULT_SEARCH_CACHE);
        assert_eq!(
            config.search_pmem_root(),
            PathBuf::from("./strata-data/strata.pmem.search")
        );
        let mut config = ServerConfig::from_toml(
            "search_tier = \"ssd\"\nsearch_cache_size = \"16mb\"\npmem_path = \"/dev/shm/s.pmem\"\n",
        )
        .unwrap();
        config.validate().unwrap();
        assert_eq!(config.search_tier.store_tier(), StoreTier::Ssd);
        assert_eq!(config.search_storage().cache.stats().budget_bytes, 16 << 20);
        assert_eq!(
            config.search_pmem_root(),
            PathBuf::from("/dev/shm/s.pmem.search")
        );
        assert!(ServerConfig::from_toml("search_tier = \"tape\"\n").is_err());
        assert_eq!(config.search_storage().indexing_priority.nice(), 10);
        let mut niced = ServerConfig::from_toml("search_indexing_nice = 0\n").unwrap();
        niced.validate().unwrap();
        assert_eq!(niced.search_storage().indexing_priority.nice(), 0);
        niced.search_indexing_nice = 20;
        let err = niced.validate().unwrap_err().to_string();
        assert!(err.contains("search_indexing_nice"), "{err}");
        config.search_pmem_dir = Some(PathBuf::from("/dev/shm/s.pmem"));
        assert!(config.validate().is_err());
    }

    #[test]
    fn merge_pause_reaches_the_storage_and_is_bounded() {
        let config = ServerConfig::default();
        assert_eq!(config.search_storage().merge_yield, MergeYield::DEFAULT);
        let mut off = ServerConfig::from_toml("search_merge_pause = \"0ms\"\n").unwrap();
        off.validate().unwrap();
        assert_eq!(off.search_storage().merge_yield.max_pause(), Duration::ZERO);
        let mut long = ServerConfig::from_toml("search_merge_pause = \"250ms\"\n").unwrap();
        long.validate().unwrap();
        assert_eq!(
            long.search_storage().merge_yield.max_pause(),
            Duration::from_millis(250)
        );
        let mut too_long = ServerConfig::from_toml("search_merge_pause = \"2s\"\n").unwrap();
        let err = too_long.validate().unwrap_err().to_string();
        assert!(err.contains("search_merge_pause"), "{err}");
    }
}
