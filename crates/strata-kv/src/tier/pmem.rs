//! [`PmemTier`]: the keyspace's directory in the persistent arena, and the
//! owner ids of its chunk runs.
//!
//! The directory is one chunk run found through root slot [`DIR_ROOT`]
//! (value: first chunk + 1). Its words:
//! ```text
//! 0 magic "STRATAKV" | 1 version | 2 shards | 3 hash seed | 4 segment size
//! 5 flush epoch | 6 CAS lease | 7 placement code | 8.. one word per shard:
//!   its index table, (first chunk + 1) | epoch << 32, 0 for none
//! then: the SSD device bound (`data = ssd`; 0 for none) | the chunk mark
//! ```
//! Invariants: the hash seed, shard count and segment size never change
//! after creation (index tables and segment ids depend on them). Every CAS
//! handed out is below the persisted lease. A flush bumps the epoch before
//! it clears anything: records and index tables of an older epoch are
//! garbage, so a crash in the middle of a flush still flushes everything.
//! The chunk mark (version 2) is `NO_CHUNKS` from creation until the first chunk
//! entry of a large collection is written, and is cleared durably before
//! that write: while it holds, a restart knows every index entry is an
//! item without reading the records. Any other value means "count them";
//! version 1 directories (made before the mark, by binaries that do not
//! clear it) are read with it ignored.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;
use strata_pmem::{ChunkRun, PersistentArena, PmemError};

use super::placement::Placement;
use super::report::RestartReport;
use crate::KvError;

/// Root slot of the keyspace directory.
pub(crate) const DIR_ROOT: usize = 0;
const MAGIC: u64 = u64::from_le_bytes(*b"STRATAKV");
/// The version written; [`OLDEST_VERSION`] and later are read.
const VERSION: u64 = 2;
const OLDEST_VERSION: u64 = 1;
const W_MAGIC: usize = 0;
const W_VERSION: usize = 1;
const W_SHARDS: usize = 2;
const W_SEED: usize = 3;
const W_SEGMENT: usize = 4;
const W_EPOCH: usize = 5;
const W_LEASE: usize = 6;
const W_PLACEMENT: usize = 7;
const W_TABLES: usize = 8;
/// The chunk mark's value while no chunk entry was ever written.
const NO_CHUNKS: u64 = u64::from_le_bytes(*b"NOCHUNKS");
/// CAS versions reserved per lease extension (one persist per this many).
const LEASE_STEP: u64 = 1 << 20;

/// Owner id of the directory run.
const DIR_OWNER: u32 = 0x0fff_ffff;

/// Owner id of shard `shard`'s record segments.
pub(crate) fn data_owner(shard: usize) -> u32 {
    0x1000_0000 + shard as u32
}

/// Owner id of shard `shard`'s index tables.
pub(crate) fn index_owner(shard: usize) -> u32 {
    0x2000_0000 + shard as u32
}

/// The directory word of the SSD device bound (after the shards' tables).
fn ssd_word(shards: usize) -> usize {
    W_TABLES + shards
}

/// The directory word of the chunk mark.
fn chunk_mark_word(shards: usize) -> usize {
    ssd_word(shards) + 1
}

/// Maps an arena failure to the engine's error: a write that cannot be made
/// durable is refused, a full arena is out of memory.
pub(crate) fn pmem_error(e: PmemError) -> KvError {
    match e {
        PmemError::Full { .. } => KvError::OutOfMemory,
        other => KvError::NotDurable {
            cause: other.to_string(),
        },
    }
}

/// The persistent arena as the keyspace uses it.
pub struct PmemTier {
    arena: Arc<PersistentArena>,
    dir: ChunkRun,
    placement: Placement,
    shards: usize,
    seed: u64,
    segment_size: usize,
    epoch: AtomicU64,
    lease: AtomicU64,
    lease_lock: Mutex<()>,
    /// The chunk mark still says no chunk entry was ever written.
    no_chunks: AtomicBool,
    /// Whether the directory existed (a restart) or was just made.
    restarted: bool,
    /// What the start found, for stats.
    report: Mutex<Option<RestartReport>>,
}

impl std::fmt::Debug for PmemTier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PmemTier")
            .field("file", &self.arena.file_name())
            .field("placement", &self.placement)
            .finish_non_exhaustive()
    }
}

impl PmemTier {
    /// Opens the directory in `arena`, or makes one for `placement` with
    /// `shards` shards, a fresh hash seed and segments of `segment_size`
    /// record bytes. An existing directory keeps its shard count, seed and
    /// segment size; a different placement is refused (its records and
    /// tables would be misread).
    pub fn open(
        arena: Arc<PersistentArena>,
        placement: Placement,
        shards: usize,
        segment_size: usize,
    ) -> Result<PmemTier, String> {
        let err = |e: PmemError| e.to_string();
        let root = arena.root(DIR_ROOT).map_err(err)?;
        let dirs = arena.owned_by(DIR_OWNER).map_err(err)?;
        let current = dirs.iter().find(|r| root != 0 && r.first() + 1 == root);
        // Directory runs not published (a crash during creation) are orphans.
        for run in dirs.iter().filter(|r| Some(*r) != current) {
            arena.free(run).map_err(err)?;
        }
        let tier = match current {
            Some(dir) => PmemTier::adopt(arena, *dir, placement)?,
            None if root != 0 => {
                return Err(format!(
                    "{}: the keyspace directory (root {root}) is missing",
                    arena.file_name()
                ))
            }
            None => PmemTier::create(arena, placement, shards, segment_size).map_err(err)?,
        };
        Ok(tier)
    }

    fn create(
        arena: Arc<PersistentArena>,
        placement: Placement,
        shards: usize,
        segment_size: usize,
    ) -> Result<PmemTier, PmemError> {
        // Every word is written: a run's chunks hold whatever they held.
        let mut words = vec![0u64; chunk_mark_word(shards) + 1];
        let bytes = (words.len() * 8) as u64;
        let dir = arena.alloc(DIR_OWNER, bytes.div_ceil(arena.chunk_size()))?;
        let seed: u64 = rand::random();
        words[W_MAGIC] = MAGIC;
        words[W_VERSION] = VERSION;
        words[W_SHARDS] = shards as u64;
        words[W_SEED] = seed;
        words[W_SEGMENT] = segment_size as u64;
        words[W_EPOCH] = 1;
        words[W_LEASE] = LEASE_STEP;
        words[W_PLACEMENT] = placement.code();
        words[chunk_mark_word(shards)] = NO_CHUNKS;
        let raw: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        arena.write(&dir, 0, &raw)?;
        arena.persist(&dir, 0, raw.len() as u64)?;
        arena.set_root(DIR_ROOT, dir.first() + 1)?;
        Ok(PmemTier {
            arena,
            dir,
            placement,
            shards,
            seed,
            segment_size,
            epoch: AtomicU64::new(1),
            lease: AtomicU64::new(LEASE_STEP),
            lease_lock: Mutex::new(()),
            no_chunks: AtomicBool::new(true),
            restarted: false,
            report: Mutex::new(None),
        })
    }

    fn adopt(
        arena: Arc<PersistentArena>,
        dir: ChunkRun,
        placement: Placement,
    ) -> Result<PmemTier, String> {
        let name = arena.file_name().to_string();
        let word = |i: usize| -> Result<u64, String> {
            let w = arena
                .atomic_u64(&dir, (i * 8) as u64)
                .map_err(|e| e.to_string())?;
            Ok(w.load(Ordering::Acquire))
        };
        let version = word(W_VERSION)?;
        if word(W_MAGIC)? != MAGIC || !(OLDEST_VERSION..=VERSION).contains(&version) {
            return Err(format!(
                "{name}: not a Strata keyspace directory of version \
                 {OLDEST_VERSION} to {VERSION}"
            ));
        }
        let stored = word(W_PLACEMENT)?;
        if stored != placement.code() {
            return Err(format!(
                "{name} holds a keyspace placed with code {stored:#x}, not {placement}; \
                 start with the placement it was made with, or remove the file"
            ));
        }
        let shards = word(W_SHARDS)? as usize;
        let segment_size = word(W_SEGMENT)? as usize;
        if !shards.is_power_of_two() || shards > 4096 || segment_size == 0 {
            return Err(format!("{name}: keyspace directory geometry is damaged"));
        }
        let mark = chunk_mark_word(shards);
        let no_chunks = version >= 2 && word(mark)? == NO_CHUNKS;
        Ok(PmemTier {
            seed: word(W_SEED)?,
            epoch: AtomicU64::new(word(W_EPOCH)?),
            lease: AtomicU64::new(word(W_LEASE)?),
            arena,
            dir,
            placement,
            shards,
            segment_size,
            lease_lock: Mutex::new(()),
            no_chunks: AtomicBool::new(no_chunks),
            restarted: true,
            report: Mutex::new(None),
        })
    }

    /// The arena.
    pub fn arena(&self) -> &Arc<PersistentArena> {
        &self.arena
    }

    /// The placement this directory was made for.
    pub fn placement(&self) -> Placement {
        self.placement
    }

    /// Whether the directory existed before this start.
    pub fn restarted(&self) -> bool {
        self.restarted
    }

    /// What the last start found.
    pub fn restart_report(&self) -> Option<RestartReport> {
        self.report.lock().clone()
    }

    pub(crate) fn set_restart_report(&self, report: RestartReport) {
        *self.report.lock() = Some(report);
    }

    pub(crate) fn shards(&self) -> usize {
        self.shards
    }

    pub(crate) fn seed(&self) -> u64 {
        self.seed
    }

    pub(crate) fn segment_size(&self) -> usize {
        self.segment_size
    }

    /// The current flush epoch.
    pub(crate) fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::Acquire)
    }

    /// Every CAS handed out so far is below this.
    pub(crate) fn lease(&self) -> u64 {
        self.lease.load(Ordering::Acquire)
    }

    fn publish(&self, word: usize, value: u64) -> Result<(), KvError> {
        let w = self
            .arena
            .atomic_u64(&self.dir, (word * 8) as u64)
            .map_err(pmem_error)?;
        w.store(value, Ordering::Release);
        self.arena
            .persist(&self.dir, (word * 8) as u64, 8)
            .map_err(pmem_error)
    }

    /// Starts a flush: every record and table of the current epoch becomes
    /// garbage at once, durably. Called before anything is cleared.
    pub(crate) fn begin_flush(&self) -> Result<(), KvError> {
        let next = self.epoch() + 1;
        self.publish(W_EPOCH, next)?;
        self.epoch.store(next, Ordering::Release);
        Ok(())
    }

    /// Makes sure `cas` is below the persisted lease (extends it by a step
    /// when it is not). Cheap unless an extension is due.
    pub(crate) fn cover_cas(&self, cas: u64) -> Result<(), KvError> {
        if cas < self.lease() {
            return Ok(());
        }
        let _one = self.lease_lock.lock();
        if cas >= self.lease() {
            let next = cas.saturating_add(LEASE_STEP);
            self.publish(W_LEASE, next)?;
            self.lease.store(next, Ordering::Release);
        }
        Ok(())
    }

    /// Whether chunk entries may exist: false while the chunk mark says
    /// none was ever written (a restart then skips counting them).
    pub(crate) fn may_hold_chunks(&self) -> bool {
        !self.no_chunks.load(Ordering::Acquire)
    }

    /// Called before a chunk entry is written: clears the chunk mark,
    /// durably, the first time (one atomic load after that). Two writers
    /// racing both clear it, which is harmless; neither writes its chunk
    /// before the cleared mark is persisted.
    pub(crate) fn note_chunk(&self) -> Result<(), KvError> {
        if self.no_chunks.load(Ordering::Acquire) {
            self.publish(chunk_mark_word(self.shards), 0)?;
            self.no_chunks.store(false, Ordering::Release);
        }
        Ok(())
    }

    /// Shard `shard`'s published index table: (first chunk, epoch).
    pub(crate) fn index_table(&self, shard: usize) -> Result<Option<(u64, u64)>, KvError> {
        let w = self
            .arena
            .atomic_u64(&self.dir, ((W_TABLES + shard) * 8) as u64)
            .map_err(pmem_error)?
            .load(Ordering::Acquire);
        Ok((w != 0).then(|| ((w & 0xffff_ffff) - 1, w >> 32)))
    }

    /// Ties the keyspace to the SSD device `device_id` (`data = ssd`): the
    /// first start records it; later starts refuse any other device, whose
    /// blocks the stubs in the arena do not describe.
    pub(crate) fn bind_ssd(&self, device_id: u64) -> Result<(), String> {
        let word = ssd_word(self.shards);
        if (word as u64 + 1) * 8 > self.dir.len() {
            return Err(format!(
                "{}: the keyspace directory has no room for the SSD binding",
                self.arena.file_name()
            ));
        }
        let bound = self
            .arena
            .atomic_u64(&self.dir, (word * 8) as u64)
            .map_err(|e| e.to_string())?
            .load(Ordering::Acquire);
        match bound {
            0 => self.publish(word, device_id).map_err(|e| e.to_string()),
            id if id == device_id => Ok(()),
            _ => Err(format!(
                "{}: the keyspace's index was made with another SSD device than the one \
                 configured (ssd_path); start with that device, or remove both",
                self.arena.file_name()
            )),
        }
    }

    /// Publishes `run` as shard `shard`'s index table in the current epoch.
    /// The caller guarantees the table's contents are persisted.
    pub(crate) fn set_index_table(&self, shard: usize, run: &ChunkRun) -> Result<(), KvError> {
        self.publish(W_TABLES + shard, (run.first() + 1) | self.epoch() << 32)
    }
}
