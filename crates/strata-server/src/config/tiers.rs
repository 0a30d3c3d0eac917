//! Placement settings: which tier holds the index and the records, and the
//! persistent-memory file they may use.

use std::path::PathBuf;

use serde::Deserialize;
use strata_kv::{DataTier, IndexTier, Placement};
use strata_pmem::PersistPolicy;

use super::persistence::PersistenceMode;
use super::size::ByteSize;
use super::ServerConfig;

/// Smallest persistent-memory file.
pub const MIN_PMEM_SIZE: ByteSize = ByteSize::mib(64);
/// Chunk size of the persistent arena: one record segment per chunk, and
/// the smallest index table of a shard (so 64 shards start with 16 MiB of
/// tables).
pub const PMEM_CHUNK_SIZE: u64 = 256 << 10;

/// Where the hash index lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum IndexPlacement {
    /// Ordinary memory, rebuilt at every start.
    #[default]
    Dram,
    /// The persistent-memory file: served as found after a restart.
    Pmem,
}

/// Where the records live.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum DataPlacement {
    /// Ordinary memory.
    #[default]
    Dram,
    /// The persistent-memory file: records survive restarts in place.
    Pmem,
    /// SSD write blocks behind a DRAM cache (not available yet).
    Ssd,
}

/// How the persistent-memory file is made durable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum PmemPersist {
    /// Real persistent memory (DAX, `MAP_SYNC`, cache-line flushes) when the
    /// file allows it, else emulated with `msync`, said at start-up.
    #[default]
    Auto,
    /// Refuse to start unless the file is on real persistent memory.
    Dax,
    /// Always `msync` (for testing the emulated path on DAX).
    Emulated,
}

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
            return Err((
                "data",
                "data = ssd is not available in this build yet; use dram or pmem".into(),
            ));
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
                     (persistence = {:?}) is for records in DRAM: use one or the other",
                    placement.data, self.persistence
                ),
            ));
        }
        Ok(())
    }
}
