//! [`ClaimedRun`]: plain byte access (`&[u8]` / `&mut [u8]`) to one chunk
//! run, for data that one owner appends and reads under its own lock (the
//! key-value engine's record segments), where copying every record through
//! 8-byte atomics would cost a copy per read.
//!
//! Soundness rests on exclusivity, which the arena enforces: a run can be
//! claimed once at a time, a claimed run refuses word access
//! (`read`/`write`/`atomic_u64`/`run_words`) and `free`, and the claim keeps
//! the arena (so the memory) alive. Shared bytes come from `&self`, mutable
//! bytes from `&mut self`, so the borrow checker rules out a write racing a
//! read inside the process. `persist` only reads the memory.
//!
//! The second `unsafe` module of the crate, listed in `UNSAFE.md`.

use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::alloc::ChunkRun;
use crate::arena::PersistentArena;
use crate::error::{PmemError, Result};

/// Exclusive byte access to one chunk run; released on drop.
///
/// Invariant: `base .. base + len` is the run's memory inside the arena's
/// backing, which `arena` keeps alive; the arena's claim registry holds
/// this run for as long as this value lives, so no other byte or word view
/// of it exists.
pub struct ClaimedRun {
    arena: Arc<PersistentArena>,
    run: ChunkRun,
    base: NonNull<u8>,
    len: usize,
}

// SAFETY: the memory is owned through `arena` (Send + Sync) and reached only
// through `&self` (shared bytes) or `&mut self` (unique bytes), as for a
// `Vec<u8>`.
unsafe impl Send for ClaimedRun {}
// SAFETY: `&ClaimedRun` only gives shared `&[u8]` and persists (reads).
unsafe impl Sync for ClaimedRun {}

impl ClaimedRun {
    /// Claims `run` of `arena` (see [`PersistentArena::claim`]).
    pub(crate) fn new(arena: Arc<PersistentArena>, run: ChunkRun) -> Result<ClaimedRun> {
        let words = arena.register_claim(&run)?;
        let len = words.len() * 8;
        // The pointer is derived from `&[AtomicU64]`: interior mutability
        // (UnsafeCell) makes writes through it permitted. A reference is
        // never null, so `NonNull::from` needs no check.
        let base = NonNull::from(words).cast::<u8>();
        Ok(ClaimedRun {
            arena,
            run,
            base,
            len,
        })
    }

    /// The run.
    pub fn run(&self) -> ChunkRun {
        self.run
    }

    /// The arena the run belongs to.
    pub fn arena(&self) -> &Arc<PersistentArena> {
        &self.arena
    }

    /// Length of the run in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Always false: a run has at least one chunk.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The run's bytes.
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: by the type invariant the memory is live, `len` bytes
        // long and not reachable through any other view; `&self` excludes
        // the only mutable view (`bytes_mut`) for the borrow's length.
        unsafe { std::slice::from_raw_parts(self.base.as_ptr(), self.len) }
    }

    /// The run's bytes, writable; volatile until [`persist`](Self::persist).
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `bytes`, and `&mut self` makes this the only view
        // for the borrow's length.
        unsafe { std::slice::from_raw_parts_mut(self.base.as_ptr(), self.len) }
    }

    /// Makes `len` bytes at `offset` in the run durable before returning
    /// (cache-line write-back on DAX, `msync` when emulated).
    pub fn persist(&self, offset: usize, len: usize) -> Result<()> {
        self.arena.persist(&self.run, offset as u64, len as u64)
    }

    /// Publishes `value` at `offset` (a multiple of 8) with one 8-byte
    /// atomic store, the failure-atomic unit, and persists it.
    pub fn publish_u64(&mut self, offset: usize, value: u64) -> Result<()> {
        if offset % 8 != 0 {
            return Err(PmemError::Misaligned {
                offset: offset as u64,
            });
        }
        if offset + 8 > self.len {
            return Err(PmemError::OutOfBounds {
                offset: offset as u64,
                len: 8,
                limit: self.len as u64,
            });
        }
        // SAFETY: in bounds and 8-aligned (the run starts on a chunk
        // boundary); the memory was an `AtomicU64` to begin with, and
        // `&mut self` excludes every byte view while the reference lives.
        let word = unsafe { &*self.base.as_ptr().add(offset).cast::<AtomicU64>() };
        word.store(value, Ordering::Release);
        self.persist(offset, 8)
    }
}

/// A claimed run seen as 8-byte words: for tables updated with single
/// atomic stores (an index), read by many threads at once. Exclusive
/// against every other view like [`ClaimedRun`]; released on drop.
pub struct ClaimedWords {
    arena: Arc<PersistentArena>,
    run: ChunkRun,
    base: NonNull<AtomicU64>,
    words: usize,
}

// SAFETY: only shared `&[AtomicU64]` is ever made (atomics are Sync); the
// memory is kept alive by `arena`.
unsafe impl Send for ClaimedWords {}
// SAFETY: as above.
unsafe impl Sync for ClaimedWords {}

impl ClaimedWords {
    /// Claims `run` of `arena` (see [`PersistentArena::claim_words`]).
    pub(crate) fn new(arena: Arc<PersistentArena>, run: ChunkRun) -> Result<ClaimedWords> {
        let words = arena.register_claim(&run)?;
        let (base, len) = (NonNull::from(words).cast::<AtomicU64>(), words.len());
        Ok(ClaimedWords {
            arena,
            run,
            base,
            words: len,
        })
    }

    /// The run.
    pub fn run(&self) -> ChunkRun {
        self.run
    }

    /// The run's words.
    pub fn words(&self) -> &[AtomicU64] {
        // SAFETY: live memory of `words` AtomicU64s (kept by `arena`),
        // 8-aligned; shared atomics may alias each other freely.
        unsafe { std::slice::from_raw_parts(self.base.as_ptr(), self.words) }
    }

    /// Makes `len` bytes at byte `offset` in the run durable.
    pub fn persist(&self, offset: usize, len: usize) -> Result<()> {
        self.arena.persist(&self.run, offset as u64, len as u64)
    }
}

impl Drop for ClaimedWords {
    fn drop(&mut self) {
        self.arena.release_claim(&self.run);
    }
}

impl Drop for ClaimedRun {
    fn drop(&mut self) {
        self.arena.release_claim(&self.run);
    }
}
