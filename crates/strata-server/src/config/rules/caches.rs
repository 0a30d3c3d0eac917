//! What the DRAM cache settings mean. `cache_size` set: one cache of that
//! budget that the SSD tier's records (`kv_records`) and search's segment
//! blocks (`search_blocks`) share, one eviction order, each counted on its
//! own; `dram_cache_size` and `search_cache_size` are then refused, not
//! ignored. Unset: each engine has a cache of its own, of
//! `dram_cache_size` (64mb) and `search_cache_size` (256mb), as before.

use strata_cache::SharedCache;
use strata_units::ByteSize;

use crate::config::search::DEFAULT_SEARCH_CACHE;
use crate::config::settings::ServerConfig;
use crate::config::tiers::DEFAULT_RECORD_CACHE;

impl ServerConfig {
    /// The SSD tier's own record cache budget (without `cache_size`).
    pub fn record_cache_size(&self) -> ByteSize {
        self.dram_cache_size.unwrap_or(DEFAULT_RECORD_CACHE)
    }

    /// Search's own block cache budget (without `cache_size`).
    pub fn search_block_cache_size(&self) -> ByteSize {
        self.search_cache_size.unwrap_or(DEFAULT_SEARCH_CACHE)
    }

    /// A new shared cache of `cache_size`, if set: the server makes one
    /// and hands it to both engines.
    pub fn shared_cache(&self) -> Option<SharedCache> {
        self.cache_size.map(|size| SharedCache::new(size.bytes()))
    }

    /// Refuses a per-engine cache size beside `cache_size`.
    pub(crate) fn validate_caches(&self) -> Result<(), (&'static str, String)> {
        if self.cache_size.is_none() {
            return Ok(());
        }
        for (option, set) in [
            ("dram_cache_size", self.dram_cache_size.is_some()),
            ("search_cache_size", self.search_cache_size.is_some()),
        ] {
            if set {
                return Err((
                    option,
                    "cannot be set with cache_size, whose one budget the engines share \
                     (unset cache_size for a cache of its own per engine)"
                        .into(),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::config::ServeArgs;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        serve: ServeArgs,
    }

    fn parsed(toml: &str) -> ServerConfig {
        let mut config = ServerConfig::from_toml(toml).unwrap();
        config.validate().unwrap();
        config
    }

    #[test]
    fn without_cache_size_each_engine_has_its_own_budget() {
        let config = parsed("");
        assert!(config.shared_cache().is_none());
        assert_eq!(config.ssd_config().dram_cache_size, 64 << 20);
        assert_eq!(
            config.search_storage().cache.stats().budget_bytes,
            256 << 20
        );
        assert!(!config.search_storage().cache.usage().shared);
        let config = parsed("dram_cache_size = \"8mb\"\nsearch_cache_size = \"16mb\"\n");
        assert_eq!(config.ssd_config().dram_cache_size, 8 << 20);
        assert_eq!(config.search_storage().cache.stats().budget_bytes, 16 << 20);
    }

    #[test]
    fn cache_size_is_one_budget_the_engines_share() {
        let config = parsed("cache_size = \"32mb\"\n");
        let shared = config.shared_cache().unwrap();
        assert_eq!(shared.budget(), 32 << 20);
        let storage = config.search_storage_with(Some(&shared));
        assert!(storage.cache.usage().shared);
        assert_eq!(storage.cache.stats().budget_bytes, 32 << 20);
        assert_eq!(shared.users()[0].0, "search_blocks");
    }

    #[test]
    fn a_per_engine_size_beside_cache_size_is_refused() {
        for (option, line) in [
            ("dram_cache_size", "dram_cache_size = \"64mb\""),
            ("search_cache_size", "search_cache_size = \"256mb\""),
        ] {
            let mut config =
                ServerConfig::from_toml(&format!("cache_size = \"1gb\"\n{line}\n")).unwrap();
            let err = config.validate().unwrap_err().to_string();
            assert!(err.contains(option) && err.contains("cache_size"), "{err}");
        }
        let flags = [
            "strata",
            "--cache-size",
            "1gb",
            "--search-cache-size",
            "1mb",
        ];
        let mut config = ServerConfig::default();
        Cli::parse_from(flags).serve.apply_to(&mut config);
        assert_eq!(config.cache_size, Some(ByteSize::mib(1024)));
        assert!(config.validate().is_err());
    }
}
