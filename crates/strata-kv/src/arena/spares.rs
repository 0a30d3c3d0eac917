//! [`Spares`]: freed DRAM segments kept mapped for the next ones, the
//! arena's retention policy.
//!
//! Under steady overwrites the compactor frees segments about as fast as
//! appends open them, and unmapping one only to map and fault in a fresh
//! one costs a page fault per 4 KiB (measured: 29,000 faults/s and 115
//! `munmap`/`mmap` pairs/s under a job queue's list pushes and pops, most
//! of them the compactor's frees of one 100 ms pass). Demand sizes the
//! pool, as an allocator's decay does: [`trim`](Spares::trim), once a
//! maintenance pass, keeps at most as many as were opened since the
//! previous trim, so an idle shard returns them all within two passes;
//! never more than [`MAX_SPARES`]. Spares are not counted in the arena's
//! written bytes (like an allocator's retained pages, they show in RSS
//! only).

use super::segment::Segment;

/// Most freed segments one shard keeps mapped.
pub(crate) const MAX_SPARES: usize = 16;

/// Freed full-size DRAM segments, and the demand since the last trim.
#[derive(Default)]
pub(crate) struct Spares {
    kept: Vec<Segment>,
    /// Full-size segments opened since the last `trim`.
    opened_since_trim: usize,
}

impl Spares {
    /// A full-size segment is being opened: a kept one if any.
    pub fn take(&mut self) -> Option<Segment> {
        self.opened_since_trim += 1;
        self.kept.pop()
    }

    /// Keeps `segment` (freed, full-size, in DRAM) unless the pool is full;
    /// a segment not kept is unmapped.
    pub fn offer(&mut self, segment: Segment) {
        if self.kept.len() < MAX_SPARES {
            self.kept.extend(segment.recycle());
        }
    }

    /// Unmaps the spares beyond those opened since the previous call (the
    /// demand of one maintenance interval).
    pub fn trim(&mut self) {
        self.kept.truncate(self.opened_since_trim.min(MAX_SPARES));
        self.opened_since_trim = 0;
    }

    /// Spares held.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.kept.len()
    }
}
