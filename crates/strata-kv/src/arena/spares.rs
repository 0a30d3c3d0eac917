//! [`Spares`]: freed DRAM segments kept mapped for the next ones, the
//! arena's retention policy.
//!
//! Under steady overwrites the compactor frees segments about as fast as
//! appends open them, and unmapping one only to map and fault in a fresh
//! one costs a page fault per 4 KiB (measured: 29,000 faults/s and 115
//! `munmap`/`mmap` pairs/s under a job queue's list pushes and pops, most
//! of them the compactor's frees of one 100 ms pass). Demand sizes the
//! pool, as an allocator's decay does: [`trim`](Spares::trim), once a
//! maintenance pass, keeps at most as many as the busiest of the last
//! [`DEMAND_WINDOW`] intervals opened, so an idle shard returns them all
//! within that many passes; never more than [`MAX_SPARES`]. The window is
//! longer than one interval because the compactor works in bursts: a pass
//! that opens five destination segments and frees five sources is often
//! followed by one that opens none, and a one-interval memory unmapped
//! the five only to map five again a pass later (measured under pipelined
//! `HSET`: 45 `mmap`/`munmap` pairs and 10,000 page faults per second).
//! Spares are not counted in the arena's written bytes (like an
//! allocator's retained pages, they show in RSS only).

use super::segment::Segment;

/// Most freed segments one shard keeps mapped.
pub(crate) const MAX_SPARES: usize = 16;

/// Maintenance intervals whose demand [`Spares::trim`] remembers (about
/// 1.6 s at the default 100 ms interval).
pub(crate) const DEMAND_WINDOW: usize = 16;

/// Freed full-size DRAM segments, and the demand since the last trim.
#[derive(Default)]
pub(crate) struct Spares {
    kept: Vec<Segment>,
    /// Full-size segments opened since the last `trim`.
    opened_since_trim: usize,
    /// Segments opened in each of the last [`DEMAND_WINDOW`] intervals
    /// (a ring; `next` is the oldest).
    recent: [usize; DEMAND_WINDOW],
    next: usize,
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

    /// Ends a maintenance interval: unmaps the spares beyond the most any
    /// of the last [`DEMAND_WINDOW`] intervals (this one included) opened.
    pub fn trim(&mut self) {
        self.recent[self.next] = self.opened_since_trim;
        self.next = (self.next + 1) % DEMAND_WINDOW;
        self.opened_since_trim = 0;
        let demand = self.recent.iter().copied().max().unwrap_or(0);
        self.kept.truncate(demand.min(MAX_SPARES));
    }

    /// Spares held.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.kept.len()
    }
}
