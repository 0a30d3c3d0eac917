//! Opening a keyspace whose records live on the SSD tier (`data = ssd`):
//! rebuilt by a scan (`ssd_rebuild.rs`) or adopted from the persistent
//! arena (`ssd_adopt.rs`).

use std::sync::Arc;

use strata_pmem::PersistentArena;

use super::{ssd_adopt, ssd_rebuild};
use crate::clock::Clock;
use crate::config::KeyspaceConfig;
use crate::keyspace::Keyspace;
use crate::tier::{IndexTier, RestartReport, SsdSettings};

impl Keyspace {
    /// Opens a keyspace whose records live on the SSD `device` (`data =
    /// ssd`). With `index = dram` the index and stubs are rebuilt by
    /// scanning the write blocks; with `index = pmem` they live in `pmem`
    /// and are adopted as found (`open/ssd_adopt.rs`).
    pub fn open_ssd(
        config: KeyspaceConfig,
        clock: Arc<dyn Clock>,
        index: IndexTier,
        pmem: Option<Arc<PersistentArena>>,
        device: Arc<dyn strata_ssd::BlockDevice>,
        ssd_config: strata_ssd::SsdConfig,
        settings: SsdSettings,
    ) -> Result<(Arc<Keyspace>, RestartReport), String> {
        match (index, pmem) {
            (IndexTier::Dram, _) => {
                ssd_rebuild::rebuild(config, clock, device, ssd_config, settings)
            }
            (IndexTier::Pmem, Some(arena)) => {
                ssd_adopt::adopt(config, clock, arena, device, ssd_config, settings)
            }
            (IndexTier::Pmem, None) => {
                Err("index = pmem needs a persistent arena (pmem_path)".into())
            }
        }
    }
}
