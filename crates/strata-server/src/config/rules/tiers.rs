//! What the placement settings mean: their bounds, and the engine's
//! placement, persistent-memory and SSD settings derived from them.

use std::path::PathBuf;

use strata_kv::{DataTier, IndexTier, Placement};
use strata_pmem::PersistPolicy;

use crate::config::persistence::PersistenceMode;
use crate::config::settings::ServerConfig;
use crate::config::tiers::{
    DataPlacement, IndexPlacement, PmemPersist, SsdIoEngine, SsdReads, MIN_PMEM_SIZE,
};

impl ServerConfig {
    /// The engine's placement.
    pub fn placement(&self) -> Placement {
        Placement {
            index: match self.index {
                IndexPlacement::Dram => IndexTier::Dram,
                IndexPlacement::Pmem => IndexTier::Pmem,
            },
            data: match self.data {
                DataPlacement::Dram => DataTier::Dram,
                DataPlacement::Pmem => DataTier::Pmem,
                DataPlacement::Ssd => DataTier::Ssd,
            },
        }
    }

    /// The persistent-memory file: `pmem_path`, else `<data_dir>/strata.pmem`.
    pub fn pmem_file(&self) -> PathBuf {
        self.pmem_path
            .clone()
            .unwrap_or_else(|| self.data_dir.join("strata.pmem"))
    }

    /// The SSD tier's device path: `ssd_path`, else `<data_dir>/ssd`.
    pub fn ssd_dir(&self) -> PathBuf {
        self.ssd_path
            .clone()
            .unwrap_or_else(|| self.data_dir.join("ssd"))
    }

    /// The SSD store's settings.
    pub fn ssd_config(&self) -> strata_ssd::SsdConfig {
        strata_ssd::SsdConfig {
            block_size: usize::try_from(self.ssd_block_size.bytes()).unwrap_or(usize::MAX),
            io_threads: self.ssd_io_threads,
            io_queue_depth: self.ssd_io_threads.saturating_mul(8).max(64),
            io_engine: match self.ssd_io_engine {
                SsdIoEngine::Uring => strata_ssd::IoEngine::Uring,
                SsdIoEngine::Threads => strata_ssd::IoEngine::Threads,
            },
            dram_cache_size: self.record_cache_size().bytes(),
            ..strata_ssd::SsdConfig::default()
        }
    }

    /// What the engine does with the SSD tier on its own.
    pub fn ssd_settings(&self) -> strata_kv::SsdSettings {
        strata_kv::SsdSettings {
            flush_interval: self.ssd_flush_interval.0,
            defrag_threshold_pct: self.ssd_defrag_threshold_pct,
            read_path: match self.ssd_reads {
                SsdReads::Deferred => strata_kv::fetch::ReadPath::Deferred,
                SsdReads::Inline => strata_kv::fetch::ReadPath::Inline,
            },
            // The server adds search's marks when it shares the store.
            other_users: strata_ssd::OtherUsers::none(),
        }
    }

    /// The arena's persist policy.
    pub fn pmem_policy(&self) -> PersistPolicy {
        match self.pmem_persist {
            PmemPersist::Auto => PersistPolicy::Auto,
            PmemPersist::Dax => PersistPolicy::RequireDax,
            PmemPersist::Emulated => PersistPolicy::ForceEmulated,
        }
    }

    /// Checks the placement settings; the error names the option.
    pub(crate) fn validate_tiers(&self) -> Result<(), (&'static str, String)> {
        let placement = self.placement();
        if placement.data == DataTier::Ssd {
            self.ssd_config()
                .validate()
                .map_err(|e| ("ssd_block_size", e.to_string()))?;
            if !(1..=99).contains(&self.ssd_defrag_threshold_pct) {
                return Err(("ssd_defrag_threshold_pct", "must be from 1 to 99".into()));
            }
            if self.ssd_io_threads == 0 || self.ssd_io_threads > 1024 {
                return Err(("ssd_io_threads", "must be from 1 to 1024".into()));
            }
            let interval = self.ssd_flush_interval.0;
            if interval < std::time::Duration::from_millis(1) || interval.as_secs() > 60 {
                return Err(("ssd_flush_interval", "must be from 1ms to 60s".into()));
            }
        }
        if placement.uses_pmem() && self.pmem_size < MIN_PMEM_SIZE {
            return Err((
                "pmem_size",
                format!("must be at least {MIN_PMEM_SIZE}, got {}", self.pmem_size),
            ));
        }
        if placement.data_persists() && self.persistence != PersistenceMode::Off {
            return Err((
                "persistence/data",
                format!(
                    "data = {} keeps the records durable in their tier; the command log \
                     (persistence = {}) is for records in DRAM: use one or the other",
                    placement.data,
                    format!("{:?}", self.persistence).to_lowercase()
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(toml: &str) -> Result<ServerConfig, String> {
        let mut config = ServerConfig::from_toml(toml)?;
        config.validate().map_err(|e| e.to_string())?;
        Ok(config)
    }

    #[test]
    fn placement_keys_parse_and_default_to_dram() {
        let config = parsed("").unwrap();
        assert_eq!(config.placement(), Placement::default());
        let config = parsed(
            "index = \"pmem\"\ndata = \"pmem\"\npmem_path = \"/dev/shm/s.pmem\"\n\
             pmem_size = \"128mb\"\npmem_persist = \"emulated\"",
        )
        .unwrap();
        assert!(config.placement().instant_restart());
        assert_eq!(config.pmem_file(), PathBuf::from("/dev/shm/s.pmem"));
        assert_eq!(config.pmem_policy(), PersistPolicy::ForceEmulated);
        let config = parsed("index = \"pmem\"").unwrap();
        assert_eq!(config.pmem_file(), config.data_dir.join("strata.pmem"));
    }

    #[test]
    fn unavailable_or_contradictory_placements_are_refused() {
        let config = parsed("data = \"ssd\"\nssd_path = \"/var/tmp/s\"\ndram_cache_size = \"8mb\"");
        let config = config.unwrap();
        assert_eq!(config.ssd_dir(), std::path::PathBuf::from("/var/tmp/s"));
        assert_eq!(config.ssd_config().dram_cache_size, 8 << 20);
        assert_eq!(config.ssd_config().io_engine, strata_ssd::IoEngine::Uring);
        let threads = parsed("data = \"ssd\"\nssd_io_engine = \"threads\"").unwrap();
        assert_eq!(
            threads.ssd_config().io_engine,
            strata_ssd::IoEngine::Threads
        );
        assert!(parsed("ssd_io_engine = \"aio\"").is_err());
        let both = parsed("index = \"pmem\"\ndata = \"ssd\"").unwrap();
        assert!(both.placement().instant_restart());
        let err = parsed("data = \"ssd\"\nssd_block_size = \"3mb\"").unwrap_err();
        assert!(err.contains("ssd_block_size"), "{err}");
        let err = parsed("data = \"ssd\"\nssd_defrag_threshold_pct = 0").unwrap_err();
        assert!(err.contains("ssd_defrag_threshold_pct"), "{err}");
        let err = parsed("data = \"ssd\"\npersistence = \"async\"").unwrap_err();
        assert!(err.contains("persistence/data"), "{err}");
        let err = parsed("data = \"pmem\"\npersistence = \"sync\"").unwrap_err();
        assert!(err.contains("persistence/data"), "{err}");
        let err = parsed("index = \"pmem\"\npmem_size = \"8mb\"").unwrap_err();
        assert!(err.contains("pmem_size"), "{err}");
        assert!(parsed("data = \"tape\"").is_err());
        // An index in pmem over DRAM records may use the command log.
        assert!(parsed("index = \"pmem\"\npersistence = \"sync\"").is_ok());
    }
}
