//! Packed storage for a shard's small values: records copied back to back
//! into segments (one allocation of 14 KiB each) instead of one heap
//! allocation per record, so that a record costs its length and not its
//! allocator size class, `Bytes` header and slack (a 1,030-byte record
//! took 1,342 bytes alone; a 100-byte one 176). A leaf.
//!
//! A record's value is a `Bytes` slice of its segment (`BytesMut::split`
//! then `freeze`: safe code, no allocation per record); the segment's
//! memory goes back to the allocator when its last slice is dropped.
//!
//! Segments are written in two streams, one per S3-FIFO queue: a record
//! entering small is packed into the small stream; a record entering main
//! (promoted, straight from the ghost) or going round main again (read
//! since it last passed the head) is copied into the main stream. So a
//! segment's records leave in about the order they came in, and a segment
//! empties as its queue's head passes over it instead of being pinned by a
//! few survivors; each record is copied at most once per turn of its queue.
//!
//! Invariant: `resident` is the charge of the segments holding at least
//! one live record (an open segment whose records all left is dropped), and
//! `held` the bytes of the live records in them.

use std::collections::VecDeque;
use std::mem::size_of;

use bytes::{Bytes, BytesMut};

/// Segment id of a record with its own allocation (not packed).
pub(super) const UNPACKED: u32 = u32::MAX;

/// Bytes per segment: jemalloc's largest small size class, served from
/// slabs exactly. Larger allocations come from page extents with a page
/// more (its cache-oblivious offset): a 32 KiB segment occupied 36 KiB,
/// and a cache of 1,000-byte records grew 11% over its budget.
const SEGMENT: usize = 14 * 1024;

/// What a segment holds beyond its bytes: the `Bytes` shared header its
/// first split allocates, and the allocator's own slack.
const SEGMENT_OVERHEAD: usize = 64;

/// A shard packs only if its budget holds this many segments, so that the
/// two open segments and the partly emptied ones at the queues' heads are
/// a small share of it (a shard of 448 KiB or more).
const SEGMENTS_PER_BUDGET: usize = 32;

/// The stream a record is packed into: its queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stream {
    Small = 0,
    Main = 1,
}

/// A stream's segment being filled.
struct Open {
    /// The unwritten rest of the segment (written parts were split off).
    rest: BytesMut,
    id: u32,
}

/// The segments of one shard.
pub(super) struct Segments {
    /// Bytes per segment; 0 when the shard packs nothing.
    size: usize,
    open: [Option<Open>; 2],
    /// Live records of segment `base + i`, oldest first; zero for a
    /// segment that emptied behind an older one still in use.
    live: VecDeque<u32>,
    base: u32,
    next_id: u32,
    resident: usize,
    held: usize,
}

impl Segments {
    /// The segments of a shard of `budget` bytes (none if it is small).
    pub(super) fn for_budget(budget: usize) -> Segments {
        Segments {
            size: match budget >= SEGMENTS_PER_BUDGET * SEGMENT {
                true => SEGMENT,
                false => 0,
            },
            open: [None, None],
            live: VecDeque::new(),
            base: 0,
            next_id: 0,
            resident: 0,
            held: 0,
        }
    }

    /// True if a value of `len` bytes is packed: non-empty and at most an
    /// eighth of a segment, 1,792 bytes (what a full segment leaves
    /// unwritten at its end stays under an eighth). Larger values keep
    /// their own allocations, whose size classes waste at most a fifth.
    pub(super) fn packs(&self, len: usize) -> bool {
        len > 0 && len <= self.size / 8
    }

    /// `value` as the shard keeps it in `stream`: a packed copy if it
    /// `packs`, else itself; with its segment id (or `UNPACKED`).
    pub(super) fn keep(&mut self, stream: Stream, value: Bytes) -> (Bytes, u32) {
        match self.packs(value.len()) {
            true => self.pack(stream, &value),
            false => (value, UNPACKED),
        }
    }

    /// Copies `data` (which `packs`) into `stream`'s open segment, opening
    /// a new one when it does not fit; the copy and its segment's id.
    pub(super) fn pack(&mut self, stream: Stream, data: &[u8]) -> (Bytes, u32) {
        let open = &mut self.open[stream as usize];
        if open.as_ref().is_none_or(|o| o.rest.capacity() < data.len()) {
            // The full segment's live records keep it charged (and alive).
            let id = self.next_id;
            self.next_id = self.next_id.wrapping_add(1);
            if self.live.is_empty() {
                self.base = id;
            }
            self.live.push_back(0);
            self.resident += self.size + SEGMENT_OVERHEAD;
            *open = Some(Open {
                rest: BytesMut::with_capacity(self.size),
                id,
            });
        }
        let Some(open) = open.as_mut() else {
            unreachable!("opened above");
        };
        // Within capacity: no reallocation, the slice shares the segment.
        open.rest.extend_from_slice(data);
        let value = open.rest.split().freeze();
        let id = open.id;
        let index = self.index(id);
        self.live[index] += 1;
        self.held += data.len();
        (value, id)
    }

    /// A record of `len` bytes in segment `id` left the shard (its value
    /// was dropped or replaced by a copy). A segment left without records
    /// is uncharged, and dropped if it is open.
    pub(super) fn release(&mut self, id: u32, len: usize) {
        if id == UNPACKED {
            return;
        }
        let index = self.index(id);
        self.live[index] -= 1;
        self.held -= len;
        if self.live[index] > 0 {
            return;
        }
        self.resident -= self.size + SEGMENT_OVERHEAD;
        for open in &mut self.open {
            if open.as_ref().is_some_and(|o| o.id == id) {
                *open = None;
            }
        }
        while self.live.front() == Some(&0) {
            self.live.pop_front();
            self.base = self.base.wrapping_add(1);
        }
        if self.live.len() * 4 < self.live.capacity() && self.live.capacity() > 64 {
            self.live.shrink_to(self.live.len() * 2);
        }
    }

    /// True when the segments in use are more than half empty (beyond the
    /// four a shard's streams always have open or partly emptied).
    pub(super) fn sparse(&self) -> bool {
        self.resident > 2 * self.held + 4 * (self.size + SEGMENT_OVERHEAD)
    }

    /// Ends the open segments: what is packed next starts new ones. The
    /// closed ones stay, charged, while they hold records.
    pub(super) fn close(&mut self) {
        self.open = [None, None];
    }

    /// Bytes of the segments in use and of their bookkeeping.
    pub(super) fn resident(&self) -> usize {
        self.resident + self.live.capacity() * size_of::<u32>()
    }

    /// Bytes of the live records packed in the segments.
    pub(super) fn held(&self) -> usize {
        self.held
    }

    fn index(&self, id: u32) -> usize {
        id.wrapping_sub(self.base) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_shards_pack_nothing_and_large_values_are_not_packed() {
        assert!(!Segments::for_budget(400 << 10).packs(1));
        let segments = Segments::for_budget(1 << 30);
        assert!(segments.packs(1792) && !segments.packs(1793));
        assert!(!segments.packs(0));
    }

    #[test]
    fn records_share_a_segment_and_it_is_uncharged_when_the_last_leaves() {
        let mut segments = Segments::for_budget(1 << 20);
        let charge = SEGMENT + SEGMENT_OVERHEAD;
        let (a, sa) = segments.pack(Stream::Small, &[1; 1700]);
        let (b, sb) = segments.pack(Stream::Small, &[2; 1700]);
        let (_, sc) = segments.pack(Stream::Main, &[3; 1700]);
        assert_eq!((sa, a.len(), &b[..3]), (sb, 1700, &[2u8, 2, 2][..]));
        assert_ne!(sa, sc, "each stream has its own segment");
        assert_eq!((segments.resident, segments.held), (2 * charge, 5100));
        // Eight records of 1,700 bytes fill the 14 KiB segment: the ninth
        // opens another.
        let packed: Vec<_> = (0..7)
            .map(|_| segments.pack(Stream::Small, &[4; 1700]))
            .collect();
        assert_ne!(packed[6].1, sa);
        assert_eq!(segments.resident, 3 * charge);
        for (_, id) in &packed[..6] {
            segments.release(*id, 1700);
        }
        segments.release(sa, 1700);
        assert_eq!(segments.resident, 3 * charge, "b still holds the first");
        segments.release(sb, 1700);
        assert_eq!(segments.resident, 2 * charge);
        assert_eq!(&a[..2], &[1, 1], "a slice outlives its segment's charge");
        segments.release(sc, 1700);
        segments.release(packed[6].1, 1700);
        assert_eq!((segments.resident, segments.held), (0, 0));
        assert!(segments.live.is_empty());
        assert!(segments.open.iter().all(Option::is_none));
    }

    #[test]
    fn a_segment_emptied_behind_an_older_one_is_uncharged_at_once() {
        let mut segments = Segments::for_budget(1 << 20);
        let (_, old) = segments.pack(Stream::Main, &[0; 1700]);
        let ids: Vec<u32> = (0..16)
            .map(|_| segments.pack(Stream::Small, &[0; 1700]).1)
            .collect();
        let charge = SEGMENT + SEGMENT_OVERHEAD;
        assert_eq!(segments.resident, 3 * charge);
        ids[..8].iter().for_each(|&id| segments.release(id, 1700));
        assert_eq!(segments.resident, 2 * charge);
        assert_eq!(segments.live.len(), 3, "kept behind the main segment");
        segments.release(old, 1700);
        assert_eq!(segments.live.len(), 1);
        assert_eq!(segments.index(ids[15]), 0);
    }
}
