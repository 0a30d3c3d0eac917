//! The crash-consistent chunk allocator.
//!
//! The chunk area is divided into chunks of a fixed size; the persistent
//! chunk table holds one state word per chunk (`state`). Runs of contiguous
//! chunks belong to an owner (a u32 the caller chooses). The table is the
//! source of truth; the volatile free list (`extents`) is rebuilt from it at
//! open (`scan`), after sweeping what a crash left half done.
//!
//! Ordering, so that a crash at any instruction leaves a consistent table:
//! - alloc: store and persist the continuation words, then publish the head
//!   word (one 8-byte store) and persist it. Until the head is durable the
//!   continuations are orphans, swept to free at the next open.
//! - free: clear the head word and persist, then clear and persist the
//!   continuations. Once the head is cleared the run is free; leftovers are
//!   orphans, swept at open.
//!
//! Chunk contents are never touched: a new run holds whatever its chunks
//! held before.

mod extents;
mod run;
mod scan;
mod state;

use std::sync::atomic::Ordering;

use parking_lot::Mutex;

use crate::backing::Backing;
use crate::error::{PmemError, Result};
use crate::header::layout::{Geometry, MAX_CHUNKS};
use extents::FreeExtents;
pub use run::ChunkRun;
use state::ChunkState;

/// The allocator of one arena; the backing is passed to every call.
pub(crate) struct ChunkAllocator {
    geometry: Geometry,
    /// Free chunks; held across the persistent updates, which it serializes.
    free: Mutex<FreeExtents>,
}

impl ChunkAllocator {
    /// Reads the table, frees orphaned continuations (persisted), and builds
    /// the free list. Must run before any other use of the table.
    pub(crate) fn recover(backing: &Backing, geometry: Geometry) -> Result<ChunkAllocator> {
        let table = scan::scan(backing, &geometry)?;
        scan::sweep_orphans(backing, &geometry, &table.orphans)?;
        Ok(ChunkAllocator {
            geometry,
            free: Mutex::new(table.free),
        })
    }

    /// Allocates `count` contiguous chunks to `owner`, durably, first fit.
    /// `Full` if no free run is long enough. If a persist fails the chunks
    /// stay out of the free list until the next open decides their fate.
    pub(crate) fn alloc(&self, backing: &Backing, owner: u32, count: u64) -> Result<ChunkRun> {
        if count == 0 || count > MAX_CHUNKS {
            return Err(PmemError::InvalidRun {
                first: 0,
                count,
                reason: format!("a run has 1 to {MAX_CHUNKS} chunks"),
            });
        }
        let mut free = self.free.lock();
        let full = |free: &FreeExtents| PmemError::Full {
            requested: count,
            free: free.free(),
            largest: free.largest(),
        };
        let first = free.take(count).ok_or_else(|| full(&free))?;
        let g = &self.geometry;
        if count > 1 {
            for back in 1..count {
                let word = ChunkState::Continuation { owner, back }.encode();
                backing
                    .atomic_u64(g.state_offset(first + back))?
                    .store(word, Ordering::Relaxed);
            }
            let start = g.state_offset(first + 1);
            backing.persist(start, (count - 1) * 8)?;
        }
        let head = ChunkState::Head { owner, count }.encode();
        backing.publish_u64(g.state_offset(first), head)?;
        Ok(ChunkRun::new(g, first, count, owner))
    }

    /// Frees `run`, durably. `InvalidRun` unless the table holds exactly
    /// this run (so a double free is refused). The caller guarantees it no
    /// longer uses the run's bytes.
    pub(crate) fn free(&self, backing: &Backing, run: &ChunkRun) -> Result<()> {
        self.check(run)?;
        let mut free = self.free.lock();
        let g = &self.geometry;
        let head = backing.atomic_u64(g.state_offset(run.first))?;
        let expected = ChunkState::Head {
            owner: run.owner,
            count: run.count,
        };
        let found = ChunkState::decode(head.load(Ordering::Acquire));
        if found != expected {
            return Err(invalid(run, format!("the table holds {found:?} there")));
        }
        backing.publish_u64(g.state_offset(run.first), 0)?;
        if run.count > 1 {
            for back in 1..run.count {
                backing
                    .atomic_u64(g.state_offset(run.first + back))?
                    .store(0, Ordering::Relaxed);
            }
            let start = g.state_offset(run.first + 1);
            backing.persist(start, (run.count - 1) * 8)?;
        }
        free.give(run.first, run.count);
        Ok(())
    }

    /// Checks that `run` fits this arena's geometry (not that it is
    /// allocated: that costs a table read, done only by `free`).
    pub(crate) fn check(&self, run: &ChunkRun) -> Result<()> {
        let g = &self.geometry;
        let fits = run.count > 0
            && run.first < g.chunk_count
            && run.count <= g.chunk_count - run.first
            && run.offset == g.chunk_offset(run.first)
            && run.len == run.count * g.chunk_size;
        if fits {
            Ok(())
        } else {
            Err(invalid(run, "not a run of this arena".into()))
        }
    }

    /// Every published run, by first chunk (reads the table).
    pub(crate) fn allocated(&self, backing: &Backing) -> Result<Vec<ChunkRun>> {
        let _serialized = self.free.lock();
        Ok(scan::scan(backing, &self.geometry)?.runs)
    }

    /// Chunks free now.
    pub(crate) fn free_chunks(&self) -> u64 {
        self.free.lock().free()
    }

    /// Checks that the table and the free list agree: no orphans, and every
    /// chunk is free in the table exactly when it is in the free list.
    pub(crate) fn verify(&self, backing: &Backing) -> Result<()> {
        let free = self.free.lock();
        let table = scan::scan(backing, &self.geometry)?;
        let file = backing.file_name();
        if let Some(index) = table.orphans.first() {
            return Err(PmemError::corrupt(
                file,
                format!("orphaned continuation at chunk {index}"),
            ));
        }
        if table.free.free() != free.free() {
            return Err(PmemError::corrupt(
                file,
                format!(
                    "table has {} free chunks, free list {}",
                    table.free.free(),
                    free.free()
                ),
            ));
        }
        for index in 0..self.geometry.chunk_count {
            if table.free.contains(index) != free.contains(index) {
                return Err(PmemError::corrupt(
                    file,
                    format!("chunk {index} is free in only one of table and free list"),
                ));
            }
        }
        Ok(())
    }
}

fn invalid(run: &ChunkRun, reason: String) -> PmemError {
    PmemError::InvalidRun {
        first: run.first,
        count: run.count,
        reason,
    }
}
