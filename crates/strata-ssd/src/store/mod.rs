//! [`SsdStore`]: the write-block store, the handle the engine holds.
//!
//! - `table`: the state of every block (free, open, sealed, freeing), live
//!   bytes, the free list.
//! - `handle`: the state every handle shares (`Inner`) and the handle.
//! - `writer`: the open block's DRAM buffer.
//! - `write`: appends, sealing, `flush`, and the freed markers that make a
//!   block reusable.
//! - `read`: blocking reads through the record cache, and the steps of a
//!   read that pooled reads share.
//! - `pooled`: reads served by the reader pool (`read_async`).
//! - `run`: another user's entries written as whole blocks of its own.
//! - `defrag`: what the engine's defragmenter needs: candidates, whole-block
//!   entry lists, relocation, freeing.
//! - `geometry`: block offsets and sizes.
//!
//! Ordering rule that keeps freeing safe: a block's freed marker is written
//! only after a sync that follows every append made before the block
//! started freeing, and the block is reused only after a sync that follows
//! the marker. So whatever superseded a block's entries is durable before
//! the block stops being readable, and a block's new life never mixes with
//! its old one after a crash.

pub(crate) mod buffers;
pub(crate) mod defrag;
pub(crate) mod geometry;
pub(crate) mod handle;
mod pooled;
pub(crate) mod read;
mod run;
pub(crate) mod table;
mod write;
pub(crate) mod writer;

use std::future::Future;
use std::sync::Arc;

use bytes::Bytes;
use strata_device::BlockDevice;

use crate::config::{IoEngine, SsdConfig};
use crate::error::SsdError;
use crate::loc::BlockLoc;
use crate::position::Position;
use crate::recovery::Recovery;
use crate::stats::{get, DefragStats, RebuildStats, SsdStats, UserSpace};
use crate::user::StoreUser;
use handle::loc_hint;

pub use defrag::{Entry, FreeSpace};
pub use handle::SsdStore;

impl SsdStore {
    /// Opens `device`: formats it if its first block is all zeros,
    /// validates its header against `config` otherwise, and reads every
    /// block header (in parallel). The engine then rebuilds its index with
    /// [`Recovery::scan`], marks live entries with [`Recovery::set_live`]
    /// and calls [`Recovery::finish`] to get the store.
    pub fn open(device: Arc<dyn BlockDevice>, config: SsdConfig) -> Result<Recovery, SsdError> {
        crate::recovery::open(device, config)
    }

    /// Appends an entry of `kind` and `payload` to the open block and
    /// returns where it is. Readable at once; durable after the next
    /// successful [`flush`](Self::flush) (or earlier, if its block fills
    /// and a later flush syncs). Refused with [`SsdError::Full`] when a new
    /// block is needed and free blocks are at or below the reserve, with
    /// [`SsdError::TooLarge`] above [`max_payload`](Self::max_payload).
    /// The entry counts as live until [`release`](Self::release)d.
    pub fn append(&self, kind: u8, payload: &[u8]) -> Result<BlockLoc, SsdError> {
        self.inner
            .append_entry(kind, payload, writer::Room::Ordinary)
    }

    /// Appends `payloads`, in order, as entries of `kind` in fresh blocks
    /// of `user` (not the primary user, whose entries go into the open
    /// block): each block is filled, written and sealed, and the entries'
    /// locations returned. Readable at once, durable after the next
    /// successful [`flush`](Self::flush); each entry counts as live until
    /// [`release`](Self::release)d, and a block frees itself when nothing
    /// in it is. The user keeps the locations: a scan does not deliver its
    /// entries, and after a restart it marks the ones it still needs with
    /// [`Recovery::set_live`] before [`Recovery::finish`] frees the rest.
    /// Refused as a whole with [`SsdError::Full`] when the blocks it needs
    /// are not free beyond the reserve, [`SsdError::TooLarge`] for a
    /// payload over [`max_payload`](Self::max_payload). On a device of
    /// format version 1 the first run raises the format first.
    pub fn append_run(
        &self,
        user: StoreUser,
        kind: u8,
        payloads: &[&[u8]],
    ) -> Result<Vec<BlockLoc>, SsdError> {
        self.inner.append_run(user, kind, payloads)
    }

    /// Reads the payload of the entry at `loc`, from the record cache, the
    /// open block's buffer or the device (checking its CRC). The caller
    /// guarantees `loc` came from an append or a scan and is not released;
    /// otherwise the result is an error (`NotLive` or `Corrupt`), never
    /// another record's bytes.
    pub fn read(&self, loc: BlockLoc) -> Result<Bytes, SsdError> {
        self.inner.read(loc, None, loc_hint(loc))
    }

    /// [`read`](Self::read) of a record cached under `hint` (see
    /// [`append_cached`](Self::append_cached)); `payload_len`, when known,
    /// makes a device read one I/O.
    pub fn read_hinted(
        &self,
        loc: BlockLoc,
        payload_len: Option<usize>,
        hint: u64,
    ) -> Result<Bytes, SsdError> {
        self.inner.read(loc, payload_len, hint)
    }

    /// [`read`](Self::read) without device I/O: `Some` when the payload
    /// is in DRAM (record cache or the open block's buffer) or `loc` is
    /// not readable, `None` when only the device has it. A cache miss is
    /// counted (the fetch that follows does not count it again). `hint` is
    /// what the record is cached under.
    pub fn read_resident(&self, loc: BlockLoc, hint: u64) -> Option<Result<Bytes, SsdError>> {
        self.inner.read_resident(loc, hint)
    }

    /// [`read`](Self::read) served by the reader pool: a cache hit answers
    /// at once, a miss waits for a pool slot (bounded queue) and then for
    /// an I/O thread. Never blocks the async runtime.
    pub fn read_async(
        &self,
        loc: BlockLoc,
    ) -> impl Future<Output = Result<Bytes, SsdError>> + Send + 'static {
        pooled::read_async(self.inner.clone(), loc, true, None, loc_hint(loc))
    }

    /// [`read_async`](Self::read_async) after a [`read_resident`](Self::read_resident)
    /// that found nothing: goes straight to the reader pool (the miss was
    /// counted already) and caches what it reads. `payload_len`, when the
    /// caller knows it, makes it one device read even for an entry that
    /// crosses a 4 KiB boundary.
    pub fn fetch_async(
        &self,
        loc: BlockLoc,
        payload_len: Option<usize>,
        hint: u64,
    ) -> impl Future<Output = Result<Bytes, SsdError>> + Send + 'static {
        pooled::read_async(self.inner.clone(), loc, false, payload_len, hint)
    }

    /// [`append`](Self::append), also caching the payload in the record
    /// cache (write-allocate) under `hint`, the engine's identity of the
    /// object (a hash of its key): a new version of a cached object takes
    /// the old one's place and hotness. Reads of it pass the same hint.
    pub fn append_cached(&self, kind: u8, payload: &[u8], hint: u64) -> Result<BlockLoc, SsdError> {
        let loc = self.append(kind, payload)?;
        self.inner.cache_appended(loc, payload, hint);
        Ok(loc)
    }

    /// The record cached under `hint` at `from` was moved to `to` unchanged
    /// (the defragmenter): it stays cached.
    pub fn moved(&self, hint: u64, from: BlockLoc, to: BlockLoc) {
        let (Some(cache), Some(seq_from), Some(seq_to)) = (
            &self.inner.cache,
            self.inner.table.state(from.block).map(|s| s.1),
            self.inner.table.state(to.block).map(|s| s.1),
        ) else {
            return;
        };
        cache.revise(&hint, &(seq_from, from), (seq_to, to));
    }

    /// Counts the entry at `loc` (with `payload_len` bytes of payload) as
    /// dead, when the engine overwrote or dropped its record. The caller
    /// guarantees the entry is live and is released once, and that the
    /// append superseding it (if any) has returned. A sealed block left
    /// with nothing live starts freeing.
    pub fn release(&self, loc: BlockLoc, payload_len: usize) -> Result<(), SsdError> {
        self.inner.release(loc, payload_len, loc_hint(loc))
    }

    /// [`release`](Self::release) of a record cached under `hint`.
    pub fn release_hinted(
        &self,
        loc: BlockLoc,
        payload_len: usize,
        hint: u64,
    ) -> Result<(), SsdError> {
        self.inner.release(loc, payload_len, hint)
    }

    /// [`release`](Self::release) when the caller does not know the length:
    /// reads the entry header (cache, buffer or one 4 KiB device read)
    /// first. Returns the payload length.
    pub fn release_by_reading(&self, loc: BlockLoc) -> Result<usize, SsdError> {
        self.inner.release_by_reading(loc)
    }

    /// Writes the open block's filled prefix, syncs the device, then writes
    /// and syncs the freed markers of blocks that finished freeing. After
    /// `Ok`, every entry appended before the call survives a power cut. A
    /// failure poisons the store.
    pub fn flush(&self) -> Result<(), SsdError> {
        self.inner.flush()
    }

    /// Where the entry at `loc` lies in append order; `None` if its block
    /// is free (the entry cannot be live).
    pub fn position(&self, loc: BlockLoc) -> Option<Position> {
        self.block_seq(loc.block)
            .map(|seq| Position::new(seq, loc.offset))
    }

    /// Every entry of the primary user appended at a position before this
    /// one is durable (a successful flush, or a sync the store made on its
    /// own, covered it). Entries at or after it may or may not survive a
    /// power cut. Never moves back. (Runs are durable after the flush
    /// that follows them.)
    pub fn synced_position(&self) -> Position {
        Position::from_bits(
            self.inner
                .synced_to
                .load(std::sync::atomic::Ordering::SeqCst),
        )
    }

    /// Live bytes of `block` over the bytes entries can use (0.0..=1.0);
    /// `None` for a free or unknown block.
    pub fn live_fraction(&self, block: u32) -> Option<f64> {
        let (state, _) = self.inner.table.state(block)?;
        (state != table::BlockState::Free)
            .then(|| self.inner.table.live(block) as f64 / self.inner.geometry.usable() as f64)
    }

    /// Why the store takes no more writes, once a write or sync failed.
    pub fn poisoned(&self) -> Option<String> {
        self.inner.poison.get().cloned()
    }

    /// The largest payload an entry can carry.
    pub fn max_payload(&self) -> usize {
        self.inner.geometry.max_payload()
    }

    /// The device's identity, random per format (see
    /// [`Recovery::device_id`]).
    pub fn device_id(&self) -> u64 {
        self.inner.nonce
    }

    /// Bytes per write block.
    pub fn block_size(&self) -> usize {
        self.inner.geometry.block_size
    }

    /// What the rebuild at open found.
    pub fn rebuild_stats(&self) -> RebuildStats {
        self.inner.rebuild
    }

    /// How [`read_async`](Self::read_async) reads: the configured
    /// [`IoEngine`], or [`IoEngine::Threads`] where io_uring was refused
    /// or the device has no file under it (memory, faults).
    pub fn io_engine(&self) -> IoEngine {
        self.inner.pool.engine()
    }

    /// A snapshot of the state and counters.
    pub fn stats(&self) -> SsdStats {
        let inner = &self.inner;
        let census = inner.table.census();
        let c = &inner.counters;
        SsdStats {
            direct: inner.device.is_direct(),
            space_reserved: inner.device.space_reserved(),
            block_size: inner.geometry.block_size as u64,
            blocks_total: u64::from(inner.geometry.data_blocks()),
            blocks_free: u64::from(census.free),
            blocks_open: u64::from(census.open),
            blocks_sealed: u64::from(census.sealed),
            blocks_freeing: u64::from(census.freeing),
            blocks_reserved: u64::from(inner.geometry.reserve),
            bytes_used: census.used_bytes,
            bytes_live: census.live_bytes,
            capacity: inner.device.capacity(),
            appends: get(&c.appends),
            device_reads: get(&c.device_reads),
            device_read_bytes: get(&c.device_read_bytes),
            buffer_reads: get(&c.buffer_reads),
            thread_ring_reads: get(&c.thread_ring_reads),
            block_writes: get(&c.block_writes),
            bytes_written: get(&c.bytes_written),
            syncs: get(&c.syncs),
            cache: inner.cache.as_ref().map(|c| c.stats()).unwrap_or_default(),
            defrag: DefragStats {
                blocks_freed: get(&c.blocks_freed),
                entries_moved: get(&c.entries_moved),
                bytes_moved: get(&c.bytes_moved),
            },
            rebuild: inner.rebuild,
            users: (census.users.iter())
                .map(|(&user, c)| UserSpace {
                    user,
                    blocks: u64::from(c.blocks),
                    bytes_used: c.used_bytes,
                    bytes_live: c.live_bytes,
                })
                .collect(),
        }
    }
}
