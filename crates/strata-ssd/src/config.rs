//! [`SsdConfig`]: the write-block store's settings.

use strata_cache::SharedCache;

use crate::error::SsdError;
use crate::loc::BLOCK_BITS;

/// The user name of the store's records in a shared cache (`INFO cache`).
pub const RECORD_CACHE_USER: &str = "kv_records";

/// Smallest write block accepted. Production uses 1 to 8 MiB; blocks this
/// small exist so tests can fill and defragment many blocks quickly.
pub const MIN_BLOCK_SIZE: usize = 64 * 1024;

/// Largest write block: offsets must fit in [`OFFSET_BITS`](crate::OFFSET_BITS).
pub const MAX_BLOCK_SIZE: usize = 8 << 20;

/// Where the engine's index of the device's entries survives a restart,
/// recorded in the device header when the device is formatted: a device
/// is always opened the way it was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IndexHome {
    /// The index is rebuilt by scanning every entry
    /// ([`Recovery::scan`](crate::Recovery::scan)), so the device must
    /// describe itself: deletes are tombstone entries.
    #[default]
    Rebuilt,
    /// The index persists on its own (in persistent memory) and is checked
    /// against the block headers ([`Recovery::adopt`](crate::Recovery::adopt));
    /// the device holds no tombstones, so it can never be scanned into an
    /// index.
    Persistent,
}

impl IndexHome {
    /// The code in the device header.
    pub(crate) fn code(self) -> u32 {
        match self {
            IndexHome::Rebuilt => 0,
            IndexHome::Persistent => 1,
        }
    }

    /// The value for a device header's code, if known.
    pub(crate) fn from_code(code: u32) -> Option<IndexHome> {
        match code {
            0 => Some(IndexHome::Rebuilt),
            1 => Some(IndexHome::Persistent),
            _ => None,
        }
    }
}

impl std::fmt::Display for IndexHome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            IndexHome::Rebuilt => "an index rebuilt from the device",
            IndexHome::Persistent => "a persistent index",
        })
    }
}

/// How [`SsdStore::read_async`](crate::SsdStore::read_async) reaches the
/// device (`io_engine`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IoEngine {
    /// A read of known length asked from a tokio runtime goes through the
    /// asking thread's own ring (`rings.rs`: submitted with the round's
    /// other reads, finished on that thread); the rest, and what does not
    /// fit, go to one thread that owns a ring and keeps up to the queue
    /// depth of reads in flight, answering each as its read completes
    /// (`io_threads` does not apply). Where the kernel refuses io_uring
    /// (seccomp, old kernels, `kernel.io_uring_disabled`) the store logs it
    /// and uses [`Threads`](Self::Threads), as it does on a device with no
    /// file under it (memory, faults). The default: `scripts/bench-ssd`
    /// (release, 2026-12-02, 3 rounds) served uniform 10%-cache misses at
    /// 69.5k requests/s against the thread engine's 61.0k, Zipfian alike.
    #[default]
    Uring,
    /// Each reader thread does one blocking `pread` at a time.
    Threads,
}

impl IoEngine {
    /// The name in configuration files and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            IoEngine::Uring => "uring",
            IoEngine::Threads => "threads",
        }
    }
}

impl std::fmt::Display for IoEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for IoEngine {
    type Err = String;

    fn from_str(s: &str) -> Result<IoEngine, String> {
        match s {
            "uring" => Ok(IoEngine::Uring),
            "threads" => Ok(IoEngine::Threads),
            _ => Err(format!("unknown SSD I/O engine {s:?} (uring or threads)")),
        }
    }
}

/// Settings of an [`SsdStore`](crate::SsdStore).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SsdConfig {
    /// Bytes per write block: a power of two from [`MIN_BLOCK_SIZE`] to
    /// [`MAX_BLOCK_SIZE`]; default 1 MiB. Must match the device's format.
    pub block_size: usize,
    /// Free blocks kept for the defragmenter: ordinary appends get
    /// [`SsdError::Full`] while free blocks are at or below this. `None`:
    /// max(2 blocks, 1% of the blocks).
    pub reserve_blocks: Option<u32>,
    /// Threads serving [`SsdStore::read_async`](crate::SsdStore::read_async)
    /// with the thread engine; default 8.
    pub io_threads: usize,
    /// Reads in flight in the pool at most (queued or running); further
    /// `read_async` calls wait for a slot. Default 64.
    pub io_queue_depth: usize,
    /// How misses reach the device; default [`IoEngine::Uring`].
    pub io_engine: IoEngine,
    /// Threads reading block headers and blocks during a rebuild; default 4.
    pub rebuild_threads: usize,
    /// Byte budget of the DRAM record cache (`dram_cache_size`); 0 turns
    /// the cache off. Default 64 MiB. Not used with `shared_cache`.
    pub dram_cache_size: u64,
    /// The node's one DRAM cache (`cache_size`), if the store keeps its
    /// records there, as the user [`RECORD_CACHE_USER`], instead of in a
    /// cache of its own of `dram_cache_size`. Default none.
    pub shared_cache: Option<SharedCache>,
    /// Where the engine's index survives restarts; must match the device's
    /// format. Default [`IndexHome::Rebuilt`].
    pub index_home: IndexHome,
    /// Bytes of idle large read buffers (64 KiB and up) kept for reuse, so
    /// that a scan does not fault in fresh pages for every read. Default 0:
    /// large reads are still handed out without a copy, but their buffers go
    /// back to the allocator. The pool's memory is the caller's to account.
    pub read_buffers: u64,
}

impl Default for SsdConfig {
    fn default() -> SsdConfig {
        SsdConfig {
            block_size: 1 << 20,
            reserve_blocks: None,
            io_threads: 8,
            io_queue_depth: 64,
            io_engine: IoEngine::Uring,
            rebuild_threads: 4,
            dram_cache_size: 64 << 20,
            shared_cache: None,
            index_home: IndexHome::Rebuilt,
            read_buffers: 0,
        }
    }
}

impl SsdConfig {
    /// The default settings with `block_size`.
    pub fn with_block_size(block_size: usize) -> SsdConfig {
        SsdConfig {
            block_size,
            ..SsdConfig::default()
        }
    }

    /// Checks every value; [`SsdError::Config`] naming the first bad one.
    pub fn validate(&self) -> Result<(), SsdError> {
        let size = self.block_size;
        if !size.is_power_of_two() || !(MIN_BLOCK_SIZE..=MAX_BLOCK_SIZE).contains(&size) {
            return Err(SsdError::Config(format!(
                "block_size {size} must be a power of two from {MIN_BLOCK_SIZE} to {MAX_BLOCK_SIZE}"
            )));
        }
        for (name, value) in [
            ("io_threads", self.io_threads),
            ("io_queue_depth", self.io_queue_depth),
            ("rebuild_threads", self.rebuild_threads),
        ] {
            if value == 0 {
                return Err(SsdError::Config(format!("{name} must be at least 1")));
            }
        }
        Ok(())
    }

    /// The reserve for a device of `blocks` write blocks.
    pub(crate) fn reserve_for(&self, blocks: u32) -> u32 {
        self.reserve_blocks.unwrap_or((blocks / 100).max(2))
    }
}

/// Write blocks a device of `capacity` bytes holds with `block_size`
/// blocks, block 0 (the device header) included; an error if too few or
/// too many.
pub(crate) fn block_count(capacity: u64, config: &SsdConfig) -> Result<u32, SsdError> {
    let blocks = capacity / config.block_size as u64;
    if blocks > 1 << BLOCK_BITS {
        return Err(SsdError::BadDevice(format!(
            "{blocks} blocks of {} bytes exceed the 2^{BLOCK_BITS} a location can address; \
             use larger blocks",
            config.block_size
        )));
    }
    let blocks = blocks as u32;
    let needed = config.reserve_for(blocks) + 3;
    if blocks < needed {
        return Err(SsdError::BadDevice(format!(
            "a device of {capacity} bytes holds {blocks} blocks of {} bytes; \
             at least {needed} are needed (header, reserve, two for data)",
            config.block_size
        )));
    }
    Ok(blocks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_and_geometry() {
        assert!(SsdConfig::default().validate().is_ok());
        assert!(SsdConfig::with_block_size(3 << 20).validate().is_err());
        assert!(SsdConfig::with_block_size(16 << 20).validate().is_err());
        let config = SsdConfig::with_block_size(MIN_BLOCK_SIZE);
        assert_eq!(config.reserve_for(10), 2);
        assert_eq!(config.reserve_for(1000), 10);
        assert_eq!(block_count(64 << 20, &config).unwrap(), 1024);
        for engine in [IoEngine::Uring, IoEngine::Threads] {
            assert_eq!(engine.name().parse::<IoEngine>(), Ok(engine));
        }
        assert!("io_uring".parse::<IoEngine>().is_err());
        assert!(block_count(4 * 64 * 1024, &config).is_err());
    }
}
