//! [`SpillArea`]: a job's share of the SSD, a write-block store on one
//! file of fixed capacity under the spill directory.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use datafusion::execution::memory_pool::{
    MemoryConsumer, MemoryLimit, MemoryPool, MemoryReservation,
};
use strata_device::{BlockDevice, BlockFile, IoMode};
use strata_ssd::{BlockLoc, SsdConfig, SsdError, SsdStore};

use super::fault::TierFault;
use strata_units::human;

/// Bytes per write block: each block goes to the device in one aligned
/// write of this size.
pub const BLOCK_SIZE: usize = 4 << 20;

/// Reader threads of the store's pool.
const IO_THREADS: usize = 4;

/// Reads in flight in the pool at most.
const IO_QUEUE_DEPTH: usize = 16;

/// Bytes of idle read buffers the store keeps for reuse at most: about the
/// reads a scan has in flight (two partitions, a few segments ahead each).
/// A scan of a table on the SSD without them spent ~45% of its CPU faulting
/// in fresh buffers and giving them back. Reserved from the job's pool, and
/// never more than [`READ_BUFFERS_SHARE`] of it.
const READ_BUFFERS: usize = 8 << 20;

/// The largest fraction (1/n) of the job's pool the read buffers take.
const READ_BUFFERS_SHARE: usize = 16;

/// The smallest spill area: header, the store's reserve, and some room.
pub const MIN_CAPACITY: u64 = 16 * BLOCK_SIZE as u64;

/// Entry kinds in the store (the store keeps them; a rebuild never runs).
const KIND_DATA: u8 = 1;

/// Prefix of the area's file name; the process id follows.
const FILE_PREFIX: &str = "strata-job-";
const FILE_SUFFIX: &str = ".blocks";

/// How the area's file is read and written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum SpillIo {
    /// `O_DIRECT`: the page cache holds none of it, so the DRAM budget
    /// alone decides what is in memory.
    #[default]
    Direct,
    /// Through the page cache, for filesystems that refuse `O_DIRECT`;
    /// the kernel then keeps spilled data in DRAM outside the budget.
    Buffered,
}

/// Where one stored piece of data is: an entry of the block store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Extent {
    loc: BlockLoc,
    len: u32,
}

impl Extent {
    /// Payload bytes.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// True for an empty payload.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// What the SSD tier did during a job.
#[derive(Debug, Default)]
pub struct TierCounters {
    /// Bytes operators spilled.
    pub spilled: AtomicU64,
    /// Spill files created.
    pub spill_files: AtomicU64,
    /// Bytes of spill files read back.
    pub spill_read: AtomicU64,
    /// Bytes of the cached dataset written to the SSD.
    pub cache_written: AtomicU64,
    /// Bytes of the cached dataset read back from the SSD.
    pub cache_read: AtomicU64,
}

impl TierCounters {
    /// Adds `n` to `counter`.
    pub(crate) fn add(counter: &AtomicU64, n: usize) {
        counter.fetch_add(n as u64, Ordering::Relaxed);
    }

    /// Reads `counter`.
    pub fn get(counter: &AtomicU64) -> u64 {
        counter.load(Ordering::Relaxed)
    }
}

/// A job's spill area: a block store on one file (or any block device in
/// tests), with the job's memory pool for its I/O buffers.
pub struct SpillArea {
    store: SsdStore,
    dir: PathBuf,
    /// The file to remove when the area is dropped (none for test devices).
    file: Option<PathBuf>,
    capacity: u64,
    direct: bool,
    pool: Arc<dyn MemoryPool>,
    /// The store's own write block and pooled read buffers, accounted
    /// while the area lives.
    _buffers: MemoryReservation,
    counters: TierCounters,
}

impl SpillArea {
    /// Creates the area's file of `capacity` bytes in `dir` (created if
    /// missing), reserving its blocks on the filesystem, and opens the
    /// store on it. Files left by jobs that are no longer running are
    /// removed first. Fails with a message naming the directory and the
    /// space it has when the filesystem cannot hold the area.
    pub fn create(
        dir: &Path,
        capacity: u64,
        io: SpillIo,
        pool: Arc<dyn MemoryPool>,
    ) -> Result<Arc<SpillArea>, String> {
        let capacity = capacity - capacity % BLOCK_SIZE as u64;
        if capacity < MIN_CAPACITY {
            return Err(format!(
                "a spill area of {} is too small; at least {} is needed",
                human(capacity),
                human(MIN_CAPACITY)
            ));
        }
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("spill directory {}: {e}", dir.display()))?;
        remove_stale_files(dir);
        let free = free_space(dir)?;
        if free < capacity {
            return Err(format!(
                "spill directory {} is full: {} free, the spill area needs {} \
                 (free space there, choose another --spill-dir, or lower --spill-limit)",
                dir.display(),
                human(free),
                human(capacity)
            ));
        }
        let path = dir.join(format!("{FILE_PREFIX}{}{FILE_SUFFIX}", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let mode = match io {
            SpillIo::Direct => IoMode::Direct,
            SpillIo::Buffered => IoMode::Buffered,
        };
        let device: io::Result<Arc<dyn BlockDevice>> =
            BlockFile::create(&path, capacity, mode).map(|d| Arc::new(d) as _);
        let device = device.map_err(|e| {
            let _ = std::fs::remove_file(&path);
            match e.kind() {
                io::ErrorKind::StorageFull => format!(
                    "spill directory {} is full: cannot reserve {} for the spill area ({e})",
                    dir.display(),
                    human(capacity)
                ),
                io::ErrorKind::Unsupported => format!("{e}; or pass --spill-io buffered"),
                _ => format!("creating the spill area in {}: {e}", dir.display()),
            }
        })?;
        SpillArea::on_device(device, dir, Some(path.clone()), pool).inspect_err(|_| {
            let _ = std::fs::remove_file(&path);
        })
    }

    /// The area on `device` (tests: in-memory and failing devices); `dir`
    /// only names it in messages, `file` is removed on drop.
    pub fn on_device(
        device: Arc<dyn BlockDevice>,
        dir: &Path,
        file: Option<PathBuf>,
        pool: Arc<dyn MemoryPool>,
    ) -> Result<Arc<SpillArea>, String> {
        let capacity = device.capacity();
        let direct = device.is_direct();
        let read_buffers = match pool.memory_limit() {
            MemoryLimit::Finite(limit) => READ_BUFFERS.min(limit / READ_BUFFERS_SHARE),
            MemoryLimit::Infinite | MemoryLimit::Unknown => READ_BUFFERS,
        };
        let config = SsdConfig {
            block_size: BLOCK_SIZE,
            reserve_blocks: Some(2),
            io_threads: IO_THREADS,
            io_queue_depth: IO_QUEUE_DEPTH,
            rebuild_threads: 1,
            // The job decides what is in DRAM: no record cache.
            dram_cache_size: 0,
            read_buffers: read_buffers as u64,
            ..SsdConfig::default()
        };
        let opening = |e: SsdError| format!("opening the spill area in {}: {e}", dir.display());
        let mut recovery = SsdStore::open(device, config).map_err(opening)?;
        // A fresh device: the scan finds nothing; it is what opens the store.
        recovery.scan(|_, _, _| {}).map_err(opening)?;
        let store = recovery.finish().map_err(opening)?;
        let buffers = MemoryConsumer::new("ssd-tier buffers").register(&pool);
        buffers.grow(BLOCK_SIZE + read_buffers);
        Ok(Arc::new(SpillArea {
            store,
            dir: dir.to_path_buf(),
            file,
            capacity,
            direct,
            pool,
            _buffers: buffers,
            counters: TierCounters::default(),
        }))
    }

    /// The largest payload of one [`append`](Self::append).
    pub fn max_payload(&self) -> usize {
        self.store.max_payload()
    }

    /// The payload size that packs sixteen entries into a write block:
    /// the size spill files are cut into. The device still sees only
    /// whole-block writes; what the size bounds is a reader's buffer, and
    /// a sort's merge reads up to [`MAX_MERGE_FAN_IN`](crate::engine::MAX_MERGE_FAN_IN)
    /// files at once, each a few chunks ahead.
    pub fn chunk_size(&self) -> usize {
        ((self.max_payload() + 12) / 16 - 12) & !7
    }

    /// Capacity in bytes.
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// The spill directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// True when the page cache is bypassed.
    pub fn is_direct(&self) -> bool {
        self.direct
    }

    /// The job's memory pool (I/O buffers reserve from it).
    pub fn pool(&self) -> &Arc<dyn MemoryPool> {
        &self.pool
    }

    /// What the tier did so far.
    pub fn counters(&self) -> &TierCounters {
        &self.counters
    }

    /// Bytes of the store in use (live or not yet reclaimed).
    pub fn used(&self) -> u64 {
        self.store.stats().bytes_used
    }

    /// Stores `payload` (at most [`max_payload`](Self::max_payload)
    /// bytes); readable at once.
    pub fn append(&self, payload: &[u8]) -> Result<Extent, TierFault> {
        match self.store.append(KIND_DATA, payload) {
            Ok(loc) => Ok(Extent {
                loc,
                len: payload.len() as u32,
            }),
            Err(SsdError::Full { .. }) => Err(TierFault::Full {
                dir: self.dir.clone(),
                capacity: self.capacity,
            }),
            Err(e) => Err(TierFault::Device(e.to_string())),
        }
    }

    /// Reads `extent` back on the store's reader threads.
    pub fn read(
        &self,
        extent: Extent,
    ) -> impl std::future::Future<Output = Result<Bytes, TierFault>> + Send + 'static {
        let read = self
            .store
            .fetch_async(extent.loc, Some(extent.len()), extent.loc.pack());
        async move {
            let bytes = read.await.map_err(|e| TierFault::Device(e.to_string()))?;
            if bytes.len() != extent.len() {
                return Err(TierFault::Device(format!(
                    "read {} bytes at {} where {} were written",
                    bytes.len(),
                    extent.loc,
                    extent.len
                )));
            }
            Ok(bytes)
        }
    }

    /// Reads `extent` on the calling thread.
    pub fn read_blocking(&self, extent: Extent) -> Result<Bytes, TierFault> {
        self.store
            .read_hinted(extent.loc, Some(extent.len()), extent.loc.pack())
            .map_err(|e| TierFault::Device(e.to_string()))
    }

    /// Frees `extent`: its space is reused once its block holds nothing
    /// live. The caller releases each extent once and reads it no more.
    pub fn release(&self, extent: Extent) {
        // An error means the extent was already released: a bug, but one
        // that can only waste space, never mix data up.
        if let Err(e) = self.store.release(extent.loc, extent.len()) {
            debug_assert!(false, "releasing {extent:?}: {e}");
        }
    }
}

impl Drop for SpillArea {
    fn drop(&mut self) {
        if let Some(file) = &self.file {
            let _ = std::fs::remove_file(file);
        }
    }
}

/// Free bytes on the filesystem of `dir`.
fn free_space(dir: &Path) -> Result<u64, String> {
    let stat =
        rustix::fs::statvfs(dir).map_err(|e| format!("spill directory {}: {e}", dir.display()))?;
    Ok(stat.f_bavail.saturating_mul(stat.f_frsize))
}

/// Removes area files of processes that no longer run (a job killed
/// before it could remove its own).
fn remove_stale_files(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(FILE_PREFIX))
            .and_then(|n| n.strip_suffix(FILE_SUFFIX))
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}
