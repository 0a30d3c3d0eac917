//! What the DRAM cache settings mean. `cache_size` set: one cache of that
//! budget that the SSD tier's records (`kv_records`) and search's segment
//! blocks (`search_blocks`) share, one eviction order, each counted on its
//! own; `dram_cache_size` and `search_cache_size` are then refused, not
//! ignored. Unset: each engine has a cache of its own, of
//! `dram_cache_size` (64mb) and `search_cache_size` (256mb), as before.
//!
//! With `cache_size`, each user may have a floor (bytes of its records the
//! shared eviction spares while another user holds more than its own) and
//! a ceiling (bytes it holds at most): `kv_records_cache_{floor,ceiling}`
//! and `search_blocks_cache_{floor,ceiling}` (`strata_cache::UserLimits`).
//! Limits that cannot hold, or any of them without `cache_size`, are
//! refused at start.

use strata_cache::{SharedCache, UserLimits};
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
    /// Its users with limits are handed out first, with them.
    pub fn shared_cache(&self) -> Option<SharedCache> {
        let size = self.cache_size?.bytes();
        // `validate_caches` refused what `with_limits` refuses.
        let limits = self.cache_limits();
        Some(SharedCache::with_limits(size, &limits).unwrap_or_else(|_| SharedCache::new(size)))
    }

    /// The shared cache's users that have a floor or a ceiling, by name.
    fn cache_limits(&self) -> Vec<(&'static str, UserLimits)> {
        let limits = |floor: Option<ByteSize>, ceiling: Option<ByteSize>| UserLimits {
            floor: floor.map_or(0, ByteSize::bytes),
            ceiling: ceiling.map(ByteSize::bytes),
        };
        [
            (
                "kv_records",
                limits(self.kv_records_cache_floor, self.kv_records_cache_ceiling),
            ),
            (
                "search_blocks",
                limits(
                    self.search_blocks_cache_floor,
                    self.search_blocks_cache_ceiling,
                ),
            ),
        ]
        .into_iter()
        .filter(|(_, limits)| *limits != UserLimits::default())
        .collect()
    }

    /// Refuses a per-engine cache size beside `cache_size`, per-user limits
    /// without it, and limits the shared cache cannot keep.
    pub(crate) fn validate_caches(&self) -> Result<(), (&'static str, String)> {
        let Some(size) = self.cache_size else {
            let limits = [
                ("kv_records_cache_floor", self.kv_records_cache_floor),
                ("kv_records_cache_ceiling", self.kv_records_cache_ceiling),
                ("search_blocks_cache_floor", self.search_blocks_cache_floor),
                (
                    "search_blocks_cache_ceiling",
                    self.search_blocks_cache_ceiling,
                ),
            ];
            return match limits.into_iter().find(|(_, set)| set.is_some()) {
                Some((option, _)) => Err((
                    option,
                    "needs cache_size: floors and ceilings divide the one cache the engines share"
                        .into(),
                )),
                None => Ok(()),
            };
        };
        if let Err(err) = SharedCache::with_limits(size.bytes(), &self.cache_limits()) {
            return Err((
                "cache_size",
                format!("per-user cache limits cannot hold: {err}"),
            ));
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
        let config = parsed("dram_cache_size = \"8mb\"\nsearch_cache_size = \"16mb\"\n");
        assert!(config.shared_cache().is_none());
        assert_eq!(config.ssd_config().dram_cache_size, 8 << 20);
        assert_eq!(config.search_storage().cache.stats().budget_bytes, 16 << 20);
    }

    #[test]
    fn cache_size_is_one_budget_the_engines_share() {
        let config = parsed("cache_size = \"32mb\"\n");
        let shared = config.shared_cache().unwrap();
        assert_eq!(shared.budget(), 32 << 20);
        assert!(shared.users().is_empty(), "no engine has joined yet");
        let storage = config.search_storage_with(Some(&shared));
        assert_eq!(storage.cache.stats().budget_bytes, 32 << 20);
        // Search's block cache joined the shared one as its user.
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

    #[test]
    fn per_user_limits_go_to_the_shared_cache() {
        let config = parsed(
            "cache_size = \"32mb\"\nkv_records_cache_floor = \"4mb\"\n\
             kv_records_cache_ceiling = \"16mb\"\nsearch_blocks_cache_ceiling = \"24mb\"\n",
        );
        let shared = config.shared_cache().unwrap();
        let kv = shared.user("kv_records").unwrap();
        let expected = UserLimits {
            floor: 4 << 20,
            ceiling: Some(16 << 20),
        };
        assert_eq!(shared.limits(kv), expected);
        let search = shared.user("search_blocks").unwrap();
        assert_eq!(shared.limits(search).ceiling, Some(24 << 20));
        let flags = [
            "strata",
            "--cache-size",
            "32mb",
            "--search-blocks-cache-floor",
            "2mb",
        ];
        let mut config = ServerConfig::default();
        Cli::parse_from(flags).serve.apply_to(&mut config);
        assert!(config.validate().is_ok());
        let shared = config.shared_cache().unwrap();
        let search = shared.user("search_blocks").unwrap();
        assert_eq!(shared.limits(search).floor, 2 << 20);
    }

    #[test]
    fn per_user_limits_that_cannot_hold_or_lack_cache_size_are_refused() {
        for (toml, words) in [
            ("kv_records_cache_floor = \"1mb\"\n", "needs cache_size"),
            ("search_blocks_cache_ceiling = \"1mb\"\n", "needs cache_size"),
            (
                "cache_size = \"8mb\"\nkv_records_cache_floor = \"5mb\"\nsearch_blocks_cache_floor = \"4mb\"\n",
                "floors add up",
            ),
            (
                "cache_size = \"8mb\"\nkv_records_cache_ceiling = \"9mb\"\n",
                "above the cache budget",
            ),
            (
                "cache_size = \"8mb\"\nkv_records_cache_floor = \"4mb\"\nkv_records_cache_ceiling = \"2mb\"\n",
                "above its ceiling",
            ),
        ] {
            let mut config = ServerConfig::from_toml(toml).unwrap();
            let err = config.validate().unwrap_err().to_string();
            assert!(err.contains(words), "{toml}: {err}");
        }
    }
}
