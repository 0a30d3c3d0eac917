//! The shared state behind every [`SsdStore`] handle ([`Inner`]) and the
//! handle itself; the methods live with their concern (`write`, `read`,
//! `defrag`, and the store's façade in `store/mod.rs`). A leaf: it names
//! the block table, the open block's buffer and the read buffers, never
//! the modules that act on them.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;
use strata_cache::UserCache;
use strata_device::BlockDevice;

use super::buffers::ReadBuffers;
use super::geometry::Geometry;
use super::table::BlockTable;
use super::writer::Writer;
use crate::config::{SsdConfig, RECORD_CACHE_USER};
use crate::error::SsdError;
use crate::format::device_header::DeviceHeader;
use crate::loc::BlockLoc;
use crate::pool::IoPool;
use crate::rings::Rings;
use crate::stats::{Counters, RebuildStats};

/// The version of a cached record: the block's sequence number makes a
/// reused block's locations new versions, so a stale record is never hit.
/// Records are cached under a *hint*: the engine's hash of the user key
/// (so a rewritten key keeps its place in the cache), or [`loc_hint`].
pub(crate) type Version = (u64, BlockLoc);

/// The cache key of a record read without a hint: its location.
pub(crate) fn loc_hint(loc: BlockLoc) -> u64 {
    loc.pack().wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// The record cache `config` asks for: the store's share of its shared
/// cache (emptied of records an earlier store left there: versions are
/// only unique on one device), a cache of its own, or none (a budget of 0).
pub(crate) fn record_cache(
    config: &SsdConfig,
) -> Result<Option<UserCache<u64, Version>>, SsdError> {
    let Some(shared) = &config.shared_cache else {
        return Ok((config.dram_cache_size > 0).then(|| UserCache::new(config.dram_cache_size)));
    };
    let cache = UserCache::shared(shared, RECORD_CACHE_USER)
        .ok_or_else(|| SsdError::Config(format!("{shared:?} serves no more users")))?;
    cache.remove_if(|_| true);
    Ok(Some(cache))
}

/// Everything a store handle shares.
pub(crate) struct Inner {
    pub(crate) device: Arc<dyn BlockDevice>,
    pub(crate) geometry: Geometry,
    pub(crate) nonce: u64,
    /// The device header as the store opened it.
    pub(crate) device_header: DeviceHeader,
    /// The device is at a version whose block headers record their owner
    /// (set before the first block of another user is written).
    pub(crate) users_enabled: AtomicBool,
    pub(crate) table: BlockTable,
    pub(crate) writer: Mutex<Writer>,
    /// Every block with a sequence at or below this is complete and synced.
    pub(crate) frontier: AtomicU64,
    /// Every entry before this [`Position`] (its bits) is synced: the
    /// frontier, plus the open block's prefix a flush synced.
    pub(crate) synced_to: AtomicU64,
    /// A device write happened since the last sync.
    pub(crate) unsynced: AtomicBool,
    /// Sequences of run blocks taken but not yet written and sealed
    /// (runs write outside the writer lock): no sync claims them.
    pub(crate) runs_writing: Mutex<BTreeSet<u64>>,
    /// Set by the first failed write or sync: no more writes.
    pub(crate) poison: OnceLock<String>,
    pub(crate) counters: Counters,
    /// The record cache: of its own, or the store's share of a shared one.
    pub(crate) cache: Option<UserCache<u64, Version>>,
    pub(crate) pool: IoPool,
    /// The serving threads' own rings (the io_uring engine on a file).
    pub(crate) rings: Option<Rings>,
    /// Buffers of device reads (large ones pooled).
    pub(crate) buffers: Arc<ReadBuffers>,
    pub(crate) rebuild: RebuildStats,
}

impl Inner {
    /// Refuses work after a failed write or sync.
    pub(crate) fn check_poison(&self) -> Result<(), SsdError> {
        match self.poison.get() {
            Some(cause) => Err(SsdError::Poisoned(cause.clone())),
            None => Ok(()),
        }
    }

    /// Records `error` as the poison (the first one wins) and returns it.
    pub(crate) fn fail(&self, error: SsdError) -> SsdError {
        tracing::error!(%error, "SSD tier poisoned");
        let _ = self.poison.set(error.to_string());
        error
    }
}

/// The SSD tier's write-block store. Cheap to clone; every method takes
/// `&self` and may be called from any thread.
///
/// Obtained from [`SsdStore::open`] then
/// [`Recovery::finish`](crate::Recovery::finish).
#[derive(Clone)]
pub struct SsdStore {
    pub(crate) inner: Arc<Inner>,
}
