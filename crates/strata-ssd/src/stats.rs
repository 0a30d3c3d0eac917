//! What the SSD tier reports: [`SsdStats`] (blocks, bytes, reads, writes,
//! cache, defragmentation, the last rebuild, space per user) and the
//! counters behind it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use strata_cache::CacheStats;

use crate::user::StoreUser;

/// A snapshot of the store's state and counters since it was opened.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct SsdStats {
    /// True when the device bypasses the OS page cache (`O_DIRECT`); false
    /// for the buffered fallback ("SSD tier not direct").
    pub direct: bool,
    /// True when no write within the device can fail for lack of space
    /// (its blocks are reserved on the filesystem, or it is a device).
    pub space_reserved: bool,
    /// Bytes per write block.
    pub block_size: u64,
    /// Write blocks on the device (the header block excluded).
    pub blocks_total: u64,
    /// Blocks ready for appends.
    pub blocks_free: u64,
    /// Blocks taking appends: the primary's open block (0 or 1) and run
    /// blocks being written.
    pub blocks_open: u64,
    /// Read-only blocks holding entries.
    pub blocks_sealed: u64,
    /// Blocks with nothing live, waiting for their freed marker (the next
    /// flush).
    pub blocks_freeing: u64,
    /// The reserve kept for defragmentation.
    pub blocks_reserved: u64,
    /// Bytes of the device in use by open and sealed blocks (dead entries
    /// included).
    pub bytes_used: u64,
    /// Bytes of live entries.
    pub bytes_live: u64,
    /// Device capacity in bytes.
    pub capacity: u64,
    /// Entries appended (relocations included).
    pub appends: u64,
    /// Reads served by the device (cache misses outside the open block).
    pub device_reads: u64,
    /// Bytes those reads transferred.
    pub device_read_bytes: u64,
    /// Reads served from the open block's DRAM buffer.
    pub buffer_reads: u64,
    /// Misses read through the ring of the serving thread that asked (the
    /// io_uring engine), not handed to the reader pool.
    pub thread_ring_reads: u64,
    /// Block writes (sealing a block, flushing the open one, freed markers).
    pub block_writes: u64,
    /// Bytes written to the device.
    pub bytes_written: u64,
    /// Device syncs.
    pub syncs: u64,
    /// The DRAM record cache.
    pub cache: CacheStats,
    /// Defragmentation and freeing work.
    pub defrag: DefragStats,
    /// The rebuild done when the store was opened.
    pub rebuild: RebuildStats,
    /// Space per user holding blocks, the primary user first (always
    /// listed).
    pub users: Vec<UserSpace>,
}

/// One user's share of the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UserSpace {
    /// Whose blocks these are.
    pub user: StoreUser,
    /// Blocks holding its entries (open, sealed, or freeing until their
    /// freed marker is written).
    pub blocks: u64,
    /// Bytes of those blocks in use (dead entries included).
    pub bytes_used: u64,
    /// Bytes of its live entries.
    pub bytes_live: u64,
}

/// Defragmentation work since the store was opened.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DefragStats {
    /// Blocks freed (freed marker written and synced), by the
    /// defragmenter or because all their entries were released.
    pub blocks_freed: u64,
    /// Entries re-appended by `append_relocated`.
    pub entries_moved: u64,
    /// Bytes those entries occupy.
    pub bytes_moved: u64,
}

/// What the rebuild at open found and how long it took.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RebuildStats {
    /// The device was blank and has just been formatted.
    pub formatted: bool,
    /// From `open` to the end of `finish`.
    pub duration: Duration,
    /// Block headers read.
    pub blocks_scanned: u64,
    /// Blocks holding entries.
    pub blocks_valid: u64,
    /// Entries delivered to the scan visitor.
    pub entries: u64,
    /// Payload bytes delivered.
    pub payload_bytes: u64,
    /// Blocks whose tail was torn by a power cut and cut off.
    pub torn_blocks: u64,
    /// Bytes cut off those tails.
    pub bytes_dropped: u64,
    /// Blocks freed at the end because nothing in them was marked live.
    pub blocks_released: u64,
}

/// Counters updated as the store works (relaxed: statistics only).
#[derive(Default)]
pub(crate) struct Counters {
    pub(crate) appends: AtomicU64,
    pub(crate) device_reads: AtomicU64,
    pub(crate) device_read_bytes: AtomicU64,
    pub(crate) buffer_reads: AtomicU64,
    pub(crate) thread_ring_reads: AtomicU64,
    pub(crate) block_writes: AtomicU64,
    pub(crate) bytes_written: AtomicU64,
    pub(crate) syncs: AtomicU64,
    pub(crate) blocks_freed: AtomicU64,
    pub(crate) entries_moved: AtomicU64,
    pub(crate) bytes_moved: AtomicU64,
}

/// Adds `n` to a counter.
pub(crate) fn add(counter: &AtomicU64, n: u64) {
    counter.fetch_add(n, Ordering::Relaxed);
}

/// Reads a counter.
pub(crate) fn get(counter: &AtomicU64) -> u64 {
    counter.load(Ordering::Relaxed)
}
