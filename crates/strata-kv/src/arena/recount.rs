//! Adopting persistent segments at a restart and recounting their live
//! bytes from the index: the arena's side of `open/restart.rs`.

use super::segment::Segment;
use super::{Arena, Loc, PmemSegments};

impl Arena {
    /// An arena over persistent segments found at a restart: `(id, seq,
    /// segment)`, any order. Every segment is sealed and counted as all
    /// live until `reset_usage` and `count_live` recount it.
    pub(crate) fn adopt(
        segment_size: usize,
        pmem: PmemSegments,
        mut found: Vec<(u32, u64, Segment)>,
    ) -> Self {
        let mut arena = Self::with_source(segment_size, Some(pmem));
        found.sort_unstable_by_key(|(_, seq, _)| *seq);
        let top = found.iter().map(|(id, _, _)| *id as usize + 1).max();
        arena.segments.resize_with(top.unwrap_or(0), || None);
        for (id, _, seg) in found {
            arena.written += seg.len();
            arena.segments[id as usize] = Some(seg);
            arena.fifo.push_back(id);
        }
        arena.free_ids = (0..arena.segments.len() as u32)
            .filter(|&id| arena.segments[id as usize].is_none())
            .rev()
            .collect();
        arena
    }

    /// Counts the record at `loc` (of `len` bytes) as live: a restart's
    /// recount from the index.
    pub(crate) fn count_live(&mut self, loc: Loc, len: usize, expires_at: Option<u64>) {
        let seg = self.segment_mut(loc.seg);
        seg.add_live(len);
        if let Some(at) = expires_at {
            seg.set_earliest_expiry(seg.earliest_expiry().min(at));
        }
    }

    /// Forgets every segment's usage before a recount.
    pub(crate) fn reset_usage(&mut self) {
        for seg in self.segments.iter_mut().flatten() {
            seg.reset_usage();
        }
    }

    /// Undoes `count_live` for a record found superseded at a restart.
    pub(crate) fn uncount_live(&mut self, loc: Loc, len: usize) {
        self.segment_mut(loc.seg).release(len);
    }
}
