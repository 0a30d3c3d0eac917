//! [`ChunkRun`]: a run of chunks handed out by the allocator. A leaf
//! below the allocator and its scan.

use crate::header::layout::Geometry;

/// A run of contiguous chunks allocated to one owner.
///
/// Only the arena makes these; a run stays valid until it is freed, and the
/// arena checks on every access that a run fits its geometry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ChunkRun {
    pub(super) first: u64,
    pub(super) count: u64,
    pub(super) offset: u64,
    pub(super) len: u64,
    pub(super) owner: u32,
}

impl ChunkRun {
    pub(crate) fn new(geometry: &Geometry, first: u64, count: u64, owner: u32) -> ChunkRun {
        ChunkRun {
            first,
            count,
            offset: geometry.chunk_offset(first),
            len: count * geometry.chunk_size,
            owner,
        }
    }

    /// Index of the first chunk.
    pub fn first(&self) -> u64 {
        self.first
    }

    /// Number of chunks.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Byte offset of the run in the arena file.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Length of the run in bytes (`count * chunk_size`).
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Always false: a run has at least one chunk.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The owner given at allocation.
    pub fn owner(&self) -> u32 {
        self.owner
    }
}
