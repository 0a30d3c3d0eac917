//! The SSD tier of a keyspace (`data = ssd`): records live in the write
//! blocks of an [`SsdStore`]; DRAM keeps the index and, per key, a *stub*
//! record in the shard's arena (key, CAS, flags, expiry, like any record)
//! whose value names the SSD entry: its location and length (`stub.rs`).
//! So lookups, expiry, eviction, `SCAN` and `TTL` never touch the device;
//! only reading a value does, through the store's DRAM record cache.
//!
//! Entries on the SSD (their kind byte):
//! - [`KIND_PUT`]: a whole record in the arena's encoding (key, CAS, flags,
//!   expiry, value), what a rebuild needs to restore the key;
//! - [`KIND_TOMBSTONE`]: a key, appended when an item leaves (delete,
//!   expiry, eviction) so that a rebuild does not bring back an older
//!   version still on the device;
//! - [`KIND_FLUSH`]: a flush of the whole keyspace: a rebuild forgets every
//!   entry before it.
//!
//! The rules that keep deletes deleted are `strata-ssd`'s (its crate
//! documentation): exactly the entries the keyspace points at are live (a
//! stub's entry, a shard's tombstones, the last flush marker); a superseded
//! entry is released only after the superseding append returned; the
//! defragmenter (`defrag.rs`) relocates live entries under the key's shard
//! lock and drops a tombstone only from the oldest block; it never moves
//! the flush marker, which it drops with the oldest block.
//!
//! Durability: an append is durable after the next [`SsdStore::flush`],
//! which maintenance runs every `flush_interval`: a power cut loses at
//! most that window, like the command log's `async` mode. With a
//! persistent index, a stub also names where a restart finds the key's
//! newest durable record if its own is lost (`stub.rs`, `fallbacks.rs`).
//!
//! Here: [`SsdTier`], its appends, releases and durability; `entries.rs`
//! names the entry kinds, `settings.rs` the settings and the start's
//! report, `tombstones.rs` and `deletes.rs` keep deletes deleted, and
//! `info.rs` reports the tier in `INFO tiers`.

mod deletes;
mod entries;
mod info;
mod settings;
mod tombstones;

use std::sync::atomic::AtomicU64;
use std::time::Instant;

use parking_lot::{Mutex, MutexGuard};
use strata_ssd::{BlockLoc, IndexHome, Position, SsdError, SsdStats, SsdStore};

pub(crate) use entries::{
    tombstone_kind, FLUSH_PAYLOAD_LEN, KIND_CHUNK_TOMBSTONE, KIND_FLUSH, KIND_PUT, KIND_TOMBSTONE,
};
pub use settings::{SsdRebuild, SsdSettings};
use tombstones::Tombstones;

use crate::tier::fallbacks::Fallbacks;
use crate::tier::stub::{Prior, StubValue, PERSISTENT_STUB_VALUE_LEN, VALUE_REF_LEN};
use crate::KvError;

/// The keyspace's SSD tier: the store plus what the keyspace as a whole
/// keeps live on it.
pub struct SsdTier {
    store: SsdStore,
    settings: SsdSettings,
    /// Where the index survives restarts: rebuilt from the device (which
    /// then needs tombstones and flush markers) or persistent (a removal
    /// is durable in the index itself; the device only holds records).
    home: IndexHome,
    /// The newest flush marker, live until it sits in the oldest block.
    flush_marker: Mutex<Option<BlockLoc>>,
    /// Live tombstones (payload length: their key's).
    tombstones: Mutex<Tombstones>,
    flushes: AtomicU64,
    /// With a persistent index: superseded records kept as fallbacks.
    fallbacks: Fallbacks,
    last_sync: Mutex<Instant>,
    rebuild: Mutex<SsdRebuild>,
    /// The defragmenter's candidate blocks (see [`DefragQueue`]). Its lock
    /// is held while a block is emptied, so one block is emptied at a time,
    /// whoever empties it (maintenance, or a writer making room).
    defrag_queue: Mutex<DefragQueue>,
}

impl std::fmt::Debug for SsdTier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SsdTier")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

/// The defragmenter's candidates, the next one last. `dry`: the last
/// listing found none, so writers making room do not list again (a scan of
/// every block per write on a tier full of live data) until maintenance's
/// next pass lists them afresh.
#[derive(Debug, Default)]
pub(crate) struct DefragQueue {
    pub(crate) blocks: Vec<u32>,
    pub(crate) dry: bool,
}

/// The engine's error for a store error.
pub(crate) fn ssd_error(e: SsdError) -> KvError {
    match e {
        SsdError::Full { .. } => KvError::StorageFull,
        SsdError::TooLarge { len, max } => KvError::TooLarge {
            size: len,
            limit: max,
        },
        other => KvError::Storage {
            cause: other.to_string(),
        },
    }
}

impl SsdTier {
    pub(crate) fn new(
        store: SsdStore,
        settings: SsdSettings,
        home: IndexHome,
        marker: Option<BlockLoc>,
    ) -> Self {
        Self {
            store,
            settings,
            home,
            flush_marker: Mutex::new(marker),
            tombstones: Mutex::default(),
            flushes: AtomicU64::new(0),
            fallbacks: Fallbacks::default(),
            last_sync: Mutex::new(Instant::now()),
            rebuild: Mutex::new(SsdRebuild::default()),
            defrag_queue: Mutex::default(),
        }
    }

    /// The write-block store.
    pub fn store(&self) -> &SsdStore {
        &self.store
    }

    /// Where the keyspace's index survives restarts.
    pub fn index_home(&self) -> IndexHome {
        self.home
    }

    /// Bytes of a stub's value: the record's reference, and with a
    /// persistent index its [`Prior`] too.
    pub(crate) fn stub_value_len(&self) -> usize {
        match self.home {
            IndexHome::Persistent => PERSISTENT_STUB_VALUE_LEN,
            IndexHome::Rebuilt => VALUE_REF_LEN,
        }
    }

    /// The prior of a new stub whose record was just appended at
    /// `current` (see `fallbacks.rs`); `old` is the key's stub until now.
    /// Without a persistent index there is none: a restart rebuilds from
    /// the device.
    pub(crate) fn prior_for(&self, old: Option<StubValue>, current: BlockLoc, hint: u64) -> Prior {
        if self.home != IndexHome::Persistent {
            return Prior::None;
        }
        let position = self
            .store
            .position(current)
            .unwrap_or_else(|| self.store.synced_position());
        self.fallbacks.prior_for(&self.store, old, position, hint)
    }

    /// Undoes a [`prior_for`](Self::prior_for) whose stub was not linked.
    pub(crate) fn unkeep(&self, prior: &Prior, old: Option<StubValue>) {
        if let (Prior::Fallback { record, .. }, Some(old)) = (prior, old) {
            if *record == old.current {
                self.fallbacks.unkeep(record);
            }
        }
    }

    /// Records kept on the device as fallbacks of stubs whose own record
    /// is not durable yet.
    pub fn fallbacks_kept(&self) -> usize {
        self.fallbacks.count()
    }

    /// Where an entry lies in append order (for tests and reports).
    pub fn position(&self, loc: BlockLoc) -> Option<Position> {
        self.store.position(loc)
    }

    /// The settings in force.
    pub fn settings(&self) -> &SsdSettings {
        &self.settings
    }

    /// The store's counters.
    pub fn stats(&self) -> SsdStats {
        self.store.stats()
    }

    /// What the start's rebuild found.
    pub fn rebuild_report(&self) -> SsdRebuild {
        *self.rebuild.lock()
    }

    pub(crate) fn set_rebuild_report(&self, report: SsdRebuild) {
        *self.rebuild.lock() = report;
    }

    /// The defragmenter's queue of candidate blocks (see the field), locked.
    pub(crate) fn defrag_queue(&self) -> MutexGuard<'_, DefragQueue> {
        self.defrag_queue.lock()
    }

    /// Appends a whole record, also caching it in DRAM: a key just
    /// written is likely read again (hot keys of a skewed load are written
    /// often, and each write moves them).
    /// `hint` is the key's hash: the record takes the place of the key's
    /// older cached record, hotness included.
    pub(crate) fn append_put(&self, record: &[u8], hint: u64) -> Result<BlockLoc, KvError> {
        self.store
            .append_cached(KIND_PUT, record, hint)
            .map_err(ssd_error)
    }

    /// Releases the record at `loc` (`len` bytes) of the key hashing to
    /// `hint` (see [`release`](Self::release)).
    pub(crate) fn release_value(&self, loc: BlockLoc, len: usize, hint: u64) {
        if let Err(e) = self.store.release_hinted(loc, len, hint) {
            tracing::error!(error = %e, %loc, "releasing an SSD entry failed");
        }
    }

    /// Releases the entry at `loc` of `len` payload bytes. A failure means
    /// the engine's accounting and the store's disagree: logged, never
    /// fatal (the block is then freed later than it could be).
    pub(crate) fn release(&self, loc: BlockLoc, len: usize) {
        if let Err(e) = self.store.release(loc, len) {
            tracing::error!(error = %e, %loc, "releasing an SSD entry failed");
        }
    }

    /// Makes every append so far durable when `flush_interval` has passed
    /// since the last time. Errors poison the store (and are logged).
    pub(crate) fn sync_if_due(&self) {
        let mut last = self.last_sync.lock();
        if last.elapsed() < self.settings.flush_interval {
            return;
        }
        *last = Instant::now();
        drop(last);
        self.sync();
    }

    /// Makes every append so far durable now (errors are logged).
    pub fn sync(&self) {
        if let Err(e) = self.flush() {
            tracing::error!(error = %e, "flushing the SSD tier failed");
        }
    }

    /// Makes every append so far durable, then releases the fallbacks
    /// that stubs no longer need. A failure poisons the store.
    pub(crate) fn flush(&self) -> Result<(), SsdError> {
        self.fallbacks.flush(&self.store)
    }
}
