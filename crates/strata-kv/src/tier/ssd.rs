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

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use strata_ssd::{BlockLoc, IndexHome, Position, SsdError, SsdStats, SsdStore};

use super::fallbacks::Fallbacks;
use super::stub::{Prior, StubValue, PERSISTENT_STUB_VALUE_LEN, VALUE_REF_LEN};
use crate::KvError;

/// An entry holding a whole record.
pub(crate) const KIND_PUT: u8 = 1;
/// An entry holding a deleted key.
pub(crate) const KIND_TOMBSTONE: u8 = 2;
/// An entry holding a deleted chunk of a large collection.
pub(crate) const KIND_CHUNK_TOMBSTONE: u8 = 4;
/// An entry marking a flush of the whole keyspace.
pub(crate) const KIND_FLUSH: u8 = 3;
/// Payload bytes of a flush marker (a sequence number, for debugging).
pub(crate) const FLUSH_PAYLOAD_LEN: usize = 8;

/// The entry kind of a tombstone of a key in `ns`.
pub(crate) fn tombstone_kind(ns: crate::chunk::Namespace) -> u8 {
    match ns {
        crate::chunk::Namespace::User => KIND_TOMBSTONE,
        crate::chunk::Namespace::Chunk => KIND_CHUNK_TOMBSTONE,
    }
}

/// What the engine does with the SSD tier on its own.
#[derive(Debug, Clone)]
pub struct SsdSettings {
    /// How often appended records are made durable (`ssd_flush_interval`).
    pub flush_interval: Duration,
    /// Blocks with less live data than this percentage are defragmented.
    pub defrag_threshold_pct: u8,
    /// How requests read values only the device has.
    pub read_path: crate::fetch::ReadPath,
}

impl Default for SsdSettings {
    fn default() -> Self {
        Self {
            flush_interval: Duration::from_millis(100),
            defrag_threshold_pct: 50,
            read_path: crate::fetch::ReadPath::Deferred,
        }
    }
}

/// What the start found on the SSD (reported in `INFO tiers`).
#[derive(Debug, Clone, Copy, Default)]
pub struct SsdRebuild {
    /// Entries read by the rebuild scan.
    pub entries: u64,
    /// Items restored.
    pub items: u64,
    /// Tombstones kept.
    pub tombstones: u64,
    /// Wall time of the whole rebuild (scan and index).
    pub duration: Duration,
    /// Keys whose records had none reached the device (an adopted
    /// persistent index after a crash; each was created within the flush
    /// window): dropped at the start.
    pub keys_lost: u64,
    /// Keys whose newest record had not reached the device but an older
    /// one had (an adopted persistent index after a crash): served with
    /// that one.
    pub keys_restored: u64,
}

/// The live tombstone entries, by block: offset and key length, 8 bytes of
/// DRAM each. A
/// tombstone is live from its append until the defragmenter finds it
/// unneeded or a flush releases it (the flush marker then shadows it).
#[derive(Default)]
struct Tombstones {
    by_block: HashMap<u32, Vec<(u32, u32)>>,
    count: u64,
}

impl Tombstones {
    fn add(&mut self, loc: BlockLoc, key_len: usize) {
        let entry = (loc.offset, key_len as u32);
        self.by_block.entry(loc.block).or_default().push(entry);
        self.count += 1;
    }

    fn contains(&self, loc: BlockLoc) -> bool {
        self.by_block
            .get(&loc.block)
            .is_some_and(|offsets| offsets.iter().any(|&(o, _)| o == loc.offset))
    }

    fn remove(&mut self, loc: BlockLoc) -> bool {
        let Some(offsets) = self.by_block.get_mut(&loc.block) else {
            return false;
        };
        let Some(at) = offsets.iter().position(|&(o, _)| o == loc.offset) else {
            return false;
        };
        offsets.swap_remove(at);
        if offsets.is_empty() {
            self.by_block.remove(&loc.block);
        }
        self.count -= 1;
        true
    }
}

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
}

impl std::fmt::Debug for SsdTier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SsdTier")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
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

    /// Appends a live tombstone for `key` (under the key's shard lock). It
    /// may use the blocks kept in reserve (like the defragmenter), so that
    /// deleting still works when the tier is full: deleting is how a user
    /// makes room. With a persistent index there is nothing to append: the
    /// index entry's removal is the durable delete.
    pub(crate) fn append_tombstone(
        &self,
        key: &[u8],
        ns: crate::chunk::Namespace,
    ) -> Result<(), KvError> {
        if self.home == IndexHome::Persistent {
            return Ok(());
        }
        let loc = self
            .store
            .append_reserved(tombstone_kind(ns), key)
            .map_err(ssd_error)?;
        self.tombstones.lock().add(loc, key.len());
        Ok(())
    }

    /// Counts the tombstone at `loc` as live (a rebuild).
    pub(crate) fn keep_tombstone(&self, loc: BlockLoc, key_len: usize) {
        self.tombstones.lock().add(loc, key_len);
    }

    /// Whether the tombstone at `loc` is live.
    pub(crate) fn tombstone_live(&self, loc: BlockLoc) -> bool {
        self.tombstones.lock().contains(loc)
    }

    /// Releases the live tombstone at `loc` of `key_len` bytes (the
    /// defragmenter, under the key's shard lock); false if it was not live.
    pub(crate) fn drop_tombstone(&self, loc: BlockLoc, key_len: usize) -> bool {
        let dropped = self.tombstones.lock().remove(loc);
        if dropped {
            self.release(loc, key_len);
        }
        dropped
    }

    /// Replaces the live tombstone at `from` by its relocated copy `to`.
    pub(crate) fn moved_tombstone(&self, from: BlockLoc, to: BlockLoc, key_len: usize) {
        let mut live = self.tombstones.lock();
        if live.remove(from) {
            live.add(to, key_len);
            drop(live);
            self.release(from, key_len);
        }
    }

    /// Live tombstones now.
    pub fn tombstones(&self) -> u64 {
        self.tombstones.lock().count
    }

    /// Releases the entry at `loc` of `len` payload bytes. A failure means
    /// the engine's accounting and the store's disagree: logged, never
    /// fatal (the block is then freed later than it could be).
    pub(crate) fn release(&self, loc: BlockLoc, len: usize) {
        if let Err(e) = self.store.release(loc, len) {
            tracing::error!(error = %e, %loc, "releasing an SSD entry failed");
        }
    }

    /// Appends a flush marker before a flush of the whole keyspace
    /// releases every entry; the previous marker is released.
    pub(crate) fn begin_flush(&self) -> Result<(), KvError> {
        let n = self.flushes.fetch_add(1, Ordering::Relaxed);
        let loc = self
            .store
            .append_reserved(KIND_FLUSH, &n.to_le_bytes())
            .map_err(ssd_error)?;
        if let Some(old) = self.flush_marker.lock().replace(loc) {
            self.release(old, FLUSH_PAYLOAD_LEN);
        }
        // Every tombstone lies before the marker: shadowed by it now.
        let live = std::mem::take(&mut *self.tombstones.lock());
        for (block, offsets) in live.by_block {
            for (offset, len) in offsets {
                self.release(BlockLoc { block, offset }, len as usize);
            }
        }
        Ok(())
    }

    /// Whether `block` holds the current flush marker.
    pub(crate) fn holds_flush_marker(&self, block: u32) -> bool {
        self.flush_marker.lock().is_some_and(|m| m.block == block)
    }

    /// Drops the flush marker found at `loc` in the oldest block, which the
    /// defragmenter is emptying: nothing older is left for it to shadow.
    /// (The defragmenter never empties the marker's block before it is the
    /// oldest: see `open/defrag.rs`.)
    pub(crate) fn drop_oldest_marker(&self, loc: BlockLoc) {
        let mut marker = self.flush_marker.lock();
        if *marker == Some(loc) {
            *marker = None;
            self.release(loc, FLUSH_PAYLOAD_LEN);
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
