//! Placement settings: which tier holds the index and the records, the
//! persistent-memory file they may use, and the SSD tier's device, record
//! cache and background work.

use serde::Deserialize;

use strata_units::ByteSize;

/// Smallest persistent-memory file.
pub const MIN_PMEM_SIZE: ByteSize = ByteSize::mib(64);

/// Default `dram_cache_size`.
pub const DEFAULT_RECORD_CACHE: ByteSize = ByteSize::mib(64);
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
    /// SSD write blocks behind a DRAM record cache.
    Ssd,
}

/// How a request reads a value only the SSD has (`ssd_reads`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum SsdReads {
    /// The request waits off the worker thread while an I/O thread reads.
    #[default]
    Deferred,
    /// The worker thread reads itself (no hand-off; blocks that thread for
    /// one device read: only for very fast devices).
    Inline,
}

/// How the SSD tier's device is read and written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum SsdIo {
    /// `O_DIRECT`: refused where the filesystem does not support it.
    #[default]
    Direct,
    /// Through the page cache.
    Buffered,
}

/// How the SSD tier's reader threads read (`ssd_io_engine`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum SsdIoEngine {
    /// Each serving thread reads its misses through an io_uring ring of its
    /// own, the rest go to one thread keeping reads in flight through
    /// io_uring; the thread engine, said at start-up, where the kernel
    /// refuses io_uring. The default: `scripts/bench-ssd` (2026-12-02)
    /// served uniform misses at 1.14x the thread engine's rate, Zipfian the
    /// same (docs/benchmarks.md).
    #[default]
    Uring,
    /// Each reader thread does one blocking read at a time.
    Threads,
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
