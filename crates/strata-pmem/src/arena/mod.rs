//! [`PersistentArena`]: a backing (mapped file or simulation), its header
//! and its chunk allocator, opened together.
//!
//! - `file`: creating and opening arena files (atomic creation).
//! - `chunks`: allocation and chunk-relative access.
//! - `stats`: [`ArenaStats`](stats::ArenaStats).

mod chunks;
mod claims;
mod file;
pub(crate) mod stats;

use std::collections::BTreeMap;
use std::io;
use std::path::Path;

use parking_lot::Mutex;

use crate::alloc::ChunkAllocator;
use crate::backing::Backing;
use crate::error::{PmemError, Result};
use crate::header::layout::Geometry;
use crate::header::Header;
use crate::mode::{PersistMode, PersistPolicy};
use crate::sim::SimulatedPmem;

/// A persistent arena: header, root table and chunk allocator over
/// persistent memory.
///
/// Thread-safe (`Send + Sync`, every method takes `&self` except the
/// closing ones). The concurrency contract of [`PmemMap`](crate::PmemMap)
/// applies to chunk bytes; roots and chunk allocation synchronize
/// themselves. Dropping the arena without
/// [`close_clean`](Self::close_clean) is an unclean shutdown, seen by the
/// next open as [`was_clean`](Self::was_clean) `== false`.
pub struct PersistentArena {
    backing: Backing,
    geometry: Geometry,
    allocator: ChunkAllocator,
    generation: u64,
    was_clean: bool,
    /// Runs claimed for byte access (first chunk -> chunk count).
    claims: Mutex<BTreeMap<u64, u64>>,
}

impl PersistentArena {
    /// Creates a new arena file at `path` of `size` bytes (a multiple of
    /// 4096) with chunks of `chunk_size` bytes (a power of two from 64 KiB
    /// to 1 GiB), tagged `kind`. `AlreadyExists` if `path` exists; a crash
    /// during creation leaves no file at `path`. Reserves all blocks.
    pub fn create(
        path: &Path,
        size: u64,
        chunk_size: u64,
        kind: u64,
        policy: PersistPolicy,
    ) -> Result<PersistentArena> {
        let geometry = Geometry::plan(size, chunk_size, kind)?;
        PersistentArena::start(file::create(path, &geometry, policy)?, kind)
    }

    /// Opens the arena file at `path`, which must have been created with
    /// the same `kind`. Validates the header, starts a new generation,
    /// and sweeps what a crash left half done in the chunk table.
    pub fn open(path: &Path, kind: u64, policy: PersistPolicy) -> Result<PersistentArena> {
        PersistentArena::start(file::open(path, policy)?, kind)
    }

    /// Opens `path` if it exists, else creates it. An existing arena keeps
    /// its own size and chunk size (a difference from the arguments is
    /// logged, not an error: resizing needs a migration).
    pub fn open_or_create(
        path: &Path,
        size: u64,
        chunk_size: u64,
        kind: u64,
        policy: PersistPolicy,
    ) -> Result<PersistentArena> {
        match PersistentArena::open(path, kind, policy) {
            Err(PmemError::Io { source, .. }) if source.kind() == io::ErrorKind::NotFound => {
                match PersistentArena::create(path, size, chunk_size, kind, policy) {
                    Err(PmemError::AlreadyExists { .. }) => {
                        PersistentArena::open(path, kind, policy)
                    }
                    created => created,
                }
            }
            Ok(arena) => {
                if arena.geometry.size != size || arena.geometry.chunk_size != chunk_size {
                    tracing::warn!(
                        file = arena.file_name(),
                        size = arena.geometry.size,
                        chunk_size = arena.geometry.chunk_size,
                        "existing arena keeps its geometry, not the configured {size} / {chunk_size}"
                    );
                }
                Ok(arena)
            }
            Err(e) => Err(e),
        }
    }

    /// A new arena of `size` bytes in simulated persistent memory, for
    /// crash tests (see [`crash`](Self::crash)).
    pub fn simulated(size: u64, chunk_size: u64, kind: u64) -> Result<PersistentArena> {
        PersistentArena::create_on(
            Backing::Simulated(SimulatedPmem::new(size)?),
            chunk_size,
            kind,
        )
    }

    /// Formats `backing` (all of it, old contents ignored) as a new arena
    /// and opens it. The caller guarantees nothing else uses `backing`.
    pub fn create_on(backing: Backing, chunk_size: u64, kind: u64) -> Result<PersistentArena> {
        let geometry = Geometry::plan(backing.len(), chunk_size, kind)?;
        Header::format(&backing, &geometry)?;
        PersistentArena::start(backing, kind)
    }

    /// Opens the arena already in `backing` (as [`open`](Self::open)).
    pub fn open_on(backing: Backing, kind: u64) -> Result<PersistentArena> {
        PersistentArena::start(backing, kind)
    }

    /// Opens the arena in `sim` (typically a crash image).
    pub fn open_simulated(sim: SimulatedPmem, kind: u64) -> Result<PersistentArena> {
        PersistentArena::start(Backing::Simulated(sim), kind)
    }

    fn start(backing: Backing, kind: u64) -> Result<PersistentArena> {
        let header = Header::open(&backing, kind)?;
        let allocator = ChunkAllocator::recover(&backing, header.geometry)?;
        let arena = PersistentArena {
            backing,
            geometry: header.geometry,
            allocator,
            generation: header.generation,
            was_clean: header.was_clean,
            claims: Mutex::new(BTreeMap::new()),
        };
        arena.announce();
        Ok(arena)
    }

    /// Says plainly at start-up whether the persistent memory is real.
    fn announce(&self) {
        let mode = self.persist_mode();
        let file = self.file_name();
        let (generation, clean) = (self.generation, self.was_clean);
        match mode {
            PersistMode::Dax { .. } => {
                tracing::info!(file, %mode, generation, clean, "persistent arena open on real persistent memory")
            }
            PersistMode::Simulated => {
                tracing::debug!(file, generation, clean, "simulated persistent arena open")
            }
            _ => tracing::warn!(
                file,
                %mode,
                reason = self.emulation_reason().unwrap_or("unknown"),
                generation,
                clean,
                "persistent memory is EMULATED: durable through msync, not DAX"
            ),
        }
    }

    /// The file name (`<simulated>` for the simulation).
    pub fn file_name(&self) -> &str {
        self.backing.file_name()
    }

    /// How writes are made durable.
    pub fn persist_mode(&self) -> PersistMode {
        self.backing.persist_mode()
    }

    /// True unless this is real persistent memory (DAX).
    pub fn is_emulated(&self) -> bool {
        self.persist_mode().is_emulated()
    }

    /// Why persistence is emulated, for a mapped file (`None` on DAX and
    /// for the simulation).
    pub fn emulation_reason(&self) -> Option<&str> {
        match &self.backing {
            Backing::Mapped(map) => map.emulation_reason(),
            Backing::Simulated(_) => None,
        }
    }

    /// Why the arena can no longer make writes durable, if it cannot: a
    /// persist failed on the mapped file (never on DAX, where a persist is
    /// a cache-line flush), or the simulation's power was cut. Whatever
    /// was written since may never become durable; callers stop.
    pub fn failure(&self) -> Option<String> {
        let failed = match &self.backing {
            Backing::Mapped(map) => map.is_poisoned(),
            Backing::Simulated(sim) => sim.power_was_cut(),
        };
        failed.then(|| format!("{}: a persist failed", self.file_name()))
    }

    /// This session's generation: 1 after creation, one more at each open.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Whether the previous session ended with
    /// [`close_clean`](Self::close_clean) (true for a new arena). When
    /// false, callers should check their structures before trusting them.
    pub fn was_clean(&self) -> bool {
        self.was_clean
    }

    /// The kind tag given at creation.
    pub fn kind(&self) -> u64 {
        self.geometry.kind
    }

    /// Ends the session cleanly: persists the clean flag. The caller
    /// guarantees everything it wants kept is already persisted.
    pub fn close_clean(self) -> Result<()> {
        Header::mark_clean(&self.backing)
    }

    /// Records a clean shutdown without giving up the arena (other owners
    /// may still hold it). The caller guarantees nothing is written to the
    /// arena afterwards: a later write would make the flag a lie.
    pub fn mark_clean_shutdown(&self) -> Result<()> {
        Header::mark_clean(&self.backing)
    }

    /// The value in root slot `index` (< [`ROOT_SLOTS`](crate::ROOT_SLOTS)),
    /// loaded with `Acquire`; 0 in a new arena.
    pub fn root(&self, index: usize) -> Result<u64> {
        Header::root(&self.backing, index)
    }

    /// Publishes `value` in root slot `index`: one 8-byte `Release` store,
    /// persisted before returning. The caller guarantees that whatever
    /// `value` points to is already persisted.
    pub fn set_root(&self, index: usize, value: u64) -> Result<()> {
        Header::set_root(&self.backing, index, value)
    }

    /// The simulation under this arena, to arm power cuts; `None` if mapped.
    pub fn simulation(&self) -> Option<&SimulatedPmem> {
        match &self.backing {
            Backing::Simulated(sim) => Some(sim),
            Backing::Mapped(_) => None,
        }
    }

    /// What a power cut now (or at the armed cut) leaves: only what was
    /// persisted. Reopen it with [`open_simulated`](Self::open_simulated).
    /// `NotSimulated` for a mapped arena.
    pub fn crash(&self) -> Result<SimulatedPmem> {
        self.simulation()
            .map(SimulatedPmem::crash)
            .ok_or(PmemError::NotSimulated)
    }

    /// Like [`crash`](Self::crash), but each unpersisted 8-byte word is
    /// independently old or new ([`SimulatedPmem::crash_torn`]).
    pub fn crash_torn(&self, seed: u64) -> Result<SimulatedPmem> {
        self.simulation()
            .map(|sim| sim.crash_torn(seed))
            .ok_or(PmemError::NotSimulated)
    }
}
