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
use std::sync::Arc;

use crate::alloc::ChunkRun;
use crate::arena::PersistentArena;
use crate::error::Result;

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
        let words = arena.claim_words(&run)?;
        let len = words.len() * 8;
        // The pointer is derived from `&[AtomicU64]`: interior mutability
        // (UnsafeCell) makes writes through it permitted.
        let base = NonNull::new(words.as_ptr().cast_mut().cast::<u8>())
            .expect("slice pointers are never null");
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
}

impl Drop for ClaimedRun {
    fn drop(&mut self) {
        self.arena.release_claim(&self.run);
    }
}
