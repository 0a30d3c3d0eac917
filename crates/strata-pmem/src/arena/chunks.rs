//! Chunk allocation and access to a run's bytes, relative to the run.
//!
//! Every access checks that the run belongs to this arena and that the
//! range lies inside it; it does not check that the run is still allocated
//! (that would cost a table read): the caller guarantees it has not freed
//! the run. Chunk bytes follow the [`PmemMap`](crate::PmemMap) contract:
//! write and persist the data, then publish it with one 8-byte atomic
//! store (in the run or in a root) and persist that.

use std::sync::atomic::AtomicU64;

use super::PersistentArena;
use crate::alloc::ChunkRun;
use crate::error::{PmemError, Result};
use crate::words;

impl PersistentArena {
    /// Allocates `chunks` contiguous chunks (1 or more) to `owner`,
    /// durably. [`PmemError::Full`] when no free run is long enough. The
    /// chunks' contents are whatever they held before (not zeroed).
    pub fn alloc(&self, owner: u32, chunks: u64) -> Result<ChunkRun> {
        self.allocator.alloc(&self.backing, owner, chunks)
    }

    /// Frees `run`, durably. [`PmemError::InvalidRun`] unless it is
    /// allocated exactly as described (a second free is refused). The
    /// caller guarantees that nothing points to it any more (unpublish
    /// first: a crash after the free must not find a root or record
    /// pointing into it).
    pub fn free(&self, run: &ChunkRun) -> Result<()> {
        self.check_unclaimed(run)?;
        self.allocator.free(&self.backing, run)
    }

    /// Every allocated run, by first chunk (scans the chunk table).
    pub fn allocated(&self) -> Result<Vec<ChunkRun>> {
        self.allocator.allocated(&self.backing)
    }

    /// The runs allocated to `owner`, by first chunk (scans the table):
    /// how an engine finds its chunks after a restart.
    pub fn owned_by(&self, owner: u32) -> Result<Vec<ChunkRun>> {
        let mut runs = self.allocated()?;
        runs.retain(|run| run.owner() == owner);
        Ok(runs)
    }

    /// Chunks free now.
    pub fn free_chunks(&self) -> u64 {
        self.allocator.free_chunks()
    }

    /// Chunks in the arena (free or not).
    pub fn chunk_count(&self) -> u64 {
        self.geometry.chunk_count
    }

    /// Bytes per chunk.
    pub fn chunk_size(&self) -> u64 {
        self.geometry.chunk_size
    }

    /// Bytes in all chunks: what can be allocated.
    pub fn capacity_bytes(&self) -> u64 {
        self.geometry.chunk_count * self.geometry.chunk_size
    }

    /// Bytes in allocated chunks.
    pub fn used_bytes(&self) -> u64 {
        (self.geometry.chunk_count - self.free_chunks()) * self.geometry.chunk_size
    }

    /// Checks that the chunk table and the volatile free list agree (no
    /// orphaned continuation, no chunk both free and owned). For tests and
    /// diagnostics: takes the allocator lock and scans the table.
    pub fn verify(&self) -> Result<()> {
        self.allocator.verify(&self.backing)
    }

    /// Copies `buf.len()` bytes at `offset` in `run` into `buf`.
    pub fn read(&self, run: &ChunkRun, offset: u64, buf: &mut [u8]) -> Result<()> {
        self.check_unclaimed(run)?;
        let at = self.locate(run, offset, buf.len() as u64)?;
        self.backing.read(at, buf)
    }

    /// Copies `data` to `offset` in `run`; volatile until persisted.
    pub fn write(&self, run: &ChunkRun, offset: u64, data: &[u8]) -> Result<()> {
        self.check_unclaimed(run)?;
        let at = self.locate(run, offset, data.len() as u64)?;
        self.backing.write(at, data)
    }

    /// Makes `len` bytes at `offset` in `run` durable before returning.
    /// Emulated: one `msync` system call per call, so batch ranges.
    pub fn persist(&self, run: &ChunkRun, offset: u64, len: u64) -> Result<()> {
        let at = self.locate(run, offset, len)?;
        self.backing.persist(at, len)
    }

    /// The 8-byte word at `offset` (a multiple of 8) in `run`, for atomic
    /// publication; durable only after [`persist`](Self::persist).
    pub fn atomic_u64(&self, run: &ChunkRun, offset: u64) -> Result<&AtomicU64> {
        if offset % 8 != 0 {
            return Err(PmemError::Misaligned { offset });
        }
        self.check_unclaimed(run)?;
        let at = self.locate(run, offset, 8)?;
        self.backing.atomic_u64(at)
    }

    /// Orders earlier stores and persists before later stores.
    pub fn fence(&self) {
        self.backing.fence();
    }

    /// The arena offset of `len` bytes at `offset` in `run`, checked.
    pub(super) fn locate(&self, run: &ChunkRun, offset: u64, len: u64) -> Result<u64> {
        self.allocator.check(run)?;
        words::check_range(offset, len, run.len())?;
        Ok(run.offset() + offset)
    }
}
