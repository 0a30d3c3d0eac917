//! The `SearchIndex` struct: what one open index holds (settings,
//! mapping, shards, translog slot, flush state, counters). Its methods
//! live in the parent module and its siblings, by concern; this leaf only
//! defines the state they share.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Mutex, RwLock};
use strata_device::Directory;

use super::counters::IndexCounters;
use super::translog_slot::TranslogSlot;
use crate::mapping::Mappings;
use crate::settings::IndexSettings;
use crate::shard::Shard;
use crate::store::{ReadCounters, SearchFiles};

/// One index.
pub struct SearchIndex {
    pub(super) name: String,
    pub(super) dir: PathBuf,
    /// The index's directory as the device layer sees it (`index.json`).
    pub(super) meta: Arc<dyn Directory>,
    /// The node's tree, where the index's sizes are measured.
    pub(super) files: SearchFiles,
    pub(super) settings: RwLock<IndexSettings>,
    pub(super) mappings: RwLock<Arc<Mappings>>,
    pub(super) shards: Vec<Shard>,
    pub(super) translog: TranslogSlot,
    pub(super) flushing: Mutex<FlushState>,
    pub(super) last_refresh: Mutex<Instant>,
    /// When the last write started.
    pub(super) last_write: Mutex<Instant>,
    /// Without writes this long, the index closes its writers and translog.
    pub(super) idle_after: Duration,
    /// Operation counters.
    pub counters: IndexCounters,
    /// Block-cache hits and misses of this index's shards.
    pub(crate) reads: std::sync::Arc<ReadCounters>,
    /// Translog records replayed when the index was opened.
    pub(super) replayed: u64,
    /// Held while `index.json` is rebuilt and replaced: concurrent mapping
    /// updates would otherwise share its temporary device, and an older
    /// body could replace a newer one.
    pub(super) saving_metadata: Mutex<()>,
}

/// The last flush: what it made durable, and when.
pub(super) struct FlushState {
    /// Translog LSN every shard's durable commit covers.
    pub(super) durable_lsn: u64,
    pub(super) at: Instant,
}

impl std::fmt::Debug for SearchIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchIndex")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// The index's settings and mapping, in its directory.
pub(crate) const METADATA: &str = "index.json";
